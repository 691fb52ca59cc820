"""Model shapes and exact parameter counts.

A named model uses its published shape (data/models.toml). A bare size ("70B") becomes a
generic modern dense decoder in the Llama 3 mould: SwiGLU MLP of 3.5x the hidden size, heads
of 128 dimensions in multiples of 8 with 8 KV heads (GQA), RMSNorm, a 128,256-token vocabulary with an untied output
head, and the depth solved so that the count matches the size asked for.

Counts follow Megatron-LM's `compute_weight_and_optimizer_memory`
(megatron/training/theoretical_memory_usage.py): attention, gated MLP (3 matrices), MoE
experts, MLA projections, norms, and embeddings (twice when untied).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from operator import attrgetter

from advisor.engine.specs import ModelShape

# (total parameters in billions, hidden size) of published Llama-family models: a bare size
# gets the hidden size interpolated on a log scale between these points. Sources: the
# config.json of each model as recorded in data/models.toml.
_HIDDEN_BY_SIZE = [
    (1.24, 2048),  # Llama 3.2 1B
    (3.21, 3072),  # Llama 3.2 3B
    (8.03, 4096),  # Llama 3.1 8B
    (13.0, 5120),  # Llama 2 13B
    (32.8, 6144),  # between Qwen2.5-32B (5120) and Yi-34B (7168)
    (70.6, 8192),  # Llama 3.1 70B
    (405.9, 16384),  # Llama 3.1 405B
    (1008.0, 25600),  # Megatron GPT 1T (Narayanan et al. 2021)
]
# (active parameters in billions, hidden size) of published fine-grained MoE models: a bare
# "30B-A3B" gets the hidden size interpolated between these on a log scale, as a dense size does
# above. A mixture is narrower and deeper than a dense model of its active size (Qwen3-30B-A3B:
# 48 layers of 2048 where Llama 3.2 3B has 28 of 3072); planned on the dense table, a bare
# "30B-A3B" had been 17 layers of 3072, about twice as fast as the Qwen3 model it stands for
# (probe T, 2026-12-05). Sources: config.json of each model as recorded in data/models.toml.
_MOE_HIDDEN_BY_ACTIVE = [
    (1.43, 2048),  # Ling-mini-2.0 (16B-A1.4B: 20 layers of 2048)
    (3.3, 2048),  # Qwen3-30B-A3B
    (5.7, 2880),  # gpt-oss-120b
    (13.4, 4096),  # GLM-4.5-Air
    (21.0, 5120),  # DeepSeek-V2
    (37.0, 7168),  # DeepSeek-V3
]
# Beyond the table, the hidden size grows as the square root of the size: params ~ layers*h^2
# at a fixed depth (assumed). Sizes below 10M parameters are treated as 10M (assumed).
HIDDEN_EXPONENT_BEYOND_TABLE = 0.5
SMALLEST_SIZE_B = 0.01
# The generic decoder, after Llama 3 (config.json of Llama 3.1 8B/70B/405B: 32, 64 and 128
# heads, all multiples of 8): heads of 128 dimensions (64 below a hidden size of 1024, as
# GPT-2 small; assumed), a multiple of 8 heads and 8 KV heads (GQA), a SwiGLU width of 3.5x
# the hidden size in steps of 256 (14336 = 3.5 x 4096), and a 128,256-token vocabulary.
GENERIC_HEAD_DIM, SMALL_HEAD_DIM, SMALL_HEAD_BELOW_HIDDEN = 128, 64, 1024
GENERIC_HEADS_STEP = 8
GENERIC_KV_HEADS = 8
GENERIC_FFN_RATIO, GENERIC_FFN_STEP = 3.5, 256
GENERIC_VOCAB = 128256
GENERIC_MAX_SEQ = 131072  # Llama 3.1's context
# Generic MoE in the DeepSeek-V3 / Qwen3-MoE mould: each token goes to the top 8 of many
# small experts (an eighth of the dense width, in steps of 128) plus 1 shared expert.
GENERIC_MOE_TOP_K = 8
GENERIC_MOE_SHARED = 1
GENERIC_EXPERT_FFN_STEP = 128
GENERIC_EXPERTS_STEP = 8


@dataclass(frozen=True)
class ParamCounts:
    """Parameters by where they live; all in absolute counts (not billions)."""

    embedding: float  # input embedding table
    output: float  # untied output head (0 when tied)
    attention_per_layer: float
    dense_mlp_per_layer: float
    expert_mlp_per_layer: float  # all routed experts of one MoE layer
    shared_mlp_per_layer: float  # shared experts + router of one MoE layer
    norms_per_layer: float
    dense_layers: int
    moe_layers: int
    extra: float  # e.g. DeepSeek-V3's multi-token-prediction module
    total: float = field(init=False)
    experts: float = field(init=False)

    def __post_init__(self):
        # Totals are read thousands of times by the layout search: computed once here.
        dense = self.dense_layers * (self.layer_dense_part + self.dense_mlp_per_layer)
        moe = self.moe_layers * (self.layer_dense_part + self.expert_mlp_per_layer + self.shared_mlp_per_layer)
        object.__setattr__(self, "total", dense + moe + self.embedding + self.output + self.extra)
        object.__setattr__(self, "experts", self.moe_layers * self.expert_mlp_per_layer)

    @property
    def layer_dense_part(self) -> float:
        return self.attention_per_layer + self.norms_per_layer


def _mlp(hidden: int, ffn: int, ffn_type: str, bias: bool) -> float:
    matrices = 3 if ffn_type == "swiglu" else 2  # gated MLPs have gate, up and down
    return matrices * hidden * ffn + ((ffn * (matrices - 1) + hidden) if bias else 0)


_COUNTS: dict[tuple, ParamCounts] = {}
# Every field the count reads: two shapes that agree on these have the same counts.
_COUNTED_FIELDS = attrgetter(
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "head_dim",
    "ffn_hidden",
    "ffn_type",
    "vocab",
    "tied_embeddings",
    "attention_bias",
    "mlp_bias",
    "norm",
    "position",
    "max_seq",
    "moe_experts",
    "moe_shared_experts",
    "moe_ffn_hidden",
    "moe_dense_layers",
    "mla_q_lora_rank",
    "mla_kv_lora_rank",
    "mla_qk_nope_head_dim",
    "mla_qk_rope_head_dim",
    "mla_v_head_dim",
    "extra_params_b",
    "linear_attention_layers",
    "linear_key_heads",
    "linear_value_heads",
    "linear_key_head_dim",
    "linear_value_head_dim",
    "linear_conv_kernel",
    "full_attention_gated",
)
# The layout search asks about one shape object thousands of times in a row: shapes are
# frozen, so the last one asked about is answered without building its key.
_last_counted: tuple[ModelShape | None, ParamCounts | None] = (None, None)


def count_params(m: ModelShape) -> ParamCounts:
    """Memoised: the layout search asks for the same model's counts many times."""
    global _last_counted
    last_shape, last_counts = _last_counted
    if m is last_shape:
        return last_counts
    key = _COUNTED_FIELDS(m)
    if key not in _COUNTS:
        _COUNTS[key] = _count_params(m)
    _last_counted = (m, _COUNTS[key])
    return _COUNTS[key]


def _count_params(m: ModelShape) -> ParamCounts:
    h = m.hidden
    if m.uses_mla:
        # Multi-head latent attention (DeepSeek-V3 tech report, Sec 2.1.1), as Megatron counts it.
        qk = m.mla_qk_nope_head_dim + m.mla_qk_rope_head_dim
        q = (m.mla_q_lora_rank * (h + m.heads * qk + 1)) if m.mla_q_lora_rank else h * m.heads * qk
        attention = (
            q
            + m.mla_kv_lora_rank * (h + m.heads * (m.mla_qk_nope_head_dim + m.mla_v_head_dim) + 1)
            + h * m.mla_qk_rope_head_dim
            + m.heads * m.mla_v_head_dim * h
        )
    else:
        q_dim, kv_dim = m.heads * m.head_dim, m.kv_heads * m.head_dim
        gate = q_dim if m.full_attention_gated else 0  # the output gate's projection, beside q
        attention = h * (q_dim + gate) + 2 * h * kv_dim + q_dim * h
        if m.attention_bias:
            attention += q_dim + 2 * kv_dim
        if m.mlp_bias:  # GPT/OPT/BLOOM-style models bias every projection
            attention += h
    if m.linear_attention_layers:
        # a layer's attention averaged over its softmax (or MLA) and linear layers
        attention = (1 - m.linear_share) * attention + m.linear_share * linear_attention_params(m)
    norms = (2 if m.norm == "layernorm" else 1) * 2 * h  # two norms a layer; LayerNorm has a bias too
    moe_layers = m.layers - m.moe_dense_layers if m.is_moe else 0
    embedding = m.vocab * h
    output = 0 if m.tied_embeddings else m.vocab * h
    if m.position == "learned":
        embedding += m.max_seq * h
    return ParamCounts(
        embedding=embedding,
        output=output,
        attention_per_layer=attention,
        dense_mlp_per_layer=_mlp(h, m.ffn_hidden, m.ffn_type, m.mlp_bias),
        expert_mlp_per_layer=m.moe_experts * _mlp(h, m.moe_ffn_hidden, m.ffn_type, False),
        shared_mlp_per_layer=(m.moe_shared_experts * _mlp(h, m.moe_ffn_hidden, m.ffn_type, False) + h * m.moe_experts),
        norms_per_layer=norms,
        dense_layers=m.layers - moe_layers,
        moe_layers=moe_layers,
        extra=m.extra_params_b * 1e9,
    )


def linear_attention_params(m: ModelShape) -> float:
    """One linear-attention layer's parameters. Gated DeltaNet (transformers'
    Qwen3NextGatedDeltaNet): q and k (key heads x key width each), v and the output gate z (value
    heads x value width each) and one decay and one beta a value head from the hidden size; a
    depthwise convolution over q, k and v of `linear_conv_kernel` taps; dt_bias and A_log a value
    head; the gated RMSNorm over one value head; the output projection back to the hidden size.
    Kimi Delta Attention (Kimi Linear's modeling_kimi.py KimiDeltaAttention, bias-free): q, k, v;
    the convolutions; the per-channel decay and the output gate each through a rank of one key
    (value) head's width (f_a, f_b; g_a, g_b); beta a head; A_log a head and dt_bias a channel;
    the gated RMSNorm over one value head; the output projection. Lightning attention
    (transformers' MiniMaxLightningAttention, bias-free): q, k and v in one projection, the
    output gate, an RMSNorm over all value heads, the output projection; its decay is a fixed
    slope a head, and it has no convolution. Mamba-2 (transformers' NemotronHMamba2Mixer, the
    mixer of GraniteMoeHybrid too): in_proj to z and x (heads x head width each), B and C (groups
    x state each) and dt (one a head), bias-free; a depthwise convolution with a bias over x, B
    and C; dt_bias, A_log and D a head; the gated RMSNorm over x's width; out_proj."""
    h, kd = m.hidden, m.linear_key_heads * m.linear_key_head_dim
    vd, nv = m.linear_value_heads * m.linear_value_head_dim, m.linear_value_heads
    if m.linear_attention_kind == "mamba2":
        conv = vd + 2 * kd
        return h * (2 * vd + 2 * kd + nv) + (m.linear_conv_kernel + 1) * conv + 3 * nv + vd + vd * h
    if m.linear_attention_kind == "lightning":
        return h * (2 * kd + vd) + h * vd + vd + vd * h
    if m.linear_attention_kind == "kda":
        dk, dv = m.linear_key_head_dim, m.linear_value_head_dim
        return (
            h * (2 * kd + vd)
            + m.linear_conv_kernel * (2 * kd + vd)
            + (h * dk + dk * kd)  # decay, low-rank
            + h * nv
            + nv
            + kd
            + (h * dv + dv * vd)  # output gate, low-rank
            + dv
            + vd * h
        )
    return (
        h * (2 * kd + 2 * vd + 2 * nv)
        + m.linear_conv_kernel * (2 * kd + vd)
        + 2 * nv
        + m.linear_value_head_dim
        + vd * h
    )


def _round_to(x: float, step: int) -> int:
    return max(step, int(round(x / step)) * step)


def generic_shape(params_b: float, active_params_b: float | None = None) -> ModelShape:
    """A modern dense decoder of (about) `params_b` parameters; MoE when active < total."""
    moe = bool(active_params_b and active_params_b < params_b)
    table = _MOE_HIDDEN_BY_ACTIVE if moe else _HIDDEN_BY_SIZE
    sizes = [s for s, _ in table]
    hiddens = [h for _, h in table]
    target = active_params_b if moe else params_b
    x = math.log(max(target, SMALLEST_SIZE_B))
    if x <= math.log(sizes[0]):
        hidden = hiddens[0] * math.exp((x - math.log(sizes[0])) * HIDDEN_EXPONENT_BEYOND_TABLE)
    elif x >= math.log(sizes[-1]):
        hidden = hiddens[-1] * math.exp((x - math.log(sizes[-1])) * HIDDEN_EXPONENT_BEYOND_TABLE)
    else:
        i = next(i for i in range(len(sizes) - 1) if math.log(sizes[i + 1]) >= x)
        t = (x - math.log(sizes[i])) / (math.log(sizes[i + 1]) - math.log(sizes[i]))
        hidden = math.exp(math.log(hiddens[i]) + t * (math.log(hiddens[i + 1]) - math.log(hiddens[i])))
    head_dim = GENERIC_HEAD_DIM if hidden >= SMALL_HEAD_BELOW_HIDDEN else SMALL_HEAD_DIM
    # Heads in multiples of 8, so that tensor parallelism of 2, 4 or 8 divides them and the
    # 8 KV heads; the hidden size is the heads times the head size.
    heads = _round_to(hidden / head_dim, GENERIC_HEADS_STEP)
    hidden = heads * head_dim
    kv_heads = GENERIC_KV_HEADS
    ffn = _round_to(GENERIC_FFN_RATIO * hidden, GENERIC_FFN_STEP)
    vocab = GENERIC_VOCAB
    base = dict(
        name=f"generic-{params_b:g}b",
        display=f"generic {params_b:g}B decoder",
        family="generic",
        params_b=params_b,
        active_params_b=params_b,
        layers=1,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        ffn_hidden=ffn,
        vocab=vocab,
        max_seq=GENERIC_MAX_SEQ,
        generated=True,
    )
    if active_params_b and active_params_b < params_b:
        top_k, shared = GENERIC_MOE_TOP_K, GENERIC_MOE_SHARED
        expert_ffn = _round_to(ffn / top_k, GENERIC_EXPERT_FFN_STEP)
        base.update(moe_top_k=top_k, moe_shared_experts=shared, moe_ffn_hidden=expert_ffn)
        # A one-layer probe with as many experts as are routed to gives the per-layer counts;
        # its router (hidden x experts) stands in for the final one's, a small term.
        probe = ModelShape(**base | {"moe_experts": top_k})
        per_expert = _mlp(hidden, expert_ffn, "swiglu", False)
        counts = count_params(probe)
        embeddings = counts.embedding + counts.output  # untied: input table and output head
        active_layer = counts.layer_dense_part + (top_k + shared) * per_expert + hidden * probe.moe_experts
        layers = max(1, round((active_params_b * 1e9 - embeddings) / active_layer))
        routed = (params_b * 1e9 - embeddings - layers * (counts.layer_dense_part + per_expert)) / (layers * per_expert)
        # Experts in multiples of 8 (DeepSeek-V3 256, Qwen3-MoE 128, Mixtral 8), so that expert
        # parallelism of 2, 4 or 8 divides them; more experts than a token is routed to, or it
        # would not be a mixture.
        experts = max(top_k + GENERIC_EXPERTS_STEP, _round_to(routed, GENERIC_EXPERTS_STEP))
        shape = ModelShape(**base | {"layers": layers, "moe_experts": experts})
    else:
        probe = ModelShape(**base)
        c = count_params(probe)
        per_layer = c.layer_dense_part + c.dense_mlp_per_layer
        layers = max(1, round((params_b * 1e9 - c.embedding - c.output) / per_layer))
        shape = ModelShape(**base | {"layers": layers})
    counts = count_params(shape)
    active = active_count(shape, counts)
    return shape.model_copy(update={"params_b": counts.total / 1e9, "active_params_b": active / 1e9})


def active_count(shape: ModelShape, counts: ParamCounts | None = None) -> float:
    """Parameters one token passes through (top-k of the routed experts)."""
    c = counts or count_params(shape)
    if not shape.is_moe:
        return c.total
    routed_active = c.moe_layers * c.expert_mlp_per_layer * shape.moe_top_k / shape.moe_experts
    return c.total - c.experts + routed_active - c.extra
