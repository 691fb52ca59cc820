"""Memory and time for one GPU type and count: the best layout that fits, and its numbers.

The layout search tries tensor parallel inside the NVLink domain only, pipeline stages that
divide the layers, ZeRO-1 or ZeRO-3 over data parallel, recompute none/selective/full and
the largest micro-batch that fits; offload only when nothing fits without it. Knobs the user
set are kept as given. The fastest layout that fits with headroom wins.
"""

from __future__ import annotations

import math

from pydantic import BaseModel

from advisor.catalog import GPU, ModelShape
from advisor.engine.layout import Layout
from advisor.engine.memory import MemoryBreakdown, estimate_memory
from advisor.request.model import TrainingRequest
from advisor.engine.throughput import Throughput, estimate_throughput

# Keep 5% of the card free: allocator spikes and fragmentation beyond our estimate.
HEADROOM = 0.95
# Global batch when the user gives none, in tokens: 4M for pre-training (Llama 2 paper,
# Sec 2.2), growing to 2,048 tokens a GPU on big clusters (Llama 3 405B: 16M tokens on 16K
# GPUs, Llama 3 paper Sec 3.4.1), and 0.5M for fine-tuning (128 sequences of 4096).
DEFAULT_BATCH_TOKENS = {"pretrain": 4 * 2**20, "continued-pretrain": 4 * 2**20}
FINETUNE_BATCH_TOKENS = 2**19
PRETRAIN_TOKENS_PER_GPU = 2048


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


def _powers_of_two(limit: int) -> list[int]:
    out, v = [], 1
    while v <= limit:
        out.append(v)
        v *= 2
    return out


def _batch_seqs(req: TrainingRequest, dp: int, gpus: int) -> int:
    if req.global_batch:
        return req.global_batch
    tokens = DEFAULT_BATCH_TOKENS.get(req.method, FINETUNE_BATCH_TOKENS)
    if req.method in DEFAULT_BATCH_TOKENS:
        tokens = max(tokens, PRETRAIN_TOKENS_PER_GPU * gpus)
    return max(dp, round(tokens / req.seq_len))


def global_batch(req: TrainingRequest, layout_dp: int, mbs: int, gpus: int) -> int:
    if req.global_batch:
        return req.global_batch
    seqs = _batch_seqs(req, layout_dp, gpus)
    step = layout_dp * mbs
    return max(step, math.ceil(seqs / step) * step)


def _finish(m, req, gpu, layout, mem, network) -> Estimate:
    thr = estimate_throughput(m, req, layout, gpu, network)
    usable = gpu.usable_memory_gib
    fits = mem.total <= usable * HEADROOM
    hours = days = flops = None
    if req.tokens:
        flops = req.tokens * thr.model_flops_per_token
        wall_s = req.tokens / (thr.tokens_per_s_per_gpu * layout.gpu_count) / thr.goodput
        hours = wall_s / 3600 * layout.gpu_count
        days = wall_s / 86400
    return Estimate(layout=layout, memory=mem, throughput=thr, fits=fits, usable_gib=usable,
                    tokens=req.tokens, gpu_hours=hours, days=days, flops=flops)


def best_layout(m: ModelShape, req: TrainingRequest, gpu: GPU, count: int,
                network: str | None = None) -> Estimate:
    per_node = min(count, gpu.gpus_per_server)
    nodes = math.ceil(count / per_node)
    limit = gpu.usable_memory_gib * HEADROOM
    tps = [t for t in _powers_of_two(min(gpu.nvlink_domain, per_node))
           if count % t == 0 and m.heads % t == 0]
    fixed_zero = req.zero_stage if req.given("zero_stage") else None
    zeros = [fixed_zero] if fixed_zero is not None else [1, 3]
    recomputes = [req.recompute] if req.recompute else ["none", "selective", "full"]
    offloads = [req.offload] if req.given("offload") else ["none", "optimizer", "all"]
    mbs_options = [req.micro_batch] if req.micro_batch else _powers_of_two(64)

    best: Estimate | None = None
    smallest: tuple[float, Layout, MemoryBreakdown] | None = None
    for offload in offloads:
        for tp in tps:
            # Pipeline stages of at least two layers, at most 32 stages (Megatron's largest
            # published runs use 8 to 16).
            for pp in _powers_of_two(min(m.layers // 2 or 1, count // tp, 32)):
                if (count // tp) % pp:
                    continue
                dp = count // (tp * pp)
                ep = math.gcd(dp, m.moe_experts) if m.is_moe else 1
                for zero in zeros:
                    if dp == 1 and zero and fixed_zero is None and zero != zeros[0]:
                        continue
                    found_at, found_mbs = None, 0
                    for rec in recomputes:
                        if found_at is not None and rec != recomputes[0] and found_mbs > 1:
                            break  # more recompute only trades speed for memory we do not need
                        chosen = None
                        for mbs in mbs_options:
                            if not req.micro_batch and mbs > 1 and dp * mbs > _batch_seqs(req, dp, count):
                                break  # a bigger micro-batch would inflate the global batch
                            layout = Layout(gpu=gpu.name, gpu_count=count, gpus_per_node=per_node,
                                            nodes=nodes, tp=tp, pp=pp, dp=dp, ep=ep,
                                            zero_stage=zero if dp > 1 or fixed_zero is not None else 0,
                                            offload=offload, recompute=rec, micro_batch=mbs)
                            layout.global_batch = global_batch(req, dp, mbs, count)
                            mem = estimate_memory(m, req, layout, gpu)
                            if smallest is None or mem.total < smallest[0]:
                                smallest = (mem.total, layout, mem)
                            if mem.total > limit:
                                break
                            chosen = (layout, mem)
                        if chosen:
                            found_at, found_mbs = rec, chosen[0].micro_batch
                            est = _finish(m, req, gpu, chosen[0], chosen[1], network)
                            if best is None or est.speed > best.speed:
                                best = est
        if best is not None:
            break  # offload only when nothing fits without it
    if best is None:
        _, layout, mem = smallest
        return _finish(m, req, gpu, layout, mem, network)
    return best


def candidate_counts(gpu: GPU, limit: int = 16384) -> list[int]:
    """1, 2, 4 and whole servers; consumer cards stay inside one server."""
    per = gpu.gpus_per_server
    counts = [c for c in (1, 2, 4) if c < per] + [per]
    if not gpu.consumer:
        n = 2
        while per * n <= limit:
            counts.append(per * n)
            n *= 2
    return counts


def estimate_for(req: TrainingRequest, m: ModelShape, gpu: GPU) -> Estimate:
    """The user's count as given; without one, the smallest that fits and meets the deadline."""
    if req.gpu_count:
        return best_layout(m, req, gpu, req.gpu_count)
    fallback = None
    for count in candidate_counts(gpu):
        est = best_layout(m, req, gpu, count)
        if not est.fits:
            continue
        fallback = fallback or est
        if not req.deadline_days or est.days is None or est.days <= req.deadline_days:
            return est
    return fallback or best_layout(m, req, gpu, candidate_counts(gpu)[-1])
