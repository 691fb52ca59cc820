"""The core's answers as Slack messages, computed in the planning processes (bot/pool.py):
plain data in, plain data out."""

from __future__ import annotations

from contextlib import closing

from advisor.market.prices import PriceBook, price_book
from advisor.market.store import open_store
from advisor.planning.advice import advise, plan_context, render_checklist, render_rfq, render_section, render_text
from advisor.planning.followup import follow_up
from advisor.request.parser import RequestError
from bot import blocks


def prices_for(owner: str) -> PriceBook:
    """The price book `owner` (a workspace id) sees: the shared market data and its own quotes."""
    with closing(open_store()) as db:
        return price_book(db, owner)


def answer(text: str, lang: str | None, book: PriceBook) -> dict:
    """A /gpu request -> the channel message, its thread replies and what the thread stores."""
    try:
        result = advise(text, lang, book=book)
    except RequestError as err:
        return {"ok": False, "error": err.message(lang or err.lang)}
    buttons = result.plan is not None
    msg = blocks.message(render_text(result, checklist=False), buttons=result.request.lang if buttons else None)
    if result.plan is not None:
        msg["thread"].append(blocks.plain(render_checklist(result)))
    return {"ok": True, "lang": result.request.lang, "message": msg, "summary": plan_context(result)}


def follow(request_text: str, summary: dict, text: str, lang: str | None, book: PriceBook) -> dict:
    """A message in a plan's thread -> the reply (what-if or FAQ answer)."""
    reply = follow_up(request_text, summary, text, lang, book=book)
    return {"ok": True, "kind": reply.kind, "message": blocks.plain(reply.text)}


def part(request_text: str, which: str, lang: str, book: PriceBook) -> dict:
    """One part of a stored plan for a button: costs, alternatives, checklist or the RFQ."""
    result = advise(request_text, lang, book=book)
    if which == "rfq":
        return {"ok": True, "text": render_rfq(result) or ""}
    return {"ok": True, "message": blocks.plain(render_section(result, which))}


def ready() -> bool:
    """Plan once, so a planning process has its imports, catalogs, templates and price store
    loaded before the first request."""
    advise("7b lora 1GB 1d on 1x4090", book=prices_for(""))
    return True
