"""The buttons under every answer: rent vs buy, alternatives, checklist (posted in the
thread), request for quote (uploaded as a file in the thread) and re-plan (the form, filled
with the stored request)."""

from __future__ import annotations

import json
import logging

from advisor import conversations
from bot import delivery, worker
from bot.listeners.common import thread_key
from bot.listeners.modal import open_form

log = logging.getLogger("gpu_advisor.bot")
PARTS = {"show_costs": "costs", "show_alternatives": "alternatives", "show_checklist": "checklist"}


def _ack(ack):
    ack()


def _conversation(body):
    team = (body.get("team") or {}).get("id", "")
    channel = (body.get("channel") or {}).get("id", "")
    ts = (body.get("container") or {}).get("message_ts", "")
    return team, channel, ts, conversations.load(thread_key(team, channel, ts))


def show_part(body, action, client):
    team, channel, ts, conv = _conversation(body)
    if conv is None:
        return
    payload = worker.run(worker.part, conv.request_text, PARTS[action["action_id"]], conv.lang)
    delivery.post(client, channel, payload["message"], thread_ts=ts)


def show_rfq(body, client):
    team, channel, ts, conv = _conversation(body)
    if conv is None:
        return
    payload = worker.run(worker.part, conv.request_text, "rfq", conv.lang)
    try:
        # files_upload_v2: files.getUploadURLExternal, the upload, files.completeUploadExternal
        client.files_upload_v2(channel=channel, thread_ts=ts, content=payload["text"],
                               filename="request-for-quote.txt", title="Request for quote")
    except Exception as err:
        log.warning("RFQ upload to %s failed: %s", channel, type(err).__name__)
        delivery.post(client, channel, {"text": payload["text"][:3000], "blocks": [], "thread": []}, thread_ts=ts)


def replan(ack, body, client):
    ack()
    team, channel, ts, conv = _conversation(body)
    initial = worker.form_values(conv.request_text) if conv else {}
    lang = conv.lang if conv else "en"
    open_form(client, body["trigger_id"], json.dumps({"channel": channel}), initial, lang)


def register(app) -> None:
    for action_id in PARTS:
        app.action(action_id)(ack=_ack, lazy=[show_part])
    app.action("show_rfq")(ack=_ack, lazy=[show_rfq])
    app.action("replan")(replan)
