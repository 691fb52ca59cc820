"""feed_fetches: the daily fetch of the price feeds, once per day across every clock (several
hosts may each run `gpu-advisor clock`).

Revision ID: 0005
Revises: 0004
"""

from alembic import op

from advisor import schema

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    schema.METADATA.tables["feed_fetches"].create(op.get_bind(), checkfirst=True)
