"""Servers in the team's own room, power paid by someone else (a university lab: `放实验室`,
`电费学校出`): owning them is priced without a colocation fee or a power bill, said; whether they can
stand in that room is answered from the plan's draw; a purchase is priced at its newest year's price."""

import re

import pytest

from advisor.planning.advice import advise, plan_context
from advisor.planning.followup import follow_up
from advisor.request.canonical import canonical
from advisor.request.parser import parse

LAB = "qwen2.5-7b lora 5万条 两周 买 8卡4090"


@pytest.mark.parametrize(
    ("text", "room", "power"),
    [
        (f"{LAB} 放实验室 电费学校出", True, True),
        (f"{LAB} 不用托管", True, False),
        ("7b lora 50k samples 3d buy 8x4090 in our lab, free electricity usd", True, True),
        ("7b lora 50k samples 3d buy 8x4090 usd the university pays the electricity", False, True),
        (LAB, False, False),
    ],
)
def test_the_room_and_the_power_bill_are_read(text, room, power):
    r = parse(text)
    assert (r.own_room, r.power_paid) == (room, power)
    again = parse(canonical(r))  # the canonical line reads back the same
    assert (again.own_room, again.power_paid) == (room, power)


def test_owning_in_the_teams_room_with_power_paid_counts_neither(book):
    plain = advise(LAB, book=book).plan.costs
    lab = advise(f"{LAB} 放实验室 电费学校出", book=book)
    c = lab.plan.costs
    assert plain.hosting_cost_year > 0 and plain.power_cost_year > 0
    assert c.hosting_cost_year == 0 and c.power_cost_year == 0
    assert c.buy_capex == plain.buy_capex
    # less to run: it pays back, and sooner (with the colocation and power bills it never does)
    assert c.breakeven_months is not None
    assert plain.breakeven_months is None or c.breakeven_months < plain.breakeven_months
    assert {"own_room", "power_paid"} <= {n.code for n in lab.request.assumptions}


def test_power_paid_asked_in_the_thread_is_the_buy_verdict_on_those_costs(book):
    summary = plan_context(advise(LAB, book=book))
    reply = follow_up(LAB, summary, "电费学校出 买的话几个月回本", book=book)
    assert reply.changed == ["power_paid"]
    verdict = next(w for w in reply.warnings if w.code == "buy_verdict")
    assert verdict.params["months"] == reply.advice.plan.costs.breakeven_months
    assert reply.advice.plan.costs.power_cost_year == 0


@pytest.mark.parametrize(
    "question",
    [
        "能不能放在实验室",
        "噪音大不大 能放办公室吗",
        "can it go in our lab?",
        "买了之后放哪里",
        "where do we put the servers?",
    ],
)
def test_whether_it_can_stand_in_the_room_is_its_heat_circuits_and_sound(book, question):
    summary = plan_context(advise(LAB, book=book))
    reply = follow_up(LAB, summary, question, book=book)
    kw = summary["power_kw_per_node"] if summary.get("power_kw_per_node") else None
    assert "BTU" in reply.text and ("dBA" in reply.text)
    if kw:
        assert f"{kw:.3g}" in reply.text.replace(",", "")


def test_a_purchase_is_priced_at_the_newest_years_price(book):
    # 8 x RTX 4090: a 2025 article's ¥120,000 beside a 2026 listing at ¥260,000
    price = book.best("buy_server", "RTX4090-24GB", "china", "CNY")
    assert (price.as_of[:4], price.price) == ("2026", 260000.0)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # 推理 is reasoning here, not serving: the RL refusal, not serving's sizing
        ("qwen2.5-7b grpo 数学推理 5000条 8卡4090", "unsupported_method"),
        # "2万对" is the data (pairs), not a second budget beside 预算200万 (with 买)
        ("72b lora dpo 预算200万 2万对 买", None),
        # "给12个学生用": who uses the servers, read past (had been refused as "服务器12学生")
        ("国自然经费200万 两年 想买服务器给12个学生用 主要做7b-72b的lora和dpo 买什么卡好", None),
    ],
)
def test_a_labs_requests_are_read(text, kind):
    from advisor.request.parser import RequestError

    try:
        r = parse(text)
    except RequestError as err:
        assert err.kind == kind
    else:
        assert kind is None
        assert r.budget is None or r.budget.amount == 2_000_000


@pytest.mark.parametrize(
    "text",
    ["一台8卡4090服务器 报价28万", "8卡4090 28万 买", "8卡4090 整机 售价28万", "8卡4090 28万元 购买"],
)
def test_a_servers_price_without_a_rental_period_is_a_purchase_quote(book, text):
    from advisor.market.purchase_quotes import purchase_quote

    judged = purchase_quote(text, None, book)
    assert (judged.gpu, judged.server_gpus, judged.price_each, judged.currency) == ("RTX4090-24GB", 8, 280000, "CNY")
    assert judged.verdict == "near"  # against the 2026 listing at ¥260,000


def test_a_rental_with_a_quoted_price_stays_a_rental(book):
    from advisor.market.purchase_quotes import purchase_quote

    assert purchase_quote("8卡H800 租一个月 报价12万", None, book) is None


@pytest.mark.parametrize(
    ("question", "gpu"), [("二手3090行吗", "RTX3090-24GB"), ("what about used A100s?", "A100-SXM4-80GB")]
)
def test_a_used_gpu_asked_is_the_plan_on_it_with_the_used_parts_checks_first(book, question, gpu):
    request = "qwen2.5-7b lora 5万条 两周 租"
    reply = follow_up(request, plan_context(advise(request, book=book)), question, book=book)
    assert reply.kind == "whatif" and reply.advice.plan.gpu == gpu
    assert reply.lead and gpu in reply.lead and reply.text.startswith(reply.lead)


@pytest.mark.parametrize("text", ["200万经费买什么卡最划算", "what gpus should we buy with $500k?"])
def test_which_gpus_a_sum_should_buy_is_what_it_buys(book, text):
    from advisor.planning.followup import budget_buys

    reply = budget_buys(text, "zh" if "万" in text else "en", book)
    assert reply is not None and reply.kind == "budget_buys" and "RTX4090-24GB" in reply.text


@pytest.mark.parametrize(
    ("text", "amount", "cur"),
    [
        ("7b lora 5万条 3天 买 电费0.6元/度", 0.6, "CNY"),
        ("7b lora 5万条 3天 买 6毛一度电", 0.6, "CNY"),
        ("7b lora 5万条 3天 买 电价 ¥0.7/kWh", 0.7, "CNY"),
        ("7b lora 50k samples 3d buy usd electricity $0.12/kWh", 0.12, "USD"),
        ("7b lora 50k samples 3d buy usd power at 8 cents per kWh", 0.08, "USD"),
    ],
)
def test_the_teams_electricity_price_is_read(text, amount, cur):
    # "电费0.6元/度" had refused the request at "/度"
    r = parse(text)
    assert (r.power_price.amount, r.power_price.currency) == (pytest.approx(amount), cur)
    assert r.budget is None  # no kWh price is a budget
    assert parse(canonical(r)).power_price == r.power_price


def test_owning_is_powered_at_the_teams_price(book):
    low = advise("7b lora 5万条 3天 买 电费0.5元/度", book=book).plan.costs
    high = advise("7b lora 5万条 3天 买 电费1.0元/度", book=book).plan.costs
    assert high.power_cost_year == pytest.approx(2 * low.power_cost_year)
    assert (low.electricity_per_kwh, high.electricity_per_kwh) == (0.5, 1.0)
    assert any(s["provider"] == "your figure" for s in low.price_sources)


@pytest.mark.parametrize(
    ("text", "room", "power"),
    [
        ("qwen2.5-7b lora 3万条 买4张4090 服务器放办公室 电费学校交", True, True),
        ("qwen2.5-14b lora 5万条 买 8卡5090 放组里机房 学校承担电费", True, True),
        ("qwen2.5-14b lora 5万条 买 8卡5090 放实验室 电费由学校支付", True, True),
    ],
)
def test_who_pays_the_power_and_where_the_servers_stand_said_otherwise(text, room, power):
    # each had been read past ("方案也不取决于它们") while the bills were counted (re-run of the lab probe)
    r = parse(text)
    assert (r.own_room, r.power_paid) == (room, power)


@pytest.mark.parametrize(
    "text",
    ["买8张二手3090 跑qwen2.5-14b lora 5万条 放实验室", "qwen2.5-14b lora 50k samples on 8 second-hand 3090s"],
)
def test_used_cards_in_a_request_are_planned_and_said(text):
    r = parse(text)  # "二手" had refused the request
    assert r.used_gpus and r.gpu == "RTX3090-24GB" and "used_gpus" in {n.code for n in r.assumptions}
    assert parse(canonical(r)).used_gpus


@pytest.mark.parametrize(
    ("text", "amount"),
    [("qwen2.5-7b dpo 预算2万 3万组 租", 30000), ("qwen2.5-7b dpo 3万组偏好数据 两天", 30000)],
)
def test_preference_pairs_counted_in_groups_are_the_data(text, amount):
    assert parse(text).data.amount == amount  # "3万组" had been refused


def test_a_reasoning_model_named_is_no_serving_request():
    r = parse("deepseek-r1-distill-qwen-7b 推理模型 lora 2万条 autodl")  # had been sized for serving
    assert r.method == "lora" and r.data.amount == 20000


@pytest.mark.parametrize("text", ["8卡4090服务器 单价26.8万元 含税", "8卡4090服务器 26.8万元"])
def test_a_servers_unit_price_is_a_purchase_quote(book, text):
    from advisor.market.purchase_quotes import purchase_quote

    judged = purchase_quote(text, None, book)
    assert (judged.gpu, judged.price_each) == ("RTX4090-24GB", 268000)


def test_an_electricity_price_asked_in_the_thread_re_judges_the_purchase(book):
    summary = plan_context(advise(LAB, book=book))
    reply = follow_up(LAB, summary, "电费1元一度的话呢", book=book)
    assert reply.changed == ["power_price"] and reply.advice.plan.costs.electricity_per_kwh == 1.0
    change = reply.changes[0]
    assert change["after"] == "每度 ¥1" and change["before"].startswith("每度 ¥")
    assert any(w.code == "buy_verdict" for w in reply.warnings)


def test_what_a_sum_buys_leaves_out_prices_over_two_years_old_and_says_so(book):
    import datetime as dt

    from advisor.planning.followup import STALE_PURCHASE_YEARS, budget_buys

    reply = budget_buys("200万能买几台", "zh", book)
    oldest = str(dt.date.today().year - STALE_PURCHASE_YEARS)
    shown = [line for line in reply.text.splitlines() if "台，每台约" in line]
    assert shown and all(re.search(r"(\d{4})(?:-\d\d)*(?:；[^)]*)?\)$", s)[1] >= oldest for s in shown)
    assert "V100-SXM2-32GB" in reply.text.split("未列出")[1]  # its 2023 survey: said, not listed
    named = budget_buys("200万能买几台V100", "zh", book)  # a GPU named is still priced
    assert "V100-SXM2-32GB" in named.text


@pytest.mark.parametrize("question", ["do we need a datacenter or can we use our office?", "需要机房吗，放办公室行吗"])
def test_a_machine_rooms_load_is_said_so_not_counted_in_wall_circuits(book, question):
    # it had been the menu; at 28 servers the room answer had counted 163 wall circuits
    big = "70B full-finetune 1TB 14d budget"
    reply = follow_up(big, plan_context(advise(big, book=book)), question, book=book)
    assert reply.part == "room" and "BTU" in reply.text
    assert ("data centre" in reply.text or "数据中心" in reply.text) and "circuits" not in reply.text
    small = follow_up(LAB, plan_context(advise(LAB, book=book)), question, book=book)
    assert small.part == "room" and ("circuit" in small.text or "回路" in small.text)


def test_a_weekly_run_keeps_the_servers_busy_four_times_a_monthly_ones_share(book):
    weekly = advise("qwen2.5-7b full-finetune 5B tokens every week buy", book=book).plan.costs
    monthly = advise("qwen2.5-7b full-finetune 5B tokens every month buy", book=book).plan.costs
    assert weekly.decision_reason == "recurring_weekly" and monthly.decision_reason == "recurring"
    assert weekly.owned_utilisation == pytest.approx(min(1.0, monthly.owned_utilisation * 52 / 12))
