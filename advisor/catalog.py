"""GPU and model catalogs, loaded from data/gpus.toml and data/models.toml.

Each entry carries its sources and the fields that could not be confirmed (`unverified`);
tests/test_catalogs.py checks units and that every entry names a source.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache

from pydantic import BaseModel, ConfigDict, Field

from advisor.resources import data_dir


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
    as_of: str
    unverified: list[str] = Field(default_factory=list)
    notes: str = ""
    sources: list[Source]

    def peak_tflops(self, precision: str) -> float:
        """Dense tensor-core peak for the compute precision of training."""
        if precision == "fp8" and self.fp8_dense_tflops > 0:
            return self.fp8_dense_tflops
        if precision == "fp32":
            return self.tf32_dense_tflops or self.fp32_tflops
        if precision == "fp16":
            return self.fp16_dense_tflops
        return self.bf16_dense_tflops or self.fp16_dense_tflops

    @property
    def supports_bf16(self) -> bool:
        return self.bf16_dense_tflops > 0


class ModelShape(BaseModel):
    """A decoder's published shape; a bare size gets a generated one (advisor/shapes.py)."""

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


def normalize_name(text: str) -> str:
    """Spelling-insensitive key: case, spaces, dashes and underscores do not matter."""
    return re.sub(r"[\s_\-]+", "", text.lower())


def _load(filename: str) -> dict:
    with open(data_dir() / filename, "rb") as fh:
        return tomllib.load(fh)


@cache
def gpus() -> tuple[GPU, ...]:
    return tuple(GPU(**row) for row in _load("gpus.toml")["gpu"])


@cache
def models() -> tuple[ModelShape, ...]:
    return tuple(
        ModelShape(**row) for row in _load("models.toml")["model"]
    )


def _index(items) -> dict:
    """Every name and alias, spelling-insensitive, to its entry."""
    return {normalize_name(key): item for item in items for key in [item.name, *item.aliases]}


def _spellings(items) -> list[str]:
    """Every name and alias users may type, longest first (for the request parser)."""
    return sorted({key for item in items for key in [item.name, *item.aliases]}, key=lambda s: (-len(s), s))


@cache
def _gpu_index() -> dict[str, GPU]:
    return _index(gpus())


@cache
def _model_index() -> dict[str, ModelShape]:
    return _index(models())


def find_gpu(name: str) -> GPU | None:
    return _gpu_index().get(normalize_name(name))


def get_gpu(name: str) -> GPU:
    gpu = find_gpu(name)
    if gpu is None:
        raise KeyError(name)
    return gpu


def find_model(name: str) -> ModelShape | None:
    return _model_index().get(normalize_name(name))


def gpu_spellings() -> list[str]:
    return _spellings(gpus())


def model_spellings() -> list[str]:
    return _spellings(models())
