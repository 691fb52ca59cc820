"""The bot's own tables in the shared store (advisor/db.py: DATABASE_URL, else the SQLite file):
opened with their schema current (Alembic, advisor/migrations), and closed however the work
ends."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from advisor import db as dbmod


@contextmanager
def opened(path: str | None = None) -> Iterator[dbmod.Database]:
    db = dbmod.connect(path)
    try:
        yield db
    finally:
        db.close()


def delete_workspace(db: dbmod.Database, table: str, workspace: str) -> int:
    """Delete a workspace's rows of `table` (an uninstall); returns how many there were."""
    with db.writing():
        return db[table].delete_where("workspace = ?", [workspace])
