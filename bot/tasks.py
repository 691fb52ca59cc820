"""The work behind each Slack request, run in the planning processes (bot/planner_pool.py) for a job
of the job store (bot/job_queue.py, dispatched by bot/dispatcher.py): plan or answer, post to Slack,
remember the thread, tell the user when a post fails. Arguments are plain data; `slack`
carries the token and Web API URL of the workspace the request came from (over the pipe, never
on disk).

`run` returns what became of the job: {"done": True}, or {"retry": reason, "after": seconds}
when Slack or the network may let it through later (the job goes back to the queue; nothing
sleeps here), or {"failed": reason} once the user has been told in words that fit."""

from __future__ import annotations

import logging
import time
from contextlib import closing
from dataclasses import dataclass, field

import sqlalchemy as sa

from advisor.market.prices import price_book
from advisor.market.purchase_quotes import purchase_quote
from advisor.market.quotes import is_removal, judge, parse_quote, quote_answer, remove_quote
from advisor.market.store import open_store
from advisor.request.parser import RequestError
from advisor.text.render import phrase, render
from advisor.text.safe import for_slack
from bot import answers, blocks, conversations, delivery, digests, subscriptions
from bot.clients import job_client
from bot.delivery import PostProblem
from bot.threads import reply_lang, thread_key

log = logging.getLogger("gpu_advisor.bot")


@dataclass(frozen=True)
class SlackAccess:
    api_url: str
    token: str = field(repr=False)
    timeout: float = 30.0

    @classmethod
    def of(cls, client) -> SlackAccess:
        return cls(api_url=client.base_url, token=client.token)

    def client(self):
        return job_client(self.api_url, self.token, self.timeout)


@dataclass(frozen=True)
class Run:
    """Which job this is and which try: a retry first looks for its own earlier post."""

    job: int | None = None
    attempt: int = 1
    final: bool = True
    since: float = 0.0
    team: str = ""  # the workspace: whose recorded quotes its price book sees
    owner: str = ""  # the dispatcher that holds the job's lease (the post is fenced on it)
    key: str | None = None  # the job's key, carried by its post


class _Unreachable(Exception):
    """The post failed for good; the user has been told."""


def _send(client, run: Run, channel: str, msg: dict, thread_ts: str | None = None) -> delivery.Posted:
    return delivery.send(
        client,
        channel,
        msg,
        thread_ts=thread_ts,
        job=run.job,
        attempt=run.attempt,
        since=run.since,
        owner=run.owner,
        key=run.key,
    )


def plan(
    slack: SlackAccess,
    run: Run,
    team: str,
    channel: str,
    user: str,
    text: str,
    lang: str | None,
    response_url: str | None = None,
    thread_ts: str | None = None,
) -> None:
    """Plan a request and post the answer to the channel (or into `thread_ts`)."""
    client = slack.client()
    lang = lang or reply_lang(text, client, user, team)
    try:
        payload = answers.answer(text, lang, answers.prices_for(team))
    except sa.exc.DBAPIError:
        if not run.final:  # the database is away (a restart): the job waits in the queue
            raise
        log.exception("planning failed")
        delivery.tell_user(client, channel, user, phrase(lang, "busy", file="bot"), response_url)
        return
    except Exception:
        log.exception("planning failed")
        delivery.tell_user(client, channel, user, phrase(lang, "busy", file="bot"), response_url)
        return
    try:
        if not payload["ok"]:
            if thread_ts:  # a mention: say it in the thread
                _send(client, run, channel, {"text": for_slack(payload["error"]), "blocks": []}, thread_ts)
            else:  # a slash command or the form: to the user alone, in place of "Planning ..."
                delivery.tell_user(client, channel, user, payload["error"], response_url, replace=True)
            return
        posted = _send(client, run, channel, payload["message"], thread_ts=thread_ts)
    except PostProblem as err:
        _give_up_or_raise(err, run, client, channel, user, lang, response_url)
        return
    if payload["summary"] is None:  # a question the FAQ answered: no plan for a thread to ask about
        return
    conversations.save(
        conversations.Conversation(
            # stored where Slack put it (the DM's "D…" for a plan from App Home, not the user ID it
            # was sent to): clicks and thread messages on it name that conversation
            key=thread_key(team, posted.channel, thread_ts or posted.ts),
            workspace=team,
            user=user,
            request_text=text,
            lang=payload["lang"],
            summary=payload["summary"],
        )
    )


def _give_up_or_raise(
    err: PostProblem,
    run: Run,
    client,
    channel: str,
    user: str,
    lang: str,
    response_url: str | None,
    what: str = "answer",
) -> None:
    if err.retry and not run.final:
        raise err
    delivery.tell_user(client, channel, user, phrase(lang, "not_posted", err.reason, what, file="bot"), response_url)
    raise _Unreachable(err.reason)


def follow(
    slack: SlackAccess,
    run: Run,
    channel: str,
    thread: str,
    request_text: str,
    summary: dict,
    text: str,
    user: str,
    mentioned: bool = True,
    pending_thread: bool = False,
) -> None:
    """Answer a message in a plan's thread (or a question without one) in that thread; say
    nothing when the bot was not spoken to (`mentioned` False and no question for it). A message
    that came before its thread was stored (`pending_thread`) waits in the queue for it. The
    thread is read again here: a what-if answered since the message was acked has moved it."""
    key = thread_key(run.team, channel, thread)
    conv = conversations.load(key)
    if pending_thread and conv is None and not run.final:
        raise PostProblem("thread_not_stored", True)
    if conv is not None:
        request_text, summary = conv.current()
    client = slack.client()
    lang = reply_lang(text, client, user, run.team)
    try:
        reply = answers.follow(request_text, summary, text, lang, answers.prices_for(run.team), mentioned)
    except sa.exc.DBAPIError:
        if not run.final:
            raise
        log.exception("follow-up failed")
        delivery.tell_user(client, channel, user, phrase(lang, "thread_failed", file="bot"))
        return
    except Exception:
        log.exception("follow-up failed")
        delivery.tell_user(client, channel, user, phrase(lang, "thread_failed", file="bot"))
        return
    if reply["message"] is None:
        return  # thanks, agreement, chatter: not for us
    if reply.get("file") and _upload(client, channel, thread, reply["file"]):
        return  # "can you write an RFQ?": the file, as the card's button posts it
    try:
        _send(client, run, channel, reply["message"], thread_ts=thread)
    except PostProblem as err:
        _give_up_or_raise(err, run, client, channel, user, lang, None)
        return
    if reply.get("thread") and conv is not None:
        # "what if 30 days?" posted: the thread's next message is answered against that plan
        conversations.advance(key, reply["thread"]["request"], reply["thread"]["summary"])


def part(slack: SlackAccess, run: Run, channel: str, ts: str, request_text: str, which: str, lang: str) -> None:
    """A button: post one part of the plan in its thread; the RFQ as a file."""
    client = slack.client()
    payload = answers.part(request_text, which, lang, answers.prices_for(run.team))
    if payload.get("file") and _upload(client, channel, ts, payload["file"]):
        return
    _send(client, run, channel, payload["message"], thread_ts=ts)


def _upload(client, channel: str, thread: str, file: dict) -> bool:
    """Upload a file (the request for quote) in a thread; False when Slack refused it (the
    caller posts its message instead)."""
    try:
        # files_upload_v2: files.getUploadURLExternal, the upload, files.completeUploadExternal
        client.files_upload_v2(
            channel=channel,
            thread_ts=thread,
            content=file["text"],
            filename=file.get("filename", "request-for-quote.txt"),
            title=file.get("title", "Request for quote"),
            initial_comment=file.get("comment"),
        )
        return True
    except Exception as err:
        log.warning("upload to %s failed: %s", channel, type(err).__name__)
        return False


def quote(
    slack: SlackAccess, run: Run, channel: str, user: str, text: str, lang: str | None, response_url: str | None = None
) -> None:
    """`/gpu quote ...`: judge the vendor's quote, record it, post the judgement in the channel."""
    client = slack.client()
    lang = lang or reply_lang(text, client, user, run.team)
    if is_removal(text):  # `/gpu quote remove VENDOR [GPU]`: to the user alone
        try:
            with closing(open_store()) as db:
                removal = remove_quote(text, lang, db, run.team)
        except RequestError as err:
            delivery.tell_user(client, channel, user, err.message(lang), response_url)
            return
        delivery.tell_user(client, channel, user, blocks.quote_removed(removal, lang)["text"], response_url)
        return
    with closing(open_store()) as db:
        bought = purchase_quote(text, lang, price_book(db, None))
    if bought is not None:  # a quote to sell servers: judged, never recorded
        reply = render("quote_purchase.txt.j2", bought.lang, j=bought)
        _post_or_tell(client, run, channel, user, response_url, blocks.plain(reply), lambda: reply)
        return
    if run.attempt == 1 or not run.job:
        try:
            with closing(open_store()) as db:
                judgement, recorded = quote_answer(text, lang, db, run.team)
        except RequestError as err:
            delivery.tell_user(client, channel, user, err.message(lang), response_url)
            return
        except Exception:
            log.exception("quote failed")
            delivery.tell_user(client, channel, user, phrase(lang, "busy", file="bot"), response_url)
            return
    else:  # a retry: the quote was recorded on the first try, only the judgement is posted again
        with closing(open_store()) as db:
            judgement = judge(parse_quote(text, lang), price_book(db, None))
            recorded = bool(judgement.quote.vendor) and not judgement.unrecorded
    _post_or_tell(
        client,
        run,
        channel,
        user,
        response_url,
        blocks.quote(judgement, recorded, example=text),
        lambda: render("quote.txt.j2", judgement.quote.lang, j=judgement, recorded=recorded, example=text),
    )


def _post_or_tell(client, run: Run, channel: str, user: str, response_url, message: dict, reply) -> None:
    """Post a quote's answer in the channel; where Slack will not take it and no retry is left, tell
    the user alone its text (`reply()`)."""
    try:
        _send(client, run, channel, message)
    except PostProblem as err:
        if err.retry and not run.final:
            raise
        delivery.tell_user(client, channel, user, reply(), response_url)


def digest_now(
    slack: SlackAccess,
    run: Run,
    team: str,
    channel: str,
    lang: str,
    user: str = "",
    response_url: str | None = None,
) -> None:
    """`/gpu digest now`: this channel's digest at once (outside the daily once-only run). A post
    that fails gives the slot back (the rate limit is not spent on nothing) and is tried again;
    after the last try the asker is told."""
    at = time.time()
    if not digests.claim_now(team, channel, at):
        log.info("digest now in %s: one was posted within %d s", channel, digests.NOW_GAP_S)
        return
    # a subscribed channel's own time zone decides which day's digest this one is (the clock's
    # round then skips the channel today: one digest a channel a day)
    subscribed = next((s for s in subscriptions.of_workspace(team) if s.channel == channel), None)
    sub = subscriptions.Subscription(workspace=team, channel=channel, lang=lang, tz=subscribed.tz if subscribed else "")
    if digests.deliver(slack.client(), sub, digests.today_date(), force=True, subscribed=subscribed is not None):
        return
    digests.release_now(team, channel, at)
    if not run.final:
        raise PostProblem("digest_not_posted", True)
    if user:
        delivery.tell_user(slack.client(), channel, user, phrase(lang, "digest_now_failed", file="bot"), response_url)


def digest_setting(
    slack: SlackAccess,
    run: Run,
    team: str,
    channel: str,
    user: str,
    action: str,
    lang: str,
    value: str = "",
    response_url: str | None = None,
) -> None:
    """`/gpu digest subscribe|unsubscribe|time`: the write the ack promised (the ack itself
    never writes anything but the job)."""
    try:
        found = True
        if action == "subscribe":
            subscriptions.subscribe(
                subscriptions.Subscription(workspace=team, channel=channel, lang=lang, created_by=user)
            )
        elif action == "unsubscribe":
            found = subscriptions.unsubscribe(team, channel)
        elif action == "time":
            found = subscriptions.set_time(team, channel, value)
        if not found:
            delivery.tell_user(
                slack.client(), channel, user, phrase(lang, "digest_not_subscribed", file="bot"), response_url
            )
    except Exception:
        if not run.final:
            raise
        log.exception("digest setting failed")
        delivery.tell_user(slack.client(), channel, user, phrase(lang, "digest_not_saved", file="bot"), response_url)


# Slack's Retry-After is honoured up to this many seconds a try: a day-long value (86400) would park
# an answer for a day and nobody would know (reliability review 2026-12-01). Past the cap the job
# tries again at the cap, and the user is told once that the answer waits.
RETRY_AFTER_CAP_S = 60


def _tell_waiting(slack: SlackAccess, args: dict, asked_s: float, cap_s: float) -> None:
    """Tell the asker, once, that Slack holds the answer longer than the cap."""
    channel, user = args.get("channel"), args.get("user")
    if not channel or not user:
        return
    lang = args.get("lang") or "en"
    text = phrase(lang, "rate_wait", max(1, round(asked_s / 60)), round(cap_s), file="bot")
    delivery.tell_user(slack.client(), channel, user, text, args.get("response_url"))


KINDS = {
    "plan": plan,
    "follow": follow,
    "part": part,
    "quote": quote,
    "digest_now": digest_now,
    "digest_setting": digest_setting,
}


def run(
    job: int,
    kind: str,
    args: dict,
    attempt: int,
    final: bool,
    since: float,
    slack: SlackAccess,
    backoff_s: float = 1.0,
    team: str = "",
    owner: str = "",
    key: str | None = None,
    retry_after_cap_s: float = RETRY_AFTER_CAP_S,
) -> dict:
    """Run one job of the store (bot/dispatcher.py calls this in a planning process)."""
    try:
        KINDS[kind](
            slack, Run(job=job, attempt=attempt, final=final, since=since, team=team, owner=owner, key=key), **args
        )
    except delivery.Superseded:
        log.info("job %s (%s): another run owns it now, this one stops", job, kind)
        return {"done": True}
    except PostProblem as err:
        if err.retry and not final:
            after = err.after_s if err.after_s is not None else backoff_s * 2 ** (attempt - 1)
            cap = retry_after_cap_s
            if err.after_s is not None and err.after_s > cap:
                if attempt == 1:
                    _tell_waiting(slack, args, err.after_s, cap)
                after = cap
            return {"retry": err.reason, "after": after}
        return {"failed": err.reason}
    except _Unreachable as err:
        return {"failed": str(err)}
    except Exception as err:
        if not final:
            log.warning("job %s (%s) failed, will retry: %s", job, kind, type(err).__name__)
            return {"retry": type(err).__name__, "after": backoff_s * 2 ** (attempt - 1)}
        raise
    return {"done": True}
