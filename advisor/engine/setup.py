"""The training setup the formulas read: method, precision, optimizer, sequence, batch and the
layout knobs the user fixed. Nothing else of the request (budget, city, language, text)
reaches the engine; advisor/planning/engine_inputs.py builds a setup from a request.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Method = Literal["pretrain", "continued-pretrain", "full-finetune", "lora", "qlora"]
Precision = Literal["bf16", "pure-bf16", "fp16", "fp8", "fp32"]
Optimizer = Literal["adamw", "adamw8bit", "lion", "sgd"]
Offload = Literal["none", "optimizer", "all"]
Recompute = Literal["none", "selective", "full"]
# Megatron-Core's selective recompute modules planned (frameworks.RECOMPUTE_MODULES)
RecomputeModule = Literal["core_attn", "mlp", "moe_act", "layernorm", "mla_up_proj"]
# The dtype gradients are accumulated and reduced in: fp32 (Megatron-LM with --bf16, NeMo's and
# torchtitan's defaults) or bf16 (NVIDIA's Megatron-Bridge performance recipes).
GradReduce = Literal["fp32", "bf16"]
# The dtype AdamW's two moments are kept in: fp32, or bf16 under Megatron-Core's precision-aware
# optimizer (--use-precision-aware-optimizer --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16).
Moments = Literal["fp32", "bf16"]
LoraTargets = Literal["qv", "attn", "all"]
# The training stack a team names (advisor/engine/frameworks.py `on_stack`).
Stack = Literal["megatron", "deepspeed", "hf", "torchtitan", "litgpt"]

# LoRA rank and target modules when the user names none: every linear layer, as QLoRA found
# adapting all of them needed to match full fine-tuning (Dettmers et al. 2023), at a common
# rank of 16 (assumed).
DEFAULT_LORA_RANK = 16
DEFAULT_LORA_TARGETS: LoraTargets = "all"


class PinnedKnobs(BaseModel):
    """Layout knobs the user set; the layout search keeps these and chooses the rest (None)."""

    model_config = ConfigDict(frozen=True)
    tp: int | None = None
    pp: int | None = None
    ep: int | None = None
    etp: int | None = None  # expert tensor parallel (Megatron-Core's --expert-tensor-parallel-size)
    vpp: int | None = None  # virtual pipeline stages (interleaved 1F1B model chunks per stage)
    dp: int | None = None  # data-parallel ranks (`dp 64`, `fsdp 64`)
    cp: int | None = None  # context parallel: each sequence split over cp GPUs
    hsdp: bool = False  # ZeRO-3 sharded inside a server, replicated across servers
    zero_stage: int | None = None
    offload: Offload | None = None
    recompute: Recompute | None = None
    # Megatron-Core's --recompute-modules under selective recompute (frameworks.selective_modules)
    recompute_modules: tuple[RecomputeModule, ...] | None = None
    # Megatron-Core's block recompute: layers of each model chunk recomputed whole (layout.py)
    recompute_layers: int | None = None
    grad_reduce: GradReduce | None = None
    micro_batch: int | None = None
    # micro-batches each data-parallel rank accumulates a step: the global batch is dp x mbs x ga
    grad_accum: int | None = None


class TrainingSetup(BaseModel):
    model_config = ConfigDict(frozen=True)
    method: Method = "full-finetune"
    precision: Precision = "bf16"
    # fp32 matmuls on TF32 tensor cores (torch.backends.cuda.matmul.allow_tf32 = True, HF
    # Trainer's tf32=True). PyTorch has left it off by default since 1.12 (its CUDA semantics
    # notes, "TensorFloat-32 (TF32) on Ampere (and later) devices"): fp32 then runs at the FP32 rate.
    tf32: bool = False
    optimizer: Optimizer = "adamw"
    # AdamW's moments in bf16 beside fp32 master weights (Megatron-Core's precision-aware
    # optimizer); None: the precision's own (fp32 moments, bf16 in pure bf16)
    moments: Moments | None = None
    lora_rank: int = DEFAULT_LORA_RANK
    lora_targets: LoraTargets = DEFAULT_LORA_TARGETS
    lora_dropout: float = 0.0  # dropout on the adapters' inputs (PEFT's default 0)
    # Optimizer step fused into the backward pass (torchtune optimizer_in_bwd).
    opt_in_backward: bool = False
    # The fused attention kernels: the best the GPU has under current software ("best":
    # FlashAttention-3 or cuDNN on Hopper and newer, FlashAttention-2 before), or
    # FlashAttention-2 where the user runs it ("fa2": HF's flash_attention_2, PyTorch's SDPA
    # before 2.11 on Hopper).
    attention: Literal["best", "fa2"] = "best"
    # The model is compiled (torch.compile) or its elementwise operators otherwise fused.
    compiled: bool = False
    # The stack replays CUDA graphs (Megatron-Core's --cuda-graph-impl, NeMo's enable_cuda_graph):
    # the host-launch part of the per-step jitter is gone (throughput.JITTER_LEFT_BY_GRAPHS).
    cuda_graphs: bool = False
    # Megatron-Core's MoE token dispatcher the team runs (`dispatcher alltoall`, `flex` on
    # DeepEP/HybridEP); None: the one its recipes run on the GPU (frameworks.token_dispatcher).
    dispatcher: Literal["alltoall", "flex"] | None = None
    # The loss is computed over chunks of the logits (torchtune's CEWithChunkedOutputLoss, Liger's
    # fused linear cross entropy), never upcast all at once.
    chunked_loss: bool = False
    # QLoRA on bitsandbytes before 0.43.2, whose 4-bit matmul kept its input for a weight
    # gradient it never computes (bitsandbytes PR #1270, merged 2024-07-16).
    bnb_keeps_inputs: bool = False
    # litgpt before 0.5.0 (2024-10-04), before its QLoRA swapped in bitsandbytes' StableEmbedding.
    old_litgpt: bool = False
    # The stack the team runs (advisor/engine/frameworks.py `framework_for`); None: any.
    stack: Stack | None = None
    # The Hugging Face model runs its MoE blocks as transformers 4 wrote them, one expert after
    # another in a Python loop (advisor/engine/throughput.py EAGER_EXPERT_OPS); False: as
    # transformers 5 does, the experts of a layer in grouped GEMMs.
    hf_expert_loop: bool = False
    # DeepSpeed ZeRO-3 fetches an MoE block's experts as one leaf module (set_z3_leaf_modules, as
    # LLaMA-Factory, ms-swift 3.9+ and DeepSpeed's own defaults do); False: each expert projection
    # apart (advisor/engine/throughput.py ZERO3_MODULE_FETCH_S).
    z3_leaf: bool = True
    # Preference tuning's frozen reference model (DPO, IPO, KTO: Rafailov et al. 2023, eq. 7; TRL's
    # DPOTrainer): one more forward pass over every trained token, no gradient, and for full
    # fine-tuning its own copy of the weights (under LoRA it is the base with the adapters off).
    reference_forward: bool = False
    # Each sample is a pair, the chosen and the rejected response, trained in the same micro-batch
    # (TRL's concatenated_forward): micro-batches and batches here count sequences, two a pair.
    paired: bool = False
    # Tokens a sample holds where samples are shorter than a sequence: each attends within itself
    # (packed with document masking, or one per sequence); None: across the whole sequence.
    sample_tokens: int | None = None
    # The team's network between servers, Gb/s one direction: each server's link where
    # `network_per_server` (shared by its GPUs), else each GPU's; None: the fastest the GPU's host
    # feeds (throughput.default_network).
    network_gbps: float | None = None
    network_per_server: bool = False
    seq_len: int = 4096
    global_batch: int | None = None  # sequences per step; None: the engine's default
    tokens: float | None = None  # tokens to train on; None: no time estimate
    # The layout search's own growth of the default global batch (advisor/engine/estimate.py
    # `best_layout`): 1 is the default rule; never set from the request.
    batch_scale: float = 1.0
    pinned: PinnedKnobs = PinnedKnobs()

    @property
    def attention_context(self) -> int:
        """The tokens a query's keys come from: the sequence, or the sample within it."""
        return min(self.seq_len, self.sample_tokens or self.seq_len)

    @property
    def matmul_dtype(self) -> str:
        """The dtype matmuls run at: the precision's, or "tf32" for fp32 with TF32 allowed."""
        return "tf32" if self.precision == "fp32" and self.tf32 else self.precision

    @property
    def reference_passes(self) -> int:
        """Forward passes of the frozen reference model per micro-batch: 1 under DPO or KTO, else 0."""
        return int(self.reference_forward)

    @property
    def is_peft(self) -> bool:
        return self.method in ("lora", "qlora")
