"""reference_seed.newest: the newest as-of date of the reference prices seeded, so a host of an
older release (a rolling upgrade, several hosts) never seeds its older file over a newer one.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    if "newest" not in {c["name"] for c in sa.inspect(bind).get_columns("reference_seed")}:
        bind.exec_driver_sql("ALTER TABLE reference_seed ADD COLUMN newest TEXT NOT NULL DEFAULT ''")
