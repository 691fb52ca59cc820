"""One answer to one /gpu request: parse, size, plan, cost; JSON and terminal text.

The CLI and the Slack bot both call `advise`, so they answer the same.
"""

from __future__ import annotations

from pydantic import BaseModel

from advisor import catalog
from advisor.estimate import Estimate, estimate_for
from advisor.parser import parse
from advisor.render import phrase, render
from advisor.request import TrainingRequest
from advisor.shapes import shape_for


class Advice(BaseModel):
    request: TrainingRequest
    estimate: Estimate | None = None
    warnings: list[str] = []

    def to_json(self) -> dict:
        out: dict = {"request": self.request.model_dump(mode="json")}
        e = self.estimate
        if e is None:
            out.update(plan=None, memory_gib_per_gpu=None, training=None, warnings=self.warnings)
            return out
        lay, mem, thr = e.layout, e.memory, e.throughput
        out["plan"] = {
            "gpu": lay.gpu, "gpu_count": lay.gpu_count, "nodes": lay.nodes,
            "gpus_per_node": lay.gpus_per_node, "tp": lay.tp, "pp": lay.pp, "dp": lay.dp,
            "ep": lay.ep, "zero_stage": lay.zero_stage, "offload": lay.offload,
            "recompute": lay.recompute, "micro_batch": lay.micro_batch,
            "global_batch": lay.global_batch, "fits": e.fits,
            "tokens_per_s_per_gpu": thr.tokens_per_s_per_gpu, "mfu": thr.mfu,
        }
        out["memory_gib_per_gpu"] = {
            "weights": mem.weights, "gradients": mem.gradients, "optimizer": mem.optimizer,
            "activations": mem.activations, "other": mem.other, "total": mem.total,
            "usable": e.usable_gib, "host_ram_for_offload": mem.host_ram_gib,
            "arithmetic": mem.lines,
        }
        has_data = e.tokens is not None
        out["training"] = {
            "tokens": e.tokens, "flops": e.flops,
            "mfu": thr.mfu if has_data else None, "hfu": thr.hfu if has_data else None,
            "goodput": thr.goodput if has_data else None,
            "tokens_per_s_per_gpu": thr.tokens_per_s_per_gpu if has_data else None,
            "gpu_hours": e.gpu_hours, "days": e.days,
            "efficiency": thr.efficiency if has_data else None,
            "arithmetic": thr.lines if has_data else None,
        }
        out["warnings"] = self.warnings
        return out


def _warnings(req: TrainingRequest, est: Estimate) -> list[str]:
    lang = req.lang
    out = []
    if not est.fits:
        out.append(phrase(lang, "warning", "no_fit", total=est.memory.total, usable=est.usable_gib,
                          gpu=est.layout.gpu, count=est.layout.gpu_count))
    if req.deadline_days and est.days and est.days > req.deadline_days:
        out.append(phrase(lang, "warning", "deadline", days=est.days, deadline=req.deadline_days))
    if est.memory.host_ram_gib > 0:
        out.append(phrase(lang, "warning", "offload", host=est.memory.host_ram_gib * est.layout.gpus_per_node))
    return out


def advise(text: str, lang: str | None = None) -> Advice:
    request = parse(text, lang)
    if request.gpu is None:
        return Advice(request=request)
    shape = shape_for(request)
    est = estimate_for(request, shape, catalog.get_gpu(request.gpu))
    return Advice(request=request, estimate=est, warnings=_warnings(request, est))


def render_text(result: Advice) -> str:
    lang = result.request.lang
    return render(f"answer.{lang}.txt.j2", a=result, r=result.request, e=result.estimate)
