"""A workspace that uninstalls the app or revokes its tokens: its tokens, threads,
subscriptions, users' languages, pending jobs and recorded quotes are deleted."""

from __future__ import annotations

import logging
from contextlib import closing

from advisor.market.store import delete_owner, open_store
from bot import conversations, dispatcher, locales, subscriptions

log = logging.getLogger("gpu_advisor.bot")


def forget(team: str, installation_store=None, enterprise: str | None = None) -> None:
    if installation_store is not None:
        installation_store.delete_all(enterprise_id=enterprise, team_id=team)
    threads = conversations.forget_workspace(team)
    subs = subscriptions.forget_workspace(team)
    locales.forget_workspace(team)
    dispatcher.store().forget_workspace(team)
    quotes = _forget_quotes(team)
    log.info(
        "workspace %s removed: %d threads, %d subscriptions, %d recorded quotes deleted", team, threads, subs, quotes
    )


def _forget_quotes(team: str) -> int:
    """The quotes the workspace recorded (/gpu quote) leave the price store with it."""
    with closing(open_store()) as db:
        return delete_owner(db, team)


def register(app, installation_store=None) -> None:
    def on_uninstalled(ack, body, context):
        ack()
        forget(body.get("team_id") or context.team_id or "", installation_store, body.get("enterprise_id"))

    def on_revoked(ack, event, body, context):
        ack()
        if event.get("tokens", {}).get("bot"):
            forget(body.get("team_id") or context.team_id or "", installation_store, body.get("enterprise_id"))

    app.event("app_uninstalled")(on_uninstalled)
    app.event("tokens_revoked")(on_revoked)
