"""The price store: every price is an observation with its source and date, in SQLite.

The database (GPU_ADVISOR_DB, default gpu-advisor.db in the working directory) is created
and migrated on first use and seeded from data/reference_prices.toml. Plans read a
`PriceBook`, a snapshot of the newest price of each offer.
"""

from __future__ import annotations

import copy
import datetime as dt
import os
import tomllib
from dataclasses import dataclass
from functools import cache

import sqlite_utils

from advisor import db as dbmod
from advisor.db import db_path
from advisor.resources import data_dir

REFERENCE_SOURCE = "reference"


class ConfigError(ValueError):
    """A setting (environment variable) the program cannot use."""

# Each migration runs once, in order, inside a transaction; `migrations` records them.
MIGRATIONS = [
    (1, """
        CREATE TABLE IF NOT EXISTS observations (
            id INTEGER PRIMARY KEY,
            source TEXT NOT NULL,         -- 'reference', 'skypilot', 'quote', a feed name
            kind TEXT NOT NULL,           -- rent_hour, rent_month, offpeak_hour, buy_server, ...
            gpu TEXT NOT NULL DEFAULT '',
            gpus INTEGER NOT NULL DEFAULT 1,
            market TEXT NOT NULL DEFAULT '',
            provider TEXT NOT NULL DEFAULT '',
            region TEXT NOT NULL DEFAULT '',
            offer TEXT NOT NULL DEFAULT '',
            price REAL NOT NULL,
            currency TEXT NOT NULL DEFAULT '',
            unit TEXT NOT NULL DEFAULT '',
            min_term_months INTEGER NOT NULL DEFAULT 0,
            as_of TEXT NOT NULL,
            estimate INTEGER NOT NULL DEFAULT 0,
            cite TEXT NOT NULL DEFAULT '',
            note TEXT NOT NULL DEFAULT '',
            UNIQUE (source, kind, gpu, market, provider, region, offer, as_of, price)
        )"""),
    (2, "CREATE INDEX IF NOT EXISTS observations_gpu_kind ON observations (gpu, kind, market)"),
    # Imported files (advisor/imports.py). `layout`: the file layout a row came from
    # ('skypilot' snapshots, which the digest compares; 'quotes'; '' for the reference seed).
    (3, "ALTER TABLE observations ADD COLUMN layout TEXT NOT NULL DEFAULT ''"),
    # 0: the offer was listed on that date with no usable price of this kind (an empty cell,
    # or SkyPilot's 0 placeholder); `price` is then 0. Keeps "offer listed" apart from "priced".
    (4, "ALTER TABLE observations ADD COLUMN priced INTEGER NOT NULL DEFAULT 1"),
    # The price exactly as the source published it (SkyPilot: per instance-hour; NULL for an
    # empty cell), and its unit ('instance-hour', 'server-month', ...); `price` is per `unit`.
    (5, "ALTER TABLE observations ADD COLUMN published_price REAL"),
    (6, "ALTER TABLE observations ADD COLUMN published_unit TEXT NOT NULL DEFAULT ''"),
    # The GPU name and count as the source spells them ('A100', 12); `gpu`/`gpus` are the
    # catalog name and the real count.
    (7, "ALTER TABLE observations ADD COLUMN source_gpu TEXT NOT NULL DEFAULT ''"),
    (8, "ALTER TABLE observations ADD COLUMN source_gpus INTEGER"),
    (9, "ALTER TABLE observations ADD COLUMN vcpus REAL"),
    (10, "ALTER TABLE observations ADD COLUMN memory_gib REAL"),
    # The digest: one source's snapshot on a date, the previous date of a source, the sources.
    (11, "CREATE INDEX IF NOT EXISTS observations_layout_source_date ON observations (layout, source, as_of)"),
    # price_book's "newest observation of each offer" (GROUP BY and join on these columns):
    # without it that query takes minutes once daily snapshots pile up (bench/prices_bench.py).
    (12, "CREATE INDEX IF NOT EXISTS observations_offer_newest "
         "ON observations (kind, gpu, market, provider, region, offer, as_of)"),
]


def open_store(path: str | None = None) -> sqlite_utils.Database:
    """The database with the price tables migrated (each migration in its own transaction,
    recorded in schema_versions) and the reference prices seeded on first use."""
    db = dbmod.connect(path)
    dbmod.migrate(db, "prices", MIGRATIONS)
    if not db.execute("SELECT 1 FROM observations WHERE source = ? LIMIT 1", [REFERENCE_SOURCE]).fetchone():
        seed_reference(db)
    return db


def _reference() -> dict:
    with open(data_dir() / "reference_prices.toml", "rb") as fh:
        return tomllib.load(fh)


def seed_reference(db: sqlite_utils.Database) -> int:
    rows = [
        {
            "source": REFERENCE_SOURCE, "kind": p["kind"], "gpu": p.get("gpu", ""),
            "gpus": p.get("gpus", 1), "market": p.get("market", ""), "provider": p.get("provider", ""),
            "region": p.get("region", ""), "offer": "", "price": float(p["price"]),
            "currency": p.get("currency", ""), "unit": p.get("unit", ""),
            "min_term_months": p.get("min_term_months", 0), "as_of": str(p["as_of"]),
            "estimate": int(bool(p.get("estimate"))), "cite": p.get("source", ""), "note": p.get("note", ""),
        }
        for p in _reference()["price"]
    ]
    with db.conn:
        db["observations"].insert_all(rows, ignore=True)
    return len(rows)


@dataclass(frozen=True)
class Price:
    kind: str
    gpu: str
    market: str
    provider: str
    price: float  # in `currency`, per `unit`
    currency: str
    unit: str
    as_of: str
    estimate: bool
    cite: str
    min_term_months: int = 0
    gpus: int = 1
    region: str = ""
    source: str = ""
    offer: str = ""

    def label(self) -> str:
        flag = " (estimate)" if self.estimate else ""
        return f"{self.provider}, {self.as_of}{flag}: {self.cite}"


class PriceBook:
    """The newest observation of each offer, and conversions between CNY and USD."""

    def __init__(self, rows: list[dict], usd_cny: float, fx_as_of: str, fx_source: str):
        self.usd_cny = usd_cny
        self.fx_as_of = fx_as_of
        self.fx_source = fx_source
        self._by_key: dict[tuple, list[Price]] = {}
        for r in rows:
            p = Price(kind=r["kind"], gpu=r["gpu"], market=r["market"], provider=r["provider"],
                      price=r["price"], currency=r["currency"], unit=r["unit"], as_of=r["as_of"],
                      estimate=bool(r["estimate"]), cite=r["cite"], min_term_months=r["min_term_months"],
                      gpus=r["gpus"], region=r["region"], source=r["source"], offer=r["offer"])
            self._by_key.setdefault((p.kind, p.gpu, p.market), []).append(p)

    def convert(self, amount: float, from_cur: str, to_cur: str) -> float:
        if from_cur == to_cur or not from_cur:
            return amount
        return amount * self.usd_cny if from_cur == "USD" else amount / self.usd_cny

    def best(self, kind: str, gpu: str, market: str, currency: str) -> Price | None:
        """The cheapest confirmed price (else the cheapest estimate) in the market.

        Rentals come from the user's market only; purchase and operating prices fall back to
        the other market, converted, when the user's market has none."""
        other = "global" if market == "china" else "china"
        for mkt in ([market] if kind.startswith(("rent", "offpeak")) else [market, other]):
            offers = [p for p in self._by_key.get((kind, gpu, mkt), []) if p.price > 0]
            if offers:
                pool = [p for p in offers if not p.estimate] or offers
                return min(pool, key=lambda p: self.convert(p.price, p.currency, currency))
        return None

    def gpus(self) -> list[str]:
        return sorted({key[1] for key in self._by_key if key[1]})

    def offers(self, kind: str, gpu: str, market: str) -> list[Price]:
        return [p for p in self._by_key.get((kind, gpu, market), []) if p.price > 0]

    def value(self, price: Price | None, currency: str) -> float | None:
        return None if price is None else self.convert(price.price, price.currency, currency)


@cache
def _book_for(path: str, mtime: float) -> PriceBook:
    db = open_store(path)
    # The newest price of each offer; for snapshot sources (SkyPilot) only offers still listed
    # in that source's latest snapshot, so a withdrawn offer does not keep its last price.
    rows = list(db.query("""
        SELECT o.* FROM observations o
        JOIN (SELECT kind, gpu, market, provider, region, offer, MAX(as_of) AS as_of
              FROM observations GROUP BY kind, gpu, market, provider, region, offer) newest
        USING (kind, gpu, market, provider, region, offer, as_of)
        WHERE o.layout != 'skypilot'
           OR o.as_of = (SELECT MAX(as_of) FROM observations s WHERE s.source = o.source
                         AND s.layout = 'skypilot')"""))
    fx = _reference()["fx"]
    return PriceBook(rows, fx["usd_cny"], fx["as_of"], fx["source"])


def exchange_rate() -> tuple[float, str, str] | None:
    """The USD->CNY rate set by configuration (GPU_ADVISOR_USD_CNY, optionally "7.12@2026-11-20"),
    with its date and where it came from; None when not configured."""
    raw = os.environ.get("GPU_ADVISOR_USD_CNY", "").strip()
    if not raw:
        return None
    rate, _, as_of = raw.partition("@")
    try:
        value = float(rate)
    except ValueError:
        value = 0.0
    if not 0 < value < 100:
        raise ConfigError(f"GPU_ADVISOR_USD_CNY must look like 7.12 or 7.12@2026-11-20, not {raw!r}")
    return value, as_of or "not dated", "GPU_ADVISOR_USD_CNY setting"


def price_book(path: str | None = None) -> PriceBook:
    """Cached per database file and modification time, so an import changes the next answer."""
    p = path or db_path()
    open_store(p).conn.close()
    book = _book_for(os.path.abspath(p), os.path.getmtime(p))
    configured = exchange_rate()
    if configured:
        book = copy.copy(book)
        book.usd_cny, book.fx_as_of, book.fx_source = configured
    return book


def current_prices(gpu: str | None = None, path: str | None = None, today: str | None = None,
                   per_gpu: int = 5) -> list[dict]:
    """The cheapest rental offers per GPU, per hour and per month, with source and age;
    cheapest first (compared in USD)."""
    book = price_book(path)
    day = dt.date.fromisoformat(today) if today else dt.date.today()
    groups = []
    for name in (g for g in book.gpus() if gpu is None or g == gpu):
        offers = []
        for kind in ("rent_hour", "rent_month", "offpeak_hour"):
            for market in ("china", "global"):
                for p in book.offers(kind, name, market):
                    hours = 730 if kind == "rent_month" else 1
                    offers.append({
                        "kind": kind, "price": p.price, "currency": p.currency, "unit": p.unit or "gpu-hour",
                        "provider": p.provider, "region": p.region, "offer": p.offer, "market": market,
                        "source": p.source, "cite": p.cite, "as_of": p.as_of,
                        "age_days": (day - _as_date(p.as_of)).days, "estimate": p.estimate,
                        "usd_per_gpu_hour": book.convert(p.price, p.currency, "USD") / hours,
                    })
        offers.sort(key=lambda o: o["usd_per_gpu_hour"])
        if offers:
            groups.append({"gpu": name, "offers": offers[:per_gpu]})
    return groups


def _as_date(text: str) -> dt.date:
    """A price's as-of date ("2026-09", "2025", "2026-09-14") as its first day."""
    parts = (text + "-01-01").split("-")[:3]
    try:
        return dt.date(int(parts[0]), int(parts[1]), int(parts[2]))
    except ValueError:
        return dt.date(int(parts[0]), 1, 1)
