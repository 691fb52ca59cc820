"""What a plan costs to rent (hourly, monthly, off-peak) against buying the servers."""

from __future__ import annotations

import math
from typing import ClassVar

from pydantic import BaseModel

from advisor.catalog import GPU
from advisor.engine.estimate import Estimate
from advisor.market.prices import PriceBook
from advisor.request.model import TrainingRequest

HOURS_PER_MONTH = 730
# Monthly contracts run about 30% under the hourly rate with a three-month minimum
# (source guide, Shenzhen): used only when no monthly price is on record.
MONTHLY_DISCOUNT_RULE = 0.70
MIN_TERM_MONTHS_CHINA = 3
# A bought cluster's use after this job: a team with a steady queue keeps it about 70% busy
# (assumed; the guides' rule is to buy only for work lasting two years or more).
OWNED_UTILISATION = 0.70
# Yearly operations (spares, support, an engineer's share) as a share of capex (assumed).
OPS_SHARE_OF_CAPEX = 0.05
# GPUs are 40-60% of a server's total cost (source guide, Chengdu): a server priced from
# cards alone is the card price / 0.5.
GPU_SHARE_OF_SERVER = 0.5
# The guides' rule of thumb for first-year cost of ownership: 1.6-1.8x hardware.
GUIDE_TCO_RULE = (1.6, 1.8)
# Buy only when the servers pay back within this many months of steady use (assumed).
BUY_PAYBACK_MONTHS = 18
# PUE when no figure is on record: China's 2025 national target (data/reference_prices.toml).
DEFAULT_PUE = 1.5
# Multi-node clusters also buy switches, optics and storage: 15% of server capex (assumed).
CLUSTER_EXTRA = 0.15
# Where owned servers would be hosted: the electricity price regions that cover each city
# (matched against the `region` of the reference prices). Without a city, the national
# average.
CITY_POWER_REGIONS = {
    "shenzhen": ("Guangdong", "South China"), "guangzhou": ("Guangzhou", "Guangdong"),
    "chengdu": ("Sichuan", "Chengdu"), "shanghai": ("East & South China",),
    "hangzhou": ("East & South China",), "beijing": ("CN",),
}


class Costs(BaseModel):
    currency: str
    known: bool
    rent_per_gpu_hour: float | None
    rent_hourly_total: float | None
    rent_per_gpu_month: float | None
    rent_monthly_total: float | None
    monthly_min_term_months: int
    offpeak_per_gpu_hour: float | None
    storage_total: float | None
    rent_total: float | None
    rent_option: str | None
    buy_capex: float | None
    buy_tco_first_year: float | None
    guide_tco_range: list[float] | None
    power_cost_year: float | None
    hosting_cost_year: float | None
    breakeven_months: float | None
    decision: str
    decision_reason: str
    price_sources: list[dict]
    fx: dict
    # The rules of thumb the explanation quotes (templates/costs.txt.j2), beside the numbers
    # they made; class attributes, so not part of the JSON.
    ops_share: ClassVar[float] = OPS_SHARE_OF_CAPEX
    guide_tco_rule: ClassVar[tuple[float, float]] = GUIDE_TCO_RULE
    owned_utilisation: ClassVar[float] = OWNED_UTILISATION
    payback_months: ClassVar[int] = BUY_PAYBACK_MONTHS
    gpu_share_of_server: ClassVar[float] = GPU_SHARE_OF_SERVER


def _src(p, role: str) -> dict:
    """`role` is a key worded by templates/explain.j2."""
    return {"role": role, "provider": p.provider, "price": p.price, "currency": p.currency,
            "unit": p.unit, "as_of": p.as_of, "estimate": p.estimate, "source": p.cite}


def _electricity(book: PriceBook, req: TrainingRequest, currency: str):
    """The city's electricity price when we have one, else the market's national average."""
    offers = book.offers("electricity", "", req.market)
    wanted = CITY_POWER_REGIONS.get(req.city or "", ("CN", "US"))
    for key in wanted:
        matches = [p for p in offers if key.lower() in p.region.lower()]
        if matches:
            return min(matches, key=lambda p: (p.estimate, book.convert(p.price, p.currency, currency)))
    return book.best("electricity", "", req.market, currency)


def plan_costs(req: TrainingRequest, gpu: GPU, est: Estimate, book: PriceBook) -> Costs:
    cur, mkt = req.currency, req.market
    lay = est.layout
    sources: list[dict] = []
    hours = est.gpu_hours  # GPU-hours of wall time, goodput included: what a renter pays
    days = est.days

    hourly = book.best("rent_hour", gpu.name, mkt, cur)
    monthly = book.best("rent_month", gpu.name, mkt, cur)
    offpeak = book.best("offpeak_hour", gpu.name, mkt, cur)
    per_hour = book.value(hourly, cur)
    if hourly:
        sources.append(_src(hourly, "rent_hour"))
    per_month = book.value(monthly, cur)
    min_term = MIN_TERM_MONTHS_CHINA if mkt == "china" else 1
    if monthly:
        sources.append(_src(monthly, "rent_month"))
        min_term = max(min_term, monthly.min_term_months)
    elif per_hour:
        per_month = per_hour * HOURS_PER_MONTH * MONTHLY_DISCOUNT_RULE
    hourly_total = per_hour * hours if (per_hour and hours) else None
    monthly_total = None
    if per_month and days:
        months = max(min_term, math.ceil(days / 30))
        monthly_total = per_month * lay.gpu_count * months
    storage = book.best("storage", "", mkt, cur)
    storage_total = None
    if storage and days:
        data_tb = (req.unique_tokens or 0) * (req.bytes_per_token or 4.0) / 1e12
        ckpt_tb = req.params_b * 14 / 1e3 * 2
        storage_total = book.value(storage, cur) * (data_tb + ckpt_tb) * max(1, days / 30)
        sources.append(_src(storage, "storage"))
    options = {k: v for k, v in (("hourly", hourly_total), ("monthly", monthly_total)) if v}
    rent_option = min(options, key=options.get) if options else None
    rent_total = (options[rent_option] + (storage_total or 0)) if rent_option else None

    # Buying: servers at the reference price, or from card prices when no server price exists.
    server = book.best("buy_server", gpu.name, mkt, cur)
    capex = None
    if server:
        capex = book.value(server, cur) / max(1, server.gpus) * gpu.gpus_per_server * lay.nodes
        sources.append(_src(server, "buy_server"))
    else:
        card = book.best("buy_card", gpu.name, mkt, cur)
        if card:
            capex = book.value(card, cur) * gpu.gpus_per_server * lay.nodes / GPU_SHARE_OF_SERVER
            sources.append(_src(card, "buy_card"))
    if capex and lay.nodes > 1:
        capex *= 1 + CLUSTER_EXTRA
    power_year = hosting_year = tco = breakeven = None
    electricity = _electricity(book, req, cur)
    hosting = book.best("hosting", "", mkt, cur)
    pue = book.best("pue", "", mkt, "")
    if capex:
        kw = gpu.server_power_kw * lay.nodes
        if electricity:
            pue_v = pue.price if pue else DEFAULT_PUE
            power_year = kw * 8760 * OWNED_UTILISATION * pue_v * book.value(electricity, cur)
            sources.append(_src(electricity, "electricity"))
        if hosting and hosting.unit == "kw-month":
            hosting_year = kw * 12 * book.value(hosting, cur)
            sources.append(_src(hosting, "hosting"))
        tco = capex + (power_year or 0) + (hosting_year or 0) + capex * OPS_SHARE_OF_CAPEX
        if per_hour:
            rent_month = per_hour * lay.gpu_count * HOURS_PER_MONTH * OWNED_UTILISATION
            own_month = ((power_year or 0) + (hosting_year or 0) + capex * OPS_SHARE_OF_CAPEX) / 12
            if rent_month > own_month:
                breakeven = capex / (rent_month - own_month)

    if rent_total is None and capex is None:
        decision, reason = "rent", "no_price"
    elif days is None:
        decision, reason = "rent", "no_duration"
    elif req.rent_or_buy == "buy" and capex:
        decision, reason = "buy", "asked_buy"
    elif breakeven is not None and breakeven <= BUY_PAYBACK_MONTHS and (days or 0) > 180:
        decision, reason = "buy", "breakeven"
    else:
        decision = "rent"
        reason = "short_job" if (days or 0) < 180 else ("breakeven_long" if breakeven else "no_buy_price")
    return Costs(
        currency=cur, known=per_hour is not None or per_month is not None,
        rent_per_gpu_hour=per_hour, rent_hourly_total=hourly_total, rent_per_gpu_month=per_month,
        rent_monthly_total=monthly_total, monthly_min_term_months=min_term,
        offpeak_per_gpu_hour=book.value(offpeak, cur) if lay.nodes == 1 else None,
        storage_total=storage_total, rent_total=rent_total, rent_option=rent_option,
        buy_capex=capex, buy_tco_first_year=tco,
        guide_tco_range=[capex * GUIDE_TCO_RULE[0], capex * GUIDE_TCO_RULE[1]] if capex else None,
        power_cost_year=power_year, hosting_cost_year=hosting_year, breakeven_months=breakeven,
        decision=decision, decision_reason=reason, price_sources=sources,
        fx={"usd_cny": book.usd_cny, "as_of": book.fx_as_of, "source": book.fx_source},
    )
