"""The multiple of its training pass a whole GRPO step takes, as the RL refusal states it
(advisor/request/parser.py RL_STEP_MULTIPLE), against NVIDIA's published NeMo RL runs
(bench/calibration/rl_grpo_nemo_rl.csv) and the engine's own training time for their tokens."""

import csv
import re
from pathlib import Path

import pytest

from advisor.planning.advice import advise, refusal
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


def _refused(text: str) -> RequestError:
    with pytest.raises(RequestError) as info:
        parse(text)
    return info.value


def test_the_refusal_plans_the_floor_and_the_whole_run_at_the_multiples(book):
    # it had given the floor's request to send: the GPUs, time and rent of the update and of the whole
    # run are the floor planned, times the published multiples
    err = _refused("qwen2.5-7b grpo 10k prompts 3d")
    low, high = RL_STEP_MULTIPLE["dense"]
    # the update planned to take a seventh of the 3 days, so the whole run fits them
    floor = advise(err.details["example"].replace(" 3d", f" {3 / high:.3g}d"), book=book).plan
    text = refusal(err, "en", book)
    assert text.startswith(err.message("en"))
    assert f"{floor.estimate.layout.gpu_count} x {floor.gpu}" in text and f"1/{high} of your 3 days" in text
    assert floor.days * high <= 3
    assert f"At {low}-{high} times that, the whole run takes about" in text
    rents = [float(r.replace(",", "")) for r in re.findall(r"rent about ¥([\d,.]+)-¥([\d,.]+)", text)[0]]
    assert rents == pytest.approx(
        [floor.costs.rent_per_gpu_hour * floor.estimate.layout.gpu_count * floor.days * 24 * k for k in (low, high)],
        rel=0.02,
    )


def test_gpus_named_keep_the_update_on_them_and_the_whole_run_is_set_against_the_deadline(book):
    err = _refused("qwen3-30b-a3b grpo 100k prompts 1d on 8 H100")
    text = refusal(err, "en", book)
    assert "8 x H100-SXM5-80GB" in text and "of your" not in text
    assert "at the high end is more than your 1 day" in text
    assert "超过了你的 1 天" in refusal(err, "zh", book)


def test_other_refusals_are_their_message_alone(book):
    err = _refused("70B full-finetune 1TB 0d")
    assert refusal(err, "en", book) == err.message("en")
