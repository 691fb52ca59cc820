"""The parsed /gpu request: what the user asked for, every field explicit.

Its JSON is the `request` section of CONTRACT section 4; `user_set` names the fields the user
typed, so the planner knows which knobs are free and which are fixed.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from advisor.engine.setup import (
    GradReduce,
    LoraTargets,
    Method,
    Moments,
    Offload,
    Optimizer,
    Precision,
    Recompute,
    RecomputeModule,
    Stack,
)

Lang = Literal["en", "zh"]


class Note(BaseModel):
    """Something the product tells the user (a default it assumed, a warning, a suggestion),
    kept as a code and its values; templates/phrases.j2 words it when it is rendered, in the
    reader's language (advisor/text/render.py `word`)."""

    model_config = ConfigDict(frozen=True)
    kind: Literal["assumption", "warning", "suggestion"]
    code: str
    params: dict[str, Any] = Field(default_factory=dict)


# Bytes of cleaned text per token, used to turn "1TB" into tokens. Source: the
# tokenizer-arena compression table on CC-100 (huggingface.co/spaces/xu-song/tokenizer-arena,
# README "压缩率"): large-vocabulary tokenizers give 3.8-4.1 bytes/token on cc100-en and
# Llama 3 gives 3.2 bytes/token on cc100-zh-Hans. Code: no measured figure found, 3.5 is a guess.
# A Chinese-English mix, or code with either: the mean of the two, as for equal shares of each by
# bytes (assumed).
BYTES_PER_TOKEN = {"en": 4.0, "zh": 3.2, "code": 3.5, "zh-en": 3.6, "code-en": 3.75, "code-zh": 3.35}
# A Chinese character takes 3 bytes in UTF-8 (the CJK Unified Ideographs, U+4E00-U+9FFF: Unicode
# Standard, UTF-8 encoding form), so a length in characters is 3 / 3.2 tokens a character.
ZH_CHAR_BYTES = 3
# Tokens per training sample when the data is given as a sample count: a typical
# instruction-tuning conversation. No published average covers every dataset: a guess.
TOKENS_PER_SAMPLE = 1000


# Preference tunings whose samples are pairs of responses (KTO's are single responses: Ethayarajh
# et al. 2024), and those that keep a frozen reference model (ORPO and SimPO do not: Hong et al.
# 2024, Meng et al. 2024). A reward model is trained on pairs too, with no reference: a pairwise
# (Bradley-Terry) loss on the scores of the chosen and the rejected response (Ouyang et al. 2022;
# TRL's RewardTrainer).
PAIRED = ("dpo", "ipo", "orpo", "simpo", "reward")
REFERENCED = ("dpo", "ipo", "kto")


class Budget(BaseModel):
    amount: float
    currency: Literal["CNY", "USD"]


class DataSize(BaseModel):
    """The data as the user wrote it, before conversion to tokens."""

    amount: float
    unit: Literal["bytes", "tokens", "samples"]
    language: Literal["en", "zh", "code", "zh-en", "code-en", "code-zh"] | None = None


class TrainingRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = ""
    params_b: float | None = None
    active_params_b: float | None = None
    model: str | None = None
    method: Method = "full-finetune"
    # Preference tuning on top of the method (`dpo`, `orpo`, `偏好对齐`); None: the method alone
    preference_tuning: Literal["dpo", "ipo", "kto", "orpo", "simpo", "reward"] | None = None
    lora_rank: int | None = None
    lora_targets: LoraTargets | None = None
    lora_dropout: float = 0.0
    data: DataSize | None = None
    bytes_per_token: float | None = None
    tokens_per_sample: int | None = None
    unique_tokens: float | None = None
    tokens: float | None = None
    epochs: float = 1
    deadline_days: float | None = None
    budget: Budget | None = None
    cost_first: bool = False
    speed_first: bool = False
    gpu: str | None = None
    gpu_count: int | None = None
    precision: Precision = "bf16"
    # fp32 matmuls on TF32 tensor cores (`tf32`); without it fp32 runs at the FP32 rate
    tf32: bool = False
    optimizer: Optimizer = "adamw"
    opt_in_backward: bool = False
    # The stack compiles (`compile`, torch.compile): elementwise operators fused.
    compile: bool = False
    # The stack replays CUDA graphs (`cuda-graphs`, `--enable-cuda-graph`, `CUDA图`).
    cuda_graphs: bool = False
    # The loss runs over chunks of the logits (`chunked loss`), not on all of them upcast at once.
    chunked_loss: bool = False
    # QLoRA on bitsandbytes before 0.43.2 (`bnb-0.42`), which kept each 4-bit layer's input.
    old_bitsandbytes: bool = False
    # litgpt before 0.5.0 (`litgpt-0.4`), whose QLoRA kept its token embedding (no StableEmbedding).
    old_litgpt: bool = False
    # transformers before 5 (`transformers 4.57`, `old-transformers`): its MoE blocks loop over the
    # experts in Python; unsaid, transformers 5's grouped expert GEMMs.
    old_transformers: bool = False
    # DeepSpeed ZeRO-3 with no MoE block set as a leaf module (`no-z3-leaf`): each expert
    # projection fetched apart.
    no_z3_leaf: bool = False
    # The training stack the team runs (`deepspeed`, `megatron`, `hf`, `torchtitan`); None: the
    # planner chooses the framework with the layout.
    stack: Stack | None = None
    seq_len: int = 4096
    micro_batch: int | None = None
    global_batch: int | None = None
    # micro-batches each data-parallel rank accumulates a step (`ga 8`, HF's
    # gradient_accumulation_steps); None: the planner's
    grad_accum: int | None = None
    zero_stage: int | None = None
    # Layout degrees the user fixed (`tp 8`, `pp 4`, `ep 8`, `etp 1`, `vpp 2`, `dp 64`); None: the planner
    # chooses.
    tp: int | None = None
    pp: int | None = None
    ep: int | None = None
    etp: int | None = None  # expert tensor parallel (`etp 1`, Megatron-Core's ETP)
    vpp: int | None = None
    dp: int | None = None
    # Context parallel degree (`cp 2`) and hybrid sharding (`hsdp`), as the user fixed them.
    cp: int | None = None
    hsdp: bool = False
    # `pay as you go`, `按量付费`: rent priced on hourly offers only
    hourly_only: bool = False
    recurring: bool = False  # the job repeats every month (fields.py `recurring`)
    # how often a recurring job runs a month: once, or a run every week (`every week`, `每周`: 52/12)
    runs_per_month: float = 1.0
    own_room: bool = False  # servers bought stand in the team's own room: no colocation fee
    power_paid: bool = False  # the team pays no power bill for servers it owns
    power_price: Budget | None = None  # the team's own price of a kWh (`电费0.6元/度`)
    used_gpus: bool = False  # the cards are used ones (`二手`): planned and priced as new, said
    fabric: Literal["ib", "roce"] | None = None  # the fabric between servers the team asked for
    # the network the team has between servers (`只有25G以太网`, `8x400G IB`), Gb/s: each server's
    # link where `network_per_server`, else each GPU's; planned on (None: the one the plan needs)
    network_gbps: float | None = None
    network_per_server: bool = False
    # `on aws`, `阿里云`: the provider whose offers price the plan, as the price book names it
    cloud: str | None = None
    # `one server only`: the planner counts GPUs up to one server's
    one_server: bool = False
    # `nvlink`, `需要NVLink`: only GPUs with NVLink between them are planned
    nvlink: bool = False
    # `up to 64 GPUs` / `at least 16 GPUs` (`64卡以内`, `16卡以上`): bounds on the count it chooses
    max_gpus: int | None = None
    min_gpus: int | None = None
    # `we already own 16 A100`: the GPUs are the team's; rent and purchase only compared
    owned: bool = False
    # `4 servers with 4xA100 each`: servers of fewer GPUs than the type's are sold with, planned so
    # (tensor parallelism and NVLink within such a server, more traffic between servers); None:
    # the type's own servers
    gpus_per_server: int | None = None
    offload: Offload = "none"
    recompute: Recompute | None = None
    # What Megatron-Core's selective recompute recomputes, as the team runs it
    # (`recompute-modules core_attn`); None: the planner's (advisor/engine/frameworks.py).
    recompute_modules: tuple[RecomputeModule, ...] | None = None
    # Megatron-Core's block recompute (`--recompute-method block --recompute-num-layers 21`,
    # `recompute 21 layers`): that many layers of each stage (model chunk) recomputed whole, the
    # rest keeping their activations; None: every layer, where the recompute is full.
    recompute_layers: int | None = None
    # The dtype gradients are reduced in, as the user fixed it (`grads bf16`); None: the planner's.
    grad_reduce: GradReduce | None = None
    # AdamW's moments in bf16 (`moments bf16`, Megatron-Core's precision-aware optimizer); None: fp32.
    moments: Moments | None = None
    # The attention kernels the team runs (`attention fa2`); None: the best for the GPU.
    attention: Literal["fa2", "fa3"] | None = None
    # Megatron-Core's MoE token dispatcher (`dispatcher alltoall`, `deepep`); None: the planner's.
    dispatcher: Literal["alltoall", "flex"] | None = None
    rent_or_buy: Literal["rent", "buy"] | None = None
    # The team's own use of bought GPUs beyond this job (issue 15): `keep it busy 24 months`,
    # `用两年`, `60% use`; None: only this job is weighed (advisor/planning/costs.py).
    own_use_months: int | None = None
    own_utilisation: float | None = None
    # The lease term the team will sign, in months (issue 21): `1-month lease`, `1个月起租`,
    # `包年` (12); None: the cheapest term that can be signed is the headline.
    lease_term_months: int | None = None
    currency: Literal["CNY", "USD"] = "CNY"
    city: str | None = None
    market: Literal["china", "global"] = "china"
    lang: Lang = "en"
    assumptions: list[Note] = Field(default_factory=list)
    user_set: list[str] = Field(default_factory=list)

    @property
    def is_moe(self) -> bool:
        return self.params_b is not None and self.active_params_b is not None and self.active_params_b < self.params_b

    @property
    def is_peft(self) -> bool:
        return self.method in ("lora", "qlora")

    def given(self, field: str) -> bool:
        return field in self.user_set
