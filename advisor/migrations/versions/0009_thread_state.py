"""conversations.thread_text, thread_summary: the plan a thread has come to after the what-ifs its
team asked for, so the next message is answered against it; null while the thread is at its
first answer (request_text, summary), which the card's buttons keep using (bot/conversations.py).

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    # a new store made its tables from the current schema (advisor/schema.py), which has them already
    have = {c["name"] for c in sa.inspect(bind).get_columns("conversations")}
    for column in (sa.Column("thread_text", sa.Text), sa.Column("thread_summary", sa.Text)):
        if column.name not in have:
            op.add_column("conversations", column)
