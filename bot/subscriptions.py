"""Channels subscribed to the daily price digest, per workspace, with their posting time and
language."""

from __future__ import annotations

from pydantic import BaseModel

from advisor.db import NotFound
from bot import tables


class Subscription(BaseModel):
    workspace: str
    channel: str
    post_time: str = "09:00"
    lang: str = "en"
    created_by: str = ""
    tz: str = ""


_COLUMNS = "workspace, channel, post_time, lang, created_by, tz"


def _opened(path: str | None):
    return tables.opened(path)


def subscribe(sub: Subscription, path: str | None = None) -> None:
    """Subscribe a channel; subscribing again changes only its language (its time stays)."""
    with _opened(path) as db, db.writing():
        table = db["digest_subscriptions"]
        table.insert(sub.model_dump(), ignore=True)
        table.update((sub.workspace, sub.channel), {"lang": sub.lang})


def unsubscribe(workspace: str, channel: str, path: str | None = None) -> bool:
    with _opened(path) as db:
        found = db["digest_subscriptions"].delete_where("workspace = ? AND channel = ?", [workspace, channel]) > 0
    return found


def set_time(workspace: str, channel: str, post_time: str, path: str | None = None) -> bool:
    with _opened(path) as db:
        table = db["digest_subscriptions"]
        try:
            table.update((workspace, channel), {"post_time": post_time})
        except NotFound:
            return False
    return True


def of_workspace(workspace: str, path: str | None = None) -> list[Subscription]:
    with _opened(path) as db:
        rows = list(
            db["digest_subscriptions"].rows_where("workspace = ?", [workspace], order_by="channel", select=_COLUMNS)
        )
    return [Subscription(**r) for r in rows]


def all_subscriptions(path: str | None = None) -> list[Subscription]:
    with _opened(path) as db:
        rows = list(db["digest_subscriptions"].rows_where(order_by="workspace, channel", select=_COLUMNS))
    return [Subscription(**r) for r in rows]


def forget_workspace(workspace: str, path: str | None = None) -> int:
    with _opened(path) as db:
        return tables.delete_workspace(db, "digest_subscriptions", workspace)
