"""The job store's contract (bot/job_queue.py), the small interface a server database would
implement: replays by key, atomic claims with a lease, takeover after a crash, a short busy
timeout in the ack path."""

import sqlite3
import subprocess
import sys
import time

import pytest


@pytest.fixture
def store(database):
    """The job store on a SQLite file, then on Postgres (the `database` fixture)."""
    from bot.job_queue import JobQueue

    jobs = JobQueue(database.path)
    jobs.ensure()
    jobs.kind = database.kind
    return jobs


def test_a_key_is_recorded_once(store):
    first = store.add("plan", {"text": "7b lora"}, key="command:T1:trigger1", team="T1")
    assert first is not None
    assert store.add("plan", {"text": "7b lora"}, key="command:T1:trigger1", team="T1") is None
    assert store.add("plan", {"text": "no key"}) != store.add("plan", {"text": "no key"})


def test_a_claim_is_taken_once_and_taken_over_when_its_lease_lapses(store):
    from bot.job_queue import lease_s

    job = store.add("plan", {"text": "7b lora"}, team="T1")
    (got,) = store.claim("worker-a", 5)
    assert got.id == job and got.attempts == 1 and got.args == {"text": "7b lora"}
    assert store.claim("worker-b", 5) == []  # running, lease held
    store.renew("worker-a", [job])
    # worker-a was killed: its lease lapses and worker-b takes the job, knowing it is a second try
    (again,) = store.claim("worker-b", 5, now=time.time() + lease_s() + 1)
    assert again.id == job and again.attempts == 2
    store.finish(job)
    assert store.claim("worker-c", 5, now=time.time() + 10 * lease_s()) == []
    assert store.counts() == {"done": 1}


def test_a_retry_waits_for_its_backoff(store):
    job = store.add("plan", {}, team="T1")
    store.claim("w", 1)
    store.retry(job, 30, "rate_limited")
    assert store.claim("w", 1) == []
    assert [j.id for j in store.claim("w", 1, now=time.time() + 31)] == [job]


def test_uninstall_forgets_the_workspaces_jobs(store):
    store.add("plan", {}, team="TA")
    store.add("plan", {}, team="TB")
    assert store.forget_workspace("TA") == 1
    assert [j.team for j in store.claim("w", 5)] == ["TB"]


@pytest.mark.slow  # holds a real write lock for its timeout
def test_the_ack_path_waits_half_a_second_at_most(store):
    from bot.job_queue import Busy

    if store.kind != "sqlite":
        pytest.skip("SQLite's write lock (Postgres takes no table lock for an insert)")

    locker = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import sqlite3, time\n"
                f"db = sqlite3.connect({store.path!r}, isolation_level=None)\n"
                "db.execute('BEGIN IMMEDIATE'); print('locked', flush=True); time.sleep(3); db.execute('ROLLBACK')\n"
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert locker.stdout.readline().strip() == "locked"
        start = time.time()
        with pytest.raises(Busy):
            store.add("plan", {}, team="T1")
        assert time.time() - start < 1.5
    finally:
        locker.wait(timeout=30)
    assert store.add("plan", {}, team="T1") is not None
    assert sqlite3.connect(store.path).execute("SELECT count(*) FROM bot_jobs").fetchone()[0] == 1
