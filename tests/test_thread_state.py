"""A thread's what-ifs build on each other: "what if 30 days?" then "on H20?" is the H20 plan
with 30 days, said ("kept from earlier in this thread"); "back to the original plan" returns to
the first request. In the core (as `ask --follow-up` answers), through the CLI, and on the real
app over HTTP with the fake Web API, where the moved thread is stored beside the first answer
(the card's buttons keep the first)."""

import json

import pytest

from advisor.market.prices import price_book
from advisor.market.store import open_store
from advisor.planning.advice import advise, plan_context
from advisor.planning.followup import follow_up
from advisor.request.parser import parse


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    db = open_store(str(tmp_path_factory.mktemp("thread_state") / "store.db"))
    yield price_book(db, "")
    db.close()


def _thread(text: str, messages: list[str], book, lang=None):
    """Each message answered as `ask --follow-up` does, the thread moved by what-ifs."""
    summary = plan_context(advise(text, lang, book=book))
    replies = []
    for message in messages:
        reply = follow_up(text, summary, message, lang, book=book)
        replies.append(reply)
        if reply.thread:
            text, summary = reply.thread["request"], reply.thread["summary"]
    return replies, text


def test_the_second_what_if_keeps_the_first(book):
    """The lab's case (thirty-sixth session): the servers in the lab, then the school paying the
    power: the purchase judged on both, as the request with both in it plans it."""
    request = "70B lora 1万条 14天 买"
    (room, power), _ = _thread(request, ["放实验室的话多久回本", "学校出电费呢"], book, "zh")
    both = advise(f"{request} 放实验室 电费学校出", "zh", book=book).plan.costs
    alone = advise(f"{request} 电费学校出", "zh", book=book).plan.costs
    assert room.thread and "own_room" in room.thread["summary"]["carried"]
    got = power.advice.plan.costs
    assert power.advice.request.own_room and power.advice.request.power_paid
    assert got.breakeven_months == pytest.approx(both.breakeven_months)
    assert both.breakeven_months != pytest.approx(alone.breakeven_months)  # the room does change it
    assert [c["name"] for c in power.kept] == ["own_room"]
    assert "沿用本串之前的改动：自有房间" in power.text


def test_each_reply_says_what_it_keeps_and_against_which_plan(book):
    (first, second, third), text = _thread("70B lora 10GB 14d", ["what if 30 days?", "on H20?", "how long?"], book)
    assert not first.kept and first.thread["request"].endswith("30d")
    assert second.kept == [{"name": "deadline_days", "before": "14 days", "after": "30 days"}]
    assert "New plan against the thread's plan so far:" in second.text
    assert "kept from earlier in this thread: deadline 14 days -> 30 days" in second.text
    assert second.advice.request.gpu == "H20-96GB" and second.advice.request.deadline_days == 30
    assert parse(text).gpu == "H20-96GB" and parse(text).deadline_days == 30
    assert third.thread is None and third.advice.plan.gpu == "H20-96GB"  # a question: on the moved plan


def test_back_to_the_original_plan(book):
    request = "70B lora 10GB 14d"
    replies, text = _thread(request, ["what if 30 days?", "on H20?", "back to the original plan", "on A800?"], book)
    back, after = replies[2], replies[3]
    assert back.lead.startswith("Back to the thread's first request")
    assert {c["name"] for c in back.changes} >= {"deadline_days"}
    assert back.advice.request.deadline_days == 14 and back.advice.request.gpu is None
    assert back.thread["request"] == request and "first_request" not in back.thread["summary"]
    assert not after.kept and "New plan against the first one:" in after.text
    assert parse(text).deadline_days == 14


def test_questions_and_why_nots_leave_the_thread_where_it_is(book):
    replies, text = _thread(
        "70B lora 10GB 14d", ["why not H20?", "how much per month?", "why NVLink?", "回到最初的方案"], book
    )
    assert all(r.thread is None for r in replies)  # nothing moved it, so there is nothing to go back to
    assert text == "70B lora 10GB 14d"


def test_a_comparisons_thread_stays_on_its_options(book):
    from advisor.planning.advice import compare, comparison_context

    text = "70B lora 10GB 14d H800 vs A800"
    summary = comparison_context(compare(text, None, book=book))
    reply = follow_up(text, summary, "what if 30 days?", None, book=book)
    assert reply.kind in ("whatif", "unchanged") and reply.thread is None


def test_ask_follow_up_json_chains_the_thread(cli):
    out = cli("ask", "70B lora 10GB 14d", "--follow-up", "what if 30 days?", "--follow-up", "on H20?", "--json")
    assert out.returncode == 0, out.stderr
    first, second = json.loads(out.stdout)["follow_ups"]
    assert first["thread_request"] == "70B lora 10GB 30d" and not first["kept"]
    assert second["kept"][0]["name"] == "deadline_days"
    assert second["plan"]["request"]["deadline_days"] == 30


def test_the_bot_answers_the_next_message_on_the_moved_plan(bot, fake_slack, answered, drain):
    """Over HTTP: "what if 30 days?" posted, the thread stored as moved (the first answer kept for
    the card's buttons), "on H20?" answered with the 30 days kept, then back to the first."""
    from bot import conversations
    from bot.threads import thread_key

    send, _ = bot
    key = thread_key("T1", "C1", answered)
    first = conversations.load(key)
    send.thread_message("what if 30 days?", answered)
    fake_slack.wait_for("chat.postMessage", 1)
    drain()
    moved = conversations.load(key)
    assert (moved.request_text, moved.summary) == (first.request_text, first.summary)
    assert parse(moved.thread_text).deadline_days == 30 and moved.current()[0] == moved.thread_text
    fake_slack.reset()
    send.thread_message("on H20?", answered)
    reply = fake_slack.wait_for("chat.postMessage", 1)[0]
    blocks = json.dumps(reply["args"]["blocks"], ensure_ascii=False)
    assert "kept from earlier in this thread: deadline 14 days → 30 days" in blocks, blocks
    drain()
    fake_slack.reset()
    send.thread_message("back to the original plan", answered)
    back = fake_slack.wait_for("chat.postMessage", 1)[0]
    assert "Back to the thread's first request" in back["args"]["text"]
    drain()
    assert conversations.load(key).current() == (first.request_text, conversations.load(key).thread_summary)
    assert parse(conversations.load(key).current()[0]).deadline_days == 14


def test_a_store_made_before_thread_state_gets_its_columns_with_its_threads(database, cli):
    """A store at revision 0008 (conversations without thread_text and thread_summary, a thread in
    it): `migrate` adds them, keeps the thread, and it can move, on both engines."""
    from advisor import db as dbmod
    from bot import conversations

    assert cli("migrate").returncode == 0
    conversations.save(
        conversations.Conversation(
            key="T1:C1:1.0",
            workspace="T1",
            user="U1",
            request_text="7b lora 1GB",
            lang="en",
            summary={"gpu": "H100-SXM5-80GB"},
        )  # fmt: skip
    )
    with dbmod.Database() as db:
        for column in ("thread_text", "thread_summary"):
            db.execute(f"ALTER TABLE conversations DROP COLUMN {column}")
        db.execute("UPDATE alembic_version SET version_num = '0008'")
    done = cli("migrate")
    assert done.returncode == 0 and "from 0008 to revision 0009" in done.stderr, done.stderr
    conv = conversations.load("T1:C1:1.0")
    assert conv.current() == ("7b lora 1GB", {"gpu": "H100-SXM5-80GB"})
    conversations.advance(conv.key, "7b lora 1GB 3d", {"gpu": "H20-96GB"})
    assert conversations.load(conv.key).current() == ("7b lora 1GB 3d", {"gpu": "H20-96GB"})


def test_cheaper_on_gpus_an_earlier_what_if_fixed_is_not_called_on_time(book):
    """ "with 128 GPUs?" (missing the 14 days), then "cheaper?": the 128 GPUs kept, and the reply
    does not call the plan the cheapest that meets the request."""
    (count, cheaper), _ = _thread("70B full-finetune 1TB 14d", ["can we do it with 128 GPUs?", "cheaper?"], book)
    assert count.advice.plan.estimate.layout.gpu_count == 128 and not count.advice.plan.meets_deadline
    # the GPUs fixed by the thread: "cheaper?" is half as many of them (docs/slack.md)
    assert cheaper.advice.request.gpu == count.advice.plan.gpu and cheaper.advice.request.gpu_count == 64
    assert cheaper.kind == "unchanged" and "no less" in cheaper.text, cheaper.text
    assert "meets the request" not in cheaper.text and "though it misses the deadline" in cheaper.text


def test_a_buyers_verdict_weighs_the_cheapest_rental_plan(book):
    """A 14-hour job bought as one RTX 4090, whose own rent is a 2-GPU instance for the host memory
    it offloads to (it had been a year's lease of a server): the verdict weighs buying against the
    job's cheapest rental plan, named."""
    request = "70B lora 1万条 14天 买"
    cost = advise(request, "zh", book=book).plan.costs
    assert cost.rent_offer["offer"] == "instance" and cost.rent_offer["billed_gpus"] == 2
    assert cost.rent_instead and cost.rent_instead["cost"] < cost.rent_total / 2
    (room,), _ = _thread(request, ["放实验室的话多久回本"], book, "zh")
    verdict = next(w for w in room.warnings if w.code == "buy_verdict")
    assert verdict.params["rent"] == cost.rent_instead["cost"]
    assert f"{cost.rent_instead['gpu_count']} x {cost.rent_instead['gpu']}，最便宜的租用方案" in room.text


def test_the_bots_own_readings_of_faster_and_cheaper_do_not_move_the_thread(book):
    """ "faster?" is planned at about half the plan's time, a deadline the team did not set: shown,
    and the next what-if is not held to it (3 epochs had been planned in the 1.4 days "faster?" read)."""
    (faster, epochs), _ = _thread("13B full-finetune 50GB 10d", ["faster?", "what if 3 epochs?"], book)
    assert faster.kind == "whatif" and faster.thread is None
    assert epochs.advice.request.deadline_days == 10 and not epochs.kept


def test_back_to_the_first_plan_before_any_what_if_says_so(book):
    (reply,), _ = _thread("7b lora 1GB 1d", ["back to the original plan"], book)
    assert reply.text.startswith("This thread is on its first plan") and reply.thread is None


def test_the_teams_room_and_power_price_in_english_words(book):
    """ "what if we put it in our own server room?" had not been understood, and "electricity is 0.6
    yuan/kWh" had been read as a move to the CNY market (a GPU "change" to the plan's own GPU)."""
    (power, room, back), _ = _thread(
        "7B full-finetune 50GB 5d buy",
        ["electricity is 0.6 yuan/kWh", "what if we put it in our own server room?", "back to the original plan"],
        book,
    )
    assert power.changed == ["power_price"] and power.advice.request.power_price.amount == 0.6
    region = power.changes[0]["before"]
    assert region.endswith("a kWh") and region != "¥0.6 a kWh"
    assert room.changed == ["own_room"] and room.thread
    # the power price kept, from the region's price the first plan had (it had read "— -> ¥0.6")
    assert room.kept == [{"name": "power_price", "before": region, "after": "¥0.6 a kWh"}]
    assert {"name": "power_price", "before": "¥0.6 a kWh", "after": region} in back.changes


def test_faster_under_a_budget_the_thread_already_breaks_is_the_faster_plan(book):
    """A budget what-if the plan is over (¥356,350 against ¥200,000), then "faster?": the faster
    plan, not "this plan is already the fastest within your budget"."""
    (budget, faster), _ = _thread("70B full-finetune 200GB 14d", ["what if our budget is ¥200k?", "faster?"], book)
    assert budget.advice.plan.rent > 200_000
    assert "fastest within your" not in faster.text
    assert faster.advice.plan.days < budget.advice.plan.days


def test_cheaper_on_gpus_the_thread_fixed_says_which(book):
    """ "on H100?" then "cheaper?": the cheapest on H100 (the thread's first plan on MI300X cost less)."""
    (_, cheaper), _ = _thread("70B lora 10GB 5d usd", ["what if on H100?", "cheaper?"], book)
    # billed by the hour, twice the time costs no less on H100
    assert cheaper.kind == "unchanged" and "no less" in cheaper.text, cheaper.text
    assert "already the cheapest on H100-SXM5-80GB that meets the request" in cheaper.text


def test_a_gpu_type_whose_larger_count_meets_the_deadline_is_not_called_hopeless(book):
    """ "用4090呢" on a 3-day 14B LoRA: 8 x RTX 4090 is late, 16 (two servers, leased) meets it; it had
    said no count of 4090 could, then "那16张呢" met the deadline."""
    (on_4090, sixteen), _ = _thread("Qwen2.5 14B LoRA 10GB 数据 3天", ["用4090呢", "那16张呢"], book, "zh")
    assert "没有希望" not in on_4090.text
    more = next(w for w in on_4090.warnings if w.code == "more_gpus")
    assert more.params["value"] == 16 and more.params["days"] <= 3
    assert sixteen.advice.plan.meets_deadline and sixteen.advice.plan.estimate.layout.gpu_count == 16
    # its offer set against the thread's plan so far (8 by the hour), not "the first plan" (4 x H800)
    assert "计价报价与本串目前的方案不同" in sixteen.text and "计价报价与第一次方案不同" in on_4090.text


def test_one_gpu_is_one_machine_not_one_server_of_one_gpus(book):
    (reply,), _ = _thread("7b qlora 1GB 1d on 1x4090", ["how many servers?"], book)
    assert reply.text.startswith("One machine with one GPU (1 x RTX4090-24GB).\n") and "of 1 GPUs" not in reply.text


def test_one_gpu_counted_in_slack_is_one_gpu(book):
    """The counts around a one-GPU plan as Slack lays them out: "*1 GPU:*" (it had been "1 GPUs")."""
    import json

    from bot import answers

    text = "7b qlora 1GB 1d on 1x4090"
    reply = answers.follow(text, plan_context(advise(text, book=book)), "how many servers?", None, book)
    shown = json.dumps(reply["message"]["blocks"], ensure_ascii=False)
    assert "*1 GPU:*" in shown and "*2 GPUs:*" in shown and "1 GPUs" not in shown


def test_why_not_another_gpu_says_an_earlier_what_if_fixed_the_plan_and_that_it_is_late(book):
    """16 H800 fixed by `what if we use 16 GPUs?` run 211 days against a 30-day deadline; `why not
    H20?` had said they were "because the request names H800" (it named no GPU) and not that they
    miss the deadline H20 meets."""
    (*_, why), _ = _thread(
        "70B full-finetune 1TB 14d budget", ["what if 30 days?", "what if we use 16 GPUs?", "why not H20?"], book
    )
    assert "16 x H800-SXM-80GB because an earlier message in this thread fixed it." in why.text, why.text
    assert "It misses the 30-day deadline (" in why.text and "On H20-96GB this job meets it:" in why.text
    assert "because the request names" not in why.text and "Ask `what if on H20-96GB?`" in why.text
    # named in the request itself, and late: said so, with the request's own words to change it
    (named,), _ = _thread("70B full-finetune 1TB 14d on 16xH800", ["why not H20?"], book)
    assert "16 x H800-SXM-80GB because the request names H800-SXM-80GB. It misses the 14-day deadline" in named.text
    assert "Say `on H20-96GB` in the request" in named.text
