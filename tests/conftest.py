import contextlib
import io
import os
import sys
from contextlib import closing
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def cli(tmp_path, monkeypatch):
    """`gpu-advisor ARGS` run in this process: `advisor.cli.main(argv)` with stdout and stderr
    captured, in an empty directory, with its own database file (GPU_ADVISOR_DB). Returns what
    `subprocess.run` would: .returncode, .stdout, .stderr. The entry point itself, in a real
    process, is tested in test_cli.py (smoke tests)."""
    from advisor.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GPU_ADVISOR_DB", str(tmp_path / "test.db"))

    def run(*args, env=None):
        out, err = io.StringIO(), io.StringIO()
        with monkeypatch.context() as m, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            for name, value in (env or {}).items():
                m.setenv(name, value)
            try:
                code = main([str(a) for a in args])
            except SystemExit as exit_:  # argparse refuses the arguments
                code = exit_.code if isinstance(exit_.code, int) else 1
        return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())

    return run


@pytest.fixture
def book(tmp_path, monkeypatch):
    """The price book of a fresh store in a temporary SQLite file: the shared prices (the
    reference seed), at the seed's exchange rate."""
    from advisor.market.prices import price_book
    from advisor.market.store import open_store

    monkeypatch.delenv("GPU_ADVISOR_USD_CNY", raising=False)
    with closing(open_store(str(tmp_path / "prices.db"))) as db:
        return price_book(db, None)


SECRET = "test-signing-secret-0123456789"
BOT_TOKEN = "xoxb-test-token-do-not-leak"


@pytest.fixture(scope="session")
def fake_slack():
    from slack_fake import FakeSlack

    fake = FakeSlack().start()
    yield fake
    fake.stop()


@pytest.fixture
def drain():
    """Call it to wait until every job handed to the bot's planning pool so far has finished
    (and posted what it posts): see pool_drain.py."""
    from pool_drain import drain as drain_pool

    from bot import planner_pool

    return lambda: drain_pool(planner_pool.pool())


@pytest.fixture
def settled_fake(fake_slack, drain):
    """A fake with no calls recorded; afterwards, replies still in flight land before the next
    test scripts it (the planning pool is drained, nothing is slept)."""
    fake_slack.reset()
    yield fake_slack
    drain()


class BotServer:
    """The real Bolt app behind Flask, served over HTTP on loopback in this process."""

    def __init__(self, fake):
        import threading

        from werkzeug.serving import make_server

        from bot.settings import Settings
        from bot.web import create_flask_app, warm_web

        settings = Settings(bot_token=BOT_TOKEN, signing_secret=SECRET, api_url=fake.url)
        app = create_flask_app(settings)
        # as `serve` does before its first connection: a form's ack parses the request, and the
        # parser's first call compiles its patterns (2.5 s on a slow two-core machine, against
        # Slack's 3 s for an ack)
        warm_web()
        self.http = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.http.server_port}"
        self.thread = threading.Thread(target=self.http.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def stop(self):
        self.http.shutdown()
        self.http.server_close()


@pytest.fixture(scope="session")
def bot_env(tmp_path_factory):
    """One database for every bot test: the planning processes (spawned once per test session)
    read GPU_ADVISOR_DB when they start."""
    db = tmp_path_factory.mktemp("bot") / "bot.db"
    keys = ("GPU_ADVISOR_DB", "SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "GPU_ADVISOR_PLAN_PRIORITY")
    old = {k: os.environ.get(k) for k in keys}
    # The suite's other xdist workers run CPU-bound tests at normal priority: planners at idle
    # priority behind them waited past the tests' 60 s on a loaded two-core machine. The
    # priorities themselves are tested in test_planner_pool.py.
    os.environ.update(
        GPU_ADVISOR_DB=str(db),
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
        GPU_ADVISOR_PLAN_PRIORITY="normal",
    )
    yield db
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def _new_pool():
    """The planning processes read the store from their environment when they start: a pool
    started for another store is replaced."""
    from bot import planner_pool

    if planner_pool._pool is not None and planner_pool._pool_pid == os.getpid():
        planner_pool._pool.shutdown(wait=True, cancel_futures=True)
    planner_pool._pool = None


def pytest_generate_tests(metafunc):
    """Every test of the Slack suites (those on the `bot` fixture) runs on both engines, all of
    a module's SQLite runs first, then its Postgres runs (one planning pool per engine and
    module); `@pytest.mark.sqlite_only(reason)` keeps one on SQLite alone."""
    if "bot_engine" in metafunc.fixturenames:
        only = metafunc.definition.get_closest_marker("sqlite_only")
        engines = ["sqlite"] if only else ["sqlite", "postgres"]
        metafunc.parametrize("bot_engine", engines, indirect=True, scope="module")


_bot_postgres: dict = {}  # the Postgres the bot_engine fixture has set now, if any


@pytest.fixture(scope="module")
def bot_engine(request, bot_env, tmp_path_factory, fake_slack):
    """The store of the Slack suites: the real Bolt app over HTTP and its planning processes,
    on the session's SQLite file, then on a fresh database on the tests' Postgres (DATABASE_URL,
    and a SQLite path that must never be written). Where Postgres cannot be started the
    Postgres half is skipped with the reason.

    What runs on both: every test on the `bot` fixture (the slash command, threads and
    follow-ups, buttons, App Home, quotes, digest settings, retries and replays, Slack faults):
    each one acks by writing a job, plans from it and stores threads, quotes and locales, which
    is the code that differs between the engines (a locked database too: SQLite's write lock
    held by another process, or a lock on the jobs table in Postgres). Tests of a module that
    are not on the bot run once, on SQLite, even while the module's Postgres half is set up.
    Marked `sqlite_only`: the OAuth flow (test_oauth.py, on slack_sdk's SQLite stores; the
    shared SQLAlchemy stores are test_engines.py's). The store, job and digest suites run on
    both through the `database` fixture below.

    The fake Slack's channel histories are emptied first: a job that posts again looks for its
    own earlier post there, and job ids start again from 1 in a new database. That is done
    after the planning pool of the store before is replaced (it waits for their last posts)."""
    if request.param == "sqlite":
        os.environ.pop("DATABASE_URL", None)
        # always a pool of this store: one a test of another module started in this process while
        # its own DATABASE_URL was set would plan that store's jobs (its job 1 "owned by another
        # run") and never this one's
        _new_pool()
        fake_slack.history.clear()
        yield SimpleNamespace(kind="sqlite", path=str(bot_env), url=None)
        return
    try:
        url, server = fresh_postgres(tmp_path_factory)
    except RuntimeError as err:
        pytest.skip(f"Postgres could not be started: {err}")
    must_not_exist = tmp_path_factory.mktemp("pgbot") / "must-not-exist.db"
    os.environ.update(DATABASE_URL=url, GPU_ADVISOR_DB=str(must_not_exist))
    _bot_postgres["url"] = url
    _new_pool()
    fake_slack.history.clear()
    try:
        yield SimpleNamespace(kind="postgres", path=None, url=url)
    finally:
        _new_pool()
        _bot_postgres.clear()
        os.environ.pop("DATABASE_URL", None)
        os.environ["GPU_ADVISOR_DB"] = str(bot_env)
        from bot import dispatcher

        # Back on the session's file, fixed: a dispatcher left running in this process must not
        # follow DATABASE_URL into the store of a later test on the `database` fixture.
        dispatcher.store().url = "sqlite:///" + str(bot_env)
        drop_postgres(url, server)
    assert not must_not_exist.exists(), "a SQLite file was written with DATABASE_URL set"


@pytest.fixture(autouse=True)
def _no_remembered_locales(request, monkeypatch):
    """Each bot test starts with no user's language remembered (bot/locales.py): the language of
    an ack depends on who the workspace has met, which must not be whichever test ran before.
    A test of the same module that is not on the bot runs on its own store, never on the
    Postgres database the module's bot tests run on now (the fixture outlives them)."""
    if "bot_engine" not in request.fixturenames and _bot_postgres:
        monkeypatch.delenv("DATABASE_URL", raising=False)
        monkeypatch.setenv("GPU_ADVISOR_DB", str(request.getfixturevalue("bot_env")))
    if "bot_engine" in request.fixturenames:
        from advisor import db as dbmod

        request.getfixturevalue("bot_engine")
        with dbmod.connect() as db:
            db.execute("DELETE FROM user_locales")
    elif "oauth_bot" in request.fixturenames:
        import sqlite_utils

        db = sqlite_utils.Database(request.getfixturevalue("bot_env"))  # the tests' file only
        if db["user_locales"].exists():
            db["user_locales"].delete_where()
        db.conn.close()
    yield


@pytest.fixture(scope="module")
def bot(fake_slack, bot_engine):
    sys.path.insert(0, str(Path(__file__).parent))
    from slack_client import SlackSender

    server = BotServer(fake_slack)
    yield SlackSender(server.url, SECRET, fake_slack), server
    server.stop()


@pytest.fixture
def bot_store(bot_engine):
    """A connection to the store the Slack suites run on now (closed after the test)."""
    from advisor import db as dbmod

    with dbmod.connect() as db:
        yield db


@pytest.fixture
def answered(bot, fake_slack):
    """A posted answer and the ts Slack gave it (read back from the thread store)."""
    import time

    from bot import conversations

    send, _ = bot
    before = {c.key for c in conversations.recent("T1", limit=100)}
    send.command("70B full-finetune 1TB 14d budget")
    fake_slack.wait_for("chat.postMessage", 1)  # the card; nothing is auto-posted in its thread
    deadline = time.time() + 30
    while time.time() < deadline:
        new = [c for c in conversations.recent("T1", limit=100) if c.key not in before]
        if new:
            fake_slack.reset()
            return new[0].key.split(":")[2]
        time.sleep(0.05)
    raise AssertionError("the answer was not stored")


# ----------------------------------------------------------------------------------------
# Both engines: the `database` fixture runs a test on a SQLite file and on a real Postgres


_PG: dict = {}


def _postgres_server(tmp_path_factory) -> str:
    """The URL of the tests' Postgres server: .ci/run's (GPU_ADVISOR_TEST_PG), else one this
    worker starts; raises RuntimeError with the reason it cannot."""
    if "url" in _PG:
        return _PG["url"]
    if "error" in _PG:
        raise RuntimeError(_PG["error"])
    url = os.environ.get("GPU_ADVISOR_TEST_PG")
    if not url:
        import atexit

        import pg_cluster

        folder = Path(f"/tmp/gpu-advisor-pg-{os.getpid()}")
        try:
            url = pg_cluster.start(folder)
        except Exception as err:
            _PG["error"] = str(err)
            raise RuntimeError(str(err)) from None
        # atexit runs these last first: the cluster stops, then its folder goes
        atexit.register(shutil.rmtree, folder, True)
        atexit.register(pg_cluster.stop, folder, "immediate")
    _PG["url"] = url
    return url


import shutil  # noqa: E402

_dbs = iter(range(1, 10**6))


def fresh_postgres(tmp_path_factory) -> tuple[str, str]:
    """A new empty database on the tests' server: (its URL, the server's URL)."""
    import psycopg

    server = _postgres_server(tmp_path_factory)
    name = f"t{os.getpid()}_{next(_dbs)}"
    try:
        with psycopg.connect(server, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f"CREATE DATABASE {name}")
    except psycopg.Error as err:
        raise RuntimeError(f"the tests' Postgres does not answer: {type(err).__name__}") from None
    return server.rsplit("/", 1)[0] + "/" + name, server


def drop_postgres(url: str, server: str) -> None:
    import psycopg

    from advisor import db as dbmod

    dbmod.dispose(url)
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(params=["sqlite", "postgres"])
def database(request, tmp_path, monkeypatch, tmp_path_factory):
    """The store a test runs on, twice: a SQLite file (GPU_ADVISOR_DB, no DATABASE_URL) and a
    fresh database on a real Postgres (DATABASE_URL). Where Postgres cannot be started the
    Postgres half is skipped with the reason."""
    if request.param == "sqlite":
        monkeypatch.delenv("DATABASE_URL", raising=False)
        monkeypatch.setenv("GPU_ADVISOR_DB", str(tmp_path / "store.db"))
        yield SimpleNamespace(
            kind="sqlite", url="sqlite:///" + str(tmp_path / "store.db"), path=str(tmp_path / "store.db")
        )
        return
    try:
        url, server = fresh_postgres(tmp_path_factory)
    except RuntimeError as err:
        pytest.skip(f"Postgres could not be started: {err}")
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("GPU_ADVISOR_DB", str(tmp_path / "must-not-exist.db"))
    yield SimpleNamespace(kind="postgres", url=url, path=None)
    assert not (tmp_path / "must-not-exist.db").exists(), "a SQLite file was written with DATABASE_URL set"
    drop_postgres(url, server)
