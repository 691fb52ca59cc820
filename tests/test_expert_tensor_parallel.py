"""Expert tensor parallel (`etp N`, Megatron-Core's --expert-tensor-parallel-size): read in
English and Chinese, written back, planned as given or chosen by the search, and the expert
weights, states and traffic of a split follow it (issue #22, "every published layout stated")."""

import json

import pytest

from advisor import catalog
from advisor.engine.estimate import best_layout
from advisor.engine.layout import ModelSplit
from advisor.engine.memory import GIB, estimate_memory, parameters_on_this_gpu
from advisor.engine.setup import PinnedKnobs, TrainingSetup
from advisor.engine.shapes import count_params
from advisor.engine.throughput import estimate_throughput, intra_node_gb_s, nic_gb_s
from advisor.request.parser import RequestError, parse


@pytest.mark.parametrize(
    "text,etp,tp",
    [
        ("qwen3-235b-a22b pretrain 1T tokens on 64xH100 tp 4 ep 8 etp 1", 1, 4),
        ("qwen3-235b-a22b pretrain 1T tokens on 64xH100 tp 4 ep 8 expert tp 4", 4, 4),
        ("qwen3-235b-a22b pretrain 1T tokens on 64xH100 tp 4 ep 8 expert-tp=2", 2, 4),
        ("qwen3-235b-a22b pretrain 1T tokens on 64xH100 tp 4 ep 8 expert-tensor-parallel-size 1", 1, 4),
        ("qwen3-235b-a22b pretrain 1T tokens on 64xH100 TP4 ETP1 ep 8", 1, 4),
        # `expert tp 4` is the experts' degree, not the tensor-parallel one
        ("qwen3-235b-a22b pretrain 1T tokens on 64xH100 ep 8 expert tp 4", 4, None),
        ("qwen3-235b-a22b 预训练 1T tokens 64xH100 张量并行4 专家并行8 专家张量并行1", 1, 4),
        ("qwen3-235b-a22b 预训练 1T tokens 64xH100 专家并行8 专家张量并行度=4", 4, None),
    ],
)
def test_the_expert_tensor_degree_is_read(text, etp, tp):
    r = parse(text)
    assert (r.etp, r.tp, r.ep) == (etp, tp, 8)
    assert "etp" in r.user_set


def test_a_bad_expert_tensor_degree_is_refused():
    with pytest.raises(RequestError) as info:
        parse("qwen3-235b-a22b pretrain 1T tokens etp 0")
    assert "etp 0" in str(info.value)


def _ask(cli, text):
    out = cli("ask", text, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_a_fixed_expert_tensor_degree_is_planned_and_in_the_json(cli):
    d = _ask(cli, "qwen3-235b-a22b pretrain 1T tokens on 64xH100 tp 4 pp 2 ep 8 etp 4")
    assert d["request"]["etp"] == 4
    assert (d["plan"]["tp"], d["plan"]["ep"], d["plan"]["etp"]) == (4, 8, 4)
    # without expert parallelism the experts split like the dense layers
    dense = _ask(cli, "70B full-finetune 100GB 7d on 64xH800 tp 8")
    assert dense["request"]["etp"] is None and dense["plan"]["etp"] == dense["plan"]["tp"] == 8


def test_the_text_says_how_the_experts_are_split(cli):
    out = cli("ask", "qwen3-235b-a22b pretrain 1T tokens on 64xH100 tp 4 pp 2 ep 8 etp 4")
    assert "expert tensor parallel 4" in out.stdout
    out = cli("ask", "qwen3-235b-a22b pretrain 1T tokens on 64xH100 tp 4 pp 8 ep 8 etp 1")
    assert "experts whole on each GPU (expert tensor parallel 1)" in out.stdout
    out = cli("ask", "qwen3-235b-a22b 预训练 1T tokens 64xH100 张量并行4 流水线并行2 专家并行8 专家张量并行4")
    assert "专家张量并行 4" in out.stdout


@pytest.mark.parametrize(
    "text,reason,words",
    [
        ("70B full-finetune 100GB 7d on 64xH800 tp 8 etp 2", "etp_dense", ["`etp 2`", "dense"]),
        ("qwen3-235b-a22b pretrain 1T tokens on 64xH100 tp 4 ep 1 etp 1", "etp_needs_ep", ["`ep 1`", "`etp 4`"]),
        # 64 GPUs at tp 4 x pp 8 leave 8 ranks a stage: ep 8 x etp 4 = 32 does not divide them
        ("qwen3-235b-a22b pretrain 1T tokens on 64xH100 tp 4 pp 8 ep 8 etp 4", "etp_ranks", ["`etp 4`", "8 tensor-"]),
        # ZeRO-3 is FSDP2 here unless `megatron` is said, and only Megatron-Core runs etp > 1 beside ep
        ("qwen3-235b-a22b pretrain 1T tokens on 64xH100 tp 4 ep 8 etp 4 zero3", "etp_framework", ["Megatron-Core"]),
    ],
)
def test_an_expert_tensor_degree_that_cannot_run_is_refused(cli, text, reason, words):
    out = cli("ask", text, "--json")
    assert out.returncode == 2 and out.stdout == ""
    for w in words:
        assert w in out.stderr, out.stderr
    from advisor.planning.advice import advise_request

    with pytest.raises(RequestError) as info:
        advise_request(parse(text), book=None)
    assert info.value.details["reason"] == reason


def test_a_refusal_in_chinese(cli):
    out = cli("ask", "70B 全量微调 100GB 7天 用64xH800 张量并行8 专家张量并行2")
    assert out.returncode == 2 and "稠密模型" in out.stderr


# Qwen3-30B-A3B (48 MoE layers, 128 experts of top 8, hidden 2048, no shared experts) on two
# 8-GPU H100 servers: tp 2, ep 4, 8 data-parallel ranks, 4 micro-batches of 4,096 tokens.
M = catalog.find_model("qwen3-30b-a3b")
H100 = catalog.get_gpu("H100")
SETUP = TrainingSetup(method="pretrain", precision="bf16", seq_len=4096, global_batch=32, tokens=1e12)


def _split(etp: int) -> ModelSplit:
    return ModelSplit(
        gpu=H100.name, gpu_count=16, gpus_per_node=8, nodes=2, tp=2, dp=8, ep=4, expert_tp=etp,
        zero_stage=1, recompute="none", micro_batch=1, global_batch=32, framework="Megatron-Core",
    )  # fmt: skip


def test_expert_weights_and_their_data_parallel_ranks_follow_etp():
    c = count_params(M)
    assert c.moe_layers == 48 and M.moe_shared_experts == 0
    one, two = _split(1), _split(2)
    # each GPU holds experts / (ep x etp); the rest of a stage's tp x dp ranks hold copies
    assert parameters_on_this_gpu(c, one).experts == pytest.approx(c.experts / 4)
    assert parameters_on_this_gpu(c, two).experts == pytest.approx(c.experts / 8)
    assert (one.expert_dp, two.expert_dp) == (4, 2)  # 16 / (4 x 1), 16 / (4 x 2)
    m1, m2 = estimate_memory(M, SETUP, one, H100), estimate_memory(M, SETUP, two, H100)
    # bf16 weights and fp32 gradients, whole on every rank under ZeRO-1: 2 + 4 bytes an expert
    # parameter, for the c.experts x (1/4 - 1/8) parameters etp 2 takes off this GPU; the fp32
    # optimizer states shard over ep x etp x expert-dp = 16 either way
    assert (m1.weights - m2.weights) * GIB == pytest.approx(2 * c.experts / 8, rel=1e-6)
    assert (m1.gradients - m2.gradients) * GIB == pytest.approx(4 * c.experts / 8, rel=1e-6)
    assert m1.optimizer == pytest.approx(m2.optimizer, rel=1e-6)


def test_expert_tensor_traffic_worked_by_hand():
    one = estimate_throughput(M, SETUP, _split(1), H100)
    two = estimate_throughput(M, SETUP, _split(2), H100)
    intra = intra_node_gb_s(H100) * 1e9
    steps = 32 // 8  # micro-batches a step
    # Dispatch and combine, forward and backward (4 passes of 2 bytes), of this GPU's 4,096 / tp
    # tokens, each to its 8 experts, in every one of 48 layers; ep 4 sits inside a server (the
    # expert ranks are etp-innermost, then ep), so over NVLink; a quarter of the copies are for
    # experts on the token's own rank and move nothing: 6 of 8 move.
    copy = steps * 4 * 48 * (4096 / 2) * 2048 * 2 / intra
    assert one.step["expert_s"] == pytest.approx(6 * copy, rel=1e-9)
    # etp 2 all-gathers the other expert-tensor rank's copies (all 8 it received, its own rank's
    # too) and reduce-scatters the outputs as often as the all-to-all runs, over NVLink
    assert two.step["expert_s"] == pytest.approx((6 + 8) * copy, rel=1e-9)
    # the tensor-parallel all-reduces are the attention blocks' only: with ep the routed experts
    # exchange copies instead (4 all-reduces a layer, half of them the MLP's; ring 2(t-1)/t = 1)
    tensor = steps * 4 * (48 / 2) * 4096 * 2048 * 2 * 2 * (1 / 2) / intra
    assert one.step["tensor_s"] == pytest.approx(tensor, rel=1e-9) == two.step["tensor_s"]
    # The experts' ZeRO-1 gradients (fp32 reduce-scatter, bf16 all-gather: 6 bytes) go round their
    # expert-data-parallel ranks: etp 1 has 4 of them, 2 on each server (one ring per NIC, two
    # NICs); etp 2 has 2, one on each server (one NIC).
    c = count_params(M)
    nic = nic_gb_s(H100, one.network) * 1e9
    expert_one = c.experts / 4 * (3 / 4) * 6 / min(intra, 2 * nic)
    expert_two = c.experts / 8 * (1 / 2) * 6 / min(intra, nic)
    assert one.step["data_s"] - two.step["data_s"] == pytest.approx(expert_one - expert_two, rel=1e-6)


def test_the_search_splits_experts_over_tp_only_where_whole_experts_do_not_fit():
    pinned = PinnedKnobs(tp=4, pp=2, ep=8)
    setup = TrainingSetup(method="pretrain", precision="bf16", seq_len=4096, tokens=1e12, pinned=pinned)
    m = catalog.find_model("qwen3-235b-a22b")
    est = best_layout(m, setup, H100, 64)
    # whole experts: 227B / (pp 2 x ep 8) on each GPU, over 100 GiB with their states; split
    # over the 4 tensor ranks they fit
    assert est.fits and est.layout.expert_tp == 4
    whole = best_layout(m, setup.model_copy(update={"pinned": PinnedKnobs(tp=4, pp=2, ep=8, etp=1)}), H100, 64)
    assert not whole.fits and whole.layout.expert_tp == 1
    # with room for whole experts (128 GPUs at pp 4: 8 data-parallel ranks, so etp 4 could run)
    # the search keeps them whole, as Megatron-Core advises
    roomy = best_layout(m, setup.model_copy(update={"pinned": PinnedKnobs(tp=4, pp=4, ep=8)}), H100, 128)
    assert roomy.fits and roomy.layout.expert_tp == 1 and roomy.layout.dp == 8
