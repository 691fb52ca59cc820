"""Threads under an answer: the request they started from and the plan it got, in the shared store, so
follow-ups ("what if 30 days?") survive a restart, and the plan the thread's what-ifs have
moved it to since, which the next message is answered against (the card's buttons keep the
first). Keys are opaque strings chosen by the caller (the bot uses workspace, channel and
thread timestamp)."""

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
    thread_text: str | None = None  # the request the thread's what-ifs have come to (None: the first)
    thread_summary: dict | None = None
    created_at: str = ""

    def current(self) -> tuple[str, dict]:
        """The request and plan the thread's next message is answered against."""
        if self.thread_text and self.thread_summary:
            return self.thread_text, self.thread_summary
        return self.request_text, self.summary


def _opened(path: str | None):
    return tables.opened(path)


def _conversation(row: dict) -> Conversation:
    moved = json.loads(row["thread_summary"]) if row.get("thread_summary") else None
    return Conversation(**{**row, "summary": json.loads(row["summary"]), "thread_summary": moved})


def save(conv: Conversation, path: str | None = None) -> None:
    with _opened(path) as db:
        db["conversations"].upsert(conv.model_dump(exclude={"created_at"}), pk="key")


def advance(key: str, request_text: str, summary: dict, path: str | None = None) -> None:
    """The thread moved by a what-if its team asked for: its next message is answered against
    this request and plan. One row's two columns in one statement: a reader sees both or neither."""
    with _opened(path) as db:
        db["conversations"].update(key, {"thread_text": request_text, "thread_summary": summary})


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
