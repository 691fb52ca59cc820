"""Exactly-once handling of Slack deliveries across retries, duplicate events and several
worker processes: the first process to record a key handles it (a unique key in SQLite)."""

from __future__ import annotations

from advisor import db as dbmod

MIGRATIONS = [
    (1, """CREATE TABLE IF NOT EXISTS handled (
             key TEXT PRIMARY KEY,
             handled_at TEXT NOT NULL DEFAULT (datetime('now'))
         )"""),
]


def first_time(key: str) -> bool:
    """True for the first caller with this key, in any process sharing the database."""
    db = dbmod.connect()
    try:
        dbmod.migrate(db, "bot_dedup", MIGRATIONS)
        cursor = db.execute("INSERT OR IGNORE INTO handled (key) VALUES (?)", [key])
        return cursor.rowcount == 1
    finally:
        db.conn.close()
