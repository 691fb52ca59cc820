"""The largest models some GPUs train within a span of time: what "what can we train on 8 H100 in 2
weeks?" and "8张H100两周能训什么" ask beyond memory. What a span trains depends on the data, so the
answer is a table by data size (budget_capacity's sizes), each size searched with the engine's own
time (engine/estimate.best_layout) on exactly the GPUs counted, and pre-training at compute-optimal
data. No prices, no wording."""

from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel

from advisor import catalog
from advisor.engine.estimate import best_layout
from advisor.planning.advice import CHINCHILLA_TOKENS_PER_PARAM
from advisor.planning.budget_capacity import DATA_TOKENS, METHODS, dense_job
from advisor.planning.capacity import DENSE_CAP_B, EXAMPLE_SHARE, largest_models, largest_size

# A size is held back by memory, not by time, when one a thousandth larger no longer fits: the
# search's grain (capacity.HALVINGS of 405/0.05) is a ratio of 1.00014, well inside it.
MEMORY_STEP = 1.001


class SpanRow(BaseModel):
    method: str  # lora | full-finetune | pretrain
    tokens: float  # the data (for pretrain: compute-optimal, CHINCHILLA_TOKENS_PER_PARAM a parameter)
    params_b: float | None  # None: not even the smallest size is trained in the span
    hours: float  # the run's wall-clock hours on the GPUs counted
    mfu: float
    memory_bound: bool  # the GPUs' memory, not the span, stops a larger one
    past_search: bool  # the span trains DENSE_CAP_B, the largest dense model published


class SpanCapacity(BaseModel):
    gpu: str
    count: int
    span_hours: float
    rows: list[SpanRow]
    cap_b: float  # the search's top (DENSE_CAP_B)
    data_said: bool  # the rows are the user's own data, not the table's sizes


def largest_in_span(gpu: str, count: int, span_hours: float, tokens: float | None = None) -> SpanCapacity:
    """For each data size and method, the largest dense model `count` x `gpu` train within
    `span_hours` of wall clock, nothing offloaded (capacity.py's rule), and pre-training at
    compute-optimal data. `tokens`: the user's data, searched alone in place of the table's sizes
    ("what can we train on 8 H100 in 2 weeks with 1TB?": the 1TB had been left unread)."""
    name = catalog.get_gpu(gpu).name
    span = float(f"{span_hours:.3g}")  # a span said twice ("2 weeks", "14 days") is searched once
    fit = largest_models(name, count)
    held = {"lora": fit.lora_b, "full-finetune": fit.full_b, "pretrain": fit.full_b}
    sizes = (float(f"{tokens:.3g}"),) if tokens else DATA_TOKENS
    asked = [(m, t) for t in sizes for m in METHODS] + [("pretrain", 0.0)]
    rows = [_within(_search(name, count, m, t, span), held[m], name, count, t) for m, t in asked]
    return SpanCapacity(
        gpu=name, count=count, span_hours=span_hours, rows=rows, cap_b=DENSE_CAP_B, data_said=bool(tokens)
    )


def example_in_span(span: SpanCapacity) -> float | None:
    """The size of the LoRA request offered to plan the user's own data (capacity.EXAMPLE_SHARE of
    the largest the span trains, to one decimal under 10B); None without data said or a size found."""
    lora = next(r for r in span.rows if r.method == "lora")
    if not span.data_said or lora.params_b is None:
        return None
    size = lora.params_b * EXAMPLE_SHARE
    return round(size) if size >= 10 else max(0.1, round(size, 1))


def _within(row: SpanRow, held_b: float | None, gpu: str, count: int, tokens: float) -> SpanRow:
    """A row no larger than the size capacity.py says the GPUs hold, so that one answer gives one
    largest size (a small data set's shorter batch fits a little more: no reason to say two)."""
    if row.params_b is None or held_b is None or row.params_b <= held_b:
        return row
    hours, mfu = run_on_count(gpu, count, row.method, tokens, held_b) or (row.hours, row.mfu)
    data = tokens or CHINCHILLA_TOKENS_PER_PARAM * held_b * 1e9
    return row.model_copy(update={"params_b": held_b, "tokens": data, "hours": hours, "mfu": mfu, "memory_bound": True})


@lru_cache(maxsize=4096)
def run_on_count(gpu: str, count: int, method: str, tokens: float, size_b: float) -> tuple[float, float] | None:
    """A dense model of `size_b` trained on `tokens` (0: compute-optimal) on exactly `count` x `gpu`:
    its wall-clock hours and MFU; None when it does not fit."""
    est = best_layout(*dense_job(gpu, method, tokens, size_b), catalog.get_gpu(gpu), count)
    if not (est.fits and est.days):
        return None
    return est.days * 24, est.throughput.mfu


@lru_cache(maxsize=512)
def _search(gpu: str, count: int, method: str, tokens: float, span: float) -> SpanRow:
    """The largest size whose run fits and ends within `span` hours, by halving the ratio between one
    trained in time and one not (capacity._search's grain)."""

    def trained(size_b: float) -> bool:
        got = run_on_count(gpu, count, method, tokens, size_b)
        return got is not None and got[0] <= span

    def row(size_b: float | None, past: bool = False) -> SpanRow:
        got = run_on_count(gpu, count, method, tokens, size_b) if size_b else None
        hours, mfu = got if got else (0.0, 0.0)
        bound = bool(size_b) and not past and run_on_count(gpu, count, method, tokens, size_b * MEMORY_STEP) is None
        return SpanRow(
            method=method,
            tokens=tokens or CHINCHILLA_TOKENS_PER_PARAM * (size_b or 0) * 1e9,
            params_b=size_b,
            hours=hours,
            mfu=mfu,
            memory_bound=bound,
            past_search=past,
        )

    size = largest_size(trained, DENSE_CAP_B)
    return row(size, past=size == DENSE_CAP_B)
