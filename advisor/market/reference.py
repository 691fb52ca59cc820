"""data/reference_prices.toml: the sourced prices the store is seeded with, and the exchange rate."""

from __future__ import annotations

import hashlib
import tomllib
from functools import cache

from advisor.resources import data_dir

SOURCE = "reference"


@cache
def _reference() -> dict:
    with open(data_dir() / "reference_prices.toml", "rb") as fh:
        return tomllib.load(fh)


@cache
def digest() -> str:
    """The file's SHA-256: a store seeded from another version takes the rows added since."""
    return hashlib.sha256((data_dir() / "reference_prices.toml").read_bytes()).hexdigest()


# What each row says it is an offer of (issue 15): file key -> (column, default when left out).
# A rental row must state `offer`; the others default as store.offer_defaults says.
OFFER_KEYS = {
    "offer": ("offer_kind", ""),
    "max_gpus": ("max_gpus", 0),
    "interconnect": ("fabric", ""),
    "interconnect_gbps": ("fabric_gbps", 0.0),
    "billing": ("billing", ""),
    "indicative": ("indicative", False),
}


def rows() -> list[dict]:
    """Every reference price as an observation row (the file's `source` is the row's cite)."""
    return [
        {
            **{
                column: (int(p[key]) if isinstance(default, bool) else p[key]) if key in p else default
                for key, (column, default) in OFFER_KEYS.items()
            },
            "source": SOURCE,
            "kind": p["kind"],
            "gpu": p.get("gpu", ""),
            "gpus": p.get("gpus", 1),
            "market": p.get("market", ""),
            "provider": p.get("provider", ""),
            "region": p.get("region", ""),
            "offer": p.get("offer_name", ""),
            "price": float(p["price"]),
            "currency": p.get("currency", ""),
            "unit": p.get("unit", ""),
            "min_term_months": p.get("min_term_months", 0),
            "as_of": str(p["as_of"]),
            "estimate": int(bool(p.get("estimate"))),
            "cite": p.get("source", ""),
            "note": p.get("note", ""),
            # The terms the source states (store.OFFER_SOLD_ON): ["hour"], ["1m", "6m"], ["12m"].
            "terms": " ".join(p.get("terms", [])),
        }
        for p in _reference()["price"]
    ]


def fx() -> tuple[float, str, str]:
    """USD -> CNY, its date and its source."""
    rate = _reference()["fx"]
    return rate["usd_cny"], rate["as_of"], rate["source"]
