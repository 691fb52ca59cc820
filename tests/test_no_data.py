"""A request without data: its plan ranked by what a token's work costs, and for pre-training the
scale of a compute-optimal run said (the time and cost stay null: CONTRACT section 4)."""

import json

import pytest


def _plan(cli, text):
    out = cli("ask", text, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _rent_a_token(d):
    return d["cost"]["rent_per_gpu_hour"] / d["plan"]["tokens_per_s_per_gpu"]


@pytest.mark.parametrize("text,other", [("7B pretrain", "7B pretrain on 2x910B"), ("7b lora", "7b lora on 1x3090")])
def test_without_data_the_gpu_whose_tokens_cost_least_is_planned(cli, text, other):
    # the rate an hour alone had planned `7B pretrain` on two Ascend 910B (1.4x an H800's rent a
    # token) and `7b lora` on an RTX 3090 (slower by more than it is cheaper)
    best, named = _plan(cli, text), _plan(cli, other)
    assert best["plan"]["gpu"] != named["plan"]["gpu"]
    assert _rent_a_token(best) < _rent_a_token(named)


def test_pretraining_without_data_says_what_a_compute_optimal_run_takes(cli):
    d = _plan(cli, "How much does it cost to train a 7B from scratch?")
    assert d["training"]["gpu_hours"] is None  # no data, no time: the contract's null
    scale = next(w["params"] for w in d["warning_codes"] if w["code"] == "pretrain_scale")
    # Chinchilla's 20 tokens a parameter at the plan's own speed and rate
    assert scale["tokens"] == 20 * 7e9 and scale["gpu"] == d["plan"]["gpu"]
    hours = scale["tokens"] / d["plan"]["tokens_per_s_per_gpu"] / 3600
    assert hours < scale["gpu_hours"] < hours * 1.1  # goodput: failures and restarts
    assert scale["rent"] == pytest.approx(scale["gpu_hours"] * d["cost"]["rent_per_gpu_hour"])
    text = cli("ask", "How much does it cost to train a 7B from scratch?").stdout
    assert "140B tokens" in text and "`/gpu 7B pretrain 140B tokens 30d`" in text
    # the request it suggests plans
    assert _plan(cli, "7B pretrain 140B tokens 30d")["training"]["gpu_hours"] > 0


@pytest.mark.parametrize("text", ["7b lora", "7B pretrain 100B tokens", "deepseek-v3 pretrain"])
def test_only_dense_pretraining_without_data_gets_the_scale(cli, text):
    assert "pretrain_scale" not in [w["code"] for w in _plan(cli, text)["warning_codes"]]


def test_without_data_a_doubted_rent_gives_way_as_with_data(cli):
    # without data a rent too low to trust had chosen the plan (`70B` alone: 24 Ascend 910B), where
    # with data it gives way to the cheapest sound one and is named
    d = _plan(cli, "70B")
    tie = next(w["params"] for w in d["warning_codes"] if w["code"] == "tie_doubted_rent")
    assert d["plan"]["gpu"] == tie["gpu"] != tie["other"] and tie["per_token"]
    doubted = _plan(cli, f"70B on {tie['other']}")
    assert tie["more"] == pytest.approx(_rent_a_token(d) / _rent_a_token(doubted) - 1, rel=1e-6)
    assert "a token's work costs" in cli("ask", "70B").stdout
    with_data = _plan(cli, "70B full-finetune 1TB 14d")
    assert not any(w["code"] == "tie_doubted_rent" and w["params"].get("per_token") for w in with_data["warning_codes"])


def test_without_data_a_months_lease_asked_is_priced_by_the_month(cli):
    # "想租一个月h800 8卡 大概多少钱" had been priced by the day ("give a data size for the total")
    d = _plan(cli, "想租一个月h800 8卡 大概多少钱 跑32b sft")
    month = d["cost"]["rent_per_gpu_month"] * 8
    text = cli("ask", "想租一个月h800 8卡 大概多少钱 跑32b sft").stdout
    assert f"¥{month:,.0f}" in text and "包月租用" in text


@pytest.mark.parametrize(
    "text",
    [
        "our budget is 50万, we want to pretrain a 1B model, how many tokens can we afford?",
        "预算50万预训练1B模型能训多少token",
    ],
)
def test_the_tokens_a_budget_affords_are_its_hours_at_the_plans_speed(cli, text):
    # "how many tokens can we afford?" had been refused on "tokens" and the FAQ answered in Chinese
    d = _plan(cli, text)
    scale = next(w["params"] for w in d["warning_codes"] if w["code"] == "pretrain_scale")
    rate, speed = d["cost"]["rent_per_gpu_hour"], d["plan"]["tokens_per_s_per_gpu"]
    assert scale["budget"] == 500_000 and scale["budget_hours"] == pytest.approx(500_000 / rate)
    # the hours at the plan's own tokens a second, less what failures cost (goodput)
    assert 0.9 * scale["budget_hours"] * 3600 * speed < scale["budget_tokens"] < scale["budget_hours"] * 3600 * speed
    said = cli("ask", text).stdout
    lang = d["request"]["lang"]
    assert lang == ("zh" if text.startswith("预算") else "en")
    assert ("your ¥500,000 pays for" in said) if lang == "en" else ("你的 ¥500,000 预算在那里能买" in said)


@pytest.mark.parametrize(
    "text", ["Budget ¥2M, 3 months, pretrain a 7B Chinese model", "预算200万 三个月 预训练7B中文模型"]
)
def test_a_budget_and_a_deadline_say_the_gpus_that_spend_it_in_time(cli, text):
    """With the deadline, the budget's GPU-hours are also the GPUs running throughout it: 2,000,000 / rate
    / (90 x 24)."""
    d = _plan(cli, text)
    scale = next(w["params"] for w in d["warning_codes"] if w["code"] == "pretrain_scale")
    gpus = 2_000_000 / d["cost"]["rent_per_gpu_hour"] / (90 * 24)
    assert scale["days"] == 90 and scale["budget_gpus"] == pytest.approx(gpus)
    said = cli("ask", text).stdout
    assert f"{round(gpus):,} GPUs running throughout" in said or f"约需 {round(gpus):,} 张卡全程运行" in said


def test_a_conversion_of_bytes_to_tokens_is_still_the_faq(cli):
    out = json.loads(cli("ask", "how many tokens is 1TB of text?", "--json").stdout)
    assert out["faq"]["topic"] == "data_size_to_gpu_count"


@pytest.mark.parametrize(
    "text", ["what's the best GPU for fine-tuning 7b models?", "which is the cheapest GPU for a 70b lora?"]
)
def test_the_best_gpu_asked_for_a_model_is_planned_with_the_other_types_beside_it(cli, text):
    # it had been the FAQ on LoRA against full fine-tuning, quoting "this plan's method" of no plan
    d = _plan(cli, text)
    assert d["plan"]["gpu"] and d["alternatives"]


@pytest.mark.parametrize("text", ["ballpark cost to fine-tune llama 3 70B?", "70B lora", "70B 微调"])
def test_fine_tuning_without_data_is_scaled_per_100m_tokens_at_the_plans_speed(cli, text):
    # "ballpark cost to fine-tune llama 3 70B?" had been the FAQ on why 70B needs eight GPUs, with no cost
    d = _plan(cli, text)
    scale = next(w["params"] for w in d["warning_codes"] if w["code"] == "finetune_scale")
    hours = 100e6 / d["plan"]["tokens_per_s_per_gpu"] / 3600
    assert hours < scale["gpu_hours"] < hours * 1.1  # goodput: failures and restarts
    assert scale["rent"] == pytest.approx(scale["gpu_hours"] * d["cost"]["rent_per_gpu_hour"], rel=1e-3)
    assert d["training"]["gpu_hours"] is None  # a scale, not a plan's time
