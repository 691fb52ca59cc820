"""Thread questions answered from the plan on the table: a lease term priced on the same plan,
"faster?" within the budget, a budget set beside the plan's rent, the RFQ, the servers' disks, a
longer sequence and buying another card (probe 55's findings 3, 4, 8, 9 and 11)."""

import pytest

from advisor.planning.advice import advise, plan_context
from advisor.planning.followup import follow_up, lease_term_asked
from advisor.text.render import money, num

MOE = "qwen3-30b-a3b 全参微调 20亿token 10天内 用H800"
BUY = "qwen2.5-72b lora 5B tokens 2 weeks usd buy"


def _thread(book, text):
    return text, plan_context(advise(text, book=book))


@pytest.mark.parametrize(
    "message,months",
    [
        ("按月租的话，3个月多少钱", 3),
        ("租3个月多少钱", 3),
        ("包月呢", 1),
        ("包年呢", 12),
        ("签半年呢", 6),
        ("租一年多少钱", 12),
        ("what if we rent 1-year lease?", 12),
        ("what if we lease for 6 months instead?", 6),
        ("a 12-month contract?", 12),
        ("monthly lease?", 1),
        # a deadline, a rate or no term at all
        ("3个月内能完成吗", None),
        ("what if 3 months?", None),
        ("月租多少钱", None),
        ("what if we had 30 days?", None),
    ],
)
def test_a_lease_term_is_read_with_its_number_first(message, months):
    assert lease_term_asked(message) == months


@pytest.mark.parametrize("message,months", [("按月租的话，3个月多少钱", 3), ("包年呢", 12)])
def test_a_lease_term_prices_the_plan_on_the_table_and_keeps_the_deadline(book, message, months):
    text, summary = _thread(book, MOE)
    reply = follow_up(text, summary, message, "zh", book=book)
    p = reply.advice.plan
    assert (p.gpu, p.estimate.layout.gpu_count) == (summary["gpu"], summary["gpu_count"])
    assert reply.advice.request.deadline_days == 10  # "3个月" had become a 90-day deadline
    assert p.costs.rent_term["months_paid"] == months
    per_month = p.costs.rent_per_gpu_month * summary["gpu_count"] * months
    assert p.rent == pytest.approx(per_month, rel=0.01)
    assert money(p.rent, "CNY") in reply.text and "10 天" in reply.text


def test_a_lease_asked_under_a_purchase_is_priced_as_a_lease_not_against_a_horizon_never_said(book):
    text, summary = _thread(book, BUY)
    for message, months in (("what if we rent 1-year lease?", 12), ("what if we lease for 6 months instead?", 6)):
        reply = follow_up(text, summary, message, "en", book=book)
        p = reply.advice.plan
        assert p.gpu == summary["gpu"] and p.costs.rent_term["months_paid"] == months
        assert "36 months" not in reply.text and money(p.rent, "USD") in reply.text


def test_faster_stays_within_the_budget_and_says_what_faster_costs_beyond_it(book):
    # a faster plan within the budget: the what-if moves to it
    text, summary = _thread(book, "14B lora 10万条 预算3000 lang zh")
    for message, lang in (("快一点呢", "zh"), ("faster?", "en")):
        reply = follow_up(text, summary, message, lang, book=book)
        p = reply.advice.plan
        assert reply.kind == "whatif" and p.within_budget and p.rent <= 3_000 and p.days < summary["days"]
    # none: the thread's plan is the fastest within it, and the faster plan beyond it is named
    for request, on in (
        ("1.5B 预训练 20B tokens 预算2万 lang zh", ""),
        ("1.5B 预训练 20B tokens 预算2万 用4090", "RTX4090"),
    ):
        text, summary = _thread(book, request)
        for message, lang in (("快一点呢", "zh"), ("faster?", "en")):
            reply = follow_up(text, summary, message, lang, book=book)
            beyond = reply.advice.plan
            if beyond.within_budget:  # the what-if's own plan is the thread's: its faster suggestion on that GPU
                same = [s.plan for s in reply.advice.result.suggestions if s.plan and s.plan.gpu == beyond.gpu]
                beyond = min((f for f in same if f.days < beyond.days), key=lambda f: f.days)
            assert reply.kind == "unchanged" and not beyond.within_budget and beyond.days < summary["days"]
            assert money(beyond.rent, "CNY") in reply.text and f"{beyond.estimate.layout.gpu_count} " in reply.text
            assert ("已经是" in reply.text) if lang == "zh" else ("is already the fastest" in reply.text)
            # on the GPU the request names, the fastest on it (8 H800 run faster within ¥20,000); it
            # had been "What if it could take up to 1.3 days, twice the time?" over the same plan
            assert (on in reply.text and beyond.gpu == summary["gpu"]) if on else "RTX" not in reply.text
            assert "twice the time" not in reply.text


def test_a_budget_far_above_the_plans_rent_says_so_beside_it(book):
    text, summary = _thread(book, "增量预训练 qwen3-8b 中文数据 50GB 一个月 预算8万")
    reply = follow_up(text, summary, "预算只有5万怎么办", "zh", book=book)
    assert "¥50,000" in reply.text and money(summary["rent_total"], "CNY") in reply.text and "够用" in reply.text


def test_the_rfq_is_asked_for_in_chinese_beside_a_chinese_particle(book):
    text, summary = _thread(book, MOE)
    reply = follow_up(text, summary, "RFQ里要写哪些东西", "zh", book=book)
    assert (reply.kind, reply.part) == ("part", "rfq")


def test_ram_and_disk_asked_together_get_both_lines(book):
    text, summary = _thread(book, BUY)
    reply = follow_up(text, summary, "how much RAM and disk per node?", "en", book=book)
    assert "RAM" in reply.text and "NVMe" in reply.text and "power" not in reply.text


@pytest.mark.parametrize("message", ["能不能用更长的序列 8k", "can we use longer sequences, 8k?"])
def test_a_longer_sequence_is_a_what_if_on_the_sequence(book, message):
    text, summary = _thread(book, "qwen2.5-7b 全参微调 10万条 用4张4090")
    reply = follow_up(text, summary, message, book=book)
    assert reply.advice is not None and reply.advice.request.seq_len == 8192


def test_buying_another_card_or_renting_on_is_the_purchase_against_the_rent(book):
    text, summary = _thread(book, "qwen2.5-7b 全参微调 10万条 用4张4090")
    reply = follow_up(text, summary, "买4张5090划算还是一直租划算", "zh", book=book)
    p = reply.advice.plan
    assert (p.gpu, p.estimate.layout.gpu_count) == ("RTX5090-32GB", 4) and reply.advice.request.rent_or_buy == "buy"
    assert money(p.costs.buy_capex, "CNY") in reply.text


QWEN32_ON_3 = "手上3张4090 想 qlora qwen2.5-32b 数据3000条"


def test_serving_is_said_as_not_planned_with_a_sizing_from_the_weights_and_cache(book):
    text, summary = _thread(book, "GLM-4.5 lora 3亿token 一周内 H800 包年")
    reply = follow_up(text, summary, "训练完还要部署推理，要多少卡", "zh", book=book)
    assert (reply.kind, reply.part) == ("explain", "inference")
    assert "不出方案" in reply.text and "估计" in reply.text
    # 355B of bf16 weights do not fit one 8 x H800 server: two
    assert "2 台服务器" in reply.text and "5-10个工作日" not in reply.text


def test_grpo_gets_the_rollout_engine_and_reference_model_not_dpo(book):
    text, summary = _thread(book, MOE)
    reply = follow_up(text, summary, "后面还要做GRPO，显存要留多少", "zh", book=book)
    assert reply.part == "rl" and "DPO" not in reply.text and "vLLM" in reply.text
    assert f"每卡 {num(summary['mem_per_gpu_gib'])} / " in reply.text  # the plan's memory as the card shows it


def test_colocation_elsewhere_says_what_the_plan_assumed_and_that_nothing_is_on_record_there(book):
    text, summary = _thread(book, "H100 vs renting: 16 GPUs, 13B continued pretraining, 500B tokens, 3 months, usd")
    reply = follow_up(text, summary, "what about colocation in Europe? power price?", "en", book=book)
    assert "already assumes" not in reply.text
    hosting = next(s for s in reply.advice.plan.costs.price_sources if s["role"] == "hosting")
    price = money(hosting["price"], hosting["currency"])
    assert price in reply.text and "Nothing on the price record is for Europe" in reply.text
    asked = follow_up(text, summary, "what colo price did you assume?", "en", book=book)
    assert "per kW-month" in asked.text and hosting["as_of"] in asked.text


def test_mfu_is_defined_with_the_plans_own_causes(book):
    text, summary = _thread(book, "8B lora 2B tokens 5 days usd")
    reply = follow_up(text, summary, "what's MFU and why is yours so high/low?", "en", book=book)
    t = reply.advice.plan.estimate.throughput
    assert reply.part == "mfu" and f"MFU is {round(t.mfu * 100)}%" in reply.text
    assert "model FLOPs utilisation" in reply.text  # the definition follows


@pytest.mark.parametrize(
    "message",
    [
        "what depreciation did you assume, and what's it worth after 3 years?",
        "should we finance the servers or lease them? what depreciation schedule?",
    ],
)
def test_depreciation_has_its_own_answer_from_the_buy_figures(book, message):
    text, summary = _thread(book, BUY)
    reply = follow_up(text, summary, message, "en", book=book)
    capex = reply.advice.plan.costs.buy_capex
    assert reply.part == "depreciation" and "押" not in reply.text
    # the resale the buy figures use: 72% of new x the vintage factor at 3 years (0.46)
    assert money(capex * 0.72 * 0.46, "USD") in reply.text


def test_a_wall_circuit_is_weighed_against_the_plans_draw_rounded(book):
    text, summary = _thread(book, QWEN32_ON_3)
    reply = follow_up(text, summary, "学校机房只有220V 功率够不够", "zh", book=book)
    assert reply.part == "circuit" and "2.2 kW" in reply.text and "3.52 kW" in reply.text
    assert "1.6875" not in reply.text
    text, summary = _thread(book, MOE)  # an 8-GPU server at 10.2 kW: no wall circuit holds it
    reply = follow_up(text, summary, "学校机房只有220V 功率够不够", "zh", book=book)
    assert "不够" in reply.text and "三相" in reply.text


def test_an_odd_count_says_what_tensor_and_pipeline_splits_need(book):
    text, summary = _thread(book, QWEN32_ON_3)
    reply = follow_up(text, summary, "3张卡可以吗，是不是要偶数", "zh", book=book)
    # qwen2.5-32b: 40 heads, 8 KV heads, 64 layers; the plan is data parallel over 3
    assert reply.part == "odd_count" and "奇偶都行" in reply.text and "40 个注意力头" in reply.text
    assert "数据 3" in reply.text


@pytest.mark.parametrize("message", ["买的话多久回本", "if we buy, how long to pay back?"])
def test_a_payback_asked_of_a_plan_that_buys_is_its_break_even(book, message):
    # had been "that is what the plan already assumes, so nothing changes"
    text, summary = _thread(book, BUY)
    reply = follow_up(text, summary, message, book=book)
    assert reply.kind != "unchanged"
    assert ("pays off" in reply.text or "回本" in reply.text) and "already assumes" not in reply.text


def test_a_break_even_over_a_stated_use_says_what_it_is_weighed_against(book):
    # "如果只用一年呢" had said "against renting at 70% use: 86 months" beside the plan's "over ten
    # years against month-by-month leases", its basis unsaid
    costs = advise(f"{BUY} use them for a year", book=book).plan.costs
    assert costs.own_use and costs.breakeven_rent and costs.breakeven_rent["over_use"]
    assert costs.breakeven_rent["basis"] == costs.own_use["rent_basis"]


@pytest.mark.parametrize(
    "message,said",
    [("能不能用一台机器搞定", "就是 1 台服务器（"), ("can we do it on 1 server?", "already has 1 server (")],
)
def test_one_server_asked_of_a_one_server_plan_says_it_is_one(book, message, said):
    # had been "方案本来就是服务器台数 8 × H800-SXM-80GB": the count of GPUs as the count of servers
    text, summary = _thread(book, "qwen2.5-72b lora 100k samples 2 weeks")
    assert summary["nodes"] == 1
    reply = follow_up(text, summary, message, book=book)
    assert said in reply.text and "服务器台数" not in reply.text


def test_a_what_if_says_the_method_and_the_city_in_the_replys_language(book):
    # "假如训练方式 full-finetune -> lora", "改为城市 hangzhou" had read in a Chinese thread
    text, summary = _thread(book, "qwen2.5-7b 全量微调 5万条 3天")
    method = follow_up(text, summary, "用lora呢", book=book).text
    city = follow_up(text, summary, "如果在杭州呢", book=book).text
    assert "全量微调 -> LoRA" in method and "full-finetune" not in method
    assert "杭州" in city and "hangzhou" not in city


def test_a_budget_a_plan_barely_uses_is_no_zero_share(book):
    # "租金 ¥8.4（占预算的 0%）"
    text, summary = _thread(book, "qwen2.5-7b lora 5万条 3天 预算10万")
    reply = follow_up(text, summary, "预算20万够吗", book=book).text
    assert "占预算的不到 0.1%" in reply and "占预算的 0%" not in reply


def test_paying_by_the_month_or_the_year_is_the_terms_comparison(book):
    # "月付还是年付划算" had been the deposit's answer (押一付三)
    text, summary = _thread(book, "70b 全量微调 1TB 30天")
    reply = follow_up(text, summary, "月付还是年付划算", book=book).text
    assert "1 个月：" in reply and "12 个月：" in reply and "押一付三" not in reply


def test_storage_asked_by_its_size_gives_the_disks_size(book):
    # "存储要多大" had answered the read bandwidth alone, without the servers' 2 TB of NVMe
    text, summary = _thread(book, "qwen2.5-7b lora 10万条 3天")
    reply = follow_up(text, summary, "存储要多大", book=book).text
    assert "NVMe" in reply and "TB" in reply


def test_the_plans_own_provider_asked_gives_its_price_and_total(book):
    # "AutoDL上多少钱" under a plan priced on AutoDL had said only that AutoDL prices it
    text, summary = _thread(book, "qwen2.5-7b lora 10万条 3天")
    provider, rate = summary["offer_provider"], summary["offer_rate"]
    reply = follow_up(text, summary, f"{provider}上多少钱", book=book).text
    assert f"按每卡时 {money(rate, 'CNY')} 计" in reply and "卡时共 ¥" in reply


# ----------------------------------------------------------------------------------------
# Serving a model named in a first message (probe S, 2026-12-05: "deepseek-v3 推理 vllm 要多少显存" had
# been refused with a 70B model's weights as the floor)


def test_a_model_named_for_serving_is_sized_from_its_weights_and_the_load_said(book):
    from advisor.planning.followup import gpu_prices

    reply = gpu_prices("serving llama3.1-70b on H100 with 32k context, 50 users", "en", book)
    # 70.55B x 2 bytes = 131 GiB; 2 x 80 layers x 8 KV heads x 128 x 2 bytes = 320 KiB a token, x 32,768
    # tokens x 50 = 500 GiB; 631 GiB over 90% of 79.6 GiB is 9 GPUs: two servers of eight
    assert reply.kind == "serving" and reply.part == "H100-SXM5-80GB"
    assert "131 GiB" in reply.text and "320 KiB" in reply.text and "at once (as you said) hold 500 GiB" in reply.text
    assert "16 GPUs on 2 servers" in reply.text and "FP8 weights (half the bytes): about 8 GPUs" in reply.text
    # one request: 8 x 3.35 TB/s (the server's tensor-parallel group) over 141 GB of weights
    assert "at most about 190 tokens a second" in reply.text


def test_serving_in_chinese_is_sized_on_the_h20_and_a_moe_on_its_active_weights(book):
    from advisor.planning.followup import gpu_prices

    reply = gpu_prices("deepseek-v3 推理 vllm 要多少显存", "zh", book)
    assert reply.kind == "serving" and reply.part == "H20-96GB" and "不出方案" in reply.text
    assert "1,250 GiB" in reply.text and "所有专家都要放在显存里" in reply.text and "68.6 KiB" in reply.text
    # no model named: the FAQ's serving topic answers instead
    assert gpu_prices("we want to deploy our model after training, what hardware?", "en", book) is None


@pytest.mark.parametrize("message", ["成本拆一下", "费用明细", "break down the cost"])
def test_a_breakdown_asked_is_the_arithmetic_of_the_part_named(book, message):
    # probe S: "成本拆一下" had been "I could not tell what to do with that"
    text, summary = _thread(book, "qwen2.5-72b lora 5亿token 一周")
    reply = follow_up(text, summary, message, book=book)
    assert (reply.kind, reply.part) == ("explain", "costs")


def test_a_count_fixed_past_its_deadline_is_shown_the_count_that_meets_it(book):
    # probe T: "how many gpus to finish in 14d" had listed 8, 16 and 32 GPUs, every one late
    text, summary = _thread(book, "7B pretrain 1T tokens on 16xH100 14d usd")
    reply = follow_up(text, summary, "how many gpus to finish in 14d", book=book)
    assert reply.part == "gpus" and not _chosen_meets(reply)
    meets = [r for r in reply.rows if r["meets"]]
    assert meets and meets[0]["count"] % 8 == 0 and meets[0]["days"] <= 14
    assert f"{meets[0]['count']} GPUs on {meets[0]['nodes']} servers" in reply.text


def _chosen_meets(reply) -> bool:
    return next(r for r in reply.rows if r.get("chosen"))["meets"]


def test_a_use_asked_under_a_purchase_leads_with_its_break_even(book):
    # probe T: "what if we only use them 50%?" had been read as MFU; the break-even at that use had
    # then been the eleventh line of the costs
    text, summary = _thread(book, "13B pretrain 3T tokens buy usd")
    reply = follow_up(text, summary, "what if we only use them 50%?", book=book)
    c = reply.advice.plan.costs
    assert c.owned_utilisation == 0.5 and c.breakeven_months
    assert reply.text.startswith("At 50% use, owning these GPUs pays back") and num(c.breakeven_months) in reply.text


def test_a_count_whose_offload_the_servers_ram_cannot_hold_says_so(book):
    # probe S: "8 张卡：放不下，每卡需要 12.7 GiB，可用 95.6 GiB" had read as a contradiction
    text, summary = _thread(book, "qwen3-235b-a22b sft 50亿token 3周 预算300万 用H20")
    reply = follow_up(text, summary, "为什么要这么多卡", "zh", book=book)
    short = [r for r in reply.rows if not r["fits"] and r["host_short"]]
    assert short and short[0]["memory"] < short[0]["usable"]
    assert "但服务器内存放不下卸载出去的部分" in reply.text and "放不下，每卡需要" not in reply.text


def test_the_active_parameters_asked_are_a_mixtures_two_sizes(book):
    # probe S: "你按多少激活参数算的" had been the bytes-per-parameter topic, never the number
    text, summary = _thread(book, "qwen3-30b-a3b sft 100M tokens 3d usd")
    reply = follow_up(text, summary, "how many active parameters did you assume?", book=book)
    assert "30.5B parameters in all, which the memory counts" in reply.text
    assert "3.3B active for each token, which the time counts" in reply.text


def test_yuan_asked_of_a_mainland_plan_said_in_dollars_is_not_called_the_global_offers(book):
    # probe S: "这只是把海外报价按汇率换算" had been said of AutoDL's ¥8.88 shown in dollars
    text, summary = _thread(book, "32B 全量微调 seq 65536 3亿token 10天 预算$50k")
    assert summary.get("currency") == "USD"
    reply = follow_up(text, summary, "换算成人民币多少", "zh", book=book)
    assert "本来就是按中国大陆的报价算的" in reply.text and "海外报价" not in reply.text


@pytest.mark.parametrize("message", ["那最少要几天", "最短要多久"])
def test_the_fewest_days_asked_is_the_fastest_not_the_counts_around(book, message):
    # probe S: "那最少要几天" had drawn the counts around the plan's own, led by the cheapest
    text, summary = _thread(book, "qwen2.5-72b 全量微调 10亿token 3天 预算5万")
    reply = follow_up(text, summary, message, "zh", book=book)
    assert reply.part != "gpus"
    assert reply.text == follow_up(text, summary, "最快多久能训完", "zh", book=book).text


@pytest.mark.parametrize("message", ["B200 国内能买到吗", "can we even buy B200 in China?"])
def test_whether_the_plans_gpu_can_be_had_in_china_is_the_export_rules(book, message):
    # probe S: "B200 国内能买到吗" had been read as a what-if and answered "unchanged"
    text, summary = _thread(book, "qwen3-235b-a22b sft 20亿token 2周 用B200")
    reply = follow_up(text, summary, message, book=book)
    assert reply.kind == "question" and reply.faq["topic"] == "export_controls_china"


def test_another_gpu_versus_the_plans_is_the_plan_on_it_and_prices_follow_the_plans_market(book):
    # probe T: "vs H100 price/perf?" under a plan in dollars had listed mainland leases in yuan first
    text, summary = _thread(book, "7B pretrain 1T tokens on MI300X 21d usd")
    versus = follow_up(text, summary, "vs H100 price/perf?", book=book)
    assert versus.advice is not None and versus.advice.plan.gpu == "H100-SXM5-80GB"
    assert versus.text == follow_up(text, summary, "why not H100?", book=book).text
    prices = follow_up(text, summary, "how much is an H100 per hour?", book=book)
    assert prices.kind == "prices" and all(o["market"] == "global" for g in prices.rows for o in g["offers"])


def test_a_use_asked_leads_the_slack_reply_too(book):
    # the break-even at the use asked had been prepended to the text only; Slack's blocks, which lay
    # the cost part out from the plan, had dropped it
    from bot import blocks

    text, summary = _thread(book, "13B pretrain 3T tokens buy usd")
    reply = follow_up(text, summary, "what if we only use them 50%?", book=book)
    message = blocks.explain(reply)
    assert message["blocks"][0]["text"]["text"].startswith("At 50% use, owning these GPUs pays back")


def test_already_the_cheapest_is_one_sentence_in_chinese_without_an_english_space(book):
    # "已是满足要求的最便宜方案： 给两倍时间" had kept the space that joins the English sentences
    text, summary = _thread(book, "我们要微调Qwen2.5-72B，10万条对话数据，两周内完成，预算50万")
    reply = follow_up(text, summary, "能再便宜点吗", "zh", book=book)
    assert reply.kind == "unchanged" and "最便宜方案：给两倍时间" in reply.text, reply.text[:120]
    english = follow_up(text, summary, "cheaper?", "en", book=book)
    assert "meets the request: with twice the time" in english.text
