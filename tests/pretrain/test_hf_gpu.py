"""Imported Hugging Face bases on a GPU, with Transformer Engine's layers when installed: MLA latent-norm
epsilons, logits against ``transformers``, tied embeddings through training and the hand-off. The GPU
cases skip without CUDA; bench/gpu_checks.sh runs this file on a GPU machine with ``--noconftest`` (the
pretrain conftest builds a whole ``mix build``, whose dependencies a GPU image lacks), so the tests
here make their own bases and tokenizer.

``NVIDIA_TF32_OVERRIDE=0`` (the script sets it) keeps cuBLAS's fp32 GEMMs in fp32; without it TF32's
10-bit mantissa moves logits by ~1e-3 and only a loose bound is checked.
"""

from __future__ import annotations

import json
import os

import pytest
import torch
from safetensors.torch import load_file

from codemix.pretrain.configs import load_recipe
from codemix.pretrain.hf.base_import import import_base

from .hf_models import FAMILIES, hf_logits, megatron_logits, sample_tokens, tiny_hf_model

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
FP32_GEMMS = os.environ.get("NVIDIA_TF32_OVERRIDE") == "0"
GPU_LOGIT_ATOL = 2e-5 if FP32_GEMMS else 5e-3  # fp32: GPU reduction orders; TF32: its mantissa


def hf_base(directory, family: str, **options):
    """A tiny random base of ``family`` with a 1000-id BPE tokenizer.json (bench.hf_fidelity's)."""
    from bench.hf_fidelity import write_tokenizer

    tiny_hf_model(family, **options).save_pretrained(directory)
    write_tokenizer(directory)
    return directory


def gpu_model(base_dir, checkpoint, *overrides: str):
    """The imported run's model on the GPU (Transformer Engine's layers when installed), fp32 weights."""
    from codemix.pretrain.checkpoint import load_checkpoint
    from codemix.pretrain.configs import recipe_from_dict
    from codemix.pretrain.model.gpt import PositionSetup, build_model

    record = json.loads((base_dir / "run.json").read_text())
    recipe = recipe_from_dict(record["recipe"] | {"precision": {"dtype": "fp32"}})
    model = build_model(recipe, vocab_size=1000, sequence_length=record["sequence_length"],
                        position=PositionSetup(**record["position"]), cpu=False)
    load_checkpoint(checkpoint, model, cuda=True)
    return model


def forward(model, tokens_BS: torch.Tensor) -> torch.Tensor:
    from codemix.pretrain.loop import causal_mask

    length = tokens_BS.shape[1]
    tokens_BS = tokens_BS.cuda()
    return model(tokens_BS, torch.arange(length, device="cuda").expand_as(tokens_BS), causal_mask(length).cuda())


@pytest.mark.parametrize("cpu", [True, pytest.param(False, marks=pytest.mark.skipif(
    not torch.cuda.is_available(), reason="needs a CUDA GPU (Transformer Engine fuses the latent norms there)"))])
def test_mla_latent_norms_take_their_own_epsilon_on_every_layer_kind(cpu, tmp_path):
    """At rms_norm_eps 1e-5 the block norms use 1e-5 and MLA's q/kv latent norms 1e-6: separate RMSNorms
    on megatron's local layers, the norm inside TE's fused LayerNorm + up-projection on a GPU."""
    from codemix.pretrain.configs import ParallelConfig
    from codemix.pretrain.model.gpt import PositionSetup, build_model
    from codemix.pretrain.parallel import initialize, shutdown

    tiny_hf_model("deepseek_v3", eps=1e-5).save_pretrained(tmp_path / "hf")
    runtime = initialize(ParallelConfig(), seed=0, force_cpu=cpu)
    try:
        model = build_model(load_recipe("continued", [], init_from_hf=str(tmp_path / "hf")), vocab_size=1000, sequence_length=64, position=PositionSetup(),
                            cpu=cpu)
        eps = {name: module.eps for name, module in model.named_modules() if isinstance(getattr(module, "eps", None),
                                                                                         float)}
    finally:
        shutdown(runtime)
    latent = {name: value for name, value in eps.items() if ".self_attention." in name}
    block = {name: value for name, value in eps.items() if name.endswith(("input_layernorm", "pre_mlp_layernorm"))}
    assert len(latent) == 2 * 2 and len(block) >= 2 * 2 - 1, "guard: two latent norms per layer were found"
    assert set(latent.values()) == {1e-6} and set(block.values()) == {1e-5}


@needs_cuda
@pytest.mark.parametrize("family", FAMILIES)
def test_imported_base_on_gpu_computes_the_transformers_logits(family, tmp_path):
    from codemix.pretrain.configs import ParallelConfig
    from codemix.pretrain.parallel import HAVE_TE, initialize, shutdown

    base = hf_base(tmp_path / "hf", family, eps=1e-5)
    checkpoint = import_base(load_recipe("continued", [], init_from_hf=str(base)), tmp_path / "base")
    tokens_BS = sample_tokens()
    expected_BSV = hf_logits(base, tokens_BS)
    runtime = initialize(ParallelConfig(), seed=0)
    try:
        model = gpu_model(tmp_path / "base", checkpoint).eval()
        with torch.no_grad():
            actual_BSV = forward(model, tokens_BS).float().cpu()
    finally:
        shutdown(runtime)
    error = (actual_BSV - expected_BSV).abs().max().item()
    agree = (actual_BSV.argmax(-1) == expected_BSV.argmax(-1)).float().mean().item()
    print(f"GPU logits {family} eps 1e-5 TE={HAVE_TE} fp32 GEMMs={FP32_GEMMS}: max error {error:.2e}, argmax {agree:.1%}")
    assert error <= GPU_LOGIT_ATOL and agree >= 0.99


@needs_cuda
def test_tied_embeddings_stay_one_matrix_through_gpu_training_and_the_hand_off(tmp_path):
    """A tied DeepSeek-V3 base trained a few AdamW steps on the GPU (TE layers), saved, handed off:
    the head is the embedding throughout, the bundle stores it once, and ``transformers`` computes the
    trained model's logits from it."""
    from codemix.pretrain.checkpoint import save_checkpoint
    from codemix.pretrain.configs import ParallelConfig
    from codemix.pretrain.hf.handoff import handoff
    from codemix.pretrain.parallel import initialize, shutdown

    base = hf_base(tmp_path / "hf", "deepseek_v3", tied=True)
    checkpoint = import_base(load_recipe("continued", [], init_from_hf=str(base)), tmp_path / "base")
    tokens_BS = torch.randint(0, 1000, (4, 64), generator=torch.Generator().manual_seed(3))
    runtime = initialize(ParallelConfig(), seed=0)
    try:
        model = gpu_model(tmp_path / "base", checkpoint).train()
        shared = model.shared_embedding_or_output_weight()
        assert model.output_layer.weight is None and shared is model.embedding.word_embeddings.weight
        before = shared.detach().clone()
        optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
        losses = []
        for _ in range(6):
            logits_BSV = forward(model, tokens_BS).float()
            loss = torch.nn.functional.cross_entropy(logits_BSV[:, :-1].reshape(-1, logits_BSV.shape[-1]),
                                                     tokens_BS[:, 1:].reshape(-1).cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        assert losses[-1] < losses[0] and not torch.equal(shared.detach(), before), losses
        assert model.shared_embedding_or_output_weight() is model.embedding.word_embeddings.weight
        save_checkpoint(tmp_path / "base", model, None, {"step": 6, "consumed_samples": 24, "tokens_seen": 0,
                                                         "loss_tokens_seen": 0, "tokens_per_source": {}}, cuda=True)
    finally:
        shutdown(runtime)
    handoff(tmp_path / "base", tmp_path / "bundle", step=6)
    exported = load_file(str(tmp_path / "bundle" / "hf" / "model.safetensors"))
    assert "lm_head.weight" not in exported
    logits_BSV, info, _ = hf_logits(tmp_path / "bundle" / "hf", sample_tokens(), info=True)
    assert not any(info[key] for key in ("missing_keys", "unexpected_keys", "mismatched_keys")), info
    trained_BSV = megatron_logits(tmp_path / "base", tmp_path / "base" / "checkpoints" / "step_0000006", sample_tokens())
    torch.testing.assert_close(logits_BSV, trained_BSV, rtol=0, atol=4e-6)
