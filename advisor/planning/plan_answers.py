"""Thread questions the plan's own numbers answer beyond its sections, as numbers for
`templates/plan_answers.txt.j2`:

- serving the model after training ("训练完还要部署推理，要多少卡"): not planned here, so a rough
  sizing from the model's weights and KV cache at a stated context and concurrency, said as a guess;
- RL after the fine-tune ("后面还要做GRPO，显存要留多少"): what the rollout engine and the reference
  model add to the plan's memory per GPU;
- the power and colocation prices the plan assumed, and what is on record for a place asked about
  ("what colo price did you assume?", "colocation in Europe? power price?");
- MFU, defined on the plan's own numbers and the causes its step breakdown gives;
- the depreciation and residual value the buy figures use ("what's it worth after 3 years?");
- a wall circuit ("学校机房只有220V 功率够不够") against the plan's power draw;
- an odd GPU count ("3张卡可以吗，是不是要偶数"): what tensor and pipeline splits need, and the plan
  on that count;
- what the time covers ("这个时间算上评测了吗"): training and its restarts, not evaluation, whose
  forward passes are sized from the plan's speed;
- the costs beside the headline ("what are the hidden costs?", "交换机和光模块要多少钱"): what the rent
  and the purchase hold besides the GPUs, and what neither holds.
"""

from __future__ import annotations

import math
import re

from advisor import catalog
from advisor.engine.throughput import CHECKPOINT_OVERHEAD, HOURS_LOST_PER_FAILURE
from advisor.market.owning import (
    CLUSTER_EXTRA,
    RESIDUAL_SHARE,
    USED_RESALE_SHARE,
    USEFUL_LIFE_MONTHS,
    residual_at,
)
from advisor.market.prices import PriceBook
from advisor.planning.advice import Advice
from advisor.planning.checklist import pilot_gpus
from advisor.planning.engine_inputs import model_shape
from advisor.planning.rent import DAYS_PER_MONTH
from advisor.request.parser import REASONING_ZH, RL_STEP_MULTIPLE

GIB = 2**30

# Which question a message asks, first match wins.
ASKED = (
    (
        "inference",
        REASONING_ZH
        + r"|部署|上线服务|\binference\b|\bserv(?:e|ing)\b.{0,30}\b(?:model|it|users?|requests?|traffic|gpus?)"
        r"|\bdeploy\w*",
    ),
    # (the names beside Chinese: "做GRPO，" has no word boundary)
    ("rl", r"(?<![a-z])(?:grpo|ppo|rlhf|rloo|dapo)(?![a-z])|reinforcement learning|强化学习|\brollouts?\b"),
    (
        "circuit",
        r"(?<![\d.])(?:110|120|220|230|240)\s*v(?![a-z])|单相|民用电|(?:普通|家用|墙上的?)插座"
        r"|\b(?:wall|household) (?:socket|outlet|circuit)",
    ),
    # whether the servers can stand in the team's own room ("能不能放在实验室", "噪音大不大 能放办公室吗",
    # "can it go in our lab?"): their heat, the circuits and the sound level to ask for (had been
    # refused as not understood)
    (
        "room",
        # (a rack that holds them is the servers' racks: "一个机柜放得下吗")
        # (data put somewhere is storage, not the room: "数据放对象存储行不行" had been the servers' heat)
        r"(?:能不能|能否|可不可以|可以|行不行|适合)\s*(?:放|搁|摆)(?!\S{0,3}(?:存储|oss|s3|nas|硬盘|云盘|网盘))"
        r"|(?<!机柜)(?<!数据)(?<!文件)(?<!模型)(?<!权重)(?:放|搁|摆)(?:在)?(?!\S{0,3}(?:存储|oss|s3|nas|硬盘|云盘|网盘))"
        r"\S{0,6}(?:吗|行吗|可以吗|行不行)"
        r"|噪音|噪声|吵不吵|吵吗|很吵|\bnois[ey]\b|\bloud\b"
        r"|\b(?:can|could)\s+(?:it|we|they|this|these|the servers?|the box)"
        r"\s+(?:go|sit|stay|run|live|be put|be kept)\s+in\b"
        # "do we need a datacenter or can we use our office?", "需要机房吗，放办公室行吗"
        r"|\b(?:can|could)\s+(?:we|i)\s+(?:use|keep (?:it|them) in)\s+(?:our|the|an?)\s+"
        r"(?:office|lab|room|basement|server closet|closet)\b"
        r"|\bdo\s+(?:we|i)\s+need\s+(?:a\s+)?(?:data\s?cent(?:er|re)|dc|colo\w*)\b|需要机房吗|要不要机房|非得放机房"
        # where bought servers go ("买了之后放哪里", "where do we put the servers?")
        r"|(?:买|购)\S{0,6}放(?:在)?(?:哪|什么地方)"
        r"|\bwhere\s+(?:do|would|should|can)\s+(?:we|i)\s+(?:put|keep|host|house)\s+(?:them|the servers?|it)\b"
        # "can we host this in our office?", "what UPS do we need?": the room and what feeds it
        r"|\b(?:can|could)\s+(?:we|i)\s+(?:host|house|run|put|keep)\s+(?:it|this|them|these|the servers?|the cluster)"
        r"\s+(?:in|at)\s+(?:our|the|an?)\s+(?:office|lab|room|basement|server closet|closet|building)\b"
        r"|(?<![a-z])ups(?![a-z])|不间断电源|\bgenerator\b|发电机",
    ),
    (
        "hosting",
        # (the colo asking for the servers' power draw, "power draw total? colo wants a number", is the
        # servers' kW, not the colo's price)
        r"^(?!.*\b(?:power draw|draw|wattage)\b|.*(?:功耗|用电量))"
        r"(?:.*?)(?:\bcolo(?:cation)?\b|托管费|托管价|机房托管|\bhosting (?:price|cost|rate|fee)"
        r"|power price|electricity price"
        r"|price of (?:power|electricity)|电价|电费单价|电费多少钱一度|\bper kwh\b|每度电)",
    ),
    (
        "depreciation",
        r"depreciat\w*|折旧|残值|residual value|resale value|worth after|finance the servers|融资租赁|分期"
        r"|(?:还|能|可以)(?:能)?卖(?:多少|几)|卖(?:多少|几)(?:钱|万)|转手|二手(?:价|能卖)|回收价"
        r"|\bsell (?:them|it) for\b|\bresell\w*\b|\bresale\b"
        # financing the purchase ("can we do lease-to-own or pay in installments")
        r"|\blease[\s\-]to[\s\-]own\b|\binstal?lments?\b|\bfinanc(?:e|ing)\b|\bloan\b|贷款",
    ),
    # (the MFU asked alone, "what's the MFU?", is the time section's figure)
    (
        "mfu",
        r"\bmfu\b.{0,40}\b(?:why|mean\w*|high|low|define|definition)\b|\b(?:why|how come)\b.{0,30}\bmfu\b"
        r"|mfu.{0,12}(?:为什么|是什么|什么意思|怎么这么|偏低|偏高|这么低|这么高|太高|太低|高了|低了|靠谱|现实)|(?:为什么|为啥).{0,12}mfu"
        r"|\bmfu\b.{0,25}\b(?:too (?:high|low)|realistic|optimistic|believable)\b",
    ),
    (
        "time_includes",
        r"(?:时间|时长|天数|工期|这个数|小时|天)\S{0,8}(?:包括|包含|算上|算了|含|考虑)了?\S{0,6}(?:评测|评估|测评|eval|验证|数据处理|预处理)"
        r"|(?:包括|包含|算上|算了|含)了?\S{0,4}(?:评测|评估|测评|eval|验证)"
        r"|\b(?:include|includes|including|count|counts|cover|covers)\b.{0,30}\b(?:eval\w*|validation|benchmark\w*"
        r"|preprocess\w*|tokeni[sz]\w*|data prep\w*)"
        # failures allowed for ("do you account for failures?", "时间算了故障吗": they had drawn the menu)
        r"|\b(?:account\w*|allow\w*|factor\w*|budget\w*)\s+(?:for\s+|in\s+)?(?:gpu\s+|node\s+|hardware\s+)?"
        r"(?:failures?|restarts?|interruptions?|downtime|crashes)\b"
        r"|\b(?:failures?|restarts?|downtime|interruptions?)\b.{0,20}\b(?:included|counted|accounted|factored)\b"
        r"|(?:算|考虑|包含|包括|算上)了?(?:故障|中断|重启|宕机|掉卡)",
    ),
    (
        "hidden_costs",
        r"hidden (?:costs?|fees?)|extra (?:costs?|fees?)|other costs|costs? (?:we|i) (?:miss|forgot)"
        # what the price holds ("what's included in the price?", "is there a setup fee?", "价格包含哪些"; the menu,
        # or the small-budget topic, had answered)
        r"|\bwhat(?:'s| is) included\b|\bincluded in the (?:price|cost|quote|rent)\b"
        r"|\b(?:setup|set-up|installation|onboarding|activation) fees?\b|开通费|安装费|初装费"
        r"|(?:价格|报价|租金|费用)(?:里)?(?:都)?(?:包含|包括|含)(?:了)?(?:哪些|什么)"
        # the data moved out ("how much egress will we pay?"): what the costs leave unpriced
        r"|\begress\b|出口流量|流量费"
        r"|隐藏(?:的)?(?:成本|费用)|隐性(?:成本|费用)|额外(?:的)?(?:费用|成本|开销)|其他(?:的)?(?:费用|成本|开销)|还有(?:哪些|什么)(?:费用|成本|开销|钱)"
        # (which switch, "交换机要什么样的", is the servers' network line)
        r"|network (?:gear|equipment|hardware)|switch(?:es)? and optics"
        # (whether a switch is needed, "要不要买InfiniBand交换机", is the network's too: a switch's cost is this)
        r"|交换机.{0,8}(?:多少钱|费用|成本|价格|贵)|(?:多少钱|费用|成本|价格).{0,8}交换机|光模块|网络设备"
        # what owning costs to run ("买的话电费和机柜要多少", "running costs if we buy?"): its power,
        # hosting and upkeep a year (had been the buy what-if, with none of them)
        r"|running (?:costs?|expenses?)|opex\b"
        r"|运行(?:成本|费用)|运营(?:成本|费用)|电费.{0,4}(?:和|跟|与|、|及|加)?.{0,2}(?:机柜|托管|机房)|(?:机柜|托管).{0,4}(?:和|跟|与|、|及|加)?.{0,2}电费"
        # the power in the price asked ("does the price include electricity?", "这个价格含电费吗": the costs
        # alone had answered, saying nothing of power)
        r"|\b(?:include|includes|including|cover|covers)\b.{0,25}\b(?:electricity|power)\b"
        r"|\b(?:electricity|power)\b.{0,20}\b(?:included|extra|separate|on top)\b"
        r"|(?:含|包含|包括|算了|算上|带)\s*电费|电费.{0,6}(?:另算|另外|单独|包含|含在|包括|算进)",
    ),
    # "how many steps is that?", "训练多少步": the plan's optimizer steps from its batch
    (
        "steps",
        r"\bhow many (?:optimi[sz]er |training |gradient |update )?(?:steps|iterations|iters|updates)\b"
        r"|\b(?:number of|total|count of) (?:optimi[sz]er |training )?(?:steps|iterations)\b"
        r"|(?:多少|几)(?:个)?(?:步|step|steps|iteration|iter)\b|步数(?:是|有)?多少|(?:训练|优化器)?步数|总步数|多少轮迭代",
    ),
    (
        "odd_count",
        r"偶数|奇数|\bodd (?:number|count)\b|\beven number\b|power of (?:2|two)|2的(?:幂|倍数|次方)"
        r"|\b(?:3|5|7|9|three|five|seven) (?:gpus|cards)\b.{0,25}(?:ok|okay|work|possible|fine|enough)\b",
    ),
)

# Serving (assumed, said as such): sequences of SERVE_CONTEXT tokens, SERVE_CONCURRENCY at once, and
# vLLM's default share of each GPU's memory for weights and cache (`gpu_memory_utilization` 0.9,
# vLLM engine arguments).
SERVE_CONTEXT = 8192
SERVE_CONCURRENCY = 16
SERVE_MEMORY_SHARE = 0.9
# bf16 weights and cache: 2 bytes an element
BF16 = 2

# Tokens in flight a GRPO rollout batch holds in its KV cache, as a unit of the reply (assumed:
# e.g. 64 completions of 1,500 tokens; the reply scales per 100k)
ROLLOUT_TOKENS = 100_000

# A wall circuit: volts x amps, held to 80% for a load that runs for hours (the US NEC's rule for
# continuous loads, 210.19(A) and 210.20(A): the circuit rated at 125% of the continuous load;
# taken here for any single-phase circuit, assumed). Mainland China's sockets and plugs are rated
# 10 A and 16 A (GB/T 2099.1, GB/T 1002).
CIRCUIT_AMPS = (10, 16)
CONTINUOUS_SHARE = 0.8
# A three-phase feed at 380 V (line to line) 32 A, for a server past a wall circuit: sqrt(3) x V x A
THREE_PHASE = (380, 32)

# The places a hosting or power price may be asked for, as the regions on record may name them
PLACES = (
    ("Europe", r"europe|\beu\b|frankfurt|london|amsterdam|paris|dublin|germany|\buk\b|nordic|欧洲|德国|英国|法国|荷兰"),
    ("US", r"\bus\b|\busa\b|america|virginia|美国"),
    ("Hong Kong", r"hong kong|香港"),
    ("CN", r"china|mainland|国内|中国"),
)


def asked(message: str) -> str | None:
    """Which of these questions a message asks, if any."""
    return next((what for what, words in ASKED if re.search(words, message or "", re.I)), None)


def _kv_bytes_per_token(m) -> float:
    """KV cache bytes a token holds over all layers in bf16: K and V, each KV head's head_dim per
    layer (2 x layers x kv_heads x head_dim x 2 bytes); under multi-head latent attention the
    compressed latent and the decoupled RoPE key per layer (DeepSeek-V2, section 2.1.3). A hybrid's
    linear-attention layers keep a state of fixed size a sequence instead, not counted."""
    if m.mla_kv_lora_rank:
        return m.layers * (m.mla_kv_lora_rank + m.mla_qk_rope_head_dim) * BF16
    return 2 * (m.layers - m.linear_attention_layers) * m.kv_heads * m.head_dim * BF16


def _serving_gpus(m, gpu, gib: float) -> tuple[int, int | None]:
    """GPUs that hold `gib` of weights and cache at SERVE_MEMORY_SHARE of each: a tensor parallel
    degree vLLM runs (a power of two that divides the heads), else whole servers (pipeline across
    them); the servers, or None within one."""
    need = math.ceil(gib / (gpu.usable_memory_gib * SERVE_MEMORY_SHARE))
    gpus = next((n for n in (1, 2, 4, 8) if n >= need and m.heads % n == 0 and n <= gpu.gpus_per_server), None)
    if gpus is not None:
        return gpus, None
    servers = math.ceil(need / max(1, gpu.gpus_per_server))
    return servers * max(1, gpu.gpus_per_server), servers


def _sized(m, gpu, context: int, concurrency: int) -> dict:
    """Serving `m` on `gpu`: bf16 weights plus the KV cache of `concurrency` sequences of `context`
    tokens, over SERVE_MEMORY_SHARE of each GPU, rounded up to a tensor parallel degree that divides
    the attention heads (else whole servers)."""
    weights = m.params_b * 1e9 * BF16 / GIB
    kv_token = _kv_bytes_per_token(m)
    kv = kv_token * context * concurrency / GIB
    gpus, servers = _serving_gpus(m, gpu, weights + kv)
    return {
        "gpu": gpu.name,
        "params_b": m.params_b,
        "weights_gib": weights,
        "kv_kib_per_token": kv_token / 1024,
        "context": context,
        "concurrency": concurrency,
        "kv_gib": kv,
        "per_gpu_gib": gpu.usable_memory_gib * SERVE_MEMORY_SHARE,
        "share": SERVE_MEMORY_SHARE,
        "gpus": gpus,
        "servers": servers,
        "moe": bool(m.moe_experts),
        "active_b": m.active_params_b,
    }


def inference(result: Advice) -> dict | None:
    """A rough serving size on the plan's GPU (`_sized`) at SERVE_CONCURRENCY sequences of
    SERVE_CONTEXT tokens, beside the GPUs the training uses."""
    p = result.plan
    if p is None:
        return None
    sized = _sized(model_shape(result.request), catalog.get_gpu(p.gpu), SERVE_CONTEXT, SERVE_CONCURRENCY)
    return sized | {"train_gpus": p.estimate.layout.gpu_count}


# A serving load said in a first message ("for 100 concurrent users", "200并发", "32k context",
# "上下文32k"): its concurrency and its context length in tokens
LOAD_USERS = re.compile(
    r"(\d[\d,]*)\s*(?:concurrent|simultaneous|parallel|active)?\s*(?:users|requests|sessions|reqs)\b"
    r"|(\d[\d,]*)\s*(?:路)?(?:并发|个?用户|个?请求)|(?:并发|concurrency(?:\s+of)?)\s*(\d[\d,]*)",
    re.I,
)
LOAD_CONTEXT = re.compile(
    r"(\d+)\s*k\s*(?:context|ctx|tokens?|上下文|长度)|(?:上下文|context|ctx)\s*(?:长度|length|of)?\s*(\d+)\s*k",
    re.I,
)
# The GPU a serving guess is made on when none is named: H100 abroad; H20 in mainland China, the
# part sold there for serving (96 GB at 4.0 TB/s, data/gpus.toml)
SERVE_GPU = {"en": "H100-SXM5-80GB", "zh": "H20-96GB"}


def _said_number(pattern: re.Pattern, message: str) -> int | None:
    m = pattern.search(message)
    digits = next((g for g in m.groups() if g), None) if m else None
    return int(digits.replace(",", "")) if digits else None


def serving(message: str, model, gpu_name: str | None, lang: str) -> dict:
    """A rough serving size for a model named in a first message ("how many GPUs to serve qwen3-32b
    for 100 users?"), as `inference` sizes it on a plan's GPU (`_sized`): at the load said, else
    SERVE_CONCURRENCY sequences of SERVE_CONTEXT tokens; on the GPU named, else SERVE_GPU; with the
    count for FP8 weights (half the bytes) and the decode bound of one request (every active weight
    read once a token, so at most the tensor-parallel GPUs' memory bandwidth over those bytes;
    MosaicML's LLM inference guide, databricks.com 2023, on memory-bound decoding)."""
    gpu = catalog.get_gpu(gpu_name or SERVE_GPU.get(lang, SERVE_GPU["en"]))
    users = _said_number(LOAD_USERS, message)
    context_k = _said_number(LOAD_CONTEXT, message)
    sized = _sized(model, gpu, context_k * 1024 if context_k else SERVE_CONTEXT, users or SERVE_CONCURRENCY)
    gpus_fp8, _ = _serving_gpus(model, gpu, sized["weights_gib"] / 2 + sized["kv_gib"])
    active = model.active_params_b or model.params_b
    return sized | {
        "model": model.name,
        "active_b": active,
        "context_said": context_k is not None,
        "concurrency_said": users is not None,
        "gpus_fp8": gpus_fp8,
        # one token passes the pipeline's stages in turn, each reading its share at its tensor
        # parallel group's bandwidth: the group within a server sets the bound
        "decode_tokens_s": min(sized["gpus"], gpu.gpus_per_server) * gpu.memory_bw_tb_s * 1e12 / (active * 1e9 * BF16),
    }


def rl(result: Advice) -> dict | None:
    """What GRPO/PPO add to the plan's GPUs: the reference model (the weights as the plan shards
    them; none with adapters, the base with the adapter off), the rollout engine's bf16 weights at
    the plan's tensor degree, and the KV cache per ROLLOUT_TOKENS tokens in flight."""
    p = result.plan
    if p is None:
        return None
    e = p.estimate
    m = model_shape(result.request)
    peft = result.request.method in ("lora", "qlora")
    tp = max(1, e.layout.tp)
    rollout_weights = m.params_b * 1e9 * BF16 / tp / GIB
    kv = _kv_bytes_per_token(m) * ROLLOUT_TOKENS / tp / GIB
    free = max(0.0, e.usable_gib - e.memory.total)
    gpu = catalog.get_gpu(p.gpu)
    separate, _ = _serving_gpus(m, gpu, (m.params_b * 1e9 * BF16 + _kv_bytes_per_token(m) * ROLLOUT_TOKENS) / GIB)
    return {
        "gpu": p.gpu,
        "count": e.layout.gpu_count,
        "memory": e.memory.total,
        "usable": e.usable_gib,
        "free": free,
        "peft": peft,
        "reference": 0.0 if peft else e.memory.weights,
        "tp": tp,
        "rollout_weights": rollout_weights,
        "rollout_tokens": ROLLOUT_TOKENS,
        "kv": kv,
        "colocated": rollout_weights + kv + (0.0 if peft else e.memory.weights),
        "fits": rollout_weights + kv + (0.0 if peft else e.memory.weights) <= free,
        "separate_gpus": separate,
        # a whole step against its training pass, on NVIDIA's published GRPO runs (parser.RL_STEP_MULTIPLE)
        "multiple": RL_STEP_MULTIPLE["moe" if m.active_params_b < m.params_b else "dense"],
    }


def _place(message: str) -> str | None:
    return next((name for name, words in PLACES if re.search(words, message or "", re.I)), None)


def _region_matches(region: str, place: str) -> bool:
    words = dict(PLACES)[place]
    return bool(re.search(words, region or "", re.I)) or region.lower() == place.lower()


def hosting(result: Advice, book: PriceBook, message: str) -> dict | None:
    """The electricity and hosting prices the plan's owning figures use, with their sources, and
    for a place asked about the offers on record there (none: said, with the regions that are)."""
    p = result.plan
    if p is None:
        return None
    c = p.costs
    sources = {s["role"]: s for s in c.price_sources}
    place = _place(message)
    everywhere = {
        kind: [o for m in ("china", "global") for o in book.offers(kind, "", m)] for kind in ("hosting", "electricity")
    }
    there = (
        {kind: [o for o in offers if _region_matches(o.region, place)] for kind, offers in everywhere.items()}
        if place
        else {}
    )
    kw = (p.infra.power_kw_per_node if p.infra else 0) * max(1, p.estimate.layout.nodes)
    return {
        "currency": c.currency,
        "electricity": sources.get("electricity"),
        "hosting": sources.get("hosting"),
        "pue": c.pue,
        "utilisation": c.owned_utilisation,
        "power_year": c.power_cost_year,
        "hosting_year": c.hosting_cost_year,
        "kw": kw,
        "place": place,
        "there": there,
        "hosting_regions": sorted({o.region for o in everywhere["hosting"] if o.region}),
        "power_regions": sorted({o.region for o in everywhere["electricity"] if o.region}),
    }


def mfu(result: Advice) -> dict | None:
    """The plan's MFU and its causes: the kernels' efficiency on one GPU, then the step's shares
    that are not compute (the pipeline bubble, communication left exposed, offload copies), and
    recompute, which runs FLOPs MFU does not count."""
    p = result.plan
    if p is None:
        return None
    t = p.estimate.throughput
    step = t.step
    gpu = catalog.get_gpu(p.gpu)
    total = step.get("step_s") or 0.0

    def share(key: str) -> float:
        return step.get(key, 0.0) / total if total else 0.0

    # the peak MFU is over: the precision the GPU runs the matrix multiplies in (FP8's for an FP8
    # plan), and the same speed over BF16's, the basis the FAQ and most published runs quote
    precision = p.estimate.precision
    peak = gpu.peak_tflops(precision)
    bf16 = gpu.peak_tflops("bf16")
    return {
        "gpu": p.gpu,
        "mfu": t.mfu,
        "peak": peak,
        "fp8": precision == "fp8" and peak != bf16,
        "mfu_bf16": t.mfu * peak / bf16 if bf16 else None,
        "hfu": t.hfu,
        "tokens_per_s": t.tokens_per_s_per_gpu,
        "model_gflop": t.model_flops_per_token / 1e9,
        "hardware_gflop": t.hardware_flops_per_token / 1e9,
        "node": t.efficiency.get("node"),
        "compute": share("compute_s"),
        "bubble": share("bubble_s"),
        "exposed": share("exposed_s"),
        "offload": share("offload_s"),
        "launch": share("launch_s"),
        "recompute": 1 - t.model_flops_per_token / t.hardware_flops_per_token if t.hardware_flops_per_token else 0.0,
        "consumer": bool(gpu.consumer),
        "count": p.estimate.layout.gpu_count,
        # peak FLOPs per byte of memory bandwidth, against an H100's: a card with little compute
        # for its bandwidth (H20: 37 against 295) runs its matmuls closer to peak
        "flops_per_byte": _flops_per_byte(gpu),
        "h100_flops_per_byte": _flops_per_byte(catalog.get_gpu("H100-SXM5-80GB")),
    }


def _flops_per_byte(gpu) -> float | None:
    peak = gpu.bf16_dense_tflops or gpu.fp16_dense_tflops
    return peak / gpu.memory_bw_tb_s if peak and gpu.memory_bw_tb_s else None


def depreciation(result: Advice, message: str) -> dict | None:
    """The resale value the plan's buy figures use (owning.resale_share), and what the
    servers are worth after the years asked (three when none is said)."""
    p = result.plan
    if p is None or not p.costs.buy_capex:
        return None
    c = p.costs
    found = re.search(r"(\d+(?:\.\d+)?)\s*(?:-|\s)?(?:(?P<y>years?|yrs?|年)|months?|个月)", message or "", re.I)
    years = (float(found[1]) if found["y"] else float(found[1]) / 12) if found else 3.0
    life = USEFUL_LIFE_MONTHS[0]
    return {
        "currency": c.currency,
        "capex": c.buy_capex,
        "life_months": life,
        "life_high_months": USEFUL_LIFE_MONTHS[1],
        "residual_share": RESIDUAL_SHARE,
        "used_share": USED_RESALE_SHARE,
        "per_month": c.buy_capex * (1 - RESIDUAL_SHARE) / life,
        "years": years,
        "worth": residual_at(c.buy_capex, years * 12),
        "worth_share": residual_at(1.0, years * 12),
        "decision": c.decision,
        "breakeven": c.breakeven_months,
    }


def circuit(result: Advice, message: str) -> dict | None:
    """A single-phase circuit at the volts asked (220 V when none is said) at 10 A and 16 A,
    against the plan's draw: per server (or workstation) and in all."""
    p = result.plan
    if p is None or not p.infra:
        return None
    found = re.search(r"(?<![\d.])(\d{3})\s*v(?![a-z])", message or "", re.I)
    volts = int(found[1]) if found else 220
    per_node = p.infra.power_kw_per_node
    nodes = max(1, p.estimate.layout.nodes)
    circuits = [
        {
            "amps": a,
            "kw": volts * a / 1000,
            "continuous": volts * a * CONTINUOUS_SHARE / 1000,
            "needed": math.ceil(per_node * nodes / (volts * a * CONTINUOUS_SHARE / 1000)),
        }
        for a in CIRCUIT_AMPS
    ]
    v3, a3 = THREE_PHASE
    return {
        "volts": volts,
        "per_node": per_node,
        "nodes": nodes,
        "total": per_node * nodes,
        "workstation": bool(p.infra.reasons.get("power", {}).get("workstation")),
        "circuits": circuits,
        "share": CONTINUOUS_SHARE,
        "three_phase": {"volts": v3, "amps": a3, "kw": math.sqrt(3) * v3 * a3 / 1000},
    }


# 1 kW of heat is 3,412 BTU an hour (1 W = 3.412 BTU/h, the definition of the BTU): all of a
# server's draw leaves it as heat the room must remove.
BTU_PER_KW_HOUR = 3412
# A UPS for the servers ("what UPS do we need?"): large commercial UPSs are rated at a power factor of
# 0.9, so their kVA carries 0.9 kW (TechTarget, "How do I size a UPS unit?"); loaded to about 80% of
# its rating (xinitsystems.com, "UPS Systems Sizing": 80% the optimum loading). Both a rule of thumb.
UPS_POWER_FACTOR = 0.9
UPS_LOADING = 0.8
UPS_ASKED = re.compile(r"(?<![a-z])ups(?![a-z])|不间断电源", re.I)


def room(result: Advice, message: str) -> dict | None:
    """Whether the plan's servers can stand in the team's own room: their draw, all of it heat the
    room must remove (kW and BTU/h), and the circuits (`circuit`); None without a plan."""
    data = circuit(result, message)
    if data is None:
        return None
    ups = data["total"] / UPS_POWER_FACTOR / UPS_LOADING if UPS_ASKED.search(message or "") else None
    return data | {
        "btu": data["total"] * BTU_PER_KW_HOUR,
        "own_room": result.request.own_room,
        "ups_kva": ups,
        "ups": {"pf": UPS_POWER_FACTOR, "loading": UPS_LOADING},
    }


def odd_count(result: Advice, count: int, on_count) -> dict | None:
    """What `count` GPUs allow: data parallel (ZeRO, FSDP) on any count; tensor parallel only where
    the count divides the attention and KV heads (Megatron-Core and vLLM require it); pipeline
    stages where it divides the layers (an uneven split needs the framework's own option). With
    `on_count`, the plan on that many of the plan's GPUs."""
    p = result.plan
    if p is None:
        return None
    m = model_shape(result.request)
    lay = p.estimate.layout
    return {
        "count": count,
        "gpu": p.gpu,
        "heads": m.heads,
        "kv_heads": m.kv_heads,
        "layers": m.layers,
        "tp_ok": m.heads % count == 0 and m.kv_heads % count == 0,
        "pp_ok": m.layers % count == 0,
        "plan_count": lay.gpu_count,
        "plan_tp": lay.tp,
        "plan_pp": lay.pp,
        "plan_dp": lay.dp,
        "zero": lay.zero_stage,
        "on": None
        if on_count is None
        else {
            "count": on_count.estimate.layout.gpu_count,
            "tp": on_count.estimate.layout.tp,
            "pp": on_count.estimate.layout.pp,
            "dp": on_count.estimate.layout.dp,
            "zero": on_count.estimate.layout.zero_stage,
            "days": on_count.days,
            "rent": on_count.rent,
            "currency": on_count.costs.currency,
            "fits": on_count.estimate.fits,
            "memory": on_count.estimate.memory.total,
            "usable": on_count.estimate.usable_gib,
        },
    }


# A training step is 6 FLOPs a parameter and token, 2 of them the forward (Kaplan et al. 2020,
# Sec 2.1: C = 6N); a frozen base (LoRA, QLoRA) computes no weight gradients, 4. Evaluation is the
# forward alone, on an example set of EVAL_SHARE of each epoch's tokens (assumed).
STEP_FLOPS, STEP_FLOPS_FROZEN, FORWARD_FLOPS = 6, 4, 2
EVAL_SHARE = 0.01


def time_includes(result: Advice) -> dict | None:
    """What the plan's time covers: the tokens at the planned speed, the failures and checkpoint
    writes its goodput adds; and evaluation sized from the same speed (a forward pass)."""
    p, req = result.plan, result.request
    if not p.days or not req.tokens:
        return None
    thr, lay = p.estimate.throughput, p.estimate.layout
    note = next((n for n in thr.notes if n.get("kind") == "goodput"), {})
    speed = thr.tokens_per_s_per_gpu * lay.gpu_count  # tokens a second, all GPUs
    epochs = max(1.0, req.epochs or 1)
    eval_tokens = req.tokens / epochs * EVAL_SHARE
    step = STEP_FLOPS_FROZEN if req.is_peft else STEP_FLOPS
    pilot = result.pilot()
    return {
        "days": p.days,
        "tokens": req.tokens,
        "speed": thr.tokens_per_s_per_gpu,
        "count": lay.gpu_count,
        "gpu": p.gpu,
        "lost": 1 / thr.goodput - 1,
        "failures_per_day": note.get("failures_per_day", 0.0),
        "hours_lost": HOURS_LOST_PER_FAILURE,
        "checkpoint_share": CHECKPOINT_OVERHEAD,
        "eval_share": EVAL_SHARE,
        "epochs": epochs,
        "step_flops": step,
        "eval_days": epochs * eval_tokens * FORWARD_FLOPS / step / speed / 86400,
        "pilot_hours": pilot["params"]["hours"] if pilot and pilot["code"] == "pilot" else None,
    }


def steps(result: Advice) -> dict | None:
    """The plan's optimizer steps: its tokens over the tokens a step takes (the global batch of
    sequences, each of the sequence length), and what one step is made of and takes."""
    p, req = result.plan, result.request
    lay, thr = p.estimate.layout, p.estimate.throughput
    if not req.tokens or not lay.global_batch or not thr.step.get("step_s"):
        return None
    batch_tokens = lay.global_batch * req.seq_len
    total = math.ceil(req.tokens / batch_tokens)
    epochs = max(1.0, req.epochs or 1)
    return {
        "steps": total,
        "tokens": req.tokens,
        "epochs": epochs,
        "per_epoch": math.ceil(total / epochs),
        "batch": lay.global_batch,
        "seq": req.seq_len,
        "batch_tokens": batch_tokens,
        "dp": lay.dp,
        "accum": lay.microbatches_per_step,
        "mbs": lay.micro_batch,
        "step_s": thr.step["step_s"],
    }


def hidden_costs(result: Advice) -> dict | None:
    """Besides the GPUs' rent: the storage the rent total holds, the idle part of a lease's billed
    months, the pilot at the plan's own rate; besides the servers' price: the cluster's network and
    storage share, power, hosting and upkeep, against the guides' rule; what neither holds is said."""
    p = result.plan
    c, lay = p.costs, p.estimate.layout
    term = c.rent_term or {}
    idle = None
    if c.rent_option == "monthly" and c.rent_monthly_total and term.get("months_paid") and p.days:
        used = p.days / (term["months_paid"] * DAYS_PER_MONTH)
        idle = (c.rent_monthly_total) * max(0.0, 1 - used)
    pilot = result.pilot()
    pilot = pilot if pilot and pilot["code"] == "pilot" else None
    rate = c.rent_per_gpu_hour
    servers = c.buy_servers or 0
    extra = None
    if c.buy_capex and servers > 1:
        extra = (c.buy_capex - (c.buy_host_ram_cost or 0)) * CLUSTER_EXTRA / (1 + CLUSTER_EXTRA)
    return {
        "currency": c.currency,
        "rent": c.rent_total,
        "storage": c.storage_total,
        "storage_tb": c.storage_tb,
        "idle": idle,
        "months_paid": term.get("months_paid"),
        "days": p.days,
        "pilot_hours": pilot["params"]["hours"] if pilot else None,
        # as a thread's pilot lead prices it: one or two servers (checklist.pilot_gpus) at the checklist's
        # hours (the whole cluster had been priced here, and the lead at unrounded hours: ¥142 against ¥145)
        "pilot_gpus": pilot_gpus(lay),
        "gpu_count": lay.gpu_count,
        "pilot_cost": pilot["params"]["hours"] * pilot_gpus(lay) * rate
        if pilot and rate and c.rent_option == "hourly"
        else None,
        "capex": c.buy_capex,
        "extra": extra,
        "extra_share": CLUSTER_EXTRA,
        "power": c.power_cost_year,
        "hosting": c.hosting_cost_year,
        "ops_share": c.ops_share,
        "tco": c.buy_tco_first_year,
        "rule": c.guide_tco_range,
    }
