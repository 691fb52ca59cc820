"""What each server needs besides its GPUs, every figure with the reason for it."""

from __future__ import annotations

import math

from pydantic import BaseModel

from advisor.catalog import GPU
from advisor.engine.estimate import Estimate, hardware_precision
from advisor.engine.throughput import (
    FAILURES_PER_GPU_DAY,
    HOURS_LOST_PER_FAILURE,
    estimate_throughput,
    nic_ceiling_gbps,
    team_gbps_per_gpu,
)
from advisor.market.owning import is_workstation
from advisor.market.store import CLUSTER_FABRICS
from advisor.planning.engine_inputs import model_shape, training_setup
from advisor.request.model import TrainingRequest

# At least 8 vCPUs per GPU so data loading never starves the GPU (source guide, Shenzhen);
# 12 for pre-training, whose loaders stream and tokenise more data per GPU-hour (assumed),
# plus 8 per GPU for the CPU optimizer step when states are offloaded (DeepSpeed CPU Adam).
VCPU_PER_GPU = 8
VCPU_PER_GPU_PRETRAIN = 12
VCPU_OFFLOAD_EXTRA = 8
# Host RAM at least twice the node's GPU memory (source guide, Shenzhen), plus offloaded
# states and 10% for pinned transfer buffers (assumed).
RAM_PER_GPU_MEMORY = 2.0
# ... up to what 8-GPU servers ship with, enough for a job that offloads nothing: 2 TB (NVIDIA DGX
# H100/H200 and DGX B200 user guides: 2 TB of DDR5, the B200 upgradable to 4 TB; the 2x rule had
# asked 2,880 GiB of a B200 server for a 3B model).
RAM_SHIPPED_GIB = 2048
OFFLOAD_PINNED_MARGIN = 0.1
# Parallel file system floor of 2 GB/s read (source guide, Shenzhen), three times the
# average dataset read rate for bursts, and writing a full checkpoint within 5 minutes.
STORAGE_FLOOR_GB_S = 2.0
STORAGE_READ_BURST = 3
CHECKPOINT_WRITE_S = 300
# Across servers the 5-minute write lands on each server's NVMe (the two local checkpoints sized
# below) and drains to shared storage in the background before the next one: NVIDIA Resiliency
# Extension's local and asynchronous checkpointing. Shared storage then takes a whole checkpoint
# in the interval, the half hour lost per failure in the engine's goodput (an interval of about
# that); a 671B model's checkpoint had sized 275 TB of parallel file system, a third of the rent.
CHECKPOINT_DRAIN_S = HOURS_LOST_PER_FAILURE * 3600
# What one save costs the run in lost training: a synchronous save stops every GPU for its whole
# write (CHECKPOINT_WRITE_S); an asynchronous one (PyTorch DCP async_save with a background process)
# stopped them 0.78 s to stage and then ran them at 372 of 700 tokens/s for about 67 s (PyTorch blog
# "6x faster Async Checkpointing in PyTorch", 2025-04-30: Llama 3 70B on 1,856 H200, TorchTitan),
# about 32 s of training.
ASYNC_SAVE_COST_S = 0.78 + 67 * (1 - 372 / 700)
# Local NVMe caches the dataset with 20% more for shards and indexes (assumed), while the whole
# fits the NVMe an 8-GPU server ships with (NVIDIA DGX H100: 8 x 3.84 TB U.2 for data cache);
# a larger dataset streams from the parallel file system and each server caches its share.
NVME_CACHE_MARGIN = 0.2
LOCAL_CACHE_MAX_TB = 8 * 3.84
# The inter-node network is the cheapest that costs under 5% of training speed (assumed).
NETWORK_SPEED_TOLERANCE = 0.05
# Checkpoint bytes per parameter: bf16 weights + fp32 master + two fp32 moments = 14
# (optimizer states dominate; ZeRO paper byte counts).
CHECKPOINT_BYTES = {"full": 14, "peft": 2}
# Usable rack power: legacy Chinese city-centre racks give 8-10 kW (source guide, Chengdu);
# AI-ready rows give 30 kW and more.
LEGACY_RACK_KW = 10
DENSE_RACK_KW = 40


class Infrastructure(BaseModel):
    """Figures per server, and under `reasons` the numbers behind each (worded by
    templates/explain.j2). `shared_storage`, `cooling` and the fabric are keys."""

    cpu_cores_per_node: int
    ram_gib_per_node: int
    nvme_tb_per_node: float
    storage_read_gb_per_s: float
    shared_storage: str  # "local_nvme" | "parallel_fs"
    network: dict  # intra_node (fabric, gb_s), inter_node (gbps per GPU, or 0 for one server)
    power_kw_per_node: float
    servers_per_rack: int
    rack_kw: float
    cooling: str  # "air" | "liquid"
    reasons: dict[str, dict]


def _round_up(x: float, step: float) -> float:
    return math.ceil(x / step) * step


def size_network(req: TrainingRequest, gpu: GPU, est: Estimate) -> tuple[int, list[dict]]:
    """The cheapest inter-node bandwidth per GPU that costs under 5% of speed, from the plan's
    own communication terms (advisor/engine/throughput.py: data parallel, ZeRO gathers, MoE
    all-to-all, pipeline sends); with each option's share of step time left to compute."""
    shape, (setup, _) = model_shape(req), hardware_precision(training_setup(req), gpu)
    options = []
    speeds = (("roce100", 100), ("roce200" if gpu.nic_fabric == "roce" else "hdr200", 200), ("ndr400", 400))
    for name, gbps in [(n, g) for n, g in speeds if g <= nic_ceiling_gbps(gpu)]:
        thr = estimate_throughput(shape, setup, est.layout, gpu, name)
        options.append({"gbps": gbps, "speed": thr.tokens_per_s_per_gpu, "share": 1 - thr.exposed_comm_share})
    fastest = max(o["speed"] for o in options)
    chosen = next((o for o in options if o["speed"] >= (1 - NETWORK_SPEED_TOLERANCE) * fastest), options[-1])
    return chosen["gbps"], [{"gbps": o["gbps"], "share": o["share"]} for o in options]


class StorageNeed(BaseModel):
    """What the job keeps and reads: the dataset, one checkpoint, the rates the whole job reads
    its data and writes a checkpoint at (what shared storage must sustain in all), and what
    each server must reach: the largest of the floor and its share of those rates (every rank
    reads its own batches and writes its own checkpoint shard)."""

    data_bytes: float
    checkpoint_bytes: float
    dataset_read_gb_s: float
    write_gb_s: float  # what shared storage must take in all
    write_s: float  # in how long: drained from the servers' NVMe, or written straight on one server
    read_gb_s: float  # each server's
    local_write_gb_s: float = 0.0  # each server's NVMe, where the checkpoint drains from


def storage_need(req: TrainingRequest, est: Estimate) -> StorageNeed:
    params = est.memory.trainable_params if req.is_peft else None
    ckpt_bytes = (params or 0) * 16 if req.is_peft else req.params_b * 1e9 * CHECKPOINT_BYTES["full"]
    data_bytes = (req.unique_tokens or 0) * (req.bytes_per_token or 4.0)
    read = 0.0
    if est.days and req.tokens:
        read = req.tokens * (req.bytes_per_token or 4.0) / (est.days * 86400) / 1e9 * STORAGE_READ_BURST
    nodes = est.layout.nodes
    write_s = CHECKPOINT_DRAIN_S if nodes > 1 else CHECKPOINT_WRITE_S
    write = ckpt_bytes / write_s / 1e9
    return StorageNeed(
        data_bytes=data_bytes,
        checkpoint_bytes=ckpt_bytes,
        dataset_read_gb_s=read,
        write_gb_s=write,
        write_s=write_s,
        read_gb_s=round(max(STORAGE_FLOOR_GB_S, read / nodes, write / nodes), 1),
        local_write_gb_s=ckpt_bytes / nodes / CHECKPOINT_WRITE_S / 1e9 if nodes > 1 else 0.0,
    )


class CheckpointCadence(BaseModel):
    """How often the job should save, from its own chance of interruption: hours between
    interruptions on its GPUs, the number expected over the run, the interval for a synchronous
    and for an asynchronous save, and the hours an asynchronous cadence costs over the run."""

    mtbf_h: float
    interruptions: float
    sync_every_h: float
    async_every_h: float
    drain_floor: bool  # the asynchronous interval held at the drain to shared storage
    async_lost_h: float  # saves plus the work redone after the expected interruptions


def checkpoint_cadence(gpus: int, run_hours: float, nodes: int) -> CheckpointCadence:
    """Young's interval, T = sqrt(2 x a save's cost x the mean time between interruptions)
    (J. W. Young, "A first order approximation to the optimum checkpoint interval", CACM 17(9),
    1974), on the job's interruptions at Llama 3's rate (FAILURES_PER_GPU_DAY). Across servers an
    asynchronous save is held to one per drain of the last to shared storage (CHECKPOINT_DRAIN_S).
    The hours lost: each save's cost, and half an interval redone per interruption (a restart's own
    time comes on top)."""
    mtbf_h = 24 / (FAILURES_PER_GPU_DAY * gpus)
    sync_h = math.sqrt(2 * CHECKPOINT_WRITE_S / 3600 * mtbf_h)
    async_h = math.sqrt(2 * ASYNC_SAVE_COST_S / 3600 * mtbf_h)
    floor_h = CHECKPOINT_DRAIN_S / 3600 if nodes > 1 else 0.0
    held = async_h < floor_h
    async_h = max(async_h, floor_h)
    interruptions = run_hours / mtbf_h
    lost = run_hours / async_h * ASYNC_SAVE_COST_S / 3600 + interruptions * async_h / 2 if async_h < run_hours else 0.0
    return CheckpointCadence(
        mtbf_h=mtbf_h,
        interruptions=interruptions,
        sync_every_h=sync_h,
        async_every_h=async_h,
        drain_floor=held,
        async_lost_h=lost,
    )


def plan_infrastructure(req: TrainingRequest, gpu: GPU, est: Estimate, offer: dict | None = None) -> Infrastructure:
    """`offer`: the rent priced (costs.Costs.rent_offer); the fabric it states is the one named."""
    lay = est.layout
    per_node = lay.gpus_per_node
    reasons: dict[str, dict] = {}

    vcpu = VCPU_PER_GPU_PRETRAIN if req.method in ("pretrain", "continued-pretrain") else VCPU_PER_GPU
    if lay.offload != "none":
        vcpu += VCPU_OFFLOAD_EXTRA
    cores = int(_round_up(vcpu * per_node, 16))
    reasons["cpu"] = {"vcpu_per_gpu": vcpu, "gpus": per_node}

    gpu_mem = gpu.usable_memory_gib * per_node
    offload = est.memory.host_ram_gib * per_node
    by_rule = RAM_PER_GPU_MEMORY * gpu_mem
    ram = int(_round_up(max(min(by_rule, RAM_SHIPPED_GIB), 64) + offload * (1 + OFFLOAD_PINNED_MARGIN), 64))
    reasons["ram"] = {
        "gpu_memory_gib": gpu_mem,
        "offload_gib": offload,
        "factor": RAM_PER_GPU_MEMORY,
        "shipped_gib": RAM_SHIPPED_GIB if by_rule > RAM_SHIPPED_GIB else None,
    }

    need = storage_need(req, est)
    ckpt_bytes, data_bytes, storage = need.checkpoint_bytes, need.data_bytes, need.read_gb_s
    cache_tb = (data_bytes / 1e12) * (1 + NVME_CACHE_MARGIN)
    share = cache_tb > LOCAL_CACHE_MAX_TB and lay.nodes > 1
    if share:
        cache_tb /= lay.nodes
    nvme = _round_up(max(2.0, cache_tb + 2 * ckpt_bytes / 1e12 / lay.nodes), 0.5)
    reasons["nvme"] = {
        "data_tb": data_bytes / 1e12,
        "checkpoint_tb": ckpt_bytes / 1e12,
        "cache_margin": NVME_CACHE_MARGIN,
        "share": share,
    }

    reasons["storage"] = {
        "floor_gb_s": STORAGE_FLOOR_GB_S,
        "read_gb_s": need.dataset_read_gb_s,
        "checkpoint_tb": ckpt_bytes / 1e12,
        "write_gb_s": need.write_gb_s,
        "write_s": need.write_s,
        "local_write_gb_s": need.local_write_gb_s,
        "local_write_s": CHECKPOINT_WRITE_S,
        "read_burst": STORAGE_READ_BURST,
        "nodes": lay.nodes,
    }

    network = {
        "intra_node": {"fabric": gpu.intra_node, "gb_s": gpu.intra_node_bw_gb_s},
        "nodes": lay.nodes,
        "inter_node": {"gbps_per_gpu": 0, "tbps_per_node": 0},
    }
    if lay.nodes > 1:
        gbps, options = size_network(req, gpu, est)
        network["inter_node"] = {
            "gbps_per_gpu": gbps,
            "tbps_per_node": gbps * per_node / 1000,
            "fabric": gpu.nic_fabric or None,  # a GPU sold on one fabric only (Ascend: RoCE)
            "asked": req.fabric,  # the fabric the team asked for (`infiniband`, `roce`)
        }
        if req.network_gbps:
            # the team's own network, planned on: said as what the job runs on, beside what it needs
            own = team_gbps_per_gpu(training_setup(req), gpu)
            network["inter_node"]["own"] = {
                "gbps_per_gpu": own,
                "gbps": req.network_gbps,
                "per_server": req.network_per_server,
                "share": 1 - est.throughput.exposed_comm_share,
            }
        if offer and offer.get("interconnect") in CLUSTER_FABRICS:
            # what the priced offer comes with, said beside what the job needs (a plan priced on an
            # InfiniBand 400 offer had named RoCE at 100 Gb/s and asked ib_write_bw for 100)
            network["inter_node"]["offer"] = {
                "fabric": offer["interconnect"],
                "gbps": offer.get("interconnect_gbps") or None,
                "provider": offer.get("provider") or "",
            }
        reasons["network"] = {"options": options, "chosen": gbps, "tolerance": NETWORK_SPEED_TOLERANCE}
    # a workstation of a few PCIe cards draws their share of a server's power (costs.py prices the same)
    workstation = is_workstation(gpu, lay.gpu_count)
    power = gpu.server_power_kw * (per_node / gpu.gpus_per_server if workstation else 1)
    servers_per_rack = max(1, int(DENSE_RACK_KW // power))
    reasons["power"] = {
        "workstation": workstation,
        "kw": power,
        "legacy_kw": LEGACY_RACK_KW,
        "legacy_fit": int(LEGACY_RACK_KW // power),
        "dense_kw": DENSE_RACK_KW,
        "dense_fit": servers_per_rack,
    }
    return Infrastructure(
        cpu_cores_per_node=cores,
        ram_gib_per_node=ram,
        nvme_tb_per_node=nvme,
        storage_read_gb_per_s=storage,
        shared_storage="local_nvme" if lay.nodes == 1 else "parallel_fs",
        network=network,
        power_kw_per_node=power,
        servers_per_rack=servers_per_rack,
        # what one rack must carry for this plan: its servers, up to a dense rack's worth (a one-server
        # order had asked the vendor for a 39 kW rack)
        rack_kw=min(DENSE_RACK_KW, min(servers_per_rack, max(1, lay.nodes)) * power),
        cooling="liquid" if power > 12 or gpu.tdp_w >= 1000 else "air",
        reasons=reasons,
    )
