"""Phrases generated from the table of the request's fields (advisor/request/fields.py): every
plain spelling of every key, choice and unit of a row, in its language, set in a frame that
makes it a request, with the value the parser must read from it. tests/test_fields.py checks
each reads as its value; tests/test_canonical.py builds requests of them, so a new row or word
is covered without a test naming it."""

from __future__ import annotations

import re

from advisor.request.fields import FIELDS, Field

# A spelling a person types as it stands (the first of each language must be one).
PLAIN = re.compile(r"[\w\s\-+.¥$%]+")

# How a row's words make a phrase: {w} the spelling; the frame's own words are fixed.
CHOICE_FRAMES = {
    "lora_targets": ("lora {k} {w}", None),
    "offload": ("{k} {w}", "{k}{w}"),
    "recompute": ("{k} {w}", "{w}{k}"),
    "recompute_modules": ("{k} {w}", "{k}{w}"),
    "grad_reduce": ("{k} {w}", "{k}{w}"),
    "moments": ("{k} {w}", "{k}{w}"),
    "attention": ("{k} {w}", "{k}{w}"),
    "dispatcher": ("{k} {w}", "{k}{w}"),
    "lang": ("{k} {w}", None),
    "data_language": ("1TB {w} data", "1TB {w}数据"),
    "moe": ("{w} 671B active 37B", "{w} 671B 激活37B"),
    "city": ("{w}", "{w}"),
}
UNIT_FRAMES = {
    "deadline_days": ("3{w}", "3{w}", lambda u: 3 * u),
    "epochs": ("1TB 3 {w}", "1TB 3{w}", lambda u: 3.0),
    "gpu_count": ("8 {w}", "8{w}", lambda u: 8),
    "nodes": ("2 {w} of H800", "2{w} H800", lambda u: 2),
    "lease_term_months": ("2-{w} lease", "2{w}起租", lambda u: 2 * u),
    "own_use_months": ("buy keep it busy 2 {w}", "购买 用2{w}", lambda u: 2 * u),
    "budget": ("budget 5000 {w}", "预算5000{w}", lambda u: (5000.0, u)),
}
KEY_FRAMES = {
    "seq_len": ("{w} 2048", "{w}2048", 2048),
    "micro_batch": ("{w} 2", "{w}2", 2),
    "global_batch": ("{w} 256", "{w}256", 256),
    "grad_accum": ("{w} 4", "{w}4", 4),
    "lora_rank": ("lora {w}=8", "lora {w}8", 8),
    "tp": ("{w} 2", "{w}2", 2),
    "pp": ("{w} 2", "{w}2", 2),
    "ep": ("{w} 2", "{w}2", 2),
    "vpp": ("{w} 2", "{w}2", 2),
    "cp": ("{w} 2", "{w}2", 2),
    "active_params_b": ("moe 70B {w} 7B", "混合专家 70B {w}7B", 7.0),
}


def _plain(spellings) -> list[str]:
    return [s for s in spellings if PLAIN.fullmatch(s)]


def _data_units(row: Field, lang: str) -> list[tuple[str, tuple]]:
    """The data's units: 3 of each, bytes in Chinese with 数据 after (a bare `T` is a size)."""
    out = []
    for unit in row.units:
        kind, size = unit.value
        for w in _plain(unit.spellings(lang)):
            text = f"3{w}数据" if lang == "zh" and kind == "bytes" else f"3{w}" if kind == "bytes" else f"3 {w}"
            out.append((text, (3 * size, kind)))
    return out


def phrases(row: Field, lang: str) -> list[tuple[str, object]]:
    """(phrase, the value the parser reads) for every plain word of `row` in `lang`."""
    out: list[tuple[str, object]] = []
    zh = lang == "zh"
    key = (row.keys.spellings(lang) or row.keys.en or ("",))[0]
    if row.choices:
        frame = CHOICE_FRAMES.get(row.name, ("{w}", "{w}"))[1 if zh else 0]
        if frame is not None:
            for choice in row.choices:
                out += [(frame.format(k=key, w=w), choice.value) for w in _plain(choice.spellings(lang))]
    if row.name == "data":
        out += _data_units(row, lang)
    elif row.name in UNIT_FRAMES:
        en, cn, value = UNIT_FRAMES[row.name]
        for unit in row.units:
            out += [((cn if zh else en).format(w=w), value(unit.value)) for w in _plain(unit.spellings(lang))]
    if row.name in KEY_FRAMES:
        en, cn, value = KEY_FRAMES[row.name]
        frame = cn if zh else en
        if frame is not None:
            out += [(frame.format(w=w), value) for w in _plain(row.keys.spellings(lang))]
    return out


def all_phrases(lang: str) -> list[tuple[str, str, object]]:
    """(field, phrase, value) over the whole table in `lang`."""
    return [(row.name, text, value) for row in FIELDS for text, value in phrases(row, lang)]
