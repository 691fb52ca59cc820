"""A per-operator roofline of one micro-batch through one pipeline stage on one GPU.

Every matrix multiply of a layer is listed by its shape (M tokens, N outputs, K inputs), as
Megatron's theoretical_memory_usage.py lists parameters: attention projections (or the
MLA projections), the MLP or, in a mixture of experts, the router, the shared experts and the
grouped expert GEMMs with their tokens per expert; each runs at

    t = max(F / (peak * mamf * tile), bytes / (hbm * ETA_HBM))

(a roofline: Williams, Waterman and Patterson 2009), with `mamf` the largest fraction of
peak a matmul reaches on that GPU (Bekman's Maximum Achievable Matmul FLOPS table) and `tile`
the tile quantisation of M and N (NVIDIA, "Matrix Multiplication Background User's Guide",
Tile Quantization). The attention core runs at FlashAttention's measured fraction of peak;
the bandwidth-bound operators (norms, residual adds, rotary embeddings, the activation
function, MoE permute and unpermute, FP8 casts, QLoRA's dequantisation, the loss and the
optimizer step) move their bytes at HBM bandwidth. FP8 applies to the linear layers only, as
Transformer Engine and torchao apply it (attention core, router, output head and loss stay
in bf16), and pays its casts. The backward pass runs two GEMMs per forward GEMM (input and
weight gradients), one for a frozen LoRA base. Results are cached per shape, so an open plan
(thousands of layouts) stays fast.
"""

from __future__ import annotations

import math
from operator import attrgetter
from typing import NamedTuple

from advisor.engine.shapes import ParamCounts
from advisor.engine.specs import GPU, ModelShape

# Largest fraction of the dense peak a matmul reaches, by architecture and input type:
# Bekman, "Machine Learning Engineering", compute/accelerator/README.md, "Maximum Achievable
# Matmul FLOPS comparison table" (mamf-finder.py): BF16 A100 SXM 86.9%, H100 SXM 80.3% (H200
# the same), B200 77.6%, MI300X 60.1% (ROCm 6.2; 51.4% in a later run; the MI325X 784.9 of 1,300,
# 60.4%, at 1,000 W), MI355X 1,565 TFLOPS (ROCm 7.0: 62.2% of its 2,516.6 dense peak; the table
# divides by 2,300); FP8 H100 70.9%, H200 73.4%, B200 76.3%. Not measured there, assumed: Ada and
# Volta as Ampere's PCIe part (81.1%), Ascend's Da Vinci cores 60% (no published MAMF found),
# CDNA 4's FP8 as CDNA 3's. The B300 (Blackwell Ultra, sm_103) is catalogued as "Blackwell": its
# dense BF16/FP8 peaks are the B200's (HGX tables; OLMo-core PR #747 reuses the B200 entry) on the
# same tensor-core generation, and no B300 MAMF was found, so the B200's fraction is assumed for it.
# The A10 (GA102, 150 W PCIe) takes the Ampere row: no matmul reading of it was found, and its
# power limit may hold it lower, as the L4's does.
MAMF = {
    "Ampere": {"bf16": 0.869},
    "Hopper": {"bf16": 0.803, "fp8": 0.709},
    "Blackwell": {"bf16": 0.776, "fp8": 0.763},
    "CDNA 3": {"bf16": 0.601, "fp8": 0.50},
    "CDNA 4": {"bf16": 0.622, "fp8": 0.50},
}
MAMF_ASSUMED = {"bf16": 0.811, "fp8": 0.70}
MAMF_ASSUMED_BY_VENDOR = {"Huawei": {"bf16": 0.60, "fp8": 0.60}}
# cuBLAS/CUTLASS compute a GEMM in output tiles of 128 x 128 on these GPUs: a dimension that
# is not a multiple of the tile wastes the rest of its last tile (NVIDIA matmul guide, Tile
# Quantization; 128x128 assumed as the common tile of bf16 and fp8 kernels).
TILE_M = TILE_N = 128
# Share of HBM bandwidth a streaming kernel sustains (assumed 0.8; STREAM-like kernels reach
# 80-90% of the datasheet figure).
ETA_HBM = 0.8
# FlashAttention-2 forward runs at 50-73% of the A100's peak and its backward lower (Dao 2023,
# "FlashAttention-2", abstract and Sec 4.1); FlashAttention-3 reaches 75% of the H100's in
# the forward (Shah et al. 2024, abstract). Taken as 0.6 forward, 0.45 backward of peak; the
# backward makes 2.5x the forward's matmul FLOPs (5 matmuls against 2, Dao 2023 Sec 3.1.2).
ETA_ATTN_FWD, ETA_ATTN_BWD = 0.6, 0.45
ATTN_BWD_FLOPS_RATIO = 2.5
# On Hopper and newer those are the kernels written for them (FlashAttention-3, cuDNN's fused
# attention, which Transformer Engine calls and PyTorch's SDPA picks there from 2.11). The
# FlashAttention-2 kernels run at about half: "only 35% utilization on the H100" (Shah et al.
# 2024, abstract); SDPA's FA2 backend at 329 TFLOP/s against cuDNN's 631 and FA3's 632 on an H100
# (pytorch/pytorch#142132, 2024-12). Forward 0.33; the backward assumed at the same ratio (0.24).
ETA_ATTN_FA2_FWD, ETA_ATTN_FA2_BWD = 0.33, 0.24
FA2_SLOW_ARCHITECTURES = ("Hopper", "Blackwell")
# AMD's best attention kernels on MI300X (aiter's assembly v3, BF16, head dim 128, sequences of
# 4k and more) reach 510-590 TFLOP/s forward and 400-550 backward of its 1,307 peak (ROCm/aiter
# op_tests/cpp/mha/README.md at 0403bcdf, "More performance test results", PR #1270): 0.42 and
# 0.36 of peak, against the 0.6 and 0.45 of NVIDIA's kernels above. The same table on MI355X
# (CDNA 4): 1,300-1,430 forward and 1,020-1,200 backward (a16) of its 2,516.6: 0.54 and 0.45.
ETA_ATTN_BY_ARCHITECTURE = {"CDNA 3": (0.42, 0.36), "CDNA 4": (0.54, 0.45)}
# Without a fused kernel (Volta, Turing, fp32; MLA on Transformer Engine off Hopper:
# memory.unfused_mla) the scores are written and read in HBM. Transformer Engine's
# UnfusedDotProductAttention computes every score and masks after (torch.baddbmm for Q K^T,
# its scaled masked softmax, torch.bmm for P V: dot_product_attention/backends.py), so its two
# batched GEMMs run the whole s x s at the matmul rate (`mamf`), and the backward two GEMMs for
# each; the score matrix makes 4 passes forward (the GEMM's write, the softmax's read and write,
# the P V GEMM's read) and twice that backward (BWD_BYTES_RATIO). PyTorch SDPA's
# memory-efficient kernel (the PyTorch-native stacks there: memory.score_free_attention) tiles
# like FlashAttention and writes no scores; in fp32 from Ampere it multiplies in three TF32
# passes (xFormers/PyTorch mem_eff gemm_kernel_utils.h, OpMultiplyAddFastF32), a third of
# FlashAttention's 0.6 of the TF32 peak: a fifth (assumed).
ETA_ATTN_MEM_EFFICIENT, EAGER_SCORE_PASSES = 0.2, 4
EAGER_BWD_GEMMS = 2
# Bandwidth-bound work of one layer's forward, in tensor elements per token (2 bytes each):
# two RMSNorms (read and write h each: 4h), two residual adds (read 2h, write h: 6h), rotary
# embeddings on q and k (read and write), the activation function (SwiGLU reads gate and up,
# writes one: 3 per ffn unit; GELU 2), and an MoE layer's permute and unpermute of each
# routed copy (read and write h, twice: 4h a copy). The backward moves about twice the
# forward's bytes (reads the saved input and the output gradient, writes the input
# gradient; assumed 2x).
NORM_ELEMS, RESIDUAL_ELEMS, ROPE_PASSES = 4, 6, 2
SWIGLU_ELEMS, GELU_ELEMS = 3, 2
PERMUTE_ELEMS = 4
# Megatron-Core's all-to-all dispatcher also sorts each routed copy by local expert after the
# exchange and unsorts it before the combine (sort_chunks_by_idxs in dispatch_postprocess and
# combine_preprocess, run where a rank holds more than one expert: read and write h each, 4h more);
# the flex dispatcher permutes inside DeepEP's/HybridEP's kernels, once each way
# (megatron/core/transformer/moe/token_dispatcher.py at d98e8a64dd).
ALLTOALL_SORT_ELEMS = 4
BWD_BYTES_RATIO = 2.0
ELEMENT_BYTES = 2
# Memory passes an elementwise operator really makes, per pass counted above: 1 where the
# framework fuses them (Megatron-Core's fused RMSNorm, SwiGLU, RoPE and bias kernels,
# Transformer Engine), more in eager PyTorch, where an RMSNorm is several kernels (square,
# mean, rsqrt, two products) each reading and writing the tensor. Fitted with the framework
# factors (bench/fit.py, grid 1-6: 2 gives one factor for Megatron-Core and FSDP2 alike);
# keyed by framework name.
UNFUSED_PASSES = {"Megatron-Core": 1.0}
UNFUSED_PASSES_DEFAULT = 2.0
# The Hugging Face model code as HF Trainer runs it (autocast bf16, SDPA) makes 7.6 to 9.0 such
# passes, measured on a lent H200 (docs/device-h200.md, 2026-12-04: each kernel of a profiled
# step summed by kind; Llama 3.2 3B full fine-tuning 234 ms of element-wise, copy and reduction
# kernels a step against 30 ms a pass counted here, Qwen3 32B and Qwen3-30B-A3B under LoRA on
# the attention 8.0 and 8.3-9.0): LlamaRMSNorm upcasts to fp32 and runs five kernels, rotate_half
# concatenates a negated copy, the attention output is made contiguous, the loss upcasts the
# logits. 7.5 for the stacks that run that code: HF Trainer/TRL, PEFT, and DeepSpeed, which runs
# the same model (its held-out rows on A800, H800 and H20 move from -30%..+4% to -17%..-6%).
# Compiled, or with Liger's kernels (fused RMSNorm, RoPE, SwiGLU and loss), what is left is what
# an eager PyTorch-native stack makes (UNFUSED_PASSES_DEFAULT; not measured: chosen over 1 and 3,
# which put NeMo Automodel's two compiled single-GPU LoRA rows at +30%/+25% and -7%/-11%, against
# +2%/-3% at 2).
HF_MODEL_CODE = ("HF Transformers/TRL", "HF PEFT/TRL", "DeepSpeed")
HF_EAGER_PASSES = 7.5
# PEFT's LoRA layer adds element-wise work of its own around the two thin GEMMs: the input cast to
# the adapter's fp32, the product scaled and added to the base output, the result cast back
# (peft/tuners/lora/layer.py Linear.forward): measured at 3.3 bytes a forward pass per element of
# each adapted linear's input and output (Llama 3.1 8B, all seven projections, 9.1 passes against
# 7.6 without: 77 ms a step of 8,192 tokens; Qwen3 32B on the attention: 3.1). Compiling the model
# or Liger's kernels leave PEFT's layers as they are.
PEFT_ADAPTER_BYTES = 3.3
# The loss: logits written, read by the softmax and the gradient written (3 passes of
# tokens x vocabulary, bf16; fused vocab-parallel cross entropy in Megatron, chunked in
# torchtune; assumed 3).
LOSS_PASSES = 3
# FP8 (Transformer Engine, torchao float8): each linear layer casts its input (read 2 bytes,
# write 1) in the forward, its output gradient in the backward, and writes transposed fp8
# copies of both for the weight-gradient GEMM (Hopper's fp8 GEMM takes only the TN layout):
# 3 + 1 bytes a forward input element and 3 + 1 a gradient element (TE docs, "Using FP8 with
# Transformer Engine"; fused cast-transpose). Weights are cast once a step (TE's
# is_first_microbatch caching).
FP8_CAST_BYTES = 4
FP8_WEIGHT_CAST_BYTES = 3
# QLoRA dequantises each NF4 weight to bf16 before its matmul, in the forward and again for
# the input gradient: read 0.5 bytes and write 2 per weight element (bitsandbytes
# dequantize_4bit, then a bf16 GEMM; Dettmers et al. 2023).
NF4_DEQUANT_BYTES = 0.5 + 2
# AdamW step: read fp32 master weight, gradient and two moments, write weight, moments and the
# bf16 copy: 4*4 + 3*4 + 2 = 30 bytes a parameter (assumed fused multi-tensor apply).
OPTIMIZER_STEP_BYTES = 30


class StageTime(NamedTuple):
    """Seconds of one micro-batch's forward and backward through one pipeline stage on one GPU,
    by kind of work, and the optimizer step once a step."""

    gemm_s: float
    attention_s: float
    memory_s: float  # bandwidth-bound operators (incl. FP8 casts, dequantisation, loss)
    optimizer_s: float  # once a step

    @property
    def microbatch_s(self) -> float:
        return self.gemm_s + self.attention_s + self.memory_s


def mamf(gpu: GPU, dtype: str) -> float:
    """Largest fraction of the `dtype` peak a matmul reaches on this GPU: its own measured BF16
    rate where the catalogue has one, else its architecture's (MAMF above). A card's power limit
    sets the clock its tensor cores sustain, so the fraction differs within one architecture (the
    catalogue's readings: H20 0.96, RTX 4090 0.97, L20 0.96, L40S 0.74, H100 PCIe 0.66, L4 0.49, against
    the H100 SXM's 0.80); FP8 runs at that clock too, so its fraction is scaled alike (assumed).
    Capped at the rated peak: clocks above it are not promised."""
    table = MAMF.get(gpu.architecture) or MAMF_ASSUMED_BY_VENDOR.get(gpu.vendor) or MAMF_ASSUMED
    rated = table.get(dtype, MAMF_ASSUMED.get(dtype, MAMF_ASSUMED["bf16"]))
    if not gpu.matmul_bf16_measured_tflops or not gpu.bf16_dense_tflops:
        return rated
    measured = min(1.0, gpu.matmul_bf16_measured_tflops / gpu.bf16_dense_tflops)
    if dtype == "bf16":
        return measured
    return min(1.0, rated * measured / table.get("bf16", MAMF_ASSUMED["bf16"]))


def unfused_passes(framework: str, compiled: bool) -> tuple[float, float]:
    """(Memory passes an elementwise operator makes, PEFT's adapter bytes an element): one pass
    where the stack fuses them (Megatron-Core, or a model compiled with torch.compile: torchtitan
    measured Llama 3.1 8B on 8 H100 at 5,762 tokens/s eager and 6,667 compiled, docs/performance.md
    at d4c86e375, Table 1), else the framework's eager count; the Hugging Face model code's
    measured ones (HF_EAGER_PASSES, PEFT_ADAPTER_BYTES)."""
    if framework in HF_MODEL_CODE:
        return (UNFUSED_PASSES_DEFAULT if compiled else HF_EAGER_PASSES), PEFT_ADAPTER_BYTES
    return (1.0 if compiled else UNFUSED_PASSES.get(framework, UNFUSED_PASSES_DEFAULT)), 0.0


def attention_efficiency(gpu: GPU, kernel: str) -> tuple[float, float]:
    """(forward, backward) fraction of peak the fused attention kernels reach: the best kernels
    for the GPU ("best"), or FlashAttention-2's ("fa2"), which only Hopper and newer outrun."""
    if kernel == "fa2" and gpu.architecture in FA2_SLOW_ARCHITECTURES:
        return ETA_ATTN_FA2_FWD, ETA_ATTN_FA2_BWD
    return ETA_ATTN_BY_ARCHITECTURE.get(gpu.architecture, (ETA_ATTN_FWD, ETA_ATTN_BWD))


def fa2_time_factor(gpu: GPU, attention_share: float) -> float:
    """How much longer a step whose attention core is `attention_share` of its compute takes on
    FlashAttention-2 than on the GPU's best kernels (a forward and its backward, as above)."""
    (best_f, best_b), (fa2_f, fa2_b) = attention_efficiency(gpu, "best"), attention_efficiency(gpu, "fa2")
    ratio = (1 / fa2_f + ATTN_BWD_FLOPS_RATIO / fa2_b) / (1 / best_f + ATTN_BWD_FLOPS_RATIO / best_b)
    return 1 + attention_share * (ratio - 1)


def tile_efficiency(m: float, n: float) -> float:
    """Useful share of the output tiles a GEMM of M x N computes (NVIDIA matmul guide)."""
    m, n = max(1.0, m), max(1.0, n)
    return (m * n) / (math.ceil(m / TILE_M) * TILE_M * math.ceil(n / TILE_N) * TILE_N)


def gemm_seconds(m: float, n: float, k: float, gpu: GPU, dtype: str, count: float = 1.0) -> float:
    """One (grouped: `count` of them) GEMM of M x K by K x N: the roofline of its FLOPs at the
    achievable matmul rate and its bytes (inputs of 1 byte in fp8, 2 otherwise; output 2) at
    HBM bandwidth."""
    if m <= 0 or n <= 0 or k <= 0 or count <= 0:
        return 0.0
    peak = gpu.peak_tflops(dtype) * 1e12
    flops = 2 * m * n * k * count
    compute = flops / (peak * mamf(gpu, dtype) * tile_efficiency(m, n))
    in_bytes = 1 if dtype == "fp8" else ELEMENT_BYTES
    moved = count * (in_bytes * (m * k + k * n) + ELEMENT_BYTES * m * n)
    return max(compute, moved / (gpu.memory_bw_tb_s * 1e12 * ETA_HBM))


class Linear(NamedTuple):
    m: float  # tokens
    n: float  # output features on this GPU
    k: float  # input features on this GPU
    count: float = 1.0  # grouped GEMMs (local experts)
    fp8: bool = True  # a linear layer Transformer Engine runs in fp8
    # the Megatron-Core recompute module that reruns it: "mlp" (a dense MLP), "mla_up_proj"
    role: str = ""


def layer_linears(m: ModelShape, tokens: float, tp: int, ep: int, moe_layer: bool, etp: int) -> list[Linear]:
    """The forward GEMMs of one layer on one GPU for `tokens` tokens (Megatron's split: column-
    parallel QKV and gate/up over tp, row-parallel output and down projections; experts over
    ep, each expert's matrices over its `etp` expert-tensor ranks)."""
    h = m.hidden
    out: list[Linear] = []
    # a hybrid's layer is its softmax (or MLA) and linear layers' projections in their shares
    full = 1 - m.linear_share
    if m.uses_mla:
        qk = m.mla_qk_nope_head_dim + m.mla_qk_rope_head_dim
        if m.mla_q_lora_rank:
            out += [
                Linear(tokens, m.mla_q_lora_rank, h, count=full),
                Linear(tokens, m.heads * qk / tp, m.mla_q_lora_rank, count=full, role="mla_up_proj"),
            ]
        else:
            out.append(Linear(tokens, m.heads * qk / tp, h, count=full))
        out.append(Linear(tokens, m.mla_kv_lora_rank + m.mla_qk_rope_head_dim, h, count=full))
        kv_up = m.heads * (m.mla_qk_nope_head_dim + m.mla_v_head_dim) / tp
        out.append(Linear(tokens, kv_up, m.mla_kv_lora_rank, count=full, role="mla_up_proj"))
        out.append(Linear(tokens, h, m.heads * m.mla_v_head_dim / tp, count=full))
    else:
        q, kv = m.heads * m.head_dim, m.kv_heads * m.head_dim
        gate = q if m.full_attention_gated else 0
        out += [Linear(tokens, (q + gate + 2 * kv) / tp, h, count=full), Linear(tokens, h, q / tp, count=full)]
    if m.linear_attention_layers:
        kd = m.linear_key_heads * m.linear_key_head_dim
        vd, nv = m.linear_value_heads * m.linear_value_head_dim, m.linear_value_heads
        share = m.linear_share
        if m.linear_attention_kind == "kda":
            # q, k, v, beta and the two low-rank downs from the hidden size; the two ups; the output
            dk, dv = m.linear_key_head_dim, m.linear_value_head_dim
            out += [
                Linear(tokens, (2 * kd + vd + nv) / tp + dk + dv, h, count=share),
                Linear(tokens, kd / tp, dk, count=share),
                Linear(tokens, vd / tp, dv, count=share),
                Linear(tokens, h, vd / tp, count=share),
            ]
        else:
            # Gated DeltaNet: q, k, v, the output gate, decay and beta; lightning: no decay or beta;
            # Mamba-2: B and C (the groups' key and query), x and the gate z, and dt a head
            scalars = {"lightning": 0, "mamba2": nv}.get(m.linear_attention_kind, 2 * nv)
            out += [
                Linear(tokens, (2 * kd + 2 * vd + scalars) / tp, h, count=share),
                Linear(tokens, h, vd / tp, count=share),
            ]
    gated = m.ffn_type == "swiglu"
    up = 2 if gated else 1
    if not moe_layer:
        out += [Linear(tokens, up * m.ffn_hidden / tp, h, role="mlp"), Linear(tokens, h, m.ffn_hidden / tp, role="mlp")]
        return out
    out.append(Linear(tokens, m.moe_experts, h, fp8=False))  # router, in bf16/fp32
    if m.moe_shared_experts:
        shared = m.moe_shared_experts * m.moe_ffn_hidden
        out += [Linear(tokens, up * shared / tp, h), Linear(tokens, h, shared / tp)]
    # Routed token copies this GPU computes: its tokens' top-k copies (tokens / tp under
    # sequence parallelism), gathered from its etp expert-tensor peers (Megatron-Core's
    # MoEAlltoAllTokenDispatcher all-gathers the dispatched tokens over the expert-tensor group).
    copies = tokens * m.moe_top_k * etp / tp
    local = m.moe_experts / ep
    per_expert = copies / local
    f = m.moe_ffn_hidden / etp
    out += [Linear(per_expert, up * f, h, count=local), Linear(per_expert, h, f, count=local)]
    return out


# The projections LoRA adapts in a layer, by `targets`
LORA_TARGETS = {
    "qv": ("q", "v"),
    "attn": ("q", "k", "v", "o"),
    "all": ("q", "k", "v", "o", "gate", "up", "down"),
}


def lora_shapes(m: ModelShape, targets: str) -> list[tuple[int, int]]:
    """(inputs, outputs) of each adapted projection of one layer (a mixture of experts adapts its
    shared experts' MLP, not the routed experts')."""
    h = m.hidden
    q, kv = m.heads * m.head_dim, m.kv_heads * m.head_dim
    ffn = m.ffn_hidden if not m.is_moe else m.moe_ffn_hidden * max(1, m.moe_shared_experts)
    shapes = {"q": (h, q), "k": (h, kv), "v": (h, kv), "o": (q, h), "gate": (h, ffn), "up": (h, ffn), "down": (ffn, h)}
    return [shapes[name] for name in LORA_TARGETS[targets]]


def lora_linears(m: ModelShape, tokens: float, tp: int, rank: int, targets: str) -> list[Linear]:
    """LoRA's adapter GEMMs of one layer (x A, then (x A) B, for each adapted linear; Hu et al.
    2021): thin matmuls of N or K = r, bandwidth-bound on today's GPUs."""
    out = []
    for k_in, n_out in lora_shapes(m, targets):
        out += [Linear(tokens, rank, k_in / tp, fp8=False), Linear(tokens, n_out / tp, rank, fp8=False)]
    return out


_CACHE: dict[tuple, StageTime] = {}
# Every figure of the GPU the stage time reads: the caches are keyed by these, not the name, so
# parts that differ only elsewhere (the A800 is an A100, the H800 an H100, with slower NVLink)
# share their shapes. tests/test_roofline.py fails when the roofline reads a field not listed.
ROOFLINE_SPECS = (
    "architecture",
    "vendor",
    "bf16_dense_tflops",
    "fp16_dense_tflops",
    "fp8_dense_tflops",
    "tf32_dense_tflops",
    "fp32_tflops",
    "matmul_bf16_measured_tflops",
    "memory_bw_tb_s",
)
_specs = attrgetter(*ROOFLINE_SPECS)


def stage_time(
    m: ModelShape,
    c: ParamCounts,
    gpu: GPU,
    *,
    precision: str,
    method: str,
    lora_rank: int,
    lora_targets: str,
    seq: int,
    micro_batch: int,
    tp: int,
    pp: int,
    ep: int,
    cp: int,
    recompute: str,
    optimizer_params: float,
    attention: str,
    recomputed: float = 1.0,
    framework: str = "",
    compiled: bool = False,
    etp: int,
    context: int | None = None,
    dispatcher: str | None = None,
    recompute_modules: tuple[str, ...] = (),
    reference: int = 0,
) -> StageTime:
    """One micro-batch through this GPU's share of the layers (layers / pp, the output head's
    time spread over the stages as Megatron balances them), cached per shape. `etp`: the
    layout's expert-tensor degree (ModelSplit.expert_tp); `dispatcher`: Megatron-Core's MoE token
    dispatcher (frameworks.token_dispatcher), None off Megatron-Core; `recompute_modules`: what
    Megatron-Core's selective recompute reruns (frameworks.selective_modules); `recomputed`: the
    share of the layers full recompute reruns (ModelSplit.recomputed_share); `reference`: forward
    passes of a frozen reference model (TrainingSetup.reference_passes), each a forward of every
    layer and of the output head, without the adapters or a backward."""
    key = (
        (m.name, m.layers, m.hidden, m.moe_experts, m.local_attention_layers, m.local_attention_span, m.qk_norm,
         m.linear_attention_layers),
        _specs(gpu),
        precision, method, lora_rank, lora_targets, seq,
        micro_batch, tp, pp, ep, cp, recompute, attention, unfused_passes(framework, compiled), context or seq, etp,
        dispatcher, recompute_modules, recomputed if recompute == "full" else 0.0, reference,
    )  # fmt: skip
    found = _CACHE.get(key)
    if found is None:
        found = _CACHE[key] = _stage_time(m, c, gpu, key)
    # The optimizer step depends on the data-parallel sharding too: worked out apart, uncached.
    hbm = gpu.memory_bw_tb_s * 1e12 * ETA_HBM
    optimizer = OPTIMIZER_STEP_BYTES * optimizer_params / hbm
    if precision == "fp8" and gpu.fp8_dense_tflops > 0:
        # the weights this GPU holds: the dense layers' over tp x pp, the experts' over pp x ep x etp
        cast = (c.total - c.embedding - c.output - c.experts) / (tp * pp) + c.experts / (pp * max(1, ep) * etp)
        optimizer += FP8_WEIGHT_CAST_BYTES * cast / hbm
    return found._replace(optimizer_s=optimizer)


class _StageParts(NamedTuple):
    """A micro-batch's time through every layer (a stage's is this over pp), split by how
    recompute scales it: `*_fwd` once per forward
    pass (full recompute runs two), `fwd_mem` the forward's bandwidth-bound operators (selective
    recompute reruns them too), the rest once; the last six are the forward work each Megatron-Core
    recompute module reruns (within the others): a dense MLP's GEMMs and its other work (casts,
    activation), MLA's up-projections' GEMMs and theirs (casts, RoPE), the norms that stand alone
    and the routed experts' activation; then the output head's forward GEMM and the loss's forward
    passes (what a reference model's forward adds beside the layers')."""

    gemm_fwd: float
    gemm_rest: float
    attn_fwd: float
    attn_rest: float
    fwd_mem: float
    mem_fwd: float
    mem_rest: float
    mlp_gemm: float
    mlp_mem: float
    up_gemm: float
    up_mem: float
    norm_mem: float
    act_mem: float
    head_fwd: float
    loss_fwd: float


_PARTS: dict[tuple, _StageParts] = {}


def _stage_time(m: ModelShape, c: ParamCounts, gpu: GPU, key: tuple) -> StageTime:
    """The stage time at the key's recompute level, from the parts of its shape (the recompute
    level only scales them: one key's parts serve all three levels)."""
    pp, recompute, modules, recomputed, reference = key[9], key[12], key[-3], key[-2], key[-1]
    # The parts of one stage are the whole model's over pp (layers, head and loss spread evenly):
    # worked out once for every pipeline depth.
    shape = key[:9] + key[10:12] + key[13:-3]
    whole = _PARTS.get(shape)
    if whole is None:
        whole = _PARTS[shape] = _stage_parts(m, c, gpu, shape)
    parts = _StageParts(*(t / pp for t in whole))
    # Full recompute reruns the forward (of the `recomputed` share of the layers); selective reruns
    # the cheap operators (activation function, norms) as well.
    fwd_passes = 1 + recomputed if recompute == "full" else 1
    rerun = recomputed if recompute == "full" else 1 if recompute == "selective" and not modules else 0
    # Megatron-Core's selective recompute reruns the forward of its modules alone.
    gemm = (parts.mlp_gemm if "mlp" in modules else 0) + (parts.up_gemm if "mla_up_proj" in modules else 0)
    attn = parts.attn_fwd if "core_attn" in modules else 0
    mem = sum(
        t
        for name, t in (
            ("mlp", parts.mlp_mem),
            ("mla_up_proj", parts.up_mem),
            ("layernorm", parts.norm_mem),
            ("moe_act", parts.act_mem),
        )
        if name in modules
    )
    # A reference model's forward: every layer's forward once more, and the head's (LoRA's
    # adapters are off in it: their small share of the forward is counted anyway).
    return StageTime(
        parts.gemm_fwd * (fwd_passes + reference) + parts.gemm_rest + gemm + parts.head_fwd * reference,
        parts.attn_fwd * (fwd_passes + reference) + parts.attn_rest + attn,
        parts.fwd_mem * (1 + rerun + reference + BWD_BYTES_RATIO)
        + parts.mem_fwd * (fwd_passes + reference)
        + parts.mem_rest
        + mem
        + parts.loss_fwd * reference,
        0.0,
    )


def _stage_parts(m: ModelShape, c: ParamCounts, gpu: GPU, shape: tuple) -> _StageParts:
    (
        _,
        _,
        precision,
        method,
        rank,
        targets,
        seq,
        mbs,
        tp,
        ep,
        cp,
        attention,
        passes,
        context,
        etp,
        dispatcher,
    ) = shape
    peft = method in ("lora", "qlora")
    passes, adapter_bytes = passes
    linear_dtype = (
        "fp8" if precision == "fp8" and gpu.fp8_dense_tflops > 0 else ("fp16" if precision == "fp16" else "bf16")
    )
    if precision in ("fp32", "tf32"):
        linear_dtype = precision
    other_dtype = "bf16" if linear_dtype in ("fp8", "bf16") else linear_dtype
    hbm = gpu.memory_bw_tb_s * 1e12 * ETA_HBM
    e_bytes = 4 if precision in ("fp32", "tf32") else ELEMENT_BYTES
    tokens = seq * mbs / cp  # tokens this GPU holds (context parallel splits the sequence)
    # Backward GEMMs per forward GEMM: input and weight gradients, or only the input's for a
    # frozen base (LoRA); each forward pass runs each GEMM once.
    bwd_gemms = 1 if peft else 2

    def layer(moe_layer: bool) -> tuple[float, ...]:
        gemm = gemm_rest = cast = cast_rest = 0.0
        module_gemm = {"mlp": 0.0, "mla_up_proj": 0.0}
        module_mem = {"mlp": 0.0, "mla_up_proj": 0.0}
        for lin in layer_linears(m, tokens, tp, ep, moe_layer, etp):
            dtype = linear_dtype if lin.fp8 else other_dtype
            t = gemm_seconds(lin.m, lin.n, lin.k, gpu, dtype, lin.count)
            gemm += t
            gemm_rest += t * bwd_gemms
            if lin.role:
                module_gemm[lin.role] += t
            if dtype == "fp8":  # the input cast each forward pass, the output's once
                cast += FP8_CAST_BYTES * lin.count * lin.m * lin.k / hbm
                cast_rest += FP8_CAST_BYTES * lin.count * lin.m * lin.n / hbm
                if lin.role:
                    module_mem[lin.role] += FP8_CAST_BYTES * lin.count * lin.m * lin.k / hbm
        adapter_mem = 0.0
        if peft:
            for lin in lora_linears(m, tokens, tp, rank, targets):
                t = gemm_seconds(lin.m, lin.n, lin.k, gpu, other_dtype)
                gemm += t
                gemm_rest += 2 * t
            # each adapted projection's input read and output written around its adapter
            adapted = sum(k_in + n_out for k_in, n_out in lora_shapes(m, targets)) / tp
            adapter_mem = adapter_bytes * tokens * adapted / hbm
        # Attention core: causal, so half the scores (keys over the whole sequence with cp, or over
        # the sample where samples are shorter: `context`); local windows or chunks see fewer
        # keys, averaged over the layers (ModelShape.mean_keys).
        qk = m.mla_qk_nope_head_dim + m.mla_qk_rope_head_dim if m.uses_mla else m.head_dim
        v = m.mla_v_head_dim if m.uses_mla else m.head_dim
        heads = m.heads / tp
        fwd_flops = 2 * tokens * (context / 2) * m.attention_share(context) * (qk + v) * heads
        # SDPA's memory-efficient kernel multiplies fp32 on TF32 tensor cores whatever allow_tf32
        # says (its three-pass fp32 emulation, above); eager attention's matmuls follow the flag
        fp32_on_tf32 = attention == "mem_efficient" and other_dtype == "fp32"
        peak = gpu.peak_tflops("tf32" if fp32_on_tf32 else other_dtype) * 1e12
        if attention not in ("eager", "mem_efficient"):
            eta_fwd, eta_bwd = attention_efficiency(gpu, attention)
            attn = fwd_flops / (peak * eta_fwd)
            attn_rest = ATTN_BWD_FLOPS_RATIO * fwd_flops / (peak * eta_bwd)
        elif attention == "mem_efficient":  # SDPA's memory-efficient kernel never writes the scores
            attn = fwd_flops / (peak * ETA_ATTN_MEM_EFFICIENT)
            attn_rest = ATTN_BWD_FLOPS_RATIO * fwd_flops / (peak * ETA_ATTN_MEM_EFFICIENT)
        else:  # every score of the s x s, masked or not, at the matmul rate, then its passes
            full_flops = 2 * tokens * context * (qk + v) * heads
            scores = EAGER_SCORE_PASSES * tokens * context * heads * e_bytes / hbm
            attn = full_flops / (peak * mamf(gpu, other_dtype)) + scores
            attn_rest = EAGER_BWD_GEMMS * full_flops / (peak * mamf(gpu, other_dtype)) + scores * BWD_BYTES_RATIO
        # Bandwidth-bound operators, per token of this GPU (sequence parallel splits the norms
        # and residuals over tp).
        h = m.hidden
        q = m.heads * (qk if m.uses_mla else m.head_dim)
        kv = m.kv_heads * m.head_dim if not m.uses_mla else m.mla_qk_rope_head_dim
        act = SWIGLU_ELEMS if m.ffn_type == "swiglu" else GELU_ELEMS
        rope = ROPE_PASSES * (q + kv) / tp
        elems = (NORM_ELEMS + RESIDUAL_ELEMS) * h / tp + rope
        if m.qk_norm:  # each query and key head normalised: read and write them once more
            elems += NORM_ELEMS / 2 * (q + kv) / tp
        # the norms that stand alone (one of the two NORM_ELEMS each): a MoE layer's pre-MLP
        # norm and MLA's input norm (frameworks.selective_modules)
        norms = (NORM_ELEMS / 2) * h / tp * (int(moe_layer) + int(m.uses_mla))
        routed_act = dense_act = 0.0
        if moe_layer:
            routed_act = act * m.moe_ffn_hidden * (m.moe_top_k * etp / tp) / etp
            elems += routed_act + act * m.moe_shared_experts * m.moe_ffn_hidden / tp
            sorts = ALLTOALL_SORT_ELEMS if dispatcher == "alltoall" and m.moe_experts > max(1, ep) else 0
            elems += (PERMUTE_ELEMS + sorts) * m.moe_top_k * h * etp / tp
        else:
            dense_act = act * m.ffn_hidden / tp
            elems += dense_act
        per_elem = passes * tokens * e_bytes / hbm
        fwd_mem = elems * per_elem + adapter_mem
        return (
            gemm, gemm_rest, attn, attn_rest, fwd_mem, cast, cast_rest,
            module_gemm["mlp"], module_mem["mlp"] + dense_act * per_elem,
            module_gemm["mla_up_proj"], module_mem["mla_up_proj"] + (rope * per_elem if m.uses_mla else 0.0),
            norms * per_elem, routed_act * per_elem,
        )  # fmt: skip

    n_moe = c.moe_layers
    n_dense = m.layers - n_moe
    totals = [0.0] * len(_StageParts._fields)
    for count, is_moe in ((n_dense, False), (n_moe, True)):
        if count:
            for i, t in enumerate(layer(is_moe)):
                totals[i] += count * t
    gemm, gemm_rest, attn, attn_rest, fwd_mem, mem_fwd, mem_rest, *modules, _, _ = totals
    # Output head and loss (spread over the stages by the caller); a frozen head (LoRA) has no
    # weight gradient.
    head = gemm_seconds(tokens, m.vocab / tp, m.hidden, gpu, other_dtype)
    gemm_rest += head * (1 + bwd_gemms)
    loss = LOSS_PASSES * tokens * m.vocab / tp * e_bytes / hbm
    mem_rest += loss
    # a forward alone: the head's GEMM and the loss's forward passes (the logits written and read
    # by the softmax: two of LOSS_PASSES)
    loss_fwd = loss * 2 / LOSS_PASSES
    if method == "qlora":  # the 4-bit weights dequantised each forward pass and once backward
        linear_params = (c.total - c.embedding - c.output - m.layers * c.norms_per_layer) / tp
        dequant = NF4_DEQUANT_BYTES * linear_params / hbm
        mem_fwd += dequant
        mem_rest += dequant
    return _StageParts(gemm, gemm_rest, attn, attn_rest, fwd_mem, mem_fwd, mem_rest, *modules, head, loss_fwd)
