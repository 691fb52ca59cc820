"""The engine against every published point of bench/calibration (copied from
shared/calibration): published_points.csv (41 points written as requests) and the published
runs and memory peaks of bench/cases.py.

Run by hand:  python bench/points.py [--json]
Prints the median absolute error per kind (throughput, time, memory) and per subset (dense
or MoE, bf16 or fp8, pre-training or fine-tuning, one server or many), and the worst cases.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from advisor import catalog  # noqa: E402
from advisor.engine.estimate import estimate_for  # noqa: E402
from advisor.planning.engine_inputs import model_shape, training_setup  # noqa: E402
from advisor.request.parser import parse  # noqa: E402

HERE = Path(__file__).resolve().parent / "calibration"
GB_PER_GIB = 2**30 / 1e9
# Layouts the sources state that the request column leaves out (the request language could not
# state tp/pp when the points were written): the quote of each row gives them.
LAYOUT = {
    # torchtitan's and llm-foundry's tables are 1-D FSDP (no tensor parallel); fms-fsdp's too
    **dict.fromkeys(
        ("T01", "T02", "T03", "T04", "T05", "T06", "T08", "T09", "T11", "T19", "T20", "T21", "T22", "M01", "M02"),
        "tp 1",
    ),  # fmt: skip
    "T15": "cp 2",  # NeMo: TP1 PP1 CP2
    "T16": "tp 4 pp 4 cp 2 vpp 5",  # NeMo: TP4 PP4 CP2 VP5
    "T17": "tp 4 pp 4",  # NeMo SFT: TP4 PP4
    "T07": "tp 1 hsdp",  # fms-fsdp: HSDP
    "T10": "tp 1 hsdp",
    "M03": "tp 8",  # torchtitan: FSDP 32, TP 8
}
# How each memory figure was read: torch's max reserved (allocator cache included, CUDA
# context not), max allocated, or the whole device (nvidia-smi).
READING = {"M01": "reserved", "M02": "reserved", "M03": "reserved", "M08": "reserved", "M09": "reserved",
           "M10": "reserved", "M11": "reserved"}  # fmt: skip


def points(supported=lambda word: True):
    with (HERE / "published_points.csv").open() as f:
        for row in csv.DictReader(f):
            extra = LAYOUT.get(row["id"], "")
            words = " ".join(w for w in extra.split() if supported(w))
            yield row, (row["request"] + " " + words).strip()


def _subsets(req, shape, est):
    return {
        "moe" if shape.is_moe else "dense": 1,
        "fp8" if req.precision == "fp8" else "bf16": 1,
        "pretrain" if req.method in ("pretrain", "continued-pretrain") else "finetune": 1,
        "one server" if est.layout.nodes <= 1 else "many servers": 1,
    }


def evaluate(text, kind, measured, unit, reading="allocated"):
    req = parse(text)
    shape = model_shape(req)
    est = estimate_for(shape, training_setup(req), catalog.get_gpu(req.gpu), req.gpu_count, req.deadline_days)
    if kind == "throughput":
        pred = est.throughput.tokens_per_s_per_gpu
    elif kind == "gpu_hours":
        pred = est.days if unit == "days" else est.gpu_hours
    else:
        gib = est.memory.total if reading == "device" else est.memory.allocated
        if reading == "reserved":
            gib = est.memory.reserved
        pred = gib if unit == "GiB" else gib * GB_PER_GIB
    return pred, _subsets(req, shape, est), est


def rows():
    out = []
    for row, text in points():
        kind, unit, measured = row["kind"], row["unit"], float(row["measured"])
        pred, subsets, est = evaluate(text, kind, measured, unit, READING.get(row["id"], "allocated"))
        out.append({"id": row["id"], "kind": "time" if kind == "gpu_hours" else kind, "request": text,
                    "measured": measured, "ours": pred, "err": pred / measured - 1, "subsets": subsets,
                "framework": est.layout.framework,
                    "layout": f"tp{est.layout.tp} pp{est.layout.pp} dp{est.layout.dp} ep{est.layout.ep} "
                              f"z{est.layout.zero_stage} {est.layout.recompute} mbs{est.layout.micro_batch} "
                              f"gbs{est.layout.global_batch} {est.layout.framework}"})  # fmt: skip
    return out


def summary(out):
    lines = ["| set | points | median abs error | off by 2x |", "|---|---|---|---|"]
    keys = ["all"] + sorted({k for r in out for k in r["subsets"]})
    for kind in ("throughput", "time", "memory"):
        for key in keys:
            errs = [abs(r["err"]) for r in out if r["kind"] == kind and (key == "all" or key in r["subsets"])]
            if errs:
                off = sum(1 for e in errs if not 0.5 <= 1 + e <= 2)
                lines.append(f"| {kind}, {key} | {len(errs)} | {statistics.median(errs):.0%} | {off} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = rows()
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(summary(out))
    print()
    print("| id | request | measured | ours | error | layout |")
    print("|---|---|---|---|---|---|")
    for r in sorted(out, key=lambda r: -abs(r["err"])):
        print(
            f"| {r['id']} | `{r['request']}` | {r['measured']:,.4g} | {r['ours']:,.4g} | {r['err']:+.0%}"
            f" | {r['layout']} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
