"""Memory and time arithmetic, checked against the papers' own numbers and the calibration set."""

import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from advisor import catalog
from advisor.engine.estimate import best_layout, estimate_for, parallel_splits
from advisor.engine.layout import ModelSplit, sequence_multiple
from advisor.engine.memory import estimate_memory
from advisor.engine.setup import PinnedKnobs
from advisor.engine.shapes import count_params, generic_shape
from advisor.engine.throughput import flops_per_token
from advisor.planning.engine_inputs import model_shape, training_setup
from advisor.request.parser import parse

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from cases import MEMORY_CASES, TIME_CASES  # noqa: E402


def _mem(text, **layout):
    req = parse(text)
    gpu = catalog.get_gpu(req.gpu)
    lay = ModelSplit(
        gpu=gpu.name,
        gpu_count=req.gpu_count or 1,
        gpus_per_node=min(8, req.gpu_count or 1),
        nodes=max(1, (req.gpu_count or 1) // 8),
        **layout,
    )
    return estimate_memory(model_shape(req), training_setup(req), lay, gpu), model_shape(req)


def _estimate(req):
    """The request's GPU type, at its count or the smallest that fits and meets its deadline."""
    return estimate_for(
        model_shape(req), training_setup(req), catalog.get_gpu(req.gpu), req.gpu_count, req.deadline_days
    )


def test_mixed_precision_adamw_is_16_bytes_per_parameter():
    mem, shape = _mem("llama3.1-8b sft on 1xH100", zero_stage=0)
    total = count_params(shape).total
    states = (mem.weights + mem.gradients + mem.optimizer) * 2**30
    assert states / total == pytest.approx(16, rel=0.001)


def test_zero_stages_shard_what_the_zero_paper_says():
    z1, shape = _mem("llama3.1-8b sft on 8xH100", dp=8, zero_stage=1)
    z2, _ = _mem("llama3.1-8b sft on 8xH100", dp=8, zero_stage=2)
    z3, _ = _mem("llama3.1-8b sft on 8xH100", dp=8, zero_stage=3)
    n = count_params(shape).total / 2**30
    assert z1.optimizer == pytest.approx(12 * n / 8) and z1.gradients == pytest.approx(2 * n)
    assert z2.gradients == pytest.approx(2 * n / 8) and z2.weights == pytest.approx(2 * n)
    assert z3.weights == pytest.approx(2 * n / 8)


def test_qlora_base_is_nf4_with_double_quantisation():
    q, shape = _mem("llama3.1-8b qlora on 1x4090")
    c = count_params(shape)
    # QLoRA (Dettmers et al. 2023): the frozen linear weights in NF4, 4 bits plus 0.127 bits of
    # double-quantised constants each; embeddings and norms stay bf16; the adapters are fp32.
    linear = c.dense_layers * (c.attention_per_layer + c.dense_mlp_per_layer)
    expected = linear * 4.127 / 8 + (c.total - linear) * 2 + q.trainable_params * 4
    assert q.weights * 2**30 == pytest.approx(expected, rel=0.001)
    lo, _ = _mem("llama3.1-8b lora on 1x4090")
    assert q.weights < lo.weights / 2.5


def test_recompute_and_micro_batch_move_activations_the_right_way():
    # the loss in chunks, so that the layers' activations dominate
    none, _ = _mem("llama3.1-8b sft chunked-loss on 1xH100", recompute="none", micro_batch=4)
    full, _ = _mem("llama3.1-8b sft chunked-loss on 1xH100", recompute="full", micro_batch=4)
    small, _ = _mem("llama3.1-8b sft chunked-loss on 1xH100", recompute="none", micro_batch=1)
    assert full.activations < none.activations / 5
    assert small.activations < none.activations


def test_offload_moves_optimizer_to_host():
    mem, shape = _mem("llama3.1-8b sft on 1xH100", offload="optimizer")
    assert mem.optimizer == 0 and mem.host_ram_gib > 12 * count_params(shape).total / 2**30


def test_flops_are_6nd_plus_attention_and_lora_skips_weight_gradients():
    req = parse("llama3.1-8b sft seq 4096 on 1xH100")
    shape = model_shape(req)
    model, hw, attention = flops_per_token(shape, training_setup(req), "full")
    n = count_params(shape).total - count_params(shape).embedding
    assert model == pytest.approx(6 * n + 12 * 32 * 4096 * 4096)
    assert hw == pytest.approx(model + 2 * n + 4 * 32 * 4096 * 4096)
    assert attention == pytest.approx(12 * 32 * 4096 * 4096)  # over the whole sequence, as PaLM's MFU
    lora_model, _, _ = flops_per_token(shape, training_setup(parse("llama3.1-8b lora seq 4096 on 1xH100")), "none")
    assert lora_model == pytest.approx(4 * n + 12 * 32 * 4096 * 4096)


def test_generic_shape_matches_requested_size():
    for size in (0.5, 7, 13, 70, 405):
        assert generic_shape(size).params_b == pytest.approx(size, rel=0.03)
    moe = generic_shape(671, 37)
    assert moe.params_b == pytest.approx(671, rel=0.03) and moe.active_params_b == pytest.approx(37, rel=0.05)


def test_a_bare_mixture_is_shaped_like_the_published_ones_of_its_active_size():
    """A mixture is narrower and deeper than a dense model of its active size: a bare 30B-A3B
    takes Qwen3-30B-A3B's 2048 hidden size and about as many layers (48 published), and every
    catalogued fine-grained mixture (experts under half the hidden size) has its depth met within
    a factor of 2.1 (GLM-4.5's 92 layers at 33.6B active are the deepest). A bare 30B-A3B had
    been 17 layers of 3072, 2.5 times too shallow, planned twice as fast as the named model."""
    bare, named = generic_shape(30.5, 3.3), catalog.find_model("qwen3-30b-a3b")
    assert bare.hidden == named.hidden and 0.75 * named.layers <= bare.layers <= named.layers
    assert bare.params_b == pytest.approx(30.5, rel=0.05) and bare.active_params_b == pytest.approx(3.3, rel=0.05)
    # (a generic shape is a transformer: Granite 4.0 H-Tiny's 40 narrow layers, 36 of them Mamba-2,
    # at 1.47B active are no transformer's depth, and are not held to it)
    fine = [
        m
        for m in catalog.models()
        if m.moe_experts and m.moe_ffn_hidden <= m.hidden / 2 and m.linear_attention_kind != "mamba2"
    ]
    assert len(fine) >= 8
    for m in fine:
        g = generic_shape(m.params_b, m.active_params_b)
        assert m.layers / 2.1 <= g.layers <= 2.1 * m.layers, (m.name, g.layers, m.layers)


def test_layout_respects_physical_rules():
    req = parse("70B sft 100GB on 32xH800")
    est = best_layout(model_shape(req), training_setup(req), catalog.get_gpu("H800"), 32)
    lay = est.layout
    assert lay.tp <= 8 and lay.tp * lay.pp * lay.dp == 32 and est.fits
    rtx = parse("7b lora 1GB on 4x4090")
    est = best_layout(model_shape(rtx), training_setup(rtx), catalog.get_gpu("4090"), 4)
    assert est.layout.tp == 1  # no NVLink: no tensor parallel


def test_only_the_knobs_the_user_typed_are_pinned_and_the_search_keeps_them():
    free = parse("70B sft 100GB on 32xH800")
    assert training_setup(free).pinned == PinnedKnobs()
    req = parse("70B qlora r=8 seq 2048 mbs 2 on 2xA100-40GB zero3 recompute full")
    setup = training_setup(req)
    assert setup.pinned == PinnedKnobs(zero_stage=3, recompute="full", micro_batch=2)
    assert (setup.method, setup.lora_rank, setup.seq_len) == ("qlora", 8, 2048)
    lay = best_layout(model_shape(req), setup, catalog.get_gpu(req.gpu), 2).layout
    assert (lay.zero_stage, lay.recompute, lay.micro_batch, lay.offload) == (3, "full", 2, "none")


def test_parallel_splits_divide_the_gpus_and_shard_only_with_data_parallel():
    req = parse("70B sft 100GB on 16xH800")
    gpu = catalog.get_gpu("H800")
    splits = list(parallel_splits(model_shape(req), training_setup(req), gpu, 16))
    assert {s.tp for s in splits} == {1, 2, 4, 8}  # inside one 8-GPU NVLink domain
    for s in splits:
        assert s.tp * s.pp * s.dp == 16
        assert s.zero_stage == 0 if s.dp == 1 else s.zero_stage in (1, 3)


def test_the_search_splits_a_sequence_only_into_whole_chunks():
    """Sequence parallel splits the tokens over tp, load-balanced context parallel into 2 x cp
    chunks (layout.sequence_multiple): 4,100 tokens split over tp 4 (1,025 each), not over 8."""
    gpu = catalog.get_gpu("H800")
    req = parse("70B sft 100GB on 16xH800 seq 4100")
    assert {s.tp for s in parallel_splits(model_shape(req), training_setup(req), gpu, 16)} == {1, 2, 4}
    # cp 2 at 4,100 tokens: 4 chunks of 1,025, each GPU's 2,050 tokens split over tp 2 only
    setup = training_setup(req).model_copy(update={"pinned": PinnedKnobs(cp=2)})
    assert {s.tp for s in parallel_splits(model_shape(req), setup, gpu, 16)} == {1, 2}
    assert sequence_multiple(1, 1) == 1 and sequence_multiple(4, 1) == 8 and sequence_multiple(4, 8) == 32
    assert sequence_multiple(3, 2) == 6 and sequence_multiple(1, 8) == 8


def test_a_sequence_past_the_models_published_context_is_flagged():
    """Llama 2 was released with 4,096 tokens of context (data/models.toml max_seq): a 32K
    sequence is planned, and the estimate says it is beyond what the model was trained on; a
    bare size has no published context, so nothing is said."""
    gpu = catalog.get_gpu("H100")
    long = parse("llama2-7b full-finetune 1B tokens on 8xH100 seq 32768")
    assert "seq_beyond_context" in best_layout(model_shape(long), training_setup(long), gpu, 8).checks
    short = parse("llama2-7b full-finetune 1B tokens on 8xH100 seq 4096")
    assert "seq_beyond_context" not in best_layout(model_shape(short), training_setup(short), gpu, 8).checks
    bare = parse("7B full-finetune 1B tokens on 8xH100 seq 262144")
    assert "seq_beyond_context" not in best_layout(model_shape(bare), training_setup(bare), gpu, 8).checks


def test_parameter_counts_follow_every_field_of_the_shape():
    shape = catalog.find_model("llama3.1-8b")
    wider_vocab = shape.model_copy(update={"vocab": 2 * shape.vocab})
    assert count_params(wider_vocab).embedding == 2 * count_params(shape).embedding


def test_engine_imports_no_request_catalogue_market_text_bot_or_io():
    code = (
        "import sys, advisor.engine.estimate; print(sorted(m for m in sys.modules if m.startswith(("
        "'advisor.request', 'advisor.catalog', 'advisor.market', 'advisor.text', 'advisor.planning', "
        "'bot', 'sqlite3', 'sqlite_utils', 'jinja2', 'advisor.resources'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert out.stdout.strip() == "[]"


def test_type_without_count_gets_the_smallest_count_that_fits_and_meets_the_deadline():
    req = parse("70B sft 10GB 7d on H800")
    est = _estimate(req)
    assert est.fits and est.days <= 7
    smaller = best_layout(model_shape(req), training_setup(req), catalog.get_gpu("H800"), est.layout.gpu_count // 2)
    assert not smaller.fits or smaller.days > 7


def _err(pred, meas):
    return abs(pred - meas) / meas


def test_calibration_memory_within_targets():
    errors = []
    for case in MEMORY_CASES:
        est = _estimate(parse(case.request))
        gib = est.memory.allocated if case.reading == "torch" else est.memory.total
        errors.append(_err(gib * 2**30 / 1e9, case.measured_gb))
    assert statistics.median(errors) <= 0.15 and max(errors) < 1.0


def test_calibration_time_never_off_by_2x():
    for case in TIME_CASES:
        req = parse(case.request)
        gpu = catalog.get_gpu(req.gpu)
        est = _estimate(req)
        t = est.throughput
        checks = [
            (est.gpu_hours, case.gpu_hours),
            (est.days, case.days),
            (t.tokens_per_s_per_gpu, case.tokens_per_s_per_gpu),
            (t.mfu, case.mfu),
            (t.hfu * gpu.peak_tflops(req.precision), case.hw_tflops),
        ]
        for pred, meas in checks:
            if meas is not None:
                assert 0.5 < pred / meas < 2, (case.row, pred, meas)


def test_held_out_published_runs_generalise():
    """Runs outside the calibration set (never used to fit): hardware given, median GPU-hours
    error <= 20%, each within 2.5x (Llama 3.1 8B's published hours cover more than the
    pre-training the request asks for); asked as open requests for the GPU type (the engine
    chooses count and layout), median <= 25% (issue #14's target); DeepSeek-V3 from its size
    alone within 1.5x."""
    from accuracy import ours_open
    from cases import HELD_OUT

    given, asked_open = {}, []
    for case in HELD_OUT:
        est = _estimate(parse(case.request))
        given[case.row] = est.gpu_hours / case.gpu_hours
        opened = ours_open(case)
        if opened is not None:
            asked_open.append(abs(opened / case.gpu_hours - 1))
    assert statistics.median(abs(r - 1) for r in given.values()) <= 0.20
    # Llama 3.1 8B's card counts all of its training (about 3x the pre-training asked here).
    assert all(0.33 < r < 2.5 for r in given.values()), given
    assert 1 / 1.5 < given["DeepSeek-V3 from its size alone"] < 1.5
    assert len(asked_open) >= 6 and statistics.median(asked_open) <= 0.25


def test_kept_searches_answer_each_question_as_a_fresh_search_would():
    """Searches are kept per model, setup, GPU and count (estimate.SEARCHES_KEPT): asking again
    gives the same answer, and questions that differ in one knob or one GPU spec are not confused."""
    from advisor.engine import estimate

    req = parse("13b full-finetune 20B tokens on 8xH100 bf16")
    m, setup, gpu = model_shape(req), training_setup(req), catalog.get_gpu(req.gpu)
    first = best_layout(m, setup, gpu, 8)
    assert best_layout(model_shape(req), training_setup(req), catalog.get_gpu(req.gpu), 8) is first
    pinned = parse("13b full-finetune 20B tokens on 8xH100 bf16 tp 8")
    assert best_layout(model_shape(pinned), training_setup(pinned), gpu, 8).layout.tp == 8
    assert first.layout.tp != 8
    smaller = gpu.model_copy(update={"memory_gb": 40.0, "usable_memory_gib": 36.0})
    estimate._best_layout.cache_clear()
    fresh_small = best_layout(m, setup, smaller, 8)
    assert best_layout(m, setup, gpu, 8).memory.total == first.memory.total
    assert best_layout(m, setup, smaller, 8) is fresh_small
    assert fresh_small.layout != first.layout or fresh_small.fits != first.fits
