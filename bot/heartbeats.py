"""Which processes are alive, for supervisors and `gpu-advisor health`: every long-running
process (each `serve` web worker, `work`, `clock`, `socket`) writes a row of `process_heartbeats`
in the shared store every GPU_ADVISOR_HEARTBEAT_S seconds (5), from a thread of its own.

A row is its host and pid, its kind, when it started and when it was last seen, both in the
database's clock (no host's clock counts, as for job leases), the pace it promised, and what is
wrong with it now ('' when nothing: a `work` whose planning process died, or whose dispatcher
stopped going round, still beats and says so). A process is live while its row is younger than
three of its beats; a `work` that stops on SIGTERM deletes its row, one killed goes quiet. Rows
quiet for a day are pruned by any process that beats. No row holds a secret.

A clock also records each digest round as it ends (`round_done`): when, in the database's clock,
and what went wrong ('' when nothing). A clock is well only while its last round went well and
ended within its interval plus GPU_ADVISOR_CLOCK_GRACE_S (counted from its start before the
first), so a clock that beats but can no longer post is not counted."""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from advisor import db as dbmod

log = logging.getLogger("gpu_advisor.health")
TABLE = "process_heartbeats"
DEFAULT_EVERY_S = 5.0
LIVE_BEATS = 3  # a row younger than this many of its beats is a live process
KEEP_S = 86400  # quiet rows are pruned after a day
PRUNE_EVERY = 100  # beats between prunes
KINDS = ("serve", "work", "clock", "socket")
# How late a clock's round may be past its interval. Assumed: a round posts every due channel
# one Web API call after another (each up to GPU_ADVISOR_SLACK_TIMEOUT, 30 s) and fetches the
# day's feeds first, so minutes, not seconds.
DEFAULT_ROUND_GRACE_S = 300.0


def every_s() -> float:
    return float(os.environ.get("GPU_ADVISOR_HEARTBEAT_S") or DEFAULT_EVERY_S)


def round_grace_s() -> float:
    return float(os.environ.get("GPU_ADVISOR_CLOCK_GRACE_S") or DEFAULT_ROUND_GRACE_S)


@dataclass(frozen=True)
class Process:
    kind: str
    host: str
    pid: int
    started_at: float
    last_seen: float
    every_s: float
    problem: str
    now: float  # the database's clock when read
    round_at: float | None = None
    round_every_s: float | None = None  # None: not a process with rounds
    round_problem: str | None = None

    @property
    def live(self) -> bool:
        return self.now - self.last_seen <= LIVE_BEATS * self.every_s

    @property
    def round_trouble(self) -> str:
        """What is wrong with this clock's rounds: its last failed, or none ended for longer than
        its interval and the grace; '' when nothing (and for processes without rounds)."""
        if self.round_every_s is None:
            return ""
        if self.round_problem:
            return f"last digest round failed: {self.round_problem}"
        since = self.now - (self.round_at if self.round_at is not None else self.started_at)
        if since > self.round_every_s + round_grace_s():
            first = " since it started" if self.round_at is None else ""
            return f"no digest round ended for {since:.0f} s{first} (every {self.round_every_s:g} s)"
        return ""

    @property
    def well(self) -> bool:
        return self.live and not self.problem and not self.round_trouble

    def last_round(self) -> dict | None:
        """The last round, for `health --json` and /healthz (None: a process without rounds)."""
        if self.round_every_s is None:
            return None
        return {
            "s_ago": None if self.round_at is None else round(self.now - self.round_at, 1),
            "every_s": self.round_every_s,
            "ok": not self.round_trouble,
            "problem": self.round_trouble,
        }

    @property
    def name(self) -> str:
        return f"{self.host}:{self.pid}"


# Set by a planning `serve` (bot/host.py) for its gunicorn: the pid of the supervisor that also
# runs this host's `work` process.
SIBLING_ENV = "GPU_ADVISOR_SIBLING_WORK"
# A web worker's count of live `work` processes, read at each of its beats (None: not known here:
# a process that does not beat as `serve`, or one whose own `serve` runs and restarts its `work`
# beside it). A `serve --no-plan` host whose planners are all down had acked "the answer will
# appear in a few seconds" (operator review); the ack says it is queued instead, from this count,
# with no read of its own. Known only once the worker has beaten PLANNERS_GRACE_BEATS times.
_planners_live: list[int | None] = [None]
PLANNERS_GRACE_BEATS = 6


def planners_live() -> int | None:
    """Live `work` processes as this web worker last read them; None where it does not read them."""
    return _planners_live[0]


class Heartbeat:
    """This process's row, written every `every` seconds by a daemon thread once started."""

    def __init__(
        self,
        kind: str,
        check: Callable[[], str] | None = None,
        every: float | None = None,
        rounds_every: float | None = None,
    ):
        self.kind, self.check = kind, check
        self.every = every or every_s()
        self.rounds_every = rounds_every  # a clock's round interval
        self.host, self.pid = os.uname().nodename, os.getpid()
        # host:pid alone could repeat (containers that share a host name, each with its pid 1)
        self.id = f"{self.host}:{self.pid}:{kind}:{uuid.uuid4().hex[:8]}"
        self._stop = threading.Event()
        self._beats = 0
        self._failing = False

    def start(self) -> Heartbeat:
        threading.Thread(target=self._run, name=f"gpu-advisor-heartbeat-{self.kind}", daemon=True).start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self.beat()
            self._stop.wait(self.every)

    def _problem(self) -> str:
        try:
            return (self.check() if self.check else "")[:200]
        except Exception as err:  # the check itself failed: said, the beat still goes
            return f"health check failed: {type(err).__name__}"

    def beat(self) -> bool:
        """Write the row now; False when the store did not take it (logged once per outage)."""
        try:
            with dbmod.Database() as db:
                now = db.now_sql()
                self._upsert(db, now)
                if self._beats % PRUNE_EVERY == 0:
                    db.execute(f"DELETE FROM {TABLE} WHERE last_seen < {now} - ?", [KEEP_S])
                if self.kind == "serve" and self._beats >= PLANNERS_GRACE_BEATS and not os.environ.get(SIBLING_ENV):
                    _planners_live[0] = live_counts(db).get("work", 0)
        except Exception as err:
            if not self._failing:
                log.warning("%s %s:%d: heartbeat not written: %s", self.kind, self.host, self.pid, type(err).__name__)
            self._failing = True
            return False
        if self._failing:
            log.info("%s %s:%d: heartbeat written again", self.kind, self.host, self.pid)
        self._failing = False
        self._beats += 1
        return True

    def _upsert(self, db: dbmod.Database, now: str, round_problem: str | None = None) -> None:
        """This process's row, seen now; with `round_problem`, a round that ended now too."""
        sets = "last_seen = excluded.last_seen, every_s = excluded.every_s, problem = excluded.problem, "
        sets += "round_every_s = excluded.round_every_s"
        ended = "NULL"
        if round_problem is not None:
            ended = now
            sets += ", round_at = excluded.round_at, round_problem = excluded.round_problem"
        db.execute(
            f"INSERT INTO {TABLE} (id, kind, host, pid, started_at, last_seen, every_s, problem, round_at,"
            f" round_every_s, round_problem) VALUES (?, ?, ?, ?, {now}, {now}, ?, ?, {ended}, ?, ?)"
            f" ON CONFLICT (id) DO UPDATE SET {sets}",
            [self.id, self.kind, self.host, self.pid, self.every, self._problem(), self.rounds_every, round_problem],
        )

    def round_done(self, problem: str = "") -> bool:
        """A clock's round ended now, well ('') or with `problem`; False when the store did not
        take it (then the round's time grows old and `health --need clock` fails after the grace)."""
        try:
            with dbmod.Database() as db:
                self._upsert(db, db.now_sql(), problem[:200])
        except Exception as err:
            log.warning("%s %s:%d: round not recorded: %s", self.kind, self.host, self.pid, type(err).__name__)
            return False
        return True

    def stop(self) -> None:
        """A clean stop: the row goes at once (a supervisor asking then sees the process gone)."""
        self._stop.set()
        try:
            with dbmod.Database() as db:
                db.execute(f"DELETE FROM {TABLE} WHERE id = ?", [self.id])
        except Exception as err:
            log.warning("%s: heartbeat row not removed: %s", self.kind, type(err).__name__)


def forget(kind: str, pid: int) -> None:
    """Remove the row of a process of this host that is known dead (a supervisor saw its child
    end, bot/host.py), so it is not counted live for three more beats."""
    try:
        with dbmod.Database() as db:
            db.execute(f"DELETE FROM {TABLE} WHERE kind = ? AND host = ? AND pid = ?", [kind, os.uname().nodename, pid])
    except Exception as err:  # the row then goes quiet by itself
        log.warning("%s %d: heartbeat row not removed: %s", kind, pid, type(err).__name__)


def start(kind: str, check: Callable[[], str] | None = None, rounds_every: float | None = None) -> Heartbeat:
    """Beat for this process from now on (the schema is current: every process migrates first);
    a clock gives its round interval and reports each round (`Heartbeat.round_done`)."""
    return Heartbeat(kind, check, rounds_every=rounds_every).start()


# Rows read to find the live ones: any beat slower than a third of this would be missed.
LIVE_WITHIN_S = 3600.0


def processes(db: dbmod.Database, within_s: float = LIVE_WITHIN_S) -> list[Process]:
    """The processes seen within `within_s` seconds (live or gone quiet), newest kind by kind."""
    now = db.now_sql()
    rows = db.execute(
        f"SELECT kind, host, pid, started_at, last_seen, every_s, problem, {now}, round_at, round_every_s,"
        f" round_problem FROM {TABLE}"
        f" WHERE last_seen >= {now} - ? ORDER BY kind, host, pid",
        [within_s],
    ).fetchall()
    return [Process(*row) for row in rows]


def live_of(found: list[Process]) -> dict[str, int]:
    """How many of `found` are live and well, kind by kind."""
    counts: dict[str, int] = {}
    for p in found:
        if p.well:
            counts[p.kind] = counts.get(p.kind, 0) + 1
    return counts


def live_counts(db: dbmod.Database) -> dict[str, int]:
    """How many processes of each kind are live and well now: one query."""
    return live_of(processes(db))


def parent_of(pid: int) -> int | None:
    """The parent process of `pid` on this machine (Linux /proc), None where it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1])  # after "pid (comm) state"
    except (OSError, IndexError, ValueError):
        return None


def planning_trouble(found: list[Process], host: str, parent: int | None = None) -> str:
    """Why nothing plans on `host` ('' when a `work` process there is live and well): for the
    /healthz of a `serve` whose planning runs in a `work` process beside it (bot/host.py). With
    `parent`, only the `work` processes that supervisor started count, so a second `serve` on the
    same host is not judged well by the first one's planners (where /proc can be read)."""
    mine = [
        p
        for p in found
        if p.kind == "work" and p.host == host and p.live and (parent is None or parent_of(p.pid) in (parent, None))
    ]
    if any(p.well for p in mine):
        return ""
    if not mine:
        return "no planning process live on this host"
    problem = mine[0].problem
    return "planning pool broken" if problem == "planner died" else problem


def clock_rounds(found: list[Process]) -> list[dict]:
    """The last rounds of the live clocks among `found` (for /healthz): host, pid, and
    `Process.last_round`."""
    return [{"host": p.host, "pid": p.pid, **p.last_round()} for p in found if p.live and p.round_every_s is not None]
