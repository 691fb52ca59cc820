"""Which processes are live, for supervisors: heartbeats in the shared store (bot/heartbeats.py),
`gpu-advisor health` and /healthz. On both engines (the `database` fixture), then as deployed:
`serve`, `work` and `clock` processes on one store, one of them killed."""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import pytest
from conftest import BOT_TOKEN, ROOT, SECRET
from slack_client import SlackSender


def _health(cli, *args, env=None):
    done = cli("health", *args, env=env)
    return done.returncode, done.stdout + done.stderr


def test_heartbeats_say_which_processes_are_live_and_well(database, cli):
    from advisor import db as dbmod
    from bot import heartbeats

    assert cli("migrate").returncode == 0
    code, out = _health(cli)
    assert code == 0 and "no process has written a heartbeat" in out
    assert _health(cli, "--need", "work")[0] == 1
    # a beat a second: a `health` subprocess on a loaded machine starts in over a second, and a
    # process is quiet after three missed beats (every 0.4 s had read it quiet under load)
    work = heartbeats.Heartbeat("work", every=1.0)
    ill = heartbeats.Heartbeat("work", check=lambda: "planner died", every=60)
    clock = heartbeats.Heartbeat("clock", every=60)
    assert work.beat() and ill.beat() and clock.beat()
    me = f"{os.uname().nodename}:{os.getpid()}"
    code, out = _health(cli, "--need", "work", "--need", "clock")
    assert code == 0, out
    assert f"work   {me}  up " in out and "PROBLEM: planner died" in out and "live and well: clock 1, work 1" in out
    # a process with a problem is live but does not count: two are needed, one is well
    code, out = _health(cli, "--need", "work=2")
    assert code == 1 and "need work 2: MISSING (1 live and well)" in out
    assert _health(cli, "--need", "serve")[0] == 1
    report = json.loads(cli("health", "--need", "clock", "--json").stdout)
    assert report["ok"] and report["database"] == "ok" and report["live"] == {"clock": 1, "work": 1}
    assert sorted((p["kind"], p["problem"], p["live"]) for p in report["processes"]) == [
        ("clock", "", True),
        ("work", "", True),
        ("work", "planner died", True),
    ]
    assert all(p["pid"] == os.getpid() and p["seen_s_ago"] < 30 for p in report["processes"])
    with dbmod.Database() as db:
        assert heartbeats.live_counts(db) == {"clock": 1, "work": 1}
    # a clean stop removes the row at once; a process that stops beating goes quiet after 3 beats
    clock.stop()
    time.sleep(3 * 1.0 + 0.3)
    code, out = _health(cli, "--need", "work")
    assert code == 1 and "(quiet: stopped or cut off)" in out and "clock" not in out
    with dbmod.Database() as db:
        assert heartbeats.live_counts(db) == {}
        # rows quiet for over a day are pruned by the next process that beats
        db.execute(
            "UPDATE process_heartbeats SET last_seen = last_seen - 200000, started_at = started_at - 200000"
            " WHERE problem = 'planner died'"
        )
    assert heartbeats.Heartbeat("serve", every=60).beat()
    with dbmod.Database() as db:
        assert db.execute("SELECT COUNT(*) FROM process_heartbeats WHERE problem <> ''").fetchone()[0] == 0


def test_a_planning_serve_judges_the_work_process_of_its_own_host(database, cli):
    """/healthz of a `serve` that plans (bot/host.py): what the `work` rows of its host say."""
    from advisor import db as dbmod
    from bot import heartbeats

    assert cli("migrate").returncode == 0
    here = os.uname().nodename

    def trouble(host=here, parent=None):
        with dbmod.Database() as db:
            return heartbeats.planning_trouble(heartbeats.processes(db), host, parent)

    assert trouble() == "no planning process live on this host"
    heartbeats.Heartbeat("serve", every=60).beat()
    ill = heartbeats.Heartbeat("work", check=lambda: "planner died", every=60)
    assert ill.beat() and trouble() == "planning pool broken"
    stalled = heartbeats.Heartbeat("work", check=lambda: "dispatcher stalled", every=60)
    assert stalled.beat() and trouble() in ("planning pool broken", "dispatcher stalled")
    well = heartbeats.Heartbeat("work", every=60)
    assert well.beat() and trouble() == ""
    assert trouble("another-host") == "no planning process live on this host"
    # a second `serve` on this host judges only the `work` process its own supervisor started
    # (these rows carry this test's pid, whose parent is os.getppid())
    assert trouble(parent=os.getppid()) == ""
    assert trouble(parent=os.getpid()) == "no planning process live on this host"
    # a supervisor that saw its `work` child end removes that process's rows at once
    heartbeats.forget("work", os.getpid())
    assert trouble() == "no planning process live on this host"
    with dbmod.Database() as db:
        assert [p.kind for p in heartbeats.processes(db)] == ["serve"]


def test_a_clock_is_well_while_its_digest_rounds_go_well_and_keep_coming(database, cli, monkeypatch):
    from advisor import db as dbmod
    from bot import heartbeats

    monkeypatch.setenv("GPU_ADVISOR_CLOCK_GRACE_S", "20")
    assert cli("migrate").returncode == 0
    clock = heartbeats.Heartbeat("clock", every=60, rounds_every=30)
    work = heartbeats.Heartbeat("work", every=60)
    assert clock.beat() and work.beat()

    def report():
        done = cli("health", "--need", "clock", "--json")
        rounds = [p["last_round"] for p in json.loads(done.stdout)["processes"]]
        return done.returncode, rounds

    # just started, no round yet: well until its interval and the grace have passed
    assert report() == (0, [{"s_ago": None, "every_s": 30.0, "ok": True, "problem": ""}, None])
    assert clock.round_done("")
    code, (last, _) = report()
    assert code == 0 and last["ok"] and 0 <= last["s_ago"] < 10
    assert clock.round_done("digest run: database OperationalError")
    code, (last, _) = report()
    assert (
        code == 1
        and not last["ok"]
        and last["problem"] == "last digest round failed: digest run: database OperationalError"
    )
    code, out = _health(cli, "--need", "clock")
    assert code == 1 and "PROBLEM: last digest round failed: digest run: database OperationalError" in out
    assert "live and well: work 1" in out and "need clock 1: MISSING (0 live and well)" in out
    with dbmod.Database() as db:
        assert heartbeats.live_counts(db) == {"work": 1}
        assert [(r["pid"], r["ok"]) for r in heartbeats.clock_rounds(heartbeats.processes(db))] == [
            (os.getpid(), False)
        ]
    assert clock.round_done("") and report()[0] == 0
    # beating still, but its last round ended longer ago than its interval and the grace
    with dbmod.Database() as db:
        db.execute("UPDATE process_heartbeats SET round_at = round_at - 51 WHERE kind = 'clock'")
    code, (last, _) = report()
    assert code == 1 and last["problem"].startswith("no digest round ended for 5") and "(every 30 s)" in last["problem"]
    # no round at all since it started, longer ago than that
    with dbmod.Database() as db:
        db.execute("UPDATE process_heartbeats SET round_at = NULL, started_at = started_at - 51 WHERE kind = 'clock'")
    code, (last, _) = report()
    assert code == 1 and last["s_ago"] is None and "since it started" in last["problem"]
    monkeypatch.setenv("GPU_ADVISOR_CLOCK_GRACE_S", "100")
    assert report()[0] == 0  # within the grace after all


def test_a_store_made_before_clock_rounds_gets_their_columns_with_its_rows(database, cli):
    """A store at revision 0007 (process_heartbeats without the round columns, a row in it):
    `migrate` adds them and keeps the row, on both engines."""
    from advisor import db as dbmod
    from advisor import migrations
    from bot import heartbeats

    assert cli("migrate").returncode == 0
    assert heartbeats.Heartbeat("work", every=60).beat()
    with dbmod.Database() as db:
        for column in ("round_at", "round_every_s", "round_problem"):
            db.execute(f"ALTER TABLE process_heartbeats DROP COLUMN {column}")
        db.execute("UPDATE alembic_version SET version_num = '0007'")
    done = cli("migrate")
    assert done.returncode == 0 and f"from 0007 to revision {migrations.HEAD}" in done.stderr, done.stderr
    with dbmod.Database() as db:
        (work,) = heartbeats.processes(db)
    assert work.kind == "work" and work.round_every_s is None and work.well


def test_the_clock_says_how_each_round_ended(database, fake_slack, monkeypatch):
    """A real clock on the store, posting to the fake Slack: a round that posts is well; rounds
    after one whose every due post Slack refused say so until one posts again; a store that does
    not answer fails the round."""
    from advisor.market.imports import import_file
    from advisor.market.store import open_store
    from bot import digests, subscriptions
    from bot.clients import web_client
    from bot.settings import Settings

    db = open_store()
    import_file(db, str(ROOT / "tests" / "data" / "skypilot" / "2023-06-15.csv"))
    db.conn.close()
    fake_slack.reset()
    fake_slack.history.clear()
    client = web_client(Settings(api_url=fake_slack.url), "xoxb-clock-test")
    sub = subscriptions.Subscription(workspace="T1", channel="CR1", lang="en", post_time="00:00")
    subscriptions.subscribe(sub)

    def rounds(n):
        heard, stop = [], threading.Event()

        def on_round(problem):
            heard.append(problem)
            if len(heard) == n:
                stop.set()

        digests.clock(lambda team: client, interval=0.01, stop=stop, feeds=[], on_round=on_round)
        return heard

    fake_slack.fail("chat.postMessage", status=200, body={"ok": False, "error": "not_in_channel"})
    # the post refused; the next round finds the channel backing off and tries nothing
    assert rounds(2) == ["none of the 1 digests due was posted (not_in_channel)"] * 2
    with digests._opened() as store:
        store.execute("UPDATE digest_deliveries SET next_attempt_at = 0")
    assert rounds(1) == [""]  # posted on the retry
    assert len(fake_slack.top_level_posts("CR1")) == 2  # the refused post (the fake records it) and this
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("DATABASE_URL", f"postgresql://ops@127.0.0.1:{port}/db")
    (problem,) = rounds(1)
    assert problem.startswith("digest run: database ")


def test_health_fails_when_the_store_does_not_answer_and_refuses_unknown_kinds(cli, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, out = _health(cli, "--need", "work", env={"DATABASE_URL": f"postgresql://ops:pw-s3cret@127.0.0.1:{port}/db"})
    assert code == 1 and "NOT ANSWERING" in out and "could not reach the database" in out
    assert "pw-s3cret" not in out and "internal error" not in out
    code, out = _health(cli, env={"GPU_ADVISOR_DB": str(tmp_path / "never-made.db")})
    assert code == 1 and "no database file" in out and not (tmp_path / "never-made.db").exists()
    code, out = _health(cli, "--need", "wrk")
    assert code == 2 and "--need work or --need work=2, not 'wrk'" in out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow  # starts serve (gunicorn), work and clock processes
def test_serve_work_and_clock_beat_and_a_killed_worker_is_seen_gone(fake_slack, tmp_path):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env |= dict(
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_URL=fake_slack.url,
        PORT=str(port),
        WEB_CONCURRENCY="1",
        GPU_ADVISOR_PLAN_WORKERS="1",
        GPU_ADVISOR_HEARTBEAT_S="0.5",
        GPU_ADVISOR_DB=str(tmp_path / "ops.db"),
        PYTHONPATH=str(ROOT),
    )
    log = open(tmp_path / "procs.log", "w+")
    procs = {}

    def health(*need):
        done = subprocess.run(
            [sys.executable, "-m", "advisor.cli", "health", "--json", *need],
            env=env,
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=60,
        )
        return done.returncode, json.loads(done.stdout)

    def healthz():
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as resp:
            return json.loads(resp.read())

    try:
        subprocess.run([sys.executable, "-m", "advisor.cli", "migrate"], env=env, cwd=tmp_path, check=True)
        for name, args in (("serve", ["serve", "--no-plan"]), ("work", ["work"]), ("clock", ["clock"])):
            procs[name] = subprocess.Popen(
                [sys.executable, "-m", "advisor.cli", *args],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=tmp_path,
                start_new_session=True,
            )
        deadline = time.time() + 120
        code, report = health("--need", "serve", "--need", "work", "--need", "clock")
        while code != 0 and time.time() < deadline:
            time.sleep(0.5)
            code, report = health("--need", "serve", "--need", "work", "--need", "clock")
        log.seek(0)
        assert code == 0, (report, log.read()[-3000:])
        assert report["live"] == {"clock": 1, "serve": 1, "work": 1}
        pids = {p["kind"]: p["pid"] for p in report["processes"]}
        assert pids["work"] == procs["work"].pid and pids["clock"] == procs["clock"].pid
        assert healthz()["live"] == {"clock": 1, "serve": 1, "work": 1}
        # the clock's first round has ended, and went well (nothing subscribed)
        (clock,) = [p for p in report["processes"] if p["kind"] == "clock"]
        assert clock["last_round"]["ok"] and clock["last_round"]["every_s"] == 30
        (shown,) = healthz()["clocks"]
        assert shown["pid"] == procs["clock"].pid and shown["ok"] and shown["s_ago"] is not None
        assert all(p["last_round"] is None for p in report["processes"] if p["kind"] != "clock")
        ok = SlackSender(f"http://127.0.0.1:{port}", SECRET, fake_slack).command("7b lora 20GB 3d")[1]
        assert "the answer will appear in this channel in a few seconds" in ok
        os.killpg(procs["work"].pid, signal.SIGKILL)  # the planning host dies
        procs["work"].wait(timeout=30)
        deadline = time.time() + 20
        while health("--need", "work")[0] == 0 and time.time() < deadline:
            time.sleep(0.3)
        code, report = health("--need", "work", "--need", "clock")
        assert code == 1 and report["needs"] == [
            {"kind": "work", "at_least": 1, "live": 0, "ok": False},
            {"kind": "clock", "at_least": 1, "live": 1, "ok": True},
        ]
        assert [p["live"] for p in report["processes"] if p["kind"] == "work"] == [False]
        assert healthz()["live"] == {"clock": 1, "serve": 1}
        # with no planner alive the web host's ack says the request is queued, not that the answer
        # comes in a few seconds (operator review); the worker reads it at its beats, so at most a
        # beat after `health` saw it
        sender = SlackSender(f"http://127.0.0.1:{port}", SECRET, fake_slack)
        deadline = time.time() + 10
        while "no planner is running" not in (said := sender.command("7b lora 20GB 3d")[1]) and time.time() < deadline:
            time.sleep(0.5)
        assert "Queued `/gpu 7b lora 20GB 3d`, but no planner is running right now" in said
        # a web host stopped cleanly leaves no row behind (operator probe: its workers were listed
        # as "quiet: stopped or cut off" for an hour, their uptime growing)
        os.killpg(procs["serve"].pid, signal.SIGTERM)
        procs["serve"].wait(timeout=30)
        assert not [p for p in health()[1]["processes"] if p["kind"] == "serve"]
        # nor a clock (it had been listed for three beats, then as quiet), and it says why it stopped
        os.killpg(procs["clock"].pid, signal.SIGTERM)
        assert procs["clock"].wait(timeout=30) == 0
        assert not [p for p in health()[1]["processes"] if p["kind"] == "clock"]
        log.seek(0)
        assert "clock stopping on SIGTERM" in log.read()
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=30)
        log.close()
