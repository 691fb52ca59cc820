"""Buttons, the form, help and App Home, on the real app over HTTP with the fake Web API."""

import html
import json
import re
import time

import pytest

from bot import forms

pytestmark = pytest.mark.usefixtures("settled_fake")


def _text(call):
    """The text as Slack shows it (the bot escapes & < > in what it posts)."""
    return html.unescape(call["args"].get("text", ""))


@pytest.mark.parametrize(
    "action,expect",
    [
        ("show_costs", "Rent by the"),
        ("show_alternatives", "Other options"),
        ("show_checklist", "pilot first: about"),  # the plan's own checks, with its pilot's hours
        ("show_math", "GFLOP"),
        ("show_servers", "vCPUs"),
    ],
)
def test_buttons_post_their_part_in_the_thread(bot, fake_slack, answered, action, expect):
    send, _ = bot
    status, _ = send.button(action, answered)
    assert status == 200
    post = fake_slack.wait_for("chat.postMessage")[0]
    assert post["args"]["thread_ts"] == answered and expect in _text(post)


def test_the_checklist_button_lists_the_plans_warnings_too(bot, fake_slack, answered):
    # what the text answer prints under "Warnings" reaches Slack before signing as well
    from advisor.market.prices import price_book
    from advisor.market.store import open_store
    from advisor.planning.advice import advise
    from advisor.text.render import word

    send, _ = bot
    send.button("show_checklist", answered)
    post = fake_slack.wait_for("chat.postMessage")[0]
    blocks = post["args"]["blocks"]
    blocks = json.loads(blocks) if isinstance(blocks, str) else blocks
    warnings_block = blocks[-1]["text"]["text"]
    assert warnings_block.startswith("*Warnings*")
    db = open_store()
    try:
        expected = advise("70B full-finetune 1TB 14d budget", book=price_book(db, "T1")).warnings
    finally:
        db.close()
    shown = html.unescape(warnings_block)
    assert expected and all(word("en", w) in shown for w in expected)


def test_rfq_button_uploads_a_file_in_the_thread(bot, fake_slack, answered):
    send, _ = bot
    send.button("show_rfq", answered)
    done = fake_slack.wait_for("files.completeUploadExternal")[0]
    assert done["args"]["thread_ts"] == answered and done["args"]["channel_id"] == "C1"
    assert fake_slack.calls_of("files.getUploadURLExternal") and fake_slack.uploads


def test_replan_button_opens_the_form_filled_with_the_request(bot, fake_slack, answered):
    send, _ = bot
    send.button("replan", answered)
    view = fake_slack.wait_for("views.open")[0]["args"]["view"]
    view = json.loads(view) if isinstance(view, str) else view
    blocks = {b["block_id"]: b for b in view["blocks"]}
    assert blocks["model"]["element"]["initial_value"] == "70B"
    assert blocks["deadline"]["element"]["initial_value"] == "14d"
    assert blocks["method"]["element"]["initial_option"]["value"] == "full-finetune"


def test_gpu_alone_opens_a_form_then_fills_it(bot, fake_slack):
    send, _ = bot
    t0 = time.time()
    status, _ = send.command("")
    assert status == 200
    opened = fake_slack.wait_for("views.open")[0]
    assert opened["at"] - t0 < 3  # inside the trigger's 3 seconds
    external = (
        json.loads(opened["args"]["view"]) if isinstance(opened["args"]["view"], str) else opened["args"]["view"]
    )["external_id"]
    filled = fake_slack.wait_for("views.update")[0]
    assert filled["args"]["external_id"] == external
    view = filled["args"]["view"]
    view = json.loads(view) if isinstance(view, str) else view
    assert view["callback_id"] == "gpu_request" and len(view["blocks"]) == len(forms.FIELDS)


def test_form_submission_with_a_bad_field_gets_an_inline_error(bot, fake_slack, drain):
    send, _ = bot
    status, body = send.submit_form(
        {"model": "70B", "method": "full-finetune", "data": "1TB", "deadline": "soon", "gpu": "any", "lang": "en"}
    )
    assert status == 200
    reply = json.loads(body)
    assert reply["response_action"] == "errors" and "deadline" in reply["errors"]
    assert "soon" in reply["errors"]["deadline"]
    drain()
    assert fake_slack.calls_of("chat.postMessage") == []


def test_form_submission_posts_the_answer_like_a_command(bot, fake_slack):
    send, _ = bot
    status, body = send.submit_form(
        {"model": "7B", "method": "lora", "data": "20GB", "deadline": "3d", "gpu": "RTX4090-24GB", "lang": "zh"},
        channel="C9",
    )
    assert status == 200 and not body
    post = fake_slack.wait_for("chat.postMessage")[0]
    assert post["args"]["channel"] == "C9" and "RTX4090" in _text(post) and "满足" in _text(post)


@pytest.mark.parametrize("text,expect", [("help", "Type what you want to train"), ("帮助", "在 `/gpu` 后面写上")])
def test_help_in_both_languages(bot, text, expect):
    send, _ = bot
    status, body = send.command(text)
    assert status == 200 and expect in body and "/gpu 70B" in body


def test_help_follows_the_users_slack_locale(bot, fake_slack):
    # No Web API call before the ack (#13): the ack is in the language known so far, and the
    # help in the user's Slack locale replaces it right after; the next help is in it at once.
    send, _ = bot
    fake_slack.reset()
    fake_slack.locales["UZHHELP"] = "zh-CN"
    status, body = send.command("help", user="UZHHELP")
    assert status == 200
    told = fake_slack.wait_for_response()
    assert "在 `/gpu` 后面写上" in told[-1]["text"]
    status, body = send.command("help", user="UZHHELP")
    assert status == 200 and "在 `/gpu` 后面写上" in body


def test_help_lists_quote_prices_and_digest(bot):
    send, _ = bot
    _, body = send.command("help")
    for command in ("/gpu quote", "/gpu prices", "/gpu digest"):
        assert command in body, command


def test_app_home_lists_recent_plans_with_links(bot, fake_slack, answered):
    send, _ = bot
    send.event({"type": "app_home_opened", "user": "U1", "channel": "D1", "tab": "home"})
    published = fake_slack.wait_for("views.publish")[0]["args"]
    view = json.loads(published["view"]) if isinstance(published["view"], str) else published["view"]
    text = json.dumps(view, ensure_ascii=False)
    assert published["user_id"] == "U1" and "70B full-finetune 1TB 14d budget" in text
    assert f"p{answered.replace('.', '')}" in text  # the permalink to the thread
    assert "price digest" in text.lower()
    # a New plan button, and each plan as the card headlines it
    buttons = [e for b in view["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert [b["action_id"] for b in buttons] == ["new_plan"] and buttons[0]["text"]["text"] == "New plan"
    assert re.search(r"[\d,]+ × [\w.-]+ · \d+ days · ¥[\d,]+", text)  # "224 × H100-SXM5-80GB · 13 days · ¥5,040,364"
    assert "lang en" not in text and ' d"' not in text


def test_new_plan_button_opens_the_form(bot, fake_slack):
    send, _ = bot
    send.interaction(
        {
            "type": "block_actions",
            "team": {"id": "T1"},
            "user": {"id": "U1"},
            "api_app_id": "A1",
            "trigger_id": "trigger-home",
            "container": {"type": "view", "view_id": "V1"},
            "actions": [
                {
                    "action_id": "new_plan",
                    "block_id": "home_actions",
                    "type": "button",
                    "value": "new_plan",
                    "action_ts": f"{time.time():.6f}",
                }
            ],
        }
    )
    view = fake_slack.wait_for("views.open")[0]["args"]["view"]
    view = json.loads(view) if isinstance(view, str) else view
    assert view["callback_id"] == "gpu_request"


def test_quote_is_judged_recorded_and_posted(bot, fake_slack, bot_store):
    send, _ = bot
    status, body = send.command("quote 8xH800 ¥40000/month 12 months cheapco")
    assert status == 200 and "quote" in body.lower()
    post = fake_slack.wait_for("chat.postMessage")[0]
    assert "cheapco" in _text(post) and "too cheap to be true" in _text(post).lower()
    row = bot_store.execute(
        "select price, unit, provider from observations where source = 'quote' and provider = 'cheapco'"
    ).fetchone()
    assert row == (5000.0, "gpu-month", "cheapco")  # per GPU: 40000 / 8


def test_a_quote_under_half_of_owning_and_the_market_is_posted_as_not_recorded(bot, fake_slack, bot_store):
    send, _ = bot
    send.command("quote 8xH800 ¥1/gpu/hour absurdco")
    post = fake_slack.wait_for("chat.postMessage")[0]
    blocks = html.unescape(json.dumps(post["args"].get("blocks", []), ensure_ascii=False))
    assert "too cheap to be true" in _text(post).lower() and "Not recorded: a price under half" in blocks
    assert bot_store.execute("select count(*) from observations where provider = 'absurdco'").fetchone() == (0,)


def test_a_plan_from_app_home_keeps_its_buttons_and_its_link_in_the_dm(bot, fake_slack):
    """The form opened from App Home answers in the user's DM with the app, which Slack names
    "D…" in its answer and in every click on the card. The thread had been stored under the user
    ID the post was addressed to, so every button on that card did nothing and App Home linked
    to no conversation."""
    from bot import conversations

    send, _ = bot
    send.submit_form({"model": "7B", "method": "lora", "data": "10GB", "deadline": "2d", "lang": "en"}, channel="")
    card = fake_slack.wait_for("chat.postMessage")[0]
    assert card["args"]["channel"] == "U1"
    dm = fake_slack.dm("U1")
    ts = fake_slack.history[dm][-1]["ts"]
    deadline = time.time() + 30
    while not [c for c in conversations.recent("T1", limit=100) if c.key.endswith(ts)] and time.time() < deadline:
        time.sleep(0.05)
    fake_slack.reset()
    send.button("show_servers", ts, channel=dm)
    post = fake_slack.wait_for("chat.postMessage", timeout=20)[0]["args"]
    assert post["channel"] == dm and post["thread_ts"] == ts and "vCPUs" in _text({"args": post})
    fake_slack.reset()
    send.event({"type": "app_home_opened", "user": "U1", "channel": dm, "tab": "home"})
    published = fake_slack.wait_for("views.publish")[0]["args"]
    assert [c["args"]["channel"] for c in fake_slack.calls_of("chat.getPermalink")][0] == dm
    # the request as the form's fields give it, not the `lang en` the form adds
    view = json.loads(published["view"]) if isinstance(published["view"], str) else published["view"]
    links = [b["text"]["text"] for b in view["blocks"] if b["type"] == "section" and "|" in b["text"]["text"]]
    assert links[0].endswith("|7B lora 10GB 2d>"), links


def test_a_purchase_quote_in_slack_is_judged_and_not_recorded(bot, fake_slack, bot_store):
    send, _ = bot
    quotes = "select count(*) from observations where source = 'quote'"
    before = bot_store.execute(quotes).fetchone()
    status, _ = send.command("quote H20 96G 8卡服务器 采购 98万/台 浙江星河科技")
    assert status == 200
    post = fake_slack.wait_for("chat.postMessage")[0]
    blocks = html.unescape(json.dumps(post["args"].get("blocks", []), ensure_ascii=False))
    assert "采购报价" in blocks and "未记录" in blocks
    assert bot_store.execute(quotes).fetchone() == before


def test_a_retried_quote_under_half_of_owning_is_posted_again_as_not_recorded(fake_slack, bot_engine):
    """A retry posts the judgement again without recording: it must not claim the quote "already
    recorded" when it never was. (A job id no other test's job has: a retry first looks for the
    post its job made before.)"""
    from bot import tasks

    slack = tasks.SlackAccess(api_url=fake_slack.url, token="xoxb-test-token")
    tasks.quote(slack, tasks.Run(job=2**31 - 1, attempt=2), "C1", "U1", "8xH800 ¥1/gpu/hour absurdco", "en")
    post = fake_slack.wait_for("chat.postMessage")[0]
    blocks = html.unescape(json.dumps(post["args"].get("blocks", []), ensure_ascii=False))
    assert "Not recorded: a price under half" in blocks and "Already recorded" not in blocks
