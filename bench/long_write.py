"""SQLite on one host while something else writes for long (docs/reliability.md).

Run by hand:  python bench/long_write.py [--rows 120000]

A. Ten signed /gpu sent to `gpu-advisor serve` while `gpu-advisor prices import` writes a
   `--rows`-row SkyPilot snapshot into the same SQLite file: how many acks were refused as busy,
   and whether every acked request was answered exactly once.
B. No duplicate under a long write: with a 2 s job lease, five /gpu, then another process holds
   SQLite's write lock for 8 s (four leases) while they run; each answer must be posted once.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from ack_latency import _port, _start  # noqa: E402
from slack_client import SlackSender  # noqa: E402
from slack_fake import FakeSlack  # noqa: E402

SECRET = "bench-signing-secret"
BUSY = ("database is busy", "数据库正忙")


def _csv(path: Path, rows: int) -> None:
    with path.open("w") as f:
        f.write(
            "date,cloud,region,instance_type,gpu,gpu_count,vcpus,memory_gib,price_per_hour_usd,spot_price_per_hour_usd\n"
        )
        for i in range(rows):
            f.write(f"2023-06-20,aws,region-{i // 8},p4d.{i % 8}xlarge,A100,8,96,1152,{30 + i % 97 / 10:.2f},\n")


def _posts(fake) -> collections.Counter:
    """Answers per channel (each /gpu here is sent in a channel of its own)."""
    out = collections.Counter()
    for c in fake.calls_of("chat.postMessage"):
        meta = c["args"].get("metadata")
        meta = json.loads(meta) if isinstance(meta, str) else (meta or {})
        if meta.get("event_type") == "gpu_advisor_answer":
            out[c["args"]["channel"]] += 1
    return out


def _serve(fake, db: Path, work: Path, **env) -> tuple[subprocess.Popen, str]:
    port = _port()
    full = dict(
        os.environ,
        SLACK_BOT_TOKEN="xoxb-bench",
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_URL=fake.url,
        WEB_CONCURRENCY="2",
        GPU_ADVISOR_PLAN_WORKERS="1",
        GPU_ADVISOR_DB=str(db),
        PYTHONPATH=str(ROOT),
        PORT=str(port),
        **env,
    )
    full.pop("DATABASE_URL", None)
    return _start([sys.executable, "-m", "advisor.cli", "serve"], full, port), f"http://127.0.0.1:{port}"


def _wait(fake, keys: set[str], limit: float) -> collections.Counter:
    deadline = time.time() + limit
    while time.time() < deadline and not all(_posts(fake)[k] for k in keys):
        time.sleep(0.5)
    time.sleep(5)  # a second post would land by now
    return _posts(fake)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=120_000)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gpu-advisor-longwrite-"))
    fake = FakeSlack().start()
    out = []

    # A: a long import
    db = work / "a.db"
    big = work / "big.csv"
    _csv(big, args.rows)
    env = dict(os.environ, GPU_ADVISOR_DB=str(db), PYTHONPATH=str(ROOT))
    env.pop("DATABASE_URL", None)
    subprocess.run([sys.executable, "-m", "advisor.cli", "prices", "show", "--json"], env=env, capture_output=True)
    proc, url = _serve(fake, db, work)
    sender = SlackSender(url, SECRET, fake)
    time.sleep(5)
    t0 = time.time()
    imp = subprocess.Popen(
        [sys.executable, "-m", "advisor.cli", "prices", "import", str(big)], env=env, stderr=subprocess.PIPE, text=True
    )
    time.sleep(3)  # reading and checking done, writing under way (the import prints when it ends)
    acks, refused, keys, slow = 0, 0, set(), []
    for i in range(10):
        s0 = time.perf_counter()
        status, body = sender.command(f"7b lora {i + 1}GB 3d", channel=f"CW{i}")
        slow.append((time.perf_counter() - s0) * 1000)
        if status == 200 and not any(b in body for b in BUSY):
            acks += 1
            keys.add(f"CW{i}")
        else:
            refused += 1
        time.sleep(0.3)
    still = imp.poll() is None
    imp.wait()
    import_s = time.time() - t0
    posts = _wait(fake, keys, 300)
    once = sum(1 for k in keys if posts[k] == 1)
    out.append(
        f"A. {args.rows:,}-row import ({import_s:.0f} s; still writing after the tenth /gpu: {still}): "
        f"{acks} of 10 acked, {refused} refused busy, {once} answered once, "
        f"{sum(1 for k in keys if posts[k] > 1)} twice; slowest ack {max(slow):.0f} ms; import: "
        f"{imp.stderr.read().strip().splitlines()[-1] if imp.returncode == 0 else 'failed'}"
    )
    proc.terminate()
    proc.wait(timeout=60)

    # B: the write lock held for four leases while jobs run
    fake.reset()
    db = work / "b.db"
    proc, url = _serve(fake, db, work, GPU_ADVISOR_JOB_LEASE_S="2")
    sender = SlackSender(url, SECRET, fake)
    time.sleep(5)
    keys = set()
    for i in range(5):
        status, body = sender.command(f"13b lora {i + 1}GB 7d", channel=f"CL{i}")
        time.sleep(0.05)
    calls = fake.calls_of("chat.postMessage")
    locker = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import sqlite3, time\ndb = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
            "db.execute('BEGIN IMMEDIATE'); print('locked', flush=True); time.sleep(8); db.execute('ROLLBACK')\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    locker.stdout.readline()
    locker.wait()
    keys = {f"CL{i}" for i in range(5)}
    posts = _wait(fake, keys, 120)
    out.append(
        f"B. write lock held 8 s (four 2 s leases) while five /gpu ran ({len(calls)} posted before it): "
        f"{sum(1 for k in keys if posts[k])} answered, {sum(1 for k in keys if posts[k] == 1)} once, "
        f"{sum(1 for k in keys if posts[k] > 1)} "
        "twice"
    )
    proc.terminate()
    proc.wait(timeout=60)
    fake.stop()
    print("\n".join(out))
    print(f"logs: {work}")


if __name__ == "__main__":
    main()
