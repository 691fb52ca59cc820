"""bench/device_h200.py (run on a lent GPU, with torch) and bench/device_compare.py (here): the
shapes it builds are the catalogue's, and what it writes turns into requests the engine plans.
device_h200.py imports torch, which CI lacks, so its tables are read from its source."""

import ast
import csv
import json
import sys
from pathlib import Path

import pytest

from advisor.catalog import find_model
from advisor.request.parser import parse

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import device_compare  # noqa: E402


def _literal(name):
    tree = ast.parse((BENCH / "device_h200.py").read_text())
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == name)
    if isinstance(node.value, ast.Dict):  # dict(...) calls inside: evaluate their keywords
        return {
            ast.literal_eval(k): {kw.arg: ast.literal_eval(kw.value) for kw in v.keywords}
            for k, v in zip(node.value.keys, node.value.values)
        }
    return ast.literal_eval(node.value)


@pytest.mark.parametrize("name", sorted(_literal("SHAPES")))
def test_the_models_it_builds_have_the_catalogues_shapes(name):
    built, m = _literal("SHAPES")[name], find_model(name)
    assert (built["hidden"], built["layers"], built["heads"], built["kv"], built["vocab"]) == (
        m.hidden,
        m.layers,
        m.heads,
        m.kv_heads,
        m.vocab,
    )
    assert built["tied"] == m.tied_embeddings and built["head_dim"] == (m.head_dim or m.hidden // m.heads)
    if m.is_moe:
        assert (built["experts"], built["top_k"], built["expert_ffn"]) == (m.moe_experts, m.moe_top_k, m.moe_ffn_hidden)
    else:
        assert built["ffn"] == m.ffn_hidden


def _results():
    """The layout device_h200.py writes, two training steps filled in by hand (not measurements)."""
    step = dict(
        seq=2048, micro_batch=1, recompute="full", step_s=0.5, step_s_all=[0.5] * 4, tokens_per_s=4096.0,
        peak_allocated_gib=20.0, peak_reserved_gib=22.0, device_used_gib=23.0, attn_impl_used="sdpa",
        checkpointing=True, experts_impl_used="grouped_mm",
    )  # fmt: skip
    return {
        "environment": {"torch": "2.11.0", "transformers": "5.17.0", "peft": "0.21.2", "gpu": "NVIDIA H200"},
        "kernels": {
            "hbm_copy": {"bytes": 8e9, "ms": 2.0, "tb_s": 4.0},
            "gemm": [{"m": 8192, "n": 4096, "k": 4096, "bf16_ms": 0.4, "bf16_tflops": 687.2}],
        },
        "training": {
            "a": dict(step, model="llama3.1-8b", method="lora", lora_targets="all", experts_impl=None),
            "b": dict(step, model="llama3.2-3b", method="full", lora_targets=None, experts_impl=None),
            "c": {"error": "skipped: out of time"},
        },
    }


def test_each_step_becomes_a_request_of_the_same_run():
    rows = device_compare.training_rows(_results())
    assert [r["metric"] for r in rows[:4]] == [
        "tokens_per_s_per_gpu",
        "peak_mem_allocated_gib",
        "peak_mem_reserved_gib",
        "mem_gib_nvsmi",
    ]
    assert len(rows) == 8  # the step that did not run gives none
    lora, full = parse(rows[0]["request"]), parse(rows[4]["request"])
    assert (lora.model, lora.method, lora.lora_rank, lora.lora_targets) == ("llama3.1-8b", "lora", 16, "all")
    assert (full.method, full.stack, full.gpu, full.gpu_count) == ("full-finetune", "hf", "H200-SXM-141GB", 1)
    assert (lora.seq_len, lora.micro_batch, lora.global_batch, lora.recompute) == (2048, 1, 1, "full")


def test_the_comparison_prints_and_writes_the_held_out_csv(tmp_path, capsys):
    results = tmp_path / "device_results.json"
    results.write_text(json.dumps(_results()))
    assert device_compare.main([str(results), "--csv", str(tmp_path / "rows.csv")]) == 0
    out = capsys.readouterr().out
    assert "| HBM copy | 4,000 GB/s |" in out and "bf16 GEMM 8192x4096x4096" in out
    assert "| c | skipped: out of time |" in out
    with (tmp_path / "rows.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert {r["name"] for r in rows} == {"a", "b"} and all("transformers 5.17.0" in r["notes"] for r in rows)
