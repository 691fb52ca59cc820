"""Why-questions in a plan's thread answered with the plan's own reason (advisor/planning/reasons.py):
a layout choice against the same GPUs without it, the host RAM rule, the network between servers,
a long rental, what runs the plan on its GPU. Each had got a generic FAQ or the plan's overview."""

import re

import pytest

from advisor.planning.advice import advise, plan_context, render_text
from advisor.planning.followup import follow_up
from advisor.request.parser import parse
from advisor.text.render import num

OWNED_H100 = "we already own 32 H100, continued pretraining llama3-70b on 300B tokens of code, 3 months, usd"
OFFLOADED = "DeepSeek-V3 全量微调 50亿token 一个半月 预算200万"
OWNED_A800 = "我们有16张A800，qwen2.5-72b LoRA微调 5万条客服对话 每条1500 token 3轮，两周内"
QLORA_AMD = "qlora fine-tune qwen3-32b on 20k support tickets, ~800 tokens each, budget $500, within 3 days"


def _thread(text, book):
    first = advise(text, book=book)
    return first, plan_context(first)


@pytest.mark.parametrize(
    "question,label", [("why pipeline 8?", "pipeline parallel 8"), ("为什么流水线并行是8", "流水线并行 8")]
)
def test_why_the_pipeline_compares_the_same_gpus_without_it(book, question, label):
    first, summary = _thread(OWNED_H100, book)
    assert first.plan.estimate.layout.pp == 8
    reply = follow_up(OWNED_H100, summary, question, book=book)
    assert (reply.kind, reply.part) == ("explain", "layout")
    # the plan's own memory, and the layout searched again without a pipeline
    assert label in reply.text and num(first.plan.estimate.memory.total) in reply.text
    assert re.search(r"pipeline parallel 1|流水线并行 1", reply.text)
    assert re.search(r"bubble|气泡", reply.text)


def test_why_a_zero_stage_the_plan_does_not_use_says_what_it_uses(book):
    first, summary = _thread(OWNED_H100, book)
    reply = follow_up(OWNED_H100, summary, "why ZeRO-3?", book=book)
    assert f"runs ZeRO-{first.plan.estimate.layout.zero_stage}, not ZeRO-3" in reply.text
    assert "With ZeRO-3 on the same 32 x H100-SXM5-80GB" in reply.text


@pytest.mark.parametrize("question", ["为什么要卸载到CPU", "why offload?"])
def test_why_offload_says_what_would_not_fit_without_it(book, question):
    first, summary = _thread(OFFLOADED, book)
    p = first.plan
    assert p.estimate.layout.offload != "none"
    reply = follow_up(OFFLOADED, summary, question, book=book)
    assert reply.part == "layout"
    usable = num(p.estimate.usable_gib)
    found = re.search(r"(?:needs|需要) ([\d,.]+) GiB", reply.text)
    assert found and float(found[1].replace(",", "")) > p.estimate.usable_gib and usable in reply.text
    assert num(p.estimate.memory.host_ram_gib) in reply.text  # what offloading keeps in host RAM


def test_a_layout_the_plan_does_not_use_is_said_so(book):
    text = "7B LoRA 1B tokens 1 day"
    first, summary = _thread(text, book)
    assert first.plan.estimate.layout.offload == "none"
    reply = follow_up(text, summary, "why offload?", book=book)
    assert "uses no offload" in reply.text and num(first.plan.estimate.memory.total) in reply.text


@pytest.mark.parametrize("question", ["why so much RAM?", "为什么内存要这么大"])
def test_why_so_much_ram_gives_the_rule_and_its_inputs(book, question):
    first, summary = _thread(OFFLOADED, book)
    infra = first.plan.infra
    reply = follow_up(OFFLOADED, summary, question, book=book)
    assert reply.part == "ram" and str(infra.ram_gib_per_node) in reply.text
    assert str(round(infra.reasons["ram"]["gpu_memory_gib"])) in reply.text
    assert str(round(infra.reasons["ram"]["offload_gib"])) in reply.text  # the offloaded states on top


@pytest.mark.parametrize(
    "question,per_gpu,one_server",
    [
        ("we only have 25G ethernet", "3.12 Gb/s per GPU", "On one server it needs no fabric at all: 8 x A800"),
        ("为什么要RoCE，我们只有25G以太网", "每卡 3.12 Gb/s", "放在一台服务器上就完全不需要机间网络：8 × A800"),
    ],
)
def test_only_slow_ethernet_gets_what_the_plan_needs_and_the_one_server_option(book, question, per_gpu, one_server):
    first, summary = _thread(OWNED_A800, book)
    assert first.plan.estimate.layout.nodes == 2
    reply = follow_up(OWNED_A800, summary, question, book=book)
    assert reply.part == "network" and per_gpu in reply.text and one_server in reply.text


@pytest.mark.parametrize(
    "question", ["is the network really necessary?", "can we skip the 400G network?", "是不是一定要这么贵的网络"]
)
def test_the_network_doubted_gets_what_the_plan_needs_between_servers(book, question):
    # had been "could not tell" or the quote-too-cheap FAQ
    first, summary = _thread(OWNED_A800, book)
    reply = follow_up(OWNED_A800, summary, question, book=book)
    assert reply.part == "network" and re.search(r"Between servers the plan needs|机间方案需要", reply.text)
    assert re.search(r"On one server it needs no fabric|放在一台服务器上就完全不需要机间网络", reply.text)


@pytest.mark.parametrize("question", ["do we really need that much RAM?", "内存是不是太大了"])
def test_the_ram_doubted_gets_the_rule_and_its_inputs(book, question):
    first, summary = _thread(OFFLOADED, book)
    reply = follow_up(OFFLOADED, summary, question, book=book)
    assert reply.part == "ram" and str(first.plan.infra.ram_gib_per_node) in reply.text


@pytest.mark.parametrize("question", ["is the storage overkill?", "存储有必要这么大吗"])
def test_the_storage_doubted_leads_with_its_line_of_the_spec(book, question):
    first, summary = _thread(OWNED_A800, book)
    reply = follow_up(OWNED_A800, summary, question, book=book)
    assert (reply.kind, reply.part) == ("explain", "servers")
    assert re.match(r"Each server\s+storage read|每台服务器\s+存储读带宽", reply.text)


def test_an_ascend_plan_names_what_runs_there_and_answers_torchtitan(book):
    text = "llama3-70b 全量微调 100亿token 一个月 用昇腾910B 预算800万"
    first, summary = _thread(text, book)
    assert first.plan.gpu.startswith("Ascend")
    assert first.framework.startswith("MindSpeed-LLM") and f"训练框架：{first.framework}" in render_text(first)
    reply = follow_up(text, summary, "昇腾上torchtitan能跑吗", book=book)
    assert reply.part == "stack" and "未证实" in reply.text and first.framework in reply.text
    assert "DeepSpeed 原生支持昇腾" in follow_up(text, summary, "昇腾上DeepSpeed能跑吗", book=book).text


def test_why_an_amd_gpu_for_qlora_gives_the_reason_and_the_bitsandbytes_caveat(book):
    # (with no budget: under one, 1 B200 at twice the rent is within its twentieth, and leads)
    text = "qlora fine-tune qwen3-32b on 20k support tickets, ~800 tokens each, within 3 days, usd"
    first, summary = _thread(text, book)
    assert first.plan.gpu.startswith("MI300X")
    assert any(w.code == "qlora_rocm" for w in first.warnings)  # the plan itself carries it
    reply = follow_up(text, summary, "why MI300X? does bitsandbytes even work on ROCm?", book=book)
    assert "cheapest GPU type" in reply.text and "officially supported from 0.50.0" in reply.text


def test_renting_for_the_whole_run_says_how_the_offer_is_sold_and_what_is_not_on_record(book):
    text = "从头预训练一个 总参30B 激活3B 的MoE，1万亿token中英文数据，预算500万，4个月内"
    first, summary = _thread(text, book)
    offer = first.plan.costs.rent_offer
    reply = follow_up(text, summary, f"{offer['provider']}能连续租90天吗？有什么风险", book=book)
    assert reply.part == "rental" and "风险" in reply.text and "记录中没有的" in reply.text
    english = follow_up(text, summary, "can we rent it for 90 days straight?", book=book)
    assert english.part == "rental" and "Not on record" in english.text and offer["as_of"] in english.text


def test_why_a_layout_the_request_fixed_says_the_team_fixed_it(book):
    # 'why pipeline 2?' on a request that said pp 2 had been told "the planner kept the faster"
    text = "qwen3-30b-a3b pretrain 500B tokens on 32xH800 tp 1 pp 2 ep 8 etp 1 megatron"
    first, summary = _thread(text, book)
    reply = follow_up(text, summary, "why pipeline 2?", book=book)
    assert "Your request fixed pipeline parallel 2" in reply.text
    assert "the planner kept the faster" not in reply.text


def test_why_this_count_leads_with_the_tie_where_a_dearer_count_was_chosen(book):
    # 4 H800 were chosen within 1% of 2 H800's rent for a run half as long: "why 4 GPUs?" had
    # called them "the cheapest plan found" above a row showing 2 GPUs for less
    text = "7b lora 20GB 3d"
    first, summary = _thread(text, book)
    assert first.tie(same_gpu=True) is not None and first.tie(same_gpu=True).code == "tie_faster"
    assert first.tie(same_gpu=False) is None  # H800 is the cheapest type: "why H800?" says so
    count = first.plan.estimate.layout.gpu_count
    reply = follow_up(text, summary, f"why {count} GPUs?", book=book)
    assert reply.part == "gpus" and "cheapest plan found" not in reply.text
    assert reply.text.startswith(f"{count} x H800-SXM-80GB is planned: it costs within")
    cheaper = [r for r in reply.rows if r["rent"] and r["rent"] < first.plan.costs.rent_total]
    assert cheaper  # the row the tie names is laid out below it
    zh = follow_up(text, summary, f"为什么是{count}张卡", book=book)
    assert "最便宜" not in zh.text.splitlines()[0] and "相差不到" in zh.text


def test_why_this_gpu_leads_with_the_reason_where_a_cheaper_type_is_listed(book):
    # H800 was planned over Ascend 910B, whose rent on record is too low to trust: "为什么用H800"
    # had called H800 "the cheapest GPU type" above the Ascend row at 0.73 times its rent
    text = "我们想用72B做全参微调，数据大概100GB，两周内，预算200万"
    first, summary = _thread(text, book)
    tie = first.tie(same_gpu=False)
    assert tie is not None and tie.params["other"] != first.plan.gpu
    reply = follow_up(text, summary, "为什么用H800", book=book)
    assert reply.part == "gpu_type" and "最便宜的 GPU 型号" not in reply.text
    assert reply.text.startswith(f"方案选用 {first.plan.gpu} 而不是 {tie.params['other']}")


@pytest.mark.parametrize("question", ["which GPU is cheapest?", "why not a cheaper GPU?", "最便宜的卡是哪个"])
def test_the_cheapest_gpu_asked_gets_the_types_weighed(book, question):
    first, summary = _thread(QLORA_AMD, book)
    reply = follow_up(QLORA_AMD, summary, question, book=book)
    assert (reply.kind, reply.part) == ("explain", "gpu_type") and len(reply.rows) >= 2


@pytest.mark.parametrize("question", ["is this price fair?", "is this a good deal?", "价格合理吗", "贵不贵"])
def test_a_price_doubted_gets_the_plans_rent_and_its_arithmetic(book, question):
    # had been "could not tell" or the quote-too-cheap FAQ
    first, summary = _thread(QLORA_AMD, book)
    reply = follow_up(QLORA_AMD, summary, question, book=book)
    assert (reply.kind, reply.part) == ("explain", "costs")


@pytest.mark.parametrize("question", ["why is the micro-batch 2?", "为什么micro batch是2"])
def test_why_a_micro_batch_compares_the_same_gpus_at_the_size_asked(book, question):
    # it had got the plan's overview
    text = "qwen2.5-32b full finetune 200k samples 5d"
    first, summary = _thread(text, book)
    mbs = first.plan.estimate.layout.micro_batch
    reply = follow_up(text, summary, question, book=book)
    assert (reply.kind, reply.part) == ("explain", "layout")
    assert "micro-batch 2" in reply.text and num(first.plan.estimate.memory.total) in reply.text
    if mbs != 2:
        assert re.search(
            rf"runs micro-batch {mbs}, not micro-batch 2|用的是micro-batch {mbs}，不是micro-batch 2", reply.text
        )
    assert re.search(r"accumulating micro-batches|梯度累积", reply.text)


def test_a_preference_plans_micro_batch_is_weighed_against_whole_pairs(book):
    text = "7b dpo 20k pairs 2d"
    first, summary = _thread(text, book)
    assert first.plan.estimate.layout.micro_batch % 2 == 0
    reply = follow_up(text, summary, "why micro-batch 2?", book=book)
    # never against one sequence: a pair is two
    assert "micro-batch 1" not in reply.text and "A preference pair is two sequences" in reply.text


@pytest.mark.parametrize(
    "text,question,lang",
    [
        ("qwen2.5-72b full-finetune 2B tokens 14d usd", "what batch size are you assuming?", "en"),
        ("llama3.1-8b pretrain 100B tokens 30d usd", "what's the global batch?", "en"),
        ("qwen3-8b lora 20k samples 1d", "全局batch是多少", "zh"),
        ("qwen3-8b dpo 30k pairs 2 days gbs 64", "why batch 128?", "en"),
    ],
)
def test_the_plans_global_batch_is_what_it_is_made_of_and_its_rule(book, text, question, lang):
    # it had been the FAQ's essay on batch sizes, with no number of the plan's
    first, summary = _thread(text, book)
    lay, req = first.plan.estimate.layout, first.request
    assert lay.global_batch == lay.micro_batch * lay.microbatches_per_step * lay.dp
    reply = follow_up(text, summary, question, lang, book=book)
    assert (reply.kind, reply.part) == ("explain", "batch")
    steps = num(round(req.tokens / (lay.global_batch * req.seq_len)))
    if lang == "en":
        made = f"{num(lay.global_batch)} sequences of {num(req.seq_len)} tokens"
        parts = f"(micro-batch {lay.micro_batch} x accumulation {lay.microbatches_per_step} x data-parallel {lay.dp})"
        assert made in reply.text and parts in reply.text and f"{steps} optimizer steps" in reply.text
    else:
        assert f"{num(lay.global_batch)} 条" in reply.text and f"共 {steps} 个优化器步" in reply.text
    if "gbs" in text:  # 64 pairs are 128 sequences, as the team fixed them
        assert lay.global_batch == 128 and "Your request fixed it" in reply.text
    elif req.method == "pretrain":
        assert "Llama 2 trained every size at 4M" in reply.text
    elif lang == "en":
        assert "The rule for fine-tuning: about 524k tokens a step" in reply.text
    else:  # 20M tokens: the default cut for about 1,000 steps, then whole micro-batches on each replica
        assert "减到 2万 token" in reply.text and "向上取整" in reply.text


def test_the_micro_batch_asked_is_still_the_layouts_reason(book):
    text = "qwen2.5-72b full-finetune 2B tokens 14d usd"
    first, summary = _thread(text, book)
    assert follow_up(text, summary, "what micro-batch are you assuming?", book=book).part == "layout"
    assert follow_up(text, summary, "what batch size should we use for fine-tuning?", book=book).kind == "question"


@pytest.mark.parametrize(
    "question,said",
    [
        ("we only have 25G ethernet", (25, True)),
        ("what if we only have 100 Gb/s per GPU?", (100, False)),
        # a what-if with a link's speed (had been the FAQ on networks, or the fabric alone changed)
        ("what if we use 100G RoCE?", (100, False)),
        ("with 200G IB instead?", (200, False)),
    ],
)
def test_the_link_a_team_has_is_planned_on_with_the_same_gpus(book, question, said):
    # it had said only that Ethernet "serves management and data", with no time: the plan's GPUs are
    # planned on the link said, and the request that plans for it from the start is given
    first, summary = _thread(OWNED_A800, book)
    reply = follow_up(OWNED_A800, summary, question, book=book)
    assert reply.part == "network"
    request = re.search(r"`/gpu ([^`]+)`", reply.text)[1]
    assert (parse(request).network_gbps, parse(request).network_per_server) == said
    pinned = advise(f"{request} on 16xA800", book=book).plan
    left = 1 - pinned.estimate.throughput.exposed_comm_share
    assert "Planned on it, the same 16 x A800-SXM4-80GB take" in reply.text
    assert f"leaving {left:.0%} of each step to compute" in reply.text
    assert pinned.days >= first.plan.days * 0.999


@pytest.mark.parametrize(
    "question,changed,lead",
    [
        ("30 days with 25G ethernet?", "deadline_days", "your network as planned -> 25Gb/s per server"),
        ("我们只有25G以太网，给30天呢", "deadline_days", "你们的网络按方案所选 -> 25Gb/s每台"),
        ("what if we had 128 GPUs but only 100G RoCE?", "gpu_count", "-> 100Gb/s per card"),
    ],
)
def test_the_link_with_another_change_is_a_what_if_of_both(book, question, changed, lead):
    # the link had taken the network's reason alone, the deadline or count dropped (or, after "but",
    # the link dropped)
    text = "70B full-finetune 1TB 14d budget"
    first, summary = _thread(text, book)
    reply = follow_up(text, summary, question, book=book)
    assert reply.kind == "whatif" and reply.changed == sorted([changed, "network_gbps"]), (reply.kind, reply.changed)
    assert lead in reply.text.splitlines()[0]
    own = reply.advice.plan.infra.network["inter_node"]["own"]
    assert own["gbps"] == (25 if "25G" in question else 100)
    assert reply.advice.plan.days > first.plan.days


def test_a_first_message_with_its_network_is_planned_on_it_and_says_so(book):
    # "只有25G以太网" had been read and said beside the network the plan needs, the plan made on NDR 400
    said = advise("13B pretrain 2T tokens 30d on 64xH800, we only have 25G ethernet", book=book)
    plain = advise("13B pretrain 2T tokens 30d on 64xH800", book=book)
    own = said.plan.infra.network["inter_node"]["own"]
    assert (own["gbps"], own["per_server"], own["gbps_per_gpu"]) == (25, True, 3.125)
    assert said.plan.days > plain.plan.days  # the slow link shows in the time
    assert "planned on your own network, 3.12 Gb/s per GPU" in render_text(said)
    text = render_text(said)
    assert "planned on the network you have between servers: 25 Gb/s for each server's link" in text
    # the pilot holds the servers to that one link, with no rails to test one by one
    assert "each server's 1 x 25 Gb/s NICs together" in text and "ib_write_bw" not in text
