"""Answers in a thread under a plan. Each message goes to the ability that answers it:

- a price ("is ¥95000/month for 8xH800 fair?") to the quote judge (nothing is recorded);
- another market ("how much on AWS?", "in dollars?") to a re-plan in that market;
- a what-if ("what if 30 days?", "用LoRA呢?") to the planner, saying what changed and why
  the GPU changed when it did;
- "why not H20?" to a re-plan on that GPU, said as a comparison with the chosen plan;
- "how did you get 13 days?", "why ¥1,560?", "这个数字哪来的" to that part of the plan's arithmetic,
  one-line answer first; "why 8 GPUs?" to the plan on the counts around the chosen one;
- the plan's servers and storage, its vendors (the offers on record that can deliver it), its
  risks (warnings and checks) and its request for quote to those parts of the plan (`kind="part"`);
- the rest to the FAQ, answered only when the match is confident or the bot was @mentioned.

The bot speaks only when spoken to: thanks, agreement and chatter get `kind="silent"`.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from typing import Literal

from pydantic import BaseModel

from advisor import catalog
from advisor.engine.memory import GIB
from advisor.engine.setup import DEFAULT_LORA_RANK
from advisor.engine.shapes import generic_shape
from advisor.knowledge import faq
from advisor.market.owning import CLUSTER_EXTRA, is_workstation, owning
from advisor.market.prices import HOURS_PER_MONTH, SIBLINGS, PriceBook, current_prices
from advisor.market.purchase_quotes import purchase_quote
from advisor.market.quotes import QuoteJudgement, judge, parse_quote
from advisor.market.rent_or_buy import LIFE_MONTHS, rent_against_owning, rent_or_buy
from advisor.planning import plan_answers, reasons
from advisor.planning.advice import (
    CHINCHILLA_TOKENS_PER_PARAM,
    MOST_COMPARED,
    Advice,
    advise,
    advise_request,
    compare,
    off_cloud,
    plan_context,
    render_checklist,
    render_comparison,
    render_rfq,
)
from advisor.planning.budget_capacity import largest_for_budget
from advisor.planning.capacity import EXAMPLE_SHARE, LARGEST_B, example_b, largest_models
from advisor.planning.checklist import pilot_gpus, pilot_hours
from advisor.planning.engine_inputs import model_shape
from advisor.planning.planner import DEADLINE_SLACK
from advisor.planning.rent import (
    DAYS_PER_MONTH,
    GPUS_PER_SERVER,
    INSTANCE_RAM_GB_PER_GPU,
    RESERVED_DISCOUNT,
    RESERVED_DISCOUNT_HIGH,
    as_sold,
    instance_gpus,
    instance_why_not,
    job_months,
    rent_plan,
    reserved_discount,
)
from advisor.planning.span_capacity import example_in_span, largest_in_span
from advisor.request import fields
from advisor.request.canonical import canonical, network_words
from advisor.request.model import Note, TrainingRequest
from advisor.request.parser import (
    PLACES_ABROAD_EN,
    PLACES_ABROAD_ZH,
    SERVING,
    RequestError,
    asks_specs,
    data_said,
    detect_lang,
    gpus_said,
    holds_a_plan,
    model_said,
    money_said,
    network_said,
    other_variants,
    parse,
    parse_followup,
    span_said,
    spelled,
    value_of,
)
from advisor.text.render import big, money, num, phrase, render
from advisor.text.render import word as note_words

# Headline numbers compared between the first plan and the what-if.
COMPARED = (
    "gpu",
    "gpu_count",
    "nodes",
    "days",
    "gpu_hours",
    "mem_per_gpu_gib",
    "rent_total",
    "buy_capex",
    "framework",
    # the split, so a what-if that moves it says so ("seq 8192?" had shown memory falling, not why)
    "tp",
    "pp",
    "dp",
    "ep",
)

# Asking where a number of the plan comes from ("how did you get 13 days?", "why 8 GPUs?", "why
# ¥1,560?", "显存怎么算的", "这个数字哪来的"). "why not ..." is a comparison, not this.
ASKS_HOW = re.compile(
    r"how (?:did|do) you (?:get|come up with|arrive at|work out)|where (?:does|do|did) .* come from"
    r"|how (?:is|are|was|were) .* (?:calculated|computed|estimated|worked out)"
    r"|why\b(?!\s+not\b).{0,20}?\b(?:so|this|that|these|those) (?:many|much|long|slow|big|large)"
    r"|why (?:so|this|that) (?:expensive|pricey|costly)"
    r"|\bwhy\b(?!\s+not\b)(?!\s+(?:don'?t|didn'?t|no)\b)[^?？]{0,30}?(?:[¥$]\s*\d|(?<![A-Za-z\d])\d)"
    # a part of the spec doubted ("is the storage overkill?", "do we really need that much RAM?")
    r"|\b(?:is|are)\s+(?:the|this|that|so much|all (?:that|this))?\s*(?:\w+\s+){0,2}?"
    r"(?:really\s+)?(?:necessary|needed|required|overkill|over-kill|too (?:much|big|many|large|fast))"
    r"|do (?:we|i) (?:really )?need (?:that|this|so) (?:much|many|big|large|fast)"
    r"|怎么算|怎么来的|怎么得出|怎么得到|怎么估|如何算|哪来的|哪里来的|从哪(?:里|儿)?来|依据是什么"
    # the plan as a whole ("why this plan?", "why did you choose this?", "为什么选这个配置"): its overview,
    # each number with where it comes from (they had drawn the menu)
    r"|^\W*(?:but\s+|so\s+|and\s+)?why\s+(?:(?:did|do)\s+you\s+)?(?:(?:choose|chose|pick|recommend|suggest|go\s+with)\s+)?"
    r"(?:this|that|these|the|your)\s+(?:plan|setup|set-up|configuration|config|layout|choice|option|servers"
    r"|cluster|recommendation|combination|design)s?\W*$"
    r"|^\W*why\s+(?:did|do)\s+you\s+(?:choose|pick|recommend|suggest|go\s+with)\s+(?:this|that|it)\W*$"
    r"|\bexplain\s+(?:your|the|this)\s+(?:reasoning|logic|choice|recommendation|plan)\b"
    r"|\bhow\s+did\s+you\s+(?:pick|choose|decide\s+on|arrive\s+at|come\s+to)\s+(?:this|that|it|the\s+plan)\b"
    r"|(?:为什么|为啥|凭什么)(?:要)?(?:选|用|是|推荐|给)?了?(?:这个|这套|这种|这样的?)(?:配置|方案|组合|布局|设计|搭配)"
    r"|为什么这么(?:配|选|安排|设计)|为什么这样(?:配|选|安排|设计)"
    r"|(?:方案|配置)(?:是)?(?:怎么|如何)(?:选|定|挑|决定)(?:出来)?的"
    # a part checked again ("can you double check the memory?", "sanity-check the cost")
    r"|\b(?:double[\s\-]?check|re-?check|sanity[\s\-]?check)\b"
    r"|\bverify\s+(?:the\s+|these\s+|your\s+)?(?:numbers|math|memory|costs?|time|estimates?|arithmetic)\b"
    r"|(?:再)?(?:核对|复核|核实|检查)(?:一下)?(?:这些|这个)?(?:数字|显存|成本|费用|时间|估算)"
    # the working asked to be shown ("can you show me the math for the memory?", "walk me through the cost")
    r"|\b(?:show|give|walk)\s+(?:me|us)\s+(?:the\s+|your\s+)?(?:math|maths|arithmetic|calculations?|working|numbers)\b"
    r"|\bwalk\s+(?:me|us)\s+through\b|\bshow\s+(?:your|the)\s+(?:math|maths|working|work)\b"
    # a breakdown asked ("成本拆一下", "费用明细", "break down the cost", "cost breakdown")
    r"|(?:拆|分解|拆分|细分)一下|(?:拆|分解)开(?:看|来)|明细|细项|分项"
    r"|\bbreak\s+(?:it\s+|this\s+|that\s+|the\s+\w+\s+)?down\b|\bbreakdown\b|\bitemi[sz]e"
    r"|有必要.{0,10}(?:这么|那么)|真的需要(?:这么|那么)|是不是太(?:多|大|贵|快)了?"
    r"|为什么(?:要|是|需要|用)?\s*[¥$]?\s*\d|为什么.{0,8}?这么(?:多|久|贵|慢|大)|怎么(?:要)?这么(?:多|久|贵|慢|大)"
    # a count said with "only" or in words ("为什么只用一张卡", "为啥只要1台"; the first had drawn the
    # FAQ on sharing one card, the second why a 70B model needs 8 GPUs)
    r"|(?:为什么|为啥)(?:只|就|仅)(?:要|是|需要|用|选)?了?\s*(?:\d+|[一两二三四五六七八九十]+)\s*(?:张|台|块|个)"
    r"|(?:为什么|为啥)(?:要|是|需要|用|选)了?\s*[一两二三四五六七八九十]+\s*(?:张|台|块)"
    r"|\bwhy\s+(?:only|just)\s+(?:one|two|three|four|a\s+single|a)\s+(?:gpus?|cards?|servers?|nodes?|machines?)\b"
    # the plan's own duration, asked with nothing changed ("how long does it take?", "训练要多久")
    r"|^\W*(?:so\s+)?how long (?:does|will|would|did) (?:it|this|that|the (?:job|run|training|plan)) (?:take|run)"
    r"(?: to (?:train|finish|run))?"
    # "how long will it take on our GPUs?": the plan's own, on the GPUs it already runs on
    r"(?:\s+(?:on|with)\s+(?:our|the|these|those|my)\s+(?:own\s+)?(?:gpus|cards|servers|cluster|machines|hardware))?"
    r"\W*$|^\W*how long\W*$"
    r"|^\W*(?:(?:用|在)(?:我们|咱们)?(?:自己|现有)?的?(?:卡|gpu|GPU|机器|服务器)上?(?:跑|训)?)?"
    r"(?:这个|整个)?(?:训练|任务|方案|跑完|训完)?(?:总共|一共|大概)?(?:要|需要|得)?(?:花)?(?:多久|多长时间)(?:呢|啊|能跑完|能训完)?\W*$",
    re.I,
)
# The plan's memory or count, asked outright ("how much memory per GPU?", "显存多少", "how many
# servers?", "几台"): its arithmetic, not the rent ("per GPU?" had read as a question on terms).
ASKS_MEMORY = re.compile(
    r"how much (?:gpu |vram |card )?memory|memory (?:per|a|on each) (?:gpu|card)|\bvram\b.{0,15}(?:need|use|per|how)"
    r"|显存(?:要|需要|占用|用)?(?:多少|多大|够不够|够吗)|每(?:张)?卡(?:的)?显存"
    # the plan's own figure asked about: "为什么显存59G", "显存为什么要52G", "why 52 GiB per GPU?"
    r"|(?:为什么|为啥|怎么)(?:要|会|需要)?\s*(?:占|用)?\s*显存.{0,6}\d|显存.{0,6}(?:为什么|为啥|怎么算)"
    r"|\d+(?:\.\d+)?\s*g(?:ib|b)?\s*(?:的)?显存.{0,6}(?:为什么|为啥|怎么算|怎么来)"
    r"|\bwhy\b.{0,15}\d+(?:\.\d+)?\s*gi?b\b.{0,15}(?:per\s+gpu|memory|vram|each)"
    # "显存70.7G会不会爆", "will it OOM?", "is 52 GiB cutting it close?": the plan's memory against the card's
    # ("显存73.4/79.7太满了吧，会不会爆": the figures quoted between)
    r"|显存.{0,24}?(?:会不会爆|会爆吗|爆不爆|够不够|够吗|紧不紧|太满|太紧)|会不会爆显存|爆显存吗"
    r"|\b(?:will|would|could) (?:it|this|that|we|the (?:job|run|plan)) (?:oom|run out of (?:gpu )?memory)\b"
    r"|\b(?:cutting it close|enough headroom|memory headroom)\b"
    # "how does 671B fit on 5090s?", "32G的卡怎么放得下671B": how the plan holds the model
    r"|\bhow (?:does|do|can|could|would|will) .{0,30}\bfit\b"
    # "does it fit on H100 at 128k?" of the plan's own GPU and length: its memory (what changes is a what-if)
    # (in a rack it is the servers' room: "will this fit in one rack?", "一个机柜放得下吗")
    r"|\b(?:does|will|would|can|do) (?:it|this|that|we|the (?:model|job|plan|run)) (?:still |even )?fit\b"
    r"(?!\s+(?:in|into|on)\s+(?:one|a|a single|\d+|our|the)\s+racks?\b)"
    r"|怎么(?:能)?(?:放|装|塞)得(?:下|进)|(?<!机柜)(?:放|装|塞)得(?:下|进)(?:吗|么)",
    re.I,
)
# The plan doubted outright ("671B on 5090s?? is that real", "真的假的"): how the model fits where
# the plan offloads it, else how sure its time is
DOUBTED = re.compile(
    r"\bis (?:that|this|it) (?:for )?real\b|\bare you sure\b|\bcan'?t be right\b"
    r"|真的假的|真的(?:可以|能|行)(?:吗|么)?|不可能吧|确定(?:吗|么)|这(?:也)?(?:能|可以)(?:跑|行)(?:吗|么)?",
    re.I,
)
# The tokens a day asked ("how many tokens per day is that", "每天能训多少token")
TOKENS_A_DAY = re.compile(r"tokens?\s*(?:per|/|a)\s*day\b|(?:每天|一天).{0,6}token|token.{0,4}(?:每天|一天)", re.I)
# Bargaining over the plan's rent ("这个价格能砍吗", "any room to negotiate?", "有折扣吗") or asking how
# it is billed ("按小时还是按月"): the costs' arithmetic led by the levers on record (the latter had
# been read as a one-month lease, re-priced)
PRICE_TALK = re.compile(
    r"砍价|能砍|砍一?砍|砍下来|砍到|讲价|议价|还价|谈价|压价|有(?:没有)?(?:折扣|优惠)|打折|能打几折"
    r"|\bnegotia(?:t|ble)|\bhaggle|\bbargain|\b(?:price|rent|quote)\s+(?:is\s+)?(?:flexible|firm|final)\b|"
    r"\b(?:any|a|get a|volume)\s+discount|wiggle room|room to (?:negotiate|move)"
    r"|push (?:them|the vendor|back) on (?:the )?price"
    r"|(?:按|是)(?:小时|卡时)(?:计费)?还是(?:按)?月|按月(?:计费)?还是(?:按)?(?:小时|卡时)"
    r"|\b(?:hourly or monthly|monthly or hourly|per hour or (?:per )?month|by the hour or (?:by )?the month)\b",
    re.I,
)
# The data's tokens asked ("what token count did you assume?", "每条按多少token算的", "1TB按多少token算"):
# how the request's data became tokens, then the time's arithmetic (had been the doubling what-if)
# Samples packed into sequences asked about: the plan's own assumption, and what padding would cost
PACKING = r"\bpack(?:ing|ed)?\b|\bpadding[\s_-]?free\b|打包|拼接"
ASKS_TOKENS = re.compile(
    r"\b(?:token count|how many tokens|tokens? per (?:sample|example|row|conversation))\b.{0,30}"
    r"\b(?:assum\w*|us(?:e|ed|ing)|count(?:ed)?|take|took)\b"
    r"|\bassum\w*\b.{0,25}\btokens?\b(?!\s*(?:per|a|/)\s*(?:day|second|sec|s)\b)"
    r"|(?:按|算|假设)(?:了)?(?:每条)?多少(?:个)?token|多少(?:个)?token.{0,4}(?:算|假设)|token数.{0,6}(?:怎么算|按多少|假设)"
    # "how did the samples become tokens?", and packing asked ("can we use sequence packing?", "样本要拼接吗")
    r"|\b(?:samples?|examples?|data|rows?)\b.{0,20}\bbec(?:o|a)me\b.{0,8}\btokens?\b"
    # the plan's own count asked ("how many tokens is that?", "how many tokens in total?", "一共多少token"),
    # not how much a model wants ("how many tokens do we need?": DATA_WANTED, the FAQ's)
    r"|^\W*(?:so\s+|and\s+)?how many (?:tokens|samples|examples)\b(?:\s+(?:is|are|was|were) (?:that|this|it|there)"
    r"|\s+(?:in total|in all|total|overall|altogether))?\s*(?:then|again|exactly)?\s*[?？.!]*\s*$"
    r"|^\W*(?:这|那)?(?:一共|总共|总计|折合|相当于)?(?:是|有)?多少(?:个)?(?:token|tokens)(?:呢|啊|吧)?\s*[?？]*\s*$|"
    + PACKING,
    re.I,
)
# What limits the plan's speed ("what's the bottleneck here, compute or network?", "is it comm
# bound?", "瓶颈在哪"): the step's largest term named, then the time's arithmetic
# The active parameters asked ("你按多少激活参数算的", "how many active parameters did you assume?")
ACTIVE_ASKED = re.compile(r"激活参数|激活量|active\s+param|activated\s+param|params?\s+active", re.I)
BOTTLENECK = re.compile(
    r"\bbottle-?neck|\b(?:compute|comm(?:unication)?|network|memory|bandwidth|io|i/o)[- ]bound\b"
    r"|\bcompute or (?:the )?(?:network|comm)|\b(?:network|comm) or compute\b|\bwhat(?:'s| is) (?:limiting|holding)"
    r"|瓶颈|卡在(?:哪|什么)|受限于|算力还是(?:网络|通信|带宽)|(?:网络|通信|带宽)还是算力",
    re.I,
)
# The pilot's price asked ("试跑要多少钱", "how much would a pilot cost?")
PILOT_COST = re.compile(
    r"(?:\bpilot|\btrial\s+run|试跑|试用)[^?？]{0,20}(?:\bcost|\bhow much|\bprice|多少钱|费用|花多少|要多少)"
    r"|(?:\bhow much|\bcost of|多少钱)[^?？]{0,20}(?:\bpilot|\btrial\s+run|试跑)",
    re.I,
)
# A margin put on the rent ("what's the cost if we include a 20% buffer?", "add 10% contingency", "预留20%余量")
COST_BUFFER = re.compile(
    r"(\d{1,2})\s*%\s*(?:buffer|contingency|margin|headroom|safety|余量|冗余|预算余量|的余量)"
    r"|(?:buffer|contingency|margin|headroom|余量|冗余)\s*(?:of\s*)?(\d{1,2})\s*%",
    re.I,
)
# An MFU supposed ("what if MFU is only 30%?", "at 35% MFU?", "MFU按30%算呢"): the plan's time at it
MFU_IF = re.compile(
    r"\b(?:if|at|with|assum\w*|suppose|say)\b[^?？]{0,20}?\bmfu\b[^?？\d]{0,20}(\d{1,2}(?:\.\d+)?)\s*%"
    r"|\b(?:if|at|with|assum\w*|suppose|say)\b[^?？]{0,10}?(\d{1,2}(?:\.\d+)?)\s*%\s*mfu\b"
    # (利用率 alone is the owned servers' use, "如果利用率只有30%呢" under a plan to buy: own_utilisation)
    r"|(?:如果|假如|要是|按)[^?？]{0,10}?(?:mfu|算力利用率|gpu\s*利用率)[^?？\d]{0,8}(\d{1,2}(?:\.\d+)?)\s*%"
    r"|(?:mfu|算力利用率)\s*(?:只有|只|才|按|是)?\s*(\d{1,2}(?:\.\d+)?)\s*%\s*(?:算)?(?:的话|呢|会怎样|怎么样)",
    re.I,
)
# The plan's speed or its cost by the day, asked outright ("tokens per second?", "MFU?", "每秒多少token",
# "how much a day?"): the time or the cost section, with its arithmetic.
ASKS_SPEED = re.compile(
    TOKENS_A_DAY.pattern
    + r"|tokens?\s*(?:per|/|a)\s*(?:second|sec|s)\b|tok/s|throughput|\bmfu\b|吞吐|每秒.{0,6}token|token\s*/\s*s"
    r"|(?:为啥|为什么|怎么)\s*(?:这么|那么|会这么)?\s*慢|\bwhy\b.{0,12}\bso\s+slow\b",
    re.I,
)
ASKS_PER_DAY = re.compile(
    r"(?:cost|rent|price|spend|burn)\w*\b.{0,25}\b(?:per|a|each)\s+day\b|\bdaily\s+(?:cost|rent|burn|spend)"
    r"|^\W*how much (?:is it |does it cost |do we pay |would it be )?(?:per|a|each) day\W*$"
    r"|(?:每天|一天|每日)(?:要|大概|大约)?(?:花|的)?(?:多少钱|费用|成本|租金|花费)",
    re.I,
)
ASKS_COUNT = re.compile(
    # (a GPU's name may come between: "how many H200 nodes?", "how many H200s?")
    r"^\W*how many (?:[\w.-]+\s+)?(?:servers|nodes|machines|gpus|cards)\b|^\W*how many [a-z]*\d+[a-z0-9-]*s\b"
    r"|(?:几|多少)(?:台|张卡|块卡|张显卡)(?:服务器|机器)?\W*$"
    # "what's the minimum number of GPUs?", "how few GPUs can we get away with?": the counts around
    r"|\b(?:minimum|min|fewest|least|smallest)\s+(?:number\s+of\s+|count\s+of\s+|amount\s+of\s+)?(?:gpus|cards|servers|nodes)\b"
    r"|\bhow few (?:gpus|cards|servers|nodes)\b|最少(?:要|需要|用|得)?(?:几|多少)",
    re.I,
)
# "why ZeRO-3?", "why pipeline 8?", "why offload?", "为什么流水线并行是8", "为什么要卸载到CPU": a layout
# choice, answered with the same GPUs without it (its digit is the layout's, not a figure to trace,
# and not a what-if; it had got the generic FAQ or the plan's overview)
WHY_LAYOUT = re.compile(
    r"^\W*(?:but\s+|and\s+|so\s+)?(?:why\b(?!\s+not\b)(?!\s+(?:don'?t|didn'?t|no)\b)|how come\b).{0,25}?"
    r"\b(?:zero|fsdp|hsdp|tensor[- ]parallel\w*|pipeline\w*|expert[- ]parallel\w*|\btp\b|\bpp\b|\bep\b|recompute\w*"
    r"|activation checkpoint\w*|gradient checkpoint\w*|offload\w*|micro[- _]?batch\w*|mbs)"
    r"|^\W*(?:那|但|可是)?(?:为什么|为啥|干嘛|怎么)(?:要|是|需要|用|选|会|得)?(?!不|没).{0,12}?"
    r"(?:zero|fsdp|张量并行|流水线|流水并行|专家并行|卸载|重计算|激活检查点|梯度检查点|分片|micro[- _]?batch|微批"
    r"|(?<![a-z])(?:tp|pp|ep|mbs)(?![a-z]))"
    # "能不能不用offload", "不开重计算行不行", "can we avoid offloading?": the plan's reason for the knob
    r"|(?:能不能|可不可以|可以|能否|能)不(?:用|开|做|要)?\s*(?:offload|卸载|重计算|zero-?3|fsdp|流水线并行|张量并行)"
    r"|不(?:用|开)\s*(?:offload|卸载|重计算)\s*(?:行不行|可以吗|行吗|能跑吗)"
    r"|\b(?:can|could)\s+we\s+(?:avoid|skip|drop|turn\s+off|do\s+without)\s+(?:the\s+)?(?:offload\w*|recompute\w*"
    r"|activation\s+checkpoint\w*|zero-?3|fsdp|pipeline\w*|tensor\s+parallel\w*)",
    re.I,
)
# The plan's micro-batch asked ("what micro-batch are you assuming?", "mbs是多少"): its reason, with the
# global batch it accumulates to (it had been the FAQ's essay on batch sizes)
BATCH_ASKED = re.compile(
    r"\bwhat(?:'s|\s+is|\s+are)?\s+(?:the\s+)?(?:micro[- _]?batch(?:\s+size)?|mbs)\b"
    r"|\bwhat\s+(?:micro[- _]?batch|mbs)\b"
    r"|(?:micro[- _]?batch|mbs|微批)\s*(?:size|大小)?\s*(?:是|设|设的|用的)?\s*(?:多少|多大|几)",
    re.I,
)
# The plan's global batch asked ("what batch size are you assuming?", "global batch是多少"): what it is
# made of and the rule that set it (it had been the FAQ's essay on batch sizes, no number of the plan's)
GLOBAL_BATCH_ASKED = re.compile(
    r"\bwhat(?:'s|\s+is)?\s+(?:the\s+)?(?:global\s+|training\s+)?batch(?:\s+size)?\s+(?:are\s+you|is\s+(?:the\s+)?plan|does\s+(?:the|this)\s+plan|did\s+you)"
    r"|\bwhat(?:'s|\s+is)\s+(?:the\s+)?(?:plan'?s\s+)?(?:global\s+)?batch(?:\s+size)?\s*\??$"
    r"|(?:global\s*batch|gbs|(?<!micro)(?<!micro-)(?<!micro_)(?<!micro )batch(?:\s*size)?"
    r"|全局\s*(?:batch|批量?)|批大小)\s*(?:是|设|设的|用的)?\s*(?:多少|多大|几)"
    r"|(?:how\s+many|多少)\s*(?:tokens|token|个token)\s*(?:per|a|each|每)\s*(?:step|步)"
    r"|\bwhy\s+(?:(?:a|the|this)\s+)?(?:global\s+)?batch(?:\s+size)?\b|为什么.{0,6}(?:全局\s*)?(?:batch|批)"
    # "what global batch size?" under a plan; the step's time, which the batch sets ("what's the step time?")
    r"|^\W*what\s+(?:global\s+)?batch(?:\s+size)?\W*$"
    r"|\bstep\s+time\b|\btime\s+(?:per|a|each)\s+(?:step|iteration)\b|\biteration\s+time\b"
    r"|\bhow\s+long\s+(?:is|does|will)\s+(?:a|one|each)\s+(?:training\s+)?(?:step|iteration)\b"
    r"|(?:每|一)(?:一)?(?:步|个step|个iteration|次迭代)\s*(?:要|需要|耗时|用时)?\s*(?:多久|多长时间|几秒)|step\s*(?:耗时|时间)",
    re.I,
)
# A training framework named ("why FSDP2 and not megatron?"): the framework's choice, not a layout knob
FRAMEWORK_NAMED = re.compile(
    r"megatron|torchtitan|fsdp2|deepspeed|nemo|\bpeft\b|\btrl\b|llama-?factory|ms-?swift", re.I
)
# "why so much RAM?", "为什么内存要这么大", "why 2 TB of RAM?": the host RAM rule and its inputs
WHY_RAM = re.compile(
    r"(?:why|how come|do (?:we|i) (?:really )?need)\b.{0,30}(?:\bram\b|host memory|system memory)"
    r"|(?:\bram\b|host memory|system memory).{0,20}\b(?:necessary|needed|overkill|too (?:much|big|large))"
    r"|(?<!显)内存.{0,6}(?:太大|太多|有必要|必要吗|用不了)"
    r"|(?:为什么|为啥|怎么)(?!.{0,8}显存).{0,10}(?<!显)内存",
    re.I,
)
# "why RoCE? we only have 25G ethernet", "we only have 25G ethernet", "为什么要RoCE": what the plan
# needs between servers, and the plan on one server, which needs none (had got the network FAQ)
WHY_FABRIC = re.compile(
    # (EFA, AWS's RDMA fabric, and GPUDirect-TCPX, GCP's: "do we need EFA?")
    r"(?:why|how come|do we (?:really )?need)\b.{0,30}"
    r"(?:infiniband|\bib\b|roce|rdma|fabric|network between|\befa\b|tcpx)"
    r"|\b(?:only|just)\s+(?:have|got)\b.{0,25}(?:ethernet|gbe|\d+\s*g(?:b|bps)?\b|network)"
    r"|(?:为什么|为啥|干嘛|一定)(?:要|需要|得|用)?.{0,10}(?:infiniband|ib|roce|rdma|组网)"
    r"|(?:只有|就只有|只能用).{0,12}(?:以太网|\d+\s*g\b|网络|网卡)"
    # "is the network really necessary?", "can we skip the 400G network?", "是不是一定要这么贵的网络"
    r"|\b(?:is|are)\s+(?:the|this|that|such an?)?\s*(?:\w+\s+){0,2}(?:network|fabric|infiniband|ib|roce|rdma|nics?)\b"
    r".{0,15}\b(?:necessary|needed|required|overkill|worth it)"
    r"|\b(?:skip|drop|do without|go without|save on)\b.{0,20}\b(?:network|fabric|infiniband|ib|roce|nics?)\b"
    r"|(?:一定要|必须要?|有必要|真的需要|能不能不要?|可以不要?|能不能省|可以省).{0,10}(?:网络|组网|infiniband|ib|roce|网卡)"
    # "IB是必须的吗", "is infiniband a must?"
    r"|(?:infiniband|(?<![a-z])ib(?![a-z])|roce|rdma|组网|网络)\s*(?:是)?\s*(?:必须|必需|必要)的?\s*(?:吗|么|不|\?|？|$)"
    r"|\b(?:infiniband|ib|roce|rdma)\b\s+(?:a\s+)?(?:must|required|mandatory)"
    # "需要IB吗", "要不要上IB": whether the plan needs it, not a what-if to it
    r"|(?:需要|要|得用|要用|需不需要|要不要|非得)\s*(?:上|用)?\s*(?:infiniband|(?<![a-z])ib(?![a-z])|roce|rdma)\s*(?:吗|么|不|嘛|呢|\?|？|$)"
    # a link speed asked about ("why 200Gb/s per GPU?", "is 200Gb/s enough?", "400G网卡够吗")
    # (a size no link runs at is the card's memory: "is 80GB per GPU enough?")
    r"|(?:why|how come|is|are|would|will|do we need)\b.{0,20}"
    r"\b(?:\d+\s*g(?:b/s|bps|bit)|(?:10|25|40|50|100|200|400|800|1600)\s*g(?:b)?)\b.{0,25}"
    r"(?:per\s+gpu|nics?|network|link)"
    # with no network word, only a link's speed is one ("would 80GB be enough?" asks of the card's memory)
    r"|(?:why|how come|is|are|would|will|do we need)\b.{0,20}\b(?:10|25|50|100|200|400|800|1600)\s*"
    r"g(?:b(?:/s|ps)?|bit)?\b.{0,25}(?:enough|fast enough|overkill|necessary|needed|\?)"
    r"|(?:为什么|为啥|是不是|够不够|够吗|需要).{0,8}\d+\s*g(?:b(?:/s|ps)?)?.{0,8}(?:网卡|网络|带宽|够|\?|？)"
    r"|\d+\s*g(?:b(?:/s|ps)?)?\s*(?:的)?(?:网卡|网络|带宽)\s*(?:够|够吗|够不够|有必要|必要吗|是不是)",
    re.I,
)
# "can we rent it for 90 days straight?", "AutoDL能连续租90天吗？有什么风险": the plan's offer over the
# whole run (how it is sold and billed, what could go wrong; had got one line or the time FAQ)
RENT_THE_WHOLE_RUN = re.compile(
    r"\b(?:rent|lease|run|keep|book|reserve)\w*\b.{0,30}\b(?:\d+\s*(?:days?|weeks?|months?)\s+)?"
    r"(?:straight|continuous(?:ly)?|in a row|non-?stop|uninterrupted|the whole (?:run|job|time))"
    r"|连续(?:租|用|跑|训练)|(?:租|用|跑)(?:满|够)?\s*\d+\s*(?:天|个月|周).{0,8}(?:风险|稳定|会不会|能不能|可以吗|行吗|吗)",
    re.I,
)
# "昇腾上torchtitan能跑吗", "does DeepSpeed run on Ascend?": what runs the plan's layout there
STACK_ON_ASCEND = re.compile(
    r"(?:torchtitan|fsdp2?|deepspeed|megatron|pytorch|cuda|peft|transformers|llama-factory|mindspeed).{0,20}"
    r"(?:run|work|support)\w*.{0,20}(?:ascend|910b?|npu)"
    r"|(?:ascend|910b?|npu|昇腾).{0,12}(?:torchtitan|fsdp2?|deepspeed|megatron|pytorch|cuda|peft|transformers|llama-factory|mindspeed)"
    r".{0,12}(?:能跑|能用|跑得|支持|可以|行|run|work|support)"
    r"|(?:torchtitan|fsdp2?|deepspeed|megatron|pytorch|cuda|peft|transformers|llama-factory|mindspeed).{0,8}"
    r"(?:能|可以|支持).{0,4}(?:在)?(?:昇腾|ascend|910b?|npu)",
    re.I,
)
# "does bitsandbytes even work on ROCm?": QLoRA's 4-bit kernels on an AMD part
BNB_ON_ROCM = re.compile(
    r"(?:bitsandbytes|\bbnb\b|qlora|4-?bit|nf4).{0,40}(?:rocm|amd|mi\d{3})|(?:rocm|amd|mi\d{3}).{0,40}(?:bitsandbytes|\bbnb\b|qlora|nf4)",
    re.I,
)
# Layout words with their degree ("ZeRO-3", "tp 8"): not a number of the plan to explain.
LAYOUT_NUMBER = re.compile(
    r"zero[- ]?\d|stage[- ]?\d|\b(?:tp|pp|ep|dp|cp|vpp)\s*=?\s*\d+"
    r"|(?:tensor|pipeline|expert|data|context)[- ]parallel(?:ism)?\s*(?:of\s*)?=?\s*\d+",
    re.I,
)
# Which part of the arithmetic the question is about; first match wins ("63.5 GiB per GPU" is
# memory, "256 GPUs" the count). None of them ("where do these numbers come from?"): the overview.
EXPLAINED = (
    ("servers", r"\bram\b|host (?:ram|memory)|system memory|(?<!显)内存"),
    ("memory", r"memory|gib|vram|显存"),
    ("costs", r"cost|rent|price|money|spend|budget|[¥$]|钱|费用|租金|价格|成本|预算|贵"),
    (
        "gpus",
        r"\d[\d,]*\s*(?:x\s*)?(?:gpus?|cards?|nodes?|servers?|machines?)\b"
        r"|(?:so|this|that) many (?:gpus|cards|nodes|servers)"
        r"|\d+\s*(?:张|块|台)?(?:卡|台)|这么多(?:卡|台|张)|卡数|几张卡|几台"
        # a count in words said as the count chosen ("why only one gpu?", "为什么只用一张卡", "为啥只要一台";
        # not "why so slow on a single node?", the time)
        r"|\b(?:only|just)\s+(?:one|two|three|four|a\s+single|a)\s+(?:gpus?|cards?|nodes?|servers?|machines?)\b"
        r"|(?:只|就|仅|用|要)\s*(?:要|用|是|选)?\s*[一两二三四五六七八九十]+\s*(?:张|块|台)",
    ),
    (
        "servers",
        r"\bram\b|\bcpus?\b|vcpu|nvme|storage|network|infiniband|\bib\b|roce|rdma|\bnics?\b|power|kw\b"
        r"|内存|存储|网络|网卡|硬盘|功耗|电",
    ),
    ("time", r"days?|hours?|time|long|slow|gpus?|cards?|nodes?|天|小时|卡时|时间|多久|慢|卡|台"),
)
# The number a what-if that restates the plan asks for ("全参微调要多久", "how much with lora?" under a
# LoRA plan): that part of its arithmetic rather than "nothing changes"
RESTATED_ASKS = (
    # ("is 14 days enough?" under that deadline: how sure the time is against it; "is 1 gpu enough?",
    # "224张卡够吗" under that count: the counts around it, why it is enough)
    ("time_sure", r"(?:days?|weeks?|months?|天|周|个月|星期).{0,12}(?:够|\benough\b|\bsufficient\b)"),
    ("gpus", r"(?:卡|张|块|台|\bgpus?|\bcards?|\bservers?|\bnodes?).{0,12}(?:够|\benough\b|\bsufficient\b)"),
    ("time", r"多久|多长时间|几天|how long|how many (?:days|hours)"),
    ("memory", r"显存|memory|vram"),
    ("costs", r"多少钱|费用|租金|how much(?!\s+(?:data|text|tokens?|memory|vram|ram|storage|time))|cost"),
)
# How much data a model wants, asked with the plan's own size ("how much data do we need for a 7B?",
# "7B要多少数据"): the FAQ's, not the plan restated (it had been the plan's cost arithmetic)
DATA_WANTED = re.compile(
    r"\bhow (?:much|many) (?:data|text|tokens?|samples|examples)\b|(?:多少|多大)(?:的)?(?:数据|语料|token|样本)", re.I
)
# ... asked as what the job needs, not what the plan holds or runs at ("how many tokens is that?",
# "每天能训多少token": the plan's own figures)
DATA_NEEDED = re.compile(r"\bneed|\bwant|\bshould|\benough\b|\brequire|够|需要|要多少|得多少|该用|应该", re.I)
# Which line of the servers' spec a question is about ("how much power?", "功耗多少", "why 2 TB
# NVMe?"): that line alone leads the reply; none or several, the whole spec.
SERVER_TOPICS = (
    ("power", r"power|\bkw\b|electric|cooling|rack|space|footprint|\bpdus?\b|功耗|电|散热|机柜|地方|空间"),
    ("network", r"network|infiniband|\bib\b|roce|rdma|\bnics?\b|switch(?:es)?\b|网络|网卡|交换机"),
    ("nvme", r"nvme|\bdisks?\b|\bssds?\b|硬盘|本地盘|磁盘"),
    ("storage", r"storage|checkpoint|parallel file|存储"),
    ("cpu_ram", r"\bram\b|host memory|system memory|\bcpus?\b|vcpu|cores?\b|(?<!显)内存|核"),
)


def server_topic(message: str) -> tuple[str, ...] | None:
    """The lines of the servers' spec a message asks about ("RAM and disk per node?": both), or
    None for the whole spec (none named, or most of it)."""
    found = tuple(topic for topic, words in SERVER_TOPICS if re.search(words, message or "", re.I))
    if found == ("storage",) and STORAGE_SIZE.search(message):
        found = ("nvme", "storage")  # "存储要多大": the disks' size beside the shared storage's
    return found if 0 < len(found) <= 2 else None


# Storage asked by its size, not its speed ("存储要多大", "how big should storage be?")
STORAGE_SIZE = re.compile(r"多大|容量|多少\s*[tg]|how\s+(?:big|large|much)|capacity|tb|size", re.I)


# Questions a part of the plan answers ("what storage do we need?", "找哪家租", "有什么风险",
# "can you write an RFQ?"); first match wins.
PLAN_PARTS = (
    (
        "rfq",
        r"(?<![a-z])rfq(?![a-z])|request for (?:a )?quot|\brfp\b|询价单|询价函|询价文件|报价单|招标|采购需求|需求清单"
        # "give me the vendor checklist", "what should we ask the vendor?", "供应商要问什么"
        r"|\bvendor\s+(?:checklist|questions)|\b(?:ask|tell)\s+(?:the\s+)?(?:vendors?|providers?|suppliers?)\b"
        r"|(?:问|要求)(?:供应商|厂商|服务商)|(?:供应商|厂商|服务商).{0,4}(?:要问|问什么|清单)"
        r"|(?:write|draft|send|make|give)\b.{0,20}\b(?:quote request|requirements? for (?:the )?vendors?)"
        # a bill of materials: the servers, network and storage to order, as the request for quotes lists them
        r"|\bbom\b|\bbill of materials?\b|\bparts list\b|\bshopping list\b|物料清单|采购清单|配置清单|硬件清单",
    ),
    # the card's checklist asked for in words ("what's on the checklist?"; "the vendor checklist" is the
    # request for quotes above, the alternatives ALTERNATIVES_ASKED's)
    (
        "checklist",
        r"\bcheck[\s\-]?list\b|\bwhat\s+(?:should|do)\s+(?:we|i)\s+check\b|检查清单|要检查(?:什么|哪些)|签约前.{0,6}(?:检查|核对)",
    ),
    (
        "vendor",
        r"which (?:vendor|provider|cloud|supplier)|what (?:vendor|provider|cloud|supplier)"
        r"|(?:vendor|provider|supplier)s?\b.{0,20}(?:should|recommend|use|pick|choose|go with)"
        r"|where (?:should|can|do) (?:we|i) (?:rent|get|buy|lease)|who (?:should|can) (?:we|i) (?:rent|lease)"
        r"|哪家|哪个(?:云|供应商|厂商|平台|服务商)|找谁|在哪(?:里|儿)?租|去哪(?:里|儿)?租"
        r"|who(?:'s| is) the (?:vendor|provider|supplier)|priced from|(?:供应商|厂商|服务商)(?:是谁|是哪家|是什么)"
        r"|who (?:sells|rents|offers|has|leases) (?:this|these|them|it|those|that)|谁家(?:有|卖|租)"
        # "who sells H800 in Shanghai?", "哪里能租到H800": the offers on record for the plan's GPU
        r"|\bwho\s+(?:sells|rents|offers|leases|has)\b|(?:哪里|哪儿|在哪)能?(?:租|买)(?:到|得到)"
        # "X is sold out, what's next cheapest?": the other offers on record
        r"|\bnext cheapest\b|\bsold out\b|\banother (?:vendor|provider|cloud)\b|还有哪家|换一家"
        # "is there a cheaper vendor?", "有没有更便宜的供应商": the offers on record, cheapest first (the first
        # had drawn the cheap-quote topic, the second the menu)
        r"|\bcheaper\s+(?:vendor|provider|supplier|cloud|lessor|host)s?\b|(?:更|比较)?便宜(?:一点|些)?的(?:供应商|厂商|服务商|平台|渠道|云)"
        # "which region is cheapest?": the offers on record (not split by region; the reply says where from)
        r"|\b(?:which|what)\s+(?:region|zone|location)s?\b|哪个(?:区域|地域|地区|机房)"
        # "为什么选这家", "why this provider?": the offers the plan was priced from, against the others
        r"|(?:为什么|为啥|怎么)(?:选|用|挑|找|是)了?这(?:家|个供应商|个服务商|个平台)"
        r"|\bwhy (?:this|that|the) (?:vendor|provider|cloud|supplier)\b"
        r"|\bwhy (?:did you |do you )?(?:pick|choose|go with|use) (?:this|that|the)"
        r" (?:vendor|provider|cloud|supplier)\b",
    ),
    (
        "risks",
        r"\brisks?\b|\brisky\b|what could go wrong|watch out|pitfalls?|gotchas?|caveats?|风险|坑|注意(?:什么|事项|哪些)"
        r"|要注意|隐患"
        # "8 bucks?? what's the catch": what could go wrong with a price that low
        r"|\bwhat'?s the catch\b|\bwhere'?s the catch\b|有什么猫腻|有啥猫腻"
        # the pilot the checklist sizes ("how long does the pilot take?", "试跑要多久")
        r"|\bpilot\b|\btrial run\b|试跑"
        # the checklist's terms to sign on ("what warranty should we ask for?", "保修要多久")
        r"|\bwarrant(?:y|ies)\b|保修|质保|\bbefore (?:we |i )?(?:sign|pay|buy|order)\w*\b|签(?:合同)?之前|付款之前"
        # "is it safe to go with this?", "方案靠谱吗": what could go wrong with it
        r"|\b(?:is|are) (?:it|this|that|the plan|these) (?:safe|a safe bet|sound|solid|reliable)\b"
        r"|\bsafe to (?:go|sign|proceed|commit|rent|buy)\b|(?:方案|配置)(?:靠谱|可靠|稳妥|稳)(?:吗|么|不)|稳不稳"
        # "would it work?", "will this work?", "能行吗": whether the plan holds, alone (had been "I could
        # not tell"); a GPU or a change named is a what-if, read elsewhere
        r"|^\W*(?:would|will|does|can)\s+(?:it|this|that|the plan)\s+(?:really\s+)?work\W*$"
        r"|^\W*(?:这样)?(?:能行|行得通)(?:吗|么|不)\W*$",
    ),
    (
        "servers",
        r"(?:what|how much|which|how big|how fast|do we need|need)\b.{0,30}"
        r"\b(?:storage|disk|nvme|ram|cpus?|network|switch(?:es)?|nics?|hcas?|network cards?|pdus?"
        # the power a server draws, not its bill ("what's the power bill?", "多少电费": the electricity's cost)
        r"|power(?!\s*(?:bills?|costs?|prices?))|cooling|servers? (?:spec|config))"
        r"|\b(?:storage|nvme|disk|ram)\b.{0,20}(?:need|size|spec|how much)"
        r"|服务器配置|(?:多大|多少|什么样|什么|哪种|怎样的?)(?:的)?(?:存储|硬盘|内存|网络|cpu|CPU|功耗|电源|机柜|电(?![费价]))"
        r"|(?:存储|硬盘|内存|网络|交换机|CPU|cpu|功耗)(?:要|需要|得)?(?:用|选|配|上)?(?:多大|多少|什么|哪种|怎么配|配多少)"
        # the host RAM the plan sizes, set against the team's ("内存要256G？我们机器只有128G", "we only have 128GB RAM")
        r"|(?<!显)内存.{0,4}\d+\s*g|(?:机器|服务器|主机)(?:只有|就|才)\s*\d+\s*g"
        r"|\b(?:only|just)\s+(?:have|got)\s+\d+\s*g(?:b|ib)?\s+(?:of\s+)?(?:ram|host memory|system memory)\b"
        # the servers' draw asked outright ("power draw total? colo wants a number", "总功耗多少")
        r"|\bpower draw\b|\btotal (?:power|kw|wattage)\b|\bhow many (?:kw|kilowatts)\b|\bwattage\b"
        r"|总功耗|功耗(?:多少|多大|是多少)|多少千瓦"
        # the room they take ("how much space do they take?", "how many racks?", "占多大地方")
        r"|\bhow much (?:space|room|floor space|rack space)\b|\bhow many (?:racks?|pdus?)\b"
        r"|\brack (?:space|units?)\b|\bfootprint\b|\bfit (?:in|into|on) (?:one|a|a single|\d+) racks?\b"
        r"|(?:放得?下|装得?下|放进|装进)(?:一个|1个|一)?个?机柜|(?:一个|1个)机柜(?:放得下|装得下|够)"
        r"|占(?:多大|多少)(?:地方|空间)|(?:几|多少)个?机柜"
        # a part set against another plan's ("network the same?", "存储配置一样吗")
        r"|\b(?:network(?:ing)?|storage|ram|cpus?|nvme|disks?|power|cooling|interconnect)\b.{0,12}\b(?:same|differ\w*)\b"
        r"|(?:网络|组网|存储|内存|硬盘|功耗|CPU|cpu)(?:要求|配置|需求)?(?:一样|相同|有区别|有什么(?:不同|区别)|差别)"
        # "网络有什么要求", "两个方案网络要求一样吗", "network requirements?"
        r"|(?:存储|硬盘|内存|网络|组网|CPU|cpu|功耗|散热|供电)(?:有|的)?(?:什么|啥|哪些)?(?:要求|需求|规格)"
        r"|\b(?:storage|disk|nvme|ram|cpu|network(?:ing)?|power|cooling|interconnect)\s+(?:requirements?|needs|specs?)\b"
        # the part named alone under a plan ("storage?", "and the network?", "存储呢")
        r"|^\W*(?:and|what about|how about)?\s*(?:the\s+)?(?:storage|network(?:ing)?|ram|cpus?|nvme|disks?"
        r"|power|cooling|interconnect)\s*[?？]*\s*$"
        r"|^\W*那?(?:存储|网络|内存|硬盘|CPU|cpu|功耗|散热|机柜)(?:呢|怎么样|怎么配|如何)?\s*[?？]*\s*$",
    ),
)
# Questions about the rent's terms ("what's the lease term?", "is that price per month?", "这个价格含存储吗"):
# the plan's cost section answers them.
# The rate the plan is priced at ("how much per GPU-hour are you assuming?", "what's the monthly
# rent?", "每卡时多少钱"), asked without naming another GPU: the cost section, not a what-if.
ASKS_THE_RATE = re.compile(
    r"(?:per|a|an)\s+gpu[- ]?hour.{0,30}(?:assum|use|using|priced|pay)"
    r"|(?:what|which)\s+(?:rate|price)\s+(?:did|do|are|is)"
    # how sure the price is ("is this price realistic?", "这个价格靠谱吗"): its arithmetic and sources
    r"|(?:price|rent|cost|rate)s?\b.{0,15}\b(?:realistic|reliable|accurate|trustworthy|legit|right)\b"
    r"|(?:价格|租金|报价|费用|价钱)(?:真的)?(?:靠谱|可信|可靠|准|准确|准不准|真实|对吗|对不对)"
    # "what's the hourly rate you assumed?", "what GPU price did you use?"
    r"|(?:rate|price|cost)\b.{0,25}\b(?:you|did you|was)\s+(?:assum|use|pick|take|price)\w*"
    r"|^\W*what(?:'s| is| would be)\s+the\s+(?:monthly|hourly|daily)\s+(?:rent|cost|price|rate)\W*$"
    r"|^\W*(?:the\s+)?(?:monthly|hourly|daily)\s+(?:lease|rent(?:al)?)?\s*(?:price|cost|rate)?\W*$"
    r"|^\W*(?:每卡时|每卡每小时|每小时|每月|月租|一个月)(?:要|是|大概)?多少(?:钱)?\W*$|按什么价|单价(?:是)?多少",
    re.I,
)
POWER_BILL = re.compile(r"electric|\bpower\b|\benergy\b|电费|电价|用电|耗电", re.I)
ASKS_THE_TERMS = re.compile(
    r"lease term|minimum term|\bterm\b.{0,15}\?|^\W*(?:is\s+(?:it|that|this)\s+)?per (?:month|hour|gpu)\b.{0,10}\?"
    # "is this price per GPU?", "is that rent per server?"
    r"|\b(?:price|rent|cost|rate)\s+(?:per|a|for each|for one)\s+(?:gpu|card|server|node|month|hour)\b"
    r"|(?:price|rent|cost)\b.{0,20}"
    r"(?:per month|per hour|monthly|hourly|include|includ)|includ\w* storage|租期|起租|每月还是|按月还是|按小时还是"
    r"|(?:价格|租金|报价|费用)(?:里)?(?:含|包含|包括)|含(?:不含)?存储|是按月|是按小时",
    re.I,
)
# "how long should we rent for?", "租多久合适": the terms the plan can be signed on, not a what-if on
# renting (had been read as "rent" and answered with the same plan)
RENT_HOW_LONG = re.compile(
    r"how long (?:should|do|would|must|can) (?:we|i) (?:rent|lease|sign)|租多久|签多久|租多长时间", re.I
)
# "用中文回答", "in English please", "lang zh": the plan's numbers again in that language.
LANG_SWITCH = re.compile(
    r"^\W*(?:(?:please\s+)?(?:answer|reply|respond|say it|write)\s+in\s+(?P<en>chinese|english)"
    r"|in\s+(?P<en2>chinese|english)(?:\s+please)?|lang\s+(?P<code>zh|en)|(?:请)?用(?P<zh>中文|英文)(?:回答|回复|说|写)?(?:吧|一下)?)\W*$",
    re.I,
)
# "why not H20?", "为什么不用H20": a re-plan on that GPU, said as a comparison with the plan.
WHY_NOT = re.compile(
    r"^\W*(?:but\s+|and\s+|so\s+)?(?:why (?:not|no|don'?t (?:we|you)(?: use| pick| go with)?|didn'?t you"
    r"(?: use| pick| choose| go with)?|wasn'?t)\s+(?:use\s+|using\s+|pick\s+|the\s+|an?\s+)?"
    r"|(?:为什么|为啥|干嘛|怎么)(?:不|没)(?:用|选|上|考虑|推荐)?)",
    re.I,
)
# "why A100 and not H800?", "why A100 over H800?", "为什么选A100不选H800", "为什么用A100而不是H800": a why-not
# of the GPU passed over (it had got the generic FAQ, arguing for the other GPU)
# The plan summed up ("summarize the plan", "tl;dr?", "explain this plan in simple terms", "what should I
# tell my boss?", "总结一下", "怎么跟老板汇报")
SUMMARY_ASKED = re.compile(
    r"\bsummar(?:y|ise|ize)\b|\btl;?\s?dr\b|\bin\s+(?:simple|plain)\s+(?:terms|english|words)\b"
    r"|\bexplain\s+(?:this|the)\s+plan\b|\bwhat\s+(?:should|do)\s+i\s+tell\s+(?:my|our|the)\s+(?:boss|manager|cto|ceo|cfo|team)\b"
    r"|\bone[\s\-]liner\b|\bbottom\s+line\b|总结一下|概括一下|简单说(?:一下)?|用大白话|(?:怎么|如何)(?:跟|向|给)老板(?:说|汇报|解释)",
    re.I,
)
GPU_CEILING = re.compile(
    r"(?:\b(?:can'?t|cannot|can not|couldn'?t)\s+(?:get|rent|find|use|have)\s+more\s+than|\bno\s+more\s+than"
    r"|\bnot\s+more\s+than|\bat\s+most|\bonly\s+(?:has|have|got|gets)|\bmax(?:imum)?(?:\s+of)?"
    r"|最多(?:只能|只)?(?:拿到|租到|买到|用|有|给|能用)?|至多|顶多)\s*"
    r"(?P<n>\d{1,6})\s*(?:x\s*)?(?:h\d+|a\d+|[a-z]*\d{2,4}[a-z]*\s+)?"
    r"(?P<unit>gpus?|cards?|nodes?|servers?|machines?|boxes|张卡|块卡|卡|张|台)",
    re.I,
)
# A floor on them ("至少用64张卡", "what if we use at least 8 servers?"): that many GPUs at least
GPU_FLOOR = re.compile(
    r"(?:\bat\s+least|\bminimum\s+of|至少|最少)\s*(?:用|要|上|use\s+|have\s+)?\s*"
    r"(?P<n>\d{1,6})\s*(?:x\s*)?(?:[a-z]*\d{2,4}[a-z]*\s+)?"
    r"(?P<unit>gpus?|cards?|nodes?|servers?|machines?|boxes|张卡|块卡|卡|张|台)",
    re.I,
)
# Two GPU types set as a choice in a short question ("H20还是H800", "should we buy H20 or H800?")
EITHER_GPU = re.compile(r"还是|或者|\bor\b|\bvs\.?\b|\bversus\b|哪个(?:好|划算|合适|更)", re.I)
EITHER_MAX_CHARS = 40
VERSUS_ONE = re.compile(
    r"^\W*(?:and\s+|what\s+about\s+|how\s+about\s+)?(?:vs\.?|versus|compared\s+(?:to|with))\s+"
    r"(?P<other>[a-z]*\s?-?\d{2,4}[a-z0-9\-]*)(?:\s+(?:on\s+)?(?:price[\s/\-]*perf(?:ormance)?|cost|value|speed))?\W*$",
    re.I,
)
WHY_THIS_NOT_THAT = re.compile(
    r"^\W*why\s+(?:(?:did\s+you\s+)?(?:pick|choose|use|go\s+with)\s+)?[a-z]*\s?-?\d{2,4}[a-z0-9\-]*"
    r"\s*,?\s+(?:and\s+)?(?:not|over|instead\s+of|rather\s+than)\s+(?P<other>[a-z]*\s?-?\d{2,4}[a-z0-9\-]*)\W*$"
    r"|^\W*(?:为什么|为啥)(?:要)?(?:选|用|是)\s*[a-zA-Z]*\s?\d{2,4}[a-zA-Z0-9\-]*\s*(?:而)?(?:不选|不用|不是|没选)\s*"
    r"(?P<other_zh>[a-zA-Z]*\s?\d{2,4}[a-zA-Z0-9\-]*)\W*$"
    # "为什么不用H800而用H20": the one passed over first
    r"|^\W*(?:为什么|为啥)(?:不用|不选|没用|没选)\s*(?P<other_zh2>[a-zA-Z]*\s?\d{2,4}[a-zA-Z0-9\-]*)\s*(?:而是?|却)?(?:用|选)"
    r"\s*[a-zA-Z]*\s?\d{2,4}[a-zA-Z0-9\-]*\W*$",
    re.I,
)
# "would A100 be cheaper?", "is H20 faster?", "用A100快吗", "换H20会便宜吗": the plan on the GPU named,
# compared ("why not A100?")
WOULD_GPU_BE = re.compile(
    r"^\W*(?:would|will|is|are|could)\s+(?:an?\s+|the\s+)?\S+(?:\s+\S+)?\s+(?:be\s+)?"
    r"(?:cheaper|faster|better|quicker|enough)\W*$"
    r"|^\W*(?:用|换|换成|改用)\S+?(?:会|能)?(?:更)?(?:快|便宜|好|划算)(?:吗|不|么|些吗|一点吗)?\W*$",
    re.I,
)
# "why H800?", "why this GPU?", "为什么选H800", "为什么用这个卡": why the plan's own GPU type (a GPU
# other than the plan's is "why not", above). The GPU named, if any, is group `gpu`.
WHY_THIS_GPU = re.compile(
    r"^\W*(?:but\s+|and\s+|so\s+)?why\s+(?:(?:did|do)\s+you\s+)?(?:(?:pick|choose|chose|use|go\s+with|recommend)\s+)?"
    r"(?:(?:this|that|the)\s+(?:gpu|card|chip|accelerator)s?|(?P<gpu>[a-z]*\s?-?\d{2,4}[a-z0-9\-]*))\s*\??\s*$"
    r"|^\W*(?:为什么|为啥|干嘛)(?:要)?(?:选|用|是|推荐)(?:了)?\s*(?:这个|这款|这种|这张)?(?:卡|显卡|gpu|GPU|(?P<gpu_zh>[a-zA-Z]*\s?\d{2,4}[a-zA-Z0-9\-]*))\s*[?？]?\s*$"
    # "which GPU is cheapest?", "why not a cheaper GPU?", "最便宜的卡是哪个": the GPU types weighed
    r"|^\W*(?:which|what)(?:'s|\s+is)?\s+(?:the\s+)?(?:gpu|card)s?\s+(?:is\s+)?(?:the\s+)?"
    r"(?:cheapest|best value)\b.{0,20}$"
    r"|^\W*(?:what(?:'s|\s+is)\s+)?the\s+cheapest\s+(?:gpu|card)s?\b.{0,25}$"
    r"|^\W*why\s+not\s+(?:a\s+|the\s+)?cheaper\s+(?:gpu|card)s?\W*$"
    r"|^\W*(?:最便宜的|哪(?:个|种|款)(?:卡|显卡)最便宜).{0,10}$",
    re.I,
)
# "is this price fair?", "价格合理吗", "贵不贵": the plan's rent and its range over the offers on record
ASKS_FAIR_PRICE = re.compile(
    r"^\W*(?:is|was)\s+(?:this|that|the|it)\s+(?:price|rent|rate|cost|quote|plan)?\s*"
    r"(?:a\s+)?(?:fair|reasonable|good(?:\s+deal)?|a good deal|ok|okay|cheap|expensive|too expensive|overpriced)"
    r"(?:\s+(?:price|deal|rate))?\W*$"
    r"|^\W*(?:这个)?(?:价格|租金|报价|费用)?(?:合理|贵不贵|划算吗|便宜吗|贵吗)\W*(?:吗|么)?\W*$",
    re.I,
)


def _asks_its_costs(message: str) -> bool:
    """The plan's own rent asked, not a change to it: what it costs, its rate, how long to rent,
    whether its price is fair. Time added ("how much would 2 more weeks save?") is a change."""
    if MORE_DAYS.search(message) or MORE_WEEKS.search(message):
        return False
    return bool(
        ASKS_THE_COST.match(message)
        or ASKS_THE_RATE.search(message)
        or RENT_HOW_LONG.search(message)
        or ASKS_FAIR_PRICE.match(message)
    )


# A cloud or provider named, the market it sells in and how its offers name it.
PROVIDERS = (
    (r"\baws\b|amazon|亚马逊", "AWS", "global"),
    (r"\bgcp\b|google", "GCP", "global"),
    (r"azure|微软", "Azure", "global"),
    (r"\blambda\b", "Lambda", "global"),
    (r"runpod", "RunPod", "global"),
    (r"coreweave", "CoreWeave", "global"),
    (r"\boracle\b|\boci\b", "Oracle", "global"),
    (r"nebius", "Nebius", "global"),
    (r"vast\.?ai", "Vast.ai", "global"),
    (r"tensor\s?wave", "TensorWave", "global"),
    (r"hyperstack", "Hyperstack", "global"),
    (r"云擎天下", "云擎天下", "china"),
    (r"矩池云", "矩池云", "china"),
    (r"恒源云", "恒源云", "china"),
    (r"智星云", "智星云", "china"),
    (r"alibaba|aliyun|阿里云|阿里", "Alibaba", "china"),
    (r"tencent|腾讯", "Tencent", "china"),
    (r"autodl", "AutoDL", "china"),
    (r"volcano|volcengine|火山", "火山引擎", "china"),
    (r"天翼云|ctyun", "天翼云", "china"),
)
RENT_KINDS = ("rent_hour", "rent_month")

# Thanks, agreement and acknowledgements: never answered (a person talking to people).
_THANKS = (
    r"(?:thanks?(?: you)?|thank you|thx|ty|cheers|great|nice|cool|awesome|perfect|ok(?:ay)?|k|sure|yes|yep|yeah"
    r"|no|nope|np|agreed?|sounds good|makes sense|lgtm|got it|will do|done|\+1|:[a-z0-9_+-]+:|lol|haha+|wow"
    r"|(?:let me|i'?ll|we'?ll) (?:think|mull) (?:about )?(?:it|this|that)(?: over)?"
    r"|(?:this is |that'?s |very )?(?:great|helpful|useful|awesome|super helpful|really helpful)"
    r"|谢谢|谢啦|谢了|多谢|感谢|好的?|好滴|行|可以|收到|明白|了解|同意|没问题|赞|嗯+|哈+|(?:很|非常|挺)?有(?:帮助|用)|太好了|厉害|牛"
    r"|我(?:们)?(?:再)?(?:想想|考虑(?:一下|下)?|商量(?:一下|下)?))"
)
# Thanks and acknowledgements, alone or strung together ("cool thanks", "好的 收到", "谢谢，很有帮助"),
# or a message of emoji and punctuation alone ("👍"): nothing to answer
CHATTER = re.compile(
    rf"^\W*{_THANKS}"
    rf"(?:[\s,.!~。！，]*(?:{_THANKS}|a lot|so much|much|all|guys|team|bot|!|了|啊|哈|呀|吧|啦|哦|噢|喔|嘛|，|,)?)*"
    r"(?:[\s,.!~。！，]*(?:let'?s go with (?:this|that|it)|let'?s do (?:this|that|it)"
    r"|就这样|就这么定了|就用这个))?\W*$"
    r"|^[^\w?？]+$"
    # a choice announced, not asked ("go with h800 then 👍", "那就H800吧"): the team talking, nothing to answer
    r"|^\W*(?:ok(?:ay)?[\s,]*)?(?:let'?s |we'?ll )?go with (?:the )?(?=[\w.\-]*[a-z])[\w.\-]+"
    r"(?: one)?(?: then)?[^\w?？]*$"
    r"|^\W*(?:好的?|行)?[，,\s]*(?:那)?就(?:用|选|定)?(?=[\w.\-]*[a-z])[\w.\-]+(?:吧|了)[^\w?？]*$",
    re.I,
)
# A choice announced before a question ("go with the H800 one, how many servers?", "ok let's go with H800.
# how many servers?"): the question, asked of the option chosen (it had been the menu)
CHOSEN_THEN = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|alright|so|great|cool|fine)[\s,.!]*)*(?:let'?s |we'?ll |we will |i'?ll )?"
    r"(?:go with|take|pick|choose) (?:the )?(?P<choice>[\w.\-]+)(?: one| option| plan)?(?: then)?\s*[,.;!:]+\s*"
    r"(?P<rest>\S.*)$",
    re.I,
)
# A managed fine-tuning service named to compare with ("vs Together's fine-tuning API", "用OpenAI的微调服务呢")
MANAGED_API = re.compile(
    r"\bfine[\s-]?tun\w*\s+(?:api|service|endpoint|platform)s?\b|\bmanaged\s+(?:fine[\s-]?tun\w*|training)\b"
    r"|\b(?:together(?:\.ai)?|fireworks|openpipe|predibase|openai|bedrock|vertex)(?:'s)?\b.{0,25}\b(?:api|fine[\s-]?tun\w*)\b"
    r"|微调(?:api|服务|平台)|托管(?:的)?(?:微调|训练)|(?:百炼|千帆|方舟).{0,10}(?:微调|训练)",
    re.I,
)
# A vendor's price said ("the vendor quoted ...", "they offered ...", "报价", "报了"), and a rate in it with no
# currency ("9000 per GPU per month", "9000/GPU/month", "2.5 an hour")
QUOTE_VERB = re.compile(r"\bquot\w*|\boffer\w*|\bcharg\w*|\bask(?:s|ed|ing)\b|报价|报了|开价|要价|给的价", re.I)
BARE_RATE = re.compile(
    r"(?<![\d.,$¥￥])(\d[\d,]*(?:\.\d+)?)\s*(?=(?:/|per\s+|an?\s+|每\s*)(?:gpu|card|卡|month|mo\b|hour|hr)"
    r"|(?:元|块)?\s*/\s*(?:卡|月|小时))"
    # the rate after its unit in Chinese ("每卡每月9000", "每卡时12")
    r"|(?:(?<=每卡每月)|(?<=每月每卡)|(?<=每卡时)|(?<=每卡每小时))\s*(?:是|为|要)?\s*(\d[\d,]*(?:\.\d+)?)(?!\s*[\d万千元块])",
    re.I,
)
# A provider with nothing to rent ("what if Lambda is sold out?", "AutoDL没货了怎么办")
SOLD_OUT = re.compile(
    r"\bsold\s+out\b|\bout\s+of\s+(?:stock|capacity)\b|\bno\s+(?:capacity|stock|availability)\b|\bunavailable\b"
    r"|\bdoesn'?t\s+have\s+(?:capacity|any|stock)\b|没货|缺货|售罄|租不到|抢不到|没(?:有)?(?:资源|库存)",
    re.I,
)
# The cost an hour asked ("how much per hour?", "how much per hour in total?", "what's the hourly cost?",
# "一小时多少钱"): the plan's GPUs an hour, then its costs' arithmetic (the first had drawn the menu, the
# last a what-if on a one-hour deadline)
HOURLY_COST = re.compile(
    r"\bhow\s+much\b[^?？.]{0,25}?\b(?:per|an?|each|every)\s+hour\b|\bhourly\s+(?:cost|price|rate|rent|bill|spend|burn)s?\b"
    r"|\bcost\s+(?:per|an?)\s+hour\b|\bburn\s+rate\b|多少钱\s*(?:一|每)\s*个?小时"
    # "what's the cost per GPU-hour?" (the whole costs had answered, the hour's rate inside them)
    r"|\b(?:cost|price|rate)\s+(?:per|an?)\s+gpu[\s-]?hour\b"
    # "how much is that per GPU-hour?", "每卡时多少钱"
    r"|\bhow\s+much\b[^?？.]{0,25}?\b(?:per|an?|each)\s+gpu[\s-]?hour\b|(?:每|一)\s*(?:个)?卡时\s*(?:要|得|大概|大约)?\s*多少钱?"
    r"|(?:一|每)\s*个?小时\s*(?:要|得|大概|大约|需要)?\s*(?:花)?\s*多少钱?(?![卡张台天])|每小时(?:的)?(?:租金|费用|成本|花费|开销)",
    re.I,
)
# A price of a kWh said ("0.6 yuan/kWh", "电费0.6元/度"): the team's power price, whatever currency it names
A_KWH = re.compile(r"kwh\b|千瓦时|(?:/|每|一)\s*度", re.I)
# Back to the thread's first plan after what-ifs moved it ("back to the original plan", "回到最初的方案")
BACK_TO_FIRST = re.compile(
    r"\b(?:back to|go back to|revert to|return to|undo|reset to)\s+(?:the\s+|our\s+)?"
    r"(?:original|first|initial|starting)(?:\s+(?:plan|one|request|setup))?\b"
    r"|\b(?:start over|from scratch again|forget (?:those|these|the) (?:changes|what-ifs))\b"
    r"|(?:回到|恢复|退回|还原|改回|换回)(?:到)?(?:最初|最开始|一开始|原来|原先|原始|第一个|开始)的?(?:方案|计划|配置|那个)?"
    r"|(?:还是|就)?(?:用|按)(?:最初|最开始|一开始|原来)的?(?:方案|计划|配置)(?:吧)?",
    re.I,
)
# The team's own next steps ("forwarding to finance", "我去跟老板汇报", "明天开会再说"): with no
# question and none of the plan's words, nothing for the bot
TEAM_TALK = re.compile(
    r"开会|汇报|老板|领导|财务|再说|回头|先这样|再议|\bloop(?:ing)? in\b|\bforward(?:ing|ed)?\b|\bfinance\b"
    r"|\bmy boss\b|\bcircle back\b|\bsync(?:ing)?\b|\bmeeting\b|\blater\b|\bwill (?:share|check|discuss|follow up)\b",
    re.I,
)
# A message that reads as a question.
QUESTION = re.compile(
    r"[?？]|^\s*(?:what|why|how|which|when|where|who|can|could|should|would|is|are|do|does|will)\b"
    r"|吗|呢|怎么|为什么|多少|哪|是否|能不能|可不可以|要不要",
    re.I,
)
# Words of the plan's subject: an unmentioned question is ours only when it uses one.
DOMAIN = re.compile(
    r"(?<![a-z0-9])(?:gpus?|cards?|nvlink|pcie|infiniband|ib|roce|rdma|network|bandwidth|ram|memory|vram|hbm|gib|gb|tb"
    r"|servers?|nodes?|racks?|power|cooling|price|prices|pricing|cost|costs|rent|renting|buy|buying|lease|spot"
    r"|on-demand|cloud|idc|vendor|quote|sla|billing|data|dataset|tokens?|train(?:ing)?|fine-?tun\w*|lora|qlora"
    r"|pretrain\w*|checkpoints?|storage|nvme|disk|batch|epochs?|deadline|budget|throughput|mfu|flops?|precision"
    r"|bf16|fp8|fp16|zero|deepspeed|megatron|fsdp|parallel\w*|offload|plan|h800|h100|h200|h20|a100|a800|4090|910b"
    r"|ascend|cuda|nccl|driver|framework|model|params?|parameters?)(?![a-z0-9])"
    r"|显存|内存|卡|服务器|节点|机柜|功耗|散热|价格|报价|成本|费用|租|买|云|机房|数据|训练|微调|检查点|存储|网络|带宽|预算"
    r"|期限|精度|并行|模型|参数|方案",
    re.I,
)
# "Bob, can you ..." / "@Bob ...": a person talking to a person.
TO_A_PERSON = re.compile(r"^\s*@?[A-Z][a-z]+\s*[,:，]")
# A price to judge: an amount with a period, or an amount and "fair/cheap/ok?".
PRICE = re.compile(
    r"(?:[¥$]|rmb|cny|usd|yuan|dollars?|元|块|万).{0,12}(?:/|per |a |每|一)\s*(?:(?:gpu|card)[- ]?)?"
    r"(?:month|mo|hr|hour|h\b|月|小时)"
    r"|(?:每|一)(?:个)?(?:月|小时).{0,6}\d|(?:fair|reasonable|cheap|expensive|good price|good deal|worth it|rip[- ]?off"
    r"|合理|贵|便宜|划算|值)",
    re.I,
)
HAS_AMOUNT = re.compile(
    r"[¥$]\s*\d|\d[\d,.]*\s*(?:k|万|元|块|rmb|cny|usd|yuan|dollars?)\b|\d[\d,.]*\s*(?:万|元|块)"
    # a million with its currency ("1M cny", "2m usd"; "3m" alone may be months)
    r"|\d[\d,.]*\s*m\s*(?:rmb|cny|usd|yuan|dollars?)\b",
    re.I,
)
BUDGET_WORD = re.compile(r"\bbudget\b|预算", re.I)
# When the plan's servers would arrive if bought ("how long is the delivery for 224 servers?", "交货要多久",
# "lead time?"): the lead time on record for its GPU, never a rental's setup days
DELIVERY_ASKED = re.compile(
    r"\bdeliver(?:y|ed|s|ing)?\b|\blead[\s\-]?time\b|\bship(?:ping)?\s+time\b|交货|交期|到货|发货|交付(?:周期|时间|要?多久)|多久(?:能|可以|才能)?交付"
    # "how long until the servers arrive?"
    r"|\b(?:servers?|gpus?|machines?|hardware|boxes|cards?|they)\s+(?:to\s+)?(?:arrive|show up|ship)\b|\barrival\b",
    re.I,
)
# What a unit of the work costs ("cost per million tokens?", "每个token成本多少", "how much per GPU-hour
# are we really paying?"): the rent over the tokens and over the GPU-hours the job runs
UNIT_COST = re.compile(
    r"\b(?:cost|price|rent|spend)s?\s+(?:per|a|each|for\s+(?:a|one|each))\s+(?:million\s+|billion\s+|1m\s+|1b\s+|m\s+)?tokens?\b"
    r"|\bper[- ](?:million[- ]|billion[- ])?tokens?\b|\btoken\s+(?:cost|price)\b"
    r"|(?:每|一)\s*(?:个|百万|千|万|亿)?\s*(?:个\s*)?token.{0,4}(?:成本|多少钱|花费|费用|价格)|token\s*(?:的)?(?:成本|单价)"
    r"|\beffective\s+(?:rate|price|cost)\b|\bper\s+gpu[- ]?hour\b.{0,20}\b(?:really|actually|effectively)\b"
    r"|\b(?:really|actually|effectively)\b.{0,20}\bper\s+gpu[- ]?hour\b"
    r"|(?:实际|折合|相当于).{0,6}(?:每卡时|每卡每小时)|每卡时.{0,4}(?:实际|折合)",
    re.I,
)
# The bot's own call asked ("what would you do?", "which option do you recommend?", "你会怎么选"): the
# plan with the options around it and the next steps, not "I could not tell"
RECOMMEND = re.compile(
    r"^\W*(?:(?:so|ok|okay|and|well|then|hmm)\W+)*(?:what would you (?:do|pick|choose|go with|recommend)"
    r"|what do you (?:recommend|suggest|advise)|which (?:option|plan|one) (?:do|would|should) (?:you|we)"
    r" (?:recommend|suggest|pick|choose|go with|take)|what(?:'s| is) your (?:recommendation|advice|call|pick|verdict)"
    r"|(?:your|any) recommendation|if you were (?:us|me)(?: what would you do)?)\W*$"
    r"|^\W*(?:那|所以)?(?:你(?:会)?(?:怎么选|怎么做|选哪个|推荐哪个|建议怎么做|建议选哪个|的建议(?:是什么)?)"
    r"|如果是你(?:会)?(?:怎么(?:做|选))?|换(?:成)?你(?:会)?怎么(?:做|选)|最后(?:选|定)哪个|推荐哪个方案|你推荐什么)"
    r"\W*(?:呢|吗|啊)?\W*$",
    re.I,
)
# Whether the plan fits the budget, asked ("over budget?", "超预算了吧？", "预算只有10万，怎么办"): the
# answer from the plan's own budget figures, not the same plan again or the FAQ's small-budget advice
BUDGET_ASKED = re.compile(
    r"\bover (?:the |our |my |your )?budget\b|\b(?:within|under|inside|in) (?:the |our |my )?budget\b"
    r"|\bfits? (?:in|into|within) (?:the |our |my )?budget\b|\b(?:exceed|blow|bust)\w* (?:the |our |my )?budget\b"
    r"|\bbudget is (?:only|just|tight|fixed|limited)\b"
    r"|\bbudget\b.{0,25}\b(?:enough|what (?:now|can we do)|what do we do)\b"
    r"|超(?:出|过)?了?预算|预算(?:只有|就|不够|有限|之内|范围内|内|紧|不多|吃紧)|预算.{0,12}(?:怎么办|够吗|够不够|能行吗|行吗|够用吗)"
    r"|在预算(?:内|之内|范围内)"
    # the plan within the budget that the warning names, asked about ("满足预算那个H200 14天是啥意思")
    r"|满足预算|预算(?:内|之内)?(?:的|那个)方案"
    r"|\b(?:the )?(?:budget|within-budget) (?:option|plan|one)\b|\bmeets? (?:the |our )?budget\b"
    # what the budget buys, asked of its own amount ("10万块钱最多能干到啥程度", "what can 100k get us?")
    r"|(?:最多)?能(?:干|做)到(?:啥|什么)程度|能买到什么|\bwhat (?:can|does|would) (?:\S+ )?(?:get|buy) us\b",
    re.I,
)
# Another market: a cloud, a currency, a place outside mainland China ("what about Singapore?").
MARKET = re.compile(
    r"\b(?:aws|amazon|gcp|google cloud|azure|lambda|runpod|coreweave|oracle|oci|u\.s\.|america|abroad|overseas"
    r"|in (?:the )?(?:us|usa|states|west)"
    rf"|dollars?|usd|global(?!\s*(?:batch|step|norm|rank|size))|international|{PLACES_ABROAD_EN})\b"
    rf"|美元|美金|亚马逊|{PLACES_ABROAD_ZH}",
    re.I,
)
CHINA = re.compile(
    r"\b(?:china|cny|rmb|yuan|renminbi|aliyun|alibaba|autodl|tencent|volcengine)\b|人民币|国内|阿里云|腾讯云|火山引擎|天翼云",
    re.I,
)

# The same plan's money in the other currency ("in CNY?", "how much is that in dollars?",
# "换成人民币是多少", "折合多少美元"): converted at the book's rate, not re-planned in another market
CONVERT = re.compile(
    r"\b(?:in|to|into)\s+(?:cny|rmb|yuan|renminbi|usd|(?:us\s*)?dollars?)\b"
    r"|(?:换成|换算成?|折合成?|折算成?|兑换成?|算成)\s*(?:人民币|美元|美金|rmb|cny|usd)"
    r"|(?:人民币|美元|美金)\s*(?:是|算|合)?\s*多少|多少(?:钱)?\s*(?:人民币|美元|美金)"
    r"|^\W*(?:usd|cny|rmb|(?:us\s*)?dollars?|yuan|美元|美金|人民币)\W*$",
    re.I,
)
TO_CNY = re.compile(r"\b(?:cny|rmb|yuan|renminbi)\b|人民币", re.I)
# The currency words of MARKET and CHINA: with them left out, what those still find is a market or
# a cloud named ("in USD on AWS", "国内人民币价格"), a re-plan there, not a conversion
CURRENCY_WORD = re.compile(r"\b(?:usd|cny|rmb|yuan|renminbi|(?:us\s*)?dollars?)\b|人民币|美元|美金", re.I)


def _market_named(message: str) -> bool:
    rest = CURRENCY_WORD.sub(" ", message)
    return bool(MARKET.search(rest) or CHINA.search(rest) or _provider(message))


# The price of a GPU type ("how much is an H100 per hour?", "what do H20s rent for", "H100一小时多少钱",
# "H20月租什么价"): the offers on record, not a change to the plan (the request language would read
# "一小时" as a one-hour deadline) and not a quote to judge (no amount).
# who has a GPU ("who has H100 in stock?", "哪里能租到H100"): the offers on record for that GPU
WHO_SELLS = re.compile(
    r"\bwho\s+(?:sells|rents|offers|leases|has)\b|\bin\s+stock\b|有货|现货|(?:哪里|哪儿|在哪)能?(?:租|买)(?:到|得到)",
    re.I,
)
GPU_PRICE = re.compile(
    r"\b(?:prices?|pricing|rates?|costs?|rent(?:s|ing)? for|go(?:es)? for|hourly|monthly|how much|quotes?)\b"
    r"|多少钱|什么价|啥价|价格|价钱|行情|租金|(?:一|每)(?:个)?(?:小时|月)(?:要|得)?多少|(?:时|月)租|"
    + WHO_SELLS.pattern,
    re.I,
)
IN_THE_US = re.compile(r"\b(?-i:US|USA)\b|\bin (?:the )?(?:us|usa|states)\b", re.I)
HOURLY = re.compile(r"\b(?:hourly|per (?:gpu[- ]?)?hour|an hour|/\s*h(?:r|our)?)\b|小时|时租|卡时", re.I)
MONTHLY = re.compile(r"\b(?:monthly|per month|a month|/\s*mo(?:nth)?)\b|(?:每|一)(?:个)?月|月租|包月", re.I)
# The job, not the GPU: "how much would it cost on A800?", "what would we pay on H20?", "how much on
# H100?", "A800上要多少钱", "用H20要多少钱" are what-ifs on the plan.
THE_JOB = re.compile(
    r"\b(?:it|this|that|the (?:job|plan|training|run)|we|our)\b|\b(?-i:us)\b"
    r"|\b(?:on|with|using|switch(?:ing)? to|move to)\s+(?:an?\s+|the\s+)?(?:\d+\s*[x×]?\s*)?(?:nvidia\s+)?"
    r"[a-z]{0,5}\s?-?\d{2,4}"
    # (在 of 现在 "now", 正在, 实在 is no "on": "现在H800租一个月多少钱" asks the price)
    # (用 of 租用 is renting: "租用8卡A100一个月多少钱" asks the price)
    r"|(?:(?<!租)用|(?<!现|正|实|存|所|还)在|换成?|改用)\s*(?:\d+\s*(?:张|卡|块|台)?)?\s*(?:华为|昇腾|英伟达|英伟达的)?\s*[a-z]{0,5}\s?\d{2,4}"
    r"|\d{2,4}[a-z]?\s*(?:上|的话)|(?:这个|这次)(?:任务|训练|方案)"
    # "what would H800 cost": the job on it, said conditionally ("what does an H800 cost?" is its price)
    r"|\bwhat would\b.{0,25}\bcost\b"
    # "how much faster would H200 be?": the job's time on it, not its price
    r"|\bhow\s+much\s+(?:faster|slower|quicker|sooner|longer|shorter)\b",
    re.I,
)
# A GPU named in a message: a maker's prefix, letters and a 2-4 digit number ("H100", "rtx 4090",
# "Ascend 910B", "A800-80GB"), as the catalogue spells it.
_GPU_WORD = re.compile(
    # (a space between letters and digits only after two or more: "MI 300X", not "a 10-run sweep")
    r"(?<![a-z0-9])(?:\d{1,4}\s*[x×*]\s*)?(?:(?:nvidia|geforce|rtx|ascend|huawei|tesla|amd|instinct)\s?)*"
    r"(?:[a-z]{2,3}\s?|[a-z]?)-?\d{2,4}[a-z]?"
    r"(?:\s?ada(?:\s+generation)?(?![a-z]))?"  # a generation after the number ("RTX 6000 Ada")
    r"(?:-(?:sxm\d?|pcie|\d{2,3}gb?))*"
    # a maker's name for its one training part ("昇腾那个便宜点", "the ascend option")
    r"|昇腾(?!\s?\d)|(?<![a-z])ascend(?!\s?-?\d)(?![a-z])",
    re.I,
)


COMPARED_WITH = re.compile(r"(?:跟|和|与|同)\s*\S{2,20}?\s*(?:比|相比|对比)|\bcompared?\s+(?:with|to)\b", re.I)
WHICH_BETTER = re.compile(
    r"\bwhich\b.{0,30}\b(?:better|best|faster|cheaper|pick|choose|should)\b|\bvs\.?\b|\bversus\b|\bor\b.{0,40}\bbetter\b"
    r"|^\W*\S+\s+(?:or|还是)\s+\S+\W*$"
    r"|哪个(?:更|最)?(?:好|快|便宜|划算|合适)|选哪个|还是.{0,12}(?:好|选|用)"
    # "which is cheapest?" under a three-way comparison (had been "could not tell")
    r"|\bwhich\b.{0,30}\b(?:cheapest|fastest|quickest)\b",
    re.I,
)


# Starting on fewer servers and adding the rest later ("can we start with 1 server and add more later?",
# "先租一台试试，以后再加可以吗"): the plan on the servers started with, then the FAQ's how (grow_later);
# the count had been read as servers added to the plan's (224 GPUs became 232)
GROW_LATER = re.compile(
    r"\b(?:start|begin|starting|beginning)\b.{0,40}\b(?:add|expand|scale|grow|buy|rent)\w*\b.{0,30}"
    r"\b(?:later|after(?:wards?)?|when|as|next|once|if)\b"
    r"|\b(?:add|expand|grow|scale\s+(?:up|out))\b.{0,25}"
    r"\b(?:later|down the (?:road|line)|next (?:year|quarter|month))\b"
    r"|先.{0,12}(?:以后|之后|后面|后期|不够|再).{0,4}(?:加|扩)|(?:以后|之后|后面|后期)(?:再)?(?:扩容|加机器|加卡|扩展|加服务器)"
    # in two lots ("能不能分两批租", "split the order into two batches"): half first
    # ("能不能分两批跑" is a run paused and resumed: PAUSED)
    r"|分(?:两|2|二)批(?=租|买|上|到|采购|下单|交付)|\b(?:rent|buy|lease|order)\w*\b.{0,20}\b(?:in|into)\s+two\s+(?:batches|lots)\b",
    re.I,
)
# the servers (or GPUs) a start is made on ("start with 1 server", "先租一台", "先买两台8卡")
GROW_FROM = re.compile(
    r"\b(?:start|begin|starting|beginning)\w*\s+(?:with|on|by\s+(?:renting|buying))\s+(?:just\s+|only\s+)?"
    r"(?P<n>\d+|one|two|three|four|a|an)\s*(?:x\s*)?(?P<unit>servers?|nodes?|machines?|boxes|gpus?|cards?)\b"
    r"|先(?:租|买|上|用|拿)?\s*(?P<n_zh>\d+|[一两二三四五六七八九十])\s*(?P<unit_zh>台|张卡|张|块卡|卡)"
    # "start with half", "先用一半": half the plan's GPUs
    r"|\b(?:start|begin)\w*\s+(?:with|on)\s+(?:just\s+)?(?P<half>half)\b|先(?:租|买|上|用)?(?P<half_zh>一半)"
    r"|(?P<halves>分(?:两|2|二)批(?=租|买|上|到|采购|下单|交付)|\b(?:in|into)\s+two\s+(?:batches|lots)\b)",
    re.I,
)
_COUNT_WORDS = {"one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4}


def _grow_from(summary: dict, message: str) -> int | None:
    """The GPUs a start on fewer servers is made on (`GROW_FROM`), or None when no count is said."""
    said = GROW_FROM.search(message)
    if not said:
        return None
    if said["half"] or said["half_zh"] or said["halves"]:
        return int(summary.get("gpu_count") or 0) // 2 or None
    n_text, unit = (said["n"], said["unit"]) if said["n"] else (said["n_zh"], said["unit_zh"])
    n = _COUNT_WORDS.get(n_text.lower()) or (_zh_number(n_text) if not n_text.isdigit() else int(n_text))
    servers = bool(re.match(r"servers?|nodes?|machines?|boxes|台", unit, re.I))
    return int(n * (summary.get("gpus_per_node") or 8)) if n and servers else (int(n) if n else None)


# One of the answer's alternatives picked ("let's go with option 2", "the second alternative", "第二个方案呢",
# "show me the cheaper, slower one", "the LoRA option"): the plan on it, as its what-if (they had drawn the menu or
# the GPU comparison); by its place in the list or by its label's words
_ORDINALS = {
    "first": 1,
    "1st": 1,
    "second": 2,
    "2nd": 2,
    "third": 3,
    "3rd": 3,
    "fourth": 4,
    "4th": 4,
    "fifth": 5,
    "5th": 5,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "last": -1,
    "最后一": -1,
}
ALTERNATIVE_PICKED = re.compile(
    r"\b(?:option|alternative|choice)\s*(?:#|no\.?|number)?\s*(?P<n>[1-5])\b"
    # (at the message's end: "our first choice is H800" picks nothing)
    r"|\b(?:the\s+)?(?P<ord>first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th|last)\s+(?:option|alternative|one)\b"
    r"(?=\W*(?:please|instead|then)?\W*$)"
    # (第一个 before anything else is no pick: "第一个epoch的loss", "第一个checkpoint什么时候存")
    r"|(?:第(?P<ord_zh>[一二三四五1-5])|(?P<last_zh>最后一))\s*(?:个|种|条)\s*(?:备选)?\s*"
    r"(?:方案|备选|选项|选择|替代|(?=\s*(?:呢|吧)?\W*$))",
    re.I,
)
# an alternative named by its label ("the cheaper, slower one", "the LoRA option", "the consumer cards option",
# "the A100 alternative"): the label, or the GPU's words, then one/option/alternative
ALTERNATIVE_LABELS = (
    ("cheaper_slower", r"cheaper,?\s*(?:and\s+)?slower|便宜.{0,3}慢"),
    ("faster_dearer", r"faster,?\s*(?:and\s+)?(?:dearer|pricier|more\s+expensive)|快.{0,3}贵"),
    ("lora", r"\blora\b"),
    ("consumer", r"consumer|gaming|消费级"),
    ("one_server", r"one[\s-]server|single[\s-]server|单机|一台"),
    ("fewer_nodes", r"fewer\s+(?:servers|nodes)|少.{0,2}台"),
    ("on_gpus", r"without\s+offload|no[\s-]offload|不卸载"),
)
ALTERNATIVE_NAMED = re.compile(
    r"\bthe\s+(?P<what>[^?？.!。]{2,30}?)\s+(?:one|option|alternative|choice|plan)\b(?=\W*(?:please|instead|then)?\W*$)"
    r"|(?P<what_zh>[^？?。！!]{2,12}?)(?:那个|那种)(?:方案|备选|选项)?\W*(?:呢|吧)?\W*$",
    re.I,
)


def _picks_another(message: str, summary: dict) -> bool:
    """Whether a choice announced ("let's go with the LoRA one", "go with the A100 one") names an
    alternative by its label or a GPU other than the plan's: the plan on it is the answer, where the
    plan's own choice is the team talking (it had been silent)."""
    named = ALTERNATIVE_NAMED.search(message)
    if named is None:
        return False
    words = named["what"] or named["what_zh"]
    if any(re.search(rx, words, re.I) for _, rx in ALTERNATIVE_LABELS):
        return not (summary.get("method") == "lora" and re.search(r"\blora\b", words, re.I))
    return bool(set(_gpus_named(words)) - {summary.get("gpu")})


def _alternative_picked(request_text: str, summary: dict, message: str, lang: str, book: PriceBook) -> FollowUp | None:
    """The plan on the alternative a message picks, as its what-if, led by which it is; None when it
    picks none of them."""
    said = ALTERNATIVE_PICKED.search(message)
    named = None if said else ALTERNATIVE_NAMED.search(message)
    if not said and not named:
        return None
    result = advise(request_text, lang, book=book)
    alts = list(result.result.alternatives) if result.result else []
    if not alts:
        return None
    if said:
        n = (
            int(said["n"])
            if said["n"]
            else _ORDINALS.get((said["ord"] or said["ord_zh"] or said["last_zh"] or "").lower())
        )
        if said["ord_zh"] and said["ord_zh"].isdigit():
            n = int(said["ord_zh"])
        if not n or n > len(alts):
            return None
        alt = alts[n - 1] if n > 0 else alts[-1]
    else:
        words = named["what"] or named["what_zh"]
        label = next((lab for lab, rx in ALTERNATIVE_LABELS if re.search(rx, words, re.I)), None)
        gpu = gpu_named(words)
        alt = next((a for a in alts if (label and a.label == label) or (gpu and not label and a.gpu == gpu)), None)
        if alt is None and gpu and not label and gpu != summary.get("gpu"):
            # a GPU no alternative is on ("go with the A100 one" under a LoRA plan): the plan on it
            read = read_whatif(request_text, summary, f"what if {gpu}?", lang)
            return _whatif(request_text, summary, *read, lang, book) if read else None
        if alt is None:
            return None
    count = alt.estimate.layout.gpu_count
    change = f"what if {'lora on ' if alt.label == 'lora' else ''}{count} {alt.gpu}?"
    read = read_whatif(request_text, summary, change, lang)
    if read is None:
        return None
    lead = render("followup.txt.j2", lang, kind="alternative_picked", n=alts.index(alt) + 1, alt=alt).strip()
    return _led(_whatif(request_text, summary, *read, lang, book), lead)


# A used GPU asked of a plan ("二手3090行吗", "what about used A100s?")
# ("used" only before a GPU's name, "used A100s", "used 8x 3090": "which framework is used on H100?" is
# no such question)
USED_GPU = re.compile(
    # "used" after a subject is the verb ("what if we used 3090s instead?": the plan on 3090s)
    r"二手|翻新|拆机|(?<!we )(?<!\bi )(?<!you )(?<!they )\bused\s+(?:\d+\s*x?\s*)?[a-z]*\d"
    r"|second[\s-]?hand|refurbished|pre-?owned",
    re.I,
)


# Why one option is faster or cheaper ("为什么H200更快", "why is B200 faster?"): the verdict, which says by
# how much and from what (each GPU's peak and MFU); it had been the FAQ's text on the GPU named.
WHY_AHEAD = re.compile(
    r"\bwhy\b.{0,40}\b(?:faster|quicker|slower|cheaper|more expensive|dearer|so fast|so slow)\b"
    r"|(?:为什么|为啥|怎么).{0,16}(?:更快|快这么多|这么快|更慢|慢这么多|这么慢|更便宜|便宜这么多|这么便宜|更贵|贵这么多|这么贵)",
    re.I,
)


def _gpus_named(message: str) -> dict[str, str]:
    """The GPU types a message names: catalogue name -> the word as written, in order. A match is
    tried as it stands, without a word before it ("for 4090s"), without its count ("8xH800") and
    without a plural ("H20s")."""
    found: dict[str, str] = {}
    for m in _GPU_WORD.finditer(message):
        # the card's memory after its name ("can we use A100 40GB?": the 40 GB part, as a request reads it)
        size = re.match(r"\s*(\d{2,3})\s*g(?:b|ib)?(?![a-z0-9])", message[m.end() :], re.I)
        # "8xH800": the GPU after its count
        for word in (m[0], m[0].split()[-1], re.sub(r"^\d{1,4}\s*[x×*]\s*", "", m[0])):
            gpu = catalog.find_gpu(word) or catalog.find_gpu(re.sub(r"(?<=\d)s$", "", word))
            if gpu is not None:
                sized = catalog.find_gpu(f"{word}-{size[1]}gb") if size else None
                found.setdefault((sized or gpu).name, word)
                break
    return found


# How a message names a compared training method beyond its own word ("full" or 全参 for full
# fine-tuning; LoRA not inside QLoRA)
_METHOD_NAMED = {
    "full-finetune": r"full|全参|全量",
    "lora": r"(?<!q)lora",
    "pretrain": r"(?<!continued[- ])pretrain|预训练",
}


# A count asked to match the other option's time ("how many H20s to match the H800 time", "H20要多少张
# 才能跟H800一样快"): the named option re-planned on that time
MATCH_TIME = re.compile(
    r"\b(?:match|as fast as|same (?:time|speed|days?)|keep up with|catch up)\b"
    r"|一样快|同样(?:的)?(?:时间|速度|天数)|(?:追|赶)(?:得)?上|(?:跟|和|与)\s*\S{2,16}?\s*一样|达到\s*\S{2,16}?(?:速度|时间|水平)|打平",
    re.I,
)
COUNT_WORD = re.compile(r"how many|(?:几|多少)\s*(?:张|块|台|个)?|number of", re.I)
# The words that put it to both, left out of what each option is asked ("what if 30 days for both?")
BOTH_WORDS = re.compile(
    r"\s*\b(?:for|on|in|of|with) (?:both|each|either)(?: (?:plans?|options?|of them))?\b|\bboth\b\s*"
    r"|\b(?:the )?two (?:plans|options)(?:'s?)?\s*"
    r"|(?:这)?两个(?:方案|选项|配置)(?:都|的|各|分别)?|两种(?:方案|卡|配置)(?:都|的|各|分别)?|两者(?:都|的)?|分别|各自",
    re.I,
)
# A question put to both options at once ("两个方案网络要求一样吗", "do both need infiniband?"):
# answered on each
BOTH_ASKED = re.compile(
    r"\b(?:both|each|either)\b(?!\s+(?:gpu|card)s?\s+(?:is|are)\s+(?:better|cheaper|faster))"
    r"|\b(?:the )?two (?:plans|options)\b|两个(?:方案|选项|配置)?|两种(?:方案|卡|配置)?|两者|分别|各自"
    # "which one needs more power?", "哪个要的内存多": each option's figure, set side by side
    r"|^\W*which (?:one|of (?:them|the two|these))\b(?!.{0,20}\b(?:cheaper|faster|better|should|recommend|pick)\b)"
    r"|哪(?:个|一个|种)(?:方案)?(?!.{0,8}(?:便宜|快|好|划算|合适|推荐|选))",
    re.I,
)


def _team_talk(message: str) -> bool:
    """Thanks or the team's next steps with no question and none of the plan's words ("👍 thanks,
    forwarding to finance", "收到，感谢大佬", "好嘞，我去跟老板汇报"): people talking, no reply."""
    if QUESTION.search(message) or DOMAIN.search(message):
        return False
    ack = rf"(?:好嘞|好勒|大佬|okk+|{_THANKS})"
    rest = re.sub(rf"^\W*{ack}(?:[\s,，.!。~、]*{ack})*", "", message, flags=re.I)
    return (
        rest != message
        and (not rest.strip(" ,，.!。~") or bool(TEAM_TALK.search(rest)))
        or bool(TEAM_TALK.search(message) and len(message) <= 40)
    )


def _sides_named(summary: dict, message: str) -> list[dict]:
    """The options of a comparison's thread a message names (a GPU type, a method or a preference
    tuning), in the comparison's order."""
    sides = summary["compared"]
    if summary.get("by", "gpu") == "gpu":
        found = _gpus_named(message)
        return [
            s
            for s in sides
            if any(_names_the_plans(word, catalog.get_gpu(name), s["option"]) for name, word in found.items())
        ]
    return [
        s
        for s in sides
        if re.search(_METHOD_NAMED.get(s["option"], rf"(?<![a-z]){re.escape(s['option'])}(?![a-z])"), message, re.I)
    ]


def _to_match(summary: dict, message: str) -> tuple[dict, str] | None:
    """ "how many H20s to match the H800 time": the option the count is asked of, and the what-if
    that re-plans it on the other option's time (had been the menu, on the cheaper option)."""
    count = COUNT_WORD.search(message)
    if not (count and MATCH_TIME.search(message) and summary.get("by", "gpu") == "gpu"):
        return None
    found = _gpus_named(message)
    named = _sides_named(summary, message)
    if len(named) != 2 or len(found) != 2:
        return None

    def distance(side: dict) -> int:
        # the option named nearest the count word is the one counted
        word = next(w for n, w in found.items() if _names_the_plans(w, catalog.get_gpu(n), side["option"]))
        at = message.lower().find(word.lower())
        return max(0, count.start() - (at + len(word)), at - count.end())

    side, other = sorted(named, key=distance)
    days = other["summary"].get("days")
    if not days:
        return None
    return side, f"what if {days:.3g} days?"


def _on_each(summary: dict, message: str, lang: str | None, book: PriceBook, mentioned: bool) -> FollowUp | None:
    """ "两个方案网络要求一样吗", "do both need infiniband?": the question answered on each option, one
    after the other, what the answers share said once. None where an option asks for a change (a
    what-if is asked of one option, unless both are asked) or does not answer."""
    asked = BOTH_WORDS.sub(" ", message).strip() or message
    replies = [
        (s, follow_up(s["request"], s["summary"], asked, lang, book=book, mentioned=mentioned))
        for s in summary["compared"]
    ]
    kinds = {r.kind for _, r in replies}
    changes = {"whatif", "market", "unchanged", "quote"} if not BOTH_ASKED.search(message) else set()
    if kinds & ({"silent", "prices"} | changes) or any(r.kind == "question" and not r.faq for _, r in replies):
        return None
    first = replies[0][1]
    if any(r.faq and not r.faq.get("confident") for _, r in replies):
        return None  # the menu, or a topic guessed
    if len({r.text.strip() for _, r in replies}) == 1:
        return first  # the same answer on each (a FAQ topic without the plan's numbers)
    parts, bodies = [], []
    for s, r in replies:
        text = r.text.strip()
        if r.faq and r.faq.get("used_plan") and "\n\n" in text:
            # a FAQ topic's answer: its line on this option's plan here, the topic's text once below
            text, body = text.split("\n\n", 1)
            bodies += [body] if body not in bodies else []
        parts.append(phrase(first.lang, "compared_head", s["option"], summary.get("by", "gpu")) + "\n" + text)
    text = "\n\n".join(parts + bodies)
    on = phrase(first.lang, "compared_each")
    return FollowUp(kind="explain", part="sides", lang=first.lang, faq=first.faq, on=on, text=text)


def _compared_side(summary: dict, message: str) -> tuple[dict, bool]:
    """The option of a comparison's thread a message asks about, and whether it named it: the one
    option it names (a GPU type, a method or a preference tuning), else the cheaper, else the first."""
    sides = summary["compared"]
    named = _sides_named(summary, message)
    if len(named) == 1:
        return named[0], True
    return next((s for s in sides if s["option"] == summary.get("cheaper")), sides[0]), False


# An amount as a thread quotes a figure back ("¥1.94M", "194万", "$6,143", "6143", "1.9m"): number, scale
_AMOUNT = re.compile(r"(?<![A-Za-z0-9_.])[¥$￥]?\s*(\d[\d,]*(?:\.\d+)?)\s*(k|m|w|万|亿)?(?![A-Za-z0-9_.%])", re.I)
_SCALE = {"k": 1e3, "m": 1e6, "w": 1e4, "万": 1e4, "亿": 1e8}
# How close an amount must come to a figure of the plan to be that figure quoted back (assumed: a
# figure rounded to three digits, "¥1.94M" for ¥1,943,189, is within 1%)
QUOTED_BACK = 0.01


def _quotes_the_plans_money(message: str, summary: dict) -> bool:
    """Whether the message quotes back one of the plan's money figures (its rent, purchase or the
    rent instead of buying), as written or rounded: it asks about that figure, not a vendor's."""
    if BUDGET_WORD.search(message) or re.search(r"\bif\b|如果|假如|要是", message, re.I):
        return False  # "如果预算10万呢", "if we had ¥2M?": a what-if, whatever figure it comes near
    figures = [summary.get(k) for k in ("rent_total", "buy_capex", "rent_instead_total")]
    figures = [f for f in figures if f and f >= 100]  # a small amount is likelier a rate than the total
    for m in _AMOUNT.finditer(message):
        digits = m[1].replace(",", "")
        scale = _SCALE.get((m[2] or "").lower(), 1)
        value = float(digits) * scale
        # the last digit written, of two or more: "14万" is any figure from ¥135,000 to ¥149,999
        # (rounded or cut off); "2M" is too round to be a figure read off the plan
        unit = 10 ** -len(digits.partition(".")[2]) * scale
        close = len(digits.replace(".", "").lstrip("0")) >= 2
        if any(abs(value - f) <= QUOTED_BACK * f or (close and value - unit / 2 <= f < value + unit) for f in figures):
            return True
    return False


def _names_the_plans(word: str, gpu, plan_gpu: str) -> bool:
    """Whether a GPU as written names the plan's part: the same part, or a bare family name
    ("A100") whose variants include it (the plan's A100-SXM4-40GB)."""
    return plan_gpu == gpu.name or plan_gpu in other_variants(word, gpu)


def _choice_compared(request_text: str, summary: dict, message: str, lang: str, book: PriceBook) -> FollowUp | None:
    """ "lambda vs coreweave?", "阿里云还是火山引擎", "h200 vs b200?" under a plan on neither: the
    thread's job planned on each cloud's own offers, or on each GPU type, side by side (it had been
    re-planned on the first cloud alone; the GPUs had got the FAQ's text on them); None where the
    message names fewer than two as a choice, or the plan's GPU among them ("why not X?" answers)."""
    if not WHICH_BETTER.search(message):
        return None
    row = fields.field("cloud")
    en = spelled([s for c in row.choices for s in c.en])
    zh = spelled([s for c in row.choices for s in c.zh])
    clouds = re.findall(rf"(?<![a-z0-9])(?:{en})(?![a-z0-9])|{zh}", message, re.I)
    gpus = _gpus_named(message)
    if len({value_of(row.choices, w) for w in clouds}) >= 2:
        by, words, drop = "cloud", clouds, {"cloud": None}
    elif len(gpus) >= 2 and summary.get("gpu") not in gpus:
        by, words, drop = "gpu", list(gpus.values()), {"gpu": None, "gpu_count": None}
    else:
        return None
    try:
        base = canonical(parse(request_text, lang).model_copy(update=drop))
        compared = compare(f"{base} {' vs '.join(words[:MOST_COMPARED])}", lang, book=book)
    except RequestError:
        return None
    if compared is None or compared.by != by:
        return None
    return FollowUp(kind="explain", part="compared", lang=lang, text=render_comparison(compared))


def _the_other_gpu(message: str, plan_gpu: str) -> str | None:
    """In a message naming two GPU types, one of them the plan's: the other one, as written."""
    found = _gpus_named(message)
    if plan_gpu not in found or len(found) != 2:
        return None
    return next(word for name, word in found.items() if name != plan_gpu)


def gpu_named(message: str) -> str | None:
    """The catalogue name of the first GPU a message names, if any."""
    return next(iter(_gpus_named(message)), None)


def gpu_prices(
    message: str, lang: str, book: PriceBook, market: str | None = None, specs: bool = True
) -> FollowUp | None:
    """ "how much is an H100 per hour?": the GPU's offers on record, both markets (asked in Chinese,
    mainland China's unless abroad is named, as a plan is priced), cheapest first, each with its
    provider, terms, date and age; what a sum buys where that is asked (`budget_buys`); None when
    the message asks no GPU's price; with `specs`, two to four GPU types named with no job
    (`side_by_side`)."""
    bought = (
        capacity_asked(message, lang)
        or budget_trains(message, lang, book)
        or budget_buys(message, lang, book)
        or lead_time(message, lang)
        or quote_judged(message, lang, book)
        or purchase_judged(message, lang, book)
        or (rent_against_buy(message, lang, book) if specs else None)
        or (hardware_rent_or_buy(message, lang, book) if specs else None)
        or serving_first(message, lang)
        or (side_by_side(message, lang, book, market) if specs else None)
    )
    if bought is not None:
        return bought
    if POWER_ASKED.search(message) or TREND_ASKED.search(message):
        return None  # "how much power does a DGX H100 draw?": the FAQ's power topic, not its prices
    # ("we need 8xH100 for 6 months, what's a fair monthly price?": GPUs counted for a term are the price asked,
    # whoever says "we", with no price word ("8x H100 for a year?"); both had drawn the price-trend topic)
    leased = gpus_said(message) is not None and _months_said(message) is not None
    # providers named as a choice ("is it cheaper to rent H100s on RunPod or Lambda?"): their offers (the
    # price-trend topic had answered)
    named_providers = [(name, mkt) for words, name, mkt in PROVIDERS if re.search(words, message, re.I)]
    providers = [name for name, _ in named_providers]
    between = len(providers) >= 2 and bool(CHEAPER_BETWEEN.search(message))
    # a sum asked to cover GPUs counted for a term ("租4台8卡A800，一年，预算够不够80万": refused on 80万)
    covered = leased and SUM_ENOUGH.search(message) and (money_said(message) or _bare_yuan(message))
    if (
        not (GPU_PRICE.search(message) or leased or between)
        or (HAS_AMOUNT.search(message) and not covered)
        or (THE_JOB.search(message) and not (leased or between))
    ):
        return None
    gpu = gpu_named(message)
    if gpu is None:
        return None
    # the market and the billing period asked about, if any ("in the US", "hourly", "月租")
    markets = (
        ("global",)
        if MARKET.search(message) or IN_THE_US.search(message)
        else ("china",)
        if CHINA.search(message)
        # in a plan's thread, the plan's market (probe T: "vs H100 price/perf?" under a plan in
        # dollars had listed mainland leases in yuan first)
        else (market,)
        if market
        else ("china",)
        if lang == "zh"
        else ("china", "global")
    )
    kinds = (
        ("rent_hour", "offpeak_hour")
        if HOURLY.search(message)
        else ("rent_month",)
        if MONTHLY.search(message)
        else ("rent_hour", "rent_month", "offpeak_hour")
    )
    listed = current_prices(book, gpu, per_gpu=None)
    mainland = any(o["market"] == "china" and o["kind"] in kinds for g in listed for o in g["offers"])
    if markets == ("china",) and not CHINA.search(message) and not mainland:
        # asked in Chinese of what the mainland has no offer of (H100 by the hour): both markets
        markets = ("china", "global")
    elif (
        markets == ("global",)
        and market
        and not any(o["market"] == "global" and o["kind"] in kinds for g in listed for o in g["offers"])
    ):
        markets = ("china", "global")  # the plan's market has none of this GPU: both
    if between:
        markets = tuple({mkt for _, mkt in named_providers})
    elif covered and not (MARKET.search(message) or CHINA.search(message)) and covered[1] in ("USD", "CNY"):
        # a sum in dollars is weighed on the global clouds, one in yuan on the mainland, where they list the GPU
        own = "global" if covered[1] == "USD" else "china"
        if any(o["market"] == own and o["kind"] in kinds for g in listed for o in g["offers"]):
            markets = (own,)
    groups = [
        g
        | {
            "offers": [
                o
                for o in g["offers"]
                if o["market"] in markets
                and o["kind"] in kinds
                and (not between or any(name.lower() in o["provider"].lower() for name in providers))
            ][:PRICES_IN_A_REPLY]
        }
        for g in listed
    ]
    # what buying costs too: a team asking a GPU's price may be asking what one costs to own
    # a price quoted in another currency than its market's (a card in China at $12,000) is said in
    # the market's too, at the book's rate
    bought = [
        {"kind": kind, "price": o.price, "currency": o.currency, "gpus": o.gpus, "provider": o.provider,
         "as_of": o.as_of, "estimate": o.estimate, "market": market,
         "converted": _in_market_currency(book, o.price, o.currency, market),
         "converted_currency": MARKET_CURRENCY[market]}
        for market in markets
        for kind in ("buy_server", "buy_card")
        for o in sorted(book.offers(kind, gpu, market), key=lambda o: book.convert(o.price, o.currency, "USD"))[:1]
    ]  # fmt: skip
    buy_first = bool(bought and (BUYING.search(message) or SYSTEM_PRICED.search(message)))
    text = render("prices.txt.j2", lang, groups=groups, gpu=gpu, bought=bought, buy_first=buy_first, reply=True)
    lead = _lease_worked(message, lang, groups, book, covered or None)
    if between:
        # a provider named with no offer of the GPU on record is said ("A800 on AutoDL or Lambda": Lambda lists none)
        listed_by = " ".join(o["provider"].lower() for g in groups for o in g["offers"])
        missing = [name for name in providers if name.lower() not in listed_by]
        if missing:
            lead = render("slack/value.j2", lang, kind="no_offer_from", gpu=gpu, providers=", ".join(missing))
    return FollowUp(
        kind="prices",
        lang=lang,
        part=gpu,
        rows=groups,
        bought=bought,
        buy_first=buy_first,
        lead=lead,
        text=f"{lead}\n\n{text}" if lead else text,
    )


# A sum asked to be enough ("预算够不够80万", "is $500k enough for 64 H100 for 6 months?").
SUM_ENOUGH = re.compile(r"够不够|够吗|够用吗|足够吗|够了吗|\benough\b|\bafford\b|\bcover\b", re.I)
# A sum in 万 or 元 with no budget word beside it ("租8卡H20半年，30万够吗"): yuan.
BARE_YUAN = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*(万|百万|千万|亿|元)")


def _bare_yuan(message: str) -> tuple[float, str] | None:
    found = BARE_YUAN.search(message)
    return (float(found[1]) * _CN_SCALE.get(found[2], 1), "CNY") if found else None


# Which of the providers named costs less ("is it cheaper to rent H100s on RunPod or Lambda?",
# "AutoDL和阿里云哪个便宜").
CHEAPER_BETWEEN = re.compile(r"\b(?:cheaper|cheapest|less\s+expensive|better\s+(?:price|deal))\b|便宜|划算|省钱", re.I)


# GPUs counted in a price question ("租一年8卡H20多少钱", "8x H100 for a year?").
GPUS_COUNTED = re.compile(r"(\d+)\s*(?:卡|张|块|x(?![a-z])|×|\s*gpus?\b|\s*cards?\b|\s+(?=[a-z]+\d))", re.I)


# A term of use in words ("8x H100 for a year?", "for half a year", "8张H100一年多少钱", "租 64 张 H800
# 三个月多少钱": months in Chinese numerals had been read only after 租 within eight characters).
USE_A_TERM = re.compile(
    r"\bfor\s+(?P<n>a|one|half\s+a)\s+(?P<u>year|month)\b"
    r"|(?<![一二两三四五六七八九十])(?P<zn>[一二两三四五六七八九十]+|半)(?P<ge>个)?(?P<zu>年|月)",
    re.I,
)


def _months_said(message: str) -> int | None:
    """The months a price question says: a lease term, else months or years of use ("a quote for 4 nodes
    of H100 for 3 months", "we need 8xH100 for 6 months", "8x H100 for a year?")."""
    months = lease_term_asked(message)
    if months is None and (use := USE_MONTHS.search(message)):
        months = int(use[1]) * (12 if use[2].lower().startswith(("y", "年")) else 1)
    if months is None and (term := USE_A_TERM.search(message)):
        year = (term["u"] or term["zu"]).lower() in ("year", "年")
        if term["n"]:
            months = (12 if year else 1) // (2 if term["n"].startswith("half") else 1) or None
        elif year or term["ge"] or term["zn"] in ("一", "半"):  # 三月 is March, 三个月 three months
            count = 0.5 if term["zn"] == "半" else _zh_number(term["zn"]) or 0
            months = round(count * (12 if year else 1)) or None
    return months


def _lease_worked(
    message: str, lang: str, groups: list[dict], book: PriceBook, budget: tuple[float, str | None] | None = None
) -> str:
    """ "租一年8卡H20多少钱": that many GPUs over that term, priced as a plan of them would be
    (rent.rent_plan: an offer that takes that many GPUs in one order on that term, else the
    servers' own leases one by one, the term stated or assumed), and by the hour around the clock
    where an hourly offer takes them all; with a `budget` asked to cover it, what it leaves or
    lacks and the months it pays for; '' when the message says no count and term. The cheapest
    lease listed had been taken whatever its terms: `租64张H800三个月多少钱` was priced on a
    12-month lease of up to 16 GPUs, and by the hour on instances of up to 8."""
    # (servers counted are their GPUs: "need a quote for 4 nodes of H100 for 3 months", "租两台8卡H800半年")
    said, counted = gpus_said(message), GPUS_COUNTED.search(message)
    months, gpus = _months_said(message), said[1] if said else int(counted[1]) if counted else 0
    # the GPU and the market of the first rent listed (rent_plan takes no index or average as an offer:
    # "$1,752 per GPU-month (price index)" is not for sale)
    listed = [(g["gpu"], o["market"]) for g in groups for o in g["offers"] if o["kind"] in ("rent_month", "rent_hour")]
    if not months or not gpus or not listed:
        return ""
    gpu, market = listed[0]
    cur = MARKET_CURRENCY[market]
    servers = math.ceil(gpus / GPUS_PER_SERVER)
    rented = rent_plan(book, gpu, market, cur, gpus, servers, months * DAYS_PER_MONTH, asked_term=months)
    head = rented.headline
    if head is None or head.total is None:
        return ""

    def said_as(q) -> dict:
        return {"total": q.total, "currency": cur, "provider": q.price.provider, "as_of": q.price.as_of}

    lease = None
    if head.option == "monthly":
        rule = head.rule or (rented.estimate_rule or {}).get("rule", "")
        lease = said_as(head) | {
            "price": head.per_gpu_hour * HOURS_PER_MONTH,
            "term": head.term_months,
            "stated": head.term_stated,
            "rule": rule,
            "order": head.price.max_gpus,
            "discount": reserved_discount(head.term_months),
        }
    by_hour = head if head.option == "hourly" else rented.hourly
    hour = said_as(by_hour) | {"price": by_hour.per_gpu_hour} if by_hour and by_hour.total else None
    sum_ = None
    if budget:
        # against the cheaper of the two, in the sum's currency (a sum with none said is in the
        # offers' own: "80万" beside mainland offers, yuan)
        total = min(q["total"] for q in (lease, hour) if q)
        amount_cur = budget[1] or cur
        total = book.convert(total, cur, amount_cur)
        sum_ = {
            "amount": budget[0],
            "currency": amount_cur,
            "total": total,
            "months": int(budget[0] // (total / months)),
        }
    return render(
        "slack/value.j2",
        lang,
        kind="lease_worked",
        gpus=gpus,
        months=months,
        lease=lease,
        hour=hour,
        sum=sum_,
        wide=gpus > GPUS_PER_SERVER,
    )


# What a sum buys ("100万能买几台H20", "how many H100 servers can $2M buy?", "300万能买几台"): whole
# servers at the purchase price on record in the sum's market (owning.owning: a module price made a
# server, the cluster's switches and optics past one server), what is left, and what each server
# costs to run a year on top. Both probes had met the GPU's export-control timeline instead.
HOW_MANY_BOUGHT = re.compile(
    r"几台|多少台|几张|多少张|几块|多少块|\bhow\s+many\b|\bwhat\s+(?:can|does|will|would)\b.{0,40}\bbuy\b"
    # which GPUs a sum should buy ("200万经费买什么卡最划算", "what gpus should we buy with $500k"): the list
    r"|买(?:什么|哪种|哪个|哪款|啥)(?:显?卡|gpu|服务器)|\bwhat\s+(?:gpus?|servers?|cards?)\s+(?:should|to|can)\b.{0,30}\bbuy\b",
    re.I,
)
# A count of GPUs with no type ("64卡的训练集群", "a 64-GPU cluster").
WANTED_GPUS = re.compile(r"(?<![\d.])(\d{1,5})\s*(?:-\s*)?(?:卡|张卡|块卡|张GPU|张gpu|gpus?\b|cards?\b)", re.I)
# GPUs listed when the sum names none (the cheapest servers first).
GPUS_LISTED_FOR_A_SUM = 10
# A purchase price on record from before this many years ago is left out of that list (assumed: server
# prices move within a year or two; a GPU named is still priced, its date said)
STALE_PURCHASE_YEARS = 2


def _sum_in_market(message: str, book: PriceBook) -> tuple[float, str] | None:
    """The sum a message names, in the currency of the market it is spent in (dollars, or abroad
    named: global clouds; else mainland China), and that market; None without a sum."""
    said = money_said(message)
    if said is None:
        return None
    amount, currency = said
    market = "global" if currency == "USD" or MARKET.search(message) or IN_THE_US.search(message) else "china"
    return book.convert(amount, currency or MARKET_CURRENCY[market], MARKET_CURRENCY[market]), market


# A cluster to build with a sum ("what cluster should we build with ¥2M?", "200万预算搭一个什么样的集群"):
# the servers it buys (it had drawn the FAQ's compute-voucher topic)
CLUSTER_BUILT = re.compile(
    r"\b(?:what|which)\s+(?:kind\s+of\s+)?(?:cluster|servers?|hardware|setup|rig)\s+(?:should|could|can|to)\s+(?:we\s+|i\s+)?"
    r"(?:build|buy|get|set\s+up)\b|\bbuild(?:ing)?\s+(?:a\s+|our\s+own\s+|our\s+|an?\s+own\s+)?"
    # ("build a 64-GPU cluster with $2M, what should we buy?")
    r"(?:\d+[\s-]*(?:gpus?|cards?)\s+)?(?:gpu\s+|training\s+)?cluster\b"
    r"|(?:搭|建|组)(?:建)?(?:一个|个|一套|套)?(?:什么样的|怎样的|啥样的)?(?:gpu|训练)?(?:集群|机房)",
    re.I,
)


def budget_buys(message: str, lang: str, book: PriceBook) -> FollowUp | None:
    """The servers a sum buys (above); None when the message asks no such thing."""
    built = CLUSTER_BUILT.search(message)
    if not (built or (BUYING.search(message) and HOW_MANY_BOUGHT.search(message))):
        return None
    said = _sum_in_market(message, book)
    if said is None:
        return None
    budget, market = said
    currency = MARKET_CURRENCY[market]
    named = gpu_named(message)
    candidates = [catalog.get_gpu(named)] if named else [g for g in catalog.gpus() if market in g.markets]
    # the GPUs a cluster is to have, with no type named ("搭一个64卡的训练集群，预算1000万，买什么卡"): each type's
    # price for that many, within the sum or over it (the count had been unread)
    wanted = int(found[1]) if not named and (found := WANTED_GPUS.search(message)) else 0
    rows = []
    for gpu in candidates:
        one = owning(book, gpu, max(1, gpu.gpus_per_server), market, currency)
        if one is None:
            continue
        each = one.capex
        servers = int(budget // each)
        if servers > 1:  # past one server the cluster's network comes on top (owning.CLUSTER_EXTRA)
            servers = int(budget // (each * (1 + CLUSTER_EXTRA)))
            servers = max(servers, 1)
        spent = each * servers * (1 + (CLUSTER_EXTRA if servers > 1 else 0))
        # short of a server, the workstation of consumer or PCIe cards it buys (owning.is_workstation)
        station = None
        if not servers:
            fits = [w for k in range(1, 5) if is_workstation(gpu, k) and (w := owning(book, gpu, k, market, currency))]
            station = max((w for w in fits if w.capex <= budget), key=lambda w: w.gpus, default=None)
        rows.append(
            {
                "gpu": gpu.name,
                "per_server": max(1, gpu.gpus_per_server),
                "each": each,
                "servers": servers,
                "left": budget - spent,
                "running_year": (one.power_month + one.hosting_month + one.upkeep_month) * 12,
                "kw": gpu.server_power_kw,
                "provider": one.provider,
                "as_of": one.as_of,
                "basis": one.basis,
                "station_gpus": station.gpus if station else 0,
                "station": station.capex if station else 0.0,
                "wanted_servers": (need := math.ceil(wanted / max(1, gpu.gpus_per_server))),
                "wanted_cost": each * need * (1 + (CLUSTER_EXTRA if need > 1 else 0)),
            }
        )
    if not rows:
        return None
    rows.sort(key=lambda r: r["each"])
    if wanted:
        rows.sort(key=lambda r: r["wanted_cost"] > budget)  # those the sum pays for first, cheapest first
    stale = []
    if not named:
        # a price on record over STALE_PURCHASE_YEARS old is no price to buy at today (a 2020 DGX A100
        # list, a 2023 V100 survey had stood beside 2026 listings: lab probe); said, not listed
        year = dt.date.today().year - STALE_PURCHASE_YEARS
        stale = [r["gpu"] for r in rows if r["as_of"][:4] < str(year)]
        rows = [r for r in rows if r["gpu"] not in stale][:GPUS_LISTED_FOR_A_SUM]
    text = render(
        "budget_buys.txt.j2",
        lang,
        rows=rows,
        amount=budget,
        cur=currency,
        named=bool(named),
        extra=CLUSTER_EXTRA,
        wanted=wanted,
        stale=stale,
        stale_years=STALE_PURCHASE_YEARS,
    )
    return FollowUp(kind="budget_buys", lang=lang, part=named or "", text=text)


# Renting against buying GPUs with no job named ("should we rent or buy 16 H100s?", "租8卡H800三个月和买哪个
# 划算", "rent vs buy for 64 H800 over 2 years"): the lease on record against owning them (it had asked
# for the model's size)
RENT_OR_BUY = re.compile(
    r"\b(?:rent|leas)\w*\b[^?？]{0,50}\b(?:or|vs\.?|versus|against|compared\s+(?:to|with)|and)\s+(?:to\s+)?buy\w*\b"
    r"|\bbuy\w*\b[^?？]{0,50}\b(?:or|vs\.?|versus|against|compared\s+(?:to|with)|and)\s+(?:to\s+)?(?:rent|leas)\w*\b"
    r"|租还是买|买还是租|租.{0,20}(?:和|与|跟|还是|或)(?:直接)?买|买.{0,20}(?:和|与|跟|还是|或)(?:直接)?租",
    re.I,
)
# The months a rent-or-buy question weighs when no lease word leads them ("over 2 years", "用两年")
USE_MONTHS = re.compile(r"(?<![\d.])(\d{1,3})\s*(?:-\s*)?(months?|mo|years?|yrs?|个月|年)(?![a-z])", re.I)


def hardware_rent_or_buy(message: str, lang: str, book: PriceBook) -> FollowUp | None:
    """Renting the GPUs a message counts (one server when it counts none) against buying them, with
    no model named; None otherwise."""
    if not RENT_OR_BUY.search(message) or model_said(message) is not None:
        return None
    counted = gpus_said(message)
    name = counted[0] if counted else gpu_named(message)
    if name is None:
        return None
    gpu = catalog.get_gpu(name)
    market = "global" if MARKET.search(message) or IN_THE_US.search(message) or "usd" in message.lower() else "china"
    if market not in gpu.markets:
        market = next(iter(gpu.markets), market)
    months = lease_term_asked(message)
    if months is None and (found := USE_MONTHS.search(message)):
        months = int(found[1]) * (12 if found[2].lower().startswith(("y", "年")) else 1)
    weighed = rent_or_buy(book, gpu, counted[1] if counted else max(1, gpu.gpus_per_server), market,
                          MARKET_CURRENCY[market], months)  # fmt: skip
    if weighed is None:
        return None
    example = "70B 全参微调 1TB 14天 买" if lang == "zh" else "70B full-finetune 1TB 14d buy"
    text = render("rent_or_buy.txt.j2", lang, r=weighed, life=LIFE_MONTHS, example=example)
    return FollowUp(kind="rent_or_buy", lang=lang, part=gpu.name, text=text.strip())


# A buying word before a GPU named ("or buy a DGX B200", "还是买一台B200服务器").
BUY_WORD = re.compile(r"\bbuy(?:ing)?\b|\bpurchas\w*|买|购", re.I)
# The GPUs a mention counts in the words before it: cards ("64 H100", "租64张H100"), servers ("2 nodes of",
# "两台"), one server ("a DGX", "一台"); else one server.
_COUNT_BEFORE = re.compile(r"(\d+)\s*(?:x|×|\*|张|块|卡)?\s*(?:nvidia\s+)?$", re.I)
_SERVERS_BEFORE = re.compile(
    r"(?:(\d+)|(一|两|二|三|四)|\b(a|an|one|two|three|four))\s*(?:台|套|\s*(?:servers?|nodes?|boxes)\s+of)?\s*(?:dgx|hgx)?\s*$",
    re.I,
)
_FEW = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4}


def _counted_before(prefix: str, gpu) -> int:
    per = max(1, gpu.gpus_per_server)
    if found := _COUNT_BEFORE.search(prefix):
        return int(found[1])
    if found := _SERVERS_BEFORE.search(prefix):
        return per * (int(found[1]) if found[1] else _FEW[(found[2] or found[3]).lower()])
    return per


def rent_against_buy(message: str, lang: str, book: PriceBook) -> FollowUp | None:
    """One GPU type rented for a term and another bought ("should we rent 64 H100 for 3 months or buy a
    DGX B200?", "租64张H100三个月还是买一台B200服务器"): each side's cost over the term and a unit of
    dense peak a month (market/rent_or_buy.rent_against_owning); it had weighed one of the two alone, or
    been refused as two GPU types. None unless two types are named, one of them after a buying word."""
    named, provider, said_months = _gpus_named(message), _provider(message), _months_said(message)
    # (the rent may be said by its provider or term alone: "64 H100 on CoreWeave for 3 months or buying a DGX B200")
    rented = RENT_OR_BUY.search(message) or (BUY_WORD.search(message) and (provider or said_months))
    if len(named) != 2 or not rented or model_said(message) is not None:
        return None
    lowered = message.lower()
    (first, at), (second, at2) = sorted(((n, lowered.find(w.lower())) for n, w in named.items()), key=lambda x: x[1])
    before = {first: message[:at], second: message[at + len(named[first]) : at2]}
    buying = [n for n in (first, second) if BUY_WORD.search(before[n][-30:])]
    if len(buying) != 1 or min(at, at2) < 0:
        return None
    buy = catalog.get_gpu(buying[0])
    rent = catalog.get_gpu(second if buying[0] == first else first)
    market = (
        provider[1]
        if provider
        else "global"
        if MARKET.search(message) or IN_THE_US.search(message) or "$" in message or "usd" in lowered
        else "china"
    )
    if market not in rent.markets or market not in buy.markets:
        market = next((m for m in ("global", "china") if m in rent.markets and m in buy.markets), market)
    months = said_months or RENT_AGAINST_BUY_MONTHS
    sides = ((rent, _counted_before(before[rent.name], rent)), (buy, _counted_before(before[buy.name], buy)))
    # the provider named rents it where its offers are on record ("on CoreWeave"), else the market's like offers
    narrowed = book.of_provider(provider[0], market) if provider else None
    weighed = narrowed and rent_against_owning(narrowed, sides[0], months, sides[1], market, MARKET_CURRENCY[market])
    unpriced = provider[0] if provider and weighed is None else ""
    weighed = weighed or rent_against_owning(book, sides[0], months, sides[1], market, MARKET_CURRENCY[market])
    if weighed is None:
        return None
    text = render(
        "rent_across.txt.j2",
        lang,
        r=weighed,
        life=LIFE_MONTHS,
        assumed_months=said_months is None,
        unpriced=unpriced,
    )
    return FollowUp(kind="rent_or_buy", lang=lang, part=f"{rent.name} / {buy.name}", text=text.strip())


# The term weighed when a rent against a purchase says none (assumed: a year, the shortest horizon a
# purchase is judged over, rent_or_buy.HORIZONS).
RENT_AGAINST_BUY_MONTHS = 12


# What sets two GPU types side by side with no job ("h200 vs b200?", "4090和5090哪个适合", "H20和H800有什么区别")
SIDE_BY_SIDE = re.compile(
    r"区别|差别|差异|不同|对比|比较|哪个(?:更|最)?适合|哪种(?:更|最)?(?:好|适合|合适)|\bdifferences?\b|\bcompare[sd]?\b"
    # value for money asked of two parts ("H20和910B哪个性价比高", "which is better value, A100 or H100?")
    r"|性价比|哪个(?:更|最)?划算|\bbetter\s+value\b|\bmore\s+cost[\s-]effective\b|\bbang\s+for\s+(?:the|your)\s+buck\b"
    # a choice asked with no job ("should we use A100 or H100 for pretraining?", "训练用A100还是H100"):
    # with two GPU types named these ask which (they had been asked for a model size)
    r"|\b(?:use|go\s+with|pick|choose|get|buy|rent)\b[^?.]{0,30}\bor\b|\bor\s+\S+\s+for\b|还是",
    re.I,
)


def side_by_side(message: str, lang: str, book: PriceBook, market: str | None = None) -> FollowUp | None:
    """ "h200 vs b200?", "4090和5090哪个适合实验室训练？": two to four GPU types named as a choice, with
    no job in the message: each one's memory, bandwidth, dense peaks, link, power, and the cheapest
    rent and purchase on record in the market, side by side, and how to compare them on a job (the
    FAQ's text on the first GPU had been the answer, the other never named); one GPU's specifications
    asked ("H20 specs", `asks_specs`): its figures alone. None otherwise."""
    named = _gpus_named(message)
    one = len(named) == 1 and asks_specs(message)  # "H20 specs", "what's the memory bandwidth of H200?"
    compared = 2 <= len(named) <= MOST_COMPARED and (WHICH_BETTER.search(message) or SIDE_BY_SIDE.search(message))
    if not one and not compared:
        return None
    # a job named (a model, data or a sum) is planned on each type; "we", "用A100" alone name none
    if model_said(message) or money_said(message) or holds_a_plan(message):
        return None
    if market is None:
        market = (
            "global" if MARKET.search(message) or IN_THE_US.search(message) else "china" if lang == "zh" else "global"
        )
        only = next(iter(named)) if one else None
        if (
            only
            and not MARKET.search(message)
            and not book.best("rent_hour", only, "global", MARKET_CURRENCY["global"])
        ):
            market = "china"  # "H20 specs": a part rented only in mainland China is shown with its rent there
    cur = MARKET_CURRENCY[market]
    rows = []
    for name in named:
        g = catalog.get_gpu(name)
        rent = book.best("rent_hour", name, market, cur)
        # no hourly rent: the cheapest monthly lease over its hours, so value for money can be compared
        # ("H100和H200哪个划算" in mainland China, where both lease by the month)
        lease = None if rent else book.best("rent_month", name, market, cur)
        owned = owning(book, g, max(1, g.gpus_per_server), market, cur)
        peak = g.bf16_dense_tflops or g.fp16_dense_tflops
        if rent:
            per_hour = book.convert(rent.price, rent.currency, cur)  # rent_hour: per GPU-hour
        else:
            per_hour = book.convert(lease.price, lease.currency, cur) / HOURS_PER_MONTH if lease else None
        rent = rent or lease
        rows.append(
            {
                "gpu": name,
                "memory_gb": g.memory_gb,
                "memory_type": g.memory_type,
                "bandwidth": g.memory_bw_tb_s,
                "bf16": peak,
                "fp8": g.fp8_dense_tflops,
                "link": g.intra_node,
                "link_gb_s": g.intra_node_bw_gb_s,
                "tdp_w": g.tdp_w,
                "consumer": g.consumer,
                "rent": per_hour,
                "rent_month": per_hour * HOURS_PER_MONTH if lease else None,
                "rent_provider": rent.provider if rent else "",
                "rent_as_of": rent.as_of if rent else "",
                "tflops_per_rent": peak / per_hour if per_hour else None,
                "buy": owned.capex if owned else None,
                "buy_gpus": owned.gpus if owned else 0,
                "buy_provider": owned.provider if owned else "",
                "buy_as_of": owned.as_of if owned else "",
            }
        )
    words = list(named.values())
    text = render(
        "gpu_specs.txt.j2", lang, rows=rows, cur=cur, example=" vs ".join(words), hours_a_month=HOURS_PER_MONTH
    )
    return FollowUp(kind="gpu_specs", lang=lang, part=" / ".join(named), rows=rows, text=text)


def serving_first(message: str, lang: str) -> FollowUp | None:
    """ "how many GPUs to serve qwen3-32b for 100 users?", "部署deepseek-v3推理要几台H20": serving a
    model named, sized roughly on the GPU named (else the market's serving staple) from its weights
    and KV cache (plan_answers.serving); it had been refused with a 70B model's weights as the floor."""
    if not SERVING.search(message):
        return None
    said = model_said(message)
    if said is None:
        return None
    name, params_b, active_b = said
    model = catalog.find_model(name) if name else generic_shape(params_b, active_b)
    size = name or f"{params_b:g}B"
    data = plan_answers.serving(message, model, gpu_named(message), lang) | {"model": size}
    text = render("plan_answers.txt.j2", lang, kind="serving", r=data).strip()
    return FollowUp(kind="serving", lang=lang, part=data["gpu"], text=text)


# The largest model some GPUs can train, asked ("我们有4张A100能训多大的模型", "what's the biggest model
# we can fine-tune on 8x4090?"): it had been the FAQ's table of model sizes, the GPUs left out
CAPACITY_ASKED = re.compile(
    r"\bhow\s+(?:big|large)\s+(?:of\s+)?(?:an?\s+)?(?:model|llm)|\b(?:largest|biggest)\s+(?:\w+\s+)?(?:model|llm)"
    r"|\bmax(?:imum)?\s+model\s+size|\bwhat\s+(?:size\s+(?:of\s+)?)?(?:models?|llms?)\s+(?:can|could)\b"
    # (the batch a setup runs, "这个配置能跑多大batch", is the batch-size topic's)
    r"|能训(?:练)?多大(?!\s*(?:的)?\s*(?:batch|批|bs))|能(?:跑|微调|训练?)多大(?!\s*(?:的)?\s*(?:batch|批|bs))"
    r"|多大的模型|最大(?:能|可以)?(?:训练?|跑|微调)"
    r"|能(?:训练?|跑|微调)(?:什么|哪些|多大)(?:的|样的)?模型"
    # what GPUs counted can train ("what can we train on 8 H100 in 2 weeks?", "8张H100两周能训什么"): their
    # largest models (it had asked for a model's size, or drawn the rack's power topic)
    r"|\bwhat\s+(?:\w+\s+)?can\s+(?:we|i)\s+(?:train|fine-?tune|finetune|pre-?train)\b"
    # the GPUs themselves the subject ("what could these GPUs train in a month?": it had been the month's lease)
    r"|\bwhat\s+(?:else\s+)?(?:can|could)\s+(?:these|those|our|the|such)\s+(?:\d+\s+)?(?:[\w\-]+\s+)?"
    r"(?:gpus?|cards?|servers?|machines?|nodes?|boxes)\s+(?:train|fine-?tune|finetune|pre-?train)\b"
    r"|能(?:训练?|跑|微调|做)(?:些)?(?:什么|啥)",
    re.I,
)


def capacity_asked(message: str, lang: str, gpus: tuple[str, int] | None = None) -> FollowUp | None:
    """The largest model the GPUs a message counts (else `gpus`, a thread plan's) can train,
    method by method (planning/capacity.py), when it asks so and names no model; None otherwise."""
    said = (gpus_said(message) or gpus) if CAPACITY_ASKED.search(message) else None
    if said is None or model_said(message) is not None:
        return None
    if not gpus_said(message) and (BARE_SUM_TRAINS.search(message) or money_said(message)):
        return None  # "10万能训多大的模型", "what can we train for $10k?": what the sum trains, not the plan's GPUs
    gpu, count = said
    if not fields.field("gpu_count").low <= count <= fields.field("gpu_count").high:
        return None  # "on 1000000 H100": the request's own refusal says what counts are usable
    fit = largest_models(gpu, count)
    days = span_said(message)  # "in 2 weeks": what those GPUs train in it, by data size
    data = data_said(message)  # "with 1TB": that data alone, not the table's sizes
    span = largest_in_span(gpu, count, days * 24, data[0] if data else None) if days else None
    text = render(
        "followup.txt.j2",
        lang,
        kind="capacity",
        fit=fit,
        span=span,
        days=days,
        data=data[1] if data else "",
        cap=LARGEST_B,
        example=f"{(span and example_in_span(span)) or example_b(fit):g}B",
    )
    return FollowUp(kind="capacity", lang=lang, part=gpu, text=text)


# What a sum trains ("what's the biggest model we can fine-tune with $10k?", "10万预算能训多大的模型",
# "what can we train for ¥500k?"): it had asked for the model's size
SUM_TRAINS = re.compile(
    r"\bwhat\s+(?:\w+\s+)?can\s+(?:we|i)\s+(?:train|fine-?tune|finetune|pre-?train)\b|(?:能|可以|够)(?:训练?|微调|预训练)(?:出)?(?:什么|啥|多大)"
    # "we have $100k, what's the best model we can fine-tune and on what?" (refused for the model's size)
    r"|\b(?:best|strongest)\s+(?:\w+\s+)?model\s+(?:that\s+)?(?:we|i)\s+(?:can|could)\s+(?:afford\s+to\s+)?"
    r"(?:train|fine-?tune|finetune|pre-?train)\b",
    re.I,
)


# Pre-training asked of a sum ("what's the biggest model we can pretrain with ¥3M?", "从头训", "预训练")
PRETRAINING_ASKED = re.compile(r"\bpre-?train|\bfrom scratch\b|预训练|从头(?:开始)?训", re.I)


# A bare sum in 万 before what it trains ("10万能训多大的模型", "50万可以训什么"): yuan, as no data is
# counted that way before 能训 (it had been the model-size tiers, or the thread plan's GPUs' capacity)
BARE_SUM_TRAINS = re.compile(
    r"(?<![\d.])(\d+(?:\.\d+)?)\s*(万|百万|千万|亿)\s*(?:块钱?|元)?\s*(?:能|可以|够)\s*(?:训|微调|预训练)"
)
_CN_SCALE = {"万": 1e4, "百万": 1e6, "千万": 1e7, "亿": 1e8}


def _sum_to_train(message: str, book: PriceBook) -> tuple[float, str] | None:
    """The sum a message names for training, in its market: as a budget is read, else a bare sum in 万."""
    said = _sum_in_market(message, book)
    bare = BARE_SUM_TRAINS.search(message)
    if said is None and bare:
        said = float(bare[1]) * _CN_SCALE[bare[2]], "china"
    return said


def budget_trains(message: str, lang: str, book: PriceBook) -> FollowUp | None:
    """The largest models a sum the message names trains, by data size (planning/budget_capacity.py),
    when it asks so and names neither a model nor GPUs counted; None otherwise."""
    if not (CAPACITY_ASKED.search(message) or SUM_TRAINS.search(message)):
        return None
    said = _sum_to_train(message, book)
    if said is None or gpus_said(message) is not None or model_said(message) is not None:
        return None
    budget, market = said
    days = span_said(message)  # "in 30 days": a lease's minimum term is billed whole for a shorter span
    fit = largest_for_budget(book, budget, MARKET_CURRENCY[market], market, gpu_named(message), days)
    if fit is None:
        return None
    per = catalog.get_gpu(fit.gpu).gpus_per_server
    sum_said = money(budget, fit.currency)
    example = f"70B lora 1亿token 预算{sum_said}" if lang == "zh" else f"70B lora 100M tokens budget {sum_said}"
    pretrain = next((r for r in fit.rows if r.method == "pretrain" and r.params_b), None)
    if pretrain and PRETRAINING_ASKED.search(message):
        # the request that plans the row asked about, at capacity.EXAMPLE_SHARE of its size (the row
        # spends the whole sum on the engine's best count; a plan rents whole servers on its grid)
        size = round(pretrain.params_b * EXAMPLE_SHARE)
        billions = round(size * CHINCHILLA_TOKENS_PER_PARAM)
        span = f" {days:g}{'天' if lang == 'zh' else 'd'}" if days else ""
        example = (
            f"{size}B 预训练 {billions}0亿token{span} 预算{sum_said}"
            if lang == "zh"
            else f"{size}B pretrain {billions}B tokens{span} budget {sum_said}"
        )
    text = render("followup.txt.j2", lang, kind="budget_capacity", fit=fit, per=per, example=example, span=days)
    return FollowUp(kind="capacity", lang=lang, part=fit.gpu, text=text)


def lead_time(message: str, lang: str) -> FollowUp | None:
    """ "how long is the lead time for B200 servers?", "H20现在下单多久到货": the delivery on record
    for buying the GPU named (data/gpus.toml purchase_lead_weeks), else that none is and the shortest
    published for any server; it had been the rental's setup days."""
    named = list(_gpus_named(message)) if DELIVERY_ASKED.search(message) else []
    if len(named) != 1:  # two GPUs named ("H20现在还能买到吗？910B交货期多久？") is the FAQ's
        return None
    gpu = named[0]
    g = catalog.get_gpu(gpu)
    text = render(
        "followup.txt.j2",
        lang,
        kind="lead_time",
        gpu=gpu,
        weeks=g.purchase_lead_weeks,
        as_of=g.purchase_lead_as_of,
        shortest=catalog.shortest_purchase_lead_weeks(),
    )
    return FollowUp(kind="lead_time", lang=lang, part=gpu, text=text)


# A lease's deposit or first payment asked ("押金一般多少", "押一付三的话首付要多少", "how much deposit?")
DEPOSIT_ASKED = re.compile(r"押金|押一|押二|押两|首付|预付|保证金|\bdeposits?\b|\bupfront\b|\bprepay", re.I)
DEPOSIT_SAID = re.compile(r"押|保证金|首付|\bdeposits?\b", re.I)
# VAT and invoices ("价格含税吗", "能开专票吗", "do the prices include VAT?"): the FAQ's tax topic with
# this plan's rent, not the costs' arithmetic that "价格" had led to
# (availability, not a purchase: "老板问能不能买一台8卡H20，回本要多久" is the purchase's what-if)
BUYABLE_ASKED = re.compile(
    r"(?:能|可以|还能)?(?:买|租|拿)(?:得)?到(?:吗|么|嘛)?|买不到|还能买|(?:国内|中国)(?:还)?(?:能|可以)?(?:用|买|租)"
    r"|\b(?:can|could)\s+(?:we|i|you)\s+(?:even\s+)?(?:buy|get|source|rent)\b.{0,30}\b(?:in\s+china|china|legally)\b"
    r"|\bavailable\s+in\s+china\b|\bexport[\s\-]control",
    re.I,
)
TAX_ASKED = re.compile(r"含税|税点|税率|增值税|发票|专票|普票|\bvat\b|\btax(?:es)?\b|\binvoices?\b|fapiao", re.I)

# A server's draw asked ("how much power does a DGX H100 draw?", "H100服务器功耗多少"): not its price.
POWER_ASKED = re.compile(
    r"\bpower\b|\bdraws?\b|\bwatts?\b|\bwattage\b|\bkw\b|\belectric(?:ity)?\b|功耗|耗电|用电量|功率|电费|电价", re.I
)
# Where a price is going, not what it is ("H100租金还会跌吗", "will H100 prices drop?"): the FAQ's
# price-trend topic (it had been the offers on record)
TREND_ASKED = re.compile(
    r"\b(?:drop|fall|go(?:ing)?\s+(?:up|down)|come\s+down|trend|forecast|cheaper\s+later)\b|[跌涨]|降价|走势|趋势|行情",
    re.I,
)

# Offers a thread's price answer lists for the GPU (`/gpu prices GPU` gives them all).
PRICES_IN_A_REPLY = 8
# The currency each market's plans are priced in (TrainingRequest.currency's default).
MARKET_CURRENCY = {"china": "CNY", "global": "USD"}


def _in_market_currency(book: PriceBook, price: float, currency: str, market: str) -> float | None:
    """A price in its market's own currency where it is quoted in another, else None."""
    target = MARKET_CURRENCY[market]
    return None if currency == target else book.convert(price, currency, target)


# The words around a what-if that ask what it would cost or whether it works ("how much would it
# cost on A800?", "can we do it with 128 GPUs?", "A800上要多少钱", "用128卡能做吗"): the request
# language reads the change, not the question around it, so they are dropped before it is read
# again. The change itself (the GPU, the count, the amount) is left as the user wrote it.
# A model of another size said around its size ("what about a smaller model, say 32B?", "a bigger model
# like 405B"): the size is the change (it had drawn the MoE topic, sure, or the menu)
_ANOTHER_MODEL = (
    r"\b(?:an?\s+)?(?:smaller|bigger|larger|different)\s+(?:model|one|base)\s*,?\s*"
    r"(?:say|like|such\s+as|e\.?g\.?|maybe|perhaps|for\s+example|for\s+instance)?\s*[:,]?\s*(?=\d)"
)
# What a GPU asked about would work for, the plan's own ("for this", "for this job", "for us", "here")
_FOR_THIS = r"(?:\s+(?:for\s+(?:this|that|it|us|(?:this|that|the|our)\s+(?:job|run|plan|training|model|one))|here))?"
AROUND_A_CHANGE = (
    (_ANOTHER_MODEL, " "),
    (
        r"\bhow much (?:(?:would|will|does|did|might|could|should)\s+)?"
        r"(?:(?:it|that|this|the (?:job|run|training|plan))\s+)?(?:(?:cost|be|come to|run)(?:\s+(?:us|me)\b)?)?",
        " ",
    ),
    (
        r"\bwhat (?:would|will|does|might|could)\s+(?:it|that|this|the (?:job|run|training|plan))\s+cost"
        r"(?:\s+(?:us|me)\b)?",
        " ",
    ),
    (r"\bwhat(?:'s| is| would be| will be)\s+the\s+(?:cost|price|rent|bill)", " "),
    # ("rent for 3 months" is a lease term, kept)
    (
        r"\b(?:the\s+)?(?:cost|price|rent|bill)\s+(?=on\b|with\b|if\b|using\b"
        r"|for\b(?!\s+(?:(?:just|only)\s+)?(?:\d+|a|one)\s*(?:months?|mo|years?|yr)\b))",
        " ",
    ),
    (
        r"\b(?:can|could|should|would|shall)\s+(?:we|i|you)\s+(?:do|run|train|finish|make)"
        r"\s+(?:it|this|that|the (?:job|run|training))(?:\s+(?:work|happen))?",
        " ",
    ),
    (r"\b(?:is it|would it be|will it be|is that|would that be)\s+(?:possible|doable|feasible|enough|ok)", " "),
    # a closing particle ("我们已经有4张A100了": it had been refused over 了)
    (r"(?<=[\w)）])\s*(?:了|啦|吧)\s*[。！!]?\s*$", " "),
    # "30 days but only 25G ethernet": the link is a change too (the "but" had left the first clause alone)
    (r"\s+but\s+(?=(?:we\s+)?(?:only|just)\b)", " "),
    # "is 4 nodes enough?", "are 64 GPUs enough for this?", "128卡够用吗": that count, whose time
    # against the deadline is the answer (it had drawn the menu, the CPU topic, the NVLink topic)
    (r"^\W*(?:is|are)\s+(?:only\s+|just\s+)?(?=\d)", " "),
    (r"(?<=[\w)])\s+(?:be\s+)?(?:enough|sufficient)\b[^?？]*", " "),
    (r"(?<=[\d台张卡块])\s*(?:的话)?\s*(?:够(?:用)?(?:吗|么|嘛|呢|不够(?:用)?)|足够(?:吗|么)?)", " "),
    # "能不能三天内搞完", "可以一周内完成吗": the deadline asked about
    (r"^\W*(?:能不能|能否|可不可以|可以|能)\s*(?=.{0,8}(?:天|周|星期|礼拜|个月|小时)内?)", " "),
    (r"(?:搞完|完成|做完|跑完|搞定|训完|训练完|出结果)\s*(?:吗|呢|么)?\s*$", " "),
    # "8.5天，能不能再快点，我们下周五要结果": the date the results are due is the deadline
    (r"(?:我们|我)?\s*((?:下下?|这|本)(?:周|星期|礼拜)[一二三四五六日天])\s*(?:要|得|出|交)(?:结果|交付)", r"\1前"),
    (r"(?:能不能|可不可以|能否|能)?\s*再?快(?:一)?点(?:吗|呢)?\s*[，,]?", " "),
    # "数据是中文的，会变吗", "btw the data is mostly chinese": the fact told is the change, the
    # question after it or the chatter before it the reply's (they had drawn the menu)
    (
        r"[，,]?\s*(?:会|要)?(?:变|改变|变化|有变化|有影响|影响)(?:吗|么|不)\s*[?？]?\s*$|[，,]?\s*会不会(?:变|有影响)\s*[?？]?\s*$",
        " ",
    ),
    (
        r"[，,]?\s*(?:does|would|will) (?:that|this|it) change "
        r"(?:anything|the plan|things|the numbers|the (?:price|cost|rent))\s*[?？]?\s*$",
        " ",
    ),
    (r"^\W*(?:btw|by the way|fyi|oh and|also)\b[\s,:]*|其实|实际上|\bactually\b", " "),
    # "what if we put it in our own server room?", "if it sits in our lab": where the servers stand
    (
        r"\b(?:we\s+)?(?:put|puts|keep|keeps|sit|sits|stand|stands|place|host)\s+(?:it|them|the servers?)\s+(?=in\b)",
        " ",
    ),
    # "we're in shanghai btw": the place is the change, the team's words around it the reply's
    (r"^\W*(?:we'?re|we are|our (?:team|office|servers?|idc|data ?cent(?:er|re)) (?:is|are))\s+(?=in\b)", " "),
    (r"\s*\b(?:btw|fyi)\b\s*[,，]?", " "),
    (r"\b(?:mostly|mainly|largely|all)\s+(?=chinese|english|code)", " "),
    # "will this OOM if we bump seq to 8192?", "would it still fit with micro-batch 4?": the setting
    # is the change (read_whatif keeps the plan's GPUs: the memory asked is on them)
    (
        r"^\W*(?:will|would|could|does|do|can)\s+(?:it|this|that|we|the (?:job|run|plan|model))\s+(?:still\s+)?"
        r"(?:oom|run out of (?:gpu )?memory|fit)\s+(?:if|when|with|at)\s+(?:we\s+)?",
        " ",
    ),
    (
        r"\b(?:bump(?:ed)?|rais(?:e|ed)|increas(?:e|ed)|set|chang(?:e|ed)|go|move|double)\s+(?:up\s+)?(?:the\s+)?(?=seq|sequence|context|micro|batch|mbs)",
        " ",
    ),
    # "开了liger能快多少", "turn on torch.compile, how much faster?": the setting switched on is the change
    (
        r"(?:开了|开启|打开|启用|用上|加上)\s*(?=[a-z])|(?:能|会)?快多少|能省多少"
        r"|\bhow much faster\b|\bturn(?:ed)? on\b",
        " ",
    ),
    # "能不能用Unsloth加速", "可以用liger提速吗": the tool asked about is the change
    (
        r"^\W*(?:能不能|能否|可不可以|可以|能)\s*(?=用\s*[a-z])"
        r"|(?<=[a-z])\s*(?:来)?(?:加速|提速)(?:吗|么|呢)?\s*[?？]?\s*$",
        " ",
    ),
    # "为什么用Megatron，我们用LLaMA-Factory": the question before the team's own choice goes
    (r"^\W*(?:为什么|为啥|why)\s*(?:要|是|会)?\s*(?:用|选|use|pick|choose)?\s*[\w.\-/]+\s*[?？]?\s*[，,;；。]\s*", " "),
    # "用deepspeed zero3跑的话显存够不够": the condition is the change, the question after 的话 its reply's
    (r"\s*(?:跑|训练|训|用|做)?的话\s*[，,]?\s*.{0,10}$", " "),
    # "lora instead of qlora?", "用lora代替qlora": the new choice; the old one is the plan's own
    (r"\s*\b(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+[\w.\-]+(?:\s+[\w.\-]+)?\s*(?=$|[?？.!,])", " "),
    (r"(?:代替|替代|替换|换掉|而不是|不用)\s*[\w.\-]+\s*(?=$|[?？。!，,呢吗])", " "),
    # "can we do full fine-tune on these?": the method, on the plan's own GPUs
    (r"\b(?:can|could|should)\s+(?:we|i|you)\s+(?:do|run|use|try)\b", " "),
    (r"\bon\s+(?:these|those|them|the same)(?:\s+(?:gpus|cards|servers|machines))?\b", " "),
    (r"\b(?:would|will|does|could) (?:it|that|this) (?:work|fit|do)\b", " "),
    # "would A100 work?", "does an A800 do?", "would 2 servers of H20 be enough?": the GPUs asked
    # about (had been "I could not tell what to do with that")
    # ("would H20 work for this?", "does H20 work for this job?": for what, the plan's)
    (
        r"^\W*(?:would|will|does|do|could|can)\s+(?:an?\s+|the\s+)?(?=.{1,40}?\s+"
        rf"(?:work|do|suffice|be enough|be ok(?:ay)?|be fine|cut it|handle it){_FOR_THIS}\s*[?？.!]*\s*$)",
        " ",
    ),
    (rf"\s+(?:work|do|suffice|be enough|be ok(?:ay)?|be fine|cut it|handle it){_FOR_THIS}\s*[?？.!]*\s*$", " "),
    # "can it fit on a single machine?", "could it run on one box?": where it would run
    (r"\b(?:can|could|would|will|does)\s+(?:it|that|this|the (?:job|run|model|training))\s+(?:fit|run|go|work)\b", " "),
    # "the budget were ¥10M", "预算只有1万": the amount is the budget, not a bare "budget" (cost first)
    (r"\b(budget)\s+(?:(?:were|was|is|of|at|becomes?|goes|drops?|cut)\s+)*(?:(?:only|just|to)\s+)*", r"\1 "),
    (r"(预算)\s*(?:只有|只剩|才|是|为|有|变成|降到|砍到)\s*", r"\1"),
    # "如果利用率只有30%呢": the owned servers' use, as the request says it (`利用率30%`)
    (r"(利用率|使用率)\s*(?:只有|只|才|是|为|变成|降到|到)\s*", r"\1"),
    # "用三年的话买划算吗", "is it worth buying if we use it 3 years?": the use; the same plan's
    # owning against renting over it answers (not a plan ranked by purchase)
    (r"(?:的话)?\s*(?:买|购买)?(?:划算|合算|值得|值)(?:吗|不|么|呢)?|划不划算|值不值(?:得)?", " "),
    (r"\bis it worth (?:it|buying)\b", " "),
    # "如果seq拉到32k呢", "序列加到8k": the length it names
    (
        r"(seq|序列长度|序列|上下文|长度)\s*(?:拉到|拉长到|加到|加长到|调到|改到|提到|增加到|扩到|扩展到|变成)\s*",
        r"\1 ",
    ),
    # "can we just use one node?", "on one node?": the plan on one server
    (r"\b(?:can|could|should)\s+we\s+(?:just\s+|only\s+)?(?:use|do\s+it\s+on|run\s+(?:it\s+)?on)\s+", " on "),
    (r"\b(?:one|a single)\s+node\b", "one server"),
    # "买一台8卡H20，回本要多久", "buy 8 H20, how long to pay back?": the purchase named is the change; its
    # what-if says when it pays back (the payback asked had sent it to the plan's own rent-or-buy)
    (
        r"[，,]?\s*(?:多久|多长时间|几个月|几年)?(?:能|才能|可以|可)?回本(?!周期\s*\d|期\s*\d)(?:周期|期)?(?:要|需要|得)?(?:多久|多长时间|几个月|几年|吗|不|么|呢)?",
        " ",
    ),
    (
        r"[,;]?\s*\b(?:how\s+long\s+(?:to|until|till|before)\s+(?:it\s+|they\s+|we\s+)?(?:pays?|paid)\s+(?:it(?:self)?\s+)?back"
        r"|when\s+(?:does|would|will)\s+(?:it|that|this|buying)\s+pay\s+(?:it(?:self)?\s+)?back"
        r"|(?:what(?:'s|\s+is|\s+would\s+be)\s+the\s+)?pay\s*back(?:\s+(?:period|time))?(?!\s+(?:within|in|of)\b))\b",
        " ",
    ),
    # "老板问能不能买一台8卡H20", "my boss asks: can we buy 2 servers": who asks is not the change
    (
        r"^\W*(?:(?:我们)?(?:老板|领导|财务|采购|上面)(?:在)?(?:问|想知道|想问)\s*[:：,，]?"
        r"|(?:my\s+|our\s+)?(?:boss|manager|cfo|finance|management)\s+(?:asks?|asked|wants\s+to\s+know)\s*[:,]?)\s*",
        " ",
    ),
    (r"(?:能不能|能否|可不可以|可以)\s*(?=买|购买|租)", " "),
    (
        r"\bhow long (?:(?:does|will|would|did|might)\s+)?(?:it|that|this|the (?:job|run|training|plan))?\s*"
        r"(?:take|run)?(?:\s+to (?:train|finish|run))?",
        " ",
    ),
    (r"(?:要|需要|得)?(?:花)?(?:多久|多长时间)", " "),
    # "换成A800要几台", "how many would we need on H100?": the count asked of the changed plan
    (r"(?:的话)?(?:要|需要|得)(?:用)?(?:几|多少)(?:台|张|块|个)?(?:卡|服务器|机器|节点)?", " "),
    (
        r"\bhow many(?:\s+(?:gpus|cards|servers|nodes|machines))?"
        r"(?:\s+(?:would|will|do|does)\s+(?:we|it|i)\s+(?:need|take))?",
        " ",
    ),
    # "we can wait 3 weeks", "we could live with 30 days", "我们可以等3周": a deadline
    (
        r"\b(?:we|i)\s+(?:can|could|would|will|are (?:ok|okay|fine|happy) to)\s+"
        r"(?:wait|live with|afford(?: to wait)?|take)\b",
        " ",
    ),
    (r"(?:我们|咱们)?(?:可以|能|最多|愿意)(?:再)?等(?:得起)?", " "),
    (r"\busing\b", " on "),
    # "what about 4 of them?": that many of the plan's GPUs
    (r"\b(\d+)\s+of\s+(?:them|those|these)\b", r"\1 gpus"),
    # "is it faster on a 5090?", "would that be cheaper on an H20?": the GPU named is the change
    (r"\b(?:is|would|will)\s+(?:it|that|this)\s+(?:be\s+)?(?:any\s+)?(?:faster|quicker|slower|cheaper|better)\b", " "),
    (r"\bon\s+an?\s+(?=(?:rtx\s*)?\d|[a-z]{1,3}\d)", " on "),
    # "what if samples are 4k tokens each?", "each sample is 4000 tokens": the samples' mean length
    (
        r"\b(?:the\s+)?(?:samples?|examples?|rows?|conversations?)\s+(?:are|were|average|of)\s+(?:about\s+|~)?"
        r"(\d+(?:\.\d+)?\s*k?)\s*tokens?(?:\s+each)?",
        r" avg \1 tokens ",
    ),
    (
        r"\beach\s+(?:sample|example|row|conversation)\s+(?:is|was|has)\s+(?:about\s+|~)?(\d+(?:\.\d+)?\s*k?)\s*tokens?",
        r" avg \1 tokens ",
    ),
    # "能不能用更长的序列 8k", "can we use longer sequences, 8k?": the sequence length it names
    (
        r"(?:能不能|可不可以|能否|可以)?\s*(?:用|换成?|改成?)?\s*(?:更长|更短|长一点|短一点|长一些|短一些)的?\s*(?=序列|上下文)",
        " ",
    ),
    (
        r"\b(?:(?:longer|shorter|bigger|larger)\s+)?(?:sequences?|seq(?:uence)?\s+len(?:gth)?|context(?:\s+length)?)"
        r"\s*(?:of|at|to|,|=|:)?\s*(?:about\s+|~)?(\d+(?:\.\d+)?\s*k)\b",
        r" seq \1 ",
    ),
    # "预算只有5万怎么办", "what should we do if the budget is $5k?": the change, not the question
    (r"(?:那|该|要|应该)?(?:怎么办|怎么弄|咋办|怎么处理)|\bwhat (?:should|can|do) (?:we|i) do\b", " "),
    # "买4张5090划算还是一直租划算", "buy 4 5090s or keep renting?": the purchase, weighed against renting
    (
        # ("买还是租?" alone is the rent-or-buy question, the FAQ's with the plan's numbers)
        r"还是(?:一直|继续|长期)(?:租|租用|租着)(?:用)?|\bor (?:keep|continue) rent(?:ing)?(?: (?:them|it))?\b",
        " ",
    ),
    # "we only have 500k", "can we get it under 1M?", "keep it below $200k": a sum had or a ceiling is a
    # budget (each had drawn the menu); a count or a size after "under" is no sum
    (
        r"\b(?:(?:we|i)\s+)?(?:only\s+)?(?:have|got|had)\s+(?:only\s+|just\s+)?(?=[¥$]\s*\d|\d[\d,.]*\s*(?:k|m|million|万|元|yuan|usd|cny|rmb|dollars?)\b(?!\s*(?:tokens?|samples?|params?|gpus?|examples?|rows?|steps?|hours?)))"
        r"|\b(?:get|keep|bring)\s+(?:it|this|that|the (?:cost|rent|price|bill))\s+(?:under|below|within)\s+"
        r"(?=[¥$]\s*\d|\d[\d,.]*\s*(?:k|m|million|万|元|yuan|usd|cny|rmb|dollars?)?\s*\W*$)",
        " budget ",
    ),
    # "what if we go with 4090s to save money?": why is no change, the GPU is ("go with" the verb)
    (r"\b(?:to|and)\s+save\s+(?:some\s+)?(?:money|costs?|cash)\b|(?:来|为了)?省(?:点)?钱", " "),
    (r"\bgo(?:ing)?\s+with\b", " on "),
    # "能不能用A100代替", "用910B替代呢", "有没有国产卡方案": the GPU named is the change
    (r"(?<=[A-Za-z0-9卡])\s*(?:来)?(?:代替|替代|替换|顶替)(?:一下)?", " "),
    (r"^\W*有没有\s*(?=\S)(.+?)\s*(?:的)?(?:方案|选择|办法|配置)\s*(?:吗|呢)?\W*$", r"\1"),
    # "how much would renting the same cost?", "how much to rent the same GPUs?": renting is the change
    (
        r"\b(rent|renting|leasing|lease|buying|buy)\s+(?:the same|them|these|those|ours?)"
        r"(?:\s+(?:gpus|servers|cards|machines|ones))?(?:\s+cost)?\b",
        r" \1 ",
    ),
    (r"\bwe had\b|\bwe have\b", " "),
    # "what if we rented 64 GPUs?", "if we use 16 of them": the count is the change
    (r"\b(?:we|i)\s+(?:rent(?:ed)?|used?|took|take|got|get|added?)\s+(?=\d)", " "),
    (
        r"(?:要|需要|得)?(?:花)?多少钱|(?:成本|租金|价格|费用|花费|开销)(?:是|大概|大约|要)?多少|多少(?:成本|租金|费用)"
        r"|贵不贵|要花多少|能不能做|能不能跑|能做吗|能跑吗|可以做吗|够不够|够吗|行吗|可行吗",
        " ",
    ),
    (r"在\s*([A-Za-z0-9][A-Za-z0-9 -]*?)\s*上", r" 用\1 "),
    (r"(?<=[A-Za-z0-9])\s*上(?=\s|要|需要|多少|跑|训练|做|的话|呢|吗|$)", " "),
    # "如果有200万" / "要是只有50万": an amount someone has is a budget
    (
        r"(?:如果|要是|假如|假设)?\s*(?:我们|咱们)?\s*(?:只)?有\s*"
        r"(?=[¥$]?\s*\d[\d,.]*\s*(?:万|亿|k|m|元|块|美元|rmb|cny|usd))",
        " 预算",
    ),
)
# "cheaper?", "faster?" and their Chinese forms: the plan with twice the time (a cheaper one
# only comes from allowing more time: the first plan is already the cheapest that meets its
# deadline) or with about half of it (more GPUs).
# What may stand before "cheaper"/"faster": "is there anything", "can we do it", "make it".
_QUICK_LEAD = (
    r"^\W*(?:(?:ok|okay|hmm|well|but|so|and|ok but|okay but|and if|what if|how about|maybe)\W+)*"
    # ("much faster please", "even cheaper?": the degree before the word)
    r"(?:(?:is there|are there|any|anything|something|a|an|a bit|a little|much|even|way|a lot"
    r"|can (?:it|we|this|that) (?:be|go|get)"
    r"|(?:can|could) (?:we|you|it) (?:do|make|get|run|finish) (?:it|this|that|the job)|(?:make|do|run|get) it(?: done)?"
    r"|how (?:do|can|could) we (?:make it|go|get it done)"
    # "what if we go with the faster option?", "go with the cheaper option" (they had drawn the menu)
    r"|(?:we\s+|let'?s\s+)?go(?:ing)?\s+with(?:\s+the|\s+a)?)\s+)*"
)
_QUICK_TAIL = r"(?:\s+(?:option|options|plan|plans|way|alternative|one|version|please))*\W*$"
_QUICK_ZH_LEAD = r"|^\W*(?:有没有|能不能|能否|可不可以|可以|还能|再|怎么|如何|能)?\s*(?:更|再)?"
_QUICK_ZH_TAIL = r"(?:点|一点|些|一些)?(?:的)?(?:方案|办法|选择|显卡|卡|配置|服务器)?(?:吗|呢|吧|么)?\W*$"
# A payback asked ("多久回本", "how long to pay back?", "break-even?")
PAYBACK = re.compile(r"回本|\bpay\s*(?:it(?:self)?\s+)?back\b|\bpayback\b|\bbreak[\s\-]?even\b", re.I)
CHEAPER = re.compile(
    _QUICK_LEAD
    + r"(?:cheaper|less expensive|lower (?:cost|price|rent)|save money|(?:cut|lower|reduce) the (?:cost|price|rent)"
    # "too expensive", "太贵了": a cheaper plan asked (it had been the quote-comparison topic)
    + r"|(?:(?:it'?s|this is|that'?s|way|much)\s+)*too (?:expensive|pricey|costly|much))"
    + _QUICK_TAIL
    + _QUICK_ZH_LEAD
    + r"(?:便宜|省钱|省点钱|省点|省一点|省一些|降低成本|降点成本|少花钱|少花点|太贵(?:了)?)"
    + _QUICK_ZH_TAIL
    # the plan doubted as the cheapest, or fewer GPUs to save money ("is this the cheapest option?", "can we
    # reduce the GPU count to save money?", "这是最便宜的方案吗", "少用几张卡能省钱吗": the menu, or the FAQ's
    # doubling of GPUs, had answered)
    + r"|^\W*(?:is|isn'?t)\s+(?:this|that|it)\s+(?:really\s+)?(?:the\s+)?(?:cheapest|lowest[\s-]cost)\b"
    # (CHEAPER is matched at the message's start: these let a few words lead)
    + r"|^.{0,30}?\b(?:reduce|cut|lower)\s+(?:the\s+)?(?:gpu\s+count|number\s+of\s+gpus|gpus)\b"
    + r".{0,20}\b(?:save|cheaper|cost)"
    + r"|^.{0,30}?\b(?:fewer|less)\s+gpus\b.{0,20}\b(?:save|cheaper)\b"
    + r"|^\W*(?:这|这个)(?:就|已经)?是(?:不是)?最(?:便宜|省钱|划算)的(?:方案|选择|配置)?(?:吗|么|了吗|了)?\W*$"
    + r"|^.{0,6}?少(?:用|租)(?:几|一些|点)?(?:张|块)?(?:卡|显卡|gpu).{0,6}(?:省|便宜)",
    re.I,
)
FASTER = re.compile(
    _QUICK_LEAD
    + r"(?:faster|quicker|sooner|speed (?:it|this|that) up|in less time|shorter)"
    + _QUICK_TAIL
    + _QUICK_ZH_LEAD
    + r"(?:快|提速|加速|加快|缩短时间|早点完成|早点做完)"
    + _QUICK_ZH_TAIL
    # "时间能不能再压缩一点", "工期还能缩短吗" (the menu had answered)
    + r"|^\W*(?:时间|工期|周期|训练时间)\s*(?:能不能|能否|可以|可不可以|还能|能)?\s*(?:再)?\s*(?:压缩|缩短)"
    + _QUICK_ZH_TAIL,
    re.I,
)
# "how much would it cost?", "这个要多少钱": the plan's own rent, worked out (no change asked).
ASKS_THE_COST = re.compile(
    r"^\W*(?:so\s+)?(?:how much (?:would|will|does|did|is) (?:it|this|that|the (?:job|plan|training|run))"
    r"(?: cost)?(?: us)?(?: in total| altogether| per month| a month)?"
    r"|what (?:would|will|does) (?:it|this|that) cost(?: us)?"
    r"|what(?:'s| is) the (?:total )?(?:cost|price|rent|bill)"
    # "how much?", "and the cost?": the amount alone (the menu had answered)
    r"|(?:and\s+)?how much(?: in total| altogether)?|(?:and\s+)?the (?:total )?(?:cost|price))\W*$"
    r"|^\W*(?:这个|这样|总共|一共|大概|那)?(?:要|需要|得)?(?:花)?(?:多少钱|多少费用)(?:呢|啊)?\W*$"
    r"|^\W*(?:成本|租金|费用|总价)(?:是)?多少(?:钱)?(?:呢|啊)?\W*$"
    # the total with what it holds ("what's the total including storage?", "total with storage?",
    # "全部加起来多少钱", "含存储一共多少"): had been the servers' storage line, or the menu
    r"|^\W*(?:(?:so\s+)?what(?:'s|\s+is)\s+the\s+)?(?:grand\s+)?total(?:\s+cost|\s+price|\s+bill)?"
    r"(?:\s+(?:including|incl\.?|with|plus)\s+(?:the\s+)?(?:storage|everything|all|network|data))?\W*$"
    r"|^\W*(?:全部|所有|总共|一共|全部费用)?(?:加起来|加在一起|合计|总计|算下来|含存储|包括存储)(?:一共|总共)?(?:要|需要)?(?:多少钱|多少)(?:呢|啊)?\W*$",
    re.I,
)


class FollowUp(BaseModel):
    kind: Literal[
        "whatif",
        "unchanged",
        "market",
        "explain",
        "part",
        "quote",
        "purchase_quote",
        "prices",
        "budget_buys",
        "rent_or_buy",
        "lead_time",
        "capacity",
        "serving",
        "gpu_specs",
        "question",
        "silent",
    ]
    lang: str
    changed: list[str] = []
    changes: list[dict] = []  # {"name", "before", "after"}, worded
    why: str = ""  # why the GPU changed, when it did
    lead: str = ""  # what the reply answers before its comparison ("over the budget by ...")
    on: str = ""  # in a comparison's thread: which of its options the reply is about, said before it
    advice: Advice | None = None
    warnings: list[Note] = []  # warnings of the new plan that the first did not have
    currency: str = "CNY"
    before_currency: str = "CNY"
    before: dict = {}
    after: dict = {}
    faq: dict | None = None
    part: str | None = None  # "explain": time, memory, costs, gpus, servers, overview; "part": servers,
    # vendor, risks, rfq; "prices": the GPU asked about
    judgement: QuoteJudgement | None = None
    # the rows a reply lays out, for the Slack blocks: "gpus" the plan at the counts around its own,
    # "gpu_type" the best plan on each other GPU type, "vendor" the offers on record, "prices" the
    # GPU's price groups (market.prices.current_prices)
    rows: list[dict] = []
    # "prices": the purchase prices on record beside the rents, and whether the question asks to buy
    # ("how much does an 8x H100 server cost to buy?": they lead)
    bought: list[dict] = []
    buy_first: bool = False
    # what earlier what-ifs in this thread changed and this reply keeps ({"name", "before", "after"},
    # before as the thread's first request had it)
    kept: list[dict] = []
    # the plan the thread has come to after this reply, where a what-if moved it: {"request": the
    # request as text, "summary": its plan_context with "first_request", "first_gpus", "carried"};
    # the next message in the thread is answered against it (thread_state)
    thread: dict | None = None
    text: str  # the reply as plain text ('' when silent)

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "changed": self.changed,
            "changes": self.changes,
            "why": self.why,
            "lead": self.lead,
            "on": self.on,
            "before": self.before,
            "after": self.after,
            "faq": self.faq,
            "kept": self.kept,
            "thread_request": self.thread["request"] if self.thread else None,
            "text": self.text,
            "advice": self.advice.to_json() if self.advice else None,
        }


def follow_up(
    request_text: str, summary: dict, message: str, lang: str | None = None, *, book: PriceBook, mentioned: bool = True
) -> FollowUp:
    """`request_text` and `summary` are what the thread stored for its first answer; `book` the
    prices the thread's owner sees. `mentioned`: the bot was @mentioned (then it always
    answers); otherwise chatter and unsure FAQ matches get a silent reply."""
    reply_lang = lang or detect_lang(message)
    message = (message or "").strip()
    # "why A100 and not H800?", "为什么选A100不选H800": the plan on the GPU passed over, compared
    message = WHY_THIS_NOT_THAT.sub(lambda m: f"why not {m['other'] or m['other_zh'] or m['other_zh2']}?", message)
    # "vs H100 price/perf?", "vs H200?": the plan against that GPU, as "why not H100?" asks it (it had
    # been the GPU's price list)
    message = VERSUS_ONE.sub(lambda m: f"why not {m['other']}?", message)
    # "H20还是H800", "买H20还是H800", "should we buy H20 or H800?" with the plan on one of them: the plan
    # against the other, as "why not H20?" asks it (the menu, or the export rules' topic, before)
    # a ceiling on the GPUs said as what can be had ("we can't get more than 2 servers", "最多只能拿到32张卡",
    # "the vendor only has 4 nodes available"): that many GPUs at most (the first had read "more than 2
    # servers" as two more, the second 多32张 as 32 more)
    for bound, pattern in (("max", GPU_CEILING), ("at least", GPU_FLOOR)):
        said = pattern.search(message) if summary.get("gpu") else None
        if said:
            n = int(said["n"])
            servers = bool(re.match(r"nodes?|servers?|machines?|boxes|台", said["unit"], re.I))
            message = f"what if {bound} {n * (summary.get('gpus_per_node') or 8) if servers else n} GPUs?"
            break
    other = _the_other_gpu(message, summary.get("gpu") or "") if summary.get("gpu") else None
    if other and EITHER_GPU.search(message) and len(message) <= EITHER_MAX_CHARS:
        message = f"why not {other}?"
    # "月付还是年付划算": paying by the month against by the year is the terms' comparison (包月还是包年),
    # not the deposit's schedule (押一付三) it had been answered with
    if "月付" in message and "年付" in message:
        message = message.replace("年付", "包年").replace("月付", "包月")
    # "那最少要几天", "最短要多久": the fewest days it can take is the fastest plan (it had been the
    # counts around the plan's own, led by the cheapest)
    message = re.sub(
        r"^\W*那?\s*(?:最少|最短|至少)\s*(?:要|需要|得)?\s*(?:几天|多少天|多久|多长时间)", "最快多久能训完", message
    )
    # ("let's go with the cheaper, slower one" names an alternative by its label, comma and all: no
    # choice then a question, which had read "cheaper" chosen and asked "slower one")
    chosen = None if ALTERNATIVE_NAMED.search(message) else CHOSEN_THEN.match(message)
    if chosen and not summary.get("compared"):
        # the plan's own GPU (or no GPU) chosen: the question alone; another GPU is a change, read below
        named = _gpus_named(chosen["choice"])
        if not named or summary.get("gpu") in named:
            message = chosen["rest"]
        elif not _gpus_named(chosen["rest"]):
            # another GPU chosen, then a question ("go with the H20 one, how long?"): the plan on it,
            # whose numbers answer it (it had not been understood)
            message = f"go with the {chosen['choice']} one"
    silent = FollowUp(kind="silent", lang=reply_lang, text="")
    if not message or (CHATTER.match(message) and not _picks_another(message, summary)) or _team_talk(message):
        return silent
    if request_text and summary.get("gpu") and BACK_TO_FIRST.search(message):
        # "back to the original plan" after what-ifs moved the thread: the first request again,
        # against the plan the thread had come to, and the thread with it; before any, said so (it
        # had been the rent-or-buy topic's text)
        back = _back_to_first(request_text, summary, reply_lang, book) if summary.get("first_request") else None
        if back is not None:
            return back
        if not summary.get("first_request"):
            text = render("followup.txt.j2", reply_lang, kind="at_first", s=summary)
            return FollowUp(kind="unchanged", lang=reply_lang, text=text.strip())
    bought = budget_buys(message, reply_lang, book)
    if bought is not None:  # "300万能买几台": what the sum buys, whatever the thread's plan
        return bought
    if summary.get("compared"):
        # a comparison's thread ("那就选4090，要几台"): the option named, else the cheaper, answered
        # as its own thread would (these had gone unanswered: a comparison kept no thread)
        asked_why = WHY_AHEAD.search(message)  # (digits allowed: GPU names hold them)
        if asked_why or (
            WHICH_BETTER.search(message) and not re.search(r"\d", message) and len(_sides_named(summary, message)) != 1
        ):
            # "which one is better?", "选哪个": the comparison's verdict (had been the menu, on the cheaper)
            compared = compare(request_text, reply_lang, book=book) if request_text else None
            if compared is not None:
                text = render_comparison(compared, verdict_only=True)
                return FollowUp(kind="explain", part="verdict", lang=reply_lang, text=text)
        matched = _to_match(summary, message)
        if matched is None and (BOTH_ASKED.search(message) or len(_sides_named(summary, message)) > 1):
            both = _on_each(summary, message, lang, book, mentioned)
            if both is not None:
                return both.model_copy(update={"thread": None})  # a comparison's thread stays on its options
        side, named = (matched[0], True) if matched else _compared_side(summary, message)
        asked = matched[1] if matched else (chosen["rest"] if chosen else message)
        reply = follow_up(side["request"], side["summary"], asked, reply_lang, book=book, mentioned=mentioned)
        if reply.kind == "silent":
            return reply
        others = [s["option"] for s in summary["compared"] if s is not side]
        cheaper = side["option"] == summary.get("cheaper")
        on = phrase(reply.lang, "compared_side", side["option"], named, cheaper, others, summary.get("by", "gpu"))
        # a comparison's thread stays on its options: a what-if on one side does not move it
        return reply.model_copy(update={"on": on, "thread": None})
    if (
        request_text
        and summary.get("gpu")
        and (ALTERNATIVE_PICKED.search(message) or ALTERNATIVE_NAMED.search(message))
    ):
        picked = _alternative_picked(request_text, summary, message, reply_lang, book)
        if picked is not None:
            return picked
    started = GROW_FROM.search(message) and not re.search(r"\bpilot|\btrial|\btest|试跑|试一下|测试", message, re.I)
    if request_text and summary.get("gpu") and (GROW_LATER.search(message) or started):
        grow = _grow_later(request_text, summary, message, reply_lang, book)
        if grow is not None:
            return grow
    used = USED_GPU.search(message) and gpu_named(message) if request_text and summary.get("gpu") else None
    if used and used != summary.get("gpu"):
        # "二手3090行吗": the plan on that GPU, the used parts' checks first (it had been the FAQ's
        # text on used datacentre cards, none of which a 3090 is, and nothing on this job)
        reply = follow_up(request_text, summary, f"what if on {used}?", reply_lang, book=book, mentioned=mentioned)
        if reply.kind != "silent":
            lead = render("followup.txt.j2", reply_lang, kind="used_gpu", gpu=used).strip()
            return _led(reply, lead)
    if request_text and summary.get("gpu"):
        compared = _choice_compared(request_text, summary, message, reply_lang, book)
        if compared is not None:
            return compared
    if (
        request_text
        and summary.get("gpu")
        and INCLUDES_ASKED.search(message)
        and re.search(
            r"price|rent|cost|quote|bill|[$¥￥]|价格|价钱|租金|费用|报价|多少钱|成本|all[\s-]in|另算|另收|额外|egress|流量"
            # what the rent covers ("is storage included?", "存储包含吗")
            r"|\bstorage\b|\bnetwork(?:ing)?\b|\bbandwidth\b|\bsupport\b|存储|网络|带宽",
            message,
            re.I,
        )
        and not TAX_ASKED.search(message)
        and not UNIT_COST.search(message)  # "the all-in cost per million tokens?": the unit cost's
        # "what's the total cost if we buy the card?": the cost of that change, a what-if
        and not BOUGHT_IF.search(message)
        # "does the price include electricity?", "这个价格含电费吗": what the costs hold and leave out
        and not re.search(r"\belectric\w*|\bpower\b|电费", message, re.I)
    ):
        explained = _explain(request_text, summary, "costs", reply_lang, book)
        if explained is not None:
            return explained
    if request_text and summary.get("gpu") and PRICE_TALK.search(message):
        explained = _explain(request_text, summary, "costs", reply_lang, book)
        if explained is not None and explained.advice and explained.advice.plan.rent:
            c = explained.advice.plan.costs
            lead = render(
                "followup.txt.j2",
                reply_lang,
                kind="price_talk",
                c=c,
                days=explained.advice.plan.days,
                discount=(RESERVED_DISCOUNT, RESERVED_DISCOUNT_HIGH),
            ).strip()
            return _led(explained, lead)
    provider = _provider(message) if request_text and summary.get("gpu") else None
    if provider and TERMS_ASKED.search(message) and not SLA_ASKED.search(message):
        # "does tensorwave need a contract or min commitment": that provider's offers and their terms
        answered = _plan_part(request_text, summary, "vendor", reply_lang, book, provider=provider[0])
        if answered is not None:
            return answered
    # "what's the biggest model these GPUs could train?": the plan's own GPUs (it had been the FAQ's
    # text on the RTX 4090 under a plan on H800; "what else could these GPUs train in 2 weeks?" the
    # other GPU types, "... in a month?" a month's lease)
    if summary.get("gpu") and summary.get("gpu_count"):  # (GPUs the message counts come first)
        fit = capacity_asked(message, reply_lang, (summary["gpu"], int(summary["gpu_count"])))
        if fit is not None:
            return fit
    if request_text and summary.get("gpu") and ALTERNATIVES_ASKED.search(message) and not _gpus_named(message):
        explained = _explain(request_text, summary, "gpu_type", reply_lang, book)
        if explained is not None:
            return explained
    if request_text and summary.get("gpu") and SPLIT_SITES.search(message):
        answered = _split_sites(request_text, reply_lang, book)
        if answered is not None:
            return answered
    if request_text and summary.get("gpu") and OWN_AND_RENT.search(message):
        answered = _own_and_rent(request_text, summary, message, reply_lang, book)
        if answered is not None:
            return answered
    if request_text and summary.get("gpu"):
        asked_topics = (
            (FAILURE_RATE, "sla_failure_repair"),
            (FAILS_MID_RUN, "failure_mid_run"),
            (LOW_UTILISATION, "low_gpu_utilisation"),
            (MIXED_GPUS, "mixed_gpu_generations"),
            (RESERVED, "monthly_vs_hourly"),
        )
        for asked, topic in asked_topics:
            if not asked.search(message):
                continue
            if topic == "mixed_gpu_generations" and not (len(_gpus_named(message)) > 1 or GPU_WORDS.search(message)):
                continue  # "mix in some LoRA and full fine-tuning" mixes no GPUs
            if topic == "failure_mid_run" and VENDOR_OWES.search(message):
                continue  # "who covers the lost time?": what the vendor owes is the SLA's, as the FAQ weighs it
            if topic != "low_gpu_utilisation" or MEASURED_OR_REMEDY.search(message):
                return _faq_reply(_faq(message, summary, reply_lang, topic=topic), reply_lang)
    if request_text and summary.get("gpu") and SUMMARY_ASKED.search(message):
        # "summarize the plan", "tl;dr?", "what should I tell my boss?": its headline numbers, each with
        # its sum (the menu before)
        explained = _explain(request_text, summary, "overview", reply_lang, book)
        if explained is not None:
            return explained
    reason = _reason_asked(message, summary) if request_text else None
    # the link with another change ("30 days with only 25G ethernet?"): a what-if of both, read once
    linked = (
        read_whatif(request_text, summary, message, reply_lang)
        if reason == "network" and network_said(message)
        else None
    )
    if linked:
        reason = None
    if reason:
        answered = _reason(request_text, reason, message, reply_lang, book)
        if answered is not None:
            return answered
    if (
        request_text
        and summary.get("gpu")
        and summary.get("nodes", 2) <= 1
        and WHY_FABRIC.search(message)
        and re.search(r"infiniband|(?<![a-z])(?:ib|roce|rdma|efa|tcpx)(?![a-z])|fabric|组网", message, re.I)
    ):
        # "do we need EFA?" on one server: the network topic, which says one server needs none between
        # servers, however weakly its words score the cloud's own name for the fabric (the menu before)
        return _faq_reply(_faq(message, summary, reply_lang, topic="internode_network"), reply_lang)
    # serving, RL, the power and colocation prices, MFU, depreciation, a wall circuit, an odd count:
    # from the plan's numbers (a place named had read as a move to that market)
    what = plan_answers.asked(message) if request_text and summary.get("gpu") else None
    if what:
        answered = _plan_answer(request_text, summary, what, message, reply_lang, book)
        if answered is not None:
            return answered
    taxed = TAX_ASKED.search(message) and not HAS_AMOUNT.search(message)  # an amount: a budget with tax
    # "B200 国内能买到吗", "can we even buy H200 in China?": whether the GPU can be had there, the
    # export rules' topic with the plan's GPU (it had been read as a what-if and answered "unchanged")
    buyable = request_text and BUYABLE_ASKED.search(message) and _gpus_named(message)
    # "what if we prepay 6 months?", "预付3个月": a lease paid ahead is that term's (the deposit is 押金's)
    deposit = DEPOSIT_ASKED.search(message) and not (lease_term_asked(message) and not DEPOSIT_SAID.search(message))
    if request_text and (deposit or taxed or buyable):
        # "租的话押金一般多少" under a plan to buy: the lease's deposit on this plan's rent (the FAQ's
        # payment terms with the plan's numbers), not a what-if to rent (it had shown the plan again);
        # the tax on it likewise
        data = _faq(message, summary, reply_lang)
        if data.get("confident") or (buyable and data.get("topic") == "export_controls_china"):
            return _faq_reply(data, reply_lang)
    if request_text and summary.get("gpu") and _quotes_the_plans_money(message, summary):
        # "is ¥1.94M per month or total", "这个194万是一个月的吗", "is the 6143 all in?": the plan's own
        # figure asked about, its arithmetic (it had been judged as a vendor's quote, 28x the median)
        explained = _explain(request_text, summary, "costs", reply_lang, book)
        if explained is not None:
            return explained
    if PRICE.search(message) and HAS_AMOUNT.search(message):
        judged = _judge(message, reply_lang, book, summary.get("gpu") if summary else None)
        if judged is not None:
            return judged
    bare = BARE_RATE.search(message) if summary and summary.get("gpu") and QUOTE_VERB.search(message) else None
    if bare and not HAS_AMOUNT.search(message):
        # "the vendor quoted 9000 per GPU per month, good deal?": a rate with no currency is in the plan's
        # (it had drawn the cheap-quote topic)
        symbol = "$" if summary.get("currency") == "USD" else "¥"
        at = bare.start(1) if bare[1] else bare.start(2)
        priced = message[:at] + symbol + message[at:]
        judged = _judge(priced, reply_lang, book, summary.get("gpu"))
        if judged is not None:
            return judged
    if (
        request_text
        and summary.get("gpu")
        and DELIVERY_ASKED.search(message)
        and not _gpus_named_elsewhere(message, summary)
    ):
        first = advise(request_text, book=book)
        if first.plan is not None:
            # no lead time for this GPU: the shortest published for any server here, as the plan's warning says
            shortest = catalog.shortest_purchase_lead_weeks()
            text = render(
                "followup.txt.j2", reply_lang, kind="delivery", p=first.plan, C=first.plan.costs, shortest=shortest
            )
            return FollowUp(kind="explain", part="delivery", lang=reply_lang, advice=first, text=text)
    if request_text and summary.get("gpu") and RECOMMEND.search(message):
        answered = _recommend(request_text, reply_lang, book)
        if answered is not None:
            return answered
    if request_text and summary.get("gpu") and RUNS.search(message) and not _quotes_the_plans_money(message, summary):
        answered = _runs(request_text, message, reply_lang, book)
        if answered is not None:
            return answered
    if request_text and summary.get("gpu") and OFFPEAK_ASKED.search(message):
        answered = _offpeak(request_text, reply_lang, book)
        if answered is not None:
            return answered
        # no off-peak rate on record for this plan: the FAQ's off-peak topic, with its word on the
        # plan's servers, however weakly the question's own words score it ("什么时候跑最便宜")
        return _faq_reply(_faq(message, summary, reply_lang, topic="offpeak_night_pricing"), reply_lang)
    if request_text and DATA_WANTED.search(message) and DATA_NEEDED.search(message) and not re.search(r"\d", message):
        # how much data the job should have ("how much data do we need?", "要多少数据才够"), no amount said
        # (an amount is a what-if: "is 10k samples enough?"): pre-training's tokens for a run from scratch
        # or a domain's, the fine-tuning examples otherwise (had been the menu in English)
        pretraining = summary.get("method") in ("pretrain", "continued-pretrain")
        topic = "pretraining_tokens" if pretraining else "epochs"
        return _faq_reply(_faq(message, summary, reply_lang, topic=topic), reply_lang)
    if request_text and summary.get("tp") and LAYOUT_ASKED.search(message):
        # the layout as a whole ("explain the layout", "how is the model split?"): the parallelism topic
        # with its word on this plan's TP/PP/DP (it had been "I could not tell what to do with that")
        return _faq_reply(_faq(message, summary, reply_lang, topic="parallelism_strategies"), reply_lang)
    if request_text and summary.get("gpu") and POWER_COST.search(message) and not POWER_DRAW.search(message):
        # the electricity's price over a month ("how much is the power per month?"): the power topic's
        # bill on this plan's servers, not the servers' kW (the spec's power line had answered)
        return _faq_reply(_faq(message, summary, reply_lang, topic="electricity_cost"), reply_lang)
    if request_text and summary.get("gpu") and summary.get("days") and BUSINESS_HOURS.search(message):
        reply = _faq_reply(_faq(message, summary, reply_lang, topic="checkpoint_storage"), reply_lang)
        asked = _parsed(request_text, reply_lang)
        lead = render(
            "followup.txt.j2",
            reply_lang,
            kind="business_hours",
            days=summary["days"],
            calendar=summary["days"] * HOURS_A_WEEK / BUSINESS_HOURS_A_WEEK,
            hours=BUSINESS_HOURS_A_WEEK,
            week=HOURS_A_WEEK,
            deadline=asked.deadline_days if asked else None,
            hourly=summary.get("offer_option") == "hourly",
        )
        return _led(reply, lead.strip())
    if request_text and summary.get("gpu") and PAUSED.search(message):
        reply = _faq_reply(_faq(message, summary, reply_lang, topic="checkpoint_storage"), reply_lang)
        lead = render("followup.txt.j2", reply_lang, kind="paused", hourly=summary.get("offer_option") == "hourly")
        return _led(reply, lead.strip())
    if request_text and summary.get("gpu") and CHECKPOINT_CADENCE.search(message):
        # the checkpoint topic, whose note works the interval out on this plan's GPUs (the failure
        # topic had scored level with it and drawn the menu)
        return _faq_reply(_faq(message, summary, reply_lang, topic="checkpoint_storage"), reply_lang)
    if request_text and summary.get("gpu") and EARLY_RETURN.search(message):
        answered = _early_return(request_text, reply_lang, book)
        if answered is not None:
            return answered
    # the plan doubted as a whole: not a GPU of another kind or a count named ("真的可以用4090吗" is the plan
    # on 4090, "are you sure about 8 gpus?" the counts around its own)
    doubted = bool(
        request_text
        and summary.get("gpu")
        and DOUBTED.search(message)
        and not _gpus_named_elsewhere(message, summary)
        and not re.search(r"\d+\s*(?:x\s*)?(?:gpus?|cards?|nodes?|servers?|张|块|台)", message, re.I)
    )
    if doubted and summary.get("offload", "none") != "none":
        answered = _explain(request_text, summary, "memory", reply_lang, book)
        if answered is not None:
            return answered
    if request_text and summary.get("gpu") and (TIME_SURE.search(message) or doubted):
        answered = _time_sure(request_text, reply_lang, book)
        if answered is not None:
            return answered
    if request_text and summary.get("gpu") and EPOCH_TIME.search(message):
        answered = _epoch_time(request_text, reply_lang, book)
        if answered is not None:
            return answered
    if request_text and summary.get("gpu") and UNIT_COST.search(message):
        answered = _unit_cost(request_text, reply_lang, book)
        if answered is not None:
            return answered
    if request_text and summary.get("gpu") and MANAGED_API.search(message):
        # "how does this compare to Together's fine-tuning API?": such a service bills per token trained, so
        # this plan's rent a million tokens is the figure to set beside it (it had drawn the menu)
        answered = _unit_cost(request_text, reply_lang, book)
        if answered is not None:
            return _led(answered, render("followup.txt.j2", reply_lang, kind="managed_api").strip())
    if request_text and summary.get("gpu") and BUDGET_ASKED.search(message):
        answered = _budget_asked(request_text, summary, message, reply_lang, book)
        if answered is not None:
            return answered
    # ("签了三个月，中间卡坏了耽误的时间能补回来吗" asks what the vendor owes for a failure, not that term's price)
    term = (
        lease_term_asked(message) if request_text and summary.get("gpu") and not FAILS_MID_RUN.search(message) else None
    )
    # "每月多少钱" under a plan billed by the hour: what a month of its GPUs costs, on a month's lease
    # (under a lease the costs' arithmetic answers it)
    # (the electricity's month is its own answer: "电费一个月多少")
    monthly = bool(
        request_text
        and summary.get("gpu")
        and MONTHLY_COST.search(message)
        and not re.search(r"电费|用电|电价|power|electric", message, re.I)
    )
    by_the_hour = monthly and summary.get("offer_option") == "hourly"
    term = term or (1 if by_the_hour else None)
    if monthly and not term and not _gpus_named(message):
        explained = _explain(request_text, summary, "costs", reply_lang, book)
        if explained is not None:
            return explained
    if request_text and summary.get("offer_rate") and HOURLY_COST.search(message) and not _gpus_named(message):
        explained = _explain(request_text, summary, "costs", reply_lang, book)
        if explained is not None:
            monthly_rate = summary.get("offer_option") == "monthly"
            per_hour = summary["offer_rate"] / HOURS_PER_MONTH if monthly_rate else summary["offer_rate"]
            lead = render(
                "followup.txt.j2",
                reply_lang,
                kind="hourly_cost",
                s=summary,
                per_hour=per_hour,
                total=per_hour * summary["gpu_count"],
                monthly=monthly_rate,
                hours=HOURS_PER_MONTH,
            ).strip()
            return _led(explained, lead)
    if term and (by_the_hour or not ASKS_THE_RATE.search(message)) and not BUYING.search(message):
        others = [name for name in _gpus_named(message) if name != summary["gpu"]]
        leased = None if others else _lease_term(request_text, summary, term, reply_lang, book)
        if leased is not None:
            return leased
    # "买64张H800多少钱": buying that many is a what-if on this job (its capex), not the price list
    # ("买一台4卡4090工作站要多少钱"; "H20买的话多少钱", no count, is the card's price on record)
    buy_count = BUYING.search(message) and re.search(
        # (a GPU's own digits are no count: "how much is an H100 server to buy?" is its price)
        r"(?:(?<![a-z\d])\d+|[一两二三四五六七八])\s*(?:张|块|台|卡|x|×|gpus?|cards?|servers?|nodes?)",
        message,
        re.I,
    )
    # (under a plan, GPU types named as a choice are that plan on them, not their specifications)
    # (who sells the plan's own GPU is the plan's vendors, ranked for it: PLAN_PARTS "vendor")
    own_sellers = WHO_SELLS.search(message) and set(_gpus_named(message)) <= {summary.get("gpu")}
    priced = (
        None
        if (buy_count and request_text) or (own_sellers and request_text and summary.get("gpu"))
        else gpu_prices(message, reply_lang, book, summary.get("market"), specs=not summary.get("gpu"))
    )
    if priced is not None:
        return priced
    # "is 32GB vram enough for this?", "24G显存够吗": the plan's memory a GPU against that size, then
    # the plan on a card of it (US-buyer probe: the FAQ's 16 bytes a parameter, no yes or no)
    # (a GPU named with its size, "would A100 80GB work?", is a what-if on that GPU)
    size = _card_size_asked(message) if request_text and summary.get("mem_per_gpu_gib") else None
    # ("我们的4090是24G的够吗", "is our 4090's 24GB enough?": the plan's own GPU named with its size is this question)
    named = _gpus_named(message) if size else {}
    own = set(named) == {summary.get("gpu")} and not METHOD_WORDS.search(
        message
    )  # ("H20显存96G够不够跑全量": a method)
    size = None if size and named and not own else size
    if size:
        sized = _on_a_card_of(request_text, summary, size, reply_lang, book)
        if sized is not None:
            return sized
    if request_text and CONVERT.search(message) and not _market_named(message):
        converted = _converted(request_text, summary, message, reply_lang, book)
        if converted is not None:
            return converted
    # "如果预算是2万美元呢", "what if the budget were $20k?": a budget in another currency, not a move abroad
    budget_in = BUDGET_WORD.search(message) and HAS_AMOUNT.search(message) and not _provider(message)
    # "what if we use 8 H100s on lambda?": another GPU is a what-if on it (the provider's price for the
    # plan's own GPU had been the answer, the H100s ignored)
    other_gpu = request_text and summary.get("gpu") and _gpus_named_elsewhere(message, summary)
    if (
        request_text
        and not budget_in
        and not other_gpu
        and (MARKET.search(message) or CHINA.search(message) or _provider(message))
        and not (SLA_ASKED.search(message) or TERMS_ASKED.search(message))
        and not A_KWH.search(message)  # "electricity is 0.6 yuan/kWh": a power price, not a move to CNY
    ):
        if SOLD_OUT.search(message) and summary.get("gpu"):
            # "what if Lambda is sold out?": the other offers on record, cheapest first (it had been the plan
            # re-made on Lambda, the one the message rules out)
            answered = _plan_part(request_text, summary, "vendor", reply_lang, book)
            if answered is not None:
                return answered
        market = _market(request_text, summary, message, reply_lang, book)
        if market is not None:
            return market
    switch = LANG_SWITCH.match(message) if request_text else None
    if switch:
        word = (switch["en"] or switch["en2"] or switch["code"] or switch["zh"]).lower()
        explained = _explain(
            request_text, summary, "overview", "zh" if word in ("chinese", "zh", "中文") else "en", book
        )
        if explained is not None:
            return explained
    if request_text and summary.get("gpu"):
        # "why MI300X? does bitsandbytes even work on ROCm?": the first question decides
        why = WHY_THIS_GPU.match(message) or WHY_THIS_GPU.match(_first_question(message))
        named = why and (why["gpu"] or why["gpu_zh"])
        named_gpu = catalog.find_gpu(named.strip()) if named else None
        if why and (not named or (named_gpu is not None and _names_the_plans(named, named_gpu, summary["gpu"]))):
            explained = _explain(request_text, summary, "gpu_type", reply_lang, book)
            if explained is not None:
                return _and_the_rest(explained, request_text, message, reply_lang, book)
        elif why and named_gpu is not None:  # "why A100?" under an H800 plan: as "why not A100?"
            read = read_whatif(request_text, summary, named, reply_lang)
            if read is not None:
                return _whatif(request_text, summary, *read, reply_lang, book, why_not=True)
        # "H20和H800哪个好", "H20 or H800, which is better?" with the plan's GPU one of them: the
        # plan on the other, compared ("why not H20?")
        other = _the_other_gpu(message, summary["gpu"]) if WHICH_BETTER.search(message) else None
        # "跟H800比哪个划算", "compared with H800, which is cheaper?": the one GPU named against the plan's
        # "how many A100 nodes?" under an H200 plan: the plan on A100, its count
        if other is None and (
            WOULD_GPU_BE.match(message)
            or WHICH_BETTER.search(message)
            or COMPARED_WITH.search(message)
            or ASKS_COUNT.search(message)
            # "7% mfu is terrible, what would H800 cost": the plan on it, whatever came before
            or re.search(r"\bwhat would\b.{0,25}\bcost\b", message, re.I)
            or TRUSTED.search(message)
        ):
            named = _gpus_named(message)
            if len(named) == 1 and summary["gpu"] not in named:
                name, word = next(iter(named.items()))
                # "would 16 H20 be enough?": that many of them (the count had been dropped)
                counted = re.search(rf"(\d+)\s*(?:[x×*]|张|块)?\s*{re.escape(word)}", message, re.I)
                # ("can we use A100 40GB?": the part its memory names, not the family's first)
                base = catalog.find_gpu(word) or catalog.find_gpu(re.sub(r"(?<=\d)s$", "", word))
                other = word if base is not None and base.name == name else name.lower()
                other = f"{counted[1]} {other}" if counted else other
        if other is not None:
            read = read_whatif(request_text, summary, other, reply_lang)
            if read is not None:
                reply = _whatif(request_text, summary, *read, reply_lang, book, why_not=True)
                return _with_brief(reply, message, summary) if TRUSTED.search(message) else reply
    if request_text:
        part = explained_part(message)
        # "换成A800要几台": a count asked on another GPU is that GPU's plan, not this one's count
        elsewhere = bool(summary.get("gpu")) and _gpus_named_elsewhere(message, summary)
        named = _count_named(message, summary.get("gpu_count"))
        # "要几台服务器", "how many servers?": the servers first, then the counts around
        servers = bool(re.search(r"台|servers?|nodes?|machines?|boxes", message, re.I))
        if part and not (part == "gpus" and elsewhere):
            explained = _explain(
                request_text, summary, part, reply_lang, book, lead=server_topic(message), count=named, servers=servers
            )
            if explained is not None:
                return explained
        why_not = WHY_NOT.match(message)
        if ASKS_TOKENS.search(message) and not why_not:
            explained = _explain(request_text, summary, "time", reply_lang, book)
            if explained is not None and explained.advice:
                lead = render(
                    "followup.txt.j2",
                    reply_lang,
                    kind="tokens_read",
                    r=explained.advice.request,
                    packing=bool(re.search(PACKING, message, re.I)),
                ).strip()
                return _led(explained, lead)
        if ACTIVE_ASKED.search(message) and not why_not:
            # "你按多少激活参数算的", "how many active parameters did you assume?": a mixture's two
            # sizes and what each counts for (it had been the bytes-per-parameter topic)
            explained = _explain(request_text, summary, "time", reply_lang, book)
            if explained is not None and explained.advice:
                shape = model_shape(explained.advice.request)
                t = explained.advice.plan.estimate.throughput
                lead = render(
                    "followup.txt.j2", reply_lang, kind="active_params", m=shape, gflop=t.model_flops_per_token / 1e9
                ).strip()
                return _led(explained, lead)
        if PILOT_COST.search(message) and not why_not:
            # "试跑要多少钱", "how much would a pilot cost?": the pilot the checklist sizes, on one or two of
            # the plan's servers, at its rate (it had been the whole list of risks)
            explained = _explain(request_text, summary, "costs", reply_lang, book)
            lead = _pilot_lead(explained, reply_lang)
            if lead:
                return _led(explained, lead)
        buffer = COST_BUFFER.search(message)
        if buffer and not why_not:
            # "what's the cost with a 20% buffer?", "add 10% contingency": the rent with that margin on top
            explained = _explain(request_text, summary, "costs", reply_lang, book)
            plan = explained.advice.plan if explained and explained.advice else None
            share = float(next(g for g in buffer.groups() if g)) / 100
            if plan is not None and plan.rent:
                lead = render(
                    "followup.txt.j2",
                    reply_lang,
                    kind="cost_buffer",
                    share=share,
                    rent=plan.rent,
                    cur=plan.costs.currency,
                ).strip()
                return _led(explained, lead)
        said_mfu = MFU_IF.search(message)
        if said_mfu and not why_not:
            # "what if MFU is only 30%?": the plan's days and GPU-hours at that MFU, and what holds the
            # deadline then (it had been the plan's time at its own MFU)
            explained = _explain(request_text, summary, "time", reply_lang, book)
            plan = explained.advice.plan if explained and explained.advice else None
            mfu = float(next(g for g in said_mfu.groups() if g)) / 100
            if plan is not None and plan.days and 0 < mfu < 1:
                e, r = plan.estimate, explained.advice.request
                ratio = e.throughput.mfu / mfu
                per = max(1, e.layout.gpus_per_node)
                needed = (
                    math.ceil(e.layout.gpu_count * e.days * ratio / r.deadline_days / per) * per
                    if r.deadline_days
                    else None
                )
                lead = render(
                    "followup.txt.j2", reply_lang, kind="mfu_if", mfu=mfu, plan_mfu=e.throughput.mfu,
                    days=e.days * ratio, gpu_hours=e.gpu_hours * ratio, count=e.layout.gpu_count, gpu=plan.gpu,
                    deadline=r.deadline_days, needed=needed,
                ).strip()  # fmt: skip
                return _led(explained, lead)
        if BOTTLENECK.search(message) and not why_not:
            explained = _explain(request_text, summary, "time", reply_lang, book)
            if explained is not None and explained.advice:
                lead = render(
                    "followup.txt.j2", reply_lang, kind="bottleneck", t=explained.advice.plan.estimate.throughput
                ).strip()
                return _led(explained, lead)
        change = None  # a what-if read while checking for a number asked, kept for the what-if below
        for asked_number, part in (
            (ASKS_MEMORY, "memory"),
            (ASKS_COUNT, "gpus"),
            (ASKS_SPEED, "time"),
            (ASKS_PER_DAY, "costs"),
        ):
            if asked_number.search(message) and not why_not and not (part == "gpus" and elsewhere):
                # "用deepspeed zero3跑的话显存够不够": the number asked under a change is the what-if's
                change = read_whatif(request_text, summary, message, reply_lang) if part != "gpus" else None
                if change is None and part != "gpus":
                    # "全量微调显存够吗": the change without the words that ask for the number
                    change = read_whatif(request_text, summary, asked_number.sub(" ", message), reply_lang)
                if change is not None and change[1] == ["gpu"] and change[0].gpu == summary.get("gpu"):
                    change = None  # "how does 671B fit on 5090s?" under a 5090 plan: its GPU, no change
                if change is not None and change[1]:
                    break
                explained = _explain(request_text, summary, part, reply_lang, book, count=named, servers=servers)
                if explained is not None and part == "time" and TOKENS_A_DAY.search(message) and explained.advice:
                    # "how many tokens per day is that": the day's tokens first, from the same figures
                    e = explained.advice.plan.estimate
                    tps = e.throughput.tokens_per_s_per_gpu
                    lead = render(
                        "followup.txt.j2", reply_lang, kind="tokens_a_day", tps=tps, gpus=e.layout.gpu_count
                    ).strip()
                    return _led(explained, lead)
                if explained is not None:
                    return explained
        # "how much would it cost?" asks for the plan's own rent, not a change ("cost first")
        if _asks_its_costs(message):
            read = None
        elif why_not:
            rest = message[why_not.end() :]
            read = read_whatif(request_text, summary, rest, reply_lang)
            named = _gpus_named(rest)
            if read is None and len(named) == 1:
                # "为啥不推荐3090那个，便宜那么多": the GPU named, the remark after it the team's
                read = read_whatif(request_text, summary, next(iter(named.values())), reply_lang)
        else:
            read = change or linked or read_whatif(request_text, summary, message, reply_lang)
        if read is not None and read[1] == ["fabric"] and summary.get("nodes", 1) <= 1:
            # "do we need infiniband?" on one server: nothing between servers to choose; the answer
            # on the network, with this plan's numbers
            data = _faq(message, summary, reply_lang)
            if data.get("confident"):
                return _faq_reply(data, reply_lang)
        if read is not None and budget_in:
            read = _budget_kept_in_market(request_text, summary, message, read, reply_lang, book)
        if (
            read is not None
            and read[1]
            and set(read[1]) <= {"own_use_months", "own_utilisation", "lease_term_months"}
            and set(read[1]) & {"own_use_months", "own_utilisation"}
        ):
            # "如果用两年呢", "at 60% use?", "rent for 2 years or buy?": the same plan, owned against
            # rented over that use
            explained = _explain(canonical(read[0]), summary, "costs", reply_lang, book)
            if explained is not None:
                c = explained.advice.plan.costs
                if c.breakeven_months is not None or c.never_pays_back:
                    # the use asked, the break-even it gives first (probe T: it had been buried in
                    # the cost section's eleventh line)
                    lead = render("followup.txt.j2", reply_lang, kind="use_lead", c=c).strip()
                    return _led(explained, lead)
                return explained
        if read is not None and not read[1] and read[0].rent_or_buy == "buy" and PAYBACK.search(message):
            # "买的话多久回本", "if we buy, how long to pay back?" under a plan that buys already (no
            # change read): its break-even, not "that is what the plan already assumes"
            data = _faq(message, summary, reply_lang)
            if data.get("confident"):
                return _faq_reply(data, reply_lang)
        if read is not None:
            # "faster?" and "cheaper?" are read as a deadline the bot chose, not one the team gave
            implied = bool(FASTER.match(message) or CHEAPER.match(message))
            reply = _whatif(
                request_text,
                summary,
                *read,
                reply_lang,
                book,
                why_not=bool(why_not),
                implied_deadline=implied,
                buying=bool(BUYING.search(message)),
                # "faster?" and "cheaper?" are the bot's readings, not a deadline the team chose: shown,
                # the thread not moved to them (a later what-if had kept a 1.4-day deadline nobody set)
                carry=not implied,
            )
            if FASTER.match(message):
                reply = _faster_within_budget(request_text, summary, reply, reply_lang, book) or reply
            asked_number = next((part for part, words in RESTATED_ASKS if re.search(words, message, re.I)), None)
            added = MORE_DAYS.search(message) or MORE_WEEKS.search(message)  # "what would 2 more weeks save?"
            if reply.kind == "unchanged" and DATA_WANTED.search(message):
                # under a pre-training plan the tokens-per-parameter topic; under fine-tuning the
                # epochs topic, whose published runs give the data sizes (Alpaca's 52,000, LIMA's 1,000)
                pretraining = "pretrain" in (summary.get("method") or "")
                topic = "pretraining_tokens" if pretraining else "epochs"
                return _faq_reply(_faq(message, summary, reply_lang, topic=topic), reply_lang)
            if reply.kind == "unchanged" and asked_number and not added:
                # "全参微调要多久" under a full fine-tuning plan: the plan restated, its number asked
                explained = (
                    _time_sure(request_text, reply_lang, book)
                    if asked_number == "time_sure"
                    else _explain(request_text, summary, asked_number, reply_lang, book)
                )
                if explained is not None:
                    return explained
            reply = _no_cheaper(summary, message, reply) or reply
            return _cheaper_with_more_time(request_text, message, reply, reply_lang, book) or reply
        asked = plan_part(message)
        if asked and (mentioned or not TO_A_PERSON.match(message)):
            answered = _plan_part(request_text, summary, asked, reply_lang, book, lead=server_topic(message))
            # "should we do a pilot first?", "能不能先试跑一下": the pilot's size leads the checks it runs
            lead = _pilot_lead(answered, reply_lang) if answered and asked == "risks" and PILOT.search(message) else ""
            if answered is not None:
                return _led(answered, lead) if lead else answered
        # the electricity's cost a month ("electricity cost per month?") is the power topic's, not the rent's
        if (_asks_its_costs(message) or ASKS_THE_TERMS.search(message)) and not POWER_BILL.search(message):
            explained = _explain(request_text, summary, "costs", reply_lang, book)
            if explained is not None:
                return explained
    data = _faq(message, summary, reply_lang)
    if not mentioned and not (
        data.get("confident") and QUESTION.search(message) and DOMAIN.search(message) and not TO_A_PERSON.match(message)
    ):
        return silent
    if not data.get("confident"):
        # Spoken to, and no ability answers it: say what the bot can answer here, with the
        # nearest FAQ topics, rather than a long answer to a question nobody asked.
        alternatives = [a.get("title") if isinstance(a, dict) else a for a in data.get("alternatives") or []]
        nearest = [data.get("title"), *alternatives]
        topics = [t for t in nearest if t][:3]
        return FollowUp(
            kind="question",
            lang=reply_lang,
            faq=data,
            text=render("followup.txt.j2", reply_lang, kind="unrouted", in_thread=bool(request_text), topics=topics),
        )
    return _faq_reply(data, reply_lang)


def _gpus_named_elsewhere(message: str, summary: dict) -> bool:
    """The message names a GPU type other than the plan's ("how long is delivery for H20?")."""
    return any(
        not _names_the_plans(word, catalog.get_gpu(name), summary["gpu"]) for name, word in _gpus_named(message).items()
    )


def _recommend(request_text: str, lang: str, book: PriceBook) -> FollowUp | None:
    """ "what would you do?": the plan the answer chose, the cheaper and the faster of the options
    shown beside it (where the deadline may move, where time matters more), and the next steps:
    the pilot the checklist sizes, the request for quotes, the risks."""
    first = advise(request_text, book=book)
    plan = first.plan
    if first.request is None or plan is None:
        return None
    rent = plan.rent
    shown = [a for a in first.result.alternatives if a.days and a.rent is not None and a.method == plan.method]
    lora = next((a for a in first.result.alternatives if a.label == "lora" and a.days and a.rent is not None), None)
    cheaper = min((a for a in shown if rent is not None and a.rent < rent), key=lambda a: a.rent, default=None)
    faster = min((a for a in shown if plan.days and a.days < plan.days), key=lambda a: a.days, default=None)
    pilot = first.pilot()
    conflict = next((w.params for w in first.warnings if w.code == "budget_vs_deadline"), None)
    # a plan on the GPUs named that misses the deadline: the change that meets it leads (16 H100 for
    # 154 days had been "my pick" against a 60-day deadline that 64 of them meet for less)
    meeting = None
    if first.request.deadline_days and plan.days and plan.days > first.request.deadline_days:
        meeting = next(
            (sg.plan for sg in first.result.suggestions if sg.plan and sg.plan.meets_deadline and sg.plan.days),
            None,
        )
    text = render(
        "followup.txt.j2",
        lang,
        kind="recommend",
        meeting=meeting,
        deadline=first.request.deadline_days,
        conflict=conflict,
        p=plan,
        owned=first.request.owned,
        cheaper=cheaper,
        faster=faster if faster is not cheaper else None,
        lora=lora,
        pilot=pilot,
        cur=plan.costs.currency,
    )
    return FollowUp(kind="explain", part="recommend", lang=lang, advice=first, text=text)


def _unit_cost(request_text: str, lang: str, book: PriceBook) -> FollowUp | None:
    """The plan's rent over its tokens (a million of them) and over the GPU-hours it runs, beside the
    offer's own rate: a lease bills the idle days of its months, so the job's GPU-hour costs more
    than the offer's; None without a rent or data."""
    first = advise(request_text, book=book)
    req, plan = first.request, first.plan
    if req is None or plan is None or not plan.rent or not req.tokens or not plan.estimate.gpu_hours:
        return None
    c = plan.costs
    offer_hour = (
        c.rent_per_gpu_hour
        if c.rent_option == "hourly"
        else c.rent_per_gpu_month / HOURS_PER_MONTH
        if c.rent_per_gpu_month
        else None
    )
    text = render(
        "followup.txt.j2",
        lang,
        kind="unit_cost",
        rent=plan.rent,
        cur=c.currency,
        tokens=req.tokens,
        epochs=req.epochs,
        hours=plan.estimate.gpu_hours,
        option=c.rent_option,
        offer_hour=offer_hour,
        per_month=c.rent_per_gpu_month,
        hours_per_month=HOURS_PER_MONTH,
    )
    return FollowUp(kind="explain", part="unit_cost", lang=lang, advice=first, text=text)


# The time of one pass over the data asked ("how long per epoch?", "每轮要多久", "一个epoch多久"): the
# plan's time over its epochs ("how long per epoch?" had been given the whole three epochs' time)
EPOCH_TIME = re.compile(
    r"\b(?:how\s+long|time|hours?|days?)\s+(?:per|for\s+(?:one|an?|each))\s+epoch\b"
    r"|\b(?:how\s+long\s+(?:is|does|will|would)\s+(?:one|an?|each|every)\s+epoch)\b"
    r"|\b(?:one|each|an?)\s+epoch\s+(?:takes?|lasts?)\b"
    r"|(?:每|一)\s*(?:个)?\s*(?:轮|epoch|遍)\s*(?:要|需要|得|大概|大约)?\s*(?:多久|多长时间|几个?小时|几天)",
    re.I,
)


# How sure the plan's time is ("5.2天靠谱吗", "is 8.5 days safe vs the 14d deadline?", "13天准吗",
# "how accurate is the 13 days?"): the time, the engine's error, the room to the deadline and the pilot
TIME_SURE = re.compile(
    r"\d+(?:\.\d+)?\s*(?:天|days?|d|小时|hours?|h)(?![a-z]).{0,20}?"
    r"(?:靠谱|准(?:吗|不准|确)|可靠|稳(?:吗|不稳)|\bsafe\b|\brealistic\b|\baccurate\b|\breliable\b|\btrust\b)"
    r"|(?:how|is|are)\b.{0,12}\b(?:accurate|realistic|reliable)\b.{0,20}\d+(?:\.\d+)?\s*(?:days?|hours?)"
    # "how sure are you about 13 days?", "how confident is the 13 days?", "13天有多大把握"
    r"|\bhow\s+(?:sure|confident|certain)\b.{0,30}\d+(?:\.\d+)?\s*(?:days?|hours?|weeks?)"
    r"|\d+(?:\.\d+)?\s*(?:天|小时).{0,8}(?:多大把握|有把握|把握大|误差多大|误差有多大)"
    # "how confident are you in these numbers?", "how accurate is this estimate?", "误差有多大"
    r"|\bhow\s+(?:sure|confident|certain|accurate|reliable|precise|good)\s+(?:are\s+you|is|are)\b.{0,20}?"
    r"\b(?:numbers?|estimates?|figures?|plan|calculations?|predictions?)\b"
    r"|(?:数字|估算|估计|预测|结果)(?:有多|能有多)?(?:准|可靠)|误差(?:有)?多大"
    # the plan's numbers doubted as a whole ("is this realistic?", "靠谱吗", "这个估算准吗"): how sure its time is
    r"|^\W*(?:(?:is|are)\s+(?:this|that|it|these|those|the (?:plan|estimate|numbers?|timeline))|really)"
    r"\s+(?:(?:whole|plan|estimate|time|timeline|schedule|really)\s+)?(?:realistic|accurate|reliable|legit|achievable|doable|right)\W*$"
    r"|^\W*(?:这个|这)?(?:估算|估计|结果|数字|时间|工期)?(?:真的)?(?:靠谱|现实|可信|准|准确|能做到|做得到)(?:吗|么|不|嘛|吧)\W*$"
    # the deadline missed ("what if we miss the deadline?", "what if it runs late?", "如果超期了怎么办"): how
    # much room the time leaves and the pilot that finds out (the FAQ's doubling of GPUs and its bytes to
    # tokens had answered, or the menu)
    r"|\b(?:miss(?:es|ed)?|go(?:es)?\s+over|overrun|blow(?:s)?)\s+(?:the\s+|our\s+)?deadline\b"
    r"|\b(?:runs?|is|goes|takes)\s+(?:late|longer(?:\s+than\s+(?:planned|expected|estimated))?)\W*$"
    r"|(?:超期|逾期|赶不上|来不及)(?:了)?(?:的话)?(?:怎么办|咋办|会怎样|怎么样)?\W*$",
    re.I,
)


def _time_sure(request_text: str, lang: str, book: PriceBook) -> FollowUp | None:
    """How far to trust the plan's time: the engine's median error on runs it was not fitted to
    (planner.DEADLINE_SLACK, docs/accuracy.md), the time left to the deadline, and the pilot that
    measures it before signing."""
    first = advise(request_text, book=book)
    plan, req = first.plan, first.request
    if plan is None or not plan.days:
        return None
    pilot = first.pilot()
    c = plan.costs
    # what running long costs: a lease's months paid cover the days past the plan's time before the
    # next month is billed; by the hour, every GPU around the clock at the plan's rate
    paid = (c.rent_term or {}).get("months_paid") if c.decision == "rent" and c.rent_option == "monthly" else None
    per_day = (
        c.rent_per_gpu_hour * plan.estimate.layout.gpu_count * 24
        if c.decision == "rent" and c.rent_option == "hourly" and c.rent_per_gpu_hour
        else None
    )
    text = render(
        "followup.txt.j2",
        lang,
        kind="time_sure",
        days=plan.days,
        error=DEADLINE_SLACK,
        deadline=req.deadline_days,
        pilot_hours=pilot["params"]["hours"] if pilot and pilot["code"] == "pilot" else None,
        paid_days=paid * DAYS_PER_MONTH if paid else None,
        per_day=per_day,
        cur=c.currency,
    )
    return FollowUp(kind="explain", part="time_sure", lang=lang, advice=first, text=text)


# Giving the servers back when the job is done ("跑完5天能退吗", "can we return the servers early?",
# "refund for the unused days?"): what the plan's rent leaves to give back
EARLY_RETURN = re.compile(
    r"退租|提前退|(?:能|可以)退(?:吗|么|钱|款)?|退(?:钱|款)|剩下的.{0,6}(?:退|返)|没用完.{0,8}(?:退|怎么办)"
    r"|\brefunds?\b|\breturn (?:the )?(?:servers|gpus|machines|cluster|boxes|them) early\b"
    r"|\bgive (?:them|it|the servers) back\b|\bearly (?:exit|termination|return)\b"
    r"|\b(?:end|break|cancel|exit|terminate)\b.{0,12}\b(?:lease|contract|term|early)\b"
    r"|\bunused (?:days|weeks|time|part)\b",
    re.I,
)


def _early_return(request_text: str, lang: str, book: PriceBook) -> FollowUp | None:
    """What ending the rent when the job ends saves: nothing to give back by the hour; on a lease
    billed by the month, the months paid against the days used, and what to ask the vendor. None
    for a plan that buys or runs on owned GPUs (the FAQ's contract terms answer)."""
    first = advise(request_text, book=book)
    plan = first.plan
    if plan is None or plan.costs.decision != "rent" or not plan.costs.rent_total or not plan.days:
        return None
    c = plan.costs
    term = c.rent_term or {}
    text = render(
        "followup.txt.j2",
        lang,
        kind="early_return",
        c=c,
        days=plan.days,
        months=term.get("months_paid") or 1,
        provider=(c.rent_offer or {}).get("provider"),
    )
    return FollowUp(kind="explain", part="early_return", lang=lang, advice=first, text=text)


# The plan run several times ("how much for a 10-run hparam sweep", "跑10次要多少钱", "we want to run
# it 10 times with different lr"): that many of its runs
RUNS = re.compile(
    r"(?<![\d.])(\d{1,4})\s*(?:-\s*)?(?:runs?|times|trials?|experiments?|seeds?|configs?)\b"
    r"|(?<![\d.])(\d{1,4})\s*(?:次|遍|组(?:超参|实验|参数)?|个(?:实验|配置|种子))",
    re.I,
)


def _runs(request_text: str, message: str, lang: str, book: PriceBook) -> FollowUp | None:
    """N runs of the plan: N times its rent and GPU-hours, back to back on its GPUs (N times its
    time) or side by side on N times the GPUs (its time). None for one run or a plan without rent."""
    found = RUNS.search(message)
    runs = int(found[1] or found[2]) if found else 0
    first = advise(request_text, book=book) if 2 <= runs <= 1000 else None
    plan = first.plan if first else None
    if plan is None or not plan.days or not plan.costs.rent_total:
        return None
    c = plan.costs
    lease = None
    if c.rent_option == "monthly" and c.rent_monthly_total:
        # back to back on the lease: the whole months they take, at the plan's monthly rent
        paid = (c.rent_term or {}).get("months_paid") or 1
        months = max(paid, job_months(plan.days * runs))
        lease = {"months": months, "cost": c.rent_monthly_total / paid * months}
    text = render(
        "followup.txt.j2",
        lang,
        kind="runs",
        lease=lease,
        runs=runs,
        days=plan.days,
        gpu_hours=plan.estimate.gpu_hours,
        count=plan.estimate.layout.gpu_count,
        gpu=plan.gpu,
        rent=c.rent_total,
        hourly=c.rent_option == "hourly",
        cur=c.currency,
    )
    return FollowUp(kind="explain", part="runs", lang=lang, advice=first, text=text)


# The off-peak rate asked of a plan ("AutoDL夜间闲时价能用吗，能省多少", "can we use the off-peak rate?")
# The plan's layout asked about as a whole, no knob named ("explain the layout", "how is the model
# split across the GPUs?", "模型怎么切分的", "并行方式是什么")
LAYOUT_ASKED = re.compile(
    r"^\W*(?:(?:can\s+you|could\s+you|please)\s+)?(?:explain|describe|walk\s+me\s+through)\s+(?:the\s+|this\s+|your\s+)?"
    r"(?:layout|parallelism|parallel\s+layout|sharding|split)\b"
    r"|\bhow\s+(?:is|was|will)\s+(?:the\s+)?(?:model|70b|job|work)\s+(?:be\s+)?(?:split|sharded|partitioned|distributed"
    r"|parallel(?:ised|ized))\b"
    r"|^\W*what(?:'s|\s+is)\s+the\s+(?:parallel(?:ism)?\s+)?(?:layout|parallelism)\W*$"
    r"|(?:模型|权重)(?:是)?怎么(?:切分?|拆分?|分片|并行)|并行(?:方式|策略|方案)(?:是)?(?:什么|怎样|是啥|啥)"
    r"|(?:解释|说明|讲讲|讲一下)(?:一下)?(?:并行|切分|布局)",
    re.I,
)
OFFPEAK_ASKED = re.compile(
    r"闲时|夜间|晚上跑|off[\s\-]?peak|night[\s\-]?(?:time\s+)?(?:rate|price|hours|pricing)"
    # "what's the cheapest time of day to run this?", "什么时候跑最便宜", "哪个时段便宜"
    r"|\bcheap\w*\s+(?:time|hours?)\b|\btime\s+of\s+(?:the\s+)?day\b"
    r"|什么时[候间]\S{0,4}便宜|(?:哪个|什么)时段|时段.{0,4}便宜",
    re.I,
)


# What the electricity costs ("how much is the power per month?", "电费一个月多少", "power bill?"); its
# draw in kW ("how much power does it draw?") is the servers'
POWER_COST = re.compile(
    r"\b(?:power|electricity|energy)\b.{0,12}\b(?:bill|costs?|per month|a month|monthly|per year|a year)\b"
    r"|\bhow much\b.{0,12}\b(?:power|electricity)\b.{0,12}\b(?:cost|per month|a month|monthly)\b"
    r"|电费.{0,6}(?:多少|一个月|每月|每个月|怎么算|贵)|(?:每月|一个月|每个月)\S{0,4}电费",
    re.I,
)
POWER_DRAW = re.compile(r"\bdraws?\b|\bwatts?\b|\bkw\b|功耗|功率|电价|每度|一度|\bper kwh\b|\bprice\b", re.I)
# Their own GPUs used less than they should be ("our MFU is only 25%, how to improve?", "训练时GPU利用率只有
# 30%怎么办"): the low-utilisation topic's causes, set beside the plan's MFU (it had been the plan's own time
# arithmetic, or what MFU means). Measured or a remedy asked: "why is MFU 18%?" alone asks about the plan's.
LOW_UTILISATION = re.compile(
    r"(?:\bmfu\b|utili[sz]ation|\butil\b|利用率|使用率)[^?？。!！]{0,40}?"
    r"(?:\bonly\b|\bjust\b|\blow\b|\bpoor\b|\bstuck\b|\bbelow\b|只有|只|才|不到|低|上不去|不高|跑不满)"
    r"|\b(?:improv|rais|increas|boost)\w*\b.{0,25}(?:\bmfu\b|utili[sz]ation)|(?:提高|提升|拉高).{0,8}(?:利用率|mfu)"
    r"|\bgpus?\s+(?:are\s+|sit\s+|sitting\s+)?(?:idle|under-?utili[sz]ed)\b|(?:卡|gpu)(?:经常)?(?:空闲|闲着|跑不满)",
    re.I,
)
MEASURED_OR_REMEDY = re.compile(
    r"\b(?:our|we|we're|we've|my|i|i'm)\b|实测|实际|训练时|跑起来|跑的时候|我们|我的"
    r"|\bhow\s+(?:to|do|can|could|should)\b|\bwhat\s+(?:can|should|do)\b|\bfix|\bimprov|怎么|如何|咋办|提高|提升",
    re.I,
)
# A GPU or a server failing mid-run ("what's the risk if a GPU dies mid-run?", "训练中途有卡挂了怎么办"): the
# failure topic, on this plan's GPUs (it had been the plan's risks, on "risk"). A failure rate is the SLA's.
FAILS_MID_RUN = re.compile(
    r"\b(?:gpus?|cards?|nodes?|servers?|machines?|hosts?|ranks?)\s+(?:dies|died|die|dying|fails?|failed|failing"
    r"|crash(?:es|ed)?|goes\s+down|go\s+down|went\s+down|breaks?|broke|is\s+dead)\b(?!\s+rate)"
    r"|\b(?:node|gpu|hardware|server)\s+(?:failures?|crash(?:es)?)\b(?!\s+rate)"
    r"|(?:卡|gpu|节点|机器|服务器)(?:突然)?(?:挂了|挂掉|坏了|坏掉|宕机|掉了|出故障)|掉卡|宕机了"
    # the run itself broken off ("如果中途断了怎么办", "what if training crashes halfway?")
    r"|(?:中途|半路|跑到一半|训练中|训到一半)(?:突然)?(?:断了|中断了?|挂了|停了|崩了|失败了?)"
    r"|\b(?:training|the\s+(?:run|job))\s+(?:crash(?:es|ed)?|dies|died|gets\s+interrupted|is\s+interrupted)"
    r"\s+(?:halfway|midway|mid-?run|in\s+the\s+middle)"
    # how many to expect ("how many failures should we expect?", "会坏几次"): the plan's expected interruptions
    # (the loss topic had answered, on "expect")
    r"|\bhow\s+many\s+(?:gpu\s+|node\s+|hardware\s+)?(?:failures|interruptions|crashes|breakdowns)\b"
    r"|\b(?:failures|interruptions|crashes)\s+(?:should\s+we|will\s+we|do\s+we|to)\s+expect"
    r"|会坏几次|(?:会|要)?(?:出|有)几次(?:故障|中断)|预计(?:会有)?几次(?:故障|中断)",
    re.I,
)
# Reserved capacity asked ("can we use reserved instances?", "how about a savings plan?", "预留实例"): the terms
# topic, which weighs reservations against the hourly rate (it had been the spot topic)
RESERVED = re.compile(
    r"\breserv(?:ed|ation)s?\b(?!\s+(?:price|memory))|\bcommitted[\s-]use\b|\bsavings\s+plans?\b|预留实例|预留资源|承诺使用"
    # a term between the hour and the month ("how about renting by the week?", "能按周租吗": the menu before)
    r"|\b(?:rent\w*|leas\w*|bill\w*|pay\w*)\s+(?:it\s+|them\s+)?(?:by\s+the\s+|per\s+)?week\b|\bweekly\s+(?:rent|rental|lease|billing|term)s?\b"
    r"|按周(?:租|计费|付|结算)?|周租"
    # or by the day ("能不能按天租", "can we rent it by the day?": the menu before)
    r"|\b(?:rent\w*|leas\w*|bill\w*|pay\w*)\s+(?:it\s+|them\s+)?(?:by\s+the\s+|per\s+)day\b"
    r"|\bdaily\s+(?:rent|rental|lease|billing|term)s?\b|按(?:天|日)(?:租|计费|付|结算|收费)|日租",
    re.I,
)
# A failure rate asked ("what's a normal failure rate for H800s in a big cluster?", "故障率一般多少"): the SLA
# topic's figures (it had been the H800's price list, on the GPU's name and "rate")
FAILURE_RATE = re.compile(r"\bfailure[\s-]+rates?\b|\bfail(?:ing)?\s+rates?\b|故障率|坏卡率|返修率", re.I)
VENDOR_OWES = re.compile(
    r"\bwho\s+(?:covers|pays|compensates)\b|\bvendor|\bprovider|\bcompensat|\brefund|\bcredits?\b|\bsla\b|\bowe"
    r"|赔|补偿|补回|退款|供应商|厂商|服务商|算谁的",
    re.I,
)
GPU_WORDS = re.compile(r"\b(?:gpus?|cards?|servers?|nodes?|old|older)\b|卡|服务器|机器|老|旧", re.I)
# Two kinds of GPU in one job ("can we mix H800 and A800?", "4090和3090能混着用吗"): the mixing topic (it had
# been the menu, the GPUs' names drawing the H20/H800/H100 topic level with it)
MIXED_GPUS = re.compile(
    r"\b(?:mix|combin|pair)\w*\b[^?？]{0,40}\b(?:and|with)\b"
    r"|\b(?:together|side by side)\b[^?？]{0,20}\bsame (?:job|run)\b"
    r"|混用|混训|混着|混在一起|混搭|一起训"
    # "can we use 2 nodes with different GPUs?", "不同型号的卡能一起用吗" (the menu had answered)
    r"|\bdifferent\s+(?:gpus?|cards?|gpu\s+(?:types?|models?|generations?))\b|不同(?:型号|种类|代)?的?(?:卡|显卡|gpu)",
    re.I,
)
# How often to save, or how to resume ("how often should we checkpoint?", "多久存一次checkpoint",
# "断点续训怎么做"): not what the checkpoints weigh ("how much storage for checkpoints?" is the servers')
CHECKPOINT_CADENCE = re.compile(
    r"\bhow\s+(?:often|frequently)\b.{0,30}\b(?:checkpoint|ckpt|save|snapshot)"
    r"|\b(?:checkpoint|ckpt|save)\w*\s+(?:interval|frequency|cadence|schedule)\b"
    r"|\bhow\s+(?:long|many\s+(?:hours|minutes|steps))\b.{0,25}\b(?:between|until|till|before)\b.{0,15}"
    r"\b(?:checkpoint|ckpt|save)"
    r"|\bresum\w*\b.{0,25}\b(?:checkpoint|ckpt)|\b(?:checkpoint|ckpt)\b.{0,25}\bresum"
    r"|多久.{0,6}(?:存|保存|做|打|写).{0,6}(?:checkpoint|ckpt|检查点|一次)"
    r"|(?:checkpoint|ckpt|检查点).{0,8}(?:间隔|频率|多久|多长时间|几个?小时)|断点续训|续训",
    re.I,
)
# The run paused or split ("能不能分两批跑", "如果中间要停一周呢", "can we pause it for a week?"): it
# resumes from its last checkpoint, what the paused days cost said first (both had drawn the menu)
# Training only in working hours ("what if we only run during business hours?", "只在上班时间跑"): the run's
# calendar time and what the idle hours cost, on its offer; the hours are assumed (10 a day on 5 days a week)
BUSINESS_HOURS = re.compile(
    r"\b(?:business|office|working|work)\s+hours\b|\bduring\s+the\s+day\s+only\b|\bonly\s+(?:during|in)\s+the\s+day\b"
    r"|\b9\s*(?:-|to)\s*[56]\b|上班时间|工作时间|白天跑|只在白天|只白天|晚上不跑|夜里不跑",
    re.I,
)
BUSINESS_HOURS_A_WEEK = 50  # assumed: 10 hours a day, 5 days a week
HOURS_A_WEEK = 168
PAUSED = re.compile(
    r"分\s*(?:两|2|几|多|三|3)\s*(?:批|次|段|轮)\s*(?:跑|训|训练|做)|分批(?:跑|训)|中间(?:要|得|需要)?(?:停|暂停)|暂停(?:一|几)"
    r"|\bpause\b|\b(?:split|break)\s+(?:it|the (?:run|job|training))\s+(?:into|in)\b"
    r"|\bstop\s+and\s+(?:restart|resume)\b",
    re.I,
)


def _offpeak(request_text: str, lang: str, book: PriceBook) -> FollowUp | None:
    """The plan's GPU-hours at the off-peak rate on record against its own rate, and what that
    saves; None where no off-peak rate is on record for it (one server billed by the hour)."""
    first = advise(request_text, book=book)
    plan = first.plan
    c = plan.costs if plan else None
    if c is None or not c.offpeak_per_gpu_hour or c.rent_option != "hourly" or not c.rent_per_gpu_hour:
        return None
    hours = c.rent_hourly_total / c.rent_per_gpu_hour if c.rent_hourly_total else plan.estimate.gpu_hours
    text = render(
        "followup.txt.j2",
        lang,
        kind="offpeak",
        rate=c.rent_per_gpu_hour,
        offpeak=c.offpeak_per_gpu_hour,
        hours=hours,
        days=plan.days,
        cur=c.currency,
    )
    return FollowUp(kind="explain", part="offpeak", lang=lang, advice=first, text=text)


# What the rent covers asked ("does the $3.9 include pulling the 240GB of weights", "这个价格包含存储吗");
# tax is its own topic (TAX_ASKED)
METHOD_WORDS = re.compile(r"全量|全参|预训练|\b(?:q?lora|full|pretrain\w*|fine-?tun\w*|sft|dpo)\b", re.I)
BOUGHT_IF = re.compile(r"\bif\s+(?:we|i)\s+(?:buy|bought|own)\b|如果买|要是买|买的话", re.I)
INCLUDES_ASKED = re.compile(
    r"\b(?:does|is|are|do)\b[^?？]{0,30}\binclud\w*|\binclusive of\b"
    # "is $61.8k the all-in cost or are storage and egress extra?" (a figure the plan no longer has)
    r"|\ball[\s-]in\b|\bon top\b|\b(?:extra|separate(?:ly)?)\s*[?？]"
    r"|包含|包括.{0,12}(?:吗|么|不)|含不含|含(?!税).{0,8}(?:吗|么)|另算|另收|额外(?:收|付|算)"
    # "what's the total cost including storage and network?", "a quote to send to finance": the costs whole
    r"|\b(?:total|full|whole)\s+(?:cost|price|bill|spend)\b|\b(?:cost|price)\s+including\b"
    r"|\b(?:send|give|show)\b.{0,20}\b(?:finance|accounting|procurement|cfo)\b|总(?:费用|成本|价)|一共(?:要)?多少钱|给财务|报给财务",
    re.I,
)
# A provider's service asked about, not its price ("is autodl reliable enough, any SLA?"): the FAQ's
# SLA topic; its contract ("does tensorwave need a contract or min commitment"): its offers' terms
SLA_ASKED = re.compile(r"\bsla\b|\buptime\b|\breliab\w*|可靠|稳定吗|故障率|售后", re.I)
TERMS_ASKED = re.compile(
    r"\bcontract\b|\bcommit(?:ment)?\b|\bmin(?:imum)?\s+(?:term|commit\w*|period)\b|\block[\s\-]?in\b"
    r"|合同|最短租期|起租|签多久",
    re.I,
)
# The plan's alternatives asked for ("what are the alternatives?", "whats the cheapest nvidia option",
# "is there a better setup", "还有别的方案吗"): the best plan on each other GPU type
ALTERNATIVES_ASKED = re.compile(
    r"\balternatives?\b|\bother (?:options|choices|gpus|cards|setups)\b|\bwhat (?:else|other options)\b"
    r"|\bcheapest (?:nvidia|amd|other|alternative|domestic)\s+(?:option|gpu|card|setup)\b"
    r"|\bbetter (?:setup|option|config)\b"
    r"|备选|其他(?:方案|选择|卡|配置)|别的(?:方案|卡|选择|配置)|还有(?:什么|哪些|别的)(?:方案|选择|卡)|更好的(?:方案|配置|选择)",
    re.I,
)
# GPUs the team owns, the rest rented ("we already own 64 H100s, can we use those and rent the rest",
# "我们有64张H100，不够的租"): the plan on that GPU, the owned ones counted, the rest priced
OWN_AND_RENT = re.compile(
    r"\b(?:own|have|got)\s+(?P<n>\d+)\s*(?:x\s*)?(?P<gpu>[a-z]{1,3}\s?-?\d{2,4}[a-z]?)s?\b.{0,60}?"
    r"\b(?:rent|lease)\b.{0,12}\b(?:the\s+)?(?:rest|remainder|others?|extra|difference)\b"
    r"|(?:有|已有|自有|手上有)\s*(?P<zn>\d+)\s*(?:张|块)?\s*(?P<zgpu>[a-z]{1,3}\s?-?\d{2,4}[a-z]?).{0,20}?"
    r"(?:其余|剩下的?|不够的?|差的|缺的)(?:部分)?(?:再)?(?:去)?租",
    re.I,
)


def _own_and_rent(request_text: str, summary: dict, message: str, lang: str, book: PriceBook) -> FollowUp | None:
    """The job on the GPU type the team owns: the count that meets the request on it, those owned
    counted, the rest rented on the offers that deliver that many for the plan's days (the same
    type, so no step waits on a slower card); and what the owned GPUs alone would take. None where
    the GPU is unknown or the plan on it needs no more than the team owns."""
    found = OWN_AND_RENT.search(message)
    name = next(iter(_gpus_named(found["gpu"] or found["zgpu"])), None) if found else None  # "H100s" too
    if name is None:
        return None
    gpu = catalog.get_gpu(name)
    owned = int(found["n"] or found["zn"])
    try:
        on_type = advise_request(parse_followup(request_text, f"on {gpu.name}", lang)[0], book)
        alone = advise_request(parse_followup(request_text, f"on {owned}x{gpu.name}", lang)[0], book)
    except RequestError:
        return None
    plan = on_type.plan
    if plan is None or not plan.days or plan.estimate.layout.gpu_count <= owned:
        return None
    r = on_type.request
    more = plan.estimate.layout.gpu_count - owned
    nodes = math.ceil(more / plan.estimate.layout.gpus_per_node)
    rented = rent_plan(book, gpu.name, r.market, r.currency, more, nodes, plan.days).headline
    text = render(
        "followup.txt.j2",
        lang,
        kind="own_and_rent",
        owned=owned,
        more=more,
        gpu=gpu.name,
        count=plan.estimate.layout.gpu_count,
        days=plan.days,
        rent=rented.total if rented else None,
        provider=rented.price.provider if rented else None,
        cur=r.currency,
        alone_days=alone.plan.days if alone.plan and alone.plan.estimate.fits else None,
        plan_rent=summary.get("rent_total") if summary.get("currency") == r.currency else None,
    )
    return FollowUp(kind="explain", part="own_and_rent", lang=lang, advice=on_type, text=text)


# One job split over two vendors or sites ("can we split it across two vendors, 14 servers each",
# "能不能两家机房各租一半"): one job needs one fabric
SPLIT_SITES = re.compile(
    r"\b(?:split|spread|divide|run)\b.{0,30}\b(?:across|over|between|on)\s+(?:two|2|three|3|multiple|several|different)\s+"
    r"(?:vendors|providers|clouds|data\s?cent(?:er|re)s|dcs|sites|idcs|regions)\b"
    r"|(?:两|三|几|多)(?:家|个)(?:供应商|机房|云|数据中心|idc|IDC)(?:各|分别|一起|拼|凑)|跨(?:机房|云|供应商|数据中心|地域)",
    re.I,
)


def _split_sites(request_text: str, lang: str, book: PriceBook) -> FollowUp | None:
    """Why one multi-server job stays in one data centre: every step's exchange runs over the
    plan's fabric, which a link between sites does not match."""
    first = advise(request_text, book=book)
    plan = first.plan
    if plan is None or plan.estimate.layout.nodes < 2:
        return None
    text = render("followup.txt.j2", lang, kind="split_sites", p=plan, i=plan.infra)
    return FollowUp(kind="explain", part="split_sites", lang=lang, advice=first, text=text)


def _epoch_time(request_text: str, lang: str, book: PriceBook) -> FollowUp | None:
    """One epoch's time: the plan's time over its epochs (time is linear in the tokens trained)."""
    first = advise(request_text, book=book)
    plan, req = first.plan, first.request
    if plan is None or not plan.days or not req.tokens:
        return None
    text = render(
        "followup.txt.j2",
        lang,
        kind="epoch_time",
        epochs=req.epochs,
        tokens=req.tokens,
        days=plan.days,
        count=plan.estimate.layout.gpu_count,
        gpu=plan.gpu,
    )
    return FollowUp(kind="explain", part="time", lang=lang, advice=first, text=text)


def _budget_asked(request_text: str, summary: dict, message: str, lang: str, book: PriceBook) -> FollowUp | None:
    """ "over budget?", "预算只有10万，怎么办" under a plan with a budget: whether the plan is within
    it; over it where a slower plan is within, that plan against this one (the deadline it needs);
    None where the request has no budget or the message names another amount (a budget what-if)."""
    first = advise(request_text, book=book)
    req, plan = first.request, first.plan
    if req is None or req.budget is None or plan is None or plan.rent is None:
        return None
    read = read_whatif(request_text, summary, message, lang)
    if read is not None and "budget" in read[1]:
        return None  # "预算只有5万怎么办": another budget, a what-if
    cur = plan.costs.currency
    budget = book.convert(req.budget.amount, req.budget.currency, cur)
    lay = plan.estimate.layout
    context = {"rent": plan.rent, "budget": budget, "cur": cur, "count": lay.gpu_count, "gpu": plan.gpu}
    context |= {"days": plan.days, "deadline": req.deadline_days, "over": plan.rent > budget}
    conflict = next((w for w in first.warnings if w.code == "budget_vs_deadline"), None)
    if context["over"] and conflict is not None and req.deadline_days:
        p = conflict.params
        within = {"days": p["b_days"], "count": p["b_count"], "gpu": p["b_gpu"], "cost": p["b_cost"]}
        lead = render("followup.txt.j2", lang, kind="budget_asked", within=within, notes=[], **context)
        try:
            read = parse_followup(request_text, f"{math.ceil(p['b_days'])} days", lang, plan_gpu=summary.get("gpu"))
        except RequestError:
            read = None
        if read is not None:
            reply = _whatif(request_text, summary, *read, lang, book)
            return _led(reply, lead)
    # the budget warning's own first sentence restates the lead: only what it adds is said (a plan
    # within both, or no plan within the budget at any length)
    notes = [w for w in first.warnings if w.code == "budget"] if context["over"] else []
    within_any = any(w.params.get("within") or w.params.get("floor") for w in notes)
    text = render(
        "followup.txt.j2", lang, kind="budget_asked", within=None, notes=notes, within_any=within_any, **context
    )
    return FollowUp(kind="explain", part="budget", lang=lang, advice=first, text=text)


def _faq(message: str, summary: dict | None, lang: str, topic: str | None = None) -> dict:
    """The FAQ's best answer to the message (or its answer on `topic`, read by the thread), with
    the thread's plan for its numbers."""
    found = faq.answer(message, lang=lang, plan=_as_shown(summary, lang) if summary else None, topic=topic)
    return found.model_dump() if hasattr(found, "model_dump") else dict(found.__dict__)


def _faq_reply(data: dict, lang: str) -> FollowUp:
    return FollowUp(kind="question", lang=lang, faq=data, text=render("followup.txt.j2", lang, kind="question", f=data))


def _grow_later(request_text: str, summary: dict, message: str, lang: str, book: PriceBook) -> FollowUp | None:
    """Starting on fewer servers and adding the rest later: the plan on the GPUs started with (when
    a count is said and is fewer than the plan's), then how a run moves to more (the FAQ's grow_later)."""
    start = _grow_from(summary, message)
    if not start or start >= (summary.get("gpu_count") or 0):
        return _faq_reply(_faq(message, summary, lang, topic="grow_later"), lang)
    how = _faq(message, None, lang, topic="grow_later")  # (the plan's own note points to the what-if given here)
    reply = _whatif(
        request_text, summary, *read_whatif(request_text, summary, f"what if {start} GPUs?", lang), lang, book
    )
    lead = render("followup.txt.j2", lang, kind="grow_later", start=start, s=summary).strip()
    reply = _led(reply, lead)
    return reply.model_copy(update={"text": f"{reply.text}\n\n{how['answer']}", "faq": how})


def _budget_in(request_text: str, currency: str, book: PriceBook) -> str:
    """The change "in USD?" makes to a request budgeted in yuan (or back): the currency, and the
    budget converted at the book's rate, so the two do not contradict each other."""
    try:
        budget = parse(request_text).budget
    except RequestError:
        return ""
    if budget is None or budget.currency == currency:
        return ""
    amount = book.convert(budget.amount, budget.currency, currency)
    return f"{currency.lower()} budget {round(amount)} {currency.lower()}"


def _budget_kept_in_market(
    request_text: str, summary: dict, message: str, read: tuple, lang: str, book: PriceBook
) -> tuple:
    """A budget said in the other currency ("如果预算是2万美元呢" under a plan in yuan) is that
    budget converted, in the plan's market: dollars alone move a new request abroad, not a
    thread's plan. A market or cloud named beside it still does."""
    request, changed = read
    plan_currency = summary.get("currency")
    if not plan_currency or request.currency == plan_currency or _market_named(message) or not request.budget:
        return read
    amount = book.convert(request.budget.amount, request.budget.currency, plan_currency)
    try:
        return parse_followup(request_text, f"budget {round(amount)} {plan_currency.lower()}", lang)
    except RequestError:
        return read


# How much a setting speeds the plan up ("开了liger能快多少", "how much faster with torch.compile?"), or
# whether it still fits ("will this OOM if we bump seq to 8192?", "seq改成8192会不会爆显存"): on the
# plan's own GPUs
HOW_MUCH_FASTER = re.compile(r"快多少|能快|提速多少|\bhow much faster\b|\bfaster by how much\b|\bspeed ?up\b", re.I)
STILL_FITS = re.compile(
    r"\boom\b|run out of (?:gpu )?memory|\b(?:still )?fit\b|爆显存|会不会爆|显存.{0,10}(?:够|爆)", re.I
)


# NVLink asked about, not asked for ("do we need nvlink?", "为什么要NVLink", "是不是必须用NVLink"): the
# FAQ's, on the plan's GPUs; "what if we need nvlink?" and "要NVLink呢" are the change
NVLINK_DOUBTED = re.compile(
    r"^(?!.*\bwhat\s+if\b|.*(?:如果|假如|换成|呢)).*(?:"
    r"\b(?:why|how\s+come|do\s+(?:we|i)\s+(?:really\s+)?need|is|are|does|must)\b.{0,30}nvlink"
    r"|nvlink.{0,30}\b(?:necessary|needed|required|a\s+must|matter|worth\s+it)\b"
    r"|(?:为什么|为啥|有必要|一定|必须|是不是).{0,10}nvlink|nvlink.{0,10}(?:吗|么|有必要|必要))",
    re.I,
)


def read_whatif(request_text: str, summary: dict, message: str, lang: str) -> tuple | None:
    """(the new request, the fields changed) when `message` is a what-if on the thread's plan,
    else None. Read as written first; then without the words around the change ("how much
    would it cost on A800?" is "on A800"); "cheaper?" and "faster?" as a deadline. A count
    without a GPU ("with 128 GPUs?") keeps the plan's GPU: the user meant 128 of those."""
    if NVLINK_DOUBTED.search(message):
        return None
    link = summary.get("nodes", 1) > 1 and network_said(message)
    plan_gpu = summary.get("gpu")
    for change in _change_texts(request_text, summary, message):
        try:
            request, changed = parse_followup(request_text, change, lang, plan_gpu=plan_gpu)
        except RequestError:
            continue
        if link and not set(changed) - {"fabric", "network_gbps"}:
            return None  # a link with its speed alone: the network's reason (`_reason_asked`)
        if "gpu_count" in changed and "gpu" not in changed and request.gpu is None and plan_gpu:
            try:
                request, _ = parse_followup(request_text, f"{change} on {plan_gpu}", lang, plan_gpu=plan_gpu)
            except RequestError:
                pass
        # "what if 800M tokens" under a plan of samples: that many tokens of the same samples, so
        # attention stays within each (it had been taken over whole sequences: 4x the data, 4.8x
        # the GPU-hours)
        if changed == ["data"] and request.data and request.data.unit == "tokens":
            first = parse(request_text, lang)
            if first.data and first.data.unit == "samples" and first.tokens_per_sample:
                samples = round(request.tokens / first.tokens_per_sample)
                try:
                    request, changed = parse_followup(request_text, f"{samples} samples", lang, plan_gpu=plan_gpu)
                except RequestError:
                    pass
        # "开了liger能快多少", "how much faster with compile?": a setting weighed on the plan's own GPUs
        # (the search had moved to 2 cards, so the time read 6.5 h -> 10 h)
        count = summary.get("gpu_count")
        if (
            (HOW_MUCH_FASTER.search(message) or STILL_FITS.search(message))
            and plan_gpu
            and count
            and not {"gpu", "gpu_count", "nodes", "deadline_days", "data", "method"} & set(changed)
        ):
            try:
                request, _ = parse_followup(request_text, f"{change} on {count}x{plan_gpu}", lang, plan_gpu=plan_gpu)
            except RequestError:
                pass
        # "how much if we buy?": the purchase of this plan's GPUs, not a new search ranked by capex
        if changed == ["rent_or_buy"] and request.rent_or_buy == "buy" and plan_gpu and count and not request.gpu:
            try:
                request, _ = parse_followup(request_text, f"{change} on {count}x{plan_gpu}", lang, plan_gpu=plan_gpu)
            except RequestError:
                pass
        return request, changed
    return None


# A lease term asked of the plan ("what if we rent 1-year lease?", "lease for 6 months instead?",
# "按月租的话，3个月多少钱", "租3个月多少钱", "包年呢"): the plan on the table priced on that term, its
# deadline and GPUs kept ("3个月" had been read as a 90-day deadline and the job re-planned on 4 GPUs
# at 7% MFU). The term with its number first: "按月租的话，3个月" is three months, not one.
_TERM_NUMBER = r"\d+|a|an|one|two|three|four|six|twelve"
_TERM_NUMBER_ZH = r"\d+|半|[一二两三四五六七八九十]+"
LEASE_TERM = re.compile(
    # ("pay upfront for 3 months", "prepay 6 months": a lease paid ahead, its term)
    rf"\b(?:rent|leas|contract|commit|reserv|sign|keep|prepa|pay\w*\s+(?:upfront|up front|in advance|ahead))\w*\b"
    rf"[^?？.]{{0,25}}?\b(?P<n>{_TERM_NUMBER})[\s-]*(?P<u>months?|mo|years?|yrs?)\b"
    rf"|\b(?P<n2>{_TERM_NUMBER})[\s-]*(?P<u2>months?|mo|years?|yr)[\s-]+(?:lease|term|contract|reservation|commitment|rental)"
    # "how much would 1 year cost?", "what would 6 months cost?": that long on a lease (it had been read
    # as a 365-day deadline)
    rf"|\b(?:how much|what)\s+(?:would|will|does|is)\s+(?:a\s+)?(?P<n3>{_TERM_NUMBER})[\s-]*(?P<u3>months?|years?)"
    rf"\s+cost\b"
    # a vendor's minimum ("the vendor says minimum 12 months", "minimum term is 6 months", "a 12-month minimum")
    rf"|\bmin(?:imum)?(?:\s+(?:term|lease|commitment|contract|period|rental))?(?:\s+(?:is|of|at))?\s+"
    rf"(?P<n4>{_TERM_NUMBER})[\s-]*(?P<u4>months?|mo|years?|yrs?)\b"
    rf"|\b(?P<n5>{_TERM_NUMBER})[\s-]*(?P<u5>months?|mo|years?|yr)[\s-]+min(?:imum)?\b"
    rf"|(?:租|签|起租|租期|合同|合约|租约|预付|提前付)[^？?。]{{0,8}}?(?P<zn>{_TERM_NUMBER_ZH})\s*(?:个)?(?P<zu>月|年)"
    rf"|(?P<zn2>{_TERM_NUMBER_ZH})\s*(?:个)?(?P<zu2>月|年)的?(?:租期|起租|合同|合约|租约|包|租)",
    re.I,
)
# A term in one word: "monthly lease?", "rent it by the year", "包月呢", "按年租"
LEASE_TERM_WORD = re.compile(
    r"\b(?P<w>monthly|yearly|annual)\s+(?:lease|term|contract|rent|rental|basis|billing|reservation)"
    r"|\b(?:rent|leas)\w*\s+(?:it\s+|them\s+)?(?P<w2>monthly|yearly|annually|by the (?:month|year))"
    r"|(?P<zw>包月|包年|按月租|按年租|按月|按年|年租)",
    re.I,
)
# The cost a month asked ("how much per month?", "monthly cost?", "多少钱一个月", "每月多少钱"): the
# plan's GPUs on a month's lease ("多少钱一个月" had been read as a deadline of a month)
MONTHLY_COST = re.compile(
    r"\b(?:how\s+much|what(?:'s|\s+is|\s+would\s+be|\s+will\s+be)?\s+(?:the\s+|it\s+|that\s+)?(?:cost|price|rent|bill)?)"
    r"[^?？.]{0,30}?\b(?:per|a|each|every)\s+month\b"
    r"|\bmonthly\s+(?:cost|price|rent|bill|fee|spend)s?\b"
    r"|多少钱\s*(?:一|每)\s*个?月|(?:一|每)\s*个?月\s*(?:要|得|大概|大约|需要)?\s*(?:花)?\s*多少钱?(?![卡张台天])"
    r"|月租(?:金)?\s*(?:是|要)?\s*多少|每月(?:的)?(?:租金|费用|成本|花费|开销)"
    r"|(?:每|一)个?月\s*(?:要|得|需要)?\s*(?:付|交|掏)\s*多少",
    re.I,
)
_TERM_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "six": 6, "twelve": 12, "半": 0.5}


def _zh_number(text: str) -> float | None:
    """一 .. 九十九 (and 两, 半) as a number."""
    if text in _TERM_WORDS:
        return _TERM_WORDS[text]
    tens, _, ones = text.partition("十")
    if "十" not in text:
        return CN_SMALL.get(text)
    return (CN_SMALL.get(tens, 1) if tens else 1) * 10 + (CN_SMALL.get(ones, 0) if ones else 0)


# Buying: beside a term ("buy or rent for a year?", "买还是租一年") rent against buy, not a lease's
# price; beside a count ("如果再买8张A800呢", "what if we buy 8 more?") more of the team's own GPU, bought
BUYING = re.compile(r"买|购|\bbuy(?:ing)?\b|\bpurchas", re.I)
# A DGX or HGX system's price, or a unit's ("how much does a DGX H200 cost?", "H800现在多少钱一台"), is a server
# bought, not a GPU-hour (the rents had led); DGX Cloud is rented.
SYSTEM_PRICED = re.compile(r"\b(?:dgx|hgx)\b(?!\s*cloud)|多少钱一台|一台(?:\S{0,8})?多少钱|每台多少钱", re.I)


def lease_term_asked(message: str) -> int | None:
    """The lease term in months a message asks the plan to be priced on, or None."""
    found = LEASE_TERM.search(message or "")
    if found:
        n = found["n"] or found["n2"] or found["n3"] or found["n4"] or found["n5"] or found["zn"] or found["zn2"]
        unit = found["u"] or found["u2"] or found["u3"] or found["u4"] or found["u5"] or found["zu"] or found["zu2"]
        unit = unit.lower()
        value = float(n) if n.isdigit() else _TERM_WORDS.get(n.lower()) or _zh_number(n)
        if value is None:
            return None
        months = value * 12 if unit.startswith(("y", "年")) else value
        return round(months) if months >= 1 else None
    word = LEASE_TERM_WORD.search(message or "")
    if word:
        said = (word["w"] or word["w2"] or word["zw"]).lower()
        return 1 if "month" in said or "月" in said else 12
    return None


def _lease_term(request_text: str, summary: dict, months: int, lang: str, book: PriceBook) -> FollowUp | None:
    """The plan on the table (its GPUs, its layout, its deadline) rented on a lease of `months`:
    the total on that term, the offer and whether a source states the term, the other terms on
    record, and the thread's plan as it was priced."""
    gpu, count = summary.get("gpu"), summary.get("gpu_count")
    if not gpu or not count:
        return None
    try:
        request, _ = parse_followup(
            request_text, f"rent {count} gpus on {gpu} {months}-month lease", lang, plan_gpu=gpu
        )
    except RequestError:
        return None
    result = advise_request(request, book)
    p = result.plan
    if p is None:
        return None
    first = advise(request_text, lang, book=book)
    warnings = _new_warnings(first.warnings, result)
    text = render(
        "followup.txt.j2",
        lang,
        kind="lease_term",
        months=months,
        p=p,
        c=p.costs,
        deadline=request.deadline_days,
        first=first.plan,
        warnings=warnings,
        hours_per_month=HOURS_PER_MONTH,
    )
    # the same plan on another term, as every what-if shows it (Slack lays it out from these): the
    # term the thread's plan pays against the one asked, and the two plans' numbers
    paid = (first.plan.costs.rent_term or {}).get("months_paid") if first.plan else None
    was = (
        render("slack/value.j2", lang, kind="months", value=paid)
        if paid and first.plan.costs.rent_option == "monthly"
        else render("slack/value.j2", lang, kind="as_planned")
    )
    after = {k: v for k, v in plan_context(result).items() if k in COMPARED}
    after.update(days=p.estimate.days, gpu_hours=p.estimate.gpu_hours)
    return FollowUp(
        kind="whatif",
        lang=lang,
        changed=["lease_term_months"],
        changes=[{"name": "lease_term_months", "before": was, "after": _value("lease_term_months", request, lang)}],
        advice=result,
        warnings=warnings,
        currency=p.costs.currency,
        before_currency=summary.get("currency") or p.costs.currency,
        before={k: summary.get(k) for k in COMPARED},
        after=after,
        text=text,
    )


# "4 more servers?", "再加4台呢", "add 16 GPUs": a count on top of the plan's
MORE = re.compile(
    r"(?:\badd\s+|(?:再|多)(?:加|增加|来)?\s*|加\s*)?(\d+|[一二两三四五六七八九十])\s*(?:more\s+)?"
    r"(gpus?|cards?|servers?|nodes?|machines?|台(?:服务器|机器)?|张卡?|块卡?|卡)(?:\s+more)?",
    re.I,
)
# "rent 16 more?", "16 more H800?": a count of more, with no unit or a GPU's name, is GPUs (a
# count of days, tokens or data is not)
MORE_BARE = re.compile(
    r"\b(\d+)\s+more\b(?!\s*(?:days?|hours?|weeks?|months?|years?|tokens?|samples?|epochs?|[kmgt]b?\b|servers?"
    r"|nodes?|machines?))",
    re.I,
)
# (多 in 多久, 多大, 多长 and 多少 asks how long, big or many, not for more)
ADDED = re.compile(
    r"\badd\b|\bmore\b|\bextra\b|\badditional\b|再|(?<!多)多(?!少|久|大|长|快|慢|高|远|贵)|加(?!速|快)", re.I
)


# "加到4台呢", "扩到32张卡", "scale to 4 servers": the count it becomes, not a count on top
TO_COUNT = re.compile(
    r"(?:(?:再|增|追)?加|增加|扩|扩展|扩容|提|升|涨)\s*到\s*|\b(?:increase|scale|grow|go|bump)\s+(?:it\s+)?(?:up\s+)?to\s+",
    re.I,
)


def _more(summary: dict, message: str) -> str | None:
    """ "4 more servers?" as the count it makes: the plan's servers or GPUs plus that many;
    "加到4台" as that count itself."""
    to = TO_COUNT.search(message)
    absolute = MORE.match(message, to.end()) if to else None
    found = absolute or MORE.search(message) or MORE_BARE.search(message)
    if not found or not (absolute or ADDED.search(message)) or not summary.get("gpu_count"):
        return None
    n = int(found[1]) if found[1].isdigit() else CN_SMALL[found[1]]
    if found.re is not MORE_BARE and re.match(r"servers?|nodes?|machines?|台", found[2], re.I):
        return f"{n if absolute else (summary.get('nodes') or 0) + n} nodes"
    return f"{n if absolute else summary['gpu_count'] + n} gpus"


# A budget changed by a share ("预算砍一半呢", "what if we halve the budget?", "budget doubled?",
# "预算翻倍"): that share of the request's own budget
BUDGET_SHARE = re.compile(
    r"预算(?:砍|减|降|少)(?:掉)?(?P<half>一半|半)|预算(?P<double>翻倍|加倍|翻一倍)"
    # "如果只有一半预算呢", "what if we only had half the money?", "能不能便宜一半"
    r"|(?:一半|半)的?(?:预算|钱|费用)|(?:便宜|省|少花)(?:一半|一倍)"
    r"|\b(?P<half2>halve|halved|half)\b.{0,12}\b(?:budget|money|cost|price)\b"
    r"|\bbudget\b.{0,12}\b(?P<half3>halved|cut in half|in half)\b"
    r"|\b(?P<double2>double|doubled)\b.{0,12}\bbudget\b|\bbudget\b.{0,12}\b(?P<double3>doubled)\b",
    re.I,
)


def _budget_share(request_text: str, summary: dict, message: str) -> str | None:
    """ "预算砍一半呢": the request's budget halved (or doubled) as the change; without a budget in the
    request, half (or twice) the plan's rent ("如果只有一半预算呢" had drawn the FAQ on tight budgets).
    None without either."""
    found = BUDGET_SHARE.search(message)
    if not found or not request_text:
        return None
    budget = parse(request_text).budget
    share = 2 if found["double"] or found["double2"] or found["double3"] else 0.5
    if budget is not None:
        return f"budget {budget.amount * share:.0f} {budget.currency.lower()}"
    if summary.get("rent_total") and summary.get("currency"):
        return f"budget {summary['rent_total'] * share:.0f} {summary['currency'].lower()}"
    return None


# "再加一台", "多两张卡": the count in words
CN_SMALL = {c: i for i, c in enumerate("一二三四五六七八九十", 1)} | {"两": 2}

# "fewer GPUs, say 512?", "fewer GPUs?", "少点卡呢", "more GPUs?": the count given, else half or
# twice the plan's (each had been "I could not tell what to do with that" or a FAQ)
FEWER_OR_MORE = re.compile(
    r"(?:(?P<fewer>\bfewer|\bless|少点|少一点|少一些|更少的?|减少|少用)|(?P<more>\bmore|多点|多一点|多一些|更多的?))\s*"
    r"(?P<what>gpus?|cards?|servers?|nodes?|machines?|台(?:服务器|机器)?|张?卡)",
    re.I,
)


# "with half the GPUs?", "twice as many servers?", "卡减半呢", "机器翻倍": half or twice the plan's (each
# had been the menu)
HALF_OR_DOUBLE = re.compile(
    r"\b(?:half|double|twice)\s+(?:as\s+many\s+|the\s+(?:number\s+of\s+)?)?(?P<what>gpus?|cards?|servers?|nodes?|machines?)\b"
    # "can we start with half and add more later?": the plan's GPUs halved
    r"|\bstart\s+(?:with|on)\s+half\b(?:\s+(?:of\s+)?(?:them|the\s+(?P<what3>gpus?|cards?|servers?|nodes?)))?"
    r"|先(?:用|上|租|买)一半"
    r"|(?:一半|两倍|双倍|加倍)(?:的|数量的)?(?P<zwhat>显?卡|gpu|机器|服务器|节点)"
    r"|(?P<zwhat2>显?卡|gpu|机器|服务器|节点)(?:数|数量)?(?:减半|砍半|少一半|翻倍|加倍|翻一倍|多一倍)",
    re.I,
)
# Of those, the ones that halve
HALVED = re.compile(r"half|一半|减半|砍半", re.I)


# "should we buy more?" under a plan on the team's own GPUs: more of them, not the same ones bought
BUY_MORE = re.compile(r"\b(?:buy|get|add)\s+(?:\d[\d,]*\s+)?more\b|再买|多买|加购|加卡|扩容", re.I)
# how many more it names ("buy 8 more", "再买4张", "加购2台"): GPUs, or servers (台, servers, nodes)
MORE_COUNT = re.compile(
    r"(?:buy|get|add)\s+(?P<n>\d[\d,]*)\s+more\s*(?P<servers>servers?|nodes?|machines?)?"
    r"|(?:再买|多买|加购|再加)\s*(?P<zh>\d+)\s*(?P<zh_servers>台)?",
    re.I,
)


def _fewer_or_more(summary: dict, message: str) -> str | None:
    found = FEWER_OR_MORE.search(message)
    count, nodes = summary.get("gpu_count"), summary.get("nodes") or 1
    if not found and count and summary.get("owned") and BUY_MORE.search(message):
        said = MORE_COUNT.search(message)
        if said:  # the extra named: the owned and that many more
            per_server = count // nodes or 1
            n = int((said["n"] or said["zh"]).replace(",", ""))
            return f"{count + n * (per_server if said['servers'] or said['zh_servers'] else 1)} gpus"
        return f"{count * 2} gpus"  # twice the GPUs owned: what the extra would save and cost
    halved = HALF_OR_DOUBLE.search(message)
    if halved and count:
        what = halved["what"] or halved["zwhat"] or halved["zwhat2"] or halved["what3"] or "gpus"
        servers = bool(re.match(r"servers?|nodes?|machines?|机器|服务器|节点", what, re.I))
        now = nodes if servers else count
        n = max(1, now // 2) if HALVED.search(halved[0]) else now * 2
        return f"{n} nodes" if servers else f"{n} gpus"
    if not found or not count:
        return None
    servers = bool(re.match(r"servers?|nodes?|machines?|台", found["what"], re.I))
    given = re.search(r"(\d[\d,]*)", message[found.end() :])
    if given:
        n = int(given[1].replace(",", ""))
    else:
        now = nodes if servers else count
        n = max(1, now // 2) if found["fewer"] else now * 2
    return f"{n} nodes" if servers else f"{n} gpus"


# "3 more days?", "another 5 days", "give it 2 extra days", "多给3天", "再宽限两天", "延长5天": days on top
# of the deadline (the plan's own time where none was said), not a deadline of that many days
MORE_DAYS = re.compile(
    r"\b(\d+)\s+(?:more|extra|additional)\s+days?\b|\banother\s+(\d+)\s+days?\b"
    r"|\bextend(?:ed)?\s+(?:it\s+|the\s+deadline\s+)?by\s+(\d+)\s+days?\b"
    r"|(?:多给|再给|再多|多|宽限|再宽限|延长|推迟|放宽)\s*(\d+|[一二两三四五六七八九十])\s*天",
    re.I,
)


# "2 more weeks?", "an extra week", "another week", "多给两周", "再多一周", "延长一个星期": weeks on top
MORE_WEEKS = re.compile(
    r"\b(\d+|a|an|one|two|three|four)\s+(?:more|extra|additional)\s+weeks?\b|\banother\s+(\d+|a|one|two)?\s*weeks?\b"
    r"|\bextend(?:ed)?\s+(?:it\s+|the\s+deadline\s+)?by\s+(\d+|a|an|one|two)\s+weeks?\b"
    r"|(?:多给|再给|再多|多|宽限|再宽限|延长|推迟|放宽)\s*(\d+|[一二两三四])\s*(?:个)?(?:周|星期|礼拜)",
    re.I,
)
_EN_SMALL = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4}


def _more_days(request_text: str, summary: dict, message: str) -> str | None:
    found = MORE_DAYS.search(message)
    weeks = MORE_WEEKS.search(message) if not found else None
    if not (found or weeks) or not summary.get("days"):
        return None
    if weeks:
        said = next((g for g in weeks.groups() if g), "1")  # "another week": one
        n = 7 * (int(said) if said.isdigit() else _EN_SMALL.get(said.lower()) or CN_SMALL[said])
    else:
        said = next(g for g in found.groups() if g)
        n = int(said) if said.isdigit() else CN_SMALL[said]
    try:
        deadline = parse(request_text).deadline_days
    except RequestError:
        return None
    return f"{round((deadline or summary['days']) + n, 1):g} days"


# The micro-batch moved without a number ("微批调大一点呢", "larger micro-batch?", "mbs小一点")
MICRO_BATCH_MOVE = re.compile(
    r"(?:微批|micro[- _]?batch(?:\s+size)?|(?<![a-z])mbs(?![a-z]))\s*(?:再|调|改|加|设)?\s*"
    r"(?:(?P<up>大|larger|bigger|up)|小|smaller|down)"
    r"|(?:(?P<up2>larger|bigger)|smaller)\s+(?:micro[- _]?batch|mbs)\b",
    re.I,
)


# A change said inside the team's own words: a correction, a condition, a report
SAID_IN_PASSING = re.compile(
    r"\b(?:not|instead of|rather than|actually|says?|said|if|can we do it|could we do it|turns out)\b"
    r"|其实|实际上|而不是|不是|如果|要是|说是|测了|算了一下",
    re.I,
)
# The quantities a change is made of: tokens, GPUs counted, days
QUANTITY = re.compile(
    r"(?<![\w.])\d[\d,.]*\s*[kmbt]?\s*(?:tokens?\b|token)"
    r"|(?<![\w.])\d{1,5}\s*[x×]?\s*(?:rtx\s?)?[a-z]{1,3}\d{2,4}[a-z]?s?\b"
    r"|(?<![\w.])\d{1,3}\s*(?:days?\b|天)",
    re.I,
)


# One GPU swapped for another ("4090能不能换成3090", "把4090换成3090", "could we swap the 4090s for
# 3090s?", "replace H800 with A800"): the verb between the plan's GPU and the new one
SWAP_VERB = re.compile(r"换成|换为|换|改成|改为|改用|替换|\bswap\w*\b|\breplac\w*\b|\bswitch\w*\b|\bexchang\w*\b", re.I)


def _swapped(summary: dict, message: str) -> str:
    """The message without the plan's GPU where it names that GPU, then a swap verb, then another
    ("把4090换成3090" is "换成3090"); else as it stands. Both named had read as a comparison."""
    named = _gpus_named(message)
    if len(named) != 2 or summary.get("gpu") not in named:
        return message
    old, new = named[summary["gpu"]], next(w for g, w in named.items() if g != summary["gpu"])
    at_old, at_new = message.find(old), message.find(new)
    # the verb after the plan's GPU ("把4090换成3090") or before it ("swap the 4090s for 3090s")
    if not 0 <= at_old < at_new or not SWAP_VERB.search(message[:at_new].replace(old, " ")):
        return message
    return message[:at_old] + message[at_old + len(old) :]


def _change_texts(request_text: str, summary: dict, message: str) -> list[str]:
    """The readings of a message to try as a change, most literal first."""
    quick = (
        _faster_or_cheaper(request_text, summary, message)
        or _more_days(request_text, summary, message)
        or _more(summary, message)
        or _fewer_or_more(summary, message)
        or _budget_share(request_text, summary, message)
    )
    if quick:
        return [quick]
    # "微批调大一点呢", "bigger micro-batch?": twice the plan's (half, for smaller)
    knob = MICRO_BATCH_MOVE.search(message)
    if knob and summary.get("micro_batch"):
        mbs = summary["micro_batch"]
        return [f"mbs {mbs * 2 if knob['up'] or knob['up2'] else max(1, mbs // 2)}"]
    stripped = _swapped(summary, message)
    for pattern, replacement in AROUND_A_CHANGE:
        stripped = re.sub(pattern, replacement, stripped, flags=re.I)
    # "8 H100s on lambda": the provider is no word of the request language (its price is the
    # market answer's); the GPUs are the change
    for words, _, _ in PROVIDERS:
        stripped = re.sub(rf"\b(?:on|at|from|with|via|in)\s+(?:{words})", " ", stripped, flags=re.I)
    # the plan's own time quoted back before the change ("8.5天，…下周五前"): not a deadline asked
    if summary.get("days"):
        shown = f"{summary['days']:.2g}" if summary["days"] < 10 else f"{summary['days']:.0f}"
        stripped = re.sub(rf"(?<![\d.]){re.escape(shown)}\s*(?:天|days?)\s*[，,]", " ", stripped)
    stripped = re.sub(r"\s+", " ", stripped).strip(" ?？!！。.,，")
    # the question's words left out first: "what would it cost" is not "cost first"
    texts = [stripped, message] if stripped and stripped != message else [message]
    # one server of GPUs the team has or named ("we have 2 nodes of 8xH100" ... "on one node?"):
    # one server only contradicts their count, so that many on one server
    one = re.sub(r"\b(?:one|a single)\s+(?:server|machine|box)\b", "1 server", texts[0], flags=re.I)
    texts = texts + [one] if one != texts[0] else texts
    # a correction or a remark after the change ("samples average 4k tokens not 1k", "seq len is
    # 16k, our samples are long", "300B tokens not 250B"): the change alone, tried last
    corrected = re.sub(
        r"\s+(?:not|instead of|rather than)\s+~?[\w.]+\s*$|\s*[，,]?\s*(?:而)?不是\s*[\w.]+\s*$",
        "",
        texts[0],
        flags=re.I,
    )
    first_clause = re.split(r"\s*[,，;；]\s*", texts[0], maxsplit=1)[0]
    texts += [t for t in dict.fromkeys((corrected, first_clause)) if t and t not in texts]
    if SAID_IN_PASSING.search(message):
        # the quantity alone, where the rest is the team's context ("our tokenizer says the 1TB is
        # ~300B tokens not 250B", "can we do it on 128 H800s if the deadline slips a bit")
        texts += [m[0] for m in QUANTITY.finditer(corrected) if m[0] not in texts][:1]
    return texts


def _no_cheaper(summary: dict, message: str, reply: FollowUp) -> FollowUp | None:
    """ "cheaper?" where twice the time costs no less (billed by the GPU-hour the GPU-hours stay;
    a monthly lease bills whole months): the plan is already the cheapest, said so, never a
    dearer plan shown as the cheaper one."""
    first = summary.get("rent_total")
    plan = reply.advice.plan if reply.advice else None
    if not CHEAPER.match(message) or not first or plan is None or plan.rent is None:
        return None
    same = (plan.gpu, plan.estimate.layout.gpu_count) == (summary.get("gpu"), summary.get("gpu_count"))
    if plan.rent < first * (1 - SAME_SHARE) and not same:
        # (the same GPUs are the same plan: a rent of ¥23.6 had read as under the ¥24 stored)
        return None
    text = render(
        "followup.txt.j2",
        reply.lang,
        kind="no_cheaper",
        first=money(plan.rent if same else first, summary.get("currency") or plan.costs.currency),
        rent=money(plan.rent, plan.costs.currency),
        days=plan.days,
        # the thread's plan may miss its deadline (128 GPUs fixed by an earlier what-if): not called
        # the cheapest that meets it
        meets=plan.meets_deadline,
        # GPUs the request (or a what-if) fixed: the cheapest on them, not of every GPU type
        on=plan.gpu if reply.advice.request.gpu else "",
        option=plan.costs.rent_option,
        method=reply.advice.request.method,
        # a full training in 16-bit: FP8 on GPUs with FP8 tensor cores takes fewer GPU-hours (the what-if
        # "what about fp8?" plans it, on another GPU where this one has none)
        fp8=reply.advice.request.precision in ("bf16", "fp16")
        and reply.advice.request.method in ("pretrain", "continued-pretrain", "full-finetune"),
    )
    return FollowUp(kind="unchanged", lang=reply.lang, advice=reply.advice, text=text)


# "cheaper?" reads as twice the time; a plan cheaper than that one by more than this share, with
# no deadline at all, is named beside it (assumed: a fifth is worth a sentence)
CHEAPER_LATER_SHARE = 0.2


def _cheaper_with_more_time(
    request_text: str, message: str, reply: FollowUp, lang: str, book: PriceBook
) -> FollowUp | None:
    """ "能再便宜点吗" where a plan given more time than twice the deadline costs much less (8 H800
    by the hour in 14 days for ¥24,487, against the doubled deadline's 8 H200 for ¥94,036): that
    plan named after the reply, with the deadline that plans it (checked), else None."""
    shown = reply.advice.plan if reply.advice else None
    if not CHEAPER.match(message) or shown is None or not shown.rent:
        return None
    request = parse(request_text, lang)
    if request.deadline_days is None:
        return None
    unbounded = advise_request(request.model_copy(update={"deadline_days": None}), book).plan
    if unbounded is None or not unbounded.rent or unbounded.rent > shown.rent * (1 - CHEAPER_LATER_SHARE):
        return None
    ask = math.ceil(unbounded.days * 1.1)  # the planner keeps a tenth of the time spare
    check = advise_request(request.model_copy(update={"deadline_days": float(ask)}), book).plan
    if check is None or not check.rent or check.rent > shown.rent * (1 - CHEAPER_LATER_SHARE):
        return None
    note = Note(
        kind="warning",
        code="cheaper_with_more_time",
        params={
            "count": check.estimate.layout.gpu_count,
            "gpu": check.gpu,
            "days": check.days,
            "rent": check.rent,
            "option": check.costs.rent_option,
            "saves": shown.rent - check.rent,
            "cur": check.costs.currency,
            "ask": ask,
        },
    )
    return reply.model_copy(
        update={"warnings": [*reply.warnings, note], "text": f"{reply.text}\n  ! {note_words(lang, note)}"}
    )


def _faster_within_budget(
    request_text: str, summary: dict, reply: FollowUp, lang: str, book: PriceBook
) -> FollowUp | None:
    """ "faster?" under a budget, where the faster plan breaks it ("快一点呢" on a ¥20k budget had
    gone from ¥897 to ¥72,350): the fastest plan within the budget that is faster than the thread's,
    else the thread's plan as that, each with what going faster costs beyond the budget. None when
    the request has no budget or the faster plan keeps to it. Where no plan within the budget runs
    faster (the thread's plan is the what-if's too, missing the shorter time), going faster is the
    fastest plan on its GPU the what-if would take instead ("快一点呢" on 8 RTX 4090 had shown the
    same plan under "twice the time"); another GPU type is the first answer's alternative."""
    p = reply.advice.plan if reply.advice else None
    if p is not None and p.within_budget and not p.meets_deadline and p.days and p.days >= summary.get("days", 0):
        same = [s.plan for s in reply.advice.result.suggestions if s.plan and s.plan.gpu == p.gpu]
        faster = [f for f in same if f.days and f.days < p.days]
        p = min(faster, key=lambda f: f.days) if faster else None
    if p is None or p.within_budget or not p.rent:
        return None
    try:
        original = parse(request_text, lang)
    except RequestError:
        return None
    if original.budget is None:
        return None
    cur = p.costs.currency
    first = summary.get("rent_total")
    beyond = {
        "count": p.estimate.layout.gpu_count,
        "gpu": p.gpu,
        "days": p.days,
        "rent": p.rent,
        "times": p.rent / first if first and summary.get("currency", cur) == cur else None,
    }
    budget = book.convert(original.budget.amount, original.budget.currency, cur)
    if first and summary.get("currency", cur) == cur and first > budget * (1 + SAME_SHARE):
        return None  # the thread's plan is over the budget already: the faster plan, its warning says so
    nearest = reply.advice.result.nearest_budget
    days = summary.get("days")
    if nearest is not None and nearest.days and days and nearest.days < days * (1 - SAME_SHARE):
        change = f"{nearest.estimate.layout.gpu_count} gpus on {nearest.gpu}"
        try:
            request, changed = parse_followup(request_text, change, lang, plan_gpu=summary.get("gpu"))
        except RequestError:
            return None
        within = _whatif(request_text, summary, request, changed, lang, book, implied_deadline=True)
        line = render("followup.txt.j2", lang, kind="faster_budget", budget=budget, cur=cur, beyond=beyond)
        return within.model_copy(update={"text": f"{within.text.rstrip()}\n{line.strip()}"})
    text = render(
        "followup.txt.j2",
        lang,
        kind="fastest_in_budget",
        budget=budget,
        cur=cur,
        beyond=beyond,
        s=summary,
        named=_names_a_gpu(original),  # the fastest on the GPU asked for, not of all
    )
    return FollowUp(kind="unchanged", lang=lang, advice=reply.advice, text=text)


# The shortest deadline a "faster?" asks for (assumed: half a day, the finest a deadline is said in)
FASTER_FLOOR_DAYS = 0.5


def _faster_or_cheaper(request_text: str, summary: dict, message: str) -> str | None:
    """ "faster?": about half the plan's time; "cheaper?": twice the time the plan may take (a
    cheaper plan only comes from more time). With the GPUs fixed by the request: twice or half
    as many of them."""
    faster, cheaper = FASTER.match(message), CHEAPER.match(message)
    if not (faster or cheaper) or not summary.get("days"):
        return None
    try:
        original = parse(request_text)
    except RequestError:
        return None
    if original.gpu_count:
        count = original.gpu_count * 2 if faster else max(1, original.gpu_count // 2)
        return f"{count} gpus"
    days = summary["days"] / 2 if faster else max(summary["days"], original.deadline_days or 0) * 2
    if faster and days < FASTER_FLOOR_DAYS and summary.get("gpu_count"):
        # a job of hours: half a day is no deadline to it ("能不能再快点" on 1.3 hours had been
        # "unchanged at 0.5 days"), so twice the GPUs
        return f"{summary['gpu_count'] * 2} gpus"
    return f"{max(FASTER_FLOOR_DAYS, round(days, 1)):g} days"


def _as_shown(summary: dict, lang: str) -> dict:
    """The plan's numbers as the card shows them (days to two significant figures), so the
    FAQ's note on this plan says "13 days" where the card does, not "12.52"; its fabric worded in
    the reply's language (threads stored before it was kept as data keep their wording)."""
    out = dict(summary)
    if out.get("days"):
        out["days"] = float(num(out["days"], 2).replace(",", ""))
    if out.get("network_spec"):
        out["network"] = phrase(lang, "inter", out["network_spec"], file="explain")
    return out


def _section_text(result: Advice, part: str) -> str:
    from advisor.planning.advice import render_section

    return render_section(result, part)


# The question around a price ("is ... fair?", "...合理吗"): left out of the `/gpu quote` example.
_ASKING_A_PRICE = re.compile(
    r"^\s*(?:is|are|would|does|do)\s+(?:it\s+|that\s+)?|(?:^|\s+)(?:a\s+)?(?:fair|reasonable|ok(?:ay)?|cheap|expensive"
    r"|good(?:\s+(?:price|deal))?|a\s+good\s+(?:price|deal)|worth\s+it|too\s+much|rip[- ]?off)?"
    r"\s*(?:price)?\s*[?？!！。]*\s*$"
    r"|(?:贵不贵|便不便宜|划不划算|值不值|合不合理|合理不合理|正不正常|靠不靠谱|合理|贵|便宜|划算|值|正常|靠谱)"
    r"(?:吗|不|么)?[?？!！。]*\s*$|[?？!！。]+\s*$"
    r"|^\s*(?:这个|这|那个|那)?(?:价格|报价|价钱|租金|价)?(?:贵吗|贵不贵|合理吗|划算吗|便宜吗|正常吗|靠谱吗)\s*[,，]?\s*"
    r"|(?<=\S)\s+(?:a\s+)?(?:fair|good|reasonable|ok(?:ay)?)(?:\s+price)?(?=\s+for\b)",
    re.I,
)


def _as_quote(message: str) -> str:
    """A price asked about, as the user would record it: "8卡H800每月9万合理吗" -> "8卡H800每月9万"."""
    return re.sub(r"\s+", " ", _ASKING_A_PRICE.sub("", message)).strip() or message


def quote_judged(message: str, lang: str, book: PriceBook) -> FollowUp | None:
    """A vendor's price asked about as a first message ("8卡H800每月9.5万合理吗", "is $2/hr for H100 a
    good deal?"): judged against the like offers on record, as in a thread (it had been refused:
    asked for the model's size, or a per-hour price read as a budget); None without a GPU named
    and an amount a month or an hour."""
    if not (PRICE.search(message) and HAS_AMOUNT.search(message) and gpu_named(message)):
        return None
    return _judge(message, lang, book)


# A price asked about as a question ("... fair?", "合理吗", "贵不贵"), not a quote handed over to judge
PRICE_DOUBTED = re.compile(
    r"合理|贵|便宜|划算|值不值|值吗|值得|正常|靠谱|行情|市场价|\bfair\b|\breasonable\b|\bgood\s+(?:deal|price)\b|\bworth\b"
    r"|\bexpensive\b|\boverpriced\b|\btoo\s+(?:much|high)\b|\brip[- ]?off\b"
    r"|\bmarket\s+(?:price|rate)\b|\bgoing\s+rate\b",
    re.I,
)


def purchase_judged(message: str, lang: str, book: PriceBook) -> FollowUp | None:
    """A price to buy servers asked about ("8卡H20服务器 120万 合理吗", "is $300k for an 8x H100 server
    fair?"): judged as `quote` judges a sale (advisor/market/purchase_quotes.py), against the purchase
    price on record for the same GPUs; it had drawn the rack-power topic, or a request refused for
    its model's size. None where the price is not asked about as a question."""
    if not PRICE_DOUBTED.search(message):
        return None
    judged = purchase_quote(message, lang, book)
    if judged is None:
        return None
    text = render("quote_purchase.txt.j2", judged.lang, j=judged)
    return FollowUp(kind="purchase_quote", lang=judged.lang, part=judged.gpu, text=text)


def _judge(message: str, lang: str, book: PriceBook, gpu: str | None = None) -> FollowUp | None:
    """A price to judge; one that names no GPU is a price for the plan's (`gpu`)."""
    example = _as_quote(message)
    try:
        quote = parse_quote(message, lang)
    except RequestError:
        if not gpu:
            return None
        try:
            quote = parse_quote(f"{message} {gpu}", lang)
        except RequestError:
            return None
        example = f"{example} {gpu}"
    quote = quote.model_copy(update={"vendor": ""})
    judgement = judge(quote, book)
    text = render("slack/quote_reply.md.j2", lang, j=judgement, example=example)
    return FollowUp(kind="quote", lang=lang, judgement=judgement, text=text)


def _by_the_hour(request, changed: list[str], result: Advice, summary: dict, book: PriceBook):
    """A what-if to rent by the hour ("what if we rent by the hour instead?") where no hourly offer on
    record delivers a plan that meets the request: the job on the nearest plan an hourly offer does
    price (one server where the largest hourly order is one), with a note of the largest hourly order
    and the thread's plan leased by the month; None otherwise. The planner's answer had led with a GPU
    no offer prices (24 H200, "no offer on record") where 8 H800 by the hour take 34 days for ¥57,983."""
    if "hourly_only" not in changed or not request.hourly_only or result.plan is None or result.plan.rent is not None:
        return None
    n = result.result.nearest_priced
    if n is None or n.costs.rent_option != "hourly":
        return None
    count = n.estimate.layout.gpu_count
    on_it = request.model_copy(
        update={"gpu": n.gpu, "gpu_count": count, "user_set": [*request.user_set, "gpu", "gpu_count"]}
    )
    moved = advise_request(on_it, book)
    if moved.plan is None or moved.plan.rent is None:
        return None
    # the most GPUs of that type one hourly offer delivers in one order: why the job runs on so few
    offers = book.offers("rent_hour", n.gpu, request.market, rentable=True)
    params = {
        "largest": max((p.max_gpus for p in offers), default=count),
        "largest_gpu": n.gpu,
        "count": count,
        "gpu": n.gpu,
        "days": moved.plan.days,
        "cost": moved.plan.rent,
        "n_count": summary.get("gpu_count"),
        "n_gpu": summary.get("gpu"),
        "n_days": summary.get("days"),
        "n_cost": summary.get("rent_total"),
        "cur": moved.plan.costs.currency,
    }
    return on_it, moved, Note(kind="warning", code="hourly_smaller", params=params)


def _whatif(
    request_text: str,
    summary: dict,
    request,
    changed: list[str],
    lang: str,
    book: PriceBook,
    kind: str = "whatif",
    why_not: bool = False,
    implied_deadline: bool = False,
    buying: bool = False,
    carry: bool = False,
) -> FollowUp:
    """The plan under the changed request against the thread's. `why_not`: the user asked why the
    plan does not use what they named ("why not H20?"): the reply says how that plan compares.
    `implied_deadline`: the new deadline is the bot's reading of "faster?", so no warning holds
    the plan to it. `carry`: the team asked for the change, so the thread moves to the new plan
    and its next message is answered against it (`FollowUp.thread`)."""
    try:
        original = parse(request_text, lang)
    except RequestError:
        original = None
    if (
        "hourly_only" in changed
        and request.rent_or_buy == "rent"
        and (original is None or original.rent_or_buy != "buy")
    ):
        # billed by the hour is renting: no second change ("rent or buy as planned -> rent") nor a buy verdict
        changed = [c for c in changed if c != "rent_or_buy"]
    changes = [_change(name, original, request, lang) for name in changed]
    earlier = _kept(summary, original, changed, lang)
    for c in changes:
        # the GPUs as planned, not as the request left them ("on RTX 4090" without a count: the 8 chosen)
        unsaid = c["before"] == "—" or (original is not None and (original.gpu_count is None or original.gpu is None))
        if c["name"] in ("gpu", "gpu_count", "nodes") and unsaid and summary.get("gpu"):
            c["before"] = f"{summary.get('gpu_count') or ''} × {summary['gpu']}".strip(" ×")
        elif c["name"] == "power_price" and c["before"] == "—" and summary.get("power_price") is not None:
            # the region's price the plan was powered at, as the new one is said
            c["before"] = _kwh(summary["power_price"], summary, lang)
        elif c["before"] == "—" and summary.get(c["name"]) is not None:
            c["before"] = str(summary[c["name"]])  # the layout the planner chose (threads since 2026-12-02)
        if c["name"] in ("gpu", "gpu_count", "nodes") and c["after"] == "—" and summary.get("first_gpus"):
            # back to a first request that left the GPUs to the planner: chosen again, as at first
            c["after"] = render("slack/value.j2", lang, kind="as_planned")
        if c["name"] == "power_price" and c["after"] == "—" and summary.get("first_kwh") is not None:
            c["after"] = _kwh(summary["first_kwh"], summary, lang)  # back to the region's price
    # the GPUs and their count read as one change ("8 × RTX3090" for both): said once
    said: set[tuple[str, str]] = set()
    kept = []
    for c in changes:
        if c["name"] in ("gpu", "gpu_count", "nodes") and (c["before"], c["after"]) in said:
            continue
        said.add((c["before"], c["after"]))
        kept.append(c)
    changes = kept
    if _already(changes, request, summary):
        # "what if 14 days?" under a 14-day plan, "what if megatron?" on a Megatron plan: say so
        # rather than show a plan against itself
        shown = [c for i, c in enumerate(changes) if c["after"] not in [d["after"] for d in changes[:i]]]
        # "能不能用一台机器搞定" on a one-server plan: "1 server (8 x H800)", not "nodes 8 x H800"
        text = render("followup.txt.j2", lang, kind="unchanged", changes=shown, nodes=summary.get("nodes"))
        return FollowUp(kind="unchanged", lang=lang, changed=changed, changes=changes, kept=earlier, text=text)
    try:
        result = advise_request(request, book)
    except RequestError as err:  # a what-if fixing a layout that cannot run (`tp 3?`): say why
        return FollowUp(kind="question", lang=lang, changed=changed, text=err.message(lang))
    hourly = _by_the_hour(request, changed, result, summary, book)
    if hourly is not None:
        request, result, hourly_note = hourly
    if result.plan is None and "gpu" in changed and request.gpu and summary.get("gpu"):
        # "用4090呢" for a job no count of 4090 holds: said so, the plan kept ("0 × ?" had been shown)
        text = render("followup.txt.j2", lang, kind="gpu_no_fit", gpu=request.gpu, s=summary)
        return FollowUp(kind="question", lang=lang, changed=changed, changes=changes, text=text)
    after = plan_context(result)
    before = {k: summary.get(k) for k in COMPARED}
    after_cmp = {k: after.get(k) for k in COMPARED}
    first = advise_request(original, book) if original is not None else None
    first_warnings = first.warnings if first is not None else []
    warnings = _new_warnings(first_warnings, result)
    if implied_deadline:
        warnings = [w for w in warnings if w.code != "deadline"]
    costs = result.plan.costs if result.plan else None
    extra = _owned_extra(summary, result, book, buying)
    if extra:
        # "can we do it with 48 GPUs?" on 32 the team owns: only the 16 more are rented (the rent
        # of all 48 had been shown, no word of the 32 owned)
        before["rent_total"], after_cmp["rent_total"] = 0.0, extra["rent"]  # the owned rent nothing
        warnings = [Note(kind="warning", code="owned_extra", params=extra), *warnings]
    # the team's own GPUs, before or after: no rent to compare ("我们自己有16张A100，够吗" had shown a
    # rent against the thread's), the job's electricity instead
    own_before, own_after = bool(summary.get("owned")) and not extra, bool(request.owned) and not extra
    if own_before:
        before.update(rent_total=None, owned=True)
    if own_after:
        electricity = result.plan.job_electricity if result.plan is not None else None
        after_cmp.update(rent_total=None, owned=True, electricity=round(electricity) if electricity else None)
    moved = None if extra or own_before or own_after else _offer_moved(summary, after)
    if moved:
        # the same GPU-months on another offer or basis (a per-server estimate against a cluster
        # lease) cost otherwise: the rent line alone had made 256 GPUs look 39% dearer than 512
        # (against the plan a what-if moved the thread to, where one did: "the thread's plan so far")
        moved |= {"thread_moved": bool(summary.get("first_request"))}
        warnings = [Note(kind="warning", code="offer_changed", params=moved), *warnings]
    framework = _framework_moved(summary, result, request, book)
    if framework:
        # "更快吗" on DeepSeek-V3 had moved Megatron-Core -> FSDP2/torchtitan without a word
        warnings = [Note(kind="warning", code="framework_changed", params=framework), *warnings]
    if hourly is not None:  # why the hourly plan is this one, before what changed with it
        warnings = [hourly_note, *warnings]
    # the costs of owning changed ("电费学校出 买的话几个月回本"): the same verdict, on them
    owning_changed = {"rent_or_buy", "own_room", "power_paid", "power_price"} & set(changed)
    if owning_changed and costs and costs.buy_capex and costs.rent_total:
        # "buy instead?": what renting this job costs against buying, and when buying would pay
        # back, leading the reply (it had shown identical rows and the capex alone)
        verdict = {"rent": costs.rent_total, "capex": costs.buy_capex, "cur": costs.currency}
        verdict |= {"never": costs.never_pays_back, "months": costs.breakeven_months, "use": costs.owned_utilisation}
        verdict["lease"] = (costs.breakeven_rent or {}).get("basis") == "lease"
        cheapest = costs.rent_instead
        if cheapest and cheapest.get("cost") is not None and cheapest["cost"] < costs.rent_total:
            # the bought GPUs' own rent can be a year's lease of a server for a 14-hour job
            # (¥87,600 against ¥17 on 4 × H800): this job's rent is its cheapest rental plan's
            verdict |= {"rent": cheapest["cost"], "on": f"{cheapest['gpu_count']} x {cheapest['gpu']}"}
        warnings = [Note(kind="warning", code="buy_verdict", params=verdict), *warnings]
    # The summary keeps days to two decimals (a 20-minute job is "0.01 days"): the times compared
    # are the plans' own, the first one's when re-planning it gives the plan the thread shows.
    if result.plan is not None and result.plan.estimate.days:
        after_cmp.update(days=result.plan.estimate.days, gpu_hours=result.plan.estimate.gpu_hours)
    fp = first.plan if first is not None else None
    if (
        fp is not None
        and fp.estimate.days
        and (fp.gpu, fp.estimate.layout.gpu_count)
        == (
            summary.get("gpu"),
            summary.get("gpu_count"),
        )
    ):
        before.update(days=fp.estimate.days, gpu_hours=fp.estimate.gpu_hours)
    meets = result.plan is not None and result.plan.meets_deadline and result.plan.within_budget
    # More time never makes the plan dearer: where the search under the new deadline lands on a
    # dearer plan (the count search is not monotone in it), the thread's plan still meets it
    if (
        changed == ["deadline_days"]
        and fp is not None
        and result.plan is not None
        and request.deadline_days
        and fp.estimate.days
        and fp.estimate.days <= request.deadline_days
        and fp.within_budget
        and fp.rent is not None
        and result.plan.rent is not None
        and result.plan.rent > fp.rent
    ):
        result, meets, after_cmp = first, True, before
    if meets and _same_plan(before, after_cmp) and not why_not and not SAME_PLAN_SAYS_MORE & set(changed):
        # "what if we had 30 days?" under a 6-hour plan: the same plan, said in a line, not a
        # table of equal columns
        shown = [c for i, c in enumerate(changes) if c["after"] not in [d["after"] for d in changes[:i]]]
        # a budget said under a plan that costs a fraction of it ("预算只有5万怎么办" on ¥3,829): the
        # two amounts side by side, so the reader sees how much room is left
        budget = request.budget if changed == ["budget"] and request.budget else None
        room = budget.amount if budget and budget.currency == result.plan.costs.currency else None
        text = render(
            "followup.txt.j2",
            lang,
            kind="same_plan",
            changes=shown,
            p=result.plan,
            budget=room,
            owned=summary.get("owned"),
            kept=earlier,
        )
        thread = _thread_after(request_text, summary, request, changed, result) if carry else None
        return FollowUp(
            kind="unchanged",
            lang=lang,
            changed=changed,
            changes=changes,
            kept=earlier,
            advice=result,
            thread=thread,
            text=text,
        )
    # Why the GPU changed, unless the reader asked for another GPU themselves.
    why = "" if {"gpu", "gpu_count", "nodes"} & set(changed) else _why_gpu(summary, result, book, lang)
    if why_not and result.plan is not None and {"gpu", "gpu_count", "nodes"} & set(changed):
        # "why not H20?" compares GPUs; "why not full fine-tune?" is the comparison table alone
        named = _names_a_gpu(original)
        first = summary.get("first_request")
        # named by a what-if earlier in the thread, not by the request the team typed first
        by_thread = named and bool(first) and not _names_a_gpu(_parsed(first, lang))
        why = _why_not(summary, result, lang, named=named, by_thread=by_thread)
    # a change that does not fit leads with it, before a table whose time and rent cannot be had; so
    # does a GPU type no count of which runs the job ("what about 4090s?": 671 days on 8 of them)
    no_fit = next((w for w in warnings if w.code == "no_fit"), None) or next(
        (w for w in warnings if w.kind == "suggestion" and w.code == "gpu_type"), None
    )
    lead = note_words(lang, no_fit) if no_fit is not None else ""
    warnings = [w for w in warnings if w is not no_fit]
    text = render(
        "followup.txt.j2",
        lang,
        kind="whatif",
        changed=changed,
        changes=changes,
        before=before,
        after=after_cmp,
        r=request,
        warnings=warnings,
        currency=request.currency,
        before_currency=summary.get("currency") or request.currency,
        why=why,
        # "faster?" / "cheaper?" read as a deadline: said as the bot's reading of the plan's time,
        # not as the team's deadline changed ("deadline 60 days -> 8.6 days" under a 17-day plan)
        implied=implied_deadline and changed == ["deadline_days"],
        kept=earlier,
        moved=bool(summary.get("first_request")),
    )
    moves = carry and result.plan is not None and not why_not
    return FollowUp(
        kind=kind,
        lang=lang,
        changed=changed,
        changes=changes,
        why=why,
        advice=result,
        warnings=warnings,
        currency=request.currency,
        before_currency=summary.get("currency") or request.currency,
        before=before,
        after=after_cmp,
        lead=lead,
        kept=earlier,
        thread=_thread_after(request_text, summary, request, changed, result) if moves else None,
        text=f"{lead}\n{text}" if lead else text,
    )


def _back_to_first(request_text: str, summary: dict, lang: str, book: PriceBook) -> FollowUp | None:
    """The thread's first request planned again, set against the plan what-ifs had moved it to."""
    try:
        first = parse(summary["first_request"], lang)
        current = parse(request_text, lang)
    except RequestError:
        return None
    changed = [n for n in summary.get("carried", []) if getattr(first, n, None) != getattr(current, n, None)]
    reply = _whatif(request_text, summary, first, changed, lang, book, carry=True)
    if reply.thread is None:  # the plan came out the same: the thread is back at its first request all the same
        planned = reply.advice or advise_request(first, book)  # (planned once where the what-if did)
        reply = reply.model_copy(
            update={"thread": {"request": summary["first_request"], "summary": plan_context(planned)}}
        )
    lead = render("followup.txt.j2", lang, kind="back_to_first").strip()
    return _led(reply, lead)


def _kwh(price: float, summary: dict, lang: str) -> str:
    """A kWh's price as a what-if's change says it ("¥0.54 a kWh")."""
    return render("slack/value.j2", lang, kind="kwh", value=money(price, summary.get("currency") or "CNY"))


def _kept(summary: dict, current, changed: list[str], lang: str) -> list[dict]:
    """What earlier what-ifs in the thread changed that this message leaves as they made it: the
    thread's first request against its current one, field by field (the GPUs as first planned
    where the request left them open)."""
    first_text = summary.get("first_request")
    if not first_text or current is None:
        return []
    try:
        first = parse(first_text, current.lang)
    except RequestError:
        return []
    kept, said = [], set()
    for name in summary.get("carried", []):
        if name in changed or (name in ("gpu", "gpu_count", "nodes") and {"gpu", "gpu_count", "nodes"} & set(changed)):
            continue
        c = _change(name, first, current, lang)
        if name == "power_price" and c["before"] == "—" and summary.get("first_kwh") is not None:
            c["before"] = _kwh(summary["first_kwh"], summary, lang)
        if name in ("gpu", "gpu_count", "nodes"):
            c["before"] = summary.get("first_gpus") or c["before"]
            if c["after"] in said:  # the GPUs and their count read as one change, said once
                continue
            said.add(c["after"])
        if c["before"] != c["after"]:
            kept.append(c)
    return kept


def _thread_after(request_text: str, summary: dict, request, changed: list[str], result: Advice) -> dict:
    """The thread's state after a what-if the team asked for: the changed request as text (it
    parses back to the same request: request/canonical.py), its plan's numbers, and what the
    thread began from, so later replies can say what they keep. Back at the first request, the
    first state again."""
    first = summary.get("first_request") or request_text
    try:
        back = canonical(parse(first, request.lang)) == canonical(request)
    except RequestError:
        back = False
    if back:
        return {"request": first, "summary": plan_context(result)}
    gpus = summary.get("first_gpus") or f"{summary.get('gpu_count') or ''} × {summary.get('gpu') or ''}".strip(" ×")
    carried = sorted(set(summary.get("carried", [])) | set(changed))
    state = {"first_request": first, "first_gpus": gpus, "carried": carried}
    # the region's kWh price the first plan was powered at, where the team had said none
    first_kwh = summary.get("first_kwh") if "first_request" in summary else summary.get("power_price")
    state["first_kwh"] = first_kwh
    return {"request": canonical(request), "summary": {**plan_context(result), **state}}


# A card's memory asked of the plan: "is 32GB vram enough?", "would 24GB cards work?", "24G显存够吗"
CARD_SIZE_ASKED = re.compile(
    r"(?<![\d.])(?P<gb>\d{2,3})\s*(?:gb|gib|g)(?![a-z])(?:\s*(?:of\s+)?(?:vram|memory|cards?|gpus?|显存|的卡|卡))?"
    r".{0,25}?(?:enough|sufficient|\bok\b|okay|work|fit|handle|do it|够|行不行|可以吗|放得下|跑得动|能跑)"
    r"|(?:is|are|would|will|can|do)\b.{0,15}?(?<![\d.])(?P<gb2>\d{2,3})\s*(?:gb|gib|g)(?![a-z]).{0,20}?(?:enough|work|fit|do|suffice)",
    re.I,
)


# the host's memory or disks, not the card's ("is 64GB RAM enough?" had re-planned on a 64 GB card)
HOST_MEMORY = re.compile(
    r"\b(?:ram|dram|system memory|host memory|cpu memory|ssd|nvme|disks?|storage)\b|内存|硬盘|磁盘", re.I
)


def _card_size_asked(message: str) -> int | None:
    found = None if HOST_MEMORY.search(message) else CARD_SIZE_ASKED.search(message)
    return int(found["gb"] or found["gb2"]) if found else None


def _on_a_card_of(request_text: str, summary: dict, size: int, lang: str, book: PriceBook) -> FollowUp | None:
    """Whether the plan's memory a GPU fits a card of `size` GB, and the plan re-made on such a card
    (one the plan's market rents first); None where no card of that size is catalogued."""
    cards = [g for g in catalog.gpus() if round(g.memory_gb) == size]
    if not cards:
        return None
    market = "global" if summary.get("currency") not in (None, "CNY") else "china"
    rented = [g for g in cards if any(book.offers(kind, g.name, market, rentable=True) for kind in RENT_KINDS)]
    # the plan's own GPU where it is that size ("80G显存够吗" under 80 GB H800s: yes, nothing re-made)
    card = next((g for g in cards if g.name == summary.get("gpu")), (rented or cards)[0])
    mem = summary["mem_per_gpu_gib"]
    fits = mem <= card.usable_memory_gib
    read = None if summary.get("gpu") == card.name else read_whatif(request_text, summary, f"on {card.name}", lang)
    lead = render(
        "slack/value.j2",
        lang,
        kind="card_size",
        fits=fits,
        mem=mem,
        size=size,
        gpu=summary.get("gpu"),
        card=card.name,
        remade=read is not None,
    ).strip()
    if read is None and summary.get("offload", "none") != "none":
        # "32G的卡怎么放得下671B": it fits because the rest is in the servers' memory, said with it
        explained = _explain(request_text, summary, "memory", lang, book)
        if explained is not None:
            return _led(explained, lead)
    if read is None:
        return FollowUp(kind="question", lang=lang, text=lead)
    reply = _whatif(request_text, summary, read[0], read[1], lang, book)
    return _led(reply, lead)


def _owned_extra(summary: dict, result: Advice, book: PriceBook, buying: bool = False) -> dict | None:
    """On GPUs the team owns, a what-if on more of the same GPU: the rent of the GPUs past those
    owned, for the new plan's days, on the offers that deliver that many (rent.rent_plan); where the
    team speaks of buying them, also what buying them costs (owning.owning: whole servers), which
    one job's rent is to be weighed against."""
    p = result.plan
    owned = summary.get("gpu_count")
    if not summary.get("owned") or p is None or p.gpu != summary.get("gpu") or not owned or not p.estimate.days:
        return None
    more = p.estimate.layout.gpu_count - owned
    if more <= 0:
        return None
    r = result.request
    nodes = math.ceil(more / p.estimate.layout.gpus_per_node)
    rented = rent_plan(book, p.gpu, r.market, r.currency, more, nodes, p.estimate.days)
    q = rented.headline
    return {
        "owned": owned,
        "extra": more,
        "gpu": p.gpu,
        "days": p.estimate.days,
        "rent": q.total if q else None,
        "provider": q.price.provider if q else None,
        "estimated": rented.estimate_rule is not None,
        "cur": r.currency,
        **_bought_extra(book, p.gpu, more, r, buying),
    }


def _bought_extra(book: PriceBook, gpu_name: str, more: int, r, buying: bool) -> dict:
    """What buying `more` of the team's GPU costs up front ({} where not asked or not on record)."""
    if not buying:
        return {}
    bought = owning(book, catalog.get_gpu(gpu_name), more, r.market, r.currency)
    if bought is None:
        return {"buy_capex": None}
    return {"buy_capex": bought.capex, "buy_servers": bought.servers, "buy_gpus": bought.gpus / bought.share}


OFFER_KEYS = ("offer_provider", "offer_kind", "offer_fabric", "offer_estimated", "offer_option", "offer_rate")


def _framework_moved(summary: dict, result: Advice, request, book: PriceBook) -> dict | None:
    """The new plan runs on another framework than the thread's, which the team did not name: why,
    from the numbers: its split on the new GPUs, and the same GPUs on the first framework (its
    days, or none where no split it runs fits them); None where that framework cannot run the job."""
    p = result.plan
    before, after = summary.get("framework"), result.framework
    old_stack = summary.get("stack")
    if p is None or request.stack or not before or not after or before == after or not old_stack:
        return None
    lay = p.estimate.layout
    same = request.model_copy(update={"stack": old_stack, "gpu": p.gpu, "gpu_count": lay.gpu_count})
    try:
        kept = advise_request(same, book).plan
    except (RequestError, ValueError):
        return None  # the first framework does not run this job at all (LoRA on torchtitan): no split to weigh
    fits = kept is not None and kept.estimate.fits
    if kept is not None and kept.estimate.layout.framework == after:
        # the first framework's stack runs as the new one on these GPUs (MindSpeed-LLM is Ascend's
        # FSDP2 backend; on H800 it is torchtitan): the GPUs moved it, there is nothing to keep
        return None
    return {
        "before": before,
        "after": after,
        "gpu": p.gpu,
        "count": lay.gpu_count,
        "tp": lay.tp,
        "pp": lay.pp,
        "ep": lay.ep,
        "dp": lay.dp,
        "zero": lay.zero_stage,
        "days": p.estimate.days,
        "kept_days": kept.estimate.days if fits else None,
        "stack": old_stack,
    }


def _offer_moved(before: dict, after: dict) -> dict | None:
    """Both plans' offers where the what-if's rent is priced on another offer or basis than the
    first's (a thread stored before the offer was kept says nothing)."""
    if not before.get("offer_provider") or not after.get("offer_provider"):
        return None
    same = all(before.get(k) == after.get(k) for k in OFFER_KEYS if k != "offer_rate")
    if same:
        return None
    return {
        "before": {k.removeprefix("offer_"): before.get(k) for k in OFFER_KEYS},
        "after": {k.removeprefix("offer_"): after.get(k) for k in OFFER_KEYS},
        "cur": after.get("currency"),
        "before_cur": before.get("currency"),
    }


def _same_plan(before: dict, after: dict) -> bool:
    """The same GPUs for the same rent and time (within a percent): the change moved nothing."""
    if not after.get("gpu") or (before.get("gpu"), before.get("gpu_count")) != (
        after.get("gpu"),
        after.get("gpu_count"),
    ):
        return False
    for key in ("rent_total", "days"):
        a, b = before.get(key), after.get(key)
        if (a is None) != (b is None) or (a is not None and abs(a - b) > SAME_SHARE * max(abs(a), abs(b))):
            return False
    return True


# Two plans whose rent and time differ by less than this share are the same plan to a reader.
SAME_SHARE = 0.01
# Changes whose answer is more than the plan (buying shows the purchase, a market its prices).
# Nor a precision or method the hardware or planner turned down (fp8 on an A100): the reply says why.
# Nor a layout the team fixes (`hsdp`, `zero3`, `tp 4`) or a sequence length: the same time on
# another layout or length is the answer, its memory and layout shown ("with HSDP the plan stays
# the same ... already meets that" had hidden it).
SAME_PLAN_SAYS_MORE = frozenset(
    {"rent_or_buy", "currency", "market", "owned", "lease_term_months", "precision", "method", "stack", "fabric"}
    | {"own_room", "power_paid", "power_price"}
    | {
        "hsdp",
        "zero_stage",
        "tp",
        "pp",
        "ep",
        "cp",
        "vpp",
        "micro_batch",
        "offload",
        "recompute",
        "grad_accum",
        "seq_len",
    }
)


def _already(changes: list[dict], request, summary: dict) -> bool:
    """Whether a what-if only repeats the plan: no field of the request moved, or each one it
    names is what the planner had already chosen (a GPU type without a count: the plan's GPU)."""
    for c in changes:
        if c["name"] == "gpu" and request.gpu_count is None and request.gpu == summary.get("gpu"):
            continue
        if c["before"] != c["after"]:
            return False
    return True


def _value(name: str, req, lang: str) -> str:
    """A field's value in a what-if's "what changed", as its row says to show it (fields.py `shown`)."""
    if req is None:
        return "?"
    shown = fields.field(name).shown
    if shown == "days":
        return (
            render("slack/value.j2", lang, kind="days", value=num(req.deadline_days, 2)) if req.deadline_days else "—"
        )
    if shown == "tokens":
        return render("slack/value.j2", lang, kind="tokens", value=big(req.tokens, lang)) if req.tokens else "—"
    if shown == "epochs":
        tokens = big(req.tokens, lang) if req.tokens else "—"
        return render("slack/value.j2", lang, kind="epochs", epochs=num(req.epochs, 2), value=tokens)
    if shown == "size":
        return f"{num(req.params_b)}B"
    if shown == "money":
        return money(req.budget.amount, req.budget.currency) if req.budget else "—"
    if name in ("max_gpus", "min_gpus"):  # a bound on the count, said as one ("≤ 64"), not the count
        bound = getattr(req, name)
        return f"{'≤' if name == 'max_gpus' else '≥'} {bound}" if bound else "—"
    if shown == "gpus":
        said = f"{req.gpu_count or ''}{' × ' if req.gpu_count and req.gpu else ''}{req.gpu or ''}" or "—"
        per = req.gpus_per_server
        if per and req.gpu_count:  # servers smaller than the catalogue's: how many, of how many GPUs
            shape = render("slack/value.j2", lang, kind="servers_of", servers=req.gpu_count // per, per=per)
            said = f"{said}（{shape}）" if lang == "zh" else f"{said} ({shape})"
        return said
    value = getattr(req, name, None)
    if name == "power_price":  # a kWh's price ("¥1 a kWh"), not the model's fields
        return render("slack/value.j2", lang, kind="kwh", value=money(value.amount, value.currency)) if value else "—"
    if name == "data_language":  # what the language moves is the tokens the bytes hold
        tokens = big(req.tokens, lang) if req.tokens else "—"
        value = req.data.language if req.data else None
        said = phrase(lang, "choice", name, value) if value else "—"
        tokens = render("slack/value.j2", lang, kind="tokens", value=tokens)
        return f"{said}（{tokens}）" if lang == "zh" else f"{said} ({tokens})"
    if isinstance(value, bool):
        return phrase(lang, "choice", "flag", value)
    if name == "preference_tuning":  # none: the method alone ("full-finetune -> DPO")
        return phrase(lang, "choice", name, value) if value else phrase(lang, "choice", "method", req.method)
    if name in ("rent_or_buy", "fabric"):
        return phrase(lang, "choice", name, value) if value else render("slack/value.j2", lang, kind="as_planned")
    if name == "network_gbps":  # the team's link as a request writes it ("25Gb/s per server")
        if not value:
            return render("slack/value.j2", lang, kind="as_planned")
        return network_words(value, req.network_per_server, lang == "zh")
    if name in ("method", "city", "lora_targets") and value:
        # worded in the reply's language ("训练方式 full-finetune -> lora", "城市 hangzhou" had read)
        return phrase(lang, "choice", name, value)
    if name in ("lease_term_months", "own_use_months"):
        # months, said ("— -> 1" had been a what-if's first line); no term asked: the plan's choice
        return (
            render("slack/value.j2", lang, kind="months", value=value)
            if value
            else render("slack/value.j2", lang, kind="as_planned")
        )
    if name == "lora_rank" and value is None and req.method in ("lora", "qlora"):
        value = DEFAULT_LORA_RANK  # the rank an adapter plan used when none was said ("— -> 32" had read)
    return "—" if value is None else str(value)


def _new_warnings(first: list[Note], result: Advice) -> list[Note]:
    """The what-if's warnings the first answer did not give. Availability is said only of the
    new plan's own GPU when the first answer had not named it (alternatives are not the news)."""

    def key(w: Note) -> tuple[str, str]:
        return w.code, json.dumps(w.params, sort_keys=True, default=str)

    seen = {key(w) for w in first}
    named = {g for w in first if w.code == "availability" for g in w.params.get("gpus", [])}
    gpu = result.plan.gpu if result.plan else None
    out = []
    for w in result.warnings:
        if key(w) in seen or w.code == "estimated_prices":
            continue
        if w.code == "availability":
            if gpu not in w.params["gpus"] or gpu in named:
                continue
            w = _availability_of(w, gpu)
        out.append(w)
    return out


def _change(name: str, before, after, lang: str) -> dict:
    return {"name": name, "before": _value(name, before, lang), "after": _value(name, after, lang)}


def _why_gpu(summary: dict, result: Advice, book: PriceBook, lang: str) -> str:
    """When the GPU changed: the first GPU under the new request (its count, time and rent), so
    the reader sees why it lost: from the alternatives the planner weighed, or, when it is not
    among the five shown, planned on that GPU."""
    p = result.plan
    if p is None or not summary.get("gpu") or summary["gpu"] == p.gpu:
        return ""
    old = next((a for a in result.result.alternatives if a.gpu == summary["gpu"] and a.method == p.method), None)
    if old is None:
        on_old = result.request.model_copy(update={"gpu": summary["gpu"], "gpu_count": None})
        old = advise_request(on_old, book).plan
    # fp8 asked of a plan whose GPU has no fp8 tensor cores (an Ascend 910B, an A100): that first
    no_fp8 = result.request.precision == "fp8" and not catalog.get_gpu(summary["gpu"]).fp8_dense_tflops
    return render(
        "slack/value.j2",
        lang,
        kind="why_gpu",
        no_fp8=no_fp8,
        old=summary["gpu"],
        new=p.gpu,
        old_plan=old,
        old_days=phrase(lang, "duration", old.days, file="explain") if old and old.days else "",
        old_rent=money(old.rent, old.costs.currency) if old and old.rent else "",
        old_count=old.estimate.layout.gpu_count if old else 0,
        meets=bool(old and old.meets_deadline),
        new_meets=p.meets_deadline,
        unpriced=p.rent is None,
    )


def explained_part(message: str) -> str | None:
    """ "memory", "costs", "gpus", "servers" or "time" when the message asks how that number of the
    plan was worked out, "overview" when it names none ("这个数字哪来的"), else None."""
    message = LAYOUT_NUMBER.sub(" ", message or "")
    # "is nvlink necessary?" doubts a link the plan does not size: the FAQ's, on the plan's GPUs
    if not ASKS_HOW.search(message) or NVLINK_DOUBTED.search(message):
        return None
    return next((part for part, words in EXPLAINED if re.search(words, message, re.I)), "overview")


def plan_part(message: str) -> str | None:
    """ "servers", "vendor", "risks" or "rfq" when the message asks for that part of the plan; not
    the plan's total asked with what it holds ("what's the total including storage?": its cost)."""
    if ASKS_THE_COST.match(message or ""):
        return None
    return next((part for part, words in PLAN_PARTS if re.search(words, message or "", re.I)), None)


def _provider(message: str) -> tuple[str, str] | None:
    """(how its offers name it, its market) of the cloud or provider the message names."""
    return next(((name, market) for words, name, market in PROVIDERS if re.search(words, message, re.I)), None)


def _first_question(message: str) -> str:
    """A message's first question, its mark kept ("why MI300X? does ... work?" -> "why MI300X?")."""
    found = re.match(r"[^?？]*[?？]", message)
    return found[0] if found else message


# Another GPU doubted ("昇腾那个便宜点，靠谱吗", "is the MI300X option legit?"): the plan on it, and
# the FAQ's word on that GPU in one sentence
TRUSTED = re.compile(
    r"靠谱|可靠|稳不稳|能用吗|行不行|好用吗|(?:可以|能)用.{0,12}(?:吗|么)|\b(?:can|could) we (?:use|go with)\b"
    r"|\breliable\b|\blegit\b|\btrust\w*\b|\bany good\b|\bsafe bet\b",
    re.I,
)


def _led(reply: FollowUp, lead: str) -> FollowUp:
    """`reply` with what the question asked said first (Slack's blocks put `lead` above the part)."""
    return reply.model_copy(update={"text": f"{lead}\n{reply.text}", "lead": lead})


def _with_brief(reply: FollowUp, message: str, summary: dict) -> FollowUp:
    """A reply with the FAQ's one-sentence answer to the message after it, where one is sure."""
    data = _faq(message, summary, reply.lang)
    topic = next((t for t in faq.topics() if t.id == data.get("topic")), None) if data.get("confident") else None
    if topic is None:
        return reply
    return reply.model_copy(update={"text": f"{reply.text}\n\n{topic.brief(reply.lang)}"})


def _and_the_rest(reply: FollowUp, request_text: str, message: str, lang: str, book: PriceBook) -> FollowUp:
    """A reply to a message's first question, with the plan's reason for the question after it
    ("why MI300X? does bitsandbytes even work on ROCm?": the GPU, then QLoRA on ROCm)."""
    rest = message[len(_first_question(message)) :].strip()
    what = _reason_asked(rest, {}) if rest else None
    more = _reason(request_text, what, rest, lang, book) if what else None
    if more is None:
        return reply
    return reply.model_copy(update={"text": f"{reply.text}\n\n{more.text}"})


def _reason_asked(message: str, summary: dict) -> str | None:
    """Which of the plan's reasons a message asks for (advisor/planning/reasons.py), if any."""
    if RENT_THE_WHOLE_RUN.search(message):
        return "rental"
    if STACK_ON_ASCEND.search(message):
        return "stack"
    if GLOBAL_BATCH_ASKED.search(message) and not re.search(
        r"micro[- _]?batch|(?<![a-z])mbs(?![a-z])|微批", message, re.I
    ):
        return "batch"
    if (WHY_LAYOUT.match(message) or BATCH_ASKED.search(message)) and not FRAMEWORK_NAMED.search(message):
        return "layout"  # ("why FSDP2 and not megatron?" asks for the framework: the FAQ's, on this plan)
    if WHY_RAM.search(message):
        return "ram"
    if WHY_FABRIC.search(message) and (summary.get("nodes", 2) > 1 or reasons.HAVE_LINK.search(message)):
        # (a one-server plan asked "do we need infiniband?" keeps the FAQ's answer on its numbers)
        return "network"
    if summary.get("nodes", 1) > 1 and network_said(message):
        # a link with its speed under a plan across servers ("what if we use 100G RoCE?", "with 200G IB
        # instead?"): the plan's GPUs planned on it (the FAQ on networks, or a what-if of the fabric alone)
        return "network"
    if BNB_ON_ROCM.search(message) and not WHY_THIS_GPU.match(_first_question(message)):
        return "software"
    return None


def _on_own_link(request_text: str, result, message: str, book: PriceBook):
    """The plan's own GPUs planned on the link the team says it has ("we only have 25G ethernet",
    "100 Gb/s per GPU"), and the request that plans for that link from the start; or None."""
    said, p = reasons.link_said(message), result.plan
    if not said or p is None or p.estimate.layout.nodes < 2:
        return None
    try:
        link = network_words(*said, result.request.lang == "zh")  # in the request's own words
        own = advise(f"{request_text} {link} on {p.estimate.layout.gpu_count}x{p.gpu}", book=book)
        # and the request that plans for that network from the start, any GPUs and layout
        return own, canonical(parse(f"{request_text} {link}", result.request.lang))
    except RequestError:
        return None


def _reason(request_text: str, what: str, message: str, lang: str, book: PriceBook) -> FollowUp | None:
    """The plan's own reason for a layout choice, its host RAM, its network, its offer over the
    whole run, or what runs it on its GPU (reasons.py's numbers, templates/reasons.txt.j2)."""
    result = advise(request_text, lang, book=book)
    p = result.plan
    if p is None:
        return None
    if what == "layout":
        knob = reasons.knob_asked(message)
        data = reasons.layout_reason(result, *knob) if knob else None
    elif what == "batch":
        data = reasons.batch_reason(result)
    elif what == "ram":
        data = reasons.ram_reason(result)
    elif what == "network":
        data = reasons.network_reason(
            result,
            _one_server(request_text, result, lang, book),
            message,
            _on_own_link(request_text, result, message, book),
        )
    elif what == "rental":
        named = _provider(message)
        if named:  # "AutoDL能连续租90天吗": that provider's own offer for the plan's GPU, if any
            mine = _offers(result, book, named[0])
            own = next((o for o in mine if o["why_not"] is None), mine[0] if mine else None)
            named = {"provider": own["provider"] if own else named[0], "offer": own}
        data = reasons.rental_reason(result, named)
    else:
        data = reasons.software_reason(result, message)
    if data is None:
        return None
    text = render("reasons.txt.j2", lang, kind=what, r=data)
    return FollowUp(kind="explain", lang=lang, advice=result, part=what, text=text)


# The FAQ topic whose general answer follows the plan's numbers
PLAN_ANSWER_TOPICS = {"hosting": "colocation_price", "mfu": "mfu_meaning", "depreciation": "depreciation_financing"}
# "3张卡可以吗", "would 5 GPUs work?": the count asked
COUNT_ASKED = re.compile(r"(\d+)\s*(?:张|块|个)?\s*(?:卡|显卡|gpus?|cards?)", re.I)


def _plan_answer(
    request_text: str, summary: dict, what: str, message: str, lang: str, book: PriceBook
) -> FollowUp | None:
    """A question the plan's numbers answer (advisor/planning/plan_answers.py), followed by the
    FAQ's general answer where one belongs to it."""
    result = advise(request_text, lang, book=book)
    if result.plan is None:
        return None
    if what == "inference":
        data = plan_answers.inference(result)
    elif what == "rl":
        data = plan_answers.rl(result)
    elif what == "hosting":
        data = plan_answers.hosting(result, book, message)
    elif what == "mfu":
        data = plan_answers.mfu(result)
    elif what == "depreciation":
        data = plan_answers.depreciation(result, message)
    elif what == "circuit":
        data = plan_answers.circuit(result, message)
    elif what == "room":
        data = plan_answers.room(result, message)
    elif what == "time_includes":
        data = plan_answers.time_includes(result)
    elif what == "hidden_costs":
        data = plan_answers.hidden_costs(result)
    elif what == "steps":
        data = plan_answers.steps(result)
    else:
        found = COUNT_ASKED.search(message)
        count = int(found[1]) if found else result.plan.estimate.layout.gpu_count
        on = None
        if count != result.plan.estimate.layout.gpu_count:
            try:
                request, _ = parse_followup(request_text, f"{count} gpus on {result.plan.gpu}", lang)
                on = advise_request(request, book).plan
            except RequestError:
                on = None
        data = plan_answers.odd_count(result, count, on)
    if data is None:
        return None
    text = render("plan_answers.txt.j2", lang, kind=what, r=data).strip()
    topic = next((t for t in faq.topics() if t.id == PLAN_ANSWER_TOPICS.get(what)), None)
    if topic is not None:
        text = f"{text}\n\n{topic.answer_zh if lang == 'zh' else topic.answer_en}"
    return FollowUp(kind="explain", lang=lang, advice=result, part=what, text=text)


def _one_server(request_text: str, result: Advice, lang: str, book: PriceBook):
    """The best plan on one server: the planner's own, else the plan's GPUs cut to one server."""
    p = result.plan
    single = result.result.single_server
    if single is not None or p.estimate.layout.nodes <= 1:
        return single
    per_node = p.estimate.layout.gpus_per_node
    try:
        request, _ = parse_followup(request_text, f"{per_node} gpus on {p.gpu}", lang, plan_gpu=p.gpu)
    except RequestError:
        return None
    return advise_request(request, book).plan


def _count_named(message: str, own: int | None) -> int | None:
    """A GPU count the message sets against the plan's ("why 224 GPUs and not 256?", "为什么不用256张");
    a GPU's name is no count ("那就选4090，要几台" had listed 4090 GPUs beside the plan's)."""
    for word in _gpus_named(message).values():
        message = message.replace(word, " ")
    # a number with another unit is no count ("why 40 gpus when we have 30 days? cant we do it on 8":
    # the 30 had been listed as the count asked, not the 8)
    other_unit = (
        r"\s*(?:days?\b|d\b|天|hours?\b|h\b|小时|weeks?\b|周|months?\b|个?月|%|[gt]i?b\b|b\b|k\b|m\b"
        r"|tokens?\b|samples?\b|条|万|亿|元|块)"
    )
    counts = [
        int(m[1])
        for m in re.finditer(r"(?<![\d.$¥])(\d{1,5})(?![\d.])\s*(?:x\s*)?(?:gpus?|cards?|张|卡)?", message, re.I)
        if not re.match(other_unit, message[m.end(1) :], re.I)
    ]
    others = [n for n in counts if n != own and 1 <= n <= 100_000]
    return others[0] if others and own else None


def _explain(
    request_text: str,
    summary: dict,
    part: str,
    lang: str,
    book: PriceBook,
    lead: tuple[str, ...] | None = None,
    count: int | None = None,
    servers: bool = False,
) -> FollowUp | None:
    """That part of the plan's arithmetic: its section (time, memory, costs, servers: `lead`, the
    line asked about), the headline numbers each with its sum (overview), or the plan on the counts
    around its own (gpus; `count`, one the question names, among them)."""
    result = advise(request_text, lang, book=book)
    p = result.plan
    if p is None:
        return None
    e, c = p.estimate, p.costs
    rows: list[dict] = []
    if part in ("time", "memory", "costs"):
        section = _section_text(result, part)
        text = render("followup.txt.j2", lang, kind="explain", section=section, part=part, e=e, c=c, p=p)
    elif part == "servers":
        text = render("followup.txt.j2", lang, kind="servers", p=p, e=e, c=c, I=p.infra, lead=lead)
    elif part == "gpus":
        # the counts around the plan's own, and its own marked: the rows the text and Slack lay out
        own = {**_plan_row(p), "chosen": True}
        rows = sorted([*_counts_around(request_text, result, lang, book, count), own], key=lambda o: o["count"])
        text = render(
            "followup.txt.j2",
            lang,
            kind="gpus",
            p=p,
            e=e,
            c=c,
            r=result.request,
            fixed=bool(result.request.gpu_count),
            around=rows,
            tie=result.tie(same_gpu=True),
            servers=servers,
        )
    elif part == "gpu_type":
        # the best plan on each other GPU type the planner weighed, cheapest first
        others: dict[str, dict] = {}
        for a in result.result.alternatives:
            if a.gpu != p.gpu and a.method == p.method and a.gpu not in others:
                others[a.gpu] = _plan_row(a)
        rows = sorted(others.values(), key=lambda o: (o["rent"] is None, o["rent"] or 0))
        text = render(
            "followup.txt.j2",
            lang,
            kind="gpu_type",
            p=p,
            e=e,
            c=c,
            r=result.request,
            others=rows,
            tie=result.tie(same_gpu=False),
        )
    else:
        text = render("followup.txt.j2", lang, kind="overview", p=p, e=e, c=c, r=result.request)
    return FollowUp(kind="explain", lang=lang, advice=result, part=part, rows=rows, text=text)


# Counts tried past the GPU-hours estimate for one that meets the deadline, a server more each
# (assumed; the planner's own search goes further for a request that fixes no count)
COUNT_TRIES_TO_MEET = 4


def _counts_around(
    request_text: str, result: Advice, lang: str, book: PriceBook, named: int | None = None
) -> list[dict]:
    """The plan on half and twice its GPU count, same GPU, and on a count the question named: why
    the planner stopped where it did."""
    p = result.plan
    count = p.estimate.layout.gpu_count

    def plan_on(n: int):
        try:
            request, _ = parse_followup(request_text, f"{n} gpus on {p.gpu}", lang, plan_gpu=p.gpu)
            return advise_request(request, book).plan
        except RequestError:
            return None

    out = []
    # under a server, a whole one too: its GPU-hours are about the same and it may rent for little
    # more ("为什么只用一张卡" under 1 H800 for 30 days had shown 2 for 15, not 8 for 3.8 days at ¥6,441)
    server = catalog.get_gpu(p.gpu).gpus_per_server
    whole = {server} if server and count < server else set()
    for n in sorted(({max(1, count // 2), count * 2, named or count} | whole) - {count}):
        other = plan_on(n)
        if other is not None:
            out.append(_plan_row(other))
    deadline = result.request.deadline_days
    if deadline and not p.meets_deadline and not any(o["meets"] for o in out):
        # the count the request fixed misses its deadline, and so do the counts around it ("how many
        # gpus to finish in 14d" had listed 8, 16 and 32, all late): the first whole servers' worth
        # that meets it, from the GPU-hours scaling with the time, a few servers more if it does not
        per = max(1, p.estimate.layout.gpus_per_node)
        n = max(count + per, math.ceil(count * p.estimate.days / deadline / per) * per)
        for _ in range(COUNT_TRIES_TO_MEET):
            other = plan_on(n)
            if other is not None and other.meets_deadline:
                out.append(_plan_row(other))
                break
            n += per
    return out


def _plan_row(p) -> dict:
    """A plan's numbers as a comparison line shows them."""
    e = p.estimate
    return {
        "gpu": p.gpu,
        "count": e.layout.gpu_count,
        "nodes": e.layout.nodes,
        "days": e.days,
        "gpu_hours": e.gpu_hours,
        "memory": e.memory.total,
        "usable": e.usable_gib,
        "fits": e.fits,
        # the GPUs would hold it, the servers' RAM not what it offloads (a "does not fit, 12.7 of
        # 95.6 GiB per GPU" had read as a contradiction)
        "host_short": e.host_ram_short,
        "meets": p.meets_deadline,
        "within_budget": p.within_budget,
        "rent": p.costs.rent_total,
        "currency": p.costs.currency,
        # how the rent is billed, and the months a lease bills (a count no hourly offer delivers
        # jumps to a month's lease: "8 GPUs ¥249, 16 GPUs ¥139,193" says why)
        "option": p.costs.rent_option,
        "months": (p.costs.rent_term or {}).get("months_paid") if p.costs.rent_option == "monthly" else None,
    }


# A pilot asked about ("should we do a pilot first?", "能不能先试跑一下", "how long should the pilot be?")
PILOT = re.compile(
    r"\bpilot\b|\btrial\s+run\b|试跑|先跑一下|先试一下"
    # "can we try before we sign?", "签之前能先试用吗"
    r"|\btry\s+(?:it\s+|them\s+)?(?:out\s+)?before\s+(?:we|you|i)\s+(?:sign|commit|buy|pay)\b|签(?:约|合同)?(?:之)?前.{0,4}试",
    re.I,
)


def _pilot_lead(reply: FollowUp | None, lang: str) -> str:
    """The pilot the checklist sizes (a tenth of the job, at most PILOT_MAX_DAYS) on one or two of the
    plan's servers, and its cost at the plan's rate; '' where the plan has no days or hourly rate."""
    plan = reply.advice.plan if reply and reply.advice else None
    if plan is None or not plan.days or not plan.costs.rent_per_gpu_hour:
        return ""
    hours = round(pilot_hours(plan.days), 1)  # the checklist's and the hidden costs' own figure
    gpus = pilot_gpus(plan.estimate.layout)
    rate = plan.costs.rent_per_gpu_hour
    return render(
        "followup.txt.j2", lang, kind="pilot_cost", hours=hours, gpus=gpus, gpu=plan.gpu, rate=rate,
        cost=hours * gpus * rate, cur=plan.costs.currency, leased=plan.costs.rent_option == "monthly",
    ).strip()  # fmt: skip


def _plan_part(
    request_text: str,
    summary: dict,
    part: str,
    lang: str,
    book: PriceBook,
    lead: tuple[str, ...] | None = None,
    provider: str | None = None,
) -> FollowUp | None:
    """The part of the plan a question asks for: its servers and storage (`lead`: only the line
    asked about), the offers on record that can deliver it, its risks (warnings and checks), its
    request for quote."""
    result = advise(request_text, lang, book=book)
    p = result.plan
    if p is None:
        return None
    rows: list[dict] = []
    if part == "rfq":
        text = render("followup.txt.j2", lang, kind="rfq", rfq=render_rfq(result))
    elif part == "checklist":
        text = render_checklist(result)
    elif part == "risks":
        text = render(
            "followup.txt.j2", lang, kind="risks", warnings=_own_risks(result), checklist=render_checklist(result)
        )
    elif part == "vendor":
        rows = _offers(result, book, provider)
        text = render("followup.txt.j2", lang, kind="vendor", p=p, offers=rows, c=p.costs)
    else:
        text = render("followup.txt.j2", lang, kind="servers", p=p, e=p.estimate, c=p.costs, I=p.infra, lead=lead)
    return FollowUp(kind="part", lang=lang, advice=result, part=part, rows=rows, text=text)


def _own_risks(result: Advice) -> list[Note]:
    """The plan's warnings, availability said of its own GPU only ("what are the risks?" under an
    Ascend plan had led with A100, A800 and H20 supply, the alternatives' parts)."""
    gpu = result.plan.gpu if result.plan else None
    out = []
    for w in result.warnings:
        if w.code == "availability" and gpu:
            if gpu not in w.params.get("gpus", []):
                continue
            w = _availability_of(w, gpu)
        out.append(w)
    return out


def _availability_of(w: Note, gpu: str) -> Note:
    """An availability note said of one of its GPUs, with that GPU's date."""
    since = w.params.get("since") or dict(zip(w.params["gpus"], w.params.get("sinces") or [])).get(gpu, "")
    return w.model_copy(update={"params": {**w.params, "gpus": [gpu], "since": since, "sinces": []}})


def _offers(result: Advice, book: PriceBook, provider: str | None = None) -> list[dict]:
    """The rent offers on record for the plan's GPU in its market (of one provider when named),
    cheapest for this plan first, each with what the plan would cost on it as it is sold, why it
    cannot deliver the plan in one order (`why_not`, None: it can) and, for one that can and costs
    less than the plan's price, why the plan is not priced on it (`unused`: "term", its term bills
    months the job does not use; "likely", the plan takes the middle of the offers that deliver)."""
    p, r = result.plan, result.request
    lay = p.estimate.layout
    offer = p.costs.rent_offer or {}
    # the offer the plan is priced on: its provider, price and unit (a provider may list several)
    priced = (offer.get("provider"), offer.get("price"), offer.get("unit"))
    storage = p.costs.storage_total or 0
    plan_rent = p.costs.rent_total - storage if p.costs.rent_total is not None else None
    # offloaded states a cloud instance's share of host memory cannot hold (rent_plan's rule)
    host_gb = p.estimate.memory.host_ram_gib * GIB / 1e9
    rows = []
    for kind in RENT_KINDS:
        for o in book.offers(kind, p.gpu, r.market, rentable=True):
            if provider and provider.lower() not in o.provider.lower():
                continue
            why_not = o.why_not(lay.gpu_count, lay.nodes)
            if why_not is None:
                # "we can get hourly on autodl": not for this layout where no size of instance holds it
                why_not = instance_why_not(o, lay.gpu_count, lay.nodes, host_gb)
            inst = instance_gpus(lay.gpu_count, lay.nodes, host_gb)
            sold = as_sold(book, o, r.currency, lay.gpu_count, p.estimate.days, inst)
            total = sold.total if why_not is None else None
            unused = None
            mine = (o.provider, o.price, o.unit) == priced
            if total is not None and plan_rent is not None and not mine and total < plan_rent:
                job = job_months(p.estimate.days)
                unused = "term" if sold.months_paid and sold.months_paid > job else "likely"
            rows.append(
                {
                    "provider": o.provider,
                    "kind": kind,
                    "price": o.price,
                    "currency": o.currency,
                    "per_hour": book.convert(o.price, o.currency, r.currency) / (730 if kind == "rent_month" else 1),
                    "as_of": o.as_of,
                    "estimate": o.estimate,
                    "min_term_months": o.min_term_months,
                    "billing": o.billing,
                    "max_gpus": o.max_gpus,
                    "why_not": why_not,
                    "total": total,
                    "months_paid": sold.months_paid,
                    "unused": unused,
                    "priced": mine,
                }
            )
    rows.sort(
        key=lambda o: (o["why_not"] is not None, o["total"] if o["total"] is not None else math.inf, o["per_hour"])
    )
    return rows[:8]


def _converted(request_text: str, summary: dict, message: str, lang: str, book: PriceBook) -> FollowUp | None:
    """ "in CNY?" under a plan in dollars (or back): the plan's rent, hourly rate and purchase at
    the book's exchange rate, and how to re-plan on the other market's own offers instead."""
    to = "CNY" if TO_CNY.search(message) else "USD"
    result = advise(request_text, lang, book=book)
    p = result.plan
    if p is None or p.costs.currency == to:
        return None
    c = p.costs

    def conv(amount: float | None) -> dict | None:
        return None if amount is None else {"from": amount, "to": book.convert(amount, c.currency, to)}

    text = render(
        "followup.txt.j2",
        lang,
        kind="converted",
        cur=c.currency,
        to=to,
        rate=book.usd_cny,
        fx_as_of=book.fx_as_of,
        rent=conv(c.rent_total),
        hourly=conv(c.rent_per_gpu_hour),
        monthly=conv(c.rent_per_gpu_month),
        buy=conv(c.buy_capex),
        budget=conv(book.convert(result.request.budget.amount, result.request.budget.currency, c.currency))
        if result.request.budget
        else None,
        gpu=p.gpu,
        market=result.request.market,
    )
    return FollowUp(kind="explain", lang=lang, advice=result, part="currency", text=text)


def _market(request_text: str, summary: dict, message: str, lang: str, book: PriceBook) -> FollowUp | None:
    """ "how much on AWS?", "plan it in USD on global clouds", "on Alibaba Cloud?": the plan
    re-planned in that market, on the plan's own GPU where that market (the provider named)
    offers it, else on its sibling (the H800's H100), else on the market's best; the reply names
    the provider the price is from and, when a provider is named, its own price for the GPU."""
    named = _provider(message)
    change = ("usd" if named[1] == "global" else "cny") if named else ("usd" if MARKET.search(message) else "cny")
    market = "global" if change == "usd" else "china"
    plan_gpu = summary.get("gpu")

    def offered(gpu: str | None) -> bool:
        if not gpu:
            return False
        return any(
            not named or named[0].lower() in o.provider.lower()
            for kind in RENT_KINDS
            for o in book.offers(kind, gpu, market, rentable=True)
        )

    keep = (
        plan_gpu
        if offered(plan_gpu)
        else SIBLINGS.get(plan_gpu or "")
        if offered(SIBLINGS.get(plan_gpu or ""))
        else None
    )
    # a cloud of the request language ("how much on gcp?"): the plan made from its own offers
    cloud = next((c.en[0] for c in fields.field("cloud").choices if named and c.value == named[0]), "")
    said = f"{change} {cloud}".strip()
    changes = (f"{said} on {keep}",) if keep else ()
    budget = _budget_in(request_text, change.upper(), book)
    for text in (*changes, said, f"{budget} {cloud}".strip() if budget else ""):
        if not text:
            continue
        try:
            request, changed = parse_followup(request_text, text, lang, plan_gpu=plan_gpu)
        except RequestError:
            continue
        reply = _whatif(request_text, summary, request, changed, lang, book, kind="market", carry=True)
        if text in changes and reply.advice and off_cloud(reply.advice):
            continue  # the cloud rents no plan on the GPU kept: its own offers choose the GPU
        if reply.kind == "unchanged" and named:
            # "on Alibaba Cloud?" under a plan already in that market: the plan, and what that provider asks
            reply = reply.model_copy(update={"kind": "market", "advice": advise(request_text, lang, book=book)})
        if reply.advice is None or reply.advice.plan is None:
            return reply
        p = reply.advice.plan
        own = None
        if named:
            mine = _offers(reply.advice, book, named[0])
            own = next((o for o in mine if o["why_not"] is None), mine[0] if mine else None)
        # the plan's own offer billed by the hour: its GPU-hours as billed (whole hours), so the total is
        # the plan's ("the plan's 1.55 GPU-hours cost $3.02" had stood beside its $3.9)
        c = p.costs
        billed = (
            c.rent_hourly_total / c.rent_per_gpu_hour
            if own
            and own["provider"] == (c.rent_offer or {}).get("provider")
            and c.rent_option == "hourly"
            and c.rent_hourly_total
            and c.rent_per_gpu_hour
            else None
        )
        line = render(
            "slack/value.j2",
            lang,
            kind="market",
            market=market,
            provider=named[0] if named else "",
            plan_gpu=plan_gpu,
            gpu=p.gpu,
            kept=keep == p.gpu and keep == plan_gpu and "currency" in reply.changed,
            provider_gpus=book.rented_by(named[0], market) if named else [],
            sibling=bool(keep) and keep == p.gpu and keep != plan_gpu,
            plan_offered=offered(plan_gpu),
            # made from the named cloud's own offers alone (the request's `cloud`)
            on_cloud=bool(named) and reply.advice.request.cloud == named[0] and not off_cloud(reply.advice),
            offer=(p.costs.rent_offer or {}).get("provider"),
            offer_as_of=(p.costs.rent_offer or {}).get("as_of") or "",
            own=own,
            own_price=money(own["price"], own["currency"]) if own else "",
            own_total=money(p.costs.rent_hourly_total, p.costs.currency)
            if billed
            else money(own["price"] * p.estimate.gpu_hours, own["currency"])
            if own and own["kind"] == "rent_hour" and p.estimate.gpu_hours and not own["why_not"]
            else "",
            host_gb=round(p.estimate.memory.host_ram_gib * GIB / 1e9),
            instance_gb=INSTANCE_RAM_GB_PER_GPU,
            gpu_hours=num(billed or p.estimate.gpu_hours) if p.estimate.gpu_hours else "",
            # the plan's own rent, where no per-GPU-hour total says it ("how much on lambda?" under a
            # plan leased from Lambda had been answered with no figure)
            plan_total=money(p.costs.rent_total, p.costs.currency) if p.costs.rent_total is not None else "",
            plan_gpus=p.estimate.layout.gpu_count,
            plan_hourly=p.costs.rent_option == "hourly",
            plan_months=(p.costs.rent_term or {}).get("months_paid") if p.costs.rent_option == "monthly" else None,
        )
        why = "\n".join(x for x in (line.strip(), reply.why) if x)
        if not reply.changed or not reply.after:
            return reply.model_copy(update={"why": why, "text": why})
        text = render(
            "followup.txt.j2",
            lang,
            kind="whatif",
            changed=reply.changed,
            changes=reply.changes,
            before=reply.before,
            after=reply.after,
            r=request,
            warnings=reply.warnings,
            currency=reply.currency,
            before_currency=reply.before_currency,
            why=why,
            kept=reply.kept,
            moved=bool(summary.get("first_request")),
        )
        return reply.model_copy(update={"why": why, "text": text})
    return None


def _names_a_gpu(request: TrainingRequest | None) -> bool:
    """The thread's request named its GPU type ("... h20"): the plan is on it because it was asked."""
    return bool(request is not None and request.gpu and "gpu" in request.user_set)


def _parsed(text: str, lang: str) -> TrainingRequest | None:
    try:
        return parse(text, lang)
    except RequestError:
        return None


def _why_not(summary: dict, result: Advice, lang: str, named: bool = False, by_thread: bool = False) -> str:
    """ "why not H20?": how the plan on what was named compares with the chosen one (it does not
    fit, misses the deadline or the budget, costs more, or costs less but was not chosen). Named by
    a what-if of the thread (`by_thread`), it says so, and whether that plan misses the deadline
    (16 H800 for 211 days against 30 had been "because the request names H800")."""
    p = result.plan
    row = _plan_row(p)
    rent, old_rent = p.costs.rent_total, summary.get("rent_total")
    # a plan that buys is weighed by the purchase ("why H200 and not H800?" under `… buy`: H800 rents
    # for less but costs more to buy; the rent had been set side by side)
    buying = summary.get("decision") == "buy" and bool(p.costs.buy_capex and summary.get("buy_capex"))
    if buying:
        rent, old_rent = p.costs.buy_capex, summary.get("buy_capex")
    return render(
        "slack/value.j2",
        lang,
        kind="why_not",
        new=row,
        old_gpu=summary.get("gpu"),
        old_count=summary.get("gpu_count"),
        old_days=summary.get("days"),
        old_rent=money(old_rent, summary.get("currency") or p.costs.currency) if old_rent else "",
        rent=money(rent, p.costs.currency) if rent else "",
        ratio=num(rent / old_rent, 2) if rent and old_rent and summary.get("currency") == p.costs.currency else "",
        deadline=result.request.deadline_days,
        same=p.gpu == summary.get("gpu"),
        named=named,
        by_thread=by_thread,
        old_late=bool(result.request.deadline_days and (summary.get("days") or 0) > result.request.deadline_days),
        buying=buying,
    ).strip()
