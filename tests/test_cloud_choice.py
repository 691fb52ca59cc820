"""Clouds named as a choice ("lambda vs coreweave", "阿里云还是火山引擎"): the job planned on each
cloud's own offers, side by side, in the first message and in a plan's thread; GPU types named as a
choice in a thread whose plan is on neither ("h200 vs b200?"): the job planned on each."""

import pytest

from advisor.planning.advice import advise, compare, plan_context
from advisor.planning.followup import follow_up
from advisor.request.parser import RequestError, cloud_options, parse
from bot import blocks

JOB = "70B full-finetune 100B tokens 14d usd"


@pytest.mark.parametrize(
    ("text", "clouds"),
    [
        (f"{JOB} lambda vs coreweave", ["Lambda", "CoreWeave"]),
        (f"{JOB} aws or gcp", ["AWS", "GCP"]),
        ("70B lora 10万条 7天 阿里云还是火山引擎", ["Alibaba", "火山引擎"]),
        ("70B lora 10k samples 3d usd on aws, gcp, azure", ["AWS", "GCP", "Azure"]),
    ],
)
def test_clouds_joined_as_a_choice_are_refused_alone_and_each_kept_by_its_pick(text, clouds):
    with pytest.raises(RequestError) as e:
        parse(text)
    assert e.value.kind == "cloud_choice"
    assert cloud_options(text) == clouds
    assert [parse(text, cloud_pick=i).cloud for i in range(len(clouds))] == clouds


def test_one_cloud_or_two_not_joined_as_a_choice_plan_on_the_first():
    assert parse(f"{JOB} on lambda").cloud == "Lambda"
    assert cloud_options(f"{JOB} on lambda") == []


def test_a_cloud_choice_is_planned_on_each_clouds_offers(book):
    c = compare(f"{JOB} lambda vs coreweave", book=book)
    assert c.by == "cloud"
    sides = c.sides()
    assert [s["option"] for s in sides] == ["Lambda", "CoreWeave"]
    assert [a.plan.costs.rent_offer["provider"] for a in c.options] == ["Lambda", "CoreWeave"]
    cheaper = min(sides, key=lambda s: s["spend"])
    assert c.verdict()["cheaper"]["option"] == cheaper["option"]


def test_a_cloud_whose_offers_do_not_deliver_the_job_gets_no_verdict(book):
    c = compare(f"{JOB} aws or gcp", book=book)
    gcp = next(s for s in c.sides() if s["option"] == "GCP")
    assert gcp["off_cloud"]  # GCP's only H100 row on record is a one-GPU instance
    verdict = c.verdict()
    assert verdict["cheaper"] is None or "GCP" not in (verdict["cheaper"]["option"], verdict["cheaper"]["against"])


def test_the_comparison_names_each_cloud_in_text_and_on_the_card(cli, book):
    text = cli("ask", f"{JOB} lambda vs coreweave").stdout
    assert text.startswith("Lambda / CoreWeave: this job planned on each cloud's own offers")
    assert "  Lambda, " in text and "  CoreWeave, " in text
    zh = cli("ask", "70B lora 10万条 7天 阿里云还是火山引擎").stdout
    assert zh.startswith("阿里云 / 火山引擎：") and "按市场上其他报价计算" in zh
    card = blocks.comparison(compare(f"{JOB} lambda vs coreweave", book=book))
    shown = str(card["blocks"])
    assert "Lambda, " in shown and "CoreWeave, " in shown and "For one cloud's full plan" in shown


def _thread(book, question, request=JOB):
    return follow_up(request, plan_context(advise(request, book=book)), question, book=book)


def test_a_cloud_choice_in_a_thread_is_the_comparison(book):
    reply = _thread(book, "lambda vs coreweave?")
    assert reply.part == "compared"
    assert reply.text.startswith("Lambda / CoreWeave: this job planned on each cloud's own offers")
    zh = _thread(book, "阿里云和火山引擎哪个便宜", "70B lora 10万条 7天")
    assert zh.text.startswith("阿里云 / 火山引擎：")
    # one cloud asked stays a what-if on it
    assert _thread(book, "how much on lambda?").part != "compared"


def test_two_gpus_asked_in_a_thread_on_neither_are_the_comparison(book):
    reply = _thread(book, "h200 vs b200?")
    assert reply.part == "compared"
    assert reply.text.startswith("H200-SXM-141GB or B200-SXM-180GB: this job planned on each")
    # the plan's own GPU among them: the what-if on the other, as before
    assert _thread(book, "h100 vs b200?").part != "compared"


def test_five_clouds_are_refused_saying_up_to_four_are_compared(cli):
    out = cli("ask", f"{JOB} aws vs gcp vs azure vs lambda vs coreweave")
    assert out.returncode == 2
    assert "5 clouds named as a choice" in out.stderr and "up to 4" in out.stderr


@pytest.mark.parametrize(
    "text",
    [
        f"{JOB} h100 vs h200 aws vs gcp",
        f"{JOB} aws vs gcp, h100 or h200",
        "70B lora 10万条 H800还是H20 阿里云还是火山引擎",
    ],
)
def test_gpus_and_clouds_both_named_as_a_choice_are_one_choice_at_a_time(book, text):
    """The refusal names both choices (it had been a GPU choice's, with no word of the clouds)."""
    with pytest.raises(RequestError) as e:
        compare(text, book=book)
    assert e.value.kind == "choice_mixed_cloud"
    assert " / " in e.value.details["gpus"] and " / " in e.value.details["clouds"]
