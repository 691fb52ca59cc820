"""The price-change digest (advisor/digest.py) on the real SkyPilot snapshots.

Expected changes are computed here from the CSV files with the csv module alone, following
CONTRACT section 1: an empty cell or a 0 placeholder is "no price" (null); a price that
appears for an offer listed the day before is a change with old null and pct null; offers
listed on one day only are added/removed; pct = round((new - old) / old * 100, 4).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from advisor.market.digest import cheapest_now, compute_digest, headline
from advisor.market.imports import import_file
from advisor.market.store import latest_snapshot_date, open_store, snapshot_dates

SNAPSHOTS = Path(__file__).resolve().parent / "data" / "skypilot"
FILES = sorted(SNAPSHOTS.glob("*.csv"))
PAIRS = [
    ("2023-02-21", "2023-02-22"),
    ("2023-05-11", "2023-05-12"),
    ("2023-06-14", "2023-06-15"),
    ("2024-02-04", "2024-02-05"),
]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    store = open_store(str(tmp_path_factory.mktemp("digest") / "prices.db"))
    for path in FILES:
        import_file(store, path)
    yield store
    store.conn.close()


# ----------------------------------------------------------------------------------------
# The independent expectation: plain csv, no project code


def _price(cell: str) -> float | None:
    if cell.strip() == "":
        return None
    value = float(cell)
    return None if value == 0 else value


def _load(day: str) -> dict[tuple, dict]:
    with open(SNAPSHOTS / f"{day}.csv", newline="") as fh:
        return {(r["cloud"], r["region"], r["instance_type"]): r for r in csv.DictReader(fh)}


def expected(prev_day: str, day: str):
    prev, cur = _load(prev_day), _load(day)
    changes = []
    for key in sorted(cur.keys() & prev.keys()):
        for kind, col in (("on_demand", "price_per_hour_usd"), ("spot", "spot_price_per_hour_usd")):
            old, new = _price(prev[key][col]), _price(cur[key][col])
            if old != new:
                pct = None if old is None or new is None else round((new - old) / old * 100, 4)
                r = cur[key]
                changes.append(("skypilot", *key, r["gpu"], int(r["gpu_count"]), kind, old, new, pct))

    def offer(r):
        return ("skypilot", r["cloud"], r["region"], r["instance_type"], r["gpu"], int(r["gpu_count"]))

    added = sorted(offer(cur[k]) for k in cur.keys() - prev.keys())
    removed = sorted(offer(prev[k]) for k in prev.keys() - cur.keys())
    return sorted(changes, key=repr), added, removed


def as_tuples(digest_json: dict):
    changes = sorted(
        (
            (
                c["source"],
                c["cloud"],
                c["region"],
                c["instance_type"],
                c["gpu"],
                c["gpu_count"],
                c["kind"],
                c["old"],
                c["new"],
                c["pct"],
            )
            for c in digest_json["changes"]
        ),
        key=repr,
    )
    added = sorted(
        (a["source"], a["cloud"], a["region"], a["instance_type"], a["gpu"], a["gpu_count"])
        for a in digest_json["added"]
    )
    removed = sorted(
        (a["source"], a["cloud"], a["region"], a["instance_type"], a["gpu"], a["gpu_count"])
        for a in digest_json["removed"]
    )
    return changes, added, removed


@pytest.mark.parametrize("prev_day,day", PAIRS)
def test_digest_matches_an_independent_diff(db, prev_day, day):
    got = compute_digest(db, day).to_json()
    json.dumps(got)  # serialisable as is
    assert got["date"] == day
    assert got["previous"] == {"skypilot": prev_day}
    exp_changes, exp_added, exp_removed = expected(prev_day, day)
    changes, added, removed = as_tuples(got)
    assert len(changes) == len(exp_changes)
    assert changes == exp_changes
    assert added == exp_added
    assert removed == exp_removed


def test_digest_json_has_the_contract_keys(db):
    got = compute_digest(db, "2023-02-22").to_json()
    assert {"date", "previous", "changes", "added", "removed"} <= set(got)
    assert set(got["changes"][0]) >= {
        "source",
        "cloud",
        "region",
        "instance_type",
        "gpu",
        "gpu_count",
        "kind",
        "old",
        "new",
        "pct",
    }
    assert set(got["removed"][0]) >= {"source", "cloud", "region", "instance_type", "gpu", "gpu_count"}
    assert {c["kind"] for c in got["changes"]} <= {"on_demand", "spot"}


def test_every_date_has_a_digest(db):
    dates = [p.stem for p in FILES]
    assert snapshot_dates(db, "skypilot") == dates
    assert latest_snapshot_date(db) == "2024-04-23"
    first = compute_digest(db, dates[0])
    assert first.previous == {} and first.first_snapshot == ["skypilot"] and not first.changes
    for prev_day, day in zip(dates, dates[1:]):
        d = compute_digest(db, day)
        assert d.previous == {"skypilot": prev_day}
        exp_changes, exp_added, exp_removed = expected(prev_day, day)
        assert (len(d.changes), len(d.added), len(d.removed)) == (len(exp_changes), len(exp_added), len(exp_removed))
    quiet = compute_digest(db, "2030-01-01")
    assert quiet.previous == {} and not quiet.changes and not quiet.added
    with pytest.raises(ValueError):
        compute_digest(db, "yesterday")


# ----------------------------------------------------------------------------------------
# The known events of SOURCE.md


def _lambda_h100_pcie(d, kind="on_demand"):
    return [c for c in d.changes if c.cloud == "lambda" and c.instance_type == "gpu_1x_h100_pcie" and c.kind == kind]


def test_lambda_h100_pcie_price_cut_and_rise(db):
    cut = _lambda_h100_pcie(compute_digest(db, "2023-06-15"))
    regions = {k[1] for k in _load("2023-06-15") if k[0] == "lambda" and k[2] == "gpu_1x_h100_pcie"}
    assert {c.region for c in cut} == regions and len(regions) > 1
    assert all((c.old, c.new, c.gpu, c.gpu_count, c.gpu_name) == (2.4, 1.99, "H100", 1, "H100-PCIe-80GB") for c in cut)
    assert all(c.pct == -17.0833 for c in cut)
    rise = _lambda_h100_pcie(compute_digest(db, "2024-02-05"))
    assert rise and all((c.old, c.new) == (1.99, 2.49) and c.pct == 25.1256 for c in rise)


def test_instance_type_withdrawn_on_2023_02_22(db):
    d = compute_digest(db, "2023-02-22")
    assert [(o.cloud, o.region, o.instance_type, o.gpu, o.gpu_count) for o in d.removed] == [
        ("aws", "us-east-1", "p4de.24xlarge", "A100-80GB", 8),
        ("aws", "us-west-2", "p4de.24xlarge", "A100-80GB", 8),
    ]
    assert not d.added
    assert not [c for c in d.changes if c.kind == "on_demand"]


def test_gcp_list_price_change_on_2023_05_12(db):
    d = compute_digest(db, "2023-05-12")
    gcp = [c for c in d.changes if c.cloud == "gcp" and c.kind == "on_demand"]
    assert len(gcp) == 33
    a2 = next(c for c in gcp if c.region == "us-central1" and c.instance_type == "a2-ultragpu-1g")
    assert (a2.old, a2.new, a2.pct) == (5.0688, 5.0277, -0.8108)
    assert all(c.cloud in ("aws", "gcp") for c in d.changes)


# ----------------------------------------------------------------------------------------
# Offers listed without a price, and several sources (small synthetic files)

HEADER = "date,cloud,region,instance_type,gpu,gpu_count,vcpus,memory_gib,price_per_hour_usd,spot_price_per_hour_usd"


def _write(tmp_path, name, day, rows):
    path = tmp_path / name
    path.write_text("\n".join([HEADER] + [f"{day},{r}" for r in rows]) + "\n")
    return path


def test_newly_published_price_is_a_change_not_an_addition(tmp_path):
    db = open_store(str(tmp_path / "p.db"))
    # Synthetic offers (made-up clouds and prices) covering each case of the contract.
    import_file(
        db,
        _write(
            tmp_path,
            "d1.csv",
            "2025-01-01",
            [
                "testcloud,r1,late-price,H100,8,96,1000,,20",  # listed with spot only
                "testcloud,r1,placeholder,H100,8,96,1000,0,0",  # 0 = unknown
                "testcloud,r1,goes-away,A100,8,96,1000,10,",
                "testcloud,r1,price-vanishes,L4,1,8,32,0.8,0.3",
                "testcloud,r1,steady,L4,1,8,32,0.8,",
            ],
        ),
    )
    import_file(
        db,
        _write(
            tmp_path,
            "d2.csv",
            "2025-01-02",
            [
                "testcloud,r1,late-price,H100,8,96,1000,32,20",
                "testcloud,r1,placeholder,H100,8,96,1000,30,0",
                "testcloud,r1,price-vanishes,L4,1,8,32,0.8,",
                "testcloud,r1,steady,L4,1,8,32,0.8,",
                "testcloud,r2,brand-new,A100,8,96,1000,11,",
            ],
        ),
    )
    d = compute_digest(db, "2025-01-02").to_json()
    changes = {(c["instance_type"], c["kind"]): (c["old"], c["new"], c["pct"]) for c in d["changes"]}
    assert changes == {
        ("late-price", "on_demand"): (None, 32.0, None),
        ("placeholder", "on_demand"): (None, 30.0, None),
        ("price-vanishes", "spot"): (0.3, None, None),
    }
    assert [a["instance_type"] for a in d["added"]] == ["brand-new"]
    assert [r["instance_type"] for r in d["removed"]] == ["goes-away"]
    db.conn.close()


def test_each_source_is_compared_with_its_own_previous_snapshot(tmp_path):
    db = open_store(str(tmp_path / "p.db"))
    import_file(db, SNAPSHOTS / "2023-06-14.csv")
    import_file(db, SNAPSHOTS / "2023-06-15.csv")
    import_file(db, SNAPSHOTS / "2023-02-22.csv", source="mirror", as_of=None)
    import_file(
        db, _write(tmp_path, "m.csv", "2023-06-15", ["aws,us-east-1,p4d.24xlarge,A100,8,96,1152,40,"]), source="mirror"
    )
    import_file(db, Path(__file__).resolve().parent.parent / "data" / "quotes-example.csv")  # not a snapshot
    d = compute_digest(db, "2023-06-15")
    assert d.previous == {"mirror": "2023-02-22", "skypilot": "2023-06-14"}
    mirror = [c for c in d.changes if c.source == "mirror"]
    assert len(mirror) == 2  # p4d.24xlarge us-east-1: new on-demand price, spot gone
    assert len([r for r in d.removed if r.source == "mirror"]) == len(_load("2023-02-22")) - 1
    assert compute_digest(db, "2026-11-20").previous == {}
    db.conn.close()


# ----------------------------------------------------------------------------------------
# What the message shows


def test_headline_puts_on_demand_changes_first(db):
    h = headline(compute_digest(db, "2023-06-15"))
    first = h.groups[0]
    assert first.gpu_name == "H100-PCIe-80GB" and first.rank == 0
    move = first.on_demand[0]
    assert (move.cloud, move.instance_type, move.old, move.new) == ("lambda", "gpu_1x_h100_pcie", 2.4, 1.99)
    assert len(move.regions) == len(_lambda_h100_pcie(compute_digest(db, "2023-06-15")))
    ranks = [g.rank for g in h.groups]
    assert ranks == sorted(ranks)
    for g in h.groups:
        assert all(abs(m.pct) >= 5 for m in g.spot if m.pct is not None)
        assert all(m.pct is None or abs(m.pct) >= 0.1 for m in g.on_demand)


def test_headline_leaves_out_tiny_changes(db):
    d = compute_digest(db, "2023-05-12")
    h = headline(d)
    shown = sum(len(m.regions) for g in h.groups for m in g.on_demand + g.spot)
    small = [c for c in d.changes if c.pct is not None and abs(c.pct) < (0.1 if c.kind == "on_demand" else 5.0)]
    assert small and h.left_out == len(small)
    assert shown + h.left_out == len(d.changes)
    a2_40 = next(g for g in h.groups if g.gpu_name == "A100-SXM4-40GB")
    assert not a2_40.on_demand  # GCP's -0.0025% rounding on a2-highgpu is left out
    a2_80 = next(g for g in h.groups if g.gpu_name == "A100-SXM4-80GB")
    assert {m.instance_type for m in a2_80.on_demand} == {f"a2-ultragpu-{n}g" for n in (1, 2, 4, 8)}


def test_headline_withdrawal_and_quiet_day(db):
    h = headline(compute_digest(db, "2023-02-22"))
    gone = next(g for g in h.groups if g.removed)
    assert gone.gpu_name == "A100-SXM4-80GB"
    assert gone.removed[0].instance_type == "p4de.24xlarge" and gone.removed[0].regions == ["us-east-1", "us-west-2"]
    assert headline(compute_digest(db, "2030-01-01")).quiet


def test_cheapest_now(db):
    cheap = {c.gpu_name: c for c in cheapest_now(db, "2024-04-23")}
    h100 = cheap["H100-PCIe-80GB"]
    assert (h100.cloud, h100.instance_type, h100.price_per_gpu_hour, h100.as_of) == (
        "lambda",
        "gpu_1x_h100_pcie",
        2.49,
        "2024-04-23",
    )
    # Independently: per GPU-hour = instance price / GPUs over the day's complete prices.
    per_gpu = {}
    for row in _load("2024-04-23").values():
        p = _price(row["price_per_hour_usd"])
        if p is None or row["instance_type"].startswith("gpu-only:"):
            continue
        gpus = 8 if row["instance_type"].startswith("Standard_ND96is") else int(row["gpu_count"])
        per_gpu[(row["cloud"], row["region"], row["instance_type"])] = p / gpus
    assert min(c.price_per_gpu_hour for c in cheap.values()) == pytest.approx(min(per_gpu.values()))
    for c in cheap.values():
        assert c.price_per_gpu_hour == pytest.approx(per_gpu[(c.cloud, c.region, c.instance_type)])
    assert all(not c.estimate for c in cheap.values())
    older = {c.gpu_name: c for c in cheapest_now(db, "2023-06-15")}
    assert older["H100-PCIe-80GB"].price_per_gpu_hour == 1.99 and older["H100-PCIe-80GB"].as_of == "2023-06-15"
    assert cheapest_now(db, "2022-01-01") == []


def test_every_real_snapshot_after_the_first_compares_with_the_one_before(db):
    # (its speed is in bench/prices_bench.py)
    dates = sorted(path.stem for path in FILES)
    for before, day in zip(dates, dates[1:]):
        digest = compute_digest(db, day)
        assert digest.date == day and digest.first_snapshot == []
        assert set(digest.previous.values()) == {before}


# ----------------------------------------------------------------------------------------
# The chart (matplotlib)


def test_chart_has_title_legend_axis_labels_and_units(db):
    from advisor.market.chart import history_figure, history_png
    from advisor.market.store import cheapest_history

    gpus = ["H100-PCIe-80GB", "A100-SXM4-80GB", "A10G-24GB"]
    series = cheapest_history(db, gpus, "2024-04-23")
    fig = history_figure(series, "2024-04-23")
    ax = fig.axes[0]
    assert "per GPU-hour" in ax.get_title() and "2024-04-23" in ax.get_title()
    assert ax.get_xlabel() == "Snapshot date" and "USD" in ax.get_ylabel()
    assert ax.get_legend().get_title().get_text() == "GPU"
    legend = ax.get_legend()
    assert legend is not None and [t.get_text() for t in legend.get_texts()] == list(series)
    assert len(ax.get_lines()) == len(series) == 3
    fig.canvas.draw()
    assert any(t.get_text().startswith("$") for t in ax.get_yticklabels())
    png = history_png(series, "2024-04-23")
    assert png.startswith(b"\x89PNG") and 10_000 < len(png) < 200_000
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (width, height) == (800, 450)


def test_a_chinese_chart_is_drawn_in_chinese_with_the_shipped_font(db):
    import warnings

    from fontTools.ttLib import TTFont

    from advisor.market.chart import CJK_FONT, cjk_text, history_figure, history_png
    from advisor.market.store import cheapest_history
    from advisor.resources import data_dir

    series = cheapest_history(db, ["H100-PCIe-80GB", "A100-SXM4-80GB"], "2024-04-23")
    fig = history_figure(series, "2024-04-23", "zh")
    ax = fig.axes[0]
    assert ax.get_title().startswith("按需最低价") and ax.get_xlabel() == "快照日期" and "美元" in ax.get_ylabel()
    assert ax.get_legend().get_title().get_text() == "显卡"
    assert ax.title.get_fontproperties().get_file().endswith(CJK_FONT.split("/")[-1])
    # every character of the Chinese labels is in the subset font (data/fonts/README.md)
    cmap = TTFont(data_dir() / CJK_FONT).getBestCmap()
    assert [ch for ch in cjk_text() + "0123456789-/ " if ord(ch) not in cmap] == []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns "Glyph ... missing from font(s)"
        png = history_png(series, "2024-04-23", "zh")
    assert png.startswith(b"\x89PNG") and len(png) < 200_000


def test_raw_offer_ids_are_named_by_their_gpus():
    from advisor.market.digest import instance_name

    assert instance_name("recE2ZDQmqR9HBKYs5xSnjtPw", "A100-SXM4-80GB", 2) == "2x A100-SXM4-80GB"
    assert instance_name("custom:0:A3E9735B4E2841E3982622EE4DBB41DA", "V100-SXM2-16GB", 1) == "1x V100-SXM2-16GB"
    for name in ("gpu_8x_a100_80gb_sxm4", "Standard_ND96asr_v4", "p4de.24xlarge", "1x_RTX4090_SECURE"):
        assert instance_name(name, "X", 8) == name


def test_summary_puts_on_demand_first_and_counts_everything(db):
    from advisor.market.digest import summary

    d = compute_digest(db, "2024-02-05")
    s = summary(d)
    # a GPU's cheapest price moved by a new offer leads (test below), then the on-demand moves
    assert 3 <= len(s.highlights) <= 5 and s.highlights[0].kind == "cheapest" and s.highlights[1].kind == "on_demand"
    kinds = [x.kind for x in s.highlights]
    assert kinds == sorted(kinds, key=["cheapest", "on_demand", "spot", "new_gpu", "withdrawn_gpu", "removed"].index)
    assert s.on_demand + s.spot == len(d.changes) and s.added == len(d.added)
    first = s.highlights[1]
    assert (first.gpu_name, first.clouds, first.instance, first.old, first.new) == (
        "H100-PCIe-80GB",
        ["lambda"],
        "gpu_1x_h100_pcie",
        1.99,
        2.49,
    )
    assert len(first.regions) == 13
    # one line per GPU before a second one for any
    gpus = [x.gpu_name for x in s.highlights]
    assert gpus[:3] == list(dict.fromkeys(gpus))[:3]
    gone = summary(compute_digest(db, "2023-02-22"))
    assert any(x.kind == "removed" and x.instance == "p4de.24xlarge" for x in gone.highlights)


def test_a_new_cheaper_instance_moves_the_gpus_cheapest_price(db):
    """Review 2026-12-01 (N9): on 2024-02-05 the cheapest H100-SXM5 on demand fell $4.69 -> $3.49
    a GPU-hour (RunPod's 1x H100 SXM, then Lambda's new gpu_8x_h100_sxm5 at $27.92 for 8): no
    instance changed its own price, so only the chart showed it. It is a move now, first."""
    from advisor.market.digest import summary

    d = compute_digest(db, "2024-02-05")
    h100 = next(m for m in d.cheapest_moves if m.gpu_name == "H100-SXM5-80GB")
    assert (h100.old, h100.new, h100.why, h100.cloud, h100.instance_type) == (
        4.69,
        3.49,
        "new_offer",
        "lambda",
        "gpu_8x_h100_sxm5",
    )
    assert h100.pct == pytest.approx(-25.5864)
    assert (h100.old_cloud, h100.old_instance_type) == ("runpod", "1x_H100-SXM_SECURE")
    assert d.cheapest_moves[0] is h100  # the biggest move first
    first = summary(d).highlights[0]
    assert (first.kind, first.gpu_name, first.why) == ("cheapest", "H100-SXM5-80GB", "new_offer")
    # a same-instance change of the cheapest price is a move of its own, not a second line
    assert not any(x.kind == "cheapest" and x.why == "price" for x in summary(d).highlights)
    assert compute_digest(db, "2024-02-05").to_json()["cheapest_moves"][0]["why"] == "new_offer"


def test_the_cheapest_offer_withdrawn_moves_the_gpus_cheapest_price(tmp_path):
    from advisor.market.digest import summary
    from advisor.text.render import phrase

    header = (
        "date,cloud,region,instance_type,gpu,gpu_count,vcpus,memory_gib,price_per_hour_usd,spot_price_per_hour_usd\n"
    )
    store = open_store(str(tmp_path / "w.db"))
    (tmp_path / "a.csv").write_text(
        header + "2024-03-01,lambda,us-east-1,gpu_8x_h100,H100,8,208,1800,24.0,\n"
        "2024-03-01,aws,us-east-1,p5.48xlarge,H100,8,192,2048,98.32,\n"
    )
    (tmp_path / "b.csv").write_text(header + "2024-03-02,aws,us-east-1,p5.48xlarge,H100,8,192,2048,98.32,\n")
    for f in ("a.csv", "b.csv"):
        import_file(store, tmp_path / f)
    d = compute_digest(store, "2024-03-02")
    assert d.changes == [] and len(d.removed) == 1
    [move] = d.cheapest_moves
    assert (move.why, move.old, move.new, move.cloud, move.old_cloud) == ("withdrawn", 3.0, 12.29, "aws", "lambda")
    assert round(move.pct) == 310
    first = summary(d).highlights[0]
    assert first.kind == "cheapest"
    line = phrase("en", "highlight", first, file="digest_message")
    assert line.startswith("*H100-SXM5-80GB* cheapest on demand: $3.00 → $12.29 per GPU-hour (+310%)"), line
    assert "lambda gpu_8x_h100, us-east-1) was withdrawn" in line
    zh = phrase("zh", "highlight", first, file="digest_message")
    assert "最便宜" in zh and "+310%" in zh
    store.conn.close()
