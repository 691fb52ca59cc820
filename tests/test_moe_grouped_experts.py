"""A mixture of experts on the stacks that run the Hugging Face model: transformers 5's grouped
expert GEMMs unless the team says transformers 4, whose MoE blocks loop over the experts
(advisor/engine/throughput.py runs_expert_loop)."""

import pytest

from advisor import catalog
from advisor.engine.estimate import best_layout
from advisor.engine.frameworks import DEEPSPEED, LITGPT, PEFT
from advisor.engine.shapes import count_params
from advisor.engine.throughput import expert_launch_s
from advisor.planning.advice import advise
from advisor.planning.engine_inputs import model_shape, training_setup
from advisor.request.canonical import canonical
from advisor.request.parser import parse

LORA = "qwen3-30b-a3b lora r=16 targets attn 1B tokens seq 2048 mbs 1 gbs 1 recompute full hf on 1xH200"
ZERO3 = "qwen3-30b-a3b full-finetune 1B tokens seq 8192 mbs 1 gbs 16 zero3 recompute full deepspeed on 16xA800"


def _plan(text):
    req = parse(text)
    m, setup = model_shape(req), training_setup(req)
    return req, m, setup, best_layout(m, setup, catalog.get_gpu(req.gpu), req.gpu_count)


@pytest.mark.parametrize(
    "words",
    [
        "transformers 4.57",
        "transformers-4",
        "transformers v4",
        "old-transformers",
        "旧版transformers",
        "--experts_impl eager",
        "transformers<5",
    ],
)
def test_transformers_4_is_said_and_names_the_hf_stack(words):
    req = parse(f"qwen3-30b-a3b lora 1B tokens {words} on 8xH100")
    assert req.old_transformers and req.stack == "hf" and req.gpu_count == 8
    assert "old-transformers" in canonical(req) and parse(canonical(req)).old_transformers


def test_transformers_5_is_the_default_and_its_number_is_read_past():
    for words in ("transformers 5", "transformers 5.8.0", "hf"):
        req = parse(f"qwen3-30b-a3b lora 1B tokens {words} on 8xH100")
        assert not req.old_transformers and req.stack == "hf" and req.gpu_count == 8
    said = parse("qwen3-30b-a3b lora 1B tokens deepspeed transformers 4.51 on 8xH100")
    assert said.old_transformers and said.stack == "deepspeed"


def test_the_loop_is_what_separates_the_two_versions():
    """Hand-worked, one H200, Qwen3-30B-A3B LoRA on 2,048 tokens with whole-layer recompute: 48 MoE
    layers x 128 experts = 6,144 experts, each (13 kernels + 2 syncs) x 2 forward passes + 26
    backward kernels = 56 launches of 20 us: 6.88 s a micro-batch on transformers 4, none on 5,
    and the two plans' micro-batches differ by that, less at most the grouped block's own host
    work that the loop does not launch (48 kernels a layer, 48 layers, two forward passes, 45 us
    each: 0.207 s, throughput.host_floor_s)."""
    _, m, grouped_setup, grouped = _plan(LORA)
    _, _, loop_setup, loop = _plan(LORA.replace("hf on", "hf transformers 4 on"))
    c = count_params(m)
    assert (grouped.layout.framework, loop.layout.framework) == (PEFT, PEFT)
    assert expert_launch_s(m, grouped_setup, grouped.layout, c) == 0.0
    assert expert_launch_s(m, loop_setup, loop.layout, c) == pytest.approx(6144 * 56 * 20e-6)
    seconds = {k: 2048 / e.throughput.tokens_per_s_per_gpu for k, e in (("grouped", grouped), ("loop", loop))}
    launches, grouped_host = 6144 * 56 * 20e-6, 48 * 48 * 2 * 45e-6
    assert launches - grouped_host <= seconds["loop"] - seconds["grouped"] <= launches


def test_litgpt_loops_over_its_experts_whatever_transformers_says():
    _, m, setup, est = _plan(LORA.replace(" hf ", " litgpt "))
    assert est.layout.framework == LITGPT and not setup.hf_expert_loop
    assert expert_launch_s(m, setup, est.layout, count_params(m)) > 1.0


def test_zero3_gathers_a_transformers_5_expert_block_whole_without_a_leaf():
    """transformers 5 keeps a layer's experts in one module of two parameters: ZeRO-3 fetches them
    at once, leaf or not, so no per-projection fetch and the whole block in memory."""
    _, m, leaf_setup, leaf = _plan(ZERO3)
    _, _, apart_setup, apart = _plan(ZERO3.replace("deepspeed", "deepspeed no-z3-leaf"))
    assert leaf.layout.framework == DEEPSPEED and apart.layout == leaf.layout
    c = count_params(m)
    assert expert_launch_s(m, apart_setup, apart.layout, c) == expert_launch_s(m, leaf_setup, leaf.layout, c) == 0.0
    assert apart.memory.other == pytest.approx(leaf.memory.other)
    old = ZERO3.replace("deepspeed", "deepspeed no-z3-leaf transformers 4")
    assert _plan(old)[3].memory.other < apart.memory.other


def test_the_answer_says_which_version_it_planned(book):
    grouped = advise(ZERO3, book=book)
    codes = {w.code for w in grouped.warnings}
    assert "moe_grouped_experts" in codes and not codes & {"moe_expert_loop", "moe_zero3_leaf"}
    loop = advise(ZERO3.replace("deepspeed", "deepspeed transformers 4"), book=book)
    codes = {w.code for w in loop.warnings}
    assert {"moe_expert_loop", "moe_zero3_leaf"} <= codes and "moe_grouped_experts" not in codes
    speed = {k: a.plan.estimate.throughput.tokens_per_s_per_gpu for k, a in (("5", grouped), ("4", loop))}
    # several times faster (a lent H200 ran Qwen3-30B-A3B LoRA 5.2x faster on grouped_mm than on
    # transformers 5's eager loop, docs/device-h200.md); here ZeRO-3's traffic dilutes the gap
    assert speed["5"] > 2.5 * speed["4"]


def test_the_grouped_experts_note_reads_in_both_languages(cli):
    out = cli("ask", ZERO3).stdout
    assert "planned on transformers 5" in out and "`transformers 4.57`" in out
    zh = cli("ask", "--lang", "zh", ZERO3).stdout
    assert "按 transformers 5 规划" in zh and "`transformers 4.57`" in zh


@pytest.mark.parametrize(
    "text,days,old",
    [
        ("7b lora 20GB with transformers 4 days", 4.0, False),
        ("7b lora 20GB hf transformers 5 days", 5.0, False),
        ("qwen3-30b-a3b lora 20GB transformers 4天", 4.0, False),
        ("qwen3-30b-a3b lora 20GB transformers 4 3 days", 3.0, True),
        ("qwen3-30b-a3b lora 20GB transformers 5.8 3 days", 3.0, False),
    ],
)
def test_a_deadline_after_the_word_transformers_is_a_deadline_not_a_version(text, days, old):
    req = parse(text)
    assert (req.deadline_days, req.old_transformers, req.stack) == (days, old, "hf")
