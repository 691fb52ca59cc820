"""Bilingual FAQ: answers a follow-up question from data/faq/topics.toml.

Retrieval is BM25 from the bm25s library (k1 1.5, b 0.75, Lucene's idf) over each topic's titles, example questions and
keywords in both languages, with the answer texts at a lower weight, and beside it BM25 over the
questions asked of each topic (its example questions and the labelled questions of
data/faq/asked.toml, ASKED_WEIGHT), so that a question worded like those asked before meets their
topic in words its own text lacks. Terms are lower-case
ASCII words with light stemming plus pairs of neighbouring words, Chinese words from
jieba (search mode) plus Chinese character bigrams, and concept tokens from a small
bilingual synonym map, so that 显存 meets "vram" and "rent" meets 租; an English form of the map
counts in its other inflections too (Snowball's stems: "crashed", "dying"). An unknown English
word one letter slip away from a topic word ("loar", "infinband") counts for that word.
Two changes to plain BM25 find the topic a question is about when its words are spread over
several topics: the terms that come from one aspect of the question (a word with its concepts
and bigrams) count about once (ASPECT_REST), and a term's idf is weighed by how many topics are
about it, not how many answers mention it (KEY_IDF_POWER).
A question that spans two topics, the runner-up close behind and about an aspect of the question
the best topic lacks, gets a short second part from it (its answer in one sentence and its note on
the plan). How sure a reply is, and whether it has a second part, is read from the topics' own text.
Nothing is downloaded; the index is built from the topics file by `prepare()` (about a
second, most of it jieba's dictionary; the planning processes call it when they start, so the
first question is not the one that waits) and an answer then takes about a millisecond. Under
a plan, a number of the plan quoted in the question ("why 1280 GiB of RAM?") also stands for
that plan field, which leads to the topics whose answer speaks of it.

Public: `answer(question, lang=None, plan=None, leave_out=None) -> FaqAnswer` for the CLI and the bot
(`leave_out`, a set of asked.toml left out of the questions asked, for tests and benchmarks);
`rank`, `topics`, `language_of` and `plan_note` for tests and benchmarks. The wording of
the reply (unsure, no answer, alternatives) lives in templates/faq.j2.
"""

from __future__ import annotations

import logging
import math
import re
import tomllib
import unicodedata
from collections import Counter
from functools import cache
from typing import NamedTuple

import numpy as np
from jinja2 import Template
from pydantic import BaseModel

from advisor.resources import data_dir
from advisor.text.render import environment, render

# Every plan variable a snippet may use; a missing one is passed as None.
PLAN_KEYS = (
    "gpu",
    "gpu_count",
    "nodes",
    "gpus_per_node",
    "tp",
    "pp",
    "dp",
    "ep",
    "cp",
    "zero_stage",
    "mem_per_gpu_gib",
    "gpu_mem_gib",
    "days",
    "epochs",
    "gpu_hours",
    "mfu_pct",
    "cpu_cores_per_node",
    "ram_gib_per_node",
    "nvme_tb_per_node",
    "storage_read_gb_s",
    "network",
    "interconnect",
    "power_kw_per_node",
    "rent_total",
    "offer_option",
    "offer_rate",
    "buy_capex",
    "currency",
    "decision",
    "breakeven_months",
    "breakeven_never",
    "method",
    "params_b",
    "active_params_b",
    "tokens",
    "precision",
    "grad_reduce",
    "attention_pct",
    "attention_fa2_factor",
    "framework",
    "over_peft_pct",
    "dpo_ref_gib_per_gpu",
    "dpo_days_per_b_tokens",
    "preference_tuning",
    "reference_gib_per_gpu",
    "reference_flops_share",
    "useful_life_months",
    "owned",
    "power_kwh_month",
    "power_cost_month",
    "power_kwh_job",
    "power_cost_job",
    "power_job_gpus",
    "power_server_gpus",
    "power_price",
    "power_region",
    "pue",
    "china_access",
    "china_access_since",
    "ckpt_mtbf_h",
    "ckpt_interruptions",
    "ckpt_sync_every_h",
    "ckpt_async_every_h",
    "ckpt_drain_floor",
    "ckpt_async_lost_h",
    "ckpt_sync_save_min",
    "ckpt_async_save_s",
)

# BM25 parameters and field weights (term frequency is multiplied by the weight).
K1 = 1.5
B = 0.75
FIELD_WEIGHTS = {"title": 0.5, "questions": 0.5, "keywords": 0.5, "answer": 0.2}
# bm25s counts whole terms: a field's weight becomes that many repeats of its terms.
REPEAT_SCALE = 10
FIELD_REPEAT = {field: round(weight * REPEAT_SCALE) for field, weight in FIELD_WEIGHTS.items()}
# Query-side weights by token kind: words count fully, the rest less.
# A word inside an English synonym form of several words that names no concept alone ("fall" of
# "falling over") counts at this weight: the phrase means what its concept says (assumed: half takes "falling
# over" off the price-trend topic; on the held-out sets one more right, one fewer confident, docs/bench.md).
IDIOM_WORD_WEIGHT = 0.5
KIND_WEIGHTS = {"word": 1.0, "char": 0.3, "bigram": 0.3, "concept": 0.7, "family": 0.3}
# A verbatim example question scores this much above the best BM25 score.
VERBATIM_BONUS = 1.25
# An unknown ASCII word one slip from known words counts for them at this weight.
TYPO_WEIGHT = 0.7
# A term's idf is bm25s's over whole topics times (key idf / idf) ** KEY_IDF_POWER, where the key
# idf counts only the topics whose title, example questions or keywords hold the term: a word
# that many answers mention in passing ("pcie", 卡) is still rare among what topics are about
# (six questions of the development sets gained, none lost: docs/bench.md).
KEY_IDF_POWER = 0.5
# One aspect of a question (a word, its stem, its concepts, its bigrams: "张量并行" gives 张量, 并行,
# 张量并行, @tensor_parallel, @parallel) counts its strongest term fully and its others at this
# weight, so a topic that holds two aspects of a question beats one that holds one aspect in
# five forms ("pcie 机型做 tensor parallel 行不行": NVLink vs PCIe, not the parallelism topic; three
# questions of faq_eval.toml's tuning set gained, none lost anywhere).
ASPECT_REST = 0.5

# The reported score squashes the raw BM25 score into 0..1: raw / (raw + SCORE_HALF).
SCORE_HALF = 5.0
# Confident when the best topic scores at least MIN_SCORE (raw BM25 about 3.3: off-topic
# chatter such as "what time is it" stays below it) and beats the runner-up by MIN_MARGIN
# of its raw score. Chosen on the middle of a plateau over the evaluation set, a
# held-out set of paraphrases and a set of off-topic questions.
MIN_SCORE = 0.40
MIN_MARGIN = 0.15
# Terms that only ask how long or when: a match resting on them alone and on single
# characters or character pairs is about nothing in particular ("北京到上海的高铁要多久",
# "how many days until christmas"). Off-topic questions answered confidently in
# bench/faq_speed.py went from 8 of 30 to 2, with no loss on the evaluation sets.
ASKING_ONLY = frozenset(
    {"@time", "@days", "多久", "多长时间", "几天", "day", "long", "fast", "take", "until", "timeline"}
)
# Words the hyperparameters topic uses in an ML sense that everyday questions use in another ("the
# alpha release of the driver", "cosine similarity for dedup", "rank GPUs by value"), and words any
# question may hold ("use", "value"): a match resting on them alone is not on topic, so such a question
# is never answered as sure (those three had been). bench/faq_speed.py: every figure unchanged.
AMBIGUOUS_ONLY = frozenset({"alpha", "cosin", "rank", "use", "valu"})
# A question that brings content words the FAQ never uses (not numbers or model names, not
# slips of known words) is confident only from this score (raw BM25 5.0): off-topic questions
# share a word with some topic by chance ("成都" in "上海到成都的机票多少钱", "run" in "how fast
# can a cheetah run") and bring words of their own. Off-topic questions answered confidently in
# bench/faq_speed.py went from 2 of 30 to 0; on faq_eval.toml, confident right answers stayed
# 160 of 184 and 37 of 45 held out (with "overnight" a night word and a few fillers stop words).
# 0.51 since the 59th topic (2026-12-04): one more topic raises every term's idf by a fraction of a
# percent, and the flight question's best score went from 0.499 to 0.501; 0.52 since the 77th
# (2026-12-06), where it reached 0.5104 (bench/faq_speed.py: labelled 174 of 184 either way, one
# paraphrase and one held-out question right but no longer sure).
SURE_SCORE = 0.52
# Below this score (raw BM25 about 1.7) nothing is shown as a best guess: the reply says
# there is no answer and names the closest topics.
MATCH_SCORE = 0.25
# A question that spans two topics ("数据加载成了瓶颈，GPU利用率只有40%": MFU and CPU cores; "ckpt放本地盘还是
# 放共享存储": local NVMe and checkpoints) gets a short second part from the runner-up when the
# runner-up scores at least SECOND_RATIO of the best topic and at least SECOND_SHARE of its score
# comes from aspects of the question that are about it (a word or concept of its title or keywords)
# and that the best topic holds at less than SECOND_WEAKER of its strength. Chosen on the tuning
# set (faq_eval.toml [[q]]), where the runner-up scores at least half of the best topic for 79 of
# the 175 questions answered right: with the aspect test 14 of them get a second part, and 3 whose
# topic ranked second are answered; 0.4-0.6, 0.2-0.4 and 0.33-0.67 move that by one or two
# questions and up to ten second parts, and no off-topic question is confident (docs/bench.md).
SECOND_RATIO = 0.5
SECOND_SHARE = 0.3
SECOND_WEAKER = 0.5
# The questions asked of each topic (its example questions and the labelled questions of
# data/faq/asked.toml, `_Asked`) score it beside its own text at this weight, the sum divided by
# (1 + ASKED_WEIGHT) so that scores keep the scale the thresholds above were chosen on. Scored set by
# set with that set's questions left out of the examples, 0.2-0.4 is a plateau (docs/bench.md,
# round nine).
ASKED_WEIGHT = 0.3


class TopicRef(BaseModel):
    id: str
    title: str


class FaqAnswer(BaseModel):
    topic: str
    title: str
    answer: str
    score: float  # how well the best topic's own text matches the question, 0..1 (SCORE_HALF)
    confident: bool
    alternatives: list[TopicRef]
    used_plan: bool
    lang: str
    second: TopicRef | None = None  # the topic of the reply's second part, when it has one


class Topic(BaseModel):
    id: str
    title_en: str
    title_zh: str
    questions_en: list[str]
    questions_zh: list[str]
    keywords: list[str]
    answer_en: str
    answer_zh: str
    plan_en: str = ""
    plan_zh: str = ""
    plan_fields: list[str] = []
    # the plan fields whose figure the answer explains how to change (GPU memory per card:
    # recompute, sharding), for a question that quotes the figure and asks to bring it down
    levers: list[str] = []
    sources: list[str] = []
    # The answer in one sentence, for a reply's second part, where the answer's own first
    # sentence does not stand alone ("No.") or runs long.
    brief_en: str = ""
    brief_zh: str = ""
    # The answer under a plan priced outside China (in dollars), where the general answer's
    # figures are China's (power tariffs, rents in yuan): the same advice on that market's prices.
    answer_global_en: str = ""
    answer_global_zh: str = ""

    def title(self, lang: str) -> str:
        return self.title_zh if lang == "zh" else self.title_en

    def body(self, lang: str, plan: dict | None) -> str:
        """The general answer, on the global market's figures where the plan is priced there."""
        if plan is not None and plan.get("currency") not in (None, "CNY"):
            own = self.answer_global_zh if lang == "zh" else self.answer_global_en
            if own:
                return own
        return self.answer_zh if lang == "zh" else self.answer_en

    def brief(self, lang: str) -> str:
        """The answer in one sentence: `brief_*` where given, else the answer's first sentence."""
        if lang == "zh":
            return self.brief_zh or _FIRST_ZH.match(self.answer_zh).group()
        return self.brief_en or _SENTENCE_END.split(self.answer_en, maxsplit=1)[0]


# Where an English sentence ends: a stop and a space, not the stop of "e.g." or "i.e.".
_SENTENCE_END = re.compile(r"(?<!e\.g\.)(?<!i\.e\.)(?<=[.!?])\s+")
_FIRST_ZH = re.compile(r"[^。！？]*[。！？]?")

# --------------------------------------------------------------------------- tokens

_CJK_CHAR = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RUN = re.compile(f"[{_CJK_CHAR}]+")
# Chinese ideographs, CJK punctuation and full-width forms mark a Chinese question.
_CHINESE_HINT = re.compile(f"[{_CJK_CHAR}\u3000-\u303f\uff00-\uffef]")
_ASCII_WORD = re.compile(r"[a-z0-9#]+(?:[-_./+][a-z0-9#]+)*")
_ALPHA_DIGIT = re.compile(r"^([a-z]{3,})(\d+)$")
# A count of GPUs written onto their name ("8xh800", "8x4090"): the name counts as a word of its own.
_COUNT_TIMES = re.compile(r"^\d+x([a-z]*\d+[a-z]*)$")

_EN_STOP = frozenset(
    [
        # when in a run something happened ("it hung halfway"): it says nothing of what happened
        "halfway",
        "midway",
        "mid-run",
        # how much, not of what ("do we lose everything?")
        "everything",
        "anything",
        "something",
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "into",
        "than",
        "then",
        "so",
        "that",
        "this",
        "these",
        "those",
        "it",
        "its",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "done",
        "doing",
        "have",
        "has",
        "had",
        "having",
        "i",
        "we",
        "you",
        "he",
        "she",
        "they",
        "me",
        "us",
        "our",
        "your",
        "my",
        "their",
        "them",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "can",
        "could",
        "should",
        "would",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "need",
        "needs",
        "just",
        "only",
        "also",
        "any",
        "some",
        "all",
        "there",
        "here",
        "not",
        "no",
        "yes",
        "about",
        "vs",
        "versus",
        "over",
        "under",
        "up",
        "down",
        "out",
        "more",
        "most",
        "much",
        "many",
        "very",
        "really",
        "actually",
        "basically",
        "right",
        "ok",
        "okay",
        "get",
        "got",
        "go",
        "going",
        "want",
        "one",
        "ones",
        "s",
        "t",
        "re",
        "ve",
        "ll",
        "d",
        "m",
        "like",
        # the first halves of "isn't", "doesn't", "won't"
        "isn",
        "aren",
        "doesn",
        "don",
        "didn",
        "wasn",
        "weren",
        "won",
        "wouldn",
        "shouldn",
        "couldn",
        "hasn",
        "haven",
        # question frames: "what happens if", "how long does it usually take"
        "happen",
        "happens",
        "happened",
        "usually",
        "typically",
        "thing",
    ]
)

_ZH_STOP = frozenset(
    [
        # when in a run something happened ("中途挂了", "跑到一半"): it says nothing of what happened
        "中途",
        "半路",
        "一半",
        "前面",
        # "watch out for" ("租卡要注意什么坑"): jieba also cuts it out of 注意力 (attention), which led a
        # question about renting pitfalls to the attention kernels; 注意力 itself stays a word
        "注意",
        # fillers that ask nothing by themselves ("会不会", "啥意思", "一堆")
        "不会",
        "会不会",
        # "能不能做多机训练": a yes-or-no question, not a negation ("不能" had counted as content)
        "不能",
        "能不能",
        "可不可以",
        # "IB是必须的吗": a modal, not what is asked about (it had led to the cooling topic)
        "必须",
        "必需",
        "意思",
        "啥意思",
        "什么意思",
        "拿来",
        "用来",
        "一堆",
        "很多",
        "这种",
        "那种",
        # "so" ("就这么定了", "这么贵"): what it qualifies is the content ("这么多卡" keeps 多卡)
        "这么",
        "那么",
        "的",
        "了",
        "吗",
        "呢",
        "啊",
        "吧",
        "呀",
        "嘛",
        "么",
        "是",
        "我",
        "你",
        "他",
        "她",
        "它",
        "们",
        "我们",
        "你们",
        "他们",
        "这",
        "那",
        "这个",
        "那个",
        "这些",
        "那些",
        "哪",
        "哪个",
        "哪些",
        "什么",
        "怎么",
        "怎么样",
        "怎样",
        "如何",
        "为什么",
        "为啥",
        "啥",
        "咋",
        "多少",
        "几",
        "几个",
        "有",
        "没有",
        "在",
        "和",
        "与",
        "或",
        "或者",
        "还是",
        "就",
        "都",
        "也",
        "还",
        "要",
        "会",
        "能",
        "可以",
        "可",
        "是不是",
        "不是",
        "不",
        "没",
        "很",
        "太",
        "最",
        "更",
        "一般",
        "大概",
        "到底",
        "一下",
        "一个",
        "个",
        "把",
        "被",
        "让",
        "给",
        "对",
        "跟",
        "及",
        "并",
        "而",
        "又",
        "再",
        "才",
        "已",
        "已经",
        "应该",
        "需要",
        "该",
        "得",
        "地",
        "着",
        "过",
        "上",
        "下",
        "里",
        "中",
        "时候",
        "一些",
        "有点",
        "比较",
        "真的",
        "请问",
        "问",
        "下来",
        "起来",
        "的话",
        "如果",
        "那么",
        "所以",
        "因为",
        "但是",
        "其实",
        "就是",
        "还有",
        "怎么办",
        "靠谱",
        "行不行",
        "行",
        "好",
    ]
)

# Bilingual synonym groups. Any form found in a text adds the group's concept token,
# so a question and a topic meet even when they use different words or languages.
# ASCII forms match whole words (case-insensitive); Chinese forms match as substrings.
SYNONYMS: dict[str, tuple[str, ...]] = {
    # what can go wrong in a deal ("租卡要注意什么坑", "what's the catch"): 坑 alone is one character,
    # which counts little as a term
    "pitfall": ("pitfall", "pitfalls", "trap", "traps", "gotcha", "gotchas", "坑", "踩坑", "猫腻", "注意事项"),
    "ram": (
        "ram",
        "host memory",
        "system memory",
        "dram",
        "内存",
        "主机内存",
        "主存",
        "内存条",
        "系统内存",
        "memory per node",
    ),
    "vram": (
        "vram",
        "gpu memory",
        "显存",
        "hbm",
        "oom",
        "out of memory",
        "爆显存",
    ),
    "bandwidth": ("bandwidth", "带宽"),
    "rent": ("rent", "renting", "rental", "lease", "租", "租用", "租赁", "租卡", "租机器", "租服务器"),
    "buy": (
        "buy",
        "buying",
        "purchase",
        "own",
        "owning",
        "买",
        "购买",
        "自购",
        "采购",
        "自己买",
        "买卡",
        "买机器",
        "买断",
    ),
    "monthly": ("monthly", "per month", "包月", "月付", "按月", "包年", "包年包月", "月租", "年付", "annual", "yearly"),
    "hourly": (
        "hourly",
        "per hour",
        "on-demand",
        "on demand",
        "按小时",
        "按量",
        "按时",
        "pay as you go",
        "pay-as-you-go",
        "按需",
    ),
    "price": (
        "price",
        "cost",
        "costs",
        "expensive",
        "cheap",
        "cheaper",
        "价格",
        "价钱",
        "成本",
        "费用",
        "贵",
        "便宜",
        "花钱",
        "开销",
        "开支",
    ),
    "budget": (
        "budget",
        "money",
        "预算",
        "经费",
        "资金",
        "tight budget",
        "low budget",
        "on a budget",
        "shoestring",
        "没钱",
        "钱不多",
        "钱少",
        "预算有限",
        "预算紧",
        "spend",
        "to spend",
        "花多少钱",
    ),
    "night": (
        "night",
        "night-time",
        "overnight",
        "evening",
        "off-peak",
        "夜间",
        "晚上",
        "夜里",
        "闲时",
        "半夜",
        "凌晨",
        "谷时",
        "低谷",
        # the hours a rate is cheaper ("what's the cheapest time of day to run this?", "哪个时段便宜")
        "time of day",
        "时段",
    ),
    # a tax asked of any price ("买服务器要交多少税": the tax topic, not buying; 税 alone had weighed as one
    # character against 买服务器's four forms)
    "tax": ("tax", "taxes", "vat", "税", "税费", "税率", "税点", "交税", "缴税", "纳税", "含税", "增值税"),
    "storage": (
        "storage",
        "nas",
        "nfs",
        "file system",
        "filesystem",
        "存储",
        "文件系统",
        "ceph",
        "juicefs",
        "weka",
        "共享盘",
        "shared drive",
        "i/o",
        "io-bound",
        "读写",
        "读盘",
    ),
    "pfs": (
        "parallel file system",
        "parallel file systems",
        "parallel filesystem",
        "parallel filesystems",
        "lustre",
        "gpfs",
        "cpfs",
        "并行文件系统",
    ),
    "network": (
        "network",
        "networking",
        "ethernet",
        "infiniband",
        "roce",
        "网络",
        "以太网",
        "组网",
        "fabric",
        "rdma",
        "ib",
        "connectx",
        "mellanox",
        "参数面",
        "计算网络",
        "无损网络",
    ),
    "nvlink": ("nvlink", "nvswitch", "sxm"),
    "pcie": ("pcie", "pci-e"),
    "cpu": (
        "cpu",
        "cpus",
        "vcpu",
        "vcpus",
        "cores",
        "处理器",
        "核数",
        "核心",
        "threads",
        "线程数",
        "物理核",
        "逻辑核",
        "双路",
        "几核",
        "多少核",
        "个核",
        "核不够",
        "核太少",
        "核够",
        "cpu-bound",
        "cpu bound",
    ),
    "disk": (
        "nvme",
        "ssd",
        "local disk",
        "本地盘",
        "固态",
        "硬盘",
        "数据盘",
        "本地存储",
        "local storage",
        "local drive",
        "local drives",
        "scratch space",
        "nvme盘",
    ),
    "power": (
        "power",
        "kw",
        "electricity",
        "供电",
        "功耗",
        "电力",
        "用电",
        "功率",
        "千瓦",
        "pdu",
        "amps",
        "circuit",
        "breaker",
        "电不够",
        "供电能力",
    ),
    "electricity_price": (
        "electricity",
        "power bill",
        "power cost",
        "电费",
        "电价",
        "度电",
        "一度电",
        "千瓦时",
        "energy bill",
        "energy cost",
        "utility bill",
    ),
    "cooling": (
        "cooling",
        "cooled",
        "散热",
        "冷却",
        "heat",
        "overheat",
        "overheating",
        "thermal",
        "thermals",
        "过热",
        "发热",
        "降频",
        "throttle",
        "throttling",
        "空调",
        "冷板",
        "浸没",
        "immersion",
        "running hot",
        "runs hot",
        "too hot",
        "hot spots",
        "太热",
        "温度太高",
    ),
    "liquid": (
        "liquid",
        "液冷",
        "water cooling",
        "water-cooled",
        "water cooled",
        "水冷",
    ),
    "air": ("air cooling", "air-cooled", "风冷"),
    "rack": ("rack", "racks", "cabinet", "机柜", "单柜"),
    "datacenter": (
        "data center",
        "data centre",
        "datacenter",
        "idc",
        "colocation",
        "colo",
        "on-prem",
        "机房",
        "托管",
        "数据中心",
        "on-premise",
        "on-premises",
        "on premise",
        "bare metal",
        "bare-metal",
        "裸金属",
        "物理机",
        "自建机房",
        "独立服务器",
    ),
    "cloud": (
        "cloud",
        "aliyun",
        "aws",
        "云",
        "公有云",
        "阿里云",
        "gcp",
        "azure",
        "上云",
        "云上",
        "腾讯云",
        "华为云",
        "火山引擎",
        "云厂商",
        "hyperscaler",
        "hyperscalers",
    ),
    "quote": (
        "quote",
        "quotes",
        "offer",
        "vendor",
        "vendors",
        "provider",
        "providers",
        "报价",
        "服务商",
        "供应商",
        "厂商",
        "报的价",
        "开价",
        "出价",
    ),
    "contract": (
        "contract",
        "term",
        "commit",
        "committing",
        "合同",
        "签约",
        "租期",
        "长约",
        "起租",
        "lock-in",
        "locked in",
        "commitment",
        "minimum term",
        "签多久",
        "签几个月",
        "最少要租",
        "至少租",
        "最短租期",
        "最短",
        "几个月起",
        "shortest term",
        "shortest rental",
        "minimum rental",
        # leaving when the job ends, no term owed
        "walk away",
        "no commitment",
        "cancel anytime",
        "cancel any time",
    ),
    "time": ("how long", "how fast", "timeline", "多久", "多长时间", "几天"),
    "deploy": (
        "deploy",
        "deployment",
        "setup",
        "set up",
        "hand over",
        "handover",
        "部署",
        "上线",
        "环境搭建",
        "交付",
        "up and running",
        "go live",
        "go-live",
        "到货",
        "上架",
        "能用上",
        "交付周期",
        "ready to train",
        "signing",
        "sign the contract",
        "签合同",
        "签了合同",
        "purchase order",
        "loss curve",
        "loss curves",
        "开工",
        "asap",
        "as soon as possible",
        "尽快",
        "马上开",
        "下周就",
    ),
    "start": ("start", "first run", "开始", "开训", "开跑"),
    "parallel": (
        "parallel",
        "parallelism",
        "并行",
        "模型并行",
        "model parallel",
        "model parallelism",
        "3d parallelism",
    ),
    "tensor_parallel": ("tensor parallel", "tensor parallelism", "tp", "张量并行"),
    "pipeline_parallel": ("pipeline parallel", "pipeline parallelism", "pp", "流水线并行", "流水线"),
    "data_parallel": ("data parallel", "data parallelism", "dp", "数据并行"),
    "resume": (
        "resume",
        "restart",
        "interrupted",
        "interruption",
        "crash",
        "reboot",
        "rebooted",
        "pick up",
        "left off",
        "carry on",
        "continue training",
        "断电",
        "中断",
        "续训",
        "恢复训练",
        "接着训",
        "接着跑",
        "从断点",
        "start over",
        "lose progress",
        "lost progress",
        "lost work",
        "lose work",
        "redo",
        "重来",
        "从头训",
        "从头再来",
        "前功尽弃",
        "白跑",
        "白训",
        "from scratch",
        "start again",
        "starting over",
        "wasted",
        "lose everything",
        "lost everything",
        "redo everything",
        "白费",
        "白干",
        "从头开始",
        "重新跑",
        "重跑",
        "从零开始",
        "接着来",
        "续上",
        "断点续训",
    ),
    "dataloading": (
        "dataloader",
        "data loading",
        "data loader",
        "num_workers",
        "preprocessing",
        "数据加载",
        "等数据",
        "喂数据",
        "预处理",
    ),
    "checkpoint": ("checkpoint", "checkpoints", "ckpt", "检查点", "存档", "断点", "snapshot", "snapshots", "快照"),
    "params": ("parameter", "parameters", "param", "params", "参数", "参数量"),
    "bytes": ("byte", "bytes", "字节"),
    "optimizer": ("optimizer", "optimiser", "adam", "adamw", "优化器"),
    "full_ft": (
        "full fine-tune",
        "full fine-tuning",
        "full finetune",
        "full-finetune",
        "full ft",
        "全参",
        "全量微调",
        "全参微调",
        "full parameter",
        "full-parameter",
        "全量",
        "全参数",
    ),
    "finetune": ("fine-tune", "fine-tuning", "finetune", "finetuning", "sft", "微调"),
    "lora": ("lora", "peft", "adapter", "adapters", "低秩"),
    "quant": (
        "4bit",
        "4-bit",
        "nf4",
        "quantization",
        "quantized",
        "量化",
        "int4",
        "int8",
        "8bit",
        "8-bit",
        "4比特",
        "bnb",
        "bitsandbytes",
    ),
    "offload": ("offload", "offloading", "卸载", "卸到"),
    "zero": (
        "zero",
        "zero1",
        "zero2",
        "zero3",
        "zero-1",
        "zero-2",
        "zero-3",
        "fsdp",
        "deepspeed",
        "zero stage",
        "分片",
    ),
    "recompute": (
        "recompute",
        "recomputation",
        "gradient checkpointing",
        "activation checkpointing",
        "重计算",
        "梯度检查点",
        "激活重算",
        "重算",
        "grad ckpt",
        "selective recompute",
        "选择性重计算",
    ),
    "activation": ("activation", "activations", "激活", "激活值"),
    "slow": ("slow", "slower", "slowdown", "慢", "变慢", "拖慢", "降速"),
    "speed": ("speed", "fast", "faster", "throughput", "速度", "快", "吞吐"),
    "days": ("days", "day", "天数", "多少天", "几天"),
    "estimate": ("estimate", "estimated", "estimation", "calculate", "估算", "估计", "估", "算出来"),
    "measured": (
        "measured",
        "measure",
        "actual",
        "real",
        "实测",
        "实际",
        "in practice",
        "reality",
        "真跑",
        "跑出来",
        "实际跑",
        "for real",
    ),
    "mfu": ("mfu", "utilization", "utilisation", "利用率", "跑满", "用满", "吃满", "跑不满", "打满"),
    "failure": (
        "failure",
        "failures",
        "fail",
        "broken",
        "break",
        "die",
        "dies",
        "died",
        "dead",
        "故障",
        "坏卡",
        "坏了",
        "宕机",
        "宕了",
        "崩了",
        "掉卡",
        "掉线",
        "flaky",
        "xid",
        "ecc error",
        "ecc errors",
        "crashes",
        "crashing",
        "goes down",
        "went down",
        "go down",
        "gone down",
        "falls over",
        "fell over",
        "falling over",
        "going down",
        "fall over",
        "hang",
        "hung",
        "hangs",
        "node failure",
        "hardware failure",
        "挂了",
        "挂掉",
        "挂一台",
        "出故障",
        "坏掉",
        "掉节点",
        "宕掉",
        "死机",
        "报错退出",
    ),
    "repair": (
        "repair",
        "replace",
        "replacement",
        "fix",
        "修复",
        "修好",
        "更换",
        "换卡",
        "维修",
        "保修",
        "rma",
        "报修",
        "售后",
        "换新",
        "repaired",
    ),
    "sla": ("sla", "uptime", "ops", "运维", "response time", "响应时间", "on-call", "值守", "7x24"),
    "billing": (
        "billing",
        "billed",
        "charge",
        "charged",
        "bill",
        "per minute",
        "per second",
        "by the minute",
        "by the second",
        "计费",
        "扣费",
        "扣钱",
        "收费",
        "付费",
        "按分钟",
        "按秒",
        "收钱",
        "付钱",
        "still pay",
        "keep paying",
        "计不计费",
        "算钱",
        "照样扣",
        "照扣",
        "还扣",
        "还收",
        "还要钱",
        "计时",
        "算时长",
        "pay for",
        "paying for",
        "still charged",
        "still billed",
    ),
    "compute": ("compute", "tflops", "flops", "算力"),
    "stop": (
        "stopped",
        "shutdown",
        "shut down",
        "停机",
        "关机",
        "停掉",
        "停了",
        "关了",
        "停着",
        "关掉",
        "暂停",
        "pause",
        "paused",
        "powered off",
        "power off",
        "turned off",
        "switched off",
        "idle",
        "idling",
        "sitting idle",
        "not running",
        "闲着",
        "闲置",
        "空闲",
        "没跑任务",
        "不跑的时候",
        "没在跑",
    ),
    "trial": (
        "trial",
        "pilot",
        "test",
        "testing",
        "试跑",
        "试用",
        "测试",
        "poc",
        "proof of concept",
        "burn-in",
        "burn in",
        "smoke test",
        "验收",
        "压测",
        "acceptance test",
        "烤机",
        "try out",
        "trial run",
        "dry run",
        "test drive",
        "试试",
        "试一下",
        "试一试",
        "试水",
        "摸底",
        "先租一台",
        "先跑一下",
    ),
    "profile": ("profile", "profiling", "nsys", "nsight", "profiler"),
    "export": (
        "export control",
        "export controls",
        "ban",
        "banned",
        "restricted",
        "legal",
        "legally",
        "allowed to buy",
        "合法",
        "买得到",
        "买不到",
        "出口管制",
        "禁令",
        "限售",
        "被限",
        "禁",
        "sanction",
        "sanctions",
        "embargo",
        "entity list",
        "制裁",
        "管制",
        "黑名单",
        "实体清单",
        "水货",
        "grey market",
        "gray market",
    ),
    "china": ("china", "chinese market", "国内", "中国"),
    "consumer": ("consumer", "gaming", "geforce", "rtx", "消费级", "游戏卡"),
    "domestic": (
        "domestic",
        "ascend",
        "huawei",
        "npu",
        "国产",
        "昇腾",
        "华为",
        "信创",
        "寒武纪",
        "cambricon",
        "海光",
        "hygon",
        "昆仑芯",
        "国产卡",
        "国产算力",
    ),
    "scaling": (
        "scaling",
        "scale",
        "linear",
        "扩展",
        "线性",
        "加卡",
        "scale out",
        "scale-out",
        "加机器",
        "效率损失",
        "doubled",
        "double the nodes",
        "double the gpus",
        "twice as fast",
        "twice the gpus",
        "翻倍",
        "加倍",
        "多一倍",
    ),
    "communication": ("communication", "all-reduce", "allreduce", "nccl", "通信"),
    "precision": (
        "precision",
        "bf16",
        "fp16",
        "fp8",
        "fp4",
        "精度",
        "half precision",
        "low precision",
        "mixed precision",
        "半精度",
        "低精度",
        "混合精度",
    ),
    "tokens": ("token", "tokens", "语料"),
    "dataset": ("dataset", "data size", "corpus", "tb of data", "gb of data", "数据集", "数据量", "数据有", "的数据"),
    "gpu_count": ("how many gpus", "gpu count", "number of gpus", "几张卡", "多少张卡", "卡数", "多少卡", "几卡"),
    "gpu": ("gpu", "gpus", "card", "cards", "显卡", "卡", "n卡"),
    "framework": ("framework", "toolkit", "框架", "工具包", "stack", "library", "trainer", "训练框架"),
    "memory_bw": ("memory bandwidth", "hbm bandwidth", "显存带宽"),
    "capacity": ("capacity", "容量"),
    "topology": ("topo", "topology", "拓扑"),
    "new_gen": (
        "b200",
        "blackwell",
        "gb200",
        "h200",
        "新一代",
        "新卡",
        "b300",
        "gb300",
        "rubin",
        "下一代",
        "新款",
        "next gen",
        "next-gen",
    ),
    "model_size": ("model size", "模型规模", "参数规模", "规模", "量级", "多大的模型", "模型大小", "how big a model"),
    "cluster": ("cluster", "集群"),
    "train": ("train", "training", "训练"),
    # moving the data: the everyday verbs for it ("搬数据", "拉到集群", "rsync it over")
    "transfer": (
        "upload",
        "uploading",
        "transfer",
        "transfers",
        "migrate",
        "migration",
        "rsync",
        "rclone",
        "ossutil",
        "ship disks",
        "move the data",
        "moving the data",
        "copy the data",
        "上传",
        "传输",
        "迁移",
        "拷贝",
        "搬",
        "拉到",
        "拉过去",
        "拷过去",
        "传过去",
        "公网",
        "专线",
        # the phrasal verbs ("get it to the cluster", "send it over"), which carry no noun of moving
        "get it to",
        "get it onto",
        "get it over",
        "get it across",
        "get them to",
        "get the data to",
        "get the data onto",
        "get our data to",
        "send it over",
        "send the data",
        "move it to",
        "move it over",
        "copy it over",
        "copy it to",
        "传到",
        "导到",
        "导过去",
    ),
    # the sequences a step trains on
    "batch": (
        "batch size",
        "global batch",
        "micro-batch",
        "micro batch",
        "批大小",
        "批次大小",
        "批量大小",
        "多大批次",
        "多大的批次",
    ),
    # paying a lease's money in parts
    "installments": (
        "installment",
        "installments",
        "instalments",
        "pay in two",
        "pay in parts",
        "pay in stages",
        "split the payment",
        "payment schedule",
        "分期",
        "分期付款",
        "分两期",
        "分几期",
        "分批付款",
        "分批次付款",
        "分批支付",
    ),
    # money paid before the GPUs are used
    "upfront": (
        "upfront",
        "up front",
        "up-front",
        "prepay",
        "prepaid",
        "pay in advance",
        "paid in advance",
        "预付",
        "预付款",
    ),
    # when buying pays for itself
    "breakeven": (
        "break even",
        "break-even",
        "breakeven",
        "pay back",
        "payback",
        "pays for itself",
        "pay for itself",
        "pay off",
        "回本",
        "回本周期",
        "收回成本",
    ),
    # a quote that looks too good
    "suspicious": (
        "too good to be true",
        "red flag",
        "red flags",
        "catch",
        "lowball",
        "scam",
        "suspicious",
        "猫腻",
        "套路",
        "有坑",
        "水分",
        "虚标",
        "阉割",
        "gotcha",
        "under market",
        "below market",
        "way under",
        "低于市场价",
    ),
    # capacity the provider may take back
    "spot": (
        "spot",
        "preemptible",
        "interruptible",
        "reclaimed",
        "竞价",
        "竞价实例",
        "抢占",
        "抢占式",
        "可抢占",
        "被回收",
    ),
    # a date the run must meet
    "deadline": ("deadline", "ddl", "due date", "截止", "工期", "交付日期"),
    # GPU memory that is short, and asking for some back: the topics that explain how to save it
    # hold these words ("显存不够", "省显存")
    "memsave": (
        "headroom",
        "squeeze",
        "oom",
        "out of memory",
        "爆显存",
        "tight on memory",
        "memory pressure",
        "显存吃紧",
        "显存紧张",
        "显存不够",
        "显存快满",
        "显存满了",
        "free up memory",
        "save memory",
        "saving memory",
        "reduce memory",
        "cut memory",
        "memory saving",
        "memory-saving",
        "fit in memory",
        "fit into memory",
        "省显存",
        "降显存",
        "挤一挤",
        "挤出",
        "腾出",
        "塞下",
        "塞得下",
        "放得下",
        "装得下",
    ),
    # long sequences, which are what activations grow with
    "long_context": (
        "long context",
        "context length",
        "sequence length",
        "seq len",
        "seqlen",
        "长上下文",
        "长序列",
        "序列长度",
    ),
}


@cache
def _jieba():
    """A private jieba tokenizer (the global one is left alone), built on first use."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    for topic in _topics():
        for word in topic.keywords:
            if _CJK_RUN.search(word):
                tokenizer.add_word(word)
    for forms in SYNONYMS.values():
        for form in forms:
            if _CJK_RUN.fullmatch(form) and len(form) > 1:
                tokenizer.add_word(form)
    return tokenizer


@cache
def _snowball():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


def _stem(word: str) -> str:
    word = word.replace("isation", "ization").replace("centre", "center")
    if len(word) > 6 and word.endswith("ly"):  # "legally", "eventually": the adjective
        word = word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 5 and word.endswith("ed"):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    return word


@cache
def _snowball():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@cache
def _form_stem(word: str) -> str:
    """Snowball's English stem, for matching synonym forms in other inflections ("dying" and "died"
    are "die", "crashed" is "crash"). Index terms keep the light `_stem`: Snowball's conflations
    there ("parallelism" with "parallel") moved answers the synonym groups already settle (round
    nine: "why does the plan need a parallel filesystem?" lost its confidence), while a form matched
    by its stem can only add the concept the form stands for."""
    return _snowball().stemWord(word) if word.isalpha() else word


def _ascii_groups(text: str) -> list[list[str]]:
    """ASCII words of a normalised text, each compound ("nvidia-smi") as its parts."""
    return [[p for p in re.split(r"[-_./+]", m.group()) if p] for m in _ASCII_WORD.finditer(text)]


def _ascii_tokens(text: str) -> list[tuple[str, int, int]]:
    """Stemmed words, compounds joined ("zero-3" -> "zero3") and ~pairs of neighbours, each with
    the span of the text it comes from."""
    out: list[tuple[str, int, int]] = []
    previous, end = None, 0
    for match in _ASCII_WORD.finditer(text):
        if text[end : match.start()].strip():
            previous = None  # punctuation or Chinese between two words: not a phrase
        end = match.end()
        parts = [p for p in re.split(r"[-_./+]", match.group()) if p]
        for part in parts:
            if part in _EN_STOP or (len(part) == 1 and not part.isdigit()):
                previous = None
                continue
            word = _stem(part)
            out.append((word, match.start(), match.end()))
            if previous:
                out.append((f"~{previous[0]} {word}", previous[1], match.end()))
            previous = (word, match.start())
            split = _ALPHA_DIGIT.match(part)
            if split:
                out.append((_stem(split.group(1)), match.start(), match.end()))
            counted = _COUNT_TIMES.match(part)
            if counted:
                out.append((_stem(counted.group(1)), match.start(), match.end()))
        if len(parts) > 1:
            out.append((_stem("".join(parts)), match.start(), match.end()))
    return out


def _chinese_tokens(text: str) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    tokenizer = _jieba()
    for run in _CJK_RUN.finditer(text):
        at, chars = run.start(), run.group()
        words = [(w, at + a, at + b) for w, a, b in tokenizer.tokenize(chars, mode="search") if w not in _ZH_STOP]
        out.extend(words)
        seen = {w for w, _, _ in words} | _ZH_STOP
        out.extend(
            ("~" + chars[i : i + 2], at + i, at + i + 2) for i in range(len(chars) - 1) if chars[i : i + 2] not in seen
        )
    return out


def _form_pattern(form: str) -> str:
    """ASCII forms match whole words only; Chinese forms match anywhere."""
    if _CJK_RUN.search(form):
        return re.escape(form)
    return r"(?<![a-z0-9])" + re.escape(form) + r"(?![a-z0-9])"


@cache
def _synonym_matcher() -> tuple[re.Pattern, dict[str, tuple[str, ...]]]:
    """One pattern for every synonym form (longest first), and for each form the concepts
    it stands for, including those of shorter forms inside it ("显存带宽" is also 显存)."""
    forms = sorted({f for fs in SYNONYMS.values() for f in fs}, key=len, reverse=True)
    # compiled once each: there are more forms than re's own cache holds, and recompiling them
    # for every form took start-up from about one second to twenty-five
    compiled = {f: re.compile(_form_pattern(f)) for f in forms}
    concepts = {}
    for form in forms:
        concepts[form] = tuple(
            # a form inside another is a substring of it first (the cheap test before the pattern)
            "@" + concept
            for concept, group in SYNONYMS.items()
            if any(f in form and compiled[f].search(form) for f in group)
        )
    cjk = [re.escape(f) for f in forms if _CJK_RUN.search(f)]
    ascii_ = [re.escape(f) for f in forms if not _CJK_RUN.search(f)]
    # Cheap guards first (a word start; a possible first character) keep the scan fast.
    branches = []
    if ascii_:
        branches.append(r"(?<![a-z0-9])(?:" + "|".join(ascii_) + r")(?![a-z0-9])")
    if cjk:
        first = "".join(sorted({f[0] for f in forms if _CJK_RUN.search(f)}))
        branches.append(f"(?=[{re.escape(first)}])(?:" + "|".join(cjk) + ")")
    return re.compile("|".join(branches) or r"(?!)"), concepts


def _normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def _spans(text: str) -> list[tuple[str, int, int]]:
    """The index terms of a normalised text (words, Chinese words, ~bigrams and @concepts), each
    with the span of the text it comes from."""
    out = _ascii_tokens(text) + _chinese_tokens(text)
    pattern, concepts = _synonym_matcher()
    for match in pattern.finditer(text):
        out.extend((concept, match.start(), match.end()) for concept in concepts[match.group()])
    out.extend(("@cpu", m.start(), m.end()) for m in _CORES.finditer(text))
    return out + _stemmed_concepts(text, out)


def _stemmed_concepts(text: str, found: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """The concepts of English synonym forms met in another inflection: a run of the text's words
    whose stems are a form's stems ("crashed" for "crash", "locking in" for "locked in", "redoing"
    for "redo"), where the form itself did not already give that concept there."""
    table, longest = _stemmed_forms()
    words = [(_form_stem(m.group()), m.start(), m.end()) for m in _PLAIN_WORD.finditer(text)]
    out = []
    for i in range(len(words)):
        for n in range(1, min(longest, len(words) - i) + 1):
            a, b = words[i][1], words[i + n - 1][2]
            out.extend(
                (concept, a, b)
                for concept in table.get(tuple(w for w, _, _ in words[i : i + n]), ())
                if not any(term == concept and x <= a and b <= y for term, x, y in found)
            )
    return out


_PLAIN_WORD = re.compile(r"[a-z0-9]+")


@cache
def _stemmed_forms() -> tuple[dict[tuple[str, ...], tuple[str, ...]], int]:
    """Each English synonym form as the stems of its words, with the concepts it stands for, and the
    most words a form has."""
    table: dict[tuple[str, ...], set[str]] = {}
    for concept, group in SYNONYMS.items():
        for form in group:
            words = tuple(_form_stem(w) for w in _PLAIN_WORD.findall(form))
            if words and not _CJK_RUN.search(form):
                table.setdefault(words, set()).add("@" + concept)
    return {k: tuple(sorted(v)) for k, v in table.items()}, max(map(len, table))


# A count of 核 ("128核", "64 个核") is CPU cores: 核 alone is too short a form to match anywhere
# (核对, 核算, 审核), but glued to a number it means nothing else in a server spec.
_CORES = re.compile(r"\d\s*(?:个|颗)?\s*核")


def _tokens(text: str) -> list[str]:
    """The index terms of a text."""
    return [term for term, _, _ in _spans(_normalise(text))]


# --------------------------------------------------------------------------- index


@cache
def _topics() -> tuple[Topic, ...]:
    with open(data_dir() / "faq" / "topics.toml", "rb") as fh:
        raw = tomllib.load(fh)
    return tuple(Topic(**t) for t in raw["topic"])


class _Index:
    """The topics indexed by bm25s (its sparse BM25, Lucene's idf) over our own terms.

    Field weights are term repeats: FIELD_REPEAT is FIELD_WEIGHTS times ten, and k1 is scaled
    by the same ten, so that a term's saturation is what it was with fractional weights; with
    the (k1 + 1) factor that Lucene's formula drops put back, the scores are plain BM25's."""

    def __init__(self, topics: tuple[Topic, ...]):
        self.docs: list[dict[str, float]] = []
        self.keydocs: list[set[str]] = []  # each topic's terms outside its answer
        # each topic's terms of its titles, keywords and plan fields: what it is about, without the
        # frames of its example questions ("is X enough", "what else")
        self.about: list[set[str]] = []
        vocabulary: set[str] = set()
        corpus: list[list[str]] = []
        # A title or example question asked word for word is answered by its topic.
        self.verbatim: dict[str, int] = {}
        for t in topics:
            fields = {
                "title": [t.title_en, t.title_zh],
                "questions": t.questions_en + t.questions_zh,
                "keywords": t.keywords,
                "answer": [t.answer_en, t.answer_zh],
            }
            tf: Counter = Counter()
            keyterms: set[str] = set()
            for name in t.plan_fields:  # what of a plan the topic's answer speaks of
                tf[PLAN_TERM + name] += FIELD_REPEAT["keywords"]
                keyterms.add(PLAN_TERM + name)
            for name in t.levers:  # what of a plan the topic's answer tells how to change
                tf[LEVER_TERM + name] += FIELD_REPEAT["keywords"]
                keyterms.add(LEVER_TERM + name)
            for field, texts in fields.items():
                repeat = FIELD_REPEAT[field]
                for text in texts:
                    for term in _tokens(text):
                        tf[term] += repeat
                        if field != "answer":
                            keyterms.add(term)
                    for parts in _ascii_groups(_normalise(text)):
                        vocabulary.update(p for p in parts if _TYPO_WORD.fullmatch(p))
            self.docs.append(dict(tf))
            self.keydocs.append(keyterms)
            self.about.append(
                {PLAN_TERM + name for name in t.plan_fields}
                | {term for text in [t.title_en, t.title_zh, *t.keywords] for term in _tokens(text)}
            )
            corpus.append([term for term, count in sorted(tf.items()) for _ in range(count)])
            for text in [t.title_en, t.title_zh] + t.questions_en + t.questions_zh:
                self.verbatim.setdefault(_verbatim_key(text), len(self.docs) - 1)
        self.n = len(self.docs)
        terms = sorted({term for doc in self.docs for term in doc})
        self.term_scores = _TermScores(corpus, K1 * REPEAT_SCALE)
        self.idf = dict.fromkeys(terms, 1.0)  # the terms the index knows
        everywhere = Counter(term for doc in self.docs for term in doc)
        in_keys = Counter(term for doc in self.keydocs for term in doc)
        self.key_idf = {
            term: (self._lucene_idf(in_keys[term]) / self._lucene_idf(everywhere[term])) ** KEY_IDF_POWER
            for term in terms
        }
        # bm25s's Lucene formula leaves out BM25's (k1 + 1) factor: put it back.
        self._scale = K1 + 1
        # Spelling slips ("loar" for "lora", "infinband"): every word of the topics,
        # found through its one-letter deletions (symmetric delete).
        self.near: dict[str, set[str]] = {}
        for word in vocabulary:
            for variant in _deletions(word):
                self.near.setdefault(variant, set()).add(word)

    def _lucene_idf(self, df: int) -> float:
        return math.log(1 + (self.n - df + 0.5) / (df + 0.5))

    def correct(self, word: str) -> list[str]:
        """The index terms of the topic words one slip away from an unknown ASCII word."""
        if not _TYPO_WORD.fullmatch(word) or word in _EN_STOP or _stem(word) in self.idf:
            return []
        found = set()
        for variant in _deletions(word):
            found |= self.near.get(variant, set())
        return sorted({_stem(w) for w in found if _one_slip(word, w)})

    def matched(self, query_terms: dict[str, float], topic_index: int) -> list[str]:
        """The query terms that topic shares with the question."""
        doc = self.docs[topic_index]
        return [term for term in query_terms if term in self.idf and doc.get(term)]

    def aspect_matrix(self, query_terms: dict[str, float], aspects: list[list[str]]) -> np.ndarray:
        """The score every topic's own text gets from each aspect of the question: one row per aspect,
        one column per topic in the file's order. bm25s scores each term, weighted by the query
        term's kind and its key idf."""
        weight = {t: query_terms[t] * self._scale * self.key_idf[t] for t in query_terms if t in self.idf}
        return _aspect_rows(
            [[self.term_scores(t) * weight[t] for t in found if t in weight] for found in aspects], self.n
        )


class _TermScores:
    """bm25s's sparse BM25 (Lucene's idf) over one corpus of term lists, a document per topic:
    called with a term, the score of every document for it, kept once asked (a question's terms
    recur from question to question, and scoring them was a quarter of an answer's time)."""

    def __init__(self, corpus: list[list[str]], k1: float):
        import bm25s

        ids = {term: i for i, term in enumerate(sorted({term for doc in corpus for term in doc}))}
        self.bm25 = bm25s.BM25(k1=k1, b=B, method="lucene", idf_method="lucene")
        self.bm25.index(
            bm25s.tokenization.Tokenized(ids=[[ids[t] for t in doc] for doc in corpus], vocab=ids), show_progress=False
        )
        self.kept: dict[str, np.ndarray] = {}

    def __call__(self, term: str) -> np.ndarray:
        found = self.kept.get(term)
        if found is None:
            found = self.kept[term] = self.bm25.get_scores([term])
        return found


def _aspect_rows(parts: list[list[np.ndarray]], n: int) -> np.ndarray:
    """One row per aspect from the score arrays of its terms: the strongest fully, the rest at
    ASPECT_REST; an aspect with no term the index knows scores nothing."""
    rows = []
    for found in parts:
        strongest = np.max(found, axis=0) if found else np.zeros(n)
        rows.append(strongest + ASPECT_REST * (np.sum(found, axis=0) - strongest) if found else strongest)
    return np.array(rows).reshape(len(rows), n)


class _Asked:
    """The questions asked of each topic, its own example questions and those of
    data/faq/asked.toml, as one BM25 document per topic (Lucene's idf over these documents): a
    question that reads like questions asked before meets their topic even in words the topic's
    own text lacks. Indexed without the examples of one set (`leave_out`), it scores that set on
    questions it has not seen."""

    def __init__(self, topics: tuple[Topic, ...], leave_out: str | None = None):
        position = {t.id: i for i, t in enumerate(topics)}
        texts: list[list[str]] = [t.questions_en + t.questions_zh for t in topics]
        self.verbatim: dict[str, int] = {}  # an example asked word for word is answered by its topic
        # a question of the set left out goes with it, though another set asks it too
        gone = {_verbatim_key(q["text"]) for q in _examples() if q["set"] == leave_out}
        for q in _examples():
            if _verbatim_key(q["text"]) not in gone:
                texts[position[q["topic"]]].append(q["text"])
                self.verbatim.setdefault(_verbatim_key(q["text"]), position[q["topic"]])
        docs = [[term for text in group for term in _tokens(text)] for group in texts]
        self.n = len(docs)
        self.known = frozenset(term for doc in docs for term in doc)
        self.term_scores = _TermScores(docs, K1)

    def aspect_matrix(self, query_terms: dict[str, float], aspects: list[list[str]]) -> np.ndarray:
        """As `_Index.aspect_matrix`, over the questions asked of each topic."""
        # (k1 + 1): the factor that bm25s's Lucene formula leaves out
        weight = {t: query_terms[t] * (K1 + 1) for t in query_terms if t in self.known}
        return _aspect_rows(
            [[self.term_scores(t) * weight[t] for t in found if t in weight] for found in aspects], self.n
        )


_TYPO_WORD = re.compile(r"[a-z]{4,}")


def _deletions(word: str) -> set[str]:
    return {word} | {word[:i] + word[i + 1 :] for i in range(len(word))}


def _one_slip(a: str, b: str) -> bool:
    """True when a and b differ by one swap of neighbours, or (five letters or more) by
    one letter added, dropped or changed."""
    if a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]:
            return True
        return len(diff) == 1 and min(len(a), len(b)) >= 5
    if abs(len(a) - len(b)) != 1 or min(len(a), len(b)) < 5:
        return False
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


@cache
def _index() -> _Index:
    return _Index(_topics())


@cache
def _examples() -> tuple[dict, ...]:
    with open(data_dir() / "faq" / "asked.toml", "rb") as fh:
        return tuple(tomllib.load(fh)["q"])


@cache
def _asked(leave_out: str | None) -> _Asked:
    return _Asked(_topics(), leave_out)


def prepare() -> None:
    """Build the index (topics, jieba's dictionary, bm25s) now, so the first question after a
    start is answered as fast as the rest: the planning processes call it when they start
    (bot/answers.py `ready`)."""
    _index()
    _asked(None)
    _synonym_matcher()
    _tokens("warm 预热")


def _kind(term: str) -> str:
    if term[0] == "~":
        return "bigram"
    if term[0] == "@":
        return "concept"
    if term in _FAMILY_WORDS:
        return "family"
    return "char" if len(term) == 1 and _CJK_RUN.match(term) else "word"


# A model family's bare name ("qwen", "llama") says which model a question is about, not what it
# asks: weighed as a bigram, so "can we fine-tune qwen on 910B?" is the Ascend topic's, not the
# topic whose example questions happen to name Qwen3-30B-A3B.
_FAMILY_WORDS = frozenset({"qwen", "llama", "deepseek", "glm", "mistral", "mixtral", "gemma", "phi", "yi", "baichuan"})


# A number of the question that is one of the thread's plan numbers ("why 1280 GiB of RAM?",
# "is 3.3 GB/s enough?", "why 13 days?") stands for that plan field, found in the topics whose
# answer speaks of it (their plan_fields), at this weight.
PLAN_TERM = "@plan:"
PLAN_WEIGHT = 2.0
# A quoted plan figure that the question asks to change ("we're at 71.5 of 80 GB, how do we get
# headroom back?", "13天能不能压下来") is asked of the topics that tell how to change it (`levers`),
# not of the one that tells where it comes from: its plan term becomes this one.
LEVER_TERM = "@lever:"
_CHANGE = re.compile(
    r"(?<![a-z])(?:reduc\w*|lower\w*|cut\w*|shrink\w*|bring\w* (?:\w+ )?down|get\w* (?:\w+ )?(?:down|back)|"
    r"push\w* (?:\w+ )?(?:up|down)|rais\w*|boost\w*|improv\w*|increas\w*|free\w* up|squeez\w*|headroom|trick\w*)"
    r"|压下来|压到|压缩|降下来|降到|降低|减少|减小|提高|提升|拉高|挤一挤|腾出|省"
)
# The plan's figures a question may quote as numbers: every plan key but its words.
PLAN_WORDS = ("gpu", "network", "interconnect", "currency", "decision", "method", "china_access", "china_access_since")
PLAN_NUMBERS = tuple(k for k in PLAN_KEYS if k not in PLAN_WORDS)
# The plan's text fields whose words with a digit, quoted in a question ("why 8x400G?"), stand for
# that field in the same way (the card shows them; "gpu" is left out: a model name such as
# "H100" is asked about far more often than the plan's choice of it).
PLAN_TEXTS = ("network", "interconnect")
# "8x400G" is eight links of 400G, not a quoted 8: a count glued to "x" and a number is no number.
_NUMBER = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s*(万|k|m)?(?![\d])(?!x\d)", re.I)


# The unit written after a quoted number says which plan fields it can be: "70B" is the model size and
# not the 71.5 GiB per GPU, "8 GB/s" the storage and not the 8 GPUs per node, "40%" off a quote no
# 38% MFU unless MFU is what the question is about. A bare number may be any field, as before. On the
# tuning set (faq_eval.toml) under the test plan, 14 questions quote a plan number; 9 of them had
# their number read as a field of another unit (70B as 71.5 GiB, "8 gpu" as 8 GB/s, "13B" as 13 days).
_UNITS = (
    ("params", re.compile(r"[-\s]*(?:b(?![a-z/])|billion|亿)")),
    ("gbps", re.compile(r"[-\s]*(?:gb/s|gbps|gib/s|g/s)")),
    ("mem", re.compile(r"[-\s]*(?:gib|gb|g)(?![a-z/])")),
    ("tb", re.compile(r"[-\s]*(?:tib|tb|t)(?![a-z/])")),
    ("pct", re.compile(r"\s*%")),
    ("days", re.compile(r"[-\s]*(?:days?|天)")),
    ("kw", re.compile(r"[-\s]*(?:kw|千瓦)")),
    ("gpus", re.compile(r"[-\s]*(?:x\s*)?(?:gpus?|cards?|卡|张|[abhl]\d{2,3}|rtx)")),
    ("nodes", re.compile(r"[-\s]*(?:nodes?|servers?|boxes|box|machines?|hosts?|台|节点)")),
    ("cores", re.compile(r"[-\s]*(?:cores?|vcpus?|threads?|(?:个|颗)?核)")),
    ("months", re.compile(r"[-\s]*(?:months?|个月|月)")),
    ("hours", re.compile(r"[-\s]*(?:gpu[-\s]?hours?|card[-\s]?hours?|卡时|h(?![a-z]))")),
)
_FIELD_UNIT = {
    "params_b": "params",
    "mem_per_gpu_gib": "mem",
    "gpu_mem_gib": "mem",
    "ram_gib_per_node": "mem",
    "storage_read_gb_s": "gbps",
    "nvme_tb_per_node": "tb",
    "mfu_pct": "pct",
    "over_peft_pct": "pct",
    "days": "days",
    "power_kw_per_node": "kw",
    "gpu_count": "gpus",
    "gpus_per_node": "gpus",
    "nodes": "nodes",
    "cpu_cores_per_node": "cores",
    "breakeven_months": "months",
    "gpu_hours": "hours",
}
# A terabyte of host memory is a thousand of the plan's GiB ("1.28 TB of RAM" is 1280 GiB).
_ALSO_AS = {"tb": (("mem", 1000),)}


def _plan_fields_asked(question: str, plan: dict | None) -> list[str]:
    """The plan fields whose number the question quotes (as the card rounds it: 12.52 days is
    "13 days"; ¥5,077,848 may be "5.08M" or "508万") in a unit that fits the field (_UNITS), or
    whose text it quotes (PLAN_TEXTS). Small counts (1 to 3) say too little."""
    return list(dict.fromkeys(name for name, _ in _plan_quotes(question, plan)))


def _plan_quotes(question: str, plan: dict | None) -> list[tuple[str, tuple[int, int] | None]]:
    """Each plan field the question quotes (see `_plan_fields_asked`) with the span of the number
    that quotes it in the normalised question (None for a quoted text)."""
    if not plan:
        return []
    scale = {"万": 1e4, "k": 1e3, "m": 1e6, None: 1}  # "70B" is params_b 70: no scale for B
    text = _normalise(question)
    # each number with its unit (None when bare) and its span
    said: list[tuple[float, str | None, tuple[int, int]]] = []
    for m in _NUMBER.finditer(text):
        try:
            value = float(m.group(1).replace(",", "")) * scale[(m.group(2) or "").lower() or None]
        except ValueError:
            continue
        unit, end = None, m.end()
        if not m.group(2):
            found = next(((u, rx.match(text, m.end())) for u, rx in _UNITS if rx.match(text, m.end())), None)
            if found:
                unit, end = found[0], found[1].end()
        # the span covers the unit too: "days" of "13 days" is the quoted figure's, as "13" is
        span = (m.start(), end)
        said.append((value, unit, span))
        said.extend((value * factor, other, span) for other, factor in _ALSO_AS.get(unit, ()))
    out: list[tuple[str, tuple[int, int] | None]] = []
    for name in PLAN_NUMBERS:
        value = plan.get(name)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 3:
            continue
        out.extend(
            (name, span)
            for v, unit, span in said
            if v > 3
            and unit in (None, _FIELD_UNIT.get(name))
            and abs(v - value) <= max(0.06 * value, 0.5 if value < 20 else 0)
        )
    words = {p for parts in _ascii_groups(text) for p in parts}
    out.extend(
        (name, None) for name in PLAN_TEXTS if isinstance(plan.get(name), str) and words & _plan_words(plan[name])
    )
    return out


def _plan_words(value: str) -> set[str]:
    """The words of a plan's text value that name it rather than any plan: three characters or
    more with a digit ("8x400g", "400"), not "roce" or "nvlink", which any question may say."""
    return {p for parts in _ascii_groups(_normalise(value)) for p in parts if len(p) >= 3 and re.search(r"\d", p)}


class _Query(dict):
    """A question's terms with their weights, and for each term the aspect of the question it
    comes from (`aspect`: term -> number)."""

    aspect: dict[str, int]
    # the words of the question that are a quoted plan number ("70b" of "our 70B" under a 70B plan):
    # they speak of the plan, not of a topic, when the question's other words stand clear
    plan_words: set[str]


def _aspects(spans: list[tuple[str, int, int]]) -> list[int]:
    """For each span, its aspect: the words and concepts whose spans overlap are one aspect
    ("张量并行": 张量, 并行, 张量并行, @tensor_parallel, @parallel), and a pair or bigram belongs to
    the first aspect it overlaps."""
    anchors = sorted((a, b) for term, a, b in spans if _kind(term) != "bigram")
    groups: list[list[int]] = []  # [start, end] of each aspect; the anchors' first, in text order
    for a, b in anchors:
        if groups and a < groups[-1][1]:
            groups[-1][1] = max(groups[-1][1], b)
        else:
            groups.append([a, b])
    out = []
    for _, a, b in spans:
        found = next((i for i, (ga, gb) in enumerate(groups) if a < gb and ga < b), None)
        if found is None:
            groups.append([a, b])
            found = len(groups) - 1
        out.append(found)
    return out


def _query_terms(question: str, plan: dict | None = None) -> _Query:
    """Query terms with their weights and aspects; a misspelt word stands for its corrections; a
    number of the thread's plan for that plan field."""
    index = _index()
    text = _normalise(question)
    terms = _Query()
    terms.aspect = {}
    terms.plan_words = set()

    def add(term: str, weight: float, aspect: int) -> None:
        terms[term] = min(terms.get(term, 0.0) + weight, 2 * weight)
        terms.aspect.setdefault(term, aspect)

    spans = _spans(text)
    aspects = _aspects(spans)
    quotes = _plan_quotes(question, plan)
    # a figure asked to change, or GPU memory that is short ("OOM on the 80GB cards")
    change = _CHANGE.search(text) or any(term == "@memsave" for term, _, _ in spans)
    levers = _levers() if change else set()
    for name in dict.fromkeys(name for name, _ in quotes):
        term = (LEVER_TERM if name in levers else PLAN_TERM) + name
        add(term, PLAN_WEIGHT, -1 - len(terms))  # each plan field an aspect of its own
    numbers = [span for _, span in quotes if span]
    terms.plan_words = {t for t, a, b in spans if _kind(t) != "bigram" and any(a < y and x < b for x, y in numbers)}
    misspelt = set()
    for match in _ASCII_WORD.finditer(text):
        for word in (p for p in re.split(r"[-_./+]", match.group()) if p):
            fixes = index.correct(word)
            if fixes:
                misspelt.add(_stem(word))
                aspect = next((x for (_, a, _), x in zip(spans, aspects) if a == match.start()), -1 - len(terms))
                for fix in fixes:
                    add(fix, TYPO_WEIGHT / len(fixes), aspect)
    # a figure asked to change stands for its lever topics alone: its number and unit ("13 days")
    # would pull back to the topics that speak of days at all
    changed = [span for name, span in quotes if span and name in levers]
    phrases = _idiom_spans(text, spans)
    for (term, a, b), aspect in zip(spans, aspects):
        if term not in misspelt and not any(a < y and x < b for x, y in changed):
            inside = _kind(term) == "word" and any(x <= a and b <= y for x, y in phrases)
            add(term, KIND_WEIGHTS[_kind(term)] * (IDIOM_WORD_WEIGHT if inside else 1.0), aspect)
    return terms


def _idiom_spans(text: str, spans: list[tuple[str, int, int]]) -> list[tuple[int, int]]:
    """The spans of English synonym forms of several words whose words alone name no concept
    ("falling over": a node failing, not prices falling)."""
    pattern, concepts = _synonym_matcher()
    out = []
    for match in pattern.finditer(text):
        words = _PLAIN_WORD.findall(match.group())
        if len(words) > 1 and not any(concepts.get(w) for w in words):
            out.append((match.start(), match.end()))
    return out


@cache
def _levers() -> frozenset[str]:
    """The plan fields some topic tells how to change."""
    return frozenset(name for t in _topics() for name in t.levers)


def _verbatim_key(text: str) -> str:
    return "".join(ch for ch in _normalise(text) if ch.isalnum())


def _verbatim(question: str, leave_out: str | None = None) -> int | None:
    """The position of the topic whose title or example question, or whose asked question (but
    `leave_out`'s), the question is word for word; None when it is none of them."""
    key = _verbatim_key(question) or "-"
    own = _index().verbatim.get(key)
    return own if own is not None else _asked(leave_out).verbatim.get(key)


class _Scores(NamedTuple):
    aspects: list[list[str]]  # the question's aspects, each as its terms that either index knows
    own: np.ndarray  # the score of each topic's own text from each aspect (a row per aspect)
    fused: np.ndarray  # the same with the questions asked of each topic (ASKED_WEIGHT)


def _scores(terms: dict[str, float], leave_out: str | None = None) -> _Scores:
    """The question's aspects (see ASPECT_REST; a plain dict of terms has none: each term is its own)
    and the score each gives every topic, from its own text and with the questions asked of it."""
    index, asked = _index(), _asked(leave_out)
    aspect_of = getattr(terms, "aspect", {})
    groups: dict[object, list[str]] = {}
    for term in terms:
        if term in index.idf or term in asked.known:
            groups.setdefault(aspect_of.get(term, term), []).append(term)
    aspects = list(groups.values())
    own = index.aspect_matrix(terms, aspects)
    fused = (own + ASKED_WEIGHT * asked.aspect_matrix(terms, aspects)) / (1 + ASKED_WEIGHT)
    return _Scores(aspects, own, fused)


def rank(
    question: str, terms: dict[str, float] | None = None, verbatim: bool = True, leave_out: str | None = None
) -> list[tuple[str, float]]:
    """Every topic id with its raw BM25 score (its own text and the questions asked of it), best
    first (ties keep the file's order); `leave_out` names a set of data/faq/asked.toml whose
    questions are not among those asked.

    A topic's own title or example question, or a question asked of it, asked word for word puts
    that topic first (two of the 360 example questions would otherwise lose to a close neighbour);
    `verbatim=False` turns that off, so tests measure the retrieval alone."""
    scores = _scores(_query_terms(question) if terms is None else terms, leave_out)
    return _ranked(question, [float(x) for x in scores.fused.sum(axis=0)], verbatim, leave_out)


def _ranked(
    question: str, scores: list[float], verbatim: bool = True, leave_out: str | None = None
) -> list[tuple[str, float]]:
    own = _verbatim(question, leave_out) if verbatim else None
    if own is not None:
        scores = [*scores]
        scores[own] = max(scores) * VERBATIM_BONUS
    ids = [t.id for t in _topics()]
    return sorted(zip(ids, scores), key=lambda p: -p[1])


# --------------------------------------------------------------------------- answer


def topics() -> tuple[Topic, ...]:
    """Every FAQ topic, in the file's order."""
    return _topics()


def language_of(question: str) -> str:
    """'zh' when the question has Chinese characters or full-width punctuation, else 'en'."""
    return "zh" if _CHINESE_HINT.search(question or "") else "en"


@cache
def _snippet(topic_id: str, lang: str) -> Template | None:
    topic = next(t for t in _topics() if t.id == topic_id)
    source = topic.plan_zh if lang == "zh" else topic.plan_en
    return environment(lang).from_string(source) if source.strip() else None


def plan_note(topic_id: str, plan: dict, lang: str) -> str:
    """The topic's plan snippet rendered with `plan`; '' when the topic has none or the
    plan lacks what it needs. Missing plan variables are passed as None."""
    template = _snippet(topic_id, lang)
    if template is None:
        return ""
    context = dict.fromkeys(PLAN_KEYS)
    context.update(plan)
    return template.render(**context).strip()


def speaks_of(topic_id: str, word: str) -> bool:
    """Whether a topic's own text holds a word, or its stem or concept, as a real word ("电费" of
    the electricity topic), not only a loose character or an asking word."""
    position = [t.id for t in _topics()].index(topic_id)
    shared = _index().matched(_query_terms(word), position)
    return any(_kind(t) in ("word", "concept") and t not in ASKING_ONLY and t not in AMBIGUOUS_ONLY for t in shared)


def _on_topic(question: str, terms: dict[str, float], topic_id: str, leave_out: str | None = None) -> bool:
    """The topic's own text shares a real word or concept with the question, not only "how long" or
    loose Chinese characters. A topic's own example question, or one asked of it, is always on
    topic."""
    position = [t.id for t in _topics()].index(topic_id)
    if _verbatim(question, leave_out) == position:
        return True
    shared = _index().matched(terms, position)
    return any(
        _kind(term) in ("word", "concept") and term not in ASKING_ONLY and term not in AMBIGUOUS_ONLY for term in shared
    )


def _foreign_words(question: str, terms: dict[str, float], leave_out: str | None = None) -> list[str]:
    """The question's words no topic's own text uses: not numbers or model names ("4x", "h20"),
    not the forms of a synonym group ("overnight"), not a word for word example question. (A word
    only a question asked before holds, a place name in one of them, is still foreign.)"""
    if _verbatim(question, leave_out) is not None:
        return []
    _, concepts = _synonym_matcher()
    return [
        term
        for term in terms
        if _kind(term) == "word" and term not in _index().idf and term not in concepts and not re.search(r"\d", term)
    ]


def _second_topic(
    question: str,
    aspects: list[list[str]],
    matrix: np.ndarray,
    ranked: list[tuple[str, float]],
    leave_out: str | None = None,
) -> int | None:
    """The position of the runner-up topic when the question spans it and the best topic (see
    SECOND_RATIO): it scores close to the best, and a share of its score comes from aspects of the
    question that it is about and the best topic holds much less. `matrix` is the topics' own text's
    (`_Scores.own`): what a topic is about is its own text, while questions asked of it often touch
    a neighbour too ("ckpt放本地盘还是放共享存储" is asked of checkpoints). None for an example
    question asked word for word, which is about its topic alone."""
    index = _index()
    if _verbatim(question, leave_out) is not None:
        return None
    position = {t.id: i for i, t in enumerate(_topics())}
    best, runner = position[ranked[0][0]], position[ranked[1][0]]
    totals = matrix.sum(axis=0)
    if totals[best] <= 0 or totals[runner] < SECOND_RATIO * totals[best]:
        return None
    about = index.about[runner]
    own = sum(
        row[runner]
        for terms, row in zip(aspects, matrix)
        if row[best] < SECOND_WEAKER * row[runner]
        and any(_kind(t) in ("word", "concept") and t not in ASKING_ONLY and t in about for t in terms)
    )
    return runner if own >= SECOND_SHARE * totals[runner] else None


def _content_first(terms: _Query, aspects: list[list[str]], matrix: np.ndarray) -> list[int]:
    """The rows (aspects) of the question to score: those without its quoted plan numbers (the plan
    fields and the number's own word, "70b") when its other words already stand clear on a topic: a
    score a question with words of its own needs (SURE_SCORE) and the margin of a confident answer
    (MIN_MARGIN); else all of them.
    ("we keep hitting OOM at 8k context on the 80GB cards": without "80gb" the rest leans weakly on
    "8k", so the plan's GPU memory stays in.) A plan number leads to the topics whose answer speaks
    of that field ("why 13 days?"), but it should not pull a question whose words are about
    something else ("is FP8 stable enough for our 70B?") to the topic about 70B models."""
    every = list(range(len(aspects)))
    quoted = terms.plan_words
    words = [
        i
        for i, found in enumerate(aspects)
        if not all(t.startswith(PLAN_TERM) or t in quoted or _kind(t) == "bigram" for t in found)
    ]
    # what the words are about: "how long"/"days" alone point nowhere ("why does it take 13 days?")
    about = [i for i in words if any(_kind(t) in ("word", "concept") and t not in ASKING_ONLY for t in aspects[i])]
    if len(words) == len(aspects) or not about:
        return every
    totals = np.sort(matrix[about].sum(axis=0))[::-1]
    best, runner = float(totals[0]), float(totals[1])
    return words if best / (best + SCORE_HALF) >= SURE_SCORE and best - runner >= MIN_MARGIN * best else every


def answer(
    question: str,
    lang: str | None = None,
    plan: dict | None = None,
    leave_out: str | None = None,
    topic: str | None = None,
    second_part: bool = True,
) -> FaqAnswer:
    """Answers one follow-up question in `lang` ('en' or 'zh'; None: the question's own
    language). With a `plan` (keys as PLAN_KEYS, any may be missing or None) the topic's
    note on that plan follows the general answer. A question that spans two topics (see
    SECOND_RATIO) gets a short second part from the runner-up (`second`). Never raises on odd
    questions: when unsure, the text says so and names the closest topics. `leave_out` names a
    set of data/faq/asked.toml whose questions are not among those asked, so tests and benchmarks
    score that set on questions the FAQ has not seen. `topic` names the topic a caller has already
    read the question to be about (a thread's off-peak question): answered as sure, whatever its
    words score. `second_part=False` answers the best topic alone (a question on one word beside a
    request, whose other words describe the job, not a second subject)."""
    if lang not in (None, "en", "zh"):
        raise ValueError(f"lang must be 'en', 'zh' or None, not {lang!r}")
    question = question or ""
    lang = lang or language_of(question)
    terms = _query_terms(question, plan)
    scores = _scores(terms, leave_out)
    rows = _content_first(terms, scores.aspects, scores.fused)
    aspects, own = [scores.aspects[i] for i in rows], scores.own[rows]
    ranked = _ranked(question, [float(x) for x in scores.fused[rows].sum(axis=0)], leave_out=leave_out)
    by_id = {t.id: t for t in _topics()}
    if topic is not None:
        ranked = [r for r in ranked if r[0] == topic] + [r for r in ranked if r[0] != topic]
    (best_id, best), (_, second), (_, third) = ranked[:3]
    # How sure, from the best topic's own text: the thresholds were chosen on it, and a word that only
    # a question asked before holds (a place name in "成都电价真的便宜吗") proves nothing of an
    # off-topic question ("上海到成都的机票多少钱"). An example asked word for word is sure.
    position = [t.id for t in _topics()].index(best_id)
    sure = best if _verbatim(question, leave_out) is not None else float(own[:, position].sum())
    score = sure / (sure + SCORE_HALF)
    sure_enough = (
        score >= MIN_SCORE
        and _on_topic(question, terms, best_id, leave_out)
        and (score >= SURE_SCORE or not _foreign_words(question, terms, leave_out))
    )
    runner = _second_topic(question, aspects, own, ranked, leave_out) if sure_enough and second_part else None
    also = _topics()[runner] if runner is not None and _on_topic(question, terms, ranked[1][0], leave_out) else None
    # Sure of one topic when it stands clear of the runner-up; of a question that spans two
    # (a second part) when the pair stands clear of the third topic.
    confident = topic is not None or (
        sure_enough
        and (best - second >= MIN_MARGIN * best or (also is not None and second - third >= MIN_MARGIN * second))
    )
    if not confident:
        also = None
    matched = score >= MATCH_SCORE or topic is not None  # (a topic the caller read is the question's)
    topic = by_id[best_id]
    alternatives = [TopicRef(id=tid, title=by_id[tid].title(lang)) for tid, _ in ranked[1:3]]
    note = plan_note(best_id, plan, lang) if plan is not None and matched else ""
    text = render(
        "faq.j2",
        lang,
        confident=confident,
        matched=matched,
        title=topic.title(lang),
        body=topic.body(lang, plan),
        note=note,
        alternatives=[a.title for a in alternatives],
        also_title=also.title(lang) if also else "",
        also_text=also.brief(lang) if also else "",
        also_note=plan_note(also.id, plan, lang) if also and plan is not None else "",
    )
    return FaqAnswer(
        topic=best_id,
        title=topic.title(lang),
        answer=text,
        score=round(score, 3),
        confident=confident,
        alternatives=alternatives,
        used_plan=bool(note),
        lang=lang,
        second=TopicRef(id=also.id, title=also.title(lang)) if also else None,
    )
