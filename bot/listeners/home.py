"""App Home: a "New plan" button, the user's recent plans as the answer cards headline them
(with links to their threads), how to use the bot, and the workspace's digest subscriptions."""

from __future__ import annotations

import json

from advisor.request.fields import help_words
from advisor.text.render import phrase, render
from bot import blocks, conversations, digests, forms, subscriptions
from bot.threads import reply_lang, thread_place

RECENT = 8


def _permalink(client, channel: str, ts: str) -> str:
    try:
        return client.chat_getPermalink(channel=channel, message_ts=ts)["permalink"]
    except Exception:
        return f"https://slack.com/app_redirect?channel={channel}"


def home_view(client, team: str, user: str, lang: str) -> dict:
    plans = []
    for conv in conversations.recent(team, user, limit=RECENT):
        _, channel, ts = thread_place(conv.key)
        request = blocks.esc(forms.typed(conv.request_text)[:80])  # the user's own words
        plans.append(
            {"link": _permalink(client, channel, ts), "text": request, "headline": blocks.headline(conv.summary, lang)}
        )
    return json.loads(
        render(
            "slack/home.json.j2",
            lang,
            plans=plans,
            help=render("help.txt.j2", lang, words=help_words(lang)),
            new_plan=blocks.new_plan_button(lang),
            subscriptions=[
                {**s.model_dump(), "zone": phrase(lang, "zone", digests.sub_tz(s).key, file="bot")}
                for s in subscriptions.of_workspace(team)
            ],
        )
    )


def on_home_opened(event, body, client, context):
    if event.get("tab") not in (None, "home"):
        return
    team = body.get("team_id") or context.team_id or ""
    user = event["user"]
    client.views_publish(user_id=user, view=home_view(client, team, user, reply_lang("", client, user, team)))


def register(app) -> None:
    app.event("app_home_opened")(on_home_opened)  # acked by Bolt before this runs
