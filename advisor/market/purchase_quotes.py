"""A vendor's quote to sell servers ("H20 96G 8卡服务器 采购 98万/台", "buy 8x H100 SXM server
$240,000"): judged against the purchase price on record for the same GPUs, the way the planner
prices a purchase (advisor/market/owning.py), and never recorded: plans price purchases from the
price store's shared data, and a rental quote is what `quote` records.
"""

from __future__ import annotations

import datetime as dt
import re

from pydantic import BaseModel

from advisor import catalog
from advisor.market.owning import owning
from advisor.market.prices import PriceBook
from advisor.request.parser import _gpu_names, detect_lang, money_said
from advisor.text.safe import clean

# Words of buying, not renting: a quote with them and no rental period is a sale
BUYING = re.compile(
    r"采购|购买|购置|买断|整机购买|出售|售价|卖价|(?<!租)买(?!不买)|\b(?:buy|buying|purchase|purchasing|sale|sell|selling)\b"
    # a server's price with no rental period ("一台8卡4090服务器 报价28万": the lab probe's quote)
    r"|(?:服务器|整机|一台|每台).{0,10}(?:报价|单价|含税|不含税)|(?:报价|单价).{0,6}(?:/台|每台|一台)"
    # a server's sum in 万 with no rental period ("8卡4090服务器 26.8万元")
    r"|(?:服务器|整机).{0,6}\d+(?:\.\d+)?\s*万"
    # a sum beside a server in English with no rental period ("is $300k for an 8x H100 server fair?",
    # "vendor quoted 1.2M RMB for an 8x H20 server": the price of the server)
    r"|[$¥€]\s*\d[^.?!]{0,40}\b(?:servers?|nodes?|boxe?s?|dgx|hgx)\b"
    r"|\d(?:[\d.,]*)\s*(?:k|m|million)?\s*(?:usd|rmb|cny|dollars?|yuan)\b[^.?!]{0,40}\b(?:servers?|nodes?|boxe?s?|dgx|hgx)\b"
    r"|\b(?:servers?|nodes?|boxe?s?|dgx|hgx)\b[^.?!]{0,30}(?:[$¥€]\s*\d|\d[\d.,]*\s*(?:k|m|million)?\s*(?:usd|rmb|cny|dollars?|yuan)\b)",
    re.I,
)
# A sum in 万 (ten thousands of yuan) where the request's budget reading takes none ("售价28万")
WAN = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*(?:万|w)(?:元|块|人民币)?(?![a-z\d])", re.I)
RENTING = re.compile(
    r"租|/\s*(?:月|时|小时|h|hr|hour|month|mo)\b|每(?:月|小时|卡时)|per\s+(?:month|hour)|\bmonthly\b|\bhourly\b", re.I
)
PER_CARD = re.compile(r"/\s*(?:卡|张)|每(?:卡|张)|\bper\s+(?:gpu|card)\b|\beach\s+(?:gpu|card)\b|\ba\s+card\b", re.I)
SERVERS = re.compile(r"(\d+)\s*台|(\d+)\s+(?:servers|nodes|boxes)\b", re.I)
PER_SERVER_GPUS = re.compile(r"(\d+)\s*(?:卡|x|×|\*|张卡|\s+gpus?\b)", re.I)
# Verdict bands against the price on record: 20% under, 15% over (assumed; no published rule)
UNDER, OVER = 0.8, 1.15


class PurchaseJudgement(BaseModel):
    lang: str
    gpu: str
    server_gpus: int
    servers: int
    per_card: bool  # the price was said per card
    price_each: float  # one server, in the quote's currency
    currency: str
    market: str
    reference: float | None  # one server of the same GPUs on record, in the quote's currency
    reference_basis: str | None  # "server" | "module" | "card": what the record prices
    reference_provider: str | None
    reference_as_of: str | None
    reference_old: bool  # the price on record is over a year old: server prices have moved since
    ratio: float | None
    verdict: str  # "under" | "near" | "over" | "unknown"


def purchase_quote(text: str, lang: str | None, book: PriceBook) -> PurchaseJudgement | None:
    """The judgement of a quote to sell servers, or None when the text is no such quote (no buying
    word, a rental period, no GPU or no amount): `quote` then reads it as a rental."""
    text = clean(text)
    if not BUYING.search(text) or RENTING.search(text):
        return None
    # "8xH20": the GPU after its count
    found = re.search(rf"(?<![a-z0-9])({_gpu_names()})(?![a-z0-9])", re.sub(r"(\d)\s*[x×*]\s*", r"\1 x ", text.lower()))
    said = money_said(text)
    if not said and WAN.search(text):
        said = float(WAN.search(text)[1]) * 1e4, "CNY"
    if not found or not said:
        return None
    lang = lang or detect_lang(text)
    gpu = catalog.find_gpu(found[1])
    amount, currency = said
    currency = currency or ("CNY" if lang == "zh" or "万" in text else "USD")
    market = "china" if currency == "CNY" else "global"
    count = PER_SERVER_GPUS.search(text)
    server_gpus = int(count[1]) if count and 1 <= int(count[1]) <= 16 else max(1, gpu.gpus_per_server)
    servers_said = SERVERS.search(text)
    # "2台 ... 共400万": the sum of both; "98万/台": each server's already
    servers = int(servers_said[1] or servers_said[2]) if servers_said and "/台" not in text else 1
    per_card = bool(PER_CARD.search(text))
    each = amount * server_gpus if per_card else amount / max(1, servers)
    own = owning(book, gpu, server_gpus, market, currency)
    reference = own.capex if own else None
    ratio = each / reference if reference else None
    verdict = "unknown" if ratio is None else "under" if ratio < UNDER else "over" if ratio > OVER else "near"
    as_of = own.as_of if own else ""
    year_ago = (dt.date.today() - dt.timedelta(days=365)).isoformat()
    return PurchaseJudgement(
        lang=lang,
        gpu=gpu.name,
        server_gpus=server_gpus,
        servers=servers,
        per_card=per_card,
        price_each=each,
        currency=currency,
        market=market,
        reference=reference,
        reference_basis=own.basis if own else None,
        reference_provider=own.provider if own else None,
        reference_as_of=as_of or None,
        # "2024-08" or "2023" before the date a year ago: compared as text, padded to a day
        reference_old=bool(as_of) and (as_of + "-01-01"[len(as_of) - 4 :]) < year_ago,
        ratio=ratio,
        verdict=verdict,
    )
