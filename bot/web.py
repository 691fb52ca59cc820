"""HTTP mode: Flask serves POST /slack/events (commands, events, interactivity) and
GET /healthz; gunicorn runs it with threads (the Procfile's web process)."""

from __future__ import annotations

import os
import threading

from flask import Flask, request
from gunicorn.app.base import BaseApplication
from slack_bolt.adapter.flask import SlackRequestHandler

from advisor.request.parser import parse
from advisor.text.render import phrase, render
from bot import answers, clients, digests, pool
from bot.app import create_app
from bot.settings import Settings


def create_flask_app(settings: Settings | None = None) -> Flask:
    settings = settings or Settings.from_env()
    handler = SlackRequestHandler(create_app(settings))
    web = Flask("gpu-advisor")

    @web.post("/slack/events")
    def slack_events():
        return handler.handle(request)

    @web.get("/slack/install")
    def slack_install():
        return handler.handle(request)

    @web.get("/slack/oauth_redirect")
    def slack_oauth_redirect():
        return handler.handle(request)

    @web.get("/healthz")
    def healthz():
        return {"ok": True}

    if os.environ.get("GPU_ADVISOR_CLOCK_IN_WEB"):
        # One-process hosts (no shared disk between dynos): run the scheduler here, in one
        # worker only (WEB_CONCURRENCY=1); the SQLite claims still prevent double posts.
        threading.Thread(target=digests.clock, args=(clients.for_workspaces(settings),), name="gpu-advisor-clock",
                         daemon=True).start()
    return web


def warm_web() -> None:
    """What the web process itself needs warm for its first ack: imports, the parser (@mentions
    are read here), each language's phrases and the help text (they compile on first use).
    `serve` runs it in the gunicorn master before the port is bound (preload_app), so the
    first request after start never waits on it: Slack does not retry a slash command."""
    parse("70B full-finetune 1TB 14d budget")
    for lang in ("en", "zh"):
        phrase(lang, "working", "", file="bot")
        phrase(lang, "judging", file="bot")
        phrase(lang, "button", "replan", file="slack/card")
        render("help.txt.j2", lang)


def warm_up() -> None:
    """Load everything once before the first request, so the first acks do not wait on imports
    and the planning processes are already running."""
    warm_web()
    pool.start(answers.ready)


def _start_planners(_worker) -> None:
    """A gunicorn worker, once forked: start its planning processes in the background. Acks do
    not need them (a request waits in the pool's queue, not in the ack), so the worker takes
    connections at once."""
    threading.Thread(target=pool.start, args=(answers.ready,), name="gpu-advisor-warm", daemon=True).start()


def serve(settings: Settings) -> None:
    """gunicorn with threads, in this process."""
    # The workers read it too, to size their planning pools (bot/pool.py planners).
    os.environ.setdefault("WEB_CONCURRENCY", "2")

    class _Gunicorn(BaseApplication):
        def load_config(self):
            self.cfg.set("bind", f"0.0.0.0:{settings.port}")
            self.cfg.set("workers", int(os.environ["WEB_CONCURRENCY"]))
            self.cfg.set("worker_class", "gthread")
            self.cfg.set("threads", int(os.environ.get("WEB_THREADS") or 8))
            self.cfg.set("timeout", 60)
            self.cfg.set("accesslog", None)
            # The app is built and warmed in the master before it binds the port; each worker
            # then forks it ready and starts its planning processes (bot/pool.py) after the fork.
            self.cfg.set("preload_app", True)
            self.cfg.set("post_worker_init", _start_planners)

        def load(self):
            app = create_flask_app(settings)
            warm_web()
            return app

    _Gunicorn().run()
