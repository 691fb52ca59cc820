"""docs/accuracy.md's summary tables are what bench/accuracy.py prints now: the "ours" column of
every kind and subset, for the calibration set and the held-out sets (the comparator columns
need the bench extra, so they are left out)."""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))


def _ours(table: str) -> dict[tuple[str, str], tuple[str, str]]:
    """(kind, subset) -> (rows, ours) of a summary table in Markdown."""
    out = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and cells[0] in ("throughput", "time", "memory"):
            out[(cells[0], cells[1])] = (cells[2], cells[4])
    return out


def _section(text: str, title: str) -> str:
    start = text.index(title)
    following = re.search(r"\n### ", text[start + len(title) :])
    return text[start : start + len(title) + (following.start() if following else len(text))]


def test_the_summary_tables_are_the_scripts():
    import accuracy
    import cases

    doc = (ROOT / "docs" / "accuracy.md").read_text()
    time_rows, mem_rows = accuracy.build_rows()
    card_rows, _ = accuracy.build_rows(cases.CARD_RUNS, [])
    point_rows, point_mem_rows = accuracy.build_rows(cases.POINT_TIME_CASES, cases.POINT_MEMORY_CASES)
    held_rows, _ = accuracy.build_rows(cases.HELD_OUT, [])
    calibration = time_rows + mem_rows + card_rows + point_rows + point_mem_rows
    held_out = [
        (f"### Summary: held-out throughput ({summary})", accuracy.build_rows(rows, [])[0])
        for summary, _, rows in accuracy.HELD_OUT_SETS
    ]
    assert len(held_out) == 10
    held_out.append(("### Summary: held-out memory", accuracy.build_rows([], cases.HELD_OUT_MEMORY)[1]))
    probe = accuracy.build_rows([], cases.HELD_OUT_PROBE_MEMORY)[1]
    held_out.append(("### Summary: held-out memory (torchao", probe))
    probe2 = accuracy.build_rows([], cases.HELD_OUT_PROBE2_MEMORY)[1]
    held_out.append(("### Summary: held-out memory (ms-swift scripts", probe2))
    for title, rows in (
        ("### Summary: calibration", calibration),
        ("### Summary: held-out published runs", held_rows),
        *held_out,
    ):
        assert _ours(_section(doc, title)) == _ours(accuracy.summary_table(rows)), title
