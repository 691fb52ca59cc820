"""The Chinese catalog keeps up with the templates: every message the templates mark has a
reviewed translation with the same placeholders, and the committed .mo is the .po compiled."""

import io
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

import advisor
from advisor.resources import templates_dir
from advisor.text import render

PO = render.LOCALE_DIR / "zh" / "LC_MESSAGES" / "messages.po"
MO = PO.with_suffix(".mo")
# The same options as babel.cfg and render.environment().
OPTIONS = {"extensions": "jinja2.ext.i18n", "trim_blocks": "true", "lstrip_blocks": "true", "newstyle_gettext": "true"}
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _catalog():
    with PO.open("rb") as f:
        return read_po(f)


def _forms(text) -> tuple[str, ...]:
    """A message's forms: one, or a plural message's (ngettext) singular and plural; Chinese
    has one plural form (nplurals=1)."""
    return tuple(text) if isinstance(text, (list, tuple)) else (text,)


def _extracted() -> dict[tuple[str, str | None], str]:
    """(msgid, context) -> where it is first used, over every template."""
    found = {}
    for filename, line, message, _comments, context in extract_from_dir(
        str(templates_dir()), method_map=[("**.j2", "jinja2")], options_map={"**.j2": OPTIONS}
    ):
        found.setdefault((message, context), f"{filename}:{line}")
    return found


def test_every_template_message_has_a_reviewed_chinese_translation():
    catalog = _catalog()
    extracted = _extracted()
    assert extracted, "no message extracted: is the i18n extension still configured?"
    missing = [
        f"{where}: {msgid!r}"
        for (msgid, context), where in extracted.items()
        if not (catalog.get(msgid, context) and all(_forms(catalog.get(msgid, context).string)))
    ]
    fuzzy = [m.id for m in catalog if m.id and m.fuzzy]
    assert not missing, "untranslated (run the commands in docs/TRANSLATING.md):\n" + "\n".join(missing)
    assert not fuzzy, f"fuzzy translations to review: {fuzzy}"


def test_catalog_holds_no_message_the_templates_dropped():
    extracted = _extracted()
    stale = [m.id for m in _catalog() if m.id and (m.id, m.context) not in extracted]
    assert not stale, f"obsolete messages (run pybabel update): {stale}"


def test_translations_keep_the_placeholders_of_their_message():
    for message in _catalog():
        if not message.id:
            continue
        wanted = [set(PLACEHOLDER.findall(form)) for form in _forms(message.id)]
        for form in _forms(message.string):
            assert set(PLACEHOLDER.findall(form)) in wanted, message.id
            # Every literal percent sign stays escaped, or formatting fails at render time.
            assert form.replace("%%", "").count("%") == len(PLACEHOLDER.findall(form)), message.id


def test_committed_mo_is_the_po_compiled():
    fresh = io.BytesIO()
    write_mo(fresh, _catalog())
    assert MO.read_bytes() == fresh.getvalue(), "messages.mo is stale: pybabel compile (docs/TRANSLATING.md)"


def test_one_template_per_message():
    per_language = [p.name for p in templates_dir().rglob("*.j2") if re.search(r"\.(en|zh)\.", p.name)]
    assert not per_language


def test_catalogs_ship_inside_the_package():
    """The wheel carries the advisor package, so an installed copy answers in Chinese from any
    directory."""
    assert MO.is_file()
    assert MO.resolve().is_relative_to(Path(advisor.__file__).resolve().parent)


@pytest.mark.parametrize(("lang", "heading"), [("en", "Before you sign"), ("zh", "签约前检查")])
def test_render_speaks_the_language_asked(lang, heading):
    assert render.render("checklist.txt.j2", lang).splitlines()[0] == heading


def test_unknown_language_is_refused():
    with pytest.raises(ValueError):
        render.render("checklist.txt.j2", "fr")


def test_assumptions_and_warnings_are_codes_worded_in_the_readers_language(book):
    """The parser and the planner keep what they tell the user as codes with values; the JSON
    words them in the request's language (CONTRACT section 4) and keeps the codes beside them."""
    from advisor.planning.advice import advise

    en = advise("70B full-finetune 1TB 3d budget 1000", book=book).to_json()
    zh = advise("70B 全量微调 1TB 3天 预算1000", book=book).to_json()
    for out in (en, zh):
        codes = out["request"]["assumption_codes"]
        assert len(codes) == len(out["request"]["assumptions"]) > 0
        assert {"kind", "code", "params"} <= set(codes[0])
        assert len(out["warning_codes"]) == len(out["warnings"]) > 0
    assert "bytes_per_token" in [c["code"] for c in en["request"]["assumption_codes"]]
    cjk = re.compile(r"[\u4e00-\u9fff]")
    # Every sentence a Chinese reader gets is Chinese (names, units and commands aside).
    assert all(cjk.search(text) for text in zh["request"]["assumptions"] + zh["warnings"])
    # A source's own name in brackets (market survey (中国经营报)) may be Chinese in English text.
    named = re.compile(r"\([^)]*\)")
    assert not any(cjk.search(named.sub("", text)) for text in en["request"]["assumptions"] + en["warnings"])


def test_no_message_hedges_its_plural():
    # "3 month(s)", "1 server(s)": counted nouns go through ngettext (TRANSLATING.md).
    hedged = [
        f"{where}: {msgid!r}"
        for (msgid, _), where in _extracted().items()
        for form in _forms(msgid)
        if re.search(r"[a-z]\(s\)", form)
    ]
    assert not hedged


@pytest.mark.parametrize(("nodes", "words"), [(1, "on 1 server in one order"), (12, "on 12 servers in one order")])
def test_counted_nouns_agree_with_their_number(nodes, words):
    from advisor.request.model import Note

    note = Note(
        kind="warning",
        code="rent_estimated",
        params={"count": 8 * nodes, "gpu": "H800", "nodes": nodes, "basis_gpu": "H800"},
    )
    assert words in render.word("en", note)
    assert f"（{nodes} 台服务器）" in render.word("zh", note)


def test_an_english_question_with_a_sum_in_wan_is_answered_in_english(cli):
    # the FAQ's own test (any Chinese character) had answered "is renting better than buying with
    # 200万?" in Chinese; the request's reading (an amount in 万 is no Chinese) decides
    import json

    out = json.loads(cli("ask", "is renting better than buying with 200万?", "--json").stdout)
    assert out["faq"]["topic"] == "rent_vs_buy" and out["faq"]["answer"].startswith("Rent when")
