"""What the long-running processes log: our own lines at INFO, third-party chatter kept below
it (bm25s set its own logger to DEBUG and announced every index it built; alembic each
migration step). Real processes, their stderr read back."""

import os
import subprocess
import sys

from conftest import ROOT

_SCRIPT = """
import logging
from bot import logs
logs.setup()
from advisor.market.store import open_store
open_store().close()  # a fresh file: alembic migrates it
from advisor.knowledge import faq
faq.answer("why nvlink?")  # bm25s builds its index
logging.getLogger("gpu_advisor.bot").info("our own line")
"""


def _run(tmp_path, **env):
    full = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "LOG_LEVEL")}
    full |= {"PYTHONPATH": str(ROOT), "GPU_ADVISOR_DB": str(tmp_path / "logs.db"), **env}
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT], env=full, capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_third_party_loggers_are_quiet_at_the_default_level(tmp_path):
    err = _run(tmp_path)
    assert "INFO gpu_advisor.bot: our own line" in err
    assert "bm25s" not in err and "alembic" not in err and " DEBUG " not in err, err


def test_log_level_debug_still_shows_them(tmp_path):
    err = _run(tmp_path, LOG_LEVEL="debug")
    assert "DEBUG bm25s: Building index" in err
    assert "INFO alembic" in err
    assert "our own line" in err
