"""Several hosts on one Postgres, with faults, and the same burst on SQLite on one host.

Run by hand:  python bench/multihost.py [--requests 500] [--concurrency 20] [--retried 0.1]
              [--latency 400] [--latency-only] [--sqlite-work] [--pause-work]
Results go into docs/reliability.md ("Several hosts").

On loopback: a throwaway PostgreSQL (tests/pg_cluster.py), the fake Slack Web API
(tests/slack_fake.py), two `gpu-advisor serve --no-plan` web hosts, two `gpu-advisor work`
planners and two `gpu-advisor clock` processes, all with DATABASE_URL. The burst: `--requests`
signed /gpu commands, `--concurrency` at a time, spread over both web hosts; a share of them is
sent again to the other host (a retry or replay that lands elsewhere). Mid-burst: kill -9 of one
web host (not restarted: a load balancer sends its traffic to the other), kill -9 of one planner
(not restarted), a Postgres restart, and every Postgres process stopped (SIGSTOP) for 8 s, the
longest answer to a request sent meanwhile reported. Then: every acked request answered exactly once (one
post carrying its job key), one digest per subscribed channel and day with both clocks running,
no SQLite file written. Before the burst, ack latency against a bare Bolt app in the same run
(`--latency` acks of each, in turns of 100; `--latency-only` measures that alone).
Then the same burst on SQLite with one `serve` (planning too, in the `work` process it starts
beside gunicorn; `--sqlite-work`: `serve --no-plan` beside a `work` started by hand) and one clock.
`--pause-work` stops the `work` processes while our acks are timed, as if they ran on machines of their own.
"""

from __future__ import annotations

import argparse
import collections
import http.client
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

import pg_cluster  # noqa: E402
from ack_latency import _port, _quiet, _summary, probe, request_text  # noqa: E402
from slack_client import SlackSender  # noqa: E402
from slack_fake import FakeSlack  # noqa: E402

SECRET = "bench-signing-secret"
TOKEN = "xoxb-bench-token"
CHANNELS = ["CDA", "CDB", "CDC", "CDD", "CDE"]
BUSY = ("database is busy", "数据库正忙")


def _env(fake_url: str, store: dict) -> dict:
    env = dict(
        os.environ,
        SLACK_BOT_TOKEN=TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_URL=fake_url,
        WEB_CONCURRENCY="1",
        WEB_THREADS="8",
        GPU_ADVISOR_PLAN_WORKERS="1",
        GPU_ADVISOR_JOB_LEASE_S="6",
        GPU_ADVISOR_SLACK_TIMEOUT="10",
        GPU_ADVISOR_CLOCK_INTERVAL_S="2",
        PYTHONPATH=str(ROOT),
    )
    env.pop("DATABASE_URL", None)
    env.update(store)
    return env


def _spawn(args: list[str], env: dict, log: Path, port: int | None = None) -> subprocess.Popen:
    env = dict(env, **({"PORT": str(port)} if port else {}))
    cmd = [sys.executable, "-m", "advisor.cli", *args]
    if port:
        proc = _start_logged(cmd, env, port, log)
    else:
        proc = subprocess.Popen(
            cmd, env=env, stdout=open(log, "a"), stderr=subprocess.STDOUT, cwd=log.parent, start_new_session=True
        )
    return proc


def _start_logged(cmd, env, port, log) -> subprocess.Popen:
    import urllib.request

    proc = subprocess.Popen(
        cmd, env=env, stdout=open(log, "a"), stderr=subprocess.STDOUT, cwd=log.parent, start_new_session=True
    )
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2)
            return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit(f"{cmd} did not start: see {log}")


def _start_bare(env, port, workers: int) -> subprocess.Popen:
    """The bare Bolt app under gunicorn (the web host's threads), in a session of its own (so
    that kill -9 of its group ends it)."""
    cmd = [sys.executable, "-m", "gunicorn", "-w", str(workers), "-k", "gthread", "--threads", "8"]
    cmd += ["-b", f"127.0.0.1:{port}", "bench.bare_app:create()"]
    log = Path(tempfile.gettempdir()) / f"gpu-advisor-bare-{port}.log"
    return _start_logged(cmd, dict(env, PORT=str(port)), port, log)


FREEZE_S = 8.0


def _freeze(pg_dir: Path, window: list) -> None:
    """Every process of the cluster stopped (SIGSTOP) for FREEZE_S and let go: a server that takes
    connections in the kernel's backlog and answers nothing (a frozen VM, a failover dropping
    packets). `window` gets (start, end) in wall-clock time."""
    postmaster = int((pg_dir / "data" / "postmaster.pid").read_text().split()[0])
    children = subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True, text=True).stdout.split()
    pids = [postmaster, *map(int, children)]
    start = time.time()
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        time.sleep(FREEZE_S)
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)
    window.append((start, time.time()))


def _freeze_note(burst: Burst, window: list) -> str:
    if not window:
        return "Postgres frozen: the fault did not run"
    start, end = window[0]
    during = [(ms, busy) for t, ms, busy in burst.tries if start <= t <= end]
    longest = max((ms for ms, _ in during), default=0.0)
    return (
        f"Postgres frozen (every process SIGSTOP) {end - start:.1f} s mid-burst: {len(during)} requests sent"
        f" in it, {sum(b for _, b in during)} told busy, the longest answer {longest:.0f} ms (Slack waits 3,000)"
    )


def _kill9(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _subscribe(env: dict) -> None:
    code = (
        "from bot import subscriptions as s\n"
        f"for c in {CHANNELS!r}:\n"
        "    s.subscribe(s.Subscription(workspace='T1', channel=c, lang='en', post_time='00:00'))\n"
    )
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=ROOT)


class Burst:
    """Signed /gpu commands over the live web hosts; which were acked, refused, lost."""

    def __init__(self, fake, urls: list[str]):
        self.fake, self.urls = fake, list(urls)
        self.alive = list(urls)
        self.acked: set[str] = set()
        self.refused = 0
        self.lost = 0
        self.replays = 0
        self.ms: list[float] = []
        self.tries: list[tuple[float, float, bool]] = []  # every send: when, how long (ms), refused busy
        self.bodies: dict[str, str] = {}
        self.lock = threading.Lock()

    def _send(self, url: str, body: bytes, retry: bool = False) -> tuple[int, str]:
        sender = SlackSender(url, SECRET, self.fake)
        return sender.post(body, "application/x-www-form-urlencoded")

    def one(self, i: int, retried: bool) -> None:
        trigger = f"bench{i}-{time.time_ns()}"
        form = {
            "command": "/gpu",
            "text": request_text(i),
            "channel_id": f"C{i % 7}",
            "user_id": f"U{i % 13}",
            "team_id": "T1",
            "response_url": self.fake.response_url(f"cmd-{trigger}"),
            "trigger_id": trigger,
        }
        body = urllib.parse.urlencode(form).encode()
        tried = 0
        while tried < 40:  # a refused request is sent again in a moment, as the user is asked to
            with self.lock:
                live = list(self.alive)
            url = live[(i + tried) % len(live)]
            t0 = time.perf_counter()
            try:
                status, text = self._send(url, body)
            except (OSError, http.client.HTTPException):  # refused, or cut off by the kill -9
                status, text = 0, ""
            ms = (time.perf_counter() - t0) * 1000
            with self.lock:
                self.tries.append((time.time() - ms / 1000, ms, status == 200 and any(b in text for b in BUSY)))
            if status == 200 and not any(b in text for b in BUSY):
                with self.lock:
                    self.acked.add(trigger)
                    self.bodies[trigger] = f"{url} {text[:60]}"
                    self.ms.append(ms)
                break
            if status == 200:
                with self.lock:
                    self.refused += 1
            tried += 1  # a load balancer sends it to the other host
            time.sleep(0.5)
        else:
            with self.lock:
                self.lost += 1
            return
        if retried:  # the same request again, on the other host (Slack's retry, a replay)
            with self.lock:
                other = [u for u in self.alive if u != url] or self.alive
            try:
                status, text = self._send(other[0], body)
                with self.lock:
                    self.replays += 1
            except (OSError, http.client.HTTPException):
                pass

    def run(self, n: int, concurrency: int, retried: float, faults: dict) -> None:
        every = max(1, int(1 / retried)) if retried else 0
        with ThreadPoolExecutor(concurrency) as pool:
            futures = []
            for i in range(n):
                for at, fault in list(faults.items()):
                    if i == at:
                        pool.submit(fault)
                        faults.pop(at)
                futures.append(pool.submit(self.one, i, bool(every) and i % every == 0))
                time.sleep(0.002)
            for f in futures:
                f.result()


def _answers(fake) -> collections.Counter:
    posts = collections.Counter()
    for c in fake.calls_of("chat.postMessage"):
        meta = c["args"].get("metadata")
        if isinstance(meta, str):
            import json

            meta = json.loads(meta)
        key = ((meta or {}).get("event_payload") or {}).get("key") or ""
        if key.startswith("command:T1:"):
            posts[key.split(":", 2)[2]] += 1
    for r in fake.responses:
        if r["id"].startswith("cmd-") and r.get("replace_original") in (True, "true"):
            posts[r["id"][4:]] += 1  # an error answer replaces the ack (e.g. a request it cannot plan)
    return posts


def _digests(fake) -> collections.Counter:
    import json

    seen = collections.Counter()
    for c in fake.calls_of("chat.postMessage"):
        meta = c["args"].get("metadata")
        meta = json.loads(meta) if isinstance(meta, str) else (meta or {})
        if meta.get("event_type") == "gpu_advisor_digest":
            seen[(c["args"]["channel"], (meta.get("event_payload") or {}).get("day"))] += 1
    return seen


def _wait_answered(fake, acked: set[str], limit_s: float) -> collections.Counter:
    deadline = time.time() + limit_s
    while time.time() < deadline:
        posts = _answers(fake)
        if all(posts[t] for t in acked):
            time.sleep(5)  # anything posted twice would land by now
            return _answers(fake)
        time.sleep(1)
    return _answers(fake)


def _dump(path: Path, fake, burst: Burst, posts: collections.Counter) -> None:
    import json

    unanswered = sorted(t for t in burst.acked if not posts[t])
    path.write_text(
        json.dumps(
            {
                "unanswered": {t: burst.bodies.get(t) for t in unanswered},
                "calls": fake.calls,
                "responses": fake.responses,
            },
            default=str,
            indent=1,
        )
    )


def _latency(url: str, fake, n: int, concurrency: int, first: int, store: str | None) -> list[float]:
    """Ack times of `n` /gpu, sent by a client process of its own: this process also runs the
    fake Slack, which parses the answers our planners post (the bare app posts none), and a
    client sharing its GIL timed ours 1.5 to 2 times slower than they were."""
    if store:
        _quiet(120, store)  # not timed while our planners still work on the previous requests
    return probe(url, fake.url, n, concurrency, first, SECRET)


LATENCY_BATCH = 100


def _latency_batches(
    bare: str, ours: str, fake, n: int, concurrency: int, first: int, store: str, paused: list | None = None
) -> tuple[list[float], list[float]]:
    """`n` acks of each app in batches of LATENCY_BATCH after 20 of each not timed (the first
    requests of a process open its connections), the two apps taking turns and each turn's
    order alternating, so that neither is timed only at one moment of the machine's load.
    `paused`: `work` processes stopped (SIGSTOP) while ours is timed and let go after, as if they
    ran on machines of their own (the jobs wait in the store meanwhile)."""
    _latency(bare, fake, 20, concurrency, first + 900, store)  # warm-up, as bench/ack_latency.py: not timed
    _latency(ours, fake, 20, concurrency, first + 950, store)
    lat_bare, lat_ours = [], []
    for r in range(max(1, n // LATENCY_BATCH)):
        batch = min(n, LATENCY_BATCH)
        for name in ("bare", "ours") if r % 2 == 0 else ("ours", "bare"):
            if name == "bare":
                lat_bare += _latency(bare, fake, batch, concurrency, first + r * 1000, store)
                continue
            _quiet(120, store)
            for proc in paused or []:
                os.killpg(proc.pid, signal.SIGSTOP)
            try:
                lat_ours += _latency(ours, fake, batch, concurrency, first + 5_000 + r * 1000, None)
            finally:
                for proc in paused or []:
                    os.killpg(proc.pid, signal.SIGCONT)
    return lat_bare, lat_ours


def _latency_note(engine: str, bare: list[float], ours: list[float]) -> str:
    (b50, b99), (o50, o99) = _summary(bare), _summary(ours)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"ack p99 on {engine}: bare Bolt {b99:.1f} ms, ours {o99:.1f} ms, ratio {o99 / b99:.2f}"
        f" (p50 {b50:.1f} and {o50:.1f} ms; load average after it {load})"
    )


def _report(name: str, burst: Burst, posts: collections.Counter, digests: collections.Counter, extra: str) -> str:
    answered_once = sum(1 for t in burst.acked if posts[t] == 1)
    twice = sum(1 for t in burst.acked if posts[t] > 1)
    missing = sum(1 for t in burst.acked if posts[t] == 0)
    _, p99 = _summary(burst.ms) if burst.ms else (0, 0)
    days = collections.Counter(ch for ch, _ in digests)
    return (
        f"| {name} | {len(burst.acked)} | {answered_once} | {twice} | {missing} | {burst.refused} | {burst.lost} |"
        f" {burst.replays} | {p99:.0f} | {sum(digests.values())} for {len(days)} channels"
        f" (max {max(digests.values(), default=0)} per channel and day) | {extra} |"
    )


def _postgres_run(args, work: Path, fake, rows: list, notes: list) -> None:
    """The several-hosts run on Postgres, with the faults mid-burst."""
    procs: list[subprocess.Popen] = []
    pg_dir = work / "pg"
    try:
        url = pg_cluster.start(pg_dir, durable=True)
        env = _env(fake.url, {"DATABASE_URL": url, "GPU_ADVISOR_DB": str(work / "must-not-exist.db")})
        subprocess.run([sys.executable, "-m", "advisor.cli", "migrate"], env=env, check=True, cwd=work)
        snapshot = ROOT / "tests" / "data" / "skypilot" / "2023-06-15.csv"
        subprocess.run(
            [sys.executable, "-m", "advisor.cli", "prices", "import", str(snapshot)],
            env=env,
            check=True,
            cwd=work,
            capture_output=True,
        )
        _subscribe(env)
        ports = [_port(), _port()]
        web = [_spawn(["serve", "--no-plan"], env, work / f"web{i}.log", ports[i]) for i in range(2)]
        workers = [_spawn(["work"], env, work / f"work{i}.log") for i in range(2)]
        clocks = [_spawn(["clock"], env, work / f"clock{i}.log") for i in range(2)]
        procs += web + workers + clocks
        bare_port = _port()
        bare = _start_bare(env, bare_port, 1)
        procs.append(bare)
        urls = [f"http://127.0.0.1:{p}" for p in ports]
        time.sleep(8)  # planners warm
        # Ack latency, before the faults: the bare app and web host A, taking turns.
        lat_bare, lat_ours = _latency_batches(
            f"http://127.0.0.1:{bare_port}",
            urls[0],
            fake,
            args.latency,
            args.concurrency,
            10_000,
            url,
            workers if args.pause_work else None,
        )
        notes.append(_latency_note("Postgres" + (", work paused" if args.pause_work else ""), lat_bare, lat_ours))
        _wait_answered(fake, set(), 1)
        early_digests = _digests(fake)  # the clocks post at their first round
        fake.reset()
        if args.latency_only:
            return

        burst = Burst(fake, urls)

        def kill_web():
            with burst.lock:
                burst.alive.remove(urls[1])
            _kill9(web[1])

        def restart_pg():
            pg_cluster.restart(pg_dir)

        frozen: list = []

        n = args.requests
        t0 = time.time()
        burst.run(
            n,
            args.concurrency,
            args.retried,
            {
                n // 4: kill_web,
                n // 2: lambda: _kill9(workers[0]),
                (3 * n) // 4: restart_pg,
                (7 * n) // 8: lambda: _freeze(pg_dir, frozen),
            },
        )
        notes.append(_freeze_note(burst, frozen))
        print(f"burst sent: {len(burst.acked)} acked, {burst.refused} refused, {burst.lost} lost", file=sys.stderr)
        posts = _wait_answered(fake, burst.acked, args.wait)
        time.sleep(5)
        counts = subprocess.run(
            [sys.executable, "-c", "from bot.job_queue import JobQueue; print(JobQueue().counts())"],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        notes.append(f"jobs on Postgres after the run: {counts.stdout.strip() or counts.stderr[-300:]}")
        _dump(work / "postgres-run.json", fake, burst, posts)
        rows.append(
            _report(
                "Postgres: 2 web, 2 work, 2 clocks",
                burst,
                posts,
                early_digests + _digests(fake),
                f"{time.time() - t0:.0f} s; SQLite file written: {(work / 'must-not-exist.db').exists()}",
            )
        )
    finally:
        for p in procs:
            _kill9(p)
        if not os.environ.get("BENCH_KEEP_PG"):
            pg_cluster.stop(pg_dir, "immediate")


def _sqlite_run(args, work: Path, fake, rows: list, notes: list) -> None:
    """The same burst on SQLite on one host."""
    procs: list[subprocess.Popen] = []
    try:
        env = _env(fake.url, {"GPU_ADVISOR_DB": str(work / "one-host.db")})
        sqlite_layout = "serve --no-plan and work" if args.sqlite_work else "serve plans"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "advisor.cli",
                "prices",
                "import",
                str(ROOT / "tests" / "data" / "skypilot" / "2023-06-15.csv"),
            ],
            env=env,
            check=True,
            cwd=work,
            capture_output=True,
        )
        _subscribe(env)
        port = _port()
        env1 = dict(env, WEB_CONCURRENCY="2", GPU_ADVISOR_PLAN_WORKERS="1")
        if args.sqlite_work:  # the several-hosts layout on one host: as many planners, in `work`
            procs.append(_spawn(["serve", "--no-plan"], env1, work / "sqlite-web.log", port))
            procs.append(_spawn(["work"], dict(env, GPU_ADVISOR_PLAN_WORKERS="2"), work / "sqlite-work.log"))
        else:
            procs.append(_spawn(["serve"], env1, work / "sqlite-web.log", port))
        procs.append(_spawn(["clock"], env, work / "sqlite-clock.log"))
        time.sleep(8)
        bare_port = _port()
        procs.append(_start_bare(env, bare_port, 2))
        lat_bare, lat_ours = _latency_batches(
            f"http://127.0.0.1:{bare_port}",
            f"http://127.0.0.1:{port}",
            fake,
            args.latency,
            args.concurrency,
            30_000,
            str(work / "one-host.db"),
            [procs[1]] if args.pause_work and args.sqlite_work else None,
        )
        paused = ", work paused" if args.pause_work and args.sqlite_work else ""
        notes.append(_latency_note(f"SQLite ({sqlite_layout}{paused})", lat_bare, lat_ours))
        _wait_answered(fake, set(), 1)
        early_digests = _digests(fake)
        fake.reset()
        if args.latency_only:
            return
        burst = Burst(fake, [f"http://127.0.0.1:{port}"])
        t0 = time.time()
        burst.run(args.requests, args.concurrency, 0, {})
        posts = _wait_answered(fake, burst.acked, args.wait)
        rows.append(
            _report(
                f"SQLite: 1 host ({sqlite_layout}, clock)",
                burst,
                posts,
                early_digests + _digests(fake),
                f"{time.time() - t0:.0f} s",
            )
        )
    finally:
        for p in procs:
            _kill9(p)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=500)
    ap.add_argument("--concurrency", type=int, default=20)
    ap.add_argument("--retried", type=float, default=0.1)
    ap.add_argument("--latency", type=int, default=200)
    ap.add_argument("--skip-sqlite", action="store_true")
    ap.add_argument("--latency-only", action="store_true", help="the ack latency alone: no burst, no faults")
    ap.add_argument("--sqlite-work", action="store_true", help="on SQLite, `serve --no-plan` and a `work` process plan")
    ap.add_argument("--skip-postgres", action="store_true")
    ap.add_argument(
        "--pause-work",
        action="store_true",
        help="stop the `work` processes while our acks are timed, as if they ran on other machines",
    )
    ap.add_argument("--wait", type=float, default=300, help="seconds to wait for every answer")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gpu-advisor-bench-"))
    work.chmod(0o755)  # the cluster runs as the user postgres
    fake = FakeSlack().start()
    rows, notes = [], []
    if not args.skip_postgres:
        _postgres_run(args, work, fake, rows, notes)
    if not args.skip_sqlite:
        fake.reset()
        fake.history.clear()
        _sqlite_run(args, work, fake, rows, notes)
    fake.stop()
    print(
        f"{args.requests} signed /gpu, {args.concurrency} at a time, {args.retried:.0%} sent again to the other host;"
        " faults on Postgres: kill -9 of web host B at 1/4 (not restarted), of a planner at 1/2, Postgres restart"
        " at 3/4\n"
    )
    print(
        "| run | acked | answered once | twice | not answered | refused busy | not acked | replays sent |"
        " burst ack p99 ms | digests | notes |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(r)
    print()
    for n in notes:
        print("- " + n)
    print(f"\nlogs: {work}")


if __name__ == "__main__":
    main()
