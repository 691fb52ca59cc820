"""Models of 2025-26 by name, with their published total and active parameters, and names the
catalogue lacks: never planned as that many dense parameters without saying so."""

import pytest

from advisor import catalog
from advisor.engine.estimate import best_layout
from advisor.engine.shapes import active_count, count_params, linear_attention_params
from advisor.planning.engine_inputs import model_shape, training_setup
from advisor.planning.plan_answers import _kv_bytes_per_token
from advisor.request.parser import RequestError, parse

# (name typed, published total B, published active B, tolerance). Published figures: the
# sources in data/models.toml; where the publisher leaves the embedding out of the active
# count (gpt-oss, GLM-4.5, MiniMax-M2) the tolerance allows for it.
PUBLISHED = [
    ("mixtral-8x22b", 141, 39, 0.03),
    ("kimi-k2", 1040, 32, 0.05),
    ("glm-4.5", 355, 32, 0.06),
    ("glm-4.5-air", 106, 12, 0.12),
    ("gpt-oss-120b", 116.8, 5.13, 0.12),
    ("gpt-oss-20b", 20.9, 3.6, 0.17),
    ("llama4-scout", 109, 17, 0.03),
    ("llama4-maverick", 400, 17, 0.03),
    ("deepseek-v3.1", 671, 37, 0.02),
    ("deepseek-r1", 671, 37, 0.02),
    ("qwen3-235b-a22b", 235, 22, 0.02),
    ("qwen3-30b-a3b", 30.5, 3.3, 0.02),
    ("qwen3-14b", 14.8, 14.8, 0.02),
    ("qwen3-coder-480b-a35b", 480, 35, 0.02),
    ("minimax-m2", 230, 10, 0.11),
    ("deepseek-v2", 236, 21, 0.02),
    ("deepseek-coder-v2", 236, 21, 0.02),
    ("dbrx", 132, 36, 0.02),
    ("phi-3-mini", 3.8, 3.8, 0.02),
    ("phi-3-medium", 14, 14, 0.02),
    ("gemma-2-9b", 9.24, 9.24, 0.02),
    ("gemma-2-27b", 27.2, 27.2, 0.02),
    # a probe's published runs had planned these as generic MoE shapes (72 experts for Moonlight's
    # 64 with MLA, 40 for Grok-1's 8): Moonshot's 16B / 3B; xAI's 314B (active shape-derived)
    ("moonlight-16b-a3b", 16, 3, 0.03),
    ("grok-1", 314, 83.8, 0.02),
    # the calibration rows' own models (eighteenth session): Microsoft's nominal 1.3B and 2.7B for
    # phi-1.5 and Phi-2 are below the checkpoints' 1.42B and 2.78B (hence the tolerance)
    ("phi-1.5", 1.3, 1.3, 0.10),
    ("phi-2", 2.7, 2.7, 0.04),
    ("phi-4-mini", 3.8, 3.8, 0.02),
    ("stablelm-3b-4e1t", 2.795443200, 2.795443200, 0.001),
    ("pythia-1b", 1.011781632, 1.011781632, 0.001),
    ("starcoderbase", 15.5, 15.5, 0.02),
    ("smollm3-3b", 3.08, 3.08, 0.02),
    ("codellama-34b", 34, 34, 0.02),
    ("llama2-34b", 34, 34, 0.02),
    # names teams type today (eighteenth session): new entries, and releases that keep a
    # catalogued shape (aliases); Gemma 3's 4B and 12B count its ~0.4B vision encoder, not modelled
    ("gemma-3-4b-it", 4, 4, 0.04),
    ("gemma-3-12b-it", 12, 12, 0.02),
    ("qwen2.5-coder-32b-instruct", 32.5, 32.5, 0.02),
    ("deepseek-v3.1-terminus", 671, 37, 0.02),
    ("deepseek-v3.2-exp", 671, 37, 0.02),
    ("deepseek-r1-0528", 671, 37, 0.02),
    ("glm-4.6", 355, 32, 0.06),
    ("llama-3.3-70b-instruct", 70.6, 70.6, 0.02),
    ("deepseek-r1-distill-qwen-32b", 32.5, 32.5, 0.02),
    ("deepseek-r1-distill-llama-70b", 70.6, 70.6, 0.02),
    # held-out rows ran it as a bare 14.3B-A2.7B; its card's 14.3B / 2.7B, the chat release too
    ("qwen1.5-moe-a2.7b", 14.3, 2.7, 0.02),
    ("Qwen1.5-MoE-A2.7B-Chat", 14.3, 2.7, 0.02),
    ("qwen1.5-moe", 14.3, 2.7, 0.02),
    # hybrid linear attention (thirty-seventh session): the cards' 80B / 3B (3.56B without the
    # input embedding, the card rounds), 397B / 17B and 122B / 10B, which count the vision
    # encoder (0.46B) this text model leaves out; Qwen3-Coder-Next keeps Qwen3-Next's config
    ("qwen3-next", 80, 3.56 + 0.31, 0.03),
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", 80, 3.87, 0.03),
    ("qwen3-coder-next", 80, 3.87, 0.03),
    ("qwen3.5-397b-a17b", 397, 17, 0.03),
    ("qwen3.5-122b-a10b", 122, 10, 0.03),
    ("qwen3.5-27b", 27, 27, 0.02),
    # releases of 2025-26 (thirty-seventh session): new shapes, and releases that keep one
    ("glm-4.7", 355, 32, 0.06),
    ("kimi-k2.5", 1040, 32, 0.05),
    ("minimax-m2.5", 230, 10, 0.11),
    ("MiniMaxAI/MiniMax-M2.1", 230, 10, 0.11),
    ("glm-5", 744, 40, 0.03),
    ("gemma-4-31b-it", 30.7, 30.7, 0.02),
    ("google/gemma-4-26b-a4b-it", 25.2, 3.8, 0.02),
    ("olmo-3-32b-think", 32.23, 32.23, 0.02),
    ("allenai/OLMo-2-1124-7B-Instruct", 7.3, 7.3, 0.02),
    ("ministral-3-14b-instruct-2512", 13.5, 13.5, 0.02),
    # Mamba-2 hybrids (fortieth session): IBM's 32B / 9B; H-Tiny's "1B active" is rounded down from
    # the config's 1.47B with the embedding (1.31B without), so it is held to that count
    ("granite-4.0-h-small", 32, 9, 0.03),
    ("ibm-granite/granite-4.0-h-tiny", 7, 1.47, 0.01),
    # its 3.2B active leaves out the input embedding (3.6B with it, as counted here)
    ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", 31.6, 3.58, 0.01),
    ("nemotron 3 nano", 31.6, 3.58, 0.01),
    # GPT-2 (fiftieth session; "how long to train gpt-2 small (124M) on 10B tokens" had been refused over
    # "gpt-2"): the sizes nanoGPT names, 124M, 350M, 774M and 1558M
    ("gpt-2 small", 0.124, 0.124, 0.01),
    ("gpt2-medium", 0.355, 0.355, 0.02),
    ("openai-community/gpt2-large", 0.774, 0.774, 0.01),
    ("gpt2-xl", 1.558, 1.558, 0.01),
]


@pytest.mark.parametrize(("name", "total", "active", "tol"), PUBLISHED, ids=[p[0] for p in PUBLISHED])
def test_named_models_have_their_published_sizes(name, total, active, tol):
    shape = catalog.find_model(name)
    assert shape is not None, name
    assert shape.params_b == pytest.approx(total, rel=tol)
    assert shape.active_params_b == pytest.approx(active, rel=tol)
    req = parse(f"{name} lora 20GB 2d")
    assert req.model == shape.name and not any(n.code.startswith("unknown") for n in req.assumptions)


def test_gpt_oss_is_not_a_dense_120b():
    req = parse("gpt-oss-120b full-finetune 10GB 3d")
    assert req.active_params_b < 6 < 100 < req.params_b


def test_unknown_name_without_a_size_asks_for_the_size():
    # a name that gives only the active parameters (Hunyuan-Large, A52B, is 389B in all) is no dense 52B
    for text in (
        "kimi-k3 lora 20GB 2d",
        "mixtral-8x99b lora 20GB 2d",
        "grok-2 lora 1GB 1d",
        "hunyuan-a52b lora 1GB 1d",
        "hunyuan-a52b-instruct lora 1GB 1d",
        "glm-4.5-flash lora 1GB 1d",  # a smaller sibling of a catalogued release, not it
        "phi-3-small lora 1GB 1d",
        "minimax-m3 lora 1GB 1d",  # a later release: not MiniMax-M2
    ):
        with pytest.raises(RequestError) as e:
            parse(text)
        assert e.value.kind == "unknown_model_name", text


def test_unknown_name_with_a_size_says_how_it_is_planned():
    dense = parse("qwen2-72b lora 1GB 1d")
    assert dense.params_b == 72 and any(n.code == "unknown_model" for n in dense.assumptions)
    moe = parse("foo-30b-a3b lora 1GB 1d")
    assert (moe.params_b, moe.active_params_b) == (30, 3)
    assert any(n.code == "unknown_moe_model" for n in moe.assumptions)


def test_an_ordinary_unknown_word_is_read_past_and_said_not_taken_for_a_model():
    r = parse("70B lora 1GB 2d blah")
    assert (r.params_b, r.model) == (70, None)
    assert [n.params["words"] for n in r.assumptions if n.code == "read_past"] == [["blah"]]


def test_deepseek_v3_2_is_the_v3_shape():
    # continued pre-training of V3.1-Terminus with sparse attention on the same MoE and MLA shape
    for name in ("deepseek-v3.2", "deepseek-v3.2-exp"):
        req = parse(f"{name} lora 1GB 1d")
        assert (req.model, req.params_b, req.active_params_b) == ("deepseek-v3", 671, 37)


@pytest.mark.parametrize(
    "text, model",
    [
        ("Qwen/Qwen2.5-7B-Instruct lora 10GB 2d", "qwen2.5-7b"),
        ("meta-llama/Llama-3.1-8B-Instruct lora 10GB 2d", "llama3.1-8b"),
        ("deepseek-ai/DeepSeek-V3 full-finetune 100GB 14d", "deepseek-v3"),
        ("mistralai/Mistral-7B-v0.1 qlora 5GB", "mistral-7b"),
        # fine-tunes that keep their base's shape (model probe, thirtieth session): each had been refused
        ("phi-4-reasoning lora 10GB 2d", "phi-4"),
        ("qwq lora 10GB 2d", "qwen2.5-32b"),
        ("magistral-small-2507 lora 10GB 2d", "mistral-small-24b"),
    ],
)
def test_a_hugging_face_repository_id_names_its_model(text, model):
    assert parse(text).model == model


@pytest.mark.parametrize(
    "text, model",
    [
        ("qwen2.5-72b-instruct-awq lora 10GB", "qwen2.5-72b"),
        ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4 qlora 1GB", "qwen2.5-7b"),
        ("qwen3-32b-fp8 lora 1GB", "qwen3-32b"),
        ("llama3.1-8b-instruct-bnb-4bit qlora 1GB", "llama3.1-8b"),
    ],
)
def test_a_checkpoint_quantized_for_serving_is_its_model_trained_from_16_bits(text, model):
    req = parse(text)
    assert req.model == model and req.precision == "bf16"
    note = next(n for n in req.assumptions if n.code == "quantized_checkpoint")
    assert note.params["model"] == model


@pytest.mark.parametrize(
    "text, model",
    [
        ("qwen3-235b-a22b-instruct-2507 lora 1GB", "qwen3-235b-a22b"),
        ("llama2-7b-chat-hf lora 1GB", "llama2-7b"),
    ],
)
def test_a_checkpoint_names_variants_one_after_another(text, model):
    req = parse(text)
    assert req.model == model and not any(n.code == "quantized_checkpoint" for n in req.assumptions)


def test_hf_apart_from_the_name_is_the_stack():
    assert parse("qwen2.5-72b hf lora 10GB").stack == "hf"
    assert parse("qwen2.5-72b-hf lora 10GB").stack is None


@pytest.mark.parametrize(
    "text, model, params_b",
    [
        ("Mistral-7B-Instruct-v0.3 lora 10k samples", "mistral-7b", None),  # a revision: the same shape
        ("internlm2_5-20b-chat 全参微调 5万条", None, 20),  # not catalogued: its size, said so
        ("THUDM/chatglm3-6b lora 5千条", "chatglm3-6b", None),  # catalogued since the 37th session
        ("mistral-nemo-12b lora 1GB", "mistral-nemo-12b", None),  # "nemo" inside a name is not the NeMo stack
    ],
)
def test_names_as_teams_copy_them_from_the_hub(text, model, params_b):
    req = parse(text)
    assert req.model == model and req.stack is None
    if params_b:
        assert req.params_b == params_b and any(n.code == "unknown_model" for n in req.assumptions)


@pytest.mark.parametrize(
    "text,model,params,active",
    [
        # a version apart from the family: Gemma 3 4B is catalogued since the eighteenth session
        ("Gemma 3 4B lora 10k samples 2 days", "gemma3-4b", 3.88, 3.88),
        ("Baichuan 2 13B lora 10k samples 2 days", "baichuan2-13b", 13.9, 13.9),
        ("Mistral 7B v0.3 lora 10k samples 2 days", "mistral-7b", 7.24, 7.24),
        # not "did you mean mistral-7b?"; catalogued since the twenty-fifth session
        ("mistral small 24b qlora 40k samples 2d", "mistral-small-24b", 23.57, 23.57),
        ("Mistral Small 3.1 qlora 40k samples 2d", "mistral-small-24b", 23.57, 23.57),
        ("mistral nemo lora 40k samples 2d", "mistral-nemo-12b", 12.25, 12.25),
        ("mistral large 2 lora 50k samples 5d", "mistral-large-123b", 122.61, 122.61),
        ("Mistral-Large-Instruct-2411 full finetune 10GB 7d", "mistral-large-123b", 122.61, 122.61),
        ("ERNIE 4.5 300B-A47B lora 10k samples 2 days", "ernie-4.5-300b-a47b", 300, 47),
        ("InternLM 2 20B lora 10k samples 2 days", None, 20, 20),
        ("gemma 3 27b lora 10k samples 2 days", "gemma3-27b", 27.01, 27.01),
    ],
)
def test_names_as_vendors_write_them_with_spaces(text, model, params, active):
    r = parse(text)
    assert (r.model, r.params_b, r.active_params_b) == (model, params, active)
    assert not [n for n in r.assumptions if n.code == "read_past"]


@pytest.mark.parametrize("name", ["qwen2.5-vl-7b", "internvl2-26b", "llava-1.5-13b", "llava 7b"])
def test_a_vision_language_checkpoint_says_what_is_not_counted(name):
    """`qwen2.5-vl-7b` had been planned as a text model with no word about images."""
    r = parse(f"{name} lora 10k samples 2d")
    noted = [n for n in r.assumptions if n.code == "vision_language"]
    assert len(noted) == 1 and name.startswith(noted[0].params["model"])


def test_a_text_model_has_no_vision_note():
    assert not any(n.code == "vision_language" for n in parse("qwen2.5-72b lora 10k samples 2d").assumptions)


@pytest.mark.parametrize(
    "text, typed, model",
    [
        ("deepseek-r1 lora 5万条", "deepseek-r1", "deepseek-v3"),
        ("llama3.3-70b lora 10GB", "llama3.3-70b", "llama3.1-70b"),
    ],
)
def test_another_release_planned_on_a_catalogued_shape_is_said(text, typed, model):
    r = parse(text)
    assert r.model == model
    assert [n.params for n in r.assumptions if n.code == "model_as"] == [{"typed": typed, "model": model}]


@pytest.mark.parametrize(
    "text", ["Meta-Llama-3.1-8B-Instruct lora 10GB", "Qwen/Qwen2.5-7B-Instruct lora 1GB", "qwen2.5-72b lora 1GB"]
)
def test_a_spelling_of_the_catalogued_release_is_not_a_note(text):
    assert not [n for n in parse(text).assumptions if n.code == "model_as"]


def estimate_checks(text):
    r = parse(text)
    return best_layout(model_shape(r), training_setup(r), catalog.get_gpu(r.gpu), r.gpu_count).checks


def test_llama_3_is_its_own_entry_with_its_8k_context():
    """Llama 3 (April 2024) has Llama 3.1's shape but was trained on 8,192-token sequences:
    longer ones are planned and warned about, as for any model past its context."""
    r = parse("llama3-8b lora 10GB seq 16384")
    assert r.model == "llama3-8b" and not [n for n in r.assumptions if n.code == "model_as"]
    assert model_shape(r).max_seq == 8192
    assert model_shape(parse("llama3.1-8b lora 10GB")).max_seq == 131072
    long = estimate_checks("llama3-8b lora 1B tokens seq 16384 on 8xH100")
    assert "seq_beyond_context" in long
    assert "seq_beyond_context" not in estimate_checks("llama3.1-8b lora 1B tokens seq 16384 on 8xH100")


def test_a_gated_deltanet_layer_has_the_parameters_of_its_projections():
    """Qwen3-Next-80B-A3B's layers by hand from transformers' modules (hidden 2048; 16 key heads
    and 32 value heads of 128; conv 4): in_proj_qkvz 2048 x 12288 = 25,165,824, in_proj_ba
    2048 x 64 = 131,072, conv1d 8192 x 4 = 32,768, dt_bias and A_log 64, the gated norm 128,
    out_proj 4096 x 2048 = 8,388,608: 33,718,464. Its gated attention layer: q_proj with its
    gate 2048 x 8192 = 16,777,216, k and v 2048 x 512 each, o_proj 8,388,608: 27,262,976."""
    m = catalog.find_model("qwen3-next")
    assert linear_attention_params(m) == 33_718_464
    c = count_params(m)
    assert c.attention_per_layer == pytest.approx((36 * 33_718_464 + 12 * 27_262_976) / 48)
    # 512 experts x 3 x 2048 x 512, a router, the shared expert and its gate: 79.67B in all
    assert c.total == pytest.approx(79_674_391_296, rel=1e-5)


def test_linear_attention_costs_the_same_at_any_length():
    """A Gated DeltaNet layer's core costs 2·(3·dk·dv + C·(3dk + 2dv)) FLOPs a value head and
    token: 32 x 2 x (3 x 128 x 128 + 64 x (384 + 256)) = 5,767,168 for Qwen3-Next, at any length;
    its 12 softmax layers' work grows with the sequence, so at 32k tokens attention is a larger
    share than at 4k, but a quarter of what it would be were every layer softmax attention."""
    m = catalog.find_model("qwen3-next")
    assert m.linear_core_flops() == 5_767_168
    keys = m.linear_core_flops() / (4 * 16 * 256)  # the keys whose scores and values cost that
    assert m.mean_keys(4096) == pytest.approx(0.75 * keys + 0.25 * 4097 / 2)
    # against all 48 layers softmax: the 12 softmax layers' quarter plus the linear layers' 352 keys
    assert m.attention_share(4096) == pytest.approx(0.25 + 0.75 * 352 / 2048.5)
    assert m.attention_share(32768) == pytest.approx(0.25 + 0.75 * 352 / 16384.5)


def test_a_kimi_delta_attention_layer_has_the_parameters_of_its_projections():
    """Kimi Linear 48B-A3B by hand from modeling_kimi.py (hidden 2304; 32 heads of 128; conv 4):
    q, k, v 2304 x 4096 = 9,437,184 each, their convolutions 4096 x 4 each, the decay's low rank
    2304 x 128 + 128 x 4096, beta 2304 x 32, A_log 32, dt_bias 4096, the output gate's low rank
    2304 x 128 + 128 x 4096, the gated norm 128, o_proj 4096 x 2304: 39,514,272. Its 7 MLA layers
    (no query compression): q 2304 x 32 x 192, kv down 2304 x 576, its norm 512, kv up 512 x 32 x
    256, o_proj 4096 x 2304: 29,114,880. The mixture's linear projections are read from the hidden
    size, so the layer's GEMMs carry the 20 KDA layers' share."""
    from advisor.engine.roofline import layer_linears

    m = catalog.find_model("moonshotai/Kimi-Linear-48B-A3B-Instruct")
    assert m.linear_attention_kind == "kda" and m.uses_mla
    assert linear_attention_params(m) == 39_514_272
    c = count_params(m)
    assert c.attention_per_layer == pytest.approx((20 * 39_514_272 + 7 * 29_114_880) / 27)
    assert c.total == pytest.approx(49_122_681_728, rel=1e-6)  # the helper's count, the router bias aside
    gemms = layer_linears(m, 4096, 1, 1, True, 1)
    mla = sum(g.count * g.n * g.k for g in gemms[:4])
    kda = sum(g.count * g.n * g.k for g in gemms[4:8])
    assert mla == pytest.approx(7 / 27 * (2304 * 32 * 192 + 2304 * 576 + 512 * 32 * 256 + 4096 * 2304))
    assert kda == pytest.approx(20 / 27 * (39_514_272 - 3 * 4096 * 4 - 32 - 4096 - 128))  # no convs, biases


@pytest.mark.parametrize(
    "text", ["MiniMaxAI/MiniMax-M1-80k lora 10GB 7d", "MiniMax-Text-01 lora 1GB 3d", "MiniMax M1 lora 1GB 3d"]
)
def test_minimax_m1_is_seven_lightning_layers_to_each_softmax_one(text):
    """Its lightning layer by hand from transformers' MiniMaxLightningAttention (hidden 6144, 64
    heads of 128): qkv 6144 x 24576 = 150,994,944, the output gate 6144 x 8192 = 50,331,648, the
    norm 8,192, out_proj 8192 x 6144 = 50,331,648: 251,666,432; its core 64 x 2 x (2 x 128 x 128 +
    256 x 256) = 12,582,912 FLOPs a token at any length. 456.09B in all (published 456B); it had
    been a generic 456B-A45.9B mixture with every layer softmax attention."""
    r = parse(text)
    m = model_shape(r)
    assert r.model == "minimax-m1" and m.linear_attention_kind == "lightning" and m.linear_attention_layers == 70
    assert linear_attention_params(m) == 251_666_432
    assert m.linear_core_flops() == 12_582_912
    assert count_params(m).total == pytest.approx(456_089_655_296, rel=1e-6)


@pytest.mark.parametrize(
    "text", ["deepseek-v4 lora 10GB 7d", "DeepSeek V4 全量微调 1TB 14天", "deepseek-ai/DeepSeek-V4 lora 1GB"]
)
def test_a_name_released_in_two_sizes_asks_which(text):
    """ "deepseek-v4" is V4-Flash (284B-A13B) or V4-Pro (1.6T-A49B): the refusal names both (it had
    asked for a size as for any unknown name, and "DeepSeek V4" had been a misspelt deepseek-v3)."""
    with pytest.raises(RequestError) as err:
        parse(text)
    assert err.value.kind == "model_releases"
    said = err.value.message("en")
    assert "`deepseek-v4-flash` (284B-A13B) or `deepseek-v4-pro` (1600B-A49B)" in said
    assert "`deepseek-v4-flash`（284B-A13B）" in err.value.message("zh")


def test_a_hybrid_caches_keys_and_values_in_its_softmax_layers_only():
    """Serving Qwen3-Next: 12 of its 48 layers keep a KV cache (2 KV heads of 256, bf16):
    2 x 12 x 2 x 256 x 2 = 24,576 bytes a token; its linear layers keep a fixed state."""
    assert _kv_bytes_per_token(catalog.find_model("qwen3-next")) == 24_576


@pytest.mark.parametrize(
    "text, total, active",
    [
        ("deepseek-ai/DeepSeek-V4-Flash lora 10GB 7d", 284, 13),
        ("DeepSeek V4 Pro 全量微调 1TB 30天", 1600, 49),
        ("hunyuan-large lora 20GB 7d", 389, 52),
        ("inclusionAI/Ling-flash-2.0 lora 10GB 3d", 100, 6.1),
        ("inclusionAI/Ling-1T lora 10GB 7d", 1000, 50),
        # (fortieth session) they had asked for the size their publishers give
        ("inclusionAI/Ring-flash-2.0 lora 10GB 3d", 100, 6.1),
        ("ai21labs/AI21-Jamba-1.5-Large lora 10GB 3d", 398, 94),
        ("AI21-Jamba-Mini-1.7 lora 10GB 3d", 52, 12),
        ("pangu pro moe lora 10GB 3d", 72, 16),
        ("盘古Ultra MoE 全量微调 1万条 3天", 718, 39),
        ("Skywork-MoE-Base lora 10GB 3d", 146, 22),
        ("deepseek-ai/deepseek-moe-16b-base lora 10GB 3d", 16, 2.8),
        # its name ends in its size: "-718b" had been read as a negative model size
        ("FreedomIntelligence/openPangu-Ultra-MoE-718B lora 10GB 3d", 718, 39),
    ],
)
def test_a_mixture_whose_config_was_not_read_is_planned_at_its_published_sizes(text, total, active):
    """Named without sizes they had been refused ("give its size"): planned as a generic mixture of
    the publisher's total and active sizes, said as an uncatalogued model."""
    r = parse(text)
    assert (r.model, r.params_b, r.active_params_b) == (None, total, active)
    assert [n.code for n in r.assumptions if n.code == "unknown_moe_model"] == ["unknown_moe_model"]


@pytest.mark.parametrize(
    "text, total, active",
    [
        ("baidu/ERNIE-4.5-VL-424B-A47B-PT lora 10GB 5d", 424, 47),
        ("foo/Bar-100B-A10B lora 10GB 3d", 100, 10),
    ],
)
def test_an_organisation_before_an_uncatalogued_mixture_is_read_past(text, total, active):
    """ "Qwen/" had refused the request ("I did not understand qwen/") where the bare name was planned."""
    r = parse(text)
    assert (r.params_b, r.active_params_b) == (total, active)


@pytest.mark.parametrize(
    "text, model",
    [
        ("文心 ERNIE 4.5 21B lora 5GB 2天", "ernie-4.5-21b-a3b"),
        ("文心4.5 300B lora 10GB 7天", "ernie-4.5-300b-a47b"),
        ("腾讯混元 Hunyuan-A13B lora 10GB 3天", "hunyuan-a13b"),
        ("混元 A13B lora 10GB 3天", "hunyuan-a13b"),  # had been a dense 13B with "a" not in the catalogue
    ],
)
def test_baidus_and_tencents_chinese_names_are_their_models(text, model):
    assert parse(text).model == model


@pytest.mark.parametrize(
    "text, model",
    [
        ("gpt-oss:20b lora 5GB 1d", "gpt-oss-20b"),
        ("qwen2.5:7b lora 1GB 1d", "qwen2.5-7b"),
        ("deepseek-r1:7b lora 1GB 1d", "qwen2.5-7b"),  # R1 distilled into Qwen2.5-7B
        ("deepseek-r1-70b lora 1GB 1d", "llama3.1-70b"),
    ],
)
def test_an_ollama_tag_names_its_model(text, model):
    """`gpt-oss:20b` had been "did you mean gpt-oss-20b?", `deepseek-r1-7b` a size of -7B."""
    assert parse(text).model == model


@pytest.mark.parametrize(
    "text, word",
    [
        ("qwen3-max lora 10GB 3d", "qwen3-max"),
        ("gpt-4o fine-tune 10GB", "gpt-4o"),
        ("claude 3.5 sonnet lora 1GB", "claude 3.5 sonnet"),
        ("豆包 微调 1万条 3天", "豆包"),
        ("文心一言 微调 1万条", "文心一言"),
        ("gemini 2.5 pro lora 1GB", "gemini 2.5 pro"),
    ],
)
def test_a_closed_model_is_said_to_be_one(text, word):
    """Weights not published: no server trains them (it had asked for the model's size, as for an
    open model the catalogue lacks)."""
    with pytest.raises(RequestError) as err:
        parse(text)
    assert err.value.kind == "closed_model" and err.value.details["word"] == word
    assert "closed model" in err.value.message("en") and "闭源模型" in err.value.message("zh")


@pytest.mark.parametrize("text", ["gpt-oss-20b lora 1GB", "gemma-3-27b lora 1GB", "qwen2.5-72b lora 1GB"])
def test_open_models_with_a_closed_ones_family_word_plan(text):
    assert parse(text).model


def test_mistral_large_3_is_deepseek_v3s_shape_with_wider_fewer_experts():
    """Mistral Large 3 (2512): DeepSeek-V3's MLA layers (128 heads, q rank 1536, kv rank 512,
    128 + 64 query and key dims, 128 value dims: 187,107,328 a layer), 3 dense layers of 16384,
    then 58 layers of 128 experts of 4096, 4 routed and 1 shared, a 131072-token vocabulary untied:
    673,421,089,792 by hand (the card's 673B language model; 675B with its 2.5B vision encoder,
    not counted); 39.0B active without the input embedding (the card's 39B)."""
    m = catalog.find_model("mistral-large-3")
    c = count_params(m)
    assert c.attention_per_layer == 187_107_328
    assert c.total == pytest.approx(673_421_089_792, rel=1e-6)
    assert (active_count(m, c) - 131072 * 7168) / 1e9 == pytest.approx(39.0, rel=0.01)
    r = parse("Mistral Large 3 lora 10GB 3d")
    assert r.model == "mistral-large-3" and "vision_language" in [n.code for n in r.assumptions]


@pytest.mark.parametrize(
    "text, model, vision",
    [
        ("mistralai/Mistral-Large-3-675B-Instruct-2512 lora 10GB 3d", "mistral-large-3", True),
        ("Mistral Large 3 675B-A41B lora 10GB 3d", "mistral-large-3", True),
        ("devstral 2 lora 10GB 3d", "mistral-large-123b", False),
        ("devstral small 2 lora 10GB 3d", "mistral-small-24b", True),
        ("intern-s1 lora 10GB 3d", "qwen3-235b-a22b", True),
        ("internlm/Intern-S1-mini lora 10GB 3d", "qwen3-8b", True),
        ("glm-4.5v lora 10GB 3d", "glm-4.5-air", True),
        ("zai-org/GLM-4.6V lora 10GB 3d", "glm-4.5-air", True),
        ("Qwen/Qwen3-VL-235B-A22B-Instruct lora 10GB 5d", "qwen3-235b-a22b", True),
        ("qwen3-vl-30b-a3b lora 10GB 3d", "qwen3-30b-a3b", True),
    ],
)
def test_releases_of_2025_are_planned_on_their_language_models_shape(text, model, vision):
    """Each had been refused ("I do not know the model", a contradiction, or a size asked for) or
    planned as a generic shape: their language models are catalogued shapes (data/models.toml,
    their notes); one that reads images says its encoder is not counted."""
    r = parse(text)
    assert r.model == model
    assert ("vision_language" in [n.code for n in r.assumptions]) == vision


@pytest.mark.parametrize(
    "text, total, active",
    [
        ("step3 lora 10GB 3d", 316, 38),
        ("stepfun-ai/step3 lora 10GB 3d", 316, 38),
        ("granite-4.0-h-micro lora 10GB 3d", 3, 3),
        # the nano releases, by the size in their names: "4.0-h" had been a 4-hour deadline and the
        # "-1b" left over "not a usable model size"
        ("granite-4.0-h-1b lora 10GB 3d", 1, 1),
        ("ibm-granite/granite-4.0-h-350m lora 10GB 3d", 0.35, 0.35),
    ],
)
def test_releases_the_catalogue_cannot_write_are_planned_at_their_published_sizes(text, total, active):
    """Step3's factorised query has no catalogue keys, and Granite 4.0 Micro's config was not read:
    planned as generic shapes of their publishers' sizes, said. "granite 4.0 h micro" had read
    "4.0 h" as a four-hour deadline and refused the request as a contradiction with "3d" (H-Small
    and H-Tiny too, now catalogued: below)."""
    r = parse(text)
    assert (r.model, r.params_b, r.active_params_b) == (None, total, active)
    assert r.deadline_days == 3
    assert {"unknown_moe_model", "unknown_model"} & {n.code for n in r.assumptions}


def test_a_mamba2_layer_has_the_parameters_of_its_projections():
    """IBM Granite 4.0 H-Small by hand from transformers' Mamba-2 mixer (hidden 4096; 128 heads of
    64, one group, state 128, conv 4 with a bias): in_proj 4096 x (2 x 8192 + 2 x 128 + 128) =
    68,681,728, conv1d 8448 x 5 = 42,240, dt_bias, A_log and D 384, the gated norm 8,192, out_proj
    8192 x 4096 = 33,554,432: 102,286,976. 36 of them and 4 attention layers of 41,943,040, each
    with 72 experts of 768 (top-10) and a shared MLP of 1536: 32,207,333,888 with tied embeddings.
    The same formula on Nemotron 3 Nano's mixer (hidden 2688, 64 heads of 64, 8 groups) gives the
    38,742,208 counted from NemotronHMamba2Mixer's tensors."""
    from advisor.engine.roofline import layer_linears

    m = catalog.find_model("granite 4.0 h small")
    assert m.linear_attention_kind == "mamba2" and m.linear_attention_layers == 36
    assert linear_attention_params(m) == 102_286_976
    c = count_params(m)
    assert c.attention_per_layer == pytest.approx((36 * 102_286_976 + 4 * 41_943_040) / 40)
    assert c.total == 32_207_333_888
    tiny = catalog.find_model("granite-4.0-h-tiny")
    assert linear_attention_params(tiny) == 14_642_576 and count_params(tiny).total == 6_939_035_712
    nano = m.model_copy(update={"hidden": 2688, "linear_value_heads": 64, "linear_key_heads": 8})
    assert linear_attention_params(nano) == 38_742_208
    # the layer's GEMMs: in_proj and out_proj in the 36 layers' share, conv and scalars aside
    gemms = layer_linears(m, 4096, 1, 1, True, 1)
    mamba = sum(g.count * g.n * g.k for g in gemms[2:4])
    assert mamba == pytest.approx(36 / 40 * (68_681_728 + 33_554_432))


def test_a_mamba2_scan_costs_its_chunked_products_at_any_length():
    """Mamba-2's chunked scan (Dao and Gu 2024, Sec 6), chunk 256: C Bᵀ a group (256 x 128), its
    masked product with x a head (256 x 64) and the state's write and read (2 x 128 x 64):
    2 x (256 x 128 + 128 x (256 x 64 + 2 x 128 x 64)) = 8,454,144 FLOPs a token a layer for
    Granite 4.0 H-Small, whatever the sequence; its four softmax layers' work grows with it."""
    m = catalog.find_model("granite-4.0-h-small")
    assert m.linear_core_flops() == 8_454_144
    keys = 8_454_144 / (4 * 32 * 128)
    assert m.attention_share(4096) == pytest.approx(0.1 + 0.9 * keys / 2048.5)
    assert m.attention_share(32768) == pytest.approx(0.1 + 0.9 * keys / 16384.5)


def test_nemotron_3_nano_is_its_mixers_each_with_its_moe_or_none():
    """Nemotron 3 Nano's 52 blocks are each a Mamba-2 mixer (23), an attention mixer (6) or an MoE
    (23): written as 29 layers, the 23 Mamba-2 ones each with its MoE and the 6 attention ones with
    no FFN, the same tensors. By hand: 23 mixers of 38,742,208, 6 attention mixers of 23,396,352,
    23 MoE of 1,297,465,472 (128 squared-ReLU experts of 1856 and a shared one of 3712, a
    router), an untied 131,072 x 2688 embedding and head: 31,577,797,824 before the norms. It had
    been a generic 31.6B-A3.2B mixture whose every layer was softmax attention."""
    m = model_shape(parse("nemotron 3 nano lora 10GB 3d"))
    c = count_params(m)
    assert m.name == "nemotron-3-nano-30b-a3b" and (c.moe_layers, c.dense_layers, c.dense_mlp_per_layer) == (23, 6, 0)
    by_hand = 23 * 38_742_208 + 6 * 23_396_352 + 23 * 1_297_465_472 + 2 * 131_072 * 2688
    assert by_hand == 31_577_797_824
    # (its router's score-correction bias, 128 a layer, is not counted)
    assert c.total - c.norms_per_layer * 29 == by_hand - 23 * 128
    # one token through 6 of the experts and the shared one: 3.58B with the embedding and head
    assert active_count(m, c) == pytest.approx(3.58e9, rel=0.001)


@pytest.mark.parametrize(
    "text, total, active",
    [
        ("step3 321b lora 10GB 3d", 321, 38),
        ("hunyuan large 389b lora 10GB 3d", 389, 52),
        ("hunyuan-large-389b lora 50k samples 3d", 389, 52),
        ("deepseek-v4-flash 284b-a13b lora 10GB 3d", 284, 13),
        ("ling-1t 1t lora 10GB 3d", 1000, 50),
        # a token count after the name is the data, not the model's size
        ("step3 100b tokens pretrain 3d", 316, 38),
    ],
)
def test_a_size_typed_after_a_release_planned_at_its_published_sizes_is_its_total(text, total, active):
    """ "step3 321b" had left "step3" not understood, and "hunyuan large 389b" had asked for the
    size it gives: the total typed is planned, the active size the publisher's unless typed too."""
    r = parse(text)
    assert (r.model, r.params_b, r.active_params_b, r.deadline_days) == (None, total, active, 3)
    assert "unknown_moe_model" in {n.code for n in r.assumptions}


@pytest.mark.parametrize("text", ["command-a lora 10GB 3d", "CohereLabs/c4ai-command-a-03-2025 全量微调 1万条 3天"])
def test_command_a_is_planned_at_its_cards_size(text):
    """Cohere's Command A names no size: its card's 111 billion parameters, dense, said as an
    uncatalogued model (it had asked for the size)."""
    r = parse(text)
    assert (r.model, r.params_b, r.active_params_b, r.deadline_days) == (None, 111, 111, 3)
    assert "unknown_model" in {n.code for n in r.assumptions}


@pytest.mark.parametrize(
    "text",
    [
        "llama-3.2-11b-vision fine-tune 100k image-text pairs",
        "meta-llama/Llama-3.2-11B-Vision-Instruct lora 10k samples 2d",
    ],
)
def test_llama_32_vision_is_its_language_model_and_says_so(text):
    """ "-vision" had been refused: the language model of transformers' MllamaTextConfig (40 layers of
    4096, 32/8 heads, SwiGLU 14,336, untied 128,256 vocabulary), about 9.78B, the vision encoder not
    counted and said."""
    r = parse(text)
    assert r.model == "llama3.2-11b-vision" and r.params_b == pytest.approx(9.78)
    assert "vision_language" in [n.code for n in r.assumptions]
    # 32 self-attention layers of Llama 3.1 8B's 218M, 8 cross-attention layers alike, the untied vocabulary
    layer = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336
    assert (40 * layer + 2 * 128256 * 4096) / 1e9 == pytest.approx(9.78, abs=0.01)
