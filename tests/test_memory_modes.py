"""Memory per recompute mode and framework (issue 22), against hand-worked cases."""

import pytest

from advisor import catalog
from advisor.engine.frameworks import FSDP2, HF, LITGPT, MEGATRON, PEFT, framework_for
from advisor.engine.layout import ModelSplit
from advisor.engine.memory import (
    ALLOCATOR_CACHE,
    CUDA_CONTEXT_GIB,
    EAGER_LOSS_BYTES,
    FRAGMENTATION,
    FSDP_PP_UNSHARDED_BYTES,
    GIB,
    MEGATRON_LOSS_BYTES,
    NCCL_BUFFERS_GIB,
    NF4_BYTES,
    Kernels,
    LinearInputs,
    estimate_memory,
    layer_activation_bytes_per_token,
    linear_inputs_kept,
    parameters_on_this_gpu,
    stack_kernels,
)
from advisor.engine.setup import TrainingSetup
from advisor.engine.shapes import count_params

LLAMA8 = catalog.find_model("llama3.1-8b")
H100 = catalog.get_gpu("H100")


def _layout(**kw):
    base = dict(gpu=H100.name, gpu_count=8, gpus_per_node=8, nodes=1, dp=8, zero_stage=3, micro_batch=1)
    return ModelSplit(**(base | kw))


def test_op_level_selective_keeps_half_the_matmul_outputs():
    # Llama 3.1 8B: h 4096, q 4096, kv 1024, ffn 14336. Kept: input 2h + attention output 2q
    # + half of 2 x (q + 2kv + h + 2 ffn + h) = 8192 + 8192 + (6144 + 8192 + 28672) bytes.
    per_token = layer_activation_bytes_per_token(LLAMA8, 8192, "bf16", "selective", True, op_level=True)
    assert per_token == 8192 + 8192 + (4096 + 2 * 1024 + 4096 + 2 * 14336 + 4096)


def test_fp8_keeps_linear_inputs_in_one_byte():
    bf16 = layer_activation_bytes_per_token(LLAMA8, 8192, "bf16", "none", True)
    fp8 = layer_activation_bytes_per_token(LLAMA8, 8192, "fp8", "none", True)
    # QKV input h, o-proj input q, gate/up input h, down input ffn: one byte less each
    assert bf16 - fp8 == 4096 + 4096 + 4096 + 14336


def test_mla_keeps_latents_when_it_recomputes_the_up_projections():
    v3 = catalog.find_model("deepseek-v3")
    kept = layer_activation_bytes_per_token(v3, 4096, "bf16", "none", True)
    recomputed = layer_activation_bytes_per_token(v3, 4096, "bf16", "selective", True)
    # q, k, v up-projected (128 heads x 192/192/128) replaced by the latents 1536 + 512 + 64
    assert kept - recomputed > 2 * (128 * 192 * 2 + 128 * 128) - 2 * (1536 + 512 + 64) - 2 * 2048 * 9


def test_fsdp_with_pipeline_keeps_the_stage_unsharded():
    setup = TrainingSetup(method="pretrain", seq_len=4096)
    c = count_params(LLAMA8)
    flat = estimate_memory(LLAMA8, setup, _layout(dp=4, pp=2, zero_stage=3, framework=FSDP2), H100)
    shard = parameters_on_this_gpu(c, _layout(dp=4, pp=2))
    plain = estimate_memory(LLAMA8, setup, _layout(dp=4, pp=2, zero_stage=1, framework=MEGATRON), H100)
    assert flat.weights * GIB >= shard.total * FSDP_PP_UNSHARDED_BYTES
    assert flat.weights < plain.weights + shard.total * FSDP_PP_UNSHARDED_BYTES / GIB


def test_torchtitan_loss_upcasts_the_logits():
    setup = TrainingSetup(method="pretrain", seq_len=8192)
    fsdp = estimate_memory(LLAMA8, setup, _layout(framework=FSDP2), H100)
    megatron = estimate_memory(LLAMA8, setup, _layout(framework=MEGATRON, zero_stage=1), H100)
    extra = 8192 * LLAMA8.vocab * (EAGER_LOSS_BYTES - MEGATRON_LOSS_BYTES) / GIB
    logits = [n for n in fsdp.notes if n["kind"] == "activations"][0]["logits_gib"]
    logits_m = [n for n in megatron.notes if n["kind"] == "activations"][0]["logits_gib"]
    # 8192 tokens x 128,256 logits x (4 + 4) bytes, against Megatron's fp32 softmax (4): 3.9 GiB more
    assert logits == pytest.approx(logits_m + extra, rel=1e-9)
    assert extra == pytest.approx(8192 * 128256 * (8 - 4) / 2**30)


def test_context_parallel_divides_activations():
    setup = TrainingSetup(method="pretrain", seq_len=32768)
    one = estimate_memory(LLAMA8, setup, _layout(framework=MEGATRON, zero_stage=1), H100)
    two = estimate_memory(LLAMA8, setup, _layout(framework=MEGATRON, zero_stage=1, dp=4, cp=2), H100)
    assert two.activations == pytest.approx(one.activations / 2, rel=1e-6)


def test_hsdp_shards_only_inside_a_server():
    setup = TrainingSetup(method="pretrain", seq_len=4096)
    big = dict(gpu_count=64, nodes=8, dp=64, framework=FSDP2)
    fsdp = estimate_memory(LLAMA8, setup, _layout(**big), H100)
    hsdp = estimate_memory(LLAMA8, setup, _layout(**big, hsdp=True), H100)
    assert hsdp.optimizer == pytest.approx(fsdp.optimizer * 8, rel=1e-6)


def test_readings_allocated_reserved_and_nvidia_smi():
    # Llama 3.1 8B pretraining at 1024 tokens on 8 H100 under ZeRO-1 (no gathered layers, room
    # left on the card): what must fit is
    # the tensors + 5% of the activations + context; max_memory_allocated() is the tensors
    # alone; max_memory_reserved() adds 40% of the activations; nvidia-smi adds the context.
    setup = TrainingSetup(method="pretrain", seq_len=1024)
    mem = estimate_memory(LLAMA8, setup, _layout(zero_stage=1, framework=MEGATRON), H100)
    assert mem.nvidia_smi < H100.usable_memory_gib
    tensors = mem.weights + mem.gradients + mem.optimizer + mem.activations
    context = CUDA_CONTEXT_GIB + NCCL_BUFFERS_GIB
    assert mem.total == pytest.approx(tensors + FRAGMENTATION * mem.activations + context)
    assert mem.allocated == pytest.approx(tensors)
    assert mem.reserved == pytest.approx(tensors + ALLOCATOR_CACHE * mem.activations)
    assert mem.nvidia_smi == pytest.approx(mem.reserved + context)
    assert mem.explained[-1] == {
        "kind": "readings",
        "allocated_gib": pytest.approx(mem.allocated),
        "reserved_gib": pytest.approx(mem.reserved),
        "nvidia_smi_gib": pytest.approx(mem.nvidia_smi),
        "cache_share": ALLOCATOR_CACHE,
    }


def test_a_reserved_reading_never_exceeds_the_card():
    # 8B pretraining at 4 sequences of 8192 on one GPU with no recompute: the activations alone
    # are far past 80 GB, so the cache a reserved reading could show is cut to the card.
    setup = TrainingSetup(method="pretrain", seq_len=8192)
    mem = estimate_memory(LLAMA8, setup, _layout(gpu_count=8, dp=8, zero_stage=3, micro_batch=2), H100)
    assert mem.nvidia_smi <= max(H100.usable_memory_gib, mem.total) + 1e-9
    assert mem.reserved >= mem.allocated + FRAGMENTATION * mem.activations - 1e-9


LLAMA3B = catalog.find_model("llama3.2-3b")
A100 = catalog.get_gpu("A100-80GB")


def test_eager_rmsnorm_and_silu_keep_what_fused_kernels_do_not():
    # Llama 3.2 3B: h 3072, ffn 8192. Eager (full training) against compiled: each of the two
    # norms keeps its fp32 input (2 bytes more than bf16) and the normalised bf16 copy (2), and
    # SwiGLU keeps silu(gate) (2 x ffn): 2 x 3072 x 4 + 2 x 8192 = 40,960 bytes a token and layer.
    eager = layer_activation_bytes_per_token(
        LLAMA3B, 4096, "bf16", "none", True, kernels=Kernels(eager_norms=True, eager_activation=True)
    )
    fused = layer_activation_bytes_per_token(LLAMA3B, 4096, "bf16", "none", True)
    assert eager - fused == 2 * 3072 * 4 + 2 * 8192
    # a frozen norm scale (LoRA) keeps no normalised copy: 2 bytes an element less per norm
    frozen = layer_activation_bytes_per_token(
        LLAMA3B,
        4096,
        "bf16",
        "none",
        True,
        kernels=Kernels(eager_norms=True, eager_activation=True, norm_trains=False),
    )
    assert eager - frozen == 2 * 3072 * 2


def test_sdpa_keeps_repeated_kv_and_a_copy_of_its_output():
    # Llama 3.1 8B: q 4096, kv 1024. K and V repeated to 32 heads: 2 x 2 x (4096 - 1024) bytes;
    # the transposed output copy the output projection keeps: 2 x 4096.
    native = layer_activation_bytes_per_token(
        LLAMA8, 8192, "bf16", "none", True, kernels=Kernels(native_attention=True)
    )
    fused = layer_activation_bytes_per_token(LLAMA8, 8192, "bf16", "none", True)
    assert native - fused == 2 * 2 * (4096 - 1024) + 2 * 4096


def test_megatron_fused_swiglu_keeps_three_ffn_tensors():
    # fused: the gate and up outputs (its input) and its output (the down projection's input)
    per_token = layer_activation_bytes_per_token(LLAMA8, 8192, "bf16", "none", True)
    attention = 2 * 4096 + 2 * 4096 + 2 * (4096 + 2 * 1024) + 2 * 4096
    assert per_token == attention + 2 * 4096 + 2 * 4096 + 3 * 2 * 14336


def test_which_stack_runs_which_kernels():
    eager = TrainingSetup(method="full-finetune")
    assert stack_kernels(MEGATRON, eager) == Kernels()
    assert stack_kernels(HF, eager) == Kernels(eager_norms=True, eager_activation=True, native_attention=True)
    # torchtitan's own fused RMSNorm kernel; compiling fuses the activation too
    assert stack_kernels(FSDP2, eager) == Kernels(eager_activation=True, native_attention=True)
    compiled = TrainingSetup(method="lora", compiled=True)
    assert stack_kernels(PEFT, compiled) == Kernels(native_attention=True, norm_trains=False)


def test_full_fine_tuning_on_plain_data_parallel_runs_the_hf_stack():
    full = TrainingSetup(method="full-finetune")
    assert framework_for(full, 1, 1, 1, 0, "none") == HF
    assert framework_for(full, 1, 1, 1, 1, "none") == MEGATRON  # the distributed optimizer
    assert framework_for(TrainingSetup(method="full-finetune", precision="fp8"), 1, 1, 1, 0, "none") == MEGATRON
    assert framework_for(TrainingSetup(method="pretrain"), 1, 1, 1, 0, "none") == MEGATRON


def _three_b(global_batch=None, **kw):
    setup = TrainingSetup(method="full-finetune", precision="pure-bf16", seq_len=4096, global_batch=global_batch, **kw)
    layout = ModelSplit(
        gpu=A100.name,
        gpu_count=1,
        gpus_per_node=1,
        nodes=1,
        dp=1,
        zero_stage=0,
        micro_batch=2,
        framework=HF,
        global_batch=global_batch,
    )
    return estimate_memory(LLAMA3B, setup, layout, A100)


def test_compiling_and_chunking_the_loss_save_what_torchtune_measured():
    # torchtune README "Optimization flags" (Llama 3.2 3B, 2 x 4,096 tokens, A100, no recompute):
    # packed 60.0 GiB, + compile 51.0 (9.0 saved), + chunked cross entropy 42.9 (8.1 saved)
    eager, compiled = _three_b(), _three_b(compiled=True)
    chunked = _three_b(compiled=True, chunked_loss=True)
    assert eager.allocated - compiled.allocated == pytest.approx(9.0, rel=0.1)
    assert compiled.allocated - chunked.allocated == pytest.approx(8.1, rel=0.1)
    # the loss chunked: 8,192 tokens x 128,256 logits x (4 + 4) bytes less, exactly
    assert (compiled.activations - chunked.activations) * GIB == pytest.approx(8192 * 128256 * EAGER_LOSS_BYTES)


def test_one_micro_batch_a_step_frees_the_gradients_under_the_activations():
    # torchtune's table runs batch 2 without accumulation: the 6 GiB of bf16 gradients are freed
    # after each step, so the peak holds the activations alone: 60.0, 51.0 and 42.9 GiB measured
    for kw, measured in (({}, 60.0), ({"compiled": True}, 51.0), ({"compiled": True, "chunked_loss": True}, 42.9)):
        one = _three_b(global_batch=2, **kw)
        assert one.allocated == pytest.approx(measured, rel=0.05)
        assert one.gradients == 0  # fewer gradients than activations: none at the peak
        assert _three_b(**kw).allocated - one.allocated == pytest.approx(count_params(LLAMA3B).total * 2 / GIB)
    # Megatron-Core keeps its gradient buffer whatever the batch
    setup = TrainingSetup(method="full-finetune", seq_len=4096, global_batch=2)
    megatron = ModelSplit(
        gpu=A100.name, gpu_count=1, gpus_per_node=1, nodes=1, dp=1, zero_stage=0, micro_batch=2, global_batch=2
    )
    assert estimate_memory(LLAMA3B, setup, megatron.model_copy(update={"framework": MEGATRON}), A100).gradients > 5


def test_lora_dropout_keeps_a_dropped_copy_and_a_mask_of_each_adapted_input():
    from advisor.engine.memory import lora_dropout_bytes

    # Llama 3.1 8B, every linear adapted: inputs q, k, v, gate, up (h 4096 each), o (q 4096),
    # down (ffn 14336); 2 bytes of the dropped copy + 1 of the mask each
    setup = TrainingSetup(method="lora", lora_targets="all", lora_dropout=0.1)
    assert lora_dropout_bytes(LLAMA8, setup) == 3 * (5 * 4096 + 4096 + 14336)
    assert lora_dropout_bytes(LLAMA8, setup.model_copy(update={"lora_targets": "qv"})) == 3 * 2 * 4096
    # no dropout: the adapter keeps the undropped input, counted with the layer's (below)
    assert lora_dropout_bytes(LLAMA8, setup.model_copy(update={"lora_dropout": 0.0})) == 0
    assert lora_dropout_bytes(LLAMA8, TrainingSetup(method="full-finetune", lora_dropout=0.1)) == 0


def test_the_request_reads_lora_dropout_for_adapters_only():
    from advisor.request.parser import RequestError, parse

    assert parse("8b lora lora_dropout=0.05 10GB").lora_dropout == 0.05
    assert parse("8b qlora dropout 0.1 10GB").lora_dropout == 0.1
    assert parse("8b lora 10GB").lora_dropout == 0.0
    with pytest.raises(RequestError):
        parse("8b full-finetune dropout 0.1 10GB")
    with pytest.raises(RequestError):
        parse("8b lora dropout 1.5 10GB")
    assert parse("8b lora dropout .05 10GB").lora_dropout == 0.05
    with pytest.raises(RequestError):  # a bare key before a data size is not a dropout of 10
        parse("8b lora dropout 10GB")


def test_fsdp_shards_the_adapters_too():
    # LoRA on 8 GPUs: under ZeRO-3 (FSDP) the adapters' weights, gradients and optimizer states
    # are sharded 8 ways like any trained parameter; ZeRO-1 shards only their optimizer states
    from advisor.engine.memory import lora_params_per_layer

    setup = TrainingSetup(method="lora", lora_rank=16, lora_targets="all")
    adapters = lora_params_per_layer(LLAMA8, 16, "all") * LLAMA8.layers
    ddp = estimate_memory(LLAMA8, setup, _layout(zero_stage=0, framework=PEFT), H100)
    zero1 = estimate_memory(LLAMA8, setup, _layout(zero_stage=1, framework=PEFT), H100)
    fsdp = estimate_memory(LLAMA8, setup, _layout(zero_stage=3, framework=PEFT), H100)
    assert ddp.gradients * GIB == pytest.approx(adapters * 4)
    assert fsdp.gradients == pytest.approx(ddp.gradients / 8)
    assert zero1.gradients == ddp.gradients and zero1.optimizer == pytest.approx(ddp.optimizer / 8)
    assert fsdp.optimizer == pytest.approx(ddp.optimizer / 8)


def test_adapters_of_a_pure_bf16_model_are_bf16():
    # PEFT upcasts adapters to fp32 (4 + 4 bytes and two 4-byte moments); a model kept all in
    # bf16 (torchtune, litgpt bf16-true) trains them in bf16 (2 + 2 and two 2-byte moments)
    from advisor.engine.memory import lora_params_per_layer

    adapters = lora_params_per_layer(LLAMA8, 16, "all") * LLAMA8.layers
    mixed = estimate_memory(LLAMA8, TrainingSetup(method="lora"), _layout(zero_stage=0, framework=PEFT), H100)
    pure = TrainingSetup(method="lora", precision="pure-bf16")
    bf16 = estimate_memory(LLAMA8, pure, _layout(zero_stage=0, framework=PEFT), H100)
    assert mixed.gradients * GIB == pytest.approx(adapters * 4) and bf16.gradients * GIB == pytest.approx(adapters * 2)
    assert mixed.optimizer * GIB == pytest.approx(adapters * 8) and bf16.optimizer * GIB == pytest.approx(adapters * 4)


def test_frozen_base_layers_keep_no_inputs_of_their_own():
    # Llama 3.1 8B, fused kernels: a linear keeps its input only for its weight's gradient, so a
    # LoRA layer adapting q and v without dropout keeps the QKV input (for the adapters' A) but
    # not the gate/up input (2h) nor the down input (2 ffn): 2 x 4096 + 2 x 14336 bytes a token less
    full = layer_activation_bytes_per_token(LLAMA8, 8192, "bf16", "none", True)
    qv = linear_inputs_kept(TrainingSetup(method="lora", lora_targets="qv"))
    assert qv == LinearInputs(qkv=True, o=False, gate_up=False, down=False)
    lora = layer_activation_bytes_per_token(LLAMA8, 8192, "bf16", "none", True, inputs=qv)
    assert full - lora == 2 * 4096 + 2 * 14336
    # with dropout the adapters keep their dropped copies instead (lora_dropout_bytes): the base
    # layers keep none, the QKV input 2h goes too
    dropped = linear_inputs_kept(TrainingSetup(method="lora", lora_targets="all", lora_dropout=0.05))
    assert dropped == LinearInputs(False, False, False, False)
    assert full - layer_activation_bytes_per_token(LLAMA8, 8192, "bf16", "none", True, inputs=dropped) == (
        2 * 4096 + 2 * 4096 + 2 * 14336
    )
    # every linear adapted, no dropout: every input kept, as in full training
    assert linear_inputs_kept(TrainingSetup(method="lora", lora_targets="all")) == LinearInputs()
    # on SDPA the output projection's contiguous copy of the attention output goes with it (2q)
    native = Kernels(native_attention=True, norm_trains=False)
    kept = layer_activation_bytes_per_token(LLAMA8, 8192, "bf16", "none", True, kernels=native)
    frozen = layer_activation_bytes_per_token(LLAMA8, 8192, "bf16", "none", True, kernels=native, inputs=qv)
    assert kept - frozen == 2 * 4096 + 2 * 14336 + 2 * 4096


def test_qlora_on_old_bitsandbytes_keeps_every_4bit_layer_input():
    # bitsandbytes before 0.43.2 saved each 4-bit matmul's input (PR #1270): as full training
    old = TrainingSetup(method="qlora", lora_targets="qv", lora_dropout=0.05, bnb_keeps_inputs=True)
    assert linear_inputs_kept(old) == LinearInputs()
    assert linear_inputs_kept(old.model_copy(update={"bnb_keeps_inputs": False})) == LinearInputs(
        False, False, False, False
    )
    # the flag is QLoRA's alone: bf16 LoRA keeps what it keeps on any bitsandbytes
    assert linear_inputs_kept(old.model_copy(update={"method": "lora"})) == LinearInputs(False, False, False, False)
    # end to end, Llama 2 7B QLoRA on an A10G at 2 x 512 tokens: the old matmul keeps the QKV,
    # gate/up (h 4096 each) and down (ffn 11008) inputs of 32 layers, and the eager SDPA output
    # copy (4096), 2 bytes each
    seven = catalog.find_model("llama2-7b")
    a10g = catalog.get_gpu("A10G")
    one = ModelSplit(gpu=a10g.name, gpu_count=1, gpus_per_node=1, nodes=1, dp=1, zero_stage=0, micro_batch=2)
    one = one.model_copy(update={"framework": PEFT, "recompute": "none"})
    new = old.model_copy(update={"bnb_keeps_inputs": False, "seq_len": 512})
    extra = estimate_memory(seven, new.model_copy(update={"bnb_keeps_inputs": True}), one, a10g).activations
    extra -= estimate_memory(seven, new, one, a10g).activations
    assert extra * GIB == pytest.approx(2 * 512 * 32 * 2 * (4096 + 4096 + 11008 + 4096), rel=1e-6)


def test_litgpt_qlora_holds_the_last_micro_batchs_inputs_and_two_embedding_tables():
    # Llama 2 7B QLoRA in litgpt on an A10G at 2 x 512 tokens (litgpt's config hub row): on
    # bitsandbytes 0.42 the previous micro-batch's 4-bit layer inputs are still held when the
    # next forward ends (QKV and gate/up h 4096 each, output projection 32 x 128, down 11008,
    # 32 layers, and the head's 4096 once, 2 bytes a value)...
    seven = catalog.find_model("llama2-7b")
    a10g = catalog.get_gpu("A10G")
    one = ModelSplit(gpu=a10g.name, gpu_count=1, gpus_per_node=1, nodes=1, dp=1, zero_stage=0, micro_batch=2)
    setup = TrainingSetup(method="qlora", lora_targets="qv", lora_dropout=0.05, seq_len=512, precision="pure-bf16")

    def mem(framework, **kw):
        layout = one.model_copy(update={"framework": framework})
        return estimate_memory(seven, setup.model_copy(update=kw), layout, a10g)

    old_litgpt, new_litgpt = mem(LITGPT, bnb_keeps_inputs=True), mem(LITGPT)
    stale = old_litgpt.activations - new_litgpt.activations
    stale -= mem(PEFT, bnb_keeps_inputs=True).activations - mem(PEFT).activations
    assert stale * GIB == pytest.approx(2 * 1024 * ((4096 + 4096 + 4096 + 11008) * 32 + 4096), rel=1e-6)
    # ...litgpt quantises the output head as well (32,000 x 4,096 in NF4, not bf16), and from
    # 0.5.0 keeps the token embedding it swapped out beside the gradient of the StableEmbedding
    # that replaced it: two 32,000 x 4,096 x 2-byte tables
    head, table = 32000 * 4096, 32000 * 4096 * 2 / GIB
    nf4_head = head * (NF4_BYTES - 2) / GIB
    peft, before_05 = mem(PEFT), mem(LITGPT, old_litgpt=True)
    assert before_05.weights - peft.weights == pytest.approx(nf4_head, rel=1e-6)
    assert new_litgpt.weights - before_05.weights == pytest.approx(table, rel=1e-6)
    assert new_litgpt.gradients - before_05.gradients == pytest.approx(table, rel=1e-6)
    # bf16 LoRA in litgpt swaps and quantises nothing
    lora = setup.model_copy(update={"method": "lora"})
    assert estimate_memory(seven, lora, one.model_copy(update={"framework": LITGPT}), a10g).weights == (
        estimate_memory(seven, lora, one.model_copy(update={"framework": PEFT}), a10g).weights
    )


def test_qlora_dequantises_its_largest_4bit_weight_for_each_matmul():
    """The largest weight, dequantised: transformers keeps the head in 16 bits, so the MLP's
    4,096 x 14,336 in bf16 for Llama 3.1 8B on a current bitsandbytes; quantised from fp16
    (bitsandbytes 0.42, and Lightning's plugin always) an fp16 copy and its bf16 cast; litgpt's
    quantised head (128,256 x 4,096) is the largest there."""
    from advisor.engine.memory import dequantised_weight_bytes

    c = count_params(LLAMA8)
    setup = TrainingSetup(method="qlora", precision="bf16")
    one = _layout(gpu_count=1, dp=1, zero_stage=0, gpus_per_node=1)
    assert dequantised_weight_bytes(LLAMA8, c, setup, one) == 4096 * 14336 * 2
    old = setup.model_copy(update={"bnb_keeps_inputs": True})
    assert dequantised_weight_bytes(LLAMA8, c, old, one) == 4096 * 14336 * 4
    litgpt = one.model_copy(update={"framework": LITGPT})
    assert dequantised_weight_bytes(LLAMA8, c, setup, litgpt) == 128256 * 4096 * 4
    assert dequantised_weight_bytes(LLAMA8, c, setup, one.model_copy(update={"tp": 2, "dp": 1})) == 4096 * 14336
    assert dequantised_weight_bytes(LLAMA8, c, setup.model_copy(update={"method": "lora"}), one) == 0


# -- offload of a QLoRA base: the 4-bit weights, on the host and over PCIe -------------------


def _offloaded(method: str, dp: int):
    from advisor.engine.throughput import estimate_throughput

    m = catalog.find_model("llama3.1-70b")
    gpu = catalog.get_gpu("A100")
    setup = TrainingSetup(method=method, precision="bf16", seq_len=2048, lora_rank=16, tokens=1e8)
    lay = ModelSplit(
        gpu=gpu.name,
        gpu_count=dp,
        gpus_per_node=min(8, dp),
        nodes=max(1, dp // 8),
        dp=dp,
        zero_stage=3,
        offload="all",
        recompute="full",
        micro_batch=1,
        global_batch=dp * 8,
        framework=PEFT,
    )
    return estimate_memory(m, setup, lay, gpu), estimate_throughput(m, setup, lay, gpu).step["offload_s"]


def test_qlora_offload_streams_its_nf4_layers_not_16_bit_copies():
    """ZeRO-3 offload of QLoRA keeps the NF4 base on the host and streams it in as stored
    (bitsandbytes dequantises on the GPU a matmul at a time): the two layers on the GPU and the
    bytes over PCIe are 4-bit, about a quarter of LoRA's bf16 base (NF4 with double
    quantisation: 4.127 bits)."""
    qlora, q_pcie = _offloaded("qlora", 1)
    lora, l_pcie = _offloaded("lora", 1)
    ratio = (4 + 0.127) / 8 / 2
    assert qlora.weights == pytest.approx(lora.weights * ratio, rel=0.02)  # it was 2 bytes a parameter
    # the host holds the NF4 linear layers and the 16-bit embedding and head
    assert lora.host_ram_gib * ratio < qlora.host_ram_gib < lora.host_ram_gib * 0.35
    # the streamed weights dominate the PCIe term (the adapters' traffic is tiny)
    assert q_pcie < l_pcie * 0.3


def test_offloaded_weights_come_in_as_each_rank_partition():
    """Each rank copies in only its ZeRO-3 partition, what it offloaded; the rest arrives by the
    all-gather: twice the ranks, half the bytes over each GPU's PCIe link. Hand-worked, one rank:
    Llama 3.1 70B's bf16 base (141.1 GB) streamed in for each micro-batch's two forward passes
    (full recompute) and its backward at 25 GB/s (PCIe 4), 16.9 s, of which the prefetch hides
    0.8 of the micro-batch's compute; eight micro-batches a step."""
    from advisor.engine.throughput import COMM_OVERLAP, PCIE_GBPS, base_weight_bytes, estimate_throughput

    _, one = _offloaded("lora", 1)
    _, two = _offloaded("lora", 2)
    assert two < one * 0.5
    m = catalog.find_model("llama3.1-70b")
    gpu = catalog.get_gpu("A100")
    setup = TrainingSetup(method="lora", precision="bf16", seq_len=2048, lora_rank=16, tokens=1e8)
    dense_b, expert_b = base_weight_bytes(m, setup, count_params(m))
    lay = ModelSplit(
        gpu=gpu.name, gpu_count=1, gpus_per_node=1, nodes=1, dp=1, zero_stage=3, offload="optimizer",
        recompute="full", micro_batch=1, global_batch=8, framework=PEFT,
    )  # fmt: skip
    states_only = estimate_throughput(m, setup, lay, gpu).step
    t_mb = states_only["compute_s"] / 8
    stream = 8 * max(0.0, (dense_b + expert_b) * 3 / (PCIE_GBPS[4] * 1e9) - COMM_OVERLAP * t_mb)
    assert dense_b + expert_b == pytest.approx(141.1e9, rel=0.01) and stream > 0
    assert one == pytest.approx(states_only["offload_s"] + stream, rel=1e-3)


def test_on_a_pcie_card_the_copies_from_host_queue_behind_the_gathers_on_its_one_link():
    """Eight L4s (PCIe, no NVLink), Llama 3.1 70B LoRA on 512-token sequences, every state offloaded: each rank
    copies in its eighth of the bf16 base (17.6 GB) three times a micro-batch (two forwards under
    full recompute, one backward) at 25 GB/s, and the seven other eighths arrive by all-gather over
    the same x16 link. Only the compute left after the gathers hides the copies (had been hidden
    as if the card had a second link). The gathers themselves run at what PCIe 4 carries one way
    (25 GB/s, not half the 64 GB/s both-ways figure)."""
    from advisor.engine.throughput import (
        COMM_OVERLAP,
        PCIE_GBPS,
        base_weight_bytes,
        estimate_throughput,
        intra_node_gb_s,
    )

    l4 = catalog.get_gpu("L4")
    assert intra_node_gb_s(l4) == PCIE_GBPS[4] == 25.0
    m = catalog.find_model("llama3.1-70b")
    setup = TrainingSetup(method="lora", precision="bf16", seq_len=512, lora_rank=16, tokens=1e8)
    dense_b, expert_b = base_weight_bytes(m, setup, count_params(m))
    lay = ModelSplit(
        gpu=l4.name, gpu_count=8, gpus_per_node=8, nodes=1, dp=8, zero_stage=3, offload="all",
        recompute="full", micro_batch=1, global_batch=8, framework=PEFT,
    )  # fmt: skip
    states = ModelSplit(**{**lay.model_dump(), "offload": "optimizer"})
    with_weights = estimate_throughput(m, setup, lay, l4).step
    states_only = estimate_throughput(m, setup, states, l4).step
    t_mb, gathers = states_only["compute_s"], states_only["data_s"]  # one micro-batch a step
    copies = (dense_b + expert_b) / 8 * 3 / (PCIE_GBPS[4] * 1e9)
    window = max(0.0, COMM_OVERLAP * t_mb - gathers)
    assert with_weights["offload_s"] == pytest.approx(states_only["offload_s"] + max(0.0, copies - window), rel=1e-3)
    # short sequences: the gathers fill the micro-batch's compute, and the copies show in full
    assert window == 0.0 and with_weights["offload_s"] > states_only["offload_s"] + 0.99 * copies


# -- fp32 attention: SDPA's memory-efficient kernel on PyTorch-native stacks ----------------


def _per_token_h(framework: str, seq: int, precision: str = "fp32") -> float:
    setup = TrainingSetup(method="full-finetune", precision=precision, seq_len=seq, tokens=1e9)
    lay = ModelSplit(gpu=H100.name, gpu_count=8, gpus_per_node=8, nodes=1, dp=8, zero_stage=3, framework=framework)
    notes = estimate_memory(LLAMA8, setup, lay, H100).notes
    return next(n for n in notes if n["kind"] == "activations")["per_token_h"]


def test_fp32_attention_keeps_scores_only_where_no_fused_kernel_runs():
    """FlashAttention takes 16-bit inputs only; in fp32 PyTorch's SDPA runs its memory-efficient
    kernel (fp16/fp32 on every CUDA GPU), which keeps no score matrix, so a PyTorch-native
    stack's activations per token do not grow with the sequence. Transformer Engine has no fp32
    fused attention: Megatron-Core keeps the scores, 5 a s bytes more per token at 16 bits
    (Korthikanti et al. 2022, Table 2), twice that in fp32."""
    from advisor.engine.memory import attention_kernel, score_free_attention

    assert _per_token_h(HF, 8192) == pytest.approx(_per_token_h(HF, 4096))
    grown = _per_token_h(MEGATRON, 8192) - _per_token_h(MEGATRON, 4096)
    assert grown * LLAMA8.hidden == pytest.approx(2 * 5 * LLAMA8.heads * 4096)
    assert _per_token_h(MEGATRON, 4096) > _per_token_h(MEGATRON, 4096, "bf16") * 3
    setup = TrainingSetup(method="full-finetune", precision="fp32", seq_len=4096)
    assert attention_kernel(H100, setup, FSDP2) == "mem_efficient"
    assert attention_kernel(H100, setup, MEGATRON) == "eager"
    assert attention_kernel(H100, setup.model_copy(update={"precision": "bf16"}), HF) == "best"
    v100 = catalog.get_gpu("V100")
    assert score_free_attention(v100, "fp16", HF) and not score_free_attention(v100, "fp16", MEGATRON)
    # HF's BLOOM and MPT add ALiBi to eager scores: no SDPA kernel to fall back to
    assert not score_free_attention(H100, "fp32", HF, "alibi") and score_free_attention(H100, "bf16", HF, "alibi")


def test_megatron_offloads_the_optimizer_shard_and_keeps_the_gradients():
    """Megatron-Core's optimizer CPU offload (ms-swift's `--optimizer_cpu_offload`) moves the
    distributed optimizer's shard alone. Hand-worked: Qwen2.5-72B on TP8, one data-parallel rank:
    each GPU's 1/8 of the parameters x 12 bytes (fp32 main weights and two moments) goes to the
    host; the gradient buffer stays, the same as without offload (ZeRO-Offload had taken both)."""
    from advisor.engine.frameworks import on_stack

    m = catalog.find_model("qwen2.5-72b")
    a100 = catalog.get_gpu("A100")
    setup = TrainingSetup(method="full-finetune", precision="bf16", seq_len=8192, stack="megatron")
    assert on_stack(setup, 8, 1, 1, 1, "optimizer") == MEGATRON
    assert on_stack(setup, 8, 1, 1, 1, "all") is None  # never the weights
    lay = dict(gpu=a100.name, gpu_count=8, gpus_per_node=8, nodes=1, tp=8, dp=1, zero_stage=1)
    lay |= dict(recompute="full", micro_batch=1, framework=MEGATRON)
    kept = estimate_memory(m, setup, ModelSplit(**lay), a100)
    off = estimate_memory(m, setup, ModelSplit(**(lay | {"offload": "optimizer"})), a100)
    shard = parameters_on_this_gpu(count_params(m), ModelSplit(**lay))
    assert off.host_ram_gib * GIB == pytest.approx((shard.dense + shard.experts) * 12, rel=0.02)
    assert off.optimizer == 0 and off.gradients == pytest.approx(kept.gradients)
    # the training peak drops by the optimizer's shard, below the 8 bytes a parameter Megatron
    # holds while it fills its buffers, which are then the peak (the test below)
    assert off.allocated * GIB == pytest.approx(8 * shard.total)


QWEN3_MOE = catalog.find_model("qwen3-30b-a3b")


def test_routed_experts_keep_their_permuted_input_for_each_expert_a_token_goes_to():
    """Qwen3-30B-A3B (h 2048, 32 heads of 128, 4 KV heads, 128 experts of 768, top-8), bf16, no
    recompute, fused kernels: attention 2h + 2h + 2(q + 2kv) + 2q = 26,624 bytes a token; MLP
    2h + 2h + the SwiGLU's 3 tensors of 8 x 768 (36,864) + the permuted tokens the grouped fc1
    keeps, 8 copies of 2h (32,768) + the router's two fp32 score tensors over 128 experts (routing
    and load-balancing loss: 2 x 4 x 128 = 1,024): 105,472 in all."""
    per_token = layer_activation_bytes_per_token(QWEN3_MOE, 4096, "bf16", "none", True)
    assert per_token == 26_624 + 4096 + 4096 + 36_864 + 32_768 + 1_024
    # fp32 training doubles the 16-bit activations, not the scores, which are fp32 already
    fp32 = layer_activation_bytes_per_token(QWEN3_MOE, 4096, "fp32", "none", True)
    assert fp32 == 2 * (per_token - 1_024) + 1_024


def test_megatron_cross_entropy_keeps_an_fp32_softmax_beside_the_logits():
    """Megatron-Core's vocab-parallel cross entropy casts its logits shard to fp32 and keeps the
    softmax for the backward: Llama 3.1 8B at 1 x 8,192 tokens on TP2, 128,256 / 2 logits a
    token x (2 + 4) bytes = 5.87 GiB."""
    setup = TrainingSetup(method="full-finetune", precision="bf16", seq_len=8192, stack="megatron")
    lay = _layout(tp=2, dp=4, zero_stage=1, recompute="full", framework=MEGATRON)
    note = next(n for n in estimate_memory(LLAMA8, setup, lay, H100).notes if n["kind"] == "activations")
    assert note["logits_gib"] * GIB == pytest.approx(8192 * 128_256 / 2 * (2 + 4))


def test_with_pipeline_stages_the_logits_sit_on_the_last_stage():
    """Llama 3.1 8B (32 layers) on PP4, no recompute, 1 x 4,096 tokens, 8 micro-batches: the
    first stage keeps 4 micro-batches of its 8 layers, the last one micro-batch of its 8 layers
    and the logits (4,096 x 128,256 x 6 bytes = 2.94 GiB); the larger of the two is charged."""
    setup = TrainingSetup(method="full-finetune", precision="bf16", seq_len=4096, stack="megatron")
    lay = _layout(pp=4, dp=2, zero_stage=1, recompute="none", framework=MEGATRON, global_batch=16)
    lay = lay.model_copy(update={"pipeline_schedule": "1f1b"})
    per_token = layer_activation_bytes_per_token(LLAMA8, 4096, "bf16", "none", True)
    first, last = per_token * 4096 * 8 * 4, per_token * 4096 * 8 + 4096 * 128_256 * 6
    mem = estimate_memory(LLAMA8, setup, lay, H100)
    assert mem.activations * GIB == pytest.approx(max(first, last))
    assert first > last  # here the first stage's four micro-batches weigh more


def test_lora_on_every_linear_adapts_each_routed_expert():
    """ms-swift's Megatron all-linear takes the experts' TEGroupedLinear and gives each local
    expert its own A and B. Qwen3-30B-A3B, rank 32: 3 x 32 x (2048 + 768) = 270,336 adapter
    parameters an expert, x 128 experts x 48 layers = 1.66B; on EP4 (expert data-parallel 1) a
    GPU holds a quarter, in bf16 with an fp32 main_grad and 12 bytes of optimizer: 18 bytes.
    PEFT's all-linear adapts transformers 4's experts (a ModuleList of nn.Linear) alike, and none
    of transformers 5's (two 3-D parameters a layer, no nn.Linear)."""
    from advisor.engine.memory import lora_params

    setup = TrainingSetup(method="lora", lora_rank=32, lora_targets="all", seq_len=8192, stack="megatron")
    dense, experts = lora_params(QWEN3_MOE, setup, MEGATRON)
    assert experts == 270_336 * 128 * 48
    hf = setup.model_copy(update={"stack": "hf"})
    assert lora_params(QWEN3_MOE, hf, PEFT) == (dense, 0.0)
    assert lora_params(QWEN3_MOE, hf.model_copy(update={"hf_expert_loop": True}), PEFT) == (dense, experts)
    lay = _layout(gpu_count=4, dp=4, ep=4, zero_stage=1, recompute="full", framework=MEGATRON)
    attn_only = setup.model_copy(update={"lora_targets": "attn"})
    assert lora_params(QWEN3_MOE, attn_only, MEGATRON)[1] == 0
    full = estimate_memory(QWEN3_MOE, setup, lay, H100)
    states = (full.weights + full.gradients + full.optimizer) * GIB
    base = estimate_memory(QWEN3_MOE, attn_only, lay, H100)
    base_states = (base.weights + base.gradients + base.optimizer) * GIB
    dense_extra = (dense - lora_params(QWEN3_MOE, attn_only, MEGATRON)[0]) * (2 + 4 + 12 / 4)
    assert states - base_states == pytest.approx(experts / 4 * 18 + dense_extra, rel=1e-6)


def test_experts_split_over_the_tensor_ranks_keep_every_token_routed_to_them():
    """Mixtral 8x7B (h 4096, top-2) on TP8 with EP1: each expert's matrices are split over the 8
    tensor ranks, so Megatron-Core gathers the dispatched tokens over them and the grouped fc1
    keeps all of them, 2 copies of 2h bytes a token of the whole sequence, where sequence
    parallelism leaves the rest 1/8: 7 x 2 x 2 x 4096 = 114,688 bytes a token before the / tp.
    With no recompute, 1 x 4,096 tokens, PP2 (16 layers, 2 micro-batches in flight): 114,688 x
    4,096 x 16 x 2 / 8 = 1.75 GiB more than the same split with experts over 8 expert ranks would
    charge for that tensor; spread over expert ranks (EP8) nothing is gathered."""
    from advisor.engine.memory import expert_gather_bytes_per_token

    mixtral = catalog.find_model("mixtral-8x7b")
    setup = TrainingSetup(method="pretrain", precision="bf16", seq_len=4096, stack="megatron")
    lay = _layout(gpu_count=32, nodes=4, tp=8, pp=2, dp=2, zero_stage=1, recompute="none", framework=MEGATRON)
    lay = lay.model_copy(update={"pipeline_schedule": "1f1b", "global_batch": 64})
    assert expert_gather_bytes_per_token(mixtral, setup, lay) == 7 * 2 * 2 * 4096
    assert expert_gather_bytes_per_token(mixtral, setup, lay.model_copy(update={"ep": 2, "expert_tp": 1})) == 0
    with_gather = estimate_memory(mixtral, setup, lay, H100).activations * GIB
    per_token = layer_activation_bytes_per_token(mixtral, 4096, "bf16", "none", True)
    logits = 4096 * mixtral.vocab * (2 + MEGATRON_LOSS_BYTES) / 8
    first = (per_token + 7 * 2 * 2 * 4096) * 4096 * 16 * 2 / 8
    last = (per_token + 7 * 2 * 2 * 4096) * 4096 * 16 / 8 + logits
    assert with_gather == pytest.approx(max(first, last))
    assert first > last  # the first stage's two micro-batches, with 1.75 GiB of gathered inputs


def test_megatron_holds_each_parameter_twice_while_it_fills_its_buffers():
    """Megatron-Core's distributed optimizer allocates a buffer's whole bf16 param_data and fp32
    grad_data before it copies each parameter in and frees the original: 2 + 2 + 4 = 8 bytes a
    parameter at once. Llama 3.1 8B on 8 GPUs (ZeRO-1 over dp 8) with its optimizer shard offloaded
    and full recompute at 1 x 1,024 tokens trains in 6 bytes a parameter and 1.4 GiB of
    activations; the setup's 8 bytes a parameter (59.8 GiB) are the peak. Qwen3-30B-A3B on EP4:
    the dense buffer is filled first (its 2 + 2 + 4 bytes and the experts' 2), then the experts'
    (all 6 and their originals' 2): 6 bytes a parameter + 2 an expert parameter on this GPU."""
    setup = TrainingSetup(method="full-finetune", precision="bf16", seq_len=1024, stack="megatron")
    lay = _layout(dp=8, zero_stage=1, recompute="full", offload="optimizer", framework=MEGATRON)
    n = parameters_on_this_gpu(count_params(LLAMA8), lay).total
    mem = estimate_memory(LLAMA8, setup, lay, H100)
    assert mem.allocated * GIB == pytest.approx(8 * n)
    assert mem.activations < 2 and 6 * n / GIB + mem.activations < 8 * n / GIB
    assert any(note["kind"] == "buffer_remap" for note in mem.notes)
    assert mem.reserved == pytest.approx(mem.allocated + mem.fragmentation)
    lay_moe = _layout(gpu_count=4, dp=4, ep=4, zero_stage=1, recompute="full", offload="optimizer", framework=MEGATRON)
    shard = parameters_on_this_gpu(count_params(QWEN3_MOE), lay_moe)
    moe = estimate_memory(QWEN3_MOE, setup, lay_moe, H100)
    assert moe.allocated * GIB == pytest.approx(6 * shard.total + 2 * shard.experts)
    # with the optimizer's shard over 2 ranks on the GPU (6 more bytes a parameter), training
    # holds more than the setup: nothing is added
    kept = estimate_memory(LLAMA8, setup, lay.model_copy(update={"offload": "none", "dp": 2, "gpu_count": 2}), H100)
    assert not any(note["kind"] == "buffer_remap" for note in kept.notes)
    # Megatron-FSDP (ZeRO-3 on Megatron-Core) fills sharded buffers from a meta-device model:
    # no moment with every parameter held twice
    fsdp = estimate_memory(LLAMA8, setup, lay.model_copy(update={"zero_stage": 3, "offload": "none"}), H100)
    assert not any(note["kind"] == "buffer_remap" for note in fsdp.notes)
    assert fsdp.allocated < 8 * n / GIB / 2  # 19 GiB against the 59.8 GiB of ZeRO-1 setting up


MIXTRAL = catalog.find_model("mixtral-8x7b")


def _megatron_layer(m, modules, flash=True, seq=4096):
    return layer_activation_bytes_per_token(m, seq, "bf16", "selective" if modules else "none", flash, modules=modules)


def test_megatron_selective_on_a_dense_layer_follows_its_modules():
    # Llama 3.1 8B, bf16, Transformer Engine: h 4096, q 4096, kv 1024, ffn 14336.
    # attention: norm input 2h + QKV input 2h + q, k, v 2(q + 2kv) + o-proj input 2q = 36,864;
    # MLP: norm input 2h + gate/up input 2h + SwiGLU input 2 x 2ffn + down input 2ffn = 102,400.
    none = 36864 + 102400
    assert _megatron_layer(LLAMA8, ()) == none
    # Megatron's default, core_attn, saves nothing under a fused attention kernel
    assert _megatron_layer(LLAMA8, ("core_attn",)) == none
    # without one it drops the 5as bytes of scores (Korthikanti Table 2) the plain layer keeps
    assert _megatron_layer(LLAMA8, (), flash=False) == none + 5 * 32 * 4096
    assert _megatron_layer(LLAMA8, ("core_attn",), flash=False) == none
    # mlp: the checkpointed MLP keeps its input alone
    assert _megatron_layer(LLAMA8, ("mlp",)) == 36864 + 8192
    # layernorm: TE fuses a dense layer's norms into the next linear, nothing stands alone
    assert _megatron_layer(LLAMA8, ("layernorm",)) == none
    # other stacks' selective keeps the Korthikanti-style count: one ffn-wide tensor less
    assert layer_activation_bytes_per_token(LLAMA8, 4096, "bf16", "selective", True) == none - 2 * 14336


def test_megatron_selective_on_a_moe_layer_follows_its_modules():
    # Mixtral 8x7B: h 4096, q 4096, kv 1024, expert ffn 14336, top-2 of 8 experts, no shared.
    # attention 36,864 as above; MLP: norm input 2h + router input 2h + SwiGLU input 2 x 2 x 28,672
    # + down input 2 x 28,672 + the permuted copies 2 x 2h = 204,800; router scores 2 x 4 x 8 = 64.
    assert (MIXTRAL.moe_ffn_hidden, MIXTRAL.moe_top_k, MIXTRAL.moe_shared_experts) == (14336, 2, 0)
    none = 36864 + 204800 + 64
    assert _megatron_layer(MIXTRAL, ()) == none
    assert _megatron_layer(MIXTRAL, ("core_attn",)) == none
    # moe_act: the routed experts' activation output (the down-projection's input) recomputed
    assert _megatron_layer(MIXTRAL, ("moe_act",)) == none - 2 * 2 * 14336
    # layernorm: the pre-MLP norm's output, which the router keeps, recomputed
    assert _megatron_layer(MIXTRAL, ("moe_act", "layernorm")) == none - 2 * 2 * 14336 - 2 * 4096


def test_a_megatron_plan_names_its_selective_modules():
    from advisor.engine.frameworks import selective_modules
    from advisor.engine.setup import PinnedKnobs

    setup = TrainingSetup()
    assert selective_modules(MIXTRAL, setup, MEGATRON, flash=True) == ("moe_act", "layernorm")
    assert selective_modules(LLAMA8, setup, MEGATRON, flash=True) == ("mlp",)
    assert selective_modules(LLAMA8, setup, MEGATRON, flash=False) == ("core_attn", "mlp")
    ds = catalog.find_model("deepseek-v3")
    assert selective_modules(ds, setup, MEGATRON, flash=True) == ("moe_act", "layernorm", "mla_up_proj")
    assert selective_modules(LLAMA8, setup, FSDP2, flash=True) == ()
    said = TrainingSetup(pinned=PinnedKnobs(recompute="selective", recompute_modules=("core_attn",)))
    assert selective_modules(MIXTRAL, said, MEGATRON, flash=True) == ("core_attn",)
