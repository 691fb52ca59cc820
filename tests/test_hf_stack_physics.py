"""The stacks that run the Hugging Face model code (HF Trainer/TRL, PEFT, DeepSpeed), as measured on
a lent H200 (docs/device-h200.md): their element-wise passes, PEFT's adapter bytes, the host's
launch floor and their framework factor, against hand-worked cases."""

import json

import pytest

from advisor import catalog
from advisor.engine import roofline as rf
from advisor.engine import throughput as th
from advisor.engine.estimate import best_layout
from advisor.engine.shapes import count_params
from advisor.planning.engine_inputs import model_shape, training_setup
from advisor.request.canonical import canonical
from advisor.request.parser import parse

H200 = "H200"
KW = dict(precision="bf16", lora_rank=16, seq=2048, micro_batch=4, tp=1, pp=1, ep=1, etp=1, cp=1,
          recompute="none", optimizer_params=0.0, attention="best")  # fmt: skip


def _stage(model, framework, method="pretrain", targets="all", compiled=False):
    m = catalog.find_model(model)
    return rf.stage_time(
        m, count_params(m), catalog.get_gpu(H200), method=method, lora_targets=targets, framework=framework,
        compiled=compiled, **KW,
    )  # fmt: skip


def test_the_hf_model_code_moves_its_element_wise_bytes_seven_and_a_half_times():
    # the same shape on FSDP2 (2 passes, fitted) and on HF Trainer (7.5, measured): only the
    # element-wise part changes, by (7.5 - 2) passes of its bytes; the loss is counted apart
    fsdp, hf = _stage("llama3.2-3b", "FSDP2/torchtitan"), _stage("llama3.2-3b", "HF Transformers/TRL")
    mega = _stage("llama3.2-3b", "Megatron-Core")  # one pass
    per_pass = fsdp.memory_s - mega.memory_s
    assert (hf.gemm_s, hf.attention_s) == (fsdp.gemm_s, fsdp.attention_s)
    assert hf.memory_s - fsdp.memory_s == pytest.approx(5.5 * per_pass, rel=1e-9)
    # compiled (or Liger's kernels), an eager PyTorch-native stack's two
    assert _stage("llama3.2-3b", "HF Transformers/TRL", compiled=True).memory_s == pytest.approx(fsdp.memory_s)


def test_peft_adds_its_adapter_bytes_on_each_adapted_linears_input_and_output():
    # Llama 3.1 8B, all seven projections, 8,192 tokens: per layer the adapted inputs are
    # 3h (q, k, v) + q (o) + 2h (gate, up) + ffn (down) = 38,912 elements a token and the outputs
    # q + 2 kv + h + 2 ffn + h = 43,008; 3.3 bytes each, a forward pass, at 80% of 4.8 TB/s;
    # no recompute: the forward once and the backward twice its bytes (BWD_BYTES_RATIO)
    m = catalog.find_model("llama3.1-8b")
    elems = (3 * 4096 + 4096 + 2 * 4096 + 14336) + (4096 + 2 * 1024 + 4096 + 2 * 14336 + 4096)
    assert elems == 38912 + 43008
    fwd = 3.3 * elems * 8192 * m.layers / (4.8e12 * 0.8)
    peft = _stage("llama3.1-8b", "HF PEFT/TRL", method="lora")
    plain_passes = _stage("llama3.1-8b", "HF Transformers/TRL", method="lora")  # same passes, no PEFT
    assert rf.unfused_passes("HF Transformers/TRL", False) == rf.unfused_passes("HF PEFT/TRL", False)
    assert peft.memory_s == pytest.approx(plain_passes.memory_s)  # both run PEFT's layers under LoRA
    fsdp = _stage("llama3.1-8b", "FSDP2/torchtitan", method="lora")
    mega = _stage("llama3.1-8b", "Megatron-Core", method="lora")
    per_pass = fsdp.memory_s - mega.memory_s
    assert peft.memory_s - fsdp.memory_s == pytest.approx(5.5 * per_pass + fwd * 3, rel=1e-6)


def test_qwen3s_query_and_key_norms_are_catalogued_and_cost_element_wise_work():
    qwen3, qwen25 = catalog.find_model("qwen3-8b"), catalog.find_model("qwen2.5-7b")
    assert qwen3.qk_norm and catalog.find_model("qwen3-30b-a3b").qk_norm and catalog.find_model("gemma3-27b").qk_norm
    assert not qwen25.qk_norm and not catalog.find_model("llama3.1-8b").qk_norm
    with_norm = _stage("qwen3-8b", "Megatron-Core")
    without = rf.stage_time(
        qwen3.model_copy(update={"qk_norm": False, "name": "qwen3-8b-no-qk-norm"}), count_params(qwen3),
        catalog.get_gpu(H200), method="pretrain", lora_targets="all", framework="Megatron-Core", **KW,
    )  # fmt: skip
    # read and write each query and key element once more: 2 x (32 + 8) x 128 elements a token,
    # 2 bytes, one pass, forward once and backward twice, 36 layers
    extra = 2 * (32 + 8) * 128 * 2 * 8192 * 36 * 3 / (4.8e12 * 0.8)
    assert with_norm.memory_s - without.memory_s == pytest.approx(extra, rel=1e-6)


def _plan(text):
    req = parse(text)
    m, setup = model_shape(req), training_setup(req)
    gpu = catalog.get_gpu(req.gpu)
    est = best_layout(m, setup, gpu, req.gpu_count)
    return m, setup, gpu, est


def test_the_adapted_linears_counted_are_the_ones_listed():
    m = catalog.find_model("llama3.1-8b")
    for targets, names in rf.LORA_TARGETS.items():
        assert len(rf.lora_linears(m, 1, 1, 16, targets)) == 2 * len(names) == 2 * len(rf.lora_shapes(m, targets))


def test_the_host_launch_floor_of_an_hf_forward():
    # Llama 3.1 8B LoRA on all seven projections under full recompute: 32 layers x (55 + 7 x 5)
    # kernels, the forward twice, 45 us each: 259.2 ms a micro-batch
    m, setup, gpu, est = _plan(
        "llama3.1-8b lora r=16 targets all 1B tokens seq 2048 mbs 1 gbs 1 recompute full hf on 1xH200"
    )
    c = count_params(m)
    assert th.host_floor_s(m, setup, est.layout, c) == pytest.approx(32 * 90 * 2 * 45e-6)
    # Qwen3's query and key norms add 14 kernels a layer; its MoE block 48 more on transformers 5
    m3, s3, _, e3 = _plan(
        "qwen3-30b-a3b lora r=16 targets attn 1B tokens seq 2048 mbs 1 gbs 1 recompute full hf on 1xH200"
    )
    assert th.host_floor_s(m3, s3, e3.layout, count_params(m3)) == pytest.approx(
        48 * (55 + 4 * 5 + 14 + 48) * 2 * 45e-6
    )
    # the floor is the HF stacks' alone, and a compiled model has none
    mc, sc, _, ec = _plan("llama3.1-8b lora 1B tokens mbs 1 gbs 1 recompute full hf compile on 1xH200")
    assert th.host_floor_s(mc, sc, ec.layout, count_params(mc)) == 0.0
    mm, sm, _, em = _plan("llama3.1-8b lora 1B tokens mbs 1 gbs 1 megatron on 1xH200")
    assert th.host_floor_s(mm, sm, em.layout, count_params(mm)) == 0.0


def test_host_and_gpu_combine_as_a_smooth_maximum():
    # the micro-batch is (gpu^3 + host^3)^(1/3): equal parts take 2^(1/3) = 1.26 of either
    m, setup, gpu, est = _plan(
        "llama3.1-8b lora r=16 targets all 1B tokens seq 2048 mbs 1 gbs 1 recompute full hf on 1xH200"
    )
    c = count_params(m)
    stage, eff, launch, t_mb, *_ = th.compute_time(m, setup, est.layout, gpu, c, None)
    gpu_s, host_s = stage.microbatch_s / eff, th.host_floor_s(m, setup, est.layout, c)
    assert eff == th.HF_MEASURED_EFFICIENCY == 0.95 and launch == 0.0
    assert t_mb == pytest.approx((gpu_s**3 + host_s**3) ** (1 / 3))
    assert max(gpu_s, host_s) < t_mb < gpu_s + host_s


def test_the_stacks_that_run_the_hf_model_share_the_measured_factor():
    for framework in ("HF Transformers/TRL", "HF PEFT/TRL", "DeepSpeed"):
        assert th.framework_efficiency(framework) == 0.95
    assert th.framework_efficiency("Megatron-Core") == th.framework_efficiency("FSDP2/torchtitan") == 0.76


@pytest.mark.parametrize(
    "words", ["liger", "liger-kernel", "liger_kernel", "--use_liger_kernel", "use-liger-kernel", "enable_liger_kernel"]
)
def test_ligers_kernels_are_planned_as_a_compiled_model(words):
    req = parse(f"7b lora 20GB 3d {words}")
    assert req.compile and training_setup(req).compiled
    assert parse(canonical(req)).compile
    # and its fused linear cross entropy, on by default and kept by LLaMA-Factory for SFT and
    # pre-training; preference tuning needs the logits, so there it is off
    assert req.chunked_loss and training_setup(req).chunked_loss and parse(canonical(req)).chunked_loss
    assert not parse(f"7b lora dpo 20k pairs 3d {words}").chunked_loss


def test_ligers_fused_loss_keeps_a_7b_lora_on_one_4090_without_offloading():
    # the eager loss's fp32 logits over Qwen's 152k vocabulary (11.6 GiB at 2 x 4,096 tokens) had
    # pushed the frozen base off the card even with `liger` said
    text = "qwen2.5-7b lora 20k samples on 1x4090"
    eager = best_layout(model_shape(parse(text)), training_setup(parse(text)), catalog.get_gpu("RTX4090-24GB"), 1)
    req = parse(text + " liger")
    fused = best_layout(model_shape(req), training_setup(req), catalog.get_gpu("RTX4090-24GB"), 1)
    assert eager.layout.offload == "all" and fused.layout.offload == "none" and fused.fits


def test_an_offload_the_fused_loss_would_spare_says_so(cli):
    """The offload warning names Liger's fused loss where the same GPUs then hold everything
    (the eager fp32 logits were what pushed the base off the card), and not where the states
    themselves are too big (70B on 8 H100) or the loss is chunked already."""

    def offload(text):
        out = cli("ask", "--json", text)
        assert out.returncode == 0, out.stderr
        answer = json.loads(out.stdout)
        note = next(w for w in answer["warning_codes"] if w["code"] == "offload")
        return note["params"]["fused_loss"], answer

    spared, answer = offload("qwen2.5-7b lora 20k samples on 1x4090")
    assert spared and "say `liger`" in " ".join(answer["warnings"])
    assert not offload("70B full-finetune 1TB 14d on 8xH100")[0]
    out = json.loads(cli("ask", "--json", "qwen2.5-7b lora 20k samples on 1x4090 chunked-loss").stdout)
    assert out["plan"]["offload"] == "none"  # what the warning promised
