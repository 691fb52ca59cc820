"""Render the card and a thread in both languages to HTML with the shared Block Kit preview
(../shared/tools/blockkit_preview.py, beside the repository), for headless Chromium screenshots:

    GPU_ADVISOR_DB=/tmp/shots.db python docs/screenshots/render.py OUTDIR

The messages are what the bot posts (bot/answers.py), computed in this process."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository root
sys.path.insert(0, str(ROOT.parent / "shared" / "tools"))
sys.path.insert(0, str(ROOT))
import blockkit_preview as bk  # noqa: E402

from bot import answers  # noqa: E402

REQUESTS = {"en": "70B full-finetune 1TB 14d budget", "zh": "13B 全量微调 200GB数据 7天 预算10万"}
THREADS = {
    "en": [
        "thanks!",
        "what if 30 days?",
        "<@Bob> can you check this with finance before Friday?",
        "is ¥95000/month for 8xH800 fair?",
        "how did you get 13 days?",
        "ok, let's go with this",
    ],
    "zh": ["谢谢", "换成H20会怎样", "8卡H800每月9万合理吗", "显存怎么算的", "好的，就这样"],
}
MISSED = "70B full-finetune 1TB 3d on 8xH800"


def human(name: str, text: str) -> str:
    return (
        f"<div class='msg thread'><div class='av' style='background:#2a7'>{name[0]}</div><div>"
        f"<div class='who'>{name}</div><div class='sec'>{bk.mrkdwn(text)}</div></div></div>"
    )


def page(parts: list[str]) -> str:
    return f"<!doctype html><meta charset='utf-8'><style>{bk.CSS}</style>" + "".join(parts)


def bot_html(msg: dict, thread: bool = False) -> str:
    html = bk.render([dict(msg, thread_ts="1" if thread else None)])
    return html.split("</style>", 1)[1]


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    book = answers.prices_for("")
    for lang, request in REQUESTS.items():
        first = answers.answer(request, None, book)
        (out / f"card-{lang}.html").write_text(page([bot_html(first["message"])]), encoding="utf-8")
        parts = [bot_html(first["message"])]
        for text in THREADS[lang]:
            parts.append(human("Ana" if len(parts) % 2 else "Bo", text))
            reply = answers.follow(request, first["summary"], text, lang, book, mentioned=False)
            if reply["message"] is not None:
                parts.append(bot_html(reply["message"], thread=True))
        (out / f"thread-{lang}.html").write_text(page(parts), encoding="utf-8")
        part = answers.part(request, "math", lang, book)
        (out / f"button-math-{lang}.html").write_text(page([bot_html(part["message"], thread=True)]), encoding="utf-8")
    missed = answers.answer(MISSED, None, book)
    (out / "card-missed-en.html").write_text(page([bot_html(missed["message"])]), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
