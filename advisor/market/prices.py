"""The prices a plan reads: a `PriceBook` of the newest price of each offer, built from the
store (advisor/market/store.py) for one owner, with the exchange rate between CNY and USD.
"""

from __future__ import annotations

import collections
import copy
import datetime as dt
import os
from dataclasses import dataclass

import sqlite_utils

from advisor.market import reference, store

# Hours in a month, the convention of data/reference_prices.toml (8,760 h / 12).
HOURS_PER_MONTH = 730
# Days in a month, on the same convention (30.4): a month billed covers the hours its rate was
# divided over (a 30.06-day job had paid two months of a rate set per 730 hours).
DAYS_PER_MONTH = HOURS_PER_MONTH / 24
# Sibling GPU classes, for the estimate rule of plans and the quote judge when a GPU has no server
# lease on record: the H800 is the H100's die with NVLink cut to 400 GB/s and the A800 the A100's
# (data/gpus.toml), leased as the same class (assumed: no H800/A800 server lease was found,
# shared/notes/cluster-prices.md section 4).
SIBLINGS = {"H800-SXM-80GB": "H100-SXM5-80GB", "A800-SXM4-80GB": "A100-SXM4-80GB"}
# An observation more than this many days older than the newest of the same kind, GPU and market
# is history (the trend `prices show` prints), not a price a plan is made from: China's H100
# server lease fell from about 200k to 60-70k CNY a month and rose again within two years
# (shared/notes/market-2026-12.md 1c), so a year-old figure beside this year's is no offer.
HISTORY_DAYS = 365
# The kinds of price a provider rents GPUs at (by the hour, month, off-peak hour or spot hour).
RENTAL_KINDS = ("rent_", "offpeak_", "spot_")


class ConfigError(ValueError):
    """A setting (environment variable) the program cannot use."""


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
    owner: str | None = None  # who recorded it (a quote); None: shared market data
    # What the row is an offer of (issue 15; store.OFFER_TERMS).
    offer_kind: str = ""
    max_gpus: int = 1
    fabric: str = ""
    fabric_gbps: float = 0.0
    billing: str = ""
    indicative: bool = False
    terms: str = ""  # what the source states it is sold on (store.OFFER_SOLD_ON); '' not stated

    @property
    def lease_terms(self) -> list[int]:
        """The lease terms in months the source states ([] when none, or sold by the hour)."""
        return store.term_months(self.terms)

    def why_not(self, gpus: int, nodes: int) -> str | None:
        """Why this offer cannot deliver `gpus` GPUs on `nodes` servers in one order, or None
        when it can: an index or average is not for sale ('indicative'); one order must get
        all the GPUs ('count'); a multi-server plan needs a cluster fabric ('fabric')."""
        if self.indicative:
            return "indicative"
        if self.max_gpus < gpus:
            return "count"
        if nodes > 1 and not (self.offer_kind == "cluster" or self.fabric in store.CLUSTER_FABRICS):
            return "fabric"
        return None


class PriceBook:
    """The newest observation of each offer, and conversions between CNY and USD."""

    def __init__(self, rows: list[dict], usd_cny: float, fx_as_of: str, fx_source: str):
        self.usd_cny = usd_cny
        self.fx_as_of = fx_as_of
        self.fx_source = fx_source
        self._by_key: dict[tuple, list[Price]] = {}
        for r in rows:
            p = Price(
                kind=r["kind"],
                gpu=r["gpu"],
                market=r["market"],
                provider=r["provider"],
                price=r["price"],
                currency=r["currency"],
                unit=r["unit"],
                as_of=r["as_of"],
                estimate=bool(r["estimate"]),
                cite=r["cite"],
                min_term_months=r["min_term_months"],
                gpus=r["gpus"],
                region=r["region"],
                source=r["source"],
                offer=r["offer"],
                owner=r.get("owner"),
                offer_kind=r.get("offer_kind") or "",
                max_gpus=r.get("max_gpus") or r["gpus"] or 1,
                fabric=r.get("fabric") or "",
                fabric_gbps=r.get("fabric_gbps") or 0.0,
                billing=r.get("billing") or "",
                indicative=bool(r.get("indicative")),
                terms=r.get("terms") or "",
            )
            self._by_key.setdefault((p.kind, p.gpu, p.market), []).append(p)
        self._history: dict[tuple, list[Price]] = {}
        for key, group in self._by_key.items():
            newest = max(_as_date(p.as_of) for p in group)
            # one pass (a membership test against the old rows compared every field of every
            # pair: 150,000 back-filled rows had taken nine CPU-minutes per book)
            current, old = [], []
            for p in group:
                (old if (newest - _as_date(p.as_of)).days > HISTORY_DAYS else current).append(p)
            if old:
                self._history[key] = old
                self._by_key[key] = current

    def convert(self, amount: float, from_cur: str, to_cur: str) -> float:
        if from_cur == to_cur or not from_cur:
            return amount
        return amount * self.usd_cny if from_cur == "USD" else amount / self.usd_cny

    def best(self, kind: str, gpu: str, market: str, currency: str, *, elsewhere: bool = True) -> Price | None:
        """The cheapest confirmed price (else the cheapest estimate) in the market; for a purchase,
        of the newest year on record.

        Rentals come from the user's market only; purchase and operating prices fall back to
        the other market, converted, when the user's market has none (not with `elsewhere` False)."""
        other = "global" if market == "china" else "china"
        for mkt in [market] if kind.startswith(("rent", "offpeak")) or not elsewhere else [market, other]:
            offers = [p for p in self._by_key.get((kind, gpu, mkt), []) if p.price > 0 and not p.indicative]
            if offers:
                pool = [p for p in offers if not p.estimate] or offers
                if kind.startswith("buy"):
                    # hardware is bought at this year's price: a server read from a 2025 article at
                    # ¥120,000 had priced 8 RTX 4090 beside a 2026 listing at ¥260,000 (lab probe);
                    # a year-only date cannot be held a year older (HISTORY_DAYS) than the next one
                    newest = max(p.as_of[:4] for p in pool)
                    pool = [p for p in pool if p.as_of[:4] == newest]
                return min(pool, key=lambda p: self.convert(p.price, p.currency, currency))
        return None

    def gpus(self) -> list[str]:
        return sorted({key[1] for key in self._by_key if key[1]})

    def of_provider(self, name: str, market: str) -> PriceBook | None:
        """The book with `market`'s rentals narrowed to one provider's (`on aws`: those whose
        provider's name holds "AWS", "AWS Capacity Blocks" among them); purchase, power and the
        other market as they were. None when that provider rents nothing there on record."""
        name = name.lower()
        narrowed = {
            key: [p for p in rows if name in p.provider.lower()]
            for key, rows in self._by_key.items()
            if key[0].startswith(RENTAL_KINDS) and key[2] == market
        }
        if not any(p.price > 0 for rows in narrowed.values() for p in rows):
            return None
        view = copy.copy(self)
        view._by_key = self._by_key | narrowed
        return view

    def rented_by(self, name: str, market: str) -> list[str]:
        """The GPU types one provider rents in `market` on record (by the hour or month; indexes and
        averages, which rent nothing, left out)."""
        name = name.lower()
        return sorted(
            {
                p.gpu
                for (kind, _, mkt), rows in self._by_key.items()
                if kind in ("rent_hour", "rent_month") and mkt == market
                for p in rows
                if name in p.provider.lower() and p.price > 0 and not p.indicative
            }
        )

    def offers(self, kind: str, gpu: str, market: str, *, rentable: bool = False) -> list[Price]:
        """The priced rows of a kind; `rentable` leaves out indexes and averages (indicative)."""
        return [p for p in self._by_key.get((kind, gpu, market), []) if p.price > 0 and not (rentable and p.indicative)]

    def history(self, kind: str, gpu: str, market: str) -> list[Price]:
        """The observations of a kind that a newer year has superseded (HISTORY_DAYS), oldest first."""
        return sorted((p for p in self._history.get((kind, gpu, market), []) if p.price > 0), key=lambda p: p.as_of)

    def value(self, price: Price | None, currency: str) -> float | None:
        return None if price is None else self.convert(price.price, price.currency, currency)


# The newest book per (store, owner), with the store's version when built: the shared book, and
# the books of the owners that recorded quotes of their own, the least recently used dropped past
# BOOKS_KEPT (GPU_ADVISOR_PRICE_BOOKS). An owner without quotes reads the shared book itself.
_books: collections.OrderedDict[tuple[str, str | None], tuple[int, PriceBook]] = collections.OrderedDict()
BOOKS_KEPT = 32


def _kept() -> int:
    return max(1, int(os.environ.get("GPU_ADVISOR_PRICE_BOOKS") or BOOKS_KEPT))


def price_book(db: sqlite_utils.Database, owner: str | None) -> PriceBook:
    """The prices `owner` sees (shared market data and its own quotes; shared only for None).
    Cached per database file and owner until the store's version changes (every write bumps it
    in its transaction, store.version), so an import or a quote changes the next answer of
    every process. Not the file's modification time: a commit in WAL mode does not move it."""
    path = store.file_of(db)
    changed = store.version(db) if path else None
    if owner is not None and not store.has_owner_rows(db, owner):
        owner = None  # no quotes of its own: the one shared book
    cached = _books.get((path, owner))
    if cached and changed is not None and cached[0] == changed:
        book = cached[1]
        _books.move_to_end((path, owner))
    else:
        book = PriceBook(store.newest_offers(db, owner), *reference.fx())
        if changed is not None:
            _books[(path, owner)] = (changed, book)
            _books.move_to_end((path, owner))
            while len(_books) > _kept():
                _books.popitem(last=False)
    configured = exchange_rate()
    if configured:
        book = copy.copy(book)
        book.usd_cny, book.fx_as_of, book.fx_source = configured
    return book


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


RENT_KINDS = ("rent_hour", "rent_month", "offpeak_hour")
MARKETS = ("china", "global")
# Words read beside a GPU whose prices are shown (`prices H800 monthly`, `prices H100 hourly global`,
# `prices H800 按月`): the billing period and the market.
SHOWN_KINDS = {
    **dict.fromkeys(("hourly", "hour", "hr", "按小时", "按时", "小时"), ("rent_hour", "offpeak_hour")),
    **dict.fromkeys(("monthly", "month", "按月", "月租", "包月"), ("rent_month",)),
}
SHOWN_MARKETS = {
    **dict.fromkeys(("china", "cn", "cny", "国内", "中国"), ("china",)),
    **dict.fromkeys(("global", "us", "usd", "abroad", "海外", "国外"), ("global",)),
}


def shown_filters(words: list[str]) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """The GPU named among `words` (the rest joined), and the kinds and markets the others name
    (SHOWN_KINDS, SHOWN_MARKETS; all where none is)."""
    gpu, kinds, markets = [], RENT_KINDS, MARKETS
    for w in words:
        if w.lower() in SHOWN_KINDS:
            kinds = SHOWN_KINDS[w.lower()]
        elif w.lower() in SHOWN_MARKETS:
            markets = SHOWN_MARKETS[w.lower()]
        else:
            gpu.append(w)
    return " ".join(gpu), kinds, markets


def current_prices(
    book: PriceBook,
    gpu: str | None = None,
    today: str | None = None,
    per_gpu: int | None = 5,
    kinds: tuple[str, ...] = RENT_KINDS,
    markets: tuple[str, ...] = MARKETS,
) -> list[dict]:
    """The rental offers per GPU in the book (the cheapest `per_gpu`, or every one for None), per
    hour and per month (`kinds`, in `markets`), with source, age and the terms each is sold on;
    cheapest first (compared in USD). Each group's `history` lists the older observations a newer
    year superseded."""
    day = dt.date.fromisoformat(today) if today else dt.date.today()
    groups = []
    for name in (g for g in book.gpus() if gpu is None or g == gpu):
        offers = []
        for kind in kinds:
            for market in markets:
                for p in book.offers(kind, name, market):
                    hours = HOURS_PER_MONTH if kind == "rent_month" else 1
                    offers.append(
                        {
                            "kind": kind,
                            "price": p.price,
                            "currency": p.currency,
                            "unit": p.unit or "gpu-hour",
                            "provider": p.provider,
                            "region": p.region,
                            "offer": p.offer,
                            "market": market,
                            # a quote the owner recorded is shown as theirs, never as the market's
                            "source": "your quote" if p.owner else p.source,
                            "cite": p.cite,
                            "as_of": p.as_of,
                            "age_days": (day - _as_date(p.as_of)).days,
                            "estimate": p.estimate,
                            "offer_kind": p.offer_kind,
                            "max_gpus": p.max_gpus,
                            "interconnect": p.fabric,
                            "interconnect_gbps": p.fabric_gbps,
                            "min_term_months": p.min_term_months,
                            "billing": p.billing,
                            "indicative": p.indicative,
                            "terms": p.terms.split(),
                            "usd_per_gpu_hour": book.convert(p.price, p.currency, "USD") / hours,
                        }
                    )
        offers.sort(key=lambda o: o["usd_per_gpu_hour"])
        history = [
            {
                "kind": p.kind,
                "price": p.price,
                "currency": p.currency,
                "unit": p.unit or "gpu-hour",
                "provider": p.provider,
                "market": market,
                "as_of": p.as_of,
                "source": p.source,
            }
            for kind in ("rent_hour", "rent_month")
            if kind in kinds
            for market in markets
            for p in book.history(kind, name, market)
        ]
        if offers:
            groups.append({"gpu": name, "offers": offers[:per_gpu], "history": history})
    return groups


def _as_date(text: str) -> dt.date:
    """A price's as-of date ("2026-09", "2025", "2026-09-14") as its first day."""
    parts = (text + "-01-01").split("-")[:3]
    try:
        return dt.date(int(parts[0]), int(parts[1]), int(parts[2]))
    except ValueError:
        return dt.date(int(parts[0]), 1, 1)
