"""Fit the constants the physics leaves free, on the calibration rows only.

Run by hand:  python bench/fit.py [--per-framework] [--memory]
The free constants: one framework factor shared by every framework and the per-step wait for
the slowest server (advisor/engine/throughput.py FRAMEWORK_EFFICIENCY, STEP_JITTER_NODE_S; the
wait inside a server, STEP_JITTER_GPU_S, is measured and held), fitted together on a grid
to the smallest sum of the throughput and time medians; with --per-framework, also each
framework's factor refitted alone so that the median of predicted / measured throughput over
the rows it runs is 1, for a number of memory passes of unfused elementwise operators
(advisor/engine/roofline.py UNFUSED_PASSES). Throughput rows are
bench/calibration/published_points.csv (throughput kind) and bench/cases.py TIME_CASES
(tokens/s, MFU, TFLOP/s); time rows the GPU-hours and days of those and of CARD_RUNS.
With --memory, the allocator's cache (advisor/engine/memory.py ALLOCATOR_CACHE) on a grid, to
the smallest median error of the memory rows read as reserved or with nvidia-smi (the rows
read with max_memory_allocated do not depend on it).
"""

from __future__ import annotations

import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import accuracy  # noqa: E402
import points  # noqa: E402
from cases import CARD_RUNS, MEMORY_CASES, POINT_MEMORY_CASES, TIME_CASES  # noqa: E402

from advisor.engine import estimate, memory, roofline, throughput  # noqa: E402
from advisor.request.parser import parse  # noqa: E402

PASSES_GRID = (2.0,)
# Host-side seconds a step (throughput.STEP_OVERHEAD_S) on a grid.
OVERHEAD_GRID = (0.0,)


def ratios():
    """(framework, kind, predicted / measured) for every calibration row."""
    out = []
    for r in points.rows():
        if r["kind"] in ("throughput", "time"):
            out.append((r["framework"], r["kind"], 1 + r["err"]))
    for case in TIME_CASES + CARD_RUNS:
        est = accuracy._estimate(parse(case.request))
        ours = accuracy.ours_time(case)
        for key in ("tokens_per_s_per_gpu", "mfu", "hw_tflops"):
            if getattr(case, key):
                out.append((est.layout.framework, "throughput", ours[key] / getattr(case, key)))
                break
        for key in ("gpu_hours", "days"):
            if getattr(case, key):
                out.append((est.layout.framework, "time", getattr(case, key) / ours[key]))
                break
    return out


def set_constants(passes: float, factors: dict[str, float], overhead: float | None = None) -> None:
    if overhead is not None:
        throughput.STEP_OVERHEAD_S = overhead
    roofline.UNFUSED_PASSES.clear()
    roofline.UNFUSED_PASSES.update({"Megatron-Core": 1.0})
    roofline.UNFUSED_PASSES_DEFAULT = passes
    roofline._CACHE.clear()
    roofline._PARTS.clear()
    estimate._best_layout.cache_clear()  # searches are kept per shape: forget those of the last constants
    throughput.FRAMEWORK_EFFICIENCY.update(factors)


def medians(rows):
    thr = [abs(r - 1) for _, k, r in rows if k == "throughput"]
    time = [abs(r - 1) for _, k, r in rows if k == "time"]
    return statistics.median(thr), statistics.median(time)


SHARED_FACTOR_GRID = (0.76, 0.80)
SHARED_JITTER_GRID = (0.0, 0.04, 0.06, 0.07, 0.08, 0.09, 0.1, 0.12)


def main() -> int:
    """One factor shared by every framework and the step overhead, fitted together on the
    throughput and time medians of all calibration rows (the choice in throughput.py); then,
    for comparison, factors refitted per framework to centre throughput alone."""
    best = None
    for factor in SHARED_FACTOR_GRID:
        for jitter in SHARED_JITTER_GRID:
            throughput.STEP_JITTER_NODE_S = jitter
            set_constants(UNFUSED_DEFAULT, dict.fromkeys(throughput.FRAMEWORK_EFFICIENCY, factor), 0.0)
            thr, time = medians(ratios())
            print(
                f"shared factor {factor}, step jitter {jitter} s x ln(servers): throughput {thr:.1%}, time {time:.1%}"
            )
            if best is None or thr + time < best[0]:
                best = (thr + time, factor, jitter)
    print("best shared:", best)
    if "--per-framework" in sys.argv:
        per_framework()
    if "--memory" in sys.argv:
        allocator_cache()
    return 0


CACHE_GRID = (0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6)


def allocator_cache() -> None:
    rows = [c for c in MEMORY_CASES + POINT_MEMORY_CASES if c.reading != "torch"]
    best = None
    for cache in CACHE_GRID:
        memory.ALLOCATOR_CACHE = cache
        estimate._best_layout.cache_clear()
        med = statistics.median(abs(accuracy.ours_memory(c) / c.measured_gb - 1) for c in rows)
        print(f"allocator cache {cache}: median error {med:.1%} over {len(rows)} reserved and nvidia-smi rows")
        if best is None or med < best[0]:
            best = (med, cache)
    print("best allocator cache:", best)


UNFUSED_DEFAULT = 2.0


def per_framework() -> None:
    start = dict(throughput.FRAMEWORK_EFFICIENCY)
    best = None
    for passes, overhead in [(p, o) for p in PASSES_GRID for o in OVERHEAD_GRID]:
        factors = dict(start)
        set_constants(passes, factors, overhead)
        for _ in range(2):  # refit twice: the layouts the search picks move with the factors
            by_fw = defaultdict(list)
            for fw, kind, r in ratios():
                if kind == "throughput":
                    by_fw[fw].append(r)
            for fw, rs in by_fw.items():
                factors[fw] = round(factors[fw] / statistics.median(rs), 3)
            set_constants(passes, factors)
        thr, time = medians(ratios())
        print(f"passes {passes}, step overhead {overhead} s: throughput {thr:.1%}, time {time:.1%}, factors {factors}")
        if best is None or thr + time < best[0]:
            best = (thr + time, passes, overhead, factors)
    print("best per framework:", best)


if __name__ == "__main__":
    raise SystemExit(main())
