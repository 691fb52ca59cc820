"""Answers in a thread under a plan: a what-if re-plans the stored request with one change
and says what changed; "how did you get 13 days?" shows that part of the plan's arithmetic;
anything else is a question, answered from the FAQ with the plan's own numbers."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

from advisor.knowledge import faq
from advisor.market.prices import PriceBook
from advisor.planning.advice import Advice, advise, advise_request, plan_context, render_section
from advisor.request.parser import RequestError, detect_lang, parse_followup
from advisor.text.render import render

# Headline numbers compared between the first plan and the what-if.
COMPARED = ("gpu", "gpu_count", "nodes", "days", "gpu_hours", "mem_per_gpu_gib", "rent_total")

# Asking where a number of the plan comes from ("how did you get 13 days?", "显存怎么算的").
ASKS_HOW = re.compile(
    r"how (?:did|do) you (?:get|come up with|arrive at|work out)|where (?:does|do|did) .* come from"
    r"|how (?:is|are|was|were) .* (?:calculated|computed|estimated|worked out)|why (?:so many|so much)"
    r"|怎么算|怎么来的|怎么得出|怎么估|如何算|为什么(?:要|是|需要)?\s*\d", re.I)
# Which part of the arithmetic the question is about; first match wins ("63.5 GiB per GPU" is
# memory, "256 GPUs" is time: the count is what meets the deadline).
EXPLAINED = (("memory", r"memory|gib|vram|显存"),
             ("costs", r"cost|rent|price|money|spend|budget|[¥$]|钱|费用|租金|价格|成本|预算"),
             ("time", r"days?|hours?|time|long|gpus?|cards?|nodes?|天|卡时|时间|多久|卡|台"))


class FollowUp(BaseModel):
    kind: Literal["whatif", "explain", "question"]
    lang: str
    changed: list[str] = []
    advice: Advice | None = None
    before: dict = {}
    after: dict = {}
    faq: dict | None = None
    text: str  # the rendered reply

    def to_json(self) -> dict:
        return {"kind": self.kind, "changed": self.changed, "before": self.before, "after": self.after,
                "faq": self.faq, "text": self.text,
                "advice": self.advice.to_json() if self.advice else None}


def follow_up(request_text: str, summary: dict, message: str, lang: str | None = None, *,
              book: PriceBook) -> FollowUp:
    """`request_text` and `summary` are what the thread stored for its first answer; `book` the
    prices the thread's owner sees."""
    reply_lang = lang or detect_lang(message)
    try:
        request, changed = parse_followup(request_text, message, reply_lang, plan_gpu=summary.get("gpu"))
    except RequestError:
        part = explained_part(message)
        if part:
            result = advise(request_text, reply_lang, book=book)
            if result.plan is not None:
                return FollowUp(kind="explain", lang=reply_lang, advice=result,
                                text=render("followup.txt.j2", reply_lang, kind="explain",
                                            section=render_section(result, part)))
        found = faq.answer(message, lang=reply_lang, plan=summary)
        data = found.model_dump() if hasattr(found, "model_dump") else dict(found.__dict__)
        return FollowUp(kind="question", lang=reply_lang, faq=data,
                        text=render("followup.txt.j2", reply_lang, kind="question", f=data))
    try:
        result = advise_request(request, book)
    except RequestError as err:  # a what-if fixing a layout that cannot run (`tp 3?`): say why
        return FollowUp(kind="question", lang=reply_lang, changed=changed, text=err.message(reply_lang))
    after = plan_context(result)
    before = {k: summary.get(k) for k in COMPARED}
    after_cmp = {k: after.get(k) for k in COMPARED}
    text = render("followup.txt.j2", reply_lang, kind="whatif", changed=changed, before=before,
                  after=after_cmp, r=request, warnings=result.warnings, currency=request.currency)
    return FollowUp(kind="whatif", lang=reply_lang, changed=changed, advice=result, before=before,
                    after=after_cmp, text=text)


def explained_part(message: str) -> str | None:
    """"memory", "costs" or "time" when the message asks how a number of the plan was worked
    out, else None."""
    if not ASKS_HOW.search(message or ""):
        return None
    return next((part for part, words in EXPLAINED if re.search(words, message, re.I)), None)
