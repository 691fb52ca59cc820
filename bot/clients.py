"""Slack Web API clients: one with the retry handlers every post relies on, and one per
workspace from the OAuth installations (or the static bot token)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)
from slack_sdk.oauth.installation_store.sqlite3 import SQLite3InstallationStore

from advisor import db as dbmod
from advisor.db import db_path
from bot.settings import Settings

log = logging.getLogger("gpu_advisor.bot")


def web_client(settings: Settings, token: str | None = None, timeout: float | None = None) -> WebClient:
    # 429s wait for Retry-After; 5xx and connection errors get two more tries. Bolt copies these
    # handlers into the client each request gets (slack_bolt/app/app.py).
    return WebClient(
        token=token,
        base_url=settings.api_url,
        timeout=int(timeout or 30),
        retry_handlers=[
            RateLimitErrorRetryHandler(max_retry_count=3),
            ServerErrorRetryHandler(max_retry_count=2),
            ConnectionErrorRetryHandler(max_retry_count=2),
        ],
    )


def job_client(api_url: str, token: str | None, timeout: float | None = None) -> WebClient:
    """The client a planning process posts with: no handler sleeps there (a Retry-After for one
    channel must not hold a process other channels' answers wait for). Its failures go back to
    the job queue with their backoff (bot/dispatcher.py), per job and so per channel."""
    return WebClient(token=token, base_url=api_url, timeout=int(timeout or 30), retry_handlers=[])


# auth.test's errors that say the token itself is wrong (Slack's API docs for auth.test and its
# common errors): no retry mends these, the operator must.
TOKEN_REFUSED = ("invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive", "invalid_token")
TOKEN_CHECK_TIMEOUT_S = 10  # a start waits at most this for Slack (assumed); unanswered, it goes on


def token_refused(settings: Settings) -> str | None:
    """The error code when Slack refuses the bot token (auth.test), else None: also when Slack
    does not answer, which a start must outlive (the app checks the token again at its first
    request)."""
    if not settings.bot_token:
        return None
    try:
        job_client(settings.api_url, settings.bot_token, TOKEN_CHECK_TIMEOUT_S).auth_test()
    except SlackApiError as err:
        code = str(err.response.get("error") or "")
        return code if code in TOKEN_REFUSED else None
    except Exception as err:  # unreachable, a timeout: said, not fatal
        log.warning("Slack did not answer auth.test at start (%s): serving anyway", type(err).__name__)
    return None


_made: set[tuple[str, str]] = set()


def _tables_once(kind: str, create) -> None:
    """slack_sdk's stores create their tables themselves: once per process and store (two hosts
    that start at once: the loser finds them made)."""
    key = (kind, dbmod.database_url())
    if key in _made:
        return
    try:
        create()
    except Exception:  # another host created them a moment ago
        create()
    _made.add(key)


def installation_store(settings: Settings):
    """slack_sdk's store of OAuth installations, in the shared store: its SQLite store in the
    SQLite file, its SQLAlchemy store (the same engine, pooled) on Postgres."""
    if dbmod.is_postgres():
        from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore

        found = SQLAlchemyInstallationStore(client_id=settings.client_id, engine=dbmod.engine())
        _tables_once("installations", found.create_tables)
        return found
    return SQLite3InstallationStore(database=db_path(), client_id=settings.client_id)


def state_store(expiration_seconds: int = 600):
    """slack_sdk's store of OAuth states (an install begun on one host finishes on another)."""
    if dbmod.is_postgres():
        from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore

        found = SQLAlchemyOAuthStateStore(expiration_seconds=expiration_seconds, engine=dbmod.engine())
        _tables_once(
            "states", found.metadata.create_all if not hasattr(found, "create_tables") else found.create_tables
        )
        return found
    from slack_sdk.oauth.state_store.sqlite3 import SQLite3OAuthStateStore

    return SQLite3OAuthStateStore(database=db_path(), expiration_seconds=expiration_seconds)


def for_workspaces(settings: Settings) -> Callable[[str], WebClient | None]:
    """workspace -> a client with its bot token, None when the workspace has no installation."""

    def client_for(workspace: str) -> WebClient | None:
        token = settings.bot_token
        if settings.oauth:
            bot = installation_store(settings).find_bot(enterprise_id=None, team_id=workspace)
            token = bot.bot_token if bot else None
        return web_client(settings, token) if token else None

    return client_for
