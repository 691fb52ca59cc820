"""What renting a plan's GPUs costs: the offers that can deliver it, the price basis its length
and size call for, and the lease terms a team could sign (issue 21).

The basis: a short job on one server pays by the hour (an on-demand list, or a cluster offer
with no minimum); a job longer than a month, or on two or more servers, is priced from term
leases or cluster offers, for every GPU alike, and on-demand lists only set the high end of its
range. A plan rented by the month shows every term a team could sign side by side (1 and 3
months for a short job, a year where the GPU is sold by the year, the team's own term), each
saying whether a source states that term or it is assumed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from advisor.market import prices
from advisor.market.prices import Price, PriceBook
from advisor.market.store import CLUSTER_FABRICS

HOURS_PER_MONTH = prices.HOURS_PER_MONTH
# A month of a job, for counting the months a lease bills (a lease bills started months).
DAYS_PER_MONTH = prices.DAYS_PER_MONTH
# A job longer than this (days), or on two or more servers, is priced from term or cluster offers.
TERM_BASIS_DAYS = 30
# Terms always shown side by side for a job shorter than three months (issue 21), and the year.
SHORT_TERMS = (1, 3)
YEAR_MONTHS = 12
# Reserved capacity runs 30-50% under the on-demand rate (market-2026-12.md G7: mercatus-ai.com,
# "Reservation cuts 30-50% off the hourly rate", May 2026); mainland China's guide says a monthly
# package runs about 30% under the hourly rate (seed 000, Shenzhen). The lower discount is used
# when a long job's GPU has only on-demand lists on record: an estimate, said so.
RESERVED_DISCOUNT = 0.30
RESERVED_DISCOUNT_HIGH = 0.50  # the range's other end, said where a team bargains
# A commitment of three years or more takes the high end: GCP's a3-highgpu-8g H100 lists at $5,601 a
# GPU-month committed for a year and $3,546 for three (billing catalog via Cyclenerd's pricing.yml,
# 2025-03-06; data/reference_prices.toml), 30% and 55% under its ~$11 on-demand (silybench, 2026-09).
LONG_COMMITMENT_MONTHS = 36


def reserved_discount(term_months: int) -> float:
    """The share under the on-demand rate a reservation of `term_months` is estimated at."""
    return RESERVED_DISCOUNT_HIGH if term_months >= LONG_COMMITMENT_MONTHS else RESERVED_DISCOUNT


# Whole-server and cluster offers rent whole servers of this many GPUs (the toml's convention).
GPUS_PER_SERVER = 8
# A per-GPU cloud instance gets its share of the host's memory, with a hard cap: 60-120 GB a card
# on aigate (docs.aigate.cc "GPU选型", RTX 3090/4090/4090D rows) and 50 GB a 4090 on gpufree
# (gpufree.cn "开发机实例"), both read 2026-12-02. A plan that offloads more than this a GPU to
# host memory rents an instance of more GPUs for their memory, the others idle, or whole servers
# (assumed: the larger figure, 120 GB).
INSTANCE_RAM_GB_PER_GPU = 120
# Billing granularity -> hours a started unit bills.
BILLING_HOURS = {"second": 0, "minute": 0, "hour": 1, "day": 24, "week": 168}
# Sibling classes for the estimate rule (advisor/market/prices.py).
SIBLINGS = prices.SIBLINGS


@dataclass(frozen=True)
class Priced:
    """One offer priced for one plan."""

    price: Price
    total: float | None  # the rent for the job, in the plan's currency (None: no duration)
    per_gpu_hour: float  # the offer's price per GPU-hour (a month is 730 hours)
    option: str  # hourly | monthly
    months_paid: int | None  # monthly: months billed
    term_months: int  # the term signed (0: none)
    term_stated: bool  # a source states that term for this offer (False: assumed)
    basis: str  # on_demand | cluster | term | rule
    billed_gpus: int
    rule: str = ""  # reserved_discount: an on-demand list less RESERVED_DISCOUNT


@dataclass
class Rent:
    """The headline offer, the term options beside it, the offers its range is drawn from, and
    why the price is an estimate when it is one."""

    headline: Priced | None = None
    options: list[Priced] = field(default_factory=list)  # one per term, shortest first
    range_pool: list[Priced] = field(default_factory=list)
    estimate_rule: dict | None = None
    # the estimate rule behind the shorter terms priced beside a cluster sold only on a long one
    short_term_rule: dict | None = None
    stated_terms: list[int] = field(default_factory=list)  # every term a source states for the GPU
    asked_term: int | None = None
    asked_term_sold: bool = True  # an offer is on record at the user's term (stated or not)
    basis: str = "on_demand"  # on_demand | term
    hourly_offers: int = 0  # hourly offers that can deliver the plan (`pay as you go` has them)
    fabric_on_record: bool | None = None  # the fabric asked for: an offer that delivers states it
    # a multi-server plan estimated on a per-server offer that states no cluster fabric: the plan at
    # the rate of a cluster on record that states one (None: the headline states one, or none is)
    cluster_rate: Priced | None = None
    # the team's own quote, where it would cost this job more than the market's rent that leads
    own_quote_dearer: Priced | None = None
    # the likely rent by the hour whatever leads (the lower median of the hourly offers that
    # deliver): what steady use of owned GPUs is weighed against beside the leases (costs.py)
    hourly: Priced | None = None
    # the fewest GPUs a lease on record bills (whole servers), where the plan's lease is estimated
    # from instances as it needs fewer (0: no such lease)
    server_lease_gpus: int = 0
    # the term asked for, sold by no lease that delivers the plan, estimated from its hourly offers
    term_estimated: bool = False


def has_cluster_fabric(p: Price) -> bool:
    """An offer of servers joined on one cluster fabric (a cluster, or a stated IB/RoCE/EFA...)."""
    return p.offer_kind == "cluster" or p.fabric in CLUSTER_FABRICS


def job_months(days: float | None) -> int:
    return max(1, math.ceil((days or 0) / DAYS_PER_MONTH - 1e-9))


def instance_gpus(gpus: int, nodes: int, host_gb_per_gpu: float) -> int | None:
    """The GPUs of the smallest instance whose share of host memory holds what the plan offloads
    (`gpus` when theirs does): clouds sell instances of 1, 2, 4 and 8 GPUs, each GPU with up to
    INSTANCE_RAM_GB_PER_GPU of host memory. None when no one-server instance can (a 70B LoRA
    offloaded from one RTX 4090, 143 GB, rents a 2-GPU instance for ¥1.9 an hour a card: it had
    been priced on a year's lease of a whole server, ¥87,600, for a 15-day job)."""
    if host_gb_per_gpu <= INSTANCE_RAM_GB_PER_GPU:
        return gpus
    need = math.ceil(gpus * host_gb_per_gpu / INSTANCE_RAM_GB_PER_GPU - 1e-9)
    size = 1 << (need - 1).bit_length()
    return size if nodes == 1 and size <= GPUS_PER_SERVER else None


def _billed_gpus(p: Price, gpus: int, inst: int | None = None) -> int:
    """Whole servers for a server or cluster offer; for an instance the GPUs themselves, or `inst`,
    the instance its host memory needs (`instance_gpus`)."""
    if p.offer_kind in ("server", "cluster"):
        return math.ceil(gpus / GPUS_PER_SERVER) * GPUS_PER_SERVER
    return max(gpus, inst or 0) if p.offer_kind == "instance" else gpus


def _hourly(
    p: Price, value: float, gpus: int, days: float | None, basis: str, rule: str = "", inst: int | None = None
) -> Priced:
    """An hourly offer bills the wall time rounded up to its billing unit (a day-billed capacity
    block bills whole days); one sold with a minimum term (a reserved rate: `1 year` on a quote)
    bills at least that term's hours, whatever the job uses."""
    billed = _billed_gpus(p, gpus, inst)
    total = None
    committed = None
    if days:
        step = BILLING_HOURS.get(p.billing, 1)
        wall = days * 24
        hours = math.ceil(wall / step - 1e-9) * step if step else wall
        if p.min_term_months and hours < p.min_term_months * HOURS_PER_MONTH:
            hours, committed = p.min_term_months * HOURS_PER_MONTH, p.min_term_months
        total = value * billed * hours
    return Priced(p, total, value, "hourly", committed, committed or 0, True, basis, billed, rule)


def _monthly(
    p: Price,
    per_gpu_month: float,
    gpus: int,
    days: float | None,
    term: int,
    stated: bool,
    rule: str = "",
    inst: int | None = None,
) -> Priced:
    """A lease bills whole months, at least the term signed."""
    billed = _billed_gpus(p, gpus, inst)
    months = max(term, job_months(days)) if days else None
    total = per_gpu_month * billed * months if months else None
    basis = "rule" if rule else "term"
    return Priced(p, total, per_gpu_month / HOURS_PER_MONTH, "monthly", months, term, stated, basis, billed, rule)


def _lower_median(pool: list[Priced]) -> Priced:
    """The likely offer: the median (lower middle) of the pool, by total (by rate when there is
    no duration). Confirmed and second-hand offers count alike, so the likely figure does not jump
    when a confirmed offer's order limit is passed."""
    key = (lambda q: q.total) if all(q.total is not None for q in pool) else (lambda q: q.per_gpu_hour)
    ranked = sorted(pool, key=key)
    return ranked[(len(ranked) - 1) // 2]


def _signable(p: Price, term: int) -> bool | None:
    """True when a source states `p` is sold on a term no longer than `term`, None when its
    source states no lease term (assumed signable), False when its shortest stated term is longer."""
    terms = p.lease_terms
    if not terms:
        return None
    return terms[0] <= term


def _cheapest(options: list[Priced]) -> Priced | None:
    priced = [o for o in options if o.total is not None]
    return min(priced, key=lambda o: o.total) if priced else (options[0] if options else None)


def rent_plan(
    book: PriceBook,
    gpu: str,
    market: str,
    cur: str,
    gpus: int,
    nodes: int,
    days: float | None,
    asked_term: int | None = None,
    host_gb_per_gpu: float = 0.0,
    hourly_only: bool = False,
    fabric: str | None = None,
) -> Rent:
    """Price `gpus` GPUs of `gpu` on `nodes` servers for `days` in `market`, in `cur`.

    An offer delivers the plan when it is not an index, one order gets all the GPUs and a
    multi-server plan gets a cluster fabric (Price.why_not). When none does, the estimate rule:
    the per-server leases (server or cluster offers) of that GPU, or of its sibling class, one
    per server. Never an index or a single-card listing. `host_gb_per_gpu`: the host memory a GPU
    of the plan offloads to: past one GPU's share of an instance's, instances bill the GPUs whose
    shares hold it (`instance_gpus`), and where none on sale is that large they cannot deliver it.
    `hourly_only` (`pay as you go`): hourly offers alone, on the hourly basis, whatever the job's
    length."""
    long_or_wide = (days or 0) > TERM_BASIS_DAYS or nodes > 1
    inst = instance_gpus(gpus, nodes, host_gb_per_gpu)
    out = Rent(asked_term=asked_term, basis="term" if long_or_wide and not hourly_only else "on_demand")
    deliver, out.estimate_rule, out.stated_terms = _delivering(
        book, gpu, market, gpus, nodes, hourly_only, host_gb_per_gpu
    )
    if not deliver:
        return out
    if fabric and nodes > 1 and not out.estimate_rule:
        # the fabric the team asked for (`infiniband`): the offers that state it, where any deliver
        on_it = [p for p in deliver if p.fabric == fabric]
        out.fabric_on_record = bool(on_it)
        deliver = on_it or deliver

    def value(p: Price) -> float:
        return book.convert(p.price, p.currency, cur)

    monthly = [p for p in deliver if p.kind == "rent_month"]
    hourly = [p for p in deliver if p.kind == "rent_hour"]
    out.hourly_offers = 0 if out.estimate_rule else len(hourly)
    cluster = [_hourly(p, value(p), gpus, days, "cluster") for p in hourly if p.offer_kind == "cluster"]
    on_demand = [_hourly(p, value(p), gpus, days, "on_demand", inst=inst) for p in hourly if p.offer_kind != "cluster"]
    by_hour = [q for q in on_demand + cluster if not q.price.owner]
    exact = [q for q in by_hour if _not_whole_servers(q, gpus)]
    out.hourly = _lower_median(exact if gpus < GPUS_PER_SERVER and exact else by_hour) if by_hour else None
    leases = [(p, value(p), "") for p in monthly]
    if out.basis == "term" or asked_term:
        # A long job (or a term asked for) with only on-demand lists on record, or one smaller than
        # a server (which a server lease bills whole): a lease is estimated from the lists at the
        # reserved discount (RESERVED_DISCOUNT), its term assumed. The guide's monthly package for
        # single cards.
        # A term asked that no lease delivering the plan sells (`1-year lease` where the year's leases on
        # record are single servers): that term estimated from every offer that delivers it, as a
        # reservation is priced, not the job by the hour (56 H100 for 23 hours had been $2,921
        # under "1-year lease", a year's commitment costing some $500k)
        # (a month asked stays a month by the hour: reservations are sold by the quarter and longer)
        unsold = (asked_term or 0) >= SHORT_TERMS[-1] and not [
            p for p in monthly if _signable(p, asked_term) is not False
        ]
        derived = [
            p
            for p in hourly
            if unsold or (not monthly and not cluster) or (p.offer_kind == "instance" and gpus < GPUS_PER_SERVER)
        ]
        # (at the on-demand rate here: the discount is the term's, `_pool_at`)
        leases += [(p, value(p) * HOURS_PER_MONTH, "reserved_discount") for p in derived]
        out.term_estimated = unsold and bool(derived)
        if derived and monthly:
            whole = min(_billed_gpus(p, gpus) for p in monthly)
            out.server_lease_gpus = whole if whole > gpus else 0

    out.options = _term_options(leases, gpus, days, asked_term, out.stated_terms, inst)
    if not out.options and not hourly and leases:
        # Every offer that delivers is a lease sold only on a longer term (China's H200 clusters:
        # five years closed, market-2026-12.md C6/C7): that term priced, idle months and all, not
        # "no price on record" for GPUs that are on offer; and beside it the servers' own leases,
        # one per server, on the terms the job could sign (the estimate rule of `_delivering`),
        # so a three-month job is not shown only a five-year bill.
        shortest = min((t for p, _, _ in leases for t in p.lease_terms), default=None)
        q = _likely_at(leases, gpus, days, shortest, inst) if shortest else None
        servers, rule = ([], None) if out.estimate_rule else _server_leases(book, gpu, market, gpus, ("rent_month",))
        # (not the delivering leases themselves, nor any a source sells only on as long a term)
        estimated = [
            (p, value(p), rule["rule"])
            for p in servers
            if p.why_not(gpus, nodes) is not None and not (shortest and p.lease_terms and p.lease_terms[0] >= shortest)
        ]
        short = _term_options(
            estimated, gpus, days, asked_term, sorted({t for p in servers for t in p.lease_terms}), inst
        )
        short = [o for o in short if shortest is None or o.term_months < shortest]
        out.options = short + ([q] if q is not None else [])
        if short:
            out.short_term_rule = {"rule": rule["rule"], "basis_gpu": rule["basis_gpu"]}
    by_term = {o.term_months: o for o in out.options}

    if asked_term:
        headline = by_term.get(asked_term)
        if headline is None:
            out.asked_term_sold = False
            # No offer on record at the user's term: the nearest term that exists (longer first).
            nearest = sorted(out.options, key=lambda o: (abs(o.term_months - asked_term), -o.term_months))
            headline = nearest[0] if nearest else None
        if headline is None:
            headline = _lower_median(cluster or on_demand) if (cluster or on_demand) else None
    else:
        cheapest_term = _cheapest(out.options)
        if out.basis == "on_demand":
            hourly_pool = on_demand + cluster
            # fewer GPUs than a server: where offers bill just those GPUs, the likely rent is theirs,
            # not a median pulled up by whole servers billed for idle cards (1 H100 had been priced
            # at $12 on whole-server lists where a per-GPU instance rents it for $1.21)
            exact = [q for q in hourly_pool if _not_whole_servers(q, gpus)]
            if gpus < GPUS_PER_SERVER and exact:
                hourly_pool = exact
            candidates = [_lower_median(hourly_pool)] if hourly_pool else []
        else:
            candidates = [_lower_median(cluster)] if cluster else []
            if on_demand:
                # a long job by the hour, where that costs less than the leases on record (a 47-day
                # B200 job had been priced on a 12-month lease at 5.5x its hours; two servers of it,
                # estimated server by server, at 4x)
                exact = [q for q in on_demand if _not_whole_servers(q, gpus)]
                candidates.append(_lower_median(exact if gpus < GPUS_PER_SERVER and exact else on_demand))
        if cheapest_term:
            candidates.append(cheapest_term)
        if not candidates and on_demand:
            candidates = [_lower_median(on_demand)]
        headline = _cheapest(candidates)
    # The team's own quote that delivers the plan is the rent it can sign: it leads, even above
    # the market's median (`quote` says its plans use it from then on), the market's offers in the
    # range beside it; unless it costs this job more than every market offer would (a 3-month
    # quote had priced a one-day job at ¥225,005 beside ¥1,961 by the hour): then it is said beside.
    own = [_own_quote(p, value(p), gpus, days, asked_term, inst) for p in deliver if p.owner and not out.estimate_rule]
    if own:
        mine = _cheapest(own)
        # the market's offers on terms the job itself needs, not the longer ones it would leave idle
        fits_job = [o for o in out.options if days is None or o.term_months <= job_months(days)]
        market = [q.total for q in on_demand + cluster + fits_job if q.total is not None and not q.price.owner]
        if mine.total is None or not market or mine.total <= max(market):
            headline = mine
        else:
            out.own_quote_dearer = mine
    out.headline = headline
    if headline is not None and out.short_term_rule and headline.rule == out.short_term_rule["rule"]:
        out.estimate_rule = out.short_term_rule  # the headline is a per-server estimate: said so
    if headline is not None:
        same_term = _pool_at(leases, gpus, days, headline.term_months, inst) if headline.option == "monthly" else []
        out.range_pool = [q for q in cluster + on_demand + same_term if q.total is not None] or [headline]
        if out.estimate_rule and nodes > 1 and not has_cluster_fabric(headline.price):
            # servers with no fabric stated are no cluster: the rate of a cluster on record that
            # states one (a smaller order, priced server by server) is said beside the estimate
            on_fabric = [q for q in out.range_pool if has_cluster_fabric(q.price) and q.total is not None]
            out.cluster_rate = _lower_median(on_fabric) if on_fabric else None
    return out


def _delivering(
    book: PriceBook, gpu: str, market: str, gpus: int, nodes: int, hourly_only: bool, host_gb_per_gpu: float = 0.0
) -> tuple[list[Price], dict | None, list[int]]:
    """The offers a plan's rent is drawn from (`rent_plan`), the estimate rule when they are
    per-server leases standing in for an offer that delivers it, and every term the offers
    looked at state. Fewer offers deliver as the count grows (each order's size, the cluster
    fabric, a server per server), so none at a count means none at any larger one."""
    kinds = ("rent_hour",) if hourly_only else ("rent_hour", "rent_month")
    rows = [p for kind in kinds for p in book.offers(kind, gpu, market, rentable=True)]
    rows = [p for p in rows if instance_why_not(p, gpus, nodes, host_gb_per_gpu) is None]
    terms = sorted({t for p in rows for t in p.lease_terms})
    deliver = [p for p in rows if p.why_not(gpus, nodes) is None]
    if deliver:
        return deliver, None, terms
    servers, rule = _server_leases(book, gpu, market, gpus, kinds)
    if servers:
        return servers, rule, sorted({t for p in servers for t in p.lease_terms})
    return [], None, terms


def instance_why_not(p: Price, gpus: int, nodes: int, host_gb_per_gpu: float) -> str | None:
    """ "host_ram" when `p` is an instance that no size of it on sale holds the host memory the plan
    offloads to (`instance_gpus`), else None (whatever else keeps it from delivering)."""
    if p.offer_kind != "instance" or host_gb_per_gpu <= INSTANCE_RAM_GB_PER_GPU:
        return None
    inst = instance_gpus(gpus, nodes, host_gb_per_gpu)
    return None if inst is not None and p.why_not(inst, nodes) is None else "host_ram"


def _not_whole_servers(q: Priced, gpus: int) -> bool:
    """An offer that bills the plan's GPUs, or an instance sized for its host memory: not whole
    servers billed for cards the plan leaves idle."""
    return q.billed_gpus == gpus or q.price.offer_kind == "instance"


def _server_leases(
    book: PriceBook, gpu: str, market: str, gpus: int, kinds: tuple[str, ...]
) -> tuple[list[Price], dict | None]:
    """Whole-server offers of `gpu` (else of its sibling class) that stand in, one per server, for
    an offer of all the plan's GPUs, and the rule that says so."""
    for basis_gpu, rule in ((gpu, "server_leases"), (SIBLINGS.get(gpu), "sibling_server_leases")):
        if not basis_gpu:
            continue
        servers = [
            p
            for kind in kinds
            for p in book.offers(kind, basis_gpu, market, rentable=True)
            if p.offer_kind in ("server", "cluster") and p.max_gpus >= min(gpus, GPUS_PER_SERVER)
        ]
        if servers:
            return servers, {"rule": rule, "basis_gpu": basis_gpu}
    return [], None


def can_rent(book: PriceBook, gpu: str, market: str, gpus: int, nodes: int, hourly_only: bool) -> bool:
    """Whether any offer on record could price `gpus` or more GPUs of `gpu` (`_delivering`)."""
    return bool(_delivering(book, gpu, market, gpus, nodes, hourly_only)[0])


def as_sold(book: PriceBook, p: Price, cur: str, gpus: int, days: float | None, inst: int | None = None) -> Priced:
    """One offer priced for the whole plan as it is sold (by the hour, or on its own stated term,
    else the job's months), whether or not it can deliver it: a vendor list's "for this plan"."""
    return _own_quote(p, book.convert(p.price, p.currency, cur), gpus, days, None, inst)


def _own_quote(
    p: Price, value: float, gpus: int, days: float | None, asked_term: int | None, inst: int | None = None
) -> Priced:
    """A quote the team recorded, priced as it was offered: by the hour, or on its own stated term
    (else the term asked for, else the job's months)."""
    if p.kind == "rent_hour":
        return _hourly(p, value, gpus, days, "cluster" if p.offer_kind == "cluster" else "on_demand", inst=inst)
    stated = p.lease_terms
    term = stated[0] if stated else (asked_term or job_months(days))
    return _monthly(p, value, gpus, days, term, bool(stated), inst=inst)


def _pool_at(
    leases: list[tuple[Price, float, str]], gpus: int, days: float | None, term: int, inst: int | None = None
) -> list[Priced]:
    """Every lease priced at `term`: those a source states on that term or a shorter one, else
    (none stated) those whose source states no lease term (and leases estimated by rule), the term
    then assumed."""
    stated = [(p, v, r) for p, v, r in leases if not r and _signable(p, term)]
    pool, is_stated = (
        (stated, True) if stated else ([(p, v, r) for p, v, r in leases if r or _signable(p, term) is None], False)
    )
    return [_monthly(p, _at_term(v, r, term), gpus, days, term, is_stated, r, inst) for p, v, r in pool]


def _at_term(value: float, rule: str, term: int) -> float:
    """A lease's monthly rate at `term`: an on-demand rate made a reservation less that term's discount."""
    return value * (1 - reserved_discount(term)) if rule == "reserved_discount" else value


def _likely_at(
    leases: list[tuple[Price, float, str]], gpus: int, days: float | None, term: int, inst: int | None = None
) -> Priced | None:
    """The likely lease at `term`. Fewer GPUs than a server: a per-card package (estimated from
    the instance lists) where it bills less than a stated lease of whole servers, which bills
    GPUs the plan does not use."""
    pool = _pool_at(leases, gpus, days, term, inst)
    likely = _lower_median(pool) if pool else None
    per_card = [
        _monthly(p, _at_term(v, r, term), gpus, days, term, False, r, inst)
        for p, v, r in leases
        if r and p.offer_kind == "instance"
    ]
    if gpus < GPUS_PER_SERVER and per_card:
        card = _lower_median(per_card)
        if likely is None or (card.total or math.inf) < (likely.total or math.inf):
            likely = card
    return likely


def _term_options(
    leases: list[tuple[Price, float, str]],
    gpus: int,
    days: float | None,
    asked_term: int | None,
    stated_terms: list[int],
    inst: int | None = None,
) -> list[Priced]:
    """One priced lease per term a team could sign, shortest first: 1 and 3 months for a job
    shorter than 3 months, the job's own months for a longer one, a year where a source sells
    this GPU by the year, and the user's own term; each the likely (lower-median) lease at that
    term. Two terms that bill the same months keep the cheaper."""
    if not leases:
        return []
    months = job_months(days)
    terms = set(SHORT_TERMS) if months < 3 else {months}
    if YEAR_MONTHS in stated_terms:
        terms.add(YEAR_MONTHS)
    if asked_term:
        terms.add(asked_term)
    out: dict[int, Priced] = {}
    for term in sorted(terms):
        q = _likely_at(leases, gpus, days, term, inst)
        if q is None:
            continue
        paid = q.months_paid if q.months_paid is not None else term
        kept = out.get(paid)
        if kept is None or (q.total or 0) < (kept.total or 0) or term == asked_term:
            out[paid] = q
    return sorted(out.values(), key=lambda q: q.term_months)
