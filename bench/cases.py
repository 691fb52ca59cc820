"""The calibration rows as /gpu requests, with what was measured and how it was read.

Each case names the published row (bench/calibration/*.csv), the request text that expresses
it, and the measured figures to compare. Rows the request language cannot express are
listed in NOT_EXPRESSIBLE with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TimeCase:
    row: str
    request: str
    gpu_hours: float | None = None
    days: float | None = None
    tokens_per_s_per_gpu: float | None = None
    mfu: float | None = None
    hw_tflops: float | None = None  # hardware TFLOP/s per GPU (recompute counted)
    note: str = ""


@dataclass(frozen=True)
class MemoryCase:
    row: str
    request: str
    measured_gb: float  # decimal GB, as published
    reading: str  # "torch" (max_memory_allocated) or "nvidia-smi" (includes CUDA context)
    note: str = ""


TIME_CASES = [
    TimeCase(
        "LLaMA-65B",
        "llama1-65b pretrain 1.4T tokens seq 2048 on 2048xA100-80GB",
        gpu_hours=1022362,
        days=21,
        tokens_per_s_per_gpu=380,
    ),
    TimeCase(
        "Llama 2 7B",
        "llama2-7b pretrain 2T tokens seq 4096 on 1024xA100-80GB",
        gpu_hours=184320,
        note="GPU count not published; 1024 assumed (GPU-hours barely depend on it)",
    ),
    TimeCase(
        "OPT-175B",
        "opt-175b pretrain 300B tokens seq 2048 fp16 recompute full zero2 on 992xA100-80GB",
        gpu_hours=809472,
        days=33,
        hw_tflops=147,
        note="metaseq's OPT recipe (metaseq/launcher/opt_baselines.py) trains with"
        " --checkpoint-activations and FSDP without resharding (ZeRO-2)",
    ),
    TimeCase(
        "BLOOM-176B",
        "bloom-176b pretrain 366B tokens seq 2048 recompute full on 384xA100-80GB",
        gpu_hours=1082990,
        days=118,
        hw_tflops=150,
    ),
    TimeCase(
        "TinyLlama-1.1B (per 300B tokens)",
        "tinyllama-1.1b pretrain 300B tokens seq 2048 on 16xA100-40GB",
        gpu_hours=3456,
        tokens_per_s_per_gpu=24000,
        mfu=0.56,
    ),
    TimeCase(
        "Megatron-LM GPT 1T (throughput)",
        "megatron-gpt-1t pretrain 1T tokens seq 2048 fp16 recompute full gbs 3072 on 3072xA100-80GB",
        hw_tflops=163,
        note="Narayanan et al. count recompute in their 163 TFLOP/s",
    ),
    TimeCase(
        "Megatron-Core GPT 462B (throughput)",
        "megatron-gpt-462b pretrain 1T tokens seq 4096 on 6144xH100",
        hw_tflops=459.9,
        mfu=0.47,
        note="model shape partly unverified (see data/models.toml)",
    ),
    TimeCase(
        "MPT-70B (throughput)", "mpt-70b pretrain 1T tokens seq 2048 on 512xH100", tokens_per_s_per_gpu=1007, mfu=0.4125
    ),
    TimeCase(
        "MPT-7B (throughput)",
        "mpt-7b pretrain 1T tokens seq 2048 on 128xA100-40GB",
        tokens_per_s_per_gpu=3623,
        mfu=0.5014,
    ),
]

MEMORY_CASES = [
    MemoryCase(
        "bloomz-7b1 LoRA r=8",
        "bloomz-7b1 lora r=8 targets qv fp32 mbs 8 seq 64 recompute none on 1xA100-80GB",
        32.0,
        "torch",
        "PEFT's examples read torch.cuda.memory_allocated (TorchTracemalloc)",
    ),
    MemoryCase(
        "Llama 3.1 8B full fine-tune",
        "llama3.1-8b full-finetune pure-bf16 adamw8bit opt-in-bwd offload mbs 2 seq 2048 recompute full on 1x4090",
        20.29,
        "torch",
        "PagedAdamW8bit pages its states to host memory when the card is full: modelled as optimizer offload",
    ),
    MemoryCase(
        "Llama 3.1 8B LoRA r=8 q+v",
        "llama3.1-8b lora r=8 targets qv mbs 2 seq 2048 recompute full on 1x4090",
        17.39,
        "torch",
    ),
    MemoryCase(
        "Llama 3.1 8B QLoRA r=8",
        "llama3.1-8b qlora r=8 targets qv mbs 2 seq 2048 recompute full on 1x4090",
        7.95,
        "torch",
    ),
]

NOT_EXPRESSIBLE = {
    "T0_3B full fine-tune (encoder-decoder)": (
        "encoder-decoder model: the request language and engine cover decoders only"
    ),
    "T0_3B LoRA r=8 (encoder-decoder)": "encoder-decoder model: the request language and engine cover decoders only",
    "bert-large full fine-tune": "encoder-only model (BERT): not a decoder",
}

# Published runs outside shared/calibration, used only to check that the engine generalises
# (never to fit it). GPU counts marked "assumed" are not published; GPU-hours barely depend
# on them.
HELD_OUT = [
    TimeCase(
        "Llama 2 13B",
        "llama2-13b pretrain 2T tokens seq 4096 on 1024xA100-80GB",
        gpu_hours=368640,
        note="meta-llama/llama-models models/llama2/MODEL_CARD.md; GPU count assumed",
    ),
    TimeCase(
        "Llama 2 70B",
        "llama2-70b pretrain 2T tokens seq 4096 on 2048xA100-80GB",
        gpu_hours=1720320,
        note="meta-llama/llama-models models/llama2/MODEL_CARD.md; GPU count assumed",
    ),
    TimeCase(
        "LLaMA-7B",
        "llama1-7b pretrain 1T tokens seq 2048 on 1024xA100-80GB",
        gpu_hours=82432,
        note="Touvron et al. 2023, Table 15; GPU count assumed",
    ),
    TimeCase(
        "Llama 3.1 8B",
        "llama3.1-8b pretrain 15T tokens seq 8192 on 2048xH100",
        gpu_hours=1.46e6,
        note="meta-llama/llama-models models/llama3_1/MODEL_CARD.md (all training, ~15T tokens); GPU count assumed",
    ),
    TimeCase(
        "Llama 3.1 70B",
        "llama3.1-70b pretrain 15T tokens seq 8192 on 6144xH100",
        gpu_hours=7.0e6,
        note="same model card; GPU count assumed",
    ),
    TimeCase(
        "Llama 3.1 405B",
        "llama3.1-405b pretrain 15.6T tokens seq 8192 on 16384xH100",
        gpu_hours=30.84e6,
        note="same model card; 16K H100s and 15.6T tokens from the Llama 3 paper",
    ),
    TimeCase(
        "DeepSeek-V3 pre-training",
        "deepseek-v3 pretrain 14.8T tokens seq 4096 fp8 on 2048xH800",
        gpu_hours=2.664e6,
        note="DeepSeek-V3 technical report: 2,664K H800 GPU-hours on 2,048 H800s",
    ),
    TimeCase(
        "DeepSeek-V3 from its size alone",
        "671B-A37B pretrain 14.8T tokens 60d fp8 on H800",
        gpu_hours=2.664e6,
        note="same report; only the GPU type is given: the generic MoE shape, the"
        " count (smallest that meets 60 days) and the layout are the engine's",
    ),
]
