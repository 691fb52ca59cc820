"""Posting to Slack: the answer, its thread, and telling the user when a post fails. Rate
limits (429) are retried by the client's handlers (bot/clients.py); anything else is logged and
the user is told, never silently lost. Tokens never reach the log."""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackApiError
from slack_sdk.webhook import WebhookClient

from advisor.text.safe import for_slack

log = logging.getLogger("gpu_advisor.bot")


def post(client, channel: str, msg: dict, thread_ts: str | None = None) -> str | None:
    """Post a message and its thread follow-ups; returns the message ts, None on failure."""
    try:
        resp = client.chat_postMessage(channel=channel, text=msg["text"], blocks=msg["blocks"],
                                       thread_ts=thread_ts, unfurl_links=False)
    except SlackApiError as err:
        log.warning("chat.postMessage to %s failed: %s", channel, err.response.get("error"))
        return None
    ts = resp["ts"]
    for extra in msg.get("thread", []):
        try:
            client.chat_postMessage(channel=channel, text=extra["text"], blocks=extra["blocks"],
                                    thread_ts=thread_ts or ts, unfurl_links=False)
        except SlackApiError as err:
            log.warning("thread reply in %s failed: %s", channel, err.response.get("error"))
    return ts


def tell_user(client, channel: str, user: str, text: str, response_url: str | None = None,
              replace: bool = False) -> None:
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
