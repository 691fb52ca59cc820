"""The training stack the team runs (`deepspeed`, `megatron`, `hf`, `torchtitan`, `litgpt`): read from the
request, planned only on what that stack runs, named in the answer, refused with why."""

import json

import pytest

from advisor.cli import main
from advisor.engine.frameworks import DEEPSPEED, FSDP2, HF, LITGPT, MEGATRON, PEFT, framework_for
from advisor.engine.setup import TrainingSetup
from advisor.planning.advice import advise, plan_context
from advisor.planning.followup import follow_up
from advisor.request.canonical import canonical
from advisor.request.parser import parse


@pytest.mark.parametrize(
    "text, stack",
    [
        ("13B full-finetune 50GB 3d deepspeed", "deepspeed"),
        ("70B lora 100GB 7d framework megatron", "megatron"),
        ("70B lora 100GB 7d framework: nemo", "megatron"),
        ("8B lora 10GB 2d llama-factory", "hf"),
        ("qwen2.5-7b lora 10GB transformers", "hf"),
        ("8B full-finetune 10GB 2d torchtune", "hf"),
        ("70B pretrain 1T tokens torchtitan", "torchtitan"),
        ("llama3.2-1b qlora 1GB lit-gpt", "litgpt"),
        ("13B 全量微调 50GB 3天 框架deepspeed", "deepspeed"),
        ("13B 全量微调 50GB 3天 训练框架 megatron", "megatron"),
        ("13B full-finetune 50GB 3d", None),
        ("Llama-2-7b-hf lora 10GB 2d", None),  # the checkpoint's suffix is not the stack
    ],
)
def test_the_stack_is_read_alone_or_keyed(text, stack):
    assert parse(text).stack == stack


def _setup(stack, method="full-finetune", precision="bf16"):
    return TrainingSetup(method=method, precision=precision, stack=stack)


def test_each_stack_runs_only_its_own_layouts():
    # Megatron-Core: its model parallelism and distributed optimizer or Megatron-FSDP, no offload
    assert framework_for(_setup("megatron"), 8, 4, 1, 1, "none") == MEGATRON
    assert framework_for(_setup("megatron"), 1, 1, 1, 3, "none") == MEGATRON
    assert framework_for(_setup("megatron"), 1, 1, 1, 2, "optimizer") is None
    assert framework_for(_setup("megatron", "qlora"), 1, 1, 1, 0, "none") is None
    # DeepSpeed: ZeRO and offload, its pipeline with ZeRO-1 only, no tensor parallelism
    assert framework_for(_setup("deepspeed"), 1, 1, 1, 3, "all") == DEEPSPEED
    assert framework_for(_setup("deepspeed"), 1, 4, 1, 1, "none") == DEEPSPEED
    assert framework_for(_setup("deepspeed"), 1, 4, 1, 2, "none") is None
    assert framework_for(_setup("deepspeed"), 2, 1, 1, 1, "none") is None
    assert framework_for(_setup("deepspeed", "lora"), 1, 1, 1, 3, "none") == PEFT
    # the HF Trainer: data parallel only; ZeRO-1/2 and offload through DeepSpeed
    assert framework_for(_setup("hf"), 1, 1, 1, 0, "none") == HF
    assert framework_for(_setup("hf"), 1, 1, 1, 3, "none") == HF
    assert framework_for(_setup("hf"), 1, 1, 1, 2, "none") == DEEPSPEED
    assert framework_for(_setup("hf"), 1, 2, 1, 0, "none") is None
    # torchtitan: FSDP2 with model parallelism, no LoRA, no offload
    assert framework_for(_setup("torchtitan"), 8, 4, 1, 3, "none") == FSDP2
    assert framework_for(_setup("torchtitan", "lora"), 1, 1, 1, 3, "none") is None
    assert framework_for(_setup("torchtitan"), 1, 1, 1, 3, "optimizer") is None
    # litgpt: DDP or FSDP full shard, nothing else
    assert framework_for(_setup("litgpt", "qlora"), 1, 1, 1, 0, "none") == LITGPT
    assert framework_for(_setup("litgpt"), 1, 1, 1, 3, "none") == LITGPT
    assert framework_for(_setup("litgpt"), 1, 1, 1, 2, "none") is None
    assert framework_for(_setup("litgpt"), 2, 1, 1, 3, "none") is None
    assert framework_for(_setup("litgpt"), 1, 1, 1, 3, "optimizer") is None


def test_litgpt_unties_the_output_head_and_chunks_the_loss():
    from advisor.engine.shapes import count_params
    from advisor.planning.engine_inputs import model_shape, training_setup

    # Llama 3.2 1B ties its head to the embedding (128,256 x 2,048); litgpt keeps a copy apart
    tied, apart = (parse(f"llama3.2-1b lora 1GB{s}") for s in ("", " litgpt"))
    assert count_params(model_shape(apart)).total - count_params(model_shape(tied)).total == 128256 * 2048
    assert training_setup(apart).chunked_loss and not training_setup(tied).chunked_loss
    # an untied model is unchanged
    assert model_shape(parse("llama2-7b lora 1GB litgpt")) == model_shape(parse("llama2-7b lora 1GB"))


def test_the_plan_runs_on_the_stack_asked_for(book):
    for text, framework in (
        ("13B full-finetune 50GB 3d deepspeed usd", {DEEPSPEED}),
        ("13B full-finetune 50GB 3d hf usd", {HF, DEEPSPEED}),
        ("70B lora 100GB 7d megatron usd", {MEGATRON}),
        ("70B full-finetune 1TB 14d torchtitan usd", {FSDP2}),
    ):
        plan = advise(text, book=book).plan
        assert plan.estimate.layout.framework in framework, text
        lay = plan.estimate.layout
        if "hf" in text or "deepspeed" in text:
            assert lay.tp == lay.pp == lay.ep == 1


def test_a_mixture_of_experts_on_a_stack_without_expert_parallelism_keeps_its_states_on_the_gpu(book):
    # DeepSpeed and the HF Trainer hold every expert on each rank (ZeRO-3 shards them): a
    # 30B-A3B's 16 B of states a parameter over 16 A800 is 30 GB a card, so nothing is offloaded
    # (the search had tried only expert-parallel splits without offload, none of which these
    # stacks run, and fell back to offloading the optimizer)
    for stack in ("deepspeed", "hf"):
        lay = advise(f"qwen3-30b-a3b full-finetune 1B tokens seq 8192 zero3 {stack} on 16xA800", book=book).plan
        assert (lay.estimate.layout.ep, lay.estimate.layout.offload) == (1, "none"), stack


def test_the_answer_names_the_stack_and_json_carries_it(capsys):
    assert main(["ask", "13B full-finetune 50GB 3d deepspeed", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["request"]["stack"] == "deepspeed" and out["plan"]["framework"] == DEEPSPEED
    assert main(["ask", "13B full-finetune 50GB 3d deepspeed"]) == 0
    assert "on DeepSpeed" in capsys.readouterr().out


@pytest.mark.parametrize(
    "text, says",
    [
        ("13B full-finetune 50GB 3d deepspeed tp 2", "DeepSpeed does not run this"),
        ("8B lora 10GB 2d torchtitan", "torchtitan does not run this"),
        ("70B full-finetune 1TB 14d megatron offload all", "Megatron-Core does not run this"),
        ("8B lora 10GB 2d hf pp 2", "runs data parallel only"),
        ("8B lora 10GB 2d litgpt tp 2", "litgpt does not run this"),
        ("13B 全量微调 50GB 3天 框架deepspeed tp 2", "DeepSpeed 跑不了"),
    ],
)
def test_a_layout_the_stack_cannot_run_is_refused_with_why(capsys, text, says):
    assert main(["ask", text]) == 2
    assert says in capsys.readouterr().err


def test_a_what_if_on_the_stack_shows_the_planned_one_before(book):
    request = "13B full-finetune 50GB 3d usd"
    summary = plan_context(advise(request, book=book))
    reply = follow_up(request, summary, "what if we used deepspeed?", book=book)
    assert reply.kind == "whatif"
    assert {"name": "stack", "before": "megatron", "after": "deepspeed"} in reply.changes


def test_lora_on_a_pipeline_is_warned_about_unless_the_team_runs_megatron(capsys):
    assert main(["ask", "70B lora 100GB 7d on 8xH100 tp 2 pp 4"]) == 0
    out = capsys.readouterr().out
    assert "LoRA on a pipeline" in out and "say `hf`" in out
    assert main(["ask", "70B lora 100GB 7d on 8xH100 tp 2 pp 4 megatron"]) == 0
    assert "LoRA on a pipeline" not in capsys.readouterr().out


def test_lora_inside_one_server_stays_on_peft_unless_another_stack_is_much_faster(book):
    # 8B LoRA on 8 RTX 4090 with Liger's kernels: Megatron-Core's pipeline runs a few percent
    # faster than PEFT over DDP, too little for a second toolchain; the answer says what the other
    # stack would give
    from advisor.engine.estimate import PEFT_STACK_SLACK

    kept = advise("8B lora 2B tokens on 8xRTX4090 liger", book=book)
    est = kept.plan.estimate
    assert est.layout.framework == PEFT and est.layout.pp == 1 and est.over_peft is None
    faster, ratio = est.faster_stack
    assert faster == MEGATRON and 1 < ratio <= 1 + PEFT_STACK_SLACK
    note = next(a for a in kept.request.assumptions if a.code == "stack_kept")
    assert note.params == {"framework": PEFT, "faster": MEGATRON, "more": pytest.approx(ratio - 1)}
    # the team that names Megatron gets a layout at least as fast as the one it was told of
    pinned = advise("8B lora 2B tokens on 8xRTX4090 liger megatron", book=book).plan.estimate
    assert pinned.layout.framework == MEGATRON and pinned.faster_stack is None
    assert pinned.throughput.tokens_per_s_per_gpu >= est.throughput.tokens_per_s_per_gpu * ratio * (1 - 1e-9)


def test_lora_much_faster_off_peft_is_planned_there_and_says_what_peft_would_take(book, capsys):
    # 8B LoRA on 2 H800 without Liger or compile: PEFT runs the Hugging Face model's unfused
    # element-wise kernels (roofline.HF_EAGER_PASSES), so Megatron-Core runs it about half again
    # as fast, beyond the slack; the answer names PEFT's speed and how to plan on it
    from advisor.engine.estimate import PEFT_STACK_SLACK

    moved = advise("8B lora 2B tokens 2d on 2xH800", book=book)
    est = moved.plan.estimate
    assert est.layout.framework == MEGATRON and est.faster_stack is None
    assert est.over_peft > 1 + PEFT_STACK_SLACK
    note = next(a for a in moved.request.assumptions if a.code == "stack_over_peft")
    assert note.params == {"framework": MEGATRON, "peft": PEFT, "more": pytest.approx(est.over_peft - 1)}
    assert not any(a.code in ("stack", "stack_kept") for a in moved.request.assumptions)
    on_peft = advise("8B lora 2B tokens 2d on 2xH800 hf", book=book).plan.estimate
    assert on_peft.layout.framework == PEFT and on_peft.over_peft is None
    assert est.throughput.tokens_per_s_per_gpu == pytest.approx(on_peft.throughput.tokens_per_s_per_gpu * est.over_peft)
    assert main(["ask", "8B lora 2B tokens 2d on 2xH800"]) == 0
    out = capsys.readouterr().out
    assert "faster than HF PEFT/TRL" in out and "say `hf` to plan on it" in out


def test_lora_moved_off_peft_inside_a_server_keeps_plain_data_parallel(book):
    # The two stacks are weighed on the same layout: a 7B LoRA fits one GPU, so Megatron-Core runs
    # it data parallel over its distributed optimizer, as PEFT would over DDP; it had been planned
    # on a two-stage interleaved pipeline because PEFT alone was offered data parallel
    moved = advise("8B lora 2B tokens 2d on 2xH800", book=book).plan.estimate
    assert moved.layout.framework == MEGATRON
    assert (moved.layout.tp, moved.layout.pp, moved.layout.dp, moved.layout.zero_stage) == (1, 1, 2, 1)
    # `zero1` alone is the distributed optimizer too; DeepSpeed's ZeRO-1 named is PEFT's
    assert advise("8B lora 2B tokens 2d on 2xH800 zero1", book=book).plan.estimate.layout.pp == 1
    ds = advise("8B lora 2B tokens 2d on 2xH800 deepspeed zero1", book=book).plan.estimate.layout
    assert (ds.framework, ds.pp, ds.dp, ds.zero_stage) == (PEFT, 1, 2, 1)
    # a count of its own choosing: still no pipeline for a model one GPU holds
    chosen = advise("7b lora 20GB 3d", book=book).plan.estimate.layout
    assert chosen.pp == 1 and chosen.tp == 1 and chosen.dp == chosen.gpu_count > 1


def test_lora_far_faster_on_a_pipeline_or_across_servers_keeps_the_faster_layout(book):
    # 70B LoRA on 8 H800: PEFT over ZeRO-3 is about 30% slower than TP2 x PP4, beyond the slack
    one = advise("70B lora 100M tokens 2d on 8xH800", book=book).plan.estimate
    assert one.layout.framework == MEGATRON and one.faster_stack is None
    hf = advise("70B lora 100M tokens 2d on 8xH800 hf", book=book).plan.estimate
    assert hf.throughput.tokens_per_s_per_gpu < 0.85 * one.throughput.tokens_per_s_per_gpu
    # across servers the fastest layout leads, whatever its stack
    many = advise("13B lora 200GB 7d on 56xAscend-910B", book=book).plan.estimate
    assert many.layout.framework == MEGATRON and many.faster_stack is None


def test_peft_named_alone_is_lora_on_the_hf_stack_and_said():
    # "peft" had been read past, so `7b peft 20GB 3d` was planned as a full fine-tune
    req = parse("7b peft 20GB 3d")
    assert (req.method, req.stack) == ("lora", "hf")
    assert any(n.code == "method_from_peft" for n in req.assumptions)
    said = parse("7b qlora 20GB 3d peft")  # a method said wins; PEFT is then only the stack
    assert (said.method, said.stack) == ("qlora", "hf")
    assert not any(n.code == "method_from_peft" for n in said.assumptions)
    # "fine-tune with PEFT", "用peft微调": fine-tuning said, the method not
    for text in ("7b fine-tune with peft 20GB 3d", "7b 用peft微调 20GB 3天"):
        assert (parse(text).method, parse(text).stack) == ("lora", "hf")
    assert parse("7b lora 20GB 3d").stack is None


@pytest.mark.parametrize(
    "question,kind,change",
    [
        ("what about on PEFT?", "whatif", ("stack", "hf")),
        ("we use llama-factory", "whatif", ("stack", "hf")),
        ("我们用LLaMA-Factory", "whatif", ("stack", "hf")),
        ("what if we enable liger?", "whatif", ("compile", True)),
        ("如果开liger呢", "whatif", ("compile", True)),
        ("如果开启liger呢", "whatif", ("compile", True)),
    ],
)
def test_a_thread_on_a_lora_planned_off_peft_replans_on_the_teams_stack(book, question, kind, change):
    text = "7b lora 20GB 3d"
    reply = follow_up(text, plan_context(advise(text, book=book)), question, book=book)
    assert reply.kind == kind and change[0] in reply.changed
    assert getattr(reply.advice.request, change[0]) == change[1]


@pytest.mark.parametrize("question,says", [("why megatron?", "% faster than HF PEFT/TRL"), ("为什么用Megatron", "快 ")])
def test_why_this_stack_quotes_how_much_faster_than_peft_it_runs(book, question, says):
    text = "7b lora 20GB 3d"
    context = plan_context(advise(text, book=book))
    assert context["over_peft_pct"] > 15
    reply = follow_up(text, context, question, book=book)
    assert f"{context['over_peft_pct']}%" in reply.text and says in reply.text


def test_unsloth_named_alone_is_qlora_as_its_loader_defaults_and_said():
    """Unsloth's FastLanguageModel.from_pretrained loads the base in 4 bits unless told otherwise:
    "fine tune llama 8b with unsloth" had been planned as a full fine-tune of 16 bytes a parameter."""
    for text in ("fine tune llama 8b with unsloth on a single 4090, 5k examples", "用unsloth微调qwen2.5-7b 1万条 两天"):
        req = parse(text)
        assert (req.method, req.stack) == ("qlora", "hf")
        assert any(n.code == "method_from_unsloth" for n in req.assumptions)
        assert parse(canonical(req)).method == "qlora"
    said = parse("7b lora unsloth 20GB 3d")  # a method said wins
    assert said.method == "lora" and not any(n.code == "method_from_unsloth" for n in said.assumptions)
