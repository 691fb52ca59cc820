"""The price-change digest: a source's snapshot on a date against its previous snapshot.

`compute_digest(db, date)` is what `gpu-advisor digest --json` prints (CONTRACT section 1):

* Snapshot sources are those imported in a snapshot layout (advisor/market/layouts.py: the
  SkyPilot files and feeds in that layout); vendor quotes and the reference seed are single
  observations, not snapshots, and stay out of the digest.
* For each such source with a snapshot on `date`, the previous snapshot is the latest
  earlier date of that source (`previous[source]`). A source whose first snapshot is on
  `date` has nothing to compare: it is listed in `first_snapshot` and not in `previous`.
* An offer is (source, cloud, region, instance_type). `changes` lists every price that
  differs, on-demand and spot apart (`kind` "on_demand" | "spot"), however small; `old` and
  `new` are the instance prices per hour exactly as published (USD), `pct` is
  `round((new - old) / old * 100, 4)`. A price missing on one side (an empty cell or
  SkyPilot's 0 placeholder) is `null`: `old: null` is a price newly published for an offer
  that was already listed; `new: null` a price no longer published for an offer still
  listed; `pct` is then `null`.
* `added` / `removed`: offers listed on one date and not at all on the other.
* `gpu` and `gpu_count` are as the source publishes them (SkyPilot's spelling, its count);
  `gpu_name` adds the catalog name. `new_gpus` / `withdrawn_gpus`: catalog GPUs a source
  offers now and did not offer at all the previous time, and the reverse.

* `cheapest_moves`: per source and catalog GPU, the cheapest on-demand price per GPU-hour
  (a complete price before an estimate) on the previous snapshot against `date`'s, when it
  moved by ON_DEMAND_MIN_PCT or more: what a buyer reads as "H100 got 26% cheaper". `why` says
  what moved it: `new_offer` (the cheapest now was not listed before), `withdrawn` (the
  cheapest before is gone or no longer priced), `price` (an offer listed on both dates, its
  price changed).

`headline(digest)` is what the rendered message shows first, grouped by GPU, and
`cheapest_now(db, date)` the cheapest on-demand price per GPU-hour of each GPU. The snapshots
are read through advisor/market/store.py.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal

import sqlite_utils
from pydantic import BaseModel, Field

from advisor.market import store

# The snapshot kinds the digest compares, as it names them.
KINDS = {"rent_hour": "on_demand", "spot_hour": "spot"}
ON_DEMAND_MIN_PCT = 0.1  # headline: on-demand changes smaller than this are left out
SPOT_MIN_PCT = 5.0  # headline: spot moves smaller than this are left out
BIG_SPOT_PCT = 20.0  # highlights: a spot move this large is worth a line of its own
HIGHLIGHTS = 5  # highlights: at most this many lines in the channel message

# An instance "type" that is an opaque record id (Fluidstack's "recE2ZDQmqR9HBKYs5xSnjtPw",
# "custom:0:A3E9735B4E2841E3982622EE4DBB41DA"): a run of 16 or more letters and digits, both.
_RAW_ID = re.compile(r"(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{16,}")


def instance_name(instance_type: str, gpu_name: str, gpu_count: int) -> str:
    """What a reader calls an offer's instance: the published instance type, or, where that is
    an opaque record id, its GPUs ("2x A100-SXM4-80GB")."""
    if _RAW_ID.search(instance_type or ""):
        return f"{gpu_count}x {gpu_name}"
    return instance_type


class Offer(BaseModel):
    source: str
    cloud: str
    region: str
    instance_type: str
    gpu: str  # as the source spells it
    gpu_count: int  # as the source lists it
    gpu_name: str = ""  # catalog name


class Change(BaseModel):
    source: str
    cloud: str
    region: str
    instance_type: str
    gpu: str
    gpu_count: int
    kind: Literal["on_demand", "spot"]
    old: float | None
    new: float | None
    pct: float | None
    gpu_name: str = ""


class GpuEvent(BaseModel):
    source: str
    gpu_name: str
    clouds: list[str]  # who offers it now (new) or offered it before (withdrawn)


class CheapestMove(BaseModel):
    """A GPU's cheapest on-demand price per GPU-hour in one source, before and now."""

    source: str
    gpu_name: str
    old: float  # per GPU-hour, USD
    new: float
    pct: float
    why: Literal["new_offer", "withdrawn", "price"]
    cloud: str  # the cheapest offer now
    region: str
    instance_type: str
    gpu_count: int
    old_cloud: str  # the cheapest offer before
    old_region: str
    old_instance_type: str
    old_gpu_count: int


class Digest(BaseModel):
    date: str
    previous: dict[str, str] = Field(default_factory=dict)
    changes: list[Change] = Field(default_factory=list)
    added: list[Offer] = Field(default_factory=list)
    removed: list[Offer] = Field(default_factory=list)
    new_gpus: list[GpuEvent] = Field(default_factory=list)
    withdrawn_gpus: list[GpuEvent] = Field(default_factory=list)
    first_snapshot: list[str] = Field(default_factory=list)
    cheapest_moves: list[CheapestMove] = Field(default_factory=list)

    def to_json(self) -> dict:
        return self.model_dump(mode="json")


def _day(date: str | dt.date) -> str:
    text = date.isoformat() if isinstance(date, dt.date) else str(date)
    try:
        if len(text) != 10:
            raise ValueError
        dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a date like 2024-02-05") from None
    return text


def _snapshot(db: sqlite_utils.Database, source: str, date: str) -> dict[tuple, dict]:
    """(cloud, region, instance_type) -> offer with its on-demand and spot published prices."""
    offers: dict[tuple, dict] = {}
    for r in store.snapshot_rows(db, source, date):
        o = offers.setdefault(
            (r["provider"], r["region"], r["offer"]),
            {
                "gpu": r["source_gpu"] or r["gpu"],
                "gpu_name": r["gpu"],
                "gpu_count": r["source_gpus"] if r["source_gpus"] is not None else r["gpus"],
                "on_demand": None,
                "spot": None,
            },
        )
        if r["kind"] in KINDS:
            o[KINDS[r["kind"]]] = r["published_price"] if r["priced"] and r["published_price"] is not None else None
    return offers


def _pct(old: float | None, new: float | None) -> float | None:
    if old is None or new is None or old == 0:
        return None
    return round((new - old) / old * 100, 4)


def compute_digest(db: sqlite_utils.Database, date: str | dt.date) -> Digest:
    """The digest for `date` (YYYY-MM-DD) of every snapshot source with a snapshot that day."""
    day = _day(date)
    digest = Digest(date=day)
    for source in store.snapshot_sources(db, day):
        prev_day = store.snapshot_on_or_before(db, source, day, strictly_before=True)
        if prev_day is None:
            digest.first_snapshot.append(source)
            continue
        digest.previous[source] = prev_day
        cur, prev = _snapshot(db, source, day), _snapshot(db, source, prev_day)

        def offer(key, o, source=source) -> Offer:
            return Offer(
                source=source,
                cloud=key[0],
                region=key[1],
                instance_type=key[2],
                gpu=o["gpu"],
                gpu_count=o["gpu_count"],
                gpu_name=o["gpu_name"],
            )

        for key in sorted(cur.keys() - prev.keys()):
            digest.added.append(offer(key, cur[key]))
        for key in sorted(prev.keys() - cur.keys()):
            digest.removed.append(offer(key, prev[key]))
        for key in sorted(cur.keys() & prev.keys()):
            o, p = cur[key], prev[key]
            for kind in ("on_demand", "spot"):
                if o[kind] != p[kind]:
                    digest.changes.append(
                        Change(
                            source=source,
                            cloud=key[0],
                            region=key[1],
                            instance_type=key[2],
                            gpu=o["gpu"],
                            gpu_count=o["gpu_count"],
                            kind=kind,
                            old=p[kind],
                            new=o[kind],
                            pct=_pct(p[kind], o[kind]),
                            gpu_name=o["gpu_name"],
                        )
                    )
        now_by_gpu: dict[str, set[str]] = {}
        before_by_gpu: dict[str, set[str]] = {}
        for key, o in cur.items():
            now_by_gpu.setdefault(o["gpu_name"], set()).add(key[0])
        for key, o in prev.items():
            before_by_gpu.setdefault(o["gpu_name"], set()).add(key[0])
        for g in sorted(now_by_gpu.keys() - before_by_gpu.keys()):
            digest.new_gpus.append(GpuEvent(source=source, gpu_name=g, clouds=sorted(now_by_gpu[g])))
        for g in sorted(before_by_gpu.keys() - now_by_gpu.keys()):
            digest.withdrawn_gpus.append(GpuEvent(source=source, gpu_name=g, clouds=sorted(before_by_gpu[g])))
        digest.cheapest_moves.extend(_cheapest_moves(db, source, prev_day, day, prev, cur))
    digest.cheapest_moves.sort(key=lambda m: (-abs(m.pct), m.gpu_name, m.source))
    return digest


def _cheapest_by_gpu(db: sqlite_utils.Database, source: str, day: str) -> dict[str, dict]:
    """Catalog GPU -> its cheapest priced on-demand row of the snapshot (per GPU-hour; a
    complete price before an estimate, then by offer for a stable tie-break)."""
    best: dict[str, dict] = {}
    for r in store.priced_on_demand(db, source, day):
        key = (bool(r["estimate"]), r["price"], r["provider"], r["region"], r["offer"])
        old = best.get(r["gpu"])
        if old is None or key < old["_key"]:
            best[r["gpu"]] = {**r, "_key": key}
    return best


def _cheapest_moves(db, source: str, prev_day: str, day: str, prev: dict, cur: dict) -> list[CheapestMove]:
    before, now = _cheapest_by_gpu(db, source, prev_day), _cheapest_by_gpu(db, source, day)
    moves = []
    for gpu in sorted(before.keys() & now.keys()):
        b, n = before[gpu], now[gpu]
        pct = _pct(b["price"], n["price"])
        if pct is None or abs(pct) < ON_DEMAND_MIN_PCT:
            continue
        old_key, new_key = (b["provider"], b["region"], b["offer"]), (n["provider"], n["region"], n["offer"])
        old_now = cur.get(old_key)
        if old_key != new_key and (old_now is None or old_now["on_demand"] is None):
            why = "withdrawn"
        elif old_key != new_key and new_key not in prev:
            why = "new_offer"
        else:
            why = "price"
        moves.append(
            CheapestMove(
                source=source,
                gpu_name=gpu,
                old=b["price"],
                new=n["price"],
                pct=pct,
                why=why,
                cloud=n["provider"],
                region=n["region"],
                instance_type=n["offer"],
                gpu_count=n["gpus"],
                old_cloud=b["provider"],
                old_region=b["region"],
                old_instance_type=b["offer"],
                old_gpu_count=b["gpus"],
            )
        )
    return moves


# ----------------------------------------------------------------------------------------
# What the rendered message shows


class InstanceGroup(BaseModel):
    """One instance type of a source, in one or more regions, named as the digest shows it."""

    source: str
    cloud: str
    instance_type: str
    gpu: str
    gpu_count: int
    regions: list[str]
    gpu_name: str = ""

    @property
    def name(self) -> str:
        return instance_name(self.instance_type, self.gpu_name or self.gpu, self.gpu_count)


class Move(InstanceGroup):
    """Changes of one instance type that moved the same way in several regions."""

    kind: Literal["on_demand", "spot"]
    old: float | None
    new: float | None
    pct: float | None


class OfferGroup(InstanceGroup):
    """Offers of one instance type added or removed, with their regions."""


class GpuNews(BaseModel):
    gpu_name: str
    on_demand: list[Move] = Field(default_factory=list)  # newly published first, then by size
    spot: list[Move] = Field(default_factory=list)  # moves of SPOT_MIN_PCT or more
    new_in: list[GpuEvent] = Field(default_factory=list)  # where it is new
    withdrawn_from: list[GpuEvent] = Field(default_factory=list)  # where it is no longer offered
    added: list[OfferGroup] = Field(default_factory=list)
    removed: list[OfferGroup] = Field(default_factory=list)

    @property
    def rank(self) -> int:
        """0 on-demand changes, 1 spot moves, 2 a new GPU, 3 withdrawals, 4 added offers only."""
        if self.on_demand:
            return 0
        if self.spot:
            return 1
        if self.new_in:
            return 2
        if self.withdrawn_from or self.removed:
            return 3
        return 4

    @property
    def biggest_move(self) -> float:
        pcts = [abs(m.pct) for m in self.on_demand + self.spot if m.pct is not None]
        return max(pcts, default=0.0)


class Headline(BaseModel):
    date: str
    previous: dict[str, str]
    groups: list[GpuNews]
    left_out: int  # changes under the thresholds
    quiet: bool  # nothing worth a message
    on_demand_min_pct: float  # the threshold the message quotes for what it left out
    cheapest_moves: list[CheapestMove] = Field(default_factory=list)  # shown first


def _move_order(m: Move) -> tuple:
    return (m.pct is not None, -abs(m.pct or 0.0), m.source, m.cloud, m.instance_type)


def headline(
    digest: Digest, on_demand_min_pct: float = ON_DEMAND_MIN_PCT, spot_min_pct: float = SPOT_MIN_PCT
) -> Headline:
    """Group the digest by catalog GPU, what matters first: on-demand changes (of at least
    `on_demand_min_pct` percent, and every newly published or vanished price), spot moves of
    at least `spot_min_pct` percent, GPUs new to a source, withdrawals, then added offers.
    Changes of one instance type that moved identically in several regions become one Move."""
    groups: dict[str, GpuNews] = {}

    def group(name: str) -> GpuNews:
        return groups.setdefault(name, GpuNews(gpu_name=name))

    moves: dict[tuple, Move] = {}
    left_out = 0
    for c in digest.changes:
        threshold = on_demand_min_pct if c.kind == "on_demand" else spot_min_pct
        if c.pct is not None and abs(c.pct) < threshold:
            left_out += 1
            continue
        key = (c.gpu_name, c.source, c.cloud, c.instance_type, c.kind, c.old, c.new)
        if key in moves:
            moves[key].regions.append(c.region)
            continue
        m = Move(
            source=c.source,
            cloud=c.cloud,
            instance_type=c.instance_type,
            gpu=c.gpu,
            gpu_count=c.gpu_count,
            kind=c.kind,
            old=c.old,
            new=c.new,
            pct=c.pct,
            regions=[c.region],
            gpu_name=c.gpu_name,
        )
        moves[key] = m
        getattr(group(c.gpu_name), c.kind).append(m)
    for attr, offers in (("added", digest.added), ("removed", digest.removed)):
        og: dict[tuple, OfferGroup] = {}
        for o in offers:
            key = (o.gpu_name, o.source, o.cloud, o.instance_type)
            if key in og:
                og[key].regions.append(o.region)
                continue
            og[key] = OfferGroup(
                source=o.source,
                cloud=o.cloud,
                instance_type=o.instance_type,
                gpu=o.gpu,
                gpu_count=o.gpu_count,
                regions=[o.region],
                gpu_name=o.gpu_name,
            )
            getattr(group(o.gpu_name), attr).append(og[key])
    for e in digest.new_gpus:
        group(e.gpu_name).new_in.append(e)
    for e in digest.withdrawn_gpus:
        group(e.gpu_name).withdrawn_from.append(e)
    for g in groups.values():
        g.on_demand.sort(key=_move_order)
        g.spot.sort(key=_move_order)
        for m in g.on_demand + g.spot:
            m.regions.sort()
        for o in g.added + g.removed:
            o.regions.sort()
        g.added.sort(key=lambda o: (-len(o.regions), o.source, o.cloud, o.instance_type))
        g.removed.sort(key=lambda o: (-len(o.regions), o.source, o.cloud, o.instance_type))
    ordered = sorted(groups.values(), key=lambda g: (g.rank, -g.biggest_move, g.gpu_name))
    return Headline(
        date=digest.date,
        previous=digest.previous,
        groups=ordered,
        left_out=left_out,
        quiet=not ordered and not digest.cheapest_moves,
        on_demand_min_pct=on_demand_min_pct,
        cheapest_moves=digest.cheapest_moves,
    )


class Highlight(BaseModel):
    """One line of the channel message: a price move of one instance type (in one or more
    regions), a GPU new to or gone from a source, or an instance type withdrawn."""

    kind: Literal["cheapest", "on_demand", "spot", "new_gpu", "withdrawn_gpu", "removed"]
    gpu_name: str
    source: str = ""
    clouds: list[str] = Field(default_factory=list)
    instance: str = ""  # the reader's name for it (instance_name)
    regions: list[str] = Field(default_factory=list)
    old: float | None = None
    new: float | None = None
    pct: float | None = None
    siblings: int = 0  # more instance types of the same GPU that moved the same way
    # "cheapest": old and new are per GPU-hour; why it moved, and the cheapest offer before
    why: str = ""
    old_cloud: str = ""
    old_instance: str = ""
    old_regions: list[str] = Field(default_factory=list)


class Summary(BaseModel):
    """What the digest's channel message shows: at most HIGHLIGHTS lines (a GPU's cheapest
    on-demand price moved by a new or a withdrawn offer first, then on-demand moves, large spot
    moves, new GPUs, withdrawals) and counts of everything else."""

    date: str
    previous: dict[str, str]
    highlights: list[Highlight]
    on_demand: int  # on-demand price changes (one per offer and region), all of them
    spot: int  # spot price changes
    added: int  # offers listed now and not before
    removed: int  # offers listed before and not now
    new_gpus: int
    withdrawn_gpus: int
    shown: int  # offer-level changes the highlights cover
    first_snapshot: list[str] = Field(default_factory=list)

    @property
    def total(self) -> int:
        return self.on_demand + self.spot + self.added + self.removed

    @property
    def quiet(self) -> bool:
        return not self.highlights


def _from_move(m: Move) -> Highlight:
    return Highlight(
        kind=m.kind,
        gpu_name=m.gpu_name,
        source=m.source,
        clouds=[m.cloud],
        instance=m.name,
        regions=m.regions,
        old=m.old,
        new=m.new,
        pct=m.pct,
    )


def summary(digest: Digest, limit: int = HIGHLIGHTS, big_spot_pct: float = BIG_SPOT_PCT) -> Summary:
    """The few moves a channel needs to see: up to 3 on-demand moves (largest first), the
    largest spot move of at least `big_spot_pct` percent, a GPU new to a source, a withdrawal;
    remaining places go to more of the same in that order. Everything is counted."""
    h = headline(digest)
    on_demand = sorted((m for g in h.groups for m in g.on_demand), key=_move_order)
    spot = sorted((m for g in h.groups for m in g.spot if m.pct is None or abs(m.pct) >= big_spot_pct), key=_move_order)
    # A GPU's cheapest price moved by an offer that came or went (a move of one instance's own
    # price is already an on-demand line): what a buyer reads first.
    cheapest = [
        Highlight(
            kind="cheapest",
            gpu_name=m.gpu_name,
            source=m.source,
            clouds=[m.cloud],
            instance=instance_name(m.instance_type, m.gpu_name, m.gpu_count),
            regions=[m.region],
            old=m.old,
            new=m.new,
            pct=m.pct,
            why=m.why,
            old_cloud=m.old_cloud,
            old_instance=instance_name(m.old_instance_type, m.gpu_name, m.old_gpu_count),
            old_regions=[m.old_region],
        )
        for m in digest.cheapest_moves
        if m.why != "price"
    ]
    queues: list[list[Highlight]] = [
        cheapest,
        [_from_move(m) for m in on_demand],
        [_from_move(m) for m in spot],
        [Highlight(kind="new_gpu", gpu_name=e.gpu_name, source=e.source, clouds=e.clouds) for e in digest.new_gpus],
        [
            Highlight(kind="withdrawn_gpu", gpu_name=e.gpu_name, source=e.source, clouds=e.clouds)
            for e in digest.withdrawn_gpus
        ]
        + [
            Highlight(
                kind="removed",
                gpu_name=g.gpu_name,
                source=o.source,
                clouds=[o.cloud],
                instance=o.name,
                regions=o.regions,
            )
            for g in h.groups
            for o in g.removed
        ],
    ]
    # Sibling instance types that moved by the same percentage in the same regions (Lambda's
    # gpu_1x_a100, gpu_2x_a100 and gpu_4x_a100, all +17%) are one line, named by the first.
    for i, q in enumerate(queues):
        merged: dict[tuple, Highlight] = {}
        for x in q:
            moved = None if x.pct is None else round(x.pct, 1)
            key = (
                x.kind,
                x.gpu_name,
                tuple(x.clouds),
                tuple(x.regions),
                (moved, x.old if moved is None else 0, x.new if moved is None else 0)
                if x.kind in ("on_demand", "spot")
                else x.instance,
            )
            if key in merged:
                merged[key].siblings += 1
            else:
                merged[key] = x
        queues[i] = list(merged.values())
    # Quotas first (3 on demand, 1 spot, 1 new GPU, 1 withdrawal), one line per GPU and kind;
    # then more GPUs in the same order; a second line for a GPU only after that.
    picked: list[list[Highlight]] = [[] for _ in queues]
    firsts: list[list[Highlight]] = []
    for q in queues:
        seen: set[str] = set()
        firsts.append([x for x in q if not (x.gpu_name in seen or seen.add(x.gpu_name))])
    room = limit
    for stage in ((firsts, (2, 3, 1, 1, 1)), (firsts, (limit,) * 5), (queues, (limit,) * 5)):
        pool, quotas = stage
        for i, take in enumerate(quotas):
            fresh = [x for x in pool[i] if not any(x is y for y in picked[i])]
            n = min(take, len(fresh), room)
            picked[i] += fresh[:n]
            room -= n
    if sum(map(len, picked)) < 3:  # a quiet day: smaller spot moves, one per GPU, make up three lines
        seen = {x.gpu_name for x in picked[2]}
        for m in sorted((m for g in h.groups for m in g.spot), key=_move_order):
            if sum(map(len, picked)) >= 3:
                break
            if m.gpu_name not in seen and not any(y.instance == m.name and y.regions == m.regions for y in picked[2]):
                seen.add(m.gpu_name)
                picked[2].append(_from_move(m))
                queues[2].append(picked[2][-1])
    for i, q in enumerate(queues):  # keep each kind in its own order
        picked[i].sort(key=lambda x, q=q: next(k for k, y in enumerate(q) if y is x))
    highlights = [x for p in picked for x in p]
    shown = sum(
        max(1, len(x.regions)) * (1 + x.siblings) for x in highlights if x.kind in ("on_demand", "spot", "removed")
    )
    return Summary(
        date=digest.date,
        previous=digest.previous,
        highlights=highlights,
        on_demand=sum(c.kind == "on_demand" for c in digest.changes),
        spot=sum(c.kind == "spot" for c in digest.changes),
        added=len(digest.added),
        removed=len(digest.removed),
        new_gpus=len(digest.new_gpus),
        withdrawn_gpus=len(digest.withdrawn_gpus),
        shown=shown,
        first_snapshot=digest.first_snapshot,
    )


def rows(digest: Digest) -> list[dict]:
    """Every change of the digest, one row per offer and region (the CSV in the thread); the
    moves of a GPU's cheapest price first (old and new per GPU-hour, the offer the cheapest now)."""
    out = []
    for c in digest.changes:
        out.append(
            {
                "kind": c.kind,
                "gpu": c.gpu_name or c.gpu,
                "provider": c.cloud,
                "region": c.region,
                "instance": instance_name(c.instance_type, c.gpu_name or c.gpu, c.gpu_count),
                "instance_type": c.instance_type,
                "gpus": c.gpu_count,
                "old": c.old,
                "new": c.new,
                "pct": c.pct,
                "source": c.source,
            }
        )
    for kind, offers in (("added", digest.added), ("removed", digest.removed)):
        for o in offers:
            out.append(
                {
                    "kind": kind,
                    "gpu": o.gpu_name or o.gpu,
                    "provider": o.cloud,
                    "region": o.region,
                    "instance": instance_name(o.instance_type, o.gpu_name or o.gpu, o.gpu_count),
                    "instance_type": o.instance_type,
                    "gpus": o.gpu_count,
                    "old": None,
                    "new": None,
                    "pct": None,
                    "source": o.source,
                }
            )
    for m in digest.cheapest_moves:  # a GPU's cheapest price, per GPU-hour (its kind says so)
        out.append(
            {
                "kind": "cheapest",
                "gpu": m.gpu_name,
                "provider": m.cloud,
                "region": m.region,
                "instance": instance_name(m.instance_type, m.gpu_name, m.gpu_count),
                "instance_type": m.instance_type,
                "gpus": m.gpu_count,
                "old": m.old,
                "new": m.new,
                "pct": m.pct,
                "source": m.source,
            }
        )
    order = {"cheapest": -1, "on_demand": 0, "spot": 1, "added": 2, "removed": 3}
    out.sort(
        key=lambda r: (order[r["kind"]], -abs(r["pct"] or 0), r["gpu"], r["provider"], r["region"], r["instance_type"])
    )
    return out


class Cheapest(BaseModel):
    gpu_name: str
    price_per_gpu_hour: float
    currency: str
    source: str
    cloud: str
    region: str
    instance_type: str
    gpu_count: int  # GPUs in the instance (the real count)
    instance_price: float | None
    as_of: str
    estimate: bool
    note: str = ""

    @property
    def name(self) -> str:
        return instance_name(self.instance_type, self.gpu_name, self.gpu_count)


def cheapest_now(db: sqlite_utils.Database, date: str | dt.date) -> list[Cheapest]:
    """Per catalog GPU, the cheapest on-demand price per GPU-hour in each snapshot source's
    latest snapshot on or before `date`; a complete price beats an estimate (GCP's GPU-only
    V100 rows leave out the host). Sorted by GPU name."""
    day = _day(date)
    best: dict[str, Cheapest] = {}
    for source in store.snapshot_sources(db):
        snap_day = store.snapshot_on_or_before(db, source, day, strictly_before=False)
        if snap_day is None:
            continue
        for r in store.priced_on_demand(db, source, snap_day):
            c = Cheapest(
                gpu_name=r["gpu"],
                price_per_gpu_hour=r["price"],
                currency=r["currency"],
                source=source,
                cloud=r["provider"],
                region=r["region"],
                instance_type=r["offer"],
                gpu_count=r["gpus"],
                instance_price=r["published_price"],
                as_of=snap_day,
                estimate=bool(r["estimate"]),
                note=r["note"],
            )
            old = best.get(c.gpu_name)
            if old is None or (c.estimate, c.price_per_gpu_hour, c.cloud, c.region, c.instance_type) < (
                old.estimate,
                old.price_per_gpu_hour,
                old.cloud,
                old.region,
                old.instance_type,
            ):
                best[c.gpu_name] = c
    return [best[g] for g in sorted(best)]
