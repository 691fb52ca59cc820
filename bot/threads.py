"""Threads under our answers: the key each is stored under, and the language to reply in."""

from __future__ import annotations

import re

from advisor.request.parser import detect_lang

_LANG_WORD = re.compile(r"(?<![a-z])lang\s*[:=]?\s*(en|zh)(?![a-z])", re.I)


_LOCALES: dict[str, str] = {}  # user -> reply language, from earlier users.info calls in this process


def reply_lang(text: str, client=None, user: str | None = None) -> str:
    """`lang en|zh` in the text wins; then Chinese text; then the user's Slack locale (a
    users.info call when `client` is given: never before an ack; else what an earlier call in
    this process found)."""
    if _LANG_WORD.search(text or "") or detect_lang(text or "") == "zh":
        return detect_lang(text or "")
    if client is not None and user:
        try:
            locale = client.users_info(user=user, include_locale=True)["user"].get("locale", "")
            _LOCALES[user] = "zh" if locale.lower().startswith("zh") else "en"
        except Exception:  # no users:read scope or a transient failure: English it is
            pass
    return _LOCALES.get(user or "", "en")


def thread_key(team: str, channel: str, thread_ts: str) -> str:
    return f"{team}:{channel}:{thread_ts}"


def thread_place(key: str) -> tuple[str, str, str]:
    """A thread key -> (team, channel, thread ts)."""
    team, channel, ts = key.split(":", 2)
    return team, channel, ts
