"""The Bolt app: a thin adapter over advisor/ (ack, call, render, post).

One workspace with a static bot token, or many through OAuth when SLACK_CLIENT_ID and
SLACK_CLIENT_SECRET are set (slack_sdk's installation and OAuth-state stores, in the shared store:
SQLAlchemy's on Postgres, so an install begun on one host finishes on another)."""

from __future__ import annotations

import logging
import os

from slack_bolt import App
from slack_bolt.authorization.authorize import InstallationStoreAuthorize
from slack_bolt.oauth.oauth_settings import OAuthSettings

from bot import clients, dispatcher
from bot.acks import AckWaitingExecutor, give_signalling_ack
from bot.clients import for_workspaces, installation_store, web_client
from bot.listeners import actions, commands, events, home, lifecycle, modal
from bot.settings import Settings

# The fewest scopes that work (manifest.yml lists the same): the slash command, posting,
# reading mentions and thread replies, the user's locale, uploading the RFQ and charts.
BOT_SCOPES = [
    "commands",
    "chat:write",
    "app_mentions:read",
    "channels:history",
    "groups:history",
    "users:read",
    "files:write",
]


def create_app(settings: Settings | None = None, socket_mode: bool = False) -> App:
    settings = settings or Settings.from_env()
    store = None
    if settings.oauth and not socket_mode:
        store = installation_store(settings)
        oauth = OAuthSettings(
            client_id=settings.client_id,
            client_secret=settings.client_secret,
            scopes=BOT_SCOPES,
            installation_store=store,
            state_store=clients.state_store(),
        )
        client = web_client(settings)
        app = App(
            client=client,
            signing_secret=settings.signing_secret,
            oauth_settings=oauth,
            # Bolt's default authorisation calls auth.test before every request's ack (2.5 s when
            # Slack is slow, operator review); its result is kept per token for this process. An
            # uninstalled workspace is still refused: the store is read first, every request.
            authorize=InstallationStoreAuthorize(
                logger=logging.getLogger("slack_bolt.authorize"),
                installation_store=store,
                client_id=settings.client_id,
                client_secret=settings.client_secret,
                cache_enabled=True,
                client=client,
            ),
            listener_executor=AckWaitingExecutor(),
        )
    else:
        app = App(
            client=web_client(settings, settings.bot_token),
            signing_secret=settings.signing_secret,
            request_verification_enabled=not socket_mode,
            # the token is checked before the workers start (advisor/cli.py, clients.token_refused)
            # and again by Bolt at the first request: a Slack that does not answer while a worker
            # boots no longer kills it
            token_verification_enabled=False,
            listener_executor=AckWaitingExecutor(),
        )
    # Slack hears the ack when it is made, not at Bolt's next 10 ms look (bot/acks.py).
    app.use(give_signalling_ack)
    for listeners in (commands, events, actions, modal, home):
        listeners.register(app)
    lifecycle.register(app, store)
    # The planners take every acked request from the job store (bot/dispatcher.py); this also
    # finishes what a crash or restart left. GPU_ADVISOR_PLAN=0: this host only acks and
    # enqueues (`gpu-advisor work` processes plan).
    dispatcher.start(for_workspaces(settings), plans=os.environ.get("GPU_ADVISOR_PLAN", "1") != "0")
    return app
