"""process_heartbeats.round_at, round_every_s, round_problem: a clock's last digest round (when
it ended, its interval, what went wrong), so `gpu-advisor health` and /healthz tell a clock
that beats but no longer posts from one that works (bot/heartbeats.py).

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    # 0007 made the table from the current schema (advisor/schema.py), which has them already
    have = {c["name"] for c in sa.inspect(bind).get_columns("process_heartbeats")}
    for column in (
        sa.Column("round_at", sa.Float),
        sa.Column("round_every_s", sa.Float),
        sa.Column("round_problem", sa.Text),
    ):
        if column.name not in have:
            op.add_column("process_heartbeats", column)
