"""Which framework runs a layout, and only the combinations that framework supports.

Megatron-LM / Megatron-Core: tensor, pipeline (1F1B and interleaved 1F1B with virtual
    stages) and expert parallel; its distributed optimizer shards the optimizer states over
    the data-parallel ranks, i.e. ZeRO-1 (Megatron-Core docs, "Distributed Optimizer").
    LoRA runs there too, data parallel or with tensor or pipeline parallelism, over ZeRO-1
    (NeMo / Megatron-Bridge PEFT).
DeepSpeed: ZeRO-1/2/3 and ZeRO-Offload/-Infinity without tensor parallelism; its pipeline
    engine accepts only ZeRO-1 (DeepSpeed docs, "Pipeline Parallelism": ZeRO-2 and -3 are
    incompatible with pipeline parallelism), so offload and ZeRO-2 here mean pp = 1.
    ZeRO-Infinity (offloading the weights too) needs ZeRO-3.
FSDP2 / torchtitan: ZeRO-3 (fully_shard), or ZeRO-2 (reshard_after_forward=False), composed
    with tensor, pipeline (1F1B and Interleaved1F1B) and expert parallel (torchtitan docs).
    LoRA composes with them there too: NeMo Automodel, a PyTorch-native stack, publishes LoRA on
    TP2 x FSDP4 and on PP4 x FSDP2 (docs/performance-summary.md, 2025-10-02).
HF PEFT / TRL: LoRA and QLoRA over DDP, DeepSpeed or FSDP (FSDP-QLoRA, Answer.AI 2024). The
    4-bit base of QLoRA has no tensor- or pipeline-parallel implementation (bitsandbytes).
HF Transformers / TRL (torchtune, LLaMA-Factory alike): full fine-tuning in 16 bits on one GPU or
    plain DDP, the layout those recipes run. Megatron-Core shards its optimizer states whenever
    there is more than one rank (its distributed optimizer, ZeRO-1), and runs FP8 through
    Transformer Engine, so plain data parallelism without ZeRO, in 16 bits, is planned on the
    PyTorch-native stack, eager unless compiled.
litgpt (Lightning Fabric): its own PyTorch-native models, fine-tuned (full, LoRA, QLoRA) or
    pre-trained on one GPU, DDP or FSDP full shard; no tensor or pipeline parallel, no offload in
    its scripts (litgpt finetune/*.py, pretrain.py). Planned only where the team names it.
"""

from __future__ import annotations

from typing import get_args

from advisor.engine.setup import RecomputeModule, TrainingSetup
from advisor.engine.specs import GPU, ModelShape

MEGATRON, DEEPSPEED, FSDP2, PEFT = "Megatron-Core", "DeepSpeed", "FSDP2/torchtitan", "HF PEFT/TRL"
HF = "HF Transformers/TRL"
LITGPT = "litgpt/Lightning Fabric"
# The stack a framework belongs to, as the request names it (`request.stack`).
STACK_OF = {MEGATRON: "megatron", DEEPSPEED: "deepspeed", FSDP2: "torchtitan", PEFT: "hf", HF: "hf", LITGPT: "litgpt"}
# Stacks that run no expert parallelism (`on_stack`): each rank holds every expert, sharded by
# ZeRO-3 or FSDP where asked.
NO_EXPERT_PARALLEL = ("deepspeed", "hf", "litgpt")
# Interleaved schedule: up to 4 model chunks per stage when the layers divide evenly
# (Narayanan et al. 2021 use 2 to 4; assumed bound).
VIRTUAL_STAGE_CHOICES = (4, 2)
MIN_LAYERS_PER_CHUNK = 2  # assumed
# The embedding and the loss each take a layer's place in the split, so the first and last
# chunks may hold one transformer layer fewer: Megatron-Bridge splits Llama 3.1 405B's 126 layers
# so (account_for_embedding/loss_in_pipeline_split, recipes/llama/h100/llama3.py at 067f987df),
# and runs them as 64 chunks on PP 8 x VP 8 (perf_recipes/llama/h100/llama31.py); Meta takes a
# layer off its first and last stages too (Llama 3 paper, Sec 3.3.2).
END_CHUNK_LAYERS_SPARED = 2
# A chunk size the user fixes (`vpp N`) may go down to one layer: Megatron-Core runs MoE models
# so (e.g. DeepSeek-V3's recipes with one layer per virtual stage; --num-layers-per-virtual-
# pipeline-stage 1).
PINNED_MIN_LAYERS_PER_CHUNK = 1
# LoRA on a pipeline is planned on Megatron-Core's schedules (NeMo: Llama 2 70B LoRA on TP2 x PP4
# over 8 H100 at 705 model TFLOP/s a GPU in FP8, NeMo docs performance_summary.md, 24.07). A
# PyTorch-native stack runs the same layout far slower: NeMo Automodel measured Llama 3 70B
# LoRA on TP2 x PP4 over 8 H100 in bf16 at 190 TFLOP/s a GPU, 19% of the peak
# (NVIDIA-NeMo/Automodel docs/performance-summary.md, 2025-10-02). The answer quotes it.
NATIVE_LORA_PIPELINE_MFU = 0.19
# MoE throughput moves with the token dispatcher far more than dense throughput moves with anything:
# Megatron-Bridge measured the same Qwen3 30B-A3B layout (16 H100, FP8, PP2 x VP12 x EP8, GBS 1024)
# at 5,113 tokens/s a GPU in NeMo 26.02 and 9,058 in 26.02.01, where its dense Llama 3 70B FP8 row
# moved from 1,621 to 1,639 (NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md, commit
# 067f987df). Between the two, the x86 Qwen3 recipes left Megatron-Core's all-to-all dispatcher for
# the flex one on DeepEP and HybridEP (Megatron-Bridge #2351 "qwen x86 flex backend" and #2477, in
# r0.3.1 = 26.02.01). The dropless all-to-all path copies the tokens-per-expert counts to the host
# every MoE layer and runs its permute, chunk sort and unpermute as separate passes
# (megatron/core/transformer/moe/token_dispatcher.py, MoEAlltoAllTokenDispatcher); the 25.09 rows of
# the same archive, all-to-all with the experts padded to a fixed capacity (token drop), ran the
# 16-H100 layout at 10,494 and the 25.11 dropless all-to-all ones at 5,275. The engine's MoE launch
# term was chosen on the flex-dispatcher rows, so a plan assumes that dispatcher; MoE answers quote the
# spread and the switch.
MOE_RELEASE_SPREAD_TOKENS_S = (5113, 9058)


def has_selective_recompute(framework: str | None, setup: TrainingSetup) -> bool:
    """Selective recompute (only attention's softmax and dropout recomputed) is Megatron's
    --recompute-granularity selective (Korthikanti et al. 2022) and torchtitan's op-level
    activation checkpointing. HF Transformers' gradient_checkpointing and DeepSpeed's activation
    checkpointing save a layer's input alone and recompute the whole layer (HF docs, "Gradient
    checkpointing"; DeepSpeed docs, "Activation Checkpointing"), and so do the PyTorch-native
    stacks that run LoRA on FSDP2 (NeMo Automodel's recipes: activation_checkpointing: true;
    torchtune): there recompute is none or full."""
    return framework == MEGATRON or (framework == FSDP2 and not setup.is_peft)


# Megatron-Core's `--recompute-granularity selective` recomputes the modules `--recompute-modules`
# names, ["core_attn"] when unset (megatron/core/transformer/transformer_config.py
# `recompute_modules`, at d98e8a64dd; ms-swift's Megatron-SWIFT passes the same default). The
# modules planned here: "core_attn" and "mlp" checkpoint a submodule and keep its input; "moe_act",
# "layernorm" and "mla_up_proj" discard a module's output and recompute it before the backward
# needs it (CheckpointWithoutOutput). Written in this order on the flag.
RECOMPUTE_MODULES: tuple[str, ...] = get_args(RecomputeModule)
# The other modules Megatron-Core's flag takes (the same file's `allowed_modules`), not planned
# here: a team that names one is told so rather than planned as if it recomputed nothing.
UNPLANNED_RECOMPUTE_MODULES = ("moe", "shared_experts", "gdn_norm_out", "gdp_in_proj", "gdp_qkv", "mhc")


def selective_modules(m: ModelShape, setup: TrainingSetup, framework: str | None, flash: bool) -> tuple[str, ...]:
    """The modules a Megatron-Core plan's selective recompute names (() on other stacks): the
    team's (`recompute-modules`), else those that save memory on this model. "core_attn" only
    where attention keeps its scores: a fused kernel keeps none, and Megatron warns that it then
    has no need of it (transformer_config.py __post_init__). Transformer Engine fuses a dense
    layer's norms into the next linear (input_layernorm and pre_mlp_layernorm are IdentityOp in
    gpt_layer_specs.py's TE spec), so "layernorm" recomputes only a MoE layer's pre-MLP norm and
    MLA's input norm, which stand alone. A MoE model: the routed experts' activation ("moe_act",
    grouped GEMM), those norms, and MLA's up-projections ("mla_up_proj"), as Megatron-Core's MoE
    guide runs it (moe/README.md "Fine-grained Recomputation": `--recompute-modules mla_up_proj
    layernorm moe_act`). A dense model: the MLP ("mlp"), the one module of a TE dense layer whose
    recompute frees memory beside the attention core."""
    if framework != MEGATRON:
        return ()
    if setup.pinned.recompute_modules:
        return setup.pinned.recompute_modules
    chosen = set() if flash else {"core_attn"}
    if m.is_moe:
        chosen |= {"moe_act", "layernorm"}
    else:
        chosen.add("mlp")
    if m.uses_mla:
        chosen |= {"mla_up_proj", "layernorm"}
    return tuple(x for x in RECOMPUTE_MODULES if x in chosen)


# Megatron-Core's flex dispatcher runs on DeepEP or HybridEP, whose kernels need Hopper (SM90) or
# newer NVIDIA GPUs, NVLink inside a server and RDMA (InfiniBand, RoCE) between servers
# (deepseek-ai/DeepEP README "Requirements" at dd758caf; SM100 in its performance table; every
# fabric planned here is RDMA: throughput.NETWORK_GBPS). DeepEP's legacy V1 kernels also built for
# Ampere (DeepEP #204, 2025-06), but NVIDIA's recipes run flex on Hopper and Blackwell only
# (Megatron-Bridge scripts/performance/configs, v0.2.0: DeepEP on H100, HybridEP on GB200/GB300),
# so Ampere, PCIe cards and other vendors are planned on the all-to-all dispatcher (MindSpeed on
# Ascend runs its own alltoall). MoEFlexTokenDispatcher asserts tp x ep > 1
# (megatron/core/transformer/moe/token_dispatcher.py at d98e8a64dd).
FLEX_ARCHITECTURES = ("Hopper", "Blackwell")


def flex_runs(gpu: GPU, tp: int, ep: int) -> bool:
    """Whether the flex dispatcher (DeepEP/HybridEP) runs on this GPU and split."""
    return (
        gpu.vendor == "NVIDIA"
        and gpu.architecture in FLEX_ARCHITECTURES
        and gpu.intra_node == "NVLink"
        and tp * max(1, ep) > 1
    )


def token_dispatcher(m: ModelShape, setup: TrainingSetup, framework: str, gpu: GPU, tp: int, ep: int) -> str | None:
    """The MoE token dispatcher a Megatron-Core plan runs ("alltoall" or "flex"): the one the team
    said, else flex where it runs (NVIDIA's current recipes), else all-to-all; None off Megatron-Core
    or on a dense model."""
    if not m.is_moe or framework != MEGATRON:
        return None
    if setup.dispatcher is not None:
        return setup.dispatcher
    return "flex" if flex_runs(gpu, tp, ep) else "alltoall"


def framework_for(setup: TrainingSetup, tp: int, pp: int, ep: int, zero: int, offload: str) -> str | None:
    """The framework that runs this combination, or None when none does; on the stack the user
    named (`setup.stack`), only what that stack runs."""
    if setup.stack is not None:
        return on_stack(setup, tp, pp, ep, zero, offload)
    model_parallel = tp > 1 or pp > 1 or ep > 1
    if offload != "none":
        if not model_parallel:
            return None if offload == "all" and zero != 3 else (PEFT if setup.is_peft else DEEPSPEED)
        # Model parallel with states offloaded: Megatron-Core's optimizer offload alone (its
        # distributed optimizer's shard on the CPU, `--optimizer-cpu-offload`: on_stack), for full
        # training; ZeRO-Offload runs no tensor, pipeline or expert parallelism. An MoE too large
        # for its GPUs had been planned on DeepSpeed ZeRO-3 at 2% MFU (Kimi K2 on 80 H800) where
        # Megatron's TP8 PP8 with the optimizer on the CPU fits 64 and runs twice as fast.
        if offload == "all" or setup.is_peft or zero > 1:
            return None
        return MEGATRON
    if setup.method == "qlora":
        return None if model_parallel else PEFT
    if setup.is_peft:
        if not model_parallel:
            # Plain data parallel: PEFT over DDP or ZeRO-2/3, or Megatron-Core's distributed
            # optimizer (its ZeRO-1; LoRA through Megatron-Bridge's PEFT), so that the search
            # weighs the two stacks on the same layout (estimate.py PEFT_STACK_SLACK) rather than
            # PEFT's data parallel against a Megatron pipeline only. `deepspeed zero1` is PEFT's.
            return MEGATRON if zero == 1 else PEFT
        return MEGATRON if zero <= 1 else FSDP2
    if zero >= 2:
        return FSDP2 if (model_parallel or zero == 3) else DEEPSPEED
    if not model_parallel and zero == 0 and setup.method == "full-finetune" and setup.precision != "fp8":
        return HF
    return MEGATRON


def on_stack(setup: TrainingSetup, tp: int, pp: int, ep: int, zero: int, offload: str) -> str | None:
    """What the named stack runs, from its documentation:
    - Megatron-Core (NeMo, Megatron-Bridge): tensor, pipeline, expert and context parallel over
      its distributed optimizer (ZeRO-1) or Megatron-FSDP (ZeRO-2/3, Megatron-Bridge's
      `use_megatron_fsdp`), LoRA through Megatron-Bridge's PEFT; the distributed optimizer's
      states offloaded to the CPU (`--optimizer-cpu-offload`, its
      HybridDeviceOptimizer: megatron/core/optimizer/cpu_offloading, as ms-swift runs it), never
      the weights; no 4-bit QLoRA base.
    - DeepSpeed: ZeRO-0..3 and ZeRO-Offload/-Infinity on HF models, its pipeline engine with
      ZeRO-1 only; LoRA/QLoRA through HF PEFT on top; no tensor or expert parallelism here.
    - HF Transformers/TRL (torchtune, LLaMA-Factory, axolotl): data parallel over DDP, FSDP or
      DeepSpeed ZeRO, with offload; no tensor, pipeline or expert parallelism.
    - torchtitan: FSDP2 (or DDP) with tensor, pipeline, context and expert parallel; no LoRA, no
      offload.
    - litgpt: DDP or FSDP full shard (ZeRO-0 or -3), no model parallelism, no offload."""
    model_parallel = tp > 1 or pp > 1 or ep > 1
    if setup.stack == "litgpt":
        return None if model_parallel or offload != "none" or zero in (1, 2) else LITGPT
    if setup.stack == "megatron":
        if setup.method == "qlora" or (offload != "none" and (offload == "all" or setup.is_peft or zero > 1)):
            return None
        return MEGATRON
    if setup.stack == "deepspeed":
        if tp > 1 or ep > 1 or (pp > 1 and (zero > 1 or offload != "none")) or (offload == "all" and zero != 3):
            return None
        return PEFT if setup.is_peft else DEEPSPEED
    if setup.stack == "hf":
        if model_parallel or (offload == "all" and zero != 3):
            return None
        if setup.is_peft:
            return PEFT
        # the HF Trainer shards optimizer states and gradients, and offloads, through DeepSpeed
        return DEEPSPEED if zero in (1, 2) or offload != "none" else HF
    # torchtitan
    if setup.is_peft or offload != "none":
        return None
    return FSDP2


def pipeline_schedule(
    framework: str, layers: int, pp: int, microbatches: int, pinned: int | None = None
) -> tuple[str, int]:
    """(schedule, virtual stages). Megatron-Core and torchtitan interleave when the
    micro-batches divide by the stages (Megatron's requirement) and every chunk gets at least
    MIN_LAYERS_PER_CHUNK layers, the first and last chunks one fewer where the embedding and
    the loss take their place (END_CHUNK_LAYERS_SPARED); DeepSpeed's pipeline engine runs plain
    1F1B.
    `pinned`: the virtual stages the user fixed (`vpp N`; checked runnable beforehand by
    advisor/planning/engine_inputs.py `layout_problem`), kept as given."""
    if pp == 1:
        return "none", 1
    if pinned:
        return ("interleaved-1f1b", pinned) if pinned > 1 else ("1f1b", 1)
    if framework in (MEGATRON, FSDP2) and microbatches % pp == 0:
        for v in VIRTUAL_STAGE_CHOICES:
            if layers + END_CHUNK_LAYERS_SPARED >= pp * v * MIN_LAYERS_PER_CHUNK:
                return "interleaved-1f1b", v
    return "1f1b", 1
