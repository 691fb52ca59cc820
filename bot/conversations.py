"""Threads under an answer: the request they started from and the plan it got, in the shared store, so
follow-ups ("what if 30 days?") survive a restart. Keys are opaque strings chosen by the
caller (the bot uses workspace, channel and thread timestamp)."""

from __future__ import annotations

import json

from pydantic import BaseModel

from bot import tables


class Conversation(BaseModel):
    key: str
    workspace: str
    user: str
    request_text: str
    lang: str
    summary: dict
    created_at: str = ""


def _opened(path: str | None):
    return tables.opened(path)


def _conversation(row: dict) -> Conversation:
    return Conversation(**{**row, "summary": json.loads(row["summary"])})


def save(conv: Conversation, path: str | None = None) -> None:
    with _opened(path) as db:
        db["conversations"].upsert(conv.model_dump(exclude={"created_at"}), pk="key")


def load(key: str, path: str | None = None) -> Conversation | None:
    with _opened(path) as db:
        row = next(db["conversations"].rows_where("key = ?", [key]), None)
    return _conversation(row) if row else None


def recent(workspace: str, user: str | None = None, limit: int = 10, path: str | None = None) -> list[Conversation]:
    where, args = ('workspace = ? AND "user" = ?', [workspace, user]) if user else ("workspace = ?", [workspace])
    with _opened(path) as db:
        rows = list(db["conversations"].rows_where(where, args, order_by="created_at DESC", limit=limit))
    return [_conversation(r) for r in rows]


def forget_workspace(workspace: str, path: str | None = None) -> int:
    with _opened(path) as db:
        return tables.delete_workspace(db, "conversations", workspace)
