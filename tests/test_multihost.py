"""Several hosts on one Postgres, as deployed: `gpu-advisor serve` (gunicorn, planning
processes) on two ports and `gpu-advisor work`, all with DATABASE_URL, against the fake Slack Web
API over loopback. A Slack retry that lands on the other host is answered once; a thread begun
through one host is answered through the other; a host killed with kill -9 and left down loses
nothing it acked (another process finishes its jobs, each answered once); no SQLite file is
written. Skipped, with the reason, where Postgres cannot be started."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import BOT_TOKEN, ROOT, SECRET

pytestmark = pytest.mark.slow


class Host:
    def __init__(self, fake, url: str, tmp: Path, name: str, *args: str, web: bool = True, **env):
        from test_reliability_kill import _free_port, _health

        self.port = _free_port() if web else 0
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(tmp / f"{name}.log", "a+")
        full = dict(
            os.environ,
            SLACK_BOT_TOKEN=BOT_TOKEN,
            SLACK_SIGNING_SECRET=SECRET,
            SLACK_API_URL=fake.url,
            PORT=str(self.port),
            WEB_CONCURRENCY="1",
            GPU_ADVISOR_PLAN_WORKERS="1",
            DATABASE_URL=url,
            GPU_ADVISOR_DB=str(tmp / "must-not-exist.db"),
            PYTHONPATH=str(ROOT),
            GPU_ADVISOR_JOB_LEASE_S="3",
            GPU_ADVISOR_SLACK_TIMEOUT="5",
            **env,
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "advisor.cli", *args],
            env=full,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            cwd=tmp,
            start_new_session=True,
        )
        deadline = time.time() + 120
        while web and _health(self.url) != 200:
            if time.time() > deadline or self.proc.poll() is not None:
                self.kill()
                self.log.seek(0)
                raise AssertionError(f"{name} did not come up: " + self.log.read()[-3000:])
            time.sleep(0.3)

    def kill(self):
        """kill -9 every process of the host: its session (a planning `serve` runs its `work`
        process in a process group of its own, bot/host.py)."""
        out = subprocess.run(["ps", "-o", "pid=", "-s", str(self.proc.pid)], capture_output=True, text=True).stdout
        for pid in [self.proc.pid, *map(int, out.split())]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait(timeout=30)


def _answers(fake) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in fake.calls_of("chat.postMessage"):
        meta = c["args"].get("metadata")
        meta = json.loads(meta) if isinstance(meta, str) else (meta or {})
        key = (meta.get("event_payload") or {}).get("key")
        if key:
            out[key] = out.get(key, 0) + 1
    return out


def _wait(predicate, limit=90.0):
    deadline = time.time() + limit
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.3)
    return False


@pytest.fixture
def postgres(tmp_path_factory):
    from conftest import drop_postgres, fresh_postgres

    try:
        url, server = fresh_postgres(tmp_path_factory)
    except RuntimeError as err:
        pytest.skip(f"Postgres could not be started: {err}")
    yield url
    drop_postgres(url, server)


def test_two_hosts_answer_once_share_threads_and_finish_a_dead_hosts_jobs(postgres, fake_slack, tmp_path):
    from slack_client import SlackSender

    fake_slack.reset()
    fake_slack.history.clear()
    done = subprocess.run(
        [sys.executable, "-m", "advisor.cli", "migrate"],
        env=dict(os.environ, DATABASE_URL=postgres, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    a = Host(fake_slack, postgres, tmp_path, "web-a", "serve")
    b = Host(fake_slack, postgres, tmp_path, "web-b", "serve", "--no-plan")
    hosts = [a, b]
    try:
        # the host that only acks starts no planning processes (idle, each ~180 MB, and one that
        # died had failed /healthz with nobody to replace it); the planning host does, in the
        # `work` process beside its gunicorn
        assert _wait(lambda: _planners(a), 60)
        assert not _planners(b)
        to_a, to_b = SlackSender(a.url, SECRET, fake_slack), SlackSender(b.url, SECRET, fake_slack)
        # 1. The same signed command on both hosts (Slack's retry, a replay): answered once.
        status, body = to_a.command("7b lora 20GB 3d", channel="CM1")
        assert status == 200 and body
        assert _wait(lambda: any(v for v in _answers(fake_slack).values()))
        ((key, count),) = _answers(fake_slack).items()
        assert count == 1
        # the replay: the same trigger id through the other host
        trigger = key.split(":")[2]
        replay = _replay(to_b, trigger, channel="CM1")
        assert replay == (200, "")
        time.sleep(2)
        assert _answers(fake_slack)[key] == 1

        # 2. A thread begun through host A, followed up through host B.
        ts = next(m["ts"] for m in fake_slack.history["CM1"] if not m.get("thread_ts"))
        status, _ = to_b.thread_message("what if 30 days?", thread_ts=ts, channel="CM1")[0]
        assert status == 200
        assert _wait(lambda: any(m.get("thread_ts") == ts for m in fake_slack.history.get("CM1", [])))

        # 3. Host A acks three commands and is killed at once, its planner mid-post; B only
        # enqueues. A `work` process started afterwards finishes them, each answered once.
        fake_slack.delay("chat.postMessage", 8, times=3)
        for i in range(3):
            assert to_a.command(f"13b lora {i + 1}GB 7d", channel=f"CK{i}")[0] == 200
        time.sleep(1.5)
        a.kill()
        worker = Host(fake_slack, postgres, tmp_path, "work", "work", web=False)
        hosts.append(worker)
        assert _wait(lambda: sum(1 for k, v in _answers(fake_slack).items() if k != key) >= 3, 120), _answers(
            fake_slack
        )
        time.sleep(3)
        later = {k: v for k, v in _answers(fake_slack).items() if k != key}
        assert len(later) == 3 and set(later.values()) == {1}, later
        assert not (tmp_path / "must-not-exist.db").exists()
    finally:
        for h in hosts:
            h.kill()
            h.log.close()


def _planners(host: Host) -> list[str]:
    """The planning processes (multiprocessing's spawned children) in a host's session."""
    out = subprocess.run(["ps", "-o", "args=", "-s", str(host.proc.pid)], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if "multiprocessing" in line]


def _replay(sender, trigger: str, channel: str) -> tuple[int, str]:
    """The command with `trigger` again (its first body is rebuilt: the same trigger id)."""
    import urllib.parse

    form = {
        "command": "/gpu",
        "text": "7b lora 20GB 3d",
        "channel_id": channel,
        "user_id": "U1",
        "team_id": "T1",
        "response_url": sender.fake.response_url("replay"),
        "trigger_id": trigger,
        "channel_name": "general",
        "user_name": "someone",
    }
    return sender.post(urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded")
