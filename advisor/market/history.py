"""Price history for the digest chart: the cheapest on-demand price per GPU-hour of each GPU,
snapshot by snapshot."""

from __future__ import annotations


def cheapest_history(db, gpus: list[str], until: str, points: int = 12) -> dict[str, list[tuple[str, float]]]:
    out: dict[str, list[tuple[str, float]]] = {}
    for gpu in gpus:
        rows = db.execute(
            "SELECT as_of, MIN(price) FROM observations WHERE layout = 'skypilot' AND kind = 'rent_hour'"
            " AND priced = 1 AND price > 0 AND gpu = ? AND as_of <= ? GROUP BY as_of ORDER BY as_of DESC LIMIT ?",
            [gpu, until, points]).fetchall()
        if rows:
            out[gpu] = sorted((r[0], r[1]) for r in rows)
    return out
