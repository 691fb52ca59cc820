"""Threads under an answer: the request they started from and the plan it got, in SQLite, so
follow-ups ("what if 30 days?") survive a restart. Keys are opaque strings chosen by the
caller (the bot uses workspace, channel and thread timestamp)."""

from __future__ import annotations

import json

from pydantic import BaseModel

from advisor import db as dbmod

MIGRATIONS = [
    (1, """
        CREATE TABLE IF NOT EXISTS conversations (
            key TEXT PRIMARY KEY,
            workspace TEXT NOT NULL DEFAULT '',
            user TEXT NOT NULL DEFAULT '',
            request_text TEXT NOT NULL,
            lang TEXT NOT NULL,
            summary TEXT NOT NULL,            -- JSON: the first plan's headline numbers
            created_at TEXT NOT NULL DEFAULT (datetime('now'))
        );
        CREATE INDEX IF NOT EXISTS conversations_workspace ON conversations (workspace, created_at)
    """),
]


class Conversation(BaseModel):
    key: str
    workspace: str
    user: str
    request_text: str
    lang: str
    summary: dict
    created_at: str = ""


def _db(path: str | None):
    db = dbmod.connect(path)
    dbmod.migrate(db, "conversations", MIGRATIONS)
    return db


def save(conv: Conversation, path: str | None = None) -> None:
    db = _db(path)
    db.execute(
        "INSERT OR REPLACE INTO conversations (key, workspace, user, request_text, lang, summary)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [conv.key, conv.workspace, conv.user, conv.request_text, conv.lang, json.dumps(conv.summary)],
    )
    db.conn.close()


def load(key: str, path: str | None = None) -> Conversation | None:
    db = _db(path)
    row = db.execute("SELECT key, workspace, user, request_text, lang, summary, created_at"
                     " FROM conversations WHERE key = ?", [key]).fetchone()
    db.conn.close()
    if row is None:
        return None
    return Conversation(key=row[0], workspace=row[1], user=row[2], request_text=row[3], lang=row[4],
                        summary=json.loads(row[5]), created_at=row[6])


def recent(workspace: str, user: str | None = None, limit: int = 10, path: str | None = None) -> list[Conversation]:
    db = _db(path)
    sql = ("SELECT key, workspace, user, request_text, lang, summary, created_at FROM conversations"
           " WHERE workspace = ?" + (" AND user = ?" if user else "") + " ORDER BY created_at DESC LIMIT ?")
    args = [workspace, *([user] if user else []), limit]
    rows = db.execute(sql, args).fetchall()
    db.conn.close()
    return [Conversation(key=r[0], workspace=r[1], user=r[2], request_text=r[3], lang=r[4],
                         summary=json.loads(r[5]), created_at=r[6]) for r in rows]


def forget_workspace(workspace: str, path: str | None = None) -> int:
    db = _db(path)
    cursor = db.execute("DELETE FROM conversations WHERE workspace = ?", [workspace])
    db.conn.close()
    return cursor.rowcount
