"""The Bolt app: a thin adapter over advisor/ (ack, call, render, post)."""

from __future__ import annotations

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler, ServerErrorRetryHandler

from bot.listeners import commands, events
from bot.settings import Settings


def web_client(settings: Settings) -> WebClient:
    # 429s wait for Retry-After; 5xx get two more tries. Bolt copies these handlers into the
    # client each request gets (slack_bolt/app/app.py).
    return WebClient(
        token=settings.bot_token,
        base_url=settings.api_url,
        retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=3), ServerErrorRetryHandler(max_retry_count=2)],
    )


def create_app(settings: Settings | None = None, socket_mode: bool = False) -> App:
    settings = settings or Settings.from_env()
    app = App(
        token=settings.bot_token,
        client=web_client(settings),
        signing_secret=settings.signing_secret,
        request_verification_enabled=not socket_mode,
    )
    commands.register(app)
    events.register(app)
    return app
