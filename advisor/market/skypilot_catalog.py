"""SkyPilot's published catalog as it is: ``catalogs/v<N>/<cloud>/vms.csv`` of
skypilot-org/skypilot-catalog (schema v5 to the newest), one reader registered in
advisor/market/layouts.py as the layout ``skypilot_catalog``.

The file is read by header name, in any column order. Required columns: ``InstanceType``,
``AcceleratorName``, ``AcceleratorCount``, ``vCPUs``, ``MemoryGiB``, ``Price``, ``Region``;
``SpotPrice``, ``AvailabilityZone`` and ``GpuInfo`` are used when present (some clouds lack
them). Rules:

* GPU rows only: a row with an empty ``AcceleratorName`` is a CPU machine and is skipped
  (GCP host VMs excepted, below). TPUs and other non-GPU accelerators (``tpu-*``,
  Inferentia, Trainium) are skipped too.
* One offer per cloud x region x instance type: the zones of a region collapse to the
  lowest on-demand and the lowest spot price over them, as SkyPilot quotes them.
* The cloud is the folder the file sits in (``.../<cloud>/vms.csv``, a path or a URL) unless
  the import names it (``--cloud``); the date is ``--as-of`` or the day of the import.
* An empty or 0 price means "no price listed" (``priced = 0``; ``published_price`` keeps 0 or
  NULL), so the offer is still recorded as listed.
* GCP lists accelerators on rows of their own (empty ``InstanceType``), priced without a host.
  They are priced with the host VM SkyPilot attaches to them (``GCP_HOSTS``: A100 ->
  a2-highgpu-<N>g / a2-megagpu-16g, A100-80GB -> a2-ultragpu-<N>g, H100 -> a3-highgpu-<N>g,
  H100-MEGA -> a3-megagpu-8g, H200 -> a3-ultragpu-8g, B200 -> a4-highgpu-8g, L4 ->
  g2-standard-4/24/48/96), the host's price in the same zone added, and named after the host.
  GPUs that attach to an N1 VM (V100, T4, P100, ...) get the one SkyPilot picks: the cheapest
  n1-standard/-highmem/-highcpu with the vCPUs SkyPilot asks for that count (``GCP_N1_CPUS``) and
  4 GiB per vCPU; that offer is named ``<host>+<GPU>x<N>`` (``n1-highmem-8+V100x1``). Where the
  host is not in the file (or not in that zone) the GPU cannot be priced whole: the row is kept
  as ``gpu-only:<GPU>x<N>`` with ``estimate = 1`` and a note, and the import summary says so.
* GPU names map to the GPU catalog through ``layouts.SKYPILOT_GPUS`` (A100-80GB, H100-MEGA,
  GH200, ...). A GPU the catalog lacks is kept under SkyPilot's own name and named in the
  import summary, not refused.
* Each offer keeps the GPUs per instance, vCPUs and memory, the offer kind (``server``: a
  whole GPU node, bare metal or all 8+ GPUs of a board; ``instance``: a slice of one), and for
  families with a documented cluster fabric its interconnect and where that is documented
  (``INTERCONNECTS``).
* A malformed GPU row (a count that is not a whole number, a negative or non-numeric price)
  refuses the file with its line; nothing is written.
* Rows go in with source ``skypilot-<cloud>``: each cloud is its own snapshot source, so a cloud
  whose catalog could not be fetched keeps its last prices. A file is the whole list of its cloud
  on its date (``PriceFileFormat.whole``): a second file of the same cloud and date replaces the first,
  offers it no longer lists included.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from advisor.market.cells import number

CATALOG_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB", "Price", "Region")
OPTIONAL_COLUMNS = ("SpotPrice", "AvailabilityZone", "GpuInfo")

# GPU names: advisor/market/layouts.py passes its SkyPilot name map (SKYPILOT_GPUS, the H100
# form-factor rule, GPU_COUNT_FIXES) to `finish`, so that this module does not import it.
# GH200 is not in data/gpus.toml yet: kept under SkyPilot's name and named in the summary.
GpuNamer = Callable[[str, str, str], tuple[str, str, bool]]  # (spelling, cloud, itype) -> (name, note, known)

# Accelerators that are not GPUs: skipped like CPU rows.
_NOT_GPU = re.compile(r"^(tpu-|inferentia|trainium|gaudi|habana)", re.IGNORECASE)

# GCP: the host VM SkyPilot attaches to N of a GPU (sky/catalog/gcp_catalog.py:
# _ACC_INSTANCE_TYPE_DICTS). GPUs absent here attach to any N1 VM: not priceable whole.
GCP_HOSTS: dict[str, dict[int, str]] = {
    "A100": {1: "a2-highgpu-1g", 2: "a2-highgpu-2g", 4: "a2-highgpu-4g", 8: "a2-highgpu-8g", 16: "a2-megagpu-16g"},
    "A100-80GB": {1: "a2-ultragpu-1g", 2: "a2-ultragpu-2g", 4: "a2-ultragpu-4g", 8: "a2-ultragpu-8g"},
    "H100": {1: "a3-highgpu-1g", 2: "a3-highgpu-2g", 4: "a3-highgpu-4g", 8: "a3-highgpu-8g"},
    "H100-MEGA": {8: "a3-megagpu-8g"},
    "H200": {8: "a3-ultragpu-8g"},
    "B200": {8: "a4-highgpu-8g"},
    "L4": {1: "g2-standard-4", 2: "g2-standard-24", 4: "g2-standard-48", 8: "g2-standard-96"},
}
_GCP_HOST_NAMES = {h for hosts in GCP_HOSTS.values() for h in hosts.values()}
# Other GCP GPUs (V100, T4, P100, K80, P4) attach to an N1 VM: SkyPilot takes the cheapest
# n1-standard/-highmem/-highcpu with at least this many vCPUs and 4 GiB of memory per vCPU
# (gcp_catalog.py: _NUM_ACC_TO_NUM_CPU, _DEFAULT_HOST_VM_FAMILY, _DEFAULT_GPU_MEMORY_CPU_RATIO).
GCP_N1_FAMILY = ("n1-standard", "n1-highmem", "n1-highcpu")
GCP_N1_CPUS: dict[str, dict[int, int]] = {
    "K80": {1: 4, 2: 8, 4: 16, 8: 32, 16: 64},
    "V100": {1: 8, 2: 16, 4: 32, 8: 64},
    "T4": {1: 4, 2: 8, 4: 48},
    "P100": {1: 8, 2: 16, 4: 32, 8: 64},
    "DEFAULT": {1: 8, 2: 16, 4: 32, 8: 64, 16: 128},
}
GCP_MEMORY_PER_CPU = 4


def _is_host(itype: str) -> bool:
    return itype in _GCP_HOST_NAMES or itype.startswith(GCP_N1_FAMILY)


def _n1_host(hosts: list[dict], gpu: str, count: int) -> str | None:
    """The N1 VM SkyPilot attaches to `count` of `gpu`: the cheapest with enough vCPUs and memory."""
    cpus = GCP_N1_CPUS.get(gpu, GCP_N1_CPUS["DEFAULT"]).get(count)
    if cpus is None:
        return None
    fit = [
        h
        for h in hosts
        if h["itype"].startswith(GCP_N1_FAMILY)
        and _listed(h["price"])
        and (h["vcpus"] or 0) >= cpus
        and (h["memory"] or 0) >= cpus * GCP_MEMORY_PER_CPU
    ]
    return min(fit, key=lambda h: (h["price"], h["itype"]))["itype"] if fit else None


# Documented cluster fabrics: (cloud, instance-type prefix) -> (interconnect, source).
INTERCONNECTS: list[tuple[str, str, str, str]] = [
    ("aws", "p3dn.", "EFA, 100 Gbps", "https://aws.amazon.com/ec2/instance-types/p3/"),
    ("aws", "p4d.", "EFA, 400 Gbps (4 x 100 Gbps)", "https://aws.amazon.com/ec2/instance-types/p4/"),
    ("aws", "p4de.", "EFA, 400 Gbps (4 x 100 Gbps)", "https://aws.amazon.com/ec2/instance-types/p4/"),
    ("aws", "p5.", "EFA, 3200 Gbps", "https://aws.amazon.com/ec2/instance-types/p5/"),
    ("aws", "p5e.", "EFA, 3200 Gbps", "https://aws.amazon.com/ec2/instance-types/p5/"),
    ("aws", "p5en.", "EFAv3, 3200 Gbps", "https://aws.amazon.com/ec2/instance-types/p5/"),
    ("aws", "p6-b200.", "EFAv4, 3200 Gbps", "https://aws.amazon.com/ec2/instance-types/p6/"),
    (
        "gcp",
        "a3-highgpu-8g",
        "GPUDirect-TCPX, 800 Gbps (4 x 200 Gbps)",
        "https://cloud.google.com/compute/docs/gpus#a3-series",
    ),
    (
        "gcp",
        "a3-megagpu-8g",
        "GPUDirect-TCPXO, 1600 Gbps (8 x 200 Gbps)",
        "https://cloud.google.com/compute/docs/gpus#a3-series",
    ),
    (
        "gcp",
        "a3-ultragpu-8g",
        "GPUDirect RDMA, 3200 Gbps (8 x 400 Gbps)",
        "https://cloud.google.com/compute/docs/gpus#a3-series",
    ),
    (
        "gcp",
        "a4-highgpu-8g",
        "GPUDirect RDMA, 3200 Gbps (8 x 400 Gbps)",
        "https://cloud.google.com/compute/docs/gpus#a4-series",
    ),
    (
        "azure",
        "Standard_ND96isr_H100_v5",
        "InfiniBand NDR, 3200 Gbps (8 x 400 Gbps)",
        "https://learn.microsoft.com/azure/virtual-machines/nd-h100-v5-series",
    ),
    (
        "azure",
        "Standard_ND96isr_H200_v5",
        "InfiniBand NDR, 3200 Gbps (8 x 400 Gbps)",
        "https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/nd-h200-v5-series",
    ),
    (
        "azure",
        "Standard_ND96asr_v4",
        "InfiniBand HDR, 1600 Gbps (8 x 200 Gbps)",
        "https://learn.microsoft.com/azure/virtual-machines/nda100-v4-series",
    ),
    (
        "azure",
        "Standard_ND96amsr_A100_v4",
        "InfiniBand HDR, 1600 Gbps (8 x 200 Gbps)",
        "https://learn.microsoft.com/azure/virtual-machines/ndm-a100-v4-series",
    ),
    (
        "oci",
        "BM.GPU4.8",
        "RDMA cluster network, 1600 Gbps (8 x 200 Gbps)",
        "https://docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm",
    ),
    (
        "oci",
        "BM.GPU.A100-v2.8",
        "RDMA cluster network, 1600 Gbps (16 x 100 Gbps)",
        "https://docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm",
    ),
    (
        "oci",
        "BM.GPU.H100.8",
        "RDMA cluster network, 3200 Gbps (8 x 2 x 200 Gbps)",
        "https://docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm",
    ),
]


def interconnect(cloud: str, instance_type: str) -> tuple[str, str]:
    """The documented cluster fabric of an instance type and its source, or ('', '')."""
    for c, prefix, fabric, source in INTERCONNECTS:
        if c == cloud and instance_type.startswith(prefix):
            return fabric, source
    return "", ""


def offer_kind(instance_type: str, gpus: int) -> str:
    """'server' for a whole GPU node (bare metal, or 8 or more GPUs: a full HGX/OAM board),
    'instance' for a slice of one."""
    it = instance_type.lower()
    if it.startswith("bm.") or ".metal" in it or gpus >= 8:
        return "server"
    return "instance"


# The clouds SkyPilot's catalog has had a folder for (catalogs/v5 to v8): a file's folder must be
# one of them to name its cloud (a vms.csv saved in ~/Downloads is not the "downloads" cloud).
KNOWN_CLOUDS = frozenset(
    (
        "aws",
        "azure",
        "cudo",
        "daytona",
        "do",
        "fluidstack",
        "gcp",
        "hyperbolic",
        "hyperstack",
        "ibm",
        "jarvislabs",
        "lambda",
        "lium",
        "mithril",
        "nebius",
        "oci",
        "ovhcloud",
        "paperspace",
        "primeintellect",
        "runpod",
        "scaleway",
        "scp",
        "seeweb",
        "shadeform",
        "spheron",
        "vast",
        "verda",
        "yotta",
    )
)


def cloud_of(where: str) -> str | None:
    """The cloud a catalog file's path or URL names: the folder of ``.../<cloud>/vms.csv``."""
    path = urlsplit(where).path if "://" in where else where.replace("\\", "/")
    p = PurePosixPath(path)
    if p.name != "vms.csv" or p.parent.name.lower() not in KNOWN_CLOUDS:
        return None
    return p.parent.name.lower()


# ----------------------------------------------------------------------------------------
# The reader: one record -> at most one partial row; `finish` builds the offers.


def _price(rec: dict[str, str], column: str) -> float | None:
    return number(rec.get(column, ""), column, empty_ok=True)


def catalog_record(rec: dict[str, str], origin: str, as_of: str | None) -> list[dict]:
    """One row of vms.csv: [] for a row that is not a GPU offer (nor a GCP host VM), else one
    partial row for `finish`. Raises ValueError on a malformed GPU row."""
    spelling = rec["AcceleratorName"].strip()
    itype = rec["InstanceType"].strip()
    if not spelling:
        if _is_host(itype):
            return [
                {
                    "_host": True,
                    "itype": itype,
                    "region": rec["Region"].strip(),
                    "zone": rec.get("AvailabilityZone", "").strip(),
                    "price": _price(rec, "Price"),
                    "spot": _price(rec, "SpotPrice"),
                    "vcpus": number(rec["vCPUs"], "vCPUs", empty_ok=True),
                    "memory": number(rec["MemoryGiB"], "MemoryGiB", empty_ok=True),
                }
            ]
        return []
    if _NOT_GPU.match(spelling):
        return []
    region = rec["Region"].strip()
    if not region:
        raise ValueError("Region is empty")
    count = number(rec["AcceleratorCount"], "AcceleratorCount", empty_ok=False)
    if count != int(count) or count < 1:
        # Fractional GPUs (Azure's 1/8 A10 slices): not a GPU server offer.
        if 0 < count < 1:
            return []
        raise ValueError(f"AcceleratorCount {rec['AcceleratorCount'].strip()!r} must be a whole number of at least 1")
    return [
        {
            "_host": False,
            "itype": itype,
            "region": region,
            "zone": rec.get("AvailabilityZone", "").strip(),
            "gpu": spelling,
            "count": int(count),
            "price": _price(rec, "Price"),
            "spot": _price(rec, "SpotPrice"),
            "vcpus": number(rec["vCPUs"], "vCPUs", empty_ok=True),
            "memory": number(rec["MemoryGiB"], "MemoryGiB", empty_ok=True),
        }
    ]


def _listed(value: float | None) -> bool:
    return value is not None and value > 0


def instance_rows(
    *,
    source: str,
    layout: str,
    cloud: str,
    region: str,
    itype: str,
    gpu: str,
    gpus: int,
    spelling: str,
    listed_gpus: int,
    on_demand: float | None,
    spot: float | None,
    day: str,
    estimate: int,
    cite: str,
    note: str,
    vcpus,
    memory,
    **extra,
) -> list[dict]:
    """The on-demand and spot observations of one SkyPilot instance, per GPU-hour (both the
    snapshot layout and the catalog's own vms.csv write these); an empty or 0 price is kept as
    "no price listed" (priced 0)."""
    rows = []
    for kind, published in (("rent_hour", on_demand), ("spot_hour", spot)):
        priced = _listed(published)
        rows.append(
            {
                "source": source,
                "kind": kind,
                "gpu": gpu,
                "gpus": gpus,
                "market": "global",
                "provider": cloud,
                "region": region,
                "offer": itype,
                "price": published / gpus if priced else 0.0,
                "currency": "USD",
                "unit": "gpu-hour",
                "min_term_months": 0,
                "as_of": day,
                "estimate": estimate,
                "cite": cite,
                "note": note,
                "layout": layout,
                "priced": int(priced),
                "published_price": published,
                "published_unit": "instance-hour",
                "source_gpu": spelling,
                "source_gpus": listed_gpus,
                "vcpus": vcpus,
                "memory_gib": memory,
                **extra,
            }
        )
    return rows


def _lowest(values: list[float | None]) -> float | None:
    """The lowest listed price; 0 when only placeholders (0) are there; None when all empty."""
    listed = [v for v in values if _listed(v)]
    if listed:
        return min(listed)
    return 0.0 if any(v == 0 for v in values) else None


def _add(a: float | None, b: float | None) -> float | None:
    return round(a + b, 6) if _listed(a) and _listed(b) else None


def finish(
    partial: list[dict], ctx: dict, *, gpu_name: GpuNamer, count_fixes: dict[tuple[str, str], int], cite: str
) -> tuple[list[dict], list[str]]:
    """The offers of one catalog file from its partial rows, and the notes for the summary.
    `gpu_name`, `count_fixes` and `cite` come from advisor/market/layouts.py."""
    cloud = (ctx.get("cloud") or cloud_of(ctx.get("path", "")) or "").strip().lower()
    if not cloud:
        raise ValueError(
            "the file's path does not name a SkyPilot cloud (.../<cloud>/vms.csv, cloud one of "
            f"{', '.join(sorted(KNOWN_CLOUDS))}): give --cloud"
        )
    if cloud not in KNOWN_CLOUDS:  # a --cloud mistyped is refused as a path's cloud would be
        raise ValueError(f"--cloud {cloud!r} is not a SkyPilot cloud (one of {', '.join(sorted(KNOWN_CLOUDS))})")
    day = ctx.get("as_of") or dt.date.today().isoformat()  # the importer has checked --as-of
    origin = ctx.get("origin") or ctx.get("path", "")
    host_rows = [h for h in partial if h["_host"]]
    hosts = {(h["itype"], h["region"], h["zone"]): h for h in host_rows}
    n1_hosts: dict[tuple[str, int], str | None] = {}
    notes: list[str] = []
    unknown: set[str] = set()
    gpu_only: set[str] = set()
    # (region, offer) -> zone rows: each {gpu, count, price, spot, vcpus, memory, estimate, note}
    offers: dict[tuple[str, str], list[dict]] = {}
    for r in partial:
        if r["_host"]:
            continue
        z = dict(r, estimate=0, note="")
        if not r["itype"]:  # a GCP accelerator row: attach the host SkyPilot would
            n1 = r["gpu"] not in GCP_HOSTS
            if n1:
                if (r["gpu"], r["count"]) not in n1_hosts:
                    n1_hosts[r["gpu"], r["count"]] = _n1_host(host_rows, r["gpu"], r["count"])
                host = n1_hosts[r["gpu"], r["count"]]
            else:
                host = GCP_HOSTS[r["gpu"]].get(r["count"])
            h = hosts.get((host, r["region"], r["zone"])) if host else None
            if h is not None:
                name = f"{host}+{r['gpu']}x{r['count']}" if n1 else host  # an N1 VM is also sold bare
                z.update(
                    itype=name,
                    price=_add(r["price"], h["price"]),
                    spot=_add(r["spot"], h["spot"]),
                    vcpus=h["vcpus"],
                    memory=h["memory"],
                    note=f"GPU price plus the {host} host VM, as SkyPilot attaches it",
                )
            else:
                why = f"{host} not listed in this zone" if host else "no host VM for it in the file"
                z.update(
                    itype=f"gpu-only:{r['gpu']}x{r['count']}",
                    estimate=1,
                    vcpus=None,
                    memory=None,
                    note=f"GPU only: excludes the host VM ({why})",
                    why=why,
                )
        offers.setdefault((r["region"], z["itype"]), []).append(z)
    # A region where some zone prices the GPUs with their host needs no GPU-only offer.
    whole = {(region, z["gpu"], z["count"]) for (region, _), zs in offers.items() for z in zs if not z["estimate"]}
    rows: list[dict] = []
    for (region, itype), zones in sorted(offers.items()):
        if itype.startswith("gpu-only:"):
            if (region, zones[0]["gpu"], zones[0]["count"]) in whole:
                continue
            gpu_only.add(f"{zones[0]['gpu']}x{zones[0]['count']} ({min(z['why'] for z in zones)})")
        first = min(zones, key=lambda z: z["zone"])
        spelling, listed = first["gpu"], first["count"]
        gpu, note, known = gpu_name(spelling, cloud, itype)
        if not known:
            unknown.add(spelling)
        gpus = count_fixes.get((cloud, itype), listed)
        if gpus != listed:
            note = "; ".join(filter(None, [note, f"catalog lists {listed} GPUs, the machine has {gpus}"]))
        note = "; ".join(filter(None, [note, first["note"]]))
        fabric, fabric_source = interconnect(cloud, itype)
        rows.extend(
            instance_rows(
                source=f"skypilot-{cloud}",
                layout="skypilot_catalog",
                cloud=cloud,
                region=region,
                itype=itype,
                gpu=gpu,
                gpus=gpus,
                spelling=spelling,
                listed_gpus=listed,
                on_demand=_lowest([z["price"] for z in zones]),
                spot=_lowest([z["spot"] for z in zones]),
                day=day,
                estimate=first["estimate"],
                cite=f"{cite}, {origin}",
                note=note,
                vcpus=first["vcpus"],
                memory=first["memory"],
                offer_kind=offer_kind(itype, gpus),
                interconnect=fabric,
                interconnect_source=fabric_source,
            )
        )
    if unknown:
        notes.append("GPUs not in the GPU catalog, kept under SkyPilot's name: " + ", ".join(sorted(unknown)))
    if gpu_only:
        notes.append(
            "GCP accelerators priced without their host VM (SkyPilot's host is not in the file): "
            + ", ".join(sorted(gpu_only))
        )
    return rows, notes
