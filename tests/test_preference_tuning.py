"""Preference tuning (DPO and its kin): the reference model's forward and weights, pairs of
sequences, worked by hand against the engine and planned end to end."""

import json

import pytest

from advisor import catalog
from advisor.engine import roofline as rf
from advisor.engine.estimate import micro_batches
from advisor.engine.frameworks import HF, MEGATRON
from advisor.engine.layout import ModelSplit
from advisor.engine.memory import GIB, estimate_memory, parameters_on_this_gpu
from advisor.engine.setup import TrainingSetup
from advisor.engine.shapes import active_count, count_params
from advisor.engine.throughput import estimate_throughput, flops_per_token
from advisor.planning.engine_inputs import training_setup
from advisor.request.parser import RequestError, parse

LLAMA8 = catalog.find_model("llama3.1-8b")
H100 = catalog.get_gpu("H100")


def _layout(**kw):
    base = dict(gpu=H100.name, gpu_count=8, gpus_per_node=8, nodes=1, dp=8, zero_stage=3, micro_batch=2)
    return ModelSplit(**(base | kw))


def _matmul_params(m):
    c = count_params(m)
    return active_count(m, c) - c.embedding + (c.embedding if m.tied_embeddings else 0)


@pytest.mark.parametrize("method,passes", [("full-finetune", 6), ("lora", 4)])
def test_the_reference_forward_adds_2n_and_a_third_of_the_attention_a_token(method, passes):
    plain = TrainingSetup(method=method, seq_len=4096)
    dpo = plain.model_copy(update={"reference_forward": True})
    model, hardware, attention = flops_per_token(LLAMA8, plain, "none")
    model_dpo, hardware_dpo, attention_dpo = flops_per_token(LLAMA8, dpo, "none")
    n = _matmul_params(LLAMA8)
    assert model == pytest.approx(passes * n + attention)
    # the reference's forward: 2N and the attention's forward (one of its three matmul passes),
    # counted as model FLOPs (work the method needs, not a rerun): 8N for full DPO, 6N under LoRA
    assert model_dpo == pytest.approx((passes + 2) * n + attention * 4 / 3)
    assert hardware_dpo == model_dpo and attention_dpo == attention


def test_the_reference_forward_runs_every_layer_and_the_head_once_more():
    c = count_params(LLAMA8)
    kw = dict(precision="bf16", method="full-finetune", lora_rank=16, lora_targets="all", seq=4096, micro_batch=2,
              tp=1, pp=1, ep=1, etp=1, cp=1, optimizer_params=1e9, attention="best")  # fmt: skip
    plain = rf.stage_time(LLAMA8, c, H100, recompute="none", **kw)
    full = rf.stage_time(LLAMA8, c, H100, recompute="full", recomputed=1.0, **kw)
    dpo = rf.stage_time(LLAMA8, c, H100, recompute="none", reference=1, **kw)
    head = rf.gemm_seconds(4096 * 2, LLAMA8.vocab, LLAMA8.hidden, H100, "bf16")
    # full recompute reruns each layer's forward; the reference runs it too, and the head's
    assert dpo.gemm_s - plain.gemm_s == pytest.approx(full.gemm_s - plain.gemm_s + head)
    assert dpo.attention_s - plain.attention_s == pytest.approx(full.attention_s - plain.attention_s)
    assert dpo.memory_s > plain.memory_s


@pytest.mark.parametrize(
    "method,precision,bytes_per_param",
    [("full-finetune", "bf16", 2.0), ("full-finetune", "fp32", 4.0), ("lora", "bf16", 0.0), ("qlora", "bf16", 0.0)],
)
def test_the_reference_weights_are_a_sharded_copy_under_full_fine_tuning_and_none_under_lora(
    method, precision, bytes_per_param
):
    layout = _layout(dp=8, zero_stage=3, framework=HF)
    plain = TrainingSetup(method=method, precision=precision, seq_len=4096)
    dpo = plain.model_copy(update={"reference_forward": True})
    before, after = estimate_memory(LLAMA8, plain, layout, H100), estimate_memory(LLAMA8, dpo, layout, H100)
    # ZeRO-3 over 8: the reference's parameters sharded as the policy's (TRL's _prepare_deepspeed)
    shard = parameters_on_this_gpu(count_params(LLAMA8), layout).total / 8
    assert (after.weights - before.weights) * GIB == pytest.approx(bytes_per_param * shard, rel=1e-6)
    assert any(n["kind"] == "reference" for n in after.notes) == (bytes_per_param > 0)


def test_the_reference_copy_is_whole_where_the_weights_are_replicated():
    layout = _layout(dp=8, zero_stage=1, framework=MEGATRON, tp=1)
    plain = TrainingSetup(method="full-finetune", seq_len=4096)
    dpo = plain.model_copy(update={"reference_forward": True})
    added = estimate_memory(LLAMA8, dpo, layout, H100).weights - estimate_memory(LLAMA8, plain, layout, H100).weights
    assert added * GIB == pytest.approx(2 * parameters_on_this_gpu(count_params(LLAMA8), layout).total, rel=1e-6)


def test_zero3_gathers_the_weights_once_more_for_the_reference():
    layout = ModelSplit(gpu=H100.name, gpu_count=16, gpus_per_node=8, nodes=2, dp=16, zero_stage=3, micro_batch=2)
    plain = TrainingSetup(method="full-finetune", seq_len=4096, paired=True)
    dpo = plain.model_copy(update={"reference_forward": True})
    a = estimate_throughput(LLAMA8, plain, layout, H100)
    b = estimate_throughput(LLAMA8, dpo, layout, H100)
    # two gathers and a reduce-scatter a micro-batch become three gathers and a reduce-scatter
    assert b.step["data_s"] > a.step["data_s"] * 1.2


def test_a_pair_is_two_sequences_in_the_smallest_micro_batch():
    single = TrainingSetup(method="full-finetune", seq_len=4096)
    paired = single.model_copy(update={"paired": True})
    assert next(micro_batches(single, dp=8, seqs=8)) == 1
    assert next(micro_batches(paired, dp=8, seqs=8)) == 2
    assert all(mbs % 2 == 0 for mbs in micro_batches(paired, dp=1, seqs=1024))


def test_batches_said_in_pairs_are_twice_as_many_sequences():
    setup = training_setup(parse("8b dpo 20k pairs mbs 2 gbs 64 2d"))
    assert (setup.pinned.micro_batch, setup.global_batch) == (4, 128)
    assert setup.reference_forward and setup.paired
    orpo = training_setup(parse("8b orpo 20k pairs 2d"))
    assert orpo.paired and not orpo.reference_forward
    kto = training_setup(parse("8b kto 20k samples 2d"))
    assert kto.reference_forward and not kto.paired


def test_a_dpo_plan_costs_more_than_fine_tuning_on_the_chosen_responses_alone(cli):
    sft = json.loads(cli("ask", "llama3.1-8b sft 20k samples on 8xH100", "--json").stdout)
    dpo = json.loads(cli("ask", "llama3.1-8b dpo 20k pairs on 8xH100", "--json").stdout)
    assert dpo["request"]["preference_tuning"] == "dpo" and dpo["request"]["tokens"] == 2 * sft["request"]["tokens"]
    # twice the tokens at about 8N a token against 6N (the attention's share aside); the GPU-hours
    # follow, less what a pair's micro-batch of two sequences gains in MFU over one
    per_token = (dpo["training"]["flops"] / dpo["training"]["tokens"]) / (
        sft["training"]["flops"] / sft["training"]["tokens"]
    )
    assert 1.3 < per_token < 1.34, per_token
    ratio = dpo["training"]["gpu_hours"] / sft["training"]["gpu_hours"]
    assert 2.0 < ratio < 2.8, ratio
    text = cli("ask", "llama3.1-8b dpo 20k pairs on 8xH100").stdout
    assert "DPO on full-finetune" in text and "reference model" in text


def test_a_thread_asks_what_dpo_would_take_and_is_shown_the_change(cli):
    out = json.loads(cli("ask", "7b 20k samples 2d", "--follow-up", "what if we use dpo?", "--json").stdout)
    reply = out["follow_ups"][0]
    # it had read as "nothing changes" (the field showed in the method, which stays)
    assert reply["kind"] == "whatif"
    assert reply["changes"] == [{"name": "preference_tuning", "before": "full-finetune", "after": "DPO"}]


@pytest.mark.parametrize(
    "request_text,question,said",
    [
        ("7b dpo 20k pairs 2d", "does DPO need a second copy of the model?", "25% of the FLOPs"),
        ("7b lora dpo 20k pairs 2d", "does DPO need a second copy of the model?", "33% of the FLOPs"),
        ("7b orpo 20k pairs 2d", "how much more does DPO need than fine-tuning?", "keeps no reference model"),
        ("7b 20k samples 2d", "what about DPO after the SFT?", "For DPO on your plan"),
    ],
)
def test_the_faq_on_preference_tuning_speaks_of_the_plan_it_is_asked_under(cli, request_text, question, said):
    out = json.loads(cli("ask", request_text, "--follow-up", question, "--json").stdout)
    text = out["follow_ups"][0]["text"]
    assert said in text and "I do not plan preference" not in text


@pytest.mark.parametrize(
    "text,options", [("7b dpo vs orpo 20k pairs 2d", ["dpo", "orpo"]), ("7b simpo还是dpo 2万对 2天", ["simpo", "dpo"])]
)
def test_two_preference_tunings_are_compared_side_by_side(cli, text, options):
    # "dpo vs orpo" had been refused: the two contradicted each other
    data = json.loads(cli("ask", text, "--json").stdout)["comparison"]
    assert data["by"] == "preference"
    assert [o["request"]["preference_tuning"] for o in data["options"]] == options
    dpo = next(o for o in data["options"] if o["request"]["preference_tuning"] == "dpo")
    other = next(o for o in data["options"] if o["request"]["preference_tuning"] != "dpo")
    # the reference model's forward: about a third more GPU-hours than the reference-free method
    assert dpo["training"]["gpu_hours"] > other["training"]["gpu_hours"] * 1.15
    assert data["verdict"]["cheaper"]["option"] == other["request"]["preference_tuning"]
    text_out = cli("ask", text, "--lang", "en").stdout
    assert text_out.startswith(("DPO or ORPO:", "SimPO or DPO:"))


def test_a_preference_comparison_card_names_each_side_by_its_method(book):
    from bot import answers

    out = answers.answer("7b dpo vs orpo 20k pairs 2d", "en", book)
    fields = [f["text"].split("\n")[0] for f in out["message"]["blocks"][1]["fields"]]
    assert fields == ["*DPO on H800-SXM-80GB*", "*ORPO on H800-SXM-80GB*"]


def test_a_preference_comparison_without_data_asks_for_pairs(cli):
    # it had asked for "samples", as a GPU comparison does
    out = cli("ask", "7b dpo vs orpo", "--lang", "en").stdout
    assert out.count("give the data (pairs, tokens or GB)") == 2 and "samples" not in out
    assert "give the data (tokens, GB or samples)" in cli("ask", "7b h800 vs a800", "--lang", "en").stdout


def test_a_method_choice_and_a_preference_choice_together_are_one_choice_too_many(cli):
    out = cli("ask", "7b lora vs full dpo vs orpo 20k pairs", "--lang", "en")
    assert out.returncode == 2 and "one choice at a time" in out.stderr


@pytest.mark.parametrize(
    "text,amount",
    [
        ("DPO on 50k comparisons with qwen2.5-14b, 2 days", 50_000),
        ("qwen3-8b dpo with 100k chosen/rejected pairs on 8xH100", 100_000),
        ("kto on mistral-7b with 50k thumbs up/down samples", 50_000),
    ],
)
def test_preference_data_in_the_words_teams_use_is_counted(text, amount):
    # each had been asked whether its count was a sequence length
    r = parse(text)
    assert r.preference_tuning and (r.data.amount, r.data.unit) == (amount, "samples")


@pytest.mark.parametrize(
    "text,tuning",
    [
        ("ORPO on mistral-7b with 60k preference pairs overnight", "orpo"),
        ("kto qwen2.5-7b 偏好数据 5万条 2天", "kto"),
        ("7b preference tuning with simpo 20k pairs", "simpo"),
    ],
)
def test_a_generic_preference_word_beside_a_named_tuning_says_what_the_data_are(text, tuning):
    # "preference pairs" beside ORPO had been refused as a second preference tuning (DPO)
    assert parse(text).preference_tuning == tuning


def test_two_named_preference_tunings_still_contradict():
    with pytest.raises(RequestError):
        parse("7b dpo orpo 20k pairs")


@pytest.mark.parametrize(
    "text,method,pairs",
    [
        ("train a 7b reward model on 100k comparisons", "full-finetune", 100_000),
        ("7b reward model lora 50k pairs", "lora", 50_000),
        ("训练一个7B奖励模型 5万对", "full-finetune", 50_000),
    ],
)
def test_a_reward_model_is_trained_on_pairs_with_no_reference(text, method, pairs):
    # it had been refused as RL: a reward model is a fine-tune with a pairwise loss, nothing generated
    req = parse(text)
    assert (req.method, req.preference_tuning) == (method, "reward")
    assert req.tokens == 2 * pairs * req.tokens_per_sample
    setup = training_setup(req)
    assert setup.paired and not setup.reference_forward
    codes = [a.code for a in req.assumptions]
    assert "reward_head" in codes and "preference_no_reference" in codes


def test_rl_that_keeps_a_reward_model_is_still_refused():
    from advisor.request.parser import RequestError

    with pytest.raises(RequestError, match="ppo"):
        parse("we want to do PPO with a reward model on qwen 7b")
