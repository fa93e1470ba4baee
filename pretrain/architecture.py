"""The architecture a Hugging Face ``config.json`` describes, as a recipe's ``model`` dict, and the
fields a run may change on it: what a recipe asks before any weight is read (no torch).

Design notes: docs/design/pretrain.md, "pretrain/hf/convert.py".
"""

from __future__ import annotations

from typing import Any

from codemix.config import ConfigError, require

FAMILIES = {"qwen3_moe": "Qwen3MoeForCausalLM", "qwen2_moe": "Qwen2MoeForCausalLM",
            "deepseek_v3": "DeepseekV3ForCausalLM"}
# transformers' DeepseekV3RMSNorm default, with which DeepSeek-V3's and Kimi K2's released modeling code
# (and transformers) build q_a_layernorm / kv_a_layernorm whatever rms_norm_eps is
MLA_LATENT_NORM_EPS = 1e-6
MODEL_TYPE_FAMILY = {"qwen3_moe": "qwen3_moe", "qwen2_moe": "qwen2_moe", "deepseek_v3": "deepseek_v3",
                     "kimi_k2": "deepseek_v3"}
# ModelConfig fields a run may change on an imported base: how it trains, not what the weights are.
TRAINING_FIELDS = frozenset({"max_context", "init_std", "rope.long_scaling", "moe.aux_loss_coeff", "moe.load_balancing",
                             "moe.z_loss_coeff", "moe.router_dtype", "moe.enable_routing_replay",
                             "moe.expert_bias_update_rate"})


# --- config.json -> ModelConfig -------------------------------------------------------------------


def hf_family(config: dict[str, Any], where: str) -> str:
    """The family of a checkpoint's config.json, or a ConfigError naming what is supported."""
    model_type = config.get("model_type")
    require(model_type in MODEL_TYPE_FAMILY, where, f"model_type {model_type!r} is not one codemix imports",
            f"use a checkpoint of: {', '.join(sorted(MODEL_TYPE_FAMILY))}")
    return MODEL_TYPE_FAMILY[model_type]


def rope_of(config: dict[str, Any]) -> tuple[float, dict[str, Any] | None]:
    """(rope theta, scaling dict or None) from either config.json dialect: transformers 5's
    ``rope_parameters`` or the older ``rope_theta`` + ``rope_scaling``."""
    params = dict(config.get("rope_parameters") or {})
    theta = params.pop("rope_theta", config.get("rope_theta", 10_000.0))
    scaling = params or dict(config.get("rope_scaling") or {})
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    return float(theta), (None if kind == "default" else {**scaling, "rope_type": kind})


def model_from_hf(config: dict[str, Any], where: str = "init_from_hf") -> dict[str, Any]:
    """The ``ModelConfig`` (dict form) of a Hugging Face MoE checkpoint's config.json. Anything the
    megatron-core model cannot reproduce exactly is refused with the reason."""
    family = hf_family(config, where)
    require(config.get("hidden_act", "silu") == "silu", f"{where}: hidden_act", "only SwiGLU (silu) MLPs are supported")
    model = {
        "num_layers": config["num_hidden_layers"], "hidden_size": config["hidden_size"],
        "num_attention_heads": config["num_attention_heads"], "ffn_hidden_size": config["intermediate_size"],
        "vocab_size": config["vocab_size"], "fixed_vocab": True, "norm_epsilon": config.get("rms_norm_eps", 1e-6),
        "tie_embeddings": bool(config.get("tie_word_embeddings", False)),
        "init_std": config.get("initializer_range", 0.02),
    }
    theta, scaling = rope_of(config)
    if family == "deepseek_v3":
        model |= deepseek_fields(config, where)
        model["rope"], model["max_context"] = deepseek_rope(theta, scaling, config, where)
    else:
        model |= qwen_fields(config, family, where)
        require(scaling is None, f"{where}: rope_scaling", f"{scaling and scaling['rope_type']} RoPE scaling on a "
                "Qwen checkpoint is not imported", "import the checkpoint without rope_scaling")
        model["max_context"] = config["max_position_embeddings"]
        model["rope"] = {"base": theta, "original_context": config["max_position_embeddings"]}
    return model


def qwen_fields(config: dict[str, Any], family: str, where: str) -> dict[str, Any]:
    """GQA attention and softmax routing of Qwen2-MoE / Qwen3-MoE."""
    require(not config.get("use_sliding_window", False), f"{where}: use_sliding_window", "sliding-window attention "
            "is not supported")
    qwen2 = family == "qwen2_moe"
    require(qwen2 or not config.get("attention_bias", False), f"{where}: attention_bias",
            "Qwen3-MoE's attention_bias also biases o_proj, which megatron's attention does not have")
    heads = config["num_attention_heads"]
    first_dense = dense_prefix(config, where)
    shared = config.get("shared_expert_intermediate_size", 0) if qwen2 else 0
    return {
        "num_query_groups": config.get("num_key_value_heads") or heads,
        "head_dim": config.get("head_dim") or config["hidden_size"] // heads,
        "qk_layernorm": not qwen2, "qkv_bias": config.get("qkv_bias", True) if qwen2 else False,
        "moe": {"num_experts": experts(config, "num_experts"), "router_topk": config["num_experts_per_tok"],
                "ffn_hidden_size": config["moe_intermediate_size"], "shared_expert_intermediate_size": shared,
                "shared_expert_gate": bool(shared), "first_dense_layers": first_dense,
                "pre_softmax": not config.get("norm_topk_prob", False),
                "aux_loss_coeff": config.get("router_aux_loss_coef", 1e-3)},
    }


def experts(config: dict[str, Any], name: str) -> int:
    """The routed-expert count under the family's own name, or transformers 5's ``num_local_experts``."""
    return config[name] if name in config else config["num_local_experts"]


def dense_prefix(config: dict[str, Any], where: str) -> int:
    """How many leading layers are dense; other layouts (``decoder_sparse_step`` > 1, dense layers
    that are not a prefix) have no megatron ``first_dense_layers`` equivalent here."""
    dense = sorted(config.get("mlp_only_layers") or [])
    require(config.get("decoder_sparse_step", 1) == 1, f"{where}: decoder_sparse_step", "only 1 is supported")
    require(dense == list(range(len(dense))), f"{where}: mlp_only_layers", "dense layers must be the first ones")
    return len(dense)


def deepseek_fields(config: dict[str, Any], where: str) -> dict[str, Any]:
    """Multi-latent attention and sigmoid routing of DeepSeek-V3 / Kimi K2."""
    require(not config.get("attention_bias", False), f"{where}: attention_bias", "MLA projections have no biases here")
    require(config.get("rope_interleave", True), f"{where}: rope_interleave",
            "megatron's MLA always de-interleaves the rotary half; a non-interleaved checkpoint is not supported")
    require(config.get("moe_layer_freq", 1) == 1, f"{where}: moe_layer_freq", "only 1 is supported")
    topk, groups, group_topk = config["num_experts_per_tok"], config.get("n_group") or 1, config.get("topk_group") or 1
    require(config.get("norm_topk_prob", True) or topk == 1, f"{where}: norm_topk_prob",
            "megatron normalises sigmoid top-k weights; an unnormalised checkpoint is not supported")
    require(config.get("scoring_func", "sigmoid") == "sigmoid", f"{where}: scoring_func", "only sigmoid is supported")
    if groups > 1:  # Hugging Face scores a group by its top-2 experts, megatron by its top (topk / group_topk)
        require(topk // group_topk == 2, f"{where}: topk_group", "group scores must come from each group's top 2")
    moe_ffn = config["moe_intermediate_size"]
    return {
        "qk_layernorm": True,
        "mla": {"q_lora_rank": config.get("q_lora_rank"), "kv_lora_rank": config["kv_lora_rank"],
                "qk_head_dim": config["qk_nope_head_dim"], "qk_pos_emb_head_dim": config["qk_rope_head_dim"],
                "v_head_dim": config["v_head_dim"], "latent_norm_epsilon": MLA_LATENT_NORM_EPS},
        "moe": {"num_experts": experts(config, "n_routed_experts"), "router_topk": topk, "ffn_hidden_size": moe_ffn,
                "shared_expert_intermediate_size": (config.get("n_shared_experts") or 0) * moe_ffn,
                "first_dense_layers": config.get("first_k_dense_replace", 0), "score_function": "sigmoid",
                "expert_bias": True, "routed_scaling_factor": float(config.get("routed_scaling_factor", 1.0)),
                "num_groups": groups if groups > 1 else None, "group_topk": group_topk if groups > 1 else None,
                "load_balancing": "seq_aux_loss", "aux_loss_coeff": 1e-4},
    }


def deepseek_rope(theta: float, scaling: dict[str, Any] | None, config: dict[str, Any],
                  where: str) -> tuple[dict[str, Any], int]:
    """(RopeConfig dict, max_context): plain RoPE, or a base already extended with YaRN (Kimi K2)."""
    if scaling is None:
        return {"base": theta, "original_context": config["max_position_embeddings"]}, config["max_position_embeddings"]
    require(scaling["rope_type"] == "yarn", f"{where}: rope_scaling", f"{scaling['rope_type']} is not supported",
            "only YaRN (DeepSeek-V3, Kimi K2) is imported")
    original, factor = int(scaling["original_max_position_embeddings"]), float(scaling["factor"])
    rope = {"base": theta, "original_context": original, "long_scaling": "yarn", "base_extended": True,
            "yarn_beta_fast": float(scaling.get("beta_fast", 32.0)), "yarn_beta_slow": float(scaling.get("beta_slow", 1.0)),
            "yarn_mscale": float(scaling.get("mscale", 1.0)), "yarn_mscale_all_dim": float(scaling.get("mscale_all_dim", 0.0))}
    return rope, round(original * factor)


def flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"moe": {"num_experts": 4}}`` -> ``{"moe.num_experts": 4}``."""
    out = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        out |= flatten(value, f"{name}.") if isinstance(value, dict) else {name: value}
    return out


def check_same_architecture(derived: dict[str, Any], given: dict[str, Any], source: str) -> None:
    """Refuse a recipe whose model differs from the checkpoint's in anything but training fields."""
    ours, theirs = flatten(given), flatten(derived)
    for name in sorted(set(ours) | set(theirs)):
        if name in TRAINING_FIELDS or name not in ours or ours[name] == theirs.get(name):
            continue
        raise ConfigError(f"model.{name}", f"is {ours[name]!r}, but {source} has {theirs.get(name)!r}",
                          "remove it from the recipe (e.g. --model continued): the architecture comes from the checkpoint")
