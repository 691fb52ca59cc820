"""Every table the product keeps, as SQLAlchemy Core metadata: what Alembic's first revision
creates on Postgres (and on a new SQLite file, beside the price store's older migrations).
The price store's columns come from advisor/market/store.py, which owns what they mean; the
bot's tables are only their shape here (bot/ owns what they mean)."""

from __future__ import annotations

import sqlalchemy as sa

from advisor.market import store

METADATA = sa.MetaData()
_TYPES = {int: sa.Integer, float: sa.Float, str: sa.Text}


def _observation_columns() -> list[sa.Column]:
    cols: list[sa.Column] = [sa.Column("id", sa.Integer, primary_key=True, autoincrement=True)]
    for name, kind in store.COLUMNS.items():
        if name == "id":
            continue
        default = store.NOT_NULL_DEFAULTS.get(name)
        cols.append(
            sa.Column(
                name,
                _TYPES[kind],
                nullable=name not in store.NOT_NULL,
                server_default=None
                if default is None
                else sa.text(repr(default) if isinstance(default, str) else str(default)),
            )
        )
    extra: dict[str, object] = {**store.OFFER_COLUMNS, **store.OFFER_TERMS, **store.OFFER_SOLD_ON}
    for name, default in extra.items():
        kind = sa.Text if isinstance(default, str) else sa.Float if isinstance(default, float) else sa.Integer
        literal = repr(default) if isinstance(default, str) else str(default)
        cols.append(sa.Column(name, kind, nullable=False, server_default=sa.text(literal)))
    return cols


OBSERVATIONS = sa.Table(store.TABLE, METADATA, *_observation_columns())
for _name, _columns in store.INDEXES.items():
    sa.Index(_name, *(OBSERVATIONS.c[c] for c in _columns))
sa.Index(
    "observations_same",
    *(sa.text(c.replace("ifnull", "coalesce")) if "(" in c else OBSERVATIONS.c[c] for c in store.SAME_OBSERVATION),
    unique=True,
)

sa.Table(
    "feed_state",
    METADATA,
    sa.Column("url", sa.Text, primary_key=True),
    sa.Column("etag", sa.Text),
    sa.Column("last_modified", sa.Text),
    sa.Column("body_sha256", sa.Text),
    sa.Column("checked_at", sa.Text),
)
sa.Table(
    "observations_version",
    METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("n", sa.Integer, nullable=False),
)
sa.Table(
    "reference_seed",
    METADATA,
    sa.Column("id", sa.Integer, sa.CheckConstraint("id = 1"), primary_key=True, autoincrement=False),
    sa.Column("sha256", sa.Text, nullable=False),
)
sa.Table(
    "schema_versions",
    METADATA,
    sa.Column("component", sa.Text, primary_key=True),
    sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("applied_at", sa.Text),
)

_NOW = sa.text("CURRENT_TIMESTAMP")

# The bot's job store (bot/job_queue.py): every acked Slack request.
BOT_JOBS = sa.Table(
    "bot_jobs",
    METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("key", sa.Text, unique=True),
    sa.Column("team", sa.Text, nullable=False, server_default=""),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("args", sa.Text, nullable=False),
    sa.Column("state", sa.Text, nullable=False, server_default="queued"),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    sa.Column("not_before", sa.Float, nullable=False, server_default="0"),
    sa.Column("owner", sa.Text),
    sa.Column("lease_until", sa.Float, nullable=False, server_default="0"),
    sa.Column("last_error", sa.Text),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("finished_at", sa.Float),
    # Added by revision 0002: the ts of the message the job posted (a later run posts nothing).
    sa.Column("posted_ts", sa.Text),
    sa.Column("posted_channel", sa.Text),
)
sa.Index("bot_jobs_due", BOT_JOBS.c.state, BOT_JOBS.c.not_before)

sa.Table(
    "conversations",
    METADATA,
    sa.Column("key", sa.Text, primary_key=True),
    sa.Column("workspace", sa.Text, nullable=False, server_default=""),
    sa.Column("user", sa.Text, nullable=False, server_default=""),
    sa.Column("request_text", sa.Text, nullable=False),
    sa.Column("lang", sa.Text, nullable=False),
    sa.Column("summary", sa.Text, nullable=False),
    sa.Column("created_at", sa.Text, nullable=False, server_default=_NOW),
    # Added by revision 0009: the request and plan the thread's what-ifs moved it to (null: the first).
    sa.Column("thread_text", sa.Text),
    sa.Column("thread_summary", sa.Text),
    sa.Index("conversations_workspace", "workspace", "created_at"),
)
# Users' reply languages, per workspace and user (revision 0002 rekeys the older per-user table).
sa.Table(
    "user_locales",
    METADATA,
    sa.Column("workspace", sa.Text, primary_key=True, server_default=""),
    sa.Column("user", sa.Text, primary_key=True),
    sa.Column("lang", sa.Text, nullable=False),
    sa.Column("seen_at", sa.Text, nullable=False, server_default=_NOW),
)
sa.Table(
    "digest_subscriptions",
    METADATA,
    sa.Column("workspace", sa.Text, primary_key=True),
    sa.Column("channel", sa.Text, primary_key=True),
    sa.Column("post_time", sa.Text, nullable=False, server_default="09:00"),
    sa.Column("lang", sa.Text, nullable=False, server_default="en"),
    sa.Column("created_by", sa.Text, nullable=False, server_default=""),
    sa.Column("created_at", sa.Text, nullable=False, server_default=_NOW),
    sa.Column("tz", sa.Text, nullable=False, server_default=""),
)
sa.Table(
    "digest_deliveries",
    METADATA,
    sa.Column("workspace", sa.Text, primary_key=True),
    sa.Column("channel", sa.Text, primary_key=True),
    sa.Column("date", sa.Text, primary_key=True),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("claimed_at", sa.Float, nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    sa.Column("next_attempt_at", sa.Float, nullable=False, server_default="0"),
    sa.Column("ts", sa.Text),
    # Added by revision 0006: host:pid of the clock that posted it (NULL: found posted in the channel).
    sa.Column("posted_by", sa.Text),
)
# One row a day: which clock fetches the price feeds (several clocks on one store fetch them once),
# and what the fetch found wrong (the digests name failed feeds).
sa.Table(
    "feed_fetches",
    METADATA,
    sa.Column("date", sa.Text, primary_key=True),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("claimed_at", sa.Float, nullable=False),
    sa.Column("problems", sa.Text, nullable=False, server_default="[]"),
)
# Each long-running process's heartbeat (bot/heartbeats.py): times in the database's clock.
sa.Table(
    "process_heartbeats",
    METADATA,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("host", sa.Text, nullable=False),
    sa.Column("pid", sa.Integer, nullable=False),
    sa.Column("started_at", sa.Float, nullable=False),
    sa.Column("last_seen", sa.Float, nullable=False),
    sa.Column("every_s", sa.Float, nullable=False),
    sa.Column("problem", sa.Text, nullable=False, server_default=""),
    # A clock's digest rounds: when the last one ended (the database's clock; NULL before the
    # first), its pace, and what went wrong in it ('' when nothing). NULL pace: not a clock.
    sa.Column("round_at", sa.Float),
    sa.Column("round_every_s", sa.Float),
    sa.Column("round_problem", sa.Text),
)
sa.Table(
    "digest_now",
    METADATA,
    sa.Column("workspace", sa.Text, primary_key=True),
    sa.Column("channel", sa.Text, primary_key=True),
    sa.Column("at", sa.Float, nullable=False),
)
