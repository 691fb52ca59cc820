"""Slack messages from the same text the command line prints, laid out as Block Kit by the
template templates/slack/message.json.j2 and kept inside Block Kit's limits (50 blocks, 3000
characters a section, 150 a header); what does not fit goes into the thread.

Every text put into a message here is escaped for Slack (advisor/text/safe.py `for_slack`:
``&``, ``<``, ``>``, control and bidi characters), whatever it holds: a vendor name, a feed
cell or a request word inside our template text can never ping, link or format. A fenced body
cannot be closed from inside either: a ``` in it is broken up."""

from __future__ import annotations

import json
from dataclasses import dataclass

from advisor.text.render import render
from advisor.text.safe import BACKTICK_STAND_IN, for_slack

MAX_BLOCKS = 50
MAX_SECTION = 3000
MAX_HEADER = 150
MAX_FALLBACK = 3000
# Sections shown in the channel message; the rest (checklist, long arithmetic) go to the thread.
MAIN_SECTIONS = 8


@dataclass
class Section:
    heading: str
    body: str


def split_sections(text: str) -> tuple[str, list[Section]]:
    """Terminal answer -> (summary line, sections). Sections are separated by blank lines and
    start with a heading line; a block without an indented body is a heading-less section."""
    chunks = [c.strip("\n") for c in text.strip("\n").split("\n\n") if c.strip()]
    summary = chunks[0].strip() if chunks else ""
    sections = []
    for chunk in chunks[1:]:
        lines = chunk.split("\n")
        if len(lines) > 1 and not lines[0].startswith(" "):
            sections.append(Section(lines[0].strip(), "\n".join(lines[1:])))
        else:
            sections.append(Section("", chunk))
    return summary, sections


def _fit(sections: list[Section]) -> list[Section]:
    """Split sections whose text would pass Block Kit's 3000-character limit."""
    out = []
    budget = MAX_SECTION - 200  # heading, code fences, margin
    for s in sections:
        body = s.body
        heading = s.heading
        while len(body) > budget:
            cut = body.rfind("\n", 0, budget)
            cut = cut if cut > 0 else budget
            out.append(Section(heading, body[:cut]))
            body, heading = body[cut:].lstrip("\n"), ""
        out.append(Section(heading, body))
    return out


def _escaped(sections: list[Section]) -> list[Section]:
    """Sections with their text escaped (before _fit, so the limits count the escaped text)."""
    return [Section(for_slack(s.heading), for_slack(s.body)) for s in sections]


def _escaped_within(text: str, limit: int) -> str:
    """`text` escaped, cut to `limit` characters without cutting an entity (&amp;) in two."""
    n = min(len(text), limit)
    out = for_slack(text[:n])
    while len(out) > limit:
        n -= max(1, (len(out) - limit) // 5)  # an entity is at most 5 characters
        out = for_slack(text[:n])
    return out


def blocks_for(header: str, sections: list[Section], context: str = "") -> list[dict]:
    """The blocks of one message from escaped sections and context (message() and plain()
    escape them; the header, plain_text, is escaped here the same way, so no message carries
    raw markup anywhere). A ``` inside a body would close its fence: it is broken up."""
    fenced = [Section(s.heading, s.body.replace("```", "`" + BACKTICK_STAND_IN + "`")) for s in sections]
    blocks = json.loads(render("slack/message.json.j2", "en", header=_escaped_within(header, MAX_HEADER),
                               sections=fenced, context=context))
    assert len(blocks) <= MAX_BLOCKS
    return blocks


def message(text: str, context: str = "", buttons: str | None = None) -> dict:
    """A channel message and its thread follow-ups: {"text", "blocks", "thread": [...]}.
    `buttons` is the language of the plan's buttons, None for none."""
    summary, sections = split_sections(text)
    sections = _fit(_escaped(sections))
    context = for_slack(context)
    main, rest = sections[:MAIN_SECTIONS], sections[MAIN_SECTIONS:]
    out = {
        "text": for_slack(text[:MAX_FALLBACK]),  # notifications and screen readers; starts with the summary
        "blocks": blocks_for(summary, main, context),
        "thread": [],
    }
    if buttons:
        out["blocks"].append(json.loads(render("slack/buttons.json.j2", buttons)))
    for start in range(0, len(rest), MAX_BLOCKS - 2):
        part = rest[start:start + MAX_BLOCKS - 2]
        # the parts are escaped already
        out["thread"].append({"text": "\n\n".join(f"{s.heading}\n{s.body}" for s in part)[:MAX_FALLBACK],
                              "blocks": blocks_for("", part)})
    return out


def plain(text: str) -> dict:
    """A short reply (follow-up, error): one section, same text as fallback."""
    sections = _fit(_escaped([Section("", text)]))
    return {"text": for_slack(text[:MAX_FALLBACK]), "blocks": blocks_for("", sections[:MAX_BLOCKS]), "thread": []}


def check_limits(msg: dict) -> list[str]:
    """Problems with a message against Block Kit's limits (empty when it is fine)."""
    problems = []
    for m in [msg, *msg.get("thread", [])]:
        if len(m["blocks"]) > MAX_BLOCKS:
            problems.append(f"{len(m['blocks'])} blocks")
        if not m.get("text"):
            problems.append("no text fallback")
        for b in m["blocks"]:
            if b["type"] == "header" and len(b["text"]["text"]) > MAX_HEADER:
                problems.append("header too long")
            if b["type"] == "section" and len(b["text"]["text"]) > MAX_SECTION:
                problems.append("section too long")
    return problems
