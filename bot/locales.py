"""Each Slack user's reply language as their Slack locale last said it, keyed by workspace and
user, in the shared store: the ack of a
slash command may not call the Web API, so it reads what any process learned earlier (planning
processes, other workers, before a restart), and for a user met for the first time what most of
their workspace reads."""

from __future__ import annotations

from advisor import db as dbmod
from bot import tables


def _opened(path: str | None = None):
    return tables.opened(path)


def remember(user: str, lang: str, workspace: str = "", path: str | None = None) -> None:
    with _opened(path) as db:
        db["user_locales"].upsert({"workspace": workspace, "user": user, "lang": lang}, pk=("workspace", "user"))


def known(user: str, workspace: str = "", path: str | None = None) -> str | None:
    """The user's remembered language (in `workspace`; any workspace's when it is '')."""
    with _opened(path) as db:
        return _user_lang(db, user, workspace)


def workspace_lang(workspace: str, path: str | None = None) -> str | None:
    """The language most of the workspace's remembered users read (None: no one remembered, or
    a tie): the best guess for a user met for the first time, before Slack can be asked."""
    with _opened(path) as db:
        return _majority(db, workspace)


def guess(user: str, workspace: str, path: str | None = None) -> str | None:
    """The user's remembered language, else their workspace's: one query on the ack path's
    connection (advisor/db.py ack_read), since an ack reads it."""
    sql, args = guess_query(user, workspace)
    return guessed(dbmod.ack_read(f"SELECT {sql}", args, "sqlite:///" + path if path else None)[0])


def guess_query(user: str, workspace: str) -> tuple[str, list]:
    """What `guess` reads, as one scalar expression and its parameters, for an ack that reads it
    in the statement that records its job (advisor/db.py ack_insert). The workspace's readers
    are counted only for a user not remembered there (COALESCE stops at its first value on both
    engines): a returning user costs one key lookup however big the workspace."""
    if not workspace:
        return '(SELECT lang FROM user_locales WHERE "user" = ? ORDER BY seen_at DESC LIMIT 1)', [user]
    zh, en = (f"sum(CASE WHEN lang = '{lang}' THEN 1 ELSE 0 END)" for lang in ("zh", "en"))
    return (
        'COALESCE((SELECT lang FROM user_locales WHERE workspace = ? AND "user" = ?),'
        f" (SELECT CASE WHEN {zh} > {en} THEN 'zh' WHEN {en} > {zh} THEN 'en' END"
        " FROM user_locales WHERE workspace = ?))",
        [workspace, user, workspace],
    )


def guessed(row: tuple) -> str | None:
    """`guess` from the row of `guess_query`."""
    return row[0]


def _user_lang(db: dbmod.Database, user: str, workspace: str = "") -> str | None:
    where, args = ('"user" = ? AND workspace = ?', [user, workspace]) if workspace else ('"user" = ?', [user])
    row = next(db["user_locales"].rows_where(where, args, select="lang", order_by="seen_at DESC", limit=1), None)
    return row["lang"] if row else None


def _majority(db: dbmod.Database, workspace: str) -> str | None:
    counts = {
        r["lang"]: r["n"]
        for r in db.query("SELECT lang, COUNT(*) AS n FROM user_locales WHERE workspace = ? GROUP BY lang", [workspace])
    }
    zh, en = counts.get("zh", 0), counts.get("en", 0)
    return "zh" if zh > en else "en" if en > zh else None


def forget_workspace(workspace: str, path: str | None = None) -> int:
    with _opened(path) as db:
        return tables.delete_workspace(db, "user_locales", workspace)
