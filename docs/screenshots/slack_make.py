"""Makes the issue-25 screenshots of docs/slack.md from what the real app posts: the Bolt app
served over HTTP on loopback, sent signed requests as Slack sends them, posting to the fake Web
API of the tests (tests/slack_fake.py) on loopback; every captured message is drawn with
../shared/tools/blockkit_preview.py (beside the repository) and headless Chromium.

usage: python docs/screenshots/slack_make.py OUTDIR   (PNG files land in OUTDIR; a temporary
database is seeded from data/ and tests/data/skypilot for the digest)

Scenes: a thread under a card with the what-ifs in other words (en, zh), a thread the what-ifs
move and then back to its first request (en, zh), `/gpu quote` with and
without a vendor, the card a recorded quote prices, `/gpu prices`, and the digest of 2024-02-05."""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT.parent / "shared" / "tools"))
sys.path.insert(0, str(ROOT))

SECRET = "screenshot-signing-secret"
TOKEN = "xoxb-screenshots"


def _start():
    tmp = Path(tempfile.mkdtemp())
    os.environ.update(GPU_ADVISOR_DB=str(tmp / "shots.db"), SLACK_BOT_TOKEN=TOKEN, SLACK_SIGNING_SECRET=SECRET)
    from slack_client import SlackSender
    from slack_fake import FakeSlack
    from werkzeug.serving import make_server

    from bot.settings import Settings
    from bot.web import create_flask_app

    fake = FakeSlack().start()
    app = create_flask_app(Settings(bot_token=TOKEN, signing_secret=SECRET, api_url=fake.url))
    http = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    return tmp, fake, SlackSender(f"http://127.0.0.1:{http.server_port}", SECRET, fake)


def _posts(fake, channel, count=1, timeout=90.0):
    def here(call):
        return call["args"].get("channel") == channel

    return [c["args"] for c in fake.wait_for("chat.postMessage", count, timeout, here)]


def _thread_ts(team, channel):
    from bot import conversations

    deadline = time.time() + 30
    while time.time() < deadline:
        found = [c for c in conversations.recent(team, limit=50) if c.key.split(":")[1] == channel]
        if found:
            return found[0].key.split(":")[2]
        time.sleep(0.05)
    raise RuntimeError("no thread stored")


def _human(bk, name, text):
    return (
        f"<div class='msg thread'><div class='av' style='background:#2a7'>{name[0]}</div><div>"
        f"<div class='who'>{name}</div><div class='sec'>{bk.mrkdwn(text)}</div></div></div>"
    )


def _bot(bk, msg, thread=False, ephemeral=False):
    html = bk.render([dict(msg, thread_ts="1" if thread else None)]).split("</style>", 1)[1]
    if ephemeral:
        html = "<div style='color:#616061;font-size:12px;margin:4px 0 0 60px'>Only visible to you</div>" + html
    return html


def _page(bk, parts):
    return f"<!doctype html><meta charset='utf-8'><style>{bk.CSS}</style>" + "".join(parts)


def _shoot(html_path: Path, png: Path, width: int) -> None:
    profile = tempfile.mkdtemp()
    subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--hide-scrollbars",
            f"--window-size={width},2400",
            f"--screenshot={png}",
            html_path.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    subprocess.run(["python3", "-c", _TRIM, str(png)], check=False)


# Crops the page's empty bottom (Pillow, when installed): the window is taller than any scene.
_TRIM = """
import sys
try:
    from PIL import Image, ImageChops
except ImportError:
    sys.exit()
im = Image.open(sys.argv[1]).convert("RGB")
bg = Image.new("RGB", im.size, im.getpixel((im.width - 1, im.height - 1)))
box = ImageChops.difference(im, bg).getbbox()
if box:
    im.crop((0, 0, im.width, min(im.height, box[3] + 24))).save(sys.argv[1])
"""


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    tmp, fake, send = _start()
    import blockkit_preview as bk

    from advisor.market.imports import import_file
    from advisor.market.store import open_store
    from bot import digests

    scenes: dict[str, tuple[list[str], int]] = {}

    # 1. A thread: the what-ifs in other words, and a mention nothing can answer.
    for lang, team, channel, request, asks in (
        (
            "en",
            "T1",
            "C1",
            "70B full-finetune 1TB 14d budget",
            [
                "how much would it cost on A800?",
                "can we do it with 128 GPUs?",
                "cheaper?",
                "@gpu-advisor lunch anyone?",
            ],
        ),
        ("zh", "T2", "C2", "70B 全量微调 1TB数据 14天 预算", ["A800上要多少钱", "用128卡呢", "更快呢"]),
    ):
        fake.reset()
        send.command(request, channel=channel, team=team)
        card = _posts(fake, channel)[0]
        ts = _thread_ts(team, channel)
        parts = [_bot(bk, card)]
        for i, text in enumerate(asks):
            fake.reset()
            if text.startswith("@"):
                send.mention("<@UBOT> " + text.split(" ", 1)[1], channel=channel, thread_ts=ts, team=team)
            else:
                send.thread_message(text, ts, channel=channel, team=team)
            parts.append(_human(bk, "Ana" if i % 2 == 0 else "Bo", text))
            parts.append(_bot(bk, _posts(fake, channel)[0], thread=True))
        scenes[f"thread-whatif-{lang}"] = (parts, 700)

    # 1b. A thread the what-ifs move: each builds on the one before, said; then back to the first.
    for lang, team, channel, request, asks in (
        ("en", "T6", "C6", "70B lora 10GB 14d", ["what if 30 days?", "on H20?", "back to the original plan"]),
        ("zh", "T7", "C7", "70B lora 1万条 14天 买", ["放实验室的话多久回本", "学校出电费呢", "回到最初的方案"]),
    ):
        fake.reset()
        send.command(request, channel=channel, team=team)
        _posts(fake, channel)
        ts = _thread_ts(team, channel)
        parts = [_human(bk, "Ana", "/gpu " + request)]
        for i, text in enumerate(asks):
            fake.reset()
            send.thread_message(text, ts, channel=channel, team=team)
            parts.append(_human(bk, "Ana" if i % 2 == 0 else "Bo", text))
            parts.append(_bot(bk, _posts(fake, channel)[0], thread=True))
            time.sleep(1)  # the thread is stored as moved once the reply is posted
        scenes[f"thread-moves-{lang}"] = (parts, 700)

    # 2. /gpu quote, with a vendor (recorded) and without one (asks for it), in both languages.
    for name, team, channel, text in (
        ("quote-en", "T3", "C3", "quote 8xH800 ¥95000/month 3 months Acme Compute"),
        ("quote-zh", "T4", "C4", "quote 8卡H800 每月9万"),
    ):
        fake.reset()
        send.command(text, channel=channel, team=team)
        scenes[name] = ([_human(bk, "Ana", "/gpu " + text), _bot(bk, _posts(fake, channel)[0])], 900)

    # 3. The card a recorded quote prices (team T3 recorded Acme Compute's quote above).
    fake.reset()
    send.command("70B full-finetune 1TB 14d on H800", channel="C3", team="T3")
    scenes["card-quoted-en"] = ([_bot(bk, _posts(fake, "C3")[0])], 900)

    # 4. /gpu prices H100 (English ack) and /gpu prices for a zh-CN user (the ack replaced in Chinese).
    status, body = send.command("prices H100", team="T3")
    scenes["prices-en"] = ([_human(bk, "Ana", "/gpu prices H100"), _bot(bk, json.loads(body), ephemeral=True)], 900)
    fake.locales["UZH"] = "zh-CN"
    fake.responses.clear()
    send.command("prices", user="UZH", team="T5")
    replaced = fake.wait_for_response()[-1]
    scenes["prices-zh"] = ([_human(bk, "安娜", "/gpu prices"), _bot(bk, replaced, ephemeral=True)], 900)

    # 5. The digest of 2024-02-05 (the real SkyPilot snapshots): the H100's cheapest price moved.
    db = open_store()
    for path in sorted((ROOT / "tests" / "data" / "skypilot").glob("*.csv")):
        import_file(db, str(path))
    db.conn.close()
    for lang in ("en", "zh"):
        msg, _, _ = digests.compose("2024-02-05", lang)
        scenes[f"digest-cheapest-{lang}"] = ([_bot(bk, msg)], 900)

    for name, (parts, width) in scenes.items():
        page = tmp / f"{name}.html"
        page.write_text(_page(bk, parts), encoding="utf-8")
        (tmp / f"{name}.json").write_text(json.dumps(parts, ensure_ascii=False))
        _shoot(page, out / f"{name}.png", width)
        print(out / f"{name}.png")
    fake.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
