"""Fine-tuning a mixture of experts: the frozen experts under ZeRO-3 are sharded over the ranks
that hold them, and a small data set's batch rule does not leave a model that fits unplanned."""

import pytest

from advisor import catalog
from advisor.engine.estimate import best_layout
from advisor.engine.memory import FROZEN_BYTES, GIB, NF4_BYTES
from advisor.engine.shapes import count_params
from advisor.planning.advice import advise
from advisor.planning.engine_inputs import model_shape, training_setup
from advisor.request.parser import parse


def _at(text):
    req = parse(text)
    est = best_layout(model_shape(req), training_setup(req), catalog.get_gpu(req.gpu), req.gpu_count)
    return req, est


def test_lora_experts_under_zero3_are_sharded_over_the_ranks_that_hold_them():
    # GLM-4.5 on 16 GPUs, dp 16 x ep 8: each expert sits on 2 of them (dp / ep), the dense part on
    # all 16, so the frozen base is 1/16 of the model on each: 353B x 2 bytes / 16, not / 128
    req, est = _at("glm-4.5 lora 100MB on 16xH20 ep 8 zero3 tp 1")
    lay = est.layout
    assert (lay.dp, lay.ep, lay.zero_stage, lay.expert_dp) == (16, 8, 3, 2)
    params = count_params(model_shape(req)).total
    frozen = params * FROZEN_BYTES / 16 / GIB
    assert est.memory.weights == pytest.approx(frozen, rel=0.03)


def test_qlora_experts_keep_four_bits_sharded_over_every_rank():
    # QLoRA runs data parallel only: with ZeRO-3 every rank holds a quarter of each expert, in NF4
    req, est = _at("qwen3-30b-a3b qlora 100MB on 4xH100 zero3")
    m = model_shape(req)
    assert (est.layout.dp, est.layout.zero_stage, est.layout.expert_dp) == (4, 3, 4)
    c = count_params(m)
    embeddings = c.embedding + c.output  # kept in bf16, not quantised
    expected = ((c.total - embeddings) * NF4_BYTES + embeddings * FROZEN_BYTES) / 4 / GIB
    assert est.memory.weights == pytest.approx(expected, rel=0.03)


def test_a_mixture_of_experts_that_fits_only_above_the_batch_rule_is_still_planned():
    # 10k samples leave a batch of a few sequences under the rule (1,000 steps): the data-parallel
    # ranks that shard Qwen3 235B's experts over 8 GPUs need more, and the plan says so
    req, est = _at("qwen3-235b-a22b lora 1万条 on 8xH800")
    assert est.fits and est.layout.ep == 8 and "batch_above_rule" in est.checks


def test_full_sft_of_a_large_moe_on_little_data_gets_a_plan(book):
    out = advise("qwen3-235b-a22b sft 50k samples 10d", book=book).to_json()
    assert out["plan"]["fits"] and out["plan"]["ep"] > 1
