"""data/reference_prices.toml: the sourced prices the store is seeded with, and the exchange rate."""

from __future__ import annotations

import tomllib
from functools import cache

from advisor.resources import data_dir

SOURCE = "reference"


@cache
def _reference() -> dict:
    with open(data_dir() / "reference_prices.toml", "rb") as fh:
        return tomllib.load(fh)


def rows() -> list[dict]:
    """Every reference price as an observation row (the file's `source` is the row's cite)."""
    return [
        {
            "source": SOURCE, "kind": p["kind"], "gpu": p.get("gpu", ""), "gpus": p.get("gpus", 1),
            "market": p.get("market", ""), "provider": p.get("provider", ""), "region": p.get("region", ""),
            "price": float(p["price"]), "currency": p.get("currency", ""), "unit": p.get("unit", ""),
            "min_term_months": p.get("min_term_months", 0), "as_of": str(p["as_of"]),
            "estimate": int(bool(p.get("estimate"))), "cite": p.get("source", ""), "note": p.get("note", ""),
        }
        for p in _reference()["price"]
    ]


def fx() -> tuple[float, str, str]:
    """USD -> CNY, its date and its source."""
    rate = _reference()["fx"]
    return rate["usd_cny"], rate["as_of"], rate["source"]
