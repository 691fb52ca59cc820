"""The planning processes: a process pool, at idle priority, in a `work` process (beside gunicorn
when `serve` plans, bot/host.py), so planning never takes the CPU or a GIL from the threads that
ack Slack within 3 seconds. What runs there takes and returns plain data (it crosses a process
boundary)."""

from __future__ import annotations

import ctypes
import logging
import multiprocessing
import os
import signal
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor

from bot import logs

log = logging.getLogger("gpu_advisor.bot")
_pool: ProcessPoolExecutor | None = None
_pool_pid: int | None = None
# Planning and posting run at a lower CPU priority than the web process, so acks keep their
# 3 seconds however much planning is queued.
BACKGROUND_NICE = 19


# GPU_ADVISOR_PLAN_PRIORITY: "idle" (the default) runs planning only when nothing else on the
# host wants a CPU, which keeps acks fast on a host that also serves Slack but lets any busy
# neighbour starve planning outright; "low" (nice 19) always gets a little CPU; "normal" is for a
# `work` host of its own, where nothing needs protecting (advisor/cli.py PLAN_PRIORITIES).
def priority() -> str:
    """The planning processes' priority the environment asks for (advisor/cli.py env_problem
    refuses any other word before a command runs)."""
    return (os.environ.get("GPU_ADVISOR_PLAN_PRIORITY") or "idle").strip().lower()


# prctl(2) option: the signal a process gets when its parent dies (linux/prctl.h).
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """A planning process ends when its `work` process does, even by kill -9 or the OOM killer,
    which run no clean-up that would stop the pool (they had been left running, adopted by
    init, about 150 MB each): Linux's parent-death signal. Elsewhere, nothing."""
    parent = os.getppid()
    try:
        if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL) != 0:
            return
    except (OSError, AttributeError):  # no prctl: not Linux
        return
    if os.getppid() != parent:  # the parent died before the signal was set
        os._exit(0)


def _init_process() -> None:
    _die_with_parent()
    wanted = priority()
    try:
        if wanted == "idle":
            # Linux SCHED_IDLE: run only when no web thread wants the CPU; elsewhere a high nice.
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        elif wanted == "low":
            os.nice(BACKGROUND_NICE)
    except (AttributeError, OSError):
        try:
            os.nice(BACKGROUND_NICE)
        except OSError:  # not permitted: run at normal priority
            pass
    logs.setup()


# Each planning process holds about 130 MB; four plan 25-100 requests a second, far more than a
# team's channel asks for, so bigger machines do not get dozens of idle ones.
MAX_PLANNERS = 4


def planners() -> int:
    """Planning processes per web process: GPU_ADVISOR_PLAN_WORKERS, else enough to use all
    CPUs but one, shared among the WEB_CONCURRENCY web processes, at least one and at most
    MAX_PLANNERS. Even at idle priority, planning on every CPU slowed acks measurably
    (docs/bench.md)."""
    if os.environ.get("GPU_ADVISOR_PLAN_WORKERS"):
        return max(1, int(os.environ["GPU_ADVISOR_PLAN_WORKERS"]))
    web = max(1, int(os.environ.get("WEB_CONCURRENCY") or 1))
    return min(MAX_PLANNERS, max(1, ((os.cpu_count() or 2) - 1) // web))


def broken() -> bool:
    """True when a planning process died (OOM killer, kill -9): the pool cannot plan."""
    if _pool is None or _pool_pid != os.getpid():
        return False
    if getattr(_pool, "_broken", False):
        return True
    processes = getattr(_pool, "_processes", None) or {}
    return any(not p.is_alive() for p in list(processes.values()))


def healthy() -> bool:
    """/healthz: this process's planners can plan (none died since the pool was made)."""
    return not broken()


def pool() -> ProcessPoolExecutor:
    """One pool per process (gunicorn forks workers: each makes its own, after the fork); a
    broken one (a planning process died) is replaced."""
    global _pool, _pool_pid
    if _pool is not None and _pool_pid == os.getpid() and broken():
        log.warning("a planning process died: replacing the planning pool")
        old, _pool = _pool, None
        try:
            old.shutdown(wait=False, cancel_futures=True)
        except Exception:  # already broken: nothing more to stop
            pass
    if _pool is None or _pool_pid != os.getpid():
        _pool = ProcessPoolExecutor(
            max_workers=planners(), mp_context=multiprocessing.get_context("spawn"), initializer=_init_process
        )
        _pool_pid = os.getpid()
    return _pool


def submit(fn, *args) -> Future:
    """Run a job (bot/tasks.py) in the pool and return at once. The job plans, posts and stores
    by itself: Bolt runs every listener on one small thread pool (slack_bolt
    listener_executor), and the web process's GIL is shared by every ack, so nothing heavy may
    happen there."""
    future = pool().submit(fn, *args)
    future.add_done_callback(_log_failure)
    return future


def _log_failure(future: Future) -> None:
    err = future.exception()
    if err is not None:
        log.error("background job failed: %s: %s", type(err).__name__, err)


def start(ready: Callable[[], object]) -> None:
    """Start every planning process now and run `ready` once in each (it loads what planning
    needs), so the first request does not wait for them."""
    for future in [pool().submit(ready) for _ in range(planners())]:
        future.result(timeout=120)
