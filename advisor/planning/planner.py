"""From model, data, deadline and budget to ranked server plans.

For every GPU the user's market can get, counts grow from the smallest that fits (1, 2, 4,
one server, then a grid of whole servers up to MAX_GPUS) until the deadline is met, and two
counts beyond it while GPU-hours still fall; a count no faster than a smaller one is dropped.
Each count gets its best layout (advisor/engine/estimate.py), its infrastructure and its
costs. Plans that fit and meet the deadline (and the budget, when one is set) are ranked by
total rent, or by time when the user asks for speed.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel

from advisor import catalog
from advisor.catalog import GPU, ModelShape
from advisor.engine.estimate import (
    HIGH_EXPOSED_COMM,
    MAX_GPUS,
    Estimate,
    best_layout,
    candidate_counts,
    layout_fits,
)
from advisor.engine.setup import TrainingSetup
from advisor.market.prices import PriceBook
from advisor.planning.costs import Costs, plan_costs
from advisor.planning.engine_inputs import request_gpu, training_setup
from advisor.planning.infra import Infrastructure, plan_infrastructure
from advisor.planning.rent import BILLING_HOURS, DAYS_PER_MONTH, can_rent
from advisor.request.model import TrainingRequest

# Without a deadline the planner still needs a horizon: the cheapest plan that finishes
# within 30 days (stated in the answer's assumptions).
DEFAULT_HORIZON_DAYS = 30
# Once a count meets the deadline, the next two counts of the grid are priced too: a larger one
# may rent for the same or less and finish sooner (assumed two).
COUNTS_BEYOND_DEADLINE = 2
# ... and past those, up to twice the first count that meets it, while the last count worked out
# is strained (it offloads, recomputes whole layers, or leaves over HIGH_EXPOSED_COMM of its step
# to communication): a larger count can shed that and need fewer GPU-hours. DeepSeek-V3 fine-tuned
# on 64 B200 (full recompute, 32% exposed, $7,627) had stood where 128 run a pipeline in 4.9 hours
# for $5,922 (US-buyer probe).
STRAINED_COUNTS_UP_TO = 2
# `asap` with no deadline: the counts past the 30-day horizon's are priced while each is faster
# (up to this many; assumed), so "fastest" is not only the counts a cost search happened to try.
COUNTS_BEYOND_FOR_SPEED = 6
# A plan leased by the month pays whole months: the counts that bring the job into each of the
# next few fewer months are priced too (56 Ascend 910B in 111 days, four months, had led over 112
# in 57 days, two months, for 5% less).
FEWER_MONTHS_TRIED = 3
# The time scales a little worse than one over the count, so the grid's count that one-over-count
# brings into those months can still bill one more: up to this many counts of the grid from it
# are tried, the next while the last bills more months (640 Ascend 910B in 30.5 days, two months,
# where 768 take 26 days in one for 15% less than 448 in 43 days; assumed three).
FEWER_MONTHS_GRID_STEPS = 3
# The first jump toward the count a deadline needs goes at most this many times the smallest
# count that fits (assumed: three octaves of the count grid).
MAX_JUMP = 8
# The jump scales the first count's time as if larger counts ran as efficiently; they usually run
# better (an MoE's expert traffic swamps a few servers), so it can land past the smallest count
# that meets the deadline: where the first count after it meets the deadline, up to this many grid
# counts below it are tried too, down to the first that misses (671B-A37B FP8 on H800: the jump
# from 160 GPUs at 1,186 days landed on 2,560, past 2,048 meeting 60 days for 20% less; assumed three).
COUNTS_BELOW_JUMP = 3


class Plan(BaseModel):
    gpu: str
    method: str
    label: str | None = None  # why it is shown as an alternative
    estimate: Estimate
    infra: Infrastructure | None = None  # filled for the plan that is answered (sizing is not free)
    costs: Costs
    meets_deadline: bool
    within_budget: bool

    @property
    def rent(self) -> float | None:
        return self.costs.rent_total

    @property
    def days(self) -> float | None:
        return self.estimate.days

    def spend(self, req: TrainingRequest) -> float | None:
        """What a budget is held against: the rent for the job, or for a buyer the capex."""
        return self.costs.buy_capex if req.rent_or_buy == "buy" else self.costs.rent_total

    @property
    def job_electricity(self) -> float | None:
        """On the team's own GPUs, what the job costs instead of a rent: the servers at full load
        for its hours times the PUE at the electricity price (as plan_context's power_cost_month);
        None without sizing, a time or a price."""
        c, e = self.costs, self.estimate
        power = self.infra.power_kw_per_node * e.layout.nodes if self.infra else None
        hours = (e.days or 0) * 24
        if not (power and c.pue and c.electricity_per_kwh and hours):
            return None
        return power * c.pue * hours * c.electricity_per_kwh

    def priced(self, req: TrainingRequest) -> bool:
        """A price is on record for what the user would pay: a rent (a total needs a data
        size), or for a buyer the purchase."""
        return self.costs.buy_capex is not None if req.rent_or_buy == "buy" else self.costs.known


# Issue 15: an alternative on another GPU type is worth a line when the user's GPU costs over
# twice as much for the same job.
OTHER_GPU_RENT_RATIO = 2
# Issue 21: the one-server plan is named first among the alternatives when it costs at most this
# share of the headline and takes at most this many times the deadline.
ONE_SERVER_COST_SHARE = 1 / 3
ONE_SERVER_DEADLINE_SLACK = 1.5
# Alternatives that cost more than this many times the headline are noise (expert review N13).
ALTERNATIVE_COST_RATIO = 10
# Two plans whose rent differs by less than this share are a tie, broken toward the part that is
# easier to get where the team is (issue 21).
TIE_SHARE = 0.01
# Within such a tie, a plan that finishes in this share of the time or less wins it (assumed: a
# quarter sooner is worth saying; a team pays no more to wait less).
FASTER_TIE = 0.75
# A plan priced on a rent the answer itself doubts (under half of what a lessor needs a month to
# recover the servers: costs.py `rent_below_capex`, Costs.rent_doubted) never chooses where a plan
# on an undoubted rent meets the same request: not the headline, the budget fallback, the one-server
# plan or a what-if's switch. It stays an alternative, with the warning that names it. 1,792 Ascend
# 910B at a rent flagged "ask what is cut" had led over 384 H800 costing 5% more; at 7% or more it
# had still led, and answered a two-year buy-or-rent question.
# A plan that needs over 90% of the time to its deadline has no room for its own error (the
# engine's median on published runs it was not fitted to is about 10%, docs/accuracy.md), a
# restart or the trial run the checklist asks for: a plan that leaves a tenth of the time free
# leads when it costs at most ROOMY_SHARE more (assumed: a tenth, the spread of a vendor's quote), else it is named.
DEADLINE_SLACK = 0.10
ROOMY_SHARE = 0.10
# Rent alone had led with plans a team would not run while its budget allowed a sound one: 8 RTX
# 5090 streaming DeepSeek-V3's 1.37 TB of weights from host memory at 9% MFU, 8.4 days for ¥14.5k,
# within a ¥1M budget that 8 A100 (2.3 days, ¥25k) fit; 8 RTX 4090 for 15 days at $993 against
# 4 B200 for 2 days at $1,173. A plan that leans on consumer cards or on offloading its states to
# host memory (fragile: consumer cards have no ECC memory, datacentre support or NVLink; offloaded
# states cross PCIe every step), or on a rent no offer on record delivers, extrapolated from
# on-demand lists (224 MI300X estimated from one cloud's 8-GPU list had led 70B fine-tuning 7% under
# 256 H100 on a cluster offer: a list promises no capacity or fabric at that size; leases of whole
# servers, China's usual offer, reserve them and are not counted here), or on ROCm (AMD's GPUs are
# planned from kernel benchmarks, and measured training has trailed them: SemiAnalysis, "MI300X vs
# H100 vs H200 Benchmark Part 1: Training", 2024-12, found out-of-the-box training on the public
# ROCm releases unworkable; one H200 trains an 8B model in BF16 1.32-1.40x faster than one MI300X,
# whose BF16 peak is 1.32x the H200's, alpharomercoma/MI300X-vs-H200 REPORT.md at 6077fdc) gives
# way to one that leans on fewer of them when that one costs
# at most STURDY_SHARE more, or, under a budget, when what it costs more is at most
# STURDY_BUDGET_SHARE of the budget (assumed: a quarter more is within the spread of vendors'
# quotes for one plan; a twentieth of a budget is money the team set aside anyway). The answer
# says what was weighed (warning `tie_sturdier`).
STURDY_SHARE = 0.25
STURDY_BUDGET_SHARE = 0.05
OFFLOAD_RANK = {"none": 0, "optimizer": 1, "all": 2}
# How easily a part is had, by its data/gpus.toml access code (lower is easier): made or sold
# freely there first, then an installed base rented under a licence rule, then parts that need a
# licence nobody has shown. Within one code, the part sold there legally for longer (a later
# `since`) is easier to find installed.
ACCESS_RANK = {
    "domestic": 0,
    "open": 0,
    "not_named": 1,
    "approved_buyers": 1,
    "licence_rented": 2,
    "china_part": 2,
    "unconfirmed": 3,
    "licence_promised": 3,
    "licence": 4,
    "us_restricted": 4,
    "aws_only": 5,
}


# The budget fallback: a plan within the budget is offered only while it runs at most this many
# times the deadline, and at most a year (assumed: past that it is no plan a team would take).
FALLBACK_MAX_DEADLINES = 20
FALLBACK_MAX_DAYS = 365


class Suggestion(BaseModel):
    """The cheapest change that makes an impossible request work."""

    change: Literal[
        "more_gpus",
        "auto_layout",
        "smaller_batch",
        "recompute",
        "qlora",
        "shorter_seq",
        "longer_deadline",
        "gpu_type",
        "other_gpu",
        "other_count",
    ]
    value: int | float | str | None = None
    plan: Plan | None = None


class PlanResult(BaseModel):
    best: Plan | None
    alternatives: list[Plan]
    considered: int
    horizon_days: float
    conflict: str | None  # "budget" when deadline and budget cannot both hold
    nearest_deadline: Plan | None = None
    nearest_budget: Plan | None = None  # the budget fallback: the fastest plan found within the budget
    suggestions: list[Suggestion] = []
    single_server: Plan | None = None  # the best plan on one server (issue 21)
    tie: dict | None = None  # a tie broken toward the part easier to get: {gpu, other, codes}
    # a fragile plan that gave way to a sturdier one (`_sturdier_gives_way`): what was weighed
    sturdier: dict | None = None
    # the cheaper AMD plan that meets the deadline only at its kernels' estimate, not at ROCm's
    # measured speed, and so does not lead: the lead {gpu, count, cost}, that plan {other,
    # other_count, other_days, other_cost}, and {deadline, cur, low, high, days_low, days_high}
    rocm_late: dict | None = None
    nearest_priced: Plan | None = None  # when the best plan has no rent on record: the nearest that has
    # `pay as you go` with no hourly offer that delivers the plan: the largest hourly order on
    # record in the market {gpus, gpu}, and nearest_priced is the plan leased by the month instead
    hourly_largest: dict | None = None
    # a plan that finishes within DEADLINE_SLACK of its deadline: {days, deadline, and the cheapest
    # plan with the slack (gpu, count, days, cost, more), or what gave way to it (`led`)}
    tight: dict | None = None
    # no plan within the budget at any length: the least the job costs, above it (`_budget_floor`)
    budget_floor: dict | None = None


def _budget(req: TrainingRequest, book: PriceBook) -> float | None:
    if not req.budget:
        return None
    return book.convert(req.budget.amount, req.budget.currency, req.currency)


def make_plan(
    req: TrainingRequest, m: ModelShape, gpu: GPU, est: Estimate, book: PriceBook, horizon: float, budget: float | None
) -> Plan:
    costs = plan_costs(req, gpu, est, book)
    meets = est.days is None or est.days <= horizon
    plan = Plan(gpu=gpu.name, method=req.method, estimate=est, costs=costs, meets_deadline=meets, within_budget=True)
    spend = plan.spend(req)
    plan.within_budget = budget is None or (spend is not None and spend <= budget)
    return plan


def with_infrastructure(req: TrainingRequest, plan: Plan | None) -> Plan | None:
    if plan is None or plan.infra is not None:
        return plan
    infra = plan_infrastructure(req, request_gpu(req, plan.gpu), plan.estimate, plan.costs.rent_offer)
    return plan.model_copy(update={"infra": infra})


def candidate_gpus(req: TrainingRequest) -> list[GPU]:
    """The GPU named, or every GPU of the team's market that runs the precision asked for (with
    NVLink between its GPUs where that is asked);
    outside China not the China-market parts (A800, H800: made for China's export rules, few
    providers elsewhere rent them, and their prices there are estimates from the H100's), which
    a team can still name."""
    if req.gpu:
        return [request_gpu(req)]
    return [
        request_gpu(req, g.name)
        for g in catalog.gpus()
        if req.market in g.markets
        and not (req.market == "global" and g.global_access == "china_part")
        # FP8 asked for: only GPUs with FP8 tensor cores (a named one without is planned in bf16, said)
        and not (req.precision == "fp8" and g.fp8_dense_tflops <= 0)
        # NVLink asked for: a server's GPUs linked by it or the like (Infinity Fabric, HCCS), not over PCIe
        and not (req.nvlink and g.nvlink_domain <= 1)
    ]


# Ranking rule: PCIe cards (L40S, H100/A800 PCIe, consumer cards) are never preferred for
# pre-training on more than a few servers while SXM/OAM parts are in the market; they rank after
# every SXM/OAM plan, whatever their price. Why: they have no NVLink (or only pairwise bridges), so
# tensor parallelism stays inside one card and pipeline/data-parallel traffic crosses PCIe, and
# their NICs share the host's PCIe lanes (no GPUDirect P2P on GeForce), so at that scale the plan
# rests on the communication model most, where it is least sure (issue #14). A few servers
# (PCIE_PRETRAIN_SERVERS, assumed 4) stay allowed: small runs there are common and measured.
PCIE_PRETRAIN_SERVERS = 4


def pcie_at_scale(req: TrainingRequest, p: Plan) -> bool:
    """A pre-training plan on PCIe cards beyond a few servers (the ranking rule above)."""
    return (
        req.method in ("pretrain", "continued-pretrain")
        and "pcie" in catalog.get_gpu(p.gpu).form_factor.lower()
        and p.estimate.layout.nodes > PCIE_PRETRAIN_SERVERS
    )


def _sort_key(req: TrainingRequest):
    def key(p: Plan):
        if req.tokens is None:
            # No data, so no time to weigh: the rent of a token's work (a GPU's rate an hour over
            # its tokens an hour: whatever the data, the job costs that many times its tokens), and
            # a plan that offloads after every plan that does not (`70B` alone had been two 4090s
            # streaming 1.3 TB of host memory). The rate an hour alone had put `7B pretrain` on two
            # Ascend 910B at 1.4x an H800's rent a token.
            rate = p.costs.rent_per_gpu_hour or float("inf")
            if req.rent_or_buy == "buy" and p.costs.buy_capex:
                # a buyer's by what a GPU costs to own (host memory for offloading in): 24 Ascend 910B
                # at ¥7.3M had been the plan "without offloading" for a 70B buyer, on their low rent,
                # beside 16 A100 at ¥2.6M
                rate = p.costs.buy_capex / p.estimate.layout.gpu_count
            per_token = rate / max(p.estimate.throughput.tokens_per_s_per_gpu, 1e-9)
            return (pcie_at_scale(req, p), p.estimate.layout.offload != "none", per_token, 0.0)
        rent = p.costs.ownership_cost if req.rent_or_buy == "buy" else p.rent  # issue 15: a buyer's by owning
        unpriced = rent is None
        # unpriced: after every priced plan; among themselves by GPU-hours at the hardware's price,
        # the nearest thing to a rent on record (896 V100s had won an hourly what-if for being
        # fastest), then those with no price at all by their GPU-hours alone (16 A10s on a 16-stage
        # pipeline had won an 8B LoRA for being fastest)
        no_price = False
        if unpriced:
            capex = p.costs.buy_capex
            hours = p.estimate.gpu_hours
            no_price = not capex
            rent = (capex / p.estimate.layout.gpu_count * hours if capex else hours) if hours else float("inf")
        days = p.days if p.days is not None else float("inf")
        if req.speed_first:
            return (pcie_at_scale(req, p), days, unpriced, no_price, rent)
        return (pcie_at_scale(req, p), unpriced, no_price, rent, days)

    return key


class _Estimates:
    """Each GPU type and count's layout search and fit check, worked out once a search: the
    deadline search, the budget fallback and the one-server option look at the same counts."""

    def __init__(self, m: ModelShape, setup: TrainingSetup):
        self.m, self.setup = m, setup
        self._at: dict[tuple[str, int], Estimate] = {}
        self._fits: dict[tuple[str, int], bool] = {}
        self._resident: dict[tuple[str, int], bool] = {}

    def at(self, gpu: GPU, count: int) -> Estimate:
        key = (gpu.name, count)
        if key not in self._at:
            self._at[key] = best_layout(self.m, self.setup, gpu, count)
        return self._at[key]

    def fits(self, gpu: GPU, count: int) -> bool:
        key = (gpu.name, count)
        if key not in self._fits:
            known = self._at.get(key)
            self._fits[key] = (known is not None and known.fits) or layout_fits(self.m, self.setup, gpu, count)
        return self._fits[key]

    def fits_resident(self, gpu: GPU, count: int) -> bool:
        """Whether a layout fits at this count without offloading its states."""
        key = (gpu.name, count)
        if key not in self._resident:
            known = self._at.get(key)
            self._resident[key] = (known is not None and known.fits and known.layout.offload == "none") or layout_fits(
                self.m, self.setup, gpu, count, resident=True
            )
        return self._resident[key]

    def evaluated(self, gpu: GPU) -> int:
        return len({c for name, c in self._at.keys() | self._fits.keys() if name == gpu.name})


def horizon_days(req: TrainingRequest) -> float:
    """The time a plan is sought within: the deadline; without one, the lease term the team asked
    for (`rent for 2 months`: the months it pays for anyway), else DEFAULT_HORIZON_DAYS."""
    if req.deadline_days:
        return req.deadline_days
    if req.lease_term_months:
        return req.lease_term_months * DAYS_PER_MONTH
    return DEFAULT_HORIZON_DAYS


def search(req: TrainingRequest, m: ModelShape, book: PriceBook, alternatives: bool = True) -> PlanResult:
    horizon = horizon_days(req)
    budget = _budget(req, book)
    setup = training_setup(req)
    known = _Estimates(m, setup)
    plans: list[Plan] = []
    considered = 0
    gpus = candidate_gpus(req)
    # A GPU type with no price on record in the market can give no plan that is chosen or shown
    # beside one that meets the request: it is searched only when none does.
    unpriced = [] if req.gpu else [g for g in gpus if not _ever_priced(book, req, g, _fewest(req, known, g) or 1)]
    for pass_gpus in ([g for g in gpus if g not in unpriced], unpriced):
        if pass_gpus is unpriced and any(p.meets_deadline and p.within_budget and p.priced(req) for p in plans):
            break
        for gpu in pass_gpus:
            # Every count tried that fits: the smallest, the slower ones a budget may afford, those
            # that meet the deadline (a larger one may cost the same or less and finish sooner).
            plans.extend(_plans_for_gpu(req, known, gpu, book, horizon, budget))
            considered += known.evaluated(gpu)
    feasible = [p for p in plans if p.meets_deadline and p.within_budget and p.priced(req)]
    if feasible and all(_doubted(req, p) for p in feasible):
        # within the budget only on a rent the answer doubts: no plan meets both (the doubted one
        # stays an alternative, and `_doubted_rent_gives_way` names it)
        feasible = []
    # an AMD plan that misses the deadline at every speed end-to-end training has measured on ROCm
    # meets it only on paper: it leads only where no other plan meets it (`pretrain a 7B on 2T
    # tokens in 60 days usd` had led with 32 MI300X in 59 days, 78-94 as its own warning said)
    on_paper = [p for p in feasible if _late_as_measured(req, p)]
    if on_paper and len(on_paper) < len(feasible):
        feasible = [p for p in feasible if p not in on_paper]
    else:
        on_paper = []
    key = _sort_key(req)
    conflict = None
    nearest_deadline = nearest_budget = None
    tie = tight = sturdier = None
    if feasible:
        feasible.sort(key=key)
        if req.speed_first:
            feasible = _fast_enough_first(feasible)
        best, tie = _break_tie(req, feasible)
        best, tie = _doubted_rent_gives_way(req, feasible, best, tie)
        best, tie, sturdier = _sturdier_gives_way(req, feasible, best, tie, budget)
        best, tight = _roomy_gives_way(req, feasible, best)
    else:
        on_time = sorted([p for p in plans if p.meets_deadline], key=lambda p: (not p.priced(req), key(p)))
        in_budget = [p for p in plans if p.within_budget and p.priced(req)]
        if budget is not None and on_time and alternatives:  # the answer's fallback, not a sub-search's
            in_budget += _fastest_within_budget(req, known, book, horizon, budget, plans)
        in_budget = [p for p in in_budget if not _doubted(req, p)]
        in_budget.sort(key=lambda p: p.days if p.days is not None else float("inf"))
        # a plan within the budget that runs many times the deadline, or for years, is no fallback a
        # team can use ("8 x RTX 5090, 2,267 days" had been offered for a 14-day job)
        useful = min(FALLBACK_MAX_DEADLINES * (req.deadline_days or horizon), FALLBACK_MAX_DAYS)
        in_budget = [p for p in in_budget if p.days is not None and p.days <= useful]
        if budget is not None and on_time and in_budget:
            conflict = "budget"
            nearest_deadline, nearest_budget = on_time[0], in_budget[0]
        # none on time: the fastest, PCIe cards at scale after the rest as in every ranking here
        fastest = min(plans, key=lambda p: (pcie_at_scale(req, p), p.days or float("inf"))) if plans else None
        best = on_time[0] if on_time else fastest
        if on_time:  # over the budget too, a doubted rent gives way to a sound one within reach
            best, tie = _doubted_rent_gives_way(req, on_time, best, tie)
            if conflict == "budget":
                nearest_deadline = best  # the warning names the plan the answer leads with
    rocm_late = None
    if on_paper and best is not None and _spend(req, best) is not None:
        late = min(on_paper, key=key)
        if (_spend(req, late) or math.inf) < _spend(req, best):
            rocm_late = {
                "gpu": best.gpu,
                "count": best.estimate.layout.gpu_count,
                "cost": _spend(req, best),
                "other": late.gpu,
                "other_count": late.estimate.layout.gpu_count,
                "other_days": late.days,
                "other_cost": _spend(req, late),
                "deadline": req.deadline_days,
                "cur": req.currency,
            } | _late_as_measured(req, late)
    floor = None
    if (
        budget is not None
        and conflict is None
        and alternatives
        and req.rent_or_buy != "buy"
        and not (best and best.within_budget)
    ):
        floor = _budget_floor(req, plans)
        floor = floor if floor and floor["cost"] > budget else None
        if floor and req.tokens:
            # what the budget does buy at that rate: the same share of the job's tokens (rent scales
            # with GPU-hours, and GPU-hours with tokens, on the same plan)
            floor["share"] = budget / floor["cost"]
            floor["tokens"] = req.tokens * floor["share"]
    single = _single_server(req, known, book, horizon, budget, plans) if alternatives else None
    alts = _alternatives(best, plans, req, key) if alternatives else []
    if alternatives and best is not None and req.method == "full-finetune":
        lora = _peft_alternative(req, m, book, best)
        # an alternative is worth a line only where it saves money or time, or holds on the GPUs
        # what full fine-tuning streams from host memory (`budget 1M RMB, buy servers for fine-tuning
        # 70B` had offered one 4090 offloading 1 TB of states, and no LoRA)
        held = best.estimate.layout.offload != "none" and lora is not None and lora.estimate.layout.offload == "none"
        if lora is not None and (_cheaper(lora, best) or (lora.days or math.inf) < (best.days or math.inf) or held):
            alts = alts[:4] + [lora]
    if single is not None and best is not None and _one_server_first(req, best, single, horizon):
        alts = [single.model_copy(update={"label": "one_server"})] + [
            a for a in alts if (a.gpu, a.estimate.layout.gpu_count) != (single.gpu, single.estimate.layout.gpu_count)
        ][:4]
    nearest_priced = hourly_largest = None
    if alternatives and best is not None and best.rent is None:
        nearest_priced = _nearest_priced(best, plans + [a for a in alts if a.rent is not None])
        if req.hourly_only and nearest_priced is None:
            # nothing rents this by the hour: what leasing it would take, and how large an hourly
            # order the market has
            nearest_priced = search(req.model_copy(update={"hourly_only": False}), m, book, alternatives=False).best
            if nearest_priced is not None and nearest_priced.rent is None:
                nearest_priced = None
            hourly_largest = _largest_hourly_order(book, req.market)
    if alternatives:
        best = with_infrastructure(req, best)
    if best is not None and alternatives:
        fallback = _brief(nearest_budget, req=req) if conflict == "budget" else None
        best = best.model_copy(
            update={
                "costs": best.costs.model_copy(
                    update={
                        "single_server": _brief(single, horizon, req),
                        "budget_fallback": fallback,
                        "rent_instead": _rent_instead(req, m, book, horizon),
                    }
                )
            }
        )
    result = PlanResult(
        best=best,
        alternatives=alts,
        considered=considered,
        horizon_days=horizon,
        conflict=conflict,
        nearest_deadline=nearest_deadline,
        nearest_budget=nearest_budget,
        single_server=single,
        tie=tie,
        sturdier=sturdier,
        rocm_late=rocm_late,
        nearest_priced=nearest_priced,
        hourly_largest=hourly_largest,
        tight=tight,
        budget_floor=floor,
    )
    # Suggestions when the request cannot be met, or when the user fixed a GPU type or count
    # (another may do the job for far less).
    if alternatives and (best is None or not best.meets_deadline or not best.estimate.fits or req.gpu or req.gpu_count):
        result.suggestions = suggest(req, m, book, result)
    return result


def _rent_instead(req: TrainingRequest, m: ModelShape, book: PriceBook, horizon: float) -> dict | None:
    """A buyer's job on the cheapest rental plan that meets it: what buying is weighed against
    (the bought GPUs' own rent can be a years-long lease for a two-month job)."""
    if req.rent_or_buy != "buy" or req.owned:
        return None
    renting = req.model_copy(update={"rent_or_buy": None})
    found = search(renting, m, book, alternatives=False).best
    if found is None or found.rent is None:
        return None
    return _brief(found, horizon, renting)


def _ever_priced(book: PriceBook, req: TrainingRequest, gpu: GPU, count: int = 1) -> bool:
    """Whether any price on record could price a plan of `count` or more `gpu` in the team's
    market as `Plan.priced` asks: a rent that delivers them (advisor/planning/rent.py `can_rent`,
    its sibling's server leases included), or for a buyer a purchase."""
    if req.rent_or_buy == "buy":
        return any(book.offers(kind, gpu.name, req.market) for kind in ("buy_server", "buy_card"))
    nodes = max(1, math.ceil(count / gpu.gpus_per_server))
    return can_rent(book, gpu.name, req.market, count, nodes, req.hourly_only)


def _brief(p: Plan | None, horizon: float | None = None, req: TrainingRequest | None = None) -> dict | None:
    """A plan in the few numbers cost.single_server and cost.budget_fallback carry; `cost` is what
    the team spends on it (the purchase when it buys, Plan.spend), as the text says it."""
    if p is None:
        return None
    cost = p.spend(req) if req is not None else p.rent
    out = {"gpu": p.gpu, "gpu_count": p.estimate.layout.gpu_count, "days": p.days, "cost": cost}
    if horizon is not None:
        out["meets_deadline"] = p.days is not None and p.days <= horizon
    return out


def _access(req: TrainingRequest, gpu: str) -> tuple[int, int]:
    """How hard a part is to get in the team's market (ACCESS_RANK), then an earlier `since`
    (sold there legally for less time) sorting after a later one."""
    g = catalog.get_gpu(gpu)
    code = g.china_access if req.market == "china" else g.global_access
    since = (g.china_access_since if req.market == "china" else g.global_access_since) or ""
    return ACCESS_RANK.get(code or "", 3), -dt.date.fromisoformat(since).toordinal() if since else 0


# `asap`, `尽快`: the fastest plan, not at any price. A plan within SPEED_SLACK of the fastest's
# time (a tenth: two days in three weeks), or SPEED_SLACK_HOURS of wall time, finishes as soon for
# the team (assumed: a job ready in an hour or in ten minutes is ready the same afternoon), and the
# cheapest of those leads: "7B lora 10k samples ASAP" had been 4 H200 leased for a month, ¥94,000,
# to save minutes on a ¥2 job.
SPEED_SLACK = 0.1
SPEED_SLACK_HOURS = 2.0
# Nor at a price out of all proportion: a slower plan leads where it saves an order of magnitude
# (SPEED_COST_RATIO) for each doubling of the time (SPEED_TIME_FACTOR) or each half day of waiting
# (SPEED_WAIT_HOURS), whichever of the two counts fewer, and at least one order for any wait
# (assumed: ten times the rent buys at most double the time or a night's wait, a hundred times
# four times or a day; `70b full finetune 2B tokens ASAP usd` had been 32 B200 on a 12-month
# lease, $1.19M, to finish in 7 hours where 40 H100 take 12 for $2,256; `fine-tune Qwen3-32B on
# 500k samples asap` 24 H800 on a month's lease, ¥208,585, for 2.5 hours where one server takes 8
# hours for ¥577; `train llama-3.2-1b from scratch on 50B tokens asap` 32 H800 on a month's lease,
# ¥277,773, for 8.4 hours where one server takes 1.3 days for ¥2,225).
SPEED_COST_RATIO = 10
SPEED_TIME_FACTOR = 2
SPEED_WAIT_HOURS = 12.0


def _as_fast(p: Plan, fastest: Plan) -> bool:
    """`p` finishes as soon as `fastest` for the team (SPEED_SLACK, SPEED_SLACK_HOURS)."""
    if p.days is None or fastest.days is None:
        return False
    return p.days <= max(fastest.days * (1 + SPEED_SLACK), fastest.days + SPEED_SLACK_HOURS / 24)


def _waits(p: Plan, fastest: Plan) -> float:
    """The time `p` gives up on `fastest`, in the units asap trades for orders of magnitude of rent:
    doublings or half days, whichever are fewer, at least one."""
    doublings = math.log(p.days / fastest.days, SPEED_TIME_FACTOR)
    half_days = (p.days - fastest.days) * 24 / SPEED_WAIT_HOURS
    return max(1.0, min(doublings, half_days))


def _worth_the_wait(p: Plan, fastest: Plan, lead: Plan) -> bool:
    """`p` saves enough of `lead`'s rent for the time it gives up on `fastest`: an order of
    magnitude per doubling or half day of waiting (SPEED_COST_RATIO), at least one."""
    return lead.rent > SPEED_COST_RATIO ** _waits(p, fastest) * p.rent


def _fast_enough_first(ranked: list[Plan]) -> list[Plan]:
    """`ranked` fastest first, with the cheapest plan as fast as the fastest (SPEED_SLACK) moved
    to the front, or the best worth waiting for at asap's rate of exchange (`_waits`)."""
    timed = [p for p in ranked if p.days is not None]
    if not timed:
        return ranked
    fastest = min(timed, key=lambda p: p.days)
    near = [p for p in timed if _as_fast(p, fastest) and p.rent is not None]
    if not near:
        return ranked
    lead = min(near, key=lambda p: (p.rent, p.days))
    worth = [p for p in timed if p.rent is not None and _worth_the_wait(p, fastest, lead)]
    if worth:
        # the best of them at the same rate of exchange, not the cheapest: 4 H800 in 23 hours for a
        # few yuan less had led `0.5B pretrain 50B tokens asap` over 8 in 12
        lead = min(worth, key=lambda p: (math.log(p.rent, SPEED_COST_RATIO) + _waits(p, fastest), p.days))
    return [lead] + [p for p in ranked if p is not lead]


def _break_tie(req: TrainingRequest, ranked: list[Plan]) -> tuple[Plan, dict | None]:
    """The first plan, unless another costs within TIE_SHARE of it and is easier to get where the
    team is (H800 over H100 in China): then that one, and what broke the tie."""
    best = ranked[0]
    if best.rent is None or req.speed_first or req.rent_or_buy == "buy":
        return best, None
    ties = [p for p in ranked[1:] if p.rent is not None and abs(p.rent - best.rent) <= TIE_SHARE * best.rent]
    # the same money for a much shorter wait (8 H800 in 14 days against 4 in 29, on the same
    # hourly offer): the faster one, whatever the part
    sooner = [p for p in ties if p.days and best.days and p.days <= FASTER_TIE * best.days]
    if sooner:
        faster = min(sooner, key=lambda p: p.days)
        return faster, {
            "kind": "faster",
            "gpu": faster.gpu,
            "count": faster.estimate.layout.gpu_count,
            "days": faster.days,
            "other": best.gpu,
            "other_count": best.estimate.layout.gpu_count,
            "other_days": best.days,
            "more": faster.rent / best.rent - 1,
            "cur": req.currency,
        }
    # a card without bf16 (Volta: fp16 with loss scaling, for weights trained in bf16) never wins
    # a tie over one with it (a year's lease of a V100 had won over a 4090 at the same rent)
    if catalog.get_gpu(best.gpu).bf16_dense_tflops > 0:
        ties = [p for p in ties if catalog.get_gpu(p.gpu).bf16_dense_tflops > 0]
    easier = min(ties, key=lambda p: _access(req, p.gpu), default=None)
    if easier is None or easier.gpu == best.gpu or _access(req, easier.gpu) >= _access(req, best.gpu):
        return best, None
    field = "china_access" if req.market == "china" else "global_access"
    g_new, g_old = catalog.get_gpu(easier.gpu), catalog.get_gpu(best.gpu)
    return easier, {
        "gpu": easier.gpu,
        "other": best.gpu,
        "access": getattr(g_new, field),
        "other_access": getattr(g_old, field),
        "since": getattr(g_new, field + "_since", None),
        "other_since": getattr(g_old, field + "_since", None),
    }


def _doubted_rent(p: Plan) -> float | None:
    """The rent's share of the servers' price a month where the answer doubts it, else None."""
    return p.costs.rent_doubted


def _doubted_counts(req: TrainingRequest) -> bool:
    """Whether a doubted rent may choose: the team named the GPU, or buys (ranked by owning)."""
    return bool(req.gpu) or req.rent_or_buy == "buy"


def _doubted(req: TrainingRequest, p: Plan) -> bool:
    """`p` is on a doubted rent, and that may choose nothing for this request."""
    return _doubted_rent(p) is not None and not _doubted_counts(req)


def _sound_first(plans: list[Plan]) -> list[Plan]:
    """The plans on a rent the answer does not doubt, or all of them where every one is doubted."""
    return [p for p in plans if not _doubted_rent(p)] or plans


def _doubted_rent_gives_way(
    req: TrainingRequest, ranked: list[Plan], best: Plan, tie: dict | None
) -> tuple[Plan, dict | None]:
    """`best`, unless its rent is doubted and a plan on an undoubted rent is in `ranked` (asked
    for speed first: one as fast): then the first of those, and why."""
    share = _doubted_rent(best)
    if share is None or _weighed_rent(req, best) is None or _doubted_counts(req):
        return best, tie
    sound = [
        p
        for p in ranked
        if _weighed_rent(req, p) is not None
        and not _doubted_rent(p)
        and pcie_at_scale(req, p) <= pcie_at_scale(req, best)  # the ranking's own order first
        and (not req.speed_first or _as_fast(p, best))
    ]
    if not sound:
        return best, tie
    # ranked: the first is the best of them by the request's own order; asked for speed first, the
    # cheapest as fast as `best`, as `_fast_enough_first` chose it (the first had been the fastest:
    # `deepseek-v3 lora 100k samples asap` gave Ascend 910B's doubted ¥56,402 way to 64 H200 at
    # ¥1,080,002, 16 minutes against two hours, where 24 A100 take 2.1 hours for ¥104,252)
    lead = min(sound, key=lambda p: (_weighed_rent(req, p), p.days)) if req.speed_first else sound[0]
    return lead, {
        "kind": "doubted_rent",
        "gpu": lead.gpu,
        "other": best.gpu,
        "share": share,
        "more": _weighed_rent(req, lead) / _weighed_rent(req, best) - 1,
        "per_token": req.tokens is None,
    }


def _weighed_rent(req: TrainingRequest, p: Plan) -> float | None:
    """The rent plans are weighed by: the job's, or without data the rent of a token's work
    (`_sort_key`)."""
    if req.tokens is not None:
        return p.rent
    rate, speed = p.costs.rent_per_gpu_hour, p.estimate.throughput.tokens_per_s_per_gpu
    return rate / speed if rate and speed else None


def _fragility(p: Plan) -> tuple[bool, int, bool, bool]:
    """What a plan leans on that a team would rather not: consumer cards, states offloaded to host
    memory (OFFLOAD_RANK), a rent no offer on record delivers, extrapolated from on-demand lists
    (`Costs.rent_extrapolated`), a software stack its speed is not measured on (ROCm); lower is
    sturdier."""
    gpu = catalog.get_gpu(p.gpu)
    return gpu.consumer, OFFLOAD_RANK[p.estimate.layout.offload], p.costs.rent_extrapolated, gpu.vendor == "AMD"


def _sturdier_gives_way(
    req: TrainingRequest, ranked: list[Plan], best: Plan, tie: dict | None, budget: float | None
) -> tuple[Plan, dict | None, dict | None]:
    """`best`, unless it is fragile (`_fragility`) and a plan in `ranked` that leans on less of it,
    on a rent the answer does not doubt, costs at most STURDY_SHARE more or, under a budget, at
    most STURDY_BUDGET_SHARE of the budget more: then the sturdiest of those (the cheapest among
    equals), the tie (a doubted rent's said against the new lead, any other moot) and what was
    weighed. Not where the team named the GPU, owns it, buys, or asks for speed (the fastest plan
    is chosen by time)."""
    if req.gpu or req.owned or req.speed_first or req.rent_or_buy == "buy" or best.rent is None:
        return best, tie, None
    fragile = _fragility(best)
    if not any(fragile):
        return best, tie, None
    allowed = best.rent * (1 + STURDY_SHARE)
    if budget is not None:
        allowed = max(allowed, best.rent + STURDY_BUDGET_SHARE * budget)
    sturdier = [
        p
        for p in ranked
        if p.rent is not None
        and p.rent <= allowed
        and _fragility(p) < fragile
        and all(a <= b for a, b in zip(_fragility(p), fragile, strict=True))  # less on each count
        and not _doubted_rent(p)
        and pcie_at_scale(req, p) <= pcie_at_scale(req, best)
        and p.days is not None
        and not _gives_up_room(req, best, p)
    ]
    if not sturdier:
        return best, tie, None
    lead = min(sturdier, key=lambda p: (_fragility(p), p.rent, p.days))
    if tie and tie.get("kind") == "doubted_rent":
        # the doubted plan is still the cheaper on paper: said against the plan that leads now
        tie = tie | {"gpu": lead.gpu, "more": (1 + tie["more"]) * lead.rent / best.rent - 1}
    else:
        tie = None  # it weighed the plan that gave way
    return (
        lead,
        tie,
        {
            "gpu": lead.gpu,
            "count": lead.estimate.layout.gpu_count,
            "days": lead.days,
            "cost": lead.rent,
            "other": best.gpu,
            "other_count": best.estimate.layout.gpu_count,
            "other_days": best.days,
            "other_cost": best.rent,
            "more": lead.rent / best.rent - 1,
            "budget_share": (lead.rent - best.rent) / budget if budget else None,
            "consumer": fragile[0] and not _fragility(lead)[0],
            "estimated": fragile[2] and not _fragility(lead)[2],
            "rocm": fragile[3] and not _fragility(lead)[3],
            "offload": best.estimate.layout.offload,
            "lead_offload": lead.estimate.layout.offload,
            "other_mfu": best.estimate.throughput.mfu,
            "mfu": lead.estimate.throughput.mfu,
            "rule_share": STURDY_SHARE,
            "rule_budget_share": STURDY_BUDGET_SHARE,
            "cur": req.currency,
        },
    )


def _late_as_measured(req: TrainingRequest, p: Plan) -> dict | None:
    """The times an AMD plan takes at the gap end-to-end training measured on ROCm has shown beyond
    the kernels' estimate (data/software.toml `rocm_training_gap`), where even the low end misses
    the deadline; else None."""
    if not req.deadline_days or p.days is None or catalog.get_gpu(p.gpu).vendor != "AMD":
        return None
    gap = catalog.software("rocm_training_gap")
    if p.days * gap["low"] <= req.deadline_days:
        return None
    return {"low": gap["low"], "high": gap["high"], "days_low": p.days * gap["low"], "days_high": p.days * gap["high"]}


def _spend(req: TrainingRequest, p: Plan) -> float | None:
    """What the ranking weighs a plan by: the rent, or for a buyer owning it (_sort_key)."""
    return p.costs.ownership_cost if req.rent_or_buy == "buy" else p.rent


def _gives_up_room(req: TrainingRequest, best: Plan, other: Plan) -> bool:
    """Whether `other` needs over 1 - DEADLINE_SLACK of the time to the deadline where `best` does
    not (a sturdier plan had taken 21 of 21 days from one taking 18 when the budget rose)."""
    edge = (1 - DEADLINE_SLACK) * req.deadline_days if req.deadline_days else None
    return edge is not None and best.days is not None and best.days <= edge < other.days


def _roomy_gives_way(req: TrainingRequest, ranked: list[Plan], best: Plan) -> tuple[Plan, dict | None]:
    """`best`, unless it needs over 1 - DEADLINE_SLACK of the time to the deadline and more of the
    same GPU leave that much free for at most ROOMY_SHARE more: then that plan. Either way, what
    was weighed (None when `best` has room, or the team fixed the hardware or wants speed first)."""
    deadline = req.deadline_days
    if not deadline or best.days is None or best.days <= (1 - DEADLINE_SLACK) * deadline:
        return best, None
    if req.speed_first or req.gpu_count or req.owned:
        return best, None
    roomy = [
        p
        for p in ranked
        if p.days is not None
        and p.days <= (1 - DEADLINE_SLACK) * deadline
        and _spend(req, p) is not None
        and (not _doubted_rent(p) or _doubted_rent(best))  # not onto a rent the answer doubts
        and pcie_at_scale(req, p) <= pcie_at_scale(req, best)
    ]
    tight = {"days": best.days, "deadline": deadline, "cur": req.currency}
    if not roomy:
        return best, tight
    best_cost = _spend(req, best)

    def more(p: Plan) -> float | None:
        return _spend(req, p) / best_cost - 1 if best_cost else None

    # only more of the same GPU leads in its place (the vendor, the stack and the fabric stay);
    # another part with room is named
    same = [p for p in roomy if p.gpu == best.gpu]
    lead = same[0] if same else roomy[0]
    cost = _spend(req, lead)
    tight.update(gpu=lead.gpu, count=lead.estimate.layout.gpu_count, other_days=lead.days, cost=cost, more=more(lead))
    if same and tight["more"] is not None and tight["more"] <= ROOMY_SHARE:
        tight.update(led=True, other_gpu=best.gpu, other_count=best.estimate.layout.gpu_count)
        return lead, tight
    return best, tight


def _one_server_first(req: TrainingRequest, best: Plan, single: Plan, horizon: float) -> bool:
    """The one-server plan leads the alternatives when the headline needs more than one server and
    the one server costs a third of it or less within 1.5 times the deadline (issue 21)."""
    if best.estimate.layout.nodes <= 1 or single.rent is None or best.rent is None or single.days is None:
        return False
    return single.rent <= ONE_SERVER_COST_SHARE * best.rent and single.days <= ONE_SERVER_DEADLINE_SLACK * horizon


def _single_server(
    req: TrainingRequest,
    known: _Estimates,
    book: PriceBook,
    horizon: float,
    budget: float | None,
    plans: list[Plan],
) -> Plan | None:
    """The best plan on one server: among the one-server plans found and one full server of each
    GPU type, the cheapest that finishes within 1.5 times the deadline (when speed comes first, the
    one `asap` leads with among them, `_fast_enough_first`: it had been shown 2 of a server's 8
    GPUs, 5 days against 1.3), else the fastest."""
    pool = [p for p in plans if p.estimate.layout.nodes == 1 and p.estimate.fits]
    seen = {(p.gpu, p.estimate.layout.gpu_count) for p in pool}
    for gpu in candidate_gpus(req):
        count = gpu.gpus_per_server
        if (gpu.name, count) in seen or (req.gpu_count and req.gpu_count <= count) or count not in _counts(req, gpu):
            continue
        if known.fits(gpu, count):
            pool.append(make_plan(req, known.m, gpu, known.at(gpu, count), book, horizon, budget))
    pool = [p for p in pool if p.estimate.fits and p.days is not None]
    if not pool:
        return None
    in_time = _sound_first([p for p in pool if p.days <= ONE_SERVER_DEADLINE_SLACK * horizon and p.rent is not None])
    if in_time:
        return _fast_enough_first(in_time)[0] if req.speed_first else min(in_time, key=lambda p: (p.rent, p.days))
    return min(pool, key=lambda p: (p.days, p.rent if p.rent is not None else float("inf")))


def _fastest_within_budget(
    req: TrainingRequest,
    known: _Estimates,
    book: PriceBook,
    horizon: float,
    budget: float,
    tried: list[Plan],
) -> list[Plan]:
    """The fastest plan within the budget, looked for below the count each GPU type's deadline
    search reached, so that the budget fallback is not only the fastest among the few counts that
    search happened to try (the plans it did try are reused). Rent is not monotone in the count
    (terms, order sizes, whole months of a long job) but time is: each type's counts are priced
    from the largest down, and its first within the budget is its fastest. The types go fastest
    first, and a type stops at a count no faster than the best plan found so far."""
    planned = {(p.gpu, p.estimate.layout.gpu_count): p for p in tried}
    within = [p for p in tried if p.within_budget and p.priced(req) and p.days is not None and not _doubted(req, p)]
    best = min(within, key=lambda p: p.days, default=None)
    reached: dict[str, list[Plan]] = {}
    for p in tried:
        if p.days is not None:
            reached.setdefault(p.gpu, []).append(p)
    by_speed = sorted(reached.values(), key=lambda ps: min(p.days for p in ps))
    for plans in by_speed if not req.gpu_count else []:
        gpu = catalog.get_gpu(plans[0].gpu)
        low, high = min(p.estimate.layout.gpu_count for p in plans), max(p.estimate.layout.gpu_count for p in plans)
        for count in reversed([c for c in _counts(req, gpu, book) if low <= c <= high]):
            plan = planned.get((gpu.name, count))
            if plan is None:
                if not known.fits(gpu, count):
                    continue
                plan = make_plan(req, known.m, gpu, known.at(gpu, count), book, horizon, budget)
            if plan.days is None or (best is not None and plan.days >= best.days):
                break
            if plan.priced(req) and plan.within_budget:
                # a doubted rent is within no budget (its smaller counts are on the same rate)
                best = best if _doubted(req, plan) else plan
                break
    return [best] if best is not None else []


def _budget_floor(req: TrainingRequest, plans: list[Plan]) -> dict | None:
    """The least the job can cost at any length: among the plans priced (each GPU type from its
    fewest GPUs that fit, where GPU-hours are fewest), the job's GPU-hours at the cheapest rate on
    record that delivers that plan (the low end of its range), no idle hours billed. Rent scales with
    GPU-hours, not with the wait, so a budget under it fits no plan however long it runs. Plans that
    hold their states on the GPUs, where any does (one 4090 streaming a 72B's states from host memory
    for centuries is no plan to quote a floor on)."""
    rows = []
    priced = [p for p in plans if p.costs.rent_per_gpu_hour and p.estimate.gpu_hours]
    resident = [p for p in priced if p.estimate.layout.offload == "none"] or priced
    for p in _sound_first(resident):
        rate, provider = p.costs.rent_per_gpu_hour, p.costs.rent_offer["provider"]
        low = (p.costs.rent_range or {}).get("low_offer")
        if low and low["per_gpu_hour"] < rate:
            rate, provider = low["per_gpu_hour"], low["provider"]
        rows.append((p.estimate.gpu_hours * rate, p, rate, provider))
    if not rows:
        return None
    cost, p, rate, provider = min(rows, key=lambda r: r[0])
    return {
        "cost": cost,
        "gpu": p.gpu,
        "gpu_count": p.estimate.layout.gpu_count,
        "gpu_hours": p.estimate.gpu_hours,
        "rate": rate,
        "provider": provider,
        "cur": req.currency,
    }


def _largest_hourly_order(book: PriceBook, market: str) -> dict | None:
    """The most GPUs one hourly offer in `market` delivers in one order, and of which GPU."""
    offers = [p for g in catalog.gpus() for p in book.offers("rent_hour", g.name, market, rentable=True)]
    top = max(offers, key=lambda p: p.max_gpus, default=None)
    return {"gpus": top.max_gpus, "gpu": top.gpu} if top else None


def _nearest_priced(best: Plan, plans: list[Plan]) -> Plan | None:
    """When the best plan has no rent on record: the plan with a rent whose time is nearest."""
    # the same job: a LoRA alternative to a full fine-tune is no price for it
    priced = [
        p for p in plans if p.rent is not None and p.days is not None and p.estimate.fits and p.method == best.method
    ]
    if not priced or best.days is None:
        return None
    return min(priced, key=lambda p: (abs(p.days - best.days), p.rent))


def _plans_for_gpu(
    req: TrainingRequest,
    known: _Estimates,
    gpu: GPU,
    book: PriceBook,
    horizon: float,
    budget: float | None,
) -> list[Plan]:
    """The plans worth keeping for one GPU type, each faster than every smaller count's, and after
    them any slower one that costs less than all of those (`cheaper_slower`)."""
    counts = _counts(req, gpu, book)
    start = _fewest(req, known, gpu)
    tried: list[Plan] = []
    skip_below = 0.0
    jumped = False  # whether the search has jumped towards the deadline's count
    beyond: int | None = None  # counts still to try once one meets the deadline
    meeting: int | None = None  # the first count that meets it
    strained = False  # whether the last count worked out is strained (STRAINED_COUNTS_UP_TO)
    landed: int | None = None  # the first count tried after the jump
    # slower than a smaller count but cheaper than every count tried: billed another way (8 H800 by the
    # hour, where 4 offloading more than a cloud instance's host memory holds are leased by the month)
    cheaper_slower: list[Plan] = []
    for count in counts if start is not None else []:
        if count < start:
            continue
        if beyond is not None:
            if beyond == 0 and not (strained and count <= STRAINED_COUNTS_UP_TO * meeting):
                break
            beyond = max(0, beyond - 1)
        elif count < skip_below and count != counts[-1]:
            continue
        if not known.fits(gpu, count):
            continue
        est = known.at(gpu, count)
        strained = _strained(est)
        if tried and est.days and tried[-1].days and est.days >= tried[-1].days:
            # more GPUs, no faster: a better plan only where it costs less than all before it
            # (`fine-tune Llama 3.1 70B on 5,000 examples` had been a month's lease of 8 RTX 5090
            # at ¥14,516 where 8 H800 rent for ¥268 by the hour)
            if req.tokens is not None and all(p.rent is not None for p in tried + cheaper_slower):
                slower = make_plan(req, known.m, gpu, est, book, horizon, budget)
                if all(_cheaper(slower, p) for p in tried + cheaper_slower):
                    cheaper_slower.append(slower)
            continue
        plan = make_plan(req, known.m, gpu, est, book, horizon, budget)
        tried.append(plan)
        if jumped and landed is None:
            landed = count
        if req.tokens is None:
            # no data, no deadline to meet: the smallest count, and the smallest that runs
            # without offloading (an offloading plan is far slower than its memory says)
            if est.layout.offload == "none":
                break
            continue
        if not jumped and est.days:
            # Jump close to the count the deadline needs instead of trying each one; at most
            # MAX_JUMP times the count when its plan is flagged inefficient (low MFU: an MoE whose
            # expert traffic swamps a few servers), as the counts above it are faster.
            jump = 0.7 * count * est.days / horizon
            if "low_mfu" in est.checks:
                jump = min(jump, MAX_JUMP * count)
            resident = None
            if est.layout.offload != "none" and not known.setup.pinned.offload:
                above = [c for c in counts if c > count]
                resident = _smallest_fitting(above, gpu.gpus_per_server, lambda c: known.fits_resident(gpu, c))
            if resident is not None:
                # an offloading plan's speed says little of the counts that hold their states on
                # the GPUs: never past the smallest of those, which jumps again from its own plan;
                # nor when to stop (an offloading count that meets the deadline is kept, and may
                # be the cheapest)
                skip_below = min(jump, resident)
                continue
            jumped = True
            skip_below = jump
        if plan.meets_deadline and beyond is None:
            meeting = count
            # A larger count may rent for less: it needs fewer GPU-hours once memory is freed for
            # less recompute or a larger micro-batch, or it is billed at a cheaper offer (whole
            # servers, an order-size tier); the next counts of the grid are priced too.
            beyond = COUNTS_BEYOND_DEADLINE
            if req.speed_first and not req.deadline_days:
                beyond = COUNTS_BEYOND_FOR_SPEED
    if landed is not None and landed == meeting:
        tried = _below_the_jump(req, known, gpu, book, horizon, budget, tried, counts, landed)
    tried += _fewer_billed_units(req, known, gpu, book, horizon, budget, tried, counts)
    # Part of a server: offers that bill whole servers charge for all of it, so the whole server
    # may rent for the same or less and finish sooner (`qwen2.5-32b full-finetune on H20` had
    # been 4 H20 on a month's lease, where 8 take a day on an hourly offer).
    whole = gpu.gpus_per_server
    part = tried and req.tokens is not None and tried[-1].estimate.layout.gpu_count < whole
    if part and whole in counts and known.fits(gpu, whole):
        est = known.at(gpu, whole)
        if est.days and tried[-1].days and est.days < tried[-1].days:
            tried.append(make_plan(req, known.m, gpu, est, book, horizon, budget))
    return tried + cheaper_slower


def _below_the_jump(
    req: TrainingRequest,
    known: _Estimates,
    gpu: GPU,
    book: PriceBook,
    horizon: float,
    budget: float | None,
    tried: list[Plan],
    counts: list[int],
    landed: int,
) -> list[Plan]:
    """`tried` with the grid counts just below where the jump landed (COUNTS_BELOW_JUMP), largest
    first, down to the first that misses the deadline, in count order."""
    seen = {p.estimate.layout.gpu_count for p in tried}
    below = [c for c in counts if c < landed and c not in seen and c > min(seen)][::-1][:COUNTS_BELOW_JUMP]
    added = []
    for count in below:
        if not known.fits(gpu, count):
            continue
        plan = make_plan(req, known.m, gpu, known.at(gpu, count), book, horizon, budget)
        if not plan.meets_deadline:
            break
        added.append(plan)
    return sorted(tried + added, key=lambda p: p.estimate.layout.gpu_count)


def _fewer_billed_units(
    req: TrainingRequest,
    known: _Estimates,
    gpu: GPU,
    book: PriceBook,
    horizon: float,
    budget: float | None,
    tried: list[Plan],
    counts: list[int],
) -> list[Plan]:
    """Beside the cheapest plan that meets the deadline, billed by whole units (`_months_billed`:
    months of a lease; `_blocks_billed`: days or weeks of an hourly offer), the counts that bill
    fewer of them (`_into_fewer_units`). 16 H100 billed two days for 1.8 had stood where 32 take
    one for less (US-buyer probe: "cheaper?" said the plan was the cheapest)."""
    out: list[Plan] = []
    for units_of in (_months_billed, _blocks_billed):
        base = _cheapest_meeting(req, tried + out)
        unit = units_of(base) if base is not None else None
        if unit is not None:
            out += _into_fewer_units(req, known, gpu, book, horizon, budget, tried + out, counts, base, *unit)
    return out


Billing = tuple[int, float, Callable[[Plan], int | None]]  # units paid, days a unit, units a plan pays


def _months_billed(base: Plan) -> Billing | None:
    """The months a monthly lease bills, where fewer could do: not one month, nor a minimum term
    that bills idle months whatever the count."""
    term = base.costs.rent_term
    if base.costs.rent_option != "monthly" or not term or term["months_paid"] < 2:
        return None
    if term["job_months"] < term["months_paid"]:
        return None
    return (
        term["months_paid"],
        DAYS_PER_MONTH,
        lambda plan: plan.costs.rent_term and plan.costs.rent_term["months_paid"],
    )


def _blocks_billed(base: Plan) -> Billing | None:
    """The days or weeks an hourly offer billing whole ones (a capacity block) bills."""
    step = BILLING_HOURS.get((base.costs.rent_offer or {}).get("billing") or "", 1)
    if base.costs.rent_option != "hourly" or step < 24:
        return None

    def billed(plan: Plan) -> int | None:
        return math.ceil(plan.days * 24 / step - 1e-9) if plan.days else None

    return billed(base), step / 24, billed


def _into_fewer_units(
    req: TrainingRequest,
    known: _Estimates,
    gpu: GPU,
    book: PriceBook,
    horizon: float,
    budget: float | None,
    tried: list[Plan],
    counts: list[int],
    base: Plan,
    units: int,
    unit_days: float,
    billed: Callable[[Plan], int | None],
) -> list[Plan]:
    """For each of the next FEWER_MONTHS_TRIED fewer billing units than `base` pays (`units` of
    `unit_days` each), the smallest count of the grid that finishes within them (the time scaling
    as one over the count, then the grid's next counts while the last still bills more: `billed`),
    where it is faster than every count tried."""
    out: list[Plan] = []
    have = {p.estimate.layout.gpu_count for p in tried}
    count = base.estimate.layout.gpu_count
    for fewer in range(units - 1, max(0, units - 1 - FEWER_MONTHS_TRIED), -1):
        need = count * base.days / (fewer * unit_days)
        for target in [c for c in counts if c >= need][:FEWER_MONTHS_GRID_STEPS]:
            if target in have or not known.fits(gpu, target):
                continue
            est = known.at(gpu, target)
            if not est.days or est.days >= min(p.days for p in tried + out if p.days):
                continue
            have.add(target)
            plan = make_plan(req, known.m, gpu, est, book, horizon, budget)
            out.append(plan)
            paid = billed(plan)
            if not paid or paid <= fewer:
                break
    return out


def _cheapest_meeting(req: TrainingRequest, tried: list[Plan]) -> Plan | None:
    """The cheapest priced plan tried that meets the deadline, where the count is the search's
    to choose (none where the team fixed it)."""
    meeting = [p for p in tried if p.meets_deadline and p.days and p.rent is not None]
    return None if req.gpu_count or not meeting else min(meeting, key=lambda p: p.rent)


def _strained(est: Estimate) -> bool:
    """A count whose layout gives up speed for memory or leaves its communication exposed."""
    lay = est.layout
    return lay.offload != "none" or lay.recompute == "full" or est.throughput.exposed_comm_share > HIGH_EXPOSED_COMM


def _counts(req: TrainingRequest, gpu: GPU, book: PriceBook | None = None) -> list[int]:
    """The counts a plan may take: the one given, or the grid within one server (`one server
    only`) and the team's bounds (`up to 64 GPUs`, `至少16张卡`), and with `book` the most whole
    servers each cluster offer of `gpu` delivers in one order: a count one server past an order's
    limit can only be estimated server by server (1,024 H100 had been planned on an offer whose
    orders stop at 1,016, which the grid never tried)."""
    if req.gpu_count:
        return [req.gpu_count]
    most = min(gpu.gpus_per_server if req.one_server else MAX_GPUS, req.max_gpus or MAX_GPUS)
    counts = set(candidate_counts(gpu, most))
    if book is not None and not req.one_server:
        per = gpu.gpus_per_server
        kinds = ("rent_hour",) if req.hourly_only else ("rent_hour", "rent_month")
        for kind in kinds:
            for o in book.offers(kind, gpu.name, req.market, rentable=True):
                cap = o.max_gpus // per * per
                if cap > per and o.why_not(cap, cap // per) is None:
                    counts.add(min(cap, most))
    return sorted(c for c in counts if (req.min_gpus or 1) <= c <= most)


def _fewest(req: TrainingRequest, known: _Estimates, gpu: GPU) -> int | None:
    """The smallest count of `gpu` that fits the job (`_plans_for_gpu` starts there)."""
    return _smallest_fitting(_counts(req, gpu), gpu.gpus_per_server, lambda count: known.fits(gpu, count))


def _smallest_fitting(counts: list[int], per_server: int, fits) -> int | None:
    """The smallest count that fits: 1, 2, 4 and powers of two of whole servers first, then
    the counts of the grid between the last that did not fit and the first that did. (Not a
    binary search: past some count the batch no longer has a sequence for every rank, and
    nothing fits again.)"""
    coarse = [c for c in counts if c <= per_server or (c // per_server) & (c // per_server - 1) == 0]
    below = 0
    for count in coarse if len(counts) > 1 else counts:
        if fits(count):
            return next(c for c in counts if below < c <= count and fits(c))
        below = count
    return None


def _cheaper(a: Plan, b: Plan) -> bool:
    return a.rent is not None and (b.rent is None or a.rent < b.rent)


def _peft_alternative(req: TrainingRequest, m: ModelShape, book: PriceBook, best: Plan) -> Plan | None:
    """The same job as LoRA: far less memory, often fewer GPUs. On the GPU type asked for, else on
    the best plan's (the same hardware, the method changed), and where LoRA there is unpriced or
    leaves a lease mostly idle (costs.IDLE_LEASE_SHARE), the cheapest LoRA plan on any type: a full
    fine-tune that offloads to host memory may rent only by the month where LoRA rents by the hour
    (`fine-tune gpt-oss-120b on 50k samples` had offered LoRA on its 8 A100, ¥25,000 for a month's
    lease, where 8 H800 by the hour run it for ¥10). Every type is searched only then: that search
    is a third or more of a full fine-tune's first answer (bench/speed.py), and on the best plan's
    type it found the same plan, or one within 15% of its rent, on most requests tried
    (docs/accuracy.md)."""
    lora = req.model_copy(
        update={"method": "lora", "lora_rank": 16, "lora_targets": "all", "gpu": req.gpu or best.gpu, "gpu_count": None}
    )
    found = search(lora, m, book, alternatives=False).best
    idle = found is not None and (found.costs.rent_term or {}).get("mostly_idle")
    if not req.gpu and (found is None or found.rent is None or idle):
        found = search(lora.model_copy(update={"gpu": None}), m, book, alternatives=False).best
    if found is None or not found.costs.known:
        return None
    return found.model_copy(update={"label": "lora"})


# A longer deadline is a fix only while it is a plan a team could run: a year at most (assumed;
# "allow 3,261 days" on eight 4090s had been offered as one).
LONGER_DEADLINE_MAX_DAYS = 365


def _other_type(req: TrainingRequest, m: ModelShape, book: PriceBook) -> Plan | None:
    """The same job with the GPU type left to the planner: among every type, or where the team asked
    for domestic cards (`只要国产卡`, assumption `domestic_gpu`) among those of the same maker, the
    constraint kept (a foreign H800 had been suggested "for 3% of the rent" to a team that ruled it out)."""
    if not any(n.code == "domestic_gpu" for n in req.assumptions):
        return search(req.model_copy(update={"gpu": None, "gpu_count": None}), m, book, alternatives=False).best
    vendor = catalog.get_gpu(req.gpu).vendor
    plans = [
        search(req.model_copy(update={"gpu": g.name, "gpu_count": None}), m, book, alternatives=False).best
        for g in catalog.gpus()
        if g.vendor == vendor and g.name != req.gpu and req.market in g.markets
    ]
    sound = [p for p in plans if p is not None and p.estimate.fits and p.meets_deadline and p.rent is not None]
    return min(sound, key=lambda p: p.rent, default=None)


def suggest(req: TrainingRequest, m: ModelShape, book: PriceBook, result: PlanResult) -> list[Suggestion]:
    """When nothing fits or the deadline cannot be met, the cheapest changes that would work."""
    out: list[Suggestion] = []
    best = result.best

    # Without a deadline the 30-day horizon is the planner's, not the team's: a plan past it is
    # slow, not late, so no fix is offered for the time alone (a count fixed with no deadline had
    # been told to "allow about 119 days" or rent 40 GPUs), unless it takes over a year.
    def late_plan(p: Plan) -> bool:
        if p.meets_deadline:
            return False
        return bool(req.deadline_days) or (p.days or 0) > LONGER_DEADLINE_MAX_DAYS

    late = best is not None and late_plan(best)
    if best is not None and best.estimate.fits and late and best.days and best.days <= LONGER_DEADLINE_MAX_DAYS:
        out.append(Suggestion(change="longer_deadline", value=round(best.days + 0.5), plan=best))
    wider = None
    cap = req.gpu_count or req.max_gpus
    if cap and best is not None and (not best.estimate.fits or late):
        # Hardware given, or a most GPUs (`up to 64 GPUs`): the count past it that fits and meets
        # the deadline, on the same GPU type where one is given.
        wider = search(req.model_copy(update={"gpu_count": None, "max_gpus": None}), m, book, alternatives=False).best
        if wider is not None and wider.estimate.fits and wider.meets_deadline and wider.estimate.layout.gpu_count > cap:
            out.insert(0, Suggestion(change="more_gpus", value=wider.estimate.layout.gpu_count, plan=wider))
    if best is None or not best.estimate.fits:
        # Offload is already tried by the layout search when nothing else fits.
        variants = []
        knobs = [
            k
            for k in (
                "micro_batch",
                "grad_accum",
                "recompute",
                "recompute_modules",
                "recompute_layers",
                "grad_reduce",
                "zero_stage",
                "offload",
                "tp",
                "pp",
                "ep",
                "vpp",
            )
            if req.given(k)
        ]
        if knobs:
            variants.append(
                (
                    "auto_layout",
                    ", ".join(knobs),
                    {
                        "micro_batch": None,
                        "grad_accum": None,
                        "recompute": None,
                        "recompute_modules": None,
                        "recompute_layers": None,
                        "grad_reduce": None,
                        "zero_stage": None,
                        "offload": "none",
                        "tp": None,
                        "pp": None,
                        "ep": None,
                        "vpp": None,
                        "user_set": [k for k in req.user_set if k not in knobs],
                    },
                )
            )
        if req.micro_batch and req.micro_batch > 1:
            variants.append(("smaller_batch", 1, {"micro_batch": 1}))
        if req.recompute in ("none", "selective") or req.recompute_layers:
            # full recompute reruns every module: the modules named for the selective one go
            unset = [k for k in req.user_set if k not in ("recompute_modules", "recompute_layers")]
            every = {"recompute": "full", "recompute_modules": None, "recompute_layers": None, "user_set": unset}
            variants.append(("recompute", "full", every))
        if req.method != "qlora":
            # QLoRA runs over data parallel only: tensor and pipeline degrees the user fixed go.
            variants.append(
                (
                    "qlora",
                    "qlora",
                    {
                        "method": "qlora",
                        "lora_rank": req.lora_rank or 16,
                        "lora_targets": req.lora_targets or "all",
                        "tp": None,
                        "pp": None,
                        "vpp": None,
                        "user_set": [k for k in req.user_set if k not in ("tp", "pp", "vpp")],
                    },
                )
            )
        if req.seq_len > 512:
            variants.append(("shorter_seq", req.seq_len // 2, {"seq_len": req.seq_len // 2}))
        for change, value, update in variants:
            # On the count the team gave first (QLoRA on its one card, not on four); where the
            # change alone is not enough there, the planner chooses the count too.
            found = None
            if req.gpu_count:
                found = search(req.model_copy(update=update), m, book, alternatives=False).best
            if found is None or not found.estimate.fits:
                found = search(req.model_copy(update=update | {"gpu_count": None}), m, book, alternatives=False).best
            if found is not None and found.estimate.fits:
                out.append(Suggestion(change=change, value=value, plan=found))

    def works(p):
        return p is not None and p.estimate.fits and not late_plan(p)

    same_job = ("more_gpus", "auto_layout", "smaller_batch", "recompute")
    if (
        req.gpu
        and not req.gpu_count
        and req.deadline_days
        and best is not None
        and best.estimate.fits
        and late_plan(best)
    ):
        # The GPU type alone given and its plan late: a larger count of it that meets the deadline
        # where the search ranked it below the late one (16 x RTX 4090 on two servers' year-long
        # leases against 8 by the hour), so "hopeless on RTX 4090" is never said of a type that works
        for count in (2 * best.estimate.layout.gpu_count, 4 * best.estimate.layout.gpu_count):
            more = search(req.model_copy(update={"gpu_count": count}), m, book, alternatives=False).best
            if works(more):
                out.insert(0, Suggestion(change="more_gpus", value=count, plan=more))
                break
    if (
        req.gpu
        and not works(best)
        and not (req.gpu_count and works(wider))
        and not any(sg.change in same_job and works(sg.plan) for sg in out)
    ):
        # Hopeless on this GPU type at any count and layout (a 70B full fine-tune on consumer
        # cards does not fit, or takes years): the same job as an open request names the GPU
        # type that would work.
        found = _other_type(req, m, book)
        if works(found) and found.gpu != req.gpu:
            out.insert(0, Suggestion(change="gpu_type", value=req.gpu, plan=found))
    elif req.gpu and best is not None and best.rent and not req.owned:  # own GPUs: no rent to save
        # The GPU type the user fixed misses the deadline, or costs over twice what the same job
        # costs on the best GPU type for it: say so, with that plan and its share of the rent.
        found = _other_type(req, m, book)
        if (
            works(found)
            and found.gpu != req.gpu
            and found.rent
            and (not works(best) or found.rent * OTHER_GPU_RENT_RATIO <= best.rent)
        ):
            # a plan that does not fit has no rent to compare with: the other type runs the job
            share = round(found.rent / best.rent, 4) if best.estimate.fits else None
            out.insert(min(1, len(out)), Suggestion(change="other_gpu", value=share, plan=found))
    if req.gpu_count and works(best) and best.rent and not req.owned:
        # The count the team fixed rents for over twice what the same GPU type costs at the count
        # the planner would choose (32 H800 leased a month for an 18-minute job, where 8 rent by
        # the hour; "单卡能跑吗", one card whose offloaded weights no cloud instance has the RAM
        # for): say so, with that plan and its share of the rent.
        found = search(req.model_copy(update={"gpu_count": None, "gpu": best.gpu}), m, book, alternatives=False).best
        if (
            works(found)
            and found.estimate.layout.gpu_count != req.gpu_count
            and found.rent
            and found.rent * OTHER_GPU_RENT_RATIO <= best.rent
        ):
            out.append(Suggestion(change="other_count", value=round(found.rent / best.rent, 4), plan=found))
    return out[:3]


def _alternatives(best: Plan | None, plans: list[Plan], req: TrainingRequest, key) -> list[Plan]:
    """Up to five plans that differ in ways a user weighs: cheaper but slower (faster but dearer
    where speed was asked for), other GPU types and generations, consumer cards, fewer nodes (LoRA
    is added by the caller)."""
    if best is None:
        return []
    out: list[Plan] = []
    seen = {(best.gpu, best.estimate.layout.gpu_count)}
    best_gpu = catalog.get_gpu(best.gpu)

    def add(p: Plan | None, label: str):
        if p and (p.gpu, p.estimate.layout.gpu_count) not in seen and len(out) < 5:
            seen.add((p.gpu, p.estimate.layout.gpu_count))
            out.append(p.model_copy(update={"label": label}))

    # Alternatives that take more than twice the time available, or cost over ten times the
    # headline, are not worth showing.
    limit = 2 * max(best.days or 0, req.deadline_days or DEFAULT_HORIZON_DAYS)
    cap = ALTERNATIVE_COST_RATIO * best.rent if best.rent else float("inf")
    # Without data there is no time to weigh a plan that streams every state from host memory by:
    # one RTX 4090 "holding" a 70B full fine-tune with its 1.1 TB of states offloaded is no option
    # beside one that keeps them on the GPUs
    streamed = best.days is None and best.estimate.layout.offload != "all"
    priced = sorted(
        [
            p
            for p in plans
            if p.costs.known
            and (p.days is None or p.days <= limit)
            and (p.rent or 0) <= cap
            and not (streamed and p.estimate.layout.offload == "all")
            # an AMD plan that meets the deadline only on paper (`_late_as_measured`) is no option
            # beside those that do: warning tie_rocm_late names the cheapest of them (the card's best
            # alternative had been 32 MI300X "in 59 days" of a 60-day deadline, 79-94 as measured)
            and not (p.meets_deadline and _late_as_measured(req, p) and p is not best)
        ],
        key=key,
    )
    slower = [p for p in priced if p.gpu == best.gpu and p.estimate.layout.gpu_count < best.estimate.layout.gpu_count]
    # fewer GPUs rent for more where billing rounds up to whole days or a larger order gets a
    # cheaper offer: then such a plan is not "cheaper", only on fewer servers
    # (a buyer's by the purchase: 4 H200 at the price of the 8-GPU server both are bought in had been
    # "cheaper, slower")
    cost = best.spend(req)
    cheaper = [p for p in slower if cost is None or (p.spend(req) is not None and p.spend(req) < cost)]
    add(cheaper[0] if cheaper else None, "cheaper_slower")
    if req.speed_first:
        # asked `asap` and led by a plan that finishes later for a fraction of the rent
        # (`_fast_enough_first`): the cheapest as fast as the fastest, whatever it costs, so the
        # team can still pay for speed
        sooner = [
            p
            for p in plans
            if p.costs.known and p.rent and p.days and best.days and p.days < best.days and not _doubted(req, p)
        ]
        fastest = min(sooner, key=lambda p: p.days) if sooner else None
        if fastest is not None and not _as_fast(best, fastest):
            add(min((p for p in sooner if _as_fast(p, fastest)), key=lambda p: p.rent), "faster_dearer")
    if best.estimate.layout.offload != "none":
        # a plan that fits only by streaming states from host memory runs at a fraction of the
        # GPUs' speed: the count that holds them on the GPUs is what a buyer weighs it against
        # (kimi-k2 LoRA on 16 A100 offloading everything at 6% MFU, or 32 holding it at 22%)
        held = [p for p in priced if p.estimate.layout.offload == "none" and not _doubted(req, p)]
        add(next((p for p in held if p.gpu == best.gpu), None) or next(iter(held), None), "on_gpus")
    others = [p for p in priced if p.gpu != best.gpu and p.meets_deadline]
    add(next((p for p in others if catalog.get_gpu(p.gpu).architecture == best_gpu.architecture), None), "other_gpu")
    add(
        next((p for p in others if catalog.get_gpu(p.gpu).architecture != best_gpu.architecture), None),
        "other_generation",
    )
    add(next((p for p in priced if catalog.get_gpu(p.gpu).consumer), None), "consumer")
    add(next((p for p in priced if p.estimate.layout.nodes < best.estimate.layout.nodes), None), "fewer_nodes")
    for p in others:
        same = catalog.get_gpu(p.gpu).architecture == best_gpu.architecture
        add(p, "other_gpu" if same else "other_generation")
    return out
