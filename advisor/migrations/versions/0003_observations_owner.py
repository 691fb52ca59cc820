"""An index on observations.owner: whether a workspace recorded quotes of its own is one look-up
(a workspace without any reads the one shared price book, advisor/market/prices.py).

Revision ID: 0003
Revises: 0002
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.get_bind().exec_driver_sql("CREATE INDEX IF NOT EXISTS observations_owner ON observations (owner)")
