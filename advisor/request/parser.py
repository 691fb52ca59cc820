"""The /gpu request language (CONTRACT section 3): English, Chinese or mixed, any order.

The parser scans the text with one pattern per meaning, in an order that settles overlaps
(GPU names before data sizes, because "A100-80GB" holds "80GB"; budgets before model sizes,
because "1.2M CNY" is money), blanks what each pattern consumed, and refuses whatever is
left over. Defaults it fills in are listed in `request.assumptions`.
"""

from __future__ import annotations

import calendar
import datetime as dt
import difflib
import math
import re
import unicodedata
from collections.abc import Callable
from functools import cache, lru_cache

from advisor import catalog
from advisor.engine.frameworks import RECOMPUTE_MODULES, UNPLANNED_RECOMPUTE_MODULES
from advisor.engine.layout import sequence_multiple
from advisor.request import fields
from advisor.request.model import (
    BYTES_PER_TOKEN,
    PAIRED,
    REFERENCED,
    TOKENS_PER_SAMPLE,
    ZH_CHAR_BYTES,
    Budget,
    DataSize,
    Note,
    TrainingRequest,
)
from advisor.text.render import phrase
from advisor.text.safe import clean
from advisor.timezone import team_tz

# `1e5`, `2.5e9`: engineers' numbers; a positive exponent only (`2e-5` is a learning rate)
NUM = r"(\d+(?:,\d{3})*(?:\.\d+)?(?:e\+?\d{1,2}(?![\d\-]))?|\.\d+)"
# A deadline given as a date ("by Friday", "月底前", "before Dec 20") counts its days from today in
# the team's time zone (the digest's, Beijing unless GPU_ADVISOR_TZ is set).
TEAM_TZ = team_tz()
EN_WEEKDAYS = {
    **dict.fromkeys(("monday", "mon"), 0),
    **dict.fromkeys(("tuesday", "tue", "tues"), 1),
    **dict.fromkeys(("wednesday", "wed"), 2),
    **dict.fromkeys(("thursday", "thu", "thur", "thurs"), 3),
    **dict.fromkeys(("friday", "fri"), 4),
    **dict.fromkeys(("saturday", "sat"), 5),
    **dict.fromkeys(("sunday", "sun"), 6),
}
ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
EN_MONTHS = {name: i for i, name in enumerate(calendar.month_abbr) if name} | {
    name: i for i, name in enumerate(calendar.month_name) if name
}
CN_DIGITS = "零一二两三四五六七八九十百"
CN_NUM = rf"([{CN_DIGITS}]+)"
L = r"(?<![a-z0-9.])"  # left edge of an ASCII word
PROBABILITY = r"\d*\.\d+|[01]"
HUB_ORG = r"[a-z0-9][a-z0-9._\-]*"  # a Hugging Face organisation ("meta-llama", "deepseek-ai")
R = r"(?![a-z0-9])"  # right edge
# Words of serving a model, not training it: a request with them is refused (a first message naming
# a model is sized for serving instead, advisor/planning/followup.serving_first)
# 推理 is reasoning, not serving, in 数学推理, 逻辑推理, 推理能力, 推理数据 ("qwen2.5-7b grpo 数学推理 5000条" had
# been sized for serving)
REASONING_ZH = r"(?<!数学|逻辑|复杂|多步|代码|常识|长链|因果|符号)推理(?!能力|数据|题|链|任务|过程|步骤|模型)"
SERVING = re.compile(rf"{L}(inference|serving|serve|deploy(?:ment)?|qps){R}|({REASONING_ZH}|部署|上线服务)", re.I)

SCALE = {
    "": 1,
    "k": 1e3,
    "m": 1e6,
    "b": 1e9,
    "t": 1e12,
    "w": 1e4,
    # written out: "2 billion tokens", "$50 thousand"
    "thousand": 1e3,
    "grand": 1e3,  # "10 grand": ten thousand (of money, in English)
    "million": 1e6,
    "mn": 1e6,
    "mil": 1e6,
    "billion": 1e9,
    "bn": 1e9,
    "trillion": 1e12,
    "千": 1e3,
    "万": 1e4,
    "十万": 1e5,
    "百万": 1e6,
    "千万": 1e7,
    "亿": 1e8,
    "十亿": 1e9,
    "百亿": 1e10,
    "千亿": 1e11,
    "万亿": 1e12,
}
CN_UNITS = "万亿|千亿|百亿|十亿|亿|千万|百万|十万|万|千"
# Lunar New Year's Day, the deadline `春节前` counts to: its Gregorian dates to 2030 (Fact Monster,
# "Chinese New Year Dates", factmonster.com/id/A0192339, 2017; 2031 from memory, not confirmed)
SPRING_FESTIVALS = tuple(
    dt.date(*d) for d in ((2026, 2, 17), (2027, 2, 6), (2028, 1, 26), (2029, 2, 13), (2030, 2, 3), (2031, 1, 23))
)
# A number right after a layout key is its degree, not a GPU count (`pp 2 H800 16卡`, `流水线并行2 H800`)
NOT_A_DEGREE = "".join(f"(?<!{k}{sp})" for k in ("tp", "pp", "dp", "ep", "cp") for sp in (" ", "=", ":")) + (
    r"(?<!并行)(?<!并行 )(?<!并行=)"
)
# a number's scale as a word, before a unit or currency ("2 billion tokens", "50 thousand usd")
SCALE_WORDS = r"(?:thousand|grand|million|billion|trillion|mil|mn|bn)(?![a-z])"
# A number in Chinese numerals, read only with a scale after it ("五百万", "一万条", "两千亿token").
CN_SCALED = rf"[{CN_DIGITS}]+(?=\s*(?:{CN_UNITS}))"
# Small numbers written out in English ("two weeks", "three epochs").
EN_NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fourteen": 14,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
}
EN_NUM = "|".join(sorted(EN_NUMBERS, key=len, reverse=True))

# Words that carry no meaning of their own ("70B model on 8 GPUs within 14 days").
FILLER = {
    "on",
    "in",
    "within",
    "with",
    "using",
    "use",
    "for",
    "a",
    "an",
    "the",
    "of",
    "and",
    "model",
    "params",
    "parameters",
    "param",
    "data",
    "dataset",
    "text",
    "corpus",
    "please",
    "pls",
    "plan",
    "train",
    "training",
    # training an existing model again on new data: the method from the data as for "train"
    "retrain",
    "re-train",
    "retraining",
    "re-training",
    "to",
    "by",
    "deadline",
    "gpu",
    "gpus",
    "cards",
    "at",
    "about",
    "around",
    "approx",
    "~",
    "+",
    "-",
    "/",
    "x",
    "i",
    "we",
    "want",
    "need",
    "need to",
    "days",
    "total",
    "dense",
    "decoder",
    "llm",
    # "a 350M GPT from scratch": the architecture's generic name, a dense decoder (had been "did you
    # mean gpt2?"); gpt2, gpt-oss, gpt-j and the rest stay models
    "gpt",
    "transformer",
    "训练",
    "模型",
    "数据",
    "数据集",
    "语料",
    "我们",
    "我",
    "想",
    "要",
    "需要",
    "个",
    "的",
    "用",
    "使用",
    # "enable liger", "开启编译": a setting switched on is the setting
    "enable",
    "enabled",
    "开启",
    "启用",
    "打开",
    "在",
    "内",
    "以内",
    "之内",
    "左右",
    "大概",
    "约",
    "大约",
    "截止",
    "期限",  # "期限20天": the deadline's own word beside its number
    "工期",
    "参数",
    "做",
    "跑",
    "请",
    "帮",
    "一下",
    "和",
    "与",
    "完成",
    "训完",
    "时间",
    "卡",
    "张",
    "一个",
    "有",
    "帮我",
    "规划",
    "方案",
    "推荐",
    "看看",
    "算一下",
    # "minimum GPUs for 70B lora", "最少几张卡能全参微调72B": the fewest GPUs that hold the job, which
    # a plan without data is, and the count the answer leads with (both had been refused)
    "minimum",
    "fewest",
    "最少",
    "至少",
    # "we have 16 A100s, can we...", "can it run?", "能跑吗": whether it fits is what the answer says
    "have",
    "can",
    "what",
    "would",
    "many",
    "数据量",
    "希望",
    "上",
    # the form factor after a GPU's name ("H100 80GB SXM"): the catalog's part is the SXM one
    "sxm",
    "sxm4",
    "sxm5",
    "能跑吗",
    # "可以用4090做13B的lora吗": a yes-or-no question whose answer is the plan
    "可以",
    "吗",
    "能不能跑",
    "能不能",
    "能否",
    "可不可以",
    "跑得动吗",
    "够不够",
    "行不行",
    "可以吗",
    # "要不要租A800", "还需不需要买", "是不是用4090就够了": yes-or-no questions, never a negation
    "要不要",
    "需不需要",
    "用不用",
    "是不是",
    # "有没有便宜点的方案训练7B": is there, not "there is none"
    "有没有",
    "买不买",
    "租不租",
    "done",
    # "how long", "多久": the answer's time is what they ask for
    "how",
    "long",
    "only",
    "finish",
    "finished",
    # "... if we have 4 A100", "assuming we own 16 H800": the condition is the request itself
    "if",
    "assuming",
    "will",
    "it",
    "take",
    "多久",
    "跑完",
    "做完",
    "要多久",
    "需要多久",
    "多长时间",
    # the chatter around a request in Slack ("hey, can you plan ...? a week is fine, pls")
    "hey",
    "hi",
    "you",
    "is",
    "are",
    "be",
    "our",
    "some",
    "like",
    "stay",
    "should",
    "fine",
    "ok",
    "option",
    "options",
    "w/",
    "thanks",
    "thx",
    "looking",
    "planning",
    "could",
    "size",
    "prefer",
    "preferably",
    "do",
    "doing",
    "estimate",
    "possible",
    "job",
    "run",
    "just",
    "帮忙",
    "搞定",
    "估一下",
    "估算",
    "估计",
    "评估",
    "算下",
    "算算",
    "测算",
    "给",
    "拿",
    "是",
    "团队",
    "小团队",
    "公司",
    "就行",
    "就好",
    "不急",
    "请问",
    "麻烦",
    "老板",
    "领导",
    "多少钱",
    "钱",
    "能",
    "评估一下",
    "看下",
    "看一下",
    "让",
    "训",
    "多少",
    "集群",
    # "quote in usd", "美元报价": what the prices are in is read from the currency
    "quote",
    "报价",
    # the data's file format says nothing about its size ("20 GB jsonl")
    "jsonl",
    "json",
    "csv",
    "parquet",
    "txt",
}


# RL tuning generates text while training (PPO, GRPO): not planned, and said so, not misread
# (preference tuning, DPO and its kin, and a reward model's training are: fields "preference_tuning").
# The fields whose values a request may name as a choice to compare ("lora vs full", "dpo vs orpo")
CHOSEN = ("method", "preference_tuning")
UNSUPPORTED_METHODS = ("ppo", "grpo", "rlhf", "rlaif", "rloo", "dapo")
# RL in Chinese ("强化学习"): the same methods (a reward model, 奖励模型, is planned: preference_tuning)
ZH_UNSUPPORTED_METHODS = ("强化学习",)
# The floor an RL request's refusal works out on its own prompts: TRL's GRPOConfig defaults, 8
# completions a prompt (num_generations), completions up to 256 tokens and prompts up to 512
# (max_completion_length, max_prompt_length; as Oumi's GrpoParams documents TRL's defaults).
RL_GENERATIONS, RL_COMPLETION_TOKENS, RL_PROMPT_TOKENS = 8, 256, 512
# A run every week is this many runs a month (52 weeks over 12 months)
WEEKS_PER_MONTH = 52 / 12
# Long chains of thought counted in samples with no length ("distill deepseek-r1 into a 7b model, 800k
# samples", "10万条推理数据"): reasoning traces run to thousands of tokens, so 4,000 a sample, a guess
# said as one (no published average was confirmed here; the 1,000 of an instruction sample had planned
# such a job several times too fast). Capped at the sequence length as any sample is.
REASONING_TOKENS_PER_SAMPLE = 4000
REASONING_DATA = re.compile(
    r"(?<![a-z])(?:reasoning|long[\s\-]?cot|cot|chain[\s\-]of[\s\-]thought|thinking)[\s\-]+"
    r"(?:traces?|data|dataset|samples?|examples?|trajectories|chains?|sft|distillation)(?![a-z])"
    r"|思维链|推理数据|推理链|推理轨迹|长链推理|cot数据|推理过程数据",
    re.I,
)
# Teachers whose outputs are long chains of thought (the teacher_data rule reads the name as typed)
REASONING_TEACHERS = ("r1", "qwq", "o1", "o3", "o4", "thinking", "reasoner")
# How many times its training pass alone a whole GRPO step takes (generation, log-probabilities, weight
# refits): NVIDIA's published NeMo RL v0.4 runs on DGX-H100 (docs/about/performance-summary.md, on
# policy), against the engine's own training time for the same tokens on the same GPUs
# (bench/calibration/rl_grpo_nemo_rl.csv, tests/test_rl_floor.py): Llama 3.1 8B 6.4x and Qwen3-32B
# 4.4x (dense), Qwen3-30B-A3B 11x and Qwen3-235B-A22B 30x (mixtures, whose decoding reads every expert).
# A mixture's parameters outside its experts (attention, embeddings, norms, routers) as a share of the
# total, where only its experts and routing are said: Mixtral 8x7B's, 46.7B total and 12.9B active with 2
# of 8 experts a token (Jiang et al. 2024), so 12.9 = 46.7 x (s + (1 - s) x 2/8), s = 0.035. Assumed for
# others: models with shared experts or a wide attention keep more outside (said in the answer).
MOE_OUTSIDE_EXPERTS = 0.035
RL_STEP_MULTIPLE = {"dense": (4, 7), "moe": (11, 30)}
# Words that may follow "on"/"用"/"with" without being a GPU name: the plain spellings of the
# table's words ("with qlora", "用fp8", "on 20 GB") and filler ("on about 80k samples"), read later.
NOT_GPU_WORDS = (
    frozenset(
        word.lower()
        for row in fields.FIELDS
        for w in (*row.choices, row.keys, *row.units)
        for word in w.en
        if re.fullmatch(r"[a-zA-Z][a-zA-Z0-9.\-]*", word)
    )
    | frozenset(UNSUPPORTED_METHODS)
    | frozenset(FILLER)
)
# Words that only frame a follow-up what-if ("what if we had 30 days?", "用LoRA呢?").
WHATIF_FILLER = frozenset(
    {
        # "budget is 30万 now", "we own 8 A800 already": when the change holds
        "now",
        "already",
        "actually",
        "what",
        "if",
        "about",
        "how",
        "instead",
        "had",
        "have",
        "has",
        "only",
        "then",
        "and",
        "or",
        "we",
        "us",
        "it",
        "is",
        "was",
        "were",
        "would",
        "could",
        "switch",
        "change",
        # "swap the 4090s for 3090s", "replace them with A800", "switch from H800 to A800"
        "swap",
        "replace",
        "from",
        "for",
        "try",
        "go",
        "more",
        "just",
        "used",
        "them",  # "and if we bought them?": the plan's GPUs
        "card",  # "what's the total cost if we buy the card?": the plan's GPU
        "cards",
        "下来",  # "如果买下来呢"
        "get",
        "got",
        "to",
        "a",
        "the",
        "can",
        "do",
        "be",
        "done",
        "make",
        "s",  # it's, what's
        "如果",
        "把",  # "把序列长度改为8192": the object of the change before it
        "改成",
        "换成",
        "改用",
        "换",
        "那",
        "那么",
        "要是",
        "的话",
        "只有",
        "呢",
        "吗",
        "会怎样",
        "怎么样",
        "会",
        "怎样",
        "试试",
        "改",
        "行不行",
        "什么",  # "如果买的话买什么": the change is the buying
        "可以吗",
        "能",
        "只",
        "有",
        "给",
        "是",
        # yes-or-no questions around the change ("能不能用H20", "可以用H20吗", "H20行吗",
        # "会不会更便宜", "改用A100能省多少"): the answer is the new plan against the first
        "能不能",
        "可不可以",
        "可以",
        "会不会",
        "要不要",
        "用不用",
        "是不是",
        "行吗",
        "行",
        "能省多少",
        "省多少",
        "会快多少",
        "能快多少",
        "快多少",
        "会慢多少",
        "慢多少",
        "省",
        "更",
        "延长到",
        "延长至",
        # "拉长到一个月呢", "能不能分两个月跑", "can we spread it over two months?", "stretch it to 6 weeks"
        "拉长到",
        "拉长至",
        "分",
        "spread",
        "stretch",
        "extend",
        "延到",
        "放宽到",
        "降到",
        "减到",
        "减少到",
        "提高到",
        "增加到",
        "加到",
        "提到",
        "改为",
        "变成",
        # "what if they only have A800?", "what if only H20 is available?", "只有A800怎么办": the GPU there is
        # is the change (a vendor's, _VENDOR_HAS)
        "they",
        "available",
        "怎么办",
        # "how much faster would H200 be?", "how much slower on A100?": the plan on that GPU, against the first
        "much",
        "faster",
        "slower",
        "quicker",
        # "what if our data grows to 2TB?": the data's new size
        "grows",
        "grow",
        "grew",
        "increases",
        "becomes",
    }
)


# Apple silicon named as the hardware ("on a MacBook", "M3 Max", "苹果电脑"): its own refusal
_APPLE = re.compile(r"mac|m[1-4](?![\d])|apple|苹果", re.I)


def _cards_of(gb: str) -> str:
    """The catalogue's cards of a memory size said instead of a card ("one 48GB card": L40S-48GB, ...)."""
    try:
        size = round(float(gb))
    except ValueError:
        return ""
    return ", ".join(g.name for g in catalog.gpus() if round(g.memory_gb) == size)


class RequestError(ValueError):
    """Input the program cannot use. `message(lang)` is the friendly paragraph."""

    def __init__(self, kind: str, lang: str = "en", **details):
        self.kind = kind
        self.lang = lang
        if kind == "bad_value" and "what" in details:
            # the limits the refusal states are the ones the parser checks
            details = fields.bounds(details["what"]) | details
        # Words echoed back come from the user: no control, bidi or backtick characters.
        self.details = {k: clean(v) if isinstance(v, str) else v for k, v in details.items()}
        super().__init__(self.message(lang))

    def message(self, lang: str | None = None) -> str:
        return phrase(lang or self.lang, "request_error", self.kind, **self.details)


def _num(text: str) -> float:
    return float(text.replace(",", ""))


# a GPU count as teams write large ones: "10,000", "16k", "1万", "1.6万"; k only before a name in letters
# ("10k H100", not "平均长度2k 4090") and 万 only before its measure word ("1万张H100")
BIG_COUNT = r"\d{1,3}(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?(?:k(?=\s*(?:x\s*)?[a-z])|万(?=\s*[张块卡]))|\d+"


def _big_count(text: str) -> int:
    scale = 1000 if text.endswith("k") else 10_000 if text.endswith("万") else 1
    return round(_num(text.rstrip("k万")) * scale)


def _cn_num(text: str) -> float:
    """Small Chinese numerals: 两 -> 2, 十四 -> 14, 三十 -> 30."""
    digits = {c: i for i, c in enumerate("零一二三四五六七八九")}
    digits["两"] = 2
    total, current = 0, 0
    for ch in text:
        if ch in digits:
            current = digits[ch]
        elif ch == "十":
            total += (current or 1) * 10
            current = 0
        elif ch == "百":
            total += (current or 1) * 100
            current = 0
    return float(total + current)


_CN_DIGIT_VALUE = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"〇": 0, "两": 2}
_CN_SMALL_UNIT = {"十": 10, "百": 100, "千": 1000}


def _cn_section(text: str) -> int:
    """A Chinese numeral below 10,000 (`两千五百` -> 2500); a last digit right after 千 or 百
    counts in the unit below it, as people say it (`一千五` -> 1500, `三百五` -> 350)."""
    total, current, last_unit = 0, 0, 0
    for ch in text:
        if ch in _CN_DIGIT_VALUE:
            current = _CN_DIGIT_VALUE[ch]
            if ch in "零〇":
                last_unit = 0
        elif ch in _CN_SMALL_UNIT:
            last_unit = _CN_SMALL_UNIT[ch]
            total += (current or 1) * last_unit
            current = 0
    if current and last_unit >= 100:
        current *= last_unit // 10
    return total + current


def _cn_whole(text: str) -> int:
    """A Chinese numeral with 万 and 亿 (`两万五千` -> 25000, `两千五百万` -> 25,000,000); a last
    digit right after 万 counts in thousands (`三万五` -> 35000)."""
    total = 0
    for unit, scale in (("亿", 10**8), ("万", 10**4)):
        if unit in text:
            head, text = text.split(unit, 1)
            total += (_cn_section(head) or 1) * scale
            if len(text) == 1 and text in _CN_DIGIT_VALUE and text not in "零〇":
                return total + _CN_DIGIT_VALUE[text] * scale // 10
    return total + _cn_section(text)


_EN_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_EN_UNITS = {w: i for i, w in enumerate(("one", "two", "three", "four", "five", "six", "seven", "eight", "nine"), 1)}
_EN_TEENS = (
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
# one to ninety: the counts said in words that the number pass writes in digits
_EN_WORD_NUMBERS = {**_EN_UNITS, **_EN_TENS, **{w: i for i, w in enumerate(_EN_TEENS, 10)}}


def weekday_from(today: dt.date, target: int, next_week: bool, today_counts: bool) -> dt.date:
    """The day a weekday names (0 Monday): in next week (Monday to Sunday) where said so, else the
    next such day, today itself where `today_counts` (a start may be today; a deadline is not)."""
    if next_week:
        return today + dt.timedelta(days=7 - today.weekday() + target)
    return today + dt.timedelta(days=(target - today.weekday() - (not today_counts)) % 7 + (not today_counts))


def thousands_after_wan(text: str) -> str:
    """Digits with 万 and a digit of thousands after it in digits (`1万5千条`, `预算4万6`, `3万5条`:
    35,000; the last two had been refused, and a quote's `4万6` read as 40,000), not a count or a span
    after it (`5万 6天`, `4万6个月`)."""
    return re.sub(
        r"(?<![\d.])(\d+)万(\d)(?:千|(?![\d.万千]|\s*(?:个|月|年|卡|张|台|块|小时|天|日|周|星期|礼拜|轮|h|d)))",
        lambda m: str(int(m[1]) * 10000 + int(m[2]) * 1000),
        text,
    )


def _spelled_numbers(text: str) -> str:
    """Numbers said in words that the rules read only in digits, written in digits: compound
    Chinese numerals (`两万五千条`, `两千五百万token`, `三万五条`, `预算一千五`), `千卡`/`万卡`/`双卡`,
    Chinese numerals before 块/元, `刀` (slang for US dollars), `thirty-two`, `two and a half`,
    `half a million`. The simple forms (`五十万`, `两周`, `十六卡`) the rules read as they are."""
    text = re.sub(
        r"(?<![零〇一二两三四五六七八九十百千万亿])[〇一二两三四五六七八九十][零〇一二两三四五六七八九十百千万亿]*[千万亿][零〇一二两三四五六七八九十百千万亿]*",
        lambda m: str(_cn_whole(m[0])) if re.search(r"[千万亿][零〇一二两三四五六七八九十百]", m[0]) else m[0],
        text,
    )
    text = re.sub(
        r"(?<![零〇一二两三四五六七八九十百千万亿\d])(千|万)(?=\s*(?:卡|张卡))",
        lambda m: "1000" if m[1] == "千" else "10000",
        text,
    )
    text = re.sub(r"(?<![零〇一二两三四五六七八九十百千万亿\d])双(?=\s*(?:卡|机|台))", "2", text)
    text = re.sub(
        r"(?<![零〇一二两三四五六七八九十百千万亿\d])([零一二两三四五六七八九十百]+)(?=\s*(?:块|元))",
        lambda m: str(_cn_section(m[1])),
        text,
    )
    text = thousands_after_wan(text)
    text = re.sub(
        r"(?<![零〇一二两三四五六七八九十百千万亿])([〇一二两三四五六七八九十百]+)([千万亿]?)\s*刀(?!片)",
        lambda m: f"{_cn_section(m[1])}{m[2]}美元",
        text,
    )
    text = re.sub(r"(\d[\d.,]*\s*(?:[千万亿]|[kmw])?)\s*刀(?!片)", r"\1美元", text)
    # 俩 is 两个 (two of them): `俩礼拜`, `俩4090`
    text = re.sub(r"俩(?=\s*\d)", "2张", text)
    text = text.replace("俩", "两个")
    # the amount before its word (`100万预算`, `100w预算`): said the other way round (not an amount
    # the key already stands before, nor `预算有限`, a word of its own: `预算5000元 预算有限`); a
    # number with a unit of time after the key is the deadline (`100w预算 30天`), not its amount
    text = re.sub(
        r"(?<![a-z\d.])(?<!预算)(?<!每条)(?<!每个样本)(?<!条数据)(?<!每段对话)"  # not a sample's length (`每条4k`)
        r"(\d[\d.,]*\s*(?:(?:[千万亿]|[kmw])(?:元|块|美元|美金)?|元|块|美元|美金))\s*的?预算"
        r"(?!\s*[:：]?\s*(?:[¥$]|(?>[\d零一二两三四五六七八九十][\d.,零一二两三四五六七八九十百千万亿]*)"
        r"(?!\s*(?:天|日|周|星期|礼拜|个月|月|小时|年|days?|weeks?|months?|hours?|d|h)(?![a-z])))|有限|紧张|不多)",
        r"预算\1",
        text,
    )
    tens, units = "|".join(_EN_TENS), "|".join(_EN_UNITS)
    text = re.sub(rf"(?<![a-z])({tens})[\s\-]({units})(?![a-z])", lambda m: str(_EN_TENS[m[1]] + _EN_UNITS[m[2]]), text)
    words = "|".join(_EN_WORD_NUMBERS)
    text = re.sub(
        rf"(?<![a-z0-9.])(\d+|{words})\s+and\s+a\s+half(?![a-z])",
        lambda m: f"{_EN_WORD_NUMBERS.get(m[1], m[1])}.5",
        text,
    )
    text = re.sub(r"(?<![a-z])half\s+a\s+(thousand|million|billion|trillion)(?![a-z])", r"0.5 \1", text)
    # "a quarter million", "a billion tokens", "one trillion tokens", "a hundred thousand samples":
    # the article or "one" is the count (each had been refused on its scale word)
    text = re.sub(r"(?<![a-z])an?\s+quarter\s+(thousand|million|billion|trillion)(?![a-z])", r"0.25 \1", text)
    text = re.sub(r"(?<![a-z])(?:an?|one)\s+hundred\s+(thousand|million|billion)(?![a-z])", r"100 \1", text)
    text = re.sub(r"(?<![a-z])(?:an?|one)\s+(thousand|million|billion|trillion)(?![a-z])", r"1 \1", text)
    text = re.sub(r"(?<![a-z])an?\s+(day|week|month)\s+and\s+a\s+half(?![a-z])", r"1.5 \1s", text)
    text = re.sub(r"(?<![a-z])half[\s\-]precision(?![a-z])", "", text)  # 16-bit: the default
    # a count in words before what it counts (`on eight H100s`, `sixteen GPUs`, `one hundred
    # twenty-eight H100s`); not `one`, which the one-server words and "one H100" read themselves
    counted = r"(?=\s+(?:[a-z]+\d|\d|gpus?|cards?|servers?|nodes?|machines?|h\d|a\d|b\d|l\d|mi\d|rtx))"
    text = re.sub(
        rf"(?<![a-z0-9.])({units})\s+hundred(?:\s+(?:and\s+)?(\d{{1,2}}|{words}))?(?![a-z0-9]){counted}",
        lambda m: str(_EN_UNITS[m[1]] * 100 + int(_EN_WORD_NUMBERS.get(m[2], m[2] or 0))),
        text,
    )
    text = re.sub(
        rf"(?<![a-z0-9.])({words})(?![a-z]){counted}",
        lambda m: m[0] if m[1] == "one" else str(_EN_WORD_NUMBERS[m[1]]),
        text,
    )
    # a number word before its scale (`twenty thousand samples`, `two million tokens`)
    small = {**_EN_WORD_NUMBERS, "hundred": 100}
    text = re.sub(
        rf"(?<![a-z])({'|'.join(small)})\s+(thousand|million|billion)(?![a-z])",
        lambda m: f"{small[m[1]]} {m[2]}",
        text,
    )
    # Chinese shorthand: `3kw` is 3千万 (kw = 千万), `2个T` of data is 2 TB; 后天 is in two days
    text = re.sub(r"(?<![\d.])(\d+(?:\.\d+)?)\s*kw(?![a-z])", r"\1千万", text)
    text = re.sub(r"(?<![\d.])(\d+(?:\.\d+)?)\s*个\s*t(?=\s*(?:tokens?|词元))", r"\1t", text)  # `2个T tokens`
    text = re.sub(r"(?<![\d.])(\d+(?:\.\d+)?)\s*个\s*t(?![a-z])", r"\1tb", text)
    text = re.sub(r"(?<![\d.])(\d+(?:\.\d+)?)\s*个\s*g(?![a-z])", r"\1gb", text)  # `数据量大概5个G`
    text = re.sub(r"(?<![\d.])(\d+(?:\.\d+)?)\s*个\s*(w|万|亿)", r"\1\2", text)  # `50个w`, `1个亿`
    text = re.sub(r"(?<!大)后天(?!内)", "2天", text)
    # `数据50w`: after the data's key a w is 万 samples, not weeks
    text = re.sub(r"(数据量?|样本量?)\s*[:：]?\s*(\d+(?:\.\d+)?)\s*w(?![a-z])(?:\s*条)?", r"\1\2万条", text)
    # `样本 3 万`, `样本数约5000`: after the samples' own noun a bare count is samples (it had been refused)
    text = re.sub(
        r"(?<![条个])(?:训练)?样本(?:量|数|数量)?\s*[:：]?\s*(?:约|大概|大约|差不多)?\s*(\d+(?:\.\d+)?)\s*(万|千)?\s*(?:条|个)?"
        r"(?![\d.])(?!\s*(?:亿|token|tokens|词元|k|w|[a-z]|天|日|周|星期|个?月|小时|年|张|卡|台|元|块))",
        r" \1\2条 ",
        text,
    )
    # `1万条 样本`, `5000条 数据`: the count's noun after a space is the samples' unit (`样本` had been
    # refused as a word not read)
    text = re.sub(r"(?<=条)\s+(样本|数据|语料|对话|指令|问答)(?![\u4e00-\u9fff])", r"\1", text)
    # a day of a month before a currency word is the date, not an amount (`before Dec 20 usd`)
    months = "|".join(sorted((m.lower() for m in EN_MONTHS), key=len, reverse=True))
    text = re.sub(
        rf"(?<![a-z])((?:{months})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+20\d\d)?)(?=\s+(?:usd|cny|rmb|eur|dollars?|yuan)(?![a-z]))",
        r"\1,",
        text,
    )
    # the data's language between an amount and its unit (`20B chinese tokens`, `200 billion
    # english tokens`): said after it, as the data rules read it (`20B tokens of chinese`)
    text = re.sub(
        r"(?<![a-z0-9.])(\d[\d.,]*\s*(?:[kmbt]|thousand|million|billion|trillion))\s+"
        r"((?:chinese|english|code|multilingual)(?:\s+(?:web|text|data))*)\s+(tokens?)(?![a-z])",
        r"\1 \3 of \2",
        text,
    )
    # Chinese names of model families (`通义千问2.5-72B`, `千问3-32B`, `深度求索V3`): the catalogue's
    text = re.sub(r"(?:通义)?千问\s*(?=\d|[\s\-]*\d)", "qwen", text)
    text = re.sub(r"(?:通义)?千问(?![\da-z])", "qwen ", text)
    text = re.sub(r"深度求索\s*[\-]?\s*(?=v\d|r\d)", "deepseek-", text)
    text = re.sub(r"智谱\s*(?=glm)", "", text)
    text = re.sub(r"百川\s*(?=\d)", "baichuan", text)  # `百川2 13B` is Baichuan 2
    text = re.sub(r"书生\s*[·.]?\s*浦语\s*(?=\d)", "internlm", text)  # `书生浦语2.5 7B` is InternLM 2.5
    # Ollama's tags name a model's size after a colon (`qwen2.5:7b`, `gpt-oss:20b`); a word with no
    # digit or dash before the colon is no model's name (`data:20b`)
    text = re.sub(r"(?<![\w.\-])([a-z][a-z0-9.]*(?:\d|-)[a-z0-9.\-]*):(?=\d+(?:\.\d+)?b(?![a-z0-9]))", r"\1-", text)
    # Baidu's 文心 (ERNIE) and Tencent's 混元 (Hunyuan): `文心4.5 300B`, `混元 A13B`; beside the
    # English name (`文心 ERNIE 4.5`, `腾讯混元 Hunyuan-A13B`) the Chinese one is read past
    text = re.sub(r"(?:百度)?文心(?:一言|大模型)?\s*(?=ernie)", "", text)
    text = re.sub(r"(?:百度)?文心(?:一言|大模型)?\s*(?=\d)", "ernie-", text)
    text = re.sub(r"(?:腾讯)?混元(?:大模型)?\s*(?=hunyuan)", "", text)
    text = re.sub(r"(?:腾讯)?混元(?:大模型)?[\s\-]*(?=a?\d)", "hunyuan-", text)
    # chatter before the request ("hey, quick one: ...", "quick question:")
    text = re.sub(r"(?<![a-z])(?:a\s+)?quick\s+(?:one|question|q)(?![a-z])\s*[:,]?", " ", text)
    # `a couple of H100s`, `a pair of 4090s`: two; `a couple of days`, `couple weeks`: two of them
    text = re.sub(r"(?<![a-z])(?:a\s+)?(?:couple|pair)\s+of\s+(?=[a-z]*\d|gpus?|cards?|servers?|nodes?)", "2 ", text)
    text = re.sub(r"(?<![a-z])(?:a\s+)?couple(?:\s+of)?\s+(?=(?:days?|weeks?|months?)(?![a-z]))", "2 ", text)
    # a server's GPUs said before its noun or after `with` (`an 8-gpu server`, `two 8-GPU nodes`,
    # `a node with 8 GPUs`, `2 servers with 8 cards each`): the GPUs of all of them, as `2台8卡服务器`
    # reads; with the type named, its shape (`an 8-GPU H100 node` is `an 8xH100 node`, `8 gpu h100`
    # is `8xh100`)
    rigs = r"(?:servers?|nodes?|machines?|box(?:es)?|rigs?|hosts?)"
    text = re.sub(
        rf"(?<![a-z0-9.\-])(\d+)[\s\-]?(?:gpus?|cards?)[\s\-]+(?=(?:{_gpu_names()})s?(?![a-z0-9]))", r"\1x", text
    )
    text = re.sub(r"(?<![a-z0-9.\-])(\d+)-(gpus?|cards?)(?![a-z])", r"\1 \2", text)  # `8-gpus`, `8-card H800`
    text = re.sub(
        rf"(?<![a-z0-9.])(?:(?:an?|one|single|(\d+))\s+)?(\d+)[\s\-]?(?:gpus?|cards?)\s+{rigs}(?![a-z])"
        rf"|(?<![a-z0-9.])(?:(?:an?|one|single)|(\d+))\s+{rigs}\s+(?:with|of)\s+(\d+)\s*(?:gpus?|cards?)(?:\s+each)?(?![a-z])",
        # several servers keep their shape (`2 servers with 4 gpus each` is `2x4 gpus`, read in `_gpus`)
        lambda m: f"{m[1] or m[3]}x{m[2] or m[4]} gpus" if int(m[1] or m[3] or 1) > 1 else f"{m[2] or m[4]} gpus",
        text,
    )
    # asking for the time the answer gives (`how many hours?`, `要几天`, `需要多少小时`): no deadline
    text = re.sub(r"(?<![a-z])how\s+many\s+(?:hours|days|weeks|gpu[\s\-]?hours)(?![a-z])", " ", text)
    # the data a budget affords asked (`how many tokens can we afford?`, `能训多少token`): what the
    # answer gives where no data is said (advice._pretrain_scale); "how many tokens is 1TB?" stays a conversion
    text = re.sub(
        r"(?<![a-z])how\s+(?:many|much)\s+(?:data|tokens)\s+(?:can|could|would|will)\s+(?:we|i)\s+"
        r"(?:afford|train\s+on|train|buy|pay\s+for|get)(?![a-z])|(?:能|可以)(?:训练?|买|负担)多少\s*个?\s*(?:tokens?|数据)",
        " ",
        text,
    )
    # "how many H100 hours ...?": GPU-hours on that GPU, which the answer gives
    text = re.sub(rf"(?<![a-z])how\s+many\s+({_gpu_names()})s?[\s\-]*(?:gpu[\s\-]?)?hours(?![a-z])", r" on \1 ", text)
    text = re.sub(r"(?:大概|大约)?(?:要|需要|得)?(?:几|多少)个?(?:天|小时|周|星期|卡时)", " ", text)
    # how many servers (`H20 多少台`, `最少需要几台H20`): the count the answer gives, its GPU kept
    text = re.sub(
        r"(?:最少|至少|最多|大概|大约)?(?:要|需要|得)?(?:用)?(?:几|多少)\s*(?:台|个节点|个机器)(?:机器|服务器|节点)?",
        " ",
        text,
    )
    # which servers to get (`what servers should we rent`, `租什么样的服务器`): the answer's hardware, asked
    text = re.sub(
        r"(?<![a-z])(?:what|which)\s+(?:kind\s+of\s+|sort\s+of\s+|type\s+of\s+)?(?:servers?|machines?|instances?|boxes)"
        r"\s+(?:do|should|would|will|could|can|must)\s+(?:we|i)\s+(?:need|rent|(?P<buy>buy)|get|use|lease|order)(?![a-z])"
        r"|(?:要|需要|该|应该)?(?:租|(?P<zbuy>买)|用|配)(?:什么|哪种|哪些|啥)(?:样的|样|配置的)?(?:服务器|机器|配置)",
        lambda m: " buy " if m["buy"] else " 买 " if m["zbuy"] else " ",
        text,
    )
    # a bare `fortnight` (a number or `a` before it is the deadline rule's unit)
    text = re.sub(r"(?<![a-z0-9])(?<!\d )(?<!a )fortnights?(?![a-z])", "2 weeks", text)
    # "about" inside a Chinese amount (`三十来万条` is about 300k): the amount
    text = re.sub(r"([零一二两三四五六七八九十百\d])来(?=[万千亿])", r"\1", text)
    # a budget said with or without tax (`不含税预算25万`, `预算是含税20万`, `预算25万含税`): the budget; `不` there is
    # no exclusion of a GPU or a method (it had been refused as one)
    text = re.sub(
        r"(?:不含税|含税|税前|税后|未税)(?:的)?\s*(?=预算|[¥￥]?\s*[\d一二两三四五六七八九十百千万])", " ", text
    )
    text = re.sub(
        r"(预算\s*[:：]?\s*[\d.]+\s*[万千]?\s*(?:元|块|人民币)?)\s*[（(]?\s*(?:不含税|含税|税前|税后|未税)\s*[）)]?",
        r"\1 ",
        text,
    )
    # a sum granted ("老板给了50万", "公司批了100万", "经费拨了30万"): the budget
    text = re.sub(
        r"(?:老板|公司|领导|学校|经费|项目)?\s*(?:给了|批了|拨了|批下来)\s*(?=[¥￥]?\s*[\d一二两三四五六七八九十百]+(?:\.\d+)?\s*[万千])",
        " 预算",
        text,
    )
    # a run repeated ("每个月都要微调一次70B，每次1B token"): "once" after the verb and "each time" before
    # the data are the recurrence's words, which the recurring rule reads from 每个月
    text = re.sub(r"每个?月(?:都要|都得|要)?\s*((?:预)?(?:微调|训练)|跑)\s*一次", r"每月一次 \1", text)
    text = re.sub(r"(微调|训练|跑)一次|每次(?=\s*[\d一二两三四五六七八九十百])", r"\1 ", text)
    # holidays teams count to (`双十一前`, `五一前`): their dates, which the date rules read
    for holiday, date in (("双十一", "11月11日"), ("五一", "5月1日"), ("国庆", "10月1日"), ("元旦", "1月1日")):
        text = re.sub(rf"{holiday}(?=\s*(?:之前|以前|前))", date, text)

    # a card's memory after its name (`4090 24G`, `A800 80G显存`): the catalogue's own is the card
    # itself; another (`4090 48G`, a modded card) is said as memory, which the GPU rules refuse
    def card_memory(m: re.Match) -> str:
        gpu = catalog.find_gpu(m[1])
        if gpu and round(gpu.memory_gb) == int(m[2]):
            return m[1]
        if gpu and gpu.name.startswith("RTX4090") and m[2] == "48":
            return m[0]  # the modded 48 GB 4090: named by the GPU rules, which say it is not catalogued
        variant = catalog.find_gpu(f"{m[1]}-{m[2]}gb")  # `A100 40G`: the 40 GB A100
        return variant.name.lower() if variant else f"{m[1]} 显存{m[2]}g"

    text = re.sub(
        # ("我们的4090是24G的": the card's memory said with 是 between)
        # (not a link: "H800 100G RoCE", "64xH800 25Gb/s per server", "A800 200G网卡")
        rf"(?:(?<![a-z0-9])|(?<=\dx)|(?<=\d\*))({_gpu_names()})\s*(?:是|有)?\s*(\d{{2,3}})\s*g(?:b)?(?:\s*显存)?(?:的)?(?![a-z0-9/])"
        r"(?!\s*(?:ib|infiniband|roce|rdma|ethernet|nics?|网卡|以太网|网络|组网|per\s+(?:server|node|gpu|card))(?![a-z]))",
        card_memory,
        text,
    )
    # half a year, a year and a half, a quarter: in months (`租半年`, `一年半`, `一个季度`)
    text = re.sub(r"(?<![零〇一二两三四五六七八九十\d])(?:一年半|1年半)", "18个月", text)
    text = re.sub(r"(?<![零〇一二两三四五六七八九十\d])半年", "6个月", text)
    text = re.sub(
        r"(?<![a-z0-9.])(\d[\d.,]*(?:[kmbt](?=\s)|\s+(?:thousand|million|billion|trillion))?)\s*([a-z]{4,9})(?![a-z0-9])",
        _unit_typo,
        text,
    )
    return re.sub(
        r"(?<![第\d零〇一二两三四五六七八九十])(一|两|三|四|\d)个?季度(?!末|初|底)",
        lambda m: f"{3 * (_CN_DIGIT_VALUE.get(m[1]) or int(m[1]))}个月",
        text,
    )


def _amount(number: str, unit: str | None) -> float:
    value = _cn_num(number) if number and number[0] in CN_DIGITS else _num(number)
    return value * SCALE[(unit or "").lower()]


@cache
def _not_a_card(money: bool = True) -> str:
    """After a card's bare number ("3090", "4090"): a count of data or money, which makes the number
    that count ("3090条数据", "4090 samples", "4090元"), not a card. `money` False: after a word
    that names hardware or a count of cards ("用4090 usd", "on 4090 usd", "2x4090 usd"), where a
    currency after it is the market's."""
    units = [u for u in fields.field("data").units if u.value[0] in ("samples", "tokens")]
    cash = "|元|块钱|rmb|cny|usd|美元" if money else ""
    return rf"(?!\s*(?:(?:{_all(units, 'en')})(?![a-z])|{_all(units, 'zh')}|条|个{cash}))"


@cache
def _gpu_names() -> str:
    names = catalog.gpu_spellings()
    bare = [
        rf"(?:(?<=用)|(?<=on\s)|(?<=with\s)|(?<=\dx)|(?<=\dx\s)){re.escape(n)}{_not_a_card(money=False)}"
        rf"|{re.escape(n)}{_not_a_card()}"
        for n in names
        if n.isdigit()
    ]
    return "|".join([*bare, _alternation([n for n in names if not n.isdigit()])])


# Ethernet and InfiniBand link speeds in Gb/s (IEEE 802.3: 1, 2.5, 5, 10, 25, 40, 50, 100, 200,
# 400, 800; InfiniBand lanes at 56 FDR): a number before "roce" or "网卡" that is none of them is not
# a network ("0.5B 3GB roce" had read 3 GB of data as the team's network).
LINK_SPEEDS_GBPS = {1, 2.5, 5, 10, 25, 40, 50, 56, 100, 200, 400, 800, 1600}
# Whose link a network speed is: each GPU's ("400G per GPU", "每卡200G") or each server's ("25G per
# server", "每台100G"); said, else `_network_speed`'s reading
# (not 单卡, 单机: a count of one GPU or server said after the network, "25G以太网 单机")
NETWORK_PER_GPU = re.compile(r"per\s+(?:gpu|card)|/gpu|each\s+gpu|每(?:张)?卡")
NETWORK_PER_SERVER = re.compile(r"per\s+(?:node|server|machine|box)|/(?:node|server)|每台(?:服务器|机器)?|每个?节点")
# InfiniBand and RDMA fabrics are built one NIC a GPU (a rail each: NVIDIA's DGX H100 and DGX A100
# reference designs), as are links of 200 Gb/s and more; a slower Ethernet is the server's own uplink
# (assumed, and said: `per GPU` changes it)
RAIL_FABRIC = re.compile(r"(?<![a-z])(?:ib|infiniband|rdma|ndr|hdr|roce)(?![a-z])")
RAIL_SPEED_GBPS = 200


def _network_speed(words: str, speed: float, beside: str) -> tuple[float, bool]:
    """The team's network said in `words`: Gb/s, and whether that is each server's link (else each
    GPU's). `8x400G` counts lanes: the server's total. A speed with no owner said is the server's on
    Ethernet, each GPU's on an RDMA fabric named `beside` it or at 200 Gb/s and more, else the
    server's."""
    lanes = re.search(r"(\d+)\s*[x×*]\s*\d", words)
    if NETWORK_PER_GPU.search(words):
        return speed, False
    if NETWORK_PER_SERVER.search(words):
        return speed, True
    if lanes:
        return int(lanes[1]) * speed, True
    if re.search(r"以太网|ethernet", words):
        return speed, True
    return speed, not (RAIL_FABRIC.search(beside) or speed >= RAIL_SPEED_GBPS)


# A leftover word shaped like a model name: letters, then a separator or digits ("kimi-k3",
# "grok-2", "phi4-mini"); refused as an unknown model (give its size), not an unknown word.
_MODEL_LIKE = re.compile(r"[a-z][a-z]+(?:[.\-_]?[a-z]*\d+[a-z0-9.]*)(?:[.\-_][a-z0-9.]+)*|[a-z]+(?:[\-_][a-z0-9.]+)+")


# Families whose releases are planned by the size in their name when the catalogue lacks them.
UNCATALOGUED_FAMILIES = (
    *("chatglm", "falcon", "minicpm", "codellama", "granite", "command-r", "nemotron"),
    *("llava", "internvl", "cogvlm"),  # vision-language: planned as their language model, said (`_VISION`)
)
# A family's version or tier written apart from its name, as vendors write it: "Gemma 3 4B",
# "Baichuan 2 13B", "Mistral Small 24B", "ERNIE 4.5 300B-A47B".
FAMILY_VERSION = r"(?:\s+(?:\d+(?:\.\d+)?|small|medium|large|mini|nano|pro|flash|air|max|plus|turbo|lite))?"


@cache
def _families() -> str:
    families = {m.family for m in catalog.models()} | set(UNCATALOGUED_FAMILIES)
    return "|".join(re.escape(f) for f in sorted(families, key=len, reverse=True))


# Families whose releases at or above a size are all mixtures of experts, which the catalogue
# lacks: named with the total alone ("ernie-4.5-300b", "ling-1t") they are asked for their
# active size, not planned as dense models of the total (300B dense costs six times the compute
# of 300B-A47B). ERNIE 4.5 21B-A3B and 300B-A47B (huggingface transformers docs, ernie4_5_moe);
# inclusionAI's Ling and Ring 2.0 (Ling-1T card: 1T total, about 50B active); Hunyuan-Large
# 389B-A52B (Tencent-Hunyuan-Large README); MiniMax-M1 456B-A45.9B (transformers docs). Step3,
# LongCat-Flash and Intern-S1 are released as mixtures of experts; named with a total alone their
# active sizes are asked. (Named without sizes, those of _PUBLISHED_MOE are planned at them.)
_MOE_ONLY_FAMILIES = (  # (name, the sizes in B its mixtures of experts span)
    (r"ernie[\s_\-]*4\.5", 20, 1e9),
    (r"(?:ling|ring)(?:[\s_\-]*(?:lite|plus|flash|mini|[\d.]+))*", 0, 1e9),
    (r"hunyuan[\s_\-]*large", 0, 1e9),
    (r"minimax[\s_\-]*m1", 0, 1e9),
    (r"step[\s_\-]*3", 100, 1e9),
    (r"longcat(?:[\s_\-]*flash)?", 0, 1e9),
    (r"intern[\s_\-]*s1", 100, 1e9),  # Intern-S1-mini is a dense 8B
)


# Mixtures of experts whose configs were not read (or whose attention the catalogue's keys cannot
# write), by their publishers' total and active sizes (B): Hunyuan-Large (Tencent-Hunyuan-Large
# README: 389B, 52B), Ling-flash-2.0 (NVIDIA Megatron-Bridge docs, Ling 2.0: 100B, 6.1B), Ling-1T
# and Ring-1T (Ling-1T card: 1T, about 50B), DeepSeek-V4-Flash and V4-Pro (featherless.ai's page of
# deepseek-ai/DeepSeek-V4-Flash: 284B, 13B activated; deepseekfr.org/en/deepseek-v4-flash: Pro
# 1.6T, 49B; their compressed sparse attention and hyper-connections are not modelled), StepFun's
# Step3 (its README: a 316B language model, 38B activated; its attention factorises the query
# through a rank of 2048 against one key and value head, which the catalogue's keys cannot write:
# as a catalogue entry its active count came out 11% high, so it is planned generic). IBM Granite
# 4.0 H-Micro and Micro, 3B dense (IBM's Granite 4.0 model table; their configs not read; H-Small,
# H-Tiny and Nemotron 3 Nano are catalogued with their Mamba-2 layers). Ring-flash-2.0, Ling-
# flash-2.0's reasoning release on its base (inclusionAI's card: 100B, 6.1B activated). AI21's
# Jamba 1.5 to 1.7 (Jamba 1.5 report, arXiv 2408.12570: Large 398B with 94B active, Mini 52B with
# 12B, the size of Jamba v0.1; Mamba-1 layers with attention and experts, its Mamba layers planned
# as attention). Cohere's Command A, dense (its model card: 111 billion parameters). Huawei's
# openPangu-Ultra-MoE-718B (its card: 718B, 39B activated) and Pangu Pro MoE (arXiv 2505.21411:
# 72B, 16B activated), Skywork-MoE (arXiv 2406.06563: 146B, 22B activated) and DeepSeekMoE 16B
# (arXiv 2401.06066: 16.4B, 2.8B activated).
_PUBLISHED_MOE = (
    (r"hunyuan[\s_\-]*large", 389.0, 52.0),
    (r"(?:ling|ring)[\s_\-]*flash[\s_\-]*2\.0", 100.0, 6.1),
    (r"(?:ling|ring)[\s_\-]*1t", 1000.0, 50.0),
    (r"deepseek[\s_\-]*v4[\s_\-]*flash", 284.0, 13.0),
    (r"deepseek[\s_\-]*v4[\s_\-]*pro", 1600.0, 49.0),
    (r"step[\s_\-]*3(?:[\s_\-]*(?:fp8|vl))?", 316.0, 38.0),
    (r"granite[\s_\-]*4(?:\.0)?[\s_\-]*(?:h[\s_\-]*)?micro", 3.0, 3.0),  # dense: its active size is its total
    (r"(?:ai21[\s_\-]*)?jamba[\s_\-]*(?:1\.[5-7][\s_\-]*)?large(?:[\s_\-]*1\.[5-7])?", 398.0, 94.0),
    (r"(?:ai21[\s_\-]*)?jamba[\s_\-]*(?:(?:1\.[5-7][\s_\-]*)?mini(?:[\s_\-]*1\.[5-7])?|v0\.1)", 52.0, 12.0),
    (r"(?:c4ai[\s_\-]*)?command[\s_\-]*a(?:[\s_\-]*03[\s_\-]*2025)?", 111.0, 111.0),  # dense
    (r"(?:open[\s_\-]*)?(?:pangu|盘古)[\s_\-]*ultra[\s_\-]*moe", 718.0, 39.0),
    (r"(?:open[\s_\-]*)?(?:pangu|盘古)[\s_\-]*pro[\s_\-]*moe", 72.0, 16.0),
    (r"skywork[\s_\-]*moe", 146.0, 22.0),
    (r"deepseek[\s_\-]*moe", 16.4, 2.8),
)


# A family name released in more than one size, none of which it names alone: each release the
# request can name instead, with its sizes (the sources of _PUBLISHED_MOE).
_RELEASES_OF = ((r"deepseek[\s_\-]*v4", (("deepseek-v4-flash", "284B-A13B"), ("deepseek-v4-pro", "1600B-A49B"))),)


# Models whose weights are not published (their makers' APIs and fine-tuning services only): no
# server a team rents or buys trains them. Qwen-Max/Plus/Turbo and Qwen3-Max (Alibaba Cloud Model
# Studio only), OpenAI's GPT-4/4o/4.1/5, Anthropic's Claude, Google's Gemini, ByteDance's Doubao,
# Baidu's ERNIE Bot (文心一言, ERNIE X1), Tencent's Hunyuan-T1/Turbo.
_CLOSED_MODEL = re.compile(
    r"(?<![a-z0-9])(?:qwen[\d.]*[\s_\-]*(?:max|plus|turbo)|gpt[\s_\-]*(?:4o?|4\.1|4\.5|5)(?:[\s_\-]*(?:mini|nano|turbo))?"
    r"|claude(?:[\s_\-]*[\d.]+)?(?:[\s_\-]*(?:opus|sonnet|haiku))?|gemini(?:[\s_\-]*[\d.]+)?(?:[\s_\-]*(?:pro|flash))?"
    r"|doubao|ernie[\s_\-]*(?:bot|x1)|hunyuan[\s_\-]*(?:t1|turbo))(?![a-z0-9])|豆包|文心一言|通义千问\s*max",
    re.I,
)


def _releases_in(text: str) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """Such a family's name as `text` writes it ("deepseek-v4", "DeepSeek V4") and its releases."""
    for family, releases in _RELEASES_OF:
        found = re.search(rf"(?<![a-z0-9]){family}(?![a-z0-9.])", text, re.I)
        if found:
            return found[0], releases
    return None


def _moe_only(name: str, params_b: float) -> bool:
    name = name.lower().strip(" _-").split("/")[-1]
    return any(re.fullmatch(family, name) and low <= params_b <= high for family, low, high in _MOE_ONLY_FAMILIES)


def _release(name: str, params_b: float) -> catalog.ModelShape | None:
    """The one catalogued release a versioned family name and a size name ("qwen3 235b" is
    Qwen3-235B-A22B, a mixture of experts: planned as a dense 235B it would cost ten times the
    compute); None when the name has no version ("llama 70b": Llama 2 or 3?) or several fit."""
    name = re.sub(r"(?<=[a-z])\s+(?=\d)", "", name.lower())  # "gemma 3" is gemma3
    if not re.search(r"\d", name) and not re.search(r"\s", name.strip()):
        return None
    words = re.split(r"[\s_\-]+", name.strip("-_ "))

    def begins(release: str) -> bool:
        # the name's words begin the release's and the version ends there: "qwen3" begins
        # qwen3-235b-a22b, "qwen2" neither qwen2.5-72b nor qwen2_5-72b (a bare number goes on)
        parts = re.split(r"[\s_\-]+", release.lower())
        return parts[: len(words)] == words and len(parts) > len(words) and not parts[len(words)].isdigit()

    def sized(m: catalog.ModelShape) -> bool:
        # a release whose name carries its sizes is named by its total one ("qwen3 480b"), not by a
        # size near it: qwen1.5-moe-a2.7b (14.3B in all) is no "qwen1.5 14b", the dense Qwen1.5-14B
        sizes = [re.fullmatch(r"(a?)(\d+(?:\.\d+)?)b", p) for p in re.split(r"[\s_\-]+", m.name)]
        near = [abs(float(s[2]) - params_b) <= 0.03 * params_b for s in sizes if s and not s[1]]
        return any(near) if any(sizes) else abs(m.params_b - params_b) <= 0.03 * params_b

    fits = {m.name: m for m in catalog.models() if any(begins(n) for n in (m.name, *m.aliases)) and sized(m)}
    return next(iter(fits.values())) if len(fits) == 1 else None


@cache
def _model_names() -> str:
    return _alternation(catalog.model_spellings())


def _alternation(spellings: list[str]) -> str:
    """Regex alternation of names, each allowing a space, dash or underscore between parts."""
    parts = []
    for name in spellings:
        pieces = re.findall(r"[a-z]+|\d+(?:\.\d+)?|[^a-z\d\s_\-]", name.lower())
        parts.append(r"[\s_\-]?".join(re.escape(p) for p in pieces))
    return "|".join(parts)


def spelled(spellings, literal: bool = False) -> str:
    """A regex alternation of a table row's spellings (advisor/request/fields.py): "-" an
    optional space, dash or underscore, " " any spaces, groups not capturing; longest first,
    so a Chinese word inside a longer one (预训练 in 继续预训练) loses to it. `literal` for signs
    such as `$`."""
    return _spelled(tuple(spellings), literal)


@cache  # the table is fixed: each row's pattern is built once, not at every parse
def _spelled(spellings: tuple[str, ...], literal: bool) -> str:
    out = []
    for word in sorted(spellings, key=len, reverse=True):
        word = word.lower()
        if literal:
            out.append(re.escape(word))
            continue
        word = re.sub(r"\((?!\?)", "(?:", word)
        out.append(word.replace("-", r"[\s_\-]?").replace(" ", r"\s+"))
    return "|".join(out)


def _en(word: fields.Word) -> str:
    return spelled(word.en)


def _zh(word: fields.Word) -> str:
    return spelled(word.zh)


def _all(words, lang: str) -> str:
    """One alternation of the spellings in `lang` of several words (a row's choices or units)."""
    return spelled([s for w in words for s in w.spellings(lang)])


@cache
def _compiled(spellings: tuple[str, ...], literal: bool) -> re.Pattern:
    return re.compile(spelled(spellings, literal))


def spells(word: fields.Word, text: str, literal: bool = False) -> bool:
    """Whether `text` is one of the spellings of `word`."""
    return bool(_compiled(word.en + word.zh, literal).fullmatch(text.strip()))


def value_of(words, text: str | None, literal: bool = False):
    """The value of the word (a choice, unit or sign of a row) that `text` spells; None if none."""
    if text is None:
        return None
    return next((w.value for w in words if spells(w, text, literal)), None)


@lru_cache(maxsize=4096)
def _scan_pattern(pattern: str) -> re.Pattern:
    """The scanner's patterns compiled once: there are more of them than `re` keeps (512, evicted
    oldest first), and a follow-up that re-read a request had recompiled 517 of them, 1 s a reply."""
    return re.compile(pattern)


class _Scanner:
    def __init__(self, text: str, lang: str):
        self.s = text
        self.lang = lang
        self.keep = False  # a handler sets it to leave its match for a later pattern
        self.read = bytearray(len(text))  # the characters an earlier pattern read

    def take(
        self,
        pattern: str,
        handle: Callable[[re.Match], None],
        unread: bool = False,
        only: str | tuple[str, ...] | None = None,
    ) -> None:
        """`unread`: a key and its number must have stood side by side; a match over characters
        read before joins words the text kept apart (`fsdp on A100-80GB 52.7d` is not `fsdp 52`).
        Patterns that read a unit or currency already taken (`budget 1.2M usd`) leave it False.
        `only`: the group (or groups) taken; the rest of the match is left for later rules (a
        range's lower end is taken, its upper end and sign are left; "buy 8 more or rent" takes
        its two verbs and leaves "8 more")."""
        for match in list(_scan_pattern(pattern).finditer(self.s)):
            start, end = match.span()
            if unread and any(self.read[start:end]):
                continue
            if self.s[start:end].strip() == "":
                continue  # already consumed by an overlapping match
            handle(match)
            if self.keep:
                self.keep = False
                continue
            groups = (only,) if isinstance(only, str) else only or ()
            spans = [match.span(g) for g in groups if match[g] is not None] if only else [(start, end)]
            for start, end in spans:
                self.s = self.s[:start] + " " * (end - start) + self.s[end:]
                self.read[start:end] = b"\x01" * (end - start)

    def leftovers(self, filler: frozenset[str] = frozenset()) -> list[str]:
        # a full stop ends a sentence, not a number ("a week is fine. cheapest pls", "1.5k")
        words = re.split(r"(?:[\s,，。;；、!！?？:：()（）\[\]\"'“”—–…]|\.(?=\s|$))+", self.s)
        known = FILLER | filler
        cjk_fillers = sorted((w for w in known if not w.isascii()), key=len, reverse=True)
        out = []
        for word in words:
            if not word or word in known:
                continue
            if not word.isascii():  # Chinese runs together: drop filler words inside the run
                for filler_word in cjk_fillers:
                    word = word.replace(filler_word, "")
                if not word:
                    continue
            out.append(word)
        return out


# Chinese city names say where the servers are, not what language the data is in.
_CN_CITIES = re.compile("深圳|成都|北京|上海|广州|杭州")


# The words that name preference tuning without naming one (read as DPO alone): beside a named one
# (`orpo ... preference pairs`, `KTO 偏好数据`) they say what the data are
_GENERIC_PREFERENCE = re.compile(r"preference(?:[\s-](?:tuning|optimi[sz]ation))?|偏好\w*", re.I)

# Context lengths as written, in 1,024s: a bare `Nk` of these sizes may be one (`qwen3-32b cpt 200B 32k`)
CONTEXT_THOUSANDS = frozenset({1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024})

_LATIN_TERMS = frozenset(
    {"lora", "qlora", "sft", "dpo", "token", "tokens", "gpu", "gpus", "moe", "fp8", "bf16", "usd", "cny", "rmb"}
)


def chinese_prose(text: str) -> bool:
    """Whether a request is written as Chinese prose: at least two Chinese characters besides
    city names, and at least twice as many as English words (a `70B lora 1TB 14d 深圳` is
    English with a city; `13B 全量微调 200GB数据 7天` is Chinese)."""
    norm = _CN_CITIES.sub(" ", unicodedata.normalize("NFKC", text).lower())
    # (the reply's language asked, `用中文回答`, says nothing of the data: a 7b on 20GB had been planned
    # on Chinese text for it)
    norm = re.sub(_lang_pattern(), " ", norm)
    cjk = len(re.findall(r"[\u4e00-\u9fff]", norm))
    # names and terms both languages write in Latin letters are not English prose: a model's
    # name (`qwen2.5-72b-instruct`), `lora`, `token` (`qwen2.5-72b lora 10万条 两周` is Chinese)
    # (a rate's unit is no word either: the `s` of `25Gb/s每台`)
    words = re.findall(r"(?<![a-z0-9.\-/])[a-z][a-z0-9.\-]*", norm)
    english = [w for w in words if not re.search(r"\d", w) and w not in _LATIN_TERMS]
    return cjk >= 2 and cjk >= 2 * len(english)


@cache
def _lang_pattern() -> str:
    """`lang zh`, or the reply's language asked in words: "reply in chinese", "用英文回答"."""
    row = fields.field("lang")
    return (
        rf"{L}(?:{_en(row.keys)})\s*[:=]?\s*({_all(row.choices, 'en')}){R}"
        rf"|{L}(?:reply|answer|respond)\s+in\s+(english|chinese){R}|(?:请)?(?:用|以)?(英文|中文|英语)(?:回答|回复|答复)"
    )


def _lang_word(m: re.Match) -> str:
    """The `lang` code a _lang_pattern match asks for; a language named in words is read as the
    data-language row spells it ("english", "英文" -> en)."""
    return m[1] or value_of(fields.field("data_language").choices, m[2] or m[3])


@cache
def _module_name() -> str:
    """One name after the recompute-modules key: a module planned, another Megatron-Core takes
    (refused as not planned), or any identifier with an underscore (`self_attn`: meant as a module,
    refused as none), but not a flag's name (`recompute_num_layers`)."""
    planned = _all(fields.field("recompute_modules").choices, "en")
    unplanned = "|".join(UNPLANNED_RECOMPUTE_MODULES)
    return rf"{L}(?:{planned}|{unplanned}|(?!recompute)[a-z][a-z0-9]*(?:_[a-z0-9]+)+){R}"


def _choice_pattern(row: fields.Field) -> str:
    """A row's choices wherever they stand: English words bounded, Chinese ones not."""
    zh = _all(row.choices, "zh")
    return rf"{L}(?:{_all(row.choices, 'en')}){R}" + (f"|(?:{zh})" if zh else "")


# A number's Chinese unit or currency inside English ("budget 50万", "1千万", "5000元") does not
# make a request Chinese: its other words do ("budget 50万美元" had been answered in Chinese).
_CN_AMOUNT = re.compile(r"\d[\d.,]*\s*(?:[十百千万亿]+)?\s*(?:美元|美金|元|块|人民币)?")


# Data units a typo after an amount is read as (`200M tokns`, `50k smaples`): left unread, the
# amount alone was taken for a model size. Only close matches (difflib ratio 0.8, assumed).
_DATA_UNITS = ("tokens", "samples", "examples", "epochs")


def _unit_typo(m: re.Match) -> str:
    amount, word = m[1], m[2]
    if word in _request_words():
        return m[0]
    tries = [(amount, word)]
    if amount[-1].isdigit() and m[0][len(amount)].isalpha() and word[0] in "kmbt":
        tries.insert(0, (amount + word[0], word[1:]))  # the scale joined to the word: `200mtokns`
    for a, w in tries:
        close = [w] if w in _DATA_UNITS else difflib.get_close_matches(w, _DATA_UNITS, n=1, cutoff=0.8)
        if close:
            return f"{a} {close[0]}"
    return m[0]


@cache
def _request_words() -> tuple[str, ...]:
    """The English words of the request language (every field's keys, choices and units) and the
    catalogued model and GPU names: what a typo is compared with."""
    words = {
        w.lower()
        for f in fields.FIELDS
        for word in (f.keys, *f.choices, *f.units)
        for w in word.en
        if len(w) >= 3 and re.fullmatch(r"[a-z][a-z0-9.\-]*", w.lower())
    }
    words |= {m.name.lower() for m in catalog.models()}
    words |= {a.lower() for g in catalog.gpus() for a in (g.name, *g.aliases) if a.isascii()}
    return tuple(sorted(words))


def _nearest_word(word: str) -> str:
    """The request word a typo most likely meant ("fulll" -> "full", "14dys" -> "14days"), or ''.
    A number before the word is kept; only close matches count (difflib ratio 0.75, assumed)."""
    number, rest = re.fullmatch(r"([\d.]*)(.*)", word).groups()
    if len(rest) < 3 or not rest.isascii():
        return ""
    match = difflib.get_close_matches(rest, _request_words(), n=1, cutoff=0.75)
    return number + match[0] if match and match[0] != rest else ""


# English prose with a Chinese unit or two in it ("finetune qwen3-8b on 10万条 samples within a
# week"): answered in English. A request of model words and a Chinese word ("13b lora 10万条") stays
# Chinese: its English is names, not prose. Both thresholds are assumed (our choice, not measured).
EN_PROSE_WORDS = 4
STRAY_CJK_CHARS = 2


def _detect_lang(text: str) -> str:
    cjk = re.findall(r"[\u4e00-\u9fff]", _CN_AMOUNT.sub(" ", text))
    if not cjk:
        return "en"
    prose = re.findall(r"(?<![a-z0-9\-.])[a-z]{3,}(?![a-z0-9\-.])", text)
    return "en" if len(cjk) <= STRAY_CJK_CHARS and len(prose) >= EN_PROSE_WORDS else "zh"


# Accelerator words without a digit that still name hardware ("on tpu"): an unknown GPU, said so.
_GPU_WORDS = re.compile(r"tpu|gaudi|ascend|trainium|rtx|tesla|nvidia|amd|npu")
# A checkpoint's tuned variant after its name: the same shape ("qwen3-32b-instruct", "7b-chat",
# "qwen3-235b-a22b-instruct-2507", "mistral-7b-instruct-v0.3"); `hf` only joined to the name, as
# alone it names the stack.
VARIANT = r"(?:[_\-\s](?:instruct|chat|base|it|thinking|v\d+(?:\.\d+)*)|[_\-](?:hf|pt|\d{4}(?![0-9])))"
# A checkpoint quantized for serving ("qwen2.5-72b-instruct-awq", "-gptq-int4", "-fp8"): the same
# model, whose training starts from its 16-bit weights (said among the assumptions).
QUANTIZED = (
    r"[_\-](?P<quant>awq|gptq|int4|int8|w4a16|w8a8|fp8|nf4|gguf|mlx|bnb[_\-]4bit|4bit|8bit)"
    r"(?:[_\-](?:int4|int8|4bit|8bit))?"
)
# A smaller or larger sibling of a catalogued release ("deepseek-v2-lite", "qwen-max") is not
# that release: left to be refused as an unknown model, which asks for its size.
SIBLING = r"[_\-](?:lite|mini|small|tiny|nano|micro|air|flash|pro|max|plus|turbo|large|medium|ultra)(?![a-z0-9])"
# What kind of samples a count names ("80k instruction samples", "10k chat examples").
SAMPLE_KINDS = (
    "instruction|chat|sft|qa|q&a|training|fine-?tuning|labell?ed|annotated|dialogue|conversation|support|customer"
    "|math|coding|reasoning|cot|chain-of-thought|distilled|domain|synthetic|human|high-quality|long|short|long-form|short-form"
    "|multi-?turn|single-?turn|multi-?round|curated|cleaned|in-?house|proprietary|internal|legal|medical|financial"
    "|new|fresh|additional|extra|service|sales|user|product|technical|tech|help-?desk|call-?cent(?:er|re)|historical"
    "|real|real-world|anonymi[sz]ed"
    "|preference|chosen/rejected|chosen-rejected|thumbs[\\s\\-]?up/down|up/down|good/bad"
)
# Not after a kind word ("20k reasoning traces", "50k customer service dialogs"): fixed-width
# lookbehinds, one a word
_AFTER_NO_KIND = "".join(rf"(?<!\b{w}\s)" for w in SAMPLE_KINDS.split("|") if re.fullmatch(r"[a-z\-]+", w))
# The data's nouns and the words around them that only say what the data is about ("cleaned
# text", "行业数据", "中文网页文本"). Never one that changes the plan: a modality other than
# text, another language, preference or reward data, a number, a time, a city.
# (what the data are, said without their count: "on our support tickets, about 50k tickets", "on our
# codebase, 2GB of code": the count and size are read elsewhere)
_EN_DATA = (
    "data|text|corpus|dataset|documents|docs|code|codebase|codebases|repo|repos|repository|repositories"
    "|tickets|emails|conversations|chats|dialogues|articles|records|transcripts|logs|reports|papers|contracts"
    "|manuals|books"
)
_EN_NOT_ABOUT = (
    "image|images|video|videos|audio|speech|voice|music|vision|visual|multimodal|multi-modal|picture|pictures"
    "|photo|photos|ocr|tabular|time-series|timeseries|sensor|preference|reward"
    "|french|german|korean|arabic|hindi|thai|dutch|greek|hebrew|persian|urdu|swahili"
    "|[a-z]+(?:ese|ish|ian|lingual)"  # japanese, spanish, russian, multilingual: another language
)
_EN_ABOUT = rf"(?!(?:{_EN_NOT_ABOUT})(?![a-z]))[a-z]{{2,}}"
_ZH_DATA = "数据集|数据(?!中心)|语料|文本|文档|网页|文书|文章|文献|论文|书籍|合同|判决书|病历|对话记录|工单"
_ZH_ABOUT = (
    "(?:(?!代码|图|像|视频|音|照|多模态|表格|奖励|偏好|深圳|成都|北京|上海|广州|杭州"
    # 文, 语: a language (日文, 韩语); not 文 of 文书, 文章, 文件, 文献, 论文, 公文, 范文 (documents)
    "|(?<![论公范])文(?![书章件献案稿])|[语零一二两三四五六七八九十百千万亿天日周月年时])[\u4e00-\u9fff])"
)

# Who has the GPUs, where they stand, and how idle they are, between which "有" still means the
# team's own cards ("我们IDC里有闲置的16张A800": planned on them, not rented). Someone else's
# ("客户有16张A800", "they have") bends the plan and is refused (tests/test_parser.py).
_ZH_OWNER = "我们|我|团队|公司|我司|自己|实验室|课题组|研究组|小组|组里|组内|本组|单位|学校|学院"
_ZH_PLACE = "idc|机房|集群|数据中心|内部|公司|实验室|课题组|组"
_ZH_IDLE = "(?:闲置|空闲|现成|空着|闲着|富余|多余)的?"

# Words a request is not read past (the expert review asked that an unknown word no longer sink a
# whole request, only be said): a negation ("not on 4090", "不要4090"), a word with a digit (a
# number whose meaning we did not find), a time the deadline rules did not read, a request word
# left unplaced or a typo of a weighty one, and what the data is when it is not text in a language
# we know (another modality or language).
_NEGATION = re.compile(
    r"no|not|non|nor|without|w/o|except|never|cannot|avoid|exclude[ds]?|excluding|instead|rather|but|other|besides"
    r"|banned|ban|skip|forget|no-go|nogo|anything|else"
)
# (不 of 不同 "different", 不一样, 不少, 不错, 不仅, 不管, 不如 negates nothing: "为什么同样的卡不同厂商价格差这么多"
# had been refused as a negation)
_ZH_NEGATION = re.compile(r"不(?!同|一样|少|错|仅|但|管|然|如|断)|别|没|无|非|除|避免|禁|去掉|拒绝|免谈|算了|以外|之外")
# Words that bend what sits next to them or ask for what the request language has no word for
# (the second probe of the tolerant reading, /tmp/probe9, found each planned wrongly when read
# past): comparisons and bounds ("at least 64 GPUs", "more than 14d is ok"), conditions ("fp8 if
# possible"), other people's GPUs, money that is not this job's budget, repeated runs, places and
# clouds, kinds of GPU and network, data counted otherwise ("1TB compressed"), other methods.
_RISKY = re.compile(
    r"than|more|less|least|most|minimum|min|maximum|max|up|over|above|below|under|if|unless|either|or|maybe"
    r"|possible|possibly|needed|necessary|should|wait|they|their|customers?|clients?|order|ordered|spent|spend"
    r"|last|previous|twice|thrice|seeds?|sweeps?|ablations?|runs|times|each|per|every|weekly|daily|annual"
    r"|hourly|on-demand|pay|euros?|eur|gbp|pounds?|hk|jpy|yen|sgd|overnight|christmas|sprint|cob"
    r"|january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|few|couple|several|compressed|gzipped|gzip|zstd"
    r"|tokenized|raw|dedup|deduped|duplicates?|merge|merging|distill|distillation|distilled|qat|freeze|frozen"
    r"|usa|eu|europe|european|america|singapore|japan|korea|hong|kong|overseas|abroad|aws|azure|gcp|google"
    r"|aliyun|alibaba|tencent|oracle|lambda|runpod|nvidia|amd|hopper|ampere|blackwell|consumer|datacenter|pcie"
    r"|nvl|infiniband|ib|roce|nvlink|ethernet|network|flexible|unlimited|matters?|important|cheaper|faster"
    r"|slower|better|newer|older|compared|similar"
)
# Places outside mainland China a team may name for its servers (parser: `abroad`)
PLACES_ABROAD_EN = (
    r"singapore|sg|hong\s*kong|hk|japan|tokyo|korea|seoul|taiwan|europe|eu|germany|frankfurt|usa|u\.s\.a\.?|america"
    r"|us-east|us-west|overseas|abroad"
)
PLACES_ABROAD_ZH = r"新加坡|香港|日本|东京|韩国|首尔|台湾|欧洲|德国|美国|美东|美西|海外|国外"
_IN_THE_US = re.compile(r"(?<![a-z])(?:us|u\.s\.?|usa|u\.s\.a\.?|america|us-east|us-west)(?![a-z])|美国|美东|美西")
_ZH_RISKY = re.compile(
    r"以上|以下|以|至少|最多|最少|少于|多于|超过|客户|他们|下下|上个|两台|几台|台|之前|占用|订|优先|急|次|轮|压缩|清洗前|原始|去重|重复|蒸馏|对齐|合并|量化|冻结"
    r"|英伟达|国产|信创|美国|欧洲|海外|国外|新加坡|日本|香港|阿里|腾讯|华为云|火山|百度|按量|网络|充足|不限|魔改|节|旦|早"
    r"|评测|超参|组|如果|的话|是否|比|更|等"
)
_ZH_NOT_TEXT = re.compile(r"图|像|视频|音|照|多模态|表格|奖励|偏好|(?<![中英汉])[文语]")
# "today", "by tonight", "下班前": what is left of a working day at most (assumed; the bot does not
# know the hour the team works to)
TODAY_HOURS = 8
OVERNIGHT_HOURS = 12  # "overnight": a job started in the evening and looked at in the morning (assumed)
WEEKEND_HOURS = 60  # "over the weekend": Friday 6 pm to Monday 6 am (assumed)
# "国产卡" (a domestic accelerator): the Ascend 910B, the domestic part with the most leases on record
# (data/reference_prices.toml); the 910C, the other one catalogued, is planned when named
DOMESTIC_GPU = "Ascend-910B-64GB"
# A time the deadline rules did not read ("本周", "tomorrow") would change the plan too.
_TIME_WORDS = re.compile(r"tomorrow|today|tonight|weekends?|quarter|eod|eow|noon|morning|afternoon|evening|midnight")
_ZH_TIME = re.compile(r"[周月年天日号时季]")


READ_PAST_SHOWN = 6  # the words read past that the answer names (the rest are alike)


@cache
def _weighty_words() -> frozenset[str]:
    """The request words whose typo would change the plan most if read past: the method, and the
    catalogued GPU and model names (a typo near "compile" or "none" is more likely an ordinary
    word, "complete", "done")."""
    return frozenset(w.lower() for name in ("method", "finetune") for c in fields.field(name).choices for w in c.en) | {
        w for w in _request_words() if catalog.find_gpu(w) or catalog.find_model(w)
    }


@cache
def _zh_request_words() -> frozenset[str]:
    return frozenset(w for f in fields.FIELDS for word in (f.keys, *f.choices, *f.units) for w in word.zh)


@cache
def _short_request_words() -> frozenset[str]:
    """The request language's words of one or two letters (`yr`, `mo`, `tp`), which the typo list
    leaves out."""
    return frozenset(
        w.lower() for f in fields.FIELDS for word in (f.keys, *f.choices, *f.units) for w in word.en if len(w) < 3
    )


# Numbers said in words, and money said in slang: a leftover holding one is part of an amount, a
# count or a time that no rule read whole (`两万五千条` had been read as 5,000 samples, `two and a
# half days` as half a day, `预算2万刀` as ¥20,000, `千卡H800` as any count), so it may change the plan.
_ZH_NUMERAL = re.compile(
    r"[零〇二两三四五六七八九十百千万亿半双俩壹贰叁肆伍陆柒捌玖拾佰仟刀块毛]|一(?=[十百千万亿个台张块卡天周月年条点])"
)
# Names with a numeral in them (Qwen's 千问, 01.AI's 零一万物, Baichuan's 百川, ERNIE's 文心一言):
# chatter beside a size, not a number
_ZH_NAMES = re.compile(
    r"通义千问|千问|零一万物|百川|文心一言|千帆|百度|一下|一起|一定|一般|一直|万一|半精度|单精度|双精度"
)
_EN_NUMBER = re.compile(
    r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen"
    r"|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
    r"|hundreds?|thousands?|millions?|billions?|trillions?|half|quarter|dozens?|lakhs?|crores?|grand|bucks?"
    r"|couple|single|double|dual|twice|triple|k|m|b|bn|mn|w|kw)(?:-\w+)?"
)


# A lab's group names ("课题组", "研究组", "组里"): chatter, though 组 alone may count runs or servers
_ZH_TEAMS = re.compile(r"课题组|研究组|项目组|小组|组里|组内|本组|我们组")

_MONTH_WORDS = frozenset(m.lower() for m in EN_MONTHS)


def _may_change_plan(word: str) -> bool:
    """Whether a word left over may change the plan: then the request is refused, not read past.
    A request word itself left over ("samples" after a number read as the budget) was not placed."""
    # a fragment ("-in-bwd" of "opt-in-bwd" after `offload opt`) is a word cut by a rule: not chatter
    if re.search(r"\d", word) or word in _zh_request_words() or word[0] in "-_./*" or word[-1] in "-_/*":
        return True
    if _ZH_NUMERAL.search(_ZH_NAMES.sub("", word)) or _EN_NUMBER.fullmatch(word.strip(".-_'")):
        return True
    word = _ZH_TEAMS.sub("", word)  # "课题组", "组里": who asks, not a 组 of runs
    if not word:
        return False
    if word.isascii():
        rest = word.strip(".-_'")
        return bool(
            _NEGATION.fullmatch(rest)
            or _RISKY.fullmatch(rest)
            or _TIME_WORDS.fullmatch(rest)
            or re.fullmatch(_EN_NOT_ABOUT, rest)
            # a month inside a joined word (`mid-january`, `end-of-march`) is a date no rule read
            or any(_RISKY.fullmatch(part) for part in rest.split("-") if part in _MONTH_WORDS)
            or rest in _request_words()
            or rest in _short_request_words()
            or _nearest_word(rest) in _weighty_words()
        )
    return bool(
        _ZH_NEGATION.search(word) or _ZH_NOT_TEXT.search(word) or _ZH_TIME.search(word) or _ZH_RISKY.search(word)
    )


# A vision-language checkpoint ("qwen2.5-vl-7b", "internvl2-26b", "llava-1.5-13b"): planned as its
# language model, and said so (its vision encoder and the image tokens are not counted).
_VISION = re.compile(r"(?:^|[\s_\-])(?:vl|vlm|vision|visual|omni|mm)(?:$|[\s_\-\d])|internvl|llava|cogvlm|minicpm-v")
# Releases that read images whose names do not say so, planned on a catalogued language model's
# shape: Intern-S1 (InternViT, Intern-S1 README), GLM-4.5V/4.6V (GLM-V README), Mistral Large 3
# and Devstral Small 2 (their cards' vision encoders of 2.5B and about 0.4B; data/models.toml).
_VISION_RELEASE = re.compile(
    r"intern[\s_\-]*s1|glm[\s_\-]*4\.\d[\s_\-]*v(?![a-z])|mistral[\s_\-]*large[\s_\-]*3|devstral[\s_\-]*small[\s_\-]*2"
)

# Baidu's checkpoints end in -PT (PyTorch weights) or -Paddle
_CHECKPOINT_WORDS = re.compile(r"(?:^meta|instruct|chat|base|hf|it|preview|(?:pt|paddle)$)")


def _release_key(name: str) -> str:
    """A model name without its spelling and checkpoint kind (`Meta-Llama-3.1-8B-Instruct` ->
    `llama318b`): two names alike here are one release."""
    name = re.sub(r"[^a-z0-9]", "", name.lower().split("/")[-1])
    return _CHECKPOINT_WORDS.sub("", name)


# "rent H800 or buy A800", "租H800还是买A800": the verb before the second option of a GPU choice
_OWN_VERB = "(?:{})".format(
    "|".join(
        re.escape(w) for c in fields.field("rent_or_buy").choices for w in sorted((*c.en, *c.zh), key=len, reverse=True)
    )
)

_PASTED = re.compile(r"^\s*(?:<[@#!][a-z0-9|._\-]*>\s*)*/gpu(?![a-z0-9])|<[@#!][a-z0-9|._\-]*>")

# A launch script's flags pasted as they are (Megatron-LM's arguments.py names, ms-swift's with
# underscores): the dashes go, and the flags whose names are not already request words become them.
_FLAG_DASHES = re.compile(r"(?<![^\s,;(])--(?=[a-z])")
_FP8_FLAG = re.compile(r"--fp8[-_]format\b")
_BF16_FLAG = re.compile(r"(?<![^\s,;(])--bf16\b")
_FLAG_WORDS = (
    # `--recompute-granularity full`: the recompute mode, not the method "full"
    (re.compile(r"\brecompute[-_]granularity(?:\s*=\s*|\s+)"), "recompute "),
    # `--virtual-pipeline-model-parallel-size 2` (NeMo's VP): the interleaved schedule's chunks
    (re.compile(r"\bvirtual[-_]pipeline[-_]model[-_]parallel[-_]size(?:\s*=\s*|\s+)"), "vpp "),
    # `--recompute-method block --recompute-num-layers 21`: the first 21 layers of each stage
    # recomputed whole (Megatron-LM arguments.py, transformer_block.py _checkpointed_forward)
    (
        re.compile(
            r"\brecompute[-_]method(?:\s*=\s*|\s+)block\b(.*?)\brecompute[-_]num[-_]layers(?:\s*=\s*|\s+)"
            r"|\brecompute[-_]num[-_]layers(?:\s*=\s*|\s+)(?=\d+\b.*?\brecompute[-_]method(?:\s*=\s*|\s+)block\b)"
        ),
        r"\1 recompute-layers ",
    ),
    (re.compile(r"\brecompute[-_]method(?:\s*=\s*|\s+)block\b"), " "),
    # `--recompute-method uniform --recompute-num-layers 1`: every layer recomputed whole, in chunks
    # of that many layers, which is what `recompute full` plans (Megatron-LM arguments.py)
    (
        re.compile(r"\brecompute[-_]method(?:\s*=\s*|\s+)uniform\b|\brecompute[-_]num[-_]layers(?:\s*=\s*|\s+)\d+\b"),
        " ",
    ),
    # `--fp8-format hybrid|e4m3`: Transformer Engine's FP8 recipe, i.e. FP8 linear layers
    (re.compile(r"\bfp8[-_]format(?:\s*=\s*|\s+)(?:hybrid|e4m3)\b"), "fp8"),
)

# "we'd like", "it's": the contraction carries no meaning here
# What is said with a GPU type ("4张4090", "2 nodes of H800"): an option of a choice takes it along
_WITH_THE_GPU = ("gpu_count", "nodes", "max_gpus", "min_gpus")

_CONTRACTION = re.compile(r"(?<=[a-z])['’](?:d|ll|re|ve|m|s)(?![a-z])")


class _Parse:
    """One parse: fields found so far, with clash detection."""

    def __init__(
        self,
        text: str,
        lang: str | None = None,
        today: dt.date | None = None,
        gpu_pick: int | None = None,
        method_pick: str | None = None,
        cloud_pick: int | None = None,
        typos: tuple[tuple[str, str], ...] = (),
    ):
        self.text = text
        self.typos = typos  # (typed, read) for each misspelt method read as it (`_method_typo`)
        # a choice between GPU types ("H200 vs B200", "A800还是4090"): which one this parse keeps
        # (0 the first, 1 the second...; None: the choice is refused as `gpu_choice`)
        self.gpu_pick = gpu_pick
        self.gpu_options: list[tuple[str, str]] = []  # (GPU type, its words) of a choice, in order
        self.choice_words: set[str] = set()  # "or", "vs" between them: not chatter to refuse
        # a choice between training methods ("lora vs full finetune", "用LoRA还是全参微调"): the
        # method this parse keeps (None: the choice is refused as `method_choice`), and the options
        self.method_pick = method_pick
        self.method_options: list[tuple[str, str]] = []
        # a choice between clouds ("lambda vs coreweave", "阿里云还是火山引擎"): which one this parse
        # keeps (None: the choice is refused as `cloud_choice`), and the clouds named, in order
        self.cloud_pick = cloud_pick
        self.cloud_options: list[tuple[str, str]] = []
        self.power_currency: str | None = None  # the currency of `power_price`, where said
        self.choice_field = "method"  # the field whose values `method_options` are
        self.skipped: str | None = None  # the words of an option this parse leaves out
        self.gpu_said: list[tuple[str, str]] = []  # every GPU type named, with its words
        self.today = today or dt.datetime.now(TEAM_TZ).date()
        self.deadline_date: dt.date | None = None
        self.start_date: dt.date | None = None  # "start next monday", "12月14日开始": the job's first day
        self.deadline_weekday = False  # the deadline said as a weekday ("by friday")
        self.deadline_month_end = False  # ... or as the month's end ("月底前")
        self.today_word: str | None = None  # "today", "下班前": read as TODAY_HOURS
        self.overnight_word: str | None = None  # "overnight", "一晚上": read as OVERNIGHT_HOURS
        self.weekend_word: str | None = None  # "over the weekend", "一个周末": read as WEEKEND_HOURS
        self.teacher: str | None = None  # the model whose outputs are the data ("r1蒸馏数据")
        self.bare_samples: str | None = None  # a bare `30k` read as the count of samples
        # a mixture's experts and how many each token is routed to ("8 experts, 2 active", "top-2 of 8
        # experts", "64个专家，激活6个"), with the words: its active size worked out from them (`_validate`)
        self.experts: tuple[int, int | None] | None = None
        self.experts_word: str | None = None
        self.gpu_proxy: str | None = None  # a rack named ("gb200 nvl72"), planned on its GPU's HGX part
        self.weekly: str | None = None  # a recurring job said to run every week
        self.domestic_word: str | None = None  # "国产卡": planned as DOMESTIC_GPU
        self.rank_names: tuple[str, str] | None = None  # "LoRA rank 64": the method, and its words
        self.sample_chars: float | None = None  # "每条300字": the samples' mean length in characters
        norm = unicodedata.normalize("NFKC", text).lower().replace("×", "x")
        norm = re.sub(r"n['’]t(?![a-z])", " not", norm)  # "can't use 4090": a negation, not "t"
        norm = _CONTRACTION.sub("", norm)
        # the Slack form pasted whole ("/gpu 70B ..."), a mention of the bot ("<@U123> 70B ...")
        norm = _PASTED.sub(" ", norm)
        if _FP8_FLAG.search(norm):  # `--bf16 --fp8-format hybrid`: bf16 weights, FP8 GEMMs (Megatron-LM)
            norm = _BF16_FLAG.sub(" ", norm)
        norm = _FLAG_DASHES.sub("", norm)
        for flag, words in _FLAG_WORDS:
            norm = flag.sub(words, norm)
        norm = _spelled_numbers(norm)
        self.instances_read: list[dict] = []  # "on aws p5": the cloud instance read as its GPUs (`_instance`)
        norm = _INSTANCE.sub(self._instance, norm)
        # "要不要买H800", "用不用租": whether to buy (or rent) is the question, no preference
        norm = re.sub(
            r"(?:要不要|用不用|需不需要|需要不需要|该不该|值不值得|是否要?)\s*(?:(买|购买|购置)|(租|租用))"
            r"(?P<choice>(?=[^，,。？?；;]*还是))?|(买)不买|(租)不租",
            lambda m: (m[1] or m[2]) if m["choice"] else "买还是租" if m[1] or m[4] else "租还是买",
            norm,
        )
        # Colloquial yes-or-no questions with 不 ("可行不", "能跑14b全参不", "不行的话最少换啥卡"): questions,
        # never a negation to refuse
        norm = re.sub(r"(?<=[\w\u4e00-\u9fff])不(?=\s*(?:$|[？?。,，!！]))", "吗", norm)
        norm = re.sub(
            r"不行的话\s*(?:最少|至少)?\s*(?:要|得)?\s*(?:换|用)?\s*(?:啥|什么|哪种|哪个)?\s*(?:卡|显卡|gpu)?",
            " ",
            norm,
        )
        # "seq 8192 a800": the length is the key's, not a count of A800s
        norm = re.sub(
            rf"((?<![a-z])(?:seq|seq_len|ctx|context|序列|序列长度|上下文)\s*[:=]?\s*\d+k?)\s+"
            rf"(?=(?:{_alternation(list(catalog.gpu_spellings()))})s?(?![a-z0-9]))",
            r"\1, ",
            norm,
        )
        # DeepSeek's Chinese nicknames: 满血版 ("full-blooded") is the 671B R1, 蒸馏版 with a size its distilled
        # release of that size ("满血版DeepSeek微调", "蒸馏版deepseek 32b": refused as words not understood)
        norm = re.sub(
            r"(?:满血版?|满血的)\s*deepseek(?![a-z0-9.\-]|\s*-?\s*(?:r1|v[23]))|deepseek\s*(?:的)?满血版?",
            "deepseek-r1",
            norm,
        )
        # "r1蒸馏数据": R1 named bare as the teacher (its "r1" had been read as a LoRA rank of 1)
        norm = re.sub(
            r"(?<![a-z0-9\-])r1(?=\s*(?:的)?\s*(?:蒸馏|生成|合成|输出)(?:的|出的)?\s*(?:数据|样本|语料|答案))",
            "deepseek-r1",
            norm,
        )
        norm = re.sub(
            # (蒸馏 alone stays the distillation to refuse with its why: "deepseek-r1 蒸馏 7b 全参")
            r"(?:蒸馏版\s*(?:deepseek)?[\s\-]*(?:r1)?|(?:deepseek[\s\-]*)?(?:r1)?[\s\-]*蒸馏版)"
            r"[\s\-]*(?=\d+(?:\.\d+)?\s*b(?![a-z]))",
            "deepseek-r1 ",
            norm,
        )
        # a Grace-Blackwell rack named ("GB200 NVL72", "gb300"): planned on its GPU's HGX part and said so
        # (gpu_proxy); it had been asked "did you mean b200?"
        proxy = re.search(r"(?<![a-z0-9])(gb[23]00)(?:[\s\-]*nvl[\s\-]*(?:72|36)(?:x2)?)?(?![a-z0-9])", norm)
        if proxy:
            self.gpu_proxy = proxy[0].strip()
            norm = norm[: proxy.start()] + proxy[1][1:] + norm[proxy.end() :]
        # "on-demand or reserved?", "按量还是包月": the billing asked, whose answer is the card's terms (no preference;
        # "or" had been refused)
        norm = re.sub(
            r"(?<![a-z])(?:on[\s\-]?demand|hourly|spot)\s+(?:or|vs\.?)\s+(?:reserved|monthly|a\s+lease|leased?)"
            r"(?:\s+(?:instances?|capacity|pricing))?\s*\??|(?<![a-z])(?:reserved|monthly|leased?)\s+(?:or|vs\.?)\s+"
            r"(?:on[\s\-]?demand|hourly|spot)(?:\s+(?:instances?|capacity|pricing))?\s*\??"
            r"|按量(?:付费)?还是包月|包月还是按量(?:付费)?|按小时还是按月|按月还是按小时",
            " ",
            norm,
        )
        # "Target: done in 10 days", "target 10 days", "our goal is to finish in 2 weeks": the deadline's words
        # before it ("target" had been refused)
        norm = re.sub(
            r"(?<![a-z])(?:target(?:ed)?|goal|aim(?:ing)?)(?:\s+is)?\s*[:：]?\s*(?:to\s+)?(?:be\s+)?"
            r"(?:done|finish(?:ed)?|complete(?:d)?)?\s*(?:in|within|by)?\s*(?=~?\d|a\s|an\s|one\s|two\s|three\s)",
            " ",
            norm,
        )
        # "买卡还是租卡": the rent-or-buy question ("买还是租")
        norm = re.sub(
            r"(买|租)(?:卡|显卡|机器|服务器)\s*(还是|或者|或)\s*(买|租)(?:卡|显卡|机器|服务器)?", r"\1\2\3", norm
        )
        # "rank改成128", "把rank改成64": a key set to a number, its verb a space ("rank128" had read as
        # a model name)
        norm = re.sub(r"(?:把\s*)?(?<=[a-z])\s*(?:改成|改为|换成|设成|设为|调成|调到|改到|变成)\s*(?=\d)", " ", norm)
        norm = re.sub(r"把\s*(?=rank|lora|seq|mbs|gbs|tp|pp|ep)", "", norm)
        # "今天周三": today said, no deadline ("下周一要交 今天周三" had read two deadlines)
        norm = re.sub(r"今天\s*(?:是)?\s*(?:周|星期|礼拜)[一二三四五六日天]", " ", norm)
        # "long context extension of llama3-8b to 128k", "扩展上下文到128k": the model first, the
        # extension then reads as the length rule does
        norm = re.sub(
            r"(?<![a-z])((?:long[\s\-]?)?context[\s\-]+extension)\s+(?:of|for)\s+(\S+)\s+(to\s+\d)", r"\2 \1 \3", norm
        )
        norm = re.sub(r"(?:扩展|扩充|拓展|扩)(长?上下文(?:长度)?)(?:到|至)", r"\1扩展到", norm)
        # "4090s only, we have 4 of them": the count said after the GPU it counts
        norm = re.sub(
            rf"(?<![a-z0-9])({_alternation(list(catalog.gpu_spellings()))})s?(\s+only)?(\s*[,;]?\s*)"
            r"(we|i)\s+(have|own|got)\s+(\d+)\s+of\s+them(?![a-z])",
            r"\2\3\4 \5 \6x \1",
            norm,
        )
        # a family's architecture at a size ("llama 3 architecture 8B", "qwen2 arch 1.5b", "llama3架构 8B"):
        # that release at that size ("3" had been a word not understood)
        # ("3-8b" would read as a range; "用llama3 8B" as a GPU used, so 架构 joins the two)
        size_next = r"(?=\s*\d+(?:\.\d+)?\s*[bm](?![a-z]))"
        norm = re.sub(rf"(?<=[a-z0-9])[\s\-](?:architecture|arch){size_next}", " ", norm)
        norm = re.sub(rf"(?<=[a-z0-9])\s*架构\s*{size_next}", "-", norm)
        # a mix of languages joined by a sign ("code + english", "chinese & code"): said with "and"
        langs = r"(code|english|chinese)"
        norm = re.sub(rf"(?<![a-z]){langs}\s*[+&]\s*{langs}(?![a-z])", r"\1 and \2", norm)
        self.forced_lang = lang
        self.text_lang = _detect_lang(norm)  # the request's own script, whatever the reply language
        self.lang = lang or self.text_lang
        self.scan = _Scanner(norm, self.lang)
        self.norm = norm  # the text as the rules read it, before any is taken
        self.fields: dict = {}
        self.words: dict[str, str] = {}
        self.quantized = ""  # the checkpoint's name when it was quantized for serving
        self.read_past: list[str] = []
        self.hyperparameters: list[str] = []
        self.offpeak: list[str] = []  # "off-peak", "闲时": said, priced at the regular rate
        self.payment_terms: list[str] = []  # "押一付三": said, no plan depends on them
        self.on_premises: list[str] = []  # "私有化部署": where the model will run, said
        self.spend_by: list[str] = []  # "经费今年必须花完": a budget to spend by a date, said
        self.network_said: list[str] = []  # "no infiniband": said beside the network the plan needs
        # "只有25G以太网", "8x400G IB": the network the team has, Gb/s, and whether that is each
        # server's (else each GPU's); planned on (engine TrainingSetup.network_gbps)
        self.network_speed: tuple[float, bool] | None = None
        self.long_context = ""  # "long context", "长文本" said with no sequence length (yet)
        self.multimodal = ""  # "多模态", "multimodal": planned on data in tokens (`_finish`), else refused
        # "4 servers with 4xA100 each": servers holding fewer GPUs than the catalogue's, said back
        self.server_shape: dict | None = None
        self.deadline_range: dict | None = None  # "3-6 months": planned to the later end, said
        self.ranges: list[dict] = []  # "30-50GB", "预算5-20万", "7-14B": planned on the upper end, said
        self.place_abroad: str | None = None  # "Singapore": the global clouds, not split by region
        self.budget_monthly = (
            False  # the budget was said by the month  # words a whole request was read without (`_may_change_plan`)
        )

    def _instance(self, m: re.Match) -> str:
        """A cloud instance type named ("2x p5.48xlarge", "GCP A3 Mega", "ND H100 v5"): its GPUs, counted
        where the instances are, and its cloud where no cloud is named; said (`instance_read`)."""
        typed = re.sub(r"\s+", " ", m["name"]).strip()
        found = _instance_of(typed)
        n = int(m["n"]) if m["n"] else None
        self.instances_read.append({"typed": typed, "gpu": found.gpu, "count": found.count, "cloud": found.cloud})
        cloud = "" if re.search(_CLOUD_WORDS, m.string[: m.start()] + " " + m.string[m.end() :]) else f" {found.cloud}"
        gpus = f"{n * found.count}x {found.gpu.lower()}" if n else f"on {found.gpu.lower()}"
        return f"{m['lead'] or ''} {gpus}{cloud} "

    def fail(self, kind: str, **details):
        if kind == "conflict" and details.get("field") in _STAGE_FIELDS:
            stages = _stages(self.text, self.lang)
            if stages:
                # "SFT with 40k examples, then DPO with 10k pairs": two runs one after the other, not
                # two data sizes that contradict each other
                said = sorted((details["first"], details["second"]), key=lambda w: self.norm.find(w.lower()))
                raise RequestError("two_stages", self.lang, first=said[0], second=said[1], **stages)
        if kind == "conflict" and details.get("field") in ("params_b", "model"):
            # "train 3 models: 7B, 13B and 70B", "7B or 13B": several models, one planned at a time
            # (it had said they contradict each other)
            raise RequestError("several_models", self.lang, first=details["first"], second=details["second"])
        closed = (
            _CLOSED_MODEL.search(self.text) if kind in ("unknown_model_name", "unknown_word", "missing_size") else None
        )
        if closed:
            # "gpt-4o", "豆包": no weights to train (it had asked for the model's size)
            raise RequestError("closed_model", self.lang, word=closed[0])
        named = _releases_in(self.text) if kind in ("unknown_model_name", "unknown_word", "missing_size") else None
        if named:
            # "deepseek-v4": the releases of that name, either of which plans (it had been "give its
            # size", or "DeepSeek V4" a misspelt deepseek-v3)
            raise RequestError("model_releases", self.lang, word=named[0], releases=named[1])
        raise RequestError(kind, self.lang, **details)

    def _reasoning_traces(self) -> bool:
        """Whether the samples are long chains of thought: said so, or a reasoning model's outputs."""
        teacher = (self.teacher or "").lower()
        return bool(REASONING_DATA.search(self.norm)) or any(t in teacher for t in REASONING_TEACHERS)

    def _refuse_rl(self, word: str) -> None:
        """An RL method: refused, with the floor worked out on the request's own prompts."""
        multiple = {
            f"{kind}_{end}": n for kind, ends in RL_STEP_MULTIPLE.items() for end, n in zip(("low", "high"), ends)
        }
        self.fail("unsupported_method", word=word, **multiple, **_rl_floor(self.text, self.lang))

    def set(self, field: str, value, word: str) -> None:
        word = re.sub(r"\s+", " ", word.strip())  # text other rules took is blanked: not quoted as a gap
        if field == "gpu":
            self.gpu_said.append((value, word))
        if word == self.skipped and field in _WITH_THE_GPU:
            return  # the count or servers said with a GPU type of the choice this parse leaves out
        if field == "gpu" and self.gpu_options and value in [v for v, _ in self.gpu_options]:
            # an option of the choice named again ("用A800还是4090划算，我们实验室有4张4090")
            if value != self.fields["gpu"]:
                self.skipped = word
                return
        elif field in CHOSEN and self.fields.get(field, value) != value and self._method_choice(value, word, field):
            if self.method_pick is None:
                self.fail("method_choice", first=self.method_options[0][1], second=word)
            if value != self.method_pick:
                return
        elif field == "method" and self._all_parameters(self.fields.get(field), self.words.get(field), value, word):
            # "全参 继续预训练", "full-param pretrain": pre-training trains every parameter; the bare
            # word says so, it is no second method
            if value == "full-finetune":
                return
        elif field == "method" and {self.fields.get(field), value} == {"lora", "qlora"}:
            # "lora 70b on 2x A100 qlora 4bit": QLoRA is LoRA on a 4-bit base, the narrower word is the
            # method (it had been refused as two methods); "lora or qlora?" is a choice, read above
            if value == "qlora":
                self.fields[field], self.words[field] = value, word
            return
        elif (
            field == "preference_tuning"
            and self.fields.get(field) not in (None, value)
            and "dpo" in (self.fields[field], value)
            and _GENERIC_PREFERENCE.fullmatch(word if value == "dpo" else self.words[field])
        ):
            # "ORPO on mistral-7b with 60k preference pairs": the generic word says what the data are,
            # the tuning named is the method (it had been refused as two preference tunings)
            if value != "dpo":
                self.fields[field], self.words[field] = value, word
            return
        elif field == "stack" and {self.fields.get(field), value} == {"hf", "deepspeed"}:
            # "LLaMA-Factory + DeepSpeed ZeRO-3": the HF Trainer front-end runs on DeepSpeed, which
            # decides the layout and memory (it had been refused as two frameworks)
            self.fields[field], self.words[field] = "deepspeed", self.words[field] if value == "hf" else word
            return
        elif field in self.fields and self.fields[field] != value:
            if field != "gpu" or not self._choice(value, word):
                self.fail("conflict", first=self.words[field], second=word, field=field)
            self._one_choice_of_two()
            if self.gpu_pick is None:
                self.fail("gpu_choice", first=self.gpu_options[0][1], second=word)
            if self.gpu_pick != len(self.gpu_options) - 1:
                self.skipped = word
                return
            # the option this parse keeps: what was said with the one it replaces goes with it
            for other in [f for f, w in self.words.items() if w == self.words["gpu"] and f in _WITH_THE_GPU]:
                del self.fields[other], self.words[other]
        self.fields[field] = value
        self.words[field] = word

    @staticmethod
    def _all_parameters(have, have_word: str | None, value, word: str) -> bool:
        """Whether a method said twice is pre-training (or continued) beside a bare "every parameter"
        word (全参, 全量, full-param), which it implies."""
        pair = {have, value}
        if "full-finetune" not in pair or not pair & {"pretrain", "continued-pretrain"}:
            return False
        bare = have_word if have == "full-finetune" else word
        return bool(re.fullmatch(r"全参数?|全量|full(?:[- ]param(?:eter)?s?)?", (bare or "").strip(), re.I))

    def _choice(self, value, word: str) -> bool:
        """Whether a second GPU type is an option of a choice, not a contradiction: joined to the
        option named last by "or", "vs", "还是", a comma ("H800 vs H20 vs A800", "A800或者H800"), or
        one of the two is the team's own ("we have 8 4090s, should we use them or rent H100?")."""
        last = self.gpu_options[-1][1] if self.gpu_options else self.words["gpu"]
        joined = re.search(
            rf"{re.escape(last)}\s*((?:[,，、]\s*)?(?:或者|或是|还是|或|和|与|跟|对比|/|\bor\b|\bvs\.?|\band\b)|[,，、])"
            rf"\s*(?:{_OWN_VERB}\s*)?{re.escape(word)}",
            self.norm,
        )
        if not joined and not (self._owned_mention(self.words["gpu"]) or self._owned_mention(word)):
            return False
        # the words that make it a choice are not chatter to refuse ("should we use them or rent H100")
        self.choice_words |= {joined[1].strip(" ,，、") or joined[1].strip()} if joined else {"or", "还是", "或者"}
        if not self.gpu_options:
            self.gpu_options.append((self.fields["gpu"], self.words["gpu"]))
        self.gpu_options.append((value, word))
        self._one_choice()
        return True

    def _method_choice(self, value, word: str, field: str = "method") -> bool:
        """Whether a second training method (or preference tuning: `field`) is an option of a
        choice ("lora vs full finetune", "qlora or lora", "用LoRA还是全参微调", "dpo vs orpo"), not a
        contradiction: joined to one named before by "or", "vs", "还是". The options are kept in
        the order written; methods and preference tunings both as a choice are one choice too many."""
        if self.method_options and self.choice_field != field:
            said = " / ".join(w for _, w in self.method_options)
            self.fail("choice_mixed_preference", methods=said, preferences=f"{self.words[field]} / {word}")
        self.choice_field = field
        named = [w for _, w in self.method_options] or [self.words[field]]
        joined = None
        for last in named:
            joined = joined or re.search(
                rf"{re.escape(last)}\s*(?:(?:[,，、]\s*)?(?:或者|或是|还是|或|/|\bor\b|\bvs\.?|\bversus\b))\s*"
                rf"(?:(?:do\s+|a\s+|用)?){re.escape(word)}"
                rf"|{re.escape(word)}\s*(?:(?:[,，、]\s*)?(?:或者|或是|还是|或|/|\bor\b|\bvs\.?|\bversus\b))\s*"
                rf"(?:(?:do\s+|a\s+|用)?){re.escape(last)}",
                self.norm,
            )
        if not joined:
            return False
        self.choice_words |= {"or", "vs", "vs.", "versus", "还是", "或者", "或"}
        if not self.method_options:
            self.method_options.append((self.fields[field], self.words[field]))
        if value not in [v for v, _ in self.method_options]:
            self.method_options.append((value, word))
            self.method_options.sort(key=lambda option: self.norm.find(option[1]))
        self._one_choice()
        return True

    def _cloud_choice(self, word: str) -> bool:
        """Whether a second cloud is an option of a choice: joined to the cloud named last by "or",
        "vs", "还是", "和", a comma; its joining word is then no chatter to refuse."""
        last = self.cloud_options[-1][1]
        joined = re.search(
            rf"{re.escape(last)}\s*(?:上)?\s*((?:[,，、]\s*)?(?:或者|或是|还是|或|和|与|跟|对比|/|\bor\b|\bvs\.?|\bversus\b|\band\b)|[,，、])"
            rf"\s*(?:(?:on|用|在)\s*)?{re.escape(word)}",
            self.norm,
            re.I,
        )
        if joined:
            self.choice_words |= {joined[1].strip(" ,，、") or joined[1].strip()}
        return bool(joined)

    def _one_choice(self) -> None:
        """GPU types and training methods both named as a choice: one choice at a time."""
        if self.gpu_options and self.method_options:
            self.fail(
                "choice_mixed",
                gpus=" / ".join(w for _, w in self.gpu_options),
                methods=" / ".join(w for _, w in self.method_options),
            )

    def _one_choice_of_two(self) -> None:
        """GPU types and clouds both named as a choice ("h100 vs h200 aws vs gcp"): one choice at a
        time (it had been refused as a GPU choice, which names no cloud)."""
        if len(self.gpu_options) > 1 and len(self.cloud_options) > 1:
            self.fail(
                "choice_mixed_cloud",
                gpus=" / ".join(w for _, w in self.gpu_options),
                clouds=" / ".join(w for _, w in self.cloud_options),
            )

    def _owned_mention(self, word: str) -> bool:
        """Whether the team's having-words stand right by this mention of a GPU ("我们实验室有4张4090",
        "16 H100s in house")."""
        have = self.words.get("owned")
        if not have:
            return False
        have, word = re.escape(have), re.escape(word)
        return bool(re.search(rf"{have}\s*{word}|{word}\s*{have}", self.norm))

    def run(self) -> TrainingRequest:
        self.read(tolerant=True)
        self._option_verb()
        return self._finish()

    def _option_verb(self) -> None:
        """A GPU choice's option said with its own verb ("rent H800 or buy A800", "租H800还是买A800"):
        the side planned on that option rents or buys as said (the verbs were read as the
        rent-or-buy question, which alone would price both sides alike)."""
        if self.gpu_pick is None or len(self.gpu_options) < 2 or "rent_or_buy" in self.fields:
            return
        word = self.gpu_options[self.gpu_pick][1]
        said = re.search(rf"(?<![a-z])({_OWN_VERB})\s*(?:\d+\s*(?:x|×|张|台|块)?\s*)?{re.escape(word)}", self.norm)
        if said:
            self.set("rent_or_buy", value_of(fields.field("rent_or_buy").choices, said[1]), said[1])

    def read(self, filler: frozenset[str] = frozenset(), tolerant: bool = False) -> None:
        """Fill `fields` from the text; refuse any word left over (besides `filler`), or with
        `tolerant` (a whole request) only those `_leftover` says may change the plan."""
        sc = self.scan
        sc.take(
            _lang_pattern(), lambda m: self.set("lang", value_of(fields.field("lang").choices, _lang_word(m)), m[0])
        )
        # another reply language asked (`lang fr`): the two there are, said (it had been "I did not
        # understand 'lang'")
        sc.take(
            rf"{L}(?:{_en(fields.field('lang').keys)})\s*[:=]?\s*[a-z]{{2,8}}{R}",
            lambda m: self.fail("bad_value", word=m[0].strip(), what="lang"),
        )
        if "lang" in self.fields and not self.forced_lang:
            self.lang = self.fields["lang"]
        # A training cluster built on the team's own premises ("想在本地部署一个训练集群", "自建GPU集群",
        # "build our own on-prem cluster"): the servers bought (本地部署 had been read as where the
        # trained model runs, and the plan rented)
        sc.take(
            r"(?:本地|自己|自行|公司内部|内部)?(?:部署|搭建|搭|建设|自建|建)\s*(?:一个|一套|几台|一批)?\s*(?:自己的)?\s*"
            r"(?:训练|gpu|GPU|算力|ai|AI|智算)?\s*(?:集群|机房|算力中心|智算中心)"
            rf"|{L}(?:build|set\s+up|deploy|stand\s+up)\s+(?:our\s+own\s+|an?\s+|our\s+)?(?:own\s+)?"
            rf"(?:on[\s\-]?prem(?:ise)?s?\s+)?(?:gpu\s+|training\s+)*cluster{R}"
            rf"|{L}on[\s\-]?prem(?:ise)?s?\s+(?:gpu\s+|training\s+)*cluster{R}",
            lambda m: self.set("rent_or_buy", "buy", m[0]),
        )
        # The model deployed on the team's own servers ("deepseek-v3 lora 5万条 私有化部署"): where it
        # will run, said; it had been refused as a serving request
        sc.take(
            r"私有化部署|私有部署|本地化部署|本地部署",
            lambda m: self.on_premises.append(m[0].strip()),
        )
        self._power_price()  # before amounts and money: `0.6元` or `$0.12` a kWh is no budget
        self._choose("used_gpus")  # before the GPUs: `二手3090`
        # A grant to spend by a date ("经费300万今年必须花完", "use it or lose it"): said, the plan still
        # what the job needs (it had been refused on the words)
        sc.take(
            r"(?:今年|年底前|年内|本年度|年前)?\s*(?:必须|要|得|需要)\s*(?:花完|花掉|用完|花光|执行完)"
            rf"|{L}use\s+it\s+or\s+lose\s+it{R}"
            rf"|{L}(?:must|has\s+to|needs\s+to)\s+be\s+spent(?:\s+(?:this\s+year|by\s+(?:year[\s\-]end|the\s+end\s+of\s+the\s+year)))?{R}",
            lambda m: self.spend_by.append(m[0].strip()),
        )
        # Serving is sized by KV cache, batch and latency, not by the training arithmetic here.
        sc.take(SERVING.pattern, lambda m: self.fail("inference", word=m[1] or m[2]))
        # One cloud named: the plan is priced on that cloud's market (dollars for the global clouds,
        # yuan for mainland China's) and on its own offers where they deliver it (the request had
        # been refused, a US buyer's `70B lora 50k samples 3d on aws`; then planned on a GPU AWS
        # does not rent); of several, the first is the one priced, unless they are named as a
        # choice ("lambda vs coreweave", "阿里云还是火山引擎": compared side by side, `cloud_choice`)
        row = fields.field("cloud")

        def cloud(m: re.Match) -> None:
            name = (m["en"] or m["zh"]).strip()
            value = value_of(row.choices, name)
            if "cloud" not in self.fields:
                self.set("cloud", value, name)
                self.cloud_options = [(value, name)]
            elif value not in (v for v, _ in self.cloud_options) and self._cloud_choice(name):
                self.cloud_options.append((value, name))
                self._one_choice_of_two()
                if self.cloud_pick is None:
                    self.fail("cloud_choice", first=self.cloud_options[0][1], second=name)
                if self.cloud_pick == len(self.cloud_options) - 1:
                    self.fields["cloud"], self.words["cloud"] = value, name

        sc.take(
            rf"{L}(?:(?:on|at|via|using)\s+)?(?P<en>{_all(row.choices, 'en')}){R}"
            rf"|(?:用|在)?(?P<zh>{_all(row.choices, 'zh')})(?:上)?",
            cloud,
        )
        # Money in another currency: prices here are in yuan or dollars, and a budget read as yuan
        # ("预算50万欧元" had been ¥500,000 with 欧元 read past) would be off by the exchange rate
        sc.take(
            r"(?<![a-z])(euros?|eur|gbp|pounds?(?:\s+sterling)?|hkd|jpy|yen|krw|rubles?)(?![a-z])|([€£])"
            r"|(欧元|欧(?!洲)|英镑|港币|港元|日元|日币|韩元|新加坡元|卢布)",
            lambda m: self.fail("currency_unsupported", word=(m[1] or m[2] or m[3]).strip()),
        )
        # Data that is not text (images, video, audio): the encoder and the tokens an item makes are
        # not planned here; said, with what to give instead
        sc.take(
            rf"{L}(images?(?![\s\-]text)|videos?|audio|speech|pictures?|photos?)"
            rf"(?:\s+(?:data|dataset|samples|clips|files))?{R}"
            # "10万张图" (张图文 are image-text samples, read as samples)
            r"|(图片|图像|照片|视频|音频|语音|(?<=张)图(?![文片像]))",
            lambda m: self.fail("modality", word=(m[1] or m[2]).strip()),
        )
        # the job said to be multimodal ("多模态 7B 微调 10亿token"): its language model on data given in
        # tokens, said; with data in any other unit refused as above (`_finish`)
        sc.take(
            rf"{L}(multi[\s\-]?modal|vision[\s\-]language)(?:\s+(?:model|data|dataset|job|training))?{R}|(多模态)",
            lambda m: setattr(self, "multimodal", (m[1] or m[2]).strip()),
        )
        # Encoder-only and encoder-decoder families: the shapes and FLOPs here are for decoders.
        sc.take(
            rf"{L}((?:flan[\s_\-]?)?(?:bert|roberta|deberta|electra|albert|t5|mt5|bart|mbart|ul2))"
            rf"(?:[_\-][a-z0-9.\-]*)?{R}",
            lambda m: self.fail("architecture", word=m[0].strip()),
        )
        # "卡不限", "不限卡型", "卡数随意", "any GPU": no bound on the GPUs, which is the default (the
        # planner's choice); read before the counts, and never as a negation to refuse
        sc.take(
            r"(?:显卡|卡型|型号|卡数|卡的数量|数量|卡|gpu)\s*(?:不限|不限制|随意|随便|都行|无所谓)"
            r"|不限(?:卡型|型号|卡数|显卡|卡|gpu)"
            rf"|{L}any\s+(?:gpus?|cards?|gpu\s+type|number\s+of\s+gpus){R}",
            lambda m: None,
        )
        # "which is better", "which one is cheaper" beside two GPU types: the comparison's question
        sc.take(
            rf"{L}which(?:\s+one)?(?:\s+(?:is|would\s+be|will\s+be))?\s+(?:better|cheaper|faster|best|cheapest|fastest)"
            rf"(?:\s+(?:for|value))?{R}|(?:哪个|哪一个|哪种)(?:更|比较|最)?(?:好|划算|便宜|快|合适|适合|值|值得|省钱)"
            # "H20 和 H800 对比一下": asking for the comparison itself
            r"|(?:对比|比较|比)一下|对比|做个对比|比一比",
            lambda m: None,
        )
        # "用什么卡比较划算", "选哪种卡合适", "买啥显卡": which GPU is the question the plan answers
        sc.take(
            r"(?:用|选|买|租|上)?\s*(?:什么|哪种|哪个|哪款|哪类|啥)\s*(?:显卡|卡型|型号|卡|gpu)"
            r"(?:\s*(?:比较|最|更)?\s*(?:划算|便宜|合适|好|省钱))?",
            lambda m: None,
        )
        # "a big model", "大模型": a kind of model, no size; read past, so that a request without a
        # size is asked for one rather than told its adjective was not understood
        # ("中文大模型", "代码大模型": the language it learns is the data's)
        spoken = fields.field("data_language").choices
        sc.take(
            rf"{L}(?:big|large|huge|giant|massive)(?:\s+language)?\s+(?:models?|llms?){R}"
            rf"|(?P<lang>{_all(spoken, 'zh')})?(?:超)?大(?:型)?(?:语言)?模型",
            lambda m: self.set("data_language", value_of(spoken, m["lang"]), m[0]) if m["lang"] else None,
        )
        # who the team is ("we are a 40-person startup", "我们是40人的创业公司"): read past and said,
        # before any rule takes its number as a count of GPUs or data
        sc.take(
            rf"{L}(?:a\s+)?\d+[\s\-]*(?:person|people|member|employee|engineer)s?(?:[\s\-]+(?:startup|team|company|lab|shop))?{R}"
            r"|\d+\s*(?:个人|人|名员工)(?:左右)?的?\s*(?:创业公司|初创公司|创业团队|小团队|团队|公司|实验室|创业)"
            # "我们公司30人", "团队 20 来人", "公司规模50人"
            r"|(?:公司|团队|实验室|组里)(?:规模|有|一共|总共)?\s*(?:大概|约)?\s*\d+\s*(?:个人|人|名员工)(?:左右)?"
            # who shares the servers ("10个学生共用", "shared by 3 teams"): the plan sizes one job
            r"|(?:\d+|[一二两三四五六七八九十]+)\s*(?:个|名|位)?\s*(?:学生|同学|研究生|老师|团队|组|人|用户)\s*(?:共用|共享|一起用|合用|轮流用)"
            # "给12个学生用" (had been refused as "服务器12学生")
            r"|(?:给|供)\s*(?:\d+|[一二两三四五六七八九十]+)\s*(?:个|名|位)?\s*(?:学生|同学|研究生|老师|团队|组|人|用户)\s*(?:用|使用|共用)"
            rf"|{L}shared\s+(?:by|between|across)\s+(?:\d+|two|three|four|five|several|many)\s+(?:students|teams|groups|people|users|researchers){R}",
            lambda m: self.read_past.append(m[0].strip()),
        )
        self._ranges()
        self._choose("old_bitsandbytes")  # before the GPU counts and sizes read its version's digits
        self._choose("old_litgpt")
        self._choose("old_transformers")  # before `transformers` names the stack and `4` a count
        # transformers 5, the version planned unsaid: its number read past, the word names the stack
        self.scan.take(
            r"\btransformers[\s\-]*(?P<v>v?5(?:\.\d+)*(?:\.x)?)(?![\w.])"
            r"(?!\s*(?:(?:days?|d|weeks?|w|hours?|h|months?|mo)(?![a-z])|天|周|小时|个月))",
            lambda m: self.read_past.append(m[0].strip()),
            only="v",
        )
        self._choose("no_z3_leaf")
        # "budget is tight, maybe $2000": a hedge on the sum after it, as "about" is (a hedge on a
        # count of GPUs or days is no rule's: still refused)
        self.scan.take(
            rf"{L}(?:maybe|perhaps|probably|roughly){R}"
            r"(?=\s*(?:[$¥￥]\s*\d|\d[\d,.]*\s*(?:k|m|w|万|usd|dollars?|bucks|元|块|rmb|cny)(?![a-z])))",
            lambda m: None,
        )
        self._owned()
        self._gpus()
        if self.gpu_options and self.fields.get("owned"):
            # the team's own GPUs are one option of the choice: the others are rented
            own = {v for v, w in self.gpu_said if self._owned_mention(w)}
            if own and self.fields["gpu"] not in own:
                del self.fields["owned"], self.words["owned"]
        self._choose("one_server")  # after `单机八卡`, which gives the GPUs
        self._choose("nvlink")
        self._models()
        self._knobs()
        self._methods()
        self._budget()
        self._choose("hourly_only")  # before the lease words: `on-demand` is no term
        # after the budget (`$50k per month` is a budget by the month): a job run every month, and
        # the data of each run ("500GB of data per run")
        self._choose("recurring")
        # a run every week ("retrain every week", "weekly", "每周训练一次"): recurring, 52/12 runs a month
        # ("every week" had been refused as a word not understood)
        self.scan.take(
            rf"{L}(?:once\s+(?:a|every|each)\s+week|(?:every|each)\s+week|weekly){R}"
            r"|每周(?:都要|都|训练|跑|微调)?(?:一次)?|每个?(?:星期|礼拜)(?:都要|都)?(?:一次)?",
            lambda m: (self.set("recurring", True, m[0]), setattr(self, "weekly", m[0].strip())),
        )
        self._choose("own_room")
        self._choose("power_paid")
        # who pays the power and where the servers stand, said otherwise ("电费学校交", "电费由学校支付",
        # "放组里机房": each had been read past while the bills were counted)
        payer = r"(?:学校|单位|公司|院里|所里|系里|学院|实验室|甲方|老板|导师)"
        pays = r"(?:来)?\s*(?:出|交|付|支付|承担|负担|报销|包|缴)"
        self.scan.take(
            rf"电费\s*(?:由|让)?\s*{payer}\s*{pays}|{payer}\s*{pays}\s*电费|电费\s*(?:不用|无需|不需要)\s*(?:我们|自己)?\s*(?:出|交|付|缴)",
            lambda m: self.set("power_paid", True, m[0]),
        )
        self.scan.take(
            r"放(?:在)?\s*(?:组里|自己|我们|学校|院里|系里|楼里|所里)(?:的)?\s*(?:机房|实验室|办公室|房间)",
            lambda m: self.set("own_room", True, m[0]),
        )
        self.scan.take(
            r"每个?月\s*(?:都)?\s*(?:要)?\s*(?:跑|训练|训|做|微调)\s*(?:一次|一轮|一遍)",
            lambda m: self.set("recurring", True, m[0]),
        )
        self.scan.take(rf"{L}(?:per|each|every|a)\s+(?:run|job|round){R}|每次(?:训练|跑)?", lambda m: None)
        # what the model is for, said with "customer" ("for customer support"): read past and said (the
        # word had been refused as someone else's, "their customers' GPUs")
        self.scan.take(
            rf"{L}(?<![\dkmw]\s)(?:for\s+)?(?:our\s+|the\s+)?customer[\s\-](?:support|service|care|success)"
            rf"(?:\s+(?:bot|chatbot|assistant|agent|use|tasks?))?{R}(?!\s*(?:tickets?|samples?|chats?|conversations?|data|models?))",
            lambda m: self.read_past.append(m[0].strip()),
        )
        self._lease_term()
        self._own_use()
        self._data()
        self._deadline()
        self._sizes()
        self._preferences()
        self._about_the_data()
        leftovers = [w for w in sc.leftovers(filler) if w not in self.choice_words]
        bare = self._bare_samples(leftovers)
        leftovers = [w for w in leftovers if w != bare]
        if self.teacher is not None:  # "蒸馏：用DeepSeek-R1生成的数据…": the label of what the teacher's data is for
            leftovers = [w for w in leftovers if not re.fullmatch(r"蒸馏|distill(?:ation|ed|ing)?", w)]
        if "preference_tuning" in self.fields:  # "对齐训练 7B DPO 5万对": alignment, which DPO names
            leftovers = [w for w in leftovers if not re.fullmatch(r"对齐(?:训练|微调)?", w)]
        # what the samples are ("30万条 多轮对话", "单轮问答"): its 轮 is a turn, not an epoch
        leftovers = [w for w in leftovers if not re.fullmatch(r"[多单]轮(?:对话|会话|问答)(?:数据|样本)?", w)]
        count = self.fields.get("gpu_count")
        if leftovers and count is not None and not fields.field("gpu_count").ok(count):
            # a count no plan can have is what to say, before a word not read ("我们有100万张H100能训什么"
            # had been an unsure FAQ answer for its 什么)
            self.fail("bad_value", word=self.words.get("gpu_count", ""), what="gpu_count")
        if leftovers:
            sized = "params_b" in self.fields or "model" in self.fields
            # "kimi-k3": a word shaped like a model name, with no size given: ask for the size; a
            # piece of one whose middle another rule took ("-01" of "minimax-text-01") names it whole
            whole = next((t for t in self.norm.split() if leftovers[0] in t), leftovers[0])
            if not sized and (_MODEL_LIKE.fullmatch(leftovers[0]) or _MODEL_LIKE.fullmatch(whole)):
                self.fail("unknown_model_name", word=whole if _MODEL_LIKE.fullmatch(whole) else leftovers[0])
            refused = leftovers if not (tolerant and sized) else [w for w in leftovers if _may_change_plan(w)]
            if refused:
                word = refused[0]
                bends = any(rx.fullmatch(word) for rx in (_RISKY, _NEGATION, _TIME_WORDS))  # no typo ("least")
                # why it is refused, where a reason helps more than "did not understand"
                why = (
                    "negation"
                    if _NEGATION.fullmatch(word) or (not word.isascii() and _ZH_NEGATION.search(word))
                    else "distillation"
                    if re.fullmatch(r"distill(?:ation|ed)?", word) or "蒸馏" in word
                    # "对齐训练 7B 5万条": alignment names no method
                    else "alignment"
                    if re.fullmatch(r"对齐(?:训练|微调)?", word)
                    # "qwen3-32b cpt 200B 32k": a length or a count, unsaid which
                    else "bare_thousands"
                    if re.fullmatch(r"\d+(?:\.\d+)?k", word)
                    else ""
                )
                nearest = "" if bends else _nearest_word(word)
                # ("想训一个客服模型", "a legal model": the word names what the model is for, whatever else is said)
                purpose = re.search(
                    rf"{re.escape(word)}\s*(?:的)?\s*(?:大)?模型|{re.escape(word)}[\s\-]+(?:model|llm|bot|assistant)\b",
                    self.text,
                    re.I,
                )
                if (
                    not sized
                    and not why
                    and not nearest
                    and ("data" in self.fields or "budget" in self.fields or purpose)
                ):
                    # "微调一个客服模型，数据5万条，预算10万": a plan with no model; a word not read and
                    # no typo of one is likelier what the model is for than the problem (it had been
                    # blamed alone)
                    self.fail("missing_size", word=word)
                self.fail("unknown_word", word=word, nearest=nearest, why=why)
            self.read_past += leftovers

    def _bare_samples(self, leftovers: list[str]) -> str | None:
        """The one bare `Nk` left unread, taken as the count of samples where it cannot be a context
        length (those are powers of two in 1,024s: `4k`, `32k`) and nothing else gives the data of
        a fine-tuning request (`glm-4.5-air lora 30k 3天`, `llama-4-scout lora 20k 3 days`: both had
        been refused as a length or a count, unsaid which); said as read (`bare_k_samples`)."""
        bare = [w for w in leftovers if re.fullmatch(r"\d+k", w)]
        if len(bare) != 1 or "data" in self.fields or self.fields.get("method") in ("pretrain", "continued-pretrain"):
            return None
        thousands = int(bare[0][:-1])
        if thousands in CONTEXT_THOUSANDS or thousands == 0:
            return None
        self.set("data", (thousands * 1000.0, "samples"), bare[0])
        self.bare_samples = bare[0]
        return bare[0]

    def _ranges(self) -> None:
        """A range of data, money or model size ("30-50GB", "预算5-20万", "budget 10-20k usd",
        "7-14B", "8B-70B", "1-2万条"): the upper end is planned, as a range of time is (the more
        data, money or parameters, the surer the plan holds); the lower end is blanked here so
        the rules read the upper end where it stands, and said with how to ask for it. Before
        every rule; time ranges are the deadline's (`3-6 months`)."""
        scale = rf"{CN_UNITS}|{SCALE_WORDS}|k|m|b|t|w"
        data_units = _all(fields.field("data").units, "en") + "|" + _all(fields.field("data").units, "zh")
        money = _all(fields.field("budget").units, "en") + "|" + _all(fields.field("budget").units, "zh")
        sign = spelled([s for w in fields.field("budget").signs for s in w.en], literal=True)
        # what must follow the upper end for the range to be one of these (a scale of money or
        # size, a unit of data, a currency): "2-3 days", "3-6月" and "4-8卡" stay the rules' own
        after = rf"(?=\s*(?:{data_units}|{money}|参数|模型|params?|parameters)|(?<=[bmtkw万千亿])(?![a-z0-9]))"
        self.scan.take(
            rf"(?<![a-z0-9._\-/])(?P<sym>{sign})?\s*(?P<gone>(?P<lo>{NUM})\s*(?P<lu>{scale})?\s*(?:-|–|~|～|到|至|\s+to\s+)"
            # one sign stays before the upper end: "$10k-$20k" is read "$20k", "10k-$20k" too
            rf"\s*(?(sym)(?:{sign})?))\s*(?P<sym2>(?(sym)|(?:{sign})))?\s*(?P<hi>{NUM})\s*(?P<hu>{scale})?{after}",
            self._range,
            only="gone",  # the lower end and the dash: the sign and the upper end are left for the rules
        )

    def _range(self, m: re.Match) -> None:
        if not 0 < _amount(m["lo"], m["lu"] or m["hu"]) < _amount(m["hi"], m["hu"]):
            self.scan.keep = True  # not a range ("50-30GB"): the rules refuse its pieces as before
            return
        unit = m["hu"] or ""
        self.ranges.append(
            {
                "words": m[0].strip(),
                "high": f"{m['hi']}{unit}",
                "low": f"{m['lo']}{m['lu'] or unit}",
            }
        )

    # -- hardware -------------------------------------------------------------------
    def _owned(self) -> None:
        """GPUs the team has ("we already own 16 A100", "we have 2 servers of 8xA800", "on our 2 DGX
        H100", "我们有16张A800"): a verb of having, or "our", right before a count of GPUs or servers,
        so "we have 50k samples" and "own use" stay what they were."""
        alt = _gpu_names()
        en_units = _all(fields.field("gpu_count").units, "en") + "|" + _all(fields.field("nodes").units, "en")
        zh_units = _all(fields.field("gpu_count").units, "zh") + "|张|块|台"
        self.scan.take(
            rf"{L}(?:(?:we|i|(?:our|the)\s+(?:team|company|lab|group|org|organi[sz]ation|university|department|startup))"
            rf"\s+(?:(?:already|only|just|currently)\s+)?(?:own|owns|have|has|got|possess|possesses)(?:\s+already)?"
            # "our GPUs: 16x A800", "our hardware is 2 servers of 8xA800" (the rent had been planned)
            rf"|(?:our|my)(?:\s+own)?\s+(?:gpus|hardware|cluster|servers|machines)\s*(?::|=|\s+are|\s+is)"
            rf"|(?:we|i)'ve\s+(?:(?:already|only|just)\s+)?got|our(?:\s+own)?|my(?:\s+own)?|owned)"
            rf"(?=\s+(?:\d+|an?\s+single|single|an?|one|two|three|four)\s*(?:x\s*|\s+)?(?:\d+\s*[x*]\s*)?"
            rf"(?:{alt}|{en_units}|servers?\s+of|dgx|hgx)s?(?![a-z0-9]))"
            rf"|(?:(?:{_ZH_OWNER})?(?:已经|手上|手头|手里)(?:现在|目前)?(?:只)?(?:有|拥有)"
            # the hands alone hold them: "手上3张4090"
            rf"|(?:{_ZH_OWNER})?(?:手上|手头|手里)"
            rf"|(?:{_ZH_OWNER})(?:的)?(?:(?:{_ZH_PLACE})(?:里面|里|中|上)?)?(?:已经)?(?:只)?(?:有|拥有)"
            rf"|(?:(?:用|使用|在)?(?:{_ZH_OWNER})(?:自己)?(?:的)?)?(?:已有|现有|自有)(?:的)?"
            rf"|(?:用|使用|在)?(?:{_ZH_OWNER})(?:自己)?的|(?:^|(?<=[\s，,。；;]))(?:只|就)?有)(?:\s*{_ZH_IDLE})?"
            rf"(?=\s*(?:\d+|[{CN_DIGITS}]+)\s*(?:{zh_units})|\s*(?:{alt}))",
            lambda m: self.set("owned", True, m[0]),
        )

        # "have 8 A800 already", "already own 2 servers of 8xA800": the subject left out, as chat writes
        # it (the GPUs had been rented, "already" skipped)
        self.scan.take(
            rf"(?:^|(?<=[,;:.]))\s*(?:(?:already|currently|just)\s+)?(?:own|have|got)(?:\s+already)?"
            rf"(?=\s+(?:\d+|an?|one|two|three|four)\s*(?:x\s*|\s+)?(?:\d+\s*[x*]\s*)?"
            rf"(?:{alt}|{en_units}|servers?\s+of|dgx|hgx)s?(?![a-z0-9]))",
            lambda m: self.set("owned", True, m[0]),
        )
        if self.fields.get("owned"):  # "... 8 A800 already": the having's word, said after them
            self.scan.take(r"(?<=[a-z0-9])\s+already(?=\s*(?:[,;:.]|$))", lambda m: None)

        # "on my 4090": one card of the person's own (it had been read past, and eight rented)
        def my_card(m: re.Match) -> None:
            self.set("owned", True, m[0])
            self.set("gpu_count", 1, m[0])

        self.scan.take(rf"{L}my(?:\s+own)?(?:\s+single)?(?=\s+(?:{alt})(?![a-z0-9])(?!s\b))", my_card)
        # "on our own A100s", "we have 3090s", "my 3090s": the team's GPUs of that type, the count the
        # plan's, as `我们有A100` reads (had been refused as an unknown word, or read as rented)
        self.scan.take(
            rf"{L}(?:our(?:\s+own)?|my(?:\s+own)?|(?:we|i)\s+(?:(?:already|only|just|currently)\s+)?(?:own|have|got))"
            rf"(?=\s+(?:{alt})s?(?![a-z0-9]))",
            lambda m: self.set("owned", True, m[0]),
        )
        # "our cluster is 4 nodes x 8 H800", "our servers are 2x8 A800": the team's own machines, said
        # before their count
        self.scan.take(
            rf"{L}our\s+(?:own\s+)?(?:cluster|servers?|nodes?|machines?|rig|boxes)\s+(?:is|are|has|have)(?:\s+(?:got|about|roughly))?"
            rf"(?=\s+(?:\d+|an?|one|two|three|four)\s*(?:x\s*|\s+)?(?:\d+\s*[x*]?\s*)?(?:{alt}|{en_units}|dgx|hgx)s?(?![a-z0-9]))",
            lambda m: self.set("owned", True, m[0]),
        )
        # "16 H100s in house", "8 A800 on-prem": the GPUs named just before stand in the team's own room
        self.scan.take(
            rf"(?:{alt}|gpus?|cards?)s?\s+(?P<here>in[\s\-]house|on[\s\-]prem(?:ises?)?){R}"
            r"(?!\s+(?:data|dataset|corpus|text|documents|samples))",  # "in-house data" is the data's
            lambda m: self.set("owned", True, m["here"]),
            only="here",
        )
        # "on H20s we already own", "the A800s we have": the GPUs named before the verb of having
        # (had been read past, and the plan rented)
        self.scan.take(
            rf"(?:{alt}|gpus?|cards?)s?\s+(?P<here>(?:that\s+|which\s+)?(?:we|i)\s+(?:(?:already|currently)\s+)?"
            rf"(?:own|have|got|bought)(?:\s+already)?){R}",
            lambda m: self.set("owned", True, m["here"]),
            only="here",
        )
        self._choose("owned")
        # "on a single 24GB card", "一张24G的卡": a card by its memory alone, before the data reads it as
        # a data size; refused as a memory size (`24G显存`, `_gpus`)
        self.scan.take(
            r"(?<![a-z0-9.])(?P<gb>\d{2,3})\s*g(?:b|ib)?\s*(?:的)?\s*(?:vram\s+|显存\s*(?:的)?\s*)?"
            r"(?:cards?|gpus?|graphics cards?|显卡|卡)(?![a-z])",
            lambda m: self.fail("gpu_memory", word=m[0].strip(), gb=m["gb"], cards=_cards_of(m["gb"])),
        )
        # "自有机器" with no GPU named: whose machines?
        self.scan.take(
            r"(?:自有|自己的|已有)(?:的)?(?:机器|服务器|集群|显卡|卡|gpu)(?!\s*\d)",
            lambda m: self.fail("nodes_need_gpu", word=m[0]),
        )

    def _gpus(self) -> None:
        alt = _gpu_names()
        sep = r"\s*(?:x|\*|卡|张|块)?\s*"
        # the NVL parts (94 GB PCIe cards in NVLink pairs, 141 GB for H200 NVL): not the catalogue's H100
        # or H200, whose name they start with ("2x H100 NVL" had been "I did not understand 'nvl'")
        self.scan.take(
            rf"{L}(?P<name>h[12]00[\s\-]*nvl){R}",
            lambda m: self.fail("unknown_gpu", name=m["name"].upper(), known=_known_gpus()),
        )
        # a GPU type ruled out ("不要4090", "no 4090s", "without H20"): refused as a negation, not
        # read as a second GPU type that contradicts the first
        self.scan.take(
            rf"(?:{L}(?P<en>no|not|without|except|avoid)\s+(?:on\s+|the\s+|any\s+)?"
            # not the middle of a yes-or-no question ("能不能用H20", "要不要H20", "用不用H20")
            rf"|(?P<zh>(?<!要)不要|(?<!用)不用|别用|不想用|不考虑|(?<!能)不能用|除了)\s*)(?:{alt})s?{R}",
            # the negation itself is the word not understood ("不要": 要 alone is filler)
            lambda m: self.fail("unknown_word", word=m["en"] or m["zh"][0], nearest="", why="negation"),
        )
        # the 48 GB RTX 4090 (a 4090 or 4090D rebuilt with 48 GB by third parties, sold in China):
        # no maker publishes its figures, so it is not catalogued; said, with what to type instead
        self.scan.take(
            r"(?<![a-z0-9.])(?:rtx\s*)?4090\s*d?\s*(?:显存\s*)?48\s*g(?:b)?(?:\s*显存)?(?:\s*的?\s*(?:魔改[版款]?|modded|mod))?(?![a-z0-9])"
            r"|(?<![a-z0-9.])48\s*g(?:b)?\s*(?:的|版|显存)?\s*(?:魔改[版款]?(?:的)?\s*)?(?:rtx\s*)?4090\s*d?(?![a-z0-9])"
            r"|魔改[版款]?(?:的)?\s*(?:48\s*g(?:b)?\s*(?:的|版)?\s*)?(?:rtx\s*)?4090\s*d?(?![a-z0-9])"
            r"|(?<![a-z0-9.])(?:rtx\s*)?4090\s*d?\s*魔改[版款]?"
            r"|(?<![a-z])(?:modded|modified)\s+(?:48\s*gb?\s+)?(?:rtx\s*)?4090d?s?(?![a-z0-9])",
            lambda m: self.fail("modded_4090", word=m[0].strip()),
        )
        self._zh_servers(alt)

        # a bound on the count ("up to 64 GPUs", "at least 16 H800", "64卡以内", "至少16张卡"), with
        # or without the type: the planner picks the count within it
        count = fields.field("gpu_count").units
        cards = rf"(?:(?:{_all(count, 'en')}){R}|(?P<name>{alt})s?{R})"

        def zh_cards(suffix: str) -> str:
            # "最多16张卡", "最多16张H800", and after the type "4090 最多16张"
            return rf"(?:(?:张|块)?(?:卡|显卡|gpu|(?P<name{suffix}>{alt}))|(?:张|块)(?![卡显]))"

        def bound(field: str, m, name: str | None) -> None:
            if name:
                self.set("gpu", catalog.find_gpu(name).name, m[0])
            self.set(field, int(m["n"] or m["n2"]), m[0])

        most = r"up\s+to|at\s+most|no\s+more\s+than|not\s+more\s+than|max(?:imum)?(?:\s+of)?"
        least = r"at\s+least|min(?:imum)?(?:\s+of)?|no\s+fewer\s+than|no\s+less\s+than"
        # fewer than N: at most N - 1
        self.scan.take(
            rf"{L}(?:fewer|less)\s+than\s+(?P<n>\d+)(?P<n2>)\s*(?:x\s*)?{cards}|(?:少于|低于|不到)\s*(?P<n3>\d+)\s*{zh_cards('3')}",
            lambda m: (
                self.set("max_gpus", int(m["n"] or m["n3"]) - 1, m[0])
                if not (m["name"] or m["name3"])
                else (
                    self.set("gpu", catalog.find_gpu(m["name"] or m["name3"]).name, m[0]),
                    self.set("max_gpus", int(m["n"] or m["n3"]) - 1, m[0]),
                )
            ),
        )
        for field, en, zh_before, zh_after in (
            ("max_gpus", most, r"最多|不超过|至多", r"以内|之内|以下"),
            ("min_gpus", least, r"至少|最少|不少于", r"以上"),
        ):
            self.scan.take(
                rf"{L}(?:{en})\s+(?P<n>\d+)(?P<n2>)\s*(?:x\s*)?{cards}",
                lambda m, field=field: bound(field, m, m["name"]),
            )
            # "32 GPUs max", "64 H100s at most", "8 gpus minimum": the bound after the count
            after = r"max(?:imum)?|at\s+most|tops" if field == "max_gpus" else r"min(?:imum)?|at\s+least"
            self.scan.take(
                rf"{L}(?P<n>\d+)(?P<n2>)\s*(?:x\s*)?{cards}\s*,?\s*(?:{after}){R}",
                lambda m, field=field: bound(field, m, m["name"]),
            )
            # (not a rate's cap: "每卡时最多5块" is yuan, 块 of money)
            self.scan.take(
                rf"(?<![时月])(?:{zh_before})\s*(?P<n>\d+)\s*{zh_cards('')}|(?P<n2>\d+)\s*{zh_cards('2')}\s*(?:{zh_after})",
                lambda m, field=field: bound(field, m, m["name"] or m["name2"]),
            )

        def gpu(m: re.Match) -> None:
            found = catalog.find_gpu(m["name"])
            self.set("gpu", found.name, m[0])
            count = m["count"] or m["count2"] or m["count3"] or ("1" if m["one"] or m["one_zh"] else None)
            if m["count"]:
                self._not_negative(m, "count")
            if m["count"] and m["count2"]:
                # "8卡H800*4": GPUs a server, times servers
                per, servers = int(_num(m["count"])), int(m["count2"])
                self.set("gpu_count", per * servers, m[0])
                if per == found.gpus_per_server:
                    self.set("nodes", servers, m[0])
            elif count:
                self.set("gpu_count", _big_count(count), m[0])
            elif m["cn_count"]:
                self.set("gpu_count", int(_cn_num(m["cn_count"])), m[0])

        # "2x8 H800": servers x GPUs each
        servers = _all(fields.field("nodes").units, "en")

        # "on 2 DGX H100", "an HGX H200", "2台DGX A100": NVIDIA's 8-GPU servers by their system name
        # (DGX/HGX H100, H200, B200, A100 and A800 boards hold 8 SXM GPUs; the catalogue's own count)
        def systems(m: re.Match) -> None:
            found = catalog.find_gpu(m["name"])
            count = int(m["servers"]) if m["servers"] else 1
            self.set("gpu", found.name, m[0])
            self.set("gpu_count", count * found.gpus_per_server, m[0])
            self.set("nodes", count, m[0])

        self.scan.take(
            rf"(?:{L}(?:on|using|with)\s+|用|使用)?(?:{L}(?P<servers>\d+)\s*(?:x\s*|台\s*)?|{L}(?:an?|one)\s+|{L})"
            rf"[dh]gx[\s\-]*(?P<name>{alt})s?(?:\s+(?:{servers}|systems?))?{R}",
            systems,
        )
        # "on four 8xH800 nodes", "2x 8xH100 servers", "a single 8xA800 server": the server's shape
        # before its noun
        self.scan.take(
            rf"(?:{L}(?:on|using|with)\s+)?(?:{L}(?P<servers>\d+)\s*(?:x\s*)?|{L}(?:an?\s+single|single|one|an?)\s+)"
            rf"(?P<per>\d+)\s*(?:x|\*)\s*"
            rf"(?P<name>{alt})s?\s+(?:{servers}){R}",
            self._servers_by_gpus,
        )
        self.scan.take(
            rf"(?:{L}(?:on|using|with)\s+|用|使用)?{L}(?P<servers>\d+)\s*[x*]\s*(?P<per>\d+)\s*(?:x|\*|卡)?\s*(?P<name>{alt})s?{R}"
            r"(?:\s+(?:nodes?|servers?|machines?|boxes|hosts?)(?![a-z]))?",  # "2x8 H100 nodes"
            self._servers_by_gpus,
        )

        # "2x4 gpus" (`2 servers with 4 GPUs each`, as the text is normalised): servers of that many
        # GPUs of a type still to choose, their shape kept where smaller than the catalogue's
        def servers_of_gpus(m: re.Match) -> None:
            servers, per = int(m["servers"]), int(m["per"])
            self.set("gpu_count", servers * per, m[0])
            if servers > 1 and per < max(g.gpus_per_server for g in catalog.gpus()):
                self.server_shape = {"servers": servers, "per": per, "words": m[0].strip()}

        self.scan.take(rf"{L}(?P<servers>\d+)x(?P<per>\d+) gpus{R}", servers_of_gpus)
        # "4台服务器每台4张A100", "4台机器，每台8卡H800": servers, then each one's GPUs and type
        self.scan.take(
            rf"(?:用|使用)?(?P<servers>\d+)\s*台\s*(?:服务器|机器|节点|工作站|整机)?\s*[，,、]?\s*每台\s*(?:服务器|机器|工作站|整机)?\s*"
            rf"(?P<per>\d+)\s*(?:张|块|卡|个)\s*(?P<name>{alt})s?{R}",
            self._servers_by_gpus,
        )
        # "A800 8卡*2", "H800 8卡 x 4": the type, then GPUs a server times servers
        self.scan.take(
            rf"(?:{L}(?:on|using|with)\s+|用|使用)?{L}(?P<name>{alt})s?\s*(?P<per>\d+)\s*卡\s*[x*]\s*(?P<servers>\d+){R}",
            self._servers_by_gpus,
        )

        # "on 2 4090 servers", "two H800 nodes": whole servers of that type, as the catalogue fills them
        def servers_of(m: re.Match) -> None:
            found = catalog.find_gpu(m["name"])
            self.set("gpu", found.name, m[0])
            self.set("nodes", int(m["servers"]), m[0])

        self.scan.take(
            rf"(?:{L}(?:on|using|with)\s+)?{L}(?P<servers>\d+)\s+(?P<name>{alt})s?\s+(?:{servers}){R}",
            servers_of,
        )
        # "2 servers of 8xA800", "on 4 nodes with 8 H100 each": the same, in words
        self.scan.take(
            rf"(?:{L}(?:on|using|with)\s+)?{L}(?P<servers>\d+)\s*(?:{servers})\s+(?:of|with)\s+(?P<per>\d+)"
            rf"\s*(?:x|\*)?\s*(?P<name>{alt})s?(?:\s+each)?{R}",
            self._servers_by_gpus,
        )
        self.scan.take(
            rf"(?:{L}(?:on|gpus?|using|with)\s+|用|使用)?"
            rf"(?:{L}{NOT_A_DEGREE}(?P<count>{BIG_COUNT}){sep}|{L}(?P<one>(?:a\s+)?single|one|an?)\s+|(?P<one_zh>单卡|单张|一张)\s*"
            rf"|(?P<cn_count>[{CN_DIGITS}]+)\s*(?:卡|张|块)\s*|{L})(?P<name>{alt})s?(?:{R}|(?=[x*]\d))"
            rf"(?:\s*(?:x|\*)\s*(?P<count2>\d+){R}|\s+(?P<count3>\d+)\s*x{R})?",  # "H800x8", "H800 8x"
            gpu,
        )

        # a count with no type: "8 GPUs", "16卡", "八卡" fixes the count, the planner picks the type
        count = fields.field("gpu_count").units
        # one, in words: "on a single GPU", "one card", "single-GPU", "on a GPU"
        self.scan.take(
            rf"{L}(?:(?:on|using|with)\s+(?:a\s+)?)?(?:single|one)(?:\s+|-)(?:{_all(count, 'en')}){R}"
            rf"|{L}on\s+an?\s+(?:{_all(count, 'en')}){R}"
            # "单卡行吗", "单卡能跑吗": one card, where 单卡 alone is no "per card" (单卡显存, 单卡80G)
            r"|(?:用|只用)?单卡(?=\s*(?:$|[，,。？?！!]|行|可以|能|呢|够|跑|训|吗))",
            lambda m: self.set("gpu_count", 1, m[0]),
        )

        def counted(m: re.Match) -> None:
            if m[1]:
                self._not_negative(m, 1)
            self.set("gpu_count", _big_count(m[1]) if m[1] else int(_cn_num(m[2])), m[0])

        self.scan.take(
            rf"{L}(?:on\s+)?({BIG_COUNT})\s*(?:x\s*)?(?:(?:{_all(count, 'en')}){R}|{_all(count, 'zh')})"
            rf"|{CN_NUM}\s*(?:{_all(count, 'zh')})",
            counted,
        )

        # whole servers: "on 2 nodes of H800", "4台服务器", "2个节点" (GPUs = nodes x GPUs per server)
        nodes = fields.field("nodes").units
        self.scan.take(
            rf"{L}(?:on\s+)?(\d+)\s*(?:{_all(nodes, 'en')}){R}(?:\s+of{R})?"
            rf"|(\d+|{CN_NUM})\s*(?:{_all(nodes, 'zh')})",
            lambda m: self.set(
                "nodes", int(_num(m[1] or m[2]) if (m[1] or m[2])[0].isdigit() else _cn_num(m[2])), m[0]
            ),
        )

        models = re.compile(rf"(?:{_model_names()}){R}")

        def unknown(m: re.Match) -> None:
            name = m["name"]
            # "用lora", "with qlora", "on llama 3.1 70b", "on about 80k": a word read later, or
            # left for the refusal of words nobody reads; only a GPU-like name is an unknown GPU
            gpu_like = re.search(r"\d", name) or _GPU_WORDS.fullmatch(name)
            if name in NOT_GPU_WORDS or not gpu_like or models.match(self.scan.s, m.start("name")):
                self.scan.keep = True
                return
            if _APPLE.match(name):
                self.fail("apple_silicon", name=name)
            self.fail("unknown_gpu", name=name, known=_known_gpus())

        self.scan.take(
            rf"(?:{L}(?:on|gpus?|using)\s+(?:\d+(?:\s*[x*]\s*|\s+)|(?:(?:a\s+)?single|one|an?)\s+)?"
            rf"|{L}\d+\s*(?:x|\*|卡|张|块)\s*|用)"
            r"(?P<name>[a-z][a-z0-9.\-]*)",
            unknown,
        )
        # a memory size instead of a card (`24G显存`, `4090 48G`): the catalogue's cards by their own
        self.scan.take(
            r"显存\s*(\d{2,3})\s*g(?:b)?(?![a-z0-9])|(?<![\d.])(\d{2,3})\s*g(?:b)?\s*显存",
            lambda m: self.fail("gpu_memory", word=f"{m[1] or m[2]}G", gb=m[1] or m[2], cards=_cards_of(m[1] or m[2])),
        )

        # "国产卡", "只要国产算力": the domestic accelerator with the most leases on record (Ascend 910B), said
        def domestic(m: re.Match) -> None:
            self.domestic_word = m[0].strip()
            self.set("gpu", DOMESTIC_GPU, m[0])

        self.scan.take(r"(?:只能用|只能|必须用|只要|只用|要用|用)?国产(?:卡|显卡|gpu|GPU|算力|芯片|加速卡)", domestic)
        # a card the catalogue lacks, named bare (`3090`, `A6000`, `910C`, `海光DCU`, `国产卡`): refused with
        # the cards it has, never read past (the catalogued names were read above)
        self.scan.take(
            rf"{L}(?P<name>(?:rtx\s*)?[2-5]0[5-9]0(?:\s*ti|d|s|\s*super)?|a[2-6]000|mi\d{{3}}[a-z]?|910[a-z]\d?"
            rf"|v100s|p100|p40|t4|k80|l4|l20|l40|a10g?|a30|a40){R}{_not_a_card()}"
            rf"|(?P<zh>海光\s*dcu|海光|寒武纪|昆仑芯|摩尔线程|沐曦|燧原|壁仞|(?<![a-z])dcu(?![a-z])"
            # Apple silicon: no CUDA, not a training server this plans
            rf"|(?<![a-z])mac\s*(?:studio|mini|pro|book(?:\s*pro)?)?(?![a-z])|(?<![a-z])m[1-4]\s*(?:max|ultra|pro)(?![a-z])"
            rf"|apple\s*silicon|苹果(?:电脑|芯片)?)",
            lambda m: self.fail(
                "apple_silicon" if m["zh"] and _APPLE.match(m["zh"]) else "unknown_gpu",
                name=(m["name"] or m["zh"]).strip(),
                known=_known_gpus(),
                # a Chinese accelerator the catalogue lacks: the domestic ones it plans are named
                domestic=bool(m["zh"]) and not _APPLE.match(m["zh"]),
            ),
        )

    def _servers_by_gpus(self, m: re.Match) -> None:
        """Servers and each one's GPUs of a type ("2x8 H800", "4台服务器每台4张A100")."""
        found = catalog.find_gpu(m["name"])
        servers, per = int(m["servers"] or 1), int(m["per"])  # "a single 8xA800 server": one
        self.set("gpu", found.name, m[0])
        self.set("gpu_count", servers * per, m[0])
        if per == found.gpus_per_server:
            self.set("nodes", servers, m[0])
        elif servers > 1 and per < found.gpus_per_server:
            # planned on the catalogue's servers: the answer says so (`server_shape`)
            self.server_shape = {"servers": servers, "per": per, "words": m[0].strip()}

    def _zh_servers(self, alt: str) -> None:
        """Servers as Chinese teams count them: 台 counts machines ("4台H800", "H800服务器4台",
        "4台8卡H800" and "H800 8卡 4台" are 32 GPUs, "4机32卡" 32 GPUs on 4 machines); a consumer card's 台 stays a
        card count ("用一台4090")."""
        # "4台A800，每台8卡", "2台H800服务器 每台8张": servers of a type, then each one's GPUs
        self.scan.take(
            rf"(?:用|使用)?(?P<servers>\d+)\s*台\s*(?P<name>{alt})s?\s*(?:服务器|机器|节点|工作站|整机)?\s*[，,、]?\s*每台\s*"
            rf"(?:服务器|机器|工作站|整机)?\s*(?P<per>\d+)\s*(?:张|块|卡|个)\s*(?:卡|显卡|gpu)?",
            self._servers_by_gpus,
        )
        n = rf"(?P<n>\d+|{CN_NUM})"

        def servers(m: re.Match) -> None:
            found = catalog.find_gpu(m["name"])
            count = int(_num(m["n"])) if m["n"][0].isdigit() else _cn_num(m["n"])
            self.set("gpu", found.name, m[0])
            if m["per"]:
                per = int(m["per"])
                self.set("gpu_count", count * per, m[0])
                if count > 1 and per < found.gpus_per_server:  # "2台4卡H800": servers of 4, said
                    self.server_shape = {"servers": count, "per": per, "words": m[0].strip()}
            elif found.consumer and not re.search("服务器|机器|节点|整机|工作站", m[0]):
                self.set("gpu_count", count, m[0])
            else:
                self.set("nodes", count, m[0])

        # "8卡H800 4台": 卡 before the name says a server's GPUs when it is a whole server's count
        # (4 servers of 8), the GPUs of all servers when it is that many servers' (16卡H800 2台)
        def each_or_all(m: re.Match) -> None:
            found = catalog.find_gpu(m["name"])
            count = int(_num(m["n"])) if m["n"][0].isdigit() else _cn_num(m["n"])
            per = int(_num(m["per"])) if m["per"][0].isdigit() else int(_cn_num(m["per"]))
            self.set("gpu", found.name, m[0])
            self.set("nodes", count, m[0])
            self.set("gpu_count", per * count if per == found.gpus_per_server else per, m[0])

        self.scan.take(
            rf"(?P<per>\d+|{CN_NUM[1:-1]})\s*卡\s*(?P<name>{alt})s?{R}\s*(?:服务器|机器|工作站|整机)?\s*[x*]?\s*{n}\s*台"
            rf"(?:服务器|机器|节点|工作站|整机)?",
            each_or_all,
        )
        self.scan.take(
            # not after "8卡 ": "8卡 2台 H800" is 2 servers of 8 (per_server below)
            rf"(?:用|使用)?(?<!卡)(?<!卡\s){n}\s*台\s*(?:(?P<per>\d+)\s*卡)?\s*(?P<name>{alt})s?{R}\s*(?:服务器|机器|节点|工作站|整机)?",
            servers,
        )
        # (not when a count comes before the name: "16张H800 2台服务器" is 16 GPUs on 2 servers)
        self.scan.take(
            rf"(?:用|使用)?(?<![张块卡x*\d])(?<![张块卡x*\d]\s)(?P<name>{alt})s?{R}\s*(?:服务器|机器|工作站|整机)?\s*{n}\s*台"
            rf"(?:服务器|机器|节点|工作站|整机)?(?P<per>)",  # "H800 2台服务器": the noun after 台 too
            servers,
        )

        # "4机32卡" counts the GPUs of all machines; "4台8卡" and "8卡 4台" the GPUs of each, and
        # so does "4机8卡": a count no more than a server holds is each machine's (4 x 8 = 32)
        def machines(m: re.Match) -> None:
            total = m["total"]
            count = int(total) if total.isdigit() else int(_cn_num(total))
            n = m["n"] and (int(_num(m["n"])) if m["n"][0].isdigit() else int(_cn_num(m["n"])))
            if n and n > 1 and count <= max(g.gpus_per_server for g in catalog.gpus()):
                count *= n
            self.set("gpu_count", count, m[0])

        self.scan.take(rf"(?:{n}|单|一)\s*机\s*(?P<total>\d+|{CN_NUM[1:-1]})\s*卡", machines)

        def per_server(m: re.Match) -> None:
            count = int(_num(m["n"])) if m["n"][0].isdigit() else int(_cn_num(m["n"]))
            per = int(m["per"])
            self.set("gpu_count", count * per, m[0])
            if count > 1 and per < max(g.gpus_per_server for g in catalog.gpus()):
                # servers smaller than the catalogue's ("两台4卡的服务器"): said, and planned on that
                # shape once the GPU type is known (`_finish`)
                self.server_shape = {"servers": count, "per": per, "words": m[0].strip()}

        self.scan.take(rf"{n}\s*台\s*[x*]?\s*(?P<per>\d+)\s*卡(?:的)?(?:服务器|机器|工作站|整机)?", per_server)
        self.scan.take(
            rf"(?P<per>\d+)\s*卡(?:的)?(?:服务器|机器|工作站|整机)?\s*[x*]?\s*{n}\s*台(?:服务器|机器|节点|工作站|整机)?",
            per_server,
        )

    def _models(self) -> None:
        alt = _model_names()

        def model(m: re.Match) -> None:
            self.set("model", catalog.find_model(m[1]).name, m[0])
            if m["quant"]:
                self.quantized = m[0].strip()

        # a teacher's outputs as the data ("用deepseek-r1蒸馏数据微调qwen3-8b", "data distilled from
        # deepseek-r1", "deepseek-r1 蒸馏到 qwen3-8b"): the data, not the model trained (the
        # teacher's own inference to make them is not planned; said)
        def teacher(m: re.Match) -> None:
            self.teacher = (m["t"] or m["t2"]).strip()  # as typed: deepseek-r1 has deepseek-v3's shape

        # a catalogued name, or a family with its size ("qwen3-235b", which the model rules resolve)
        sized = r"[a-z][a-z0-9.]*-\d+(?:\.\d+)?b(?:-a\d+(?:\.\d+)?b)?"
        t = rf"(?:(?P<t>{alt})(?:{VARIANT})*(?:\s*\d+(?:\.\d+)?b)?|(?P<t2>{sized}))"
        for said in (
            rf"{L}{t}\s*(?:的)?\s*(?:蒸馏|生成|合成|输出|产出)(?:的|出的)?\s*(?:数据|样本|语料|答案)",
            # the count between ("用DeepSeek-R1生成的20万条数据": it had been refused as two models), left for the data
            rf"{L}{t}\s*(?:的)?\s*(?:蒸馏|生成|合成|输出|产出)(?:的|出的|出来的)(?=\s*(?:约|大约|共)?\s*"
            rf"[\d.一二两三四五六七八九十百千万]+\s*[万千亿kw]?\s*多?\s*(?:条|个|组|对)?\s*(?:数据|样本|语料|答案|问答|对话))",
            rf"{L}{t}\s*蒸馏\s*(?:到|给|成|进|至)",
            # "蒸馏deepseek-r1的数据", "用deepseek-r1蒸馏": the teacher after the verb, or used to distill
            rf"蒸馏\s*{t}\s*(?:的|出的)?\s*(?:数据|样本|语料|答案|输出)",
            rf"用\s*{t}\s*(?:来)?\s*蒸馏",
            # (a count's noun stays with it: "800k samples distilled from deepseek-r1")
            rf"{L}(?:(?<![\d\s]\s)(?<!\d[km]\s)(?:data|samples|outputs?|traces?|answers?)\s+)?(?:distilled|generated|synthesi[sz]ed)\s+"
            rf"(?:from|by|with)\s+{t}{R}",
            rf"{L}{t}(?:-|\s+)(?:distilled|generated|synthetic)\s+(?:data|samples|traces){R}",
            rf"{L}distill(?:ed|ing)?\s+(?:from\s+)?{t}\s+(?:into|to){R}",
            # "deepseek-r1 distill data into qwen3-8b", "r1 distillation into qwen3-8b"
            rf"{L}{t}\s+distill(?:ed|ing|ation)?(?:\s+(?:data|samples|outputs|traces))?\s+(?:into|to){R}",
            # "deepseek-r1 distill data, finetune qwen3-8b": the teacher's data, the student after it
            rf"{L}{t}\s+distill(?:ed|ation)?\s+(?:data|samples|outputs|traces){R}",
        ):
            self.scan.take(said, teacher)
        # a DeepSeek-R1 distill named with distillation said beside it ("DeepSeek-R1-Distill-Qwen-7B 蒸馏，
        # 100万条"): more of R1's outputs into that student, R1 its teacher (it had been refused as a
        # distillation, which is planned as the student's fine-tune on the teacher's data)
        if (
            self.teacher is None
            and re.search(r"r1[\s_\-]*distill", self.text, re.I)
            and re.search(r"蒸馏|(?<![\-\w])distill(?:ation|ing|ed)?(?![\-\w])(?!\s*(?:qwen|llama))", self.text, re.I)
        ):
            self.teacher = "deepseek-r1"
        # a later release the catalogue lacks, named by its family's words and a number ("mistral
        # small 4" had been "I did not understand '4'" after Mistral Small 3): unknown, its sizes
        # read where given, else asked for
        self.scan.take(
            rf"{L}(mistral[\s_\-]*small[\s_\-]*4|llama[\s_\-]*4[\s_\-]*behemoth){R}",
            lambda m: self.set("unknown_model", m[1], m[0]),
        )
        # a release's tuned variants keep its shape: "qwen3-32b-instruct", "gemma-3-27b-it"
        # nor a later release the catalogue lacks ("minimax-m2.1" is not MiniMax-M2 and ".1");
        # a Hugging Face repository id names its organisation first ("Qwen/Qwen2.5-7B-Instruct")
        self.scan.take(
            rf"{L}(?:{HUB_ORG}/)?({alt})(?:{VARIANT})*(?:{QUANTIZED})?(?:{VARIANT})*{R}(?!{SIBLING}|\.\d)", model
        )

        # a mixture of experts the catalogue lacks (no config read): planned at its publisher's total
        # and active sizes, as a generic mixture (said), not asked for them; a size typed after the
        # name is the total planned, the active size the publisher's unless typed too ("step3 321b"
        # had left "step3" not understood, "hunyuan large 389b" asked for the size it gives);
        # before the deadline's words, which had read "granite 4.0 h micro" as 4 hours
        def published(m: re.Match) -> None:
            total, active = next((t, a) for rx, t, a in _PUBLISHED_MOE if re.fullmatch(rx, m["name"]))
            if m["total"]:
                total = _amount(m["total"], m["unit"]) / 1e9
                active = _amount(m["active"], "b") / 1e9 if m["active"] else min(active, total)
            self.set("params_b", total, m[0])
            self.set("active_params_b", active, m[0])
            self.set("unknown_model", m["name"], m[0])

        names = "|".join(rx for rx, _, _ in _PUBLISHED_MOE)
        size = (
            r"[\s_\-]+(?P<total>\d+(?:\.\d+)?)\s*(?P<unit>[bt])(?:[\s_\-]*a(?P<active>\d+(?:\.\d+)?)\s*b)?"
            r"(?![a-z0-9])(?![\s_\-]*(?:tokens?|toks?)(?![a-z]))"
        )
        self.scan.take(
            rf"{L}(?:{HUB_ORG}/)?(?P<name>{names})(?:{VARIANT})*(?:{size}(?:{VARIANT})*)?{R}(?![_\-]\d)", published
        )

    # -- knobs ----------------------------------------------------------------------
    def _knobs(self) -> None:
        sc, s = self.scan, self.set
        # Megatron's flag that turns on the precision-aware optimizer, read past: what it changes
        # is said by `--exp-avg-dtype` (the moments' field); before the recompute modules' names
        sc.take(rf"{L}use[\s_\-]precision[\s_\-]aware[\s_\-]optimizer(?:\s+true)?{R}", lambda m: None)
        # Megatron's flag that turns CUDA graphs off, its default, read past (they are the field
        # `cuda_graphs`, said by the flag's other values)
        sc.take(rf"{L}(?:--)?cuda[\s_\-]graph[\s_\-]impl[\s=]+none{R}", lambda m: None)
        self._layout_words()
        # Optimizer hyperparameters change no GPU count, memory or time planned here: read and
        # said (`lr 2e-5`, `warmup 100`, `weight decay 0.1`, `学习率2e-5`), and LoRA's alpha, a scale on
        # the adapters' output (`alpha=128`, `lora_alpha 32`). Not `dropout`, which is LoRA's and keeps
        # memory, nor `seed`.
        value = r"(?:\d+(?:\.\d+)?(?:e[+\-]?\d+)?%?|\.\d+)"
        sc.take(
            rf"{L}(?:lr|learning[\s_\-]?rate|warm[\s_\-]?up(?:[\s_\-]?(?:steps|ratio))?|weight[\s_\-]?decay|wd"
            rf"|(?:lora[\s_\-]?)?alpha"
            rf"|max[\s_\-]?grad[\s_\-]?norm|grad(?:ient)?[\s_\-]?clip(?:ping)?)\s*[:=]?\s*{value}{R}"
            rf"|(?:学习率|预热步数|预热|权重衰减|梯度裁剪)\s*[:=：]?\s*{value}",
            lambda m: self.hyperparameters.append(m[0].strip()),
        )
        sc.take(
            rf"{L}(?:off[\s\-]?peak|spot(?:[\s\-]instances?)?|preemptible|night[\s\-]?time|idle[\s\-]?time)(?:\s+(?:prices?|pricing|rates?|hours|gpus?|capacity))?{R}"
            r"|闲时(?:算力|价格|价|时段)?|夜间(?:价格|价|时段|算力)|竞价(?:实例|卡)?|抢占式(?:实例)?",
            lambda m: self.offpeak.append(m[0].strip()),
        )

        # the network the team has ("只有25G以太网", "100Gb RoCE between servers"): said, not a data size;
        # the plan shows the network it needs, and a slower one makes a multi-server plan slower
        def network_said(m: re.Match) -> None:
            speed = next((g for g in m.groups() if g and re.fullmatch(NUM, g)), None)
            written_as_rate = m["rate"] or re.search(r"gb(?:ps|/s)|gbit/s", m[0])
            if speed and _num(speed) not in LINK_SPEEDS_GBPS and not written_as_rate:
                self.scan.keep = True  # "3GB roce": no link runs at 3 Gb/s, so a data size beside a word
                return
            words = m[0].strip(" ，,")
            self.network_said.append(words)
            if speed:
                # the fabric said beside the speed ("200G IB", "RoCE 400G"), not elsewhere in the message
                beside = m.string[max(0, m.start() - 12) : m.end() + 12]
                self.network_speed = _network_speed(words, _num(speed), beside)

        # the fabric before or after its speed ("32 A800 with 200G IB", "RoCE 400G", "8x400G IB": each had
        # been read as a data size); the fabric word stays for the fabric rule; a rate written as one
        # ("100Gb/s per GPU", "25 Gbps between servers") is a link, never data
        lanes = r"(?:\d+\s*[x×*]\s*)?"
        per = rf"(?:\s*(?:{NETWORK_PER_GPU.pattern}|{NETWORK_PER_SERVER.pattern}))?"
        sc.take(
            rf"(?:没有\s*ib|无\s*ib|不带\s*ib)?[，,\s]*(?:只有|只用|用的是|都是|机间)?\s*(?:(?:{NETWORK_PER_GPU.pattern}|{NETWORK_PER_SERVER.pattern})\s*)?{lanes}{NUM}\s*g(?:b|bps|b/s)?\s*(?:以太网|网络|网卡|带宽|组网|roce|ethernet|nic|网){per}"
            rf"|{L}(?:no\s+(?:ib|infiniband)|without\s+(?:ib|infiniband)){R}"
            rf"|{L}(?P<speed>{lanes}{NUM}\s*g(?:b|bps|b/s)?)(?=\s*(?:ib|infiniband|rdma)(?![a-z])){per}"
            rf"|(?:(?<=ib)|(?<=ib\s)|(?<=roce)|(?<=roce\s)|(?<=rocev2\s)|(?<=infiniband\s)|(?<=ethernet\s)|(?<=以太网))"
            rf"\s*(?P<after>{lanes}{NUM}\s*g(?:b|bps|b/s)?)(?![a-z/]){per}"
            rf"|{L}(?P<rate>{lanes}{NUM}\s*(?:gbps|gb/s|gbit/s|g(?=\s*(?:{NETWORK_PER_GPU.pattern}|{NETWORK_PER_SERVER.pattern}))))"
            rf"(?:\s*(?:{NETWORK_PER_GPU.pattern}|{NETWORK_PER_SERVER.pattern}|between\s+(?:the\s+)?(?:servers|nodes)|network|networking|interconnect))?",
            network_said,
        )
        sc.take(
            rf"押[一二三四五六七八九十\d]+付[一二三四五六七八九十\d]+|按(?:季|月|年|半年)(?:度)?(?:付款|付|支付)|预付[一二三四五六七八九十\d]+个?月"
            rf"|{L}(?:deposit\s+(?:of\s+)?\d+\s+months?|\d+\s+months?\s+deposit|paid\s+(?:quarterly|monthly|annually|yearly)){R}",
            lambda m: self.payment_terms.append(m[0].strip()),
        )
        seq = fields.field("seq_len").keys

        def tokens(n: str, k: str | None) -> int:
            # a context of "32k" is 32,768 tokens: sequence lengths are counted in 1,024s
            return round(_num(n) * 1024) if k else int(_num(n))

        # a time after the key is the deadline, not a length (`long context 3 days`); nor is a count of the
        # data (`8k context 100k samples` had been a 102,400-token sequence over 8,000 samples)
        time_next = (
            r"(?!\s*(?:d|h|w|mo|days?|hours?|hrs?|weeks?|months?)(?![a-z])|\s*(?:天|日|周|小时|个月|星期)"
            r"|\s*(?:samples?|examples?|conversations?|dialogues?|pairs?|rows?|records?|instructions?|prompts?|docs?"
            r"|documents?)(?![a-z])|\s*(?:条|个样本|对|篇))"
        )
        # the change said with a verb between the key and the length (`序列长度改成8192`, `上下文改为8k`)
        zh_set = (
            r"(?:改成|改为|设成|设为|调成|调到|调为|换成|变成|加到|提到|降到|扩展到|扩到|拓展到|扩充到|延长到|增加到)?"
        )
        # `long context extension to 128k`, `长上下文32k`, `长度8192` (not a sample's mean length: `平均长度`)
        sc.take(
            rf"{L}(?:long[\s\-]?)?(?:{_en(seq)})(?:[\s\-]+(?:extension|window|length))?"
            # (its unit said: "context 128k tokens", "上下文 32k token" had refused the word)
            rf"\s*(?:[:=]|to|of|up\s+to|is|was|are|will\s+be|would\s+be|becomes)?\s*{zh_set}\s*{NUM}\s*(k)?"
            rf"(?:\s*tokens?)?{R}{time_next}"
            rf"|长?(?:{_zh(seq)}|(?<![均条个])长度)\s*[:=]?\s*{zh_set}\s*{NUM}\s*(k)?(?:\s*(?:token|tokens|个token))?{time_next}",
            lambda m: s("seq_len", tokens(m[1] or m[3], m[2] or m[4]), m[0]),
        )
        # `长文本 32k`, `长序列 64k`: the long-context word with its length after it
        sc.take(
            rf"(?:超?长文本|长序列|长上下文)\s*[:：]?\s*(?:到|至)?\s*{NUM}\s*k(?!\s*(?:条|个|样本|篇|token|tokens|词元))",
            lambda m: s("seq_len", tokens(m[1], "k"), m[0]),
        )
        sc.take(  # `32k context`, `2k长度`: the key after the number
            rf"{L}{NUM}\s*k\s*(?:{_en(seq)}){R}|{NUM}\s*k\s*(?:{_zh(seq)}|长度)",
            lambda m: s("seq_len", tokens(m[1] or m[2], "k"), m[0]),
        )
        # `long context` with no length: the length decides the activations, so it is asked for,
        # unless the samples' length says it (`1万条长文本 每条16k`, read with the data: `_finish`)
        sc.take(
            # not a count's ("10k long documents": samples, read with the data)
            rf"{L}(?:long[\s\-]?)?(?:context|ctx){R}|{L}(?<![\d\s]\s)(?<!\d[km]\s)long[\s\-]?(?:documents?|docs?|sequences?|texts?){R}"
            r"|长?上下文|超?长文本|长序列",
            lambda m: None if "seq_len" in self.fields else setattr(self, "long_context", m[0].strip()),
        )
        # `recompute 21 layers`, `recompute full 21 of 80 layers`, `重计算21层`: Megatron-Core's block
        # recompute of that many layers a stage; the recompute is full
        sc.take(
            rf"{L}recompute(?:\s+full)?\s+{NUM}\s+(?:of\s+\d+\s+)?layers?{R}|(?:全量)?重计算\s*{NUM}\s*层",
            lambda m: s("recompute_layers", _num(m[1] or m[2]), m[0]),
            unread=True,
        )
        for name in ("micro_batch", "global_batch", "grad_accum", "recompute_layers"):
            keys = fields.field(name).keys
            zh = rf"|(?:{_zh(keys)})\s*[:=]?\s*{NUM}" if keys.zh else ""
            sc.take(
                rf"{L}(?:{_en(keys)})\s*[:=]?\s*{NUM}{R}{zh}",
                lambda m, name=name: s(name, _num(m[1] or m[2]), m[0]),
                unread=True,
            )

        def fsdp(m: re.Match) -> None:
            s("zero_stage", 3, m[0])
            s("dp", int(m[1]), m[0])  # `fsdp 64`: ZeRO-3 over 64 data-parallel ranks (the FSDP column of tables)

        sc.take(rf"{L}(?:{spelled(fields.FSDP)})\s+(\d+)(?!\.\d){R}", fsdp, unread=True)
        self._choose("zero_stage")
        # `ddp`: PyTorch's DistributedDataParallel keeps the whole model and its states on every
        # GPU, so no tensor or pipeline split either (it had been planned as ZeRO-0 on a
        # Megatron pipeline); ZeRO-0 offloads nothing (engine `offload_levels`)
        ddp = self.words.get("zero_stage", "").strip() == "ddp"
        offload = fields.field("offload")
        sc.take(
            rf"{L}(?:{_en(offload.keys)})(?:[\s_\-]+({_all(offload.choices, 'en')}))?{R}"
            rf"|(?:{_zh(offload.keys)})({_all(offload.choices, 'zh')})?",
            lambda m: s("offload", self._said(offload, m[1] or m[2]), m[0]),
        )
        if ddp:
            for name, value in (("tp", 1), ("pp", 1)):
                if name not in self.fields:
                    s(name, value, self.words["zero_stage"])
        # AdamW's moments' dtype, keyed (`moments bf16`, `--exp-avg-dtype bf16`, `优化器状态bf16`) or
        # after its dtype (`bf16 moments`); before the recompute modules, whose names end at a flag's
        moments = fields.field("moments")
        dtype_en, dtype_zh = _all(moments.choices, "en"), _all(moments.choices, "zh")
        sc.take(
            # a dtype before the key is the moments' only where none follows it (`grads bf16 moments
            # fp32`, `梯度规约bf16 优化器状态fp32`: the bf16 is the gradients')
            rf"{L}(?:{_en(moments.keys)})\s*[:=]?\s*({dtype_en}){R}"
            rf"|{L}(?<![\-_])({dtype_en})[\s_\-]+(?:{_en(moments.keys)}){R}(?!\s*[:=]?\s*(?:{dtype_en}){R})"
            # not the run's own dtype: `pure-bf16 moments bf16`, `纯bf16`
            rf"|(?:{_zh(moments.keys)})\s*[:=用]?\s*({dtype_zh})"
            rf"|(?<!纯)({dtype_zh})\s*(?:{_zh(moments.keys)})(?!\s*[:=用]?\s*(?:{dtype_zh}))",
            lambda m: s("moments", value_of(moments.choices, m[1] or m[2] or m[3] or m[4]), m[0]),
        )
        self._recompute_modules()
        recompute = fields.field("recompute")
        zh_choice = _all(recompute.choices, "zh")
        sc.take(
            rf"{L}(?:{_en(recompute.keys)})(?:\s*[:=]?\s*({_all(recompute.choices, 'en')}))?{R}"
            # a choice after the key ends there: "重计算 不赶时间" is recompute, then no hurry
            rf"|({zh_choice})?\s*(?:{_zh(recompute.keys)})\s*(?:({zh_choice})(?![\u4e00-\u9fff]))?",
            lambda m: s("recompute", self._said(recompute, m[1] or m[2] or m[3]), m[0]),
        )
        # before the precision, which would read `grads bf16`'s dtype as the run's own
        grads = fields.field("grad_reduce")
        dtype_en, dtype_zh = _all(grads.choices, "en"), _all(grads.choices, "zh")
        sc.take(
            rf"{L}(?:{_en(grads.keys)})\s*[:=]?\s*({dtype_en}){R}|{L}({dtype_en})[\s_\-]+(?:{_en(grads.keys)}){R}"
            # the dtype before the key, unless it is the run's own (`纯bf16`) or the key has its own
            rf"|(?:{_zh(grads.keys)})\s*[:=用]?\s*({dtype_zh})"
            rf"|(?<!纯)({dtype_zh})\s*(?:{_zh(grads.keys)})(?!\s*[:=用]?\s*(?:{dtype_zh}))",
            lambda m: s("grad_reduce", value_of(grads.choices, m[1] or m[2] or m[3] or m[4]), m[0]),
        )
        # the attention kernels, keyed (`attention fa2`, `注意力fa2`) or a kernel's own name alone
        attn = fields.field("attention")
        kernels_en, kernels_zh = _all(attn.choices, "en"), _all(attn.choices, "zh")
        alone = spelled([w for c in attn.choices for w in c.en if w not in ("cudnn", "te", "transformer-engine")])
        sc.take(
            rf"{L}(?:{_en(attn.keys)})\s*[:=]?\s*({kernels_en}){R}|{L}({kernels_en})[\s_\-]+(?:{_en(attn.keys)}){R}"
            rf"|(?:{_zh(attn.keys)})\s*[:=用]?\s*({kernels_zh})|{L}({alone}){R}",
            lambda m: s("attention", value_of(attn.choices, m[1] or m[2] or m[3] or m[4]), m[0]),
        )
        # the MoE token dispatcher, keyed (`dispatcher alltoall`, `分发器alltoall`) or DeepEP's or
        # HybridEP's name alone
        disp = fields.field("dispatcher")
        kinds_en, kinds_zh = _all(disp.choices, "en"), _all(disp.choices, "zh")
        sc.take(
            rf"{L}(?:{_en(disp.keys)})\s*[:=]?\s*({kinds_en}){R}|{L}({kinds_en})[\s_\-]+(?:{_en(disp.keys)}){R}"
            rf"|(?:{_zh(disp.keys)})\s*[:：=用]?\s*({kinds_zh})|{L}(deepep|hybridep){R}",
            lambda m: s("dispatcher", value_of(disp.choices, m[1] or m[2] or m[3] or m[4]), m[0]),
        )
        # the training stack, keyed (`framework megatron`, `框架deepspeed`) or its name alone
        stack = fields.field("stack")
        stacks_en, stacks_zh = _all(stack.choices, "en"), _all(stack.choices, "zh")
        sc.take(
            rf"{L}(?:{_en(stack.keys)})\s*[:=]?\s*({stacks_en}){R}"
            # alone only as a word of its own: "mistral-nemo-12b" is a model, not NeMo
            rf"|(?:{_zh(stack.keys)})\s*[:：=用]?\s*({stacks_zh})|(?<![a-z0-9._/\-])({stacks_en})(?![a-z0-9_\-])",
            lambda m: s("stack", value_of(stack.choices, m[1] or m[2] or m[3]), m[0]),
        )
        self._choose("precision")
        self._choose("tf32")
        self._choose("optimizer")
        self._choose("opt_in_backward")
        self._choose("compile")
        self._choose("cuda_graphs")
        self._choose("chunked_loss")
        dropout = fields.field("lora_dropout").keys
        sc.take(
            # a probability: a decimal, or 0 or 1 ("dropout 10GB" is a data size after a bare key)
            rf"{L}(?:{_en(dropout)})\s*[:=]?\s*({PROBABILITY}){R}|(?:{_zh(dropout)})\s*[:=]?\s*({PROBABILITY}){R}",
            lambda m: s("lora_dropout", float(m[1] or m[2]), m[0]),
        )
        rank = fields.field("lora_rank").keys

        def rank_of(m: re.Match) -> None:
            s("lora_rank", int(m[1] or m[2]), m[0])
            # "fine-tune X with LoRA rank 64": the key names the method where no other word does
            if "lora" in m[0].lower():
                self.rank_names = ("qlora" if "qlora" in m[0].lower() else "lora", m[0].strip())

        sc.take(rf"{L}(?:q?lora[\s\-_]?)?(?:{_en(rank)})\s*=?\s*(\d+){R}|(?:{_zh(rank)})\s*=?\s*(\d+)", rank_of)
        targets = fields.field("lora_targets")
        sc.take(
            rf"{L}(?:{_en(targets.keys)})\s*[:=]?\s*({_all(targets.choices, 'en')}){R}",
            lambda m: s("lora_targets", value_of(targets.choices, m[1]), m[0]),
        )

    def _recompute_modules(self) -> None:
        """Megatron-Core's selective recompute modules, keyed (`recompute-modules core_attn mlp`,
        a pasted `--recompute-modules core_attn`, `重计算模块core_attn`) or after the mode
        (`recompute selective core_attn`, `选择性重计算 core_attn`): they make the recompute
        selective. A name Megatron-Core lacks, or one the engine does not plan, is refused by
        name; the key without names too. Read before the mode, whose key is in it."""
        row = fields.field("recompute_modules")
        named, planned = _module_name(), _all(row.choices, "en")
        names = rf"((?:{named})(?:\s*,?\s*(?:{named}))*)?"
        after_mode = rf"{L}(?:{planned}){R}(?:\s*,?\s*(?:{named}))*"
        mode = _all([fields.field("recompute").choice("selective")], "en")
        recompute = fields.field("recompute").keys
        self.scan.take(
            rf"{L}(?:{_en(row.keys)})\s*[:=]?\s*{names}"
            rf"|(?:{_zh(row.keys)})\s*[:：=]?\s*{names}"
            rf"|{L}(?:{_en(recompute)})\s*[:=]?\s*(?:{mode})\s*[:=]?\s*({after_mode})"
            rf"|(?:选择性|选择)(?:{_zh(recompute)})\s*[:：=]?\s*({after_mode})",
            self._modules_said,
        )

    def _modules_said(self, m: re.Match) -> None:
        words = m[1] or m[2] or m[3] or m[4]
        known = " ".join(RECOMPUTE_MODULES)
        if not words:
            self.fail("recompute_module", word=m[0].strip(), missing=True, known=known)
        row = fields.field("recompute_modules")
        chosen: set[str] = set()
        for hit in re.finditer(_module_name(), words):
            value = value_of(row.choices, hit[0])
            if value is None:
                self.fail("recompute_module", word=hit[0], megatron=hit[0] in UNPLANNED_RECOMPUTE_MODULES, known=known)
            chosen |= set(value)
        self.set("recompute_modules", tuple(x for x in RECOMPUTE_MODULES if x in chosen), m[0])
        self.set("recompute", "selective", m[0])

    def _power_price(self) -> None:
        """The team's price of a kWh: `电费0.6元/度`, `6毛一度电`, `electricity $0.12/kWh`, `power at 8 cents
        per kWh` (it had been refused at "/度")."""
        per_zh = r"\s*(?:/|每|一)\s*(?:度|千瓦时)(?:电)?"
        per_en = r"\s*(?:/|per|a|an)\s*kwh\b"

        def take(m: re.Match) -> None:
            amount = float(m["n"])
            unit = (m["cur"] or m["sym"] or "").lower()
            if unit in ("毛", "角"):
                amount /= 10
            elif unit.startswith("cent") or unit == "分":
                amount /= 100
            cur = (
                "USD" if unit in ("$", "usd", "美元", "美金") or unit.startswith("cent") else ("CNY" if unit else None)
            )
            row = fields.field("power_price")
            if not row.ok(amount):
                self.fail("bad_value", word=m[0].strip(), what="power_price")
            self.power_currency = cur
            self.set("power_price", amount, m[0])

        self.scan.take(
            r"(?:(?:电费|电价)\s*(?:是|为|按|大概|约)?\s*(?:每度|每千瓦时)?\s*)?"
            rf"(?P<sym>)(?P<n>\d+(?:\.\d+)?)\s*(?P<cur>元|块|毛|角|分|美元|美金)?{per_zh}"
            r"|(?:电费|电价)\s*(?:是|为|按|大概|约)?\s*(?:每度|每千瓦时)\s*(?P<sym2>)(?P<n2>\d+(?:\.\d+)?)\s*(?P<cur2>元|块|毛|角)?",
            lambda m: take(_Merged(m)),
        )
        self.scan.take(
            rf"{L}(?:(?:electricity|power|电费|电价)\s*(?:at|is|costs?|price|of|:|是|为)?\s*)?"
            rf"(?P<sym>\$|¥|￥)?\s*(?P<n>\d+(?:\.\d+)?)\s*(?P<cur>usd|cny|yuan|cents?|元|块)?{per_en}",
            take,
        )

    def _choose(self, name: str) -> None:
        """A row whose values are words (`lora`, `bf16`, `深圳`): any of its choices."""
        row = fields.field(name)
        self.scan.take(_choice_pattern(row), lambda m: self.set(name, value_of(row.choices, m[0]), m[0]))

    @staticmethod
    def _said(row: fields.Field, word: str | None):
        """The choice a key's word names (`offload all`); the key alone means the first."""
        return row.choices[0].value if word is None else value_of(row.choices, word)

    def _layout_words(self) -> None:
        """Parallel degrees the user fixes: `tp 8`, `pp=4`, `ep8`, `vpp 2`, `张量并行8`,
        `流水线并行4`; `cp`/`hsdp` are refused (not modelled), a bad degree too."""
        sc = self.scan
        rows = [fields.field(name) for name in fields.DEGREES]
        keys = [k for row in rows for k in row.keys.en]
        # `3 ep` is three epochs (read later): a key that is also an epoch unit (`ep`) is read
        # apart, as a degree where a number follows it ("gbs 512 ep 8") or none stands before it
        epochs = fields.field("epochs").units
        clash = [k for k in keys if value_of(epochs, k) is not None]

        def degree(m: re.Match) -> None:
            key = (m["en"] or m["zh"]).strip()
            field = next(row.name for row in rows if spells(row.keys, key))
            raw = m["n"]
            value = None
            if raw and raw[0] in CN_DIGITS:
                value = _cn_num(raw)
            elif raw and not raw.startswith("-"):
                value = _num(raw)
            if value is None or not fields.field(field).ok(value):
                # `bare`: the layout named with no degree at all ("what is tensor parallelism?"), which
                # a question without a plan asks the FAQ about (advice._only_not_understood)
                self.fail("bad_value", word=m[0].strip(), what="layout", bare=raw is None)
            self.set(field, int(value), m[0])

        en = rf"(?P<en>{spelled([k for k in keys if k not in clash])})"
        zh = spelled([k for row in rows for k in row.keys.zh])
        value = rf"(?:\s*[:=]?\s*(?P<n>-?{NUM}|{CN_NUM}))?{R}"
        # Degrees written together, as tables print them: `tp2pp4`, `TP4PP8CP2` (the short keys)
        joined = spelled([row.keys.en[0] for row in rows if row.keys.en[0].isalpha()])
        sc.take(
            rf"{L}(?:(?:{joined})\d+){{2,}}{R}",
            lambda m: [degree(_Merged(part, zh=None)) for part in re.finditer(rf"(?P<en>{joined})(?P<n>\d+)", m[0])],
        )
        sc.take(
            rf"{L}{en}{value}|(?P<zh>{zh})\s*[:=为]?\s*(?P<n2>\d+|{CN_NUM})?",
            lambda m: degree(_Merged(m)),
        )
        clashing = spelled(clash)
        sc.take(rf"{L}(?P<en>{clashing})\s*[:=]?\s*(?P<n>{NUM}){R}", lambda m: degree(_Merged(m, zh=None)), unread=True)
        sc.take(rf"(?<!\d\s){L}(?P<en>{clashing}){value}", lambda m: degree(_Merged(m, zh=None)))
        # HSDP: sharded inside a server, replicated across servers (FSDP2's 2-D device mesh)
        self._choose("hsdp")

    def _methods(self) -> None:
        sc = self.scan
        sc.take(
            rf"{L}({spelled(UNSUPPORTED_METHODS)}){R}|({'|'.join(ZH_UNSUPPORTED_METHODS)})",
            lambda m: self._refuse_rl(m[1] or m[2]),
        )
        self._choose("method")
        self._choose("preference_tuning")
        # "fine-tune", "sft", "微调" alone name no method: "LoRA fine-tune" and "lora微调" are LoRA;
        # by themselves they read as full fine-tuning (in _finish).
        self._choose("finetune")

    # -- money ----------------------------------------------------------------------
    def _budget(self) -> None:
        row = fields.field("budget")
        sign = spelled([s for w in row.signs for s in w.en], literal=True)
        currency_words = _all(row.units, "en") + "|" + _all(row.units, "zh")
        number = rf"{NUM}|{CN_SCALED}"  # "50万", "五十万"
        scale = rf"{CN_UNITS}|{SCALE_WORDS}|k|m|w|b"
        # "budget USD 20k": a currency word before the number says it as a sign would
        amount = (
            rf"(?P<neg>-)?\s*(?:(?P<sym>{sign})|(?P<cur0>{currency_words})(?=\s*\d))?\s*(?P<n>{number})\s*(?P<u>{scale})?"
            rf"\s*(?P<cur>{currency_words})?"
        )
        most = r"(?:\s+(?:max(?:imum)?|tops|at\s+most|or\s+less)(?![a-z]))?"  # "budget $200k max"
        # a budget by the month ("budget 2 million CNY per month", "每月预算20万"): the job's is
        # that much for each month of the deadline (`_derived`)
        per_month = (
            r"(?P<pm>\s*(?:/|per|a|each)\s*(?:month|mo)(?![a-z])|\s+monthly(?![a-z])"
            # not a run every month (`每个月都要`, `每月新增`: the recurring field's words)
            r"|\s*(?:/|每)\s*个?月(?![底末初中])(?!\s*(?:都|一次|训练|新增|大约|约|大概)))?"
        )

        def budget(m: re.Match) -> None:
            if m["n"] is None:
                self.set("cost_first", True, m[0])
                return
            if any(_group(m, g) for g in ("pm", "pm_zh", "pm_en", "pm_after")):
                self.budget_monthly = True
            value = _amount(m["n"], m["u"])
            if m["neg"]:
                self.fail("bad_value", word=m[0].strip(), what="budget")
            # a sign and a word may both say it (`$20k usd`); dollars if either says dollars
            said = {value_of(row.signs, m["sym"], literal=True), value_of(row.units, m["cur"])}
            said = (said | {value_of(row.units, _group(m, "cur0"))}) - {None}
            currency = "USD" if "USD" in said else ("CNY" if said else None)
            if currency is None and (m["u"] or "").lower() == "grand":
                currency = "USD"  # "10 grand" is dollars' slang
            self.set("budget", (value, currency), m[0])

        # "budget of $20k", "budget is about $50k", "预算降到50万", "预算大概50万"
        verb = r"(?:\s+(?:of|is|to|at|up\s+to|down\s+to)(?![a-z]))?"
        verb += r"(?:\s*~|\s+(?:about|around|roughly|approx(?:imately|\.)?)(?![a-z]))?"
        cn_verb = r"(?:就|就是|降到|减到|减少到|提高到|增加到|加到|提到|改为|改成|变成|只有|有|是|为|在"
        # a ceiling said with a negation ("预算别超过10万", "预算不要超过10万"): the amount is the budget
        cn_verb += r"|(?:别|不要|不能|不得|最好别|最好不要|尽量别|尽量不要)?超过?|不超过|最多|控制在)?"
        cn_verb += r"(?:大概|大约|约|差不多)?"
        # an unlimited budget ("预算不限"): money no object, before the key alone reads as a budget
        self.scan.take(
            r"预算\s*(?:不限|不设(?:上)?限|无上限|不封顶)"
            rf"|{L}(?:no|unlimited|open[\s\-]ended|without\s+an?)\s+budget(?:\s+(?:limit|cap|ceiling|constraints?))?{R}"
            rf"|{L}budget\s+(?:is\s+)?(?:unlimited|open[\s\-]ended|no\s+(?:issue|object|problem)){R}",
            lambda m: self.set("speed_first", True, m[0]),
        )
        # speed said to matter more than cost ("speed is more important than cost"): before the
        # cost-first words, which would take its "cost"
        self.scan.take(
            rf"{L}(?:speed|time)\s+(?:is\s+more\s+important|matters\s+more)\s+than\s+(?:cost|price|money){R}"
            rf"|{L}speed\s+over\s+(?:cost|price){R}",
            lambda m: self.set("speed_first", True, m[0]),
        )
        # "tight budget", "预算有限": cost first, before the key alone would read the same
        self._choose("cost_first")
        # a price an hour is not the job's budget ("$2/hr", "2元/卡时"): asked for as one
        self.scan.take(
            rf"(?:{sign})\s*{NUM}\s*(?:{currency_words})?\s*(?:/|per\s+|an?\s+)\s*(?:gpu[\s\-]?)?(?:hr|hour|h)(?![a-z])"
            rf"|{NUM}\s*(?:{currency_words})\s*(?:/|per\s+|an?\s+|每)\s*(?:gpu[\s\-]?)?(?:hr|hour|h|卡时|小时|卡小时)(?![a-z])"
            # ("每小时不超过20元", "每卡时最多5块": a cap on the rate is a rate too; it had been refused on 每小时)
            rf"|每(?:卡)?(?:小)?时\s*(?:不超过|不高于|最多|低于|小于|控制在|限|在)?\s*{NUM}\s*(?:{currency_words})?",
            lambda m: self.fail("hourly_budget", word=m[0].strip()),
        )
        # the amount before the key: "50k budget", "$200k budget", "a 50万 budget" ("7b budget" is
        # a model size and a budget key, so no b here); money only with a sign, a scale or a
        # currency ("Dec 20 budget ¥500k" is a date, then the budget)
        self.scan.take(
            rf"(?<![a-z0-9.\-/])(?P<neg>)(?:(?P<sym>{sign})\s*)?(?P<n>{NUM})\s*(?P<u>{CN_UNITS}|{SCALE_WORDS}|k|m|w)?\s*"
            rf"(?P<cur>{currency_words})?(?(sym)|(?(u)|(?(cur)|(?!))))"
            rf"\s+(?:{_en(row.keys)}){R}",
            budget,
        )
        self.scan.take(
            rf"(?:{L}(?P<pm_en>monthly\s+)?(?:{_en(row.keys)}){verb}"
            rf"|(?P<pm_zh>每个?月(?!\s*(?:都|一次|训练))|月度?)?(?:{_zh(row.keys)})(?P<pm_after>\s*每个?月(?!\s*(?:都|一次|训练)))?{cn_verb})"
            # (a sum in 万 or 亿 may run into the next number: "预算300万30天")
            rf"(?:\s*[:=]?\s*{amount}{per_month}(?:(?<=[万亿])|(?![a-z0-9])){most})?",
            budget,
        )
        # "每月10万", "一个月5万块": money by the month without the word budget (万 or a currency
        # says money; a count of samples says 条)
        self.scan.take(
            rf"(?P<pm_zh>每个?月|一个月)\s*(?P<neg>)(?P<sym>)(?P<n>{number})\s*(?P<u>万|千|w|k)?\s*"
            rf"(?P<cur>{_all(row.units, 'zh')})?(?(u)|(?(cur)|(?!)))(?!\s*(?:条|个|token|tokens|词元|样本|张|卡|台))",
            budget,
        )
        # A ceiling said around an amount of money: "50万以内", "不超过50万", "控制在30万以下",
        # "under $20k", "at most 50k usd". In Chinese 万 after the number is money here (a count
        # of samples says 条 after it); in English a sign or a currency must say it.
        not_a_count = r"(?!\s*(?:条|个|token|tokens|词元|样本|张|卡|台))"
        zh_money = rf"(?P<n>{number})\s*(?P<u>万|千|w|k)\s*(?P<cur>{_all(row.units, 'zh')})?"
        zh_yuan = rf"(?P<n>{NUM})\s*(?P<u>)(?P<cur>{_all(row.units, 'zh')})"  # "5000元"
        at_most = r"(?:(?:花费|花销|成本|开销|费用|总价|总共|一共)\s*)?(?:不超过|不到|最多|控制在|低于|少于"
        at_most += r"|(?:别|不要|不能|不得|最好别|最好不要|尽量别|尽量不要)超过?)\s*"
        below = r"\s*(?:以内|之内|以下)"
        for pattern in (
            rf"{at_most}{zh_money}{not_a_count}(?:{below})?",
            rf"{at_most}{zh_yuan}(?:{below})?",
            rf"{zh_money}{not_a_count}{below}",
            rf"{zh_yuan}{below}",
        ):
            self.scan.take(pattern, lambda m: budget(_Merged(m, neg=None, sym=None)))
        # a bare amount in 万 where the request buys ("帮我出个采购方案：300万，买一台8卡H200还是两台8卡H20"):
        # the money to buy with; a count says what it counts after it (条, token, 参数, 字)
        if re.search(r"买|采购|购置", self.scan.s):
            self.scan.take(
                rf"(?<![\d.a-z])(?<!数据)(?<!语料)(?P<n>{number})\s*(?P<u>万)\s*(?P<cur>{_all(row.units, 'zh')})?"
                # (nor 万亿, a trillion: "1万亿token" had been ¥10,000 of budget)
                # (nor pairs and the like: "2万对" had been a second budget beside 预算200万)
                r"(?!\s*(?:亿|条|个|对|组|篇|份|题|token|tokens|词元|样本|张|卡|台|参数|字|词|步|行|轮|次|小时|天|[a-z\d]))",
                lambda m: budget(_Merged(m, neg=None, sym=None)),
            )
        # "we can spend $200k", "can spend 200k dollars", "willing to spend": a budget
        self.scan.take(
            rf"{L}(?:(?:we|i)\s+)?(?:can|could|may|are\s+willing\s+to|want\s+to)\s+(?:only\s+)?spend(?:\s+(?:up\s+to|about|around|~))?\s+"
            rf"(?:(?P<sym>{sign})\s*(?P<n>{NUM})\s*(?P<u>{SCALE_WORDS}|k|m|b)?(?P<cur>)(?![a-z0-9])"
            rf"|(?P<n2>{NUM})\s*(?P<u2>{SCALE_WORDS}|k|m)?\s*(?P<cur2>{_all(row.units, 'en')})(?![a-z]))"
            rf"(?:\s+(?:max(?:imum)?|tops|at\s+most))?{R}",
            lambda m: budget(_Merged(m, neg=None)),
        )
        # "8k$", "500k$": a sign after the amount, as some write it
        self.scan.take(
            rf"{L}(?P<n>{NUM})\s*(?P<u>{SCALE_WORDS}|k|m)?\s*(?P<sym>\$|usd\$)(?P<cur>)(?![a-z0-9])"
            rf"(?:\s+(?:max(?:imum)?|tops|at\s+most))?",
            lambda m: budget(_Merged(m, neg=None)),
        )
        ceiling = r"(?:under|below|less\s+than|at\s+most|max(?:imum)?|no\s+more\s+than|up\s+to|within)\s+"
        self.scan.take(
            rf"{L}{ceiling}(?:(?P<sym>{sign})\s*(?P<n>{NUM})\s*(?P<u>{SCALE_WORDS}|k|m|b)?(?P<cur>)(?![a-z0-9])"
            rf"|(?P<n2>{NUM})\s*(?P<u2>{SCALE_WORDS}|k|m)?\s*(?P<cur2>{_all(row.units, 'en')})(?![a-z]))",
            lambda m: budget(_Merged(m, neg=None)),
        )
        self.scan.take(
            rf"(?P<neg>-)?(?P<sym>{sign})\s*(?P<n>{NUM})\s*(?P<u>{scale})?(?P<cur>)(?![a-z0-9])"
            rf"(?P<pm>\s*(?:/|per|a|each)\s*(?:month|mo)(?![a-z]))?"  # "$50k/month": by the month
            r"(?:\s+(?:max(?:imum)?|tops|at\s+most|or\s+less)(?![a-z]))?"  # "$250k max"
            # "2w" (2万, 20,000) is money before a currency only when joined to it: "2w usd" is two
            # weeks in dollars, "2w元" and "预算2w usd" are money
            rf"|{L}(?P<neg2>-)?(?P<n2>{number})\s*(?P<u2>{CN_UNITS}|{SCALE_WORDS}|k|m|w(?!\s))?\s*(?P<cur2>{currency_words})"
            rf"(?![a-z])(?:\s+(?:max(?:imum)?|tops|at\s+most|or\s+less)(?![a-z]))?",
            lambda m: budget(_Merged(m)),
        )

    # -- the lease term the team will sign (issue 21; advisor/planning/rent.py) ----------
    def _lease_term(self) -> None:
        """`1-month lease`, `3-month term`, `1-year lease`, `monthly`, `yearly`; `1个月起租`,
        `租3个月`, `租期一年`, `年租`, `包年`, `包月`: the term in months. Before the deadline
        words, which would read "1个月" as a deadline, and before 租 (rent)."""
        sc = self.scan
        row = fields.field("lease_term_months")

        def term(months: float, word: str) -> None:
            if not row.ok(months):
                self.fail("bad_value", word=word.strip(), what="lease_term")
            self.set("lease_term_months", int(months), word)

        def counted(m: re.Match) -> None:
            n = float(m["n"]) if m["n"] else _cn_num(m["cn"])
            term(n * value_of(row.units, m["unit"]), m[0])

        after, before = row.keys, fields.LEASE_LEAD
        en_units, zh_units = _all(row.units, "en"), _all(row.units, "zh")
        # "包年还是按月", "monthly or yearly lease?": a question the answer's terms side by side
        # answer (a plan rented by the month shows each term), no term (both would contradict)
        en_terms, zh_terms = _all(row.choices, "en"), _all(row.choices, "zh")
        sc.take(
            rf"{L}(?:{en_terms})\s*(?:or|vs\.?|versus|/)\s*(?:{en_terms})(?:\s+(?:{_en(after)}))?{R}"
            rf"|(?:{zh_terms})\s*(?:还是|或者|或|vs|和)\s*(?:{zh_terms})(?:更|比较)?(?:划算|便宜|合适|好)?",
            lambda m: None,
        )
        # after `lease of` a unit is a word, not `mo`: `monthly lease 3mo` is a 3-month deadline
        words = spelled([w for u in row.units for w in u.en if len(w) > 2])
        n = rf"(?:(?P<n>\d+)|(?P<cn>{CN_NUM[1:-1]}))"
        sc.take(
            rf"{L}(?P<n>\d+)[\s\-]*(?P<unit>{en_units})[\s\-]*(?:{_en(after)}){R}"
            rf"|{L}(?:{_en(before)})\s+(?:of\s+)?(?P<n2>\d+)\s*(?P<unit2>{words}){R}",
            lambda m: counted(_Merged(m, cn=None)),
        )
        # "rent for 2 months", "lease them for a year", "rent 1 year": the term, not a deadline;
        # "rent for 3 months or buy?", "租3个月还是买": the rent-or-buy question over that term (the
        # plan's costs weigh that lease against buying), "or buy" taken with it, no preference
        buy = fields.field("rent_or_buy").choices[1]

        def unasked(m: re.Match) -> str:  # the term's words, without the question
            return m[0] if m["q"] is None else m[0][: m.start("q") - m.start()]

        def term_or_buy(months: float, m: re.Match) -> None:
            term(months, unasked(m))
            if m["q"] is not None and "own_use_months" not in self.fields and fields.field("own_use_months").ok(months):
                # "租一年还是买": the GPUs are wanted that long, so owning them as long is weighed
                # against the lease (it had been the job alone against a year's lease: "rent, no
                # short term")
                self.set("own_use_months", int(months), m[0])

        or_buy = rf"(?P<q>\s*,?\s*(?:or|vs\.?|versus)\s+(?:to\s+|just\s+)?(?:{_en(buy)}){R})?"
        sc.take(
            rf"{L}(?:rent|lease|rented|leased|renting|leasing|reserved?|reserving|commit(?:ted)?)"
            rf"(?:\s+(?:it|them|the\s+(?:servers?|gpus?|cluster)))?"
            rf"\s+(?:for\s+)?(?:(?:just|only)\s+)?(?:(?P<n2>\d+)|a|one)\s*(?P<unit2>{words}){R}{or_buy}",
            lambda m: term_or_buy((float(m["n2"]) if m["n2"] else 1) * value_of(row.units, m["unit2"]), m),
        )
        sc.take(
            rf"(?:{_zh(before)})\s*{n}\s*(?P<unit>{zh_units})\s*(?P<q>(?:(?:更|比较)?(?:划算|便宜|合适|好))?\s*"
            rf"(?:还是|或者|或|vs)\s*(?:{_zh(buy)})"
            rf"(?:更|比较)?(?:划算|便宜|合适|好)?)",
            lambda m: term_or_buy((float(m["n"]) if m["n"] else _cn_num(m["cn"])) * value_of(row.units, m["unit"]), m),
        )
        sc.take(
            rf"{L}(?P<w>{_all(row.choices, 'en')})(?:\s+(?:{_en(after)}))?{R}",
            lambda m: term(value_of(row.choices, m["w"]), m[0]),
        )
        sc.take(rf"{n}\s*(?P<unit>{zh_units})\s*(?:{_zh(after)})", counted)
        sc.take(rf"(?:{_zh(before)})\s*{n}\s*(?P<unit>{zh_units})", counted)
        sc.take(_all(row.choices, "zh"), lambda m: term(value_of(row.choices, m[0]), m[0]))

    # -- the team's own use of bought GPUs (issue 15; advisor/planning/costs.py) ----------
    def _own_use(self) -> None:
        """`keep it busy 24 months`, `use them for 2 years`, `用两年`, `用24个月`: months of the
        team's own use; `60% use`, `利用率60%`: how busy. Before the deadline words, which would
        read "24 months" as a deadline."""
        sc = self.scan
        row = fields.field("own_use_months")

        def months(m: re.Match) -> None:
            n = float(m["n"]) if m["n"] else _cn_num(_group(m, "cn") or "")
            value = n * value_of(row.units, m["unit"])
            if not row.ok(value):
                self.fail("bad_value", word=m[0].strip(), what="own_use")
            self.set("own_use_months", int(round(value)), m[0])

        # "if it pays back within 18 months": the condition is the horizon's own wording
        sc.take(
            rf"{L}(?:if|when|as\s+long\s+as|provided)\s+(?:it|they|buying|that)(?=\s+(?:{_en(row.keys)}))",
            lambda m: None,
        )
        sc.take(
            rf"{L}(?:{_en(row.keys)})\s+(?:for\s+)?(?:(?P<n>\d+)|an?|one)\s*(?P<unit>{_all(row.units, 'en')}){R}",
            lambda m: months(_Merged(m, n=m["n"] or "1")),
        )
        sc.take(
            rf"(?:{_zh(row.keys)})(?:(?P<n>\d+)|(?P<cn>{CN_NUM[1:-1]}))\s*(?P<unit>{_all(row.units, 'zh')})", months
        )
        # a payback horizon said after its number or as a condition: "18个月回本", "两年内能回本",
        # "an 18-month payback", "if it pays back within 18 months" (a horizon for the buy
        # decision, not a deadline)
        sc.take(
            rf"(?:(?P<n>\d+)|(?P<cn>{CN_NUM[1:-1]}))\s*(?P<unit>{_all(row.units, 'zh')})"
            r"\s*(?:内|之内|以内)?\s*(?:能|可以|就)?回本"
            rf"|{L}(?P<n2>\d+)[\s\-]*(?P<unit2>{_all(row.units, 'en')})[\s\-]+"
            rf"(?:payback|pay[\s\-]?back|break[\s\-]?even){R}",
            lambda m: months(_Merged(m)),
        )
        busy = fields.field("own_utilisation")

        def utilisation(m: re.Match) -> None:
            value = float(m["n"] or m["n2"] or m["n3"] or m["n4"]) / 100
            if not busy.ok(value):
                self.fail("bad_value", word=m[0].strip(), what="own_utilisation")
            self.set("own_utilisation", value, m[0])

        sc.take(
            rf"{L}(?P<n>\d+(?:\.\d+)?)\s*%\s*(?:{_en(busy.keys)}){R}"
            rf"|(?:{_zh(busy.keys)})\s*(?P<n2>\d+(?:\.\d+)?)\s*%"
            # "we only use them 50%", "utilization of 60%", "keep them 70% busy"
            rf"|{L}(?:use|using|run|running|keep|keeping)\s+(?:them|it|the\s+(?:servers|gpus|cluster))"
            rf"(?:\s+(?:at|about|around|~))?\s+(?P<n3>\d+(?:\.\d+)?)\s*%(?:\s+(?:of\s+the\s+time|busy))?"
            rf"|{L}(?:utili[sz]ation|use)\s+(?:of|at)\s+(?P<n4>\d+(?:\.\d+)?)\s*%",
            utilisation,
        )

    # -- data -----------------------------------------------------------------------
    def _data(self) -> None:
        sc, s = self.scan, self.set
        row = fields.field("data")

        def units(kind: str, lang: str) -> str:
            return _all([u for u in row.units if u.value[0] == kind], lang)

        # The samples' mean length: "avg 2k tokens", "2k tokens each", "每条2000 token", before
        # the token counts, which would read it as the data's size
        def per_sample(m: re.Match) -> None:
            s("tokens_per_sample", _amount(m["n"], m["u"]), m[0])

        token = rf"(?:{units('tokens', 'en')}|{units('tokens', 'zh')})"
        sample = units("samples", "en")
        each = rf"(?:each|per\s+(?:{sample})|/\s*(?:{sample})|on\s+average|avg)"
        one_sample = r"(?:sample|pair|example|conversation|dialogue|document|record|row|prompt|instruction)"
        # the hedges people put before a mean length ("每条大概2k token", "平均长度约为1500")
        about = r"(?:平均)?(?:长度)?(?:其实|实际上|实际)?(?:大概|大约|约为|约|差不多|为|是|在|有)?\s*"
        for pattern in (
            # first, as the words after it alone are a length too: "each pair is 3000 tokens", "our
            # samples are about 2k tokens each", "samples average 3k tokens"
            # (not after a count and its kind: "20k reasoning traces averaging 4k tokens" is the count's, and
            # the length is read by the next pattern)
            rf"{L}(?<!\d\s)(?<!\d[kmw]\s){_AFTER_NO_KIND}(?:(?:our|the|my)\s+)?(?:(?:each|every|one|a)\s+)?"
            rf"(?:{sample}|{one_sample})\s+(?:is|are|has|have|averages?"
            rf"|averaging|runs?)\s+(?:about\s+|around\s+|roughly\s+|~\s*)?(?P<n>{NUM})\s*(?P<u>k)?\s*{token}"
            rf"(?:\s*(?:{each}|long))?{R}",
            rf"{L}(?:avg|average|mean|averaging)(?:\s+(?:length|len))?\s+(?:of\s+)?~?\s*(?P<n>{NUM})\s*(?P<u>k)?"
            rf"\s*{token}(?:\s*{each})?{R}",
            rf"{L}(?P<n>{NUM})\s*(?P<u>k)?\s*{token}\s*{each}{R}",
            # "100k samples, each about 1500 tokens" (the length had been a second data size)
            rf"{L}(?:each|every\s+one)\s+(?:(?:is|has|with|of)\s+)?(?:about|around|roughly|approximately|~)?\s*"
            rf"(?P<n>{NUM})\s*(?P<u>k)?\s*{token}(?:\s+long)?{R}",
            rf"{L}(?:at|@)\s*~?\s*(?P<n>{NUM})\s*(?P<u>k)?\s*{token}(?:\s*{each})?{R}",  # "30k samples at 2k tokens"
            rf"(?:平均)?每(?:条|个样本|段对话|篇)(?:数据|样本)?{about}\s*(?P<n>{NUM})\s*(?P<u>k|千|万)?\s*(?:个)?\s*{token}",
            rf"(?:样本|数据)?平均(?:长度)?{about}\s*(?P<n>{NUM})\s*(?P<u>k|千|万)?\s*(?:个)?\s*{token}",
            # "每条4k", "平均长度2k": a length in thousands after 每条 or 平均长度 is tokens
            rf"(?:(?:平均)?每(?:条|个样本|段对话|篇)(?:数据|样本)?|平均长度){about}\s*(?P<n>{NUM})\s*(?P<u>k|千)"
            r"(?!\s*(?:个?汉?字|字符|条|卡|张|元|块|[a-z]))",
            # "平均长度1500": a mean length with no unit is tokens, as training data is counted
            rf"(?:样本|数据)?平均长度{about}\s*(?P<n>\d{{2,6}})(?P<u>)(?![\d.,]|\s*(?:个?汉?字|字符|条|卡|张|元|块|[a-z]|k|千|万))",
        ):
            sc.take(pattern, per_sample)
        # "20k samples of 4k tokens": the length after "of" (the count before it is the data's)
        sc.take(
            rf"(?:{sample})\s+(?P<len>of\s+(?:about\s+|around\s+|~\s*)?(?P<n>{NUM})\s*(?P<u>k)?\s*{token}"
            rf"(?:\s*{each})?){R}",
            per_sample,
            only="len",
        )

        # "每条300字", "平均300个汉字": Chinese characters, 3 bytes each in UTF-8, at the bytes a
        # token Chinese text takes (BYTES_PER_TOKEN["zh"], the same source)
        def per_sample_chars(m: re.Match) -> None:
            self.sample_chars = _amount(m["n"] or m["n2"], m["u"] or m["u2"])
            s("tokens_per_sample", round(self.sample_chars * ZH_CHAR_BYTES / BYTES_PER_TOKEN["zh"]), m[0])

        sc.take(
            rf"(?:平均)?每(?:条|个样本|段对话|篇)(?:数据|样本)?(?:约|平均)?\s*(?P<n>{NUM})\s*(?P<u>k|千|万)?\s*(?:个)?\s*"
            rf"(?:汉字|中文字|字符|字)|平均(?:长度)?(?:约|为)?\s*(?P<n2>{NUM})\s*(?P<u2>k|千|万)?\s*(?:个)?\s*(?:汉字|中文字|字符|字)",
            per_sample_chars,
        )
        # "2B tokens", "2 billion tokens", "五亿token"; "1万多条", "80k+ samples", "80k instruction samples"
        number = rf"(?P<neg>-)?(?P<n>{NUM}|{CN_SCALED})"
        more = r"(?:多|余|\+)?"
        spoken = fields.field("data_language").choices

        def tokens_in(m: re.Match) -> None:  # "5000亿中文token": the count and the data's language
            self._data_amount(m, m["n"], m["u"], "tokens")
            s("data_language", value_of(spoken, m["lang"]), m[0])

        sc.take(
            rf"{number}\s*(?P<u>{CN_UNITS})?{more}\s*(?:个\s*)?(?P<lang>{_all(spoken, 'zh')})\s*"
            rf"(?:{units('tokens', 'zh')}|(?:{units('tokens', 'en')}){R})",
            tokens_in,
        )
        # (what the tokens are may come between: "5B new tokens", "20B fresh tokens", "300B code tokens")
        adjectives = (
            r"(?:new|fresh|additional|extra|more|unique|clean|cleaned|deduped|filtered|high-quality|code|web|text)"
        )
        adjectives = rf"(?:{adjectives}\s+){{0,2}}"
        sc.take(
            rf"{L}{number}\s*(?P<u>{CN_UNITS}|{SCALE_WORDS}|k|m|b|t)?{more}\s*(?:个\s*)?"
            rf"(?:{adjectives}(?:{units('tokens', 'en')}){R}|{units('tokens', 'zh')})",
            lambda m: self._data_amount(m, m["n"], m["u"], "tokens"),
        )
        # "1TB tokens", "500GB of tokens": a count of tokens or a size of text, unsaid which (it had
        # read as 1 TB of text, "tokens" left over): asked, as a bare "1.2T" after the model is
        sc.take(
            rf"{L}(?P<n>{NUM})\s*(?P<u>t|g)b\s+(?:of\s+)?(?:{units('tokens', 'en')}){R}",
            lambda m: self.fail(
                "data_bytes_of_tokens",
                word=m[0].strip(),
                tokens=m["n"] + ("T" if m["u"] == "t" else "B"),
                bytes=m["n"] + m["u"].upper() + "B",
            ),
        )
        kinds = rf"(?:(?:{SAMPLE_KINDS})[\s\-]+){{0,2}}"
        # image-text pairs named before their count ("图文对1000万条"), as they are after it ("1000万条图文对")
        sc.take(
            r"(?<![\d万千百亿条个张对])(?:图文对|图文数据|图文)(?=\s*[:：]?\s*(?:约|大约|大概|共)?\s*"
            r"[\d.一二两三四五六七八九十]+\s*[万千百亿]?\s*(?:条|个|对|组))",
            lambda m: None,
        )

        # a count said only roughly ("几十万条", "十几万条", "hundreds of thousands of samples"): asked
        # for ("几" had been read past, 几十万 planned as 十万)
        sc.take(
            r"(?:好)?(?:几|十几|数)(?:十|百)?[万千百亿](?:多)?\s*(?:条|个样本|样本|篇|段对话|个对话|对话|对|token|tokens|词元)"
            rf"|{L}(?:a\s+few|several|tens\s+of|hundreds\s+of)\s+(?:hundred\s+)?(?:thousands?|millions?|billions?)"
            rf"(?:\s+of)?\s+(?:{kinds}(?:{sample}|tokens?)){R}",
            lambda m: self.fail("unknown_word", word=m[0].strip(), nearest="", why="vague_count"),
        )

        def samples(m: re.Match) -> None:
            self._data_amount(m, m["n"], m["u"], "samples")
            if re.search(r"\blong\b", m[0]) and not self.long_context:
                self.long_context = m[0].strip()  # "10k long documents": their length is asked (`_finish`)

        sc.take(
            rf"{L}{number}\s*(?P<u>{CN_UNITS}|{SCALE_WORDS}|k|m|w)?{more}\s*(?:{kinds}(?:{sample}){R}"
            rf"|{units('samples', 'zh')})",
            samples,
        )
        # the count after its samples, in brackets ("our support tickets (~300k)", "conversations (about
        # 50k)"): it had been refused as a word not understood
        sc.take(
            rf"{L}(?:{kinds}(?:{sample}))\s*[(（]\s*(?:~|about\s+|around\s+|approx\.?\s*|roughly\s+|约)?\s*"
            rf"(?P<neg>-)?(?P<n>{NUM})\s*(?P<u>{CN_UNITS}|k|m|w)?\s*[)）]",
            samples,
        )
        # preference pairs counted in Chinese ("2万对", "5万对偏好数据"): samples, each a pair; 对
        # only where a count ends with it, never the preposition ("对模型微调", "10万对话")
        sc.take(
            rf"{number}\s*(?P<u>{CN_UNITS}|k|w)?{more}\s*对(?=\s|$|[，,。；;、)）]|(?:偏好)?(?:数据|样本)|偏好|微调|训练|的)",
            lambda m: self._data_amount(m, m["n"], m["u"], "samples"),
        )
        # "100G" is 100 GB; a bare "T" or "P" needs 数据/语料 after it ("1T" alone is a model size),
        # or the data's language before that ("1T中文语料")
        en, zh = _all(spoken, "en"), _all(spoken, "zh")
        sc.take(
            rf"{L}(?P<neg>-)?{NUM}\s*(?:({units('bytes', 'en')}){R}"
            rf"|({units('bytes', 'zh')})(?=\s*(?:(?:{zh})\s*)?(?:数据|语料|文本)))",
            lambda m: self._data_bytes(m),
        )
        # a bilingual corpus first: "中英文数据" holds 英文数据, which the rule below would take
        both = [w for w in spoken if "-" in w.value]  # a mix: "中英文", "code + english"
        sc.take(
            rf"{L}(?:{_all(both, 'en')}){R}|(?:{_all(both, 'zh')})",
            lambda m: s("data_language", value_of(spoken, m[0]), m[0]),
        )
        # Words about the data say its language: "chinese", "中文数据", "数据是中文的", with what
        # the data is around them ("高质量中文数据", "中文网页文本", "100GB 中文 数据", "语料500G中文")
        sc.take(
            rf"{L}({en})(?:[\s_\-]?(?:data|text|corpus))?{R}(?!\s*new\s+year)"  # Chinese New Year: a date
            rf"|(?:(?<![\u4e00-\u9fff]){_ZH_ABOUT}{{1,6}}?的?)?({zh})\s*(?:{_ZH_ABOUT}{{1,6}}?的?)?\s*(?:{_ZH_DATA})"
            rf"|(?:数据|语料)\s*(?:都|主要)?(?:是|为)?\s*({zh})(?:的)?"
            rf"|(?<![\u4e00-\u9fff])({zh})(?![\u4e00-\u9fff])",  # alone: "500GB 中文 10天"
            lambda m: s("data_language", value_of(spoken, m[1] or m[2] or m[3] or m[4]), m[0]),
        )
        # A model named for its language ("代码模型", "a code model"; "中文大模型" is read with 大模型
        # in `read`): it trains on text in that language (it had been refused over "代码")
        sc.take(
            rf"(?:(?<![\u4e00-\u9fff])|(?<=的)|(?<=个))({zh})(?:语言)?模型|{L}({en})[\s\-](?:model|llm){R}",
            lambda m: s("data_language", value_of(spoken, m[1] or m[2]), m[0]),
        )
        epochs = fields.field("epochs").units
        en, zh = _all(epochs, "en"), _all(epochs, "zh")
        sc.take(  # "3 epochs", "three epochs", "1 epoch over 5GB", "3轮"
            rf"{L}(?:{NUM}|({EN_NUM}))\s*(?:{en})(?:\s+over)?{R}|{NUM}\s*(?:{zh})|{CN_NUM}\s*(?:{zh})",
            lambda m: s("epochs", self._epochs(m), m[0]),
        )

    @staticmethod
    def _epochs(m: re.Match) -> float:
        if m[2]:
            return float(EN_NUMBERS[m[2]])
        number = m[1] or m[3]
        return _num(number) if number else _cn_num(m[4])

    def _about_the_data(self) -> None:
        """What the data is, said around its noun ("200GB of cleaned text", "行业数据"): read last,
        so only words nothing else reads are taken; a modality the bot does not plan (images,
        audio) or another language is left for the refusal, not read past."""
        self.scan.take(rf"{L}(?:{_EN_ABOUT}[\s\-]+){{1,2}}(?:{_EN_DATA}){R}", lambda m: None)

        # (up to 12 characters: "想用自己的法律文书数据" is 9 before its noun, and had been refused)
        self.scan.take(rf"(?<![\u4e00-\u9fff]){_ZH_ABOUT}{{1,12}}?的?\s*(?:{_ZH_DATA})", lambda m: None)

    def _data_amount(self, m: re.Match, number: str, unit: str | None, kind: str) -> None:
        if m["neg"]:
            self.fail("bad_value", word=m[0].strip(), what="data")
        amount, have = _amount(number, unit), self.fields.get("data")
        if have and {have[1], kind} == {"samples", "tokens"} and "tokens_per_sample" not in self.fields:
            # a count of samples and their tokens in all ("10万条 1.5亿token"): the samples, each
            # the total over the count (it had been refused as two data sizes)
            samples, tokens = (have[0], amount) if have[1] == "samples" else (amount, have[0])
            if tokens >= samples:
                if have[1] == "tokens":
                    del self.fields["data"], self.words["data"]
                    self.set("data", (samples, "samples"), m[0])
                self.set("tokens_per_sample", round(tokens / samples), m[0])
                return
        self.set("data", (amount, kind), m[0])

    def _data_bytes(self, m: re.Match) -> None:
        if m["neg"]:
            self.fail("bad_value", word=m[0].strip(), what="data")
        _, scale = value_of(fields.field("data").units, m[3] or m[4])
        self.set("data", (_num(m[2]) * scale, "bytes"), m[0])

    # -- time -----------------------------------------------------------------------
    def _deadline_date(self) -> None:
        """A deadline said as a day: a weekday (`by Friday`, `next fri`, `周五前`, `下周五`), the end
        of the month or year (`by end of month`, `月底前`, `年底`), a date (`before Dec 20`,
        `by 2026-12-20`, `12月20日前`): its days from today, noted with the date."""
        today = self.today

        def later_today(word: str) -> None:  # the bot does not know the hour the team works to
            self.today_word = word.strip()
            self.set("deadline_days", TODAY_HOURS / 24, word)

        def on(day: dt.date, word: str) -> None:
            if day == today:  # "by end of month" on its last day: what is left of today
                return later_today(word)
            if day < today:
                self.fail("deadline_past", word=word.strip(), today=str(today))
            self.deadline_date = day
            self.set("deadline_days", float((day - today).days), word)

        def weekday(target: int, next_week: bool, word: str) -> None:
            self.deadline_weekday = True
            on(weekday_from(today, target, next_week, today_counts=False), word)

        def month_end(word: str) -> None:
            self.deadline_month_end = True
            last = calendar.monthrange(today.year, today.month)[1]
            on(dt.date(today.year, today.month, last), word)

        def date(month: int, mday: int, word: str, year: int | None = None) -> None:
            try:
                day = dt.date(year or today.year, month, mday)
                recently_past = year is None and 0 <= (today - day).days <= RECENTLY_PAST_DAYS
                if year is None and day <= today and not recently_past:
                    day = day.replace(year=today.year + 1)  # "by Jan 15" said in December
            except ValueError:
                self.fail("bad_value", word=word.strip(), what="deadline")
            on(day, word)  # a day that passed lately is refused there as past

        # "deadline Jan 10", "deadline: Friday", "no later than Dec 20", "due by"
        by = r"(?:by|before|until|till|due(?:\s+by)?|no\s+later\s+than|deadline(?:\s+(?:is|of|on))?\s*:?)\s+"
        days = "|".join(sorted(EN_WEEKDAYS, key=len, reverse=True))
        months = "|".join(sorted((m.lower() for m in EN_MONTHS), key=len, reverse=True))
        sc = self.scan
        self._start_date(days, months)
        sc.take(
            rf"{L}{by}(?:(this|next)\s+)?({days}){R}|{L}(?:(this|next)\s+)({days}){R}",
            lambda m: weekday(EN_WEEKDAYS[m[2] or m[4]], (m[1] or m[3]) == "next", m[0]),
        )
        sc.take(
            r"下下(?:周|星期|礼拜)", lambda m: self.fail("unknown_word", word=m[0], nearest="")
        )  # two weeks on: said as days
        sc.take(
            r"(下)?(?:周|星期|礼拜)([一二三四五六日天])(?:前|之前|以前)?",
            lambda m: weekday(ZH_WEEKDAYS[m[2]], bool(m[1]), m[0]),
        )

        def next_month_end(word: str) -> None:
            year, month = (today.year + 1, 1) if today.month == 12 else (today.year, today.month + 1)
            on(dt.date(year, month, calendar.monthrange(year, month)[1]), word)

        sc.take(r"下个?月底(?:前|之前)?", lambda m: next_month_end(m[0]))

        def named_month(month: int, mday: int | None, word: str, next_year: bool = False) -> None:
            """ "by end of January", "mid-January"; "明年3月底前" in next year whatever the month."""
            year = today.year + 1 if next_year or month < today.month else today.year
            date(month, mday or calendar.monthrange(year, month)[1], word, year)

        # "3月底前", "3月中旬前", "3月前", "明年3月底前": the last day, the 15th (10th, last) or the
        # first day of that month
        sc.take(
            r"(明年\s*)?(?<!\d)(\d{1,2})\s*月(?:份)?(?:(底|末)|([上中下])旬|初)?(?:前|之前|以前)(?![\d个])",
            lambda m: (
                named_month(
                    int(m[2]), {"上": 10, "中": 15}.get(m[4]) if m[4] else (None if m[3] else 1), m[0], bool(m[1])
                )
                if 1 <= int(m[2]) <= 12
                else self.fail("bad_value", word=m[0], what="deadline")
            ),
        )
        # "下个月中旬前", "本月下旬": the thirds of a month (上旬 days 1-10, 中旬 11-20, 下旬 21 to
        # the end): by the 10th, the 15th (mid-month, as `mid-January` is read) and the last day

        def third(next_month: bool, which: str, word: str) -> None:
            year, month = today.year, today.month
            if next_month:
                year, month = (year + 1, 1) if month == 12 else (year, month + 1)
            last = calendar.monthrange(year, month)[1]
            on(dt.date(year, month, {"上": 10, "中": 15, "下": last}[which]), word)

        sc.take(
            r"(下个?月|本月|这个月)([上中下])旬(?:前|之前|以前)?",
            lambda m: third(m[1].startswith("下"), m[2], m[0]),
        )
        sc.take(r"上个?月(?:底|末)?(?:前|之前)?", lambda m: self.fail("deadline_past", word=m[0], today=str(today)))
        sc.take(
            rf"{L}{by}(?:the\s+)?(?:end\s+of\s+(?:the\s+)?month|month[\s\-]end|eom){R}|(?:本月|这个月)?月底(?:前|之前)?",
            lambda m: month_end(m[0]),
        )
        sc.take(
            rf"{L}{by}(?:the\s+)?(?:end\s+of\s+(?:the\s+)?year|year[\s\-]end|eoy){R}|(?:今年)?年底(?:前|之前)?",
            lambda m: on(dt.date(today.year, 12, 31), m[0]),
        )
        year = r"(?:,?\s+(20\d\d))?"  # `by Jan 15, 2027`: the year when given
        sc.take(
            rf"{L}{by}(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({months})\.?{year}{R}",
            lambda m: date(EN_MONTHS[m[2][:3].title()], int(m[1]), m[0], int(m[3]) if m[3] else None),
        )
        sc.take(
            rf"{L}{by}({months})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?{year}{R}",
            lambda m: date(EN_MONTHS[m[1][:3].title()], int(m[2]), m[0], int(m[3]) if m[3] else None),
        )
        sc.take(rf"{L}{by}(\d{{4}})-(\d{{1,2}})-(\d{{1,2}}){R}", lambda m: date(int(m[2]), int(m[3]), m[0], int(m[1])))
        # "by 12/20" (month/day, as both US and Chinese teams write it), "by Christmas"
        sc.take(rf"{L}{by}(\d{{1,2}})/(\d{{1,2}}){R}(?!/)", lambda m: date(int(m[1]), int(m[2]), m[0]))
        sc.take(rf"{L}(?:{by})?christmas{R}|圣诞(?:节)?(?:前|之前)", lambda m: date(12, 25, m[0]))

        sc.take(
            rf"{L}(?:{by})?(?:the\s+)?(?:(end)\s+of|(mid)[\s\-]*)\s*({months})\.?{R}",
            lambda m: named_month(EN_MONTHS[m[3][:3].title()], 15 if m[2] else None, m[0]),
        )
        sc.take(
            rf"{L}{by}(?:the\s+)?end\s+of\s+next\s+month{R}",
            lambda m: next_month_end(m[0]),
        )
        # "by March": before the month begins, its first day (the cautious reading; the date is noted)
        sc.take(rf"{L}{by}({months})\.?{R}(?!\s*\d)", lambda m: named_month(EN_MONTHS[m[1][:3].title()], 1, m[0]))
        sc.take(
            r"(20\d\d)\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]?(?:前|之前|以前)?",
            lambda m: date(int(m[2]), int(m[3]), m[0], int(m[1])),
        )
        sc.take(
            r"明年\s*(\d{1,2})月(\d{1,2})[日号](?:前|之前|以前)?",
            lambda m: date(int(m[1]), int(m[2]), m[0], today.year + 1),
        )
        sc.take(r"(\d{1,2})月(\d{1,2})[日号](?:前|之前|以前)?", lambda m: date(int(m[1]), int(m[2]), m[0]))

        def next_month_day(mday: int, word: str) -> None:
            year, month = (today.year + 1, 1) if today.month == 12 else (today.year, today.month + 1)
            date(month, mday, word, year)

        sc.take(r"下个?月(\d{1,2})[日号](?:前|之前|以前)?", lambda m: next_month_day(int(m[1]), m[0]))

        def spring_festival(word: str) -> None:  # the next Lunar New Year's Day (a table: lunar)
            day = next((d for d in SPRING_FESTIVALS if d > today), None)
            if day is None:  # past the table: asked as a date
                self.fail("bad_value", word=word.strip(), what="deadline")
            on(day, word)

        sc.take(
            r"(?:春节|过年|农历新年|大年初一)(?:之前|以前|前)|(?<![\d两几一二三四五六七八九十百去今明前后])年前"
            rf"|{L}{by}(?:the\s+)?(?:(?:chinese|lunar)\s+new\s+year|spring\s+festival){R}",
            lambda m: spring_festival(m[0]),
        )

        def week_end(weeks_on: int, word: str) -> None:  # the Sunday of this week, or of the next
            on(today + dt.timedelta(days=6 - today.weekday() + 7 * weeks_on), word)

        sc.take(
            rf"{L}(?:{by}|within\s+)?(?:the\s+)?(?:end\s+of\s+)?this\s+week{R}|(?:本周|这周|这个星期|本星期)(?:内|之内|结束前|底前)?(?![一二三四五六日天末])"
            # "by end of week", "EOW", "本周末前", "周末前": this week's Sunday
            rf"|{L}(?:{by})?(?:the\s+)?end\s+of\s+(?:the\s+)?week{R}|{L}(?:{by})?eow{R}"
            r"|(?<!下)(?:本|这个?)?(?:周末|星期天|礼拜天)(?:前|之前|以前)",
            lambda m: week_end(0, m[0]),
        )
        sc.take(r"下(?:个)?(?:周末|星期天|礼拜天)(?:前|之前|以前)?", lambda m: week_end(1, m[0]))

        # "20号之前", "before the 20th": the next such day of a month (this month's, else the next's)
        def month_day(mday: int, word: str) -> None:
            year, month = today.year, today.month
            if mday <= today.day:
                year, month = (year + 1, 1) if month == 12 else (year, month + 1)
            date(month, mday, word, year)

        sc.take(
            r"(?<![\d月])(\d{1,2})\s*[号日](?:前|之前|以前)"
            rf"|{L}{by}(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th){R}(?!\s*(?:of\s+)?(?:{months}))",
            lambda m: (
                month_day(int(m[1] or m[2]), m[0])
                if 1 <= int(m[1] or m[2]) <= 31
                else self.fail("bad_value", word=m[0], what="deadline")
            ),
        )
        # "下个月初" (early next month: by its 10th, as 上旬), "下月中" (mid-month: its 15th)
        sc.take(
            r"下个?月(初|中)(?![旬])(?:前|之前|以前)?",
            lambda m: next_month_day(10 if m[1] == "初" else 15, m[0]),
        )
        sc.take(
            rf"{L}(?:{by}|within\s+)?(?:the\s+)?(?:end\s+of\s+)?next\s+week{R}|下周(?:内|之内|结束前|底前)?(?![一二三四五六日天])",
            lambda m: week_end(1, m[0]),
        )
        # a time of tomorrow ("明天下班前", "明天中午", "by tomorrow evening") is tomorrow's deadline
        sc.take(
            rf"{L}(?:{by})?(?:tomorrow|tmrw|tmr|tomorow|tommorow|tommorrow)(?:\s+(?:morning|noon|evening|night|eod))?{R}"
            r"|明天(?:早上|上午|中午|下午|傍晚|晚上|下班)?(?:前|之前|以前)?",
            lambda m: on(today + dt.timedelta(days=1), m[0]),
        )

        sc.take(
            rf"{L}(?:{by})?(?:today|tonight|end\s+of\s+(?:the\s+)?day|eod|close\s+of\s+business|cob){R}"
            r"|(?:今天|今晚|今日|当天)(?:下班)?(?:前|之前|以前|之内|内)?|下班(?:前|之前|以前)",
            lambda m: later_today(m[0]),
        )

        def overnight(word: str) -> None:  # an evening to the next morning
            self.overnight_word = word.strip()
            self.set("deadline_days", OVERNIGHT_HOURS / 24, word)

        sc.take(
            rf"{L}(?:(?:run\s+|train\s+)?over\s?night|in\s+one\s+night){R}|(?:一|1)(?:个)?(?:晚上|夜)(?:之内|内)?|通宵|过夜",
            lambda m: overnight(m[0]),
        )

        def weekend(word: str) -> None:  # a Friday evening to the Monday morning
            self.weekend_word = word.strip()
            self.set("deadline_days", WEEKEND_HOURS / 24, word)

        sc.take(
            rf"{L}(?:over|during|in|within)\s+(?:the|a|one)\s+weekend{R}|(?:一|1)个周末(?:之内|内)?|周末(?:两天|跑完|训完)",
            lambda m: weekend(m[0]),
        )
        sc.take(
            # a past day only as a deadline: "bought last year" says when, not by when
            rf"{L}(?:(?:{by})?yesterday|{by}last\s+(?:week|month|year)){R}|(?:昨天|前天)(?:前|之前|以前)?",
            lambda m: self.fail("deadline_past", word=m[0], today=str(today)),
        )

        def working_days(n: int, word: str) -> None:  # n weekdays on from today
            day = today
            while n > 0:
                day += dt.timedelta(days=1)
                n -= day.weekday() < 5
            on(day, word)

        sc.take(
            rf"{L}(\d+)\s*(?:working|business|work)[\s\-]*days?{R}|(?:(\d+)|{CN_NUM})\s*个?工作日(?:内|之内)?",
            lambda m: working_days(int(m[1] or m[2]) if (m[1] or m[2]) else int(_cn_num(m[3])), m[0]),
        )

        def quarter(q: int, word: str, end: bool) -> None:
            """ "by end of Q2" / "二季度末": its last day; "by Q2" / "二季度前": before it begins, its
            first day, the cautious reading "by March" has (a buyer had read the two conventions as
            at odds); the quarter under way, its end; a quarter past, next year's."""
            last = dt.date(today.year, 3 * q, calendar.monthrange(today.year, 3 * q)[1])
            first = dt.date(today.year, 3 * q - 2, 1)
            if end or first <= today <= last:
                on(last if last >= today else last.replace(year=today.year + 1), word)
            else:
                on(first if first > today else first.replace(year=today.year + 1), word)

        sc.take(
            rf"{L}(?:{by})?(?:the\s+)?(end\s+of\s+)?q([1-4])(\s+end)?{R}|(?:第)?([1-4一二三四])季度(末|底)?(?:前|之前)?",
            lambda m: quarter(
                int(m[2]) if m[2] else "一二三四1234".index(m[4]) % 4 + 1, m[0], bool(m[1] or m[3] or m[5])
            ),
        )

    def _start_date(self, days: str, months: str) -> None:
        """The day the job starts, said beside a deadline day ("start next monday, done by dec 31",
        "下周一开始，月底前完成", "from dec 14 to dec 31"): the deadline counts from it, not from
        today (the two days had been refused as deadlines that contradict each other). Read before
        the deadline days, so its day is not taken for one."""
        today = self.today
        en_day = (
            rf"(?:(?P<which>this|next)\s+)?(?P<wd>{days})|(?P<mon>{months})\.?\s+(?P<md>\d{{1,2}})(?:st|nd|rd|th)?"
            rf"|(?P<md2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon2>{months})|(?P<y>20\d\d)-(?P<ym>\d{{1,2}})-(?P<yd>\d{{1,2}})"
            r"|(?P<sm>\d{1,2})/(?P<sd>\d{1,2})(?!/)|(?P<tomorrow>tomorrow)|(?P<today>today)"
            r"|(?P<nextweek>next\s+week)|(?P<nextmonth>next\s+month)"
        )
        zh_day = (
            r"(?P<zwhich>下)?(?:周|星期|礼拜)(?P<zwd>[一二三四五六日天])|(?:(?P<zy>20\d\d)\s*年\s*)?(?P<zm>\d{1,2})\s*月\s*(?P<zd>\d{1,2})\s*[日号]"
            r"|(?P<ztomorrow>明天)|(?P<ztoday>今天)"
            r"|(?P<znextweek>下个?(?:周|星期|礼拜)(?![一二三四五六日天末]))|(?P<znextmonth>下个?月初?)"
        )

        def day_of(m: re.Match, suffix: str = "") -> dt.date | None:
            said = m.groupdict()

            def g(name: str) -> str | None:  # the English and the Chinese patterns name different parts
                return said.get(name + suffix)

            if g("wd") or g("zwd"):
                target = EN_WEEKDAYS[g("wd")] if g("wd") else ZH_WEEKDAYS[g("zwd")]
                return weekday_from(today, target, g("which") == "next" or bool(g("zwhich")), today_counts=True)
            if g("tomorrow") or g("ztomorrow"):
                return today + dt.timedelta(days=1)
            if g("nextweek") or g("znextweek"):  # "starting next week", "下周开始": its Monday
                return weekday_from(today, 0, next_week=True, today_counts=False)
            if g("nextmonth") or g("znextmonth"):  # its first day
                return (today.replace(day=1) + dt.timedelta(days=32)).replace(day=1)
            if g("today") or g("ztoday"):
                return today
            year = g("y") or g("zy")
            month = g("ym") or g("sm") or g("zm") or (g("mon") or g("mon2") or "")[:3].title()
            mday = g("md") or g("md2") or g("yd") or g("sd") or g("zd")
            try:
                number = int(month) if month.isdigit() else EN_MONTHS[month]
                day = dt.date(int(year) if year else today.year, number, int(mday))
            except (KeyError, ValueError):
                return None
            return day.replace(year=today.year + 1) if not year and day < today else day

        def start(m: re.Match) -> None:
            day = day_of(m)
            if day is None or day < today:
                self.fail("bad_value", word=m[0].strip(), what="deadline")
            self.start_date = day

        def span(m: re.Match) -> None:
            start(m)
            end = day_of(m, "_e")
            if end is None:
                self.fail("bad_value", word=m[0].strip(), what="deadline")
            self.deadline_date = end
            self.set("deadline_days", float((end - today).days), m[0])

        def ends(pattern: str) -> str:  # the same day's pattern, its groups named apart
            return re.sub(r"\(\?P<(\w+)>", r"(?P<\1_e>", pattern)

        sc = self.scan
        sc.take(rf"{L}from\s+(?:{en_day})\s+(?:to|until|till|through)\s+(?:{ends(en_day)}){R}", span)
        sc.take(rf"从\s*(?:{zh_day})\s*(?:到|至)\s*(?:{ends(zh_day)})(?:前|之前|以前)?", span)
        sc.take(
            rf"{L}(?:(?:we\s+)?(?:can\s+)?(?:start(?:ing|s)?|begin(?:ning|s)?|kick(?:ing)?[\s\-]?off)\s+(?:on\s+|from\s+)?(?:the\s+)?)"
            rf"(?:{en_day}){R}",
            start,
        )
        sc.take(rf"(?:从\s*)?(?:{zh_day})\s*(?:开始|起|开工|开跑|启动)", start)

    def _counted_from_the_start(self) -> None:
        """A deadline day after a start day: the days between them (a start alone leaves a length
        said as it is: "starting jan 5, 14 days")."""
        if self.start_date is None or self.deadline_date is None:
            return
        while self.deadline_weekday and self.deadline_date <= self.start_date:
            # "start monday, due by friday": the Friday after the start, not this week's
            self.deadline_date += dt.timedelta(days=7)
        if self.deadline_month_end and self.deadline_date <= self.start_date:
            # "下个月初开始 月底前": the end of the start's month
            start = self.start_date
            self.deadline_date = start.replace(day=calendar.monthrange(start.year, start.month)[1])
        days = (self.deadline_date - self.start_date).days
        if days <= 0:
            self.fail("bad_value", word=self.words.get("deadline_days", ""), what="deadline")
        self.fields["deadline_days"] = float(days)

    def _not_negative(self, m: re.Match, group: int | str) -> None:
        """A GPU count written with a minus sign ("on -8 H100", "-8 gpus") is refused, not read as 8."""
        at = m.start(group)
        if at > 0 and m.string[at - 1] == "-" and (at == 1 or not m.string[at - 2].isalnum()):
            self.fail("bad_value", word=m.string[at - 1 : m.end()].strip(), what="gpu_count")

    def _deadline(self) -> None:
        self._deadline_date()
        self._counted_from_the_start()
        units = fields.field("deadline_days").units

        def deadline(value: float, unit: str, word: str, negative: bool) -> None:
            if negative:
                self.fail("bad_value", word=word.strip(), what="deadline")
            self.set("deadline_days", value * value_of(units, unit), word)

        def span(low: str, high: str, unit: str, word: str) -> None:
            lo, hi = _num(low), _num(high)
            if not 0 < lo < hi:
                self.fail("bad_value", word=word.strip(), what="deadline")
            self.deadline_range = {"words": word.strip(), "low_days": lo * value_of(units, unit)}
            deadline(hi, unit, word, False)

        # a range of time is its later end, said with the earlier one to ask about: "3-6 months",
        # "within 3 to 6 months", "3到6个月"
        self.scan.take(
            rf"{L}(?:within\s+|in\s+)?{NUM}\s*(?:-|–|~|to)\s*{NUM}[\s\-]*({_all(units, 'en')}){R}",
            lambda m: span(m[1], m[2], m[3], m[0]),
        )
        # not "3-6月" (March to June) nor "1-5日" (days of a month)
        zh_spans = spelled([s for w in units for s in w.spellings("zh") if s not in ("月", "日")])
        self.scan.take(rf"{NUM}\s*(?:-|–|~|到|至)\s*{NUM}\s*({zh_spans})", lambda m: span(m[1], m[2], m[3], m[0]))
        # the time the job is spread over is the deadline: "over 2 weeks", "across a month"
        self.scan.take(
            rf"{L}(?:over|across|spread\s+over)"
            rf"(?=\s+(?:\d|a\s|an\s|the\s+next|{EN_NUM})[^,;]*?(?:{_all(units, 'en')}){R})",
            lambda m: None,
        )
        # "over the year", "within the next month": one of that unit
        self.scan.take(
            rf"{L}(?:over|across|within|in)\s+the\s+(?:next\s+|coming\s+)?(year|month|week){R}",
            lambda m: deadline(1, m[1], m[0], False),
        )
        # a ceiling on the time is the deadline: "in less than a week", "under 10 days", "不超过两周"
        self.scan.take(
            rf"{L}(?:in\s+)?(?:less\s+than|under|no\s+more\s+than|at\s+most)(?=\s+(?:a|an|\d))", lambda m: None
        )
        self.scan.take(r"(?:不超过|不到|最多)(?=\s*[\d一二两三四五六七八九十半])", lambda m: None)
        # (not a part of a name joined on both sides: "granite-4.0-h-1b" is no 4-hour deadline)
        en = _all(units, "en")
        named = rf"(?:(?<=[a-z0-9][\-_])(?!\d+(?:\.\d+)?[\-_]?(?:{en})[\-_][a-z0-9])|(?<![a-z0-9][\-_]))"
        self.scan.take(
            rf"{L}{named}(-)?{NUM}[\s\-]*({en}){R}",  # "14d", "3 weeks", "a 3-day job"
            lambda m: deadline(_num(m[2]), m[3], m[0], bool(m[1])),
        )
        # "a day", "two weeks", "half a day": a word, not a letter ("a d" is no deadline)
        words = spelled([w for u in units for w in u.en if len(w) > 2])
        self.scan.take(rf"{L}({EN_NUM})[\s\-]+({words}){R}", lambda m: deadline(EN_NUMBERS[m[1]], m[2], m[0], False))
        self.scan.take(
            rf"{L}(?:half\s+(?:a\s+)?|(?:a\s+)?half[\s\-]+)({words}){R}", lambda m: deadline(0.5, m[1], m[0], False)
        )
        self.scan.take(rf"{L}(?:a|an)\s+({words}){R}", lambda m: deadline(1, m[1], m[0], False))
        # "半天", "半个月", "一个半月", "两天半": half a unit, or a unit and a half
        zh = _all(units, "zh")
        n = rf"\d+|{CN_NUM[1:-1]}"
        self.scan.take(
            rf"(?:(?P<n>{n})\s*(?:个)?)?半\s*(?:个)?(?P<u>{zh})|(?P<n2>{n})\s*(?P<u2>{zh})半",
            lambda m: deadline(self._and_a_half(_Merged(m)["n"]), _Merged(m)["u"], m[0], False),
        )
        self.scan.take(
            rf"(?:(-)?{NUM}|{CN_NUM})\s*({_all(units, 'zh')})",
            lambda m: deadline(_num(m[2]) if m[2] else _cn_num(m[3]), m[4], m[0], bool(m[1])),
        )

    @staticmethod
    def _and_a_half(number: str | None) -> float:
        if number is None:
            return 0.5
        return (_num(number) if number[0].isdigit() else _cn_num(number)) + 0.5

    # -- model size -----------------------------------------------------------------
    def _sizes(self) -> None:
        sc = self.scan

        def moe(m: re.Match) -> None:
            self.set("params_b", _amount(m[1], m[2]) / 1e9, m[0])
            self.set("active_params_b", _amount(m[3], m[4]) / 1e9, m[0])

        # "foo-30b-a3b": an uncatalogued mixture of experts named with its sizes (noted as such)
        def named_moe(m: re.Match) -> None:
            self.set("params_b", _amount(m[2], m[3]) / 1e9, m[0])
            self.set("active_params_b", _amount(m[4], m[5]) / 1e9, m[0])
            self.set("unknown_model", m["name"], m[0])

        # (a checkpoint's kind after it: "qwen3-next-80b-a3b-instruct", "ernie-4.5-21b-a3b-base-pt"; a
        # Hugging Face organisation before it, "Qwen/Qwen3-VL-235B-A22B-Instruct", had refused it)
        sc.take(
            rf"{L}(?:{HUB_ORG}/)?(?P<name>[a-z][a-z0-9.\-]*?)[_\-]{NUM}\s*(b|t)\s*-\s*a\s*{NUM}\s*(b|m)(?:{VARIANT})*{R}",
            named_moe,
        )
        sc.take(
            rf"{L}(?P<name>(?:{_families()})[a-z0-9.\-]*{FAMILY_VERSION})\s+{NUM}\s*(b|t)\s*-\s*a\s*{NUM}\s*(b|m){R}",
            named_moe,
        )
        # "mixtral-8x99b": experts x size names no active count: asked for, not guessed as dense
        sc.take(
            rf"{L}(?:[a-z][a-z0-9.]*[_\-])*\d+x\d+(?:\.\d+)?b(?:[_\-][a-z0-9.]+)*{R}",
            lambda m: self.fail("unknown_model_name", word=m[0].strip()),
        )
        sc.take(rf"{L}{NUM}\s*(b|t)\s*-\s*a\s*{NUM}\s*(b|m){R}", moe)
        # "hunyuan-a13b": a name that gives only the active parameters: the total is asked for, never
        # read as a dense model of the active size
        sc.take(
            rf"{L}(?:[a-z][a-z0-9.]*[_\-])+a\d+(?:\.\d+)?b(?:[_\-][a-z0-9.]+)*{R}",
            lambda m: self.fail("unknown_model_name", word=m[0].strip()),
        )
        active = fields.field("active_params_b").keys
        sc.take(
            rf"(?:{L}(?:{_en(active)})|(?:{_zh(active)}))\s*{NUM}\s*(b|m|亿){R}",
            lambda m: self.set("active_params_b", _amount(m[1], m[2]) / 1e9, m[0]),
        )
        # the count before its key, as model cards write it: "14B MoE (2B active)", "14B total 2B
        # active", "2B activated" (had been read as a second, contradicting model size)
        sc.take(
            rf"{L}{NUM}\s*(b|m)\s+(?:{_en(active)}|activated)(?:\s+param(?:eter)?s?)?{R}",
            lambda m: self.set("active_params_b", _amount(m[1], m[2]) / 1e9, m[0]),
        )
        # "acme-moe-100b": a mixture named by its total alone: its active size is asked for (the
        # "moe" had been read apart, and "-100b" refused as a negative size)
        sc.take(
            rf"{L}(?:{HUB_ORG}/)?[a-z][a-z0-9.]*(?:[_\-][a-z0-9.]+)*[_\-]moe[_\-]{NUM}\s*b(?:[_\-][a-z0-9.]+)*{R}",
            lambda m: self.fail("unknown_model_name", word=m[0].strip()),
        )

        def experts(m: re.Match) -> None:
            count = int(m["e"] or m["e2"] or m["e3"])
            routed = next((int(m[g]) for g in ("k", "k2", "k3", "k4") if m[g]), None)
            if count < 2 or (routed is not None and not 1 <= routed < count):
                self.fail("bad_value", word=m[0].strip(), what="active")
            self.experts, self.experts_word = (count, routed), m[0].strip(" ,(")

        # a mixture's experts and routing ("8 experts, 2 active", "64 experts top 6", "top-2 of 8 experts",
        # "64个专家，激活6个"): its active size worked out from them where none is given (it had been
        # refused over the count, "I did not understand 8")
        sc.take(
            rf"{L}(?P<e>\d+)\s*(?:routed\s+)?experts?(?![a-z])(?:\s*(?:,|\(|;|with|and)?\s*"
            rf"(?:top[\s-]?(?P<k>\d+)|(?P<k2>\d+)\s+(?:active|activated|routed|selected|per\s+token)"
            rf"(?:\s+(?:per\s+token|each))?))?"
            rf"|{L}top[\s-]?(?P<k3>\d+)\s+(?:of|out\s+of)\s+(?P<e2>\d+)\s+(?:routed\s+)?experts?(?![a-z])"
            rf"|(?P<e3>\d+)\s*个?(?:路由)?专家(?:\s*[，,、]?\s*(?:每个?\s*token\s*)?(?:激活|选|路由到?|用)\s*(?P<k4>\d+)\s*个?)?",
            experts,
        )
        self._choose("moe")

        def size(m: re.Match) -> None:
            if m["neg"]:
                self.fail("bad_value", word=m[0].strip(), what="size")
            value = _amount(m["n"], m["u"]) / 1e9
            if (m["u"] or "").lower() == "t" and "params_b" in self.fields and self.fields["params_b"] != value:
                # "70B sft 1.2T": a second size in trillions after the model's is the data, unsaid
                # in what: ask rather than guess between tokens and terabytes
                self.fail("data_unit", word=m[0].strip(), n=m["n"])
            self.set("params_b", value, m[0])

        def named_size(m: re.Match) -> None:
            size(m)
            release = _release(m["name"], self.fields["params_b"])
            if release is not None:
                self.set("model", release.name, m[0])
            elif _moe_only(m["name"], self.fields["params_b"]):
                self.fail("unknown_model_name", word=m[0].strip())  # its active size is asked for
            else:
                self.set("unknown_model", m["name"], m[0])

        # "qwen2-72b", "internlm2_5-20b", "THUDM/chatglm3-6b": a model the catalogue lacks, planned by its size (noted);
        # the empty `neg` group is for size(), as no minus sign can follow a name
        variant = rf"(?:{VARIANT})*"  # "7b-chat", "qwen1.5-14b-base"
        sc.take(
            rf"{L}(?:{HUB_ORG}/)?(?P<name>[a-z][a-z0-9._\-]*?)[_\-]?(?P<neg>)(?P<n>{NUM})\s*(?P<u>b|m|t){variant}{R}",
            named_size,
        )
        # "qwen 72b", "baichuan2 13b": a family's name apart from the size (not any word: "a 7b")
        sc.take(
            rf"{L}(?P<name>(?:{_families()})[a-z0-9.\-]*{FAMILY_VERSION})\s+(?P<neg>)(?P<n>{NUM})\s*(?P<u>b|m|t){variant}{R}",
            named_size,
        )
        # "13 billion parameters", "a 13-billion-parameter model": the size in words, before its key (a
        # scale word alone is data or money; "13 billion params" had asked for the model's size)
        sc.take(
            rf"{L}(?P<neg>)(?P<n>{NUM})\s*-?\s*(?P<u>billion|million|trillion|bn|mn)\s*-?\s*(?:params?|parameters?){R}",
            size,
        )
        total = fields.field("params_b").keys
        sc.take(
            rf"(?:(?:{_zh(total)})\s*|{L}(?:{_en(total)})\s*)?{L}(?P<neg>-)?(?P<n>{NUM})\s*"
            # 万 and 千 are a size only before 参数 or 模型 (`10万` alone is money or samples)
            rf"(?P<u>b|m|t|万亿|千亿|百亿|十亿|亿|(?:千万|百万|十万|万|千)(?=\s*(?:参数|模型)))"
            # "a 7B parameter model", "1B-parameter" (the singular had been refused: "did you mean full-parameter?")
            rf"(?:\s*-?\s*(?:params?|parameters?)(?!\s*-?\s*efficient){R}|参数|模型|{variant})?(?![a-z0-9])",
            size,
        )
        # "千亿参数", "万亿级模型": a scale alone before 参数 is the size (100B, 1T)
        sc.take(
            rf"(?<![\d{CN_DIGITS}])(万亿|千亿|百亿)(?:级别?|规模)?(?:的)?(?:参数|模型)",
            lambda m: self.set("params_b", SCALE[m[1]] / 1e9, m[0]),
        )

    def _preferences(self) -> None:
        sc, s = self.scan, self.set
        # "buy or rent?", "租还是买划算": a question the answer's rent-or-buy decision answers, no
        # preference (rent and buy together would contradict each other)
        own = fields.field("rent_or_buy").choices
        en, zh = _all(own, "en"), _all(own, "zh")
        sc.take(
            rf"{L}(?:should\s+we\s+)?(?:{en})\s*(?:or|vs\.?|versus|/)\s*(?:{en}){R}"
            rf"|(?:是)?(?:{zh})\s*(?:还是|或者|或|vs|和)\s*(?:{zh})(?:更|比较)?(?:划算|便宜|合适|好)?",
            lambda m: None,
        )
        # the payback asked ("回本要多久", "how long to pay back?", "break-even?"): the answer's
        # break-even says it; no preference (it had been "a word I do not know" beside that figure)
        sc.take(
            rf"(?:多久|几年|几个月|多长时间|什么时候)?能?回本(?:要|需要)?(?:多久|几年|几个月|多长时间)?"
            rf"|{L}(?:how\s+long\s+to\s+)?(?:pay\s*back|payback|break[\s\-]?even)(?:\s+(?:time|period|point))?{R}",
            lambda m: None,
        )
        # the same question with words between ("buy 8 more or rent?", "should we buy more A800s
        # or just rent"): its verbs, "or" and "8 more" are taken (the answer weighs renting the job
        # against buying the servers it needs), the other words were read by their rules
        sc.take(
            rf"{L}(?P<first>{en})\s+(?P<more>(?:(?:\d+|a\s+few|some)\s+)?more{R})?"
            rf"(?:\s*(?!(?:or|vs|versus){R})[a-z0-9.\-]+){{0,4}}\s*,?\s*"
            rf"(?P<second>(?:or|vs\.?|versus)\s+(?:to\s+|just\s+)?(?:{en})){R}",
            lambda m: None,
            only=("first", "more", "second"),
        )
        # "买一台8卡H20还是租": the same in Chinese, what is bought between the two verbs
        sc.take(
            rf"(?P<first>{zh})(?=[^，,。？?；;]{{1,20}}?还是\s*(?:{zh}))"
            rf"|(?<=[^，,。？?；;])(?P<second>还是\s*(?:{zh})(?:更|比较)?(?:划算|便宜|合适|好)?)",
            lambda m: None,
            only=("first", "second"),
        )
        # "we'd rather buy": the preference itself, not a negation ("rather than" stays one)
        sc.take(rf"{L}(?:would\s+)?rather(?=\s+(?:{_all(own, 'en')}){R}(?!.*\bthan\b))", lambda m: None)
        self._choose("rent_or_buy")
        # the fabric: Chinese spellings first (`ib网络` holds the English `ib`)
        row = fields.field("fabric")
        sc.take(
            rf"(?:{_all(row.choices, 'zh')})|{L}(?:{_all(row.choices, 'en')}){R}",
            lambda m: s("fabric", value_of(row.choices, m[0]), m[0]),
        )
        self._choose("currency")
        row = fields.field("city")

        def city(name: str, word: str) -> None:
            value = value_of(row.choices, name)
            if value is None:
                self.fail("unknown_city", name=name, known=[c.value for c in row.choices])
            s("city", value, word)

        sc.take(rf"{L}(?:{_en(row.keys)})\s*[:=]?\s*([a-z]+){R}", lambda m: city(m[1], m[0]))
        self._choose("city")
        self._choose("speed_first")
        self._choose("cost_first")
        # A place outside mainland China ("singapore", "SG region", "in the US", "新加坡"): the prices
        # on record are of two markets, mainland China and the global clouds, so it is the global
        # market where dollars are said, and otherwise asked for ("SG" had been skipped as a word
        # the plan does not depend on, and planned in mainland China)
        said_usd = re.search(r"(?<![a-z])usd(?![a-z])|\$|美元|美金", self.norm)

        def abroad(m: re.Match) -> None:
            word = m[0].strip()
            if not said_usd:
                # the global clouds' prices are mostly US listings: "in the US" is that market, said;
                # another place is asked for, its prices not being on record
                if not _IN_THE_US.search(word):
                    self.fail("place_abroad", word=word)
                self.set("currency", "USD", word)
            self.place_abroad = word

        sc.take(
            rf"{L}(?:in\s+(?:the\s+)?)?(?:{PLACES_ABROAD_EN})(?:\s+region)?{R}|{L}in\s+(?:the\s+)?(?:us|u\.s\.?){R}"
            rf"|(?:在)?(?:{PLACES_ABROAD_ZH})(?:地区|区域|机房)?",
            abroad,
        )

    # -- the request: what was typed checked, what was not assumed, what follows derived --
    def _finish(self) -> TrainingRequest:
        f = self.fields
        shape = catalog.find_model(f["model"]) if "model" in f else None
        gpu = catalog.find_gpu(f["gpu"]) if "gpu" in f else None
        self._validate(shape, gpu)
        notes: list[Note] = []
        v = self._defaults(shape, gpu, notes)
        v |= self._derived(shape, gpu, v, notes)
        # cp and tp degrees the sequence and the GPUs must split into (engine/layout.py)
        cp, tp, pp = f.get("cp", 1), f.get("tp") or 1, f.get("pp") or 1
        if cp > 1 and v["seq"] % (k := sequence_multiple(cp, tp)):
            self.fail("layout", reason="seq_split", cp=cp, tp=tp, seq=v["seq"], multiple=k, fit=v["seq"] // k * k or k)
        if cp > 1 and v["count"] and v["count"] % (cp * tp * pp):
            self.fail("layout", reason="cp_count", cp=cp, tp=tp, pp=pp, count=v["count"], ranks=cp * tp * pp)
        if self.long_context and "seq_len" not in f and not f.get("tokens_per_sample"):
            self.fail("context_length", word=self.long_context)
        if self.multimodal:
            unit = f.get("data", (0, ""))[1]
            if unit != "tokens" and not (unit == "samples" and f.get("tokens_per_sample")):
                self.fail("modality", word=self.multimodal)
            notes.append(Note(kind="assumption", code="multimodal_tokens", params={"word": self.multimodal}))
        if f.get("owned"):
            # "we only have 4 GPUs": owned, of a type not said, which the plan then chooses
            notes.append(Note(kind="assumption", code="owned", params={"type_unsaid": not f.get("gpu")}))
        for typed, read in self.typos:
            notes.append(Note(kind="assumption", code="typo_read", params={"typed": typed, "word": read}))
        for said in self.instances_read:
            notes.append(Note(kind="assumption", code="instance_read", params=said))
        if self.read_past:
            notes.append(Note(kind="assumption", code="read_past", params={"words": self.read_past[:READ_PAST_SHOWN]}))
        if self.hyperparameters:
            notes.append(Note(kind="assumption", code="hyperparameters", params={"words": self.hyperparameters}))
        if self.offpeak:
            notes.append(Note(kind="assumption", code="offpeak", params={"words": self.offpeak}))
        if self.payment_terms:
            notes.append(Note(kind="assumption", code="payment_terms", params={"words": self.payment_terms}))
        if self.on_premises:
            notes.append(Note(kind="assumption", code="on_premises", params={"words": self.on_premises}))
        if self.spend_by:
            notes.append(Note(kind="assumption", code="spend_by", params={"words": self.spend_by}))
        if "cloud" in f:
            # another cloud of the same market, for the example of how to compare
            row, china = fields.field("cloud"), f["cloud"] in fields.CHINA_CLOUDS
            other = next(
                c.written(self.lang)
                for c in row.choices
                if c.value != f["cloud"] and (c.value in fields.CHINA_CLOUDS) == china
            )
            word = row.choice(f["cloud"]).written(self.lang)  # as written back, so it reads back the same
            notes.append(Note(kind="assumption", code="cloud_named", params={"word": word, "other": other}))
        if self.network_speed:
            gbps, per_server = self.network_speed
            notes.append(Note(kind="assumption", code="team_network", params={"gbps": gbps, "per_server": per_server}))
        elif self.network_said:
            notes.append(Note(kind="assumption", code="network_said", params={"words": self.network_said}))
        if "unsloth" in (self.words.get("stack") or "").lower():
            notes.append(Note(kind="assumption", code="stack_unsloth"))
        if f.get("recurring"):
            notes.append(Note(kind="assumption", code="recurring", params={"weekly": bool(self.weekly)}))
        if f.get("own_room"):
            notes.append(Note(kind="assumption", code="own_room"))
        if f.get("power_paid"):
            notes.append(Note(kind="assumption", code="power_paid"))
        if "power_price" in f:
            notes.append(Note(kind="assumption", code="power_price"))
        if f.get("used_gpus"):
            notes.append(Note(kind="assumption", code="used_gpus"))
        if self.server_shape:
            # without a GPU named, every type is weighed on servers of this shape
            shape = self.server_shape | ({"gpu": gpu.name, "full": gpu.gpus_per_server} if gpu else {})
            notes.append(Note(kind="assumption", code="server_shape", params=shape))
        if self.place_abroad:
            notes.append(Note(kind="assumption", code="place_global", params={"words": self.place_abroad}))
        if self.deadline_range and "deadline_days" in f:
            notes.append(
                Note(
                    kind="assumption",
                    code="deadline_range",
                    params={**self.deadline_range, "days": f["deadline_days"]},
                )
            )
        for said in self.ranges:
            # the field whose words hold the upper end; none when a what-if changed it since
            word = next(
                (self.words[k] for k in ("data", "budget", "params_b") if said["high"] in self.words.get(k, "")), None
            )
            if word is not None:
                # as typed: no space after a sign or between a Chinese key and its number ("预算5万")
                joined = re.compile(r"(?<=[$¥\u4e00-\u9fff])\s+(?=\d)")
                low = joined.sub("", word.replace(said["high"], said["low"], 1))
                notes.append(
                    Note(
                        kind="assumption",
                        code="range_upper",
                        params={"words": said["words"], "high": joined.sub("", word), "low": low},
                    )
                )
        # Notes in the table's order of fields (advisor/request/fields.py), whichever step left them.
        notes.sort(key=lambda n: fields.NOTE_ORDER.index(n.code))
        return self._request(v, gpu, notes)

    def _validate(self, shape, gpu) -> None:
        """Refuse what was typed that cannot be: contradictions, what is missing, values outside
        the field table's limits."""
        f, words = self.fields, self.words

        def check(name: str, value, ok: bool = True) -> None:
            if value is not None and not (ok and fields.field(name).ok(value)):
                self.fail("bad_value", word=words.get(name, ""), what=fields.field(name).limit)

        if shape is not None and "params_b" in f and abs(f["params_b"] - shape.params_b) / shape.params_b > 0.15:
            self.fail("conflict", first=words["model"], second=words["params_b"], field="params_b")
        # a count no plan can have is said before a size that is missing ("what can we train on 1000000
        # H100" had been asked the model's size)
        check("gpu_count", f.get("gpu_count"))
        if shape is None and "params_b" not in f:
            # a name the catalogue lacks, with no size: that name is what has no shape
            if "unknown_model" in f:
                self.fail("unknown_model_name", word=f["unknown_model"])
            if "gpu" in f and set(f) <= {"gpu", "gpu_count", "nodes", "owned"}:
                # a GPU named alone ("/gpu H100"): its prices are a command away, said beside the ask
                self.fail("missing_size", gpu=f["gpu"])
            self.fail("missing_size")
        if shape is None and "params_b" in f and "active_params_b" not in f and self.experts and self.experts[1]:
            # the experts and the tokens' routing said, no active size: the parameters outside the experts
            # are Mixtral 8x7B's share (MOE_OUTSIDE_EXPERTS), the rest routed K of E
            count, routed = self.experts
            outside = MOE_OUTSIDE_EXPERTS
            f["active_params_b"] = float(f"{f['params_b'] * (outside + (1 - outside) * routed / count):.3g}")
            words["active_params_b"] = self.experts_word
        if shape is None and (f.get("moe") or self.experts) and "active_params_b" not in f:
            self.fail("missing_active")
        params = shape.params_b if shape else f["params_b"]
        active = shape.active_params_b if shape else f.get("active_params_b", params)
        check("params_b", params)
        check("active_params_b", active, active <= params)
        if "nodes" in f and gpu is None and f["nodes"] == 1 and not f.get("owned") and "gpu_count" not in f:
            # "一台服务器能跑吗", "on one node": one server of whichever GPU type (`one server only`)
            del f["nodes"]
            f["one_server"], words["one_server"] = True, words.pop("nodes")
        if "nodes" in f:
            check("nodes", f["nodes"])
            if gpu is None:
                self.fail("nodes_need_gpu", word=words["nodes"])
            if "gpu_count" in f and f["gpu_count"] == gpu.gpus_per_server and f["nodes"] > 1:
                f["gpu_count"] = f["nodes"] * gpu.gpus_per_server  # "8xH800 on 4 nodes": the server, four times
            if "gpu_count" in f and f["gpu_count"] != f["nodes"] * gpu.gpus_per_server:
                self.fail("conflict", first=words["gpu_count"], second=words["nodes"], field="gpu_count")
        check("gpu_count", f.get("gpu_count"))
        if f.get("hourly_only") and "lease_term_months" in f:
            self.fail(
                "conflict", first=words["lease_term_months"], second=words["hourly_only"], field="lease_term_months"
            )
        check("max_gpus", f.get("max_gpus"))
        check("min_gpus", f.get("min_gpus"))
        low, high, given = f.get("min_gpus", 1), f.get("max_gpus", float("inf")), f.get("gpu_count")
        if low > high or (given is not None and not low <= given <= high):
            if low > high:
                first, second = words["min_gpus"], words["max_gpus"]
            else:
                first, second = words["gpu_count"], words["min_gpus" if given < low else "max_gpus"]
            self.fail("conflict", first=first, second=second, field="gpu_count")
        per_server = gpu.gpus_per_server if gpu is not None else 8
        if f.get("one_server") and (
            f.get("nodes", 1) > 1 or f.get("gpu_count", 0) > per_server or f.get("min_gpus", 0) > per_server
        ):
            self.fail(
                "conflict",
                first=words.get("nodes") or words.get("gpu_count") or words["min_gpus"],
                second=words["one_server"],
                field="gpu_count",
            )
        if f.get("nvlink") and gpu is not None and gpu.nvlink_domain <= 1:
            # `on 4090 nvlink`: the GPU named has none between its cards
            self.fail("conflict", first=words["gpu"], second=words["nvlink"], field="gpu")
        check("seq_len", f.get("seq_len"))
        check("epochs", f.get("epochs"))
        if "data" in f:
            check("data", f["data"][0])
        # a mean length goes with a count of samples ("50k samples avg 2k tokens")
        check("tokens_per_sample", f.get("tokens_per_sample"), f.get("data", (0, ""))[1] == "samples")
        if f.get("finetune") and f.get("method") in ("pretrain", "continued-pretrain"):
            # "continued pretraining ... then SFT on 100k samples": two jobs, planned one at a time
            first, second = words["method"].strip(), words["finetune"].strip()
            between = self.norm[self.norm.find(first.lower()) + len(first) : self.norm.rfind(second.lower())]
            if re.search(
                r"\bthen\b|\bfollowed\s+by\b|\bafter\s+that\b|\bafterwards\b|然后|之后|接着|再(?:做|跑|来)?", between
            ):
                self.fail("two_stages", first=first, second=second, **_stages(self.text, self.lang))
            self.fail("conflict", first=words["method"], second=words["finetune"], field="method")
        if "method" not in f and self.rank_names:
            f["method"], words["method"] = self.rank_names
        peft = f.get("method") in ("lora", "qlora") or ("method" not in f and not f.get("finetune"))
        if not peft and ("lora_rank" in f or "lora_dropout" in f):  # an adapter's knobs need one
            method_word = words["method"] if "method" in f else words["finetune"]
            if "lora_rank" in f:
                self.fail("conflict", first=method_word, second=words["lora_rank"], field="lora_rank")
            self.fail("conflict", first=method_word, second=words["lora_dropout"], field="lora_dropout")
        check("lora_rank", f.get("lora_rank"))
        check("lora_dropout", f.get("lora_dropout"))
        check("deadline_days", f.get("deadline_days"))
        if "budget" in f:
            value, budget_currency = f["budget"]
            check("budget", value)
            if f.get("currency") and budget_currency and budget_currency != f["currency"]:
                self.fail("conflict", first=words["currency"], second=words["budget"], field="currency")
        check("micro_batch", f.get("micro_batch"))
        check("global_batch", f.get("global_batch"))
        check("grad_accum", f.get("grad_accum"))
        check("recompute_layers", f.get("recompute_layers"))
        if "recompute_layers" in f and f.get("recompute") not in (None, "full"):
            # layers recomputed whole are full recompute: `recompute selective` says otherwise
            self.fail("conflict", first=words["recompute"], second=words["recompute_layers"], field="recompute")

    def _defaults(self, shape, gpu, notes: list[Note]) -> dict:
        """What was not typed, each assumed value leaving its note (fields.py `assumed`)."""
        f = self.fields

        def note(name: str, **kw) -> None:
            notes.append(Note(kind="assumption", code=name, params=kw))

        if shape and "model" in self.words and _release_key(self.words["model"]) != _release_key(shape.name):
            # another release planned on a catalogued shape (`llama3-8b` on Llama 3.1 8B's,
            # `deepseek-r1` on DeepSeek-V3's): said, not silent
            note("model_as", typed=self.words["model"], model=shape.name)
        if (
            shape
            and "model" in self.words
            and (_VISION.search(typed := self.words["model"].lower()) or _VISION_RELEASE.search(typed))
        ):
            note("vision_language", model=self.words["model"])
        if "unknown_model" in f:
            moe_sized = "active_params_b" in f and f["active_params_b"] < f["params_b"]
            note("unknown_moe_model" if moe_sized else "unknown_model", model=f["unknown_model"])
            if _VISION.search(f["unknown_model"]):
                note("vision_language", model=f["unknown_model"])
        seq = f.get("seq_len")
        tps = f.get("tokens_per_sample")
        whole = 2 ** math.ceil(math.log2(tps)) if tps else 0
        if seq is None and DEFAULT_SEQ < whole <= (shape.max_seq if shape else MAX_SEQ_FROM_SAMPLES):
            # samples longer than the default sequence ("每条3万token") are trained whole: the
            # sequence is the power of two that holds one, within what the model was trained on
            seq = whole
            note("seq_from_samples", seq=seq, tps=tps)
        if seq is None:
            seq = min(DEFAULT_SEQ, shape.max_seq) if shape else DEFAULT_SEQ
            note("seq_len", seq=seq)
        if "data" in f and "epochs" not in f:
            note("epochs")
        if "data" not in f:
            note("no_data")
        precision = f.get("precision")
        if precision is None and f.get("tf32"):
            precision = "fp32"  # `tf32` alone: fp32 training with TF32 matmuls
        if precision == "fp32" and not f.get("tf32") and (gpu is None or gpu.tf32_dense_tflops > gpu.fp32_tflops):
            note("fp32_matmuls", gpu=gpu.name if gpu else None)
        if precision is None:
            precision = "fp16" if gpu is not None and not gpu.supports_bf16 else "bf16"
            note("precision_fp16" if precision == "fp16" else "precision_bf16", gpu=gpu.name if gpu else None)
        if "optimizer" not in f:
            note("optimizer")
        currency = f.get("currency")
        if "budget" in f:
            currency = currency or f["budget"][1] or "CNY"
        if currency is None and "cloud" in f:
            # the cloud named says the market: mainland China's in yuan, the others in dollars
            currency = "CNY" if f["cloud"] in fields.CHINA_CLOUDS else "USD"
        if currency is None:
            currency = "CNY"
            note("currency")
        return {"seq": int(seq), "epochs": f.get("epochs", 1.0), "precision": precision, "currency": currency}

    def _derived(self, shape, gpu, v: dict, notes: list[Note]) -> dict:
        """What follows from the rest: the model's sizes, the GPU count of whole servers, the
        tokens of the data, the method a data size implies, the market of a currency."""
        f, words = self.fields, self.words

        def note(name: str, **kw) -> None:
            notes.append(Note(kind="assumption", code=name, params=kw))

        if self.deadline_date is not None:
            note(
                "deadline_date",
                date=self.deadline_date.isoformat(),
                today=(self.start_date or self.today).isoformat(),
                days=f["deadline_days"],
                start=self.start_date is not None,
            )
        elif self.start_date is not None:
            note("start_date", date=self.start_date.isoformat(), today=self.today.isoformat())
        if self.today_word is not None:
            note("deadline_today", word=self.today_word, hours=TODAY_HOURS)
        if self.overnight_word is not None:
            note("deadline_overnight", word=self.overnight_word, hours=OVERNIGHT_HOURS)
        if self.weekend_word is not None:
            note("deadline_weekend", word=self.weekend_word, hours=WEEKEND_HOURS)
        if self.teacher is not None:
            note("teacher_data", teacher=self.teacher)
        if self.bare_samples is not None:
            note("bare_k_samples", word=self.bare_samples, samples=f["data"][0])
        if self.experts and words.get("active_params_b") == self.experts_word:
            note(
                "active_from_experts",
                word=self.experts_word,
                experts=self.experts[0],
                routed=self.experts[1],
                total=f["params_b"],
                active=f["active_params_b"],
                outside=MOE_OUTSIDE_EXPERTS,
            )
        if self.domestic_word is not None:
            note("domestic_gpu", word=self.domestic_word, gpu=DOMESTIC_GPU)
        if self.gpu_proxy is not None and gpu is not None:
            note("gpu_proxy", typed=self.gpu_proxy, gpu=gpu.name)
        if gpu is not None and "gpu" in words and not self.instances_read:  # (an instance holds one part)
            others = other_variants(self.text, gpu)
            if others:
                note("gpu_variant", typed=gpu_family(gpu.name), gpu=gpu.name, others=others)
        if self.quantized:
            note("quantized_checkpoint", checkpoint=self.quantized, model=f["model"])
        if shape is not None:  # a named model gives its sizes, as if typed
            f["params_b"], f["active_params_b"] = shape.params_b, shape.active_params_b
        params = f["params_b"]
        active = f.get("active_params_b", params)
        count = f["nodes"] * gpu.gpus_per_server if "nodes" in f else f.get("gpu_count")
        data = unique = tokens = bytes_per_token = tokens_per_sample = None
        if "data" in f:
            amount, unit = f["data"]
            language = f.get("data_language")
            if unit == "bytes":
                # From words about the data, else from the request's own prose, never from the
                # reply language (a Chinese locale or `lang zh`) nor a city name, so the same
                # text plans the same everywhere.
                basis = "words" if language else ("prose" if chinese_prose(self.text) else "default")
                language = language or ("zh" if basis == "prose" else "en")
                bytes_per_token = BYTES_PER_TOKEN[language]
                unique = amount / bytes_per_token
                note("bytes_per_token", bpt=bytes_per_token, language=language, basis=basis)
            elif unit == "samples":
                tokens_per_sample = f.get("tokens_per_sample")
                if tokens_per_sample is None and self._reasoning_traces():
                    tokens_per_sample = min(REASONING_TOKENS_PER_SAMPLE, v["seq"])
                    note("reasoning_tokens_per_sample", tps=tokens_per_sample)
                elif tokens_per_sample is None:
                    tokens_per_sample = min(TOKENS_PER_SAMPLE, v["seq"])
                    note("tokens_per_sample", tps=tokens_per_sample)
                elif self.sample_chars:
                    note("chars_per_sample", chars=self.sample_chars, tps=tokens_per_sample, bpt=BYTES_PER_TOKEN["zh"])
                if tokens_per_sample < v["seq"]:
                    # samples shorter than a sequence: each attends within itself
                    note("attention_per_sample", tps=tokens_per_sample, seq=v["seq"])
                unique = amount * tokens_per_sample
                if f.get("preference_tuning") in PAIRED:
                    # each pair trains two sequences, the prompt with the chosen and with the
                    # rejected response (TRL's concatenated_forward)
                    unique *= 2
                    note("preference_pairs", pairs=amount, tps=tokens_per_sample, tokens=unique)
            else:
                unique = amount
            if f.get("preference_tuning") in PAIRED and unit != "samples":
                # preference sets store each pair's two conversations whole, prompt in each
                # (Anthropic's HH-RLHF, trl-lib/ultrafeedback_binarized): their tokens are those trained
                note("preference_data")
            data = DataSize(amount=amount, unit=unit, language=language)
            tokens = unique * v["epochs"]
            if tokens > fields.MAX_TOKENS:
                self.fail("bad_value", word=words.get("data", ""), what=fields.field("data").limit)

        # the method: a data size of pre-training size implies it (a default that reads the tokens)
        # Hugging Face's PEFT library named, the method not ("peft", "用peft微调"): LoRA, its usual one
        from_peft = "method" not in f and words.get("stack", "").lower().endswith("peft")
        # Unsloth named, the method not: QLoRA, what its loader does unless told otherwise
        # (FastLanguageModel.from_pretrained: load_in_4bit=True, full_finetuning=False; unslothai/unsloth
        # unsloth/models/loader.py)
        from_unsloth = "method" not in f and "unsloth" in words.get("stack", "").lower()
        method = f.get("method") or ("full-finetune" if f.get("finetune") and not (from_peft or from_unsloth) else None)
        if "method" not in f and f.get("finetune"):
            words["method"] = words["finetune"]
        if method is None:
            if "lora_rank" in f or "lora_dropout" in f:
                method = "lora"
                note("method_from_rank")
            elif from_peft:
                method = "lora"
                note("method_from_peft")
            elif from_unsloth:
                method = "qlora"
                note("method_from_unsloth")
            elif tokens is not None and tokens >= 50e9 and "preference_tuning" not in f and "model" in f:
                # a released model trained on that much more ("train llama3-70b on our 300GB"):
                # its pre-training continued (the same arithmetic; it had been said "from scratch")
                method = "continued-pretrain"
                note("method_continued")
            elif tokens is not None and tokens >= 50e9 and "preference_tuning" not in f:
                method = "pretrain"
                note("method_pretrain")
            else:
                method = "full-finetune"
                note("method_default")
        if "preference_tuning" in f and method in ("pretrain", "continued-pretrain"):
            # preference tuning fine-tunes a trained model: with pre-training it contradicts
            self.fail("conflict", first=words["preference_tuning"], second=words["method"], field="method")
        if "preference_tuning" in f:
            # worded with phrases.j2 `choice`
            if f["preference_tuning"] in REFERENCED:
                note("preference_reference", method=f["preference_tuning"])
            else:
                note("preference_no_reference", method=f["preference_tuning"])
            if f["preference_tuning"] == "reward":
                note("reward_head")
        rank, targets = f.get("lora_rank"), f.get("lora_targets")
        if method in ("lora", "qlora"):
            if rank is None:
                rank = 16
                note("lora_rank")
            if targets is None:
                targets = "all"
                note("lora_targets")
        # dollars said only in a budget of a request written in Chinese (`预算15万美元`): a mainland
        # team's cap, so mainland GPUs and prices, converted (a buyer probe read the move abroad as wrong)
        # (written as Chinese prose, as the request is written back: canonical.language)
        # (not where a place abroad is said: `预算5万美元 美国` is the global market, as "in the US" is)
        kept = (
            v["currency"] == "USD"
            and "currency" not in f
            and "city" not in f
            and not self.place_abroad
            and chinese_prose(self.text)
        )
        market = "global" if v["currency"] == "USD" and "city" not in f and not kept else "china"
        if kept:
            note("market_kept_chinese")
        elif market == "china" and "city" not in f:
            note("market_china")
        elif market == "global" and "currency" not in f and "cloud" not in f:
            # dollars said only in the budget (`预算20万美元`): the market follows them, said
            note("market_from_budget")
        budget = None
        if "budget" in f:
            value, budget_currency = f["budget"]
            if self.budget_monthly:
                # each month the deadline starts; without one, the lease term asked for (the months
                # the plan is sought within: planner.horizon_days), else the 30 days planned
                days = f.get("deadline_days") or 30 * (f.get("lease_term_months") or 1)
                months = max(1, math.ceil(days / 30 - 1e-9))
                note("budget_monthly", monthly=value, months=months, currency=budget_currency or v["currency"])
                value *= months
            budget = Budget(amount=value, currency=budget_currency or v["currency"])
        return {
            "params": params,
            "active": active,
            "count": count,
            "data": data,
            "unique": unique,
            "tokens": tokens,
            "bytes_per_token": bytes_per_token,
            "tokens_per_sample": tokens_per_sample,
            "method": method,
            "rank": rank,
            "targets": targets,
            "market": market,
            "budget": budget,
        }

    def _liger_loss(self) -> bool:
        """Liger's kernels said (`liger`, `enable_liger_kernel`): its fused linear cross entropy
        never holds the logits whole. It is on by default (apply_liger_kernel_to_llama's
        fused_linear_cross_entropy=True), and LLaMA-Factory keeps it for pre-training and SFT
        only (require_logits = stage not in ("pt", "sft"), model/loader.py): preference tuning
        needs the logits."""
        return "liger" in self.words.get("compile", "").lower() and not self.fields.get("preference_tuning")

    def _request(self, v: dict, gpu, notes: list[Note]) -> TrainingRequest:
        f = self.fields
        if self._liger_loss():
            f.setdefault("chunked_loss", True)  # said with Liger: written back as `chunked-loss`
        return TrainingRequest(
            text=self.text,
            params_b=v["params"],
            active_params_b=v["active"],
            model=f.get("model"),
            method=v["method"],
            preference_tuning=f.get("preference_tuning"),
            lora_rank=v["rank"],
            lora_targets=v["targets"],
            data=v["data"],
            bytes_per_token=v["bytes_per_token"],
            tokens_per_sample=v["tokens_per_sample"],
            unique_tokens=v["unique"],
            tokens=v["tokens"],
            epochs=v["epochs"],
            deadline_days=f.get("deadline_days"),
            budget=v["budget"],
            cost_first=bool(f.get("cost_first")),
            speed_first=bool(f.get("speed_first")),
            gpu=gpu.name if gpu else None,
            gpu_count=v["count"],
            precision=v["precision"],
            tf32=bool(f.get("tf32")) and v["precision"] == "fp32",
            optimizer=f.get("optimizer", "adamw"),
            opt_in_backward=bool(f.get("opt_in_backward")),
            compile=bool(f.get("compile")),
            cuda_graphs=bool(f.get("cuda_graphs")),
            lora_dropout=f.get("lora_dropout", 0.0),
            chunked_loss=bool(f.get("chunked_loss")),
            old_bitsandbytes=bool(f.get("old_bitsandbytes")),
            old_litgpt=bool(f.get("old_litgpt")),
            old_transformers=bool(f.get("old_transformers")),
            no_z3_leaf=bool(f.get("no_z3_leaf")),
            stack=f.get("stack") or ("litgpt" if f.get("old_litgpt") else "hf" if f.get("old_transformers") else None),
            seq_len=v["seq"],
            micro_batch=int(f["micro_batch"]) if "micro_batch" in f else None,
            global_batch=int(f["global_batch"]) if "global_batch" in f else None,
            grad_accum=int(f["grad_accum"]) if "grad_accum" in f else None,
            zero_stage=f.get("zero_stage"),
            tp=f.get("tp"),
            pp=f.get("pp"),
            ep=f.get("ep"),
            etp=f.get("etp"),
            vpp=f.get("vpp"),
            dp=f.get("dp"),
            cp=f.get("cp") if f.get("cp", 1) > 1 else None,
            hsdp=bool(f.get("hsdp")),
            one_server=bool(f.get("one_server")),
            nvlink=bool(f.get("nvlink")),
            hourly_only=bool(f.get("hourly_only")),
            recurring=bool(f.get("recurring")),
            runs_per_month=WEEKS_PER_MONTH if self.weekly else 1.0,
            own_room=bool(f.get("own_room")),
            power_paid=bool(f.get("power_paid")),
            used_gpus=bool(f.get("used_gpus")),
            power_price=Budget(amount=f["power_price"], currency=self.power_currency or v["currency"])
            if "power_price" in f
            else None,
            max_gpus=int(f["max_gpus"]) if "max_gpus" in f else None,
            min_gpus=int(f["min_gpus"]) if "min_gpus" in f else None,
            owned=bool(f.get("owned")),
            gpus_per_server=self.server_shape["per"] if self.server_shape else None,
            offload=f.get("offload", "none"),
            recompute=f.get("recompute") or ("full" if "recompute_layers" in f else None),
            recompute_modules=f.get("recompute_modules"),
            recompute_layers=int(f["recompute_layers"]) if "recompute_layers" in f else None,
            grad_reduce=f.get("grad_reduce"),
            moments=f.get("moments"),
            attention=f.get("attention"),
            dispatcher=f.get("dispatcher"),
            rent_or_buy=f.get("rent_or_buy"),
            fabric=f.get("fabric"),
            network_gbps=self.network_speed[0] if self.network_speed else None,
            network_per_server=bool(self.network_speed and self.network_speed[1]),
            own_use_months=f.get("own_use_months"),
            lease_term_months=f.get("lease_term_months"),
            own_utilisation=f.get("own_utilisation"),
            currency=v["currency"],
            city=f.get("city"),
            market=v["market"],
            cloud=f.get("cloud"),
            lang=self.lang,
            assumptions=notes,
            user_set=sorted(k for k in f if k not in ("moe", "data_language")),
        )


class _Merged:
    """Lets one handler read alternative groups of a pattern under the same names."""

    def __init__(self, m: re.Match, **overrides):
        self._m = m
        self._o = overrides

    def __getitem__(self, key):
        if key in self._o:
            return self._o[key]
        if isinstance(key, str) and key in self._m.re.groupindex:
            value = self._m[key]
            if value is None and key + "2" in self._m.re.groupindex:
                value = self._m[key + "2"]
            return value
        return self._m[key]


def _group(m, name: str) -> str | None:
    """A named group of a match (or of a _Merged one) that the pattern may not have."""
    match = m._m if isinstance(m, _Merged) else m
    return match[name] if name in match.re.groupindex else None


# A day without a year that passed this many days ago or fewer is past ("12月1日前" said on the 2nd),
# not next year's (assumed: a deadline is seldom set more than ten months ahead by its day alone).
RECENTLY_PAST_DAYS = 60


# The sequence a request is planned at when none is given (tokens).
DEFAULT_SEQ = 4096
# The longest sequence raised to for long samples of a model the catalogue lacks (its context
# length unknown; assumed 128K, the long-context models of 2025).
MAX_SEQ_FROM_SAMPLES = 131_072


def _known_gpus() -> str:
    return ", ".join(g.aliases[0] if g.aliases else g.name for g in catalog.gpus())


# Words a /gpu text may start with that are commands, not requests (CONTRACT section 3).
COMMAND_WORDS = {
    "help": "help",
    "帮助": "help",
    "prices": "prices",
    "价格": "prices",
    "quote": "quote",
    "报价": "quote",
    "digest": "digest",
    "日报": "digest",
}


# A greeting or a how-do-I-use-this on its own asks for the help ("你好" had been "I did not
# understand 你好"); inside a request it is read as any other word.
ASKS_FOR_HELP = re.compile(
    r"\s*(?:hi|hello|hey|yo|hiya|good\s+(?:morning|afternoon|evening)|how\s+(?:do\s+i|to)\s+use\s+(?:this|it|you)"
    r"|what\s+can\s+you\s+do|usage|你好|您好|嗨|哈喽|哈啰|在吗|在不在|怎么用|如何使用|用法|你能做什么"
    # thanks alone as a command (a thread's thanks gets no reply): the help, not "tell me the model size"
    r"|thanks|thank\s+you|thx|ty|cheers|谢谢|多谢|感谢|谢了|好的谢谢)"
    r"[\s!！。.~～?？,，]*",
    re.I,
)


# The digest's settings said without the word digest ("subscribe", "订阅日报", "unsubscribe from the
# price digest", "取消订阅"): the digest command (they had been refused as words not understood)
_DIGEST_ALONE = re.compile(
    r"\s*(?P<action>unsubscribe|subscribe|取消订阅|订阅)"
    r"(?:\s*(?:to|from|me|us|this channel)?\s*(?:the\s+)?(?:daily\s+)?(?:gpu\s+)?(?:price\s+)?"
    r"(?:digest|updates?|价格日报|日报|价格))?"
    r"[\s!！。.~～]*",
    re.I,
)


def command_text(text: str) -> str:
    """`text` with a digest setting said alone written as its command ("订阅日报" -> "digest 订阅")."""
    alone = _DIGEST_ALONE.fullmatch(text or "")
    return f"digest {alone['action'].lower()}" if alone else text


def leading_command(text: str) -> str | None:
    """ "help", "prices", "quote" or "digest" when the text starts with that command, else None;
    "help" too for a greeting alone (ASKS_FOR_HELP)."""
    words = (text or "").split()
    if words and ASKS_FOR_HELP.fullmatch(text):
        return "help"
    return COMMAND_WORDS.get(words[0].lower()) if words else None


def detect_lang(text: str) -> str:
    """The reply language a text asks for: `lang en|zh` if present, else Chinese if it has any."""
    norm = unicodedata.normalize("NFKC", text).lower()
    forced = re.search(_lang_pattern(), norm)
    return value_of(fields.field("lang").choices, _lang_word(forced)) if forced else _detect_lang(norm)


class _Probe(_Parse):
    """What a message names, read without refusing anything (`holds_a_plan`)."""

    def fail(self, kind: str, **details) -> None:
        return None

    def _refuse_rl(self, word: str) -> None:
        return None  # a probe refuses nothing: no second parse for the floor

    def set(self, field: str, value, word: str) -> None:
        self.fields.setdefault(field, value)
        self.words.setdefault(field, word)


# Two training runs one after the other in one message ("SFT ..., then DPO ...", "继续预训练，再做一轮SFT"):
# the words between them, and the fields each run keeps from the other's part of the message
STAGE_BREAK = re.compile(
    r",?\s*(?:and\s+)?\bthen\b|\bfollowed\s+by\b|\bafter\s+that\b|然后|接着|之后再|[，,]\s*再|再(?:做|跑|进行|来)",
    re.I,
)
_STAGE_FIELDS = ("data", "method", "preference_tuning", "epochs")
_SHARED_FIELDS = ("model", "params_b", "deadline_days", "budget", "gpu", "gpu_count", "nodes", "currency", "market")


def _stages(text: str, lang: str) -> dict:
    """Each run of a message that asks for two in turn, as the request text that plans it alone: the
    run's own method and data, and the model, deadline, budget and GPUs said anywhere (advice.refusal
    writes them back as requests); {} where the message does not split into two runs that each plan."""
    found = STAGE_BREAK.search(text)
    if found is None:
        return {}
    before, after = text[: found.start()], text[found.end() :]
    steps = ("_owned", "_gpus", "_models", "_budget", "_data", "_deadline", "_sizes", "_methods")
    probes = _probe(before, *steps), _probe(after, *steps)
    # each run its own data, and the later one its own method ("20GB then 30GB" is no second run)
    if (
        any("data" not in p.fields for p in probes)
        or not {"method", "preference_tuning", "finetune"} & probes[1].fields.keys()
    ):
        return {}

    def shared(probe: _Probe) -> str:
        return " ".join(probe.words[f] for f in _SHARED_FIELDS if f in probe.words)

    stages = [f"{before} {shared(probes[1])}", f"{shared(probes[0])} {after}"]
    try:
        for stage in stages:
            parse(stage, lang)
    except RequestError:
        return {}
    return {"stages": stages}


def _rl_floor(text: str, lang: str) -> dict:
    """For an RL request that counts its prompts ("qwen2.5-7b grpo 10k prompts 3d"): the tokens its policy
    update trains on at TRL's defaults (RL_GENERATIONS completions a prompt, each at most
    RL_PROMPT_TOKENS + RL_COMPLETION_TOKENS) and the full fine-tune over them to plan as a floor; {}
    where the rest of the request does not plan or counts no prompts."""
    # every RL word the full fine-tune (none left to refuse again), "强化学习" and "GRPO" both said included
    sft = re.sub(
        rf"(?<![a-z0-9])(?:{spelled(UNSUPPORTED_METHODS)})(?![a-z0-9])|{'|'.join(ZH_UNSUPPORTED_METHODS)}",
        " ",
        text,
        flags=re.I,
    )
    try:
        req = parse(f"{sft} full-finetune", lang)
    except RequestError:
        return {}
    if req.data is None or req.data.unit != "samples":
        return {}
    prompts = req.data.amount
    tokens = prompts * RL_GENERATIONS * (RL_PROMPT_TOKENS + RL_COMPLETION_TOKENS)
    size = req.model or f"{req.params_b:g}b"
    scale = f"{tokens / 1e9:.3g}B" if tokens >= 1e9 else f"{tokens / 1e6:.3g}M"
    deadline = f" {req.deadline_days:g}d" if req.deadline_days else ""
    gpus = f" on {req.gpu_count}x{req.gpu}" if req.gpu and req.gpu_count else ""
    low, high = RL_STEP_MULTIPLE["moe" if req.active_params_b < req.params_b else "dense"]
    money = " usd" if req.currency == "USD" else ""  # the market the request priced in
    example = f"{size} full-finetune {scale} tokens{deadline}{gpus}{money}"
    return {"prompts": prompts, "tokens": tokens, "example": example, "low": low, "high": high}


def _probed(text: str, *steps: str) -> dict:
    """The fields the request rules `steps` read from `text`, refusing nothing."""
    return _probe(text, *steps).fields


def _probe(text: str, *steps: str) -> _Probe:
    probe = _Probe(text)
    for step in steps:
        try:
            getattr(probe, step)()
        except (RequestError, KeyError, TypeError, ValueError):
            continue  # a rule that needs what a refusal would have stopped: the rest still read
    return probe


def holds_a_plan(text: str) -> bool:
    """Whether a message names what a plan is made of: a model (its size or name) or data. A
    first message without either ("what's MFU on H100s?", "H20还能买到吗？") is a question."""
    found = _probed(text, "_owned", "_gpus", "_models", "_budget", "_data", "_deadline", "_sizes")
    return bool({"model", "params_b", "data"} & found.keys())


# A GPU's specifications asked ("H20 specs", "what's the memory bandwidth of H200?", "H200参数", "介绍一下H20"):
# the catalogue's figures and its prices, not the FAQ's general text (the memory-bandwidth topic had
# answered the second, "specs" had been refused)
SPECS_ASKED = re.compile(
    r"\bspecs?\b|\bspecifications?\b|\bdatasheet\b|\bmemory\s+bandwidth\b|\b(?:bf16\s+|fp8\s+)?tflops\b"
    r"|\btell\s+me\s+about\b|\bhow\s+much\s+(?:vram|memory)\s+(?:does|has)\b|参数|规格|带宽多少|算力(?:多少|多大)|介绍一下"
    # a feature of the part ("does the A800 support NVLink?", "H20支持FP8吗")
    r"|\b(?:support|supports|have|has|come\s+with)\s+(?:nvlink|fp8|fp4|ecc|hbm\w*)\b|\bnvlink\s+(?:bandwidth|speed)\b"
    r"|支持\s*(?:nvlink|fp8|fp4)|有没有\s*nvlink|有\s*nvlink\s*吗",
    re.I,
)


def asks_specs(text: str) -> bool:
    """Whether a message asks a GPU's specifications and names no job (no model, data or sum)."""
    return bool(SPECS_ASKED.search(text or "")) and not holds_a_plan(text) and money_said(text) is None


def gpus_said(text: str) -> tuple[str, int] | None:
    """The GPUs a message counts as a request would read them (`4张A100`, `8x4090`, `两台8卡A800`):
    their catalogue name and count, or None."""
    f = _probed(text, "_owned", "_gpus")
    if f.get("gpu") and not f.get("gpu_count") and f.get("nodes"):
        # servers counted ("4 nodes of H100", "两台H800"): the catalogue's GPUs a server of that part holds
        per = catalog.get_gpu(f["gpu"]).gpus_per_server
        return (f["gpu"], int(f["nodes"]) * per) if per else None
    return (f["gpu"], int(f["gpu_count"])) if f.get("gpu") and f.get("gpu_count") else None


def network_said(text: str) -> tuple[float, bool] | None:
    """The network a message says the team has, as a request reads it (`只有25G以太网`, `100 Gb/s per
    GPU`): Gb/s and whether that is each server's link (else each GPU's), or None."""
    probe = _probe(text, "_owned", "_gpus", "_knobs")
    return probe.network_speed


def money_said(text: str) -> tuple[float, str | None] | None:
    """The sum a message names as a budget would be read (`100万`, `$2M`, `预算300万`) and its
    currency where said, or None."""
    return _probed(text, "_gpus", "_budget").get("budget")


def span_said(text: str) -> float | None:
    """The days a message gives the job as a request would read its deadline (`in 2 weeks`, `两周`), or None."""
    return _probed(text, "_owned", "_gpus", "_models", "_budget", "_data", "_deadline").get("deadline_days")


def data_said(text: str) -> tuple[float, str] | None:
    """The data a message gives: its tokens counted as a request counts them once (bytes at the
    language's bytes a token, samples at their said or default length; no epochs) and the words that
    said it, or None (`with 1TB`, `50k samples`, `10B tokens`)."""
    probe = _probe(text, "_owned", "_gpus", "_models", "_budget", "_data")
    f = probe.fields
    if "data" not in f:
        return None
    amount, unit = f["data"]
    if unit == "bytes":
        amount /= BYTES_PER_TOKEN[f.get("data_language") or ("zh" if chinese_prose(text) else "en")]
    elif unit == "samples":
        amount *= f.get("tokens_per_sample") or TOKENS_PER_SAMPLE
    return amount, probe.words["data"].strip()


def model_said(text: str) -> tuple[str | None, float | None, float | None] | None:
    """The model a message names as a request would read it: its catalogue name, or its size in
    billions (total, active), or None (`qwen3-32b`, `70B`, `总参671B 激活37B`)."""
    # (a sum is read first: "¥3M" is money, not a model of 3M parameters; so is the data: "on 1B tokens"
    # is no 1B model, which had kept "the biggest model $5000 fine-tunes on 1B tokens" from its answer)
    f = _probed(text, "_gpus", "_models", "_budget", "_data", "_sizes")
    if "model" not in f and "params_b" not in f:
        return None
    return f.get("model"), f.get("params_b"), f.get("active_params_b")


# A question whose answer is a plan's own numbers or choice: how many GPUs, how long, what it
# costs or needs, which GPUs, whether it can run ("how long would 70b lora take?", "can we train a
# 70b on H100s?", "70b要多少张卡", "能不能跑70b")
_PLAN_ASKED = re.compile(
    # (how much data a model wants is the FAQ's: "how much data do I need to fine-tune 7B?")
    r"\bhow\s+(?:many(?!\s+(?:epochs?|passes|samples|examples|tokens)\b)|long|much(?!\s+(?:data|text|training\s+data)\b)"
    r"|fast|quickly)\b|\bwhat\s+(?:would|will|does)\s+it\s+(?:cost|take)\b"
    # "what's the minimum number of H100s to full finetune 70B?": the fewest that hold it, a plan's count
    r"|\b(?:minimum|fewest|smallest)\s+(?:number\s+of\s+|count\s+of\s+)?(?:gpus?|cards?|servers?|nodes?|[a-z]{0,5}\d{2,4}s?)\b"
    r"(?!\s+(?:memory|vram|ram)\b)"
    r"|\b(?:what|which)\s+(?:kind\s+of\s+|type\s+of\s+)?(?:gpus?|cards?|hardware|servers?|setup|cluster)\b"
    # "what's the best GPU for fine-tuning 7b models?": the plan's choice, with the other types beside it
    r"|\b(?:what|which)(?:'s|\s+is|\s+are)?\s+(?:the\s+)?(?:best|right|cheapest|ideal|most cost[\s-]effective)\s+"
    r"(?:gpus?|cards?|hardware|setup)\b"
    r"|\b(?:can|could)\s+(?:i|we|you)\s+(?:train|fine-?tune|finetune|pre-?train|run|fit|do)\b"
    r"|\brecommend\w*\s+(?:(?:a|an|the|some|me\s+a)\s+)?(?:gpus?|cards?|hardware|setup|servers?|config\w*)\b"
    r"|\bis\s+it\s+(?:possible|feasible)\b|\bplan\b"
    r"|多少|几张|几台|几卡|多久|多长时间|几天|(?:什么|哪种|哪个|哪款|啥)(?:显?卡|gpu|服务器|配置|硬件)"
    r"|能不能(?:跑|训|做|用)|能否|能跑|跑得动|够不够|够用吗|可以跑|规划|方案"
    # a price asked ("H100现在什么价"): the price store's answer, not the FAQ's first; the job's cost asked
    # ("ballpark cost to fine-tune llama 3 70B?"): its plan, with the rent a month when no data is given
    r"|什么价|啥价|什么价格|价位|\bballpark\b|\b(?:what(?:'s| is| would be)|rough|estimated?)\s+(?:the\s+)?cost\b"
)
# What makes a message a plan request whatever it asks: data, a deadline, a budget, GPUs counted
_PLAN_FIELDS = {"data", "deadline_days", "budget", "gpu_count", "nodes", "max_gpus", "min_gpus"}


def asks_for_a_plan(text: str) -> bool:
    """Whether a message is clearly a plan request, though it may also be a question: it gives
    data, a deadline, a budget or a count of GPUs, or asks what only a plan answers (how many
    GPUs, how long, how much, which GPUs, whether it can run). A question beside a model's size
    that is none of these ("is fp8 safe for finetuning a 70b model?") is the FAQ's."""
    probe = _Probe(text)
    for step in (probe._owned, probe._gpus, probe._models, probe._budget, probe._data, probe._deadline, probe._sizes):
        try:
            step()
        except (RequestError, KeyError, TypeError, ValueError):
            continue  # as holds_a_plan: the rest still read
    norm = _PASTED.sub(" ", unicodedata.normalize("NFKC", text).lower())
    return bool(_PLAN_FIELDS & probe.fields.keys()) or bool(_PLAN_ASKED.search(norm))


# A message asked as a question: a question mark, a question word first, or a Chinese question
# particle or word ("吗", "多久", "能不能")
_ASKS = re.compile(
    r"[?？]|^\s*(?:what|whats|how|why|which|when|where|who|is|are|can|could|do|does|did|should|shall|will|would|any"
    # a question asked as a request ("explain FSDP vs DeepSpeed", "best GPU for LLM training in China")
    r"|explain|tell\s+me|compare|recommend|describe|define|best)"
    r"(?![a-z])|吗|呢|什么|怎么|如何|多少|多久|多大|哪|是否|能不能|可不可以|要不要|有没有|会不会|行不行|为啥|为什么|还是"
    # "一个机柜能放几台8卡服务器": 几 before a measure word asks how many ("十几张卡" says about a dozen)
    r"|(?<![十百千万\d])几(?=[台张个块天周月年种位])"
)


def asks(text: str) -> bool:
    return bool(_ASKS.search(_PASTED.sub(" ", unicodedata.normalize("NFKC", text).lower())))


def gpu_options(text: str, lang: str | None = None) -> list[str]:
    """The GPU types a request names as a choice, in the order named ([] for none): one parse each
    with `gpu_pick` plans the comparison. Raises RequestError as `parse` does."""
    reading = _Parse(text, lang, gpu_pick=0)
    reading.run()
    return [gpu for gpu, _ in reading.gpu_options]


def cloud_options(text: str, lang: str | None = None) -> list[str]:
    """The clouds a request names as a choice, in the order named ([] for none): one parse each
    with `cloud_pick` plans the comparison. Raises RequestError as `parse` does."""
    reading = _Parse(text, lang, cloud_pick=0)
    reading.run()
    return [cloud for cloud, _ in reading.cloud_options] if len(reading.cloud_options) > 1 else []


def method_options(text: str, lang: str | None = None) -> list[str]:
    """The training methods a request names as a choice, in the order written ([] for none): one
    parse each with `method_pick` plans the comparison. Raises RequestError as `parse` does."""
    reading = _Parse(text, lang, method_pick="")  # no option kept: the parse reads on past the choice
    reading.run()
    return [method for method, _ in reading.method_options]


def parse(
    text: str,
    lang: str | None = None,
    today: dt.date | None = None,
    gpu_pick: int | None = None,
    method_pick: str | None = None,
    cloud_pick: int | None = None,
) -> TrainingRequest:
    """Parse what a user typed after /gpu. Raises RequestError for input we cannot use.

    `lang` forces the reply language (the --lang flag, a Slack user's locale); `today` is the
    day a dated deadline counts from (today in the team's time zone); `gpu_pick` which of the GPU
    types named as a choice to keep (else the choice is refused, kind `gpu_choice`); `method_pick`
    which of the training methods named as a choice (else kind `method_choice`); `cloud_pick` which
    of the clouds named as a choice (else kind `cloud_choice`)."""
    if not isinstance(text, str) or not text.strip():
        raise RequestError("empty", lang or detect_lang(text or ""))
    if len(text) > 2000:
        raise RequestError("too_long", lang or detect_lang(text[:2000]))
    typos: list[tuple[str, str]] = []
    read = text
    while True:
        try:
            request = _Parse(read, lang, today, gpu_pick, method_pick, cloud_pick, typos=tuple(typos)).run()
            return request.model_copy(update={"text": text}) if typos else request
        except RequestError as refused:
            fixed = _method_typo(read, refused)
            if fixed is None or len(typos) >= MAX_TYPOS_READ:
                raise
            read = fixed[0]
            typos.append(fixed[1])


# Cloud instance types named instead of GPUs (data/instances.toml): a name as typed, its dots, dashes,
# underscores and spaces optional ("p5.48xlarge", "a3 mega", "Standard_ND96isr_H100_v5", "ND H100 v5"),
# after a count of instances ("2x p5", "4 p5 instances") where there is one
def _instance_pattern(name: str) -> str:
    # (a short name keeps its letters together: "p 5" of "top p 5" is no instance)
    gap = r"[\s._\-]*" if len(re.sub(r"[\s._\-]+", "", name)) > 4 else r"[._\-]?"
    return gap.join(re.escape(c) for c in re.sub(r"[\s._\-]+", "", name))


def _instance_of(typed: str):
    key = re.sub(r"[\s._\-]+", "", typed.lower())
    return next(i for i in catalog.instances() if key in {re.sub(r"[\s._\-]+", "", n) for n in i.names})


_INSTANCE = re.compile(
    r"(?P<lead>(?<![a-z0-9]))(?:(?P<n>\d{1,3})\s*(?:x|\*)?\s*)?(?:standard[\s_\-]*)?"
    r"(?P<name>"
    + "|".join(sorted((_instance_pattern(n) for i in catalog.instances() for n in i.names), key=len, reverse=True))
    + r")(?:\s+(?:instances?|vms?|nodes?|machines?|boxes))?(?![a-z0-9])",
)
_CLOUD_WORDS = r"(?<![a-z])(?:aws|amazon|gcp|google|azure|microsoft)(?![a-z])"


# A misspelt training method ("finetuen", "fintune", "pretrian") is read as the method it is
# closest to, and said (it had been refused with "did you mean `fine-tune`?"). Only the method's
# own long words, and only close matches (difflib ratio 0.8, assumed): a short or loose match
# still asks.
TYPO_READ_RATIO = 0.8
MAX_TYPOS_READ = 2


@cache
def _method_words() -> tuple[str, ...]:
    return tuple(
        w
        for name in ("method", "finetune")
        for word in fields.field(name).choices
        for w in word.en
        if len(w) >= 6 and " " not in w
    )


def _method_typo(text: str, refused: RequestError) -> tuple[str, tuple[str, str]] | None:
    """`text` with the misspelt method a refusal names written right, and (typed, read), or None."""
    typed, nearest = refused.details.get("word") or "", refused.details.get("nearest") or ""
    if refused.kind != "unknown_word" or nearest not in _method_words() or not re.fullmatch(r"[a-z\-]+", typed):
        return None
    if difflib.SequenceMatcher(None, typed, nearest).ratio() < TYPO_READ_RATIO:
        return None
    written, count = re.subn(rf"(?<![a-z0-9]){re.escape(typed)}(?![a-z0-9])", nearest, text, count=1, flags=re.I)
    return (written, (typed, nearest)) if count else None


# "double the data", "预算减半", "twice the time": a what-if that scales one thing of the plan.
_FACTORS = (
    (r"doubles|doubled|double|twice|2x|翻倍|加倍|翻一倍|两倍", 2.0),
    (r"triples|tripled|triple|3x|三倍", 3.0),
    (r"halves|halved|halve|half|一半|减半|砍半", 0.5),
)
# The fields a what-if scales, with their words (advisor/request/fields.py `scaled`).
_SCALED_FIELDS = tuple(
    (f.name, spelled(f.scaled.en + f.scaled.zh)) for f in fields.FIELDS if f.scaled.en or f.scaled.zh
)


# "50% more data", "20% less budget", "数据多50%", "预算少20%": a what-if that scales by a share
_PERCENT_MORE = r"(?P<pct>\d+(?:\.\d+)?)\s*%\s*(?P<dir>more|less|fewer|extra)"
_PERCENT_ZH = r"(?P<dir_zh>多|少|增加|减少)\s*(?P<pct_zh>\d+(?:\.\d+)?)\s*%"


# When more data comes ("next quarter", "later", "下个季度", "以后"): a what-if on the data plans it as
# if it were here (it had been refused, then the FAQ's growing-later topic, or 翻倍 the GPUs doubled)
_DATA_WORD = re.compile(r"\bdata(?:set)?\b|\bcorpus\b|\btokens?\b|数据|语料", re.I)
# The vendor who has a GPU ("what if the vendor only has A800?", "供应商只有A800怎么办"): the GPU is the change;
# the vendor stays a word of its own elsewhere ("有没有更便宜的供应商" asks for the offers, not a cheaper plan).
_VENDOR_HAS = re.compile(
    r"\b(?:the\s+)?(?:vendor|provider|supplier|lessor|cloud)(?:'s)?\s+(?=only\s+(?:has|have|offers?|gets?)\b)"
    r"|(?P<zh>(?:供应商|厂商|服务商|机房)(?:那边|那里|手上)?只有)",
    re.I,
)
_LATER = re.compile(
    r"\b(?:later(?:\s+on)?|next\s+(?:quarter|month|year|week)|in\s+the\s+future|down\s+the\s+(?:road|line)"
    r"|eventually|over\s+time)\b|下个?季度|下个?月|明年|以后|将来|之后|后面|后期",
    re.I,
)


def _relative_change(change: str) -> tuple[str, tuple[str, float] | None]:
    """The text without its scaling phrase, and (field, factor) when it has one."""
    norm = unicodedata.normalize("NFKC", change).lower()
    for field, field_words in _SCALED_FIELDS:
        found = re.search(
            rf"{L}(?:(?:we\s+)?(?:add|adding|added|get|got|had|have)\s+)?{_PERCENT_MORE}\s+(?:of\s+)?(?:the\s+|our\s+)?(?:{field_words}){R}"
            rf"|(?:{field_words})\s*(?:再)?{_PERCENT_ZH}",
            norm,
        )
        if found:
            pct = float(found["pct"] or found["pct_zh"]) / 100
            less = (found["dir"] or found["dir_zh"]) in ("less", "fewer", "少", "减少")
            if 0 < pct < (1 if less else 10):
                return norm[: found.start()] + " " + norm[found.end() :], (field, 1 - pct if less else 1 + pct)
    for factor_words, factor in _FACTORS:
        for field, field_words in _SCALED_FIELDS:
            pattern = (
                rf"{L}(?:{factor_words})\s*(?:as\s+(?:much|many)\s+)?(?:the\s+|our\s+)?(?:{field_words}){R}"
                rf"|(?:{field_words})\s*(?:{factor_words})(?![a-z0-9])"
            )
            found = re.search(pattern, norm)
            if found:
                return norm[: found.start()] + " " + norm[found.end() :], (field, factor)
    return change, None


def gpu_family(name: str) -> str:
    """A catalogue name without its form and memory size: `A100` of `A100-SXM4-80GB`, `Ascend-910B`
    of `Ascend-910B-64GB` (the 910C is another part, not a variant of it)."""
    return re.split(r"-(?=sxm\d?-|pcie-|nvl-|\d+gb$)", name, maxsplit=1, flags=re.I)[0]


def other_variants(text: str, gpu) -> list[str]:
    """The catalogue's other parts of the family a bare name (`A100`, `V100`) also names, where
    the request gives the part no memory size or form: "A100" is planned as the 80 GB SXM card,
    said."""
    family = gpu_family(gpu.name)
    if re.search(rf"{re.escape(family)}[\s\-_]*(?:sxm\d?|pcie|nvl)?[\s\-_]*(?:\d+\s*g|sxm|pcie|nvl)", text, re.I):
        return []  # a size or form typed after the family name (`A100 40G`, `a100-80gb`, `H100 SXM`)
    return [g.name for g in catalog.gpus() if g.name != gpu.name and gpu_family(g.name) == family]


def parse_followup(
    original: str, change: str, lang: str | None = None, plan_gpu: str | None = None
) -> tuple[TrainingRequest, list[str]]:
    """Re-read `original` with the one change a follow-up asks for ("what if 30 days?",
    "用LoRA呢?", "with H20?", "budget 30万"). Returns the new request and the fields changed.
    Raises RequestError when `change` names no change we understand (then it is a question).
    `plan_gpu`, the GPU the first plan chose, is what "2 nodes" counts in when no GPU is named."""
    reply_lang = lang or detect_lang(change)
    if _DATA_WORD.search(change):
        change = _LATER.sub(" ", change)  # "what if the data doubles next quarter?": the data doubled
    # (the vendor's 只有 is no having of the team's: "只有A800" alone reads as GPUs owned)
    change = _VENDOR_HAS.sub(lambda m: "用" if m["zh"] else " ", change)
    change, scaled = _relative_change(change)
    delta = _Parse(change, reply_lang)
    delta.read(WHATIF_FILLER)
    changed = {k: v for k, v in delta.fields.items() if k != "lang"}
    if changed.pop("finetune", False) and "method" not in changed:
        changed["method"] = "full-finetune"  # "what if we fine-tune instead?"
    if not changed and not scaled:
        raise RequestError("no_change", reply_lang)  # a question: the original is not read again
    base = _Parse(original, reply_lang)
    base.read(tolerant=True)
    f = base.fields
    if scaled:
        field, factor = scaled
        if field not in f:
            raise RequestError("no_change", reply_lang)  # "double the budget" of a plan without one
        value = f[field]
        changed[field] = (value[0] * factor, value[1]) if isinstance(value, tuple) else value * factor
    if "method" in changed and changed["method"] not in ("lora", "qlora"):
        f.pop("lora_rank", None)
        f.pop("lora_targets", None)
    if "gpu_count" in changed and "nodes" not in changed:
        f.pop("nodes", None)  # "with 64 GPUs?" under "4台": the new count, not a contradiction
    other_gpu = changed.get("gpu", f.get("gpu")) != f.get("gpu")
    if other_gpu and f.get("owned") and "owned" not in changed:
        # "换成H800要多久" on the team's own 16 A800: as many of the other type, which they do not own
        f.pop("owned", None)
    elif ("nodes" in changed or other_gpu) and "gpu_count" not in changed:
        f.pop("gpu_count", None)  # another GPU type: let the planner size it (the same type keeps its count)
    if ("nodes" in changed or delta.server_shape) and "gpu" not in changed and "gpu" not in f and plan_gpu:
        f["gpu"] = plan_gpu  # "2 nodes", "两台4卡的服务器": of the plan's GPU
    if delta.server_shape:
        base.server_shape = delta.server_shape
    if delta.network_speed:  # "30 days with 25G ethernet": the team's link, kept apart as the shape is
        base.network_speed = delta.network_speed
    if ("params_b" in changed or "active_params_b" in changed) and "model" not in changed:
        f.pop("model", None)
    if "model" in changed:
        f.pop("params_b", None)
        f.pop("active_params_b", None)
    f.update(changed)
    base.words.update(delta.words)
    request = base._finish()
    # Only what moved: a what-if repeating a value the request already had is no change.
    try:
        before = _Parse(original, reply_lang).run()
    except RequestError:  # an original no longer complete on its own: every change is news
        return request, sorted(changed)
    moved = {name for name in changed if _moved(name, before, request)}
    if delta.server_shape and before.gpus_per_server != request.gpus_per_server:
        moved.add("gpu_count")  # the same GPUs in smaller servers ("two 4-GPU servers" for 8)
    link = ("network_gbps", "network_per_server")
    if delta.network_speed and [getattr(before, a) for a in link] != [getattr(request, a) for a in link]:
        moved.add("network_gbps")
    return request, sorted(moved)


def _moved(name: str, before: TrainingRequest, after: TrainingRequest) -> bool:
    """Whether a field changed the request: its own attribute, or those it shows in (fields.py
    `shows_in`: "nodes" is a GPU count)."""
    return any(getattr(before, a) != getattr(after, a) for a in fields.field(name).shows_in or (name,))
