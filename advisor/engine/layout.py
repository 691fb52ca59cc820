"""How a run is split over GPUs: tensor, pipeline, data and expert parallel degrees,
ZeRO stage, offload, recompute and micro-batch."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, model_validator

# A pipeline runs at least 4 micro-batches per stage a step, enough to keep the 1F1B bubble
# small (assumed; Narayanan et al. 2021 keep m >> p); the layout search holds every plan to it.
MICROBATCHES_PER_STAGE = 4


def sequence_multiple(cp: int, tp: int) -> int:
    """The number a sequence's length must be a multiple of to split over `cp` context-parallel
    and `tp` sequence-parallel ranks. Load-balanced causal context parallelism cuts a sequence
    into 2 x cp chunks, two to a rank (Megatron-LM arguments.py: "seq-length should be a
    multiple of 2 * context-parallel-size"; TransformerEngine issue 1368); sequence parallelism,
    on with tensor parallelism here, then splits each rank's seq / cp tokens over the tp ranks
    (Megatron-Core tensor_parallel/mappings.py `_split_along_first_dim` asserts they divide).
    torchtitan asks for a multiple of tp x 2 x cp (ParallelDims.seq_len_divisor), twice this
    at most: the power-of-two sequences teams run meet both."""
    cp, tp = max(1, cp), max(1, tp)
    return math.lcm(2 * cp if cp > 1 else 1, cp * tp)


class ModelSplit(BaseModel):
    """How one run is split over its GPUs (the `layout` of a plan's JSON)."""

    gpu: str
    gpu_count: int
    gpus_per_node: int
    nodes: int
    tp: int = 1
    pp: int = 1
    dp: int = 1
    # expert parallel (MoE): experts spread over this many data-parallel ranks, or, when it is
    # more than dp, over tensor- and data-parallel ranks together (Megatron-Core's MoE parallel
    # folding: EP x expert-DP = TP x DP with expert tensor parallel 1; Liu et al. 2025, "MoE
    # Parallel Folding", and Megatron-Core's MoE docs)
    ep: int = 1
    # expert tensor parallel (Megatron-Core's --expert-tensor-parallel-size, ETP): ranks one
    # expert's matrices are split over. Without expert parallelism the experts split like the
    # dense layers, over tp (set so by the validator below); with it, 1 (experts whole, as
    # Megatron-Core's MoE recipes set it) or tp (Megatron-Core's default when unset, from
    # core_v0.10.0 on: arguments.py `if args.expert_tensor_parallel_size is None: ... =
    # args.tensor_model_parallel_size`).
    expert_tp: int = 1
    cp: int = 1  # context parallel: each sequence split over this many GPUs (ring attention)
    hsdp: bool = False  # ZeRO-3 sharded over a server's ranks, replicated across servers
    zero_stage: int = 1
    offload: Literal["none", "optimizer", "all"] = "none"
    recompute: Literal["none", "selective", "full"] = "none"
    # What selective recompute recomputes on Megatron-Core (--recompute-modules); () elsewhere.
    recompute_modules: tuple[str, ...] = ()
    # Under full recompute, the layers of each model chunk recomputed whole (Megatron-Core's
    # --recompute-method block --recompute-num-layers); None: all of them.
    recompute_layers: int | None = None
    # The dtype gradients are accumulated and reduced in (fp16 runs keep fp16 gradients).
    grad_reduce: Literal["fp32", "bf16", "fp16"] = "fp32"
    micro_batch: int = 1
    global_batch: int | None = None
    # Model chunks per pipeline stage (interleaved 1F1B; 1 is plain 1F1B), the schedule and
    # the framework that runs this layout (advisor/engine/frameworks.py).
    virtual_stages: int = 1
    pipeline_schedule: Literal["none", "1f1b", "interleaved-1f1b"] = "none"
    framework: str = ""

    @model_validator(mode="after")
    def _experts_split_like_dense_without_ep(self) -> ModelSplit:
        if max(1, self.ep) == 1:
            self.expert_tp = self.tp
        return self

    @property
    def folded(self) -> bool:
        return self.ep > self.dp

    @property
    def expert_dp(self) -> int:
        """Ranks that hold the same expert shard, over which its ZeRO shards and gradients go:
        a stage's tensor x context x data ranks over expert x expert-tensor ranks (Megatron-Core's
        parallel folding: EP x ETP x EDP = TP x CP x DP)."""
        ranks = self.tp * max(1, self.cp) * self.dp
        return max(1, ranks // (max(1, self.ep) * self.expert_tp))

    @property
    def microbatches_per_step(self) -> int:
        if not self.global_batch:
            return max(1, MICROBATCHES_PER_STAGE * self.pp)
        return max(1, self.global_batch // (self.micro_batch * self.dp))

    def recomputed_share(self, layers: int) -> float:
        """Share of a stage's layers whose forward runs twice: all under full recompute, the
        first `recompute_layers` of each model chunk under Megatron-Core's block method
        (transformer_block.py _checkpointed_forward: `if layer_number < recompute_num_layers`,
        within each chunk of layers / (pp x virtual stages)), none otherwise."""
        if self.recompute != "full":
            return 0.0
        if self.recompute_layers is None:
            return 1.0
        per_chunk = layers / (self.pp * max(1, self.virtual_stages))
        return min(1.0, self.recompute_layers / per_chunk)
