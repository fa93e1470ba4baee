"""The model definition: a recipe's ``ModelConfig`` as a megatron-core ``GPTModel`` with MoE layers.

Design notes: docs/design/pretrain.md, "pretrain/model/gpt.py".
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, replace
from typing import Any

import torch
import torch.nn.functional as F
from megatron.core.models.gpt import GPTModel
from megatron.core.models.gpt.gpt_layer_specs import get_gpt_decoder_block_spec
from megatron.core.transformer.multi_latent_attention import MLASelfAttention
from megatron.core.transformer.transformer_config import MLATransformerConfig, TransformerConfig

from codemix.config import ConfigError
from codemix.mixtures.stages import LONG, stage_kind
from codemix.pretrain.configs import Recipe
from codemix.pretrain.parallel import CPU_CONFIG_OVERRIDES, HAVE_TE, cpu_block_spec

VOCAB_MULTIPLE = 128  # Megatron-LM's make_vocab_size_divisible_by: output GEMMs on tensor-core-friendly shapes


@dataclass
class YarnTransformerConfig(TransformerConfig):
    """``TransformerConfig`` plus the ``yarn_*`` fields megatron-core 0.16.1's ``GPTModel`` reads with
    ``getattr`` when ``position_embedding_type="yarn"`` (only MLATransformerConfig declares YaRN fields).
    Attention multiplies cos/sin by YaRN's concentration factor 0.1·ln(factor)·mscale + 1 when these
    fields are present, as Hugging Face's ``rope_scaling: {rope_type: yarn}`` does."""

    yarn_rotary_scaling_factor: float = 1.0
    yarn_original_max_position_embeddings: int = 4096
    yarn_beta_fast: float = 32.0
    yarn_beta_slow: float = 1.0
    yarn_mscale: float = 1.0
    yarn_mscale_all_dim: float = 0.0
    yarn_correction_range_round_to_int: bool = True


@dataclass
class LatentNormMLAConfig(MLATransformerConfig):
    """``MLATransformerConfig`` plus the epsilon of the q/kv latent RMSNorms, which megatron-core builds
    with ``layernorm_epsilon`` and DeepSeek-V3's reference code (transformers too) with a fixed 1e-6."""

    latent_layernorm_epsilon: float = 1e-6


class LatentNormMLASelfAttention(MLASelfAttention):
    """megatron's MLA whose latent norms (separate, or fused into the up-projections by Transformer
    Engine) use ``config.latent_layernorm_epsilon``: MLA reads ``layernorm_epsilon`` only for them,
    so it is built with a copy of the config carrying that value there."""

    def __init__(self, config: LatentNormMLAConfig, *args, **kwargs):
        latent = copy.copy(config)
        latent.layernorm_epsilon = config.latent_layernorm_epsilon
        super().__init__(latent, *args, **kwargs)


def latent_norm_spec(spec):
    """The decoder block spec with each ``MLASelfAttention`` built as ``LatentNormMLASelfAttention``."""
    layers = []
    for layer in spec.layer_specs:
        attention = layer.submodules.self_attention
        if attention.module is MLASelfAttention:
            attention = replace(attention, module=LatentNormMLASelfAttention)
            layer = replace(layer, submodules=replace(layer.submodules, self_attention=attention))
        layers.append(layer)
    return replace(spec, layer_specs=layers)


@dataclass(slots=True, frozen=True, kw_only=True)
class PositionSetup:
    """How a run applies RoPE: GPTModel's ``position_embedding_type`` and its scaling factor."""

    kind: str = "rope"  # "rope" | "yarn"
    factor: float = 1.0  # YaRN or linear-interpolation factor; 1.0 = plain RoPE
    linear: bool = False

    @property
    def scaled(self) -> bool:
        return self.factor != 1.0


def position_setup(recipe: Recipe, stage: str, *, extended: bool = False) -> PositionSetup:
    """RoPE for ``stage``: stretched by ``max_context / original_context`` in the long stage and in
    every stage after it (``extended``: the run starts from a long-context checkpoint), since a model
    extended with YaRN keeps its YaRN frequencies for SFT and RL, as Qwen and DeepSeek do."""
    rope = recipe.model.rope
    factor = rope.scaling_factor(recipe.model.max_context)
    if not (stage_kind(stage).extends_context or extended or rope.base_extended) or factor == 1.0 or rope.long_scaling == "none":
        return PositionSetup()
    if rope.long_scaling == "linear":
        return PositionSetup(kind="rope", factor=factor, linear=True)
    return PositionSetup(kind="yarn", factor=factor)


def padded_vocab_size(vocab_size: int, tensor_parallel: int = 1) -> int:
    """The tokenizer's vocabulary rounded up to a multiple of 128 x TP (extra rows are never targets)."""
    multiple = VOCAB_MULTIPLE * tensor_parallel
    return math.ceil(vocab_size / multiple) * multiple


def embedding_rows(recipe: Recipe, tokenizer_vocab_size: int) -> int:
    """Rows of the embedding and output layer: an imported checkpoint's own (``fixed_vocab``), which must
    hold every id of the tokenizer, else the tokenizer's vocabulary padded (``padded_vocab_size``)."""
    model = recipe.model
    if not model.fixed_vocab:
        return padded_vocab_size(tokenizer_vocab_size, recipe.parallel.tensor)
    if tokenizer_vocab_size > model.vocab_size:
        raise ConfigError("model.vocab_size", f"the checkpoint has {model.vocab_size} embedding rows, fewer than the "
                          f"tokenizer's {tokenizer_vocab_size} ids", "tokenize with the base model's own tokenizer")
    return model.vocab_size


def config_kwargs(recipe: Recipe) -> dict[str, Any]:
    """TransformerConfig fields of the recipe's architecture, parallelism and precision (GPU defaults)."""
    model, moe, parallel, precision = recipe.model, recipe.model.moe, recipe.parallel, recipe.precision
    bf16 = precision.dtype == "bf16"
    kwargs = {
        "num_layers": model.num_layers, "hidden_size": model.hidden_size, "num_attention_heads": model.num_attention_heads,
        "ffn_hidden_size": model.ffn_hidden_size, "normalization": "RMSNorm", "layernorm_epsilon": model.norm_epsilon,
        "gated_linear_unit": True, "activation_func": F.silu, "add_bias_linear": False,
        "add_qkv_bias": model.qkv_bias, "qk_layernorm": model.qk_layernorm, "hidden_dropout": 0.0, "attention_dropout": 0.0, "init_method_std": model.init_std,
        # MoE
        "num_moe_experts": moe.num_experts, "moe_router_topk": moe.router_topk, "moe_ffn_hidden_size": moe.ffn_hidden_size,
        "moe_shared_expert_intermediate_size": moe.shared_expert_intermediate_size or None,
        "moe_shared_expert_gate": moe.shared_expert_gate, "moe_layer_freq": model.moe_layer_pattern,
        "moe_router_load_balancing_type": moe.load_balancing, "moe_aux_loss_coeff": moe.aux_loss_coeff,
        "moe_z_loss_coeff": moe.z_loss_coeff or None, "moe_router_dtype": moe.router_dtype,
        "moe_router_score_function": moe.score_function, "moe_enable_routing_replay": moe.enable_routing_replay,
        "moe_router_pre_softmax": moe.pre_softmax, "moe_router_enable_expert_bias": moe.expert_bias,
        "moe_router_bias_update_rate": moe.expert_bias_update_rate,
        "moe_router_topk_scaling_factor": moe.routed_scaling_factor,
        "moe_router_num_groups": moe.num_groups, "moe_router_group_topk": moe.group_topk,
        "moe_per_layer_logging": True, "moe_token_dispatcher_type": "alltoall",
        "moe_grouped_gemm": precision.grouped_gemm and HAVE_TE,
        # parallelism
        "tensor_model_parallel_size": parallel.tensor, "pipeline_model_parallel_size": parallel.pipeline,
        "context_parallel_size": parallel.context, "expert_model_parallel_size": parallel.expert,
        "sequence_parallel": parallel.tensor > 1,
        # precision: per-token loss keeps the gradient an average over tokens at any DP/CP/microbatch split
        "bf16": bf16, "params_dtype": torch.bfloat16 if bf16 else torch.float32, "calculate_per_token_loss": True,
        "fp8": precision.fp8, "fp8_recipe": precision.fp8_recipe,
        "moe_router_padding_for_fp8": bool(precision.fp8) and precision.router_padding_for_fp8,
    }
    if model.mla is None:
        kwargs.update(num_query_groups=model.query_groups, kv_channels=model.kv_channels)
    return kwargs


def mla_kwargs(recipe: Recipe, position: PositionSetup) -> dict[str, Any]:
    """MLATransformerConfig fields: latent ranks, head dims and its built-in (YaRN) RoPE."""
    mla, rope = recipe.model.mla, recipe.model.rope
    return {
        "q_lora_rank": mla.q_lora_rank, "kv_lora_rank": mla.kv_lora_rank, "qk_head_dim": mla.qk_head_dim,
        "qk_pos_emb_head_dim": mla.qk_pos_emb_head_dim, "v_head_dim": mla.v_head_dim, "rotary_base": rope.base,
        "rope_type": "yarn" if position.kind == "yarn" else "rope", "rotary_scaling_factor": position.factor,
        "original_max_position_embeddings": rope.original_context, "beta_fast": rope.yarn_beta_fast,
        "beta_slow": rope.yarn_beta_slow, "mscale": rope.yarn_mscale,
        "mscale_all_dim": 1.0 if rope.yarn_mscale_all_dim is None else rope.yarn_mscale_all_dim,
        "latent_layernorm_epsilon": mla.latent_norm_epsilon}


def transformer_config(recipe: Recipe, *, position: PositionSetup | None = None,
                       overrides: dict[str, Any] | None = None, validate_only: bool = False) -> TransformerConfig:
    """The megatron-core config of ``recipe`` for one stage; building it runs megatron's own checks.

    ``overrides`` are the device-specific fields from ``pretrain.parallel`` (``CPU_CONFIG_OVERRIDES``).
    ``validate_only`` builds the config with CPU-safe numerics: nothing is allocated, so this is how a
    1T-parameter recipe is checked on a laptop.
    """
    position = position or position_setup(recipe, LONG.name)
    kwargs = config_kwargs(recipe)
    if validate_only:
        kwargs.update(bf16=False, params_dtype=torch.float32, fp8=None, moe_router_padding_for_fp8=False)
    kwargs.update(overrides or {})
    try:
        if recipe.model.mla is not None:
            if position.linear:
                raise ConfigError("model.rope.long_scaling", "multi-latent attention applies RoPE itself, with YaRN "
                                  "or none; linear position interpolation would be ignored", "use yarn")
            return LatentNormMLAConfig(**kwargs, **mla_kwargs(recipe, position))
        rope = recipe.model.rope
        return YarnTransformerConfig(
            **kwargs, yarn_rotary_scaling_factor=position.factor if position.kind == "yarn" else 1.0,
            yarn_original_max_position_embeddings=rope.original_context, yarn_beta_fast=rope.yarn_beta_fast,
            yarn_beta_slow=rope.yarn_beta_slow, yarn_mscale=rope.yarn_mscale,
            yarn_mscale_all_dim=rope.yarn_mscale_all_dim or 0.0)
    except (AssertionError, ValueError) as error:
        raise ConfigError(f"model ({recipe.name})", f"megatron-core rejects this configuration: {error}") from error


def build_model(recipe: Recipe, *, vocab_size: int, sequence_length: int, position: PositionSetup, cpu: bool) -> GPTModel:
    """The ``GPTModel`` of ``recipe`` for a tokenizer of ``vocab_size`` ids: the same builder on CPU and
    GPU (``cpu`` picks the overrides and the layer implementation: megatron's local modules, or
    Transformer Engine's when installed)."""
    if sequence_length > recipe.model.max_context:
        raise ConfigError("model.max_context", f"is {recipe.model.max_context}, below the sequence length {sequence_length}",
                          "raise model.max_context (it also sets the YaRN factor) or train shorter")
    overrides = dict(CPU_CONFIG_OVERRIDES) if cpu else {}
    config = transformer_config(recipe, position=position, overrides=overrides)
    use_te = HAVE_TE and not cpu
    spec = get_gpt_decoder_block_spec(config, use_transformer_engine=use_te, normalization="RMSNorm")
    if not use_te:  # megatron's local modules, on CPU or on a GPU without Transformer Engine
        spec = cpu_block_spec(spec)
    spec = latent_norm_spec(spec)
    model = GPTModel(
        config=config, transformer_layer_spec=spec,
        vocab_size=embedding_rows(recipe, vocab_size),
        # MLA applies its own RoPE (plain or YaRN, from its config); GPTModel's must be plain "rope",
        # which it then skips for MLA.
        max_sequence_length=sequence_length, position_embedding_type="rope" if recipe.model.mla else position.kind,
        rotary_base=int(recipe.model.rope.base), share_embeddings_and_output_weights=recipe.model.tie_embeddings,
        seq_len_interpolation_factor=position.factor if position.linear else None)
    return model if cpu else model.cuda()
