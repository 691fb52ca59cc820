"""Threads under a card, on the real app over HTTP with the fake Web API: the bot answers
only when spoken to, and each question goes to the ability that answers it."""

import json
import re

import pytest

pytestmark = pytest.mark.usefixtures("settled_fake")


def _texts(fake):
    return [c["args"].get("text", "") for c in fake.calls_of("chat.postMessage")]


def test_a_mixed_conversation_gets_answers_only_where_asked(bot, fake_slack, answered, drain):
    send, _ = bot
    chatter = [
        "thanks!",
        "<@U3> can you check this with finance before Friday?",
        "ok, let's go with this",
        "did you see the game last night?",
        "Bob, can you book the meeting room?",
        "谢谢",
        "sounds good 👍",
        "I'll ask procurement tomorrow",
    ]
    questions = [
        "what if 30 days?",
        "is ¥95000/month for 8xH800 fair?",
        "how much on AWS?",
        "how did you get 13 days?",
        "why NVLink?",
    ]
    for text in chatter[:4] + questions[:2] + chatter[4:] + questions[2:]:
        send.thread_message(text, answered)
    send.mention("lunch anyone?", thread_ts=answered)  # spoken to: answered even off topic
    fake_slack.wait_for("chat.postMessage", len(questions) + 1)
    drain()
    posts = fake_slack.calls_of("chat.postMessage")
    assert len(posts) == len(questions) + 1  # not a word on the chatter
    assert all(p["args"]["thread_ts"] == answered for p in posts)
    texts = _texts(fake_slack)
    assert any(t.startswith("What if: deadline 14 days → 30 days") for t in texts)
    assert any(re.search(r"¥16\.3 per GPU-hour, [\d.]+× the median like offer", t) for t in texts)  # the quote judge
    assert any("currency CNY → USD" in t for t in texts)  # a re-plan in the global market
    assert any(re.match(r"\d+ days because", t) for t in texts)  # one line first
    assert any("NVLink" in t for t in texts)
    for p in posts:
        assert "```" not in json.dumps(p["args"]["blocks"])


@pytest.mark.parametrize(
    "question,expect",
    [
        ("8卡H800每月9万合理吗", "是同类报价中位数的"),
        ("in dollars?", "The same plan in US dollars, at"),  # converted, not re-planned abroad
        ("double the data?", "data 250B tokens → 500B tokens"),
        ("how did you get the memory per GPU?", "GiB per GPU: weights, gradients"),
        ("how much is an H100 per hour?", "prices on record for H100-SXM5-80GB"),  # the GPU's, not the plan's
    ],
)
def test_routing(bot, fake_slack, answered, question, expect):
    send, _ = bot
    send.thread_message(question, answered)
    reply = fake_slack.wait_for("chat.postMessage")[0]
    assert expect in reply["args"]["text"] and reply["args"]["thread_ts"] == answered


def test_what_if_says_why_the_gpu_changed(bot, fake_slack, answered):
    send, _ = bot
    send.thread_message("double the data?", answered)
    reply = fake_slack.wait_for("chat.postMessage")[0]
    blocks = json.dumps(reply["args"]["blocks"], ensure_ascii=False)
    first = re.search(r"\*GPUs\*\\n[\d,]+ × ([\w.-]+) → [\d,]+ × ([\w.-]+)", blocks)
    assert first, blocks
    if first[1] != first[2]:  # the planner chose another GPU: the reply says why
        assert f"The GPU changed from {first[1]}" in blocks


def test_replan_button_answers_in_the_same_thread(bot, fake_slack, answered):
    send, _ = bot
    send.button("replan", answered)
    view = fake_slack.wait_for("views.open")[0]["args"]["view"]
    view = json.loads(view) if isinstance(view, str) else view
    assert json.loads(view["private_metadata"])["thread_ts"] == answered


def _blocks_text(post) -> str:
    return json.dumps(post["args"]["blocks"], ensure_ascii=False)


def test_how_much_on_a800_and_with_128_gpus_are_what_ifs_on_the_plan(bot, fake_slack, answered, drain):
    """The questions of the 2026-12-01 review (x02, x03, x06): "how much would it cost on A800?"
    unmentioned and @mentioned, and "can we do it with 128 GPUs?", each answered with the plan
    on A800 / with 128 of the plan's own GPU, and the rent. Each is asked of the thread at its
    first answer (a what-if moves the thread: tests/test_thread_state.py)."""
    from bot import conversations
    from bot.threads import thread_key

    send, _ = bot
    first = conversations.load(thread_key("T1", "C1", answered))
    send.thread_message("how much would it cost on A800?", answered)
    a800 = fake_slack.wait_for("chat.postMessage", 1)[0]
    drain()
    conversations.save(first)
    fake_slack.reset()
    send.mention("how much on A800?", thread_ts=answered)
    mentioned = fake_slack.wait_for("chat.postMessage", 1)[0]
    drain()
    conversations.save(first)
    fake_slack.reset()
    send.thread_message("can we do it with 128 GPUs?", answered)
    count = fake_slack.wait_for("chat.postMessage", 1)[0]
    drain()
    for post in (a800, mentioned):
        assert post["args"]["text"].startswith("What if: GPU"), post["args"]["text"]
        assert re.search(r"→ [\d,]+ × A800-SXM4-80GB", _blocks_text(post))
        assert re.search(r"\*Rent\*\\n¥[\d,]+ → ¥[\d,]+", _blocks_text(post))
    blocks = _blocks_text(count)
    kept = re.search(r"\*GPUs\*\\n[\d,]+ × ([\w.-]+) → 128 × \1", blocks)  # the plan's GPU kept
    assert kept, blocks
    assert re.search(r"\*Rent\*\\n¥[\d,]+ → ¥[\d,]+", blocks), blocks
    assert f"128 × {kept[1]}" in count["args"]["text"]  # the fallback carries the result


def test_an_unroutable_mention_says_what_the_bot_can_answer(bot, fake_slack, answered):
    send, _ = bot
    send.mention("lunch anyone?", thread_ts=answered)
    reply = fake_slack.wait_for("chat.postMessage", 1)[0]["args"]["text"]
    assert reply.startswith("I could not tell what to do with that") and "how much on A800?" in reply


def test_a_follow_up_before_its_thread_is_stored_is_kept_and_answered(bot, fake_slack, answered, monkeypatch):
    # Reliability review 2026-12-01: a follow-up sent before its thread was stored was dropped.
    import time

    from bot import conversations
    from bot.threads import thread_key

    monkeypatch.setenv("GPU_ADVISOR_RETRY_BASE_S", "0.3")
    send, _ = bot
    stored = conversations.load(thread_key("T1", "C1", answered))
    early = "1700009999.000100"  # an answer of ours just posted, its thread not stored yet
    event = {
        "type": "message",
        "channel": "C1",
        "user": "U2",
        "text": "what if we had 30 days?",
        "ts": f"{time.time():.6f}",
        "thread_ts": early,
        "parent_user_id": "UBOT",
        "channel_type": "channel",
    }
    status, _ = send.event(event)
    assert status == 200
    time.sleep(1.0)
    assert not [c for c in fake_slack.calls_of("chat.postMessage") if c["args"].get("thread_ts") == early]
    conversations.save(stored.model_copy(update={"key": thread_key("T1", "C1", early)}))  # the thread is stored
    reply = fake_slack.wait_for("chat.postMessage", where=lambda c: c["args"].get("thread_ts") == early)[0]
    assert "What if" in reply["args"]["text"] and "30 days" in reply["args"]["text"]
    # a thread under somebody else's message is still not ours
    other = {**event, "thread_ts": "1700008888.000100", "parent_user_id": "U3", "ts": f"{time.time():.6f}"}
    send.event(other)
    time.sleep(1.0)
    assert not [c for c in fake_slack.calls_of("chat.postMessage") if c["args"].get("thread_ts") == other["thread_ts"]]
