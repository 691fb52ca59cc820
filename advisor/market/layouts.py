"""The price file layouts the importer knows, one reader each, registered in `LAYOUTS`.

A reader says which columns make its layout, turns one record (a row of the file, as a dict
of cells) into observation rows, and gives the key that may appear only once per file. A new
layout is one more reader in the table; the importer, the store and the digest ask the
registry instead of comparing layout names. The layouts themselves are described in
advisor/market/imports.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from advisor import catalog
from advisor.market import skypilot_catalog as _catalog
from advisor.market.cells import choice, count, flag, number, read_date

SKYPILOT_CITE = "SkyPilot catalog (skypilot-org/skypilot-catalog)"

SKYPILOT_COLUMNS = (
    "date",
    "cloud",
    "region",
    "instance_type",
    "gpu",
    "gpu_count",
    "vcpus",
    "memory_gib",
    "price_per_hour_usd",
    "spot_price_per_hour_usd",
)
QUOTE_REQUIRED = ("date", "vendor", "gpu", "gpus", "kind", "price", "currency")

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
    ("azure", "Standard_ND96is_H100_v5"): 8,  # catalog lists 12; ND H100 v5 has 8 GPUs
    ("azure", "Standard_ND96isr_H100_v5"): 8,  # same
}

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


def market_of(currency: str) -> str:
    """The market a currency's prices belong to when none is given: CNY China, else global."""
    return "china" if currency == "CNY" else "global"


# ----------------------------------------------------------------------------------------
# SkyPilot catalog snapshots


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


def _skypilot_rows(rec: dict[str, str], origin: str, as_of: str | None) -> list[dict]:
    day = read_date(rec["date"], as_of)
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
    listed_gpus = count(rec["gpu_count"], "gpu_count")
    gpus = GPU_COUNT_FIXES.get((cloud, itype), listed_gpus)
    if gpus != listed_gpus:
        note = "; ".join(filter(None, [note, f"catalog lists {listed_gpus} GPUs, the machine has {gpus}"]))
    vcpus = number(rec["vcpus"], "vcpus", empty_ok=True)
    memory = number(rec["memory_gib"], "memory_gib", empty_ok=True)
    on_demand = number(rec["price_per_hour_usd"], "price_per_hour_usd", empty_ok=True)
    spot = number(rec["spot_price_per_hour_usd"], "spot_price_per_hour_usd", empty_ok=True)
    estimate = 0
    if itype.startswith("gpu-only:"):
        estimate = 1
        note = "; ".join(filter(None, [note, "GPU only: excludes the host VM"]))
    return _catalog.instance_rows(
        source=SKYPILOT.source,
        layout=SKYPILOT.name,
        cloud=cloud,
        region=region,
        itype=itype,
        gpu=gpu,
        gpus=gpus,
        spelling=spelling,
        listed_gpus=listed_gpus,
        on_demand=on_demand,
        spot=spot,
        day=day,
        estimate=estimate,
        cite=f"{SKYPILOT_CITE}, {origin}",
        note=note,
        vcpus=vcpus,
        memory=memory,
    )


def _skypilot_key(rows: list[dict]) -> tuple:
    r = rows[0]
    return r["as_of"], r["provider"], r["region"], r["offer"]


def _skypilot_twice(key: tuple) -> str:
    day, cloud, region, itype = key
    return f"{cloud} {region} {itype} on {day} is listed twice"


# ----------------------------------------------------------------------------------------
# Vendor quotes


def _quote_rows(rec: dict[str, str], origin: str, as_of: str | None) -> list[dict]:
    day = read_date(rec.get("date", ""), as_of)
    vendor = rec["vendor"].strip()
    if not vendor:
        raise ValueError("vendor is empty")
    spelling = rec["gpu"].strip()
    found = catalog.find_gpu(spelling) if spelling else None
    if found is None:
        raise ValueError(f"unknown GPU name {spelling!r}")
    gpus = count(rec["gpus"], "gpus")
    kind = rec["kind"].strip()
    if kind not in QUOTE_KINDS:
        raise ValueError(f"kind {kind!r} is not one of {', '.join(QUOTE_KINDS)}")
    unit = rec.get("unit", "").strip() or QUOTE_KINDS[kind][0]
    if unit not in QUOTE_KINDS[kind]:
        raise ValueError(f"unit {unit!r} does not fit kind {kind} (use {' or '.join(QUOTE_KINDS[kind])})")
    price = number(rec["price"], "price", empty_ok=False, positive=True)
    currency = rec["currency"].strip().upper()
    if currency not in CURRENCIES:
        raise ValueError(f"currency {rec['currency'].strip()!r} must be CNY or USD")
    market = rec.get("market", "").strip().lower() or market_of(currency)
    if market not in MARKETS:
        raise ValueError(f"market {market!r} must be china or global")
    term = count(rec.get("min_term_months", "").strip() or "0", "min_term_months", minimum=0)
    terms = offer_terms(rec, gpus)
    stored_unit, stored = unit, price
    if unit.startswith("server-"):
        stored_unit, stored = "gpu-" + unit.split("-", 1)[1], price / gpus
    return [
        {
            "source": QUOTES.source,
            "kind": kind,
            "gpu": found.name,
            "gpus": gpus,
            "market": market,
            "provider": vendor,
            "region": rec.get("region", "").strip(),
            "offer": rec.get("offer", "").strip() or f"{gpus}x{found.name}",  # as quotes.record names it
            "price": stored,
            "currency": currency,
            "unit": stored_unit,
            "min_term_months": term,
            "as_of": day,
            "estimate": flag(rec.get("estimate", ""), "estimate"),
            "cite": rec.get("cite", "").strip() or f"quote from {vendor} ({origin})",
            "note": rec.get("note", "").strip(),
            "layout": QUOTES.name,
            "priced": 1,
            "published_price": price,
            "published_unit": unit,
            "source_gpu": spelling,
            "source_gpus": gpus,
            "vcpus": None,
            "memory_gib": None,
            **terms,
        }
    ]


# The optional offer-term columns of the quote layout (issue 15) and their values; a file that
# leaves them out gets store.offer_defaults: one order gets the `gpus` quoted, fabric and billing
# not stated (billing 'hour' or 'month' by kind), offer kind 'server' for 8 or more GPUs.
OFFER_KINDS = ("instance", "server", "cluster")
FABRICS = ("none", "pcie", "nvlink", "roce", "ib", "efa", "tcpx")
BILLINGS = ("second", "minute", "hour", "day", "week", "month")


def offer_terms(rec: dict[str, str], gpus: int) -> dict:
    """The offer terms a quote row states (offer_kind, max_gpus, interconnect, interconnect_gbps,
    billing, indicative); ValueError for a value outside the lists above."""
    out: dict = {}
    for column, key, allowed in (
        ("offer_kind", "offer_kind", OFFER_KINDS),
        ("interconnect", "fabric", FABRICS),
        ("billing", "billing", BILLINGS),
    ):
        word = choice(rec.get(column, ""), column, allowed)
        if word:
            out[key] = word
    if rec.get("max_gpus", "").strip():
        out["max_gpus"] = count(rec["max_gpus"], "max_gpus", minimum=gpus)
    if rec.get("interconnect_gbps", "").strip():
        out["fabric_gbps"] = number(rec["interconnect_gbps"], "interconnect_gbps", empty_ok=False)
    if rec.get("indicative", "").strip():
        out["indicative"] = flag(rec["indicative"], "indicative")
    return out


# ----------------------------------------------------------------------------------------
# The registry


@dataclass(frozen=True)
class PriceFileFormat:
    """One format of price file the importer reads (a file's `layout`, as stored and reported)."""

    name: str  # stored in observations.layout and reported as the kind of file
    title: str  # how messages name it ("SkyPilot layout")
    source: str  # the source rows get unless the import names another
    columns: tuple[str, ...]  # required header columns
    rows: Callable[[dict[str, str], str, str | None], list[dict]]  # (record, origin, as_of) -> rows
    # A dated snapshot of a whole price list: a newer one replaces a stored row of the same offer
    # and date, an offer missing from the newest snapshot is no longer offered, and the digest
    # compares snapshots. Otherwise each row is one observation that stands alone.
    snapshot: bool = False
    # A file of this layout is the whole list of its source on its date: importing another one of
    # the same source and date drops the offers it no longer lists (a catalog fetched twice a day).
    whole: bool = False
    # The key one record may hold only once per file (None: any number), and the message.
    once_key: Callable[[list[dict]], tuple] | None = None
    twice: Callable[[tuple], str] | None = None
    undated_ok: bool = False  # the date column may be left out when the import gives --as-of
    # Layouts whose offers span several records (zones, GCP hosts): `rows` gives partial rows and
    # finish(partial, {"path", "origin", "as_of", "cloud"}) -> (rows, notes for the summary).
    finish: Callable[[list[dict], dict], tuple[list[dict], list[str]]] | None = None

    def missing(self, header: set[str], as_of: str | None) -> list[str]:
        """Required columns the header lacks."""
        return [c for c in self.columns if c not in header and not (c == "date" and as_of and self.undated_ok)]


SKYPILOT = PriceFileFormat(
    name="skypilot",
    title="SkyPilot",
    source="skypilot",
    columns=SKYPILOT_COLUMNS,
    rows=_skypilot_rows,
    snapshot=True,
    once_key=_skypilot_key,
    twice=_skypilot_twice,
)
QUOTES = PriceFileFormat(
    name="quotes", title="quote", source="quote", columns=QUOTE_REQUIRED, rows=_quote_rows, undated_ok=True
)

# SkyPilot's own catalog files (catalogs/v<N>/<cloud>/vms.csv): advisor/market/skypilot_catalog.py.


def _catalog_gpu(spelling: str, cloud: str, instance_type: str) -> tuple[str, str, bool]:
    """(catalog name, note, known) of a GPU as the SkyPilot catalog spells it; unknown ones keep
    SkyPilot's name."""
    if spelling == "H100":
        return (*_skypilot_h100(cloud, instance_type), True)
    if spelling in SKYPILOT_GPUS:
        return SKYPILOT_GPUS[spelling], "", True
    return spelling, "GPU not in the catalog (data/gpus.toml): kept under SkyPilot's name", False


def _catalog_finish(partial: list[dict], ctx: dict) -> tuple[list[dict], list[str]]:
    return _catalog.finish(partial, ctx, gpu_name=_catalog_gpu, count_fixes=GPU_COUNT_FIXES, cite=SKYPILOT_CITE)


SKYPILOT_CATALOG = PriceFileFormat(
    name="skypilot_catalog",
    title="SkyPilot catalog (vms.csv)",
    source="skypilot",
    columns=_catalog.CATALOG_COLUMNS,
    rows=_catalog.catalog_record,
    snapshot=True,
    undated_ok=True,
    finish=_catalog_finish,
    whole=True,
)

# Detection tries them in this order; the first whose columns are all there wins.
LAYOUTS: dict[str, PriceFileFormat] = {layout.name: layout for layout in (SKYPILOT, QUOTES, SKYPILOT_CATALOG)}
SNAPSHOT_LAYOUTS: tuple[str, ...] = tuple(name for name, layout in LAYOUTS.items() if layout.snapshot)
WHOLE_LAYOUTS: tuple[str, ...] = tuple(name for name, layout in LAYOUTS.items() if layout.whole)
