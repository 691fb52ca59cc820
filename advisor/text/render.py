"""Every word the product shows comes from templates/, one template per message.

Code passes numbers; templates hold the wording in English, marked for translation with
Jinja's i18n extension (`{% trans %}`, `_()`). The Chinese lives in the message catalog
advisor/text/locale/zh/LC_MESSAGES/messages.po, compiled to messages.mo next to it (see
docs/TRANSLATING.md to refresh both). Each language has its own environment whose gettext
answers from that catalog. Short phrases (assumptions, errors, warnings) are macros in
phrases.j2.
"""

from __future__ import annotations

import gettext
import math
import re
import unicodedata
from functools import cache
from pathlib import Path

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


def width(text: str) -> int:
    """Columns `text` takes in a terminal: CJK characters take two (for underlines)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in str(text))


def money(value, currency: str) -> str:
    if value is None:
        return "?"
    symbol = {"CNY": "¥", "USD": "$"}.get(currency, currency + " ")
    return f"{symbol}{num(value, 3)}"


def amount(value, currency: str) -> str:
    """A sum a job pays (not a rate): under one yuan or dollar it is '<¥1', not '¥0.139' of storage,
    a precision no budget is kept to; from one unit up as `money`."""
    if value is not None and 0 < value < 1:
        return "<" + money(1, currency)
    return money(value, currency)


def pct(value, digits: int = 0) -> str:
    return "?" if value is None else f"{value * 100:.{digits}f}%"


LANGUAGES = ("en", "zh")
# Compiled catalogs live inside the package, so an installed wheel carries them.
LOCALE_DIR = Path(__file__).resolve().parent / "locale"


def translations(lang: str) -> gettext.NullTranslations:
    """The message catalog of `lang`; English is the msgids themselves."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {LANGUAGES}, not {lang!r}")
    if lang == "en":
        return gettext.NullTranslations()
    # No fallback: a missing catalog must fail loudly, not answer a Chinese reader in English.
    return gettext.translation("messages", str(LOCALE_DIR), languages=[lang])


@cache
def environment(lang: str) -> Environment:
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
        extensions=["jinja2.ext.i18n"],
    )
    env.install_gettext_translations(translations(lang), newstyle=True)
    env.filters.update(num=num, big=big, money=money, amount=amount, pct=pct, sci=sci, width=width)
    # Formatters that differ by language (big: 1.4T or 1.4万亿) read it from here.
    env.globals["lang"] = lang
    # Notes (assumptions, warnings, suggestions) are kept as codes and worded here.
    env.filters["worded"] = lambda note: word(lang, note)
    # A price's provider: a vendor's name as it is, the data's generic words in the reader's language.
    env.filters["provider"] = lambda name: phrase(lang, "provider_name", name)
    env.filters["region"] = lambda name: phrase(lang, "region_name", name)
    # A code with no wording fails loudly: a reader must never see the bare code.
    env.globals.update(unworded=unworded, pick=pick)
    return env


class UnwordedCode(LookupError):
    """A message code (or one of its values) that no template words."""


def unworded(macro: str, code) -> str:
    raise UnwordedCode(f"no wording for {macro} code {code!r} (templates/phrases.j2 or checks.j2)")


def pick(wording: dict, key, macro: str) -> str:
    """`wording[key]`, or UnwordedCode when the template has no wording for that key."""
    if key not in wording:
        unworded(macro, key)
    return wording[key]


def render(name: str, lang: str, **context) -> str:
    """Template `name` (e.g. "answer.txt.j2") worded in `lang` ("en" or "zh")."""
    env = environment(lang)
    text = env.get_template(name).render(**context).strip()
    # Optional parts leave runs of blank lines behind: one blank line separates sections.
    return _spaced(lang, re.sub(r"\n\s*\n(\s*\n)+", "\n\n", text))


# Sentences a template strings together are joined with a space, which Chinese does not put after
# its full-width stops ("的报价。 租金按").
_AFTER_ZH_STOP = re.compile(r"([。！？；])[ \t]+(?=\S)")


# A space a template puts around a value ("按 %(vendor)s 的报价") is Chinese typography beside a
# Latin name and a gap beside a Chinese one ("按 某云 的报价"); commands in `code` keep theirs.
_BETWEEN_HAN = re.compile(r"(?<=[\u4e00-\u9fff]) (?=[\u4e00-\u9fff])")
_CODE = re.compile(r"(`[^`\n]*`)")


def _spaced(lang: str, text: str) -> str:
    if lang != "zh":
        return text
    text = _AFTER_ZH_STOP.sub(r"\1", text)
    return "".join(p if p.startswith("`") else _BETWEEN_HAN.sub("", p) for p in _CODE.split(text))


def word(lang: str, note) -> str:
    """A Note (advisor/request/model.py: kind, code, params) worded in `lang`."""
    return phrase(lang, note.kind, note.code, **note.params)


def phrase(lang: str, macro: str, *args, file: str = "phrases", **kwargs) -> str:
    """One short phrase in `lang`, a macro of templates/<file>.j2 (phrases by default)."""
    env = environment(lang)
    module = env.get_template(f"{file}.j2").module
    return _spaced(lang, str(getattr(module, macro)(*args, **kwargs)).strip())
