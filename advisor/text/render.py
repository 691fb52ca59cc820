"""The one Jinja environment: every word the product shows comes from templates/.

Code passes numbers; templates hold wording, in English (`*.en.*`) and Chinese (`*.zh.*`).
Short phrases (assumptions, errors, warnings) are macros in `phrases.<lang>.j2`.
"""

from __future__ import annotations

import math
import re
from functools import cache

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from advisor.resources import templates_dir


def num(value, digits: int = 3) -> str:
    """A number with `digits` significant figures and thousands separators; '?' for None."""
    if value is None:
        return "?"
    if isinstance(value, bool):
        return str(value)
    value = float(value)
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    rounded = round(value, decimals)
    if decimals == 0:
        return f"{int(round(rounded)):,}"
    return f"{rounded:,.{decimals}f}".rstrip("0").rstrip(".")


def big(value, lang: str = "en") -> str:
    """1.4e12 -> '1.4T' (en) or '1.4万亿' (zh)."""
    if value is None:
        return "?"
    value = float(value)
    if lang == "zh":
        for size, suffix in ((1e12, "万亿"), (1e8, "亿"), (1e4, "万")):
            if abs(value) >= size:
                return num(value / size) + suffix
        return num(value)
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return num(value / size) + suffix
    return num(value)


def sci(value) -> str:
    """5.2e21 -> '5.2e21'."""
    return "?" if value is None else f"{float(value):.2g}".replace("e+", "e")


def money(value, currency: str) -> str:
    if value is None:
        return "?"
    symbol = {"CNY": "¥", "USD": "$"}.get(currency, currency + " ")
    return f"{symbol}{num(value, 3)}"


def pct(value, digits: int = 0) -> str:
    return "?" if value is None else f"{value * 100:.{digits}f}%"


@cache
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(templates_dir())),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,
        # Templates ship inside the package and do not change while a process runs: no stat()
        # of the file on every render.
        auto_reload=False,
    )
    env.filters.update(num=num, big=big, money=money, pct=pct, sci=sci)
    return env


def render(name: str, **context) -> str:
    text = environment().get_template(name).render(**context).strip()
    # Optional parts leave runs of blank lines behind: one blank line separates sections.
    return re.sub(r"\n\s*\n(\s*\n)+", "\n\n", text)


def phrase(lang: str, macro: str, *args, file: str = "phrases", **kwargs) -> str:
    """One short phrase, a macro of templates/<file>.<lang>.j2 (phrases by default)."""
    module = environment().get_template(f"{file}.{lang}.j2").module
    return str(getattr(module, macro)(*args, **kwargs)).strip()
