"""Submitting the request form (`/gpu` alone opens it, bot/listeners/commands.py): each field
is checked inline, then the answer is posted like `/gpu TEXT`."""

from __future__ import annotations

import json

from advisor.text.render import phrase
from bot import dispatcher, forms
from bot.job_queue import Busy


def submit_gpu_form(ack, view, body, client, context):
    """Inline errors must come in the ack itself (response_action), so the form is read here."""
    values = forms.values(view)
    errors = forms.validate(values)
    if errors:
        ack(response_action="errors", errors=errors)
        return
    meta = json.loads(view.get("private_metadata") or "{}")
    user = body["user"]["id"]
    channel = meta.get("channel") or user
    team = (body.get("team") or {}).get("id") or context.team_id or ""
    trigger = body.get("trigger_id")
    try:  # recorded as a job before the ack; a locked database: the form says so and stays open
        dispatcher.enqueue(
            "plan",
            {
                "team": team,
                "channel": channel,
                "user": user,
                "text": forms.request_text(values),
                "lang": values["lang"] or "en",
                # re-plan from a card's button: the answer goes into that card's thread
                "thread_ts": meta.get("thread_ts") or None,
            },
            key=f"view:{team}:{trigger}" if trigger else None,
            team=team,
        )
    except Busy:
        ack(response_action="errors", errors={"model": phrase(values["lang"] or "en", "try_again", file="bot")})
        return
    ack()


def register(app) -> None:
    app.view("gpu_request")(submit_gpu_form)
