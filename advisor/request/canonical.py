"""A parsed request written back as a request: in its own language (Chinese when it was
written as Chinese prose), with only the fields the user gave, numbers as people type them
(`预算100万`, `budget ¥1.2M`, `5万条`, `300B tokens`), so that parsing it again with the same
reply language gives the same request (tests/test_canonical.py).

The Re-plan form is pre-filled from it (bot/forms.py), and a what-if re-reads it.
"""

from __future__ import annotations

from collections.abc import Callable

from advisor import catalog
from advisor.request.model import TrainingRequest
from advisor.request.parser import SCALE, chinese_prose

# Units a number may be written with, largest first, as the parser reads each kind: the first
# that writes it exactly in few digits wins (1,200,000 -> 1.2M, 120万; 1,234,567 -> 1234567).
ZH_UNITS = (("万亿", 1e12), ("亿", 1e8), ("万", 1e4), ("", 1))
SIZE_UNITS = (("B", 1e9),)
TOKEN_UNITS = (("T", 1e12), ("B", 1e9), ("M", 1e6), ("k", 1e3), ("", 1))
SAMPLE_UNITS = (("M", 1e6), ("k", 1e3), ("", 1))
BUDGET_UNITS = (("B", 1e9), ("M", 1e6), ("k", 1e3), ("", 1))
BYTE_UNITS = (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6))
# A deadline: days as people type them, else months, weeks or hours where days are not whole.
EN_TIME = (("d", 1), ("mo", 30), ("w", 7), ("h", 1 / 24))
ZH_TIME = (("天", 1), ("个月", 30), ("周", 7), ("小时", 1 / 24))
ZH_DEGREES = {
    "tp": "张量并行",
    "pp": "流水线并行",
    "ep": "专家并行",
    "vpp": "虚拟流水线并行",
    "cp": "上下文并行",
    "dp": "数据并行",
}
EN_DEGREES = {"ep": "expert parallel "}
CITIES_ZH = {
    "shenzhen": "深圳",
    "chengdu": "成都",
    "beijing": "北京",
    "shanghai": "上海",
    "guangzhou": "广州",
    "hangzhou": "杭州",
}


def written(guess: float, back: Callable[[str], float], value: float) -> str | None:
    """The shortest decimal of `guess` that `back` (the parser's arithmetic) reads as `value`."""
    for digits in range(13):
        text = f"{guess:.{digits}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        if back(text) == value:
            return text
    return None


def exact(value: float) -> str:
    """`value` as the shortest decimal that reads back as it (repr when none of 12 decimals does)."""
    return written(value, float, value) or repr(value)


def scaled(value: float, units, scale_of: Callable[[str], float], times: float = 1, decimals: int = 3) -> str:
    """`value` in the largest unit that writes it exactly with at most `decimals` decimals:
    `scale_of(suffix)` is the factor the parser applies to that suffix, `times` what it divides
    by after (a model size is read in units of 1e9)."""
    for suffix, size in units:
        if abs(value) * times < size and (suffix, size) != units[-1]:
            continue
        factor = scale_of(suffix)
        text = written(value * times / size, lambda s, f=factor: float(s) * f / times, value)
        if text is not None and len(text.partition(".")[2]) <= decimals:
            return text + suffix
    return written(value * times, lambda s: float(s) / times, value) or exact(value * times)


def _si(suffix: str) -> float:
    return SCALE[suffix.lower()]


def _bytes(suffix: str) -> float:
    return {"P": 1e15, "T": 1e12, "G": 1e9, "M": 1e6}[suffix[0]]


def _deadline(days: float, zh: bool) -> str:
    for suffix, size in ZH_TIME if zh else EN_TIME:
        count = written(days / size, lambda s, f=size: float(s) * f, days)
        if count is not None and len(count.partition(".")[2]) <= 2:
            return count + suffix
    return exact(days) + ("天" if zh else "d")


def language(request: TrainingRequest) -> str:
    """The language a request is written back in: the one it was written in."""
    if request.text:
        return "zh" if chinese_prose(request.text) else "en"
    return request.lang


def canonical(request: TrainingRequest) -> str:
    """The request as one line of the request language (request.canonical in the JSON)."""
    zh = language(request) == "zh"
    words = []
    for group, text in parts(request):
        words.append(("预算" if zh else "budget ") + text if group == "budget" else text)
    return " ".join(words)


def _prose_language(r: TrainingRequest, written: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Cleaned text read as Chinese because the request was Chinese prose stays Chinese when
    the words written back are too few to be prose: then its language is said."""
    d = r.data
    basis = next((n.params.get("basis") for n in r.assumptions if n.code == "bytes_per_token"), None)
    if basis == "prose" and not chinese_prose(" ".join(text for _, text in written)):
        at = max(i for i, (group, _) in enumerate(written) if group == "data")
        written.insert(at + 1, ("data", data_language(d.language, True)))
    return written


def parts(request: TrainingRequest) -> list[tuple[str, str]]:
    """The canonical request in parts, each with the form field it fills (bot/forms.py): model,
    method, data, deadline, budget (the amount alone), gpu, lang, or other; in reading order."""
    r = request
    zh = language(r) == "zh"
    given = set(r.user_set)
    out: list[tuple[str, str]] = []

    def add(group: str, text: str) -> None:
        out.append((group, text))

    def size(value: float) -> str:
        return scaled(value, SIZE_UNITS, _si, times=1e9)

    # the model
    if "model" in given:
        add("model", r.model)
    elif "params_b" in given:
        total = size(r.params_b)
        sized = f"{total}-A{size(r.active_params_b)}" if "active_params_b" in given else total
        named = [n.params["model"] for n in r.assumptions if n.code in ("unknown_model", "unknown_moe_model")]
        add("model", f"{named[0]}-{sized}" if named else sized)
    elif "active_params_b" in given:
        add("model", ("激活" if zh else "active ") + size(r.active_params_b))

    # the method; the rank first, as `lora r=8` reads as a rank alone
    if "lora_rank" in given:
        add("other", f"秩{r.lora_rank}" if zh else f"r={r.lora_rank}")
    if "method" in given:
        add(
            "method",
            {
                "pretrain": "预训练" if zh else "pretrain",
                "continued-pretrain": "继续预训练" if zh else "continued-pretrain",
                "full-finetune": "全量微调" if zh else "full-finetune",
                "lora": "lora",
                "qlora": "qlora",
            }[r.method],
        )
    if "finetune" in given:
        add("method", "微调" if zh else "sft")
    if "lora_targets" in given:
        add("other", f"targets {r.lora_targets}")

    # the data
    if "data" in given:
        d = r.data
        if d.unit == "bytes":
            add("data", scaled(d.amount, BYTE_UNITS, _bytes) + ("数据" if zh else ""))
        elif d.unit == "tokens":
            add(
                "data",
                scaled(d.amount, ZH_UNITS, _si) + "词元" if zh else scaled(d.amount, TOKEN_UNITS, _si) + " tokens",
            )
        else:
            add(
                "data",
                scaled(d.amount, ZH_UNITS, _si) + "条" if zh else scaled(d.amount, SAMPLE_UNITS, _si) + " samples",
            )
        if d.language and (d.unit != "bytes" or _data_language_given(r)):
            add("data", data_language(d.language, zh))
    if "epochs" in given:
        # the form's data field reads as data: epochs alone go with the rest
        add("data" if "data" in given else "other", exact(r.epochs) + ("轮" if zh else " epochs"))

    # time and money
    if "deadline_days" in given:
        add("deadline", _deadline(r.deadline_days, zh))
    # before the budget, which would read a currency word after it as its own
    if "currency" in given:
        add("other", {"CNY": "人民币", "USD": "美元"}[r.currency] if zh else r.currency.lower())
    if "budget" in given:
        b = r.budget
        amount = scaled(b.amount, ZH_UNITS if zh else BUDGET_UNITS, _si)
        # after a currency word the amount stands alone; in Chinese a yuan amount does (CNY is
        # what a budget without a currency means)
        if "currency" in given or (zh and b.currency == "CNY"):
            add("budget", amount)
        elif zh:
            add("budget", amount + "美元")
        else:
            add("budget", {"CNY": "¥", "USD": "$"}[b.currency] + amount)
    if "lease_term_months" in given:
        months = r.lease_term_months
        if zh:
            add("other", f"租期{months // 12}年" if months % 12 == 0 else f"{months}个月起租")
        else:
            add("other", f"{months // 12}-year lease" if months % 12 == 0 else f"{months}-month lease")
    if "rent_or_buy" in given:
        add("other", {"rent": "租用", "buy": "购买"}[r.rent_or_buy] if zh else r.rent_or_buy)
    if "own_use_months" in given:
        add("other", f"用{r.own_use_months}个月" if zh else f"keep it busy {r.own_use_months} months")
    if "own_utilisation" in given:
        share = written(r.own_utilisation * 100, lambda s: float(s) / 100, r.own_utilisation) or exact(
            r.own_utilisation * 100
        )
        add("other", f"利用率{share}%" if zh else f"{share}% use")

    # the hardware
    out.extend(_hardware(r, given, zh))
    if "city" in given:
        add("other", CITIES_ZH[r.city] if zh else f"city {r.city}")

    # the training setup
    if "seq_len" in given:
        add("other", f"序列长度{r.seq_len}" if zh else f"seq {r.seq_len}")
    if "micro_batch" in given:
        add("other", f"mbs {r.micro_batch}")
    if "global_batch" in given:
        add("other", f"gbs {r.global_batch}")
    if "zero_stage" in given:
        add("other", "ddp" if r.zero_stage == 0 else f"zero{r.zero_stage}")
    for degree in ("tp", "pp", "ep", "vpp", "cp", "dp"):
        if degree in given:
            # `ep` after a number reads as epochs (`3 ep`): the expert degree is said in words
            name = (ZH_DEGREES if zh else EN_DEGREES).get(degree, degree + " ")
            add("other", f"{name}{getattr(r, degree) or 1}")
    if "hsdp" in given:
        add("other", "hsdp")
    # before `offload`, which would read `offload opt` as what to offload
    if "opt_in_backward" in given:
        add("other", "opt-in-bwd")
    if "offload" in given:
        add("other", ("卸载" if zh else "offload") + ({"all": "全部" if zh else " all"}.get(r.offload, "")))
    if "recompute" in given:
        add("other", "重计算" if zh and r.recompute == "full" else f"recompute {r.recompute}")
    if "precision" in given:
        add("other", r.precision)
    if "optimizer" in given:
        add("other", r.optimizer)
    if "cost_first" in given:
        add("other", "最省" if zh else "cheapest")
    if "speed_first" in given:
        add("other", "尽快" if zh else "fastest")
    if "lang" in given:
        add("lang", f"lang {r.lang}")
    return _prose_language(r, out)


def data_language(code: str, zh: bool) -> str:
    """Words that say the data's language."""
    if zh:
        return {"en": "英文数据", "zh": "中文数据", "code": "代码数据"}[code]
    return {"en": "english data", "zh": "chinese data", "code": "code data"}[code]


def _data_language_given(r: TrainingRequest) -> bool:
    return any(n.code == "bytes_per_token" and n.params.get("basis") == "words" for n in r.assumptions)


def _gpu_name(name: str) -> str:
    """The GPU as people name it (`H800`, not `H800-SXM-80GB`): its first alias."""
    gpu = catalog.get_gpu(name)
    return gpu.aliases[0] if gpu.aliases and catalog.find_gpu(gpu.aliases[0]) == gpu else name


def _hardware(r: TrainingRequest, given: set[str], zh: bool) -> list[tuple[str, str]]:
    """The GPUs: the form's GPU field holds a type alone; a count or servers go with the rest."""
    gpu = _gpu_name(r.gpu) if r.gpu else None
    out = []
    if "gpu_count" in given:
        if gpu and "gpu" in given:
            out.append(("other", f"{r.gpu_count}张{gpu}" if zh else f"{r.gpu_count}x {gpu}"))
        else:
            out.append(("other", f"{r.gpu_count}卡" if zh else f"{r.gpu_count} GPUs"))
    if "nodes" in given:
        nodes = r.gpu_count // catalog.get_gpu(r.gpu).gpus_per_server
        named = "" if "gpu_count" in given else f" {gpu}"
        out.append(("other", f"{nodes}台服务器{named}" if zh else f"{nodes} nodes{' of' + named if named else ''}"))
    elif "gpu" in given and "gpu_count" not in given:
        out.append(("gpu", f"用{gpu}" if zh else f"on {gpu}"))
    return out
