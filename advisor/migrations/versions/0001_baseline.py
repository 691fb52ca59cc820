"""Every table as it stood before Alembic.

On SQLite the price store's sqlite-utils migrations 1-18 run first (advisor/market/store.py), so
a file an earlier release made is upgraded in place with its rows, and any table or column an
older file lacks is added. On Postgres every table is created, and the price store's legacy
versions are recorded as applied (the tables are made in their final shape).

Revision ID: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    from advisor import db as dbmod
    from advisor import schema
    from advisor.market import store

    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        import sqlite_utils

        dbmod.migrate_legacy(sqlite_utils.Database(bind.connection.dbapi_connection), store.COMPONENT, store.MIGRATIONS)
    _create_missing(bind, schema.METADATA)
    if bind.dialect.name != "sqlite":
        for version, _ in store.MIGRATIONS:
            bind.exec_driver_sql(
                "INSERT INTO schema_versions (component, version, applied_at) VALUES (%(c)s, %(v)s, now()::text)"
                " ON CONFLICT DO NOTHING",
                {"c": store.COMPONENT, "v": version},
            )
    bind.exec_driver_sql("INSERT INTO observations_version (id, n) VALUES (1, 0) ON CONFLICT DO NOTHING")


def _create_missing(bind, metadata: sa.MetaData) -> None:
    """Tables that are not there are created; columns an older table lacks are added with their
    defaults (the bot's tables, each of which older releases migrated by itself)."""
    have = set(sa.inspect(bind).get_table_names())
    metadata.create_all(bind, tables=[t for t in metadata.sorted_tables if t.name not in have])
    for table in metadata.sorted_tables:
        if table.name not in have:
            continue
        columns = {c["name"] for c in sa.inspect(bind).get_columns(table.name)}
        for column in table.columns:
            if column.name in columns:
                continue
            ddl = sa.schema.CreateColumn(column).compile(dialect=bind.dialect)
            bind.exec_driver_sql(f"ALTER TABLE {table.name} ADD COLUMN {ddl}")
