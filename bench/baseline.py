"""Errors of an engine on every calibration case, as JSON: run against an older checkout to
record the "before" column of docs/accuracy.md.

    python bench/baseline.py --engine /path/to/old/checkout > bench/calibration/before_issue22.json

Words the older request language cannot state (cp, hsdp, vpp) are left out of its requests.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--engine", required=True, help="checkout whose advisor/ to import")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, args.engine)
    from cases import CARD_RUNS, HELD_OUT, MEMORY_CASES, POINT_MEMORY_CASES, POINT_TIME_CASES, TIME_CASES

    from advisor import catalog
    from advisor.engine.estimate import estimate_for
    from advisor.planning.engine_inputs import model_shape, training_setup
    from advisor.request.parser import parse

    def estimate(text):
        for drop in ("", r"\s+cp \d+", r"\s+(cp \d+|hsdp)", r"\s+(cp \d+|hsdp|vpp \d+)"):
            try:
                req = parse(re.sub(drop, "", text) if drop else text)
                break
            except Exception:  # noqa: BLE001 - the older parser refuses what it cannot state
                continue
        else:
            return None
        return estimate_for(model_shape(req), training_setup(req), catalog.get_gpu(req.gpu), req.gpu_count,
                            req.deadline_days)  # fmt: skip

    out = {}
    for case in TIME_CASES + CARD_RUNS + HELD_OUT + POINT_TIME_CASES:
        try:
            est = estimate(case.request)
        except Exception:  # noqa: BLE001
            est = None
        if est is None:
            continue
        gpu = catalog.get_gpu(est.layout.gpu)
        thr = est.throughput
        ours = {
            "gpu_hours": est.gpu_hours,
            "days": est.days,
            "tokens_per_s_per_gpu": thr.tokens_per_s_per_gpu,
            "mfu": thr.mfu,
            "hw_tflops": thr.hfu * gpu.peak_tflops(est.precision),
        }
        for metric, pred in ours.items():
            measured = getattr(case, metric)
            if measured and pred:
                out[f"{case.row}|{metric}"] = pred / measured - 1
    for case in MEMORY_CASES + POINT_MEMORY_CASES:
        try:
            est = estimate(case.request)
        except Exception:  # noqa: BLE001
            est = None
        if est is None:
            continue
        gib = est.memory.total if case.reading == "nvidia-smi" else est.memory.total - est.memory.context
        out[f"{case.row}|memory"] = gib * 2**30 / 1e9 / case.measured_gb - 1
    print(json.dumps(out, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
