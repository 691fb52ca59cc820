"""process_heartbeats: each long-running process (serve's web workers, work, clock, socket)
writes its row every few seconds, so `gpu-advisor health` and /healthz can say which are live
(bot/heartbeats.py).

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from advisor import schema

    bind = op.get_bind()
    if not sa.inspect(bind).has_table("process_heartbeats"):
        schema.METADATA.tables["process_heartbeats"].create(bind)
