import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def cli(tmp_path):
    """Run the real `gpu-advisor` entry point in a fresh process, in an empty directory."""

    def run(*args, env=None):
        full_env = dict(os.environ)
        full_env["GPU_ADVISOR_DB"] = str(tmp_path / "test.db")
        full_env.setdefault("PYTHONPATH", str(ROOT))
        full_env.update(env or {})
        return subprocess.run(
            [sys.executable, "-m", "advisor.cli", *args],
            capture_output=True, text=True, cwd=tmp_path, env=full_env, timeout=120,
        )

    return run
