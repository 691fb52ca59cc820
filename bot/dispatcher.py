"""From the job store to the planners: listeners record each acked request as a job
(`enqueue`, the only thing they write in the ack path), and one dispatcher thread per planning
process (`work`, beside gunicorn when `serve` plans; `socket`) claims due jobs and hands them
to the planning processes (bot/planner_pool.py).

- Exactly once: a claim is atomic across processes; a job is done only once its run returned;
  a job whose owner died (its lease lapsed: kill -9, host crash) runs again, and a run after
  the first looks for its own post in the channel first (bot/delivery.py send).
- A dead planning process: its jobs go back to the queue and the pool is replaced; the
  process's heartbeat says so while it is broken (and a planning `serve`'s /healthz answers 503).
- Slack faults: a run that met a 429, a 5xx, a timeout or a connection error returns with a
  backoff; the job waits in the queue (not in a planning process), so one channel's
  Retry-After never delays another channel's answers. The last try tells the user."""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import sqlalchemy as sa

from advisor import db as dbmod
from advisor.text.render import phrase
from bot import acks, delivery, locales, planner_pool, tasks
from bot.job_queue import Busy, Job, JobQueue, lease_s
from bot.threads import reply_lang, stated_lang

log = logging.getLogger("gpu_advisor.bot")
POLL_S = 1.0
# While the database does not answer, a round fails every POLL_S: its cause is logged at once and
# then at most once in this many seconds, and its return once (operator probe: a bare
# "OperationalError" 60 times a minute; assumed).
DB_TROUBLE_LOG_GAP_S = 60.0
BATCH_S = 0.02
MAX_ATTEMPTS = 6
HEAL_S = 5.0  # a broken pool is replaced by then even with no job waiting
# Jobs that only write a setting (digest subscribe, ...) run in the web process, in order.
LOCAL_KINDS = {"digest_setting"}
ClientFor = Callable[[str], object]

_store = JobQueue()
_dispatcher: Dispatcher | None = None
_lock = threading.Lock()


def store() -> JobQueue:
    return _store


def _noted(kind: str, key: str | None, job: int | None, done: bool = False) -> None:
    """What the Slack request became, for its log line (bot/acks.py): no database round trip."""
    if job is None:
        acks.note("replay: already answered")
    else:
        acks.note(f"{'answered in the ack' if done else 'queued'} {kind} job {job} {key or ''}".rstrip())


def _add(kind: str, args: dict, key: str | None, team: str, state: str = "queued", read=None):
    try:
        return _store.add_reading(kind, args, key, team, state, read)
    except Busy:
        acks.note("busy: asked to send it again")
        raise


def enqueue(kind: str, args: dict, key: str | None = None, team: str = "") -> int | None:
    """Record a job (in the ack path: raises job_queue.Busy past a short wait); None for a replay."""
    job = _add(kind, args, key, team)[0]
    _noted(kind, key, job)
    if _dispatcher is not None and job is not None:
        _dispatcher.wake()
    return job


def enqueue_replying(
    kind: str, args: dict, key: str | None, team: str, text: str, user: str, done: bool = False
) -> tuple[int | None, str]:
    """`enqueue` (with `done`: `record_done`), and the language to answer `text` from `user` in
    (bot/threads.py reply_lang, no Web API call): where the text does not give it, the user's
    remembered one is read in the statement that records the job, so the ack is one round trip
    to Postgres, not two (docs/reliability.md, "Ack latency")."""
    stated = stated_lang(text)
    read = locales.guess_query(user, team) if not stated and user else None
    job, row = _add(kind, args, key, team, "done" if done else "queued", read)
    _noted(kind, key, job, done)
    if _dispatcher is not None and job is not None and not done:
        _dispatcher.wake()
    return job, stated or (locales.guessed(row) if row else None) or "en"


def record_done(kind: str, key: str | None, team: str = "") -> bool:
    """Record an answered-in-the-ack request by its key (replays are answered once); False for a
    replay."""
    job = _add(kind, {}, key, team, "done")[0]
    _noted(kind, key, job, done=True)
    return job is not None


def pending(kind: str, team: str, channel: str) -> bool:
    """A subscribe for this channel still waiting in the queue."""
    return any(a.get("channel") == channel and a.get("action") == "subscribe" for a in _store.pending(kind, team))


def start(client_for: ClientFor, plans: bool = True) -> Dispatcher | None:
    """The dispatcher of this process (started once per process, after a fork too); with
    `plans` False (a web host that only acks, GPU_ADVISOR_PLAN=0) the schema is made current
    and no job is taken here: `gpu-advisor work` processes take them."""
    global _dispatcher
    with _lock:
        _store.url = dbmod.database_url()  # fixed now: the store this app was made for
        # Every table the acks read is migrated now, never inside an ack.
        _store.ensure()
        if not plans:
            host, store_url = os.uname().nodename, dbmod.redact(_store.url)
            log.info("web process %s:%d acks and enqueues only (store %s)", host, os.getpid(), store_url)
            return None
        if _dispatcher is None or _dispatcher.pid != os.getpid():
            _dispatcher = Dispatcher(_store, client_for)
            _dispatcher.start()
        else:
            _dispatcher.client_for = client_for
        return _dispatcher


def healthy() -> bool:
    return planner_pool.healthy()


def problems() -> list[str]:
    """What /healthz reports: a dead planning process, a database that does not answer, a
    dispatcher that stopped going round."""
    found = []
    if not planner_pool.healthy():
        found.append("planner died")
    down = dbmod.ping(_store.url)
    if down:
        found.append(f"database: {down}")
    if _dispatcher is not None and _dispatcher.pid == os.getpid() and _dispatcher.stalled():
        found.append("dispatcher stalled")
    return found


def own_problem() -> str:
    """What is wrong with this process's planning, for its heartbeat (bot/heartbeats.py): '' when
    nothing; the database is not asked (the heartbeat's own write is that question)."""
    found = [] if planner_pool.healthy() else ["planner died"]
    if _dispatcher is not None and _dispatcher.pid == os.getpid() and _dispatcher.stalled():
        found.append("dispatcher stalled")
    return "; ".join(found)


def max_attempts() -> int:
    """Tries per job before the user is told (GPU_ADVISOR_JOB_ATTEMPTS)."""
    return max(1, int(os.environ.get("GPU_ADVISOR_JOB_ATTEMPTS") or MAX_ATTEMPTS))


def _env_float(name: str, default: float) -> float:
    return float(os.environ.get(name) or default)


class Dispatcher:
    def __init__(self, jobs: JobQueue, client_for: ClientFor):
        self.store, self.client_for = jobs, client_for
        self.pid = os.getpid()
        self.owner = f"{os.uname().nodename}:{self.pid}:{uuid.uuid4().hex[:8]}"
        self._round_at = time.monotonic()
        self.slots = planner_pool.planners() * 2
        self.inflight: dict[int, Job] = {}
        self.results: queue.Queue = queue.Queue()
        self._wake = threading.Event()
        self._broken_since: float | None = None
        self._db_trouble_since: float | None = None  # when rounds began to fail on the database
        self._db_trouble_logged = 0.0
        self._pruned = 0.0
        self._local = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gpu-advisor-settings")

    def start(self) -> None:
        log.info(
            "job dispatcher %s started (%d slots, store %s)", self.owner, self.slots, dbmod.redact(self.store._url())
        )
        threading.Thread(target=self._loop, name="gpu-advisor-jobs", daemon=True).start()
        threading.Thread(target=self._leases, name="gpu-advisor-leases", daemon=True).start()

    def stalled(self) -> bool:
        return time.monotonic() - self._round_at > max(60.0, 3 * lease_s())

    def _leases(self) -> None:
        """Renew the leases of the jobs running here, on a thread and connection of its own, so
        neither a long dispatch round nor a busy planner delays it."""
        while True:
            time.sleep(lease_s() / 3)
            try:
                ids = list(self.inflight)
                if not ids:
                    continue
                held = self.store.renew(self.owner, ids)
                if held < len(ids):
                    log.warning("%s holds %d of its %d running jobs' leases", self.owner, held, len(ids))
            except Exception as err:
                log.warning("lease renewal failed: %s", type(err).__name__)

    def wake(self) -> None:
        self._wake.set()

    def _loop(self) -> None:
        while True:
            if self._wake.wait(POLL_S):
                time.sleep(BATCH_S)  # gather the jobs of a burst: fewer write transactions for acks to wait on
            self._wake.clear()
            self._round_at = time.monotonic()
            try:
                self._round()
            except sa.exc.DBAPIError as err:  # locked for long, or the database is away: next round
                self._db_trouble(err)
            except Exception:
                log.exception("job dispatch round failed")
            else:
                if self._db_trouble_since is not None:
                    log.info(
                        "job dispatch: the database answers again after %.0f s",
                        time.monotonic() - self._db_trouble_since,
                    )
                    self._db_trouble_since = None

    def _db_trouble(self, err: sa.exc.DBAPIError) -> None:
        """A round the database failed: why (libpq's first line, no password), at once and then
        every DB_TROUBLE_LOG_GAP_S while it lasts."""
        now = time.monotonic()
        first = self._db_trouble_since is None
        if first:
            self._db_trouble_since = now
        if first or now - self._db_trouble_logged >= DB_TROUBLE_LOG_GAP_S:
            self._db_trouble_logged = now
            reason = (str(err.orig or err).strip().splitlines() or [""])[0][:200]
            for secret in dbmod.secrets_of(dbmod.database_url()):
                reason = reason.replace(secret, "***")
            log.warning(
                "job dispatch round: %s (%s)%s; the rounds go on every %.0f s",
                type(err.orig or err).__name__,
                reason or "no reason given",
                "" if first else f", failing for {now - self._db_trouble_since:.0f} s",
                POLL_S,
            )

    def _round(self) -> None:
        finished: list[int] = []
        while not self.results.empty():
            self._settle(*self.results.get(), finished)
        if finished:
            self.store.finish(*finished, owner=self.owner)
        now = time.time()
        if planner_pool.broken():
            self._broken_since = self._broken_since or now
            if now - self._broken_since >= HEAL_S:
                planner_pool.pool()  # replaced even with no job waiting (a job would replace it at once)
        else:
            self._broken_since = None
        free = self.slots - len(self.inflight)
        for job in self.store.claim(self.owner, free) if free > 0 else []:
            try:
                self._submit(job)
            except Exception as err:  # never left claimed by nobody: back to the queue
                log.warning("job %s could not be started: %s", job.id, type(err).__name__)
                self.store.retry(job.id, 5.0, type(err).__name__, owner=self.owner)
        if now - self._pruned > 3600:
            self.store.prune()
            self._pruned = now

    def _submit(self, job: Job) -> None:
        client = self.client_for(job.team)
        if client is None:  # the workspace is gone (uninstalled)
            log.warning("job %s (%s) failed: no Slack installation for its workspace", job.id, job.kind)
            self.store.fail(job.id, "no installation", owner=self.owner)
            return
        slack = tasks.SlackAccess(
            api_url=client.base_url, token=client.token, timeout=_env_float("GPU_ADVISOR_SLACK_TIMEOUT", 30)
        )
        final = job.attempts >= max_attempts()
        fn_args = (
            tasks.run,
            job.id,
            job.kind,
            job.args,
            job.attempts,
            final,
            job.created_at,
            slack,
            _env_float("GPU_ADVISOR_RETRY_BASE_S", 1.0),
            job.team,
            self.owner,
            job.key,
            _env_float("GPU_ADVISOR_RETRY_AFTER_CAP_S", tasks.RETRY_AFTER_CAP_S),
        )
        if job.kind in LOCAL_KINDS:  # small SQLite writes: here, one at a time, in order
            future = self._local.submit(*fn_args)
        else:
            try:
                future = planner_pool.submit(*fn_args)
            except (BrokenProcessPool, RuntimeError):
                future = planner_pool.submit(*fn_args)  # pool() replaced the broken pool
        self.inflight[job.id] = job

        def done(f, job=job):
            self.results.put((job, f))
            self.wake()

        future.add_done_callback(done)

    def _tell(self, job: Job) -> None:
        """A job that failed for good, not on Slack's side: its user hears it, never silence."""
        args = job.args
        channel, user = args.get("channel"), args.get("user")
        if not channel or not user:
            return
        try:
            client = self.client_for(job.team)
            lang = args.get("lang") or reply_lang(args.get("text") or "", user=user, team=job.team)
            if client is not None:
                delivery.tell_user(client, channel, user, phrase(lang, "busy", file="bot"), args.get("response_url"))
        except Exception as err:
            log.error("could not tell %s about job %s: %s", user, job.id, type(err).__name__)

    def _settle(self, job: Job, future, finished: list[int]) -> None:
        self.inflight.pop(job.id, None)
        err = future.exception()
        if isinstance(err, BrokenProcessPool):
            if job.attempts >= max_attempts():
                self.store.fail(job.id, "planner died", owner=self.owner)
                self._tell(job)
            else:
                log.warning("job %s lost its planning process: queued again", job.id)
                self.store.retry(job.id, 0.2, "planner died", owner=self.owner)
            return
        if err is not None:
            log.error("background job failed: %s: %s", type(err).__name__, err)
            self.store.fail(job.id, type(err).__name__, owner=self.owner)
            self._tell(job)
            return
        outcome = future.result() or {}
        if "retry" in outcome:
            log.info("job %s (%s) will retry in %.1fs: %s", job.id, job.kind, outcome["after"], outcome["retry"])
            self.store.retry(job.id, float(outcome["after"]), outcome["retry"], owner=self.owner)
        elif "failed" in outcome:
            self.store.fail(job.id, outcome["failed"], owner=self.owner)
        else:
            log.info("job %s (%s, try %d) done by %s", job.id, job.kind, job.attempts, self.owner)
            finished.append(job.id)


__all__ = ["Busy", "enqueue", "record_done", "start", "healthy", "store"]
