"""Durable work: every acked Slack request is a job row before the ack returns, and the
planners take their work from here (bot/dispatcher.py), so a crash, a restart or a dead host finishes
what was acked, exactly once.

The store is the shared database (advisor/db.py): the SQLite file on one host, or Postgres
(DATABASE_URL) for several. `add` runs in the ack path: one insert with a short wait; past it
`Busy` is raised and the caller tells the user to try again in a moment, the ack never waits
longer.

A job is claimed with a lease (owner, lease_until), on Postgres with FOR UPDATE SKIP LOCKED so
hosts claiming at once never take the same job or wait on each other. Leases are in the
database's clock (never a host's), and renewed by a thread of their own (bot/dispatcher.py). A lease
that runs out (the owner was killed, its host died) makes the job claimable again, with its
attempt count raised. Every change of a claimed job names its owner, so a run that lost its
lease changes nothing, and the post itself is fenced (`begin_post`): the job records a post
under way and then the posted ts, so a later run posts nothing twice (bot/delivery.py)."""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass

import sqlalchemy as sa

from advisor import db as dbmod

log = logging.getLogger("gpu_advisor.bot")
# The ack path waits at most this long for the database.
ACK_BUSY_S = dbmod.ACK_WAIT_S
# A running job whose owner stopped renewing for this long is taken over.
DEFAULT_LEASE_S = 30.0
# Done and failed jobs are kept a day: their keys deduplicate replays (trigger_id) meanwhile.
KEEP_S = 86400
# A post another run began and never settled (its host died mid-post) is taken as ended after
# the Slack timeout and this margin; then the channel's history says whether it landed.
POST_MARGIN_S = 10.0


class Busy(Exception):
    """The database did not take the job within the time the ack may wait."""


@dataclass(frozen=True)
class Job:
    id: int
    kind: str
    team: str
    args: dict
    attempts: int  # this run's number, from 1
    created_at: float
    key: str | None = None


def lease_s() -> float:
    return float(os.environ.get("GPU_ADVISOR_JOB_LEASE_S") or DEFAULT_LEASE_S)


_COLUMNS = "id, kind, team, args, attempts, created_at, key"


def _job(r) -> Job:
    return Job(id=r[0], kind=r[1], team=r[2], args=json.loads(r[3]), attempts=r[4], created_at=r[5], key=r[6])


class JobQueue:
    """The job store in the shared database (DATABASE_URL, else the SQLite file GPU_ADVISOR_DB,
    else `path`)."""

    def __init__(self, path: str | None = None, url: str | None = None):
        self.path, self.url = path, url

    def _url(self) -> str:
        return self.url or ("sqlite:///" + self.path if self.path else dbmod.database_url())

    @contextlib.contextmanager
    def _db(self, wait_s: float = 30.0) -> Iterator[dbmod.Database]:
        """A pooled connection that waits at most `wait_s` for a lock (SQLite's busy timeout;
        Postgres's lock timeout, advisor/db.py PG_LOCK_TIMEOUT_MS: no table lock is taken on
        bot_jobs). The ack path does not come here (`add`: advisor/db.py ack_insert)."""
        db = dbmod.Database(self._url())
        try:
            if not db.postgres:
                db.raw.execute(f"PRAGMA busy_timeout={int(wait_s * 1000)}")
            yield db
        finally:
            try:
                if not db.postgres:
                    db.raw.execute(f"PRAGMA busy_timeout={dbmod.BUSY_MS}")
            except Exception:  # a broken connection: the pool drops it
                pass
            db.close()

    def _now(self, db: dbmod.Database, now: float | None) -> tuple[str, list]:
        """The clock a lease is measured in: the database's, or `now` (tests)."""
        return ("?", [now]) if now is not None else (db.now_sql(), [])

    def ensure(self) -> None:
        """Migrate the schema (at start, outside any ack)."""
        dbmod.connect(url=self._url()).close()

    def add(self, kind: str, args: dict, key: str | None = None, team: str = "", state: str = "queued") -> int | None:
        """Record a job; its id, or None when `key` was recorded before (a replay). Raises Busy
        when the database does not take it within ACK_BUSY_S."""
        return self.add_reading(kind, args, key, team, state)[0]

    def add_reading(
        self,
        kind: str,
        args: dict,
        key: str | None = None,
        team: str = "",
        state: str = "queued",
        read: tuple[str, list] | None = None,
    ) -> tuple[int | None, tuple | None]:
        """`add`, and the row of `read` (a select list and its parameters, advisor/db.py
        ack_insert): what the ack also reads, in the same statement on Postgres."""
        url = self._url()
        now = dbmod.now_sql(dbmod.is_postgres(url))
        done = now if state == "done" else "NULL"
        try:
            return dbmod.ack_insert(
                "INSERT INTO bot_jobs (key, team, kind, args, state, created_at, finished_at)"
                f" VALUES (?, ?, ?, ?, ?, {now}, {done}) ON CONFLICT DO NOTHING",
                [key, team, kind, json.dumps(args), state],
                url,
                read,
            )
        except sa.exc.DBAPIError as err:
            if "no such table" in str(err) or "does not exist" in str(err):  # a new store: made once
                self.ensure()
                return self.add_reading(kind, args, key, team, state, read)
            raise Busy(type(err.orig).__name__ if err.orig is not None else str(err)) from err

    def claim(self, owner: str, limit: int = 1, now: float | None = None) -> list[Job]:
        """Take up to `limit` due jobs (queued and due, or running with a lapsed lease)."""
        if limit <= 0:
            return []
        with self._db(5.0) as db:
            t, targs = self._now(db, now)
            due = f"(state = 'queued' AND not_before <= {t}) OR (state = 'running' AND lease_until < {t})"
            if not db.execute(f"SELECT 1 FROM bot_jobs WHERE {due} LIMIT 1", targs * 2).fetchone():
                return []  # a read: the write lock is taken only when there is work
            skip = " FOR UPDATE SKIP LOCKED" if db.postgres else ""
            sql = (
                f"UPDATE bot_jobs SET state = 'running', owner = ?, lease_until = {t} + ?, attempts = attempts + 1"
                f" WHERE id IN (SELECT id FROM bot_jobs WHERE {due} ORDER BY id LIMIT ?{skip}) RETURNING {_COLUMNS}"
            )
            with db.writing():
                rows = db.execute(sql, [owner, *targs, lease_s(), *targs * 2, limit]).fetchall()
        jobs = sorted((_job(r) for r in rows), key=lambda j: j.id)
        for j in jobs:
            if j.attempts > 1:
                log.info("job %s (%s) claimed by %s, try %d", j.id, j.kind, owner, j.attempts)
        return jobs

    def _write(self, sql: str, args: list, wait_s: float = 30.0) -> int:
        with self._db(wait_s) as db:
            return db.execute(sql, args).rowcount

    def renew(self, owner: str, ids: list[int]) -> int:
        """Extend the leases of the jobs `owner` is running now; how many it still holds."""
        if not ids:
            return 0
        marks = ",".join("?" * len(ids))
        with self._db(10.0) as db:
            return db.execute(
                f"UPDATE bot_jobs SET lease_until = {db.now_sql()} + ? WHERE owner = ? AND state = 'running'"
                f" AND id IN ({marks})",
                [lease_s(), owner, *ids],
            ).rowcount

    def _owned(self, owner: str | None) -> tuple[str, list]:
        return (" AND owner = ?", [owner]) if owner else ("", [])

    def finish(self, *job_ids: int, owner: str | None = None) -> None:
        if not job_ids:
            return
        marks = ",".join("?" * len(job_ids))
        mine, margs = self._owned(owner)
        with self._db() as db:
            db.execute(
                f"UPDATE bot_jobs SET state = 'done', finished_at = {db.now_sql()}, last_error = NULL"
                f" WHERE id IN ({marks}){mine}",
                [*job_ids, *margs],
            )

    def retry(self, job_id: int, after_s: float, error: str, owner: str | None = None) -> None:
        mine, margs = self._owned(owner)
        with self._db() as db:
            db.execute(
                f"UPDATE bot_jobs SET state = 'queued', owner = NULL, not_before = {db.now_sql()} + ?,"
                f" last_error = ? WHERE id = ?{mine}",
                [after_s, error, job_id, *margs],
            )

    def fail(self, job_id: int, error: str, owner: str | None = None) -> None:
        mine, margs = self._owned(owner)
        with self._db() as db:
            db.execute(
                f"UPDATE bot_jobs SET state = 'failed', finished_at = {db.now_sql()}, last_error = ?"
                f" WHERE id = ?{mine}",
                [error, job_id, *margs],
            )

    # -- the post fence --
    def begin_post(self, job_id: int, owner: str, settle_s: float) -> tuple[str, str | None]:
        """Before a job posts: ('go', None) when this run may post now; ('posted', ts) when the
        job posted already; ('look', None) when an earlier run may have posted (look in the
        channel, then call `retake_post`); ('wait', seconds) when another run may be posting now
        (for that long at most);
        ('lost', None) when this run no longer owns the job."""
        with self._db() as db:
            now = db.now_sql()
            if db.execute(
                f"UPDATE bot_jobs SET posted_ts = 'pending:' || CAST({now} AS TEXT)"
                " WHERE id = ? AND owner = ? AND state = 'running' AND posted_ts IS NULL",
                [job_id, owner],
            ).rowcount:
                return "go", None
            row = db.execute(f"SELECT owner, state, posted_ts, {now} FROM bot_jobs WHERE id = ?", [job_id]).fetchone()
        if row is None or row[0] != owner or row[1] != "running":
            return "lost", None
        posted = row[2] or ""
        if posted.startswith("pending:"):
            age = row[3] - float(posted.split(":", 1)[1])
            if age < settle_s:
                return "wait", f"{settle_s - age:.1f}"  # how long it may still be under way
            return "look", None
        if posted == "unknown":
            return "look", None
        return "posted", posted

    def retake_post(self, job_id: int, owner: str) -> bool:
        """After the history showed no earlier post: this run posts (False: it lost the job)."""
        with self._db() as db:
            return bool(
                db.execute(
                    f"UPDATE bot_jobs SET posted_ts = 'pending:' || CAST({db.now_sql()} AS TEXT)"
                    " WHERE id = ? AND owner = ? AND state = 'running'",
                    [job_id, owner],
                ).rowcount
            )

    def end_post(self, job_id: int, ts: str | None, sent: bool | None) -> None:
        """After the post: its ts (sent), 'unknown' (sent None: a timeout, Slack may have it), or
        no post at all (sent False: Slack refused it)."""
        value = ts if sent else ("unknown" if sent is None else None)
        self._write("UPDATE bot_jobs SET posted_ts = ?, posted_channel = NULL WHERE id = ?", [value, job_id])

    def posted(self, job_id: int) -> str | None:
        with self._db() as db:
            row = db.execute("SELECT posted_ts FROM bot_jobs WHERE id = ?", [job_id]).fetchone()
        return row[0] if row else None

    # -- housekeeping --
    def forget_workspace(self, team: str) -> int:
        return self._write("DELETE FROM bot_jobs WHERE team = ?", [team])

    def prune(self, older_than_s: float = KEEP_S) -> int:
        with self._db() as db:
            return db.execute(
                f"DELETE FROM bot_jobs WHERE state IN ('done', 'failed') AND finished_at < {db.now_sql()} - ?",
                [older_than_s],
            ).rowcount

    def pending(self, kind: str, team: str) -> list[dict]:
        """The arguments of the jobs of `kind` for `team` not yet done (a read: never waits)."""
        try:
            rows = dbmod.ack_read(
                "SELECT args FROM bot_jobs WHERE kind = ? AND team = ? AND state IN ('queued', 'running')",
                [kind, team],
                self._url(),
            )
        except sa.exc.DBAPIError:
            return []
        return [json.loads(r[0]) for r in rows]

    def backlog(self) -> dict[str, float]:
        """What waits, for an operator's metrics: the jobs queued and running, and how long the
        oldest due job not yet claimed has waited since it was acked (0 when none); both read on
        the (state, not_before) index, done jobs not counted."""
        with self._db(5.0) as db:
            now = db.now_sql()
            rows = db.execute(
                "SELECT state, count(*) FROM bot_jobs WHERE state IN ('queued', 'running') GROUP BY state"
            ).fetchall()
            (oldest,) = db.execute(
                f"SELECT {now} - min(created_at) FROM bot_jobs WHERE state = 'queued' AND not_before <= {now}"
            ).fetchone()
        counts = dict(rows)
        return {
            "queued": counts.get("queued", 0),
            "running": counts.get("running", 0),
            "oldest_s": max(0.0, oldest or 0),
        }

    def counts(self) -> dict[str, int]:
        with self._db(5.0) as db:
            return {r[0]: r[1] for r in db.execute("SELECT state, count(*) FROM bot_jobs GROUP BY state").fetchall()}
