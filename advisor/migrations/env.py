"""Alembic's environment: the connection comes from advisor/migrations upgrade(), already in
the transaction (and, on Postgres, under the advisory lock) it runs in."""

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None)
context.run_migrations()
