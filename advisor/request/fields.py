"""The request's fields in one table: each field's words in English and Chinese, its units and
conversions, its limits, the wording key of its refusal and the notes it leaves when assumed.

Everything that knows a field reads its row: the parser builds its patterns from the words
(advisor/request/parser.py) and checks values against the limits, request.canonical writes each
value with its first spelling (advisor/request/canonical.py), the form's check and the refusals
state the same limits, `help` lists each row's examples, the what-if says what changed with the
row's `shown` kind, and templates/phrases.j2 words each field (`field_name`, `field_label`), each
choice (`choice`) and each limit (`bad_value`), all keyed by the names here. The notes are
listed in the table's order.

Adding a word is one spelling in a row; adding a field is one row, its pattern in the parser's
scan order and its wording in phrases.j2: tests/test_message_codes.py fails while a field, a
choice or a limit has no wording, tests/test_fields.py while a spelling does not read as its
value, tests/test_canonical.py while a row's values do not read back through request.canonical.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from advisor.engine.frameworks import RECOMPUTE_MODULES

# A spelling is a regular expression over the lowercased, NFKC-normalised request in which
# "-" stands for an optional space, dash or underscore (`fine-tune`: "finetune", "fine tune",
# "fine_tune") and " " for any run of spaces. The first spelling of each language is plain
# text: it is how request.canonical writes the value back (English's when Chinese has none).
Spellings = tuple[str, ...]


@dataclass(frozen=True)
class Word:
    """One value and its spellings in English and Chinese (a choice: `lora`; a unit: `weeks` = 7
    days; a key that names the field before its number: `budget`, `预算`)."""

    value: Any = None
    en: Spellings = ()
    zh: Spellings = ()

    def spellings(self, lang: str) -> Spellings:
        return self.zh if lang == "zh" else self.en

    def written(self, lang: str) -> str:
        """How request.canonical writes it in `lang`: the first spelling, English's when the
        language has none."""
        return (self.spellings(lang) or self.en)[0]


NO_WORDS = Word()


@dataclass(frozen=True)
class Field:
    name: str
    # Inclusive limits; `above` is an exclusive lower bound (more than zero).
    low: float | None = None
    high: float | None = None
    above: float | None = None
    whole: bool = False
    # The refusal's wording key in phrases.j2 `bad_value` (fields sharing a limit share a key).
    limit: str | None = None
    # A flag (`hsdp`, `cheapest`): said twice it agrees, so no refusal ever names it.
    flag: bool = False
    # The notes (phrases.j2 `assumption`) left when the value is assumed, by the parser or, for
    # the deadline, the planner (tests/test_message_codes.py: every assumption is one field's).
    assumed: tuple[str, ...] = ()
    # Its words: the keys that name it before a value, the values it takes in words (a key
    # said alone means the first), the units its numbers are written in (their value is what
    # one unit is worth), the signs written before a number (`¥`, `$`).
    keys: Word = NO_WORDS
    choices: tuple[Word, ...] = ()
    units: tuple[Word, ...] = ()
    signs: tuple[Word, ...] = ()
    # Examples `help` lists (each parses as this field; tests/test_fields.py).
    examples: Word = NO_WORDS
    # How a what-if shows its value (advisor/planning/followup.py): days, tokens, epochs, size,
    # money, gpus or plain; and the request's attributes it shows in, where they differ.
    shown: str = "plain"
    shows_in: tuple[str, ...] = ()
    # Whether the answer names its choices in words (phrases.j2 `choice`: `full-finetune`, `Shenzhen`).
    worded: bool = False
    # The words a what-if scales it by (`double the data`, `预算减半`; parser `_relative_change`).
    scaled: Word = NO_WORDS

    def ok(self, value: float) -> bool:
        if self.low is not None and value < self.low:
            return False
        if self.above is not None and value <= self.above:
            return False
        if self.high is not None and value > self.high:
            return False
        return not self.whole or value == int(value)

    def choice(self, value) -> Word:
        return next(c for c in self.choices if c.value == value)

    def unit(self, value) -> Word:
        return next(u for u in self.units if u.value == value)


MAX_DEADLINE_DAYS = 3650
MAX_TOKENS = 1e16
LAYOUT_DEGREE = dict(low=1, high=1024, whole=True, limit="layout")
# A parallel degree's key: `tensor parallel`, `tensor-model-parallel size`, `tensor parallelism degree`.
_PARALLEL = "-(parallel(ism)?|model-parallel)(-(size|degree))?"
_ZH_PARALLEL = "(模型)?并行(度|大小)?"
# Month and year units of the lease term (`3-month lease`) and of own use (`24 months`): the
# same spellings, the first the one each is written with (the value is months).
_MONTHS = ("month", "months", "mo")
_YEARS = ("year", "years", "yr", "yrs")
_TERM_UNITS = (Word(1, en=_MONTHS, zh=("个月", "月")), Word(12, en=_YEARS, zh=("年",)))
_USE_UNITS = (
    Word(1, en=("months", "month", "mo"), zh=("个月", "月")),
    Word(12, en=("years", "year", "yr", "yrs"), zh=("年",)),
)


def _module_spellings(module: str) -> Spellings:
    """A recompute module as Megatron's flag spells it (written back so), then with a dash or a
    space for its underscore."""
    return tuple(dict.fromkeys((module, module.replace("_", "-"))))


# ZeRO-3 as FSDP names it; followed by a number it also gives the data-parallel ranks (`fsdp 64`).
FSDP = ("fsdp", "fsdp2", "fsdp-full-shard", "fsdp2-full-shard")


def _flag(en: Spellings, zh: Spellings = ()) -> tuple[Word, ...]:
    return (Word(True, en=en, zh=zh),)


FIELDS: tuple[Field, ...] = (
    # the model
    Field(
        "params_b",
        low=0.01,
        high=20_000,
        limit="size",
        assumed=("unknown_model", "unknown_moe_model"),
        keys=Word(en=("total",), zh=("总参数量", "总参数", "总参")),
        examples=Word(en=("70B", "671B-A37B"), zh=("70B", "671B-A37B")),
        shown="size",
    ),
    Field(
        "active_params_b",
        above=0,
        limit="active",
        assumed=("active_from_experts",),
        keys=Word(en=("active",), zh=("激活参数", "激活")),
    ),
    Field(
        "model",
        examples=Word(en=("qwen2.5-72b",), zh=("qwen2.5-72b",)),
        assumed=("quantized_checkpoint", "vision_language", "model_as", "teacher_data"),
        shows_in=("model", "params_b", "active_params_b"),
    ),
    Field("unknown_model", shows_in=("params_b", "active_params_b")),
    # words of a whole request that are not the request language's and could not change the plan
    # (advisor/request/parser.py `_may_change_plan`): read past, and said
    # and a range of data, money or size ("30-50GB", "预算5-20万", "7-14B"), planned on its upper end
    Field("read_past", assumed=("read_past", "range_upper", "typo_read"), shows_in=()),
    # Optimizer hyperparameters (`lr 2e-5`, `warmup 100`, `学习率2e-5`): read and left aside, as
    # they change no GPU count, memory or time planned here
    Field("hyperparameters", assumed=("hyperparameters",), shows_in=()),
    # Off-peak, night-time or spot capacity (`off-peak`, `spot`, `闲时`, `竞价`): read and said; the plan
    # keeps the regular rate, and the off-peak price on record shows beside it in the costs
    Field("offpeak", assumed=("offpeak",), shows_in=()),
    # A lease's deposit and payment terms (`押一付三`, `按季付`, `deposit 2 months`): read and said; they
    # change no plan, and `quote` reads them on a vendor's price
    Field("payment_terms", assumed=("payment_terms",), shows_in=()),
    # Where the trained model will run (`私有化部署`, `本地部署`): read and said; the plan sizes the
    # training servers, and buying them is `buy`
    Field("on_premises", assumed=("on_premises",), shows_in=()),
    # A budget to spend by a date (`经费今年必须花完`, `use it or lose it`): read and said; the plan is
    # still what the job needs within it
    Field("spend_by", assumed=("spend_by",), shows_in=()),
    # One cloud named (`on aws`, `阿里云`): its market (dollars abroad, yuan in mainland China) and
    # its own offers, where any deliver the plan (advisor/planning/planner.py); the value is how
    # the price book names the provider (data/reference_prices.toml), matched as a part of it
    Field(
        "cloud",
        assumed=("cloud_named", "cloud_undelivered", "cloud_unpriced"),
        choices=(
            Word("AWS", en=("aws", "amazon-web-services")),
            Word("GCP", en=("gcp", "google-cloud")),
            Word("Azure", en=("azure",)),
            Word("CoreWeave", en=("coreweave",)),
            Word("RunPod", en=("runpod",)),
            Word("Lambda", en=("lambda", "lambda-labs")),
            Word("Oracle", en=("oci", "oracle-cloud", "oracle")),
            Word("Nebius", en=("nebius",)),
            Word("TensorWave", en=("tensorwave",)),
            Word("Hyperstack", en=("hyperstack",)),
            Word("DigitalOcean", en=("digitalocean", "digital-ocean")),
            Word("Voltage Park", en=("voltage-park",)),
            Word("Alibaba", en=("aliyun", "alibaba-cloud"), zh=("阿里云",)),
            Word("Tencent", en=("tencent-cloud",), zh=("腾讯云",)),
            Word("火山引擎", en=("volcengine",), zh=("火山引擎",)),
            Word("华为云", en=("huawei-cloud",), zh=("华为云",)),
            Word("百度", en=("baidu-cloud",), zh=("百度智能云", "百度云")),
            Word("天翼云", en=("ctyun",), zh=("天翼云",)),
            Word("AutoDL", en=("autodl",)),
            # AWS's China regions, billed in yuan by their operators
            Word("AWS China", en=("aws-china",), zh=("亚马逊云",)),
        ),
        examples=Word(en=("on aws", "on coreweave"), zh=("阿里云", "用AutoDL")),
    ),
    # The network the team has: with no speed (`no infiniband`) read and said beside the one the plan
    # needs; with one (`只有25G以太网`, `8x400G IB`, `100Gb/s per GPU`) planned on, Gb/s a server or a GPU
    Field("network_said", assumed=("network_said",), shows_in=()),
    Field(
        "network_gbps", above=0, high=12_800, assumed=("team_network",), shows_in=("network_gbps", "network_per_server")
    ),
    # Servers said to hold fewer GPUs than the catalogue's (`4 servers with 4xA100 each`,
    # `4台服务器每台4张A100`): the GPUs counted, planned on the catalogue's servers, and said so
    Field("server_shape", assumed=("server_shape",), shows_in=()),
    Field("moe", flag=True, choices=_flag(("moe",), ("混合专家",)), shows_in=("active_params_b",)),
    # the method
    Field(
        "method",
        worded=True,
        assumed=(
            "method_default",
            "method_pretrain",
            "method_continued",
            "method_from_rank",
            "method_from_peft",
            "method_from_unsloth",
        ),
        choices=(
            # "qlora 4-bit", "4-bit lora": the 4-bit is QLoRA's own (NF4 base), said alongside
            Word(
                "qlora",
                en=("qlora", "qlora 4-bit", "qlora 4bit", "4-bit qlora", "4bit qlora", "4-bit lora", "4bit lora")
                + ("lora 4-bit", "lora 4bit", "nf4 lora", "lora nf4", "qlora nf4"),
                zh=("4bit量化lora", "4-bit量化lora"),
            ),
            # parameter-efficient fine-tuning, said in words: LoRA, the method PEFT runs by default
            Word(
                "lora",
                en=("lora", "parameter-efficient", "parameter-efficient-fine-tuning"),
                zh=("lora", "参数高效微调"),
            ),
            Word(
                "continued-pretrain",
                en=(
                    "continued-pretrain",
                    "continued-pre-train",
                    "continued-pre-training",
                    "continue-pretrain",
                    "continue-pre-train",
                    "continue-pre-training",
                    "continual-pretrain",
                    "continual-pre-training",
                    "cpt",
                ),
                zh=("继续预训练", "增量预训练", "二次预训练", "持续预训练"),
            ),
            Word(
                "pretrain",
                en=("pretrain", "pre-train", "pre-training", "from-scratch"),
                zh=(
                    "预训练",
                    "从头训练",
                    "从零训练",
                    # `从零训一个1B的小模型`: 训 alone is the verb
                    "从零训",
                    "从头训",
                    "从零开始训",
                    "从头开始训",
                    "从零开始训练",
                    "从头开始训练",
                    "从头预训练",
                    "从零预训练",
                    "从零开始预训练",
                    "从头开始预训练",
                    "从零开始",
                    "从头开始",
                ),
            ),
            Word(
                "full-finetune",
                en=(
                    "full-finetune",
                    "full-fine-tune",
                    "full-fine-tuning",
                    "full-ft",
                    "full-parameter",
                    "full-param",
                    "full-params",
                    "full",
                ),
                zh=("全量微调", "全参数微调", "全参微调", "全参数", "全参", "全量"),
            ),
        ),
        examples=Word(
            en=("pretrain", "cpt", "lora", "qlora"), zh=("预训练", "继续预训练", "全量微调", "LoRA", "QLoRA")
        ),
    ),
    # Preference tuning on top of the method (`dpo`, `7b lora dpo`, `偏好对齐`): a pair's two
    # responses trained together and, for DPO, IPO and KTO, a frozen reference model
    # (advisor/engine/setup.py `reference_forward`, `paired`). ORPO and SimPO have no reference
    # (Hong et al. 2024; Meng et al. 2024); KTO's samples are single responses (Ethayarajh et al. 2024).
    Field(
        "preference_tuning",
        worded=True,
        assumed=(
            "preference_pairs",
            "preference_data",
            "preference_reference",
            "preference_no_reference",
            "reward_head",
        ),
        choices=(
            Word(
                "dpo",
                en=("dpo", "preference-tuning", "preference-optimization", "preference-optimisation", "preference"),
                zh=("偏好对齐", "偏好优化", "偏好训练", "偏好微调", "偏好学习", "偏好"),
            ),
            Word("ipo", en=("ipo",)),
            Word("kto", en=("kto",)),
            Word("orpo", en=("orpo",)),
            Word("simpo", en=("simpo",)),
            # a reward model scores responses with one number: its head replaces the output layer
            Word(
                "reward",
                en=("reward-model", "reward-models", "reward-modeling", "reward-modelling"),
                zh=("奖励模型", "奖励模型训练", "训练奖励模型"),
            ),
        ),
        examples=Word(en=("dpo", "orpo"), zh=("偏好对齐",)),
    ),
    # "fine-tune", "sft", "微调" alone name no method: "LoRA fine-tune" is LoRA; alone they read
    # as full fine-tuning
    Field(
        "finetune",
        flag=True,
        choices=_flag(
            ("sft", "fine-tune", "fine-tuning", "fine-tunes", "ft")
            + ("instruction-tune", "instruction-tuning", "instruction-tuned", "instruct-tune", "instruct-tuning"),
            ("微调", "指令微调"),
        ),
        examples=Word(en=("sft",), zh=("微调",)),
        shows_in=("method",),
    ),
    Field(
        "lora_rank",
        low=1,
        high=4096,
        whole=True,
        limit="lora_rank",
        assumed=("lora_rank",),
        keys=Word(en=("r", "rank", "lora-r", "lora-rank"), zh=("秩",)),
    ),
    # Dropout on each adapter's input (PEFT's lora_dropout; 0 by default, recipes often 0.05-0.1):
    # each adapted module keeps its dropped-out input and mask for the backward
    # (advisor/engine/memory.py `lora_dropout_bytes`).
    Field(
        "lora_dropout",
        low=0,
        high=0.9,  # a sanity cap (assumed): recipes use 0-0.1, and 1 would drop every input
        limit="lora_dropout",
        keys=Word(en=("lora_dropout", "dropout"), zh=("dropout",)),
        examples=Word(en=("lora_dropout=0.05",), zh=("dropout 0.1",)),
    ),
    Field(
        "lora_targets",
        worded=True,
        assumed=("lora_targets",),
        keys=Word(en=("targets", "target")),
        choices=(Word("qv", en=("qv", r"q\+v")), Word("attn", en=("attn", "attention")), Word("all", en=("all",))),
    ),
    # the data
    Field(
        "data",
        above=0,
        high=1e18,
        limit="data",
        assumed=(
            "no_data",
            "bare_k_samples",
            "bytes_per_token",
            "tokens_per_sample",
            "reasoning_tokens_per_sample",
            "chars_per_sample",
            "attention_per_sample",
            "multimodal_tokens",
        ),
        # (kind, what one unit is worth): tokens and samples take a number's scale (`300B`, `5万`)
        units=(
            # Chinese ML users write token: written back as typed, 词元 read too
            Word(("tokens", 1), en=("tokens", "token", "toks", "tok"), zh=("token", "词元")),
            Word(
                ("samples", 1),
                en=(
                    "samples",
                    "sample",
                    "examples",
                    "example",
                    "conversations",
                    "conversation",
                    "convos",
                    "convo",
                    "dialogues",
                    "dialogue",
                    "dialogs",
                    "dialog",
                    "chats",
                    "entries",
                    "pairs",
                    "comparisons",
                    "comparison",
                    "problems",
                    "questions",
                    "tickets",
                    "documents",
                    "articles",
                    "emails",
                    "rows",
                    "row",
                    "records",
                    "record",
                    "instructions",
                    "instruction",
                    "prompts",
                    # distilled reasoning (`20k reasoning traces`, `50k CoT trajectories`): a sample each
                    "traces",
                    "trajectories",
                    "transcripts",
                    # a vision-language model's (`50k image-text pairs`)
                    "image-text pairs",
                    "image-text samples",
                ),
                zh=("条", "个样本", "样本", "条数据", "条样本", "条对话", "条指令", "条问答", "条语料", "组对话")
                + ("篇文档", "篇文章", "篇", "份文档", "对偏好数据", "条偏好数据")
                # documents counted by the copy (`10万份病历`, `5万份合同`): one sample each
                + ("份", "份数据", "份病历", "份合同", "份文书", "份报告")
                # preference pairs counted in groups (`3万组`, `3万组偏好数据`; a bare 对 is also the
                # preposition, "想对qwen做lora": `2万对` is read with the preference words)
                + ("对数据", "组", "组数据", "组偏好数据", "组样本")
                # a dialogue counted in Chinese is one sample, as `100k conversations` is
                + ("对话", "段对话", "个对话", "轮对话", "组对话数据", "条对话数据")
                # a vision-language model's samples (its images are not counted: the `vision_language` note)
                + (
                    "条图文对",
                    "个图文对",
                    "图文对",
                    "对图文",
                    "条图文",
                    "个图文",
                    "张图文",
                    "张图文对",
                    "图文数据",
                    "图文",
                ),
            ),
            # in Chinese a bare `P` needs 数据 or 语料 after it ("1P" alone is no size); a bare `T` is
            # never bytes: "2T 中文数据" is tokens as often as terabytes, and is asked (parser.size)
            Word(("bytes", 1e15), en=("PB",), zh=("PB", "P")),
            Word(("bytes", 1e12), en=("TB",), zh=("TB",)),
            Word(("bytes", 1e9), en=("GB", "G"), zh=("GB", "G")),
            Word(("bytes", 1e6), en=("MB",)),
        ),
        examples=Word(en=("1TB", "300B tokens", "50k samples"), zh=("1TB数据", "3000亿token", "5万条")),
        shown="tokens",
        shows_in=("data", "tokens"),
        scaled=Word(en=("data", "dataset", "tokens"), zh=("数据量", "数据")),
    ),
    # The mean length of the samples a count of samples names (`50k samples avg 2k tokens`); assumed
    # TOKENS_PER_SAMPLE when not said (advisor/request/model.py).
    Field(
        "tokens_per_sample",
        above=0,
        high=1_000_000,
        limit="tokens_per_sample",
        examples=Word(en=("50k samples avg 2k tokens",), zh=("5万条 每条2000 token",)),
        shows_in=("data", "tokens"),
    ),
    Field(
        "data_language",
        choices=(
            Word("en", en=("english",), zh=("英文", "英语")),
            Word("zh", en=("chinese",), zh=("中文",)),
            Word("code", en=("code",), zh=("代码",)),
            # bilingual corpora ("chinese and english data" had been refused as a contradiction
            # of two languages, 中英文 read past)
            Word(
                "zh-en",
                en=("chinese and english", "english and chinese", "chinese-english", "bilingual", "chinese/english"),
                zh=("中英文", "中英", "中英混合", "中英双语", "中英文混合"),
            ),
            # code mixed with a language ("code + english", "代码和中文"): pre-training mixes
            # ("code" and "english" had been refused as a contradiction)
            Word(
                "code-en",
                en=("code and english", "english and code", "code/english", "english/code", "english text and code"),
                zh=("英文和代码", "代码和英文", "英文加代码", "代码加英文", "英文与代码", "代码与英文"),
            ),
            Word(
                "code-zh",
                en=("code and chinese", "chinese and code", "code/chinese", "chinese/code", "chinese text and code"),
                zh=("中文和代码", "代码和中文", "中文加代码", "代码加中文", "中文与代码", "代码与中文"),
            ),
        ),
        examples=Word(en=("chinese data",), zh=("中文数据",)),
        shows_in=("data", "tokens"),
        worded=True,
    ),
    Field(
        "epochs",
        above=0,
        high=1000,
        limit="epochs",
        assumed=("epochs",),
        units=(Word(1, en=("epochs", "epoch", "eps", "ep", "passes", "pass"), zh=("轮", "遍", "个epoch")),),
        examples=Word(en=("3 epochs",), zh=("3轮",)),
        shown="epochs",
        shows_in=("epochs", "tokens"),
    ),
    # time and money
    Field(
        "deadline_days",
        above=0,
        high=MAX_DEADLINE_DAYS,
        limit="deadline",
        assumed=(
            "horizon",
            "deadline_date",
            "start_date",
            "deadline_today",
            "deadline_overnight",
            "deadline_weekend",
            "deadline_range",
        ),
        # the first of each is how request.canonical writes a deadline, days first
        units=(
            Word(1, en=("d", "days", "day"), zh=("天", "日")),
            Word(30, en=("mo", "months", "month", "mos"), zh=("个月", "月")),
            Word(7, en=("w", "weeks", "week", "wks", "wk"), zh=("周", "个星期", "星期", "个礼拜", "礼拜")),
            Word(1 / 24, en=("h", "hours", "hour", "hrs", "hr"), zh=("小时", "个小时")),
            Word(14, en=("fortnight", "fortnights")),
            # a year of 365 days (`1年`, `一年`, `1 year`): a pre-training horizon
            Word(365, en=("years", "year", "yr", "yrs"), zh=("年",)),
        ),
        examples=Word(en=("14d", "2w", "3mo"), zh=("14天", "两周", "3个月")),
        shown="days",
        scaled=Word(en=("deadline", "time"), zh=("期限", "时间", "工期")),
    ),
    Field(
        "budget",
        above=0,
        high=1e12,
        limit="budget",
        # `max budget`, `budget cap`: the budget is a cap whichever way it is said
        # a lab's grant is its budget (`经费10万`, `课题经费`, `grant ¥200k`)
        keys=Word(
            en=("budget", "max-budget", "maximum-budget", "budget-cap", "grant"),
            zh=("预算", "课题经费", "项目经费", "科研经费", "经费"),
        ),
        # a currency said after the amount, and the sign before it
        units=(
            Word("CNY", en=("cny", "rmb", "yuan"), zh=("元", "人民币", "块")),
            Word("USD", en=("usd", "dollars", "dollar", "bucks"), zh=("美元", "美金", "美刀")),
        ),
        signs=(Word("CNY", en=("¥",)), Word("USD", en=("$",))),
        examples=Word(en=("budget ¥500k", "$200k"), zh=("预算50万", "预算20万美元")),
        shown="money",
        assumed=("budget_monthly",),
        scaled=Word(en=("budget",), zh=("预算",)),
    ),
    Field(
        "currency",
        assumed=("currency", "place_global"),
        # a US team's own words for dollars on the global market: `in dollars`, `US market`
        choices=(
            Word("CNY", en=("cny", "rmb", "yuan", "in yuan"), zh=("人民币",)),
            Word(
                "USD",
                en=("usd", "dollars", "in dollars", "us dollars", "us market", "us-market"),
                zh=("美元",),
            ),
        ),
        examples=Word(en=("usd",), zh=("美元",)),
    ),
    Field(
        "lease_term_months",
        low=1,
        high=120,
        whole=True,
        limit="lease_term",
        # the words after a term: `3-month lease`, `1个月起租` (the parser has those before it)
        # (`1yr reserved`, `3-year commitment`: a cloud's reservation is a term of the same kind)
        keys=Word(
            en=("lease", "term", "contract", "minimum", "reserved", "reservation", "commitment", "commit", "committed"),
            zh=("起租", "租期", "合约", "闭口"),
        ),
        units=_TERM_UNITS,
        # a term in one word: `monthly`, `包年`
        choices=(
            Word(1, en=("monthly", "month-to-month"), zh=("包月", "月租", "按月租", "按月")),
            Word(12, en=("yearly", "annual", "annually"), zh=("包年", "年租", "按年租", "按年", "年付")),
        ),
        examples=Word(en=("1-month lease", "yearly"), zh=("1个月起租", "包年")),
    ),
    Field(
        "rent_or_buy",
        worded=True,
        choices=(
            Word(
                "rent",
                en=("rent", "rental", "lease", "renting", "rented", "leasing", "leased"),
                zh=("租用", "租赁", "租") + ("租服务器", "租用服务器", "租机器"),
            ),
            Word(
                "buy",
                en=("buy", "purchase", "buying", "bought", "purchased")
                + ("buy-servers", "buy-the-servers", "buying-servers", "purchase-servers", "buy-our-own-servers"),
                zh=("购买", "自购", "采购", "买") + ("买服务器", "购买服务器", "采购服务器", "自购服务器", "买机器"),
            ),
        ),
        examples=Word(en=("rent", "buy"), zh=("租", "买")),
    ),
    # `pay as you go`, `按量付费`: priced on hourly offers only, never a lease (issue 21's terms aside)
    Field(
        "hourly_only",
        flag=True,
        choices=_flag(
            ("pay-as-you-go", "on-demand", "hourly-billing", "billed-hourly", "by-the-hour", "hourly-only", "hourly")
            + ("by-hour", "hourly-rental", "rented-by-the-hour", "per-hour-billing"),
            ("按量付费", "按量计费", "按小时计费", "按小时付费", "按量", "按小时租", "按小时", "按需付费", "按需计费"),
        ),
        examples=Word(en=("pay as you go",), zh=("按量付费",)),
    ),
    # `every month`, `每个月都要`: the job is a run repeated monthly; owning is weighed at that run's
    # share of each month (advisor/planning/costs.py), the plan is one run
    Field(
        "recurring",
        flag=True,
        assumed=("recurring",),
        choices=_flag(
            ("every-month", "each-month", "every-month-run", "monthly-runs", "a-run-every-month", "once-a-month")
            + ("monthly-retraining", "retrain-monthly", "retrain-every-month"),
            (
                "每个月都要",
                "每月都要",
                "每个月都",
                "每月都",
                "每月一次",
                "每个月一次",
                "每月训练一次",
                "每个月训练一次",
                # "每月大约20GB新数据": the month's new data, trained on each month
                "每月大约",
                "每月约",
                "每月大概",
                "每月新增",
                "每个月大约",
                "每个月新增",
            ),
        ),
        examples=Word(en=("every month",), zh=("每个月都要",)),
    ),
    # `in our lab`, `放实验室`, `不用托管`: servers the team buys stand in its own room; no colocation
    # fee is counted in owning them (advisor/planning/costs.py)
    Field(
        "own_room",
        flag=True,
        assumed=("own_room",),
        choices=_flag(
            ("in-our-lab", "in-our-office", "our-own-server-room", "own-server-room", "our-own-room", "in-our-own-room")
            + ("our-own-machine-room", "our-server-room", "no-colocation", "no-colo", "without-colocation"),
            ("放实验室", "放在实验室", "放实验室里", "放在实验室里", "放办公室", "放在办公室", "自己机房", "自有机房")
            + ("实验室机房", "学校机房", "不用托管", "不托管", "不需要托管", "无需托管"),
        ),
        examples=Word(en=("in our lab",), zh=("放实验室",)),
    ),
    # `second-hand`, `二手3090`: the cards are used ones; planned as new ones run and priced as new on
    # record, said (had been refused at 二手)
    Field(
        "used_gpus",
        flag=True,
        assumed=("used_gpus",),
        choices=_flag(
            ("second-hand", "secondhand", "refurbished", "pre-owned", "used-gpus", "used-cards"),
            ("二手", "翻新", "拆机"),
        ),
        examples=Word(en=("second-hand",), zh=("二手",)),
    ),
    # `electricity $0.12/kWh`, `电费0.6元/度`: the power price servers the team owns are run at (in
    # place of its region's on record; advisor/planning/costs.py)
    Field(
        "power_price",
        above=0,
        high=10,
        assumed=("power_price",),
        keys=Word(en=("electricity", "power"), zh=("电费", "电价")),
        examples=Word(en=("electricity $0.12/kWh",), zh=("电费0.6元/度",)),
    ),
    # `electricity is free`, `电费学校出`: the team pays no power bill for servers it owns
    Field(
        "power_paid",
        flag=True,
        assumed=("power_paid",),
        choices=_flag(
            ("free-electricity", "free-power", "electricity-is-free", "power-is-free", "no-electricity-bill")
            + ("no-power-bill", "electricity-is-paid-for", "power-is-paid-for", "university-pays-the-electricity")
            + ("university-pays-electricity", "school-pays-the-electricity", "school-pays-electricity"),
            ("电费学校出", "学校出电费", "电费学校承担", "学校承担电费", "电费由学校出", "电费由学校承担", "电费单位出")
            + ("单位出电费", "电费公司出", "公司出电费", "电费不用我们出", "电费不用出", "不用出电费", "不用付电费")
            + ("电费不算", "免电费", "电费免费"),
        ),
        examples=Word(en=("free electricity",), zh=("电费学校出",)),
    ),
    Field(
        "own_use_months",
        low=1,
        high=120,
        limit="own_use",
        keys=Word(
            en=(
                "keep it busy",
                "keep them busy",
                "keep the cluster busy",
                "keep the servers busy",
                "keep the gpus busy",
                "use it",
                "use them",
                "own use",
                # buying must pay back within the months said: the use it is weighed over
                "pays back within",
                "pays back in",
                "pay back within",
                "pay back in",
                "payback within",
                "payback period of",
                "payback period",
                "payback of",
                "breaks even within",
                "break even within",
            ),
            zh=("用", "使用", "自用", "回本周期", "回本期"),
        ),
        units=_USE_UNITS,
        examples=Word(en=("keep it busy 24 months",), zh=("用两年",)),
    ),
    Field(
        "own_utilisation",
        low=0.05,
        high=1,
        limit="own_utilisation",
        keys=Word(en=("use", "used", "busy", "utilisation", "utilization"), zh=("利用率", "使用率")),
        examples=Word(en=("60% use",), zh=("利用率60%",)),
    ),
    Field(
        "cost_first",
        flag=True,
        choices=_flag(
            (
                "cheapest",
                "cheap",
                "cost",
                "tight-budget",
                "limited-budget",
                "low-budget",
                "budget is tight",
                "no rush",
                "no hurry",
                "not urgent",
                "not in a hurry",
                # a preference said as a comparison
                "cost is more important than speed",
                "cost matters more than speed",
                "price matters more than speed",
                "price is more important than speed",
                "money matters more than time",
                "cost over speed",
            ),
            (
                "最省",
                "便宜",
                "省钱",
                "预算有限",
                "预算紧张",
                "预算不多",
                "成本优先",
                "经费有限",
                "经费紧张",
                "钱不多",
                "不着急",
                "不急",
                "不赶时间",
                "慢慢来",
                "成本比速度重要",
                "省钱比速度重要",
                "价格比速度重要",
            ),
        ),
        examples=Word(en=("budget",), zh=("预算",)),
    ),
    Field(
        "speed_first",
        flag=True,
        choices=_flag(
            (
                "fastest",
                "fast",
                "speed",
                "asap",
                "urgent",
                "speed-first",
                "as-soon-as-possible",
                "as fast as possible",
                "money is no object",
                "money no object",
                "time matters more than money",
            ),
            (
                *("尽快", "最快", "加急", "越快越好", "越早越好", "速度优先", "很急", "急用", "钱不是问题", "不差钱"),
                *("速度比成本重要", "时间比钱重要"),
                # an unlimited budget is money no object ("预算不限" had been refused as a negation)
                *("预算不限", "预算不设上限", "预算不设限", "预算无上限", "预算不封顶"),
            ),
        ),
        examples=Word(en=("fast",), zh=("尽快",)),
    ),
    # the hardware
    Field(
        "gpu",
        examples=Word(en=("gpu H20",), zh=("用H20",)),
        shown="gpus",
        assumed=("domestic_gpu", "gpu_variant", "gpu_proxy", "instance_read"),
    ),
    Field(
        "gpu_count",
        low=1,
        high=200_000,
        whole=True,
        limit="gpu_count",
        # a bare 张 counts GPUs too (`A800 64张`), not pictures (`5000张图片`) nor begins 张量 (tensor)
        units=(Word(1, en=("GPUs", "GPU", "cards", "card"), zh=("卡", "张卡", "块卡", "张(?![图照量])")),),
        examples=Word(en=("on 8xH800",), zh=("8卡H800",)),
        shown="gpus",
    ),
    # bounds on the count the planner chooses: `up to 64 GPUs`, `64卡以内`; `at least 16 GPUs`, `16卡以上`
    Field("max_gpus", low=1, high=200_000, whole=True, limit="gpu_count", shown="gpus"),
    Field("min_gpus", low=1, high=200_000, whole=True, limit="gpu_count", shown="gpus"),
    Field(
        "nodes",
        low=1,
        high=25_000,
        whole=True,
        limit="nodes",
        units=(
            Word(
                1,
                en=("nodes", "node", "servers", "server", "machines", "machine", "boxes", "box"),
                zh=("台服务器", "台机器", "台节点", "个节点", "节点", "机", "台"),
            ),
        ),
        examples=Word(en=("on 2 nodes of H800",), zh=("2台服务器 H800",)),
        shown="gpus",
        shows_in=("gpu_count",),
    ),
    # `we already own 16 A100`, `我们有16张A800`: the team's own GPUs; rent and purchase are only
    # compared (the parser reads it before the GPUs it names: advisor/request/parser.py `_owned`)
    Field("owned", flag=True, assumed=("owned",), choices=_flag(("our-own-gpus", "in-house-gpus"), ("自有显卡",))),
    # `one server only`, `单机`: the plan stays inside one server (no inter-server fabric to rent)
    Field(
        "one_server",
        flag=True,
        choices=_flag(
            ("one-server-only", "single-server", "single-node", "one-server", "one-node", "single-machine")
            + ("one-machine", "one-box", "single-box", "single-host", "one-host"),
            ("单机", "单台服务器", "单节点"),
        ),
        examples=Word(en=("one server only",), zh=("单机",)),
    ),
    # `nvlink`, `需要NVLink`: only GPUs with NVLink between them (a server's NVLink domain over one card;
    # the planner's open search leaves the PCIe cards out)
    Field(
        "nvlink",
        flag=True,
        choices=_flag(
            ("nvlink", "nvlink-only", "with-nvlink", "need-nvlink", "needs-nvlink", "require-nvlink"),
            ("nvlink", "需要nvlink", "要nvlink", "带nvlink", "有nvlink", "必须nvlink"),
        ),
        examples=Word(en=("nvlink",), zh=("需要NVLink",)),
    ),
    # `infiniband`, `roce`, `IB网络`: the fabric between servers the team wants (rent prefers offers on it)
    Field(
        "fabric",
        worded=True,
        choices=(
            Word("ib", en=("infiniband", "ib-network", "ib"), zh=("ib网络", "ib组网", "infiniband网络")),
            Word("roce", en=("roce", "rocev2", "roce-v2"), zh=("roce网络", "roce组网", "以太网组网")),
        ),
        examples=Word(en=("infiniband",), zh=("IB网络",)),
    ),
    Field(
        "city",
        worded=True,
        assumed=("market_china", "market_from_budget", "market_kept_chinese"),
        keys=Word(en=("city",)),
        choices=(
            Word("shenzhen", en=("shenzhen",), zh=("深圳",)),
            Word("chengdu", en=("chengdu",), zh=("成都",)),
            Word("beijing", en=("beijing",), zh=("北京",)),
            Word("shanghai", en=("shanghai",), zh=("上海",)),
            Word("guangzhou", en=("guangzhou",), zh=("广州",)),
            Word("hangzhou", en=("hangzhou",), zh=("杭州",)),
        ),
        examples=Word(en=("city shenzhen",), zh=("深圳", "成都")),
    ),
    # the training setup
    Field(
        "precision",
        assumed=("precision_bf16", "precision_fp16", "fp32_matmuls"),
        choices=(
            Word("pure-bf16", en=("pure-bf16",), zh=("纯bf16",)),
            Word("bf16", en=("bf16",)),
            Word("fp16", en=("fp16",)),
            Word("fp8", en=("fp8",)),
            Word("fp32", en=("fp32",)),
        ),
        examples=Word(en=("bf16", "fp8")),
    ),
    # fp32 matmuls on TF32 tensor cores (torch.backends.cuda.matmul.allow_tf32, HF Trainer's
    # tf32=True); PyTorch leaves it off by default since 1.12, so plain fp32 runs at the FP32 rate
    Field("tf32", flag=True, choices=_flag(("tf32", "allow-tf32", "allow_tf32"))),
    Field(
        "optimizer",
        assumed=("optimizer",),
        choices=(
            Word(
                "adamw8bit",
                en=("adamw8bit", "(paged-)?adamw?-8-bits?", "(paged-)?8-bits?-adamw?"),
            ),
            Word("adamw", en=("adamw", "adam")),
            Word("lion", en=("lion",)),
            Word("sgd", en=("sgd",)),
        ),
        examples=Word(en=("adamw8bit",)),
    ),
    Field(
        "opt_in_backward",
        flag=True,
        choices=_flag(("opt-in-bwd", "optimizer-in-backward", "fused-optimizer")),
    ),
    # The stack compiles the model (torch.compile) or otherwise fuses its elementwise operators:
    # norms, activations and residual adds then pass over memory once, as Megatron-Core's fused
    # kernels do (advisor/engine/roofline.py UNFUSED_PASSES)
    # Liger's kernels (LLaMA-Factory's enable_liger_kernel, ms-swift's --use_liger_kernel) fuse the
    # norms, RoPE, SwiGLU and the loss: planned as a compiled model
    Field(
        "compile",
        flag=True,
        choices=_flag(
            (
                "compile",
                "torch.compile",
                "torch-compile",
                "compiled",
                "liger",
                "liger-kernels?",
                "(--)?(use|enable)-liger-kernels?",
            ),
            ("编译", "开编译", "开liger", "开liger内核"),
        ),
    ),
    # The stack replays CUDA graphs: Megatron-Core's --cuda-graph-impl local|transformer_engine (and
    # its older --enable-cuda-graph / --external-cuda-graph), NeMo's enable_cuda_graph; the host's
    # launch jitter leaves the step (advisor/engine/throughput.py JITTER_LEFT_BY_GRAPHS)
    Field(
        "cuda_graphs",
        flag=True,
        choices=_flag(
            (
                "cuda-graphs",
                "cuda-graph",
                "cudagraphs?",
                "(--)?(enable|external)-cuda-graphs?",
                "(--)?cuda-graph-impl[= ]+(local|transformer-engine|full-iteration)",
                "(--)?cuda-graph-scope[= ]+(full-iteration|full|attn|mlp|moe-router|moe-preprocess|moe|mamba)"
                "( (attn|mlp|moe-router|moe-preprocess|moe|mamba))*",
            ),
            ("CUDA图", "cuda图", "CUDA Graph"),
        ),
    ),
    # The loss runs over chunks of the logits (torchtune's CEWithChunkedOutputLoss, Liger's fused
    # linear cross entropy) instead of upcasting them all to fp32 at once
    # (advisor/engine/memory.py EAGER_LOSS_BYTES)
    Field(
        "chunked_loss",
        flag=True,
        choices=_flag(
            ("chunked-loss", "chunked-ce", "chunked-cross-entropy", "fused-linear-cross-entropy"),
            ("分块损失", "分块交叉熵"),
        ),
    ),
    # QLoRA on bitsandbytes before 0.43.2, which kept every 4-bit layer's input for backward
    # (advisor/engine/memory.py `linear_inputs_kept`); litgpt pinned 0.42.0 through 2024
    Field(
        "old_bitsandbytes",
        flag=True,
        choices=_flag(
            (
                "old-bitsandbytes",
                "(old|legacy)-(bnb|bitsandbytes)",
                r"(bnb|bitsandbytes)-0\.(3\d|40|41|42|43\.0|43\.1)(\.\d+)?",
            ),
            ("旧版bitsandbytes", "旧版bnb"),
        ),
    ),
    # litgpt before 0.5.0, whose QLoRA had not yet swapped in bitsandbytes' StableEmbedding
    # (advisor/engine/memory.py `swapped_embedding_bytes`); the word names the stack too
    Field(
        "old_litgpt",
        flag=True,
        choices=_flag(("litgpt-0.4", r"(litgpt|lit-gpt)-0\.[0-4](\.\d+)?"), ("旧版litgpt",)),
    ),
    # transformers before 5.0, whose MoE blocks loop over the experts in Python (advisor/engine/
    # throughput.py EAGER_EXPERT_OPS); transformers 5 runs them as grouped GEMMs (grouped_mm)
    Field(
        "old_transformers",
        flag=True,
        choices=_flag(
            (
                "old-transformers",
                "legacy-transformers",
                # not a deadline's number (`with transformers 4 days`)
                r"transformers-v?4(\.\d+)*(\.x)?(?!\s*(?:(?:days?|d|weeks?|w|hours?|h|months?|mo)(?![a-z])|天|周|小时|个月))",
                r"transformers<5(\.0)*",
                "experts-(impl|implementation)[= ]+eager",
                "--experts_impl[= ]+eager",
            ),
            ("旧版transformers", r"transformers-?v?4(\.\d+)*(?!\s*(?:天|周|小时|个月|d(?![a-z])))"),
        ),
    ),
    # DeepSpeed ZeRO-3 without the MoE block set as a leaf module: each expert projection fetched
    # apart (advisor/engine/throughput.py ZERO3_MODULE_FETCH_S); ms-swift before 3.9.0 ran so
    Field(
        "no_z3_leaf",
        flag=True,
        choices=_flag(
            ("no-z3-leaf", "no-zero3-leaf", "no-leaf-module", "without-z3-leaf"),
            ("无z3叶子模块", "无叶子模块"),
        ),
    ),
    Field(
        "seq_len",
        low=16,
        high=10_000_000,
        limit="seq_len",
        assumed=("seq_len", "seq_from_samples"),
        keys=Word(
            # with the trainers' own argument names (HF's max_seq_length, LLaMA-Factory's cutoff_len,
            # ms-swift's max_length): "max seq len 32768" had been refused on "max"
            en=(
                "seq",
                "sequence",
                "seq-len",
                "seq-length",
                "sequence-len",
                "sequence-length",
                "context",
                "ctx",
                "max-seq-len",
                "max-seq-length",
                "max-sequence-length",
                "max-length",
                "max-len",
                "cutoff-len",
            ),
            zh=("序列长度", "序列", "上下文长度", "上下文"),
        ),
        examples=Word(en=("seq 4096",), zh=("序列长度4096",)),
    ),
    Field(
        "micro_batch",
        low=1,
        high=4096,
        limit="micro_batch",
        keys=Word(
            # HF Trainer's and DeepSpeed's names for it too
            en=(
                "mbs",
                "micro-batch",
                "micro-batch-size",
                "per-device-(train-)?batch-size",
                "per-gpu-batch(-size)?",
                "train-micro-batch-size-per-gpu",
            ),
            zh=("微批", "单卡批大小", "每卡批大小"),
        ),
        examples=Word(en=("mbs 2",)),
    ),
    # micro-batches a data-parallel rank accumulates a step (HF Trainer's
    # gradient_accumulation_steps, NeMo's GA): the global batch is dp x mbs x ga
    Field(
        "grad_accum",
        low=1,
        high=4096,
        whole=True,
        limit="grad_accum",
        keys=Word(
            en=(
                "ga",
                "grad-accum(-steps)?",
                "gradient-accumulation(-steps)?",
                "grad-accumulation(-steps)?",
                "accumulation-steps",
            ),
            zh=("梯度累积", "梯度累加", "梯度累计"),
        ),
        examples=Word(en=("ga 8",), zh=("梯度累积8",)),
    ),
    Field(
        "global_batch",
        low=1,
        high=10_000_000,
        limit="global_batch",
        keys=Word(
            en=("gbs", "global-batch", "global-batch-size", "batch", "batch-size", "bs"),
            zh=("全局批", "全局批大小", "全局批量", "批大小"),
        ),
    ),
    Field(
        "zero_stage",
        choices=(
            Word(3, en=("zero3", "zero-3", "zero-stage-3", *FSDP)),
            Word(2, en=("zero2", "zero-2", "zero-stage-2")),
            Word(1, en=("zero1", "zero-1", "zero-stage-1")),
            Word(0, en=("zero0", "zero-0", "zero-stage-0", "ddp")),
        ),
        examples=Word(en=("zero3",)),
    ),
    Field(
        "tp",
        **LAYOUT_DEGREE,
        keys=Word(en=("tp", "tensor" + _PARALLEL), zh=("张量并行", "张量" + _ZH_PARALLEL)),
        examples=Word(en=("tp 8",), zh=("张量并行8",)),
    ),
    Field(
        "pp",
        **LAYOUT_DEGREE,
        keys=Word(en=("pp", "pipeline" + _PARALLEL), zh=("流水线并行", "流水线" + _ZH_PARALLEL, "流水" + _ZH_PARALLEL)),
        examples=Word(en=("pp 4",), zh=("流水线并行4",)),
    ),
    # `expert parallel` is written out: `ep` after a number is epochs (`3 ep`)
    Field(
        "ep",
        **LAYOUT_DEGREE,
        keys=Word(en=("expert parallel", "ep", "expert" + _PARALLEL), zh=("专家并行", "专家" + _ZH_PARALLEL)),
    ),
    # expert tensor parallel: ranks each expert's matrices split over (Megatron-Core's
    # --expert-tensor-parallel-size); `expert tp` is read before `tp`, the longer word first
    Field(
        "etp",
        **LAYOUT_DEGREE,
        keys=Word(
            en=("etp", "expert tp", "expert-tp", "expert-tensor" + _PARALLEL),
            zh=("专家张量并行", "专家张量" + _ZH_PARALLEL),
        ),
    ),
    Field(
        "vpp",
        **LAYOUT_DEGREE,
        keys=Word(
            # NeMo's tables call it VP
            en=("vpp", "vp", "virtual-(pipeline|pp)(-(stages?|size|degree))?"),
            zh=("虚拟流水线并行", "虚拟流水线" + _ZH_PARALLEL),
        ),
    ),
    # the data-parallel ranks (`dp 8`; `fsdp 64` is ZeRO-3 over 64 ranks): up to a GPU count
    Field(
        "dp",
        low=1,
        high=200_000,
        whole=True,
        limit="layout",
        keys=Word(en=("dp", "data" + _PARALLEL), zh=("数据并行", "数据" + _ZH_PARALLEL)),
    ),
    Field(
        "cp", **LAYOUT_DEGREE, keys=Word(en=("cp", "context" + _PARALLEL), zh=("上下文并行", "上下文" + _ZH_PARALLEL))
    ),
    # HSDP: sharded inside a server, replicated across servers (FSDP2's 2-D device mesh)
    Field("hsdp", flag=True, choices=_flag(("hsdp",), ("混合分片",))),
    Field(
        "offload",
        keys=Word(en=("offload", "cpu-offload"), zh=("卸载", "cpu卸载")),
        choices=(
            Word("optimizer", en=("optimizer", "opt")),
            Word("all", en=("all", "everything", "params"), zh=("全部",)),
        ),
        examples=Word(en=("offload",), zh=("卸载",)),
    ),
    Field(
        "recompute",
        keys=Word(
            en=("recompute", "activation-checkpointing", "gradient-checkpointing", "grad-ckpt"),
            zh=("重计算", "激活重计算", "梯度检查点", "激活检查点"),
        ),
        # Chinese says the choice first (全量重计算, 选择性重计算, 不重计算)
        choices=(
            Word("full", en=("full", "on"), zh=("全量", "完全", "全部")),
            Word("selective", en=("selective",), zh=("选择性", "选择")),
            Word("none", en=("none", "off"), zh=("不做", "不", "关闭", "无")),
        ),
        examples=Word(en=("recompute full",), zh=("重计算",)),
    ),
    # What Megatron-Core's selective recompute recomputes (--recompute-modules; Megatron-Core's
    # default is core_attn alone): `recompute-modules core_attn mlp`, `recompute selective
    # core_attn`, `重计算模块core_attn`. Several may be named: each choice is one, its value a
    # 1-tuple, and the request keeps them in the engine's order (frameworks.RECOMPUTE_MODULES).
    Field(
        "recompute_modules",
        keys=Word(en=("recompute-modules", "recompute-module"), zh=("重计算模块", "选择性重计算模块")),
        choices=tuple(Word((m,), en=_module_spellings(m), zh=_module_spellings(m)) for m in RECOMPUTE_MODULES),
        examples=Word(en=("recompute-modules core_attn",), zh=("重计算模块core_attn",)),
    ),
    # Megatron-Core's block recompute (--recompute-method block --recompute-num-layers N): the first
    # N layers of each pipeline stage, of each model chunk with virtual stages, recomputed whole,
    # the others keeping all their activations (megatron/core/transformer/transformer_block.py
    # _checkpointed_forward); `recompute 21 layers`, `重计算21层` too (advisor/engine/layout.py
    # recomputed_share). It makes the recompute full.
    Field(
        "recompute_layers",
        low=1,
        high=1000,
        whole=True,
        limit="recompute_layers",
        keys=Word(en=("recompute-layers",), zh=("重计算层数",)),
        examples=Word(en=("recompute-layers 21",), zh=("重计算层数21",)),
    ),
    # The dtype gradients are accumulated and reduced in: `grads fp32` keeps fp32 (the default),
    # `grads bf16` halves Megatron's main_grad buffer and the gradient traffic, as NVIDIA's
    # performance recipes run; a choice is always said with it (`bf16 grads` too)
    Field(
        "grad_reduce",
        keys=Word(
            en=(
                "grads",
                "gradients",
                "grad-reduce(-dtype)?",
                "gradient-reduce(-dtype)?",
                "grad(ient)?-reduction",
                "grad-dtype",
            ),
            zh=("梯度规约", "梯度精度", "梯度"),
        ),
        choices=(
            Word("fp32", en=("fp32", "float32"), zh=("fp32", "float32")),
            Word("bf16", en=("bf16", "bfloat16"), zh=("bf16", "bfloat16")),
        ),
        examples=Word(en=("grads bf16",), zh=("梯度规约bf16",)),
    ),
    # The dtype AdamW's two moments are kept in: `moments bf16` (`bf16 moments`, a pasted
    # `--exp-avg-dtype bf16`, `优化器状态bf16`) is Megatron-Core's precision-aware optimizer, 2 bytes
    # a moment beside the fp32 master weights; `moments fp32` says the default
    Field(
        "moments",
        keys=Word(
            en=(
                "moments",
                "adam-moments",
                "adamw-moments",
                "optimizer-moments",
                "optimizer-states?",
                "exp-avg(-sq)?-dtype",
            ),
            zh=("优化器状态", "优化器动量", "adam动量", "动量"),
        ),
        choices=(
            Word("fp32", en=("fp32", "float32"), zh=("fp32", "float32")),
            Word("bf16", en=("bf16", "bfloat16"), zh=("bf16", "bfloat16")),
        ),
        examples=Word(en=("moments bf16",), zh=("优化器状态bf16",)),
    ),
    # The attention kernels the team runs: FlashAttention-2 (`attention fa2`, HF's
    # flash_attention_2) runs attention at about half the speed of the kernels written for
    # Hopper and newer; `fa3` (FlashAttention-3, cuDNN, Transformer Engine) is the default said
    # aloud. Either may be said alone.
    Field(
        "attention",
        keys=Word(
            en=("attention", "attn", "attention-kernels?", "attention-backend"),
            zh=("注意力算子", "注意力内核", "注意力"),
        ),
        choices=(
            Word(
                "fa2",
                en=("fa2", "flash-attn-2", "flash-attention-2", "flashattention-2", "flash-attn2"),
                zh=("fa2", "flash-attn-2", "flash-attention-2", "flashattention-2"),
            ),
            Word(
                "fa3",
                en=(
                    "fa3",
                    "flash-attn-3",
                    "flash-attention-3",
                    "flashattention-3",
                    "cudnn",
                    "te",
                    "transformer-engine",
                ),
                zh=("fa3", "flash-attn-3", "flash-attention-3", "flashattention-3", "cudnn", "te"),
            ),
        ),
        examples=Word(en=("attention fa2",), zh=("注意力fa2",)),
    ),
    # Megatron-Core's MoE token dispatcher (--moe-token-dispatcher-type): `alltoall`, or `flex` on
    # DeepEP/HybridEP (advisor/engine/frameworks.py `token_dispatcher`); keyed, or DeepEP's and
    # HybridEP's own names alone.
    Field(
        "dispatcher",
        assumed=("dispatcher",),
        keys=Word(
            en=("dispatcher", "token-dispatcher", "moe-token-dispatcher(-type)?", "moe-dispatcher"),
            zh=("分发器", "词元分发器", "token分发器"),
        ),
        choices=(
            Word(
                "alltoall",
                en=("alltoall", "all-to-all", "a2a", "all2all"),
                zh=("alltoall", "all-to-all", "a2a"),
            ),
            Word("flex", en=("flex", "deepep", "hybridep"), zh=("flex", "deepep", "hybridep")),
        ),
        examples=Word(en=("dispatcher alltoall", "deepep"), zh=("分发器alltoall",)),
    ),
    # The training stack the team runs (advisor/engine/frameworks.py `framework_for`): the layout
    # search then tries only what that stack runs, and plans its kernels and memory. Said alone
    # (`deepspeed`, `llama-factory`) or keyed (`framework megatron`, `框架deepspeed`).
    Field(
        "stack",
        assumed=("stack", "stack_kept", "stack_over_peft", "stack_unsloth"),
        keys=Word(en=("framework", "stack", "training-framework"), zh=("训练框架", "框架")),
        choices=(
            Word(
                "megatron",
                en=("megatron", "megatron-lm", "megatron-core", "mcore", "megatron-bridge", "nemo"),
                zh=("megatron", "megatron-lm", "megatron-core", "nemo"),
            ),
            Word("deepspeed", en=("deepspeed",), zh=("deepspeed",)),
            Word(
                "hf",
                en=(
                    "hf",
                    "huggingface",
                    "hugging-face",
                    "transformers",
                    "trl",
                    "accelerate",
                    "torchtune",
                    "llama-factory",
                    "llamafactory",
                    # ms-swift's `swift sft` and XTuner train on HF Transformers (with PEFT, DeepSpeed)
                    "ms-swift",
                    "xtuner",
                    "axolotl",
                    # Unsloth: HF + PEFT/TRL with its own kernels, planned as HF and said (`stack_unsloth`):
                    # LLaMA-Factory's wiki, Performance comparison (2024-04-15), LLaMA 2 7B LoRA on one
                    # GPU: Unsloth+FA2 4,007 tokens/s a GPU and 16 GB against HF+FA2 2,954 and 17 GB
                    "unsloth",
                    # Hugging Face's PEFT library; alone it names a LoRA run too (`method_from_peft`)
                    "peft",
                ),
                zh=(
                    "hf",
                    "peft",
                    "huggingface",
                    "transformers",
                    "trl",
                    "torchtune",
                    "llama-factory",
                    "llamafactory",
                    "ms-swift",
                    "xtuner",
                    "unsloth",
                ),
            ),
            Word("torchtitan", en=("torchtitan",), zh=("torchtitan",)),
            Word("litgpt", en=("litgpt", "lit-gpt"), zh=("litgpt",)),
        ),
        examples=Word(en=("deepspeed", "framework megatron"), zh=("框架deepspeed",)),
    ),
    Field(
        "lang",
        keys=Word(en=("lang",)),
        choices=(Word("en", en=("en",)), Word("zh", en=("zh",))),
        examples=Word(en=("lang zh",), zh=("lang en",)),
    ),
)

BY_NAME = {f.name: f for f in FIELDS}


def field(name: str) -> Field:
    return BY_NAME[name]


# The parallel degrees a user may fix, in the order request.canonical writes them.
DEGREES = ("tp", "pp", "ep", "etp", "vpp", "cp", "dp")
# The words before a lease term's number (`lease of 3 months`, `租3个月`); its row's keys are
# the words after it (`3-month lease`, `3个月起租`).
# The clouds of mainland China's market (prices in yuan); the others sell in the global one.
CHINA_CLOUDS = frozenset({"Alibaba", "Tencent", "火山引擎", "华为云", "百度", "天翼云", "AutoDL", "AWS China"})

LEASE_LEAD = Word(en=("lease", "term"), zh=("租期", "起租", "租", "合约", "签", "包"))

# The order notes are listed in (the "Assumed" lines): the model, the sequence, the data, the
# method, the numerics, the money; then any the planner adds.
NOTE_ORDER = (
    *field("read_past").assumed,
    *field("hyperparameters").assumed,
    *field("offpeak").assumed,
    *field("payment_terms").assumed,
    *field("on_premises").assumed,
    *field("spend_by").assumed,
    *field("cloud").assumed,
    *field("network_said").assumed,
    *field("network_gbps").assumed,
    *field("server_shape").assumed,
    *field("params_b").assumed,
    *field("active_params_b").assumed,
    *field("model").assumed,
    *field("seq_len").assumed,
    *field("data").assumed,
    *field("epochs").assumed,
    *field("method").assumed,
    *field("preference_tuning").assumed,
    *field("lora_rank").assumed,
    *field("lora_targets").assumed,
    *field("precision").assumed,
    *field("optimizer").assumed,
    "stack_unsloth",  # the parser's; the planner adds the stack's other notes after these
    *field("owned").assumed,
    *field("recurring").assumed,
    *field("own_room").assumed,
    *field("power_paid").assumed,
    *field("power_price").assumed,
    *field("used_gpus").assumed,
    *field("gpu").assumed,
    *field("budget").assumed,
    *field("currency").assumed,
    *field("city").assumed,
    *field("deadline_days").assumed,
)


def bounds(limit: str) -> dict:
    """The limits a refusal of `limit` states (phrases.j2 `bad_value`), from its first field;
    none for a limit the table lacks (its wording is missing too, and says so)."""
    row = next((f for f in FIELDS if f.limit == limit), Field(limit))
    return {"low": row.low, "high": row.high}


# The groups `help` lists the examples in (templates/help.txt.j2 words each group's name).
HELP = (
    ("model", ("params_b", "model")),
    ("method", ("method", "finetune", "preference_tuning", "lora_dropout")),
    ("data", ("data", "tokens_per_sample", "data_language", "epochs")),
    ("deadline", ("deadline_days",)),
    ("budget", ("cost_first", "budget")),
    ("hardware", ("gpu_count", "nodes", "gpu", "one_server", "nvlink", "fabric")),
    ("numerics", ("precision", "optimizer")),
    (
        "layout",
        (
            "seq_len",
            "micro_batch",
            "grad_accum",
            "zero_stage",
            "tp",
            "pp",
            "offload",
            "recompute",
            "recompute_modules",
            "recompute_layers",
            "grad_reduce",
            "moments",
            "attention",
            "dispatcher",
            "stack",
        ),
    ),
    (
        "preferences",
        (
            "rent_or_buy",
            "lease_term_months",
            "hourly_only",
            "own_use_months",
            "own_utilisation",
            "recurring",
            "own_room",
            "power_paid",
            "power_price",
            "used_gpus",
            "currency",
            "cloud",
            "city",
            "speed_first",
        ),
    ),
    ("language", ("lang",)),
)


def help_words(lang: str) -> list[tuple[str, list[str]]]:
    """`help`'s examples by group, in `lang` (English's where a field has none in it)."""
    return [
        (group, [w for name in names for w in (field(name).examples.spellings(lang) or field(name).examples.en)])
        for group, names in HELP
    ]
