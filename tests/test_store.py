"""The price store (advisor/market/store.py): old databases migrate with their rows, and a
quote recorded for one owner is seen by that owner only, beside the shared market data."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from advisor.market import store
from advisor.market.imports import import_file
from advisor.market.prices import price_book
from advisor.market.quotes import parse_quote, record

SNAPSHOTS = Path(__file__).resolve().parent / "data" / "skypilot"

# The observations table as schema version 12 left it, written out by hand.
VERSION_12 = """
CREATE TABLE observations (
    id INTEGER PRIMARY KEY, source TEXT NOT NULL, kind TEXT NOT NULL, gpu TEXT NOT NULL DEFAULT '',
    gpus INTEGER NOT NULL DEFAULT 1, market TEXT NOT NULL DEFAULT '', provider TEXT NOT NULL DEFAULT '',
    region TEXT NOT NULL DEFAULT '', offer TEXT NOT NULL DEFAULT '', price REAL NOT NULL,
    currency TEXT NOT NULL DEFAULT '', unit TEXT NOT NULL DEFAULT '', min_term_months INTEGER NOT NULL DEFAULT 0,
    as_of TEXT NOT NULL, estimate INTEGER NOT NULL DEFAULT 0, cite TEXT NOT NULL DEFAULT '',
    note TEXT NOT NULL DEFAULT '', layout TEXT NOT NULL DEFAULT '', priced INTEGER NOT NULL DEFAULT 1,
    published_price REAL, published_unit TEXT NOT NULL DEFAULT '', source_gpu TEXT NOT NULL DEFAULT '',
    source_gpus INTEGER, vcpus REAL, memory_gib REAL,
    UNIQUE (source, kind, gpu, market, provider, region, offer, as_of, price));
CREATE INDEX observations_gpu_kind ON observations (gpu, kind, market);
CREATE INDEX observations_layout_source_date ON observations (layout, source, as_of);
CREATE INDEX observations_offer_newest ON observations (kind, gpu, market, provider, region, offer, as_of);
CREATE TABLE schema_versions (component TEXT, version INTEGER, applied_at TEXT, PRIMARY KEY (component, version));
INSERT INTO observations (source, kind, gpu, market, provider, price, currency, unit, as_of, cite)
    VALUES ('reference', 'rent_hour', 'H800-SXM-80GB', 'china', 'old-idc', 9.5, 'CNY', 'gpu-hour', '2026-01', 'kept');
INSERT INTO observations (source, kind, gpu, gpus, market, provider, region, offer, price, currency, unit,
        as_of, layout, priced, published_price, published_unit, source_gpu, source_gpus)
    VALUES ('skypilot', 'rent_hour', 'H100-SXM5-80GB', 8, 'global', 'aws', 'us-east-1', 'p5.48xlarge', 12.29,
        'USD', 'gpu-hour', '2024-04-23', 'skypilot', 1, 98.32, 'instance-hour', 'H100', 8);
"""


def test_a_version_12_database_migrates_with_its_rows(tmp_path):
    path = tmp_path / "old.db"
    with closing(sqlite3.connect(path)) as old:
        old.executescript(VERSION_12)
        old.executemany("INSERT INTO schema_versions VALUES ('prices', ?, '2026-01-01')", [(v,) for v in range(1, 13)])
        old.commit()
        before = old.execute("SELECT * FROM observations ORDER BY id").fetchall()
    with closing(store.open_store(str(path))) as db:
        # Migration 15 adds the reference rows seeded since (issue 15) after the old ones.
        rows = list(db["observations"].rows_where("id <= ?", [before[-1][0]], order_by="id"))
        assert [
            tuple(r.values())[: -1 - len(store.OFFER_COLUMNS) - len(store.OFFER_TERMS) - len(store.OFFER_SOLD_ON)]
            for r in rows
        ] == before  # every column kept, in order
        assert all(r["owner"] is None for r in rows)  # what was there is shared market data
        assert [r["version"] for r in db["schema_versions"].rows_where("component = 'prices'", order_by="version")] == [
            version for version, _ in store.MIGRATIONS
        ]
        assert set(store.INDEXES) | {"observations_same"} <= {i.name for i in db["observations"].indexes}
        assert store.write_rows(db, [{k: v for k, v in rows[0].items() if k != "id"}]) == 0  # still one price
        book = price_book(db, None)
        assert "old-idc" in [p.provider for p in book.offers("rent_hour", "H800-SXM-80GB", "china")]
        assert 12.29 in [p.price for p in book.offers("rent_hour", "H100-SXM5-80GB", "global")]


def test_a_recorded_quote_is_seen_by_its_owner_only(tmp_path):
    with closing(store.open_store(str(tmp_path / "prices.db"))) as db:
        import_file(db, SNAPSHOTS / "2024-04-23.csv")
        quote = parse_quote("8xH800 ¥4/gpu/hour bargain-idc")
        assert record(quote, db, "team-a")
        assert not record(quote, db, "team-a")  # the same quote is one price

        def providers(owner, gpu="H800-SXM-80GB", market="china"):
            book = price_book(db, owner)
            return {p.provider for p in book.offers("rent_hour", gpu, market) + book.history("rent_hour", gpu, market)}

        assert "bargain-idc" in providers("team-a")
        assert "bargain-idc" not in providers("team-b") and "bargain-idc" not in providers(None)
        shared = providers(None)
        assert shared and shared <= providers("team-a") and shared == providers("team-b")  # the seed
        imported = providers(None, "H100-PCIe-80GB", "global")
        assert "lambda" in imported and imported == providers("team-b", "H100-PCIe-80GB", "global")
        assert record(quote, db, "team-b")  # another team records the same quote for itself
        assert "bargain-idc" in providers("team-b")


# -- tenancy, deletion, the cache key, file modes (issue 13) -----------------------------------


def test_no_recorded_quote_is_the_market_a_quote_is_judged_against(tmp_path):
    from advisor.market.quotes import quote_answer

    with closing(store.open_store(str(tmp_path / "prices.db"))) as db:
        first, _ = quote_answer("8xH800 ¥95000/month 3 months vendorX", None, db, "team-a")
        # A's own cheap quote and B's: neither becomes the market (not so cheap as to go unrecorded,
        # under half of owning and of the like offers)
        quote_answer("8xH800 ¥6/gpu/hour poison-a", None, db, "team-a")
        quote_answer("8xH800 ¥6/gpu/hour poison-b", None, db, "team-b")
        again, _ = quote_answer("8xH800 ¥95000/month 3 months vendorX", None, db, "team-a")
        assert again.market_per_gpu_hour == first.market_per_gpu_hour
        assert "poison" not in (again.market_source or "")
        # ... while A's plans use A's quote
        assert "poison-a" in {
            p.provider for p in price_book(db, "team-a").offers("rent_hour", "H800-SXM-80GB", "china")
        }


def test_delete_owner_removes_that_owners_quotes_only(tmp_path):
    with closing(store.open_store(str(tmp_path / "prices.db"))) as db:
        shared = db.execute("SELECT count(*) FROM observations WHERE owner IS NULL").fetchone()[0]
        record(parse_quote("8xH800 ¥4/gpu/hour secret-a"), db, "team-a")
        record(parse_quote("8xH800 ¥5/gpu/hour secret-a2"), db, "team-a")
        record(parse_quote("8xH800 ¥4/gpu/hour keep-b"), db, "team-b")
        assert store.delete_owner(db, "team-a") == 2
        assert store.delete_owner(db, "") == 0  # no owner is not "everyone's"
        assert db.execute("SELECT count(*) FROM observations WHERE owner IS NULL").fetchone()[0] == shared
        assert [r[0] for r in db.execute("SELECT provider FROM observations WHERE owner IS NOT NULL")] == ["keep-b"]
        assert "secret-a" not in {
            p.provider for p in price_book(db, "team-a").offers("rent_hour", "H800-SXM-80GB", "china")
        }


def test_a_quote_from_another_process_is_seen_by_a_connection_held_open(tmp_path):
    """The cache is keyed on a version every write bumps, not on the file's modification time:
    a WAL commit does not move it, nor does a checkpoint have to happen."""
    import os

    path = str(tmp_path / "prices.db")
    with closing(store.open_store(path)) as held, closing(store.open_store(path)) as other:

        def providers():
            return {p.provider for p in price_book(held, "team-a").offers("rent_hour", "H800-SXM-80GB", "china")}

        assert "vendorx" not in providers()
        times = {p: os.stat(p).st_mtime_ns for p in (path, path + "-wal") if os.path.exists(p)}
        record(parse_quote("8xH800 ¥4/gpu/hour vendorx"), other, "team-a")
        for p, t in times.items():  # as if the commit had not touched either file's time
            os.utime(p, ns=(t, t))
        assert "vendorx" in providers()
        store.delete_owner(other, "team-a")
        assert "vendorx" not in providers()


def test_the_database_files_are_created_owner_only(tmp_path):
    import os
    import stat

    old = os.umask(0o022)
    try:
        path = tmp_path / "new.db"
        with closing(store.open_store(str(path))) as db:
            record(parse_quote("8xH800 ¥4/gpu/hour x"), db, "team-a")  # the -wal and -shm exist now
            modes = {p.name: stat.S_IMODE(os.stat(p).st_mode) for p in tmp_path.iterdir()}
        assert set(modes) >= {"new.db", "new.db-wal", "new.db-shm"} and set(modes.values()) == {0o600}, modes
        wide = tmp_path / "wide.db"
        wide.touch(mode=0o644)
        os.chmod(wide, 0o644)
        store.open_store(str(wide)).conn.close()
        assert stat.S_IMODE(os.stat(wide).st_mode) == 0o600  # a file made before is tightened
    finally:
        os.umask(old)


def test_a_machine_whose_clock_is_behind_still_seeds_the_store():
    import datetime as dt

    from advisor.market import reference

    rows = reference.rows()
    for r in rows:
        store.check_row({**store.NOT_NULL_DEFAULTS, **r}, today=dt.date(2025, 1, 1))
    import pytest

    with pytest.raises(ValueError, match="days ahead"):
        store.check_row({**rows[0], "source": "skypilot"}, today=dt.date(2020, 1, 1))


def test_an_upgrade_brings_the_reference_rows_added_since(tmp_path):
    # A store seeded from an older data/reference_prices.toml: the rows added since go in on the
    # next open, the ones it has stay once, and a recorded quote is untouched.
    path = str(tmp_path / "old.db")
    with closing(store.open_store(path)) as db:
        seeded = db[store.TABLE].count_where("source = 'reference'")
        assert record(parse_quote("8xH800 ¥95000/month 3 months vendorX"), db, "T1")
        db.execute("DELETE FROM observations WHERE source = 'reference' AND kind = 'storage_pfs'")
        db.execute("UPDATE reference_seed SET sha256 = 'an older file'")
        db.conn.commit()
    with closing(store.open_store(path)) as db:
        assert db[store.TABLE].count_where("source = 'reference'") == seeded
        assert db[store.TABLE].count_where("source = 'reference' AND kind = 'storage_pfs'") == len(
            [r for r in store.reference.rows() if r["kind"] == "storage_pfs"]
        )
        assert db[store.TABLE].count_where("owner = 'T1'") == 1
        version = store.version(db)
    with closing(store.open_store(path)) as db:  # the same file again: nothing written
        assert store.version(db) == version


def test_a_version_17_database_learns_the_terms_each_offer_is_sold_on(tmp_path):
    # Migration 18 (issue 21): an hourly row is sold by the hour, a monthly lease with a stated
    # minimum on that minimum, one with none states no term (''); reference rows take the terms
    # data/reference_prices.toml states.
    path = str(tmp_path / "v17.db")
    with closing(store.open_store(path)) as db:
        db.execute("ALTER TABLE observations DROP COLUMN terms")
        db.execute("DELETE FROM schema_versions WHERE component = 'prices' AND version = 18")
        db.execute(
            "INSERT INTO observations (source, kind, gpu, market, provider, price, currency, unit, as_of,"
            " min_term_months) VALUES ('quote', 'rent_month', 'H800-SXM-80GB', 'china', 'idc-a', 60000, 'CNY',"
            " 'gpu-month', '2026-11-01', 6), ('quote', 'rent_month', 'H800-SXM-80GB', 'china', 'idc-b', 60000,"
            " 'CNY', 'gpu-month', '2026-11-01', 0)"
        )
        db.conn.commit()
    with closing(store.open_store(path)) as db:
        terms = {r["provider"]: r["terms"] for r in db.query("SELECT provider, terms FROM observations")}
        assert terms["idc-a"] == "6m" and terms["idc-b"] == ""
        assert terms["AutoDL"] == "hour"
        stated = {
            (r["provider"], r["terms"])
            for r in db.query("SELECT provider, terms FROM observations WHERE source = 'reference' AND terms != ''")
        }
        assert any(t.endswith("m") for _, t in stated)
