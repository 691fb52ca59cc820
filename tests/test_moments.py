"""The request word for AdamW's moments in bf16 (`moments bf16`, `bf16 moments`, a pasted
`--exp-avg-dtype bf16`, `优化器状态bf16`): Megatron-Core's precision-aware optimizer, read in
English and Chinese, planned on Megatron-Core with 2-byte moments (and, for bf16 parameters,
Transformer Engine's 2-byte master-weight remainders), said on the request line and in the
memory arithmetic, refused with another optimizer, pure bf16 or another stack."""

import json

import pytest

from advisor.engine.memory import GIB
from advisor.engine.setup import TrainingSetup
from advisor.planning.advice import advise_request
from advisor.request.parser import RequestError, parse

# ms-swift's Qwen3-14B TP4 layout (examples/megatron/fp8/benchmark.sh) on 8 H20: dp 2, ZeRO-1
JOB = "qwen3-14b full-finetune 1B tokens seq 8192 mbs 1 gbs 16 tp 4 recompute-modules core_attn "


@pytest.mark.parametrize(
    "words",
    [
        "moments bf16",
        "bf16 moments",
        "adam bf16 moments",
        "optimizer states bf16",
        "--use-precision-aware-optimizer --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16",
        "--use_precision_aware_optimizer true --exp_avg_dtype bf16 --exp_avg_sq_dtype bf16",
        "优化器状态bf16",
    ],
)
def test_every_spelling_reads_as_bf16_moments(words):
    r = parse(JOB + words + " on 8xH20")
    assert r.moments == "bf16" and r.precision == "bf16"
    assert not any(n.code == "read_past" for n in r.assumptions)


def test_unsaid_the_moments_are_fp32():
    assert parse(JOB + "on 8xH20").moments is None


@pytest.mark.parametrize(
    "precision,fp32_bytes,bf16_bytes",
    [
        # AdamW in bf16 mixed precision: 4 + 4 moments + 4 master = 12 (ZeRO paper); bf16 moments
        # 2 + 2, and the fp32 master kept as 16-bit remainders beside the bf16 weight, 2: 6
        ("bf16", 12, 6),
        # FP8 (blockwise): Megatron-Core keeps its own fp32 main params, 4: 2 + 2 + 4 = 8
        ("fp8", 12, 8),
    ],
)
def test_the_optimizer_bytes_per_parameter_by_hand(precision, fp32_bytes, bf16_bytes):
    from advisor.engine.memory import optimizer_bytes_per_param

    assert optimizer_bytes_per_param(TrainingSetup(precision=precision)) == fp32_bytes
    assert optimizer_bytes_per_param(TrainingSetup(precision=precision, moments="bf16")) == bf16_bytes


def _ask(cli, text):
    out = cli("ask", text, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_the_plan_halves_the_optimizer_states_on_megatron(cli):
    said = _ask(cli, JOB + "moments bf16 on 8xH20")
    plain = _ask(cli, JOB + "megatron on 8xH20")
    assert said["request"]["moments"] == "bf16" and said["plan"]["moments"] == "bf16"
    assert plain["request"]["moments"] is None and plain["plan"]["moments"] == "fp32"
    assert said["plan"]["framework"] == "Megatron-Core" and said["plan"]["tp"] == 4 and said["plan"]["dp"] == 2
    # the optimizer states of the parameters on one GPU, sharded over dp 2 (ZeRO-1): x 6 B, not 12
    params = said["memory_gib_per_gpu"]["optimizer"] * GIB * 2 / 6
    assert plain["memory_gib_per_gpu"]["optimizer"] == pytest.approx(params * 12 / 2 / GIB, rel=0.01)
    assert 3.6e9 < params < 3.8e9  # Qwen3-14B's 14.8B parameters over tp 4


def test_the_request_line_and_the_arithmetic_say_it(cli):
    out = cli("ask", JOB + "moments bf16 on 8xH20")
    assert ", Adam moments in bf16" in out.stdout
    assert "x 6 B optimizer" in out.stdout
    zh = cli("ask", JOB + "优化器状态bf16 用8xH20", "--lang", "zh")
    assert "Adam 动量为 bf16" in zh.stdout


@pytest.mark.parametrize(
    "text,reason",
    [
        ("qwen3-14b full-finetune 1B tokens deepspeed moments bf16 on 8xH20", "moments_framework"),
        ("qwen3-14b full-finetune 1B tokens hf moments bf16 on 8xH20", "moments_framework"),
        ("qwen3-14b full-finetune 1B tokens offload all moments bf16 on 8xH20", "moments_framework"),
        # the precision-aware optimizer runs on the distributed optimizer alone
        ("qwen3-14b full-finetune 1B tokens megatron zero 0 moments bf16 on 8xH20", "moments_framework"),
        ("qwen3-14b full-finetune 1B tokens ddp moments bf16 on 8xH20", "moments_framework"),
        ("qwen3-14b full-finetune 1B tokens lion moments bf16 on 8xH20", "moments_optimizer"),
        ("qwen3-14b full-finetune 1B tokens adamw8bit moments bf16 on 8xH20", "moments_optimizer"),
        ("qwen3-14b full-finetune 1B tokens pure-bf16 moments bf16 on 8xH20", "moments_optimizer"),
    ],
)
def test_where_it_cannot_run_it_is_refused(cli, text, reason):
    out = cli("ask", text, "--json")
    assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr
    assert "`moments bf16`" in out.stderr and "Megatron-Core" in out.stderr
    with pytest.raises(RequestError) as info:
        advise_request(parse(text), book=None)
    assert info.value.details["reason"] == reason
