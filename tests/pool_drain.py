"""Waiting for the bot's planning pool to finish what it was given, without sleeping.

`drain(pool)` submits one barrier job per worker process. Each barrier marks its arrival in a
scratch folder and waits until every barrier has arrived. The pool hands out jobs in order
and a worker runs one job at a time, so once all barriers run at the same time every worker
has finished every job submitted before them: whatever those jobs post to the fake Slack has
been recorded. No hook in the product: it uses only `ProcessPoolExecutor.submit`."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import uuid


def barrier(folder: str, parties: int, timeout: float) -> bool:
    """Runs in a planning process (it is imported there by name: tests/ is on the path the
    spawned processes inherit)."""
    with open(os.path.join(folder, uuid.uuid4().hex), "w"):
        pass
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(os.listdir(folder)) >= parties:
            return True
        time.sleep(0.002)
    return False


def drain(pool, timeout: float = 60.0) -> None:
    """Returns once every job submitted to `pool` before the call has finished."""
    parties = pool._max_workers  # a stdlib attribute since 3.2; the pool has no public one
    folder = tempfile.mkdtemp(prefix="drain-")
    try:
        futures = [pool.submit(barrier, folder, parties, timeout) for _ in range(parties)]
        if not all(f.result(timeout=timeout + 30) for f in futures):
            raise AssertionError("the planning pool did not drain: a job is still running")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
