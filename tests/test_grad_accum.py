"""Gradient accumulation as HF Trainer and NeMo's tables state it (`ga 8`, `gradient accumulation
8`, `梯度累积8`): each data-parallel rank runs that many micro-batches a step, so the global
batch is dp x mbs x ga; with a global batch too, the micro-batch follows from both."""

import pytest

from advisor import catalog
from advisor.cli import main
from advisor.engine.estimate import best_layout
from advisor.planning.engine_inputs import layout_problem, model_shape, training_setup
from advisor.request.parser import parse

H100 = catalog.get_gpu("H100")


def _plan(text: str, count: int):
    req = parse(text)
    return best_layout(model_shape(req), training_setup(req), H100, count).layout


@pytest.mark.parametrize(
    "text",
    [
        "7B lora 10GB 3d per device batch size 4 gradient accumulation 8",
        "7B lora 10GB 3d mbs 4 ga 8",
        "7B lora 10GB 3天 单卡批大小4 梯度累积8",
        "7B lora 10GB 3d per_device_train_batch_size=4 gradient_accumulation_steps=8",
    ],
)
def test_hf_style_batch_words_read_as_micro_batch_and_accumulation(text):
    req = parse(text)
    assert (req.micro_batch, req.grad_accum, req.global_batch) == (4, 8, None)


def test_the_global_batch_is_ranks_times_micro_batch_times_accumulation():
    lay = _plan("llama3.1-8b full-finetune 10GB 3d mbs 2 ga 4 tp 1 pp 1", 8)
    assert (lay.dp, lay.micro_batch, lay.microbatches_per_step) == (8, 2, 4)
    assert lay.global_batch == 8 * 2 * 4


def test_a_global_batch_and_an_accumulation_fix_the_micro_batch():
    # 64 sequences, 4 micro-batches a step: on 8 data-parallel ranks, micro-batches of 2
    lay = _plan("llama3.1-8b lora 10GB 3d gbs 64 ga 4 tp 1 pp 1", 8)
    assert (lay.global_batch, lay.micro_batch, lay.microbatches_per_step) == (64, 2, 4)


def test_too_few_micro_batches_for_a_pipeline_are_not_planned_on_one():
    # 2 micro-batches a step cannot fill pipeline stages (the search keeps 4 a stage)
    lay = _plan("llama3.1-70b full-finetune 10GB 3d ga 2", 64)
    assert lay.pp == 1 and lay.microbatches_per_step == 2


def test_a_global_batch_the_accumulation_does_not_divide_is_refused_with_why(capsys):
    assert layout_problem(parse("7B lora 10GB 3d gbs 61 ga 4")) == ("batch_accum", {"gbs": 61, "ga": 4, "mbs": 1})
    assert main(["ask", "7B lora 10GB 3d gbs 61 ga 4"]) == 2
    out = capsys.readouterr()
    assert "multiple of 4" in out.out + out.err
