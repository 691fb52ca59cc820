"""One host alone: `gpu-advisor serve` that plans (the default) is this small supervisor with two
children side by side, gunicorn, whose web workers only ack and enqueue (`serve --no-plan`), and
one `gpu-advisor work` process, which plans. Planning inside the web workers (a dispatcher thread
and a planning pool in each) had put the ack p99 at 2-3 times a bare Bolt app's on a loaded host;
the same planners in a process of their own, 1.1-1.3 times (docs/reliability.md).

- The work process runs in its own process group, so a terminal's Ctrl-C reaches it only from
  here, as SIGTERM (a clean stop removes its heartbeat row). It has as many planning processes as
  the web workers had together (WEB_CONCURRENCY times GPU_ADVISOR_PLAN_WORKERS or its default).
- When it dies it is started again (at once, or after a growing pause while it keeps dying
  within QUICK_DEATH_S of its start), and its heartbeat row is removed at once: the web workers'
  /healthz answers 503 until the new one beats (bot/heartbeats.py `planning_trouble`).
- SIGTERM or SIGINT stops both (gunicorn gracefully, the work process after its running jobs);
  SIGHUP, SIGUSR1, SIGTTIN and SIGTTOU go to gunicorn. gunicorn ending for any reason ends the
  work process too, and `serve` exits with gunicorn's status. SIGUSR2 (gunicorn's binary upgrade:
  a new master beside the old one, which this supervisor would take for gunicorn ending) is
  refused with a warning rather than ending `serve` as its default action would; SIGHUP reloads.
- Neither outlives this process: the work process watches its parent (`work --parent`, once a
  second), and on Linux gunicorn gets SIGTERM when this process dies (PR_SET_PDEATHSIG)."""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import subprocess
import sys
import time

from bot import heartbeats, planner_pool

log = logging.getLogger("gpu_advisor.bot")
FORWARDED = (signal.SIGHUP, signal.SIGUSR1, signal.SIGTTIN, signal.SIGTTOU)
STOP_S = 35.0  # gunicorn's graceful timeout is 30 s; the work process finishes a few jobs
QUICK_DEATH_S = 30.0
MAX_PAUSE_S = 30.0
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "advisor.cli", *args]


def _die_with_parent() -> None:
    """In gunicorn's process before it starts (preexec_fn): SIGTERM when this supervisor dies."""
    try:
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # not Linux: no such call, gunicorn may outlive a kill -9
        pass


def planners() -> int:
    """The work process's planning processes: what the web workers had together before."""
    return int(os.environ["WEB_CONCURRENCY"]) * planner_pool.planners()


class _Work:
    """The `work` child, started again when it dies."""

    def __init__(self, env: dict):
        self.env, self.proc, self.started, self.quick, self.due = env, None, 0.0, 0, 0.0

    def start(self) -> None:
        self.proc = subprocess.Popen(_cli("work", "--parent", str(os.getpid())), env=self.env, process_group=0)
        self.started = time.monotonic()
        log.info("planning process %d started beside gunicorn", self.proc.pid)

    def check(self) -> None:
        """Start it again when it is due; notice it died."""
        now = time.monotonic()
        if self.proc is None:
            if now >= self.due:
                self.start()
            return
        code = self.proc.poll()
        if code is None:
            return
        heartbeats.forget("work", self.proc.pid)  # /healthz says it at once, not three beats later
        self.quick = self.quick + 1 if now - self.started < QUICK_DEATH_S else 0
        pause = min(MAX_PAUSE_S, 2.0 ** (self.quick - 1)) if self.quick else 0.0
        log.warning("planning process %d ended (status %s): starting another in %.0f s", self.proc.pid, code, pause)
        self.proc, self.due = None, now + pause

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(STOP_S)
        except subprocess.TimeoutExpired:
            log.warning("planning process %d did not stop in %.0f s: killed", self.proc.pid, STOP_S)
        try:  # it, and any planning process of its group left behind
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()


def run() -> int:
    """Run gunicorn (`serve --no-plan`) and one `work` process until a stop signal or gunicorn
    ends; gunicorn's exit status."""
    os.environ.setdefault("WEB_CONCURRENCY", "2")  # as bot/web.py serve: the planners are sized on it
    stop: list[int] = []
    web: subprocess.Popen | None = None

    def on_stop(signum, _frame):
        stop.append(signum)

    def forward(signum, _frame):
        if web is not None and web.poll() is None:
            web.send_signal(signum)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_stop)

    def refuse_upgrade(_signum, _frame):
        log.warning("SIGUSR2 ignored: serve does not upgrade gunicorn in place; send SIGHUP to reload")

    for sig in FORWARDED:
        signal.signal(sig, forward)
    signal.signal(signal.SIGUSR2, refuse_upgrade)
    work = _Work(dict(os.environ, GPU_ADVISOR_PLAN_WORKERS=str(planners())))
    work.start()
    # its web workers' /healthz judges the `work` process started here, by this pid
    web_env = dict(os.environ, GPU_ADVISOR_PLAN="0", **{heartbeats.SIBLING_ENV: str(os.getpid())})
    web = subprocess.Popen(_cli("serve", "--no-plan"), env=web_env, preexec_fn=_die_with_parent)
    try:
        while not stop and web.poll() is None:
            work.check()
            time.sleep(0.2)
    finally:
        if web.poll() is None:
            web.send_signal(stop[0] if stop else signal.SIGTERM)
        work.stop()
        try:
            code = web.wait(STOP_S)
        except subprocess.TimeoutExpired:
            web.kill()
            code = web.wait()
    log.info("serve stopped (gunicorn status %s)", code)
    if stop or code == 0:
        return max(code, 0)
    return code if code > 0 else 1  # gunicorn killed by a signal nobody sent through here
