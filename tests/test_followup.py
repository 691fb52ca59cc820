"""Follow-ups in a plan's thread: what-ifs, "how did you get that number?" and FAQ questions."""

import pytest

from advisor.planning.advice import advise, plan_context
from advisor.planning.followup import explained_part, follow_up

REQUEST = "70B full-finetune 1TB 14d budget"


@pytest.fixture
def summary(book):
    return plan_context(advise(REQUEST, book=book))


@pytest.mark.parametrize(
    "question,part",
    [
        ("how did you get 13 days?", "time"),
        ("why so many GPUs?", "time"),
        ("13天是怎么算的", "time"),
        ("where does the ¥683,706 come from", "costs"),
        ("租金怎么算的", "costs"),
        ("how did you get 63.5 GiB per GPU", "memory"),
        ("显存怎么算的", "memory"),
        ("why NVLink?", None),
        ("how much RAM per node?", None),
        ("what if we had 30 days?", None),
        ("how do we get more GPUs?", None),
        ("how did you come up with 256 GPUs?", "time"),
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
        assert reply.kind == "whatif" and reply.changed == changed, (question, reply.kind, reply.text[:200])
        assert reply.after["rent_total"], question  # every what-if shows the rent


@pytest.mark.parametrize("question", ["can we do it with 128 GPUs?", "with 128 GPUs?", "用128卡呢"])
def test_a_gpu_count_keeps_the_plans_gpu(summary, book, question):
    reply = follow_up(REQUEST, summary, question, book=book)
    assert reply.after["gpu"] == summary["gpu"] and reply.after["gpu_count"] == 128
    before, after = f"{summary['gpu_count']} × {summary['gpu']}", f"128 × {summary['gpu']}"
    assert reply.changes == [{"name": "gpu_count", "before": before, "after": after}]


def test_a_gpu_count_with_a_gpu_named_takes_that_gpu(summary, book):
    reply = follow_up(REQUEST, summary, "with 128 H200?", book=book)
    assert reply.after["gpu"] == "H200-SXM-141GB" and reply.after["gpu_count"] == 128


def test_faster_and_cheaper_move_the_time_the_right_way(summary, book):
    faster = follow_up(REQUEST, summary, "faster?", book=book)
    cheaper = follow_up(REQUEST, summary, "cheaper?", book=book)
    assert faster.after["days"] < summary["days"] < cheaper.after["days"]
    assert cheaper.after["rent_total"] < summary["rent_total"]


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
    # the planner chose fp32 gradients and selective recompute for NVIDIA's 405B FP8 layout
    request = "llama3.1-405b pretrain 1T tokens seq 8192 mbs 1 gbs 1536 tp 8 pp 8 cp 2 vpp 8 zero1 fp8 on 1024xH100"
    summary = plan_context(advise(request, book=book))
    reply = follow_up(request, summary, "what if grads bf16?", book=book)
    assert {"name": "grad_reduce", "before": "fp32", "after": "bf16"} in reply.changes
    reply = follow_up(request, summary, "what if recompute full?", book=book)
    assert {"name": "recompute", "before": "selective", "after": "full"} in reply.changes


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
