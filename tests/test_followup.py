"""Follow-ups in a plan's thread: what-ifs, "how did you get that number?" and FAQ questions."""

import pytest

from advisor.planning.advice import advise, plan_context
from advisor.planning.followup import explained_part, follow_up

REQUEST = "70B full-finetune 1TB 14d budget"


@pytest.fixture
def summary(book):
    return plan_context(advise(REQUEST, book=book))


@pytest.mark.parametrize(
    "question,part",
    [
        ("how did you get 13 days?", "time"),
        ("why so many GPUs?", "time"),
        ("13天是怎么算的", "time"),
        ("where does the ¥683,706 come from", "costs"),
        ("租金怎么算的", "costs"),
        ("how did you get 63.5 GiB per GPU", "memory"),
        ("显存怎么算的", "memory"),
        ("why NVLink?", None),
        ("how much RAM per node?", None),
        ("what if we had 30 days?", None),
        ("how do we get more GPUs?", None),
        ("how did you come up with 256 GPUs?", "time"),
    ],
)
def test_which_part_of_the_arithmetic_a_question_asks_about(question, part):
    assert explained_part(question) == part


def test_how_did_you_get_the_days_shows_the_plans_own_time_arithmetic(summary, book):
    reply = follow_up(REQUEST, summary, "how did you get 13 days?", book=book)
    assert reply.kind == "explain"
    assert "GFLOP/token" in reply.text and f"{summary['gpu_hours']:,.0f}" in reply.text


def test_a_chinese_question_gets_the_same_numbers_in_chinese(summary, book):
    reply = follow_up(REQUEST, summary, "显存怎么算的", book=book)
    assert reply.kind == "explain" and "每卡显存" in reply.text
    shown = f"{summary['mem_per_gpu_gib']:.1f}"
    assert shown in reply.text or shown.removesuffix(".0") in reply.text


def test_where_the_rent_comes_from_shows_the_cost_lines(summary, book):
    reply = follow_up(REQUEST, summary, "where does the rent come from?", book=book)
    assert reply.kind == "explain" and ("per GPU-hour" in reply.text or "per GPU-month" in reply.text)


@pytest.mark.parametrize("question,kind", [("why NVLink?", "question"), ("what if we had 30 days?", "whatif")])
def test_other_follow_ups_keep_their_kind(summary, book, question, kind):
    assert follow_up(REQUEST, summary, question, book=book).kind == kind


@pytest.mark.parametrize("text", [REQUEST, "13B 全量微调 200GB数据 7天 预算10万", "7b lora 50k samples 3d usd"])
def test_the_reply_language_never_changes_the_plan(text, book):
    numbers = [
        {k: v for k, v in plan_context(advise(text, lang, book=book)).items() if not isinstance(v, str)}
        for lang in (None, "en", "zh")
    ]
    assert numbers[0] == numbers[1] == numbers[2]


@pytest.mark.parametrize(
    "question,before,after",
    [
        ("what about 3 epochs", "1 epoch (250B tokens)", "3 epochs (750B tokens)"),
        ("训练3轮呢", "1 轮（2,500亿 token）", "3 轮（7,500亿 token）"),
    ],
)
def test_an_epochs_what_if_says_the_epochs_and_the_tokens(summary, book, question, before, after):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "whatif"
    assert {"name": "epochs", "before": before, "after": after} in reply.changes
