"""Gradients reduced in bf16 (issue 22): Megatron-Core's main_grad buffer and the gradient
traffic at half of fp32's, tried by the search only where fp32 gradients do not fit, and said
in the request (`grads bf16`), the plan's JSON and the text answer."""

import json

import pytest

from advisor import catalog
from advisor.cli import main
from advisor.engine.estimate import best_layout, grad_reduce_levels
from advisor.engine.frameworks import FSDP2, MEGATRON
from advisor.engine.layout import ModelSplit
from advisor.engine.memory import GIB, estimate_memory, parameters_on_this_gpu
from advisor.engine.setup import PinnedKnobs, TrainingSetup
from advisor.engine.shapes import count_params
from advisor.engine.throughput import estimate_throughput
from advisor.planning.engine_inputs import model_shape, training_setup
from advisor.request.parser import parse

LLAMA70 = catalog.find_model("llama3-70b")
H100 = catalog.get_gpu("H100")
# Megatron-Bridge's Llama 3.1 405B FP8 recipe on 1,024 H100 (perf_recipes/llama/h100/llama31.py):
# TP8 x PP8 x CP2 x VP8, no recompute, gradients reduced in bf16.
LLAMA405_FP8 = "llama3.1-405b pretrain 1T tokens seq 8192 mbs 1 gbs 1536 tp 8 pp 8 cp 2 vpp 8 zero1 fp8 on 1024xH100"
# The same model on TP8 x PP16 without context parallelism: each GPU holds half the layers of the
# recipe's stage but all of a sequence's tokens; fp32 gradients leave no room but for full recompute.
LLAMA405_PP16 = "llama3.1-405b pretrain 1T tokens seq 8192 mbs 1 gbs 1536 tp 8 pp 16 zero1 fp8 on 1024xH100"


def _layout(**kw):
    base = dict(
        gpu=H100.name, gpu_count=64, gpus_per_node=8, nodes=8, tp=4, pp=4, dp=4, zero_stage=1, framework=MEGATRON
    )
    return ModelSplit(**(base | kw))


def _setup(**kw):
    return TrainingSetup(**(dict(method="pretrain", precision="bf16", seq_len=4096, tokens=1e12) | kw))


def test_megatron_main_grad_buffer_is_four_bytes_in_fp32_and_two_in_bf16():
    setup = _setup()
    here = parameters_on_this_gpu(count_params(LLAMA70), _layout()).total
    fp32 = estimate_memory(LLAMA70, setup, _layout(grad_reduce="fp32"), H100)
    bf16 = estimate_memory(LLAMA70, setup, _layout(grad_reduce="bf16"), H100)
    assert fp32.gradients * GIB == pytest.approx(here * 4)
    assert bf16.gradients * GIB == pytest.approx(here * 2)
    # nothing else moves
    assert (fp32.weights, fp32.optimizer, fp32.activations) == (bf16.weights, bf16.optimizer, bf16.activations)


def test_bf16_gradients_halve_the_gradient_reduce_scatter():
    # ZeRO-1 moves gradients (reduce-scatter) and weights (all-gather, 2 B) once a step: 4 + 2
    # bytes a parameter with fp32 gradients, 2 + 2 with bf16 ones.
    setup = _setup()
    fp32 = estimate_throughput(LLAMA70, setup, _layout(grad_reduce="fp32", global_batch=256), H100)
    bf16 = estimate_throughput(LLAMA70, setup, _layout(grad_reduce="bf16", global_batch=256), H100)
    assert bf16.step["data_s"] == pytest.approx(fp32.step["data_s"] * (2 + 2) / (4 + 2))


def test_the_search_tries_bf16_gradients_only_on_megatron_and_only_in_bf16_or_fp8():
    assert grad_reduce_levels(_setup(), MEGATRON) == ("fp32", "bf16")
    assert grad_reduce_levels(_setup(precision="fp8"), MEGATRON) == ("fp32", "bf16")
    assert grad_reduce_levels(_setup(), FSDP2) == ("fp32",)
    assert grad_reduce_levels(_setup(precision="fp16"), MEGATRON) == ("fp16",)
    assert grad_reduce_levels(_setup(pinned=PinnedKnobs(grad_reduce="fp32")), MEGATRON) == ("fp32",)


def test_a_layout_that_fits_with_fp32_gradients_keeps_them():
    # 70B on 64 H100 with TP4 x PP4: fp32 gradients fit, so bf16 is never chosen for speed alone
    req = parse("llama3-70b pretrain 1T tokens seq 4096 tp 4 pp 4 zero1 on 64xH100")
    est = best_layout(model_shape(req), training_setup(req), H100, 64)
    assert est.layout.grad_reduce == "fp32"


def test_bf16_gradients_spare_405b_fp8_the_mlp_recompute():
    # NVIDIA runs TP8 x PP8 x CP2 on bf16 gradients without recompute (perf_recipes/_common.py);
    # with fp32 gradients the layout fits only with Megatron's selective recompute of the MLP,
    # which runs its matmuls again: bf16 gradients are chosen for that
    req = parse(LLAMA405_FP8)
    est = best_layout(model_shape(req), training_setup(req), H100, 1024)
    assert (est.layout.grad_reduce, est.layout.recompute) == ("bf16", "none")
    kept = parse(LLAMA405_FP8 + " grads fp32")
    est32 = best_layout(model_shape(kept), training_setup(kept), H100, 1024)
    assert (est32.layout.grad_reduce, est32.layout.recompute, est32.layout.recompute_modules) == (
        "fp32",
        "selective",
        ("mlp",),
    )
    assert est.throughput.tokens_per_s_per_gpu > 1.15 * est32.throughput.tokens_per_s_per_gpu


def test_a_layout_whose_recompute_bf16_gradients_cannot_spare_keeps_fp32():
    # On PP16 bf16 gradients would not spare the MLP's recompute, so fp32 accumulation is kept
    req = parse(LLAMA405_PP16)
    est = best_layout(model_shape(req), training_setup(req), H100, 1024)
    assert (est.layout.grad_reduce, est.layout.recompute_modules) == ("fp32", ("mlp",))


@pytest.mark.parametrize(
    "text, value",
    [
        ("70B pretrain 1T tokens grads bf16", "bf16"),
        ("70B pretrain 1T tokens bf16 gradients fp8", "bf16"),
        ("70B pretrain 1T tokens grad-reduce fp32", "fp32"),
        ("70B 预训练 1T tokens 梯度规约bf16", "bf16"),
        ("70B 预训练 1T tokens bf16梯度", "bf16"),
        ("70B pretrain 1T tokens", None),
    ],
)
def test_the_gradient_dtype_is_read_apart_from_the_precision(text, value):
    req = parse(text)
    assert req.grad_reduce == value
    assert req.precision == ("fp8" if "fp8" in text else "bf16")


def test_the_answer_says_bf16_gradients_in_json_and_text(capsys):
    assert main(["ask", LLAMA405_FP8, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["plan"]["grad_reduce"] == "bf16"
    assert out["request"]["grad_reduce"] is None  # the planner's choice, not the user's
    assert main(["ask", LLAMA405_FP8]) == 0
    assert "gradients accumulated and reduced in bf16" in capsys.readouterr().out
    assert main(["ask", LLAMA405_FP8 + " lang zh"]) == 0
    assert "梯度以 bf16 累加和规约" in capsys.readouterr().out
