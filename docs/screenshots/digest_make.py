"""Makes the digest screenshots of docs/digest.md: the channel message and its thread (the
files comment, the CSV's first rows, the chart) in English and Chinese, drawn by
../shared/tools/blockkit_preview.py (beside the repository) and headless Chromium, plus the chart PNG itself.

usage: python docs/screenshots/digest_make.py [DATE]   (imports tests/data/skypilot into a
temporary database; DATE defaults to 2024-02-05, a day with on-demand moves)"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent
PREVIEW = ROOT.parent / "shared" / "tools" / "blockkit_preview.py"
sys.path.insert(0, str(ROOT))


def main(day: str = "2024-02-05") -> None:
    tmp = Path(tempfile.mkdtemp())
    os.environ["GPU_ADVISOR_DB"] = str(tmp / "digest.db")
    from advisor.market.imports import import_file
    from advisor.market.store import open_store
    from bot import digests

    db = open_store()
    for path in sorted((ROOT / "tests" / "data" / "skypilot").glob("*.csv")):
        import_file(db, str(path))
    db.conn.close()
    for lang in ("en", "zh"):
        msg, files, comment = digests.compose(day, lang)
        shown = digests.visible_text(msg)
        print(f"{lang}: {len(shown)} characters, {shown.count(chr(10)) + 1} lines, {len(msg['blocks'])} blocks")
        chart = next(f for f in files if f["filename"].endswith(".png"))
        csv_file = next(f for f in files if f["filename"].endswith(".csv"))
        chart_path = tmp / chart["filename"]
        chart_path.write_bytes(chart["content"])
        (OUT / ("digest-chart.png" if lang == "en" else "digest-chart-zh.png")).write_bytes(chart["content"])
        head = "\n".join(csv_file["content"].decode("utf-8-sig").splitlines()[:4])
        thread = {
            "text": comment,
            "blocks": [
                {"type": "section", "text": {"type": "mrkdwn", "text": comment}},
                {
                    "type": "context",
                    "elements": [{"type": "mrkdwn", "text": f"*{csv_file['title']}*  ({csv_file['filename']})"}],
                },
                {"type": "section", "text": {"type": "mrkdwn", "text": f"```{head}\n…```"}},
                {
                    "type": "context",
                    "elements": [{"type": "mrkdwn", "text": f"*{chart['title']}*  ({chart['filename']})"}],
                },
                {"type": "image", "image_url": chart_path.as_uri(), "alt_text": chart["alt_txt"]},
            ],
        }
        src = tmp / f"digest-{lang}.json"
        src.write_text(json.dumps([msg, thread], ensure_ascii=False))
        page = tmp / f"digest-{lang}.html"
        subprocess.run([sys.executable, str(PREVIEW), str(src), str(page)], check=True)
        png = OUT / f"digest-{lang}.png"
        subprocess.run(
            [
                "chromium",
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--allow-file-access-from-files",
                f"--user-data-dir={tempfile.mkdtemp()}",
                f"--screenshot={png}",
                "--window-size=900,1300",
                page.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        from PIL import Image  # comes with matplotlib: 256 colours keep each PNG under 200 KB

        Image.open(png).convert("RGB").quantize(256).save(png, optimize=True)
        print(png, png.stat().st_size)


if __name__ == "__main__":
    main(*sys.argv[1:])
