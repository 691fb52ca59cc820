"""What owning the servers for a number of GPUs costs: their purchase price and the monthly cost
of owning and running them, by the purchase arithmetic of the planner (advisor/planning/costs.py,
`plan_costs`): a module (an 8-GPU board) price divided by the board's share of a server, a card
price by the cards' share, 15% more for a cluster's switches and optics past one server; power at
the owned servers' utilisation and the PUE on record, hosting per kW-month, upkeep as a share of
the price a year, and the resale value left after the months owned.

The assumptions of owning live here, where the quote judge (market) and the planner
(advisor/planning/costs.py, which imports them) both read them; tests/test_quote_terms.py checks
a quote's owning figure against a plan's purchase of the same servers.
"""

from __future__ import annotations

import math

from pydantic import BaseModel

from advisor.catalog import GPU
from advisor.market.prices import Price, PriceBook

# A bought cluster's use after this job: a team with a steady queue keeps it about 70% busy
# (assumed; the guides' rule is to buy only for work lasting two years or more).
OWNED_UTILISATION = 0.70
# Yearly operations (spares, support, an engineer's share) as a share of capex (assumed).
OPS_SHARE_OF_CAPEX = 0.05
# GPUs are 40-60% of a server's total cost (source guide, Chengdu): a server priced from
# cards alone is the card price / 0.5.
GPU_SHARE_OF_SERVER = 0.5
# An 8-GPU board (HGX module) is not a server: the chassis, CPUs, memory and NICs come on top.
# The GPUs are about 0.76 of an 8 x H100 node with InfiniBand NICs: $317k for the node (Thinkmate
# quote, 2024-08) against 8 x about $30k per GPU ("mid-2026", rough), both in
# shared/notes/market-2026-12.md (P9, P10). A module price is divided by it.
MODULE_SHARE_OF_SERVER = 0.76
# Useful life of training GPUs: 4-5 years (issue 15; the accounting lives of 4-6 years the
# hyperscalers state are the usual reference; not re-read here). The shorter end is used.
USEFUL_LIFE_MONTHS = (48, 60)
# What bought GPUs resell for: a used working unit fetches 72% of a new one of the same vintage,
# and a unit's price falls with its age by these factors at 0-4 years (SpotWire GPU Cluster
# Valuator dataset, valuator_data.json, methodology v0.6, as of 2026-06-04, CC-BY-4.0: the
# "used_working" condition factor and the H100 80GB PCIe vintage curve, SpotWire's anchor curve,
# not one measured for each part). Applied to the whole server (assumed: no server resale series
# on record). A straight line from capex to 10% had resold a year-old cluster for 78% of its price,
# so a 12-month use showed buying cheaper beside a 16-month break-even.
USED_RESALE_SHARE = 0.72
VINTAGE_BY_YEAR = (1.0, 0.78, 0.60, 0.46, 0.35)
# A workstation holds up to this many consumer or workstation (PCIe) cards; more go in servers.
WORKSTATION_MAX_CARDS = 4
# PUE when no figure is on record: China's 2025 national target (data/reference_prices.toml).
DEFAULT_PUE = 1.5
# Multi-node clusters also buy switches, optics and storage: 15% of server capex (assumed).
CLUSTER_EXTRA = 0.15
# A purchase is weighed by its cost of owning over this many months (issue 15: "3-4-year cost of
# ownership"; the planner ranks "buy" plans by it unless the team states its use).
OWNERSHIP_MONTHS = 36
# Without a city, the planner prices power at the market's national figure (costs.CITY_POWER_REGIONS).
NATIONAL_REGIONS = ("CN", "US")


def is_workstation(gpu: GPU, gpus: int) -> bool:
    """Whether `gpus` of this GPU are bought (and sized) as a workstation rather than servers:
    up to WORKSTATION_MAX_CARDS consumer or PCIe cards; SXM/OAM parts come on 8-GPU boards."""
    return (gpu.consumer or "pcie" in (gpu.form_factor or "").lower()) and gpus <= WORKSTATION_MAX_CARDS


def purchase_price(book: PriceBook, gpu: GPU, market: str, currency: str, workstation: bool) -> Price | None:
    """The price servers (or a workstation's cards) are bought at: a server or module price, else a
    card price, in the team's market; only where that market has neither, the other market's,
    converted (the caller says so). China's grey-channel A100 server had priced a US buyer's
    purchase where a US A100 card price is on record."""
    kinds = ("buy_card",) if workstation else ("buy_server", "buy_card")
    other = "global" if market == "china" else "china"
    for mkt in (market, other):
        for kind in kinds:
            price = book.best(kind, gpu.name, mkt, currency, elsewhere=False)
            if price:
                return price
    return None


class Owning(BaseModel):
    """Owning the servers (or workstation) `gpus` GPUs need over `months`, in `currency`: each
    figure is of all that is bought, but `per_month`, which is of the `gpus` GPUs only (`share`
    of `total_per_month` when they fill less than a server)."""

    gpus: int
    servers: int  # the servers bought (0: a workstation of cards)
    server_gpus: int  # GPUs in each
    share: float  # the quote's GPUs over the GPUs bought
    basis: str  # "module" | "server" | "card": the price the purchase is priced from
    basis_price: float  # that price as on record, in `currency` (a module or server: for its `basis_gpus`)
    basis_gpus: int
    board_share: float  # what the price is divided by: MODULE_SHARE_OF_SERVER, GPU_SHARE_OF_SERVER or 1
    cluster_extra: float  # 0, or CLUSTER_EXTRA past one server
    capex: float
    months: int
    resale: float  # what the hardware is still worth after `months`
    utilisation: float
    pue: float
    kwh_price: float | None
    power_month: float
    hosting_month: float
    upkeep_month: float
    upkeep_share: float = OPS_SHARE_OF_CAPEX  # of the price, a year
    total_per_month: float
    per_month: float
    provider: str
    as_of: str
    currency: str


def resale_share(months: float) -> float:
    """What bought hardware resells for after `months`, as a share of its price: the used-unit
    share times the vintage factor at that age, straight between the years on record, and past
    the last year falling by that year's ratio (VINTAGE_BY_YEAR, SpotWire)."""
    years = max(0.0, months / 12)
    last = len(VINTAGE_BY_YEAR) - 1
    if years >= last:
        vintage = VINTAGE_BY_YEAR[last] * (VINTAGE_BY_YEAR[last] / VINTAGE_BY_YEAR[last - 1]) ** (years - last)
    else:
        i = int(years)
        vintage = VINTAGE_BY_YEAR[i] + (VINTAGE_BY_YEAR[i + 1] - VINTAGE_BY_YEAR[i]) * (years - i)
    return USED_RESALE_SHARE * vintage


# What the hardware is still worth at the end of its useful life, as a share of capex.
RESIDUAL_SHARE = resale_share(USEFUL_LIFE_MONTHS[0])


def residual_at(capex: float, months: float) -> float:
    """What bought hardware resells for after `months` of use (resale_share)."""
    return capex * resale_share(months)


def breakeven_months(capex: float, saving_per_month: float, horizon: float) -> float | None:
    """The months of use after which owning costs no more than renting: the capex less what it
    resells for then, against the rent saved a month net of owning's running costs
    (`saving_per_month`). The capex not recovered grows ever slower (the resale curve flattens)
    while the saving grows in a straight line, so they cross once; None when they do not within
    `horizon` months."""
    if saving_per_month <= 0:
        return None

    def owning_ahead(m: float) -> bool:
        return capex - residual_at(capex, m) <= saving_per_month * m

    if not owning_ahead(horizon):
        return None
    low, high = 0.0, float(horizon)
    while high - low > 0.01:  # bisection to a third of a day
        mid = (low + high) / 2
        low, high = (low, mid) if owning_ahead(mid) else (mid, high)
    return high


def electricity(book: PriceBook, market: str, currency: str) -> Price | None:
    """The electricity price for servers whose site is not known: the market's national average,
    else the middle (lower median) of the regions on record (the cheapest region, Inner Mongolia's,
    had been taken unsaid beside a coastal hosting price). The planner uses it without a city."""
    offers = book.offers("electricity", "", market)
    national = [p for p in offers if p.region.lower() in (r.lower() for r in NATIONAL_REGIONS)]
    if national:
        return min(national, key=lambda p: (p.estimate, book.convert(p.price, p.currency, currency)))
    if not offers:
        return None
    ranked = sorted(offers, key=lambda p: book.convert(p.price, p.currency, currency))
    return ranked[(len(ranked) - 1) // 2]


def owning(
    book: PriceBook,
    gpu: GPU,
    gpus: int,
    market: str,
    currency: str,
    months: int = OWNERSHIP_MONTHS,
    utilisation: float = OWNED_UTILISATION,
) -> Owning | None:
    """Owning the servers `gpus` GPUs need (a workstation for up to four PCIe or consumer cards),
    a month over `months`: the capex less its resale value after `months`, plus power, hosting and
    upkeep. None when no purchase price of the GPU is on record."""
    per_server = max(1, gpu.gpus_per_server)
    workstation = is_workstation(gpu, gpus)
    servers = 0 if workstation else math.ceil(gpus / per_server)
    buy_gpus = gpus if workstation else servers * per_server
    price = purchase_price(book, gpu, market, currency, workstation)
    if not price:
        return None
    if price.kind == "buy_server":
        basis = "module" if price.unit == "module" else "server"
        board = MODULE_SHARE_OF_SERVER if basis == "module" else 1.0
        capex = book.value(price, currency) / max(1, price.gpus) * buy_gpus / board
    else:
        basis, board = "card", GPU_SHARE_OF_SERVER
        capex = book.value(price, currency) * buy_gpus / board
    extra = CLUSTER_EXTRA if servers > 1 else 0.0
    capex *= 1 + extra
    kw = gpu.server_power_kw * (buy_gpus / per_server if workstation else servers)
    power = electricity(book, market, currency)
    pue = book.best("pue", "", market, "")
    pue_v = pue.price if pue else DEFAULT_PUE
    kwh = book.value(power, currency)
    power_year = kw * 8760 * utilisation * pue_v * kwh if kwh else 0.0
    hosting = book.best("hosting", "", market, currency)
    hosting_year = kw * 12 * book.value(hosting, currency) if hosting and hosting.unit == "kw-month" else 0.0
    upkeep_year = capex * OPS_SHARE_OF_CAPEX
    resale = residual_at(capex, months)
    total = capex - resale + (power_year + hosting_year + upkeep_year) * months / 12
    share = gpus / buy_gpus
    return Owning(
        gpus=gpus,
        servers=servers,
        server_gpus=per_server,
        share=share,
        basis=basis,
        basis_price=book.value(price, currency),
        basis_gpus=max(1, price.gpus),
        board_share=board,
        cluster_extra=extra,
        capex=capex,
        months=months,
        resale=resale,
        utilisation=utilisation,
        pue=pue_v,
        kwh_price=kwh,
        power_month=power_year / 12,
        hosting_month=hosting_year / 12,
        upkeep_month=upkeep_year / 12,
        total_per_month=total / months,
        per_month=total / months * share,
        provider=price.provider,
        as_of=price.as_of,
        currency=currency,
    )
