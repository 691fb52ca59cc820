"""Renting GPUs against buying them when no job is named ("should we rent or buy 16 H100s?",
"租8卡H800三个月和买哪个划算"): the like monthly leases on record, at their lower median as a
vendor's quote is judged (quotes.like_offers, quotes.market_reference), against owning the same
servers (owning.py, the planner's purchase arithmetic: capex, power at the owned use, hosting,
upkeep, and what the hardware resells for after the months used).

Pure arithmetic over the price book: the wording is templates/rent_or_buy.txt.j2's. A job's plan
weighs the same against the months the job needs (advisor/planning/costs.py).
"""

from __future__ import annotations

from pydantic import BaseModel

from advisor.catalog import GPU
from advisor.market.owning import USEFUL_LIFE_MONTHS, Owning, breakeven_months, owning, residual_at
from advisor.market.prices import HOURS_PER_MONTH, PriceBook
from advisor.market.quotes import like_offers, market_reference, market_span

# The months of use each row weighs, beside the term asked: one to three years, the spans over
# which a purchase is usually judged (owning.OWNERSHIP_MONTHS is the last).
HORIZONS = (12, 24, 36)
# Owning is weighed within the longest useful life (owning.USEFUL_LIFE_MONTHS): past it, never.
LIFE_MONTHS = USEFUL_LIFE_MONTHS[1]


class Span(BaseModel):
    """Renting against owning the GPUs for `months`: the lease's months against the purchase less
    what it resells for then, plus its running costs for those months."""

    months: int
    rent: float
    own: float
    resale: float


class RentOrBuy(BaseModel):
    gpu: str
    gpus: int  # as bought and rented: whole servers past a workstation
    asked_gpus: int
    servers: int  # 0: a workstation of cards
    market: str
    currency: str
    lease_per_gpu_month: float
    lease: dict  # the median like offer: provider, as_of, estimate, kind, terms, offers (how many compared)
    lease_low: float  # the cheapest like offer, per GPU-month
    owning: Owning
    running_month: float  # power, hosting and upkeep a month, of all that is bought
    spans: list[Span]
    asked_months: int | None
    breakeven_months: float | None  # of use, within LIFE_MONTHS; None: never


def rent_or_buy(
    book: PriceBook, gpu: GPU, gpus: int, market: str, currency: str, months: int | None = None
) -> RentOrBuy | None:
    """Renting `gpus` GPUs of `gpu` against buying them, over `months` (when asked) and HORIZONS;
    None when the market has no lease or no purchase price of it on record."""
    owned = owning(book, gpu, gpus, market, currency)
    if owned is None:
        return None
    bought = owned.servers * owned.server_gpus or gpus  # whole servers, a workstation's cards as asked
    offers = like_offers(book, gpu.name, market, "month", bought)
    median, per_hour = market_reference(book, offers, currency)
    if median is None:
        return None
    low = market_span(book, offers, currency)[0]
    lease_month = per_hour * HOURS_PER_MONTH
    running = owned.power_month + owned.hosting_month + owned.upkeep_month
    asked = months if months and 0 < months <= 10 * LIFE_MONTHS else None
    spans = []
    for m in sorted({*HORIZONS, *([asked] if asked else [])}):
        resale = residual_at(owned.capex, m)
        spans.append(
            Span(months=m, rent=lease_month * bought * m, own=owned.capex - resale + running * m, resale=resale)
        )
    return RentOrBuy(
        gpu=gpu.name,
        gpus=bought,
        asked_gpus=gpus,
        servers=owned.servers,
        market=market,
        currency=currency,
        lease_per_gpu_month=lease_month,
        lease={
            "provider": median.provider,
            "as_of": median.as_of,
            "estimate": median.estimate,
            "kind": median.kind,
            "terms": median.lease_terms,
            "offers": len(offers),
        },
        lease_low=low * HOURS_PER_MONTH,
        owning=owned,
        running_month=running,
        spans=spans,
        asked_months=asked,
        breakeven_months=breakeven_months(owned.capex, lease_month * bought - running, LIFE_MONTHS),
    )


class AcrossParts(BaseModel):
    """Renting `rent_gpus` of one GPU type for `months` against buying `buy_gpus` of another: each side's
    cost over those months, and what each pays for a unit of dense BF16 peak (PFLOP/s) a month. The
    peak is the datasheet's, not a job's speed: the comparison of money, not of a training run."""

    rent_gpu: str
    rent_gpus: int
    months: int
    market: str
    currency: str
    lease_per_gpu_month: float
    lease: dict  # the median like offer: provider, as_of, estimate, offers (how many compared)
    rent_total: float
    buy_gpu: str
    owning: Owning  # over `months`: capex less resale then, plus running costs
    own_total: float
    own_life: Owning  # over LIFE_MONTHS, for the cost of a PFLOP/s-month kept to the end of its life
    rent_pflops: float
    buy_pflops: float


def dense_pflops(gpu: GPU, gpus: int) -> float:
    """The dense BF16 (else FP16) peak of `gpus` GPUs in PFLOP/s, from the catalogue's datasheet figures."""
    return gpus * gpu.peak_tflops("bf16") / 1000


def rent_against_owning(
    book: PriceBook,
    rented: tuple[GPU, int],
    months: int,
    bought: tuple[GPU, int],
    market: str,
    currency: str,
) -> AcrossParts | None:
    """`rented` GPUs leased for `months` at the like median (as a quote is judged) against `bought`
    GPUs owned for as long (owning.py); None when either price is not on record in the market."""
    (rent_gpu, rent_gpus), (buy_gpu, buy_gpus) = rented, bought
    owned = owning(book, buy_gpu, buy_gpus, market, currency, months=months)
    life = owning(book, buy_gpu, buy_gpus, market, currency, months=LIFE_MONTHS)
    offers = like_offers(book, rent_gpu.name, market, "month", rent_gpus)
    median, per_hour = market_reference(book, offers, currency)
    if owned is None or life is None or median is None:
        return None
    lease_month = per_hour * HOURS_PER_MONTH
    kept = owned.servers * owned.server_gpus or buy_gpus
    return AcrossParts(
        rent_gpu=rent_gpu.name,
        rent_gpus=rent_gpus,
        months=months,
        market=market,
        currency=currency,
        lease_per_gpu_month=lease_month,
        lease={"provider": median.provider, "as_of": median.as_of, "estimate": median.estimate, "offers": len(offers)},
        rent_total=lease_month * rent_gpus * months,
        buy_gpu=buy_gpu.name,
        owning=owned,
        own_total=owned.total_per_month * months,
        own_life=life,
        rent_pflops=dense_pflops(rent_gpu, rent_gpus),
        buy_pflops=dense_pflops(buy_gpu, kept),
    )
