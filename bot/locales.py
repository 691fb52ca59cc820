"""Each Slack user's reply language as their Slack locale last said it, in SQLite: the ack of a
slash command may not call the Web API, so it reads what any process learned earlier (planning
processes, other workers, before a restart), and for a user met for the first time what most of
their workspace reads."""

from __future__ import annotations

import sqlite_utils

from bot import tables

MIGRATIONS = [
    (
        1,
        """
        CREATE TABLE IF NOT EXISTS user_locales (
            user TEXT PRIMARY KEY,
            workspace TEXT NOT NULL DEFAULT '',
            lang TEXT NOT NULL,               -- 'en' or 'zh'
            seen_at TEXT NOT NULL DEFAULT (datetime('now'))
        );
        CREATE INDEX IF NOT EXISTS user_locales_workspace ON user_locales (workspace)
    """,
    ),
]


def _opened(path: str | None = None):
    return tables.opened("user_locales", MIGRATIONS, path)


def remember(user: str, lang: str, workspace: str = "", path: str | None = None) -> None:
    with _opened(path) as db:
        db["user_locales"].upsert({"user": user, "workspace": workspace, "lang": lang}, pk="user")


def known(user: str, path: str | None = None) -> str | None:
    with _opened(path) as db:
        return _user_lang(db, user)


def workspace_lang(workspace: str, path: str | None = None) -> str | None:
    """The language most of the workspace's remembered users read (None: no one remembered, or
    a tie): the best guess for a user met for the first time, before Slack can be asked."""
    with _opened(path) as db:
        return _majority(db, workspace)


def guess(user: str, workspace: str, path: str | None = None) -> str | None:
    """The user's remembered language, else their workspace's (one open of the file: an ack's)."""
    with _opened(path) as db:
        return _user_lang(db, user) or (_majority(db, workspace) if workspace else None)


def _user_lang(db: sqlite_utils.Database, user: str) -> str | None:
    row = next(db["user_locales"].rows_where("user = ?", [user], select="lang"), None)
    return row["lang"] if row else None


def _majority(db: sqlite_utils.Database, workspace: str) -> str | None:
    counts = {
        r["lang"]: r["n"]
        for r in db.query("SELECT lang, COUNT(*) AS n FROM user_locales WHERE workspace = ? GROUP BY lang", [workspace])
    }
    zh, en = counts.get("zh", 0), counts.get("en", 0)
    return "zh" if zh > en else "en" if en > zh else None


def forget_workspace(workspace: str, path: str | None = None) -> int:
    with _opened(path) as db:
        return tables.delete_workspace(db, "user_locales", workspace)
