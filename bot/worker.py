"""The planning work, run in a process pool so it never holds the GIL that the web threads
need to ack Slack within 3 seconds. Functions here take and return plain data (they cross a
process boundary) and call only the core."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

_pool: ProcessPoolExecutor | None = None
_pool_pid: int | None = None


def pool() -> ProcessPoolExecutor:
    """One pool per process (gunicorn forks workers: each makes its own, after the fork)."""
    global _pool, _pool_pid
    if _pool is None or _pool_pid != os.getpid():
        workers = int(os.environ.get("GPU_ADVISOR_PLAN_WORKERS") or 2)
        _pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
        _pool_pid = os.getpid()
    return _pool


def run(fn, *args):
    """Run `fn(*args)` in the pool and wait for it (the waiting thread holds no GIL)."""
    return pool().submit(fn, *args).result(timeout=120)


def answer(text: str, lang: str | None) -> dict:
    """A /gpu request -> the channel message, its thread replies and what the thread stores."""
    from advisor.advice import advise, plan_context, render_checklist, render_text
    from advisor.parser import RequestError
    from bot import blocks

    try:
        result = advise(text, lang)
    except RequestError as err:
        return {"ok": False, "error": err.message(lang or err.lang)}
    msg = blocks.message(render_text(result, checklist=False))
    if result.plan is not None:
        msg["thread"].append(blocks.plain(render_checklist(result)))
    return {"ok": True, "lang": result.request.lang, "message": msg, "summary": plan_context(result)}


def follow(request_text: str, summary: dict, text: str, lang: str | None) -> dict:
    """A message in a plan's thread -> the reply (what-if or FAQ answer)."""
    from advisor.followup import follow_up
    from bot import blocks

    reply = follow_up(request_text, summary, text, lang)
    return {"ok": True, "kind": reply.kind, "message": blocks.plain(reply.text)}
