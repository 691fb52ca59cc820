"""Answers in a thread under a plan: a what-if re-plans the stored request with one change
and says what changed; anything else is a question, answered from the FAQ with the plan's
own numbers."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from advisor import faq
from advisor.advice import Advice, advise_request, plan_context
from advisor.parser import RequestError, detect_lang, parse_followup
from advisor.render import render

# Headline numbers compared between the first plan and the what-if.
COMPARED = ("gpu", "gpu_count", "nodes", "days", "gpu_hours", "mem_per_gpu_gib", "rent_total")


class FollowUp(BaseModel):
    kind: Literal["whatif", "question"]
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


def follow_up(request_text: str, summary: dict, message: str, lang: str | None = None) -> FollowUp:
    """`request_text` and `summary` are what the thread stored for its first answer."""
    reply_lang = lang or detect_lang(message)
    try:
        request, changed = parse_followup(request_text, message, reply_lang)
    except RequestError:
        found = faq.answer(message, lang=reply_lang, plan=summary)
        data = found.model_dump() if hasattr(found, "model_dump") else dict(found.__dict__)
        return FollowUp(kind="question", lang=reply_lang, faq=data,
                        text=render(f"followup.{reply_lang}.txt.j2", kind="question", f=data))
    result = advise_request(request)
    after = plan_context(result)
    before = {k: summary.get(k) for k in COMPARED}
    after_cmp = {k: after.get(k) for k in COMPARED}
    text = render(f"followup.{reply_lang}.txt.j2", kind="whatif", changed=changed, before=before,
                  after=after_cmp, r=request, warnings=result.warnings, currency=request.currency)
    return FollowUp(kind="whatif", lang=reply_lang, changed=changed, advice=result, before=before,
                    after=after_cmp, text=text)
