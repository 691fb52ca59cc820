"""How long one hardware-given estimate takes after start-up (target: under 20 ms).

Run by hand:  python bench/speed.py
Parses and estimates each request many times in one process and prints the median and
95th percentile per request; the figures go into docs/accuracy.md.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from advisor.advice import advise  # noqa: E402

REQUESTS = [
    "65B pretrain 1.4T tokens seq 2048 on 2048xA100-80GB",
    "70B full-finetune 1TB 14d on 64xH800",
    "7b lora 20GB 3d on 1x4090",
    "70B qlora r=8 seq 2048 mbs 2 on 2xA100-40GB zero3 recompute full",
    "deepseek-v3 pretrain 1T tokens on 2048xH800",
    "13B 全量微调 200GB数据 7天 用H800",
]


def main(rounds: int = 30) -> None:
    advise(REQUESTS[0])  # start-up: catalogs, templates
    print("| request | median ms | p95 ms |")
    print("|---|---|---|")
    for text in REQUESTS:
        times = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            advise(text)
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        print(f"| `{text}` | {statistics.median(times):.1f} | {times[int(0.95 * len(times)) - 1]:.1f} |")


if __name__ == "__main__":
    main()
