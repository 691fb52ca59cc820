"""Durable work: every acked Slack request is a job row before the ack returns, and the
planners take their work from here (bot/work.py), so a crash or restart finishes what was
acked, exactly once.

The interface is small on purpose (add, claim, renew, finish, retry, fail, forget, prune), so
a server database can take SQLite's place when one host is outgrown. `add` runs in the ack
path: one local insert with a short busy timeout; past it `Busy` is raised and the caller
tells the user to try again in a moment, the ack never waits longer.

A job is claimed with a lease (owner, lease_until); the owner renews it while the job runs. A
lease that runs out (the owner was killed) makes the job claimable again, with its attempt
count raised, so the job knows to look for its own earlier post before posting (bot/jobs.py)."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass

from advisor.db import db_path
from bot import tables

# The ack path waits at most this long for SQLite's write lock.
ACK_BUSY_S = 0.5
# A running job whose owner stopped renewing for this long is taken over.
DEFAULT_LEASE_S = 30.0
# Done and failed jobs are kept a day: their keys deduplicate replays (trigger_id) meanwhile.
KEEP_S = 86400

MIGRATIONS = [
    (
        1,
        """
        CREATE TABLE IF NOT EXISTS bot_jobs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            key TEXT UNIQUE,                      -- dedup key (trigger_id, event message), or NULL
            team TEXT NOT NULL DEFAULT '',
            kind TEXT NOT NULL,
            args TEXT NOT NULL,                   -- JSON, no secrets
            state TEXT NOT NULL DEFAULT 'queued', -- queued | running | done | failed
            attempts INTEGER NOT NULL DEFAULT 0,
            not_before REAL NOT NULL DEFAULT 0,
            owner TEXT,
            lease_until REAL NOT NULL DEFAULT 0,
            last_error TEXT,
            created_at REAL NOT NULL,
            finished_at REAL
        );
        CREATE INDEX IF NOT EXISTS bot_jobs_due ON bot_jobs (state, not_before)
    """,
    ),
]


class Busy(Exception):
    """The database was locked for longer than the ack may wait."""


@dataclass(frozen=True)
class Job:
    id: int
    kind: str
    team: str
    args: dict
    attempts: int  # this run's number, from 1
    created_at: float


def lease_s() -> float:
    return float(os.environ.get("GPU_ADVISOR_JOB_LEASE_S") or DEFAULT_LEASE_S)


class SQLiteJobs:
    """The job store in the shared SQLite file (GPU_ADVISOR_DB)."""

    def __init__(self, path: str | None = None):
        self.path = path
        self._local = threading.local()

    def _conn(self, busy_s: float) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path or db_path(), timeout=busy_s, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout={int(busy_s * 1000)}")
        # WAL with synchronous=NORMAL: a commit survives any process crash (kill -9) without an
        # fsync of its own, which keeps the write lock short for the acks waiting on it; a power
        # loss may lose the last commits. GPU_ADVISOR_JOBS_SYNC=full makes each commit fsync.
        conn.execute(
            "PRAGMA synchronous=" + ("FULL" if os.environ.get("GPU_ADVISOR_JOBS_SYNC") == "full" else "NORMAL")
        )
        return conn

    def ensure(self) -> None:
        """Create the table (at start, outside any ack)."""
        with tables.opened("bot_jobs", MIGRATIONS, self.path):
            pass

    def _kept(self, busy_s: float) -> sqlite3.Connection:
        """A connection kept per thread and busy timeout (opening one costs more than an insert)."""
        key = (self.path or db_path(), busy_s)
        kept = self._local.__dict__.setdefault("conns", {})
        if key not in kept:
            kept[key] = self._conn(busy_s)
            if busy_s == ACK_BUSY_S:
                # An ack never runs a WAL checkpoint (an fsync of the database file): the other
                # connections (the dispatcher, the planners) do them.
                kept[key].execute("PRAGMA wal_autocheckpoint=0")
        return kept[key]

    def _ack_conn(self) -> sqlite3.Connection:
        return self._kept(ACK_BUSY_S)

    def add(self, kind: str, args: dict, key: str | None = None, team: str = "", state: str = "queued") -> int | None:
        """Record a job; its id, or None when `key` was recorded before (a replay). Raises Busy
        when the write lock is not had within ACK_BUSY_S."""
        try:
            cur = self._ack_conn().execute(
                "INSERT OR IGNORE INTO bot_jobs (key, team, kind, args, state, created_at, finished_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [key, team, kind, json.dumps(args), state, time.time(), time.time() if state == "done" else None],
            )
            return cur.lastrowid if cur.rowcount == 1 else None
        except sqlite3.OperationalError as err:
            if "no such table" in str(err):  # a new database file: made once, then the insert
                self.ensure()
                return self.add(kind, args, key, team, state)
            raise Busy(str(err)) from err

    def claim(self, owner: str, limit: int = 1, now: float | None = None) -> list[Job]:
        """Take up to `limit` due jobs (queued and due, or running with a lapsed lease)."""
        if limit <= 0:
            return []
        now = now or time.time()
        conn = self._kept(5.0)
        due = "(state = 'queued' AND not_before <= ?) OR (state = 'running' AND lease_until < ?)"
        if not conn.execute(f"SELECT 1 FROM bot_jobs WHERE {due} LIMIT 1", [now, now]).fetchone():
            return []  # a read: the write lock is taken only when there is work
        conn.execute("BEGIN IMMEDIATE")
        try:
            rows = conn.execute(
                f"SELECT id, kind, team, args, attempts, created_at FROM bot_jobs WHERE {due} ORDER BY id LIMIT ?",
                [now, now, limit],
            ).fetchall()
            for row in rows:
                conn.execute(
                    "UPDATE bot_jobs SET state = 'running', owner = ?, lease_until = ?,"
                    " attempts = attempts + 1 WHERE id = ?",
                    [owner, now + lease_s(), row[0]],
                )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return [
            Job(id=r[0], kind=r[1], team=r[2], args=json.loads(r[3]), attempts=r[4] + 1, created_at=r[5]) for r in rows
        ]

    def _write(self, sql: str, args: list) -> int:
        return self._kept(30.0).execute(sql, args).rowcount

    def renew(self, owner: str, ids: list[int]) -> None:
        """Extend the leases of the jobs `owner` is running now."""
        marks = ",".join("?" * len(ids))
        self._write(
            f"UPDATE bot_jobs SET lease_until = ? WHERE owner = ? AND state = 'running' AND id IN ({marks})",
            [time.time() + lease_s(), owner, *ids],
        )

    def finish(self, *job_ids: int) -> None:
        marks = ",".join("?" * len(job_ids))
        self._write(
            f"UPDATE bot_jobs SET state = 'done', finished_at = ?, last_error = NULL WHERE id IN ({marks})",
            [time.time(), *job_ids],
        )

    def retry(self, job_id: int, after_s: float, error: str) -> None:
        self._write(
            "UPDATE bot_jobs SET state = 'queued', owner = NULL, not_before = ?, last_error = ? WHERE id = ?",
            [time.time() + after_s, error, job_id],
        )

    def fail(self, job_id: int, error: str) -> None:
        self._write(
            "UPDATE bot_jobs SET state = 'failed', finished_at = ?, last_error = ? WHERE id = ?",
            [time.time(), error, job_id],
        )

    def forget_workspace(self, team: str) -> int:
        return self._write("DELETE FROM bot_jobs WHERE team = ?", [team])

    def prune(self, older_than_s: float = KEEP_S) -> int:
        return self._write(
            "DELETE FROM bot_jobs WHERE state IN ('done', 'failed') AND finished_at < ?", [time.time() - older_than_s]
        )

    def pending(self, kind: str, team: str) -> list[dict]:
        """The arguments of the jobs of `kind` for `team` not yet done (a read: never waits)."""
        conn = self._conn(ACK_BUSY_S)
        try:
            rows = conn.execute(
                "SELECT args FROM bot_jobs WHERE kind = ? AND team = ? AND state IN ('queued', 'running')", [kind, team]
            ).fetchall()
        except sqlite3.OperationalError:
            return []
        finally:
            conn.close()
        return [json.loads(r[0]) for r in rows]

    def counts(self) -> dict[str, int]:
        conn = self._conn(5.0)
        try:
            return dict(conn.execute("SELECT state, count(*) FROM bot_jobs GROUP BY state").fetchall())
        finally:
            conn.close()
