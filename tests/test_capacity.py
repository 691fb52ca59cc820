"""The largest models some GPUs can train (advisor/planning/capacity.py), and the question that
asks it answered as the bot answers a first message."""

import json

import pytest

from advisor.planning.capacity import _fits, largest_models
from advisor.request.parser import parse

GIB = 2**30


def test_the_largest_models_four_a100s_hold_are_their_memory_over_the_bytes_a_parameter_takes():
    """4 x A100 80GB, 320 GiB: full fine-tuning keeps 16 bytes a parameter (bf16 weights and
    gradients, fp32 master weights and two Adam moments: 2 + 2 + 4 + 8), so at most 21.5B, less
    the activations, context and buffers; LoRA keeps the 2-byte weights, at most 172B; the optimizer
    in CPU memory leaves 4 bytes (weights and gradients), at most 86B on the GPUs alone."""
    fit = largest_models("A100-80GB", 4)
    memory = 4 * 80 * GIB
    assert 0.85 * memory / 16e9 <= fit.full_b <= memory / 16e9
    assert 0.85 * memory / 2e9 <= fit.lora_b <= memory / 2e9
    assert fit.qlora_b > fit.lora_b > fit.full_offload_b > fit.full_b
    # the answer is the search's edge: what it names fits, 5% more does not
    base = parse("7b full-finetune on 4xA100-80GB", "en")
    assert _fits(base, fit.full_b, "none") and not _fits(base, fit.full_b * 1.05, "none")


def test_a_figure_that_gains_nothing_is_left_out():
    """On 1,024 H100 the optimizer offloaded holds less than nothing offloaded (the servers' RAM
    binds) and QLoRA less than LoRA: each had been printed beside the larger one as an option."""
    fit = largest_models("H100", 1024)
    assert fit.full_offload_b is None and fit.qlora_b is None and fit.lora_b > fit.full_b
    small = largest_models("4090", 8)
    assert small.full_offload_b > small.full_b and small.qlora_b > small.lora_b


def test_more_gpus_hold_larger_models_and_one_small_card_holds_little():
    one, eight = largest_models("4090", 1), largest_models("4090", 8)
    assert one.full_b < 1.5 and 5 < one.lora_b < 12  # 24 GB: a 7B LoRA, no 7B full fine-tune
    assert eight.full_b > 4 * one.full_b and eight.lora_b > 4 * one.lora_b


@pytest.mark.parametrize(
    "question,gpu,count,lang",
    [
        ("我们有4张A100 能训多大的模型", "A100-SXM4-80GB", 4, "zh"),
        ("what's the biggest model we can fine-tune on 8x4090?", "RTX4090-24GB", 8, "en"),
        ("how large a model can we train with 2 H100s?", "H100-SXM5-80GB", 2, "en"),
        ("两台8卡A800最大能训多大的模型", "A800-SXM4-80GB", 16, "zh"),
        # "what can we train" with GPUs counted (had asked for a model's size, or drawn the rack's power)
        ("what can we train on 8 H100 in 2 weeks?", "H100-SXM5-80GB", 8, "en"),
        ("rent 8 H100 for 2 weeks what can we train", "H100-SXM5-80GB", 8, "en"),
        ("8张H100两周能训什么", "H100-SXM5-80GB", 8, "zh"),
    ],
)
def test_the_largest_model_some_gpus_train_is_answered_with_their_own_numbers(cli, question, gpu, count, lang):
    # "我们有4张A100 能训多大的模型" had been the FAQ's table of model sizes for any GPUs
    out = cli("ask", question, "--json")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)["faq"]
    fit = largest_models(gpu, count)
    assert found["topic"] == "capacity" and found["gpu"] == gpu
    full = f"{fit.full_b:.0f}B" if fit.full_b >= 10 else f"{fit.full_b:.1f}B"
    said = {
        "en": f"full fine-tuning or pre-training (AdamW, mixed precision): about {full}",
        "zh": f"全参微调或预训练（AdamW，混合精度）：约 {full}",
    }
    assert said[lang] in found["answer"] and f"{count}x{gpu}" in found["answer"].replace("张", "x")


def test_a_question_that_names_a_model_is_a_plan_not_the_gpus_capacity(cli):
    out = json.loads(cli("ask", "how large a model can we train with 2 H100s? say 70b lora 10GB", "--json").stdout)
    assert "plan" in out and out["plan"]["gpu"] == "H100-SXM5-80GB"


def test_asked_under_a_plan_it_is_the_plans_own_gpus(cli):
    # under a plan on 8 x H800, "what's the biggest model these GPUs could train?" had been the
    # FAQ's text on the RTX 4090
    out = json.loads(
        cli(
            "ask",
            "70B lora 50k samples 7d",
            "--follow-up",
            "what's the biggest model these GPUs could train?",
            "--json",
        ).stdout
    )
    plan, (reply,) = out["plan"], out["follow_ups"]
    fit = largest_models(plan["plan"]["gpu"], plan["plan"]["gpu_count"])
    assert reply["kind"] == "capacity" and reply["part"] == plan["plan"]["gpu"]
    assert f"On {fit.count} x {fit.gpu} " in reply["text"] and f"about {fit.lora_b:.0f}B" in reply["text"]
