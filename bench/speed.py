"""How long answers take after start-up.

Targets: a hardware-given estimate (parse + layout search) under 20 ms; a whole open
request (planner over every GPU in the market, infrastructure and costs) under 200 ms.
Run by hand:  python bench/speed.py
Each request runs many times in one process; the median and 95th percentile go into
docs/accuracy.md. Layout searches and roofline shapes are kept per shape
(advisor/engine/estimate.py SEARCHES_KEPT), so each request is timed twice: "first time", every
kept search and shape forgotten before each call (a model, setup and GPU nobody asked about
since start-up), and "again" (a thread's follow-up, or the next team with the same job).
"""

from __future__ import annotations

import statistics
import sys
import time
from contextlib import closing
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from advisor import catalog  # noqa: E402
from advisor.engine import estimate, roofline  # noqa: E402
from advisor.engine.estimate import best_layout  # noqa: E402
from advisor.market.prices import price_book  # noqa: E402
from advisor.market.store import open_store  # noqa: E402
from advisor.planning.advice import advise  # noqa: E402
from advisor.planning.engine_inputs import model_shape, training_setup  # noqa: E402
from advisor.request.parser import parse  # noqa: E402

REQUESTS = [
    "65B pretrain 1.4T tokens seq 2048 on 2048xA100-80GB",
    "70B full-finetune 1TB 14d on 64xH800",
    "7b lora 20GB 3d on 1x4090",
    "70B qlora r=8 seq 2048 mbs 2 on 2xA100-40GB zero3 recompute full",
    "deepseek-v3 pretrain 1T tokens on 2048xH800",
]
OPEN_REQUESTS = [
    "70B full-finetune 1TB 14d budget",
    "7b lora 20GB 3d",
    "13B 全量微调 200GB数据 7天 预算10万",
    "deepseek-v3 pretrain 2T tokens 60d",
]


def _estimate(text: str) -> None:
    req = parse(text)
    best_layout(model_shape(req), training_setup(req), catalog.get_gpu(req.gpu), req.gpu_count)


def _forget() -> None:
    estimate._best_layout.cache_clear()
    estimate._layout_fits.cache_clear()
    roofline._CACHE.clear()
    roofline._PARTS.clear()


def _time(fn, text: str, rounds: int, cold: bool) -> tuple[float, float]:
    times = []
    for _ in range(rounds):
        if cold:
            _forget()
        t0 = time.perf_counter()
        fn(text)
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * len(times)) - 1]


def main(rounds: int = 30) -> None:
    with closing(open_store()) as db:  # the shared prices of GPU_ADVISOR_DB, as the bot reads them
        book = price_book(db, None)
    advise(REQUESTS[0], book=book)  # start-up: catalogs, templates
    print("| request | what is timed | median ms | p95 ms |")
    print("|---|---|---|---|")
    for cold, when in ((True, "first time"), (False, "again")):
        for text in REQUESTS:
            med, p95 = _time(_estimate, text, rounds, cold)
            print(f"| `{text}` | estimate, {when} | {med:.1f} | {p95:.1f} |")
        for text in OPEN_REQUESTS:
            med, p95 = _time(lambda t: advise(t, book=book), text, rounds, cold)
            print(f"| `{text}` | whole answer (planner), {when} | {med:.1f} | {p95:.1f} |")


if __name__ == "__main__":
    main()
