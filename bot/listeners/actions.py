"""The buttons under every answer: rent vs buy, alternatives, checklist (posted in the
thread), request for quote (uploaded as a file in the thread) and re-plan (the form, filled
with the stored request)."""

from __future__ import annotations

import json

from advisor.text.render import phrase
from bot import conversations, forms, work
from bot.jobstore import Busy
from bot.threads import thread_key

PARTS = {"show_costs": "costs", "show_alternatives": "alternatives", "show_checklist": "checklist",
         "show_rfq": "rfq"}


def _conversation(body):
    team = (body.get("team") or {}).get("id", "")
    channel = (body.get("channel") or {}).get("id", "")
    ts = (body.get("container") or {}).get("message_ts", "")
    return team, channel, ts, conversations.load(thread_key(team, channel, ts))


def show_part(ack, body, action, client):
    """Recorded as a job before the ack (its key the click's trigger_id: a replay is answered once)."""
    team, channel, ts, conv = _conversation(body)
    if conv is None:
        ack()
        return
    trigger = body.get("trigger_id")
    try:
        work.enqueue("part", {"channel": channel, "ts": ts, "request_text": conv.request_text,
                              "which": PARTS[action["action_id"]], "lang": conv.lang},
                     key=f"action:{team}:{trigger}" if trigger else None, team=team)
    except Busy:
        ack()
        client.chat_postEphemeral(channel=channel, user=(body.get("user") or {}).get("id", ""),
                                  text=phrase(conv.lang, "try_again", file="bot"))
        return
    ack()


def replan(ack, body, client):
    ack()
    team, channel, ts, conv = _conversation(body)
    initial = forms.initial_values(conv.request_text) if conv else {}
    lang = conv.lang if conv else "en"
    forms.open_form(client, body["trigger_id"], json.dumps({"channel": channel}), initial, lang)


def register(app) -> None:
    for action_id in PARTS:
        app.action(action_id)(show_part)
    app.action("replan")(replan)
