"""Where a training step's time goes on one lent GPU: kernels by kind, and the time the GPU waits.

bench/device_h200.py measures how long steps take; this splits them, so that a gap between the
engine's plan and a measured step can be put on its cause (GEMMs slower than the roofline says,
unfused element-wise kernels, or a GPU idle while the host launches kernels) instead of on a
fitted factor. Same cases, same models (random weights, nothing downloaded):

    python3 bench/device_profile.py --out "$OUT"            # on the device machine
    python3 bench/device_profile.py --smoke --out /tmp/x    # any machine with PyTorch

Each case: two warm-up steps, the median of three timed steps, then one step under
torch.profiler; from its trace, every GPU kernel's time summed by kind (GEMM, grouped GEMM,
attention, optimizer, copies and casts, reductions, other element-wise), the number of kernels,
the GPU's busy time (the union of kernel intervals) and the largest kernels by total time.
Busy time over the unprofiled step time is the share the GPU worked; the rest it waited on the
host (the profiler's own host overhead does not enter it). Writes `device_profile.json`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from device_h200 import CASES, build_step, environment, guarded, log, sync  # noqa: E402

# The cases split (keys of device_h200.CASES) and two more micro-batch sizes, to see what a
# bigger micro-batch buys on the LoRA step.
PROFILED = (
    "8b-lora-all-s2048-b1-full",
    "8b-lora-all-s2048-b4-full",
    "3b-full-s2048-b4-full",
    "30ba3b-lora-attn-s2048-b1-full-grouped",
    "32b-lora-attn-s2048-b1-full",
)
EXTRA = (
    ("8b-lora-all-s2048-b8-full", "llama3.1-8b", "lora", 2048, 8, "full", "all", None),
    ("30ba3b-lora-attn-s2048-b4-full-grouped", "qwen3-30b-a3b", "lora", 2048, 4, "full", "attn", "grouped_mm"),
)
# Kernel names by kind, first match wins (cuBLAS: nvjet, sm90_xmma, cutlass; SDPA: flash,
# fmha, cudnn's generated sdpa kernels; AdamW: multi_tensor_apply / fused_adam).
KINDS = (
    ("grouped_gemm", ("grouped", "groupproblem")),
    ("attention", ("flash", "fmha", "sdpa", "attention", "attn")),
    ("optimizer", ("adam", "multi_tensor")),
    ("gemm", ("gemm", "nvjet", "xmma", "cutlass", "splitk")),
    ("copy_cast", ("copy", "memcpy", "memset", "cast", "convert")),
    ("reduce", ("reduce", "softmax", "norm", "cross_entropy", "nll", "logsumexp")),
    ("index_sort", ("index", "gather", "scatter", "sort", "radix", "histogram", "cumsum", "scan", "nonzero")),
    ("elementwise", ("elementwise", "vectorized", "unrolled")),
)


def kind_of(name: str) -> str:
    low = name.lower()
    for kind, words in KINDS:
        if any(w in low for w in words):
            return kind
    return "other"


def busy_us(intervals):
    """Length of the union of (start, end) intervals."""
    total, end = 0.0, float("-inf")
    for s, e in sorted(intervals):
        if s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def kernels_of(trace_path: Path):
    events = json.loads(trace_path.read_text()).get("traceEvents", [])
    return [
        e
        for e in events
        if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and "dur" in e
    ]


def profile_case(dev, smoke, case):
    from torch.profiler import ProfilerActivity, profile

    step, net, cfg, params, build_s = build_step(dev, smoke, *case)
    for _ in range(2):
        step()
    sync()
    times = []
    for _ in range(3):
        t = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - t)
    step_s = statistics.median(times)
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev == "cuda" else [])
    with profile(activities=activities) as prof:
        step()
        sync()
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(trace))
        kernels = kernels_of(trace)
    by_kind = defaultdict(float)
    by_name = defaultdict(lambda: [0.0, 0])
    for k in kernels:
        by_kind[kind_of(k["name"])] += k["dur"]
        by_name[k["name"]][0] += k["dur"]
        by_name[k["name"]][1] += 1
    busy = busy_us([(k["ts"], k["ts"] + k["dur"]) for k in kernels])
    # the aten operators that launched them, by their own GPU time (which op of the model costs)
    ops = []
    for evt in prof.key_averages():
        own = getattr(evt, "self_device_time_total", None)
        if own is None:
            own = getattr(evt, "self_cuda_time_total", 0)
        if own > 0:
            ops.append({"op": evt.key[:120], "ms": own / 1e3, "count": evt.count})
    ops.sort(key=lambda o: -o["ms"])
    top = sorted(by_name.items(), key=lambda kv: -kv[1][0])[:40]
    model, method, seq, mbs = case[:4]
    return {
        "case": list(case),
        "tokens_per_s": mbs * seq / step_s,
        "step_s": step_s,
        "step_s_all": times,
        "kernels": len(kernels),
        "kernel_ms_by_kind": {k: v / 1e3 for k, v in sorted(by_kind.items(), key=lambda kv: -kv[1])},
        "kernel_ms_sum": sum(by_kind.values()) / 1e3,
        "gpu_busy_ms": busy / 1e3,
        "gpu_busy_share": busy / 1e6 / step_s,
        "top_kernels": [{"name": n[:160], "ms": v[0] / 1e3, "count": v[1]} for n, v in top],
        "top_ops": ops[:60],
        "build_s": build_s,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--budget-s", type=float, default=200, help="stop starting cases after this")
    ap.add_argument("--cases", nargs="*", help="only these case keys")
    args = ap.parse_args(argv)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    results = {"environment": environment(dev), "profiles": {}}
    cases = {key: tuple(case) for key, *case in CASES if key in PROFILED}
    cases.update({key: tuple(case) for key, *case in EXTRA})
    if args.cases:
        cases = {key: case for key, case in cases.items() if key in args.cases}
    for key, case in cases.items():
        if time.perf_counter() - started > args.budget_s:
            results["profiles"][key] = {"error": "skipped: out of time"}
            continue
        guarded(results["profiles"], key, lambda case=case: profile_case(dev, args.smoke, case))
        (out / "device_profile.json").write_text(json.dumps(results, indent=1))
    for key, r in results["profiles"].items():
        if "error" in r:
            log(f"{key}: {r['error']}")
            continue
        kinds = ", ".join(f"{k} {v:.0f}" for k, v in r["kernel_ms_by_kind"].items())
        log(
            f"{key}: {r['step_s'] * 1e3:.0f} ms/step {r['tokens_per_s']:.0f} tok/s, {r['kernels']} kernels, "
            f"GPU busy {r['gpu_busy_ms']:.0f} ms ({r['gpu_busy_share']:.0%}); ms by kind: {kinds}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
