"""Layouts the user fixes (`tp 8`, `pp 4`, `ep 8`, `vpp 2`, `zero3`, Chinese too): planned exactly
as given, or refused with exit 2, the reason and an example that works (issue #14). Also the
warnings the text answer carries: physics checks, availability notes, hopeless hardware, the
data's language, and the PCIe ranking rule."""

import json
import re

import pytest

from advisor.request.parser import RequestError, parse


def _ask(cli, text, *extra):
    out = cli("ask", text, "--json", *extra)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("70B full-finetune 100GB 7d tp 8 pp 4", {"tp": 8, "pp": 4}),
        ("70B full-finetune 100GB 7d tp=8 pp=4 vpp 2", {"tp": 8, "pp": 4, "vpp": 2}),
        ("70B full-finetune 100GB 7d tp8 pp2", {"tp": 8, "pp": 2}),
        ("70B full-finetune 100GB 7d tensor parallel 4 pipeline-parallel 2", {"tp": 4, "pp": 2}),
        ("70B 全量微调 100GB 7天 张量并行8 流水线并行4", {"tp": 8, "pp": 4}),
        ("70B 全量微调 100GB 7天 张量并行度=4 流水并行二 虚拟流水线并行2", {"tp": 4, "pp": 2, "vpp": 2}),
        ("671B-A37B pretrain 1T tokens ep 8", {"ep": 8}),
        ("671B-A37B 预训练 1T tokens 专家并行16", {"ep": 16}),
        ("7B sft 1GB 3 ep tp 2", {"tp": 2, "epochs": 3}),  # "3 ep" stays three epochs
        ("mixtral-8x7b pretrain 1T tokens mbs 4 gbs 512 ep 8", {"ep": 8}),  # a degree after a number
        # layouts as published tables write them: NeMo's VP, the FSDP column, degrees run together
        ("70B pretrain 1T tokens TP=2 PP=4 VP=5", {"tp": 2, "pp": 4, "vpp": 5}),
        ("70B pretrain 1T tokens tp4pp4cp2", {"tp": 4, "pp": 4, "cp": 2}),
        ("70B pretrain 1T tokens dp 8", {"dp": 8}),
        ("70B pretrain 1T tokens data parallel 8", {"dp": 8}),
        ("70B 预训练 1T tokens 数据并行8", {"dp": 8}),
        ("70B pretrain 1T tokens fsdp 64", {"dp": 64, "zero_stage": 3}),
        ("70B pretrain 1T tokens ZeRO stage 1", {"zero_stage": 1}),
        ("mixtral-8x7b sft 1GB 2 ep ep 8", {"ep": 8, "epochs": 2}),
        ("70B full-finetune 100GB 7d fsdp2", {"zero_stage": 3}),
    ],
)
def test_layout_words_are_read(text, expected):
    r = parse(text)
    assert {k: getattr(r, k) for k in expected} == expected
    assert set(expected) - {"epochs"} <= set(r.user_set)


@pytest.mark.parametrize(
    "text,what",
    [
        ("70B lora 20GB tp", "layout"),
        ("70B lora 20GB tp 0", "layout"),
        ("70B lora 20GB pp -2", "layout"),
        ("70B lora 20GB tp 2.5", "layout"),
        ("70B lora 20GB ep 5000", "layout"),
    ],
)
def test_bad_layout_degrees_are_refused(text, what):
    with pytest.raises(RequestError) as info:
        parse(text)
    assert info.value.kind == "bad_value" and info.value.details["what"] == what
    assert "tp 8" in info.value.message("en")


@pytest.mark.parametrize(
    "text,what",
    [
        ("70B full-finetune 100GB 7d cp 2", "cp"),
        ("70B full-finetune 100GB 7d context parallel 4", "cp"),
        ("70B 全量微调 100GB 7天 上下文并行2", "cp"),
        ("70B full-finetune 100GB 7d hsdp", "hsdp"),
    ],
)
def test_context_parallel_and_hsdp_are_read(text, what):
    req = parse(text)
    assert (req.cp or 1) > 1 if what == "cp" else req.hsdp


def test_context_parallel_is_planned_as_given(cli):
    """`cp 2`: each sequence split over 2 GPUs (CONTRACT section 6, plan.cp): dp halves,
    activations per GPU halve."""
    plain = _ask(cli, "70B full-finetune 100GB 7d on 64xH800 tp 8 seq 32768")["plan"]
    split = _ask(cli, "70B full-finetune 100GB 7d on 64xH800 tp 8 seq 32768 cp 2")["plan"]
    assert split["cp"] == 2 and plain["cp"] == 1
    assert split["tp"] * split["pp"] * split["dp"] * split["cp"] == 64


def test_hsdp_is_sharded_inside_a_server(cli):
    plan = _ask(cli, "70B full-finetune 100GB 7d on 64xH800 hsdp")["plan"]
    assert plan["hsdp"] and plan["sharding"] == "hsdp" and plan["zero_stage"] == 3


def test_one_layer_per_virtual_stage_is_planned(cli):
    plan = _ask(cli, "qwen3-30b-a3b pretrain 100B tokens on 64xH800 pp 2 vpp 24")["plan"]
    assert (plan["pp"], plan["virtual_stages"], plan["pipeline_schedule"]) == (2, 24, "interleaved-1f1b")


def test_the_embedding_and_the_loss_may_fill_the_end_chunks(cli):
    # Megatron-MoE-ModelZoo runs Qwen3 235B's 94 layers on PP 32 x VP 3: 96 chunks, the first and
    # last holding the embedding and the loss; 97 chunks would leave one empty
    plan = _ask(cli, "qwen3-235b-a22b pretrain 1T tokens seq 4096 gbs 2048 tp 2 pp 32 vpp 3 ep 8 on 256xH100")["plan"]
    assert (plan["pp"], plan["virtual_stages"]) == (32, 3)
    out = cli("ask", "qwen3-235b-a22b pretrain 1T tokens seq 4096 gbs 2048 tp 2 pp 32 vpp 4 ep 8 on 256xH100")
    assert out.returncode == 2 and "128 model chunks" in out.stderr


def test_cp_1_is_no_context_parallelism():
    assert parse("70B full-finetune 100GB 7d cp 1").tp is None


def test_fixed_layout_is_planned_exactly_as_given(cli):
    data = _ask(cli, "70B full-finetune 100GB 7d on 64xH800 tp 8 pp 4")
    plan = data["plan"]
    assert (plan["gpu"], plan["gpu_count"], plan["tp"], plan["pp"], plan["dp"]) == ("H800-SXM-80GB", 64, 8, 4, 2)
    assert plan["framework"] == "Megatron-Core" and plan["fits"]
    assert plan["micro_batches_per_step"] >= 4 * 4
    assert data["plan"]["pipeline_schedule"] in ("1f1b", "interleaved-1f1b")


def test_the_text_answer_names_the_framework_and_its_schedule(cli):
    out = cli("ask", "70B full-finetune 100GB 7d on 64xH800 tp 8 pp 4 vpp 2").stdout
    assert "framework: Megatron-Core, interleaved 1F1B with 2 model chunks per stage" in out
    out = cli("ask", "70B full-finetune 100GB 7d on 64xH800 hsdp seq 8192 cp 2").stdout
    assert "context parallel 2" in out and "HSDP" in out


def test_a_fixed_data_parallel_degree_is_planned_as_given(cli):
    plan = _ask(cli, "deepseek-v3 pretrain 1T tokens seq 4096 mbs 1 gbs 8192 fsdp 256 tp 1 pp 4 ep 64 on 1024xH100")
    plan = plan["plan"]
    assert (plan["tp"], plan["pp"], plan["dp"], plan["ep"], plan["zero_stage"]) == (1, 4, 256, 64, 3)
    # an open request keeps it: the count is the data-parallel ranks times the model-parallel ones
    plan = _ask(cli, "70B full-finetune 100GB 7d dp 8")["plan"]
    assert plan["dp"] == 8 and plan["gpu_count"] == 8 * plan["tp"] * plan["pp"] * plan["cp"]


def test_a_data_parallel_degree_that_does_not_fit_the_count_is_refused(cli):
    out = cli("ask", "70B pretrain 1T tokens dp 3 on 64xH100")
    assert out.returncode == 2 and "`dp 3` does not fit 64 GPUs" in out.stderr + out.stdout


def test_lora_on_a_pipeline_names_the_framework_its_speed_assumes(cli):
    data = _ask(cli, "llama3-70b lora 1B tokens seq 4096 mbs 1 gbs 32 tp 2 pp 4 on 8xH100")
    assert data["plan"]["framework"] == "Megatron-Core"
    assert any("Megatron-Core's pipeline schedule" in w and "19%" in w for w in data["warnings"])
    # without a pipeline there is nothing to warn about
    flat = _ask(cli, "llama3-70b lora 1B tokens seq 4096 mbs 1 gbs 32 tp 1 pp 1 on 8xH100")
    assert not any("pipeline schedule" in w for w in flat["warnings"])


def test_fixed_virtual_stages_are_kept(cli):
    plan = _ask(cli, "70B full-finetune 100GB 7d on 64xH800 tp 8 pp 4 vpp 2")["plan"]
    assert (plan["tp"], plan["pp"], plan["virtual_stages"], plan["pipeline_schedule"]) == (8, 4, 2, "interleaved-1f1b")
    assert plan["micro_batches_per_step"] % 4 == 0


def test_fixed_layout_on_an_open_request_keeps_it(cli):
    plan = _ask(cli, "70B full-finetune 100GB 7d tp 4 pp 2")["plan"]
    assert (plan["tp"], plan["pp"]) == (4, 2) and plan["gpu_count"] % 8 == 0


@pytest.mark.parametrize(
    "text,gpu,bw",
    [
        # NVIDIA's MLPerf Training v4.0 Llama 2 70B LoRA on 64 L40S ran TP4 CP2 over PCIe Gen4
        ("llama2-70b lora 1B tokens seq 8192 mbs 1 gbs 8 tp 4 cp 2 fp8 megatron on 64xL40S", "L40S-48GB", 25.0),
        # GeForce: no peer-to-peer, each transfer staged through host memory
        ("7B lora 20GB 3d on 8x4090 tp 2", "RTX4090-24GB", 16.0),
    ],
)
def test_a_fixed_tp_on_pcie_cards_is_planned_over_pcie_and_said(cli, text, gpu, bw):
    out = _ask(cli, text)
    plan = out["plan"]
    assert plan["gpu"] == gpu and plan["tp"] == int(text.split(" tp ")[1].split()[0])
    (note,) = [w for w in out["warning_codes"] if w["code"] == "tp_over_pcie"]
    assert note["params"]["bw"] == bw and 0 < note["params"]["share"] < 1
    assert "tp_over_pcie" in out["training"]["checks"] and out["training"]["step_seconds"]["tensor_s"] > 0


def test_the_search_keeps_tensor_parallel_inside_nvlink_on_pcie_cards(cli):
    plan = _ask(cli, "llama2-70b lora 1B tokens seq 8192 fp8 megatron on 64xL40S")["plan"]
    assert plan["tp"] == 1


def test_fixed_expert_parallel_is_kept(cli):
    plan = _ask(cli, "671B-A37B pretrain 1T tokens 30d on 512xH800 ep 8")["plan"]
    assert plan["ep"] == 8 and plan["gpu_count"] == 512


@pytest.mark.parametrize(
    "text,reason,words",
    [
        ("70B full-finetune 100GB 7d on 64xH800 tp 3", "tp_server", ["tp 3", "8 GPUs"]),
        ("70B full-finetune 100GB 7d tp 3", "tp_heads", ["tp 3", "64 heads"]),
        ("70B qlora 20GB 3d on 8xH800 tp 2", "qlora_model_parallel", ["QLoRA", "bitsandbytes"]),
        ("70B qlora 20GB 3d pp 2", "qlora_model_parallel", ["QLoRA"]),
        ("70B full-finetune 100GB 7d on 64xH800 tp 16", "tp_nvlink", ["NVLink"]),
        # a PCIe card runs a fixed tp over PCIe up to its server's GPUs, no further
        ("7B lora 20GB 3d on 8x4090 tp 16", "tp_server", ["tp 16", "8 GPUs"]),
        ("70B full-finetune 100GB 7d on 64xH800 pp 64", "pp_layers", ["pp 64", "layers"]),
        ("70B full-finetune 100GB 7d on 64xH800 tp 8 pp 3", "split_count", ["64 GPUs"]),
        ("70B full-finetune 100GB 7d on 64xH800 ep 8", "ep_dense", ["mixture-of-experts"]),
        ("70B full-finetune 100GB 7d on 64xH800 vpp 2", "vpp_needs_pp", ["pipeline"]),
        ("70B full-finetune 100GB 7d on 64xH800 pp 8 vpp 16", "vpp_chunks", ["vpp 16", "128 model chunks"]),
        ("70B full-finetune 100GB 7d on 64xH800 tp 8 offload all", "no_framework", ["DeepSpeed"]),
        # sequence parallel, on with tp, splits each sequence over the tp ranks
        ("70B full-finetune 100GB 7d on 64xH800 tp 8 seq 4100", "seq_split", ["`tp 8`", "multiple of 8", "seq 4096"]),
    ],
)
def test_combinations_that_cannot_run_are_refused_with_the_reason(cli, text, reason, words):
    out = cli("ask", text, "--json")
    assert out.returncode == 2 and out.stdout == ""
    for w in words:
        assert w in out.stderr, out.stderr
    assert "e.g." in out.stderr or "For example" in out.stderr
    with pytest.raises(RequestError) as info:
        _advise(text)  # refused before any price is read
    assert info.value.details["reason"] == reason


@pytest.mark.parametrize(
    "text,reason,words,fix",
    [
        # Megatron asserts seq % (2 x cp) == 0: 32,769 tokens do not cut into 8 chunks
        ("llama3-70b full-finetune 1B tokens on 64xH100 cp 4 seq 32769", "seq_split", ["cp 4", "multiple of 8"], 32768),
        # the default 4,096 tokens do not cut into 6 chunks either
        ("llama3-70b full-finetune 1B tokens on 48xH100 cp 3", "seq_split", ["cp 3", "multiple of 6"], 4092),
        # sequence parallel splits each rank's seq / cp tokens again over tp: 32,784 / 4 / 8 is not whole
        ("llama3-70b full-finetune 1B tokens on 64xH100 cp 4 tp 8 seq 32784", "seq_split", ["tp 8", "of 32"], 32768),
        ("llama3-70b 全量微调 1B tokens 用64卡H100 上下文并行4 seq 4100", "seq_split", ["cp 4"], 4096),
    ],
)
def test_a_sequence_the_cp_and_tp_ranks_cannot_split_is_refused_naming_them(text, reason, words, fix):
    with pytest.raises(RequestError) as info:
        parse(text)
    err = info.value
    assert err.kind == "layout" and err.details["reason"] == reason
    for w in words:
        assert w in err.message("en"), err.message("en")
    assert "上下文并行" in err.message("zh") or "序列并行" in err.message("zh")
    assert f"seq {fix}" in err.message("en")
    fixed = parse(re.sub(r"seq \d+", "", text) + f" seq {fix}")  # the length it suggests is read
    assert fixed.seq_len == fix


def test_a_gpu_count_the_context_parallel_ranks_do_not_divide_names_cp():
    with pytest.raises(RequestError) as info:
        parse("llama3-70b full-finetune 1B tokens on 64xH100 cp 3 seq 4098")
    err = info.value
    assert err.details["reason"] == "cp_count" and err.details["ranks"] == 3
    assert "`cp 3`" in err.message("en") and "64 GPUs" in err.message("en")
    assert "`tp 3`" not in err.message("en")  # it had read "`tp 3` times `pp 1`"
    assert parse("llama3-70b pretrain 1T tokens seq 32768 on 64xH100 cp 4").cp == 4  # its example


def test_sequences_that_split_are_kept():
    assert parse("llama3-70b full-finetune 1B tokens on 64xH100 tp 4 seq 4100").tp == 4
    assert parse("llama3-70b full-finetune 1B tokens on 64xH100 cp 4 tp 8 seq 32768").cp == 4
    assert parse("llama3-70b full-finetune 1B tokens on 48xH100 cp 3 seq 6144").cp == 3


def _advise(text):
    from advisor.planning.advice import advise_request

    return advise_request(parse(text), book=None)


def test_layout_refusal_in_chinese(cli):
    out = cli("ask", "70B qlora 20GB 3天 用8xH800 张量并行2")
    assert out.returncode == 2 and "QLoRA" in out.stderr and "数据并行" in out.stderr


def test_the_example_in_layout_errors_works(cli):
    data = _ask(cli, "70B full-finetune 100GB 7d on 64xH800 tp 8 pp 4")
    assert data["plan"]["fits"]
    zh = parse("70B 全量微调 100GB 7天 用64xH800 张量并行8 流水线并行4")
    assert (zh.tp, zh.pp, zh.gpu_count) == (8, 4, 64)


# -- physics checks and availability in the text answer -------------------------------------


def test_physics_checks_are_worded_warnings(cli):
    fp8 = _ask(cli, "70B full-finetune 100GB 7d fp8 on 64xA100-80GB")
    assert "fp8_unsupported" in fp8["training"]["checks"]
    assert "fp8_downgrade" in [w["code"] for w in fp8["warning_codes"]]
    assert any("no fp8" in w for w in fp8["warnings"])
    v100 = _ask(cli, "7B full-finetune 10GB 7d on 8xV100-32GB bf16")
    assert "bf16_unsupported" in [w["code"] for w in v100["warning_codes"]]
    text = cli("ask", "7B full-finetune 10GB 7d on 8xV100-32GB bf16").stdout
    assert "fp16" in text and "Volta" in text


def test_low_mfu_and_exposed_communication_become_warnings():
    from advisor import catalog
    from advisor.engine.estimate import HIGH_EXPOSED_COMM, LOW_MFU, best_layout
    from advisor.planning.advice import _physics_notes
    from advisor.planning.engine_inputs import model_shape, training_setup

    req = parse("70B full-finetune 100GB 7d on 64xH800")
    est = best_layout(model_shape(req), training_setup(req), catalog.get_gpu(req.gpu), 64)
    est = est.model_copy(update={"checks": ["low_mfu", "exposed_communication", "batch_above_rule"]})
    notes = {n.code: n for n in _physics_notes(req, est)}
    assert notes["low_mfu"].params["limit"] == LOW_MFU
    assert notes["exposed_communication"].params["limit"] == HIGH_EXPOSED_COMM
    assert "batch_above_rule" in notes
    from advisor.text.render import word

    assert "%" in word("en", notes["low_mfu"]) and "%" in word("zh", notes["exposed_communication"])


def test_availability_note_beside_the_plan_and_alternatives(cli):
    from advisor import catalog
    from advisor.planning.advice import FREE_ACCESS

    data = _ask(cli, "70B full-finetune 1TB 14d")
    notes = [w for w in data["warning_codes"] if w["code"] == "availability"]
    named = [g for n in notes for g in n["params"]["gpus"]]
    used = {data["plan"]["gpu"], *(a["gpu"] for a in data["alternatives"])}
    # every GPU that does not reach China freely is named once, with its own code and date
    assert sorted(named) == sorted(g for g in used if catalog.get_gpu(g).china_access not in FREE_ACCESS)
    for n in notes:
        assert {catalog.get_gpu(g).china_access for g in n["params"]["gpus"]} == {n["params"]["access"]}
    text = cli("ask", "70B full-finetune 1TB 14d").stdout
    assert "availability:" in text and "export licence" in text


def test_availability_is_worded_for_the_market(cli):
    # H20 is a China part: in China its licence date, elsewhere its rarity; Ascend the reverse.
    china = _ask(cli, "70B lora 1TB 14d on 8x H20")
    note = next(w for w in china["warning_codes"] if w["code"] == "availability")
    expected = {
        "gpus": ["H20-96GB"],
        "access": "licence_promised",
        "since": "2025-04-09",
        "sinces": [],
        "market": "china",
    }
    assert note["params"] == expected
    abroad = _ask(cli, "70B lora 1TB 14d on 8x H20 usd")
    assert [w["params"]["access"] for w in abroad["warning_codes"] if w["code"] == "availability"] == ["china_part"]
    ascend = _ask(cli, "70B lora 1TB 14d on 8x 910B")
    assert not [w for w in ascend["warning_codes"] if w["code"] == "availability"]


def test_hopeless_hardware_names_a_gpu_type_that_works(cli):
    data = _ask(cli, "70B full-finetune 100GB 7d on 2x4090")
    first = data["suggestions"][0]
    assert first["change"] == "gpu_type" and first["gpu"] != "RTX4090-24GB" and first["days"] <= 7
    assert any("Hopeless on RTX4090-24GB" in w for w in data["warnings"])


# -- the data's language --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,language,basis",
    [
        ("70B lora 1TB 14d 深圳", "en", "default"),
        ("70B lora 1TB 14d city shenzhen", "en", "default"),
        ("70B lora 1TB 14d 深圳 中文数据", "zh", "words"),
        ("70B lora 1TB 14d chinese", "zh", "words"),
        ("70B lora 1TB 14d 数据是中文的", "zh", "words"),
        ("70B lora 1TB 14d english data 深圳", "en", "words"),
        ("13B 全量微调 200GB数据 7天 预算10万", "zh", "prose"),
    ],
)
def test_a_city_is_no_evidence_of_the_datas_language(text, language, basis):
    r = parse(text)
    note = next(a for a in r.assumptions if a.code == "bytes_per_token")
    assert (r.data.language, note.params["basis"]) == (language, basis)
    assert parse("70B lora 1TB 14d 深圳").tokens == parse("70B lora 1TB 14d city shenzhen").tokens


# -- PCIe cards at scale --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["180B pretrain 3T tokens 60d usd", "70B pretrain 2T tokens 30d usd", "30B pretrain 1T tokens 20d"]
)
def test_pcie_cards_never_preferred_for_pretraining_beyond_a_few_servers(cli, text):
    from advisor import catalog
    from advisor.planning.planner import PCIE_PRETRAIN_SERVERS

    plan = _ask(cli, text)["plan"]
    pcie = "pcie" in catalog.get_gpu(plan["gpu"]).form_factor.lower()
    assert not (pcie and plan["nodes"] > PCIE_PRETRAIN_SERVERS)


def test_ranking_puts_pcie_pretraining_at_scale_after_sxm(book):
    """The rule itself: a cheaper L40S plan over 16 servers ranks after a dearer SXM plan for
    pre-training; for fine-tuning, or on a few servers, price decides as before."""
    from advisor import catalog
    from advisor.engine.estimate import best_layout
    from advisor.planning.engine_inputs import model_shape, training_setup
    from advisor.planning.planner import _sort_key, make_plan

    def plan(text, gpu, count, rent):
        req = parse(text)
        m, g = model_shape(req), catalog.get_gpu(gpu)
        p = make_plan(req, m, g, best_layout(m, training_setup(req), g, count), book, 30, None)
        return req, p.model_copy(update={"costs": p.costs.model_copy(update={"rent_total": rent})})

    for text, count, pcie_first in (
        ("13B pretrain 300B tokens usd", 128, False),
        ("13B pretrain 300B tokens usd", 16, True),
        ("13B full-finetune 300B tokens usd", 128, True),
    ):
        req, pcie = plan(text, "L40S-48GB", count, 1.0)
        _, sxm = plan(text, "H100-SXM5-80GB", count, 2.0)
        ranked = sorted([sxm, pcie], key=_sort_key(req))
        assert (ranked[0].gpu == "L40S-48GB") == pcie_first, text


def test_a_what_if_fixing_an_unrunnable_layout_is_answered_with_the_reason(book):
    from advisor.planning.followup import follow_up

    reply = follow_up("70B full-finetune 100GB 7d on 64xH800", {"gpu": "H800-SXM-80GB"}, "what if tp 3?", book=book)
    assert reply.advice is None and "tp 3" in reply.text and "8 GPUs" in reply.text
    fixed = follow_up(
        "70B full-finetune 100GB 7d on 64xH800", {"gpu": "H800-SXM-80GB"}, "what if tp 8 pp 4?", book=book
    )
    assert fixed.kind == "whatif" and (fixed.advice.plan.estimate.layout.tp, fixed.advice.plan.estimate.layout.pp) == (
        8,
        4,
    )


def test_moe_plans_quote_how_far_the_token_dispatcher_moves_their_speed(cli):
    from advisor.engine.frameworks import MOE_RELEASE_SPREAD_TOKENS_S

    slow, fast = MOE_RELEASE_SPREAD_TOKENS_S
    moe = _ask(cli, "qwen3-30b-a3b lora 50GB 3d")
    note = next(w for w in moe["warning_codes"] if w["code"] == "moe_release_spread")
    assert note["params"]["days"] == pytest.approx(moe["training"]["days"] * fast / slow)
    text = cli("ask", "qwen3-30b-a3b lora 50GB 3d").stdout
    assert "1.8x the time" in text and "--moe-token-dispatcher-type flex" in text
    text_zh = cli("ask", "qwen3-30b-a3b lora 50GB 3d lang zh").stdout
    assert "1.8 倍" in text_zh and "flex 分发器" in text_zh
    dense = _ask(cli, "70B lora 1TB 14d")
    assert "moe_release_spread" not in [w["code"] for w in dense["warning_codes"]]
