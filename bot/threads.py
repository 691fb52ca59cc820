"""Threads under our answers: the key each is stored under, and the language to reply in."""

from __future__ import annotations

import re
import time

from advisor.request.parser import detect_lang
from bot import locales

_LANG_WORD = re.compile(r"(?<![a-z])lang\s*[:=]?\s*(en|zh)(?![a-z])", re.I)


def stated_lang(text: str) -> str | None:
    """The language the text itself gives (`lang en|zh` in it, or Chinese text); None: it is the
    user's own (`reply_lang`)."""
    if _LANG_WORD.search(text or "") or detect_lang(text or "") == "zh":
        return detect_lang(text or "")
    return None


# Reads of the remembered locale that meet a passing lock (a SQLite writer) are tried again.
GUESS_TRIES = 3
GUESS_RETRY_S = 0.05


def reply_lang(text: str, client=None, user: str | None = None, team: str = "") -> str:
    """`lang en|zh` in the text wins; then Chinese text; then the user's Slack locale: a
    users.info call when `client` is given (never before an ack), remembered for every process
    (bot/locales.py); without a client, what was remembered, or for a user met for the first time
    what most of the workspace (`team`) reads. English when nothing is known."""
    stated = stated_lang(text)
    if stated:
        if client is not None and user:
            # a zh-CN user who types Chinese is remembered too, so her first `/gpu help` in English
            # words is acked in Chinese (it had been acked in English, then replaced)
            try:
                if locales.known(user, team) is None:
                    _asked(client, user, team)
            except Exception:  # a locked file: learnt next time
                pass
        return stated
    if not user:
        return "en"
    if client is not None:
        lang = _asked(client, user, team)
        if lang:
            return lang
    for _ in range(GUESS_TRIES):
        try:
            return locales.guess(user, team) or "en"
        except Exception:  # a passing lock (another process writing): once more, shortly
            time.sleep(GUESS_RETRY_S)
    return "en"  # the store cannot be read: English rather than no answer


def _asked(client, user: str, team: str) -> str | None:
    """The user's reply language from their Slack locale (users.info), remembered for every
    process; None when Slack or the store cannot say (no users:read scope, a transient failure,
    a locked file)."""
    try:
        locale = client.users_info(user=user, include_locale=True)["user"].get("locale", "")
        lang = "zh" if locale.lower().startswith("zh") else "en"
        locales.remember(user, lang, team)
        return lang
    except Exception:
        return None


def thread_key(team: str, channel: str, thread_ts: str) -> str:
    return f"{team}:{channel}:{thread_ts}"


def thread_place(key: str) -> tuple[str, str, str]:
    """A thread key -> (team, channel, thread ts)."""
    team, channel, ts = key.split(":", 2)
    return team, channel, ts
