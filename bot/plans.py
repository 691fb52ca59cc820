"""Planning a request and posting the answer: shared by /gpu, the form and @mentions."""

from __future__ import annotations

import logging

from advisor import conversations
from advisor.render import phrase
from bot import delivery, worker
from bot.listeners.common import thread_key

log = logging.getLogger("gpu_advisor.bot")


def post_plan(client, team: str, channel: str, user: str, text: str, lang: str,
              response_url: str | None = None, thread_ts: str | None = None) -> str | None:
    """Plan in the pool, post to the channel (or into `thread_ts`), remember the thread.
    Returns the thread's ts, None when nothing was posted."""
    try:
        payload = worker.run(worker.answer, text, lang)
    except Exception:
        log.exception("planning failed for a /gpu request")
        delivery.tell_user(client, channel, user, phrase(lang, "busy", file="bot"), response_url)
        return None
    if not payload["ok"]:
        return None  # the ack already explained what was wrong
    ts = delivery.post(client, channel, payload["message"], thread_ts=thread_ts)
    if ts is None:
        delivery.tell_user(client, channel, user, phrase(lang, "post_failed", "see the log", file="bot"), response_url)
        return None
    ts = thread_ts or ts
    conversations.save(conversations.Conversation(
        key=thread_key(team, channel, ts), workspace=team, user=user, request_text=text,
        lang=payload["lang"], summary=payload["summary"]))
    return ts
