"""Each Slack user's reply language as their Slack locale last said it, in SQLite: the ack of a
slash command may not call the Web API, so it reads what any process learned earlier (planning
processes, other workers, before a restart)."""

from __future__ import annotations

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
        row = next(db["user_locales"].rows_where("user = ?", [user], select="lang"), None)
    return row["lang"] if row else None


def forget_workspace(workspace: str, path: str | None = None) -> int:
    with _opened(path) as db:
        return tables.delete_workspace(db, "user_locales", workspace)
