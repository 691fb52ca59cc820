"""Gradient accumulation as HF Trainer and NeMo's tables state it (`ga 8`, `gradient accumulation
8`, `梯度累积8`): each data-parallel rank runs that many micro-batches a step, so the global
batch is dp x mbs x ga; with a global batch too, the micro-batch follows from both."""

import pytest

from advisor import catalog
from advisor.cli import main
from advisor.engine.estimate import best_layout
from advisor.planning.advice import advise_request
from advisor.planning.engine_inputs import layout_problem, model_shape, training_setup
from advisor.request.parser import RequestError, parse

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


@pytest.mark.parametrize(
    "text, reason",
    [
        # both fix the batch only over a known number of ranks
        ("7B lora 10GB 3d gbs 64 ga 4", "batch_accum_count"),
        # 1536 / (8 data-parallel ranks x 4) is 48 sequences a micro-batch, not the 1 asked
        (
            "llama3.1-405b pretrain 1T tokens seq 8192 mbs 1 gbs 1536 tp 8 pp 8 cp 2 vpp 8 zero1 fp8 ga 4 on 1024xH100",
            "batch_ranks",
        ),
    ],
)
def test_a_batch_the_layout_cannot_make_is_refused_with_why(capsys, book, text, reason):
    assert main(["ask", text]) == 2
    out = capsys.readouterr()
    assert "internal error" not in out.err and "`ga 4` alone" in out.err
    with pytest.raises(RequestError) as refused:
        advise_request(parse(text), book)
    assert refused.value.details["reason"] == reason


def test_a_table_row_with_its_accumulation_is_planned_as_stated():
    # NeMo 25.11's Llama 3 70B row: GBS 128, MBS 1, TP 4, PP 8, VP 5, GA 64 on 64 H100
    lay = _plan("llama3-70b pretrain 1T tokens seq 8192 mbs 1 gbs 128 tp 4 pp 8 vpp 5 zero1 fp8 ga 64", 64)
    assert (lay.dp, lay.micro_batch, lay.microbatches_per_step, lay.global_batch) == (2, 1, 64, 128)


@pytest.mark.parametrize(
    "text, count",
    [("qwen3-235b-a22b sft 50M tokens gbs 128", None), ("7b full-finetune 1GB gbs 96 on 24xH800", 24)],
)
def test_a_global_batch_is_whole_micro_batches_on_every_data_parallel_rank(book, text, count):
    out = advise_request(parse(text), book).to_json()["plan"]
    assert count in (None, out["gpu_count"])
    assert out["global_batch"] % (out["dp"] * out["micro_batch"]) == 0


def test_a_global_batch_no_split_divides_is_refused_with_why(capsys, book):
    text = "7b full-finetune 1GB gbs 100 on 24xH800"
    assert main(["ask", text]) == 2
    out = capsys.readouterr()
    assert "internal error" not in out.err and "`gbs 100` leaves no whole micro-batch on 24 GPUs" in out.err
    with pytest.raises(RequestError) as refused:
        advise_request(parse(text), book)
    assert refused.value.details["reason"] == "batch_split"
