"""The SQLite file everything shares (GPU_ADVISOR_DB), and per-component schema migrations.

Each component (conversations, the bot's delivery log, ...) lists its migrations; each runs
once, in order, in a transaction, recorded in `schema_versions`. Web workers, the scheduler
and the CLI may open the same file at once: WAL mode and a busy timeout let them.
"""

from __future__ import annotations

import os
import sqlite3

import sqlite_utils


def db_path() -> str:
    return os.environ.get("GPU_ADVISOR_DB", "gpu-advisor.db")


def connect(path: str | None = None) -> sqlite_utils.Database:
    conn = sqlite3.connect(path or db_path(), timeout=30, check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA busy_timeout=30000")
    return sqlite_utils.Database(conn)


def migrate(db: sqlite_utils.Database, component: str, migrations: list[tuple[int, str]]) -> None:
    db.execute("CREATE TABLE IF NOT EXISTS schema_versions (component TEXT, version INTEGER,"
               " applied_at TEXT, PRIMARY KEY (component, version))")
    done = {r[0] for r in db.execute("SELECT version FROM schema_versions WHERE component = ?",
                                     [component]).fetchall()}
    for version, sql in migrations:
        if version in done:
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have applied it between our read and our lock.
            if not db.execute("SELECT 1 FROM schema_versions WHERE component = ? AND version = ?",
                              [component, version]).fetchone():
                for statement in sql.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute("INSERT INTO schema_versions VALUES (?, ?, datetime('now'))", [component, version])
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
