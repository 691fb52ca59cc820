"""The core's answers as Slack messages, computed in the planning processes (bot/planner_pool.py):
plain data in, plain data out. Block Kit is built from the core's data by bot/blocks.py."""

from __future__ import annotations

from contextlib import closing

from advisor.knowledge import faq
from advisor.market.prices import PriceBook, price_book
from advisor.market.store import open_store
from advisor.planning.advice import (
    COMPARED,
    advise,
    compare,
    comparison_context,
    faq_first,
    faq_instead,
    faq_on_a_plan,
    plan_context,
    refusal,
    render_rfq,
)
from advisor.planning.followup import follow_up, gpu_prices
from advisor.request.parser import RequestError, detect_lang
from advisor.text.render import phrase
from bot import blocks

# The buttons under a card and the part of the plan each posts in the thread.
PARTS = ("math", "servers", "costs", "alternatives", "checklist", "rfq")


def prices_for(owner: str) -> PriceBook:
    """The price book `owner` (a workspace id) sees: the shared market data and its own quotes."""
    with closing(open_store()) as db:
        return price_book(db, owner)


def answer(text: str, lang: str | None, book: PriceBook) -> dict:
    """A /gpu request -> the channel card and what the thread stores. Nothing is auto-posted
    in the thread: the details are behind the card's buttons."""
    first = faq_first(text, lang)  # a question the FAQ answers beside a model, no plan asked
    if first is not None:
        return {"ok": True, "lang": first[0].lang, "message": blocks.plain(first[1]), "summary": None}
    try:
        result = advise(text, lang, book=book)
    except RequestError as err:
        try:
            compared = compare(text, lang, book=book) if err.kind in COMPARED else None
        except RequestError as refused:  # a side that cannot be planned, or too many to compare
            compared, err = None, refused
        if compared is not None:  # "H200 vs B200": the job planned on each, side by side
            return {
                "ok": True,
                "lang": compared.lang,
                "message": blocks.comparison(compared),
                "summary": comparison_context(compared),  # its thread answers on the option named
            }
        # a GPU's price ("H800月租多少"): the offers on record, as a thread's reply lays them out
        priced = gpu_prices(text, lang or detect_lang(text), book)
        if priced is not None:  # or what a sum buys, or a delivery ("100万能买几台H20"): its own text
            laid = blocks.plain(priced.text) if priced.kind != "prices" else None
            return {
                "ok": True,
                "lang": priced.lang,
                "message": laid
                or blocks.prices(priced.rows, priced.part, priced.lang, priced.lead, priced.bought, priced.buy_first),
                "summary": None,
            }
        # a question with no plan in it, or on a word beside a plan ("一年电费多少"): the FAQ answers
        answered = faq_instead(text, lang, err) or faq_on_a_plan(text, lang, err, book)
        if answered is None:
            return {"ok": False, "error": refusal(err, lang, book)}
        return {"ok": True, "lang": answered[0].lang, "message": blocks.plain(answered[1]), "summary": None}
    summary = plan_context(result)
    return {"ok": True, "lang": result.request.lang, "message": blocks.card(result), "summary": summary}


def follow(
    request_text: str, summary: dict, text: str, lang: str | None, book: PriceBook, mentioned: bool = True
) -> dict:
    """A message in a plan's thread -> the reply, or {"message": None} when the bot was not
    spoken to (thanks, agreement, people talking to each other)."""
    reply = follow_up(request_text, summary, text, lang, book=book, mentioned=mentioned)
    if reply.kind == "silent":
        return {"ok": True, "kind": "silent", "message": None}
    if reply.kind in ("whatif", "market") and reply.after:
        msg = blocks.whatif(reply)
    elif reply.kind == "explain":
        msg = blocks.explain(reply, reply.rows if reply.part == "gpus" else None)
    elif reply.kind == "part" and reply.part == "rfq":
        # "can you write an RFQ?": a file in the thread, as the card's button uploads it; the
        # message is posted only where the upload fails
        rfq = render_rfq(reply.advice) or ""
        return {
            "ok": True,
            "kind": reply.kind,
            "message": blocks.rfq(rfq, reply.lang),
            "file": _rfq_file(rfq, reply.lang),
        }
    elif reply.kind == "part":
        msg = blocks.part(reply, reply.rows if reply.part == "vendor" else None)
    elif reply.kind == "prices":  # "how much is an H100 per hour?": as `/gpu prices H100` lays them out
        msg = blocks.prices(reply.rows, reply.part, reply.lang, reply.lead, reply.bought, reply.buy_first)
    else:  # also a what-if with no plan to set beside the first (a lease term): its text says it all
        msg = blocks.plain(reply.text)
    if reply.on:  # in a comparison's thread: which option the reply is about, above it
        msg = blocks.noted(msg, reply.on)
    # a what-if the team asked for moves the thread: stored once the reply is posted (bot/tasks.py)
    return {"ok": True, "kind": reply.kind, "message": msg, "thread": reply.thread}


def _rfq_file(text: str, lang: str) -> dict:
    """The request for quote as the file uploaded in a thread: its text, name, title, comment."""
    return {
        "text": text,
        "filename": phrase(lang, "rfq_file", file="slack/card"),
        "title": phrase(lang, "title", "rfq", file="slack/card"),
        "comment": phrase(lang, "rfq_comment", file="slack/card"),
    }


def part(request_text: str, which: str, lang: str, book: PriceBook) -> dict:
    """One part of a stored plan for a button: the arithmetic, the servers, rent vs buy, other
    options, the checklist, or the RFQ (text for a file, with its name and comment)."""
    result = advise(request_text, lang, book=book)
    if which == "rfq":
        rfq = render_rfq(result) or ""
        return {"ok": True, "file": _rfq_file(rfq, lang), "message": blocks.rfq(rfq, lang)}
    return {"ok": True, "message": blocks.details(result, which)}


def ready() -> bool:
    """Plan once, so a planning process has its imports, catalogs, templates and price store
    loaded before the first request, and build the FAQ's index (about a second) before the first
    thread question rather than during it."""
    result = advise("7b lora 1GB 1d on 1x4090", book=prices_for(""))
    blocks.card(result)
    faq.prepare()
    return True
