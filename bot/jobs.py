"""The work behind each Slack request, run in the planning processes (bot/pool.py): plan or
answer, post to Slack, remember the thread, tell the user when a post fails. Arguments are
plain data; `slack` carries the token and Web API URL of the workspace the request came from."""

from __future__ import annotations

import logging
from contextlib import closing
from dataclasses import dataclass, field

from advisor.market.quotes import quote_answer
from advisor.market.store import open_store
from advisor.request.parser import RequestError
from advisor.text.render import phrase, render
from bot import answers, blocks, conversations, delivery, digests, subscriptions
from bot.clients import web_client
from bot.settings import Settings
from bot.threads import reply_lang, thread_key

log = logging.getLogger("gpu_advisor.bot")


@dataclass(frozen=True)
class SlackAccess:
    api_url: str
    token: str = field(repr=False)

    @classmethod
    def of(cls, client) -> SlackAccess:
        return cls(api_url=client.base_url, token=client.token)

    def client(self):
        return web_client(Settings(api_url=self.api_url), self.token)


def plan(slack: SlackAccess, team: str, channel: str, user: str, text: str, lang: str | None,
         response_url: str | None = None, thread_ts: str | None = None) -> None:
    """Plan a request and post the answer to the channel (or into `thread_ts`)."""
    client = slack.client()
    lang = lang or reply_lang(text, client, user)
    try:
        payload = answers.answer(text, lang, answers.prices_for(team))
    except Exception:
        log.exception("planning failed")
        delivery.tell_user(client, channel, user, phrase(lang, "busy", file="bot"), response_url)
        return
    if not payload["ok"]:
        if thread_ts:  # a mention: say it in the thread
            delivery.post(client, channel, {"text": payload["error"], "blocks": [], "thread": []}, thread_ts)
        else:  # a slash command or the form: to the user alone, in place of "Planning ..."
            delivery.tell_user(client, channel, user, payload["error"], response_url, replace=True)
        return
    ts = delivery.post(client, channel, payload["message"], thread_ts=thread_ts)
    if ts is None:
        delivery.tell_user(client, channel, user, phrase(lang, "post_failed", file="bot"),
                           response_url)
        return
    conversations.save(conversations.Conversation(
        key=thread_key(team, channel, thread_ts or ts), workspace=team, user=user, request_text=text,
        lang=payload["lang"], summary=payload["summary"]))


def follow(slack: SlackAccess, team: str, channel: str, thread: str, request_text: str, summary: dict, text: str,
           user: str, mentioned: bool = True) -> None:
    """Answer a message in a plan's thread (or a question without one) in that thread; say
    nothing when the bot was not spoken to (`mentioned` False and no question for it)."""
    client = slack.client()
    lang = reply_lang(text, client, user)
    try:
        reply = answers.follow(request_text, summary, text, lang, answers.prices_for(team), mentioned)
    except Exception:
        log.exception("follow-up failed")
        reply = None
    if reply is not None and reply["message"] is None:
        return  # thanks, agreement, chatter: not for us
    if reply is None or delivery.post(client, channel, reply["message"], thread_ts=thread) is None:
        delivery.tell_user(client, channel, user, phrase(lang, "thread_failed", file="bot"))


def part(slack: SlackAccess, team: str, channel: str, ts: str, request_text: str, which: str, lang: str) -> None:
    """A button: post one part of the plan in its thread; the RFQ as a file."""
    client = slack.client()
    payload = answers.part(request_text, which, lang, answers.prices_for(team))
    if which != "rfq":
        delivery.post(client, channel, payload["message"], thread_ts=ts)
        return
    try:
        # files_upload_v2: files.getUploadURLExternal, the upload, files.completeUploadExternal
        client.files_upload_v2(channel=channel, thread_ts=ts, content=payload["text"],
                               filename=payload.get("filename", "request-for-quote.txt"),
                               title=payload.get("title", "Request for quote"),
                               initial_comment=payload.get("comment"))
    except Exception as err:
        log.warning("RFQ upload to %s failed: %s", channel, type(err).__name__)
        delivery.post(client, channel, {"text": payload["text"][:3000], "blocks": [], "thread": []}, thread_ts=ts)


def quote(slack: SlackAccess, team: str, channel: str, user: str, text: str, lang: str | None,
          response_url: str | None = None) -> None:
    """`/gpu quote ...`: judge the vendor's quote, record it, post the judgement in the channel."""
    client = slack.client()
    lang = lang or reply_lang(text, client, user)
    try:
        with closing(open_store()) as db:
            judgement, recorded = quote_answer(text, lang, db, team)
    except RequestError as err:
        delivery.tell_user(client, channel, user, err.message(lang), response_url)
        return
    reply = render("quote.txt.j2", judgement.quote.lang, j=judgement, recorded=recorded)
    if delivery.post(client, channel, blocks.plain(reply)) is None:
        delivery.tell_user(client, channel, user, reply, response_url)


def digest_now(slack: SlackAccess, team: str, channel: str, lang: str) -> None:
    """`/gpu digest now`: this channel's digest at once (outside the daily once-only run)."""
    sub = subscriptions.Subscription(workspace=team, channel=channel, lang=lang)
    digests.deliver(slack.client(), sub, digests.today_date(), force=True)
