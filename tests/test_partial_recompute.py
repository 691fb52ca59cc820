"""Megatron-Core's block recompute (`--recompute-method block --recompute-num-layers N`,
`recompute 21 layers`): the first N layers of each model chunk recomputed whole, the rest keeping
all their activations (advisor/engine/layout.py ModelSplit.recomputed_share)."""

import pytest

from advisor import catalog
from advisor.engine.estimate import best_layout
from advisor.engine.layout import ModelSplit
from advisor.engine.memory import GIB, _act_bytes
from advisor.planning.engine_inputs import model_shape, training_setup
from advisor.request.canonical import canonical
from advisor.request.parser import RequestError, parse

# MLPerf v5.0, AMD's Llama 2 70B LoRA on 8 MI300X: full recompute of 21 of 80 layers (ACM=block ACL=21)
RUN = "llama2-70b lora r=16 targets attn 1B tokens seq 8192 mbs 1 gbs 8 tp 1 pp 1 cp 1 {} fp8 megatron on 8xMI300X"


def _plan(text):
    req = parse(text)
    m, setup = model_shape(req), training_setup(req)
    return m, best_layout(m, setup, catalog.get_gpu(req.gpu), req.gpu_count)


@pytest.mark.parametrize(
    "words",
    [
        "--recompute-granularity full --recompute-method block --recompute-num-layers 21",
        "--recompute-num-layers 21 --recompute-method block",
        "recompute_method=block recompute_num_layers=21",
        "recompute 21 layers",
        "recompute full 21 of 80 layers",
        "recompute-layers 21",
        "重计算21层",
    ],
)
def test_block_recompute_is_said_in_the_words_teams_paste(words):
    req = parse(f"llama2-70b lora 1B tokens {words} on 8xH100")
    assert (req.recompute, req.recompute_layers) == ("full", 21)
    assert parse(canonical(req)).recompute_layers == 21


def test_uniform_recompute_is_every_layer_and_contradictions_are_refused():
    uniform = parse(
        "llama2-70b lora 1B tokens --recompute-granularity full --recompute-method uniform"
        " --recompute-num-layers 2 on 8xH100"
    )
    assert (uniform.recompute, uniform.recompute_layers) == ("full", None)
    for bad in ("recompute selective recompute-layers 21", "recompute-layers 0", "recompute none recompute 4 layers"):
        with pytest.raises(RequestError):
            parse(f"llama2-70b lora 1B tokens {bad} on 8xH100")


def test_the_share_is_per_model_chunk():
    """80 layers on pp 4 x vpp 2: chunks of 10, so 5 layers a chunk is half of them; 21 is all."""
    lay = ModelSplit(
        gpu="H100-SXM5-80GB",
        gpu_count=8,
        gpus_per_node=8,
        nodes=1,
        tp=1,
        pp=4,
        dp=2,
        recompute="full",
        virtual_stages=2,
    )
    assert lay.recomputed_share(80) == 1.0
    assert lay.model_copy(update={"recompute_layers": 5}).recomputed_share(80) == pytest.approx(0.5)
    assert lay.model_copy(update={"recompute_layers": 21}).recomputed_share(80) == 1.0
    assert lay.model_copy(update={"recompute": "selective"}).recomputed_share(80) == 0.0


def test_block_recompute_keeps_the_other_layers_activations_and_reruns_only_its_own():
    """Hand-worked on AMD's MLPerf layout: 21 layers keep their inputs (h x 1 B in FP8 x 8,192
    tokens each), the other 59 all their activations (the per-token figure the note gives), plus
    one layer's rebuilt; the recompute FLOPs are 21/80 of full recompute's."""
    m, part = _plan(RUN.format("recompute-layers 21"))
    _, full = _plan(RUN.format("recompute full"))
    _, none = _plan(RUN.format("recompute none"))
    assert part.layout.recompute_layers == 21 and full.layout.recompute_layers is None
    note = next(n for n in part.memory.notes if n["kind"] == "activations")
    tokens, per_token = note["tokens"], note["per_token_h"] * m.hidden
    act = _act_bytes("fp8")
    expected = (21 * m.hidden * act * tokens + 59 * per_token * tokens + per_token * tokens) / GIB
    assert part.memory.activations - note["logits_gib"] == pytest.approx(expected, rel=1e-6)
    assert full.memory.activations < part.memory.activations < none.memory.activations
    extra = {
        k: e.throughput.hardware_flops_per_token - e.throughput.model_flops_per_token
        for k, e in (("part", part), ("full", full))
    }
    assert extra["part"] == pytest.approx(21 / 80 * extra["full"])
    speed = {k: e.throughput.tokens_per_s_per_gpu for k, e in (("part", part), ("full", full), ("none", none))}
    assert speed["full"] < speed["part"] < speed["none"]


def test_the_plan_says_it_and_another_stack_is_refused(cli):
    import json

    out = cli(
        "ask", "--json", RUN.format("--recompute-granularity full --recompute-method block --recompute-num-layers 21")
    )
    plan = json.loads(out.stdout)["plan"]
    assert (plan["recompute"], plan["recompute_layers"], plan["framework"]) == ("full", 21, "Megatron-Core")
    text = cli("ask", RUN.format("recompute-layers 21")).stdout
    assert "`--recompute-method block --recompute-num-layers 21`" in text and "first 21 layers" in text
    refused = cli("ask", "llama2-70b lora 1B tokens recompute-layers 21 deepspeed on 8xH100")
    assert refused.returncode == 2 and "Megatron-Core's block recompute" in refused.stdout + refused.stderr
