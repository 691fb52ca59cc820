"""The request word for Megatron-Core's selective recompute modules (`recompute-modules core_attn`,
`recompute selective core_attn mlp`, a pasted `--recompute-modules`, `重计算模块core_attn`): read
in English and Chinese, pinned in the plan and its JSON, said on the request's and the layout's
lines and on the card, refused by name where Megatron-Core lacks the module, the engine does not
plan it, the model has nothing for it to recompute, or the stack is not Megatron-Core."""

import json

import pytest

from advisor.planning.advice import advise, advise_request
from advisor.request.parser import RequestError, parse

DENSE = "qwen2.5-14b full-finetune 1B tokens seq 8192 mbs 1 gbs 16 tp 4 "


@pytest.mark.parametrize(
    "words,modules",
    [
        ("recompute-modules core_attn", ("core_attn",)),
        ("recompute modules mlp", ("mlp",)),
        ("recompute_modules=core_attn,mlp", ("core_attn", "mlp")),
        # a launch script's flags pasted as they are (Megatron-LM's and ms-swift's spellings)
        ("--recompute-granularity selective --recompute-modules core_attn", ("core_attn",)),
        ("--recompute_granularity selective --recompute_modules mlp core_attn", ("core_attn", "mlp")),
        ("recompute selective core_attn", ("core_attn",)),
        ("recompute selective core attn, mlp", ("core_attn", "mlp")),
        ("重计算模块core_attn", ("core_attn",)),
        ("重计算模块：mlp core_attn", ("core_attn", "mlp")),
        ("选择性重计算 core_attn", ("core_attn",)),
    ],
)
def test_every_spelling_of_the_modules_is_read_and_makes_the_recompute_selective(words, modules):
    r = parse(DENSE + words + " on 8xA800")
    assert r.recompute_modules == modules and r.recompute == "selective"
    assert "recompute_modules" in r.user_set
    assert not any(n.code == "read_past" for n in r.assumptions)


def test_unsaid_the_modules_are_the_planners():
    r = parse(DENSE + "recompute selective on 8xA800")
    assert r.recompute_modules is None and "recompute_modules" not in r.user_set


def _ask(cli, text):
    out = cli("ask", text, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_the_plan_runs_the_modules_said_and_they_change_its_memory(cli):
    # On A800 the attention kernel is fused: Megatron-Core's default core_attn saves nothing there,
    # so the same layout with it keeps the MLP's activations the planner's `mlp` drops.
    said = _ask(cli, DENSE + "recompute-modules core_attn on 8xA800")
    planned = _ask(cli, DENSE + "megatron recompute selective on 8xA800")
    assert said["request"]["recompute_modules"] == ["core_attn"]
    assert said["plan"]["recompute_modules"] == ["core_attn"] and said["plan"]["framework"] == "Megatron-Core"
    assert planned["request"]["recompute_modules"] is None and planned["plan"]["recompute_modules"] == ["mlp"]
    assert said["memory_gib_per_gpu"]["activations"] > planned["memory_gib_per_gpu"]["activations"] + 5


def test_the_request_and_layout_lines_name_the_modules(cli):
    out = cli("ask", DENSE + "recompute-modules core_attn on 8xA800").stdout
    assert "recompute selective of core_attn" in out
    assert "--recompute-granularity selective --recompute-modules core_attn`" in out
    zh = cli("ask", "qwen2.5-14b 全量微调 1B tokens seq 8192 mbs 1 gbs 16 张量并行4 重计算模块core_attn 8xA800").stdout
    assert "重计算选择性（core_attn）" in zh and "选择性重计算 core_attn（`--recompute-granularity" in zh


@pytest.mark.parametrize(
    "words,said,megatron",
    [
        ("recompute-modules self_attn", '"self_attn" is not a module', False),
        ("recompute-modules core_attn shared_experts", "takes `shared_experts`", True),
        ("recompute-modules moe", "takes `moe`", True),
    ],
)
def test_a_module_megatron_lacks_or_the_engine_does_not_plan_is_refused_by_name(cli, words, said, megatron):
    with pytest.raises(RequestError) as info:
        parse(DENSE + words + " on 8xA800")
    assert info.value.kind == "recompute_module" and bool(info.value.details.get("megatron")) == megatron
    out = cli("ask", DENSE + words + " on 8xA800")
    assert out.returncode == 2 and said in out.stderr and "core_attn mlp moe_act layernorm mla_up_proj" in out.stderr


def test_the_key_without_names_asks_for_them(cli):
    out = cli("ask", DENSE + "recompute-modules on 8xA800")
    assert out.returncode == 2 and "needs the modules to recompute" in out.stderr
    zh = cli("ask", "qwen2.5-14b 全量微调 1B tokens 重计算模块 8xA800")
    assert zh.returncode == 2 and "需要给出重计算的模块" in zh.stderr and "Traceback" not in zh.stderr


def test_modules_with_another_recompute_mode_contradict_it():
    with pytest.raises(RequestError) as info:
        parse(DENSE + "recompute full recompute-modules mlp on 8xA800")
    assert info.value.kind == "conflict"


@pytest.mark.parametrize(
    "text,reason,words",
    [
        (DENSE + "recompute-modules moe_act on 8xA800", "recompute_module_model", ["`moe_act`", "dense"]),
        (DENSE + "recompute-modules mla_up_proj on 8xA800", "recompute_module_model", ["`mla_up_proj`", "MLA"]),
        (
            "qwen2.5-14b full-finetune 1B tokens deepspeed recompute-modules core_attn on 8xA800",
            "recompute_modules_framework",
            ["`recompute-modules core_attn`", "Megatron-Core"],
        ),
        # no stack named, settings Megatron-Core does not run: weights offloaded
        (
            "qwen2.5-14b full-finetune 1B tokens offload all recompute-modules core_attn on 8xA800",
            "recompute_modules_framework",
            ["`recompute-modules core_attn`"],
        ),
    ],
)
def test_modules_that_cannot_run_are_refused(cli, text, reason, words):
    out = cli("ask", text, "--json")
    assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr
    for w in words:
        assert w in out.stderr, out.stderr
    with pytest.raises(RequestError) as info:
        advise_request(parse(text), book=None)
    assert info.value.details["reason"] == reason


def test_the_card_names_the_modules_in_english_and_chinese(book):
    from bot.blocks import details

    en = json.dumps(details(advise(DENSE + "recompute-modules core_attn on 8xA800", "en", book=book), "math"))
    assert "selective recompute of core_attn (`--recompute-granularity selective --recompute-modules core_attn`)" in en
    zh = details(advise(DENSE + "recompute-modules core_attn on 8xA800", "zh", book=book), "math")
    assert "选择性重计算 core_attn（`--recompute-granularity selective" in json.dumps(zh, ensure_ascii=False)
    # a plan on another stack has no modules to name
    other = json.dumps(
        details(advise("qwen2.5-14b full-finetune 1B tokens deepspeed on 8xA800", "en", book=book), "math")
    )
    assert "--recompute-modules" not in other
