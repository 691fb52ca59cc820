"""Issue #13, bot side: kill -9 under `gpu-advisor serve` as deployed (a supervisor with gunicorn
and one `work` process beside it, whose planning processes plan; one SQLite file,
bot/host.py). A dead planning process is replaced and /healthz says so while it is broken; a
`work` process killed mid-burst is started again and every acked request is answered once; a
server killed mid-burst and restarted on the same database answers every acked request exactly
once; a stopped or killed `serve` leaves no process behind."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import BOT_TOKEN, ROOT, SECRET

# kill -9 of real server processes and their restart: marked slow; they overlap the rest under xdist (.ci/run, README)
pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _health(url: str) -> int:
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=3) as resp:
            return resp.status
    except urllib.error.HTTPError as err:
        return err.code
    except OSError:
        return 0


class Served:
    def __init__(self, fake, db: Path, log_path: Path, **env):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        full = dict(
            os.environ,
            SLACK_BOT_TOKEN=BOT_TOKEN,
            SLACK_SIGNING_SECRET=SECRET,
            SLACK_API_URL=fake.url,
            PORT=str(self.port),
            WEB_CONCURRENCY="1",
            GPU_ADVISOR_PLAN_WORKERS="1",
            GPU_ADVISOR_DB=str(db),
            PYTHONPATH=str(ROOT),
            GPU_ADVISOR_JOB_LEASE_S="4",
            GPU_ADVISOR_HEARTBEAT_S="0.5",  # /healthz reads the `work` process's beats
            **env,
        )
        self.log = open(log_path, "a+")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "advisor.cli", "serve"],
            env=full,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            cwd=db.parent,
            start_new_session=True,
        )
        deadline = time.time() + 90
        while _health(self.url) != 200:
            if time.time() > deadline or self.proc.poll() is not None:
                self.kill()
                self.log.seek(0)
                raise AssertionError("serve did not come up: " + self.log.read()[-3000:])
            time.sleep(0.3)

    def descendants(self) -> list[int]:
        children: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
        found, todo = [], [self.proc.pid]
        while todo:
            pid = todo.pop()
            for child in children.get(pid, []):
                found.append(child)
                todo.append(child)
        return found

    def _running(self, *words: str) -> list[int]:
        out = []
        for pid in self.descendants():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if all(w in cmd for w in words) and "resource_tracker" not in cmd:
                out.append(pid)
        return out

    def planners(self) -> list[int]:
        return self._running("spawn_main")

    def work(self) -> list[int]:
        """The `work` process beside gunicorn."""
        return self._running("advisor.cli work")

    def kill(self):
        """kill -9 every process of the server (supervisor, gunicorn and its workers, the `work`
        process in its own group and its planners), as a host that dies."""
        every = self.descendants()
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for pid in every:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait(timeout=30)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # anything left of it
        except ProcessLookupError:
            pass
        self.log.close()


def _sender(url, fake):
    from slack_client import SlackSender

    return SlackSender(url, SECRET, fake)


def _burst_until_one_answered(server, fake, channels):
    """One signed /gpu per channel, 8 at a time, each acked; returns once the first is answered
    (60 s at most), so a kill lands mid-burst."""
    send = _sender(server.url, fake)
    with ThreadPoolExecutor(8) as ex:
        acks = list(ex.map(lambda c: send.command("7b lora 20GB 3d", channel=c), channels))
    assert all(status == 200 and "Planning" in body for status, body in acks)
    deadline = time.time() + 60
    while not any(_top_level(fake, c) for c in channels) and time.time() < deadline:
        time.sleep(0.02)


def _top_level(fake, channel):
    return [m for m in fake.history.get(channel, []) if not m.get("thread_ts")]


def test_killed_planners_are_replaced_and_healthz_says_so_meanwhile(fake_slack, tmp_path):
    fake_slack.reset()
    server = Served(fake_slack, tmp_path / "web.db", tmp_path / "serve.log")
    try:
        send = _sender(server.url, fake_slack)
        assert send.command("7b lora 20GB 3d", channel="CKILL0")[0] == 200
        deadline = time.time() + 90
        while not _top_level(fake_slack, "CKILL0") and time.time() < deadline:
            time.sleep(0.2)
        planners = server.planners()
        assert planners, "no planning process found"
        for pid in planners:
            os.kill(pid, signal.SIGKILL)
        seen = []
        deadline = time.time() + 5
        while time.time() < deadline and 503 not in seen:
            seen.append(_health(server.url))
            time.sleep(0.05)
        assert 503 in seen  # while the pool is broken this worker says it cannot plan
        for n in (1, 2, 3):
            status, body = send.command("7b lora 20GB 3d", channel=f"CKILL{n}")
            assert status == 200 and "Planning" in body
        deadline = time.time() + 120
        while time.time() < deadline and not all(_top_level(fake_slack, f"CKILL{n}") for n in (1, 2, 3)):
            time.sleep(0.2)
        assert all(len(_top_level(fake_slack, f"CKILL{n}")) == 1 for n in (1, 2, 3))
        deadline = time.time() + 10  # the `work` process's next beat says it is well again
        while _health(server.url) != 200 and time.time() < deadline:
            time.sleep(0.1)
        assert _health(server.url) == 200
        assert set(server.planners()).isdisjoint(planners)
    finally:
        server.stop()


def test_a_work_process_killed_mid_burst_is_started_again_and_every_acked_request_answered_once(fake_slack, tmp_path):
    fake_slack.reset()
    server = Served(fake_slack, tmp_path / "web.db", tmp_path / "serve.log")
    channels = [f"CWORK{n}" for n in range(16)]
    try:
        (work,) = server.work()
        _burst_until_one_answered(server, fake_slack, channels)
        os.killpg(work, signal.SIGKILL)  # the `work` process and its planners, mid-burst
        answered_at_kill = sum(bool(_top_level(fake_slack, c)) for c in channels)
        assert answered_at_kill < len(channels), "the burst ended before the kill: nothing to recover"
        seen, deadline = [], time.time() + 5
        while time.time() < deadline and 503 not in seen:
            seen.append(_health(server.url))
            time.sleep(0.05)
        assert 503 in seen  # nothing plans on this host until the new `work` process beats
        deadline = time.time() + 120
        while time.time() < deadline and not all(_top_level(fake_slack, c) for c in channels):
            time.sleep(0.3)
        time.sleep(5)  # room for any double (the lease is 4 s)
        assert {c: len(_top_level(fake_slack, c)) for c in channels} == dict.fromkeys(channels, 1)
        (again,) = server.work()
        assert again != work
        deadline = time.time() + 30
        while _health(server.url) != 200 and time.time() < deadline:
            time.sleep(0.2)
        assert _health(server.url) == 200
    finally:
        server.stop()


def _gone(pids: list[int], within_s: float) -> list[int]:
    """Those of `pids` still running after `within_s` seconds (a zombie is not running)."""
    deadline = time.time() + within_s
    while True:
        left = []
        for pid in pids:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                left.append(pid)
        if not left or time.time() > deadline:
            return left
        time.sleep(0.2)


def test_a_stopped_or_killed_serve_leaves_no_process_behind(fake_slack, tmp_path):
    fake_slack.reset()
    for how in (signal.SIGTERM, signal.SIGINT, signal.SIGKILL):
        server = Served(fake_slack, tmp_path / "web.db", tmp_path / f"serve-{how.name}.log")
        try:
            every = server.descendants()
            assert server.work() and server.planners()
            if how == signal.SIGTERM:  # gunicorn's in-place upgrade is refused, not a stop
                os.kill(server.proc.pid, signal.SIGUSR2)
                time.sleep(1)
                assert server.proc.poll() is None and _health(server.url) == 200
                server.log.seek(0)
                assert "SIGUSR2 ignored" in server.log.read()
            # SIGKILL: the supervisor alone dies; gunicorn and the `work` process notice it
            os.kill(server.proc.pid, how)
            code = server.proc.wait(timeout=60)
            assert code == (-9 if how == signal.SIGKILL else 0)
            assert _gone(every, 45) == [], how.name
        finally:
            server.stop()


def test_a_server_killed_mid_burst_answers_every_acked_request_once_after_restart(fake_slack, tmp_path):
    fake_slack.reset()
    db, log = tmp_path / "web.db", tmp_path / "serve.log"
    server = Served(fake_slack, db, log)
    channels = [f"CBURST{n}" for n in range(16)]
    try:
        _burst_until_one_answered(server, fake_slack, channels)
        server.kill()  # every process at once, mid-burst
    finally:
        server.stop()
    answered_before = sum(bool(_top_level(fake_slack, c)) for c in channels)
    assert answered_before < len(channels), "the burst ended before the kill: nothing to recover"
    server = Served(fake_slack, db, log)
    try:
        deadline = time.time() + 180
        while time.time() < deadline and not all(_top_level(fake_slack, c) for c in channels):
            time.sleep(0.3)
        time.sleep(5)  # room for any double
        counts = {c: len(_top_level(fake_slack, c)) for c in channels}
        assert counts == dict.fromkeys(channels, 1), counts

        def job_states() -> dict:
            script = (
                "import json, sqlite3, sys; db = sqlite3.connect(sys.argv[1]); print(json.dumps("
                'dict(db.execute("SELECT state, count(*) FROM bot_jobs GROUP BY state").fetchall())))'
            )
            out = subprocess.run([sys.executable, "-c", script, str(db)], capture_output=True, text=True, check=True)
            return json.loads(out.stdout)

        # A job the kill caught after its answer was posted waits for its lease to lapse; another
        # round then finds the posted answer by the job's key and closes it without posting again.
        deadline = time.time() + 90
        while (jobs := job_states()) != {"done": len(channels)} and time.time() < deadline:
            time.sleep(0.5)
        assert jobs == {"done": len(channels)}, jobs
        assert {c: len(_top_level(fake_slack, c)) for c in channels} == dict.fromkeys(channels, 1)
    finally:
        server.stop()
