"""Threads under our answers: the key each is stored under, and the language to reply in."""

from __future__ import annotations

import re

from advisor.request.parser import detect_lang

_LANG_WORD = re.compile(r"(?<![a-z])lang\s*[:=]?\s*(en|zh)(?![a-z])", re.I)


def reply_lang(text: str, client=None, user: str | None = None) -> str:
    """`lang en|zh` in the text wins; then Chinese text; then the user's Slack locale."""
    if _LANG_WORD.search(text or "") or detect_lang(text or "") == "zh":
        return detect_lang(text or "")
    if client is not None and user:
        try:
            locale = client.users_info(user=user, include_locale=True)["user"].get("locale", "")
            if locale.lower().startswith("zh"):
                return "zh"
        except Exception:  # no users:read scope or a transient failure: English it is
            pass
    return "en"


def thread_key(team: str, channel: str, thread_ts: str) -> str:
    return f"{team}:{channel}:{thread_ts}"


def thread_place(key: str) -> tuple[str, str, str]:
    """A thread key -> (team, channel, thread ts)."""
    team, channel, ts = key.split(":", 2)
    return team, channel, ts
