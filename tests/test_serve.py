"""`gpu-advisor serve` as deployed: gunicorn with two worker processes that ack, and the `work`
process beside it that plans (bot/host.py), over one SQLite file."""

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from conftest import BOT_TOKEN, ROOT, SECRET


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served(fake_slack, tmp_path):
    port = _free_port()
    env = dict(
        os.environ,
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_URL=fake_slack.url,
        PORT=str(port),
        WEB_CONCURRENCY="2",
        GPU_ADVISOR_DB=str(tmp_path / "web.db"),
        PYTHONPATH=str(ROOT),
        GPU_ADVISOR_BIND="127.0.0.1",  # this host alone (it had been every interface, always)
    )
    log = open(tmp_path / "serve.log", "w+")
    proc = subprocess.Popen(
        [sys.executable, "-m", "advisor.cli", "serve"], env=env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path
    )
    url = f"http://127.0.0.1:{port}"
    # a start-up wait, not a timing: on a loaded two-core machine gunicorn, its two workers and the
    # planning process took over a minute to come up (fresh-clone CI, 2026-12-05)
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2) as resp:
                if resp.status == 200:
                    break
        except OSError:
            time.sleep(0.3)
    else:
        proc.kill()
        log.seek(0)
        raise AssertionError("serve did not come up: " + log.read())
    yield url, tmp_path / "web.db", log
    proc.terminate()
    # serve lets its work process finish the job under way (bot/host.py STOP_S, 35 s)
    proc.wait(timeout=60)
    log.close()


def _listening(port: int) -> set[str]:
    """The IPv4 addresses a socket listens on at `port` (the kernel's table, /proc/net/tcp)."""
    found = set()
    with open("/proc/net/tcp") as table:
        for row in list(table)[1:]:
            local, state = row.split()[1], row.split()[3]
            address, at = local.split(":")
            if state == "0A" and int(at, 16) == port:  # LISTEN
                found.add(socket.inet_ntoa(bytes.fromhex(address)[::-1]))
    return found


@pytest.mark.slow  # starts gunicorn; waits on real time for a duplicate reply that must not come
def test_two_workers_one_database_reply_once(served, fake_slack):
    from slack_client import SlackSender

    from bot import conversations

    url, db, log = served
    # GPU_ADVISOR_BIND: gunicorn listens on that address alone
    assert _listening(int(url.rsplit(":", 1)[1])) == {"127.0.0.1"}
    fake_slack.reset()
    sender = SlackSender(url, SECRET, fake_slack)
    status, _ = sender.command("7b lora 20GB 3d")
    assert status == 200
    fake_slack.wait_for("chat.postMessage", 1, timeout=90)  # the card alone
    deadline = time.time() + 30
    while time.time() < deadline and not conversations.recent("T1", path=str(db)):
        time.sleep(0.1)
    thread = conversations.recent("T1", path=str(db))[0].key.split(":")[2]
    fake_slack.reset()
    (_, _), event = sender.thread_message("what if 30 days?", thread, event_id="EvTwice")
    # Slack retries land on whichever worker is free: send the same event several times
    for n in (1, 2, 3):
        sender.event(event, event_id="EvTwice", headers={"X-Slack-Retry-Num": str(n)})
    # a wait for the answer, not a timing: under the whole suite's load this what-if took 98 s to
    # plan (fresh-clone CI, 2026-12-06), alone 7 s
    fake_slack.wait_for("chat.postMessage", 1, timeout=180)
    time.sleep(3)  # the planners are in the `work` process beside gunicorn: nothing to drain from here
    assert len(fake_slack.calls_of("chat.postMessage")) == 1
    log.seek(0)
    text = log.read()
    assert BOT_TOKEN not in text and SECRET not in text
    # Bolt's boot warning that the token "will be unused" (it is used, through our client) misled
    # an operator: dropped (bot/logs.py)
    assert "will be unused" not in text
    # every line names its host and process, gunicorn's own too (they had named neither the host
    # nor, in our format, the process)
    host = re.escape(os.uname().nodename)
    assert re.search(rf"\n\S+ \S+ {host}\[\d+\] INFO gunicorn\.error: Booting worker", text)
    assert re.search(rf"\n\S+ \S+ {host}\[\d+\] INFO gpu_advisor\.bot: web process", text)
    # gunicorn sends the ack, then each request's line is written (bot/acks.py): the command, the
    # event and its retries (answered once: replays)
    assert re.search(
        r"slack command /gpu team T1 on \S+:\d+: queued plan job \d+ command:T1:trigger\w+; acked in", text
    )
    assert re.search(r"slack event message team T1 on \S+:\d+: queued follow job \d+ message:T1:C1:", text)
    assert len(re.findall(r"slack event message team T1 on \S+: replay: already answered", text)) == 3


def test_serve_and_socket_say_what_to_set(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLACK_")}
    env["PYTHONPATH"] = str(ROOT)
    for mode, needed in (("serve", "SLACK_SIGNING_SECRET"), ("socket", "SLACK_APP_TOKEN")):
        out = subprocess.run(
            [sys.executable, "-m", "advisor.cli", mode],
            env=env,
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=60,
        )
        assert out.returncode == 2
        assert "SLACK_BOT_TOKEN" in out.stderr and needed in out.stderr and "export" in out.stderr
        assert "Traceback" not in out.stderr


@pytest.mark.parametrize("args", [["work"], ["clock"], ["digest", "--post"]])
def test_work_and_clock_refuse_to_start_without_a_way_to_post(tmp_path, args):
    # a `work` started without Slack credentials had logged "taking jobs", then failed every job
    # it took without a word; a clock had skipped every due channel silently
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLACK_")}
    env |= {"PYTHONPATH": str(ROOT), "GPU_ADVISOR_DB": str(tmp_path / "db.sqlite")}
    out = subprocess.run(
        [sys.executable, "-m", "advisor.cli", *args], env=env, capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert out.returncode == 2, out.stderr
    assert "SLACK_BOT_TOKEN" in out.stderr and "SLACK_CLIENT_ID" in out.stderr and "Traceback" not in out.stderr
    # refused before anything: `digest --post` had printed the whole digest first (operator probe)
    assert out.stdout == "" and not (tmp_path / "db.sqlite").exists()


@pytest.mark.parametrize(
    "env,cpus,expected,host_work",
    [
        ({}, 2, 1, 2),
        ({"WEB_CONCURRENCY": "2"}, 2, 1, 2),
        ({"WEB_CONCURRENCY": "2"}, 9, 4, 8),
        ({"WEB_CONCURRENCY": "1"}, 4, 3, 3),
        ({"WEB_CONCURRENCY": "1"}, 64, 4, 4),
        ({"GPU_ADVISOR_PLAN_WORKERS": "6", "WEB_CONCURRENCY": "2"}, 2, 6, 12),
    ],
)
def test_planning_pools_leave_one_cpu_for_the_acks(monkeypatch, env, cpus, expected, host_work):
    from bot import host, planner_pool

    for name in ("WEB_CONCURRENCY", "GPU_ADVISOR_PLAN_WORKERS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(os, "cpu_count", lambda: cpus)
    assert planner_pool.planners() == expected
    # a `serve` that plans runs them in its one `work` process: as many as its web workers (2
    # unless WEB_CONCURRENCY says) would each have had, together
    monkeypatch.setenv("WEB_CONCURRENCY", env.get("WEB_CONCURRENCY", "2"))
    assert host.planners() == host_work


@pytest.mark.slow  # starts gunicorn twice
def test_two_serves_on_one_machine_keep_their_own_gunicorn_control_sockets(fake_slack, tmp_path):
    # gunicorn 25.1+ made one control socket per user (~/.gunicorn/gunicorn.ctl): a second serve
    # removed the first's and took its path, and whichever stopped first removed the other's
    import tempfile
    from pathlib import Path

    control = pytest.importorskip("gunicorn.ctl.client")
    # a short home: a Unix socket's path holds about 100 bytes, and tmp_path under xdist is longer
    home = Path(tempfile.mkdtemp(prefix="ga-home-", dir="/tmp"))
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_RUNTIME_DIR", "DATABASE_URL")}
    env |= dict(
        HOME=str(home),
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_URL=fake_slack.url,
        WEB_CONCURRENCY="1",
        GPU_ADVISOR_PLAN="0",
        GPU_ADVISOR_DB=str(tmp_path / "web.db"),
        PYTHONPATH=str(ROOT),
    )
    serves = []
    try:
        for name in ("a", "b"):
            port = _free_port()
            log = open(tmp_path / f"serve-{name}.log", "w+")
            proc = subprocess.Popen(
                [sys.executable, "-m", "advisor.cli", "serve"],
                env=dict(env, PORT=str(port)),
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=tmp_path,
            )
            serves.append((proc, port, log))
            deadline = time.time() + 90
            while time.time() < deadline:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as resp:
                        if resp.status == 200:
                            break
                except OSError:
                    time.sleep(0.3)
            else:
                log.seek(0)
                raise AssertionError(f"serve {name} did not come up: " + log.read()[-3000:])

        def master_pid(port):
            path = home / ".gunicorn" / f"gpu-advisor-{port}.ctl"
            deadline = time.time() + 30
            while not path.exists() and time.time() < deadline:
                time.sleep(0.2)
            with control.ControlClient(str(path), timeout=10) as client:
                return client.send_command("show stats")["pid"]

        (a, port_a, _), (b, port_b, _) = serves
        assert master_pid(port_a) == a.pid and master_pid(port_b) == b.pid  # each answers for itself
        assert not (home / ".gunicorn" / "gunicorn.ctl").exists()
        a.terminate()
        a.wait(timeout=30)
        assert not (home / ".gunicorn" / f"gpu-advisor-{port_a}.ctl").exists()
        assert master_pid(port_b) == b.pid  # the other's is still there, still its own
    finally:
        for proc, _, log in serves:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=30)
            log.close()
        shutil.rmtree(home, ignore_errors=True)


def test_a_control_socket_path_too_long_for_a_unix_socket_goes_to_the_temp_folder(monkeypatch, tmp_path):
    import tempfile

    from bot.web import UNIX_PATH_MAX, control_socket

    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("HOME", "/srv/home")
    assert control_socket(3000) == "/srv/home/.gunicorn/gpu-advisor-3000.ctl"
    deep = "/srv/" + "x" * 120
    monkeypatch.setenv("HOME", deep)
    path = control_socket(3000)
    assert path == f"{tempfile.gettempdir()}/gpu-advisor-{os.getuid()}-3000.ctl" and len(path) <= UNIX_PATH_MAX
    runtime = tmp_path / "run"
    runtime.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert control_socket(3001) == str(runtime / "gpu-advisor-3001.ctl")


@pytest.mark.slow  # starts gunicorn; times a request behind a lingering close
def test_a_client_keeping_its_socket_open_does_not_hold_the_other_requests(fake_slack, tmp_path):
    """gunicorn 26+ closes a `Connection: close` answer by sending its FIN and reading until the
    client closes too, up to 2 s, in the loop that accepts every connection of the worker: a
    client that reads its answer and keeps its socket open held each other request 1.8-1.9 s
    (docs/reliability.md). With one web worker, a /healthz sent right behind such a client is
    answered in well under a second (bot/web.py CLOSE_LINGER_S)."""
    port = _free_port()
    env = dict(
        os.environ,
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_URL=fake_slack.url,
        PORT=str(port),
        WEB_CONCURRENCY="1",
        GPU_ADVISOR_DB=str(tmp_path / "web.db"),
        PYTHONPATH=str(ROOT),
    )
    with open(tmp_path / "serve.log", "w+") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "advisor.cli", "serve"], env=env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path
        )
        try:
            url = f"http://127.0.0.1:{port}/healthz"
            deadline = time.time() + 60
            while time.time() < deadline:
                try:
                    with urllib.request.urlopen(url, timeout=2):
                        break
                except OSError:
                    time.sleep(0.3)
            held = []
            for _ in range(3):
                lingering = socket.create_connection(("127.0.0.1", port))
                lingering.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                # a whole answer, 200 or, on a loaded machine, 503 for a planner's late heartbeat:
                # what is timed is the request behind it
                assert lingering.recv(4096).startswith((b"HTTP/1.1 200", b"HTTP/1.1 503"))
                time.sleep(0.2)  # the worker's loop is in the close by now
                start = time.monotonic()
                try:
                    with urllib.request.urlopen(url, timeout=5) as resp:
                        assert resp.status == 200
                except urllib.error.HTTPError as answered:
                    assert answered.code == 503
                held.append(time.monotonic() - start)
                lingering.close()
            assert max(held) < 0.8, held
        finally:
            proc.terminate()
            proc.wait(timeout=30)


@pytest.mark.parametrize("args", [["serve"], ["serve", "--no-plan"]])
def test_a_serve_on_a_port_in_use_stops_at_once_saying_so(tmp_path, args):
    # operator probe: a second serve looped on gunicorn's "Connection in use" and exited 1
    import socket

    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        env |= {"PYTHONPATH": str(ROOT), "GPU_ADVISOR_DB": str(tmp_path / "db.sqlite"), "PORT": str(port)}
        env |= {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s", "SLACK_API_URL": "http://127.0.0.1:9/api/"}
        out = subprocess.run(
            [sys.executable, "-m", "advisor.cli", *args],
            env=env,
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=60,
        )
    assert out.returncode == 2 and f"port {port} is in use" in out.stderr and "Traceback" not in out.stderr
    assert not (tmp_path / "db.sqlite").exists()


def test_a_work_process_stopped_by_an_operator_says_so(tmp_path, fake_slack):
    # operator probe: `work` logged nothing when it stopped on SIGTERM
    import signal

    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env |= {"PYTHONPATH": str(ROOT), "GPU_ADVISOR_DB": str(tmp_path / "db.sqlite"), "SLACK_API_URL": fake_slack.url}
    env |= {"SLACK_BOT_TOKEN": "xoxb-1", "GPU_ADVISOR_PLAN_WORKERS": "1", "GPU_ADVISOR_PLAN_PRIORITY": "normal"}
    log = open(tmp_path / "work.log", "w+")
    proc = subprocess.Popen(
        [sys.executable, "-m", "advisor.cli", "work"], env=env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path
    )
    try:
        deadline = time.time() + 90
        while "taking jobs" not in (tmp_path / "work.log").read_text() and time.time() < deadline:
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        log.close()
    assert re.search(r"worker \S+ stopping on SIGTERM", (tmp_path / "work.log").read_text())
