"""Where the shipped data/ and templates/ folders are.

An installed wheel carries them inside the package (advisor/_data, advisor/_templates, see
pyproject.toml); a source checkout or editable install reads the repo's top-level folders.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PKG = Path(__file__).resolve().parent


def _first_existing(*candidates: Path) -> Path:
    for path in candidates:
        if path.is_dir():
            return path
    raise FileNotFoundError(f"none of {', '.join(map(str, candidates))} exists")


@cache
def data_dir() -> Path:
    return _first_existing(_PKG / "_data", _PKG.parent / "data")


@cache
def templates_dir() -> Path:
    return _first_existing(_PKG / "_templates", _PKG.parent / "templates")
