"""Planning a request and posting the answer: shared by /gpu, the form and @mentions."""

from __future__ import annotations

from bot import jobs, worker


def post_plan(client, team: str, channel: str, user: str, text: str, lang: str | None,
              response_url: str | None = None, thread_ts: str | None = None) -> None:
    """Hand the request to a planning process, which posts the answer; returns at once."""
    worker.submit(jobs.plan, jobs.SlackAccess.of(client), team, channel, user, text, lang, response_url, thread_ts)
