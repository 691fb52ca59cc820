"""A vendor's quote, judged against the market and recorded as a price.

`quote 8xH800 ¥95000/month 3 months vendorX` -> per-GPU-hour and per-PFLOPS prices against the
cheapest price on record for that GPU, the warning signs, and what to ask the vendor.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import unicodedata
from typing import ClassVar

import sqlite_utils
from pydantic import BaseModel, Field

from advisor import catalog
from advisor.market import store
from advisor.market.layouts import market_of
from advisor.market.prices import HOURS_PER_MONTH, SIBLINGS, PriceBook, price_book
from advisor.request.parser import RequestError, _cn_num, _gpu_names, detect_lang
from advisor.text.safe import clean

# A rent below what the same servers cost to own (hardware over 36 months, plus power and
# hosting) cannot pay for the hardware: the vendor saves elsewhere (shared network or
# storage, thin support) or the quote leaves costs out. The Chengdu guide states the rule as
# "monthly rent under a third of the purchase price", which every normal rent meets (a month
# is 2.5-4% of the price), so we use the cost of owning instead.
OWNERSHIP_MONTHS = 36
SUSPICIOUS_BELOW_OWNING = 0.8
# Our own bands around the market for the same kind of offer (no published rule): the median of
# the like offers on record (`like_offers`), so one outlier listing does not set it; 30% above it
# is worth negotiating, 30% below it is worth asking what is left out.
EXPENSIVE_ABOVE_MARKET = 1.3
CHEAP_BELOW_MARKET = 0.7
# PUE when no figure is on record: China's 2025 national target (data/reference_prices.toml).
DEFAULT_PUE = 1.5

_NUM = r"(\d+(?:,\d{3})*(?:\.\d+)?(?:e[+-]?\d+)?)"  # 1e308 is one (absurd) number, not "1" and "e308"
_SCALE = {"": 1, "k": 1e3, "w": 1e4, "万": 1e4, "m": 1e6}
# What a quote may say. GPUs: 1 to 100,000 (the largest clusters). A term: one day to ten
# years. The price, once per GPU-hour, must be in the store's plausible band (store.check_row).
MAX_GPUS = 100_000
# A counted quote not said per GPU ("8xH100 $2.5/hr") is read per GPU when the price of them all
# would be under a fifth of the market's per GPU and the price of each is within 2x of it
# (assumed: the suspicious verdict starts far higher, at 80% of owning, so a real bargain stays one).
ABSURD_SHARE, EACH_BAND = 0.2, 2.0
MIN_TERM_MONTHS, MAX_TERM_MONTHS = 1 / 31, 120


class Quote(BaseModel):
    text: str
    vendor: str
    gpu: str
    gpus: int
    price: float
    currency: str
    per: str  # "hour" | "month"
    per_gpu: bool
    term_months: float | None
    lang: str
    count_given: bool = True  # False: "H100 $2.5/hr" says neither 8x nor per GPU (see settle)
    whole_said: bool = False  # "per server", "整机", "每台": the price is of all the GPUs quoted


class QuoteJudgement(BaseModel):
    quote: Quote
    per_gpu_hour: float
    per_pflops_hour: float
    market_per_gpu_hour: float | None
    market_source: str | None
    # The same price as fields, for the reply to word in its own language (not in the JSON).
    market_price: dict | None = Field(default=None, exclude=True)
    market_ratio: float | None
    monthly_total: float
    owning_per_month: float | None
    verdict: str  # "fair" | "cheap" | "expensive" | "suspicious" | "unknown"
    # What the market reference is (issue 15, like with like): "month_leases" (monthly server
    # leases), "hour_servers" (hourly whole-server offers) or "hour_offers" (hourly offers that
    # deliver as many GPUs); None when nothing like it is on record.
    compared_with: str | None = None
    # "per_gpu" | "per_server" when the quote gave no count, "per_gpu_each" when it gave a count
    # but its price is read per GPU; None when the quote said which
    reading: str | None = None
    signs: list[str]  # kinds of warning sign, worded by the template
    # What to ask the vendor, as checks (templates/checks.j2 words each code): built from what is
    # quoted (the GPU's server topology, one server or several, the term), the pilot sized to the
    # job when a plan is known, else to the term.
    questions: list[dict] = []
    recorded: bool = False
    # The thresholds the warning signs quote ("more than 30% above ...").
    above_market_margin: ClassVar[float] = EXPENSIVE_ABOVE_MARKET - 1
    below_market_margin: ClassVar[float] = 1 - CHEAP_BELOW_MARKET


def parse_quote(text: str, lang: str | None = None) -> Quote:
    """Read a quote; RequestError (the friendly refusal) for anything it cannot use, including
    zero or absurd GPU counts, prices and terms. The text is cleaned first (advisor/text/safe.py):
    the vendor name and the stored text carry no control, bidi-override or backtick characters."""
    text = clean(text)
    lang = lang or detect_lang(text)
    q = _parse_quote(text, lang)
    refuse = RequestError("quote", lang, word=text.strip()[:60])
    if not 1 <= q.gpus <= MAX_GPUS:
        raise refuse
    if q.term_months is not None and not (
        math.isfinite(q.term_months) and MIN_TERM_MONTHS <= q.term_months <= MAX_TERM_MONTHS
    ):
        raise refuse
    if not math.isfinite(q.price) or q.price <= 0:
        raise refuse
    # The lowest reading of a price without a count (one GPU or a whole server, see settle) and
    # the stated one must both be plausible per GPU.
    gpu = catalog.get_gpu(q.gpu)
    counts = {q.gpus} if (q.count_given or q.per_gpu) else {1, max(1, gpu.gpus_per_server)}
    for n in counts:
        per_gpu = q.price if q.per_gpu else q.price / n
        try:
            store.check_row(
                {
                    "as_of": dt.date.today().isoformat(),
                    "price": per_gpu,
                    "currency": q.currency,
                    "unit": f"gpu-{q.per}",
                    "priced": 1,
                }
            )
        except ValueError:
            raise refuse from None
    return q


def _parse_quote(text: str, lang: str) -> Quote:
    norm = unicodedata.normalize("NFKC", text).lower().replace("×", "x").strip()
    norm = re.sub(r"^quote\s+|^报价\s*", "", norm)
    # the count before the name ("8xH800", "8卡H800") or after it ("H800 8卡", "H100 x 8 GPUs")
    gpu_m = re.search(
        rf"(?:(?<![a-z0-9.])(\d+)\s*(?:x|\*|卡|张)?\s*|(?<![a-z0-9]))({_gpu_names()})(?![a-z0-9])"
        r"(?:\s*(?:x|\*)?\s*(\d+)\s*(?:卡|张|gpus?|cards?|x(?![a-z0-9]))(?![a-z]))?",
        norm,
    )
    if not gpu_m:
        raise RequestError("quote", lang, word=text.strip()[:60])
    gpu = catalog.find_gpu(gpu_m[2])
    count = gpu_m[1] or gpu_m[3]
    gpus = int(count[:12]) if count else gpu.gpus_per_server  # 12 digits: absurd already
    rest = norm[: gpu_m.start()] + " " + norm[gpu_m.end() :]
    # the GPU said again ("acme H200 8xH200 ..."): not the vendor's name
    rest = re.sub(rf"(?<![a-z0-9])(?:\d+\s*[x*]\s*)?(?:{_gpu_names()})(?![a-z0-9])", " ", rest)
    price_m = re.search(
        rf"([¥$])?\s*{_NUM}\s*(k|w|万|m)?\s*(块钱|元|块|cny|rmb|usd|美元)?\s*(?:/|per\b|an?\b|每个?|一个?)\s*"
        r"(gpu|card|卡)?\s*[-/]?\s*(month|mo|月|个月|hour|hr|h|小时|时)(?![a-z])",
        rest,
    )
    if price_m:
        sym, number, scale, unit, card, period = price_m.groups()
    else:  # the unit first, as Chinese quotes often put it: "每月9万", "月租4.5万", "每卡时5.5元"
        price_m = re.search(
            rf"(每卡每月|每卡时|每卡每小时|每月|月租|每个月|一个月|每小时|一小时|时租)\s*([¥$])?\s*{_NUM}\s*(k|w|万|m)?"
            r"\s*(块钱|元|块|cny|rmb|usd|美元)?",
            rest,
        )
        if not price_m:
            raise RequestError("quote", lang, word=text.strip()[:60])
        lead, sym, number, scale, unit = price_m.groups()
        card, period = ("卡" if "卡" in lead else None), ("月" if "月" in lead else "时")
    currency = "USD" if sym == "$" or unit in ("usd", "美元") else "CNY"
    price = float(number.replace(",", "")) * _SCALE[(scale or "").lower()]
    if price <= 0:
        raise RequestError("quote", lang, word=text.strip()[:60])
    per = "month" if period in ("month", "mo", "月", "个月") else "hour"
    per_gpu = (
        bool(card)
        or bool(re.search(r"每卡|per\s*gpu|/\s*gpu|/\s*card", rest))
        or bool(re.search(rf"(?:per|/|each)\s*(?:{_gpu_names()})(?![a-z0-9])", norm))  # "$2.10/hr per H100"
    )
    rest = rest[: price_m.start()] + " " + rest[price_m.end() :]
    whole = re.search(r"(?:per|/|a|for\s+the)\s*(?:server|node|box|machine)(?![a-z])|整机|每台|一台", rest)
    if whole:
        rest = rest[: whole.start()] + " " + rest[whole.end() :]
    # the term: "3 months", "1 year", "签一年", "至少签两年", "起租3个月", "包年" (a year's lease), "包月"
    term_m = re.search(
        rf"(?:{_NUM}|(?P<cn>[一二两三四五六七八九十]+))\s*(?P<unit>months?|mo|个月|years?|yr|年)(?:起租|起签|起)?"
        r"|(?P<word>包年|年租|年签|包月|月租起)",
        rest,
    )
    term = None
    if term_m:
        if term_m["word"]:
            term = 1.0 if "月" in term_m["word"] else 12.0
        else:
            n = float(term_m[1].replace(",", "")) if term_m[1] else float(_cn_num(term_m["cn"]))
            term = n * (12 if term_m["unit"] in ("year", "years", "yr", "年") else 1)
        rest = rest[: term_m.start()] + " " + rest[term_m.end() :]
    # words about the term that are not the vendor's name
    rest = re.sub(
        r"至少|最少|起租|签约?|合同|合约|租期|(?<![a-z0-9\-])(?:lease|term|minimum|min\.?)(?![a-z0-9\-])", " ", rest
    )
    # the question around a quote asked in a thread ("is ... a good price?", "...合理吗") is not a vendor
    asked = re.search(r"[?？]|(?<![a-z])(?:fair|reasonable|good (?:price|deal))(?![a-z])|合理|贵不贵|划算|值不值", norm)
    rest = (
        rest
        if not asked
        else re.sub(
            r"(?<![a-z])(?:is|are|it|that|a|an|fair|reasonable|ok(?:ay)?|good|price|deal|cheap|expensive|too|much|on|at)"
            r"(?![a-z])|[?？!！。]|(?:贵不贵|便不便宜|划不划算|值不值|合不合理|合理|贵|便宜|划算|值|正常|靠谱)(?:吗|不|么)?",
            " ",
            rest,
        )
    )
    vendor = " ".join(w for w in re.split(r"[\s,，]+", rest) if w and w not in ("per", "gpu", "每卡", "for", "from"))
    found = re.search(re.escape(vendor), unicodedata.normalize("NFKC", text), re.I) if vendor else None
    vendor = found[0] if found else vendor  # as the user wrote it; "" when no vendor is named
    return Quote(
        text=text,
        vendor=vendor[:60],
        gpu=gpu.name,
        gpus=gpus,
        price=price,
        currency=currency,
        per=per,
        per_gpu=per_gpu,
        term_months=term,
        lang=lang,
        count_given=bool(count),
        whole_said=bool(whole) and not per_gpu,
    )


def settle(q: Quote, per_offer_hour: float, market_per_gpu_hour: float | None) -> tuple[Quote, str | None]:
    """A quote that gives neither a GPU count nor "per GPU" ("H100 $2.5/hr", "H800 9万/月") is read
    as the price of one GPU or of one whole server, whichever is nearer the market price for
    that GPU (one GPU when there is none on record); the reply says which. One with a count but
    not "per GPU" ("8xH100 $2.5/hr") is the price of them all unless the price of each is far
    nearer the market ($2.5 for eight H100 an hour would be a tenth of any offer on record)."""
    market = market_per_gpu_hour
    if q.per_gpu or q.whole_said:
        return q, None
    if q.count_given:
        # read per GPU only when the price of them all would be absurd and the price of each is
        # a market price: a cheap whole offer must stay cheap, for the verdict to say so
        each = (
            market
            and q.gpus > 1
            and per_offer_hour / q.gpus < ABSURD_SHARE * market
            and 1 / EACH_BAND <= per_offer_hour / market <= EACH_BAND
        )
        return (q.model_copy(update={"per_gpu": True}), "per_gpu_each") if each else (q, None)
    gpu = catalog.get_gpu(q.gpu)
    per_server_reading = (
        market
        and gpu.gpus_per_server > 1
        and (abs(math.log(per_offer_hour / gpu.gpus_per_server / market)) < abs(math.log(per_offer_hour / market)))
    )
    if per_server_reading:
        return q.model_copy(update={"gpus": gpu.gpus_per_server, "per_gpu": False}), "per_server"
    return q.model_copy(update={"gpus": 1, "per_gpu": True}), "per_gpu"


def like_offers(book: PriceBook, gpu: str, market: str, per: str, gpus: int) -> list:
    """The offers on record a quote is compared with, like with like (issue 15): a monthly quote
    with the monthly server leases of that GPU (hourly offers of whole servers when no lease is on
    record, then the leases of its sibling class, prices.SIBLINGS); an hourly quote with the hourly
    offers that can deliver as many GPUs in one order. Indexes and averages never count."""
    if per == "month":
        for name in (gpu, SIBLINGS.get(gpu)):
            leases = (
                [
                    p
                    for p in book.offers("rent_month", name, market, rentable=True)
                    if p.offer_kind in ("server", "cluster") or p.max_gpus >= 8
                ]
                if name
                else []
            )
            if leases:
                return leases
        return [
            p
            for p in book.offers("rent_hour", gpu, market, rentable=True)
            if p.offer_kind in ("server", "cluster") and p.max_gpus >= min(gpus, 8)
        ]
    return [p for p in book.offers("rent_hour", gpu, market, rentable=True) if p.max_gpus >= min(gpus, 8)]


def _market_reference(book: PriceBook, offers: list, currency: str):
    """The median like offer (the lower middle one) and its price per GPU-hour in `currency`."""
    if not offers:
        return None, None
    hourly = sorted(
        (
            (book.convert(p.price, p.currency, currency) / (HOURS_PER_MONTH if p.kind == "rent_month" else 1), p)
            for p in offers
        ),
        key=lambda vp: vp[0],
    )
    value, price = hourly[(len(hourly) - 1) // 2]
    return price, value


# The pilot before signing (as advisor/planning/checklist.py sizes it for a plan): a tenth of the
# job, or of the quoted term, at most this many days.
PILOT_SHARE = 0.1
PILOT_MAX_DAYS = 3
DAYS_PER_MONTH = 365 / 12


def vendor_questions(q: Quote, job_days: float | None = None) -> list[dict]:
    """What to ask this vendor before signing, as checks [{"code", "params"}]: what is included,
    the servers' topology for this GPU class, the fabric when it is more than one server, a
    burn-in, a pilot sized to the job (`job_days`) or to the term, and the contract."""
    gpu = catalog.get_gpu(q.gpu)
    out: list[dict] = []

    def add(code: str, **params) -> None:
        out.append({"code": code, "params": params})

    add("quote_included")
    per_server = max(1, gpu.gpus_per_server)
    vendor, intra = (gpu.vendor or "").lower(), (gpu.intra_node or "").lower()
    in_one = min(q.gpus, per_server)
    if in_one > 1:
        if vendor == "amd":
            add("topo_xgmi", gpus=in_one)
        elif vendor == "huawei":
            add("topo_hccs", gpus=in_one)
        elif "nvlink" in intra or "nvswitch" in intra:
            add("topo_nvlink", gpus=in_one)
        else:
            add("topo_pcie", gpus=in_one, consumer=bool(gpu.consumer))
    servers = math.ceil(q.gpus / per_server)
    if servers > 1:
        add("oversubscription", nodes=servers)
    if vendor == "nvidia" and not gpu.consumer:
        add("dcgm_diag")
    elif vendor == "amd":
        add("rvs_stress")
    else:
        add("burn_in")
    if job_days:
        add("pilot", hours=round(min(PILOT_MAX_DAYS, job_days * PILOT_SHARE) * 24, 1), days=job_days)
    elif q.term_months:
        term_days = q.term_months * DAYS_PER_MONTH
        add("pilot_term", hours=round(min(PILOT_MAX_DAYS, term_days * PILOT_SHARE) * 24, 1), term=q.term_months)
    else:
        add("pilot_unsized")
    add("contract_sla")
    term = q.term_months or 0
    add("contract_exit", term=int(term) if float(term).is_integer() else round(term, 1))
    add("contract_billing", billing="month" if q.per == "month" else "hour")
    return out


def judge(q: Quote, book: PriceBook, job_days: float | None = None) -> QuoteJudgement:
    """Against the market the quote's currency belongs to (CNY: China, USD: global clouds), like
    with like (`like_offers`). `job_days`: the plan's days when the quote is asked about under a
    plan (the pilot is sized to the job)."""
    market = market_of(q.currency)
    gpu = catalog.get_gpu(q.gpu)
    per_offer_hour = q.price / (HOURS_PER_MONTH if q.per == "month" else 1)
    count = q.gpus if (q.count_given or q.per_gpu) else 1
    market_price, market_value = _market_reference(book, like_offers(book, gpu.name, market, q.per, count), q.currency)
    q, reading = settle(q, per_offer_hour, market_value)
    if q.gpus != count:  # read as a whole server: compare with offers that deliver one
        market_price, market_value = _market_reference(
            book, like_offers(book, gpu.name, market, q.per, q.gpus), q.currency
        )
    compared_with = (
        None
        if market_price is None
        else (
            "month_leases"
            if market_price.kind == "rent_month"
            else "hour_servers"
            if q.per == "month"
            else "hour_offers"
        )
    )
    per_gpu_hour = per_offer_hour if q.per_gpu else per_offer_hour / q.gpus
    pflops = gpu.bf16_dense_tflops / 1000 or gpu.fp16_dense_tflops / 1000
    ratio = per_gpu_hour / market_value if market_value else None
    monthly_total = per_gpu_hour * q.gpus * HOURS_PER_MONTH
    server = book.best("buy_server", gpu.name, market, q.currency)
    owning = None
    if server:
        # Owning the same number of GPUs as the quote (a share of a server for fewer than a
        # server's worth, not a whole server for one GPU).
        servers = q.gpus / gpu.gpus_per_server
        capex = book.value(server, q.currency) / max(1, server.gpus) * q.gpus
        kwh = book.value(book.best("electricity", "", market, q.currency), q.currency) or 0.0
        pue = book.best("pue", "", market, "")
        power = gpu.server_power_kw * servers * HOURS_PER_MONTH * (pue.price if pue else DEFAULT_PUE) * kwh
        owning = capex / OWNERSHIP_MONTHS + power
    signs = []
    verdict = "unknown" if ratio is None else "fair"
    if owning and monthly_total < SUSPICIOUS_BELOW_OWNING * owning:
        signs.append("below_owning")
        verdict = "suspicious"
    if ratio is not None and ratio > EXPENSIVE_ABOVE_MARKET:
        signs.append("above_market")
        verdict = "expensive"
    elif ratio is not None and ratio < CHEAP_BELOW_MARKET and verdict != "suspicious":
        signs.append("below_market")
        verdict = "cheap"
    if q.term_months and q.term_months >= 12:
        signs.append("long_term")
    return QuoteJudgement(
        quote=q,
        per_gpu_hour=per_gpu_hour,
        per_pflops_hour=per_gpu_hour / pflops,
        market_per_gpu_hour=market_value,
        market_ratio=ratio,
        monthly_total=monthly_total,
        market_source=f"{market_price.provider}, {market_price.as_of}{' (estimate)' if market_price.estimate else ''}"
        if market_price
        else None,
        owning_per_month=owning,
        market_price={"provider": market_price.provider, "as_of": market_price.as_of, "estimate": market_price.estimate}
        if market_price
        else None,
        verdict=verdict,
        signs=signs,
        questions=vendor_questions(q, job_days),
        reading=reading,
        compared_with=compared_with,
    )


def record(q: Quote, db: sqlite_utils.Database, owner: str | None, today: dt.date | None = None) -> bool:
    """Store the quote as a price observation (source "quote") that only `owner` sees; False if
    that owner already recorded it."""
    # Stored per GPU, like the reference prices, so plans can use it.
    row = {
        "source": "quote",
        "kind": "rent_month" if q.per == "month" else "rent_hour",
        "gpu": q.gpu,
        "gpus": 1,
        "market": market_of(q.currency),
        "provider": q.vendor,
        "offer": f"{q.gpus}x{q.gpu}",
        "price": q.price if q.per_gpu else q.price / q.gpus,
        "currency": q.currency,
        "unit": f"gpu-{q.per}",
        "min_term_months": int(q.term_months or 0),
        "as_of": (today or dt.date.today()).isoformat(),
        "cite": f"vendor quote: {q.text}",
        "note": "recorded with /gpu quote",
        "owner": owner,
        # What it is an offer of (issue 15): the GPUs quoted come in one order.
        "max_gpus": q.gpus,
        "offer_kind": "server" if q.gpus >= 8 else "instance",
        "billing": "month" if q.per == "month" else "hour",
    }
    return store.write_rows(db, [row]) == 1


def quote_answer(
    text: str, lang: str | None, db: sqlite_utils.Database, owner: str | None
) -> tuple[QuoteJudgement, bool]:
    """Parse, judge against the market, record for `owner` when the vendor is named (a recorded
    quote prices the owner's plans, so it must say whose it is; without a name the reply asks
    for one). The market is the shared data only: no recorded quote, not even the owner's
    own, is "the market" a quote is judged against."""
    judgement = judge(parse_quote(text, lang), price_book(db, None))
    if not judgement.quote.vendor:
        return judgement, False
    return judgement, record(judgement.quote, db, owner)


# `quote remove VENDOR [GPU]` / `报价 删除 ...`: withdraw a quote the team recorded.
_REMOVE = re.compile(
    r"^\s*(?:quote|报价)\s*(?:remove|delete|withdraw|drop|forget|rm|删除|撤销|撤回|移除|取消)(?=\s|$)\s*", re.I
)


def is_removal(text: str) -> bool:
    return bool(_REMOVE.match(unicodedata.normalize("NFKC", text or "")))


class Removal(BaseModel):
    vendor: str
    gpu: str | None
    removed: list[dict]  # the rows withdrawn (provider, gpu, kind, price, currency, as_of)
    left: list[str]  # the vendors whose quotes the owner still has


def remove_quote(text: str, lang: str | None, db: sqlite_utils.Database, owner: str | None) -> Removal:
    """`quote remove Acme Compute [H800]`: withdraw `owner`'s quotes from that vendor (of that
    GPU); RequestError when no vendor is named."""
    text = clean(text)
    lang = lang or detect_lang(text)
    rest = _REMOVE.sub("", unicodedata.normalize("NFKC", text), count=1).strip()
    gpu = None
    found = re.search(rf"(?<![a-z0-9])({_gpu_names()})(?![a-z0-9])", rest.lower())
    if found:
        gpu = catalog.find_gpu(found[1]).name
        rest = (rest[: found.start()] + " " + rest[found.end() :]).strip()
    vendor = re.sub(r"\s+", " ", rest).strip(" ,，")[:60]
    if not vendor:
        raise RequestError("quote_remove", lang)
    removed = store.delete_owned_quotes(db, owner or "", vendor, gpu)
    left = sorted({r["provider"] for r in store.owned_quotes(db, owner or "")})
    # the vendor as it was recorded ("Acme Compute" for "remove acme compute")
    return Removal(vendor=removed[0]["provider"] if removed else vendor, gpu=gpu, removed=removed, left=left)


RENT_ROLES = ("rent_hour", "rent_month", "offpeak_hour", "spot_hour")


def mark_quoted(sources: list[dict], book: PriceBook, gpu: str) -> None:
    """Mark each rent price source of a plan that is a quote the book's owner recorded
    (`source["quote"] = True`), so the answer says whose quote prices the plan."""
    for s in sources:
        if s.get("role") not in RENT_ROLES:
            continue
        s["quote"] = any(
            p.owner
            and p.provider == s["provider"]
            and p.as_of == s["as_of"]
            and p.currency == s["currency"]
            and math.isclose(p.price, s["price"], rel_tol=1e-9)
            for market in ("china", "global")
            for p in book.offers(s["role"], gpu, market)
        )
