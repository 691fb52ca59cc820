"""Attention kernels: FlashAttention-2 runs attention at about half the speed of the kernels
written for Hopper and newer (FlashAttention-3, cuDNN), the same on Ampere; said in the request
(`attention fa2`, `flash_attention_2`), and where attention is a large share of a Hopper plan's
compute the answer says what FlashAttention-2 would cost."""

import json

import pytest

from advisor import catalog
from advisor.engine import roofline as rf
from advisor.engine.shapes import count_params
from advisor.request.parser import parse

H100, A100 = catalog.get_gpu("H100"), catalog.get_gpu("A100-80GB")
LONG = "llama3.1-8b pretrain 1B tokens seq 65536 on 8xH100"


def test_fa2_runs_attention_at_a_third_of_an_h100_and_as_before_on_an_a100():
    assert rf.attention_efficiency(H100, "fa2") == (0.33, 0.24)
    assert rf.attention_efficiency(H100, "best") == (rf.ETA_ATTN_FWD, rf.ETA_ATTN_BWD)
    assert rf.attention_efficiency(A100, "fa2") == rf.attention_efficiency(A100, "best")


def test_fa2_time_factor_is_the_attention_share_times_the_kernels_ratio():
    # forward plus a 2.5x backward: (1/0.33 + 2.5/0.24) / (1/0.6 + 2.5/0.45) = 13.45 / 7.22
    ratio = (1 / 0.33 + 2.5 / 0.24) / (1 / 0.6 + 2.5 / 0.45)
    assert ratio == pytest.approx(1.862, abs=1e-3)
    assert rf.fa2_time_factor(H100, 0.5) == pytest.approx(1 + 0.5 * (ratio - 1))
    assert rf.fa2_time_factor(A100, 0.5) == 1.0


def test_only_the_attention_core_slows_on_fa2():
    m = catalog.find_model("llama3.1-8b")
    kw = dict(precision="bf16", method="pretrain", lora_rank=16, lora_targets="all", seq=32768, micro_batch=1,
              tp=1, pp=1, ep=1, etp=1, cp=1, recompute="none", optimizer_params=1e9)  # fmt: skip
    best = rf.stage_time(m, count_params(m), H100, attention="best", **kw)
    fa2 = rf.stage_time(m, count_params(m), H100, attention="fa2", **kw)
    assert (fa2.gemm_s, fa2.memory_s) == (best.gemm_s, best.memory_s)
    assert fa2.attention_s / best.attention_s == pytest.approx(1.862, abs=1e-3)


@pytest.mark.parametrize(
    ("text", "kernel"),
    [
        ("llama3-8b lora 1GB 1d attention fa2", "fa2"),
        ("llama3-8b lora 1GB 1d flash_attention_2", "fa2"),
        ("llama3-8b lora 1GB 1d flash-attn 2", "fa2"),
        ("llama3-8b lora 1GB 1d attention cudnn", "fa3"),
        ("llama3-8b lora 1GB 1d fa3", "fa3"),
        ("llama3-8b 微调 lora 1GB 1天 注意力fa2", "fa2"),
        ("llama3-8b lora 1GB 1d", None),
    ],
)
def test_the_request_names_its_attention_kernels(text, kernel):
    assert parse(text).attention == kernel


def _ask(cli, text):
    out = cli("ask", "--json", text)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_a_long_sequence_on_hopper_says_what_fa2_would_cost(cli):
    best = _ask(cli, LONG)
    note = next(w for w in best["warning_codes"] if w["code"] == "attention_kernel")
    assert note["params"]["share"] > 0.5 and note["params"]["architecture"] == "Hopper"
    fa2 = _ask(cli, LONG.replace(" on ", " attention fa2 on "))
    assert "attention_kernel" not in [w["code"] for w in fa2["warning_codes"]]
    # the estimate on FlashAttention-2 is about what the note said
    assert fa2["training"]["days"] == pytest.approx(note["params"]["days"], rel=0.05)
    assert fa2["plan"]["tokens_per_s_per_gpu"] < 0.7 * best["plan"]["tokens_per_s_per_gpu"]
    text = cli("ask", LONG).stdout
    assert "FlashAttention-2" in text and "attention fa2" in text


def test_no_kernel_note_where_attention_is_small_or_the_gpu_runs_fa2_at_its_best(cli):
    short = _ask(cli, "llama3.1-8b pretrain 1B tokens seq 2048 on 8xH100")
    a100 = _ask(cli, LONG.replace("H100", "A100-80GB"))
    for answer in (short, a100):
        assert "attention_kernel" not in [w["code"] for w in answer["warning_codes"]]


def test_a_what_if_on_fa2_in_the_thread_shows_the_kernels_and_the_longer_run(book):
    from advisor.planning.advice import advise, plan_context
    from advisor.planning.followup import follow_up

    summary = plan_context(advise(LONG, book=book))
    assert (summary["attention"], summary["attention_pct"]) == ("fa3", pytest.approx(66, abs=5))
    reply = follow_up(LONG, summary, "what if we use flash_attention_2?", book=book)
    assert reply.kind == "whatif" and reply.changes == [{"name": "attention", "before": "fa3", "after": "fa2"}]
    assert reply.after["days"] > 1.4 * reply.before["days"]
    # on an A100 FlashAttention-2 is already the kernel planned
    assert plan_context(advise(LONG.replace("H100", "A100-80GB"), book=book))["attention"] == "fa2"


MOONLIGHT = catalog.find_model("moonlight-16b-a3b")


def test_mla_on_transformer_engine_runs_unfused_off_hopper_and_blackwell():
    """TE up to 2.16 turns FlashAttention-2 off for q/k head dims unequal to v's (MLA: 192 / 128)
    and cuDNN trains head dims over 128 on sm90 and sm100+ only: Megatron-Core on an A100 or a
    4090 runs TE's unfused attention; on an H100 it runs fused; SDPA stacks and equal head dims
    are unaffected."""
    from advisor.engine.frameworks import FSDP2, MEGATRON
    from advisor.engine.memory import attention_kernel, score_free_attention
    from advisor.engine.setup import TrainingSetup

    setup = TrainingSetup(method="full-finetune", precision="bf16", seq_len=8192)
    assert MOONLIGHT.unequal_head_dims and not catalog.find_model("llama3.1-8b").unequal_head_dims
    for gpu in (A100, catalog.get_gpu("RTX4090-24GB")):
        assert attention_kernel(gpu, setup, MEGATRON, unequal_head_dims=True) == "eager"
        assert not score_free_attention(gpu, "bf16", MEGATRON, unequal_head_dims=True)
        assert attention_kernel(gpu, setup, MEGATRON) == "best"
        assert attention_kernel(gpu, setup, FSDP2, unequal_head_dims=True) == "best"
    for gpu in (H100, catalog.get_gpu("B200")):
        assert attention_kernel(gpu, setup, MEGATRON, unequal_head_dims=True) == "best"


def test_unfused_attention_runs_every_score_at_the_matmul_rate_and_moves_them_in_hbm():
    """Hand-worked, Moonlight on one A100 at 8,192 tokens, no recompute: per layer the two score
    GEMMs make 2 x 8192^2 x (192 + 128) x 16 heads = 6.87e11 FLOPs forward (the whole square,
    the causal mask applied after), twice that backward, at the A100's matmul rate; the score
    matrix (8192^2 x 16 x 2 bytes = 2.15 GB) makes 4 passes forward and 8 backward at HBM
    bandwidth."""
    kw = dict(precision="bf16", method="full-finetune", lora_rank=16, lora_targets="all", seq=8192, micro_batch=1,
              tp=1, pp=1, ep=1, etp=1, cp=1, recompute="none", optimizer_params=1e9, framework="megatron")  # fmt: skip
    eager = rf.stage_time(MOONLIGHT, count_params(MOONLIGHT), A100, attention="eager", **kw)
    flops = 2 * 8192**2 * (192 + 128) * 16
    assert flops == pytest.approx(6.87e11, rel=1e-3)
    matmul = A100.bf16_dense_tflops * 1e12 * rf.mamf(A100, "bf16")
    passes = 8192**2 * 16 * 2 / (A100.memory_bw_tb_s * 1e12 * rf.ETA_HBM)
    per_layer = 3 * flops / matmul + 12 * passes
    assert eager.attention_s == pytest.approx(MOONLIGHT.layers * per_layer, rel=1e-6)
    best = rf.stage_time(MOONLIGHT, count_params(MOONLIGHT), A100, attention="best", **kw)
    assert eager.attention_s > 2 * best.attention_s and eager.gemm_s == best.gemm_s


def test_a_moonlight_plan_on_a100_says_its_attention_runs_unfused(cli):
    text = (
        "moonlight full-finetune 1B tokens seq 8192 mbs 1 gbs 16 tp 1 pp 2 ep 4 recompute full megatron on 8xA100-80GB"
    )
    note = next(w for w in _ask(cli, text)["warning_codes"] if w["code"] == "attention_mla_unfused")
    assert note["params"]["architecture"] == "Ampere" and (note["params"]["qk"], note["params"]["v"]) == (192, 128)
    assert "attention_mla_unfused" not in [
        w["code"] for w in _ask(cli, text.replace("A100-80GB", "H100"))["warning_codes"]
    ]
    assert "unfused" in cli("ask", text).stdout
    assert "非融合" in cli("ask", "--lang", "zh", text).stdout
