"""The 20 open requests of bench/plans.py priced (issues 15 and 21), beside a previous checkout's
prices: plan, headline, term (stated or assumed), range, budget verdict, the terms side by side
and the one-server plan; and (--rows) the reference rental rows by market and term.

Run by hand, with $OLD an earlier checkout (git worktree add $OLD <commit>):
    GPU_ADVISOR_DB=/tmp/old.db PYTHONPATH=$OLD python $OLD/bench/prices_table.py --json > /tmp/old.json
    GPU_ADVISOR_DB=/tmp/new.db python bench/prices_table.py --old /tmp/old.json   # the request table of docs/prices.md
    GPU_ADVISOR_DB=/tmp/new.db python bench/prices_table.py --rows               # the rows by term
"""

from __future__ import annotations

import json
import sys
from contextlib import closing
from pathlib import Path

if "--json" not in sys.argv:  # the old checkout comes first on PYTHONPATH when --json is used
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from advisor.market.prices import price_book  # noqa: E402
from advisor.market.store import open_store  # noqa: E402
from advisor.planning.advice import advise  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from plans import OPEN_REQUESTS  # noqa: E402


def priced(text: str, book) -> dict:
    out = advise(text, book=book).to_json()
    p, c = out["plan"], out["cost"]
    if p is None:
        return {"text": text, "plan": None}
    return {
        "text": text,
        "plan": f"{p['gpu_count']} x {p['gpu']}",
        "nodes": p["nodes"],
        "days": out["training"]["days"],
        "currency": c["currency"],
        "rent_total": c["rent_total"],
        "rent_option": c["rent_option"],
        "rent_offer": c.get("rent_offer"),
        "rent_range": c.get("rent_range"),
        "rent_term": c.get("rent_term"),
        "term_options": c.get("term_options"),
        "single_server": c.get("single_server"),
        "budget_verdict": c.get("budget_verdict"),
        "within_budget": p.get("within_budget"),
        "sources": [s["provider"] for s in c["price_sources"] if s["role"].startswith("rent")],
        "warnings": [w["code"] for w in out["warning_codes"] if w["kind"] == "warning"],
    }


def money(value, cur) -> str:
    if value is None:
        return "–"
    sign = "¥" if cur == "CNY" else "$"
    return f"{sign}{value / 1e6:,.2f}M" if value >= 1e6 else f"{sign}{value / 1e3:,.1f}k"


def term_of(r: dict) -> str:
    """The term the headline pays: months paid, and stated or assumed (issue 21)."""
    t = r.get("rent_term") or {}
    if not t:
        return "by the hour" if r.get("rent_option") == "hourly" else "–"
    stated = t.get("term_stated")
    how = "" if stated is None else (", stated" if stated else ", assumed")
    return f"{t.get('min_term_months')}-mo term, pays {t.get('months_paid')} mo{how}"


def verdict(r: dict) -> str:
    v = r.get("budget_verdict")
    if v:
        return v
    return "no budget" if r.get("within_budget", True) else "over"


def options(r: dict) -> str:
    opts = r.get("term_options") or []
    cur = r["currency"]
    return "; ".join(
        f"{o['months']} mo {money(o['total'], cur)} ({'stated' if o['term_stated'] else 'assumed'})" for o in opts
    )


def headline(r: dict) -> str:
    if r.get("plan") is None:
        return "no plan"
    return f"{r['plan']}, {r['days']:.1f} d: **{money(r.get('rent_total'), r['currency'])}**"


def main() -> int:
    with closing(open_store()) as db:
        book = price_book(db, None)
    if "--rows" in sys.argv:
        return print_rows(book)
    rows = [priced(t, book) for t in OPEN_REQUESTS]
    if "--json" in sys.argv:
        print(json.dumps(rows, ensure_ascii=False))
        return 0
    old = {r["text"]: r for r in json.loads(Path(sys.argv[sys.argv.index("--old") + 1]).read_text())}
    print(
        "| request | before: plan, headline, term | after: plan, headline | term | range low / likely / high"
        " | verdict | terms side by side | one server |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        o = old.get(r["text"], {})
        cur = r.get("currency", "CNY")
        rr = r.get("rent_range")
        rng = f"{money(rr['low'], cur)} / {money(rr['likely'], cur)} / {money(rr['high'], cur)}" if rr else "no price"
        single = r.get("single_server") or {}
        one = (
            f"{single['gpu_count']} x {single['gpu']}, {single['days']:.1f} d, {money(single['cost'], cur)}"
            if single
            else "–"
        )
        # A checkout before issue 21 kept no budget verdict in this table.
        before = f"{headline(o)}, {term_of(o)}" + (f" ({verdict(o)})" if "budget_verdict" in o else "") if o else "–"
        print(
            f"| `{r['text']}` | {before} | {headline(r)} | {term_of(r)} | {rng} | {verdict(r)}"
            f" | {options(r) or '–'} | {one} |"
        )
    return 0


def print_rows(book) -> int:
    """The rental rows of the reference prices by market and term, with their sources and dates."""
    from advisor.market import reference

    rows = [r for r in reference.rows() if r["kind"] in ("rent_hour", "rent_month") and not r["indicative"]]

    def term(r: dict) -> str:
        stated = r.get("terms") or ""
        months = sorted(int(t[:-1]) for t in stated.split() if t.endswith("m"))
        if months:
            return f"{months[0]} mo" + (f"-{months[-1]} mo" if len(months) > 1 else "")
        return "hourly" if r["kind"] == "rent_hour" else "not stated"

    def order(r: dict) -> tuple:
        t = term(r)
        return (r["market"], t == "hourly", t == "not stated", t, r["gpu"], r["as_of"])

    print("| market | term | GPU | provider (offer) | price | order, fabric | date | estimate | source |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in sorted(rows, key=order):
        name = r["provider"] + (f" ({r['offer']})" if r.get("offer") else "")
        src = r["cite"].split(", http")[0][:60]
        fabric = r.get("fabric") or "not stated"
        print(
            f"| {r['market']} | {term(r)} | {r['gpu']} | {name} | {r['price']:,.4g} {r['currency']}/{r['unit']} "
            f"| ≤{r.get('max_gpus') or r['gpus']}, {fabric} | {r['as_of']} | {'yes' if r['estimate'] else ''} | {src} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
