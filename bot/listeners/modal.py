"""Submitting the request form (`/gpu` alone opens it, bot/listeners/commands.py): each field
is checked inline, then the answer is posted like `/gpu TEXT`."""

from __future__ import annotations

import json

from bot import forms, jobs, pool


def submit_gpu_form(ack, view, body, client, context):
    """Inline errors must come in the ack itself (response_action), so the form is read here."""
    values = forms.values(view)
    errors = forms.validate(values)
    if errors:
        ack(response_action="errors", errors=errors)
        return
    ack()
    meta = json.loads(view.get("private_metadata") or "{}")
    user = body["user"]["id"]
    channel = meta.get("channel") or user
    team = (body.get("team") or {}).get("id") or context.team_id or ""
    # Re-plan from a card's button: the answer goes into that card's thread.
    pool.submit(jobs.plan, jobs.SlackAccess.of(client), team, channel, user, forms.request_text(values),
                values["lang"] or "en", None, meta.get("thread_ts") or None)


def register(app) -> None:
    app.view("gpu_request")(submit_gpu_form)
