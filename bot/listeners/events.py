"""Messages in a thread under one of our answers, and @mentions: answered in the thread,
once, whatever Slack retries or delivers twice (a message that mentions us arrives both as
`message` and as `app_mention`)."""

from __future__ import annotations

import re

from advisor.request.parser import RequestError, parse
from bot import conversations, jobs, pool
from bot.dedup import first_time
from bot.threads import thread_key


def _from_a_bot(event, context) -> bool:
    return bool(event.get("bot_id")) or event.get("user") == context.bot_user_id \
        or event.get("subtype") not in (None, "thread_broadcast")


def _strip_mentions(text: str) -> str:
    return re.sub(r"<@[A-Z0-9]+>", " ", text or "").strip()


def _team(body, context) -> str:
    return body.get("team_id") or context.team_id or ""


def on_message(event, body, client, context):
    thread = event.get("thread_ts")
    if _from_a_bot(event, context) or not thread or thread == event.get("ts"):
        return
    team, channel = _team(body, context), event["channel"]
    conv = conversations.load(thread_key(team, channel, thread))
    if conv is None:
        return  # a thread that is not under one of our answers
    if not first_time(f"message:{team}:{channel}:{event['ts']}"):
        return
    _follow(client, channel, thread, conv, event)


def on_mention(event, body, client, context):
    if _from_a_bot(event, context):
        return
    team, channel = _team(body, context), event["channel"]
    if not first_time(f"message:{team}:{channel}:{event['ts']}"):
        return
    thread = event.get("thread_ts")
    conv = conversations.load(thread_key(team, channel, thread)) if thread else None
    if conv is not None:
        _follow(client, channel, thread, conv, event)
        return
    # A mention outside one of our threads: a request if it reads as one, else a question.
    text = _strip_mentions(event.get("text", ""))
    where = thread or event["ts"]
    try:
        parse(text)
    except RequestError:
        pool.submit(jobs.follow, jobs.SlackAccess.of(client), team, channel, where, "", {}, text,
                    event.get("user", ""))
        return
    pool.submit(jobs.plan, jobs.SlackAccess.of(client), team, channel, event.get("user", ""), text, None, None, where)


def _follow(client, channel, thread, conv, event):
    pool.submit(jobs.follow, jobs.SlackAccess.of(client), conv.workspace, channel, thread, conv.request_text,
                conv.summary, _strip_mentions(event.get("text", "")), event.get("user", ""))


def register(app) -> None:
    # Bolt acks events before calling these (auto-acknowledgement), so they may take their time.
    app.event("message")(on_message)
    app.event("app_mention")(on_mention)
