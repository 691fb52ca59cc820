"""A mixture of experts on the stacks that run the Hugging Face model as written: transformers 4's
Python loop over the experts, and DeepSpeed ZeRO-3's fetches when the MoE block is no leaf module
(advisor/engine/throughput.py EAGER_EXPERT_OPS, ZERO3_MODULE_FETCH_S)."""

import pytest

from advisor import catalog
from advisor.engine.estimate import best_layout
from advisor.engine.frameworks import DEEPSPEED, FSDP2
from advisor.engine.memory import GIB
from advisor.engine.shapes import count_params
from advisor.engine.throughput import expert_launch_s
from advisor.planning.advice import advise
from advisor.planning.engine_inputs import model_shape, training_setup
from advisor.request.parser import parse

# ms-swift's DeepSpeed benchmark of Qwen3-30B-A3B (docs/source_en/Megatron-SWIFT/Quick-start.md)
# (June 2025: transformers 4, whose MoE blocks loop over the experts)
DEEPSPEED_RUN = (
    "qwen3-30b-a3b full-finetune 1B tokens seq 8192 mbs 1 gbs 16 zero3 recompute full deepspeed transformers 4"
    " on 16xA800"
)
MEGATRON_RUN = DEEPSPEED_RUN.replace(
    "zero3 recompute full deepspeed transformers 4", "tp 2 pp 1 ep 8 etp 2 recompute full megatron"
)


def _plan(text):
    req = parse(text)
    m, setup = model_shape(req), training_setup(req)
    return req, m, setup, best_layout(m, setup, catalog.get_gpu(req.gpu), req.gpu_count)


def test_zero3_without_a_leaf_module_fetches_each_expert_projection_apart():
    """Hand-worked: Qwen3-30B-A3B, 48 MoE layers of 128 experts, full fine-tuning with whole-layer
    recompute on DeepSpeed ZeRO-3. The loop: 6,144 experts x [(13 kernels + 2 host syncs) x 2
    forward passes + 26 backward kernels = 56] x 20 us = 6.88 s a micro-batch. Without a leaf
    module ZeRO-3 also fetches each expert's 3 projections in the forward, the recompute and the
    backward: 6,144 x 3 x 3 x 250 us = 13.82 s more. FSDP2 wraps whole layers and pays neither."""
    _, m, setup, est = _plan(DEEPSPEED_RUN)
    c = count_params(m)
    assert (c.moe_layers, m.moe_experts, est.layout.framework, est.layout.zero_stage) == (48, 128, DEEPSPEED, 3)
    loop = 48 * 128 * 56 * 20e-6
    assert expert_launch_s(m, setup, est.layout, c) == pytest.approx(loop)
    unleafed = setup.model_copy(update={"z3_leaf": False})
    assert expert_launch_s(m, unleafed, est.layout, c) == pytest.approx(loop + 48 * 128 * 3 * 3 * 250e-6)
    zero2 = est.layout.model_copy(update={"zero_stage": 2})
    assert expert_launch_s(m, unleafed, zero2, c) == pytest.approx(loop)
    assert expert_launch_s(m, unleafed, est.layout.model_copy(update={"framework": FSDP2}), c) == 0.0


def test_a_leaf_moe_block_is_gathered_whole():
    """DeepSpeed gathers a leaf MoE block's experts at once and reduces their gradients once the
    block's backward is done: a layer's 128 experts in two buffers, 2 x 2 bytes x 0.60B = 2.3 GiB
    more than when each projection comes in alone."""
    _, m, setup, est = _plan(DEEPSPEED_RUN)
    c = count_params(m)
    _, _, unleafed, apart = _plan(DEEPSPEED_RUN.replace("deepspeed", "deepspeed no-z3-leaf"))
    assert not unleafed.z3_leaf and apart.layout == est.layout
    more = (est.memory.other - apart.memory.other) * GIB
    assert more == pytest.approx(2 * 2 * c.experts / c.moe_layers, rel=1e-6)
    assert 2.0 < more / GIB < 2.5


def test_deepspeed_moe_plans_say_how_far_behind_megatron_they_are(book):
    """ms-swift measured this run at 91.2 s/it on DeepSpeed ZeRO-3 (no leaf module, June 2025)
    against 9.6 on Megatron: the no-leaf plan runs at under a third of the Megatron plan's speed,
    the leaf plan in between; each says why and names the Megatron-based stacks."""
    leaf = advise(DEEPSPEED_RUN, book=book)
    apart = advise(DEEPSPEED_RUN.replace("deepspeed", "deepspeed no-z3-leaf"), book=book)
    grouped = advise(MEGATRON_RUN, book=book)
    speed = {k: a.plan.estimate.throughput.tokens_per_s_per_gpu for k, a in (("leaf", leaf), ("apart", apart))}
    megatron = grouped.plan.estimate.throughput.tokens_per_s_per_gpu
    assert speed["apart"] * 3 < megatron and speed["apart"] < speed["leaf"] < megatron
    for advice, is_leaf in ((leaf, True), (apart, False)):
        loop = next(w for w in advice.warnings if w.code == "moe_expert_loop")
        assert loop.params["factor"] == pytest.approx(1 / (1 - loop.params["share"]))
        assert any(w.code == "moe_zero3_leaf" and w.params["leaf"] is is_leaf for w in advice.warnings)
    assert not any(w.code in ("moe_expert_loop", "moe_zero3_leaf") for w in grouped.warnings)


def test_the_expert_loop_warning_names_megatron_stacks(cli):
    out = cli("ask", DEEPSPEED_RUN).stdout
    assert "`megatron sft`" in out and "Megatron-Bridge" in out and "`no-z3-leaf`" in out
    zh = cli("ask", DEEPSPEED_RUN.replace("deepspeed", "deepspeed 无叶子模块") + " 中文").stdout
    assert "无 ZeRO-3 叶子模块" in zh and "基于 Megatron 的框架" in zh and "逐个拉取每个专家" in zh
