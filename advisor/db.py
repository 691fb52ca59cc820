"""The SQLite file everything shares (GPU_ADVISOR_DB), and per-component schema migrations.

Each component (the price store, conversations, the bot's delivery log, ...) lists its
migrations; each runs once, in order, in a transaction, recorded in `schema_versions`. Web
workers, the scheduler and the CLI may open the same file at once: WAL mode and a busy
timeout let them, and BEGIN IMMEDIATE makes one process migrate while the others wait.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterator

import sqlite_utils

# A migration step: SQL statements separated by ";", or a function given the database.
Step = Callable[[sqlite_utils.Database], None]


def db_path() -> str:
    return os.environ.get("GPU_ADVISOR_DB", "gpu-advisor.db")


# The file holds every workspace's bot token (OAuth mode) and their recorded quotes: owner only.
FILE_MODE = 0o600


def _private(path: str) -> None:
    """Create the database file 0600 before SQLite opens it (SQLite gives its -wal and -shm
    files the main file's mode), and take group and other access away from files made
    before. In-memory and URI databases are left alone."""
    if not path or path == ":memory:" or path.startswith("file:"):
        return
    # Only a missing file is opened here: closing a descriptor of a database file that this
    # process has open elsewhere would drop that connection's POSIX locks (a SQLite caveat).
    if not os.path.exists(path):
        try:
            os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, FILE_MODE))
        except FileExistsError:
            pass  # another process made it a moment ago
        except OSError:
            return  # SQLite will say what is wrong with the path
    for p in (path, path + "-wal", path + "-shm"):
        try:
            if os.stat(p).st_mode & 0o077:
                os.chmod(p, FILE_MODE)
        except OSError:
            pass


WAL_SWITCH_TRIES = 20  # about 10 s in all (assumed ample: the switch itself takes milliseconds)


def connect(path: str | None = None) -> sqlite_utils.Database:
    path = path or db_path()
    _private(path)
    conn = sqlite3.connect(path, timeout=30, check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA busy_timeout=30000")
    # Switching to WAL takes a lock that can fail at once while another process writes; a file
    # that is already WAL (every one but a new file) needs no switch.
    for attempt in range(WAL_SWITCH_TRIES):
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError:
            # Two processes opening a new file at once: the switch does not wait on the busy
            # timeout, so the one that lost tries again in a moment.
            if attempt == WAL_SWITCH_TRIES - 1:
                raise
            time.sleep(0.05 * (attempt + 1))
    return sqlite_utils.Database(conn)


@contextlib.contextmanager
def writing(db: sqlite_utils.Database) -> Iterator[None]:
    """A transaction that holds the write lock from its start (BEGIN IMMEDIATE), so a process
    that finds another one writing waits for it (the busy timeout). sqlite-utils' atomic()
    begins a deferred transaction: one that has read first fails at once with "database is
    locked" when another process has written since. Inside a transaction: a savepoint."""
    if db.conn.in_transaction:
        with db.atomic():
            yield
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.rollback()
        raise
    db.commit()


def migrate(db: sqlite_utils.Database, component: str, migrations: list[tuple[int, str | Step]]) -> None:
    db.execute(
        "CREATE TABLE IF NOT EXISTS schema_versions (component TEXT, version INTEGER,"
        " applied_at TEXT, PRIMARY KEY (component, version))"
    )
    versions = db["schema_versions"]
    done = {r["version"] for r in versions.rows_where("component = ?", [component], select="version")}
    for version, step in migrations:
        if version in done:
            continue
        with writing(db):
            # Another process may have applied it between our read and our lock.
            if not versions.count_where("component = ? AND version = ?", [component, version]):
                if callable(step):
                    step(db)
                else:
                    for statement in step.split(";"):
                        if statement.strip():
                            db.execute(statement)
                db.execute("INSERT INTO schema_versions VALUES (?, ?, datetime('now'))", [component, version])
