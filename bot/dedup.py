"""Exactly-once handling of Slack deliveries across retries, duplicate events and several
worker processes: the first process to record a key handles it (a unique key in SQLite)."""

from __future__ import annotations

from bot import tables

MIGRATIONS = [
    (1, """CREATE TABLE IF NOT EXISTS handled (
             key TEXT PRIMARY KEY,
             handled_at TEXT NOT NULL DEFAULT (datetime('now'))
         )"""),
]


def first_time(key: str) -> bool:
    """True for the first caller with this key, in any process sharing the database."""
    with tables.opened("bot_dedup", MIGRATIONS) as db:
        # One statement decides, atomically across processes: the insert that changed a row won.
        return db.execute("INSERT OR IGNORE INTO handled (key) VALUES (?)", [key]).rowcount == 1
