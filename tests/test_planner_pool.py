"""The planning processes' priority (GPU_ADVISOR_PLAN_PRIORITY): idle by default, so a host's acks
never wait behind planning; low or normal where a busy neighbour would starve idle planners."""

from __future__ import annotations

import os
import sys

import pytest

from bot import planner_pool

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SCHED_IDLE is Linux's")


@pytest.fixture
def fresh_pool(monkeypatch):
    """A pool of its own, made for the priority the test sets, and stopped after."""

    def make(priority: str | None):
        if priority is None:
            monkeypatch.delenv("GPU_ADVISOR_PLAN_PRIORITY", raising=False)
        else:
            monkeypatch.setenv("GPU_ADVISOR_PLAN_PRIORITY", priority)
        monkeypatch.setenv("GPU_ADVISOR_PLAN_WORKERS", "1")
        monkeypatch.setattr(planner_pool, "_pool", None)
        monkeypatch.setattr(planner_pool, "_pool_pid", None)
        return planner_pool.pool()

    made = []
    yield lambda priority: made.append(make(priority)) or made[-1]
    for pool in made:
        pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize(
    ("priority", "policy", "niceness"),
    [(None, os.SCHED_IDLE, 0), ("idle", os.SCHED_IDLE, 0), ("low", os.SCHED_OTHER, 19), ("normal", os.SCHED_OTHER, 0)],
)
def test_planners_run_at_the_priority_asked(fresh_pool, priority, policy, niceness):
    pool = fresh_pool(priority)
    assert pool.submit(os.sched_getscheduler, 0).result(timeout=60) == policy
    assert pool.submit(os.nice, 0).result(timeout=60) == os.nice(0) + niceness


PARENT = """
import os, sys, time
sys.path.insert(0, os.getcwd())
from bot import planner_pool
print(planner_pool.pool().submit(os.getpid).result(timeout=60), flush=True)
time.sleep(120)
"""


def test_a_planner_dies_with_its_work_process_killed_hard(tmp_path):
    """kill -9 of the process that holds the pool (a `work` process) leaves no planner behind."""
    import signal
    import subprocess
    import time

    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT],
        stdout=subprocess.PIPE,
        text=True,
        cwd=os.getcwd(),
        env={**os.environ, "GPU_ADVISOR_PLAN_WORKERS": "1", "GPU_ADVISOR_PLAN_PRIORITY": "normal"},
    )
    try:
        planner = int(parent.stdout.readline())
        os.kill(planner, 0)  # alive while its parent is
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with open(f"/proc/{planner}/status") as status:
                    if "\nState:\tZ" in status.read():  # dead, not yet reaped by whoever adopted it
                        return
            except FileNotFoundError:
                return
            time.sleep(0.1)
        os.kill(planner, signal.SIGKILL)
        pytest.fail(f"planner {planner} outlived its parent")
    finally:
        parent.kill()
