"""Loading price files and feeds into the price store (`gpu-advisor prices import`).

Two layouts, told apart by the header row:

**SkyPilot catalog snapshots** (the layout of the SkyPilot price snapshots copied into tests/data/skypilot/, see SOURCE.md there)::

    date,cloud,region,instance_type,gpu,gpu_count,vcpus,memory_gib,price_per_hour_usd,spot_price_per_hour_usd

One row per (cloud, region, instance type) and date. Each row becomes two observations,
kind ``rent_hour`` (on demand) and ``spot_hour``, with source ``skypilot``, market
``global``, currency USD, provider = cloud, offer = instance type, as_of = the row's date.

* ``price`` is per GPU-hour (unit ``gpu-hour``), what the planner reads: the instance price
  divided by the real GPU count ``gpus``. The instance price exactly as published is kept in
  ``published_price`` (``published_unit`` ``instance-hour``), the GPU spelling and count as
  published in ``source_gpu`` / ``source_gpus``, and ``vcpus`` / ``memory_gib`` beside them.
* An empty price cell means "no price listed" and a 0 is SkyPilot's placeholder for an
  unknown price: both are stored as ``priced = 0`` with ``price = 0``, so that the offer is
  still recorded as listed on that date (the digest tells a price newly published for a
  listed offer from an offer that was not listed at all). ``published_price`` keeps 0 for a
  placeholder and NULL for an empty cell.
* Azure ``Standard_ND96is(r)_H100_v5`` list 12 GPUs, a catalog error: ``source_gpus`` keeps
  12, ``gpus`` is 8 and the per-GPU price divides by 8 (see ``GPU_COUNT_FIXES``).
* GCP ``gpu-only:V100xN`` rows exclude the host VM: stored with ``estimate = 1`` and a note,
  so the planner prefers a complete price.
* GPU names map to catalog names through ``SKYPILOT_GPUS`` (and ``_skypilot_h100`` for the
  ambiguous "H100"); an unknown spelling is an error.

**Vendor quotes** (the project's own layout; ``data/quotes-example.csv`` shows it)::

    date,vendor,market,region,gpu,gpus,kind,price,currency,unit,min_term_months,offer,estimate,cite,note

Required columns: ``date`` (YYYY-MM-DD; the column may be left out, or a cell left empty,
when ``as_of`` is given), ``vendor``, ``gpu`` (any spelling the request language knows:
H800, A100-80GB, 4090...), ``gpus`` (GPUs the price covers, >= 1), ``kind``, ``price``
(> 0), ``currency`` (CNY or USD). Optional: ``market`` (china|global; default china for
CNY, global for USD), ``region`` (city or cloud region), ``unit``, ``min_term_months``
(default 0), ``offer`` (the vendor's product name; default ``<gpus>x<catalog GPU name>``),
``estimate`` (yes/no; default no), ``cite`` (where the quote came from), ``note``.

=================  =======================================  ==========================
kind               unit (first = default)                   stored as
=================  =======================================  ==========================
rent_hour          gpu-hour, server-hour                    per GPU-hour
offpeak_hour       gpu-hour, server-hour                    per GPU-hour
spot_hour          gpu-hour, server-hour                    per GPU-hour
rent_month         gpu-month, server-month                  per GPU-month
buy_server         server (the whole server of ``gpus``)    per server, ``gpus`` kept
buy_card           card                                     per card
=================  =======================================  ==========================

A ``server-*`` price covers all ``gpus`` GPUs and is divided by ``gpus`` when stored; the
price as written stays in ``published_price`` / ``published_unit``. Quote rows go in with
source ``quote`` and the vendor as provider.

In both layouts a line whose first cell starts with ``#`` is a comment, and blank lines are
skipped.

**Rules.** A file is validated completely before anything is written, then written in one
transaction; any problem raises ``ImportProblem(path, line, message)`` and leaves the
database as it was. Importing the same file again writes nothing. A SkyPilot row for an
offer and date already stored replaces the stored one when any value differs (a corrected
snapshot); offers of that date that the new file does not list are kept.

**Feeds.** ``fetch_feed(url)`` reads CSV (either layout) or JSON (a list of objects with the
same column names, or ``{"rows": [...]}``) over HTTP(S) and validates it the same way;
failures raise ``FeedProblem`` with a plain message. ``import_feed`` also writes it.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import re
import socket
import time
import urllib.error
import urllib.request
from datetime import date as Date
from pathlib import Path
from typing import Iterable, Iterator

from pydantic import BaseModel

from advisor import catalog

SKYPILOT = "skypilot"
QUOTES = "quotes"
SKYPILOT_SOURCE = "skypilot"
QUOTE_SOURCE = "quote"
SKYPILOT_CITE = "SkyPilot catalog (skypilot-org/skypilot-catalog)"

SKYPILOT_COLUMNS = ("date", "cloud", "region", "instance_type", "gpu", "gpu_count", "vcpus",
                    "memory_gib", "price_per_hour_usd", "spot_price_per_hour_usd")
QUOTE_REQUIRED = ("date", "vendor", "gpu", "gpus", "kind", "price", "currency")
QUOTE_OPTIONAL = ("market", "region", "unit", "min_term_months", "offer", "estimate", "cite", "note")

# SkyPilot's accelerator spellings (the GPU filter of SOURCE.md) -> catalog names
# (data/gpus.toml). Mapped by hand, not through catalog.find_gpu: SkyPilot's bare "A100" and
# "V100" are the 40 GB and 16 GB parts, while the request language reads them as 80 GB / 32 GB.
SKYPILOT_GPUS: dict[str, str] = {
    # 40 GB A100: AWS p4d, GCP a2-highgpu/megagpu, Azure ND96asr_v4, OCI BM.GPU4.8, Lambda
    # gpu_*_a100. Lambda's gpu_1x_a100 is a PCIe card; the catalog has no A100 PCIe entry.
    "A100": "A100-SXM4-40GB",
    # 80 GB A100 in any form factor: SXM (p4de, a2-ultragpu, ND96amsr) and PCIe (Azure NC
    # A100 v4, RunPod "A100-80GB"); the catalog has only the SXM4 entry.
    "A100-80GB": "A100-SXM4-80GB",
    "A100-80GB-SXM": "A100-SXM4-80GB",
    # "H100" covers PCIe and SXM parts: decided per instance type in _skypilot_h100().
    "H100": "H100-SXM5-80GB",
    "H100-SXM": "H100-SXM5-80GB",
    # H100 NVL: 94 GB PCIe cards in NVLink pairs; the catalog has no NVL entry, nearest is PCIe.
    "H100-NVL": "H100-PCIe-80GB",
    # GCP a3-megagpu-8g: H100 SXM with more network cards.
    "H100-MEGA": "H100-SXM5-80GB",
    "H200": "H200-SXM-141GB",
    "H200-SXM": "H200-SXM-141GB",
    "H800": "H800-SXM-80GB",
    "L40S": "L40S-48GB",
    "L4": "L4-24GB",
    "RTX4090": "RTX4090-24GB",
    "A10G": "A10G-24GB",
    # 16 GB V100 (AWS p3, GCP, Azure NCv3, OCI GPU3, Lambda gpu_8x_v100, ...).
    "V100": "V100-SXM2-16GB",
    "V100-32GB": "V100-SXM2-32GB",
    "B200": "B200-SXM-180GB",
    "MI300X": "MI300X-192GB",
}

# Known catalog errors, kept as published in `source_gpus` but corrected in `gpus` (and so
# in the per-GPU price): (cloud, instance type) -> real GPU count.
GPU_COUNT_FIXES: dict[tuple[str, str], int] = {
    ("azure", "Standard_ND96is_H100_v5"): 8,   # catalog lists 12; ND H100 v5 has 8 GPUs
    ("azure", "Standard_ND96isr_H100_v5"): 8,  # same
}


def _skypilot_h100(cloud: str, instance_type: str) -> tuple[str, str]:
    """Catalog name and note for SkyPilot's plain "H100", by instance type.

    PCIe: Lambda ``*_h100_pcie``; RunPod "H100" (it lists "H100-SXM" apart); Scaleway
    ``H100-N-80G``; Azure ``NC*_H100_v5`` (H100 NVL cards). SXM: AWS p5, GCP a3, Lambda
    ``*_sxm5``, Azure ``ND*_H100_v5``. Anything else (FluidStack, Paperspace) does not say:
    it is read as SXM, as the catalog reads a bare "H100", and noted.
    """
    it = instance_type.lower()
    if "pcie" in it or cloud in ("runpod", "scaleway") or (cloud == "azure" and it.startswith("standard_nc")):
        note = "H100 NVL (94 GB PCIe); the catalog has no NVL entry" if cloud == "azure" else ""
        return "H100-PCIe-80GB", note
    if "sxm" in it or cloud in ("aws", "gcp") or (cloud == "azure" and it.startswith("standard_nd")):
        return "H100-SXM5-80GB", ""
    return "H100-SXM5-80GB", "form factor not stated by the catalog; read as SXM"


# kind -> allowed units (first = default); how a quote price is stored.
QUOTE_KINDS: dict[str, tuple[str, ...]] = {
    "rent_hour": ("gpu-hour", "server-hour"),
    "offpeak_hour": ("gpu-hour", "server-hour"),
    "spot_hour": ("gpu-hour", "server-hour"),
    "rent_month": ("gpu-month", "server-month"),
    "buy_server": ("server",),
    "buy_card": ("card",),
}
CURRENCIES = ("CNY", "USD")
MARKETS = ("china", "global")

# Every column written for an imported row.
COLUMNS = ("source", "kind", "gpu", "gpus", "market", "provider", "region", "offer", "price",
           "currency", "unit", "min_term_months", "as_of", "estimate", "cite", "note", "layout",
           "priced", "published_price", "published_unit", "source_gpu", "source_gpus", "vcpus",
           "memory_gib")
# What makes a stored SkyPilot row "the same" (the cite names the file it came from).
_SAME = tuple(c for c in COLUMNS if c != "cite")

FEED_MAX_BYTES = 64 * 1024 * 1024


class ImportProblem(ValueError):
    """A price file (or feed) that cannot be used; nothing of it was written."""

    def __init__(self, path: str, line: int | None, message: str):
        self.path, self.line, self.message = str(path), line, message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}, line {self.line}" if self.line else self.path
        return f"{where}: {self.message}"


class FeedProblem(Exception):
    """A price feed that could not be read or used; the message is plain language."""

    def __init__(self, url: str, message: str):
        self.url, self.message = url, message
        super().__init__(message)


class ImportResult(BaseModel):
    path: str
    kind_of_file: str      # "skypilot" | "quotes"
    rows_read: int         # data rows in the file
    rows_written: int      # observations inserted (or replaced)
    dates: list[str]       # the as-of dates the file holds, sorted
    source: str = ""


class ParsedFile(BaseModel):
    """A validated file: its layout and the observation rows to write."""

    path: str
    layout: str
    rows_read: int
    rows: list[dict]

    @property
    def dates(self) -> list[str]:
        return sorted({r["as_of"] for r in self.rows})


# ----------------------------------------------------------------------------------------
# Reading and validating

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _date(text: str, as_of: str | None, what: str = "date") -> str:
    text = text.strip() or (as_of or "")
    if not text:
        raise ValueError(f"no {what} (give a date column or --as-of)")
    if not _DATE.match(text):
        raise ValueError(f"{what} {text!r} is not a date like 2024-02-05")
    try:
        Date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{what} {text!r} is not a real date") from None
    return text


def _number(text: str, column: str, *, empty_ok: bool, positive: bool = False) -> float | None:
    text = text.strip()
    if not text:
        if empty_ok:
            return None
        raise ValueError(f"{column} is empty")
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{column} {text!r} is not a number") from None
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise ValueError(f"{column} {text!r} must be a {'positive' if positive else 'non-negative'} number")
    return value


def _count(text: str, column: str, minimum: int = 1) -> int:
    value = _number(text, column, empty_ok=False)
    if value != int(value) or value < minimum:
        raise ValueError(f"{column} {text.strip()!r} must be a whole number of at least {minimum}")
    return int(value)


def _flag(text: str, column: str) -> int:
    t = text.strip().lower()
    if t in ("", "0", "no", "false", "n"):
        return 0
    if t in ("1", "yes", "true", "y"):
        return 1
    raise ValueError(f"{column} {text.strip()!r} must be yes or no")


def detect_layout(header: list[str], path: str = "", as_of: str | None = None, line: int = 1) -> str:
    """'skypilot' or 'quotes' from the header row (on `line`); ImportProblem if neither fits."""
    cols = {h.strip() for h in header}
    sky = [c for c in SKYPILOT_COLUMNS if c not in cols]
    quote = [c for c in QUOTE_REQUIRED if c not in cols and not (c == "date" and as_of)]
    if not sky:
        return SKYPILOT
    if not quote:
        return QUOTES
    # Name the missing columns of the layout the header is closest to.
    sky_hits = len(SKYPILOT_COLUMNS) - len(sky)
    quote_hits = len(QUOTE_REQUIRED) - len(quote)
    if max(sky_hits, quote_hits) < 3:
        raise ImportProblem(path, line, "not a price file this tool knows: expected the SkyPilot columns ("
                            + ",".join(SKYPILOT_COLUMNS) + ") or the quote columns ("
                            + ",".join(QUOTE_REQUIRED) + ")")
    missing, layout = (sky, "SkyPilot") if sky_hits / len(SKYPILOT_COLUMNS) >= quote_hits / len(QUOTE_REQUIRED) \
        else (quote, "quote")
    raise ImportProblem(path, line, f"missing column{'s' if len(missing) > 1 else ''} "
                        f"{', '.join(missing)} ({layout} layout)")


def _skypilot_rows(rec: dict[str, str], origin: str, as_of: str | None) -> list[dict]:
    day = _date(rec["date"], as_of)
    cloud, region, itype = rec["cloud"].strip(), rec["region"].strip(), rec["instance_type"].strip()
    if not cloud:
        raise ValueError("cloud is empty")
    if not itype:
        raise ValueError("instance_type is empty")
    spelling = rec["gpu"].strip()
    if spelling not in SKYPILOT_GPUS:
        raise ValueError(f"unknown GPU name {spelling!r} (known: {', '.join(SKYPILOT_GPUS)})")
    gpu, note = SKYPILOT_GPUS[spelling], ""
    if spelling == "H100":
        gpu, note = _skypilot_h100(cloud, itype)
    listed_gpus = _count(rec["gpu_count"], "gpu_count")
    gpus = GPU_COUNT_FIXES.get((cloud, itype), listed_gpus)
    if gpus != listed_gpus:
        note = "; ".join(filter(None, [note, f"catalog lists {listed_gpus} GPUs, the machine has {gpus}"]))
    vcpus = _number(rec["vcpus"], "vcpus", empty_ok=True)
    memory = _number(rec["memory_gib"], "memory_gib", empty_ok=True)
    on_demand = _number(rec["price_per_hour_usd"], "price_per_hour_usd", empty_ok=True)
    spot = _number(rec["spot_price_per_hour_usd"], "spot_price_per_hour_usd", empty_ok=True)
    estimate = 0
    if itype.startswith("gpu-only:"):
        estimate = 1
        note = "; ".join(filter(None, [note, "GPU only: excludes the host VM"]))
    rows = []
    for kind, published in (("rent_hour", on_demand), ("spot_hour", spot)):
        priced = published is not None and published > 0
        rows.append({
            "source": SKYPILOT_SOURCE, "kind": kind, "gpu": gpu, "gpus": gpus, "market": "global",
            "provider": cloud, "region": region, "offer": itype,
            "price": published / gpus if priced else 0.0, "currency": "USD", "unit": "gpu-hour",
            "min_term_months": 0, "as_of": day, "estimate": estimate,
            "cite": f"{SKYPILOT_CITE}, {origin}", "note": note, "layout": SKYPILOT,
            "priced": int(priced), "published_price": published, "published_unit": "instance-hour",
            "source_gpu": spelling, "source_gpus": listed_gpus, "vcpus": vcpus, "memory_gib": memory,
        })
    return rows


def _quote_rows(rec: dict[str, str], origin: str, as_of: str | None) -> list[dict]:
    day = _date(rec.get("date", ""), as_of)
    vendor = rec["vendor"].strip()
    if not vendor:
        raise ValueError("vendor is empty")
    spelling = rec["gpu"].strip()
    found = catalog.find_gpu(spelling) if spelling else None
    if found is None:
        raise ValueError(f"unknown GPU name {spelling!r}")
    gpus = _count(rec["gpus"], "gpus")
    kind = rec["kind"].strip()
    if kind not in QUOTE_KINDS:
        raise ValueError(f"kind {kind!r} is not one of {', '.join(QUOTE_KINDS)}")
    unit = rec.get("unit", "").strip() or QUOTE_KINDS[kind][0]
    if unit not in QUOTE_KINDS[kind]:
        raise ValueError(f"unit {unit!r} does not fit kind {kind} (use {' or '.join(QUOTE_KINDS[kind])})")
    price = _number(rec["price"], "price", empty_ok=False, positive=True)
    currency = rec["currency"].strip().upper()
    if currency not in CURRENCIES:
        raise ValueError(f"currency {rec['currency'].strip()!r} must be CNY or USD")
    market = rec.get("market", "").strip().lower() or ("china" if currency == "CNY" else "global")
    if market not in MARKETS:
        raise ValueError(f"market {market!r} must be china or global")
    term = _count(rec.get("min_term_months", "").strip() or "0", "min_term_months", minimum=0)
    stored_unit, stored = unit, price
    if unit.startswith("server-"):
        stored_unit, stored = "gpu-" + unit.split("-", 1)[1], price / gpus
    return [{
        "source": QUOTE_SOURCE, "kind": kind, "gpu": found.name, "gpus": gpus, "market": market,
        "provider": vendor, "region": rec.get("region", "").strip(),
        "offer": rec.get("offer", "").strip() or f"{gpus}x{found.name}",  # as advisor/quotes.py records
        "price": stored, "currency": currency, "unit": stored_unit, "min_term_months": term,
        "as_of": day, "estimate": _flag(rec.get("estimate", ""), "estimate"),
        "cite": rec.get("cite", "").strip() or f"quote from {vendor} ({origin})",
        "note": rec.get("note", "").strip(), "layout": QUOTES, "priced": 1,
        "published_price": price, "published_unit": unit, "source_gpu": spelling,
        "source_gpus": gpus, "vcpus": None, "memory_gib": None,
    }]


def parse_records(records: Iterable[tuple[int, list[str]]], path: str, *, origin: str | None = None,
                  as_of: str | None = None) -> ParsedFile:
    """Validate a table: `records` yields (line number, cells), the header first.

    Raises ImportProblem on the first problem; returns every observation row otherwise."""
    if as_of is not None:
        try:
            as_of = _date(as_of, None, "--as-of date")
        except ValueError as err:
            raise ImportProblem(path, None, str(err)) from None
    origin = origin or Path(path).name
    it = iter(records)
    header = None
    for line, cells in it:
        if cells and any(c.strip() for c in cells) and not cells[0].lstrip().startswith("#"):
            header, header_line = [c.strip() for c in cells], line
            break
    if header is None:
        raise ImportProblem(path, 1, "empty file: no header row")
    header[0] = header[0].lstrip("\ufeff")
    dupes = sorted({h for h in header if h and header.count(h) > 1})
    if dupes:
        raise ImportProblem(path, header_line, f"column {dupes[0]!r} appears twice")
    layout = detect_layout(header, path, as_of, header_line)
    to_rows = _skypilot_rows if layout == SKYPILOT else _quote_rows
    rows: list[dict] = []
    seen: dict[tuple, int] = {}
    read = 0
    for line, cells in it:
        if not cells or not any(c.strip() for c in cells) or cells[0].lstrip().startswith("#"):
            continue
        read += 1
        if len(cells) > len(header):
            raise ImportProblem(path, line, f"{len(cells)} cells but the header has {len(header)} columns")
        rec = dict(zip(header, cells + [""] * (len(header) - len(cells))))
        try:
            new = to_rows(rec, origin, as_of)
        except ValueError as err:
            raise ImportProblem(path, line, str(err)) from None
        if layout == SKYPILOT:
            r = new[0]
            key = (r["as_of"], r["provider"], r["region"], r["offer"])
            if key in seen:
                raise ImportProblem(path, line, f"{r['provider']} {r['region']} {r['offer']} on {r['as_of']} "
                                                f"is listed twice (first on line {seen[key]})")
            seen[key] = line
        rows.extend(new)
    return ParsedFile(path=path, layout=layout, rows_read=read, rows=rows)


def _csv_records(text: str) -> Iterator[tuple[int, list[str]]]:
    reader = csv.reader(io.StringIO(text))
    for cells in reader:
        yield reader.line_num, cells


def read_file(path: str | Path, as_of: str | None = None) -> ParsedFile:
    """Read and validate a price file completely; nothing is written."""
    p = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as err:
        raise ImportProblem(p, None, f"cannot read the file ({err.strerror or err})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw[:err.start].count(b"\n") + 1
        raise ImportProblem(p, line, "not UTF-8 text") from None
    try:
        return parse_records(_csv_records(text), p, as_of=as_of)
    except csv.Error as err:
        raise ImportProblem(p, None, f"not a readable CSV file ({err})") from None


# ----------------------------------------------------------------------------------------
# Writing

@contextlib.contextmanager
def _transaction(db):
    """One transaction: sqlite-utils 4 runs in autocommit mode and offers atomic()."""
    atomic = getattr(db, "atomic", None)
    if atomic is not None:
        with atomic():
            yield
    else:  # sqlite-utils 3: the connection opens transactions itself
        with db.conn:
            yield


_INSERT = (f"INSERT OR IGNORE INTO observations ({', '.join(COLUMNS)}) "
           f"VALUES ({', '.join('?' for _ in COLUMNS)})")


def write_rows(db, rows: list[dict], source: str | None = None) -> int:
    """Write validated observation rows in one transaction; returns rows inserted or replaced.

    `source` overrides the rows' source. SkyPilot rows replace a stored row of the same
    (source, kind, provider, region, offer, as_of) only when a value differs; other rows are
    inserted unless the very same observation is already there."""
    if source:
        rows = [{**r, "source": source} for r in rows]
    snap = [r for r in rows if r["layout"] == SKYPILOT]
    other = [r for r in rows if r["layout"] != SKYPILOT]
    written = 0
    with _transaction(db):
        conn = db.conn
        if snap:
            existing: dict[tuple, list[tuple]] = {}
            cols = ", ".join(_SAME)
            for src, day in sorted({(r["source"], r["as_of"]) for r in snap}):
                for row in conn.execute(f"SELECT id, {cols} FROM observations "
                                        "WHERE layout = ? AND source = ? AND as_of = ?", [SKYPILOT, src, day]):
                    rec = dict(zip(_SAME, row[1:]))
                    key = (rec["source"], rec["kind"], rec["provider"], rec["region"], rec["offer"], rec["as_of"])
                    existing.setdefault(key, []).append((row[0], rec))
            delete, insert = [], []
            for r in snap:
                old = existing.get((r["source"], r["kind"], r["provider"], r["region"], r["offer"], r["as_of"]), [])
                if len(old) == 1 and all(old[0][1][c] == r[c] for c in _SAME):
                    continue
                delete.extend((i,) for i, _ in old)
                insert.append(r)
            if delete:
                conn.executemany("DELETE FROM observations WHERE id = ?", delete)
            before = conn.total_changes
            conn.executemany(_INSERT, [[r[c] for c in COLUMNS] for r in insert])
            written += conn.total_changes - before
        if other:
            before = conn.total_changes
            conn.executemany(_INSERT, [[r[c] for c in COLUMNS] for r in other])
            written += conn.total_changes - before
    return written


def import_file(db, path: str | Path, source: str | None = None, as_of: str | None = None) -> ImportResult:
    """Validate the whole file, then write it in one transaction.

    `source` overrides the layout's default source name ('skypilot', 'quote'); `as_of`
    (YYYY-MM-DD) dates rows the file leaves undated."""
    parsed = read_file(path, as_of=as_of)
    written = write_rows(db, parsed.rows, source=source)
    src = source or (SKYPILOT_SOURCE if parsed.layout == SKYPILOT else QUOTE_SOURCE)
    return ImportResult(path=str(path), kind_of_file=parsed.layout, rows_read=parsed.rows_read,
                        rows_written=written, dates=parsed.dates, source=src)


# ----------------------------------------------------------------------------------------
# Feeds

def _json_records(text: str, url: str) -> Iterator[tuple[int, list[str]]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise FeedProblem(url, f"price feed {url} sent JSON that does not parse "
                               f"({err.msg}, line {err.lineno})") from None
    if isinstance(data, dict):
        data = data.get("rows", data.get("prices"))
    if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
        raise FeedProblem(url, f"price feed {url} sent JSON that is not a list of price rows")
    header: list[str] = []
    for item in data:
        header.extend(k for k in item if k not in header)

    def cell(v) -> str:
        if v is None:
            return ""
        if isinstance(v, bool):
            return "yes" if v else "no"
        return repr(v) if isinstance(v, float) else str(v)

    yield 0, header
    for n, item in enumerate(data, start=1):
        yield n, [cell(item.get(k)) for k in header]


def fetch_feed(url: str, timeout: float = 10, source: str | None = None, as_of: str | None = None) -> list[dict]:
    """Fetch a price feed (CSV in either layout, or JSON rows with the same columns) and
    validate it; returns the observation rows, ready for `write_rows`. Any failure (network,
    HTTP status, timeout, malformed content) raises FeedProblem with a plain message.
    `timeout` bounds the whole download, not only each socket wait."""
    if not url.lower().startswith(("http://", "https://")):
        raise FeedProblem(url, f"price feed address {url!r} must start with http:// or https://")
    deadline = time.monotonic() + timeout
    request = urllib.request.Request(url, headers={"User-Agent": "gpu-advisor price feed",
                                                   "Accept": "text/csv, application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            content_type = resp.headers.get("Content-Type", "")
            chunks, size = [], 0
            while True:
                if time.monotonic() > deadline:
                    raise TimeoutError
                chunk = resp.read1(65536)  # what has arrived, so the deadline is checked often
                if not chunk:
                    break
                size += len(chunk)
                if size > FEED_MAX_BYTES:
                    raise FeedProblem(url, f"price feed {url} sent more than {FEED_MAX_BYTES // 2**20} MB")
                chunks.append(chunk)
    except urllib.error.HTTPError as err:
        raise FeedProblem(url, f"price feed {url} answered HTTP {err.code} {err.reason}") from None
    except urllib.error.URLError as err:
        if isinstance(err.reason, (TimeoutError, socket.timeout)):
            raise FeedProblem(url, f"price feed {url} did not answer within {timeout:g} s") from None
        raise FeedProblem(url, f"price feed {url} could not be reached ({err.reason})") from None
    except (TimeoutError, socket.timeout):
        raise FeedProblem(url, f"price feed {url} did not answer within {timeout:g} s") from None
    except (OSError, ValueError) as err:  # connection reset, bad status line, ...
        raise FeedProblem(url, f"price feed {url} could not be read ({err})") from None
    body = b"".join(chunks)
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise FeedProblem(url, f"price feed {url} did not send UTF-8 text") from None
    if not text.strip():
        raise FeedProblem(url, f"price feed {url} sent nothing")
    is_json = "json" in content_type.lower() or text.lstrip()[:1] in ("[", "{")
    if not is_json and text.lstrip()[:1] == "<":
        raise FeedProblem(url, f"price feed {url} sent a web page, not CSV or JSON")
    try:
        records = _json_records(text, url) if is_json else _csv_records(text)
        parsed = parse_records(records, url, origin=url, as_of=as_of)
    except ImportProblem as err:
        where = f"{'record' if is_json else 'line'} {err.line}: " if err.line else ""
        raise FeedProblem(url, f"price feed {url} is not usable: {where}{err.message}") from None
    except csv.Error as err:
        raise FeedProblem(url, f"price feed {url} is not readable CSV ({err})") from None
    rows = parsed.rows
    if source:
        rows = [{**r, "source": source} for r in rows]
    return rows


def import_feed(db, url: str, source: str | None = None, as_of: str | None = None,
                timeout: float = 10) -> ImportResult:
    """fetch_feed, then write it in one transaction (nothing is written if the fetch fails)."""
    rows = fetch_feed(url, timeout=timeout, source=source, as_of=as_of)
    layout = rows[0]["layout"] if rows else SKYPILOT
    written = write_rows(db, rows)
    per_offer = 2 if layout == SKYPILOT else 1
    return ImportResult(path=url, kind_of_file=layout, rows_read=len(rows) // per_offer, rows_written=written,
                        dates=sorted({r["as_of"] for r in rows}),
                        source=source or (SKYPILOT_SOURCE if layout == SKYPILOT else QUOTE_SOURCE))
