"""Scoring of the unseen request sets (tests/requests_heldout_*.toml): each request is read
right (every expected field equal, nothing else read), noted (right, but a model the catalogue
lacks planned as a generic one of the size in its name, which the answer says), refused (the
parser said why), or misread (a plan from a wrong reading: the worst outcome, since nobody is
told)."""

import datetime
import re
import tomllib
from pathlib import Path

from advisor import catalog

HERE = Path(__file__).parent
# the day the set was written for: relative deadlines ("by next Friday") count from it
TODAY = datetime.date(2026, 12, 2)

# want key -> the `user_set` name the parser records when it reads that field
_SETS = {
    "params_b": "params_b",
    "active_params_b": "active_params_b",
    "model": "model",
    "method": "method",
    "preference_tuning": "preference_tuning",
    "data_amount": "data",
    "data_unit": "data",
    "data_language": "data",
    "tokens_per_sample": "tokens_per_sample",
    "epochs": "epochs",
    "deadline_days": "deadline_days",
    "deadline_date": "deadline_days",
    "budget_amount": "budget",
    "budget_currency": "budget",
    "cost_first": "cost_first",
    "speed_first": "speed_first",
    "gpu": "gpu",
    "gpu_count": "gpu_count",
    "lora_rank": "lora_rank",
    "seq_len": "seq_len",
    "zero_stage": "zero_stage",
    "tp": "tp",
    "pp": "pp",
    "ep": "ep",
    "rent_or_buy": "rent_or_buy",
    "currency": "currency",
    "precision": "precision",
}
# set on the way to an expected field: a method word, a count in servers, a model's shape
_ALONGSIDE = {
    "finetune": "method",
    "nodes": "gpu_count",
    "model": "params_b",
    "active_params_b": "params_b",
    "unknown_model": "params_b",
}


def load(name: str) -> list[dict]:
    return tomllib.loads((HERE / name).read_text(encoding="utf-8"))["request"]


def _letters(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _actual(req: dict, key: str, today: datetime.date):
    data = req.get("data") or {}
    budget = req.get("budget") or {}
    if key == "data_amount":
        return data.get("amount")
    if key == "data_unit":
        return data.get("unit")
    if key == "data_language":
        return data.get("language")
    if key == "budget_amount":
        return budget.get("amount")
    if key == "budget_currency":
        return budget.get("currency")
    if key == "deadline_date":
        days = req.get("deadline_days")
        return None if days is None else (today + datetime.timedelta(days=days)).isoformat()
    if key == "reply":
        return req.get("lang")
    return req.get(key)


def _same_model(want: str, got: str | None) -> bool:
    """The catalogue's entry for the name expected (its names and aliases: Llama 3.3 70B is Llama
    3.1 70B's shape, a DeepSeek-R1 distill its base's), else the name's letters in the one read."""
    if got is None:
        return False
    entry = catalog.find_model(want)
    return entry.name == got if entry else _letters(want) in _letters(got)


def _equal(key: str, want, got) -> bool:
    if got is None:
        return False
    if key == "model":
        return _same_model(want, got)
    if key in ("params_b", "active_params_b"):
        return abs(got - want) <= 0.05 * want  # model cards round their sizes
    if key == "deadline_days":
        return abs(got - want) <= 0.02 * want  # a month is 30 or 30.4 days
    if isinstance(want, float | int) and not isinstance(want, bool):
        return abs(got - want) <= 1e-9 * max(abs(want), 1)
    return want == got


def judge(case: dict, req: dict | None, today: datetime.date = TODAY) -> tuple[str, list[str]]:
    """("right"|"noted"|"refused"|"misread", what differs). `req` is the parsed request's JSON, None
    when the request was refused."""
    refuse = case.get("expect") == "refused"
    if req is None:
        return ("right" if refuse else "refused"), []
    if refuse:
        return "misread", ["planned, should be refused"]
    want = case["want"]
    model = want.get("model")
    # A model found by name brings its catalogued sizes, counted from its shape (embeddings in
    # the active count, where cards leave them out: gpt-oss-20b's "3.6B" is 4.19B here). One the
    # catalogue lacks is planned as a generic model of the size in its name and noted so
    # (CONTRACT section 3): read right, its shape approximate and said to be, within the
    # rounding of the size in its name (Baichuan2-13B is 13.9B).
    named = model is not None and _same_model(model, req.get("model"))
    noted = (
        model is not None
        and req.get("model") is None
        and "unknown_model" in req.get("user_set", [])
        and abs(req["params_b"] - want["params_b"]) <= 0.10 * want["params_b"]
    )
    sized = ("model", "params_b", "active_params_b") if named or noted else ()
    wrong = [
        f"{k}: want {v!r}, got {_actual(req, k, today)!r}"
        for k, v in want.items()
        if k not in sized and not _equal(k, v, _actual(req, k, today))
    ]
    said = {_SETS[k] for k in want if k in _SETS}
    extra = [
        f"{name} read but not said"
        for name in req.get("user_set", [])
        if name not in said and _ALONGSIDE.get(name) not in said
    ]
    if wrong or extra:
        return "misread", wrong + extra
    return ("noted" if noted else "right"), []
