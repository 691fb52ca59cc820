"""Messages in a thread under one of our answers, and @mentions: answered in the thread,
once, whatever Slack retries or delivers twice (a message that mentions us arrives both as
`message` and as `app_mention`).

The bot speaks only when spoken to. A thread message that mentions the bot is left to
`app_mention` (answered always); one addressed to someone else ("<@U2> can you check this
with finance?") is left alone; any other goes to the planning process, which answers a
question, a what-if or a price and stays silent on thanks, agreement and chatter
(advisor/planning/followup.py)."""

from __future__ import annotations

import re

from advisor.request.parser import RequestError, parse
from bot import conversations, jobs, pool
from bot.dedup import first_time
from bot.threads import thread_key

_MENTION = re.compile(r"<@([A-Z0-9]+)(?:\|[^>]*)?>")


def _from_a_bot(event, context) -> bool:
    return bool(event.get("bot_id")) or event.get("user") == context.bot_user_id \
        or event.get("subtype") not in (None, "thread_broadcast")


def _strip_mentions(text: str) -> str:
    return _MENTION.sub(" ", text or "").strip()


def _mentions(text: str) -> set[str]:
    return set(_MENTION.findall(text or ""))


def _team(body, context) -> str:
    return body.get("team_id") or context.team_id or ""


def on_message(event, body, client, context):
    thread = event.get("thread_ts")
    if _from_a_bot(event, context) or not thread or thread == event.get("ts"):
        return
    mentioned = _mentions(event.get("text", ""))
    if mentioned:
        # Mentions us: app_mention answers it. Mentions only people: they talk to each other.
        return
    team, channel = _team(body, context), event["channel"]
    conv = conversations.load(thread_key(team, channel, thread))
    if conv is None:
        return  # a thread that is not under one of our answers
    if not first_time(f"message:{team}:{channel}:{event['ts']}"):
        return
    _follow(client, channel, thread, conv, event, mentioned=False)


def on_mention(event, body, client, context):
    if _from_a_bot(event, context):
        return
    team, channel = _team(body, context), event["channel"]
    if not first_time(f"message:{team}:{channel}:{event['ts']}"):
        return
    thread = event.get("thread_ts")
    conv = conversations.load(thread_key(team, channel, thread)) if thread else None
    if conv is not None:
        _follow(client, channel, thread, conv, event, mentioned=True)
        return
    # A mention outside one of our threads: a request if it reads as one, else a question.
    text = _strip_mentions(event.get("text", ""))
    where = thread or event["ts"]
    try:
        parse(text)
    except RequestError:
        pool.submit(jobs.follow, jobs.SlackAccess.of(client), team, channel, where, "", {}, text,
                    event.get("user", ""), True)
        return
    pool.submit(jobs.plan, jobs.SlackAccess.of(client), team, channel, event.get("user", ""), text, None, None, where)


def _follow(client, channel, thread, conv, event, mentioned: bool):
    pool.submit(jobs.follow, jobs.SlackAccess.of(client), conv.workspace, channel, thread, conv.request_text,
                conv.summary, _strip_mentions(event.get("text", "")), event.get("user", ""), mentioned)


def register(app) -> None:
    # Bolt acks events before calling these (auto-acknowledgement), so they may take their time.
    app.event("message")(on_message)
    app.event("app_mention")(on_mention)
