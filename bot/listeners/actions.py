"""The buttons under every answer card: how I got this (the arithmetic), servers, rent vs
buy, alternatives, checklist (each posted once in the thread), request for quote (uploaded
as a file in the thread) and re-plan (the form, filled with the stored request; its answer
goes to the same thread). App Home's "New plan" opens an empty form."""

from __future__ import annotations

import json
import logging

from advisor.text.render import phrase
from bot import conversations, dispatcher, forms
from bot.job_queue import Busy
from bot.threads import reply_lang, thread_key

log = logging.getLogger("gpu_advisor.bot")

PARTS = {
    "show_math": "math",
    "show_servers": "servers",
    "show_costs": "costs",
    "show_alternatives": "alternatives",
    "show_checklist": "checklist",
    "show_rfq": "rfq",
}


def _conversation(body):
    team = (body.get("team") or {}).get("id", "")
    channel = (body.get("channel") or {}).get("id", "")
    container = body.get("container") or {}
    ts = container.get("message_ts", "")
    conv = conversations.load(thread_key(team, channel, ts))
    thread = ts
    if conv is None and container.get("thread_ts"):
        # a card posted inside a thread (a re-plan, a mention): the thread stores its request
        thread = container["thread_ts"]
        conv = conversations.load(thread_key(team, channel, thread))
    return team, channel, thread, conv


def show_part(ack, body, action, client):
    """Recorded as a job before the ack (its key the click's trigger_id: a replay is answered once)."""
    team, channel, ts, conv = _conversation(body)
    if conv is None:
        ack()
        return
    which = PARTS[action["action_id"]]
    message_ts = (body.get("container") or {}).get("message_ts", ts)
    user = (body.get("user") or {}).get("id", "")
    try:
        # One job per part of one card, whoever clicks: a second click finds its key taken.
        job = dispatcher.enqueue(
            "part",
            {"channel": channel, "ts": ts, "request_text": conv.request_text, "which": which, "lang": conv.lang},
            key=f"part:{team}:{channel}:{message_ts}:{which}",
            team=team,
        )
    except Busy:
        ack()
        client.chat_postEphemeral(channel=channel, user=user, text=phrase(conv.lang, "try_again", file="bot"))
        return
    ack()
    if job is None:  # already in the thread: say so to the one who clicked, post nothing twice
        try:
            client.chat_postEphemeral(
                channel=channel,
                user=user,
                thread_ts=ts,
                text=phrase(conv.lang, "already_posted", which, file="slack/card"),
            )
        except Exception as err:
            log.warning("could not tell %s in %s: %s", user, channel, type(err).__name__)


def replan(ack, body, client):
    ack()
    team, channel, ts, conv = _conversation(body)
    initial = forms.initial_values(conv.request_text) if conv else {}
    lang = conv.lang if conv else "en"
    forms.open_form(client, body["trigger_id"], json.dumps({"channel": channel, "thread_ts": ts}), initial, lang)


def new_plan(ack, body, client):
    """App Home's button: an empty form; the answer comes to the user's DM with the bot."""
    ack()
    user = (body.get("user") or {}).get("id", "")
    team = (body.get("team") or {}).get("id", "")
    forms.open_form(client, body["trigger_id"], json.dumps({}), {}, reply_lang("", client, user, team))


def register(app) -> None:
    for action_id in PARTS:
        app.action(action_id)(show_part)
    app.action("replan")(replan)
    app.action("new_plan")(new_plan)
