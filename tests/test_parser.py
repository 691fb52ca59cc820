"""The request language of CONTRACT section 3, English, Chinese and mixed."""

import datetime
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.planning.advice import refusal
from advisor.request.canonical import canonical
from advisor.request.model import DataSize
from advisor.request.parser import RequestError, detect_lang, gpu_options, parse, parse_followup
from advisor.text.render import word


def _refusal(text: str) -> tuple[str, str | None]:
    """The kind of a refused request and the word it quotes."""
    with pytest.raises(RequestError) as info:
        parse(text)
    return info.value.kind, info.value.details.get("word")


def test_open_request():
    r = parse("70B full-finetune 1TB 14d budget")
    assert (r.params_b, r.method, r.deadline_days, r.cost_first) == (70, "full-finetune", 14, True)
    assert r.data.unit == "bytes" and r.tokens == pytest.approx(1e12 / r.bytes_per_token)
    assert r.budget is None and r.gpu is None and r.epochs == 1
    assert any(a.code == "bytes_per_token" and "bytes" in word("en", a) for a in r.assumptions)


def test_lora_small():
    r = parse("7b lora 20GB 3d")
    assert (r.params_b, r.method, r.lora_rank, r.deadline_days) == (7, "lora", 16, 3)


def test_chinese_request():
    r = parse("13B 全量微调 200GB数据 7天 预算10万")
    assert (r.params_b, r.method, r.deadline_days, r.lang) == (13, "full-finetune", 7, "zh")
    assert r.budget.amount == 100_000 and r.budget.currency == "CNY"
    assert r.data.language == "zh" and r.bytes_per_token == 3.2
    assert any(a.code == "bytes_per_token" and "字节" in word("zh", a) for a in r.assumptions)


def test_pretrain_on_given_hardware():
    r = parse("65B pretrain 1.4T tokens on 2048xA100-80GB")
    assert (r.params_b, r.method, r.tokens, r.gpu, r.gpu_count) == (65, "pretrain", 1.4e12, "A100-SXM4-80GB", 2048)


def test_all_knobs():
    r = parse("70B qlora r=8 seq 2048 mbs 2 on 2xA100-40GB zero3 recompute full")
    assert (r.method, r.lora_rank, r.seq_len, r.micro_batch) == ("qlora", 8, 2048, 2)
    assert (r.gpu, r.gpu_count, r.zero_stage, r.recompute) == ("A100-SXM4-40GB", 2, 3, "full")
    assert r.tokens is None


@pytest.mark.parametrize(
    "text", ["671B-A37B pretrain 1T tokens", "moe 671B active 37B 1T tokens", "总参671B 激活37B 1T tokens"]
)
def test_mixture_of_experts(text):
    r = parse(text)
    assert (r.params_b, r.active_params_b) == (671, 37)


@pytest.mark.parametrize(
    "text,field,value",
    [
        ("7B lora 2w", "deadline_days", 14),
        ("7B lora 36h", "deadline_days", 1.5),
        ("7B lora 3mo", "deadline_days", 90),
        ("7B lora 3 months", "deadline_days", 90),
        ("7B lora 两周", "deadline_days", 14),
        ("7B lora 3个月", "deadline_days", 90),
        ("7B 300B tokens", "tokens", 300e9),
        ("7B 3000亿token", "tokens", 3e11),
        ("7B lora 50k samples", "tokens", 50e6),
        ("7B lora 5万条", "tokens", 50e6),
        ("7B sft 1GB 3 epochs", "epochs", 3),
        ("7B sft 1GB 3ep", "epochs", 3),
        ("7B sft 1GB 3轮", "epochs", 3),
        ("7B budget ¥500k", "budget", {"amount": 500000, "currency": "CNY"}),
        ("7B budget 50万", "budget", {"amount": 500000, "currency": "CNY"}),
        ("7B $200k", "budget", {"amount": 200000, "currency": "USD"}),
        ("7B budget 1.2M CNY", "budget", {"amount": 1.2e6, "currency": "CNY"}),
        ("7B 预算20万美元", "budget", {"amount": 200000, "currency": "USD"}),
        ("7B on 8xH800", "gpu_count", 8),
        ("7B on 64 H100", "gpu", "H100-SXM5-80GB"),
        ("7B gpu H20", "gpu", "H20-96GB"),
        ("7B on 2xRTX4090", "gpu", "RTX4090-24GB"),
        ("7B 8卡H800", "gpu_count", 8),
        ("7B 用H20", "gpu", "H20-96GB"),
        ("7B pure-bf16", "precision", "pure-bf16"),
        ("7B fp8", "precision", "fp8"),
        ("7B adamw8bit", "optimizer", "adamw8bit"),
        ("7B lion", "optimizer", "lion"),
        ("7B opt-in-bwd", "opt_in_backward", True),
        ("7B gbs 1024", "global_batch", 1024),
        ("7B offload", "offload", "optimizer"),
        ("7B offload all", "offload", "all"),
        ("7B fsdp", "zero_stage", 3),
        ("7B recompute selective", "recompute", "selective"),
        ("7B 序列4096", "seq_len", 4096),
        ("7B rent", "rent_or_buy", "rent"),
        ("7B 买", "rent_or_buy", "buy"),
        ("7B usd", "currency", "USD"),
        ("7B city chengdu", "city", "chengdu"),
        ("7B 深圳", "city", "shenzhen"),
        ("7B cpt 10GB", "method", "continued-pretrain"),
        ("7B 增量预训练 10GB", "method", "continued-pretrain"),
        ("7B 全参微调 10GB", "method", "full-finetune"),
        ("7B sft 10GB", "method", "full-finetune"),
        ("7B 微调 10GB", "method", "full-finetune"),
        ("7B lora微调 10GB", "method", "lora"),
        ("7B LoRA fine-tune 10GB", "method", "lora"),
        ("7B qlora sft 10GB", "method", "qlora"),
        ("7B 微调 qlora 10GB", "method", "qlora"),
        ("llama3-70b lora", "model", "llama3-70b"),
        ("7b lora 20GB 3d on a single GPU", "gpu_count", 1),
        ("7b lora 20GB 3d on one GPU", "gpu_count", 1),
        ("7b lora 20GB 3d single-gpu", "gpu_count", 1),
        ("7b lora 20GB 3d on a GPU", "gpu_count", 1),
        ("32b lora 3万条 4090 最多16张", "max_gpus", 16),  # the bound after the type, 张 alone
        ("7b lora 5000 samples on 1x4090 by tonight", "deadline_days", 8 / 24),
        ("7b lora 5000条 单卡4090 今天下班前", "deadline_days", 8 / 24),
        ("qwen3-235b-a22b 全量微调 5万条 不着急", "cost_first", True),
        ("7b lora 20GB no rush", "cost_first", True),
        ("pretrain a 1B model on 20B tokens, we have a single 8xA800 server", "gpu_count", 8),
        ("pretrain a 1B model on 20B tokens, we have one 8xA800 server", "owned", True),
        ("7b lora 20GB 3d, we already own 2 RTX 4090s", "owned", True),
        ("7b lora 20GB 3d unsloth", "stack", "hf"),  # HF with Unsloth's kernels (note stack_unsloth)
        ("qwen2.5-32b qlora 4-bit 100k samples 2 days", "method", "qlora"),  # "4-bit" had been refused
        # a preference said as a comparison ("price matters more than speed" had been refused)
        ("70B lora 200GB 5d price matters more than speed", "cost_first", True),
        ("7b lora 20GB within 3 days, cost is more important than speed", "cost_first", True),
        ("7b lora 20GB 3d speed is more important than cost", "speed_first", True),
        # an unlimited budget in English ("no" had been refused as a negation, "unlimited" unknown)
        ("70B full finetune in 3 days, money no object", "speed_first", True),
        ("70B full finetune 3 days no budget limit", "speed_first", True),
        ("70B full finetune 3 days, budget is unlimited", "speed_first", True),
        # which servers to get, asked after the job ("servers" had been refused)
        (
            "we need to train a 7b model on our data (about 2TB) in 2 weeks, what servers should we rent",
            "deadline_days",
            14,
        ),
        ("7b lora 10GB 3d, what servers should we buy?", "rent_or_buy", "buy"),
        ("7b lora 10GB 3天 要租什么服务器", "deadline_days", 3),
        ("7b lora 20GB 3天 成本比速度重要", "cost_first", True),
        ("70b lora 20GB by end of next week, 10 grand budget", "budget", {"amount": 10000, "currency": "USD"}),
        ("32b 4-bit lora 1GB 1d", "method", "qlora"),
        ("32B 4bit量化lora 1GB 1天", "method", "qlora"),
        # "H800 2台服务器": the noun after 台 is the servers' (it had been read past, and the request
        # written back did not read back the same: a hypothesis case of test_canonical)
        ("7B lora 1GB 1天 用H800 2台服务器", "gpu_count", 16),
        # "only", "just" and "we've got" say the same: the team's own GPUs, not a rental
        ("we only have 4 A100s: 13B lora 1B tokens", "owned", True),
        ("we've got 16 H800, 70B full-finetune 100GB 14d", "owned", True),
        ("13B lora 1B tokens if we have 4 A100", "owned", True),
        ("assuming we own 16 H800: 70B full-finetune 100GB 14d", "owned", True),
        ("we just have 50k samples, 7b lora 2d", "owned", False),
        ("llama-3.3-70b lora", "model", "llama3.1-70b"),
        ("qwen2.5-72b lora", "params_b", 72.7),
        ("7B lora LANG ZH", "lang", "zh"),
        ("7b 全量微调 lang en", "lang", "en"),
        ("1.5B lora", "params_b", 1.5),
        ("400M sft", "params_b", 0.4),
        ("1T pretrain", "params_b", 1000),
    ],
)
def test_words(text, field, value):
    r = parse(text)
    got = getattr(r, field)
    if isinstance(value, dict):
        got = got.model_dump()
    assert got == (pytest.approx(value) if isinstance(value, float) else value)


def test_gpu_type_without_count_leaves_count_to_the_planner():
    r = parse("70B sft 10GB on A100-80GB")
    assert r.gpu == "A100-SXM4-80GB" and r.gpu_count is None


def test_case_and_order_do_not_matter():
    a = parse("70B FULL-FINETUNE 1tb 14D BUDGET")
    b = parse("budget 14d 1TB full-finetune 70b")
    assert a.model_dump(exclude={"text"}) == b.model_dump(exclude={"text"})


@pytest.mark.parametrize(
    "text,kind,word",
    [
        ("70B lora 1TB not on 4090", "unknown_word", "not"),
        ("70B on 8xH300", "unknown_gpu", None),
        ("70B on 0xH100", "bad_value", None),
        ("-70B sft", "bad_value", None),
        ("99999T sft", "bad_value", None),
        ("70B budget -5", "bad_value", None),
        ("70B 1TB 0d", "bad_value", None),
        ("70B 14d 30d", "conflict", None),
        ("70B 13B", "several_models", None),
        ("70B qlora pretrain", "conflict", None),
        ("70B full-finetune lora", "conflict", None),
        ("70B pretrain sft", "conflict", None),
        ("7b sft r=8", "conflict", "sft"),
        ("full-finetune 1TB 14d", "missing_size", None),
        # a model said to be big, with no size: asked for its size, not told "big" is unknown
        ("训练一个大模型 越快越好", "missing_size", None),
        ("train a big model as fast as possible", "missing_size", None),
        ("我们想训一个模型", "missing_size", None),
        ("need gpus for llm training", "missing_size", None),
        ("想训一个大语言模型", "missing_size", None),
        ("", "empty", None),
        ("moe 70B", "missing_active", None),
        ("70B-A80B", "bad_value", None),
        ("7b lora r=0", "bad_value", None),
        ("7b on 8xH100 on 4xH800", "conflict", None),
    ],
)
def test_bad_input_is_refused_with_a_friendly_example(text, kind, word):
    with pytest.raises(RequestError) as info:
        parse(text)
    err = info.value
    assert err.kind == kind
    message = err.message("en")
    assert "/gpu" in message or "`" in message
    if word:
        assert word in message
    assert "Traceback" not in message
    assert err.message("zh") != message


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_parses_or_is_refused_politely(text):
    try:
        parse(text)
    except RequestError as err:
        assert err.message()


WORDS = [
    "70B",
    "7b",
    "lora",
    "qlora",
    "1TB",
    "14d",
    "budget",
    "on",
    "8xH800",
    "预算",
    "10万",
    "全量微调",
    "3轮",
    "seq",
    "4096",
    "mbs",
    "2",
    "zero3",
    "-",
    "x",
    "¥",
    "$",
    "0",
    "671B-A37B",
    "r=8",
    "天",
    "sft",
    "微调",
    "fine-tune",
    "qwen2-72b",
    "dpo",
    "a single",
    "4090",
    "10w条",
    "from scratch",
    "a week",
    "budget of",
    "单卡",
    "7b-chat",
    "100G",
    "一个",
    "h100s",
    "降到",
    "50万",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=8))
def test_any_mix_of_request_words_parses_or_is_refused_politely(words):
    try:
        parse(" ".join(words))
    except RequestError as err:
        assert err.message()


@pytest.mark.parametrize(
    "text,language",
    [
        ("要做一个7B的代码模型，从头预训练，2000亿token，两个月", "code"),
        ("pretrain a 7B code model on 200B tokens 60d", "code"),
        ("训练一个中文大模型 7B 预训练 1T token 60天", "zh"),
        ("7B 代码大模型 预训练 100B token 30天", "code"),
    ],
)
def test_a_model_named_for_its_language_trains_on_that_language(text, language):
    # "代码模型" had been refused over "代码", "一个中文大模型" over "中文"
    assert parse(text).data.language == language


@pytest.mark.parametrize("change", ["不要H20", "不能用H20", "70B lora 1TB 14d 不要4090"])
def test_a_gpu_ruled_out_is_still_a_negation_not_a_change(change):
    with pytest.raises(RequestError) as err:
        parse_followup("70B full-finetune 1TB 14d budget", change)
    assert err.value.details["why"] == "negation"


@pytest.mark.parametrize(
    "original,change,method",
    [
        ("7b lora 1GB 3d", "what if we fine-tune instead?", "full-finetune"),
        ("70B sft 1TB", "用LoRA微调呢?", "lora"),
        ("70B sft 1TB", "what if lora fine-tune?", "lora"),
    ],
)
def test_followup_reads_fine_tune_words_like_a_request(original, change, method):
    request, changed = parse_followup(original, change)
    assert request.method == method and changed == ["method"]


@pytest.mark.parametrize(
    "change,field,value",
    [
        ("what about 4090s?", "gpu", "RTX4090-24GB"),
        ("can we do it in a week?", "deadline_days", 7),
        ("预算降到50万会怎样", "budget", {"amount": 500000, "currency": "CNY"}),
        ("budget of $20k?", "budget", {"amount": 20000, "currency": "USD"}),
        # yes-or-no questions around a change: "能不能用" holds "不能用", no negation
        ("能不能用H20", "gpu", "H20-96GB"),
        ("可以用H20吗", "gpu", "H20-96GB"),
        ("要不要换H20", "gpu", "H20-96GB"),
        ("H20行吗", "gpu", "H20-96GB"),
        ("用A800会不会更便宜", "gpu", "A800-SXM4-80GB"),
        ("改用A100能省多少", "gpu", "A100-SXM4-80GB"),
        ("用H20能快多少", "gpu", "H20-96GB"),
        ("换deepspeed会慢多少", "stack", "deepspeed"),
    ],
)
def test_followups_as_people_ask_them(change, field, value):
    request, changed = parse_followup("70B full-finetune 1TB 14d budget", change)
    got = getattr(request, field)
    assert (got.model_dump() if isinstance(value, dict) else got) == value and changed == [field]


@pytest.mark.parametrize(
    "text,expect",
    [
        # what people type, read as they mean it
        ("qwen2.5 7b sft 10w条 3天", {"tokens": pytest.approx(1e8), "deadline_days": 3}),
        ("我想训练一个13B的模型，数据有500GB，两周内完成，预算30万", {"params_b": 13, "deadline_days": 14}),
        ("fine-tune llama 3.1 70b on 100k samples in 7 days", {"model": "llama3.1-70b", "deadline_days": 7}),
        ("pretrain 1.3B from scratch 50B tokens on 8 A100", {"method": "pretrain", "gpu_count": 8}),
        ("7b-chat lora 1GB", {"params_b": 7, "method": "lora"}),
        ("llama2-7b-chat lora 1GB", {"model": "llama2-7b"}),
        ("13b qlora 2k samples on a single 4090", {"gpu": "RTX4090-24GB", "gpu_count": 1}),
        ("7b lora 1GB on one H100", {"gpu_count": 1}),
        ("7b lora 1GB 单卡4090", {"gpu_count": 1}),
        ("34b 全量 100G 5天", {"method": "full-finetune", "deadline_days": 5}),
        ("帮我规划一下：72B模型，LoRA，10万条对话数据，一周内训完", {"method": "lora", "deadline_days": 7}),
        (
            "Llama-3-8B 继续预训练 50B token，预算 30 万，越快越好",
            {"speed_first": True, "method": "continued-pretrain"},
        ),
    ],
)
def test_everyday_phrasings(text, expect):
    r = parse(text)
    for field, value in expect.items():
        assert getattr(r, field) == value, field


@pytest.mark.parametrize(
    "text,name,size",
    [
        ("qwen2-72b 全量微调 1TB 预算100万 深圳", "qwen2", 72),
        ("internlm2-20b lora 50GB", "internlm2", 20),
        ("gpt-neox-20b pretrain 400B tokens", "gpt-neox", 20),
        ("qwen1.5-14b-base lora 1GB", "qwen1.5", 14),
    ],
)
def test_a_model_the_catalogue_lacks_is_planned_by_its_size_and_says_so(text, name, size):
    r = parse(text)
    assert r.model is None and r.params_b == size
    worded = [word(r.lang, note) for note in r.assumptions]
    assert any(name in w and ("catalogue" in w or "目录" in w) for w in worded)


@pytest.mark.parametrize(
    "text", ["7b grpo 1GB", "70B rlhf", "7b 用ppo训练", "8b 强化学习训练", "qwen2.5-7b rloo 10k prompts"]
)
def test_rl_tuning_is_explained_not_misread(text):
    with pytest.raises(RequestError) as info:
        parse(text)
    assert info.value.kind == "unsupported_method"
    for lang in ("en", "zh"):
        message = info.value.message(lang)
        # why it is not planned, a floor (its policy update as a fine-tune, planned), and the
        # preference tuning that is, each in a request that plans it
        assert "GRPO" in message and "dpo" in message
        floor, *others = [parse(x, lang) for x in re.findall(r"`/gpu ([^`]+)`", message)]
        assert floor.method == "full-finetune" and floor.tokens and floor.deadline_days
        preference = [r for r in others if r.preference_tuning]
        assert preference and all(r.preference_tuning == "dpo" for r in preference)
        # where the request counts its prompts, the floor on them comes last, a full fine-tune too
        assert all(r.method == "full-finetune" and r.tokens for r in others if not r.preference_tuning)


@pytest.mark.parametrize(
    "text,preference,method,pairs",
    [
        ("14B DPO 2GB 3d", "dpo", "full-finetune", None),
        ("7b sft on 30k preference pairs 2d", "dpo", "full-finetune", 30_000),
        ("7b 用偏好数据2万对微调", "dpo", "full-finetune", 20_000),
        ("qwen2.5-7b 偏好对齐 2万对 3天", "dpo", "full-finetune", 20_000),
        ("70b lora dpo 50k pairs 5d", "dpo", "lora", 50_000),
        ("7b orpo 20k pairs 1d", "orpo", "full-finetune", 20_000),
        ("7b qlora simpo 10k pairs", "simpo", "qlora", 10_000),
        ("7b kto 20k samples 1d", "kto", "full-finetune", None),
    ],
)
def test_preference_tuning_is_read_with_its_method_and_pairs(text, preference, method, pairs):
    # each had been refused ("not a training method I can plan yet")
    r = parse(text)
    assert (r.preference_tuning, r.method) == (preference, method)
    if pairs:
        # a pair trains two sequences of the sample length: twice the tokens of as many samples
        assert r.data.amount == pairs and r.tokens == pairs * 2 * r.tokens_per_sample
        assert any(n.code == "preference_pairs" for n in r.assumptions)
    assert any(n.code.startswith("preference_") and "reference" in n.code for n in r.assumptions)


def test_kto_samples_are_single_responses():
    r = parse("7b kto 20k samples 1d")
    assert r.tokens == 20_000 * r.tokens_per_sample


@pytest.mark.parametrize("text", ["7b pretrain dpo 1B tokens", "7b 预训练 偏好对齐 1B tokens"])
def test_preference_tuning_with_pretraining_contradicts(text):
    with pytest.raises(RequestError) as info:
        parse(text)
    assert info.value.kind == "conflict"


@pytest.mark.parametrize("text", ["想对qwen2.5-14b做qlora 5万条 3天", "用2台8卡服务器对7b模型微调 10万条"])
def test_the_preposition_dui_is_no_count_of_pairs(text):
    r = parse(text)
    assert r.preference_tuning is None and r.data.unit == "samples"


@pytest.mark.parametrize("text", ["70B inference 100 qps", "部署70B推理服务", "serve llama3-70b on 8xH100"])
def test_serving_requests_are_explained_not_misread(text):
    with pytest.raises(RequestError) as info:
        parse(text)
    assert info.value.kind == "inference"
    assert "KV cache" in info.value.message("en") and "KV cache" in info.value.message("zh")


@pytest.mark.parametrize("text", ["bert-large full finetune 1GB", "t5-11b lora 1GB", "flan-t5-xl sft", "roberta 微调"])
def test_encoder_models_are_explained_not_planned_as_decoders(text):
    with pytest.raises(RequestError) as info:
        parse(text)
    assert info.value.kind == "architecture"
    assert "decoder" in info.value.message("en") and "解码器" in info.value.message("zh")


def test_the_reply_language_never_changes_the_numbers():
    # a Chinese locale, `lang zh` or a follow-up asked in Chinese must not re-read English data
    text = "70B full-finetune 1TB 14d budget"
    tokens = parse(text).tokens
    assert parse(text, "zh").tokens == parse(text + " lang zh").tokens == tokens
    assert parse_followup(text, "用LoRA呢?")[0].tokens == tokens
    assert parse("13B 全量微调 200GB数据", "en").tokens == parse("13B 全量微调 200GB数据").tokens


@pytest.mark.parametrize(
    "change,field,factor",
    [
        ("如果数据翻倍呢", "tokens", 2),
        ("double the data?", "tokens", 2),
        ("half the budget?", "budget", 0.5),
        ("预算减半", "budget", 0.5),
        ("what if we had twice the time", "deadline_days", 2),
    ],
)
def test_followups_that_scale_one_thing(change, field, factor):
    original = "70B full-finetune 1TB 14d budget $2M"
    before = getattr(parse(original), field)
    after = getattr(parse_followup(original, change)[0], field)
    if field == "budget":
        before, after = before.amount, after.amount
    assert after == pytest.approx(before * factor)


def test_scaling_what_the_plan_does_not_have_is_a_question():
    with pytest.raises(RequestError):
        parse_followup("70B full-finetune 1TB 14d budget", "half the budget")


@pytest.mark.parametrize(
    "text,gpu,count",
    [
        ("70B full-finetune 1TB 14d on 2 nodes of H800", "H800-SXM-80GB", 16),
        ("70B 全量微调 1TB 14天 2台服务器 H800", "H800-SXM-80GB", 16),
        ("70B sft 1TB 4个节点 H100", "H100-SXM5-80GB", 32),
        ("70B sft 1TB on 16xH800 2 nodes", "H800-SXM-80GB", 16),
        # 台 counts machines, as Chinese teams count them
        ("70B 全量微调 1TB 14天 用4台H800", "H800-SXM-80GB", 32),
        ("70B 全量微调 1TB 14天 两台H800服务器", "H800-SXM-80GB", 16),
        ("70B 全量微调 1TB 14天 H800服务器4台", "H800-SXM-80GB", 32),
        ("70B 全量微调 1TB 14天 4台8卡H800", "H800-SXM-80GB", 32),
        ("70B 全量微调 1TB 14天 2台4卡A100", "A100-SXM4-80GB", 8),
        ("70B 全量微调 1TB 14天 4机32卡 H800", "H800-SXM-80GB", 32),
        ("70B 全量微调 1TB 14天 H800 8卡 4台", "H800-SXM-80GB", 32),
        ("70B 全量微调 1TB 14天 4台8卡服务器 H800", "H800-SXM-80GB", 32),
        ("7b lora 20GB 3天 用一台4090", "RTX4090-24GB", 1),  # a consumer card's 台 is a card
        ("7B 预训练 1T token 30天 16张H800 2台服务器", "H800-SXM-80GB", 16),  # the count before the name
        # NVIDIA's systems by name: 8 SXM GPUs a server
        ("70B lora 1B tokens 7d on 2 DGX H100", "H100-SXM5-80GB", 16),
        ("70B lora 1B tokens 7d on a DGX H200", "H200-SXM-141GB", 8),
        ("70B sft 1B tokens 7d 4x HGX B200 servers", "B200-SXM-180GB", 32),
        ("70B lora 1B tokens 7天 2台DGX A100", "A100-SXM4-80GB", 16),
    ],
)
def test_whole_servers_count_their_gpus(text, gpu, count):
    r = parse(text)
    assert (r.gpu, r.gpu_count) == (gpu, count)


@pytest.mark.parametrize(
    "text,deadline,dp",
    [
        ("llama2-7b pretrain 2.2T tokens mbs 2 fsdp on A100-80GB 52.7d", 52.7, None),  # not `fsdp 52`
        ("7B pretrain 1T tokens fsdp 52.7d", 52.7, None),
        ("7B pretrain 1T tokens fsdp 64 on 64xH100 7d", 7, 64),
    ],
)
def test_a_key_reads_only_the_number_beside_it(text, deadline, dp):
    r = parse(text)
    assert (r.deadline_days, r.dp, r.zero_stage) == (deadline, dp, 3)


@pytest.mark.parametrize(
    "text,kind", [("70B sft 1TB on 2 nodes", "nodes_need_gpu"), ("70B sft 1TB on 12xH800 2 nodes", "conflict")]
)
def test_servers_without_a_gpu_type_or_against_the_count_are_explained(text, kind):
    with pytest.raises(RequestError) as info:
        parse(text)
    assert info.value.kind == kind and "/gpu" in info.value.message("en") + info.value.message("zh")


def test_a_followup_in_servers_counts_in_the_plans_gpu():
    request, changed = parse_followup(
        "70B full-finetune 1TB 14d budget", "what if we use 2 nodes?", plan_gpu="H800-SXM-80GB"
    )
    assert (request.gpu, request.gpu_count) == ("H800-SXM-80GB", 16) and changed == ["nodes"]


@pytest.mark.parametrize(
    "text,field,value",
    [
        ("7B 从零训练 2万亿token 30天", "method", "pretrain"),
        ("7B 从零开始训练 2万亿token 30天", "method", "pretrain"),
        ("deepseek-r1-distill-qwen-32b lora 10万条对话 3天", "model", "qwen2.5-32b"),
        ("deepseek-r1-distill-llama-8b sft 10GB 7d", "model", "llama3.1-8b"),
        # the question around a request is not a word to refuse
        ("我们有8张A800 想微调 qwen-14b 数据20GB 多久", "gpu_count", 8),
        ("how long will it take to sft 70b on 1TB with 64 H100", "gpu_count", 64),
        ("70B QLoRA 单卡 A100 80G 能跑吗", "gpu_count", 1),
        ("we have 16 A100 40GB, can we full finetune 13b on 20GB", "gpu_count", 16),
        ("8x H100 80GB SXM, 70B lora, 2B tokens — how many days?", "gpu_count", 8),
        ("What would it take to pretrain a 13B on 1T tokens in 3 weeks?", "deadline_days", 21),
        ("7B模型LoRA微调，数据量2万条，希望3天内完成，预算5000元", "deadline_days", 3),
        ("想在4090上qlora微调14b，10万条数据", "gpu", "RTX4090-24GB"),
        ("continue pretraining llama3 8b on 50B tokens of chinese, 2 weeks", "method", "continued-pretrain"),
        ("lora fine tune mistral 7b 10k rows in 6 hours", "data", DataSize(amount=10_000, unit="samples")),
        ("full fine-tune 13B model, 100k instructions, 7d", "data", DataSize(amount=100_000, unit="samples")),
        # the samples' mean length, when the team knows it
        ("SFT Qwen2.5 7B, 200k samples avg 2k tokens, 1 day", "tokens", 200_000 * 2_000),
        ("7b sft 10k samples 1500 tokens each 2d", "tokens", 10_000 * 1_500),
        ("7b sft 5万条 每条2000 token 3天", "tokens", 50_000 * 2_000),
        # a ceiling on the money is the budget
        ("finetune qwen2.5-72b-instruct, 30GB chinese, 10 days, 50万以内", "budget", (500_000, "CNY")),
        ("Qwen3-32B 全参微调 30亿token 10天 不超过50万", "budget", (500_000, "CNY")),
        ("70B sft 10GB 7天 5000元以内", "budget", (5_000, "CNY")),
        ("70B sft 10GB 7d under $20k", "budget", (20_000, "USD")),
        ("7b lora 5万条以内 3天", "budget", None),  # 条 counts samples
    ],
)
def test_what_teams_type_around_a_request(text, field, value):
    got = getattr(parse(text), field)
    if field == "budget" and got is not None:
        got = (got.amount, got.currency)
    assert got == value


@pytest.mark.parametrize(
    "said,days",
    [
        ("by friday", 3),  # Tuesday 1 December 2026
        ("by next friday", 10),
        ("due tue", 7),  # the same weekday is next week's
        ("周五前", 3),
        ("下周五", 10),
        ("月底前", 30),
        ("by end of month", 30),
        ("before dec 20", 19),
        ("by the 20th of december", 19),
        ("by 2026-12-20", 19),
        ("12月20日前", 19),
        ("by jan 15", 45),  # said in December: next year's
        ("by Jan 15 2027", 45),  # with its year
        ("by January 15, 2027 usd", 45),
        ("by 15 March 2027", 104),
        ("年底前", 30),
        ("deadline Jan 10", 40),  # the key before a date
        ("deadline: friday", 3),
        ("no later than Dec 20", 19),
        ("due by March 1", 90),
        ("by end of January", 61),
        ("by mid-January", 45),
        ("by 12/20", 19),
        ("by Christmas", 24),
        ("圣诞节前", 24),
        ("by end of next month", 61),
    ],
)
def test_a_deadline_said_as_a_day_counts_from_today(said, days):
    today = datetime.date(2026, 12, 1)
    r = parse(f"7b lora 20GB {said}", today=today)
    assert r.deadline_days == days
    noted = next(n.params for n in r.assumptions if n.code == "deadline_date")
    assert noted["date"] == str(today + datetime.timedelta(days=days)) and noted["today"] == "2026-12-01"


@pytest.mark.parametrize(
    "said,start,days",
    [
        ("start next monday, done by dec 31", "2026-12-07", 24),  # Tuesday 1 December 2026
        ("we can start on monday, due by friday", "2026-12-07", 4),  # the Friday after the start
        ("starting dec 14 by 2026-12-31", "2026-12-14", 17),
        ("from dec 14 to dec 31", "2026-12-14", 17),
        ("下周一开始 月底前完成", "2026-12-07", 24),
        ("从12月14日到12月31日", "2026-12-14", 17),
        ("12月14日开始，12月20日前", "2026-12-14", 6),
        ("starting jan 5, 14 days", "2027-01-05", 14),  # a length after a start is that length
        ("12月20日开始 3天", "2026-12-20", 3),
        # a week or a month as the start: its first day ("下周" had been read as the deadline)
        ("下周开始 3天", "2026-12-07", 3),
        ("start next month, 10 days", "2027-01-01", 10),
        ("下个月初开始 月底前", "2027-01-01", 30),  # the month's end after the start is the start's month's
    ],
)
def test_a_start_day_beside_a_deadline_day_counts_the_days_between(said, start, days):
    # "start next monday, done by dec 31" had been refused as two deadlines that contradict each other
    r = parse(f"7b lora 20GB {said}", today=datetime.date(2026, 12, 1))
    assert r.deadline_days == days
    notes = {n.code: n.params for n in r.assumptions}
    assert notes.get("start_date", {}).get("date", notes.get("deadline_date", {}).get("today")) == start
    # written back as both days, it reads the same
    again = parse(canonical(r), today=datetime.date(2026, 12, 1))
    assert again.deadline_days == days


@pytest.mark.parametrize("said", ["start dec 20 by dec 10", "starting 2026-11-20, 3 days"])
def test_a_start_after_its_deadline_or_already_past_is_refused(said):
    with pytest.raises(RequestError):
        parse(f"7b lora 20GB {said}", today=datetime.date(2026, 12, 1))


@pytest.mark.parametrize("said", ["by 2026-11-20", "by yesterday", "yesterday", "昨天之前", "by last week"])
def test_a_deadline_day_already_past_is_refused_as_past(said):
    with pytest.raises(RequestError) as info:
        parse(f"7b lora 20GB {said}", today=datetime.date(2026, 12, 1))
    assert info.value.kind == "deadline_past" and "has already passed (today is 2026-12-01" in info.value.message("en")


def test_a_mean_sample_length_needs_a_count_of_samples():
    with pytest.raises(RequestError):
        parse("7b sft 10GB avg 2k tokens 2d")


# -- what the unseen requests of 2026-12-01 taught (tests/requests_heldout_2026_12.toml) --------
# Each family below holds phrasings of our own, not the held-out texts.


@pytest.mark.parametrize(
    "text,expect",
    [
        # the chatter of a Slack message around the request
        ("hi, could you size a 7b lora on 20GB? 3 days is fine. thx", {"params_b": 7, "deadline_days": 3}),
        ("we'd like to do a LoRA on llama 3.1 8b, 10k samples, 2 days", {"model": "llama3.1-8b"}),
        ("some 13b full ft job, 5k rows, 1 day, preferably cheapest option", {"cost_first": True}),
        ("老板让评估一下：13B全参，5万条，两周，帮忙看下要多少钱", {"params_b": 13, "deadline_days": 14}),
        ("我们是小团队，想拿qwen3-8b做个lora，2万条，时间不急，一个月内就行", {"deadline_days": 30}),
        ("给7B做SFT，1万条，算下多久能搞定", {"method": "full-finetune"}),
    ],
)
def test_the_chatter_around_a_request_is_not_a_word_to_refuse(text, expect):
    r = parse(text)
    for field, value in expect.items():
        assert getattr(r, field) == value, field


@pytest.mark.parametrize(
    "text,language",
    [
        ("7b lora 30GB of deduplicated web text 3d", "en"),
        ("7b lora 30GB internal wiki data 3d", "en"),
        ("7b lora 30GB 法律行业数据 3天", "zh"),  # Chinese prose: the request's own language
        ("7b lora 1TB 高质量中文语料 3天", "zh"),
        ("7b lora 1TB 英文网页文本 3天", "en"),
        ("7b lora 语料300G中文 3天", "zh"),
        ("7b lora 2P中文语料 30天", "zh"),  # a bare P with the data's words after it is bytes (a bare T is asked)
        ("70B sft 500GB 中文 10天 lang en", "zh"),  # the language alone, in an English reply
        ("70B sft 500GB 英文 10天", "en"),
    ],
)
def test_what_the_data_is_said_around_its_noun(text, language):
    r = parse(text)
    assert r.data.unit == "bytes" and r.bytes_per_token is not None
    assert (r.data.language or ("zh" if r.lang == "zh" else "en")) == language


@pytest.mark.parametrize(
    "text,word",
    [
        ("7b lora 1TB vietnamese text 3d", "vietnamese"),  # another language: its bytes per token are unknown
        ("7b lora 1TB 韩语语料 3天", "韩语"),
    ],
)
def test_data_that_is_not_text_in_a_known_language_is_refused_not_read_past(text, word):
    assert _refusal(text) == ("unknown_word", word)


@pytest.mark.parametrize(
    "text,word",
    [
        ("7b lora 1TB image data 3d", "image"),
        ("7b lora 1TB speech corpus 3d", "speech"),
        ("7b lora 1TB 视频数据 3天", "视频"),
        ("qwen2.5-vl-7b 微调 10万张图片", "图片"),
        ("7b lora 50k images", "images"),
        # "10万张图" had been "I did not understand '10万图'"; the job said multimodal, "did not understand"
        ("qwen2.5-vl-7b 微调 10万张图 3天", "图"),
        ("多模态 7B 微调 10万条 3天", "多模态"),
        ("7b lora 1TB 多模态数据 3天", "多模态"),
        ("multimodal 7B finetune 50k samples 3d", "multimodal"),
    ],
)
def test_images_video_or_audio_are_refused_saying_only_text_is_planned(text, word):
    # "I did not understand 'image'" had not said why, and quoted "10万图片", never typed
    assert _refusal(text) == ("modality", word)


@pytest.mark.parametrize(
    "text,data",
    [
        ("7b pretrain 3 billion tokens 5d", (3e9, "tokens")),
        ("7b sft 250 thousand samples 5d", (250e3, "samples")),
        ("7b 预训练 三千亿token 30天", (3e11, "tokens")),
        ("7b lora 两万条 3天", (2e4, "samples")),
        ("7b lora 3万多条 3天", (3e4, "samples")),
        ("7b lora 40k+ samples 3d", (4e4, "samples")),
        ("7b lora 12k customer support tickets 3d", (12e3, "samples")),
        ("7b lora 9k math problems 3d", (9e3, "samples")),
        ("7b lora 20k QA pairs 3d", (2e4, "samples")),
    ],
)
def test_amounts_of_data_as_people_write_them(text, data):
    r = parse(text)
    assert (r.data.amount, r.data.unit) == data


@pytest.mark.parametrize(
    "text,tokens_per_sample",
    [
        ("7b sft 20k convos ~3k tokens per convo 2d", 3000),
        ("7b sft 20k tickets, 800 tokens each, 2d", 800),
        ("7b sft 20k samples at 1.5k tokens 2d", 1500),
        ("7b sft 20k dialogs averaging 2k tokens 2d", 2000),
        ("7b sft 2万条 每个样本1500 token 2天", 1500),
    ],
)
def test_the_mean_sample_length_after_any_sample_noun(text, tokens_per_sample):
    assert parse(text).tokens_per_sample == tokens_per_sample


@pytest.mark.parametrize(
    "said,days",
    [
        ("two weeks", 14),
        ("ten days", 10),
        ("half a day", 0.5),
        ("a half-week", 3.5),
        ("a 4-day job", 4),
        ("in less than a week", 7),
        ("under 10 days", 10),
        ("半天", 0.5),
        ("半个月", 15),
        ("一个半月", 45),
        ("三天半", 3.5),
        ("不超过两周", 14),
    ],
)
def test_deadlines_in_words(said, days):
    assert parse(f"7b lora 20GB {said}").deadline_days == days


@pytest.mark.parametrize(
    "said,days,low",
    [
        ("3-6 months", 180, 90),
        ("within 3 to 6 months", 180, 90),
        ("2-3 days", 3, 2),
        ("1~2 weeks", 14, 7),
        ("3到6个月", 180, 90),
        ("2-3天", 3, 2),
    ],
)
def test_a_range_of_time_is_its_later_end_said_with_the_earlier(said, days, low):
    # "3-6 months" had been refused ("I did not understand '3-'")
    req = parse(f"7b lora 20GB {said}")
    note = next(n for n in req.assumptions if n.code == "deadline_range")
    assert req.deadline_days == days and note.params["low_days"] == low and note.params["words"] == said


@pytest.mark.parametrize("said", ["6-3 months", "0-2 weeks"])
def test_a_range_of_time_backwards_or_from_zero_is_refused(said):
    with pytest.raises(RequestError) as e:
        parse(f"7b lora 20GB {said}")
    assert e.value.kind == "bad_value"


@pytest.mark.parametrize(
    "text,budget,cost_first",
    [
        ("7b lora 20GB 3d max budget 8000 dollars", (8000, "USD"), False),
        ("7b lora 20GB 3d budget is about $40k", (40_000, "USD"), False),
        ("7b lora 20GB 3d budget ~ 200k rmb", (200_000, "CNY"), False),
        ("7b lora 20GB 3d $1.2 million", (1.2e6, "USD"), False),
        ("7b lora 20GB 3d $90k max", (90_000, "USD"), False),
        ("7b lora 20GB 3d 预算大概八十万", (800_000, "CNY"), False),
        ("7b lora 20GB 3d 预算在20万左右", (200_000, "CNY"), False),
        ("7b lora 20GB 3d 不超过三十万", (300_000, "CNY"), False),
        ("7b lora 20GB 3d tight budget", None, True),
        ("7b lora 20GB 3d 预算紧张，大概3万块", (30_000, "CNY"), True),
        ("7b lora 20GB 3d budget $200k max", (200_000, "USD"), False),
        ("7b lora 20GB 3d budget USD 20k", (20_000, "USD"), False),
        ("7b lora 20GB 3d budget rmb 300k", (300_000, "CNY"), False),
        ("7b lora 20GB 3d 50k budget", (50_000, "CNY"), False),  # the amount before the key
        ("7b lora 20GB 3d $50k budget", (50_000, "USD"), False),
        ("7b lora 20GB 3d budget", None, True),  # the key alone: cost first
    ],
)
def test_budgets_as_people_say_them(text, budget, cost_first):
    r = parse(text)
    assert ((r.budget.amount, r.budget.currency) if r.budget else None) == budget
    assert r.cost_first == cost_first


@pytest.mark.parametrize("said", ["rent or buy?", "buy vs rent", "租还是买划算", "是买还是租"])
def test_asking_rent_or_buy_is_the_question_the_answer_answers(said):
    assert parse(f"7b lora 20GB 3d {said}").rent_or_buy is None


@pytest.mark.parametrize(
    "said,gpu,owned",
    [
        ("we have 8 A800s, buy 8 more or rent?", "A800-SXM4-80GB", True),
        ("we have 8 A800s, should we buy more or rent", "A800-SXM4-80GB", True),
        ("should we buy 8 more A800s or just rent", "A800-SXM4-80GB", False),
        ("buy them or rent?", None, False),
    ],
)
def test_asking_rent_or_buy_with_words_between_is_the_same_question(said, gpu, owned):
    # "buy 8 more or rent?" had been refused: "buy" and "rent" contradict each other
    r = parse(f"32b sft 100k samples {said}")
    assert (r.rent_or_buy, r.gpu, bool(r.owned)) == (None, gpu, owned)


@pytest.mark.parametrize(
    "said,months",
    [
        ("rent for 3 months or buy?", 3),
        ("rent it for a year, or just buy", 12),
        ("租3个月还是买", 3),
        ("租一年还是购买划算", 12),
    ],
)
def test_asking_rent_for_a_term_or_buy_is_the_question_over_that_term(said, months):
    # "rent for 3 months or buy?" had been refused on "or", "租3个月还是买" read as a wish to buy
    r = parse(f"32b sft 100k samples {said}")
    assert (r.rent_or_buy, r.lease_term_months) == (None, months)


def test_renting_for_a_term_then_buying_without_the_question_stays_the_preference():
    assert parse("32b sft 100k samples 租3个月 买").rent_or_buy == "buy"


@pytest.mark.parametrize("said,choice", [("buy 8 H800", "buy"), ("rent 8 H800", "rent")])
def test_one_of_rent_or_buy_without_the_question_stays_the_preference(said, choice):
    assert parse(f"32b sft 100k samples {said}").rent_or_buy == choice


@pytest.mark.parametrize("said", ["包年还是按月", "包月还是包年划算", "monthly or yearly lease?", "yearly vs monthly"])
def test_asking_which_lease_term_leaves_the_term_to_the_answer(said):
    # "包年还是按月" had been refused as two terms: the answer's terms side by side answer it
    assert parse(f"14b 预训练 2T tokens 两个月 H800 {said}").lease_term_months is None


@pytest.mark.parametrize(
    "text,gpu,count",
    [
        ("7b lora 20GB 3d 8卡A800 2台", "A800-SXM4-80GB", 16),  # 卡 before the name: each server's
        ("7b lora 20GB 3d 16卡A800 2台", "A800-SXM4-80GB", 16),  # ...or all of them
        ("7b lora 20GB 3d 四卡H20", "H20-96GB", 4),
        ("7b lora 20GB 3d 单机八卡 H800", "H800-SXM-80GB", 8),
        ("7b lora 20GB 3d H20 32张", "H20-96GB", 32),
        ("7b lora 20GB 3d L40Sx4", "L40S-48GB", 4),
        ("7b lora on about 20GB 3d on 4 H100", "H100-SXM5-80GB", 4),
        ("7b lora on 20 GB 3d 2x H100", "H100-SXM5-80GB", 2),
        ("lora on qwen3 8b, 20GB, 3d, 2 H200", "H200-SXM-141GB", 2),
    ],
)
def test_gpu_counts_as_people_write_them(text, gpu, count):
    r = parse(text)
    assert (r.gpu, r.gpu_count) == (gpu, count)


@pytest.mark.parametrize(
    "said,gpu,count",
    [
        ("on 10,000 H100", "H100-SXM5-80GB", 10_000),
        ("on 10k H100", "H100-SXM5-80GB", 10_000),
        ("on 2k GPUs", None, 2_000),
        ("1万张H100", "H100-SXM5-80GB", 10_000),
        ("1.6万张H800", "H800-SXM-80GB", 16_000),
        ("1万卡", None, 10_000),
    ],
)
def test_large_gpu_counts_as_teams_write_them(said, gpu, count):
    # a thousands separator, k or 万 in the count had been refused ("I did not understand '10'")
    r = parse(f"70B pretrain 1T tokens {said}")
    assert (r.gpu, r.gpu_count) == (gpu, count)


def test_a_count_past_the_usable_range_is_said_before_a_word_not_read():
    # "我们有100万张H100能训什么": its 什么 had been refused, and the FAQ's unsure guess (MFU) answered
    assert _refusal("我们有100万张H100能训什么")[0] == "bad_value"


def test_a_count_that_is_neither_a_server_nor_all_servers_is_refused():
    with pytest.raises(RequestError):
        parse("7b lora 20GB 3d 12卡A800 2台")


def test_tensor_parallel_after_a_number_is_no_gpu_count():
    r = parse("7B 预训练 100B tokens 序列长度32000 张量并行8")
    assert (r.seq_len, r.tp, r.gpu_count) == (32000, 8, None)


@pytest.mark.parametrize(
    "text,model",
    [
        ("qwen3-14b-instruct lora 10k samples 1d", "qwen3-14b"),
        ("Gemma 3 27B IT lora 10k samples 1d", "gemma3-27b"),
        ("qwen3 235b lora 100M tokens 3d", "qwen3-235b-a22b"),  # a mixture of experts, not a dense 235B
        ("qwen3-30b lora 100M tokens 3d", "qwen3-30b-a3b"),
        ("llama4 109b lora 100M tokens 3d", "llama4-scout"),
        ("phi-4 sft 10k samples 1d", "phi-4"),
    ],
)
def test_a_release_is_found_by_the_names_people_give_it(text, model):
    assert parse(text).model == model


@pytest.mark.parametrize(
    "text,size", [("llama 70b lora 1GB", 70), ("qwen2-72b lora 1GB", 72), ("internlm 20b lora 1GB", 20)]
)
def test_a_family_without_its_version_or_release_stays_a_generic_size_and_says_so(text, size):
    r = parse(text)
    assert r.model is None and r.params_b == size and "unknown_model" in r.user_set


@pytest.mark.parametrize(
    "text",
    [
        # "GPT" alone is the architecture's name: it had been "did you mean gpt2?"
        "train a 350M GPT from scratch on 9B tokens on a single 4090",
        "从零训练一个 1B 的 GPT 模型 20B token",
        "pretrain a 1B transformer on 20B tokens",
    ],
)
def test_the_architectures_generic_name_beside_a_size_is_a_dense_decoder_of_that_size(text):
    r = parse(text)
    assert r.model is None and r.params_b in (0.35, 1.0) and r.active_params_b == r.params_b
    # the releases keep their names, and the word alone is no size
    assert parse("gpt2 pretrain 10B tokens").model == "gpt2" and parse("gpt-oss-20b lora 10k samples").model
    with pytest.raises(RequestError):
        parse("train a GPT on 9B tokens")


def test_unseen_requests_of_2026_12_read_right_and_none_is_misread():
    """The held-out set written before this round's changes (tests/requests_heldout_2026_12.toml,
    40 English and 40 Chinese). Before, as first scored: 42 right, 26 refused, 12 misread; by the
    final rules (aliases, catalogued sizes, "noted", two expectations corrected; docs/bench.md):
    49 right, 5 noted, 26 refused, 0 misread. After: 72 right (36 + 36), 7 noted (a model the
    catalogue lacks planned at the size in its name, said so), 1 refused ("overnight"), 0
    misread. The floor keeps one of slack; a misread is never allowed."""
    from advisor.planning.engine_inputs import layout_problem
    from advisor.planning.planner import candidate_gpus
    from tests.heldout_requests import TODAY, judge, load

    outcomes: dict[str, list[str]] = {}
    for case in load("requests_heldout_2026_12.toml"):
        try:
            r = parse(case["text"], today=TODAY)
            req = None if layout_problem(r, candidate_gpus(r)) else r.model_dump(mode="json")
        except RequestError:
            req = None
        verdict, why = judge(case, req)
        outcomes.setdefault(verdict, []).append(f"{case['text']}: {why}")
    assert not outcomes.get("misread"), outcomes["misread"]
    assert len(outcomes.get("right", [])) >= 71


@pytest.mark.parametrize(
    "text,lang",
    [
        ("用中文回答 7b lora 20GB 3d", "zh"),
        ("7b lora 20GB 3天 用英文回答", "en"),
        ("7b lora 20GB 3d reply in chinese", "zh"),
        ("7b lora 20GB 3d lang zh", "zh"),
    ],
)
def test_the_reply_language_asked_in_words(text, lang):
    from advisor.request.parser import detect_lang

    assert parse(text).lang == lang and detect_lang(text) == lang


@pytest.mark.parametrize(
    "text,gpu,count",
    [
        ("70B sft 100GB on 2x8 H800", "H800-SXM-80GB", 16),  # servers x GPUs each
        ("70B sft 100GB on 4*8xH100", "H100-SXM5-80GB", 32),
        ("7B lora 20GB 昇腾910B 8卡", "Ascend-910B-64GB", 8),
        ("7B lora 20GB 用华为910B 16卡", "Ascend-910B-64GB", 16),
        # the form factor before the part, as vendors list it ("8" had not been understood)
        ("70B lora 10GB on 8 PCIe H100s", "H100-PCIe-80GB", 8),
    ],
)
def test_gpus_as_teams_write_them(text, gpu, count):
    req = parse(text)
    assert (req.gpu, req.gpu_count) == (gpu, count)


@pytest.mark.parametrize(
    "text,method,rank",
    [
        ("fine-tune Qwen/Qwen3-32B with LoRA rank 64 on 100k samples, seq 8192", "lora", 64),
        ("fine-tune qwen3-32b with QLoRA rank 16 100k samples", "qlora", 16),
        ("qwen3-32b 微调 lora-r 32 10万条", "lora", 32),
    ],
)
def test_a_rank_said_with_lora_names_the_method(text, method, rank):
    r = parse(text)
    assert (r.method, r.lora_rank) == (method, rank)


def test_a_rank_beside_another_method_is_still_a_contradiction():
    assert _refusal("full-finetune qwen3-32b lora rank 64 100k samples")[0] == "conflict"


@pytest.mark.parametrize(
    "text",
    ["qwen3-14b 全参微调 5万条 用2台4090服务器", "qwen3-14b full finetune 50k samples on 2 4090 servers"],
)
def test_servers_of_consumer_cards_are_whole_servers(text):
    r = parse(text)
    assert (r.gpu, r.gpu_count) == ("RTX4090-24GB", 16)
    assert parse("7b lora 1万条 用一台4090").gpu_count == 1  # 台 alone counts the cards


@pytest.mark.parametrize(
    "text,seq",
    [
        ("llama3.1-8b long context extension to 128k, 5B tokens", 131072),
        ("llama-3.3-70b-instruct lora 3万条 长度8192 用H20", 8192),
        ("Qwen3-32B LoRA 长上下文32k 1万条", 32768),
    ],
)
def test_a_context_length_said_the_ways_teams_say_it(text, seq):
    r = parse(text)
    assert r.seq_len == seq and not [n for n in r.assumptions if n.code == "read_past"]
    assert parse("7b lora 1万条 平均长度2000 token").tokens_per_sample == 2000  # a sample's, not the sequence's


@pytest.mark.parametrize(
    "text,days",
    [
        ("8B full 30B tokens cheapest that finishes by March usd", 88),  # before March: 2027-03-01
        ("70B 全量微调 1000亿token 3月底前完成 预算100万", 118),  # 2027-03-31
        ("7b lora 1万条 1月中旬前", 43),  # 2027-01-15
        ("7b lora 1万条 2月前", 60),  # 2027-02-01
    ],
)
def test_a_month_said_as_the_deadline(text, days):
    assert parse(text, today=datetime.date(2026, 12, 3)).deadline_days == days


def test_a_budget_by_the_month_in_chinese_and_one_server_without_a_type():
    assert "budget_monthly" in [n.code for n in parse("13B 全量微调 100GB 30天 预算10万元/月").assumptions]
    r = parse("一台服务器能跑吗 32B LoRA 10万条 5天")
    assert r.one_server and r.gpu is None
    assert _refusal("72B 全参微调 30万条 两周 自有机器")[0] == "nodes_need_gpu"


@pytest.mark.parametrize("text", ["8B 全量微调 50亿token 3天 预算2万 闲时", "8B full-finetune 5B tokens 3d off-peak"])
def test_off_peak_is_read_and_said(text):
    r = parse(text)
    assert [n.params["words"] for n in r.assumptions if n.code == "offpeak"] and not [
        n for n in r.assumptions if n.code == "read_past"
    ]


@pytest.mark.parametrize(
    "text",
    [
        "70B full-finetune 1TB 14d budget owned 128xH800",
        "our own 16 H100 70b lora 1GB",
        "7B 预训练 2T tokens 用我们自己的 64卡A800 30天",
        "7B 预训练 2T tokens 用自己的64卡A800 30天",
        "65B 预训练 1.4万亿token 用我们自有的2048卡A100-80GB",
        "our GPUs: 16x A800. Task: continued pretrain Qwen2.5-32B on 20B tokens. How long?",
        "our GPUs are 8 H100, 70B lora 50k samples",
    ],
)
def test_gpus_said_as_owned_in_more_words_are_the_teams(text):
    # these had been priced as rented ("skipped 'owned'", "略过了 '自己'")
    assert parse(text).owned
    assert not parse("7B 预训练 2T tokens 30天 我们的数据 64卡A800").owned  # our data, not our GPUs


def test_a_samples_length_before_the_budget_key_is_not_the_budget():
    # "每条4k 预算…" had moved 4k behind 预算 as an amount said before its key
    r = parse("Qwen3-32B 全参 20万条 每条4k 预算每月10万 两个月")
    assert r.tokens_per_sample == 4000 and "budget_monthly" in [n.code for n in r.assumptions]
    assert parse("Qwen3-32B 全参 20万条 每条4k 预算30万 年租").budget.amount == 300_000
    assert parse("7b lora 1万条 100万预算 30天").budget.amount == 1_000_000


def test_more_ways_a_chinese_lead_writes_a_request():
    # each had been refused: 就 before the amount, a length before 长度, a short distill name,
    # a choice of two GPUs with 和, and a lease's payment terms in a request
    assert parse("预算就30万，能跑DeepSeek-R1-Distill-70B的LoRA吗").budget.amount == 300_000
    assert parse("预算就30万，能跑DeepSeek-R1-Distill-70B的LoRA吗").model == "llama3.1-70b"
    assert parse("qwen3-32b全参sft 20w条 2k长度 8卡h800").seq_len == 2048
    assert _refusal("昇腾910B和H800哪个划算 70B lora 1万条")[0] == "gpu_choice"
    terms = parse("押一付三 租两台8卡A800 做Qwen3-14B全参 30万条")
    assert [n.params["words"] for n in terms.assumptions if n.code == "payment_terms"] == [["押一付三"]]


def test_the_network_a_team_has_is_said_not_read_as_data():
    # "25G以太网" had been 25 GB of data, refused beside the 50万条; it is the network planned on, each
    # server's own Ethernet link
    r = parse("我们有4台8卡A800，没有IB，只有25G以太网，Qwen3-32B全参微调 50万条")
    assert r.owned and r.data.unit == "samples" and "team_network" in [n.code for n in r.assumptions]
    assert (r.network_gbps, r.network_per_server) == (25, True)


def test_one_gpu_or_server_said_after_the_network_stays_a_count():
    one_card, one_server = parse("7b lora 20GB 3d 只有25G以太网 单卡"), parse("7b lora 20GB 3d 只有25G以太网 单机")
    assert (one_card.gpu_count, one_card.network_gbps, one_card.network_per_server) == (1, 25, True)
    assert one_server.one_server and one_server.network_gbps == 25


@pytest.mark.parametrize(
    "said,gbps,per_server",
    [
        ("with 100Gb/s per GPU", 100, False),
        ("25 Gbps between servers", 25, True),
        ("每台100G网卡", 100, True),
        ("每卡200G网卡", 200, False),
        ("8x200G IB", 1600, True),
        ("200G IB", 200, False),
        ("为什么要RoCE，我们只有25G以太网", 25, True),  # the Ethernet said, not the RoCE asked about
        ("on 16 A800 100G per server", 100, True),  # after a card's name: no memory size
    ],
)
def test_the_network_said_is_a_gpus_or_a_servers_link(said, gbps, per_server):
    r = parse(f"13B pretrain 2T tokens 30d {said}")
    assert (r.network_gbps, r.network_per_server) == (gbps, per_server)
    # and the request written back reads the same
    again = parse(canonical(r))
    assert (again.network_gbps, again.network_per_server) == (gbps, per_server)


def test_the_rtx_3090_is_a_card_and_its_number_before_a_count_is_that_count():
    r = parse("7B lora 5万条 3天 2张3090")
    assert (r.gpu, r.gpu_count, r.data.amount, r.data.unit) == ("RTX3090-24GB", 2, 50_000, "samples")
    # a card's bare number followed by a count of data or money is that count, not the card
    counted = parse("7b lora 3090条数据")
    assert (counted.data.amount, counted.data.unit, counted.gpu) == (3090, "samples", None)
    assert parse("7b lora 4090 samples 1d on 2x4090").data.amount == 4090
    assert parse("7b lora 1万条 预算4090元").budget.amount == 4090


@pytest.mark.parametrize(
    "text,deadline,budget",
    [
        ("7b lora 20GB 2w usd", 14, None),  # two weeks, priced in dollars
        ("7b lora 20GB 3w usd", 21, None),
        ("7b lora 20GB 3d 2w元", 3, 20_000),  # 2万 yuan: joined to its currency
        ("7b lora 20GB budget 2w usd", None, 20_000),  # after the budget's key
    ],
)
def test_w_is_weeks_unless_money_says_so(text, deadline, budget):
    req = parse(text)
    assert req.deadline_days == deadline
    assert (req.budget.amount if req.budget else None) == budget


@pytest.mark.parametrize(
    "text,lang",
    [
        ("70B full-finetune 1TB 14d budget 1千万", "en"),  # a Chinese unit in an amount
        ("70B full-finetune 1TB 14d budget 50万", "en"),
        ("7b lora 20GB 3d budget 5000元", "en"),
        ("3B pretrain 2T tokens 3 months budget 50万美元", "en"),  # a Chinese currency word
        ("7b lora 20GB 3d budget 2000美金", "en"),
        ("70B full-finetune 1TB 14d 预算1千万", "zh"),  # a Chinese word
    ],
)
def test_an_english_request_with_a_chinese_amount_is_answered_in_english(text, lang):
    assert parse(text).lang == lang


@pytest.mark.parametrize(
    "text,seq",
    [("7b lora 1GB seq 32k", 32768), ("7b lora 1GB 8k context", 8192), ("7b lora 1GB 上下文128k", 131072)],
)
def test_a_sequence_length_in_k_counts_1024s(text, seq):
    assert parse(text).seq_len == seq


@pytest.mark.parametrize(
    "text,words,check",
    [
        # the expert review: one unknown word sank a whole request
        (
            "hey, 13B full finetune 20B tokens on 16 A100 80GB, how long? cheers",
            ["cheers"],
            lambda r: (r.gpu_count, r.params_b, r.method, r.tokens) == (16, 13, "full-finetune", 20e9),
        ),
        (
            "我们要微调一个qwen2.5-32b，大概5万条客服对话，每条1500 token左右，希望3天内完成，预算5万以内",
            ["客服对话"],
            lambda r: (
                (r.model, r.data.amount, r.tokens_per_sample, r.deadline_days, r.budget.amount)
                == ("qwen2.5-32b", 50_000, 1500, 3, 50_000)
            ),
        ),
        ("hey team, 7b lora 20GB 3d for our chatbot thanks", ["team", "chatbot"], lambda r: r.method == "lora"),
    ],
)
def test_words_that_cannot_change_the_plan_are_read_past_and_said(text, words, check):
    r = parse(text)
    assert [n.params["words"] for n in r.assumptions if n.code == "read_past"] == [words]
    assert check(r), r


@pytest.mark.parametrize(
    "text,word",
    [
        ("70B lora 1TB 14d not on 4090", "not"),  # a negation reverses what follows it
        ("70B lora 1TB 14d 不要4090", "不"),  # 要 alone is filler
        ("0.5B budget 3 samples", "samples"),  # a request word left over was not placed
        ("70B lroa 1TB 14d", "lroa"),  # a typo of the method, read past, would plan another method
        ("70B lora 1TB 14d foo7", "foo7"),  # a number whose meaning was not found
    ],
)
def test_words_that_may_change_the_plan_are_still_refused(text, word):
    assert _refusal(text) == ("unknown_word", word)


def test_a_request_of_unknown_words_alone_is_refused_on_the_first():
    with pytest.raises(RequestError) as info:
        parse("hello there")
    assert info.value.kind == "unknown_word" and info.value.details["word"] == "hello"


@pytest.mark.parametrize(
    "text,seq,days",
    [
        ("7B sft 100k samples 32k context 3 days", 32768, 3),  # the key after the number, then a deadline
        ("7B sft 100k samples seq 32k long context 3 days", 32768, 3),  # said twice, once with its length
        ("7B sft 100k samples context 8192 3 days", 8192, 3),
        ("7b sft 1TB 上下文32k 3天", 32768, 3),
    ],
)
def test_a_context_length_is_its_number_and_a_time_after_it_is_the_deadline(text, seq, days):
    r = parse(text)
    assert (r.seq_len, r.deadline_days) == (seq, days)


@pytest.mark.parametrize("text", ["7B sft 100k samples long context 3 days", "7b sft 1TB 长上下文 3天"])
def test_long_context_without_its_length_asks_for_it(text):
    """`long context 3 days` had been read as a 3-token sequence."""
    with pytest.raises(RequestError) as info:
        parse(text)
    assert info.value.kind == "context_length" and "seq 32k" in info.value.message("en")


@pytest.mark.parametrize(
    "text,days",
    [
        # Wednesday 2026-12-02
        ("7B full finetune 1B tokens within a fortnight", 14),
        ("7B 全量微调 10亿token 本周内", 4),  # to Sunday
        ("7b lora 1GB by end of this week", 4),
        ("7b lora 1GB by next week", 11),  # to the Sunday of next week
        ("7b lora 1GB by tomorrow", 1),
        ("7B模型 继续预训练 100GB中文数据 10个工作日", 14),  # ten weekdays on
        ("7b lora 1GB 10 working days", 14),
        ("7b lora 1GB 下个月15号前", 44),
        ("7b lora 1GB by end of Q1", 119),
        ("7b lora 1GB 第一季度末前", 119),
        # a quarter without its end, before it begins (as "by March"); the quarter under way, its end
        ("7b lora 1GB by Q2", 120),
        ("7b lora 1GB 第二季度前", 120),
        ("7b lora 1GB by end of Q2", 210),
        ("7b lora 1GB by Q4", 29),
        ("7b lora 1GB 下周五", 9),  # a weekday is still a weekday
    ],
)
def test_deadlines_teams_write_as_weeks_workdays_and_quarters(text, days):
    r = parse(text, today=datetime.date(2026, 12, 2))
    assert r.deadline_days == days and not [n for n in r.assumptions if n.code == "read_past"]


@pytest.mark.parametrize("text,word", [("7b lora 1GB this weekend", "weekend"), ("7b lora 1GB 年后", "年后")])
def test_a_time_the_deadline_rules_do_not_read_is_refused_not_read_past(text, word):
    with pytest.raises(RequestError) as info:
        parse(text, today=datetime.date(2026, 12, 2))
    assert info.value.details["word"] == word


@pytest.mark.parametrize(
    "text",
    [
        "70B full finetune 50GB 7d one server only",
        "70B full finetune 50GB 7d single node",
        "70B 全量微调 50GB 7天 单机",
    ],
)
def test_one_server_only_is_a_constraint(text):
    assert parse(text).one_server


def test_one_server_with_more_gpus_than_a_server_is_a_contradiction():
    with pytest.raises(RequestError) as info:
        parse("70B lora 50GB 7d on 16xH800 one server only")
    assert info.value.kind == "conflict"


def test_eight_cards_in_one_machine_are_gpus_not_the_constraint():
    r = parse("7b lora 20GB 3d 单机八卡")
    assert r.gpu_count == 8 and not r.one_server


@pytest.mark.parametrize(
    "text,field,value",
    [
        ("we have 2 servers of 8xA800, 32B sft 500k samples", "gpu_count", 16),  # was a contradiction
        ("7b lora 1GB on 2 nodes with 8 H100 each", "gpu_count", 16),
        ("70B full-finetune 1TB on four 8xH800 nodes", "gpu_count", 32),  # the server's shape first
        ("70B full-finetune 1TB 14d on 2x 8xH100 servers", "gpu_count", 16),
        ("70B full-finetune 1TB 14d on 3 8xH100 boxes", "gpu_count", 24),
        ("70B full-finetune 1TB on 8xH800 on 4 nodes", "gpu_count", 32),  # one server's GPUs, four times
        ("/gpu 70B full-finetune 1TB 14d budget", "params_b", 70),  # the Slack form pasted whole
        ("<@U12345> 70B full-finetune 1TB 14d budget", "params_b", 70),  # a mention of the bot
        ("千亿参数模型预训练 1万亿token 3个月", "params_b", 100),
        ("8B sft 1万条 每条3万token 3天", "tokens_per_sample", 30_000),
    ],
)
def test_hardware_sizes_and_lengths_as_teams_write_them(text, field, value):
    assert getattr(parse(text), field) == value


@pytest.mark.parametrize(
    "text,total,months",
    [
        ("13B sft 5B tokens budget 2 million CNY per month", 2_000_000, 1),  # no deadline: the 30 days planned
        ("13B sft 5B tokens 60d budget $50k/month", 100_000, 2),
        ("13B sft 5B tokens 月预算20万 45天", 400_000, 2),  # 45 days start a second month
        ("13B sft 5B tokens 每月预算20万", 200_000, 1),
        ("13B sft 5B tokens budget ¥300k monthly", 300_000, 1),  # "monthly" after the amount
        # no deadline, a lease term: each month of the term asked for
        ("13B sft 5B tokens budget ¥300k/month 3-month lease", 900_000, 3),
        ("13B sft 5B tokens 预算每月30万 租6个月", 1_800_000, 6),
    ],
)
def test_a_budget_by_the_month_is_that_much_for_each_month_of_the_deadline(text, total, months):
    r = parse(text)
    assert r.budget.amount == total
    assert [n.params["months"] for n in r.assumptions if n.code == "budget_monthly"] == [months]


@pytest.mark.parametrize("text", ["7B full finetune 1B tokens $2/hr", "7B sft 1B tokens 2元/卡时"])
def test_a_price_per_hour_is_not_taken_for_the_jobs_budget(text):
    """`$2/hr` had been a $2 cap on the whole job."""
    with pytest.raises(RequestError) as info:
        parse(text)
    assert info.value.kind == "hourly_budget"


@pytest.mark.parametrize(
    "text,owned",
    [
        ("我们团队有16张A800，想做70B的LoRA微调，数据20万条，要多久？", True),
        ("70B lora 50k samples, we own 16 A100 already", True),
        ("we have 2 servers of 8xA800, 32B sft 500k samples", True),
        ("we have 50k samples, 7b lora 3d", False),  # having data is not having GPUs
        ("can we finetune qwen3-32b (full) on our 2 DGX H100 in 3 days? ~40GB data", True),
        ("qwen3-32b full 40GB 3d on our 16 H100", True),
        ("our 50k samples, 7b lora 3d", False),
        ("7b full-finetune 1GB buy keep it busy 24 months", False),
        # where they stand and how idle they are, between the owner and the count
        ("qwen2.5-7b 全参 1亿token 一周 我们IDC里有闲置的16张A800", True),
        ("7b lora 10GB 3天 公司内部有空闲的两台8卡H800", True),
        ("7b lora 10GB 3天 我们集群上有64张910B", True),
    ],
)
def test_gpus_the_team_has_are_its_own(text, owned):
    r = parse(text)
    assert r.owned == owned and (r.rent_or_buy != "buy" or not owned)


@pytest.mark.parametrize(
    "text,word",
    [
        # each had been read past and planned against what it says (a second probe of the tolerant reading)
        ("70B lora 200GB 5d we can't use 4090", "not"),  # the 4090 had become the fixed GPU
        ("70B lora 200GB 5d anything but H20", "anything"),
        ("70B lora 200GB 5天 避免H20", "避免"),
        ("70B lora 200GB 5d more than one server is fine", "more"),
        ("70B lora 200GB in a few days", "few"),
        ("70B lora 200GB 5d run it twice", "twice"),
        ("70B full-finetune 1TB compressed 14d", "compressed"),
        ("70B lora 200GB 5d, they have 16 A100", "they"),
        ("70B lora 200GB 5天 客户有16张A800", "客户"),
        ("7B 对齐训练 20GB 3天", "对齐"),
    ],
)
def test_words_that_bend_the_request_are_refused_not_read_past(text, word):
    with pytest.raises(RequestError) as info:
        parse(text)
    assert info.value.details.get("word") == word


@pytest.mark.parametrize("text", ["70B lora 200GB 5d long documents", "70B lora 200GB 5天 长文本"])
def test_long_documents_ask_for_the_sequence_length(text):
    with pytest.raises(RequestError) as info:
        parse(text)
    assert info.value.kind == "context_length"


def test_own_data_is_not_a_wish_to_buy_and_priorities_in_chinese():
    assert parse("70B lora 200GB 5d on our own data").rent_or_buy is None
    assert parse("70B lora 200GB 5d 速度优先").speed_first and parse("70B lora 200GB 5d 成本优先").cost_first


@pytest.mark.parametrize(
    "text,gpu,low,high",
    [
        ("70B lora 200GB 5d up to 64 GPUs", None, None, 64),
        ("70B lora 200GB 5d at least 16 H800", "H800-SXM-80GB", 16, None),
        ("70B lora 200GB 5天 64卡以内", None, None, 64),  # had been read as exactly 64
        ("70B lora 200GB 5天 至少16张卡", None, 16, None),
        ("70B lora 200GB 5天 最多32张H800", "H800-SXM-80GB", None, 32),
    ],
)
def test_bounds_on_the_gpu_count_leave_the_count_to_the_planner(text, gpu, low, high):
    r = parse(text)
    assert (r.gpu, r.gpu_count, r.min_gpus, r.max_gpus) == (gpu, None, low, high)


def test_a_count_outside_its_bounds_is_a_contradiction():
    with pytest.raises(RequestError) as info:
        parse("7b lora 20GB 3d on 16xH800 up to 8 GPUs")
    assert info.value.kind == "conflict"


@pytest.mark.parametrize(
    "text,amount,months",
    [("13B full-finetune 100GB 60d $50k/month", 100_000, 2), ("13B full-finetune 100GB $50k/month", 50_000, 1)],
)
def test_an_amount_by_the_month_without_the_word_budget(text, amount, months):
    r = parse(text)
    assert r.budget.amount == amount and [n.params["months"] for n in r.assumptions if n.code == "budget_monthly"] == [
        months
    ]


def test_a_mention_then_the_pasted_command():
    assert parse("<@U123ABC> /gpu 7b lora 20GB 3d").params_b == 7


@pytest.mark.parametrize(
    "text",
    [
        "13B 全量微调 100GB数据 每卡时2元",
        "LoRA微调Llama-3-8B，数据500MB，显卡预算每小时不超过20元",
        # 块 of money after a rate's cap, not a count of cards (it had been read as at most 5 GPUs)
        "7b lora 20GB 每卡时最多5块",
    ],
)
def test_a_price_per_card_hour_in_chinese_is_no_budget(text):
    # a cap on the rate ("每小时不超过20元") had been refused on "每小时"
    with pytest.raises(RequestError) as info:
        parse(text)
    assert info.value.kind == "hourly_budget"


def test_bounds_that_cross_name_both():
    with pytest.raises(RequestError) as info:
        parse("13B full-finetune 100GB at least 16 GPUs up to 8 GPUs")
    assert {info.value.details["first"], info.value.details["second"]} == {"at least 16 gpus", "up to 8 gpus"}


@pytest.mark.parametrize(
    "text,days",
    [("7b lora 20GB 下个月底", 60), ("7b lora 20GB 1月15日前", 44), ("7b lora 20GB before Dec 20", 18)],
)
def test_chinese_and_yearless_deadlines_ahead(text, days):
    assert parse(text, today=datetime.date(2026, 12, 2)).deadline_days == days


@pytest.mark.parametrize(
    "text", ["7b lora 20GB by end of month", "7b lora 20GB 月底前", "7b lora 20GB by Dec 31", "7b lora 20GB 年底前"]
)
def test_a_day_that_is_today_is_what_is_left_of_today(text):
    # said on 31 December each had been refused as a day already past
    r = parse(text, today=datetime.date(2026, 12, 31))
    assert r.deadline_days == 8 / 24 and "deadline_today" in {a.code for a in r.assumptions}


@pytest.mark.parametrize(
    "text,word",
    [
        ("mixtral-8x7b qlora 10k samples overnight", "overnight"),
        ("7b lora 1GB run overnight on 1 4090", "run overnight"),
        ("7b lora 1GB 一晚上", "一晚上"),
        ("7b lora 1GB 通宵", "通宵"),
    ],
)
def test_overnight_is_an_evening_to_the_next_morning(text, word):
    # "overnight" had been refused as a word not understood
    r = parse(text)
    assert r.deadline_days == 12 / 24
    assert [a.params["word"] for a in r.assumptions if a.code == "deadline_overnight"] == [word]


@pytest.mark.parametrize(
    "text,kind",
    [
        ("7b lora 20GB 上个月底前", "deadline_past"),
        ("7b lora 20GB 12月1日前", "deadline_past"),  # yesterday, not next year's
        ("7b lora 20GB before Nov 20", "deadline_past"),
        ("7b lora 20GB 下下周", "unknown_word"),  # had been read as next week
        ("7b lora 20GB 预算10万以上", "unknown_word"),  # a floor on the budget is no cap
        ("7b lora 20GB 租两台", "nodes_need_gpu"),  # two servers of which GPU?
        ("7b lora 20GB at least 16 GPUs one server only", "conflict"),
    ],
)
def test_times_and_counts_that_had_been_misread_are_refused(text, kind):
    with pytest.raises(RequestError) as info:
        parse(text, today=datetime.date(2026, 12, 2))
    assert info.value.kind == kind


def test_fewer_than_is_a_cap_below_it_and_everyday_phrases_read():
    assert parse("7b lora 20GB 少于16张卡").max_gpus == 15
    assert parse("7b lora 20GB as soon as possible").speed_first
    assert parse("7b lora 20GB for us").params_b == 7  # "us" here is not the United States
    with pytest.raises(RequestError) as info:
        parse("7b lora 20GB at least 14d")
    assert info.value.details["nearest"] == ""  # "least" is no typo of "lease"


@pytest.mark.parametrize(
    "text",
    ["Gemma 3 4B lora 10k samples 2d", "Baichuan 2 13B lora 10k samples 2d", "ERNIE 4.5 300B-A47B lora 10k samples 2d"],
)
def test_names_with_spaces_are_written_back_so_they_read_again(text):
    from advisor.request.canonical import canonical

    r = parse(text)
    again = parse(canonical(r))
    assert (again.params_b, again.active_params_b) == (r.params_b, r.active_params_b)


@pytest.mark.parametrize(
    "text,seq,code",
    [
        ("8B sft 1万条 每条3万token 3天", 32768, "seq_from_samples"),  # had been 4096, the samples cut silently
        ("llama2-7b sft 10k samples avg 20k tokens 3d", 4096, "seq_len"),  # the model's own 4K is the most
        ("7b sft 10k samples avg 2k tokens 3d", 4096, "seq_len"),
    ],
)
def test_samples_longer_than_the_default_sequence_are_trained_whole(text, seq, code):
    r = parse(text)
    assert r.seq_len == seq and code in [n.code for n in r.assumptions]


def test_skipped_words_are_quoted_and_listed_the_readers_way():
    from advisor.text.render import word

    r = parse("hey team, 7b lora 20GB 3d for our chatbot thanks", lang="zh")
    note = next(n for n in r.assumptions if n.code == "read_past")
    assert "“team”、“chatbot”" in word("zh", note)
    assert '"team", "chatbot"' in word("en", note)


@pytest.mark.parametrize(
    "text, words",
    [
        ("7b lora 20GB 3d lr 2e-5", ["lr 2e-5"]),
        ("7b lora 20GB 3d learning rate 1e-4 warmup 100", ["learning rate 1e-4", "warmup 100"]),
        ("7b lora 20GB 3天 学习率2e-5", ["学习率2e-5"]),
    ],
)
def test_optimizer_hyperparameters_are_read_and_said_to_change_nothing(text, words):
    r = parse(text)
    assert [n.params["words"] for n in r.assumptions if n.code == "hyperparameters"] == [words]
    without = text
    for w in words:
        without = without.replace(w, "")
    base = parse(without)
    assert (r.data.amount, r.data.unit, r.deadline_days, r.lora_dropout) == (base.data.amount, "bytes", 3, 0)


@pytest.mark.parametrize(
    "text, field, value",
    [
        ("7b lora 1e5 samples 3d", "data", ("samples", 1e5)),
        ("7b pretrain 2.5e9 tokens 3d", "data", ("tokens", 2.5e9)),
        ("70B full-finetune 1TB 14d on Ascend", "gpu", "Ascend-910B-64GB"),
    ],
)
def test_numbers_in_e_notation_and_ascend_alone(text, field, value):
    got = getattr(parse(text), field)
    assert ((got.unit, got.amount) if field == "data" else got) == value


@pytest.mark.parametrize(
    "text, field, value",
    [
        # compound Chinese numerals, said as people say them
        ("7b lora 两万五千条", "data", ("samples", 25000)),
        ("7b lora 一万五千条", "data", ("samples", 15000)),
        ("7b lora 1万5千条", "data", ("samples", 15000)),
        ("7b lora 三万五条", "data", ("samples", 35000)),
        ("7b 全参 两千五百万token", "data", ("tokens", 25_000_000)),
        ("7b lora 1万条 预算一千五", "budget", (1500, "CNY")),
        ("7b lora 1万条 预算五百块", "budget", (500, "CNY")),
        ("qwen2.5-7b 全参 20万条 2周 预算2万刀", "budget", (20000, "USD")),
        ("qwen2.5-72b 全参 50万条 两周 100万预算", "budget", (1_000_000, "CNY")),
        ("34B lora 100k samples 1 week half a million rmb", "budget", (500_000, "CNY")),
        # counts and times in words
        ("千卡H800 预训练 70B 3T token", "gpu_count", 1000),
        ("7b lora 5万条 双卡4090", "gpu_count", 2),
        ("72b full ft 500k samples 2 weeks on thirty-two H800", "gpu_count", 32),
        ("70b 全参 50万条 两周 8卡H800*4", "gpu_count", 32),
        ("7b lora 50k samples two and a half days", "deadline_days", 2.5),
        ("qwen2.5-72b 全参微调 半年 50万条", "deadline_days", 180),
        ("70B 全参 100万条 一个季度", "deadline_days", 90),
        # lease terms said with "for" or 包
        ("70B full-finetune 10B tokens on 16xH800 rent for 2 months", "lease_term_months", 2),
        ("7b lora 50k samples on 8xH800 lease for 3 months", "lease_term_months", 3),
        ("70B 全参 10B token 用16张H800 包两个月", "lease_term_months", 2),
        ("7b lora 50k samples 租半年", "lease_term_months", 6),
    ],
)
def test_numbers_and_terms_said_in_words_are_read_whole(text, field, value):
    r = parse(text)
    got = getattr(r, field)
    if field == "data":
        got = (got.unit, got.amount)
    elif field == "budget":
        got = (got.amount, got.currency)
    assert got == value
    assert not [n for n in r.assumptions if n.code == "read_past"]


@pytest.mark.parametrize(
    "text, word",
    [
        ("7b lora 5万条 三天半多一点", "多一点"),
        ("70b lora 100k samples, 2 weeks, budget 1.5 lakh", "lakh"),
        ("7b lora 50k samples three days or so give or take a couple", "couple"),
    ],
)
def test_a_leftover_that_holds_a_number_is_refused_not_read_past(text, word):
    with pytest.raises(RequestError) as e:
        parse(text)
    assert word in str(e.value) or e.value.kind == "unknown_word"


def test_the_understood_lines_read_as_english(cli):
    """`deadline: 1 days`, `a 8B-parameter`, `0.0833 days` for two hours."""
    one = cli("ask", "8B lora 10GB 1d").stdout
    assert "deadline:   one day" in one and "8B-parameter dense decoder" in one and "a 8B" not in one
    assert "deadline:   2 hours" in cli("ask", "8B lora 10GB 2h").stdout


@pytest.mark.parametrize(
    "text, field, value",
    [
        ("7b lora twenty thousand samples", "data", ("samples", 20000)),
        ("7b 全参 3kw token 一周", "data", ("tokens", 30_000_000)),
        ("14B 继续预训练 数据量大概2个T", "data", ("bytes", 2e12)),
        ("7b lora 3万条 后天", "deadline_days", 2),
        ("7b lora 50k samples fortnight", "deadline_days", 14),
        ("70b 全参 50万条 2周 h800 4机", "gpu_count", 32),
    ],
)
def test_shorthand_teams_write_is_read(text, field, value):
    got = getattr(parse(text), field)
    assert ((got.unit, got.amount) if field == "data" else got) == value


def test_a_day_of_a_month_before_a_currency_word_is_the_date():
    r = parse("qwen2.5-7b full-finetune 200k samples before Dec 20 usd", today=datetime.date(2026, 12, 3))
    assert r.deadline_days == 17 and r.budget is None and r.currency == "USD"


def test_a_dollar_budget_moving_the_market_abroad_is_said():
    r = parse("70B full-finetune 50B tokens 30d budget $200k")
    assert r.market == "global" and "market_from_budget" in [n.code for n in r.assumptions]
    assert "market_from_budget" not in [n.code for n in parse("70B full-finetune 1TB 14d usd").assumptions]
    # written in Chinese, a dollar cap is a mainland team's: mainland prices, converted, said
    zh = parse("预算20万美元 70B 全量微调 500亿token 30天")
    assert (zh.market, zh.currency) == ("china", "USD") and "market_kept_chinese" in [n.code for n in zh.assumptions]
    assert parse("预算20万美元 70B 全量微调 500亿token 30天 usd").market == "global"
    assert parse("70B full-finetune 1TB 14d budget $2M shenzhen").market == "china"


@pytest.mark.parametrize(
    "text, says",
    [
        ("qwen2.5-72b 全参微调 50万条 两周 预算100万 不要4090", "不按“不要什么”来排除"),
        ("70B lora 100GB 7d not on 4090", "not on what to leave out"),
        ("deepseek-r1 蒸馏 7b 全参 80万条", "蒸馏本身不单独规划"),
        ("7b distillation 10GB 3d", "distillation is not planned as such"),
    ],
)
def test_a_negation_or_distillation_is_refused_with_why(text, says):
    with pytest.raises(RequestError) as e:
        parse(text)
    assert says in str(e.value)


@pytest.mark.parametrize("text", ["7b 全参微调 5万条 预算 10万 两周 A800或者H800", "7b lora 20GB 3d on A800 or H800"])
def test_a_choice_between_two_gpus_is_refused_as_a_choice_not_a_contradiction(text):
    with pytest.raises(RequestError) as e:
        parse(text)
    assert e.value.kind == "gpu_choice"


@pytest.mark.parametrize("text", ["7B 8卡 2台服务器 H800", "7B 8卡 2台 H800"])
def test_gpus_a_server_then_servers_then_the_type(text):
    r = parse(text)
    assert (r.gpu, r.gpu_count) == ("H800-SXM-80GB", 16)
    assert not [n for n in r.assumptions if n.code == "read_past"]


@pytest.mark.parametrize(
    "text, field, value",
    [
        ("13B full finetune 100GB 7d on eight H100s", "gpu_count", 8),
        ("13B full finetune 100GB 7d on one hundred twenty-eight H100s", "gpu_count", 128),
        ("7b lora 20k samples a week and a half", "deadline_days", 10.5),
        ("7B 全量微调 三十来万条 一周", "data", ("samples", 300000)),
        ("13B 全量微调 100GB 五一前", "deadline_days", 149),
        ("千问72B 全量微调 10万条 两周", "params_b", 72),
        ("零一万物 yi-34b lora 2万条 五天", "model", "yi-34b"),
        ("7B 全量微调 100GB 一周 半精度", "deadline_days", 7),
    ],
)
def test_names_holidays_and_counts_in_words_after_the_number_pass(text, field, value):
    got = getattr(parse(text, today=datetime.date(2026, 12, 3)), field)
    assert ((got.unit, got.amount) if field == "data" else got) == value


@pytest.mark.parametrize(
    "text, field, value",
    [
        ("70B 全量微调 1TB 两周 4机8卡H800", "gpu_count", 32),
        ("70B 全量微调 1TB 两周 4机32卡H800", "gpu_count", 32),
        ("70b lora 1TB 两机八卡A800", "gpu_count", 16),
        ("7B lora 1万条 三天 俩4090", "gpu_count", 2),
        ("13B 全量微调 100GB 俩礼拜", "deadline_days", 14),
        ("7B lora 两万条 三天 预算两万刀", "budget", (20000, "USD")),
        ("万一超预算怎么办 7b lora 1万条 三天", "deadline_days", 3),
    ],
)
def test_machines_and_colloquial_amounts(text, field, value):
    got = getattr(parse(text), field)
    assert ((got.amount, got.currency) if field == "budget" else got) == value


@pytest.mark.parametrize("text", ["70b full finetune 2B tokens by end-of-march"])  # `mid-January` is read
def test_a_month_inside_a_joined_word_is_refused_not_read_past(text):
    with pytest.raises(RequestError):
        parse(text)


def test_after_the_data_key_a_w_is_ten_thousand_samples_not_weeks():
    r = parse("72b全参，数据50w，2周，100w预算")
    assert (r.data.unit, r.data.amount, r.deadline_days, r.budget.amount) == ("samples", 500000, 14, 1_000_000)
    assert parse("7b lora 20GB 2w").deadline_days == 14


def test_a_count_that_is_not_a_servers_worth_against_the_nodes_is_a_contradiction_quoted_cleanly():
    with pytest.raises(RequestError) as info:
        parse("70B full-finetune 1TB on 16xH800 on 4 nodes")
    assert info.value.kind == "conflict" and '"on 4 nodes"' in info.value.message("en")


# -- what a probe of ~230 Chinese requests found (2026-12-02) ----------------------------------


@pytest.mark.parametrize(
    "text,field,value",
    [
        ("72B 增量预训练 500GB 一个月 预算每月10万", "budget", 100_000),  # `10万` had been the model size
        ("7B 全参微调 5万条 3天 每月10万", "budget", 100_000),
        ("72B 全参微调 5万条 两周 4090 24G 8卡", "gpu_count", 8),  # the card's own memory: the card
        ("7b lora 5万条 3天 A100 40G", "gpu", "A100-SXM4-40GB"),
        ("7B 全参微调 3万条 手上有4张4090", "owned", True),
        ("手上只有4张4090，想全参微调7B，数据3万条，多久能跑完？", "owned", True),
        ("有8卡A100 80G一台，能不能LoRA微调Qwen2.5-72B？数据1万条", "owned", True),
        ("72B 全参微调 10万条 两周 张量并行8 流水线并行2 H800 16卡", "gpu_count", 16),
        ("72B 全参微调 10万条 两周 tp 8 pp 2 H800 16卡", "pp", 2),
        ("7B 预训练 2个T tokens 半年", "tokens", 2e12),
        ("70B 全参微调 10万条 两周 预算50个w", "budget", 500_000),
        ("70B 全参微调 10万条 两周 预算1个亿", "budget", 1e8),
    ],
)
def test_chinese_requests_as_teams_write_them(text, field, value):
    r = parse(text)
    got = getattr(r, field)
    assert (got.amount if field == "budget" else got) == value
    assert not [n for n in r.assumptions if n.code == "read_past"]


def test_a_monthly_budget_said_after_its_key_is_monthly():
    assert "budget_monthly" in [n.code for n in parse("72B 增量预训练 500GB 一个月 预算每月10万").assumptions]


def test_spring_festival_is_the_next_lunar_new_year():
    assert parse("7B 全参微调 10万条 春节前", today=datetime.date(2026, 12, 2)).deadline_days == 66  # 2027-02-06


@pytest.mark.parametrize(
    "text,kind",
    [
        ("7B lora 5万条 3天 3080", "unknown_gpu"),
        ("qwen3-32b lora on mac studio", "apple_silicon"),  # had been planned on 910B, "mac studio" read past
        ("qwen3-8b qlora 1万条 用M3 Max", "apple_silicon"),
        ("can I train a 1B model on a MacBook?", "apple_silicon"),  # had listed the known GPUs
        ("7B lora 5万条 3天 A5000", "unknown_gpu"),  # the RTX A5000: not catalogued (the A6000 is)
        ("7B 全参微调 5万条 3天 海光DCU", "unknown_gpu"),  # had been read past and planned on H800
        ("70B 全参微调 50万条 两周 寒武纪", "unknown_gpu"),
        ("7B lora 5万条 3天 4090 48G", "modded_4090"),  # a modded card is not the catalogue's
        ("32B qlora 1万条 两天 24G显存", "gpu_memory"),
        ("72B 全参微调 30万条 两周 自有机器", "nodes_need_gpu"),
        ("7B 全参微调 5万条 这周末", "unknown_word"),  # a weekend is no deadline rule's (`this weekend`)
    ],
)
def test_cards_and_times_no_rule_reads_are_refused_by_name(text, kind):
    with pytest.raises(RequestError) as info:
        parse(text)
    assert info.value.kind == kind


@pytest.mark.parametrize(
    "text,deadline,budget",
    [
        # a date, then the budget: the date's day is no amount before the key
        ("70B full-finetune 10B tokens by 2026-12-20 budget ¥500k", 19, 500_000),
        ("70B full-finetune 10B tokens by Dec 20 budget ¥500k", 19, 500_000),
        ("7B lora 50k samples deadline Jan 10 budget 1万", 40, 10_000),
        ("7B lora 50k samples by 2027-01-10 budget 10k", 40, 10_000),
    ],
)
def test_a_date_deadline_then_a_budget(text, deadline, budget):
    r = parse(text, today=datetime.date(2026, 12, 1))
    assert (r.deadline_days, r.budget.amount) == (deadline, budget)


def test_this_friday_is_a_deadline_without_by():
    r = parse("70B full finetune 10B tokens, need it done this Friday", today=datetime.date(2026, 12, 1))
    assert r.deadline_days == 3


@pytest.mark.parametrize(
    "text,size,tokens",
    [
        ("7B cpt 20B chinese tokens 1 week", 7, 20e9),
        ("qwen2.5-72b cpt 100B chinese tokens 1 month", 72.7, 100e9),
        ("70B cpt on 200 billion chinese tokens 1 month", 70, 200e9),
        ("13B pretrain 1T english web tokens 30d", 13, 1e12),
    ],
)
def test_the_datas_language_between_an_amount_and_tokens(text, size, tokens):
    r = parse(text)
    assert (round(r.params_b, 1), r.tokens) == (size, tokens) and r.data.language in ("zh", "en")


@pytest.mark.parametrize(
    "text",
    [
        "7B 预训练 500亿token 8卡A100 要几天",
        "qwen2.5 32b 做lora 2万条 4张H100 需要多少小时",
        "lora finetune qwen2.5 32b, 20k samples, 4 x H100, how many hours?",
        "我们公司有两台8卡A800服务器，想对Qwen2.5-72B做LoRA微调，10万条数据，大概要几天",
    ],
)
def test_asking_how_long_it_takes_is_no_deadline(text):
    r = parse(text)
    assert r.deadline_days is None and r.gpu_count


@pytest.mark.parametrize(
    "text,count",
    [("70B lora 1B tokens 7d on a couple of H100s", 2), ("7b lora 20GB 3d on a pair of 4090s", 2)],
)
def test_a_couple_of_gpus_is_two(text, count):
    assert parse(text).gpu_count == count


@pytest.mark.parametrize(
    "text,gpu,count",
    [
        # a server's GPUs before its noun, hyphenated or not: had been refused ("8-gpu", "server")
        ("qwen3-8b lora 2d on an 8-gpu server", None, 8),
        ("qwen3-8b lora 2d on 8gpu server", None, 8),
        ("8B lora 2B tokens on two 8-GPU nodes", None, 16),
        ("8B lora 2B tokens on one 8 gpu box", None, 8),
        # after `with`, as `2台8卡服务器` reads
        ("8B lora 2B tokens on a server with 8 gpus", None, 8),
        ("8B lora 2B tokens on 2 servers with 8 gpus each", None, 16),
        # with the type named: its shape
        ("qwen3-8b lora 2d on a 8-GPU H100 node", "H100-SXM5-80GB", 8),
        ("8B lora 2B tokens on two 8-GPU H100 servers", "H100-SXM5-80GB", 16),
        ("8B lora 2B tokens on 8 gpu h100", "H100-SXM5-80GB", 8),
        ("8B lora 2B tokens on 8-card H800", "H800-SXM-80GB", 8),
        ("qwen3-8b lora 2d on 8-gpus", None, 8),
    ],
)
def test_a_servers_gpus_said_before_its_noun_or_with_it(text, gpu, count):
    r = parse(text)
    assert (r.gpu, r.gpu_count) == (gpu, count)


@pytest.mark.parametrize(
    "text",
    [
        "用deepseek-r1蒸馏数据微调qwen3-8b，20万条，3天",
        "deepseek-r1 671b 蒸馏到 qwen3-8b 20万条 3天",
        "finetune qwen3-8b on data distilled from deepseek-r1, 200k samples, 3 days",
        "qwen3-8b full finetune on deepseek-r1 generated data 200k samples 3d",
        "deepseek-r1 distill data into qwen3-8b, 300k samples avg 4k tokens, 4 days",
        "蒸馏：用DeepSeek-R1生成的20万条数据微调Qwen3-8B，一周",
    ],
)
def test_a_teachers_outputs_are_the_data_and_the_student_is_planned(text):
    """SFT of a small model on a big one's outputs, as Chinese teams do with R1 (it had been refused
    as two models named): the student is planned, the teacher said as the data's source."""
    r = parse(text)
    assert r.model == "qwen3-8b"
    assert [n.params for n in r.assumptions if n.code == "teacher_data"] == [{"teacher": "deepseek-r1"}]


@pytest.mark.parametrize(
    "text", ["70B 全参微调 50万条 两周 国产卡", "7b lora 20GB 3d 只要国产算力", "72B 全参 SFT 20万条 10天 只能用国产卡"]
)
def test_a_domestic_card_is_the_catalogues_ascend_and_said(text):
    r = parse(text)
    assert r.gpu == "Ascend-910B-64GB"
    assert [n.code for n in r.assumptions if n.code == "domestic_gpu"] == ["domestic_gpu"]
    assert "read_past" not in [n.code for n in r.assumptions]  # (只能's 只 had been read past)


@pytest.mark.parametrize("text", ["7B 预算5000元 预算有限", "7B 5000元 预算有限"])
def test_a_budget_and_budget_is_tight_are_both_read(text):
    # `5000元 预算有限` had been turned round into `预算5000元` beside a stray `预算有`, leaving `限`
    # unread (found by test_canonical's generated requests)
    r = parse(text)
    assert r.budget.amount == 5000 and r.cost_first
    assert not [a for a in r.assumptions if a.code == "read_past"]


@pytest.mark.parametrize(
    "text",
    ["7B 100w预算 30天", "7B 100万预算 30 天", "7B 全量微调 10B token 100w预算 4周", "7b lora 1万条 5000元预算 3d"],
)
def test_an_amount_before_the_budget_word_then_a_deadline(text):
    # `100w预算 30天` had read `预算 30` as the budget and refused `天`: a number with a unit of
    # time after the word is the deadline
    r = parse(text)
    assert r.budget.amount in (1_000_000, 5000) and r.deadline_days in (30, 28, 3)


def test_the_word_for_deadline_beside_its_number_is_not_said_skipped():
    r = parse("用200万预算训练13B模型全参微调,数据500GB中文,期限20天")
    assert r.deadline_days == 20 and not [a for a in r.assumptions if a.code == "read_past"]


@pytest.mark.parametrize("text", ["我们有4张A100 qwen3-8b 全量微调 5万条 三天 不要4090", "7b lora 20GB 3d no 4090s"])
def test_a_gpu_type_ruled_out_is_refused_as_a_negation_not_a_contradiction(text):
    # "不要4090" had been read as a second GPU type: '"4张a100" and "4090" contradict each other'
    with pytest.raises(RequestError) as info:
        parse(text)
    assert info.value.details.get("why") == "negation"


@pytest.mark.parametrize(
    "text,gpu,others",
    [
        ("13B full-finetune 1B tokens on 8xA100", "A100-SXM4-80GB", ["A100-SXM4-40GB"]),
        ("我们有16张A100，全量微调72B", "A100-SXM4-80GB", ["A100-SXM4-40GB"]),
        ("7b lora 1GB on 2xV100", "V100-SXM2-32GB", ["V100-SXM2-16GB"]),
        ("13B full-finetune 1B tokens on 8xA100-40GB", "A100-SXM4-40GB", None),
        ("13B full-finetune 1B tokens on 8x A100 80G", "A100-SXM4-80GB", None),
        ("7b lora 1GB on H100 SXM", "H100-SXM5-80GB", None),
    ],
)
def test_a_bare_family_name_says_which_part_it_is_planned_as(text, gpu, others):
    # teams that own 40 GB A100s had been planned on the 80 GB card without a word
    r = parse(text)
    assert r.gpu == gpu
    said = [a.params for a in r.assumptions if a.code == "gpu_variant"]
    assert said == ([{"typed": gpu.split("-")[0], "gpu": gpu, "others": others}] if others else [])


@pytest.mark.parametrize(
    "text",
    ["qwen3-8b lora 5万条 明天下班前", "qwen3-8b lora 5万条 明天中午", "8b lora 50k samples by tomorrow evening"],
)
def test_a_time_of_tomorrow_is_tomorrows_deadline(text):
    # `明天下班前` had been refused as two deadlines, 明天 and 下班前
    r = parse(text)
    assert r.deadline_days == 1 and [a.code for a in r.assumptions if a.code == "deadline_date"]


@pytest.mark.parametrize("change", ["序列长度改成8192呢", "上下文改成8k", "把序列长度改为8192", "seq to 8192?"])
def test_a_sequence_length_changed_with_a_verb_is_a_what_if(change):
    # these had got an essay on context parallelism instead of the plan at 8,192 tokens
    request, changed = parse_followup("13B 全量微调 200GB数据 7天", change)
    assert changed == ["seq_len"] and request.seq_len == 8192


@pytest.mark.parametrize(
    "text,word",
    [
        ("13B 全量微调 10万条 3天 预算50万欧元", "欧元"),
        ("13B 全量微调 10万条 3天 预算50万欧", "欧"),
        ("13B 全量微调 10万条 3天 预算50万港币", "港币"),
        ("13B full-finetune 100k samples 3d budget 500k euros", "euros"),
        ("13B full-finetune 100k samples 3d budget €500k", "€"),
    ],
)
def test_money_in_another_currency_is_refused_not_read_as_yuan(text, word):
    # `预算50万欧元` had been a ¥500,000 budget with 欧元 "read past, the plan does not depend on it"
    assert _refusal(text) == ("currency_unsupported", word)


@pytest.mark.parametrize("text", ["7B 预训练 1T token 1年", "7B 预训练 1T token 一年", "7B pretrain 1T tokens 1 year"])
def test_a_year_is_a_deadline(text):
    # `1年` had been refused ("I did not understand 1年"), a common pre-training horizon
    assert parse(text).deadline_days == 365


@pytest.mark.parametrize(
    "text,word,cloud,other",
    [
        ("13B 全量微调 200GB数据 7天 阿里云", "阿里云", "Alibaba", "腾讯云"),
        ("70B lora 50k samples 3d on aws", "aws", "AWS", "gcp"),
        ("7b lora 10k samples on autodl", "autodl", "AutoDL", "aliyun"),
        ("70b cpt 300B tokens 30d on Lambda Labs", "lambda", "Lambda", "aws"),
    ],
)
def test_one_cloud_named_is_planned_on_its_market_saying_how_to_ask_for_its_price(text, word, cloud, other):
    # it had been "I did not understand 阿里云", then a refusal a US buyer's `on aws` met on every
    # try; `on autodl` had been read past and planned on the whole market
    req = parse(text)
    assert {n.code: n.params for n in req.assumptions}["cloud_named"] == {"word": word, "other": other}
    assert req.cloud == cloud
    assert req.market == ("china" if cloud in ("Alibaba", "AutoDL") else "global")
    assert "market_from_budget" not in {n.code for n in req.assumptions}


@pytest.mark.parametrize(
    "text,field,value",
    [
        # no bound on the GPUs is the planner's choice, not a negation to refuse
        ("7b lora 5万条 3天 卡不限", "gpu", None),
        ("7b lora 5万条 3天 卡数不限", "gpu_count", None),
        ("7b lora 5万条 3天 不限卡型", "gpu", None),
        # a length in thousands after 每条 is tokens; characters are 3 bytes at 3.2 bytes a token
        ("7b lora 5万条 每条4k 3天", "tokens_per_sample", 4000),
        ("7b lora 5万条 平均每条300字 3天", "tokens_per_sample", 281),
        ("7b lora 5万条 每条300个汉字 3天", "tokens_per_sample", 281),
        # the type, then GPUs a server times servers
        ("7b lora 5万条 3天 A800 8卡*2", "gpu_count", 16),
        ("7b lora 5万条 3天 H800 8卡 x 4", "gpu_count", 32),
        # a choice after the recompute key ends there: 不 here starts 不赶时间 (it had been "none")
        ("7B 全量重计算 不赶时间", "recompute", "full"),
        ("7B 重计算 不赶时间", "recompute", "full"),
        ("7B 重计算关闭", "recompute", "none"),
    ],
)
def test_colloquial_chinese_forms_are_read(text, field, value):
    r = parse(text)
    assert getattr(r, field) == value and not any(a.code == "read_past" for a in r.assumptions)


@pytest.mark.parametrize(
    "text,days",
    [
        ("7b lora 5万条 明年3月1日前", 88),  # 2027-03-01 from 2026-12-03
        ("7b lora 5万条 明年12月1日前", 363),  # next year's, not this year's December
        ("7b lora 5万条 下个月中旬前", 43),  # 2027-01-15
        ("7b lora 5万条 下个月上旬", 38),  # 2027-01-10
        ("7b lora 5万条 本月下旬", 28),  # 2026-12-31
    ],
)
def test_chinese_dates_by_year_and_thirds_of_a_month(text, days):
    import datetime as dt

    assert parse(text, today=dt.date(2026, 12, 3)).deadline_days == days


def test_ddp_keeps_the_whole_model_on_every_gpu(book):
    """`ddp` had been ZeRO-0 on a Megatron pipeline, and ZeRO-0 with DeepSpeed's optimizer offload:
    PyTorch's DDP splits nothing and offloads nothing, so a 7B full fine-tune with 8-bit Adam that
    needs 80.3 GiB a GPU that way is said not to fit on 80 GB cards."""
    from advisor.planning.advice import advise

    r = parse("qwen2.5-7b full-finetune 1e8 tokens ddp on 8xA800 adamw8bit")
    assert (r.zero_stage, r.tp, r.pp) == (0, 1, 1)
    plan = advise("qwen2.5-7b full-finetune 1e8 tokens ddp on 8xA800 adamw8bit", book=book).plan.estimate
    assert (plan.layout.tp, plan.layout.pp, plan.layout.zero_stage, plan.layout.offload) == (1, 1, 0, "none")
    assert not plan.fits


@pytest.mark.parametrize(
    "text",
    [
        "3B dense pretrain 2TB chinese and english data 3mo",
        "3B pretrain 2TB bilingual corpus 3 months",
        "从零预训练3B模型 2TB 中英文 3个月",
        "从零预训练3B模型 2TB 中英文数据 3个月",
    ],
)
def test_a_bilingual_corpus_is_read_as_both_languages(text):
    # "chinese and english data" had been refused as two languages contradicting each other, and
    # 中英文 read past: the mix is 3.6 bytes a token, between Chinese's 3.2 and English's 4.0
    r = parse(text)
    assert r.data.language == "zh-en" and r.bytes_per_token == 3.6
    assert r.tokens == pytest.approx(2e12 / 3.6)


@pytest.mark.parametrize(
    "text",
    [
        "14B MoE (2B active) pretrain 4T tokens 6 months",
        "14B total 2B active moe pretrain 4T tokens 6 months",
        "14B moe 2B activated params pretrain 4T tokens 6 months",
    ],
)
def test_the_active_count_before_its_key_is_the_active_parameters(text):
    # as model cards write it; "2B active" had been read as a second model size, a contradiction
    r = parse(text)
    assert (r.params_b, r.active_params_b) == (14.0, 2.0)


@pytest.mark.parametrize(
    "text,seq",
    [
        ("qwen3-32b cpt 200B tokens max seq len 32768 1 month", 32768),
        ("qwen3-32b cpt 200B tokens max_length 8192 1 month", 8192),
        ("7b lora 20GB 3d cutoff_len 2048", 2048),
    ],
)
def test_the_trainers_own_sequence_words_set_the_sequence(text, seq):
    assert parse(text).seq_len == seq


def test_hourly_alone_is_pay_as_you_go():
    assert parse("7b lora 20GB 3d on 8xA100-80GB hourly").hourly_only


@pytest.mark.parametrize("text", ["qwen3-32b cpt 200B tokens 32k 1 month", "qwen3-32b 增量预训练 200B token 32k 1个月"])
def test_a_bare_count_of_thousands_asks_length_or_samples(text):
    # a bare "32k" had got the generic "I did not understand"
    with pytest.raises(RequestError) as e:
        parse(text)
    assert e.value.kind == "unknown_word" and e.value.details["why"] == "bare_thousands"
    assert e.value.details["word"] == "32k"


@pytest.mark.parametrize(
    "text, samples",
    [("glm-4.5-air lora 30k 3天", 30_000), ("llama-4-scout lora 20k 3 days", 20_000), ("7b sft 5k 2d", 5000)],
)
def test_a_bare_count_no_context_is_written_as_is_the_samples_of_a_fine_tuning(text, samples):
    # each had been refused as a length or a count, unsaid which: no one writes a context of 30k
    req = parse(text)
    assert (req.data.amount, req.data.unit) == (samples, "samples") and "bare_k_samples" in [
        n.code for n in req.assumptions
    ]


@pytest.mark.parametrize("text", ["7b lora 32k 3d", "7b pretrain 30k 3d", "7b lora 20GB 30k 3d", "7b lora 30k 50k 3d"])
def test_a_bare_count_stays_asked_where_it_may_be_a_length_or_the_data_is_said(text):
    with pytest.raises(RequestError) as e:
        parse(text)
    assert e.value.details["why"] == "bare_thousands"


def test_another_reply_language_is_refused_with_the_two_there_are():
    # "lang fr" had been "I did not understand 'lang'"
    with pytest.raises(RequestError) as e:
        parse("7b lora 20GB 3d lang fr")
    assert e.value.details["what"] == "lang" and "`lang zh`" in str(e.value)


def test_the_reply_language_asked_in_chinese_is_no_chinese_data():
    # "用中文回答" had made the request Chinese prose, so its 20GB were planned as Chinese text
    assert parse("7b lora 20GB 3d 用中文回答").tokens == parse("7b lora 20GB 3d").tokens
    assert parse("7b lora 20GB 3d 用中文回答").lang == "zh"


def test_tokens_with_their_language_between_count_and_unit():
    # "5000亿中文token" had been read as a second model size beside qwen2.5-72b
    req = parse("用5000亿中文token继续预训练qwen2.5-72b，预算300万，3个月内完成")
    assert req.tokens == 5e11 and req.data.language == "zh" and req.model == "qwen2.5-72b"


def test_next_year_before_a_month_end():
    req = parse("7b lora 1GB 明年3月底前", today=datetime.date(2026, 12, 2))
    assert req.deadline_days == 119
    assert parse("7b lora 1GB 明年12月前", today=datetime.date(2026, 12, 2)).deadline_days == 364


@pytest.mark.parametrize(
    "text,said",
    [
        (
            "我们是40人的创业公司，想用5000亿token中文数据继续预训练qwen2.5-72b，预算300万，3个月内完成",
            "40人的创业公司",
        ),
        ("we are a 40-person startup, 7b lora 20GB 3d", "a 40-person startup"),
    ],
)
def test_who_the_team_is_is_read_past_and_said(text, said):
    # "我们是40人的创业公司" had refused the whole request ("我没看懂“40人创业”")
    req = parse(text)
    assert [n.params["words"] for n in req.assumptions if n.code == "read_past"] == [[said]]
    assert req.gpu_count is None


@pytest.mark.parametrize(
    "text,said",
    [("7b lora 20GB 3d in the US", "in the us"), ("pretrain 7B 1T tokens 2 months, cheapest in the US", "in the us"),
     ("13B sft 10GB 3天 美国", "美国"), ("13B sft 10GB 3d us-east", "us-east")],
)  # fmt: skip
def test_the_us_is_the_global_market_whose_prices_are_mostly_us_listings(text, said):
    # "in the US" had been refused, asking for `usd`: the global clouds on record are that market
    req = parse(text)
    note = next(n for n in req.assumptions if n.code == "place_global")
    assert req.market == "global" and req.currency == "USD" and note.params["words"] == said


@pytest.mark.parametrize("text", ["7b lora 20GB 3d usd singapore", "7b lora 20GB 3d 新加坡 美元"])
def test_a_place_abroad_with_dollars_says_the_prices_are_not_by_region(text):
    # "Singapore" had been read past in silence: no offer on record is marked by region
    req = parse(text)
    note = next(n for n in req.assumptions if n.code == "place_global")
    assert req.market == "global" and note.params["words"] in ("singapore", "新加坡")


@pytest.mark.parametrize(
    "text,field,high,low",
    [
        ("5090 x4 继续预训练 llama3-8b 中文语料 大概30-50GB，一个月内，预算15万", "data", 50e9, "30gb"),
        ("7B lora 1万条 预算5-20万", "budget", 200_000, "预算5万"),
        ("7B lora 5万到10万条", "data", 100_000, "5万条"),
        ("7-14B lora 1万条 4090", "params_b", 14, "7b"),
        ("8B-70B finetuning on 32xH100 usd buy keep it busy 18 months 60% use", "params_b", 70, "8b"),
        ("7B sft 1B tokens budget 10-20k usd", "budget", 20_000, "budget 10k usd"),
        ("70B full-finetune 1TB 14d $10k-$20k", "budget", 20_000, "$10k"),
        ("7B sft 1-2B tokens 3d", "data", 2e9, "1b tokens"),
    ],
)
def test_a_range_of_data_money_or_size_is_its_upper_end_said_with_the_lower(text, field, high, low):
    # "30-50GB", "预算5-20万", "7-14B" had been refused ("I did not understand '30-'")
    r = parse(text)
    value = {"data": lambda: r.data.amount, "budget": lambda: r.budget.amount, "params_b": lambda: r.params_b}[field]()
    assert value == pytest.approx(high)
    note = next(n for n in r.assumptions if n.code == "range_upper")
    assert note.params["low"] == low


def test_the_lower_end_of_a_range_asked_in_a_thread_is_planned():
    req, changed = parse_followup("7B lora 1万条 预算5-20万", "预算5万呢？")
    assert req.budget.amount == 50_000 and changed == ["budget"]
    assert "range_upper" not in [n.code for n in req.assumptions]  # the upper end is no longer planned


def test_a_backwards_range_is_not_read_as_one():
    assert _refusal("7b lora 50-30GB")[0] == "unknown_word"


@pytest.mark.parametrize(
    "text,samples,tps",
    [
        ("实验室有两张3090，想对qwen2.5-14b做qlora，数据5万条左右，每条大概2k token，两周内能跑完吗", 50_000, 2000),
        ("7b lora 1万条 平均长度2k 4090", 10_000, 2000),
        ("全参微调 qwen3-4b，4卡5090，数据量 20w 条，每条平均 1500 token，2 epoch", 200_000, 1500),
        ("7b lora 5万条 每条平均长度约为1500 token", 50_000, 1500),
    ],
)
def test_samples_and_their_length_in_the_words_people_write(text, samples, tps):
    # each had been refused: "2k token" against "5万条", "平均长度2k", the "条" of "20w 条"
    r = parse(text)
    assert (r.data.amount, r.data.unit, r.tokens_per_sample) == (samples, "samples", tps)


@pytest.mark.parametrize(
    "text,amount,currency",
    [
        ("7B 全参微调 10万条 经费10万", 100_000, "CNY"),
        ("课题组经费大概10万块，想全参微调一个7B的模型", 100_000, "CNY"),
        ("grant 20万人民币 增量预训练 3B 模型 100亿token 3个月内", 200_000, "CNY"),
    ],
)
def test_a_labs_grant_is_its_budget(text, amount, currency):
    r = parse(text)
    assert (r.budget.amount, r.budget.currency) == (amount, currency)


@pytest.mark.parametrize("text", ["7B finetunes 1B tokens", "7B fine-tunes 1B tokens"])
def test_finetunes_is_fine_tuning(text):
    assert parse(text).method == "full-finetune"


@pytest.mark.parametrize("said", ["over 2 weeks", "in 2 weeks", "within 2 weeks", "across two weeks"])
def test_the_time_a_job_is_spread_over_is_its_deadline(said):
    assert parse(f"7B sft 1B tokens {said}").deadline_days == 14


@pytest.mark.parametrize(
    "text",
    [
        "continued pretraining of qwen2.5-32b on 300B tokens of code, 8 weeks, budget $400k, usd,"
        " we'd rather buy if it pays back within 18 months",
        "32b cpt 300B tokens 8 weeks usd buy, 18-month payback",
        "qwen2.5-32b cpt 300B tokens 8周 预算300万 买 回本周期18个月",
        "qwen2.5-32b cpt 300B tokens 8周 买 18个月内能回本",
    ],
)
def test_a_payback_horizon_is_the_use_buying_is_weighed_over_not_a_deadline(text):
    # "8 weeks" and "18 months" had been read as two deadlines that contradict each other
    r = parse(text)
    assert (r.deadline_days, r.own_use_months) == (56, 18)


def test_rather_than_is_still_refused():
    with pytest.raises(RequestError):
        parse("7b sft 1B tokens we rather rent than buy")


@pytest.mark.parametrize(
    "text,word",
    [
        ("7B lora 1万条 4090 48G魔改版", "4090 48g魔改版"),
        ("7b lora 1万条 4090D 48GB", "4090d 48gb"),
        ("7b lora 1万条 魔改4090", "魔改4090"),
        ("7b lora 10k samples on modded 4090s", "modded 4090s"),
    ],
)
def test_the_modded_48gb_4090_is_said_not_catalogued_with_what_to_type(text, word):
    with pytest.raises(RequestError) as e:
        parse(text)
    assert (e.value.kind, e.value.details["word"]) == ("modded_4090", word)
    assert "`4090`" in e.value.message("en") and "`L40S`" in e.value.message("en")
    assert "L40S" in e.value.message("zh")
    assert not parse("7b lora 1万条 4090 24G").owned  # the stock card's own memory is the card


@pytest.mark.parametrize(
    "text",
    [
        "我们实验室有4张4090 7b lora 1万条",
        "手上3张4090 想 qlora qwen2.5-32b 数据3000条",
        "组里有8张A800 7b lora 1万条",
        "课题组有4张A100 7b lora 1万条",
        "实验室有两张3090，想对qwen2.5-14b做qlora，数据5万条",
        "we have 16 H100s in house 13B full finetune 1B tokens",
        "our lab owns 4x A800 7b lora 10k samples",
        "the lab has 8 A100 7b lora 10k samples",
    ],
)
def test_cards_a_lab_holds_are_its_own_in_every_common_wording(text):
    # these had been priced as rented ("skipped 实验室", "skipped house")
    assert parse(text).owned


@pytest.mark.parametrize("text", ["7b lora on 8 H800 in-house data 10k samples", "客户有16张A800 7b lora 1万条"])
def test_in_house_data_and_a_customers_cards_are_not_the_teams_cards(text):
    try:
        assert not parse(text).owned
    except RequestError as e:
        assert e.kind == "unknown_word"  # someone else's GPUs bend the plan: refused


@pytest.mark.parametrize(
    "text",
    [
        "7B 全量微调 10万条 经费10万 用什么卡比较划算",
        "课题组经费大概10万块，想全参微调一个7B的模型，sft数据10万条，用什么卡比较划算？租还是买？",
        "7B 全量微调 10万条 选哪种卡合适",
    ],
)
def test_which_gpu_asked_is_the_question_the_plan_answers(text):
    req = parse(text)
    assert req.gpu is None and req.params_b == 7


@pytest.mark.parametrize(
    "text, days",
    [
        ("70B full finetune 200B tokens over the year usd", 365),
        ("7B lora 1B tokens within the next month", 30),
        ("7B lora 1B tokens in the coming week", 7),
    ],
)
def test_the_unit_named_with_the_is_one_of_it(text, days):
    assert parse(text).deadline_days == days


def test_a_card_named_after_a_hardware_word_keeps_the_market_word_after_it():
    # "用4090 usd" had been a budget of $4,090 and no GPU
    for text in ("13B full finetune 10B tokens 用4090 usd", "13B full finetune 10B tokens on 4090 usd"):
        req = parse(text)
        assert req.gpu == "RTX4090-24GB" and req.budget is None
    # a count of cards before it too ("2x4090 usd" had been refused: "did you mean `24090`?")
    for text in ("13b lora 50k samples on 2x4090 usd", "13b lora 50k samples 2x 4090 usd"):
        req = parse(text)
        assert (req.gpu, req.gpu_count, req.currency, req.budget) == ("RTX4090-24GB", 2, "USD", None)
    assert parse("13B full finetune 10B tokens budget 4090 usd").budget.amount == 4090


def test_either_of_two_gpus_parses_with_the_word_between_them():
    # "H100 or A100 for ..." had been refused on "or" once a side was picked (advice.compare)
    for pick, gpu in ((0, "H100-SXM5-80GB"), (1, "A100-SXM4-80GB")):
        assert parse("H100 or A100 for 13b sft 20GB usd", gpu_pick=pick).gpu == gpu
    with pytest.raises(RequestError):
        parse("13b sft 20GB usd or maybe not")


def test_each_of_three_gpus_named_as_a_choice_parses_on_its_own():
    # a third type had been read as a contradiction of the second
    for text in (
        "13b sft 20GB H800 vs H20 vs A800",
        "13b sft 20GB H800、H20还是A800",
        "13b sft 20GB H800, H20 or A800",
    ):
        assert gpu_options(text) == ["H800-SXM-80GB", "H20-96GB", "A800-SXM4-80GB"]
        assert [parse(text, gpu_pick=i).gpu for i in range(3)] == gpu_options(text)


def test_the_teams_own_gpus_go_with_their_option_of_a_choice():
    # "用A800还是4090划算，我们实验室有4张4090" had been refused; the A800 side must not inherit the
    # four owned 4090s, nor the 4090 side lose them
    text = "7b lora 1万条 用A800还是4090划算，我们实验室有4张4090"
    rent, own = parse(text, gpu_pick=0), parse(text, gpu_pick=1)
    assert (rent.gpu, rent.gpu_count, rent.owned) == ("A800-SXM4-80GB", None, False)
    assert (own.gpu, own.gpu_count, own.owned) == ("RTX4090-24GB", 4, True)
    text = "we have 8 4090s, should we use them or rent H100 for 13b lora 50k samples?"
    assert gpu_options(text) == ["RTX4090-24GB", "H100-SXM5-80GB"]
    own, rent = parse(text, gpu_pick=0), parse(text, gpu_pick=1)
    assert (own.gpu_count, own.owned) == (8, True) and (rent.gpu, rent.gpu_count, rent.owned) == (
        "H100-SXM5-80GB",
        None,
        False,
    )
    # two types with no choice between them and none owned still contradict each other
    with pytest.raises(RequestError) as e:
        parse("70B full-finetune 1TB on 8xH800 on 8xH20")
    assert e.value.kind == "conflict"


@pytest.mark.parametrize(
    "text, first, second",
    [
        ("70b full-finetune 1TB 14d rent H800 or buy A800", "rent", "buy"),
        ("是租H800还是买A800 70b 全参微调 1TB 14天", "rent", "buy"),
        ("70b full-finetune 1TB 14d buy 16 A800 or rent H800", "buy", "rent"),
        ("70b full-finetune 1TB 14d H800 or A800", None, None),
    ],
)
def test_each_option_of_a_gpu_choice_rents_or_buys_as_its_own_verb_says(text, first, second):
    # "是租H800还是买A800" had been refused: "h800 and a800 contradict each other"
    assert [parse(text, gpu_pick=i).rent_or_buy for i in (0, 1)] == [first, second]


@pytest.mark.parametrize(
    "text",
    [
        "which is better for 70b lora, H100 or H200?",
        "70b lora 10万条 H100和H200哪个更划算",
        # probe S (2026-12-05): both had been refused on the words asking for the comparison
        "H100 vs H200 哪个更适合 70b lora 10万条",
        "H100 和 H200 对比一下 70b lora 10万条",
    ],
)
def test_which_of_two_gpus_is_better_is_the_comparisons_question(text):
    assert {parse(text, gpu_pick=pick).gpu for pick in (0, 1)} == {"H100-SXM5-80GB", "H200-SXM-141GB"}


def test_a_launch_scripts_flags_pasted_as_they_are_read_as_the_layout_words():
    # Megatron-LM's argument names with their dashes, ms-swift's with underscores: "--" had been
    # refused as a word not understood
    r = parse(
        "qwen3-30b-a3b pretrain 100B tokens on 16xH100 megatron --tensor-model-parallel-size 2"
        " --pipeline-model-parallel-size 2 --expert-model-parallel-size 4 --virtual-pipeline-model-parallel-size 2"
        " --recompute-granularity full --recompute-method uniform --recompute-num-layers 1"
        " --moe-token-dispatcher-type alltoall --micro-batch-size 1 --global-batch-size=512"
        " --use-distributed-optimizer --sequence-parallel --bf16 --fp8-format hybrid"
    )
    assert (r.tp, r.pp, r.ep, r.vpp, r.micro_batch, r.global_batch) == (2, 2, 4, 2, 1, 512)
    # `--recompute-granularity full` is the recompute mode, not the method; bf16 weights with
    # FP8 GEMMs is FP8, not a contradiction
    assert (r.recompute, r.method, r.precision, r.dispatcher) == ("full", "pretrain", "fp8", "alltoall")
    swift = parse("qwen3-30b-a3b lora 1B tokens on 8xH100 --tensor_model_parallel_size 2 --max_length 8192")
    assert (swift.tp, swift.seq_len, swift.method) == (2, 8192, "lora")
    # the block method with a count recomputes that many layers a stage, not every layer
    block = parse(
        "70b sft 10B tokens on 32xH100 --recompute-granularity full --recompute-method block --recompute-num-layers 4"
    )
    assert (block.recompute, block.recompute_layers, block.stack) == ("full", 4, None)


def test_deepseek_v2_lite_is_read_by_name_not_as_deepseek_v2():
    # DeepSeek-V2-Lite and DeepSeek-Coder-V2-Lite (one shape, 15.7B-A2.4B) had been refused as
    # unknown models; "deepseek-coder-v2" alone stays the 236B model
    for text in ("deepseek-v2-lite lora 1B tokens", "DeepSeek-Coder-V2-Lite-Instruct sft 1B tokens"):
        assert parse(text).model == "deepseek-v2-lite"
    assert parse("deepseek-coder-v2 lora 1B tokens").model == "deepseek-v2"


@pytest.mark.parametrize(
    "text",
    [
        "13b sft 20GB before chinese new year",
        "13b全量微调 20GB 春节前",
        "13b全量微调 20GB 年前要训完",
        "13b sft 20GB by spring festival",
    ],
)
def test_a_deadline_said_as_the_spring_festival_is_its_first_day(text):
    # "before chinese new year" had been refused on "year" ("chinese" read as the data's language)
    req = parse(text, today=datetime.date(2026, 12, 4))
    assert req.deadline_days == (datetime.date(2027, 2, 6) - datetime.date(2026, 12, 4)).days
    assert parse(text, today=datetime.date(2026, 1, 10)).deadline_days == 38  # to 2026-02-17
    assert parse(text, today=datetime.date(2027, 3, 1)).deadline_days == 331  # to 2028-01-26
    with pytest.raises(RequestError):  # past the table: asked as a date
        parse(text, today=datetime.date(2031, 3, 1))
    assert parse("13b sft 20GB chinese data before chinese new year").data.language == "zh"


def test_english_prose_with_a_chinese_unit_is_answered_in_english():
    # "10万条" in an English sentence had turned the whole reply Chinese
    assert detect_lang("we want to finetune qwen3-8b on 10万条 samples within a week") == "en"
    assert parse("please plan qwen3 32b sft with 5万条 data in 3 days").lang == "en"
    # a request of names and a Chinese word stays Chinese
    assert detect_lang("13b lora 10万条") == "zh" and detect_lang("llama3 8b lora 1万条 usd") == "zh"


def test_a_gpu_type_then_its_count_with_x_after_it():
    # "H800 8x" had been refused on "8x"; "H800x8" and "8x H800" were read
    for text in ("13b sft 20GB H800 8x", "13b sft 20GB H800x8", "13b sft 20GB 8x H800"):
        req = parse(text)
        assert (req.gpu, req.gpu_count) == ("H800-SXM-80GB", 8)
    assert parse("13b sft 20GB H800 3 epochs").gpu_count is None


@pytest.mark.parametrize(
    "text",
    [
        "13b full-finetune 20GB on 4 servers with 4xA100 each",
        "13b full-finetune 20GB on 4 nodes of 4x A100",
        "13b full-finetune 20GB 4台服务器每台4张A100",
        "13b full-finetune 20GB 4台机器，每台4卡A100",
    ],
)
def test_servers_of_fewer_gpus_than_the_catalogues_are_counted_and_said(text):
    """16 GPUs either way, on servers of four as said (A100 servers are usually sold with 8), and
    the note says so and what it means for the traffic between servers."""
    r = parse(text)
    assert (r.gpu, r.gpu_count) == ("A100-SXM4-80GB", 16)
    note = next(n for n in r.assumptions if n.code == "server_shape")
    assert (note.params["servers"], note.params["per"], note.params["full"]) == (4, 4, 8)
    assert r.gpus_per_server == 4  # planned on servers of four (tests/test_planner.py)
    assert parse(canonical(r)).gpus_per_server == 4 and parse(canonical(r)).gpu_count == 16
    whole = parse("13b full-finetune 20GB on 2 servers with 8xA100 each")
    assert whole.gpu_count == 16 and not any(n.code == "server_shape" for n in whole.assumptions)
    assert whole.gpus_per_server is None


@pytest.mark.parametrize(
    "text,gpu,count",
    [
        ("7B lora 20GB 3d on A10", "A10-24GB", None),
        ("7B lora 20GB 3d on a10 24g", "A10-24GB", None),
        ("7B lora 20GB 3d on 2 A10 GPUs", "A10-24GB", 2),
        ("7B lora 20GB 3d 8卡A10", "A10-24GB", 8),
        ("7B lora 20GB 3d 用L20", "L20-48GB", None),
        ("7B lora 20GB 3d on l20 48g", "L20-48GB", None),
        ("7B lora 20GB 3d 2台L20", "L20-48GB", 16),
        # the A10 never takes AWS's A10G, nor the A10G the A10
        ("7B lora 20GB 3d on A10G", "A10G-24GB", None),
        ("7B lora 20GB 3d on 2 A10G GPUs", "A10G-24GB", 2),
        ("7B lora 20GB 3d on a10g 24g", "A10G-24GB", None),
    ],
)
def test_the_a10_and_the_l20_are_read_by_the_names_teams_type(text, gpu, count):
    req = parse(text)
    assert (req.gpu, req.gpu_count) == (gpu, count)


def test_unsloth_is_planned_as_hf_and_says_its_kernels_are_not_modelled():
    # "能用unsloth吗" had not been understood
    r = parse("7b lora 20GB 3天 用unsloth")
    assert r.stack == "hf" and any(n.code == "stack_unsloth" for n in r.assumptions)
    assert not any(n.code == "stack_unsloth" for n in parse("7b lora 20GB 3d llama-factory").assumptions)


@pytest.mark.parametrize(
    "text", ["7b lora 20GB 3d on -8 H100", "7b lora 20GB 3d on -8xH100", "7b lora 20GB 3d -8 gpus"]
)
def test_a_gpu_count_with_a_minus_sign_is_refused_not_read_as_positive(text):
    # "on -8 H100" had been planned on 8 H100
    with pytest.raises(RequestError) as err:
        parse(text)
    assert err.value.kind == "bad_value" and "GPU count" in err.value.message("en")
    assert parse(text.replace("-8", "8")).gpu_count == 8
    assert parse("qwen3-8b lora 20GB 3d on 8 gpus").gpu_count == 8  # a name's hyphen is no minus


@pytest.mark.parametrize(
    "text,gpu",
    [("7b lora 1GB 3d on our own 3090s", "RTX3090-24GB"), ("7b lora 1GB 3d we have A100s", "A100-SXM4-80GB")],
)
def test_the_teams_own_gpus_without_a_count_are_owned_as_in_chinese(text, gpu):
    # `我们有A100` read so; "on our own 3090s" had been refused on "own", "we have A100s" planned as rented
    r = parse(text)
    assert (r.gpu, r.gpu_count, r.owned) == (gpu, None, True)
    assert parse("we have 50k samples, 7b lora 3d").owned is False


@pytest.mark.parametrize(
    "text,method",
    [
        ("instruction tune a 3B model on 1M samples, 512 tokens each, 1 day, cheapest", "full-finetune"),
        ("instruction-tuning llama3 8b on 50k samples 2d", "full-finetune"),
        ("3b 指令微调 100万条 1天", "full-finetune"),
    ],
)
def test_instruction_tuning_is_fine_tuning(text, method):
    # "instruction tune" had been refused on "instruction"
    assert parse(text).method == method


@pytest.mark.parametrize("words", ["alpha=128", "lora_alpha 32", "lora alpha: 16"])
def test_loras_alpha_is_read_and_said_to_change_nothing(words):
    # "alpha=128" beside "r=64" had been refused
    r = parse(f"lora r=64 {words} on llama-3.1-70b, 30k examples avg 2,000 tokens, 4 days")
    assert r.lora_rank == 64
    note = next(n for n in r.assumptions if n.code == "hyperparameters")
    assert any("alpha" in w for w in note.params["words"])


@pytest.mark.parametrize(
    "text,length,count",
    [
        ("gemma 3 27b lora, 20k samples of 4k tokens, 2 days, bf16", 4000, 20000),
        ("7b lora 50k examples of about 1,500 tokens each 2d", 1500, 50000),
        ("7b lora 50k conversations of 800 tokens 2d", 800, 50000),
    ],
)
def test_samples_of_a_length_give_the_length(text, length, count):
    # "20k samples of 4k tokens" had been refused as two data sizes that contradict each other
    r = parse(text)
    assert (r.tokens_per_sample, r.data.amount, r.data.unit) == (length, count, "samples")
    assert r.tokens == length * count


def test_a_mean_length_with_no_unit_is_tokens():
    # "平均长度1500" had been refused; with 字 it is characters, as before
    assert parse("qwen2.5-7b sft 10w条数据 平均长度1500 两天").tokens_per_sample == 1500
    assert parse("qwen2.5-7b sft 10w条数据 平均长度1500字 两天").tokens_per_sample == 1406


def test_long_text_with_the_samples_length_needs_no_sequence_length():
    # "1万条长文本 每条16k" had been refused for want of a sequence length the samples give
    r = parse("72b lora 1万条长文本 每条16k 一周")
    assert (r.tokens_per_sample, r.seq_len) == (16000, 16384)
    with pytest.raises(RequestError) as info:
        parse("72b lora 1万条长文本 一周")
    assert info.value.kind == "context_length"


def test_how_many_gpu_hours_of_a_type_names_the_type():
    # "How many H100 hours ...?" had been refused on "hours"
    r = parse("How many H100 hours to fine tune llama 3 70b on 1B tokens?")
    assert (r.gpu, r.method, r.tokens) == ("H100-SXM5-80GB", "full-finetune", 1e9)


@pytest.mark.parametrize(
    "text,count,length",
    [("7b lora 1万篇文档 每篇3k 3天", 10000, 3000), ("7b 继续预训练 100万篇文章 每篇2000 token 7天", 1_000_000, 2000)],
)
def test_documents_counted_in_chinese_are_samples(text, count, length):
    # "1万篇文档 每篇3k" had been refused
    r = parse(text)
    assert (r.data.amount, r.data.unit, r.tokens_per_sample) == (count, "samples", length)


@pytest.mark.parametrize(
    "text,count,length",
    [
        ("7b 10万对话", 100_000, 1000),
        ("7b lora 10万轮对话 3天", 100_000, 1000),
        ("7b 全量 5万段对话 每段对话2k token", 50_000, 2000),
        ("qwen2.5-7b lora 2万个对话 7天", 20_000, 1000),
    ],
)
def test_dialogues_counted_in_chinese_are_samples(text, count, length):
    # "10万对话" (as "100k conversations") had been refused; 对 alone still counts pairs
    r = parse(text)
    assert (r.data.amount, r.data.unit, r.tokens_per_sample) == (count, "samples", length)
    assert r.preference_tuning is None


@pytest.mark.parametrize(
    "text,length",
    [
        ("qwen2.5-7b lora 50k samples, each sample is about 2k tokens, 3 days", 2000),
        ("llama3-8b dpo 20k pairs, our pairs are 3000 tokens each, 2d", 3000),
        ("7b lora 50k samples 2d, samples average 3k tokens", 3000),
        ("7b lora 5万条 每条样本其实2000 token 3天", 2000),
        ("7b lora 5万条 样本平均1500 token 3天", 1500),
    ],
)
def test_a_samples_length_said_as_a_sentence_is_their_length(text, length):
    # "each pair is 3000 tokens", "每条样本其实2000 token" had been refused
    r = parse(text)
    assert r.tokens_per_sample == length and r.data.unit == "samples"


@pytest.mark.parametrize(
    "text,method",
    [
        ("预算每月20万 持续预训练 13b 2TB中文语料", "continued-pretrain"),
        ("llama3 8b 全参 2个T token 继续预训练 两周", "continued-pretrain"),
        ("llama3 8b 全量增量预训练 20B token 两周", "continued-pretrain"),
        ("Qwen3 30B A3B 全参 持续预训练 100B token", "continued-pretrain"),
        ("7b full-param pretrain 100B tokens", "pretrain"),
    ],
)
def test_pretraining_said_with_every_parameter_is_pretraining(text, method):
    # 持续预训练 had been pre-training from scratch ("持续" read past); 全参 beside 继续预训练 a
    # contradiction: pre-training trains every parameter
    r = parse(text)
    assert r.method == method
    assert not [n for n in r.assumptions if n.code == "read_past"]


def test_every_parameter_beside_lora_is_still_a_contradiction():
    with pytest.raises(RequestError) as info:
        parse("7b 全参 lora 1万条")
    assert info.value.kind == "conflict"


def test_a_data_size_before_a_network_word_is_no_network():
    # hypothesis found "0.5B 3GB roce" read as a 3 Gb/s RoCE network the team has, dropping the data
    r = parse("0.5B 3GB roce")
    assert (r.data.amount, r.fabric) == (3e9, "roce")
    assert not any(n.code in ("network_said", "team_network") for n in r.assumptions) and r.network_gbps is None
    said = parse("70b lora 1GB 3d we only have 100Gb roce")
    assert any(n.code == "team_network" for n in said.assumptions) and said.network_gbps == 100


@pytest.mark.parametrize(
    "text,count,gpu",
    [
        ("我们有4台A800，每台8卡，想继续预训练llama3-70b，数据200GB中文", 32, "A800-SXM4-80GB"),
        ("2台H800服务器 每台8张 qwen2.5-7b 全量微调 10万条", 16, "H800-SXM-80GB"),
        ("7b lora 3台A800每台4卡 5万条", 12, "A800-SXM4-80GB"),
    ],
)
def test_servers_of_a_type_then_each_ones_gpus_in_chinese(text, count, gpu):
    # "每台" had been refused: the servers were read alone, each one's count as all of them
    r = parse(text)
    assert (r.gpu, r.gpu_count) == (gpu, count)


@pytest.mark.parametrize(
    "text,samples,tps",
    [
        ("10k long documents avg 20k tokens, llama3.1-8b full finetune, 3 days", 10_000, 20_000),
        ("fine-tune llama-3.2-3b on 1M short samples (avg 256 tokens) in 1 day", 1_000_000, 256),
        ("8b sft 10k long-form samples of 8k tokens", 10_000, 8_000),
    ],
)
def test_samples_said_long_or_short_are_samples(text, samples, tps):
    # "10k" had been asked about (a length or a count?) and "short samples" refused
    r = parse(text)
    assert (r.data.amount, r.data.unit, r.tokens_per_sample) == (samples, "samples", tps)


def test_long_documents_counted_without_their_length_ask_for_it():
    with pytest.raises(RequestError) as info:
        parse("llama3.1-8b full finetune 10k long documents 3 days")
    assert info.value.kind == "context_length"


@pytest.mark.parametrize(
    "said,days",
    [
        # Saturday 2026-12-05
        ("本周末前", 1),
        ("下周末前", 8),
        ("20号之前", 15),
        ("3号前", 29),  # the next 3rd: January's
        ("下个月初", 36),  # early next month: by its 10th, as 上旬
        ("下月中", 41),
        ("end of January", 57),
        ("before the 20th", 15),
        ("EOW", 1),
        ("by end of week", 1),
        ("a couple of days", 2),
        ("couple days", 2),
        ("in a couple weeks", 14),
    ],
)
def test_casual_deadlines_are_read(said, days):
    # each had been refused ("couple", "本周末前", "20号之前", "下月初", "january", "20th", "eow")
    assert parse(f"7b lora 20GB {said}", today=datetime.date(2026, 12, 5)).deadline_days == days


@pytest.mark.parametrize(
    "text,budget,max_gpus",
    [
        ("14b 全参 20万条 预算别超过10万", (100_000, "CNY"), None),
        ("14b 全参 20万条 花费不要超过10万", (100_000, "CNY"), None),
        ("7b lora 20GB cost ~ 10k usd max", (10_000, "USD"), None),
        ("7B pretrain 2T tokens, we can spend 200k dollars, 6 weeks", (200_000, "USD"), None),
        ("7b lora 20GB, 10 days, 8k$", (8_000, "USD"), None),
        ("7b lora 20GB, 32 GPUs max", None, 32),
    ],
)
def test_caps_said_as_people_say_them(text, budget, max_gpus):
    # "预算别超过10万" had been refused as an exclusion, "max", "spend" and "8k$" as unknown words
    r = parse(text)
    assert (r.budget.amount, r.budget.currency) == budget if budget else r.budget is None
    assert r.max_gpus == max_gpus


@pytest.mark.parametrize(
    "text,gpu,params",
    [
        ("Qwen3-235B-A22B SFT 5万条 H20 多少台", "H20-96GB", 235.09),
        ("我想知道 DeepSeek-V3 用LoRA微调 最少需要几台H20", "H20-96GB", 671.03),
        ("我们公司 30 人，想自建训练集群，主要做 72B 的 sft，买还是租", None, 72),
        ("hey, quick one: how many GPUs to full finetune a 34B on 1B tokens", None, 34),
        ("百川2 13B 全参微调 20万条 1周", None, 13.9),
    ],
)
def test_questions_and_chatter_around_a_request(text, gpu, params):
    # "多少台", "几台" (a count asked), "公司 30 人", "quick one", "百川2" had been refused
    r = parse(text)
    assert r.gpu == gpu and r.gpu_count is None and r.params_b == pytest.approx(params, rel=0.01)


@pytest.mark.parametrize(
    "text,language",
    [
        ("pretrain 3B on 600B tokens code + english, B200, 30 days", "code-en"),
        ("7b continued pretrain 500GB code and english data 14d", "code-en"),
        ("7b 继续预训练 500GB 中文和代码数据 14天", "code-zh"),
    ],
)
def test_code_mixed_with_a_language_is_one_data_language(text, language):
    # "code" and "english" had been refused as a contradiction
    r = parse(text)
    assert r.data.language == language
    if r.data.unit == "bytes":
        assert r.tokens == pytest.approx(5e11 / {"code-en": 3.75, "code-zh": 3.35}[language])


@pytest.mark.parametrize(
    "text,seq",
    [
        ("long context extension of llama3-8b to 128k, 5B tokens, 1 week", 131072),
        ("qwen2.5-72b 长上下文扩展到128k 10B token 两周 H800", 131072),
        ("qwen2.5-7b 扩展上下文到64k 1B token", 65536),
        ("我们要做长文本 32k qwen2.5-14b sft 1万条 每条平均2万token 一周", 32768),
    ],
)
def test_a_context_extension_in_any_word_order_is_its_length(text, seq):
    # each had been refused ("扩展到128k", "128k alone could be ...")
    assert parse(text).seq_len == seq


@pytest.mark.parametrize(
    "text,gpu,count,owned",
    [
        ("2x8 H100 nodes, pretrain 3B on 300B tokens", "H100-SXM5-80GB", 16, False),
        ("14b full finetune 200k samples, our cluster is 4 nodes x 8 H800", "H800-SXM-80GB", 32, True),
        ("14b full finetune 200k samples, our servers are 2x8 A800", "A800-SXM4-80GB", 16, True),
        ("ORPO on llama-3.1-8b, 60k pairs, 4090s only, we have 4 of them", "RTX4090-24GB", 4, True),
    ],
)
def test_the_teams_machines_as_it_describes_them(text, gpu, count, owned):
    # "nodes" after 2x8, "our cluster is", "we have 4 of them" had been refused or read as rented
    r = parse(text)
    assert (r.gpu, r.gpu_count, r.owned) == (gpu, count, owned)


@pytest.mark.parametrize(
    "text", ["qwen2.5-72b lora 几十万条", "7b lora 几万条数据 3天", "7b lora hundreds of thousands of samples"]
)
def test_a_count_said_only_roughly_is_asked_for(text):
    # "几十万条" had been planned as 十万条, "几" read past
    with pytest.raises(RequestError) as info:
        parse(text)
    assert info.value.kind == "unknown_word" and info.value.details.get("why") == "vague_count"


@pytest.mark.parametrize("text", ["qwen2.5-72b lora 10万条 1.5亿token", "qwen2.5-72b lora 150M tokens, 100k samples"])
def test_samples_and_their_tokens_in_all_give_each_samples_length(text):
    # had been refused: two data sizes
    r = parse(text)
    assert (r.data.amount, r.data.unit, r.tokens_per_sample, r.tokens) == (100_000, "samples", 1500, 1.5e8)


@pytest.mark.parametrize(
    "text,student,teacher",
    [
        ("deepseek-r1 distill data, finetune qwen3-8b, 800k samples, 5 days", "qwen3-8b", "deepseek-r1"),
        ("distill qwen3-235b into qwen3-4b, 2M samples, 1 week", "qwen3-4b", "qwen3-235b"),
        ("qwen3-8b sft 800k samples distilled from deepseek-r1 5 days", "qwen3-8b", "deepseek-r1"),
    ],
)
def test_distillation_said_in_other_words_plans_the_student(text, student, teacher):
    # each had been refused (two models contradicting, or "800k" alone)
    r = parse(text)
    assert r.model == student
    assert next(n.params["teacher"] for n in r.assumptions if n.code == "teacher_data") == teacher


@pytest.mark.parametrize(
    "text",
    [
        "Should we rent or buy? 70B full finetune every month, ~500GB of data per run",
        "租还是买？每个月都要微调72B，数据量50万条左右",
    ],
)
def test_a_run_every_month_is_read_and_said(text):
    # "every" and "每月都" had been refused
    r = parse(text)
    assert r.recurring and any(n.code == "recurring" for n in r.assumptions)
    assert r.budget is None


@pytest.mark.parametrize(
    "text,check",
    [
        ("想用8卡4090跑个7b全参 可行不", lambda r: (r.gpu, r.gpu_count) == ("RTX4090-24GB", 8)),
        ("我们公司有两台8卡4090服务器 能跑qwen2.5-14b全参不", lambda r: (r.gpu_count, r.owned) == (16, True)),
        ("帮忙看下 32b 全参 用8卡4090 能跑吗 不行的话最少换啥卡", lambda r: r.gpu_count == 8),
        ("qwen3-235b-a22b 全参sft 数据5B token 一个月内搞定 预算不限", lambda r: r.budget is None and r.speed_first),
        (
            "qwen3-14b 全参 sft 30w条 seq 8192 a800",
            lambda r: (r.seq_len, r.gpu, r.gpu_count) == (8192, "A800-SXM4-80GB", None),
        ),
        ("买卡还是租卡 7b sft 10万条", lambda r: r.rent_or_buy is None),
        ("买还是租 7b sft 数据100w条 每个月跑一次", lambda r: r.recurring),
        ("glm4-9b 全参 数据20w条 下周一要交 今天周三", lambda r: r.deadline_days == 2),
    ],
)
def test_colloquial_chinese_requests_are_read(text, check):
    # each had been refused: 可行不 / 全参不 / 不行的话 / 预算不限 as negations, "seq" beside a GPU,
    # 买卡还是租卡 as a contradiction, 每个月跑一次, 今天周三 as a second deadline
    assert check(parse(text, today=datetime.date(2026, 12, 5)))


def test_a_negation_is_still_refused():
    with pytest.raises(RequestError) as info:
        parse("7b lora 20GB 不要用4090")
    assert info.value.details.get("why") == "negation"


@pytest.mark.parametrize(
    "message,field,value",
    [("lora rank改成128", "lora_rank", 128), ("rank改成16呢", "lora_rank", 16), ("mbs改成4", "micro_batch", 4)],
)
def test_a_key_set_to_a_number_with_a_verb_is_that_change(message, field, value):
    # "rank改成128" had read "rank128" as a model name
    request, changed = parse_followup("qwen3-32b lora rank 64 数据20w条 h20", message, "zh")
    assert changed == [field] and getattr(request, field) == value


@pytest.mark.parametrize("text", ["qwen2.5-vl-7b sft 数据10w条图文对", "qwen2.5-vl-7b sft 10万图文对 3天"])
def test_image_text_pairs_are_a_vision_models_samples(text):
    # "图文对" had been refused; the images stay uncounted, said
    r = parse(text)
    assert (r.data.amount, r.data.unit) == (100_000, "samples")
    assert any(n.code == "vision_language" for n in r.assumptions)


@pytest.mark.parametrize(
    "text,term,use",
    [
        # rent a term or buy: owning that long is weighed against the lease (it had been the job
        # alone against a year's lease: "rent, no short term")
        ("qwen2.5-32b 全参微调 50GB数据 7天 H20 租一年还是买", 12, 12),
        ("qwen2.5-32b 全参微调 50GB数据 7天 H20 租一年划算还是买划算", 12, 12),
        ("qwen2.5-32b full finetune 50GB 7d H20, rent for a year or buy?", 12, 12),
        ("qwen2.5-32b full finetune 50GB 7d H20, rent for 2 years or buy?", 24, 24),
        # a term without the question is the term alone
        ("qwen2.5-32b full finetune 50GB 7d H20 租3个月", 3, None),
        # "use them for a year": the team's own use (had been a second deadline: refused)
        ("qwen2.5-32b full finetune 50GB 7d H20, we'd use them for a year", None, 12),
        ("qwen2.5-32b full finetune 50GB 7d H20, we'll use them for one year", None, 12),
    ],
)
def test_a_term_asked_against_buying_is_the_use_weighed(text, term, use):
    r = parse(text)
    assert (r.lease_term_months, r.own_use_months, r.deadline_days) == (term, use, 7)


@pytest.mark.parametrize(
    "text,rent_or_buy,gpu",
    [
        # yes-or-no questions with 不 are questions, never a negation to refuse (had been exit 2)
        ("7B lora 3万条 要不要租A800", None, "A800-SXM4-80GB"),
        ("7B lora 3万条 还需不需要租A800", None, "A800-SXM4-80GB"),
        ("7B lora 3万条 是不是用4090就够了", None, "RTX4090-24GB"),
        # 有没有 asks "is there", not "there is none" (had been refused as a negation)
        ("有没有用4090做7B lora 3万条的方案", None, "RTX4090-24GB"),
        # whether to buy is the question: no preference for buying (had bought 8 H800 for a 6-minute job)
        ("7B lora 3万条 用不用买H800", None, "H800-SXM-80GB"),
        ("7B lora 3万条 买不买H800", None, "H800-SXM-80GB"),
        # what is bought between the two verbs ("买一台8卡H20还是租" had been a rent preference)
        ("老板问要不要买一台8卡H20还是租，做70B全量微调 2TB数据 一个月内", None, "H20-96GB"),
        ("70B全量微调 2TB数据 一个月内 买一台8卡H20还是租", None, "H20-96GB"),
    ],
)
def test_chinese_yes_or_no_questions_plan_what_they_ask(text, rent_or_buy, gpu):
    r = parse(text)
    assert (r.rent_or_buy, r.gpu) == (rent_or_buy, gpu)


@pytest.mark.parametrize(
    "text,stack",
    [
        # the HF Trainer front-end on DeepSpeed is DeepSpeed (had been refused as two frameworks)
        ("qwen3-8b sft 10万条 用 LLaMA-Factory deepspeed zero3 8卡4090", "deepspeed"),
        ("qwen3-8b sft 10万条 deepspeed + llama-factory", "deepspeed"),
        # ms-swift's `swift sft` and XTuner train on HF Transformers (had been skipped as unknown)
        ("qwen3-8b lora 50k samples ms-swift", "hf"),
        ("qwen3-8b lora 50k samples with xtuner", "hf"),
    ],
)
def test_a_trainer_front_end_and_its_engine_are_one_stack(text, stack):
    assert parse(text).stack == stack


@pytest.mark.parametrize(
    "text",
    [
        "llama-3-8b lora 50k samples on a single 24GB card",
        "llama-3-8b lora 5万条 一张24G的卡",
        "70B full 1TB 14d on 80GB GPUs",
    ],
)
def test_a_card_named_by_its_memory_is_asked_for_by_name(text):
    # it had been read as a second data size ("50k samples" and "24gb" contradict each other)
    with pytest.raises(RequestError) as err:
        parse(text)
    assert err.value.kind == "gpu_memory"
    # the catalogue's cards of that size are named to choose from
    assert ("RTX4090-24GB" if "24" in text else "A800-SXM4-80GB") in err.value.message()


@pytest.mark.parametrize(
    "text,gpu,count",
    [("7b lora 20GB 3d on 1x4090 24GB", "RTX4090-24GB", 1), ("7b lora 20GB 3d on 8xA100 40G", "A100-SXM4-40GB", 8)],
)
def test_a_cards_own_memory_after_a_count_and_its_name_is_the_card(text, gpu, count):
    r = parse(text)
    assert (r.gpu, r.gpu_count) == (gpu, count)


def test_reasoning_traces_are_samples():
    # "20k reasoning traces" had been refused: "20k" alone could be a length or a count
    r = parse("deepseek-r1-distill-llama-8b sft 20k reasoning traces avg 8k tokens")
    assert (r.data.amount, r.data.unit, r.tokens) == (20000, "samples", 160_000_000)


@pytest.mark.parametrize("text", ["qwen3-8b sft 50k CoT trajectories 3d", "qwen3-8b sft 50k cot samples 3d"])
def test_chain_of_thought_samples_are_samples(text):
    # "50k CoT trajectories" had been refused: "50k" alone could be a length or a count
    r = parse(text)
    assert (r.data.amount, r.data.unit) == (50000, "samples")


@pytest.mark.parametrize(
    "text,currency",
    [
        ("how many H200s to pretrain a 30B on 2T tokens in 30 days, in dollars", "USD"),
        ("7b sft 100k samples, us market", "USD"),
        ("7b sft 100k samples in US dollars", "USD"),
        ("7b sft 100k samples in yuan", "CNY"),
    ],
)
def test_a_currency_said_in_words_picks_its_market(text, currency):
    # "in dollars" had been refused ('I did not understand "dollars"')
    req = parse(text)
    assert req.currency == currency and req.market == ("global" if currency == "USD" else "china")


@pytest.mark.parametrize("text", ["8b sft 2M samples budget 5k usd deadline tmrw", "8b sft 2M samples by tmr usd"])
def test_tomorrow_written_short_is_the_deadline(text):
    # "tmrw" had been read past as a time no plan depends on: no deadline at all
    assert parse(text).deadline_days is not None and parse(text).deadline_days <= 1


@pytest.mark.parametrize(
    "text, word",
    [
        ("deepseek-v3 lora 5万条 私有化部署 用H20 预算100万", "私有化部署"),
        ("qwen3-32b lora 2万条 本地部署 7天", "本地部署"),
    ],
)
def test_where_the_model_will_run_is_said_not_refused_as_serving(text, word):
    # "私有化部署" had been refused as a serving request ("部署")
    req = parse(text)
    note = next(n for n in req.assumptions if n.code == "on_premises")
    assert note.params["words"] == [word] and req.method == "lora"


@pytest.mark.parametrize(
    "text",
    ["买一台8卡H20，跑qwen3-30b-a3b全参微调 50万条，回本要多久", "buy 8xH100 for 70b lora 100k samples, payback?"],
)
def test_a_payback_asked_in_the_request_is_no_unknown_word(text):
    # "回本" had been skipped as "not words I know" beside the answer's own break-even
    req = parse(text)
    assert req.rent_or_buy == "buy"
    assert not any(n.code == "read_past" for n in req.assumptions)


def test_a_grant_to_spend_and_who_shares_the_servers_are_read_and_said():
    # a Beijing lab's grant request had been refused on "今年必须花完", then on "10个学生共用"
    req = parse("经费300万今年必须花完 买服务器 主要做70B lora微调 10个学生共用 预算300万 买", "zh")
    assert req.budget.amount == 3_000_000 and req.rent_or_buy == "buy"
    codes = {n.code: n.params for n in req.assumptions}
    assert codes["spend_by"]["words"] == ["今年必须花完"] and "10个学生共用" in codes["read_past"]["words"]
    en = parse("70b lora, shared by 3 teams, 100k samples, must be spent this year, budget $400k buy usd")
    assert "spend_by" in {n.code for n in en.assumptions} and en.budget.amount == 400_000


@pytest.mark.parametrize(
    "text,budget",
    [
        ("帮我出个采购方案：300万，买一台8卡H200，70B lora 10万条", 3_000_000),
        ("买 70b lora 10万条 300万", 3_000_000),
        ("70b lora 300万条", None),  # a count says what it counts; no purchase, no bare money either
        ("买 7b 预训练 数据500万token", None),
    ],
)
def test_a_bare_amount_in_wan_is_the_money_to_buy_with(text, budget):
    req = parse(text, "zh")
    assert (req.budget.amount if req.budget else None) == budget


def test_a_chinese_accelerator_the_catalogue_lacks_names_the_domestic_ones_planned():
    with pytest.raises(RequestError) as info:
        parse("海光DCU 7B lora 10万条 买", "zh")
    assert info.value.kind == "unknown_gpu" and "910B" in str(info.value) and "910C" in str(info.value)
    with pytest.raises(RequestError) as info:
        parse("qwen3-32b lora on mac studio")
    # Apple: its own refusal (no measured speed to plan on), not the domestic accelerators
    assert info.value.kind == "apple_silicon" and "domestic" not in str(info.value) and "MLX" in str(info.value)


def test_a_place_abroad_said_in_chinese_prose_with_dollars_is_the_global_market():
    # `预算5万美元 美国` had stayed on mainland China's market (dollars in Chinese prose keep it),
    # where "in the US" moves an English request abroad
    assert parse("qwen3-32b sft 10万条 一周 预算5万美元 美国").market == "global"
    assert parse("qwen3-32b sft 10万条 一周 预算5万美元").market == "china"


def test_a_trillion_in_chinese_is_tokens_not_a_second_budget():
    # "1万亿token" had been read as a budget of 1万 beside 预算2000万, and the request refused
    r = parse("70B 预训练 1万亿token 3个月 预算2000万 买")
    assert r.data.amount == 1e12 and r.data.unit == "tokens" and r.budget.amount == 2e7


def test_image_text_samples_are_counted_as_samples_with_the_vision_note():
    # "100万条图文" had sunk the whole request on the word; "image-text pairs" on "image"
    for text, amount in (
        ("Qwen2.5-VL-72B 全量微调 100万条图文 2轮 一个月", 1e6),
        ("qwen2.5-vl-7b lora 50k image-text pairs 3d", 5e4),
    ):
        r = parse(text)
        assert (r.data.amount, r.data.unit) == (amount, "samples")
        assert any(n.code == "vision_language" for n in r.assumptions)


@pytest.mark.parametrize(
    "text", ["13B pretrain 3T tokens buy usd we only use them 50%", "13B pretrain 3T tokens buy usd utilization of 50%"]
)
def test_the_use_of_bought_gpus_said_before_its_number(text):
    assert parse(text).own_utilisation == 0.5


@pytest.mark.parametrize(
    "text, data_gb, deadline",
    [
        ("我们要长期做 13B 全量微调，每月大约 20GB 新数据，想买卡", 20, None),  # had been refused at 每月
        ("buy servers for 7B full fine-tune on 50GB of data every month, 5 days per run", 50, 5),  # at "servers"
    ],
)
def test_a_buyer_training_every_month_as_teams_say_it(text, data_gb, deadline):
    r = parse(text)
    assert r.recurring and r.rent_or_buy == "buy" and r.data.amount == data_gb * 1e9 and r.deadline_days == deadline


@pytest.mark.parametrize(
    "text,check",
    [
        # each had been refused ("从零", "20万图文") or read as two models
        ("想从零训一个1B的小模型，500亿token，两周", lambda r: r.method == "pretrain" and r.params_b == 1.0),
        ("Qwen2.5-VL-72B 微调 20万张图文 一个月", lambda r: r.data.unit == "samples" and r.data.amount == 200_000),
        (
            "qwen3-8b 蒸馏 deepseek-r1 的数据 10万条 2天",
            lambda r: r.model == "qwen3-8b" and "teacher_data" in {a.code for a in r.assumptions},
        ),
        (
            "用deepseek-r1蒸馏qwen3-8b 10万条 2天",
            lambda r: r.model == "qwen3-8b" and "teacher_data" in {a.code for a in r.assumptions},
        ),
    ],
)
def test_chinese_ways_of_saying_scratch_images_and_a_teacher(text, check):
    assert check(parse(text))


@pytest.mark.parametrize(
    "text", ["gemma-2-27b sft 1B tokens 1 week, prefer nvlink", "27b 全参 10亿token 一周 需要NVLink"]
)
def test_nvlink_is_asked_for_and_written_back(text):
    from advisor.request.canonical import canonical

    r = parse(text)
    assert r.nvlink and parse(canonical(r)).nvlink


def test_nvlink_on_a_gpu_without_it_is_a_conflict():
    with pytest.raises(RequestError) as info:
        parse("7b lora 1GB 2d on 4090 nvlink")
    assert info.value.kind == "conflict"


@pytest.mark.parametrize(
    "text,check",
    [
        # each had been refused on a word that only describes the data, or hedges the sum
        (
            "fine tune llama 3.1 8b on our support tickets, about 50k tickets, 5 days, budget is tight maybe $2000",
            lambda r: r.data.amount == 50_000 and r.budget.amount == 2000,
        ),
        ("finetune qwen2.5-coder-32b on our codebase, 2GB of code, 5 days", lambda r: r.data.unit == "bytes"),
    ],
)
def test_the_datas_own_nouns_and_a_hedged_sum_are_read_past(text, check):
    assert check(parse(text))


@pytest.mark.parametrize("text", ["7b lora 1GB 3d maybe 16 GPUs", "7b lora 1GB maybe 3d"])
def test_a_hedge_on_a_count_or_a_time_is_still_refused(text):
    with pytest.raises(RequestError) as info:
        parse(text)
    assert info.value.kind == "unknown_word" and info.value.details["word"] == "maybe"


@pytest.mark.parametrize(
    "text",
    [
        "continued pretraining llama-3.1-70b on 30B tokens of finance text then SFT on 100k samples, 3 weeks",
        "先做继续预训练 300亿token 然后sft 10万条 qwen2.5-7b 一个月",
    ],
)
def test_two_stages_in_one_request_are_asked_for_one_at_a_time(text):
    # it had been "contradict each other: give the training method once"
    with pytest.raises(RequestError) as info:
        parse(text)
    assert info.value.kind == "two_stages"
    for example in re.findall(r"`/gpu ([^`]+)`", info.value.message(detect_lang(text))):
        assert parse(example).method in ("continued-pretrain", "full-finetune")  # the examples plan


@pytest.mark.parametrize(
    "text,first,second",
    [
        # each run with its own data: refused as two data sizes that contradict each other
        (
            "need to do SFT of llama-3.3-70b with 40k examples, then DPO with 10k pairs. timeline 10 days",
            ("llama3.1-70b", 40_000, None),  # (Llama 3.3 70B has 3.1 70B's shape)
            ("llama3.1-70b", 10_000, "dpo"),
        ),
        (
            "想在一周内把Qwen3-8B在我们20G的行业数据上继续预训练，再做一轮SFT（5万条），怎么配机器",
            ("qwen3-8b", 20e9, None),
            ("qwen3-8b", 50_000, None),
        ),
    ],
)
def test_two_runs_each_with_its_data_are_the_two_requests_that_plan_them(book, text, first, second):
    with pytest.raises(RequestError) as info:
        parse(text)
    assert info.value.kind == "two_stages"
    asked = re.findall(r"`/gpu ([^`]+)`", refusal(info.value, detect_lang(text), book))
    assert len(asked) == 2
    for request, (model, amount, preference) in zip([parse(a) for a in asked], (first, second)):
        # the model and the deadline said once hold for both; each run keeps its own data and method
        assert (request.model, request.data.amount, request.preference_tuning) == (model, amount, preference)
        assert request.deadline_days == parse(asked[0]).deadline_days is not None


def test_one_data_size_then_another_with_no_second_method_is_still_a_contradiction():
    assert _refusal("7b lora 20GB then 30GB 3d")[0] == "conflict"


@pytest.mark.parametrize(
    "text,samples",
    [
        ("32B 的模型做 LoRA，样本 3 万，A800 够吗", 30000),  # had been refused on 样本
        ("7b lora 样本数约5000 3天", 5000),
        ("7b lora 样本3万条 3天", 30000),
        ("7b lora 训练样本 20000 3天", 20000),
        ("7b lora 3万条样本 3天", 30000),  # the unit after its count, as before
    ],
)
def test_a_count_after_the_word_for_samples_is_that_many_samples(text, samples):
    r = parse(text)
    assert (r.data.unit, r.data.amount) == ("samples", samples)
    assert r.deadline_days in (None, 3)


@pytest.mark.parametrize(
    "text,unsaid",
    [("we only have 4 GPUs, can we fine-tune llama 3 8b?", True), ("we own 4 A100, llama3-8b full finetune", False)],
)
def test_own_gpus_of_a_type_not_said_are_said_to_be_the_plans_choice(cli, text, unsaid):
    # "we only have 4 GPUs" had been planned on H800 "on your own GPUs" with nothing said of the type
    note = next(n for n in parse(text, "en").assumptions if n.code == "owned")
    assert note.params["type_unsaid"] is unsaid
    said = "their type was not said" in cli("ask", text).stdout
    assert said is unsaid


@pytest.mark.parametrize(
    "text,planned",
    [
        ("多模态 7B 微调 10亿token 7天", True),  # had been refused on 多模态
        ("multimodal 7b lora 500M tokens 3d", True),
        ("多模态 7B lora 5万条 每条1000 token 3天", True),
        ("多模态 7B lora 5万条 3天", False),  # samples of unknown tokens: the encoder's share is unknown
        ("qwen2-vl-7b lora 100k images 3d", False),
    ],
)
def test_a_multimodal_job_is_planned_on_the_tokens_given_and_says_the_encoder_is_left_out(text, planned):
    if not planned:
        with pytest.raises(RequestError) as refused:
            parse(text, None)
        assert refused.value.kind == "modality"
        return
    req = parse(text, None)
    note = next(n for n in req.assumptions if n.code == "multimodal_tokens")
    assert note.params["word"] in text.lower() and req.tokens > 0
    said = word(req.lang, note)
    assert ("encoder" in said) if req.lang == "en" else ("编码器" in said)


@pytest.mark.parametrize(
    "text,prompts",
    [
        ("qwen2.5-7b grpo 10k prompts 3d", 10_000),
        ("强化学习 qwen3-8b GRPO 训练 5000条 3天", 5_000),
        ("7b ppo 3d", None),
    ],
)
def test_an_rl_refusal_works_out_the_floor_on_the_requests_own_prompts(cli, text, prompts):
    # it had given one example for every request (`/gpu 32b full-finetune 2B tokens 14d`)
    with pytest.raises(RequestError) as refused:
        parse(text, None)
    got = refused.value
    assert got.kind == "unsupported_method"
    if prompts is None:
        assert "example" not in got.details
        return
    # TRL's defaults: 8 completions a prompt, each up to 512 + 256 tokens
    assert got.details["prompts"] == prompts and got.details["tokens"] == prompts * 8 * 768
    assert cli("ask", got.details["example"]).returncode == 0  # the floor it offers plans


@pytest.mark.parametrize(
    "text,budget,recurring",
    [
        ("老板给了50万，想微调一个32B模型，数据20万条，两周内要交付，怎么配", 500_000, False),  # refused on 了50万
        ("公司批了100万 70B lora 10万条 7天", 1_000_000, False),
        ("租还是买：每个月都要微调一次70B，每次1B token", None, True),  # refused on 一次
        ("每个月训练一次7b lora 5万条", None, True),
    ],
)
def test_a_sum_granted_is_the_budget_and_a_run_each_month_is_recurring(text, budget, recurring):
    req = parse(text, None)
    assert (req.budget.amount if req.budget else None) == budget and req.recurring is recurring
    assert req.tokens and req.params_b


@pytest.mark.parametrize("text", ["7b lora 20k samples over the weekend", "13b 全参微调 1亿token 一个周末"])
def test_a_weekend_is_a_sixty_hour_deadline_said(text):
    # "can we do it over the weekend?" had drawn the menu under a plan, and was no deadline in a request
    req = parse(text, None)
    assert req.deadline_days == 2.5
    note = next(n for n in req.assumptions if n.code == "deadline_weekend")
    assert note.params["hours"] == 60 and "60" in word(req.lang, note)


@pytest.mark.parametrize(
    "text,speed,tokens",
    [
        ("our cluster: 32 A800 with 200G IB, pretrain 13B on 500B tokens, how long?", "200g", 500e9),
        ("8 nodes of 8 H20 with RoCE 400G, full finetune qwen3-32b 2B tokens", "400g", 2e9),
        ("7b lora 2B tokens 8x400G IB网络", "8x400g", 2e9),
    ],
)
def test_a_links_speed_beside_its_fabric_is_the_network_said(text, speed, tokens):
    # "200G" had been read as 200 GB of data, refused beside the tokens
    req = parse(text)
    assert req.tokens == tokens
    # a speed said is the network planned on (a GPU's on IB or RoCE; `8x` lanes, the server's total)
    assert any(a.code == "team_network" for a in req.assumptions)
    lanes, _, rate = speed.rpartition("x")
    assert (req.network_gbps, req.network_per_server) == (float(rate[:-1]) * int(lanes or 1), bool(lanes))


@pytest.mark.parametrize(
    "text,buy",
    [
        ("想在本地部署一个训练集群，预算200万，做70B以内的微调", "buy"),
        ("自建GPU集群 70b lora 1亿token", "buy"),
        ("we want to build our own cluster for 70b full-finetune 1TB", "buy"),
        ("on-prem cluster 7b pretrain 100B tokens", "buy"),
        ("7b lora 5万条 本地部署", None),  # where the trained model runs: said, nothing bought
    ],
)
def test_a_training_cluster_built_on_premises_is_bought(text, buy):
    # "本地部署一个训练集群" had been read as where the trained model runs, and the plan rented
    assert parse(text).rent_or_buy == buy


@pytest.mark.parametrize(
    "text,count",
    [
        ("can i train a 1b model from scratch on my 4090 with 10b tokens", 1),
        ("7b lora 50k samples on my own h100", 1),
        ("7b lora 50k samples on my 2 4090s", 2),
        ("7b lora 50k samples on my 3090s", None),
    ],
)
def test_my_gpus_are_owned_and_my_card_is_one(text, count):
    # "my" had been read past and eight cards rented
    r = parse(text)
    assert r.owned and r.gpu_count == count


def test_a_sample_count_in_brackets_after_its_samples_is_the_data():
    # "(~300k)" had been refused as a word not understood
    r = parse("need to finetune llama3 70b on our support tickets (~300k), deadline end of month, cheapest setup")
    assert (r.data.amount, r.data.unit) == (300_000, "samples")


@pytest.mark.parametrize(
    "text,samples",
    [
        (
            "Planning to SFT Qwen2.5-14B-Instruct on 80k multi-turn dialogues (avg 3k tokens), 3 epochs, 48 hours",
            80_000,
        ),
        ("7b lora 50k medical conversations", 50_000),
    ],
)
def test_what_the_samples_are_between_their_count_and_noun(text, samples):
    # "80k multi-turn dialogues" had been asked whether 80k was a length or a count
    assert parse(text).data.amount == samples


@pytest.mark.parametrize(
    "text",
    [
        "we want to distill deepseek-r1 into a 7b model, 800k samples",
        "7b sft 20k reasoning traces",
        "qwen2.5-7b 微调 10万条 推理数据",
    ],
)
def test_reasoning_traces_counted_in_samples_are_guessed_long_and_said_so(text):
    # the 1,000 tokens of an instruction sample had planned a distillation several times too fast
    from advisor.request.canonical import canonical

    r = parse(text)
    assert r.tokens_per_sample == 4000
    assert any(a.code == "reasoning_tokens_per_sample" for a in r.assumptions)
    assert parse(canonical(r)).tokens == r.tokens  # the line read again keeps the guess
    assert parse("7b sft 50k samples").tokens_per_sample == 1000


@pytest.mark.parametrize(
    "text,gpu",
    [
        ("GB200 NVL72 pretrain 400B 15T tokens 90 days", "B200-SXM-180GB"),
        ("70b lora 1B tokens on gb300", "B300-SXM-288GB"),
    ],
)
def test_a_grace_blackwell_rack_is_planned_on_its_gpus_hgx_part_and_said_so(text, gpu):
    # "gb200" had been asked "did you mean b200?"
    r = parse(text)
    assert r.gpu == gpu
    assert any(a.code == "gpu_proxy" for a in r.assumptions)


@pytest.mark.parametrize(
    "text,params",
    [
        ("满血版DeepSeek微调需要多少卡", 671),
        ("deepseek满血版 lora 1万条", 671),
        ("蒸馏版deepseek 32b 微调 5万条", 32.5),
        ("r1蒸馏版32b lora 5万条", 32.5),
    ],
)
def test_deepseeks_chinese_nicknames_name_its_releases(text, params):
    # 满血版 (the full 671B R1) and 蒸馏版 (a distilled release) had been refused as words not understood
    assert parse(text).params_b == params


def test_r1_named_bare_as_the_teacher_is_no_lora_rank():
    # "r1蒸馏数据" had been read as a LoRA rank of 1, contradicting 微调
    r = parse("用r1蒸馏数据微调qwen2.5-7b 5万条")
    assert r.lora_rank is None and any(a.code == "teacher_data" for a in r.assumptions)


@pytest.mark.parametrize(
    "text,amount",
    [
        ("7b pretrain a trillion tokens", 1e12),
        ("7b pretrain one trillion tokens", 1e12),
        ("7b lora a million samples", 1e6),
        ("7b lora a hundred thousand samples", 1e5),
        ("7b lora a quarter million samples", 2.5e5),
    ],
)
def test_an_amount_said_with_an_article_or_one(text, amount):
    # each had been refused on its scale word ("I did not understand trillion")
    assert parse(text).data.amount == amount


@pytest.mark.parametrize(
    "text",
    [
        "we need to retrain our 1.3B model every week on 5B new tokens",
        "7b lora 5万条 每周训练一次",
        "retrain 7b lora weekly on 50k new samples",
    ],
)
def test_a_run_every_week_is_recurring_at_52_over_12_runs_a_month(text):
    # "every week" had been refused ("every", "weekly" not understood; "5B new tokens" a second model size)
    from advisor.request.canonical import canonical

    r = parse(text)
    assert r.recurring and r.runs_per_month == pytest.approx(52 / 12)
    assert parse(canonical(r)).runs_per_month == r.runs_per_month


def test_what_the_model_is_for_said_with_customer_is_read_past():
    # "customer" had been refused as someone else's ("their customers' GPUs")
    r = parse("fine-tune llama 3.1 8b on 10k samples for customer support, cheapest possible")
    assert r.data.amount == 10_000 and any(a.code == "read_past" for a in r.assumptions)


@pytest.mark.parametrize(
    "text,params_b",
    [
        # the singular and the hyphenated key had been refused ("did you mean `full-parameter`?")
        ("a 7B parameter model lora 10k samples", 7.0),
        ("a 100M parameter model pretrain on 2B tokens", 0.1),
        ("pretrain a 1B-parameter model on 20B tokens", 1.0),
        # the size in words had asked for the model's size
        ("13 billion params full finetune 1B tokens", 13.0),
        ("a model with 7 billion parameters lora 10k samples", 7.0),
        ("a 13-billion-parameter model full finetune 1B tokens", 13.0),
    ],
)
def test_a_size_said_with_its_parameters_in_any_form_is_the_size(text, params_b):
    assert parse(text).params_b == params_b


@pytest.mark.parametrize(
    "text",
    [
        "70b parameter-efficient finetuning 1B tokens",
        "70b parameter efficient fine-tuning 1B tokens",
        "70B 参数高效微调 1万条",
    ],
)
def test_parameter_efficient_fine_tuning_is_lora(text):
    """PEFT in words is LoRA, PEFT's default method (it had been read as full fine-tuning, or refused)."""
    r = parse(text)
    assert (r.params_b, r.method) == (70.0, "lora")


@pytest.mark.parametrize("text", ["lora 70b on 2x A100 80gb qlora 4bit", "qlora 70b lora r=16 1B tokens"])
def test_lora_and_qlora_said_together_is_qlora(text):
    """QLoRA is LoRA on a 4-bit base: both words name one method (it had been refused as two);
    "lora or qlora?" stays a choice."""
    assert parse(text).method == "qlora"
    with pytest.raises(RequestError) as asked:
        parse("7b lora or qlora 10k samples")
    assert asked.value.kind == "method_choice"


@pytest.mark.parametrize(
    "text,gpu,count,cloud",
    [
        # each had been refused on the instance's name ("p5", "a3", "v5")
        ("fine-tune llama 3.1 8b on AWS p5, 1B tokens", "H100-SXM5-80GB", None, "AWS"),
        ("GCP A3 mega for 70B full finetune 5B tokens 10 days", "H100-SXM5-80GB", None, "GCP"),
        ("GCP A3 Ultra 70B lora 5B tokens", "H200-SXM-141GB", None, "GCP"),
        ("azure ND H100 v5 13B pretrain 300B tokens", "H100-SXM5-80GB", None, "Azure"),
        # a count before it counts instances; the cloud comes with the instance where none is named
        ("70b lora 1B tokens on 2x p5.48xlarge", "H100-SXM5-80GB", 16, "AWS"),
        ("7b lora 1B tokens on 4 p4de instances", "A100-SXM4-80GB", 32, "AWS"),
        ("7b lora 10k samples on Standard_ND96isr_H100_v5", "H100-SXM5-80GB", None, "Azure"),
    ],
)
def test_a_cloud_instance_is_its_gpus_on_its_cloud_and_said(text, gpu, count, cloud):
    r = parse(text)
    assert (r.gpu, r.gpu_count, r.cloud) == (gpu, count, cloud)
    (said,) = [n for n in r.assumptions if n.code == "instance_read"]
    assert said.params["gpu"] == gpu and said.params["count"] == 8
    assert not [n for n in r.assumptions if n.code == "gpu_variant"]  # the instance says which part


def test_an_moe_shorthand_and_a_loose_p_are_no_instance():
    assert parse("qwen3-30b-a3b lora 10k samples").gpu is None
    with pytest.raises(RequestError):
        parse("7b lora 10k samples top p 5")


@pytest.mark.parametrize(
    "text",
    [
        "7b lora 100k samples, each about 1500 tokens",
        "7b lora 100k samples each 1500 tokens",
        "7b lora 100k samples, each roughly 1.5k tokens",
    ],
)
def test_each_samples_length_said_after_each_is_the_mean_length(text):
    """It had been read as a second data size ("1500 tokens and 100k samples contradict each other")."""
    r = parse(text)
    assert (r.data.amount, r.data.unit, r.tokens_per_sample) == (100_000, "samples", 1500)


@pytest.mark.parametrize(
    "text,amount,unit",
    [
        # words around the samples that only say what they are ("customer service": "200k" had been
        # asked as a sequence length or a count)
        ("fine-tune Qwen2.5-72B on 200k customer service dialogs, about 800 tokens each, 7d", 200_000, "samples"),
        ("qwen2.5-7b lora 50k historical sales conversations 3d", 50_000, "samples"),
        # what the data is, nine characters before its noun ("自己法律文书" had been refused), and 文 of
        # 文书 or 论文 no language
        (
            "我们是一家30人的公司，想用自己的法律文书数据（大概20GB文本）继续预训练Qwen3-14B，预算50万，两个月内完成",
            20e9,
            "bytes",
        ),
        ("用公司的论文数据5GB做qwen3-8b lora 三天", 5e9, "bytes"),
        # image-text pairs before their count, as after it
        ("7B lora 图文对1000万条 一个月", 10_000_000, "samples"),
    ],
)
def test_what_the_data_is_said_around_it_is_read_past(text, amount, unit):
    r = parse(text)
    assert (r.data.amount, r.data.unit) == (amount, unit)


def test_a_language_written_with_wen_is_still_asked_and_a_multimodal_job_in_samples_refused():
    with pytest.raises(RequestError) as err:
        parse("用日文数据5GB做qwen3-8b lora 三天")
    assert err.value.kind == "unknown_word"
    with pytest.raises(RequestError) as err:
        parse("训练一个7B的多模态模型，图文对1000万条，一个月")
    assert err.value.kind == "modality"


@pytest.mark.parametrize(
    "text,samples,each",
    [
        (
            "LoRA fine-tune of DeepSeek-R1-Distill-Llama-70B with 20k reasoning traces averaging 4k tokens, 1 week",
            20_000,
            4000,
        ),
        ("7b lora 50k customer service dialogs averaging 600 tokens 2d", 50_000, 600),
        ("7b lora 30k samples, our samples average 2k tokens", 30_000, 2000),
    ],
)
def test_a_mean_length_after_a_count_with_its_kind_is_the_samples_length(text, samples, each):
    # "20k" had been asked as a sequence length or a count: the length's rule had taken "traces
    # averaging 4k tokens" and left the count without its noun
    r = parse(text)
    assert (r.data.amount, r.data.unit, r.tokens_per_sample) == (samples, "samples", each)


@pytest.mark.parametrize(
    "text",
    [
        "fine-tune Llama 3.3 70B on about 2B tokens of legal text. Target: done in 10 days. Budget around $40k.",
        "fine-tune Llama 3.3 70B on about 2B tokens of legal text, target 10 days, budget $40k",
        "fine-tune Llama 3.3 70B on 2B tokens, done in 10 days, budget $40k. On-demand or reserved?",
        "llama3.3-70b 全量微调 20亿token 10天 按量还是包月",
    ],
)
def test_a_target_before_the_deadline_and_the_billing_asked_are_read(text):
    # "target" and the "or" of "on-demand or reserved?" had been refused; the card's terms answer the second
    r = parse(text)
    assert r.deadline_days == 10 and r.tokens == 2e9 and r.rent_or_buy is None
    assert parse("7b lora 10k samples target all 2d").lora_targets == "all"


@pytest.mark.parametrize("text", ["预算有限，想训一个能用的客服模型", "想训一个客服模型", "we want a legal model"])
def test_a_word_naming_the_models_purpose_asks_for_its_size(text):
    # "did not understand 客服" alone had answered, without asking for the model's size
    with pytest.raises(RequestError) as err:
        parse(text)
    assert err.value.kind == "missing_size"


@pytest.mark.parametrize(
    "text", ["13b 预训练 1T token 预算300万30天", "13b 预训练 1T token 300万预算30天", "7b lora 5万条 预算1万3天"]
)
def test_a_sum_in_wan_run_into_the_deadlines_number_is_both(text):
    # "预算300万30天" had been a budget of ¥300 (the 万 given back so that no digit followed the amount)
    r = parse(text)
    assert r.budget.amount in (3_000_000, 10_000) and r.deadline_days in (30, 3)


def test_a_sum_with_a_scale_is_money_not_a_models_size():
    from advisor.request.parser import model_said

    # "¥3M" had been read as a model of 3M parameters, so "what can ¥3M pretrain" was no sum's question
    assert model_said("we have ¥3M, what's the biggest model we can pretrain in 30 days?") is None
    assert model_said("what can a 3M model do") == (None, 0.003, None)


@pytest.mark.parametrize(
    "text,total,experts,routed",
    [
        ("train a 7B MoE from scratch (8 experts, 2 active) on 1T tokens in 30 days", 7, 8, 2),
        ("pretrain 16B moe 64 experts top 6 300B tokens", 16, 64, 6),
        ("16B MoE, top-2 of 16 experts, pretrain 500B tokens", 16, 16, 2),
        ("预训练一个16B的MoE，64个专家，激活6个，3000亿token", 16, 64, 6),
    ],
)
def test_a_mixtures_experts_and_routing_give_its_active_size(text, total, experts, routed):
    # each had been refused over the expert count ('I did not understand "8"')
    r = parse(text)
    share = 0.035  # Mixtral 8x7B: 12.9 = 46.7 x (s + (1 - s) x 2/8)
    assert r.params_b == total and r.active_params_b == pytest.approx(
        total * (share + (1 - share) * routed / experts), rel=0.01
    )
    note = next(n for n in r.assumptions if n.code == "active_from_experts")
    assert (note.params["experts"], note.params["routed"]) == (experts, routed)
    # written back as a size the parser reads again
    again = parse(canonical(r))
    assert (again.params_b, again.active_params_b) == (r.params_b, r.active_params_b)


def test_experts_without_their_routing_ask_for_the_active_size():
    with pytest.raises(RequestError) as err:
        parse("7B MoE 8 experts pretrain 1T tokens")
    assert err.value.kind == "missing_active"
    with pytest.raises(RequestError) as err:
        parse("7B moe 8 experts 8 active pretrain 1T")  # as many routed to as there are: no mixture
    assert err.value.kind == "bad_value"


def test_the_card_says_the_active_size_worked_out_from_the_experts(book):
    from advisor.planning.advice import advise
    from bot import blocks

    card = blocks.card(advise("train a 7B MoE from scratch (8 experts, 2 active) on 1T tokens in 30 days", book=book))
    context = next(b["elements"][0]["text"] for b in card["blocks"] if b["type"] == "context")
    assert "1.93B active, from 2 of 8 experts" in context


def test_a_count_of_samples_after_the_context_key_is_the_data_not_the_length():
    # "8k context 100k samples" had been a 102,400-token sequence over 8,000 samples
    r = parse("7b sft 8k context 100k samples 2 days")
    assert (r.seq_len, r.data.amount, r.data.unit) == (8192, 100_000, "samples")
    assert parse("7b sft context 8k 100k samples").seq_len == 8192
    assert parse("qwen3-8b lora 上下文 32k 1万条").seq_len == 32768
    # the length's unit said after it is the length's ("context 128k tokens" had refused "tokens")
    assert parse("7b lora 10k samples context 128k tokens").seq_len == 131072
    assert parse("7b lora 10k samples 上下文 32k token").seq_len == 32768
    assert parse("7b lora seq 4096 1B tokens").data.amount == 1e9


def test_a_turn_of_a_dialogue_is_no_epoch_and_alignment_beside_dpo_is_dpo():
    # "多轮对话" describes the samples (its 轮 is a turn); "对齐" beside DPO is what DPO does
    r = parse("指令微调 qwen2.5-14b 30万条 多轮对话 A800*8 一周")
    assert (r.data.amount, r.epochs, r.gpu_count) == (300_000, 1, 8)
    assert parse("7B sft 30万条单轮对话").data.amount == 300_000
    assert parse("对齐训练 7B DPO 5万对 两台H800").preference_tuning == "dpo"
    # alone, 多轮 may be epochs and 对齐 names no method: both are asked about, not guessed
    for text in ("7B 全量微调 5万条 多轮", "对齐训练 7B 5万条"):
        with pytest.raises(RequestError):
            parse(text)
    # 对齐 alone says which methods are planned (it had been "I did not understand")
    with pytest.raises(RequestError) as info:
        parse("对齐训练 7B 5万条")
    assert "DPO" in str(info.value) and "dpo" in str(info.value)


def test_distillation_said_beside_an_r1_distill_is_its_fine_tune_on_r1s_outputs():
    # "DeepSeek-R1-Distill-Qwen-7B 蒸馏，100万条" had been refused as a distillation
    r = parse("DeepSeek-R1-Distill-Qwen-7B 蒸馏，100万条，一周")
    assert (r.model, r.method, r.data.amount) == ("qwen2.5-7b", "full-finetune", 1_000_000)
    assert "teacher_data" in [a.code for a in r.assumptions]
    # the name alone is no distillation asked, and a teacher with a bare size is still asked about
    assert "teacher_data" not in [a.code for a in parse("DeepSeek-R1-Distill-Qwen-7B sft 100万条").assumptions]
    with pytest.raises(RequestError):
        parse("deepseek-r1 蒸馏 7b 全参 10万条")
    # the distills named without "deepseek-" are their bases' shapes, not unknown models
    assert parse("R1-Distill-Qwen-7B lora 10k samples").model == "qwen2.5-7b"
    assert parse("r1-distill-llama-70b lora 10k samples").model == "llama3.1-70b"


@pytest.mark.parametrize(
    "text", ["pretrain llama 3 architecture 8B on 15T tokens 90 days", "用llama3架构 8B 预训练 1T token"]
)
def test_a_familys_architecture_at_a_size_is_that_release(text):
    # "3" had been a word not understood; "用llama3架构 8B" a GPU called llama3
    assert parse(text).model == "llama3-8b"


@pytest.mark.parametrize(
    "text,budget,samples",
    [
        ("70B lora 5万条 预算4万6", 46_000, 50_000),
        ("70B lora 5万条 预算1万2", 12_000, 50_000),
        ("7B lora 3万5条", None, 35_000),
    ],
)
def test_a_digit_after_wan_is_its_thousands(text, budget, samples):
    # "预算4万6" and "3万5条" had been refused on their last digit
    r = parse(text)
    assert (r.budget.amount if r.budget else None, r.data.amount) == (budget, samples)
    # a span after it is no part of it
    assert parse("7B lora 5万条 预算5万 6天").deadline_days == 6


def test_an_nvl_part_is_an_unknown_gpu_named_whole_not_a_word_left_over():
    # "2x H100 NVL" had been "I did not understand 'nvl'" after reading the catalogue's H100
    with pytest.raises(RequestError) as info:
        parse("70B lora 50k samples on 2x H100 NVL")
    assert info.value.kind == "unknown_gpu" and "H100 NVL" in str(info.value)
    assert parse("70B lora 50k samples on H100 PCIe").gpu == "H100-PCIe-80GB"


@pytest.mark.parametrize(
    "text,words",
    [
        ("fine tune glm-4-9b on 1GB text, rent by hour", ("hourly_only",)),
        ("7b lora 20GB 按小时", ("hourly_only",)),
        ("7b lora 20GB 3天 按需付费", ("hourly_only",)),
        ("Qwen3-235B-A22B LoRA 1万条 样本 4天", ()),
        ("7b sft 2万条 指令 2天", ()),
        ("预训练一个3B模型 1T token 一个月 买服务器", ("buy",)),
        ("7b lora 20GB 3天 租服务器", ("rent",)),
    ],
)
def test_the_words_teams_write_around_a_request_are_read_not_skipped(text, words):
    # "rent by hour" and "1万条 样本" had been refused on "hour" and "样本"; "买服务器" had skipped
    # "服务器" as a word not understood
    r = parse(text)
    assert "read_past" not in [a.code for a in r.assumptions]
    if "hourly_only" in words:
        assert r.hourly_only
    for choice in ("buy", "rent"):
        if choice in words:
            assert r.rent_or_buy == choice
    if "样本" in text or "指令" in text:
        assert r.data.unit == "samples"


@pytest.mark.parametrize(
    "text,count",
    [
        ("Need to finetune llama3 70b, have 8 A800 already, 100k samples, how long", 8),
        ("70b lora 100k samples. already have 2 servers of 8xA800", 16),
        ("7b lora 50k samples, got 4 4090s", 4),
    ],
)
def test_gpus_had_with_the_subject_left_out_are_the_teams(text, count):
    # "have 8 A800 already" had been rented, "already" skipped
    r = parse(text)
    assert r.owned and r.gpu_count == count
    assert "read_past" not in [a.code for a in r.assumptions]
    # data had is no GPU
    assert not parse("7b lora, have 50k samples").owned


@pytest.mark.parametrize(
    "text,second",
    [
        ("we need to train 3 models: 7B, 13B and 70B, each on 100B tokens, within 2 months", "13b"),
        ("7B or 13B lora 50k samples 3d", "13b"),
        ("7B还是13B 全量微调 5万条", "13b"),
        ("llama3-70b qwen2.5-7b lora 10k samples", "qwen2.5-7b"),
    ],
)
def test_several_models_are_asked_for_one_at_a_time(text, second):
    # they had been refused as sizes that contradict each other
    with pytest.raises(RequestError) as info:
        parse(text)
    assert info.value.kind == "several_models" and info.value.details["second"] == second
    # the what-if the refusal offers reads in a thread as that model
    lang = detect_lang(text)
    asked = f"what if {second}?" if lang == "en" else f"如果是{second}呢"
    changed, fields_changed = parse_followup("7b lora 50k samples 3d", asked, lang)
    assert fields_changed and (changed.params_b == 13 or changed.model == second)


@pytest.mark.parametrize(
    "text",
    [
        "minimum GPUs for 70B lora",
        "最少几张卡能全参微调72B",
        "至少要多少张卡才能全参微调70B",
        "what's the minimum number of H100s to full finetune 70B?",
    ],
)
def test_the_fewest_gpus_asked_for_is_the_plans_count(text):
    # "minimum" and "最少几" had been refused; "what's the minimum number of H100s ..." had drawn the FAQ's
    # LoRA topic for a full fine-tune
    from advisor.planning.advice import faq_first
    from advisor.request.parser import asks_for_a_plan

    r = parse(text)
    assert r.gpu_count is None and r.params_b in (70, 72)
    assert asks_for_a_plan(text) or detect_lang(text) == "zh"
    assert faq_first(text) is None  # the plan answers, not the FAQ


@pytest.mark.parametrize("text", ["H100", "8x H100", "用H800"])
def test_a_gpu_named_alone_is_asked_its_model_and_pointed_to_its_prices(text):
    with pytest.raises(RequestError) as info:
        parse(text)
    err = info.value
    assert err.kind == "missing_size" and f"/gpu prices {err.details['gpu']}" in err.message(detect_lang(text))
    # a method beside it is a request short of its size, asked for that alone
    with pytest.raises(RequestError) as info:
        parse("H100 lora")
    assert "gpu" not in info.value.details


@pytest.mark.parametrize(
    "text,amount,unit",
    [
        ("qwen3-14b 继续预训练 30GB的法律文书 两个月", 30e9, "bytes"),
        ("7b 全量微调 10万份病历 3天", 100_000, "samples"),
        ("7b lora 5万份合同", 50_000, "samples"),
    ],
)
def test_documents_named_by_their_kind_are_the_data(text, amount, unit):
    # "法律文书" and "10万份病历" had been refused as words not understood
    r = parse(text)
    assert (r.data.amount, r.data.unit) == (amount, unit)


def test_gigabytes_counted_with_ge_are_the_data():
    # "数据量大概5个G" had been refused on "5g" ("2个T" was read as terabytes)
    r = parse("用8张A100微调llama3-8b，数据量大概5个G，多久能跑完")
    assert (r.data.amount, r.data.unit, r.gpu_count) == (5e9, "bytes", 8)
