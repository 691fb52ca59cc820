"""What the engine knows of hardware and models: a GPU's published figures and a decoder's shape.

Plain pydantic types; advisor/catalog.py fills them from data/gpus.toml and data/models.toml.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# Tokens a chunk of chunked linear attention (ModelShape.linear_core_flops): flash-linear-
# attention's chunk_gated_delta_rule and transformers' torch_chunk_gated_delta_rule use 64.
LINEAR_ATTENTION_CHUNK = 64
# Lightning attention's block (MiniMax-Text-01 and M1: transformers' MiniMaxConfig block_size 256).
LIGHTNING_BLOCK = 256
# Mamba-2's chunk in its chunked scan (transformers' GraniteMoeHybridConfig mamba_chunk_size 256).
MAMBA2_CHUNK = 256


class Source(BaseModel):
    model_config = ConfigDict(extra="allow")
    title: str
    url: str = ""
    fields: list[str] = Field(default_factory=list)


class GPU(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)
    name: str
    aliases: list[str]
    display: str
    vendor: str
    architecture: str
    release_year: int
    form_factor: str
    consumer: bool
    memory_gb: float
    usable_memory_gib: float
    memory_type: str
    memory_bw_tb_s: float
    bf16_dense_tflops: float
    fp16_dense_tflops: float
    fp8_dense_tflops: float
    tf32_dense_tflops: float
    fp32_tflops: float
    intra_node: str
    intra_node_bw_gb_s: float
    nvlink_domain: int
    pcie_gen: int
    gpus_per_server: int
    tdp_w: float
    server_power_kw: float
    cooling: str
    markets: list[str]
    availability: str
    # How the part reaches each market, as codes (data/gpus.toml header); worded by templates.
    china_access: Literal[
        "licence_rented",
        "licence",
        "licence_promised",
        "approved_buyers",
        "unconfirmed",
        "not_named",
        "aws_only",
        "domestic",
    ]
    china_access_since: str = ""
    global_access: Literal["open", "china_part", "aws_only", "us_restricted"]
    global_access_since: str = ""
    # The most Gb/s per GPU the part's own server NICs carry (Ascend 910B: one 200GE RoCE port per
    # NPU), and the one fabric its collectives run on ("roce": HCCL); 0 / "": any NIC speed, IB or RoCE.
    max_nic_gbps: int = 0
    nic_fabric: str = ""
    # Weeks from order to delivery of a server, as published on purchase_lead_as_of ([] = none found).
    purchase_lead_weeks: list[int] = Field(default_factory=list)
    purchase_lead_as_of: str = ""
    # The best BF16 matmul rate measured on this part (TFLOPS, large square matmuls), where one
    # was read and the MAMF table has no measurement of it: what its clocks sustain under its
    # power limit (0 = none: the architecture's fraction is used).
    matmul_bf16_measured_tflops: float = 0.0
    as_of: str
    unverified: list[str] = Field(default_factory=list)
    notes: str = ""
    sources: list[Source]

    def peak_tflops(self, precision: str) -> float:
        """Dense tensor-core peak for the compute precision of training."""
        if precision == "fp8" and self.fp8_dense_tflops > 0:
            return self.fp8_dense_tflops
        if precision == "tf32":
            return self.tf32_dense_tflops or self.fp32_tflops
        if precision == "fp32":  # CUDA cores: PyTorch's default for fp32 matmuls (setup.tf32)
            return self.fp32_tflops
        if precision == "fp16":
            return self.fp16_dense_tflops
        return self.bf16_dense_tflops or self.fp16_dense_tflops

    @property
    def supports_bf16(self) -> bool:
        return self.bf16_dense_tflops > 0


class ModelShape(BaseModel):
    """A decoder's published shape; a bare size gets a generated one (advisor/engine/shapes.py)."""

    model_config = ConfigDict(extra="allow", frozen=True)
    name: str
    display: str
    aliases: list[str] = Field(default_factory=list)
    family: str = "generic"
    architecture: str = "decoder"
    params_b: float
    active_params_b: float
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn_hidden: int
    ffn_type: str = "swiglu"
    vocab: int
    tied_embeddings: bool = False
    attention_bias: bool = False
    # An RMSNorm on each query and key head before RoPE (Qwen3Attention's q_norm/k_norm,
    # Gemma3Attention's): element-wise work, and kernels an HF forward launches.
    qk_norm: bool = False
    mlp_bias: bool = False
    norm: str = "rmsnorm"
    position: str = "rope"
    max_seq: int = 4096
    moe_experts: int = 0
    moe_top_k: int = 0
    moe_shared_experts: int = 0
    moe_ffn_hidden: int = 0
    moe_dense_layers: int = 0
    mla_q_lora_rank: int = 0
    mla_kv_lora_rank: int = 0
    mla_qk_nope_head_dim: int = 0
    mla_qk_rope_head_dim: int = 0
    mla_v_head_dim: int = 0
    extra_params_b: float = 0.0
    # Layers whose queries see only a local span of keys (data/models.toml header): a sliding
    # window of the last `local_attention_span` tokens (GPT-OSS, Gemma 3) or the causal part of
    # a fixed chunk of that many (Llama 4's chunked attention); the other layers see the whole
    # sequence.
    local_attention_layers: int = 0
    local_attention_span: int = 0
    local_attention_kind: Literal["sliding", "chunked"] = "sliding"
    # Hybrid models whose other layers are linear attention (Qwen3-Next and Qwen3.5: Gated
    # DeltaNet, transformers' Qwen3NextGatedDeltaNet; Kimi Linear: Kimi Delta Attention, "kda",
    # its decay per channel and its output gate low-rank, beside MLA layers; MiniMax-M1 and
    # Text-01: lightning attention, "lightning", a fixed decay a head and no delta rule): a recurrent state of
    # key x value width per value head instead of a KV cache, so their work per token does not grow
    # with the sequence.
    # The softmax layers keep heads/kv_heads/head_dim; with `full_attention_gated` their query
    # projection is twice as wide (a same-size sigmoid output gate: attn_output_gate). Counted:
    # parameters, projections and the core's work by layer kind; activations a layer keeps are
    # counted at the softmax layers' widths (assumed: a linear layer keeps q, k, v, its gate and
    # one state a chunk, of the same order).
    linear_attention_layers: int = 0
    # Mamba-2 layers ("mamba2": IBM Granite 4.0 H) are written in the same fields: the config's
    # mamba_n_heads and mamba_d_head as the value heads and their width, mamba_n_groups and
    # mamba_d_state as the key heads and their width (B and C are a group's state-wide key and
    # query), mamba_d_conv as the convolution.
    linear_attention_kind: Literal["gated_deltanet", "kda", "lightning", "mamba2"] = "gated_deltanet"
    linear_key_heads: int = 0
    linear_value_heads: int = 0
    linear_key_head_dim: int = 0
    linear_value_head_dim: int = 0
    linear_conv_kernel: int = 0
    full_attention_gated: bool = False
    as_of: str = ""
    unverified: list[str] = Field(default_factory=list)
    notes: str = ""
    sources: list[Source] = Field(default_factory=list)
    generated: bool = False

    @property
    def is_moe(self) -> bool:
        return self.moe_experts > 0

    @property
    def uses_mla(self) -> bool:
        return self.mla_kv_lora_rank > 0

    @property
    def unequal_head_dims(self) -> bool:
        """Whether queries and keys are wider than values (MLA's 128 + 64 against 128)."""
        return self.uses_mla and self.mla_qk_nope_head_dim + self.mla_qk_rope_head_dim != self.mla_v_head_dim

    @property
    def linear_share(self) -> float:
        """The share of the layers that are linear attention (0 for a plain transformer)."""
        return self.linear_attention_layers / self.layers

    def linear_core_flops(self) -> float:
        """Forward FLOPs a token costs one linear-attention layer's core (all heads).

        Chunkwise Gated DeltaNet (Yang, Kautz, Hatamizadeh, "Gated Delta Networks", ICLR 2025,
        after DeltaNet's chunkwise form, Yang et al. 2024, arXiv 2406.06484, Sec 3.3): per chunk
        of C tokens and value head, the products K Kᵀ, T·K, T·V, Q Kᵀ and the masked scores times
        the corrected values are C x C by C x d (C·(3dk + 2dv) multiply-adds a token), and Q·S,
        W·S and the state update Kᵀ U are d x d (3·dk·dv a token): 2·(3·dk·dv + C·(3dk + 2dv))
        FLOPs (the count is ours, from those products: the papers give O(LCd + Ld²)). C = 64,
        the chunk of flash-linear-attention's chunk_gated_delta_rule (chunk_size=64) and of
        transformers' torch_chunk_gated_delta_rule. Key heads are repeated to the value heads.
        Kimi Delta Attention (fla's chunk_kda) is counted with the same products: its decay is a
        vector a channel instead of a scalar a head, applied elementwise inside the chunk (assumed:
        no further matrix products of the same order).

        Lightning attention (Qin et al., "Lightning Attention-2", arXiv 2401.04658, its tiling in
        blocks of B tokens) has no delta rule: inside a block the scores Q Kᵀ and their product
        with V (B·(dk + dv) multiply-adds a token), across blocks Q·KV and the state's update
        Kᵀ V (2·dk·dv): 2·(2·dk·dv + B·(dk + dv)) FLOPs, B = LIGHTNING_BLOCK.

        Mamba-2's chunked scan (Dao and Gu, "Transformers are SSMs", arXiv 2405.21060, Sec 6, the
        SSD algorithm in chunks of Q tokens): inside a chunk C Bᵀ, once a group (Q·N multiply-adds
        a token), and its masked product with X (Q·P a head); each chunk's state Bᵀ X and the
        output read from the state carried in, C·h (N·P a head each): 2·(G·Q·N + H·(Q·P + 2·N·P))
        FLOPs a token, with state N, head width P, G groups and H heads; Q = MAMBA2_CHUNK."""
        dk, dv = self.linear_key_head_dim, self.linear_value_head_dim
        if self.linear_attention_kind == "mamba2":
            q = MAMBA2_CHUNK
            return 2 * (self.linear_key_heads * q * dk + self.linear_value_heads * (q * dv + 2 * dk * dv))
        if self.linear_attention_kind == "lightning":
            return self.linear_value_heads * 2 * (2 * dk * dv + LIGHTNING_BLOCK * (dk + dv))
        return self.linear_value_heads * 2 * (3 * dk * dv + LINEAR_ATTENTION_CHUNK * (3 * dk + 2 * dv))

    def mean_keys(self, seq: int) -> float:
        """Keys a query attends to, averaged over the layers and the positions of a causal
        sequence of `seq` tokens: (seq + 1) / 2 with full attention; with a sliding window w,
        min(i, w) at position i, w - w(w - 1) / 2seq on average once seq >= w; in chunks of c,
        (c + 1) / 2 when seq fills whole chunks. A linear-attention layer counts as the keys
        whose scores and values cost what its core does (`linear_core_flops`; 4 FLOPs a key per
        query dimension: QKᵀ and AV)."""
        if self.linear_attention_layers:
            linear = self.linear_core_flops() / (4 * self.heads * self.head_dim)
            return self.linear_share * linear + (1 - self.linear_share) * (seq + 1) / 2
        full = (seq + 1) / 2
        span = self.local_attention_span
        if not self.local_attention_layers or not span or span >= seq:
            return full
        if self.local_attention_kind == "chunked":
            whole, rest = divmod(seq, span)
            local = (whole * span * (span + 1) / 2 + rest * (rest + 1) / 2) / seq
        else:
            local = span - span * (span - 1) / (2 * seq)
        share = self.local_attention_layers / self.layers
        return share * local + (1 - share) * full

    def attention_share(self, seq: int) -> float:
        """The attention core's work against full causal attention over `seq` tokens (1 without
        local layers)."""
        return self.mean_keys(seq) / ((seq + 1) / 2)
