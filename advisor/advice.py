"""One answer to one /gpu request: parse, estimate, plan, cost; JSON and terminal text.

The CLI and the Slack bot both call `advise`, so they answer the same.
"""

from __future__ import annotations

from pydantic import BaseModel

from advisor.parser import parse
from advisor.render import render
from advisor.request import TrainingRequest


class Advice(BaseModel):
    request: TrainingRequest

    def to_json(self) -> dict:
        req = self.request.model_dump(mode="json")
        return {"request": req}


def advise(text: str, lang: str | None = None) -> Advice:
    request = parse(text, lang)
    return Advice(request=request)


def render_text(result: Advice) -> str:
    lang = result.request.lang
    return render(f"answer.{lang}.txt.j2", a=result, r=result.request)
