"""digest_deliveries.posted_by: the host and process (host:pid) of the clock that posted a
channel's digest, so an operator running several clocks can tell which one did.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    if "posted_by" not in {c["name"] for c in sa.inspect(bind).get_columns("digest_deliveries")}:
        bind.exec_driver_sql("ALTER TABLE digest_deliveries ADD COLUMN posted_by TEXT")
