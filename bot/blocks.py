"""Block Kit for the bot's messages, built from the core's data (an Advice, a FollowUp), with
every word from templates/slack/card.j2 in the reader's language.

- `card`: the channel answer, a summary card: a header with the status against the request,
  one line with the plan (and the fix when it misses), one section of fields, one context
  line, the buttons. Nothing in it is parsed out of terminal text.
- `details`: what a button posts in the thread (the arithmetic, the servers, rent vs buy, the
  other options, the checklist), never what the card already shows.
- thread replies: `whatif` (a what-if, another market, "why not H20?" answered first),
  `explain` (a number's arithmetic; "why 8 GPUs?" as the plan at the counts around it;
  "where do these numbers come from?" as each number with its sum), `part` (the servers and
  storage, the offers on record, the risks a question asks for), `rfq` (the request for
  quote where it cannot be uploaded as a file), `plain` (FAQ, quotes, errors). Their words are
  templates/slack/card.j2's and templates/slack/thread.j2's.

Numbers are written one way everywhere (`days_text`: templates/explain.j2's `duration`, the
rule of the text replies too; `cash`, `count`). Text that comes from users
(a model name they typed, a vendor, their question) is escaped in one place: `esc`.
"""

from __future__ import annotations

import re

from advisor.planning.planner import DEADLINE_SLACK
from advisor.request.canonical import canonical
from advisor.text.render import amount, big, money, num, pct, phrase, render, sci, word
from advisor.text.safe import for_slack

MAX_BLOCKS = 50
MAX_SECTION = 3000
MAX_HEADER = 150
MAX_FALLBACK = 3000
MAX_FIELD = 2000
CARD_CHARS = 1500  # visible characters of the channel card


# -- the one escape for user-derived text ---------------------------------------------------


def esc(text) -> str:
    """Text that came from a user, made safe inside mrkdwn: Slack's three control characters
    (so "<!channel>" or "<@U123>" typed by someone is shown, not acted on). Every user-derived
    string in a card, a detail or a thread reply passes through here, and plain() escapes its
    whole text."""
    return for_slack(str(text))


# -- numbers, one way everywhere --------------------------------------------------------------
def days_text(days: float | None, lang: str) -> str:
    """13 days, 7.8 days, 1 day; 22 hours under a day, 14 minutes under an hour: the one rule
    of the terminal answer and the thread's text replies (templates/explain.j2 `duration`)."""
    if days is None:
        return ""
    return phrase(lang, "duration", days, file="explain")


def cash(value: float | None, currency: str) -> str:
    """Money with thousands separators: ¥683,706, $1.23 (three significant figures below 1,000)."""
    return "" if value is None else money(value, currency)


def count(n: int) -> str:
    return f"{int(n):,}"


def servers_text(n: int, lang: str) -> str:
    return _p(lang, "servers", count(n), 1 if n == 1 else 2)


def gpus_text(n: int, gpu: str, lang: str) -> str:
    return _p(lang, "gpus", count(n), gpu)


def _p(lang: str, macro: str, *args, **kwargs) -> str:
    return phrase(lang, macro, *args, file="slack/card", **kwargs)


# -- Block Kit pieces ----------------------------------------------------------------------------
def _cut(text: str, limit: int) -> str:
    """`text` within Block Kit's `limit`, never ending inside an escaped entity (&amp;)."""
    if len(text) <= limit:
        return text
    out = text[:limit]
    amp = out.rfind("&", max(0, limit - 5))
    return out[:amp] if amp >= 0 and ";" not in out[amp:] else out


def _fallback(text: str) -> str:
    """A message's notification text within Slack's limit, cut after a sentence or a word with an
    ellipsis (the checklist's had ended "…about 4 years: r")."""
    if len(text) <= MAX_FALLBACK:
        return text
    out = text[: MAX_FALLBACK - 1]
    ends = [out.rfind(stop) + len(stop) for stop in (". ", "。", "\n")]
    cut = max(ends) if max(ends) > MAX_FALLBACK // 2 else out.rfind(" ")
    return out[: cut if cut > 0 else len(out)].rstrip() + "…"


def _header(text: str) -> dict:
    return {"type": "header", "text": {"type": "plain_text", "text": _cut(text, MAX_HEADER), "emoji": True}}


def _section(text: str, fields: list[str] | None = None) -> dict:
    block: dict = {"type": "section", "text": {"type": "mrkdwn", "text": _cut(text, MAX_SECTION)}}
    if fields:
        block["fields"] = [{"type": "mrkdwn", "text": _cut(f, MAX_FIELD)} for f in fields[:10]]
    return block


def _fields_only(fields: list[str]) -> dict:
    return {"type": "section", "fields": [{"type": "mrkdwn", "text": f[:MAX_FIELD]} for f in fields[:10]]}


def _context(text: str) -> dict:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": text[:MAX_SECTION]}]}


def _divider() -> dict:
    return {"type": "divider"}


def _field(lang: str, name: str, value: str, kind: str = "field") -> str:
    return f"*{_p(lang, kind, name)}*\n{value}"


def _button(lang: str, action_id: str, style: str | None = None) -> dict:
    b = {
        "type": "button",
        "action_id": action_id,
        "value": action_id,
        "text": {"type": "plain_text", "text": _p(lang, "button", action_id)},
    }
    if style:
        b["style"] = style
    return b


CARD_BUTTONS = ("show_math", "show_servers", "show_costs", "show_alternatives", "show_checklist", "show_rfq", "replan")


def buttons(lang: str) -> dict:
    return {
        "type": "actions",
        "block_id": "plan_actions",
        "elements": [_button(lang, a, "primary" if a == "show_rfq" else None) for a in CARD_BUTTONS],
    }


def new_plan_button(lang: str) -> dict:
    """App Home's actions block: one "New plan" button that opens the form."""
    return {"type": "actions", "block_id": "home_actions", "elements": [_button(lang, "new_plan", "primary")]}


# -- the card ------------------------------------------------------------------------------------
def _faster_dearer(result):
    """The faster plan an `asap` request gave up for its rent (planner._fast_enough_first), or None."""
    alts = result.result.alternatives if result.result else []
    return next((a for a in alts if a is not None and a.label == "faster_dearer"), None)


def _best_alternative(result):
    """The alternative worth a field: the one-server plan when the planner leads with it (issue 21),
    the faster plan an `asap` request gave up for its rent, else the cheapest that meets the
    deadline, else the first."""
    alts = [a for a in (result.result.alternatives if result.result else []) if a is not None]
    if alts and alts[0].label == "one_server":
        return alts[0]
    faster = _faster_dearer(result)
    if faster is not None:
        return faster
    meeting = [a for a in alts if a.meets_deadline and a.rent is not None]
    if meeting:
        return min(meeting, key=lambda a: a.rent)
    return alts[0] if alts else None


def _plan_words(plan, lang: str, buy: bool = False) -> tuple[str, str, str]:
    """Its GPUs, time and cost: the rent, or the purchase for a team that buys (`buy`)."""
    lay = plan.estimate.layout
    cost = plan.costs.buy_capex if buy and plan.costs.buy_capex else plan.rent
    return gpus_text(lay.gpu_count, plan.gpu, lang), days_text(plan.days, lang), cash(cost, plan.costs.currency)


def _misses(result, plan) -> bool | str:
    """What an alternative misses: the deadline (True), the days of the horizon a request
    without one is planned within, or nothing (False)."""
    if plan.meets_deadline:
        return False
    return True if result.request.deadline_days else days_text(result.result.horizon_days, result.request.lang)


def status(result) -> tuple[str, dict]:
    """The card's status against the request: (code, the numbers its header quotes)."""
    r, p = result.request, result.plan
    lang = r.lang
    if p is None:
        return "nothing", {}
    e = p.estimate
    deadline = r.deadline_days or ""  # card.j2 writes it in days, or hours under a day
    if not e.fits:
        no_fit = next((w.params for w in result.warnings if w.code == "no_fit"), {})
        if no_fit.get("host_cap") and no_fit["host"] > no_fit["host_cap"] and e.memory.total <= e.usable_gib:
            return "no_fit_ram", {}  # the cards hold their share; the server's RAM not what is offloaded
        return "no_fit", {}
    if r.deadline_days and e.days and e.days > r.deadline_days:
        return "misses_deadline", {"deadline": deadline, "days": days_text(e.days, lang)}
    if result.result.conflict == "budget":
        return "conflict", {}
    budget = None
    spend = p.spend(r)  # the rent, or for a buyer what the servers cost
    if r.budget:
        budget = cash(r.budget.amount, r.budget.currency)
        if not p.within_budget and spend is not None:
            limit = spend - _budget_in(result)
            return "over_budget", {"budget": budget, "over": cash(limit, p.costs.currency)}
    if r.rent_or_buy == "buy" and any(w.code in ("buy_after_deadline", "buy_lead_unknown") for w in result.warnings):
        return "bought_too_late", {"deadline": deadline}  # the servers' published lead time is longer
    if not p.priced(r):
        return "no_price", {"gpu": p.gpu}
    # a lease the job hardly uses where another GPU type or count does it for a tenth of the rent or
    # less: not a green header (a 41-minute job had read "✅" beside ¥75,000 against ¥46)
    cheaper = [w for w in result.warnings if w.code in ("other_gpu", "other_count")]
    if (p.costs.rent_term or {}).get("mostly_idle") and any(
        w.params.get("value") is not None and w.params["value"] <= 0.1 for w in cheaper
    ):
        return "idle_lease", {}
    tight = next((w.params for w in result.warnings if w.code == "tight_deadline"), None)
    if tight and tight["days"] > (1 - DEADLINE_SLACK / 2) * tight["deadline"]:
        # under half the planner's margin left before the deadline (119 of 120 days): not a green
        # header; with more, the warning in the details says it
        return "tight_deadline", {"deadline": deadline, "days": days_text(e.days, lang)}
    if deadline and budget:
        return "meets_both", {"deadline": deadline}
    if deadline:
        return "meets_deadline", {"deadline": deadline}
    if budget:
        return "meets_budget", {"budget": budget}
    if e.days is None or (r.gpu and r.gpu_count):  # the GPUs given: nothing was chosen as cheapest
        return "fits", {}
    if r.speed_first:  # `asap`: the cheapest of the plans as fast as the fastest
        # or, where that costs over ten times more, a plan a little later (planner._fast_enough_first):
        # not "as fast as it goes" beside a faster alternative
        faster = _faster_dearer(result)
        if faster is not None and faster.rent and p.rent and e.days and faster.days:
            return "fast_enough", {"later": days_text(e.days - faster.days, lang), "share": p.rent / faster.rent}
        return "fastest", {}
    return "cheapest", {"horizon": days_text(result.result.horizon_days, lang)}


def _budget_in(result) -> float:
    """The budget in the plan's currency (the over-budget warning carries it converted)."""
    r = result.request
    amount = r.budget.amount
    if r.budget.currency != result.plan.costs.currency:
        fx = (result.plan.costs.fx or {}).get("usd_cny") or 7.0
        amount = amount * fx if r.budget.currency == "USD" else amount / fx
    return amount


def _fix_lines(result, code: str) -> list[str]:
    lang = result.request.lang
    out = []
    if code in ("misses_deadline", "no_fit", "no_fit_ram"):
        for sg in (result.result.suggestions if result.result else [])[:2]:
            words = _plan_words(sg.plan, lang) if sg.plan else None
            if sg.change == "longer_deadline" or words is None:
                plan = ""
            elif sg.change == "more_gpus" and sg.plan.gpu == result.plan.gpu:
                plan = _p(lang, "fix_plan", "", *words[1:])  # "2,048 GPUs instead: 3 days, ¥1,294,774"
            else:
                plan = _p(lang, "fix_plan", *words)
            value = sg.value
            if sg.change == "longer_deadline" and isinstance(value, (int, float)):
                value = days_text(value, lang)
            elif isinstance(value, (int, float)):
                value = count(value)
            out.append(_p(lang, "fix", sg.change, plan, value=value))
        if not out and code in ("no_fit", "no_fit_ram"):
            out.append(_p(lang, "fix", "no_fit", ""))
    elif code == "conflict":
        d, b = result.result.nearest_deadline, result.result.nearest_budget
        buying = result.request.rent_or_buy == "buy"  # the budget is held against the purchase
        p = result.plan
        if d and p and _plan_words(d, lang, buying) == _plan_words(p, lang, buying) and p.spend(result.request):
            # the plan line above is the one that meets the deadline: said once, with what it misses by
            over = cash(p.spend(result.request) - _budget_in(result), p.costs.currency)
            out.append(_p(lang, "fix", "meets_deadline_above", "", value=over))
        elif d:
            out.append(_p(lang, "fix", "meets_deadline", _p(lang, "plan_words", *_plan_words(d, lang, buying))))
        if b:
            out.append(_p(lang, "fix", "within_budget", _p(lang, "plan_words", *_plan_words(b, lang, buying))))
    elif code == "over_budget":
        plan = result.plan
        out.append(_p(lang, "fix", "cheaper", "", value=cash(plan.spend(result.request), plan.costs.currency)))
    elif code == "no_price":
        out.append(_p(lang, "fix", "no_price", ""))
    elif code == "nothing":
        out.append(_p(lang, "fix", "nothing", ""))
    if code not in ("misses_deadline", "no_fit", "no_fit_ram"):
        # the GPUs given do the job, but another type does it for a fraction of the rent (a short
        # job on GPUs leased only by the month): the card says so, not only the thread
        for sg in result.result.suggestions if result.result else []:
            if sg.change in ("other_gpu", "other_count") and sg.plan is not None:
                out.append(_p(lang, "fix", sg.change, _p(lang, "fix_plan", *_plan_words(sg.plan, lang))))
    return [line for line in out if line]


def _context_line(result) -> str:
    r, p = result.request, result.plan
    lang = r.lang
    assumed = [_p(lang, "assumed", n.code, **n.params) for n in r.assumptions]
    assumed = [esc(a) for a in assumed if a]
    source = as_of = ""
    estimated = quoted = False
    if p is not None:
        sources = p.costs.price_sources
        rent = next((s for s in sources if s["role"] in ("rent_hour", "rent_month")), None)
        if rent:
            source, as_of = esc(phrase(lang, "provider_name", rent["provider"])), esc(rent["as_of"])
            quoted = bool(rent.get("quote"))
        estimated = any(s["estimate"] for s in sources)
    sep = "、" if lang == "zh" else ", "
    return _p(lang, "context", sep.join(assumed), source, as_of, estimated, quoted)


def card(result) -> dict:
    """The channel answer for an Advice: {"text", "blocks"}."""
    r, p = result.request, result.plan
    lang = r.lang
    code, numbers = status(result)
    header = _p(lang, "header", code, **numbers)
    dated = next((n.params for n in r.assumptions if n.code == "deadline_date"), None)
    if dated and "deadline" in numbers:
        # the days a deadline said as a day counts, so the card says which ("17-day" alone had hidden them)
        start = dated["today"] if dated.get("start") else ""
        header = header + ("" if lang == "zh" else " ") + _p(lang, "dates", dated["date"], start)
    blocks = [_header(header)]
    lines = []
    fields = []
    if p is not None:
        e, lay, c = p.estimate, p.estimate.layout, p.costs
        gpus, days, rent = _plan_words(p, lang)
        per_day = (
            cash(c.rent_per_gpu_hour * lay.gpu_count * 24, c.currency) if (c.rent_per_gpu_hour and not days) else ""
        )
        paid = "" if r.owned else (rent or per_day)  # the team's own GPUs cost no rent
        # a buyer's plan is said by its purchase, as the text answer's headline says it
        bought = cash(c.buy_capex, c.currency) if r.rent_or_buy == "buy" and c.buy_capex and not r.owned else ""
        lease = (c.rent_term or {}).get("months_paid", 0) if (c.rent_term or {}).get("mostly_idle") else 0
        lines.append(_p(lang, "plan_line", gpus, servers_text(lay.nodes, lang), days, paid, bought, lease))
        if result.china_by_default:
            lines.append(_p(lang, "china_by_default"))
        # no data: what the job's usual scale takes (Chinchilla's tokens for a run from scratch, a unit
        # of fine-tuning data), the answer to "how much does it cost to train a 7B from scratch?"
        scale = next((w for w in result.warnings if w.code in ("pretrain_scale", "finetune_scale")), None)
        if scale is not None:
            lines.append(for_slack(word(lang, scale)))
        lines.extend(_fix_lines(result, code))
        fields.append(
            _field(
                lang,
                "gpus",
                f"{gpus}\n{servers_text(lay.nodes, lang)} × {lay.gpus_per_node}\n"
                + _p(lang, "framework_value", result.framework, (e.over_peft or 1) - 1),
            )
        )
        fields.append(
            _field(
                lang,
                "time",
                _p(
                    lang,
                    "time_value",
                    days,
                    # "7.8 of 14 days"; under a day the duration itself ("22 hours of 7 days"), and a
                    # deadline under a day in hours ("35 minutes of 12 hours")
                    (num(e.days, 2) if e.days >= 1 else days) if e.days else "",
                    r.deadline_days or "",
                ),
            )
        )
        memory = _p(lang, "memory_value", num(e.memory.total), num(e.usable_gib), e.fits, code == "no_fit_ram")
        fields.append(_field(lang, "memory", memory))
        rent_range = c.rent_range  # low / likely / high from the offers that can deliver the plan
        shown_rent = (
            f"{cash(rent_range['low'], c.currency)}–{cash(rent_range['high'], c.currency)}"
            if rent_range and rent_range["high"] > rent_range["low"]
            else rent
        )
        # a buyer's budget is held against the purchase (the status line says how it stands), not the rent
        budget = cash(r.budget.amount, r.budget.currency) if r.budget and r.rent_or_buy != "buy" else ""
        term = c.rent_term or {}  # issue 21: the term the headline pays, stated by its source or assumed
        rent_value = _p(
            lang,
            "rent_value",
            shown_rent,
            c.rent_option if rent else "",
            budget,
            per_day,
            term.get("min_term_months", 0) if rent else 0,
            term.get("term_stated", True),
        )
        # a lease the job hardly uses says so beside its price (the warning says what to ask)
        idle = next((n.params for n in result.warnings if n.code == "lease_mostly_idle"), None)
        if idle and rent:
            rent_value += _p(lang, "idle_lease", days_text(idle["days"], lang), idle["share"])
        # and a block billed by the whole day or week the job hardly uses (64 H100 for 1.2 hours)
        billed = next((n.params for n in result.warnings if n.code == "billing_unit_idle"), None)
        if billed and rent:
            rent_value += _p(lang, "idle_billing", billed["unit"], billed["share"])
        # GPUs paid for beyond the plan's, an instance sized for the host memory it offloads or a
        # whole server (one RTX 4090 had shown at a price for a 2-GPU instance, said nowhere)
        more = next((n for n in result.warnings if n.code in ("instance_for_host_memory", "whole_server_billed")), None)
        if more and rent:
            rent_value += _p(lang, "billed_more", more.params["billed"], more.code == "instance_for_host_memory")
        # a range whose high end is a whole server more than the plan's GPUs says so (¥378–¥636,000
        # for one H20 had read as that GPU's)
        high = (rent_range or {}).get("high_offer") or {}
        said = more.params["billed"] if more and rent else None
        if shown_rent != rent and high.get("billed_gpus", 0) > lay.gpu_count and high["billed_gpus"] != said:
            rent_value += _p(lang, "range_whole_server", high["billed_gpus"])
        fields.append(_field(lang, "rent", _p(lang, "owned_rent", shown_rent) if r.owned else rent_value))
        capex = cash(c.buy_capex, c.currency) if c.decision == "buy" and c.buy_capex else ""
        decision = _p(lang, "decision_value", c.decision, c.decision_reason, capex)
        if c.rent_instead:  # a buyer sees what renting the job instead costs
            ri = c.rent_instead
            decision += _p(
                lang,
                "rent_instead",
                gpus_text(ri["gpu_count"], ri["gpu"], lang),
                days_text(ri["days"], lang),
                cash(ri["cost"], c.currency),
            )
        fields.append(_field(lang, "decision", _p(lang, "owned_decision") if r.owned else decision))
        alt = _best_alternative(result)
        if alt is not None:
            a_gpus, a_days, a_rent = _plan_words(alt, lang)
            if r.rent_or_buy == "buy" and alt.costs.buy_capex:  # a buyer's alternatives by their purchase
                a_rent = _p(lang, "to_buy", cash(alt.costs.buy_capex, alt.costs.currency))
            fields.append(
                _field(lang, "alternative", _p(lang, "alternative_value", alt.label or "", a_gpus, a_days, a_rent))
            )
    else:
        lines.extend(_fix_lines(result, code))
    blocks.append(_section("\n".join(lines) or header, fields))
    blocks.append(_context(_context_line(result)))
    if p is not None:
        blocks.append(buttons(lang))
    status_words = header.lstrip("✅⚠️ ").strip()
    if p is not None:
        gpus, days, rent = _plan_words(p, lang)
        if lang == "en":
            status_words = status_words[:1].lower() + status_words[1:]
        text = _p(lang, "fallback", gpus, days, "" if r.owned else rent, status_words, bought)
    else:
        text = header.lstrip("✅⚠️ ").strip() + "."
    return {"text": _fallback(text), "blocks": blocks}


def headline(summary: dict, lang: str) -> str:
    """A stored plan's headline (App Home) as the card writes it: 256 × H800 · 13 days · ¥683,706;
    a comparison's, its options: H800-SXM-80GB vs H20-96GB."""
    if summary.get("compared"):
        return " vs ".join(esc(side["option"]) for side in summary["compared"])
    if not summary.get("gpu"):
        return ""
    gpus = gpus_text(summary.get("gpu_count") or 0, summary["gpu"], lang)
    rent = cash(summary.get("rent_total"), summary.get("currency") or "CNY")
    return _p(lang, "headline", gpus, days_text(summary.get("days"), lang), rent)


# -- what the buttons post in the thread ------------------------------------------------------
def _terms_field(c, lang: str) -> dict:
    """Issue 21: every term a team could sign, side by side, stated by a source or assumed, with
    the months each bills."""
    lines = [
        _p(lang, "term_line", o["months"], cash(o["total"], c.currency), o["term_stated"], o.get("months_paid") or 0)
        for o in c.term_options
        if o["total"] is not None
    ]
    return _field(lang, "terms", "\n".join(lines), "cost_field")


def details(result, which: str) -> dict:
    """One part of the plan for a button, worded for Slack. `which`: math, servers, costs,
    alternatives, checklist."""
    lang = result.request.lang
    p = result.plan
    title = _p(lang, "title", "checklist_owned" if which == "checklist" and result.request.owned else which)
    blocks = [_section(f"*{title}*")]
    if p is None:
        return plain(render("answer.txt.j2", lang, a=result, r=result.request, e=None, p=None, checklist=False))
    e, lay, c = p.estimate, p.estimate.layout, p.costs
    if which == "math":
        t = e.throughput
        if e.tokens:
            blocks[0] = _section(
                f"*{title}*\n"
                + _p(
                    lang,
                    "time_answer",
                    days_text(e.days, lang),
                    count(lay.gpu_count),
                    num(e.gpu_hours),
                    big(e.tokens, lang),
                    num(t.tokens_per_s_per_gpu),
                    pct(t.mfu),
                )
            )
            peak = t.model_flops_per_token * t.tokens_per_s_per_gpu / t.mfu / 1e12
            blocks.append(
                _fields_only(
                    [
                        _field(
                            lang,
                            "compute",
                            _p(
                                lang,
                                "compute_value",
                                big(e.tokens, lang),
                                num(t.model_flops_per_token / 1e9),
                                sci(e.flops),
                            ),
                            "math_field",
                        ),
                        _field(
                            lang,
                            "speed",
                            _p(lang, "speed_value", num(t.tokens_per_s_per_gpu), pct(t.mfu), num(peak)),
                            "math_field",
                        ),
                    ]
                )
            )
            notes = [phrase(lang, "thr_note", n, file="explain") for n in t.notes]
            if notes:
                blocks.append(_context("\n".join(f"• {n}" for n in notes if n)))
        else:
            blocks[0] = _section(f"*{title}*\n" + _p(lang, "no_time"))
        blocks.append(_divider())
        m = e.memory
        blocks.append(
            _section(
                _p(lang, "memory_answer", num(m.total), num(e.usable_gib)),
                [
                    _field(lang, k, f"{num(getattr(m, k))} GiB", "math_field")
                    for k in ("weights", "gradients", "optimizer", "activations", "other")
                ]
                + [
                    _field(
                        lang,
                        "layout",
                        _p(
                            lang,
                            "layout_value_framework",
                            lay.tp,
                            lay.pp,
                            lay.dp,
                            lay.ep,
                            lay.expert_tp,
                            lay.zero_stage,
                            lay.micro_batch,
                            lay.global_batch,
                            result.framework,
                            e.throughput.dispatcher,
                            " ".join(lay.recompute_modules),
                        ),
                        "math_field",
                    )
                ],
            )
        )
        ascend = lay.gpu.startswith("Ascend")  # torch_npu and npu-smi there
        notes = [phrase(lang, "mem_note", n, ascend, file="explain") for n in m.explained]
        if notes:
            blocks.append(_context("\n".join(f"• {n}" for n in notes if n)))
    elif which == "servers":
        i = p.infra
        blocks[0] = _section(
            f"*{title}*\n" + _p(lang, "servers_intro", servers_text(lay.nodes, lang), lay.gpus_per_node, p.gpu)
        )
        blocks.append(
            _fields_only(
                [
                    _field(lang, "cpu", _p(lang, "cpu_value", i.cpu_cores_per_node), "server_field"),
                    _field(lang, "ram", _p(lang, "ram_value", count(i.ram_gib_per_node)), "server_field"),
                    _field(lang, "nvme", _p(lang, "nvme_value", num(i.nvme_tb_per_node)), "server_field"),
                    _field(
                        lang,
                        "storage",
                        _p(
                            lang,
                            "storage_value",
                            num(i.storage_read_gb_per_s),
                            phrase(lang, "storage_kind", i.shared_storage, file="explain"),
                        ),
                        "server_field",
                    ),
                    _field(lang, "intra", phrase(lang, "intra", i.network, file="explain"), "server_field"),
                    _field(lang, "inter", phrase(lang, "inter", i.network, file="explain"), "server_field"),
                    _field(
                        lang,
                        "power",
                        _p(
                            lang,
                            "power_value",
                            num(i.power_kw_per_node),
                            i.servers_per_rack,
                            phrase(lang, "cooling", i.cooling, file="explain"),
                        ),
                        "server_field",
                    ),
                ]
            )
        )
        reasons = [phrase(lang, "reason", k, r, file="explain") for k, r in i.reasons.items()]
        blocks.append(_context("\n".join(f"• {esc(x)}" for x in reasons if x)))
    elif which == "costs":
        fields = []
        if c.rent_hourly_total:
            # what the offer bills (whole servers, whole days) where that is more than the job runs
            billed = c.rent_hourly_total / c.rent_per_gpu_hour
            over = billed > (e.gpu_hours or 0) * 1.01
            fields.append(
                _field(
                    lang,
                    "hourly",
                    _p(
                        lang,
                        "hourly_value",
                        cash(c.rent_per_gpu_hour, c.currency),
                        num(e.gpu_hours),
                        cash(c.rent_hourly_total, c.currency),
                        num(billed) if over else None,
                        num(e.gpu_hours) if over else None,
                    ),
                    "cost_field",
                )
            )
        if c.rent_monthly_total:
            fields.append(
                _field(
                    lang,
                    "monthly",
                    _p(
                        lang,
                        "monthly_value",
                        cash(c.rent_per_gpu_month, c.currency),
                        c.monthly_min_term_months,
                        cash(c.rent_monthly_total, c.currency),
                        (c.rent_term or {}).get("term_stated", True),
                    ),
                    "cost_field",
                )
            )
        if c.term_options and len(c.term_options) > 1 and c.term_options[0]["total"] is not None:
            fields.append(_terms_field(c, lang))
        if c.storage_total:
            fields.append(_field(lang, "storage", esc(amount(c.storage_total, c.currency)), "cost_field"))
        if c.buy_capex:
            fields.append(
                _field(
                    lang,
                    "buy",
                    # what is bought: a workstation, or whole servers for fewer GPUs than they hold
                    _p(
                        lang,
                        "buy_value",
                        cash(c.buy_capex, c.currency),
                        c.buy_price_market,
                        c.buy_servers or 0,
                        c.buy_gpus or 0,
                        lay.gpu_count,
                    ),
                    "cost_field",
                )
            )
            fields.append(
                _field(
                    lang,
                    "tco",
                    _p(
                        lang,
                        "tco_value",
                        cash(c.buy_tco_first_year, c.currency),
                        cash(c.power_cost_year, c.currency),
                        cash(c.hosting_cost_year, c.currency),
                    ),
                    "cost_field",
                )
            )
        if c.breakeven_months:
            basis = c.breakeven_rent or {}
            # what it is weighed against, as the text says (a thread's "86 months at 70% use" beside the
            # plan's month-by-month basis had read as the same comparison)
            value = (
                _p(lang, "breakeven_lease", num(c.breakeven_months, 2), basis["term_months"])
                if basis.get("basis") == "lease"
                else _p(
                    lang, "breakeven_value", num(c.breakeven_months, 2), pct(c.owned_utilisation), basis.get("basis")
                )
            )
            fields.append(_field(lang, "breakeven", value, "cost_field"))
        blocks[0] = _section(f"*{title}*", fields) if fields else blocks[0]
        srcs = [
            _p(
                lang,
                "source",
                phrase(lang, "role", s["role"], c.gpu_share_of_server, file="explain"),
                cash(s["price"], s["currency"]),
                esc(phrase(lang, "provider_name", s["provider"])),
                esc(s["as_of"]),
                s["estimate"],
                bool(s.get("quote")),
            )
            for s in c.price_sources
        ]
        if srcs:
            blocks.append(_context(_p(lang, "sources", ("；" if lang == "zh" else "; ").join(srcs))))
    elif which == "alternatives":
        shown = _best_alternative(result)
        lines = []
        for a in result.result.alternatives:
            if a is shown:
                continue
            a_gpus, a_days, a_rent = _plan_words(a, lang)
            lines.append(
                "• "
                + _p(
                    lang,
                    "alternative_line",
                    _p(lang, "label", a.label or ""),
                    a_gpus,
                    a_days,
                    num(a.estimate.gpu_hours),
                    a_rent,
                    num(a.estimate.memory.total),
                    _misses(result, a),
                )
            )
        blocks[0] = _section(f"*{title}*\n" + ("\n".join(lines) if lines else _p(lang, "no_alternatives")))
    elif which == "checklist":
        # the plan's own checks (its GPU count, fabric, storage, term), then its warnings
        blocks = _lines_sections(title, _checklist_lines(result))
        warnings = _warning_lines(result)
        if warnings:
            blocks.extend(_lines_sections(_p(lang, "title", "warnings"), warnings))
    text = _plain_of(blocks)
    return {"text": _fallback(text), "blocks": blocks}


def _lines_sections(title: str, lines: list[str]) -> list[dict]:
    """`lines` under a bold `title`, in as many sections as Block Kit's 3,000 characters a
    section need (a long checklist or many warnings never lose their end)."""
    blocks, buf = [], f"*{title}*" if title else ""
    for line in lines:
        if buf and len(buf) + 1 + len(line) > MAX_SECTION:
            blocks.append(_section(buf))
            buf = ""
        buf = f"{buf}\n{line}" if buf else line
    if buf:
        blocks.append(_section(buf))
    return blocks


def _checklist_lines(result) -> list[str]:
    """The plan's own checks before signing (or starting, on the team's own GPUs), one a line."""
    text = render("checklist.txt.j2", result.request.lang, a=result)
    items = [line.strip().removeprefix("- ") for line in text.splitlines()[1:] if line.strip()]
    return [f"• {for_slack(x)}" for x in items]


def _warning_lines(result) -> list[str]:
    return [f"⚠️ {for_slack(word(result.request.lang, w))}" for w in result.warnings]


def _plain_of(blocks: list[dict]) -> str:
    parts = []
    for b in blocks:
        if b.get("text"):
            parts.append(b["text"]["text"])
        parts.extend(f["text"] for f in b.get("fields", []))
        parts.extend(el["text"] for el in b.get("elements", []) if "text" in el and isinstance(el["text"], str))
    return re.sub(r"[*]", "", "\n".join(parts))


# -- thread replies ------------------------------------------------------------------------------
# What a what-if's plan misses, said first in bold (advisor/planning/advice.py warning codes).
WHATIF_VERDICTS = ("deadline", "budget", "budget_vs_deadline", "buy_verdict")


def whatif(reply) -> dict:
    """A what-if reply: what changed (deadline 14 -> 30 days), the new plan against the first
    as fields, why the GPU changed, and warnings that are new."""
    lang = reply.lang
    text = render(
        "slack/whatif.md.j2",
        lang,
        changes=[{k: esc(v) for k, v in c.items()} for c in reply.changes],
        kept=[{k: esc(v) for k, v in c.items()} for c in reply.kept],
        before=_summary_words(reply.before, lang, reply.before_currency),
        after=_summary_words(reply.after, lang, reply.currency),
        why=reply.why,
        warnings=reply.warnings,
        # a buyer's thread compares purchases on every what-if
        show_buy="rent_or_buy" in reply.changed
        or bool(reply.advice and reply.advice.request and reply.advice.request.rent_or_buy == "buy"),
    )
    head, _, rest = text.partition("\n\n")
    fields = [f for f in rest.split("\n\n") if f.strip()]
    c = reply.advice.plan.costs if reply.advice and reply.advice.plan else None
    if "lease_term_months" in reply.changed and c and len(c.term_options or []) > 1:
        # "on a 3-month lease?": every term on record beside it, as Rent vs buy lists them
        fields.append(_terms_field(c, lang))
    # "why not H20?": the comparison is the answer, so it leads, the plans' numbers under it;
    # otherwise why the GPU changed, or which offer the market's rent is from and what the
    # provider named asks ("how much on AWS?"), stands under the numbers, never in small print.
    why_not = bool(reply.why) and reply.kind == "whatif" and bool({"gpu", "gpu_count", "nodes"} & set(reply.changed))
    # the answer to "can we…?" leads in bold, not in the small print under the numbers: whether the
    # new plan misses the deadline or the budget (and so does the notification's text)
    verdicts = [w for w in reply.warnings if w.code in WHATIF_VERDICTS]
    verdict = " ".join(f"*{esc(word(lang, w))}*" for w in verdicts)
    if verdict:
        head = f"{verdict}\n{head}"
    if reply.lead:  # what the reply answers ("over the budget by ..."), before the comparison
        head = f"{esc(reply.lead)}\n{head}"
    if why_not:
        blocks = [_section(esc(reply.why), fields[:8])]
    else:
        blocks = [_section(head, fields[:8])]
        if reply.why:
            blocks.append(_section(esc(reply.why)))
    notes = [word(lang, w) for w in reply.warnings if w not in verdicts]
    if notes:
        blocks.append(_context("\n".join(esc(n) for n in notes)))
    if reply.faq and reply.faq.get("answer"):
        # the FAQ's how after the plan it asks for ("start with 1 server and add more later?": how a run grows)
        blocks.append(_section(esc(reply.faq["answer"])))
    if why_not:
        return {"text": _fallback(reply.why), "blocks": blocks}
    # The fallback carries the result too (notifications, screen readers): "…: 96 × H100, 29 days, ¥2,200,000"
    after = _summary_words(reply.after, lang, reply.currency)
    result = _p(lang, "fix_plan", after["gpus"], after["days"], after["rent"]) if reply.after.get("gpu") else ""
    return {"text": _fallback(re.sub(r"[*]", "", head) + result), "blocks": blocks}


def _summary_words(s: dict, lang: str, currency: str) -> dict:
    """A plan's headline numbers as a what-if shows them; a plan without a price says so (every
    what-if shows the rent, or why there is none)."""
    rent = cash(s.get("rent_total"), currency)
    if s.get("owned"):  # the team's own GPUs: no rent, the job's electricity where known
        rent = _p(lang, "owned_whatif", cash(s.get("electricity"), currency))
    elif not rent and s.get("gpu"):
        rent = _p(lang, "rent_value", "", "", "", "")  # "no price on record"
    return {
        "gpus": gpus_text(s.get("gpu_count") or 0, s.get("gpu") or "?", lang),
        "servers": servers_text(s.get("nodes") or 0, lang),
        "days": days_text(s.get("days"), lang),
        "memory": num(s.get("mem_per_gpu_gib")),
        "rent": rent,
        "buy": cash(s.get("buy_capex"), currency),
        "framework": s.get("framework") or "",
        # the split, compared where a what-if moves it
        "layout": f"tp {s['tp']} × pp {s.get('pp') or 1} × dp {s.get('dp') or 1}"
        + (f" × ep {s['ep']}" if (s.get("ep") or 1) > 1 else "")
        if s.get("tp")
        else "",
        "split": (s.get("tp"), s.get("pp"), s.get("ep")),  # what moves the layout beyond the GPU count
    }


def explain(reply, rows: list[dict] | None = None) -> dict:
    """ "how did you get 13 days?": the one-line answer first, then that part of the arithmetic.
    "why 8 GPUs?" (part `gpus`): the plan against the same GPU at the counts in `rows` (the
    core's comparison rows, advisor/planning/followup.py `_plan_row`); "where do these numbers
    come from?" (`overview`): each headline number with its sum; "how is the RAM worked out?"
    (`servers`): the servers with the reason for each size."""
    if reply.part == "gpus":
        return _counts(reply, rows or [])
    if reply.part == "overview":
        return _overview(reply)
    if reply.part == "servers":
        return details(reply.advice, "servers")
    if reply.part not in ("time", "memory", "costs"):
        # a part this layout does not know yet ("why H800?": `gpu_type`): the core's own words,
        # never the arithmetic of another part
        return plain(reply.text)
    msg = details(reply.advice, "math")
    # no title: the one-line answer is the first thing read
    msg["blocks"][0]["text"]["text"] = msg["blocks"][0]["text"]["text"].split("\n", 1)[-1]
    first = msg["blocks"][0]["text"]["text"]
    if reply.part == "memory":
        # the memory part first: its one-line answer leads
        mem = [b for b in msg["blocks"] if b["type"] == "section" and "fields" in b and b.get("text")]
        if mem:
            first = mem[0]["text"]["text"]
            msg["blocks"] = mem + list(msg["blocks"][msg["blocks"].index(mem[0]) + 1 :])
        e = reply.advice.estimate
        if e.layout.offload != "none" and e.memory.host_ram_gib:
            # what the servers' memory holds, said under the GPU's ("671B on 5090s??")
            msg["blocks"].insert(1, _section(phrase(reply.lang, "offloaded", e)))
    elif reply.part == "time" and any(b["type"] == "divider" for b in msg["blocks"]):
        cut = next(i for i, b in enumerate(msg["blocks"]) if b["type"] == "divider")
        msg["blocks"] = msg["blocks"][:cut]
    elif reply.part == "costs":
        msg = details(reply.advice, "costs")
        c, e = reply.advice.plan.costs, reply.advice.estimate
        months = (c.rent_term or {}).get("months_paid")
        if c.rent_total and c.rent_option == "monthly" and c.rent_per_gpu_month and months and c.rent_monthly_total:
            # a lease: the rate by the month, the GPUs billed and the months paid (the hourly rate times
            # the job's GPU-hours had not added up to the total)
            gpus = round(c.rent_monthly_total / c.rent_per_gpu_month / months)
            first = _p(
                reply.lang,
                "cost_answer_monthly",
                cash(c.rent_total, c.currency),
                cash(c.rent_per_gpu_month, c.currency),
                count(gpus),
                months,
            )
            msg["blocks"][0]["text"]["text"] = first
        elif c.rent_total and c.rent_option == "hourly" and c.rent_per_gpu_hour and e.gpu_hours:
            first = _p(
                reply.lang,
                "cost_answer",
                cash(c.rent_total, c.currency),
                cash(c.rent_per_gpu_hour, c.currency),
                num(e.gpu_hours),
            )
            msg["blocks"][0]["text"]["text"] = first
        else:
            first = msg["blocks"][0]["text"]["text"]
    if reply.lead:
        # what the question asked ("what's the bottleneck?", "能砍吗", "what token count?") leads, the
        # part's arithmetic under it (the core's text carried it; the blocks had dropped it)
        first = esc(reply.lead)
        msg["blocks"].insert(0, _section(first))
    msg["text"] = _fallback(re.sub(r"[*]", "", first.split("\n", 1)[-1] if "\n" in first else first))
    return msg


def _t(lang: str, macro: str, *args, **kwargs) -> str:
    return phrase(lang, macro, *args, file="slack/thread", **kwargs)


def _counts(reply, rows: list[dict]) -> dict:
    """ "why 8 GPUs?": why the planner stopped at its count, then one line per count of the same
    GPU (time, GPU-hours, memory, rent), the plan's own marked."""
    result, lang = reply.advice, reply.lang
    p, r = result.plan, result.request
    lay = p.estimate.layout
    intro = _t(
        lang,
        "gpus_intro",
        gpus_text(lay.gpu_count, p.gpu, lang),
        bool(r.gpu_count),
        r.deadline_days or "",
        word(lang, tie) if (tie := result.tie(same_gpu=True)) else "",
    )
    lines = [
        "• "
        + _t(
            lang,
            "count_row",
            count(o["count"]),
            days_text(o["days"], lang) or "?",
            num(o["gpu_hours"]),
            num(o["memory"]),
            num(o["usable"]),
            cash(o["rent"], o["currency"]) if o["rent"] else "",
            o["fits"],
            o["meets"],
            o["within_budget"],
            o.get("chosen", False),
            o.get("months"),
            o.get("nodes"),
            o.get("host_short", False),
            o["count"],  # the count itself, for "1 GPU" against "2 GPUs"
        )
        for o in rows
    ]
    if len(rows) == 1:
        lines.append(_t(lang, "no_counts"))
    blocks = _lines_sections("", [intro, *lines])
    blocks.append(_context(_t(lang, "count_rule")))
    return {"text": _fallback(re.sub(r"[*]", "", intro)), "blocks": blocks}


def _overview(reply) -> dict:
    """ "where do these numbers come from?": the time, the GPUs, the memory and the rent, each
    as a field with its sum, and how to ask for one's full arithmetic."""
    result, lang = reply.advice, reply.lang
    p, r = result.plan, result.request
    e, c, lay, t = p.estimate, p.costs, p.estimate.layout, p.estimate.throughput
    fields = []
    if e.days and e.tokens:
        value = _t(
            lang,
            "overview_time",
            days_text(e.days, lang),
            big(e.tokens, lang),
            num(t.tokens_per_s_per_gpu),
            pct(t.mfu),
            count(lay.gpu_count),
            num(e.gpu_hours),
        )
        fields.append(_field(lang, "time", value))
    fields.append(_field(lang, "gpus", _t(lang, "overview_gpus", count(lay.gpu_count), p.gpu, bool(r.gpu_count))))
    m = e.memory
    memory = _t(
        lang,
        "overview_memory",
        num(m.total),
        num(e.usable_gib),
        num(m.weights),
        num(m.gradients),
        num(m.optimizer),
        num(m.activations),
        num(m.other),
    )
    fields.append(_field(lang, "memory", memory))
    if c.rent_total and c.rent_option == "hourly" and c.rent_per_gpu_hour and e.gpu_hours:
        rent = _t(
            lang,
            "overview_hourly",
            cash(c.rent_total, c.currency),
            cash(c.rent_per_gpu_hour, c.currency),
            # the GPU-hours billed (whole hours, days or weeks), as the costs section multiplies
            num(c.rent_hourly_total / c.rent_per_gpu_hour if c.rent_hourly_total else e.gpu_hours),
        )
        fields.append(_field(lang, "rent", rent))
    elif c.rent_total and c.rent_per_gpu_month:
        rent = _t(lang, "overview_monthly", cash(c.rent_total, c.currency), cash(c.rent_per_gpu_month, c.currency))
        fields.append(_field(lang, "rent", rent))
    title = _t(lang, "overview_title")
    blocks = [_section(f"*{title}*", fields), _context(_t(lang, "overview_ask", count(lay.gpu_count)))]
    first = fields[0].split("\n", 1)[-1]
    return {"text": _fallback(re.sub(r"[*]", "", f"{title} {first}")), "blocks": blocks}


def part(reply, offers: list[dict] | None = None) -> dict:
    """A part of the plan a thread question asks for (a FollowUp of kind "part"): its servers and
    storage ("what storage do we need?"), the offers on record for it ("which vendor?", `offers`:
    the core's rows, advisor/planning/followup.py `_offers`), its risks (warnings, then the checks),
    its checklist alone.
    The request for quote is `rfq` (uploaded as a file, as the card's button does)."""
    result, lang = reply.advice, reply.lang
    p = result.plan
    if reply.part == "vendor":
        return _vendors(result, lang, offers or [])
    if reply.part == "checklist":  # "what's on the checklist?": the card's checks alone
        owned = "checklist_owned" if result.request.owned else "checklist"
        blocks = _lines_sections(_p(lang, "title", owned), _checklist_lines(result))
        return {"text": _fallback(_plain_of(blocks)), "blocks": blocks[:MAX_BLOCKS]}
    if reply.part == "risks":
        warnings = _warning_lines(result)
        blocks = _lines_sections(_t(lang, "risks_title"), warnings or [_t(lang, "no_risks")])
        owned = "checklist_owned" if result.request.owned else "checklist"
        blocks.extend(_lines_sections(_p(lang, "title", owned), _checklist_lines(result)))
        return {"text": _fallback(_plain_of(blocks)), "blocks": blocks[:MAX_BLOCKS]}
    msg = details(result, "servers")
    c = p.costs
    if c.storage_total:
        # what the storage costs beside what it is: the question was what storage the job needs
        value = _t(lang, "storage_cost", esc(amount(c.storage_total, c.currency)), num(c.storage_tb), c.storage_kind)
        fields = next(b for b in msg["blocks"] if b.get("fields"))["fields"]
        fields.append({"type": "mrkdwn", "text": f"*{_t(lang, 'storage_cost_field')}*\n{value}"})
        msg["text"] = _fallback(_plain_of(msg["blocks"]))
    return msg


def _vendors(result, lang: str, offers: list[dict]) -> dict:
    """ "which vendor should we use?": each offer on record as a field (price, term, date, whether
    it can deliver the plan in one order, the one the plan is priced from), cheapest first."""
    p = result.plan
    lay = p.estimate.layout
    if not offers:
        blocks = [_section(_t(lang, "no_offers", p.gpu))]
    else:
        fields = []
        for o in offers[:10]:
            lines = [
                f"*{esc(phrase(lang, 'provider_name', o['provider']))}*",
                _t(lang, "offer_price", cash(o["price"], o["currency"]), o["kind"], o.get("min_term_months") or 0),
                esc(_t(lang, "offer_date", o["as_of"], o.get("estimate", False))),
                _t(lang, "offer_note", o.get("why_not"), o.get("unused"), o.get("months_paid")),
                _t(lang, "offer_priced") if o.get("priced") else "",
            ]
            fields.append("\n".join(x for x in lines if x))
        intro = _t(lang, "vendor_intro", p.gpu, count(lay.gpu_count), servers_text(lay.nodes, lang))
        blocks = [_section(intro, fields)]
    blocks.append(_context(_t(lang, "vendor_advice")))
    first = blocks[0]["text"]["text"]
    return {"text": _fallback(re.sub(r"[*]", "", first)), "blocks": blocks}


def rfq(text: str, lang: str) -> dict:
    """The request for quote as a message, where it could not be uploaded as a file (the card's
    button and "can you write an RFQ?" upload it): what it is, then the document itself."""
    title = _p(lang, "title", "rfq")
    head = _section(f"*{title}*\n{_p(lang, 'rfq_comment')}")
    body = plain(text)["blocks"]
    return {"text": _fallback(f"{title}: {_p(lang, 'rfq_comment')}"), "blocks": [head, *body][:MAX_BLOCKS]}


def faq(text: str) -> dict:
    """An FAQ answer in mrkdwn: the title bold, paragraphs as they are, no code fences."""
    return plain(text)


def noted(msg: dict, note: str) -> dict:
    """A message with a line above it (a comparison thread's option), in its blocks and its text."""
    return {
        "text": _fallback(f"{esc(note)}\n{msg['text']}"),
        "blocks": [_context(esc(note)), *msg["blocks"]][:MAX_BLOCKS],
    }


def plain(text: str) -> dict:
    """A short reply (FAQ, quote, error) in mrkdwn sections, never in a code block. The whole
    text is escaped (it may quote a vendor or words a user wrote); markup (*bold*, `code`) stays."""
    text = esc(text.strip())
    chunks = [c for c in re.split(r"\n\s*\n", text) if c.strip()]
    blocks, buf = [], ""
    for c in chunks:
        if buf and len(buf) + len(c) + 2 > MAX_SECTION - 100:
            blocks.append(_section(buf))
            buf = ""
        while len(c) > MAX_SECTION - 100:
            cut = c.rfind("\n", 0, MAX_SECTION - 100)
            cut = cut if cut > 0 else len(_cut(c, MAX_SECTION - 100))  # never inside an entity
            blocks.append(_section(c[:cut]))
            c = c[cut:].lstrip("\n")
        buf = f"{buf}\n\n{c}" if buf else c
    if buf:
        blocks.append(_section(buf))
    return {"text": _fallback(text), "blocks": blocks[:MAX_BLOCKS]}


def _c(lang: str, macro: str, *args, **kwargs) -> str:
    return phrase(lang, macro, *args, file="slack/compare", **kwargs)


def comparison(result) -> dict:
    """ "H800 vs H20", "lora vs full finetune": the job planned on each GPU type or with each
    training method (advisor/planning/advice.py `Comparison`), as a card: the verdict in the
    header, a field per option, by how much under them, and how to ask for one option's full
    plan. The fallback is the verdict."""
    lang, sides, verdict = result.lang, result.sides(), result.verdict()
    by = {s["option"]: s for s in sides}

    def named(option: str) -> str:
        return _c(lang, "named", result.by, option)

    ch, fa = verdict["cheaper"], verdict["faster"]
    many = len(sides) if len(sides) > 2 else 0
    winner = by[(ch or fa)["option"]] if (ch or fa) else None
    ok = winner is not None and winner["fits"] and winner["meets_deadline"] and winner["within_budget"]
    header = _c(
        lang,
        "header",
        named(ch["option"]) if ch else "",
        named(fa["option"]) if fa else "",
        named((ch or fa)["against"]) if (ch or fa) else "",
        many,
        " vs ".join(named(s["option"]) for s in sides),
        ok,
    )
    fields = []
    for s in sides:
        label = esc(_c(lang, "label", result.by, s["option"], s["gpu"]))
        if not s["plan"]:
            fields.append(_c(lang, "side", label, plan=False))
            continue
        cur = s["currency"]
        kind = "owned" if s["owned"] else ("buy" if s["buy"] else "rent") if s["spend"] else "none"
        flag = (
            "no_fit"
            if not s["fits"]
            else "deadline"
            if not s["meets_deadline"]
            else "budget"
            if not s["within_budget"] and not s["owned"]
            else "offload"
            if s["offload"] != "none"
            else "doubted"
            if s["doubted"]
            else "off_cloud"
            if s["off_cloud"] and result.by == "cloud"
            else ""
        )
        fields.append(
            _c(
                lang,
                "side",
                label,
                count(s["count"]),
                days_text(s["days"], lang),
                num(s["gpu_hours"]) if s["gpu_hours"] else "",
                _c(lang, "spend", kind, cash(s["spend"], cur)),
                cash(s["per_gpu_month"] or s["per_gpu_hour"], cur) if s["per_gpu_month"] or s["per_gpu_hour"] else "",
                pct(s["mfu"]) if s["mfu"] else "",
                num(s["peak_tflops"]),
                flag,
                gpus=s["count"],
                monthly=bool(s["per_gpu_month"]),
            )
        )
    lines = []
    if ch:
        saves = cash(ch["saves"], by[ch["option"]]["currency"])
        lines.append(_c(lang, "cheaper", named(ch["option"]), saves, pct(ch["share"]), named(ch["against"]), many))
    if fa:
        # a speed-up under 2x to two decimals: 17 days against 16 is 1.06x, not "1x"
        times = num(fa["times"], 3 if fa["times"] < 2 else 2)
        lines.append(
            _c(
                lang,
                "faster",
                named(fa["option"]),
                days_text(fa["days_saved"], lang),
                times,
                named(fa["against"]),
                many,
            )
        )
    if ch and fa and ch["option"] != fa["option"]:
        cheap, fast = by[ch["option"]], by[fa["option"]]
        dearer = fast["spend"] - cheap["spend"] if fast["spend"] else ch["saves"]
        gap = days_text(cheap["days"] - fast["days"], lang)
        lines.append(_c(lang, "trade", named(ch["option"]), named(fa["option"]), gap, cash(dearer, cheap["currency"])))
    # the one to ask for: the verdict's pick, else the first named
    pick = result.options[sides.index(winner) if winner else 0]
    blocks = [_header(header), _fields_only(fields)]
    if lines:
        blocks.append(_section("\n".join(lines)))
    blocks.append(_context(_c(lang, "hint", esc(canonical(pick.request)), result.by)))
    return {"text": _fallback(header.lstrip("✅⚠️⚖ ").strip()), "blocks": blocks}


def visible_chars(msg: dict) -> int:
    """Characters a reader sees in a message's blocks (markup stripped)."""
    return len(
        re.sub(
            r"[*_~`]",
            "",
            _plain_of(msg["blocks"])
            + "".join(el["text"]["text"] for b in msg["blocks"] if b["type"] == "actions" for el in b["elements"]),
        )
    )


def code_chars(msg: dict) -> int:
    return sum(len(m) for m in re.findall(r"```(.*?)```", _plain_of(msg["blocks"]), re.S))


def check_limits(msg: dict) -> list[str]:
    """Problems with a message against Block Kit's limits (empty when it is fine)."""
    problems = []
    if len(msg["blocks"]) > MAX_BLOCKS:
        problems.append(f"{len(msg['blocks'])} blocks")
    if not msg.get("text"):
        problems.append("no text fallback")
    for b in msg["blocks"]:
        if b["type"] == "header" and len(b["text"]["text"]) > MAX_HEADER:
            problems.append("header too long")
        if b["type"] == "section" and len((b.get("text") or {}).get("text", "")) > MAX_SECTION:
            problems.append("section too long")
        if b["type"] == "section" and len(b.get("fields", [])) > 10:
            problems.append("too many fields")
        if b["type"] == "section" and not b.get("text") and not b.get("fields"):
            problems.append("empty section")
    return problems


# -- /gpu quote and /gpu prices -----------------------------------------------------------------
def _q(lang: str, macro: str, *args, **kwargs) -> str:
    return phrase(lang, macro, *args, file="slack/quote", **kwargs)


def quote(j, recorded: bool, example: str = "") -> dict:
    """`/gpu quote ...` laid out like the card: the verdict first, the per-GPU-hour, per-month and
    market figures as fields, the like-with-like basis as context, warning signs, what to ask
    the vendor, and whether it was recorded (a recorded quote prices the team's plans).
    `example`: the user's own words, for the line that asks for a vendor's name."""
    q = j.quote
    lang = q.lang
    cur = q.currency
    vendor = esc(q.vendor) if q.vendor else ""
    gpus = gpus_text(q.gpus, q.gpu, lang)
    ratio = num(j.market_ratio, 3) if j.market_ratio else ""  # 1.02, not "1x" beside a verdict above
    market = cash(j.market_per_gpu_hour, cur) if j.market_per_gpu_hour else ""
    head = _q(lang, "verdict", j.verdict, vendor, cash(j.per_gpu_hour, cur), gpus, ratio)
    if j.reading:
        head += "\n" + _q(lang, "reading", j.reading, q.gpus)

    def offer(o: dict) -> str:
        return _q(
            lang,
            "offer",
            cash(o["price"], cur),
            esc(phrase(lang, "provider_name", o["provider"])),
            esc(o["as_of"]),
            o["estimate"],
        )

    # what "the median like offer" is, plainly under the verdict: the like offers' range with who
    # sells at each end, and the cheapest offer on any basis with why it is not compared
    sp = j.market_span
    if sp:
        head += "\n" + _q(
            lang,
            "span",
            j.compared_with,
            sp["count"],
            offer(sp["low"]),
            offer(sp["median"]),
            offer(sp["high"]),
            sp["cheaper"],
        )
    if j.cheapest_other:
        head += "\n" + _q(lang, "other", offer(j.cheapest_other), esc(phrase(lang, "quote_unlike", j.cheapest_other)))
    mp = j.market_price or {}
    fields = [
        f"*{_q(lang, 'field', 'per_gpu_hour')}*\n{_q(lang, 'per_gpu_hour_value', cash(j.per_gpu_hour, cur), ratio)}",
        f"*{_q(lang, 'field', 'per_month')}*\n{_q(lang, 'per_month_value', cash(j.monthly_total, cur), q.gpus)}",
        f"*{_q(lang, 'field', 'market')}*\n"
        + _q(
            lang,
            "market_value",
            market,
            esc(phrase(lang, "provider_name", mp.get("provider", ""))) if mp else "",
            esc(mp.get("as_of", "")),
            bool(mp.get("estimate")),
        ),
        f"*{_q(lang, 'field', 'owning')}*\n{_q(lang, 'owning_value', cash(j.owning_per_month, cur))}",
        f"*{_q(lang, 'field', 'per_pflops')}*\n{_q(lang, 'per_pflops_value', cash(j.per_pflops_hour, cur))}",
        f"*{_q(lang, 'field', 'term')}*\n{_q(lang, 'term_value', num(q.term_months) if q.term_months else '')}",
    ]
    blocks = [_section(head, fields), _context(_q(lang, "basis", j.compared_with))]
    if j.signs:
        margins = (pct(j.above_market_margin), pct(j.below_market_margin))
        signs = "\n".join("• " + _q(lang, "sign", s, *margins) for s in j.signs)
        blocks.append(_section(f"{_q(lang, 'signs_title')}\n{signs}"))
    asks = "\n".join("• " + phrase(lang, "check", it["code"], file="checks", **it["params"]) for it in j.questions)
    blocks.append(_section(f"{_q(lang, 'ask_title')}\n{asks}"))
    if recorded:
        status = _q(lang, "recorded", vendor, q.gpu)
    elif j.unrecorded:
        status = _q(lang, "withheld", vendor)
    elif vendor:
        status = _q(lang, "already", vendor, q.gpu)
    else:
        status = _q(lang, "unnamed", esc(example))
    blocks.append(_context(status))
    return {"text": _fallback(re.sub(r"[*]", "", head.split("\n", 1)[0])), "blocks": blocks}


def quote_removed(removal, lang: str) -> dict:
    """`/gpu quote remove ...`: what was withdrawn, and what the team still has on record."""
    sep = "、" if lang == "zh" else ", "
    text = _q(
        lang,
        "removed",
        esc(removal.vendor),
        removal.gpu or "",
        len(removal.removed),
        esc(sep.join(removal.left)),
    )
    return {"text": _fallback(re.sub(r"[*]", "", text)), "blocks": [_section(text)]}


PRICE_KINDS = ("rent_hour", "rent_month", "offpeak_hour")
OFFERS_PER_GROUP = 6  # one GPU's prices: at most this many offers in a group (fields)


def _price_groups(offers: list[dict]) -> list[tuple[tuple, list[dict]]]:
    """Offers grouped by (market, kind, minimum term, currency), China first, by the hour before
    by the month, shorter terms first; cheapest first inside (the order current_prices gives).
    One currency and one unit in a group."""
    groups: dict[tuple, list[dict]] = {}
    for o in offers:
        term = o["min_term_months"] if o["kind"] == "rent_month" else 0
        groups.setdefault((o["market"], o["kind"], term, o["currency"]), []).append(o)
    order = {"china": 0, "global": 1}
    return sorted(
        groups.items(), key=lambda kv: (order.get(kv[0][0], 2), PRICE_KINDS.index(kv[0][1]), kv[0][2], kv[0][3])
    )


def prices(
    groups: list[dict], gpu: str | None, lang: str, lead: str = "", bought: list[dict] = (), buy_first: bool = False
) -> dict:
    """`/gpu prices [GPU]`: for one GPU, a section per kind of offer (market, by the hour, by the
    month and its minimum term, off-peak) with the offers as fields; for every GPU, a section
    per GPU with the cheapest of each kind. Every price with its provider and age. `bought`: the
    purchase prices on record, a section of their own, first where the question asks to buy."""

    def p(macro, *args):
        return phrase(lang, macro, *args, file="slack/prices")

    def where(o):
        region = phrase(lang, "region_name", o["region"]) if o["region"] else ""
        return " ".join(esc(x) for x in (region, o["offer"]) if x)

    def provider(o):
        return esc(phrase(lang, "provider_name", o["provider"]))

    buying = [
        _section(
            f"*{p('buy_title')}*",
            [
                p("buy_offer", b["kind"], cash(b["price"], b["currency"]), b["gpus"], provider(b), b["market"])
                + "\n"
                + p("buy_source", esc(b["as_of"]), b["estimate"])
                for b in bought
            ],
        )
    ] if bought else []  # fmt: skip
    blocks = ([_section(esc(lead))] if lead else []) + (buying if buy_first else []) + [_section(p("title", gpu))]
    count = 0
    if not groups:
        blocks.append(_section(p("nothing", gpu)))
    for g in groups:
        grouped = _price_groups(g["offers"])
        if gpu:
            for (market, kind, term, currency), offers in grouped:
                shown = offers[:OFFERS_PER_GROUP]
                count += len(offers)
                fields = [
                    p(
                        "offer",
                        cash(o["price"], o["currency"]),
                        o["unit"],
                        provider(o),
                        where(o),
                        esc(o["as_of"]),
                        o["age_days"],
                        o["estimate"],
                        o["source"] == "your quote",
                        o["indicative"],
                    )
                    for o in shown
                ]
                title = f"*{p('group', kind, term, market, currency)}*"
                if len(offers) > len(shown):  # the count in the fallback is of all of them
                    title += " " + p("more", len(offers) - len(shown))
                blocks.append(_section(title, fields))
        else:
            count += 1
            fields = [
                p(
                    "cheapest",
                    p("group", kind, term, market, currency),
                    cash(offers[0]["price"], offers[0]["currency"]),
                    offers[0]["unit"],
                    provider(offers[0]),
                    esc(offers[0]["as_of"]),
                    offers[0]["age_days"],
                    offers[0]["source"] == "your quote",
                )
                for (market, kind, term, currency), offers in grouped
            ]
            blocks.append(_section(f"*{esc(g['gpu'])}*", fields))
        if len(blocks) >= MAX_BLOCKS - 2:
            break
    if not buy_first:
        blocks = blocks[: MAX_BLOCKS - 2] + buying
    blocks.append(_context(p("footer")))
    return {"text": p("fallback", gpu, count), "blocks": blocks[:MAX_BLOCKS]}
