"""The request form (a modal): its views, reading and checking what was typed, and turning a
stored request back into its fields (the Re-plan button)."""

from __future__ import annotations

import json
import re

from advisor import catalog
from advisor.request.canonical import data_language, language, parts
from advisor.request.parser import RequestError, parse
from advisor.text.render import phrase, render

FIELDS = ("model", "method", "data", "deadline", "budget", "gpu", "other", "lang")


def _initial(values: dict | None) -> dict:
    return {k: (values or {}).get(k) for k in FIELDS}


def form_view(metadata: str, initial: dict | None, lang: str) -> dict:
    return json.loads(
        render(
            "slack/modal.json.j2",
            lang,
            initial=_initial(initial),
            metadata=metadata,
            gpus=[g.name for g in catalog.gpus()],
        )
    )


def open_form(client, trigger_id: str, metadata: str, initial: dict | None, lang: str) -> None:
    client.views_open(trigger_id=trigger_id, view=form_view(metadata, initial, lang))


def form_id(command: dict) -> str:
    """The external id that lets the listener fill the small view it opened."""
    return f"gpu-form-{command.get('trigger_id', '')}"[:255]


def open_loading(client, trigger_id: str, external_id: str, lang: str) -> None:
    view = json.loads(render("slack/loading.json.j2", lang))
    view["external_id"] = external_id
    client.views_open(trigger_id=trigger_id, view=view)


def fill_form(client, external_id: str, metadata: str, lang: str) -> None:
    client.views_update(external_id=external_id, view=form_view(metadata, None, lang))


def values(view: dict) -> dict:
    """The submitted view's fields by name (None where left empty)."""
    state = view["state"]["values"]
    out = {}
    for field in FIELDS:
        element = state.get(field, {}).get("value", {})
        if element.get("type") == "static_select":
            out[field] = (element.get("selected_option") or {}).get("value")
        else:
            out[field] = (element.get("value") or "").strip() or None
    return out


def request_text(values: dict) -> str:
    words = [values["model"] or "", values["method"] or ""]
    words += [values[k] for k in ("data", "deadline") if values[k]]
    # the rest before the budget: a currency word after an amount would be read as the amount's
    if values.get("other"):
        words.append(values["other"])
    if values["budget"]:
        words.append(f"budget {values['budget']}")
    if values["gpu"] and values["gpu"] != "any":
        words.append(f"gpu {values['gpu']}")
    words.append(f"lang {values['lang'] or 'en'}")
    return " ".join(w for w in words if w)


# The language word `request_text` ends with: the form's, not what the user typed.
_FORM_LANG = re.compile(r"\s+lang (?:en|zh)$")


def typed(text: str) -> str:
    """A stored request as the user gave it, without the `lang xx` the form adds (App Home had
    listed "7B lora 10GB 2d lang zh")."""
    return _FORM_LANG.sub("", text)


def validate(values: dict) -> dict[str, str]:
    """Inline errors by block id; empty when the form reads as a request."""
    lang = values.get("lang") or "en"
    errors = {}
    probes = {
        "model": f"{values['model']} sft" if values["model"] else "",
        "data": f"7B {values['data']}" if values["data"] else None,
        "deadline": f"7B {values['deadline']}" if values["deadline"] else None,
        "budget": f"7B budget {values['budget']}" if values["budget"] else None,
    }
    for field, probe in probes.items():
        if probe is None:
            continue
        try:
            got = parse(probe, lang)
            if field == "deadline" and got.deadline_days is None:
                raise RequestError("bad_value", lang, word=values[field], what="deadline")
            if field == "data" and got.tokens is None:
                raise RequestError("bad_value", lang, word=values[field], what="data")
        except RequestError as err:
            errors[field] = phrase(
                lang, "form_error", field, err.details.get("word") or values[field] or "", file="bot"
            )
    if not errors:
        try:
            parse(request_text(values), lang)
        except RequestError as err:
            # the free-text field is at fault when the form reads without it
            field = "model"
            if values.get("other"):
                try:
                    parse(request_text(values | {"other": None}), lang)
                    field = "other"
                except RequestError:
                    pass
            errors[field] = err.message(lang)[:300]
    return errors


def initial_values(request_text: str) -> dict:
    """A stored request as the form's initial values (the Re-plan button): the parts of its
    canonical form (advisor/request/canonical.py), so the form submitted unchanged reads back
    as the same request."""
    r = parse(request_text)
    groups: dict[str, list[str]] = {}
    for group, text in parts(r):
        groups.setdefault(group, []).append(text)
    # The form is read field by field, not as prose: the language of cleaned text is said.
    if r.data and r.data.unit == "bytes" and r.data.language and "data" in groups:
        spoken = data_language(r.data.language, language(r) == "zh")
        if spoken not in groups["data"]:
            groups["data"].append(spoken)
    joined = {group: " ".join(texts) for group, texts in groups.items()}
    return {
        "model": joined.get("model"),
        "method": r.method,
        "data": joined.get("data"),
        "deadline": joined.get("deadline"),
        "budget": joined.get("budget"),
        "gpu": r.gpu if "gpu" in groups else None,
        "other": joined.get("other"),
        "lang": r.lang,
    }
