"""The catalogs load, are internally consistent and every value has a source."""

import pytest

from advisor import catalog
from advisor.engine.shapes import active_count, count_params

CONTRACT_GPUS = {
    "A100": "A100-SXM4-80GB",
    "A100-40GB": "A100-SXM4-40GB",
    "A100-80GB": "A100-SXM4-80GB",
    "A800": "A800-SXM4-80GB",
    "H100": "H100-SXM5-80GB",
    "H100-80GB": "H100-SXM5-80GB",
    "H100-SXM": "H100-SXM5-80GB",
    "H100-PCIe": "H100-PCIe-80GB",
    "H800": "H800-SXM-80GB",
    "H20": "H20-96GB",
    "H200": "H200-SXM-141GB",
    "B200": "B200-SXM-180GB",
    "B300": "B300-SXM-288GB",
    "HGX-B300": "B300-SXM-288GB",
    "L40S": "L40S-48GB",
    "L4": "L4-24GB",
    "A10G": "A10G-24GB",
    "A10": "A10-24GB",
    "L20": "L20-48GB",
    "V100": "V100-SXM2-32GB",
    "RTX4090": "RTX4090-24GB",
    "4090": "RTX4090-24GB",
    "RTX3090": "RTX3090-24GB",
    "3090": "RTX3090-24GB",
    "RTX5090": "RTX5090-32GB",
    "RTX PRO 6000": "RTXPRO6000-96GB",
    "RTX6000 Pro": "RTXPRO6000-96GB",
    "PRO 6000 Blackwell": "RTXPRO6000-96GB",
    "A6000": "RTXA6000-48GB",
    "RTX A6000": "RTXA6000-48GB",
    "RTX 6000 Ada": "RTX6000Ada-48GB",
    "6000 Ada": "RTX6000Ada-48GB",
    "MI300X": "MI300X-192GB",
    "MI325X": "MI325X-256GB",
    "MI355X": "MI355X-288GB",
    "910B": "Ascend-910B-64GB",
    "910C": "Ascend-910C-128GB",
}


@pytest.mark.parametrize("spelling,name", sorted(CONTRACT_GPUS.items()))
def test_contract_gpu_spellings_resolve(spelling, name):
    assert catalog.find_gpu(spelling).name == name
    assert catalog.find_gpu(spelling.lower().replace("-", " ")).name == name


def test_no_alias_names_two_gpus():
    seen = {}
    for gpu in catalog.gpus():
        for alias in [gpu.name, *gpu.aliases]:
            key = catalog.normalize_name(alias)
            assert seen.setdefault(key, gpu.name) == gpu.name, alias


@pytest.mark.parametrize("gpu", catalog.gpus(), ids=lambda g: g.name)
def test_gpu_values_are_plausible_and_sourced(gpu):
    assert gpu.sources and all(s.title for s in gpu.sources)
    assert any(s.url.startswith("http") for s in gpu.sources)
    assert gpu.as_of
    # usable memory in GiB is at most the marketed decimal GB (1 GB = 0.93 GiB) and not far below
    assert 0.8 * gpu.memory_gb * 1e9 / 2**30 <= gpu.usable_memory_gib <= gpu.memory_gb * 1.01
    assert 0.1 <= gpu.memory_bw_tb_s <= 10
    assert 10 <= gpu.fp16_dense_tflops <= 5000
    assert gpu.bf16_dense_tflops in (0,) or gpu.bf16_dense_tflops <= gpu.fp16_dense_tflops * 1.01
    assert gpu.fp8_dense_tflops == 0 or gpu.fp8_dense_tflops >= gpu.fp16_dense_tflops
    assert gpu.intra_node in ("NVLink", "PCIe", "InfinityFabric", "HCCS")
    assert 1 <= gpu.nvlink_domain <= gpu.gpus_per_server <= 16
    assert 50 <= gpu.tdp_w <= 1500
    assert gpu.tdp_w * gpu.gpus_per_server / 1000 <= gpu.server_power_kw <= 20
    assert set(gpu.markets) <= {"china", "global"} and gpu.markets
    assert set(gpu.unverified) <= set(type(gpu).model_fields)


@pytest.mark.parametrize(
    "spelling,name",
    [
        ("Ascend 910C", "Ascend-910C-128GB"),
        ("昇腾910C", "Ascend-910C-128GB"),
        ("华为910C", "Ascend-910C-128GB"),
        ("Instinct MI325X", "MI325X-256GB"),
        ("AMD MI355X", "MI355X-288GB"),
        ("910B", "Ascend-910B-64GB"),
    ],
)
def test_new_parts_resolve_by_their_aliases(spelling, name):
    assert catalog.find_gpu(spelling).name == name


# Entries written to the header's rule: every nonzero figure is named by a source's `fields`
# or listed in `unverified`, the reason in `notes` (0 = no hardware support for the format).
SOURCED_PER_FIELD = [
    *("B200-SXM-180GB", "B300-SXM-288GB", "RTXPRO6000-96GB"),
    *("MI300X-192GB", "MI325X-256GB", "MI355X-288GB", "Ascend-910B-64GB", "Ascend-910C-128GB"),
    *("L20-48GB", "A10-24GB", "RTXA6000-48GB", "RTX6000Ada-48GB"),
]


@pytest.mark.parametrize("name", SOURCED_PER_FIELD)
def test_every_figure_of_an_entry_has_a_source_or_is_unverified(name):
    gpu = catalog.get_gpu(name)
    figures = [f for f, info in type(gpu).model_fields.items() if info.annotation in (int, float)]
    covered = {f for s in gpu.sources for f in s.fields} | set(gpu.unverified)
    assert not [f for f in figures if getattr(gpu, f) and f not in covered]
    assert {f for s in gpu.sources for f in s.fields} <= set(type(gpu).model_fields)
    assert not gpu.unverified or "Unverified:" in gpu.notes


def test_the_910c_is_two_910b_class_dies_and_the_mi355x_doubles_cdna_3_per_clock():
    b, c = catalog.get_gpu("910B"), catalog.get_gpu("910C")
    assert c.memory_gb == 2 * b.memory_gb and c.memory_bw_tb_s == 2 * b.memory_bw_tb_s
    assert c.fp8_dense_tflops == 0 and c.markets == ["china"] and c.china_access == "domestic"
    # 752 dense BF16 a package (CloudMatrix384 paper), against press figures of 780-800
    assert c.bf16_dense_tflops == 752
    mi300, mi325, mi355 = (catalog.get_gpu(n) for n in ("MI300X", "MI325X", "MI355X"))
    assert mi325.bf16_dense_tflops == mi300.bf16_dense_tflops and mi325.architecture == mi300.architecture
    # dense, not the sparse 5 PF: 2,400 MHz x 512 FMA x 2 x 1,024 matrix cores
    assert mi355.bf16_dense_tflops == pytest.approx(2400e6 * 512 * 2 * 1024 / 1e12, abs=0.1)
    assert mi355.fp8_dense_tflops == pytest.approx(2 * mi355.bf16_dense_tflops, abs=0.1)


def test_the_l20_is_a_china_pcie_ada_card_at_a_third_of_the_l40s():
    l20, l40s = catalog.get_gpu("L20"), catalog.get_gpu("L40S")
    assert l20.architecture == l40s.architecture == "Ada Lovelace" and l20.memory_gb == l40s.memory_gb == 48
    # dense FP32-accumulate rates: a bf16 matmul measured 114.14 TFLOPS, above half of 119.5
    assert l20.bf16_dense_tflops == 119.5 and l20.fp8_dense_tflops == 2 * l20.bf16_dense_tflops
    assert l20.bf16_dense_tflops / 2 < l20.matmul_bf16_measured_tflops <= l20.bf16_dense_tflops
    assert l20.bf16_dense_tflops == pytest.approx(l40s.bf16_dense_tflops / 3, rel=0.02)
    assert l20.usable_memory_gib == pytest.approx(46068 / 1024, abs=0.01)  # ECC on, as nvidia-smi shows
    assert l20.intra_node == "PCIe" and l20.nvlink_domain == 1 and not l20.consumer
    assert l20.markets == ["china"] and l20.global_access == "china_part" and l20.china_access != "domestic"


def test_the_a10_is_not_the_a10g():
    a10, a10g = catalog.get_gpu("A10"), catalog.get_gpu("A10G")
    assert (a10.name, a10g.name) == ("A10-24GB", "A10G-24GB")
    # the data-centre A10 at full-rate accumulate (125 | 250 sparse); AWS's A10G at 70
    assert a10.bf16_dense_tflops == 125.0 and a10.tf32_dense_tflops == 62.5 and a10.fp8_dense_tflops == 0.0
    assert a10g.bf16_dense_tflops < a10.bf16_dense_tflops and a10.fp32_tflops < a10g.fp32_tflops
    assert a10.memory_gb == a10g.memory_gb == 24 and a10.usable_memory_gib == pytest.approx(23028 / 1024, abs=0.01)
    assert a10.tdp_w == 150 and a10.architecture == "Ampere" and a10.global_access == "open"


def test_b300_is_blackwell_at_the_b200s_dense_rates_with_more_memory():
    b300, b200 = catalog.get_gpu("B300"), catalog.get_gpu("B200")
    # HGX B300: 36 PFLOPS BF16 and 72 FP8 with sparsity for 8 GPUs, the HGX B200's figures
    assert b300.bf16_dense_tflops == b200.bf16_dense_tflops == 36e3 / 2 / 8
    assert b300.fp8_dense_tflops == b200.fp8_dense_tflops == 72e3 / 2 / 8
    assert b300.memory_gb == 288 and b300.usable_memory_gib == pytest.approx(275040 / 1024, abs=0.01)
    assert b300.architecture == b200.architecture == "Blackwell" and b300.nvlink_domain == 8


def test_rtx_pro_6000_is_a_96_gb_pcie_card_at_full_rate_accumulate():
    pro, geforce = catalog.get_gpu("RTX PRO 6000"), catalog.get_gpu("RTX5090")
    assert pro.memory_gb == 96 and pro.intra_node == "PCIe" and pro.nvlink_domain == 1 and not pro.consumer
    # dense, not the 4,000 AI TOPS (FP4 with sparsity) NVIDIA prints: FP4 2,000 dense, FP8 half, BF16 a quarter
    assert pro.fp8_dense_tflops == pytest.approx(4000 / 2 / 2, rel=0.02)
    assert pro.bf16_dense_tflops == pytest.approx(pro.fp8_dense_tflops / 2)
    # a professional card: not the GeForce half-rate FP32 accumulate of the same GB202 chip
    assert pro.bf16_dense_tflops > 2 * geforce.bf16_dense_tflops


def test_h200_has_141_gb_not_280():
    assert catalog.get_gpu("H200").memory_gb == 141


def test_consumer_cards_use_fp32_accumulate_rate():
    rtx = catalog.get_gpu("4090")
    assert rtx.consumer and rtx.nvlink_domain == 1
    assert rtx.bf16_dense_tflops == pytest.approx(165, rel=0.02)
    # GeForce Ampere: half the 142 TFLOPS of FP16 accumulate, and no FP8
    ampere = catalog.get_gpu("3090")
    assert ampere.consumer and ampere.bf16_dense_tflops == pytest.approx(142 / 2) and ampere.fp8_dense_tflops == 0


@pytest.mark.parametrize(
    "name",
    [
        "llama3-70b",
        "qwen2.5-72b",
        "llama2-70b",
        "deepseek-v3",
        "llama3.1-405b",
        "llama3.2-1b",
        "mistral-7b",
        "qwen2.5-7b",
    ],
)
def test_contract_model_names_resolve(name):
    assert catalog.find_model(name) is not None


@pytest.mark.parametrize("model", catalog.models(), ids=lambda m: m.name)
def test_model_shape_gives_its_published_size(model):
    c = count_params(model)
    total_without_extra = c.total - c.extra
    assert total_without_extra / 1e9 == pytest.approx(model.params_b, rel=0.02)
    assert active_count(model, c) / 1e9 == pytest.approx(model.active_params_b, rel=0.03)
    assert model.sources and model.as_of
    assert model.heads % model.kv_heads == 0 and model.layers > 0


def test_moe_models_have_fewer_active_params():
    v3 = catalog.find_model("deepseek-v3")
    assert v3.is_moe and v3.active_params_b < v3.params_b / 10
    # published: 671B parameters, 37B activated per token (DeepSeek-V3 technical report)
    assert v3.params_b == pytest.approx(671, rel=0.01) and v3.active_params_b == pytest.approx(37, rel=0.02)


def test_the_rtx_4090_d_is_the_4090_with_114_of_its_128_sms():
    d, full = catalog.find_gpu("4090D"), catalog.find_gpu("4090")
    assert d.name == "RTX4090D-24GB" and catalog.find_gpu("RTX 4090 D") == d
    assert d.bf16_dense_tflops == pytest.approx(full.bf16_dense_tflops * 114 / 128, rel=0.01)
    assert d.memory_gb == full.memory_gb and d.markets == ["china"]


@pytest.mark.parametrize(
    "typed,model",
    [
        # an underscore between digits is a decimal point: `qwen2_5-7b` is Qwen2.5 7B, and had made
        # `qwen2-57b` (a 57B MoE) the same key, read as that 7B dense model
        ("qwen2-57b", "qwen2-57b-a14b"),
        ("Qwen2-57B-A14B-Instruct", "qwen2-57b-a14b"),
        ("qwen2_5-7b", "qwen2.5-7b"),
        ("qwen2_5-0_5b", "qwen2.5-0.5b"),
        ("phi-1_5", "phi-1.5"),
        ("phi-15", None),
    ],
)
def test_a_decimal_written_with_an_underscore_is_not_another_size(typed, model):
    found = catalog.find_model(typed)
    assert (found.name if found else None) == model


def test_every_cloud_instance_names_a_catalogued_gpu_a_cloud_and_its_source():
    clouds = {"aws", "gcp", "azure"}
    names = set()
    for inst in catalog.instances():
        assert catalog.get_gpu(inst.gpu).name == inst.gpu and inst.count == 8 and inst.cloud in clouds
        assert inst.source.strip() and inst.names
        for name in inst.names:
            key = catalog.normalize_name(name).replace(".", "")
            assert key not in names, name  # no spelling reads as two instances
            names.add(key)
