"""Plans the expert review found wrong (issue 22): the MoE expert traffic on the NIC it uses,
the named DeepSeek-V3 on its published hardware, the global batch searched."""

import sys
from pathlib import Path

import pytest

from advisor import catalog
from advisor.engine.estimate import estimate_for
from advisor.engine.shapes import count_params
from advisor.engine.throughput import GRAD_REDUCE_BYTES, NETWORK_GBPS, ZERO3_GATHERS_PER_MICROBATCH
from advisor.planning.engine_inputs import model_shape, training_setup
from advisor.request.parser import parse

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))


def _estimate(text):
    req = parse(text)
    return estimate_for(
        model_shape(req), training_setup(req), catalog.get_gpu(req.gpu), req.gpu_count, req.deadline_days
    )


def test_expert_zero3_traffic_crosses_one_nic_per_expert_group():
    """N3, worked by hand: EP 8 inside each server, ZeRO-3: an expert shard's data-parallel
    group has one rank per server, so its two gathers (bf16) and the fp32 reduce-scatter of a
    micro-batch cross that GPU's own NIC."""
    est = _estimate("deepseek-v3 full-finetune 100GB 14d on 256xH800 ep 8 zero3 tp 1 pp 1 mbs 1")
    lay = est.layout
    assert (lay.ep, lay.zero_stage, lay.dp) == (8, 3, 256)
    c = count_params(catalog.find_model("deepseek-v3"))
    experts_here = c.experts / 8
    expert_dp = 256 // 8
    ring = (expert_dp - 1) / expert_dp
    per_mb = (ZERO3_GATHERS_PER_MICROBATCH * 2 + GRAD_REDUCE_BYTES["fp32"]) * experts_here * ring
    one_nic = NETWORK_GBPS[est.throughput.network] * 1e9
    expert_seconds = lay.microbatches_per_step * per_mb / one_nic
    assert est.throughput.step["step_s"] >= expert_seconds
    assert est.throughput.step["data_s"] >= expert_seconds


def test_named_deepseek_v3_on_its_2048_h800_is_within_15_percent():
    est = _estimate("deepseek-v3 pretrain 14.8T tokens 60d on 2048xH800 fp8")
    assert est.gpu_hours == pytest.approx(2.664e6, rel=0.15)
    # a layout of pipeline stages and experts across servers with ZeRO-1, as DeepSeek ran
    assert est.layout.pp > 1 and est.layout.ep > 8 and est.layout.zero_stage == 1


def test_deepseeks_own_layout_is_planned_as_given_and_close():
    est = _estimate("deepseek-v3 pretrain 14.8T tokens 60d on 2048xH800 fp8 tp 1 pp 16 ep 64 zero1")
    assert (est.layout.pp, est.layout.ep, est.layout.dp, est.layout.zero_stage) == (16, 64, 128, 1)
    # Planned on Megatron-Core's schedule and kernels (its per-expert launches counted), not
    # DeepSeek's DualPipe, which hides the all-to-all: 61 layers on 16 stages take no virtual
    # stages, without which Megatron-Core runs no EP overlap, so all of it is exposed: 3.67M, +38%.
    assert est.layout.virtual_stages == 1
    assert est.fits and est.gpu_hours == pytest.approx(2.664e6, rel=0.4)


def test_big_fine_tune_searches_the_global_batch():
    """N6: `70B full-finetune 1TB 3d` was 2048 GPUs at one micro-batch a step and 18% MFU."""
    req = parse("70B full-finetune 1TB 3d on 2048xH200")
    est = _estimate("70B full-finetune 1TB 3d on 2048xH200")
    assert est.throughput.mfu > 0.35, est.layout
    assert "batch_grown" in est.checks and est.layout.global_batch > 256
    # never past the compute-optimal batch, nor fewer than 1,000 steps
    assert est.layout.global_batch * req.seq_len <= req.tokens / 1000


def test_a_users_batch_is_kept():
    est = _estimate("70B full-finetune 1TB 3d on 2048xH200 gbs 256")
    assert est.layout.global_batch == 256 and "batch_grown" not in est.checks


def test_a_lora_plan_on_fsdp2_names_the_stack_that_runs_lora_there(book):
    # torchtitan runs no LoRA: a LoRA plan with tensor parallelism over FSDP2 had been "planned on
    # FSDP2/torchtitan"; a full fine-tune on the same layout still names torchtitan
    from advisor.planning.advice import advise, render_text

    lora = advise("llama3-70b lora 1B tokens seq 4096 mbs 2 gbs 32 tp 2 fsdp 4 on 8xH100", book=book)
    full = advise("llama3-8b full-finetune 1B tokens seq 4096 tp 2 fsdp 4 on 8xH100", book=book)
    assert lora.framework == "FSDP2/NeMo Automodel" and "framework: FSDP2/torchtitan" not in render_text(lora)
    assert full.framework == "FSDP2/torchtitan"


def test_a_data_parallel_lora_is_tried_on_fsdp2_too(book):
    # `fsdp2` LoRA on 2 H100 had been planned TP2 x DP1 on FSDP2, ZeRO-3 over one rank: the
    # FSDP2 stack was only offered with model parallelism, and PEFT's data parallel ran slower
    from advisor.planning.advice import advise

    plan = advise("qwen3-8b lora fsdp2 50k samples 2d on 2 H100", book=book)
    lay = plan.plan.estimate.layout
    assert (lay.tp, lay.pp, lay.dp, lay.zero_stage) == (1, 1, 2, 3)
    assert plan.framework == "FSDP2/NeMo Automodel"
    # on the HF stack it stays PEFT's data parallel; QLoRA's 4-bit base is PEFT's alone
    hf = advise("qwen3-8b lora fsdp2 hf 50k samples 2d on 2 H100", book=book)
    assert hf.framework == "HF PEFT/TRL" and hf.plan.estimate.layout.dp == 2
    qlora = advise("qwen3-8b qlora fsdp2 50k samples 2d on 2 H100", book=book)
    assert qlora.framework == "HF PEFT/TRL"
