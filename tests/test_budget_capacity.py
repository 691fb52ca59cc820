"""What a sum of money trains (advisor/planning/budget_capacity.py): the GPU-hours it rents at the
rent on record, the largest dense model those hours pay for by data size, and the question that
asks it answered as the bot answers a first message."""

import json
import re

import pytest

from advisor import catalog
from advisor.market.prices import HOURS_PER_MONTH
from advisor.planning.budget_capacity import (
    DATA_TOKENS,
    DENSE_CAP_B,
    _search,
    gpu_rent,
    largest_for_budget,
    rentable_gpu,
    run_on,
)


def test_a_sum_rents_its_hours_at_the_cheapest_nvlink_part_per_tflop(book):
    fit = largest_for_budget(book, 10_000, "USD", "global")
    part = catalog.get_gpu(fit.gpu)
    assert fit.gpu_hours == pytest.approx(10_000 / fit.rate)
    # no NVIDIA part of 80 GB or more with NVLink rents for less per dense BF16 TFLOP on record
    for other in ("H100-SXM5-80GB", "H200-SXM-141GB", "A100-SXM4-80GB"):
        rate = gpu_rent(book, catalog.get_gpu(other), "global", "USD", 10_000)
        assert rate is None or fit.rate / part.bf16_dense_tflops <= rate[0] / catalog.get_gpu(other).bf16_dense_tflops
    assert not part.consumer and part.vendor == "NVIDIA"


def test_in_china_a_sum_that_pays_for_a_servers_month_is_read_at_the_lease_a_smaller_one_by_the_hour(book):
    """Mainland China leases by the GPU-month: ¥100,000 pays for a month of 8 GPUs at the lease's
    rate (the month over 730 hours); ¥5,000 does not, and is read at an hourly rate on record."""
    big = largest_for_budget(book, 100_000, "CNY", "china")
    assert big.monthly and big.rate == pytest.approx(
        book.convert(big.price.price, big.price.currency, "CNY") / HOURS_PER_MONTH
    )
    assert big.rate * HOURS_PER_MONTH * catalog.get_gpu(big.gpu).gpus_per_server <= 100_000
    small = largest_for_budget(book, 5_000, "CNY", "china", gpu=big.gpu)
    assert not small.monthly and small.price.unit == "gpu-hour"


def test_each_row_is_the_searchs_edge_and_pretraining_takes_chinchillas_tokens(book):
    """$300 of H100-hours: each size named is paid for and 5% more is not; pre-training's data is 20
    tokens a parameter, and its GPU-hours are its FLOPs (6 a parameter and token, Kaplan et al. 2020)
    over the GPU's peak at the row's MFU: less the input embedding, which a lookup does without
    FLOPs (a fifth of a 1.3B model's parameters at a 128k vocabulary), plus attention and failures."""
    fit = largest_for_budget(book, 300, "USD", "global", gpu="H100-SXM5-80GB")
    hours = float(f"{fit.gpu_hours:.3g}")
    for row in fit.rows:
        assert row.gpu_hours <= hours
        if row.past_search:
            assert row.params_b == DENSE_CAP_B
            continue
        tokens = 0.0 if row.method == "pretrain" else row.tokens
        assert run_on(fit.gpu, row.method, tokens, row.params_b * 1.05)[0] > hours
        assert _search(fit.gpu, row.method, tokens, hours / 1.3).params_b < row.params_b
    pre = fit.rows[-1]
    assert pre.method == "pretrain" and pre.tokens == pytest.approx(20 * pre.params_b * 1e9)
    peak = catalog.get_gpu(fit.gpu).bf16_dense_tflops * 1e12
    floor = 6 * pre.params_b * 1e9 * pre.tokens / (pre.mfu * peak * 3600)
    assert 0.8 * floor <= pre.gpu_hours <= 1.3 * floor
    assert 0.8 < pre.params_b < 2  # about 1.3B on 26B tokens for $300 at $2.69 an hour


def test_more_money_trains_larger_and_more_data_smaller(book):
    small, large = (largest_for_budget(book, s, "USD", "global", gpu="H100-SXM5-80GB") for s in (300, 30_000))
    for a, b in zip(small.rows, large.rows):
        assert b.params_b >= a.params_b
    lora = [r.params_b for r in small.rows if r.method == "lora"]
    full = [r.params_b for r in small.rows if r.method == "full-finetune"]
    assert lora == sorted(lora, reverse=True) and full == sorted(full, reverse=True)
    assert all(lo >= fu for lo, fu in zip(lora, full))  # LoRA skips the weight gradients and the optimizer
    assert len(lora) == len(DATA_TOKENS)


def test_no_rent_on_record_is_no_answer(book):
    assert largest_for_budget(book, 10_000, "USD", "global", gpu="RTXA6000-48GB") is None
    assert rentable_gpu(book, "global", "USD", 10_000) is not None


@pytest.mark.parametrize(
    "question,lang,said",
    [
        ("what's the biggest model we can fine-tune with $10k?", "en", "$10,000 rents about"),
        ("10万预算能训多大的模型", "zh", "¥100,000 按每卡时"),
        ("what can we train for ¥50k?", "en", "¥50,000 rents about"),
        ("5000块钱能训什么", "zh", "¥5,000 按每卡时"),
        # its data said too: "1B tokens" had been read as a 1B model, and the model's size asked for
        ("what's the biggest model we can fine-tune with $5000 on 1B tokens in a week?", "en", "$5,000 rents about"),
    ],
)
def test_what_a_sum_trains_is_answered_not_asked_for_the_model(cli, question, lang, said):
    # "what's the biggest model we can fine-tune with $10k?" had asked for the model's size
    out = cli("ask", question, "--json")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)["faq"]
    assert found["topic"] == "capacity" and found["answer"].startswith(said)
    assert ("Chinchilla" in found["answer"]) and (("预训练" if lang == "zh" else "pre-training") in found["answer"])


def test_gpus_counted_with_the_sum_are_still_their_memory(cli):
    out = json.loads(cli("ask", "biggest model we can train on 8x4090 with $10k", "--json").stdout)
    assert "the largest dense models that fit" in out["faq"]["answer"]


@pytest.mark.parametrize("question,amount", [("10万能训多大的模型", "¥100,000"), ("50万可以训什么", "¥500,000")])
def test_a_bare_sum_in_wan_before_what_it_trains_is_yuan(cli, question, amount):
    # a sum in 万 with no 元 or 预算 had been the model-size tiers, or the internode network topic
    found = json.loads(cli("ask", question, "--json").stdout)["faq"]
    assert found["topic"] == "capacity" and found["answer"].startswith(amount)


def test_a_bare_sum_in_a_plans_thread_is_what_it_trains_not_the_plans_gpus(book):
    from advisor.planning.advice import advise, plan_context
    from advisor.planning.followup import follow_up

    request = "qwen2.5-32b lora 10万条 5天"
    reply = follow_up(request, plan_context(advise(request, book=book)), "10万能训多大的模型", book=book)
    assert reply.kind == "capacity" and reply.text.startswith("¥100,000")


def _lease(provider: str, price: float, min_term: int = 0) -> dict:
    from advisor.market import store

    row = {
        "source": "test",
        "kind": "rent_month",
        "gpu": "H800-SXM-80GB",
        "gpus": 8,
        "market": "china",
        "provider": provider,
        "region": "",
        "offer": "",
        "price": price,
        "currency": "CNY",
        "unit": "gpu-month",
        "min_term_months": min_term,
        "as_of": "2026-11-01",
        "estimate": 0,
        "cite": "test row",
        "offer_kind": "server",
        "max_gpus": 8,
        "terms": f"{min_term}m" if min_term else "",
    }
    return store.offer_defaults(
        {**store.NOT_NULL_DEFAULTS, **store.OFFER_COLUMNS, **store.OFFER_TERMS, **store.OFFER_SOLD_ON, **row}
    )


def test_a_long_minimum_term_is_no_bargain_for_a_short_span():
    """A year's lease at ¥6,000 a GPU-month against a monthly one at ¥8,000: with no span the sum's GPUs
    are spread over the year (¥6,000 over 730 hours); asked for 30 days, the year is billed for the one
    month used (12 x ¥6,000 over 720 hours), so the monthly lease is the rate; 45 days bill two whole
    months of it (¥16,000 over 1,080 hours)."""
    from advisor.market.prices import PriceBook

    book = PriceBook([_lease("monthly", 8000.0), _lease("yearly", 6000.0, 12)], 7.0, "2026-11-01", "test rate")
    part = catalog.get_gpu("H800-SXM-80GB")
    rate, price, monthly = gpu_rent(book, part, "china", "CNY", 10_000_000)
    assert monthly and price.provider == "yearly" and rate == pytest.approx(6000 / HOURS_PER_MONTH)
    rate, price, _ = gpu_rent(book, part, "china", "CNY", 10_000_000, days=30)
    assert price.provider == "monthly" and rate == pytest.approx(8000 / 720)
    rate, price, _ = gpu_rent(book, part, "china", "CNY", 10_000_000, days=45)
    assert price.provider == "monthly" and rate == pytest.approx(2 * 8000 / (45 * 24))
    fit = largest_for_budget(book, 10_000_000, "CNY", "china", gpu="H800-SXM-80GB", days=300)
    assert (fit.price.provider, fit.billed_months, fit.used_months) == ("yearly", 12, 10)


@pytest.mark.parametrize(
    "question,sum_said,span",
    [
        ("we have ¥3M, what's the biggest model we can pretrain in 30 days?", "¥3,000,000", "30 days asked"),
        ("300万预算30天能预训练多大的模型", "¥3,000,000", "所问的 30 天之内"),
        ("预算300万30天能预训练多大的模型", "¥3,000,000", "所问的 30 天之内"),
    ],
)
def test_a_sum_and_a_span_for_pretraining_are_read_and_the_span_held(cli, question, sum_said, span):
    # "¥3M" had been read as a model of 3M parameters (the FAQ answered), "300万预算30天" as ¥300
    found = json.loads(cli("ask", question, "--json").stdout)["faq"]
    assert found["topic"] == "capacity" and found["answer"].startswith(sum_said), found["answer"][:80]
    assert span in found["answer"]
    # the request offered plans a pre-training run within the span and the sum
    offered = re.search(r"`/gpu ([^`]+)`", found["answer"])[1]
    assert ("pretrain" in offered or "预训练" in offered) and ("30d" in offered or "30天" in offered)
    planned = json.loads(cli("ask", offered, "--json").stdout)
    assert planned["training"]["days"] <= 30 and planned["cost"]["rent_total"] <= 3_000_000


def test_the_rows_run_within_the_span_said_on_the_gpus_it_takes(book):
    fit = largest_for_budget(book, 3_000_000, "CNY", "china", gpu="H800-SXM-80GB", days=30)
    pre = fit.rows[-1]
    assert pre.method == "pretrain" and pre.days <= 30 and pre.gpus % 8 == 0 and pre.gpu_hours <= fit.gpu_hours
    assert pre.days == pytest.approx(pre.gpu_hours / pre.gpus / 24)
    # without the span the same sum is spent on the fewest GPUs, for as long as that takes
    assert largest_for_budget(book, 3_000_000, "CNY", "china", gpu="H800-SXM-80GB").rows[-1].days is None
