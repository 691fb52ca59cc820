"""Memory and time for one GPU type and count: the best layout that fits, and its numbers.

The search policy, in order:
  0. the precision the GPU can run: fp8 only where the GPU has fp8 tensor cores, bf16 only
     where it has bf16 (V100 runs fp16); each downgrade is named in `Estimate.checks`;
  1. offload: none first; optimizer offload, then everything, only when nothing fits without;
     on one server, optimizer offload also where the layout without it needs full recompute
     and offload runs OFFLOAD_OVER_RECOMPUTE faster (`_offload_may_beat`);
  2. the parallel splits (`parallel_splits`): tensor parallel inside the NVLink domain
     dividing the heads and KV heads (and, with sequence and context parallel, the sequence:
     `layout.sequence_multiple`), pipeline stages, experts inside the server and (when
     more divide) across servers, ZeRO-1 or ZeRO-3 over data parallel; only combinations a
     framework runs (advisor/engine/frameworks.py), with at least 4 micro-batches per stage;
  3. per split, recompute none, selective, full (`recompute_levels`), each with the largest
     micro-batch that fits (`largest_fitting_micro_batch`); more recompute is tried only
     while the micro-batch that fits is 1 (it trades speed for memory we may not need);
     gradients in fp32; on Megatron-Core in bf16 or fp8, where every layout with fp32
     gradients needs full recompute or none fits, gradients reduced in bf16 are tried too
     (`grad_reduce_levels`): NVIDIA's performance recipes reduce in bf16 rather than
     recompute whole layers;
  4. of the candidates that fit with headroom, the fastest wins (`best_layout`); when none
     fits at all, the one that needs the least memory. Splits and candidates that cannot be
     faster than the fastest found (their `throughput.speed_ceiling`) are skipped (`_search`).
Knobs the user set are kept as given (`TrainingSetup.pinned`).

Global batch (`batch_sequences`), when the user gives none: 4M tokens for pre-training,
2,048 tokens a GPU on big clusters, 0.5M for fine-tuning; never more than a thousandth of
the tokens trained on (at least 1,000 optimizer steps; assumed). A pipeline needs m >= 4p
micro-batches a step (Narayanan et al. 2021 keep m >> p): the batch may grow for that up to
twice the compute-optimal batch of DeepSeek LLM's scaling law, B = 0.292 * C^0.3271 tokens
for C training FLOPs (Bi et al. 2024, Sec 3.1), or twice the default for fine-tuning (assumed);
splits that need more are not run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import NamedTuple

from pydantic import BaseModel

from advisor.engine.frameworks import (
    FSDP2,
    MEGATRON,
    NO_EXPERT_PARALLEL,
    PEFT,
    framework_for,
    has_selective_recompute,
    pipeline_schedule,
    selective_modules,
)
from advisor.engine.layout import MICROBATCHES_PER_STAGE, ModelSplit, sequence_multiple
from advisor.engine.memory import (
    GIB,
    MAIN_GRAD_PRECISIONS,
    MemoryBreakdown,
    estimate_memory,
    score_free_attention,
    states_floor_bytes,
)
from advisor.engine.setup import TrainingSetup
from advisor.engine.shapes import active_count, count_params
from advisor.engine.specs import GPU, ModelShape
from advisor.engine.throughput import Throughput, estimate_throughput, speed_ceiling

# Keep 5% of the card free: allocator spikes and fragmentation beyond our estimate (assumed).
HEADROOM = 0.95
# Offloaded states a server holds in its RAM: an 8-GPU server ships with 2 TB (NVIDIA DGX H100
# and H200: 2 TB system memory); 1.5 TiB of it for the states leaves the rest to the OS, page
# cache and pinned buffers (assumed). Two-socket boards take up to 8 TB (32 DIMMs of 256 GB,
# ServeTheHome), but servers that size are rarely rented: a plan that needs more says so.
SERVER_RAM_TB = 2
MAX_OFFLOAD_GIB_PER_SERVER = 1536
# Global batch when the user gives none, in tokens: 4M for pre-training (Llama 2 paper,
# Sec 2.2), growing to 2,048 tokens a GPU on big clusters (Llama 3 405B: 16M tokens on 16K
# GPUs, Llama 3 paper Sec 3.4.1), and 0.5M for fine-tuning (128 sequences of 4096; assumed).
PRETRAIN_BATCH_TOKENS = {"pretrain": 4 * 2**20, "continued-pretrain": 4 * 2**20}
FINETUNE_BATCH_TOKENS = 2**19
PRETRAIN_TOKENS_PER_GPU = 2048
MIN_OPTIMIZER_STEPS = 1000  # assumed
# Compute-optimal batch in tokens, B = 0.2920 * C^0.3271 (DeepSeek LLM, Bi et al. 2024, Sec 3.1);
# a pre-training batch grows up to twice it to give a pipeline its micro-batches (their Fig. 3
# shows a wide near-optimal band; assumed 2x); fine-tuning batches grow at most 2x (assumed).
OPTIMAL_BATCH_COEFF, OPTIMAL_BATCH_EXPONENT = 0.2920, 0.3271
OPTIMAL_BATCH_BAND = 2
FINETUNE_BATCH_GROWTH = 2
# Micro-batches tried: powers of two up to 64 sequences (assumed; memory stops most runs sooner).
MAX_MICRO_BATCH = 64
# Pipeline stages of at least two layers, at most 32 stages (Megatron's largest published
# runs use 8 to 16; assumed bounds).
MIN_LAYERS_PER_STAGE = 2
MAX_PIPELINE_STAGES = 32
# ZeRO stages the search tries: 1 (optimizer states sharded, no extra traffic; ZeRO paper
# Sec 7) and 3 (all states sharded, parameters gathered every micro-batch). ZeRO-2 only when
# the user asks (assumed).
SEARCHED_ZERO_STAGES = (1, 3)
RECOMPUTE_LEVELS = ("none", "selective", "full")
# Gradient reduction dtypes: fp32 first (numerically safest: Megatron-LM's default with --bf16,
# NeMo's bf16_mixed and torchtitan's); bf16 halves the main_grad buffer and the gradient traffic
# and is what NVIDIA's Megatron-Bridge performance recipes run, bf16 and fp8 alike, so that
# Llama 3.1 405B on TP8 x PP8 x CP2 needs no recompute (perf_recipes/_common.py `_perf_precision`
# sets grad_reduce_in_fp32 False; read at commit 067f987df, 2026-08). Tried only where fp32
# gradients need a recompute that reruns the forward matmuls or do not fit, and only on
# Megatron-Core, whose buffer it shrinks: a plan does not trade fp32 accumulation for a percent
# of speed.
GRAD_REDUCE_LEVELS = ("fp32", "bf16")
OFFLOAD_LEVELS = ("none", "optimizer", "all")
# The most GPUs any plan uses, the same cap for the planner and for counts the user gives
# none of: 16,384 (Llama 3 405B's cluster).
MAX_GPUS = 16384
# Server counts tried: every whole number up to 4, then four steps an octave (n, 1.25n,
# 1.5n, 1.75n for n a power of two) — any whole number of servers, on a grid that keeps
# the search fast (assumed).
SERVER_STEPS_PER_OCTAVE = (1.0, 1.25, 1.5, 1.75)
# Sanity checks on a plan: MFU under 20% or exposed communication over 30% of a step (issue
# #14's thresholds; assumed).
LOW_MFU, HIGH_EXPOSED_COMM = 0.20, 0.30
# The batch grows when communication takes more than a tenth of the step, and the smallest
# batch within 3% of the fastest is kept (assumed).
BATCH_GROWTH_EXPOSED, BATCH_GROWTH_TOLERANCE = 0.10, 0.03
# Layouts within 2% of the fastest are as fast as this model can tell (its calibration medians
# are 6-15%): among them the one with the fewest pipeline stages is planned, as teams run
# (Narayanan et al. 2021 Sec 3.3: pipeline stages add bubble and schedule to keep, so tensor
# parallel first inside a server). 70B on 64 H100 had been TP2 x PP32 x DP1, 2.5 layers a
# stage, for 0.7% over TP4 x PP4 x DP4. The 2% is assumed.
LAYOUT_TOLERANCE = 0.02
# LoRA and QLoRA inside one server stay on the HF PEFT/TRL stack (data parallel over DDP, FSDP
# or ZeRO) unless a model-parallel layout on another stack (Megatron-Core's pipeline, FSDP2 with
# tensor parallel) runs more than this share faster: that layout costs the team a second
# toolchain and checkpoint conversion both ways, for a job most teams run on PEFT with one
# launcher on one machine (assumed: a sixth of the speed; an 8B LoRA had been planned on a
# Megatron pipeline over 2 GPUs to save 4% against one GPU on PEFT). Across servers the faster
# layout is kept: teams running LoRA on several servers run those stacks already.
PEFT_STACK_SLACK = 0.15


class Estimate(BaseModel):
    layout: ModelSplit
    memory: MemoryBreakdown
    throughput: Throughput
    fits: bool
    usable_gib: float
    tokens: float | None
    gpu_hours: float | None
    days: float | None
    flops: float | None
    precision: str  # what the GPU runs: the request's, or its downgrade
    checks: list[str] = []  # precision downgrades and sanity warnings, as codes
    # Where a PEFT job was kept on the PEFT stack (PEFT_STACK_SLACK): the faster layout's
    # framework and how much faster it runs (tokens/s ratio)
    faster_stack: tuple[str, float] | None = None
    # Where a PEFT job inside one server was planned on another stack, beyond the slack: how much
    # faster than the fastest layout on PEFT it runs (tokens/s ratio)
    over_peft: float | None = None

    @property
    def speed(self) -> float:
        return self.throughput.tokens_per_s_per_gpu * self.layout.gpu_count

    @property
    def host_ram_short(self) -> bool:
        """Does not fit only because the servers' RAM cannot hold what is offloaded (`memory_fits`):
        the cards hold their share with headroom."""
        return not self.fits and self.memory.total <= self.usable_gib * HEADROOM


class ParallelSplit(NamedTuple):
    tp: int
    pp: int
    dp: int
    ep: int
    zero_stage: int
    etp: int = 1  # expert tensor parallel (ModelSplit.expert_tp)
    framework: str | None = None  # a second stack for the same split (native_peft_split), else framework_for's


class Candidate(NamedTuple):
    layout: ModelSplit
    memory: MemoryBreakdown
    fits: bool


def memory_fits(memory: MemoryBreakdown, gpu: GPU, gpus_per_node: int) -> bool:
    """The card holds what it must with headroom, and the server's RAM what is offloaded."""
    return (
        memory.total <= gpu.usable_memory_gib * HEADROOM
        and memory.host_ram_gib * gpus_per_node <= MAX_OFFLOAD_GIB_PER_SERVER
    )


def _powers_of_two(limit: int) -> list[int]:
    out, v = [], 1
    while v <= limit:
        out.append(v)
        v *= 2
    return out


_MICRO_BATCH_SIZES = _powers_of_two(MAX_MICRO_BATCH)


def hardware_precision(setup: TrainingSetup, gpu: GPU) -> tuple[TrainingSetup, list[str]]:
    """The setup this GPU can run and the downgrades made: fp8 needs fp8 tensor cores
    (Hopper, Ada, Blackwell, MI300), else bf16; bf16 needs bf16 tensor cores (not Volta),
    else fp16 with loss scaling."""
    checks = []
    precision = setup.precision
    if precision == "fp8" and gpu.fp8_dense_tflops <= 0:
        precision = "bf16"
        checks.append("fp8_unsupported")
    if precision in ("bf16", "pure-bf16") and not gpu.supports_bf16:
        precision = "fp16"
        checks.append("bf16_unsupported")
    if precision == setup.precision:
        return setup, checks
    return setup.model_copy(update={"precision": precision}), checks


def target_batch_tokens(setup: TrainingSetup, gpus: int) -> float:
    """The default global batch in tokens (the module docstring gives the rule)."""
    tokens = PRETRAIN_BATCH_TOKENS.get(setup.method, FINETUNE_BATCH_TOKENS)
    if setup.method in PRETRAIN_BATCH_TOKENS:
        tokens = max(tokens, PRETRAIN_TOKENS_PER_GPU * gpus)
    tokens *= setup.batch_scale
    if setup.tokens:
        tokens = min(tokens, setup.tokens / MIN_OPTIMIZER_STEPS)
    return max(tokens, setup.seq_len)


def compute_optimal_batch_tokens(m: ModelShape, setup: TrainingSetup) -> float | None:
    """B = 0.292 C^0.3271 tokens for C = 6 N D training FLOPs (DeepSeek LLM, Bi et al. 2024,
    Sec 3.1), or None without a token count."""
    if not setup.tokens:
        return None
    return OPTIMAL_BATCH_COEFF * (6 * active_count(m) * setup.tokens) ** OPTIMAL_BATCH_EXPONENT


def batch_growth_cap(m: ModelShape, setup: TrainingSetup, gpus: int) -> float:
    """The largest default batch, in tokens, the search may grow to when communication would
    otherwise be exposed: the compute-optimal batch of the scaling law above (twice it for
    pre-training, as `largest_batch_tokens`), never more than a thousandth of the tokens (at
    least 1,000 optimizer steps)."""
    base = target_batch_tokens(setup.model_copy(update={"batch_scale": 1.0}), gpus)
    optimal = compute_optimal_batch_tokens(m, setup)
    if optimal is None:
        return base
    band = OPTIMAL_BATCH_BAND if setup.method in PRETRAIN_BATCH_TOKENS else 1
    return max(base, min(band * optimal, setup.tokens / MIN_OPTIMIZER_STEPS))


def largest_batch_tokens(m: ModelShape, setup: TrainingSetup, gpus: int) -> float:
    """How far the default batch may grow to give a pipeline its micro-batches."""
    target = target_batch_tokens(setup, gpus)
    if setup.method not in PRETRAIN_BATCH_TOKENS:
        return FINETUNE_BATCH_GROWTH * target
    if not setup.tokens:
        return target
    flops = 6 * active_count(m) * setup.tokens
    return max(target, OPTIMAL_BATCH_BAND * OPTIMAL_BATCH_COEFF * flops**OPTIMAL_BATCH_EXPONENT)


def default_batch_sequences(setup: TrainingSetup, dp: int, gpus: int) -> int:
    """Sequences per step when the user gives no global batch."""
    if setup.global_batch:
        return setup.global_batch
    return max(dp, round(target_batch_tokens(setup, gpus) / setup.seq_len))


def global_batch(setup: TrainingSetup, layout_dp: int, mbs: int, seqs: int, pp: int = 1) -> int:
    """The user's global batch, or the default (`seqs`) rounded up to whole micro-batches on
    every rank, and to 4 micro-batches per pipeline stage."""
    if setup.global_batch:
        return setup.global_batch
    if setup.pinned.grad_accum:
        return layout_dp * mbs * setup.pinned.grad_accum
    step = layout_dp * mbs
    least = MICROBATCHES_PER_STAGE * pp if pp > 1 else 1
    return max(step * least, math.ceil(seqs / step) * step)


def _divisors(n: int, limit: int) -> list[int]:
    return [d for d in range(1, min(n, limit) + 1) if n % d == 0]


def expert_degrees(m: ModelShape, dp: int, ranks_per_node: int, tp: int = 1) -> list[int]:
    """Expert-parallel degrees: the largest that divides the experts and stays inside the
    server's NVLink domain, the largest across servers (for the search to weigh the
    all-to-all over the network against memory) and, under tensor parallelism, the largest
    folded over the tensor and data ranks (Megatron-Core's parallel folding: `tp 8` on 64 GPUs
    holds a 128-expert model only at ep 32, not at the 8 data-parallel ranks' ep 8)."""
    if not m.is_moe:
        return [1]
    whole = math.gcd(dp, m.moe_experts)
    # inside a server only where the groups line up with its GPUs: Megatron-Core numbers the expert
    # ranks consecutively, so ep 5 on 8-GPU servers puts half its groups across two of them
    inside = max(d for d in _divisors(whole, ranks_per_node) if ranks_per_node % d == 0)
    folded = math.gcd(tp * dp, m.moe_experts) if tp > 1 else whole
    # Degrees between (DeepSeek-V3's 64 over 8 servers, report Sec 3.2) only when the user
    # fixes them (`ep 64`): trying them too costs the open plan a sixth of its time for plans
    # within a few percent of the two tried (bench/speed.py; assumed).
    return sorted({inside, whole, folded})


def expert_tensor_degrees(setup: TrainingSetup, tp: int, cp: int, dp: int, ep: int, framework: str | None) -> list[int]:
    """Ranks each expert's matrices split over (ModelSplit.expert_tp). Without expert parallelism
    the experts split like the dense layers, over tp. With it, the user's `etp`, else whole
    experts (1) and, where Megatron-Core runs the split, its default of tp too (core_v0.10.0 on,
    arguments.py; earlier releases split experts over tp always): a tensor-parallel expert
    holds a tp-th of its weights where whole ones leave the states too big, at the cost of the
    expert-tensor all-gathers (throughput.py). Megatron-Core needs etp x ep to divide the stage's
    tp x cp x dp ranks (parallel_state.py: the decoder world size is not divisible by
    expert_tensor_model_pipeline_parallel size otherwise); only it runs etp > 1 beside ep here."""
    pinned = setup.pinned.etp
    if ep <= 1:
        return [tp] if pinned in (None, tp) else []
    tried = [pinned] if pinned else ([1, tp] if tp > 1 else [1])
    return [e for e in tried if (tp * cp * dp) % (ep * e) == 0 and (e == 1 or framework == MEGATRON)]


def pinned_tp_limit(gpu: GPU) -> int:
    """The most ranks a tp the user fixed may span: the NVLink domain, or every GPU of the server
    on a PCIe card. Megatron-LM and vLLM run tensor parallelism over PCIe, and NVIDIA's MLPerf
    Training v4.0 Llama 2 70B LoRA ran TP4 over PCIe Gen4 on servers of four L40S
    (mlcommons/training_results_v4.0 NVIDIA config_L40S_16x4x2xtp4pp1cp2.sh); its all-reduces are
    costed on the PCIe path (throughput.intra_node_gb_s) and the plan says so (`tp_over_pcie`)."""
    return gpu.gpus_per_server if gpu.intra_node == "PCIe" else max(1, gpu.nvlink_domain)


def parallel_splits(
    m: ModelShape, setup: TrainingSetup, gpu: GPU, count: int, offload: str = "none", capped: bool = True
) -> Iterator[ParallelSplit]:
    """Tensor parallel within one NVLink domain and dividing the heads and KV heads (Megatron
    needs both); pipeline stages that divide the rest, with enough micro-batches; experts
    over data-parallel ranks that divide their number; ZeRO-1 or -3 (or the user's stage);
    only combinations a framework runs. One GPU per replica has nothing to shard: ZeRO 0.
    `capped`: only splits whose smallest batch stays within the batch rule (module docstring)."""
    per_node = min(count, gpu.gpus_per_server)
    pin = setup.pinned
    zeros = (pin.zero_stage,) if pin.zero_stage is not None else SEARCHED_ZERO_STAGES
    if pin.hsdp:
        zeros = (3,)  # hybrid sharding is ZeRO-3 inside the shard group
    cp = pin.cp or 1
    kv = m.heads if m.uses_mla else m.kv_heads
    # The search keeps tensor parallel inside the NVLink domain: over PCIe (25 GB/s a GPU one way
    # on Gen4 against 450 on NVLink 4) a layer's four all-reduces of its activations cost more
    # than the memory they free buys, where a pipeline sends one activation a stage boundary and
    # ZeRO-3 gathers the weights once a pass. A tp the team fixed is planned as it runs, up to
    # the GPUs of a server on a PCIe card (`pinned_tp_limit`).
    tps = (
        ([pin.tp] if pin.tp <= min(per_node, pinned_tp_limit(gpu)) else [])
        if pin.tp
        else ([1] if pin.hsdp else _powers_of_two(min(gpu.nvlink_domain, per_node)))
    )
    most_seqs = None if setup.global_batch or not capped else largest_batch_tokens(m, setup, count) / setup.seq_len
    for tp in tps:
        if count % (tp * cp) or m.heads % tp or kv % tp:
            continue
        if not pin.tp and setup.seq_len % sequence_multiple(cp, tp):
            continue  # the sequence does not split into whole chunks over the cp x tp ranks
        # A pinned pipeline needs stages of at least MIN_LAYERS_PER_STAGE layers (uneven
        # first and last stages as Megatron-Core's --decoder-first/last-pipeline-num-layers).
        pps = (
            ([pin.pp] if m.layers // pin.pp >= MIN_LAYERS_PER_STAGE else [])
            if pin.pp
            else [1]
            if pin.hsdp  # HSDP is FSDP's 2-D mesh of data-parallel ranks: no pipeline unless asked
            else _powers_of_two(min(m.layers // MIN_LAYERS_PER_STAGE or 1, count // (tp * cp), MAX_PIPELINE_STAGES))
        )
        for pp in pps:
            if (count // (tp * cp)) % pp:
                continue
            dp = count // (tp * pp * cp)
            if pin.dp and dp != pin.dp:
                continue
            least = MICROBATCHES_PER_STAGE * pp if pp > 1 else 1
            if pin.grad_accum and pp > 1 and not pin.pp and pin.grad_accum < least:
                continue  # the accumulation the user fixed leaves a pipeline too few micro-batches
            if not pin.pp and most_seqs is not None and dp * max(least, pin.grad_accum or 0) > most_seqs:
                continue
            # QLoRA's 4-bit experts, and weights offloaded (ZeRO-Infinity runs no expert parallel:
            # framework_for), run data parallel only: ZeRO-3 shards the experts. The optimizer
            # offloaded keeps expert parallel on Megatron-Core (framework_for), not on ZeRO-Offload.
            if pin.ep:
                eps = [pin.ep]
            elif setup.method == "qlora" or offload == "all" or setup.stack in NO_EXPERT_PARALLEL:
                eps = [1]
            else:
                eps = expert_degrees(m, dp, max(1, per_node // tp), tp)
                if offload != "none":  # ZeRO-Offload's data parallel beside Megatron's experts spread
                    eps = sorted({1, *eps})
            if pin.ep and (dp % pin.ep if pin.ep <= dp else (tp * dp) % pin.ep):
                continue  # neither over the data-parallel ranks nor folded over tp x dp
            for ep in eps:
                # one rank per replica has nothing to shard (context-parallel ranks hold the same
                # weights, so the distributed optimizer shards over them too: memory.shard_ranks),
                # but offloading the weights is ZeRO-3 even on one GPU (ZeRO-Infinity)
                alone = (3,) if offload == "all" else (0,)
                stages = (pin.zero_stage,) if pin.zero_stage is not None else (alone if dp * cp == 1 else zeros)
                for zero in stages:
                    framework = framework_for(setup, tp, pp, ep, zero, offload)
                    if framework is not None:
                        for etp in expert_tensor_degrees(setup, tp, cp, dp, ep, framework):
                            yield ParallelSplit(tp, pp, dp, ep, zero, etp)
                            if native_peft_split(setup, framework, zero, offload):
                                yield ParallelSplit(tp, pp, dp, ep, zero, etp, FSDP2)


def recompute_levels(setup: TrainingSetup) -> tuple[str, ...]:
    return (setup.pinned.recompute,) if setup.pinned.recompute else RECOMPUTE_LEVELS


def grad_reduce_levels(setup: TrainingSetup, framework: str | None) -> tuple[str, ...]:
    """The gradient dtypes to try, the safest first: the user's, fp16's own, or fp32 then
    (Megatron-Core in bf16 or fp8) bf16."""
    if setup.precision == "fp16":
        return ("fp16",)
    if setup.pinned.grad_reduce:
        return (setup.pinned.grad_reduce,)
    if framework == MEGATRON and setup.precision in MAIN_GRAD_PRECISIONS:
        return GRAD_REDUCE_LEVELS
    return GRAD_REDUCE_LEVELS[:1]


def offload_levels(setup: TrainingSetup) -> tuple[str, ...]:
    """The offload the user fixed, else every level; with ZeRO-0 fixed (`ddp`, `zero0`) none:
    DeepSpeed's offload runs on the ZeRO optimizer (stages 1-3), and DDP keeps all on the GPU."""
    if setup.pinned.offload:
        return (setup.pinned.offload,)
    return ("none",) if setup.pinned.zero_stage == 0 else OFFLOAD_LEVELS


def micro_batches(setup: TrainingSetup, dp: int, seqs: int, pp: int = 1) -> Iterator[int]:
    """The user's micro-batch, or powers of two that do not inflate the default global batch
    of `seqs` sequences (with a pipeline, that leave it 4 micro-batches per stage; with the
    accumulation the user fixed, that many). A global batch and an accumulation the user both
    fixed leave one micro-batch on each split, or none where they do not divide."""
    ga = setup.pinned.grad_accum
    if ga and setup.global_batch:
        mbs, rest = divmod(setup.global_batch, dp * ga)
        if mbs and not rest and setup.pinned.micro_batch in (None, mbs):
            yield mbs
        return
    # a global batch the user fixed is whole micro-batches on every data-parallel rank (Megatron
    # asserts global_batch_size % (micro_batch_size x dp) == 0)
    whole = (lambda mbs: setup.global_batch % (dp * mbs) == 0) if setup.global_batch else (lambda mbs: True)
    if setup.pinned.micro_batch:
        if whole(setup.pinned.micro_batch):
            yield setup.pinned.micro_batch
        return
    least = ga or (MICROBATCHES_PER_STAGE * pp if pp > 1 else 1)
    # a pair's two sequences go through together (TrainingSetup.paired): two at the least
    smallest = 2 if setup.paired else 1
    for mbs in _MICRO_BATCH_SIZES:
        if mbs < smallest:
            continue
        if mbs > smallest and dp * mbs * least > seqs:
            return
        if whole(mbs):
            yield mbs


def native_peft_split(setup: TrainingSetup, framework: str | None, zero: int, offload: str) -> bool:
    """Whether a data-parallel LoRA split sharded by ZeRO-3 is tried on FSDP2 too, beside PEFT: NeMo
    Automodel shards over FSDP2 alone (its GPT-OSS 20B row: FSDP 8) and runs LoRA on it
    (docs/performance-summary.md, 2025-10-02: LoRA on TP2 x FSDP4), so a 2-GPU LoRA had been
    planned TP2 x DP1 on FSDP2, ZeRO-3 over one rank, where FSDP2 over both GPUs needs no tensor
    parallel traffic. The 4-bit QLoRA base stays PEFT's (bitsandbytes)."""
    return framework == PEFT and setup.stack is None and setup.method == "lora" and zero == 3 and offload == "none"


def _split_framework(setup: TrainingSetup, split: ParallelSplit, offload: str) -> str | None:
    if split.framework is not None:
        return split.framework
    framework = framework_for(setup, split.tp, split.pp, split.ep, split.zero_stage, offload)
    if setup.pinned.hsdp and split.zero_stage == 3:
        framework = FSDP2  # HSDP is FSDP2's 2-D mesh (its CPU offload policy included)
    return framework


def _split_layouts(
    m: ModelShape,
    setup: TrainingSetup,
    gpu: GPU,
    count: int,
    split: ParallelSplit,
    offload: str,
    recompute: str,
    grad_reduce: str,
) -> Iterator[ModelSplit]:
    """The split's layouts at each micro-batch `micro_batches` gives, smallest first."""
    per_node = min(count, gpu.gpus_per_server)
    framework = _split_framework(setup, split, offload)
    modules = ()
    if recompute == "selective":
        modules = selective_modules(
            m, setup, framework, score_free_attention(gpu, setup.precision, framework, m.position, m.unequal_head_dims)
        )
    pin = setup.pinned
    # the fields every micro-batch shares (the search builds tens of thousands of layouts)
    fixed = {
        "gpu": gpu.name,
        "gpu_count": count,
        "gpus_per_node": per_node,
        "nodes": math.ceil(count / per_node),
        "tp": split.tp,
        "pp": split.pp,
        "dp": split.dp,
        "ep": split.ep,
        "expert_tp": split.etp,
        "cp": pin.cp or 1,
        "hsdp": pin.hsdp and split.zero_stage == 3,
        "zero_stage": split.zero_stage,
        "offload": offload,
        "recompute": recompute,
        "recompute_modules": modules,
        "grad_reduce": grad_reduce,
        "framework": framework,
    }
    if pin.recompute_layers and recompute == "full":  # Megatron-Core's block recompute, as pinned
        fixed["recompute_layers"] = pin.recompute_layers
    interleave = pin.vpp and split.pp > 1 and not setup.global_batch and not pin.grad_accum
    seqs = default_batch_sequences(setup, split.dp, count)
    for mbs in micro_batches(setup, split.dp, seqs, split.pp):
        batch = global_batch(setup, split.dp, mbs, seqs, split.pp)
        if interleave:
            # The interleaved schedule needs the micro-batches to divide by the stages (Megatron).
            batch = math.ceil(batch / (split.dp * mbs * split.pp)) * split.dp * mbs * split.pp
        schedule, virtual = pipeline_schedule(framework, m.layers, split.pp, batch // (split.dp * mbs), pin.vpp)
        yield ModelSplit(
            **fixed, micro_batch=mbs, global_batch=batch, virtual_stages=virtual, pipeline_schedule=schedule
        )


def largest_fitting_micro_batch(
    m: ModelShape,
    setup: TrainingSetup,
    gpu: GPU,
    count: int,
    split: ParallelSplit,
    offload: str,
    recompute: str,
    only_one: bool = False,
    grad_reduce: str = "fp32",
) -> Candidate | None:
    """Micro-batches grow until one no longer fits (memory grows with the micro-batch): the
    last that fits, or the first tried when none does (`only_one`: the first alone); None when
    no micro-batch can make the user's global batch on this split."""
    per_node = min(count, gpu.gpus_per_server)
    fitting = None
    for layout in _split_layouts(m, setup, gpu, count, split, offload, recompute, grad_reduce):
        memory = estimate_memory(m, setup, layout, gpu)
        if not memory_fits(memory, gpu, per_node):
            return fitting or Candidate(layout, memory, fits=False)
        fitting = Candidate(layout, memory, fits=True)
        if only_one:
            break
    return fitting


def _whole_experts_fit(
    m: ModelShape,
    setup: TrainingSetup,
    gpu: GPU,
    count: int,
    split: ParallelSplit,
    offload: str,
    levels: tuple[str, ...],
) -> bool:
    """Whether `candidate_layouts` would find `split` fitting at the least recompute with the
    first gradient dtype (its one-sequence check passes, and a micro-batch of one fits there):
    its expert-tensor rule for an etp-1 split it pruned."""
    grads = grad_reduce_levels(setup, framework_for(setup, split.tp, split.pp, split.ep, split.zero_stage, offload))
    if len(levels) > 1:
        least = largest_fitting_micro_batch(
            m, setup, gpu, count, split, offload, levels[-1], only_one=True, grad_reduce=grads[-1]
        )
        if least is None or not least.fits:
            return False
    first = largest_fitting_micro_batch(
        m, setup, gpu, count, split, offload, levels[0], only_one=True, grad_reduce=grads[0]
    )
    return first is not None and first.fits


def candidate_layouts(
    m: ModelShape,
    setup: TrainingSetup,
    gpu: GPU,
    count: int,
    offload: str,
    capped: bool = True,
    prune: Callable[[ParallelSplit], bool] | None = None,
) -> Iterator[Candidate]:
    """For one offload level, in search order: per parallel split and recompute level, the
    largest micro-batch that fits. More recompute only trades speed for memory we do not
    need, so it stops once a micro-batch above 1 fits. Gradients in the first dtype
    `grad_reduce_levels` gives; where that does not fit at a level and the second (bf16 on
    Megatron-Core) would, the second's candidate too (`_search` weighs it only where every
    layout needs full recompute with the first). `prune`: splits the caller has no use for
    (`_search`), skipped before their memory is estimated."""
    levels = recompute_levels(setup)
    limit = gpu.usable_memory_gib * HEADROOM
    # Splits whose whole experts (etp 1) fit without trading speed for memory: there a tensor-
    # parallel expert only adds its all-gathers and thinner GEMMs (Megatron-Core's MoE README:
    # "Use ETP=1 for MoE (better GEMM efficiency, less communication)"), so etp = tp is not tried.
    whole_experts_fit: set[ParallelSplit] = set()
    pruned: set[ParallelSplit] = set()
    for split in parallel_splits(m, setup, gpu, count, offload, capped):
        if prune is not None and prune(split):
            pruned.add(split)
            continue
        if split.etp > 1 and split.ep > 1 and not setup.pinned.etp:
            whole = split._replace(etp=1)
            if whole in whole_experts_fit or (
                whole in pruned and _whole_experts_fit(m, setup, gpu, count, whole, offload, levels)
            ):
                continue
        framework = framework_for(setup, split.tp, split.pp, split.ep, split.zero_stage, offload)
        grads = grad_reduce_levels(setup, framework)
        if len(levels) > 1:
            # The least memory this split can need (full recompute, the smallest gradients, one
            # sequence): when even that does not fit, no level will.
            least = largest_fitting_micro_batch(
                m, setup, gpu, count, split, offload, levels[-1], only_one=True, grad_reduce=grads[-1]
            )
            if least is None:
                continue
            if not least.fits:
                yield least
                continue
        for recompute in levels:
            if recompute == "selective" and len(levels) > 1 and not has_selective_recompute(framework, setup):
                continue  # HF, DeepSpeed and the PyTorch-native LoRA stacks checkpoint whole layers
            candidate = largest_fitting_micro_batch(
                m, setup, gpu, count, split, offload, recompute, grad_reduce=grads[0]
            )
            if candidate is None:
                break
            if candidate.fits and recompute == levels[0]:
                whole_experts_fit.add(split)
            yield candidate
            # bf16 gradients take half the fp32 main_grad buffer off the same layout: worked out
            # only where that makes one sequence fit
            if (
                len(grads) > 1
                and not candidate.fits
                and candidate.memory.total - candidate.memory.gradients / 2 <= limit
            ):
                yield largest_fitting_micro_batch(m, setup, gpu, count, split, offload, recompute, grad_reduce=grads[1])
            if candidate.fits and candidate.layout.micro_batch > 1:
                break


def _finish(
    m: ModelShape,
    setup: TrainingSetup,
    gpu: GPU,
    layout: ModelSplit,
    mem: MemoryBreakdown,
    network: str | None,
    checks: list[str],
) -> Estimate:
    thr = estimate_throughput(m, setup, layout, gpu, network)
    usable = gpu.usable_memory_gib
    fits = memory_fits(mem, gpu, layout.gpus_per_node)
    hours = days = flops = None
    checks = list(checks)
    if layout.tp > max(1, gpu.nvlink_domain):
        checks.append("tp_over_pcie")  # a fixed tp beyond the NVLink domain (`pinned_tp_limit`)
    if m.family != "generic" and setup.seq_len > m.max_seq:
        # longer than the context the model was released with (data/models.toml max_seq, from its
        # config or paper): the memory and time hold, but the positions beyond it were never
        # trained (RoPE scaling or learned positions to extend first); a bare size knows none
        checks.append("seq_beyond_context")
    if setup.tokens:
        flops = setup.tokens * thr.model_flops_per_token
        wall_s = setup.tokens / (thr.tokens_per_s_per_gpu * layout.gpu_count) / thr.goodput
        hours = wall_s / 3600 * layout.gpu_count
        days = wall_s / 86400
        # MFU against the bf16 peak, as fp8 runs are usually compared.
        if (
            thr.tokens_per_s_per_gpu * thr.model_flops_per_token
            < LOW_MFU * gpu.peak_tflops("bf16" if setup.precision == "fp8" else setup.matmul_dtype) * 1e12
        ):
            checks.append("low_mfu")
        if thr.exposed_comm_share > HIGH_EXPOSED_COMM:
            checks.append("exposed_communication")
    return Estimate(
        layout=layout,
        memory=mem,
        throughput=thr,
        fits=fits,
        usable_gib=usable,
        tokens=setup.tokens,
        gpu_hours=hours,
        days=days,
        flops=flops,
        precision=setup.precision,
        checks=checks,
    )


class _Asked:
    """One layout question as a cache key: the model, setup and GPU are frozen but hold lists,
    so they are compared by their JSON; the objects ride along for the search."""

    __slots__ = ("m", "setup", "gpu", "count", "network", "_key", "_hash")

    def __init__(self, m: ModelShape, setup: TrainingSetup, gpu: GPU, count: int, network: str | None):
        self.m, self.setup, self.gpu, self.count, self.network = m, setup, gpu, count, network
        self._key = (m.model_dump_json(), setup.model_dump_json(), gpu.model_dump_json(), count, network)
        self._hash = hash(self._key)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Asked) and self._key == other._key


# Searches kept per shape, setup, GPU and count: a thread's follow-ups ("what if 30 days?") and
# the next team's 7B LoRA ask about the same counts again. An Estimate is a few kilobytes
# (assumed bound: a few megabytes in all).
SEARCHES_KEPT = 1024


def best_layout(m: ModelShape, setup: TrainingSetup, gpu: GPU, count: int, network: str | None = None) -> Estimate:
    """The fastest candidate that fits, offloading only when nothing fits without it; when
    nothing fits at all, the candidate that needs the least memory. Layouts are compared by
    step time alone; goodput and the final figures are worked out for the winner only. When
    the count is too large for the batch rule (more ranks than sequences), the batch grows
    and `checks` says so ("batch_above_rule"). Answers are kept (`SEARCHES_KEPT`); callers
    must not change the Estimate they get."""
    return _best_layout(_Asked(m, setup, gpu, count, network))


@lru_cache(maxsize=SEARCHES_KEPT)
def _best_layout(asked: _Asked) -> Estimate:
    m, gpu, count, network = asked.m, asked.gpu, asked.count, asked.network
    setup, checks = hardware_precision(asked.setup, gpu)
    found, stack = _search(m, setup, gpu, count, network, capped=True) or (None, {})
    if found is None or (not found.fits and _batch_rule_binds(m, setup, count)):
        # nothing within the batch rule fits: a larger batch (more data-parallel ranks, each
        # holding less of a mixture of experts) may
        wider, wider_stack = _search(m, setup, gpu, count, network, capped=False) or (None, {})
        if found is None or (wider is not None and wider.fits):
            found, stack = wider, wider_stack
            checks.append("batch_above_rule")
    if found is None:  # no combination runs at all (a pinned layout no framework supports)
        raise ValueError("unsupported_layout")
    if found.fits and not setup.global_batch and not setup.pinned.micro_batch and not setup.pinned.grad_accum:
        grown = _grow_batch(m, setup, gpu, count, network, found)
        if grown is not None:
            setup, found = grown
            checks.append("batch_grown")
    est = _finish(m, setup, gpu, found.layout, found.memory, network, checks)
    return est.model_copy(update=stack) if stack else est


def _grow_batch(
    m: ModelShape, setup: TrainingSetup, gpu: GPU, count: int, network: str | None, found: Candidate
) -> tuple[TrainingSetup, Candidate] | None:
    """When the default batch leaves communication exposed (more than BATCH_GROWTH_EXPOSED of
    the step), a bigger global batch gives each rank more micro-batches to hide it behind
    (expert review N6). Doublings up to `batch_growth_cap`, each on the split, offload and
    recompute the default batch chose (the micro-batch searched again); the smallest batch
    within BATCH_GROWTH_TOLERANCE of the fastest wins (a bigger batch costs sample efficiency)."""
    thr = estimate_throughput(m, setup, found.layout, gpu, network)
    if thr.exposed_comm_share <= BATCH_GROWTH_EXPOSED:
        return None
    cap = batch_growth_cap(m, setup, count)
    base = target_batch_tokens(setup, count)
    tried = [(thr.tokens_per_s_per_gpu, setup, found)]
    scale = 2.0
    while base * scale <= cap * (1 + 1e-9):
        grown = setup.model_copy(update={"batch_scale": scale})
        lay = found.layout
        split = ParallelSplit(lay.tp, lay.pp, lay.dp, lay.ep, lay.zero_stage, lay.expert_tp, lay.framework or None)
        candidate = largest_fitting_micro_batch(
            m, grown, gpu, count, split, lay.offload, lay.recompute, grad_reduce=lay.grad_reduce
        )
        if candidate is not None and candidate.fits:
            speed = estimate_throughput(m, grown, candidate.layout, gpu, network).tokens_per_s_per_gpu
            tried.append((speed, grown, candidate))
        scale *= 2
    best = max(speed for speed, _, _ in tried)
    speed, chosen, candidate = next(t for t in tried if t[0] >= best * (1 - BATCH_GROWTH_TOLERANCE))
    return None if chosen is setup else (chosen, candidate)


# How much faster a layout with the optimizer offloaded to the host must be than full recompute on
# the GPU to be chosen over it: offload needs the servers' RAM and CPUs to keep up and is the
# less common recipe (assumed: 10%; ZeRO-Offload, Ren et al. 2021, overlaps the CPU step, and
# full recompute costs a third more matmul, 8N against 6N, Narayanan et al. 2021).
OFFLOAD_OVER_RECOMPUTE = 0.10

# Float headroom on `throughput.speed_ceiling` (it adds up fewer terms of the same step in the
# same order, so it is never below the speed; the margin only guards that reading).
CEILING_MARGIN = 1e-9


def _search(
    m: ModelShape,
    setup: TrainingSetup,
    gpu: GPU,
    count: int,
    network: str | None,
    capped: bool,
    exhaustive: bool = False,
) -> tuple[Candidate, dict] | None:
    """The fastest fitting candidate (else the one needing least memory), and for a PEFT job
    inside one server what the stack choice gave up (Estimate's fields): kept on the PEFT stack,
    the faster stack and by how much (`faster_stack`); planned on another, how much faster than
    PEFT it runs (`over_peft`).

    Branch and bound: no candidate of a split trains faster than `throughput.speed_ceiling` of
    its layouts at the least recompute searched (more recompute only adds time), one for each
    micro-batch it may take. A split whose ceilings are all under the fastest fitting speed found
    so far with the first gradient dtype is pruned before its memory is estimated: none of its
    candidates could be chosen (a bf16-gradient one is taken only where faster than that
    fastest, the least-memory one only where nothing fits). Its larger micro-batches' ceilings
    are worked out only while the smaller ones' are under that speed. A candidate of a split
    searched is estimated only where its own ceiling reaches that speed. Where the PEFT stack is
    weighed (`weigh_stack`), or `exhaustive`, nothing is pruned (tests/test_layout_search.py
    pins that both choose the same). Where the states floor (as `_layout_fits` reads it) leaves
    no layout without offload fitting, that level is searched last, and only when no level has a
    layout that fits, for its least-memory candidate."""
    least_memory: Candidate | None = None
    weigh_stack = setup.is_peft and setup.stack is None and count <= gpu.gpus_per_server
    least_recompute = recompute_levels(setup)[0]
    levels = offload_levels(setup)
    # No layout without offload fits where every state sharded over all the GPUs is over the
    # memory: that level only adds candidates to the least-memory choice, which stands only where
    # no level fits. Worked out then, and compared first as the level comes first.
    deferred = (
        not exhaustive
        and len(levels) > 1
        and levels[0] == "none"
        and states_floor_bytes(count_params(m), setup, count) / GIB > gpu.usable_memory_gib * HEADROOM
    )
    # the fastest without offload where it needs full recompute, while optimizer offload is weighed
    recomputed: tuple[float, Candidate] | None = None
    for offload in levels[1:] if deferred else levels:
        if recomputed is not None and offload != "optimizer":
            break
        # the fastest with the first gradient dtype, and with bf16 gradients the search chose itself
        fastest: dict[bool, tuple[float, Candidate]] = {}
        on_peft: tuple[float, Candidate] | None = None

        # fitting candidates with the first gradient dtype that may be within LAYOUT_TOLERANCE
        # of the fastest: the one with the fewest pipeline stages among them is chosen
        near: list[tuple[float, Candidate]] = []

        def floor(fastest: dict = fastest) -> float | None:
            """The speed a candidate must reach to be chosen; None: any may be."""
            if exhaustive or weigh_stack or False not in fastest:
                return None
            return fastest[False][0] * (1 - LAYOUT_TOLERANCE) / (1 + CEILING_MARGIN)

        def prune(split: ParallelSplit, offload: str = offload) -> bool:
            least = floor()
            if least is None:
                return False
            layouts = _split_layouts(m, setup, gpu, count, split, offload, least_recompute, "fp32")
            return all(speed_ceiling(m, setup, layout, gpu, network) < least for layout in layouts)

        for candidate in candidate_layouts(m, setup, gpu, count, offload, capped, prune):
            if not candidate.fits:
                if least_memory is None or candidate.memory.total < least_memory.memory.total:
                    least_memory = candidate
                continue
            least = floor()
            if least is not None and speed_ceiling(m, setup, candidate.layout, gpu, network) < least:
                continue  # slower than the fastest found: its full estimate cannot change the choice
            speed = estimate_throughput(m, setup, candidate.layout, gpu, network).tokens_per_s_per_gpu
            second = candidate.layout.grad_reduce == "bf16" and not setup.pinned.grad_reduce
            if second not in fastest or speed > fastest[second][0]:
                fastest[second] = (speed, candidate)
            if not second:
                near.append((speed, candidate))
            if weigh_stack and candidate.layout.framework == PEFT and (on_peft is None or speed > on_peft[0]):
                on_peft = (speed, candidate)
        first = _fewest_stages(near)
        # bf16 gradients only where every layout with fp32 ones reruns its forward matmuls (full
        # recompute, or Megatron-Core's selective recompute of the MLP; unless the user fixed it) or
        # none fits: a plan does not trade fp32 accumulation for a percent of speed
        rerun = first is not None and (
            first[1].layout.recompute == "full" or "mlp" in first[1].layout.recompute_modules
        )
        if True in fastest and (first is None or (rerun and not setup.pinned.recompute)):
            first = max(filter(None, (first, fastest[True])), key=lambda f: f[0])
        if first is not None:
            if on_peft is not None and on_peft[1] is not first[1]:
                if on_peft[0] >= first[0] * (1 - PEFT_STACK_SLACK):
                    return on_peft[1], {"faster_stack": (first[1].layout.framework, first[0] / on_peft[0])}
                if first[1].layout.framework != PEFT:
                    return first[1], {"over_peft": first[0] / on_peft[0]}
            if recomputed is not None:
                # the optimizer offloaded, against full recompute on the GPU: the faster by a margin
                return (
                    (first[1], {}) if first[0] > recomputed[0] * (1 + OFFLOAD_OVER_RECOMPUTE) else (recomputed[1], {})
                )
            if _offload_may_beat(setup, gpu, count, first[1], offload, levels):
                # memory-starved without offload: optimizer offload is weighed next (an 8-GPU 70B
                # fine-tune had been planned slower on H200, with room, than on H100 without)
                recomputed = first
                continue
            return first[1], {}
        if recomputed is not None:
            return recomputed[1], {}
    if deferred:
        resident = None
        for candidate in candidate_layouts(m, setup, gpu, count, "none", capped):
            if resident is None or candidate.memory.total < resident.memory.total:
                resident = candidate
        if resident is not None and (least_memory is None or resident.memory.total <= least_memory.memory.total):
            least_memory = resident
    return (least_memory, {}) if least_memory is not None else None


def _offload_may_beat(
    setup: TrainingSetup, gpu: GPU, count: int, chosen: Candidate, offload: str, levels: tuple[str, ...]
) -> bool:
    """Whether optimizer offload is weighed against the layout found without offload: that one
    reruns every layer's forward (full recompute) to fit, on one server (whose RAM takes the
    optimizer, as ZeRO-Offload runs single-node fine-tunes; across servers the sharded states
    are the recipe), the user fixed neither, and the job trains every weight."""
    return (
        offload == "none"
        and "optimizer" in levels
        and count <= gpu.gpus_per_server
        and chosen.layout.recompute == "full"
        and not setup.pinned.recompute
        and not setup.pinned.offload
        and not setup.is_peft
    )


def _fewest_stages(near: list[tuple[float, Candidate]]) -> tuple[float, Candidate] | None:
    """Among the candidates within LAYOUT_TOLERANCE of the fastest, the fewest pipeline stages,
    then the fastest; None when there are none."""
    if not near:
        return None
    best = max(speed for speed, _ in near)
    close = [(speed, c) for speed, c in near if speed >= best * (1 - LAYOUT_TOLERANCE)]
    return min(close, key=lambda sc: (sc[1].layout.pp, -sc[0]))


def _batch_rule_binds(m: ModelShape, setup: TrainingSetup, count: int) -> bool:
    """Whether the batch rule leaves out any split at this count: a split needs dp x its
    micro-batches sequences a step, at most count x MICROBATCHES_PER_STAGE (`parallel_splits`)."""
    if setup.global_batch:
        return False
    return largest_batch_tokens(m, setup, count) / setup.seq_len < count * MICROBATCHES_PER_STAGE


def layout_fits(m: ModelShape, setup: TrainingSetup, gpu: GPU, count: int, resident: bool = False) -> bool:
    """Whether any layout fits at this count, within the batch rule or, as `best_layout` then
    looks, above it (the search stops at the first that does); `resident`: without offloading
    (unless the user asked for it). Kept like `best_layout`."""
    return _layout_fits(_Asked(m, setup, gpu, count, None), resident)


@lru_cache(maxsize=SEARCHES_KEPT)
def _layout_fits(asked: _Asked, resident: bool) -> bool:
    m, gpu, count = asked.m, asked.gpu, asked.count
    setup, _ = hardware_precision(asked.setup, gpu)
    floor_gib = states_floor_bytes(count_params(m), setup, count) / GIB
    if floor_gib > gpu.usable_memory_gib * HEADROOM + MAX_OFFLOAD_GIB_PER_SERVER / min(count, gpu.gpus_per_server):
        # Offload moves states to the host and never drops them (`memory.offload_to_host`): no
        # layout fits where the floor is over the GPU's memory and its share of the server's
        # host memory together (`memory_fits`).
        return False
    offloads = offload_levels(setup)[:1] if resident else offload_levels(setup)
    return any(
        c.fits
        for capped in ((True, False) if _batch_rule_binds(m, setup, count) else (True,))
        for offload in offloads
        if offload != "none" or floor_gib <= gpu.usable_memory_gib * HEADROOM
        for c in candidate_layouts(m, setup, gpu, count, offload, capped)
    )


def candidate_counts(gpu: GPU, limit: int = MAX_GPUS) -> list[int]:
    """1, 2, 4 and whole servers on a grid (SERVER_STEPS_PER_OCTAVE); consumer cards stay
    inside one server."""
    per = gpu.gpus_per_server
    counts = [c for c in (1, 2, 4) if c < per] + [per]
    if gpu.consumer:
        return counts
    servers = {2, 3, 4}
    octave = 4
    while per * octave <= limit:
        servers.update(round(octave * f) for f in SERVER_STEPS_PER_OCTAVE)
        octave *= 2
    return counts + [per * n for n in sorted(servers) if per * n <= limit]


def estimate_for(
    m: ModelShape, setup: TrainingSetup, gpu: GPU, gpu_count: int | None = None, deadline_days: float | None = None
) -> Estimate:
    """The given count; without one, the smallest that fits and meets the deadline."""
    if gpu_count:
        return best_layout(m, setup, gpu, gpu_count)
    fallback = None
    for count in candidate_counts(gpu):
        est = best_layout(m, setup, gpu, count)
        if not est.fits:
            continue
        fallback = fallback or est
        if not deadline_days or est.days is None or est.days <= deadline_days:
            return est
    return fallback or best_layout(m, setup, gpu, candidate_counts(gpu)[-1])
