"""The job's post (bot_jobs.posted_ts, posted_channel: a later run finds it without asking
Slack), and users' languages keyed by workspace and user (user_locales was keyed by user alone).

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    columns = {c["name"] for c in sa.inspect(bind).get_columns("bot_jobs")}
    for name in ("posted_ts", "posted_channel"):
        if name not in columns:
            bind.exec_driver_sql(f"ALTER TABLE bot_jobs ADD COLUMN {name} TEXT")
    pk = sa.inspect(bind).get_pk_constraint("user_locales")["constrained_columns"]
    if pk == ["user"]:  # an older SQLite file: rebuilt with the new key, its rows kept
        bind.exec_driver_sql("ALTER TABLE user_locales RENAME TO user_locales_old")
        bind.exec_driver_sql(
            "CREATE TABLE user_locales (workspace TEXT NOT NULL DEFAULT '', \"user\" TEXT NOT NULL,"
            ' lang TEXT NOT NULL, seen_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (workspace, "user"))'
        )
        bind.exec_driver_sql(
            'INSERT INTO user_locales (workspace, "user", lang, seen_at)'
            ' SELECT workspace, "user", lang, seen_at FROM user_locales_old'
        )
        bind.exec_driver_sql("DROP TABLE user_locales_old")
    bind.exec_driver_sql("DROP INDEX IF EXISTS user_locales_workspace")
