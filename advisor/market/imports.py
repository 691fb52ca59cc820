"""Loading price files and feeds into the price store (`gpu-advisor prices import`).

The layouts, told apart by the header row:

The layouts are readers registered in advisor/market/layouts.py (``LAYOUTS``).

**SkyPilot catalog snapshots** (the layout of the SkyPilot price snapshots copied into
tests/data/skypilot/, see SOURCE.md there)::

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
* GPU names map to catalog names through ``layouts.SKYPILOT_GPUS`` (and ``_skypilot_h100`` for
  the ambiguous "H100"); an unknown spelling is an error.

**Vendor quotes** (the project's own layout; ``data/quotes-example.csv`` shows it)::

    date,vendor,market,region,gpu,gpus,kind,price,currency,unit,min_term_months,offer,estimate,cite,note

Required columns: ``date`` (YYYY-MM-DD; the column may be left out, or a cell left empty,
when ``as_of`` is given), ``vendor``, ``gpu`` (any spelling the request language knows:
H800, A100-80GB, 4090...), ``gpus`` (GPUs the price covers, >= 1), ``kind``, ``price``
(> 0), ``currency`` (CNY or USD). Optional: ``market`` (china|global; default china for
CNY, global for USD), ``region`` (city or cloud region), ``unit``, ``min_term_months``
(default 0), ``offer`` (the vendor's product name; default ``<gpus>x<catalog GPU name>``),
``estimate`` (yes/no; default no), ``cite`` (where the quote came from), ``note``; and what
the price is an offer of (issue 15): ``offer_kind`` (instance|server|cluster; default server
for 8 or more GPUs, else instance), ``max_gpus`` (the most GPUs one order gets, >= ``gpus``;
default ``gpus``), ``interconnect`` (none|pcie|nvlink|roce|ib|efa|tcpx; default not stated),
``interconnect_gbps`` (per GPU), ``billing`` (second|minute|hour|day|week|month; default hour,
month for rent_month) and ``indicative`` (yes for an index or average nobody sells; default
no). A value outside these lists refuses the file with its line, and nothing is written.

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

**Rules.** A file is read line by line (memory stays bounded whatever its size: lines of at
most ``MAX_LINE_BYTES``, files of at most ``IMPORT_MAX_BYTES``), validated and written in
batches inside one transaction; any problem raises ``ImportProblem(path, line, message)``,
rolls back and leaves the database as it was. Only a regular file is read (a FIFO, a device
such as /dev/zero or a directory is refused before reading), a NUL byte is refused, and so
is a row whose price or date cannot be real (``store.check_row``: a price outside a wide
plausible band for its unit, a date before 2015 or more than a week ahead). Every cell is
cleaned (advisor/text/safe.py: no control, bidi-override or backtick characters). Importing the
same file again writes nothing. A SkyPilot row for an
offer and date already stored replaces the stored one when any value differs (a corrected
snapshot); offers of that date that the new file does not list are kept.

**SkyPilot's own catalog files** (``catalogs/v<N>/<cloud>/vms.csv``, read as published): see
advisor/market/skypilot_catalog.py. Their rows go in with source ``skypilot-<cloud>``, one
snapshot source per cloud.

**Feeds.** ``fetch_feed(url)`` reads CSV (any registered layout) or JSON (a list of objects with the
same column names, or ``{"rows": [...]}``) over HTTP(S) and validates it the same way;
failures raise ``FeedProblem`` with a plain message (the URL without credentials or query,
``redact``). ``import_feed`` also writes it. ``fetch_feeds`` (``gpu-advisor prices fetch`` and
the scheduler) fetches the configured feeds conditionally (ETag / If-Modified-Since and a body
hash kept per URL in the store's ``feed_state``), writes only what changed, and reports each
feed; ``feed_urls`` expands the word ``skypilot`` to the published catalog of every GPU cloud.
"""

from __future__ import annotations

import base64
import csv
import datetime as dt
import hashlib
import http.client
import io
import json
import os
import socket
import stat
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

import sqlite_utils
from pydantic import BaseModel

from advisor import db as dbmod
from advisor.market import store
from advisor.market.layouts import LAYOUTS, PriceFileFormat, read_date
from advisor.text.safe import clean, redact_url, redact_urls_in

FEED_MAX_BYTES = 64 * 1024 * 1024
FEED_MAX_COLUMNS = 200
# A price file: the same bound as a feed (a full SkyPilot snapshot is well under 1 MB), and
# one line at most 1 MB. Rows are written in batches of WRITE_BATCH inside one transaction.
IMPORT_MAX_BYTES = FEED_MAX_BYTES
MAX_LINE_BYTES = 1024 * 1024
WRITE_BATCH = 5000


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
        # Shown in the digest and the log: the address without user:password@ or ?token=.
        self.url = redact_url(url)
        self.message = redact_urls_in(message.replace(url, self.url))
        super().__init__(self.message)


class ImportResult(BaseModel):
    path: str
    kind_of_file: str  # the layout's name: "skypilot" | "quotes"
    rows_read: int  # data rows in the file
    rows_written: int  # observations inserted (or replaced)
    dates: list[str]  # the as-of dates the file holds, sorted
    source: str = ""
    notes: list[str] = []  # what the reader could not do as asked (unknown GPUs, GCP hosts missing)


class ParsedFile(BaseModel):
    """A validated file: its layout and the observation rows to write."""

    path: str
    layout: str
    rows_read: int
    rows: list[dict]
    notes: list[str] = []

    @property
    def dates(self) -> list[str]:
        return sorted({r["as_of"] for r in self.rows})


# ----------------------------------------------------------------------------------------
# Reading and validating


def detect_layout(header: list[str], path: str = "", as_of: str | None = None, line: int = 1) -> PriceFileFormat:
    """The registered layout whose columns the header row (on `line`) has; ImportProblem if none."""
    cols = {h.strip() for h in header}
    missing = {layout.name: layout.missing(cols, as_of) for layout in LAYOUTS.values()}
    for layout in LAYOUTS.values():
        if not missing[layout.name]:
            return layout
    # Name the missing columns of the layout the header is closest to.
    hits = {name: len(LAYOUTS[name].columns) - len(m) for name, m in missing.items()}
    if max(hits.values()) < 3:
        raise ImportProblem(
            path,
            line,
            "not a price file this tool knows: expected "
            + " or ".join(f"the {layout.title} columns ({','.join(layout.columns)})" for layout in LAYOUTS.values()),
        )
    closest = max(LAYOUTS.values(), key=lambda layout: hits[layout.name] / len(layout.columns))
    gone = missing[closest.name]
    raise ImportProblem(
        path, line, f"missing column{'s' if len(gone) > 1 else ''} {', '.join(gone)} ({closest.title} layout)"
    )


def parse_records(
    records: Iterable[tuple[int, list[str]]],
    path: str,
    *,
    origin: str | None = None,
    as_of: str | None = None,
    cloud: str | None = None,
) -> ParsedFile:
    """Validate a table: `records` yields (line number, cells), the header first.

    Raises ImportProblem on the first problem; returns every observation row otherwise."""
    stream = RowStream(records, path, origin=origin, as_of=as_of)
    rows, notes = stream.finished([r for batch in stream.batches(WRITE_BATCH) for r in batch], cloud)
    return ParsedFile(path=path, layout=stream.layout.name, rows_read=stream.read, rows=rows, notes=notes)


class RowStream:
    """A table read record by record: the header is read and its layout found at once, the
    observation rows come out in batches, each row validated (layout reader, `store.check_row`)
    with its line named on the first problem (ImportProblem)."""

    def __init__(
        self,
        records: Iterable[tuple[int, list[str]]],
        path: str,
        *,
        origin: str | None = None,
        as_of: str | None = None,
    ):
        if as_of is not None:
            try:
                as_of = read_date(as_of, None, "--as-of date")
            except ValueError as err:
                raise ImportProblem(path, None, str(err)) from None
        self.path, self.as_of = path, as_of
        self.origin = redact_url(origin) if origin and "://" in origin else (origin or Path(path).name)
        self._it = iter(records)
        header = None
        for line, cells in self._it:
            if cells and any(c.strip() for c in cells) and not cells[0].lstrip().startswith("#"):
                header, header_line = [clean(c).strip() for c in cells], line
                break
        if header is None:
            raise ImportProblem(path, 1, "empty file: no header row")
        header[0] = header[0].lstrip("\ufeff")
        dupes = sorted({h for h in header if h and header.count(h) > 1})
        if dupes:
            raise ImportProblem(path, header_line, f"column {dupes[0]!r} appears twice")
        self.header = header
        self.layout = detect_layout(header, path, as_of, header_line)
        self.read = 0
        self.dates: set[str] = set()

    def batches(self, size: int) -> Iterator[list[dict]]:
        layout, header, path = self.layout, self.header, self.path
        seen: dict[int, int] = {}  # hash of a once-only key -> its first line (bounded memory)
        keys: dict[int, list[tuple]] = {}
        batch: list[dict] = []
        for line, cells in self._it:
            if not cells or not any(c.strip() for c in cells) or cells[0].lstrip().startswith("#"):
                continue
            self.read += 1
            if len(cells) != len(header):  # a cell lost or added: the cells would sit under the wrong columns
                raise ImportProblem(path, line, f"{len(cells)} cells but the header has {len(header)} columns")
            rec = dict(zip(header, [clean(c) for c in cells]))
            try:
                new = layout.rows(rec, self.origin, self.as_of)
                # Offers that span records are checked once whole (finished()).
                for row in new if not layout.finish else ():
                    store.check_row(row)
            except ValueError as err:
                raise ImportProblem(path, line, str(err)) from None
            if layout.once_key:
                key = layout.once_key(new)
                h = hash(key)
                if h in seen and key in keys.get(h, ()):
                    raise ImportProblem(path, line, f"{layout.twice(key)} (first on line {seen[h]})")
                if h not in seen:
                    seen[h] = line
                    keys[h] = [key]
                else:  # a hash collision: keep both keys
                    keys[h].append(key)
            self.dates.update(r["as_of"] for r in new if "as_of" in r)  # catalog rows: finished()
            batch.extend(new)
            if len(batch) >= size:
                yield batch
                batch = []
        if batch:
            yield batch

    def finished(self, rows: list[dict], cloud: str | None) -> tuple[list[dict], list[str]]:
        """The rows of a layout whose offers span records (advisor/market/skypilot_catalog.py:
        zones of one region, GCP's accelerators and their host VMs) put together and checked,
        with the reader's notes; other layouts' rows as they are."""
        if not self.layout.finish:
            return rows, []
        try:
            rows, notes = self.layout.finish(
                rows, {"path": self.path, "origin": self.origin, "as_of": self.as_of, "cloud": cloud}
            )
            for row in rows:
                store.check_row(row)
        except ValueError as err:
            raise ImportProblem(self.path, None, str(err)) from None
        self.dates.update(r["as_of"] for r in rows)
        return rows, notes


# strict: a quote left open at the end of the file is refused ("unexpected end of data"), where
# the default reader returned the open cell as if closed (operator probe: a last line
# `...,"unterminated` was imported), and so is text after a closing quote (`"ab"c`)
def _csv_records(text: str, path: str = "") -> Iterator[tuple[int, list[str]]]:
    return _records(csv.reader(io.StringIO(text), strict=True), path)


def _records(reader, path: str) -> Iterator[tuple[int, list[str]]]:
    """(the line a record starts on, its cells). A record must stay on its line: a quoted cell
    that runs across lines is refused with the line it starts on, whether a quote was left
    open (it would swallow the rows after it) or a cell holds a line break (no price file
    needs one)."""
    end = 0
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as err:  # the strict reader: a quote open at the end of the file, or text after one
            closed = "end of data" not in str(err)
            raise ImportProblem(
                path,
                end + 1,
                f"a quoted cell is not followed by a comma ({err})"
                if closed
                else f'a quoted cell runs from line {end + 1} to the end of the file: a quote (") is not closed',
            ) from None
        start, end = end + 1, reader.line_num
        if end > start:
            raise ImportProblem(
                path,
                start,
                f'a quoted cell runs from line {start} to line {end}: a quote (") is not closed,'
                " or a cell holds a line break",
            )
        yield start, cells


def _open_regular(path: str):
    """The file opened for reading in binary, if it is a regular file of a sane size. Opened
    without blocking (a FIFO would wait for a writer) and checked on the open descriptor."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as err:
        raise ImportProblem(path, None, f"cannot read the file ({err.strerror or err})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            what = (
                "a directory"
                if stat.S_ISDIR(info.st_mode)
                else "a pipe"
                if stat.S_ISFIFO(info.st_mode)
                else "a device"
                if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
                else "a special file"
            )
            raise ImportProblem(path, None, f"not a regular file ({what})")
        if info.st_size > IMPORT_MAX_BYTES:
            raise ImportProblem(path, None, f"larger than {IMPORT_MAX_BYTES // 2**20} MB: split it into smaller files")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _file_lines(f, path: str) -> Iterator[str]:
    """The file's lines as text, one at a time: refuses a NUL byte, text that is not UTF-8, a
    line over MAX_LINE_BYTES and a file that grows past IMPORT_MAX_BYTES while read."""
    total = 0
    for number in range(1, 2**62):
        raw = f.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        total += len(raw)
        if len(raw) > MAX_LINE_BYTES:
            raise ImportProblem(path, number, f"line longer than {MAX_LINE_BYTES // 2**20} MB")
        if total > IMPORT_MAX_BYTES:
            raise ImportProblem(path, number, f"larger than {IMPORT_MAX_BYTES // 2**20} MB: split it")
        if b"\0" in raw:
            raise ImportProblem(path, number, "NUL byte: not a text file")
        try:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError:
            raise ImportProblem(path, number, "not UTF-8 text") from None
        yield text


def _stream_records(lines: Iterable[str], path: str = "") -> Iterator[tuple[int, list[str]]]:
    return _records(csv.reader(lines, strict=True), path)


def read_file(path: str | Path, as_of: str | None = None, cloud: str | None = None) -> ParsedFile:
    """Read and validate a price file completely; nothing is written."""
    p = str(path)
    with _open_regular(p) as f:
        try:
            return parse_records(_stream_records(_file_lines(f, p), p), p, as_of=as_of, cloud=cloud)
        except csv.Error as err:
            raise ImportProblem(p, None, f"not a readable CSV file ({err})") from None


# ----------------------------------------------------------------------------------------
# Writing


def import_file(
    db: sqlite_utils.Database,
    path: str | Path,
    source: str | None = None,
    as_of: str | None = None,
    cloud: str | None = None,
) -> ImportResult:
    """Read the file line by line and write it in batches inside one transaction: a problem on
    any line rolls everything back (ImportProblem), so a file is written whole or not at all. A
    layout whose offers span records (a SkyPilot catalog) is read whole first, within the
    file-size bound, and written at once.

    `source` overrides the layout's default source name ('skypilot', 'quote'); `as_of`
    (YYYY-MM-DD) dates rows the file leaves undated; `cloud` names a catalog file's cloud when
    its path does not."""
    p = str(path)
    written, notes, sources = 0, [], set()
    with _open_regular(p) as f:
        try:
            stream = RowStream(_stream_records(_file_lines(f, p), p), p, as_of=as_of)
            stored: dict = {}
            if store.bounded_writes(db):
                # SQLite: the file is read and checked whole first, then written in commits of
                # store.WRITE_CHUNK rows, so that no other process waits long for the write lock;
                # a problem on any line still writes nothing.
                return _import_in_chunks(db, stream, p, source, as_of, cloud)
            with dbmod.writing(db):
                if stream.layout.finish:
                    rows, notes = stream.finished([r for b in stream.batches(WRITE_BATCH) for r in b], cloud)
                    written = store.write_rows(db, rows, source=source)
                    sources = {r["source"] for r in rows}
                else:
                    for batch in stream.batches(WRITE_BATCH):
                        written += store.write_rows(db, batch, source=source, stored=stored)
                        sources.update(r["source"] for r in batch)
        except csv.Error as err:
            raise ImportProblem(p, None, f"not a readable CSV file ({err})") from None
    return _result(p, stream, written, notes, sources, source)


def _import_in_chunks(db, stream, p: str, source, as_of, cloud) -> ImportResult:
    """import_file on SQLite: every row read and checked (store.prepare_rows) before the first is
    written; then written in bounded commits (store.write_rows outside a transaction)."""
    written, notes, sources = 0, [], set()
    if stream.layout.finish:
        rows, notes = stream.finished([r for b in stream.batches(WRITE_BATCH) for r in b], cloud)
        _checked(rows, source, p)
        written = store.write_rows(db, rows, source=source)
        sources = {r["source"] for r in rows}
        return _result(p, stream, written, notes, sources, source)
    for batch in stream.batches(WRITE_BATCH):  # the first pass: nothing is written
        _checked(batch, source, p)
    with _open_regular(p) as f:
        again = RowStream(_stream_records(_file_lines(f, p)), p, as_of=as_of)
        stored: dict = {}
        for batch in again.batches(WRITE_BATCH):
            written += store.write_rows(db, batch, source=source, stored=stored)
            sources.update(r["source"] for r in batch)
    return _result(p, stream, written, notes, sources, source)


def _checked(rows: list[dict], source, p: str) -> None:
    try:
        store.prepare_rows(rows, source)
    except ValueError as err:
        raise ImportProblem(p, None, str(err)) from None


def _result(p: str, stream, written: int, notes, sources, source) -> ImportResult:
    src = source or _source_of(sources, stream.layout.name)
    return ImportResult(
        path=p,
        kind_of_file=stream.layout.name,
        rows_read=stream.read,
        rows_written=written,
        dates=sorted(stream.dates),
        source=src,
        notes=notes,
    )


def _source_of(sources: set[str], layout: str) -> str:
    """The source the rows were written under (a catalog file's is per cloud: skypilot-aws)."""
    return ", ".join(sorted(sources)) if sources else LAYOUTS[layout].source


# ----------------------------------------------------------------------------------------
# Feeds


def _json_records(text: str, url: str) -> Iterator[tuple[int, list[str]]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise FeedProblem(
            url, f"price feed {url} sent JSON that does not parse ({err.msg}, line {err.lineno})"
        ) from None
    if isinstance(data, dict):
        data = data.get("rows", data.get("prices"))
    if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
        raise FeedProblem(url, f"price feed {url} sent JSON that is not a list of price rows")
    header: list[str] = []
    seen: set[str] = set()
    for item in data:
        for k in item:
            if k not in seen:
                seen.add(k)
                header.append(k)
        if len(header) > FEED_MAX_COLUMNS:  # bounded: a row of a price list has a few dozen
            raise FeedProblem(url, f"price feed {url} sent JSON rows with more than {FEED_MAX_COLUMNS} different keys")

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
    """Fetch a price feed (CSV in any registered layout, or JSON rows with the same columns)
    and validate it; returns the observation rows, ready for `store.write_rows`. Any failure
    (network, HTTP status, timeout, malformed content) raises FeedProblem with a plain message.
    `timeout` bounds the whole download, not only each socket wait."""
    rows = _fetch(url, timeout, as_of).rows
    return [{**r, "source": source} for r in rows] if source else rows


def redact(url: str) -> str:
    """A feed URL as it may be shown: no user:password@, no query (tokens), no fragment."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
    except ValueError:
        return "(an unreadable feed address)"
    if not parts.scheme:
        return url.split("?", 1)[0].split("#", 1)[0].rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


class Download(BaseModel):
    status: int  # 200, or 304 (unchanged since the ETag / date we sent)
    body: bytes = b""
    content_type: str = ""
    etag: str | None = None
    last_modified: str | None = None


class _Deadline:
    """One wall-clock bound on a whole HTTP exchange: the connect, the TLS handshake, the status
    line, the headers and the body. urllib's `timeout` bounds each socket wait only, so a server
    that trickles its headers a byte at a time would hold a fetch for ever; here a timer shuts
    the exchange's sockets down when the time is up, and the blocked read returns at once."""

    def __init__(self, seconds: float):
        self.at = time.monotonic() + seconds
        self.expired = False
        self._socks: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()

    def left(self) -> float:
        return max(0.001, self.at - time.monotonic())

    def watch(self, sock: socket.socket) -> socket.socket:
        with self._lock:
            self._socks.append(sock)
            if self.expired:
                self._shut(sock)
        return sock

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._socks:
                self._shut(sock)

    @staticmethod
    def _shut(sock: socket.socket) -> None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def opener(self) -> urllib.request.OpenerDirector:
        """An opener whose connections are watched, and that follows redirects to http(s) only."""
        deadline = self

        def watched(base):
            class Watched(base):
                def connect(self):
                    self.timeout = min(self.timeout, deadline.left()) if self.timeout else deadline.left()
                    create = self._create_connection
                    self._create_connection = lambda *a, **k: deadline.watch(create(*a, **k))
                    super().connect()

            return Watched

        http_conn, https_conn = watched(http.client.HTTPConnection), watched(http.client.HTTPSConnection)

        class HTTP(urllib.request.HTTPHandler):
            def http_open(self, req):
                return self.do_open(http_conn, req)

        class HTTPS(urllib.request.HTTPSHandler):
            def https_open(self, req):
                return self.do_open(https_conn, req, context=self._context)

        return urllib.request.build_opener(HTTP, HTTPS, _HTTPRedirectsOnly)


class _HTTPRedirectsOnly(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to another http:// or https:// address (urllib would follow
    ftp://; file:// it refuses itself)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        scheme = urlsplit(newurl).scheme.lower()
        if scheme not in ("http", "https"):
            shown = redact(req.full_url)
            raise FeedProblem(
                shown, f"price feed {shown} redirected to a {scheme or 'relative'}:// address: only http(s) is followed"
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _download(url: str, timeout: float, etag: str | None = None, last_modified: str | None = None) -> Download:
    """GET `url` within `timeout` seconds in all and FEED_MAX_BYTES, conditionally when `etag` /
    `last_modified` are given. Any failure raises FeedProblem (the URL in it redacted)."""
    shown = redact(url)
    if not url.lower().startswith(("http://", "https://")):
        raise FeedProblem(shown, f"price feed address {shown!r} must start with http:// or https://")
    deadline = time.monotonic() + timeout
    headers = {"User-Agent": "gpu-advisor price feed", "Accept": "text/csv, application/json"}
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    parts = urlsplit(url)
    if parts.username is not None:  # user:password@ becomes HTTP basic auth, as browsers do
        login = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(login).decode()
        netloc = parts.netloc.rsplit("@", 1)[1]
        url = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    request = urllib.request.Request(url, headers=headers)
    try:
        with _Deadline(timeout) as bound, bound.opener().open(request, timeout=timeout) as resp:
            content_type = resp.headers.get("Content-Type", "")
            new_etag, new_modified = resp.headers.get("ETag"), resp.headers.get("Last-Modified")
            chunks, size = [], 0
            while True:
                if time.monotonic() > deadline:
                    raise TimeoutError
                chunk = resp.read1(65536)  # what has arrived, so the deadline is checked often
                if not chunk:
                    if bound.expired:  # cut short by the deadline, not the end of the body
                        raise TimeoutError
                    break
                size += len(chunk)
                if size > FEED_MAX_BYTES:
                    raise FeedProblem(shown, f"price feed {shown} sent more than {FEED_MAX_BYTES // 2**20} MB")
                chunks.append(chunk)
    except FeedProblem:
        raise
    except urllib.error.HTTPError as err:
        if err.code == 304:
            return Download(status=304, etag=etag, last_modified=last_modified)
        raise FeedProblem(shown, f"price feed {shown} answered HTTP {err.code} {err.reason}") from None
    except urllib.error.URLError as err:
        if isinstance(err.reason, (TimeoutError, socket.timeout)) or time.monotonic() >= deadline:
            raise FeedProblem(shown, f"price feed {shown} did not answer within {timeout:g} s") from None
        raise FeedProblem(shown, f"price feed {shown} could not be reached ({err.reason})") from None
    except TimeoutError:
        raise FeedProblem(shown, f"price feed {shown} did not answer within {timeout:g} s") from None
    except (OSError, ValueError, http.client.HTTPException) as err:  # connection reset, bad status line, ...
        if time.monotonic() >= deadline:  # the exchange was cut at its deadline
            raise FeedProblem(shown, f"price feed {shown} did not answer within {timeout:g} s") from None
        raise FeedProblem(shown, f"price feed {shown} could not be read ({err.__class__.__name__})") from None
    return Download(
        status=200, body=b"".join(chunks), content_type=content_type, etag=new_etag, last_modified=new_modified
    )


def _parse_feed(url: str, body: bytes, content_type: str, as_of: str | None) -> ParsedFile:
    shown = redact(url)
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise FeedProblem(shown, f"price feed {shown} did not send UTF-8 text") from None
    if not text.strip():
        raise FeedProblem(shown, f"price feed {shown} sent nothing")
    is_json = "json" in content_type.lower() or text.lstrip()[:1] in ("[", "{")
    if not is_json and text.lstrip()[:1] == "<":
        raise FeedProblem(shown, f"price feed {shown} sent a web page, not CSV or JSON")
    try:
        records = _json_records(text, shown) if is_json else _csv_records(text, urlsplit(url).path or shown)
        # The cloud of a catalog file comes from the URL's path (.../<cloud>/vms.csv).
        parsed = parse_records(records, urlsplit(url).path or shown, origin=shown, as_of=as_of)
    except ImportProblem as err:
        where = f"{'record' if is_json else 'line'} {err.line}: " if err.line else ""
        raise FeedProblem(shown, f"price feed {shown} is not usable: {where}{err.message}") from None
    except csv.Error as err:
        raise FeedProblem(shown, f"price feed {shown} is not readable CSV ({err})") from None
    except RecursionError:
        raise FeedProblem(shown, f"price feed {shown} sent JSON nested too deeply") from None
    return parsed


def _fetch(url: str, timeout: float, as_of: str | None) -> ParsedFile:
    got = _download(url, timeout)
    return _parse_feed(url, got.body, got.content_type, as_of)


def import_feed(
    db: sqlite_utils.Database, url: str, source: str | None = None, as_of: str | None = None, timeout: float = 10
) -> ImportResult:
    """fetch_feed, then write it in one transaction (nothing is written if the fetch fails)."""
    parsed = _fetch(url, timeout, as_of)
    written = store.write_rows(db, parsed.rows, source=source)
    return ImportResult(
        path=redact(url),
        kind_of_file=parsed.layout,
        rows_read=parsed.rows_read,
        rows_written=written,
        dates=parsed.dates,
        source=source or _source_of({r["source"] for r in parsed.rows}, parsed.layout),
        notes=parsed.notes,
    )


# ----------------------------------------------------------------------------------------
# `gpu-advisor prices fetch` and the clock: the configured feeds, conditionally

FEED_WORD = "skypilot"
# SkyPilot's published catalog (skypilot-org/skypilot-catalog): the newest schema folder
# (CATALOG_SCHEMA_VERSION "v8" in skypilot 0.14) and the clouds with a vms.csv in it, as SkyPilot
# itself downloads them (sky/skylet/constants.py: HOSTED_CATALOG_DIR_URL). GPU_ADVISOR_SKYPILOT_CATALOG
# (a pattern with {cloud}) and GPU_ADVISOR_SKYPILOT_CLOUDS (words) override them, e.g. for a mirror
# (SkyPilot's own: https://skypilot-catalog.s3.us-east-1.amazonaws.com/catalogs/v8/{cloud}/vms.csv).
SKYPILOT_CATALOG_URL = (
    "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8/{cloud}/vms.csv"
)
SKYPILOT_GPU_CLOUDS = (
    "aws",
    "azure",
    "cudo",
    "daytona",
    "gcp",
    "hyperbolic",
    "hyperstack",
    "jarvislabs",
    "lambda",
    "lium",
    "mithril",
    "nebius",
    "oci",
    "primeintellect",
    "runpod",
    "seeweb",
    "shadeform",
    "spheron",
    "vast",
    "verda",
    "yotta",
)


def feed_urls(words: Iterable[str]) -> list[str]:
    """The feed URLs of GPU_ADVISOR_PRICE_FEEDS' words: URLs as they are, `skypilot` for the
    published catalog of every cloud that lists GPUs."""
    urls: list[str] = []
    for word in words:
        if word.lower() == FEED_WORD:
            pattern = os.environ.get("GPU_ADVISOR_SKYPILOT_CATALOG") or SKYPILOT_CATALOG_URL
            clouds = os.environ.get("GPU_ADVISOR_SKYPILOT_CLOUDS", "").split() or SKYPILOT_GPU_CLOUDS
            urls.extend(pattern.replace("{cloud}", c) for c in clouds)
        elif word:
            urls.append(word)
    return list(dict.fromkeys(urls))


def configured_feeds() -> list[str]:
    return feed_urls(os.environ.get("GPU_ADVISOR_PRICE_FEEDS", "").split())


class FeedOutcome(BaseModel):
    url: str  # redacted: no credentials, no query
    status: str  # "changed" | "unchanged" | "failed"
    rows_written: int = 0
    dates: list[str] = []
    source: str = ""
    message: str = ""  # why it failed, or the reader's notes
    notes: list[str] = []


class FetchReport(BaseModel):
    feeds: list[FeedOutcome]

    @property
    def problems(self) -> list[str]:
        """One line per failed feed, for the digest: the message names the URL (redacted)."""
        return [f.message for f in self.feeds if f.status == "failed"]

    @property
    def rows_written(self) -> int:
        return sum(f.rows_written for f in self.feeds)


def fetch_feeds(
    db: sqlite_utils.Database, urls: list[str], as_of: str | None = None, timeout: float = 60
) -> FetchReport:
    """Fetch each feed now and write what changed. A feed answers 304 to the ETag /
    Last-Modified it sent last time (kept per URL in the store), or the same bytes again: then
    nothing is written. A feed that fails is reported and its stored prices stay as they are
    (each cloud of the catalog is its own source, so a failed one is not read as withdrawn)."""
    outcomes: list[FeedOutcome] = []
    for url in urls:
        shown = redact(url)
        key = f"{shown} {hashlib.sha256(url.encode()).hexdigest()[:16]}"  # no credentials in the store
        state = store.feed_state(db, key) or {}
        try:
            got = _download(url, timeout, state.get("etag"), state.get("last_modified"))
            sha = hashlib.sha256(got.body).hexdigest() if got.status == 200 else state.get("body_sha256")
            if got.status == 304 or (state and sha == state.get("body_sha256")):
                outcomes.append(FeedOutcome(url=shown, status="unchanged"))
                continue
            parsed = _parse_feed(url, got.body, got.content_type, as_of)
            written = store.write_rows(db, parsed.rows)
        except FeedProblem as err:
            outcomes.append(FeedOutcome(url=shown, status="failed", message=err.message))
            continue
        store.remember_feed(db, key, got.etag, got.last_modified, sha or "", dt.datetime.now(dt.UTC).isoformat())
        outcomes.append(
            FeedOutcome(
                url=shown,
                status="changed" if written else "unchanged",
                rows_written=written,
                dates=parsed.dates,
                source=_source_of({r["source"] for r in parsed.rows}, parsed.layout),
                notes=parsed.notes,
            )
        )
    return FetchReport(feeds=outcomes)
