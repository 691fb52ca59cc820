"""How much of the experts' all-to-all a Megatron-Core step leaves exposed (issue #22): all of it
where Megatron-Core cannot run its EP overlap schedule (full recompute; pipeline stages without
virtual ones), and the traffic of a split whose experts span two servers, worked by hand."""

import pytest

from advisor import catalog
from advisor.engine.frameworks import FSDP2, MEGATRON
from advisor.engine.layout import ModelSplit
from advisor.engine.setup import TrainingSetup
from advisor.engine.throughput import (
    MOE_A2A_EXPOSED,
    TP_EXPOSED,
    estimate_throughput,
    expert_copies,
    moe_a2a_exposed,
)

QWEN3_30B = catalog.find_model("qwen3-30b-a3b")  # 48 MoE layers, hidden 2,048, top 8 of 128
A800 = catalog.get_gpu("A800")


def _split(recompute: str, pp: int = 1, virtual: int = 1, framework: str = MEGATRON) -> ModelSplit:
    return ModelSplit(
        gpu=A800.name, gpu_count=16, gpus_per_node=8, nodes=2, tp=2, pp=pp, dp=8 // pp, ep=8, expert_tp=2,
        zero_stage=1, recompute=recompute, micro_batch=1, global_batch=16, virtual_stages=virtual,
        framework=framework,
    )  # fmt: skip


@pytest.mark.parametrize(
    "recompute,pp,virtual,framework,exposed",
    [
        ("full", 1, 1, MEGATRON, 1.0),  # Megatron-Core refuses the EP overlap under full recompute
        ("selective", 1, 1, MEGATRON, MOE_A2A_EXPOSED),
        ("none", 2, 1, MEGATRON, 1.0),  # pipeline stages without virtual ones: refused too
        ("none", 2, 2, MEGATRON, MOE_A2A_EXPOSED),
        ("full", 1, 1, FSDP2, MOE_A2A_EXPOSED),  # other stacks as before
    ],
)
def test_the_overlap_schedule_megatron_core_cannot_run_hides_nothing(recompute, pp, virtual, framework, exposed):
    assert moe_a2a_exposed(_split(recompute, pp, virtual, framework)) == exposed


def test_copies_for_the_tokens_own_rank_stay():
    # ep 8, four expert ranks a server: of 8 copies, 1 stays, 3 go over NVLink, 4 over the NIC
    assert expert_copies(QWEN3_30B, 8, 4, "alltoall") == (3.0, 4.0)
    # one server: 7 over NVLink, none over the NIC
    assert expert_copies(QWEN3_30B, 8, 8, "alltoall") == (7.0, 0.0)


def test_experts_over_two_servers_worked_by_hand():
    # ms-swift's Qwen3-30B-A3B SFT (held-out row): tp 2, ep 8, etp 2 on 2 x 8 A800, sequence 8,192,
    # micro-batch 1, global batch 16 (2 micro-batches a step on each of 8 data-parallel ranks),
    # full recompute, all-to-all dispatcher.
    setup = TrainingSetup(
        method="full-finetune", precision="bf16", seq_len=8192, global_batch=16, tokens=1e9, dispatcher="alltoall"
    )
    t = estimate_throughput(QWEN3_30B, setup, _split("full"), A800)
    # Dispatch and combine in the forward, the recomputed forward and the backward (6 passes of 2
    # bytes) of this GPU's 8,192 / tp tokens in 48 layers: 4,831,838,208 bytes a copy.
    per_copy = 6 * 48 * 4096 * 2048 * 2
    # Expert ranks are etp-innermost: 8 / 2 = 4 of the 8 expert ranks on each server, so 3 copies go
    # over NVLink (A800: 400 GB/s, 200 one way) and 4 over the NIC (HDR 200: 25 GB/s); the etp
    # all-gather and reduce-scatter move all 8 received copies once more, over NVLink.
    per_mb = per_copy * ((3 + 8) / 200e9 + 4 / 25e9)  # 1.0389 s
    assert t.step["expert_s"] == pytest.approx(2 * per_mb, rel=1e-9)  # 2.078 s a step
    # all of it exposed (full recompute), with half the tensor-parallel all-reduces; the gradient
    # reduction hides behind the last backward
    assert t.step["exposed_s"] == pytest.approx(t.step["expert_s"] + TP_EXPOSED * t.step["tensor_s"], rel=1e-9)


def test_an_expert_group_is_inside_a_server_only_where_it_lines_up_with_its_gpus(book):
    """Megatron-Core numbers expert ranks consecutively: ep 5 on 8-GPU servers puts half its groups
    across two servers. A probe had read "EP=5, inside one server" off such a plan (671B-A37B on 40
    MI300X); the search now keeps inside a server only degrees that divide its GPUs."""
    from advisor.engine.estimate import expert_degrees
    from advisor.planning.advice import advise

    moe = QWEN3_30B.model_copy(update={"moe_experts": 200})
    assert expert_degrees(moe, dp=5, ranks_per_node=8) == [1, 5]  # 5 only as the group across servers
    assert expert_degrees(moe, dp=5, ranks_per_node=5) == [5]
    # a group that straddles servers is not counted as inside one (its traffic crosses the NICs)
    assert expert_copies(moe, 5, 1, None)[1] > expert_copies(moe, 5, 5, None)[1]
    lay = advise("moe 671B-A37B continued-pretrain 200B tokens 2mo buy usd", book=book).plan.estimate.layout
    per_node = lay.gpus_per_node // lay.expert_tp
    assert lay.ep == 1 or per_node % lay.ep == 0 or lay.ep % per_node == 0, lay
