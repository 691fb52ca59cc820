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
from advisor.market.owning import Owning, owning
from advisor.market.prices import DAYS_PER_MONTH, HOURS_PER_MONTH, SIBLINGS, Price, PriceBook, price_book
from advisor.request.parser import RequestError, _cn_num, _gpu_names, detect_lang, thousands_after_wan
from advisor.text.safe import clean

# A rent below what the same servers cost to own (advisor/market/owning.py, the planner's
# purchase arithmetic: the servers over 36 months less their resale value then, plus power,
# hosting and upkeep) cannot pay for the hardware: the vendor saves elsewhere (shared network or
# storage, thin support) or the quote leaves costs out. The Chengdu guide states the rule as
# "monthly rent under a third of the purchase price", which every normal rent meets (a month
# is 2.5-4% of the price), so we use the cost of owning instead.
SUSPICIOUS_BELOW_OWNING = 0.8
# Under half of owning, and under half the like offers on record, a quote is not recorded at all
# (assumed): a price that low prices no plan (both user probes of 2026-12-05 saw "$0.10/hr" H100s
# recorded, then pricing 8-GPU jobs at $877), while one above it may be a real bargain to check.
UNRECORDED_BELOW_OWNING = 0.5
# Our own bands around the market for the same kind of offer (no published rule): the median of
# the like offers on record (`like_offers`), so one outlier listing does not set it; 30% above it
# is worth negotiating, 30% below it is worth asking what is left out.
EXPENSIVE_ABOVE_MARKET = 1.3
CHEAP_BELOW_MARKET = 0.7
_NUM = r"(\d+(?:,\d{3})*(?:\.\d+)?(?:e[+-]?\d+)?)"  # 1e308 is one (absurd) number, not "1" and "e308"
_SCALE = {"": 1, "k": 1e3, "w": 1e4, "万": 1e4, "m": 1e6}
# What a quote may say. GPUs: 1 to 100,000 (the largest clusters). A term: one day to ten
# years. The price, once per GPU-hour, must be in the store's plausible band (store.check_row).
MAX_GPUS = 100_000
# A counted quote not said per GPU ("8xH100 $2.5/hr") is read per GPU when the price of them all
# would be under a fifth of the market's per GPU and the price of each is within 2x of the offers
# on record, cheapest to dearest (assumed: the suspicious verdict starts far higher, at 80% of
# owning, so a real bargain stays one). "8xH100 $2.1/hr" had been read as $0.26 a GPU-hour beside
# $1.99 offers, for falling outside 2x of the median, and then priced the team's plans.
ABSURD_SHARE, EACH_BAND = 0.2, 2.0
MIN_TERM_MONTHS, MAX_TERM_MONTHS = 1 / 31, 120
_PLACES = (
    r"(?<![a-z])(?:in\s+)?(?:singapore|sg|hong\s*kong|hk|japan|tokyo|korea|seoul|taiwan|europe|eu|germany|frankfurt"
    r"|us|usa|u\.s\.|america|us-east|us-west|virginia|texas|california|oregon|overseas|abroad)(?![a-z])"
    r"|(?:在)?(?:新加坡|香港|日本|东京|韩国|台湾|欧洲|德国|美国|美东|美西|海外|国外)"
)


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
    whole_said: bool = False  # "per server", "整机", "每台", "/台/月": the price is of one whole server
    # The servers said ("4台", "2 servers"; None: not said) and the GPUs in each: "4台 8卡A100" is
    # 32 GPUs on 4 servers of 8. A price said per server ("每台每月3.2万", "69000元/台/月", "per
    # server per month") is of one server's GPUs (`priced_gpus`).
    servers: int | None = None
    server_gpus: int = 1
    # Terms the quote states beside its price (None: not said): the deposit in months of rent
    # (押一付一: 1, "deposit 2 months": 2), how many months each payment covers (押一付三, 按季付: 3),
    # the share of the contract paid upfront ("25% upfront"), the off-peak discount ("20% off-peak
    # discount nights", 闲时8折: 0.2) and the fabric between the servers ("IB组网": "ib", "RoCE": "roce").
    deposit_months: float | None = None
    pay_every_months: float | None = None
    upfront_share: float | None = None
    offpeak_discount: float | None = None
    fabric: str | None = None

    @property
    def priced_gpus(self) -> int:
        """How many GPUs the price is of: one (per GPU), one server's, or all the GPUs quoted."""
        if self.per_gpu:
            return 1
        if self.whole_said:
            return max(1, min(self.gpus, self.server_gpus))
        return self.gpus

    @property
    def nodes(self) -> int:
        return self.servers or max(1, math.ceil(self.gpus / max(1, self.server_gpus)))


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
    # Owning the same GPUs a month, by the planner's purchase arithmetic (advisor/market/owning.py):
    # the servers over OWNERSHIP_MONTHS less their resale value then, power, hosting and upkeep;
    # `owning` holds each part.
    owning_per_month: float | None
    owning: Owning | None = None
    # "fair" | "cheap" | "expensive" | "suspicious" | "unknown"; where the like offers on record are
    # themselves below owning, "above_owning" | "near_owning" (judged against owning instead), or
    # "below_owning_market" (below owning, as they are, at or above their median)
    verdict: str
    # under UNRECORDED_BELOW_OWNING of owning the same GPUs: judged, never recorded to price plans
    unrecorded: bool = False
    # What the market reference is (issue 15, like with like): "month_leases" (monthly server
    # leases), "hour_servers" (hourly whole-server offers), "hour_offers" (hourly offers that
    # deliver as many GPUs) or "cluster_offers" (offers that deliver as many GPUs on several
    # servers joined by a cluster fabric, for a quote that states one); None when nothing like it
    # is on record.
    compared_with: str | None = None
    # The like offers as a range, for the reply to say plainly what "the market" is: how many, the
    # cheapest, the median and the dearest (each {"price" per GPU-hour in the quote's currency,
    # "provider", "as_of", "estimate"}) and how many are cheaper than the quote; None when none is.
    market_span: dict | None = None
    # The cheapest offer of this GPU on record on any basis, when it is cheaper than every like
    # offer: the same fields, its kind, and why it is not like the quote (`unlike`: codes the
    # templates word, with `max_gpus` and `term_months`). A buyer who sees $1.99 H100s in `prices`
    # must not read a $4.5 median as "the market" without being told why $1.99 is not compared.
    cheapest_other: dict | None = None
    # "per_gpu" | "per_server" when the quote gave no count, "per_gpu_each" when it gave a count
    # but its price is read per GPU; None when the quote said which
    reading: str | None = None
    signs: list[str]  # kinds of warning sign, worded by the template
    # What to ask the vendor, as checks (templates/checks.j2 words each code): built from what is
    # quoted (the GPU's server topology, one server or several, the term), the pilot sized to the
    # job when a plan is known, else to the term.
    questions: list[dict] = []
    # The cash the quote's terms tie up, in its currency (None: the term is not said): the deposit
    # (its months of the monthly rent of all the GPUs), each payment (its months of that rent),
    # what is paid at signing (the deposit and the first payment), the upfront share of the
    # whole term's rent (None as well when no term is said), and the GPU-hour off-peak.
    deposit_cash: float | None = None
    payment_cash: float | None = None
    at_signing_cash: float | None = None
    upfront_cash: float | None = None
    offpeak_per_gpu_hour: float | None = None
    recorded: bool = False
    # The thresholds the warning signs quote ("more than 30% above ...").
    above_market_margin: ClassVar[float] = EXPENSIVE_ABOVE_MARKET - 1
    below_market_margin: ClassVar[float] = 1 - CHEAP_BELOW_MARKET


# The example every quote refusal shows (it must read: tests/test_quote_terms.py).
EXAMPLE = "8xH800 ¥95000/month 3 months vendorX"


def _plausible(per_gpu_price: float, currency: str, per: str) -> bool:
    """Whether a price per GPU-hour or GPU-month is in the store's plausible band (store.check_row)."""
    try:
        store.check_row(
            {
                "as_of": dt.date.today().isoformat(),
                "price": per_gpu_price,
                "currency": currency,
                "unit": f"gpu-{per}",
                "priced": 1,
            }
        )
    except ValueError:
        return False
    return True


# A refused quote is quoted back up to this many characters, an ellipsis saying where it was cut
# (a quote cut at "... incl 3yr support, " had read as the whole text refused)
QUOTED_BACK = 60


def _said(text: str) -> str:
    text = text.strip()
    return text if len(text) <= QUOTED_BACK else text[: QUOTED_BACK - 1].rstrip(" ,，;；") + "…"


def parse_quote(text: str, lang: str | None = None) -> Quote:
    """Read a quote; RequestError (the friendly refusal) for anything it cannot use, including
    zero or absurd GPU counts, prices and terms ("quote_price" when the price is the problem). The
    text is cleaned first (advisor/text/safe.py): the vendor name and the stored text carry no
    control, bidi-override or backtick characters."""
    text = clean(text)
    lang = lang or detect_lang(text)
    q = _parse_quote(text, lang)
    refuse = RequestError("quote", lang, word=_said(text))
    if not 1 <= q.gpus <= MAX_GPUS or (q.servers is not None and not 1 <= q.servers <= q.gpus):
        raise refuse
    if q.term_months is not None and not (
        math.isfinite(q.term_months) and MIN_TERM_MONTHS <= q.term_months <= MAX_TERM_MONTHS
    ):
        raise refuse
    if not math.isfinite(q.price) or q.price <= 0:
        raise RequestError("quote_price", lang, word=_said(text), zero=True)
    # The readings of the price a quote allows must be plausible per GPU: both the price of one GPU
    # and of a whole server when it gives no count (see settle); when it gives a count but does
    # not say per GPU, at least one of the price of them all and the price of each (settle reads
    # it per GPU when only that one is).
    gpu = catalog.get_gpu(q.gpu)
    if q.per_gpu or q.whole_said:
        readings, need = {q.priced_gpus}, all
    elif q.count_given:
        readings, need = {q.gpus, 1}, any
    else:
        readings, need = {1, max(1, gpu.gpus_per_server)}, all
    if not need(_plausible(q.price / n, q.currency, q.per) for n in readings):
        raise RequestError("quote_price", lang, word=_said(text), zero=False)
    return q


_CN_DIGITS = "一二两三四五六七八九十"
_SMALL = rf"(\d+(?:\.\d+)?|[{_CN_DIGITS}]+|one|two|three|four|five|six|twelve)"
_WORD_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "twelve": 12}
_CADENCE = {
    "月": 1,
    "季": 3,
    "季度": 3,
    "半年": 6,
    "年": 12,
    "monthly": 1,
    "quarterly": 3,
    "semi-annually": 6,
    "semiannually": 6,
    "half-yearly": 6,
    "annually": 12,
    "yearly": 12,
}


def _small(word: str) -> float:
    """A small count as written: "2", "2.5", "二", "两", "two"."""
    if word in _WORD_NUMBERS:
        return float(_WORD_NUMBERS[word])
    if word[0].isdigit():
        return float(word)
    return float(_cn_num(word))


def _read_terms(rest: str) -> tuple[str, dict]:
    """The terms a quote states beside its price, and the text without them (they are not the
    vendor's name): the deposit (押一付一, 押金2个月, "deposit 2 months", "2-month deposit"), how
    often it is paid (押一付三, 按季付, 月付, "paid quarterly"), the share paid upfront ("25%
    upfront", 预付30%), an off-peak discount ("20% off-peak discount nights", "off-peak 20% off",
    闲时8折) and the fabric ("IB组网", "InfiniBand", "RoCE")."""
    terms: dict = {}

    def take(pattern: str, read) -> None:
        nonlocal rest
        m = re.search(pattern, rest)
        if m:
            read(m)
            rest = rest[: m.start()] + " " + rest[m.end() :]

    def deposit_and_cadence(m):
        terms["deposit_months"] = _small(m[1])
        terms["pay_every_months"] = _small(m[2])

    take(rf"押\s*{_SMALL}\s*付\s*{_SMALL}", deposit_and_cadence)
    take(rf"押金\s*{_SMALL}\s*个?月", lambda m: terms.setdefault("deposit_months", _small(m[1])))
    take(
        rf"(?<![a-z])(?:security\s+)?deposit\s*(?:of\s*)?{_SMALL}\s*(?:-\s*)?months?(?![a-z])"
        rf"|(?<![a-z0-9.]){_SMALL}\s*(?:-\s*)?months?'?\s*(?:of\s+)?(?:security\s+)?deposit(?![a-z])",
        lambda m: terms.setdefault("deposit_months", _small(m[1] or m[2])),
    )
    take(
        r"(?:按|每)?(半年|季度|季|月|年)\s*(?:付款?|支付|结算?|交)(?![一二两三四五六七八九十\d])",
        lambda m: terms.setdefault("pay_every_months", float(_CADENCE[m[1]])),
    )
    take(
        r"(?<![a-z])(?:paid|payable|billed|invoiced|payments?|pay)\s+(?:in\s+advance\s+)?"
        r"(monthly|quarterly|semi-?annually|half-yearly|annually|yearly)(?![a-z])(?:\s+in\s+advance)?"
        r"|(?<![a-z])(monthly|quarterly|semi-?annual|half-yearly|annual|yearly)\s+(?:payments?|billing|in\s+advance)(?![a-z])",
        lambda m: terms.setdefault(
            "pay_every_months", float(_CADENCE.get(m[1] or m[2], _CADENCE.get((m[1] or m[2]) + "ly", 12)))
        ),
    )
    take(
        rf"(?<![\d.]){_NUM}\s*%\s*(?:(?:is\s+)?(?:paid\s+)?(?:upfront|up-front|up\s+front|prepaid|prepayment|in\s+advance)"
        r"|(?:预付|首付|预付款))"
        rf"|(?:upfront|prepay(?:ment)?|预付款?|首付)\s*{_NUM}\s*%",
        lambda m: terms.setdefault("upfront_share", float((m[1] or m[2]).replace(",", "")) / 100),
    )
    take(
        rf"(?<![\d.]){_NUM}\s*%\s*(?:off\s+)?(?:off-?peak|night(?:time)?|overnight)\s*(?:discount|off)?"
        r"(?:\s*(?:at\s+|during\s+(?:the\s+)?)?(?:nights?|weekends?|night-?time))?"
        rf"|(?:off-?peak|night(?:time)?)\s*(?:discount\s*(?:of\s*)?)?{_NUM}\s*%\s*(?:off|discount)?",
        lambda m: terms.setdefault("offpeak_discount", float((m[1] or m[2]).replace(",", "")) / 100),
    )
    take(
        r"(?:闲时|夜间|晚间)\s*(\d+(?:\.\d+)?)\s*折",
        lambda m: terms.setdefault("offpeak_discount", round(1 - float(m[1]) / (10 if float(m[1]) < 10 else 100), 4)),
    )
    take(
        r"(?:\d+\s*g(?:b(?:ps)?)?\s*)?(?<![a-z0-9])(ib|infiniband|roce|rdma)(?![a-z0-9])\s*(?:v2\s*)?"
        r"(?:组网|网络|互联|集群|fabric|network(?:ing)?|cluster)?",
        lambda m: terms.setdefault("fabric", "ib" if m[1] in ("ib", "infiniband") else "roce"),
    )
    return rest, terms


def _parse_quote(text: str, lang: str) -> Quote:
    norm = unicodedata.normalize("NFKC", text).lower().replace("×", "x").strip()
    norm = re.sub(r"^quote\s+|^报价\s*", "", norm)
    norm = thousands_after_wan(norm)  # "4万6" is 46,000 (the rest had been the vendor's name)
    # the count before the name ("8xH800", "8卡H800") or after it ("H800 8卡", "H100 x 8 GPUs")
    gpu_m = re.search(
        rf"(?:(?<![a-z0-9.])(\d+)\s*(?:x|\*|卡|张)?\s*|(?<![a-z0-9]))({_gpu_names()})(?![a-z0-9])"
        r"(?:\s*(?:x|\*)?\s*(\d+)\s*(?:卡|张|gpus?|cards?|x(?![a-z0-9]))(?![a-z]))?",
        norm,
    )
    if not gpu_m:
        raise RequestError("quote", lang, word=_said(text))
    gpu = catalog.find_gpu(gpu_m[2])
    count = gpu_m[1] or gpu_m[3]
    gpus = int(count[:12]) if count else gpu.gpus_per_server  # 12 digits: absurd already
    rest = norm[: gpu_m.start()] + " " + norm[gpu_m.end() :]
    # the GPU said again ("acme H200 8xH200 ..."): not the vendor's name
    rest = re.sub(rf"(?<![a-z0-9])(?:\d+\s*[x*]\s*)?(?:{_gpu_names()})(?![a-z0-9])", " ", rest)
    if not count:
        # the count apart from the name ("910B 集群 64卡": it had been the vendor, 8 GPUs assumed); not a
        # price per card ("每卡") or a card-hour ("卡时")
        apart = re.search(r"(?<![\d.每/])(\d+)\s*(?:张卡|块卡|卡|张|gpus|cards)(?![a-z时])", rest)
        if apart:
            count = apart[1]
            gpus = int(count[:12])
            rest = rest[: apart.start()] + " " + rest[apart.end() :]
    rest, terms = _read_terms(rest)
    # the price, its currency and period, and what it is of: "¥95000/month", "5.5元/卡/小时",
    # "69000元/台/月", "1.4万/台·月", "87000 CNY per server per month"
    price_m = re.search(
        rf"([¥$])?\s*{_NUM}\s*(k|w|万|m)?\s*(块钱|元|块|cny|rmb|usd|美元|yuan|dollars?)?\s*(?:/|per\b|an?\b|每个?|一个?)\s*"
        r"(?:(gpu|card|卡)|(server|node|machine|box|台|机))?\s*(?:[-/·・]|per\b|每|a\b)?\s*"
        r"(month|mo|月|个月|hour|hr|h|小时|时)(?![a-z])",
        rest,
    )
    if price_m:
        sym, number, scale, unit, card, server, period = price_m.groups()
    else:  # the unit first, as Chinese quotes often put it: "每月9万", "月租4.5万", "每卡时5.5元", "每台每月3.2万"
        price_m = re.search(
            r"(每卡每月|每卡时|每卡每小时|每台每月|每台月租|每台每小时|每月|月租|每个月|一个月|每小时|一小时|时租)"
            rf"\s*([¥$])?\s*{_NUM}\s*(k|w|万|m)?\s*(块钱|元|块|cny|rmb|usd|美元)?",
            rest,
        )
        if not price_m:
            raise RequestError("quote", lang, word=_said(text))
        lead, sym, number, scale, unit = price_m.groups()
        card, period = ("卡" if "卡" in lead else None), ("月" if "月" in lead else "时")
        server = "台" if "台" in lead else None
    currency = "USD" if sym == "$" or unit in ("usd", "美元", "dollar", "dollars") else "CNY"
    price = float(number.replace(",", "")) * _SCALE[(scale or "").lower()]
    if price <= 0:
        raise RequestError("quote_price", lang, word=_said(text), zero=True)
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
    # the servers: "4台", "2台服务器", "4机32卡", "2 servers", "4 nodes of"
    servers_m = re.search(
        rf"(?<![a-z0-9.])(\d+|[{_CN_DIGITS}]+)\s*(?:台(?:服务器|机器)?|机(?![房柜器])"
        r"|(?:servers?|nodes?|machines?|boxes)(?![a-z])(?:\s+(?:of|with)(?![a-z]))?)",
        rest,
    )
    servers = None
    per_server = max(1, gpu.gpus_per_server)
    server_gpus = min(gpus, per_server)
    if servers_m:
        servers = int(servers_m[1][:9]) if servers_m[1][0].isdigit() else int(_cn_num(servers_m[1]))
        rest = rest[: servers_m.start()] + " " + rest[servers_m.end() :]
        if not count:
            gpus, server_gpus = servers * per_server, per_server
        elif gpus <= per_server:  # "4台 8卡A100": 8 in each of 4 servers
            gpus, server_gpus = servers * gpus, gpus
        else:  # "4机32卡": 32 in all
            server_gpus = max(1, math.ceil(gpus / max(1, servers)))
    # the term: "3 months", "1 year", "2-year", "签一年", "至少签两年", "起租3个月", "半年", "包年" (a
    # year's lease), "包月"
    term_m = re.search(
        # "租6个月": the verb before the term is no part of the vendor's name
        rf"(?:(?:租用?|租赁|包)\s*)?(?:{_NUM}|(?P<cn>[{_CN_DIGITS}]+))\s*(?:-\s*)?(?P<unit>months?|mo|个月|years?|yrs?|年)(?P<half>半)?(?:起租|起签|起)?"
        r"|(?P<word>包年|年租|年签|包月|月租起|半年|half\s+a\s+year|half-year)",
        rest,
    )
    term = None
    if term_m:
        if term_m["word"]:
            term = (
                1.0 if "月" in term_m["word"] else 6.0 if "半" in term_m["word"] or "half" in term_m["word"] else 12.0
            )
        else:
            n = float(term_m[1].replace(",", "")) if term_m[1] else float(_cn_num(term_m["cn"]))
            term = n * (12 if term_m["unit"] in ("year", "years", "yr", "yrs", "年") else 1)
            term += 6 if term_m["half"] else 0
        rest = rest[: term_m.start()] + " " + rest[term_m.end() :]
    # where the servers are is not the vendor's name ("... 3 months singapore" had recorded a
    # vendor called Singapore); the quote is judged in its currency's market
    rest = re.sub(_PLACES, " ", rest)
    # words about the term or the price that are not the vendor's name (a currency said after the
    # price, "$2.5/hr usd", had recorded a vendor called "usd")
    rest = re.sub(
        r"至少|最少|起租|签约?|合同|合约|租期|单价|价格|租金|报价|美元|人民币"
        r"|(?<![a-z0-9\-])(?:lease|term|minimum|min\.?|commitment|committed|contract|usd|cny|rmb)(?![a-z0-9\-])",
        " ",
        rest,
    )
    # how the offer came is no part of the vendor's name ("we were offered 64 H200 at $2.1/hr" had
    # recorded a vendor called "we were offered at"; "acme offered us ..." keeps acme)
    rest = re.sub(
        r"(?<![a-z])(?:(?:we|i|they)(?:'ve|\s+were|\s+was|\s+got|\s+have\s+been|\s+are\s+being)?\s+)?"
        r"(?:offered|quoted|got\s+(?:a\s+)?(?:quote|offer)(?:\s+(?:from|of))?)(?:\s+(?:us|me))?(?:\s+at)?(?![a-z])"
        r"|(?:有人|对方|他们)?\s*给\s*(?:我们|我)\s*(?:报(?:了|价是|价为|价)?)?|(?:有人|对方|他们)\s*报(?:了|价是|价为|价)?",
        " ",
        rest,
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
    # (nor the small words left around what was taken out: "on a 6 month term by lambda" is lambda's,
    # nor what the offer is: "H100 8x cluster $2.1/hr ... coreweave" is coreweave's, not "cluster coreweave")
    fillers = ("per", "gpu", "每卡", "for", "from", "with", "on", "a", "an", "by", "at", "via", "of", "in")
    fillers += ("cluster", "clusters", "server", "servers", "node", "nodes", "machine", "machines", "box", "boxes")
    fillers += ("instance", "instances", "baremetal", "bare-metal", "集群", "整机", "服务器", "裸金属")
    # (Chinese runs have no spaces: "8卡H20服务器租一个月" had left "服务器租" as the vendor)
    rest = re.sub(r"(?:服务器|集群|整机|裸金属)(?:出租|租用|租赁|租)?", " ", rest)
    words = [w for w in re.split(r"[\s,，;；、:：]+", rest) if w and w not in fillers]
    vendor = " ".join(_as_written(w, text) for w in words)
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
        count_given=bool(count) or servers is not None,
        whole_said=(bool(whole) or bool(server)) and not per_gpu,
        servers=servers,
        server_gpus=server_gpus,
        **terms,
    )


def _as_written(word: str, text: str) -> str:
    """A word of the vendor's name in the case the user wrote it ("江苏某IDC", not "江苏某idc")."""
    found = re.search(re.escape(word), unicodedata.normalize("NFKC", text).replace("×", "x"), re.I)
    return found[0] if found else word


def settle(
    q: Quote, per_offer_hour: float, market_per_gpu_hour: float | None, span: tuple[float, float] | None = None
) -> tuple[Quote, str | None]:
    """A quote that gives neither a GPU count nor "per GPU" ("H100 $2.5/hr", "H800 9万/月") is read
    as the price of one GPU or of one whole server, whichever is nearer the market price for
    that GPU (one GPU when there is none on record); the reply says which. One with a count but
    not "per GPU" ("8xH100 $2.5/hr") is the price of them all unless the price of each is far
    nearer the market ($2.5 for eight H100 an hour would be a tenth of any offer on record).
    `span`: the cheapest and dearest like offers per GPU-hour (the market price alone when None)."""
    market = market_per_gpu_hour
    low, high = span or (market, market)
    if q.per_gpu or q.whole_said:
        return q, None
    if q.count_given:
        # read per GPU only when the price of them all would be absurd and the price of each is
        # a market price: a cheap whole offer must stay cheap, for the verdict to say so; or
        # when the price of them all is no plausible price at all ("256xH100 $1.85/hr": under a
        # cent a GPU-hour) and the price of each is (parse_quote refuses a quote where neither is)
        each = q.gpus > 1 and (
            not _plausible(q.price / q.gpus, q.currency, q.per)
            or (
                market
                and per_offer_hour / q.gpus < ABSURD_SHARE * market
                and low / EACH_BAND <= per_offer_hour <= high * EACH_BAND
            )
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


def term_offers(book: PriceBook, gpu: str, market: str, term_months: float) -> list:
    """The offers on record of the GPU sold on the quote's term (its source states that term, by
    the hour or the month): [] when none is."""
    return [
        p
        for kind in ("rent_hour", "rent_month")
        for p in book.offers(kind, gpu, market, rentable=True)
        if term_months in p.lease_terms or p.min_term_months == term_months
    ]


def cluster_offers(book: PriceBook, gpu: str, market: str, per: str, gpus: int, nodes: int, fabric: str) -> list:
    """The offers on record a quote of several servers on a cluster fabric ("4台 8卡A100 ... IB组网")
    is compared with: those of the same period (a monthly quote with monthly leases) that deliver
    as many GPUs on as many servers in one order on a cluster fabric (Price.why_not), of the GPU
    or else of its sibling class; those on the same fabric when there are any."""
    kind = "rent_month" if per == "month" else "rent_hour"
    for name in (gpu, SIBLINGS.get(gpu)):
        if not name:
            continue
        ok = [
            p
            for p in book.offers(kind, name, market, rentable=True)
            if p.why_not(gpus, nodes) is None and (p.offer_kind == "cluster" or p.fabric in store.CLUSTER_FABRICS)
        ]
        if ok:
            return [p for p in ok if p.fabric == fabric] or ok
    return []


def _hourly(book: PriceBook, offers: list, currency: str) -> list[tuple[float, Price]]:
    """The offers by their price per GPU-hour in `currency`, cheapest first."""
    return sorted(
        (
            (book.convert(p.price, p.currency, currency) / (HOURS_PER_MONTH if p.kind == "rent_month" else 1), p)
            for p in offers
        ),
        key=lambda vp: vp[0],
    )


def market_reference(book: PriceBook, offers: list, currency: str):
    """The median like offer (the lower middle one) and its price per GPU-hour in `currency`."""
    if not offers:
        return None, None
    hourly = _hourly(book, offers, currency)
    value, price = hourly[(len(hourly) - 1) // 2]
    return price, value


def _offer_fields(value: float, p: Price) -> dict:
    return {"price": value, "provider": p.provider, "as_of": p.as_of, "estimate": p.estimate}


# The kinds of offer a buyer may set beside a quote (`prices` lists them all), and the codes of what
# each is when it is not the quote's kind: interruptible, off-peak hours only.
_ANY_BASIS = {"rent_hour": None, "rent_month": None, "spot_hour": "spot", "offpeak_hour": "offpeak"}


def _unlike(p: Price, q: Quote, clustered: bool, termed: bool) -> list[str]:
    """Why an offer on record is not like the quote (what it lacks or what else it is), as codes:
    spot or off-peak, fewer GPUs in one order, no cluster fabric for several servers, a monthly
    lease beside an hourly quote or an hourly offer beside a lease, another term than the quote's."""
    out = [_ANY_BASIS[p.kind]] if _ANY_BASIS.get(p.kind) else []
    if p.max_gpus < q.gpus:
        out.append("count")
    if clustered and not (p.offer_kind == "cluster" or p.fabric in store.CLUSTER_FABRICS):
        out.append("fabric")
    if q.per == "hour" and p.kind == "rent_month":
        out.append("lease")
    elif q.per == "month" and p.kind != "rent_month":
        out.append("hourly")
    elif q.per == "month" and p.offer_kind not in ("server", "cluster") and p.max_gpus < 8:
        out.append("count")
    if termed and q.term_months not in p.lease_terms and p.min_term_months != q.term_months:
        out.append("term")
    return list(dict.fromkeys(out))


def _cheapest_other(
    book: PriceBook, q: Quote, gpu: str, market: str, like: list, low: float | None, clustered: bool, termed: bool
) -> dict | None:
    """The cheapest offer of this GPU on any basis, where it is under every like offer, with why it
    is not compared (`_unlike`); None when the cheapest is a like offer, or nothing explains it."""
    others = [
        p
        for kind in _ANY_BASIS
        for p in book.offers(kind, gpu, market, rentable=True)
        if p not in like and p.owner is None
    ]
    for value, p in _hourly(book, others, q.currency):
        if low is not None and value >= low:
            return None
        unlike = _unlike(p, q, clustered, termed)
        if unlike:
            term = p.lease_terms[0] if p.lease_terms else p.min_term_months
            return _offer_fields(value, p) | {
                "kind": p.kind,
                "unlike": unlike,
                "max_gpus": p.max_gpus,
                "term_months": term,
            }
    return None


def market_span(book: PriceBook, offers: list, currency: str) -> tuple[float, float] | None:
    """The cheapest and dearest like offers per GPU-hour in `currency`."""
    hourly = _hourly(book, offers, currency)
    return (hourly[0][0], hourly[-1][0]) if hourly else None


# The pilot before signing (as advisor/planning/checklist.py sizes it for a plan): a tenth of the
# job, or of the quoted term, at most this many days.
PILOT_SHARE = 0.1
PILOT_MAX_DAYS = 3


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
    in_one = min(q.gpus, q.server_gpus, per_server)
    if in_one > 1:
        if vendor == "amd":
            add("topo_xgmi", gpus=in_one)
        elif vendor == "huawei":
            add("topo_hccs", gpus=in_one)
        elif "nvlink" in intra or "nvswitch" in intra:
            add("topo_nvlink", gpus=in_one)
        else:
            add("topo_pcie", gpus=in_one, consumer=bool(gpu.consumer))
    servers = max(q.nodes, math.ceil(q.gpus / per_server))
    if servers > 1:
        add("oversubscription", nodes=servers)
    if vendor == "nvidia" and not gpu.consumer:
        add("dcgm_diag")
    elif vendor == "amd":
        add("rvs_stress")
    else:
        add("burn_in")
    # the vendor's own profiler (Ascend: msprof; the planner's checklist names the same)
    profiler = "msprof" if vendor == "huawei" else ("rocprof" if vendor == "amd" else "nsys")
    if job_days:
        hours = round(min(PILOT_MAX_DAYS, job_days * PILOT_SHARE) * 24, 1)
        add("pilot", hours=hours, days=job_days, profiler=profiler)
    elif q.term_months:
        term_days = q.term_months * DAYS_PER_MONTH
        hours = round(min(PILOT_MAX_DAYS, term_days * PILOT_SHARE) * 24, 1)
        add("pilot_term", hours=hours, term=q.term_months, profiler=profiler)
    else:
        add("pilot_unsized")
    add("contract_sla")
    term = q.term_months or 0
    add("contract_exit", term=int(term) if float(term).is_integer() else round(term, 1))
    add("contract_billing", billing="month" if q.per == "month" else "hour")
    return out


def judge(q: Quote, book: PriceBook, job_days: float | None = None) -> QuoteJudgement:
    """Against the market the quote's currency belongs to (CNY: China, USD: global clouds), like
    with like (`like_offers`; `cluster_offers` for several servers on a stated cluster fabric).
    `job_days`: the plan's days when the quote is asked about under a plan (the pilot is sized to
    the job)."""
    market = market_of(q.currency)
    gpu = catalog.get_gpu(q.gpu)
    per_offer_hour = q.price / (HOURS_PER_MONTH if q.per == "month" else 1)
    count = q.gpus if (q.count_given or q.per_gpu) else 1
    signs = []
    clustered = q.fabric in store.CLUSTER_FABRICS and q.nodes > 1
    like = cluster_offers(book, gpu.name, market, q.per, q.gpus, q.nodes, q.fabric or "") if clustered else []
    if clustered and not like:
        signs.append("no_cluster_offer")
    # a quote on a term ("12 months") against the offers on record sold on that term, where there are
    # any: a reserved price is not an on-demand one (a 12-month H200 at $2.5/h had been judged
    # against the on-demand median of $5.4)
    termed = [] if like or not q.term_months else term_offers(book, gpu.name, market, q.term_months)
    offers = like or termed or like_offers(book, gpu.name, market, q.per, count)
    market_price, market_value = market_reference(book, offers, q.currency)
    q, reading = settle(q, per_offer_hour, market_value, market_span(book, offers, q.currency))
    if q.gpus != count and not like and not termed:  # read as a whole server: compare with offers that deliver one
        offers = like_offers(book, gpu.name, market, q.per, q.gpus)
        market_price, market_value = market_reference(book, offers, q.currency)
    compared_with = (
        None
        if market_price is None
        else "cluster_offers"
        if like
        else "term_offers"
        if termed
        else (
            "month_leases"
            if market_price.kind == "rent_month"
            else "hour_servers"
            if q.per == "month"
            else "hour_offers"
        )
    )
    per_gpu_hour = per_offer_hour / q.priced_gpus
    ranked = _hourly(book, offers, q.currency)
    span = (
        {
            "count": len(ranked),
            "low": _offer_fields(*ranked[0]),
            "median": _offer_fields(market_value, market_price),
            "high": _offer_fields(*ranked[-1]),
            "cheaper": sum(value < per_gpu_hour for value, _ in ranked),
        }
        if ranked
        else None
    )
    cheapest = _cheapest_other(
        book, q, gpu.name, market, offers, ranked[0][0] if ranked else None, clustered, bool(termed)
    )
    pflops = gpu.bf16_dense_tflops / 1000 or gpu.fp16_dense_tflops / 1000
    ratio = per_gpu_hour / market_value if market_value else None
    monthly_total = per_gpu_hour * q.gpus * HOURS_PER_MONTH
    # Owning the same number of GPUs as the quote (a share of a server for fewer than a server's
    # worth, not a whole server for one GPU), by the planner's purchase arithmetic.
    owned = owning(book, gpu, q.gpus, market, q.currency)
    own = owned.per_month if owned else None
    verdict = "unknown" if ratio is None else "fair"
    if own and monthly_total < SUSPICIOUS_BELOW_OWNING * own:
        signs.append("below_owning")
        verdict = "suspicious"
    # and under half the like offers too where there are some (a 910B lease at the going ¥14k a
    # server-month is under half of owning one, as the whole market on record is)
    unrecorded = bool(
        own and monthly_total < UNRECORDED_BELOW_OWNING * own and (ratio is None or ratio < UNRECORDED_BELOW_OWNING)
    )
    # the like offers on record below owning the servers themselves (910B leases at 0.6% of the server's
    # price a month, which the planner will not plan on): no yardstick to call a quote dear by (a
    # ¥40k server-month had been "2.8x the median, negotiate" and "below owning" at once)
    market_low = bool(own and market_value and market_value * HOURS_PER_MONTH * q.gpus < SUSPICIOUS_BELOW_OWNING * own)
    if ratio is not None and ratio > EXPENSIVE_ABOVE_MARKET and market_low:
        signs.append("market_below_owning")
        # judged against owning instead ("910B 每卡每月 9000元" had been "near the median" beside
        # "5.1x the median"): above it, dear; between it and the suspicious line, a fair rent
        if verdict != "suspicious":
            verdict = "above_owning" if monthly_total > own else "near_owning"
    elif ratio is not None and ratio > EXPENSIVE_ABOVE_MARKET:
        signs.append("above_market")
        verdict = "expensive"
    elif ratio is not None and ratio < CHEAP_BELOW_MARKET and verdict != "suspicious":
        signs.append("below_market")
        verdict = "cheap"
    if verdict == "suspicious" and market_low and ratio is not None and ratio >= 1:
        # below owning the servers, as every like offer on record is, and dearer than most of them: no
        # bargain "too cheap to be true" (a 910B server at ¥32k a month, 2.3x the median, had been)
        verdict = "below_owning_market"
    if q.term_months and q.term_months >= 12:
        signs.append("long_term")
    deposit = q.deposit_months * monthly_total if q.deposit_months else None
    payment = q.pay_every_months * monthly_total if q.pay_every_months else None
    return QuoteJudgement(
        quote=q,
        per_gpu_hour=per_gpu_hour,
        per_pflops_hour=per_gpu_hour / pflops,
        market_per_gpu_hour=market_value,
        market_ratio=ratio,
        monthly_total=monthly_total,
        unrecorded=unrecorded,
        market_source=f"{market_price.provider}, {market_price.as_of}{' (estimate)' if market_price.estimate else ''}"
        if market_price
        else None,
        owning_per_month=own,
        owning=owned,
        market_price={"provider": market_price.provider, "as_of": market_price.as_of, "estimate": market_price.estimate}
        if market_price
        else None,
        verdict=verdict,
        signs=signs,
        questions=vendor_questions(q, job_days),
        reading=reading,
        compared_with=compared_with,
        market_span=span,
        cheapest_other=cheapest,
        deposit_cash=deposit,
        payment_cash=payment,
        # what signing takes: the deposit and the first payment (a month's rent when the quote
        # says no payment cadence)
        at_signing_cash=deposit + (payment or monthly_total) if deposit else None,
        upfront_cash=q.upfront_share * monthly_total * q.term_months if q.upfront_share and q.term_months else None,
        offpeak_per_gpu_hour=per_gpu_hour * (1 - q.offpeak_discount) if q.offpeak_discount else None,
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
        "price": q.price / q.priced_gpus,
        "currency": q.currency,
        "unit": f"gpu-{q.per}",
        "min_term_months": int(q.term_months or 0),
        "as_of": (today or dt.date.today()).isoformat(),
        "cite": f"vendor quote: {q.text}",
        "note": "; ".join(["recorded with /gpu quote", *_terms_said(q)]),
        "owner": owner,
        # What it is an offer of (issue 15): the GPUs quoted come in one order.
        "max_gpus": q.gpus,
        # several servers on a stated cluster fabric are a cluster (prices.Price.why_not)
        "offer_kind": "cluster"
        if q.nodes > 1 and q.fabric in store.CLUSTER_FABRICS
        else "server"
        if q.gpus >= 8
        else "instance",
        "fabric": q.fabric or "",
        "billing": "month" if q.per == "month" else "hour",
    }
    return store.write_rows(db, [row]) == 1


def _terms_said(q: Quote) -> list[str]:
    """The quote's terms beside its price, for the stored row's note (plain English, not shown)."""
    out = []
    if q.servers:
        out.append(f"{q.nodes} servers of {q.server_gpus} GPUs")
    if q.deposit_months:
        out.append(f"deposit {q.deposit_months:g} months")
    if q.pay_every_months:
        out.append(f"paid every {q.pay_every_months:g} months")
    if q.upfront_share:
        out.append(f"{q.upfront_share:.0%} upfront")
    if q.offpeak_discount:
        out.append(f"{q.offpeak_discount:.0%} off-peak discount")
    if q.fabric:
        out.append(f"fabric {q.fabric}")
    return out


def quote_answer(
    text: str, lang: str | None, db: sqlite_utils.Database, owner: str | None
) -> tuple[QuoteJudgement, bool]:
    """Parse, judge against the market, record for `owner` when the vendor is named (a recorded
    quote prices the owner's plans, so it must say whose it is; without a name the reply asks
    for one) and the price is not under half of owning the GPUs (`unrecorded`). The market is
    the shared data only: no recorded quote, not even the owner's own, is "the market" a quote
    is judged against."""
    judgement = judge(parse_quote(text, lang), price_book(db, None))
    if not judgement.quote.vendor or judgement.unrecorded:
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
