"""Imported Hugging Face bases on a GPU, with Transformer Engine's layers: logits against ``transformers``
and tied embeddings through training and the hand-off. Skipped without CUDA; bench/gpu_checks.sh runs
them (with the TE latent-norm test of test_hf.py) on a GPU machine.

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

from .hf_models import FAMILIES, hf_logits, megatron_logits, sample_tokens, save_base, tiny_hf_model

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
FP32_GEMMS = os.environ.get("NVIDIA_TF32_OVERRIDE") == "0"
GPU_LOGIT_ATOL = 2e-5 if FP32_GEMMS else 5e-3  # fp32: GPU reduction orders; TF32: its mantissa


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


@needs_cuda
@pytest.mark.parametrize("family", FAMILIES)
def test_imported_base_on_gpu_computes_the_transformers_logits(family, base_tokenizer, tmp_path):
    from codemix.pretrain.configs import ParallelConfig
    from codemix.pretrain.parallel import HAVE_TE, initialize, shutdown

    base = save_base(tiny_hf_model(family, eps=1e-5), tmp_path / "hf", base_tokenizer.directory)
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
def test_tied_embeddings_stay_one_matrix_through_gpu_training_and_the_hand_off(base_tokenizer, tmp_path):
    """A tied DeepSeek-V3 base trained a few AdamW steps on the GPU (TE layers), saved, handed off:
    the head is the embedding throughout, the bundle stores it once, and ``transformers`` computes the
    trained model's logits from it."""
    from codemix.pretrain.checkpoint import save_checkpoint
    from codemix.pretrain.configs import ParallelConfig
    from codemix.pretrain.hf.handoff import handoff
    from codemix.pretrain.parallel import initialize, shutdown

    base = save_base(tiny_hf_model("deepseek_v3", tied=True), tmp_path / "hf", base_tokenizer.directory)
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
