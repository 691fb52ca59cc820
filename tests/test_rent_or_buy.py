"""Renting GPUs against buying them when no job is named (advisor/market/rent_or_buy.py): the
median like lease on record against owning the same whole servers, worked by hand, and the
question answered as the bot answers a first message."""

import json

import pytest

from advisor import catalog
from advisor.market.owning import owning, residual_at
from advisor.market.prices import HOURS_PER_MONTH
from advisor.market.quotes import like_offers, market_reference
from advisor.market.rent_or_buy import HORIZONS, rent_or_buy

H100 = catalog.get_gpu("H100-SXM5-80GB")


def test_each_span_is_the_lease_against_the_price_less_resale_plus_running(book):
    r = rent_or_buy(book, H100, 16, "china", "CNY", months=3)
    _, per_hour = market_reference(book, like_offers(book, H100.name, "china", "month", 16), "CNY")
    assert r.lease_per_gpu_month == pytest.approx(per_hour * HOURS_PER_MONTH)
    own = owning(book, H100, 16, "china", "CNY")
    assert r.owning.capex == pytest.approx(own.capex) and r.servers == 2
    assert [s.months for s in r.spans] == sorted({3, *HORIZONS}) and r.asked_months == 3
    for s in r.spans:
        assert s.rent == pytest.approx(r.lease_per_gpu_month * 16 * s.months)
        assert s.own == pytest.approx(own.capex - residual_at(own.capex, s.months) + r.running_month * s.months)
    # the break-even is where owning stops costing more than renting
    m = r.breakeven_months
    assert m is not None
    saving = r.lease_per_gpu_month * 16 - r.running_month
    assert own.capex - residual_at(own.capex, m) == pytest.approx(saving * m, rel=0.01)


def test_servers_are_bought_and_leased_whole(book):
    h800 = catalog.get_gpu("H800-SXM-80GB")
    r = rent_or_buy(book, h800, 12, "china", "CNY")
    assert (r.asked_gpus, r.gpus, r.servers) == (12, 16, 2)
    assert r.spans[0].rent == pytest.approx(r.lease_per_gpu_month * 16 * r.spans[0].months)


@pytest.mark.parametrize(
    "text,gpu,gpus,months,marker",
    [
        ("should we rent or buy 16 H100s?", "H100-SXM5-80GB", 16, None, "owning is cheaper"),
        ("租8卡H800三个月和买哪个划算", "H800-SXM-80GB", 8, 3, "← 所问"),
        ("rent vs buy for 64 H800 over 2 years", "H800-SXM-80GB", 64, 24, "<- asked"),
    ],
)
def test_the_question_is_answered_with_no_model(cli, text, gpu, gpus, months, marker):
    # it had asked for the model's size
    out = json.loads(cli("ask", text, "--json").stdout)["faq"]
    assert out["topic"] == "rent_or_buy" and out["gpu"] == gpu
    answer = out["answer"]
    assert f"{gpus} x {gpu}" in answer or f"{gpus} × {gpu}" in answer
    if months:
        asked = next(line for line in answer.splitlines() if marker in line)
        assert asked.strip().startswith(str(months))
    else:
        assert "renting is cheaper" in answer or marker in answer


def test_a_job_named_is_its_plan(cli):
    out = json.loads(cli("ask", "should we rent or buy for 70b full-finetune 1TB 14d?", "--json").stdout)
    assert "plan" in out and out["cost"]["decision"] in ("rent", "buy")
