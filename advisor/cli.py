"""`gpu-advisor` on the command line: the same answers the Slack bot gives, no Slack needed.

Exit codes (CONTRACT section 1): 0 success, 2 input we cannot use (a short explanation on
stderr, no traceback), 1 anything else.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import traceback
from contextlib import closing

from advisor import db as dbmod
from advisor import timezone
from advisor.market.prices import ConfigError, price_book
from advisor.market.store import open_store
from advisor.planning import advice
from advisor.planning.followup import gpu_prices
from advisor.request.fields import help_words
from advisor.request.parser import RequestError, command_text, detect_lang, leading_command
from advisor.text.render import phrase

# The owner key of the quotes recorded from this command line (the bot uses the workspace id):
# they join this machine's plans and no Slack team's.
LOCAL_OWNER = "local"


class UsageError(Exception):
    """Bad input outside the request language (a malformed file, an unknown flag value)."""


def _print_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2) + "\n")


def _leading_command(args, text: str, lang: str) -> int | None:
    """`ask` takes exactly what follows /gpu, so the leading command words work here too
    (CONTRACT section 3): help, prices [GPU], quote ..., digest."""
    from advisor.text.render import render

    text = command_text(text)
    words = text.split()
    first = leading_command(text)
    if first == "help":
        print(render("help.txt.j2", lang, words=help_words(lang)))
        return 0
    if first == "prices":
        args.gpu = words[1:]
        return cmd_prices_show(args)
    if first == "quote":
        args.text = words
        return cmd_quote(args)
    if first == "digest":
        args.date, args.post = None, False
        return cmd_digest(args)
    return None


def cmd_ask(args) -> int:
    text = " ".join(args.text)
    lang = args.lang or detect_lang(text)
    handled = _leading_command(args, text, lang)
    if handled is not None:
        return handled
    with closing(open_store()) as db:
        book = price_book(db, LOCAL_OWNER)
    # a question the FAQ answers that names a model but asks for no plan ("is fp8 safe for a 70b?")
    first = advice.faq_first(text, args.lang)
    if first is not None:
        return _faq_reply(first, args)
    try:
        result = advice.advise(text, lang=args.lang, book=book)
    except RequestError as err:
        # GPU types or methods named as a choice ("H200 vs B200", "lora vs full"): each planned, side by side
        try:
            compared = advice.compare(text, args.lang, book=book) if err.kind in advice.COMPARED else None
        except RequestError as refused:  # a side that cannot be planned, or too many to compare
            compared, err = None, refused
        if compared is not None:
            if args.follow_up:
                return _thread(text, compared, args, book)
            if args.json:
                _print_json(compared.to_json())
            else:
                print(advice.render_comparison(compared))
            return 0
        # a GPU's price ("H800月租多少", "how much is an H100 per hour?"): the offers on record, as
        # the bot answers a first message
        priced = gpu_prices(text, lang, book)
        if priced is not None:
            return _prices_reply(priced, args)
        # a question with no plan in it ("is fp8 safe for fine-tuning?"): the FAQ's answer
        answered = advice.faq_instead(text, args.lang, err) or advice.faq_on_a_plan(text, args.lang, err, book)
        if answered is None:
            print(advice.refusal(err, lang, book), file=sys.stderr)
            return 2
        return _faq_reply(answered, args)
    if args.follow_up:
        return _thread(text, result, args, book)
    if args.json:
        _print_json(result.to_json())
    elif args.rfq:
        rfq = advice.render_rfq(result)
        if rfq is None:
            print(advice.render_text(result))
            return 1
        print(rfq)
    else:
        print(advice.render_text(result))
    return 0


def _faq_reply(answered, args) -> int:
    """A first message the FAQ answers: its answer and how to ask for a plan (CONTRACT section 1)."""
    found, reply = answered
    if args.json:
        _print_json({"faq": found.model_dump() | {"answer": reply}})
    else:
        print(reply)
    return 0


def _prices_reply(priced, args, key: str | None = "faq") -> int:
    """A question for a GPU's price: the offers on record, as the FAQ's JSON lays an answer out
    (topic "prices", with the GPU and the groups of `prices show --json`); under "faq" for `ask`."""
    if args.json:
        topic = priced.kind  # "prices", "budget_buys", "lead_time", "capacity"...
        out = {"topic": topic, "answer": priced.text, "score": 1.0, "confident": True, "title": "",
               "alternatives": [], "second": None, "gpu": priced.part, "prices": priced.rows}  # fmt: skip
        _print_json({key: out} if key else out)
    else:
        print(priced.text)
    return 0


def _thread(text: str, result, args, book) -> int:
    """The plan (or the comparison), then each `--follow-up` message answered in its thread as the
    bot answers it: against what the thread stores (the first answer's, or the plan a what-if
    moved it to), the bot spoken to."""
    from advisor.planning.followup import follow_up

    compared = isinstance(result, advice.Comparison)
    summary = advice.comparison_context(result) if compared else advice.plan_context(result)
    replies = []
    for message in args.follow_up:
        reply = follow_up(text, summary, message, args.lang, book=book)
        replies.append((message, reply))
        if reply.thread:  # a what-if moved the thread: the next message is answered against its plan
            text, summary = reply.thread["request"], reply.thread["summary"]
    if args.json:
        _print_json(
            {
                **(result.to_json() if compared else {"plan": result.to_json()}),
                "follow_ups": [
                    {
                        "message": m,
                        "kind": r.kind,
                        "part": r.part,
                        "changes": r.changes,
                        "lead": r.lead,
                        "on": r.on,
                        "before": r.before,
                        "after": r.after,
                        "kept": r.kept,
                        "thread_request": r.thread["request"] if r.thread else None,
                        "text": r.text,
                        "plan": r.advice.to_json() if r.advice is not None and r.kind in ("whatif", "market") else None,
                    }
                    for m, r in replies
                ],
            }
        )
        return 0
    print(advice.render_comparison(result) if compared else advice.render_text(result))
    for message, reply in replies:
        print(f"\n> {message}\n")
        if reply.on:
            print(reply.on + "\n")
        print(reply.text or phrase(args.lang or reply.lang, "thread_silent"))
    return 0


def cmd_faq(args) -> int:
    from advisor.knowledge import faq

    text = " ".join(args.text)
    if not text.strip():  # input it cannot use: exit 2 with what works, as `ask` does
        from advisor.text.render import phrase

        print(phrase(args.lang or "en", "empty_question"), file=sys.stderr)
        return 2
    # "how much is an H100 per hour?": the offers on record, as a thread would answer it
    with closing(open_store()) as db:
        priced = gpu_prices(text, args.lang or detect_lang(text), price_book(db, LOCAL_OWNER))
    if priced is not None:
        return _prices_reply(priced, args, key=None)
    found = faq.answer(text, lang=args.lang)
    if args.json:
        _print_json(
            {
                "topic": found.topic,
                "answer": found.answer,
                "score": found.score,
                "confident": found.confident,
                "title": found.title,
                "alternatives": [a.model_dump() for a in found.alternatives],
                "second": found.second.model_dump() if found.second else None,
            }
        )
    else:
        print(found.answer)
    return 0


def cmd_quote(args) -> int:
    from advisor.market.purchase_quotes import purchase_quote
    from advisor.market.quotes import is_removal, quote_answer, remove_quote
    from advisor.text.render import render

    text = " ".join(args.text)
    lang = args.lang or detect_lang(text)
    try:
        with closing(open_store()) as db:
            if is_removal("quote " + text):
                removal = remove_quote("quote " + text, lang, db, LOCAL_OWNER)
                if args.json:
                    _print_json(removal.model_dump(mode="json"))
                else:
                    print(
                        phrase(
                            lang,
                            "removed",
                            removal.vendor,
                            removal.gpu or "",
                            len(removal.removed),
                            ", ".join(removal.left),
                            file="slack/quote",
                        )
                    )
                return 0
            # a quote to sell servers ("8卡H20 采购 98万/台"): judged against the purchase price on record
            bought = purchase_quote(text, args.lang, price_book(db, None))
            if bought is not None:
                if args.json:
                    _print_json({"kind": "purchase", **bought.model_dump(mode="json"), "recorded": False})
                else:
                    print(render("quote_purchase.txt.j2", bought.lang, j=bought))
                return 0
            judgement, recorded = quote_answer(text, args.lang, db, LOCAL_OWNER)
    except RequestError as err:
        print(err.message(lang), file=sys.stderr)
        return 2
    if args.json:
        _print_json(judgement.model_dump(mode="json") | {"recorded": recorded})
    else:
        print(render("quote.txt.j2", judgement.quote.lang, j=judgement, recorded=recorded, example=text))
    return 0


def cmd_prices_import(args) -> int:
    from advisor.market.imports import ImportProblem, import_file

    db = open_store()
    results = []
    for path in args.paths:
        try:
            result = import_file(db, path, source=args.source, as_of=args.as_of, cloud=args.cloud)
        except ImportProblem as err:
            print(f"gpu-advisor: {err} (nothing of this file was written)", file=sys.stderr)
            return 2
        results.append(result)
        print(
            f"{result.path}: {result.rows_read} rows read, {result.rows_written} prices written"
            f" ({result.kind_of_file}, {', '.join(result.dates)})",
            file=sys.stderr,
        )
        for note in result.notes:
            print(f"  note: {note}", file=sys.stderr)
    if args.json:
        _print_json([r.model_dump(mode="json") for r in results])
    return 0


def cmd_prices_fetch(args) -> int:
    """Fetch the configured feeds (GPU_ADVISOR_PRICE_FEEDS, or the words given) now, as the clock
    does daily, and print what changed: the digest of the date fetched, failed feeds named."""
    import datetime as dt

    from advisor.market import digest as digestmod
    from advisor.market.imports import configured_feeds, feed_urls, fetch_feeds
    from advisor.market.layouts import read_date
    from advisor.text.render import render

    urls = feed_urls(args.feeds) if args.feeds else configured_feeds()
    if not urls:
        print(
            "gpu-advisor: no price feeds: set GPU_ADVISOR_PRICE_FEEDS (URLs, or the word skypilot for "
            "SkyPilot's published catalog) or name them: gpu-advisor prices fetch skypilot",
            file=sys.stderr,
        )
        return 2
    try:
        day = read_date(args.as_of or dt.date.today().isoformat(), None, "--as-of date")
    except ValueError as err:
        print(f"gpu-advisor: {err}", file=sys.stderr)
        return 2
    with closing(open_store()) as db:
        report = fetch_feeds(db, urls, as_of=day, timeout=args.timeout)
        for f in report.feeds:
            what = {
                "changed": f"{f.rows_written} prices written ({f.source})",
                "unchanged": "unchanged",
                "failed": f"failed: {f.message}",
            }[f.status]
            print(f"{f.url}: {what}", file=sys.stderr)
            for note in f.notes:
                print(f"  note: {note}", file=sys.stderr)
        result = digestmod.compute_digest(db, day)
        if args.json:
            _print_json(
                {
                    "feeds": [f.model_dump(mode="json") for f in report.feeds],
                    "problems": report.problems,
                    "digest": result.to_json(),
                }
            )
        else:
            print(
                render(
                    "digest.txt.j2",
                    args.lang or "en",
                    h=digestmod.headline(result),
                    cheapest=digestmod.cheapest_now(db, day),
                    problems=report.problems,
                )
            )
    return 1 if report.feeds and all(f.status == "failed" for f in report.feeds) else 0


def cmd_prices_show(args) -> int:
    from advisor import catalog
    from advisor.market.prices import current_prices, shown_filters
    from advisor.text.render import render

    # besides the GPU, the billing and the market may be named ("H800 monthly", "H100 hourly global")
    named, kinds, markets = shown_filters(args.gpu or [])
    gpu = None
    if named:
        found = catalog.find_gpu(named)
        if found is None:
            known = ", ".join(g.name for g in catalog.gpus())
            print(phrase("en", "unknown_gpu_shown", ascii(named[:40]), known, file="cli"), file=sys.stderr)
            return 2
        gpu = found.name
    with closing(open_store()) as db:
        book = price_book(db, LOCAL_OWNER)
        groups = current_prices(book, gpu, per_gpu=None if args.json else 5, kinds=kinds, markets=markets)
    if args.json:
        _print_json(groups)
    else:
        print(render("prices.txt.j2", args.lang or "en", groups=groups, gpu=gpu))
    return 0


def cmd_digest(args) -> int:
    import datetime as dt

    from advisor.market import digest as digestmod
    from advisor.market import store
    from advisor.text.render import render

    # --post's Slack settings first: nothing printed and nothing started when it cannot post
    settings = _bot_settings("digest") if args.post else None
    if args.post and settings is None:
        return 2
    db = open_store()
    date = args.date or store.latest_snapshot_date(db) or dt.date.today().isoformat()
    try:
        day = dt.date.fromisoformat(date)
    except ValueError:
        print(f"gpu-advisor: --date must look like 2024-02-05, not {date!r}", file=sys.stderr)
        return 2
    if day > dt.date.today() + dt.timedelta(days=1):  # a day's grace for time zones ahead
        print(f"gpu-advisor: --date {date} is in the future: no prices are on record for it yet", file=sys.stderr)
        return 2
    result = digestmod.compute_digest(db, date)
    if args.json:
        _print_json(result.to_json())
    else:
        print(
            render(
                "digest.txt.j2",
                args.lang or "en",
                h=digestmod.headline(result),
                cheapest=digestmod.cheapest_now(db, date),
                problems=[],
            )
        )
    if args.post:
        from bot import clients, digests, subscriptions

        failed: list[str] = []
        sent = digests.post_due(clients.for_workspaces(settings), date=date, ignore_time=True, failed=failed)
        # the others had today's digest already (one a channel a day), or Slack refused them
        subscribed = len(subscriptions.all_subscriptions())
        print(
            f"posted to {sent} of {subscribed} subscribed channel(s)"
            + (f"; {len(failed)} failed ({', '.join(sorted(set(failed)))})" if failed else "")
            + (
                f"; {subscribed - sent - len(failed)} had today's digest already"
                if subscribed - sent - len(failed) > 0
                else ""
            ),
            file=sys.stderr,
        )
    return 0


# The CLI is the composition root: it alone imports bot/, and only inside the commands that
# start it, so `ask` does not load Bolt at start-up.
def _bot_settings(mode: str):
    from bot.settings import Settings

    settings = Settings.from_env()
    missing = (
        settings.missing_for_http()
        if mode == "serve"
        else settings.missing_for_posting()
        if mode in ("work", "clock", "digest")
        else settings.missing_for_socket()
    )
    if missing:
        print(phrase("en", "missing_settings", mode=mode, missing=missing, file="cli"), file=sys.stderr)
        return None
    if mode in ("serve", "work", "clock", "digest") and not settings.oauth:
        from bot import clients, logs

        if mode != "digest":  # the token check's own warning in the process's log format
            logs.setup()
        refused = clients.token_refused(settings)
        if refused:  # a revoked or mistyped token: no retry mends it (workers had died on it)
            print(phrase("en", "token_refused", mode=mode, code=refused, file="cli"), file=sys.stderr)
            return None
    return settings


def _port_taken(port: int) -> bool:
    """Said before anything starts: a second `serve` on a port in use had looped on gunicorn's
    "Connection in use" and exited 1 (a planning one after starting its `work`)."""
    from bot.settings import bind_address
    from bot.web import port_taken

    if port_taken(port, bind_address()):
        print(phrase("en", "port_taken", port, file="cli"), file=sys.stderr)
        return True
    return False


def _run_bot(mode: str) -> int:
    """`serve` (HTTP, gunicorn) or `socket` (Socket Mode), once the settings are there."""
    if mode == "serve" and _port_taken(int(os.environ.get("PORT") or 3000)):
        return 2
    settings = _bot_settings(mode)
    if settings is None:
        return 2
    from bot import logs

    logs.setup()
    if mode == "serve":
        from bot import web

        web.serve(settings)
    else:
        from bot import socket_mode

        socket_mode.run(settings)
    return 0


def cmd_serve(args) -> int:
    if getattr(args, "no_plan", False) or os.environ.get("GPU_ADVISOR_PLAN", "1") == "0":
        os.environ["GPU_ADVISOR_PLAN"] = "0"
        return _run_bot("serve")
    # Planning too: gunicorn acking only, and one `work` process beside it (bot/host.py).
    if _port_taken(int(os.environ.get("PORT") or 3000)) or _bot_settings("serve") is None:
        return 2
    from bot import host, logs

    logs.setup()
    # The schema made current once, before either child starts (a bad DATABASE_URL: exit 2 now).
    open_store().close()
    return host.run()


def cmd_socket(args) -> int:
    return _run_bot("socket")


def _stopped_by_signals():
    """An event SIGTERM or SIGINT sets (a process's clean stop), and the signals received."""
    import signal
    import threading

    stop = threading.Event()
    signalled: list = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda number, _frame: (signalled.append(signal.Signals(number)), stop.set()))
    return stop, signalled


def cmd_clock(args) -> int:
    settings = _bot_settings("clock")
    if settings is None:
        return 2
    from bot import clients, digests, logs

    # The store reached (and its schema made current) before the first round: a DATABASE_URL
    # that cannot work is said at once (exit 2); a database that goes away later is waited for.
    open_store().close()
    logs.setup()
    import logging

    from bot import heartbeats

    interval = digests.interval_s()
    beat = heartbeats.start("clock", rounds_every=interval)
    # SIGTERM or SIGINT ends it after the round under way, its heartbeat row removed (operator
    # review: a clock stopped with SIGTERM had been listed for three beats, then as quiet)
    stop, signalled = _stopped_by_signals()
    digests.clock(clients.for_workspaces(settings), interval=interval, stop=stop, on_round=beat.round_done)
    logging.getLogger("gpu_advisor.bot").info("clock stopping on %s", signalled[0].name if signalled else "?")
    beat.stop()
    return 0


def cmd_health(args) -> int:
    """The processes live on the store (their heartbeats, bot/heartbeats.py), for people and
    supervisors: exit 1 when the store does not answer or a kind `--need`s more live processes."""
    import sqlalchemy as sa

    from advisor import db as dbmod
    from bot import heartbeats

    needs: list[tuple[str, int]] = []
    for need in args.need:
        kind, _, count = need.partition("=")
        if kind not in heartbeats.KINDS or (count and (not count.isdigit() or int(count) < 1)):
            raise UsageError(
                f"gpu-advisor: --need takes a kind of process ({', '.join(heartbeats.KINDS)}) and, after =,"
                f" how many must be live: --need work or --need work=2, not {need!r}"
            )
        needs.append((kind, int(count or 1)))
    url = dbmod.database_url()
    where = dbmod.redact(url)
    problem, found = None, []
    path = dbmod.sqlite_file(url)
    if path is not None and not os.path.exists(path):  # a health check never makes a store
        problem = f"no database file {path} (GPU_ADVISOR_DB; DATABASE_URL for PostgreSQL)"
    else:
        try:
            with dbmod.Database(url) as db:
                if heartbeats.TABLE in db.table_names():
                    found = heartbeats.processes(db)
                else:
                    problem = "no process_heartbeats table: the store is older than this release (gpu-advisor migrate)"
        except dbmod.Unreachable as err:
            problem = phrase("en", "database_unreachable", err.parts(), file="cli").removeprefix("gpu-advisor: ")
        except sa.exc.DBAPIError as err:
            problem = f"the database did not answer: {type(err.orig or err).__name__}"
    live = heartbeats.live_of(found)
    verdicts = [(kind, n, live.get(kind, 0) >= n) for kind, n in needs]
    ok = problem is None and all(v[2] for v in verdicts)
    if args.json:
        _print_json(
            {
                "ok": ok,
                "store": where,
                "database": "ok" if problem is None else problem,
                "live": live,
                "processes": [
                    {
                        "kind": p.kind,
                        "host": p.host,
                        "pid": p.pid,
                        "up_s": round(p.now - p.started_at, 1),
                        "seen_s_ago": round(p.now - p.last_seen, 1),
                        "live": p.live,
                        "problem": p.problem,
                        "last_round": p.last_round(),
                    }
                    for p in found
                ],
                "needs": [{"kind": k, "at_least": n, "live": live.get(k, 0), "ok": good} for k, n, good in verdicts],
            }
        )
    else:
        from advisor.text.render import render

        # A clock whose rounds fail or stopped shows that as its problem (the template shows one)
        shown = [dataclasses.replace(p, problem="; ".join(filter(None, (p.problem, p.round_trouble)))) for p in found]
        print(render("health.txt.j2", "en", where=where, problem=problem, processes=shown, live=live, needs=verdicts))
    return 0 if ok else 1


def cmd_migrate(args) -> int:
    """Create or upgrade the schema of the store DATABASE_URL (or GPU_ADVISOR_DB) names."""
    from advisor import db as dbmod
    from advisor import migrations

    url = dbmod.database_url()
    db = dbmod.Database(url)
    try:
        before, after = migrations.upgrade(db)
    finally:
        db.close()
    # The price store's seed and its older SQLite steps, as any first open does.
    open_store().close()
    if dbmod.is_postgres(url):
        # slack_sdk's installation and OAuth-state tables too (`serve` had made them at its start,
        # so the role it runs as needed to create tables: operator review), under the migrations'
        # lock: two `migrate` at once had raced on CREATE TABLE, one failing
        import sqlalchemy as sa
        from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
        from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore

        engine = dbmod.engine(url)
        with engine.connect() as conn:  # (in autocommit: a session's lock, let go after)
            conn.execute(sa.text("SELECT pg_advisory_lock(:key)"), {"key": migrations.LOCK_KEY})
            try:
                SQLAlchemyInstallationStore(client_id="", engine=engine).metadata.create_all(conn)
                SQLAlchemyOAuthStateStore(expiration_seconds=600, engine=engine).metadata.create_all(conn)
            finally:
                conn.execute(sa.text("SELECT pg_advisory_unlock(:key)"), {"key": migrations.LOCK_KEY})
    where = dbmod.redact(url)
    if before == after:
        print(f"{where}: schema current (revision {after})", file=sys.stderr)
    else:
        print(f"{where}: schema upgraded from {before or 'nothing'} to revision {after}", file=sys.stderr)
    return 0


def cmd_work(args) -> int:
    """Planning processes that take jobs from the shared store, with no web server."""

    settings = _bot_settings("work")
    if settings is None:
        return 2
    from bot import answers, clients, dispatcher, logs, planner_pool

    logs.setup()
    if args.planners:
        os.environ["GPU_ADVISOR_PLAN_WORKERS"] = str(args.planners)
    os.environ.setdefault("WEB_CONCURRENCY", "1")
    running = dispatcher.start(clients.for_workspaces(settings))
    planner_pool.start(answers.ready)
    import logging

    from bot import heartbeats

    beat = heartbeats.start("work", dispatcher.own_problem)
    log = logging.getLogger("gpu_advisor.bot")
    log.info("worker %s taking jobs", running.owner if running else "?")
    stop, signalled = _stopped_by_signals()
    while not stop.wait(1.0):
        if args.parent and os.getppid() != args.parent:  # the `serve` that started it is gone
            log.warning("serve %d is gone: stopping", args.parent)
            break
    if signalled:  # an operator's stop is said (operator probe: it had left no line in the log)
        log.info("worker %s stopping on %s", running.owner if running else "?", signalled[0].name)
    beat.stop()  # gone at once from `gpu-advisor health`, not after three missed beats
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpu-advisor",
        description="Sizes GPU training servers: which GPUs, how many, how long, what it costs.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    ask = sub.add_parser("ask", help="answer a request, as /gpu TEXT does in Slack")
    ask.add_argument("text", nargs="+", help='e.g. "70B full-finetune 1TB 14d budget"')
    ask.add_argument("--json", action="store_true", help="print the recommendation as JSON")
    ask.add_argument("--lang", choices=["en", "zh"], help="reply language")
    ask.add_argument("--rfq", action="store_true", help="print a vendor-ready request for quote for the plan")
    ask.add_argument(
        "--follow-up",
        action="append",
        default=[],
        metavar="MESSAGE",
        help='a message in the plan\'s thread ("what if 30 days?"), answered as the bot answers it; repeat for more',
    )
    ask.set_defaults(func=cmd_ask)

    prices = sub.add_parser("prices", help="the price store: import price lists, show current prices")
    prices_sub = prices.add_subparsers(dest="prices_command", required=True)
    imp = prices_sub.add_parser("import", help="load SkyPilot snapshots or vendor-quote CSV files")
    imp.add_argument("paths", nargs="+", help="CSV files: SkyPilot vms.csv snapshots or vendor quotes")
    imp.add_argument("--source", help="source name to record (default: from the file layout)")
    imp.add_argument(
        "--as-of",
        dest="as_of",
        help="date for files without a date column (YYYY-MM-DD; a SkyPilot vms.csv: default today)",
    )
    imp.add_argument("--cloud", help="the cloud of a SkyPilot vms.csv not under .../<cloud>/vms.csv")
    imp.add_argument("--json", action="store_true")
    imp.set_defaults(func=cmd_prices_import)
    fetch = prices_sub.add_parser(
        "fetch", help="fetch the price feeds now (GPU_ADVISOR_PRICE_FEEDS) and print what changed"
    )
    fetch.add_argument("feeds", nargs="*", help="feed URLs or the word skypilot (default: GPU_ADVISOR_PRICE_FEEDS)")
    fetch.add_argument("--as-of", dest="as_of", help="date to record the prices under (default: today)")
    fetch.add_argument("--timeout", type=float, default=60, help="seconds allowed per feed (default 60)")
    fetch.add_argument("--json", action="store_true")
    fetch.add_argument("--lang", choices=["en", "zh"])
    fetch.set_defaults(func=cmd_prices_fetch)
    show = prices_sub.add_parser("show", help="current prices, cheapest first, with source and date")
    show.add_argument("gpu", nargs="*", help="a GPU, and optionally hourly or monthly, china or global")
    show.add_argument("--json", action="store_true")
    show.add_argument("--lang", choices=["en", "zh"])
    show.set_defaults(func=cmd_prices_show)

    dig = sub.add_parser("digest", help="the price-change digest for a date")
    dig.add_argument("--date", help="YYYY-MM-DD (default: the newest snapshot)")
    dig.add_argument("--json", action="store_true", help="print the digest as JSON")
    dig.add_argument("--post", action="store_true", help="send it to the subscribed Slack channels")
    dig.add_argument("--lang", choices=["en", "zh"], help="the digest's language (default en)")
    dig.set_defaults(func=cmd_digest)

    faq = sub.add_parser("faq", help="answer a follow-up question (no plan context)")
    faq.add_argument("text", nargs="+", help='e.g. "why NVLink?" or "内存要配多少"')
    faq.add_argument("--json", action="store_true")
    faq.add_argument("--lang", choices=["en", "zh"])
    faq.set_defaults(func=cmd_faq)

    quote = sub.add_parser("quote", help="judge a vendor's quote against the market and record it")
    quote.add_argument(
        "text",
        nargs="+",
        help='e.g. "8xH800 ¥95000/month 3 months Acme" (recorded when a vendor is named; "remove Acme" withdraws it)',
    )
    quote.add_argument("--json", action="store_true")
    quote.add_argument("--lang", choices=["en", "zh"])
    quote.set_defaults(func=cmd_quote)

    serve = sub.add_parser(
        "serve",
        help="Slack HTTP mode (POST /slack/events, GET /healthz) on $PORT",
        description="Serves Slack over HTTP on $PORT: acks every slash command, event and button in"
        " time and queues its job in the store; plans too (a `work` process beside the web"
        " processes) unless --no-plan. Needs SLACK_SIGNING_SECRET and SLACK_BOT_TOKEN (or"
        " SLACK_CLIENT_ID and SLACK_CLIENT_SECRET for OAuth); DATABASE_URL for a shared Postgres,"
        " else the SQLite file GPU_ADVISOR_DB; WEB_CONCURRENCY, WEB_THREADS (docs/CONTRACT.md).",
    )
    serve.add_argument(
        "--no-plan",
        dest="no_plan",
        action="store_true",
        help="only ack and enqueue: `gpu-advisor work` processes plan (GPU_ADVISOR_PLAN=0)",
    )
    serve.set_defaults(func=cmd_serve)
    work = sub.add_parser(
        "work",
        help="planning processes that take jobs from the shared store, no web server",
        description="Takes the queued jobs from the store, plans them and posts the answers to Slack;"
        " run one or more on any host beside `serve --no-plan`. Needs SLACK_BOT_TOKEN (or OAuth's"
        " client id and secret), DATABASE_URL (or GPU_ADVISOR_DB); GPU_ADVISOR_PLAN_WORKERS and"
        " GPU_ADVISOR_PLAN_PRIORITY size and rank its planning processes.",
    )
    work.add_argument("--planners", type=int, help="planning processes (default: GPU_ADVISOR_PLAN_WORKERS or CPUs)")
    # the pid of the `serve` that started this one beside gunicorn (bot/host.py): stop when it is gone
    work.add_argument("--parent", type=int, help=argparse.SUPPRESS)
    work.set_defaults(func=cmd_work)
    mig = sub.add_parser(
        "migrate",
        help="create or upgrade the schema of DATABASE_URL (or GPU_ADVISOR_DB)",
        description="Creates the store's tables or upgrades them to the current revision (Alembic), on"
        " DATABASE_URL or the SQLite file GPU_ADVISOR_DB; safe to run again and on several hosts.",
    )
    mig.set_defaults(func=cmd_migrate)
    clock = sub.add_parser(
        "clock",
        help="the scheduler: daily price feeds and digests (the Procfile's clock)",
        description="Every GPU_ADVISOR_CLOCK_INTERVAL_S seconds: fetches the day's price feeds"
        " (GPU_ADVISOR_PRICE_FEEDS) once, and posts each subscribed channel's digest once a day at"
        " its time; several clocks may run on one store. Needs SLACK_BOT_TOKEN (or OAuth's client"
        " id and secret) and DATABASE_URL (or GPU_ADVISOR_DB); GPU_ADVISOR_TZ sets the team's day.",
    )
    clock.set_defaults(func=cmd_clock)
    health = sub.add_parser(
        "health",
        help="the live serve, work and clock processes on the store; exit 1 when one needed is missing",
        description="Lists the serve, work, clock and socket processes whose heartbeats the store"
        " holds, with their host, pid and age; exit 1 when the store does not answer or a --need"
        " is not met (for supervisors and load balancers).",
    )
    health.add_argument(
        "--need",
        action="append",
        default=[],
        metavar="KIND[=N]",
        help="exit 1 unless at least N (1) processes of KIND (serve, work, clock, socket) are live and well; repeat",
    )
    health.add_argument("--json", action="store_true")
    health.set_defaults(func=cmd_health)
    socket = sub.add_parser(
        "socket",
        help="Slack Socket Mode, for local development",
        description="Connects to Slack over Socket Mode (no public URL): needs SLACK_APP_TOKEN"
        " (xapp-...) and SLACK_BOT_TOKEN.",
    )
    socket.set_defaults(func=cmd_socket)
    return parser


# The numbers the environment may set (CONTRACT section 2): name -> (a whole number, an example).
# Checked before any command runs, so a typo (PORT=5552B) is named, not an internal error.
NUMERIC_ENV = {
    "PORT": (True, "3000"),
    "WEB_CONCURRENCY": (True, "2"),
    "WEB_THREADS": (True, "8"),
    "GPU_ADVISOR_PLAN_WORKERS": (True, "2"),
    "GPU_ADVISOR_DB_POOL": (True, "5"),
    "GPU_ADVISOR_JOB_ATTEMPTS": (True, "6"),
    "GPU_ADVISOR_PRICE_BOOKS": (True, "32"),
    "GPU_ADVISOR_JOB_LEASE_S": (False, "30"),
    "GPU_ADVISOR_CLOCK_INTERVAL_S": (False, "30"),
    "GPU_ADVISOR_SLACK_TIMEOUT": (False, "30"),
    "GPU_ADVISOR_RETRY_BASE_S": (False, "1"),
    "GPU_ADVISOR_RETRY_AFTER_CAP_S": (False, "60"),
    "GPU_ADVISOR_HEARTBEAT_S": (False, "5"),
    "GPU_ADVISOR_CLOCK_GRACE_S": (False, "300"),
}
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# The planning processes' priorities (bot/planner_pool.py says what each is for).
PLAN_PRIORITIES = ("idle", "low", "normal")


def env_problem(environ=None) -> str | None:
    """What is wrong with the numbers (and the log level) the environment sets, in words; None
    when nothing is. An empty value is unset (the default)."""
    environ = os.environ if environ is None else environ
    for name, (whole, example) in NUMERIC_ENV.items():
        raw = (environ.get(name) or "").strip()
        if not raw:
            continue
        try:
            number = int(raw) if whole else float(raw)
            # NaN and inf fail too; PORT=0 (any free port) is gunicorn's to take, and harmless elsewhere
            ok = 0 <= number < 65536 if name == "PORT" else 0 < number < float("inf")
        except ValueError:
            ok = False
        if not ok:
            return phrase("en", "bad_env_number", name, ascii(raw[:40]), whole, example, file="cli")
    level = (environ.get("LOG_LEVEL") or "").strip()
    if level and level.upper() not in LOG_LEVELS:
        return phrase("en", "bad_log_level", ascii(level[:40]), file="cli")
    url = (environ.get("DATABASE_URL") or "").strip()
    if url and dbmod.url_problem(url):
        return phrase("en", "bad_database_url", dbmod.url_problem(url), dbmod.redact(url), file="cli")
    zone = timezone.unknown(environ)
    if zone:
        return phrase("en", "bad_tz", ascii(zone[:60]), file="cli")
    from bot.settings import bind_problem

    bind = (environ.get("GPU_ADVISOR_BIND") or "").strip()
    if bind and bind_problem(bind):
        return phrase("en", "bad_bind", ascii(bind[:60]), file="cli")
    plan = (environ.get("GPU_ADVISOR_PLAN") or "").strip()
    if plan and plan not in ("0", "1"):
        return phrase("en", "bad_plan_switch", ascii(plan[:40]), file="cli")
    plan_priority = (environ.get("GPU_ADVISOR_PLAN_PRIORITY") or "").strip()
    if plan_priority and plan_priority.lower() not in PLAN_PRIORITIES:
        return phrase("en", "bad_plan_priority", ascii(plan_priority[:40]), file="cli")
    return None


def main(argv: list[str] | None = None) -> int:
    from advisor.db import Unreachable

    parser = build_parser()
    args = parser.parse_args(argv)
    problem = env_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 2
    try:
        return args.func(args)
    except (UsageError, ConfigError) as err:
        print(str(err), file=sys.stderr)
        return 2
    except Unreachable as err:  # a closed port, a wrong password, no such database: configuration
        print(phrase("en", "database_unreachable", err.parts(), file="cli"), file=sys.stderr)
        if os.environ.get("GPU_ADVISOR_DEBUG"):
            traceback.print_exc()
        return 2
    except KeyboardInterrupt:
        return 1
    except BrokenPipeError:  # the reader closed the pipe (e.g. `| head`): nothing to report
        sys.stderr.close()
        return 0
    except Exception as err:  # anything unexpected: short line, details only on request
        print(f"gpu-advisor: internal error: {err.__class__.__name__}: {err}", file=sys.stderr)
        if os.environ.get("GPU_ADVISOR_DEBUG"):
            traceback.print_exc()
        return 1


if __name__ == "__main__":
    sys.exit(main())
