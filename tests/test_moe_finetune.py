"""Fine-tuning a mixture of experts: the frozen experts under ZeRO-3 are sharded over the ranks
that hold them, and a small data set's batch rule does not leave a model that fits unplanned."""

import pytest

from advisor import catalog
from advisor.engine.estimate import MAX_OFFLOAD_GIB_PER_SERVER, best_layout
from advisor.engine.memory import FROZEN_BYTES, GIB, NF4_BYTES
from advisor.engine.shapes import count_params
from advisor.planning.advice import advise
from advisor.planning.engine_inputs import model_shape, training_setup
from advisor.request.parser import parse


def _at(text):
    req = parse(text)
    est = best_layout(model_shape(req), training_setup(req), catalog.get_gpu(req.gpu), req.gpu_count)
    return req, est


def test_lora_experts_under_zero3_are_sharded_over_the_ranks_that_hold_them():
    # GLM-4.5 on 16 GPUs, dp 16 x ep 8: each expert sits on 2 of them (dp / ep), the dense part on
    # all 16, so the frozen base is 1/16 of the model on each: 353B x 2 bytes / 16, not / 128
    req, est = _at("glm-4.5 lora 100MB on 16xH20 ep 8 zero3 tp 1")
    lay = est.layout
    assert (lay.dp, lay.ep, lay.zero_stage, lay.expert_dp) == (16, 8, 3, 2)
    params = count_params(model_shape(req)).total
    frozen = params * FROZEN_BYTES / 16 / GIB
    assert est.memory.weights == pytest.approx(frozen, rel=0.03)


def test_qlora_experts_keep_four_bits_sharded_over_every_rank():
    # QLoRA runs data parallel only: with ZeRO-3 every rank holds a quarter of each expert, in NF4
    req, est = _at("qwen3-30b-a3b qlora 100MB on 4xH100 zero3")
    m = model_shape(req)
    assert (est.layout.dp, est.layout.zero_stage, est.layout.expert_dp) == (4, 3, 4)
    c = count_params(m)
    embeddings = c.embedding + c.output  # kept in bf16, not quantised
    # and the adapters, fp32 as PEFT's k-bit preparation leaves them: all-linear adapts every
    # routed expert (0.85B parameters here), so they are no longer lost in the rounding
    adapters = est.memory.trainable_params * 4
    expected = ((c.total - embeddings) * NF4_BYTES + embeddings * FROZEN_BYTES + adapters) / 4 / GIB
    assert est.memory.weights == pytest.approx(expected, rel=0.03)


def test_a_mixture_of_experts_on_few_sequences_folds_its_experts_over_tensor_ranks():
    # 10k samples leave a batch of a few sequences under the rule (1,000 steps): too few
    # data-parallel ranks to spread Qwen3 235B's experts over 8 GPUs, so they are folded over
    # the tensor-parallel ranks (Megatron-Core's parallel folding) and the batch stays in the rule
    req, est = _at("qwen3-235b-a22b lora 1万条 on 8xH800")
    lay = est.layout
    # folded (EP8 over the tensor ranks) or tensor x expert parallel over all eight: either way the
    # experts spread over every GPU (with all-linear's expert adapters the search takes TP2 x EP4)
    assert est.fits and ((lay.ep == 8 and lay.folded) or lay.ep * lay.tp == 8)
    assert "batch_above_rule" not in est.checks


def test_full_sft_of_a_large_moe_on_little_data_gets_a_plan(book):
    out = advise("qwen3-235b-a22b sft 50k samples 10d", book=book).to_json()
    host = out["memory_gib_per_gpu"]["host_ram_for_offload"] * out["plan"]["gpus_per_node"]
    assert out["plan"]["fits"] and out["training"]["days"] <= 10 and host <= MAX_OFFLOAD_GIB_PER_SERVER


# -- experts under tensor and context parallelism (an engineer's probe, 2026-12-02) -------------


def test_experts_not_spread_are_split_over_the_tensor_ranks():
    # ep 1 under tp 8: Megatron-Core splits each expert over the tensor group as the roofline
    # does (expert_tensor_parallel_size = tp), so Mixtral's 46.7B frozen weights are 1/8 a GPU,
    # not its 45B of experts whole on every one
    req, est = _at("mixtral-8x7b lora 100M tokens on 8xH100 tp 8 ep 1")
    lay = est.layout
    assert (lay.tp, lay.ep, lay.expert_tp, lay.expert_dp) == (8, 1, 8, 1)
    params = count_params(model_shape(req)).total
    assert est.memory.weights == pytest.approx(params * FROZEN_BYTES / 8 / GIB, rel=0.03) and est.fits


def test_expert_shards_go_over_the_tensor_context_and_data_ranks_that_hold_them():
    # Megatron-Core's parallel folding: EP x ETP x EDP = TP x CP x DP
    from advisor.engine.layout import ModelSplit

    def split(**k):
        return ModelSplit(gpu="H100-SXM5-80GB", gpu_count=64, gpus_per_node=8, nodes=8, **k)

    assert split(tp=1, pp=1, dp=8, cp=4, ep=8).expert_dp == 4  # cp 4: a quarter of the states each
    assert split(tp=2, pp=1, dp=32, ep=8).expert_dp == 8  # each expert on both tensor ranks
    assert split(tp=8, pp=1, dp=8, ep=64).expert_dp == 1  # folded over all 64


def test_a_stated_tensor_degree_finds_the_folded_expert_degree_that_fits():
    # gpt-oss-120b at tp 8 on 64 GPUs: 8 data-parallel ranks hold 16 experts each and do not
    # fit; ep 64 folded over tp x dp does (the answer had said "needs 216 GiB, add GPUs")
    _, est = _at("gpt-oss-120b full-finetune 1B tokens on 64xH100 tp 8")
    assert est.fits and est.layout.ep == 64 and est.layout.folded


def test_context_parallel_ranks_alone_still_shard_the_optimizer():
    # cp 8 on 8 GPUs leaves dp 1, but the 8 ranks hold the same weights: ZeRO-1 shards the
    # states over them (8.03B x 12 B / 8 = 11.2 GiB), so the plan fits instead of "add GPUs"
    req, est = _at("llama3-8b full-finetune 1B tokens on 8xH100 megatron cp 8 seq 32768 mbs 1")
    assert est.fits and est.layout.zero_stage >= 1
    params = count_params(model_shape(req)).total
    assert est.memory.optimizer == pytest.approx(params * 12 / 8 / GIB, rel=0.05)


# -- offloading a mixture of experts (thirteenth session) ----------------------------------------


def test_a_moe_too_big_for_the_cards_offloads_its_states_like_a_dense_model():
    # gpt-oss-120b full fine-tune on one 8 x H100 server: the states (117B x 16 bytes) need 219 GiB
    # a GPU on any split; with the optimizer states on the CPU it fits, on ZeRO-3 with the experts
    # sharded like any layer or on Megatron-Core with its experts spread (its optimizer offload
    # keeps expert parallel). It had said "does not fit".
    _, est = _at("gpt-oss-120b full-finetune 200M tokens on 8xH100")
    lay = est.layout
    assert est.fits and lay.offload != "none"
    assert (lay.ep == 1 and lay.zero_stage == 3) or (lay.framework == "Megatron-Core" and lay.zero_stage <= 1)
    assert 0 < est.memory.host_ram_gib * lay.gpus_per_node <= MAX_OFFLOAD_GIB_PER_SERVER


def test_a_plan_that_needs_more_ram_than_a_server_has_is_not_planned(book):
    # a 1T-parameter LoRA had been headlined on one server of 8 consumer cards streaming 1.9 TiB
    # of weights from host RAM: more than a standard server's 2 TB, so it is not a plan
    out = advise("Kimi K2 lora, 100M tokens, 1 week, budget ¥300k", book=book).to_json()
    host = out["memory_gib_per_gpu"]["host_ram_for_offload"] * out["plan"]["gpus_per_node"]
    assert host <= MAX_OFFLOAD_GIB_PER_SERVER


def test_offloaded_states_must_fit_in_a_servers_ram():
    # Kimi K2 (1T) full fine-tune on one GPU: 15 TiB of states offloaded, more than an 8-GPU
    # server's 2 TB holds, so nothing fits however little the card itself holds; the answer says why
    _, est = _at("kimi-k2 full-finetune 10k samples on 1x4090")
    assert not est.fits
    assert est.memory.total < est.usable_gib and est.memory.host_ram_gib > MAX_OFFLOAD_GIB_PER_SERVER


def test_the_no_fit_warning_names_the_servers_ram(cli):
    out = cli("ask", "kimi-k2 full-finetune 10k samples on 1x4090").stdout
    assert "more than a standard 8-GPU server holds" in out and "Too tight" not in out


def test_one_gpu_offloads_its_weights_under_zero3():
    # ZeRO-Infinity: parameters offloaded need stage 3 even with one data-parallel rank, so a 70B
    # full fine-tune runs on one A100 with 1 TB of host RAM (slowly); it had found no layout
    _, est = _at("70B full-finetune 1GB on 1xA100-80GB")
    assert est.fits and est.layout.offload == "all" and est.layout.zero_stage == 3
