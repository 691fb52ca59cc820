"""The plans the planner chooses for open requests, for review (issue #14).

Run by hand:  python bench/plans.py  (prints a Markdown table for docs/accuracy.md)
Per request: the GPU and count, the layout and the framework that would run it, micro-batches
a step, days, MFU and the share of a step that communication leaves exposed. A reviewer
checks each row for a layout its framework cannot run.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from contextlib import closing  # noqa: E402

from advisor.market.prices import PriceBook, price_book  # noqa: E402
from advisor.market.store import open_store  # noqa: E402
from advisor.planning.advice import advise  # noqa: E402

OPEN_REQUESTS = [
    "1B pretrain 100B tokens 7d",
    "3B pretrain 1T tokens 30d usd",
    "7b lora 20GB 3d",
    "7b qlora 5GB 2d usd",
    "8B full-finetune 50GB 3d",
    "13B 全量微调 200GB数据 7天 预算10万",
    "34B full-finetune 200GB 7d usd",
    "70B full-finetune 1TB 14d budget",
    "70B full-finetune 1TB 14d usd",
    "70B lora 1TB 14d",
    "70B qlora 100GB 7d usd",
    "70B pretrain 2T tokens 60d",
    "180B pretrain 3T tokens 60d usd",
    "405B lora 50GB 5d usd",
    "405B pretrain 15T tokens 90d usd",
    "mixtral-8x7b full-finetune 100GB 7d",
    "qwen3-30b-a3b lora 50GB 3d",
    "deepseek-v3 pretrain 2T tokens 60d",
    "671B-A37B pretrain 14.8T tokens 60d fp8 on H800",
    "1T-A32B pretrain 10T tokens 90d usd",
]


def row(text: str, book: PriceBook) -> str:
    data = advise(text, book=book).to_json()
    p, t = data["plan"], data["training"]
    if p is None:
        return f"| `{text}` | no plan | | | | | | |"
    layout = f"tp{p['tp']} pp{p['pp']} dp{p['dp']} ep{p['ep']} ZeRO-{p['zero_stage']} {p['recompute']}"
    layout += f" grads {p['grad_reduce']}"
    schedule = p["pipeline_schedule"] + (f" v{p['virtual_stages']}" if p["virtual_stages"] > 1 else "")
    days = f"{t['days']:.1f}" if t["days"] else "–"
    mfu = f"{t['mfu']:.0%}" if t["mfu"] is not None else "–"
    comm = f"{t['exposed_comm_share']:.0%}" if t["exposed_comm_share"] is not None else "–"
    return (
        f"| `{text}` | {p['gpu_count']} x {p['gpu']} | {layout} | {p['framework']}, {schedule} | "
        f"{p['micro_batches_per_step']} x {p['micro_batch']} | {days} | {mfu} | {comm} |"
    )


def main() -> int:
    print("| request | GPUs | layout | framework, schedule | micro-batches x size | days | MFU | exposed comm |")
    print("|---|---|---|---|---|---|---|---|")
    with closing(open_store()) as db:  # GPU_ADVISOR_DB, seeded with the reference prices
        book = price_book(db, None)
    for text in OPEN_REQUESTS:
        print(row(text, book))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
