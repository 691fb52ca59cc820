"""The layout search's branch and bound (estimate._search): a split is pruned only where no
candidate of it can be faster than the fastest found, so the pruned search chooses what the
exhaustive one does, on dense, MoE, LoRA, QLoRA, fp8, budget, owned-GPU, named-layout,
all-to-all-dispatcher and recompute-module requests, within and beyond the batch rule."""

import pytest

from advisor import catalog
from advisor.engine.estimate import (
    HEADROOM,
    LAYOUT_TOLERANCE,
    MAX_OFFLOAD_GIB_PER_SERVER,
    _search,
    _split_layouts,
    candidate_layouts,
    hardware_precision,
    layout_fits,
    offload_levels,
    parallel_splits,
    recompute_levels,
)
from advisor.engine.memory import GIB, states_floor_bytes
from advisor.engine.shapes import count_params
from advisor.engine.throughput import estimate_throughput, speed_ceiling
from advisor.planning.engine_inputs import model_shape, training_setup
from advisor.request.parser import parse

CASES = [
    ("70B full-finetune 1TB 14d", "H100-SXM5-80GB", 64),
    ("70B full-finetune 1TB 14d budget", "A100-SXM4-80GB", 32),
    ("70B full-finetune 1TB 14d", "H100-SXM5-80GB", 8),  # offloads
    ("13B 全量微调 200GB数据 7天 预算10万", "A800-SXM4-80GB", 8),
    ("13B 全量微调 200GB数据 7天 预算10万", "H20-96GB", 24),
    ("13B 全量微调 200GB数据 7天 预算10万", "RTX4090-24GB", 8),
    ("we own 16 A100-80GB, 13B full finetune 100GB 5d", "A100-SXM4-80GB", 16),
    ("deepseek-v3 pretrain 2T tokens 60d", "H800-SXM-80GB", 512),
    ("deepseek-v3 pretrain 2T tokens 60d", "H20-96GB", 1024),
    ("deepseek-v3 pretrain 2T tokens 60d", "A100-SXM4-80GB", 160),
    ("deepseek-v3 pretrain 2T tokens 60d", "H100-SXM5-80GB", 48),  # offloads: no offload ruled out
    ("deepseek-v3 pretrain 2T tokens 60d", "H100-SXM5-80GB", 8),  # nothing fits: the least memory
    ("mixtral-8x7b full-finetune 100GB 7d", "H100-SXM5-80GB", 16),
    ("qwen3-30b-a3b lora 50GB 3d", "H100-SXM5-80GB", 8),  # the PEFT stack weighed: nothing pruned
    ("qwen3-30b-a3b lora 50GB 3d", "H100-SXM5-80GB", 32),
    ("7b lora 20GB 3d", "RTX4090-24GB", 4),
    ("7b lora 20GB 3d", "A100-SXM4-80GB", 16),
    ("70B qlora 100GB 7d usd", "A100-SXM4-40GB", 2),
    ("34B pretrain 500B tokens 30d fp8", "H100-SXM5-80GB", 64),
    ("65B pretrain 1.4T tokens seq 2048 on 2048xA100-80GB", "A100-SXM4-80GB", 2048),
    ("70B full-finetune 1TB on 64xH100 tp 8 pp 4", "H100-SXM5-80GB", 64),
    ("70B full-finetune 1TB on 32xH800 zero3", "H800-SXM-80GB", 32),
    ("70B qlora r=8 seq 2048 mbs 2 on 2xA100-40GB zero3 recompute full", "A100-SXM4-40GB", 2),
    # Megatron-Core's all-to-all dispatcher: every remote copy crosses, its sort passes charged
    ("deepseek-v3 pretrain 2T tokens 60d dispatcher alltoall", "H800-SXM-80GB", 512),
    ("qwen3-30b-a3b pretrain 500B tokens 30d dispatcher alltoall", "H100-SXM5-80GB", 64),
    # selective recompute of named modules, the one level searched: the ceiling at it
    ("70B full-finetune 1TB 14d recompute-modules core_attn mlp", "H100-SXM5-80GB", 64),
    ("mixtral-8x7b full-finetune 100GB 7d recompute-modules moe_act layernorm", "H100-SXM5-80GB", 16),
]


def _inputs(text, gpu_name):
    req = parse(text)
    gpu = catalog.get_gpu(gpu_name)
    setup, _ = hardware_precision(training_setup(req), gpu)
    return model_shape(req), setup, gpu


@pytest.mark.parametrize("text,gpu_name,count", CASES)
@pytest.mark.parametrize("capped", [True, False])
def test_the_pruned_search_chooses_what_the_exhaustive_one_does(text, gpu_name, count, capped):
    m, setup, gpu = _inputs(text, gpu_name)
    pruned = _search(m, setup, gpu, count, None, capped)
    full = _search(m, setup, gpu, count, None, capped, exhaustive=True)
    assert pruned == full


@pytest.mark.parametrize("text,gpu_name,count", CASES)
def test_no_candidate_is_faster_than_its_splits_ceiling(text, gpu_name, count):
    """The bound the pruning rests on: every candidate of a split, at any recompute level,
    micro-batch and gradient dtype, trains no faster than the split's ceilings at the least
    recompute."""
    m, setup, gpu = _inputs(text, gpu_name)
    least = recompute_levels(setup)[0]
    checked = 0
    for offload in offload_levels(setup):
        for split in parallel_splits(m, setup, gpu, count, offload):
            layouts = list(_split_layouts(m, setup, gpu, count, split, offload, least, "fp32"))
            ceiling = max((speed_ceiling(m, setup, lay, gpu) for lay in layouts), default=float("-inf"))
            for c in candidate_layouts(m, setup, gpu, count, offload, prune=lambda s, split=split: s != split):
                speed = estimate_throughput(m, setup, c.layout, gpu).tokens_per_s_per_gpu
                assert speed <= ceiling, (split, c.layout)
                checked += 1
    assert checked


def test_the_bound_prunes_most_splits_of_a_large_moe_search():
    """Not a vacuous rule: on 512 H800 for DeepSeek-V3 most splits' ceilings are under the
    fastest layout's speed, so their memory is never estimated."""
    m, setup, gpu = _inputs("deepseek-v3 pretrain 2T tokens 60d", "H800-SXM-80GB")
    best, _ = _search(m, setup, gpu, 512, None, True)
    speed = estimate_throughput(m, setup, best.layout, gpu).tokens_per_s_per_gpu
    splits = list(parallel_splits(m, setup, gpu, 512, "none"))
    below = [
        s
        for s in splits
        if all(
            speed_ceiling(m, setup, lay, gpu) < speed
            for lay in _split_layouts(m, setup, gpu, 512, s, "none", "none", "fp32")
        )
    ]
    assert len(below) > len(splits) / 2


def test_a_count_the_states_floor_rules_out_searches_no_layout_without_offload(monkeypatch):
    """DeepSeek-V3 on 48 H100: every state sharded over the 48 GPUs is over their memory, so the
    search goes to offload at once and chooses what the exhaustive one does. (With its MoE block a
    ZeRO-3 leaf, DeepSpeed would gather a layer's 256 experts, 45 GB, at once and nothing fits: the
    search is followed here with each expert fetched apart.)"""
    from advisor.engine import estimate

    m, setup, gpu = _inputs("deepseek-v3 pretrain 2T tokens 60d", "H100-SXM5-80GB")
    setup = setup.model_copy(update={"z3_leaf": False, "hf_expert_loop": True})
    full = _search(m, setup, gpu, 48, None, True, exhaustive=True)
    original = estimate.estimate_memory
    levels = []

    def noting(m, setup, layout, gpu, *args, **kwargs):
        levels.append(layout.offload)
        return original(m, setup, layout, gpu, *args, **kwargs)

    monkeypatch.setattr(estimate, "estimate_memory", noting)
    assert _search(m, setup, gpu, 48, None, True) == full
    assert full[0].fits and full[0].layout.offload != "none"
    assert levels and "none" not in levels


@pytest.mark.parametrize(
    "text,gpu_name,count",
    [
        ("deepseek-v3 pretrain 2T tokens 60d", "H100-SXM5-80GB", 32),
        ("deepseek-v3 pretrain 2T tokens 60d", "Ascend-910B-64GB", 8),
        ("deepseek-v3 pretrain 2T tokens 60d", "H200-SXM-141GB", 1),
        ("405B pretrain 15T tokens 90d usd", "A100-SXM4-40GB", 16),
    ],
)
def test_a_count_whose_states_floor_is_over_gpu_and_host_memory_has_no_layout_that_fits(text, gpu_name, count):
    """`layout_fits` answers no at once where every state sharded over all the GPUs is over the
    GPU's memory and its share of the server's host memory together: no layout of any offload
    level fits there (offload moves states, it drops none)."""
    m, setup, gpu = _inputs(text, gpu_name)
    floor = states_floor_bytes(count_params(m), setup, count) / GIB
    assert floor > gpu.usable_memory_gib * HEADROOM + MAX_OFFLOAD_GIB_PER_SERVER / min(count, gpu.gpus_per_server)
    assert not layout_fits(m, setup, gpu, count)
    for capped in (True, False):
        for offload in offload_levels(setup):
            assert not any(c.fits for c in candidate_layouts(m, setup, gpu, count, offload, capped))


@pytest.mark.parametrize(
    "text,gpu_name,count",
    [
        ("70B pretrain 1T tokens", "H100-SXM5-80GB", 64),
        ("34B full-finetune 200GB 7d usd", "H100-SXM5-80GB", 56),
        ("70B full-finetune 1TB 14d", "H100-SXM5-80GB", 64),
        ("deepseek-v3 pretrain 2T tokens 60d", "H800-SXM-80GB", 512),
    ],
)
def test_the_search_plans_the_fewest_pipeline_stages_among_layouts_as_fast(text, gpu_name, count):
    """Every fitting candidate worked out by hand: the one chosen is within LAYOUT_TOLERANCE of the
    fastest, and none within it has fewer pipeline stages."""
    m, setup, gpu = _inputs(text, gpu_name)
    speeds = [
        (estimate_throughput(m, setup, c.layout, gpu).tokens_per_s_per_gpu, c)
        for c in candidate_layouts(m, setup, gpu, count, "none")
        if c.fits and c.layout.grad_reduce == "fp32"
    ]
    fastest = max(s for s, _ in speeds)
    close = [c for s, c in speeds if s >= fastest * (1 - LAYOUT_TOLERANCE)]
    chosen, _ = _search(m, setup, gpu, count, None, True)
    assert estimate_throughput(m, setup, chosen.layout, gpu).tokens_per_s_per_gpu >= fastest * (1 - LAYOUT_TOLERANCE)
    assert chosen.layout.pp == min(c.layout.pp for c in close)


def test_70b_pretraining_on_64_h100_is_not_planned_on_thirty_two_thin_stages():
    """The case that set the rule: TP2 x PP32 x DP1 (2.5 layers a stage) had been the fastest layout by
    under 2%, and TP4 x PP4 x DP4 is planned. Since a pipeline's sends between servers are costed on
    the NIC (2026-12-07; they had been on NVLink when a stage's tp x dp was under a server), the 32
    thin stages, every fourth boundary between servers, are slower outright."""
    m, setup, gpu = _inputs("70B pretrain 1T tokens", "H100-SXM5-80GB")
    speeds: dict[tuple[int, int], float] = {}
    for c in candidate_layouts(m, setup, gpu, 64, "none"):
        if c.fits and c.layout.grad_reduce == "fp32":
            speed = estimate_throughput(m, setup, c.layout, gpu).tokens_per_s_per_gpu
            speeds[c.layout.tp, c.layout.pp] = max(speed, speeds.get((c.layout.tp, c.layout.pp), 0.0))
    assert speeds[(4, 4)] > speeds[(2, 32)]
    chosen, _ = _search(m, setup, gpu, 64, None, True)
    assert (chosen.layout.tp, chosen.layout.pp) == (4, 4)


def test_a_bigger_card_on_one_server_is_never_planned_slower_than_a_smaller_one(book):
    # 70B full fine-tuning on 8 H200 had been planned with full recompute (8.4 days) because a
    # layout fits without offload, while 8 H100, where none does, offloaded the optimizer (7.1 days)
    from advisor.engine.estimate import OFFLOAD_OVER_RECOMPUTE
    from advisor.planning.advice import advise

    def plan(gpus):
        return advise(f"70b full finetune 5B tokens 2 weeks usd on {gpus}", book=book).plan.estimate

    h100, h200 = plan("8xH100"), plan("8xH200")
    assert h200.days <= h100.days
    assert h200.layout.offload == "optimizer" and h200.layout.recompute != "full"
    # against the best layout without offload, the offloaded one is faster by the margin
    pinned = advise("70b full finetune 5B tokens 2 weeks usd on 8xH200 recompute full", book=book).plan.estimate
    assert (pinned.layout.recompute, pinned.layout.offload) == ("full", "none")
    assert pinned.days > h200.days * (1 + OFFLOAD_OVER_RECOMPUTE)


def test_across_servers_the_sharded_states_stay_the_recipe(book):
    # optimizer offload is weighed against full recompute on one server only
    from advisor.planning.advice import advise

    est = advise("70B full-finetune 200GB 30d on 16xH100", book=book).plan.estimate
    assert est.layout.offload == "none"
