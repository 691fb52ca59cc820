"""Memory per GPU for training: weights, gradients, optimizer states, activations, other.

Model states follow the ZeRO paper (Rajbhandari et al. 2020, Sec 3.1 and 5): mixed precision
AdamW holds 2 bytes of bf16 weights, 2 of gradients and 12 of fp32 master weights and two
moments per parameter (16 in all); ZeRO-1 shards the 12, ZeRO-2 also the gradients, ZeRO-3
also the weights, each over the data-parallel ranks. Tensor and pipeline parallelism divide
the layers as in Megatron-LM's theoretical_memory_usage.py (the most loaded stage holds the
embedding). Activations follow Korthikanti et al. 2022 ("Reducing Activation Recomputation
in Large Transformer Models", Table 2), redone term by term for the modern block (RMSNorm,
GQA, SwiGLU, flash attention) below. All sizes here are bytes; the result is in GiB.
"""

from __future__ import annotations

from pydantic import BaseModel

from advisor.catalog import GPU, ModelShape
from advisor.engine.layout import Layout
from advisor.request.model import TrainingRequest
from advisor.engine.shapes import count_params

GIB = 2**30

# (weights, gradients, fp32 master copy) bytes per trainable parameter by precision.
# Mixed precision: ZeRO paper Sec 3.1. pure-bf16 keeps no master copy (torchtune's default
# full fine-tune). fp8 (Transformer Engine) keeps bf16 weights plus an fp8 copy (assumed).
_STATE = {
    "bf16": (2, 2, 4),
    "fp16": (2, 2, 4),
    "fp8": (3, 2, 4),
    "pure-bf16": (2, 2, 0),
    "fp32": (4, 4, 0),
}
# Optimizer moments per parameter (AdamW: m and v; Lion and SGD with momentum: one).
_MOMENTS = {"adamw": 2, "adamw8bit": 2, "lion": 1, "sgd": 1}
# QLoRA NF4 with double quantisation: 4 bits + 0.127 bits of quantisation constants per
# parameter (Dettmers et al. 2023, QLoRA, Sec 2 "Double Quantization").
NF4_BYTES = (4 + 0.127) / 8
# CUDA context plus cuBLAS/NCCL workspaces, present in nvidia-smi readings but not in
# torch.cuda.max_memory_allocated(). The HF "model memory anatomy" guide measures about
# 1.3 GiB of context on its GPU; recent CUDA lazy loading needs less (assumed 1.0 GiB).
CUDA_CONTEXT_GIB = 1.0
NCCL_BUFFERS_GIB = 0.5
# Caching-allocator fragmentation on activations and temporaries (Megatron adds 5%).
FRAGMENTATION = 0.05


class MemoryBreakdown(BaseModel):
    weights: float
    gradients: float
    optimizer: float
    activations: float
    other: float
    total: float
    context: float  # the part of `other` that torch.cuda.max_memory_allocated() does not see
    host_ram_gib: float  # CPU memory per GPU that offloaded states need
    trainable_params: float
    notes: list[dict]  # the arithmetic as numbers; templates/explain.<lang>.j2 words it

    @property
    def allocated(self) -> float:
        return self.total - self.context


def _act_bytes(precision: str) -> int:
    return 4 if precision == "fp32" else 2


def flash_attention(gpu: GPU, precision: str) -> bool:
    # FlashAttention-2 needs Ampere or newer and 16-bit inputs (Dao 2023, README requirements).
    return gpu.architecture not in ("Volta", "Turing") and precision != "fp32"


def layer_activation_bytes_per_token(m: ModelShape, seq: int, precision: str, recompute: str,
                                     flash: bool) -> float:
    """Bytes one transformer layer keeps for backward, per token, without tensor parallelism.

    Korthikanti et al. 2022 count 34*h (+5*a*s without flash) bytes for a GPT block with a
    4h GELU MLP and dropout; the same bookkeeping for the modern block gives:
      attention: norm input 2h, QKV input 2h, q/k/v kept by flash attention 2(q+2kv),
                 attention output (also the o-proj input) 2q;
      MLP:       norm input 2h, gate/up input 2h, and 2 bytes for each of gate output, up
                 output, activation output and down-proj input (4 tensors of ffn width)
                 for SwiGLU, or 2 (fc1 output, fc2 input) for a GELU MLP.
    Selective recompute drops the attention core (only matters without flash attention) and
    recomputes the activation function (one ffn-width tensor less).
    """
    e = _act_bytes(precision) / 2  # the counts above are for 2-byte activations
    h = m.hidden
    q = m.heads * m.head_dim
    kv = m.kv_heads * m.head_dim if not m.uses_mla else m.heads * m.mla_v_head_dim
    ffn = m.moe_ffn_hidden * (m.moe_top_k + m.moe_shared_experts) if m.is_moe else m.ffn_hidden
    attention = 2 * h + 2 * h + 2 * (q + 2 * kv) + 2 * q
    ffn_tensors = 4 if m.ffn_type == "swiglu" else 2
    if recompute == "selective":
        ffn_tensors -= 1
    mlp = 2 * h + 2 * h + 2 * ffn_tensors * ffn
    core = 0.0
    if not flash and recompute != "selective":
        core = 5 * m.heads * seq  # softmax output, dropout mask and output (Korthikanti Table 2)
    return e * (attention + mlp + core)


def _lora_params_per_layer(m: ModelShape, rank: int, targets: str) -> float:
    h = m.hidden
    q, kv = m.heads * m.head_dim, m.kv_heads * m.head_dim
    ffn = m.ffn_hidden if not m.is_moe else m.moe_ffn_hidden * max(1, m.moe_shared_experts)
    linears = {
        "qv": [(h, q), (h, kv)],
        "attn": [(h, q), (h, kv), (h, kv), (q, h)],
        "all": [(h, q), (h, kv), (h, kv), (q, h), (h, ffn), (h, ffn), (ffn, h)],
    }[targets]
    return sum(rank * (i + o) for i, o in linears)  # LoRA adds A (r x in) and B (out x r)


def estimate_memory(m: ModelShape, req: TrainingRequest, layout: Layout, gpu: GPU) -> MemoryBreakdown:
    c = count_params(m)
    tp, pp, dp = layout.tp, layout.pp, layout.dp
    ep = max(1, layout.ep)
    zero = layout.zero_stage
    notes: list[dict] = []
    w_bytes, g_bytes, master = _STATE[req.precision]
    state = 1 if req.optimizer == "adamw8bit" else (2 if req.precision == "pure-bf16" else 4)
    opt_bytes = _MOMENTS[req.optimizer] * state + master

    # Parameters on this GPU's shard, most loaded stage (Megatron: block/pp + embedding, /tp).
    block = c.total - c.embedding - c.output - c.extra - c.experts
    embed = c.embedding + (c.output if pp == 1 else 0)
    dense_local = (block / pp + embed + c.extra) / tp
    expert_local = c.experts / (pp * ep)
    local = dense_local + expert_local
    zero_dp = dp  # ZeRO shards over the data-parallel group
    expert_dp = max(1, dp // ep)

    peft = req.method in ("lora", "qlora")
    if peft:
        trainable = _lora_params_per_layer(m, req.lora_rank or 16, req.lora_targets or "all") * m.layers
        trainable_local = trainable / (tp * pp)
        if req.method == "qlora":
            linear = (block - m.layers * c.norms_per_layer) / pp / tp + expert_local
            rest = local - linear
            weights = linear * NF4_BYTES + rest * 2
            notes.append({"kind": "frozen_nf4", "linear_b": linear / 1e9, "nf4": NF4_BYTES, "rest_b": rest / 1e9})
        else:
            weights = local * (4 if req.precision == "fp32" else 2)
            notes.append({"kind": "frozen", "params_b": local / 1e9, "bytes": 4 if req.precision == "fp32" else 2})
        if zero == 3:
            weights /= zero_dp
        # Adapters train in fp32 under autocast: 4 B weights, 4 B gradients, 8 B AdamW moments.
        adapter_opt = _MOMENTS[req.optimizer] * (1 if req.optimizer == "adamw8bit" else 4)
        weights += trainable_local * 4
        gradients = trainable_local * 4
        optimizer = trainable_local * adapter_opt
        notes.append({"kind": "adapters", "params_m": trainable / 1e6, "optimizer": adapter_opt})
    else:
        trainable = c.total
        dense_w = dense_local * w_bytes / (zero_dp if zero == 3 else 1)
        expert_w = expert_local * w_bytes / (expert_dp if zero == 3 else 1)
        weights = dense_w + expert_w
        grad_div_d = zero_dp if zero >= 2 else 1
        grad_div_e = expert_dp if zero >= 2 else 1
        gradients = dense_local * g_bytes / grad_div_d + expert_local * g_bytes / grad_div_e
        if req.opt_in_backward:
            # Step fused into backward: each gradient is freed right after its update, so only
            # the largest single tensor's gradient is alive at once (torchtune optimizer_in_bwd).
            gradients = max(c.embedding, c.output) / tp * g_bytes
        opt_div_d = zero_dp if zero >= 1 else 1
        opt_div_e = expert_dp if zero >= 1 else 1
        optimizer = dense_local * opt_bytes / opt_div_d + expert_local * opt_bytes / opt_div_e
        notes.append({"kind": "states", "params_b": local / 1e9, "tp": tp, "pp": pp, "ep": ep, "weights": w_bytes,
                      "gradients": g_bytes, "optimizer": opt_bytes, "zero": zero, "dp": dp})

    host = 0.0
    if layout.offload in ("optimizer", "all") and optimizer > 0:
        # ZeRO-Offload keeps optimizer states and gradients in host memory and steps on the CPU
        # (Ren et al. 2021); the GPU keeps a gradient bucket (DeepSpeed's 5e8-element default).
        host += optimizer + gradients
        optimizer = 0.0
        gradients = min(gradients, 5e8 * 2 / max(1, dp))
        notes.append({"kind": "offload_optimizer"})
    if layout.offload == "all":
        host += weights
        layer = (block / m.layers) / tp * w_bytes
        weights = 2 * layer  # ZeRO-Infinity streams parameters in, a layer ahead
        notes.append({"kind": "offload_all"})

    # Activations of the most loaded (first) stage: with 1F1B it keeps min(pp, microbatches)
    # micro-batches of its layers/pp layers in flight (Korthikanti et al. Sec 4.2.3). With tensor
    # parallelism we assume sequence parallelism too (Megatron's setting with TP), which divides
    # every activation by tp (Korthikanti Table 2, last rows).
    seq, mbs = req.seq_len, layout.micro_batch
    flash = flash_attention(gpu, req.precision)
    per_token = layer_activation_bytes_per_token(m, seq, req.precision, layout.recompute, flash)
    inflight = min(pp, layout.microbatches_per_step) if pp > 1 else 1
    layers_here = m.layers / pp
    tokens = seq * mbs
    if layout.recompute == "full":
        # Only each layer's input is kept; one layer's activations are rebuilt at a time.
        kept = 2 * m.hidden * _act_bytes(req.precision) / 2 * tokens * layers_here * inflight
        activations = (kept + per_token * tokens) / tp
    else:
        activations = per_token * tokens * layers_here * inflight / tp
    # Logits: bf16 logits kept for the loss; the fp32 loss is computed in chunks
    # (torchtune CEWithChunkedOutputLoss; Megatron's fused vocab-parallel cross entropy).
    logits = tokens * m.vocab * _act_bytes(req.precision) / tp
    activations += logits
    notes.append({"kind": "activations", "per_token_h": per_token / m.hidden, "tokens": tokens,
                  "layers": layers_here, "inflight": inflight, "full": layout.recompute == "full", "tp": tp,
                  "logits_gib": logits / GIB})

    other = activations * FRAGMENTATION
    if zero == 3 and not peft:
        # FSDP/ZeRO-3 gathers whole layers: the current layer's bf16 weights, the prefetched
        # next one, and the current layer's gradients before reduce-scatter (3 x 2 bytes).
        other += 3 * 2 * (block / m.layers) / tp
    context = CUDA_CONTEXT_GIB * GIB + (NCCL_BUFFERS_GIB * GIB if layout.gpu_count > 1 else 0)
    other += context
    total = weights + gradients + optimizer + activations + other
    return MemoryBreakdown(
        weights=weights / GIB,
        gradients=gradients / GIB,
        optimizer=optimizer / GIB,
        activations=activations / GIB,
        other=other / GIB,
        total=total / GIB,
        context=context / GIB,
        host_ram_gib=host / GIB,
        trainable_params=trainable,
        notes=notes,
    )
