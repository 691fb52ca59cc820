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
  pipeline: the 1F1B bubble (p-1)/(m+p-1) (Narayanan et al. 2021, Sec 2.2);
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

from advisor.catalog import GPU, ModelShape
from advisor.engine.layout import Layout
from advisor.request.model import TrainingRequest
from advisor.engine.shapes import active_count, count_params

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
# ZeRO-Offload: host-device copies over PCIe and DeepSpeed's CPU Adam (Ren et al. 2021)
# at about 1e9 parameters a second per GPU's share of cores (assumed).
PCIE_GBPS = {3: 12.0, 4: 25.0, 5: 50.0}
CPU_ADAM_PARAMS_PER_S = 1e9


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
    return "ndr400" if gpu.release_year >= 2022 and not gpu.consumer else "hdr200" if not gpu.consumer else "roce100"


def flops_per_token(m: ModelShape, req: TrainingRequest, recompute: str) -> tuple[float, float]:
    """(model FLOPs, hardware FLOPs) per trained token."""
    c = count_params(m)
    # Matmul parameters a token meets: active parameters minus the embedding lookup (not a
    # matmul); the output head is a matmul even when tied.
    n = active_count(m, c) - c.embedding + (c.embedding if m.tied_embeddings else 0)
    q = m.heads * (m.head_dim if not m.uses_mla else m.mla_qk_nope_head_dim + m.mla_qk_rope_head_dim)
    attention = 12 * m.layers * req.seq_len * q
    weight_passes = 4 if req.method in ("lora", "qlora") else 6
    model = weight_passes * n + attention
    extra = 0.0
    if recompute == "full":
        extra = 2 * n + attention / 3
    return model, model + extra


def estimate_throughput(m: ModelShape, req: TrainingRequest, layout: Layout, gpu: GPU,
                        network: str | None = None) -> Throughput:
    net = network or default_network(gpu)
    model_f, hw_f = flops_per_token(m, req, layout.recompute)
    peak = gpu.peak_tflops(req.precision) * 1e12
    c = count_params(m)
    notes: list[dict] = []

    flop_per_byte = gpu.peak_tflops(req.precision) / gpu.memory_bw_tb_s  # TFLOP/s over TB/s
    node = 1 / (1 / ETA_MAX + KAPPA * flop_per_byte / m.hidden)
    node *= SOFTWARE.get(gpu.vendor, 1.0)
    if req.method == "qlora":
        node *= 0.7  # NF4 dequantisation before every matmul (QLoRA runs ~30% slower than LoRA)
    tokens_mb = req.seq_len * layout.micro_batch
    node *= min(1.0, (tokens_mb / (tokens_mb + 256)) / (4096 / (4096 + 256)))  # small GEMMs

    # Tensor parallel: 4 all-reduces of s*b*h per layer (6 with full recompute), ring traffic
    # 2(t-1)/t of each, over NVLink at half the bidirectional figure.
    tp_eff = 1.0
    if layout.tp > 1:
        per_token_bytes = (6 if layout.recompute == "full" else 4) * 2 * m.hidden * 2 * (layout.tp - 1) / layout.tp
        link = gpu.intra_node_bw_gb_s / 2 * 1e9
        layer_flops = hw_f / m.layers
        t_comp = layer_flops / (layout.tp * node * peak)
        t_comm = per_token_bytes / link
        tp_eff = t_comp / (t_comp + TP_EXPOSED * t_comm)

    # Pipeline bubble of the interleaved 1F1B schedule with v model chunks per GPU:
    # (p-1)/(v*m + p-1) (Narayanan et al. 2021, Sec 2.2.2); v up to 4 when layers allow.
    m_steps = layout.microbatches_per_step
    v = max(1, min(4, m.layers // max(1, layout.pp))) if layout.pp > 1 else 1
    pp_eff = 1 - (layout.pp - 1) / (v * m_steps + layout.pp - 1) if layout.pp > 1 else 1.0

    # Data parallel: ring all-reduce (or reduce-scatter + all-gather) of the gradients each
    # step, 1.5x with ZeRO-3's extra parameter all-gather (ZeRO paper Sec 7).
    dp_eff = 1.0
    if layout.dp > 1:
        trainable = c.total if req.method not in ("lora", "qlora") else 0.02 * c.total
        grad_bytes = trainable / (layout.tp * layout.pp) * 2
        volume = 2 * grad_bytes * (layout.dp - 1) / layout.dp
        if layout.zero_stage == 3:
            volume *= 1.5
        spans_nodes = layout.nodes > 1
        bw = (NETWORK_GBPS[net] if spans_nodes else gpu.intra_node_bw_gb_s / 2) * 1e9
        tokens_step = req.seq_len * layout.micro_batch * m_steps
        t_comp = tokens_step * hw_f / (layout.tp * layout.pp * node * tp_eff * peak)
        t_comm = volume / bw
        exposed = max(0.0, t_comm - DP_OVERLAP * t_comp * 2 / 3)
        dp_eff = t_comp / (t_comp + exposed)

    scale_eff = 1 - STRAGGLER_PER_DOUBLING * math.log2(max(1, layout.nodes))

    off_eff = 1.0
    if layout.offload != "none":
        local = c.total / (layout.tp * layout.pp * max(1, layout.dp if layout.zero_stage >= 1 else 1))
        if req.method in ("lora", "qlora"):
            local *= 0.02
        pcie = PCIE_GBPS.get(gpu.pcie_gen, 25.0) * 1e9
        t_off = local * 4 / pcie + local / CPU_ADAM_PARAMS_PER_S
        if layout.offload == "all":
            t_off += c.total / (layout.tp * layout.pp) * 2 * 2 / pcie  # weights in, twice a step
        tokens_step = req.seq_len * layout.micro_batch * m_steps
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
    notes.append({"kind": "efficiency", "factors": {k: v for k, v in eff.items() if v < 0.995}, "hfu": hfu})
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
