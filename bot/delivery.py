"""Posting to Slack: the answer, its thread, and telling the user when a post fails. Tokens
never reach the log.

`send` is what jobs post with: each answer carries message metadata naming its job, and a job
that runs again (after a timeout, a connection error or a crash) first looks for its own post in
the channel, so a retry never doubles it. Failures that may pass (429, 5xx, timeouts, connection
errors, an unreadable history) raise `PostProblem(retry=True)` and the job goes back to the queue
with its backoff (bot/dispatcher.py); others (not_in_channel, ...) raise `PostProblem(retry=False)`."""

from __future__ import annotations

import logging
import socket
import urllib.error
from http.client import HTTPException
from typing import NamedTuple

from slack_sdk.errors import SlackApiError, SlackRequestError
from slack_sdk.webhook import WebhookClient

from advisor.text.safe import for_slack

log = logging.getLogger("gpu_advisor.bot")
ANSWER_EVENT = "gpu_advisor_answer"
# Errors that are Slack's or the network's, not ours: worth another try after a while.
TRANSIENT_ERRORS = {
    "ratelimited",
    "rate_limited",
    "internal_error",
    "fatal_error",
    "service_unavailable",
    "request_timeout",
}


class Superseded(Exception):
    """This run lost its job's lease: another run owns the job (and its post) now."""


def settle_s() -> float:
    """How long a post another run began may still be under way (the Slack timeout and a margin)."""
    import os

    from bot.job_queue import POST_MARGIN_S

    return float(os.environ.get("GPU_ADVISOR_SLACK_TIMEOUT") or 30) + POST_MARGIN_S


class PostProblem(Exception):
    """A post that did not go through: `reason` names it for the user's note (rate_limited,
    slack_unavailable, timeout, connection, history_unreadable, or Slack's error code)."""

    def __init__(self, reason: str, retry: bool, after_s: float | None = None):
        super().__init__(reason)
        self.reason, self.retry, self.after_s = reason, retry, after_s


def problem(err: Exception) -> PostProblem:
    """What a failed Web API call means for the job that made it."""
    if isinstance(err, SlackApiError):
        status = getattr(err.response, "status_code", 200)
        code = err.response.get("error") or "unknown"
        if status == 429 or code in ("ratelimited", "rate_limited"):
            headers = getattr(err.response, "headers", {}) or {}
            after = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
            try:
                after_s = float(after[0] if isinstance(after, list) else after)
            except (TypeError, ValueError):
                after_s = None
            return PostProblem("rate_limited", True, after_s)
        if status >= 500 or code in TRANSIENT_ERRORS:
            return PostProblem("slack_unavailable", True)
        return PostProblem(code, False)
    if isinstance(err, (TimeoutError, socket.timeout)) or "timed out" in str(err):
        return PostProblem("timeout", True)
    if isinstance(err, (urllib.error.URLError, ConnectionError, HTTPException, OSError, SlackRequestError)):
        return PostProblem("connection", True)
    return PostProblem(type(err).__name__, False)


def _metadata(job: int | None, key: str | None = None) -> dict | None:
    if job is None:
        return None
    return {"event_type": ANSWER_EVENT, "event_payload": {"job": str(job), **({"key": key} if key else {})}}


class Posted(NamedTuple):
    """Where a message landed: the conversation as Slack names it, and the message's ts."""

    channel: str
    ts: str


def find_posted(client, channel: str, job: int, since: float, thread_ts: str | None = None) -> str | None:
    """The ts of the message job `job` already posted in the channel (or thread), else None.
    Raises PostProblem(retry=True) when the history cannot be read: not knowing is never taken
    as "not posted"."""
    try:
        if thread_ts:
            resp = client.conversations_replies(channel=channel, ts=thread_ts, include_all_metadata=True, limit=200)
        else:
            resp = client.conversations_history(
                channel=channel, oldest=f"{since - 60:.6f}", include_all_metadata=True, limit=200
            )
    except Exception as err:
        log.warning("could not read %s's history: %s", channel, type(err).__name__)
        raise PostProblem("history_unreadable", True) from err
    for message in resp.get("messages", []):
        meta = message.get("metadata") or {}
        if meta.get("event_type") == ANSWER_EVENT and str((meta.get("event_payload") or {}).get("job")) == str(job):
            return message.get("ts")
    return None


def send(
    client,
    channel: str,
    msg: dict,
    thread_ts: str | None = None,
    job: int | None = None,
    attempt: int = 1,
    since: float = 0.0,
    owner: str = "",
    key: str | None = None,
) -> Posted:
    """Post a job's message once; returns where it landed or raises PostProblem (Superseded when
    this run lost the job to another).

    With an `owner` (a job of the shared store) the post is fenced in the job's row: the run
    records that it begins to post, then the ts; a run that finds a post begun by another run
    that may have landed looks in the channel first (the message carries the job's id and key)
    and posts only when it is not there."""
    fence = None
    if job is not None and owner:
        from bot.job_queue import JobQueue

        fence = JobQueue()
        verdict, ts = fence.begin_post(job, owner, settle_s())
        if verdict == "posted":
            log.info("job %s had already posted in %s (ts %s): not posting again", job, channel, ts)
            return Posted(channel, ts)
        if verdict == "lost":
            raise Superseded(str(job))
        if verdict == "wait":  # once it has settled, the channel says whether it landed
            raise PostProblem("post_in_progress", True, float(ts or 5.0) + 0.5)
        if verdict == "look":
            ts = find_posted(client, channel, job, since, thread_ts)
            if ts:
                log.info("job %s had already posted in %s: not posting again", job, channel)
                fence.end_post(job, ts, True)
                return Posted(channel, ts)
            if not fence.retake_post(job, owner):
                raise Superseded(str(job))
    elif job is not None and attempt > 1:
        ts = find_posted(client, channel, job, since, thread_ts)
        if ts:
            log.info("job %s had already posted in %s: not posting again", job, channel)
            return Posted(channel, ts)
    try:
        resp = client.chat_postMessage(
            channel=channel,
            text=msg["text"],
            blocks=msg["blocks"],
            thread_ts=thread_ts,
            unfurl_links=False,
            metadata=_metadata(job, key),
        )
    except Exception as err:
        found = problem(err)
        log.warning("chat.postMessage to %s failed: %s", channel, found.reason)
        if fence is not None:
            # Slack answered with an error: nothing was posted. Anything else (a timeout, a dropped
            # connection): it may have been, and the next run looks first.
            fence.end_post(job, None, False if isinstance(err, SlackApiError) else None)
        raise found from err
    if fence is not None:
        fence.end_post(job, resp["ts"], True)
    # a post to a user ID lands in the app's DM with them, which Slack names in its answer
    return Posted(resp.get("channel") or channel, resp["ts"])


def tell_user(
    client, channel: str, user: str, text: str, response_url: str | None = None, replace: bool = False
) -> None:
    """An ephemeral note to one user: through the slash command's response_url when there is
    one (it works even where the bot is not a member; `replace` swaps it for the command's
    ephemeral ack), else chat.postEphemeral. The text is escaped for Slack here (it may echo
    the user's words)."""
    text = for_slack(text)
    try:
        if response_url:
            WebhookClient(response_url).send(text=text, response_type="ephemeral", replace_original=replace)
        else:
            client.chat_postEphemeral(channel=channel, user=user, text=text)
    except Exception as err:  # the user cannot be reached either: the log is all that is left
        log.error("could not tell %s in %s: %s", user, channel, type(err).__name__)
