"""From model, data, deadline and budget to ranked server plans.

For every GPU the user's market can get, counts grow from the smallest that fits (1, 2, 4,
one server, then doubling servers) until the deadline is met; each count gets its best
layout (advisor/estimate.py), its infrastructure and its costs. Plans that fit and meet the
deadline (and the budget, when one is set) are ranked by total rent, or by time when the
user asks for speed.
"""

from __future__ import annotations

from pydantic import BaseModel

from advisor import catalog
from advisor.catalog import GPU, ModelShape
from advisor.costs import Costs, plan_costs
from advisor.estimate import Estimate, best_layout, candidate_counts
from advisor.infra import Infrastructure, plan_infrastructure
from advisor.prices import PriceBook
from advisor.request import TrainingRequest

# Without a deadline the planner still needs a horizon: the cheapest plan that finishes
# within 30 days (stated in the answer's assumptions).
DEFAULT_HORIZON_DAYS = 30
MAX_GPUS = 4096


class Plan(BaseModel):
    gpu: str
    estimate: Estimate
    infra: Infrastructure
    costs: Costs
    meets_deadline: bool
    within_budget: bool

    @property
    def rent(self) -> float | None:
        return self.costs.rent_total

    @property
    def days(self) -> float | None:
        return self.estimate.days


class PlanResult(BaseModel):
    best: Plan | None
    alternatives: list[Plan]
    considered: int
    horizon_days: float
    conflict: str | None  # "budget" when deadline and budget cannot both hold
    nearest_deadline: Plan | None = None
    nearest_budget: Plan | None = None


def _budget(req: TrainingRequest, book: PriceBook) -> float | None:
    if not req.budget:
        return None
    return book.convert(req.budget.amount, req.budget.currency, req.currency)


def make_plan(req: TrainingRequest, m: ModelShape, gpu: GPU, est: Estimate, book: PriceBook,
              horizon: float, budget: float | None) -> Plan:
    costs = plan_costs(req, gpu, est, book)
    meets = est.days is None or est.days <= horizon
    within = budget is None or (costs.rent_total is not None and costs.rent_total <= budget)
    return Plan(gpu=gpu.name, estimate=est, infra=plan_infrastructure(req, gpu, est), costs=costs,
                meets_deadline=meets, within_budget=within)


def candidate_gpus(req: TrainingRequest) -> list[GPU]:
    if req.gpu:
        return [catalog.get_gpu(req.gpu)]
    return [g for g in catalog.gpus() if req.market in g.markets]


def _sort_key(req: TrainingRequest):
    def key(p: Plan):
        rent = p.rent if p.rent is not None else float("inf")
        days = p.days if p.days is not None else float("inf")
        return (days, rent) if req.speed_first else (rent, days)
    return key


def search(req: TrainingRequest, m: ModelShape, book: PriceBook) -> PlanResult:
    horizon = req.deadline_days or DEFAULT_HORIZON_DAYS
    budget = _budget(req, book)
    plans: list[Plan] = []
    considered = 0
    for gpu in candidate_gpus(req):
        counts = [req.gpu_count] if req.gpu_count else [c for c in candidate_counts(gpu) if c <= MAX_GPUS]
        smallest_fit: Plan | None = None
        skip_below = 0
        for count in counts:
            if count < skip_below:
                continue
            est = best_layout(m, req, gpu, count)
            considered += 1
            if not est.fits:
                continue
            plan = make_plan(req, m, gpu, est, book, horizon, budget)
            if smallest_fit is None:
                smallest_fit = plan
                plans.append(plan)
                if est.days:
                    # Jump close to the count the deadline needs instead of trying each one.
                    skip_below = 0.7 * count * est.days / horizon
            if plan.meets_deadline:
                if plan is not smallest_fit:
                    plans.append(plan)
                break
    feasible = [p for p in plans if p.meets_deadline and p.within_budget and p.costs.known]
    key = _sort_key(req)
    conflict = None
    nearest_deadline = nearest_budget = None
    if feasible:
        feasible.sort(key=key)
        best = feasible[0]
    else:
        on_time = sorted([p for p in plans if p.meets_deadline], key=key)
        in_budget = sorted([p for p in plans if p.within_budget and p.costs.known],
                           key=lambda p: p.days if p.days is not None else float("inf"))
        if budget is not None and on_time and in_budget:
            conflict = "budget"
            nearest_deadline, nearest_budget = on_time[0], in_budget[0]
        best = on_time[0] if on_time else (min(plans, key=lambda p: p.days or float("inf")) if plans else None)
    alternatives = _alternatives(best, plans, req, key)
    return PlanResult(best=best, alternatives=alternatives, considered=considered, horizon_days=horizon,
                      conflict=conflict, nearest_deadline=nearest_deadline, nearest_budget=nearest_budget)


def _alternatives(best: Plan | None, plans: list[Plan], req: TrainingRequest, key) -> list[Plan]:
    """Up to five plans that differ in ways a user weighs: cheaper but slower, other GPU
    types and generations, consumer cards, fewer nodes."""
    if best is None:
        return []
    out: list[Plan] = []
    seen = {(best.gpu, best.estimate.layout.gpu_count)}

    def add(p: Plan | None):
        if p and (p.gpu, p.estimate.layout.gpu_count) not in seen and len(out) < 5:
            seen.add((p.gpu, p.estimate.layout.gpu_count))
            out.append(p)

    # Alternatives that take more than twice the time available are not worth showing.
    limit = 2 * max(best.days or 0, req.deadline_days or DEFAULT_HORIZON_DAYS)
    priced = sorted([p for p in plans if p.costs.known and (p.days is None or p.days <= limit)], key=key)
    slower = [p for p in priced if p.gpu == best.gpu and p.estimate.layout.gpu_count < best.estimate.layout.gpu_count]
    add(slower[0] if slower else None)
    others = [p for p in priced if p.gpu != best.gpu and p.meets_deadline]
    for p in others[:2]:
        add(p)
    add(next((p for p in priced if catalog.get_gpu(p.gpu).consumer), None))
    add(next((p for p in priced if p.estimate.layout.nodes < best.estimate.layout.nodes), None))
    for p in priced:
        add(p)
    return out
