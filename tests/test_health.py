"""Which processes are live, for supervisors: heartbeats in the shared store (bot/heartbeats.py),
`gpu-advisor health` and /healthz. On both engines (the `database` fixture), then as deployed:
`serve`, `work` and `clock` processes on one store, one of them killed."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from conftest import BOT_TOKEN, ROOT, SECRET


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
    work = heartbeats.Heartbeat("work", every=0.4)
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
    time.sleep(3 * 0.4 + 0.3)
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
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=30)
        log.close()
