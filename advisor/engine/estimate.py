"""Memory and time for one GPU type and count: the best layout that fits, and its numbers.

The search policy, in order:
  1. offload: none first; optimizer offload, then everything, only when nothing fits without;
  2. the parallel splits (`parallel_splits`): tensor parallel inside the NVLink domain only,
     pipeline stages that divide the layers, ZeRO-1 or ZeRO-3 over data parallel;
  3. per split, recompute none, selective, full (`recompute_levels`), each with the largest
     micro-batch that fits (`largest_fitting_micro_batch`); more recompute is tried only
     while the micro-batch that fits is 1 (it trades speed for memory we may not need);
  4. of the candidates that fit with headroom, the fastest wins (`best_layout`); when none
     fits at all, the one that needs the least memory.
Knobs the user set are kept as given (`TrainingSetup.pinned`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import NamedTuple

from pydantic import BaseModel

from advisor.engine.layout import Layout
from advisor.engine.memory import MemoryBreakdown, estimate_memory
from advisor.engine.setup import TrainingSetup
from advisor.engine.specs import GPU, ModelShape
from advisor.engine.throughput import Throughput, estimate_throughput

# Keep 5% of the card free: allocator spikes and fragmentation beyond our estimate (assumed).
HEADROOM = 0.95
# Global batch when the user gives none, in tokens: 4M for pre-training (Llama 2 paper,
# Sec 2.2), growing to 2,048 tokens a GPU on big clusters (Llama 3 405B: 16M tokens on 16K
# GPUs, Llama 3 paper Sec 3.4.1), and 0.5M for fine-tuning (128 sequences of 4096; assumed).
PRETRAIN_BATCH_TOKENS = {"pretrain": 4 * 2**20, "continued-pretrain": 4 * 2**20}
FINETUNE_BATCH_TOKENS = 2**19
PRETRAIN_TOKENS_PER_GPU = 2048
# Micro-batches tried: powers of two up to 64 sequences (assumed; memory stops most runs sooner).
MAX_MICRO_BATCH = 64
# Pipeline stages of at least two layers, at most 32 stages (Megatron's largest published
# runs use 8 to 16; assumed bounds).
MIN_LAYERS_PER_STAGE = 2
MAX_PIPELINE_STAGES = 32
# ZeRO stages the search tries: 1 (optimizer states sharded, no extra traffic; ZeRO paper
# Sec 7) and 3 (all states sharded, 1.5x the traffic). ZeRO-2 only when the user asks (assumed).
SEARCHED_ZERO_STAGES = (1, 3)
RECOMPUTE_LEVELS = ("none", "selective", "full")
OFFLOAD_LEVELS = ("none", "optimizer", "all")
# GPU counts tried when the user gives none: up to 16,384 (Llama 3 405B's cluster).
MAX_CANDIDATE_COUNT = 16384


class Estimate(BaseModel):
    layout: Layout
    memory: MemoryBreakdown
    throughput: Throughput
    fits: bool
    usable_gib: float
    tokens: float | None
    gpu_hours: float | None
    days: float | None
    flops: float | None

    @property
    def speed(self) -> float:
        return self.throughput.tokens_per_s_per_gpu * self.layout.gpu_count


class ParallelSplit(NamedTuple):
    tp: int
    pp: int
    dp: int
    ep: int
    zero_stage: int


class Candidate(NamedTuple):
    layout: Layout
    memory: MemoryBreakdown
    fits: bool


def _powers_of_two(limit: int) -> list[int]:
    out, v = [], 1
    while v <= limit:
        out.append(v)
        v *= 2
    return out


_MICRO_BATCH_SIZES = _powers_of_two(MAX_MICRO_BATCH)


def default_batch_sequences(setup: TrainingSetup, dp: int, gpus: int) -> int:
    """Sequences per step when the user gives no global batch."""
    if setup.global_batch:
        return setup.global_batch
    tokens = PRETRAIN_BATCH_TOKENS.get(setup.method, FINETUNE_BATCH_TOKENS)
    if setup.method in PRETRAIN_BATCH_TOKENS:
        tokens = max(tokens, PRETRAIN_TOKENS_PER_GPU * gpus)
    return max(dp, round(tokens / setup.seq_len))


def global_batch(setup: TrainingSetup, layout_dp: int, mbs: int, gpus: int) -> int:
    """The user's global batch, or the default rounded up to whole micro-batches on every rank."""
    if setup.global_batch:
        return setup.global_batch
    seqs = default_batch_sequences(setup, layout_dp, gpus)
    step = layout_dp * mbs
    return max(step, math.ceil(seqs / step) * step)


def parallel_splits(m: ModelShape, setup: TrainingSetup, gpu: GPU, count: int) -> Iterator[ParallelSplit]:
    """Tensor parallel within one NVLink domain and dividing the heads; pipeline stages that
    divide the rest; experts over data-parallel ranks that divide their number; ZeRO-1 or -3
    (or the user's stage). One GPU per replica has nothing to shard: ZeRO stage 0."""
    per_node = min(count, gpu.gpus_per_server)
    pinned_zero = setup.pinned.zero_stage
    zeros = (pinned_zero,) if pinned_zero is not None else SEARCHED_ZERO_STAGES
    for tp in _powers_of_two(min(gpu.nvlink_domain, per_node)):
        if count % tp or m.heads % tp:
            continue
        for pp in _powers_of_two(min(m.layers // MIN_LAYERS_PER_STAGE or 1, count // tp, MAX_PIPELINE_STAGES)):
            if (count // tp) % pp:
                continue
            dp = count // (tp * pp)
            ep = math.gcd(dp, m.moe_experts) if m.is_moe else 1
            if dp == 1 and pinned_zero is None:
                yield ParallelSplit(tp, pp, dp, ep, 0)
                continue
            for zero in zeros:
                yield ParallelSplit(tp, pp, dp, ep, zero)


def recompute_levels(setup: TrainingSetup) -> tuple[str, ...]:
    return (setup.pinned.recompute,) if setup.pinned.recompute else RECOMPUTE_LEVELS


def offload_levels(setup: TrainingSetup) -> tuple[str, ...]:
    return (setup.pinned.offload,) if setup.pinned.offload else OFFLOAD_LEVELS


def micro_batches(setup: TrainingSetup, dp: int, count: int) -> Iterator[int]:
    """The user's micro-batch, or powers of two that do not inflate the default global batch."""
    if setup.pinned.micro_batch:
        yield setup.pinned.micro_batch
        return
    for mbs in _MICRO_BATCH_SIZES:
        if mbs > 1 and dp * mbs > default_batch_sequences(setup, dp, count):
            return
        yield mbs


def largest_fitting_micro_batch(m: ModelShape, setup: TrainingSetup, gpu: GPU, count: int, split: ParallelSplit,
                                offload: str, recompute: str) -> Candidate:
    """Micro-batches grow until one no longer fits (memory grows with the micro-batch): the
    last that fits, or the first tried when none does."""
    per_node = min(count, gpu.gpus_per_server)
    limit = gpu.usable_memory_gib * HEADROOM
    fitting = None
    for mbs in micro_batches(setup, split.dp, count):
        layout = Layout(gpu=gpu.name, gpu_count=count, gpus_per_node=per_node, nodes=math.ceil(count / per_node),
                        tp=split.tp, pp=split.pp, dp=split.dp, ep=split.ep, zero_stage=split.zero_stage,
                        offload=offload, recompute=recompute, micro_batch=mbs,
                        global_batch=global_batch(setup, split.dp, mbs, count))
        memory = estimate_memory(m, setup, layout, gpu)
        if memory.total > limit:
            return fitting or Candidate(layout, memory, fits=False)
        fitting = Candidate(layout, memory, fits=True)
    return fitting


def candidate_layouts(m: ModelShape, setup: TrainingSetup, gpu: GPU, count: int,
                      offload: str) -> Iterator[Candidate]:
    """For one offload level, in search order: per parallel split and recompute level, the
    largest micro-batch that fits. More recompute only trades speed for memory we do not
    need, so it stops once a micro-batch above 1 fits."""
    for split in parallel_splits(m, setup, gpu, count):
        for recompute in recompute_levels(setup):
            candidate = largest_fitting_micro_batch(m, setup, gpu, count, split, offload, recompute)
            yield candidate
            if candidate.fits and candidate.layout.micro_batch > 1:
                break


def _finish(m: ModelShape, setup: TrainingSetup, gpu: GPU, layout: Layout, mem: MemoryBreakdown,
            network: str | None) -> Estimate:
    thr = estimate_throughput(m, setup, layout, gpu, network)
    usable = gpu.usable_memory_gib
    fits = mem.total <= usable * HEADROOM
    hours = days = flops = None
    if setup.tokens:
        flops = setup.tokens * thr.model_flops_per_token
        wall_s = setup.tokens / (thr.tokens_per_s_per_gpu * layout.gpu_count) / thr.goodput
        hours = wall_s / 3600 * layout.gpu_count
        days = wall_s / 86400
    return Estimate(layout=layout, memory=mem, throughput=thr, fits=fits, usable_gib=usable,
                    tokens=setup.tokens, gpu_hours=hours, days=days, flops=flops)


def best_layout(m: ModelShape, setup: TrainingSetup, gpu: GPU, count: int,
                network: str | None = None) -> Estimate:
    """The fastest candidate that fits, offloading only when nothing fits without it; when
    nothing fits at all, the candidate that needs the least memory."""
    least_memory: Candidate | None = None
    for offload in offload_levels(setup):
        fastest: Estimate | None = None
        for candidate in candidate_layouts(m, setup, gpu, count, offload):
            if not candidate.fits:
                if least_memory is None or candidate.memory.total < least_memory.memory.total:
                    least_memory = candidate
                continue
            est = _finish(m, setup, gpu, candidate.layout, candidate.memory, network)
            if fastest is None or est.speed > fastest.speed:
                fastest = est
        if fastest is not None:
            return fastest
    return _finish(m, setup, gpu, least_memory.layout, least_memory.memory, network)


def candidate_counts(gpu: GPU, limit: int = MAX_CANDIDATE_COUNT) -> list[int]:
    """1, 2, 4 and whole servers; consumer cards stay inside one server."""
    per = gpu.gpus_per_server
    counts = [c for c in (1, 2, 4) if c < per] + [per]
    if not gpu.consumer:
        n = 2
        while per * n <= limit:
            counts.append(per * n)
            n *= 2
    return counts


def estimate_for(m: ModelShape, setup: TrainingSetup, gpu: GPU, gpu_count: int | None = None,
                 deadline_days: float | None = None) -> Estimate:
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
