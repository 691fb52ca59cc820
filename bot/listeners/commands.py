"""/gpu TEXT: ack at once (with the error when the text cannot be used), plan in the
process pool, post the answer to the channel so the team can thread under it."""

from __future__ import annotations

import json
import re

from advisor import catalog, subscriptions
from advisor.prices import current_prices

from advisor.parser import RequestError, detect_lang, leading_command, parse
from advisor.render import phrase, render
from bot.listeners.common import reply_lang
from bot.listeners.modal import fill_form, form_id, open_loading
from bot import jobs, worker
from bot.plans import post_plan



def _is_help(text: str) -> bool:
    return leading_command(text) == "help" or text.lower() in ("lang en help", "lang zh help")


def digest_command(text: str, command: dict, lang: str) -> str:
    """`/gpu digest subscribe|unsubscribe|time HH:MM|now` in a channel."""
    words = text.split()
    action = words[1].lower() if len(words) > 1 else ""
    team, channel = command.get("team_id", ""), command["channel_id"]
    if action in ("subscribe", "订阅"):
        subscriptions.subscribe(subscriptions.Subscription(workspace=team, channel=channel, lang=lang,
                                                           created_by=command.get("user_id", "")))
        return phrase(lang, "digest_subscribed", file="bot")
    if action in ("unsubscribe", "取消订阅"):
        done = subscriptions.unsubscribe(team, channel)
        return phrase(lang, "digest_unsubscribed" if done else "digest_not_subscribed", file="bot")
    if action in ("time", "时间"):
        value = words[2] if len(words) > 2 else ""
        if not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", value):
            return phrase(lang, "digest_bad_time", value, file="bot")
        done = subscriptions.set_time(team, channel, value)
        return phrase(lang, "digest_time_set" if done else "digest_not_subscribed", value, file="bot")
    if action in ("now", "现在"):
        return phrase(lang, "digest_now", file="bot")
    return phrase(lang, "digest_usage", file="bot")


def prices_command(text: str, lang: str) -> str:
    """`/gpu prices [GPU]`: the cheapest offers on record, with source and age."""
    words = text.split()
    gpu = None
    if len(words) > 1:
        found = catalog.find_gpu(" ".join(words[1:]))
        if found is None:
            return phrase(lang, "request_error", "unknown_gpu", name=" ".join(words[1:]),
                          known=", ".join(g.name for g in catalog.gpus()))
        gpu = found.name
    return render(f"prices.{lang}.txt.j2", groups=current_prices(gpu, per_gpu=3), gpu=gpu)


def ack_gpu(ack, command, client):
    text = (command.get("text") or "").strip()
    lang = detect_lang(text)
    if not text:
        # The trigger expires 3 s after the command: open a small view now, fill it after.
        ack()
        open_loading(client, command["trigger_id"], form_id(command), lang)
        return
    if _is_help(text):
        # help is rare and read at leisure: worth one users.info call for the user's locale
        ack(text=render(f"help.{reply_lang(text, client, command.get('user_id'))}.txt.j2"))
        return
    if leading_command(text) == "quote":
        ack(text=phrase(lang, "judging", file="bot"))
        return
    if leading_command(text) == "digest":
        ack(text=digest_command(text, command, lang))
        return
    if leading_command(text) == "prices":
        ack(text=prices_command(text, lang))
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
    if _is_help(text):
        return
    if leading_command(text) == "quote":
        worker.submit(jobs.quote, jobs.SlackAccess.of(client), channel, user, text, None, command.get("response_url"))
        return
    if leading_command(text) == "prices":
        return
    if leading_command(text) == "digest":
        words = text.split()
        if len(words) > 1 and words[1].lower() in ("now", "现在"):
            worker.submit(jobs.digest_now, jobs.SlackAccess.of(client), team, channel, reply_lang(text, client, user))
        return
    post_plan(client, team, channel, user, text, None, command.get("response_url"))


def register(app) -> None:
    app.command("/gpu")(ack=ack_gpu, lazy=[plan_gpu])

