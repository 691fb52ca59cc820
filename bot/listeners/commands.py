"""/gpu TEXT: ack at once (with the error when the text cannot be used), plan in the
process pool, post the answer to the channel so the team can thread under it."""

from __future__ import annotations

import logging

from advisor import conversations
from advisor.parser import RequestError, detect_lang, parse
from advisor.render import phrase
from bot import delivery, worker
from bot.listeners.common import reply_lang, thread_key

log = logging.getLogger("gpu_advisor.bot")


def ack_gpu(ack, command):
    text = (command.get("text") or "").strip()
    lang = detect_lang(text)
    try:
        parse(text, None)
    except RequestError as err:
        ack(text=err.message(lang))  # an ack with text is an ephemeral reply to the user
        return
    ack(text=phrase(lang, "working", text, file="bot"))


def plan_gpu(command, client, context):
    text = (command.get("text") or "").strip()
    channel, user = command["channel_id"], command["user_id"]
    team = command.get("team_id") or context.team_id or ""
    lang = reply_lang(text, client, user)
    try:
        payload = worker.run(worker.answer, text, lang)
    except Exception:
        log.exception("planning failed for a /gpu request")
        delivery.tell_user(client, channel, user, phrase(lang, "busy", file="bot"), command.get("response_url"))
        return
    if not payload["ok"]:
        return  # the ack already explained what was wrong
    ts = delivery.post(client, channel, payload["message"])
    if ts is None:
        delivery.tell_user(client, channel, user, phrase(lang, "post_failed", "see the log", file="bot"),
                           command.get("response_url"))
        return
    conversations.save(conversations.Conversation(
        key=thread_key(team, channel, ts), workspace=team, user=user, request_text=text,
        lang=payload["lang"], summary=payload["summary"]))


def register(app) -> None:
    app.command("/gpu")(ack=ack_gpu, lazy=[plan_gpu])
