"""Channels subscribed to the daily price digest, per workspace, with their posting time and
language."""

from __future__ import annotations

from pydantic import BaseModel

from advisor import db as dbmod

MIGRATIONS = [
    (1, """
        CREATE TABLE IF NOT EXISTS digest_subscriptions (
            workspace TEXT NOT NULL,
            channel TEXT NOT NULL,
            post_time TEXT NOT NULL DEFAULT '09:00',   -- HH:MM, Asia/Shanghai
            lang TEXT NOT NULL DEFAULT 'en',
            created_by TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL DEFAULT (datetime('now')),
            PRIMARY KEY (workspace, channel)
        )"""),
]


class Subscription(BaseModel):
    workspace: str
    channel: str
    post_time: str = "09:00"
    lang: str = "en"
    created_by: str = ""


def _db(path: str | None = None):
    db = dbmod.connect(path)
    dbmod.migrate(db, "subscriptions", MIGRATIONS)
    return db


def subscribe(sub: Subscription, path: str | None = None) -> None:
    db = _db(path)
    db.execute("INSERT INTO digest_subscriptions (workspace, channel, post_time, lang, created_by)"
               " VALUES (?, ?, ?, ?, ?) ON CONFLICT (workspace, channel) DO UPDATE SET lang = excluded.lang",
               [sub.workspace, sub.channel, sub.post_time, sub.lang, sub.created_by])
    db.conn.close()


def unsubscribe(workspace: str, channel: str, path: str | None = None) -> bool:
    db = _db(path)
    cursor = db.execute("DELETE FROM digest_subscriptions WHERE workspace = ? AND channel = ?", [workspace, channel])
    db.conn.close()
    return cursor.rowcount > 0


def set_time(workspace: str, channel: str, post_time: str, path: str | None = None) -> bool:
    db = _db(path)
    cursor = db.execute("UPDATE digest_subscriptions SET post_time = ? WHERE workspace = ? AND channel = ?",
                        [post_time, workspace, channel])
    db.conn.close()
    return cursor.rowcount > 0


def of_workspace(workspace: str, path: str | None = None) -> list[Subscription]:
    db = _db(path)
    rows = db.execute("SELECT workspace, channel, post_time, lang, created_by FROM digest_subscriptions"
                      " WHERE workspace = ? ORDER BY channel", [workspace]).fetchall()
    db.conn.close()
    return [Subscription(workspace=r[0], channel=r[1], post_time=r[2], lang=r[3], created_by=r[4]) for r in rows]


def all_subscriptions(path: str | None = None) -> list[Subscription]:
    db = _db(path)
    rows = db.execute("SELECT workspace, channel, post_time, lang, created_by FROM digest_subscriptions"
                      " ORDER BY workspace, channel").fetchall()
    db.conn.close()
    return [Subscription(workspace=r[0], channel=r[1], post_time=r[2], lang=r[3], created_by=r[4]) for r in rows]


def forget_workspace(workspace: str, path: str | None = None) -> int:
    db = _db(path)
    cursor = db.execute("DELETE FROM digest_subscriptions WHERE workspace = ?", [workspace])
    db.conn.close()
    return cursor.rowcount
