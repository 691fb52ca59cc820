"""HTTP mode: Flask serves POST /slack/events (commands, events, interactivity) and
GET /healthz; gunicorn runs it with threads (the Procfile's web process)."""

from __future__ import annotations

import functools
import gc
import logging
import os
import tempfile
import threading
import time

from flask import Flask, request
from gunicorn import util as gunicorn_util
from gunicorn.app.base import BaseApplication
from slack_bolt.adapter.flask import SlackRequestHandler
from slack_sdk.signature import SignatureVerifier

from advisor import db as dbmod
from advisor.request.fields import help_words
from advisor.request.parser import parse
from advisor.text.render import phrase, render
from bot import acks, clients, digests, dispatcher, heartbeats, logs, metrics
from bot.app import create_app
from bot.settings import Settings, host_port

# Slack's payloads are a few kB (a modal's state, a long message): anything bigger is refused
# before it is read.
MAX_BODY_BYTES = 512 * 1024
_REFUSED = ({"error": "invalid request"}, 401)
log = logging.getLogger("gpu_advisor.bot")
# A refused signature is logged at most once a minute a process: a mistyped SLACK_SIGNING_SECRET
# refuses every request, and a stranger's flood should not fill the log (assumed).
REFUSED_LOG_GAP_S = 60.0
_refused_logged = [0.0]


def _note_refused(reason: str) -> None:
    """Say why a request was refused, rate-limited, naming no header value or secret."""
    now = time.monotonic()
    if now - _refused_logged[0] >= REFUSED_LOG_GAP_S:
        _refused_logged[0] = now
        log.warning(
            "refused a request to /slack/events (%s): if Slack's own requests are refused, check"
            " SLACK_SIGNING_SECRET (the app's Basic Information page) and this host's clock",
            reason,
        )


def create_flask_app(settings: Settings | None = None) -> Flask:
    settings = settings or Settings.from_env()
    handler = SlackRequestHandler(create_app(settings))
    web = Flask("gpu-advisor")
    web.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES
    verifier = SignatureVerifier(settings.signing_secret or "")

    @web.post("/slack/events")
    def slack_events():
        acks.begin()  # the ack's time in the request's log line counts from here
        # The size first (nothing read yet), then the signature over the raw bytes, before any
        # parsing: a bad header is a 401, never a 500.
        if (request.content_length or 0) > MAX_BODY_BYTES:
            return {"error": "too large"}, 413
        body = request.get_data(cache=True)
        if len(body) > MAX_BODY_BYTES:
            return {"error": "too large"}, 413
        timestamp = request.headers.get("X-Slack-Request-Timestamp", "")
        if not timestamp.isdigit():
            _note_refused("no request timestamp")
            return _REFUSED
        if not verifier.is_valid(body, timestamp, request.headers.get("X-Slack-Signature", "")):
            _note_refused("bad signature or a timestamp over 5 minutes old")
            return _REFUSED
        try:
            response = handler.handle(request)
        except BaseException:
            acks.end()()
            raise
        response.call_on_close(acks.end())  # its log line once the ack is sent (bot/acks.py)
        return response

    @web.get("/slack/install")
    def slack_install():
        return handler.handle(request)

    @web.get("/slack/oauth_redirect")
    def slack_oauth_redirect():
        return handler.handle(request)

    @web.get("/healthz")
    def healthz():
        # 503 while the database does not answer, or while a planning process of a dispatcher
        # in this process died or the dispatcher stopped going round
        found = dispatcher.problems()
        if found:
            error = "planning pool broken" if found == ["planner died"] else dbmod.without_address("; ".join(found))
            return {"ok": False, "error": error, "host": os.uname().nodename}, 503
        # The processes of every kind live and well on the store (bot/heartbeats.py): a `serve
        # --no-plan` host's answers wait for `work` processes.
        try:
            with dbmod.Database(dispatcher.store()._url()) as db:
                found = heartbeats.processes(db)
        except Exception:  # the store just answered the ping: a moment's fault, said as unknown
            return {"ok": True, "host": os.uname().nodename, "live": None, "clocks": None}
        # A `serve` that plans does it in a `work` process beside gunicorn (bot/host.py): 503 while
        # none on this host is live and well, as when the planners lived in this process.
        supervisor = os.environ.get(heartbeats.SIBLING_ENV)
        trouble = heartbeats.planning_trouble(found, os.uname().nodename, int(supervisor)) if supervisor else ""
        if trouble:
            return {"ok": False, "error": trouble, "host": os.uname().nodename}, 503
        # The clocks' last digest rounds are shown, not judged here: a clock that fails to post
        # is no reason to take this web host out of a load balancer (`health --need clock` is).
        return {
            "ok": True,
            "host": os.uname().nodename,
            "live": heartbeats.live_of(found),
            "clocks": heartbeats.clock_rounds(found),
        }

    @web.get("/metrics")
    def metrics_scrape():
        # the store's bounded ping first, as /healthz: a database that does not answer is a 0, not
        # a scrape held until the scraper gives up
        backlog = live = None
        url = dispatcher.store()._url()
        if not dbmod.ping(url):
            try:
                backlog = dispatcher.store().backlog()
                with dbmod.Database(url) as db:
                    live = heartbeats.live_counts(db)
            except Exception:  # a moment's fault after the ping: said as down this once
                backlog = live = None
        return metrics.exposition(backlog, live), 200, {"Content-Type": "text/plain; version=0.0.4; charset=utf-8"}

    if os.environ.get("GPU_ADVISOR_CLOCK_IN_WEB"):
        # One-process hosts (no shared disk between dynos): run the scheduler here, in one
        # worker only (WEB_CONCURRENCY=1); the SQLite claims still prevent double posts.
        beat = heartbeats.start("clock", rounds_every=digests.interval_s())
        threading.Thread(
            target=digests.clock,
            args=(clients.for_workspaces(settings),),
            kwargs={"on_round": beat.round_done},
            name="gpu-advisor-clock",
            daemon=True,
        ).start()
    return web


def warm_web() -> None:
    """What the web process itself needs warm for its first ack: imports, the parser (@mentions
    are read here), each language's phrases and the help text (they compile on first use).
    Each gunicorn worker runs it before it takes its first connection (post_worker_init), so
    the first request after start never waits on it: Slack does not retry a slash command."""
    parse("70B full-finetune 1TB 14d budget")
    for lang in ("en", "zh"):
        phrase(lang, "working", "", file="bot")
        phrase(lang, "judging", file="bot")
        phrase(lang, "button", "replan", file="slack/card")
        render("help.txt.j2", lang, words=help_words(lang))


# gunicorn 26+ closes a `Connection: close` answer as RFC 9112 section 9.6 asks (util.close_graceful,
# PR #3590): its FIN, then reads until the client closes too, for up to 2 s, in the gthread
# worker's one loop that also accepts and hands on every request, so a client that reads its
# answer and keeps its socket open held each other request of that worker 1.8 s
# (docs/reliability.md). The lingering read only keeps unread request bytes from turning the close
# into a reset; every request here is read whole before its answer, and a peer's FIN takes one
# round trip: 0.25 s covers one across continents (assumed) and bounds the stall. Moving the close
# off that loop instead let each worker take on more requests at once and lengthened the acks'
# tail on two CPUs (tried, reverted: docs/reliability.md).
CLOSE_LINGER_S = 0.25


def _bound_close_linger() -> None:
    close = getattr(gunicorn_util, "close_graceful", None)  # gunicorn 26 and newer
    if close is not None and not isinstance(close, functools.partial):
        gunicorn_util.close_graceful = functools.partial(close, timeout=CLOSE_LINGER_S)


_beat: heartbeats.Heartbeat | None = None  # this web worker's, once it is ready


def _worker_gone(_server, _worker) -> None:
    """A web worker stopping cleanly (gunicorn's worker_exit, in the worker): its heartbeat row
    goes at once, so `health` no longer lists it as quiet for an hour (operator probe)."""
    if _beat is not None:
        _beat.stop()


def _worker_ready(_worker) -> None:
    """A gunicorn worker, its app built: warm what the acks use, then take connections. It only
    acks and enqueues: `work` processes plan (beside gunicorn when `serve` plans, bot/host.py)."""
    _bound_close_linger()
    warm_web()
    global _beat
    _beat = heartbeats.start("serve", dispatcher.own_problem)  # each web worker is a live `serve` process
    # What the worker loaded so far (modules, catalogs, templates: about 160,000 objects, four
    # times a bare Bolt app's) lives as long as it does. Frozen, the cyclic collector never
    # scans it again; before, a collection that did paused every ack in flight for 20-80 ms.
    gc.collect()
    gc.freeze()


# A Unix socket's path holds at most 107 bytes on Linux (sun_path), fewer elsewhere.
UNIX_PATH_MAX = 100


def control_socket(port: int) -> str:
    """The path of this `serve`'s gunicorn control socket (`gunicornc -s PATH`, gunicorn 25.1 and
    newer): one per port, in gunicorn's own folder for it ($XDG_RUNTIME_DIR, else ~/.gunicorn).
    gunicorn's default is one path per user (gunicorn.ctl), so a second `serve` on the machine
    removed the first's socket and took the path, and whichever stopped first removed the other's."""
    folder = os.environ.get("XDG_RUNTIME_DIR") or ""
    if not os.path.isdir(folder):
        folder = os.path.join(os.path.expanduser("~"), ".gunicorn")
    path = os.path.join(folder, f"gpu-advisor-{port}.ctl")
    if len(os.fsencode(path)) > UNIX_PATH_MAX:  # a deep home: the temp folder, named by user too
        path = os.path.join(tempfile.gettempdir(), f"gpu-advisor-{os.getuid()}-{port}.ctl")
    return path


def port_taken(port: int, address: str = "0.0.0.0") -> bool:
    """Whether something already listens on the port `serve` would bind (another `serve`): bound
    as gunicorn binds it (SO_REUSEADDR, so a closing connection's TIME_WAIT does not count)."""
    import socket

    if not port:
        return False  # any free port
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((address, port))
        except OSError:
            return True
    return False


def serve(settings: Settings) -> None:
    """gunicorn with threads, in this process, its workers acking only (GPU_ADVISOR_PLAN=0)."""
    os.environ.setdefault("WEB_CONCURRENCY", "2")
    # The schema made current and the reference prices seeded once, here, before the port is
    # bound: a worker's first ack never waits for a migration. No connection crosses the fork.
    from advisor.market.store import open_store

    open_store().close()
    dbmod.dispose()
    # Warmed here too (no thread, no connection): each worker forks with the imports, the parser's
    # tables and the compiled templates, so its own warm-up before its first connection is short
    # (the port is bound before the workers boot, and a loaded host had taken over 3 s to ack the
    # first command).
    warm_web()

    class _Gunicorn(BaseApplication):
        def load_config(self):
            self.cfg.set("bind", host_port(settings.bind, settings.port))
            self.cfg.set("workers", int(os.environ["WEB_CONCURRENCY"]))
            self.cfg.set("worker_class", "gthread")
            self.cfg.set("threads", int(os.environ.get("WEB_THREADS") or 8))
            self.cfg.set("timeout", 60)
            self.cfg.set("accesslog", None)
            self.cfg.set("logger_class", logs.GunicornLogger)
            if "control_socket" in self.cfg.settings:  # gunicorn 25.1+: one per serve, not per user
                self.cfg.set("control_socket", control_socket(settings.port))
            # Each worker builds its app (and its job dispatcher) after the fork; no thread is
            # started in the master, where it would not survive the fork.
            self.cfg.set("post_worker_init", _worker_ready)
            self.cfg.set("worker_exit", _worker_gone)

        def load(self):
            return create_flask_app(settings)

    _Gunicorn().run()
