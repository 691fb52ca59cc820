"""GPU and model catalogs, loaded from data/gpus.toml and data/models.toml.

Each entry carries its sources and the fields that could not be confirmed (`unverified`);
tests/test_catalogs.py checks units and that every entry names a source.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache

from pydantic import BaseModel

from advisor.engine.specs import GPU, ModelShape, Source
from advisor.resources import data_dir

__all__ = [
    "GPU",
    "Instance",
    "ModelShape",
    "Source",
    "find_gpu",
    "find_model",
    "get_gpu",
    "gpu_spellings",
    "gpus",
    "instances",
    "model_spellings",
    "models",
    "normalize_name",
]


def normalize_name(text: str) -> str:
    """Spelling-insensitive key: case, spaces, dashes and underscores do not matter, except an
    underscore between digits, a decimal point in a repository's name (`qwen2_5-7b` is Qwen2.5 7B:
    dropped, it had made `qwen2-57b`, a 57B MoE, read as that 7B dense model)."""
    return re.sub(r"[\s_\-]+", "", re.sub(r"(?<=\d)_(?=\d)", ".", text.lower()))


def _load(filename: str) -> dict:
    with open(data_dir() / filename, "rb") as fh:
        return tomllib.load(fh)


@cache
def gpus() -> tuple[GPU, ...]:
    return tuple(GPU(**row) for row in _load("gpus.toml")["gpu"])


def shortest_purchase_lead_weeks() -> int | None:
    """The shortest delivery published for any GPU server on record, in weeks (what a purchase of a
    part with no lead time of its own can be counted on for at best)."""
    return min((g.purchase_lead_weeks[0] for g in gpus() if g.purchase_lead_weeks), default=None)


class Instance(BaseModel):
    """A cloud instance type and the GPUs it holds (data/instances.toml)."""

    names: list[str]
    cloud: str
    gpu: str
    count: int
    source: str


@cache
def instances() -> tuple[Instance, ...]:
    return tuple(Instance(**row) for row in _load("instances.toml")["instance"])


@cache
def models() -> tuple[ModelShape, ...]:
    return tuple(ModelShape(**row) for row in _load("models.toml")["model"])


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


@cache
def software(key: str) -> dict:
    """A software support fact of data/software.toml (status, since, source, as_of)."""
    return _load("software.toml")[key]
