"""Thread follow-ups as Block Kit, on the real app over HTTP with the fake Web API: the parts of
the plan a question asks for (servers and storage, vendors, risks; the request for quote as a
file, as the card's button uploads it), "why 224 GPUs?" and "where do these numbers come from?"
with their own content, a job under a day in hours and minutes on every surface, "why not H20?"
answered first and a provider's own price said in the reply, not in small print."""

import html
import json
import re
import time
from contextlib import closing

import pytest

from bot.blocks import check_limits

pytestmark = pytest.mark.usefixtures("settled_fake")

REQUEST = "70B full-finetune 1TB 14d budget"  # what the `answered` fixture posts


def _blocks(post) -> list[dict]:
    b = post["args"]["blocks"]
    return json.loads(b) if isinstance(b, str) else b


def _ask(send, fake, question: str, thread: str) -> dict:
    """The one reply to `question` in the thread, checked against Block Kit's limits."""
    send.thread_message(question, thread)
    post = fake.wait_for("chat.postMessage")[0]
    fake.reset()
    blocks = _blocks(post)
    assert post["args"]["thread_ts"] == thread
    assert check_limits({"text": post["args"]["text"], "blocks": blocks}) == []
    assert "```" not in json.dumps(blocks)
    return {"text": html.unescape(post["args"]["text"]), "blocks": blocks}


def _shown(block) -> str:
    """A block's text and fields as a reader sees them (& < > unescaped)."""
    parts = [(block.get("text") or {}).get("text", "")]
    parts += [f["text"] for f in block.get("fields", [])]
    parts += [e.get("text", "") for e in block.get("elements", []) if isinstance(e.get("text"), str)]
    return html.unescape("\n".join(x for x in parts if x))


def _advice(lang="en"):
    """The plan the thread is about, as the bot plans it (the workspace's price book)."""
    from advisor.market.prices import price_book
    from advisor.market.store import open_store
    from advisor.planning.advice import advise

    with closing(open_store()) as db:
        return advise(REQUEST, lang, book=price_book(db, "T1"))


def _summary(thread: str) -> dict:
    from bot import conversations
    from bot.threads import thread_key

    return conversations.load(thread_key("T1", "C1", thread)).summary


def test_the_parts_of_the_plan_a_question_asks_for_come_as_block_kit(bot, fake_slack, answered):
    from advisor.text.render import money, phrase, word

    send, _ = bot
    result = _advice()
    p, c = result.plan, result.plan.costs

    storage = _ask(send, fake_slack, "what storage do we need?", answered)
    fields = [f["text"] for b in storage["blocks"] for f in b.get("fields", [])]
    assert f"*RAM*\n{p.infra.ram_gib_per_node:,} GiB" in fields
    assert any(
        f.startswith(f"*Storage for data and checkpoints*\n{money(c.storage_total, c.currency)}: ") for f in fields
    )

    vendor = _ask(send, fake_slack, "which vendor should we use?", answered)
    first = vendor["blocks"][0]
    assert first["text"]["text"].startswith(f"*Offers on record for {p.gpu} in this market*")
    offers = [_shown({"fields": [f]}) for f in first["fields"]]
    assert offers and all(re.search(r"per GPU-(hour|month)", o) for o in offers)  # one offer a field
    priced = phrase("en", "provider_name", c.rent_offer["provider"])
    marked = [o for o in offers if "✅ the plan's price" in o]
    assert len(marked) == 1 and marked[0].startswith(f"*{priced}*"), offers
    assert "`/gpu quote ...`" in _shown(vendor["blocks"][-1])  # what to do with them, under the offers

    risks = _ask(send, fake_slack, "what are the risks?", answered)
    heads = [b["text"]["text"].split("\n", 1)[0] for b in risks["blocks"]]
    assert heads[0] == "*Risks in this plan*" and "*Before you sign*" in heads
    shown = "\n".join(_shown(b) for b in risks["blocks"])
    assert result.warnings and all(f"⚠️ {word('en', w)}" in shown for w in result.warnings)
    assert "nvidia-smi topo -m" in shown  # the plan's own checks follow

    # the checklist asked in words: the checks alone (they had fallen through to the servers' spec)
    checklist = _ask(send, fake_slack, "what's on the checklist?", answered)
    heads = [b["text"]["text"].split("\n", 1)[0] for b in checklist["blocks"]]
    assert heads[0] == "*Before you sign*" and "*Risks in this plan*" not in heads
    assert "nvidia-smi topo -m" in "\n".join(_shown(b) for b in checklist["blocks"])


def test_an_rfq_question_uploads_the_rfq_as_the_button_does(bot, fake_slack, answered, drain):
    from advisor.planning.advice import render_rfq

    send, _ = bot
    send.thread_message("can you write an RFQ?", answered)
    done = fake_slack.wait_for("files.completeUploadExternal")[0]["args"]
    assert done["thread_ts"] == answered and done["channel_id"] == "C1"
    assert done["initial_comment"].startswith("A request for quote to send to vendors")
    assert fake_slack.uploads[0]["body"].decode() == render_rfq(_advice())
    drain()
    assert fake_slack.calls_of("chat.postMessage") == []  # the file is the reply
    fake_slack.reset()

    # Slack refuses the upload: the RFQ is posted in the thread instead, as Block Kit
    fake_slack.fail("files.getUploadURLExternal", status=200, body={"ok": False, "error": "missing_scope"}, headers={})
    reply = _ask(send, fake_slack, "send us the RFQ please", answered)
    assert reply["blocks"][0]["text"]["text"].startswith("*Request for quote*\n")
    assert "Bill of materials, per server" in "\n".join(_shown(b) for b in reply["blocks"])


@pytest.mark.parametrize(
    "question,row,chosen",
    [
        ("why {n} GPUs?", r"• \*([\d,]+) GPUs(?: on ([\d,]+) servers?)?:\*", "← *this plan*"),
        ("为什么是{n}卡", r"• \*([\d,]+) 张卡(?:（([\d,]+) 台服务器）)?\*：", "← *本方案*"),
    ],
)
def test_why_this_many_gpus_shows_the_plan_at_the_counts_around_it(bot, fake_slack, answered, question, row, chosen):
    send, _ = bot
    s = _summary(answered)
    n = s["gpu_count"]
    reply = _ask(send, fake_slack, question.format(n=n), answered)
    text = reply["blocks"][0]["text"]["text"]
    rows = re.findall(row, text)
    counts = [int(gpus.replace(",", "")) for gpus, _ in rows]
    assert counts == [n // 2, n, n * 2], text  # the same GPU at half and twice the count, in order
    per_server = n // s["nodes"]
    assert [int(servers or 1) for _, servers in rows] == [-(-c // per_server) for c in counts], text
    mine = next(line for line in text.splitlines() if line.startswith(f"• *{n:,} "))
    assert f"¥{s['rent_total']:,}" in mine and mine.endswith(chosen)
    assert sum(chosen in line for line in text.splitlines()) == 1
    assert "GFLOP" not in json.dumps(reply["blocks"], ensure_ascii=False)  # not the generic arithmetic
    assert reply["text"].startswith(f"{n} × {s['gpu']}")


@pytest.mark.parametrize(
    "question,labels",
    [
        ("where do these numbers come from?", ["Time", "GPUs", "Memory per GPU", "Rent"]),
        ("这个数字哪来的", ["时长", "卡数", "每卡显存", "租金"]),
    ],
)
def test_where_the_numbers_come_from_gives_each_with_its_sum(bot, fake_slack, answered, question, labels):
    send, _ = bot
    s = _summary(answered)
    reply = _ask(send, fake_slack, question, answered)
    fields = reply["blocks"][0]["fields"]
    assert [f["text"].split("\n", 1)[0] for f in fields] == [f"*{x}*" for x in labels]
    time_, gpus, memory, rent = (f["text"].split("\n", 1)[1] for f in fields)
    assert f"{s['gpu_hours']:,}" in time_ and s["gpu"] in gpus
    assert f"{s['mem_per_gpu_gib']:g}" in memory and memory.count(" + ") == 4  # weights + ... + other
    assert rent.startswith((f"¥{s['rent_total']:,}: ", f"¥{s['rent_total']:,}："))
    assert "GFLOP" not in json.dumps(reply["blocks"], ensure_ascii=False)


def test_the_rent_of_a_lease_adds_up_to_its_total(bot, fake_slack, answered):
    """The plan is a month's lease of 224 H800: its rate by the month times the GPUs times the
    months paid, plus storage, is the total (the hourly equivalent times the job's GPU-hours had
    been shown, less than half of it)."""
    send, _ = bot
    s = _summary(answered)
    first = _ask(send, fake_slack, "where does the rent come from?", answered)["blocks"][0]["text"]["text"]
    m = re.match(r"\*¥([\d,]+)\*: ¥([\d,]+) per GPU-month × ([\d,]+) GPUs × (\d+) months?, plus storage", first)
    assert m, first
    total, rate, gpus, months = (int(g.replace(",", "")) for g in m.groups())
    assert total == round(s["rent_total"]) and rate * gpus * months < total < rate * gpus * months * 1.05


def test_a_job_under_an_hour_reads_in_minutes_on_the_card_and_in_the_thread(bot, fake_slack):
    from bot import conversations

    send, _ = bot
    before = {c.key for c in conversations.recent("T1", limit=100)}
    send.command("7b lora 10M tokens 1d")
    card = fake_slack.wait_for("chat.postMessage")[0]
    shown = "\n".join(_shown(b) for b in _blocks(card))
    assert re.search(r"about \d+ minutes, ¥", shown), shown
    assert re.search(r"\*Time\*\n\d+ minutes of 1 day", shown), shown
    assert not re.search(r"\b0(\.\d+)? days?\b", shown)
    deadline = time.time() + 30
    while not (new := [c for c in conversations.recent("T1", limit=100) if c.key not in before]):
        assert time.time() < deadline, "the answer was not stored"
        time.sleep(0.05)
    thread = new[0].key.split(":")[2]
    fake_slack.reset()

    whatif = _ask(send, fake_slack, "with 64 GPUs?", thread)
    times = next(f["text"] for f in whatif["blocks"][0]["fields"] if f["text"].startswith("*Time*"))
    assert re.fullmatch(r"\*Time\*\n\d+ minutes → (under a minute|\d+ minutes?)", times), times
    explained = _ask(send, fake_slack, "how did you get the time?", thread)
    # the 64-GPU plan's time, as the what-if moved the thread to it
    assert re.match(r"(\d+ minutes|under a minute) because .* on 64 GPUs", explained["text"]), explained["text"]


@pytest.mark.parametrize("question,lead", [("why not H20?", "On H20-96GB "), ("为什么不用H20", "用 H20-96GB")])
def test_why_not_a_gpu_leads_with_the_comparison(bot, fake_slack, answered, question, lead):
    send, _ = bot
    s = _summary(answered)
    reply = _ask(send, fake_slack, question, answered)
    first = reply["blocks"][0]
    said = html.unescape(first["text"]["text"])
    assert said.startswith(lead) and s["gpu"] in said and f"¥{s['rent_total']:,}" in said
    assert reply["text"].startswith(lead)  # the notification carries the answer
    gpus = first["fields"][0]["text"]
    assert re.search(rf"{s['gpu_count']} × {s['gpu']} → [\d,]+ × H20-96GB", gpus), gpus
    assert all(b["type"] != "context" or lead not in _shown(b) for b in reply["blocks"])


def test_how_much_on_aws_says_the_providers_price_in_the_reply(bot, fake_slack, answered):
    send, _ = bot
    reply = _ask(send, fake_slack, "how much on AWS?", answered)
    assert [b["type"] for b in reply["blocks"][:2]] == ["section", "section"]
    said = _shown(reply["blocks"][1])
    # the plan made from AWS's own offers (it had been the global market's cheapest, AWS's price beside)
    assert "The plan is made from the offers of AWS alone; its rent from AWS" in said
    assert re.search(r"At \$[\d.]+ per GPU-hour, the plan's [\d,]+ GPU-hours cost \$[\d,]+", said)
    assert re.fullmatch(r"\*Rent\*\n¥[\d,]+ → \$[\d,]+", reply["blocks"][0]["fields"][3]["text"])


def test_an_explanation_the_layout_does_not_know_is_the_cores_text_not_other_arithmetic(bot, fake_slack, answered):
    # "why H800?" (the plan's own GPU type, part `gpu_type`): its text, not the time and memory sums
    send, _ = bot
    s = _summary(answered)
    reply = _ask(send, fake_slack, f"why {s['gpu'].split('-')[0]}?", answered)
    shown = "\n".join(_shown(b) for b in reply["blocks"])
    # its own GPU first: the cheapest type found, or why it was planned over a cheaper one
    assert re.match(rf"{re.escape(s['gpu'])} (?:is the cheapest GPU type found|is planned, not )", shown), shown
    assert "GFLOP" not in shown


@pytest.mark.parametrize(
    "question,head,rent,terms",
    [
        ("租3个月多少钱", "*假设*：租期 1 个月 → 3 个月", "*租金*", "*可签的租期*"),
        (
            "what if we rent it on a 3-month lease?",
            "*What if:* lease term 1 month → 3 months",
            "*Rent*",
            "*Terms you could sign*",
        ),
    ],
)
def test_a_lease_term_question_shows_the_plan_on_that_term(bot, fake_slack, answered, question, head, rent, terms):
    """A lease term is a what-if like the others: the term before and after, the plan's numbers as
    fields, the terms on record, the warnings in small print. It had been the core's terminal text
    (two-space indents, "  ! " before each warning), and before that an empty what-if."""
    send, _ = bot
    s = _summary(answered)
    reply = _ask(send, fake_slack, question, answered)
    first = reply["blocks"][0]
    assert first["text"]["text"] == head
    fields = {f["text"].split("\n")[0]: f["text"].split("\n")[1:] for f in first["fields"]}
    before, after = (int(x.strip("¥").replace(",", "")) for x in fields[rent][0].split(" → "))
    assert after > 2.5 * before  # three months' rent against one
    assert len(fields[terms]) >= 2 and any(line.startswith(("3 months", "3 个月")) for line in fields[terms])
    assert s["gpu"] in reply["text"]
    shown = "\n".join(_shown(b) for b in reply["blocks"])
    assert not re.search(r"^ |^!", shown, re.M), shown  # no terminal indents or warning markers
    assert reply["blocks"][-1]["type"] == "context"


def test_how_sure_the_time_is_reaches_slack_in_its_own_words(book):
    # the Slack reply had been the time's arithmetic alone: the error, the room and the pilot were lost
    from advisor.planning.advice import advise, plan_context
    from advisor.planning.followup import follow_up
    from bot import blocks

    text = "70B full-finetune 1TB 14d budget"
    reply = follow_up(text, plan_context(advise(text, book=book)), "is 13 days realistic?", book=book)
    said = json.dumps(blocks.explain(reply))
    assert "the engine's time is off by about 10%" in said and "pilot" in said


def test_what_an_offloading_plan_keeps_in_the_servers_memory_reaches_slack(book):
    # "671B on 5090s?? is that real": the memory blocks had shown the GPU's 23 GiB alone
    from advisor.planning.advice import advise, plan_context
    from advisor.planning.followup import follow_up
    from bot import blocks

    text = "deepseek-v3 lora 100k samples 7d"
    reply = follow_up(text, plan_context(advise(text, book=book)), "wait, 671B on 5090s?? is that real", book=book)
    msg = blocks.explain(reply)
    assert check_limits(msg) == []
    said = "\n".join(_shown(b) for b in msg["blocks"][:3])
    assert "in the servers' memory" in said and "PCIe" in said


@pytest.mark.parametrize(
    "message, both", [("two plans' network the same?", True), ("which one needs more power", True), ("选哪个", False)]
)
def test_a_comparison_thread_answered_on_each_or_with_its_verdict_is_plain_blocks(book, message, both):
    from advisor.planning.advice import compare, comparison_context
    from bot import answers

    text = "H800 vs H20 qwen2.5-32b full-finetune 50GB 14d"
    compared = comparison_context(compare(text, book=book))
    out = answers.follow(text, compared, message, None, book)
    assert out["message"] is not None and check_limits(out["message"]) == []
    shown = "\n".join(_shown(b) for b in out["message"]["blocks"])
    assert compared["cheaper"] in shown
    assert ("H20-96GB plan:" in shown) is both
