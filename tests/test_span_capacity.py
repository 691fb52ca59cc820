"""What some GPUs train within a span of time (advisor/planning/span_capacity.py): by data size, the
largest dense model that fits and ends within the span on exactly those GPUs, and pre-training at
compute-optimal data; the question that asks it answered as the bot answers a first message."""

import json

import pytest

from advisor import catalog
from advisor.planning.budget_capacity import DATA_TOKENS
from advisor.planning.capacity import largest_models
from advisor.planning.span_capacity import _search, largest_in_span, run_on_count
from advisor.request.parser import span_said


def _size(b: float) -> str:
    """A size as the answer writes it: whole billions from 10B, one decimal below."""
    return f"{b:.0f}B" if b >= 10 else f"{b:.1f}B"


def test_each_row_ends_within_the_span_and_one_a_little_larger_does_not():
    """4 x A100 for a week: every size named ends in 168 hours on those GPUs; where the span, not
    memory, stops it, 5% more takes longer than the span; where memory stops it, the size is the one
    the GPUs hold (capacity.py) and 5% more does not fit."""
    fit, held = largest_in_span("A100-80GB", 4, 168), largest_models("A100-80GB", 4)
    assert [r.method for r in fit.rows] == ["lora", "full-finetune"] * len(DATA_TOKENS) + ["pretrain"]
    for row in fit.rows:
        assert row.params_b and 0 < row.hours <= 168
        tokens = 0.0 if row.method == "pretrain" else row.tokens
        larger = run_on_count(fit.gpu, 4, row.method, tokens, row.params_b * 1.05)
        if row.memory_bound:
            assert larger is None and row.params_b <= (held.lora_b if row.method == "lora" else held.full_b)
        else:
            assert larger[0] > 168
    # a billion tokens of LoRA take longer than a week at the 150B the GPUs hold: the span binds
    lora_1b = fit.rows[4]
    assert lora_1b.tokens == 1e9 and not lora_1b.memory_bound and lora_1b.params_b < held.lora_b


def test_pretraining_takes_chinchillas_tokens_and_its_hours_are_its_flops():
    """Pre-training's data is 20 tokens a parameter; its hours are 6 FLOPs a parameter and token
    (Kaplan et al. 2020) over the GPUs' peak at the row's MFU, within what attention, the embedding
    lookup and failures add or take."""
    fit = largest_in_span("H100", 8, 336)
    pre = fit.rows[-1]
    assert pre.tokens == pytest.approx(20 * pre.params_b * 1e9)
    peak = 8 * catalog.get_gpu(fit.gpu).bf16_dense_tflops * 1e12
    floor = 6 * pre.params_b * 1e9 * pre.tokens / (pre.mfu * peak * 3600)
    assert 0.8 * floor <= pre.hours <= 1.3 * floor
    assert 3 < pre.params_b < 12  # about 6B on 130B tokens in two weeks on one H100 server


def test_a_longer_span_trains_larger_and_more_gpus_train_more_in_the_same_span():
    week, month = largest_in_span("A100-80GB", 4, 168), largest_in_span("A100-80GB", 4, 720)
    for a, b in zip(week.rows, month.rows):
        assert b.params_b >= a.params_b
    assert month.rows[-1].params_b > 1.5 * week.rows[-1].params_b
    server, four = largest_in_span("H100", 8, 336), largest_in_span("H100", 32, 336)
    assert four.rows[-1].params_b > 1.5 * server.rows[-1].params_b
    # a search the span cuts short at its smallest size names nothing
    assert _search(fit_gpu := catalog.get_gpu("RTX 4090").name, 1, "pretrain", 0.0, 0.01).params_b is None
    assert fit_gpu


@pytest.mark.parametrize(
    "text,days",
    [
        ("what can we train on 8 H100 in 2 weeks?", 14),
        ("8张H100两周能训什么", 14),
        ("rent 8 H100 for 10 days what can we train", 10),
        ("我们有4张A100能训多大的模型", None),
    ],
)
def test_the_span_a_question_gives_is_read_as_a_deadline_is(text, days):
    assert span_said(text) == days


@pytest.mark.parametrize(
    "question,lang,said",
    [
        ("what can we train on 8 H100 in 2 weeks?", "en", "Within 14 days of wall clock on these 8 GPUs"),
        ("8张H100两周能训什么", "zh", "在 14 天内用这 8 张卡"),
    ],
)
def test_a_span_asked_adds_what_the_gpus_train_in_it(cli, question, lang, said):
    """The capacity answer keeps its memory figures and adds, by data size, the largest model trained
    in the span, and pre-training's size (it had answered memory alone, the two weeks unread)."""
    found = json.loads(cli("ask", question, "--json").stdout)["faq"]
    fit = largest_in_span("H100", 8, 336)
    assert found["topic"] == "capacity" and said in found["answer"]
    pre = fit.rows[-1]
    assert _size(pre.params_b) in found["answer"] and f"{pre.mfu:.0%}" in found["answer"]
    plain = json.loads(cli("ask", "what's the biggest model we can fine-tune on 8x H100?", "--json").stdout)["faq"]
    assert "Within" not in plain["answer"] and "Chinchilla" not in plain["answer"]


@pytest.mark.parametrize(
    "question",
    ["what could these GPUs train in a month?", "what else could these GPUs train in 2 weeks?", "这些卡一个月能训什么"],
)
def test_asked_under_a_plan_the_span_is_the_plans_own_gpus(cli, question):
    """Under a plan on 8 GPUs, the GPUs themselves asked about ("what could these GPUs train in a
    month?" had been the month's lease, "what else could ..." the other GPU types)."""
    out = json.loads(cli("ask", "70B lora 50k samples 7d", "--follow-up", question, "--json").stdout)
    plan, (reply,) = out["plan"]["plan"], out["follow_ups"]
    days = span_said(question)
    fit = largest_in_span(plan["gpu"], plan["gpu_count"], days * 24)
    assert reply["kind"] == "capacity" and reply["part"] == plan["gpu"]
    pre = fit.rows[-1]
    assert _size(pre.params_b) in reply["text"] and f"{pre.mfu:.0%}" in reply["text"]


def test_a_count_past_the_usable_range_is_no_internal_error(cli):
    # "on 1000000 H100" had raised the request's refusal inside the capacity answer: a traceback
    out = cli("ask", "what can we train on 1000000 H100 in 2 weeks?")
    assert out.returncode in (0, 2) and "internal error" not in out.stderr + out.stdout
    # and the refusal says the count, not a model size that was never the question
    assert "not a usable GPU count (1 to 200,000)" in out.stderr and "model size" not in out.stderr


def test_a_span_under_a_day_is_said_in_hours():
    from advisor.planning.followup import capacity_asked

    reply = capacity_asked("what can we train on 8 4090 in 1 hour?", "en")
    assert "Within 1 hour of wall clock on these 8 GPUs" in reply.text and "0.0417" not in reply.text


@pytest.mark.parametrize(
    "question,tokens,lang,gpu,count",
    [
        # English prose at 4 bytes a token, Chinese at 3.2, samples at the default 1,000 tokens
        ("what can we train on 8 H100 in 2 weeks with 1TB?", 1e12 / 4.0, "en", "H100", 8),
        ("8张H100两周能训什么，数据有500GB中文", 500e9 / 3.2, "zh", "H100", 8),
        ("what can we train on 16 A100 in a month with 50k samples?", 50e3 * 1000, "en", "A100-80GB", 16),
    ],
)
def test_the_data_said_is_the_one_size_searched_and_the_example_plans_it(cli, question, tokens, lang, gpu, count):
    # "with 1TB" had been left unread: the table's 10M/100M/1B rows answered instead of the data given
    from advisor.planning.span_capacity import example_in_span
    from advisor.request.parser import data_said

    said = data_said(question)
    assert said[0] == pytest.approx(tokens)
    fit = largest_in_span(gpu, count, span_said(question) * 24, said[0])
    assert fit.data_said and [r.tokens for r in fit.rows[:2]] == [pytest.approx(tokens, rel=5e-3)] * 2
    lora = fit.rows[0]
    out = cli("ask", question).stdout
    assert ("your data trains in one pass" if lang == "en" else "你的数据训一遍") in out and "10M" not in out
    example = out.split("`/gpu ")[-1].split("`")[0]
    assert example.startswith(f"{example_in_span(fit):g}B lora {said[1]}")
    # the example asks for no more than the span trains
    assert example_in_span(fit) <= (lora.params_b if lora.params_b else 0) or lora.past_search
    plan = json.loads(cli("ask", example, "--json").stdout)
    assert plan["plan"]["gpu_count"] == count
