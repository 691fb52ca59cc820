"""Logging that never shows a secret: tokens and signing secrets are masked in every record."""

from __future__ import annotations

import logging
import os
import re

from gunicorn import glogging

_TOKEN = re.compile(r"\b(xox[abposr]|xapp)-[A-Za-z0-9-]+")


class RedactSecrets(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = _TOKEN.sub(r"\1-[redacted]", message)
        for name in ("SLACK_SIGNING_SECRET", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_CLIENT_SECRET"):
            secret = os.environ.get(name)
            if secret and len(secret) >= 8:
                masked = masked.replace(secret, "[redacted]")
        if masked != message:
            record.msg, record.args = masked, ()
        return True


class DropClientTokenWarning(logging.Filter):
    """Bolt reads SLACK_BOT_TOKEN itself and, given our client as well (which carries that token,
    its base URL and retry handlers: bot/clients.py), warns at every worker's boot that "`token`
    will be unused". The token is used, through the client: the warning only misled operators."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.name.startswith("slack_bolt") and "`token` will be unused" in record.getMessage())


# Libraries that speak below WARNING about their own workings (bm25s announces every index it
# builds, alembic each migration step, matplotlib its font cache): quiet unless LOG_LEVEL asks
# for DEBUG.
QUIET = ("alembic", "bm25s", "jieba", "matplotlib", "PIL", "urllib3")


def line_format() -> str:
    """Each line names the host and process that wrote it: with several hosts on one store, the
    logs gathered in one place say which host acked, planned or posted."""
    host = os.uname().nodename.replace("%", "%%")
    return f"%(asctime)s {host}[%(process)d] %(levelname)s %(name)s: %(message)s"


class GunicornLogger(glogging.Logger):
    """gunicorn's own lines (worker boots and exits, timeouts) in the same format and through the
    same secret filter as ours, where its default names no host."""

    datefmt = None

    def setup(self, cfg) -> None:
        self.error_fmt = line_format()
        super().setup(cfg)
        for handler in self.error_log.handlers:
            handler.addFilter(RedactSecrets())


def setup(level: str | None = None) -> None:
    """One handler on the root logger, at LOG_LEVEL (INFO): the handler itself filters by level,
    so a library that sets its own logger to DEBUG (bm25s does, at import) cannot print below it."""
    level = (level or os.environ.get("LOG_LEVEL") or "INFO").upper()
    handler = logging.StreamHandler()
    handler.addFilter(RedactSecrets())
    handler.addFilter(DropClientTokenWarning())
    handler.setFormatter(logging.Formatter(line_format()))
    handler.setLevel(level)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    if root.getEffectiveLevel() > logging.DEBUG:
        for name in QUIET:
            logging.getLogger(name).setLevel(logging.WARNING)
