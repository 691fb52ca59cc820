"""The planning work, run in a process pool so it never holds the GIL that the web threads
need to ack Slack within 3 seconds. Functions here take and return plain data (they cross a
process boundary) and call only the core."""

from __future__ import annotations

import logging
import multiprocessing
import os
from concurrent.futures import Future, ProcessPoolExecutor

from advisor.market.prices import PriceBook

log = logging.getLogger("gpu_advisor.bot")
_pool: ProcessPoolExecutor | None = None
_pool_pid: int | None = None
# Planning and posting run at a lower CPU priority than the web process, so acks keep their
# 3 seconds however much planning is queued.
BACKGROUND_NICE = 19


def _init_process() -> None:
    try:
        # Linux SCHED_IDLE: run only when no web thread wants the CPU; elsewhere a high nice.
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        try:
            os.nice(BACKGROUND_NICE)
        except OSError:  # not permitted: run at normal priority
            pass
    from bot import logs

    logs.setup()


# Each planning process holds about 130 MB; four plan 25-100 requests a second, far more than a
# team's channel asks for, so bigger machines do not get dozens of idle ones.
MAX_PLANNERS = 4


def planners() -> int:
    """Planning processes per web process: GPU_ADVISOR_PLAN_WORKERS, else enough to use all
    CPUs but one, shared among the WEB_CONCURRENCY web processes, at least one and at most
    MAX_PLANNERS. Even at idle priority, planning on every CPU slowed acks measurably
    (docs/bench.md)."""
    if os.environ.get("GPU_ADVISOR_PLAN_WORKERS"):
        return max(1, int(os.environ["GPU_ADVISOR_PLAN_WORKERS"]))
    web = max(1, int(os.environ.get("WEB_CONCURRENCY") or 1))
    return min(MAX_PLANNERS, max(1, ((os.cpu_count() or 2) - 1) // web))


def pool() -> ProcessPoolExecutor:
    """One pool per process (gunicorn forks workers: each makes its own, after the fork)."""
    global _pool, _pool_pid
    if _pool is None or _pool_pid != os.getpid():
        _pool = ProcessPoolExecutor(max_workers=planners(), mp_context=multiprocessing.get_context("spawn"),
                                    initializer=_init_process)
        _pool_pid = os.getpid()
    return _pool


def submit(fn, *args) -> Future:
    """Run a job (bot/jobs.py) in the pool and return at once. The job plans, posts and stores
    by itself: Bolt runs every listener on one small thread pool (slack_bolt
    listener_executor), and the web process's GIL is shared by every ack, so nothing heavy may
    happen there."""
    future = pool().submit(fn, *args)
    future.add_done_callback(_log_failure)
    return future


def _log_failure(future: Future) -> None:
    err = future.exception()
    if err is not None:
        log.error("background job failed: %s: %s", type(err).__name__, err)


def prices_for(owner: str) -> PriceBook:
    """The price book `owner` (a workspace id) sees: the shared market data and its own quotes."""
    from contextlib import closing

    from advisor.market.prices import price_book
    from advisor.market.store import open_store

    with closing(open_store()) as db:
        return price_book(db, owner)


def answer(text: str, lang: str | None, book: PriceBook) -> dict:
    """A /gpu request -> the channel message, its thread replies and what the thread stores."""
    from advisor.planning.advice import advise, plan_context, render_checklist, render_text
    from advisor.request.parser import RequestError
    from bot import blocks

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
    from advisor.planning.followup import follow_up
    from bot import blocks

    reply = follow_up(request_text, summary, text, lang, book=book)
    return {"ok": True, "kind": reply.kind, "message": blocks.plain(reply.text)}


def part(request_text: str, which: str, lang: str, book: PriceBook) -> dict:
    """One part of a stored plan for a button: costs, alternatives, checklist or the RFQ."""
    from advisor.planning.advice import advise, render_rfq, render_section
    from bot import blocks

    result = advise(request_text, lang, book=book)
    if which == "rfq":
        return {"ok": True, "text": render_rfq(result) or ""}
    return {"ok": True, "message": blocks.plain(render_section(result, which))}


def form_values(request_text: str) -> dict:
    """A stored request as the form's initial values (the Re-plan button)."""
    from advisor.request.parser import parse

    r = parse(request_text)
    data = None
    if r.data:
        amount, unit = r.data.amount, r.data.unit
        data = {"bytes": f"{amount / 1e9:g}GB", "tokens": f"{amount / 1e9:g}B tokens",
                "samples": f"{amount:g} samples"}[unit]
        if r.epochs != 1:
            data += f" {r.epochs:g} epochs"
    return {
        "model": r.model or f"{r.params_b:g}B" + (f"-A{r.active_params_b:g}B" if r.is_moe else ""),
        "method": r.method, "data": data,
        "deadline": f"{r.deadline_days:g}d" if r.deadline_days else None,
        "budget": f"{r.budget.amount:g} {r.budget.currency}" if r.budget else None,
        "gpu": r.gpu, "lang": r.lang,
    }


def _ready() -> bool:
    from advisor.planning.advice import advise

    advise("7b lora 1GB 1d on 1x4090", book=prices_for(""))  # imports, catalogs, templates, price store
    return True


def warm_up() -> None:
    """Load everything once before the first request (a gunicorn worker calls this at boot), so
    the first acks do not wait on imports and the pool's processes are already running."""
    from advisor.request.parser import parse
    from advisor.text.render import phrase

    parse("70B full-finetune 1TB 14d budget")  # @mentions are read in the web process
    for lang in ("en", "zh"):  # each language's phrases compile on first use (about 10 ms)
        phrase(lang, "working", "", file="bot")
    for future in [pool().submit(_ready) for _ in range(planners())]:
        future.result(timeout=120)
