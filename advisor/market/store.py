"""The price store: the `observations` table, its migrations, the one writer, and every query on it.

Every price is an observation with its source and date. Imports, feeds, recorded quotes and
the reference seed all go in through `write_rows`; the planner's price book, `prices show`,
the digest and its chart read through the queries below. No other module knows the table.

An observation may belong to an owner: an opaque key the caller gives (the bot a Slack
workspace, the CLI "local") and this module does not interpret. A quote recorded for an
owner is seen only by that owner; rows without one (imports, feeds, the seed) are shared
market data that every owner sees.
"""

from __future__ import annotations

import datetime as dt
import math

import sqlite_utils

from advisor import db as dbmod
from advisor.market import reference
from advisor.market.layouts import SNAPSHOT_LAYOUTS, WHOLE_LAYOUTS

COMPONENT = "prices"
TABLE = "observations"

# The table as the migrations leave it: column -> type, and the default of each NOT NULL column.
COLUMNS: dict[str, type] = {
    "id": int,
    "source": str,  # 'reference', 'skypilot', 'quote', a feed name
    "kind": str,  # rent_hour, rent_month, offpeak_hour, buy_server, ...
    "gpu": str,  # catalog name
    "gpus": int,  # the real GPU count the price covers
    "market": str,  # china | global
    "provider": str,
    "region": str,
    "offer": str,
    "price": float,  # in `currency`, per `unit`
    "currency": str,
    "unit": str,
    "min_term_months": int,
    "as_of": str,
    "estimate": int,
    "cite": str,
    "note": str,
    "layout": str,  # the file layout a row came from (advisor/market/layouts.py); '' otherwise
    "priced": int,  # 0: listed on that date with no usable price of this kind; price is then 0
    "published_price": float,  # the price exactly as published (NULL for an empty cell)
    "published_unit": str,  # its unit ('instance-hour', 'server-month', ...)
    "source_gpu": str,  # the GPU as the source spells it ('A100')
    "source_gpus": int,  # the GPU count as the source lists it (12 for Azure's ND96is)
    "vcpus": float,
    "memory_gib": float,
    "owner": str,  # NULL: shared market data; else the key of the owner who recorded it
}
NOT_NULL_DEFAULTS: dict[str, object] = {
    "gpu": "",
    "gpus": 1,
    "market": "",
    "provider": "",
    "region": "",
    "offer": "",
    "currency": "",
    "unit": "",
    "min_term_months": 0,
    "estimate": 0,
    "cite": "",
    "note": "",
    "layout": "",
    "priced": 1,
    "published_unit": "",
    "source_gpu": "",
}
NOT_NULL = ("source", "kind", "price", "as_of", *NOT_NULL_DEFAULTS)
# Added by migration 14 (after the table's rebuild in 13, so they are not in COLUMNS, which
# migration 13 copies): what a catalog says about the offer beyond its price.
OFFER_COLUMNS: dict[str, str] = {
    "offer_kind": "",  # 'server' (a whole GPU node) | 'instance' (a VM slice) | '' unknown
    "interconnect": "",  # the documented cluster fabric of the instance family ('' none known)
    "interconnect_source": "",  # where that fact is documented
}
# Added by migration 16 (issue 15): what a row is an offer of, beyond offer_kind ('instance' one or a
# few GPUs in a shared host | 'server' a whole GPU node | 'cluster' servers on one non-blocking
# IB/RoCE fabric). Old rows migrate with the defaults of `offer_defaults` below.
OFFER_TERMS: dict[str, object] = {
    "max_gpus": 0,  # the most GPUs one order can get (0: not stated; read as `gpus`)
    "fabric": "",  # none | pcie | nvlink | roce | ib | efa | tcpx ('' not stated)
    "fabric_gbps": 0.0,  # the fabric's bandwidth per GPU, Gb/s (0: not stated)
    "billing": "",  # billing granularity: second | minute | hour | day | week | month ('' not stated)
    "indicative": 0,  # 1: an index or average nobody sells; never a rentable price
}
# Added by migration 18 (issue 21): the terms an offer is sold on, as its source states them,
# space-separated: 'hour' (pay as you go), 'day', 'week', 'Nm' (a lease of N months: '1m', '6m',
# '12m', '36m'); '' when the source states none. A term no source states is only ever assumed.
OFFER_SOLD_ON: dict[str, object] = {"terms": ""}
TERM_WORDS = ("hour", "day", "week")
# The values (layouts.OFFER_KINDS, FABRICS, BILLINGS) the imports check; the fabrics that join servers:
CLUSTER_FABRICS = ("roce", "ib", "efa", "tcpx")
# What makes two observations the same one: recording it again writes nothing. The owner is
# part of it (two teams may record the same quote), NULL counting as one value.
SAME_OBSERVATION = (
    "source",
    "kind",
    "gpu",
    "market",
    "provider",
    "region",
    "offer",
    "as_of",
    "price",
    "coalesce(owner, '')",
)
# Indexes (name -> columns) and what needs them.
INDEXES: dict[str, tuple[str, ...]] = {
    "observations_gpu_kind": ("gpu", "kind", "market"),
    # The digest: one source's snapshot on a date, the previous date of a source, the sources.
    "observations_layout_source_date": ("layout", "source", "as_of"),
    # newest_offers' "newest observation of each offer" (GROUP BY and join on these columns,
    # the owner read from the index): without it that query takes minutes once daily
    # snapshots pile up (bench/prices_bench.py).
    "observations_offer_newest": ("kind", "gpu", "market", "provider", "region", "offer", "as_of", "owner"),
}
# What makes a stored snapshot row "the same" as an imported one (the cite names the file).
_SNAPSHOT_SAME = tuple(
    c for c in (*COLUMNS, *OFFER_COLUMNS, *OFFER_TERMS, *OFFER_SOLD_ON) if c not in ("id", "cite", "owner")
)


def fabric_of(interconnect: str) -> str:
    """The fabric code of a documented interconnect text ('EFA, 3200 Gbps' -> 'efa')."""
    t = interconnect.lower()
    for word, code in (("infiniband", "ib"), ("efa", "efa"), ("tcpx", "tcpx"), ("rdma", "roce"), ("roce", "roce")):
        if word in t:
            return code
    return ""


def _gbps_of(interconnect: str) -> float:
    """The total Gb/s a documented interconnect text states first ('EFA, 3200 Gbps' -> 3200)."""
    import re

    m = re.search(r"([0-9][0-9,]*)\s*Gbps", interconnect)
    return float(m.group(1).replace(",", "")) if m else 0.0


def offer_defaults(r: dict) -> dict:
    """The stated defaults for a row that leaves its offer terms out (imports, feeds, quotes and
    rows migrated from before migration 16):
    - max_gpus: the GPUs the row covers (`gpus`): one order gets what was listed, no more;
    - fabric: from a documented `interconnect` text (SkyPilot catalogs), else '' (not stated);
      fabric_gbps: that text's Gb/s divided by the GPUs of the instance;
    - billing: 'month' for rent_month rows, 'hour' for hourly kinds, else '';
    - offer_kind: 'server' for 8 or more GPUs, 'instance' for fewer (rental kinds only);
    - indicative: 1 when the provider names a market index, else 0."""
    out = dict(r)
    gpus = int(out.get("gpus") or 1)
    if not out.get("max_gpus"):
        out["max_gpus"] = gpus
    if not out.get("fabric") and out.get("interconnect"):
        out["fabric"] = fabric_of(out["interconnect"])
        if out["fabric"] and not out.get("fabric_gbps"):
            out["fabric_gbps"] = _gbps_of(out["interconnect"]) / max(1, gpus)
    kind = out.get("kind", "")
    if not out.get("billing"):
        out["billing"] = "month" if kind == "rent_month" else ("hour" if kind.endswith("_hour") else "")
    if not out.get("offer_kind") and kind.startswith(("rent", "offpeak", "spot")):
        out["offer_kind"] = "server" if gpus >= 8 else "instance"
    if "index" in str(out.get("provider", "")).lower():
        out["indicative"] = 1
    if not out.get("terms"):
        out["terms"] = default_terms(out)
    return out


def default_terms(r: dict) -> str:
    """The terms a row states when it leaves `terms` out: an hourly rental is sold by the hour
    (what an on-demand list is); a monthly lease with a stated minimum is sold on that minimum;
    anything else states none ('')."""
    kind = r.get("kind", "")
    if kind in ("rent_hour", "offpeak_hour", "spot_hour"):
        return "hour"
    if kind == "rent_month" and int(r.get("min_term_months") or 0) > 0:
        return f"{int(r['min_term_months'])}m"
    return ""


def term_months(terms: str) -> list[int]:
    """The lease terms, in months, that a `terms` text states ('1m 12m' -> [1, 12]); hour, day
    and week are not leases and give none."""
    return sorted(int(t[:-1]) for t in terms.split() if t.endswith("m") and t[:-1].isdigit())


def _owners(db: sqlite_utils.Database) -> None:
    """Version 13: the owner column. SQLite cannot change the table's UNIQUE constraint in place,
    so the table is rebuilt from COLUMNS, with the uniqueness as an index that includes the owner."""
    db[f"{TABLE}_new"].create(COLUMNS, pk="id", not_null=NOT_NULL, defaults=NOT_NULL_DEFAULTS)
    kept = ", ".join(c for c in COLUMNS if c != "owner")
    db.execute(f"INSERT INTO {TABLE}_new ({kept}) SELECT {kept} FROM {TABLE}")
    db[TABLE].drop()
    db.rename_table(f"{TABLE}_new", TABLE)
    for name, columns in INDEXES.items():
        db[TABLE].create_index(columns, index_name=name)
    # An index on an expression: sqlite-utils' create_index takes column names only.
    db.execute(f"CREATE UNIQUE INDEX observations_same ON {TABLE} ({', '.join(SAME_OBSERVATION)})")


def _offers_and_feeds(db: sqlite_utils.Database) -> None:
    """Version 14: the offer columns (OFFER_COLUMNS) and `feed_state`, what a feed URL answered
    last (ETag, Last-Modified, a hash of the body) so an unchanged catalog costs nothing."""
    have = {c.name for c in db[TABLE].columns}
    for column, default in OFFER_COLUMNS.items():
        if column not in have:
            db.execute(f"ALTER TABLE {TABLE} ADD COLUMN {column} TEXT NOT NULL DEFAULT '{default}'")
    db.execute(
        "CREATE TABLE IF NOT EXISTS feed_state (url TEXT PRIMARY KEY, etag TEXT, last_modified TEXT,"
        " body_sha256 TEXT, checked_at TEXT)"
    )


def _offer_terms(db: sqlite_utils.Database) -> None:
    """Version 15 (issue 15): the offer terms (OFFER_TERMS). Old rows, reference rows included,
    take offer_defaults: one order gets the GPUs the row covers, so an old per-GPU row prices one
    GPU and never a multi-GPU plan. A new database is seeded from data/reference_prices.toml,
    which states each row's terms."""
    have = {c.name for c in db[TABLE].columns}
    for column, default in OFFER_TERMS.items():
        if column not in have:
            sql_type = {int: "INTEGER", float: "REAL", str: "TEXT"}[type(default)]
            db.execute(f"ALTER TABLE {TABLE} ADD COLUMN {column} {sql_type} NOT NULL DEFAULT {default!r}")
    updates = []
    # Rows the reference file has since withdrawn: monthly leases divided by 730 and stored as hourly
    # prices with no minimum term, and the 910B4 (32 GB) lease stored under the 64 GB 910B.
    db.execute(
        f"DELETE FROM {TABLE} WHERE source = ? AND owner IS NULL AND ((kind = 'rent_hour' AND provider ="
        " 'channel lease (market)') OR (gpu = 'Ascend-910B-64GB' AND note LIKE '%910B4 server%'))",
        [reference.SOURCE],
    )
    for r in db.query(f"SELECT id, kind, gpus, provider, interconnect, offer_kind FROM {TABLE}"):
        d = offer_defaults({**r, "max_gpus": 0, "fabric": "", "fabric_gbps": 0.0, "billing": "", "indicative": 0})
        updates.append(
            (d["max_gpus"], d["fabric"], d["fabric_gbps"], d["billing"], d["indicative"], d["offer_kind"], r["id"])
        )
    db.conn.executemany(
        f"UPDATE {TABLE} SET max_gpus = ?, fabric = ?, fabric_gbps = ?, billing = ?,"
        " indicative = ?, offer_kind = ? WHERE id = ?",
        updates,
    )
    # The reference rows take the terms data/reference_prices.toml states (the same observation:
    # source, kind, GPU, market, provider, region, offer, date and price); rows it added since
    # the database was seeded go in.
    # (without the columns later migrations add: the table has none of them yet)
    seed = [{k: v for k, v in r.items() if k not in OFFER_SOLD_ON} for r in _reference_seed()]
    if _exists(db, "source = ?", [reference.SOURCE]):
        db[TABLE].insert_all(seed, ignore=True)
    db.conn.executemany(
        f"UPDATE {TABLE} SET offer_kind = ?, max_gpus = ?, fabric = ?, fabric_gbps = ?, billing = ?, indicative = ?"
        " WHERE source = ? AND kind = ? AND gpu = ? AND market = ? AND provider = ? AND region = ? AND offer = ?"
        " AND as_of = ? AND price = ? AND owner IS NULL",
        [
            (
                r["offer_kind"],
                r["max_gpus"],
                r["fabric"],
                r["fabric_gbps"],
                r["billing"],
                r["indicative"],
                r["source"],
                r["kind"],
                r["gpu"],
                r["market"],
                r["provider"],
                r["region"],
                r["offer"],
                r["as_of"],
                r["price"],
            )
            for r in seed
        ],
    )


def _reference_seed() -> list[dict]:
    """The reference rows with every column the table has, as write_rows stores them."""
    return [
        offer_defaults({**NOT_NULL_DEFAULTS, **OFFER_COLUMNS, **OFFER_TERMS, **OFFER_SOLD_ON, **r})
        for r in reference.rows()
    ]


def _sold_on(db: sqlite_utils.Database) -> None:
    """Version 18 (issue 21): the terms each offer is sold on (OFFER_SOLD_ON). Stored rows take
    default_terms; reference rows then take what data/reference_prices.toml states when the seed
    runs again (the file's digest changes with it)."""
    if "terms" not in {c.name for c in db[TABLE].columns}:
        db.execute(f"ALTER TABLE {TABLE} ADD COLUMN terms TEXT NOT NULL DEFAULT ''")
    updates = [(default_terms(r), r["id"]) for r in db.query(f"SELECT id, kind, min_term_months FROM {TABLE}")]
    db.conn.executemany(f"UPDATE {TABLE} SET terms = ? WHERE id = ?", updates)
    db.conn.executemany(
        f"UPDATE {TABLE} SET terms = ? WHERE source = ? AND kind = ? AND gpu = ? AND market = ? AND provider = ?"
        " AND region = ? AND offer = ? AND as_of = ? AND price = ? AND owner IS NULL",
        [
            (r["terms"], *(r[c] for c in ("source", "kind", "gpu", "market", "provider", "region", "offer", "as_of")))
            + (r["price"],)
            for r in _reference_seed()
        ],
    )


# Each migration runs once, in order, in its own transaction (advisor/db.py). A step appended
# here runs on SQLite files and on Postgres alike (on Postgres it is given advisor.db.Database,
# which has the sqlite-utils calls these steps make); a new column also goes into the dicts above,
# from which advisor/schema.py builds the table a new Postgres database starts with. 1-12 are kept as
# the SQL that built the databases already in use; 13 rebuilds the table in its final form.
MIGRATIONS: list[tuple[int, str | dbmod.Step]] = [
    (
        1,
        """
        CREATE TABLE IF NOT EXISTS observations (
            id INTEGER PRIMARY KEY,
            source TEXT NOT NULL,
            kind TEXT NOT NULL,
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
        )""",
    ),
    (2, "CREATE INDEX IF NOT EXISTS observations_gpu_kind ON observations (gpu, kind, market)"),
    (3, "ALTER TABLE observations ADD COLUMN layout TEXT NOT NULL DEFAULT ''"),
    (4, "ALTER TABLE observations ADD COLUMN priced INTEGER NOT NULL DEFAULT 1"),
    (5, "ALTER TABLE observations ADD COLUMN published_price REAL"),
    (6, "ALTER TABLE observations ADD COLUMN published_unit TEXT NOT NULL DEFAULT ''"),
    (7, "ALTER TABLE observations ADD COLUMN source_gpu TEXT NOT NULL DEFAULT ''"),
    (8, "ALTER TABLE observations ADD COLUMN source_gpus INTEGER"),
    (9, "ALTER TABLE observations ADD COLUMN vcpus REAL"),
    (10, "ALTER TABLE observations ADD COLUMN memory_gib REAL"),
    (11, "CREATE INDEX IF NOT EXISTS observations_layout_source_date ON observations (layout, source, as_of)"),
    (
        12,
        "CREATE INDEX IF NOT EXISTS observations_offer_newest "
        "ON observations (kind, gpu, market, provider, region, offer, as_of)",
    ),
    (13, _owners),
    (14, _offers_and_feeds),
    # A counter every write bumps in its transaction: the price book's cache key (prices.py).
    # The file's modification time is not one: a commit in WAL mode does not move it.
    (
        15,
        (
            "CREATE TABLE IF NOT EXISTS observations_version (id INTEGER PRIMARY KEY, n INTEGER NOT NULL);"
            "INSERT OR IGNORE INTO observations_version VALUES (1, 0)"
        ),
    ),
    (16, _offer_terms),
    (17, "CREATE TABLE IF NOT EXISTS reference_seed (id INTEGER PRIMARY KEY CHECK (id = 1), sha256 TEXT NOT NULL)"),
    (18, _sold_on),
]


def open_store(path: str | None = None) -> dbmod.Database:
    """The store (DATABASE_URL, else the SQLite file GPU_ADVISOR_DB, or the SQLite file `path`),
    migrated (Alembic, advisor/migrations), and seeded with the reference prices
    (data/reference_prices.toml). On SQLite the older migrations above are checked at each open,
    as before Alembic: a step added to MIGRATIONS runs on the next open."""
    db = dbmod.connect(path)
    try:
        if db.postgres:
            dbmod.migrate_steps(db, COMPONENT, MIGRATIONS)  # steps appended after Alembic's baseline
        else:
            dbmod.migrate_legacy(db.legacy(), COMPONENT, MIGRATIONS)
        _seed_reference(db)
    except BaseException:
        db.close()
        raise
    return db


def _seed_reference(db: dbmod.Database) -> None:
    """The reference prices, on first use and again whenever data/reference_prices.toml changes
    (an upgrade): rows it added go in, rows already stored stay as they are (write_rows inserts
    an observation once). A read of one row when nothing changed."""
    seeded = db.execute("SELECT sha256, newest FROM reference_seed WHERE id = 1").fetchone()
    if seeded and seeded[0] == reference.digest():
        return
    rows = reference.rows()
    newest = max((str(r["as_of"]) for r in rows), default="")
    if seeded and seeded[1] and seeded[1] > newest:
        return  # a newer release seeded already: the seed only moves forward
    write_rows(db, rows)
    with dbmod.writing(db):
        db["reference_seed"].upsert({"id": 1, "sha256": reference.digest(), "newest": newest}, pk="id")


def _exists(db: dbmod.Database, where: str, args: list) -> bool:
    """Whether any row matches; stops at the first (a count would read them all)."""
    return any(True for _ in db[TABLE].rows_where(where, args, select="1", limit=1))


def has_owner_rows(db: dbmod.Database, owner: str) -> bool:
    """Whether `owner` recorded any observation of its own (a quote)."""
    return _exists(db, "owner = ?", [owner])


def file_of(db: dbmod.Database) -> str:
    """What names the store in a cache: the SQLite file, or the Postgres URL without its password
    ('' for a SQLite database in memory)."""
    if db.postgres:
        return db.key
    return next(r["file"] for r in db.query("PRAGMA database_list") if r["name"] == "main")


def version(db: dbmod.Database) -> int:
    """A number every write of the table changes (in the writer's transaction): what a cache of
    anything read from the table is keyed on."""
    row = db.execute("SELECT n FROM observations_version WHERE id = 1").fetchone()
    return row[0] if row else 0


def _bump(db: dbmod.Database) -> None:
    db.execute("UPDATE observations_version SET n = n + 1 WHERE id = 1")


# ----------------------------------------------------------------------------------------
# What a row may hold

# The earliest as-of date a price may have: no GPU the catalog knows was rented before, and
# an older date is a typo (0001, 1970) that would sort first for ever.
EARLIEST_DATE = dt.date(2015, 1, 1)
# How far ahead a date may be: a price list published for next week; 9999 would pin the
# digest's "newest snapshot" date for ever.
FUTURE_DAYS = 7
# A rough rate, only to put CNY prices into the USD bands below: the bands are wide enough
# (100x each way) that the exact rate does not matter.
ROUGH_CNY_PER_USD = 7.0
# Plausible prices per stored unit, in USD: (lowest, highest). A GPU-hour has cost from about
# $0.05 (old cards, spot) to about $15 (newest parts on demand); 0.01 to 10,000 refuses only a
# slipped decimal point, a wrong unit or a poisoned value (1e18, 1e308), never a real price.
# A GPU-month is 730 such hours; a card, a server and electricity have their own bands.
PLAUSIBLE_USD: dict[str, tuple[float, float]] = {
    "gpu-hour": (0.01, 10_000.0),
    "gpu-month": (0.01 * 730, 10_000.0 * 730),
    "card": (10.0, 10_000_000.0),
    "server": (100.0, 100_000_000.0),
    "module": (100.0, 100_000_000.0),
    "kwh": (0.001, 10.0),
}
# Any other unit (storage per TB-month, hosting per kW-month, a PUE ratio): finite, above 0
# and below this.
PLAUSIBLE_OTHER_USD = 1e9


def _as_date(text: str) -> dt.date:
    """An as-of date ("2026-09-14", "2026-09", "2026") as its first day; ValueError if none."""
    parts = (str(text).strip() + "-01-01").split("-")[:3]
    return dt.date(int(parts[0]), int(parts[1]), int(parts[2]))


def check_row(row: dict, today: dt.date | None = None) -> None:
    """Refuse (ValueError with a plain message) a row whose price or date cannot be real: a
    price outside the plausible band for its unit (PLAUSIBLE_USD), a date before 2015 or more
    than FUTURE_DAYS ahead. A row with ``priced = 0`` ("listed without a price") must carry 0.
    Every importer and the writer call it, so no way in skips it."""
    try:
        day = _as_date(row["as_of"])
    except (KeyError, ValueError, TypeError):
        raise ValueError(f"date {row.get('as_of')!r} is not a date like 2024-02-05") from None
    today = today or dt.date.today()
    if day < EARLIEST_DATE:
        raise ValueError(f"date {row['as_of']} is before {EARLIEST_DATE.year}: not a price on record")
    # The curated seed (data/reference_prices.toml) is exempt from the "ahead" test only: a
    # machine whose clock is behind its newest date must still open the store.
    if day > today + dt.timedelta(days=FUTURE_DAYS) and row.get("source") != reference.SOURCE:
        raise ValueError(f"date {row['as_of']} is more than {FUTURE_DAYS} days ahead")
    price = row.get("price")
    if not isinstance(price, (int, float)) or isinstance(price, bool) or not math.isfinite(price):
        raise ValueError(f"price {price!r} is not a number")
    if not row.get("priced", 1):
        if price != 0:
            raise ValueError("a row listed without a price must have price 0")
        return
    unit = row.get("unit") or "gpu-hour"
    usd = price / ROUGH_CNY_PER_USD if row.get("currency") == "CNY" else price
    low, high = PLAUSIBLE_USD.get(unit, (0.0, PLAUSIBLE_OTHER_USD))
    if not (low <= usd <= high) or price <= 0:
        shown = f"{price:.6g} {row.get('currency') or ''} per {unit}".replace("  ", " ")
        raise ValueError(f"price {shown} is not plausible (expected {low:g} to {high:,.0f} USD or the same in CNY)")


# ----------------------------------------------------------------------------------------
# The one writer


# On SQLite a long write holds the one write lock that every other process waits for (the job
# store's acks wait at most 0.5 s): writes outside a caller's transaction commit in chunks of
# this many rows, a few tens of milliseconds each.
WRITE_CHUNK = 1000


def prepare_rows(rows: list[dict], source: str | None = None) -> list[dict]:
    """Rows as the writer stores them (every column, offer defaults), each checked (`check_row`:
    ValueError for the first that cannot be real)."""
    rows = [
        offer_defaults(
            {
                **NOT_NULL_DEFAULTS,
                **OFFER_COLUMNS,
                **OFFER_TERMS,
                **OFFER_SOLD_ON,
                **r,
                **({"source": source} if source else {}),
            }
        )
        for r in rows
    ]
    for r in rows:
        check_row(r)
    return rows


def bounded_writes(db: dbmod.Database) -> bool:
    """Whether a write outside a transaction commits in chunks (SQLite: one writer at a time)."""
    return not db.postgres and not db.in_transaction


def write_rows(db: dbmod.Database, rows: list[dict], source: str | None = None, stored: dict | None = None) -> int:
    """Write observation rows; returns the rows inserted or replaced.

    `source` overrides the rows' source; columns a row leaves out take the table's defaults.
    A row of a snapshot layout replaces a stored row of the same (source, kind, provider,
    region, offer, as_of) only when a value differs; any other row is inserted unless the
    very same observation is already there. For a whole-list layout (layouts.WHOLE_LAYOUTS) the
    stored rows of that source and date that `rows` no longer list are removed (and counted).
    Every row must pass `check_row` (ValueError, nothing written).

    Inside the caller's transaction (or on Postgres) it is one transaction; otherwise, on SQLite,
    the changes commit in chunks of WRITE_CHUNK rows, so that no other process waits long for
    the write lock (bounded_writes). An import that writes one file in batches passes the same
    `stored` dict to each call: the snapshot rows stored before the import are then read once."""
    rows = prepare_rows(rows, source)
    snapshot = [r for r in rows if r["layout"] in SNAPSHOT_LAYOUTS]
    other = [r for r in rows if r["layout"] not in SNAPSHOT_LAYOUTS]
    table = db[TABLE]
    if not bounded_writes(db):
        with dbmod.writing(db):
            stale, changed, dropped = _changed_snapshot_rows(db, snapshot, {} if stored is None else stored)
            if stale or dropped:
                db.executemany(f"DELETE FROM {TABLE} WHERE id = ?", [(i,) for i in stale + dropped])
            written = table.insert_all(changed + other, ignore=True) + len(dropped)
            if written or stale:
                _bump(db)
            return written
    stale, changed, dropped = _changed_snapshot_rows(db, snapshot, {} if stored is None else stored)
    gone = stale + dropped
    new = changed + other
    written = len(dropped)
    for at in range(0, max(len(gone), len(new)), WRITE_CHUNK):
        with dbmod.writing(db):
            # A replaced row goes in the same commit as the row that replaces it, where it can.
            if gone[at : at + WRITE_CHUNK]:
                db.executemany(f"DELETE FROM {TABLE} WHERE id = ?", [(i,) for i in gone[at : at + WRITE_CHUNK]])
            added = table.insert_all(new[at : at + WRITE_CHUNK], ignore=True)
            written += added
            if added or gone[at : at + WRITE_CHUNK]:
                _bump(db)
    return written


def delete_owner(db: dbmod.Database, owner: str) -> int:
    """Delete every observation `owner` recorded (a workspace that uninstalls the app); the
    shared market data stays. Returns the rows deleted."""
    if not owner:
        return 0
    with dbmod.writing(db):
        gone = db.execute(f"DELETE FROM {TABLE} WHERE owner = ?", [owner]).rowcount
        if gone:
            _bump(db)
    return gone


def _offer_key(r: dict) -> tuple:
    return r["source"], r["kind"], r["provider"], r["region"], r["offer"], r["as_of"]


def _changed_snapshot_rows(
    db: dbmod.Database, rows: list[dict], stored: dict
) -> tuple[list[int], list[dict], list[int]]:
    """The ids of stored snapshot rows to replace, the rows that are new or differ, and the ids of
    rows a whole-list layout's new list of the same date leaves out. `stored` caches the stored
    rows of each (layout, source, date) read so far."""
    done = stored.setdefault(None, set())
    for group in sorted({(r["layout"], r["source"], r["as_of"]) for r in rows} - done):
        done.add(group)
        for old in db[TABLE].rows_where(
            "layout = ? AND source = ? AND as_of = ?", list(group), select=", ".join(("id", *_SNAPSHOT_SAME))
        ):
            stored.setdefault(_offer_key(old), []).append(old)
    stale, changed = [], []
    for r in rows:
        old = stored.get(_offer_key(r), [])
        if len(old) == 1 and all(old[0][c] == r[c] for c in _SNAPSHOT_SAME):
            continue
        stale.extend(o["id"] for o in old)
        changed.append(r)
    # A whole-list layout (a SkyPilot catalog file): what the new list of that date leaves out goes.
    listed = {_offer_key(r) for r in rows}
    dropped = [
        o["id"]
        for key, olds in stored.items()
        if key is not None and key not in listed
        for o in olds
        if o["layout"] in WHOLE_LAYOUTS
    ]
    return stale, changed, dropped


# ----------------------------------------------------------------------------------------
# The planner's price book and `prices show`


def newest_offers(db: dbmod.Database, owner: str | None) -> list[dict]:
    """The newest observation of each offer that `owner` sees (shared rows and its own; shared
    rows only for None). For snapshot layouts only offers still listed in that source's latest
    snapshot, so a withdrawn offer does not keep its last price."""
    # The owner test is written out twice rather than as a common table expression, which
    # SQLite would copy whole instead of reading the offer index.
    return list(
        db.query(
            f"""
        SELECT o.* FROM observations o
        JOIN (SELECT kind, gpu, market, provider, region, offer, MAX(as_of) AS as_of FROM observations
              WHERE owner IS NULL OR owner = ? GROUP BY kind, gpu, market, provider, region, offer) newest
        USING (kind, gpu, market, provider, region, offer, as_of)
        WHERE (o.owner IS NULL OR o.owner = ?) AND (o.layout NOT IN ({", ".join("?" for _ in SNAPSHOT_LAYOUTS)})
           OR o.as_of = (SELECT MAX(as_of) FROM observations s WHERE s.source = o.source AND s.layout = o.layout))""",
            [owner, owner, *SNAPSHOT_LAYOUTS],
        )
    )


# ----------------------------------------------------------------------------------------
# Snapshots: the digest and its chart


def _layouts() -> str:
    return "layout IN (" + ", ".join("?" for _ in SNAPSHOT_LAYOUTS) + ")"


def snapshot_sources(db: dbmod.Database, date: str | None = None) -> list[str]:
    """Snapshot sources, all of them or those with a snapshot on `date`."""
    sources: set[str] = set()
    for layout in SNAPSHOT_LAYOUTS:
        # Skip-scan over the (layout, source, as_of) index: one lookup per source.
        sources.update(
            r["x"]
            for r in db.query(
                """
            WITH RECURSIVE s(x) AS (
                SELECT MIN(source) FROM observations WHERE layout = :l
                UNION ALL
                SELECT (SELECT MIN(source) FROM observations WHERE layout = :l AND source > s.x)
                FROM s WHERE s.x IS NOT NULL)
            SELECT x FROM s WHERE x IS NOT NULL""",
                {"l": layout},
            )
        )
    if date is None:
        return sorted(sources)
    return sorted(
        s for s in sources if _exists(db, f"{_layouts()} AND source = ? AND as_of = ?", [*SNAPSHOT_LAYOUTS, s, date])
    )


def snapshot_dates(db: dbmod.Database, source: str) -> list[str]:
    return [
        r["as_of"]
        for r in db.query(
            f"SELECT DISTINCT as_of FROM observations WHERE {_layouts()} AND source = ? ORDER BY as_of",
            [*SNAPSHOT_LAYOUTS, source],
        )
    ]


def latest_snapshot_date(db: dbmod.Database) -> str | None:
    """The newest date any snapshot source has (the digest's natural default date)."""
    return next(db.query(f"SELECT MAX(as_of) AS day FROM observations WHERE {_layouts()}", list(SNAPSHOT_LAYOUTS)))[
        "day"
    ]


def snapshot_on_or_before(db: dbmod.Database, source: str, date: str, strictly_before: bool) -> str | None:
    op = "<" if strictly_before else "<="
    return next(
        db.query(
            f"SELECT MAX(as_of) AS day FROM observations WHERE {_layouts()} AND source = ? AND as_of {op} ?",
            [*SNAPSHOT_LAYOUTS, source, date],
        )
    )["day"]


def snapshot_rows(db: dbmod.Database, source: str, date: str) -> list[dict]:
    """Every row of one source's snapshot on one date."""
    return list(db[TABLE].rows_where(f"{_layouts()} AND source = ? AND as_of = ?", [*SNAPSHOT_LAYOUTS, source, date]))


def priced_on_demand(db: dbmod.Database, source: str, date: str) -> list[dict]:
    """The on-demand rows with a price in one source's snapshot on one date."""
    return list(
        db[TABLE].rows_where(
            f"{_layouts()} AND source = ? AND as_of = ? AND kind = 'rent_hour' AND priced = 1 AND price > 0",
            [*SNAPSHOT_LAYOUTS, source, date],
        )
    )


def cheapest_history(
    db: dbmod.Database, gpus: list[str], until: str, points: int = 12
) -> dict[str, list[tuple[str, float]]]:
    """For the digest chart: the cheapest on-demand price per GPU-hour of each GPU in the
    snapshots, date by date, the last `points` dates up to `until`."""
    out: dict[str, list[tuple[str, float]]] = {}
    for gpu in gpus:
        rows = db.query(
            f"SELECT as_of, MIN(price) AS price FROM observations WHERE {_layouts()} AND kind = 'rent_hour'"
            " AND priced = 1 AND price > 0 AND gpu = ? AND as_of <= ? GROUP BY as_of ORDER BY as_of DESC LIMIT ?",
            [*SNAPSHOT_LAYOUTS, gpu, until, points],
        )
        history = sorted((r["as_of"], r["price"]) for r in rows)
        if history:
            out[gpu] = history
    return out


# ----------------------------------------------------------------------------------------
# Feeds: what each URL answered last


def feed_state(db: dbmod.Database, url: str) -> dict | None:
    return next(db["feed_state"].rows_where("url = ?", [url]), None)


def remember_feed(
    db: dbmod.Database, url: str, etag: str | None, last_modified: str | None, body_sha256: str, checked_at: str
) -> None:
    with dbmod.writing(db):
        db["feed_state"].upsert(
            {
                "url": url,
                "etag": etag,
                "last_modified": last_modified,
                "body_sha256": body_sha256,
                "checked_at": checked_at,
            },
            pk="url",
        )


def delete_owned_quotes(db: sqlite_utils.Database, owner: str, provider: str, gpu: str | None = None) -> list[dict]:
    """Withdraw the quotes `owner` recorded from `provider` (its name in any case; of one GPU
    when `gpu` is given): `/gpu quote remove ...`. The shared market data and other owners'
    rows stay. Returns the rows deleted (provider, gpu, kind, price, currency, as_of)."""
    if not owner or not provider:
        return []
    where = f"owner = ? AND source = 'quote' AND lower(provider) = lower(?){' AND gpu = ?' if gpu else ''}"
    params = [owner, provider.strip(), *([gpu] if gpu else [])]
    with dbmod.writing(db):
        rows = [
            dict(r)
            for r in db.query(f"SELECT provider, gpu, kind, price, currency, as_of FROM {TABLE} WHERE {where}", params)
        ]
        if rows:
            db.execute(f"DELETE FROM {TABLE} WHERE {where}", params)
            _bump(db)
    return rows


def owned_quotes(db: sqlite_utils.Database, owner: str) -> list[dict]:
    """The quotes `owner` recorded (provider, gpu, kind, price, currency, as_of), newest first."""
    if not owner:
        return []
    return [
        dict(r)
        for r in db.query(
            f"SELECT provider, gpu, kind, price, currency, as_of FROM {TABLE} WHERE owner = ? AND source = 'quote'"
            " ORDER BY as_of DESC, provider",
            [owner],
        )
    ]
