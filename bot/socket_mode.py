"""Socket Mode for local development: no public URL, an app-level token instead."""

from __future__ import annotations

from slack_bolt.adapter.socket_mode import SocketModeHandler

from bot import dispatcher, heartbeats
from bot.app import create_app
from bot.settings import Settings


def run(settings: Settings) -> None:
    app = create_app(settings, socket_mode=True)
    heartbeats.start("socket", dispatcher.own_problem)
    SocketModeHandler(app, settings.app_token).start()
