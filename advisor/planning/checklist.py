"""The checks before signing, built from the plan (issue 15): what to test on the servers offered
(their interconnect, the fabric between them, burn-in, storage), a pilot sized to the job, the
contract items, and for a purchase delivery, warranty and compliance.

Each item is a code and its values; templates/checks.j2 words it in the reader's language.
"""

from __future__ import annotations

from advisor import catalog

# nccl-tests reports a "bus bandwidth" comparable with the link speed (nccl-tests
# doc/PERFORMANCE.md). Across servers NCCL runs one ring per NIC, each carrying its share of the
# data, so a healthy all-reduce's bus bandwidth approaches the line rate of a server's NICs
# together, not one GPU's (as engine.throughput.collective_gb_s counts it): Saturn Cloud's
# cluster-validation guide expects 400-450 GB/s on H100 servers with 8 x NDR 400 Gb/s and
# 250-300 GB/s on A100 servers with HDR (saturncloud.io/blog/crusoe-nccl-cluster-validation).
# 80% of that line rate is the acceptance threshold used here (assumed; vendors state their own).
NCCL_BUSBW_SHARE = 0.8


def _busbw_gb_s(gbps_per_gpu: float, rails: int) -> float:
    """The bus bandwidth to accept: a share of the server's NICs' line rate, in GB/s."""
    return gbps_per_gpu * rails / 8 * NCCL_BUSBW_SHARE


# A job shorter than this many hours is its own pilot: a tenth of it says nothing ("about 0 hours";
# assumed: two hours).
PILOT_MIN_JOB_HOURS = 2
# A pilot is never longer than a tenth of the job, and at most this many days.
PILOT_SHARE = 0.1
PILOT_MAX_DAYS = 3
# Porting a CUDA training job to Ascend's CANN stack (torch_npu, MindSpeed), in engineer-weeks:
# assumed. No published figure for training was found: Huawei's migration guide describes a
# one-line automatic migration (hiascend.com, "Automatic Migration"), while one team reports
# three months for an inference port on Atlas 300I (cann.csdn.net/69ef0b9a54b52172bc70476b.html).
ASCEND_PORT_WEEKS = (2, 8)


def pilot_hours(days: float) -> float:
    """The pilot a job of `days` is sized a tenth of, at most PILOT_MAX_DAYS (the checklist's, and
    the price a thread asks of it)."""
    return min(PILOT_MAX_DAYS, days * PILOT_SHARE) * 24


def pilot_gpus(layout) -> int:
    """The GPUs a pilot runs on: the plan's one server, else two of its servers (enough to measure the
    fabric between them without renting the whole cluster for it)."""
    return min(layout.nodes, 2) * layout.gpus_per_node if layout.nodes > 1 else layout.gpu_count


def items(advice) -> list[dict]:
    """The checklist of one answer: [{"code", "params"}], in the order to do them."""
    p, req = advice.plan, advice.request
    if p is None:
        return []
    lay, gpu, costs = p.estimate.layout, catalog.get_gpu(p.gpu), p.costs
    infra = p.infra
    out: list[dict] = []

    def add(code: str, **params) -> None:
        # on GPUs the team has there is no offer, term or lessor: the checks say so (`owned`)
        out.append({"code": code, "params": params | ({"owned": True} if req.owned else {})})

    per_node = lay.gpus_per_node

    def allreduce(gbps: float, rails: int = per_node) -> dict:
        # the all-reduce across every server, held to the servers' NICs together (_busbw_gb_s)
        return {
            "gpus": lay.gpu_count,
            "nodes": lay.nodes,
            "gbps": gbps,
            "rails": rails,
            "busbw": _busbw_gb_s(gbps, rails),
        }

    vendor = (gpu.vendor or "").lower()
    intra = (gpu.intra_node or "").lower()
    if per_node > 1:
        if vendor == "amd":
            add("topo_xgmi", gpus=per_node)
        elif vendor == "huawei":
            add("topo_hccs", gpus=per_node)
        elif "nvlink" in intra or "nvswitch" in intra:
            add("topo_nvlink", gpus=per_node)
        else:
            add("topo_pcie", gpus=per_node, consumer=bool(gpu.consumer))
    huawei = vendor == "huawei"
    if huawei:
        # The stack is CANN (torch_npu, MindSpeed), not CUDA: the code is ported before the term.
        add("ascend_port", low=ASCEND_PORT_WEEKS[0], high=ASCEND_PORT_WEEKS[1])
    elif vendor == "amd":
        # ROCm runs PyTorch, but CUDA-only kernels and libraries a stack may lean on do not
        # (QLoRA's 4-bit library, bitsandbytes, was built for CUDA first; FlashAttention has a
        # separate ROCm port): proved in the pilot, as the Ascend port is
        add("rocm_stack", qlora=req.method == "qlora")
    if lay.nodes > 1 and huawei:
        gbps = (infra.network["inter_node"]["gbps_per_gpu"] if infra else 0) or 0
        add("hccl_allreduce", **allreduce(gbps))
        add("hccn_link", gbps=gbps, ports=per_node)
        add("roce_pfc_ecn")
        add("oversubscription", nodes=lay.nodes)
    elif lay.nodes > 1:
        inter = infra.network["inter_node"] if infra else {}
        offer, own = inter.get("offer") or {}, inter.get("own") or {}
        # the network the team says it has is what the plan runs on: held to it (a server's one link, or
        # each GPU's); else the vendor to the speed its offer states; else to the speed the plan needs
        gbps = (own.get("gbps") if own else None) or offer.get("gbps") or inter.get("gbps_per_gpu") or 0
        gbps = int(gbps) if float(gbps).is_integer() else gbps
        fabric = offer.get("fabric") or ""
        one_link = bool(own.get("per_server"))
        add("nccl_allreduce", **allreduce(gbps, 1 if one_link else per_node), amd=vendor == "amd")
        if fabric in ("ib", "roce", "") and not one_link:  # RDMA verbs; EFA and TCPX: the NCCL test above
            add("ib_write_bw", gbps=gbps, rails=per_node)
        if fabric in ("roce", "") and not one_link:
            add("roce_pfc_ecn")
        add("oversubscription", nodes=lay.nodes)
    if vendor == "nvidia" and not gpu.consumer:
        add("dcgm_diag")
    elif vendor == "amd":
        add("rvs_stress")
    else:  # GeForce cards (DCGM supports data-centre GPUs) and Ascend
        add("burn_in")
    if infra:
        add("fio_read", gb_s=infra.storage_read_gb_per_s, shared=infra.shared_storage == "parallel_fs")
    add("backup")
    days = p.estimate.days
    if days and days * 24 < PILOT_MIN_JOB_HOURS:
        add("pilot_whole_job", hours=round(days * 24, 2))
    elif days:
        profiler = "msprof" if huawei else ("rocprof" if vendor == "amd" else "nsys")
        add("pilot", hours=round(pilot_hours(days), 1), days=days, profiler=profiler)
    else:
        add("pilot_unsized")
    offer = costs.rent_offer or {}
    if req.owned:  # no lease to sign, nothing to buy: the team's own GPUs
        return out
    add("contract_sla")
    add("contract_exit", term=offer.get("min_term_months") or 0, stated=offer.get("term_stated", True))
    add("contract_billing", billing=offer.get("billing") or "")
    if costs.decision == "buy" or req.rent_or_buy == "buy":
        add("buy_delivery")
        add("buy_warranty")
        add("buy_compliance", grey=costs.buy_channel == "grey", gpu=p.gpu)
    return out
