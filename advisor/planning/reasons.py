"""Why a plan is as it is, from its own numbers, for the questions a thread asks of it:

- a layout choice ("why pipeline 8?", "why ZeRO-3?", "why micro-batch 2?", "为什么要卸载到CPU"): the same GPUs with that
  choice taken away (or set as asked), searched again by the engine, against the plan: the memory
  a GPU would need and whether it fits, the days, and what the choice costs the plan (the bubble,
  the traffic, the offload's share of the step);
- the global batch ("what batch size are you assuming?"): what it is made of and the rule that set it;
- the host RAM ("why so much RAM?"): the rule the plan sized it with and its inputs;
- the network between servers ("we only have 25G ethernet"): what the plan needs there, and the
  best plan on one server, which needs none;
- the rent's offer over a long run ("can we rent it for 90 days straight?"): how it is billed and
  sold, its age, and what is not on record;
- what runs the plan on its GPU ("昇腾上torchtitan能跑吗", "does bitsandbytes work on ROCm?").
"""

from __future__ import annotations

import re
from datetime import date

from advisor import catalog
from advisor.engine.estimate import (
    FINETUNE_BATCH_GROWTH,
    FINETUNE_BATCH_TOKENS,
    MIN_OPTIMIZER_STEPS,
    PRETRAIN_BATCH_TOKENS,
    PRETRAIN_TOKENS_PER_GPU,
    Estimate,
    best_layout,
    default_batch_sequences,
    global_batch,
    target_batch_tokens,
)
from advisor.engine.layout import MICROBATCHES_PER_STAGE
from advisor.planning.advice import Advice, shown_framework
from advisor.planning.engine_inputs import model_shape, request_gpu, training_setup
from advisor.planning.infra import OFFLOAD_PINNED_MARGIN
from advisor.request.parser import network_said

# The layout knob a question names, first match wins ("why ZeRO-3 and not pipeline?" is ZeRO).
KNOBS = (
    ("offload", r"offload|卸载|cpu\s*内存里"),
    ("zero", r"\bzero\b|zero[- ]?\d|\bfsdp|\bhsdp|分片"),
    ("pp", r"pipeline|(?<![a-z])pp(?![a-z])|流水"),
    ("tp", r"tensor|(?<![a-z])tp(?![a-z])|张量"),
    ("ep", r"expert[- ]parallel|(?<![a-z])ep(?![a-z])|专家并行"),
    ("recompute", r"recompute|activation checkpoint|gradient checkpoint|重计算|激活检查点|梯度检查点"),
    ("micro_batch", r"micro[- _]?batch|(?<![a-z])mbs(?![a-z])|微批"),
)
# The degree or stage written after the knob's word ("pp 8", "ZeRO-3", "流水线并行是8")
_DEGREE = re.compile(r"[^\d]{0,12}?(\d+)")
_STAGE = re.compile(r"[\s\-_]*(?:stage\s*)?([0-3])(?!\d)", re.I)


def knob_asked(message: str) -> tuple[str, int | None] | None:
    """The layout knob a message asks about and the value it names, if any."""
    for knob, words in KNOBS:
        found = re.search(words, message or "", re.I)
        if found:
            # a ZeRO stage is the digit on the word ("ZeRO-3", "zero 2"), never a count after it
            # ("why fsdp over 16 gpus" had read as ZeRO-16)
            degree = _STAGE if knob == "zero" else _DEGREE
            value = degree.match(message, found.end()) if knob in ("pp", "tp", "ep", "zero", "micro_batch") else None
            digits = re.search(r"\d+", found[0])
            number = int(digits[0]) if digits else int(value[1]) if value else None
            return knob, number
    return None


def _searched(result: Advice, **pins) -> Estimate | None:
    """The plan's GPUs and count searched again with these knobs pinned, the rest chosen as the
    planner chooses them; None when no framework runs that combination."""
    p, req = result.plan, result.request
    setup = training_setup(req)
    setup = setup.model_copy(update={"pinned": setup.pinned.model_copy(update=pins)})
    try:
        return best_layout(model_shape(req), setup, request_gpu(req, p.gpu), p.estimate.layout.gpu_count)
    except ValueError:
        return None


def _alternative(knob: str, plan_value, asked: int | None) -> dict | None:
    """The pins of the layout compared with the plan's: the value asked where the plan has another,
    else the knob taken away (no pipeline, no tensor or expert split, one ZeRO stage less, no
    offload, no recompute); None when the plan does not use the knob and none was asked."""
    if knob == "zero":
        if asked is not None and asked != plan_value and 0 <= asked <= 3:
            return {"zero_stage": asked}
        return {"zero_stage": plan_value - 1} if plan_value > 0 else None
    if knob in ("pp", "tp", "ep"):
        if asked is not None and asked != plan_value and asked >= 1:
            return {knob: asked}
        return {knob: 1} if plan_value > 1 else None
    if knob == "offload":
        return {"offload": "none"} if plan_value != "none" else None
    if knob == "micro_batch":
        # the size asked, else half the plan's (what the larger one buys), else twice one (what a
        # larger one would need)
        if asked is not None and asked != plan_value and asked >= 1:
            return {"micro_batch": asked}
        return {"micro_batch": plan_value // 2 if plan_value > 1 else 2}
    return {"recompute": "none"} if plan_value != "none" else None


def layout_reason(result: Advice, knob: str, asked: int | None) -> dict | None:
    """What a layout choice buys the plan, as numbers for `templates/reasons.txt.j2`."""
    p = result.plan
    if p is None:
        return None
    e = p.estimate
    lay, step = e.layout, e.throughput.step
    value = {
        "pp": lay.pp,
        "tp": lay.tp,
        "ep": lay.ep,
        "zero": lay.zero_stage,
        "offload": lay.offload,
        "recompute": lay.recompute,
        "micro_batch": lay.micro_batch,
    }[knob]
    pins = _alternative(knob, value, asked)
    setup = training_setup(result.request)
    paired = setup.paired
    if knob == "micro_batch" and paired and pins["micro_batch"] < 2:
        pins = {"micro_batch": 2 * value}  # a pair's two sequences go together: never one
    other = _searched(result, **pins) if pins else None
    gpu = catalog.get_gpu(p.gpu)

    def share(seconds: float) -> float:
        return seconds / step["step_s"] if step.get("step_s") else 0.0

    # a knob the request fixed ("pp 2") is the team's choice, not the planner's
    fixed = getattr(setup.pinned, "zero_stage" if knob == "zero" else knob, None) is not None
    return {
        "knob": knob,
        "value": value,
        "fixed": fixed,
        "asked": asked,
        "asked_other": asked is not None and asked != value and knob != "offload",
        "global_batch": lay.global_batch,
        "paired": paired,
        "pins": pins or {},
        "gpu": p.gpu,
        "count": lay.gpu_count,
        "per_node": lay.gpus_per_node,
        "nodes": lay.nodes,
        "dp": lay.dp,
        "chunks": lay.virtual_stages,
        "plan_memory": e.memory.total,
        "usable": e.usable_gib,
        "plan_days": e.days,
        # what the choice costs the plan's step (advisor/engine/throughput.py's step terms)
        "bubble": share(step.get("bubble_s", 0.0)),
        "sends": share(step.get("pipeline_s", 0.0)),
        "tensor": share(step.get("tensor_s", 0.0)),
        "exposed": share(step.get("exposed_s", 0.0)),
        "offload_share": 1 - e.throughput.efficiency.get("offload", 1.0),
        "host_gib": e.memory.host_ram_gib,
        "states_gib": e.memory.weights + e.memory.gradients + e.memory.optimizer,
        "intra": f"{gpu.intra_node} {gpu.intra_node_bw_gb_s:g} GB/s",
        "other": None
        if other is None
        else {
            "memory": other.memory.total,
            "usable": other.usable_gib,
            "fits": other.fits,
            "host_short": other.host_ram_short,
            "days": other.days,
            "tp": other.layout.tp,
            "pp": other.layout.pp,
            "zero": other.layout.zero_stage,
            "offload": other.layout.offload,
        },
    }


def batch_reason(result: Advice) -> dict | None:
    """The plan's global batch, what it is made of, and the rule it was set by
    (advisor/engine/estimate.py `target_batch_tokens`), as numbers for `templates/reasons.txt.j2`."""
    p = result.plan
    if p is None:
        return None
    lay, req = p.estimate.layout, result.request
    setup = training_setup(req)
    seqs = lay.global_batch or 0
    tokens = seqs * req.seq_len
    plain = setup.model_copy(update={"batch_scale": 1.0})  # the default, before the search grew it
    default = target_batch_tokens(plain, lay.gpu_count)
    pretrain = setup.method in PRETRAIN_BATCH_TOKENS
    # the default as the layout runs it: whole micro-batches on every replica, 4 a stage under a pipeline
    rounded = global_batch(
        plain, lay.dp, lay.micro_batch, default_batch_sequences(plain, lay.dp, lay.gpu_count), lay.pp
    )
    least = lay.dp * lay.micro_batch * (MICROBATCHES_PER_STAGE * lay.pp if lay.pp > 1 else 1)
    if setup.global_batch or setup.pinned.grad_accum:
        why = "fixed"
    elif seqs <= rounded:
        why = "least" if rounded == least and least * req.seq_len > default * 1.05 else "default"
    else:
        why = "grown"  # the search grew it to hide the gradient exchange (estimate.py batch_growth_cap)
    return {
        "sequences": seqs,
        "seq_len": req.seq_len,
        "tokens": tokens,
        "micro_batch": lay.micro_batch,
        "accumulation": lay.microbatches_per_step,
        "dp": lay.dp,
        "steps": setup.tokens / tokens if setup.tokens and tokens else None,
        # one optimizer step at the plan's speed (all GPUs), before failures ("what's the step time?")
        "step_s": tokens / p.estimate.speed if tokens and p.estimate.speed else None,
        "why": why,
        "pretrain": pretrain,
        "base": PRETRAIN_BATCH_TOKENS.get(setup.method, FINETUNE_BATCH_TOKENS),
        "per_gpu": PRETRAIN_TOKENS_PER_GPU,
        "default": default,
        # the step count floor bound the default (a small data set): fewer tokens a step
        "few_steps": bool(setup.tokens) and setup.tokens / MIN_OPTIMIZER_STEPS < default * 1.001,
        "min_steps": MIN_OPTIMIZER_STEPS,
        "growth": FINETUNE_BATCH_GROWTH,
        "pp": lay.pp,
        "per_stage": MICROBATCHES_PER_STAGE,
    }


def ram_reason(result: Advice) -> dict | None:
    """The host RAM rule the plan used, with its inputs (advisor/planning/infra.py)."""
    p = result.plan
    if p is None or p.infra is None:
        return None
    r = p.infra.reasons["ram"]
    return {
        "ram": p.infra.ram_gib_per_node,
        "gpu_memory": r["gpu_memory_gib"],
        "factor": r["factor"],
        "by_rule": r["factor"] * r["gpu_memory_gib"],
        "shipped": r.get("shipped_gib"),
        "offload": r["offload_gib"],
        "per_gpu_offload": p.estimate.memory.host_ram_gib,
        "per_node": p.estimate.layout.gpus_per_node,
        "margin": OFFLOAD_PINNED_MARGIN,
    }


# The link a team says it has between servers ("we only have 25G ethernet", "只有25G以太网"), Gb/s
# Plain Ethernet said, no RDMA: latency and CPU copies on top of the bandwidth
ETHERNET_SAID = re.compile(r"ethernet|以太网|\beth\b|\d\s*gbe\b|普通网络", re.I)
HAVE_LINK = re.compile(
    r"(\d+(?:\.\d+)?)\s*(?:gbe\b|(?:g|gb|gbps|gbit|gb/s|g/s)?\s*(?:ethernet|以太网|网络|网卡|网|eth\b|nics?\b|links?\b))",
    re.I,
)


def link_said(message: str) -> tuple[float, bool] | None:
    """The link a team says it has, Gb/s and whether it is each server's: as a request reads it
    (parser.network_said), else a bare "25G ethernet" (HAVE_LINK), a server's; None if unsaid."""
    said = network_said(message or "")
    have = HAVE_LINK.search(message or "")
    return said or ((float(have[1]), True) if have else None)


def network_reason(result: Advice, single, message: str = "", own: tuple[Advice, str] | None = None) -> dict | None:
    """What the plan needs between servers (its fabric and how much of each step that leaves to
    compute), the link the team says it has against it and `own`, the plan's GPUs planned on that
    link, and `single`, the best plan on one server, which needs no fabric at all."""
    p = result.plan
    if p is None or p.infra is None:
        return None
    net = p.infra.reasons.get("network") or {}
    gbps, per_server = link_said(message) or (None, True)
    per_node = p.estimate.layout.gpus_per_node
    per_gpu = gbps / per_node if gbps and per_server else gbps
    slowest = min((o["gbps"] for o in net.get("options") or []), default=None)
    return {
        # the team's link per server or per GPU, per GPU, and as a share of the slowest option weighed
        "have": gbps,
        "have_per_server": per_server,
        "have_per_gpu": per_gpu,
        "have_share": per_gpu / slowest if gbps and slowest else None,
        "ethernet": bool(ETHERNET_SAID.search(message or "")),
        "nodes": p.estimate.layout.nodes,
        "per_node": p.estimate.layout.gpus_per_node,
        "count": p.estimate.layout.gpu_count,
        "gpu": p.gpu,
        "days": p.estimate.days,
        "rent": p.costs.rent_total,
        "currency": p.costs.currency,
        "network": p.infra.network,
        "options": net.get("options") or [],
        "chosen": net.get("chosen"),
        "owned": bool(result.request.owned),
        "single": None
        if single is None
        else {
            "gpu": single.gpu,
            "count": single.estimate.layout.gpu_count,
            "days": single.estimate.days,
            "fits": single.estimate.fits,
            "meets": single.meets_deadline,
            "rent": single.costs.rent_total,
            "memory": single.estimate.memory.total,
            "usable": single.estimate.usable_gib,
        },
        "deadline": result.request.deadline_days,
        "own": None
        if own is None or own[0].plan is None or not own[0].plan.days
        else {
            "days": own[0].plan.days,
            "left": 1 - own[0].plan.estimate.throughput.exposed_comm_share,
            "meets": own[0].plan.meets_deadline,
            "rent": own[0].plan.costs.rent_total,
            "request": own[1],
        },
    }


def rental_reason(result: Advice, named: dict | None = None, today: date | None = None) -> dict | None:
    """How the plan's offer is sold and billed, for a question on renting it for the whole run;
    `named`: the provider the question names, when another, with its offer on record (or None)."""
    p = result.plan
    if p is None or not p.costs.rent_offer:
        return None
    o = p.costs.rent_offer
    as_of = str(o.get("as_of") or "")
    try:
        year, month = (int(x) for x in as_of.split("-")[:2])
        age = ((today or date.today()) - date(year, month, 1)).days // 30
    except ValueError:
        age = None
    return {
        "provider": o["provider"],
        "gpu": p.gpu,
        "offer": o.get("offer") or "",
        "billing": o.get("billing"),
        "terms": o.get("terms") or [],
        "min_term": o.get("min_term_months") or 0,
        "term_stated": o.get("term_stated"),
        "max_gpus": o.get("max_gpus") or 0,
        "count": p.estimate.layout.gpu_count,
        "days": p.estimate.days,
        "option": p.costs.rent_option,
        "as_of": as_of,
        "age_months": age,
        "estimated": o.get("estimated"),
        "price": o.get("price"),
        "currency": o.get("currency"),
        "unit": o.get("unit"),
        "named": named if named and named["provider"] != o["provider"] else None,
    }


# The stack a question names ("昇腾上torchtitan能跑吗"), first match wins
STACKS = (
    ("torchtitan", r"torchtitan"),
    ("deepspeed", r"deepspeed"),
    ("megatron", r"megatron|mindspeed"),
    ("cuda", r"\bcuda\b"),
    ("fsdp", r"fsdp"),
    ("pytorch", r"pytorch|torch_npu|transformers|peft|llama-factory|trl\b"),
)


def software_reason(result: Advice, message: str) -> dict | None:
    """What runs the plan on its GPU, for a question on a stack there ("does torchtitan run on
    Ascend?", "does bitsandbytes work on ROCm?"), with the facts of data/software.toml."""
    p = result.plan
    if p is None:
        return None
    lay = p.estimate.layout
    return {
        "gpu": p.gpu,
        "ascend": p.gpu.startswith("Ascend"),
        "amd": catalog.get_gpu(p.gpu).vendor == "AMD",
        "qlora": result.request.method == "qlora",
        "asked": next((name for name, words in STACKS if re.search(words, message or "", re.I)), None),
        "bnb_asked": bool(re.search(r"bitsandbytes|\bbnb\b|qlora|nf4|4-?bit", message or "", re.I)),
        "framework": shown_framework(lay.framework, p.gpu, lay.tp, lay.pp, result.request.is_peft),
        "tp": lay.tp,
        "pp": lay.pp,
        "zero": lay.zero_stage,
        "bnb": catalog.software("bitsandbytes_rocm"),
        "titan": catalog.software("torchtitan_ascend"),
    }
