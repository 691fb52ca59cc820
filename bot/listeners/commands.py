"""/gpu TEXT: ack at once, plan in a planning process, post the answer to the channel so the
team can thread under it (or tell the user alone why the text cannot be used)."""

from __future__ import annotations

import json
import logging
import math
import re
import time
from contextlib import closing

from slack_sdk.webhook import WebhookClient

from advisor import catalog
from advisor.market.prices import current_prices, price_book, shown_filters
from advisor.market.store import open_store
from advisor.request.fields import help_words
from advisor.request.parser import command_text, leading_command
from advisor.text.render import phrase, render
from advisor.text.safe import clean, for_slack
from bot import acks, blocks, delivery, digests, dispatcher, heartbeats, subscriptions
from bot.clients import job_client
from bot.forms import fill_form, form_id, open_loading
from bot.job_queue import Busy
from bot.threads import reply_lang

log = logging.getLogger("gpu_advisor.bot")


def _is_help(text: str) -> bool:
    return leading_command(text) == "help" or text.lower() in ("lang en help", "lang zh help")


def digest_command(text: str, command: dict, lang: str) -> tuple[str, tuple[str, dict] | None]:
    """`/gpu digest subscribe|unsubscribe|time HH:MM|now` in a channel: the ack's words and the
    job that does the work (None when there is nothing to do). Nothing is written here: the
    ack path writes only the job (bot/dispatcher.py); the job tells the user if it cannot be done."""
    words = text.split()
    action = words[1].lower() if len(words) > 1 else ""
    team, channel, user = command.get("team_id", ""), command["channel_id"], command.get("user_id", "")
    setting = {
        "team": team,
        "channel": channel,
        "user": user,
        "lang": lang,
        "response_url": command.get("response_url"),
    }
    if action in ("subscribe", "订阅"):
        return phrase(lang, "digest_subscribed", digests.TZ.key, file="bot"), (
            "digest_setting",
            {**setting, "action": "subscribe"},
        )
    if action in ("unsubscribe", "取消订阅"):
        if not _subscribed(team, channel):
            return phrase(lang, "digest_not_subscribed", file="bot"), None
        return phrase(lang, "digest_unsubscribed", file="bot"), ("digest_setting", {**setting, "action": "unsubscribe"})
    if action in ("time", "时间"):
        value = words[2] if len(words) > 2 else ""
        if not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", value):
            return phrase(lang, "digest_bad_time", value, file="bot"), None
        return (
            phrase(lang, "digest_time_set", value, digests.TZ.key, file="bot"),
            ("digest_setting", {**setting, "action": "time", "value": value}),
        )
    if action in ("now", "现在"):
        wait = digests.now_wait(team, channel, time.time())
        if wait:
            return phrase(lang, "digest_now_wait", math.ceil(wait / 60), file="bot"), None
        return phrase(lang, "digest_now", file="bot"), (
            "digest_now",
            {
                "team": team,
                "channel": channel,
                "lang": reply_lang(text, user=user, team=team),
                "user": user,
                "response_url": command.get("response_url"),
            },
        )
    return phrase(lang, "digest_usage", file="bot"), None


def _subscribed(team: str, channel: str) -> bool:
    """A read (never waits on a writer in WAL mode); a subscribe still in the queue counts."""
    return any(s.channel == channel for s in subscriptions.of_workspace(team)) or dispatcher.pending(
        "digest_setting", team, channel
    )


# `/gpu prices GPU` lists up to this many offers of the GPU (grouped by kind and term).
PRICES_PER_GPU = 60


def prices_command(text: str, lang: str, team: str) -> dict:
    """`/gpu prices [GPU]`: the offers on record grouped by kind and term, cheapest first, with
    provider and age, as Block Kit ({"text", "blocks"}; an unknown GPU: text alone)."""
    named, kinds, markets = shown_filters(text.split()[1:])  # `prices H800 monthly`: the billing too
    gpu = None
    if named:
        found = catalog.find_gpu(named)
        if found is None:
            error = phrase(
                lang, "request_error", "unknown_gpu", name=named, known=", ".join(g.name for g in catalog.gpus())
            )
            return {"text": for_slack(error), "blocks": []}
        gpu = found.name
    with closing(open_store()) as db:
        book = price_book(db, team)
    groups = current_prices(book, gpu, per_gpu=PRICES_PER_GPU, kinds=kinds, markets=markets)
    return blocks.prices(groups, gpu, lang)


def on_gpu(ack, command, client, context):
    """Ack at once, then hand the work on. It runs in the request thread (acks.inline), so the
    response leaves when it returns: whatever it does after its ack (a Web API call) goes to the
    listener pool through acks.after. Not Bolt's lazy listeners, which copy the request and take
    a second thread from the same small pool (measured in bench/ack_latency.py).

    Before the ack: no Web API call, and no SQLite write but the job (a short busy timeout:
    past it the user is asked to send it again). The job's key is the trigger_id, so a replayed
    command is answered once."""
    text = (command.get("text") or "").strip()
    channel, user = command["channel_id"], command["user_id"]
    team = command.get("team_id") or context.team_id or ""
    response_url = command.get("response_url")
    key = f"command:{team}:{command['trigger_id']}" if command.get("trigger_id") else None
    try:
        if not text:
            if not dispatcher.record_done("form", key, team):
                ack()
                return
            ack()
            acks.after(_open_form, client, command, text, user, team)
            return
        text = command_text(text)  # "订阅日报", "subscribe": the digest's own command
        command_word = leading_command(text)
        # A zh-CN user typing English words still reads Chinese: before the ack, the locale any
        # process learned earlier (bot/locales.py; no Web API call), read with the job's insert
        # where there is one (dispatcher.enqueue_replying); from Slack after the ack.
        if _is_help(text):
            done, lang = dispatcher.enqueue_replying("help", {}, key, team, text, user, done=True)
            if done:
                ack(text=render("help.txt.j2", lang, words=help_words(lang)))
                acks.after(_help_in_locale, client, text, user, team, lang, response_url)
            else:
                ack()
        elif command_word == "quote":
            job, lang = dispatcher.enqueue_replying(
                "quote",
                {"channel": channel, "user": user, "text": text, "lang": None, "response_url": response_url},
                key,
                team,
                text,
                user,
            )
            _ack(ack, phrase(lang, "judging", file="bot") if job else None)
        elif command_word == "digest":
            lang = reply_lang(text, user=user, team=team)
            words, todo = digest_command(text, command, lang)
            if todo:
                done = dispatcher.enqueue(todo[0], todo[1], key, team)
            else:
                done = dispatcher.record_done("digest", key, team)
            _ack(ack, words if done else None)
        elif command_word == "prices":
            done, lang = dispatcher.enqueue_replying("prices", {}, key, team, text, user, done=True)
            if done:
                msg = prices_command(text, lang, team)
                ack(text=msg["text"], blocks=msg["blocks"] or None)
                acks.after(_prices_in_locale, client, text, user, lang, team, response_url)
            else:
                ack()
        else:
            # No parse here: the planning process reads the request and, when it cannot, replaces
            # this note with the explanation (jobs.plan). The ack stays as cheap as a bare one.
            job, lang = dispatcher.enqueue_replying(
                "plan",
                {
                    "team": team,
                    "channel": channel,
                    "user": user,
                    "text": text,
                    "lang": None,
                    "response_url": response_url,
                },
                key,
                team,
                text,
                user,
            )
            said = "queued" if heartbeats.planners_live() == 0 else "working"
            _ack(ack, for_slack(phrase(lang, said, clean(text), file="bot")) if job else None)
    except Busy:
        # in the language the text says, not the one remembered: that is a read of the store that
        # just did not answer (a frozen Postgres had held this ack twice as long)
        ack(text=phrase(reply_lang(text), "try_again", file="bot"))


def _open_form(client, command: dict, text: str, user: str, team: str) -> None:
    """After the ack of an empty /gpu: the trigger expires 3 s after the command, so a small
    view opens now (in the user's remembered locale) and the form fills it after (asking Slack)."""
    form = form_id(command)
    open_loading(client, command["trigger_id"], form, reply_lang(text, user=user, team=team))
    fill_form(client, form, json.dumps({"channel": command["channel_id"]}), reply_lang(text, client, user, team))


def _ack(ack, text: str | None) -> None:
    """A replay (its trigger_id was seen) gets an empty ack: answered once."""
    if text:
        ack(text=text)
    else:
        ack()


def _prices_in_locale(client, text: str, user: str, guess: str, team: str, response_url: str | None) -> None:
    """After the ack: when the user's Slack locale differs from the guess, the prices in it
    replace the ack (as for help)."""
    lang = reply_lang(text, job_client(client.base_url, client.token, 5), user, team)
    if lang != guess and response_url:
        msg = prices_command(text, lang, team)
        try:
            WebhookClient(response_url).send(
                text=msg["text"], blocks=msg["blocks"] or None, response_type="ephemeral", replace_original=True
            )
        except Exception as err:  # the ack in the guessed language stays
            log.error("could not replace the prices for %s: %s", user, type(err).__name__)


def _help_in_locale(client, text: str, user: str, team: str, guess: str, response_url: str | None) -> None:
    """After the ack: the user's Slack locale (one users.info call, no retry sleeps); when it
    differs from the guess, the help in it replaces the ack."""
    lang = reply_lang(text, job_client(client.base_url, client.token, 5), user, team)
    if lang != guess and response_url:
        delivery.tell_user(
            client, "", user, render("help.txt.j2", lang, words=help_words(lang)), response_url, replace=True
        )


def register(app) -> None:
    # in the request thread: every step after its ack goes through acks.after
    app.command("/gpu", middleware=[acks.inline])(on_gpu)
