"""Memory per GPU for training: weights, gradients, optimizer states, activations, other.

Model states follow the ZeRO paper (Rajbhandari et al. 2020, Sec 3.1 and 5): mixed precision
AdamW holds 2 bytes of bf16 weights, 2 of gradients and 12 of fp32 master weights and two
moments per parameter (16 in all); ZeRO-1 shards the 12, ZeRO-2 also the gradients, ZeRO-3
also the weights, each over the data-parallel ranks. Tensor and pipeline parallelism divide
the layers as in Megatron-LM's theoretical_memory_usage.py (the most loaded stage holds the
embedding). Activations follow Korthikanti et al. 2022 ("Reducing Activation Recomputation
in Large Transformer Models", Table 2), redone term by term for the modern block (RMSNorm,
GQA, SwiGLU, flash attention) below. All sizes here are bytes; the result is in GiB.

`estimate_memory` adds parts that each have their own function and sources, model states
apart from activations as in Megatron's theoretical_memory_usage.py: the parameters on this
GPU, the model states (weights, gradients, optimizer), what offload moves to the host, the
activations, and the overheads (fragmentation, ZeRO-3 gathers, CUDA context, NCCL buffers).
"""

from __future__ import annotations

from typing import NamedTuple

from pydantic import BaseModel

from advisor.engine.frameworks import DEEPSPEED, FSDP2, HF, LITGPT, MEGATRON, PEFT
from advisor.engine.layout import ModelSplit
from advisor.engine.setup import TrainingSetup
from advisor.engine.shapes import ParamCounts, count_params
from advisor.engine.specs import GPU, ModelShape

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
# Megatron-Core accumulates bf16 (and fp8) gradients in a main_grad buffer of the dtype they
# are reduced in: fp32 by default (accumulate_allreduce_grads_in_fp32, set with --bf16), 4 bytes
# a parameter, as its theoretical_memory_usage.py counts (6 + 12/dp bytes with the distributed
# optimizer); bf16, 2 bytes, where the plan reduces in bf16 as NVIDIA's performance recipes do
# (layout.grad_reduce; Megatron-Bridge perf_recipes/_common.py `_perf_precision`).
MAIN_GRAD_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}
MAIN_GRAD_PRECISIONS = ("bf16", "fp8")
# Optimizer moments per parameter (AdamW: m and v; Lion and SGD with momentum: one).
_MOMENTS = {"adamw": 2, "adamw8bit": 2, "lion": 1, "sgd": 1}
# Bytes per optimizer moment: fp32 (ZeRO paper Sec 3.1); 8-bit Adam keeps 1 (Dettmers et al.
# 2022, "8-bit Optimizers via Block-wise Quantization"); pure bf16 keeps them in bf16
# (torchtune's default full fine-tune).
MOMENT_BYTES, MOMENT_BYTES_8BIT, MOMENT_BYTES_PURE_BF16 = 4, 1, 2
# Megatron-Core's precision-aware optimizer (`--use-precision-aware-optimizer --exp-avg-dtype bf16
# --exp-avg-sq-dtype bf16`, megatron/training/arguments.py) hands the moments' dtypes to Transformer
# Engine's FusedAdam (megatron/core/optimizer/__init__.py), which keeps them in bf16: 2 bytes each
# (MOMENT_BYTES_PURE_BF16). For bf16 parameters FusedAdam then also holds the fp32 master weights,
# as their trailing 16 bits beside the bf16 weight (OptimizerConfig.store_param_remainders, True by
# default with TE 2.1 or newer; TE fused_adam.py: "Whole FP32 master can be reconstructed from BF16
# params plus the trailing remainder bits"): 2 bytes, not 4. Under FP8 recipes other than delayed
# scaling Megatron-Core keeps its own fp32 main params (optimizer_config.py
# use_precision_aware_optimizer_no_fp8_or_ds_fp8; distrib_optimizer.py), 4 bytes. Read at
# Megatron-LM d98e8a64dd (2026-08); the remainders since core_v0.13.0.
MASTER_REMAINDER_BYTES = 2
# Frozen base weights of LoRA in the compute precision: 2 bytes, 4 in fp32. QLoRA quantises
# only the linear layers (bitsandbytes Linear4bit); norms and embeddings stay in bf16.
FROZEN_BYTES, FROZEN_BYTES_FP32 = 2, 4
# Adapters train in fp32 under autocast (PEFT's autocast_adapter_dtype default): 4 B weights
# and 4 B gradients; in a model kept all in bf16 (pure-bf16: torchtune's dtype bf16, litgpt's
# bf16-true) they are created in bf16 too, 2 B each, with bf16 optimizer moments.
ADAPTER_BYTES = 4
ADAPTER_BYTES_PURE_BF16 = 2
# Activations in 2 bytes (bf16/fp16, Korthikanti's unit), 4 in fp32; a dropout mask in 1
# (a bool tensor, as PyTorch's native dropout keeps it; Korthikanti counts 1 byte too).
ACTIVATION_BYTES, ACTIVATION_BYTES_FP32 = 2, 4
DROPOUT_MASK_BYTES = 1
# QLoRA NF4 with double quantisation: 4 bits + 0.127 bits of quantisation constants per
# parameter (Dettmers et al. 2023, QLoRA, Sec 2 "Double Quantization").
NF4_BYTES = (4 + 0.127) / 8
# Bytes a 4-bit weight takes while a matmul runs on it: bitsandbytes dequantises the whole
# weight for each matmul, forward and backward (Dettmers et al. 2023, Sec 3), into the dtype it
# was quantised from, then casts it to the compute dtype where the two differ. bitsandbytes
# before 0.43 quantised from fp16 whatever the model's dtype (Params4bit.cuda: `.half()`), and
# Lightning's plugin, which litgpt runs, still does (`_Linear4bit._quantize_weight`), so a bf16
# run holds an fp16 and a bf16 copy at once; a current bitsandbytes quantises from bf16.
DEQUANTISED_BYTES, DEQUANTISED_BYTES_FROM_FP16 = 2, 2 + 2
# CUDA context plus cuBLAS/NCCL workspaces, present in nvidia-smi readings but not in
# torch.cuda.max_memory_allocated(). The HF "model memory anatomy" guide measures about
# 1.3 GiB of context on its GPU; recent CUDA lazy loading needs less (assumed 1.0 GiB).
CUDA_CONTEXT_GIB = 1.0
NCCL_BUFFERS_GIB = 0.5  # NCCL communicator buffers when there is more than one GPU (assumed)
# Caching-allocator fragmentation on activations and temporaries (Megatron adds 5%): the part
# of the cache that cannot be handed back, so it counts towards what must fit.
FRAGMENTATION = 0.05
# What torch.cuda.max_memory_reserved() shows beyond the peak allocation while the card has
# room: the caching allocator keeps freed blocks of the transient tensors (activations,
# gathered layers) instead of returning them, and releases them only when an allocation would
# otherwise fail. As a share of those transient bytes, fitted by bench/fit.py --memory on the
# calibration rows read as reserved or with nvidia-smi (torchtitan M01-M03 and PEFT's method
# comparison M08-M09 alone give 0.32-0.59; the FSDP and DeepSpeed nvidia-smi rows 0.5-1.1);
# llama-recipes' 70B FSDP run reads 42 GB allocated against 63 GB reserved (meta-llama/llama-
# cookbook issue 120), so FSDP1 can hold far more. A reading, not a need: it is shown, never
# used to decide what fits.
ALLOCATOR_CACHE = 0.4
# ZeRO-Offload keeps one gradient bucket on the GPU: DeepSpeed's reduce_bucket_size default of
# 5e8 elements of 2 bytes, which we assume spread over the data-parallel ranks.
OFFLOAD_BUCKET_ELEMENTS, OFFLOAD_BUCKET_BYTES = 5e8, 2
# ZeRO-Infinity streams parameters in a layer ahead: the current and the next layer (DeepSpeed
# prefetch; assumed two).
OFFLOAD_LAYERS_ON_GPU = 2
# FSDP/ZeRO-3 gathers whole layers: the current layer's bf16 weights, the prefetched next one,
# and the current layer's gradients before reduce-scatter (FSDP forward/backward prefetch),
# 3 layer-sized buffers of 2 bytes.
ZERO3_GATHER_BUFFERS, ZERO3_GATHER_BYTES = 3, 2
# DeepSpeed ZeRO-3 with an MoE block set as a leaf module (setup.z3_leaf) gathers the block whole:
# every expert of the layer comes in at once (fetch_sub_module over iter_params(recurse=True) of
# a leaf, deepspeed/runtime/zero/partitioned_param_coordinator.py at 00a31c99), 1.2 GB of bf16 a
# layer for Qwen3-30B-A3B's 128 experts, and its gradients are reduce-scattered only once the
# whole block's backward is done (DeepSpeed PR #5008): two block-sized buffers of 2 bytes. The
# prefetch of the next block is held to stage3_prefetch_bucket_size, far less than a block.
# transformers 5 keeps a layer's experts in one module of two 3-D parameters, so ZeRO-3 gathers
# them whole with or without a leaf (setup.hf_expert_loop False).
# (ZeRO-Infinity's streamed layers, offload "all", are counted apart: OFFLOAD_LAYERS_ON_GPU.)
ZERO3_LEAF_BLOCK_BUFFERS = 2
# FSDP + PP: the stage's gathered bf16 parameters and unsharded bf16 gradients, kept through
# the micro-batches of a step (torchtitan parallelize: reshard_after_forward False with PP).
FSDP_PP_UNSHARDED_BYTES = 2 + 2
# An unchunked fp32 cross entropy: the fp32 copy of the logits and its gradient (assumed 4 + 4
# bytes a logit beyond the bf16 logits).
EAGER_LOSS_BYTES = 8
# Megatron-Core's cross entropy: the fp32 softmax it keeps for the backward (`activation_memory`).
MEGATRON_LOSS_BYTES = 4
# A router keeps two fp32 score tensors over all its experts for the backward, a token each: the
# routing scores (softmax or sigmoid taken in fp32: moe_utils.py topk_softmax_with_capacity) and
# the load-balancing loss's own (router.py compute_routing_scores_for_aux_loss: softmax in fp32),
# core_v0.13.0 megatron/core/transformer/moe (assumed alike on other stacks).
ROUTER_SCORES, ROUTER_SCORE_BYTES = 2, 4


class MemoryBreakdown(BaseModel):
    weights: float
    gradients: float
    optimizer: float
    activations: float
    other: float
    total: float
    context: float  # the part of `other` that torch.cuda.max_memory_allocated() does not see
    fragmentation: float  # the part of `other` inside the allocator's cache, not allocated
    cache: float  # what max_memory_reserved() adds to the peak allocation while there is room
    host_ram_gib: float  # CPU memory per GPU that offloaded states need
    trainable_params: float
    notes: list[dict]  # the arithmetic as numbers; templates/explain.<lang>.j2 words it

    @property
    def allocated(self) -> float:
        """What torch.cuda.max_memory_allocated() reports: the tensors alone."""
        return self.total - self.context - self.fragmentation

    @property
    def reserved(self) -> float:
        """What torch.cuda.max_memory_reserved() reports: the allocations and the blocks the
        caching allocator keeps (at least the fragmentation counted in `total`), never more
        than the card holds beside the CUDA context."""
        return self.allocated + self.cache

    @property
    def nvidia_smi(self) -> float:
        """What nvidia-smi shows for the process: the reserved memory and the CUDA context."""
        return self.reserved + self.context

    @property
    def explained(self) -> list[dict]:
        """The arithmetic notes and, last, the three readings (built here, not for every layout
        the search tries)."""
        readings = {
            "kind": "readings",
            "allocated_gib": self.allocated,
            "reserved_gib": self.reserved,
            "nvidia_smi_gib": self.nvidia_smi,
            "cache_share": ALLOCATOR_CACHE,
        }
        return [*self.notes, readings]


class LinearInputs(NamedTuple):
    """Which linear layers' inputs a layer keeps for backward. A linear keeps its input only for
    its weight's gradient: PyTorch saves mm's first operand only when the second requires grad
    (tools/autograd/gen_variable_type.py `guard_for`), and Transformer Engine's Linear saves it
    only when its weight trains. A frozen base layer of LoRA keeps none; its adapter keeps the
    same input for A's gradient when there is no dropout (with dropout, the dropped copy:
    `lora_dropout_bytes`). The attention output is kept anyway, by the attention kernel."""

    qkv: bool = True
    o: bool = True
    gate_up: bool = True
    down: bool = True


ALL_INPUTS = LinearInputs()
# The modules of a layer each `lora_targets` adapts (as `adapted_linears` lists them)
_ADAPTED = {"qv": {"q", "v"}, "attn": {"q", "k", "v", "o"}, "all": {"q", "k", "v", "o", "gate", "up", "down"}}


def linear_inputs_kept(setup: TrainingSetup) -> LinearInputs:
    """Full training keeps every linear input; LoRA only those its adapters reuse. QLoRA on
    bitsandbytes before 0.43.2 kept every 4-bit layer's input as well (its MatMul4Bit saved A
    whenever A needed a gradient; bitsandbytes PR #1270, 2024-07-16, "the bug that caused a lot
    of memory issues with QLoRA")."""
    if not setup.is_peft or (setup.method == "qlora" and setup.bnb_keeps_inputs):
        return ALL_INPUTS
    reused = _ADAPTED[setup.lora_targets] if setup.lora_dropout <= 0 else set()
    return LinearInputs(
        qkv=bool(reused & {"q", "k", "v"}),
        o="o" in reused,
        gate_up=bool(reused & {"gate", "up"}),
        down="down" in reused,
    )


class Kernels(NamedTuple):
    """How the stack runs a layer's small operators, which sets what it keeps for backward.
    The default is Megatron-Core's: fused norms and SwiGLU, Transformer Engine attention."""

    eager_norms: bool = False  # RMSNorm as separate PyTorch operators
    eager_activation: bool = False  # SwiGLU's SiLU and product as separate operators
    native_attention: bool = False  # PyTorch SDPA: K/V repeated to the query heads, output copied
    norm_trains: bool = True  # the norms' scales train (full training), not frozen (LoRA)


FUSED = Kernels()


def stack_kernels(framework: str | None, setup: TrainingSetup) -> Kernels:
    """Megatron-Core runs fused kernels. The other stacks run PyTorch's modules with SDPA, eager
    unless compiled (torch.compile, or Liger's kernels, fuse the norms and the activation, not
    SDPA's inputs); torchtitan's RMSNorm is its own fused kernel (its Llama configs:
    norm_type = "fused_rmsnorm", train_configs/llama2_13b.toml at 157a12c5)."""
    if framework == MEGATRON:
        return FUSED
    eager = not setup.compiled
    return Kernels(
        eager_norms=eager and framework != FSDP2,
        eager_activation=eager,
        native_attention=True,
        norm_trains=not setup.is_peft,
    )


def _act_bytes(precision: str) -> int:
    return ACTIVATION_BYTES_FP32 if precision == "fp32" else ACTIVATION_BYTES


def flash_attention(gpu: GPU, precision: str) -> bool:
    # FlashAttention-2 needs Ampere or newer and 16-bit inputs (Dao 2023, README requirements).
    return gpu.architecture not in ("Volta", "Turing") and precision != "fp32"


# Transformer Engine, Megatron-Core's attention, trains q/k head dims unequal to v's (MLA: 192
# against 128) on fused kernels only on Hopper and Blackwell: up to 2.16 it turns FlashAttention-2
# off for head_dim_qk != head_dim_v (2.17 pads V instead, #2629) and FlashAttention-3 (sm90 only)
# takes qk in (128, 192] with v in (96, 128] from 2.8 (TE transformer_engine/pytorch/attention/
# dot_product_attention/utils.py get_attention_backend, "Filter: Head dimension", v2.8-v2.16);
# cuDNN's fused attention trains head dims over 128 on sm90 only (cuDNN 9.5+) and d_qk 192 with
# d_v 128 on sm100+ (cuDNN 9.11+) (TE common/fused_attn/fused_attn.cpp nvte_get_fused_attn_backend,
# v2.16). Elsewhere TE runs UnfusedDotProductAttention, which writes the scores. ms-swift
# recommends TE 2.16.0 (docs/source_en/Megatron-SWIFT/Quick-start.md at 3602360a5).
MLA_FUSED_ARCHITECTURES = ("Hopper", "Blackwell")


def unfused_mla(gpu: GPU, framework: str | None, unequal_head_dims: bool) -> bool:
    """Whether Megatron-Core's Transformer Engine runs this model's MLA unfused on this GPU
    (`MLA_FUSED_ARCHITECTURES`; other vendors' TE ports are not read, so left fused)."""
    return (
        unequal_head_dims
        and framework == MEGATRON
        and gpu.vendor.lower() == "nvidia"
        and gpu.architecture not in MLA_FUSED_ARCHITECTURES
    )


def score_free_attention(
    gpu: GPU, precision: str, framework: str | None, position: str = "rope", unequal_head_dims: bool = False
) -> bool:
    """Whether the attention kernel keeps no score matrix: FlashAttention, or, where it cannot run
    (fp32, Volta, Turing), PyTorch SDPA's memory-efficient kernel, which takes fp16 and fp32 on
    every CUDA GPU and bf16 from Ampere (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp,
    can_use_mem_efficient_attention; on ROCm its aotriton kernel, fp32 too) and keeps, as
    FlashAttention does, q, k, v, the output and the log-sum-exp. The PyTorch-native stacks call
    SDPA; Megatron-Core's Transformer Engine has fused kernels for 16-bit inputs only, and for
    MLA's unequal head dims on Hopper and Blackwell only (`unfused_mla`), and falls back to its
    unfused attention, which keeps the scores. So do HF Transformers' ALiBi models (BLOOM and MPT
    there add the bias to eager scores: modeling_bloom.py `alibi.baddbmm`)."""
    if unfused_mla(gpu, framework, unequal_head_dims):
        return False
    if flash_attention(gpu, precision):
        return True
    return framework != MEGATRON and position != "alibi" and gpu.vendor.lower() in ("nvidia", "amd")


def attention_kernel(
    gpu: GPU,
    setup: TrainingSetup,
    framework: str | None = None,
    position: str = "rope",
    unequal_head_dims: bool = False,
) -> str:
    """The attention kernels the step runs: the setup's choice ("best" for the GPU, or "fa2")
    where FlashAttention runs; "mem_efficient" where a PyTorch-native stack's SDPA falls back
    to its memory-efficient kernel (`score_free_attention`); "eager" where no fused kernel runs.
    All but eager keep the same activations."""
    if not score_free_attention(gpu, setup.precision, framework, position, unequal_head_dims):
        return "eager"
    return setup.attention if flash_attention(gpu, setup.precision) else "mem_efficient"


def layer_activation_bytes_per_token(
    m: ModelShape,
    seq: int,
    precision: str,
    recompute: str,
    flash: bool,
    op_level: bool = False,
    kernels: Kernels = FUSED,
    inputs: LinearInputs = ALL_INPUTS,
    modules: tuple[str, ...] = (),
) -> float:
    """Bytes one transformer layer keeps for backward, per token, without tensor parallelism.

    Korthikanti et al. 2022 count 34*h (+5*a*s without flash) bytes for a GPT block with a
    4h GELU MLP and dropout; the same bookkeeping for the modern block, on fused kernels
    (Transformer Engine, Megatron-Core), gives:
      attention: norm input 2h, QKV input 2h, q/k/v kept by flash attention 2(q+2kv),
                 attention output (also the o-proj input) 2q;
      MLP:       norm input 2h, gate/up input 2h, the fused SwiGLU's input (gate and up
                 outputs, 2 tensors of ffn width) and its output, the down-proj input: 3
                 tensors (Megatron's bias_swiglu saves its input alone); a GELU MLP keeps 2
                 (fc1 output, fc2 input).
    `kernels` adds what PyTorch-native stacks keep beyond that (`Kernels`): eager norms' fp32
    inputs and normalised copies, SwiGLU's activation output, SDPA's repeated K/V and the
    copied attention output.
    `inputs`: the linear inputs kept for weight gradients (`linear_inputs_kept`); LoRA's frozen
    base layers keep none of their own.
    Selective recompute drops the attention core (only matters without flash attention) and
    recomputes the activation function (one ffn-width tensor less); on Megatron-Core it drops
    what its `modules` recompute (frameworks.selective_modules): "core_attn" the scores, "mlp"
    a dense MLP's tensors but its input, "moe_act" the routed experts' activation output (the
    down-projection's input), "layernorm" the outputs of the norms that stand alone (a MoE
    layer's pre-MLP norm, MLA's input norm), "mla_up_proj" q, k and v for MLA's latents.
    A routed layer also keeps its router's fp32 scores over every expert (`ROUTER_SCORE_BYTES`).
    `op_level`: torchtitan's selective recompute is per operator (its "op" policy saves the
    output of every second matmul and of the attention kernel, and recomputes the rest:
    torchtitan docs/performance.md, "selective op" AC; _save_list in its activation
    checkpointing): the layer's input 2h, the attention output 2q and half of the 2-byte
    matmul outputs (q, k, v, o, gate, up, down).
    """
    if op_level and recompute == "selective":
        h, q = m.hidden, m.heads * m.head_dim
        kv = m.kv_heads * m.head_dim if not m.uses_mla else m.heads * m.mla_v_head_dim
        ffn = m.moe_ffn_hidden * (m.moe_top_k + m.moe_shared_experts) if m.is_moe else m.ffn_hidden
        up = 2 if m.ffn_type == "swiglu" else 1
        matmul_outputs = 2 * (q + 2 * kv + h + up * ffn + h)
        return _act_bytes(precision) / ACTIVATION_BYTES * (2 * h + 2 * q + matmul_outputs / 2)
    e = _act_bytes(precision) / ACTIVATION_BYTES  # the counts above are for 2-byte activations
    h = m.hidden
    q = m.heads * m.head_dim
    kv = m.kv_heads * m.head_dim if not m.uses_mla else m.heads * m.mla_v_head_dim
    ffn = m.moe_ffn_hidden * (m.moe_top_k + m.moe_shared_experts) if m.is_moe else m.ffn_hidden
    # FP8: Transformer Engine keeps a linear layer's input for the weight gradient as its fp8
    # cast, 1 byte (TE Linear saves the quantised input; DeepSeek-V3 report Sec 3.3.2 caches
    # activations in FP8 too): the QKV, output, gate/up and down projections' inputs.
    lin = 1 if precision == "fp8" else 2
    qkv_in = lin * h if inputs.qkv else 0
    megatron = recompute == "selective" and bool(modules)
    if "layernorm" in modules and m.uses_mla:
        qkv_in = 0  # MLA's input norm output, which its down-projections keep, recomputed
    attention = 2 * h + qkv_in + 2 * (q + 2 * kv) + lin * q
    if m.uses_mla and ((recompute != "none" and not megatron) or "mla_up_proj" in modules):
        # MLA: recompute the up-projections of q, k and v in the backward and keep only the
        # compressed latents (DeepSeek-V3 report Sec 3.2.3; Megatron-Core's mla_up_proj
        # recompute module): the latents and the attention output, not q, k and v.
        latents = m.mla_q_lora_rank + m.mla_kv_lora_rank + m.mla_qk_rope_head_dim
        attention = 2 * h + qkv_in + 2 * latents + lin * m.heads * m.mla_v_head_dim
    ffn_tensors = 3 if m.ffn_type == "swiglu" else 2
    if m.ffn_type == "swiglu" and kernels.eager_activation:
        ffn_tensors += 1  # silu(gate) kept for the product's backward
    if recompute == "selective" and not megatron:
        ffn_tensors -= 1
    # the down-projection's input: moe_act drops the routed experts' share (shared experts run
    # their own MLP, outside it: megatron/core/transformer/moe/experts.py activation_recompute)
    down_in = ffn - (m.moe_ffn_hidden * m.moe_top_k if "moe_act" in modules and m.is_moe else 0)
    # a MoE layer's pre-MLP norm output, which the router and shared experts keep, recomputed
    norm_out = 0 if "layernorm" in modules and m.is_moe else lin * h
    mlp = (
        2 * h
        + (norm_out if inputs.gate_up else 0)
        + 2 * (ffn_tensors - 1) * ffn
        + (lin * down_in if inputs.down else 0)
    )
    if "mlp" in modules and not m.is_moe:
        mlp = 2 * h  # the checkpointed MLP keeps its input alone (the residual its fused norm reads)
    if m.is_moe and inputs.gate_up:
        # The routed experts' first GEMM takes the permuted tokens, one copy of each token for
        # each expert it goes to, and keeps them for its weight gradient: top-k tensors of
        # hidden width beside the router's and shared experts' input counted above
        # (Megatron-Core experts.py TEGroupedMLP.forward: linear_fc1(permuted_local_hidden_
        # states, tokens_per_expert); transformers' expert loop indexes a copy per expert).
        mlp += lin * h * m.moe_top_k
    core = 0.0
    if not flash and (recompute != "selective" or (megatron and "core_attn" not in modules)):
        core = 5 * m.heads * seq  # softmax output, dropout mask and output (Korthikanti Table 2)
    router = ROUTER_SCORES * ROUTER_SCORE_BYTES * m.moe_experts  # fp32 whatever the precision
    return e * (attention + mlp + core) + router + native_extra_bytes(m, precision, kernels, inputs.o)


def native_extra_bytes(m: ModelShape, precision: str, kernels: Kernels, o_input: bool = True) -> float:
    """Bytes a layer keeps per token on a PyTorch-native stack beyond the fused kernels' count.

    Eager RMSNorm (HF LlamaRMSNorm, torchtune's RMSNorm) upcasts its input and keeps the fp32
    copy for the backward of x * rsqrt(mean(x^2)): 4 bytes where the fused kernel keeps the
    2-byte input; and, where the norm's scale trains, the normalised 2-byte tensor for the
    scale's gradient. Two norms a layer. torchtune measured what compiling saves on Llama 3.2
    3B (README "Optimization flags": 60.0 -> 51.0 GiB at 2 x 4,096 tokens, 28 layers): 13.7h
    bytes a token and layer, against 13.3h here (the norms' 8h and SiLU's output 2 x 8,192).
    PyTorch's SDPA gets K and V repeated to the query heads (HF's and torchtitan's repeat_kv,
    torchtune's expand: a copy) and keeps them; the output is transposed into a contiguous copy
    that the output projection keeps (where it keeps its input: `o_input`), beside the one SDPA
    keeps. Transformer Engine takes
    grouped K/V and reshapes its output in place.
    """
    extra = 0.0
    if kernels.eager_norms and m.norm == "rmsnorm":  # F.layer_norm is one fused kernel even in eager
        wide = ACTIVATION_BYTES_FP32 - ACTIVATION_BYTES if precision != "fp32" else 0
        extra += 2 * m.hidden * (wide + (_act_bytes(precision) if kernels.norm_trains else 0))
    if kernels.native_attention and not m.uses_mla:
        q, kv = m.heads * m.head_dim, m.kv_heads * m.head_dim
        extra += _act_bytes(precision) * (2 * (q - kv) + (q if o_input else 0))
    return extra


def lora_dropout_bytes(m: ModelShape, setup: TrainingSetup) -> float:
    """Bytes a layer keeps per token for LoRA's dropout: each adapted module drops its own copy
    of its input (PEFT's lora_dropout, one nn.Dropout a module) and keeps that copy for the
    adapter's A and the 1-byte mask for the dropout's backward (3 bytes an input element);
    with no dropout the adapter keeps the input itself (`linear_inputs_kept`)."""
    if not setup.is_peft or setup.lora_dropout <= 0:
        return 0.0
    return (ACTIVATION_BYTES + DROPOUT_MASK_BYTES) * sum(i for i, _ in adapted_linears(m, setup.lora_targets))


def adapted_linears(m: ModelShape, targets: str) -> list[tuple[int, int]]:
    """(input, output) widths of each linear module LoRA adapts in a layer."""
    h = m.hidden
    q, kv = m.heads * m.head_dim, m.kv_heads * m.head_dim
    ffn = m.ffn_hidden if not m.is_moe else m.moe_ffn_hidden * max(1, m.moe_shared_experts)
    return {
        "qv": [(h, q), (h, kv)],
        "attn": [(h, q), (h, kv), (h, kv), (q, h)],
        "all": [(h, q), (h, kv), (h, kv), (q, h), (h, ffn), (h, ffn), (ffn, h)],
    }[targets]


def lora_params_per_layer(m: ModelShape, rank: int, targets: str) -> float:
    """Adapter parameters of one layer (Hu et al. 2021, LoRA: A is r x in, B is out x r)."""
    return sum(rank * (i + o) for i, o in adapted_linears(m, targets))


def lora_params(m: ModelShape, setup: TrainingSetup, framework: str) -> tuple[float, float]:
    """(non-expert, routed-expert) adapter parameters of the whole model, on `framework`.

    Adapting every linear layer of a mixture of experts adapts each routed expert's own gate, up
    and down projections: PEFT's all-linear finds every nn.Linear, one a projection of each
    expert in transformers 4's MoE blocks (Qwen3MoeSparseMoeBlock's ModuleList of MLPs), but none
    in transformers 5's, whose experts are two 3-D parameters and no nn.Linear (PEFT 0.21
    tuners_utils._maybe_include_all_linear_layers takes nn.Linear and Conv1D only; adapting them
    takes PEFT's `target_parameters`), so there the routed experts get no adapters; ms-swift's
    Megatron all-linear takes TEGroupedLinear too (swift/megatron/utils/utils.py
    find_all_linears) and gives it grouped adapters, an A and a B for each local expert
    (swift/megatron/tuners/lora.py update_layer: TEGroupedLinear(num_gemms=...), before
    ms-swift's 94dd3c87c moved it to mcore-bridge). Qwen3-30B-A3B at rank 32: 1.66B adapter
    parameters in its experts, against 27M in its attention."""
    dense = lora_params_per_layer(m, setup.lora_rank, setup.lora_targets) * m.layers
    if not m.is_moe or "gate" not in _ADAPTED[setup.lora_targets]:
        return dense, 0.0
    if framework in (PEFT, HF, DEEPSPEED) and not setup.hf_expert_loop:
        return dense, 0.0
    matrices = 3 if m.ffn_type == "swiglu" else 2
    per_expert = matrices * setup.lora_rank * (m.hidden + m.moe_ffn_hidden)
    return dense, per_expert * m.moe_experts * count_params(m).moe_layers


class ParamShard(NamedTuple):
    """Parameters on the most loaded GPU: the first pipeline stage, which holds the embedding
    (and the output head when there is one stage), as Megatron's theoretical_memory_usage.py
    counts it: block/pp + embedding, all over tp; routed experts over pp and ep."""

    block: float  # every transformer layer's non-expert parameters, whole model
    dense: float  # non-expert parameters on this GPU
    experts: float  # routed-expert parameters on this GPU

    @property
    def total(self) -> float:
        return self.dense + self.experts


class ModelStates(NamedTuple):
    """Bytes on this GPU; `notes` give the arithmetic for templates/explain.<lang>.j2."""

    weights: float
    gradients: float
    optimizer: float
    trainable_params: float
    notes: list[dict]


def parameters_on_this_gpu(c: ParamCounts, layout: ModelSplit) -> ParamShard:
    tp, pp, ep = layout.tp, layout.pp, max(1, layout.ep)
    block = c.total - c.embedding - c.output - c.extra - c.experts
    embed = c.embedding + (c.output if pp == 1 else 0)
    # A module outside the stack (DeepSeek-V3's multi-token prediction: one more MoE layer, its
    # embedding and head shared) is split like a layer: its routed experts over ep, the rest over
    # tp, on one stage (DeepSeek-V3 report Sec 2.2: the MTP module is one transformer block).
    layer_total = c.layer_dense_part + c.expert_mlp_per_layer + c.shared_mlp_per_layer
    extra_experts = c.extra * (c.expert_mlp_per_layer / layer_total) if c.moe_layers and layer_total else 0.0
    return ParamShard(
        block=block,
        dense=(block / pp + embed + c.extra - extra_experts) / tp,
        experts=(c.experts / (pp * ep) + extra_experts / ep) / layout.expert_tp,
    )


def shard_ranks(layout: ModelSplit) -> int:
    """Ranks the model states are sharded over: the data-parallel ranks times the context-
    parallel ones (both hold the same weights; Megatron's distributed optimizer and FSDP shard
    over both), or under HSDP only the data-parallel ranks of one server (sharded inside it,
    replicated across servers: FSDP2's 2-D mesh)."""
    ranks = layout.dp * max(1, layout.cp)
    if layout.hsdp:
        ranks = min(ranks, max(1, layout.gpus_per_node // layout.tp))
    return ranks


def optimizer_bytes_per_param(setup: TrainingSetup) -> float:
    """Moments x bytes per moment, plus the fp32 master copy (ZeRO paper Sec 3.1: 12 for AdamW)."""
    if setup.optimizer == "adamw8bit":
        per_moment = MOMENT_BYTES_8BIT
    elif setup.precision == "pure-bf16" or setup.moments == "bf16":
        per_moment = MOMENT_BYTES_PURE_BF16
    else:
        per_moment = MOMENT_BYTES
    master = _STATE[setup.precision][2]
    if setup.moments == "bf16" and setup.precision == "bf16":
        master = MASTER_REMAINDER_BYTES
    return _MOMENTS[setup.optimizer] * per_moment + master


def states_floor_bytes(c: ParamCounts, setup: TrainingSetup, count: int) -> float:
    """The least model-state memory a GPU can hold without offload: every state sharded over
    all `count` GPUs (ZeRO-3 with tensor and pipeline parallel). A bound for the search to
    skip counts where nothing can fit."""
    if setup.method == "qlora":
        per_param = NF4_BYTES
    elif setup.is_peft:
        per_param = FROZEN_BYTES_FP32 if setup.precision == "fp32" else FROZEN_BYTES
    else:
        w_bytes, g_bytes, _ = _STATE[setup.precision]
        per_param = w_bytes + (0 if setup.opt_in_backward else g_bytes) + optimizer_bytes_per_param(setup)
    return c.total * per_param / count


def full_training_states(c: ParamCounts, setup: TrainingSetup, layout: ModelSplit, shard: ParamShard) -> ModelStates:
    """Every parameter trains. ZeRO-1 shards the optimizer states over the data-parallel
    ranks, ZeRO-2 also the gradients, ZeRO-3 also the weights (ZeRO paper Sec 5); routed
    experts shard over the data-parallel ranks that hold the same experts (dp / ep)."""
    dp, zero = shard_ranks(layout), layout.zero_stage
    expert_dp = layout.expert_dp
    w_bytes, g_bytes, _ = _STATE[setup.precision]
    if layout.framework == MEGATRON and setup.precision in MAIN_GRAD_PRECISIONS:
        g_bytes = MAIN_GRAD_BYTES[layout.grad_reduce]
    opt_bytes = optimizer_bytes_per_param(setup)
    weights = shard.dense * w_bytes / (dp if zero == 3 else 1) + shard.experts * w_bytes / (
        expert_dp if zero == 3 else 1
    )
    if zero == 3 and layout.pp > 1:
        # FSDP with pipeline stages keeps the stage's parameters gathered from the first
        # micro-batch to the last (torchtitan sets reshard_after_forward False under PP, so
        # that each micro-batch does not gather them again), and its gradients unsharded until
        # the last micro-batch reduces them (bf16, the parameter dtype): 2 + 2 bytes a
        # parameter of the stage beside the fp32 shards.
        weights += shard.total * FSDP_PP_UNSHARDED_BYTES
    gradients = shard.dense * g_bytes / (dp if zero >= 2 else 1) + shard.experts * g_bytes / (
        expert_dp if zero >= 2 else 1
    )
    if setup.opt_in_backward:
        # Step fused into backward: each gradient is freed right after its update, so only
        # the largest single tensor's gradient is alive at once (torchtune optimizer_in_bwd).
        gradients = max(c.embedding, c.output) / layout.tp * g_bytes
    optimizer = shard.dense * opt_bytes / (dp if zero >= 1 else 1) + shard.experts * opt_bytes / (
        expert_dp if zero >= 1 else 1
    )
    note = {
        "kind": "states",
        "params_b": shard.total / 1e9,
        "tp": layout.tp,
        "pp": layout.pp,
        "ep": max(1, layout.ep),
        "weights": w_bytes,
        "gradients": g_bytes,
        "optimizer": opt_bytes,
        "zero": zero,
        "dp": dp,
    }
    return ModelStates(weights, gradients, optimizer, c.total, [note])


def adapter_states(
    m: ModelShape, c: ParamCounts, setup: TrainingSetup, layout: ModelSplit, shard: ParamShard
) -> ModelStates:
    """LoRA and QLoRA: a frozen base (bf16, or NF4 linear layers for QLoRA) and small fp32
    adapters with their gradients and optimizer states. ZeRO-3 (FSDP) shards the frozen base,
    and the adapters shard like any trained parameter (ZeRO paper Sec 5): their optimizer
    states from ZeRO-1, their gradients from ZeRO-2, their weights under ZeRO-3."""
    tp, pp = layout.tp, layout.pp
    dense_adapters, expert_adapters = lora_params(m, setup, layout.framework)
    trainable = dense_adapters + expert_adapters
    # the routed experts' adapters split as their experts do, over pp x ep (x the expert-
    # tensor ranks), and shard over the expert-data-parallel ranks
    experts_here = expert_adapters / (pp * max(1, layout.ep) * layout.expert_tp)
    dense_here = dense_adapters / (tp * pp)
    notes: list[dict] = []
    dp, zero = shard_ranks(layout), layout.zero_stage
    # ZeRO-3 shards the frozen base over the ranks that hold the same part: the data-parallel
    # ranks for the dense part, only the expert data-parallel ones for routed experts (dp / ep)
    dense_ranks, expert_ranks = (dp, layout.expert_dp) if zero == 3 else (1, 1)
    if setup.method == "qlora":
        linear = (shard.block - m.layers * c.norms_per_layer) / pp / tp
        if layout.framework == LITGPT:
            # Lightning's bitsandbytes plugin turns every nn.Linear into a Linear4bit, the output
            # head too; transformers keeps lm_head in 16 bits (`get_keys_to_not_convert`)
            linear += c.output
        rest = shard.dense - linear
        weights = (linear * NF4_BYTES + rest * FROZEN_BYTES) / dense_ranks + shard.experts * NF4_BYTES / expert_ranks
        linear += shard.experts
        notes.append(
            {"kind": "frozen_nf4", "linear_b": linear / 1e9, "nf4": NF4_BYTES, "rest_b": (shard.total - linear) / 1e9}
        )
    else:
        frozen_bytes = FROZEN_BYTES_FP32 if setup.precision == "fp32" else FROZEN_BYTES
        weights = (shard.dense / dense_ranks + shard.experts / expert_ranks) * frozen_bytes
        notes.append({"kind": "frozen", "params_b": shard.total / 1e9, "bytes": frozen_bytes})
    pure = setup.precision == "pure-bf16"
    if setup.optimizer == "adamw8bit":
        per_moment = MOMENT_BYTES_8BIT
    else:
        per_moment = MOMENT_BYTES_PURE_BF16 if pure else MOMENT_BYTES
    adapter_opt = _MOMENTS[setup.optimizer] * per_moment
    adapter_bytes = grad_bytes = ADAPTER_BYTES_PURE_BF16 if pure else ADAPTER_BYTES
    if layout.framework == MEGATRON and setup.precision in MAIN_GRAD_PRECISIONS:
        # Megatron-Core builds the adapters with the model's config, so in its bf16 params_dtype
        # (ms-swift's TEGroupedLinear/TELinear adapters), and treats them as any trained
        # parameter: an fp32 main_grad in its gradient buffer and the distributed optimizer's
        # fp32 main copy beside the moments (as `full_training_states`).
        adapter_bytes, grad_bytes = _STATE["bf16"][0], MAIN_GRAD_BYTES[layout.grad_reduce]
        adapter_opt = optimizer_bytes_per_param(setup)
    expert_dp = layout.expert_dp
    weights += dense_here * adapter_bytes / (dp if zero == 3 else 1)
    weights += experts_here * adapter_bytes / (expert_dp if zero == 3 else 1)
    gradients = dense_here * grad_bytes / (dp if zero >= 2 else 1)
    gradients += experts_here * grad_bytes / (expert_dp if zero >= 2 else 1)
    optimizer = dense_here * adapter_opt / (dp if zero >= 1 else 1)
    optimizer += experts_here * adapter_opt / (expert_dp if zero >= 1 else 1)
    notes.append({"kind": "adapters", "params_m": trainable / 1e6, "bytes": adapter_bytes, "optimizer": adapter_opt})
    return ModelStates(weights, gradients, optimizer, trainable, notes)


def model_states(
    m: ModelShape, c: ParamCounts, setup: TrainingSetup, layout: ModelSplit, shard: ParamShard
) -> ModelStates:
    if setup.is_peft:
        return adapter_states(m, c, setup, layout, shard)
    return full_training_states(c, setup, layout, shard)


def offload_to_host(
    states: ModelStates, m: ModelShape, setup: TrainingSetup, layout: ModelSplit, shard: ParamShard
) -> tuple[ModelStates, float]:
    """The states left on the GPU and the bytes moved to host memory.

    ZeRO-Offload keeps optimizer states and gradients in host memory and steps on the CPU
    (Ren et al. 2021); the GPU keeps a gradient bucket. ZeRO-Infinity (offload "all") also
    moves the weights and streams them in, a layer ahead (Rajbhandari et al. 2021).
    Megatron-Core's optimizer offload moves the distributed optimizer's shard (fp32 main weights
    and moments) alone: the gradient buffer stays on the GPU, copied out once a step
    (megatron/core/optimizer/cpu_offloading, HybridDeviceOptimizer).
    """
    if layout.offload == "none":
        return states, 0.0
    weights, gradients, optimizer, trainable, notes = states
    notes = list(notes)
    host = 0.0
    if optimizer > 0 and layout.framework == MEGATRON:
        host += optimizer
        optimizer = 0.0
        notes.append({"kind": "offload_optimizer_states"})
    elif optimizer > 0:  # offload "optimizer" or "all"
        host += optimizer + gradients
        optimizer = 0.0
        gradients = min(gradients, OFFLOAD_BUCKET_ELEMENTS * OFFLOAD_BUCKET_BYTES / max(1, layout.dp))
        notes.append({"kind": "offload_optimizer"})
    if layout.offload == "all":
        host += weights
        layer = (shard.block / m.layers) / layout.tp * stored_bytes_per_param(m, setup)
        weights = OFFLOAD_LAYERS_ON_GPU * layer
        notes.append({"kind": "offload_all"})
    return ModelStates(weights, gradients, optimizer, trainable, notes), host


def stored_bytes_per_param(m: ModelShape, setup: TrainingSetup) -> float:
    """Bytes a layer's weights take as offload keeps them on the host and streams them back in,
    per parameter: the training dtype's (fp8 with its extra copy, fp32), LoRA's frozen base in
    the compute dtype, and QLoRA's linear layers in NF4 as stored, beside its 16-bit norms:
    bitsandbytes dequantises a Linear4bit on the GPU, one matmul at a time (Dettmers et al.
    2023, Sec 3), so the host holds and the bus carries the 4-bit weights (`adapter_states`)."""
    if setup.method == "qlora":
        c = count_params(m)
        # a layer's non-expert part (`ParamShard.block`), of which the norms stay 16-bit
        layer = c.layer_dense_part + (c.shared_mlp_per_layer if c.moe_layers else c.dense_mlp_per_layer)
        norms = c.norms_per_layer / layer if layer else 0.0
        return NF4_BYTES * (1 - norms) + FROZEN_BYTES * norms
    if setup.is_peft:
        return FROZEN_BYTES_FP32 if setup.precision == "fp32" else FROZEN_BYTES
    return _STATE[setup.precision][0]


def _per_token_of_split(m: ModelShape, setup: TrainingSetup, layout: ModelSplit, gpu: GPU) -> float:
    """A layer's bytes per token, kept like the states (`_split_cache`)."""
    cache = _split_cache(m, setup)
    key = ("per_token", gpu.name, gpu.architecture, layout.framework, layout.recompute, layout.recompute_modules)
    found = cache.get(key)
    if found is None:
        flash = score_free_attention(gpu, setup.precision, layout.framework, m.position, m.unequal_head_dims)
        found = cache[key] = layer_activation_bytes_per_token(
            m,
            setup.seq_len,
            setup.precision,
            layout.recompute,
            flash,
            op_level=layout.framework == FSDP2,
            kernels=stack_kernels(layout.framework, setup),
            inputs=linear_inputs_kept(setup),
            modules=layout.recompute_modules,
        ) + lora_dropout_bytes(m, setup)
    return found


def expert_gather_bytes_per_token(m: ModelShape, setup: TrainingSetup, layout: ModelSplit) -> float:
    """Bytes a layer keeps per token, before the division by tp, for the routed experts' input
    gathered over the ranks an expert's matrices are split over.

    Sequence parallelism leaves each tensor-parallel rank 1/tp of the tokens, but an expert split
    over `expert_tp` ranks needs every token routed to it on each of them: Megatron-Core gathers
    the dispatched tokens over the expert-tensor group before the experts run (core_v0.13.0
    megatron/core/transformer/moe/token_dispatcher.py, MoEAlltoAllTokenDispatcher.
    dispatch_postprocess: gather_from_sequence_parallel_region(global_input_tokens,
    group=self.tp_group); the allgather dispatcher gathers over tp x ep, token_dispatch), and the
    grouped fc1 keeps that gathered, permuted input for its weight gradient (TEGroupedMLP.forward).
    So the top-k copies of hidden width counted in `layer_activation_bytes_per_token` are expert_tp
    times as many on each rank: (expert_tp - 1) more of them, here, in the same per-token unit.
    Experts spread over expert-parallel ranks (expert_tp 1) take their tokens by all-to-all alone.
    Counted where that source shows it, on Megatron-Core."""
    etp = layout.expert_tp
    if layout.framework != MEGATRON or not m.is_moe or etp <= 1 or not linear_inputs_kept(setup).gate_up:
        return 0.0
    lin = 1 if setup.precision == "fp8" else 2  # the fp8 cast, as in layer_activation_bytes_per_token
    return _act_bytes(setup.precision) / ACTIVATION_BYTES * lin * m.hidden * m.moe_top_k * (etp - 1)


def activation_memory(m: ModelShape, setup: TrainingSetup, layout: ModelSplit, gpu: GPU) -> tuple[float, dict]:
    """Activations of the most loaded (first) stage, with the logits, and the note on them.

    With 1F1B the first stage keeps min(pp, microbatches) micro-batches of its layers/pp
    layers in flight (Korthikanti et al. Sec 4.2.3), more when interleaved. With tensor parallelism we assume
    sequence parallelism too (Megatron's setting with TP), which divides every activation by
    tp (Korthikanti Table 2, last rows). Full recompute keeps only each layer's input and
    rebuilds one layer's activations at a time.
    """
    tp, pp = layout.tp, layout.pp
    act_bytes = _act_bytes(setup.precision)
    per_token = _per_token_of_split(m, setup, layout, gpu) + expert_gather_bytes_per_token(m, setup, layout)
    inflight = min(pp, layout.microbatches_per_step) if pp > 1 else 1
    if layout.virtual_stages > 1:
        # The interleaved schedule keeps more in flight: (1 + (p-1)/(p*v)) times 1F1B's
        # (Narayanan et al. 2021, Sec 2.2.2; Korthikanti et al. 2022, Sec 4.2.3).
        inflight *= 1 + (pp - 1) / (pp * layout.virtual_stages)
    layers_here = m.layers / pp
    tokens = setup.seq_len * layout.micro_batch / max(1, layout.cp)  # context parallel splits the sequence
    if layout.recompute == "full":
        # Megatron-Core's block recompute keeps only the inputs of the layers it recomputes and all
        # the activations of the others (ModelSplit.recomputed_share); full recompute, inputs alone.
        rerun = layout.recomputed_share(m.layers)
        layer_inputs = m.hidden * act_bytes * tokens * layers_here * rerun * inflight
        kept = per_token * tokens * layers_here * (1 - rerun) * inflight
        activations = (layer_inputs + kept + per_token * tokens) / tp
    else:
        activations = per_token * tokens * layers_here * inflight / tp
    # Logits: bf16 logits kept for the loss; Megatron's fused vocab-parallel cross entropy, or
    # a loss computed in chunks (`chunked loss`: torchtune's CEWithChunkedOutputLoss, Liger's
    # fused linear cross entropy), adds nothing of that size. PyTorch-native stacks otherwise
    # upcast the whole logits (HF Transformers' ForCausalLMLoss and torchtitan's loss_fn:
    # logits.float()) and the gradient is fp32 too: 4 + 4 more bytes a logit
    # (EAGER_LOSS_BYTES). torchtune measured chunking save 8.1 GiB on Llama 3.2 3B at 2 x 4,096
    # tokens (README "Optimization flags"), against 7.8 GiB here.
    logits = tokens * m.vocab * act_bytes / tp
    if layout.framework != MEGATRON and not setup.chunked_loss and setup.precision != "fp32":
        logits += tokens * m.vocab * EAGER_LOSS_BYTES / tp
    elif layout.framework == MEGATRON and setup.precision != "fp32":
        # Megatron-Core's vocab-parallel cross entropy, fused or not, takes an fp32 copy of its
        # logits shard and keeps it, turned into the softmax in place, for the backward
        # (megatron/core/tensor_parallel/cross_entropy.py calculate_logits_max: `.float()`;
        # fusions/fused_cross_entropy.py: save_for_backward(exp_logits)), beside the 16-bit
        # logits while the loss runs and the 16-bit gradient cast from it after.
        logits += tokens * m.vocab * MEGATRON_LOSS_BYTES / tp
    if pp > 1:
        # The logits are the last stage's, which keeps one micro-batch in flight under 1F1B (it
        # runs each backward right after its forward; Narayanan et al. 2021, Sec 2.2), the
        # interleaved schedule's share elsewhere: the most loaded stage is the first or the last.
        last_inflight = 1 if layout.virtual_stages == 1 else inflight
        last = activations * last_inflight / inflight
        if layout.recompute == "full":
            kept = (m.hidden * act_bytes * rerun + per_token * (1 - rerun)) * tokens * layers_here * last_inflight
            last = (kept + per_token * tokens) / tp
        activations, logits = max((activations, 0.0), (last, logits), key=sum)
    note = {
        "kind": "activations",
        "per_token_h": per_token / m.hidden,
        "tokens": tokens,
        "layers": layers_here,
        "inflight": inflight,
        "full": layout.recompute == "full",
        "recompute_layers": layout.recompute_layers,
        "tp": tp,
        "logits_gib": logits / GIB,
    }
    return activations + logits, note


def overheads(
    activations: float, m: ModelShape, setup: TrainingSetup, layout: ModelSplit, shard: ParamShard
) -> tuple[float, float, float]:
    """(ZeRO-3's gathered layers, the allocator's fragmentation, the CUDA context and NCCL
    buffers), in bytes: the gathered layers are allocated; fragmentation and the context are
    not, and count towards what must fit."""
    gathered = 0.0
    if layout.zero_stage == 3 and not setup.is_peft:
        gathered = ZERO3_GATHER_BUFFERS * ZERO3_GATHER_BYTES * (shard.block / m.layers) / layout.tp
        whole_block = setup.z3_leaf or not setup.hf_expert_loop
        if m.is_moe and layout.framework == DEEPSPEED and whole_block and layout.offload != "all":
            c = count_params(m)
            gathered += ZERO3_LEAF_BLOCK_BUFFERS * ZERO3_GATHER_BYTES * c.experts / c.moe_layers
    context = CUDA_CONTEXT_GIB * GIB + (NCCL_BUFFERS_GIB * GIB if layout.gpu_count > 1 else 0)
    return gathered, activations * FRAGMENTATION, context


def stale_input_bytes(m: ModelShape, setup: TrainingSetup, layout: ModelSplit) -> float:
    """Bytes of the previous micro-batch's 4-bit layer inputs still held at the end of a forward.

    bitsandbytes before 0.43.2 kept each Linear4bit's input as an attribute of its autograd
    node (MatMul4Bit: `ctx.tensors = (A, B)`, not save_for_backward; PR #1270), and such an
    attribute lives as long as the graph does, not until the node's backward. litgpt's loop
    keeps the last micro-batch's `logits` and `loss`, and with them its graph, until the next
    forward has returned (litgpt/finetune/lora.py fit(), v0.5.13), so that forward ends with
    the previous one's inputs still there: per token and layer the QKV and gate/up input (h
    each), the output projection's (heads x head_dim) and the down projection's (ffn), and
    the head's (h) once, 2 bytes each. A loop that lets the graph go before the next forward
    (Hugging Face Trainer's training_step) holds them only through its own backward."""
    if layout.framework != LITGPT or setup.method != "qlora" or not setup.bnb_keeps_inputs:
        return 0.0
    q = m.heads * m.head_dim
    ffn = m.moe_ffn_hidden * (m.moe_top_k + m.moe_shared_experts) if m.is_moe else m.ffn_hidden
    tokens = setup.seq_len * layout.micro_batch
    return ACTIVATION_BYTES * tokens * ((2 * m.hidden + q + ffn) * m.layers + m.hidden)


def dequantised_weight_bytes(m: ModelShape, c: ParamCounts, setup: TrainingSetup, layout: ModelSplit) -> float:
    """Bytes of the largest 4-bit weight dequantised for a matmul (`DEQUANTISED_BYTES`), held
    for that matmul only; the head's backward (or the last layer's, where the head stays in 16
    bits) runs as the backward starts, beside every activation. The projections' widths: QKV
    (litgpt fuses it, transformers runs q apart), the MLP's (one expert's in an MoE) and
    litgpt's quantised head; each split over the tensor-parallel ranks."""
    if setup.method != "qlora":
        return 0.0
    h, q, kv = m.hidden, m.heads * m.head_dim, m.kv_heads * m.head_dim
    ffn = max(m.ffn_hidden, m.moe_ffn_hidden * max(1, m.moe_shared_experts) if m.is_moe else 0)
    litgpt = layout.framework == LITGPT
    largest = max(h * ffn, h * (q + 2 * kv if litgpt else q), c.output if litgpt else 0.0)
    per_value = DEQUANTISED_BYTES_FROM_FP16 if litgpt or setup.bnb_keeps_inputs else DEQUANTISED_BYTES
    return largest * per_value / layout.tp


def swapped_embedding_bytes(m: ModelShape, setup: TrainingSetup, layout: ModelSplit) -> float:
    """Bytes of one token-embedding table in bf16 where litgpt's QLoRA holds two more of them.

    With bitsandbytes quantisation litgpt replaces the token embedding by bitsandbytes'
    StableEmbedding after it has marked only the adapters trainable (litgpt/finetune/lora.py
    main(), from v0.5.0, 2024-10-04, to v0.5.13): the old table stays referenced by a local
    variable for the whole run, and the new one trains, so every backward writes its gradient,
    which the optimizer (built before the swap) never clears. litgpt runs quantised models on
    one GPU only."""
    if layout.framework != LITGPT or setup.method != "qlora" or setup.old_litgpt:
        return 0.0
    return m.vocab * m.hidden * FROZEN_BYTES


def gradients_freed_between_steps(setup: TrainingSetup, layout: ModelSplit) -> bool:
    """PyTorch-native loops free the gradients after each optimizer step (zero_grad(set_to_none=
    True), PyTorch's default since 2.0), so with one micro-batch a step they are not alive while
    the forward's activations are: the backward frees a layer's activations as it writes that
    layer's gradients. Megatron-Core keeps a contiguous gradient buffer, DeepSpeed its gradient
    partitions; accumulating micro-batches keeps the gradients too."""
    return (
        layout.framework in (HF, FSDP2, LITGPT)
        and not setup.is_peft
        and not setup.opt_in_backward
        and layout.offload == "none"
        and layout.microbatches_per_step == 1
    )


# The layout search asks about one model and setup thousands of times in a row, trying each
# split at several recompute levels and micro-batches: a split's states do not depend on
# either, nor a layer's bytes per token on the split, so both are kept for the model and setup
# last asked about (both frozen, compared by identity).
_last_asked: tuple[ModelShape | None, TrainingSetup | None, dict] = (None, None, {})


def _split_cache(m: ModelShape, setup: TrainingSetup) -> dict:
    global _last_asked
    seen_m, seen_setup, cache = _last_asked
    if seen_m is not m or seen_setup is not setup:
        cache = {}
        _last_asked = (m, setup, cache)
    return cache


def _states_of_split(m: ModelShape, setup: TrainingSetup, layout: ModelSplit) -> tuple[ParamShard, ModelStates, float]:
    cache = _split_cache(m, setup)
    key = (
        layout.tp, layout.pp, layout.dp, layout.ep, layout.cp, layout.hsdp, layout.zero_stage, layout.offload,
        layout.grad_reduce, layout.framework, layout.gpus_per_node, layout.gpu_count, layout.expert_tp,
    )  # fmt: skip
    found = cache.get(key)
    if found is None:
        c = count_params(m)
        shard = parameters_on_this_gpu(c, layout)
        states, host = offload_to_host(model_states(m, c, setup, layout, shard), m, setup, layout, shard)
        found = cache[key] = (shard, states, host)
    return found


def buffer_remap_peak(setup: TrainingSetup, layout: ModelSplit, shard: ParamShard, states: ModelStates) -> float:
    """Bytes allocated at once while Megatron-Core's distributed optimizer moves the parameters
    into its contiguous buffers, before the first step: for each buffer (the dense parameters'
    first, then the experts'), a param_data of the parameter dtype and a grad_data of the
    gradient dtype are allocated whole, and only then is each parameter copied in and its own
    tensor freed (core_v0.13.0 megatron/core/distributed/param_and_grad_buffer.py
    _ParamAndGradBuffer.__init__: torch.zeros param_data and grad_data, then `param.data =
    new_param_data ... del old_param_data`). The peak is the weights and the gradient buffer
    plus the originals of the buffer being filled, less the gradient buffer of the experts
    while the dense buffer is filled. The optimizer's states come after. It exceeds
    the training peak only where the optimizer's shard is small or offloaded and the activations
    are few (full recompute); LoRA moves its small adapters alone. Megatron-FSDP (ZeRO-3 on
    Megatron-Core) has no such moment: its buffers are sharded, filled layer by layer from a model
    built on the meta device (`--init-model-with-meta-device`, which NVIDIA's Megatron-FSDP user
    guide recommends: Megatron-LM docs/discussions/megatron-fsdp-user-guide)."""
    if layout.framework != MEGATRON or setup.is_peft or (layout.zero_stage < 1 and layout.offload == "none"):
        return 0.0
    if layout.zero_stage == 3:
        return 0.0
    # the parameters in their own dtype: bf16 under FP8 too, whose fp8 weight copies Transformer
    # Engine makes at the first forward (the third byte of `_STATE`'s fp8 weights), after this
    w_bytes = _STATE["bf16" if setup.precision == "fp8" else setup.precision][0]
    g_bytes = states.gradients / shard.total if shard.total else 0.0
    dense_first = w_bytes * shard.dense - g_bytes * shard.experts
    return w_bytes * shard.total + states.gradients + max(dense_first, w_bytes * shard.experts)


# The reference model preference tuning keeps beside a fully fine-tuned policy: a frozen copy in
# the training's 16-bit dtype (4 bytes in fp32), sharded as the policy's weights are (TRL's
# DPOTrainer prepares it with the policy's DeepSpeed ZeRO-3 config, and replicates it under
# ZeRO-0/1/2 as the policy's weights are; trl/trainer/dpo_trainer.py `_prepare_deepspeed`).
REFERENCE_BYTES = {"fp32": 4}
REFERENCE_BYTES_DEFAULT = 2


def reference_weight_bytes(setup: TrainingSetup, states: ModelStates) -> float:
    """Bytes of the frozen reference model on this GPU: none under LoRA or QLoRA (the base with
    the adapters switched off is the reference: TRL's DPOTrainer with a PEFT model, `ref_model`
    None), else the policy's weights on this GPU in the reference's dtype."""
    if not setup.reference_forward or setup.is_peft:
        return 0.0
    return states.weights * REFERENCE_BYTES.get(setup.precision, REFERENCE_BYTES_DEFAULT) / _STATE[setup.precision][0]


def estimate_memory(m: ModelShape, setup: TrainingSetup, layout: ModelSplit, gpu: GPU) -> MemoryBreakdown:
    """Memory of the most loaded GPU, in GiB: the parts above, added up."""
    shard, states, host = _states_of_split(m, setup, layout)
    activations, activation_note = activation_memory(m, setup, layout, gpu)
    notes = [*states.notes, activation_note]
    dequantised = 0.0
    if setup.method == "qlora":  # what bitsandbytes and litgpt hold beside the states (the search asks often)
        stale = stale_input_bytes(m, setup, layout)
        if stale:
            activations += stale
            notes.append({"kind": "stale_inputs", "gib": stale / GIB})
        table = swapped_embedding_bytes(m, setup, layout)
        if table:
            states = states._replace(weights=states.weights + table, gradients=states.gradients + table)
            notes.append({"kind": "swapped_embedding", "gib": table / GIB})
        dequantised = dequantised_weight_bytes(m, count_params(m), setup, layout)
        if dequantised:
            notes.append({"kind": "dequantised", "gib": dequantised / GIB})
    reference = reference_weight_bytes(setup, states)
    if reference:
        states = states._replace(weights=states.weights + reference)
        notes.append({"kind": "reference", "gib": reference / GIB})
    gathered, fragmentation, context = overheads(activations, m, setup, layout, shard)
    gathered += dequantised
    if gradients_freed_between_steps(setup, layout):
        # The peak holds the larger of the two: all the activations at the start of the
        # backward, or all the gradients at its end (linear in between).
        counted = max(0.0, states.gradients - activations)
        notes.append({"kind": "grads_freed", "gradients_gib": states.gradients / GIB, "counted_gib": counted / GIB})
        states = states._replace(gradients=counted)
    allocated = states.weights + states.gradients + states.optimizer + activations + gathered
    # The blocks a reserved reading keeps: at least the fragmentation, never more than the card
    # holds (the allocator frees its cache before an allocation fails).
    room = gpu.usable_memory_gib * GIB - context - allocated
    cache = min(max(fragmentation, ALLOCATOR_CACHE * (activations + gathered)), max(fragmentation, room))
    remap = buffer_remap_peak(setup, layout, shard, states)
    if remap > allocated:
        # Setup's peak is the larger: charged as its own part of `other`; the training's blocks
        # fit in what it leaves cached, so a reserved reading is the larger of the two.
        notes.append({"kind": "buffer_remap", "gib": remap / GIB, "training_gib": allocated / GIB})
        cache = max(fragmentation, allocated + cache - remap)
        gathered += remap - allocated
        allocated = remap
    return MemoryBreakdown(
        weights=states.weights / GIB,
        gradients=states.gradients / GIB,
        optimizer=states.optimizer / GIB,
        activations=activations / GIB,
        other=(gathered + fragmentation + context) / GIB,
        total=(allocated + fragmentation + context) / GIB,
        context=context / GIB,
        fragmentation=fragmentation / GIB,
        cache=cache / GIB,
        host_ram_gib=host / GIB,
        trainable_params=states.trainable_params,
        notes=notes,
    )
