"""The per-operator roofline (advisor/engine/roofline.py) against hand-worked cases."""

import pytest

from advisor import catalog
from advisor.engine import roofline as rf
from advisor.engine.shapes import count_params


def test_large_bf16_gemm_runs_at_the_mamf_fraction_of_peak():
    h100 = catalog.get_gpu("H100")
    # 8192 x 8192 x 8192: 2*8192^3 = 1.1e12 FLOPs; tiles divide evenly; compute-bound.
    t = rf.gemm_seconds(8192, 8192, 8192, h100, "bf16")
    assert t == pytest.approx(2 * 8192**3 / (989e12 * 0.803), rel=1e-3)


def test_a_card_with_its_own_matmul_reading_runs_at_that_fraction():
    # H20: 142.25 TFLOPS measured of 148 rated (power to spare: 0.961); L4: 59.4 of 121 (72 W: 0.491)
    h20, l4 = catalog.get_gpu("H20"), catalog.get_gpu("L4")
    assert rf.mamf(h20, "bf16") == pytest.approx(142.25 / 148)
    assert rf.mamf(l4, "bf16") == pytest.approx(59.4 / 121)
    # FP8 runs at the same clock: Hopper's FP8 fraction scaled by the card's over Hopper's BF16 one
    assert rf.mamf(h20, "fp8") == pytest.approx(0.709 * (142.25 / 148) / 0.803)
    # a reading above the rated peak (RTX 5090, boost clocks) counts as the rated peak
    assert rf.mamf(catalog.get_gpu("RTX5090"), "bf16") == 1.0
    t = rf.gemm_seconds(8192, 8192, 8192, h20, "bf16")
    assert t == pytest.approx(2 * 8192**3 / (142.25e12), rel=1e-3)


def test_blackwell_ultra_runs_at_the_b200_fraction_and_the_rtx_pro_6000_at_its_reading():
    # no B300 MAMF is published: the B200's (Bekman: 77.6% BF16, 76.3% FP8) stands for it
    b300 = catalog.get_gpu("B300")
    assert rf.mamf(b300, "bf16") == rf.mamf(catalog.get_gpu("B200"), "bf16") == 0.776
    assert rf.mamf(b300, "fp8") == 0.763
    # RTX PRO 6000 Server Edition: 417.34 TFLOPS measured in a bf16 matmul of its 503.8 rated
    assert rf.mamf(catalog.get_gpu("RTX PRO 6000"), "bf16") == pytest.approx(417.34 / 503.8)


def test_the_l20_runs_at_its_reading_and_the_a10_at_amperes_fraction():
    # L20 (Ada, no MAMF published): 114.14 TFLOPS measured in a bf16 matmul of its 119.5 rated
    assert rf.mamf(catalog.get_gpu("L20"), "bf16") == pytest.approx(114.14 / 119.5)
    # A10: no reading found, so the Ampere table's fraction, as for the A100
    assert rf.mamf(catalog.get_gpu("A10"), "bf16") == rf.mamf(catalog.get_gpu("A100"), "bf16") == 0.869


def test_tile_quantisation_wastes_the_rest_of_the_last_tile():
    # M = 129 needs two 128-row tiles: 129 / 256 of them are useful.
    assert rf.tile_efficiency(129, 128) == pytest.approx(129 / 256)
    assert rf.tile_efficiency(4096, 4096) == 1.0


def test_thin_gemm_is_bandwidth_bound():
    a100 = catalog.get_gpu("A100-80GB")
    # LoRA's x A: 4096 tokens x 4096 in x rank 16: bytes 2*(4096*4096 + 4096*16) + 2*4096*16.
    t = rf.gemm_seconds(4096, 16, 4096, a100, "bf16")
    moved = 2 * (4096 * 4096 + 4096 * 16) + 2 * 4096 * 16
    assert t == pytest.approx(moved / (a100.memory_bw_tb_s * 1e12 * rf.ETA_HBM), rel=1e-6)


def test_fp8_gemm_runs_at_the_fp8_mamf_of_the_fp8_peak():
    h100 = catalog.get_gpu("H100")
    t = rf.gemm_seconds(8192, 8192, 8192, h100, "fp8")
    assert t == pytest.approx(2 * 8192**3 / (h100.fp8_dense_tflops * 1e12 * 0.709), rel=1e-3)


def test_expert_gemms_are_grouped_by_tokens_per_expert():
    v3 = catalog.find_model("deepseek-v3")
    # 4096 tokens, top-8 of 256 experts, ep 64: 4 local experts, 4096*8/4 = 8192 tokens each.
    experts = [lin for lin in rf.layer_linears(v3, 4096, tp=1, ep=64, moe_layer=True, etp=1) if lin.count > 1]
    assert all(lin.count == 4 and lin.m == 8192 for lin in experts)
    up, down = experts
    assert (up.n, up.k, down.n, down.k) == (2 * 2048, 7168, 7168, 2048)


def test_fp8_applies_to_linear_layers_only():
    m = catalog.find_model("llama3.1-8b")
    h100 = catalog.get_gpu("H100")
    c = count_params(m)
    kw = dict(method="pretrain", lora_rank=16, lora_targets="all", seq=8192, micro_batch=1, tp=1, pp=1, ep=1,
              etp=1, cp=1, recompute="none", optimizer_params=8e9 / 8, attention="best")  # fmt: skip
    bf16 = rf.stage_time(m, c, h100, precision="bf16", **kw)
    fp8 = rf.stage_time(m, c, h100, precision="fp8", **kw)
    # the attention core is the same; GEMMs faster but not 2x (the output head stays bf16);
    # casts add bandwidth-bound time
    assert fp8.attention_s == pytest.approx(bf16.attention_s)
    assert 1.2 < bf16.gemm_s / fp8.gemm_s < 2.0
    assert fp8.memory_s > bf16.memory_s
    assert bf16.microbatch_s / fp8.microbatch_s < 1.6


def test_context_parallel_halves_a_gpus_tokens():
    m = catalog.find_model("llama3.1-8b")
    h100 = catalog.get_gpu("H100")
    c = count_params(m)
    kw = dict(precision="bf16", method="pretrain", lora_rank=16, lora_targets="all", seq=8192, micro_batch=1, tp=1,
              pp=1, ep=1, etp=1, recompute="none", optimizer_params=1e9, attention="best")  # fmt: skip
    one, two = rf.stage_time(m, c, h100, cp=1, **kw), rf.stage_time(m, c, h100, cp=2, **kw)
    assert two.gemm_s == pytest.approx(one.gemm_s / 2, rel=0.02)
    assert two.attention_s == pytest.approx(one.attention_s / 2, rel=1e-6)


def test_a_compiled_model_passes_over_memory_once_as_megatron_does():
    assert rf.unfused_passes("FSDP2/torchtitan", compiled=False) == (rf.UNFUSED_PASSES_DEFAULT, 0.0) == (2.0, 0.0)
    assert rf.unfused_passes("FSDP2/torchtitan", compiled=True) == (1.0, 0.0)
    assert rf.unfused_passes("Megatron-Core", compiled=False) == (1.0, 0.0)
    # the Hugging Face model code: measured eager; compiled (or Liger's kernels), an eager
    # PyTorch-native stack's count; PEFT's adapter layers either way
    assert rf.unfused_passes("HF PEFT/TRL", compiled=False) == (7.5, 3.3)
    assert rf.unfused_passes("DeepSpeed", compiled=True) == (2.0, 3.3)
    m = catalog.find_model("llama3.1-8b")
    h100 = catalog.get_gpu("H100")
    kw = dict(precision="bf16", method="pretrain", lora_rank=16, lora_targets="all", seq=8192, micro_batch=2,
              tp=1, pp=1, ep=1, etp=1, cp=1, recompute="none", optimizer_params=1e9, attention="best",
              framework="FSDP2/torchtitan")  # fmt: skip
    eager = rf.stage_time(m, count_params(m), h100, compiled=False, **kw)
    fused = rf.stage_time(m, count_params(m), h100, compiled=True, **kw)
    # only the bandwidth-bound operators change, by their unfused passes (the loss's logits are
    # written once either way, so a little less than half)
    assert (fused.gemm_s, fused.attention_s) == (eager.gemm_s, eager.attention_s)
    assert 0.45 * eager.memory_s < fused.memory_s < 0.6 * eager.memory_s


def test_the_request_says_the_model_compiles():
    from advisor.planning.engine_inputs import training_setup
    from advisor.request.parser import parse

    assert training_setup(parse("8b full-finetune 1GB 1d compile")).compiled
    assert training_setup(parse("8b 全量微调 1GB 1天 编译")).compiled
    assert not training_setup(parse("8b full-finetune 1GB 1d")).compiled


def test_samples_shorter_than_the_sequence_attend_within_themselves():
    from advisor.engine.setup import TrainingSetup
    from advisor.engine.throughput import flops_per_token

    m = catalog.find_model("llama3.1-8b")
    h100 = catalog.get_gpu("H100")
    kw = dict(precision="bf16", method="full-finetune", lora_rank=16, lora_targets="all", seq=4096, micro_batch=1,
              tp=1, pp=1, ep=1, etp=1, cp=1, recompute="none", optimizer_params=1e9, attention="best")  # fmt: skip
    whole = rf.stage_time(m, count_params(m), h100, **kw)
    samples = rf.stage_time(m, count_params(m), h100, context=1024, **kw)
    # causal keys: (1024 / 2) against (4096 / 2) a query, the same tokens through the same GEMMs
    assert samples.attention_s == pytest.approx(whole.attention_s / 4)
    assert (samples.gemm_s, samples.memory_s) == (whole.gemm_s, whole.memory_s)
    # the model FLOPs count the same keys: 12 L s q with s the sample, not the sequence
    full = flops_per_token(m, TrainingSetup(seq_len=4096), "none")[0]
    short = flops_per_token(m, TrainingSetup(seq_len=4096, sample_tokens=1024), "none")[0]
    assert full - short == pytest.approx(12 * m.layers * (4096 - 1024) * m.heads * m.head_dim)


def test_a_sample_count_with_its_length_plans_attention_within_the_samples():
    from advisor.planning.engine_inputs import training_setup
    from advisor.request.parser import parse

    short = parse("8b full-finetune 50k samples avg 1k tokens 1d")
    assert training_setup(short).attention_context == 1000
    assert "attention_per_sample" in [n.code for n in short.assumptions]
    assert training_setup(parse("8b full-finetune 50M tokens 1d")).attention_context == 4096
    assert training_setup(parse("8b full-finetune 50k samples avg 6k tokens seq 4096 1d")).attention_context == 4096


def test_fp32_runs_at_the_fp32_rate_unless_tf32_is_allowed():
    """PyTorch leaves TF32 off for fp32 matmuls (since 1.12): `fp32` is timed at the CUDA-core
    FP32 peak, `tf32` at the TF32 tensor-core peak; a GPU without TF32 (V100) is the same both ways."""
    from advisor import catalog
    from advisor.engine.estimate import best_layout
    from advisor.planning.engine_inputs import model_shape, training_setup
    from advisor.request.parser import parse

    def speed(text):
        r = parse(text)
        est = best_layout(model_shape(r), training_setup(r), catalog.get_gpu(r.gpu), r.gpu_count)
        return est.throughput.tokens_per_s_per_gpu

    h100 = catalog.get_gpu("H100-SXM5-80GB")
    assert h100.peak_tflops("fp32") == h100.fp32_tflops < h100.peak_tflops("tf32") == h100.tf32_dense_tflops
    fp32 = speed("7b full-finetune 1B tokens fp32 on 8xH100")
    tf32 = speed("7b full-finetune 1B tokens fp32 tf32 on 8xH100")
    bf16 = speed("7b full-finetune 1B tokens bf16 on 8xH100")
    # the matmuls carry most of the step: the ratio approaches the peaks' (494.7 / 66.9 = 7.4)
    assert 4 < tf32 / fp32 < h100.tf32_dense_tflops / h100.fp32_tflops
    assert tf32 < bf16
    assert speed("7b full-finetune 1B tokens fp32 on 8xV100") == speed("7b full-finetune 1B tokens tf32 on 8xV100")


def test_fp32_says_what_it_assumes_of_tf32():
    from advisor.request.canonical import canonical
    from advisor.request.parser import parse

    r = parse("7b full-finetune 1B tokens fp32 on 8xA100")
    assert r.precision == "fp32" and not r.tf32
    assert "fp32_matmuls" in [n.code for n in r.assumptions]
    alone = parse("7b full-finetune 1B tokens tf32 on 8xA100")
    assert alone.precision == "fp32" and alone.tf32
    assert "fp32_matmuls" not in [n.code for n in alone.assumptions]
    assert parse(canonical(alone)).tf32  # the canonical form keeps it
    # V100 has no TF32: nothing to say; bf16 with `tf32` keeps bf16
    assert "fp32_matmuls" not in [n.code for n in parse("7b full-finetune 1B tokens fp32 on 8xV100").assumptions]
    assert not parse("7b full-finetune 1B tokens bf16 tf32 on 8xA100").tf32


def test_attention_on_mi300x_runs_at_amds_measured_kernel_fractions():
    # aiter's assembly kernels on MI300X: about 0.42 of peak forward, 0.36 backward (seq >= 4k)
    assert rf.attention_efficiency(catalog.get_gpu("MI300X"), "best") == (0.42, 0.36)
    assert rf.attention_efficiency(catalog.get_gpu("H100"), "best") == (rf.ETA_ATTN_FWD, rf.ETA_ATTN_BWD)


def test_megatron_selective_recompute_charges_the_forward_of_its_modules():
    m = catalog.find_model("llama3.1-8b")
    h100 = catalog.get_gpu("H100")
    c = count_params(m)
    kw = dict(precision="bf16", method="pretrain", lora_rank=16, lora_targets="all", seq=8192, micro_batch=1, tp=1,
              pp=1, ep=1, etp=1, cp=1, optimizer_params=1e9, attention="best")  # fmt: skip
    none = rf.stage_time(m, c, h100, recompute="none", **kw)
    # the MLP's two GEMMs forward again, once per layer (its SwiGLU's passes beside them)
    mlp = rf.stage_time(m, c, h100, recompute="selective", recompute_modules=("mlp",), **kw)
    gemms = [lin for lin in rf.layer_linears(m, 8192, 1, 1, False, 1) if lin.role == "mlp"]
    again = m.layers * sum(rf.gemm_seconds(lin.m, lin.n, lin.k, h100, "bf16") for lin in gemms)
    assert mlp.gemm_s - none.gemm_s == pytest.approx(again)
    assert mlp.memory_s > none.memory_s
    # core_attn runs the attention core's forward again, and nothing else
    core = rf.stage_time(m, c, h100, recompute="selective", recompute_modules=("core_attn",), **kw)
    assert (core.gemm_s, core.memory_s) == (none.gemm_s, none.memory_s)
    assert none.attention_s < core.attention_s < 1.5 * none.attention_s


def test_the_stage_time_caches_are_keyed_by_every_gpu_figure_the_roofline_reads(monkeypatch):
    """The caches are keyed by `ROOFLINE_SPECS`, not the GPU's name, so that the A800 shares the
    A100's shapes: a figure read that the key leaves out would give another GPU a wrong time."""
    from advisor.engine import estimate, throughput
    from advisor.engine.estimate import best_layout
    from advisor.planning.engine_inputs import model_shape, training_setup
    from advisor.request.parser import parse

    read: set[str] = set()

    class Recording:
        """The GPU, noting each field read (its methods and properties run on the recording too)."""

        def __init__(self, gpu):
            self._gpu = gpu

        def __getattr__(self, name):
            on_class = getattr(type(self._gpu), name, None)
            if isinstance(on_class, property):
                return on_class.fget(self)
            if callable(on_class):
                return on_class.__get__(self)
            read.add(name)
            return getattr(self._gpu, name)

    original = rf.stage_time
    monkeypatch.setattr(throughput, "stage_time", lambda m, c, gpu, **kw: original(m, c, Recording(gpu), **kw))
    monkeypatch.setattr(rf, "_CACHE", {})
    monkeypatch.setattr(rf, "_PARTS", {})
    estimate._best_layout.cache_clear()  # searched again, on the recording GPUs
    for text in (
        "deepseek-v3 pretrain 1T tokens fp8 on 256xH800",
        "deepseek-v3 pretrain 1T tokens on 256xA100-80GB",
        "mixtral-8x7b full-finetune 1B tokens on 16xMI300X",
        "70b qlora 1B tokens on 2xA100-80GB",
        "7b full-finetune 1B tokens fp32 tf32 on 8xA100",
        "7b full-finetune 1B tokens fp16 on 8xV100",
        "13b pretrain 10B tokens on 16x910B",
        "7b lora 1B tokens on 4xL4",
    ):
        r = parse(text)
        best_layout(model_shape(r), training_setup(r), catalog.get_gpu(r.gpu), r.gpu_count)
    estimate._best_layout.cache_clear()  # their times are the recording's, cached for no one else
    assert read and read <= set(rf.ROOFLINE_SPECS), read - set(rf.ROOFLINE_SPECS)
    a100, a800 = catalog.get_gpu("A100-SXM4-80GB"), catalog.get_gpu("A800-SXM4-80GB")
    assert rf._specs(a100) == rf._specs(a800)  # the A800 differs in its NVLink alone
