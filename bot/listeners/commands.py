"""/gpu TEXT: ack at once (with the error when the text cannot be used), plan in the
process pool, post the answer to the channel so the team can thread under it."""

from __future__ import annotations

import json

from advisor.parser import RequestError, detect_lang, parse
from advisor.render import phrase, render
from bot.listeners.common import reply_lang
from bot.listeners.modal import fill_form, form_id, open_loading
from bot import jobs, worker
from bot.plans import post_plan



def _leading(text: str) -> str:
    """The command word a request may start with (CONTRACT section 3)."""
    first = text.strip().split(maxsplit=1)[0].lower() if text.strip() else ""
    return {"报价": "quote", "价格": "prices", "日报": "digest"}.get(first, first)


def ack_gpu(ack, command, client):
    text = (command.get("text") or "").strip()
    lang = detect_lang(text)
    if not text:
        # The trigger expires 3 s after the command: open a small view now, fill it after.
        ack()
        open_loading(client, command["trigger_id"], form_id(command), lang)
        return
    if text.lower() in ("help", "帮助", "lang en help", "lang zh help") or text.lower().startswith("help "):
        ack(text=render(f"help.{detect_lang(text)}.txt.j2"))
        return
    if _leading(text) == "quote":
        ack(text=phrase(lang, "judging", file="bot"))
        return
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
    if not text:
        fill_form(client, form_id(command), json.dumps({"channel": channel}), reply_lang(text, client, user))
        return
    if text.lower().startswith("help"):
        return
    if _leading(text) == "quote":
        worker.submit(jobs.quote, jobs.SlackAccess.of(client), channel, user, text, None, command.get("response_url"))
        return
    post_plan(client, team, channel, user, text, None, command.get("response_url"))


def register(app) -> None:
    app.command("/gpu")(ack=ack_gpu, lazy=[plan_gpu])

