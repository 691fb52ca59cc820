"""Megatron-Core's MoE token dispatcher (`dispatcher alltoall|flex`, --moe-token-dispatcher-type):
read in English and Chinese, in the request and the plan's JSON, shown on the layout line, refused
where it cannot run; the default by GPU; and what the engine charges each: the all-to-all
dispatcher's sort passes and its undeduplicated sends across servers (advisor/engine/frameworks.py
`token_dispatcher`, roofline.ALLTOALL_SORT_ELEMS, throughput's node-limited routing)."""

import json

import pytest

from advisor import catalog
from advisor.engine import roofline as rf
from advisor.engine.frameworks import DEEPSPEED, MEGATRON, token_dispatcher
from advisor.engine.layout import ModelSplit
from advisor.engine.setup import TrainingSetup
from advisor.engine.shapes import count_params
from advisor.engine.throughput import estimate_throughput, intra_node_gb_s, nic_gb_s
from advisor.request.parser import RequestError, parse

MOE = "qwen3-30b-a3b pretrain 1T tokens on 16xH100 "


@pytest.mark.parametrize(
    "words,dispatcher",
    [
        ("dispatcher alltoall", "alltoall"),
        ("dispatcher flex", "flex"),
        ("dispatcher a2a", "alltoall"),
        ("dispatcher all-to-all", "alltoall"),
        ("all2all dispatcher", "alltoall"),
        ("moe-token-dispatcher-type flex", "flex"),
        ("token-dispatcher=alltoall", "alltoall"),
        # DeepEP's and HybridEP's names alone are the flex dispatcher's backends
        ("deepep", "flex"),
        ("DeepEP", "flex"),
        ("hybridep", "flex"),
        ("分发器alltoall", "alltoall"),
        ("分发器：flex", "flex"),
        ("词元分发器a2a", "alltoall"),
        ("分发器deepep", "flex"),
    ],
)
def test_every_spelling_of_the_dispatcher_is_read(words, dispatcher):
    r = parse(MOE + words)
    assert r.dispatcher == dispatcher
    assert "dispatcher" in r.user_set
    assert not any(n.code == "read_past" for n in r.assumptions)


def test_unsaid_the_request_leaves_the_dispatcher_to_the_planner():
    r = parse(MOE.strip())
    assert r.dispatcher is None and "dispatcher" not in r.user_set


def _ask(cli, text):
    out = cli("ask", text, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize(
    "words,dispatcher",
    [("dispatcher alltoall", "alltoall"), ("deepep", "flex"), ("分发器alltoall", "alltoall")],
)
def test_the_dispatcher_said_is_in_the_request_and_the_plan(cli, words, dispatcher):
    d = _ask(cli, MOE + "tp 1 pp 2 ep 8 " + words)
    assert d["request"]["dispatcher"] == d["plan"]["dispatcher"] == dispatcher
    assert d["plan"]["framework"] == MEGATRON


def test_unsaid_the_plan_runs_the_gpus_dispatcher_and_a_dense_plan_none(cli):
    h100 = _ask(cli, MOE + "tp 1 pp 2 ep 8")
    assert h100["request"]["dispatcher"] is None and h100["plan"]["dispatcher"] == "flex"
    a100 = _ask(cli, "qwen3-30b-a3b pretrain 1T tokens on 16xA100-80GB tp 1 pp 2 ep 8")
    assert a100["plan"]["dispatcher"] == "alltoall"
    dense = _ask(cli, "70B full-finetune 100GB 7d on 64xH800 tp 8")
    assert dense["plan"]["dispatcher"] is None


# The default (frameworks.token_dispatcher): flex where DeepEP/HybridEP run (NVIDIA Hopper or
# Blackwell with NVLink, tp x ep > 1), else all-to-all; none off Megatron-Core or on a dense model.
QWEN3_MOE = catalog.find_model("qwen3-30b-a3b")
PLAIN = TrainingSetup(method="pretrain", precision="bf16", seq_len=4096, tokens=1e12)


@pytest.mark.parametrize(
    "gpu,tp,ep,dispatcher",
    [
        ("H100", 1, 8, "flex"),
        ("H800", 2, 4, "flex"),
        ("B200", 1, 8, "flex"),
        ("H100", 2, 1, "flex"),  # tp 2 alone is tp x ep = 2
        # MoEFlexTokenDispatcher asserts tp x ep > 1: one rank holds every expert
        ("H100", 1, 1, "alltoall"),
        ("A100-80GB", 1, 8, "alltoall"),  # Ampere
        ("H100-PCIe-80GB", 1, 8, "alltoall"),  # Hopper without NVLink
        ("RTX4090", 1, 8, "alltoall"),
        ("Ascend-910B-64GB", 1, 8, "alltoall"),
    ],
)
def test_the_default_dispatcher_by_gpu(gpu, tp, ep, dispatcher):
    assert token_dispatcher(QWEN3_MOE, PLAIN, MEGATRON, catalog.get_gpu(gpu), tp, ep) == dispatcher


def test_a_said_dispatcher_stands_and_none_runs_off_megatron_or_on_a_dense_model():
    h100, a100 = catalog.get_gpu("H100"), catalog.get_gpu("A100-80GB")
    said = PLAIN.model_copy(update={"dispatcher": "alltoall"})
    assert token_dispatcher(QWEN3_MOE, said, MEGATRON, h100, 1, 8) == "alltoall"
    flex = PLAIN.model_copy(update={"dispatcher": "flex"})
    assert token_dispatcher(QWEN3_MOE, flex, MEGATRON, a100, 1, 8) == "flex"
    assert token_dispatcher(QWEN3_MOE, PLAIN, DEEPSPEED, h100, 1, 8) is None
    assert token_dispatcher(catalog.find_model("llama3.1-70b"), PLAIN, MEGATRON, h100, 8, 1) is None


def test_the_all_to_all_sort_passes_worked_by_hand():
    # Qwen3-30B-A3B: 48 MoE layers, hidden 2048, each token to 8 of 128 experts. One micro-batch
    # of 4,096 tokens on an H100, tp 1, ep 8: 16 experts a GPU, so the all-to-all dispatcher sorts
    # each routed copy by local expert after the exchange and unsorts it before the combine (read
    # and write 2,048 values each: 4 x 2,048 more elements a copy, bf16), which flex does not:
    # 4 x 8 x 2,048 x 4,096 x 2 B = 512 MiB a layer forward, twice that backward, 48 layers: 72 GiB.
    h100 = catalog.get_gpu("H100")
    c = count_params(QWEN3_MOE)
    kw = dict(precision="bf16", method="pretrain", lora_rank=16, lora_targets="all", seq=4096, micro_batch=1,
              tp=1, pp=1, cp=1, etp=1, recompute="none", optimizer_params=1e9, attention="best",
              framework=MEGATRON)  # fmt: skip
    a2a = rf.stage_time(QWEN3_MOE, c, h100, ep=8, dispatcher="alltoall", **kw)
    flex = rf.stage_time(QWEN3_MOE, c, h100, ep=8, dispatcher="flex", **kw)
    hbm = h100.memory_bw_tb_s * 1e12 * rf.ETA_HBM
    assert (a2a.memory_s - flex.memory_s) * hbm == pytest.approx(72 * 2**30, rel=1e-9)
    assert (a2a.gemm_s, a2a.attention_s) == (flex.gemm_s, flex.attention_s)
    # Megatron-Core passes no dispatcher off itself: no sorts, as flex
    assert rf.stage_time(QWEN3_MOE, c, h100, ep=8, dispatcher=None, **kw).memory_s == flex.memory_s
    # ep 128: one expert a GPU, nothing to sort
    one = rf.stage_time(QWEN3_MOE, c, h100, ep=128, dispatcher="alltoall", **kw)
    assert one.memory_s == rf.stage_time(QWEN3_MOE, c, h100, ep=128, dispatcher="flex", **kw).memory_s


# DeepSeek-V3 (58 MoE layers, hidden 7168, top 8 of 256, at most 4 servers a token) on 64 H100s in
# 8 servers: tp 1, pp 1, ep 64, one micro-batch of 4,096 tokens a step.
V3 = catalog.find_model("deepseek-v3")
H100 = catalog.get_gpu("H100")


def _v3(ep: int, dispatcher: str | None):
    setup = TrainingSetup(
        method="pretrain", precision="bf16", seq_len=4096, global_batch=64, tokens=1e12, dispatcher=dispatcher
    )
    split = ModelSplit(
        gpu=H100.name, gpu_count=64, gpus_per_node=8, nodes=8, tp=1, dp=64, ep=ep,
        zero_stage=1, recompute="none", micro_batch=1, global_batch=64, framework=MEGATRON,
    )  # fmt: skip
    return estimate_throughput(V3, setup, split, H100)


def test_node_limited_sends_are_deduplicated_on_flex_only():
    assert V3.moe_node_limit == 4
    flex, a2a, unsaid = _v3(64, "flex"), _v3(64, "alltoall"), _v3(64, None)
    assert (flex.dispatcher, a2a.dispatcher, unsaid.dispatcher) == ("flex", "alltoall", "flex")
    intra, nic = intra_node_gb_s(H100) * 1e9, nic_gb_s(H100, flex.network) * 1e9
    # dispatch and combine, forward and backward (4 passes of 2 bytes), of 4,096 tokens in 58 layers
    per_copy = 4 * 58 * 4096 * 7168 * 2
    # of a token's 8 copies, 8/64 are for its own rank (they move nothing), 8 x 7/64 for the 7
    # other GPUs of its server (NVLink) and 8 x 56/64 = 7 for other servers; DeepEP sends a token
    # once to each of at most 4 servers, of which 8/64 of the time one is its own: 4 x (1 - 8/64)
    # = 3.5 over the NIC
    near = 8 * (7 / 64) / intra
    assert a2a.step["expert_s"] == pytest.approx(per_copy * (near + 7 / nic), rel=1e-9)
    assert flex.step["expert_s"] == pytest.approx(per_copy * (near + 3.5 / nic), rel=1e-9)
    assert unsaid.step["expert_s"] == flex.step["expert_s"]
    # inside one server (ep 8) no copy crosses the network: the two send the same
    assert _v3(8, "alltoall").step["expert_s"] == pytest.approx(_v3(8, "flex").step["expert_s"], rel=1e-12)


@pytest.mark.parametrize(
    "text,reason,words",
    [
        ("70B full-finetune 100GB 7d on 64xH800 tp 8 dispatcher alltoall", "dispatcher_dense",
         ["`dispatcher alltoall`", "dense"]),
        (MOE + "deepspeed dispatcher flex", "dispatcher_framework", ["`dispatcher flex`", "Megatron-Core"]),
        (MOE + "torchtitan deepep", "dispatcher_framework", ["`dispatcher flex`", "Megatron-Core"]),
        # no stack named, settings no Megatron-Core layout runs: a 4-bit base, weights offloaded
        ("qwen3-30b-a3b qlora 1GB 2d on 8xH100 deepep", "dispatcher_framework", ["`dispatcher flex`", "QLoRA"]),
        (MOE + "offload all dispatcher alltoall", "dispatcher_framework", ["`dispatcher alltoall`"]),
    ],
)  # fmt: skip
def test_a_dispatcher_that_cannot_run_is_refused(cli, text, reason, words):
    out = cli("ask", text, "--json")
    assert out.returncode == 2 and out.stdout == ""
    assert "Traceback" not in out.stderr
    for w in words:
        assert w in out.stderr, out.stderr
    from advisor.planning.advice import advise_request

    with pytest.raises(RequestError) as info:
        advise_request(parse(text), book=None)
    assert info.value.details["reason"] == reason


def test_a_refusal_in_chinese(cli):
    out = cli("ask", "70B 全量微调 100GB 7天 用64xH800 张量并行8 分发器alltoall")
    assert out.returncode == 2 and "稠密模型" in out.stderr and "Traceback" not in out.stderr


def test_the_layout_line_names_the_dispatcher(cli):
    out = cli("ask", MOE + "tp 1 pp 2 ep 8 dispatcher alltoall")
    assert "MoE tokens sent by the all-to-all dispatcher" in out.stdout
    out = cli("ask", MOE + "tp 1 pp 2 ep 8")
    assert "MoE tokens sent by the flex dispatcher (DeepEP/HybridEP)" in out.stdout
    out = cli("ask", "qwen3-30b-a3b 预训练 1T tokens 16xH100 张量并行1 流水线并行2 专家并行8 分发器alltoall")
    assert "MoE 词元由 all-to-all 分发器发送" in out.stdout
    out = cli("ask", "qwen3-30b-a3b 预训练 1T tokens 16xH100 张量并行1 流水线并行2 专家并行8 deepep")
    assert "MoE 词元由 flex 分发器（DeepEP/HybridEP）发送" in out.stdout
    dense = cli("ask", "70B full-finetune 100GB 7d on 64xH800 tp 8")
    assert "dispatcher" not in dense.stdout
