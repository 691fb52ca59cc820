"""Kernels and training steps measured on one lent GPU, to check the engine's constants and plans.

Runs on the device machine (an H200 lent through this workplace's `device` tool), with nothing
but the PyTorch, Transformers and PEFT already there; random weights, nothing downloaded:

    python3 bench/device_h200.py --out "$OUT"            # on the device machine
    python3 bench/device_h200.py --smoke --out /tmp/x    # here, on the CPU, tiny shapes

It writes `device_results.json` (every figure, the library versions, the card) and prints a
table. bench/device_compare.py then sets the figures beside what the engine plans for the same
runs; docs/device-h200.md holds both.

Part 1, kernels, each the median of timed repeats after warm-ups (CUDA events):
- an HBM copy (bytes read plus written), the engine's ETA_HBM;
- bf16 and FP8 (tensorwise `torch._scaled_mm`) GEMMs of the shapes the engine lists for Llama
  3.1 8B and Qwen3 32B layers, expert GEMMs of Qwen3-30B-A3B and DeepSeek-V3 with few tokens
  each, LoRA's rank-16 products: the engine's MAMF x tile quantisation;
- grouped expert GEMMs (`grouped_mm`, bf16) against one GEMM per expert in a Python loop;
- causal attention through PyTorch's SDPA, its default choice and each backend forced: the
  engine's ETA_ATTN_*;
- one Qwen3-30B-A3B MoE block forward and backward, Transformers' "eager" expert loop against
  its "grouped_mm".

Part 2, training steps as HF Trainer runs them (autocast bf16, fused AdamW, SDPA, gradient
checkpointing where `recompute full`): peak memory as torch.cuda.max_memory_allocated and
max_memory_reserved, the device's used memory (the CUDA context included) and the median step
time, per case. Shapes are the published config.json of each model (the catalogue's, checked by
tests/test_device_bench.py).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
import traceback
from functools import partial
from pathlib import Path

import torch
import torch.nn.functional as F

# Published config.json shapes (hidden, intermediate, layers, heads, kv heads, head dim, vocab,
# tied embeddings, experts, top-k, expert intermediate); data/models.toml holds the same.
SHAPES = {
    "llama3.1-8b": dict(
        family="llama", hidden=4096, ffn=14336, layers=32, heads=32, kv=8, head_dim=128, vocab=128256, tied=False
    ),
    "llama3.2-3b": dict(
        family="llama", hidden=3072, ffn=8192, layers=28, heads=24, kv=8, head_dim=128, vocab=128256, tied=True
    ),
    "llama3.2-1b": dict(
        family="llama", hidden=2048, ffn=8192, layers=16, heads=32, kv=8, head_dim=64, vocab=128256, tied=True
    ),
    "qwen2.5-7b": dict(
        family="qwen2", hidden=3584, ffn=18944, layers=28, heads=28, kv=4, head_dim=128, vocab=152064, tied=False
    ),
    "qwen3-8b": dict(
        family="qwen3", hidden=4096, ffn=12288, layers=36, heads=32, kv=8, head_dim=128, vocab=151936, tied=False
    ),
    "qwen3-32b": dict(
        family="qwen3", hidden=5120, ffn=25600, layers=64, heads=64, kv=8, head_dim=128, vocab=151936, tied=False
    ),
    "qwen3-30b-a3b": dict(
        family="qwen3_moe",
        hidden=2048,
        ffn=6144,
        layers=48,
        heads=32,
        kv=4,
        head_dim=128,
        vocab=151936,
        tied=False,
        experts=128,
        top_k=8,
        expert_ffn=768,
    ),
}
TINY = dict(hidden=256, ffn=512, layers=2, heads=4, kv=2, head_dim=64, vocab=1024, expert_ffn=64, experts=8)

# Training cases: (key, model, method, seq, micro-batch, recompute, LoRA targets, experts
# implementation) and the same run in the request language (bench/device_compare.py plans it).
CASES = [
    ("8b-lora-all-s2048-b1-full", "llama3.1-8b", "lora", 2048, 1, "full", "all", None),
    ("3b-full-s2048-b4-full", "llama3.2-3b", "full", 2048, 4, "full", None, None),
    ("30ba3b-lora-attn-s2048-b1-full-grouped", "qwen3-30b-a3b", "lora", 2048, 1, "full", "attn", "grouped_mm"),
    ("30ba3b-lora-attn-s2048-b1-full-eager", "qwen3-30b-a3b", "lora", 2048, 1, "full", "attn", "eager"),
    ("32b-lora-attn-s2048-b1-full", "qwen3-32b", "lora", 2048, 1, "full", "attn", None),
    ("8b-lora-all-s2048-b1-none", "llama3.1-8b", "lora", 2048, 1, "none", "all", None),
    ("8b-lora-all-s2048-b4-full", "llama3.1-8b", "lora", 2048, 4, "full", "all", None),
    ("8b-lora-all-s8192-b1-full", "llama3.1-8b", "lora", 8192, 1, "full", "all", None),
    ("3b-full-s2048-b2-none", "llama3.2-3b", "full", 2048, 2, "none", None, None),
]
# Steps that check the HF stack's constants fitted on the steps above (2026-12-04: element-wise
# passes, PEFT's adapter bytes, the host's launch floor, the framework factor): other models,
# shapes and targets, planned before they were measured (`--set check`).
CHECK_CASES = [
    ("1b-full-s2048-b8-none", "llama3.2-1b", "full", 2048, 8, "none", None, None),
    ("qwen3-8b-lora-all-s4096-b2-full", "qwen3-8b", "lora", 4096, 2, "full", "all", None),
    ("qwen2.5-7b-lora-qv-s1024-b1-full", "qwen2.5-7b", "lora", 1024, 1, "full", "qv", None),
    ("8b-lora-attn-s4096-b2-none", "llama3.1-8b", "lora", 4096, 2, "none", "attn", None),
    ("30ba3b-lora-attn-s4096-b2-full-grouped", "qwen3-30b-a3b", "lora", 4096, 2, "full", "attn", "grouped_mm"),
    ("3b-lora-all-s2048-b16-full", "llama3.2-3b", "lora", 2048, 16, "full", "all", None),
]
# A second check, planned with the constants refitted on both sets above (`--set check2`).
CHECK2_CASES = [
    ("qwen3-8b-lora-qv-s512-b1-full", "qwen3-8b", "lora", 512, 1, "full", "qv", None),
    ("1b-lora-all-s4096-b4-none", "llama3.2-1b", "lora", 4096, 4, "none", "all", None),
    ("qwen3-32b-lora-all-s4096-b1-full", "qwen3-32b", "lora", 4096, 1, "full", "all", None),
    ("3b-full-s4096-b1-full", "llama3.2-3b", "full", 4096, 1, "full", None, None),
    ("qwen2.5-7b-lora-all-s2048-b2-none", "qwen2.5-7b", "lora", 2048, 2, "none", "all", None),
    ("30ba3b-lora-attn-s1024-b1-full-grouped", "qwen3-30b-a3b", "lora", 1024, 1, "full", "attn", "grouped_mm"),
]
# The same steps compiled (`--set compiled`: torch.compile over the whole model, default mode),
# against the eager ones above: what the engine's compiled passes (roofline.unfused_passes) assume.
COMPILED_CASES = [
    ("3b-full-s2048-b4-full-compiled", "llama3.2-3b", "full", 2048, 4, "full", None, None),
    ("8b-lora-all-s2048-b4-full-compiled", "llama3.1-8b", "lora", 2048, 4, "full", "all", None),
]
SETS = {"fit": CASES, "check": CHECK_CASES, "check2": CHECK2_CASES, "compiled": COMPILED_CASES}
LORA_TARGETS = {
    "qv": ["q_proj", "v_proj"],
    "all": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    "attn": ["q_proj", "k_proj", "v_proj", "o_proj"],
}
GIB = 2**30


def log(*args):
    print(*args, flush=True)


def sync():
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def median_ms(fn, warmup=3, reps=10):
    """Median wall time of fn in ms: CUDA events on the GPU, the host clock on the CPU."""
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(reps):
        if torch.cuda.is_available():
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        else:
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def guarded(results, key, fn):
    """Run one measurement; a failure is recorded with its reason and the rest go on."""
    t0 = time.perf_counter()
    try:
        results[key] = fn()
    except Exception as exc:  # a kernel missing on this build must not end the run
        results[key] = {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}
        traceback.print_exc(limit=2)
    log(f"  {key}: {time.perf_counter() - t0:.1f} s")


# ---------------------------------------------------------------- part 1: kernels


def hbm_copy(dev, smoke):
    n = (1 << 20) if smoke else (1 << 31)  # 4 GiB of bf16, far past the 60 MB L2
    x = torch.randn(n, device=dev, dtype=torch.bfloat16)
    y = torch.empty_like(x)
    ms = median_ms(lambda: y.copy_(x))
    moved = 2 * x.numel() * x.element_size()
    return {"bytes": moved, "ms": ms, "tb_s": moved / ms / 1e9}


def gemm_shapes(smoke):
    if smoke:
        return [(64, 128, 256), (32, 16, 256)]
    shapes = []
    for t in (2048, 8192):
        shapes += [(t, 6144, 4096), (t, 4096, 4096), (t, 28672, 4096), (t, 4096, 14336)]  # Llama 3.1 8B
        shapes += [(t, 10240, 5120), (t, 51200, 5120), (t, 5120, 25600)]  # Qwen3 32B
        shapes += [(t, 16, 4096), (t, 4096, 16)]  # LoRA rank 16
    shapes += [(4096, 14336, 8192), (14336, 4096, 8192)]  # weight-gradient GEMMs (K = tokens)
    for m in (64, 128, 256, 512, 1024):
        shapes += [(m, 1536, 2048), (m, 2048, 768)]  # one Qwen3-30B-A3B expert
        shapes += [(m, 4096, 7168), (m, 7168, 2048)]  # one DeepSeek-V3 expert
    return shapes


def gemms(dev, smoke):
    out = []
    fp8 = dev == "cuda" and torch.cuda.get_device_capability()[0] >= 9
    for m, n, k in gemm_shapes(smoke):
        a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        w = torch.randn(n, k, device=dev, dtype=torch.bfloat16)
        row = {"m": m, "n": n, "k": k, "bf16_ms": median_ms(lambda a=a, w=w: F.linear(a, w))}
        row["bf16_tflops"] = 2 * m * n * k / row["bf16_ms"] / 1e9
        if fp8:
            try:
                a8, w8 = a.to(torch.float8_e4m3fn), w.to(torch.float8_e4m3fn)
                one = torch.ones((), device=dev, dtype=torch.float32)
                # tensorwise scales; the second operand column-major, as cuBLASLt's FP8 wants
                row["fp8_ms"] = median_ms(
                    lambda a8=a8, w8=w8, one=one: torch._scaled_mm(a8, w8.t(), one, one, out_dtype=torch.bfloat16)
                )
                row["fp8_tflops"] = 2 * m * n * k / row["fp8_ms"] / 1e9
            except Exception as exc:
                row["fp8_error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
        out.append(row)
    return out


def _grouped(x, w_t, offs):
    if hasattr(F, "grouped_mm"):
        return F.grouped_mm(x, w_t, offs=offs)
    return torch._grouped_mm(x, w_t, offs=offs)


def grouped_gemms(dev, smoke):
    """Experts with `t` tokens each: one grouped GEMM against a Python loop of F.linear."""
    cases = (
        [(8, 16, 128, 64)]
        if smoke
        else [(128, t, n, k) for t in (16, 64, 128, 512) for n, k in ((1536, 2048), (2048, 768))]
        + [(32, t, n, k) for t in (128, 512) for n, k in ((4096, 7168), (7168, 2048))]
    )
    out = []
    for e, t, n, k in cases:
        x = torch.randn(e * t, k, device=dev, dtype=torch.bfloat16)
        w = torch.randn(e, n, k, device=dev, dtype=torch.bfloat16)
        offs = torch.arange(t, e * t + 1, t, device=dev, dtype=torch.int32)
        flops = 2 * e * t * n * k
        row = {"experts": e, "tokens_per_expert": t, "n": n, "k": k}
        try:
            row["grouped_ms"] = median_ms(lambda x=x, w=w, offs=offs: _grouped(x, w.transpose(-2, -1), offs))
            row["grouped_tflops"] = flops / row["grouped_ms"] / 1e9
        except Exception as exc:
            row["grouped_error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
        chunks = x.split(t)
        row["loop_ms"] = median_ms(lambda c=chunks, w=w, e=e: [F.linear(c[i], w[i]) for i in range(e)], reps=5)
        row["loop_tflops"] = flops / row["loop_ms"] / 1e9
        out.append(row)
    return out


def _sdpa(q, k, v, backend):
    from torch.nn.attention import sdpa_kernel

    if backend is None:
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    with sdpa_kernel([backend]):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def _backward(fn, inputs, module=None):
    """One forward and backward of fn(); gradients dropped after."""
    y = fn()
    y = y[0] if isinstance(y, tuple) else y
    y.backward(torch.ones_like(y))
    for t in inputs:
        t.grad = None
    if module is not None:
        module.zero_grad(set_to_none=True)


def attention(dev, smoke):
    """Causal SDPA, bf16, head dim 128; FLOPs counted causal (half the square), backward 2.5x."""
    from torch.nn.attention import SDPBackend

    backends = {"default": None}
    if dev == "cuda":
        backends.update(
            flash=SDPBackend.FLASH_ATTENTION, cudnn=SDPBackend.CUDNN_ATTENTION, efficient=SDPBackend.EFFICIENT_ATTENTION
        )
    out = []
    for s in (128,) if smoke else (2048, 8192):
        b, h, d = (1, 2, 32) if smoke else (2, 32, 128)
        q, k, v = (torch.randn(b, h, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
        fwd_flops = 4 * b * h * s * s * d / 2
        for name, backend in backends.items():
            row = {"seq": s, "batch": b, "heads": h, "head_dim": d, "backend": name}
            fwd = partial(_sdpa, q, k, v, backend)
            try:
                row["fwd_ms"] = median_ms(fwd)
                row["fwd_bwd_ms"] = median_ms(partial(_backward, fwd, (q, k, v)))
                row["fwd_tflops"] = fwd_flops / row["fwd_ms"] / 1e9
                bwd_ms = row["fwd_bwd_ms"] - row["fwd_ms"]
                row["bwd_tflops"] = 2.5 * fwd_flops / bwd_ms / 1e9 if bwd_ms > 0 else None
            except Exception as exc:
                row["error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
            out.append(row)
    return out


def moe_block(dev, smoke):
    """One Qwen3-30B-A3B sparse MoE block on 2,048 tokens (random routing by a random router)."""
    from transformers import Qwen3MoeConfig
    from transformers.models.qwen3_moe.modeling_qwen3_moe import Qwen3MoeSparseMoeBlock

    out = []
    shape = SHAPES["qwen3-30b-a3b"]
    tokens = 64 if smoke else 2048
    for impl in ("eager", "grouped_mm"):
        cfg = Qwen3MoeConfig(
            hidden_size=TINY["hidden"] if smoke else shape["hidden"],
            moe_intermediate_size=TINY["expert_ffn"] if smoke else shape["expert_ffn"],
            num_experts=TINY["experts"] if smoke else shape["experts"],
            num_experts_per_tok=2 if smoke else shape["top_k"],
            norm_topk_prob=True,
        )
        cfg._experts_implementation = impl
        with torch.device(dev):
            block = Qwen3MoeSparseMoeBlock(cfg).to(torch.bfloat16)
        for p in block.parameters():
            torch.nn.init.normal_(p, std=0.02)
        x = torch.randn(1, tokens, cfg.hidden_size, device=dev, dtype=torch.bfloat16, requires_grad=True)
        row = {"impl": impl, "tokens": tokens}
        row["fwd_ms"] = median_ms(partial(block, x), reps=5)
        row["fwd_bwd_ms"] = median_ms(partial(_backward, partial(block, x), (x,), block), reps=5)
        out.append(row)
    return out


# ---------------------------------------------------------------- part 2: training steps


def hf_config(model, smoke, experts_impl):
    from transformers import LlamaConfig, Qwen2Config, Qwen3Config, Qwen3MoeConfig

    s = dict(SHAPES[model])
    if smoke:
        s.update({k: v for k, v in TINY.items() if k in s})
    common = dict(
        hidden_size=s["hidden"],
        intermediate_size=s["ffn"],
        num_hidden_layers=s["layers"],
        num_attention_heads=s["heads"],
        num_key_value_heads=s["kv"],
        head_dim=s["head_dim"],
        vocab_size=s["vocab"],
        tie_word_embeddings=s["tied"],
        max_position_embeddings=32768,
    )
    if s["family"] == "llama":
        return LlamaConfig(**common, rope_theta=500000.0)
    if s["family"] == "qwen3":
        return Qwen3Config(**common)
    if s["family"] == "qwen2":  # q, k and v with biases, as Qwen2 builds them
        return Qwen2Config(**common)
    cfg = Qwen3MoeConfig(
        **common,
        num_experts=s["experts"],
        num_experts_per_tok=2 if smoke else s["top_k"],
        moe_intermediate_size=s["expert_ffn"],
        norm_topk_prob=True,
        decoder_sparse_step=1,
        mlp_only_layers=[],
    )
    return cfg


def build_step(dev, smoke, model, method, seq, mbs, recompute, targets, experts_impl, compiled=False):
    """The model of one case, built as HF Trainer would run it, and its training step:
    (step, net, config, trainable parameters, seconds to build)."""
    from transformers import AutoModelForCausalLM

    gc.collect()
    if dev == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    cfg = hf_config(model, smoke, experts_impl)
    kwargs = {"attn_implementation": "sdpa"}
    if experts_impl:
        kwargs["experts_implementation"] = experts_impl
    # full fine-tuning keeps fp32 master weights (HF Trainer with bf16=True on an fp32 model);
    # LoRA freezes a bf16 base and trains fp32 adapters (PEFT's default autocast_adapter_dtype)
    dtype = torch.float32 if method == "full" else torch.bfloat16
    t0 = time.perf_counter()
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device(dev):
            net = AutoModelForCausalLM.from_config(cfg, **kwargs)
    finally:
        torch.set_default_dtype(previous)
    if recompute == "full":
        net.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    net.config.use_cache = False
    if method == "lora":
        from peft import LoraConfig, get_peft_model

        net = get_peft_model(
            net, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, target_modules=LORA_TARGETS[targets])
        )
    net.train()
    params = [p for p in net.parameters() if p.requires_grad]
    if compiled:
        net = torch.compile(net)
    opt = torch.optim.AdamW(params, lr=1e-5, fused=dev == "cuda")
    build_s = time.perf_counter() - t0
    vocab = cfg.vocab_size
    ids = torch.randint(0, vocab, (mbs, seq), device=dev)

    def step():
        with torch.autocast(dev, dtype=torch.bfloat16):
            loss = net(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    return step, net, cfg, params, build_s


def training_case(dev, smoke, model, method, seq, mbs, recompute, targets, experts_impl, compiled=False):
    step, net, cfg, params, build_s = build_step(
        dev, smoke, model, method, seq, mbs, recompute, targets, experts_impl, compiled
    )
    warm, reps = (1, 2) if smoke else (2, 4)
    for _ in range(warm):
        step()
    sync()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - t)
    step_s = statistics.median(times)
    row = {
        "model": model,
        "method": method,
        "compiled": compiled,
        "seq": seq,
        "micro_batch": mbs,
        "recompute": recompute,
        "lora_targets": targets,
        "experts_impl": experts_impl,
        "build_s": build_s,
        "params": sum(p.numel() for p in net.parameters()),
        "trainable": sum(p.numel() for p in params),
        "step_s": step_s,
        "step_s_all": times,
        "tokens_per_s": mbs * seq / step_s,
        # what the run really used, read back from the model
        "base_dtype": str(next(p for p in net.parameters() if not p.requires_grad or method == "full").dtype),
        "trainable_dtype": str(params[0].dtype),
        "attn_impl_used": getattr(net.config, "_attn_implementation", None),
        "experts_impl_used": getattr(net.config, "_experts_implementation", None),
        "checkpointing": bool(getattr(net, "is_gradient_checkpointing", False)),
    }
    if dev == "cuda":
        free, total = torch.cuda.mem_get_info()
        row.update(
            peak_allocated_gib=torch.cuda.max_memory_allocated() / GIB,
            peak_reserved_gib=torch.cuda.max_memory_reserved() / GIB,
            device_used_gib=(total - free) / GIB,
        )
    return row


def environment(dev):
    import transformers

    env = {"torch": torch.__version__, "transformers": transformers.__version__, "python": sys.version.split()[0]}
    try:
        import peft

        env["peft"] = peft.__version__
    except ImportError:
        env["peft"] = None
    if dev == "cuda":
        p = torch.cuda.get_device_properties(0)
        env.update(
            gpu=p.name,
            sms=p.multi_processor_count,
            memory_gib=p.total_memory / GIB,
            capability=list(torch.cuda.get_device_capability()),
        )
    return env


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--smoke", action="store_true", help="tiny shapes, any device: checks the script runs")
    ap.add_argument("--budget-s", type=float, default=400, help="stop starting training cases after this")
    ap.add_argument("--skip-kernels", action="store_true")
    ap.add_argument("--set", choices=tuple(SETS), default="fit", help="which training steps")
    args = ap.parse_args(argv)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    results = {"environment": environment(dev), "kernels": {}, "training": {}}
    path = out / "device_results.json"

    def save():
        path.write_text(json.dumps(results, indent=1))

    log("environment", results["environment"])
    if not args.skip_kernels:
        for key, fn in (
            ("hbm_copy", hbm_copy),
            ("gemm", gemms),
            ("grouped_gemm", grouped_gemms),
            ("attention", attention),
            ("moe_block", moe_block),
        ):
            guarded(results["kernels"], key, lambda fn=fn: fn(dev, args.smoke))
            save()
    compiled = args.set == "compiled"
    for key, *case in SETS[args.set]:
        if time.perf_counter() - started > args.budget_s:
            results["training"][key] = {"error": "skipped: out of time"}
            continue
        guarded(results["training"], key, lambda case=case: training_case(dev, args.smoke, *case, compiled))
        save()
    summary(results)
    return 0


def summary(results):
    k = results["kernels"]
    if "tb_s" in k.get("hbm_copy", {}):
        log(f"HBM copy {k['hbm_copy']['tb_s']:.2f} TB/s")
    for r in k.get("gemm", []) if isinstance(k.get("gemm"), list) else []:
        fp8 = f"{r['fp8_tflops']:7.0f}" if "fp8_tflops" in r else "      -"
        log(f"gemm {r['m']:>5}x{r['n']:>5}x{r['k']:>5} bf16 {r['bf16_tflops']:7.0f} fp8 {fp8} TFLOP/s")
    for r in k.get("grouped_gemm", []) if isinstance(k.get("grouped_gemm"), list) else []:
        g = f"{r['grouped_tflops']:6.0f}" if "grouped_tflops" in r else "     -"
        log(
            f"experts {r['experts']:>3} x {r['tokens_per_expert']:>4} tok {r['n']}x{r['k']}: grouped {g} "
            f"loop {r['loop_tflops']:6.0f} TFLOP/s"
        )
    for r in k.get("attention", []) if isinstance(k.get("attention"), list) else []:
        if "fwd_tflops" in r:
            bwd = f"{r['bwd_tflops']:.0f}" if r.get("bwd_tflops") else "-"
            log(f"sdpa s{r['seq']} {r['backend']:>9}: fwd {r['fwd_tflops']:.0f} bwd {bwd} TFLOP/s")
        else:
            log(f"sdpa s{r['seq']} {r['backend']:>9}: {r.get('error')}")
    for r in k.get("moe_block", []) if isinstance(k.get("moe_block"), list) else []:
        log(f"moe block {r['impl']:>10}: fwd {r['fwd_ms']:.1f} ms, fwd+bwd {r['fwd_bwd_ms']:.1f} ms")
    for key, r in results["training"].items():
        if "error" in r:
            log(f"{key}: {r['error']}")
        else:
            mem = (
                f"alloc {r['peak_allocated_gib']:.1f} reserved {r['peak_reserved_gib']:.1f} "
                f"used {r['device_used_gib']:.1f} GiB"
                if "peak_allocated_gib" in r
                else ""
            )
            log(f"{key}: {r['step_s']:.3f} s/step {r['tokens_per_s']:.0f} tok/s {mem}")
    for key, v in k.items():
        if isinstance(v, dict) and "error" in v:
            log(f"kernel {key}: {v['error']}")


if __name__ == "__main__":
    sys.exit(main())
