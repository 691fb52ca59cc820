"""What a plan costs to rent (hourly, monthly, off-peak) against buying the servers."""

from __future__ import annotations

import datetime as dt
import math
from typing import ClassVar

from pydantic import BaseModel

from advisor import catalog
from advisor.catalog import GPU
from advisor.engine.estimate import Estimate
from advisor.engine.memory import GIB
from advisor.market.owning import (
    CLUSTER_EXTRA,
    DEFAULT_PUE,
    GPU_SHARE_OF_SERVER,
    MODULE_SHARE_OF_SERVER,
    NATIONAL_REGIONS,
    OPS_SHARE_OF_CAPEX,
    OWNED_UTILISATION,
    OWNERSHIP_MONTHS,
    RESIDUAL_SHARE,
    USEFUL_LIFE_MONTHS,
    breakeven_months,
    is_workstation,
    owning,
    purchase_price,
    residual_at,
)
from advisor.market.owning import electricity as owning_electricity
from advisor.market.prices import Price, PriceBook
from advisor.market.quotes import SUSPICIOUS_BELOW_OWNING
from advisor.planning import rent
from advisor.planning.infra import OFFLOAD_PINNED_MARGIN, storage_need
from advisor.request.model import Note, TrainingRequest

HOURS_PER_MONTH = rent.HOURS_PER_MONTH
# The guides' rule of thumb for first-year cost of ownership: 1.6-1.8x hardware.
GUIDE_TCO_RULE = (1.6, 1.8)
# Buy only when the servers pay back within this many months of steady use (assumed).
BUY_PAYBACK_MONTHS = 18
# A break-even past this many months is said as "never pays back", not as a count (assumed: ten
# years, twice the longer useful life; "5,183 months" had been printed)
NEVER_PAYS_BACK_MONTHS = 120
# "Clearly cheaper": renting costs under this share of owning over the same months (assumed).
RENT_CLEARLY_CHEAPER = 0.8
# Parts that need a US export licence for mainland China (data/gpus.toml `china_access`): a new
# one bought there comes through a grey channel.
GREY_IN_CHINA = ("licence_rented", "licence")

# A parallel file system sells read throughput with capacity: 125 MB/s per TiB is the lower of
# the tiers priced in data/reference_prices.toml (FSx for Lustre persistent SSD 125; Alibaba CPFS
# 200), so the capacity a plan's read rate needs is not underestimated.
PFS_MB_S_PER_TIB = 125
# Storage is billed by the hour or finer (FSx for Lustre per second, CPFS and object storage
# pay-as-you-go; data/reference_prices.toml), so it is paid for the job plus the days the data is
# staged before it and the checkpoints copied out after it (assumed: one day each).
STORAGE_EXTRA_DAYS = 2
TB_PER_TIB = 2**40 / 1e12
# Lessors recover the hardware over 3-4 years, so a monthly rent well under about 2.5% of the
# purchase price deserves questions (data/faq/topics.toml, judging prices; after seed 001).
RENT_CAPEX_FLOOR = 0.025
# A rent under half that floor is doubted outright ("ask what is cut before you plan on it"): it
# prices an alternative, never a choice (planner.py; assumed: half).
DOUBTED_SHARE_OF_FLOOR = 0.5
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
    storage_per_tb_month: float | None = None  # its rate, in the plan's currency
    storage_months: float | None = None  # the months billed: the job and STORAGE_EXTRA_DAYS, or whole months
    rent_total: float | None
    rent_option: str | None
    # The offer the plan is priced from (issue 15), the range over the offers that can deliver it,
    # and the months paid against the months used.
    rent_offer: dict | None = None
    rent_range: dict | None = None
    rent_term: dict | None = None
    # Issue 21: the cost at each term a team could sign (CONTRACT section 6), the best plan on one
    # server and, when the deadline and the budget cannot both be met, the fastest plan within the
    # budget (the last two filled by the planner).
    term_options: list[dict] | None = None
    single_server: dict | None = None
    budget_fallback: dict | None = None
    # a buyer's job on the cheapest rental plan instead (gpu, gpu_count, days, cost): the rent of
    # the bought configuration can be a long lease that hardly fits the job
    rent_instead: dict | None = None
    budget_verdict: str | None = None  # within | within_likely_over_high | over (None: no budget)
    buy_kind: str | None = None  # workstation | servers
    buy_gpus: int | None = None
    buy_servers: int | None = None
    buy_channel: str | None = None  # official | grey (mainland China, export-controlled parts)
    # the other market a purchase is priced from (converted) where the team's has none on record
    # (warning buy_price_other_market); None: the team's own market, or no purchase price
    buy_price_market: str | None = None
    buy_lead_weeks: list[int] | None = None  # [low, high] order to delivery (data/gpus.toml), None: none on record
    buy_lead_as_of: str | None = None
    buy_capex: float | None
    # host memory bought beyond what the box ships with, for the states the plan offloads (GiB),
    # and its price (in buy_capex)
    buy_host_ram_gib: float | None = None
    buy_host_ram_cost: float | None = None
    buy_tco_first_year: float | None
    guide_tco_range: list[float] | None
    power_cost_year: float | None
    # the electricity and PUE the owning costs use, for a thread's "what does power cost us?"
    electricity_per_kwh: float | None = None
    electricity_region: str = ""
    pue: float | None = None
    hosting_cost_year: float | None
    breakeven_months: float | None
    # what the steady-use break-even weighs owning against (`_steady_rent`): basis hourly or lease,
    # the rate (a GPU-hour or a GPU-month) and the lease's term
    breakeven_rent: dict | None = None
    useful_life_months: list[int] = list(USEFUL_LIFE_MONTHS)
    residual_value: float | None = None
    own_use: dict | None = None  # the team's own use: months and utilisation, and the comparison
    ownership_cost: float | None = None  # owning over OWNERSHIP_MONTHS (or the stated use): capex
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
    owned_utilisation: float = OWNED_UTILISATION  # the owned servers' use: the team's (`60% use`) or assumed
    payback_months: ClassVar[int] = BUY_PAYBACK_MONTHS
    gpu_share_of_server: ClassVar[float] = GPU_SHARE_OF_SERVER
    module_share_of_server: ClassVar[float] = MODULE_SHARE_OF_SERVER
    pfs_mb_s_per_tib: ClassVar[int] = PFS_MB_S_PER_TIB
    storage_extra_days: ClassVar[int] = STORAGE_EXTRA_DAYS

    # owning never costs less than renting within NEVER_PAYS_BACK_MONTHS (its running costs alone
    # can be above the rent), so there is no break-even (breakeven_months None)
    running_above_rent: bool = False

    @property
    def rent_doubted(self) -> float | None:
        """The rent's share of the servers' price a month where it is doubted outright, else None."""
        for n in self.notes:
            if n.code == "rent_below_capex" and n.params["share"] < n.params["floor"] * DOUBTED_SHARE_OF_FLOOR:
                return n.params["share"]
        return None

    @property
    def rent_extrapolated(self) -> bool:
        """Whether no offer on record delivers the plan and its rent is extrapolated from on-demand
        lists (rent.py's estimate rule on hourly offers): a cloud's list of one server promises no
        capacity, and no fabric, for many (a lease of whole servers reserves them)."""
        offer = self.rent_offer or {}
        return offer.get("unit") == "gpu-hour" and any(n.code == "rent_estimated" for n in self.notes)

    @property
    def never_pays_back(self) -> bool:
        return self.running_above_rent


# A job shorter than this on GPUs leased only for a year or more asks for a short rental, not
# the lease or a purchase (assumed: a week, what daily and weekly rentals serve; a longer job on
# such a lease is weighed against owning the GPUs as long, `long_lease_only`).
SHORT_TERM_JOB_DAYS = 7


def _hourly_rent(rented: rent.Rent, likely: rent.Priced | None) -> rent.Priced | None:
    """The rent by the hour owning is weighed against: the plan's own where it rents by the hour
    (a team's quote included), else the likely hourly offer on record."""
    return likely if likely and likely.option == "hourly" else rented.hourly


def _steady_rent(rented: rent.Rent, likely: rent.Priced | None, gpus: int, utilisation: float) -> dict:
    """Renting the GPUs a team would own, as busy as it keeps them, the cheapest way on record:
    by the hour for the hours in use; month by month on a one-month lease, only the months in use;
    or on a longer lease, which bills every month of its term busy or idle (the cheapest rate of a
    term within the hardware's life). Whatever the plan itself rents on, so a thread's "a month's
    lease?" and its plan say the same break-even (54.6 against 110 months had been said in one
    thread: each weighed against its own rent)."""
    ways = []
    hourly = _hourly_rent(rented, likely)
    if hourly:
        ways.append((hourly.per_gpu_hour * gpus * HOURS_PER_MONTH * utilisation, "hourly", hourly.per_gpu_hour, 0))
    leases = [o for o in rented.options if o.option == "monthly" and o.term_months <= USEFUL_LIFE_MONTHS[0]]
    if likely and likely.option == "monthly" and not leases:
        leases = [likely]  # a lease sold only on a longer term: it is what renting these GPUs takes
    for o in leases:
        rate = o.per_gpu_hour * HOURS_PER_MONTH
        if o.term_months <= 1:
            ways.append((rate * gpus * utilisation, "month_by_month", rate, 1))
        else:
            ways.append((rate * gpus, "lease", rate, o.term_months))
    per_month, basis, rate, term = min(ways, key=lambda w: (w[0], w[3]))
    hourly_dearer = basis != "hourly" and any(w[1] == "hourly" for w in ways)
    return {"per_month": per_month, "basis": basis, "rate": rate, "term_months": term, "hourly_dearer": hourly_dearer}


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
        "region": p.region if role == "electricity" else "",
    }


def _electricity(book: PriceBook, req: TrainingRequest, currency: str):
    """(the city's electricity price when we have one, else the price for an unknown site
    (`owning.electricity`: the national average, else the middle of the regions on record), whether
    it is the city's). The price's region is said with it (`_src`). The team's own figure, where the
    request gives one (`电费0.6元/度`), before any on record."""
    if req.power_price:
        p = req.power_price
        said = dt.date.today().isoformat()  # as of the request
        own = Price(
            "electricity", "", req.market, "your figure", p.amount, p.currency, "kwh", said, False, "your request"
        )
        return own, True
    if req.city:
        offers = book.offers("electricity", "", req.market)
        for key in CITY_POWER_REGIONS.get(req.city, ()):
            matches = [p for p in offers if key.lower() in p.region.lower()]
            if matches:
                return min(matches, key=lambda p: (p.estimate, book.convert(p.price, p.currency, currency))), True
    return owning_electricity(book, req.market, currency), False


def _offer_json(q: rent.Priced, estimated: bool) -> dict:
    p = q.price
    return {
        "provider": p.provider,
        "offer": p.offer_kind or "",
        "name": p.offer,
        "max_gpus": p.max_gpus,
        "interconnect": p.fabric or None,
        "interconnect_gbps": p.fabric_gbps or None,
        "min_term_months": q.term_months,
        "billed_gpus": q.billed_gpus,  # whole servers for a server or cluster offer
        "terms": p.terms.split(),
        "term_stated": q.term_stated,
        "basis": q.basis,
        "billing": p.billing or None,
        "indicative": p.indicative,
        "estimated": estimated or bool(q.rule),
        "rule": q.rule or None,
        "price": p.price,
        "currency": p.currency,
        "unit": p.unit,
        "as_of": p.as_of,
        "source": p.cite,
    }


def _range_end(q: rent.Priced, storage: float) -> dict:
    """The offer a range's end is priced on (a high end six times the likely one had been
    unexplained): who, what kind, on which basis and rate, and its total with storage."""
    p = q.price
    return {
        "provider": p.provider,
        "offer": p.offer_kind or "",
        "interconnect": p.fabric or None,
        "max_gpus": p.max_gpus,
        "option": q.option,
        "basis": q.basis,
        "months_paid": q.months_paid,
        "per_gpu_hour": q.per_gpu_hour,
        "per_gpu_month": q.per_gpu_hour * HOURS_PER_MONTH,
        "billed_gpus": q.billed_gpus,
        "total": q.total + storage,
    }


def _term_option(q: rent.Priced, storage: float) -> dict:
    return {
        "months": q.term_months,
        "months_paid": q.months_paid,
        "rent": q.total,
        "total": q.total + storage if q.total is not None else None,
        "per_gpu_month": q.per_gpu_hour * HOURS_PER_MONTH,
        "term_stated": q.term_stated,
        "provider": q.price.provider,
        "as_of": q.price.as_of,
        "rule": q.rule or None,
    }


# A lease whose job uses under a third of the months paid is said to be mostly idle, whatever its
# term (assumed: a team can often get daily or hourly billing for a short job by asking). The
# warning on the rent and the other-GPU suggestion (advice._mostly_idle_term) both use it.
IDLE_LEASE_SHARE = 1 / 3
# A job that fills its last billed month within this share of its own length bills another month
# when it runs that much slower than planned: the engine's median error on published runs it had
# not seen is 10-17% (docs/accuracy.md), so a 30.2-day job on a 30.4-day month is said to be at
# the edge (assumed: the same 10% the planner keeps before a deadline).
LEASE_EDGE_SHARE = 0.10


def _note(code: str, **params) -> Note:
    return Note(kind="warning", code=code, params=params)


def _storage(
    req: TrainingRequest, est: Estimate, book: PriceBook, mkt: str, cur: str, days: float | None, sources: list
) -> tuple[str | None, float | None, float | None, float | None, float | None]:
    """Storage for the dataset and two checkpoints, in the plan's own market and currency (no
    fall-back to the other market's price), paid for the job and STORAGE_EXTRA_DAYS: a parallel
    file system for a multi-server full training run, sized for the larger of what it keeps and
    the capacity its own read or checkpoint-write rate, or one server's, needs; else object storage (LoRA and
    QLoRA read their data once into each server's local NVMe and write small adapters)."""
    need = storage_need(req, est)
    stored_tb = (need.data_bytes + 2 * need.checkpoint_bytes) / 1e12
    kind, tb = "storage", stored_tb
    if est.layout.nodes > 1 and not req.is_peft and book.offers("storage_pfs", "", mkt):
        kind = "storage_pfs"
        # the whole job's read and checkpoint rates, and one server's own (the checklist's fio test
        # asks each server for it: 8 TB had been priced at 0.9 GB/s against a 2 GB/s test)
        rate_gb_s = max(need.dataset_read_gb_s, need.write_gb_s, need.read_gb_s)
        tb = max(stored_tb, rate_gb_s * 1000 / PFS_MB_S_PER_TIB * TB_PER_TIB)
    offers = book.offers(kind, "", mkt)
    if not offers or not days:
        return None, None, None, None, None
    used = (days + STORAGE_EXTRA_DAYS) * 24 / HOURS_PER_MONTH

    def months(s) -> float:
        # A resource package sold by the month (CPFS) bills whole months of its term.
        terms = s.lease_terms
        return max(terms[0], math.ceil(used - 1e-9)) if terms else used

    def total(s) -> float:
        return book.value(s, cur) * tb * months(s)

    best = min(offers, key=lambda s: (s.estimate, total(s)))
    sources.append(_src(best, kind))
    return kind, tb, total(best), book.value(best, cur), months(best)


def plan_costs(req: TrainingRequest, gpu: GPU, est: Estimate, book: PriceBook) -> Costs:
    cur, mkt = req.currency, req.market
    lay = est.layout
    sources: list[dict] = []
    notes: list[Note] = []
    days = est.days
    job_months = rent.job_months(days)
    # a run every month (`every month`) uses the servers for their life, each month that run's
    # share: owning is weighed against renting over that use (a lease bills every month of it)
    own_months = req.own_use_months or (USEFUL_LIFE_MONTHS[0] if req.recurring and days else None)
    own_util = getattr(req, "own_utilisation", None)

    host_gb = est.memory.host_ram_gib * GIB / 1e9
    rented = rent.rent_plan(
        book,
        gpu.name,
        mkt,
        cur,
        lay.gpu_count,
        lay.nodes,
        days,
        req.lease_term_months,
        host_gb_per_gpu=host_gb,
        hourly_only=req.hourly_only,
        fabric=req.fabric if gpu.nic_fabric in ("", req.fabric) else None,  # Ascend: RoCE whatever asked
    )
    likely = rented.headline
    if rented.fabric_on_record is False:
        notes.append(_note("fabric_unpriced", fabric=req.fabric, gpu=gpu.name))
    storage_kind, storage_tb, storage_total, storage_rate, storage_months = _storage(
        req, est, book, mkt, cur, days, sources
    )
    extra = storage_total or 0
    rent_offer = rent_range = rent_term = None
    per_hour = per_month = hourly_total = monthly_total = None
    rent_option = None
    min_term = 0
    term_options = None
    if likely:
        p = likely.price
        sources.insert(0, _src(p, p.kind))
        rent_offer = _offer_json(likely, rented.estimate_rule is not None)
        rent_option = likely.option
        per_hour = likely.per_gpu_hour
        if likely.option == "monthly":
            per_month = per_hour * HOURS_PER_MONTH
            monthly_total = likely.total
            min_term = likely.term_months
        else:
            hourly_total = likely.total
        if rented.options and (likely.option == "monthly" or rented.basis == "term"):
            term_options = [_term_option(q, extra) for q in rented.options]
        if likely.total is not None:
            ends = sorted(rented.range_pool + [likely], key=lambda q: q.total)
            rent_range = {
                "low": ends[0].total + extra,
                "likely": likely.total + extra,
                "high": ends[-1].total + extra,
                "offers": len(rented.range_pool),
                "currency": cur,
                "low_offer": _range_end(ends[0], extra) if ends[0].total < likely.total else None,
                # (None where the headline is the high end)
                "high_offer": _range_end(ends[-1], extra) if ends[-1].total > likely.total else None,
                # the plan at a cluster's rate where its own offer states no fabric (rent.Rent.cluster_rate)
                "cluster": _range_end(rented.cluster_rate, extra) if rented.cluster_rate else None,
            }
        if likely.months_paid is not None and days:
            rent_term = {
                "job_days": days,
                "job_months": job_months,
                "min_term_months": likely.term_months,
                "months_paid": likely.months_paid,
                "term_stated": likely.term_stated,
                # the headline says the lease beside its total when the job uses little of it
                "mostly_idle": days / (likely.months_paid * rent.DAYS_PER_MONTH) < IDLE_LEASE_SHARE,
            }
            spare = likely.months_paid * rent.DAYS_PER_MONTH - days
            if likely.months_paid == job_months and 0 <= spare < LEASE_EDGE_SHARE * days:
                notes.append(
                    _note(
                        "lease_edge",
                        days=days,
                        months=likely.months_paid,
                        spare=spare,
                        extra=likely.total / likely.months_paid,
                        cur=cur,
                    )
                )
            if not likely.term_stated:
                notes.append(
                    _note(
                        "term_assumed",
                        gpu=gpu.name,
                        term=likely.term_months,
                        stated=rented.stated_terms,
                        rule=likely.rule or None,
                    )
                )
            if likely.months_paid > job_months:
                notes.append(
                    _note(
                        "term_paid",
                        days=days,
                        months=likely.months_paid,
                        term=likely.term_months,
                        provider=p.provider,
                        stated=likely.term_stated,
                    )
                )
        if likely.billed_gpus > lay.gpu_count and p.offer_kind == "instance":
            # an instance of more GPUs, for the host memory its GPUs bring (rent.instance_gpus)
            notes.append(
                _note(
                    "instance_for_host_memory",
                    gpu=gpu.name,
                    used=lay.gpu_count,
                    billed=likely.billed_gpus,
                    gb=round(host_gb * lay.gpu_count),
                    cap=rent.INSTANCE_RAM_GB_PER_GPU,
                )
            )
        elif likely.billed_gpus > lay.gpu_count:
            # the offer bills whole servers: say what is paid for beside what the plan uses
            notes.append(
                _note(
                    "whole_server_billed",
                    gpu=gpu.name,
                    used=lay.gpu_count,
                    billed=likely.billed_gpus,
                    provider=p.provider,
                    cur=cur,
                    total=likely.total,
                )
            )
        step = rent.BILLING_HOURS.get(p.billing or "", 1)
        if likely.option == "hourly" and step >= 24 and days and likely.total and not req.owned:
            # a capacity block billed by the whole day or week, mostly idle: 64 H100 for a
            # 1.2-hour job billed a day each (US-buyer probe: no warning)
            billed_h = math.ceil(days * 24 / step - 1e-9) * step
            if days * 24 < IDLE_LEASE_SHARE * billed_h:
                notes.append(
                    _note(
                        "billing_unit_idle",
                        days=days,
                        hours=billed_h,
                        unit=p.billing,
                        share=days * 24 / billed_h,
                        total=likely.total,
                        provider=p.provider,
                        cur=cur,
                    )
                )
        used = days / (likely.months_paid * rent.DAYS_PER_MONTH) if likely.months_paid and days else None
        if (
            likely.option == "monthly"
            and used is not None
            and used < IDLE_LEASE_SHARE
            and not req.owned
            and not req.lease_term_months  # a term the team asked for: `term_paid` says what it pays
        ):
            notes.append(
                _note(
                    "lease_mostly_idle",
                    days=days,
                    months=likely.months_paid,
                    share=used,
                    total=likely.total,
                    cur=cur,
                    hourly=rented.hourly_offers > 0,
                    # hourly instances that would deliver it but for the host memory it offloads to
                    ram_gb=round(host_gb)
                    if not rented.hourly_offers
                    and host_gb > rent.INSTANCE_RAM_GB_PER_GPU
                    and rent.can_rent(book, gpu.name, mkt, lay.gpu_count, lay.nodes, True)
                    else None,
                    ram_cap=rent.INSTANCE_RAM_GB_PER_GPU,
                )
            )
        if req.lease_term_months and not rented.asked_term_sold:
            notes.append(
                _note(
                    "term_unavailable",
                    gpu=gpu.name,
                    asked=req.lease_term_months,
                    priced=likely.term_months,
                    option=likely.option,
                )
            )
        if rented.own_quote_dearer is not None:
            mine = rented.own_quote_dearer
            notes.append(
                _note(
                    "own_quote_dearer",
                    provider=mine.price.provider,
                    total=mine.total + extra,
                    months=mine.months_paid,
                    market=likely.total + extra,
                    cur=cur,
                )
            )
        if likely.price.owner is not None:
            # the team's own quote prices the plan, below what owning the same GPUs costs: the quote
            # judge called it too cheap to be true, and the plan says so beside the rent it gives
            # (probe S: a ¥3 A100 card-hour had priced a plan with no word of it)
            own = owning(book, gpu, likely.billed_gpus, mkt, cur)
            if (
                own
                and likely.per_gpu_hour * likely.billed_gpus * HOURS_PER_MONTH < SUSPICIOUS_BELOW_OWNING * own.per_month
            ):
                notes.append(
                    _note(
                        "own_quote_below_owning",
                        provider=likely.price.provider,
                        rate=likely.per_gpu_hour,
                        own=own.per_month / (likely.billed_gpus * HOURS_PER_MONTH),
                        cur=cur,
                    )
                )
        if likely.rule == "reserved_discount":
            # leases on record that bill whole servers, more GPUs than the plan's: not "only on-demand"
            whole = rented.server_lease_gpus
            notes.append(
                _note(
                    "reserved_discount",
                    gpu=gpu.name,
                    discount=rent.reserved_discount(likely.term_months),
                    whole=whole,
                    gpus=likely.billed_gpus,
                    asked=rented.asked_term if rented.term_estimated else None,
                )
            )
        if rented.estimate_rule:
            notes.append(
                _note(
                    "rent_estimated",
                    rule=rented.estimate_rule["rule"],
                    gpu=gpu.name,
                    basis_gpu=rented.estimate_rule["basis_gpu"],
                    count=lay.gpu_count,
                    nodes=lay.nodes,
                    cluster=rent_range["cluster"] if rent_range else None,
                    likely=rent_range["likely"] if rent_range else None,
                    cur=cur,
                )
            )
    elif book.offers("rent_hour", gpu.name, mkt) or book.offers("rent_month", gpu.name, mkt):
        # Prices are on record, but none from an offer that can deliver this plan.
        notes.append(_note("no_qualifying_offer", gpu=gpu.name, count=lay.gpu_count, nodes=lay.nodes))
    offpeak = book.best("offpeak_hour", gpu.name, mkt, cur)

    rent_total = (likely.total + extra) if (likely and likely.total is not None) else None

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
                    high_offer=rent_range["high_offer"],
                    cur=cur,
                )
            )
        else:
            budget_verdict = "over"

    # Buying what the plan needs: a workstation for a few consumer or workstation (PCIe) cards,
    # else whole servers (SXM/OAM parts come on 8-GPU boards), with cluster extras past one server.
    workstation = is_workstation(gpu, lay.gpu_count)
    servers = 0 if workstation else max(lay.nodes, math.ceil(lay.gpu_count / gpu.gpus_per_server))
    buy_gpus = lay.gpu_count if workstation else servers * gpu.gpus_per_server
    capex = None
    bought_from = purchase_price(book, gpu, mkt, cur, workstation)
    if bought_from and bought_from.kind == "buy_server":
        board = MODULE_SHARE_OF_SERVER if bought_from.unit == "module" else 1.0
        capex = book.value(bought_from, cur) / max(1, bought_from.gpus) * buy_gpus / board
        sources.append(_src(bought_from, "buy_module" if bought_from.unit == "module" else "buy_server"))
    elif bought_from:
        capex = book.value(bought_from, cur) * buy_gpus / GPU_SHARE_OF_SERVER
        sources.append(_src(bought_from, "buy_card"))
    if capex and servers > 1:
        capex *= 1 + CLUSTER_EXTRA
    ram_gib = ram_cost = None
    if capex and lay.offload != "none":
        # A server or workstation is priced as it ships, with host memory for the GPUs' own needs
        # (infra.RAM_PER_GPU_MEMORY); the offloaded states need theirs bought on top (a one-card
        # 32B full fine-tune: 540 GiB, more than the card). Dated DDR5 RDIMM price, the other
        # market's converted where the team's has none.
        ram = book.best("host_ram", "", mkt, cur)
        if ram:
            ram_gib = est.memory.host_ram_gib * lay.gpu_count * (1 + OFFLOAD_PINNED_MARGIN)
            # a "64 GB" module holds 64 GiB (JEDEC memory capacities are binary): per GiB as priced
            ram_cost = ram_gib * book.value(ram, cur)
            capex += ram_cost
            sources.append(_src(ram, "host_ram"))
    if bought_from is not None and bought_from.market != mkt:
        # no purchase price in the team's market: the other market's, converted (PriceBook.best)
        notes.append(
            _note("buy_price_other_market", gpu=gpu.name, market=bought_from.market, provider=bought_from.provider)
        )
    channel = None
    if capex:
        channel = "grey" if (mkt == "china" and gpu.china_access in GREY_IN_CHINA) else "official"
    if req.budget and req.rent_or_buy == "buy":
        # a buyer's budget caps the purchase, not a rent (Plan.spend): held against the capex
        budget = book.convert(req.budget.amount, req.budget.currency, cur)
        budget_verdict = None if capex is None else ("within" if capex <= budget else "over")
    power_year = hosting_year = tco = breakeven = residual = ownership_cost = steady = None
    never = False  # owning never catches up with renting: no break-even at all
    own_use = None
    electricity, the_citys = _electricity(book, req, cur)
    hosting = book.best("hosting", "", mkt, cur)
    pue = book.best("pue", "", mkt, "")
    # a run repeated every month (`every month`) or week: the servers work those runs' share of each month
    recurring = min(1.0, days * req.runs_per_month / rent.DAYS_PER_MONTH) if req.recurring and days else None
    utilisation = own_util or recurring or OWNED_UTILISATION
    if capex:
        kw = gpu.server_power_kw * max(1, servers) * (buy_gpus / gpu.gpus_per_server if workstation else 1)
        if req.power_paid:
            power_year = 0.0  # `电费学校出`: someone else pays the power bill
        elif electricity:
            pue_v = pue.price if pue else DEFAULT_PUE
            power_year = kw * 8760 * utilisation * pue_v * book.value(electricity, cur)
            source = _src(electricity, "electricity")
            if not the_citys and electricity.region not in NATIONAL_REGIONS:
                # no site said, or none on record for the city said, and no national average: the
                # middle of the regions, said so (Hangzhou and Beijing teams had read Sichuan's
                # price unexplained)
                source["middle_of"] = len(book.offers("electricity", "", req.market))
                source["city"] = req.city or ""
            sources.append(source)
        if req.own_room:
            hosting_year = 0.0  # `放实验室`: the team's own room, no colocation fee
        elif hosting and hosting.unit == "kw-month":
            hosting_year = kw * 12 * book.value(hosting, cur)
            sources.append(_src(hosting, "hosting"))
        opex_year = (power_year or 0) + (hosting_year or 0) + capex * OPS_SHARE_OF_CAPEX
        tco = capex + opex_year
        residual = capex * RESIDUAL_SHARE
        if per_hour:
            # the months after which owning (capex less its resale then, plus running costs) costs
            # less than renting the same GPUs as busy, the cheaper way on record (`_steady_rent`);
            # none within ten years, or running costs alone above the rent: it never pays back
            steady = _steady_rent(rented, likely, buy_gpus, utilisation)
            breakeven = breakeven_months(capex, steady["per_month"] - opex_year / 12, NEVER_PAYS_BACK_MONTHS)
            never = breakeven is None
        breakeven_at = len(notes)  # its warning goes here, once the team's own use is weighed
        if channel == "grey":
            notes.append(_note("grey_channel", gpu=gpu.name))
        servers_capex = capex - (ram_cost or 0)  # what a lessor recovers: the servers as they ship
        if per_month and buy_gpus and per_month * buy_gpus / servers_capex < RENT_CAPEX_FLOOR:
            # A listing far below what lessors must charge to recover the hardware.
            notes.append(
                _note(
                    "rent_below_capex",
                    gpu=gpu.name,
                    share=per_month * buy_gpus / servers_capex,
                    floor=RENT_CAPEX_FLOOR,
                    provider=likely.price.provider if likely else "",
                )
            )
        lead = gpu.purchase_lead_weeks
        shortest = catalog.shortest_purchase_lead_weeks()
        if (
            req.rent_or_buy == "buy"
            and not lead
            and shortest
            and req.deadline_days
            and req.deadline_days < shortest * 7 + (days or 0)
        ):
            # no delivery time on record for this part, and the deadline is shorter than the shortest
            # published for any server here and the training after it: a purchase cannot be counted on
            notes.append(
                _note("buy_lead_unknown", gpu=gpu.name, deadline=req.deadline_days, weeks=shortest, training=days)
            )
        if req.rent_or_buy == "buy" and lead:
            published = {"gpu": gpu.name, "low": lead[0], "high": lead[1], "as_of": gpu.purchase_lead_as_of}
            if req.deadline_days and req.deadline_days < lead[0] * 7 + (days or 0):
                # Bought servers arrive, and train the job, after the deadline even at the shortest
                # published lead time (53 days of training had fitted a 90-day deadline unsaid
                # beside 8 weeks of delivery)
                notes.append(_note("buy_after_deadline", deadline=req.deadline_days, training=days, **published))
            elif days and days < lead[0] * 7 and not own_months:
                # A job shorter than even the shortest delivery time: rent it; buy for the work after it.
                notes.append(_note("buy_job_shorter_than_lead", days=days, **published))
        horizon = own_months or OWNERSHIP_MONTHS
        ownership_cost = capex - residual_at(capex, horizon) + opex_year * horizon / 12
        if own_months and per_hour:
            own_cost = capex - residual_at(capex, own_months) + opex_year * own_months / 12
            # Renting the same use: by the hour, only the hours used; on a lease, every month of
            # the term whatever the use, at the rate of the longest term the use covers (a 3-year
            # use had been priced at a 1-month rate for only the 70% of months in use: over a
            # stated use the servers are needed every month, unlike the steady use of `_steady_rent`).
            ways = []
            hourly = _hourly_rent(rented, likely)
            if hourly:
                rate = hourly.per_gpu_hour
                ways.append((rate * buy_gpus * HOURS_PER_MONTH * utilisation * own_months, "hourly", 0, rate))
            leases = [o for o in rented.options if o.option == "monthly" and o.term_months <= own_months]
            if leases:
                lease = max(leases, key=lambda o: (o.term_months, -o.per_gpu_hour))
                rate = lease.per_gpu_hour * HOURS_PER_MONTH
                ways.append((rate * buy_gpus * own_months, "lease", lease.term_months, rate))
            if not ways:
                ways.append(
                    (per_hour * buy_gpus * HOURS_PER_MONTH * own_months, "lease", min_term, per_hour * HOURS_PER_MONTH)
                )
            rent_cost, basis, term, rate = min(ways)
            # what the break-even is weighed against, said as the steady one is (`breakeven_rent`)
            steady = {
                "per_month": rent_cost / own_months,
                "basis": basis,
                "rate": rate,
                "term_months": term,
                "hourly_dearer": False,
                "over_use": True,
            }
            own_use = {
                "months": own_months,
                "utilisation": utilisation,
                "own_cost": own_cost,
                "resale": residual_at(capex, own_months),  # what the servers resell for at the end of the use
                "rent_cost": rent_cost,
                "rent_basis": basis,  # hourly: the hours in use; lease: every month of the use
                "rent_term_months": term,
            }
            # the break-even on the same renting and the same resale the decision weighs (a lease
            # pays every month, not the hours in use), so it falls within the use exactly when
            # owning is the cheaper: "buy" had been said beside a break-even past the use
            breakeven = breakeven_months(capex, rent_cost / own_months - opex_year / 12, NEVER_PAYS_BACK_MONTHS)
            never = breakeven is None
        if never or (breakeven is not None and breakeven > USEFUL_LIFE_MONTHS[0]):
            notes.insert(
                breakeven_at,
                _note(
                    "breakeven_past_life",
                    months=breakeven,
                    life=USEFUL_LIFE_MONTHS[0] // 12,
                    never=never,
                ),
            )

    # the only lease that delivers binds the team for far longer than the job (China's H200
    # clusters: five years closed): renting is then a purchase by instalments, weighed against
    # owning the same GPUs for the same months
    bound_term = likely.term_months if likely and likely.option == "monthly" else 0
    long_lease = bool(days and bound_term >= rent.YEAR_MONTHS and bound_term > job_months)
    if rent_total is None and capex is None:
        decision, reason = "rent", "no_price"
    elif own_use:
        # the break-even within the use is owning the cheaper over it (breakeven_months)
        decision = "buy" if breakeven is not None and breakeven <= own_months else "rent"
        recurring = "recurring_weekly" if req.runs_per_month > 1 else "recurring"
        reason = recurring if req.recurring and not req.own_use_months else "own_use"
        if req.rent_or_buy == "buy" and decision == "rent":
            notes.append(
                _note("rent_cheaper", own=own_use["own_cost"], rent=own_use["rent_cost"], cur=cur, months=own_months)
            )
    elif days is None:
        decision, reason = "rent", "no_duration"
    elif req.rent_or_buy == "buy" and capex:
        # bought servers that cannot be counted on before the deadline: the purchase stands, and the
        # reason says to rent this job (the headline had said "buy" beside "rent: buying is too late")
        late = any(n.code in ("buy_lead_unknown", "buy_after_deadline") for n in notes)
        decision, reason = "buy", "asked_buy_late" if late else "asked_buy"
        # Push back when renting the same GPUs, as busy, is clearly cheaper over the ranking horizon.
        rent_cost = steady["per_month"] * OWNERSHIP_MONTHS if steady else None
        if rent_cost and ownership_cost and rent_cost < RENT_CLEARLY_CHEAPER * ownership_cost:
            notes.append(_note("rent_cheaper", own=ownership_cost, rent=rent_cost, cur=cur, months=OWNERSHIP_MONTHS))
    elif long_lease and (days or 0) < SHORT_TERM_JOB_DAYS and not req.lease_term_months:
        # a job of hours or days on GPUs leased only for years: neither the lease nor owning the
        # servers is the answer (a 56-minute run had been told to buy 16 H200): a short rental,
        # quoted by a vendor, or another GPU type (the answer names one when it is far cheaper)
        decision, reason = "rent", "no_short_term"
    elif long_lease and capex and rent_total is not None:
        own_term = capex - residual_at(capex, bound_term) + opex_year * bound_term / 12
        # the term the team asked for ("包年 … 租还是买") is weighed as asked: it had been told that
        # every lease on record binds a year, far past the job, to ask for a short rental
        decision = "buy" if own_term < rent_total else "rent"
        reason = "asked_term" if req.lease_term_months else "long_lease_only"
        if decision == "buy":  # its break-even was against renting by the hour, which cannot deliver this
            notes = [n for n in notes if n.code != "breakeven_past_life"]
    elif breakeven is not None and breakeven <= BUY_PAYBACK_MONTHS and (days or 0) > 180:
        decision, reason = "buy", "breakeven"
    elif rent_total is None and (days or 0) < 180:
        # a short job with servers priced but no rent on record: rent, once a vendor quotes it
        decision, reason = "rent", "no_rent_price"
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
        storage_per_tb_month=storage_rate,
        storage_months=storage_months,
        rent_total=rent_total,
        rent_option=rent_option,
        rent_offer=rent_offer,
        rent_range=rent_range,
        rent_term=rent_term,
        term_options=term_options,
        budget_verdict=budget_verdict,
        buy_kind=("workstation" if workstation else "servers") if capex else None,
        buy_gpus=buy_gpus if capex else None,
        buy_servers=servers if capex else None,
        buy_channel=channel,
        buy_price_market=bought_from.market if capex and bought_from.market != mkt else None,
        buy_lead_weeks=(gpu.purchase_lead_weeks or None) if capex else None,
        buy_lead_as_of=(gpu.purchase_lead_as_of or None) if capex else None,
        buy_capex=capex,
        buy_host_ram_gib=ram_gib,
        buy_host_ram_cost=ram_cost,
        buy_tco_first_year=tco,
        guide_tco_range=[capex * GUIDE_TCO_RULE[0], capex * GUIDE_TCO_RULE[1]] if capex else None,
        power_cost_year=power_year,
        electricity_per_kwh=book.value(electricity, cur) if electricity else None,
        electricity_region=electricity.region if electricity else "",
        pue=pue.price if pue else DEFAULT_PUE,
        hosting_cost_year=hosting_year,
        breakeven_months=breakeven,
        breakeven_rent=steady if breakeven is not None or never else None,
        running_above_rent=never,
        owned_utilisation=utilisation,
        residual_value=residual,
        own_use=own_use,
        ownership_cost=ownership_cost,
        decision=decision,
        decision_reason=reason,
        price_sources=sources,
        fx={"usd_cny": book.usd_cny, "as_of": book.fx_as_of, "source": book.fx_source},
        notes=notes,
    )
