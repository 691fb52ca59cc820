"""One answer to one /gpu request: parse, size, plan, cost; JSON and terminal text.

The CLI and the Slack bot both call `advise`, so they answer the same.
"""

from __future__ import annotations

import math
import re

from pydantic import BaseModel

from advisor import catalog
from advisor.engine.estimate import (
    HEADROOM,
    HIGH_EXPOSED_COMM,
    LOW_MFU,
    MAX_OFFLOAD_GIB_PER_SERVER,
    SERVER_RAM_TB,
    Estimate,
    best_layout,
)
from advisor.engine.frameworks import (
    DEEPSPEED,
    FSDP2,
    HF,
    MEGATRON,
    MOE_RELEASE_SPREAD_TOKENS_S,
    NATIVE_LORA_PIPELINE_MFU,
    PEFT,
    STACK_OF,
)
from advisor.engine.memory import unfused_mla
from advisor.engine.roofline import FA2_SLOW_ARCHITECTURES, fa2_time_factor
from advisor.engine.throughput import (
    EAGER_EXPERT_LOOP,
    TP_EXPOSED,
    ZERO3_HOOKED,
    flops_per_token,
    intra_node_gb_s,
    runs_expert_loop,
)
from advisor.knowledge import faq
from advisor.market.owning import USEFUL_LIFE_MONTHS
from advisor.market.prices import HOURS_PER_MONTH, PriceBook
from advisor.market.quotes import mark_quoted
from advisor.planning.costs import IDLE_LEASE_SHARE
from advisor.planning.engine_inputs import batch_values, layout_problem, model_shape, request_gpu, training_setup
from advisor.planning.infra import ASYNC_SAVE_COST_S, CHECKPOINT_WRITE_S, checkpoint_cadence, storage_need
from advisor.planning.planner import (
    Plan,
    PlanResult,
    candidate_gpus,
    horizon_days,
    make_plan,
    search,
    suggest,
    with_infrastructure,
)
from advisor.planning.rent import DAYS_PER_MONTH
from advisor.request import fields
from advisor.request.canonical import canonical
from advisor.request.model import Note, TrainingRequest
from advisor.request.parser import (
    RequestError,
    asks,
    asks_for_a_plan,
    asks_specs,
    cloud_options,
    detect_lang,
    gpu_options,
    holds_a_plan,
    method_options,
    parse,
)
from advisor.text.render import phrase, render, word

# Where attention is this share of a step's compute or more, the answer says what running it on
# FlashAttention-2 instead would cost (about 1.13x the time at this share; assumed threshold).
ATTENTION_KERNEL_SHARE = 0.15
# Where a mixture of experts on a stack that loops over its experts in Python spends this share
# of a step on the host's launches or more, the answer says so and what runs it faster (assumed:
# a quarter of the time).
EXPERT_LOOP_SHARE = 0.25

# DPO after this plan (Rafailov et al. 2023, arXiv:2305.18290): a frozen reference model's forward
# pass, 2N FLOPs a token, on top of SFT's 6N (4N with adapters: the backward skips the frozen
# weights' gradients, Hu et al. 2021); with adapters the reference is the base model with them
# switched off (TRL's DPOTrainer with a peft_config), so no second copy of the weights.
DPO_TIME_FACTOR = {"full": 8 / 6, "peft": 6 / 4}

# How a GPU reaches a market (data/gpus.toml codes) that needs no warning: made there, sold
# there freely, or an older part no export rule names.
FREE_ACCESS = ("domestic", "open", "not_named")

# What runs a layout on Ascend: the CUDA stacks do not, so an Ascend plan names its own.
# MindSpeed-LLM trains on torch_npu with a Megatron backend (TP/PP/DP/CP/EP) and an FSDP2 backend
# (FSDP, EP, CP; no tensor or pipeline split) (Ascend/MindSpeed-LLM docs/zh/introduction.md and
# docs_guide.md, gitcode, read 2026-12; hiascend.com article 2026-02-10); DeepSpeed runs on Ascend
# NPUs natively (DeepSpeed's accelerator setup guide, "Run DeepSpeed model on Huawei Ascend NPU",
# deepspeedai/DeepSpeed PR 6445); HF Transformers/PEFT run on torch_npu. torchtitan on Ascend was
# not confirmed in the sources read.
ASCEND_MEGATRON = "MindSpeed-LLM (Megatron backend, torch_npu)"
ASCEND_FSDP2 = "MindSpeed-LLM (FSDP2 backend, torch_npu)"
ASCEND_TORCH = "MindSpeed-LLM (torch_npu)"


# LoRA on FSDP2 beside tensor or pipeline parallelism: NeMo Automodel runs it (its published LoRA
# recipes, frameworks.py); torchtitan runs no LoRA, so a LoRA plan does not name it.
FSDP2_PEFT = "FSDP2/NeMo Automodel"


def shown_framework(framework: str, gpu: str, tp: int = 1, pp: int = 1, peft: bool = False) -> str:
    """The framework a plan names: on Ascend, the stack that runs the layout there; LoRA on FSDP2,
    the stack that runs LoRA on it."""
    if framework == FSDP2 and peft and not gpu.startswith("Ascend"):
        return FSDP2_PEFT
    if not framework or not gpu.startswith("Ascend"):
        return framework
    if framework == MEGATRON:
        return ASCEND_MEGATRON
    if framework == FSDP2:
        # its FSDP2 backend splits no tensor or pipeline: with them, which MindSpeed-LLM backend
        # runs FSDP2's ZeRO-3 is not confirmed
        return ASCEND_FSDP2 if tp == 1 and pp == 1 else ASCEND_TORCH
    if framework in (DEEPSPEED, PEFT, HF):
        return f"{framework} (torch_npu)"
    return framework


# The warnings that say why the plan is not the cheapest one found (Advice.tie).
TIE_CODES = ("tie_faster", "tie_sturdier", "tie_access", "tie_doubted_rent", "tie_rocm_late")


class Advice(BaseModel):
    request: TrainingRequest
    result: PlanResult | None = None
    warnings: list[Note] = []

    @property
    def plan(self) -> Plan | None:
        return self.result.best if self.result else None

    def tie(self, same_gpu: bool) -> Note | None:
        """The warning that says why a plan dearer than the cheapest was chosen (faster, on
        sturdier hardware, easier to get, or the cheaper one's rent too low to trust), against
        a count of the same GPU (`same_gpu`: "why 4 GPUs?" leads with it) or another GPU type
        ("why H800?"), rather than calling the plan the cheapest."""
        gpu = self.plan.gpu if self.plan else None
        return next(
            (w for w in self.warnings if w.code in TIE_CODES and (w.params.get("other") == gpu) == same_gpu), None
        )

    def checklist_items(self) -> list[dict]:
        """The checks before signing, built from the plan (advisor/planning/checklist.py)."""
        from advisor.planning import checklist

        return checklist.items(self)

    def pilot(self) -> dict | None:
        """The checklist's trial run ("pilot", or "pilot_whole_job" for a job too short for one)."""
        return next((i for i in self.checklist_items() if i["code"] in ("pilot", "pilot_whole_job")), None)

    @property
    def china_by_default(self) -> bool:
        """Priced on the mainland-China market in CNY only because a request in English said no
        currency and no place (CONTRACT section 3): the answer's first line says so, and `usd`."""
        r = self.request
        assumed = {n.code for n in r.assumptions}
        return (
            r.market == "china"
            and not r.owned
            and {"currency", "market_china"} <= assumed
            and detect_lang(r.text) == "en"
        )

    @property
    def estimate(self) -> Estimate | None:
        return self.plan.estimate if self.plan else None

    @property
    def framework(self) -> str:
        """The framework the plan names: the engine's, or on Ascend the stack that runs it there."""
        if self.plan is None:
            return ""
        lay = self.plan.estimate.layout
        return shown_framework(lay.framework, self.plan.gpu, lay.tp, lay.pp, self.request.is_peft)

    def to_json(self) -> dict:
        lang = self.request.lang
        out: dict = {"request": _worded_json(self.request.model_dump(mode="json"), "assumptions", lang)}
        out["request"]["canonical"] = canonical(self.request)
        warnings = [word(lang, w) for w in self.warnings]
        warning_codes = [w.model_dump(mode="json") for w in self.warnings]
        p = self.plan
        if p is None:
            out.update(
                plan=None,
                memory_gib_per_gpu=None,
                training=None,
                infra=None,
                cost=None,
                alternatives=[],
                warnings=warnings,
                warning_codes=warning_codes,
            )
            return out
        e = p.estimate
        lay, mem, thr = e.layout, e.memory, e.throughput
        out["plan"] = {
            "gpu": lay.gpu,
            "gpu_count": lay.gpu_count,
            "nodes": lay.nodes,
            "gpus_per_node": lay.gpus_per_node,
            "tp": lay.tp,
            "pp": lay.pp,
            "dp": lay.dp,
            "ep": lay.ep,
            "etp": lay.expert_tp,
            "cp": lay.cp,
            "hsdp": lay.hsdp,
            "sharding": "hsdp" if lay.hsdp else ("zero3" if lay.zero_stage == 3 else f"zero{lay.zero_stage}"),
            "zero_stage": lay.zero_stage,
            "offload": lay.offload,
            "recompute": lay.recompute,
            # what Megatron-Core's selective recompute recomputes (--recompute-modules); [] elsewhere
            "recompute_modules": list(lay.recompute_modules),
            # under full recompute, the layers of each model chunk recomputed (Megatron-Core's block
            # method, `recompute-layers 21`); null: all of them, or no full recompute
            "recompute_layers": lay.recompute_layers,
            "grad_reduce": lay.grad_reduce,
            # the dtype AdamW's moments are kept in: bf16 as said (`moments bf16`) or in pure bf16
            "moments": "bf16" if self.request.moments == "bf16" or self.request.precision == "pure-bf16" else "fp32",
            "micro_batch": lay.micro_batch,
            "global_batch": lay.global_batch,
            "fits": e.fits,
            "dispatcher": thr.dispatcher,  # Megatron-Core's MoE token dispatcher; null off it or dense
            "cuda_graphs": self.request.cuda_graphs,  # planned with CUDA graphs' shorter per-step jitter
            "framework": lay.framework,  # the CONTRACT's names; the text names Ascend's own (self.framework)
            "pipeline_schedule": lay.pipeline_schedule,
            "virtual_stages": lay.virtual_stages,
            "micro_batches_per_step": lay.microbatches_per_step,
            "global_batch_tokens": (lay.global_batch or 0) * self.request.seq_len,
            "precision": e.precision,
            "meets_deadline": p.meets_deadline,
            "within_budget": p.within_budget,
            "tokens_per_s_per_gpu": thr.tokens_per_s_per_gpu,
            "mfu": thr.mfu,
            "plans_considered": self.result.considered,
        }
        out["memory_gib_per_gpu"] = {
            "weights": mem.weights,
            "gradients": mem.gradients,
            "optimizer": mem.optimizer,
            "activations": mem.activations,
            "other": mem.other,
            "total": mem.total,
            "usable": e.usable_gib,
            "readings": {"allocated": mem.allocated, "reserved": mem.reserved, "nvidia_smi": mem.nvidia_smi},
            "host_ram_for_offload": mem.host_ram_gib,
            "arithmetic": [phrase(lang, "mem_note", n, file="explain") for n in mem.explained],
        }
        has_data = e.tokens is not None
        out["training"] = {
            "tokens": e.tokens,
            "flops": e.flops,
            "mfu": thr.mfu if has_data else None,
            "hfu": thr.hfu if has_data else None,
            "goodput": thr.goodput if has_data else None,
            "tokens_per_s_per_gpu": thr.tokens_per_s_per_gpu if has_data else None,
            "gpu_hours": e.gpu_hours,
            "days": e.days,
            "efficiency": thr.efficiency if has_data else None,
            "step_seconds": thr.step if has_data else None,
            "exposed_comm_share": thr.exposed_comm_share if has_data else None,
            "checks": e.checks,
            "arithmetic": [phrase(lang, "thr_note", n, file="explain") for n in thr.notes] if has_data else None,
        }
        out["infra"] = p.infra.model_dump() | {
            "network": p.infra.network
            | {
                "intra_node_text": phrase(lang, "intra", p.infra.network, file="explain"),
                "inter_node_text": phrase(lang, "inter", p.infra.network, file="explain"),
            },
            "reasons_text": {k: phrase(lang, "reason", k, r, file="explain") for k, r in p.infra.reasons.items()},
        }
        out["cost"] = p.costs.model_dump(exclude={"notes"})
        out["alternatives"] = [_summary(a) for a in self.result.alternatives]
        out["suggestions"] = [
            {"change": sg.change, "value": sg.value, **(_summary(sg.plan) if sg.plan else {})}
            for sg in self.result.suggestions
        ]
        out["checklist"] = [
            {**it, "text": phrase(lang, "check", it["code"], file="checks", **it["params"])}
            for it in self.checklist_items()
        ]
        out["warnings"] = warnings
        out["warning_codes"] = warning_codes
        return out


def _worded_json(section: dict, key: str, lang: str) -> dict:
    """CONTRACT section 4 keeps `key` as plain-language sentences in the request's language;
    the codes they were worded from stand beside them as `<key minus s>_codes`."""
    notes = section[key]
    section[key] = [word(lang, Note(**n)) for n in notes]
    section[key.removesuffix("s") + "_codes"] = notes
    return section


def _summary(p: Plan) -> dict:
    lay = p.estimate.layout
    return {
        "gpu": p.gpu,
        "method": p.method,
        "why": p.label,
        "gpu_count": lay.gpu_count,
        "nodes": lay.nodes,
        "days": p.days,
        "gpu_hours": p.estimate.gpu_hours,
        "cost": p.rent,
        "currency": p.costs.currency,
        "memory_gib_per_gpu": p.estimate.memory.total,
        "meets_deadline": p.meets_deadline,
        "within_budget": p.within_budget,
    }


def _note(kind: str, code: str, **params) -> Note:
    return Note(kind=kind, code=code, params=params)


# Warnings about paying for GPUs, moot on GPUs the team has (request.owned).
OWNED_MOOT = frozenset(
    {"budget", "no_price", "tie_access", "tie_doubted_rent", "tie_faster", "tie_sturdier", "tight_gave_way"}
)


def _warnings(req: TrainingRequest, result: PlanResult) -> list[Note]:
    out = []
    p = result.best
    if p is None:
        # a GPU type the team named fits nowhere at any count; LoRA words only where they apply
        return [
            _note("warning", "nothing_fits", gpu=req.gpu, adapters=req.method in ("lora", "qlora", "full-finetune"))
        ]
    est = p.estimate
    if not est.fits:
        out.append(
            _note(
                "warning",
                "no_fit",
                total=est.memory.total,
                usable=est.usable_gib,
                room=est.usable_gib * HEADROOM,  # what a plan may use: 5% stays free
                gpu=est.layout.gpu,
                count=est.layout.gpu_count,
                # no count of this GPU runs it (the gpu_type fix says so): "add GPUs" would not help
                hopeless=any(sg.change == "gpu_type" for sg in result.suggestions),
                # what the request already does is no hint: `qlora` asked, everything offloaded
                qlora=req.method == "qlora",
                offloaded=est.layout.offload == "all",
                host=est.memory.host_ram_gib * est.layout.gpus_per_node,
                host_cap=MAX_OFFLOAD_GIB_PER_SERVER,
                server_ram_tb=SERVER_RAM_TB,
                method=req.method,
            )
        )
    if req.deadline_days and est.days and est.days > req.deadline_days:
        out.append(_note("warning", "deadline", days=est.days, deadline=req.deadline_days, most=req.max_gpus))
    if result.conflict == "budget":
        d, b = result.nearest_deadline, result.nearest_budget
        out.append(
            _note(
                "warning",
                "budget_vs_deadline",
                budget=req.budget.amount,
                currency=req.budget.currency,
                d_gpu=d.gpu,
                d_count=d.estimate.layout.gpu_count,
                d_cost=d.spend(req),
                d_days=d.days,
                b_gpu=b.gpu,
                b_count=b.estimate.layout.gpu_count,
                b_cost=b.spend(req),
                b_days=b.days,
                cur=req.currency,
                # no deadline said: the time is the planner's horizon, not the team's deadline
                horizon=None if req.deadline_days else result.horizon_days,
            )
        )
    elif req.budget and not p.within_budget and p.spend(req) is None and result.nearest_priced is not None:
        n = result.nearest_priced
        if not result.hourly_largest:  # else `hourly_unavailable` below gives the same plan
            out.append(
                _note(
                    "warning",
                    "budget_unpriced",
                    budget=req.budget.amount,
                    currency=req.budget.currency,
                    gpu=n.gpu,
                    count=n.estimate.layout.gpu_count,
                    days=n.days,
                    cost=n.spend(req) or n.rent,
                    cur=req.currency,
                )
            )
    elif req.budget and not p.within_budget and p.spend(req) is not None:  # no price: `no_price` says so
        # an alternative shown below that meets both (LoRA instead of full fine-tuning): named here
        fits = next((a for a in result.alternatives if a.within_budget and a.meets_deadline and a.rent), None)
        out.append(
            _note(
                "warning",
                "budget",
                budget=req.budget.amount,
                currency=req.budget.currency,
                cost=p.spend(req),
                cur=req.currency,
                within=None
                if fits is None
                else {
                    "label": fits.label,
                    "count": fits.estimate.layout.gpu_count,
                    "gpu": fits.gpu,
                    "days": fits.days,
                    "cost": fits.spend(req) or fits.rent,
                },
                # hardware the team fixed is this plan, not the cheapest of many
                fixed=bool(req.gpu_count or req.owned),
                # no deadline: the plan is the planner's horizon's, and no slower count came within
                # the budget either (`_fastest_within_budget` looks down to the fewest that fit)
                horizon=None if req.deadline_days or not p.meets_deadline else result.horizon_days,
                # a deadline no plan meets (one server asked for): the plan shown is no deadline's
                misses=bool(req.deadline_days and not p.meets_deadline),
                # no plan within the budget at any length: the least the job costs
                floor=result.budget_floor,
            )
        )
    if not p.costs.known and not any(n.code == "no_qualifying_offer" for n in p.costs.notes):
        out.append(_note("warning", "no_price", gpu=p.gpu))
    if p.rent is None and result.nearest_priced is not None:
        n = result.nearest_priced
        largest = result.hourly_largest or {}
        out.append(
            _note(
                "warning",
                "hourly_unavailable" if result.hourly_largest else "nearest_priced",
                **({"largest": largest["gpus"], "largest_gpu": largest["gpu"]} if largest else {}),
                gpu=p.gpu,
                count=est.layout.gpu_count,
                n_gpu=n.gpu,
                n_count=n.estimate.layout.gpu_count,
                n_days=n.days,
                n_cost=n.rent,
                cur=req.currency,
            )
        )
    if result.sturdier:
        out.append(_note("warning", "tie_sturdier", **result.sturdier))
    if result.rocm_late:
        out.append(_note("warning", "tie_rocm_late", **result.rocm_late))
    if result.tie and result.tie.get("kind") == "doubted_rent":
        out.append(_note("warning", "tie_doubted_rent", **{k: v for k, v in result.tie.items() if k != "kind"}))
    elif result.tie and result.tie.get("kind") == "faster":
        out.append(_note("warning", "tie_faster", **{k: v for k, v in result.tie.items() if k != "kind"}))
    elif result.tie:
        out.append(_note("warning", "tie_access", **result.tie))
    if result.tight and result.tight.get("led"):
        out.append(_note("warning", "tight_gave_way", **result.tight))
    elif result.tight:
        out.append(_note("warning", "tight_deadline", **result.tight))
    if est.memory.host_ram_gib > 0:
        out.append(
            _note(
                "warning",
                "offload",
                host=est.memory.host_ram_gib * est.layout.gpus_per_node,
                weights=est.layout.offload == "all",
                fused_loss=_fused_loss_keeps_it_on_the_card(req, est),
            )
        )
    out.extend(_physics_notes(req, est))
    scale = _pretrain_scale(req, p) or _finetune_scale(req, p)
    if scale:
        out.append(scale)
    for sg in result.suggestions:
        plan = sg.plan
        # on the GPUs the team owns a change costs no rent (`allowing about 21 days` on its own 16
        # A100 had been priced as a lease of them)
        own = bool(
            req.owned and plan and plan.gpu == req.gpu and plan.estimate.layout.gpu_count <= (req.gpu_count or 0)
        )
        out.append(
            _note(
                "suggestion",
                sg.change,
                value=sg.value,
                gpu=plan.gpu if plan else None,
                count=plan.estimate.layout.gpu_count if plan else None,
                days=plan.days if plan else None,
                cost=None if own else plan.rent if plan else None,
                own=own,
                cur=req.currency,
                # the figure shown is the rent: a buyer's budget caps the purchase, not it (a rent
                # of ¥28,438 had been called over a ¥1M budget its servers' price broke)
                over_budget=bool(
                    req.budget
                    and req.rent_or_buy != "buy"
                    and plan
                    and plan.rent is not None
                    and not plan.within_budget
                ),
                deadline=bool(req.deadline_days),
            )
        )
    if req.owned:  # the team's own GPUs: no offer, term, budget or market to warn about
        return [w for w in out if w.code not in OWNED_MOOT]
    if any(s["estimate"] for s in p.costs.price_sources):
        out.append(_note("warning", "estimated_prices"))
    out.extend(_availability_notes(req, [p, *result.alternatives]))
    out.extend(p.costs.notes)  # issue 15: offer, term, range, rent-or-buy warnings (advisor/planning/costs.py)
    return out


# Pre-training's compute-optimal tokens, about 20 a parameter (Hoffmann et al. 2022, Chinchilla,
# Table 3: 1.4T tokens for 70B); a model meant to be served is trained far past it (Llama 2 7B:
# 2T tokens, Touvron et al. 2023): the floor of the scale a pre-training request without data has.
CHINCHILLA_TOKENS_PER_PARAM = 20


def _scale(req: TrainingRequest, p: Plan, tokens: float) -> tuple[float, float | None]:
    """`tokens` at the plan's speed (goodput in): its GPU-hours, and the hourly rate they rent at
    (None on the team's own GPUs)."""
    thr = p.estimate.throughput
    gpu_hours = tokens / (thr.tokens_per_s_per_gpu * thr.goodput) / 3600
    return gpu_hours, (p.costs.rent_per_gpu_hour if p.costs and not req.owned else None)


def _pretrain_scale(req: TrainingRequest, p: Plan) -> Note | None:
    """A dense pre-training request with no data: what Chinchilla's tokens would take at the plan's
    speed (GPU-hours on its GPU, and their rent at its hourly rate), said as a scale, not a plan."""
    if req.method != "pretrain" or req.tokens is not None or req.is_moe or not p.estimate.fits:
        return None
    thr = p.estimate.throughput
    tokens = CHINCHILLA_TOKENS_PER_PARAM * req.params_b * 1e9
    gpu_hours, rate = _scale(req, p, tokens)
    # what the budget pays for at the same speed and rate ("our budget is 50万, how many tokens can
    # we afford?"); a budget in the other currency is left to the costs' verdict
    budget = req.budget.amount if req.budget and rate and req.budget.currency == req.currency else None
    return _note(
        "warning",
        "pretrain_scale",
        budget=budget,
        budget_hours=budget / rate if budget else None,
        budget_tokens=budget / rate * 3600 * thr.tokens_per_s_per_gpu * thr.goodput if budget else None,
        # those hours within the deadline: the GPUs running throughout that spend it ("¥2M, 3 months")
        budget_gpus=budget / rate / (req.deadline_days * 24) if budget and req.deadline_days else None,
        days=req.deadline_days,
        params=req.params_b,
        per_param=CHINCHILLA_TOKENS_PER_PARAM,
        tokens=tokens,
        gpu=p.gpu,
        gpu_hours=gpu_hours,
        rate=rate,
        rent=gpu_hours * rate if rate else None,
        cur=req.currency,
    )


# The unit a fine-tuning request without data is scaled in: 100M tokens (100,000 samples of the 1,000
# tokens a sample the parser assumes), a unit to multiply, not a claim about the team's data
FINETUNE_SCALE_TOKENS = 100e6


def _finetune_scale(req: TrainingRequest, p: Plan) -> Note | None:
    """A fine-tuning request with no data ("ballpark cost to fine-tune llama 3 70B?"): what each
    FINETUNE_SCALE_TOKENS take at the plan's speed, in GPU-hours and their rent at its hourly rate."""
    if req.method not in ("full-finetune", "lora", "qlora") or req.tokens is not None or not p.estimate.fits:
        return None
    gpu_hours, rate = _scale(req, p, FINETUNE_SCALE_TOKENS)
    return _note(
        "warning",
        "finetune_scale",
        tokens=FINETUNE_SCALE_TOKENS,
        gpu=p.gpu,
        gpus=p.estimate.layout.gpu_count,
        gpu_hours=gpu_hours,
        days=gpu_hours / p.estimate.layout.gpu_count / 24,
        rate=rate,
        rent=gpu_hours * rate if rate else None,
        leased=p.costs.rent_option == "monthly",
        cur=req.currency,
        example=canonical(req),
    )


def _fused_loss_keeps_it_on_the_card(req: TrainingRequest, est: Estimate) -> bool:
    """Whether the same GPUs would hold everything without offloading were the loss run in chunks
    (Liger's fused linear cross entropy, `liger`): on an eager stack the logits upcast to fp32
    whole (memory.py EAGER_LOSS_BYTES) can be what pushes the states off the card, as for a 7B
    LoRA over Qwen's 152k vocabulary on one 24 GB card. Not where the team fixed the offload or
    the loss, nor for preference tuning, which needs the logits."""
    if req.chunked_loss or req.preference_tuning or req.given("offload") or est.layout.offload == "none":
        return False
    chunked = req.model_copy(update={"chunked_loss": True})
    alt = best_layout(
        model_shape(chunked), training_setup(chunked), catalog.get_gpu(est.layout.gpu), est.layout.gpu_count
    )
    return alt.fits and alt.layout.offload == "none"


def _physics_notes(req: TrainingRequest, est: Estimate) -> list[Note]:
    """The engine's checks (`training.checks`) as warnings: precision downgrades, the batch
    rule, and the sanity thresholds of advisor/engine/estimate.py (LOW_MFU, HIGH_EXPOSED_COMM)."""
    out = []
    checks, gpu, thr = set(est.checks), est.layout.gpu, est.throughput
    if "fp8_unsupported" in checks:
        out.append(_note("warning", "fp8_downgrade", gpu=gpu, precision=est.precision))
    if "bf16_unsupported" in checks:
        out.append(_note("warning", "bf16_unsupported", gpu=gpu))
    nic = catalog.get_gpu(gpu).nic_fabric
    if req.fabric and nic and req.fabric != nic and est.layout.nodes > 1:  # Ascend servers: RoCE only
        out.append(_note("warning", "fabric_not_sold", gpu=gpu, asked=req.fabric, fabric=nic))
    if "seq_beyond_context" in checks:  # the engine's check against the model's released context
        shape = catalog.find_model(req.model) if req.model else None
        if shape is not None:
            out.append(
                _note("warning", "seq_beyond_context", model=shape.display, seq=req.seq_len, context=shape.max_seq)
            )
    if "batch_above_rule" in checks:
        out.append(
            _note(
                "warning",
                "batch_above_rule",
                batch=est.layout.global_batch,
                tokens=(est.layout.global_batch or 0) * req.seq_len,
                count=est.layout.gpu_count,
            )
        )
    if "batch_grown" in checks:
        out.append(
            _note(
                "warning",
                "batch_grown",
                batch=est.layout.global_batch,
                tokens=(est.layout.global_batch or 0) * req.seq_len,
                micro=est.layout.microbatches_per_step,
            )
        )
    if "low_mfu" in checks:
        out.append(_note("warning", "low_mfu", mfu=thr.mfu, limit=LOW_MFU))
        if req.global_batch and thr.exposed_comm_share > HIGH_EXPOSED_COMM:
            # the user's batch leaves one or few micro-batches a step: a bigger one hides the traffic
            out.append(_note("warning", "low_mfu_batch", batch=req.global_batch, suggest=4 * req.global_batch))
    if "exposed_communication" in checks:
        out.append(_note("warning", "exposed_communication", share=thr.exposed_comm_share, limit=HIGH_EXPOSED_COMM))
    spec = catalog.get_gpu(gpu)
    if "tp_over_pcie" in checks:  # a fixed tp beyond the NVLink domain: its all-reduces cross PCIe
        out.append(
            _note(
                "warning",
                "tp_over_pcie",
                tp=est.layout.tp,
                gpu=gpu,
                domain=max(1, spec.nvlink_domain),
                bw=intra_node_gb_s(spec),
                share=TP_EXPOSED * thr.step["tensor_s"] / thr.step["step_s"] if thr.step["step_s"] else 0.0,
            )
        )
    if req.method == "lora" and est.layout.pp > 1 and est.layout.framework == MEGATRON and req.stack != "megatron":
        out.append(_note("warning", "lora_pipeline", mfu=thr.mfu, native=NATIVE_LORA_PIPELINE_MFU))
    if spec.vendor == "AMD":
        # planned from ROCm's kernel fractions; measured end-to-end runs have been slower (data/software.toml)
        gap = catalog.software("rocm_training_gap")
        out.append(
            _note(
                "warning",
                "rocm_measured",
                gpu=gpu,
                low=gap["low"],
                high=gap["high"],
                days_low=est.days and est.days * gap["low"],
                days_high=est.days and est.days * gap["high"],
                deadline=req.deadline_days,
            )
        )
    if req.method == "qlora" and spec.vendor == "AMD":
        # QLoRA's 4-bit base is bitsandbytes, whose ROCm support is recent (data/software.toml)
        bnb = catalog.software("bitsandbytes_rocm")
        out.append(_note("warning", "qlora_rocm", gpu=gpu, since=bnb["since"], until=bnb["experimental_until"]))
    arch = spec.architecture
    if req.attention is None and arch in FA2_SLOW_ARCHITECTURES and thr.attention_share >= ATTENTION_KERNEL_SHARE:
        factor = fa2_time_factor(spec, thr.attention_share)
        out.append(
            _note(
                "warning",
                "attention_kernel",
                share=thr.attention_share,
                factor=factor,
                days=est.days and est.days * factor,
                architecture=arch,
            )
        )
    shape = model_shape(req) if req.model else None
    if shape is not None and unfused_mla(spec, est.layout.framework, shape.unequal_head_dims):
        qk, v = shape.mla_qk_nope_head_dim + shape.mla_qk_rope_head_dim, shape.mla_v_head_dim
        out.append(_note("warning", "attention_mla_unfused", share=thr.attention_share, architecture=arch, qk=qk, v=v))
    launch_share = thr.step.get("launch_s", 0.0) / thr.step["step_s"] if thr.step["step_s"] else 0.0
    eager_moe = req.is_moe and runs_expert_loop(est.layout.framework, training_setup(req))
    if req.is_moe and est.layout.framework in EAGER_EXPERT_LOOP and not eager_moe:
        out.append(_note("warning", "moe_grouped_experts", framework=est.layout.framework))
    if eager_moe and launch_share >= EXPERT_LOOP_SHARE:
        # the step over the same step without the loop's host time: grouped expert kernels' time
        factor = 1 / (1 - launch_share)
        out.append(
            _note("warning", "moe_expert_loop", share=launch_share, factor=factor, framework=est.layout.framework)
        )
    if eager_moe and est.layout.zero_stage == 3 and est.layout.framework in ZERO3_HOOKED:
        out.append(_note("warning", "moe_zero3_leaf", leaf=not req.no_z3_leaf))
    if req.is_moe and thr.dispatcher == "flex":  # an all-to-all plan is charged that path already
        slow, fast = MOE_RELEASE_SPREAD_TOKENS_S
        out.append(
            _note(
                "warning",
                "moe_release_spread",
                slow=slow,
                fast=fast,
                ratio=fast / slow,
                days=est.days and est.days * fast / slow,
            )
        )
    return out


# The access kinds said in one note for all their GPUs, each with its own date
MERGED_ACCESS = ("licence_rented", "licence")


def _availability_notes(req: TrainingRequest, plans: list[Plan]) -> list[Note]:
    """How each GPU type of the plan and its alternatives reaches the plan's market (export
    licence, grey channel, China-only part; the codes of data/gpus.toml), one note per code and
    date naming its GPUs, worded by the templates. Parts that reach the market freely get none."""
    china = req.market == "china"
    groups: dict[tuple[str, str], list[str]] = {}
    # a part the catalogue knows no China rental of, but priced here from one (L40S leased by an
    # IDC): what rents there is installed stock, as the text then says
    rented = {
        plan.gpu for plan in plans if any(s["role"] in ("rent_hour", "rent_month") for s in plan.costs.price_sources)
    }
    for name in dict.fromkeys(plan.gpu for plan in plans):
        gpu = catalog.get_gpu(name)
        access = gpu.china_access if china else gpu.global_access
        since = gpu.china_access_since if china else gpu.global_access_since
        if china and access == "licence" and name in rented:
            access = "licence_rented"
        if access not in FREE_ACCESS:
            # the licence kinds in one note whatever their dates (each GPU's date beside it): an
            # answer had carried four notes for the alternatives of a one-card plan
            groups.setdefault((access, "" if access in MERGED_ACCESS else since), []).append((name, since))
    notes = []
    for (access, since), named in groups.items():
        dates = [d for _, d in named]
        one = since or (dates[0] if len(set(dates)) == 1 else "")
        sinces = [] if one else dates
        notes.append(
            _note(
                "warning",
                "availability",
                gpus=[n for n, _ in named],
                access=access,
                since=one,
                sinces=sinces,
                market=req.market,
            )
        )
    return notes


def faq_instead(
    text: str, lang: str | None = None, refusal: RequestError | None = None
) -> tuple[faq.FaqAnswer, str] | None:
    """A first message that is a question with no plan in it (no model, no data: "what's MFU
    and what should I expect on H100s?", "H20现在还能买到吗？"), which the request language refuses:
    the FAQ's answer, as a thread reply gives it, and how to ask for a plan; None when the
    message holds a plan or is no question. Where the FAQ is not confident, its unsure reply
    (its best guess and the next topics, named as such) only stands in for a refusal that merely
    did not understand a word ("is A800 still worth renting?": "still"); a refusal that suggests a
    spelling or says what is wrong with a value says more, so None."""
    if (holds_a_plan(text) and not _asks_a_conversion(text, refusal)) or not asks(text):
        return None
    if refusal is not None and refusal.kind == "bad_value" and not _only_not_understood(refusal):
        return None  # a value past its limits is what to say ("what can we train on 1000000 H100 in 2 weeks?")
    # the request's own reading of the language: an English question with a sum in 万 ("our budget is
    # 50万, ... how many tokens can we afford?") is English; the FAQ's own test (any Chinese
    # character) had answered it in Chinese
    found = faq.answer(text, lang or detect_lang(text))
    # a question that names no model and asks for no plan, whose best topic scores as a sure one but
    # stands close to the next ("国产卡能训大模型吗": Ascend, the other domestic chips) had been asked
    # for a model size
    near_sure = (
        refusal is not None
        and refusal.kind == "missing_size"
        and found.score >= faq.SURE_SCORE
        and not asks_for_a_plan(text)
    )
    if not found.confident and (found.score < faq.MATCH_SCORE or not (_only_not_understood(refusal) or near_sure)):
        return None  # no topic near enough ("what's the weather in paris?"): the refusal's example serves
    return found, found.answer + "\n\n" + phrase(found.lang, "faq_then_plan")


# The words a plan request may hold that the request language lacks, besides the one the FAQ is asked
# about ("一年电费多少" beside a plan: 电费), before the rest is no request (assumed: a question holds
# one subject word, a filler or two beside it).
MOST_WORDS_PASSED = 3


def faq_on_a_plan(
    text: str, lang: str | None, refusal: RequestError | None, book: PriceBook
) -> tuple[faq.FaqAnswer, str] | None:
    """A plan request asked with a question on a word the request language lacks, the word the FAQ's
    sure topic is about ("我们在上海，买8台H20服务器做70B微调，一年电费多少": 电费, the electricity topic):
    that topic's answer, its note worked out on the plan the rest of the message asks for, and that
    request. The job's numbers are the plan's, as in a thread, so "70b" and "8 servers" do not pull
    the FAQ to the topics about sizes and counts. None where the refusal is of another kind, the rest
    is no plan, the FAQ is not sure, or the word is not its topic's."""
    if refusal is None or refusal.kind != "unknown_word" or not _only_not_understood(refusal) or not asks(text):
        return None
    asked, rest = refusal.details["word"], text
    for _ in range(MOST_WORDS_PASSED):
        rest = re.sub(re.escape(refusal.details["word"]), " ", rest, count=1, flags=re.I)
        try:
            result = advise_request(parse(rest, lang), book)
            break
        except RequestError as again:
            if again.kind != "unknown_word" or not _only_not_understood(again):
                return None
            refusal = again
    else:
        return None
    found = faq.answer(text, lang or detect_lang(text), plan=plan_context(result), second_part=False)
    if not found.confident or not faq.speaks_of(found.topic, asked):
        return None
    return found, found.answer + "\n\n" + phrase(found.lang, "faq_on_plan", canonical(result.request))


def refusal(err: RequestError, lang: str | None, book: PriceBook) -> str:
    """A refusal's text: its message, and for two runs asked in turn the two requests that plan them
    (`_two_runs`), for an RL method counted in prompts its floor planned and the whole run estimated
    (`_rl_estimate`)."""
    lang = lang or err.lang
    if err.kind == "two_stages" and err.details.get("stages"):
        return _two_runs(err, lang)
    estimate = (
        _rl_estimate(err, lang, book) if err.kind == "unsupported_method" and err.details.get("example") else None
    )
    return f"{err.message(lang)}\n\n{estimate}" if estimate else err.message(lang)


def _two_runs(err: RequestError, lang: str) -> str:
    """Two runs in turn (parser._stages): each as the request that plans it, written back as the
    answer writes one."""
    first, second = (canonical(parse(stage, lang)) for stage in err.details["stages"])
    return phrase(lang, "request_error", "two_stages", **err.details, first_request=first, second_request=second)


def _rl_estimate(err: RequestError, lang: str, book: PriceBook) -> str | None:
    """An RL request's floor (parser._rl_floor) planned: the policy update's GPUs, time and rent, and
    the whole run at the multiples NVIDIA's published GRPO runs took of their update
    (parser.RL_STEP_MULTIPLE), said as an estimate; with a deadline and no GPUs named, the update is
    planned to take at most the largest multiple's share of it, so the whole run fits. None where the
    floor does not plan."""
    example, low, high = err.details["example"], err.details["low"], err.details["high"]
    deadline = _DAYS_SAID.search(example)
    # (GPUs the request names are the update's whatever the deadline: only the whole run's fit is said)
    scaled = deadline is not None and " on " not in example
    try:
        floor = advise(
            _DAYS_SAID.sub(f" {float(deadline[1]) / high:.3g}d", example) if scaled else example, lang, book=book
        )
    except RequestError:
        return None
    plan = floor.plan
    if plan is None or not plan.days:
        return None
    c, gpus = plan.costs, plan.estimate.layout.gpu_count

    def rent(days: float) -> float | None:
        # by the hour, the GPUs around the clock; on a lease, the months begun (rent.py's billing)
        if c.decision != "rent":
            return None
        if c.rent_option == "hourly" and c.rent_per_gpu_hour:
            return c.rent_per_gpu_hour * gpus * days * 24
        if c.rent_option == "monthly" and c.rent_per_gpu_month:
            return c.rent_per_gpu_month * gpus * math.ceil(days / DAYS_PER_MONTH - 1e-9)
        return None

    said = deadline[1] if deadline else None
    return render(
        "rl_estimate.txt.j2",
        lang,
        count=gpus,
        gpu=plan.gpu,
        days=plan.days,
        rent=c.rent_total if c.decision == "rent" else None,
        deadline=(float(said) if "." in said else int(said)) if said else None,
        scaled=scaled,
        low=low,
        high=high,
        r_low=rent(plan.days * low),
        r_high=rent(plan.days * high),
        cur=c.currency,
    ).strip()


# A deadline in an RL floor's example request (parser._rl_floor writes it " 3d")
_DAYS_SAID = re.compile(r" (\d+(?:\.\d+)?)d(?= |$)")


# Data asked in tokens with no model ("how many tokens is 1TB of text?", "100GB中文大概多少token"):
# the conversion, a question, not a plan missing its model (it had been asked for the model size)
_CONVERSION = re.compile(
    r"how many tokens|tokens? (?:is|are|in|does)\b|多少\s*(?:个)?\s*token|几\s*(?:个)?\s*token|换算"
    # the disk a dataset takes ("how much disk do I need for a 1T token dataset?", "1T token要多大的硬盘")
    r"|\bhow much (?:disk|storage|space)\b|\bhow (?:big|large) (?:a )?(?:disk|drive)|多大的?(?:硬盘|磁盘|盘|存储)"
    r"|(?:要|需要)多少(?:硬盘|磁盘|存储|空间)",
    re.I,
)


def _asks_a_conversion(text: str, refusal: RequestError | None) -> bool:
    """Data without a model, asked in tokens: the refusal (the request's own parse) wants a size."""
    return refusal is not None and refusal.kind in ("missing_size", "unknown_word") and bool(_CONVERSION.search(text))


def _only_not_understood(refusal: RequestError | None) -> bool:
    """Whether the refusal only missed a word, or a degree after a layout's name ("what is expert
    parallelism?", "什么是张量并行"): no value it could correct."""
    if refusal is not None and refusal.kind == "bad_value":
        return refusal.details.get("what") == "layout" and bool(refusal.details.get("bare"))
    return (
        refusal is not None
        and refusal.kind == "unknown_word"
        and not refusal.details.get("nearest")
        and refusal.details.get("why") != "negation"
    )


def faq_first(text: str, lang: str | None = None) -> tuple[faq.FaqAnswer, str] | None:
    """A question the FAQ answers with confidence that names a model but asks for no plan ("is
    fp8 safe for finetuning a 70b model?"): the FAQ's answer, then the request that plans the job
    once its data is added. A question about a setting the request language has no word for ("what
    lora rank for qwen2.5-7b?", "should I use flash attention for a 7b pretrain?": refused as a word
    not understood) gets the FAQ's answer and how to ask for a plan. None for a plan request, though
    asked as a question (data, a deadline, a budget or GPUs counted; how many GPUs, how long, how
    much: `asks_for_a_plan`), for no question, for a message refused for any other reason, or where
    the FAQ is not sure."""
    if not asks(text) or asks_for_a_plan(text) or asks_specs(text):
        return None  # (a GPU's specifications are the catalogue's, followup.side_by_side)
    try:
        req = parse(text, lang)
    except RequestError as refusal:
        # the refusal says what is wrong ("70B on 8xH300?"), unless it only missed a word
        found = faq.answer(text, lang) if _only_not_understood(refusal) else None
        if found is None or not found.confident:
            return None
        return found, found.answer + "\n\n" + phrase(found.lang, "faq_then_plan")
    # the job's size and method as a thread's plan gives them, so "70b" is read as the job's, not
    # as what the question is about ("is fp8 safe for a 70b?" is about fp8)
    context = plan_context(Advice(request=req))
    if "method" not in req.user_set:  # a method the parser defaulted is no plan's to quote back
        context.pop("method")
    found = faq.answer(text, lang, plan=context)
    if not found.confident:
        return None
    return found, found.answer + "\n\n" + phrase(found.lang, "faq_then_plan_for", canonical(req), req.method)


def advise(text: str, lang: str | None = None, *, book: PriceBook) -> Advice:
    return advise_request(parse(text, lang), book)


# The most GPU types a comparison plans side by side (a buyer's short list: H800, H20, A800 and a
# fourth); more is refused saying so (assumed: past four the answer no longer reads side by side).
MOST_COMPARED = 4


def _ahead(sides: list[dict], key: str) -> tuple[dict, dict] | None:
    """The lowest side by `key` (spend or days) and the next, where two have it and they differ."""
    ranked = sorted((s for s in sides if s[key]), key=lambda s: s[key])
    return (ranked[0], ranked[1]) if len(ranked) > 1 and ranked[0][key] != ranked[1][key] else None


def _lead(lo: dict, hi: dict) -> dict:
    return {"gpu": lo["gpu"], "option": lo["option"], "against": hi["option"]}


def off_cloud(result: Advice) -> bool:
    """Whether a plan asked of one cloud is priced on other offers (none of its own priced it)."""
    return any(n.code in ("cloud_undelivered", "cloud_unpriced") for n in result.request.assumptions)


class Comparison(BaseModel):
    """A request that names two to four GPU types as a choice ("H200 vs B200", "A800还是4090划算",
    "H800 vs H20 vs A800"), or two training methods ("lora vs full finetune", "用LoRA还是全参微调"):
    the request planned on each, side by side. `by`: what the options are, "gpu", "method",
    "preference" (preference tunings: "dpo vs orpo") or "cloud" ("lambda vs coreweave": each
    planned on that cloud's offers)."""

    text: str
    lang: str
    options: list[Advice]
    by: str = "gpu"

    def _option(self, a: Advice) -> str:
        """What an option is: its GPU type, or its training method."""
        r = a.request
        if self.by == "preference":
            return r.preference_tuning
        if self.by == "cloud":
            c = fields.field("cloud").choice(r.cloud)  # as the cloud calls itself, in Chinese where it has a name
            return c.zh[0] if self.lang == "zh" and c.zh else c.value
        return r.method if self.by == "method" else (a.plan.gpu if a.plan else r.gpu)

    def sides(self) -> list[dict]:
        """Each option's figures the comparison quotes: the plan's GPUs, time, what the team
        spends (the purchase when it buys, the power for the job on GPUs it owns, else the rent),
        the rate and GPU-hours that make it, the GPU's peak and the plan's MFU (None where the
        option has no plan)."""
        out = []
        for a in self.options:
            p, r = a.plan, a.request
            if p is None:
                out.append({"gpu": r.gpu, "option": self._option(a), "plan": False})
                continue
            e = p.estimate
            g = catalog.get_gpu(p.gpu)
            spend = p.spend(r)
            if r.owned:
                spend = p.job_electricity  # no rent on the team's own GPUs: the job's electricity
            out.append(
                {
                    "gpu": p.gpu,
                    "option": self._option(a),
                    "plan": True,
                    "count": e.layout.gpu_count,
                    "days": e.days,
                    "gpu_hours": e.gpu_hours,
                    "spend": spend,
                    "buy": r.rent_or_buy == "buy",
                    "owned": bool(r.owned),
                    # a buyer pays for the servers, not a rate an hour
                    "per_gpu_hour": None if r.owned or r.rent_or_buy == "buy" else p.costs.rent_per_gpu_hour,
                    "hourly": p.costs.rent_option == "hourly" and not r.owned,  # the rent is the rate x GPU-hours
                    # a lease's rate as leased (its per-GPU-hour figure had read as an hourly price
                    # beside a month's total: "¥7.88 per GPU-hour" for ¥5,750 a GPU-month)
                    "per_gpu_month": p.costs.rent_per_gpu_month
                    if p.costs.rent_option == "monthly" and not r.owned and r.rent_or_buy != "buy"
                    else None,
                    "peak_tflops": g.bf16_dense_tflops or g.fp16_dense_tflops,
                    "mfu": e.throughput.mfu if e.days else None,
                    "memory_gib": e.usable_gib,
                    "offload": e.layout.offload,
                    "fits": e.fits,
                    "meets_deadline": p.meets_deadline,
                    "within_budget": p.within_budget,
                    "currency": p.costs.currency,
                    # a cloud compared whose own offers do not deliver the plan: priced on the market's
                    "off_cloud": off_cloud(a),
                    # a rent under what a lessor needs to recover the servers (warning
                    # rent_below_capex): the verdict says so where it takes this option
                    "doubted": next((dict(w.params) for w in a.warnings if w.code == "rent_below_capex"), None)
                    if not r.owned and r.rent_or_buy != "buy"
                    else None,
                }
            )
        return out

    def verdict(self) -> dict:
        """Which option is cheapest and which fastest, and by how much against the next best
        (`against`; with two options, the other); None where it cannot be said: fewer than two
        options with a plan and a price, or a time, or a tie."""
        # a cloud whose own offers do not deliver the job is priced on the market's: no verdict on it
        sides = [s for s in self.sides() if s["plan"] and not (self.by == "cloud" and s["off_cloud"])]
        out: dict = {"cheaper": None, "faster": None}
        spent = _ahead(sides, "spend")
        if spent:
            lo, hi = spent
            out["cheaper"] = {
                **_lead(lo, hi),
                "saves": hi["spend"] - lo["spend"],
                "share": 1 - lo["spend"] / hi["spend"],
            }
        timed = _ahead(sides, "days")
        if timed:
            lo, hi = timed
            out["faster"] = {**_lead(lo, hi), "days_saved": hi["days"] - lo["days"], "times": hi["days"] / lo["days"]}
        return out

    def to_json(self) -> dict:
        return {
            "comparison": {
                "by": self.by,
                "options": [a.to_json() for a in self.options],
                "verdict": self.verdict(),
            }
        }


# The refusals a comparison answers: GPU types, or training methods, named as a choice
COMPARED = ("gpu_choice", "method_choice", "cloud_choice")


def compare(text: str, lang: str | None = None, *, book: PriceBook) -> Comparison | None:
    """The request planned once on each of the GPU types (or with each of the training methods) it
    names as a choice, or None when it names no such choice (the refusal stands). Each side is the
    answer that request with only that GPU (method) gets. Raises the refusal of a side that cannot
    be planned ("can I mix A100 and H100?" has no model: the FAQ may still answer it),
    `gpu_choice_many` past MOST_COMPARED types, and `choice_mixed` (`choice_mixed_cloud`) for GPU types and
    methods (clouds) both named as a choice."""
    try:
        parse(text, lang)
    except RequestError as err:
        if err.kind not in COMPARED:
            return None
        kind = err.kind
    else:
        return None
    if kind == "method_choice":
        methods = method_options(text, lang)
        options = [advise_request(parse(text, lang, method_pick=m), book) for m in methods]
        by = "preference" if options[0].request.preference_tuning in methods else "method"
        return Comparison(text=text, lang=options[0].request.lang, options=options, by=by)
    if kind == "cloud_choice":
        clouds = cloud_options(text, lang)
        if len(clouds) > MOST_COMPARED:
            raise RequestError(
                "cloud_choice_many",
                lang or detect_lang(text),
                count=len(clouds),
                most=MOST_COMPARED,
                clouds=", ".join(clouds),
            )
        options = [advise_request(parse(text, lang, cloud_pick=pick), book) for pick in range(len(clouds))]
        return Comparison(text=text, lang=options[0].request.lang, options=options, by="cloud")
    gpus = gpu_options(text, lang)
    if len(gpus) > MOST_COMPARED:
        raise RequestError(
            "gpu_choice_many", lang or detect_lang(text), count=len(gpus), most=MOST_COMPARED, gpus=", ".join(gpus)
        )
    options = [advise_request(parse(text, lang, gpu_pick=pick), book) for pick in range(len(gpus))]
    return Comparison(text=text, lang=options[0].request.lang, options=options)


def comparison_context(result: Comparison) -> dict:
    """What a comparison's thread stores: each option with a plan, as the request that plans it
    alone (`canonical`, which round-trips) and that plan's context, and the cheaper option; a
    follow-up answers on the option it names, else the cheaper (followup.py)."""
    cheaper = result.verdict()["cheaper"]
    return {
        "compared": [
            {"option": result._option(a), "request": canonical(a.request), "summary": plan_context(a)}
            for a in result.options
            if a.plan is not None
        ],
        "by": result.by,
        "cheaper": cheaper["option"] if cheaper else None,
    }


def render_comparison(result: Comparison, verdict_only: bool = False) -> str:
    """The comparison as text; `verdict_only`: which option is cheaper and faster and which to take."""
    heads = [] if verdict_only else [render_text(a, checklist=False).split("\n", 1)[0] for a in result.options]
    text = render(
        "comparison.txt.j2",
        result.lang,
        c=result,
        sides=result.sides(),
        verdict=result.verdict(),
        heads=heads,
        verdict_only=verdict_only,
    )
    # the verdict alone stands as a reply of its own, not indented under the sides
    return "\n".join(line.strip() for line in text.strip("\n").splitlines()) if verdict_only else text


def plan_context(result: Advice) -> dict:
    """The plan's headline numbers under the names FAQ answers and follow-ups quote."""
    p, r = result.plan, result.request
    ctx = {
        "method": r.method,
        "params_b": r.params_b,
        "active_params_b": r.active_params_b,
        "tokens": r.tokens,  # trained, epochs in (the training-loss topic's Chinchilla figure)
        "epochs": r.epochs,
        "currency": r.currency,
        "market": r.market,
        "owned": bool(r.owned),
    }
    if p is None:
        return ctx
    e, lay = p.estimate, p.estimate.layout
    gpu = catalog.get_gpu(p.gpu)
    ctx.update(
        gpu=p.gpu,
        gpu_count=lay.gpu_count,
        nodes=lay.nodes,
        gpus_per_node=lay.gpus_per_node,
        tp=lay.tp,
        pp=lay.pp,
        dp=lay.dp,
        ep=lay.ep,
        cp=lay.cp,
        zero_stage=lay.zero_stage,
        offload=lay.offload,
        precision=e.precision,
        # the planner's own layout choices, a what-if's "before" where the user set none
        recompute=lay.recompute,
        grad_reduce=lay.grad_reduce,
        stack=r.stack or STACK_OF.get(lay.framework),
        framework=result.framework,
        # a LoRA inside one server planned off PEFT: how much faster than PEFT it runs (percent)
        over_peft_pct=round((e.over_peft - 1) * 100) if e.over_peft else None,
        micro_batch=lay.micro_batch,
        grad_accum=lay.microbatches_per_step,
        mem_per_gpu_gib=round(e.memory.total, 1),
        gpu_mem_gib=round(e.usable_gib, 1),
        # as shown, and a job of hours not stored as 0 days and 0 GPU-hours
        days=(round(e.days, 2) if e.days >= 1 else float(f"{e.days:.3g}")) if e.days else None,
        gpu_hours=(round(e.gpu_hours) if e.gpu_hours >= 100 else float(f"{e.gpu_hours:.3g}")) if e.gpu_hours else None,
        mfu_pct=round(e.throughput.mfu * 100) if e.days else None,
        interconnect=f"{gpu.intra_node} {gpu.intra_node_bw_gb_s:g} GB/s",
        # how the GPU reaches mainland China (data/gpus.toml), for the export-control answer
        china_access=gpu.china_access,
        china_access_since=gpu.china_access_since or None,
        # whole units, but cents under 100 (¥21.57 against ¥21.83 had read as ¥22 against ¥21.83)
        rent_total=round(p.costs.rent_total, 2 if p.costs.rent_total < 100 else None) if p.costs.rent_total else None,
        buy_capex=round(p.costs.buy_capex) if p.costs.buy_capex else None,
        # a buyer's job on the cheapest rental plan (costs.rent_instead)
        rent_instead_total=round(p.costs.rent_instead["cost"]) if p.costs.rent_instead else None,
        rent_instead_gpus=f"{p.costs.rent_instead['gpu_count']} x {p.costs.rent_instead['gpu']}"
        if p.costs.rent_instead
        else None,
        decision=p.costs.decision,
        decision_reason=p.costs.decision_reason,
        # unrounded: the card and the answers round it once, alike (15.498 had been 15 on the card
        # and, rounded twice, 16 in a thread)
        breakeven_months=p.costs.breakeven_months,
        breakeven_never=p.costs.never_pays_back,
        useful_life_months=USEFUL_LIFE_MONTHS[0],  # a break-even past it is no reason to buy
        owned_utilisation=p.costs.owned_utilisation,
        fits=e.fits,
        # the kernels the plan ran attention on, a what-if's "before" where the user said none
        attention=r.attention or ("fa3" if gpu.architecture in FA2_SLOW_ARCHITECTURES else "fa2"),
        attention_pct=round(e.throughput.attention_share * 100) if e.days else None,
        attention_fa2_factor=round(fa2_time_factor(gpu, e.throughput.attention_share), 2)
        if e.days and r.attention != "fa2"
        else None,
    )
    offer = p.costs.rent_offer
    if offer:
        # the offer and basis the rent is priced on, so a what-if can say when its own moved
        ctx.update(
            offer_provider=offer["provider"],
            offer_kind=offer["offer"],
            offer_fabric=offer["interconnect"],
            offer_estimated=offer["estimated"],
            offer_option=p.costs.rent_option,
            offer_rate=p.costs.rent_per_gpu_month if p.costs.rent_option == "monthly" else p.costs.rent_per_gpu_hour,
        )
    if r.preference_tuning:
        # the plan is preference tuning already: its reference model is in its memory and time,
        # as its part of the weights per GPU and its share of the FLOPs
        setup = training_setup(r)
        ctx.update(preference_tuning=r.preference_tuning)
        if setup.reference_forward:
            lay, shape = e.layout, model_shape(r)
            with_ref = flops_per_token(shape, setup, lay.recompute, lay.recompute_modules)[0]
            alone = flops_per_token(shape, setup.model_copy(update={"reference_forward": False}), lay.recompute)[0]
            ref_gib = sum(n["gib"] for n in e.memory.notes if n.get("kind") == "reference")
            ctx.update(reference_gib_per_gpu=round(ref_gib, 1), reference_flops_share=1 - alone / with_ref)
    elif e.days and r.tokens:
        peft = r.method in ("lora", "qlora")
        # the reference copy is the weights as the plan shards them (0 with adapters)
        ctx.update(
            dpo_ref_gib_per_gpu=0.0 if peft else round(e.memory.weights, 1),
            dpo_days_per_b_tokens=round(e.days / (r.tokens / 1e9) * DPO_TIME_FACTOR["peft" if peft else "full"], 3),
        )
    if r.is_peft:
        # a LoRA checkpoint: the adapters and their optimizer states (infra.storage_need's 16 bytes
        # each), what "lora的checkpoint多大" asks of this plan
        ctx.update(
            adapter_params_b=round(e.memory.trainable_params / 1e9, 3),
            checkpoint_gb=round(storage_need(r, e).checkpoint_bytes / 1e9, 2),
        )
    if e.days:
        # how often to save, from this job's chance of interruption (infra.checkpoint_cadence)
        cad = checkpoint_cadence(lay.gpu_count, e.days * 24, lay.nodes)
        ctx.update(
            ckpt_mtbf_h=round(cad.mtbf_h),
            ckpt_interruptions=round(cad.interruptions, 2),
            ckpt_sync_every_h=round(cad.sync_every_h, 1),
            ckpt_async_every_h=round(cad.async_every_h, 1),
            ckpt_drain_floor=cad.drain_floor,
            ckpt_async_lost_h=round(cad.async_lost_h, 1),
            ckpt_sync_save_min=round(CHECKPOINT_WRITE_S / 60),
            ckpt_async_save_s=round(ASYNC_SAVE_COST_S),
        )
    if p.infra:
        ctx.update(
            cpu_cores_per_node=p.infra.cpu_cores_per_node,
            ram_gib_per_node=p.infra.ram_gib_per_node,
            nvme_tb_per_node=p.infra.nvme_tb_per_node,
            storage_read_gb_s=p.infra.storage_read_gb_per_s,
            network=phrase(r.lang, "inter", p.infra.network, file="explain"),
            # the fabric as data, so a follow-up in the other language words it in its own
            network_spec=p.infra.network,
            power_kw_per_node=p.infra.power_kw_per_node,
        )
        if p.costs.electricity_per_kwh and p.costs.pue:
            # the plan's servers at full load, at the PUE and electricity price its owning costs use
            kwh = p.infra.power_kw_per_node * lay.nodes * p.costs.pue * HOURS_PER_MONTH
            ctx.update(
                power_kwh_month=round(kwh),
                power_cost_month=round(kwh * p.costs.electricity_per_kwh),
                power_price=p.costs.electricity_per_kwh,
                power_region=p.costs.electricity_region,
                pue=p.costs.pue,
            )
            if e.days:  # the run itself, at the same full load, on its share of the servers' GPUs
                per_server = catalog.get_gpu(p.gpu).gpus_per_server
                share = min(1.0, lay.gpus_per_node / per_server) if per_server else 1.0
                run_kwh = kwh * share / HOURS_PER_MONTH * e.days * 24
                ctx.update(power_kwh_job=round(run_kwh), power_cost_job=round(run_kwh * p.costs.electricity_per_kwh))
                if share < 1:
                    ctx.update(power_job_gpus=lay.gpus_per_node, power_server_gpus=per_server)
    return ctx


def _mostly_idle_term(plan) -> bool:
    """The GPUs given are only leased by the month and the job uses a small part of the term (a
    40-hour job on an H100 leased in China pays a month of a whole server): worth naming the GPU
    type that does the job for far less (`suggest`'s other_gpu)."""
    term = plan.costs.rent_term
    return bool(term and term["job_days"] < IDLE_LEASE_SHARE * term["months_paid"] * DAYS_PER_MONTH)


def advise_request(request: TrainingRequest, book: PriceBook) -> Advice:
    if not request.cloud:
        return _advise(request, book)
    # `on aws`: the plan is made from that cloud's own offers where they price one (a US buyer's
    # `70B lora 50k samples 3d on aws` had been planned on MI300X, which AWS does not rent); else
    # from its market's, and the note says which GPUs the cloud rents on record
    narrowed = book.of_provider(request.cloud, request.market)
    if narrowed is not None:
        advice = _advise(request, narrowed)
        if advice.plan is not None and advice.plan.priced(advice.request):
            return advice
    params = {"provider": request.cloud}
    if narrowed is not None:
        params["gpus"] = narrowed.rented_by(request.cloud, request.market)
    note = Note(kind="assumption", code="cloud_undelivered" if narrowed else "cloud_unpriced", params=params)
    said = [n for n in request.assumptions if n.code != "cloud_named"]
    request = request.model_copy(update={"assumptions": [*said, note]})
    return _advise(request, book)


def _advise(request: TrainingRequest, book: PriceBook) -> Advice:
    shape = model_shape(request)
    problem = layout_problem(request, candidate_gpus(request))
    if problem is not None:
        reason, values = problem
        raise RequestError("layout", request.lang, reason=reason, **values)
    if request.gpu and request.gpu_count:
        gpu = request_gpu(request)
        try:
            est = best_layout(shape, training_setup(request), gpu, request.gpu_count)
        except ValueError:
            if not request.global_batch:
                raise
            # no split of the count leaves each data-parallel rank a whole micro-batch
            batch = batch_values(request)
            count = request.gpu_count
            if request.grad_accum:
                raise RequestError("layout", request.lang, reason="batch_ranks", count=count, **batch) from None
            raise RequestError("layout", request.lang, reason="batch_split", count=count, **batch) from None
        horizon = horizon_days(request)
        budget = (
            book.convert(request.budget.amount, request.budget.currency, request.currency) if request.budget else None
        )
        plan = with_infrastructure(request, make_plan(request, shape, gpu, est, book, horizon, budget))
        result = PlanResult(best=plan, alternatives=[], considered=1, horizon_days=horizon, conflict=None)
        if not est.fits or not plan.meets_deadline or _mostly_idle_term(plan):
            result.suggestions = suggest(request, shape, book, result)
    else:
        result = search(request, shape, book)
        if request.deadline_days is None and request.tokens:
            request = request.model_copy(
                update={
                    "assumptions": [
                        *request.assumptions,
                        Note(
                            kind="assumption",
                            code="horizon",
                            params={"days": horizon_days(request), "speed": request.speed_first},
                        ),
                    ]
                }
            )
    if result.best is not None and request.stack is None:
        # the framework came with the layout: say which, and how to name the team's own
        est = result.best.estimate
        lay = est.layout
        framework = shown_framework(lay.framework, lay.gpu, lay.tp, lay.pp, request.is_peft)  # what runs it there
        note = Note(kind="assumption", code="stack", params={"framework": framework})
        if est.faster_stack:  # a PEFT job kept on PEFT: what the faster stack would give
            faster, ratio = est.faster_stack
            note = Note(
                kind="assumption",
                code="stack_kept",
                params={"framework": framework, "faster": shown_framework(faster, lay.gpu), "more": ratio - 1},
            )
        elif est.over_peft:  # a PEFT job moved off PEFT: what the stack most LoRA teams run would give
            note = Note(
                kind="assumption",
                code="stack_over_peft",
                params={"framework": framework, "peft": PEFT, "more": est.over_peft - 1},
            )
        request = request.model_copy(update={"assumptions": [*request.assumptions, note]})
    if result.best is not None and result.best.estimate.throughput.dispatcher and request.dispatcher is None:
        # Megatron-Core's MoE token dispatcher came with the GPU (frameworks.token_dispatcher)
        est = result.best.estimate
        note = Note(
            kind="assumption",
            code="dispatcher",
            params={"dispatcher": est.throughput.dispatcher, "gpu": est.layout.gpu},
        )
        request = request.model_copy(update={"assumptions": [*request.assumptions, note]})
    if result.best is not None:  # a team's recorded quote that prices the plan is named as one
        mark_quoted(result.best.costs.price_sources, book, result.best.gpu)
    return Advice(request=request, result=result, warnings=_warnings(request, result))


def render_rfq(result: Advice) -> str | None:
    """A vendor-ready request for quote for the plan: bill of materials, cluster, terms."""
    if result.plan is None:
        return None
    lang = result.request.lang
    return render(
        "rfq.txt.j2",
        lang,
        q=result.request,
        e=result.estimate,
        p=result.plan,
        gpu=catalog.get_gpu(result.plan.gpu),
        a=result,
    )


def render_text(result: Advice, checklist: bool = True) -> str:
    """The whole answer as text; `checklist=False` leaves out the checks before signing (the
    bot posts them in the thread)."""
    lang = result.request.lang
    return render(
        "answer.txt.j2", lang, a=result, r=result.request, e=result.estimate, p=result.plan, checklist=checklist
    )


def render_section(result: Advice, which: str) -> str:
    """One part of the answer on its own: "costs", "alternatives" or "checklist"."""
    lang = result.request.lang
    if result.plan is None:
        return render("answer.txt.j2", lang, a=result, r=result.request, e=None, p=None, checklist=False)
    return render(f"{which}.txt.j2", lang, a=result, r=result.request, e=result.estimate, p=result.plan)


def render_checklist(result: Advice) -> str:
    return render("checklist.txt.j2", result.request.lang, a=result)
