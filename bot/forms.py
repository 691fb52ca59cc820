"""The request form (a modal): its views, reading and checking what was typed, and turning a
stored request back into its fields (the Re-plan button)."""

from __future__ import annotations

import json

from advisor import catalog
from advisor.request.parser import RequestError, parse
from advisor.text.render import phrase, render

FIELDS = ("model", "method", "data", "deadline", "budget", "gpu", "lang")


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
    parts = [values["model"] or "", values["method"] or ""]
    if values["data"]:
        parts.append(values["data"])
    if values["deadline"]:
        parts.append(values["deadline"])
    if values["budget"]:
        parts.append(f"budget {values['budget']}")
    if values["gpu"] and values["gpu"] != "any":
        parts.append(f"gpu {values['gpu']}")
    parts.append(f"lang {values['lang'] or 'en'}")
    return " ".join(p for p in parts if p)


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
            errors["model"] = err.message(lang)[:300]
    return errors


def initial_values(request_text: str) -> dict:
    """A stored request as the form's initial values (the Re-plan button)."""
    r = parse(request_text)
    data = None
    if r.data:
        amount, unit = r.data.amount, r.data.unit
        data = {
            "bytes": f"{amount / 1e9:g}GB",
            "tokens": f"{amount / 1e9:g}B tokens",
            "samples": f"{amount:g} samples",
        }[unit]
        if r.epochs != 1:
            data += f" {r.epochs:g} epochs"
    return {
        "model": r.model or f"{r.params_b:g}B" + (f"-A{r.active_params_b:g}B" if r.is_moe else ""),
        "method": r.method,
        "data": data,
        "deadline": f"{r.deadline_days:g}d" if r.deadline_days else None,
        "budget": f"{r.budget.amount:g} {r.budget.currency}" if r.budget else None,
        "gpu": r.gpu,
        "lang": r.lang,
    }
