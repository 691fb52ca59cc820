"""The largest models a sum of money trains: what "what's the biggest model we can fine-tune with
$10k?" and "10万预算能训多大的模型" ask. The sum rents GPU-hours at the market's rent on record; what
those hours train depends on the data, so the answer is a table by data size, each size searched with
the engine's own time (engine/estimate.best_layout) on the fewest servers that hold the model. Prices
are read here; no wording."""

from __future__ import annotations

import math
from functools import lru_cache

from pydantic import BaseModel

from advisor import catalog
from advisor.engine.estimate import best_layout
from advisor.engine.setup import TrainingSetup
from advisor.engine.specs import GPU, ModelShape
from advisor.market.prices import DAYS_PER_MONTH, HOURS_PER_MONTH, Price, PriceBook
from advisor.planning.advice import CHINCHILLA_TOKENS_PER_PARAM
from advisor.planning.capacity import DENSE_CAP_B, largest_size
from advisor.planning.engine_inputs import model_shape, training_setup
from advisor.request.parser import parse

# The fine-tuning data sizes the table shows, in tokens: a small instruction set (about 20,000
# samples of 500 tokens), a large one, and continued pre-training on a domain corpus.
DATA_TOKENS = (10e6, 100e6, 1e9)
# The methods priced for each data size.
METHODS = ("lora", "full-finetune")
# The most GPUs a size is tried on (one order of 128 servers of 8): past it the sum is not what
# limits the run.
MOST_GPUS = 1024
# GPUs a sum's rent is read for when none is named: NVIDIA data-centre parts with NVLink and at
# least 80 GB, the cheapest per dense BF16 TFLOP chosen (consumer cards are cheaper per FLOP but do
# not scale past a server; AMD's and Huawei's parts run other software stacks: named, they are used).
MIN_MEMORY_GB = 80
# The rent each market is read at: mainland China leases by the GPU-month, global clouds by the hour.
RENT_KIND = {"china": ("rent_month", "rent_hour"), "global": ("rent_hour", "rent_month")}


class SizeRow(BaseModel):
    method: str  # lora | full-finetune | pretrain
    tokens: float  # the data (for pretrain: compute-optimal, CHINCHILLA_TOKENS_PER_PARAM a parameter)
    params_b: float | None  # None: not even the smallest size is paid for
    gpus: int  # the GPUs it runs on (the fewest that hold it)
    gpu_hours: float
    mfu: float
    past_search: bool  # the sum pays for DENSE_CAP_B, the largest published
    days: float | None = None  # the run's days where a span was said (on `gpus`, within it)


class BudgetCapacity(BaseModel):
    amount: float  # in `currency`
    currency: str
    market: str
    gpu: str
    rate: float  # per GPU-hour, in `currency`
    price: Price  # the offer the rate is read from
    monthly: bool  # a GPU-month lease divided over HOURS_PER_MONTH
    billed_months: int  # a lease's months billed (its minimum term, or the span's); 0 by the hour
    used_months: int  # of which the GPUs are used (`billed_months`)
    gpu_hours: float  # what the sum rents
    rows: list[SizeRow]
    cap_b: float  # the search's top (DENSE_CAP_B)


def rentable_gpu(
    book: PriceBook, market: str, currency: str, amount: float, days: float | None = None
) -> tuple[GPU, float, Price, bool] | None:
    """The part a sum is best spent on in `market` (MIN_MEMORY_GB), with `gpu_rent`'s rate, offer
    and lease flag; None when none has a rent on record."""
    best = None
    for g in catalog.gpus():
        if market not in g.markets or g.consumer or g.vendor != "NVIDIA" or g.memory_gb < MIN_MEMORY_GB:
            continue
        if not g.intra_node.lower().startswith("nvlink") or not g.bf16_dense_tflops:
            continue
        found = gpu_rent(book, g, market, currency, amount, days)
        if found is not None and (best is None or found[0] / g.bf16_dense_tflops < best[0]):
            best = (found[0] / g.bf16_dense_tflops, g, *found)
    return best[1:] if best else None


def billed_months(price: Price, days: float | None) -> tuple[int, int]:
    """The months a lease bills and the months the sum's GPUs are used, for a job of `days` (None:
    no span said, so the GPUs are spread over the lease's minimum term and every month billed is
    used). A 12-month minimum asked for 30 days bills 12 months for the 1 used."""
    term = max(1, price.min_term_months)
    if not days:
        return term, term
    used = max(1, math.ceil(days / DAYS_PER_MONTH))
    return max(term, used), used


def gpu_rent(
    book: PriceBook, gpu: GPU, market: str, currency: str, amount: float, days: float | None = None
) -> tuple[float, Price, bool] | None:
    """A used GPU-hour's rent of `gpu` in `market`, its offer and whether it is a monthly lease:
    RENT_KIND's first kind on record, a monthly lease only where `amount` pays for one server over the
    months it bills (a smaller sum rents by the hour, where that is on record). A lease's rate is
    `_used_hour`'s, so a long minimum term is no bargain for a short span; confirmed offers before
    estimates, as PriceBook.best chooses."""
    for kind in RENT_KIND[market]:
        offers = book.offers(kind, gpu.name, market, rentable=True)
        pool = [p for p in offers if not p.estimate] or offers
        if not pool:
            continue

        monthly = kind == "rent_month"
        if monthly and kind != RENT_KIND[market][-1]:
            # the leases whose months billed for one server the sum pays for
            per = max(1, gpu.gpus_per_server)
            pool = [
                p
                for p in pool
                if book.convert(p.price, p.currency, currency) * per * billed_months(p, days)[0] <= amount
            ]
            if not pool:
                continue
        p = min(pool, key=lambda p: _used_hour(book, p, currency, days, monthly))
        return _used_hour(book, p, currency, days, monthly), p, monthly
    return None


def _used_hour(book: PriceBook, p: Price, currency: str, days: float | None, monthly: bool) -> float:
    """What a GPU-hour the job uses costs on offer `p`: the hour's rent, or a lease's months billed
    (`billed_months`) over the hours used: the span's hours where one is said (45 days bill two whole
    months for 1,080 hours), else HOURS_PER_MONTH for each month billed."""
    value = book.convert(p.price, p.currency, currency)
    if not monthly:
        return value
    billed, used = billed_months(p, days)
    return value * billed / (days * 24 if days else used * HOURS_PER_MONTH)


def largest_for_budget(
    book: PriceBook, amount: float, currency: str, market: str, gpu: str | None = None, days: float | None = None
) -> BudgetCapacity | None:
    """What `amount` trains at the rent on record of `gpu` (else `rentable_gpu`), its GPUs used over
    `days` where said: for each data size and method, the largest dense model whose GPU-hours it pays
    for, and pre-training at compute-optimal data; None when no rent is on record."""
    if gpu is None:
        found = rentable_gpu(book, market, currency, amount, days)
    else:
        part = catalog.get_gpu(gpu)
        rented = gpu_rent(book, part, market, currency, amount, days)
        found = (part, *rented) if rented else None
    if found is None:
        return None
    part, rate, price, monthly = found
    hours = amount / rate
    rows = [_row(part.name, m, t, hours) for t in DATA_TOKENS for m in METHODS]
    # pre-training spends the sum in the span said, on as many GPUs as that takes (more GPUs run
    # slower each: a size paid for on the fewest may not be within the span)
    rows.append(_row(part.name, "pretrain", 0.0, hours, float(f"{days:.3g}") if days else None))
    billed, used = billed_months(price, days) if monthly else (0, 0)
    return BudgetCapacity(
        amount=amount,
        currency=currency,
        market=market,
        gpu=part.name,
        rate=rate,
        price=price,
        monthly=monthly,
        billed_months=billed,
        used_months=used,
        gpu_hours=hours,
        rows=rows,
        cap_b=DENSE_CAP_B,
    )


def _row(gpu: str, method: str, tokens: float, hours: float, days: float | None = None) -> SizeRow:
    # the search is cached on the hours to three figures: a sum asked twice, or in the other
    # currency, is searched once
    return _search(gpu, method, tokens, float(f"{hours:.3g}"), days)


@lru_cache(maxsize=32)
def base_request(gpu: str, method: str):
    """The request every size of one search is a copy of (parsed once, not once a size)."""
    return parse(f"7b {method} 1B tokens on 8x{gpu}", "en")


def dense_job(gpu: str, method: str, tokens: float, size_b: float) -> tuple[ModelShape, TrainingSetup]:
    """The engine's inputs for a dense model of `size_b` trained on `tokens` (0: CHINCHILLA_TOKENS_PER_PARAM
    a parameter) with nothing offloaded (capacity.py's rule: offloading fits more on fewer GPUs at a speed
    the engine knows least)."""
    data = tokens or CHINCHILLA_TOKENS_PER_PARAM * size_b * 1e9
    sized = base_request(gpu, method).model_copy(update={"params_b": size_b, "active_params_b": size_b, "tokens": data})
    setup = training_setup(sized)
    return model_shape(sized), setup.model_copy(update={"pinned": setup.pinned.model_copy(update={"offload": "none"})})


@lru_cache(maxsize=4096)
def run_on(gpu: str, method: str, tokens: float, size_b: float) -> tuple[float, int, float] | None:
    """A dense model of `size_b` trained on `tokens` (0: CHINCHILLA_TOKENS_PER_PARAM a parameter) on the
    fewest GPUs of `gpu`, in whole servers doubling up to MOST_GPUS, that hold it with nothing offloaded
    (capacity.py's rule: offloading fits more on fewer GPUs at a speed the engine knows least): its
    GPU-hours, GPU count and MFU; None when none holds it."""
    shape, setup = dense_job(gpu, method, tokens, size_b)
    part = catalog.get_gpu(gpu)
    count = part.gpus_per_server or 8
    while count <= MOST_GPUS:
        est = best_layout(shape, setup, part, count)
        if est.fits and est.gpu_hours:
            return est.gpu_hours, count, est.throughput.mfu
        count *= 2
    return None


@lru_cache(maxsize=4096)
def run_within(gpu: str, method: str, tokens: float, size_b: float, days: float) -> tuple[float, int, float] | None:
    """`run_on`'s run ended within `days`: on the fewest whole servers, from the count that spends the
    fewest GPUs' hours in the span, a server more at a time (more at large counts) up to MOST_GPUS,
    where it fits and the engine's time is within the span; None when none is."""
    first = run_on(gpu, method, tokens, size_b)
    if first is None:
        return None
    part = catalog.get_gpu(gpu)
    per = part.gpus_per_server or 8
    count = max(first[1], math.ceil(first[0] / (days * 24) / per) * per)
    shape, setup = dense_job(gpu, method, tokens, size_b)
    while count <= MOST_GPUS:
        est = best_layout(shape, setup, part, count)
        if est.fits and est.gpu_hours and est.days and est.days <= days:
            return est.gpu_hours, count, est.throughput.mfu
        count += per * max(1, count // (16 * per))
    return None


@lru_cache(maxsize=256)
def _search(gpu: str, method: str, tokens: float, hours: float, days: float | None = None) -> SizeRow:
    """The largest size whose run takes at most `hours` GPU-hours (within `days` where said, on the
    GPUs that takes: `run_within`), by halving the ratio between one paid for and one not
    (capacity._search's grain)."""

    def run(size_b: float) -> tuple[float, int, float] | None:
        return run_within(gpu, method, tokens, size_b, days) if days else run_on(gpu, method, tokens, size_b)

    def paid(size_b: float) -> bool:
        got = run(size_b)
        return got is not None and got[0] <= hours

    def row(size_b: float | None, past: bool = False) -> SizeRow:
        got = run(size_b) if size_b else None
        gpu_hours, count, mfu = got if got else (0.0, 0, 0.0)
        return SizeRow(
            method=method,
            tokens=tokens or CHINCHILLA_TOKENS_PER_PARAM * (size_b or 0) * 1e9,
            params_b=size_b,
            gpus=count,
            gpu_hours=gpu_hours,
            mfu=mfu,
            past_search=past,
            days=gpu_hours / count / 24 if days and count else None,
        )

    size = largest_size(paid, DENSE_CAP_B)
    return row(size, past=size == DENSE_CAP_B)
