"""Bolt answers Slack the moment a listener acks, not at its next 10 ms look.

Bolt runs each listener on its `listener_executor` and, in the request thread, looks for the ack
every 10 ms (slack_bolt ThreadListenerRunner: `while ack.response is None: time.sleep(0.01)`).
An ack that misses one look holds its web thread a tick longer, and under a burst the next
requests queue behind it (docs/reliability.md, "Ack latency"). Here a global middleware gives
each request an Ack that signals when called, and the executor's `submit` returns only once the
listener it starts has acked or ended: Bolt's first look finds the ack. What the listener does
after its ack goes on in the pool thread, as before.

A listener registered with the `inline` listener middleware (/gpu) skips even that hand-off: it
runs in the request thread, and what it does after its ack goes to the pool through `after`.
Measured under a burst, the two hand-offs of the GIL (request thread to pool thread and back)
took 1.3-1.5 ms at the median and 6-8 ms in the slowest acks (docs/reliability.md, nineteenth
session).

Each request also gets one log line (`Trace`), written once the response is sent and the
listener has ended, by whichever thread finishes last (never before the ack has gone out): the
host and process, the surface, the workspace, what the request became (the job's key, "replay:
already answered", "busy") and the ack's time from the request's arrival (`begin`, bot/web.py)
to the listener's ack. No token, signature or user text; no database round trip. A message event
the bot stays out of (chatter in a channel) is logged at DEBUG.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

from slack_bolt.context.ack import Ack

# Bolt gives a listener 3 s to ack (Listener.ack_timeout); submit waits no longer.
ACK_WAIT_S = 3.0
# Bolt's default pool for listeners (slack_bolt App: ThreadPoolExecutor(max_workers=5)).
LISTENER_THREADS = 5

log = logging.getLogger("gpu_advisor.requests")
_HOST = os.uname().nodename
# The request thread's ack, trace and arrival time (Bolt's request thread); the trace of the
# request a listener thread runs now (`note` finds it there).
_request = threading.local()
_listener = threading.local()
_SHOWN = 40  # at most this much of any one value Slack sent is logged


class Trace:
    """One Slack request, for its log line: written once every part it waits for is done (the
    response sent, over HTTP; the listener ended, when one took the request), so that neither the
    ack nor the thread that sends it ever waits on the log."""

    __slots__ = ("surface", "team", "started", "acked", "outcome", "waiting", "_lock")

    def __init__(self, surface: str, team: str, started: float, web: bool):
        self.surface, self.team, self.started = surface, team, started
        self.acked: float | None = None
        self.outcome: str | None = None
        self.waiting = {"response"} if web else set()
        self._lock = threading.Lock()

    def wait_for(self, part: str) -> None:
        with self._lock:
            self.waiting.add(part)

    def done(self, part: str) -> None:
        with self._lock:
            if part not in self.waiting:
                return
            self.waiting.discard(part)
            last = not self.waiting
        if last:
            self.emit()

    def emit(self) -> None:
        quiet = self.outcome is None and self.surface.startswith("event")
        level = logging.DEBUG if quiet else logging.INFO
        if not log.isEnabledFor(level):
            return
        took = f"acked in {(self.acked - self.started) * 1000:.1f} ms" if self.acked is not None else "not acked"
        log.log(
            level,
            "slack %s team %s on %s:%d: %s; %s",
            self.surface,
            self.team or "-",
            _HOST,
            os.getpid(),
            self.outcome or "nothing queued",
            took,
        )


def _cut(value) -> str:
    return str(value)[:_SHOWN].replace("\n", " ")


def _surface(body: dict) -> str:
    """command /gpu, event app_mention, action show_costs, view gpu_request..."""
    if "command" in body:
        return "command " + _cut(body["command"])
    kind = body.get("type") or "request"
    if kind == "event_callback":
        return "event " + _cut((body.get("event") or {}).get("type", "?"))
    if kind == "block_actions":
        actions = body.get("actions") or [{}]
        return "action " + _cut(actions[0].get("action_id", "?"))
    if kind in ("view_submission", "view_closed"):
        return "view " + _cut((body.get("view") or {}).get("callback_id", "?"))
    return _cut(kind)


def begin() -> None:
    """A request arrived over HTTP (bot/web.py, before its signature is checked): its ack is
    timed from now, and its line waits for the response to be sent (`end`)."""
    _request.started = time.perf_counter()
    _request.trace = None


def _nothing() -> None:
    pass


def end():
    """Bolt made the response: what to call once it is sent (Flask's call_on_close)."""
    trace = getattr(_request, "trace", None)
    _request.trace = _request.started = None
    return _nothing if trace is None else (lambda: trace.done("response"))


def note(outcome: str) -> None:
    """What the request being handled in this thread became (bot/dispatcher.py): a job's key,
    a replay, busy. Outside a request, nothing."""
    trace = getattr(_listener, "trace", None) or getattr(_request, "trace", None)
    if trace is not None:
        trace.outcome = outcome if trace.outcome is None else f"{trace.outcome}; {outcome}"


class SignallingAck(Ack):
    """Bolt's Ack that also sets `done` when called (and times the first call)."""

    def __init__(self, trace: Trace | None = None):
        super().__init__()
        self.done = threading.Event()
        self.trace = trace

    def __call__(self, *args, **kwargs):
        response = super().__call__(*args, **kwargs)
        if self.trace is not None and self.trace.acked is None:
            self.trace.acked = time.perf_counter()
        self.done.set()
        return response


def give_signalling_ack(context, body, next) -> None:
    """Global middleware, in the request thread before Bolt runs a listener: the request's ack,
    remembered for this thread's next `submit`, and its trace."""
    started = getattr(_request, "started", None)
    team = context.team_id or context.enterprise_id or ""
    trace = Trace(_surface(body or {}), _cut(team), started or time.perf_counter(), web=started is not None)
    ack = SignallingAck(trace)
    context["ack"] = ack
    _request.ack = ack
    _request.trace = trace
    next()


def inline(next) -> None:
    """Listener middleware (in the request thread, just before Bolt submits the listener): run
    this listener in the request thread. Only for listeners whose every step after the ack goes
    through `after`: the response leaves when the listener returns."""
    _request.inline = True
    next()


def after(fn, *args) -> None:
    """What a listener does after its ack (a Web API call): on the listener pool when the
    listener runs in the request thread (`inline`), so the response does not wait for it; else
    here and now (the listener already runs on the pool)."""
    pool = getattr(_listener, "pool", None)
    if pool is None:
        fn(*args)
        return

    def run():
        try:
            fn(*args)
        except Exception:  # no listener around it any more: Bolt's error handler does not see it
            log.exception("after the ack: %s failed", getattr(fn, "__name__", "work"))

    pool.submit(run)


class AckWaitingExecutor(ThreadPoolExecutor):
    """Runs listeners on a pool; `submit` from a request thread with a pending ack returns once the
    listener acked (or ended, or ACK_WAIT_S passed); one marked `inline` runs in the calling
    thread. Other submits (lazy listeners, `after`) return at once."""

    def __init__(self, max_workers: int = LISTENER_THREADS):
        super().__init__(max_workers=max_workers, thread_name_prefix="bolt-listener")

    def submit(self, fn, /, *args, **kwargs) -> Future:
        ack = getattr(_request, "ack", None)
        here = getattr(_request, "inline", False)
        _request.ack = None
        _request.inline = False
        if ack is None:
            return super().submit(fn, *args, **kwargs)
        trace = ack.trace
        if trace is not None:
            trace.wait_for("listener")  # what the request became is known when the listener ends

        def run():
            _listener.trace = trace
            _listener.pool = self if here else None
            try:
                return fn(*args, **kwargs)
            finally:
                ack.done.set()  # an error or no ack at all: Bolt's own handling takes over
                _listener.trace = _listener.pool = None
                if trace is not None:
                    trace.done("listener")

        if here:
            done: Future = Future()
            try:
                done.set_result(run())
            except BaseException as err:  # Bolt's wrapper handles the listener's own errors
                done.set_exception(err)
            return done
        future = super().submit(run)
        ack.done.wait(ACK_WAIT_S)
        return future
