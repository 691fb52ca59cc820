"""Messages in a thread under one of our answers, and @mentions: answered in the thread,
once, whatever Slack retries or delivers twice (a message that mentions us arrives both as
`message` and as `app_mention`).

The bot speaks only when spoken to. A thread message that mentions the bot is left to
`app_mention` (answered always); one addressed to someone else ("<@U2> can you check this
with finance?") is left alone; any other goes to the planning process, which answers a
question, a what-if or a price and stays silent on thanks, agreement and chatter
(advisor/planning/followup.py)."""

from __future__ import annotations

import logging
import re

from advisor.request.parser import RequestError, parse
from advisor.text.render import phrase
from bot import conversations, dispatcher
from bot.job_queue import Busy
from bot.threads import reply_lang, thread_key

log = logging.getLogger("gpu_advisor.bot")

_MENTION = re.compile(r"<@([A-Z0-9]+)(?:\|[^>]*)?>")


def _from_a_bot(event, context) -> bool:
    return (
        bool(event.get("bot_id"))
        or event.get("user") == context.bot_user_id
        or event.get("subtype") not in (None, "thread_broadcast")
    )


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
    conv = conversations.load(thread_key(team, channel, thread))  # a read: never waits on a writer
    if conv is None:
        if event.get("parent_user_id") and event.get("parent_user_id") == context.bot_user_id:
            # Under one of our answers whose thread is not stored yet (posted a moment ago): kept
            # as a job that waits for the thread (bot/tasks.py follow, pending_thread).
            _follow(client, team, channel, thread, "", {}, event, mentioned=False, pending_thread=True)
        return  # else a thread that is not under one of our answers
    _follow(client, team, channel, thread, *conv.current(), event, mentioned=False)


def on_mention(event, body, client, context):
    if _from_a_bot(event, context):
        return
    team, channel = _team(body, context), event["channel"]
    thread = event.get("thread_ts")
    conv = conversations.load(thread_key(team, channel, thread)) if thread else None
    if conv is not None:
        _follow(client, team, channel, thread, *conv.current(), event, mentioned=True)
        return
    # A mention outside one of our threads: a request if it reads as one, else a question.
    text = _strip_mentions(event.get("text", ""))
    where = thread or event["ts"]
    user = event.get("user", "")
    try:
        parse(text)
    except RequestError:
        _follow(client, team, channel, where, "", {}, event, mentioned=True)
        return
    _job(
        client,
        team,
        channel,
        user,
        text,
        event,
        "plan",
        {
            "team": team,
            "channel": channel,
            "user": user,
            "text": text,
            "lang": None,
            "response_url": None,
            "thread_ts": where,
        },
    )


def _follow(
    client, team, channel, thread, request_text: str, summary: dict, event, mentioned: bool, pending_thread=False
):
    """A message for a plan's thread (or a question with no plan: empty request), as a job."""
    text, user = _strip_mentions(event.get("text", "")), event.get("user", "")
    args = {
        "channel": channel,
        "thread": thread,
        "request_text": request_text,
        "summary": summary,
        "text": text,
        "user": user,
        "mentioned": mentioned,
        **({"pending_thread": True} if pending_thread else {}),
    }
    _job(client, team, channel, user, text, event, "follow", args)


def _job(client, team, channel, user, text, event, kind, args):
    """Record the job, once per message whatever Slack retries or delivers twice (its key is the
    message). A locked database holds this thread at most job_queue.ACK_BUSY_S; past it the user
    is asked to say it again, so follow-ups never pin every listener thread."""
    try:
        dispatcher.enqueue(kind, args, key=f"message:{team}:{channel}:{event['ts']}", team=team)
    except Busy:
        try:
            client.chat_postEphemeral(
                channel=channel, user=user, text=phrase(reply_lang(text, user=user, team=team), "try_again", file="bot")
            )
        except Exception as err:
            log.error("could not tell %s in %s: %s", user, channel, type(err).__name__)


def register(app) -> None:
    # Bolt acks events before calling these (auto-acknowledgement), so they may take their time.
    app.event("message")(on_message)
    app.event("app_mention")(on_mention)
