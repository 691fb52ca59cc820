"""Other estimators run on the same calibration cases, for bench/accuracy.py.

Three comparators, each a key of the dicts returned here:

* "naive": the rule of thumb. Time: 6*N*D FLOPs at 40% of the dense tensor peak of the
  precision asked for. Memory: the common "16 bytes per parameter for full training,
  2 bytes per parameter of LoRA base weights, 0.5 for a QLoRA (4-bit) base", with no
  activations, no adapters and no CUDA context.
* "deepspeed": DeepSpeed's published model-state estimators, recomputed here from their
  formulas (DeepSpeed is not installed). Memory only; DeepSpeed has no time estimate.
* "llm-analysis": the PyPI package llm-analysis (`pip install llm-analysis`, tested with
  0.2.2), run offline through its `LLMAnalysis` class with `ModelConfig`/`GPUConfig`
  built from data/models.toml and data/gpus.toml (no Hugging Face look-up, no bundled
  config files).

Each comparator runs per case inside try/except: a case the comparator cannot express is
left out and its reason recorded in UNSUPPORTED[(comparator, case.row)]; an unexpected
error is also left out, recorded in ERRORS and printed to stderr, so that a systematic bug
shows up instead of quietly emptying a column.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

from advisor import catalog  # noqa: E402
from advisor.engine.shapes import count_params  # noqa: E402
from advisor.planning.engine_inputs import model_shape  # noqa: E402
from advisor.request.parser import parse  # noqa: E402

# (comparator, case row) -> why the comparator gives no value for that case.
UNSUPPORTED: dict[tuple[str, str], str] = {}
# (comparator, case row) -> the unexpected error (also printed to stderr).
ERRORS: dict[tuple[str, str], str] = {}
# case row -> the layout llm-analysis was run with (tp, pp, dp, ZeRO stage, batch, ...).
LLM_ANALYSIS_SETUP: dict[str, dict] = {}


class Unsupported(Exception):
    """The comparator cannot express this case; the message says why."""


def _request(case):
    req = parse(case.request)
    return req, model_shape(req), catalog.get_gpu(req.gpu)


def _run(name, case, fn, *args):
    try:
        return fn(*args)
    except Unsupported as e:
        UNSUPPORTED[(name, case.row)] = str(e)
    except Exception as e:  # noqa: BLE001 - reported, not hidden
        msg = f"{type(e).__name__}: {e}"
        ERRORS[(name, case.row)] = msg
        print(f"comparators: {name} failed on {case.row!r}: {msg}", file=sys.stderr)
    return None


# ------------------------------------------------------------------------- naive ---

NAIVE_MFU = 0.40
# The common rule of thumb for training memory, bytes per parameter (no activations):
# mixed-precision Adam = 2 weights + 2 grads + 4 master + 8 moments = 16; LoRA holds the
# base weights in 16 bits = 2; QLoRA holds them in 4 bits = 0.5.
NAIVE_BYTES_PER_PARAM = {"full": 16.0, "lora": 2.0, "qlora": 0.5}


def _naive_time(req, shape, gpu):
    n = shape.params_b * 1e9  # total parameters, as published
    d = req.tokens
    peak = gpu.peak_tflops(req.precision) * 1e12  # bf16 peak; fp16 peak for fp16 requests
    gpu_seconds = 6 * n * d / (NAIVE_MFU * peak)  # GPU-hours need no count; days do
    return {
        "gpu_hours": gpu_seconds / 3600,
        "days": gpu_seconds / req.gpu_count / 86400 if req.gpu_count else None,
        "tokens_per_s_per_gpu": NAIVE_MFU * peak / (6 * n),
        "mfu": NAIVE_MFU,
        "hw_tflops": NAIVE_MFU * peak / 1e12,
    }


def _naive_memory(req, shape, gpu):
    # "naive" memory = the bytes-per-parameter rule above, whatever the precision, batch or
    # sequence: that is what the rule of thumb says.
    kind = req.method if req.method in ("lora", "qlora") else "full"
    return NAIVE_BYTES_PER_PARAM[kind] * shape.params_b * 1e9 / 1e9


# --------------------------------------------------------------------- deepspeed ---
#
# The two functions below are DeepSpeed's, transcribed (returns in bytes):
#   deepspeed/runtime/zero/stage_1_and_2.py :: estimate_zero2_model_states_mem_needs
#     (deepspeedai/DeepSpeed @ 02aa38c3a55174c87b33c4ad17a304389d037443)
#   deepspeed/runtime/zero/stage3.py :: estimate_zero3_model_states_mem_needs
#     (deepspeedai/DeepSpeed @ 007cca6a2ffe3ed9d393459f4a3081bd54341ba6)
# They count model states only (weights, gradients, optimizer states): no activations, no
# CUDA context, no allocator slack. (Older DeepSpeed releases had 4*P + 16*P/gpus for
# ZeRO-2 without offload; the current file says 2*P + 18*P/gpus.)


def estimate_zero2_model_states_mem_needs(
    total_params, num_gpus_per_node=1, num_nodes=1, cpu_offload=True, additional_buffer_factor=1.5
):
    total_gpus = num_nodes * num_gpus_per_node
    if cpu_offload:
        gpu_mem = 2 * total_params
        cpu_mem = total_params * max(4 * total_gpus, 16) * additional_buffer_factor
    else:
        # GPU's total_params multipliers: 2 = params_16bit,
        # 18 = 2_grads_16bit + 4_grads_32bit + 4_params_32bit + 8_optimizer_states_32bit
        gpu_mem = 2 * total_params + int(18 * total_params / total_gpus)
        cpu_mem = total_params * 4 * num_gpus_per_node * additional_buffer_factor
    return int(cpu_mem), int(gpu_mem)


def estimate_zero3_model_states_mem_needs(
    total_params,
    largest_layer_params,
    num_gpus_per_node=1,
    num_nodes=1,
    cpu_offload=True,
    cpu_offload_params=True,
    zero_init=True,
    additional_buffer_factor=1.5,
):
    total_gpus = num_nodes * num_gpus_per_node
    gpus_factor = 1 / num_nodes
    largest_layer_memory = 4 * largest_layer_params
    if cpu_offload:
        if cpu_offload_params:
            gpu_mem = largest_layer_memory
            if zero_init:
                cpu_mem = total_params * 18 * gpus_factor * additional_buffer_factor
            else:
                cpu_mem = total_params * max(4 * num_gpus_per_node, 18 * gpus_factor) * additional_buffer_factor
        else:
            gpu_mem = largest_layer_memory + int(2 * total_params / total_gpus)
            if zero_init:
                cpu_mem = total_params * 16 * gpus_factor * additional_buffer_factor
            else:
                cpu_mem = total_params * max(4 * num_gpus_per_node, 16 * gpus_factor) * additional_buffer_factor
    else:
        gpu_mem = largest_layer_memory + int(18 * total_params / total_gpus)
        if zero_init:
            cpu_mem = largest_layer_params * 4 * num_gpus_per_node * additional_buffer_factor
        else:
            cpu_mem = total_params * 4 * num_gpus_per_node * additional_buffer_factor
    return int(cpu_mem), int(gpu_mem), largest_layer_memory


def _lora_trainable(shape, rank, targets):
    """LoRA adds A (r x in) and B (out x r) to every targeted linear of every layer."""
    h = shape.hidden
    q, kv = shape.heads * shape.head_dim, shape.kv_heads * shape.head_dim
    ffn = shape.ffn_hidden
    linears = {
        "qv": [(h, q), (h, kv)],
        "attn": [(h, q), (h, kv), (h, kv), (q, h)],
        "all": [(h, q), (h, kv), (h, kv), (q, h), (h, ffn), (h, ffn), (ffn, h)],
    }[targets]
    return shape.layers * sum(rank * (i + o) for i, o in linears)


def _largest_layer_params(shape):
    """DeepSpeed's model_to_params: the largest single module's own parameters (an
    embedding table or one linear), as a module-by-module walk of an HF decoder finds it."""
    h = shape.hidden
    return max(shape.vocab * h, h * shape.ffn_hidden, h * shape.heads * shape.head_dim)


def _deepspeed_memory(req, shape, gpu):
    if shape.is_moe:
        raise Unsupported("ZeRO formulas take one parameter count; expert parallelism is not in them")
    per_node = max(1, min(req.gpu_count, gpu.gpus_per_server))
    nodes = math.ceil(req.gpu_count / per_node)
    offload_opt = req.offload in ("optimizer", "all")

    def model_states(params):
        if req.zero_stage == 3:
            _, gpu_mem, _ = estimate_zero3_model_states_mem_needs(
                params,
                _largest_layer_params(shape),
                per_node,
                nodes,
                cpu_offload=offload_opt,
                cpu_offload_params=req.offload == "all",
            )
        else:  # no ZeRO stage given, 1 or 2, single GPU included: the ZeRO-2 formula
            _, gpu_mem = estimate_zero2_model_states_mem_needs(params, per_node, nodes, cpu_offload=offload_opt)
        return gpu_mem

    total = count_params(shape).total
    if req.method not in ("lora", "qlora"):
        return model_states(total) / 1e9
    # Our adaptation to LoRA/QLoRA (DeepSpeed has no PEFT estimator): the ZeRO formula on
    # the trainable adapter parameters only, plus the frozen base weights held once: 2 bytes
    # per parameter (4 for fp32 requests). For QLoRA the base's block linears are 4-bit
    # (0.5 bytes); its embeddings, output head and norms stay 16-bit.
    trainable = _lora_trainable(shape, req.lora_rank or 16, req.lora_targets or "all")
    if req.method == "qlora":
        c = count_params(shape)
        non_linear = c.embedding + c.output + shape.layers * c.norms_per_layer
        frozen = (total - non_linear) * 0.5 + non_linear * 2
    else:
        frozen = total * (4 if req.precision == "fp32" else 2)
    return (model_states(trainable) + frozen) / 1e9


# ------------------------------------------------------------------ llm-analysis ---
#
# llm-analysis 0.2.2, used through `LLMAnalysis(model_config, gpu_config, dtype_config,
# parallelism_config).training(...)`. Notes on how it models things (read from its source,
# llm_analysis/analysis.py), which shape what it can say:
# * Training time is pure compute: (fwd + bwd + recompute FLOPs) / (peak_fp16_TFLOPS *
#   flops_efficiency); no communication or pipeline bubble enters it. flops_efficiency and
#   hbm_memory_efficiency are left at the package defaults, which are 1.0 (its README: "gives
#   the lower bound of training ... latency"). So its MFU is 1.0 (0.75 with full
#   recompute) and its hw_tflops is the peak: by design, not a bug here.
# * Its MLP FLOPs are hard-coded to 16*b*s*h^2 (a 4h two-matrix MLP) whatever ffn_embed_dim
#   says; ffn_embed_dim only sets parameter counts and activation memory. Its parameter
#   count takes 2*h*ffn_embed_dim for the MLP, so a SwiGLU model (3 matrices) is given
#   ffn_embed_dim = 1.5 * ffn_hidden (same parameters; the package's own bundled Llama
#   configs do the same with 4h) and mlp_gated_linear_units=True. It always counts the
#   embedding as tied and has no learned-position table.
# * The parallel layout only changes memory (and so the largest batch that fits), never
#   the time. tp = 8 inside a node for models of 30B parameters or more, else 1; pp = 1;
#   dp = GPUs / tp; the request's ZeRO stage when it names one, else the lowest stage
#   (0..3) at which weights, states and the micro batch's activations fit in the GPU.
# * Memory = weights + gradients + optimizer states + activations (its
#   "(weight+op_state+grad+act)_memory_per_gpu", bytes -> decimal GB); no CUDA context, so
#   the same figure stands for torch and nvidia-smi readings.

# None = the package default (1.0, peak). Its README suggests "up to 0.5" for large-scale
# training when one has to assume a figure; kept at the default here, as specified.
LLA_FLOPS_EFFICIENCY = None
LLA_TP_MIN_PARAMS_B = 30.0
LLA_TP = 8
# Fields llm-analysis's GPUConfig needs that data/gpus.toml has no figure for: its own
# defaults / bundled A100 and H100 values.
LLA_INTRA_NODE_MIN_LATENCY_S = 8e-6
LLA_INTER_NODE_GB_S = 200  # GPUConfig default ("Mellanox 200Gbps HDR Infiniband")

_lla = None


def _llm_analysis():
    global _lla
    if _lla is None:
        # Its logger is named "__name__"; keep its INFO output and the import-time warning
        # about `transformers` (only used for Hugging Face look-ups) off the table.
        logging.getLogger("__name__").setLevel(logging.ERROR)
        from llm_analysis import analysis, config

        _lla = (analysis, config)
    return _lla


def _lla_model_config(config, shape):
    ffn = shape.ffn_hidden * (1.5 if shape.ffn_type == "swiglu" else 1)
    return config.ModelConfig(
        name=shape.name,
        num_layers=shape.layers,
        n_head=shape.heads,
        hidden_dim=shape.hidden,
        vocab_size=shape.vocab,
        max_seq_len=shape.max_seq,
        num_key_value_heads=shape.kv_heads,
        ffn_embed_dim=int(ffn),
        expansion_ratio=ffn / shape.hidden,  # given, so that a non-integer ratio is accepted
        model_type=shape.family,
    )


def _lla_gpu_config(config, gpu, precision):
    return config.GPUConfig(
        name=gpu.name,
        # llm-analysis multiplies this by 1024**3: it means GiB.
        mem_per_GPU_in_GB=gpu.usable_memory_gib,
        hbm_bandwidth_in_GB_per_sec=gpu.memory_bw_tb_s * 1000,
        # gpus.toml gives the bidirectional total; llm-analysis's bundled configs use one
        # direction (A100: 300 for NVLink3's 600).
        intra_node_bandwidth_in_GB_per_sec=gpu.intra_node_bw_gb_s / 2,
        intra_node_min_message_latency=LLA_INTRA_NODE_MIN_LATENCY_S,
        # Its 16-bit GEMM peak: the bf16 peak for bf16 requests, the fp16 one for fp16.
        peak_fp16_TFLOPS=gpu.peak_tflops(precision),
        peak_i8_TFLOPS=gpu.fp8_dense_tflops or None,  # None: its default, 2x the 16-bit peak
        inter_node_bandwidth_in_GB_per_sec=LLA_INTER_NODE_GB_S,
    )


def _lla_check(req, shape, for_memory):
    if req.method in ("lora", "qlora"):
        raise Unsupported(f"llm-analysis has no {req.method.upper()} (adapters on a frozen base) mode")
    if shape.is_moe or shape.uses_mla:
        raise Unsupported(
            "llm-analysis MoE is uniform experts with MLP FLOPs fixed at 16bsh^2; "
            "shared experts, dense layers and MLA are not expressible"
        )
    if req.precision in ("fp32", "fp8"):
        raise Unsupported(f"llm-analysis trains with 16-bit GEMMs only ({req.precision} not expressible)")
    if for_memory and (req.offload != "none" or req.opt_in_backward):
        missing = [
            what
            for what, used in (
                (f"offload of {req.offload} to host memory", req.offload != "none"),
                ("optimizer-in-backward", req.opt_in_backward),
            )
            if used
        ]
        raise Unsupported(
            f"llm-analysis has no {' nor '.join(missing)}: it would hold every optimizer state and gradient on the GPU"
        )
    if req.optimizer == "sgd":
        raise Unsupported("llm-analysis optimizer states are Adam-like (other_op_bytes); SGD not mapped")


def _lla_run(req, shape, gpu, row, for_memory=False, flops_efficiency=None):
    analysis, config = _llm_analysis()
    tp = LLA_TP if shape.params_b >= LLA_TP_MIN_PARAMS_B else 1
    tp = min(tp, req.gpu_count, gpu.gpus_per_server)
    while req.gpu_count % tp:
        tp //= 2
    dp = req.gpu_count // tp
    recompute = {
        None: analysis.ActivationRecomputation.NONE,  # not given: its default
        "none": analysis.ActivationRecomputation.NONE,
        "selective": analysis.ActivationRecomputation.SELECTIVE,
        "full": analysis.ActivationRecomputation.FULL,
    }[req.recompute]
    pure = req.precision == "pure-bf16"
    # Optimizer bytes per parameter besides the master copy: AdamW 2 moments.
    other_op_bytes = {"adamw": 4 if pure else 8, "adamw8bit": 2, "lion": 2 if pure else 4}[req.optimizer]
    master_bytes = 2 if pure else 4
    mbs = req.micro_batch or 1
    batch_kwargs = {"batch_size_per_gpu": mbs}
    if req.global_batch and req.global_batch % (mbs * dp) == 0:
        batch_kwargs["global_batch_size"] = req.global_batch
    else:
        batch_kwargs["gradient_accumulation_steps"] = 1

    model_cfg = _lla_model_config(config, shape)
    gpu_cfg = _lla_gpu_config(config, gpu, req.precision)
    last_err = None
    stages = (req.zero_stage,) if req.zero_stage is not None else (0, 1, 2, 3)
    attempts = [(zero, gpu_cfg) for zero in stages]
    if for_memory:
        # Its memory figures do not depend on the card's capacity (only the largest batch
        # does): when nothing fits, still report what it predicts, over the capacity.
        big = dataclasses.replace(gpu_cfg, mem_per_GPU_in_GB=1e6)
        attempts.append((stages[-1], big))
    for zero, gpu_c in attempts:
        lla = analysis.LLMAnalysis(
            model_cfg,
            gpu_c,
            config.DtypeConfig(),  # w16a16e16
            config.ParallelismConfig(tp_size=tp, pp_size=1, dp_size=dp),
            flops_efficiency=flops_efficiency if flops_efficiency is not None else LLA_FLOPS_EFFICIENCY,
            # hbm_memory_efficiency: package default (1.0)
        )
        try:
            summary = lla.training(
                seq_len=req.seq_len,
                total_num_tokens=req.tokens,
                activation_recomputation=recompute,
                ds_zero=analysis.DSZeRO(zero),
                master_weights_dtype_bytes=master_bytes,
                other_op_bytes=other_op_bytes,
                flash_attn=True,
                mlp_gated_linear_units=shape.ffn_type == "swiglu",
                **batch_kwargs,
            )
        except AssertionError as e:
            if "max_batch_size_per_gpu" not in str(e):
                raise
            last_err = e  # the micro batch does not fit at this ZeRO stage: try the next
            continue
        if summary["memory_left_per_gpu"] < 0:
            # With a global batch given, llm-analysis does not check the fit itself.
            last_err = f"{summary['memory_left_per_gpu'] / 1e9:.1f} GB short at ZeRO-{zero}"
            continue
        LLM_ANALYSIS_SETUP[row] = {
            "tp": tp,
            "pp": 1,
            "dp": dp,
            "zero": zero,
            "micro_batch": summary["batch_size_per_gpu"],
            "grad_accum": summary["gradient_accumulation_steps"],
            "recompute": recompute.name,
            "flops_efficiency": lla.flops_efficiency,
            "fits": gpu_c is gpu_cfg,
        }
        return lla, summary, mbs, tp
    raise Unsupported(f"micro batch {mbs} does not fit even with ZeRO-3 at tp={tp}, pp=1: {last_err}")


def _lla_time(req, shape, gpu, row, flops_efficiency=None):
    _lla_check(req, shape, for_memory=False)
    lla, s, mbs, tp = _lla_run(req, shape, gpu, row, flops_efficiency=flops_efficiency)
    mp = tp  # pp = 1
    seq = s["seq_len"]
    per_gpu_s = s["latency_per_micro_batch"] * mp  # GPU-seconds per micro batch
    model_flops = 3 * lla.get_num_flops_fwd_total(mbs, seq)  # fwd + bwd (= 2 x fwd), no recompute
    peak = gpu.peak_tflops(req.precision) * 1e12
    return {
        "gpu_hours": s["gpu_hours"],
        "days": s["total_training_latency"] / 86400,
        "tokens_per_s_per_gpu": mbs * seq / per_gpu_s,
        "mfu": model_flops / per_gpu_s / peak,
        "hw_tflops": s["num_flops_total_per_micro_batch"] / per_gpu_s / 1e12,
    }


def _lla_memory(req, shape, gpu, row):
    _lla_check(req, shape, for_memory=True)
    _, s, _, _ = _lla_run(req, shape, gpu, row, for_memory=True)
    return s["(weight+op_state+grad+act)_memory_per_gpu"] / 1e9


# ------------------------------------------------------------------------- entry ---


def predict_time(case) -> dict[str, dict[str, float]]:
    req, shape, gpu = _request(case)
    out = {}
    # llm-analysis twice: at its default flops_efficiency (1.0, "the lower bound of latency")
    # and at 0.5, the efficiency its README suggests for a realistic estimate.
    for name, fn, args in (
        ("naive", _naive_time, (req, shape, gpu)),
        ("llm-analysis", _lla_time, (req, shape, gpu, case.row)),
        ("llm-analysis@0.5", _lla_time, (req, shape, gpu, case.row, 0.5)),
    ):
        value = _run(name, case, fn, *args)
        if value is not None:
            out[name] = value
    return out


def predict_memory(case) -> dict[str, float]:
    """Peak GB per GPU, decimal. DeepSpeed's figure is model states only."""
    req, shape, gpu = _request(case)
    out = {}
    for name, fn, args in (
        ("naive", _naive_memory, (req, shape, gpu)),
        ("deepspeed", _deepspeed_memory, (req, shape, gpu)),
        ("llm-analysis", _lla_memory, (req, shape, gpu, case.row)),
    ):
        value = _run(name, case, fn, *args)
        if value is not None:
            out[name] = value
    return out


if __name__ == "__main__":
    from cases import MEMORY_CASES, TIME_CASES

    for c in TIME_CASES:
        print(c.row, predict_time(c))
    for c in MEMORY_CASES:
        print(c.row, predict_memory(c))
    print("llm-analysis setup:", LLM_ANALYSIS_SETUP)
    print("unsupported:", UNSUPPORTED)
    print("errors:", ERRORS)
