"""Follow-ups in a plan's thread: what-ifs, "how did you get that number?" and FAQ questions."""

import json
import math
import re

import pytest

from advisor import catalog
from advisor.planning.advice import advise, plan_context, render_text
from advisor.planning.followup import explained_part, follow_up
from advisor.text.render import money, num

REQUEST = "70B full-finetune 1TB 14d budget"


@pytest.fixture
def summary(book):
    return plan_context(advise(REQUEST, book=book))


@pytest.mark.parametrize(
    "question,part",
    [
        ("how did you get 13 days?", "time"),
        ("why so many GPUs?", "gpus"),
        ("why 8 GPUs?", "gpus"),
        ("为什么是8卡", "gpus"),
        ("where does 0.91 days come from?", "time"),
        ("why ¥1,560?", "costs"),
        ("这个数字哪来的", "overview"),
        # the plan as a whole ("why this plan?" had drawn the menu): each number with its source
        ("why this plan?", "overview"),
        ("why did you choose this?", "overview"),
        ("为什么选这个配置", "overview"),
        ("这个方案是怎么选出来的", "overview"),
        ("why not H20?", None),
        ("why H800?", None),
        ("13天是怎么算的", "time"),
        ("where does the ¥683,706 come from", "costs"),
        ("租金怎么算的", "costs"),
        ("how did you get 63.5 GiB per GPU", "memory"),
        ("显存怎么算的", "memory"),
        ("why NVLink?", None),
        ("how much RAM per node?", None),
        ("what if we had 30 days?", None),
        ("how do we get more GPUs?", None),
        ("how did you come up with 256 GPUs?", "gpus"),
        ("why 1280 GiB RAM?", "servers"),
        ("why ZeRO-3?", None),
        ("why tensor parallel 8?", None),
        ("why this many GPUs?", "gpus"),
        ("why so slow?", "time"),
        ("为什么这么慢", "time"),
    ],
)
def test_which_part_of_the_arithmetic_a_question_asks_about(question, part):
    assert explained_part(question) == part


def test_how_did_you_get_the_days_shows_the_plans_own_time_arithmetic(summary, book):
    reply = follow_up(REQUEST, summary, "how did you get 13 days?", book=book)
    assert reply.kind == "explain"
    assert "GFLOP/token" in reply.text and f"{summary['gpu_hours']:,.0f}" in reply.text


def test_a_chinese_question_gets_the_same_numbers_in_chinese(summary, book):
    reply = follow_up(REQUEST, summary, "显存怎么算的", book=book)
    assert reply.kind == "explain" and "每卡显存" in reply.text
    shown = f"{summary['mem_per_gpu_gib']:.1f}"
    assert shown in reply.text or shown.removesuffix(".0") in reply.text


def test_where_the_rent_comes_from_shows_the_cost_lines(summary, book):
    reply = follow_up(REQUEST, summary, "where does the rent come from?", book=book)
    assert reply.kind == "explain" and ("per GPU-hour" in reply.text or "per GPU-month" in reply.text)


@pytest.mark.parametrize("question,kind", [("why NVLink?", "question"), ("what if we had 30 days?", "whatif")])
def test_other_follow_ups_keep_their_kind(summary, book, question, kind):
    assert follow_up(REQUEST, summary, question, book=book).kind == kind


@pytest.mark.parametrize("text", [REQUEST, "13B 全量微调 200GB数据 7天 预算10万", "7b lora 50k samples 3d usd"])
def test_the_reply_language_never_changes_the_plan(text, book):
    numbers = [
        {k: v for k, v in plan_context(advise(text, lang, book=book)).items() if not isinstance(v, str)}
        for lang in (None, "en", "zh")
    ]
    assert numbers[0] == numbers[1] == numbers[2]


@pytest.mark.parametrize(
    "question,before,after",
    [
        ("what about 3 epochs", "1 epoch (250B tokens)", "3 epochs (750B tokens)"),
        ("训练3轮呢", "1 轮（2,500亿 token）", "3 轮（7,500亿 token）"),
    ],
)
def test_an_epochs_what_if_says_the_epochs_and_the_tokens(summary, book, question, before, after):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "whatif"
    assert {"name": "epochs", "before": before, "after": after} in reply.changes


@pytest.mark.parametrize(
    "question,changed",
    [
        ("how much would it cost on A800?", ["gpu"]),
        ("how much on A800?", ["gpu"]),
        ("what would it cost using A800?", ["gpu"]),
        ("A800上要多少钱", ["gpu"]),
        ("在A800上跑要多少钱？", ["gpu"]),
        ("can we do it with 128 GPUs?", ["gpu_count"]),
        ("用128卡呢", ["gpu_count"]),
        ("128卡能做吗", ["gpu_count"]),
        ("on 4 servers?", ["nodes"]),
        ("4台服务器呢", ["nodes"]),
        ("if we had ¥2M?", ["budget"]),
        ("如果有200万呢", ["budget"]),
        ("cheaper?", ["deadline_days"]),
        ("is there anything cheaper?", ["deadline_days"]),
        ("便宜点的呢", ["deadline_days"]),
        ("有没有更便宜的方案", ["deadline_days"]),
        ("faster?", ["deadline_days"]),
        ("更快呢", ["deadline_days"]),
    ],
)
def test_what_ifs_in_other_words_are_what_ifs_on_the_plan(summary, book, question, changed):
    for mentioned in (False, True):
        reply = follow_up(REQUEST, summary, question, book=book, mentioned=mentioned)
        assert reply.changed == changed, (question, reply.kind, reply.text[:200])
        if reply.kind == "unchanged":  # the plan already meets it (¥2M over a ¥1.95M plan): said in a line
            assert "stays the same" in reply.text or "方案不变" in reply.text, question
            assert reply.advice.plan.rent and f"{round(reply.advice.plan.rent):,}" in reply.text
        else:
            assert reply.kind == "whatif", (question, reply.kind)
            assert reply.after["rent_total"], question  # every what-if shows the rent


@pytest.mark.parametrize("question", ["can we do it with 128 GPUs?", "with 128 GPUs?", "用128卡呢"])
def test_a_gpu_count_keeps_the_plans_gpu(summary, book, question):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.after["gpu"] == summary["gpu"] and reply.after["gpu_count"] == 128
    before, after = f"{summary['gpu_count']} × {summary['gpu']}", f"128 × {summary['gpu']}"
    assert reply.changes == [{"name": "gpu_count", "before": before, "after": after}]


@pytest.mark.parametrize(
    "question,count",
    [("is 4 nodes enough?", 32), ("are 64 GPUs enough for this?", 64), ("128卡够用吗", 128), ("64张卡够不够", 64)],
)
def test_whether_a_count_is_enough_is_that_count_planned_against_the_deadline(summary, book, question, count):
    # "is 4 nodes enough?" had drawn the menu, "are 64 GPUs enough" the CPU topic, "128卡够用吗" NVLink's
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "whatif" and reply.after["gpu_count"] == count and reply.after["gpu"] == summary["gpu"]
    assert reply.after["days"] > 14 and ("Misses the deadline" in reply.text or "赶不上截止期限" in reply.text)


def test_a_closing_particle_is_no_word_of_the_change(book):
    # "我们已经有4张A100了" had been refused over its 了, then drawn the menu
    text = "qwen2.5-14b lora 10万条 3天"
    reply = follow_up(text, plan_context(advise(text, book=book)), "我们已经有4张A100了", book=book)
    assert reply.kind == "whatif" and reply.advice.request.owned and reply.after["gpu_count"] == 4


@pytest.mark.parametrize("question", ["能不能按天租", "can we rent it by the day?"])
def test_renting_by_the_day_is_the_lease_terms_topic_on_the_plans_time(summary, book, question):
    # both had drawn the menu
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "question" and reply.faq["topic"] == "monthly_vs_hourly", (reply.kind, reply.text[:80])


@pytest.mark.parametrize("question", ["is 80GB per GPU enough?", "is 64GB RAM enough?"])
def test_a_size_in_gigabytes_asked_is_no_link_and_the_hosts_memory_no_card(summary, book, question):
    # "is 80GB per GPU enough?" had got the network's reason (80 read as Gb/s); "is 64GB RAM enough?"
    # the plan re-made on a 64 GB card
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "question" and "InfiniBand" not in reply.text
    assert reply.text.startswith("We size 1280 GiB of RAM" if "RAM" in question else "Yes on this plan's layout")


def test_a_gpu_count_with_a_gpu_named_takes_that_gpu(summary, book):
    reply = follow_up(REQUEST, summary, "with 128 H200?", book=book)
    assert reply.after["gpu"] == "H200-SXM-141GB" and reply.after["gpu_count"] == 128


def test_faster_and_cheaper_move_the_time_the_right_way(summary, book):
    faster = follow_up(REQUEST, summary, "faster?", book=book)
    cheaper = follow_up(REQUEST, summary, "cheaper?", book=book)
    assert faster.after["days"] < summary["days"] < cheaper.after["days"]
    assert cheaper.after["rent_total"] < summary["rent_total"]
    # said as the bot's reading of the plan's time, not as the team's deadline changed
    assert "about half the plan's time" in faster.text and "What if: deadline" not in faster.text
    assert "twice the time" in cheaper.text and "What if: deadline" not in cheaper.text
    what_if = follow_up(REQUEST, summary, "what if we had 60 days?", book=book)
    assert "half the plan's time" not in what_if.text and "twice the time" not in what_if.text


@pytest.mark.parametrize("question,lang", [("lunch anyone?", "en"), ("今天吃什么", "zh")])
def test_a_mention_nothing_can_answer_says_what_the_bot_can_answer(summary, book, question, lang):
    assert follow_up(REQUEST, summary, question, book=book, mentioned=False).kind == "silent"
    reply = follow_up(REQUEST, summary, question, book=book, mentioned=True)
    assert reply.kind == "question"
    if lang == "en":
        assert "how much on A800?" in reply.text and "how did you get 13 days?" in reply.text
    else:
        assert "A800上要多少钱" in reply.text
    assert len(reply.text) < 900  # a short menu, not a long answer to a question nobody asked


@pytest.mark.parametrize("question", ["how much would it cost?", "what's the total cost?", "这个要多少钱"])
def test_asking_what_the_plan_costs_shows_its_rent_worked_out(summary, book, question):
    reply = follow_up(REQUEST, summary, question, book=book, mentioned=False)
    assert reply.kind == "explain" and reply.part == "costs"


@pytest.mark.parametrize("question", ["can we do it faster?", "faster please", "有没有更便宜的显卡"])
def test_more_ways_to_ask_for_faster_or_cheaper(summary, book, question):
    assert follow_up(REQUEST, summary, question, book=book).changed == ["deadline_days"]


def test_a_what_if_on_a_knob_the_planner_chose_shows_its_choice_before(book):
    # the planner chose bf16 gradients and no recompute for NVIDIA's 405B FP8 layout (as
    # Megatron-Bridge runs it): neither is in the request
    request = "llama3.1-405b pretrain 1T tokens seq 8192 mbs 1 gbs 1536 tp 8 pp 8 cp 2 vpp 8 zero1 fp8 on 1024xH100"
    summary = plan_context(advise(request, book=book))
    reply = follow_up(request, summary, "what if grads fp32?", book=book)
    assert {"name": "grad_reduce", "before": "bf16", "after": "fp32"} in reply.changes
    reply = follow_up(request, summary, "what if recompute full?", book=book)
    assert {"name": "recompute", "before": "none", "after": "full"} in reply.changes


@pytest.mark.parametrize(
    "question,says",
    [
        ("what if 14 days?", "That is what the plan already assumes"),  # the request's own deadline
        ("what if {stack}?", "already has training framework {stack}"),  # the planner's own stack
        ("用{stack}呢", "方案本来就是训练框架 {stack}"),
    ],
)
def test_a_what_if_that_repeats_the_plan_says_so_instead_of_replanning(summary, book, question, says):
    stack = summary["stack"]
    reply = follow_up(REQUEST, summary, question.format(stack=stack), book=book)
    assert reply.kind == "unchanged" and reply.advice is None
    assert says.format(stack=stack) in reply.text
    if "{stack}" in question:  # another stack is a change
        other = "deepspeed" if stack != "deepspeed" else "megatron"
        assert follow_up(REQUEST, summary, question.format(stack=other), book=book).kind in ("whatif", "question")


def test_the_plans_own_gpu_type_is_no_change_and_another_is(summary, book):
    reply = follow_up(REQUEST, summary, f"what if on {summary['gpu']}?", book=book)
    assert reply.kind == "unchanged" and summary["gpu"] in reply.text
    other = "A800-SXM4-80GB" if summary["gpu"] != "A800-SXM4-80GB" else "H800-SXM-80GB"
    assert follow_up(REQUEST, summary, f"what if on {other}?", book=book).kind == "whatif"


def test_an_unchanged_reply_is_posted_as_plain_text(summary, book):
    from bot.answers import follow

    out = follow(REQUEST, summary, "what if 14 days?", None, book)
    assert out["kind"] == "unchanged"
    assert "nothing changes" in out["message"]["text"]


# -- what a probe of ~380 thread replies found (2026-12-02) -----------------------------------


def _thread(text, book):
    return text, plan_context(advise(text, book=book))


@pytest.mark.parametrize(
    "question,before,after",
    [
        ("what about Chinese data?", "English (250B tokens)", "Chinese (312B tokens)"),
        ("用中文数据呢", "英文（2,500亿 token）", "中文（3,125亿 token）"),
    ],
)
def test_a_data_language_what_if_moves_the_tokens_and_is_not_called_unchanged(summary, book, question, before, after):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "whatif" and {"name": "data_language", "before": before, "after": after} in reply.changes
    assert reply.after["gpu_hours"] > reply.before["gpu_hours"]


def test_a_question_about_the_global_batch_is_not_a_move_abroad(summary, book):
    assert follow_up(REQUEST, summary, "why global batch 224?", book=book).kind != "market"
    assert follow_up(REQUEST, summary, "what about global clouds?", book=book).kind == "market"


@pytest.mark.parametrize(
    "text,question,currency",
    [("13B full-finetune 200GB 7d budget ¥100k", "in USD?", "USD"), ("7b lora 50k samples 3d $5k", "in CNY?", "CNY")],
)
def test_another_currency_converts_the_plan_and_its_budget_at_the_rate_on_record(book, text, question, currency):
    # "in USD?" asks for the same plan's money in dollars, not a plan on another market's GPUs
    thread = _thread(text, book)
    reply = follow_up(*thread, question, book=book)
    assert reply.kind == "explain" and reply.part == "currency" and reply.advice.plan.gpu == thread[1]["gpu"]
    c, rate = reply.advice.plan.costs, book.usd_cny
    rent = next(line for line in reply.text.splitlines() if line.startswith("• rent:"))
    budget = next(line for line in reply.text.splitlines() if line.startswith("• your budget:"))
    to_cur = (lambda x: x / rate) if currency == "USD" else (lambda x: x * rate)
    sign = "$" if currency == "USD" else "¥"
    assert rent.endswith(money(to_cur(c.rent_total), currency)) and sign in rent
    amount = reply.advice.request.budget.amount
    assert budget.endswith(money(to_cur(amount), currency))
    # naming the market re-plans there
    moved = follow_up(*thread, f"plan it in {'USD on global clouds' if currency == 'USD' else 'China'}", book=book)
    assert moved.kind == "market" and moved.currency == currency
    assert next(c for c in moved.changes if c["name"] == "budget")["after"].startswith(sign)


def test_a_buy_what_if_shows_what_buying_costs_and_the_old_rent_in_its_own_currency(summary, book):
    reply = follow_up(REQUEST, summary, "what if we buy instead?", book=book)
    assert reply.kind == "whatif" and {"name": "rent_or_buy", "before": "as planned", "after": "buy"} in reply.changes
    buy = next(line for line in reply.text.splitlines() if line.strip().startswith("buy:"))
    assert f"¥{summary['buy_capex']:,}" in buy and reply.after["buy_capex"] and "¥" in buy.split("->")[1]
    usd = follow_up(REQUEST, summary, "in USD on global clouds?", book=book)
    rent = next(line for line in usd.text.splitlines() if line.strip().startswith("rent:"))
    assert rent.split("->")[0].strip().endswith(f"¥{summary['rent_total']:,}") and "$" in rent.split("->")[1]


def test_a_what_if_naming_the_gpus_the_team_has_keeps_their_count(book):
    owned = _thread("we already own 16 A100 80GB, 13B full finetune 20B tokens", book)
    reply = follow_up(*owned, "can we use fp8 on A100?", book=book)
    assert reply.after["gpu_count"] == 16
    fixed = _thread("llama3-8b full-finetune 50k samples 2d on 8xRTX4090", book)
    assert follow_up(*fixed, "what if we buy the 4090s?", book=book).after["gpu_count"] == 8


@pytest.mark.parametrize(
    "question,count",
    [
        ("with 64 GPUs?", 64),
        ("用64卡呢", 64),
        ("用8台呢", 64),
        ("再加4台呢", 64),
        ("16 more GPUs?", 48),
        ("再加一台呢", 40),
        # "加到", "扩到", "scale to": the count it becomes, not a count on top
        ("如果加到6台呢", 48),
        ("扩到6台呢", 48),
        ("增加到48卡呢", 48),
        ("what if we scale to 6 servers?", 48),
    ],
)
def test_counts_under_servers_fixed_in_chinese_replace_them_or_add_to_them(book, question, count):
    thread = _thread("8卡H800 4台 70B 全参微调 500GB数据 20天", book)
    reply = follow_up(*thread, question, book=book)
    assert reply.kind == "whatif" and reply.after["gpu_count"] == count


def test_a_count_in_a_question_of_cost_is_not_read_as_more(book):
    thread = _thread("8卡H800 4台 70B 全参微调 500GB数据 20天", book)
    assert follow_up(*thread, "用64卡要多少钱", book=book).after["gpu_count"] == 64


@pytest.mark.parametrize(
    "question,says",
    [
        ("H800 at 8000 yuan per card-month, good?", "¥8,000 per GPU-month for H800-SXM-80GB"),
        (
            "a vendor offers 64 H800 at ¥8000 per card-month, 1 year, worth it?",
            "¥8,000 per GPU-month for H800-SXM-80GB",
        ),
        ("is 2 dollars per gpu hour for H100 a good deal?", "$2 per GPU-hour for H100-SXM5-80GB"),
    ],
)
def test_a_price_in_words_or_per_card_month_is_judged(summary, book, question, says):
    # "yuan", "dollars", "per card-month", "worth it" and "a good deal" had each kept a price unjudged
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "quote" and says in reply.text


@pytest.mark.parametrize(
    "question,says",
    [
        ("is ¥8,000 per GPU-month a good price?", "¥8,000 per GPU-month for H800-SXM-80GB"),
        ("这个价格贵吗 每月9万", "8 × H800-SXM-80GB 每月 ¥90,000"),
    ],
)
def test_a_price_without_a_gpu_is_judged_as_a_price_for_the_plans_gpu(summary, book, question, says):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "quote" and says in reply.text and "H800-SXM-80GB" in reply.text.rsplit("`", 2)[-2]
    assert "cheapest price on record" not in reply.text and "这个价格贵吗" not in reply.text


@pytest.mark.parametrize(
    "question,change", [("按量付费呢", ("hourly_only", "否", "是")), ("pay as you go?", ("hourly_only", "no", "yes"))]
)
def test_a_yes_or_no_change_is_worded_not_printed_as_python(book, question, change):
    reply = follow_up(*_thread("671B-A37B pretrain 2T tokens 60d budget ¥50M", book), question, book=book)
    name, before, after = change
    assert {"name": name, "before": before, "after": after} in reply.changes


@pytest.mark.parametrize(
    "question", ["what if the budget were ¥10M?", "要是预算只有1000万呢", "what if budget is only ¥10M"]
)
def test_a_new_budget_is_only_a_budget_not_also_cost_first(book, question):
    reply = follow_up(*_thread("671B-A37B pretrain 2T tokens 60d budget ¥50M", book), question, book=book)
    assert [c["name"] for c in reply.changes] == ["budget"]


@pytest.mark.parametrize("question,kind", [("为什么要IB", "explain"), ("为什么要NVLink", "question")])
def test_a_chinese_question_with_a_latin_term_is_answered_unmentioned(summary, book, question, kind):
    # (IB under a plan across servers: what the plan needs between them, reasons.py)
    assert follow_up(REQUEST, summary, question, book=book, mentioned=False).kind == kind


LORA = "70B lora 1B tokens 7d"


@pytest.fixture
def lora(book):
    return plan_context(advise(LORA, book=book))


@pytest.mark.parametrize("question", ["why {n} GPUs?", "为什么是{n}卡"])
def test_why_this_many_gpus_shows_the_plan_at_the_counts_around_it(lora, book, question):
    count = lora["gpu_count"]
    reply = follow_up(LORA, lora, question.format(n=count), book=book)
    assert reply.kind == "explain" and reply.part == "gpus"
    lines = [line.strip() for line in reply.text.splitlines() if line.startswith("  ")]  # one row per count
    chosen = [line for line in lines if line.startswith(f"{count} ")]
    assert len(chosen) == 1 and f"{lora['rent_total']:,}" in chosen[0] and f"{lora['gpu_hours']:,.0f}" in chosen[0]
    # the counts around it, each re-planned on the same GPU with its own numbers
    for other in (count // 2, count * 2):
        row = next(line for line in lines if line.startswith(f"{other} "))
        assert row != chosen[0] and "GiB" in row
    assert lora["gpu"] in reply.text


def test_why_the_rent_leads_with_its_sum(lora, book):
    rent = f"¥{lora['rent_total']:,}"
    reply = follow_up(LORA, lora, f"why {rent}?", book=book)
    assert reply.kind == "explain" and reply.part == "costs"
    first = reply.text.splitlines()[0]
    assert first.startswith(rent) and f"{lora['gpu_hours']:,.0f}" in first


@pytest.mark.parametrize("question,lang", [("这个数字哪来的", "zh"), ("where do these numbers come from?", "en")])
def test_a_question_about_the_plans_numbers_gives_each_with_its_sum(lora, book, question, lang):
    reply = follow_up(LORA, lora, question, book=book)
    assert reply.kind == "explain" and reply.part == "overview" and reply.lang == lang
    for shown in (f"{lora['gpu_hours']:,.0f}", f"¥{lora['rent_total']:,}", f"{lora['mem_per_gpu_gib']:g}"):
        assert shown in reply.text
    assert "70B" not in reply.text  # the plan's numbers, not an FAQ essay


@pytest.mark.parametrize(
    "question,part",
    [
        ("what storage do we need?", "servers"),
        ("需要多大存储", "servers"),
        ("which vendor should we use?", "vendor"),
        ("找哪家租", "vendor"),
        ("what are the risks?", "risks"),
        ("有什么风险", "risks"),
        ("can you write an RFQ?", "rfq"),
        ("给我一份询价单", "rfq"),
    ],
)
def test_questions_a_part_of_the_plan_answers_get_that_part(lora, book, question, part):
    from advisor.planning.advice import render_checklist, render_rfq

    reply = follow_up(LORA, lora, question, book=book)
    assert reply.kind == "part" and reply.part == part
    result = reply.advice
    assert result.plan.gpu == lora["gpu"]
    if part == "servers":
        # a storage question leads with the storage line alone (the whole spec: "server spec?")
        assert f"{lora['storage_read_gb_s']:g} GB/s" in reply.text
    elif part == "vendor":
        priced = result.plan.costs.rent_offer["provider"]
        line = next(line for line in reply.text.splitlines() if priced in line or "AutoDL" in line)
        assert "<-" in line or "←" in line or "报价" in line or "方案" in line
    elif part == "risks":
        assert render_checklist(result) in reply.text
    else:
        assert render_rfq(result) in reply.text


@pytest.mark.parametrize("question,gpu", [("why not H20?", "H20-96GB"), ("为什么不用A100", "A100-SXM4-80GB")])
def test_why_not_a_gpu_compares_that_gpu_under_this_request(lora, book, question, gpu):
    reply = follow_up(LORA, lora, question, book=book)
    assert reply.kind == "whatif" and reply.advice.plan.gpu.startswith(gpu.split("-")[0])
    other = reply.advice.plan
    # the comparison names both GPUs and the other plan's own rent and count
    assert other.gpu in reply.why and lora["gpu"] in reply.why
    assert f"¥{other.costs.rent_total:,.0f}" in reply.why and f"¥{lora['rent_total']:,}" in reply.why


def test_how_much_on_aws_names_the_provider_and_keeps_the_plans_chip(lora, book):
    from advisor.market.prices import SIBLINGS

    reply = follow_up(LORA, lora, "how much on AWS?", book=book)
    p = reply.advice.plan
    assert reply.kind == "market" and p.costs.currency == "USD"
    assert p.gpu in (lora["gpu"], SIBLINGS.get(lora["gpu"]))  # not whatever the global market ranks first
    assert p.costs.rent_offer["provider"] in reply.why and "AWS" in reply.why


def test_a_provider_in_the_plans_own_market_says_what_it_has(lora, book):
    reply = follow_up(LORA, lora, "how much on Alibaba Cloud?", book=book)
    assert reply.kind == "market" and "Alibaba" in reply.text
    assert reply.advice.plan.costs.rent_offer["provider"] in reply.text


def test_a_job_under_an_hour_is_shown_in_minutes_not_zero_days(book):
    text = "7b lora 10M tokens 1d"
    reply = follow_up(text, plan_context(advise(text, book=book)), "with 64 GPUs?", book=book)
    assert reply.kind == "whatif"
    time_line = next(line for line in reply.text.splitlines() if line.strip().startswith("time:"))
    assert "0 days" not in time_line and "minute" in time_line


def test_a_job_of_hours_keeps_its_numbers_in_the_thread(book):
    # the thread's summary had rounded a two-hour job to 0 days and 0 GPU-hours
    short = plan_context(advise("7b lora 100M tokens 1d on 1xH100", book=book))
    assert 0 < short["days"] < 0.2 and 1 < short["gpu_hours"] < 5 and short["gpu_hours"] != round(short["gpu_hours"])


@pytest.mark.parametrize("question", ["why H800?", "why this GPU?", "为什么选H800", "为什么用这个卡"])
def test_why_the_plans_own_gpu_lists_the_best_plan_on_each_other_type(lora, book, question):
    reply = follow_up(LORA, lora, question, book=book)
    assert reply.kind == "explain" and reply.part == "gpu_type"
    others = {a.gpu for a in reply.advice.result.alternatives if a.gpu != lora["gpu"]}
    assert others and all(g in reply.text for g in others)
    assert lora["gpu"] in reply.text.splitlines()[0]


def test_why_another_gpu_is_answered_as_why_not(lora, book):
    reply = follow_up(LORA, lora, "why A800?", book=book)
    assert reply.kind == "whatif" and reply.advice.plan.gpu.startswith("A800")


@pytest.mark.parametrize(
    "question,kind,part",
    [
        ("what's the lease term?", "explain", "costs"),
        ("is that price per month?", "explain", "costs"),
        ("这个价格含存储吗", "explain", "costs"),
        ("does the rent include storage?", "explain", "costs"),
        ("供应商是谁", "part", "vendor"),
        ("who is the vendor?", "part", "vendor"),
    ],
)
def test_questions_on_the_rents_terms_and_vendor_are_answered_from_the_plan(summary, book, question, kind, part):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert (reply.kind, reply.part) == (kind, part)


@pytest.mark.parametrize("message", ["budget is 30万 now", "our budget is now ¥300k"])
def test_a_change_said_to_hold_now_is_a_whatif(summary, book, message):
    reply = follow_up(REQUEST, summary, message, book=book)
    assert reply.kind == "whatif" and [c["name"] for c in reply.changes] == ["budget"]


@pytest.mark.parametrize("message", ["and if we bought them?", "如果买下来呢"])
def test_buying_said_in_the_past_tense_is_the_purchase_what_if(summary, book, message):
    reply = follow_up(REQUEST, summary, message, book=book)
    assert reply.kind == "whatif" and [c["name"] for c in reply.changes] == ["rent_or_buy"]


@pytest.mark.parametrize(
    "message",
    [
        "what's the hourly rate you assumed?",
        "what GPU price did you use?",
        "is this price per GPU?",
        "is this price realistic?",
        "这个价格靠谱吗",
    ],
)
def test_the_rate_the_plan_assumed_is_its_cost_arithmetic(summary, book, message):
    # the first had got the FAQ's essay on hourly against monthly billing, the last nothing
    reply = follow_up(REQUEST, summary, message, book=book)
    assert (reply.kind, reply.part) == ("explain", "costs")


@pytest.mark.parametrize(
    "message", ["how much electricity will it use?", "这次训练用电量多少", "耗电多少", "用电多少？"]
)
def test_electricity_asked_under_a_plan_gives_the_runs_own_use(summary, book, message):
    # it gave a month at full load only, for a run of hours or days
    reply = follow_up(REQUEST, summary, message, book=book)
    assert re.search(r"The run itself takes about [\d,]+ kWh|这次训练本身约用电 [\d,]+ 度", reply.text), reply.text


@pytest.mark.parametrize("message,days", [("延长到一个月呢", 30), ("工期放宽到20天", 20)])
def test_a_deadline_extended_in_chinese_is_a_what_if(summary, book, message, days):
    reply = follow_up(REQUEST, summary, message, book=book)
    assert reply.kind == "whatif" and [c["name"] for c in reply.changes] == ["deadline_days"]
    assert reply.changes[0]["after"] in (f"{days} days", f"{days} 天")


@pytest.mark.parametrize("message", ["网络用什么", "存储选什么", "CPU配多少"])
def test_a_part_of_the_servers_asked_in_chinese_is_answered_from_the_plan(summary, book, message):
    reply = follow_up(REQUEST, summary, message, book=book)
    assert (reply.kind, reply.part) == ("part", "servers")


@pytest.mark.parametrize(
    "message,part",
    [
        ("why that much storage?", "servers"),
        ("why do we need so much storage?", "servers"),
        ("为什么存储要这么大", "servers"),
        ("why this much RAM?", "ram"),
    ],
)
def test_why_so_much_of_a_part_explains_it(summary, book, message, part):
    # "why that much storage?" had been a question the bot could not place
    reply = follow_up(REQUEST, summary, message, book=book)
    assert (reply.kind, reply.part) == ("explain", part)


def test_gpus_the_team_says_it_already_owns_are_a_whatif(summary, book):
    reply = follow_up(REQUEST, summary, "we own 8 A800 already", book=book)
    assert reply.kind == "whatif" and reply.advice.request.owned and reply.advice.request.gpu_count == 8


@pytest.mark.parametrize("message", ["we own 16 A100s, is that enough?", "我们自己有16张A100，够吗"])
def test_a_whatif_onto_owned_gpus_shows_no_rent_but_the_jobs_electricity(summary, book, message):
    # it had shown the thread's rent against a lease of the team's own 16 A100
    reply = follow_up(REQUEST, summary, message, book=book)
    plan = reply.advice.plan
    assert reply.kind == "whatif" and reply.advice.request.owned
    assert reply.after["rent_total"] is None and reply.after["owned"]
    assert reply.after["electricity"] == round(plan.job_electricity) > 0
    assert reply.before["rent_total"] == summary["rent_total"]
    assert money(reply.after["electricity"], "CNY") in reply.text
    assert not any(w.code == "offer_changed" for w in reply.warnings)
    from bot import blocks

    rent = next(
        f["text"]
        for b in blocks.whatif(reply)["blocks"]
        for f in b.get("fields", [])
        if "Rent" in f["text"] or "租金" in f["text"]
    )
    assert money(reply.after["electricity"], "CNY") in rent


def test_a_longer_deadline_on_owned_gpus_is_no_rent(book):
    # "allowing about 21 days" on the team's own 16 A100 had been priced as a lease of them
    text = "13B full-finetune 200GB 7d"
    reply = follow_up(text, plan_context(advise(text, book=book)), "we own 16 A100s, is that enough?", book=book)
    longer = next(w for w in reply.warnings if w.code == "longer_deadline")
    assert longer.params["own"] and longer.params["cost"] is None and longer.params["count"] == 16
    assert "on your own GPUs" in reply.text


@pytest.mark.parametrize("message", ["多少钱一个月", "how much per month?", "每月多少钱", "what's the monthly cost?"])
def test_a_months_cost_under_a_plan_billed_by_the_hour_is_a_months_lease(book, message):
    # "多少钱一个月" had been a deadline of a month ("the plan stays the same"), "how much per month?"
    # a FAQ answer saying the run takes "0.0 days"
    text = "llama3-8b dpo 20k pairs 2d"
    summary = plan_context(advise(text, book=book))
    assert summary["offer_option"] == "hourly"
    reply = follow_up(text, summary, message, book=book)
    assert reply.kind == "whatif" and [c["name"] for c in reply.changes] == ["lease_term_months"]
    assert reply.advice.request.lease_term_months == 1 and reply.advice.request.deadline_days == 2


def test_a_months_cost_under_a_monthly_lease_is_its_arithmetic(summary, book):
    assert summary["offer_option"] == "monthly"
    reply = follow_up(REQUEST, summary, "每月多少钱", book=book)
    assert (reply.kind, reply.part) == ("explain", "costs")


@pytest.mark.parametrize("message", ["our pairs are 3000 tokens each", "what if each pair is 3000 tokens?"])
def test_the_samples_length_said_in_a_thread_replans(book, message):
    # it had been the FAQ's data-size answer, saying the plan takes "0.0 days"
    text = "llama3-8b dpo 20k pairs 2d"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert reply.kind == "whatif" and reply.advice.request.tokens_per_sample == 3000


@pytest.mark.parametrize(
    "message", ["预算只有10万，怎么办", "超预算了吧？", "over budget?", "what can we do within budget?"]
)
def test_over_the_budget_asked_gets_the_plan_within_it(book, message):
    # "预算只有10万，怎么办" had been "nothing changes", "超预算了吧？" the FAQ's small-budget advice
    text = "13B 全量微调 200GB数据 7天 预算10万"
    first = advise(text, book=book)
    conflict = next(w.params for w in first.warnings if w.code == "budget_vs_deadline")
    reply = follow_up(text, plan_context(first), message, book=book)
    plan = reply.advice.plan
    assert reply.kind == "whatif" and reply.advice.request.deadline_days == math.ceil(conflict["b_days"])
    assert (plan.gpu, plan.estimate.layout.gpu_count) == (conflict["b_gpu"], conflict["b_count"])
    assert plan.rent <= 100_000 < first.plan.rent
    assert money(first.plan.rent - 100_000, "CNY") in reply.text.split("\n")[0]


@pytest.mark.parametrize(
    "message",
    ["what's the cost per million tokens?", "每个token成本多少", "how much per GPU-hour are we actually paying?"],
)
def test_the_cost_of_a_unit_of_work_is_the_rent_over_it(summary, book, message):
    # each had been "I could not tell" (or the costs' arithmetic without the figure)
    reply = follow_up(REQUEST, summary, message, book=book)
    plan, req = reply.advice.plan, reply.advice.request
    assert (reply.kind, reply.part) == ("explain", "unit_cost")
    assert money(plan.rent / req.tokens * 1e6, "CNY") in reply.text
    assert money(plan.rent / plan.estimate.gpu_hours, "CNY") in reply.text
    # on a monthly lease the lease's own rate beside it: the job leaves part of the months idle
    assert money(plan.costs.rent_per_gpu_month / 730, "CNY") in reply.text


@pytest.mark.parametrize("message,lead", [("what would you do?", "My pick is"), ("你会怎么选", "我的建议")])
def test_the_bots_own_call_is_the_plan_with_the_options_around_it(summary, book, message, lead):
    # "what would you do?" had been "I could not tell what to do with that"
    reply = follow_up(REQUEST, summary, message, book=book)
    plan = reply.advice.plan
    assert (reply.kind, reply.part) == ("explain", "recommend") and reply.text.startswith(lead)
    assert money(plan.rent, "CNY") in reply.text
    # the cheaper option said is of the plan's own method; LoRA is said as LoRA
    same = [a for a in reply.advice.result.alternatives if a.method == plan.method and a.rent and a.rent < plan.rent]
    assert same and money(min(a.rent for a in same), "CNY") in reply.text
    lora = next(a for a in reply.advice.result.alternatives if a.label == "lora")
    assert money(lora.rent, "CNY") in reply.text.split("LoRA")[1]


@pytest.mark.parametrize("message", ["is it safe to go with this?", "这个方案靠谱吗"])
def test_whether_the_plan_is_safe_is_its_risks(summary, book, message):
    reply = follow_up(REQUEST, summary, message, book=book)
    assert (reply.kind, reply.part) == ("part", "risks")


@pytest.mark.parametrize("message", ["ok but cheaper?", "and faster?", "hmm, cheaper?"])
def test_a_quick_change_after_a_word_of_chatter_is_still_one(summary, book, message):
    # "ok but cheaper?" had been "I could not tell"
    reply = follow_up(REQUEST, summary, message, book=book)
    assert reply.kind in ("whatif", "unchanged") and reply.changed == ["deadline_days"]


@pytest.mark.parametrize(
    "message,part",
    [
        ("why 200Gb/s per GPU?", "network"),  # had been the time's arithmetic
        ("is 200Gb/s per GPU enough?", "network"),  # had been the CPU-cores topic
        ("400G网卡够吗", "network"),
        ("为什么显存52G", "memory"),  # had been "I could not tell"
        ("why 52.4 GiB per GPU?", "memory"),
    ],
)
def test_the_plans_own_figure_asked_about_gets_its_part(summary, book, message, part):
    reply = follow_up(REQUEST, summary, message, book=book)
    assert (reply.kind, reply.part) == ("explain", part)


@pytest.mark.parametrize("message", ["能不能不用offload", "can we avoid offloading?"])
def test_doing_without_a_knob_asked_gets_the_plans_reason_for_it(book, message):
    text = "72b qlora on 2x4090"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert (reply.kind, reply.part) == ("explain", "layout") and "34.5 GiB" in reply.text


@pytest.mark.parametrize("message", ["lora instead of qlora?", "用lora代替qlora呢"])
def test_one_choice_instead_of_the_plans_is_a_whatif(book, message):
    # "lora instead of qlora?" had been the QLoRA FAQ
    text = "72b qlora on 2x4090"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert reply.kind == "whatif" and reply.changes[0]["name"] == "method" and reply.advice.request.method == "lora"


@pytest.mark.parametrize(
    "message,lead", [("how many restarts should we expect?", "At Llama 3's rate"), ("会中断几次", "按 Llama 3")]
)
def test_restarts_asked_are_counted_on_the_plans_gpu_hours(summary, book, message, lead):
    reply = follow_up(REQUEST, summary, message, book=book)
    expected = summary["gpu_hours"] / 24 / 2100
    assert lead in reply.text and f"{expected:.1f}" in reply.text


def test_a_deposit_asked_is_priced_on_the_plans_lease(summary, book):
    # the deposit FAQ had given its examples only, never the plan's own sum
    reply = follow_up(REQUEST, summary, "押一付三的话首付要多少", book=book)
    month = summary["offer_rate"] * summary["gpu_count"]
    assert money(4 * month, "CNY") in reply.text


@pytest.mark.parametrize(
    "text,message",
    [
        ("13B 全量微调 200GB数据 7天 预算10万", "pay as you go?"),
        ("qwen2.5-32b full finetune 200GB 10 days", "what if we rent by the hour instead?"),
    ],
)
def test_renting_by_the_hour_where_no_hourly_offer_meets_the_deadline_is_the_largest_hourly_order(book, text, message):
    # "按小时租行不行" had said the unpriced H200 plan "is now the cheapest plan that meets the request"; then
    # it led with that plan, "no offer on record", where one hourly server is priced (fiftieth session)
    summary = plan_context(advise(text, book=book))
    reply = follow_up(text, summary, message, book=book)
    p = reply.advice.plan
    assert reply.kind == "whatif" and reply.changed == ["hourly_only"] and p.rent is not None
    assert p.costs.rent_option == "hourly" and not p.meets_deadline and "cheapest" not in (reply.why or "")
    first = reply.warnings[0]
    assert first.code == "hourly_smaller" and first.params["count"] == p.estimate.layout.gpu_count
    assert first.params["n_count"] == summary["gpu_count"] and "ask vendors to bill those" in reply.text


@pytest.mark.parametrize("message,lead", [("are we within budget?", "Within the budget"), ("预算够吗", "在预算之内")])
def test_within_the_budget_asked_says_its_share(book, message, lead):
    text = "7b lora 20GB 3d budget 5000"
    first = advise(text, book=book)
    reply = follow_up(text, plan_context(first), message, book=book)
    assert (reply.kind, reply.part) == ("explain", "budget") and reply.text.startswith(lead)
    assert f"{first.plan.rent / 5000:.0%}" in reply.text


def test_another_budget_asked_is_still_a_budget_whatif(book):
    text = "13B 全量微调 200GB数据 7天 预算10万"
    reply = follow_up(text, plan_context(advise(text, book=book)), "预算只有5万怎么办", book=book)
    assert reply.kind == "whatif" and [c["name"] for c in reply.changes] == ["budget"]


@pytest.mark.parametrize("message", ["what if we rent 16 more?", "what if we had 16 more H800?", "16 more GPUs?"])
def test_more_gpus_said_without_a_unit_or_by_name_add_to_the_plans_count(summary, book, message):
    # "rent 16 more?" and "16 more H800?" had not been understood
    reply = follow_up(REQUEST, summary, message, book=book)
    assert reply.kind == "whatif" and [c["name"] for c in reply.changes] == ["gpu_count"]
    assert reply.advice.request.gpu_count == summary["gpu_count"] + 16


@pytest.mark.parametrize(
    "message,lang", [("用中文回答", "zh"), ("lang zh", "zh"), ("in English please", "en"), ("answer in chinese", "zh")]
)
def test_asking_for_another_language_gives_the_plans_numbers_in_it(lora, book, message, lang):
    reply = follow_up(LORA, lora, message, book=book)
    assert (reply.kind, reply.part, reply.lang) == ("explain", "overview", lang)
    assert f"{lora['gpu_hours']:,.0f}" in reply.text
    assert bool(re.search(r"[\u4e00-\u9fff]", reply.text)) == (lang == "zh")


@pytest.mark.parametrize("message", ["how much if we buy?", "买的话多少钱"])
def test_how_much_to_buy_prices_this_plans_gpus(summary, book, message):
    # it had searched again by purchase price: another GPU, and a 60-month lease as its rent
    reply = follow_up(REQUEST, summary, message, book=book)
    plan = reply.advice.plan
    assert reply.kind == "whatif" and reply.advice.request.rent_or_buy == "buy"
    assert (plan.gpu, plan.estimate.layout.gpu_count) == (summary["gpu"], summary["gpu_count"])
    assert plan.costs.buy_capex


@pytest.mark.parametrize(
    "question,gpu,kinds,markets",
    [
        ("how much does an H100 cost per hour?", "H100-SXM5-80GB", {"rent_hour", "offpeak_hour"}, None),
        ("H100一小时多少钱", "H100-SXM5-80GB", {"rent_hour", "offpeak_hour"}, None),  # not a 1-hour deadline
        ("what do H20s rent for?", "H20-96GB", None, None),
        ("H20月租多少", "H20-96GB", {"rent_month"}, None),
        ("what's the going rate for 4090s", "RTX4090-24GB", None, None),
        ("H200 hourly price in the US?", "H200-SXM-141GB", {"rent_hour", "offpeak_hour"}, {"global"}),
        ("Ascend 910B 价格", "Ascend-910B-64GB", None, None),
    ],
)
def test_a_gpus_price_is_answered_with_the_offers_on_record(summary, book, question, gpu, kinds, markets):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "prices" and reply.part == gpu, (reply.kind, reply.text[:200])
    offers = [o for g in reply.rows for o in g["offers"]]
    assert offers and all(kinds is None or o["kind"] in kinds for o in offers)
    assert all(markets is None or o["market"] in markets for o in offers)
    assert f"/gpu prices {gpu}" in reply.text
    assert offers[0]["as_of"] in reply.text  # each offer with its date


@pytest.mark.parametrize(
    "question",
    ["how much would it cost on A800?", "A800上要多少钱", "how much on H100?", "用H20要多少钱", "8卡H800每月9万合理吗"],
)
def test_a_price_of_the_job_on_a_gpu_is_not_a_price_list(summary, book, question):
    assert follow_up(REQUEST, summary, question, book=book).kind in ("whatif", "quote")


def test_a_price_question_without_a_plan_is_answered_from_the_price_store(cli):
    out = cli("faq", "--json", "how much is an H800 server to buy?")
    found = json.loads(out.stdout)
    assert found["topic"] == "prices" and found["gpu"] == "H800-SXM-80GB" and found["confident"]
    assert "To buy" in found["answer"] and "a server of 8 GPUs" in found["answer"]
    assert cli("faq", "why NVLink?").stdout.strip()  # other questions still go to the FAQ


@pytest.mark.parametrize(
    "question,kind,changed",
    [
        ("how long does it take?", "explain", None),  # the plan's own time
        ("训练要多久", "explain", None),
        ("how long does it take on 4 cards?", "whatif", ("gpu_count", "4 × H800-SXM-80GB")),
        ("用4张卡要多久", "whatif", ("gpu_count", "4 × H800-SXM-80GB")),  # 多久 is not "4 more"
        # a 7-hour plan under a 7-day deadline: 3 weeks change nothing, said in a line
        ("we can wait 3 weeks", "unchanged", ("deadline_days", "21 days")),
        ("我们可以等3周", "unchanged", ("deadline_days", "21 天")),
        ("换成A800要多少钱", "whatif", ("gpu", "A800-SXM4-80GB")),
        ("怎么这么贵", "explain", None),
    ],
)
def test_how_long_waiting_and_asking_the_price_on_another_gpu(book, question, kind, changed):
    text = "全参微调 Qwen2.5-14B，10亿 token，用 8卡H800，7天"
    reply = follow_up(text, plan_context(advise(text, book=book)), question, book=book)
    assert reply.kind == kind, (reply.kind, reply.text[:200])
    if changed:
        assert [(c["name"], c["after"]) for c in reply.changes] == [changed]
    if question in ("how long does it take?", "训练要多久"):
        assert reply.part == "time"


@pytest.mark.parametrize(
    "request_text",
    [
        "用LoRA微调Qwen2.5-72B，数据5亿token，预算20万，15天内完成",
        "70B full-finetune 1TB 14d",
        # a rent of ¥23.6 stored as ¥24: the same plan had read as cheaper, "with deadline 0.5
        # days the plan stays the same", a deadline the team never gave
        "72B QLoRA 1万条 用4090",
    ],
)
def test_cheaper_never_answers_with_a_dearer_plan(book, request_text):
    """ "cheaper?" re-plans with twice the time; where that costs no less (an hourly plan keeps its
    GPU-hours), the plan is already the cheapest and the reply says so."""
    first = advise(request_text, book=book)
    reply = follow_up(request_text, plan_context(first), "cheaper?", book=book)
    if reply.kind == "whatif":
        assert reply.advice.plan.rent < first.plan.rent
    else:
        assert reply.kind == "unchanged" and ("already the cheapest" in reply.text or "已是" in reply.text)
        assert reply.advice.plan.rent >= first.plan.rent * 0.99 and "deadline" not in reply.text


def test_already_the_cheapest_names_fp8_for_a_full_training_in_16_bit(book):
    # the reply had listed fewer epochs, a smaller model, off-peak and quotes, not the FP8 what-if
    # that costs less
    text = "deepseek-v3 pretrain 2T tokens 60d"
    reply = follow_up(text, plan_context(advise(text, book=book)), "cheaper?", book=book)
    assert reply.kind == "unchanged" and "what about fp8?" in reply.text
    lora = "72B QLoRA 1万条 用4090"
    assert "fp8" not in follow_up(lora, plan_context(advise(lora, book=book)), "cheaper?", book=book).text


def test_a_framework_named_in_a_why_gets_the_framework_not_a_layout_knob(summary, book):
    # "why FSDP2 and not megatron?" had been read as "why ZeRO-3?"
    reply = follow_up(REQUEST, summary, "why FSDP2 and not megatron?", book=book)
    assert reply.kind == "question" and reply.faq["topic"] == "framework_choice"
    assert follow_up(REQUEST, summary, "why zero3?", book=book).part == "layout"


def test_the_teams_own_stack_after_a_why_is_a_whatif(book):
    # "为什么用Megatron，我们用LLaMA-Factory" had been "I could not tell"
    text = "qwen2.5-7b lora 5万条 3天"
    reply = follow_up(text, plan_context(advise(text, book=book)), "为什么用Megatron，我们用LLaMA-Factory", book=book)
    assert reply.kind == "whatif" and reply.changes[0]["name"] == "stack" and reply.advice.request.stack == "hf"


def test_a_count_named_against_the_plans_is_among_the_counts_shown(summary, book):
    # "why 224 GPUs and not 256?" had shown 112, 224 and 448 only
    other = summary["gpu_count"] + 32
    reply = follow_up(REQUEST, summary, f"why {summary['gpu_count']} GPUs and not {other}?", book=book)
    assert reply.part == "gpus" and other in [r["count"] for r in reply.rows]


@pytest.mark.parametrize("message,lead", [("要几台服务器", "1 台服务器"), ("how many servers?", "1 server of 4 GPUs")])
def test_servers_asked_lead_with_the_servers(book, message, lead):
    # "要几台服务器" had listed GPU counts and never said "1 台"
    text = "llama3-8b dpo 20k pairs 2d"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert reply.part == "gpus" and reply.text.startswith(lead)


@pytest.mark.parametrize(
    "text,lead", [("70B full-finetune 1TB 14d on H100", "Bought, 224 x H100"), (REQUEST, "No lead time is on record")]
)
def test_delivery_asked_is_the_purchase_lead_time_on_record(book, text, lead):
    # "how long is the delivery for 224 servers?" had been the FAQ's 5-10 working days of setup
    reply = follow_up(text, plan_context(advise(text, book=book)), "how long is the delivery?", book=book)
    assert (reply.kind, reply.part) == ("explain", "delivery") and reply.text.startswith(lead)
    assert "weeks from order" in reply.text or "delivery date in writing" in reply.text


def test_a_whatif_that_moves_the_split_says_so(summary, book):
    # "what about seq 8192?" had shown memory falling (52.4 -> 50 GiB) without the tp 1 -> 2 behind it
    reply = follow_up(REQUEST, summary, "what about seq 8192?", book=book)
    lay = reply.advice.plan.estimate.layout
    assert (reply.before["tp"], reply.before["dp"]) != (lay.tp, lay.dp)
    assert f"tp {lay.tp} x pp {lay.pp} x dp {lay.dp}" in reply.text
    from bot import blocks

    fields = [f["text"] for b in blocks.whatif(reply)["blocks"] for f in b.get("fields", [])]
    assert any(f.startswith("*Layout*") and f"tp {lay.tp} × pp {lay.pp}" in f for f in fields)


@pytest.mark.parametrize(
    "message,kind,part",
    [
        ("能再省点吗", "unchanged", None),  # the cheapest already: said so
        ("这个配置靠谱不", "part", "risks"),
        ("为啥这么慢", "explain", "time"),
        ("IB是必须的吗", "question", None),  # one server: the FAQ's answer on it
    ],
)
def test_colloquial_chinese_follow_ups_are_answered(book, message, kind, part):
    # each had been "这句话我不知道该怎么处理"
    text = "qwen2.5-72b 全参sft 数据50w条 平均2k token 两周内要出结果"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert (reply.kind, reply.part) == (kind, part)
    if kind == "question":
        assert reply.faq["topic"] == "internode_network" and reply.faq["confident"]


def test_a_deadline_asked_with_neng_bu_neng_is_a_whatif(book):
    text = "qwen2.5-72b 全参sft 数据50w条 平均2k token 两周内要出结果"
    reply = follow_up(text, plan_context(advise(text, book=book)), "能不能三天内搞完", book=book)
    assert reply.kind in ("whatif", "unchanged") and reply.changes[0]["name"] == "deadline_days"


def test_a_fabric_asked_as_a_must_gets_the_networks_reason(summary, book):
    assert follow_up(REQUEST, summary, "IB是必须的吗", book=book).part == "network"


def test_another_gpu_type_under_owned_gpus_is_as_many_and_not_owned(book):
    # "换成H800要多久" on the team's own 16 A800 had planned 80 H800 as if the team owned them
    text = "我们有16张A800 想做llama3-70b的CPT 语料大概200B token 要多久"
    reply = follow_up(text, plan_context(advise(text, book=book)), "换成H800要多久", book=book)
    req = reply.advice.request
    assert (req.gpu, req.gpu_count, req.owned) == ("H800-SXM-80GB", 16, False)
    assert reply.after["rent_total"] and not reply.after.get("owned")


@pytest.mark.parametrize("message", ["跟H800比哪个划算", "compared with H800?"])
def test_one_gpu_set_against_the_plans_is_compared(book, message):
    # "跟H800比哪个划算" had been "这句话我不知道该怎么处理"
    text = "qwen3-32b lora rank 64 数据20w条 h20"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert reply.kind == "whatif" and reply.advice.plan.gpu == "H800-SXM-80GB" and reply.why


def test_why_not_another_gpu_under_a_named_one_says_it_was_named(book):
    # "为啥不用A800" under a request naming H20 had said the alternatives explain why H20 ranked
    # first ("a tie", "availability"), though A800 costs less and H20 was asked for
    text = "qwen3-32b lora rank 64 数据20w条 h20"
    reply = follow_up(text, plan_context(advise(text, book=book)), "why not A800?", book=book)
    assert reply.why.startswith("8 x H20-96GB because the request names H20-96GB. On A800-")
    assert reply.why.endswith("Say `on A800-SXM4-80GB` in the request to plan on it instead."), reply.why


def test_the_electricity_of_a_month_is_the_electricity_not_the_rent(book):
    # "电费一个月多少" had been read as a month's cost and answered with the rent's arithmetic
    text = "我们有16张A800 想做llama3-70b的CPT 语料大概200B token 要多久"
    reply = follow_up(text, plan_context(advise(text, book=book)), "电费一个月多少", book=book)
    assert reply.kind == "question" and "每月约用电" in reply.text


def test_buying_a_count_of_a_gpu_is_a_buy_whatif_not_the_price_list(book):
    # "买64张H800多少钱" had listed H800's prices, no total
    text = "我们有16张A800 想做llama3-70b的CPT 语料大概200B token 要多久"
    reply = follow_up(text, plan_context(advise(text, book=book)), "买64张H800多少钱", book=book)
    req = reply.advice.request
    assert reply.kind == "whatif" and (req.gpu, req.gpu_count, req.rent_or_buy) == ("H800-SXM-80GB", 64, "buy")
    assert reply.advice.plan.costs.buy_capex and money(reply.advice.plan.costs.buy_capex, "CNY") in reply.text


def test_a_number_asked_under_a_change_is_the_whatif(book):
    # "用deepspeed zero3跑的话显存够不够" had explained the current layout's memory
    text = "qwen2.5-72b 全参sft 数据50w条 平均2k token 两周内要出结果"
    reply = follow_up(text, plan_context(advise(text, book=book)), "用deepspeed zero3跑的话显存够不够", book=book)
    assert reply.kind == "whatif" and {c["name"] for c in reply.changes} == {"stack", "zero_stage"}


def test_the_risks_reply_speaks_of_the_plans_own_gpu(book):
    """ "有什么风险" under a plan: availability of its own GPU, not of the alternatives' parts."""
    text = "全参微调 DeepSeek-V3，数据 20亿 token，预算 300万，30天"
    first = advise(text, book=book)
    others = {a.gpu for a in first.result.alternatives} - {first.plan.gpu}
    said = [w for w in first.warnings if w.code == "availability" and set(w.params["gpus"]) & others]
    assert said, "the answer itself names the alternatives' supply; the risks reply must not"
    reply = follow_up(text, plan_context(first), "有什么风险", book=book)
    assert reply.kind == "part" and reply.part == "risks"
    assert not [g for g in others if f"{g} 供货" in reply.text or f"{g}、" in reply.text]


@pytest.mark.parametrize(
    "question",
    ["how much per GPU-hour are you assuming?", "what rate did you use?", "what's the monthly rent?", "每卡时多少钱"],
)
def test_the_rate_the_plan_is_priced_at_is_answered_from_its_costs(summary, book, question):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert (reply.kind, reply.part) == ("explain", "costs"), (reply.kind, reply.text[:150])


def test_the_servers_reply_of_a_many_server_plan_gives_the_totals(book):
    text = "70B full-finetune 1TB 14d"
    first = advise(text, book=book)
    infra, nodes = first.plan.infra, first.plan.estimate.layout.nodes
    reply = follow_up(text, plan_context(first), "how many racks and how much power?", book=book)
    assert nodes > 1 and "In all" in reply.text
    kw = nodes * infra.power_kw_per_node
    assert f"{nodes} servers: {kw:,.0f} kW" in reply.text or f"{nodes} servers: {kw:,.3g} kW" in reply.text


@pytest.mark.parametrize("question", ["H20和H800哪个好", "H800 vs H20?", "H20 or H800, which is better?"])
def test_which_of_two_gpus_is_better_compares_the_plan_on_the_other(book, question):
    text = "用LoRA微调Qwen2.5-72B，数据5亿token，预算20万，15天内完成"
    first = advise(text, book=book)
    assert first.plan.gpu == "H800-SXM-80GB"
    reply = follow_up(text, plan_context(first), question, book=book)
    assert reply.kind == "whatif" and reply.changed == ["gpu"] and reply.advice.plan.gpu == "H20-96GB"


def test_fp8_asked_of_a_plan_on_a_gpu_without_it_says_so(book):
    # (an A100 plan: the Ascend plan this had used is no longer chosen on its doubted rent)
    text = "continued pretraining qwen2.5-72b on 500B tokens of chinese data, budget ¥3M, 3 months"
    first = advise(text, book=book)
    from advisor import catalog

    assert not catalog.get_gpu(first.plan.gpu).fp8_dense_tflops  # the plan is on a part without fp8
    reply = follow_up(text, plan_context(first), "should we use FP8?", book=book)
    assert reply.kind == "whatif" and reply.advice.plan.gpu != first.plan.gpu
    assert f"{first.plan.gpu} has no FP8 tensor cores" in reply.text


def test_why_not_another_method_is_not_worded_as_a_gpu_choice(book):
    text = "QLoRA Llama 3.1 8B on 1 GPU, 50M tokens, usd, 3 days"
    summary = plan_context(advise(text, book=book))
    method = follow_up(text, summary, "why not full fine-tune?", book=book)
    assert method.changed == ["method"] and "was chosen" not in method.text
    gpu = follow_up(text, summary, "why not H100?", book=book)
    assert gpu.changes[0]["before"] == f"1 × {summary['gpu']}"  # the plan's GPU, not the bare count


@pytest.mark.parametrize(
    "question,kind,part,shown",
    [
        # "per GPU?" had read as a question on the rent's terms: the cost section
        ("how much memory per GPU?", "explain", "memory", "GiB per GPU"),
        ("显存多少?", "explain", "memory", "每卡"),
        ("how many servers?", "explain", "gpus", "H800"),
        ("monthly lease price?", "explain", "costs", "per GPU-month"),
        # the digit of a layout word is no figure to trace, nor a what-if: the layout's own reason
        ("why ZeRO-3?", "explain", "layout", "ZeRO-"),
    ],
)
def test_questions_on_the_plans_own_numbers_get_that_number(summary, book, question, kind, part, shown):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert (reply.kind, reply.part) == (kind, part) and shown in reply.text


def test_a_buy_or_rent_answer_in_chinese_says_the_decision_in_chinese(book):
    text = "7B LoRA 1B tokens 1 day"
    reply = follow_up(text, plan_context(advise(text, book=book)), "买还是租?", "zh", book=book)
    assert "建议是：租用" in reply.text and "rent" not in reply.text


def test_more_time_never_gives_a_dearer_plan(book):
    # the search under 60 days had landed on 256 Ascend for ¥817k over the thread's 320 for ¥756k,
    # which already meets 60 days
    text = "deepseek-v3 full finetune 200B tokens 30 days"
    summary = plan_context(advise(text, book=book))
    reply = follow_up(text, summary, "what if we had 60 days?", book=book)
    if reply.kind == "unchanged":
        assert f"{summary['gpu_count']} x" in reply.text
    else:  # another plan only where it costs no more (a plan of 28 days had no room under 30)
        assert reply.after["rent_total"] <= summary["rent_total"]


def test_faster_is_not_held_to_a_deadline_the_team_never_gave(book):
    text = "405B pretrain 15T tokens 90d usd"
    reply = follow_up(text, plan_context(advise(text, book=book)), "faster?", book=book)
    assert reply.kind == "whatif" and "Misses the deadline" not in reply.text


def test_a_what_if_without_a_rent_on_record_says_so_in_its_row(book):
    text = "qwen3-30b-a3b lora 20B tokens 7 days"
    reply = follow_up(text, plan_context(advise(text, book=book)), "what if we use 16 GPUs?", book=book)
    row = next(line for line in reply.text.splitlines() if line.strip().startswith("rent:"))
    assert "?" not in row and ("no offer on record" in row or "¥" in row.split("->")[1])


def test_the_plans_fabric_is_worded_in_the_replys_language(summary, book):
    # an English plan asked "为什么要InfiniBand?" had quoted its fabric in English ("rail-optimised")
    reply = follow_up(REQUEST, summary, "为什么要InfiniBand?", book=book)
    assert "多轨" in reply.text and "rail-optimised" not in reply.text


def test_why_pcie_on_cards_without_nvlink_says_they_have_none(book):
    text = "70B LoRA on 8x4090 100M tokens"
    reply = follow_up(text, plan_context(advise(text, book=book)), "why PCIe?", book=book)
    assert "no NVLink" in reply.text and "NVLink mainly speeds up" not in reply.text


@pytest.mark.parametrize(
    "text,question,link",
    [
        ("3B pretrain 2T tokens 3 months on 64x910B", "why NVLink?", "HCCS"),
        ("3B 预训练 2T token 3个月 用64张910B", "为什么要NVLink", "HCCS"),
        ("13B full-finetune 200GB 7d on 8xMI300X usd", "why NVLink?", "InfinityFabric"),
    ],
)
def test_why_nvlink_under_cards_of_another_link_names_theirs(book, text, question, link):
    # a 910B plan had been told NVLink "mainly speeds up gradient and shard exchange"
    reply = follow_up(text, plan_context(advise(text, book=book)), question, book=book)
    assert link in reply.text and ("no NVLink" in reply.text or "没有NVLink" in reply.text)
    assert "NVLink mainly speeds up" not in reply.text and "NVLink主要用于" not in reply.text


@pytest.mark.parametrize(
    "text,question,changed",
    [
        ("70B full-finetune 1TB 14d budget", "H100 or H800?", ["gpu"]),
        ("70B full-finetune 1TB 14d budget", "would A100 be cheaper?", ["gpu"]),
        ("70B LoRA on 8x4090 100M tokens", "would A100 be faster?", ["gpu"]),
        ("70B LoRA on 8x4090 100M tokens", "用A100快吗?", ["gpu"]),
        ("70B LoRA on 8x4090 100M tokens", "can we do full fine-tune on these?", ["method"]),
    ],
)
def test_short_comparisons_are_the_plan_on_the_gpu_or_method_named(book, text, question, changed):
    # each had been "I could not tell what to do with that" ("用A100快吗" the FAQ on mixing GPUs)
    reply = follow_up(text, plan_context(advise(text, book=book)), question, book=book)
    assert reply.kind == "whatif" and reply.changed == changed


@pytest.mark.parametrize(
    "question,shown,left_out",
    [
        ("how much power?", "kW per server", "NVMe"),
        ("功耗多少?", "kW", "NVMe"),
        ("why 1280 GiB RAM?", "RAM 1280 GiB", "kW per server"),
        ("what storage do we need?", "storage read", "kW per server"),
        ("what server spec do we need?", "kW per server", None),  # the whole spec
        # the part named alone had been "I could not tell what to do with that"
        ("storage?", "storage read", "kW per server"),
        ("and the network?", "between nodes", "storage read"),
        ("存储呢", "存储读带宽", "kW"),
        ("power?", "kW per server", "NVMe"),
    ],
)
def test_a_question_on_one_server_figure_gets_that_line(summary, book, question, shown, left_out):
    # every hardware question had got the same whole server block
    reply = follow_up(REQUEST, summary, question, book=book)
    assert shown in reply.text and (left_out is None or left_out not in reply.text)
    if left_out is None:
        assert "NVMe" in reply.text


@pytest.mark.parametrize(
    "chatter",
    [
        "cool thanks",
        "谢谢，很有帮助",
        "好的 收到",
        "lol this is great",
        "👍",
        "ok!!",
        "np, thx",
        "谢啦",
        "行 我再想想",
        "ok let me think about it",
    ],
)
def test_thanks_strung_together_or_an_emoji_get_no_answer_even_when_mentioned(summary, book, chatter):
    # "cool thanks" had got the cooling answer, "好的 收到" the list of what the bot can do
    assert follow_up(REQUEST, summary, chatter, book=book, mentioned=True).kind == "silent"


@pytest.mark.parametrize("question", ["ok, cheaper?", "好的，那换成H20呢", "nice. why nvlink?"])
def test_a_question_after_thanks_is_still_answered(summary, book, question):
    assert follow_up(REQUEST, summary, question, book=book).kind != "silent"


@pytest.mark.parametrize("question", ["USD?", "美元？"])
def test_a_currency_alone_converts_like_in_usd(summary, book, question):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "explain" and reply.part == "currency" and reply.advice.plan.gpu == summary["gpu"]


def test_a_budget_in_the_other_currency_is_converted_in_the_plans_market(book):
    text = "13B full-finetune 200GB 7d budget ¥100k"
    thread = _thread(text, book)
    reply = follow_up(*thread, "如果预算是2万美元呢", book=book)
    assert reply.kind in ("whatif", "unchanged") and reply.advice.request.market == "china"
    budget = reply.advice.request.budget
    assert budget.currency == "CNY" and budget.amount == pytest.approx(20_000 * book.usd_cny, abs=1)
    # a cloud named beside it still moves the plan abroad
    abroad = follow_up(*thread, "what if the budget were $20k on AWS?", book=book)
    assert abroad.kind == "market" and abroad.advice.request.market == "global"
    # the first plan's GPU has no price there: said in words, not a bare "?"
    assert "?." not in abroad.text and "?" not in abroad.why


def test_the_counts_around_the_plan_say_how_each_rent_is_billed(book):
    reply = follow_up(*_thread("qwen3-32b sft 2亿token 5天", book), "why this many GPUs?", book=book)
    assert reply.kind == "explain" and reply.part == "gpus" and reply.rows
    for row in (r for r in reply.rows if r["rent"]):
        line = next(x for x in reply.text.splitlines() if x.strip().startswith(f"{row['count']} GPU"))
        said = "(by the hour)" if row["option"] == "hourly" else "billed by the month"
        assert said in line, line


@pytest.mark.parametrize(
    "question",
    [
        "rent for 3 months?",
        "how much to rent for just 1 month?",
        # a vendor's minimum (the menu, a what-if table or the costs before)
        "the vendor says minimum 12 months, does it still make sense?",
        "they want a 12-month minimum",
        "what if the minimum term is 3 months?",
    ],
)
def test_renting_for_some_months_is_a_lease_term_not_a_deadline(summary, book, question):
    # "rent for 3 months?" had moved the deadline to 90 days and planned a 60-month lease
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.changed == ["lease_term_months"]
    # the plan on the table priced on that term (threads19b), not a what-if table
    months = 3 if "3" in question else (12 if "12" in question else 1)
    assert reply.text.startswith(f"The plan on the table on a {months}-month lease: {summary['gpu_count']} x")


def test_thanks_with_a_particle_and_by_the_hour_in_two_characters(summary, book):
    assert (
        follow_up(REQUEST, summary, "谢谢啦", book=book).kind == "silent"
    )  # it had got the list of what the bot can do
    assert follow_up(REQUEST, summary, "按量呢", book=book).changed == ["hourly_only"]  # it had got an FAQ on terms


def test_a_use_of_our_own_shows_owning_against_renting_over_it(book):
    # "如果用两年呢" had said the plan stays the same, without the comparison a request with
    # `用两年` shows
    reply = follow_up(*_thread("7B 预训练 1T tokens 1个月 买还是租划算", book), "如果用两年呢", book=book)
    assert reply.kind == "explain" and reply.part == "costs"
    assert reply.advice.plan.costs.own_use and reply.advice.plan.costs.own_use["months"] == 24
    assert "自用 24 个月" in reply.text


@pytest.mark.parametrize("question,field,value", [("单卡行吗", "gpu_count", 1), ("seq改成8k呢", "seq_len", 8192)])
def test_short_chinese_changes_are_read(book, question, field, value):
    thread = _thread("qwen2.5-7b lora 5万条 3天", book)
    reply = follow_up(*thread, question, book=book)
    assert reply.kind in ("whatif", "unchanged") and field in reply.changed
    assert getattr(reply.advice.request, field) == value


def test_why_the_plans_family_explains_and_a_count_on_another_gpu_replans_on_it(book):
    # a bare family name ("H800" for H800-SXM-80GB) names the plan's GPU, so it asks why this GPU
    thread = _thread("qwen2.5-7b lora 5万条 3天", book)
    family = thread[1]["gpu"].split("-")[0]
    assert family in ("A100", "H800", "H20", "A800") and family != "A800"
    why = follow_up(*thread, f"为什么是{family}", book=book)
    assert why.kind == "explain" and why.part == "gpu_type"
    # "换成A800要几台": the count on A800, a what-if, not this plan's count explained
    other = follow_up(*thread, "换成A800要几台", book=book)
    assert other.kind == "whatif" and other.after["gpu"] == "A800-SXM4-80GB"
    assert follow_up(*thread, "要几台", book=book).part == "gpus"


def test_faster_on_a_job_of_hours_doubles_the_gpus(book):
    thread = _thread("qwen2.5-7b lora 5万条 3天", book)
    assert thread[1]["days"] < 1
    reply = follow_up(*thread, "能不能再快点", book=book)
    assert reply.kind == "whatif" and reply.after["gpu_count"] == 2 * thread[1]["gpu_count"]
    assert reply.after["days"] < thread[1]["days"]


@pytest.mark.parametrize(
    "question,field,value",
    [
        ("what if samples are 4k tokens each?", "tokens_per_sample", 4000),
        ("what if each sample is 4000 tokens?", "tokens_per_sample", 4000),
        ("what about 4 of them?", "gpu_count", 4),
        ("is it faster on a 5090?", "gpu", "RTX5090-32GB"),
    ],
)
def test_english_changes_said_in_passing_are_read(book, question, field, value):
    # a probe had these answered with FAQ text ("0.0 days"), the rack-power topic, or "could not tell"
    thread = _thread("fine tune qwen3 32b on 50k chat samples in 5 days, cheapest", book)
    reply = follow_up(*thread, question, book=book)
    assert reply.kind in ("whatif", "unchanged") and field in reply.changed
    assert getattr(reply.advice.request, field) == value


def test_speed_and_cost_by_the_day_are_the_plans_own_sections(book):
    thread = _thread("fine tune qwen3 32b on 50k chat samples in 5 days, cheapest", book)
    for question in ("tokens per second?", "每秒多少token", "what's the MFU?"):
        reply = follow_up(*thread, question, book=book)
        assert reply.part == "time" and "tokens/s per GPU" in reply.text or "每卡每秒" in reply.text
    assert follow_up(*thread, "how much does it cost to run per day?", book=book).part == "costs"


def test_a_fabric_asked_of_a_one_server_plan_is_answered_not_replanned(book):
    thread = _thread("fine tune qwen3 32b on 50k chat samples in 5 days, cheapest", book)
    assert thread[1]["nodes"] == 1
    reply = follow_up(*thread, "do we need infiniband?", book=book)
    assert reply.kind == "question" and "one node" in reply.text


def test_one_server_that_meets_nothing_is_not_called_the_cheapest_that_meets_the_request(book):
    thread = _thread("70B full-finetune 1TB 14d budget ¥500k", book)
    reply = follow_up(*thread, "can we do it on one server?", book=book)
    assert reply.kind == "whatif" and not reply.advice.plan.meets_deadline
    assert "cheapest plan that meets" not in reply.text and "no plan meets the deadline now" in reply.text
    assert "which misses the deadline too" in reply.text


def test_a_gpu_that_holds_the_job_at_no_count_is_said_so_and_the_plan_kept(book):
    thread = _thread("帮我算一下 千亿参数模型 预训练 3000亿token 一个月 预算200万", book)
    reply = follow_up(*thread, "用4090呢", book=book)
    assert "RTX4090-24GB 跑不了这个任务" in reply.text and "?" not in reply.text
    assert f"{thread[1]['gpu_count']} × {thread[1]['gpu']}" in reply.text


@pytest.mark.parametrize(
    "question,field,value",
    [("用三年的话买划算吗", "own_use_months", 36), ("如果利用率只有30%呢", "own_utilisation", 0.3)],
)
def test_a_use_said_around_a_question_is_the_same_plans_owning_against_renting(book, question, field, value):
    # these had got the generic rent-or-buy text, and the MFU topic
    reply = follow_up(*_thread("7B 预训练 1T tokens 1个月 买还是租", book), question, book=book)
    assert reply.kind == "explain" and reply.part == "costs"
    assert getattr(reply.advice.request, field) == pytest.approx(value)


def test_a_purchase_the_team_asked_for_is_not_called_the_bots_recommendation(book):
    reply = follow_up(*_thread("70B 全量微调 1TB数据 14天 预算50万 买", book), "回本要多久?", book=book)
    assert "你要求购买" in reply.text and "我们的建议是：购买" not in reply.text


def test_a_budget_fallback_that_runs_for_years_is_not_offered(book):
    result = advise("70B 全量微调 1TB数据 14天 预算50万 买", book=book)
    fallback = result.result.nearest_budget
    assert fallback is None or fallback.days <= 280  # twenty times the 14 days at most


@pytest.mark.parametrize(
    "question",
    # a place abroad ("what about Singapore?" had been "I could not tell what to do with that")
    ["How about in the US?", "what if we rented in the US?", "what about Singapore?", "新加坡呢", "in Europe?"],
)
def test_the_us_said_in_english_moves_the_plan_abroad(book, question):
    reply = follow_up(*_thread("70B full-finetune 1TB 14d budget", book), question, book=book)
    assert reply.kind == "market" and reply.advice.request.market == "global"


def test_how_many_servers_says_the_servers_of_each_count(book):
    # "how many nodes?" had been answered in GPUs alone: each count of several servers says them
    text = "3B pretrain 2T tokens 3 months"
    first = advise(text, book=book)
    from advisor import catalog

    per = catalog.get_gpu(first.plan.gpu).gpus_per_server
    for question, said in (("how many nodes?", "GPUs on {n} servers"), ("要几台服务器", "张卡（{n} 台服务器）")):
        reply = follow_up(text, plan_context(first), question, book=book)
        assert reply.part == "gpus"
        several = [r for r in reply.rows if r["count"] > per]
        assert several and all(said.format(n=r["nodes"]) in reply.text for r in several)


@pytest.mark.parametrize(
    "text,question",
    [
        ("70B full-finetune 1TB 14d", "what about DPO after?"),
        ("70B full-finetune 1TB 14d", "DPO需要多少显存"),
        ("qwen2.5-7b lora 20k samples 2d", "然后做DPO呢"),
    ],
)
def test_dpo_after_the_plan_is_worked_from_its_own_numbers(book, text, question):
    # "what about DPO after?" had been "I could not tell what to do with that"
    advice = advise(text, book=book)
    ctx = plan_context(advice)
    reply = follow_up(text, ctx, question, book=book)
    p = advice.plan
    peft = p.method in ("lora", "qlora")
    assert ctx["dpo_ref_gib_per_gpu"] == (0 if peft else round(p.estimate.memory.weights, 1))
    # a reference forward pass (2N) on top of 6N, or of LoRA's 4N
    per_b = p.estimate.days / (advice.request.tokens / 1e9) * (6 / 4 if peft else 8 / 6)
    assert ctx["dpo_days_per_b_tokens"] == pytest.approx(per_b, rel=0.01)
    said = ctx["dpo_days_per_b_tokens"]  # as the answer rounds it, to a thousandth of a day
    shown = f"{said:.1f}" if said >= 1 else f"{said * 24:.1f}"
    assert shown in reply.text and p.gpu in reply.text
    assert ("DPO" in reply.text) and "could not tell" not in reply.text


@pytest.mark.parametrize("question", ["rent vs buy?", "租还是买"])
def test_rent_or_buy_past_the_useful_life_says_rent_not_a_count_to_aim_for(book, question):
    # "Buying pays off after about 90 months ...; if you cannot keep them that busy that long, rent"
    text = "3B pretrain 2T tokens 3 months usd on H100"
    ctx = plan_context(advise(text, book=book))
    assert not ctx["breakeven_never"] and ctx["breakeven_months"] > ctx["useful_life_months"] == 48
    reply = follow_up(text, ctx, question, book=book)
    assert ("useful life of about 4 years: rent" in reply.text) or ("超过硬件约 4 年的使用寿命：租用" in reply.text)
    assert "if you cannot keep them that busy" not in reply.text
    # what the plan's break-even counts that the general answer's "38 months" (a server's price
    # over its full-use rent) leaves out, said beside the two
    assert ("takes power, hosting and upkeep out of it" in reply.text) or ("扣掉电费、托管和运维" in reply.text)


@pytest.mark.parametrize(
    "text,question",
    [("7b lora 20GB 3d on 8x4090", "buy instead?"), ("3B pretrain 2T tokens 3 months", "buy instead?")],
)
def test_buy_instead_gives_a_verdict_from_the_plans_own_costs(book, text, question):
    # under "buy", the what-if had shown identical rows and "buy: ¥120,000" with no verdict
    reply = follow_up(text, plan_context(advise(text, book=book)), question, book=book)
    c = reply.advice.plan.costs
    line = next(x for x in reply.text.splitlines() if "For this job alone" in x)
    assert f"¥{round(c.rent_total):,}" in line and f"¥{round(c.buy_capex):,}" in line
    if c.never_pays_back:
        assert line.endswith("buying never pays back at this use. Rent.")
    else:
        assert f"about {c.breakeven_months:.1f} months" in line
    # in Slack it leads the reply in bold, as a missed deadline does
    from bot import blocks

    head = blocks.whatif(reply)["blocks"][0]["text"]["text"]
    assert head.startswith("*For this job alone")


def test_a_price_per_gpu_hour_asked_in_a_thread_is_not_said_twice(book):
    # "$2.5 per GPU-hour for H100-SXM5-80GB is $2.5 per GPU-hour, 0.58x the ..."
    text = "3B pretrain 2T tokens 3 months usd"
    reply = follow_up(text, plan_context(advise(text, book=book)), "is $2.5/hr for H100 fair?", book=book)
    first = reply.text.splitlines()[0]
    assert first.startswith("*$2.5 per GPU-hour for H100-SXM5-80GB: ") and first.count("per GPU-hour") == 1


@pytest.mark.parametrize(
    "question,factor,given",
    [
        ("fewer GPUs, say 512?", None, 512),
        ("what about fewer GPUs?", 0.5, None),
        ("more GPUs?", 2, None),
        ("少点卡呢", 0.5, None),
    ],
)
def test_fewer_or_more_gpus_re_plans_at_the_count_given_or_half_or_twice(book, question, factor, given):
    # "fewer GPUs, say 512?" had got a FAQ on doubling the GPUs; "fewer GPUs?" "could not tell"
    text = "70B pretrain 15T tokens by end of Q2 budget $20M usd"
    ctx = plan_context(advise(text, book=book))
    reply = follow_up(text, ctx, question, book=book)
    assert reply.kind == "whatif" and "gpu_count" in reply.changed
    assert reply.advice.plan.estimate.layout.gpu_count == (given or int(ctx["gpu_count"] * factor))


def test_power_and_rent_or_buy_under_owned_gpus_use_the_plans_market_and_ownership(book):
    # a USD plan on the team's own H100 had been told Inner Mongolia's CNY power price and
    # "our recommendation is: renting"
    text = "we already own 32 H100, continued pretraining llama3-70b on 300B tokens of code, 3 months, usd"
    advice = advise(text, book=book)
    ctx = plan_context(advice)
    c = advice.plan.costs
    assert ctx["owned"] and ctx["power_price"] == c.electricity_per_kwh and ctx["pue"] == c.pue
    kwh = advice.plan.infra.power_kw_per_node * ctx["nodes"] * c.pue * 730
    assert ctx["power_kwh_month"] == round(kwh) and ctx["power_cost_month"] == round(kwh * c.electricity_per_kwh)
    power = follow_up(text, ctx, "what does running it on our own cost us in power?", book=book).text
    assert f"${ctx['power_cost_month']:,}" in power and "USD/kWh" in power and "CNY" not in power.split("\n\n")[0]
    verdict = follow_up(text, ctx, "rent vs buy?", book=book).text
    assert verdict.startswith("These are your own GPUs") and "our recommendation is: renting" not in verdict


def test_buying_asked_with_what_and_the_network_test_of_an_ascend_plan(book):
    # "如果买的话买什么" had been "这句话我不知道该怎么处理"; an Ascend plan had been told nccl-tests
    text = "3B 预训练 2T token 3个月 用64张910B"
    ctx = plan_context(advise(text, book=book))
    buy = follow_up(text, ctx, "如果买的话买什么", book=book)
    assert buy.kind == "whatif" and buy.changed == ["rent_or_buy"]
    net = follow_up(text, ctx, "网络用IB还是RoCE", book=book).text.split("\n\n")[0]
    assert "hccl_test" in net and "nccl-tests" not in net


@pytest.mark.parametrize("question", ["为什么选A100不选H800？", "why A100 and not H800?", "why A100 over H800"])
def test_why_this_gpu_and_not_that_one_compares_with_the_one_passed_over(book, question):
    # "为什么选A100不选H800" had got the generic FAQ, arguing H800 was cheaper per PFLOPS
    text = "qwen2.5-72b 继续预训练 5000亿token 3个月 用A100"
    reply = follow_up(text, plan_context(advise(text, book=book)), question, book=book)
    assert reply.kind == "whatif" and reply.advice.plan.gpu.startswith("H800")


def test_a_gpu_change_with_its_count_is_said_once(book):
    # "那如果是8张3090呢？" had read "显卡 4 × RTX4090 -> 8 × RTX3090、显卡数量 4 × RTX4090 -> 8 × RTX3090"
    text = "qwen2.5-7b 全参微调 10万条 用4张4090"
    summary = plan_context(advise(text, book=book))
    reply = follow_up(text, summary, "那如果是8张3090呢？", book=book)
    header = next(line for line in reply.text.splitlines() if line.startswith("假如"))
    assert header.count("8 × RTX3090") == 1


def test_buy_more_on_owned_gpus_is_more_of_them_not_the_same_bought(book):
    # "should we buy more?" on 16 owned H100 had priced buying the same 16 ("16 x H100 -> 16 x H100")
    text = "we have 16 H100s in house, llama3-70b lora 100k samples usd"
    summary = plan_context(advise(text, book=book))
    reply = follow_up(text, summary, "should we buy more?", book=book)
    assert reply.kind == "whatif" and reply.advice.plan.estimate.layout.gpu_count == 32
    assert "rent_or_buy" not in [c["name"] for c in reply.changes]
    # the purchase of the 16 more is priced beside their rent (it had shown only renting them)
    said = {w.code: w.params for w in reply.warnings}["owned_extra"]
    assert said["extra"] == 16 and said["buy_servers"] == 2 and said["buy_capex"] > 100 * said["rent"]
    assert "Buying them instead" in reply.text


def test_buying_more_owned_cards_prices_the_purchase_and_a_same_plan_what_if_says_own_gpus(book):
    text = "qwen3-32b 全量微调 30万条 经费20万 我们有8张A800"
    summary = plan_context(advise(text, book=book))
    bought = follow_up(text, summary, "如果再买8张A800呢", book=book)
    said = {w.code: w.params for w in bought.warnings}["owned_extra"]
    assert (said["extra"], said["buy_servers"]) == (8, 1) and "若改为购买" in bought.text
    rented = follow_up(text, summary, "如果有16张A800呢", book=book)  # renting: no purchase said
    assert "buy_capex" not in {w.code: w.params for w in rented.warnings}["owned_extra"]
    # a what-if that keeps the plan on the team's own cards names no rent ("12 小时，¥487" had)
    same = follow_up(text, summary, "如果有30天呢", book=book)
    assert same.kind == "unchanged" and "用你们自有的显卡" in same.text and "¥" not in same.text


def test_a_what_if_that_moves_the_framework_says_why_from_the_same_gpus_on_the_first_one(book):
    # "更快吗" under DeepSeek-V3 on H800 had moved Megatron-Core -> FSDP2/torchtitan without a word;
    # since expert groups straddling servers count as crossing them, DeepSeek-V3's faster plan keeps
    # Megatron-Core, and Qwen3-235B's moves
    request = "qwen3-235b-a22b 增量预训练 1000亿token 用H800 60天"
    summary = plan_context(advise(request, book=book))
    reply = follow_up(request, summary, "faster?", "en", book=book)
    after = reply.after["framework"]
    assert after != summary["framework"]
    said = [w for w in reply.warnings if w.code == "framework_changed"]
    assert len(said) == 1 and said[0].params["before"] == summary["framework"] and said[0].params["after"] == after
    assert f"Say `{summary['stack']}` to keep" in reply.text or "no split" in reply.text
    # the days it quotes for the first framework are that framework's plan on the same GPUs
    kept = said[0].params["kept_days"]
    pinned = advise(f"{request} {summary['stack']} on {said[0].params['count']}xH800", book=book)
    assert kept == pytest.approx(pinned.plan.estimate.days) if kept else not pinned.plan.estimate.fits


@pytest.mark.parametrize("question", ["what if we rented 64 GPUs?", "what if we use 64 H800?"])
def test_a_count_said_with_a_verb_is_the_what_if_on_it(book, question):
    # "what if we rented 64 GPUs?" had not been understood ("with 64 GPUs?" was)
    text = "13b sft 20GB 7d"
    summary = plan_context(advise(text, book=book))
    reply = follow_up(text, summary, question, book=book)
    assert reply.kind == "whatif" and reply.advice.plan.estimate.layout.gpu_count == 64


@pytest.mark.parametrize(
    "question,total", [("如果再买4张A800呢", 12), ("what if we buy 8 more A800?", 16), ("should we buy more?", 16)]
)
def test_buying_a_number_more_of_the_owned_gpus_adds_that_many(book, question, total):
    # "再买4张" had been read as twice the owned 8 (16), and "buy 8 more A800" was answered from the FAQ
    text = "qwen3-32b 全量微调 30万条 经费20万 我们有8张A800"
    summary = plan_context(advise(text, book=book))
    reply = follow_up(text, summary, question, book=book)
    assert reply.kind == "whatif" and reply.advice.plan.estimate.layout.gpu_count == total


@pytest.mark.parametrize(
    "request_text,question,after",
    [
        ("7b lora 20GB 3d", "what about 3 more days?", 6),
        ("7b lora 20GB 3d", "what if we had 3 more days?", 6),
        ("7b lora 20GB 3d", "another 4 days?", 7),
        ("7b lora 20GB 3d", "what if we extend the deadline by 7 days?", 10),
        ("7b lora 20GB 3d", "多给3天呢", 6),
        ("7b lora 20GB 3d", "再宽限两天呢", 5),
        ("7b lora 20GB 3d", "延长5天呢", 8),
        # no deadline said: days on top of the plan's own time
        ("7b lora 20GB", "give it 5 more days", None),
    ],
)
def test_days_more_are_added_to_the_deadline_not_taken_for_one(book, request_text, question, after):
    # "3 more days" had got the time-to-first-run FAQ; "延长5天" had not been understood
    thread = _thread(request_text, book)
    reply = follow_up(*thread, question, book=book)
    assert reply.kind in ("whatif", "unchanged") and "deadline_days" in reply.changed
    expected = after if after is not None else round(thread[1]["days"] + 5, 1)
    assert reply.advice.request.deadline_days == pytest.approx(expected)
    # a count of more GPUs is still GPUs, and a deadline said outright still that deadline
    assert follow_up(*thread, "3 more GPUs?", book=book).advice.request.gpu_count == thread[1]["gpu_count"] + 3
    assert follow_up(*thread, "延长到10天呢", book=book).advice.request.deadline_days == 10


@pytest.mark.parametrize(
    "question", ["on one machine?", "can it fit on a single machine?", "could we do it on one box?"]
)
def test_one_machine_in_other_words_is_the_one_server_what_if(summary, book, question):
    # had been "I could not tell what to do with that"
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "whatif" and "one_server" in reply.changed


@pytest.mark.parametrize(
    "question",
    [
        "what's the minimum number of GPUs?",
        "what is the fewest GPUs we could use?",
        "how few GPUs can we get away with?",
    ],
)
def test_the_fewest_gpus_asked_gets_the_counts_around_the_plan(summary, book, question):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert (reply.kind, reply.part) == ("explain", "gpus") and len(reply.rows) >= 2


@pytest.mark.parametrize("question", ["how long should we rent for?", "租多久合适"])
def test_how_long_to_rent_gets_the_terms_the_plan_can_be_signed_on(book, question):
    # "how long should we rent for?" had been read as a what-if on renting; "租多久合适" not at all
    text = "我们想用72B做全参微调，数据大概100GB，两周内，预算200万"
    reply = follow_up(*_thread(text, book), question, book=book)
    assert (reply.kind, reply.part) == ("explain", "costs")
    assert re.search(r"terms you could sign|可签的租期", reply.text)


@pytest.mark.parametrize(
    "message,said",
    [
        ("how much electricity will it use?", "(its share: 4 of each server's 8 GPUs)"),
        ("耗电多少", "每台 8 张卡中的 4 张"),
    ],
)
def test_a_run_on_part_of_a_server_is_charged_its_share_of_the_servers_power(book, message, said):
    # 4 of an 8-GPU server's H800: the run's kWh had been the whole server's, twice its share
    text = "7b lora 20GB 3d on 4 H800"
    advice = advise(text, book=book)
    ctx = plan_context(advice)
    lay, c = advice.plan.estimate.layout, advice.plan.costs
    assert (lay.gpus_per_node, ctx["power_job_gpus"], ctx["power_server_gpus"]) == (4, 4, 8)
    whole = advice.plan.infra.power_kw_per_node * lay.nodes * c.pue * advice.plan.estimate.days * 24
    assert ctx["power_kwh_job"] == round(whole / 2)
    assert said in follow_up(text, ctx, message, book=book).text


@pytest.mark.parametrize(
    "question", ["这个方案要多少电费？", "what's the power bill for this?", "how much will electricity cost?"]
)
def test_the_electricity_bill_is_the_electricity_topic_not_the_servers_power_line(question):
    # "多少电费" and "power bill" had matched the servers part's power words (10.2 kW, no cost)
    from advisor.planning.followup import plan_part

    assert plan_part(question) is None


@pytest.mark.parametrize(
    "question",
    [
        "可以用两台4卡的服务器吗？",
        "用两台4卡服务器呢？",
        "what about 2 servers with 4 GPUs each?",
        "on two 4-gpu servers?",
    ],
)
def test_the_same_gpus_in_smaller_servers_is_a_what_if(question):
    # "两台4卡的服务器" had been refused for 服务器 (a question then), and "两台4卡" read as 8 GPUs alone:
    # "nothing changes" under an 8-GPU plan, where two 4-GPU servers need a network between them
    from advisor.request.parser import parse_followup

    request, changed = parse_followup("qwen2.5-72b 全参微调 20万条 10天", question, plan_gpu="H800-SXM-80GB")
    assert changed == ["gpu_count"]
    assert (request.gpu, request.gpu_count, request.gpus_per_server) == ("H800-SXM-80GB", 8, 4)


def test_servers_smaller_than_the_catalogues_said_in_chinese_are_planned_so():
    from advisor.request.parser import parse

    r = parse("qwen2.5-7b 全参微调 20万条 2台4卡 H800")
    assert (r.gpu_count, r.gpus_per_server) == (8, 4)
    assert any(n.code == "server_shape" for n in r.assumptions)


H20_PLAN = "qwen2.5-32b 全参微调 50GB数据 7天 H20"


@pytest.mark.parametrize(
    "question,count",
    [
        # the purchase named is the what-if, its payback said (had been the plan's own rent-or-buy)
        ("老板问能不能买一台8卡H20，回本要多久", 8),
        ("买一台8卡的回本要多久", 8),
        ("my boss asks: if we buy 2 servers, how long to pay back?", 16),
    ],
)
def test_a_payback_asked_of_a_purchase_is_that_purchases_what_if(book, question, count):
    first = advise(H20_PLAN, book=book)
    reply = follow_up(H20_PLAN, plan_context(first), question, book=book)
    assert reply.kind == "whatif"
    plan = reply.advice.plan
    assert plan.estimate.layout.gpu_count == count and reply.advice.request.rent_or_buy == "buy"
    assert any(w.code == "buy_verdict" for w in reply.warnings)


@pytest.mark.parametrize("question", ["租一年划算还是买划算", "rent for 2 years or buy?", "租两年还是买"])
def test_rent_a_term_or_buy_weighs_owning_over_that_term(book, question):
    first = advise(H20_PLAN, book=book)
    reply = follow_up(H20_PLAN, plan_context(first), question, book=book)
    assert (reply.kind, reply.part) == ("explain", "costs")
    use = reply.advice.plan.costs.own_use
    months = 12 if "一年" in question else 24
    assert use["months"] == months and reply.advice.plan.costs.decision_reason == "own_use"


@pytest.mark.parametrize("question", ["how long to pay back?", "what's the payback period?", "回本要多久"])
def test_a_payback_asked_alone_is_the_plans_rent_or_buy(book, question):
    first = advise(H20_PLAN, book=book)
    reply = follow_up(H20_PLAN, plan_context(first), question, book=book)
    months = round(first.plan.costs.breakeven_months)
    assert reply.kind == "question" and f"{months}" in reply.text.split("\n")[0]


def test_a_card_price_in_dollars_is_said_in_yuan_too(book):
    reply = follow_up(H20_PLAN, plan_context(advise(H20_PLAN, book=book)), "H20买的话多少钱", book=book)
    card = next(line for line in reply.text.splitlines() if "一张卡" in line)
    usd = next(o for o in book.offers("buy_card", "H20-96GB", "china") if o.currency == "USD")
    assert f"${usd.price:,.0f}" in card and f"（约 {money(book.convert(usd.price, 'USD', 'CNY'), 'CNY')}）" in card


@pytest.mark.parametrize("question", ["how long per epoch?", "每轮要多久", "一个epoch多久", "how long is one epoch?"])
def test_one_epochs_time_is_the_plans_over_its_epochs(book, question):
    # "how long per epoch?" had been given the three epochs' time
    text = "we have 2 nodes of 8xH100 with IB, want to SFT llama-3.1-8b on 1M samples avg 1k tokens with FSDP, 3 epochs"
    first = advise(text, book=book)
    reply = follow_up(text, plan_context(first), question, book=book)
    assert (reply.kind, reply.part) == ("explain", "time")
    hours = first.plan.days * 24
    assert f"{hours / 3:.1f}" in reply.text and f"{hours:.1f}" in reply.text


def test_one_epoch_asked_of_a_one_epoch_plan_is_its_time(book):
    first = advise("7b lora 20GB 3d", book=book)
    reply = follow_up("7b lora 20GB 3d", plan_context(first), "time per epoch?", book=book)
    assert reply.text.startswith("The plan is one epoch") and f"{first.plan.days * 24:.0f} hours" in reply.text


def test_a_buyers_suggestion_priced_by_its_rent_is_not_called_over_the_budget(book):
    # the budget caps a buyer's purchase; the suggestion shows a rent (¥28,438 had been "over" ¥1M)
    text = "7B 预训练 1400亿token 预算100万 租"
    reply = follow_up(text, plan_context(advise(text, book=book)), "如果买两台服务器呢", book=book)
    line = next(x for x in reply.text.splitlines() if "同型号换个卡数" in x)
    assert "超出预算" not in line
    assert any("超出预算" in x for x in reply.text.splitlines())  # the purchase itself is over it


@pytest.mark.parametrize(
    "text,question,then",
    [
        # a plan within both named after the lead, not the lead said again (it had been twice)
        ("qwen2.5-72b full 50B tokens 21d usd rent budget $20k", "over budget?", "LoRA instead of full fine-tuning"),
        ("We need to fine-tune a 70B model on 1TB of data within 14 days, budget ¥800k", "over budget?", "`lora?`"),
        ("kimi-k2 sft 2万条 每条8k token 256张H800 预算200万", "超预算了吧？", "用LoRA呢"),
    ],
)
def test_over_the_budget_without_a_slower_plan_says_it_once_and_the_way_on(book, text, question, then):
    reply = follow_up(text, plan_context(advise(text, book=book)), question, book=book)
    assert reply.part == "budget" and then in reply.text
    assert reply.text.count("Over") + reply.text.count("超出预算") == 1


MISSED = "should we buy 16 H100s or rent for a 34B pretrain 500B tokens in 60 days usd"


def test_the_bots_pick_under_a_missed_deadline_is_the_change_that_meets_it(book):
    # "my pick is the plan above: 16 x H100 for 154 days" had been said against a 60-day deadline
    first = advise(MISSED, book=book)
    assert first.plan.days > 60
    meets = next(sg.plan for sg in first.result.suggestions if sg.plan and sg.plan.meets_deadline)
    reply = follow_up(MISSED, plan_context(first), "what would you do?", book=book)
    assert reply.text.startswith("My pick is not the plan above")
    assert f"{meets.estimate.layout.gpu_count} x {meets.gpu}" in reply.text and money(meets.rent, "USD") in reply.text


def test_a_month_asked_of_a_plan_without_a_lease_is_a_month_by_the_hour(book):
    first = advise(MISSED, book=book)
    reply = follow_up(MISSED, plan_context(first), "what's the monthly cost if we rent?", book=book)
    head = reply.text.splitlines()[0]
    assert "missing the deadline of 60 days" in head and "kept" not in head
    c = reply.advice.plan.costs
    assert c.rent_option == "hourly"
    assert f"= {money(c.rent_per_gpu_hour * 16 * 730, 'USD')}" in reply.text


QWEN_A800 = "Qwen3-8B 全参SFT，大概8万条对话，平均长度2k，3轮，我们有8张A800，大概要多久？"
H100_FSDP = (
    "we have 2 nodes of 8xH100 with IB, want to SFT llama-3.1-8b on 1M samples avg 1k tokens with FSDP, 3 epochs"
)


@pytest.mark.parametrize(
    "text,question,kind,part,changed",
    [
        # each had been "I could not tell what to do with that" (the first a crash once read)
        (QWEN_A800, "为啥tp2不用tp1？", "explain", "layout", []),
        (QWEN_A800, "如果seq拉到32k呢", "whatif", None, ["seq_len"]),
        (QWEN_A800, "每月要付多少租金", "whatif", None, ["lease_term_months"]),
        (H100_FSDP, "on one node?", "whatif", None, ["nodes"]),
        (H100_FSDP, "can we just use one node?", "whatif", None, ["nodes"]),
        (H100_FSDP, "checkpoint size?", "question", None, []),
        (
            "Qwen3-235B-A22B 全量微调 20万条 每条4k token 2周内搞完 用Megatron",
            "为什么不用H800而用H20",
            "whatif",
            None,
            ["gpu"],
        ),
    ],
)
def test_everyday_thread_phrasings_are_read(book, text, question, kind, part, changed):
    first = advise(text, book=book)
    reply = follow_up(text, plan_context(first), question, book=book)
    assert (reply.kind, reply.part, reply.changed) == (kind, part, changed)
    if question == "checkpoint size?":
        assert reply.text.startswith("A resumable checkpoint")
    if changed == ["nodes"]:  # the team's 16: one server of them
        assert reply.advice.plan.estimate.layout.nodes == 1


@pytest.mark.parametrize(
    "question", ["这个时间算上评测了吗", "does the time include evaluation?", "does that include eval?"]
)
def test_what_the_time_covers_is_said_and_evaluation_sized(summary, book, question):
    # each had been "I could not tell" (or the checkpoints' size)
    reply = follow_up(REQUEST, summary, question, book=book)
    assert (reply.kind, reply.part) == ("explain", "time_includes")
    plan, req = reply.advice.plan, reply.advice.request
    speed = plan.estimate.throughput.tokens_per_s_per_gpu * plan.estimate.layout.gpu_count
    # a forward is 2 of a full training step's 6 FLOPs: 1% of the tokens evaluated at 3x the speed
    eval_hours = req.tokens * 0.01 * (2 / 6) / speed / 3600
    text = reply.text
    assert ("评测" in text) if question.startswith("这") else ("Not in it: evaluation" in text)
    said = (f"{round(eval_hours)} hour", f"{round(eval_hours)} 小时")
    if eval_hours < 1:  # said in minutes
        said = (f"{round(eval_hours * 60)} minutes", f"{round(eval_hours * 60)} 分钟")
    assert any(s in text for s in said)


@pytest.mark.parametrize(
    "question",
    [
        "what are the hidden costs?",
        "交换机和光模块大概要多少钱",
        "隐藏成本有哪些",
        # owning's running costs (had been the buy what-if, with no power or hosting figure)
        "买的话电费和机柜要多少",
        "what are the running costs if we buy?",
    ],
)
def test_the_costs_beside_the_gpus_come_from_the_plan(summary, book, question):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert (reply.kind, reply.part) == ("explain", "hidden_costs")
    c = reply.advice.plan.costs
    assert money(c.storage_total, "CNY") in reply.text
    # the cluster's network and storage share of the purchase, said as the assumption it is
    extra = (c.buy_capex - (c.buy_host_ram_cost or 0)) * 0.15 / 1.15
    assert money(extra, "CNY") in reply.text and money(c.buy_tco_first_year, "CNY") in reply.text


def test_a_deposit_asked_under_a_plan_to_buy_is_the_leases_terms_not_a_rent_what_if(book):
    # "租的话押金一般多少" had re-planned the purchase as a rent and shown the same plan
    text = "13B pretrain 3000亿token 3个月 买还是租划算"
    reply = follow_up(text, plan_context(advise(text, book=book)), "租的话押金一般多少", book=book)
    assert reply.kind == "question" and "押金" in reply.text.split("\n")[0]


def test_a_framework_the_gpu_type_changes_is_not_said_to_be_kept_by_naming_it(book):
    # Ascend's MindSpeed-LLM (its FSDP2 backend) runs as torchtitan on H800: "写上 `torchtitan` 可保留
    # MindSpeed-LLM" had been said, backwards
    text = "910B能训70B吗 全量微调 500GB数据 30天"
    reply = follow_up(text, plan_context(advise(text, book=book)), "910B和H800比哪个划算", book=book)
    assert reply.advice.plan.gpu == "H800-SXM-80GB"
    assert not [w for w in reply.warnings if w.code == "framework_changed"]


def test_what_the_servers_sell_for_after_the_months_asked_is_their_resale(book):
    # "18个月后还能卖多少钱" had been "I could not tell"; months are read as months
    text = "买2台8卡H800 做70B 增量预训练 1000亿token 回本周期18个月"
    first = advise(text, book=book)
    reply = follow_up(text, plan_context(first), "18个月后还能卖多少钱", book=book)
    assert (reply.kind, reply.part) == ("explain", "depreciation")
    assert "1.5 年后约值" in reply.text and money(first.plan.costs.own_use["resale"], "CNY") in reply.text


def test_what_goes_in_the_contract_is_answered_in_english_too(summary, book):
    reply = follow_up(REQUEST, summary, "what should go in the contract?", book=book)
    assert reply.kind == "question" and reply.faq["topic"] == "sla_failure_repair" and reply.faq["confident"]


@pytest.mark.parametrize("question", ["能不能只用8张卡", "can we do it with 8 GPUs?"])
def test_a_change_that_does_not_fit_leads_with_it(book, question):
    # the table of its time and rent had come first, the "does not fit" below an offer note
    text = "Qwen3-235B-A22B 全量微调 20万条 每条4k token 2周内搞完 用Megatron"
    reply = follow_up(text, plan_context(advise(text, book=book)), question, book=book)
    assert reply.kind == "whatif" and not reply.advice.plan.estimate.fits
    assert reply.lead and reply.text.startswith(reply.lead)
    assert reply.lead.startswith("显存放不下") or reply.lead.startswith("Does not fit")
    assert reply.text.count(reply.lead) == 1


def test_a_count_after_fsdp_is_not_read_as_a_zero_stage(book):
    # "why fsdp over 16 gpus and not hsdp?" had answered "This plan runs ZeRO-3, not ZeRO-16"
    reply = follow_up(
        H100_FSDP, plan_context(advise(H100_FSDP, book=book)), "why fsdp over 16 gpus and not hsdp?", book=book
    )
    assert reply.part == "layout" and "ZeRO-16" not in reply.text and "ZeRO-2" in reply.text


def test_a_lora_checkpoints_size_is_the_plans_adapters(book):
    # "lora的checkpoint多大" on a 235B LoRA had been "通常几MB到几GB" (its adapters are 3.3B parameters)
    text = "Qwen3-235B-A22B LoRA 2万条 需要几台H800"
    first = advise(text, book=book)
    reply = follow_up(text, plan_context(first), "lora的checkpoint多大", book=book)
    adapters = first.plan.estimate.memory.trainable_params
    assert f"适配器参数 {round(adapters / 1e9, 3)}B" in reply.text
    assert f"约 {round(adapters * 16 / 1e9, 2)} GB" in reply.text


@pytest.mark.parametrize(
    "question", ["what micro-batch are you assuming?", "what's the micro batch size?", "微批是多少"]
)
def test_the_micro_batch_asked_is_the_plans_with_its_reason(book, question):
    first = advise(H100_FSDP, book=book)
    reply = follow_up(H100_FSDP, plan_context(first), question, book=book)
    assert reply.part == "layout"
    assert f"micro-batch {first.plan.estimate.layout.micro_batch}" in reply.text


def test_a_layout_fixed_in_a_thread_is_shown_even_at_the_same_time(book):
    # "what if we use hsdp?" had been "the plan stays the same ... It already meets that"
    reply = follow_up(H100_FSDP, plan_context(advise(H100_FSDP, book=book)), "what if we use hsdp?", book=book)
    assert reply.kind == "whatif" and reply.changed == ["hsdp"] and reply.advice.plan.estimate.layout.hsdp
    assert "already meets" not in reply.text


def test_a_longer_sequence_at_the_same_time_shows_its_plan(book):
    # "what if seq 8k?" had been "the plan stays the same ... It already meets that", no numbers
    text = "Qwen2.5-7B-Instruct lora r=64 on 1x4090 20k samples"
    reply = follow_up(text, plan_context(advise(text, book=book)), "what if seq 8k?", book=book)
    assert reply.kind == "whatif" and reply.changed == ["seq_len"] and reply.advice.request.seq_len == 8192
    assert "memory/GPU" in reply.text


def test_a_month_asked_of_a_multi_month_job_says_the_months_cost(book):
    # "多少钱一个月" on a 67-day job had given the three months' total alone
    text = "想预训练一个13B 3000亿token 3个月 买还是租划算"
    reply = follow_up(text, plan_context(advise(text, book=book)), "多少钱一个月", book=book)
    c = reply.advice.plan.costs
    assert c.rent_option == "monthly" and c.rent_term["months_paid"] > 1
    count = reply.advice.plan.estimate.layout.gpu_count
    per, month = money(c.rent_per_gpu_month, "CNY"), money(c.rent_per_gpu_month * count, "CNY")
    assert f"这些卡一个月：{per} × {count} 张卡 = {month}" in reply.text
    # the 1-month term billing the job's months says so, in the header and its term line (had
    # labelled the three months' total "1 个月" beside "× 3 个月")
    paid = c.rent_term["months_paid"]
    assert f"计费 {paid} 个月" in reply.text.splitlines()[0]
    assert f"1 个月租期，计费 {paid} 个月：" in reply.text


@pytest.mark.parametrize("question,factor", [("微批调大一点呢", 2), ("bigger micro-batch?", 2), ("mbs小一点", 0.5)])
def test_a_micro_batch_moved_without_a_number_doubles_or_halves_the_plans(book, question, factor):
    # "微批调大一点呢" had been "I could not tell what to do with that"
    first = advise(QWEN_A800, book=book)
    reply = follow_up(QWEN_A800, plan_context(first), question, book=book)
    mbs = first.plan.estimate.layout.micro_batch
    assert reply.changed == ["micro_batch"] and reply.advice.request.micro_batch == max(1, int(mbs * factor))


@pytest.mark.parametrize("question", ["what about 4090s?", "用4090呢"])
def test_a_gpu_type_hopeless_for_the_job_leads_the_what_if(book, question):
    # 8 x RTX 4090 for 671 days had come first, "hopeless" as the sixth note under it
    text = "llama-3.1-70b continued pretraining 50B tokens chinese on 64 H800"
    reply = follow_up(text, plan_context(advise(text, book=book)), question, book=book)
    assert reply.kind == "whatif" and reply.advice.plan.gpu == "RTX4090-24GB"
    assert reply.lead and reply.text.startswith(reply.lead) and "RTX4090-24GB" in reply.lead
    assert reply.text.count(reply.lead) == 1


@pytest.mark.parametrize("question", ["why torchtitan?", "why this framework?"])
def test_why_the_plans_framework_is_answered_in_english(book, question):
    # "why torchtitan?" had been "I could not tell what to do with that" (为什么用megatron answered)
    text = "deepseek-v3 pretrain 2T tokens 60d"
    first = advise(text, book=book)
    reply = follow_up(text, plan_context(first), question, book=book)
    assert reply.kind == "question" and reply.faq["topic"] == "framework_choice" and reply.faq["confident"]
    assert reply.text.startswith(f"This plan is planned on {first.plan.estimate.layout.framework}")


@pytest.mark.parametrize("question", ["electricity cost per month?", "power cost per month?"])
def test_the_electricitys_month_is_not_the_rents(book, question):
    # under a plan to buy, "electricity cost per month?" had answered the rent's arithmetic
    text = "70b full finetune 1TB text 14d buy usd"
    reply = follow_up(text, plan_context(advise(text, book=book)), question, book=book)
    assert "kWh a month" in reply.text and "per GPU-hour x" not in reply.text


def test_a_month_asked_where_no_lease_has_that_term_heads_with_the_term_priced(book):
    # "The plan on the table on a 1-month lease: ..., 12 months billed": no 1-month lease of B200
    # is on record, so the nearest (12 months) prices it and the header says that term
    text = "70b full finetune 1TB text 14d buy usd"
    reply = follow_up(text, plan_context(advise(text, book=book)), "what's the cost per month?", book=book)
    term = reply.advice.plan.costs.rent_term
    first = reply.text.splitlines()[0]
    assert f"on a {term['min_term_months']}-month lease" in first and "months billed" not in first


@pytest.mark.parametrize("question", ["what if we use 8 A100s on lambda?", "8 x A100 at runpod instead?"])
def test_another_gpu_on_a_provider_is_a_what_if_on_that_gpu(book, question):
    # US-buyer probe: the provider's price for the plan's own GPU had been the answer, the GPUs ignored
    text = "qwen2.5-7b full-finetune 1B tokens 5d usd"
    first = advise(text, book=book)
    assert "A100" not in first.plan.gpu
    reply = follow_up(text, plan_context(first), question, book=book)
    assert reply.kind == "whatif" and reply.advice.plan.gpu.startswith("A100")
    assert reply.advice.plan.estimate.layout.gpu_count == 8


def test_a_threads_break_even_is_the_cards(book):
    # US-buyer probe: the costs said 15 months (15.498) and "break-even?" 16 (rounded to 15.5 first);
    # and "renting the very GPUs ... as the only offers for them bind you longer" of an hourly offer
    from advisor.text.render import num

    text = "70b full finetune 1TB text 14d buy usd"
    first = advise(text, book=book)
    months = num(first.plan.costs.breakeven_months, 2)
    assert f": {months} months" in render_text(first)
    reply = follow_up(text, plan_context(first), "break-even?", book=book)
    assert f"about {months} months" in reply.text and "bind you longer" not in reply.text


@pytest.mark.parametrize("question", ["how many steps is that?", "训练多少步", "total optimizer steps?"])
def test_the_steps_asked_are_the_plans_from_its_batch(book, question):
    # US-buyer probe: "how many steps is that?" had got the FAQ's essay on batch sizes
    import math

    text = "qwen2.5-7b full-finetune 1B tokens 3 epochs 5d usd"
    first = advise(text, book=book)
    lay = first.plan.estimate.layout
    steps = math.ceil(first.request.tokens / (lay.global_batch * first.request.seq_len))
    reply = follow_up(text, plan_context(first), question, book=book)
    assert reply.part == "steps" and f"{steps:,}" in reply.text


@pytest.mark.parametrize(
    "question,size,fits,remade",
    [
        ("is 32GB vram enough for this?", 32, False, True),
        ("24G的卡能跑吗", 24, False, True),
        ("80G显存够吗", 80, True, False),
    ],
)
def test_a_cards_memory_asked_says_yes_or_no_then_re_plans_on_such_a_card(book, question, size, fits, remade):
    # US-buyer probe: "is 32GB vram enough for this?" had got the FAQ's 16 bytes a parameter (a full
    # fine-tune's, under a LoRA) and no yes or no
    text = "qwen3-32b lora 5万条"
    first = advise(text, book=book)
    assert first.plan.gpu == "H800-SXM-80GB"
    reply = follow_up(text, plan_context(first), question, book=book)
    mem = first.plan.estimate.memory.total
    assert (mem <= size) == fits
    assert reply.text.startswith(
        "按本方案的切分可以" if fits else ("Not on this plan's layout" if "GB " in question else "按本方案的切分不行")
    )
    if remade:
        assert reply.kind == "whatif" and round(catalog.get_gpu(reply.advice.plan.gpu).memory_gb) == size
    else:
        assert reply.kind == "question"


@pytest.mark.parametrize(
    "question,gpu,count",
    [
        ("would A100 work?", "A100", None),
        ("does an A800 do?", "A800-SXM4-80GB", None),
        ("would 16 H20 be enough?", "H20-96GB", 16),
    ],
)
def test_would_a_gpu_work_is_a_what_if_on_it(book, question, gpu, count):
    # "would A100 work?" had been "I could not tell what to do with that"; "would 16 H20 be
    # enough?" had dropped its 16
    text = "qwen3-32b lora 5万条"
    reply = follow_up(text, plan_context(advise(text, book=book)), question, book=book)
    assert reply.kind == "whatif" and reply.advice.plan.gpu.startswith(gpu)
    if count:
        assert reply.advice.plan.estimate.layout.gpu_count == count


@pytest.mark.parametrize("question", ["would it work?", "will this work?", "能行吗"])
def test_would_it_work_alone_is_the_plans_risks(book, question):
    # "would it work?" had been "I could not tell what to do with that"
    text = "qwen3-32b lora 5万条"
    reply = follow_up(text, plan_context(advise(text, book=book)), question, book=book)
    assert reply.part == "risks"


def test_the_slack_term_list_says_the_months_billed(book):
    # the Slack what-if listed the 3 months' total as "1 个月" (the text reply had been mended)
    import json as _json

    from bot.blocks import whatif

    text = "想预训练一个13B 3000亿token 3个月 买还是租划算"
    reply = follow_up(text, plan_context(advise(text, book=book)), "多少钱一个月", book=book)
    paid = reply.advice.plan.costs.rent_term["months_paid"]
    assert f"1 个月租期，计费 {paid} 个月" in _json.dumps(whatif(reply), ensure_ascii=False)


def test_tax_asked_in_a_thread_is_the_vat_topic_on_this_plans_rent(book):
    # "价格含税吗" had been the costs' arithmetic ("价格"), "能开发票吗" not understood: now the VAT
    # topic, led by this plan's rent with 6% and with 13% on it
    text = "qwen2.5 72b lora 10万条 两周内 预算30万"
    summary = plan_context(advise(text, book=book))
    rent = summary["rent_total"]
    for message in ("价格含税吗", "能开专票吗", "do the prices include VAT?"):
        reply = follow_up(text, summary, message, book=book)
        assert reply.kind == "question" and reply.faq["topic"] == "tax_invoices", message
    reply = follow_up(text, summary, "价格含税吗", book=book)
    assert money(rent * 1.06, "CNY") in reply.text and money(rent * 1.13, "CNY") in reply.text


def test_a_budget_with_tax_in_a_thread_is_still_a_budget(book):
    # an amount beside the tax word is the budget, not the VAT topic
    text = "qwen2.5 72b lora 10万条 两周内 预算30万"
    reply = follow_up(text, plan_context(advise(text, book=book)), "如果预算是含税20万呢", book=book)
    assert reply.kind != "question" and "¥200,000" in reply.text


def test_a_gpus_name_in_a_count_question_is_no_count_and_names_the_gpu(book):
    # "那就选4090，要几台" had listed 4090 GPUs beside the plan's own count; "how many H200 nodes?" had
    # been the FAQ on H200, "how many A100 nodes?" not understood
    text = "qwen2.5-7b lora 10万条 用RTX4090"
    summary = plan_context(advise(text, book=book))
    rows = follow_up(text, summary, "那就选4090，要几台", book=book).rows
    counts = [r["count"] for r in rows]
    assert len(counts) == len(set(counts)) and 4090 not in counts
    text = "llama3-70b sft on 2B tokens usd on H200"
    summary = plan_context(advise(text, book=book))
    own = follow_up(text, summary, "how many H200 nodes?", book=book)
    assert (own.kind, own.part) == ("explain", "gpus")
    other = follow_up(text, summary, "how many A100 nodes?", book=book)
    assert other.kind == "whatif" and other.advice.plan.gpu.startswith("A100")


def test_a_number_asked_with_the_plans_own_method_restated_is_that_number(book):
    # "全参微调要多久" under a full fine-tuning plan had been "nothing changes"
    text = "7b 全参微调 10万条"
    summary = plan_context(advise(text, book=book))
    for message, part in (
        ("全参微调要多久", "time"),
        ("how long with full finetune?", "time"),
        ("全参要多少钱", "costs"),
    ):
        reply = follow_up(text, summary, message, book=book)
        assert (reply.kind, reply.part) == ("explain", part), message


def test_cheaper_names_a_plan_that_more_time_than_twice_the_deadline_makes_much_cheaper(book):
    # "能再便宜点吗" had offered 8 H200 in 14 days for ¥94k, while 8 H800 by the hour in about 14 days
    # cost a quarter of that (shown only when asked "如果30天呢")
    text = "13b 全量微调 200GB数据 7天 预算10万"
    summary = plan_context(advise(text, book=book))
    reply = follow_up(text, summary, "能再便宜点吗", book=book)
    notes = [w for w in reply.warnings if w.code == "cheaper_with_more_time"]
    assert notes, reply.text
    ask = notes[0].params["ask"]
    later = follow_up(text, summary, f"如果{ask}天呢", book=book)
    assert later.advice.plan.rent == pytest.approx(notes[0].params["rent"])
    assert notes[0].params["rent"] < reply.advice.plan.rent * 0.8 and f"如果{ask}天呢" in reply.text


def test_a_gpus_price_asked_in_chinese_lists_mainland_offers_with_their_region_in_chinese(book):
    # "4090多少钱一张" had ranked a RunPod dollar offer among the mainland's, regions in English ("CN")
    from advisor.planning.followup import gpu_prices

    zh = gpu_prices("4090多少钱一张", "zh", book)
    offers = [o for g in zh.rows for o in g["offers"]]
    assert offers and {o["market"] for o in offers} == {"china"}
    assert "·中国大陆" in zh.text and " CN" not in zh.text
    abroad = gpu_prices("4090在美国多少钱一小时", "zh", book)
    assert {o["market"] for g in abroad.rows for o in g["offers"]} == {"global"}
    en = gpu_prices("how much is a 4090 per hour?", "en", book)
    assert {o["market"] for g in en.rows for o in g["offers"]} == {"china", "global"}


def test_why_not_more_of_the_same_named_gpu_says_why_that_count_not_why_that_gpu(book):
    # "why not 4 gpus?" under a plan on the RTX 4090 the request names had answered "2 x RTX4090
    # because the request names RTX4090. On RTX4090 ...", as if another GPU had been asked
    text = "qwen2.5-7b lora 10万条 用RTX4090"
    reply = follow_up(text, plan_context(advise(text, book=book)), "why not 4 gpus?", "en", book=book)
    assert reply.kind == "whatif" and reply.advice.plan.estimate.layout.gpu_count == 4
    assert "because the request names" not in reply.why and "the cheapest count" in reply.why, reply.why


@pytest.mark.parametrize(
    "request_text,message",
    [
        ("70B full-finetune 1TB 14d budget", "is ¥{m:.2f}M per month or total"),
        ("70B full-finetune 1TB 14d budget", "这个{w:.0f}万是一个月的吗"),
        ("llama3.1-8b pretrain 100B tokens 30d usd", "is the {r:.0f} all in? egress, storage etc"),
    ],
)
def test_the_plans_own_rent_quoted_back_is_explained_not_judged_as_a_quote(book, request_text, message):
    # "is ¥1.94M per month or total" had been judged as a vendor's quote "28x the median" and offered
    # to be recorded for the team
    summary = plan_context(advise(request_text, book=book))
    rent = summary["rent_total"]
    reply = follow_up(request_text, summary, message.format(m=rent / 1e6, w=rent / 1e4, r=rent), book=book)
    assert (reply.kind, reply.part) == ("explain", "costs"), reply.text[:200]
    quote = follow_up(request_text, summary, "8卡H800每月6.5万贵不贵", book=book)
    assert quote.kind == "quote"


def test_a_quote_too_cheap_is_weighed_against_the_plans_own_rate_not_its_lease_over_the_jobs_hours(book):
    # under a 12-month H20 lease for a 2-day job the FAQ had said "about ¥931.48 per GPU-hour" (the
    # lease over the job's GPU-hours), so every real quote looked suspiciously cheap
    text = "qwen3-32b lora 10万条 两周 包年 H20"
    summary = plan_context(advise(text, book=book))
    reply = follow_up(text, summary, "别家报价便宜很多，靠谱吗", book=book)
    assert reply.faq["topic"] == "quote_too_cheap"
    assert f"每卡每月 {money(summary['offer_rate'], 'CNY')}" in reply.text
    assert money(summary["rent_total"] / summary["gpu_hours"], "CNY") not in reply.text


def test_a_provider_whose_instances_cannot_hold_the_offloaded_states_is_not_priced_for_the_plan(book):
    # "we can get hourly on autodl, does that work" under DeepSeek-V3 LoRA on 8 RTX 5090 offloading
    # ~171 GB a GPU had answered "the plan's 308 GPU-hours cost ¥855" at AutoDL's rate
    text = "deepseek-v3 lora 100k samples 7d"
    summary = plan_context(advise(text, book=book))
    reply = follow_up(text, summary, "we can get hourly on autodl, does that work", book=book)
    assert "Not for this layout" in reply.text and "GPU-hours cost" not in reply.text, reply.text
    vendors = follow_up(text, summary, "who sells this?", book=book)
    assert vendors.kind == "part" and "too little host memory" in vendors.text
    assert vendors.text.count("<- the plan's price") == 1


@pytest.mark.parametrize(
    "message,language",
    [
        # the data's language told with a question or chatter around it had drawn the menu
        ("1TB数据是中文的，会变吗", "zh"),
        ("btw the data is mostly chinese", "zh"),
        ("actually the data is code", "code"),
    ],
)
def test_the_datas_language_told_in_passing_replans_on_it(book, message, language):
    text = "70B full-finetune 1TB 14d budget"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert reply.kind == "whatif" and reply.advice.request.data.language == language, reply.text[:200]


def test_a_budget_in_millions_with_its_currency_is_a_budget_what_if(book):
    # "what if budget is 1M cny max" had been read as a move to the China market: "nothing changes"
    text = "70B full-finetune 1TB 14d budget"
    reply = follow_up(text, plan_context(advise(text, book=book)), "what if budget is 1M cny max", book=book)
    assert reply.advice.request.budget.amount == 1_000_000 and "budget" in reply.changed


@pytest.mark.parametrize(
    "message,kind,part",
    [
        # each had drawn the menu (probe of thread follow-ups, thirty-first session)
        ("显存52.4G会不会爆", "explain", "memory"),
        ("will it OOM?", "explain", "memory"),
        ("how long does the pilot take and what does it cost", "part", "risks"),
        ("can we start monday", "question", None),
    ],
)
def test_schedule_pilot_and_headroom_questions_are_answered_from_the_plan(summary, book, message, kind, part):
    reply = follow_up(REQUEST, summary, message, book=book)
    assert (reply.kind, reply.part) == (kind, part), reply.text[:200]
    if kind == "question":
        assert reply.faq["topic"] == "time_to_first_run" and reply.faq["confident"]


def test_what_another_gpu_would_cost_after_a_remark_is_the_plan_on_it(book):
    # "7% mfu is terrible, what would H800 cost" had explained the time (its "mfu"), H800 ignored;
    # "what does an H800 cost?" stays its price list
    text = "deepseek-v3 lora 100k samples 7d"
    summary = plan_context(advise(text, book=book))
    reply = follow_up(text, summary, "7% mfu is terrible, what would H800 cost", book=book)
    assert reply.kind == "whatif" and reply.advice.plan.gpu == "H800-SXM-80GB"
    assert follow_up(text, summary, "what does an H800 cost?", book=book).kind == "prices"


def test_a_delivery_asked_with_no_lead_time_on_record_gives_the_shortest_published(book):
    # "交付要多久" under a purchase of RTX 5090s had said only that none is on record, dropping the
    # plan's own warning: the shortest published for any server here
    text = "7b 预训练 1000亿token 3个月 预算50万 买"
    first = advise(text, book=book)
    reply = follow_up(text, plan_context(first), "交付要多久", book=book)
    weeks = min(g.purchase_lead_weeks[0] for g in catalog.gpus() if g.purchase_lead_weeks)
    assert first.plan.costs.buy_lead_weeks is None and f"下单后 {weeks} 周" in reply.text


@pytest.mark.parametrize(
    "request_text,message,room",
    [
        # "5.2天靠谱吗" had been a sizing rule of thumb ("7B训练1T token…"), "is 8.5 days safe vs the 14d
        # deadline" the GPU-count topic
        ("13b 全量微调 200GB数据 7天 预算10万", "5.2天靠谱吗", "比这个误差大"),
        ("70B full-finetune 1TB 14d budget", "is 13 days realistic?", "less than that error"),
    ],
)
def test_how_sure_the_time_is_gives_the_error_the_room_to_the_deadline_and_the_pilot(book, request_text, message, room):
    first = advise(request_text, book=book)
    reply = follow_up(request_text, plan_context(first), message, book=book)
    assert (reply.kind, reply.part) == ("explain", "time_sure") and room in reply.text, reply.text
    hours = first.pilot()["params"]["hours"]
    assert f"{hours:g}" in reply.text


@pytest.mark.parametrize(
    "message", ["what if we miss the deadline?", "what happens if we go over the deadline?", "如果超期了怎么办"]
)
def test_a_deadline_missed_is_how_sure_the_time_is_and_what_running_long_costs(summary, book, message):
    # the FAQ's doubling of GPUs with its bytes-to-tokens text had answered, or the menu
    reply = follow_up(REQUEST, summary, message, book=book)
    assert (reply.kind, reply.part) == ("explain", "time_sure")
    p = reply.advice.plan
    paid = p.costs.rent_term["months_paid"] * 30.4
    assert p.costs.rent_option == "monthly" and p.days < paid
    assert f"({paid:.0f} days)" in reply.text or f"（{paid:.0f} 天）" in reply.text


def test_running_long_by_the_hour_is_priced_a_day(book):
    text = "70B full-finetune 200GB 10d in the US"
    first = advise(text, book=book)
    reply = follow_up(text, plan_context(first), "what if it runs late?", book=book)
    c = first.plan.costs
    assert reply.part == "time_sure" and c.rent_option == "hourly"
    per_day = money(c.rent_per_gpu_hour * first.plan.estimate.layout.gpu_count * 24, c.currency)
    assert f"each extra day costs about {per_day}" in reply.text


@pytest.mark.parametrize(
    "message",
    [
        "what if the vendor only has A800?",
        "what if they only have A800?",
        "what if only A800 is available?",
        "供应商只有A800怎么办",
    ],
)
def test_the_gpu_a_vendor_has_is_a_what_if_on_it(summary, book, message):
    # the menu had answered the first three, the request for quotes the fourth
    reply = follow_up(REQUEST, summary, message, book=book)
    assert reply.kind == "whatif" and reply.advice.plan.gpu == "A800-SXM4-80GB"
    assert not reply.advice.request.owned  # the vendor's, not GPUs the team has


def test_a_figure_quoted_back_rounded_down_is_still_the_plans_and_a_budget_near_it_stays_a_budget(book):
    # "H20那个为啥要14万" of a ¥148,921 side had drawn the GPU FAQ; "如果预算15万呢" stays a budget what-if
    text = "qwen3-32b lora 10万条 两周 包年 H20"
    summary = plan_context(advise(text, book=book))
    shown = f"{summary['rent_total'] // 1_000 / 10:g}万"  # cut off after two digits: ¥46,481 is 4.6万
    reply = follow_up(text, summary, f"为啥要{shown}", book=book)
    assert (reply.kind, reply.part) == ("explain", "costs"), reply.text[:200]
    budget = follow_up(text, summary, f"如果预算{shown}呢", book=book)
    assert "budget" in budget.changed


@pytest.mark.parametrize(
    "message,part",
    [
        # each had drawn the menu (probe of thread follow-ups)
        ("voltage park is sold out, whats next cheapest", "vendor"),
        ("8 bucks?? seriously, whats the catch", "risks"),
        # the provider's choice asked (had drawn the menu)
        ("为什么选这家", "vendor"),
        ("why this provider?", "vendor"),
    ],
)
def test_the_next_vendor_and_the_catch_are_those_parts_of_the_plan(book, message, part):
    text = "llama3.1-8b pretrain 100B tokens 30d usd"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert (reply.kind, reply.part) == ("part", part)


def test_faster_with_the_date_results_are_due_replans_on_that_deadline(book):
    # "8.5天，能不能再快点，我们下周五要结果" had drawn the menu: the plan's own time quoted back, a
    # request to go faster and the date the results are due. 下周五 is 5 to 11 days away by the
    # weekday the test runs on, so the plan takes longer than 11 (with 8.5 it passed on some days only)
    text = "qwen2.5-32b full-finetune 80GB 20d on H800"
    summary = plan_context(advise(text, book=book))
    assert summary["days"] > 11
    reply = follow_up(text, summary, f"{summary['days']:.0f}天，能不能再快点，我们下周五要结果", book=book)
    assert reply.kind == "whatif" and reply.changed == ["deadline_days"]
    assert 5 <= reply.advice.request.deadline_days <= 11


@pytest.mark.parametrize(
    "message,amount", [("预算砍一半呢", 50_000), ("what if we halve the budget?", 50_000), ("预算翻倍呢", 200_000)]
)
def test_a_budget_changed_by_a_share_is_that_share_of_the_requests_budget(book, message, amount):
    # "预算砍一半呢" had drawn the FAQ's money-saving advice
    text = "13b 全量微调 200GB数据 7天 预算10万"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert reply.kind == "whatif" and reply.advice.request.budget.amount == amount


def test_whether_a_licensed_gpu_can_be_bought_in_china_says_so_of_the_plans_own_gpu(book):
    # "5090能买到吗，有保修吗" had drawn the export-control timeline, which never names the 5090
    text = "7b 预训练 1000亿token 3个月 预算50万 买 5090"
    summary = plan_context(advise(text, book=book))
    assert summary["gpu"] == "RTX5090-32GB" and summary["china_access"] in ("licence", "licence_rented")
    reply = follow_up(text, summary, "5090能买到吗，有保修吗", book=book)
    assert reply.faq["topic"] == "export_controls_china"
    assert f"自 {summary['china_access_since']} 起" in reply.text and "没有原厂保修" in reply.text


def test_why_not_a_gpu_with_a_remark_after_it_is_the_plan_on_that_gpu(book):
    # "为啥不推荐3090那个，便宜那么多" had drawn the 4090 FAQ (with a ¥931 "per GPU-hour" figure)
    text = "qwen3-32b lora 10万条 两周 包年 H20"
    reply = follow_up(text, plan_context(advise(text, book=book)), "为啥不推荐3090那个，便宜那么多", book=book)
    assert reply.kind == "whatif" and reply.advice.plan.gpu == "RTX3090-24GB"
    assert "需求里指定了 H20-96GB" in reply.why


@pytest.mark.parametrize("message", ["H20显存96G够不够跑全量", "全量微调显存够吗"])
def test_memory_asked_of_another_method_is_the_plan_with_that_method(book, message):
    # under a LoRA plan these had answered with the LoRA plan's memory or the H20/H800 FAQ
    text = "qwen3-32b lora 10万条 两周 包年 H20"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert reply.kind == "whatif" and reply.advice.request.method == "full-finetune"


def test_what_the_budget_buys_asked_of_its_own_amount_is_the_budget_answer(book):
    # "10万块钱最多能干到啥程度" had drawn the menu
    text = "13b 全量微调 200GB数据 7天 预算10万"
    reply = follow_up(text, plan_context(advise(text, book=book)), "10万块钱最多能干到啥程度", book=book)
    assert "超出预算" in reply.text and "预算之内最快的方案" in reply.text


def test_a_number_with_another_unit_is_not_the_count_asked(book):
    # "why 40 gpus when we have 30 days? cant we do it on 8" had listed 30 GPUs, not 8
    text = "llama3.1-8b pretrain 100B tokens 30d usd"
    reply = follow_up(
        text, plan_context(advise(text, book=book)), "why 40 gpus when we have 30 days? cant we do it on 8", book=book
    )
    counts = [r["count"] for r in reply.rows]
    assert 8 in counts and 30 not in counts


def test_per_month_asked_of_a_lease_says_the_total_is_the_whole_jobs(summary, book):
    # "is that per month?" had got the costs with no answer to the question asked
    reply = follow_up(REQUEST, summary, "is that per month?", book=book)
    assert (reply.kind, reply.part) == ("explain", "costs")
    assert reply.text.startswith(f"{money(summary['rent_total'], 'CNY')} for the whole job: 1 month of lease at")


@pytest.mark.parametrize("message", ["网络有什么要求", "network requirements?", "网络要求是什么"])
def test_the_networks_requirements_are_the_servers_network_line(book, message):
    text = "qwen2.5-32b full-finetune 50GB 14d H20"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert reply.kind in ("explain", "part") and reply.part == "servers"
    assert "RoCE" in reply.text


@pytest.mark.parametrize("message", ["需要IB吗", "要不要上IB", "要IB吗"])
def test_whether_the_plan_needs_infiniband_is_no_what_if_to_it(book, message):
    # "需要IB吗" had re-planned on InfiniBand ("假如服务器间网络按方案所选 -> InfiniBand")
    text = "qwen2.5-32b full-finetune 50GB 14d H20"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert reply.kind != "whatif" and "RoCE" in reply.text


@pytest.mark.parametrize("message", ["is this realistic?", "靠谱吗", "这个估算准吗", "is the plan realistic"])
def test_the_plan_doubted_as_a_whole_is_how_sure_its_time_is(summary, book, message):
    reply = follow_up(REQUEST, summary, message, book=book)
    assert (reply.kind, reply.part) == ("explain", "time_sure")


OFFLOADED = "deepseek-v3 lora 100k samples 7d"


@pytest.mark.parametrize(
    "message", ["wait, 671B on 5090s?? is that real", "how does 671B fit on 5090s?", "5090怎么装得下671B的模型"]
)
def test_a_plan_that_offloads_doubted_says_what_the_servers_memory_holds(book, message):
    summary = plan_context(advise(OFFLOADED, book=book))
    assert summary["offload"] == "all"
    reply = follow_up(OFFLOADED, summary, message, book=book)
    assert (reply.kind, reply.part) == ("explain", "memory")
    host = reply.advice.estimate.memory.host_ram_gib
    assert f"{host:.0f} GiB per GPU" in reply.text or f"每卡 {host:.0f} GiB" in reply.text
    assert ("PCIe" in reply.text) and ("MFU" in reply.text)


def test_a_card_size_asked_of_an_offloaded_plan_says_why_it_fits(book):
    summary = plan_context(advise(OFFLOADED, book=book))
    reply = follow_up(OFFLOADED, summary, "32G的卡怎么放得下671B", book=book)
    assert reply.text.startswith("按本方案的切分可以") and "服务器内存" in reply.text


@pytest.mark.parametrize(
    "message", ["跑完5天能退吗", "can we return the servers early?", "refund for the unused days?"]
)
def test_giving_a_lease_back_early_says_the_months_paid_and_what_to_ask(book, message):
    text = "13b 全量微调 200GB数据 7天 预算10万"
    result = advise(text, book=book)
    assert result.plan.costs.rent_option == "monthly"
    reply = follow_up(text, plan_context(result), message, book=book)
    assert (reply.kind, reply.part) == ("explain", "early_return")
    assert money(result.plan.costs.rent_monthly_total, "CNY") in reply.text
    assert "20%" in reply.text and ("pro-rata" in reply.text or "按比例退款" in reply.text)


def test_giving_an_hourly_rent_back_early_has_no_term_to_return(book):
    text = "qwen2.5-7b lora 50k samples 3d"
    result = advise(text, book=book)
    assert result.plan.costs.rent_option == "hourly"
    reply = follow_up(text, plan_context(result), "refund for unused time?", book=book)
    assert reply.part == "early_return" and "no term to give back" in reply.text


@pytest.mark.parametrize("message", ["power draw total? colo wants a number", "总功耗多少"])
def test_the_servers_total_draw_leads_when_asked(summary, book, message):
    # "power draw total? colo wants a number" had got the colocation prices, the 286 kW buried
    reply = follow_up(REQUEST, summary, message, book=book)
    total = summary["power_kw_per_node"] * summary["nodes"]
    assert reply.part == "servers" and f"{total:,.0f} kW" in reply.text


def test_the_plan_within_the_budget_asked_about_is_the_budget_answer(book):
    text = "13b 全量微调 200GB数据 7天 预算10万"
    reply = follow_up(
        text, plan_context(advise(text, book=book)), "满足预算那个H200 14天是啥意思？我们只有7天啊", book=book
    )
    # over the budget: the fastest plan within it, set against this one
    assert reply.lead.startswith("超出预算") and reply.after["gpu"] == "H200-SXM-141GB"


def test_another_gpu_doubted_is_the_plan_on_it_with_the_faqs_word(summary, book):
    # "昇腾那个便宜点，靠谱吗" had got the 910B essay alone, not the plan on it
    reply = follow_up(REQUEST, summary, "昇腾那个便宜点，靠谱吗", "zh", book=book)
    assert reply.kind == "whatif" and reply.after["gpu"] == "Ascend-910B-64GB"
    assert reply.text.rstrip().endswith("。") and "昇腾910B" in reply.text.split("\n\n")[-1]


@pytest.mark.parametrize(
    "message", ["how much for a 10-run hparam sweep", "what would a 10-run sweep cost", "跑10次要多少钱"]
)
def test_runs_of_the_plan_are_that_many_times_its_rent(book, message):
    # "a 10-run sweep" had been read as the A10 GPU (a price list in dollars, or a what-if onto A10)
    text = "qwen3-30b-a3b lora 200k samples 5d"
    result = advise(text, book=book)
    reply = follow_up(text, plan_context(result), message, book=book)
    assert (reply.kind, reply.part) == ("explain", "runs")
    assert money(result.plan.costs.rent_total * 10, "CNY") in reply.text


def test_runs_on_a_lease_say_the_months_they_take(book):
    text = "13b 全量微调 200GB数据 7天 预算10万"
    result = advise(text, book=book)
    reply = follow_up(text, plan_context(result), "跑10次要多少钱", book=book)
    months = math.ceil(result.plan.days * 10 / (730 / 24))
    assert f"{months} 个月" in reply.text


@pytest.mark.parametrize(
    "message",
    [
        "👍 thanks, forwarding to finance",
        "好嘞，我去跟老板汇报",
        "收到，感谢大佬",
        "明天开会再说",
        "ok thx, will loop in ops",
        "好嘞",
    ],
)
def test_the_teams_own_next_steps_get_no_reply(summary, book, message):
    assert follow_up(REQUEST, summary, message, book=book).kind == "silent"


@pytest.mark.parametrize("message", ["thanks, what about 30 days?", "好的，那用H20呢", "明天再说吧，先问下要多少钱"])
def test_thanks_before_a_question_is_still_answered(summary, book, message):
    assert follow_up(REQUEST, summary, message, book=book).kind != "silent"


@pytest.mark.parametrize(
    "message, changed",
    [
        ("our tokenizer says the 1TB is ~300B tokens not 250B", ["data"]),
        ("can we do it on 128 H800s if the deadline slips a bit", ["gpu", "gpu_count"]),
    ],
)
def test_a_change_said_inside_the_teams_own_words_is_that_what_if(summary, book, message, changed):
    # both had got the FAQ's essay on data and GPU counts
    reply = follow_up(REQUEST, summary, message, book=book)
    assert reply.kind == "whatif" and set(reply.changed) <= set(changed) and reply.changed


@pytest.mark.parametrize(
    "message, field",
    [
        ("what if seq len is 16k, our samples are long", "seq_len"),
        ("what if samples average 4k tokens not 1k", "tokens_per_sample"),
    ],
)
def test_a_change_with_a_remark_or_correction_after_it_is_that_what_if(book, message, field):
    text = "qwen3-30b-a3b lora 200k samples 5d"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert reply.kind == "whatif" and reply.changed == [field]


QLORA_4090 = "qwen2.5-72b qlora 2万条 一周 4090"


def test_the_off_peak_rate_asked_is_the_plans_hours_at_it(book):
    # "AutoDL夜间闲时价能用吗，能省多少" had restated the plan's regular rate alone
    result = advise(QLORA_4090, "zh", book=book)
    c = result.plan.costs
    assert c.offpeak_per_gpu_hour and c.offpeak_per_gpu_hour < c.rent_per_gpu_hour
    reply = follow_up(QLORA_4090, plan_context(result), "AutoDL夜间闲时价能用吗，能省多少", book=book)
    assert (reply.kind, reply.part) == ("explain", "offpeak")
    hours = c.rent_hourly_total / c.rent_per_gpu_hour
    assert money((c.rent_per_gpu_hour - c.offpeak_per_gpu_hour) * hours, "CNY") in reply.text


@pytest.mark.parametrize("message", ["买一台4卡4090工作站要多少钱", "买4张4090要多少钱"])
def test_buying_the_plans_own_gpu_is_its_purchase_not_the_price_list(book, message):
    result = advise(QLORA_4090, "zh", book=book)
    reply = follow_up(QLORA_4090, plan_context(result), message, book=book)
    assert reply.kind == "whatif" and reply.advice.request.rent_or_buy == "buy"
    assert reply.after["gpu"] == "RTX4090-24GB"


def test_the_resale_asked_gives_the_figure_at_that_age_and_money_as_money(book):
    text = "8b pretrain 500B tokens 45d buy"
    result = advise(text, book=book)
    reply = follow_up(text, plan_context(result), "what would the servers resell for after 2 years", book=book)
    assert "worth after 2 years" in reply.text
    assert money(result.plan.costs.buy_capex, "CNY") in reply.text and "CNY," not in reply.text


def test_a_delivery_answer_keeps_its_sentences_apart(book):
    text = "8b pretrain 500B tokens 45d buy"
    reply = follow_up(
        text,
        plan_context(advise(text, book=book)),
        "if delivery is 8+ weeks what do we do for the first 45 days",
        book=book,
    )
    assert not re.search(r"\.[A-Z]", reply.text)


@pytest.mark.parametrize("message", ["how many tokens per day is that", "每天能训多少token"])
def test_the_tokens_a_day_asked_lead_the_time(book, message):
    text = "8b pretrain 500B tokens 45d buy"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    e = reply.advice.plan.estimate
    assert reply.part == "time" and reply.lead
    day = e.throughput.tokens_per_s_per_gpu * e.layout.gpu_count * 86400
    assert e.days * day == pytest.approx(e.tokens, rel=0.05)


def test_a_setting_switched_on_is_that_what_if(book):
    # "开了liger能快多少" had drawn the menu ("开了" unread)
    summary = plan_context(advise(QLORA_4090, "zh", book=book))
    reply = follow_up(QLORA_4090, summary, "开了liger能快多少", book=book)
    assert reply.kind == "whatif" and reply.changed == ["compile"]
    # how much faster is asked on the plan's own GPUs (the search had moved to 2 cards and read slower)
    assert reply.after["gpu_count"] == summary["gpu_count"] and reply.after["days"] < summary["days"]


def test_a_layout_without_the_knob_that_offloads_says_so(book):
    # "why full recompute on a 256GB card?": the layout without recompute "fits (144 of 256 GiB)"
    # only by offloading the 218 GiB of frozen weights, which the reason had not said
    text = "gpt-oss-120b lora 50k samples 3d usd"
    reply = follow_up(text, plan_context(advise(text, book=book)), "why full recompute on a 256GB card?", book=book)
    assert "offloading its weights and optimizer states to the servers' memory" in reply.text


def test_data_given_in_tokens_under_a_plan_of_samples_keeps_the_samples_length(book):
    # "what if 800M tokens" had dropped the samples' 1,000 tokens each: attention over whole
    # sequences, 4x the data for 4.8x the GPU-hours
    text = "qwen3-30b-a3b lora 200k samples 5d"
    first = advise(text, book=book)
    reply = follow_up(text, plan_context(first), "what if 800M tokens", book=book)
    assert reply.kind == "whatif" and reply.advice.request.tokens == pytest.approx(800e6)
    assert reply.advice.request.tokens_per_sample == first.request.tokens_per_sample
    ratio = reply.advice.plan.estimate.gpu_hours / first.plan.estimate.gpu_hours
    assert 3.8 < ratio < 4.2


@pytest.mark.parametrize(
    "message", ["we already own 64 H100s, can we use those and rent the rest", "我们有64张H100，不够的租"]
)
def test_gpus_owned_and_the_rest_rented_price_only_the_rest(summary, book, message):
    # had been the mixed-generations FAQ ("paired with A100s"), or a plan on the 64 alone
    reply = follow_up(REQUEST, summary, message, book=book)
    assert (reply.kind, reply.part) == ("explain", "own_and_rent")
    plan = reply.advice.plan
    assert plan.gpu == "H100-SXM5-80GB" and plan.estimate.layout.gpu_count > 64
    more = plan.estimate.layout.gpu_count - 64
    assert f"{more}" in reply.text and money(summary["rent_total"], "CNY") in reply.text


@pytest.mark.parametrize("message", ["can we split it across two vendors, 14 servers each", "能不能两家机房各租一半"])
def test_one_job_split_over_two_vendors_is_said_to_need_one_fabric(summary, book, message):
    # had been the expert-parallelism FAQ, for a dense 70B
    reply = follow_up(REQUEST, summary, message, book=book)
    assert (reply.kind, reply.part) == ("explain", "split_sites")
    assert str(summary["nodes"]) in reply.text and "nccl-tests" in reply.text


def test_why_not_another_gpu_under_a_plan_that_buys_weighs_the_purchase(book):
    # "why H200 and not H800" under a purchase had set the rents side by side (H800 rents for less)
    # and said the alternatives explain why H200 ranked first
    text = "8b pretrain 500B tokens 45d buy"
    summary = plan_context(advise(text, book=book))
    assert summary["decision"] == "buy"
    reply = follow_up(text, summary, "why H200 and not H800", book=book)
    assert reply.advice.plan.gpu == "H800-SXM-80GB"
    assert reply.advice.plan.costs.buy_capex > summary["buy_capex"]
    assert "times the purchase of" in reply.text and money(summary["buy_capex"], "CNY") in reply.text


@pytest.mark.parametrize("message", ["H20的MFU 69%是不是太高了", "is 69% mfu too high on h20?"])
def test_a_high_mfu_doubted_on_a_card_light_on_compute_says_why(book, message):
    # "H20的MFU 69%是不是太高了" had got the FAQ's 35-50% for H100-class runs beside the plan's 69%
    text = "qwen3-14b full-finetune 30GB 7d H20"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert "H20-96GB" in reply.text and ("295" in reply.text) and ("1,260" in reply.text)


def test_the_city_told_in_passing_is_that_what_if(summary, book):
    # "we're in shanghai btw, does that change the numbers" had drawn the menu
    reply = follow_up(REQUEST, summary, "we're in shanghai btw, does that change the numbers", book=book)
    assert reply.changed == ["city"]


@pytest.mark.parametrize("message", ["内存要256G？我们机器只有128G", "we only have 128GB of RAM per server"])
def test_the_host_ram_set_against_the_teams_is_the_servers_ram_line(book, message):
    # had been the ZeRO FAQ's "1163 GB" for full fine-tuning, against the plan's 41.5 GiB offloaded
    reply = follow_up(QLORA_4090, plan_context(advise(QLORA_4090, "zh", book=book)), message, book=book)
    assert reply.part == "servers" and "1163" not in reply.text
    assert f"{reply.advice.plan.infra.ram_gib_per_node:g} GiB" in reply.text


@pytest.mark.parametrize(
    "message",
    ["what are the alternatives?", "whats the cheapest nvidia option", "is there a better setup", "还有别的方案吗"],
)
def test_the_alternatives_asked_are_the_best_plan_on_each_other_gpu(summary, book, message):
    # "what are the alternatives?" had drawn the menu
    reply = follow_up(REQUEST, summary, message, book=book)
    assert (reply.kind, reply.part) == ("explain", "gpu_type") and reply.rows


@pytest.mark.parametrize("message", ["does the $3.9 include pulling the 240GB of weights", "这个价格包含存储吗"])
def test_what_the_rent_covers_is_its_arithmetic_not_the_tax_topic(book, message):
    # "does the $3.9 include pulling the 240GB of weights" had got the VAT and sales-tax topic
    text = "gpt-oss-120b lora 50k samples 3d usd"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert (reply.kind, reply.part) == ("explain", "costs")


def test_a_price_with_tax_asked_stays_the_tax_topic(book):
    text = "13b 全量微调 200GB数据 7天 预算10万"
    reply = follow_up(text, plan_context(advise(text, book=book)), "价格含税吗", book=book)
    assert reply.faq and reply.faq["topic"] == "tax_invoices"


def test_a_providers_sla_asked_is_the_sla_topic_not_its_price(book):
    # "is autodl reliable enough, any SLA?" had restated AutoDL's price (and a GPU change)
    text = "qwen3-30b-a3b lora 200k samples 5d"
    reply = follow_up(text, plan_context(advise(text, book=book)), "is autodl reliable enough, any SLA?", book=book)
    assert reply.faq and reply.faq["topic"] == "sla_failure_repair" and not reply.changed


def test_a_providers_contract_asked_is_its_offers_on_record(book):
    text = "gpt-oss-120b lora 50k samples 3d usd"
    reply = follow_up(
        text, plan_context(advise(text, book=book)), "does tensorwave need a contract or min commitment", book=book
    )
    assert (reply.kind, reply.part) == ("part", "vendor") and reply.rows
    assert {r["provider"] for r in reply.rows} == {"TensorWave"}


def test_paying_for_servers_over_time_is_the_purchases_value_and_financing(book):
    text = "8b pretrain 500B tokens 45d buy"
    reply = follow_up(
        text, plan_context(advise(text, book=book)), "can we do lease-to-own or pay in installments", book=book
    )
    assert "Financing" in reply.text and money(reply.advice.plan.costs.buy_capex, "CNY") in reply.text


def test_a_doubt_naming_another_gpu_or_a_count_is_that_not_the_whole_plan(book):
    # "真的可以用4090吗" and "are you sure about 8 gpus?" had been read as the plan doubted as a whole
    text = "qwen2.5-7b lora 50k samples 3d"
    summary = plan_context(advise(text, book=book))
    on_4090 = follow_up(text, summary, "真的可以用4090吗", book=book)
    assert on_4090.kind == "whatif" and on_4090.after["gpu"] == "RTX4090-24GB"
    assert follow_up(text, summary, "are you sure about 8 gpus?", book=book).part != "time_sure"
    assert follow_up(text, summary, "真的假的", book=book).part == "time_sure"


def test_the_plans_own_provider_asked_gives_the_plans_billed_total(book):
    # "how much on tensorwave?" had said "the plan's 1.55 GPU-hours cost $3.02" beside its $3.9,
    # billed by the whole hour
    text = "gpt-oss-120b lora 50k samples 3d usd"
    result = advise(text, book=book)
    c = result.plan.costs
    assert c.rent_option == "hourly" and c.rent_offer["provider"] == "TensorWave"
    reply = follow_up(text, plan_context(result), "how much on tensorwave?", book=book)
    assert money(c.rent_hourly_total, "USD") in reply.text


# Thirty-third session's probe of thread questions: each had drawn the menu or another question's answer.

ZH_32B = "32B 全量微调 100GB数据 10天 预算50万"


@pytest.mark.parametrize(
    "text,message,lead",
    [
        ("70B full-finetune 500GB 21d budget usd", "what's the bottleneck here, compute or network?", "Compute:"),
        ("kimi k2 lora 10万条", "瓶颈在哪", "瓶颈在通信"),
        (ZH_32B, "是算力瓶颈还是网络瓶颈", "瓶颈在算力"),
    ],
)
def test_the_bottleneck_asked_names_the_steps_largest_term(book, text, message, lead):
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert (reply.kind, reply.part) == ("explain", "time") and reply.text.startswith(lead)
    step = reply.advice.plan.estimate.throughput.step
    # the term named is the step's largest: compute, or the communication it does not hide
    assert (step["compute_s"] >= step["exposed_s"]) == (lead in ("Compute:", "瓶颈在算力"))


@pytest.mark.parametrize(
    "message", ["这个价格能砍吗", "any room to negotiate on price?", "这个价格是按小时还是按月？能砍吗"]
)
def test_bargaining_or_the_billing_asked_is_the_rent_with_its_levers(book, message):
    # "这个价格能砍吗" had drawn the menu; "按小时还是按月" had re-priced a ¥8 job on a month's lease
    text = "qwen2.5-7b lora 5万条 3天 预算2万" if "按小时" in message else ZH_32B
    first = advise(text, book=book)
    reply = follow_up(text, plan_context(first), message, book=book)
    assert (reply.kind, reply.part) == ("explain", "costs") and not reply.changed
    assert money(first.plan.rent, first.plan.costs.currency) in reply.lead
    if first.plan.costs.rent_term and first.plan.costs.rent_term.get("mostly_idle"):
        assert "按天计费" in reply.lead or "daily billing" in reply.lead  # the idle months: the first lever


def test_memory_quoted_back_and_doubted_is_the_plans_memory(book):
    reply = follow_up(ZH_32B, plan_context(advise(ZH_32B, book=book)), "显存73.4/79.7太满了吧，会不会爆", book=book)
    assert (reply.kind, reply.part) == ("explain", "memory")


def test_will_it_oom_with_a_longer_sequence_replans_on_the_same_gpus(book):
    text = "llama 3 8b sft 100k samples on 8xH100 usd"
    first = advise(text, book=book)
    reply = follow_up(text, plan_context(first), "will this OOM if we bump seq to 8192?", book=book)
    assert reply.kind == "whatif" and reply.changed == ["seq_len"]
    new = reply.advice.plan
    assert (new.gpu, new.estimate.layout.gpu_count) == (first.plan.gpu, first.plan.estimate.layout.gpu_count)
    assert reply.advice.request.seq_len == 8192


def test_another_gpu_named_in_chinese_with_its_maker_is_the_plan_on_it(book):
    # "换成昇腾910B要多少钱" had listed the 910B's prices; "换成A800" re-planned
    reply = follow_up(ZH_32B, plan_context(advise(ZH_32B, book=book)), "换成昇腾910B要多少钱", book=book)
    assert reply.kind == "whatif" and reply.advice.plan.gpu == "Ascend-910B-64GB"


@pytest.mark.parametrize(
    "text,message,said",
    [
        (
            "llama 3 8b sft 100k samples on 8xH100 usd",
            "21 minutes seems way too fast, what token count did you assume?",
            "100,000 samples x 1,000 tokens each = 100M tokens",
        ),
        ("7b sft 10k samples avg 2k tokens 3 epochs", "how many tokens did you assume per sample?", "x 3 epochs = 60M"),
        ("70B 全量微调 1TB数据 14天", "1TB按多少token算的", "按每 token 3.2 字节"),
        # the plan's count asked outright (had been the menu, fiftieth session)
        ("qwen2.5-32b full finetune 200GB 10 days", "how many tokens is that?", "at 4 bytes a token = 50B tokens"),
        ("llama 3 8b sft 100k samples on 8xH100 usd", "how many tokens in total?", "= 100M tokens"),
        ("70B 全量微调 1TB数据 14天", "一共多少token？", "按每 token 3.2 字节"),
    ],
)
def test_the_tokens_assumed_asked_is_how_the_data_became_tokens(book, text, message, said):
    # had been the doubling what-if and the FAQ's bytes-to-tokens rule
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert (reply.kind, reply.part) == ("explain", "time") and said in reply.lead
    assumed = "assumed, not measured" in reply.lead
    assert assumed == ("100k samples" in text)


@pytest.mark.parametrize("message", ["how many tokens do we need?", "how many tokens per second?"])
def test_tokens_wanted_or_per_second_are_not_the_datas_tokens(book, message):
    text = "qwen2.5-32b full finetune 200GB 10 days"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert "bytes a token" not in (reply.lead or "")


@pytest.mark.parametrize(
    "text,message,part",
    [
        ("kimi k2 lora 10万条", "瓶颈在哪", "time"),
        (ZH_32B, "这个价格能砍吗", "costs"),
        (ZH_32B, "1TB按多少token算的", "time"),
    ],
)
def test_in_slack_the_questions_own_answer_leads_the_parts_arithmetic(book, text, message, part):
    # the blocks had shown the part's arithmetic alone, the answer to the question dropped
    from bot import blocks

    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert reply.part == part and reply.lead
    msg = blocks.explain(reply)
    assert msg["blocks"][0]["text"]["text"].startswith(reply.lead[:20])
    assert msg["text"].startswith(reply.lead[:20])


def test_the_power_price_region_is_worded_in_the_replys_language(book):
    # "（Sichuan）" had stood in a Chinese answer on the plan's electricity
    text = "北京 买 8卡H20 70B lora 10万条 用4年 利用率50%"
    reply = follow_up(text, plan_context(advise(text, book=book)), "电费多少", book=book)
    assert "（四川）" in reply.text and "Sichuan" not in reply.text


@pytest.mark.parametrize(
    "message", ["is $61.8k the all-in cost or are storage and egress extra?", "存储和流量要另算吗", "is that all in?"]
)
def test_whether_the_rent_is_all_in_is_its_arithmetic_whatever_figure_is_quoted(book, message):
    # a figure the plan no longer has ($61.8k against $66,533) had drawn the menu
    text = "70B full-finetune 500GB 21d budget usd"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert (reply.kind, reply.part) == ("explain", "costs") and not reply.changed


@pytest.mark.parametrize("question", ["多少钱一个月", "how much per month?"])
def test_a_month_asked_of_a_longer_lease_leads_with_the_month(book, question):
    # under a 6-month lease "多少钱一个月" had led with the six months' total
    text = "72B SFT 1.5TB 3周 租半年 深圳"
    first = advise(text, book=book)
    c = first.plan.costs
    assert c.rent_term["months_paid"] == 6
    reply = follow_up(text, plan_context(first), question, book=book)
    gpus = first.plan.estimate.layout.gpu_count
    assert reply.text.startswith(("每月 " if "月" in question else "") + money(c.rent_per_gpu_month * gpus, "CNY"))
    assert money(c.rent_total, "CNY") in reply.text.splitlines()[0]


def test_does_it_fit_of_the_plans_own_gpu_and_length_is_its_memory(book):
    # "does it fit on H100 at 128k?" under a 128k plan on H100 had been the FAQ on context parallelism
    text = "llama 3.1 70b long context extension to 128k 10B tokens 14d usd"
    first = advise(text, book=book)
    assert first.plan.gpu == "H100-SXM5-80GB" and first.request.seq_len == 131072
    reply = follow_up(text, plan_context(first), "does it fit on H100 at 128k?", book=book)
    assert (reply.kind, reply.part) == ("explain", "memory")
    assert reply.text.startswith(f"{num(first.plan.estimate.memory.total)} of")
    # another GPU named is that GPU's plan
    assert follow_up(text, plan_context(first), "does it fit on A100?", book=book).kind == "whatif"


def test_power_and_rack_space_asked_is_the_servers_power_not_their_running_costs(book):
    # the running-costs words must not take "how much power and rack space?" (a probe's re-run)
    text = "14B cpt 300B tokens 8 weeks buy H20 keep it busy 24 months"
    reply = follow_up(text, plan_context(advise(text, book=book)), "how much power and rack space?", book=book)
    assert (reply.kind, reply.part) == ("part", "servers") and "kW" in reply.text


@pytest.mark.parametrize(
    "message,kind",
    [
        ("what if we need nvlink?", "whatif"),
        ("要NVLink呢", "whatif"),
        ("do we need nvlink?", "question"),
        ("需要NVLink吗", "question"),
        ("why NVLink?", "question"),
        # "is ... necessary?" had read as a doubted number of the plan with none named: the overview
        ("is nvlink necessary?", "question"),
        ("is nvlink really needed?", "question"),
    ],
)
def test_nvlink_asked_for_is_a_whatif_and_asked_about_is_the_faqs(book, message, kind):
    text = "7b lora 1GB 2d usd"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert reply.kind == kind
    if kind == "whatif":
        assert reply.advice.request.nvlink and catalog.get_gpu(reply.advice.plan.gpu).nvlink_domain > 1


@pytest.mark.parametrize(
    "message,days",
    [
        ("what if we had 2 more weeks?", 21),
        ("with an extra week?", 14),
        ("how much would 2 more weeks save?", 21),
        ("多给两周呢", 21),
        ("再多一周能省多少", 14),
    ],
)
def test_weeks_added_move_the_deadline_by_as_many_days(book, message, days):
    # each had been the lead-time topic, the cost arithmetic or the menu
    text = "llama3.1-70b lora 500M tokens 7d usd"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert reply.kind in ("whatif", "unchanged")
    assert re.search(rf"\b{days} (?:days|天)", reply.text)


@pytest.mark.parametrize(
    "message,days",
    [
        ("能不能分两个月跑", 60),
        ("can we spread it over two months?", 60),
        ("what if we stretch it to 6 weeks?", 42),
        ("拉长到一个月呢", 30),
    ],
)
def test_a_run_spread_or_stretched_over_a_span_is_that_deadline(book, message, days):
    # each had drawn the menu of what a thread can answer
    reply = follow_up(REQUEST, plan_context(advise(REQUEST, book=book)), message, book=book)
    assert reply.kind == "whatif" and reply.advice.request.deadline_days == days


@pytest.mark.parametrize("message", ["is RDMA necessary?", "is infiniband necessary?"])
def test_a_fabric_doubted_is_the_plans_network(book, message):
    reply = follow_up(REQUEST, plan_context(advise(REQUEST, book=book)), message, book=book)
    assert (reply.kind, reply.part) == ("explain", "network")


@pytest.mark.parametrize("message", ["what's the cheapest time of day to run this?", "什么时候跑最便宜"])
def test_the_cheapest_hours_asked_of_a_multi_server_plan_is_the_off_peak_topic_on_it(book, message):
    # no off-peak rate for 28 servers: the FAQ's off-peak topic with its word on them (it had been
    # the menu: the question's own words scored the topic too weakly)
    summary = plan_context(advise(REQUEST, book=book))
    reply = follow_up(REQUEST, summary, message, book=book)
    assert reply.faq["topic"] == "offpeak_night_pricing" and reply.faq["confident"]
    assert str(summary["nodes"]) in reply.text


def test_tax_asked_of_buying_servers_is_the_tax_topic(book):
    # "买服务器" had outweighed the one character 税 and drawn the rent-or-buy answer
    reply = follow_up(REQUEST, plan_context(advise(REQUEST, book=book)), "买服务器要交多少税", book=book)
    assert reply.faq["topic"] == "tax_invoices"


@pytest.mark.parametrize(
    "message,part",
    [
        ("give me the vendor checklist", "rfq"),
        ("what should we ask the vendor?", "rfq"),
        ("供应商要问什么", "rfq"),
    ],
)
def test_what_to_ask_the_vendor_is_the_request_for_quote(book, message, part):
    # each had drawn the menu
    reply = follow_up(REQUEST, plan_context(advise(REQUEST, book=book)), message, book=book)
    assert reply.part == part


@pytest.mark.parametrize("message", ["how sure are you about 13 days?", "13天有多大把握"])
def test_how_sure_the_time_is_asked_is_the_engines_error_against_the_deadline(book, message):
    reply = follow_up(REQUEST, plan_context(advise(REQUEST, book=book)), message, book=book)
    assert reply.part == "time_sure"


@pytest.mark.parametrize("message", ["如果只有一半预算呢", "what if we only had half the money?", "能不能便宜一半"])
def test_half_the_money_without_a_budget_is_half_the_plans_rent(book, message):
    # the request gave no sum: half the plan's rent is the budget asked (it had been the FAQ on tight budgets)
    summary = plan_context(advise(REQUEST, book=book))
    reply = follow_up(REQUEST, summary, message, book=book)
    assert reply.kind == "whatif"
    assert reply.advice.request.budget.amount == pytest.approx(summary["rent_total"] / 2, abs=1)


@pytest.mark.parametrize(
    "message",
    [
        "how often should we checkpoint?",
        "多久存一次checkpoint",
        "断点续训怎么做",
        "how long until the first checkpoint?",
    ],
)
def test_how_often_to_save_is_youngs_interval_on_the_plans_gpus(book, message):
    # the failure topic had scored level with the checkpoint topic and drawn the menu; the note works
    # the interval out from this plan's GPUs (infra.checkpoint_cadence)
    from advisor.planning.infra import checkpoint_cadence

    summary = plan_context(advise(REQUEST, book=book))
    reply = follow_up(REQUEST, summary, message, book=book)
    assert reply.faq["topic"] == "checkpoint_storage" and reply.faq["confident"]
    cad = checkpoint_cadence(summary["gpu_count"], summary["days"] * 24, summary["nodes"])
    for hours in (cad.mtbf_h, cad.sync_every_h, cad.async_every_h):
        assert num(round(hours, 1) if hours < 100 else round(hours)) in reply.text


BUYER = "70B lora 100GB 30d buy"


@pytest.mark.parametrize(
    "message,part",
    [
        ("how long until the servers arrive?", "delivery"),  # had been the rental's setup days
        ("what warranty should we ask for?", "risks"),  # the checklist's purchase terms; had been the menu
        ("保修要多久", "risks"),
        ("how much space do they take?", "servers"),  # the racks they fill; had been the menu
        ("占多大地方", "servers"),
    ],
)
def test_a_buyers_delivery_warranty_and_room_are_the_plans_parts(book, message, part):
    reply = follow_up(BUYER, plan_context(advise(BUYER, book=book)), message, book=book)
    assert reply.part == part
    if part == "risks":
        assert "warranty" in reply.text or "保修" in reply.text


@pytest.mark.parametrize("message", ["how much is the power per month?", "电费一个月多少"])
def test_the_power_a_month_is_its_bill_not_the_servers_kw(book, message):
    # the spec's power line (10.2 kW) had answered
    reply = follow_up(BUYER, plan_context(advise(BUYER, book=book)), message, book=book)
    assert reply.faq["topic"] == "electricity_cost" and ("kWh" in reply.text or "度" in reply.text)


@pytest.mark.parametrize(
    "text,message,gpu",
    [
        ("7b lora 5万条 3天 用4张4090", "4090能不能换成3090", "RTX3090-24GB"),
        ("7b lora 5万条 3天 用4张4090", "把4090换成3090", "RTX3090-24GB"),
        ("7b lora 5万条 3天 用4张4090", "could we swap the 4090s for 3090s?", "RTX3090-24GB"),
        ("7b lora 5万条 3天 用4张4090", "replace the 4090s with 3090s", "RTX3090-24GB"),
        (REQUEST, "switch from H800 to A800?", "A800-SXM4-80GB"),
    ],
)
def test_the_plans_gpu_swapped_for_another_is_the_plan_on_the_other(book, text, message, gpu):
    # both GPUs named had drawn the consumer-cards FAQ or the menu
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert reply.kind == "whatif" and reply.advice.plan.gpu == gpu


@pytest.mark.parametrize(
    "text,message,topic",
    [
        ("7B pretrain 1T tokens 30d", "how much data do we need for a 7B?", "pretraining_tokens"),
        ("7B pretrain 1T tokens 30d", "7B要多少数据", "pretraining_tokens"),
        ("7B lora 10GB 3d", "how much data do we need for a 7B?", "epochs"),
    ],
)
def test_how_much_data_a_model_of_the_plans_size_wants_is_the_faqs(book, text, message, topic):
    # the plan's own size restated had read as "nothing changes" and the cost arithmetic
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert reply.faq["topic"] == topic


@pytest.mark.parametrize(
    "message", ["can we use sequence packing?", "样本要拼接吗", "how did the samples become tokens?"]
)
def test_packing_asked_is_the_plans_own_assumption_with_what_padding_would_cost(book, message):
    # each had drawn the menu
    text = "7b lora 50k samples 3d"
    reply = follow_up(text, plan_context(advise(text, book=book)), message, book=book)
    assert reply.part == "time" and "50,000" in reply.text
    if "pack" in message or "拼接" in message:
        assert "4.1" in reply.text  # padding 1,000-token samples to 4,096 tokens: 4.1 times the tokens


def test_half_or_twice_the_gpus_the_price_negotiable_and_one_rack_are_answered(cli):
    # each had been the menu, or the memory ("will this fit in one rack?" read "fit")
    import json

    out = cli(
        "ask",
        "7b full-finetune 20B tokens 5d",
        "--follow-up",
        "can we do it with half the GPUs?",
        "--follow-up",
        "卡翻倍呢",
        "--follow-up",
        "is the price negotiable?",
        "--follow-up",
        "will this fit in one rack?",
        "--follow-up",
        "一个机柜放得下吗",
        "--json",
    )
    d = json.loads(out.stdout)
    count = d["plan"]["plan"]["gpu_count"]
    half, double, price, rack, rack_zh = d["follow_ups"]
    assert rack_zh["part"] == "servers" and "每机柜" in rack_zh["text"]  # had been the room's heat and circuits
    assert half["kind"] == "whatif" and half["plan"]["plan"]["gpu_count"] == count // 2
    assert double["kind"] == "whatif" and double["plan"]["plan"]["gpu_count"] == count  # twice the halved plan
    assert price["kind"] == "explain" and price["part"] == "costs" and "offer" in price["text"]
    assert rack["part"] == "servers" and "per rack" in rack["text"]


def test_we_used_is_a_verb_and_a_tool_asked_to_speed_it_up_is_a_whatif(cli):
    # "what if we used 3090s instead?" had been read as second-hand cards; "能不能用Unsloth加速" drew the menu
    import json

    def reply(message):
        out = cli("ask", "7b lora 20k samples 2d", "--follow-up", message, "--json")
        return json.loads(out.stdout)["follow_ups"][0]

    swapped, used, unsloth = (
        reply(m) for m in ("what if we used 3090s instead?", "what about used 3090s?", "能不能用Unsloth加速")
    )
    assert swapped["kind"] == "whatif" and swapped["plan"]["plan"]["gpu"] == "RTX3090-24GB"
    assert "Used RTX3090-24GB cards" not in swapped["text"] and "Used RTX3090-24GB cards" in used["text"]
    assert unsloth["kind"] == "whatif" and any(c["name"] == "stack" for c in unsloth["changes"])


def test_the_switch_asked_is_the_network_line_and_starting_with_half_is_half_the_gpus(cli):
    # both had drawn the menu
    import json

    out = cli(
        "ask",
        "7b full-finetune 20B tokens 5d",
        "--follow-up",
        "what switch do we need?",
        "--follow-up",
        "can we start with half and add more later?",
        "--json",
    )
    d = json.loads(out.stdout)
    switch, half = d["follow_ups"]
    assert switch["part"] == "servers" and "between nodes" in switch["text"]
    zh = json.loads(cli("ask", "13B pretrain 300B tokens 30d", "--follow-up", "交换机要什么样的", "--json").stdout)
    assert zh["follow_ups"][0]["part"] == "servers"  # had been the hidden costs (switches priced)
    assert half["kind"] == "whatif" and half["plan"]["plan"]["gpu_count"] == d["plan"]["plan"]["gpu_count"] // 2


@pytest.mark.parametrize(
    "question",
    [
        "what's the total cost including storage and network?",
        "can you give me a quote to send to finance?",
        "总费用是多少",
    ],
)
def test_the_total_cost_asked_is_the_costs_arithmetic(cli, question):
    # they had been the servers' spec (on "storage and network") and the depreciation topic (on "finance")
    import json

    out = json.loads(cli("ask", "7b lora 20k samples 2d", "--follow-up", question, "--json").stdout)
    (reply,) = out["follow_ups"]
    assert reply["kind"] == "explain" and reply["part"] == "costs"


def test_paying_ahead_for_a_term_is_that_lease(cli):
    # "how much if we pay upfront for 3 months?" had drawn the menu
    import json

    out = json.loads(
        cli(
            "ask", "7b full-finetune 20B tokens 5d", "--follow-up", "how much if we pay upfront for 3 months?", "--json"
        ).stdout
    )
    (reply,) = out["follow_ups"]
    assert reply["kind"] == "whatif" and "3-month lease" in reply["text"]


@pytest.mark.parametrize(
    "question,topic",
    [
        # measured low, or a remedy asked: the causes, beside the plan's MFU (had been the plan's time)
        ("our MFU is only 25%, how to improve?", "low_gpu_utilisation"),
        ("训练时GPU利用率只有30%怎么办", "low_gpu_utilisation"),
        ("the GPUs sit idle a lot, why?", "low_gpu_utilisation"),
        # a GPU failing mid-run: the failure topic (had been the plan's risks, on "risk")
        ("what's the risk if a GPU dies mid-run?", "failure_mid_run"),
        ("训练中途有卡挂了怎么办", "failure_mid_run"),
        # the run broken off, no part named (had drawn the menu)
        ("如果中途断了怎么办", "failure_mid_run"),
        ("what if training crashes halfway?", "failure_mid_run"),
        # how many to expect: the plan's expected interruptions (the loss topic had answered, on "expect")
        ("how many failures should we expect?", "failure_mid_run"),
        ("会坏几次", "failure_mid_run"),
        # a failure rate: the SLA's (the H800's price list, on its name and "rate")
        ("what's a normal failure rate for H800s in a big cluster?", "sla_failure_repair"),
        # two kinds of GPU in one job (the menu)
        ("can we mix H800 and A800?", "mixed_gpu_generations"),
        ("4090和3090能混着用吗", "mixed_gpu_generations"),
    ],
)
def test_a_measured_problem_is_its_topic_on_the_plans_numbers(summary, book, question, topic):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.faq["topic"] == topic
    mfu = f"{summary['mfu_pct']}%"
    assert topic != "low_gpu_utilisation" or mfu in reply.text.split("\n")[0]


def test_the_plans_own_mfu_asked_is_its_arithmetic_not_the_troubleshooting(summary, book):
    reply = follow_up(REQUEST, summary, "why is the MFU only 46%?", book=book)
    assert reply.kind == "explain" and reply.faq is None


def test_paying_a_term_ahead_is_that_lease_and_the_deposit_stays_the_deposits(summary, book):
    # "what if we prepay 6 months?" had been the deposit's schedule
    assert "6-month lease" in follow_up(REQUEST, summary, "what if we prepay 6 months?", book=book).text
    assert follow_up(REQUEST, summary, "预付3个月呢", book=book).kind == "whatif"
    deposit = follow_up(REQUEST, summary, "押一付三的话要多少", book=book)
    assert deposit.faq["topic"] == "lease_payment_terms"


def test_mixing_methods_is_not_mixing_gpus(summary, book):
    reply = follow_up(REQUEST, summary, "what if we mix in some LoRA and full fine-tuning?", book=book)
    assert (reply.faq or {}).get("topic") != "mixed_gpu_generations"


@pytest.mark.parametrize("question", ["can you give me a BOM?", "给个采购清单"])
def test_a_bill_of_materials_is_the_request_for_quotes(summary, book, question):
    # (the menu)
    reply = follow_up(REQUEST, summary, question, book=book)
    per_server = f"(x {summary['nodes']})" if question.isascii() else f"（共 {summary['nodes']} 台）"
    assert reply.part == "rfq" and per_server in reply.text


def test_the_all_in_cost_per_token_is_the_unit_cost(summary, book):
    # "all-in" had drawn the whole costs section
    reply = follow_up(REQUEST, summary, "what's the all-in cost per million tokens?", book=book)
    assert reply.part == "unit_cost" and "per million tokens" in reply.text


def test_the_plans_own_gpu_chosen_before_a_question_is_the_question(summary, book):
    reply = follow_up(REQUEST, summary, "ok, let's go with the H800 one. how many servers?", book=book)
    assert (reply.kind, reply.part) == ("explain", "gpus")
    assert follow_up(REQUEST, summary, "go with h800 then", book=book).kind == "silent"


@pytest.mark.parametrize(
    "question,gpu", [("H100现在什么价", "H100-SXM5-80GB"), ("现在H800租一个月多少钱", "H800-SXM-80GB")]
)
def test_a_gpus_price_asked_first_is_the_price_list(cli, question, gpu):
    # "什么价" had been the export-control topic's; "现在H800" a job "on H800", the FAQ's monthly terms
    found = json.loads(cli("ask", question, "--json").stdout)["faq"]
    assert (found["topic"], found["gpu"]) == ("prices", gpu)


@pytest.mark.parametrize(
    "question",
    [
        "too expensive",
        "太贵了",
        "it's way too expensive",
        # the plan doubted as the cheapest, fewer GPUs to save money: the menu, or the FAQ's doubling of GPUs
        "is this the cheapest option?",
        "can we reduce the GPU count to save money?",
        "这是最便宜的方案吗",
        "能不能少用几张卡省钱",
    ],
)
def test_too_expensive_asks_for_a_cheaper_plan(summary, book, question):
    # it had been the quote-comparison topic
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind in ("whatif", "unchanged") and reply.faq is None


@pytest.mark.parametrize(
    "question,amount",
    [("we only have 500k", 500_000), ("can we get it under 1M?", 1_000_000), ("we only have ¥3M", 3e6)],
)
def test_a_sum_had_or_a_ceiling_is_a_budget(summary, book, question, amount):
    # each had drawn the menu
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind in ("whatif", "unchanged")
    assert money(amount, "CNY") in reply.text


def test_the_math_shown_is_that_parts_arithmetic(summary, book):
    # "show me the math" had drawn the menu
    reply = follow_up(REQUEST, summary, "can you show me the math for the memory?", book=book)
    assert (reply.kind, reply.part) == ("explain", "memory")
    assert follow_up(REQUEST, summary, "walk me through the cost", book=book).part == "costs"


def test_gpus_named_before_the_verb_of_having_are_owned(summary, book):
    reply = follow_up(REQUEST, summary, "what if we use H20s we already own?", book=book)
    assert reply.kind == "whatif" and reply.advice.request.owned and reply.advice.request.gpu == "H20-96GB"


@pytest.mark.parametrize("question", ["如果中间要停一周呢", "can we pause it for a week and resume?", "能不能分两批跑"])
def test_a_paused_run_resumes_from_a_checkpoint_and_its_lease_keeps_billing(summary, book, question):
    # each had drawn the menu; the thread's plan is on a lease, so the paused days are billed
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.faq["topic"] == "checkpoint_storage"
    lead = reply.text.split("\n")[0]
    assert ("checkpoint" in lead) and ("lease" in lead or "包月" in lead)


@pytest.mark.parametrize(
    "question,mfu", [("what if MFU is only 30%?", 0.30), ("MFU按30%算呢", 0.30), ("at 35% MFU?", 0.35)]
)
def test_an_mfu_supposed_rescales_the_plans_time(summary, book, question, mfu):
    # it had been the plan's time at its own MFU
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.part == "time"
    plan = reply.advice.plan
    ratio = plan.estimate.throughput.mfu / mfu
    assert f"{plan.estimate.gpu_hours * ratio:,.0f}" in reply.lead


@pytest.mark.parametrize("question", ["how much per day?", "is storage included?"])
def test_the_day_and_what_the_rent_covers_are_the_costs(summary, book, question):
    # both had drawn the menu
    reply = follow_up(REQUEST, summary, question, book=book)
    assert (reply.kind, reply.part) == ("explain", "costs") and "storage" in reply.text


@pytest.mark.parametrize("question,months", [("how much would 1 year cost?", 12), ("what would 6 months cost?", 6)])
def test_what_a_span_would_cost_is_that_lease(summary, book, question, months):
    # "how much would 1 year cost?" had been read as a 365-day deadline
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "whatif" and f"{months}-month lease" in reply.text


@pytest.mark.parametrize("question", ["A800还是H800", "买A800还是H800", "should we buy A800 or H800?"])
def test_the_plans_gpu_set_against_another_as_a_choice_is_the_plan_on_the_other(summary, book, question):
    # the menu, or the export rules' topic, before
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "whatif" and reply.advice.plan.gpu == "A800-SXM4-80GB"


OWNED = "we have 16 A800, qwen2.5-72b full finetune 1B tokens"


@pytest.mark.parametrize(
    "question",
    ["how much would renting the same cost?", "how much to rent the same GPUs?", "what if we rented instead?"],
)
def test_renting_what_the_team_owns_is_that_what_if(book, question):
    # each had drawn the menu (or the data-size topic)
    reply = follow_up(OWNED, plan_context(advise(OWNED, book=book)), question, book=book)
    assert reply.kind == "whatif" and reply.advice.request.rent_or_buy == "rent"


@pytest.mark.parametrize("question", ["how long will it take on our GPUs?", "用我们自己的卡要多久"])
def test_how_long_on_our_gpus_is_the_plans_time(book, question):
    # it had been the time to a first run
    reply = follow_up(OWNED, plan_context(advise(OWNED, book=book)), question, book=book)
    assert (reply.kind, reply.part) == ("explain", "time")


@pytest.mark.parametrize(
    "question",
    [
        "what happens if a GPU dies halfway through the run, who covers the lost time?",
        "签了三个月，中间卡坏了耽误的时间能补回来吗",
    ],
)
def test_what_the_vendor_owes_for_a_failure_is_the_slas(summary, book, question):
    # the second had been priced as a 3-month lease; a failure asked with who pays stays the SLA's
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.faq["topic"] == "sla_failure_repair"


@pytest.mark.parametrize("question", ["summarize the plan", "tl;dr?", "what should I tell my boss?", "总结一下"])
def test_the_plan_summed_up_is_its_overview(summary, book, question):
    # each had drawn the menu
    reply = follow_up(REQUEST, summary, question, book=book)
    assert (reply.kind, reply.part) == ("explain", "overview")


def test_the_checklist_asked_in_words_is_the_cards_checklist(summary, book):
    reply = follow_up(REQUEST, summary, "what's on the checklist?", book=book)
    assert reply.part == "checklist" and "nvidia-smi topo -m" in reply.text


@pytest.mark.parametrize("question,line", [("what NIC do we need?", "between nodes"), ("how many PDUs?", "power")])
def test_nics_and_pdus_are_the_servers_lines(summary, book, question, line):
    # both had drawn the menu
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.part == "servers" and line in reply.text
    assert follow_up(REQUEST, summary, "give me the vendor checklist", book=book).part == "rfq"


@pytest.mark.parametrize(
    "question,gpu",
    [
        ("能不能用A800代替", "A800-SXM4-80GB"),
        ("有没有国产卡方案", "Ascend-910B-64GB"),
        ("用910B替代呢", "Ascend-910B-64GB"),
    ],
)
def test_a_gpu_offered_as_a_substitute_is_the_plan_on_it(summary, book, question, gpu):
    # "代替" and "有没有...方案" had drawn the menu
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "whatif" and reply.advice.request.gpu == gpu


@pytest.mark.parametrize(
    "question,share", [("what's the cost if we include a 20% buffer?", 0.2), ("add 10% contingency", 0.1)]
)
def test_a_margin_on_the_rent_is_worked_out(summary, book, question, share):
    # "add 10% contingency" had drawn the menu; the buffer had not been added
    reply = follow_up(REQUEST, summary, question, book=book)
    rent = reply.advice.plan.rent
    assert reply.part == "costs" and money(rent * (1 + share), reply.advice.plan.costs.currency) in reply.lead


def test_a_part_checked_again_is_its_arithmetic(summary, book):
    # "can you double check the memory?" had been the batch-size topic
    assert follow_up(REQUEST, summary, "can you double check the memory?", book=book).part == "memory"


@pytest.mark.parametrize("question", ["how much would a pilot cost?", "试跑要多少钱"])
def test_the_pilots_price_is_worked_out_on_two_of_the_plans_servers(summary, book, question):
    # it had been the whole list of risks
    reply = follow_up(REQUEST, summary, question, book=book)
    p = reply.advice.plan
    hours = round(min(3, p.days * 0.1) * 24, 1)  # the checklist's hours, as the hidden costs price them
    gpus = 2 * p.estimate.layout.gpus_per_node
    assert reply.part == "costs" and money(hours * gpus * p.costs.rent_per_gpu_hour, p.costs.currency) in reply.lead


@pytest.mark.parametrize(
    "question,cap",
    [
        ("max 64 GPUs", 64),
        ("we can't get more than 2 servers", 16),
        ("最多只能拿到32张卡", 32),
        ("what if the vendor only has 4 nodes available?", 32),
    ],
)
def test_a_ceiling_on_the_gpus_caps_the_count(summary, book, question, cap):
    # "max 64 GPUs" had been "nothing changes"; "more than 2 servers" two more servers (240 GPUs), "最多…32张"
    # 32 more (256)
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "whatif" and reply.advice.request.max_gpus == cap
    assert reply.advice.plan.estimate.layout.gpu_count <= cap


@pytest.mark.parametrize("question", ["至少用64张卡", "what if we use at least 8 servers?"])
def test_a_floor_on_the_gpus_is_the_least_count(book, question):
    # both had been the FAQ on why 70B needs eight GPUs
    request = "qwen2.5-32b full-finetune 1B tokens 7d"
    reply = follow_up(request, plan_context(advise(request, book=book)), question, book=book)
    assert reply.kind == "whatif" and reply.advice.request.min_gpus == 64


def test_going_with_a_gpu_to_save_money_is_the_plan_on_it(book):
    # it had been the small-budget topic
    request = "qwen2.5-14b lora 10万条 3天"
    reply = follow_up(
        request, plan_context(advise(request, book=book)), "what if we go with 4090s to save money?", book=book
    )
    assert reply.kind == "whatif" and reply.advice.request.gpu == "RTX4090-24GB"


@pytest.mark.parametrize(
    "question,start",
    [
        ("can we start with 1 server and add more later?", 8),
        ("先租一台，以后不够再加可以吗", 8),
        ("start with 16 GPUs and add more as we go?", 16),
        ("can we start with 2 nodes and expand later?", 16),
    ],
)
def test_starting_on_fewer_servers_is_the_plan_on_them_then_how_a_run_grows(summary, book, question, start):
    """The count had been read as servers added to the plan's (224 GPUs became 232): it is the plan on
    the GPUs started with, led by what starting there means, then the FAQ's how (grow_later)."""
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "whatif" and reply.faq["topic"] == "grow_later"
    first = summary["gpu_count"]
    assert start < first and f"{first} x H800-SXM-80GB  ->  {start} x H800-SXM-80GB" in reply.text.replace("×", "x")
    lead, rest = reply.text.split("\n", 1)
    assert f"{start}" in lead and reply.faq["answer"] in reply.text and "checkpoint" in reply.faq["answer"]
    from bot import blocks

    # in Slack too: the lead above the comparison, the how under it
    shown = [b["text"]["text"] for b in blocks.whatif(reply)["blocks"] if b.get("text")]
    assert shown[0].startswith(lead.replace("&", "&amp;")[:20]) and "checkpoint" in shown[-1]


def test_growing_later_with_no_count_is_the_topic_on_the_plans_servers(summary, book):
    reply = follow_up(REQUEST, summary, "can we add more servers later?", book=book)
    assert reply.kind == "question" and reply.faq["topic"] == "grow_later"
    assert f"is for all {summary['nodes']} of its servers" in reply.text
    # a pilot on one server is the pilot's, not a start to grow from
    pilot = follow_up(REQUEST, summary, "start with 1 server for the pilot?", book=book)
    assert (pilot.faq or {}).get("topic") != "grow_later"


@pytest.mark.parametrize(
    "question,label",
    [
        ("let's go with option 2", None),
        ("the second alternative please", None),
        ("第二个方案呢", None),
        ("show me the cheaper, slower one", "cheaper_slower"),
        ("LoRA那个方案呢", "lora"),
        # a choice announced (it had been taken for the team talking, and left silent)
        ("let's go with the LoRA one", "lora"),
        # its label's comma is no end of the choice (it had read "cheaper" chosen, then "slower one")
        ("let's go with the cheaper, slower one", "cheaper_slower"),
    ],
)
def test_an_alternative_picked_is_the_plan_on_it(summary, book, question, label):
    """By its place in the answer's list or by its label: the what-if on that alternative's GPUs (and
    method), led by which it is (they had drawn the menu or the GPU comparison)."""
    alts = advise(REQUEST, book=book).result.alternatives
    alt = next(a for a in alts if a.label == label) if label else alts[1]
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "whatif" and reply.lead.startswith(("Alternative", "备选方案"))
    n = alts.index(alt) + 1
    assert f"{n}" in reply.lead
    assert f"{alt.estimate.layout.gpu_count} x {alt.gpu}" in reply.text.replace("×", "x")
    if alt.rent:
        assert money(alt.rent, alt.costs.currency) in reply.text


def test_the_faster_dearer_alternative_of_an_asap_plan_is_picked_by_its_label(book):
    text = "We need to fine-tune Qwen3-32B on 500k instruction samples asap"
    first = advise(text, book=book)
    faster = next(a for a in first.result.alternatives if a.label == "faster_dearer")
    for message in ("let's go with the faster, dearer one", "选更快更贵的那个"):
        reply = follow_up(text, plan_context(first), message, book=book)
        assert (
            reply.kind == "whatif" and reply.advice.plan.estimate.layout.gpu_count == faster.estimate.layout.gpu_count
        )


@pytest.mark.parametrize(
    "message", ["go with the H20 one, how long?", "ok let's take the H20 option, what's the cost?"]
)
def test_another_gpu_chosen_then_a_question_is_the_plan_on_that_gpu(book, message):
    # a choice and a question in one message had not been understood
    text = "We need to fine-tune Qwen3-32B on 500k instruction samples asap"
    first = advise(text, book=book)
    reply = follow_up(text, plan_context(first), message, book=book)
    assert reply.kind == "whatif" and reply.advice.plan.gpu == "H20-96GB"
    assert "could not tell" not in reply.text


def test_a_change_that_names_an_alternatives_words_stays_a_what_if(summary, book):
    """ "lora on one server" is that change, not the LoRA alternative; "why this plan?" no alternative."""
    reply = follow_up(REQUEST, summary, "what if lora on one server?", book=book)
    assert reply.kind == "whatif" and not (reply.lead or "").startswith("Alternative")
    assert follow_up(REQUEST, summary, "why this plan?", book=book).part == "overview"


def test_the_plans_own_card_named_with_its_memory_is_the_memory_question(book):
    """ "我们的4090是24G的够吗" under a plan on one 4090 had re-planned 50M tokens as 24 GB of data, then as
    the team's own card; "is our 4090's 24GB enough?" had been the consumer-card topic."""
    text = "7b lora 50k samples 3d on 1x4090"
    summary = plan_context(advise(text, book=book))
    for question in ("我们的4090是24G的够吗", "is our 4090's 24GB enough?"):
        reply = follow_up(text, summary, question, book=book)
        assert reply.kind == "question" and f"{summary['mem_per_gpu_gib']}" in reply.text
        assert "24 GB" in reply.text


def test_a_cards_memory_doubted_is_not_a_link_speed(summary, book):
    """ "would 80GB be enough?" had been the network's reason (a link speed and "enough")."""
    reply = follow_up(REQUEST, summary, "would 80GB be enough?", book=book)
    assert reply.part != "network" and "under the card's 80 GB" in reply.text
    assert follow_up(REQUEST, summary, "is 200Gb/s enough?", book=book).part == "network"


def test_the_cost_if_we_buy_is_buying(book):
    """ "what's the total cost if we buy the card?" had been the rent's arithmetic."""
    text = "7b lora 50k samples 3d on 1x4090"
    reply = follow_up(
        text, plan_context(advise(text, book=book)), "what's the total cost if we buy the card?", book=book
    )
    assert reply.kind == "whatif" and "rent or buy as planned -> buy" in reply.text


PRETRAIN = "7B pretrain 1T tokens 30d"


@pytest.mark.parametrize("question", ["what's the step time?", "how long does each step take?", "每一步要多久"])
def test_the_step_time_is_the_batch_over_the_plans_speed(book, question):
    """It had drawn the menu: the global batch's tokens over what all the GPUs train a second."""
    result = advise(PRETRAIN, book=book)
    reply = follow_up(PRETRAIN, plan_context(result), question, book=book)
    assert reply.part == "batch"
    lay = result.plan.estimate.layout
    step = lay.global_batch * result.request.seq_len / result.plan.estimate.speed
    assert num(step) in reply.text and ("seconds" in reply.text or "秒" in reply.text)


@pytest.mark.parametrize(
    "question,factor",
    [("what if we add 50% more data?", 1.5), ("with 30% more data?", 1.3), ("数据多50%呢", 1.5)],
)
def test_a_share_more_of_the_data_scales_it(book, question, factor):
    """ "what if we add 50% more data?" had drawn the menu."""
    reply = follow_up(PRETRAIN, plan_context(advise(PRETRAIN, book=book)), question, book=book)
    assert reply.kind == "whatif" and reply.advice.request.data.amount == pytest.approx(1e12 * factor)


def test_the_office_and_a_ups_asked_are_the_room_answer_with_the_ups_sized(book):
    """Both had drawn the menu: the servers' draw and heat, and a UPS at 0.9 power factor loaded to 80%."""
    summary = plan_context(advise(PRETRAIN, book=book))
    office = follow_up(PRETRAIN, summary, "can we host this in our office?", book=book)
    assert office.part == "room" and "machine room's load" in office.text
    ups = follow_up(PRETRAIN, summary, "what UPS do we need?", book=book)
    kw = float(re.search(r"draw about ([\d.]+) kW", ups.text)[1])
    assert ups.part == "room" and f"about {num(kw / 0.9 / 0.8)} kVA" in ups.text
    assert "kVA" in follow_up(PRETRAIN, summary, "UPS要多大", book=book).text


def test_who_sells_a_gpu_is_its_offers(book):
    """ "who sells H800 in Shanghai?" under an H800 plan: the plan's vendors, ranked for it; another GPU's
    sellers: that GPU's prices (the first had been the GPU-hours scaled to other GPUs)."""
    summary = plan_context(advise(PRETRAIN, book=book))
    assert follow_up(PRETRAIN, summary, "who sells H800 in Shanghai?", book=book).part == "vendor"
    other = follow_up(PRETRAIN, summary, "who has H100 in stock?", book=book)
    assert other.kind == "prices" and other.part == "H100-SXM5-80GB"


def test_two_lots_and_the_network_asked_in_chinese(book):
    """ "能不能分两批租" is a start on half that grows; "要什么样的网络" the servers' network line (both had
    drawn the menu)."""
    text = "70B 全量微调 2TB数据 30天 预算"
    summary = plan_context(advise(text, book=book))
    lots = follow_up(text, summary, "能不能分两批租", book=book)
    assert lots.kind == "whatif" and lots.faq["topic"] == "grow_later"
    assert lots.advice.plan.estimate.layout.gpu_count == summary["gpu_count"] // 2
    network = follow_up(text, summary, "要什么样的网络", book=book)
    assert network.part == "servers" and "机间" in network.text.split("\n")[1]


def test_a_cloud_teams_questions_reach_their_answers(book):
    """Under a plan on AWS p5: reserved instances are the terms topic (the spot topic before); egress the
    costs left unpriced, EFA the network topic that says one server needs none, a region the offers on
    record (each of the last three had drawn the menu)."""
    text = "70b lora 1B tokens 7d on aws p5"
    summary = plan_context(advise(text, book=book))
    assert follow_up(text, summary, "can we use reserved instances?", book=book).faq["topic"] == "monthly_vs_hourly"
    egress = follow_up(text, summary, "how much egress will we pay?", book=book)
    assert egress.part == "hidden_costs" and "egress" in egress.text
    efa = follow_up(text, summary, "do we need EFA?", book=book)
    assert efa.faq["topic"] == "internode_network" and "single server needs no" in efa.text
    assert follow_up(text, summary, "which region is cheapest?", book=book).part == "vendor"


@pytest.mark.parametrize(
    "question", ["第一个epoch的loss正常吗", "第一个checkpoint什么时候存", "our first choice is H800, what about it?"]
)
def test_an_ordinal_about_something_else_picks_no_alternative(summary, book, question):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert not (reply.lead or "").startswith(("Alternative", "备选方案"))


@pytest.mark.parametrize("question", ["what if we only run during business hours?", "只在上班时间跑可以吗"])
def test_training_in_working_hours_stretches_the_calendar_and_bills_a_lease_for_the_idle_hours(summary, book, question):
    """It had drawn the menu: 50 of 168 hours a week stretch the plan's days by 168 / 50 (past the 14-day
    deadline), and on a lease each hour of training costs 3.36 times as much."""
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.faq["topic"] == "checkpoint_storage"
    calendar = num(summary["days"] * 168 / 50, 2)
    assert calendar in reply.lead and ("14-day deadline" in reply.lead or "14 天的期限" in reply.lead)
    assert "3.36" in reply.lead
    hourly = "7b lora 50k samples 3d on 1x4090"
    cheap = follow_up(hourly, plan_context(advise(hourly, book=book)), question, book=book)
    assert "3.36" not in cheap.lead and ("about the same" in cheap.lead or "基本不变" in cheap.lead)


def test_a_gpu_named_with_its_memory_in_a_thread_is_that_part(summary, book):
    """ "can we use A100 40GB?" had been planned on the 80 GB A100 (the family's first part)."""
    reply = follow_up(REQUEST, summary, "can we use A100 40GB?", book=book)
    assert reply.kind == "whatif" and reply.advice.plan.gpu == "A100-SXM4-40GB"
    assert follow_up(REQUEST, summary, "can we use 4090s?", book=book).advice.plan.gpu == "RTX4090-24GB"


def test_a_choice_of_the_plans_own_is_the_team_talking_another_gpu_its_plan(summary, book):
    """ "go with the H800 one then" under a plan on H800 needs no answer; "go with the A100 one" under a
    plan with no A100 alternative is the plan on A100 (it had been silent, then the menu)."""
    assert follow_up(REQUEST, summary, "go with the H800 one then", book=book).kind == "silent"
    text = "70B lora 1B tokens 14d"
    own = plan_context(advise(text, book=book))
    assert follow_up(text, own, "let's go with the LoRA one", book=book).kind == "silent"
    reply = follow_up(text, own, "go with the A100 one", book=book)
    assert reply.kind == "whatif" and "A100-SXM4-80GB" in reply.text.split("\n")[0]


@pytest.mark.parametrize(
    "question",
    [
        "what if the data doubles next quarter?",
        "what if we get twice as much data next month?",
        "数据量下个季度翻倍怎么办",
        "what if our data grows to 2TB later?",
    ],
)
def test_more_data_coming_later_is_the_plan_on_that_data(summary, book, question):
    """When the data grows is no part of the change: the plan on twice the data (they had been the
    FAQ's growing-later topic, the menu, or 翻倍 read as the GPUs doubled)."""
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "whatif" and [c["name"] for c in reply.changes] == ["data"]
    assert reply.thread["summary"]["tokens"] == pytest.approx(2 * summary["tokens"])


@pytest.mark.parametrize("question", ["can we run eval during training on the same GPUs?", "训练时顺便跑评测会慢多少"])
def test_evaluating_while_training_is_its_topic_with_this_plans_hours(summary, book, question):
    """It had not been understood: the 79th topic, with what a held-out 1% evaluated 10 times adds to
    this plan (a forward pass at a third of a training token's FLOPs: a thirtieth of its time)."""
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "question" and reply.faq["topic"] == "eval_during_training"
    shown = float(num(summary["days"], 2).replace(",", ""))  # the days as the card shows them
    assert f"{shown * 24 * 0.1 / 3:.1f}" in reply.text


@pytest.mark.parametrize(
    "question,gpu",
    [
        ("would H20 work for this?", "H20-96GB"),
        ("will A800 work for this job?", "A800-SXM4-80GB"),
        ("does H20 work for this?", "H20-96GB"),
        ("would 4090s work for this?", "RTX4090-24GB"),
    ],
)
def test_a_gpu_asked_to_work_for_this_is_the_plan_on_it(summary, book, question, gpu):
    # "for this" after the verb had left the change unread ("I could not tell what to do with that")
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "whatif" and reply.thread["summary"]["gpu"] == gpu


@pytest.mark.parametrize("question", ["how much per hour?", "how much per hour in total?", "一小时多少钱"])
def test_the_cost_an_hour_is_the_plans_gpus_an_hour(summary, book, question):
    """The menu, and for 一小时多少钱 a what-if on a one-hour deadline, before: the lease's GPU-month
    over 730 hours times the plan's GPUs, then the costs' arithmetic."""
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "explain" and reply.part == "costs"
    assert summary["offer_option"] == "monthly"
    per_hour = summary["offer_rate"] / 730
    assert money(per_hour * summary["gpu_count"], summary["currency"]) in reply.lead
    hourly = "qwen2.5-7b lora 50k samples 2d"
    small = plan_context(advise(hourly, book=book))
    cheap = follow_up(hourly, small, "how much per hour?", book=book)
    assert money(small["offer_rate"] * small["gpu_count"], small["currency"]) in cheap.lead


@pytest.mark.parametrize(
    "question,changed",
    [
        ("what about a smaller model, say 32B?", "params_b"),
        ("what about a bigger model like 405B?", "params_b"),
        ("what if we go with the faster option?", "deadline_days"),
        ("go with the cheaper option", "deadline_days"),
    ],
)
def test_another_size_said_around_it_and_the_faster_option_are_what_ifs(summary, book, question, changed):
    # the first had drawn the MoE topic (sure), the others the menu
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "whatif" and [c["name"] for c in reply.changes] == [changed]


def test_getting_the_data_onto_the_servers_is_the_transfer_topic(summary, book):
    # its score had been a hair under the sure threshold, so the menu answered
    reply = follow_up(REQUEST, summary, "how do we get the data onto the servers?", book=book)
    assert reply.kind == "question" and reply.faq["topic"] == "data_transfer_ingress"


@pytest.mark.parametrize("question", ["is there a cheaper vendor?", "any cheaper provider?", "有没有更便宜的供应商"])
def test_a_cheaper_vendor_asked_is_the_offers_cheapest_first(summary, book, question):
    # the cheap-quote topic, and the menu, had answered
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "part" and reply.part == "vendor"


@pytest.mark.parametrize(
    "question", ["should we do a pilot first?", "how long should the pilot be?", "能不能先试跑一下"]
)
def test_a_pilot_asked_leads_the_checks_with_its_size_and_cost(summary, book, question):
    """The risks and checks had answered alone, the pilot's length buried in them."""
    reply = follow_up(REQUEST, summary, question, book=book)
    p = reply.advice.plan
    hours = round(min(3, p.days * 0.1) * 24, 1)
    gpus = 2 * p.estimate.layout.gpus_per_node
    assert reply.part == "risks" and money(hours * gpus * p.costs.rent_per_gpu_hour, p.costs.currency) in reply.lead


def test_the_hidden_costs_price_the_pilot_as_the_pilot_lead_does(book):
    # the hidden costs had priced the pilot on all 112 GPUs at the checklist's rounded hours, the pilot
    # lead on two servers at unrounded ones: two prices for one pilot in one thread
    text = "70B full-finetune 200GB 10d in the US"
    summary = plan_context(advise(text, book=book))
    costs = follow_up(text, summary, "what are the hidden costs?", book=book)
    pilot = follow_up(text, summary, "should we do a pilot first?", book=book)
    p = pilot.advice.plan
    assert p.costs.rent_option == "hourly" and p.estimate.layout.nodes > 2
    price = pilot.lead.split("costs about ")[1].split(" ")[0]
    assert f"on {2 * p.estimate.layout.gpus_per_node} of the plan's GPUs before the whole run: about {price} more" in (
        costs.text
    )


@pytest.mark.parametrize("question", ["does the price include electricity?", "这个价格含电费吗"])
def test_power_in_the_price_is_what_the_costs_hold_and_leave_out(summary, book, question):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.part == "hidden_costs" and (
        "power, cooling and rack space" in reply.text or "电费、散热和机柜" in reply.text
    )


@pytest.mark.parametrize("question", ["what if Lambda is sold out?", "AutoDL没货了怎么办"])
def test_a_provider_sold_out_is_the_other_offers_not_a_plan_on_it(summary, book, question):
    # the plan had been re-made on the provider the message rules out
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "part" and reply.part == "vendor"


def test_a_managed_fine_tuning_api_is_set_beside_the_plans_price_per_token(summary, book):
    reply = follow_up(REQUEST, summary, "how does this compare to using Together's fine-tuning API?", book=book)
    assert reply.part == "unit_cost" and reply.lead.startswith("A managed fine-tuning service")


@pytest.mark.parametrize(
    "question", ["do you account for failures?", "are restarts included in the time?", "时间算了故障吗"]
)
def test_failures_allowed_for_is_what_the_time_includes(summary, book, question):
    # they had drawn the menu
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.part == "time_includes"


@pytest.mark.parametrize(
    "question",
    [
        "the vendor quoted 9000 per GPU per month, good deal?",
        "vendor quoted 9000/GPU/month",
        "供应商报价每卡每月9000，合理吗",
    ],
)
def test_a_quoted_rate_with_no_currency_is_in_the_plans(summary, book, question):
    # it had drawn the cheap-quote topic (and in Chinese the request-for-quote topic)
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "quote" and reply.judgement.quote.price == 9000
    assert reply.judgement.quote.currency == summary["currency"] == "CNY"


@pytest.mark.parametrize("question", ["时间能不能再压缩一点", "工期还能缩短吗"])
def test_the_time_squeezed_is_the_faster_plan(summary, book, question):
    # the menu had answered
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "whatif" and [c["name"] for c in reply.changes] == ["deadline_days"]


@pytest.mark.parametrize("question", ["can we use 2 nodes with different GPUs?", "不同型号的卡能一起用吗"])
def test_different_gpus_together_is_the_mixing_topic(summary, book, question):
    # the menu had answered
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.faq["topic"] == "mixed_gpu_generations"


@pytest.mark.parametrize("question", ["how about renting by the week?", "能按周租吗"])
def test_a_weekly_term_asked_is_the_terms_topic(summary, book, question):
    # the menu had answered
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.faq["topic"] == "monthly_vs_hourly"


def test_growing_later_on_one_server_says_no_count_of_servers(book):
    # "This plan's time, 0.02 days, is for all 1 of its servers" had been said
    text = "qwen2.5-7b lora 50k samples 2d"
    reply = follow_up(text, plan_context(advise(text, book=book)), "can we do half now and half next month?", book=book)
    assert reply.faq["topic"] == "grow_later" and "all 1 of" not in reply.text


@pytest.mark.parametrize(
    "question,topic,not_part",
    [
        ("这个配置能跑多大batch", "batch_size", None),  # had been the largest models the GPUs hold
        ("机器什么时候能到位", "time_to_first_run", None),  # had been the menu
        ("数据放对象存储行不行", None, "room"),  # had been the servers' heat in the team's room
        ("要不要买InfiniBand交换机", None, "hidden_costs"),  # whether one is needed is the network's
    ],
)
def test_chinese_lab_questions_reach_what_they_ask(summary, book, question, topic, not_part):
    reply = follow_up(REQUEST, summary, question, book=book)
    if topic:
        assert reply.faq and reply.faq["topic"] == topic
    if not_part:
        assert reply.part != not_part and reply.kind != "capacity"


@pytest.mark.parametrize(
    "question,gpu", [("how much faster would H200 be?", "H200-SXM-141GB"), ("how much slower would A100 be?", "A100")]
)
def test_how_much_faster_on_a_gpu_is_the_plan_on_it(summary, book, question, gpu):
    # the first had listed H200's prices, the second the H800 topic
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind == "whatif" and reply.advice.plan.gpu.startswith(gpu)


def test_how_much_alone_is_the_plans_cost(summary, book):
    reply = follow_up(REQUEST, summary, "how much?", book=book)  # the menu had answered
    assert (reply.kind, reply.part) == ("explain", "costs")


@pytest.mark.parametrize("question,faster", [("much faster please", True), ("even cheaper?", False)])
def test_a_degree_before_faster_or_cheaper_is_still_that_plan(summary, book, question, faster):
    # the menu had answered
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.kind in ("whatif", "unchanged") and reply.faq is None
    if faster and reply.kind == "whatif":
        assert reply.advice.plan.days < summary["days"]


@pytest.mark.parametrize(
    "question,part",
    [
        ("is there a setup fee?", "hidden_costs"),  # the small-budget topic had answered
        ("what's included in the price?", "hidden_costs"),  # the menu had answered
        ("can we try before we sign?", "risks"),  # the risks, without the pilot's size and cost first
    ],
)
def test_what_the_price_holds_and_a_trial_before_signing(summary, book, question, part):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.part == part
    if part == "hidden_costs":
        assert "setup or installation fee" in reply.text
    else:
        assert reply.lead.startswith("A pilot of about")


@pytest.mark.parametrize(
    "question,said",
    [
        ("what's the cost per GPU-hour?", "This plan's 224 GPUs cost about"),
        ("how much is that per GPU-hour?", "This plan's 224 GPUs cost about"),  # the menu before
        ("每卡时多少钱", "本方案的 224 张卡每小时约"),
    ],
)
def test_the_cost_per_gpu_hour_leads_with_the_hour(summary, book, question, said):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.part == "costs" and reply.text.startswith(said)


@pytest.mark.parametrize(
    "text,message,topic,said",
    [
        (
            "pretrain 1B model on 20B tokens 10 days",
            "how much data do we need?",
            "pretraining_tokens",
            "about 20B tokens",
        ),
        ("预训练 3B 模型 1000亿token 两周", "要多少数据才够", "pretraining_tokens", "约每参数 33 个"),
        ("qwen2.5-14b lora 10万条 5天", "how much data do we need?", "epochs", "LIMA"),
    ],
)
def test_how_much_data_the_job_needs_is_the_faq_for_its_method(book, text, message, topic, said):
    # "how much data do we need?" under a plan had been the menu; an amount said stays a what-if
    summary = plan_context(advise(text, book=book))
    reply = follow_up(text, summary, message, book=book)
    assert reply.kind == "question" and reply.faq["topic"] == topic and said in reply.text
    assert follow_up(text, summary, "is 10k samples enough?", book=book).kind == "whatif"


SMALL = "预训练 2B 模型 1000 亿 token 春节前"


@pytest.mark.parametrize(
    "question", ["为什么只用一张卡", "为啥只要1台", "why only one gpu?", "1张卡够吗", "is one gpu enough?"]
)
def test_only_this_many_or_enough_asked_in_words_shows_the_counts_around_and_a_whole_server(book, question):
    # "为什么只用一张卡" had drawn the FAQ on sharing a card, "为什么只要1张卡" why a 70B needs 8 GPUs, "1张卡够吗"
    # "nothing changes"; and the counts around one GPU had stopped at two, not the server of 8 renting for
    # little more at an eighth of the time
    summary = plan_context(advise(SMALL, book=book))
    assert summary["gpu_count"] == 1
    reply = follow_up(SMALL, summary, question, book=book)
    assert reply.kind == "explain" and reply.part == "gpus", (reply.kind, reply.part)
    server = catalog.get_gpu(summary["gpu"]).gpus_per_server
    whole = next(r for r in reply.rows if r["count"] == server)
    assert whole["days"] < summary["days"] / 4 and whole["gpu_hours"] < 1.1 * summary["gpu_hours"]
    # a count in words that is no count chosen stays the part it asks about
    assert explained_part("why is it so slow on a single node?") == "time"
    assert explained_part("为什么一台要这么久") == "time"


@pytest.mark.parametrize("question", ["is 14 days enough?", "14天够吗"])
def test_the_deadline_asked_to_be_enough_is_how_sure_the_time_is_against_it(summary, book, question):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert (reply.kind, reply.part) == ("explain", "time_sure")
    assert "14" in reply.text and ("%" in reply.text)


@pytest.mark.parametrize(
    "question",
    ["explain the layout", "how is the model split?", "what's the layout?", "模型怎么切分的", "并行方式是什么"],
)
def test_the_layout_asked_as_a_whole_is_the_parallelism_topic_on_the_plans_numbers(summary, book, question):
    # these had been "I could not tell what to do with that"
    reply = follow_up(REQUEST, summary, question, book=book)
    tp, pp, dp = summary["tp"], summary["pp"], summary["dp"]
    said = f"TP={tp}, PP={pp}, DP={dp}" if re.search(r"[a-z]", question) else f"TP={tp}、PP={pp}、DP={dp}"
    assert said in reply.text
    # a knob named is still why the plan chose it
    assert follow_up(REQUEST, summary, "why tensor parallel 8?", book=book).part == "layout"


@pytest.mark.parametrize(
    "question", ["what's the total including storage?", "total with storage?", "全部加起来多少钱", "含存储一共多少"]
)
def test_the_total_asked_with_what_it_holds_is_the_cost(summary, book, question):
    # these had been the servers' storage line, or "I could not tell what to do with that"
    reply = follow_up(REQUEST, summary, question, book=book)
    assert (reply.kind, reply.part) == ("explain", "costs")
    # the storage itself is still the servers'
    assert follow_up(REQUEST, summary, "total storage needed?", book=book).part == "servers"
