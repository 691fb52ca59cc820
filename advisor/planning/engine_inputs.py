"""From a parsed request to the engine's inputs: the model's shape and the training setup.

The engine never sees the request (budget, city, language, text) nor reads the catalogue.
"""

from __future__ import annotations

from advisor import catalog
from advisor.engine.estimate import MIN_LAYERS_PER_STAGE
from advisor.engine.frameworks import END_CHUNK_LAYERS_SPARED, MEGATRON, PINNED_MIN_LAYERS_PER_CHUNK, framework_for
from advisor.engine.setup import DEFAULT_LORA_RANK, DEFAULT_LORA_TARGETS, PinnedKnobs, TrainingSetup
from advisor.engine.shapes import generic_shape
from advisor.engine.specs import GPU, ModelShape
from advisor.request.model import PAIRED, REFERENCED, TrainingRequest


def model_shape(request: TrainingRequest) -> ModelShape:
    """The catalogued shape of a named model; a generated one for a bare size."""
    shape = (
        catalog.find_model(request.model) if request.model else generic_shape(request.params_b, request.active_params_b)
    )
    if request.stack == "litgpt" and shape.tied_embeddings:
        # litgpt keeps the output head apart from the embedding: its checkpoint conversion copies
        # the tied embedding into lm_head.weight (litgpt scripts/convert_hf_checkpoint.py)
        return shape.model_copy(update={"tied_embeddings": False})
    return shape


def request_gpu(request: TrainingRequest, name: str | None = None) -> GPU:
    """The GPU type a request plans on (`name`, else the one it names), in servers of the size the
    team said (`4 servers with 4xA100 each`; any type weighed where it named none: `2 servers with
    4 GPUs each`): the catalogue's part with fewer GPUs a server, its
    NVLink domain no larger than the server and the server's power drawn by those GPUs alone."""
    gpu = catalog.get_gpu(name or request.gpu)
    per = request.gpus_per_server
    if not per or per >= gpu.gpus_per_server or (name and request.gpu and name != request.gpu):
        return gpu
    return gpu.model_copy(
        update={
            "gpus_per_server": per,
            "nvlink_domain": min(gpu.nvlink_domain, per),
            "server_power_kw": gpu.server_power_kw * per / gpu.gpus_per_server,
        }
    )


def training_setup(request: TrainingRequest) -> TrainingSetup:
    # a pair is two sequences: the batches the user counts in pairs (TRL's per-device batch counts
    # examples) are twice as many sequences for the engine
    per = 2 if request.preference_tuning in PAIRED else 1
    pinned = PinnedKnobs(
        # Only what the user typed is pinned: offload "none" is the request's default, not a choice.
        zero_stage=request.zero_stage if request.given("zero_stage") else None,
        offload=request.offload if request.given("offload") else None,
        recompute=request.recompute,
        recompute_modules=request.recompute_modules,
        recompute_layers=request.recompute_layers,
        grad_reduce=request.grad_reduce,
        micro_batch=per * request.micro_batch if request.micro_batch else None,
        grad_accum=request.grad_accum,
        tp=request.tp,
        pp=request.pp,
        ep=request.ep,
        etp=request.etp,
        vpp=request.vpp,
        dp=request.dp,
        cp=request.cp,
        hsdp=request.hsdp,
    )
    return TrainingSetup(
        method=request.method,
        precision=request.precision,
        tf32=request.tf32,
        optimizer=request.optimizer,
        moments=request.moments,
        lora_rank=request.lora_rank or DEFAULT_LORA_RANK,
        lora_targets=request.lora_targets or DEFAULT_LORA_TARGETS,
        lora_dropout=request.lora_dropout,
        opt_in_backward=request.opt_in_backward,
        attention="fa2" if request.attention == "fa2" else "best",
        compiled=request.compile,
        cuda_graphs=request.cuda_graphs,
        dispatcher=request.dispatcher,
        # litgpt's scripts always run the head and the loss in chunks (lm_head_chunk_size=128,
        # chunked_cross_entropy in litgpt finetune/lora.py)
        chunked_loss=request.chunked_loss or request.stack == "litgpt",
        bnb_keeps_inputs=request.old_bitsandbytes,
        old_litgpt=request.old_litgpt,
        z3_leaf=not request.no_z3_leaf,
        hf_expert_loop=request.old_transformers,
        # the dispatcher, the recompute modules or layers and bf16 moments are Megatron-Core's:
        # saying one plans on Megatron-Core (refused elsewhere)
        stack=request.stack
        or (
            "megatron"
            if request.dispatcher or request.recompute_modules or request.recompute_layers or bf16_moments(request)
            else None
        ),
        sample_tokens=round(request.tokens_per_sample)
        if request.tokens_per_sample and request.tokens_per_sample < request.seq_len
        else None,
        network_gbps=request.network_gbps,
        network_per_server=request.network_per_server,
        seq_len=request.seq_len,
        global_batch=per * request.global_batch if request.global_batch else None,
        tokens=request.tokens,
        reference_forward=request.preference_tuning in REFERENCED,
        paired=per == 2,
        pinned=pinned,
    )


def bf16_moments(request: TrainingRequest) -> bool:
    """AdamW's moments kept in bf16 beside fp32 master weights: Megatron-Core's precision-aware
    optimizer (megatron/core/optimizer/optimizer_config.py, `use_precision_aware_optimizer`)."""
    return request.moments == "bf16" and request.precision != "pure-bf16"


def batch_values(request: TrainingRequest) -> dict:
    """The batch the user fixed, as the refusals of a global batch and an accumulation word it."""
    return {"gbs": request.global_batch, "ga": request.grad_accum, "mbs": request.micro_batch or 1}


def layout_problem(request: TrainingRequest, gpus: list[GPU] | None = None) -> tuple[str, dict] | None:
    """Why the layout the user fixed (`tp 8`, `pp 4`, `ep 8`, `vpp 2`, `zero3`, `offload`) cannot
    run, as (reason, values), or None. Checked before planning, so a pinned layout is either
    evaluated exactly as given or refused with its reason (CONTRACT section 3). `gpus`: the GPU
    types the planner may use; the request's own when it names one."""
    step = (request.grad_accum or 0) * (request.micro_batch or 1)
    if request.global_batch and step and request.global_batch % step:
        # every data-parallel rank runs ga micro-batches of mbs sequences a step
        return "batch_accum", batch_values(request)
    if request.global_batch and step and not request.gpu_count:
        # both fix the batch only over a known number of data-parallel ranks
        return "batch_accum_count", batch_values(request)
    pins = {k: getattr(request, k) for k in ("tp", "pp", "ep", "etp", "vpp", "dp")}
    if not any(pins.values()) and not (
        request.given("zero_stage")
        or request.given("offload")
        or request.cp
        or request.stack
        or request.dispatcher
        or request.recompute_modules
        or request.recompute_layers
        or request.moments
    ):
        return None
    tp, pp, ep, vpp = (pins[k] or 1 for k in ("tp", "pp", "ep", "vpp"))
    m = model_shape(request)
    setup = training_setup(request)
    kv = m.heads if m.uses_mla else m.kv_heads
    if request.method == "qlora" and (tp > 1 or pp > 1):
        # bitsandbytes' 4-bit base has no tensor- or pipeline-parallel implementation.
        return "qlora_model_parallel", {"tp": tp, "pp": pp}
    if request.gpu:  # the GPU type first: `tp 3` on 8-GPU servers is refused for the servers
        problem = _hardware_problem(request.model_copy(update={"gpu_count": None}), request_gpu(request), tp, pp, ep)
        if problem is not None:
            return problem
    if m.heads % tp or kv % tp:
        return "tp_heads", {"tp": tp, "heads": m.heads, "kv": kv}
    if tp > 1 and not request.cp and request.seq_len % tp:
        # sequence parallelism, on with tp, splits each sequence over the tp ranks (with cp the
        # parser checks both: layout.sequence_multiple)
        fit = request.seq_len // tp * tp or tp
        return "seq_split", {"cp": 1, "tp": tp, "seq": request.seq_len, "multiple": tp, "fit": fit}
    # Stages need not divide the layers evenly (Megatron-Core sets the first and last stages'
    # layers apart, --decoder-first/last-pipeline-num-layers), but each needs a few.
    if pp > 1 and m.layers // pp < MIN_LAYERS_PER_STAGE:
        return "pp_layers", {"pp": pp, "layers": m.layers}
    if ep > 1 and not m.is_moe:
        return "ep_dense", {"ep": ep}
    if ep > 1 and m.moe_experts % ep:
        return "ep_experts", {"ep": ep, "experts": m.moe_experts}
    etp = request.etp
    if etp and not m.is_moe:
        return "etp_dense", {"etp": etp}
    if etp and etp != tp and request.ep == 1:
        # without expert parallelism the experts split like the dense layers (layout.ModelSplit)
        return "etp_needs_ep", {"etp": etp, "tp": tp}
    if request.dispatcher and not m.is_moe:
        return "dispatcher_dense", {"dispatcher": request.dispatcher}
    if request.dispatcher and request.stack not in (None, "megatron"):
        return "dispatcher_framework", {"dispatcher": request.dispatcher, "stack": request.stack}
    if request.moments == "bf16" and (request.optimizer != "adamw" or request.precision == "pure-bf16"):
        # Megatron-Core's precision-aware optimizer runs Adam alone (optimizer_config.py asserts
        # it); pure bf16 keeps the moments in bf16 already
        return "moments_optimizer", {"optimizer": request.optimizer, "precision": request.precision}
    if bf16_moments(request) and request.stack not in (None, "megatron"):
        return "moments_framework", {"stack": request.stack}
    if bf16_moments(request) and request.given("zero_stage") and request.zero_stage == 0:
        # the precision-aware optimizer runs on the distributed optimizer alone (Megatron-LM
        # arguments.py asserts --use-distributed-optimizer with it)
        return "moments_framework", {"stack": request.stack}
    modules = request.recompute_modules or ()
    if "moe_act" in modules and not m.is_moe:
        return "recompute_module_model", {"module": "moe_act"}
    if "mla_up_proj" in modules and not m.uses_mla:
        # Megatron-Core refuses it without MLA (transformer_config.py __post_init__, d98e8a64dd)
        return "recompute_module_model", {"module": "mla_up_proj"}
    if modules and request.stack not in (None, "megatron"):
        return "recompute_modules_framework", {"modules": " ".join(modules)}
    if request.recompute_layers and request.stack not in (None, "megatron"):
        return "recompute_layers_framework", {"layers": request.recompute_layers}
    zeros = [request.zero_stage] if request.given("zero_stage") else [0, 1, 2, 3]
    offload = request.offload if request.given("offload") else "none"
    if vpp > 1 and pp == 1:
        return "vpp_needs_pp", {"vpp": vpp}
    if request.dp and request.gpu_count and request.gpu_count % (request.dp * tp * pp * (request.cp or 1)):
        # the data-parallel ranks times the model-parallel degrees are the GPUs
        return "dp_count", {"dp": request.dp, "count": request.gpu_count, "model": tp * pp * (request.cp or 1)}
    # the embedding and the loss may take the place of a layer in the first and last chunks
    if vpp > 1 and m.layers + END_CHUNK_LAYERS_SPARED < pp * vpp * PINNED_MIN_LAYERS_PER_CHUNK:
        return "vpp_chunks", {"vpp": vpp, "pp": pp, "layers": m.layers, "chunks": pp * vpp}
    if all(framework_for(setup, tp, pp, ep, z, offload) is None for z in zeros) and request.dispatcher:
        return "dispatcher_framework", {"dispatcher": request.dispatcher, "stack": None}
    if all(framework_for(setup, tp, pp, ep, z, offload) is None for z in zeros) and bf16_moments(request):
        return "moments_framework", {"stack": None}
    if all(framework_for(setup, tp, pp, ep, z, offload) is None for z in zeros) and modules:
        return "recompute_modules_framework", {"modules": " ".join(modules)}
    if all(framework_for(setup, tp, pp, ep, z, offload) is None for z in zeros) and request.recompute_layers:
        return "recompute_layers_framework", {"layers": request.recompute_layers}
    if all(framework_for(setup, tp, pp, ep, z, offload) is None for z in zeros) and request.stack:
        return "stack_cannot", {"stack": request.stack, "method": request.method}
    if all(framework_for(setup, tp, pp, ep, z, offload) is None for z in zeros):
        return "no_framework", {
            "zero": zeros[0] if len(zeros) == 1 else None,
            "offload": offload,
            "tp": tp,
            "pp": pp,
            "ep": ep,
            "method": request.method,
        }
    if (
        etp
        and etp > 1
        and (ep > 1 or etp != tp)
        and all(framework_for(setup, tp, pp, max(ep, 2), z, offload) != MEGATRON for z in zeros)
    ):
        # etp > 1 beside expert parallelism is planned on Megatron-Core only (estimate.py)
        return "etp_framework", {"etp": etp}
    if request.gpu:
        gpus = [request_gpu(request)]
    if not gpus:
        return None
    problems = [_hardware_problem(request, g, tp, pp, ep) for g in gpus]
    return None if any(p is None for p in problems) else problems[0]


def _hardware_problem(request: TrainingRequest, gpu: GPU, tp: int, pp: int, ep: int) -> tuple[str, dict] | None:
    domain = max(1, gpu.nvlink_domain)
    if tp > domain and gpu.intra_node != "PCIe":
        # Tensor parallelism all-reduces every layer's activations: inside the NVLink domain; a
        # PCIe card runs it over PCIe among its server's GPUs (advisor/engine/estimate.py
        # `pinned_tp_limit`), and a tp beyond the server straddles servers (`tp_server`, below).
        return "tp_nvlink", {"tp": tp, "gpu": gpu.name, "domain": domain}
    if gpu.gpus_per_server % tp:
        return "tp_server", {"tp": tp, "gpu": gpu.name, "per_server": gpu.gpus_per_server}
    count = request.gpu_count
    if count is None:
        return None
    cp = request.cp or 1
    if count % (tp * pp * cp):
        return "split_count", {"tp": tp * cp, "pp": pp, "count": count, "gpu": gpu.name}
    dp = count // (tp * pp * cp)
    # Experts spread over data-parallel ranks, or folded over tensor and data-parallel ranks
    # together (advisor/engine/layout.py ModelSplit.ep)
    if ep > 1 and (dp % ep if ep <= dp else (tp * dp) % ep):
        return "ep_dp", {"ep": ep, "dp": dp, "count": count, "ranks": tp * dp}
    # Megatron-Core lays expert tensor x expert x expert-data parallel over a stage's tensor x
    # context x data-parallel ranks (parallel_state.py: etp x ep must divide them)
    etp, ranks = request.etp, tp * cp * dp
    if ep > 1 and etp and ranks % (ep * etp):
        return "etp_ranks", {"etp": etp, "ep": ep, "ranks": ranks, "count": count}
    return None
