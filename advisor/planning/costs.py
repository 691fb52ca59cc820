"""What a plan costs to rent (hourly, monthly, off-peak) against buying the servers."""

from __future__ import annotations

import math
from typing import ClassVar

from pydantic import BaseModel

from advisor.catalog import GPU
from advisor.engine.estimate import Estimate
from advisor.market import prices
from advisor.market.prices import Price, PriceBook
from advisor.planning.infra import storage_need
from advisor.request.model import Note, TrainingRequest

HOURS_PER_MONTH = 730
# Monthly contracts run about 30% under the hourly rate with a three-month minimum
# (source guide seed 000, Shenzhen): used only in the mainland China market it came from, and
# only when no monthly offer of that GPU is on record there.
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
# Useful life of training GPUs: 4-5 years (issue 15; the accounting lives of 4-6 years the
# hyperscalers state are the usual reference; not re-read here). The shorter end is used.
USEFUL_LIFE_MONTHS = (48, 60)
# When the user asks to buy, plans are ranked by the cost of owning over this many months (issue
# 15: "3-4-year cost of ownership"), or over the team's stated use.
OWNERSHIP_RANK_MONTHS = 36
# "Clearly cheaper": renting costs under this share of owning over the same months (assumed).
RENT_CLEARLY_CHEAPER = 0.8
# What the hardware is still worth at the end of its useful life, as a share of capex (assumed;
# no resale series on record).
RESIDUAL_SHARE = 0.10
# A monthly offer whose minimum term states nothing: China's guide says 3 months (seed 000);
# elsewhere one month is assumed.
UNSTATED_TERM_MONTHS = {"china": 3, "global": 1}
# An offer's minimum term is one the job can use when it is at most the months the GPUs are used
# (the job, or the team's stated use) or this many months: the China guide's usual minimum, which a
# two-week job may reasonably pay and be told so. Longer terms (1-5 years) are left out.
TERM_SLACK_MONTHS = 3
# Billing granularity -> hours a started unit bills.
BILLING_HOURS = {"second": 0, "minute": 0, "hour": 1, "day": 24, "week": 168}
SIBLINGS = prices.SIBLINGS  # the sibling classes of the estimate rule (advisor/market/prices.py)
# Parts that need a US export licence for mainland China (data/gpus.toml `china_access`): a new
# one bought there comes through a grey channel.
GREY_IN_CHINA = ("licence_rented", "licence")
# A workstation holds up to this many consumer or workstation (PCIe) cards; more go in servers.
WORKSTATION_MAX_CARDS = 4

# PUE when no figure is on record: China's 2025 national target (data/reference_prices.toml).
DEFAULT_PUE = 1.5
# A parallel file system sells read throughput with capacity: 125 MB/s per TiB is the lower of
# the tiers priced in data/reference_prices.toml (FSx for Lustre persistent SSD 125; Alibaba CPFS
# 200), so the capacity a plan's read rate needs is not underestimated.
PFS_MB_S_PER_TIB = 125
TB_PER_TIB = 2**40 / 1e12
# Multi-node clusters also buy switches, optics and storage: 15% of server capex (assumed).
CLUSTER_EXTRA = 0.15
# Where owned servers would be hosted: the electricity price regions that cover each city
# (matched against the `region` of the reference prices). Without a city, the national
# average.
CITY_POWER_REGIONS = {
    "shenzhen": ("Guangdong", "South China"),
    "guangzhou": ("Guangzhou", "Guangdong"),
    "chengdu": ("Sichuan", "Chengdu"),
    "shanghai": ("East & South China",),
    "hangzhou": ("East & South China",),
    "beijing": ("CN",),
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
    storage_kind: str | None = None  # storage_pfs (a parallel file system) | storage (object storage)
    storage_tb: float | None = None  # the capacity priced
    rent_total: float | None
    rent_option: str | None
    # The offer the plan is priced from (issue 15), the range over the offers that can deliver it,
    # and the months paid against the months used.
    rent_offer: dict | None = None
    rent_range: dict | None = None
    rent_term: dict | None = None
    budget_verdict: str | None = None  # within | within_likely_over_high | over (None: no budget)
    buy_kind: str | None = None  # workstation | servers
    buy_gpus: int | None = None
    buy_servers: int | None = None
    buy_channel: str | None = None  # official | grey (mainland China, export-controlled parts)
    buy_lead_weeks: list[int] | None = None  # [low, high] order to delivery (data/gpus.toml), None: none on record
    buy_lead_as_of: str | None = None
    buy_capex: float | None
    buy_tco_first_year: float | None
    guide_tco_range: list[float] | None
    power_cost_year: float | None
    hosting_cost_year: float | None
    breakeven_months: float | None
    useful_life_months: list[int] = list(USEFUL_LIFE_MONTHS)
    residual_value: float | None = None
    own_use: dict | None = None  # the team's own use: months and utilisation, and the comparison
    ownership_cost: float | None = None  # owning over OWNERSHIP_RANK_MONTHS (or the stated use): capex
    # less the residual left, plus operations; ranks "buy" plans
    decision: str
    decision_reason: str
    price_sources: list[dict]
    fx: dict
    notes: list[Note] = []
    # The rules of thumb the explanation quotes (templates/costs.txt.j2), beside the numbers
    # they made; class attributes, so not part of the JSON.
    ops_share: ClassVar[float] = OPS_SHARE_OF_CAPEX
    guide_tco_rule: ClassVar[tuple[float, float]] = GUIDE_TCO_RULE
    owned_utilisation: ClassVar[float] = OWNED_UTILISATION
    payback_months: ClassVar[int] = BUY_PAYBACK_MONTHS
    gpu_share_of_server: ClassVar[float] = GPU_SHARE_OF_SERVER
    pfs_mb_s_per_tib: ClassVar[int] = PFS_MB_S_PER_TIB


def _src(p, role: str) -> dict:
    """`role` is a key worded by templates/explain.j2."""
    return {
        "role": role,
        "provider": p.provider,
        "price": p.price,
        "currency": p.currency,
        "unit": p.unit,
        "as_of": p.as_of,
        "estimate": p.estimate,
        "source": p.cite,
    }


def _electricity(book: PriceBook, req: TrainingRequest, currency: str):
    """The city's electricity price when we have one, else the market's national average."""
    offers = book.offers("electricity", "", req.market)
    wanted = CITY_POWER_REGIONS.get(req.city or "", ("CN", "US"))
    for key in wanted:
        matches = [p for p in offers if key.lower() in p.region.lower()]
        if matches:
            return min(matches, key=lambda p: (p.estimate, book.convert(p.price, p.currency, currency)))
    return book.best("electricity", "", req.market, currency)


class Priced(BaseModel):
    """One offer priced for one plan: what the job pays on it."""

    price: Price
    total: float | None  # for the whole job, in the plan's currency (None: no duration)
    per_gpu_hour: float  # the offer's price per GPU-hour equivalent (monthly / 730)
    option: str  # hourly | monthly
    months_paid: int | None  # monthly: months billed; hourly: None
    term_months: int  # the minimum term applied (0: none)
    rule: str = ""  # 'china_monthly': priced by the China monthly rule


def _job_months(days: float | None) -> int:
    return max(1, math.ceil((days or 0) / 30))


def _term_of(p: Price, market: str) -> int:
    if p.kind == "rent_month":
        return p.min_term_months or UNSTATED_TERM_MONTHS.get(market, 1)
    return p.min_term_months


def _price_offer(
    p: Price,
    book: PriceBook,
    cur: str,
    gpus: int,
    days: float | None,
    market: str,
    china_monthly: bool,
    monthly_only: bool = False,
) -> Priced:
    """What `gpus` GPUs for `days` cost on offer `p`: hourly offers bill the wall time rounded
    up to their billing unit (a day-billed capacity block bills whole days); monthly offers bill
    whole months and at least their minimum term. In China, when no monthly offer of the GPU is
    on record, an hourly offer may also be taken by the month at the guide's rule (hourly - 30%,
    3-month minimum) when that is cheaper."""
    value = book.convert(p.price, p.currency, cur)
    if p.kind == "rent_month":
        term = _term_of(p, market)
        months = max(term, _job_months(days)) if days else None
        total = value * gpus * months if months else None
        return Priced(
            price=p,
            total=total,
            per_gpu_hour=value / HOURS_PER_MONTH,
            option="monthly",
            months_paid=months,
            term_months=term,
        )
    step = BILLING_HOURS.get(p.billing, 1)
    total = None
    if days:
        wall = days * 24
        billed = math.ceil(wall / step - 1e-9) * step if step else wall
        total = value * gpus * billed
    hourly = Priced(
        price=p, total=total, per_gpu_hour=value, option="hourly", months_paid=None, term_months=p.min_term_months
    )
    if china_monthly and days:
        months = max(MIN_TERM_MONTHS_CHINA, _job_months(days))
        monthly_total = value * HOURS_PER_MONTH * MONTHLY_DISCOUNT_RULE * gpus * months
        if total is None or monthly_total < total or monthly_only:
            return Priced(
                price=p,
                total=monthly_total,
                per_gpu_hour=value * MONTHLY_DISCOUNT_RULE,
                option="monthly",
                months_paid=months,
                term_months=MIN_TERM_MONTHS_CHINA,
                rule="china_monthly",
            )
    return hourly


def _term_ok(p: Price, market: str, use_months: int) -> bool:
    return _term_of(p, market) <= max(use_months, TERM_SLACK_MONTHS)


def rent_offers(
    book: PriceBook, gpu: str, market: str, cur: str, gpus: int, nodes: int, days: float | None, use_months: int
) -> tuple[list[Priced], dict | None]:
    """The offers that can deliver the plan, priced for it, and None; or, when no offer on record
    can, the estimate (the priced offers of the rule and its description).

    An offer delivers the plan when it is not an index or average, one order gets all the GPUs,
    a multi-server plan gets a cluster fabric, and its minimum term is one the job can use
    (`_term_ok`). The estimate rule, when none does: the per-server leases (offer server or
    cluster) of that GPU, or of its sibling class (SIBLINGS), taken once per server, with their
    terms; never an index or a single-card listing."""
    rows = [p for kind in ("rent_hour", "rent_month") for p in book.offers(kind, gpu, market, rentable=True)]
    china_monthly = market == "china" and not book.offers("rent_month", gpu, market, rentable=True)
    fit = [p for p in rows if p.why_not(gpus, nodes) is None and _term_ok(p, market, use_months)]
    if fit:
        return [_price_offer(p, book, cur, gpus, days, market, china_monthly) for p in fit], None
    for basis_gpu, rule in ((gpu, "server_leases"), (SIBLINGS.get(gpu), "sibling_server_leases")):
        if not basis_gpu:
            continue
        servers = [
            p
            for kind in ("rent_hour", "rent_month")
            for p in book.offers(kind, basis_gpu, market, rentable=True)
            if p.offer_kind in ("server", "cluster") and p.max_gpus >= min(gpus, 8)
        ]
        usable = [p for p in servers if _term_ok(p, market, use_months)]
        if usable:
            sib_monthly = market == "china" and not book.offers("rent_month", basis_gpu, market, rentable=True)
            # Servers for a multi-server job in mainland China are leased by the month: every China
            # server lease in shared/notes/cluster-prices.md is monthly or longer. A second-hand
            # (estimate) hourly server figure there is taken by the month at the guide's rule
            # (hourly - 30%, 3-month minimum); a vendor's own hourly offer stays hourly.
            monthly_only = market == "china" and nodes > 1
            return (
                [
                    _price_offer(p, book, cur, gpus, days, market, sib_monthly, monthly_only and p.estimate)
                    for p in usable
                ],
                {"rule": rule, "basis_gpu": basis_gpu},
            )
    return [], None


def _likely(priced: list[Priced]) -> Priced:
    """The likely offer: the median (lower middle) of the confirmed offers, else of all."""
    pool = [q for q in priced if not q.price.estimate] or priced
    key = (lambda q: q.total) if all(q.total is not None for q in pool) else (lambda q: q.per_gpu_hour)
    pool = sorted(pool, key=key)
    return pool[(len(pool) - 1) // 2]


def _offer_json(q: Priced, estimated: bool) -> dict:
    p = q.price
    return {
        "provider": p.provider,
        "offer": p.offer_kind or "",
        "name": p.offer,
        "max_gpus": p.max_gpus,
        "interconnect": p.fabric or None,
        "interconnect_gbps": p.fabric_gbps or None,
        "min_term_months": q.term_months,
        "billing": p.billing or None,
        "indicative": p.indicative,
        "estimated": estimated,
        "rule": q.rule or None,
        "price": p.price,
        "currency": p.currency,
        "unit": p.unit,
        "as_of": p.as_of,
        "source": p.cite,
    }


def _residual_at(capex: float, months: float) -> float:
    """What bought hardware is worth after `months`: straight-line from capex down to the residual
    share at the end of the useful life (assumed; no resale series on record)."""
    life = USEFUL_LIFE_MONTHS[0]
    return capex * (1 - (1 - RESIDUAL_SHARE) * min(1.0, months / life))


def _note(code: str, **params) -> Note:
    return Note(kind="warning", code=code, params=params)


def _storage(
    req: TrainingRequest, est: Estimate, book: PriceBook, mkt: str, cur: str, days: float | None, sources: list
) -> tuple[str | None, float | None, float | None]:
    """Storage for the dataset and two checkpoints, in the plan's own market and currency (no
    fall-back to the other market's price): a parallel file system for a multi-server plan,
    sized up to the capacity that gives its read rate, else object storage. Kept at least a
    month (staged before the job, kept after it)."""
    need = storage_need(req, est)
    stored_tb = (need.data_bytes + 2 * need.checkpoint_bytes) / 1e12
    kind, tb = "storage", stored_tb
    if est.layout.nodes > 1 and book.offers("storage_pfs", "", mkt):
        kind = "storage_pfs"
        tb = max(stored_tb, need.read_gb_s * 1000 / PFS_MB_S_PER_TIB * TB_PER_TIB)
    offers = sorted(book.offers(kind, "", mkt), key=lambda s: (s.estimate, book.convert(s.price, s.currency, cur)))
    if not offers or not days:
        return None, None, None
    sources.append(_src(offers[0], kind))
    return kind, tb, book.value(offers[0], cur) * tb * max(1, days / 30)


def plan_costs(req: TrainingRequest, gpu: GPU, est: Estimate, book: PriceBook) -> Costs:
    cur, mkt = req.currency, req.market
    lay = est.layout
    sources: list[dict] = []
    notes: list[Note] = []
    days = est.days
    job_months = _job_months(days)
    own_months = getattr(req, "own_use_months", None)
    own_util = getattr(req, "own_utilisation", None)
    use_months = max(job_months, own_months or 0)

    priced, estimate_rule = rent_offers(book, gpu.name, mkt, cur, lay.gpu_count, lay.nodes, days, use_months)
    likely = _likely(priced) if priced else None
    rent_offer = rent_range = rent_term = None
    per_hour = per_month = hourly_total = monthly_total = None
    rent_option = None
    min_term = 0
    if likely:
        p = likely.price
        sources.append(_src(p, p.kind))
        rent_offer = _offer_json(likely, estimate_rule is not None)
        rent_option = likely.option
        per_hour = likely.per_gpu_hour
        if likely.option == "monthly":
            per_month = per_hour * HOURS_PER_MONTH
            monthly_total = likely.total
            min_term = likely.term_months
        else:
            hourly_total = likely.total
        if likely.total is not None:
            totals = sorted(q.total for q in priced)
            rent_range = {
                "low": totals[0],
                "likely": likely.total,
                "high": totals[-1],
                "offers": len(priced),
                "currency": cur,
            }
        if likely.months_paid is not None and days:
            rent_term = {
                "job_days": days,
                "job_months": job_months,
                "min_term_months": likely.term_months,
                "months_paid": likely.months_paid,
            }
            if likely.months_paid > job_months:
                notes.append(
                    _note(
                        "term_paid", days=days, months=likely.months_paid, term=likely.term_months, provider=p.provider
                    )
                )
        if likely.rule == "china_monthly":
            notes.append(_note("china_monthly_rule", months=likely.months_paid))
        if estimate_rule:
            notes.append(
                _note(
                    "rent_estimated",
                    rule=estimate_rule["rule"],
                    gpu=gpu.name,
                    basis_gpu=estimate_rule["basis_gpu"],
                    count=lay.gpu_count,
                    nodes=lay.nodes,
                )
            )
    elif book.offers("rent_hour", gpu.name, mkt) or book.offers("rent_month", gpu.name, mkt):
        # Prices are on record, but none from an offer that can deliver this plan.
        notes.append(_note("no_qualifying_offer", gpu=gpu.name, count=lay.gpu_count, nodes=lay.nodes))
    offpeak = book.best("offpeak_hour", gpu.name, mkt, cur)

    storage_kind, storage_tb, storage_total = _storage(req, est, book, mkt, cur, days, sources)
    rent_total = (likely.total + (storage_total or 0)) if (likely and likely.total is not None) else None
    if rent_range and storage_total:
        rent_range = {**rent_range, **{k: rent_range[k] + storage_total for k in ("low", "likely", "high")}}

    budget_verdict = None
    if req.budget and rent_range:
        budget = book.convert(req.budget.amount, req.budget.currency, cur)
        if rent_range["high"] <= budget:
            budget_verdict = "within"
        elif rent_range["likely"] <= budget:
            budget_verdict = "within_likely_over_high"
            notes.append(
                _note(
                    "budget_range",
                    budget=req.budget.amount,
                    currency=req.budget.currency,
                    likely=rent_range["likely"],
                    high=rent_range["high"],
                    cur=cur,
                )
            )
        else:
            budget_verdict = "over"

    # Buying what the plan needs: a workstation for 1-4 consumer or workstation (PCIe) cards,
    # else whole servers (SXM/OAM parts come on 8-GPU boards), with cluster extras past one server.
    pcie = gpu.consumer or "pcie" in (gpu.form_factor or "").lower()
    workstation = pcie and lay.gpu_count <= WORKSTATION_MAX_CARDS
    servers = 0 if workstation else max(lay.nodes, math.ceil(lay.gpu_count / gpu.gpus_per_server))
    buy_gpus = lay.gpu_count if workstation else servers * gpu.gpus_per_server
    capex = None
    server = None if workstation else book.best("buy_server", gpu.name, mkt, cur)
    if server:
        capex = book.value(server, cur) / max(1, server.gpus) * buy_gpus
        sources.append(_src(server, "buy_server"))
    else:
        card = book.best("buy_card", gpu.name, mkt, cur)
        if card:
            capex = book.value(card, cur) * buy_gpus / GPU_SHARE_OF_SERVER
            sources.append(_src(card, "buy_card"))
    if capex and servers > 1:
        capex *= 1 + CLUSTER_EXTRA
    channel = None
    if capex:
        channel = "grey" if (mkt == "china" and gpu.china_access in GREY_IN_CHINA) else "official"
    power_year = hosting_year = tco = breakeven = residual = ownership_cost = None
    own_use = None
    electricity = _electricity(book, req, cur)
    hosting = book.best("hosting", "", mkt, cur)
    pue = book.best("pue", "", mkt, "")
    utilisation = own_util or OWNED_UTILISATION
    if capex:
        kw = gpu.server_power_kw * max(1, servers) * (buy_gpus / gpu.gpus_per_server if workstation else 1)
        if electricity:
            pue_v = pue.price if pue else DEFAULT_PUE
            power_year = kw * 8760 * utilisation * pue_v * book.value(electricity, cur)
            sources.append(_src(electricity, "electricity"))
        if hosting and hosting.unit == "kw-month":
            hosting_year = kw * 12 * book.value(hosting, cur)
            sources.append(_src(hosting, "hosting"))
        opex_year = (power_year or 0) + (hosting_year or 0) + capex * OPS_SHARE_OF_CAPEX
        tco = capex + opex_year
        residual = capex * RESIDUAL_SHARE
        if per_hour:
            rent_month = per_hour * buy_gpus * HOURS_PER_MONTH * utilisation
            own_month = opex_year / 12
            if rent_month > own_month:
                breakeven = (capex - residual) / (rent_month - own_month)
        if breakeven is not None and breakeven > USEFUL_LIFE_MONTHS[0]:
            notes.append(_note("breakeven_past_life", months=breakeven, life=USEFUL_LIFE_MONTHS[0] // 12))
        if channel == "grey":
            notes.append(_note("grey_channel", gpu=gpu.name))
        lead = gpu.purchase_lead_weeks
        if req.rent_or_buy == "buy" and lead and req.deadline_days and req.deadline_days < lead[0] * 7:
            # Bought servers arrive after the deadline even at the shortest published lead time.
            notes.append(
                _note(
                    "buy_after_deadline",
                    gpu=gpu.name,
                    low=lead[0],
                    high=lead[1],
                    as_of=gpu.purchase_lead_as_of,
                    deadline=req.deadline_days,
                )
            )
        horizon = own_months or OWNERSHIP_RANK_MONTHS
        ownership_cost = capex - _residual_at(capex, horizon) + opex_year * horizon / 12
        if own_months and per_hour:
            own_cost = capex - _residual_at(capex, own_months) + opex_year * own_months / 12
            rent_cost = per_hour * buy_gpus * HOURS_PER_MONTH * utilisation * own_months
            own_use = {"months": own_months, "utilisation": utilisation, "own_cost": own_cost, "rent_cost": rent_cost}

    if rent_total is None and capex is None:
        decision, reason = "rent", "no_price"
    elif own_use:
        decision = "buy" if own_use["own_cost"] < own_use["rent_cost"] else "rent"
        reason = "own_use"
        if req.rent_or_buy == "buy" and decision == "rent":
            notes.append(
                _note("rent_cheaper", own=own_use["own_cost"], rent=own_use["rent_cost"], cur=cur, months=own_months)
            )
    elif days is None:
        decision, reason = "rent", "no_duration"
    elif req.rent_or_buy == "buy" and capex:
        decision, reason = "buy", "asked_buy"
        # Push back when renting the same GPUs, as busy, is clearly cheaper over the ranking horizon.
        rent_cost = per_hour * buy_gpus * HOURS_PER_MONTH * utilisation * OWNERSHIP_RANK_MONTHS if per_hour else None
        if rent_cost and ownership_cost and rent_cost < RENT_CLEARLY_CHEAPER * ownership_cost:
            notes.append(
                _note("rent_cheaper", own=ownership_cost, rent=rent_cost, cur=cur, months=OWNERSHIP_RANK_MONTHS)
            )
    elif breakeven is not None and breakeven <= BUY_PAYBACK_MONTHS and (days or 0) > 180:
        decision, reason = "buy", "breakeven"
    else:
        decision = "rent"
        reason = "short_job" if (days or 0) < 180 else ("breakeven_long" if breakeven else "no_buy_price")
    return Costs(
        currency=cur,
        known=per_hour is not None,
        rent_per_gpu_hour=per_hour,
        rent_hourly_total=hourly_total,
        rent_per_gpu_month=per_month,
        rent_monthly_total=monthly_total,
        monthly_min_term_months=min_term,
        offpeak_per_gpu_hour=book.value(offpeak, cur) if lay.nodes == 1 else None,
        storage_total=storage_total,
        storage_kind=storage_kind,
        storage_tb=storage_tb,
        rent_total=rent_total,
        rent_option=rent_option,
        rent_offer=rent_offer,
        rent_range=rent_range,
        rent_term=rent_term,
        budget_verdict=budget_verdict,
        buy_kind=("workstation" if workstation else "servers") if capex else None,
        buy_gpus=buy_gpus if capex else None,
        buy_servers=servers if capex else None,
        buy_channel=channel,
        buy_lead_weeks=(gpu.purchase_lead_weeks or None) if capex else None,
        buy_lead_as_of=(gpu.purchase_lead_as_of or None) if capex else None,
        buy_capex=capex,
        buy_tco_first_year=tco,
        guide_tco_range=[capex * GUIDE_TCO_RULE[0], capex * GUIDE_TCO_RULE[1]] if capex else None,
        power_cost_year=power_year,
        hosting_cost_year=hosting_year,
        breakeven_months=breakeven,
        residual_value=residual,
        own_use=own_use,
        ownership_cost=ownership_cost,
        decision=decision,
        decision_reason=reason,
        price_sources=sources,
        fx={"usd_cny": book.usd_cny, "as_of": book.fx_as_of, "source": book.fx_source},
        notes=notes,
    )
