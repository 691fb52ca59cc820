"""Training FLOPs, achieved throughput and wall time.

FLOPs per token: 6*N for forward and backward over the N parameters a token passes through
(Kaplan et al. 2020; active parameters for MoE), plus 12*L*s*q for attention scores and
values (Narayanan et al. 2021, eq. 3; Chowdhery et al. 2022 App. B). LoRA and QLoRA skip the
weight-gradient matmuls of the frozen base, so they cost 4*N. Full recompute runs the
forward twice (hardware FLOPs 8*N instead of 6*N, Narayanan et al. 2021).

Achieved speed is a product of physical efficiencies, each explained in `Throughput.notes`:
  node:     matmul efficiency and the share of time in memory-bound kernels, which grows
            with the GPU's FLOP/byte ratio and shrinks with the hidden size (a roofline
            argument: elementwise work per token scales with h, matmul work with h^2);
  tensor:   tensor-parallel all-reduces per layer over NVLink (Megatron-LM, 4 per layer);
  pipeline: the bubble of the interleaved 1F1B schedule, (p-1)/(v*m+p-1) with v model
            chunks per GPU (Narayanan et al. 2021, Sec 2.2.2);
  data:     gradient (and ZeRO-3 parameter) traffic over NVLink or the network, partly
            hidden behind the backward pass;
  scale:    stragglers of synchronous training, slowly growing with the node count;
  offload:  PCIe transfers and the CPU optimizer step of ZeRO-Offload.
Goodput then removes time lost to failures, restarts and checkpoints, at the failure rate
Meta measured on 16,384 H100s (Llama 3 paper, Sec 3.3.4: 419 unexpected interruptions in
54 days, i.e. 4.7e-4 per GPU-day).
"""

from __future__ import annotations

import math

from pydantic import BaseModel

from advisor.engine.layout import Layout
from advisor.engine.setup import TrainingSetup
from advisor.engine.shapes import active_count, count_params
from advisor.engine.specs import GPU, ModelShape

# Best fraction of dense peak a tuned training loop sustains when memory-bound work is
# negligible, and the weight of that work, both fitted to the published runs of
# shared/calibration (A100 MPT-7B 50%, LLaMA-65B 50%; H100 MPT-70B 41%, Megatron 462B 47%)
# with the roofline form mfu = 1 / (1/ETA_MAX + KAPPA * (peak/bandwidth) / hidden).
ETA_MAX = 0.60
KAPPA = 8.9
# Software maturity outside CUDA: published MI300X and Ascend training runs reach a smaller
# share of peak than the roofline alone predicts (assumed; no calibration row covers them).
SOFTWARE = {"AMD": 0.75, "Huawei": 0.7}
# Failures per GPU-day (Llama 3 paper, Sec 3.3.4) and hours lost per failure. Meta kept more
# than 90% effective training time on 16K GPUs with automated restarts, i.e. about 0.3 h lost
# per failure; 0.5 h allows for a team with automatic restart and frequent checkpoints.
# Manual recovery costs hours per failure: the answer says so.
FAILURES_PER_GPU_DAY = 419 / (54 * 16384)
HOURS_LOST_PER_FAILURE = 0.5
# Share of time spent writing checkpoints (asynchronous checkpointing keeps it small).
CHECKPOINT_OVERHEAD = 0.02
# Fraction of the gradient traffic hidden behind the backward pass (bucketed all-reduce).
DP_OVERLAP = 0.8
# Share of tensor-parallel communication left exposed (Megatron overlaps some with compute).
TP_EXPOSED = 0.5
# Stragglers: efficiency lost per doubling of the node count (assumed 1%).
STRAGGLER_PER_DOUBLING = 0.01
# Inter-node bandwidth per GPU, GB/s, one direction: 8 x 400 Gb/s NDR for H100-class
# clusters, 8 x 200 Gb/s HDR for A100-class (DGX H100 / DGX A100 reference designs).
NETWORK_GBPS = {"ndr400": 50.0, "hdr200": 25.0, "roce100": 12.5}
# The fabric assumed when the user names none: NDR for data-centre GPUs released from 2022
# (the H100 generation's reference design), HDR before, 100 Gb RoCE for consumer cards (assumed).
NDR_FROM_RELEASE_YEAR = 2022
# ZeRO-Offload: host-device copies over PCIe and DeepSpeed's CPU Adam (Ren et al. 2021)
# at about 1e9 parameters a second per GPU's share of cores (assumed).
PCIE_GBPS = {3: 12.0, 4: 25.0, 5: 50.0}
PCIE_GBPS_UNKNOWN_GEN = 25.0  # assumed PCIe 4
CPU_ADAM_PARAMS_PER_S = 1e9
# Offload traffic per trainable parameter and step: 16-bit gradients out and 16-bit weights
# back (Ren et al. 2021, ZeRO-Offload: 2M + 2M bytes for M parameters). With offload "all"
# the weights also come in twice a step, 2 bytes each (forward and backward; assumed).
OFFLOAD_BYTES_PER_PARAM = 4
STREAMED_WEIGHT_BYTES, WEIGHT_PASSES_PER_STEP = 2, 2
# A step makes three matmul passes over the weights per token (forward, input gradient,
# weight gradient), 2 FLOPs a multiply-add each: 6N (Kaplan et al. 2020). LoRA and QLoRA skip
# the weight-gradient matmul of the frozen base (4N). Full recompute adds a second forward,
# 2N more and one pass of the attention's three (Narayanan et al. 2021: 8N instead of 6N).
# The backward's two passes are the time gradient traffic can hide behind.
FLOPS_PER_PARAM_FULL, FLOPS_PER_PARAM_PEFT, FLOPS_PER_PARAM_RECOMPUTE = 6, 4, 2
STEP_MATMUL_PASSES, BACKWARD_MATMUL_PASSES = 3, 2
ATTENTION_FLOPS_PER_LAYER_TOKEN_Q = 12  # 12*L*s*q (Narayanan et al. 2021, eq. 3)
# QLoRA dequantises NF4 weights before every matmul: about 30% slower than LoRA (assumed).
QLORA_DEQUANT_EFFICIENCY = 0.7
# Small matmuls run below peak: efficiency tokens/(tokens+256) relative to a micro-batch of
# 4096 tokens, the size of the calibration runs (assumed form and half-point).
SMALL_GEMM_HALF_TOKENS = 256
CALIBRATION_TOKENS_PER_MICROBATCH = 4096
# Tensor parallel: Megatron all-reduces the layer activations (s*b*h, 2 bytes) 4 times a layer
# (2 forward, 2 backward; Shoeybi et al. 2019, Megatron-LM, Sec 3), 6 with full recompute's
# second forward; a ring moves 2(t-1)/t of each. NVLink figures are bidirectional: half each way.
TP_ALLREDUCES_PER_LAYER, TP_ALLREDUCES_PER_LAYER_RECOMPUTE = 4, 6
TP_ACTIVATION_BYTES = 2
# Interleaved schedule: up to 4 model chunks per GPU when the layers allow (assumed).
MAX_VIRTUAL_STAGES = 4
# Data parallel: gradients move in 2 bytes (bf16 reduction, assumed whatever the precision); a
# ring all-reduce moves 2(d-1)/d of them; ZeRO-3 adds a parameter all-gather, 1.5x the
# traffic (ZeRO paper Sec 7).
GRADIENT_BYTES = 2
ZERO3_TRAFFIC = 1.5
# LoRA's trainable share of the model for gradient and offload traffic (assumed 2%, while
# memory.py counts the adapters exactly: kept so the figures stay as published).
PEFT_TRAINABLE_SHARE = 0.02
# The explanation leaves out factors within half a percent of 1.
EFFICIENCY_SHOWN_BELOW = 0.995


class Throughput(BaseModel):
    model_flops_per_token: float
    hardware_flops_per_token: float
    tokens_per_s_per_gpu: float
    mfu: float
    hfu: float
    efficiency: dict[str, float]
    goodput: float
    network: str
    notes: list[dict]  # the arithmetic as numbers; templates/explain.<lang>.j2 words it


def default_network(gpu: GPU) -> str:
    if gpu.consumer:
        return "roce100"
    return "ndr400" if gpu.release_year >= NDR_FROM_RELEASE_YEAR else "hdr200"


def flops_per_token(m: ModelShape, setup: TrainingSetup, recompute: str) -> tuple[float, float]:
    """(model FLOPs, hardware FLOPs) per trained token."""
    c = count_params(m)
    # Matmul parameters a token meets: active parameters minus the embedding lookup (not a
    # matmul); the output head is a matmul even when tied.
    n = active_count(m, c) - c.embedding + (c.embedding if m.tied_embeddings else 0)
    q = m.heads * (m.head_dim if not m.uses_mla else m.mla_qk_nope_head_dim + m.mla_qk_rope_head_dim)
    attention = ATTENTION_FLOPS_PER_LAYER_TOKEN_Q * m.layers * setup.seq_len * q
    weight_passes = FLOPS_PER_PARAM_PEFT if setup.is_peft else FLOPS_PER_PARAM_FULL
    model = weight_passes * n + attention
    extra = 0.0
    if recompute == "full":
        extra = FLOPS_PER_PARAM_RECOMPUTE * n + attention / STEP_MATMUL_PASSES
    return model, model + extra


def estimate_throughput(m: ModelShape, setup: TrainingSetup, layout: Layout, gpu: GPU,
                        network: str | None = None) -> Throughput:
    net = network or default_network(gpu)
    model_f, hw_f = flops_per_token(m, setup, layout.recompute)
    peak = gpu.peak_tflops(setup.precision) * 1e12
    c = count_params(m)
    notes: list[dict] = []

    flop_per_byte = gpu.peak_tflops(setup.precision) / gpu.memory_bw_tb_s  # TFLOP/s over TB/s
    node = 1 / (1 / ETA_MAX + KAPPA * flop_per_byte / m.hidden)
    node *= SOFTWARE.get(gpu.vendor, 1.0)
    if setup.method == "qlora":
        node *= QLORA_DEQUANT_EFFICIENCY
    tokens_mb = setup.seq_len * layout.micro_batch
    reference = CALIBRATION_TOKENS_PER_MICROBATCH
    node *= min(1.0, (tokens_mb / (tokens_mb + SMALL_GEMM_HALF_TOKENS))
                / (reference / (reference + SMALL_GEMM_HALF_TOKENS)))

    tp_eff = 1.0
    if layout.tp > 1:
        allreduces = TP_ALLREDUCES_PER_LAYER_RECOMPUTE if layout.recompute == "full" else TP_ALLREDUCES_PER_LAYER
        per_token_bytes = allreduces * TP_ACTIVATION_BYTES * m.hidden * 2 * (layout.tp - 1) / layout.tp
        link = gpu.intra_node_bw_gb_s / 2 * 1e9
        layer_flops = hw_f / m.layers
        t_comp = layer_flops / (layout.tp * node * peak)
        t_comm = per_token_bytes / link
        tp_eff = t_comp / (t_comp + TP_EXPOSED * t_comm)

    # Pipeline bubble of the interleaved 1F1B schedule with v model chunks per GPU:
    # (p-1)/(v*m + p-1) (Narayanan et al. 2021, Sec 2.2.2).
    m_steps = layout.microbatches_per_step
    v = max(1, min(MAX_VIRTUAL_STAGES, m.layers // max(1, layout.pp))) if layout.pp > 1 else 1
    pp_eff = 1 - (layout.pp - 1) / (v * m_steps + layout.pp - 1) if layout.pp > 1 else 1.0

    # Data parallel: ring all-reduce (or reduce-scatter + all-gather) of the gradients each
    # step, the part not hidden behind the backward pass exposed.
    dp_eff = 1.0
    if layout.dp > 1:
        trainable = c.total if not setup.is_peft else PEFT_TRAINABLE_SHARE * c.total
        grad_bytes = trainable / (layout.tp * layout.pp) * GRADIENT_BYTES
        volume = 2 * grad_bytes * (layout.dp - 1) / layout.dp
        if layout.zero_stage == 3:
            volume *= ZERO3_TRAFFIC
        spans_nodes = layout.nodes > 1
        bw = (NETWORK_GBPS[net] if spans_nodes else gpu.intra_node_bw_gb_s / 2) * 1e9
        tokens_step = setup.seq_len * layout.micro_batch * m_steps
        t_comp = tokens_step * hw_f / (layout.tp * layout.pp * node * tp_eff * peak)
        t_comm = volume / bw
        exposed = max(0.0, t_comm - DP_OVERLAP * t_comp * BACKWARD_MATMUL_PASSES / STEP_MATMUL_PASSES)
        dp_eff = t_comp / (t_comp + exposed)

    scale_eff = 1 - STRAGGLER_PER_DOUBLING * math.log2(max(1, layout.nodes))

    off_eff = 1.0
    if layout.offload != "none":
        local = c.total / (layout.tp * layout.pp * max(1, layout.dp if layout.zero_stage >= 1 else 1))
        if setup.is_peft:
            local *= PEFT_TRAINABLE_SHARE
        pcie = PCIE_GBPS.get(gpu.pcie_gen, PCIE_GBPS_UNKNOWN_GEN) * 1e9
        t_off = local * OFFLOAD_BYTES_PER_PARAM / pcie + local / CPU_ADAM_PARAMS_PER_S
        if layout.offload == "all":
            t_off += c.total / (layout.tp * layout.pp) * STREAMED_WEIGHT_BYTES * WEIGHT_PASSES_PER_STEP / pcie
        tokens_step = setup.seq_len * layout.micro_batch * m_steps
        t_comp = tokens_step * hw_f / (layout.tp * layout.pp * node * peak)
        off_eff = t_comp / (t_comp + t_off)

    hfu = node * tp_eff * pp_eff * dp_eff * scale_eff * off_eff
    tokens_per_s = hfu * peak / hw_f
    mfu = tokens_per_s * model_f / peak
    n_gpu = layout.gpu_count
    failures_per_day = FAILURES_PER_GPU_DAY * n_gpu
    goodput = 1 / (1 + failures_per_day * HOURS_LOST_PER_FAILURE / 24 + CHECKPOINT_OVERHEAD)

    notes.append({"kind": "flops", "model_gflop": model_f / 1e9, "hardware_gflop": hw_f / 1e9})
    eff = {"node": node, "tensor": tp_eff, "pipeline": pp_eff, "data": dp_eff,
           "scale": scale_eff, "offload": off_eff}
    shown = {k: v for k, v in eff.items() if v < EFFICIENCY_SHOWN_BELOW}
    notes.append({"kind": "efficiency", "factors": shown, "hfu": hfu})
    notes.append({"kind": "goodput", "goodput": goodput, "failures_per_day": failures_per_day, "gpus": n_gpu})
    return Throughput(
        model_flops_per_token=model_f,
        hardware_flops_per_token=hw_f,
        tokens_per_s_per_gpu=tokens_per_s,
        mfu=mfu,
        hfu=hfu,
        efficiency=eff,
        goodput=goodput,
        network=net,
        notes=notes,
    )
