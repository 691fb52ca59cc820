"""Alembic's migrations of every table, for SQLite and Postgres alike (`gpu-advisor migrate`;
also run on first use in a process). They ship inside the package: `upgrade` needs no
alembic.ini and works from any directory."""

from __future__ import annotations

import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The newest revision (tests/test_migrations.py checks it is the scripts' head).
HEAD = "0009"
# Postgres: the advisory lock every upgrading process takes, so hosts starting at once migrate
# one after another.
LOCK_KEY = zlib.crc32(b"gpu-advisor migrate")


def config():
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(HERE))
    return cfg


def current(db) -> str | None:
    """The revision the store is at (None: not under Alembic yet)."""
    try:
        if db.postgres:
            if db.execute("SELECT to_regclass('alembic_version')").fetchone()[0] is None:
                return None
        elif not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'alembic_version'").fetchone():
            return None
        row = db.execute("SELECT version_num FROM alembic_version").fetchone()
    except Exception:
        return None
    return row[0] if row else None


def upgrade(db, revision: str = "head") -> tuple[str | None, str | None]:
    """Upgrade the store of `db` (an advisor.db.Database) to `revision`, in one transaction; the
    revisions it was at and is at after. The first is read under the lock, so of two processes
    that upgrade at once only the one that did it says so (two `migrate` had both said "upgraded
    from nothing": operator review)."""
    from alembic import command

    with db.writing():
        if db.postgres:
            db.execute("SELECT pg_advisory_xact_lock(?)", [LOCK_KEY])
        before = current(db)
        if before != HEAD or revision != "head":
            cfg = config()
            cfg.attributes["connection"] = db._sa
            command.upgrade(cfg, revision)
    return before, current(db)
