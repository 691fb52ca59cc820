"""/gpu TEXT: ack at once, plan in a planning process, post the answer to the channel so the
team can thread under it (or tell the user alone why the text cannot be used)."""

from __future__ import annotations

import json
import re
from contextlib import closing

from advisor import catalog
from advisor.market.prices import current_prices, price_book
from advisor.market.store import open_store
from advisor.request.parser import detect_lang, leading_command
from advisor.text.render import phrase, render
from bot import jobs, pool, subscriptions
from bot.forms import fill_form, form_id, open_loading
from bot.threads import reply_lang


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


def prices_command(text: str, lang: str, team: str) -> str:
    """`/gpu prices [GPU]`: the cheapest offers on record, with source and age."""
    words = text.split()
    gpu = None
    if len(words) > 1:
        found = catalog.find_gpu(" ".join(words[1:]))
        if found is None:
            return phrase(lang, "request_error", "unknown_gpu", name=" ".join(words[1:]),
                          known=", ".join(g.name for g in catalog.gpus()))
        gpu = found.name
    with closing(open_store()) as db:
        book = price_book(db, team)
    return render("prices.txt.j2", lang, groups=current_prices(book, gpu, per_gpu=3), gpu=gpu)


def on_gpu(ack, command, client, context):
    """Ack at once, then hand the work on. One listener, not Bolt's lazy listeners: Bolt answers
    Slack as soon as ack() is called while this function goes on in its thread, and a lazy
    listener would copy the request and take a second thread from the same small pool that runs
    every ack (measured in bench/ack_latency.py)."""
    text = (command.get("text") or "").strip()
    lang = detect_lang(text)
    channel, user = command["channel_id"], command["user_id"]
    team = command.get("team_id") or context.team_id or ""
    if not text:
        # The trigger expires 3 s after the command: open a small view now, fill it after.
        ack()
        lang = reply_lang(text, client, user)  # one users.info call: the loading view speaks it too
        open_loading(client, command["trigger_id"], form_id(command), lang)
        fill_form(client, form_id(command), json.dumps({"channel": channel}), lang)
        return
    command_word = leading_command(text)
    if command_word in ("quote", "digest", "prices") and lang == "en":
        lang = reply_lang(text, client, user)  # a zh-CN user typing English words still reads Chinese
    if _is_help(text):
        # help is rare and read at leisure: worth one users.info call for the user's locale
        ack(text=render("help.txt.j2", reply_lang(text, client, user)))
    elif command_word == "quote":
        ack(text=phrase(lang, "judging", file="bot"))
        pool.submit(jobs.quote, jobs.SlackAccess.of(client), team, channel, user, text, None,
                    command.get("response_url"))
    elif command_word == "digest":
        ack(text=digest_command(text, command, lang))
        words = text.split()
        if len(words) > 1 and words[1].lower() in ("now", "现在"):
            pool.submit(jobs.digest_now, jobs.SlackAccess.of(client), team, channel, reply_lang(text, client, user))
    elif command_word == "prices":
        ack(text=prices_command(text, lang, team))
    else:
        # No parse here: the planning process reads the request and, when it cannot, replaces
        # this note with the explanation (jobs.plan). The ack stays as cheap as a bare one.
        ack(text=phrase(lang, "working", text, file="bot"))
        pool.submit(jobs.plan, jobs.SlackAccess.of(client), team, channel, user, text, None,
                    command.get("response_url"))


def register(app) -> None:
    app.command("/gpu")(on_gpu)
