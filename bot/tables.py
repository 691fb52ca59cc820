"""The bot's own tables in the shared SQLite file (advisor/db.py): opened with their
migrations applied, and closed however the work ends."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import sqlite_utils

from advisor import db as dbmod


@contextmanager
def opened(
    component: str, migrations: list[tuple[int, str]], path: str | None = None
) -> Iterator[sqlite_utils.Database]:
    db = dbmod.connect(path)
    # WAL with synchronous=NORMAL: the bot's commits survive any process crash without an fsync
    # each, so the write lock they hold is short for the acks that wait on it (bot/jobstore.py).
    db.execute("PRAGMA synchronous=NORMAL")
    try:
        dbmod.migrate(db, component, migrations)
        yield db
    finally:
        db.conn.close()
