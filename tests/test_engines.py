"""The store, the job store, the digest claims and the Slack state on both engines: a SQLite
file and a real Postgres (the `database` fixture, tests/conftest.py). No mocks: the real stores
over real connections."""

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path

import pytest

SNAPSHOTS = Path(__file__).parent / "data" / "skypilot"


def test_the_schema_is_alembics_head_on_both_engines(database, cli):
    from alembic.script import ScriptDirectory

    from advisor import db as dbmod
    from advisor import migrations

    assert ScriptDirectory.from_config(migrations.config()).get_current_head() == migrations.HEAD
    done = cli("migrate")
    assert done.returncode == 0, done.stderr
    assert "revision " + migrations.HEAD in done.stderr
    again = cli("migrate")
    assert again.returncode == 0 and "current" in again.stderr
    with closing(dbmod.connect()) as db:
        assert migrations.current(db) == migrations.HEAD
        tables = set(db.table_names())
    assert {"observations", "bot_jobs", "conversations", "user_locales", "digest_subscriptions"} <= tables
    if database.kind == "postgres":
        # slack_sdk's tables too, so the role `serve` runs as need not create any
        assert {"slack_installations", "slack_bots", "slack_oauth_states"} <= tables


def test_two_migrations_at_once_upgrade_once_and_say_so_once(database, tmp_path):
    """Two `gpu-advisor migrate` started together on an empty store: one upgrades it and says so,
    the other waits for its lock and finds it current (both had said "upgraded from nothing",
    reading the revision before taking the lock: operator review)."""
    import subprocess
    import sys

    run = [sys.executable, "-m", "advisor.cli", "migrate"]
    procs = [
        subprocess.Popen(run, cwd=tmp_path, env=dict(os.environ), stderr=subprocess.PIPE, text=True) for _ in range(2)
    ]
    said = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], said
    assert sum("schema upgraded from nothing to revision" in s for s in said) == 1, said
    assert sum("schema current (revision" in s for s in said) == 1, said


def test_prices_import_plan_and_digest_on_both_engines(database, cli):
    from advisor.market import digest as digestmod
    from advisor.market import store
    from advisor.market.imports import import_file
    from advisor.market.prices import price_book

    with closing(store.open_store()) as db:
        seeded = db[store.TABLE].count_where("source = 'reference'")
        assert seeded > 50
        for day in ("2023-06-14", "2023-06-15"):
            import_file(db, str(SNAPSHOTS / f"{day}.csv"))
        again = import_file(db, str(SNAPSHOTS / "2023-06-15.csv"))
        assert again.rows_written == 0  # the same snapshot writes nothing
        assert store.snapshot_sources(db) == ["skypilot"]
        assert store.snapshot_dates(db, "skypilot") == ["2023-06-14", "2023-06-15"]
        d = digestmod.compute_digest(db, "2023-06-15")
        rows = digestmod.rows(d)
        # 44 changes of the same instance, and the moves of a GPU's cheapest price (issue 25)
        assert len([r for r in rows if r["kind"] != "cheapest"]) == 44 and len(rows) > 44
        assert store.cheapest_history(db, ["H100-PCIe-80GB"], "2023-06-15")
        v = store.version(db)
        quote = {
            "source": "quote",
            "kind": "rent_month",
            "gpu": "H100-SXM5-80GB",
            "price": 9000.0,
            "currency": "USD",
            "unit": "gpu-month",
            "as_of": "2026-11-01",
            "owner": "TA",
            "provider": "vendor",
            "market": "global",
        }
        assert store.write_rows(db, [quote]) == 1
        assert store.write_rows(db, [quote]) == 0
        assert store.version(db) == v + 1
        mine = price_book(db, "TA").offers("rent_month", "H100-SXM5-80GB", "global")
        theirs = price_book(db, "TB").offers("rent_month", "H100-SXM5-80GB", "global")
        assert any(p.provider == "vendor" for p in mine) and not any(p.provider == "vendor" for p in theirs)
        assert store.delete_owner(db, "TA") == 1
    asked = cli("ask", "7b lora 20GB 3d", "--json")
    assert asked.returncode == 0, asked.stderr


def test_jobs_are_claimed_once_by_many_claimers_at_once(database):
    from bot.job_queue import JobQueue

    jobs = JobQueue()
    jobs.ensure()
    ids = [jobs.add("plan", {"n": i}, key=f"k{i}", team="T1") for i in range(60)]
    assert jobs.add("plan", {"n": 0}, key="k0", team="T1") is None  # a replay
    got: list[int] = []
    lock = threading.Lock()

    def claimer(n):
        while True:
            batch = jobs.claim(f"w{n}", 3)
            if not batch:
                return
            with lock:
                got.extend(j.id for j in batch)

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(claimer, range(6)))
    assert sorted(got) == sorted(ids)  # every job once, none twice
    assert jobs.counts() == {"running": 60}


def test_a_lapsed_lease_in_the_databases_clock_is_taken_over_and_the_old_run_is_fenced(database, monkeypatch):
    from bot.job_queue import JobQueue

    monkeypatch.setenv("GPU_ADVISOR_JOB_LEASE_S", "0.5")
    jobs = JobQueue()
    jobs.ensure()
    job = jobs.add("plan", {}, key="k", team="T1")
    (first,) = jobs.claim("host-a", 5)
    assert jobs.claim("host-b", 5) == []
    assert jobs.begin_post(job, "host-a", 40) == ("go", None)  # host-a begins its post ...
    time.sleep(0.8)  # ... and its lease lapses (host-a died, or a long write held it)
    (second,) = jobs.claim("host-b", 5)
    assert second.id == job and second.attempts == 2 and second.key == "k"
    assert jobs.renew("host-a", [job]) == 0  # the old owner holds nothing now
    assert jobs.begin_post(job, "host-a", 40) == ("lost", None)
    verdict, wait_s = jobs.begin_post(job, "host-b", 40)
    assert verdict == "wait" and 38 < float(wait_s) <= 40  # host-a's post may still be under way
    assert jobs.begin_post(job, "host-b", 0) == ("look", None)  # long enough: look in the channel first
    assert jobs.retake_post(job, "host-b")
    jobs.end_post(job, "1700000000.000100", True)
    assert jobs.begin_post(job, "host-b", 0) == ("posted", "1700000000.000100")
    jobs.finish(job, owner="host-a")  # the old owner cannot finish it ...
    assert jobs.counts() == {"running": 1}
    jobs.finish(job, owner="host-b")  # ... its owner can
    assert jobs.counts() == {"done": 1}


def test_digest_claims_are_taken_once_by_two_clocks(database):
    from bot import digests

    now = time.time()
    with ThreadPoolExecutor(8) as pool:
        verdicts = list(pool.map(lambda _: digests.claim("T1", "C1", "2026-12-01", now), range(8)))
    assert verdicts.count("new") == 1 and verdicts.count(None) == 7
    assert [digests.claim_now("T1", "C1", now) for _ in range(2)] == [True, False]


def test_threads_subscriptions_and_locales_keyed_by_workspace_and_user(database):
    from bot import conversations, locales, subscriptions

    conversations.save(
        conversations.Conversation(
            key="T1:C1:1.1", workspace="T1", user="U1", request_text="7b lora", lang="en", summary={"gpu": "H100"}
        )
    )
    assert conversations.load("T1:C1:1.1").summary == {"gpu": "H100"}
    assert [c.key for c in conversations.recent("T1", "U1")] == ["T1:C1:1.1"]
    subscriptions.subscribe(subscriptions.Subscription(workspace="T1", channel="C1", lang="zh"))
    assert subscriptions.set_time("T1", "C1", "10:30")
    assert not subscriptions.set_time("T1", "C9", "10:30")
    assert [(s.channel, s.post_time, s.lang) for s in subscriptions.all_subscriptions()] == [("C1", "10:30", "zh")]
    locales.remember("U1", "zh", "TA")
    locales.remember("U1", "en", "TB")  # the same user id in another workspace is another person
    assert locales.guess("U1", "TA") == "zh" and locales.guess("U1", "TB") == "en"
    assert locales.forget_workspace("TA") == 1
    assert locales.guess("U1", "TA") is None
    assert subscriptions.unsubscribe("T1", "C1") and conversations.forget_workspace("T1") == 1


def test_the_backlog_counts_what_waits_and_how_long_the_oldest_due_job_has(database):
    """For an operator's metrics (GET /metrics): queued and running jobs, done ones not counted,
    and the wait since its ack of the oldest job due and not claimed (a job retried later is not
    due yet), in the database's clock."""
    from contextlib import closing

    from advisor import db as dbmod
    from bot.job_queue import JobQueue

    jobs = JobQueue()
    jobs.ensure()
    assert jobs.backlog() == {"queued": 0, "running": 0, "oldest_s": 0.0}
    first, later, done, claimed = (jobs.add("plan", {"n": n}, f"k{n}", "T1") for n in range(4))
    with closing(dbmod.connect()) as db:
        db.execute(f"UPDATE bot_jobs SET created_at = {db.now_sql()} - 600 WHERE id = ?", [later])
        db.execute(f"UPDATE bot_jobs SET not_before = {db.now_sql()} + 3600 WHERE id = ?", [later])
        db.execute(f"UPDATE bot_jobs SET created_at = {db.now_sql()} - 90 WHERE id = ?", [first])
        db.execute("UPDATE bot_jobs SET state = 'done' WHERE id = ?", [done])
        db.execute("UPDATE bot_jobs SET state = 'running' WHERE id = ?", [claimed])
    got = jobs.backlog()
    assert (got["queued"], got["running"]) == (2, 1)
    assert 90 <= got["oldest_s"] < 120  # the first job's wait; the later one, older, is not due


def test_an_ack_records_its_job_and_reads_the_users_language_together(database):
    """The ack's write and read (bot/dispatcher.py enqueue_replying): one statement on Postgres,
    the same answers on both engines. A replay records nothing and still reads the language."""
    from bot import locales
    from bot.job_queue import JobQueue

    jobs = JobQueue()
    jobs.ensure()
    locales.remember("U1", "zh", "TA")
    locales.remember("U2", "zh", "TA")
    locales.remember("U3", "en", "TA")

    def ack(key, user, team, state="queued"):
        job, row = jobs.add_reading("plan", {"key": key}, key, team, state, locales.guess_query(user, team))
        return job, locales.guessed(row)

    first, lang = ack("command:TA:1", "U3", "TA")
    assert first is not None and lang == "en"
    assert ack("command:TA:1", "U3", "TA") == (None, "en")  # a replay
    assert ack("command:TA:2", "U9", "TA")[1] == "zh"  # met for the first time: most of TA reads zh
    assert ack("command:TB:3", "U9", "TB")[1] is None  # nothing known
    assert ack("command::4", "U1", "")[1] == "zh"  # no workspace: the user's language anywhere
    assert ack("command:TA:5", "U1", "TA", state="done")[0] is not None
    assert jobs.counts() == {"queued": 4, "done": 1}
    claimed = [j.args["key"] for j in jobs.claim("w", 10)]
    assert claimed == ["command:TA:1", "command:TA:2", "command:TB:3", "command::4"]
    assert jobs.add_reading("plan", {}, "command:TA:6", "TA")[1] is None  # nothing read
    locales.remember("U5", "zh", "TC")
    locales.remember("U6", "en", "TC")
    assert ack("command:TC:7", "U9", "TC")[1] is None  # a tie: English, as for a user no one knows
    assert ack("command:TC:8", "U6", "TC")[1] == "en"


def test_an_ack_whose_connection_postgres_refuses_is_told_busy_not_an_error(database):
    """While Postgres shuts down or starts up it refuses new sessions (57P03); a thread opening
    its ack connection then had raised psycopg's own error past the "busy" reply, a 500 to
    Slack (operator review, item 8). Refused here the way that needs no restart: the database
    closed to new connections, the store's pooled ones already open."""
    if database.kind != "postgres":
        pytest.skip("Postgres refuses sessions; a SQLite file has none")
    import psycopg

    from bot.job_queue import Busy, JobQueue

    jobs = JobQueue()
    jobs.ensure()
    warm = ThreadPoolExecutor(1)
    assert warm.submit(jobs.add, "plan", {}).result()  # the pool holds an open session
    base, name = database.url.rsplit("/", 1)
    with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:  # not the database it closes
        admin.execute(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS false')
        try:
            fresh = ThreadPoolExecutor(1)  # no ack connection of its own yet
            with pytest.raises(Busy):
                fresh.submit(jobs.add, "plan", {}).result()
        finally:
            admin.execute(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS true')
    assert fresh.submit(jobs.add, "plan", {}).result() is not None
    warm.shutdown()
    fresh.shutdown()


def test_an_ack_connection_the_server_cut_fails_once_and_every_thread_reconnects(database):
    """Each thread keeps its own connection for the ack path (advisor/db.py _ack_conn). When
    Postgres ends them (a restart, an operator's pg_terminate_backend), the ack that finds its
    connection broken is told busy, and every other thread opens a new one before its next ack
    instead of failing too, as a pool would replace all its connections."""
    if database.kind != "postgres":
        pytest.skip("Postgres ends sessions; a SQLite file has none")
    import psycopg

    from bot.job_queue import Busy, JobQueue

    jobs = JobQueue()
    jobs.ensure()
    one, other = ThreadPoolExecutor(1), ThreadPoolExecutor(1)
    assert one.submit(jobs.add, "plan", {}).result() and other.submit(jobs.add, "plan", {}).result()
    name = database.url.rsplit("/", 1)[1]
    with psycopg.connect(database.url, autocommit=True) as admin:
        mine = admin.execute("SELECT pg_backend_pid()").fetchone()[0]
        cut = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> %s"
        assert admin.execute(cut, [name, mine]).fetchall()
        gone = "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> %s"
        deadline = time.time() + 10
        while admin.execute(gone, [name, mine]).fetchone()[0] and time.time() < deadline:
            time.sleep(0.05)
    with pytest.raises(Busy):
        one.submit(jobs.add, "plan", {}).result()
    assert other.submit(jobs.add, "plan", {}).result() is not None
    assert one.submit(jobs.add, "plan", {}).result() is not None
    with psycopg.connect(database.url) as admin:
        assert admin.execute("SELECT count(*) FROM bot_jobs").fetchone()[0] == 4
    one.shutdown()
    other.shutdown()


def test_an_ack_whose_server_stops_answering_is_told_busy_within_slacks_three_seconds(database):
    """A Postgres that takes the statement and never answers (frozen, a failover that drops
    packets) had held an ack 11.9 s (operator review): neither the lock timeout nor libpq's
    connect timeout covers a server stopped mid-query. The ack's own backend is stopped here
    (SIGSTOP, the rest of the cluster running): the ack is told busy within ACK_ANSWER_S; for
    ACK_HOLD_OFF_S after it the other threads' acks are told busy at once, not each held in
    turn; then they are recorded, and so is the first thread's next ack."""
    if database.kind != "postgres":
        pytest.skip("a Postgres backend is stopped; a SQLite file has none")
    import signal

    import psycopg

    from advisor import db as dbmod
    from bot.job_queue import Busy, JobQueue

    jobs = JobQueue()
    jobs.ensure()
    ack, other = ThreadPoolExecutor(1), ThreadPoolExecutor(1)
    assert ack.submit(jobs.add, "plan", {}).result() and other.submit(jobs.add, "plan", {}).result()
    pid = ack.submit(lambda: dbmod._ack_conn(database.url).info.backend_pid).result()
    try:
        os.kill(pid, signal.SIGSTOP)
    except PermissionError:
        pytest.skip("the test's user may not signal the cluster's backends")
    try:
        began = time.monotonic()
        with pytest.raises(Busy):  # a TimeoutError, had the ack waited on the server
            ack.submit(jobs.add, "plan", {}).result(timeout=dbmod.ACK_ANSWER_S + 1.0)
        took = time.monotonic() - began
        began = time.monotonic()
        with pytest.raises(Busy):  # its own connection answers, but the database did not just now
            other.submit(jobs.add, "plan", {}).result()
        at_once = time.monotonic() - began
        time.sleep(dbmod.ACK_HOLD_OFF_S)
        assert other.submit(jobs.add, "plan", {}).result() is not None
    finally:
        os.kill(pid, signal.SIGCONT)
    assert dbmod.ACK_ANSWER_S <= took < dbmod.ACK_ANSWER_S + 1.0, took
    assert at_once < 0.2, at_once
    assert ack.submit(jobs.add, "plan", {}).result() is not None
    with psycopg.connect(database.url) as admin:
        assert admin.execute("SELECT count(*) FROM bot_jobs").fetchone()[0] in (4, 5)  # the stopped one may land
    ack.shutdown()
    other.shutdown()


def test_slack_installations_and_oauth_states_are_shared(database):
    from slack_sdk.oauth.installation_store import Installation

    from bot import clients
    from bot.settings import Settings

    settings = Settings(client_id="111.222", client_secret="s", signing_secret="x")
    store = clients.installation_store(settings)
    store.save(
        Installation(app_id="A1", team_id="T9", bot_token="xoxb-9", bot_id="B9", bot_user_id="UB9", user_id="U1")
    )
    # another host: a store made anew finds the installation; a state issued here is consumed there once
    assert clients.installation_store(settings).find_bot(enterprise_id=None, team_id="T9").bot_token == "xoxb-9"
    state = clients.state_store().issue()
    assert clients.state_store().consume(state) is True
    assert clients.state_store().consume(state) is False
    if database.kind == "postgres":
        assert type(store).__name__ == "SQLAlchemyInstallationStore"


@pytest.mark.parametrize("n", [1])
def test_a_health_check_notices_a_dead_database(n, tmp_path):
    from advisor import db as dbmod

    assert dbmod.ping("sqlite:///" + str(tmp_path / "h.db")) is None
    down = dbmod.ping("postgresql://nobody:secret@127.0.0.1:9/none")
    # the driver's reason, for /healthz (operator probe: a bare "OperationalError"), no password
    assert down.startswith("OperationalError: ") and "port 9" in down and "secret" not in down
    assert dbmod.redact("postgresql://u:secret@h:5/db") == "postgresql://u:***@h:5/db"
    # /healthz, public, leaves the server's address out
    public = dbmod.without_address(down)
    assert "127.0.0.1" not in public and "port 9" not in public and public.startswith("OperationalError: ")


def test_a_health_check_of_a_server_that_never_answers_ends_in_its_time(tmp_path):
    """A server that takes the connection and then says nothing (frozen, a failover dropping
    packets) had held /healthz 11.7 s, then said ok: the ping ends at its timeout, said."""
    import socket
    import time

    from advisor import db as dbmod

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)  # the kernel completes the handshake; nothing ever answers
    port = silent.getsockname()[1]
    t0 = time.monotonic()
    down = dbmod.ping(f"postgresql://nobody:pw@127.0.0.1:{port}/none", timeout_s=0.5)
    took = time.monotonic() - t0
    silent.close()
    assert down and took < 2.5  # 0.5 s and the thread's second; libpq alone waits its 3 s connect timeout


def test_a_price_store_step_appended_later_runs_on_both_engines(database, monkeypatch):
    """The issue-21 pattern: one more small step at the end of store.py's MIGRATIONS (a column
    and its defaults) upgrades a store made before it, SQLite file or Postgres."""
    from advisor.market import store

    with closing(store.open_store()):
        pass

    def _later(db):
        if "later_col" not in {c.name for c in db[store.TABLE].columns}:
            db.execute(f"ALTER TABLE {store.TABLE} ADD COLUMN later_col TEXT NOT NULL DEFAULT ''")
        db.conn.executemany(f"UPDATE {store.TABLE} SET later_col = ? WHERE source = ?", [("r", "reference")])

    monkeypatch.setattr(store, "MIGRATIONS", [*store.MIGRATIONS, (len(store.MIGRATIONS) + 1, _later)])
    from advisor import db as dbmod

    dbmod._portable_done.clear()
    with closing(store.open_store()) as db:
        assert db[store.TABLE].count_where("later_col = 'r'") == db[store.TABLE].count_where("source = 'reference'")
        versions = [r["version"] for r in db["schema_versions"].rows_where("component = 'prices'", order_by="version")]
        assert versions[-1] == len(store.MIGRATIONS)


def test_a_database_password_never_reaches_the_output(cli):
    done = cli("migrate", env={"DATABASE_URL": "postgresql://advisor:s3cr3t-pw@127.0.0.1:9/none"})
    assert done.returncode == 2  # a configuration problem (tests/test_cli.py), said without a traceback
    assert "s3cr3t-pw" not in done.stdout + done.stderr
    assert "could not reach the database" in done.stderr and "postgresql://advisor:***@127.0.0.1:9/none" in done.stderr


def test_the_reference_seed_only_moves_forward(database):
    from advisor.market import store

    with closing(store.open_store()) as db:
        newest = db.execute("SELECT newest FROM reference_seed").fetchone()[0]
        assert newest
        # a newer release seeded a later file; this (older) one must not seed over it
        db.execute("UPDATE reference_seed SET sha256 = 'a newer file', newest = '2999-01-01'")
        db.execute("DELETE FROM observations WHERE source = 'reference' AND kind = 'storage_pfs'")
    with closing(store.open_store()) as db:
        assert db[store.TABLE].count_where("source = 'reference' AND kind = 'storage_pfs'") == 0
        assert db.execute("SELECT sha256 FROM reference_seed").fetchone()[0] == "a newer file"


def test_price_books_are_one_shared_book_and_a_bounded_lru_of_owners_with_quotes(database, monkeypatch):
    from advisor.market import prices, store

    monkeypatch.setenv("GPU_ADVISOR_PRICE_BOOKS", "2")
    prices._books.clear()
    with closing(store.open_store()) as db:
        shared = prices.price_book(db, None)
        assert prices.price_book(db, "T-no-quotes") is shared  # no quotes of its own: the shared book
        for owner in ("TA", "TB", "TC"):
            quote = {
                "source": "quote",
                "kind": "rent_month",
                "gpu": "H100-SXM5-80GB",
                "price": 9000.0,
                "currency": "USD",
                "unit": "gpu-month",
                "as_of": "2026-11-01",
                "owner": owner,
                "provider": f"vendor-{owner}",
                "market": "global",
            }
            store.write_rows(db, [quote])
        books = {o: prices.price_book(db, o) for o in ("TA", "TB", "TC")}
        assert len(prices._books) == 2  # the bound: the least recently used book was dropped
        assert {p.provider for p in books["TC"].offers("rent_month", "H100-SXM5-80GB", "global")} >= {"vendor-TC"}
        assert "vendor-TA" not in {p.provider for p in books["TC"].offers("rent_month", "H100-SXM5-80GB", "global")}


def test_a_days_feed_fetch_is_claimed_once_and_taken_over_when_stale(database):
    from bot import digests

    now = time.time()
    with ThreadPoolExecutor(8) as pool:
        verdicts = list(pool.map(lambda _: digests.claim_fetch("2026-12-01", now), range(8)))
    assert verdicts.count(True) == 1
    assert digests.fetched("2026-12-01") is None  # claimed, not finished: the others wait
    assert digests._fetch_once(["skypilot"], "2026-12-01") is None  # and fetch nothing themselves
    assert digests.claim_fetch("2026-12-01", now + digests.FEED_STALE_S + 1)  # its clock died
    digests._end_fetch("2026-12-01", ["aws: HTTP 500"])
    assert digests.fetched("2026-12-01") == ["aws: HTTP 500"]
    assert not digests.claim_fetch("2026-12-01", now + 10 * digests.FEED_STALE_S)  # done is done
    assert digests.claim_fetch("2026-12-02", now)  # the next day is claimed again


def test_two_clocks_fetch_the_days_feeds_once(database, monkeypatch):
    """Two clocks on one store (two hosts): each feed is fetched by one of them, once a day."""
    import datetime as dt

    from test_skypilot_catalog import AWS_FEB, GCP_V8, LAMBDA_V5, CatalogHandler, catalog_serving, feeds_env, serve

    from bot import digests

    with catalog_serving() as host:
        for name, value in feeds_env(host).items():
            monkeypatch.setenv(name, value)
        serve(AWS_FEB, GCP_V8, LAMBDA_V5)
        stop = threading.Event()
        clocks = [
            threading.Thread(
                target=digests.clock, kwargs={"client_for": lambda workspace: None, "interval": 0.05, "stop": stop}
            )
            for _ in range(2)
        ]
        for c in clocks:
            c.start()
        today = dt.datetime.now(digests.TZ).date().isoformat()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and digests.fetched(today) is None:
            time.sleep(0.05)
        time.sleep(0.5)  # a few more rounds of both clocks
        stop.set()
        for c in clocks:
            c.join(10)
        assert digests.fetched(today) == []
        assert sorted(path for path, _ in CatalogHandler.log) == sorted(CatalogHandler.files)


def test_a_password_given_any_way_libpq_takes_it_is_never_shown():
    """As `?password=`, and with an '@' left unencoded (libpq splits the address at the first '@'
    and names the rest of the password as the host): neither the URL shown nor the reason a
    connection failed quotes any of it."""
    import sqlalchemy as sa

    from advisor import db as dbmod

    shown = dbmod.redact("postgresql://u@h:5/db?sslmode=require&password=S3cretPW!x")
    assert "S3cret" not in shown and "password=***" in shown and "sslmode=require" in shown
    url = "postgresql://u:p@ssword42@127.0.0.1:9/db"
    assert "ssword42" not in dbmod.redact(url)
    err = sa.exc.OperationalError("", None, Exception("failed to resolve host 'ssword42@127.0.0.1'"))
    parts = dbmod.Unreachable(url, err).parts()
    assert "ssword42" not in parts["reason"] and "%40" in parts["reason"] and "ssword42" not in parts["where"]
