"""The plan is physically right (issue #14): the communication a layout really causes, layouts
that frameworks run, real head counts, counts that scale, and what the hardware can do."""

import itertools
import math

import pytest

from advisor import catalog
from advisor.engine.estimate import (
    MAX_GPUS,
    best_layout,
    candidate_counts,
    hardware_precision,
    parallel_splits,
)
from advisor.engine.frameworks import DEEPSPEED, FSDP2, MEGATRON, PEFT, framework_for, pipeline_schedule
from advisor.engine.layout import MICROBATCHES_PER_STAGE, ModelSplit
from advisor.engine.setup import PinnedKnobs, TrainingSetup
from advisor.engine.shapes import generic_shape
from advisor.engine.throughput import (
    ATTENTION_FLOPS_PER_LAYER_TOKEN_Q,
    JITTER_LEFT_BY_GRAPHS,
    STEP_JITTER_GPU_S,
    STEP_JITTER_NODE_S,
    estimate_throughput,
    flops_per_token,
    intra_node_gb_s,
    nic_gb_s,
    speed_ceiling,
    team_network,
)
from advisor.planning.advice import advise
from advisor.planning.engine_inputs import model_shape, training_setup
from advisor.request.parser import parse


def _layout(gpu, count, **knobs):
    per = min(count, gpu.gpus_per_server)
    return ModelSplit(gpu=gpu.name, gpu_count=count, gpus_per_node=per, nodes=count // per, **knobs)


def _pinned(setup, **knobs):
    return setup.model_copy(update={"pinned": PinnedKnobs(**knobs)})


def test_zero3_gathers_and_reduces_every_micro_batch():
    """ZeRO-3/FSDP traffic is per micro-batch: twice the micro-batches, twice the bytes; the
    once-a-step reduction of ZeRO-1 does not grow with them."""
    gpu, shape = catalog.get_gpu("H100"), generic_shape(70)
    setup = TrainingSetup(method="pretrain", tokens=1e12)

    def data_s(zero, global_batch):
        lay = _layout(gpu, 64, tp=1, dp=64, zero_stage=zero, micro_batch=1, global_batch=global_batch)
        return estimate_throughput(shape, setup, lay, gpu).step["data_s"]

    assert data_s(3, 64 * 8) == pytest.approx(2 * data_s(3, 64 * 4))
    assert data_s(1, 64 * 8) == pytest.approx(data_s(1, 64 * 4))
    assert data_s(3, 64 * 4) > 4 * data_s(1, 64 * 4)


def test_lora_frozen_base_gathers_cost_time():
    """A sharded frozen base is gathered like ZeRO-3 weights: it costs time, and on a slow
    fabric more of it shows."""
    gpu, shape = catalog.get_gpu("B200"), generic_shape(405)
    setup = TrainingSetup(method="lora", tokens=50e9 / 4)
    lay = _layout(gpu, 64, tp=1, dp=64, zero_stage=3, micro_batch=1, global_batch=128)
    sharded = estimate_throughput(shape, setup, lay, gpu, "roce100")
    replicated = estimate_throughput(shape, setup, lay.model_copy(update={"zero_stage": 1}), gpu, "roce100")
    assert sharded.step["data_s"] > 100 * replicated.step["data_s"]
    assert sharded.step["exposed_s"] > 0
    fast = estimate_throughput(shape, setup, lay, gpu, "ndr400")
    assert fast.step["exposed_s"] < sharded.step["exposed_s"]


def test_moe_all_to_all_is_counted_and_cheaper_inside_the_server():
    gpu = catalog.get_gpu("H800")
    shape = catalog.find_model("deepseek-v3")
    setup = TrainingSetup(method="pretrain", precision="fp8", tokens=1e12)
    base = {"tp": 1, "pp": 16, "dp": 128, "zero_stage": 1, "micro_batch": 1, "global_batch": 128 * 64}
    inside = estimate_throughput(shape, setup, _layout(gpu, 2048, ep=8, **base), gpu)
    across = estimate_throughput(shape, setup, _layout(gpu, 2048, ep=64, **base), gpu)
    none = estimate_throughput(shape, setup, _layout(gpu, 2048, ep=1, **base), gpu)
    assert none.step["expert_s"] == 0 < inside.step["expert_s"] < across.step["expert_s"]


def test_cuda_graphs_take_the_host_part_of_the_jitter_and_leave_the_expert_launches():
    """CUDA graphs shorten a step by the host-launch share of the per-step jitter, the same at
    any step length (a fixed term, so short steps on many GPUs gain most), and no more; a dropless
    MoE's per-expert launches stay outside Megatron-Core's graphs."""
    gpu, shape = catalog.get_gpu("H100"), catalog.find_model("llama2-70b")
    setup = TrainingSetup(method="lora", precision="fp8", seq_len=8192, tokens=1e9)
    lay = _layout(gpu, 1024, tp=4, cp=2, dp=128, zero_stage=1, micro_batch=1, global_batch=128)
    eager = estimate_throughput(shape, setup, lay, gpu)
    graphed = estimate_throughput(shape, setup.model_copy(update={"cuda_graphs": True}), lay, gpu)
    saved = (1 - JITTER_LEFT_BY_GRAPHS) * (STEP_JITTER_NODE_S * math.log(128) + STEP_JITTER_GPU_S * math.log(8))
    assert eager.step["step_s"] - graphed.step["step_s"] == pytest.approx(saved)
    graphed_setup = setup.model_copy(update={"cuda_graphs": True})
    assert speed_ceiling(shape, graphed_setup, lay, gpu) >= graphed.tokens_per_s_per_gpu
    moe = catalog.find_model("qwen3-30b-a3b")
    moe_setup = TrainingSetup(method="pretrain", precision="fp8", tokens=1e12, stack="megatron")
    moe_lay = _layout(gpu, 16, tp=1, dp=16, ep=16, zero_stage=1, micro_batch=1, global_batch=1024, framework=MEGATRON)
    moe_eager = estimate_throughput(moe, moe_setup, moe_lay, gpu)
    moe_graphed = estimate_throughput(moe, moe_setup.model_copy(update={"cuda_graphs": True}), moe_lay, gpu)
    assert moe_graphed.step["launch_s"] == moe_eager.step["launch_s"] > 0


def test_tensor_parallel_over_pcie_runs_at_the_pcie_figure():
    """A fixed tp on PCIe cards: its all-reduces move the same bytes as over NVLink, at the PCIe
    link's speed (L40S: PCIe Gen4, 25 GB/s a direction; H100 SXM: NVLink 450)."""
    shape = catalog.find_model("llama2-70b")
    setup = TrainingSetup(method="lora", precision="fp8", seq_len=8192, tokens=1e9)
    l40s, h100 = catalog.get_gpu("L40S"), catalog.get_gpu("H100")
    pcie = estimate_throughput(shape, setup, _layout(l40s, 64, tp=4, cp=2, dp=8, micro_batch=1, global_batch=8), l40s)
    nvlink = estimate_throughput(shape, setup, _layout(h100, 64, tp=4, cp=2, dp=8, micro_batch=1, global_batch=8), h100)
    assert intra_node_gb_s(l40s) == 25.0
    ratio = intra_node_gb_s(h100) / intra_node_gb_s(l40s)
    assert pcie.step["tensor_s"] == pytest.approx(ratio * nvlink.step["tensor_s"])


def test_tensor_and_pipeline_traffic_show_in_the_step():
    gpu, shape = catalog.get_gpu("H100"), generic_shape(70)
    setup = TrainingSetup(method="pretrain", tokens=1e12)
    lay = _layout(gpu, 64, tp=8, pp=2, dp=4, zero_stage=1, micro_batch=1, global_batch=32)
    step = estimate_throughput(shape, setup, lay, gpu).step
    assert step["tensor_s"] > 0 and step["pipeline_s"] > 0 and step["bubble_s"] > 0
    parts = step["compute_s"] + step["bubble_s"] + step["exposed_s"]
    assert step["step_s"] >= parts


def test_a_pipeline_across_servers_sends_over_the_nic_even_when_stages_share_a_server():
    """Megatron puts the pipeline outermost: tp 4 x pp 8 on four 8-GPU servers holds two stages a
    server, and every third boundary lies between servers, so each micro-batch waits on the NIC (it
    had been costed at NVLink because a stage's tp x dp was under a server's 8 GPUs)."""
    gpu, shape = catalog.get_gpu("H800"), generic_shape(70)
    lay = _layout(gpu, 32, tp=4, pp=8, dp=1, zero_stage=1, micro_batch=1, global_batch=64)
    at_400 = estimate_throughput(shape, TrainingSetup(method="pretrain", tokens=1e12), lay, gpu).step
    at_100 = TrainingSetup(method="pretrain", tokens=1e12, network_gbps=100)  # 100 Gb/s a GPU, said
    slow = estimate_throughput(shape, at_100, lay, gpu).step
    assert slow["pipeline_s"] == pytest.approx(4 * at_400["pipeline_s"])  # NDR 400 against 100: a quarter


def test_the_teams_own_network_is_a_gpus_share_of_its_link():
    """25 Gb/s a server, said as the server's, is 25/8 Gb/s a GPU on 8-GPU servers: 0.39 GB/s a direction."""
    gpu = catalog.get_gpu("H800")
    per_server = TrainingSetup(network_gbps=25, network_per_server=True)
    assert team_network(per_server, gpu) == "3.125g"
    assert nic_gb_s(gpu, team_network(per_server, gpu)) == pytest.approx(25 / 8 / 8)
    assert team_network(TrainingSetup(network_gbps=200), gpu) == "200g" and team_network(TrainingSetup(), gpu) is None
    # a plan on one server sends nothing between servers: the same speed whatever the network said
    shape, base = generic_shape(13), TrainingSetup(method="full-finetune", tokens=1e9)
    alone = best_layout(shape, base, gpu, 8).throughput.tokens_per_s_per_gpu
    slow = base.model_copy(update={"network_gbps": 25, "network_per_server": True})
    assert best_layout(shape, slow, gpu, 8).throughput.tokens_per_s_per_gpu == alone
    # across servers the slow link costs time
    assert (
        best_layout(shape, slow, gpu, 64).throughput.tokens_per_s_per_gpu
        < best_layout(shape, base, gpu, 64).throughput.tokens_per_s_per_gpu
    )


def test_frameworks_run_only_what_they_support():
    full, qlora, lora = TrainingSetup(), TrainingSetup(method="qlora"), TrainingSetup(method="lora")
    assert framework_for(qlora, 2, 1, 1, 3, "none") is None  # no tensor parallel for a 4-bit base
    assert framework_for(qlora, 1, 1, 1, 3, "none") == PEFT
    assert framework_for(full, 1, 4, 1, 1, "none") == MEGATRON  # distributed optimizer = ZeRO-1
    assert framework_for(full, 1, 4, 1, 3, "none") == FSDP2  # ZeRO-3 with stages: torchtitan
    assert framework_for(full, 1, 1, 1, 2, "none") == DEEPSPEED
    # offload with model parallel: Megatron-Core's optimizer offload (ZeRO-1), never ZeRO-Offload
    assert framework_for(full, 1, 2, 1, 1, "optimizer") == MEGATRON
    assert framework_for(full, 1, 1, 8, 1, "optimizer") == MEGATRON
    assert framework_for(full, 2, 1, 1, 3, "optimizer") is None
    assert framework_for(full, 2, 1, 1, 1, "all") is None  # Megatron never offloads the weights
    assert framework_for(lora, 2, 1, 1, 1, "optimizer") is None
    assert framework_for(full, 1, 1, 1, 3, "optimizer") == DEEPSPEED  # ZeRO-Offload
    assert framework_for(full, 1, 1, 1, 1, "all") is None  # ZeRO-Infinity needs ZeRO-3
    assert framework_for(lora, 4, 1, 1, 1, "none") == MEGATRON  # NeMo's PEFT on Megatron
    assert framework_for(lora, 2, 1, 1, 3, "none") == FSDP2  # NeMo Automodel: LoRA on TP2 x FSDP4
    req = parse("70B full-finetune 100GB on 64xH800")
    gpu, shape, setup = catalog.get_gpu(req.gpu), model_shape(req), training_setup(req)
    for offload in ("none", "optimizer", "all"):
        for split in parallel_splits(shape, setup, gpu, 64, offload):
            fw = framework_for(setup, split.tp, split.pp, split.ep, split.zero_stage, offload)
            assert fw is not None
            assert not (fw == DEEPSPEED and split.pp > 1)
            assert shape.heads % split.tp == 0 and shape.kv_heads % split.tp == 0


def test_plans_name_framework_schedule_and_enough_micro_batches():
    for text in (
        "llama3.1-405b pretrain 15T tokens seq 8192 on 1024xH100",
        "70B pretrain 1T tokens on 256xH800",
        "405B lora 50GB on 64xB200",
    ):
        req = parse(text)
        est = best_layout(model_shape(req), training_setup(req), catalog.get_gpu(req.gpu), req.gpu_count)
        lay = est.layout
        assert lay.framework in (MEGATRON, DEEPSPEED, FSDP2, PEFT)
        if lay.pp > 1:
            assert lay.microbatches_per_step >= MICROBATCHES_PER_STAGE * lay.pp
            assert lay.pipeline_schedule in ("1f1b", "interleaved-1f1b")
            assert lay.virtual_stages == 1 or lay.framework in (MEGATRON, FSDP2)
        else:
            assert lay.pipeline_schedule == "none"


def test_end_chunks_may_hold_a_layer_fewer():
    # Llama 3.1 405B: 126 layers are 64 chunks of 2 with the embedding and the loss each in a
    # layer's place (Megatron-Bridge's PP 8 x VP 8; Meta's PP 16 needs 4 chunks a stage).
    assert pipeline_schedule(MEGATRON, 126, 16, 32) == ("interleaved-1f1b", 4)
    assert pipeline_schedule(MEGATRON, 125, 16, 32) == ("interleaved-1f1b", 2)
    assert pipeline_schedule(FSDP2, 62, 8, 16) == ("interleaved-1f1b", 4)
    assert pipeline_schedule(DEEPSPEED, 126, 16, 32) == ("1f1b", 1)
    assert pipeline_schedule(MEGATRON, 126, 16, 24) == ("1f1b", 1)  # micro-batches not a multiple of pp


def test_interleaving_costs_activation_memory():
    from advisor.engine.memory import estimate_memory

    gpu, shape = catalog.get_gpu("H100"), generic_shape(70)
    setup = TrainingSetup(method="pretrain")
    plain = _layout(gpu, 64, tp=8, pp=4, dp=2, micro_batch=1, global_batch=32)
    inter = plain.model_copy(update={"virtual_stages": 2, "pipeline_schedule": "interleaved-1f1b"})
    assert estimate_memory(shape, setup, inter, gpu).activations > estimate_memory(shape, setup, plain, gpu).activations
    assert (
        estimate_throughput(shape, setup, inter, gpu).step["bubble_s"]
        < estimate_throughput(shape, setup, plain, gpu).step["bubble_s"]
    )


@pytest.mark.parametrize("size", [0.5, 1, 3, 7, 13, 20, 34, 70, 180, 405, 1000])
def test_generic_shapes_have_real_head_counts(size):
    s = generic_shape(size)
    assert s.heads % 8 == 0 and s.heads % s.kv_heads == 0 and s.hidden == s.heads * s.head_dim
    assert abs(s.params_b - size) / size < 0.1 or size < 1


def test_counts_are_whole_servers_up_to_one_cap():
    counts = candidate_counts(catalog.get_gpu("H100"))
    assert counts[-1] == MAX_GPUS == 16384
    assert 24 in counts and 40 in counts and all(c % 8 == 0 for c in counts if c >= 8)
    from advisor.planning import planner

    assert planner.MAX_GPUS is MAX_GPUS


def test_more_gpus_never_slower_for_the_same_job():
    req = parse("70B pretrain 1T tokens")
    gpu, shape, setup = catalog.get_gpu("H100"), model_shape(req), training_setup(req)
    days = [best_layout(shape, setup, gpu, n).days for n in (64, 128, 256, 512, 1024)]
    assert all(b <= a for a, b in itertools.pairwise(days)), days


def test_open_request_meets_deadline_on_the_cheapest_count_it_tried(cli):
    import json

    out = cli("ask", "671B-A37B pretrain 14.8T tokens 60d fp8 on H800", "--json")
    data = json.loads(out.stdout)
    plan, training = data["plan"], data["training"]
    assert plan["meets_deadline"] and plan["framework"] and plan["micro_batches_per_step"] >= 1
    assert training["gpu_hours"] / 2.664e6 < 1.5  # DeepSeek-V3 report: 2.664M H800 GPU-hours
    assert set(training["step_seconds"]) >= {
        "compute_s",
        "tensor_s",
        "pipeline_s",
        "data_s",
        "expert_s",
        "exposed_s",
        "step_s",
    }


def test_fp8_and_bf16_only_where_the_hardware_has_them():
    fp8 = TrainingSetup(precision="fp8")
    a100, v100, h100 = catalog.get_gpu("A100-80GB"), catalog.get_gpu("V100-32GB"), catalog.get_gpu("H100")
    assert hardware_precision(fp8, h100) == (fp8, [])
    setup, checks = hardware_precision(fp8, a100)
    assert setup.precision == "bf16" and checks == ["fp8_unsupported"]
    setup, checks = hardware_precision(fp8, v100)
    assert setup.precision == "fp16" and checks == ["fp8_unsupported", "bf16_unsupported"]
    req = parse("7b pretrain 10B tokens fp8 on 8xA100-80GB")
    est = best_layout(model_shape(req), training_setup(req), catalog.get_gpu(req.gpu), req.gpu_count)
    assert est.precision == "bf16" and "fp8_unsupported" in est.checks


def test_pcie_cards_get_less_network_and_geforce_no_p2p():
    from advisor.engine.throughput import intra_node_gb_s, nic_gb_s

    l40s, h100, rtx = catalog.get_gpu("L40S"), catalog.get_gpu("H100"), catalog.get_gpu("4090")
    assert nic_gb_s(l40s, "ndr400") < nic_gb_s(h100, "ndr400")
    assert intra_node_gb_s(rtx) < rtx.intra_node_bw_gb_s / 2


def test_sanity_checks_follow_the_numbers():
    for text in ("70B pretrain 100B tokens on 64xL40S", "7b lora 20GB on 1xH100", "70B full-finetune 1TB on 8xH800"):
        req = parse(text)
        est = best_layout(model_shape(req), training_setup(req), catalog.get_gpu(req.gpu), req.gpu_count)
        assert ("exposed_communication" in est.checks) == (est.throughput.exposed_comm_share > 0.30)


def test_pinned_layout_is_kept_and_unsupported_pins_refused():
    req = parse("70B full-finetune 100GB 7d on 64xH800")
    gpu, shape, setup = catalog.get_gpu(req.gpu), model_shape(req), training_setup(req)
    est = best_layout(shape, _pinned(setup, tp=8, pp=4), gpu, 64)
    assert (est.layout.tp, est.layout.pp, est.layout.dp) == (8, 4, 2)
    for bad in ({"tp": 3}, {"tp": 16}):  # heads do not divide; tensor parallel beyond a server
        with pytest.raises(ValueError):
            best_layout(shape, _pinned(setup, **bad), gpu, 64)
    qreq = parse("70B qlora 100GB on 8xH800")
    with pytest.raises(ValueError):
        best_layout(model_shape(qreq), _pinned(training_setup(qreq), tp=2), gpu, 8)


@pytest.mark.parametrize(
    "text",
    [
        "7B lora 10GB 3d seq 2048 on 1xRTX4090",
        "8B lora 10GB 3d seq 4096 on 1xA100-40GB",
        "7B qlora 10GB 3d seq 16384 on 1xH100",
        "8B full-finetune 10GB 3d seq 4096 on 1xA100-40GB",  # DeepSpeed with offload
        "405B lora 50GB 5d seq 4096 tp 2 zero3 on 112xH100",  # LoRA on FSDP2: Automodel, torchtune
    ],
)
def test_hf_and_deepspeed_plans_recompute_whole_layers_or_nothing(text):
    """Selective recompute is Megatron's and torchtitan's; HF PEFT/TRL and DeepSpeed checkpoint
    whole layers, so their plans say none or full (the selective one would be planned too fast)."""
    req = parse(text)
    est = best_layout(model_shape(req), training_setup(req), catalog.get_gpu(req.gpu), req.gpu_count)
    assert est.layout.framework in (PEFT, DEEPSPEED, FSDP2) and est.layout.recompute == "full", est.layout
    pinned = parse(text + " recompute selective")
    kept = best_layout(model_shape(pinned), training_setup(pinned), catalog.get_gpu(pinned.gpu), pinned.gpu_count)
    assert kept.layout.recompute == "selective"  # what the user fixes is kept


def test_megatron_moe_pays_host_launches_per_local_expert():
    """Hand-worked: Qwen3-30B-A3B (48 MoE layers, 128 experts) on PP2 x EP8 in FP8 holds 16
    experts on 24 layers; each pays 2 GEMMs x (forward + 2 backward) + 2 x 2 FP8 casts = 10
    launches of 20 us: 24 * 16 * 10 * 20 us = 76.8 ms a micro-batch. FSDP2 (one grouped kernel,
    NeMo Automodel) and bf16 without recompute (6 launches) differ as the counts say."""
    from advisor.engine.shapes import count_params
    from advisor.engine.throughput import expert_launch_s

    req = parse("qwen3-30b-a3b pretrain 1T tokens seq 4096 mbs 1 gbs 1024 tp 1 pp 2 ep 8 zero1 fp8 on 16xH100")
    m, setup = model_shape(req), training_setup(req)
    est = best_layout(m, setup, catalog.get_gpu(req.gpu), req.gpu_count)
    c = count_params(m)
    assert est.layout.framework == MEGATRON and c.moe_layers == 48
    assert expert_launch_s(m, setup, est.layout, c) == pytest.approx(24 * 16 * 10 * 20e-6)
    bf16 = setup.model_copy(update={"precision": "bf16"})
    assert expert_launch_s(m, bf16, est.layout, c) == pytest.approx(24 * 16 * 6 * 20e-6)
    fsdp = est.layout.model_copy(update={"framework": FSDP2})
    assert expert_launch_s(m, setup, fsdp, c) == 0.0


def test_hf_stacks_loop_over_the_experts_on_the_host():
    """Hand-worked: the stacks that run the Hugging Face model as written loop over its experts in
    Python. Mixtral 8x7B LoRA on every linear layer, whole-layer recompute, one GPU: 32 layers x 8
    experts x [(13 kernels + 4 for each of the 3 adapted projections = 25, + 2 host syncs) x 2
    forward passes + 2 x 25 backward kernels = 104] x 20 us = 0.532 s a micro-batch; q and v
    adapted only: (13 + 2) x 2 + 26 = 56; Megatron-Core's grouped launches are counted as before,
    FSDP2's grouped kernel pays none."""
    from advisor.engine.shapes import count_params
    from advisor.engine.throughput import expert_launch_s

    req = parse("mixtral-8x7b lora 100M tokens recompute full on 1xA100-80GB hf transformers 4")
    m, setup = model_shape(req), training_setup(req)
    c = count_params(m)
    est = best_layout(m, setup, catalog.get_gpu(req.gpu), req.gpu_count)
    assert est.layout.framework == PEFT and est.layout.recompute == "full" and c.moe_layers == 32
    assert expert_launch_s(m, setup, est.layout, c) == pytest.approx(32 * 8 * 104 * 20e-6)
    qv = setup.model_copy(update={"lora_targets": "qv"})
    assert expert_launch_s(m, qv, est.layout, c) == pytest.approx(32 * 8 * 56 * 20e-6)
    assert expert_launch_s(m, setup, est.layout.model_copy(update={"framework": FSDP2}), c) == 0.0


def test_moe_lora_on_deepspeed_is_slower_than_the_dense_model_of_its_size(book):
    """Users measure Qwen3-30B-A3B LoRA under DeepSpeed ZeRO-3 at 1.6x to 10x the time of a dense
    ~32B model (hiyouga/LlamaFactory#7921, modelscope/ms-swift#6061, both on transformers 4), though
    its FLOPs are a tenth: the plan lands in that range and says why; on transformers 5's grouped
    experts and on Megatron-Core it is faster than the dense model."""
    moe = advise("qwen3-30b-a3b lora 100M tokens seq 4096 zero3 deepspeed transformers 4 on 8xH100", book=book)
    dense = advise("qwen3-32b lora 100M tokens seq 4096 zero3 deepspeed on 8xH100", book=book)
    ratio = moe.plan.estimate.throughput.tokens_per_s_per_gpu / dense.plan.estimate.throughput.tokens_per_s_per_gpu
    assert 0.1 <= ratio <= 1 / 1.6
    assert any(w.code == "moe_expert_loop" and w.params["share"] > 0.5 for w in moe.warnings)
    assert not any(w.code == "moe_release_spread" for w in moe.warnings)
    grouped = advise("qwen3-30b-a3b lora 100M tokens seq 4096 megatron on 8xH100", book=book)
    assert grouped.plan.estimate.throughput.tokens_per_s_per_gpu > dense.plan.estimate.throughput.tokens_per_s_per_gpu
    assert not any(w.code == "moe_expert_loop" for w in grouped.warnings)
    v5 = advise("qwen3-30b-a3b lora 100M tokens seq 4096 zero3 deepspeed on 8xH100", book=book)
    assert v5.plan.estimate.throughput.tokens_per_s_per_gpu > dense.plan.estimate.throughput.tokens_per_s_per_gpu


def test_experts_fold_over_tensor_and_data_parallel_ranks():
    """Megatron-Core's parallel folding: Qwen3 235B on 256 H100 as TP2 x PP8 leaves 16
    data-parallel ranks, and its 32 expert ranks fold over the 32 tensor x data-parallel ranks
    (Megatron-Bridge's published layout): 4 experts a GPU, each held by one rank (expert dp 1),
    the weights of 128 / 32 experts on a stage. ep 64 divides neither and is refused."""
    req = parse("qwen3-235b-a22b pretrain 1T tokens tp 2 pp 8 ep 32 zero1 on 256xH100")
    m, setup = model_shape(req), training_setup(req)
    est = best_layout(m, setup, catalog.get_gpu(req.gpu), req.gpu_count)
    lay = est.layout
    assert (lay.tp, lay.pp, lay.dp, lay.ep) == (2, 8, 16, 32) and lay.folded and lay.expert_dp == 1
    assert not _layout(catalog.get_gpu("H100"), 256, tp=2, pp=8, dp=16, ep=8).folded
    # ep 8 under tp 2: each expert whole on a rank (expert tp 1), so the 2 x 16 tensor x data
    # ranks hold 8 expert shards 4 times over (EP x ETP x EDP = TP x CP x DP)
    assert _layout(catalog.get_gpu("H100"), 256, tp=2, pp=8, dp=16, ep=8).expert_dp == 4
    from advisor.planning.advice import advise_request
    from advisor.request.parser import RequestError

    with pytest.raises(RequestError) as info:
        advise_request(parse("qwen3-235b-a22b pretrain 1T tokens tp 2 pp 8 ep 64 on 256xH100"), book=None)
    assert info.value.details["reason"] == "ep_dp" and info.value.details["ranks"] == 32


# -- local attention (issue 22: the models of 2025-26) -------------------------------------


def test_a_sliding_window_sees_its_window_once_past_it():
    # GPT-OSS: 18 of 36 layers see the last 128 tokens. At 4096 tokens a local query sees
    # 128 - 128 * 127 / 8192 = 126.02 keys on average, a full one 2048.5.
    m = catalog.find_model("gpt-oss-120b")
    local = 128 - 128 * 127 / (2 * 4096)
    assert m.mean_keys(4096) == pytest.approx(0.5 * local + 0.5 * 4097 / 2)
    assert m.attention_share(4096) == pytest.approx(m.mean_keys(4096) / (4097 / 2))


def test_chunked_attention_sees_the_causal_part_of_its_chunk():
    # Llama 4: 36 of 48 layers attend within chunks of 8192; at 32768 tokens (4 whole chunks)
    # a chunked query sees 8193 / 2 keys on average; at 8192 tokens or fewer, the whole sequence.
    m = catalog.find_model("llama4-maverick")
    assert m.mean_keys(32768) == pytest.approx(0.75 * 8193 / 2 + 0.25 * 32769 / 2)
    assert m.attention_share(8192) == 1.0
    # a partial last chunk: 10000 tokens = one chunk of 8192 and 1808 tokens
    expected_local = (8192 * 8193 / 2 + 1808 * 1809 / 2) / 10000
    assert m.mean_keys(10000) == pytest.approx(0.75 * expected_local + 0.25 * 10001 / 2)


def test_local_layers_cut_the_attention_flops_and_time():
    gemma = catalog.find_model("gemma3-27b")
    full = gemma.model_copy(update={"local_attention_layers": 0, "name": "gemma3-27b-full"})
    setup = TrainingSetup(method="full-finetune", seq_len=32768)
    local_flops, _, _ = flops_per_token(gemma, setup, "none")
    full_flops, _, _ = flops_per_token(full, setup, "none")
    q = gemma.heads * gemma.head_dim
    attention = ATTENTION_FLOPS_PER_LAYER_TOKEN_Q * gemma.layers * 32768 * q
    assert full_flops - local_flops == pytest.approx(attention * (1 - gemma.attention_share(32768)))


def test_the_default_fabric_is_what_the_host_pcie_feeds_not_the_year_sold():
    """An A800 is an A100 on the same PCIe Gen4 host: both are timed on HDR 200 (it had been NDR
    400 for the A800, sold from 2022, so the same chip was 1.6x faster as 'A800'); Gen5 hosts on
    NDR 400; the Ascend 910B on its own 200GE RoCE ports."""
    from advisor import catalog
    from advisor.engine.throughput import default_network, nic_ceiling_gbps

    assert default_network(catalog.get_gpu("A100-SXM4-80GB")) == default_network(catalog.get_gpu("A800-SXM4-80GB"))
    assert default_network(catalog.get_gpu("A800-SXM4-80GB")) == "hdr200"
    assert default_network(catalog.get_gpu("H800-SXM-80GB")) == "ndr400"
    assert default_network(catalog.get_gpu("Ascend-910B-64GB")) == "roce200"
    assert nic_ceiling_gbps(catalog.get_gpu("A100-SXM4-80GB")) == 200


def test_the_efficiency_factors_multiply_out_to_the_hardware_utilisation():
    # a chain had read "node 0.58 = 0.56 of peak": the per-step overhead was left out
    req = parse("qwen2.5-7b lora 30k samples on 4x4090")
    est = best_layout(model_shape(req), training_setup(req), catalog.get_gpu(req.gpu), req.gpu_count)
    t = est.throughput
    product = math.prod(t.efficiency.values())
    hfu = next(n["hfu"] for n in t.notes if n["kind"] == "efficiency")
    assert product == pytest.approx(hfu, rel=1e-6)
