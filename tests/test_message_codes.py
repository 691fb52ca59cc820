"""Every message code the code can emit has its wording, and no wording is left for a code
nothing emits.

The codes are read from the source (a Note, a refusal, a checklist item, a suggestion, a layout
refusal's reason, a field named in a refusal) and from data/gpus.toml (availability); the
wording from the branches of templates/phrases.j2 and checks.j2. A template asked for a code
it lacks raises (advisor/text/render.py `unworded`), so a reader never sees the bare code; every
msgid of a branch has its Chinese (tests/test_i18n.py), so a branch here is worded in both
languages. Rendering one code in both languages checks that the whole path works.
"""

import ast
import re
import tomllib
from pathlib import Path

import pytest

from advisor.planning.advice import FREE_ACCESS
from advisor.request.fields import BY_NAME, FIELDS, HELP, bounds
from advisor.request.model import Note
from advisor.request.parser import RequestError
from advisor.resources import data_dir, templates_dir
from advisor.text.render import UnwordedCode, num, pct, phrase, word

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*(ROOT / "advisor").rglob("*.py"), *(ROOT / "bot").rglob("*.py")])


def _literals(node) -> list[str] | None:
    """The strings an expression can be: a literal, or either side of `a if c else b`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        body, orelse = _literals(node.body), _literals(node.orelse)
        return body + orelse if body is not None and orelse is not None else None
    return None


def _arg(call: ast.Call, position: int, keyword: str):
    for k in call.keywords:
        if k.arg == keyword:
            return k.value
    return call.args[position] if len(call.args) > position else None


def _name(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _emitted() -> tuple[set[tuple[str, str]], list[str]]:
    """(macro, code) for every code the source emits, and the emitting calls whose code is not
    a literal (a pass-through helper's parameter excepted)."""
    found: set[tuple[str, str]] = set()
    opaque: list[str] = []

    def visit(node, rel: str, params: frozenset[str]) -> None:
        if isinstance(node, (ast.FunctionDef, ast.Lambda)):
            params = params | {a.arg for a in node.args.args + node.args.kwonlyargs}
        if isinstance(node, ast.FunctionDef) and node.name in ("layout_problem", "_hardware_problem"):
            for ret in [n for n in ast.walk(node) if isinstance(n, ast.Return)]:
                if isinstance(ret.value, ast.Tuple):
                    found.add(("layout", ret.value.elts[0].value))
        if isinstance(node, ast.Call):
            for macro, code in _codes(rel, node):
                values = _literals(code) if code is not None else None
                if values is not None:
                    found.update((macro, v) for v in values)
                elif not (isinstance(code, ast.Name) and code.id in params or _passed_on(code)):
                    opaque.append(f"{rel}:{node.lineno} {macro}")
        for child in ast.iter_child_nodes(node):
            visit(child, rel, params)

    for path in SOURCES:
        rel = path.relative_to(ROOT).as_posix()
        visit(ast.parse(path.read_text(), rel), rel, frozenset())
    return found, sorted(set(opaque))


def _codes(rel: str, call: ast.Call):
    """(macro, the code's expression) of one call, if it emits a code."""
    name = _name(call)
    if name == "Note":
        kind = _arg(call, 0, "kind")
        if isinstance(kind, ast.Constant):
            yield kind.value, _arg(call, 1, "code")
    elif name == "note" and rel == "advisor/request/parser.py":
        yield "assumption", _arg(call, 0, "name")
    elif name == "_note" and rel == "advisor/planning/advice.py":
        kind = _arg(call, 0, "kind")
        if isinstance(kind, ast.Constant):
            yield kind.value, _arg(call, 1, "code")
    elif name == "_note" and rel == "advisor/planning/costs.py":
        yield "warning", _arg(call, 0, "code")
    elif name == "RequestError" or (name == "fail" and rel == "advisor/request/parser.py"):
        yield "request_error", _arg(call, 0, "kind")
        kind = _literals(_arg(call, 0, "kind")) or []
        if "bad_value" in kind:
            yield "bad_value", _arg(call, 99, "what")
        reason = _arg(call, 99, "reason")
        if "layout" in kind and isinstance(reason, ast.Constant):
            yield "layout", reason  # a refusal the planner raises itself (layout_problem's are read above)
        if "conflict" in kind:
            yield "field_name", _arg(call, 99, "field")
    elif name == "add" and rel in ("advisor/planning/checklist.py", "advisor/market/quotes.py"):
        yield "check", _arg(call, 0, "code")
    elif name == "Suggestion":
        change = _arg(call, 0, "change")
        # `variants` holds the changes tried (read below); the loop over it passes them on
        if not (isinstance(change, ast.Name) and change.id == "change"):
            yield "suggestion", change
    elif name == "append" and rel == "advisor/planning/planner.py" and _named(call.func.value, "variants"):
        yield "suggestion", call.args[0].elts[0]


def _passed_on(code) -> bool:
    """A suggestion's `change` or a field's `limit`: codes checked where they are made (the
    suggestions here, the limits in advisor/request/fields.py)."""
    return isinstance(code, ast.Attribute) and code.attr in ("change", "limit")


def _named(node, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _parser_fields() -> set[str]:
    """Fields the parser sets by name: `self.set("seq_len", ...)`, `s("city", ...)`."""
    tree = ast.parse((ROOT / "advisor/request/parser.py").read_text())
    return {
        c.args[0].value
        for c in ast.walk(tree)
        if isinstance(c, ast.Call)
        and _name(c) in ("set", "s")
        and c.args
        and isinstance(c.args[0], ast.Constant)
        and isinstance(c.args[0].value, str)
    }


def _codes_and_fields() -> tuple[set[tuple[str, str]], list[str]]:
    """Every code, plus the field names and limits the table says a refusal can name."""
    emitted, opaque = _emitted()
    emitted |= {("field_name", f.name) for f in FIELDS if not f.flag}
    emitted |= {("bad_value", f.limit) for f in FIELDS if f.limit}
    emitted |= {("field_label", f.name) for f in FIELDS}
    emitted |= {("choice", f"{f.name}.{c.value}") for f in FIELDS if f.worded for c in f.choices}
    if any(f.flag for f in FIELDS):  # a what-if's "pay as you go no → yes" (advisor/planning/followup.py)
        emitted |= {("choice", "flag.True"), ("choice", "flag.False")}
    emitted |= {("help_group", group) for group, _ in HELP}
    return emitted | _availability(), opaque


def _availability() -> set[tuple[str, str]]:
    gpus = tomllib.loads((data_dir() / "gpus.toml").read_text())["gpu"]
    codes = {g.get(k) for g in gpus for k in ("china_access", "global_access")} - {None, *FREE_ACCESS}
    return {("availability", c) for c in codes}


# A macro's branches: `name == "x"` (or kind, code, change, the layout reason r, access a),
# and the keys of a wording table passed to pick().
_MACROS = {
    "assumption": ("phrases", "name"),
    "request_error": ("phrases", "kind"),
    "layout": ("phrases", "r"),
    "warning": ("phrases", "kind"),
    "availability": ("phrases", "a"),
    "suggestion": ("phrases", "change"),
    "check": ("checks", "code"),
}


def _worded() -> set[tuple[str, str]]:
    out = set()
    phrases = (templates_dir() / "phrases.j2").read_text()
    checks = (templates_dir() / "checks.j2").read_text()
    for macro, (file, var) in _MACROS.items():
        text = checks if file == "checks" else _section(phrases, macro)
        out.update((macro, code) for code in re.findall(rf'\b{var} == "(\w+)"', text))
    for table, macro in re.findall(r'pick\((\{[^{}]*\}), [\w.]+, "(\w+)"\)', phrases):
        out.update((macro, key) for key in re.findall(r'"([\w.\-]+)": _\(', table))
    return out


def _section(phrases: str, macro: str) -> str:
    """The part of phrases.j2 that words `macro`'s codes (layout and availability are branches
    inside request_error and warning)."""
    start = {"layout": '{%- elif kind == "layout" %}', "availability": '{%- elif kind == "availability" %}'}.get(
        macro, "{% macro " + macro + "("
    )
    text = phrases[phrases.index(start) :]
    if macro in ("layout", "availability"):
        return text[: text.index("{%- elif kind ==", 1)]
    body = text[: text.index("{%- endmacro %}")]
    # the nested sections' codes belong to them, not to the macro around them
    for inner in ('{%- elif kind == "layout" %}', '{%- elif kind == "availability" %}'):
        if inner in body:
            head, rest = body.split(inner, 1)
            body = head + inner + rest[rest.index("{%- elif kind ==") :]
    return body


def test_every_emitted_code_has_its_wording():
    emitted, opaque = _codes_and_fields()
    assert not opaque, f"a code built at run time cannot be checked; pass a literal: {opaque}"
    assert len(emitted) > 100, "the scan found too few codes: has an emitter been renamed?"
    missing = sorted(emitted - _worded())
    assert not missing, f"codes with no wording in templates/phrases.j2 or checks.j2: {missing}"


def test_no_wording_is_left_for_a_code_nothing_emits():
    emitted, _ = _codes_and_fields()
    dead = sorted(_worded() - emitted)
    assert not dead, f"wording for codes nothing emits (remove it or emit it): {dead}"


def test_every_field_the_parser_sets_is_a_row_of_the_table():
    assert _parser_fields() - set(BY_NAME) == set()
    assert {f.name for f in FIELDS if f.limit} >= {"params_b", "deadline_days", "budget", "lease_term_months"}


def test_every_assumption_belongs_to_one_field_of_the_table():
    emitted = {code for macro, code in _emitted()[0] if macro == "assumption"}
    owners = [code for f in FIELDS for code in f.assumed]
    assert sorted(owners) == sorted(set(owners)), "a note belongs to one field"
    assert set(owners) == emitted


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_code_without_wording_raises_instead_of_showing_the_code(lang):
    for kind in ("assumption", "warning", "suggestion"):
        with pytest.raises(UnwordedCode):
            word(lang, Note(kind=kind, code="no_such_code", params={"count": None}))
    with pytest.raises(UnwordedCode):
        phrase(lang, "check", "no_such_code", file="checks")
    with pytest.raises(UnwordedCode):
        RequestError("no_such_kind", lang)
    with pytest.raises(UnwordedCode):
        RequestError("conflict", lang, first="a", second="b", field="no_such_field")
    with pytest.raises(UnwordedCode):
        RequestError("bad_value", lang, word="x", what="no_such_limit")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_refusals_added_for_this_check_read_in_both_languages(lang):
    """The wording this test found missing: the lease-term and own-use limits, a field the
    conflict message could not name, and a what-if with no change."""
    texts = [
        RequestError("bad_value", lang, word="0-month lease", what="lease_term").message(),
        RequestError("bad_value", lang, word="500 months", what="own_use").message(),
        RequestError("conflict", lang, first="seq 4k", second="seq 8k", field="seq_len").message(),
        RequestError("no_change", lang).message(),
    ]
    for text in texts:
        assert "lease_term" not in text and "own_use" not in text and "seq_len" not in text
        assert bool(re.search(r"[\u4e00-\u9fff]", text)) == (lang == "zh"), text


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("limit", sorted({f.limit for f in FIELDS if f.limit}))
def test_a_refusal_states_the_limits_the_parser_checks(limit, lang):
    """The numbers of a bad value's wording come from advisor/request/fields.py, not the template."""
    entry = re.search(rf'"{limit}": _\("([^"]*)"', (templates_dir() / "phrases.j2").read_text())[1]
    text = RequestError("bad_value", lang, word="x", what=limit).message()
    low, high = bounds(limit)["low"], bounds(limit)["high"]
    shown = pct if limit == "own_utilisation" else num
    for name, value in (("low", low), ("high", high)):
        if f"%({name})s" in entry:
            assert shown(value) in text, (name, value, text)
    assert not re.search(r"\d", re.sub(r"`[^`]*`|%\(\w+\)s|%%", "", entry)), f"a number typed in the wording: {entry}"
