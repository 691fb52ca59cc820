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


def test_one_type_rented_against_another_bought_is_each_sides_cost_over_the_term(book):
    """64 H100 leased for 3 months against one 8-GPU B200 server owned as long: the lease at the like
    median, the purchase less its resale after 3 months plus running, and the datasheet peaks."""
    from advisor.market.rent_or_buy import rent_against_owning

    b200 = catalog.get_gpu("B200")
    r = rent_against_owning(book, (H100, 64), 3, (b200, 8), "global", "USD")
    _, per_hour = market_reference(book, like_offers(book, H100.name, "global", "month", 64), "USD")
    assert r.rent_total == pytest.approx(per_hour * HOURS_PER_MONTH * 64 * 3)
    own = owning(book, b200, 8, "global", "USD", months=3)
    running = own.power_month + own.hosting_month + own.upkeep_month
    assert r.own_total == pytest.approx(own.capex - residual_at(own.capex, 3) + running * 3)
    assert (r.rent_pflops, r.buy_pflops) == (pytest.approx(64 * 0.9894), pytest.approx(8 * 2.25))


@pytest.mark.parametrize(
    "text,rented,bought,provider",
    [
        # one of the two had been weighed alone, or the message refused as two GPU types
        ("should we rent 64 H100 for 3 months or buy a DGX B200?", ("H100-SXM5-80GB", 64), ("B200-SXM-180GB", 8), ""),
        (
            "need to decide between 64 H100 on CoreWeave for 3 months or buying a DGX B200",
            ("H100-SXM5-80GB", 64),
            ("B200-SXM-180GB", 8),
            "CoreWeave",
        ),
        ("租64张H100三个月还是买一台B200服务器", ("H100-SXM5-80GB", 64), ("B200-SXM-180GB", 8), ""),
    ],
)
def test_renting_one_type_or_buying_another_is_answered_side_by_side(cli, text, rented, bought, provider):
    from advisor.request.parser import parse

    out = json.loads(cli("ask", text, "--json").stdout)["faq"]
    assert out["topic"] == "rent_or_buy" and out["gpu"] == f"{rented[0]} / {bought[0]}"
    first, rent = out["answer"].splitlines()[:2]
    assert f"{rented[1]} x {rented[0]}" in first or f"{rented[1]} × {rented[0]}" in first
    assert f"{bought[1]} x {bought[0]}" in first or f"{bought[1]} × {bought[0]}" in first
    assert provider in rent and "3" in rent
    # the two plans it offers are requests that plan those very GPUs
    commands = [c for c in out["answer"].split("`") if c.startswith("/gpu ")]
    planned = [parse(c.removeprefix("/gpu ")) for c in commands]
    assert [(p.gpu, p.gpu_count) for p in planned] == [rented, bought] and planned[1].rent_or_buy == "buy"
