"""Price import and digest speed. Run by hand:  python bench/prices_bench.py [--offers N --dates N]

1. The real data: imports the 10 SkyPilot snapshots (tests/data/skypilot/) into a fresh
   database and builds the digest (with its headline) for every date.
2. A SYNTHETIC history, generated here only and never stored in the repository: one source
   named "synthetic-bench" with --dates daily snapshots of --offers made-up offers (clouds
   "synth-N"), on-demand and spot each, 1,000,000 observations by default. Each day about 2%
   of on-demand and 30% of spot prices move and 0.5% of offers come or go. It is written
   through the same validation and write path as a file import, then one digest is timed
   (target: under 2 s), and so are cheapest_now and the planner's price_book on that size.

Times are wall-clock; "peak RSS" is the process's peak resident memory so far
(resource.getrusage ru_maxrss), so it only grows from one line to the next.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from advisor.market import imports, layouts  # noqa: E402
from advisor.market.digest import cheapest_now, compute_digest, headline  # noqa: E402
from advisor.market.prices import price_book  # noqa: E402
from advisor.market.store import open_store, write_rows  # noqa: E402

SNAPSHOTS = Path(__file__).resolve().parent.parent / "tests" / "data" / "skypilot"
TARGET_S = 2.0


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def report(what: str, seconds: float) -> None:
    print(f"  {what:<52} {seconds * 1000:9.1f} ms   peak RSS {peak_mib():7.1f} MiB")


def real_snapshots(workdir: str) -> None:
    files = sorted(SNAPSHOTS.glob("*.csv"))
    print(f"Real SkyPilot snapshots: {len(files)} files from {SNAPSHOTS}")
    db = open_store(os.path.join(workdir, "real.db"))
    start = time.perf_counter()
    rows = written = 0
    for path in files:
        result = imports.import_file(db, path)
        rows += result.rows_read
        written += result.rows_written
    report(f"import {rows} rows -> {written} observations", time.perf_counter() - start)
    start = time.perf_counter()
    for path in files:
        imports.import_file(db, path)
    report("import all again (writes nothing)", time.perf_counter() - start)
    start = time.perf_counter()
    counts = []
    for path in files:
        d = compute_digest(db, path.stem)
        headline(d)
        counts.append(len(d.changes))
    elapsed = time.perf_counter() - start
    report(f"digest + headline for all {len(files)} dates ({sum(counts)} changes)", elapsed)
    print(f"  {'mean per date':<52} {elapsed / len(files) * 1000:9.1f} ms")
    start = time.perf_counter()
    cheapest_now(db, files[-1].stem)
    report("cheapest_now on the newest date", time.perf_counter() - start)
    db.conn.close()


def synthetic_csv_days(offers: int, dates: int, seed: int = 7):
    """Yield (date, records) per day for the synthetic source: made-up offers and prices."""
    rng = random.Random(seed)
    gpus = [g for g in layouts.SKYPILOT_GPUS if g != "H100"]
    live = {}
    next_id = 0

    def new_offer():
        nonlocal next_id
        i = next_id
        next_id += 1
        count = rng.choice([1, 2, 4, 8])
        base = rng.uniform(0.3, 4.0) * count
        key = (f"synth-{i % 10}", f"region-{(i // 10) % 25}", f"type-{i}")
        live[key] = [rng.choice(gpus), count, base, base * rng.uniform(0.3, 0.7) if rng.random() < 0.7 else None]

    for _ in range(offers):
        new_offer()
    day0 = time.mktime((2020, 1, 1, 12, 0, 0, 0, 0, -1))
    for n in range(dates):
        day = time.strftime("%Y-%m-%d", time.localtime(day0 + n * 86400))
        if n:
            for key in rng.sample(sorted(live), k=max(1, offers // 400)):
                del live[key]
            for _ in range(max(1, offers // 400)):
                new_offer()
            for o in live.values():
                if rng.random() < 0.02:
                    o[2] *= rng.uniform(0.8, 1.2)
                if o[3] is not None and rng.random() < 0.3:
                    o[3] *= rng.uniform(0.9, 1.1)
        header = list(layouts.SKYPILOT_COLUMNS)
        records = [(1, header)]
        for line, (key, (gpu, count, price, spot)) in enumerate(sorted(live.items()), start=2):
            records.append(
                (
                    line,
                    [
                        day,
                        *key,
                        gpu,
                        str(count),
                        str(8 * count),
                        str(64 * count),
                        f"{price:.6f}",
                        "" if spot is None else f"{spot:.6f}",
                    ],
                )
            )
        yield day, records


def synthetic_history(workdir: str, offers: int, dates: int) -> bool:
    total = offers * dates * 2
    print(
        f"\nSynthetic history (generated in this bench only): {dates} dates x {offers} offers x 2 kinds"
        f" = {total:,} observations"
    )
    db = open_store(os.path.join(workdir, "synthetic.db"))
    start = time.perf_counter()
    days = []
    for day, records in synthetic_csv_days(offers, dates):
        parsed = imports.parse_records(records, f"synthetic:{day}", origin="synthetic bench data")
        write_rows(db, parsed.rows, source="synthetic-bench")
        days.append(day)
    report("generate, validate and write", time.perf_counter() - start)
    count = db.execute("SELECT COUNT(*) FROM observations WHERE source = 'synthetic-bench'").fetchone()[0]
    size = os.path.getsize(os.path.join(workdir, "synthetic.db")) / 2**20
    print(f"  {count:,} observations stored, database file {size:.0f} MiB")
    ok = True
    for day in (days[-1], days[len(days) // 2]):
        start = time.perf_counter()
        d = compute_digest(db, day)
        elapsed = time.perf_counter() - start
        ok &= elapsed < TARGET_S
        report(f"digest {day}: {len(d.changes)} changes, {len(d.added)}+/{len(d.removed)}-", elapsed)
    start = time.perf_counter()
    headline(d)
    report("headline of that digest", time.perf_counter() - start)
    start = time.perf_counter()
    cheapest_now(db, days[-1])
    report("cheapest_now on the newest date", time.perf_counter() - start)
    start = time.perf_counter()
    price_book(db, None)
    report("price_book() (planner; not this module) on this size", time.perf_counter() - start)
    db.conn.close()
    print(f"\nDigest under {TARGET_S:g} s on {count:,} observations: {'yes' if ok else 'NO'}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offers", type=int, default=2500)
    parser.add_argument("--dates", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="prices-bench-") as workdir:
        real_snapshots(workdir)
        ok = synthetic_history(workdir, args.offers, args.dates)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
