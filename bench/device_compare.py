"""What bench/device_h200.py and bench/device_profile.py measured on a lent GPU, beside what the
engine assumes and plans.

    python bench/device_compare.py RESULTS.json [MORE.json ...] [--profile PROFILE.json ...]
        [--csv OUT.csv]

Prints markdown tables for docs/device-h200.md:
- kernels: each measured rate against the engine's own figure for that kernel on the catalogue's
  H200 (roofline.gemm_seconds for a GEMM: MAMF x tile quantisation or HBM bound; ETA_HBM for a
  copy; the attention kernels' fraction of peak);
- training steps: tokens/s and peak memory against the plan for the same request;
- with --profile, each profiled step's GPU time by kind of kernel against the roofline's parts
  (GEMMs, attention, element-wise work) and the share of the step the GPU was busy.
With --csv it also writes the training steps in the layout of bench/calibration/heldout_*.csv
(name, source, request, metric, measured, notes). The HF stacks' constants were fitted on these
steps (advisor/engine/roofline.py HF_EAGER_PASSES, throughput.py HF_FORWARD_KERNEL_S): they are
calibration, not held out.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from advisor import catalog  # noqa: E402
from advisor.engine import roofline  # noqa: E402
from advisor.engine.estimate import estimate_for  # noqa: E402
from advisor.engine.shapes import count_params  # noqa: E402
from advisor.engine.throughput import compute_time  # noqa: E402
from advisor.planning.engine_inputs import model_shape, training_setup  # noqa: E402
from advisor.request.parser import parse  # noqa: E402

GPU_NAME = "H200-SXM-141GB"
SOURCE = "measured by this project on a lent H200 (bench/device_h200.py, random weights)"
# The memory readings the device script takes and the engine figure each compares with
READINGS = (
    ("peak_allocated_gib", "peak_mem_allocated_gib"),
    ("peak_reserved_gib", "peak_mem_reserved_gib"),
    ("device_used_gib", "mem_gib_nvsmi"),
)


def request_for(row: dict) -> str:
    """The training step as the request language says it: one H200, HF Trainer's stack."""
    method = "full-finetune" if row["method"] == "full" else f"lora r=16 targets {row['lora_targets']}"
    words = [
        row["model"],
        method,
        "1B tokens",
        f"seq {row['seq']} mbs {row['micro_batch']} gbs {row['micro_batch']}",
        f"recompute {row['recompute']}",
        # transformers 5's eager experts loop, the nearest the request language says
        "old-transformers" if row.get("experts_impl") == "eager" else "",
        "hf on 1xH200",
    ]
    words = [w for w in words if w]
    return " ".join(words)


def training_rows(results: dict) -> list[dict]:
    """The held-out rows: throughput and the three memory readings of each step measured."""
    env = results["environment"]
    versions = f"torch {env['torch']}, transformers {env['transformers']}, peft {env.get('peft')}"
    out = []
    for key, r in results["training"].items():
        if "error" in r:
            continue
        request = request_for(r)
        notes = (
            f"{versions}; {env.get('gpu', '?')}; autocast bf16, fused AdamW, SDPA ({r['attn_impl_used']}), "
            f"gradient checkpointing {r['checkpointing']}, experts {r['experts_impl_used']}; "
            f"median of {len(r['step_s_all'])} steps after warm-up: {r['step_s']:.4f} s"
        )
        out.append(
            dict(
                name=key,
                source=SOURCE,
                request=request,
                metric="tokens_per_s_per_gpu",
                measured=f"{r['tokens_per_s']:.1f}",
                notes=notes,
            )
        )
        for field, metric in READINGS:
            if field in r:
                out.append(
                    dict(
                        name=key, source=SOURCE, request=request, metric=metric, measured=f"{r[field]:.2f}", notes=notes
                    )
                )
    return out


def _plan(request: str):
    req = parse(request)
    gpu = catalog.get_gpu(req.gpu)
    return estimate_for(model_shape(req), training_setup(req), gpu, req.gpu_count, req.deadline_days)


def training_table(results: dict) -> str:
    lines = [
        "| step | tokens/s measured | planned | error | peak allocated GiB measured | planned | error "
        "| reserved | planned | error |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]

    def err(planned, measured):
        return f"{planned / measured - 1:+.0%}"

    for key, r in results["training"].items():
        if "error" in r:
            lines.append(f"| {key} | {r['error']} | | | | | | | | |")
            continue
        est = _plan(request_for(r))
        mem, speed = est.memory, est.throughput.tokens_per_s_per_gpu
        alloc, reserved = r.get("peak_allocated_gib", float("nan")), r.get("peak_reserved_gib", float("nan"))
        lines.append(
            f"| {key} | {r['tokens_per_s']:,.0f} | {speed:,.0f} | {err(speed, r['tokens_per_s'])} "
            f"| {alloc:.1f} | {mem.allocated:.1f} | {err(mem.allocated, alloc)} "
            f"| {reserved:.1f} | {mem.reserved:.1f} | {err(mem.reserved, reserved)} |"
        )
    return "\n".join(lines)


# Kernel kinds of bench/device_profile.py that the roofline counts as element-wise work
MEMORY_KINDS = ("copy_cast", "elementwise", "reduce", "index_sort", "other")


def profile_table(profiles: dict) -> str:
    """Each profiled step's GPU time by kind against the roofline's parts for its plan (ms)."""
    lines = [
        "| step | GEMM measured | roofline | attention measured | roofline | element-wise measured | roofline "
        "| kernels | GPU busy |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for key, r in profiles.items():
        if "error" in r:
            continue
        model, method, seq, mbs, recompute, targets, experts = r["case"]
        row = dict(model=model, method=method, seq=seq, micro_batch=mbs, recompute=recompute, lora_targets=targets)
        req = parse(request_for(row))
        m, setup, gpu = model_shape(req), training_setup(req), catalog.get_gpu(req.gpu)
        est = estimate_for(m, setup, gpu, req.gpu_count)
        stage = compute_time(m, setup, est.layout, gpu, count_params(m), None)[0]
        k = r["kernel_ms_by_kind"]
        gemm = k.get("gemm", 0) + k.get("grouped_gemm", 0)
        memory = sum(k.get(kind, 0) for kind in MEMORY_KINDS)
        lines.append(
            f"| {key} | {gemm:,.0f} | {stage.gemm_s * 1e3:,.0f} | {k.get('attention', 0):,.0f} "
            f"| {stage.attention_s * 1e3:,.0f} | {memory:,.0f} | {stage.memory_s * 1e3:,.0f} "
            f"| {r['kernels']:,} | {r['gpu_busy_share']:.0%} of {r['step_s'] * 1e3:,.0f} ms |"
        )
    return "\n".join(lines)


def kernel_table(results: dict) -> str:
    """Measured kernel rates against the engine's figure for the same kernel on the H200."""
    gpu = catalog.get_gpu(GPU_NAME)
    k = results["kernels"]
    lines = ["| kernel | measured | engine | measured / engine |", "| --- | ---: | ---: | ---: |"]

    def line(name, measured, engine, unit):
        lines.append(f"| {name} | {measured:,.0f} {unit} | {engine:,.0f} {unit} | {measured / engine:.2f} |")

    copy = k.get("hbm_copy", {})
    if "tb_s" in copy:
        line("HBM copy", copy["tb_s"] * 1e3, gpu.memory_bw_tb_s * roofline.ETA_HBM * 1e3, "GB/s")
    for g in k.get("gemm", []) if isinstance(k.get("gemm"), list) else []:
        m, n, kk = g["m"], g["n"], g["k"]
        for dtype in ("bf16", "fp8"):
            if f"{dtype}_tflops" in g:
                seconds = roofline.gemm_seconds(m, n, kk, gpu, dtype)
                line(f"{dtype} GEMM {m}x{n}x{kk}", g[f"{dtype}_tflops"], 2 * m * n * kk / seconds / 1e12, "TFLOP/s")
    for g in k.get("grouped_gemm", []) if isinstance(k.get("grouped_gemm"), list) else []:
        e, t, n, kk = g["experts"], g["tokens_per_expert"], g["n"], g["k"]
        seconds = roofline.gemm_seconds(t, n, kk, gpu, "bf16", count=e)
        engine = 2 * e * t * n * kk / seconds / 1e12
        for impl in ("grouped", "loop"):
            if f"{impl}_tflops" in g:
                line(f"{e} experts x {t} tokens {n}x{kk} ({impl})", g[f"{impl}_tflops"], engine, "TFLOP/s")
    fwd, bwd = roofline.attention_efficiency(gpu, "best")
    peak = gpu.peak_tflops("bf16")
    for a in k.get("attention", []) if isinstance(k.get("attention"), list) else []:
        if a.get("fwd_tflops"):
            line(f"SDPA {a['backend']} s{a['seq']} forward", a["fwd_tflops"], fwd * peak, "TFLOP/s")
        if a.get("bwd_tflops"):
            line(f"SDPA {a['backend']} s{a['seq']} backward", a["bwd_tflops"], bwd * peak, "TFLOP/s")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path, nargs="+")
    ap.add_argument("--profile", type=Path, nargs="*", default=[], help="bench/device_profile.py's JSON files")
    ap.add_argument("--csv", type=Path, help="write the training steps as a CSV here")
    args = ap.parse_args(argv)
    runs = [json.loads(p.read_text()) for p in args.results]
    results = {
        "environment": runs[0]["environment"],
        "kernels": next((r["kernels"] for r in runs if r.get("kernels")), {}),
        "training": {k: v for r in runs for k, v in r["training"].items()},
    }
    if results["kernels"]:
        print("### Kernels against the engine's constants\n")
        print(kernel_table(results))
    print("\n### Training steps against the plan\n")
    print(training_table(results))
    if args.profile:
        print("\n### Where the steps' GPU time went, against the roofline (ms a step)\n")
        print(profile_table({k: v for p in args.profile for k, v in json.loads(p.read_text())["profiles"].items()}))
    moe = results["kernels"].get("moe_block")
    if isinstance(moe, list) and moe:
        print("\n### One Qwen3-30B-A3B MoE block, 2,048 tokens\n")
        print("| experts implementation | forward ms | forward + backward ms |\n| --- | ---: | ---: |")
        for r in moe:
            print(f"| {r['impl']} | {r['fwd_ms']:.1f} | {r['fwd_bwd_ms']:.1f} |")
    if args.csv:
        rows = training_rows(results)
        with args.csv.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["name", "source", "request", "metric", "measured", "notes"])
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
