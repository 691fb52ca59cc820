"""Training FLOPs, achieved throughput and wall time.

FLOPs per token: 6*N for forward and backward over the N parameters a token passes through
(Kaplan et al. 2020; active parameters for MoE), plus 12*L*s*q for attention scores and
values (Narayanan et al. 2021, eq. 3; Chowdhery et al. 2022 App. B). LoRA and QLoRA skip the
weight-gradient matmuls of the frozen base, so they cost 4*N. Full recompute runs the
forward twice (hardware FLOPs 8*N instead of 6*N, Narayanan et al. 2021).

Achieved speed is the time of one optimizer step on one GPU, added up term by term (in
`Throughput.step`, seconds):
  compute:  m micro-batches, each at the roofline efficiency of one GPU (`node`: matmul
            efficiency and the share of memory-bound kernels, which grows with the GPU's
            FLOP/byte ratio and shrinks with the hidden size);
  bubble:   the (interleaved) 1F1B pipeline bubble, (p-1)/v micro-batch times (Narayanan
            et al. 2021, Sec 2.2);
  tensor:   Megatron's tensor-parallel all-reduces over NVLink, every micro-batch;
  pipeline: stage-to-stage sends, every micro-batch;
  data:     gradient reduction once a step (DDP, ZeRO-1) hidden behind the last backward, or
            ZeRO-3/FSDP's parameter gathers and gradient reduce-scatters every micro-batch,
            hidden behind each; routed experts' all-to-all (MoE) every MoE layer;
  offload:  PCIe transfers and the CPU optimizer step of ZeRO-Offload;
  scale:    stragglers of synchronous training, slowly growing with the node count.
Only the part of each communication term that compute does not hide counts.
Goodput then removes time lost to failures, restarts and checkpoints, at the failure rate
Meta measured on 16,384 H100s (Llama 3 paper, Sec 3.3.4: 419 unexpected interruptions in
54 days, i.e. 4.7e-4 per GPU-day).
"""

from __future__ import annotations

import math

from pydantic import BaseModel

from advisor.engine.frameworks import DEEPSPEED, HF, LITGPT, MEGATRON, PEFT, token_dispatcher
from advisor.engine.layout import ModelSplit
from advisor.engine.memory import NF4_BYTES, attention_kernel, lora_params, shard_ranks
from advisor.engine.roofline import HF_MODEL_CODE, LORA_TARGETS, StageTime, stage_time
from advisor.engine.setup import TrainingSetup
from advisor.engine.shapes import ParamCounts, active_count, count_params
from advisor.engine.specs import GPU, ModelShape

# What each framework loses beyond the operators' roofline (advisor/engine/roofline.py): gaps
# between kernels, the load imbalance of real data. Fitted by bench/fit.py on the named
# calibration rows of each framework the search picks (2026-12-01): refitted alone, Megatron-
# Core 0.76 over 10 rows (InternLM, NeMo, TinyLlama, Megatron GPT 462B, Llama 2 7B...) and
# FSDP2 0.76 over 28 (torchtitan, fms-fsdp, llm-foundry, LLaMA, OPT, BLOOM), with eager
# PyTorch's unfused operators counted in the roofline (UNFUSED_PASSES 2), so one shared factor,
# fitted again with STEP_OVERHEAD_S below; DeepSpeed and the HF stacks have no row of their own
# (NeMo's LoRA row runs on Megatron).
FRAMEWORK_EFFICIENCY = {
    "Megatron-Core": 0.76,
    "FSDP2/torchtitan": 0.76,
    "litgpt/Lightning Fabric": 0.76,
}
FRAMEWORK_EFFICIENCY_DEFAULT = 0.76
# The stacks that run the Hugging Face model code (HF Trainer/TRL, PEFT, DeepSpeed) are measured
# instead, on a lent H200 (docs/device-h200.md, 2026-12-04): with their element-wise passes counted
# as measured there (roofline.HF_EAGER_PASSES), the roofline's time over the measured step of HF
# Trainer runs whose GPU never waited on the host (micro-batches of 4 and 8: Llama 3.2 3B full
# 0.96-0.98, Llama 3.1 8B LoRA 0.95, Qwen3-30B-A3B LoRA 0.89): 0.95. Their kernels' gaps stay the
# same compiled, whose fused kernels the roofline counts (roofline.unfused_passes).
HF_MEASURED_EFFICIENCY = 0.95
# Megatron-Core's MoE layer waits for the host once a layer: its token dispatcher copies the
# number of tokens per expert to the host (the all-to-all splits and the m_splits of Transformer
# Engine's GroupedLinear are host lists; megatron/core/transformer/moe/token_dispatcher.py), so
# the GPU cannot run ahead of the launches that follow. GroupedLinear then runs one cuBLAS GEMM
# per local expert (general_grouped_gemm over multi-stream cuBLAS) and, in FP8, quantizes each
# expert's input apart. So each local expert costs host time a layer and micro-batch, whatever
# its token count: its two GEMMs (gate/up and down) forward, again under full recompute, and
# twice backward (input and weight gradients; once for a frozen expert under LoRA), plus in
# FP8 a cast before each. Megatron-Core's MoE report names this host-boundedness (arXiv
# 2603.07685, "Compute Wall"). 20 us a launch of
# eager PyTorch through TE is assumed, not fitted on the calibration set, which has no MoE
# throughput row; it was chosen after reading Megatron-Bridge's table (docs/accuracy.md).
MEGATRON_EXPERT_LAUNCH_S = 20e-6
EXPERT_GEMMS = 2
# The stacks that run a Hugging Face model as written (HF Transformers/TRL and PEFT, DeepSpeed
# on HF models) loop over the experts in Python on transformers 4 (`request.old_transformers`);
# litgpt's LLaMAMoE always does. transformers' eager MoE block as teams ran it through 2025
# (Qwen3MoeSparseMoeBlock.forward, huggingface/transformers 00d4b3d2, the 4.57 line; Qwen2-MoE
# and Mixtral alike), for each expert that got tokens:
# `self.experts[expert_idx]` indexes a ModuleList with a tensor (operator.index, a .item()) and
# `torch.where` on the expert's routing mask is a nonzero: two host syncs, after which the GPU has
# emptied its queue and waits for each launch, so host and GPU time add up. Then 13 kernels: the
# mask row, nonzero's count and select, the token gather, the gate, up and down GEMMs, SiLU and
# the product, the routing-weight gather and scale, and index_add_. transformers 5 keeps a layer's
# experts in two 3-D parameters and runs them through PyTorch's grouped_mm, its default experts
# implementation (PreTrainedModel.get_correct_experts_implementation; integrations/moe.py
# grouped_mm_experts_forward: a sort, a histogram and two grouped GEMMs, no host sync; PR
# #42697, 2025-12), which the roofline counts as any grouped expert GEMM; Unsloth reports it
# about 6x faster at MoE training than transformers 4 (unsloth.ai/docs/new/faster-moe, Feb
# 2026). LLaMA-Factory installs it (pyproject.toml at 2afcccb1: transformers>=4.55.0,<=5.8.0),
# so a plan assumes transformers 5 unless the team says 4.
EAGER_EXPERT_LOOP = (PEFT, HF, DEEPSPEED)
EAGER_EXPERT_OPS = 13
EAGER_EXPERT_SYNCS = 2
# Autograd runs about two kernels for each of those (PyTorch tools/autograd/derivatives.yaml):
# a GEMM's input and weight gradients, a product's two operand gradients and their sum over the
# broadcast, and for each gather (index) a zero-filled gradient of the whole source and an
# index_put with sort, then an add that sums it into the source's gradient. It syncs nowhere.
EAGER_BACKWARD_OPS_PER_OP = 2
# LoRA on an expert's three projections adds 4 kernels to each (A, B, scale, add).
LORA_OPS_PER_LINEAR = 4
EXPERT_LINEARS = 3
# DeepSpeed ZeRO-3 hooks every submodule that owns parameters, unless a module above it is a
# "leaf" (deepspeed.utils.set_z3_leaf_modules, DeepSpeed PR #4966): then each expert's three
# nn.Linear are fetched (all-gathered) and released one by one, in the forward, again in the
# recompute and in the backward (fetch_sub_module, release_sub_module in
# deepspeed/runtime/zero/partitioned_param_coordinator.py at 00a31c99), and the host waits on
# the oldest fetch whenever more than two are in flight (`__max_ongoing_fetch_events = 2`), so
# each fetch costs its hooks' Python and a few-MB all-gather's latency, which the tiny expert
# GEMMs cannot hide. 250 us a fetch and release, assumed (no published profile read;
# coalescing such fetches gave 40% more speed on a 64-expert model, DeepSpeed PR #6649, HPU).
# LLaMA-Factory marks the MoE blocks of Mixtral, Qwen2/3-MoE, DeepSeek-V2/V3 and others as leaves
# (src/llamafactory/model/model_utils/moe.py add_z3_leaf_module), ms-swift since 3.9.0
# (2025-10-14: swift/llm/model/register.py deepspeed_set_z3_leaf_modules, #6080) and DeepSpeed
# itself for Mixtral and Qwen MoE classes by default since PR #7604 (2025); a plan assumes a
# leaf unless the team says it has none (`no-z3-leaf`): ms-swift's own DeepSpeed benchmark of
# Qwen3-30B-A3B (June 2025, before #6080) ran 91.2 s/it against Megatron's 9.6
# (docs/source_en/Megatron-SWIFT/Quick-start.md).
ZERO3_HOOKED = (PEFT, HF, DEEPSPEED)
ZERO3_MODULE_FETCH_S = 250e-6
# The HF stacks run the model's forward in Python, one module at a time, under autocast (and
# again under full recompute), so a small micro-batch leaves the GPU waiting on the host: Llama
# 3.1 8B LoRA at one sequence of 2,048 tokens kept a lent H200 busy 75-80% of its 326-352 ms
# step (docs/device-h200.md, 2026-12-04). Kernels a layer's forward launches, counted there
# (11,403-12,245 a step; full recompute runs the forward twice and autograd about two
# kernels for each, as EAGER_BACKWARD_OPS_PER_OP): 55 for a Llama layer (Llama 3.2 3B: 222 a
# layer and step), 5 more for each LoRA-adapted linear (PEFT's cast, A, B, scale, add), 48
# more for transformers 5's grouped MoE block (Qwen3-30B-A3B: 486-509 a layer and step), 14
# more where each query and key head has its own RMSNorm (two of LlamaRMSNorm's seven). The
# backward's kernels are launched by autograd's C++ engine, which runs ahead of the GPU (assumed
# hidden). Host and GPU overlap but not wholly: where their times are close each waits on the
# other (a step of 263 ms of GPU work and about as much host work took 326-352 ms), so the step
# is their smooth maximum, (gpu^3 + host^3)^(1/3): 45 us a forward kernel and the power 3
# fitted on the 14 HF steps measured there (median 3%, worst 11%; a pure maximum at 59 us had
# missed a Qwen2.5 7B step of 1,024 tokens by 25%).
HF_FORWARD_KERNELS = 55
HF_ADAPTER_KERNELS = 5
HF_MOE_KERNELS = 48
HF_QK_NORM_KERNELS = 14
HF_FORWARD_KERNEL_S = 45e-6
HOST_OVERLAP_POWER = 3


def runs_expert_loop(framework: str, setup: TrainingSetup) -> bool:
    """Whether the stack runs the experts one by one in Python: litgpt always, the stacks that
    run the Hugging Face model on transformers 4."""
    return framework == LITGPT or (framework in EAGER_EXPERT_LOOP and setup.hf_expert_loop)


# Failures per GPU-day (Llama 3 paper, Sec 3.3.4) and hours lost per failure. Meta kept more
# than 90% effective training time on 16K GPUs with automated restarts, i.e. about 0.3 h lost
# per failure; 0.5 h allows for a team with automatic restart and frequent checkpoints.
# Manual recovery costs hours per failure: the answer says so.
FAILURES_PER_GPU_DAY = 419 / (54 * 16384)
HOURS_LOST_PER_FAILURE = 0.5
# Share of time spent writing checkpoints (asynchronous checkpointing keeps it small).
CHECKPOINT_OVERHEAD = 0.02
# Share of a micro-batch's compute that bucketed communication hides behind: gradient
# buckets reduce while the backward goes on (PyTorch DDP buckets, Li et al. 2020; Megatron
# overlap_grad_reduce) and ZeRO-3/FSDP prefetches the next layer's parameters during the
# current layer (Zhao et al. 2023, PyTorch FSDP, Sec 3.3). Not all of it hides: streams
# compete for SMs and memory bandwidth (assumed 0.8).
COMM_OVERLAP = 0.8
# Share of tensor-parallel communication left exposed (Megatron overlaps some with compute;
# assumed half).
TP_EXPOSED = 0.5
# Ring attention's passes of K and V per layer: forward 1, backward 2 (K/V again and their
# gradients; Liu et al. 2023).
CP_PASSES = 3
# Pipeline point-to-point sends are on the critical path of 1F1B; Megatron overlaps them
# with compute only in the interleaved schedule (overlap_p2p_comm; assumed half exposed).
PP_P2P_EXPOSED = 0.5
# MoE token dispatch and combine: half exposed where the stack can overlap them (assumed: NVIDIA's
# recipes turn Megatron-Core's EP overlap on for some runs and off for others, Megatron-Bridge
# scripts/performance/configs/qwen/qwen3_workload_base_configs.py: moe_a2a_overlap True for Qwen3
# 235B on H100, False for Qwen3 30B on H100 and 235B on B200; DeepSeek-V3's DualPipe hides nearly
# all of it); all of it where Megatron-Core cannot (`moe_a2a_exposed`).
MOE_A2A_EXPOSED = 0.5
# Time every synchronous step waits for its slowest rank: each rank's host-side hiccups (data
# loader hand-off, garbage collection, OS jitter, gradient-norm and loss all-reduces) add up
# to a random delay a step, and the step waits for the largest of N of them, which grows as
# ln N for exponential tails (order statistics; the straggler effect of synchronous SGD, Chen
# et al. 2016, "Revisiting Distributed Synchronous SGD"). Servers and the GPUs inside one are
# counted apart: the ranks of one server share its host, clock and PCIe switches, and wait on
# no network, so they drift apart far less than servers do. Seconds per step:
# STEP_OVERHEAD_S + STEP_JITTER_NODE_S * ln(servers) + STEP_JITTER_GPU_S * ln(GPUs a server).
# Inside a server, measured: nanoGPT's GPT-2 124M under DDP on 8 A100 takes 130-150 ms a step
# at one micro-batch of 12 sequences and 560 ms at five (karpathy/nanoGPT issue #110, 2023-02),
# so about 30 ms a step beyond its micro-batches: 0.015 s x ln 8. Across servers no source read
# measures it: fitted with the framework factor on all calibration rows, the in-server term held
# at that (bench/fit.py, 2026-12-07: its grid is flat from 0.08 to 0.10 s; 0.08 s gives throughput
# 9% and time 16% median in bench/accuracy.py's calibration summary). One term
# over all GPUs (0.06 s x ln GPUs, fitted the same way on 2026-12-01) had charged one 8-GPU
# server 0.125 s a step: GPT-2 124M on 8 H100 at half a million tokens a step came out at 21%
# MFU and 1.4 hours for 10B tokens, where llm.c ran it in 45 minutes (KellerJordan/modded-nanogpt
# README). Without any term, small models on many servers, whose steps are short, came out up
# to 6x fast.
STEP_OVERHEAD_S = 0.0
STEP_JITTER_NODE_S = 0.08
STEP_JITTER_GPU_S = 0.015
# CUDA graphs (`cuda-graphs`: Megatron-Core's --cuda-graph-impl local|transformer_engine, formerly
# --enable-cuda-graph / --external-cuda-graph, NeMo's enable_cuda_graph) replay a layer's or a whole
# iteration's kernels from one host call, so a rank's GPU no longer waits on its host issuing each
# kernel. What they take from the jitter above: the launch timing that CPU load and the OS make
# "unpredictable", which skews the ranks against each other at every collective ("With CUDA graphs,
# kernels are clustered together so that performance is consistent across ranks": PyTorch blog,
# "Accelerating PyTorch with CUDA Graphs", 2021, NCCL section; BERT on 4,096 A100 ran 1.12x faster,
# Mask R-CNN on 272 1.70x), and host pauses (garbage collection, interrupts) that land while the
# captured passes run. What they leave: host work outside the graph once a step (the data
# loader's hand-off, the loss and gradient-norm reductions and the optimizer outside per-layer
# graphs) with the OS noise and slow nodes that strike it. No source read measures the split of
# the fitted jitter between the two: half assumed (two of the four sources named above), so a
# graphed step keeps JITTER_LEFT_BY_GRAPHS of it. The kernels' own gaps stay in the framework
# factor (the blog: a replay runs kernels "slightly faster", the host's overhead is the gain).
# A dropless MoE's per-expert launches (`expert_launch_s`) stay too: Megatron-Core captures the
# expert compute only for drop-and-pad MoE (megatron/training/arguments.py validate_args: "moe cuda
# graph is only supported with drop-padding MoE"; moe_preprocess not where it copies to the host).
JITTER_LEFT_BY_GRAPHS = 0.5
# Stragglers: efficiency lost per doubling of the node count (assumed 1%).
STRAGGLER_PER_DOUBLING = 0.01
# Inter-node bandwidth per GPU, GB/s, one direction: one 400 Gb/s NDR NIC per GPU for H100-
# class clusters, 200 Gb/s HDR for A100-class (DGX H100 / DGX A100 reference designs), 100 Gb
# RoCE for consumer cards.
NETWORK_GBPS = {"ndr400": 50.0, "hdr200": 25.0, "roce200": 25.0, "roce100": 12.5}
# The most a GPU's NIC carries is what its host's PCIe feeds: a 400 Gb/s ConnectX-7 port needs
# PCIe Gen5 x16 (NVIDIA ConnectX-7 datasheet); Gen4 x16 (about 252 Gb/s a direction) feeds a
# 200 Gb/s HDR port, as in the DGX A100 reference design; Gen3 x16 a 100 Gb/s one.
NIC_GBPS_BY_PCIE_GEN = {5: 400, 4: 200, 3: 100}
# ZeRO-Offload: host-device copies over PCIe and DeepSpeed's CPU Adam (Ren et al. 2021)
# at about 1e9 parameters a second per GPU's share of cores (assumed). Each PCIe generation doubles
# the last's transfer rate (PCI-SIG: 8, 16, 32 and 64 GT/s a lane for Gen3 to Gen6), so Gen6
# (the B300's host link) is twice Gen5's figure.
PCIE_GBPS = {3: 12.0, 4: 25.0, 5: 50.0, 6: 100.0}
PCIE_GBPS_UNKNOWN_GEN = 25.0  # assumed PCIe 4
CPU_ADAM_PARAMS_PER_S = 1e9
# Offload traffic per trainable parameter and step: 16-bit gradients out and 16-bit weights
# back (Ren et al. 2021, ZeRO-Offload: 2M + 2M bytes for M parameters). With offload "all"
# the weights come in, as stored, for every pass over them: each micro-batch's forward (twice
# under full recompute) and its backward, since ZeRO-3 frees a layer's gathered weights after
# use (ZeRO-Infinity, Rajbhandari et al. 2021, Sec 5: parameters fetched per layer, per pass);
# prefetching hides that stream behind the micro-batch's compute as far as COMM_OVERLAP allows.
OFFLOAD_BYTES_PER_PARAM = 4
# A step makes three matmul passes over the weights per token (forward, input gradient,
# weight gradient), 2 FLOPs a multiply-add each: 6N (Kaplan et al. 2020). LoRA and QLoRA skip
# the weight-gradient matmul of the frozen base (4N). Full recompute adds a second forward,
# 2N more and one pass of the attention's three (Narayanan et al. 2021: 8N instead of 6N).
FLOPS_PER_PARAM_FULL, FLOPS_PER_PARAM_PEFT, FLOPS_PER_PARAM_RECOMPUTE = 6, 4, 2
STEP_MATMUL_PASSES = 3
ATTENTION_FLOPS_PER_LAYER_TOKEN_Q = 12  # 12*L*s*q (Narayanan et al. 2021, eq. 3)
# Tensor parallel: Megatron all-reduces the layer activations (s*b*h, 2 bytes) 4 times a layer
# (2 forward, 2 backward; Shoeybi et al. 2019, Megatron-LM, Sec 3), 6 with full recompute's
# second forward; a ring moves 2(t-1)/t of each (NCCL docs, "Performance": bus bandwidth).
TP_ALLREDUCES_PER_LAYER, TP_ALLREDUCES_PER_LAYER_RECOMPUTE = 4, 6
TP_ACTIVATION_BYTES = 2
# Pipeline: each stage boundary sends a micro-batch's activations forward and their gradient
# back, s*b*h values of 2 bytes, split over the tensor-parallel ranks (scatter/gather
# optimisation, Narayanan et al. 2021, Sec 4.1); v times with v virtual stages.
PP_P2P_PER_MICROBATCH = 2
# Data parallel, in bytes per parameter: bf16 weights (4 in fp32); gradients in the dtype the
# layout reduces them in (`ModelSplit.grad_reduce`): fp32 for bf16 and fp8 by default (Megatron
# sets accumulate_allreduce_grads_in_fp32 with --bf16; torchtitan's mixed_precision_reduce
# defaults to float32), bf16 where the plan reduces in bf16 as NVIDIA's performance recipes
# do, 2 bytes for fp16 (Megatron's fp16 default).
PARAM_COMM_BYTES = {"fp32": 4}
PARAM_COMM_BYTES_DEFAULT = 2
GRAD_REDUCE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}
# ZeRO-3 / FSDP gathers each layer's parameters in the forward and again in the backward of
# every micro-batch (FSDP2's default reshard_after_forward=True; DeepSpeed ZeRO-3 re-gathers
# too), and reduce-scatters the gradients every micro-batch (ZeRO paper Sec 7: 3x the
# parameter bytes a micro-batch where DDP moves 2x a step). ZeRO-2 reduce-scatters every
# micro-batch (DeepSpeed reduces each micro-step into the partitioned gradients).
ZERO3_GATHERS_PER_MICROBATCH = 2
# MoE: per MoE layer, a token's hidden state goes to its top-k experts and comes back
# (dispatch + combine) in the forward, and both again in the backward (Lepikhin et al. 2020,
# GShard, Sec 3.2; Rajbhandari et al. 2022, DeepSpeed-MoE); a third time under full recompute.
# 2 bytes a value (DeepSeek-V3 dispatches in fp8 and combines in bf16: 2 kept as the bound).
MOE_A2A_PER_LAYER, MOE_A2A_PER_LAYER_RECOMPUTE = 4, 6
MOE_A2A_BYTES = 2
# FP8 runs dispatch in fp8 and combine in bf16 (DeepSeek-V3 report Sec 3.3.2): forward 1 + 2
# bytes, backward 2 + 2: 1.75 a value on average.
MOE_A2A_BYTES_FP8 = 1.75
# The explanation leaves out factors within half a percent of 1.
EFFICIENCY_SHOWN_BELOW = 0.995


class Throughput(BaseModel):
    model_flops_per_token: float
    hardware_flops_per_token: float
    tokens_per_s_per_gpu: float
    mfu: float
    hfu: float
    efficiency: dict[str, float]
    goodput: float
    network: str
    # Megatron-Core's MoE token dispatcher the plan runs ("alltoall", "flex"); None off it or dense.
    dispatcher: str | None = None
    # Seconds per optimizer step on one GPU: compute, pipeline bubble, each communication
    # term in full and the part of it left exposed, and the step.
    step: dict[str, float]
    # Share of a micro-batch's compute in the attention core: what the attention kernels decide.
    attention_share: float = 0.0
    notes: list[dict]  # the arithmetic as numbers; templates/explain.<lang>.j2 words it

    @property
    def exposed_comm_share(self) -> float:
        return self.step["exposed_s"] / self.step["step_s"] if self.step["step_s"] else 0.0


def nic_ceiling_gbps(gpu: GPU) -> int:
    """The most Gb/s per GPU its server's NICs can carry: the part's own ports where it has them
    (Ascend 910B: 200GE RoCE), else what its PCIe generation feeds (NIC_GBPS_BY_PCIE_GEN): an
    A800 is an A100, on the same Gen4 host, whatever year it was sold."""
    if gpu.max_nic_gbps:
        return int(gpu.max_nic_gbps)
    return NIC_GBPS_BY_PCIE_GEN.get(gpu.pcie_gen, 400 if gpu.pcie_gen > 5 else 100)


def default_network(gpu: GPU) -> str:
    """The fabric assumed when the user names none: 100 Gb RoCE for consumer cards (assumed),
    else the fastest the host feeds: NDR 400 on Gen5 hosts (the DGX H100 design), HDR 200 on
    Gen4 (DGX A100), RoCE at the part's own ports."""
    ceiling = nic_ceiling_gbps(gpu)
    if gpu.consumer or ceiling < 200:
        return "roce100"
    if ceiling < 400:
        return "roce200" if gpu.nic_fabric == "roce" or gpu.max_nic_gbps else "hdr200"
    return "ndr400"


def intra_node_gb_s(gpu: GPU) -> float:
    """One direction inside a server: NVLink figures are bidirectional, so half; a PCIe card
    gets no more than what its link carries one way in practice (PCIE_GBPS). GeForce cards
    have no peer-to-peer: traffic is staged through host memory and crosses PCIe twice
    (NVIDIA disables P2P on GeForce since the RTX 40 series; assumed half again)."""
    if gpu.consumer:
        return gpu.intra_node_bw_gb_s / 4
    if gpu.intra_node == "PCIe":
        return min(gpu.intra_node_bw_gb_s / 2, PCIE_GBPS.get(gpu.pcie_gen, PCIE_GBPS_UNKNOWN_GEN))
    return gpu.intra_node_bw_gb_s / 2


def expert_launch_s(m: ModelShape, setup: TrainingSetup, layout: ModelSplit, c: ParamCounts) -> float:
    """Host time of one micro-batch's per-expert launches on one GPU that the GPU waits for:
    Megatron-Core's per-expert GEMMs (MEGATRON_EXPERT_LAUNCH_S), or the Python loop over the
    experts (`runs_expert_loop`), with ZeRO-3's fetch of each expert projection where the MoE
    block is no leaf module (transformers 5's experts are one module of two parameters)."""
    if not m.is_moe:
        return 0.0
    fwd = 1 + layout.recomputed_share(m.layers) + setup.reference_passes
    local = m.moe_experts / max(1, layout.ep)
    experts = c.moe_layers / layout.pp * local
    if runs_expert_loop(layout.framework, setup):
        adapted = EXPERT_LINEARS if setup.is_peft and setup.lora_targets == "all" else 0
        kernels = EAGER_EXPERT_OPS + LORA_OPS_PER_LINEAR * adapted
        host = (kernels + EAGER_EXPERT_SYNCS) * fwd + EAGER_BACKWARD_OPS_PER_OP * kernels
        loop = experts * host * MEGATRON_EXPERT_LAUNCH_S
        if layout.zero_stage == 3 and layout.framework in ZERO3_HOOKED and not setup.z3_leaf:
            loop += experts * EXPERT_LINEARS * (fwd + 1) * ZERO3_MODULE_FETCH_S
        return loop
    if layout.framework != MEGATRON:
        return 0.0
    bwd = 1 if setup.is_peft else 2  # a frozen expert has no weight gradient
    launches = EXPERT_GEMMS * (fwd + bwd) + (EXPERT_GEMMS * (fwd + 1) if setup.precision == "fp8" else 0)
    return experts * launches * MEGATRON_EXPERT_LAUNCH_S


def framework_efficiency(framework: str) -> float:
    """What the framework loses beyond the roofline: measured for the stacks that run the Hugging
    Face model code, else the fitted factor."""
    if framework in HF_MODEL_CODE:
        return HF_MEASURED_EFFICIENCY
    return FRAMEWORK_EFFICIENCY.get(framework, FRAMEWORK_EFFICIENCY_DEFAULT)


def host_floor_s(m: ModelShape, setup: TrainingSetup, layout: ModelSplit, c: ParamCounts) -> float:
    """Host time of one micro-batch on an HF stack, launching the forward's kernels one by one
    (HF_FORWARD_KERNEL_S); 0 elsewhere, and where torch.compile fuses the forward into few
    kernels."""
    if layout.framework not in HF_MODEL_CODE or setup.compiled:
        return 0.0
    adapted = len(LORA_TARGETS[setup.lora_targets]) if setup.is_peft else 0
    moe = 0 if runs_expert_loop(layout.framework, setup) else HF_MOE_KERNELS  # the loop is expert_launch_s
    layer = HF_FORWARD_KERNELS + HF_ADAPTER_KERNELS * adapted + (HF_QK_NORM_KERNELS if m.qk_norm else 0)
    kernels = m.layers * layer + c.moe_layers * moe
    fwd = 1 + layout.recomputed_share(m.layers) + setup.reference_passes
    return kernels / layout.pp * fwd * HF_FORWARD_KERNEL_S


def team_gbps_per_gpu(setup: TrainingSetup, gpu: GPU) -> float | None:
    """A GPU's Gb/s of the team's own network (TrainingSetup.network_gbps): a server's link shared by
    the GPUs the catalogue puts in it, or each GPU's own; None if unsaid."""
    if not setup.network_gbps:
        return None
    return setup.network_gbps / max(1, gpu.gpus_per_server if setup.network_per_server else 1)


def team_network(setup: TrainingSetup, gpu: GPU) -> str | None:
    """The team's own network as a network `nic_gb_s` reads: a GPU's Gb/s, "3.125g"; None if unsaid."""
    gbps = team_gbps_per_gpu(setup, gpu)
    return f"{gbps:g}g" if gbps else None


def nic_gb_s(gpu: GPU, network: str) -> float:
    """One GPU's share of the server's NICs, one direction: a named fabric's (NETWORK_GBPS) or the
    team's own, "12.5g" Gb/s (8 bits a byte). A PCIe card shares the host's PCIe link with its NIC
    (one NIC per two cards behind a PCIe switch; assumed), so it gets at most half the link of its
    PCIe generation."""
    bw = NETWORK_GBPS[network] if network in NETWORK_GBPS else float(network[:-1]) / 8
    if gpu.consumer or gpu.form_factor == "PCIe":
        bw = min(bw, PCIE_GBPS.get(gpu.pcie_gen, PCIE_GBPS_UNKNOWN_GEN) / 2)
    return bw


def collective_gb_s(gpu: GPU, network: str, size: int, ranks_per_node: int) -> float:
    """Bus bandwidth of a ring collective over `size` ranks, `ranks_per_node` of them on each
    server: NVLink inside one server; across servers NCCL runs one ring per NIC, so the
    group's traffic spreads over the NICs of all its ranks on a server (NCCL docs,
    "Performance": busBw; rail-optimised fabric assumed)."""
    intra = intra_node_gb_s(gpu)
    if size <= ranks_per_node:
        return intra
    return min(intra, ranks_per_node * nic_gb_s(gpu, network))


def ring(n: int) -> float:
    """Share of the data each rank sends in a ring reduce-scatter or all-gather: (n-1)/n;
    an all-reduce is both, 2(n-1)/n (NCCL docs, "Performance")."""
    return (n - 1) / n


def flops_per_token(
    m: ModelShape, setup: TrainingSetup, recompute: str, modules: tuple[str, ...] = (), share: float = 1.0
) -> tuple[float, float, float]:
    """(model FLOPs, hardware FLOPs, the attention's part of the model FLOPs) per trained token.
    Attention is counted over the whole sequence, as PaLM's MFU counts it (Chowdhery et al. 2022,
    appendix B: 6N + 12·L·H·Q·T); under a causal mask the kernels compute about half of it.
    Megatron-Core's selective recompute (`modules`) runs the forward of what it recomputes again:
    the dense MLPs' matmuls ("mlp"), MLA's up-projections ("mla_up_proj"), the attention core
    ("core_attn"). `share`: the layers full recompute reruns (ModelSplit.recomputed_share)."""
    c = count_params(m)
    # Matmul parameters a token meets: active parameters minus the embedding lookup (not a
    # matmul); the output head is a matmul even when tied.
    n = active_count(m, c) - c.embedding + (c.embedding if m.tied_embeddings else 0)
    q = m.heads * (m.head_dim if not m.uses_mla else m.mla_qk_nope_head_dim + m.mla_qk_rope_head_dim)
    # Layers with a local window or chunk do the share of that work their keys give.
    # Samples shorter than the sequence attend within themselves (setup.attention_context).
    ctx = setup.attention_context
    attention = ATTENTION_FLOPS_PER_LAYER_TOKEN_Q * m.layers * ctx * q * m.attention_share(ctx)
    weight_passes = FLOPS_PER_PARAM_PEFT if setup.is_peft else FLOPS_PER_PARAM_FULL
    model = weight_passes * n + attention
    extra = 0.0
    if recompute == "full":
        extra = share * (FLOPS_PER_PARAM_RECOMPUTE * n + attention / STEP_MATMUL_PASSES)
    if "mlp" in modules:
        extra += FLOPS_PER_PARAM_RECOMPUTE * c.dense_mlp_per_layer * c.dense_layers
    if "mla_up_proj" in modules:
        qk = m.mla_qk_nope_head_dim + m.mla_qk_rope_head_dim
        up = m.heads * (qk * m.mla_q_lora_rank + (m.mla_qk_nope_head_dim + m.mla_v_head_dim) * m.mla_kv_lora_rank)
        extra += FLOPS_PER_PARAM_RECOMPUTE * up * m.layers
    if "core_attn" in modules:
        extra += attention / STEP_MATMUL_PASSES
    # The reference model's forward is work the method needs, not a rerun: model FLOPs (2N and
    # the attention's forward third a token).
    model += setup.reference_passes * (FLOPS_PER_PARAM_RECOMPUTE * n + attention / STEP_MATMUL_PASSES)
    return model, model + extra, attention


def trainable_params(m: ModelShape, setup: TrainingSetup, c: ParamCounts, framework: str) -> float:
    """Trainable parameters: all of them, or LoRA's adapters (Hu et al. 2021)."""
    if setup.is_peft:
        return sum(lora_params(m, setup, framework))
    return c.total


def base_weight_bytes(m: ModelShape, setup: TrainingSetup, c: ParamCounts) -> tuple[float, float]:
    """Bytes of (non-expert, expert) weights a ZeRO-3 gather moves, whole model: bf16 (fp32
    weights in fp32), and for QLoRA the NF4 linear layers (memory.py's NF4_BYTES)."""
    w = PARAM_COMM_BYTES.get(setup.precision, PARAM_COMM_BYTES_DEFAULT)
    dense = c.total - c.experts
    if setup.method == "qlora":
        norms = m.layers * c.norms_per_layer
        linear = dense - c.embedding - c.output - norms
        return linear * NF4_BYTES + (dense - linear) * w, c.experts * NF4_BYTES
    return dense * w, c.experts * w


def compute_time(
    m: ModelShape, setup: TrainingSetup, layout: ModelSplit, gpu: GPU, c: ParamCounts, dispatcher: str | None
) -> tuple[StageTime, float, float, float, float, float]:
    """(stage time, framework efficiency, one micro-batch's expert launches, one micro-batch's
    time, the step's compute, the pipeline bubble), in seconds on one GPU.

    One micro-batch's forward and backward on this stage, operator by operator
    (advisor/engine/roofline.py), slowed by the framework's own overheads (kernel gaps, host
    work, unfused operators: FRAMEWORK_EFFICIENCY); the step runs m of them plus the bubble
    of the (interleaved) 1F1B schedule, (p-1)/v micro-batch times (Narayanan et al. 2021,
    Sec 2.2), and one optimizer step."""
    tp, pp, dp, ep = layout.tp, layout.pp, layout.dp, max(1, layout.ep)
    expert_dp_shard = layout.expert_dp if layout.zero_stage >= 1 else 1
    dense_shard = dp if layout.zero_stage >= 1 else 1
    if setup.is_peft:
        # the routed experts' adapters live with their experts (memory.lora_params)
        dense_adapters, expert_adapters = lora_params(m, setup, layout.framework)
        optimizer_params = dense_adapters / (tp * pp * dense_shard) + expert_adapters / (
            pp * ep * layout.expert_tp * expert_dp_shard
        )
    else:
        optimizer_params = (c.total - c.experts) / (tp * pp * dense_shard) + c.experts / (
            pp * ep * layout.expert_tp * expert_dp_shard
        )
    stage = stage_time(
        m,
        c,
        gpu,
        precision=setup.matmul_dtype,
        method=setup.method,
        lora_rank=setup.lora_rank,
        lora_targets=setup.lora_targets,
        seq=setup.seq_len,
        micro_batch=layout.micro_batch,
        tp=tp,
        pp=pp,
        ep=ep,
        etp=layout.expert_tp,
        cp=max(1, layout.cp),
        recompute=layout.recompute,
        recomputed=layout.recomputed_share(m.layers) if layout.recompute == "full" else 0.0,
        optimizer_params=optimizer_params,
        attention=attention_kernel(gpu, setup, layout.framework, m.position, m.unequal_head_dims),
        framework=layout.framework,
        compiled=setup.compiled,
        context=setup.attention_context,
        dispatcher=dispatcher,
        recompute_modules=layout.recompute_modules,
        reference=setup.reference_passes,
    )
    framework_eff = framework_efficiency(layout.framework)
    launch_s = expert_launch_s(m, setup, layout, c)
    gpu_s, host_s = stage.microbatch_s / framework_eff, host_floor_s(m, setup, layout, c)
    t_mb = (gpu_s**HOST_OVERLAP_POWER + host_s**HOST_OVERLAP_POWER) ** (1 / HOST_OVERLAP_POWER) + launch_s
    compute = layout.microbatches_per_step * t_mb + stage.optimizer_s
    bubble = (pp - 1) / layout.virtual_stages * t_mb
    return stage, framework_eff, launch_s, t_mb, compute, bubble


def expert_copies(m: ModelShape, ep: int, ep_per_node: int, dispatcher: str | None) -> tuple[float, float]:
    """(over NVLink, over the NIC): copies of a token's hidden state one dispatch sends from its
    rank, routing even. Megatron-Core's all-to-all dispatcher sends one row per token-expert pair
    to the expert's rank (MoEAlltoAllTokenDispatcher.token_dispatch, input_splits counted per
    expert), so of a token's k copies k/ep are for its own rank and move nothing (NCCL copies a
    rank's own chunk of an all-to-all in place), k (ep_per_node - 1)/ep go to the server's peers
    over NVLink and the rest over the NIC. A token's copies for other servers cross the network
    once per server at most when the model limits its servers (DeepSeek-V3's node-limited routing:
    at most 4 servers a token, forwarded over NVLink inside each; report Sec 2.1.2 and 3.2.2) and
    the dispatcher forwards so (DeepEP's internode kernels, under the flex dispatcher): of at most
    that many servers, one is the token's own 1/nodes of the time."""
    k = m.moe_top_k
    nodes = max(1, ep // ep_per_node)
    near, far = k * (ep_per_node - 1) / ep, k * (ep - ep_per_node) / ep
    node_limit = getattr(m, "moe_node_limit", 0) or 0
    if node_limit and nodes > 1 and dispatcher != "alltoall":
        far = min(far, node_limit * (1 - 1 / nodes))
    return near, far


def model_parallel_s(
    m: ModelShape,
    setup: TrainingSetup,
    layout: ModelSplit,
    gpu: GPU,
    net: str,
    c: ParamCounts,
    dispatcher: str | None,
) -> tuple[float, float, float]:
    """(tensor-parallel all-reduces, pipeline sends, expert all-to-alls), seconds a step on one
    GPU; each grows with the recompute level or stays (more all-reduces and all-to-alls under
    full recompute: `speed_ceiling` relies on it)."""
    tp, pp, ep, v = layout.tp, layout.pp, max(1, layout.ep), layout.virtual_stages
    per_node = layout.gpus_per_node
    tokens_mb = setup.seq_len * layout.micro_batch
    cp = max(1, layout.cp)
    m_steps = layout.microbatches_per_step
    intra = intra_node_gb_s(gpu) * 1e9
    # Megatron-Core orders the expert ranks expert-tensor first, then expert, then expert-data
    # (core_v0.10.0 on: parallel_state.py builds the expert RankGenerator with
    # tp=expert_tensor_parallel_size, its order tp-ep-dp-pp), so an expert group has
    # per_node / etp ranks on a server; other stacks spread experts over data-parallel ranks,
    # tp apart, unless folded over the tensor ranks too.
    ep_stride = layout.expert_tp if layout.framework == MEGATRON or layout.folded else tp
    # the ranks of a group certain to share a server: consecutive groups of 5 on 8-GPU servers
    # straddle two, so only what divides both counts is sure to stay on one
    ep_per_node = math.gcd(ep, max(1, per_node // ep_stride))

    tensor_s = 0.0
    if tp > 1:
        rerun = layout.recomputed_share(m.layers) if layout.recompute == "full" else 0.0
        allreduces = rerun * TP_ALLREDUCES_PER_LAYER_RECOMPUTE + (1 - rerun) * TP_ALLREDUCES_PER_LAYER
        if "mlp" in layout.recompute_modules:
            allreduces += 1  # the checkpointed MLP's forward again: its gather and reduce-scatter
        # the reference model's forward: a forward's all-reduces again
        allreduces += setup.reference_passes * (TP_ALLREDUCES_PER_LAYER_RECOMPUTE - TP_ALLREDUCES_PER_LAYER)
        # Half of a layer's all-reduces are its attention block's, half its MLP's (Shoeybi et al.
        # 2019, Sec 3: one each way for each). With expert parallelism an MoE layer's routed
        # experts exchange their token copies instead (the dispatch and the expert-tensor
        # collectives below); only shared experts, split over tp, keep the MLP's half.
        routed_only = c.moe_layers if ep > 1 and not m.moe_shared_experts else 0
        layers_on_tp = m.layers - routed_only / 2
        per_mb = allreduces * (layers_on_tp / pp) * tokens_mb / cp * m.hidden * TP_ACTIVATION_BYTES * 2 * ring(tp)
        tensor_s = m_steps * per_mb / intra

    pipeline_s = 0.0
    if pp > 1:
        # Megatron's rank order puts the pipeline outermost: once a layout spans servers, some stage
        # boundary lies between two of them, and every micro-batch waits on the slowest boundary
        crosses = layout.nodes > 1
        bw = nic_gb_s(gpu, net) * 1e9 if crosses else intra
        sends = PP_P2P_PER_MICROBATCH + setup.reference_passes  # the reference's forward sends its activations too
        per_mb = sends * v * tokens_mb / cp * m.hidden * TP_ACTIVATION_BYTES / tp
        pipeline_s = m_steps * per_mb / bw

    expert_s = 0.0
    if m.is_moe and ep > 1:
        rerun = layout.recomputed_share(m.layers) if layout.recompute == "full" else 0.0
        a2a = rerun * MOE_A2A_PER_LAYER_RECOMPUTE + (1 - rerun) * MOE_A2A_PER_LAYER
        a2a += setup.reference_passes * (MOE_A2A_PER_LAYER_RECOMPUTE - MOE_A2A_PER_LAYER)  # its dispatch and combine
        value_b = MOE_A2A_BYTES_FP8 if setup.precision == "fp8" else MOE_A2A_BYTES
        per_copy = a2a * (c.moe_layers / pp) * (tokens_mb / (tp * cp)) * m.hidden * value_b
        near, far = expert_copies(m, ep, ep_per_node, dispatcher)
        nic = nic_gb_s(gpu, net) * 1e9
        expert_s = m_steps * per_copy * (near / intra + far / nic)
        # Expert tensor parallel: after the all-to-all each rank all-gathers its expert-tensor
        # peers' copies, and reduce-scatters the experts' outputs back before the combine (and the
        # reverse in the backward): Megatron-Core's MoEAlltoAllTokenDispatcher,
        # gather_from_sequence_parallel_region and reduce_scatter_to_sequence_parallel_region over
        # the expert-tensor group (token_dispatcher.py, core_v0.12.0). A ring moves (etp - 1) of
        # its own top-k copies each time, as many times as the all-to-all runs; over NVLink while
        # the expert-tensor group sits in a server (it is the innermost), else over the NIC.
        etp = layout.expert_tp
        if etp > 1:
            etp_bw = intra if etp <= per_node else nic
            expert_s += m_steps * per_copy * m.moe_top_k * (etp - 1) / etp_bw

    return tensor_s, pipeline_s, expert_s


def moe_a2a_exposed(layout: ModelSplit) -> float:
    """Share of the expert all-to-alls left on the critical path. In a Megatron-Core MoE layer the
    dispatch, the experts and the combine run one after another: the all-to-all hides behind
    compute only in the EP overlap schedule, which runs one micro-batch's dispatch and combine
    behind another's forward or backward (--overlap-moe-expert-parallel-comm; Megatron-Bridge's
    guide, docs.nvidia.com/nemo/megatron-bridge/latest/skills/perf-techniques/
    expert-parallel-overlap: it "hides the cost of token dispatch/combine all-to-all communication
    by running it concurrently with expert FFN compute"). Megatron-Core refuses that schedule
    under full recompute and, with pipeline stages, without virtual ones (megatron/core/
    transformer/transformer_config.py, TransformerConfig.__post_init__: "disable full recomputation when enabling
    overlap_moe_expert_parallel_comm"; "virtual_pipeline_model_parallel_size must be specified
    when pipeline_model_parallel_size > 1"; the same checks in Megatron-Bridge's comm_overlap.py):
    there all of it is exposed. Elsewhere MOE_A2A_EXPOSED."""
    if layout.framework == MEGATRON and (layout.recompute == "full" or (layout.pp > 1 and layout.virtual_stages <= 1)):
        return 1.0
    return MOE_A2A_EXPOSED


def _scale_efficiency(layout: ModelSplit) -> float:
    return 1 - STRAGGLER_PER_DOUBLING * math.log2(max(1, layout.nodes))


def step_jitter_s(layout: ModelSplit) -> float:
    """The wait for the slowest rank a step (STEP_JITTER_NODE_S, STEP_JITTER_GPU_S above)."""
    nodes = max(1, layout.nodes)
    per_node = max(1, layout.gpu_count // nodes)
    return STEP_JITTER_NODE_S * math.log(nodes) + STEP_JITTER_GPU_S * math.log(per_node)


def _step_s(running: float, layout: ModelSplit, setup: TrainingSetup) -> float:
    """The step from the time every term adds up to, with stragglers, overhead and jitter (less
    the part CUDA graphs remove: JITTER_LEFT_BY_GRAPHS)."""
    jitter = step_jitter_s(layout) * (JITTER_LEFT_BY_GRAPHS if setup.cuda_graphs else 1.0)
    return running / _scale_efficiency(layout) + STEP_OVERHEAD_S + jitter


def speed_ceiling(
    m: ModelShape, setup: TrainingSetup, layout: ModelSplit, gpu: GPU, network: str | None = None
) -> float:
    """Tokens a second a GPU would train were data-parallel traffic, context-parallel rings and
    offload all hidden: `estimate_throughput`'s step with those terms (each never negative) left
    out, added up in its order, so never below its `tokens_per_s_per_gpu` for this layout, nor for
    the same layout with more recompute (the roofline's parts, the launches, the tensor-parallel
    all-reduces and the all-to-alls grow with it; the context ring's exposure does not, so it is
    left out). Megatron-Core's selective recompute modules only add to no recompute (each reruns
    its module's forward, the MLP's all-reduces too), so "none" bounds them; the dispatcher
    follows the split, not the recompute."""
    c = count_params(m)
    dispatcher = token_dispatcher(m, setup, layout.framework, gpu, layout.tp, max(1, layout.ep))
    _, _, _, _, compute, bubble = compute_time(m, setup, layout, gpu, c, dispatcher)
    net = network or team_network(setup, gpu) or default_network(gpu)
    tensor_s, pipeline_s, expert_s = model_parallel_s(m, setup, layout, gpu, net, c, dispatcher)
    running = compute + TP_EXPOSED * tensor_s
    running += bubble + PP_P2P_EXPOSED * pipeline_s
    running += moe_a2a_exposed(layout) * expert_s
    tokens_mb = setup.seq_len * layout.micro_batch
    return (
        tokens_mb
        * layout.microbatches_per_step
        / (layout.tp * layout.pp * max(1, layout.cp))
        / _step_s(running, layout, setup)
    )


def estimate_throughput(
    m: ModelShape, setup: TrainingSetup, layout: ModelSplit, gpu: GPU, network: str | None = None
) -> Throughput:
    """Seconds per optimizer step on one GPU, term by term, and the speed that follows.

    Placement follows Megatron's rank order (tensor innermost, then expert and data
    parallel, pipeline outermost): tensor parallel stays inside a server; a data-parallel
    or expert group has min(size, gpus_per_node / tp) ranks on each server.
    """
    net = network or team_network(setup, gpu) or default_network(gpu)
    model_f, hw_f, attention_f = flops_per_token(
        m, setup, layout.recompute, layout.recompute_modules, layout.recomputed_share(m.layers)
    )
    peak = gpu.peak_tflops(setup.matmul_dtype) * 1e12
    c = count_params(m)
    notes: list[dict] = []
    tp, pp, dp, ep = layout.tp, layout.pp, layout.dp, max(1, layout.ep)
    per_node = layout.gpus_per_node
    dispatcher = token_dispatcher(m, setup, layout.framework, gpu, tp, ep)

    # Compute and the bubble: `compute_time`.
    tokens_mb = setup.seq_len * layout.micro_batch
    cp = max(1, layout.cp)
    stage, framework_eff, launch_s, t_mb, compute, bubble = compute_time(m, setup, layout, gpu, c, dispatcher)
    m_steps = layout.microbatches_per_step
    # The node's efficiency: ideal time at peak over the time the roofline gives.
    node = (m_steps * tokens_mb / cp * hw_f / (tp * pp * peak)) / compute
    intra = intra_node_gb_s(gpu) * 1e9
    dp_per_node = max(1, min(dp, per_node // tp))
    tensor_s, pipeline_s, expert_s = model_parallel_s(m, setup, layout, gpu, net, c, dispatcher)

    # Context parallel (ring attention, Megatron-Core's CP): each layer passes its K and V chunk
    # round the cp ranks, cp - 1 hops in the forward, and K, V and their gradients in the
    # backward (3x the forward's bytes), overlapped with the attention blocks it feeds (Liu et
    # al. 2023, Ring Attention; Megatron-Core context parallel docs). Over NVLink while tp x cp
    # fits in a server, else over this GPU's NIC; only what the attention compute does not
    # hide is exposed.
    context_s = context_exposed = 0.0
    if cp > 1:
        kv_dim = (m.kv_heads * m.head_dim if not m.uses_mla else m.heads * (m.head_dim + m.mla_v_head_dim)) / tp
        per_mb = CP_PASSES * (cp - 1) * 2 * kv_dim * (tokens_mb / cp) * TP_ACTIVATION_BYTES * (m.layers / pp)
        bw = intra if tp * cp <= per_node else nic_gb_s(gpu, net) * 1e9
        context_s = m_steps * per_mb / bw
        context_exposed = m_steps * max(0.0, per_mb / bw - stage.attention_s / framework_eff)

    # Data parallel and ZeRO: non-expert parameters over dp ranks, routed experts over their
    # expert-data-parallel ranks (layout.expert_dp). Each group's collectives run at its own bus
    # bandwidth: the dense group spreads over the NICs of its dp_per_node ranks on a server; an
    # expert shard's group has only the server's GPUs over its expert x expert-tensor ranks on a
    # server (one when the experts span the server), so its gathers and reduce-scatters cross on
    # that many NICs (expert review N3).
    dp_bw = collective_gb_s(gpu, net, dp, dp_per_node) * 1e9
    expert_dp = layout.expert_dp
    expert_on_node = max(1, min(expert_dp, per_node // min(per_node, max(1, ep) * layout.expert_tp)))
    expert_bw = collective_gb_s(gpu, net, expert_dp, expert_on_node) * 1e9
    grad_b = GRAD_REDUCE_BYTES[layout.grad_reduce]
    param_b = PARAM_COMM_BYTES.get(setup.precision, PARAM_COMM_BYTES_DEFAULT)
    trainable = trainable_params(m, setup, c, layout.framework)
    if setup.is_peft:
        dense_adapters, expert_adapters = lora_params(m, setup, layout.framework)
        grads = (dense_adapters / (tp * pp), expert_adapters / (pp * ep * layout.expert_tp))
    else:
        grads = ((c.total - c.experts) / (tp * pp), c.experts / (pp * ep * layout.expert_tp))
    # Seconds of (dense, expert) traffic for `bytes_dense`, `bytes_expert` per rank.
    dense_g, expert_g = grads[0] * ring(dp), grads[1] * ring(expert_dp)

    def seconds(dense_bytes: float, expert_bytes: float) -> float:
        return dense_bytes / dp_bw + (expert_bytes / expert_bw if expert_bytes else 0.0)

    per_step_s = per_mb_s = 0.0
    if layout.zero_stage == 3 and layout.hsdp and dp > dp_per_node:
        # HSDP: ZeRO-3 inside a server (gathers and reduce-scatters over NVLink), and once a step
        # each rank all-reduces its gradient shard with its replicas on other servers, over its
        # own NIC (FSDP2 HSDP: reduce-scatter, then all-reduce across the replicate dimension).
        shard, replicas = dp_per_node, dp // dp_per_node
        dense_w, expert_w = base_weight_bytes(m, setup, c)
        weights = dense_w / (tp * pp) + expert_w / (pp * ep * layout.expert_tp)
        all_grads = (grads[0] + grads[1]) * grad_b
        gathers = ZERO3_GATHERS_PER_MICROBATCH + setup.reference_passes
        per_mb_s = (gathers * weights + all_grads) * ring(shard) / intra
        per_step_s = 2 * ring(replicas) * all_grads / shard / (nic_gb_s(gpu, net) * 1e9)
    elif layout.zero_stage == 3 and pp > 1:
        # FSDP with pipeline stages gathers a stage's parameters once a step and reduce-scatters
        # its gradients after the last micro-batch (torchtitan: reshard_after_forward False
        # under PP; memory.py counts the unsharded stage).
        dense_w, expert_w = base_weight_bytes(m, setup, c)
        gathers = 1 + setup.reference_passes  # the reference's stage is gathered once a step too
        per_step_s = seconds(
            gathers * dense_w / (tp * pp) * ring(dp) + dense_g * grad_b,
            gathers * expert_w / (pp * ep * layout.expert_tp) * ring(expert_dp) + expert_g * grad_b,
        )
    elif layout.zero_stage == 3:
        dense_w, expert_w = base_weight_bytes(m, setup, c)
        # the reference model's forward gathers its weights (LoRA's: the same base) once more
        gathers = ZERO3_GATHERS_PER_MICROBATCH + setup.reference_passes
        per_mb_s = seconds(
            gathers * dense_w / (tp * pp) * ring(dp) + dense_g * grad_b,
            gathers * expert_w / (pp * ep * layout.expert_tp) * ring(expert_dp) + expert_g * grad_b,
        )
    elif layout.zero_stage == 2:
        per_mb_s = seconds(dense_g * grad_b, expert_g * grad_b)
        per_step_s = seconds(dense_g * param_b, expert_g * param_b)
    elif layout.zero_stage == 1:
        # Distributed optimizer: reduce-scatter the gradients, all-gather the updated weights.
        per_step_s = seconds(dense_g * (grad_b + param_b), expert_g * (grad_b + param_b))
    elif dp > 1:
        per_step_s = seconds(2 * dense_g * grad_b, 2 * expert_g * grad_b)  # ring all-reduce
    data_s = per_step_s + m_steps * per_mb_s if dp > 1 else 0.0
    # Bucketed overlap: per-step traffic hides behind the last micro-batch's backward and the
    # next step's first forward, and behind the pipeline drain; per-micro-batch traffic
    # behind each micro-batch (prefetch).
    data_exposed = 0.0
    if dp > 1:
        data_exposed = max(0.0, per_step_s - COMM_OVERLAP * (t_mb + bubble))
        data_exposed += m_steps * max(0.0, per_mb_s - COMM_OVERLAP * t_mb)

    offload_s = 0.0
    if layout.offload != "none":
        local = trainable / (tp * pp * max(1, dp if layout.zero_stage >= 1 else 1))
        pcie = PCIE_GBPS.get(gpu.pcie_gen, PCIE_GBPS_UNKNOWN_GEN) * 1e9
        offload_s = local * OFFLOAD_BYTES_PER_PARAM / pcie + local / CPU_ADAM_PARAMS_PER_S
        if layout.offload == "all":
            # ZeRO-Infinity and FSDP's CPU offload copy in each rank's own partition of the
            # weights, what it offloaded (memory.offload_to_host), and all-gather the rest over
            # NCCL (the `data` term): bf16 or fp32 weights, LoRA's frozen base, QLoRA's NF4.
            dense_b, expert_b = base_weight_bytes(m, setup, c)
            ranks = shard_ranks(layout) if layout.zero_stage == 3 else 1
            experts = max(1, layout.ep) * layout.expert_tp * (layout.expert_dp if layout.zero_stage == 3 else 1)
            own = dense_b / (tp * pp * ranks) + expert_b / (pp * experts)
            passes = 1 + layout.recomputed_share(m.layers) + 1 + setup.reference_passes
            # On a PCIe card the gathers from the other ranks come in over the same x16 link as
            # the copies from host memory: they queue behind each other, and only what is left
            # of the micro-batch's compute after the gathers hides the copies.
            on_link = per_mb_s if gpu.intra_node == "PCIe" and dp > 1 else 0.0
            window = max(0.0, COMM_OVERLAP * t_mb - on_link)
            offload_s += m_steps * max(0.0, own * passes / pcie - window)

    exposed = {
        "tensor": TP_EXPOSED * tensor_s + context_exposed,
        "pipeline": PP_P2P_EXPOSED * pipeline_s,
        "data": data_exposed + moe_a2a_exposed(layout) * expert_s,
    }
    scale_eff = _scale_efficiency(layout)
    # Each factor is the time before it over the time with it, so their product is compute
    # over the whole step.
    eff = {"node": node}
    running = compute
    for key, extra in (
        ("tensor", exposed["tensor"]),
        ("pipeline", bubble + exposed["pipeline"]),
        ("data", exposed["data"]),
        ("offload", offload_s),
    ):
        eff[key] = running / (running + extra)
        running += extra
    eff["scale"] = scale_eff
    eff = {k: eff[k] for k in ("node", "tensor", "pipeline", "data", "scale", "offload")}
    step_s = _step_s(running, layout, setup)
    # the per-step overhead and jitter, so the factors multiply out to the step (a chain had read
    # "node 0.58 = 0.56 of peak")
    eff["step"] = running / scale_eff / step_s
    exposed_s = sum(exposed.values())  # communication only; offload_s is counted apart
    tokens_per_s = tokens_mb * m_steps / (tp * pp * cp) / step_s
    hfu = tokens_per_s * hw_f / peak
    mfu = tokens_per_s * model_f / peak
    n_gpu = layout.gpu_count
    failures_per_day = FAILURES_PER_GPU_DAY * n_gpu
    goodput = 1 / (1 + failures_per_day * HOURS_LOST_PER_FAILURE / 24 + CHECKPOINT_OVERHEAD)
    step = {
        "compute_s": compute,
        "launch_s": m_steps * launch_s,  # of compute: the host's per-expert launches
        "bubble_s": bubble,
        "tensor_s": tensor_s,
        "context_s": context_s,
        "pipeline_s": pipeline_s,
        "data_s": data_s,
        "expert_s": expert_s,
        "offload_s": offload_s,
        "exposed_s": exposed_s,
        "step_s": step_s,
    }

    notes.append(
        {
            "kind": "flops",
            "model_gflop": model_f / 1e9,
            "hardware_gflop": hw_f / 1e9,
            "attention_gflop": attention_f / 1e9,
            "reference": setup.reference_forward,
        }
    )
    shown = {k: v for k, v in eff.items() if v < EFFICIENCY_SHOWN_BELOW}
    notes.append({"kind": "efficiency", "factors": shown, "hfu": hfu})
    notes.append({"kind": "goodput", "goodput": goodput, "failures_per_day": failures_per_day, "gpus": n_gpu})
    return Throughput(
        model_flops_per_token=model_f,
        hardware_flops_per_token=hw_f,
        tokens_per_s_per_gpu=tokens_per_s,
        mfu=mfu,
        hfu=hfu,
        efficiency=eff,
        goodput=goodput,
        network=net,
        dispatcher=dispatcher,
        step=step,
        attention_share=stage.attention_s / stage.microbatch_s if stage.microbatch_s else 0.0,
        notes=notes,
    )
