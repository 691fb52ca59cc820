"""Text that did not come from our templates (advisor/text/safe.py): cleaned where it comes in,
escaped where it goes into Slack, URLs shown without secrets. One test per surface."""

from __future__ import annotations

import json
from contextlib import closing

import pytest
from slack_client import visible

from advisor.text.safe import (
    BACKTICK_STAND_IN,
    clean,
    for_slack,
    redact_url,
    redact_urls_in,
)
from bot import blocks

PAYLOADS = [
    "<!channel>",
    "<!here>",
    "<@U123>",
    "<https://evil.example|click>",
    "<script>",
    "a & b",
    "``` <!channel> ```",
    "\u202eevil\u202c",
    "x\x00y\x1b[31m",
]
RLO = "\u202e"


def _live(text: str) -> bool:
    """Whether a text Slack would parse still holds markup from a payload."""
    return any(s in text for s in ("<!", "<@", "<http", "<script", RLO, "\x00", "\x1b"))


def _all_text(msg: dict) -> str:
    return json.dumps([msg["text"], msg["blocks"]], ensure_ascii=False)


# -- the functions ---------------------------------------------------------------------------


def test_clean_strips_controls_and_bidi_and_neutralises_backticks():
    assert clean("a\u202eb\u2066c\u200fd\x00e\x1bf\tg\nh") == "abcdef\tg\nh"
    assert "`" not in clean("```x``` `y`") and clean("`") == BACKTICK_STAND_IN
    assert clean("vendorX 某云 ¥95,000") == "vendorX 某云 ¥95,000"  # ordinary text unchanged


def test_for_slack_escapes_the_three_characters_slack_asks_for():
    assert for_slack("<!channel> & <@U1> > x") == "&lt;!channel&gt; &amp; &lt;@U1&gt; &gt; x"
    assert for_slack(RLO + "x") == "x"


@pytest.mark.parametrize(
    "url,shown",
    [
        ("http://feeduser:Sup3rS3cret@127.0.0.1:8080/prices.csv?token=tok-abc123", "http://127.0.0.1:8080/prices.csv"),
        ("https://user@example.com/a#frag", "https://example.com/a"),
        ("https://example.com/prices.json", "https://example.com/prices.json"),
        ("not a url", "not a url"),
    ],
)
def test_urls_are_shown_without_credentials_or_query(url, shown):
    assert redact_url(url) == shown
    assert "Sup3rS3cret" not in redact_urls_in(f"feed {url} failed") and "tok-abc" not in redact_urls_in(url)


def test_a_feed_problem_names_the_feed_without_its_secrets():
    from advisor.market.imports import FeedProblem

    url = "http://feeduser:Sup3rS3cret@127.0.0.1:9/prices.csv?token=tok-abc123"
    err = FeedProblem(url, f"price feed {url} could not be reached (refused)")
    for text in (err.url, err.message, str(err)):
        assert "Sup3rS3cret" not in text and "tok-abc123" not in text and "127.0.0.1:9/prices.csv" in text


# -- bot/blocks.py: every message and its fallback text ----------------------------------------


@pytest.mark.parametrize("payload", PAYLOADS)
def test_messages_escape_everything_and_keep_their_fence(payload):
    text = f"Summary {payload}\n\nCost\n  rent from {payload}\n  more"
    msg = blocks.plain(text)
    assert not _live(_all_text(msg)), msg
    for b in msg["blocks"]:
        if b["type"] == "section":
            # no payload opens or closes a code span or fence: whatever backticks are left pair up
            assert b["text"]["text"].count("```") % 2 == 0, b["text"]["text"]
    assert blocks.check_limits(msg) == []


def test_escaping_counts_against_the_section_limit():
    msg = blocks.plain("\n".join("<>&" * 60 for _ in range(60)))
    assert blocks.check_limits(msg) == []


# -- surfaces over HTTP (the real app, the fake Slack API) ------------------------------------


def _posts(fake, where=None):
    return fake.wait_for("chat.postMessage", where=where)


@pytest.mark.parametrize("vendor", ["<!channel>", "<https://evil.example|click>", "``` <!here> ```", RLO + "evil"])
def test_quote_reply_in_channel_and_its_fallback_are_escaped(bot, settled_fake, vendor):
    send, _ = bot
    status, _ = send.command(f"quote 8xH800 ¥95000/month 3 months {vendor}", team="TESC")
    assert status == 200
    post = settled_fake.wait_for("chat.postMessage")[0]["args"]
    blocks_ = post["blocks"] if isinstance(post["blocks"], list) else json.loads(post["blocks"])
    assert not _live(post["text"]) and not _live(json.dumps(blocks_, ensure_ascii=False))
    for b in blocks_:
        if b["type"] == "section":
            assert b["text"]["text"].count("```") % 2 == 0  # no payload opens or closes a fence


def test_prices_ack_escapes_vendor_names(bot, settled_fake):
    from advisor.market.quotes import parse_quote, record
    from advisor.market.store import open_store

    with closing(open_store()) as db:  # the store the bot runs on
        record(parse_quote("8xH800 ¥20000/month <!channel>"), db, "TPRICES")
    send, _ = bot
    status, body = send.command("prices H800", team="TPRICES")
    body = visible(body)
    assert status == 200 and "&lt;!channel&gt;" in body and "<!channel>" not in body


def test_plan_citing_a_quotes_vendor_is_escaped(bot, settled_fake):
    from advisor.market.prices import price_book
    from advisor.market.quotes import parse_quote, record
    from advisor.market.store import open_store
    from advisor.planning.advice import advise

    with closing(open_store()) as db:  # the store the bot runs on
        record(parse_quote("8xH800 ¥800/month <https://evil.example|click>"), db, "TPLAN")
        book = price_book(db, "TPLAN")
    send, _ = bot
    send.command("70B lora 1GB 1d on H800", team="TPLAN", channel="CPLAN")
    post = settled_fake.wait_for("chat.postMessage", where=lambda c: c["args"].get("channel") == "CPLAN")[0]
    assert not _live(_all_text({"text": post["args"]["text"], "blocks": post["args"]["blocks"]}))
    # The costs button cites every price the plan read, this workspace's quote among them.
    costs = blocks.details(advise("70B lora 1GB 1d on H800", book=book), "costs")
    text = _all_text(costs)
    assert any(
        "evil.example" in s["provider"] for s in advise("70B lora 1GB 1d on H800", book=book).plan.costs.price_sources
    ) == ("evil.example" in text)
    assert not _live(text)  # ... cited as text, never as a link


@pytest.mark.parametrize("command", ["quote <!channel> something cheap", "prices <!here>"])
def test_error_replies_that_echo_a_word_are_escaped(bot, settled_fake, command):
    send, _ = bot
    status, body = send.command(command, team="TERR")
    assert status == 200 and not _live(body)
    if command.startswith("quote"):
        told = settled_fake.wait_for_response()
        assert told and not any(_live(json.dumps(r, ensure_ascii=False)) for r in told)
        assert any("&lt;!channel&gt;" in json.dumps(r, ensure_ascii=False) for r in told)


def test_a_mention_error_in_a_thread_is_escaped(bot, settled_fake):
    send, _ = bot
    send.mention("70B on 8xH300 <!channel>", channel="CMENTION")
    post = settled_fake.wait_for("chat.postMessage", where=lambda c: c["args"].get("channel") == "CMENTION")[0]
    assert not _live(post["args"]["text"])


def test_digest_cells_from_a_snapshot_are_escaped(tmp_path, monkeypatch):
    from advisor.market.imports import import_file
    from advisor.market.store import open_store
    from bot.digests import compose

    header = (
        "date,cloud,region,instance_type,gpu,gpu_count,vcpus,memory_gib,price_per_hour_usd,spot_price_per_hour_usd\n"
    )
    old = tmp_path / "2024-02-04.csv"
    old.write_text(header + "2024-02-04,aws,us-east-1,p5.48xlarge,H100,8,192,2048,98.32,\n")
    new = tmp_path / "2024-02-05.csv"
    new.write_text(
        header + "2024-02-05,aws,us-east-1,p5.48xlarge,H100,8,192,2048,90.0,\n"
        "2024-02-05,<!channel>,<@U1>,``` <!here> ```,A10G,1,4,16,1.0,\n"
    )
    monkeypatch.setenv("GPU_ADVISOR_DB", str(tmp_path / "d.db"))
    with closing(open_store()) as db:
        import_file(db, old)
        import_file(db, new)
    msg, files, comment = compose("2024-02-05", "en")
    text = _all_text(msg)
    assert "channel" in text and not _live(text) and not _live(comment)
    assert not any(_live(f.get("title", "") + f.get("alt_txt", "")) for f in files)
    for b in msg["blocks"]:
        if b["type"] == "section":
            assert b["text"]["text"].count("```") % 2 == 0  # no cell opens or closes a fence


def test_the_cli_stays_readable(cli):
    out = cli("quote", "8xH800 ¥95000/month 3 months A&B <corp>")
    assert out.returncode == 0 and "A&B <corp>" in out.stdout  # no HTML entities on a terminal
    out = cli("quote", "8xH800 ¥95000/month 3 months ``` evil" + RLO)
    assert out.returncode == 0 and "```" not in out.stdout and RLO not in out.stdout


def test_app_home_escapes_the_request_text(bot, settled_fake):
    from bot import conversations
    from bot.threads import thread_key

    conversations.save(
        conversations.Conversation(
            key=thread_key("THOME", "CHOME", "1700000000.000100"),
            workspace="THOME",
            user="UHOME",
            request_text="7b lora <!channel> & <https://evil.example|x>",
            lang="en",
            summary={},
        )
    )
    send, _ = bot
    send.event({"type": "app_home_opened", "user": "UHOME", "channel": "D1", "tab": "home"}, team="THOME")
    view = settled_fake.wait_for("views.publish", where=lambda c: c["args"].get("user_id") == "UHOME")[0]["args"][
        "view"
    ]
    text = view if isinstance(view, str) else json.dumps(view, ensure_ascii=False)
    assert "&lt;!channel&gt; &amp;" in text, text
    assert "<!channel>" not in text and "<https://evil" not in text, text


def test_a_long_section_is_cut_without_breaking_an_entity():
    msg = blocks.plain("<&>" * 2000)
    body = msg["blocks"][0]["text"]["text"]
    assert len(body) <= blocks.MAX_SECTION and body.endswith(("&lt;", "&amp;", "&gt;"))
