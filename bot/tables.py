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


def delete_workspace(db: sqlite_utils.Database, table: str, workspace: str) -> int:
    """Delete a workspace's rows of `table` (an uninstall); returns how many there were."""
    with db.atomic():
        count = db[table].count_where("workspace = ?", [workspace])
        db[table].delete_where("workspace = ?", [workspace])
    return count
