"""The team's time zone: GPU_ADVISOR_TZ (an IANA name such as America/Los_Angeles), Beijing's
unless set. Deadlines said as dates are counted from today there, and a digest's day and time are
its. Reading it never raises: a name the zone database lacks is refused before any command runs
(advisor/cli.py env_problem), with what to write instead."""

from __future__ import annotations

import os
import zoneinfo

DEFAULT = "Asia/Shanghai"


def name(environ=None) -> str:
    return ((os.environ if environ is None else environ).get("GPU_ADVISOR_TZ") or "").strip() or DEFAULT


def unknown(environ=None) -> str | None:
    """The name GPU_ADVISOR_TZ gives when the zone database does not know it; None when it does."""
    try:
        zoneinfo.ZoneInfo(name(environ))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return name(environ)
    return None


def team_tz() -> zoneinfo.ZoneInfo:
    """The zone, or Beijing's where the name is unknown (the command is refused before it runs)."""
    return zoneinfo.ZoneInfo(DEFAULT if unknown() else name())
