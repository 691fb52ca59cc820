"""The database everything shares, through SQLAlchemy Core: one engine per process and store,
pooled connections.

- `DATABASE_URL` unset: the SQLite file GPU_ADVISOR_DB (the embedded default). WAL mode and a
  busy timeout let web workers, planners, the clock and the CLI open it at once; a transaction
  that writes takes the write lock at its start (BEGIN IMMEDIATE).
- `DATABASE_URL=postgresql://user@host:port/db`: every table in that Postgres (psycopg 3), and
  no SQLite file is written anywhere.

The schema is Alembic's (advisor/migrations, run by `gpu-advisor migrate` and on first use in a
process): the same revisions for both engines. On SQLite the first revision also runs the price
store's older sqlite-utils migrations (advisor/market/store.py MIGRATIONS), so a file made by an
earlier release is upgraded in place with its rows.

`Database` is a connection with the few calls the stores use: `execute` and `query` take SQL
with `?` (or `:name`) parameters on both engines, `writing()` is a write transaction, and
`db[table]` gives the row helpers of sqlite-utils that the code and tests use (rows_where,
count_where, insert_all, upsert, update, get, delete_where).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import sqlalchemy as sa
import sqlite_utils
from sqlalchemy import event
from sqlalchemy.engine import Engine

log = logging.getLogger("gpu_advisor.db")

# A legacy migration step (SQLite only): SQL statements separated by ";", or a function given
# the sqlite-utils database.
Step = Callable[[sqlite_utils.Database], None]


def db_path() -> str:
    return os.environ.get("GPU_ADVISOR_DB", "gpu-advisor.db")


def database_url() -> str:
    """The store this process uses: DATABASE_URL, else the SQLite file GPU_ADVISOR_DB."""
    url = (os.environ.get("DATABASE_URL") or "").strip()
    if url:
        return url
    return "sqlite:///" + db_path()


# The schemes DATABASE_URL may name: PostgreSQL (psycopg 3, the driver shipped) or a SQLite file.
URL_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg", "sqlite")


def url_problem(url: str) -> str | None:
    """What is wrong with the shape of DATABASE_URL, in words (never quoting its password), or
    None: a scheme other than PostgreSQL's or SQLite's, a port that is not a number."""
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme not in URL_SCHEMES:
        return f"it must start with postgresql:// (or sqlite:///path), not {(scheme or url[:12])!r}"
    try:
        port = urlsplit(url).port  # urllib raises on a port that is no number or out of range
    except ValueError:
        port = -1
    return "its port is not a number from 0 to 65535" if port == -1 else None


def is_postgres(url: str | None = None) -> bool:
    return (url or database_url()).split(":", 1)[0].split("+", 1)[0] in ("postgres", "postgresql")


def redact(url: str) -> str:
    """The URL without its password (what logs and health checks may show): the one before the
    host and one given as libpq's `?password=` parameter."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable database URL>"
    if parts.password is not None:
        netloc = parts.netloc.rsplit("@", 1)
        parts = parts._replace(netloc=f"{parts.username or ''}:***@{netloc[-1]}")
    query = parse_qsl(parts.query, keep_blank_values=True)
    if any(k == "password" for k, _ in query):
        masked = urlencode([(k, "***" if k == "password" else v) for k, v in query], safe="*")
        parts = parts._replace(query=masked)
    return urlunsplit(parts)


def secrets_of(url: str) -> list[str]:
    """The password as written in the URL, before the host or as `?password=`, and each part of
    it after an '@' left unencoded: libpq splits the address at the first '@', so an error
    can quote the rest as the host."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found = [parts.password or ""] + [v for k, v in parse_qsl(parts.query) if k == "password"]
    return sorted({piece for p in found for piece in [p, *p.split("@")[1:]] if piece}, key=len, reverse=True)


def _sqlalchemy_url(url: str) -> str:
    scheme, rest = url.split(":", 1)
    if scheme in ("postgres", "postgresql"):
        return "postgresql+psycopg:" + rest
    if scheme == "sqlite":
        return "sqlite+pysqlite:" + rest
    return url


def sqlite_file(url: str | None = None) -> str | None:
    """The SQLite file of `url` (None for Postgres)."""
    url = url or database_url()
    if is_postgres(url):
        return None
    return url.split(":///", 1)[1] if ":///" in url else db_path()


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


PG_LOCK_TIMEOUT_MS = 10000
# What an ack may wait for the database; past it the user is asked to send the request again.
ACK_WAIT_S = 0.5
# What an ack's statement on Postgres may take in all before the client gives up on it: the lock
# timeout (ACK_WAIT_S, said by the server) and a round trip's margin. A server that stopped
# answering mid-query (frozen, a failover dropping packets) is covered by neither the lock timeout
# nor libpq's connect timeout; it had held an ack 11.9 s (operator review; Slack waits 3 s).
ACK_ANSWER_S = ACK_WAIT_S + 1.0
# After an ack found the server not answering (no answer in ACK_ANSWER_S, no session in
# ACK_CONNECT_S), the acks of the next ACK_HOLD_OFF_S in this process are told busy without asking
# it: each had held one of the host's threads (gunicorn's 8 a worker) 2 s, and the requests queued
# behind them were acked after 5.5 s (bench/multihost.py, Postgres frozen 8 s). One ack after the
# hold-off asks again.
ACK_HOLD_OFF_S = 1.0
_silent_until: dict[str, float] = {}
# libpq's shortest connect timeout (shorter values are read as 2 s): the ack path's, against the
# store's 3 s, so a fresh ack connection to a server that does not answer still fits in 3 s.
ACK_CONNECT_S = 2
WAL_SWITCH_TRIES = 20  # about 10 s in all (assumed ample: the switch itself takes milliseconds)
BUSY_MS = 30000


def _sqlite_setup(conn: sqlite3.Connection) -> None:
    conn.execute(f"PRAGMA busy_timeout={BUSY_MS}")
    # Switching to WAL takes a lock that can fail at once while another process writes; a file
    # that is already WAL (every one but a new file) needs no switch.
    for attempt in range(WAL_SWITCH_TRIES):
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] not in ("wal", "memory"):
                conn.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError:
            # Two processes opening a new file at once: the switch does not wait on the busy
            # timeout, so the one that lost tries again in a moment.
            if attempt == WAL_SWITCH_TRIES - 1:
                raise
            time.sleep(0.05 * (attempt + 1))
    # WAL with synchronous=NORMAL: a commit survives any process crash (kill -9) without an
    # fsync of its own, which keeps the write lock short; a power loss may lose the last commits.
    # GPU_ADVISOR_JOBS_SYNC=full makes each commit fsync.
    conn.execute("PRAGMA synchronous=" + ("FULL" if os.environ.get("GPU_ADVISOR_JOBS_SYNC") == "full" else "NORMAL"))


_engines: dict[tuple[str, int], Engine] = {}
_engines_lock = threading.Lock()
# url -> raised by `dispose`, and by an ack connection found broken (Postgres restarted): a
# thread's ack connection older than that is reopened (a test that removed the file; never a
# connection to a file that is gone, or to a server that went away).
_ack_epoch: dict[str, int] = {}


def _pg_connect_args(lock_timeout_ms: int, connect_s: int = 3) -> dict:
    host = os.uname().nodename
    return {
        "connect_timeout": connect_s,
        "application_name": f"gpu-advisor {host}:{os.getpid()}"[:63],
        # Nothing waits long for a lock held by another host (a stuck migration, a long import):
        # the ack path is told "busy", the rest tries again.
        "options": f"-c lock_timeout={lock_timeout_ms}",
    }


def engine(url: str | None = None) -> Engine:
    """The engine of `url` (DATABASE_URL or GPU_ADVISOR_DB) in this process: made once, after a
    fork made again (a pool's connections never cross processes). Connections are in
    autocommit: a transaction is what `Database.writing()` (or `begin()`) opens. The ack path
    has connections of its own (`_ack_conn`)."""
    url = url or database_url()
    key = (url, os.getpid())
    with _engines_lock:
        found = _engines.get(key)
        if found is not None:
            return found
        if is_postgres(url):
            made = sa.create_engine(
                _sqlalchemy_url(url),
                isolation_level="AUTOCOMMIT",
                # No ping before each checkout (a round trip each time): a connection Postgres
                # dropped (a restart) fails once, and the pool then replaces all its connections.
                pool_pre_ping=False,
                pool_size=int(os.environ.get("GPU_ADVISOR_DB_POOL") or 5),
                max_overflow=20,
                pool_timeout=10,
                pool_recycle=1800,
                connect_args=_pg_connect_args(PG_LOCK_TIMEOUT_MS),
            )
        else:
            path = sqlite_file(url) or db_path()
            made = sa.create_engine(
                _sqlalchemy_url(url),
                isolation_level="AUTOCOMMIT",
                poolclass=sa.pool.QueuePool,
                pool_size=5,
                max_overflow=50,
                connect_args={"timeout": BUSY_MS / 1000, "check_same_thread": False},
            )

            @event.listens_for(made, "do_connect")
            def _before(dialect, conn_rec, cargs, cparams, path=path):  # noqa: ARG001
                _private(path)

            @event.listens_for(made, "connect")
            def _on_connect(dbapi_conn, conn_rec):  # noqa: ARG001
                _sqlite_setup(dbapi_conn)

        _engines[key] = made
        return made


def dispose(url: str | None = None) -> None:
    """Close this process's pooled connections of `url` (tests that remove a file; shutdown)."""
    url = url or database_url()
    with _engines_lock:
        made = _engines.pop((url, os.getpid()), None)
    _current.discard((url, os.getpid()))
    _ack_epoch[url] = _ack_epoch.get(url, 0) + 1
    if made is not None:
        made.dispose()


# ----------------------------------------------------------------------------------------
# SQL on both engines

_QMARK = re.compile(r"\?")
_NAMED = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")


def _pg_sql(sql: str, named: bool) -> str:
    sql = sql.replace("%", "%%")
    if named:
        return _NAMED.sub(r"%(\1)s", sql)
    return _QMARK.sub("%s", sql)


def _pg_value(v: Any) -> Any:
    return int(v) if isinstance(v, bool) else v


def _params(params: Any, postgres: bool) -> Any:
    if params is None:
        return {} if postgres else ()
    if isinstance(params, dict):
        return {k: _pg_value(v) for k, v in params.items()} if postgres else params
    return tuple(_pg_value(v) for v in params) if postgres else tuple(params)


class Unreachable(sa.exc.OperationalError):
    """The store could not be connected to: a closed port, a wrong user or password, a database
    that does not exist, a SQLite file that cannot be opened. Still an OperationalError (what
    runs on retries it as before); the command line says it as a configuration problem
    (`explain`), never with the password."""

    def __init__(self, url: str, err: sa.exc.DBAPIError):
        super().__init__(err.statement, None, err.orig, hide_parameters=True)
        self.url = url

    def __reduce__(self):  # crosses process boundaries (a planning process's error)
        return Unreachable, (self.url, sa.exc.OperationalError(self.statement, None, self.orig, True))

    def parts(self) -> dict:
        """Where the store is, without the password, and why it did not answer."""
        url = self.url
        reason = str(self.orig or "").strip().splitlines()[0] if str(self.orig or "").strip() else "no reason given"
        if not is_postgres(url):
            return {"postgres": False, "file": sqlite_file(url) or "", "reason": reason}
        try:
            parts = urlsplit(url)
            port = parts.port or 5432
        except ValueError:
            parts, port = None, "?"
        password = parts.password if parts is not None else None
        # libpq's words: 'connection failed: connection to server at "h", port 5 failed: FATAL:  why'
        reason = re.sub(r"^.*? port \d+ failed: ", "", reason.removeprefix("connection failed: "))
        reason = re.sub(r"^FATAL:\s+", "", reason)
        for secret in secrets_of(url):
            reason = reason.replace(secret, "***")
        low = reason.lower()
        kind = (
            "database"
            if "database" in low and "does not exist" in low
            else "login"
            if any(w in low for w in ("password", "role", "pg_hba", "authentication"))
            else "server"
        )
        if password and "@" in password:
            # libpq took the address from the first '@': say so, quoting none of it
            reason, kind = "the password holds an '@': write it as %40 in DATABASE_URL", "login"
        return {
            "postgres": True,
            "where": redact(url),
            "host": (parts.hostname if parts is not None else None) or "localhost",
            "port": port,
            "database": ((parts.path if parts is not None else "") or "/").lstrip("/") or "(the user's own)",
            "user": (parts.username if parts is not None else None) or "(the system user)",
            "reason": reason,
            "kind": kind,
        }


class Database:
    """One connection from the engine's pool, with the calls the stores make."""

    def __init__(self, url: str | None = None, eng: Engine | None = None):
        self.engine = eng or engine(url)
        self.url = url or database_url()
        self.postgres = self.engine.dialect.name == "postgresql"
        self.dialect = self.engine.dialect.name
        try:
            self._sa = self.engine.connect()
        except (sa.exc.OperationalError, sa.exc.ProgrammingError, sa.exc.DatabaseError) as err:
            # libpq refusing an option (`?bogus=1`: ProgrammingError), a file that is no SQLite
            # database (DatabaseError): configuration, said as an unreachable store is
            raise Unreachable(self.url, err) from err
        self.raw = self._sa.connection.dbapi_connection
        self._depth = 0
        self._savepoints = 0

    # -- identity --
    @property
    def key(self) -> str:
        """What names this store in caches and logs (the URL without its password)."""
        return redact(self.url)

    @property
    def conn(self) -> Database:  # sqlite-utils' db.conn.close() and db.conn.commit()
        return self

    def close(self) -> None:
        if self._sa is not None:
            if self._depth:
                with contextlib.suppress(Exception):
                    self._driver("ROLLBACK")
                self._depth = 0
            self._sa.close()
            self._sa = None

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def commit(self) -> None:
        """Nothing to do outside `writing()` (connections are in autocommit)."""

    @property
    def in_transaction(self) -> bool:
        return self._depth > 0

    # -- statements --
    def _driver(self, sql: str, params: Any = None):
        if self.postgres:
            named = isinstance(params, dict)
            return self._sa.exec_driver_sql(_pg_sql(sql, named), _params(params, True))
        return self._sa.exec_driver_sql(sql, _params(params, False))

    def execute(self, sql: str, params: Any = None) -> Rows:
        """Run one statement (`?` or `:name` parameters); its rows, read whole (fetchone,
        fetchall, rowcount, iteration). Read whole: a cursor left open on SQLite keeps its read
        transaction, and the pooled connection would see that old snapshot afterwards."""
        return Rows(self._driver(sql, params))

    def executemany(self, sql: str, rows: list) -> int:
        """One statement for many parameter rows; the rows changed."""
        if not rows:
            return 0
        if self.postgres:
            named = isinstance(rows[0], dict)
            cur = self.raw.cursor()
            try:
                cur.executemany(_pg_sql(sql, named), [_params(r, True) for r in rows])
                return max(0, cur.rowcount)
            finally:
                cur.close()
        before = self.raw.total_changes
        self.raw.executemany(sql, [tuple(r) if not isinstance(r, dict) else r for r in rows])
        return self.raw.total_changes - before

    def query(self, sql: str, params: Any = None) -> Iterator[dict]:
        """The rows of a SELECT as dicts."""
        result = self._driver(sql, params)
        yield from [dict(row) for row in result.mappings()]

    def __getitem__(self, name: str) -> Table:
        return Table(self, name)

    def table_names(self) -> list[str]:
        return sa.inspect(self._sa).get_table_names()

    # -- transactions --
    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """A write transaction. On SQLite it holds the write lock from its start (BEGIN
        IMMEDIATE), so a process that finds another one writing waits for it (the busy timeout);
        inside a transaction: a savepoint."""
        if self._depth:
            self._savepoints += 1
            name = f"sp{self._savepoints}"
            self._driver(f"SAVEPOINT {name}")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._driver(f"ROLLBACK TO SAVEPOINT {name}")
                self._driver(f"RELEASE SAVEPOINT {name}")
                raise
            finally:
                self._depth -= 1
            self._driver(f"RELEASE SAVEPOINT {name}")
            return
        self._driver("BEGIN" if self.postgres else "BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield
        except BaseException:
            self._depth = 0
            with contextlib.suppress(Exception):
                self._driver("ROLLBACK")
            raise
        self._depth = 0
        self._driver("COMMIT")

    atomic = writing

    def rollback(self) -> None:
        if self._depth:
            self._depth = 0
            self._driver("ROLLBACK")

    def legacy(self) -> sqlite_utils.Database:
        """This SQLite connection as sqlite-utils sees it (the older migrations)."""
        if self.postgres:
            raise RuntimeError("sqlite-utils runs on SQLite only")
        return sqlite_utils.Database(self.raw)

    def now_sql(self) -> str:
        """The database's clock, in seconds since the epoch, as an SQL expression."""
        if self.postgres:
            return "extract(epoch from clock_timestamp())::double precision"
        return "((julianday('now') - 2440587.5) * 86400.0)"


def now_sql(postgres: bool) -> str:
    if postgres:
        return "extract(epoch from clock_timestamp())::double precision"
    return "((julianday('now') - 2440587.5) * 86400.0)"


class Rows:
    """A statement's rows, fetched at once, and its rowcount."""

    def __init__(self, result):
        self.rowcount = result.rowcount
        if result.returns_rows:
            self._keys = list(result.keys())
            self._rows = result.fetchall()
        else:
            self._keys, self._rows = [], []
        result.close()
        self._at = 0

    def fetchone(self):
        if self._at >= len(self._rows):
            return None
        self._at += 1
        return self._rows[self._at - 1]

    def fetchall(self) -> list:
        rest, self._at = self._rows[self._at :], len(self._rows)
        return rest

    def __iter__(self):
        return iter(self.fetchall())

    def keys(self) -> list[str]:
        return self._keys


class NotFound(Exception):
    pass


class _Named:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


_pks: dict[tuple[str, str], tuple[str, ...]] = {}


def _pk_of(db: Database, name: str) -> tuple[str, ...]:
    key = (db.url, name)
    if key not in _pks:
        found = tuple(sa.inspect(db._sa).get_pk_constraint(name).get("constrained_columns") or ())
        if not found:
            return ("rowid",) if not db.postgres else ("id",)
        _pks[key] = found
    return _pks[key]


def _cell(v: Any) -> Any:
    """A value as sqlite-utils stores it: dicts and lists as JSON."""
    return json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list, tuple)) else v


def _q(column: str) -> str:
    return f'"{column}"'


class Table:
    """The row helpers of sqlite-utils' Table that the stores and tests use, on both engines."""

    def __init__(self, db: Database, name: str):
        self.db, self.name = db, name

    def _select(self, where, args, select="*", order_by=None, limit=None) -> tuple[str, Any]:
        sql = f"SELECT {select} FROM {self.name}"
        if where:
            sql += f" WHERE {where}"
        if order_by:
            sql += f" ORDER BY {order_by}"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return sql, args

    def rows_where(self, where=None, where_args=None, select="*", order_by=None, limit=None) -> Iterator[dict]:
        yield from self.db.query(*self._select(where, where_args, select, order_by, limit))

    @property
    def rows(self) -> Iterator[dict]:
        return self.rows_where()

    def count_where(self, where=None, where_args=None) -> int:
        sql = f"SELECT count(*) FROM {self.name}" + (f" WHERE {where}" if where else "")
        return self.db.execute(sql, where_args).fetchone()[0]

    @property
    def count(self) -> int:
        return self.count_where()

    def exists(self) -> bool:
        return self.name in self.db.table_names()

    @property
    def columns(self) -> list[_Named]:
        return [_Named(c["name"]) for c in sa.inspect(self.db._sa).get_columns(self.name)]

    @property
    def indexes(self) -> list[_Named]:
        if self.db.postgres:
            rows = self.db.execute("SELECT indexname FROM pg_indexes WHERE tablename = ?", [self.name]).fetchall()
        else:
            rows = [(r[1],) for r in self.db.execute(f"PRAGMA index_list({self.name})").fetchall()]
        return [_Named(r[0]) for r in rows]

    def delete_where(self, where=None, where_args=None) -> int:
        sql = f"DELETE FROM {self.name}" + (f" WHERE {where}" if where else "")
        return self.db.execute(sql, where_args).rowcount

    def _insert_sql(self, columns: list[str], ignore: bool, upsert_pk: tuple[str, ...] | None = None) -> str:
        marks = ", ".join("?" for _ in columns)
        sql = f"INSERT INTO {self.name} ({', '.join(map(_q, columns))}) VALUES ({marks})"
        if upsert_pk:
            rest = [c for c in columns if c not in upsert_pk]
            sets = ", ".join(f"{_q(c)} = excluded.{_q(c)}" for c in rest)
            sql += f" ON CONFLICT ({', '.join(map(_q, upsert_pk))}) " + (
                f"DO UPDATE SET {sets}" if sets else "DO NOTHING"
            )
        elif ignore:
            sql += " ON CONFLICT DO NOTHING"
        return sql

    def insert(self, record: dict, ignore: bool = False) -> int:
        return self.insert_all([record], ignore=ignore)

    def insert_all(self, records: list[dict], ignore: bool = False) -> int:
        """Insert rows (ON CONFLICT DO NOTHING with `ignore`); the rows inserted."""
        records = list(records)
        if not records:
            return 0
        written = 0
        groups: dict[tuple[str, ...], list[tuple]] = {}
        for r in records:
            groups.setdefault(tuple(r), []).append(tuple(_cell(v) for v in r.values()))
        for columns, rows in groups.items():
            written += self.db.executemany(self._insert_sql(list(columns), ignore), rows)
        return written

    def upsert(self, record: dict, pk: str | tuple[str, ...] | None = None) -> None:
        pk = (pk,) if isinstance(pk, str) else tuple(pk or _pk_of(self.db, self.name))
        self.db.execute(self._insert_sql(list(record), False, pk), [_cell(v) for v in record.values()])

    def _pk_where(self, pk_values) -> tuple[str, list]:
        values = list(pk_values) if isinstance(pk_values, (list, tuple)) else [pk_values]
        pk = _pk_of(self.db, self.name)
        return " AND ".join(f"{_q(c)} = ?" for c in pk), values

    def get(self, pk_values) -> dict:
        where, args = self._pk_where(pk_values)
        row = next(self.rows_where(where, args), None)
        if row is None:
            raise NotFound(f"{self.name}: {pk_values!r}")
        return row

    def update(self, pk_values, updates: dict) -> None:
        where, args = self._pk_where(pk_values)
        sets = ", ".join(f"{_q(c)} = ?" for c in updates)
        if (
            self.db.execute(
                f"UPDATE {self.name} SET {sets} WHERE {where}", [*map(_cell, updates.values()), *args]
            ).rowcount
            == 0
        ):
            raise NotFound(f"{self.name}: {pk_values!r}")


# ----------------------------------------------------------------------------------------
# Opening a store, with its schema current


_current: set[tuple[str, int]] = set()


def connect(path: str | None = None, url: str | None = None) -> Database:
    """A connection to the store (`url`, else the SQLite file `path`, else DATABASE_URL or
    GPU_ADVISOR_DB), with the schema migrated to Alembic's head."""
    url = url or ("sqlite:///" + path if path else database_url())
    db = Database(url)
    try:
        ensure_schema(db)
    except BaseException:
        db.close()
        raise
    return db


def ensure_schema(db: Database) -> None:
    """Upgrade the schema to head unless this process already saw it there (one read of
    alembic_version otherwise). Two processes that upgrade at once: one waits (SQLite's write
    lock; Postgres's advisory lock), then finds it done."""
    key = (db.url, os.getpid())
    if key in _current:
        return
    from advisor import migrations

    if migrations.current(db) != migrations.HEAD:
        migrations.upgrade(db)
    _current.add(key)


def migrate_legacy(db: sqlite_utils.Database, component: str, migrations: list[tuple[int, str | Step]]) -> None:
    """The sqlite-utils migrations of the releases before Alembic (SQLite only): each runs once,
    in order, in a transaction, recorded in `schema_versions`."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS schema_versions (component TEXT, version INTEGER,"
        " applied_at TEXT, PRIMARY KEY (component, version))"
    )
    versions = db["schema_versions"]
    done = {r["version"] for r in versions.rows_where("component = ?", [component], select="version")}
    for version, step in migrations:
        if version in done:
            continue
        with _legacy_writing(db):
            # Another process may have applied it between our read and our lock.
            if not versions.count_where("component = ? AND version = ?", [component, version]):
                if callable(step):
                    step(db)
                else:
                    for statement in step.split(";"):
                        if statement.strip():
                            db.execute(statement)
                db.execute("INSERT INTO schema_versions VALUES (?, ?, datetime('now'))", [component, version])


_portable_done: set[tuple[str, str, int]] = set()


def migrate_steps(db: Database, component: str, migrations: list[tuple[int, str | Step]]) -> None:
    """On Postgres: the steps of a component's older list that Alembic's first revision did not
    record (steps appended since), each once, in a transaction, under the migration lock. A step
    is SQL text or a function given this Database (which has the sqlite-utils calls the steps
    make: db[table].columns, execute, query, conn.executemany). Checked once per process."""
    key = (db.url, component, os.getpid())
    if key in _portable_done:
        return
    from advisor import migrations as alembic_migrations

    done = {r[0] for r in db.execute("SELECT version FROM schema_versions WHERE component = ?", [component])}
    for version, step in migrations:
        if version in done:
            continue
        with db.writing():
            db.execute("SELECT pg_advisory_xact_lock(?)", [alembic_migrations.LOCK_KEY])
            if db.execute(
                "SELECT 1 FROM schema_versions WHERE component = ? AND version = ?", [component, version]
            ).fetchone():
                continue
            if callable(step):
                step(db)
            else:
                for statement in step.split(";"):
                    if statement.strip():
                        db.execute(statement)
            db.execute(
                "INSERT INTO schema_versions (component, version, applied_at) VALUES (?, ?, CAST(now() AS TEXT))",
                [component, version],
            )
        log.info("migrated %s to version %s on %s", component, version, db.key)
    _portable_done.add(key)


@contextlib.contextmanager
def _legacy_writing(db: sqlite_utils.Database) -> Iterator[None]:
    if db.conn.in_transaction:
        with db.atomic():
            yield
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.conn.rollback()
        raise
    db.conn.commit()


def writing(db: Database) -> contextlib.AbstractContextManager[None]:
    """A write transaction on `db` (Database.writing)."""
    return db.writing()


# ----------------------------------------------------------------------------------------
# The ack path

# An ack that finds the SQLite file locked tries again after this long, growing to the cap.
# SQLite's own busy handler sleeps 1, 2, 5, 10, 15, 20, 25 ... ms between tries, so under a
# burst of acks that each hold the write lock well under a millisecond, the unlucky ones slept
# 50 to 100 ms (the ack p99 was three times a bare Bolt app's).
ACK_RETRY_S, ACK_RETRY_CAP_S = 0.0002, 0.002
_ack_local = threading.local()
# The ack connections a forked child inherited: kept, never closed there (closing a Postgres
# connection ends the server's session, which the parent still uses).
_inherited: list[dict] = []


def _libpq_url(url: str) -> str:
    """`url` as libpq reads it: a SQLAlchemy-style scheme (postgresql+psycopg) without its driver."""
    scheme, rest = url.split(":", 1)
    return scheme.split("+", 1)[0] + ":" + rest


def _ack_conn(url: str):
    """This thread's own connection for the ack path, opened once (`_open_ack`) and again after
    `dispose` or a broken connection (`_ack_epoch`)."""
    conns = getattr(_ack_local, "conns", None)
    if conns is None or _ack_local.pid != os.getpid():  # a fork starts with none of its own
        if conns:
            _inherited.append(conns)
        conns = _ack_local.conns = {}
        _ack_local.pid = os.getpid()
    found = conns.get(url)
    if found is None or found[0] != _ack_epoch.get(url, 0):
        for other, (epoch, conn) in list(conns.items()):  # this one, and any other gone stale
            if epoch != _ack_epoch.get(other, 0):
                del conns[other]
                with contextlib.suppress(Exception):
                    conn.close()
        found = conns[url] = (_ack_epoch.get(url, 0), _open_ack(url))
    return found[1]


def _open_ack(url: str):
    """SQLite: no busy timeout (`_ack_run` waits itself), no WAL checkpoint (an fsync of the
    whole file; the other connections run them), the same synchronous setting as every
    connection. Postgres: psycopg in autocommit, whose statements wait ACK_WAIT_S for a lock,
    not PG_LOCK_TIMEOUT_MS (Slack gives an ack 3 s), and ACK_ANSWER_S for an answer
    (`_AckConnection`)."""
    if (url, os.getpid()) not in _current:
        # the schema current (and the SQLite file made 0600), once per process: not again on a
        # reconnect, whose pooled checkout would wait on a server that does not answer
        connect(url=url).close()
    if is_postgres(url):
        import psycopg

        try:
            return _ack_connection_class().connect(
                _libpq_url(url), autocommit=True, **_pg_connect_args(int(ACK_WAIT_S * 1000), ACK_CONNECT_S)
            )
        except psycopg.errors.ConnectionTimeout as err:
            _silent_until[url] = time.monotonic() + ACK_HOLD_OFF_S
            raise sa.exc.DBAPIError.instance("connect", [], err, psycopg.Error, hide_parameters=True) from err
        except psycopg.Error as err:
            # refused while Postgres shuts down or starts up (57P03): "busy, send it again", as a
            # refused connection is, not a 500 (operator review: 3 acks over two restarts)
            raise sa.exc.DBAPIError.instance("connect", [], err, psycopg.Error, hide_parameters=True) from err
    conn = sqlite3.connect(sqlite_file(url), timeout=0, isolation_level=None, check_same_thread=False)
    _sqlite_setup(conn)
    conn.execute("PRAGMA busy_timeout=0")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    return conn


_AckClass: list[type] = []


def _ack_connection_class() -> type:
    """psycopg's Connection whose every wait for the server ends after ACK_ANSWER_S (psycopg 3.3's
    `wait(..., timeout=)`, raising its `_WaitTimeout`, an OperationalError). Made on first use:
    psycopg is imported only where Postgres is."""
    if not _AckClass:
        import psycopg

        class _AckConnection(psycopg.Connection):
            def wait(self, gen, interval=0.1, timeout=None):
                return super().wait(gen, interval, ACK_ANSWER_S if timeout is None else min(timeout, ACK_ANSWER_S))

        _AckClass.append(_AckConnection)
    return _AckClass[0]


def ack_read(sql: str, params: list | tuple = (), url: str | None = None) -> list[tuple]:
    """A query of the ack path (`?` parameters) and its rows (see `_ack_run`)."""
    return _ack_run(sql, params, url or database_url(), write=False)


def ack_insert(
    sql: str, params: list | tuple = (), url: str | None = None, read: tuple[str, list] | None = None
) -> tuple[int | None, tuple | None]:
    """An `INSERT ... ON CONFLICT DO NOTHING` of the ack path, committed when this returns: the
    new row's id (None when the row was there already), and the row of `read`, what the ack also
    reads (a select list of scalar expressions over other tables, and its parameters; None
    without one). On Postgres the two are one statement (a WITH that inserts), so one round
    trip; on SQLite two steps of the driver. See `_ack_run`."""
    url = url or database_url()
    if is_postgres(url):
        if read is None:
            rows = _ack_run(sql + " RETURNING id", params, url, write=True)
            return (rows[0][0] if rows else None), None
        both = f"WITH inserted AS ({sql} RETURNING id) SELECT (SELECT id FROM inserted), {read[0]}"
        row = _ack_run(both, [*params, *read[1]], url, write=True)[0]
        return row[0], tuple(row[1:])
    new = _ack_run(sql, params, url, write=True)
    if read is None:
        return new, None
    return new, tuple(_ack_run(f"SELECT {read[0]}", read[1], url, write=False)[0])


def _ack_run(sql: str, params: list | tuple, url: str, write: bool):
    """One statement of the ack path. It waits at most ACK_WAIT_S for a lock (Postgres: its
    lock timeout), else raises sqlalchemy's DBAPIError as `Database.execute` does.

    It runs on a connection this thread keeps (`_ack_conn`), straight through the driver: a
    pooled checkout and SQLAlchemy's result objects (on SQLite also the two PRAGMAs that set
    and reset the busy timeout) cost CPU and hand-offs of the GIL that count under a burst on
    two CPUs (docs/reliability.md, "Ack latency"). On SQLite a write is one step of the driver
    (no RETURNING, whose row would come back before the statement ends), so SQLite's write lock
    is released before this thread waits for the GIL again, and the file is never held by a
    thread that is not running."""
    if is_postgres(url):
        if time.monotonic() < _silent_until.get(url, 0.0):
            raise sa.exc.OperationalError(sql, params, Silent("no answer from the database a moment ago"), True)
        return _ack_postgres(_ack_conn(url), sql, params, url)
    conn = _ack_conn(url)
    deadline = time.monotonic() + ACK_WAIT_S
    pause = ACK_RETRY_S
    while True:
        try:
            cur = conn.execute(sql, params)
            if write:
                return cur.lastrowid if cur.rowcount > 0 else None
            return cur.fetchall()
        except sqlite3.OperationalError as err:
            # SQLITE_BUSY ("database is locked"): another connection writes; try again shortly
            if "locked" not in str(err) or time.monotonic() + pause > deadline:
                _ack_failed(url, conn, err)
                raise sa.exc.DBAPIError.instance(sql, params, err, sqlite3.Error, hide_parameters=True) from err
        except sqlite3.Error as err:
            _ack_failed(url, conn, err)
            raise sa.exc.DBAPIError.instance(sql, params, err, sqlite3.Error, hide_parameters=True) from err
        time.sleep(pause)
        pause = min(pause * 1.5, ACK_RETRY_CAP_S)


class Silent(Exception):
    """An ack told busy without asking the database, which did not answer a moment ago."""


def _ack_postgres(conn, sql: str, params: list | tuple, url: str) -> list[tuple]:
    import psycopg

    try:
        cur = conn.execute(_pg_sql(sql, False), _params(params, True))
        return cur.fetchall() if cur.description else []
    except psycopg.errors._WaitTimeout as err:
        # No answer in ACK_ANSWER_S: the statement may still be running, so the connection's state
        # is unknown; this thread opens a new one next time (the others keep theirs: a server
        # that is merely slow has not ended them).
        _ack_local.conns.pop(url, None)
        conn.close()
        _silent_until[url] = time.monotonic() + ACK_HOLD_OFF_S
        raise sa.exc.DBAPIError.instance(sql, params, err, psycopg.Error, hide_parameters=True) from err
    except psycopg.Error as err:
        if conn.broken:  # the server went away (a restart): every thread's connection is stale
            _ack_epoch[url] = _ack_epoch.get(url, 0) + 1
        raise sa.exc.DBAPIError.instance(sql, params, err, psycopg.Error, hide_parameters=True) from err


def _ack_failed(url: str, conn: sqlite3.Connection, err: sqlite3.Error) -> None:
    """Anything but a lock: this thread opens a fresh connection next time."""
    if "locked" not in str(err):
        _ack_local.conns.pop(url, None)
        conn.close()


# libpq's server address in an error ('at "db.internal" (10.0.0.5), port 5432', 'on socket "..."'):
# left out of what a public health check shows (operator review: /healthz is reachable by anyone the
# load balancer serves); `gpu-advisor health` keeps it
_ADDRESS = re.compile(r'\s*(?:at|on socket)\s+"[^"]*"(?:\s*\([^)]*\))?(?:,\s*port\s+\d+)?')


def without_address(reason: str) -> str:
    """A store's failure as a public health check shows it: the server's address left out."""
    return _ADDRESS.sub("", reason)


def ping(url: str | None = None, timeout_s: float = 2.0) -> str | None:
    """None when the store answers a query within `timeout_s`, else a short reason (for /healthz;
    no secrets). The query runs in a thread of its own: a server that takes the connection and
    never answers (frozen, or a failover that drops packets) had held /healthz 11.7 s and then
    said ok (operator review), since neither the statement timeout nor libpq's connect timeout
    covers a server that stopped mid-query."""
    found: list[str | None] = []
    asked = threading.Thread(target=lambda: found.append(_ping(url, timeout_s)), daemon=True, name="store-ping")
    asked.start()
    asked.join(timeout_s + 1.0)
    return found[0] if found else f"no answer within {timeout_s + 1.0:g} s"


def _ping(url: str | None, timeout_s: float) -> str | None:
    try:
        with engine(url).connect() as c:
            if c.dialect.name == "postgresql":
                c.exec_driver_sql(f"SET statement_timeout = {int(timeout_s * 1000)}")
            c.exec_driver_sql("SELECT 1").fetchone()
        return None
    except Exception as err:
        # the driver's first line (libpq's "connection to server at ... failed: Connection refused"),
        # every part of the password masked: a bare "OperationalError" had told an operator nothing
        cause = getattr(err, "orig", None) or err
        first = (str(cause).strip().splitlines() or [""])[0][:200]
        for secret in secrets_of(url or database_url()):
            first = first.replace(secret, "***")
        return f"{type(err).__name__}: {first}" if first else type(err).__name__
