"""From a parsed request to the engine's inputs: the model's shape and the training setup.

The engine never sees the request (budget, city, language, text) nor reads the catalogue.
"""

from __future__ import annotations

from advisor import catalog
from advisor.engine.setup import DEFAULT_LORA_RANK, DEFAULT_LORA_TARGETS, PinnedKnobs, TrainingSetup
from advisor.engine.shapes import generic_shape
from advisor.engine.specs import ModelShape
from advisor.request.model import TrainingRequest


def model_shape(request: TrainingRequest) -> ModelShape:
    """The catalogued shape of a named model; a generated one for a bare size."""
    if request.model:
        return catalog.find_model(request.model)
    return generic_shape(request.params_b, request.active_params_b)


def training_setup(request: TrainingRequest) -> TrainingSetup:
    pinned = PinnedKnobs(
        # Only what the user typed is pinned: offload "none" is the request's default, not a choice.
        zero_stage=request.zero_stage if request.given("zero_stage") else None,
        offload=request.offload if request.given("offload") else None,
        recompute=request.recompute,
        micro_batch=request.micro_batch or None,
    )
    return TrainingSetup(
        method=request.method,
        precision=request.precision,
        optimizer=request.optimizer,
        lora_rank=request.lora_rank or DEFAULT_LORA_RANK,
        lora_targets=request.lora_targets or DEFAULT_LORA_TARGETS,
        opt_in_backward=request.opt_in_backward,
        seq_len=request.seq_len,
        global_batch=request.global_batch or None,
        tokens=request.tokens,
        pinned=pinned,
    )
