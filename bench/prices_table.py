"""The 20 open requests of bench/plans.py priced (issue 15), beside the previous point prices.

Run by hand:
    GPU_ADVISOR_DB=/tmp/old.db PYTHONPATH=<checkout before issue 15> python bench/prices_table.py --json > /tmp/old.json
    GPU_ADVISOR_DB=/tmp/new.db python bench/prices_table.py --old /tmp/old.json   # the Markdown table of docs/prices.md
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
        "sources": [s["provider"] for s in c["price_sources"] if s["role"].startswith("rent")],
        "warnings": [w["code"] for w in out["warning_codes"] if w["kind"] == "warning"],
    }


def money(value, cur) -> str:
    if value is None:
        return "–"
    sign = "¥" if cur == "CNY" else "$"
    return f"{sign}{value / 1e6:,.2f}M" if value >= 1e6 else f"{sign}{value / 1e3:,.1f}k"


def why(old: dict, new: dict) -> str:
    o = new.get("rent_offer") or {}
    reasons = []
    if o.get("estimated"):
        reasons.append(
            f"no deliverable offer on record: estimated from {o['provider']} server leases "
            f"({', '.join(w for w in new['warnings'] if w == 'rent_estimated')})"
        )
    if old.get("plan") != new.get("plan"):
        reasons.append(
            f"plan changed from {old.get('plan')} (its old price came from {', '.join(old.get('sources') or ['–'])})"
        )
    elif old.get("sources") != new.get("sources"):
        reasons.append(
            f"old price from {', '.join(old.get('sources') or ['–'])}, which cannot deliver it or is not an offer"
        )
    if (new.get("rent_term") or {}).get("months_paid", 0) > (new.get("rent_term") or {}).get("job_months", 0):
        reasons.append("minimum term paid")
    return "; ".join(reasons) or "same offer"


def main() -> int:
    with closing(open_store()) as db:
        book = price_book(db, None)
    rows = [priced(t, book) for t in OPEN_REQUESTS]
    if "--json" in sys.argv:
        print(json.dumps(rows, ensure_ascii=False))
        return 0
    old = {r["text"]: r for r in json.loads(Path(sys.argv[sys.argv.index("--old") + 1]).read_text())}
    print("| request | old plan: point price (from) | new plan | new range low / likely / high | offer, term | why |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        o = old.get(r["text"], {})
        if r.get("plan") is None:
            print(f"| `{r['text']}` | {o.get('plan')} | no plan | | | |")
            continue
        rr, off = r["rent_range"], r["rent_offer"] or {}
        cur = r["currency"]
        rng = (
            f"{money(rr['low'], cur)} / **{money(rr['likely'], cur)}** / {money(rr['high'], cur)}"
            f" ({rr['offers']} offer{'' if rr['offers'] == 1 else 's'})"
            if rr
            else "no price"
        )
        term = r.get("rent_term") or {}
        offer = (
            (
                f"{off.get('provider')}: {off.get('offer')}, ≤{off.get('max_gpus')} GPUs, "
                f"{off.get('interconnect') or 'fabric not stated'}, "
                f"{'min ' + str(off.get('min_term_months')) + ' mo' if off.get('min_term_months') else 'no minimum'}"
                f"{', pays ' + str(term['months_paid']) + ' mo' if term.get('months_paid') else ''}"
                f"{', ESTIMATED' if off.get('estimated') else ''} ({off.get('as_of')})"
            )
            if off
            else "–"
        )
        old_sources = ", ".join(o.get("sources") or ["–"])
        old_cell = f"{o.get('plan')}: {money(o.get('rent_total'), o.get('currency', cur))} ({old_sources})"
        print(f"| `{r['text']}` | {old_cell} | {r['plan']} | {rng} | {offer} | {why(o, r)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
