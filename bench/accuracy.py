"""Predicted against published: every calibration row the request language can express.

Run by hand:  python bench/accuracy.py  (prints a Markdown table)
Prints, per case, what we predict, what was measured and the error, beside the same cases
through llm-analysis, DeepSpeed's published model-state formulas and the naive rule
"6ND at 40% MFU" (bench/comparators.py), and (column "open") our GPU-hours when the run is
asked as an open request for its GPU type with its published time as the deadline. The table is
copied into docs/accuracy.md.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cases import (  # noqa: E402
    CARD_RUNS,
    HELD_OUT,
    HELD_OUT_LLAMA3,
    HELD_OUT_LLMFOUNDRY,
    HELD_OUT_MEGATRON,
    HELD_OUT_MEGATRON_2511,
    HELD_OUT_MEMORY,
    HELD_OUT_MOE_ZOO,
    HELD_OUT_NEMO,
    HELD_OUT_OOM,
    HELD_OUT_PROBE2_MEMORY,
    HELD_OUT_PROBE2_TIME,
    HELD_OUT_PROBE3_TIME,
    HELD_OUT_PROBE_MEMORY,
    HELD_OUT_PROBE_TIME,
    HELD_OUT_THROUGHPUT,
    HELD_OUT_TORCHTITAN,
    MEMORY_CASES,
    NOT_EXPRESSIBLE,
    POINT_MEMORY_CASES,
    POINT_TIME_CASES,
    TIME_CASES,
    WORST_EXPLAINED,
)

from advisor import catalog  # noqa: E402
from advisor.engine.estimate import estimate_for  # noqa: E402
from advisor.planning.engine_inputs import model_shape, training_setup  # noqa: E402
from advisor.request.parser import parse  # noqa: E402

GB_PER_GIB = 2**30 / 1e9


def _estimate(req):
    return estimate_for(
        model_shape(req), training_setup(req), catalog.get_gpu(req.gpu), req.gpu_count, req.deadline_days
    )


def subsets(req, est) -> list[str]:
    """The subsets a case belongs to (docs/accuracy.md summary)."""
    return [
        "MoE" if est.throughput.model_flops_per_token and model_shape(req).is_moe else "dense",
        "fp8" if est.precision == "fp8" else "bf16/fp16",
        "pre-training" if req.method in ("pretrain", "continued-pretrain") else "fine-tuning",
        "one server" if est.layout.nodes <= 1 else "many servers",
    ]


_SUBSETS: dict[str, list[str]] = {}


def ours_time(case):
    req = parse(case.request)
    gpu = catalog.get_gpu(req.gpu)
    est = _estimate(req)
    _SUBSETS[case.row] = subsets(req, est)
    t = est.throughput
    return {
        "gpu_hours": est.gpu_hours,
        "days": est.days,
        "tokens_per_s_per_gpu": t.tokens_per_s_per_gpu,
        "mfu": t.mfu,
        "hw_tflops": t.hfu * gpu.peak_tflops(req.precision),
    }


_GIVEN_COUNT = re.compile(r"\bon (\d+)x(\S+)")


def ours_open(case):
    """The same run as an open request for the GPU type: the published wall time (or GPU-hours
    over the published count) as the deadline, and the engine chooses the count and the layout."""
    found = _GIVEN_COUNT.search(case.request)
    if not found or case.gpu_hours is None:
        return None
    days = case.days or case.gpu_hours / int(found[1]) / 24
    req = parse(_GIVEN_COUNT.sub(f"on {found[2]} {days:.1f}d", case.request))
    try:
        return _estimate(req).gpu_hours
    except ValueError:  # a fixed layout no count of the grid runs
        return None


def ours_memory(case):
    req = parse(case.request)
    est = _estimate(req)
    _SUBSETS[case.row] = subsets(req, est)
    mem = est.memory
    gib = {"torch": mem.allocated, "reserved": mem.reserved, "nvidia-smi": mem.nvidia_smi}[case.reading]
    return gib * GB_PER_GIB


def err(pred, meas):
    return None if pred is None or meas is None else (pred - meas) / meas


def _comparators():
    try:
        import comparators
    except ImportError:
        return None
    return comparators


def build_rows(time_cases=TIME_CASES, memory_cases=MEMORY_CASES):
    comp = _comparators()
    time_rows, mem_rows = [], []
    for case in time_cases:
        ours = ours_time(case)
        others = comp.predict_time(case) if comp else {}
        for metric in ("gpu_hours", "days", "tokens_per_s_per_gpu", "mfu", "hw_tflops"):
            measured = getattr(case, metric)
            if measured is None:
                continue
            row = {
                "case": case.row,
                "metric": metric,
                "measured": measured,
                "ours": ours[metric],
                "err_ours": err(ours[metric], measured),
            }
            if metric == "gpu_hours":
                row["open"] = ours_open(case)
                row["err_open"] = err(row["open"], measured)
            for name, values in others.items():
                row[name] = values.get(metric)
                row["err_" + name] = err(values.get(metric), measured)
            time_rows.append(row)
    for case in memory_cases:
        ours = ours_memory(case)
        others = comp.predict_memory(case) if comp else {}
        row = {
            "case": case.row,
            "metric": f"peak GB ({case.reading})",
            "measured": case.measured_gb,
            "ours": ours,
            "err_ours": err(ours, case.measured_gb),
        }
        for name, value in others.items():
            row[name] = value
            row["err_" + name] = err(value, case.measured_gb)
        mem_rows.append(row)
    return time_rows, mem_rows


def summary(rows, key):
    errs = [abs(r[key]) for r in rows if r.get(key) is not None]
    if not errs:
        return None
    return {
        "n": len(errs),
        "median": statistics.median(errs),
        "max": max(errs),
        "over_2x": sum(1 for r in rows if r.get(key) is not None and not 0.5 <= 1 + r[key] <= 2),
    }


def _fmt(v):
    if v is None:
        return "–"
    if isinstance(v, float) and abs(v) < 1:
        return f"{v:.3f}"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.2f}"


def _pct(v):
    return "–" if v is None else f"{v:+.0%}"


def markdown(time_rows, mem_rows, held_rows=(), card_rows=()) -> str:
    names = sorted({k[4:] for r in time_rows + mem_rows for k in r if k.startswith("err_") and k != "err_ours"})
    out = []
    sections = [("Training time and throughput", time_rows), ("Peak memory per GPU", mem_rows)]
    if card_rows:
        sections.append(("Published runs from model cards (wall-clock and GPU-hours as accounted)", card_rows))
    if held_rows:
        sections.append(("Held-out published runs (not used to fit anything)", held_rows))
    for title, rows in sections:
        out.append(f"### {title}\n")
        head = ["case", "metric", "measured", "ours", "error"] + [f"{n}" for n in names] + [f"{n} error" for n in names]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for r in rows:
            cells = [r["case"], r["metric"], _fmt(r["measured"]), _fmt(r["ours"]), _pct(r["err_ours"])]
            cells += [_fmt(r.get(n)) for n in names] + [_pct(r.get("err_" + n)) for n in names]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
        out.append("| estimator | cases | median abs error | max abs error | off by more than 2x |")
        out.append("|---|---|---|---|---|")
        for n in ["ours", *names]:
            groups = (
                [
                    ("GPU-hours and days", [r for r in rows if r["metric"] in ("gpu_hours", "days")]),
                    ("throughput", [r for r in rows if r["metric"] not in ("gpu_hours", "days")]),
                ]
                if rows is not mem_rows
                else [("memory", rows)]
            )
            for label, group in groups:
                s = summary(group, "err_" + n)
                if s:
                    out.append(f"| {n} ({label}) | {s['n']} | {s['median']:.0%} | {s['max']:.0%} | {s['over_2x']} |")
        out.append("")
    out.append("Rows the request language cannot express:\n")
    for row, why in NOT_EXPRESSIBLE.items():
        out.append(f"- {row}: {why}")
    return "\n".join(out)


BEFORE = Path(__file__).resolve().parent / "calibration" / "before_issue22.json"
KINDS = {"throughput": ("tokens_per_s_per_gpu", "mfu", "hw_tflops"), "time": ("gpu_hours", "days"), "memory": ()}


def _kind(row) -> str:
    if row["metric"].startswith("peak GB"):
        return "memory"
    return "time" if row["metric"] in KINDS["time"] else "throughput"


def summary_table(rows) -> str:
    """Median absolute error per kind and subset: ours before issue 22 (bench/baseline.py on
    the commit it started from), ours now, and the comparators, over the same rows."""
    import json

    before = json.loads(BEFORE.read_text()) if BEFORE.exists() else {}
    for r in rows:
        key = f"{r['case']}|{'memory' if _kind(r) == 'memory' else r['metric']}"
        r["err_before"] = before.get(key)
    names = ["before", "ours", "naive", "llm-analysis@0.5", "llm-analysis"]
    out = ["| kind | subset | rows | " + " | ".join(names) + " |", "|---|---|---|" + "---|" * len(names)]
    subsets_seen = sorted({s for r in rows for s in _SUBSETS.get(r["case"], [])})
    for kind in ("throughput", "time", "memory"):
        for subset in ["all", *subsets_seen]:
            group = [r for r in rows if _kind(r) == kind and (subset == "all" or subset in _SUBSETS.get(r["case"], []))]
            if not group:
                continue
            cells = []
            for n in names:
                errs = [abs(r["err_" + n]) for r in group if r.get("err_" + n) is not None]
                cells.append(f"{statistics.median(errs):.0%} ({len(errs)})" if errs else "–")
            out.append(f"| {kind} | {subset} | {len(group)} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def worst_table(rows, n=10) -> str:
    ranked = sorted((r for r in rows if r.get("err_ours") is not None), key=lambda r: -abs(r["err_ours"]))[:n]
    out = ["| case | metric | measured | ours | error | what explains it |", "|---|---|---|---|---|---|"]
    for r in ranked:
        why = WORST_EXPLAINED.get(r["case"]) or WORST_EXPLAINED.get(r["case"].split()[0], "–")
        out.append(
            f"| {r['case']} | {r['metric']} | {_fmt(r['measured'])} | {_fmt(r['ours'])}"
            f" | {_pct(r['err_ours'])} | {why} |"
        )
    return "\n".join(out)


# The held-out throughput sets, each read after the engine was built: (what its summary says,
# the title of its table of rows, its cases).
HELD_OUT_SETS = (
    ("NeMo Automodel, read after the engine was built", "NeMo Automodel", HELD_OUT_THROUGHPUT),
    ("Megatron-Bridge, read after the engine was built", "Megatron-Bridge", HELD_OUT_MEGATRON),
    ("Megatron-Bridge 25.11, an older container", "Megatron-Bridge 25.11", HELD_OUT_MEGATRON_2511),
    (
        "NeMo long sequences on H100 and B200, NeMo 24.07 fine-tuning, NeMo 25.02 on B200, Llama 3 405B 4D",
        "NeMo long sequences, NeMo 24.07 fine-tuning, NeMo 25.02, Llama 3 405B",
        HELD_OUT_NEMO + HELD_OUT_LLAMA3,
    ),
    ("torchtitan long sequences and 405B, on FlashAttention-2", "torchtitan", HELD_OUT_TORCHTITAN),
    ("llm-foundry MPT, H100 and A100", "llm-foundry", HELD_OUT_LLMFOUNDRY),
    ("Megatron-Core MoE model zoo, Qwen3 235B", "Megatron-Core MoE model zoo", HELD_OUT_MOE_ZOO),
    (
        "OLMo-core, torchao, ms-swift, FlagPerf, JetMoE: read by a probe in the sixteenth session",
        "OLMo-core, torchao, ms-swift, FlagPerf, JetMoE",
        HELD_OUT_PROBE_TIME,
    ),
    (
        "NVIDIA DGX Cloud recipes, MindSpeed-LLM, ms-swift scripts, LLaMA-Factory: "
        "read by a probe in the seventeenth session",
        "DGX Cloud recipes, MindSpeed-LLM, ms-swift scripts, LLaMA-Factory",
        HELD_OUT_PROBE2_TIME,
    ),
    (
        "MLPerf Training v4.0-v5.1: read by a probe in the twenty-first session",
        "MLPerf Training v4.0-v5.1",
        HELD_OUT_PROBE3_TIME,
    ),
)


def oom_lines() -> list[str]:
    """Runs that ran out of memory: whether the plan, as run (no offload), would fit."""
    out = []
    for row, request in HELD_OUT_OOM:
        req = parse(request)
        est = _estimate(req)
        usable = catalog.get_gpu(req.gpu).usable_memory_gib
        if est.fits and est.layout.offload == "none":
            verdict = f"planned as fitting ({est.memory.total:.1f} of {usable:.1f} GiB), where it ran out"
        elif est.fits:
            verdict = f"does not fit as run: fits only with offload {est.layout.offload}"
        else:
            verdict = f"does not fit ({est.memory.total:.1f} of {usable:.1f} GiB)"
        out.append(f"- {row}: {verdict}")
    return out


def main() -> int:
    argparse.ArgumentParser(description=__doc__).parse_args()
    time_rows, mem_rows = build_rows()
    card_rows, _ = build_rows(CARD_RUNS, [])
    point_rows, point_mem_rows = build_rows(POINT_TIME_CASES, POINT_MEMORY_CASES)
    held_rows, _ = build_rows(HELD_OUT, [])
    sets = [(summary, title, build_rows(cases, [])[0]) for summary, title, cases in HELD_OUT_SETS]
    _, held_mem_rows = build_rows([], HELD_OUT_MEMORY)
    _, probe_mem_rows = build_rows([], HELD_OUT_PROBE_MEMORY)
    _, probe2_mem_rows = build_rows([], HELD_OUT_PROBE2_MEMORY)
    calibration = time_rows + mem_rows + card_rows + point_rows + point_mem_rows
    print("### Summary: calibration (all of shared/calibration)\n")
    print(summary_table(calibration))
    print("\n### Summary: held-out published runs\n")
    print(summary_table(held_rows))
    for summary, _, rows in sets:
        print(f"\n### Summary: held-out throughput ({summary})\n")
        print(summary_table(rows))
    print("\n### Summary: held-out memory (litgpt's config hub)\n")
    print(summary_table(held_mem_rows))
    print("\n### Summary: held-out memory (torchao, ms-swift, FlagPerf: read by a probe in the sixteenth session)\n")
    print(summary_table(probe_mem_rows))
    print(
        "\n### Summary: held-out memory (ms-swift scripts, LLaMA-Factory: read by a probe in the seventeenth session)\n"
    )
    print(summary_table(probe2_mem_rows))
    print("\n### The ten worst calibration cases\n")
    print(worst_table(calibration))
    print()
    print(markdown(time_rows, mem_rows, held_rows, card_rows))
    print()
    points = markdown(point_rows, point_mem_rows).split("Rows the request language")[0]
    points = points.replace("### Training time and throughput", "### Published points: throughput and time")
    print(points.replace("### Peak memory per GPU", "### Published points: peak memory"))
    for _, title, rows in sets:
        print()
        table = markdown(rows, []).split("### Peak memory per GPU")[0].rstrip()
        print(table.replace("### Training time and throughput", f"### Held-out throughput: {title}"))
    print()
    table = markdown([], held_mem_rows).split("### Peak memory per GPU")[1].split("Rows the request language")[0]
    print("### Held-out memory: litgpt's config hub" + table.rstrip())
    print("\nThe same table's runs that ran out of memory on their cards:\n")
    print("\n".join(oom_lines()))
    print()
    table = markdown([], probe_mem_rows).split("### Peak memory per GPU")[1].split("Rows the request language")[0]
    print("### Held-out memory: torchao, ms-swift, FlagPerf" + table.rstrip())
    print()
    table = markdown([], probe2_mem_rows).split("### Peak memory per GPU")[1].split("Rows the request language")[0]
    print("### Held-out memory: ms-swift scripts, LLaMA-Factory" + table.rstrip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
