"""SkyPilot's published catalog (catalogs/v<N>/<cloud>/vms.csv) read as it is
(advisor/market/skypilot_catalog.py) and fetched over loopback HTTP by `gpu-advisor prices
fetch`: offers equal to what the files say, an unchanged catalog costs nothing (304), a changed
one gives exactly its changes in the digest, a failed cloud is named without credentials and
keeps its prices. The files and their provenance: tests/data/skypilot_catalog/README.md."""

from __future__ import annotations

import contextlib
import csv
import hashlib
import http.server
import json
import shutil
import threading
from contextlib import closing
from pathlib import Path
from typing import ClassVar

import pytest

from advisor.market import store

DATA = Path(__file__).resolve().parent / "data" / "skypilot_catalog"
LAMBDA_V5 = DATA / "v5" / "lambda" / "vms.csv"
LAMBDA_V8 = DATA / "v8" / "lambda" / "vms.csv"
AWS_FEB = DATA / "v5" / "aws-2024-02-05" / "aws" / "vms.csv"
AWS_APR = DATA / "v5" / "aws-2024-04-23" / "aws" / "vms.csv"
GCP = DATA / "v5" / "gcp" / "vms.csv"
GCP_V8 = DATA / "v8" / "gcp" / "vms.csv"
# Whole files, byte for byte as published (three clouds, schema versions v5, v6 and v8).
COMPLETE = DATA / "complete"


def expected_offers(path: Path, cloud: str) -> dict[tuple, tuple]:
    """(cloud, region, instance type) -> (GPU, count, lowest on-demand, lowest spot) of the GPU
    rows of a file whose rows are whole instances (not GCP's accelerator rows), read plainly."""
    out: dict[tuple, list] = {}
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            if not r["AcceleratorName"]:
                continue
            o = out.setdefault(
                (cloud, r["Region"], r["InstanceType"]),
                [r["AcceleratorName"], int(float(r["AcceleratorCount"])), [], []],
            )
            o[2].append(float(r["Price"] or 0))
            o[3].append(float(r.get("SpotPrice") or 0))
    return {
        k: (g, n, min((p for p in od if p > 0), default=None), min((p for p in sp if p > 0), default=None))
        for k, (g, n, od, sp) in out.items()
    }


def stored_offers(db_path: str, source: str | None = None) -> dict[tuple, tuple]:
    """The same view of what the store holds for the catalog layout (newest date of each source)."""
    with closing(store.open_store(db_path)) as db:
        rows = [
            r
            for r in store.newest_offers(db, None)
            if r["layout"] == "skypilot_catalog" and (source is None or r["source"] == source)
        ]
    out: dict[tuple, list] = {}
    for r in rows:
        o = out.setdefault((r["provider"], r["region"], r["offer"]), [r["source_gpu"], r["source_gpus"], None, None])
        o[2 if r["kind"] == "rent_hour" else 3] = r["published_price"] if r["priced"] else None
    return {k: tuple(v) for k, v in out.items()}


def table_state(db_path: str) -> tuple[int, str]:
    with closing(store.open_store(db_path)) as db:
        rows = list(db["observations"].rows_where(order_by="id"))
    return len(rows), hashlib.sha256(repr(rows).encode()).hexdigest()


# ----------------------------------------------------------------------------------------
# Reading files


@pytest.mark.parametrize(
    "path,cloud",
    [
        (LAMBDA_V5, "lambda"),
        (LAMBDA_V8, "lambda"),
        (AWS_FEB, "aws"),
        (AWS_APR, "aws"),
        (COMPLETE / "v5" / "lambda" / "vms.csv", "lambda"),
        (COMPLETE / "v6" / "fluidstack" / "vms.csv", "fluidstack"),
        (COMPLETE / "v8" / "nebius" / "vms.csv", "nebius"),
    ],
)
def test_offers_read_equal_what_the_file_says(cli, tmp_path, path, cloud):
    done = cli("prices", "import", path, "--as-of", "2024-04-23")
    assert done.returncode == 0, done.stderr
    assert "skypilot_catalog" in done.stderr
    assert stored_offers(str(tmp_path / "test.db")) == expected_offers(path, cloud)


def test_gcp_v8_accelerators_get_their_host_zone_by_zone(cli, tmp_path):
    """Real lines of GCP's v8 catalog: accelerators and host VMs on rows of their own."""
    done = cli("prices", "import", GCP_V8, "--as-of", "2025-06-01")
    assert done.returncode == 0, done.stderr
    assert stored_offers(str(tmp_path / "test.db")) == {
        # a2-ultragpu-8g 8.79698 + 8 x A100-80GB 14.76958; spot 4.39824 + 15.712 (spot above on-demand, as published)
        ("gcp", "us-central1", "a2-ultragpu-8g"): ("A100-80GB", 8, 23.56656, 20.11024),
        # a3-highgpu-1g 1.18251 + H100 4.20076; spot 0.36117 + 2.9926
        ("gcp", "us-central1", "a3-highgpu-1g"): ("H100", 1, 5.38327, 3.35377),
        # the excerpt leaves out the a3-highgpu-8g host rows: the GPUs alone, an estimate, said so
        ("gcp", "us-central1", "gpu-only:H100x8"): ("H100", 8, 33.60609, 23.9408),
    }
    assert "H100x8 (a3-highgpu-8g not listed in this zone)" in done.stderr
    assert "tpu" not in done.stderr.lower()


def test_gcp_accelerators_are_priced_with_the_host_skypilot_attaches(cli, tmp_path):
    done = cli("prices", "import", GCP, "--as-of", "2024-04-23", "--json")
    assert done.returncode == 0, done.stderr
    got = stored_offers(str(tmp_path / "test.db"))
    assert got == {
        # 0.73948 (a2-highgpu-1g) + 2.93391 (A100): SOURCE.md's worked example.
        ("gcp", "us-central1", "a2-highgpu-1g"): ("A100", 1, 3.67339, None),
        ("gcp", "us-central1", "a3-highgpu-8g"): ("H100", 8, 87.83246, 61.94815),
        # No a2-highgpu-2g row in the file, and V100 attaches to any N1 VM: GPU alone, said so.
        ("gcp", "us-central1", "gpu-only:A100x2"): ("A100", 2, 5.86782, None),
        ("gcp", "us-central1", "gpu-only:V100x1"): ("V100", 1, 2.48, 0.9424),
    }
    notes = json.loads(done.stdout)[0]["notes"]
    assert any(
        "A100x2 (a2-highgpu-2g not listed in this zone)" in n and "V100x1 (no host VM for it in the file)" in n
        for n in notes
    )
    with closing(store.open_store(str(tmp_path / "test.db"))) as db:
        a2 = next(db["observations"].rows_where("offer = 'a2-highgpu-1g' AND kind = 'rent_hour'"))
        only = next(db["observations"].rows_where("offer = 'gpu-only:V100x1' AND kind = 'rent_hour'"))
        a3 = next(db["observations"].rows_where("offer = 'a3-highgpu-8g' AND kind = 'rent_hour'"))
    assert (a2["vcpus"], a2["memory_gib"], a2["estimate"], a2["gpu"]) == (12.0, 85.0, 0, "A100-SXM4-40GB")
    assert only["estimate"] == 1 and "excludes the host VM" in only["note"]
    assert a3["interconnect"].startswith("GPUDirect-TCPX") and a3["interconnect_source"].startswith("https://")
    assert a3["offer_kind"] == "server" and a2["offer_kind"] == "instance"


def test_gcp_n1_gpus_get_the_n1_vm_skypilot_picks(cli, tmp_path):
    """V100 attaches to an N1 VM: SkyPilot takes the cheapest n1-standard/-highmem/-highcpu with
    8 vCPUs and 32 GiB for one V100. The N1 rows here are made up for the test (not catalog data)."""
    folder = tmp_path / "gcp"
    folder.mkdir()
    lines = GCP.read_text().splitlines() + [
        "n1-standard-8,,,8.0,30.0,,0.38,0.08,us-central1,us-central1-a",  # too little memory
        "n1-highmem-8,,,8.0,52.0,,0.47,0.1,us-central1,us-central1-a",  # the one
        "n1-standard-16,,,16.0,60.0,,0.76,0.16,us-central1,us-central1-a",  # dearer
        "n1-highmem-8,,,8.0,52.0,,0.52,0.11,us-east1,us-east1-b",  # a zone without a V100 row
    ]
    (folder / "vms.csv").write_text("\n".join(lines) + "\n")
    done = cli("prices", "import", folder / "vms.csv", "--as-of", "2024-04-23")
    assert done.returncode == 0, done.stderr
    got = stored_offers(str(tmp_path / "test.db"))
    assert got[("gcp", "us-central1", "n1-highmem-8+V100x1")] == ("V100", 1, 2.95, 1.0424)
    assert ("gcp", "us-central1", "gpu-only:V100x1") not in got
    assert not any(k[2] in ("n1-highmem-8", "n1-standard-8") for k in got)  # CPU machines are not offers
    assert "V100x1" not in done.stderr


def test_a_gpu_priced_whole_in_one_zone_needs_no_gpu_only_offer(cli, tmp_path):
    """H100 x8 in us-central1-a with its a3-highgpu-8g host, in -b without: one offer, whole.
    The host row is made up for this test (the excerpt has none)."""
    folder = tmp_path / "gcp"
    folder.mkdir()
    lines = GCP_V8.read_text().splitlines() + ["a3-highgpu-8g,208.0,1872.0,,,,us-central1,us-central1-a,9.46,2.89"]
    (folder / "vms.csv").write_text("\n".join(lines) + "\n")
    done = cli("prices", "import", folder / "vms.csv", "--as-of", "2025-06-01")
    got = stored_offers(str(tmp_path / "test.db"))
    assert got[("gcp", "us-central1", "a3-highgpu-8g")] == ("H100", 8, 43.06609, 26.8308)
    assert ("gcp", "us-central1", "gpu-only:H100x8") not in got
    assert "H100x8" not in done.stderr


def test_each_offer_keeps_what_the_catalog_says(cli, tmp_path):
    assert cli("prices", "import", AWS_APR, "--as-of", "2024-04-23").returncode == 0
    with closing(store.open_store(str(tmp_path / "test.db"))) as db:
        p5 = next(
            db["observations"].rows_where("offer = 'p5.48xlarge' AND region = 'us-east-1' AND kind = 'rent_hour'")
        )
        g5 = next(db["observations"].rows_where("offer = 'g5.xlarge' AND region = 'us-east-1' AND kind = 'rent_hour'"))
    assert (p5["gpu"], p5["gpus"], p5["vcpus"], p5["memory_gib"]) == ("H100-SXM5-80GB", 8, 192.0, 2048.0)
    assert p5["price"] == pytest.approx(98.32 / 8) and p5["published_price"] == 98.32
    assert (p5["offer_kind"], p5["interconnect"]) == ("server", "EFA, 3200 Gbps")
    assert p5["interconnect_source"] == "https://aws.amazon.com/ec2/instance-types/p5/"
    assert (g5["offer_kind"], g5["interconnect"], g5["interconnect_source"]) == ("instance", "", "")
    assert p5["source"] == "skypilot-aws" and p5["as_of"] == "2024-04-23"


def test_unknown_gpus_are_kept_and_named(cli, tmp_path):
    done = cli("prices", "import", LAMBDA_V8, "--as-of", "2024-04-23")
    assert done.returncode == 0
    assert "GH200" in done.stderr and "not in the GPU catalog" in done.stderr
    assert ("lambda", "us-east-1", "gpu_1x_gh200") in stored_offers(str(tmp_path / "test.db"))


def test_any_column_order_and_zones_collapse(cli, tmp_path):
    with open(AWS_APR, newline="") as fh:
        rows = list(csv.DictReader(fh))
    header = list(reversed(list(rows[0])))
    # A second zone of us-east-1 for p5: dearer on demand, cheaper spot (made up for this test).
    extra = dict(rows[3], AvailabilityZone="us-east-1b", Price="99.0", SpotPrice="50.5")
    folder = tmp_path / "mirror" / "aws"
    folder.mkdir(parents=True)
    with open(folder / "vms.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, header)
        w.writeheader()
        w.writerows([*rows, extra])
    assert rows[3]["InstanceType"] == "p5.48xlarge" and rows[3]["Region"] == "us-east-1"
    assert cli("prices", "import", folder / "vms.csv", "--as-of", "2024-04-23").returncode == 0
    want = expected_offers(AWS_APR, "aws")
    want[("aws", "us-east-1", "p5.48xlarge")] = ("H100", 8, 98.32, 50.5)
    assert stored_offers(str(tmp_path / "test.db")) == want


def test_empty_or_zero_price_means_no_price_listed(cli, tmp_path):
    lines = LAMBDA_V5.read_text().splitlines()
    lines[3] = lines[3].replace(",4.4,", ",0,", 1)  # gpu_8x_v100 us-east-1
    lines[4] = lines[4].replace(",4.4,", ",,", 1)  # gpu_8x_v100 us-west-1
    path = tmp_path / "lambda" / "vms.csv"
    path.parent.mkdir()
    path.write_text("\n".join(lines) + "\n")
    assert cli("prices", "import", path, "--as-of", "2024-04-23").returncode == 0
    with closing(store.open_store(str(tmp_path / "test.db"))) as db:
        v100 = {r["region"]: r for r in db["observations"].rows_where("offer = 'gpu_8x_v100' AND kind = 'rent_hour'")}
    assert (v100["us-east-1"]["priced"], v100["us-east-1"]["published_price"], v100["us-east-1"]["price"]) == (
        0,
        0.0,
        0.0,
    )
    assert (v100["us-west-1"]["priced"], v100["us-west-1"]["published_price"]) == (0, None)


def test_the_cloud_comes_from_the_path_or_cloud(cli, tmp_path):
    plain = tmp_path / "catalog.csv"
    shutil.copy(LAMBDA_V5, plain)
    done = cli("prices", "import", plain, "--as-of", "2024-04-23")
    assert done.returncode == 2 and "--cloud" in done.stderr and "nothing of this file was written" in done.stderr
    downloads = tmp_path / "Downloads" / "vms.csv"
    downloads.parent.mkdir()
    shutil.copy(LAMBDA_V5, downloads)
    done = cli("prices", "import", downloads, "--as-of", "2024-04-23")
    assert done.returncode == 2 and "does not name a SkyPilot cloud" in done.stderr
    # a --cloud mistyped is refused as a path's cloud is (operator probe: `--cloud nosuch` was stored)
    done = cli("prices", "import", plain, "--as-of", "2024-04-23", "--cloud", "lamda")
    assert done.returncode == 2 and "'lamda' is not a SkyPilot cloud" in done.stderr
    assert cli("prices", "import", plain, "--as-of", "2024-04-23", "--cloud", "lambda").returncode == 0
    assert stored_offers(str(tmp_path / "test.db")) == expected_offers(LAMBDA_V5, "lambda")


def test_a_malformed_row_is_refused_with_file_and_line(cli, tmp_path):
    before = table_state(str(tmp_path / "test.db"))
    lines = AWS_APR.read_text().splitlines()
    lines[5] = lines[5].replace(",A10G,1,", ",A10G,one,", 1)
    path = tmp_path / "aws" / "vms.csv"
    path.parent.mkdir()
    path.write_text("\n".join(lines) + "\n")
    done = cli("prices", "import", path, "--as-of", "2024-04-23")
    assert done.returncode == 2
    assert f"{path}, line 6: AcceleratorCount 'one' is not a number" in done.stderr
    assert table_state(str(tmp_path / "test.db")) == before


# ----------------------------------------------------------------------------------------
# Fetching over HTTP


class CatalogHandler(http.server.BaseHTTPRequestHandler):
    files: ClassVar[dict[str, bytes]] = {}
    log: ClassVar[list[tuple[str, int]]] = []

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        body = self.files.get(path)
        if body is None or body == b"500":
            code = 404 if body is None else 500
            self.log.append((path, code))  # before answering: the client reads the log next
            self.send_response(code)
            self.end_headers()
            return
        etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        if self.headers.get("If-None-Match") == etag:
            self.log.append((path, 304))
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        self.log.append((path, 200))
        self.send_response(200)
        self.send_header("Content-Type", "text/csv")
        self.send_header("ETag", etag)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def catalog_serving():
    """A catalog server on loopback: its host:port, the files of `serve`, the requests in `log`."""
    CatalogHandler.files, CatalogHandler.log = {}, []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), CatalogHandler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def catalog_server():
    with catalog_serving() as host:
        yield host


def serve(aws: Path, gcp: Path | None, lam: Path) -> None:
    """The three clouds' files at the URLs the word `skypilot` stands for (on loopback)."""
    CatalogHandler.files = {
        "/catalogs/v8/aws/vms.csv": aws.read_bytes(),
        "/catalogs/v8/lambda/vms.csv": lam.read_bytes(),
    }
    if gcp is not None:
        CatalogHandler.files["/catalogs/v8/gcp/vms.csv"] = gcp.read_bytes()


def feeds_env(host: str) -> dict[str, str]:
    return {
        "GPU_ADVISOR_PRICE_FEEDS": "skypilot",
        "GPU_ADVISOR_SKYPILOT_CATALOG": f"http://{host}/catalogs/v8/{{cloud}}/vms.csv",
        "GPU_ADVISOR_SKYPILOT_CLOUDS": "aws gcp lambda",
    }


def expected_changes(old: dict[tuple, tuple], new: dict[tuple, tuple]) -> tuple[set, set, set]:
    changes = set()
    for key in old.keys() & new.keys():
        for i, kind in ((2, "on_demand"), (3, "spot")):
            if old[key][i] != new[key][i]:
                changes.add((*key, kind, old[key][i], new[key][i]))
    return changes, set(new.keys() - old.keys()), set(old.keys() - new.keys())


def digest_sets(digest: dict) -> tuple[set, set, set]:
    return (
        {(c["cloud"], c["region"], c["instance_type"], c["kind"], c["old"], c["new"]) for c in digest["changes"]},
        {(o["cloud"], o["region"], o["instance_type"]) for o in digest["added"]},
        {(o["cloud"], o["region"], o["instance_type"]) for o in digest["removed"]},
    )


def test_fetch_reads_writes_once_and_digests_exactly_the_changes(cli, tmp_path, catalog_server):
    db_path, env = str(tmp_path / "test.db"), feeds_env(catalog_server)
    serve(AWS_FEB, GCP_V8, LAMBDA_V5)
    first = cli("prices", "fetch", "--as-of", "2024-02-05", "--json", env=env)
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout)
    assert [f["status"] for f in out["feeds"]] == ["changed", "changed", "changed"]
    assert out["problems"] == [] and sorted(out["digest"]["first_snapshot"]) == [
        "skypilot-aws",
        "skypilot-gcp",
        "skypilot-lambda",
    ]
    assert stored_offers(db_path, "skypilot-aws") == expected_offers(AWS_FEB, "aws")
    assert stored_offers(db_path, "skypilot-lambda") == expected_offers(LAMBDA_V5, "lambda")
    assert len(stored_offers(db_path, "skypilot-gcp")) == 3

    # The same catalog again, a day later: 304 for each file, nothing written, nothing to report.
    before = table_state(db_path)
    again = cli("prices", "fetch", "--as-of", "2024-02-06", "--json", env=env)
    out = json.loads(again.stdout)
    assert [f["status"] for f in out["feeds"]] == ["unchanged"] * 3
    assert [code for _, code in CatalogHandler.log[-3:]] == [304, 304, 304]
    assert table_state(db_path) == before
    assert digest_sets(out["digest"]) == (set(), set(), set()) and out["digest"]["first_snapshot"] == []

    # AWS and Lambda publish new catalogs; GCP does not: the digest holds exactly their changes.
    serve(AWS_APR, GCP_V8, LAMBDA_V8)
    changed = cli("prices", "fetch", "--as-of", "2024-04-23", "--json", env=env)
    out = json.loads(changed.stdout)
    assert [f["status"] for f in out["feeds"]] == ["changed", "unchanged", "changed"]
    aws = expected_changes(expected_offers(AWS_FEB, "aws"), expected_offers(AWS_APR, "aws"))
    lam = expected_changes(expected_offers(LAMBDA_V5, "lambda"), expected_offers(LAMBDA_V8, "lambda"))
    want = tuple(a | b for a, b in zip(aws, lam))
    assert digest_sets(out["digest"]) == want
    assert len(want[0]) == 10 and len(want[1]) == 6 and len(want[2]) == 4  # 8 AWS spot moves, 2 Lambda V100
    assert out["digest"]["previous"] == {"skypilot-aws": "2024-02-05", "skypilot-lambda": "2024-02-05"}
    # GCP's prices are still current (its catalog did not change).
    assert len(stored_offers(db_path, "skypilot-gcp")) == 3

    text = cli("digest", "--date", "2024-04-23")
    assert text.returncode == 0 and "H100" in text.stdout


def test_a_second_fetch_on_the_same_day_replaces_that_day_s_list(cli, tmp_path, catalog_server):
    db_path, env = str(tmp_path / "test.db"), feeds_env(catalog_server)
    env["GPU_ADVISOR_SKYPILOT_CLOUDS"] = "lambda"
    serve(AWS_FEB, None, LAMBDA_V5)
    assert cli("prices", "fetch", "--as-of", "2024-02-05", env=env).returncode == 0
    assert cli("prices", "fetch", "--as-of", "2024-04-23", env=env).returncode == 0  # 304: nothing that day yet
    serve(AWS_FEB, None, LAMBDA_V8)
    out = json.loads(cli("prices", "fetch", "--as-of", "2024-04-23", "--json", env=env).stdout)
    assert out["feeds"][0]["status"] == "changed"
    serve(AWS_FEB, None, LAMBDA_V5)  # the catalog goes back the same day
    out = json.loads(cli("prices", "fetch", "--as-of", "2024-04-23", "--json", env=env).stdout)
    assert out["feeds"][0]["status"] == "changed"
    assert stored_offers(db_path, "skypilot-lambda") == expected_offers(LAMBDA_V5, "lambda")
    assert digest_sets(out["digest"]) == (set(), set(), set())


def test_a_failed_cloud_is_named_without_credentials_and_keeps_its_prices(cli, tmp_path, catalog_server):
    db_path = str(tmp_path / "test.db")
    env = feeds_env(f"reader:s3cret@{catalog_server}")
    env["GPU_ADVISOR_SKYPILOT_CATALOG"] += "?token=abc123"
    serve(AWS_FEB, GCP_V8, LAMBDA_V5)
    assert cli("prices", "fetch", "--as-of", "2024-02-05", env=env).returncode == 0
    gcp_before = stored_offers(db_path, "skypilot-gcp")

    serve(AWS_APR, None, LAMBDA_V5)  # GCP's file is gone today
    CatalogHandler.files["/catalogs/v8/lambda/vms.csv"] = b"500"  # and Lambda's server fails
    done = cli("prices", "fetch", "--as-of", "2024-04-23", env=env)
    assert done.returncode == 0
    assert "Feeds that failed" in done.stdout
    assert f"! price feed http://{catalog_server}/catalogs/v8/gcp/vms.csv answered HTTP 404" in done.stdout
    assert "HTTP 404" in done.stdout and "HTTP 500" in done.stdout
    for secret in ("s3cret", "reader", "token", "abc123"):
        assert secret not in done.stdout + done.stderr
    with closing(store.open_store(db_path)) as db:
        assert "s3cret" not in repr(list(db["feed_state"].rows))
    assert stored_offers(db_path, "skypilot-gcp") == gcp_before
    assert stored_offers(db_path, "skypilot-lambda") == expected_offers(LAMBDA_V5, "lambda")
    assert stored_offers(db_path, "skypilot-aws") == expected_offers(AWS_APR, "aws")


def test_feed_json_is_parsed_within_bounds(cli, catalog_server):
    CatalogHandler.files = {
        "/wide.json": json.dumps([{f"k{i}": i for i in range(1000)}]).encode(),
        "/deep.json": b"[" * 100000 + b"]" * 100000,
    }
    done = cli("prices", "fetch", f"http://{catalog_server}/wide.json", f"http://{catalog_server}/deep.json")
    assert done.returncode == 1  # every feed failed
    assert "more than 200 different keys" in done.stderr
    assert "deep.json: failed: price feed" in done.stderr and "Traceback" not in done.stderr


def test_fetch_without_feeds_says_how_to_set_them(cli):
    done = cli("prices", "fetch", env={"GPU_ADVISOR_PRICE_FEEDS": ""})
    assert done.returncode == 2 and "GPU_ADVISOR_PRICE_FEEDS" in done.stderr and "skypilot" in done.stderr


def test_the_feed_word_stands_for_every_gpu_cloud(monkeypatch):
    from advisor.market import imports

    monkeypatch.delenv("GPU_ADVISOR_SKYPILOT_CATALOG", raising=False)
    monkeypatch.delenv("GPU_ADVISOR_SKYPILOT_CLOUDS", raising=False)
    urls = imports.feed_urls(["skypilot", "https://example.com/prices.csv"])
    assert urls[-1] == "https://example.com/prices.csv"
    assert "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8/aws/vms.csv" in urls
    assert len(urls) == len(imports.SKYPILOT_GPU_CLOUDS) + 1
    assert imports.redact("https://u:p@host.example:8443/a/vms.csv?sig=x#y") == "https://host.example:8443/a/vms.csv"


def test_the_clock_fetches_the_catalog_dated_in_the_digest_time_zone(tmp_path, monkeypatch, catalog_server):
    import datetime as dt
    import time

    from bot import digests

    db_path = str(tmp_path / "clock.db")
    monkeypatch.setenv("GPU_ADVISOR_DB", db_path)
    for name, value in feeds_env(catalog_server).items():
        monkeypatch.setenv(name, value)
    serve(AWS_FEB, GCP_V8, LAMBDA_V5)
    stop = threading.Event()
    thread = threading.Thread(
        target=digests.clock, kwargs={"client_for": lambda workspace: None, "interval": 0.05, "stop": stop}
    )
    thread.start()

    def remembered() -> int:  # feeds written and remembered by the clock
        with closing(store.open_store(db_path)) as db:
            return db["feed_state"].count

    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and remembered() < 3:
            time.sleep(0.05)
    finally:
        stop.set()
        thread.join(10)
    today = dt.datetime.now(digests.TZ).date().isoformat()
    with closing(store.open_store(db_path)) as db:
        dates = {r["as_of"] for r in db["observations"].rows_where("layout = 'skypilot_catalog'", select="as_of")}
    assert dates == {today}
    assert stored_offers(db_path, "skypilot-aws") == expected_offers(AWS_FEB, "aws")
