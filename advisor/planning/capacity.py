"""The largest models a set of GPUs can train, method by method: what "我们有4张A100能训多大的模型"
and "what's the biggest model we can fine-tune on 8 4090s?" ask. Worked out with the engine's own
memory model and layout search (engine/estimate.best_layout) on generic dense shapes of each size,
the size searched; no prices, no wording."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from pydantic import BaseModel

from advisor import catalog
from advisor.engine.estimate import best_layout
from advisor.planning.engine_inputs import model_shape, training_setup
from advisor.request.parser import parse

# The sizes searched, in billions of parameters, and the halvings of their ratio: 16 of 80,000x
# leave the answer within 0.02% of the largest size that fits (the search's own grain, far finer
# than the memory model's).
SMALLEST_B, LARGEST_B, HALVINGS = 0.05, 4000.0, 16
# The largest dense model published, Llama 3.1 405B (Meta, 2024-07-23, "The Llama 3 Herd of Models"):
# the searches of what a sum or a span trains stop there, and no example asks for a larger one.
DENSE_CAP_B = 405

# The LoRA request the answer offers as an example: four fifths of the largest LoRA (room for a
# longer sequence), else a 7B where it holds less than 10B, a 70B where it holds past the search.
EXAMPLE_SHARE, EXAMPLE_SMALL_B, EXAMPLE_LARGE_B = 0.8, 7, 70


class Capacity(BaseModel):
    gpu: str
    count: int
    memory_gb: float  # the GPUs' memory in all, as the catalogue states it
    seq: int  # the sequence length the sizes hold at (the requests' default)
    qlora_b: float | None  # None: no larger than LoRA's (QLoRA saves memory only where it is larger)
    lora_b: float | None  # None: not even the smallest size fits
    full_b: float | None
    # full fine-tuning with the optimizer in the servers' CPU memory, where that holds a larger one
    # (past the servers' RAM it holds less: None)
    full_offload_b: float | None


def largest_models(gpu: str, count: int) -> Capacity:
    """The largest dense model each method fits on `count` x `gpu` with no offload (QLoRA, LoRA,
    full fine-tuning), and full fine-tuning with its optimizer offloaded where that is larger. A
    mixture of experts counts by its total parameters: every expert is held."""
    return _largest(catalog.get_gpu(gpu).name, count)


@lru_cache(maxsize=64)
def _largest(gpu: str, count: int) -> Capacity:
    base = {m: parse(f"7b {m} on {count}x{gpu}", "en") for m in ("qlora", "lora", "full-finetune")}
    quantised, lora = _search(base["qlora"], "none"), _search(base["lora"], "none")
    full, offloaded = _search(base["full-finetune"], "none"), _search(base["full-finetune"], "optimizer")
    return Capacity(
        gpu=gpu,
        count=count,
        memory_gb=catalog.get_gpu(gpu).memory_gb * count,
        seq=base["lora"].seq_len,
        qlora_b=quantised if quantised and quantised > (lora or 0) else None,
        lora_b=lora,
        full_b=full,
        full_offload_b=offloaded if offloaded and offloaded > (full or 0) else None,
    )


def _search(request, offload: str) -> float | None:
    """The largest size (billions) that fits; None when the smallest does not."""
    return largest_size(lambda size_b: _fits(request, size_b, offload), LARGEST_B)


def largest_size(holds: Callable[[float], bool], top: float) -> float | None:
    """The largest size in billions from SMALLEST_B to `top` for which `holds` is true (true of every
    smaller one too), by halving the ratio between one that holds and one that does not HALVINGS times;
    None when the smallest does not hold. What some GPUs hold, a sum pays for or a span trains."""
    if not holds(SMALLEST_B):
        return None
    if holds(top):
        return top
    low, high = SMALLEST_B, top
    for _ in range(HALVINGS):
        middle = (low * high) ** 0.5
        low, high = (middle, high) if holds(middle) else (low, middle)
    return low


def _fits(request, size_b: float, offload: str) -> bool:
    sized = request.model_copy(update={"params_b": size_b, "active_params_b": size_b})
    setup = training_setup(sized)
    setup = setup.model_copy(update={"pinned": setup.pinned.model_copy(update={"offload": offload})})
    est = best_layout(model_shape(sized), setup, catalog.get_gpu(request.gpu), request.gpu_count)
    return est.fits


def example_b(fit: Capacity) -> int:
    """The size of the LoRA request the answer offers to plan (EXAMPLE_SHARE)."""
    if fit.lora_b is None or fit.lora_b < 10:
        return EXAMPLE_SMALL_B
    return EXAMPLE_LARGE_B if fit.lora_b >= LARGEST_B else min(DENSE_CAP_B, round(fit.lora_b * EXAMPLE_SHARE))
