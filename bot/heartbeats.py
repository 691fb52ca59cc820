"""Which processes are alive, for supervisors and `gpu-advisor health`: every long-running
process (each `serve` web worker, `work`, `clock`, `socket`) writes a row of `process_heartbeats`
in the shared store every GPU_ADVISOR_HEARTBEAT_S seconds (5), from a thread of its own.

A row is its host and pid, its kind, when it started and when it was last seen, both in the
database's clock (no host's clock counts, as for job leases), the pace it promised, and what is
wrong with it now ('' when nothing: a `work` whose planning process died, or whose dispatcher
stopped going round, still beats and says so). A process is live while its row is younger than
three of its beats; a `work` that stops on SIGTERM deletes its row, one killed goes quiet. Rows
quiet for a day are pruned by any process that beats. No row holds a secret."""

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


def every_s() -> float:
    return float(os.environ.get("GPU_ADVISOR_HEARTBEAT_S") or DEFAULT_EVERY_S)


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

    @property
    def live(self) -> bool:
        return self.now - self.last_seen <= LIVE_BEATS * self.every_s

    @property
    def well(self) -> bool:
        return self.live and not self.problem

    @property
    def name(self) -> str:
        return f"{self.host}:{self.pid}"


class Heartbeat:
    """This process's row, written every `every` seconds by a daemon thread once started."""

    def __init__(self, kind: str, check: Callable[[], str] | None = None, every: float | None = None):
        self.kind, self.check = kind, check
        self.every = every or every_s()
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
                db.execute(
                    f"INSERT INTO {TABLE} (id, kind, host, pid, started_at, last_seen, every_s, problem)"
                    f" VALUES (?, ?, ?, ?, {now}, {now}, ?, ?) ON CONFLICT (id) DO UPDATE SET"
                    " last_seen = excluded.last_seen, every_s = excluded.every_s, problem = excluded.problem",
                    [self.id, self.kind, self.host, self.pid, self.every, self._problem()],
                )
                if self._beats % PRUNE_EVERY == 0:
                    db.execute(f"DELETE FROM {TABLE} WHERE last_seen < {now} - ?", [KEEP_S])
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

    def stop(self) -> None:
        """A clean stop: the row goes at once (a supervisor asking then sees the process gone)."""
        self._stop.set()
        try:
            with dbmod.Database() as db:
                db.execute(f"DELETE FROM {TABLE} WHERE id = ?", [self.id])
        except Exception as err:
            log.warning("%s: heartbeat row not removed: %s", self.kind, type(err).__name__)


def start(kind: str, check: Callable[[], str] | None = None) -> Heartbeat:
    """Beat for this process from now on (the schema is current: every process migrates first)."""
    return Heartbeat(kind, check).start()


def processes(db: dbmod.Database, within_s: float = 3600.0) -> list[Process]:
    """The processes seen within `within_s` seconds (live or gone quiet), newest kind by kind."""
    now = db.now_sql()
    rows = db.execute(
        f"SELECT kind, host, pid, started_at, last_seen, every_s, problem, {now} FROM {TABLE}"
        f" WHERE last_seen >= {now} - ? ORDER BY kind, host, pid",
        [within_s],
    ).fetchall()
    return [Process(*row) for row in rows]


def live_counts(db: dbmod.Database) -> dict[str, int]:
    """How many processes of each kind are live and well now (for /healthz): one query."""
    now = db.now_sql()
    rows = db.execute(
        f"SELECT kind, COUNT(*) FROM {TABLE} WHERE last_seen >= {now} - {LIVE_BEATS} * every_s AND problem = ''"
        " GROUP BY kind"
    ).fetchall()
    return {str(kind): int(n) for kind, n in rows}
