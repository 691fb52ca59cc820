"""The daily digest in Slack: subscriptions, exactly-once posting across restarts, crashes,
429s and a second scheduler, pacing, the chart; and the digest and prices commands."""

import json
import re
import threading
import time
from pathlib import Path

import pytest
from slack_client import visible

SNAPSHOTS = Path(__file__).parent / "data" / "skypilot"


@pytest.fixture
def store(database, fake_slack):
    """Two snapshots in the store the test runs on: a SQLite file, then a Postgres database (the
    `database` fixture, tests/conftest.py)."""
    from advisor.market.imports import import_file
    from advisor.market.store import open_store

    db = open_store()
    for day in ("2023-06-14", "2023-06-15"):
        import_file(db, str(SNAPSHOTS / f"{day}.csv"))
    db.conn.close()
    fake_slack.reset()
    fake_slack.history.clear()
    return database


def _connect(store):
    """A connection to the test's store (either engine), for reading and changing rows."""
    from advisor import db

    return db.connect()


@pytest.fixture
def client(fake_slack):
    from bot.clients import web_client
    from bot.settings import Settings

    return web_client(Settings(api_url=fake_slack.url), "xoxb-digest-test")


def _subscribe(channel="CD1", lang="en", workspace="T1", post_time="09:00"):
    from bot import subscriptions

    subscriptions.subscribe(
        subscriptions.Subscription(workspace=workspace, channel=channel, lang=lang, post_time=post_time)
    )


def _run(client, **kw):
    from bot import digests

    return digests.post_due(client_for=lambda team: client, date="2023-06-15", ignore_time=True, **kw)


@pytest.mark.slow  # each digest waits a second before its chart (per-channel pacing)
def test_digest_is_posted_once_with_its_chart(store, client, fake_slack):
    _subscribe()
    assert _run(client) == 1
    post = fake_slack.calls_of("chat.postMessage")[0]["args"]
    blocks = json.dumps(post["blocks"])
    assert post["channel"] == "CD1" and "gpu_1x_h100_pcie" in blocks and "-17%" in blocks
    assert "44 price changes" in post["text"]
    assert post["metadata"]["event_payload"]["date"] == "2023-06-15"
    done = fake_slack.wait_for("files.completeUploadExternal")[0]["args"]
    files = done["files"] if isinstance(done["files"], list) else json.loads(done["files"])
    assert done["thread_ts"] and done["initial_comment"]
    assert sorted(f["title"] for f in files) == ["GPU price changes, 2023-06-15", "GPU prices to 2023-06-15"]
    bodies = {u["body"][:4]: u["body"] for u in fake_slack.uploads}
    assert set(bodies) == {b"\x89PNG", "\ufeffch".encode()[:4]}
    csv_rows = bodies["\ufeffch".encode()[:4]].decode("utf-8-sig").splitlines()
    assert csv_rows[0].startswith("change,GPU,provider,region,instance") and len(csv_rows) == 1 + 1 + 44
    # first the move of a GPU's cheapest price (per GPU-hour), then the 44 changes
    assert csv_rows[1].startswith("cheapest on demand (per GPU-hour),H100-PCIe-80GB,lambda,")
    assert _run(client) == 0  # the same day again: nothing
    assert len(fake_slack.calls_of("chat.postMessage")) == 1


@pytest.mark.slow  # each digest waits a second before its chart (per-channel pacing)
def test_each_posted_digest_is_logged_and_its_row_names_the_clock_that_posted_it(store, client, fake_slack, caplog):
    import logging
    import os

    from bot import digests

    _subscribe("CLOG1", lang="en")
    _subscribe("CLOG2", lang="zh", workspace="T2")
    with caplog.at_level(logging.INFO, logger="gpu_advisor.digest"):
        assert _run(client) == 2
    me = f"{os.uname().nodename}:{os.getpid()}"
    lines = [r.getMessage() for r in caplog.records if r.name == "gpu_advisor.digest"]
    assert any(m.startswith(f"digest 2023-06-15 en posted to CLOG1 by {me} (workspace T1, day ") for m in lines), lines
    assert any(m.startswith(f"digest 2023-06-15 zh posted to CLOG2 by {me} (workspace T2, day ") for m in lines), lines
    assert not any("xoxb" in m for m in lines)
    with _connect(store) as db:
        rows = db.execute("SELECT channel, state, posted_by, ts FROM digest_deliveries ORDER BY channel").fetchall()
    assert [(r[0], r[1], r[2]) for r in rows] == [("CLOG1", "sent", me), ("CLOG2", "sent", me)]
    assert all(r[3] for r in rows)
    # a run after a crash that finds the post in the channel marks it sent, posting nothing: no one
    # is named as its poster but the log says it was found
    with _connect(store) as db:
        db.execute(
            "UPDATE digest_deliveries SET state = 'sending', posted_by = NULL, claimed_at = ? WHERE channel = 'CLOG1'",
            [time.time() - digests.STALE_CLAIM_S - 60],
        )
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="gpu_advisor.digest"):
        assert _run(client) == 0
    assert any("found already posted in CLOG1" in r.getMessage() for r in caplog.records)
    with _connect(store) as db:
        assert db.execute("SELECT state, posted_by FROM digest_deliveries WHERE channel = 'CLOG1'").fetchone() == (
            "sent",
            None,
        )


def test_revision_0006_adds_the_posting_clock_to_deliveries_made_before_it(store):
    from advisor import db as dbmod
    from advisor import migrations

    with _connect(store) as db:
        db["digest_deliveries"].insert(
            {
                "workspace": "T1",
                "channel": "COLD",
                "date": "2026-12-01",
                "state": "sent",
                "claimed_at": 1.0,
                "ts": "1.1",
            }
        )
        db.execute("ALTER TABLE digest_deliveries DROP COLUMN posted_by")  # the table as 0005 left it
        db.execute("UPDATE alembic_version SET version_num = '0005'")
        assert migrations.upgrade(db) == ("0005", migrations.HEAD)
        assert "posted_by" in {c.name for c in db["digest_deliveries"].columns}
        row = db.execute("SELECT state, ts, posted_by FROM digest_deliveries WHERE channel = 'COLD'").fetchone()
    assert tuple(row) == ("sent", "1.1", None)
    dbmod._current.clear()


@pytest.mark.slow  # each digest waits a second before its chart (per-channel pacing)
def test_digest_waits_for_the_channels_time(store, client, fake_slack):
    import datetime as dt

    from bot import digests

    _subscribe(post_time="09:00")
    early = dt.datetime(2023, 6, 15, 8, 59, tzinfo=digests.TZ)
    assert digests.post_due(now=early, date="2023-06-15", client_for=lambda t: client) == 0
    late = dt.datetime(2023, 6, 15, 9, 0, tzinfo=digests.TZ)
    assert digests.post_due(now=late, date="2023-06-15", client_for=lambda t: client) == 1


@pytest.mark.slow  # each digest waits a second before its chart (per-channel pacing)
def test_a_crash_after_posting_never_posts_twice(store, client, fake_slack):
    from bot import digests

    _subscribe()
    _run(client)
    # the process died after Slack accepted the message but before marking it sent
    db = _connect(store)
    # ... long enough ago that the claim counts as left by a crash
    db.execute(
        "UPDATE digest_deliveries SET state = 'sending', claimed_at = ?", [time.time() - digests.STALE_CLAIM_S - 60]
    )
    db.commit()
    assert _run(client) == 0
    assert len(fake_slack.calls_of("chat.postMessage")) == 1
    state = db.execute("SELECT state FROM digest_deliveries").fetchone()[0]
    assert state == "sent"


@pytest.mark.slow  # each digest waits a second before its chart (per-channel pacing)
def test_a_crash_before_posting_posts_on_restart(store, client, fake_slack):
    from bot import digests

    _subscribe()
    digests.claim("T1", "CD1", "2023-06-15", time.time() - digests.STALE_CLAIM_S - 60)  # claimed, then died
    assert _run(client) == 1


@pytest.mark.slow  # waits for Retry-After (1 s) and the per-channel pacing
def test_429_is_retried_and_5xx_never_marks_sent(store, client, fake_slack):
    _subscribe()
    fake_slack.fail("chat.postMessage", status=429, headers={"Retry-After": "1"})
    assert _run(client) == 1
    assert len(fake_slack.calls_of("chat.postMessage")) == 2  # the 429, then the post
    _subscribe(channel="CD2")
    fake_slack.fail("chat.postMessage", status=500, body={"ok": False, "error": "internal_error"}, times=5)
    assert _run(client) == 0
    db = _connect(store)
    state, attempts, later = db.execute(
        "SELECT state, attempts, next_attempt_at FROM digest_deliveries WHERE channel = 'CD2'"
    ).fetchone()
    assert state == "failed" and attempts == 1 and later > time.time()
    assert _run(client) == 0  # backing off
    db.execute("UPDATE digest_deliveries SET next_attempt_at = 0 WHERE channel = 'CD2'")
    db.commit()
    fake_slack.reset()
    assert _run(client) == 1


@pytest.mark.slow  # each digest waits a second before its chart (per-channel pacing)
def test_two_schedulers_post_once(store, client, fake_slack):
    _subscribe()
    results = []
    threads = [threading.Thread(target=lambda: results.append(_run(client))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [0, 1]
    assert len(fake_slack.calls_of("chat.postMessage")) == 1


@pytest.mark.slow  # the pacing itself: a second between messages to one channel
def test_messages_to_one_channel_are_a_second_apart(store, client, fake_slack):
    from bot import digests, subscriptions

    sub = subscriptions.Subscription(workspace="T1", channel="CPACE", lang="en")
    for _ in range(2):
        digests.deliver(client, sub, "2023-06-15", force=True)
    posts = [c for c in fake_slack.calls if c["method"] in ("chat.postMessage", "files.getUploadURLExternal")]
    # one upload of two files (CSV and chart) asks for two upload URLs in a row: the first counts
    posts = [c for i, c in enumerate(posts) if i == 0 or c["method"] != posts[i - 1]["method"]]
    gaps = [b["at"] - a["at"] for a, b in zip(posts, posts[1:])]
    assert all(g >= 0.9 for g in gaps)


def test_chinese_channel_and_failed_feeds_in_the_digest(store):
    from bot import digests

    msg, files, comment = digests.compose("2023-06-15", "zh", problems=["http://127.0.0.1:9/feed.csv: timed out"])
    shown = digests.visible_text(msg)
    assert "GPU 价格日报" in msg["text"] and "获取失败的价格源" in shown and "timed out" in shown
    png = next(f for f in files if f["filename"].endswith(".png"))
    assert png["content"].startswith(b"\x89PNG") and "H100-PCIe-80GB" in png["alt_txt"]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("day", ["2023-02-22", "2023-05-12", "2023-06-15", "2024-02-05", "2024-04-23"])
def test_digest_message_fits_one_screen(tmp_path, monkeypatch, day, lang):
    """Every real snapshot day, both languages: at most 40 lines and 3,000 characters, a
    header, 1-5 moves, the cheapest per GPU as fields, no raw offer ids, no command line."""
    from advisor.market.imports import import_file
    from advisor.market.store import open_store
    from bot import digests

    monkeypatch.setenv("GPU_ADVISOR_DB", str(tmp_path / "all.db"))
    db = open_store()
    for path in sorted(SNAPSHOTS.glob("*.csv")):
        import_file(db, str(path))
    db.conn.close()
    msg, files, _ = digests.compose(day, lang, problems=["http://127.0.0.1:9/feed.csv: timed out"])
    shown = digests.visible_text(msg)
    assert len(shown) <= 3000 and shown.count("\n") + 1 <= 40, (len(shown), shown.count("\n"))
    assert msg["blocks"][0]["type"] == "header" and len(msg["blocks"]) <= 10
    moves = [
        b
        for b in msg["blocks"]
        if b["type"] == "section" and "•" in b["text"]["text"] and "feed.csv" not in b["text"]["text"]
    ]
    assert len(moves) == 1 and 1 <= moves[0]["text"]["text"].count("•") <= 5
    fields = next(b for b in msg["blocks"] if b.get("fields"))["fields"]
    assert 1 <= len(fields) <= 10 and all(f["text"].startswith("*") for f in fields)
    assert not re.search(r"\brec[A-Za-z0-9]{14,}", shown) and "gpu-advisor digest" not in shown
    assert "--json" not in shown
    names = {
        "en": [f"gpu-price-changes-{day}.csv", f"gpu-prices-{day}.png"],
        "zh": [f"GPU价格变动-{day}.csv", f"GPU价格走势-{day}.png"],
    }
    assert [f["filename"] for f in files] == names[lang]
    assert all(len(f["content"]) < 200_000 for f in files)


def test_slash_digest_subcommands(bot, fake_slack):
    from bot import subscriptions

    send, _ = bot

    def soon(check):  # the ack writes only a job; the setting is saved right after it (#13)
        deadline = time.time() + 15
        while not check() and time.time() < deadline:
            time.sleep(0.05)
        return check()

    status, body = send.command("digest subscribe", channel="CSUB")
    assert status == 200 and "every day at 09:00" in body
    assert soon(lambda: [s.channel for s in subscriptions.of_workspace("T1")].count("CSUB") == 1)
    assert "not a time" in send.command("digest time 25:00", channel="CSUB")[1]
    assert "08:30" in send.command("digest time 08:30", channel="CSUB")[1]
    assert soon(lambda: [s.post_time for s in subscriptions.of_workspace("T1") if s.channel == "CSUB"] == ["08:30"])
    assert "no longer" in send.command("digest unsubscribe", channel="CSUB")[1]
    assert soon(lambda: "CSUB" not in [s.channel for s in subscriptions.of_workspace("T1")])


def test_slash_prices(bot):
    send, _ = bot
    status, body = send.command("prices H800")
    body = visible(body)
    assert status == 200 and "H800-SXM-80GB" in body and "per GPU-hour" in body
    assert "do not know the GPU" in send.command("prices H300")[1]


def test_cli_prices_and_digest(cli, tmp_path):
    imported = cli("prices", "import", str(SNAPSHOTS / "2024-02-04.csv"), str(SNAPSHOTS / "2024-02-05.csv"))
    assert imported.returncode == 0, imported.stderr
    data = json.loads(cli("digest", "--date", "2024-02-05", "--json").stdout)
    assert data["date"] == "2024-02-05" and data["previous"] == {"skypilot": "2024-02-04"}
    lam = [
        c
        for c in data["changes"]
        if c["cloud"] == "lambda" and c["instance_type"] == "gpu_1x_h100_pcie" and c["kind"] == "on_demand"
    ]
    assert lam and lam[0]["old"] == 1.99 and lam[0]["new"] == 2.49
    text = cli("digest", "--date", "2024-02-05").stdout
    assert "GPU price digest for 2024-02-05" in text
    shown = json.loads(cli("prices", "show", "H100-PCIe", "--json").stdout)
    assert shown[0]["gpu"] == "H100-PCIe-80GB" and all(o["as_of"] for o in shown[0]["offers"])
    unknown = cli("prices", "show", "H300")
    # its own example, not a /gpu request's (operator probe)
    assert unknown.returncode == 2 and "gpu-advisor prices show H800" in unknown.stderr and "/gpu" not in unknown.stderr
    bad = tmp_path / "bad.csv"
    bad.write_text((SNAPSHOTS / "2024-02-05.csv").read_text().replace("2.49", "two", 1))
    refused = cli("prices", "import", str(bad))
    assert refused.returncode == 2 and "bad.csv" in refused.stderr and "line" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_digest_now_posts_once_in_ten_minutes_per_channel(bot, fake_slack):
    from bot import digests

    send, _ = bot
    status, body = send.command("digest now", channel="CNOW")
    assert status == 200 and "Posting" in body
    fake_slack.wait_for("chat.postMessage", where=lambda c: c["args"].get("channel") == "CNOW")
    status, body = send.command("digest now", channel="CNOW")
    assert status == 200 and "ask again in 10 minutes" in body
    assert "Posting" in send.command("digest now", channel="CNOW2")[1]  # another channel is not held
    fake_slack.wait_for("chat.postMessage", where=lambda c: c["args"].get("channel") == "CNOW2")
    assert (
        len(
            [
                c
                for c in fake_slack.calls_of("chat.postMessage")
                if c["args"].get("channel") == "CNOW" and c["args"].get("blocks")
            ]
        )
        == 1
    )
    # two commands acked before either job ran: the second job takes no slot and posts nothing
    assert not digests.claim_now("T1", "CNOW", time.time())
    assert digests.claim_now("T1", "CNOW", time.time() + digests.NOW_GAP_S)


def test_digest_now_in_a_subscribed_channel_is_its_digest_for_the_day(bot, fake_slack):
    """Operator probe: `/gpu digest now` in a subscribed channel, then the clock's round posted the
    same digest again seconds later. The "now" post is the channel's digest for the day; the round
    posts nothing there, and an unsubscribed channel's "now" post records no delivery."""
    from bot import digests, subscriptions, tables
    from bot.clients import web_client
    from bot.settings import Settings

    send, _ = bot
    start = time.time()  # the fake Slack keeps the calls of the engine run before
    # at 23:59 (Beijing) the bot's own clock leaves the channel alone until the round below
    _subscribe(channel="CDAY", post_time="23:59")
    assert "CDAY" in [s.channel for s in subscriptions.of_workspace("T1")]
    assert "Posting" in send.command("digest now", channel="CDAY")[1]
    fake_slack.wait_for("chat.postMessage", where=lambda c: c["args"].get("channel") == "CDAY")
    client = web_client(Settings(api_url=fake_slack.url), "xoxb-digest-test")
    deadline = time.time() + 15
    while True:
        with tables.opened() as db:
            if list(db.query("SELECT 1 FROM digest_deliveries WHERE channel = 'CDAY' AND state = 'sent'")):
                break
        assert time.time() < deadline, "the now post was not recorded as the day's"
        time.sleep(0.05)
    assert digests.post_due(client_for=lambda team: client, ignore_time=True) == 0
    posts = [
        c for c in fake_slack.calls_of("chat.postMessage") if c["args"].get("channel") == "CDAY" and c["at"] >= start
    ]
    assert len([c for c in posts if c["args"].get("blocks")]) == 1
    send.command("digest unsubscribe", channel="CDAY")


def test_a_failed_digest_now_is_retried_and_then_told_without_spending_the_limit(bot, fake_slack, monkeypatch):
    # Reliability review 2026-12-01: a failed `/gpu digest now` vanished (one try, nobody told) and
    # the next ask said a digest "was posted moments ago".
    monkeypatch.setenv("GPU_ADVISOR_JOB_ATTEMPTS", "3")
    monkeypatch.setenv("GPU_ADVISOR_RETRY_BASE_S", "0.3")
    send, _ = bot
    error = {"ok": False, "error": "internal_error"}
    fake_slack.fail("chat.postMessage", status=500, body=error, times=1)  # the first try
    assert "Posting" in send.command("digest now", channel="CRETRY")[1]
    deadline = time.time() + 60
    while not fake_slack.history.get("CRETRY") and time.time() < deadline:
        time.sleep(0.1)
    assert fake_slack.history.get("CRETRY")  # a later try posted it
    fake_slack.fail("chat.postMessage", status=500, body=error, times=30)  # every call of every try
    try:
        assert "Posting" in send.command("digest now", channel="CFAIL")[1]
        told = fake_slack.wait_for_response(timeout=60)
        assert any("could not post the digest" in r["text"] for r in told)
        assert not fake_slack.history.get("CFAIL")
        # the limit was not spent: asking again is taken at once
        assert "Posting" in send.command("digest now", channel="CFAIL")[1]
    finally:
        fake_slack.reset()  # the session's fake: no scripted failure is left for the next test


def test_digest_times_are_said_in_the_team_time_zone(bot, fake_slack, monkeypatch):
    """The digest posts at the time of GPU_ADVISOR_TZ; its acks had said "(Beijing time)"
    whatever that zone was, and App Home listed a subscription as "<#C>  at 08:30 (en)"."""
    import zoneinfo

    from bot import digests, subscriptions

    monkeypatch.setattr(digests, "TZ", zoneinfo.ZoneInfo("America/Los_Angeles"))
    send, _ = bot
    body = send.command("digest subscribe", channel="CZONE")[1]
    assert "09:00 (America/Los_Angeles)" in body and "Beijing" not in body
    body = send.command("digest time 08:30", channel="CZONE")[1]
    assert "08:30 (America/Los_Angeles)" in body and "Beijing" not in body
    deadline = time.time() + 15
    while [s.post_time for s in subscriptions.of_workspace("T1") if s.channel == "CZONE"] != ["08:30"]:
        assert time.time() < deadline, "the setting was not saved"
        time.sleep(0.05)
    fake_slack.reset()
    send.event({"type": "app_home_opened", "user": "U1", "channel": "D1", "tab": "home"})
    view = fake_slack.wait_for("views.publish")[0]["args"]["view"]
    assert "<#CZONE> every day at 08:30 (America/Los_Angeles), in English" in str(view)
    send.command("digest unsubscribe", channel="CZONE")


def test_slash_prices_says_how_many_offers_it_leaves_out(bot):
    """A group shows its cheapest few offers: the heading says how many more there are, so that
    the fields and those counts add up to the count the fallback gives ("23 prices on record"
    over 13 fields had been shown with nothing left out said)."""
    send, _ = bot
    msg = json.loads(send.command("prices H100")[1])
    total = int(re.match(r"(\d+) prices on record", msg["text"])[1])
    sections = [b for b in msg["blocks"] if b["type"] == "section" and b.get("fields")]
    more = [re.search(r"\* \((\d+) more, dearer, not shown\)$", b["text"]["text"]) for b in sections]
    assert any(more)
    assert sum(len(b["fields"]) for b in sections) + sum(int(m[1]) for m in more if m) == total


def test_digest_post_says_how_many_channels_had_todays_already(cli, fake_slack):
    # operator probe: a second `digest --post` said "posted to 0 channel(s)" and nothing more
    from bot import subscriptions

    subscriptions.subscribe(subscriptions.Subscription(workspace="T1", channel="CPOST", lang="en"))
    env = {"SLACK_BOT_TOKEN": "xoxb-post-test", "SLACK_API_URL": fake_slack.url}
    first = cli("digest", "--post", env=env)
    assert first.returncode == 0 and "posted to 1 of 1 subscribed channel(s)" in first.stderr
    again = cli("digest", "--post", env=env)
    assert "posted to 0 of 1 subscribed channel(s); 1 had today's digest already" in again.stderr


def test_a_digest_setting_said_alone_is_the_digest_command(bot, fake_slack):
    # "subscribe" and "订阅日报" had been refused as words not understood
    from bot import subscriptions

    send, _ = bot

    def soon(check):
        deadline = time.time() + 15
        while not check() and time.time() < deadline:
            time.sleep(0.05)
        return check()

    status, body = send.command("subscribe", channel="CALONE")
    assert status == 200 and "every day at 09:00" in body
    assert soon(lambda: "CALONE" in [s.channel for s in subscriptions.of_workspace("T1")])
    assert send.command("取消订阅", channel="CALONE")[0] == 200
    assert soon(lambda: "CALONE" not in [s.channel for s in subscriptions.of_workspace("T1")])
