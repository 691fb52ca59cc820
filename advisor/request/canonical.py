"""A parsed request written back as a request: in its own language (Chinese when it was
written as Chinese prose), with only the fields the user gave, numbers as people type them
(`预算100万`, `budget ¥1.2M`, `5万条`, `300B tokens`), so that parsing it again with the same
reply language gives the same request (tests/test_canonical.py).

The Re-plan form is pre-filled from it (bot/forms.py), and a what-if re-reads it.
"""

from __future__ import annotations

from collections.abc import Callable

from advisor import catalog
from advisor.request import fields
from advisor.request.model import TrainingRequest
from advisor.request.parser import SCALE, chinese_prose, other_variants

# Units a number may be written with, largest first, as the parser reads each kind: the first
# that writes it exactly in few digits wins (1,200,000 -> 1.2M, 120万; 1,234,567 -> 1234567).
# These are the number's scale (advisor/request/parser.py SCALE); the words of each field's
# units and choices are its row's first spellings (advisor/request/fields.py).
ZH_UNITS = (("万亿", 1e12), ("亿", 1e8), ("万", 1e4), ("", 1))
SIZE_UNITS = (("B", 1e9),)
TOKEN_UNITS = (("T", 1e12), ("B", 1e9), ("M", 1e6), ("k", 1e3), ("", 1))
SAMPLE_UNITS = (("M", 1e6), ("k", 1e3), ("", 1))
BUDGET_UNITS = (("B", 1e9), ("M", 1e6), ("k", 1e3), ("", 1))


def _row(name: str) -> fields.Field:
    return fields.field(name)


def network_words(gbps: float, per_server: bool, zh: bool) -> str:
    """The team's network as a request says it, a rate whose owner is said, so the parser reads it
    back alike ("25Gb/s per server", "200Gb/s每卡"; "per card", as "per GPU" would begin a GPU count)."""
    rate = f"{gbps:g}Gb/s"
    return f"{rate}{'每台' if per_server else '每卡'}" if zh else f"{rate} per {'server' if per_server else 'card'}"


def _say(name: str, value, zh: bool) -> str:
    """A choice of a row as it is written in the request's language."""
    return _row(name).choice(value).written("zh" if zh else "en")


def _key(name: str, zh: bool) -> str:
    return _row(name).keys.written("zh" if zh else "en")


def _unit(name: str, value, zh: bool) -> str:
    return _row(name).unit(value).written("zh" if zh else "en")


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


def _byte_units() -> list[tuple[str, float]]:
    """The data's byte units as written (`TB`), largest first."""
    units = [u for u in _row("data").units if u.value[0] == "bytes"]
    return [(u.en[0], u.value[1]) for u in sorted(units, key=lambda u: -u.value[1])]


def _bytes(suffix: str) -> float:
    return dict(_byte_units())[suffix]


def _deadline(days: float, zh: bool) -> str:
    """Days as people type them, else months, weeks or hours where days are not whole (the
    row's units in its order)."""
    lang = "zh" if zh else "en"
    units = _row("deadline_days").units
    for unit in units:
        count = written(days / unit.value, lambda s, f=unit.value: float(s) * f, days)
        if count is not None and len(count.partition(".")[2]) <= 2:
            return count + unit.written(lang)
    return exact(days) + units[0].written(lang)


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
        # another release planned on the catalogued shape keeps the name typed, and so its note
        typed = [n.params["typed"] for n in r.assumptions if n.code == "model_as"]
        add("model", typed[0].replace(" ", "-") if typed else r.model)
    elif "params_b" in given:
        total = size(r.params_b)
        sized = f"{total}-A{size(r.active_params_b)}" if "active_params_b" in given else total
        named = [n.params["model"] for n in r.assumptions if n.code in ("unknown_model", "unknown_moe_model")]
        # a name written with spaces ("gemma 3") is read back apart from its size
        joiner = " " if named and " " in named[0] else "-"
        add("model", f"{named[0]}{joiner}{sized}" if named else sized)
    elif "active_params_b" in given:
        add("model", _key("active_params_b", zh) + ("" if zh else " ") + size(r.active_params_b))

    # the method; the rank first, as `lora r=8` reads as a rank alone
    if "lora_rank" in given:
        add("other", _key("lora_rank", zh) + ("" if zh else "=") + str(r.lora_rank))
    if "method" in given:
        add("method", _say("method", r.method, zh))
    if "finetune" in given:
        add("method", _say("finetune", True, zh))
    if "preference_tuning" in given:
        add("method", _say("preference_tuning", r.preference_tuning, zh))
    if "lora_dropout" in given:
        add("other", f"{_key('lora_dropout', False)} {r.lora_dropout:g}")
    if "lora_targets" in given:
        add("other", f"{_key('lora_targets', False)} {_say('lora_targets', r.lora_targets, False)}")

    # the data
    if "data" in given:
        d = r.data
        if d.unit == "bytes":
            add("data", scaled(d.amount, _byte_units(), _bytes) + ("数据" if zh else ""))
        else:
            numbers = ZH_UNITS if zh else TOKEN_UNITS if d.unit == "tokens" else SAMPLE_UNITS
            add("data", scaled(d.amount, numbers, _si) + ("" if zh else " ") + _unit("data", (d.unit, 1), zh))
        if "tokens_per_sample" in given and d.unit == "samples":
            n = exact(r.tokens_per_sample)
            add("data", f"每条{n} token" if zh else f"avg {n} tokens")
        elif d.unit == "samples" and any(n.code == "reasoning_tokens_per_sample" for n in r.assumptions):
            # reasoning traces keep their guessed length when the line is read again
            add("data", "推理数据" if zh else "reasoning data")
        if d.language and (d.unit != "bytes" or _data_language_given(r)):
            add("data", data_language(d.language, zh))
    if "epochs" in given:
        # the form's data field reads as data: epochs alone go with the rest
        epochs = exact(r.epochs) + ("" if zh else " ") + _unit("epochs", 1, zh)
        add("data" if "data" in given else "other", epochs)

    # time and money
    # a day said for the start is written as that day, before the deadline it counts to
    start = next((n.params["date"] for n in r.assumptions if n.code == "start_date"), None)
    start = start or next(
        (n.params["today"] for n in r.assumptions if n.code == "deadline_date" and n.params.get("start")), None
    )
    if start:
        y, m, d = (int(x) for x in start.split("-"))
        add("deadline", f"{y}年{m}月{d}日开始" if zh else f"starting {start}")
    if "deadline_days" in given:
        # a deadline said as a day is written as that day, so asking again later keeps the day
        day = next((n.params["date"] for n in r.assumptions if n.code == "deadline_date"), None)
        if day:
            y, m, d = (int(x) for x in day.split("-"))
            add("deadline", f"{y}年{m}月{d}日前" if zh else f"by {day}")
        else:
            add("deadline", _deadline(r.deadline_days, zh))
    # before the budget, which would read a currency word after it as its own
    if "currency" in given:
        add("other", _say("currency", r.currency, zh))
    monthly = [n.params["monthly"] for n in r.assumptions if n.code == "budget_monthly"]
    if "budget" in given and monthly:
        # a budget by the month is written by the month: read again, it is that much a month of
        # the deadline, as it was
        b = r.budget
        amount = scaled(monthly[0], ZH_UNITS if zh else BUDGET_UNITS, _si)
        if zh:
            unit = "" if b.currency == "CNY" else _unit("budget", b.currency, zh)
            add("other", f"每月预算{amount}{unit}")
        else:
            sign = next(s for s in _row("budget").signs if s.value == b.currency)
            add("other", f"budget {sign.written('en')}{amount} per month")
    elif "budget" in given:
        b = r.budget
        amount = scaled(b.amount, ZH_UNITS if zh else BUDGET_UNITS, _si)
        # after a currency word the amount stands alone; in Chinese a yuan amount does (CNY is
        # what a budget without a currency means)
        if "currency" in given or (zh and b.currency == "CNY"):
            add("budget", amount)
        elif zh:
            add("budget", amount + _unit("budget", b.currency, zh))
        else:
            sign = next(s for s in _row("budget").signs if s.value == b.currency)
            add("budget", sign.written("en") + amount)
    if "lease_term_months" in given:
        months = r.lease_term_months
        n, unit = (months // 12, 12) if months % 12 == 0 else (months, 1)
        term = _unit("lease_term_months", unit, zh)
        add(
            "other",
            f"{n}{term}{_key('lease_term_months', zh)}" if zh else f"{n}-{term} {_key('lease_term_months', zh)}",
        )
    if "rent_or_buy" in given:
        add("other", _say("rent_or_buy", r.rent_or_buy, zh))
    if "fabric" in given:
        add("other", _say("fabric", r.fabric, zh))
    if r.network_gbps:
        add("other", network_words(r.network_gbps, r.network_per_server, zh))
    if "cloud" in given:
        add("other", _say("cloud", r.cloud, zh))
    if "own_use_months" in given:
        months = f"{r.own_use_months}{'' if zh else ' '}{_unit('own_use_months', 1, zh)}"
        add("other", f"{_key('own_use_months', zh)}{'' if zh else ' '}{months}")
    if "own_utilisation" in given:
        share = written(r.own_utilisation * 100, lambda s: float(s) / 100, r.own_utilisation) or exact(
            r.own_utilisation * 100
        )
        busy = _key("own_utilisation", zh)
        add("other", f"{busy}{share}%" if zh else f"{share}% {busy}")
    if "power_price" in given and r.power_price:
        amount, usd = exact(r.power_price.amount), r.power_price.currency == "USD"
        if zh:
            add("other", f"电费{amount}{'美元' if usd else '元'}/度")
        else:
            add("other", f"electricity {'$' if usd else '¥'}{amount}/kWh")

    # the hardware
    out.extend(_hardware(r, given, zh))
    if "city" in given:
        add("other", _say("city", r.city, zh) if zh else f"{_key('city', zh)} {_say('city', r.city, zh)}")

    # the training setup
    for name in ("seq_len", "micro_batch", "global_batch", "grad_accum", "recompute_layers"):
        if name in given:
            add("other", _key(name, zh) + ("" if zh and _row(name).keys.zh else " ") + str(getattr(r, name)))
    if "zero_stage" in given:
        add("other", _say("zero_stage", r.zero_stage, zh))
    for degree in fields.DEGREES:
        if degree in given:
            key = _key(degree, zh)
            add("other", f"{key}{'' if zh else ' '}{getattr(r, degree) or 1}")
    if "hsdp" in given:
        add("other", _say("hsdp", True, zh))
    for bound, in_en, in_zh in (
        ("max_gpus", "up to {} GPUs", "{}卡以内"),
        ("min_gpus", "at least {} GPUs", "至少{}张卡"),
    ):
        if bound in given:
            add("other", (in_zh if zh else in_en).format(getattr(r, bound)))
    # flags said by their word; `opt_in_backward` before `offload`, which would read `offload opt`
    # as what to offload
    for flag in (
        "hourly_only",
        "recurring",
        "own_room",
        "power_paid",
        "used_gpus",
        "one_server",
        "nvlink",
        "owned",
        "opt_in_backward",
        "tf32",
        "compile",
        "cuda_graphs",
        "chunked_loss",
        "old_bitsandbytes",
        "old_litgpt",
        "old_transformers",
        "no_z3_leaf",
    ):
        if flag in given:
            # a run every week keeps its week ("every week", "每周"), as the recurring rule reads it back
            weekly = flag == "recurring" and r.runs_per_month > 1
            add("other", ("每周" if zh else "every week") if weekly else _say(flag, True, zh))
    if "offload" in given:
        add("other", _keyed("offload", r.offload, zh))
    if "recompute_modules" in given:
        # the modules make the recompute selective: said once, as Megatron-Core's flag names them
        names = " ".join(_say("recompute_modules", (x,), zh) for x in r.recompute_modules)
        add("other", _key("recompute_modules", zh) + ("" if zh else " ") + names)
    elif "recompute" in given:
        if zh and r.recompute != _row("recompute").choices[0].value:
            # Chinese says the choice first: 选择性重计算, 不做重计算
            add("other", _row("recompute").choice(r.recompute).written("zh") + _key("recompute", zh))
        else:
            add("other", _keyed("recompute", r.recompute, zh))
    # said with their key, whichever choice: the gradients' dtype, the attention kernels, the
    # stack (`framework hf`: a bare `hf` after a model name reads as the checkpoint's suffix)
    for name in ("grad_reduce", "moments", "attention", "dispatcher", "stack"):
        if name in given:
            choice = _row(name).choice(getattr(r, name)).written("zh" if zh else "en")
            if name == "stack" and any(n.code == "stack_unsloth" for n in r.assumptions):
                choice = "unsloth"  # planned as HF, said as Unsloth (its note)
            if name == "stack" and any(n.code == "method_from_peft" for n in r.assumptions):
                choice = "peft"  # HF, and the LoRA it implied (its note)
            add("other", _key(name, zh) + ("" if zh else " ") + choice)
    if "precision" in given:
        add("other", _say("precision", r.precision, zh))
    if "optimizer" in given:
        add("other", _say("optimizer", r.optimizer, zh))
    for flag in ("cost_first", "speed_first"):
        if flag in given:
            add("other", _say(flag, True, zh))
    if "lang" in given:
        add("lang", f"{_key('lang', zh)} {_say('lang', r.lang, zh)}")
    return _prose_language(r, out)


def data_language(code: str, zh: bool) -> str:
    """Words that say the data's language."""
    return _say("data_language", code, zh) + ("数据" if zh else " data")


def _keyed(name: str, value, zh: bool) -> str:
    """A key and the choice it names (`offload all`, `卸载全部`): the key alone for the first
    choice, which it means alone; in English words where the language has no word for it."""
    row = _row(name)
    lang = "zh" if zh and (value == row.choices[0].value or row.choice(value).zh) else "en"
    if value == row.choices[0].value:
        return row.keys.written(lang)
    return row.keys.written(lang) + ("" if lang == "zh" else " ") + row.choice(value).written(lang)


def _data_language_given(r: TrainingRequest) -> bool:
    return any(n.code == "bytes_per_token" and n.params.get("basis") == "words" for n in r.assumptions)


def _gpu_name(name: str, bare: bool = True) -> str:
    """The GPU as people name it (`H800`, not `H800-SXM-80GB`): its first alias; where that names
    a family of parts (`A100`) and the request named the part, the first alias that names it
    (`A100-80GB`), so the request reads back without the `gpu_variant` note."""
    gpu = catalog.get_gpu(name)
    names = [a for a in gpu.aliases if catalog.find_gpu(a) == gpu]
    if not bare:
        names = [a for a in names if not other_variants(a, gpu)] or [name]
    return names[0] if names else name


def _hardware(r: TrainingRequest, given: set[str], zh: bool) -> list[tuple[str, str]]:
    """The GPUs: the form's GPU field holds a type alone; a count or servers go with the rest."""
    bare = any(n.code == "gpu_variant" for n in r.assumptions)
    gpu = _gpu_name(r.gpu, bare) if r.gpu else None
    out = []
    if r.gpus_per_server and r.gpu_count:  # servers of fewer GPUs than the type's, as said
        servers = r.gpu_count // r.gpus_per_server
        per = r.gpus_per_server
        if zh:
            return [("other", f"{servers}台服务器每台{per}张{gpu}" if gpu else f"{servers}台{per}卡服务器")]
        return [
            (
                "other",
                f"on {servers} servers with {per}x {gpu} each" if gpu else f"on {servers} servers with {per} gpus each",
            )
        ]
    if "gpu_count" in given:
        if gpu and "gpu" in given:
            out.append(("other", f"{r.gpu_count}张{gpu}" if zh else f"{r.gpu_count}x {gpu}"))
        else:
            out.append(("other", f"{r.gpu_count}{'' if zh else ' '}{_unit('gpu_count', 1, zh)}"))
    if "nodes" in given:
        nodes = r.gpu_count // catalog.get_gpu(r.gpu).gpus_per_server
        named = "" if "gpu_count" in given else f" {gpu}"
        servers = _unit("nodes", 1, zh)
        out.append(
            ("other", f"{nodes}{servers}{named}" if zh else f"{nodes} {servers}{' of' + named if named else ''}")
        )
    elif "gpu" in given and "gpu_count" not in given:
        out.append(("gpu", f"用{gpu}" if zh else f"on {gpu}"))
    return out
