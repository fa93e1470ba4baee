"""The parameter formula equals what megatron-core allocates, for GQA and MLA, MoE and dense layers."""

from __future__ import annotations

import pytest
import torch

from codemix.pretrain.configs import load_recipe
from codemix.pretrain.model.gpt import build_model, position_setup, transformer_config
from codemix.pretrain.model.params import count_parameters
from codemix.pretrain.parallel import CPU_CONFIG_OVERRIDES

MLA = "model.mla={q_lora_rank: %s, kv_lora_rank: 16, qk_head_dim: 16, qk_pos_emb_head_dim: 8, v_head_dim: 16}"


@pytest.mark.parametrize("overrides", [
    [],
    ["model.moe.first_dense_layers=1", "model.moe.shared_expert_intermediate_size=0", "model.moe.shared_expert_gate=false"],
    ["model.num_query_groups=4", "model.head_dim=8", "model.qk_layernorm=false"],
])
def test_formula_matches_an_instantiated_gqa_model(overrides, runtime):
    recipe = load_recipe("tiny", overrides)
    model = build_model(recipe, vocab_size=1000, sequence_length=64, position=position_setup(recipe, "short"), cpu=True)
    counts = count_parameters(recipe.model, model.vocab_size)
    assert counts.total == sum(p.numel() for p in model.parameters())
    experts = sum(p.numel() for name, p in model.named_parameters() if ".local_experts." in name)
    topk, num_experts = recipe.model.moe.router_topk, recipe.model.moe.num_experts
    assert counts.total - counts.active == experts * (num_experts - topk) // num_experts


class NoCoreAttention(torch.nn.Module):
    """Stands in for the attention kernel (no weights): megatron-core 0.16.1's MLA insists on TE's."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()


@pytest.mark.parametrize("q_lora_rank", ["32", "null"])
def test_formula_matches_megatrons_mla_projections(q_lora_rank, runtime, monkeypatch):
    from megatron.core.models.gpt import GPTModel
    from megatron.core.models.gpt.gpt_layer_specs import get_gpt_decoder_block_spec
    from megatron.core.transformer import multi_latent_attention
    from megatron.core.transformer.spec_utils import ModuleSpec

    monkeypatch.setattr(multi_latent_attention, "HAVE_TE", False)  # its TE-only branch would isinstance(None)
    recipe = load_recipe("tiny", [MLA % q_lora_rank, "model.moe.first_dense_layers=1"])
    config = transformer_config(recipe, position=position_setup(recipe, "short"), overrides=CPU_CONFIG_OVERRIDES)
    spec = get_gpt_decoder_block_spec(config, use_transformer_engine=False, normalization="RMSNorm")
    for layer in spec.layer_specs:
        layer.submodules.self_attention.submodules.core_attention = ModuleSpec(module=NoCoreAttention)
    model = GPTModel(config, spec, vocab_size=1024, max_sequence_length=64, position_embedding_type="rope")
    assert any("linear_kv_up_proj" in name for name, _ in model.named_parameters()), "guard: MLA was built"
    assert count_parameters(recipe.model, 1024).total == sum(p.numel() for p in model.parameters())
