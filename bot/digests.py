"""The daily price digest in Slack: each subscribed channel gets it once a day at its time.

Exactly once a day: a channel's digest for a calendar day (in the subscription's time zone,
Beijing unless set; whatever snapshots are imported that day) is claimed in SQLite before posting (a second
scheduler finds the claim and skips), marked sent only after Slack accepted it, and a claim
left by a crash is checked against the channel's history (the message carries metadata) before
anything is posted again; a history that cannot be read means "wait and look again", never
"post". Slack failures (429, 5xx) are retried by the client, then the claim
is released with a backoff; nothing is marked sent that was not sent. Messages to one channel
are at least a second apart (Slack's chat.postMessage limit)."""

from __future__ import annotations

import collections
import csv
import datetime as dt
import io
import json
import logging
import os
import time
import zoneinfo
from collections.abc import Callable

import sqlalchemy as sa
from slack_sdk import WebClient

from advisor import db as dbmod
from advisor.market import digest as digestmod
from advisor.market.chart import history_png
from advisor.market.imports import configured_feeds, fetch_feeds
from advisor.market.store import cheapest_history, file_of, latest_snapshot_date, open_store, version
from advisor.text.render import phrase
from advisor.text.safe import for_slack
from advisor.timezone import team_tz
from bot import subscriptions, tables

log = logging.getLogger("gpu_advisor.digest")
ClientFor = Callable[[str], WebClient | None]
TZ = team_tz()
STALE_CLAIM_S = 600  # a claim older than this was left by a crash
# A day's feed fetch claimed longer ago than this was left by a clock that died mid-fetch: another
# clock fetches (each feed's whole exchange is bounded by its --timeout; several feeds, assumed).
FEED_STALE_S = 900
METADATA_EVENT = "gpu_advisor_digest"
PER_CHANNEL_GAP_S = 1.0
_last_post: dict[str, float] = {}
# `/gpu digest now` posts at most once a channel in this many seconds: a digest fills a screen,
# and the prices behind it change once a day or so (assumed).
NOW_GAP_S = 600


def _opened():
    return tables.opened()


def claim(workspace: str, channel: str, date: str, now: float) -> str | None:
    """'new', 'stale' or 'retry' when this process may post ('stale' and 'retry': an earlier
    try may have reached Slack, look first); None when sent, in progress or backing off."""
    key = (workspace, channel, date)
    with _opened() as db, db.writing():
        table = db["digest_deliveries"]
        # Two clocks at once: one inserts the claim, the other finds it (the row is locked on
        # Postgres until the first commits; SQLite's write lock is taken at BEGIN).
        if table.insert(
            {"workspace": workspace, "channel": channel, "date": date, "state": "sending", "claimed_at": now},
            ignore=True,
        ):
            return "new"
        lock = " FOR UPDATE" if db.postgres else ""
        row = next(
            db.query(f"SELECT * FROM digest_deliveries WHERE workspace = ? AND channel = ? AND date = ?{lock}", key),
            None,
        )
        if row is None:
            return None
        if row["state"] == "failed" and now >= row["next_attempt_at"]:
            table.update(key, {"state": "sending", "claimed_at": now})
            return "retry"
        if row["state"] == "sending" and now - row["claimed_at"] > STALE_CLAIM_S:
            table.update(key, {"claimed_at": now})
            return "stale"
        return None


def now_wait(workspace: str, channel: str, now: float) -> float:
    """Seconds until `/gpu digest now` may post in the channel again (0: now). A read."""
    with _opened() as db:
        row = next(db["digest_now"].rows_where("workspace = ? AND channel = ?", [workspace, channel]), None)
    return max(0.0, row["at"] + NOW_GAP_S - now) if row else 0.0


def claim_now(workspace: str, channel: str, now: float) -> bool:
    """Take the channel's `digest now` slot; False when another took it within NOW_GAP_S (two
    commands acked before either job ran)."""
    with _opened() as db, db.writing():
        if db["digest_now"].insert({"workspace": workspace, "channel": channel, "at": now}, ignore=True):
            return True
        lock = " FOR UPDATE" if db.postgres else ""
        row = next(
            db.query(f"SELECT at FROM digest_now WHERE workspace = ? AND channel = ?{lock}", [workspace, channel])
        )
        if now - row["at"] < NOW_GAP_S:
            return False
        db["digest_now"].update((workspace, channel), {"at": now})
        return True


def release_now(workspace: str, channel: str, at: float) -> None:
    """Give back the `digest now` slot taken at `at` when its post failed (a later take stays)."""
    with _opened() as db, db.writing():
        db.execute("DELETE FROM digest_now WHERE workspace = ? AND channel = ? AND at = ?", [workspace, channel, at])


def me() -> str:
    """This process as logs and the delivery rows name it: host:pid."""
    return f"{os.uname().nodename}:{os.getpid()}"


def _finish(workspace: str, channel: str, date: str, ok: bool, ts: str | None = None, by: str | None = None) -> None:
    """Mark the day's delivery sent (`by`: the process that posted it; None when an earlier run's
    post was found in the channel) or failed, with its backoff."""
    key = (workspace, channel, date)
    with _opened() as db, db.writing():
        table = db["digest_deliveries"]
        if ok:
            table.update(key, {"state": "sent", "ts": ts, "posted_by": by})
            return
        attempts = table.get(key)["attempts"] + 1
        backoff = min(3600, 60 * 2**attempts)
        table.update(key, {"state": "failed", "attempts": attempts, "next_attempt_at": time.time() + backoff})


def _sent_now(workspace: str, channel: str, day: str, ts: str, now: float) -> None:
    """`/gpu digest now` posted the day's digest in a subscribed channel: recorded as the day's
    delivery unless the clock has claimed it already (its row stays)."""
    with _opened() as db, db.writing():
        db["digest_deliveries"].insert(
            {
                "workspace": workspace,
                "channel": channel,
                "date": day,
                "state": "sent",
                "claimed_at": now,
                "ts": ts,
                "posted_by": me(),
            },
            ignore=True,
        )


class HistoryUnreadable(Exception):
    """The channel's history could not be read: whether the digest went out is not known."""


def _already_posted(client, channel: str, date: str, since: float) -> str | None:
    """After a crash or a failed try: the ts of a digest for `date` the channel already shows.
    Raises HistoryUnreadable when the history cannot be read (never taken as "not posted")."""
    try:
        history = client.conversations_history(
            channel=channel, oldest=str(since - 3600), include_all_metadata=True, limit=50
        )
    except Exception as err:
        log.warning("could not read %s's history: %s", channel, type(err).__name__)
        raise HistoryUnreadable(channel) from err
    for message in history.get("messages", []):
        meta = message.get("metadata") or {}
        payload = meta.get("event_payload") or {}
        if meta.get("event_type") == METADATA_EVENT and payload.get("day", payload.get("date")) == date:
            return message.get("ts")
    return None


MAX_LINES = 40  # the channel message fits one screen
MAX_CHARS = 3000
MAX_FIELDS = 10  # Block Kit's limit of fields in one section
CHART_GPUS = 6


def _csv(lang: str, digest: digestmod.Digest) -> bytes:
    """Every change of the digest, one row per offer and region, headed in `lang`."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(phrase(lang, "csv_header", file="digest_message").split(","))
    for r in digestmod.rows(digest):
        writer.writerow(
            [
                phrase(lang, "csv_kind", r["kind"], file="digest_message"),
                r["gpu"],
                r["provider"],
                r["region"],
                r["instance"],
                r["gpus"],
                "" if r["old"] is None else r["old"],
                "" if r["new"] is None else r["new"],
                "" if r["pct"] is None else f"{r['pct']:.2f}",
                r["source"],
            ]
        )
    return ("\ufeff" + out.getvalue()).encode()  # the BOM lets spreadsheet apps read the Chinese header


def _mrkdwn(text: str) -> dict:
    return {"type": "mrkdwn", "text": text}


def message(lang: str, s: digestmod.Summary, cheapest: list[digestmod.Cheapest], problems: list[str]) -> dict:
    """The channel message: header, intro, the few moves, the cheapest per GPU as fields, the
    counts of the rest (the CSV in the thread lists them), failed feeds."""

    def p(name, *args):
        # The wording is ours, the cells (providers, regions, instances) come from feeds: the
        # whole phrase is escaped for mrkdwn (advisor/text/safe.py), our templates use no <...>.
        return for_slack(phrase(lang, name, *args, file="digest_message"))

    shown_gpus = cheapest[:MAX_FIELDS]
    blocks_ = [
        {"type": "header", "text": {"type": "plain_text", "text": p("header", s)}},
        {"type": "context", "elements": [_mrkdwn(p("intro", s))]},
    ]
    if s.highlights:
        lines = "\n".join("• " + p("highlight", x) for x in s.highlights)
        blocks_.append({"type": "section", "text": _mrkdwn(f"*{p('moves_title')}*\n{lines}")})
    elif s.previous:
        blocks_.append({"type": "section", "text": _mrkdwn(p("quiet", s))})
    if shown_gpus:
        blocks_.append(
            {
                "type": "section",
                "text": _mrkdwn(f"*{p('cheapest_title')}*"),
                "fields": [_mrkdwn(p("cheapest_field", c)) for c in shown_gpus],
            }
        )
    if problems:
        blocks_.append(
            {
                "type": "section",
                "text": _mrkdwn(f"*{p('problems_title')}*\n" + "\n".join(f"• {for_slack(x)}" for x in problems[:5])),
            }
        )
    rest = p("rest", s, len(cheapest) - len(shown_gpus))
    blocks_.append({"type": "context", "elements": [_mrkdwn(x) for x in (rest, p("units")) if x]})
    return {"text": p("fallback", s), "blocks": blocks_}


def visible_text(msg: dict) -> str:
    """Every piece of text the message shows, one block or field after another (for its size)."""
    parts = []
    for b in msg["blocks"]:
        if "text" in b:
            parts.append(b["text"]["text"])
        parts += [f["text"] for f in b.get("fields", [])]
        parts += [e["text"] for e in b.get("elements", []) if "text" in e]
    return "\n".join(parts)


# The digests rendered in this process, per (store, its version, date, language, problems).
_rendered: collections.OrderedDict = collections.OrderedDict()
RENDERED_KEPT = 8


def compose(date: str, lang: str, problems: list[str] | None = None) -> tuple[dict, list[dict], str]:
    """The channel message, the files for its thread (the CSV of every change, the chart PNG
    when there are prices to draw) and the comment that goes with them."""
    store = open_store()
    key = (file_of(store), version(store), date, lang, tuple(problems or []))
    if key in _rendered:  # rendered once per date and language, not once per channel
        store.conn.close()
        _rendered.move_to_end(key)
        return _rendered[key]
    d = digestmod.compute_digest(store, date)
    s = digestmod.summary(d)
    cheapest = digestmod.cheapest_now(store, date)
    msg = message(lang, s, cheapest, problems or [])
    files = []
    if s.total:
        files.append(
            {
                "content": _csv(lang, d),
                "filename": phrase(lang, "csv_file", date, file="digest_message"),
                "title": phrase(lang, "csv_title", date, file="digest_message"),
            }
        )
    gpus = list(dict.fromkeys([x.gpu_name for x in s.highlights] + [c.gpu_name for c in cheapest]))[:CHART_GPUS]
    history = cheapest_history(store, gpus, date) if gpus else {}
    store.conn.close()
    if history:
        files.append(
            {
                "content": history_png(history, date, lang),
                "filename": phrase(lang, "file", date, file="chart"),
                "title": phrase(lang, "title", date, file="chart"),
                "alt_txt": phrase(lang, "alt", list(history), date, file="chart"),
            }
        )
    made = msg, files, phrase(lang, "files_comment", file="digest_message")
    _rendered[key] = made
    while len(_rendered) > RENDERED_KEPT:
        _rendered.popitem(last=False)
    return made


def _pace(channel: str) -> None:
    wait = _last_post.get(channel, 0) + PER_CHANNEL_GAP_S - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    _last_post[channel] = time.monotonic()


def sub_tz(sub: subscriptions.Subscription) -> zoneinfo.ZoneInfo:
    """The subscription's time zone; Beijing (GPU_ADVISOR_TZ) unless set."""
    try:
        return zoneinfo.ZoneInfo(sub.tz) if sub.tz else TZ
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return TZ


def calendar_day(sub: subscriptions.Subscription, now: dt.datetime | None = None) -> str:
    """The day a digest is once-only for: the calendar day in the subscription's time zone."""
    now = now or dt.datetime.now(TZ)
    return (now if now.tzinfo else now.replace(tzinfo=TZ)).astimezone(sub_tz(sub)).date().isoformat()


def deliver(
    client,
    sub: subscriptions.Subscription,
    date: str,
    problems: list[str] | None = None,
    force: bool = False,
    day: str | None = None,
    failed: list[str] | None = None,
    subscribed: bool = False,
) -> bool:
    """Post `date`'s digest (the newest snapshot's) to the channel, once for the calendar `day`
    (today in the subscription's time zone): whatever is imported that day, one digest. A post
    Slack refused or that failed adds its error to `failed`. `force` (`/gpu digest now`) posts
    whatever was sent today; in a `subscribed` channel its post is then the day's digest, so the
    clock's round does not post the same one again."""
    now = time.time()
    day = day or calendar_day(sub)
    verdict = claim(sub.workspace, sub.channel, day, now) if not force else "new"
    if verdict is None:
        return False
    if verdict in ("stale", "retry"):
        try:
            ts = _already_posted(client, sub.channel, day, now - STALE_CLAIM_S * 2)
        except HistoryUnreadable:
            _finish(sub.workspace, sub.channel, day, False)  # wait and look again, never post blind
            return False
        if ts:
            _finish(sub.workspace, sub.channel, day, True, ts)
            log.info(
                "digest %s for %s found already posted in %s (an earlier run): marked sent",
                day,
                sub.workspace,
                sub.channel,
            )
            return False
    msg, files, comment = compose(date, sub.lang, problems)
    try:
        _pace(sub.channel)
        resp = client.chat_postMessage(
            channel=sub.channel,
            text=msg["text"],
            blocks=msg["blocks"],
            metadata={"event_type": METADATA_EVENT, "event_payload": {"date": date, "day": day}},
        )
    except Exception as err:
        log.warning("digest to %s failed: %s", sub.channel, _error_name(err))
        if failed is not None:
            failed.append(_error_name(err))
        if not force:
            _finish(sub.workspace, sub.channel, day, False)
        return False
    if not force:
        _finish(sub.workspace, sub.channel, day, True, resp["ts"], me())
    elif subscribed:
        _sent_now(sub.workspace, sub.channel, day, resp["ts"], now)
    # Which clock posted which channel's digest (several clocks on one store): no token, no text.
    log.info(
        "digest %s %s posted to %s by %s (workspace %s, day %s%s)",
        date,
        sub.lang,
        sub.channel,
        me(),
        sub.workspace,
        day,
        ", now" if force else "",
    )
    if files:
        try:
            _pace(sub.channel)
            client.files_upload_v2(
                channel=sub.channel, thread_ts=resp["ts"], file_uploads=files, initial_comment=comment
            )
        except Exception as err:  # the digest itself went out; the files are a bonus
            log.warning("digest chart to %s failed: %s", sub.channel, type(err).__name__)
    return True


def _error_name(err: Exception) -> str:
    response = getattr(err, "response", None)
    return (response.get("error") if response is not None else None) or type(err).__name__


def today_date() -> str:
    """The digest's date: the newest snapshot on record, else today."""
    store = open_store()
    date = latest_snapshot_date(store)
    store.conn.close()
    return date or dt.datetime.now(TZ).date().isoformat()


def post_due(
    client_for: ClientFor,
    now: dt.datetime | None = None,
    date: str | None = None,
    ignore_time: bool = False,
    problems: list[str] | None = None,
    failed: list[str] | None = None,
) -> int:
    """Post the digest to every subscribed channel whose time has come today (every channel with
    `ignore_time`), once per channel and date; returns how many were posted (the errors of those
    that failed go to `failed`).
    `client_for(workspace)` gives a WebClient for that workspace (bot/clients.py for_workspaces)."""
    now = now or dt.datetime.now(TZ)
    if now.tzinfo is None:
        now = now.replace(tzinfo=TZ)
    date = date or today_date()
    sent = 0
    for sub in subscriptions.all_subscriptions():
        local = now.astimezone(sub_tz(sub))
        if not ignore_time and local.strftime("%H:%M") < sub.post_time:
            continue
        client = client_for(sub.workspace)
        if client is not None and deliver(client, sub, date, problems, day=local.date().isoformat(), failed=failed):
            sent += 1
    return sent


def claim_fetch(date: str, now: float) -> bool:
    """Whether this clock fetches `date`'s feeds: the first to claim the day does, or the next
    after a claim went stale (its clock died mid-fetch)."""
    with _opened() as db, db.writing():
        table = db["feed_fetches"]
        if table.insert({"date": date, "state": "fetching", "claimed_at": now, "problems": "[]"}, ignore=True):
            return True
        lock = " FOR UPDATE" if db.postgres else ""
        row = next(db.query(f"SELECT * FROM feed_fetches WHERE date = ?{lock}", [date]), None)
        if row is not None and row["state"] == "fetching" and now - row["claimed_at"] > FEED_STALE_S:
            table.update(date, {"claimed_at": now})
            return True
        return False


def fetched(date: str) -> list[str] | None:
    """The problems of `date`'s finished fetch (failed feeds), or None while none has finished."""
    with _opened() as db:
        row = next(db.query("SELECT state, problems FROM feed_fetches WHERE date = ?", [date]), None)
    return json.loads(row["problems"]) if row is not None and row["state"] == "done" else None


def _end_fetch(date: str, problems: list[str] | None) -> None:
    """Record the fetch as done with its problems, or (None) give the day back so that the next
    round of any clock tries again."""
    with _opened() as db, db.writing():
        if problems is None:
            db.execute("DELETE FROM feed_fetches WHERE date = ? AND state = 'fetching'", [date])
        else:
            db["feed_fetches"].update(date, {"state": "done", "problems": json.dumps(problems)})


def _fetch_once(feeds: list[str], today: str) -> list[str] | None:
    """Today's feed problems once today's feeds are in the store (fetched here, or by another
    clock on the same store); None while another clock is still fetching them."""
    if not claim_fetch(today, time.time()):
        return fetched(today)
    try:
        store = open_store()
        # Dated in the digest's time zone (a catalog has no date column); conditional requests;
        # failed feeds named, their URLs redacted.
        problems = fetch_feeds(store, feeds, as_of=today).problems
        store.conn.close()
    except Exception:
        _end_fetch(today, None)
        raise
    _end_fetch(today, problems)
    return problems


def interval_s() -> float:
    """Seconds between the clock's rounds (GPU_ADVISOR_CLOCK_INTERVAL_S)."""
    return float(os.environ.get("GPU_ADVISOR_CLOCK_INTERVAL_S") or 30)


def clock(
    client_for: ClientFor,
    interval: float | None = None,
    stop=None,
    feeds: list[str] | None = None,
    on_round: Callable[[str], object] | None = None,
) -> None:
    """The scheduler process (the Procfile's `clock`): every `interval` seconds fetch the price
    feeds once a day and post what is due. `stop` (a threading.Event) ends it. Several clocks
    on one store fetch each day's feeds once (`claim_fetch`), and a clock whose fellow is still
    fetching waits for it before posting, so every digest of the day reads the same prices.
    `on_round` hears how each round ended ('' when well; its heartbeat records it, bot/heartbeats.py):
    a round fails when the fetch or the digest run raised, or while the last round that tried to
    post tried and posted nothing (Slack or the token down; the rounds between, whose channels
    wait out their backoff, try nothing and say so too). One channel that refuses (the bot
    removed from it) does not fail a round that posted to others."""
    interval = interval_s() if interval is None else interval
    feeds = feeds if feeds is not None else configured_feeds()
    fetched_on: str | None = None
    problems: list[str] = []
    posting = ""  # what the last round that tried to post found: '' when it posted one
    log.info("clock %s:%d started (store %s)", os.uname().nodename, os.getpid(), dbmod.redact(dbmod.database_url()))
    while stop is None or not stop.is_set():
        today = dt.datetime.now(TZ).date().isoformat()
        waiting = False
        went_wrong: list[str] = []
        if feeds and fetched_on != today:
            try:
                found = _fetch_once(feeds, today)
                if found is None:
                    waiting = True
                else:
                    problems, fetched_on = found, today
            except sa.exc.DBAPIError as err:  # the database is away (a restart): the next round
                log.warning("price fetch: database %s", type(err.orig or err).__name__)
                went_wrong.append(f"price fetch: database {type(err.orig or err).__name__}")
            except Exception as err:  # the clock lives on: the next round tries again
                log.exception("price fetch failed")
                went_wrong.append(f"price fetch failed: {type(err).__name__}")
        try:
            if not waiting:
                failed: list[str] = []
                if post_due(client_for, problems=problems, failed=failed):
                    posting = ""
                elif failed:
                    posting = f"none of the {len(failed)} digests due was posted ({failed[-1]})"
        except sa.exc.DBAPIError as err:
            log.warning("digest run: database %s", type(err.orig or err).__name__)
            went_wrong.append(f"digest run: database {type(err.orig or err).__name__}")
        except Exception as err:
            log.exception("digest run failed")
            went_wrong.append(f"digest run failed: {type(err).__name__}")
        if on_round is not None:
            on_round("; ".join(filter(None, [*went_wrong, posting])))
        if stop is not None:
            stop.wait(interval)
        else:
            time.sleep(interval)
