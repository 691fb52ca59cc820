"""feed_fetches: the clock that fetches a day's price feeds claims the day, so that several
clocks on one store fetch them once (bot/digests.py `clock`).

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from advisor import schema

    bind = op.get_bind()
    if not sa.inspect(bind).has_table("feed_fetches"):
        schema.METADATA.tables["feed_fetches"].create(bind)
