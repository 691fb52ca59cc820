"""The multiple of its training pass a whole GRPO step takes, as the RL refusal states it
(advisor/request/parser.py RL_STEP_MULTIPLE), against NVIDIA's published NeMo RL runs
(bench/calibration/rl_grpo_nemo_rl.csv) and the engine's own training time for their tokens."""

import csv
from pathlib import Path

import pytest

from advisor.planning.advice import advise
from advisor.request.parser import RL_STEP_MULTIPLE, RequestError, parse

ROWS = list(csv.DictReader((Path(__file__).parent.parent / "bench/calibration/rl_grpo_nemo_rl.csv").open()))


@pytest.mark.parametrize("row", [r for r in ROWS if r["model"] != "deepseek-v3"], ids=lambda r: r["model"])
def test_the_stated_multiple_covers_the_published_steps(book, row):
    gpus = int(row["gpus"])
    step_tokens = float(row["tokens_per_s_per_gpu"]) * float(row["step_s"]) * gpus
    # the engine's steady training rate on those GPUs (a large run, so its batch is not cut to the
    # step's few optimizer steps)
    plan = advise(f"{row['model']} full-finetune 5B tokens on {gpus}xH100 megatron seq {row['t_max_seq']}", book=book)
    train_s = step_tokens / (plan.plan.estimate.throughput.tokens_per_s_per_gpu * gpus)
    req = plan.request
    low, high = RL_STEP_MULTIPLE["moe" if req.active_params_b < req.params_b else "dense"]
    assert 0.9 * low <= float(row["step_s"]) / train_s <= 1.1 * high


def test_the_refusal_states_the_multiple_for_the_models_kind():
    with pytest.raises(RequestError) as dense:
        parse("qwen2.5-7b grpo 10k prompts 3d")
    with pytest.raises(RequestError) as moe:
        parse("qwen3-30b-a3b grpo 10k prompts")
    assert "allow {}-{} times".format(*RL_STEP_MULTIPLE["dense"]) in dense.value.message("en")
    assert "allow {}-{} times".format(*RL_STEP_MULTIPLE["moe"]) in moe.value.message("en")
