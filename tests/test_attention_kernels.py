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
