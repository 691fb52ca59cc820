"""Reading one cell of a price file: a date, a number, a whole count, a yes/no flag, a word
from a list. Each
raises ValueError with the column and the text it could not read (the importer adds the file
and line)."""

from __future__ import annotations

import math
import re
from datetime import date as Date

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def read_date(text: str, as_of: str | None, what: str = "date") -> str:
    text = text.strip() or (as_of or "")
    if not text:
        raise ValueError(f"no {what} (give a date column or --as-of)")
    if not _DATE.match(text):
        raise ValueError(f"{what} {text!r} is not a date like 2024-02-05")
    try:
        Date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{what} {text!r} is not a real date") from None
    return text


def number(text: str | None, column: str, *, empty_ok: bool, positive: bool = False) -> float | None:
    """A finite, non-negative number (positive when asked); empty -> None when `empty_ok`."""
    text = (text or "").strip()
    if not text:
        if empty_ok:
            return None
        raise ValueError(f"{column} is empty")
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{column} {text!r} is not a number") from None
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise ValueError(f"{column} {text!r} must be a {'positive' if positive else 'non-negative'} number")
    return value


def count(text: str, column: str, minimum: int = 1) -> int:
    value = number(text, column, empty_ok=False)
    if value != int(value) or value < minimum:
        raise ValueError(f"{column} {text.strip()!r} must be a whole number of at least {minimum}")
    return int(value)


def flag(text: str, column: str) -> int:
    t = text.strip().lower()
    if t in ("", "0", "no", "false", "n"):
        return 0
    if t in ("1", "yes", "true", "y"):
        return 1
    raise ValueError(f"{column} {text.strip()!r} must be yes or no")


def choice(text: str, column: str, allowed: tuple[str, ...]) -> str:
    """One of `allowed` (any case), or '' for an empty cell."""
    word = text.strip().lower()
    if word and word not in allowed:
        raise ValueError(f"{column} {word!r} must be one of {', '.join(allowed)}")
    return word
