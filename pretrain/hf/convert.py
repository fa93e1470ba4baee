"""Hugging Face <-> megatron-core: model configs and tensor names of the three MoE families codemix trains
(what a ``config.json`` describes is read in ``pretrain.architecture``).

Design notes: docs/design/pretrain.md, "pretrain/hf/convert.py".
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import partial
from typing import Any

import torch

from codemix.config import require
from codemix.pretrain.architecture import FAMILIES, MLA_LATENT_NORM_EPS

# --- the trained structure -> a Hugging Face class --------------------------------------------------


def export_family(recipe) -> str:
    """The Hugging Face class that computes exactly what the recipe's model computes, or a ConfigError
    saying why none does (checked before any export work)."""
    model, moe = recipe.model, recipe.model.moe
    field = "model"
    if model.mla is not None:
        require(moe.score_function == "sigmoid", f"{field}.moe.score_function",
                "DeepSeek-V3 (the only MLA class) routes with sigmoid scores; softmax routing with MLA has no class")
        require(moe.shared_expert_intermediate_size > 0 and moe.shared_expert_intermediate_size % moe.ffn_hidden_size == 0,
                f"{field}.moe.shared_expert_intermediate_size", "DeepSeek-V3 has n_shared_experts >= 1 shared experts "
                f"of the routed size {moe.ffn_hidden_size}")
        require(not moe.shared_expert_gate, f"{field}.moe.shared_expert_gate", "DeepSeek-V3's shared experts are ungated")
        require(model.qk_layernorm, f"{field}.qk_layernorm", "DeepSeek-V3 always normalises the q/kv latents")
        require(model.mla.latent_norm_epsilon == MLA_LATENT_NORM_EPS, f"{field}.mla.latent_norm_epsilon",
                f"DeepSeek-V3's q/kv latent norms use {MLA_LATENT_NORM_EPS} whatever rms_norm_eps is")
        require(moe.num_groups is None or moe.router_topk // moe.group_topk == 2, f"{field}.moe.group_topk",
                "DeepSeek-V3 scores a group by its top-2 experts")
        return "deepseek_v3"
    require(moe.score_function == "softmax" and not moe.expert_bias and moe.num_groups is None
            and moe.routed_scaling_factor in (None, 1.0), f"{field}.moe.score_function",
            "sigmoid routing, expert bias, group-limited routing and routed scaling exist only in DeepSeek-V3, "
            "which needs MLA")
    if moe.shared_expert_intermediate_size:
        require(moe.shared_expert_gate, f"{field}.moe.shared_expert_gate",
                "an ungated shared expert with GQA attention has no Hugging Face class (Qwen2-MoE gates it)")
        require(not model.qk_layernorm, f"{field}.qk_layernorm",
                "Qwen2-MoE (the class with a gated shared expert) has no q/k RMSNorm")
        return "qwen2_moe"
    require(model.qk_layernorm, f"{field}.qk_layernorm", "Qwen3-MoE always has q/k RMSNorm")
    require(not model.qkv_bias, f"{field}.qkv_bias", "Qwen3-MoE has no q/k/v biases")
    return "qwen3_moe"


def hf_config(recipe, family: str, *, vocab_size: int, position, dtype: torch.dtype,
              special_ids: dict[str, int | None]) -> dict[str, Any]:
    """The config.json of ``family`` describing exactly the trained network (RoPE scaling included)."""
    model, moe = recipe.model, recipe.model.moe
    config = {
        "architectures": [FAMILIES[family]], "model_type": family, "vocab_size": vocab_size,
        "hidden_size": model.hidden_size, "intermediate_size": model.ffn_hidden_size,
        "num_hidden_layers": model.num_layers, "num_attention_heads": model.num_attention_heads,
        "hidden_act": "silu", "max_position_embeddings": max_positions(recipe, position),
        "initializer_range": model.init_std, "rms_norm_eps": model.norm_epsilon, "use_cache": True,
        "tie_word_embeddings": model.tie_embeddings, "rope_theta": model.rope.base, "rope_scaling": rope_scaling(recipe, family, position),
        "attention_dropout": 0.0, "num_experts_per_tok": moe.router_topk, "moe_intermediate_size": moe.ffn_hidden_size,
        "bos_token_id": special_ids.get("bos"), "eos_token_id": special_ids.get("eos"),
        "pad_token_id": special_ids.get("pad"), "torch_dtype": str(dtype).removeprefix("torch."),
    }
    config |= (deepseek_config(model) if family == "deepseek_v3" else qwen_config(model, family))
    return config


def qwen_config(model, family: str) -> dict[str, Any]:
    moe = model.moe
    config = {
        "num_key_value_heads": model.query_groups, "head_dim": model.kv_channels, "attention_bias": False,
        "use_sliding_window": False, "decoder_sparse_step": 1, "mlp_only_layers": list(range(moe.first_dense_layers)),
        "num_experts": moe.num_experts, "norm_topk_prob": not moe.pre_softmax, "output_router_logits": False,
        "router_aux_loss_coef": moe.aux_loss_coeff,
    }
    if family == "qwen2_moe":  # biases always written (zeros when untrained): every Qwen2-MoE loader expects them
        config |= {"shared_expert_intermediate_size": moe.shared_expert_intermediate_size, "qkv_bias": True}
    return config


def deepseek_config(model) -> dict[str, Any]:
    moe, mla = model.moe, model.mla
    return {
        "num_key_value_heads": model.num_attention_heads, "q_lora_rank": mla.q_lora_rank,
        "kv_lora_rank": mla.kv_lora_rank, "qk_nope_head_dim": mla.qk_head_dim, "qk_rope_head_dim": mla.qk_pos_emb_head_dim,
        "v_head_dim": mla.v_head_dim, "head_dim": mla.qk_pos_emb_head_dim, "rope_interleave": True, "attention_bias": False,
        "n_routed_experts": moe.num_experts, "n_shared_experts": moe.shared_expert_intermediate_size // moe.ffn_hidden_size,
        "routed_scaling_factor": moe.routed_scaling_factor or 1.0, "n_group": moe.num_groups or 1,
        "topk_group": moe.group_topk or 1, "norm_topk_prob": moe.router_topk > 1,  # megatron normalises when k > 1
        "first_k_dense_replace": moe.first_dense_layers, "moe_layer_freq": 1,
    }


def max_positions(recipe, position) -> int:
    """The context the exported model is meant for: the RoPE-scaled one once scaled."""
    rope = recipe.model.rope
    return round(rope.original_context * position.factor) if position.scaled else rope.original_context


def rope_scaling(recipe, family: str, position) -> dict[str, Any] | None:
    """Hugging Face ``rope_scaling`` equal to what the run trained with (None: plain RoPE)."""
    from megatron.core.models.common.embeddings.yarn_rotary_pos_embedding import _yarn_get_concentration_factor

    rope = recipe.model.rope
    if not position.scaled:
        return None
    if position.linear:
        require(family != "deepseek_v3", "model.rope.long_scaling", "megatron's MLA has no linear position interpolation")
        return {"rope_type": "linear", "factor": position.factor}
    scaling = {"rope_type": "yarn", "factor": position.factor, "original_max_position_embeddings": rope.original_context,
               "beta_fast": rope.yarn_beta_fast, "beta_slow": rope.yarn_beta_slow}
    if family == "deepseek_v3":  # DeepSeek's YaRN: cos/sin and the softmax scale from mscale / mscale_all_dim
        return scaling | {"type": "yarn", "mscale": rope.yarn_mscale, "mscale_all_dim": mla_mscale_all_dim(rope)}
    # megatron scales cos/sin by its concentration factor; state it rather than rely on a default
    return scaling | {"attention_factor": _yarn_get_concentration_factor(
        position.factor, rope.yarn_mscale, rope.yarn_mscale_all_dim or 0.0)}


def mla_mscale_all_dim(rope) -> float:
    return 1.0 if rope.yarn_mscale_all_dim is None else rope.yarn_mscale_all_dim


# --- tensors ----------------------------------------------------------------------------------------


@dataclass(slots=True, frozen=True, kw_only=True)
class Layout:
    """What the tensor mapping needs to know of the model: shapes to split fused tensors by, which
    layers are dense, the attention kind and whether q/k/v biases are trained (optional norms and
    projections are mapped when present)."""

    family: str
    num_layers: int
    num_heads: int
    num_query_groups: int
    head_dim: int
    num_experts: int
    dense_layers: frozenset[int]
    mla: bool = False
    qkv_bias: bool = False
    tied: bool = False  # the output layer is the embedding (no lm_head.weight of its own)

    @classmethod
    def of(cls, recipe, family: str | None = None) -> Layout:
        model = recipe.model
        return cls(family=family or export_family(recipe), num_layers=model.num_layers,
                   num_heads=model.num_attention_heads, num_query_groups=model.query_groups, head_dim=model.kv_channels,
                   num_experts=model.moe.num_experts, dense_layers=frozenset(range(model.moe.first_dense_layers)),
                   mla=model.mla is not None, qkv_bias=model.qkv_bias, tied=model.tie_embeddings)

    @property
    def shared_name(self) -> str:
        return "shared_experts" if self.family == "deepseek_v3" else "shared_expert"


def split_qkv(qkv: torch.Tensor, layout: Layout) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """megatron's grouped ``[g x (h/g + 2) x d, ...]`` -> q ``[h·d, ...]``, k ``[g·d, ...]``, v ``[g·d, ...]``
    (a weight ``[.., H]`` or a bias ``[..]``)."""
    per_group = layout.num_heads // layout.num_query_groups
    grouped = qkv.reshape(layout.num_query_groups, per_group + 2, layout.head_dim, *qkv.shape[1:])
    q, k, v = grouped[:, :per_group], grouped[:, per_group], grouped[:, per_group + 1]
    return q.reshape(-1, *qkv.shape[1:]), k.reshape(-1, *qkv.shape[1:]), v.reshape(-1, *qkv.shape[1:])


def join_qkv(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layout: Layout) -> torch.Tensor:
    """Inverse of ``split_qkv``."""
    per_group, d, rest = layout.num_heads // layout.num_query_groups, layout.head_dim, q.shape[1:]
    grouped = torch.cat([q.reshape(layout.num_query_groups, per_group, d, *rest),
                         k.reshape(layout.num_query_groups, 1, d, *rest),
                         v.reshape(layout.num_query_groups, 1, d, *rest)], dim=1)
    return grouped.reshape(-1, *rest)


MLA_NAMES = {  # megatron self_attention.<name> -> Hugging Face self_attn.<name>
    "linear_q_down_proj.weight": "q_a_proj.weight", "q_layernorm.weight": "q_a_layernorm.weight",
    "linear_q_up_proj.weight": "q_b_proj.weight", "linear_q_proj.weight": "q_proj.weight",
    "linear_kv_down_proj.weight": "kv_a_proj_with_mqa.weight", "kv_layernorm.weight": "kv_a_layernorm.weight",
    "linear_kv_up_proj.weight": "kv_b_proj.weight", "linear_proj.weight": "o_proj.weight",
}
GQA_NAMES = {"linear_proj.weight": "o_proj.weight", "q_layernorm.weight": "q_norm.weight",
             "k_layernorm.weight": "k_norm.weight"}


def _mlp_to_hf(fc1: torch.Tensor, fc2: torch.Tensor, prefix: str) -> dict[str, torch.Tensor]:
    gate, up = fc1.chunk(2, dim=0)  # SwiGLU linear_fc1 [2F, H] = [gate; up]
    return {f"{prefix}.gate_proj.weight": gate, f"{prefix}.up_proj.weight": up, f"{prefix}.down_proj.weight": fc2}


def attention_to_hf(sd: dict[str, torch.Tensor], src: str, dst: str, layout: Layout) -> dict[str, torch.Tensor]:
    """One layer's attention tensors under Hugging Face names."""
    names = MLA_NAMES if layout.mla else GQA_NAMES
    out = {f"{dst}.{hf}": sd[f"{src}.{ours}"] for ours, hf in names.items() if f"{src}.{ours}" in sd}
    if not layout.mla:
        for name, part in zip("qkv", split_qkv(sd[f"{src}.linear_qkv.weight"], layout)):
            out[f"{dst}.{name}_proj.weight"] = part
        if layout.family == "qwen2_moe":
            bias = sd.get(f"{src}.linear_qkv.bias")
            bias = torch.zeros(sd[f"{src}.linear_qkv.weight"].shape[0], dtype=sd[f"{src}.linear_qkv.weight"].dtype) \
                if bias is None else bias
            for name, part in zip("qkv", split_qkv(bias, layout)):
                out[f"{dst}.{name}_proj.bias"] = part
    return out


def moe_common_to_hf(sd: dict[str, torch.Tensor], i: int, layout: Layout) -> dict[str, torch.Tensor]:
    """One MoE layer's router, expert bias and shared experts (its routed experts: ``expert_to_hf``)."""
    src, dst = f"decoder.layers.{i}.mlp", f"model.layers.{i}.mlp"
    out = {f"{dst}.gate.weight": sd[f"{src}.router.weight"]}
    if layout.family == "deepseek_v3":  # zeros when the run trained without an expert bias: the same routing
        bias = sd.get(f"{src}.router.expert_bias")
        out[f"{dst}.gate.e_score_correction_bias"] = torch.zeros(layout.num_experts) if bias is None else bias
    if f"{src}.shared_experts.linear_fc1.weight" in sd:
        out |= _mlp_to_hf(sd[f"{src}.shared_experts.linear_fc1.weight"], sd[f"{src}.shared_experts.linear_fc2.weight"],
                          f"{dst}.{layout.shared_name}")
    if f"{src}.shared_experts.gate_weight" in sd:
        out[f"{dst}.shared_expert_gate.weight"] = sd[f"{src}.shared_experts.gate_weight"]
    return out


def expert_to_hf(sd: dict[str, torch.Tensor], i: int, e: int) -> dict[str, torch.Tensor]:
    """Routed expert ``e`` of MoE layer ``i``."""
    return expert_fc1_to_hf(sd, i, e) | expert_fc2_to_hf(sd, i, e)


def expert_fc1_to_hf(sd: dict[str, torch.Tensor], i: int, e: int) -> dict[str, torch.Tensor]:
    """Routed expert ``e``'s SwiGLU ``linear_fc1`` [2F, H] = [gate; up]."""
    gate, up = sd[f"decoder.layers.{i}.mlp.experts.local_experts.{e}.linear_fc1.weight"].chunk(2, dim=0)
    dst = f"model.layers.{i}.mlp.experts.{e}"
    return {f"{dst}.gate_proj.weight": gate, f"{dst}.up_proj.weight": up}


def expert_fc2_to_hf(sd: dict[str, torch.Tensor], i: int, e: int) -> dict[str, torch.Tensor]:
    return {f"model.layers.{i}.mlp.experts.{e}.down_proj.weight":
            sd[f"decoder.layers.{i}.mlp.experts.local_experts.{e}.linear_fc2.weight"]}


def mlp_to_hf(sd: dict[str, torch.Tensor], i: int, layout: Layout) -> dict[str, torch.Tensor]:
    """One layer's MLP (dense) or MoE tensors under Hugging Face names."""
    if i in layout.dense_layers:
        src, dst = f"decoder.layers.{i}.mlp", f"model.layers.{i}.mlp"
        return _mlp_to_hf(sd[f"{src}.linear_fc1.weight"], sd[f"{src}.linear_fc2.weight"], dst)
    out = moe_common_to_hf(sd, i, layout)
    for e in range(layout.num_experts):
        out |= expert_to_hf(sd, i, e)
    return out


def layer_head_to_hf(sd: dict[str, torch.Tensor], i: int, layout: Layout) -> dict[str, torch.Tensor]:
    """Layer ``i``'s norms and attention."""
    src, dst = f"decoder.layers.{i}", f"model.layers.{i}"
    out = {f"{dst}.input_layernorm.weight": sd[f"{src}.input_layernorm.weight"],
           f"{dst}.post_attention_layernorm.weight": sd[f"{src}.pre_mlp_layernorm.weight"]}
    return out | attention_to_hf(sd, f"{src}.self_attention", f"{dst}.self_attn", layout)


@dataclass(slots=True, frozen=True)
class ExportUnit:
    """A few megatron tensors converted together (a layer's attention, one routed expert...): the
    state-dict names it reads and the function giving its Hugging Face tensors, so an export can read
    the checkpoint a few tensors at a time (``pretrain.hf.export``)."""

    names: tuple[str, ...]
    convert: Callable[[dict[str, torch.Tensor]], dict[str, torch.Tensor]]


def export_units(names: Collection[str], layout: Layout) -> list[ExportUnit]:
    """The model as export units, in the order a Hugging Face checkpoint lists its tensors; ``names``
    are the megatron state-dict names (each read by exactly one unit)."""
    names = [name for name in names if not name.endswith("_extra_state")
             and not (layout.tied and name.startswith("output_layer."))]  # tied: the embedding itself

    def under(*prefixes: str) -> tuple[str, ...]:
        return tuple(name for name in names if name.startswith(prefixes))

    units = [ExportUnit(under("embedding."), lambda sd: {"model.embed_tokens.weight": sd["embedding.word_embeddings.weight"]}),
             ExportUnit(under("decoder.final_layernorm."), lambda sd: {"model.norm.weight": sd["decoder.final_layernorm.weight"]})]
    if not layout.tied:  # tied: transformers' save_pretrained writes the shared matrix once, as embed_tokens
        units.append(ExportUnit(under("output_layer."), lambda sd: {"lm_head.weight": sd["output_layer.weight"]}))
    for i in range(layout.num_layers):
        layer, mlp = f"decoder.layers.{i}.", f"decoder.layers.{i}.mlp."
        head = tuple(name for name in under(layer) if not name.startswith(mlp))
        units.append(ExportUnit(head, lambda sd, i=i: layer_head_to_hf(sd, i, layout)))
        if i in layout.dense_layers:
            units.append(ExportUnit(under(mlp), lambda sd, i=i: mlp_to_hf(sd, i, layout)))
            continue
        routed = under(f"{mlp}experts.local_experts.")
        units.append(ExportUnit(tuple(n for n in under(mlp) if n not in routed),
                                lambda sd, i=i: moe_common_to_hf(sd, i, layout)))
        # one unit per projection: megatron stacks a layer's experts per projection, loaded whole
        for part, convert in (("linear_fc1", expert_fc1_to_hf), ("linear_fc2", expert_fc2_to_hf)):
            units += [ExportUnit(under(f"{mlp}experts.local_experts.{e}.{part}."),
                                 lambda sd, i=i, e=e, convert=convert: convert(sd, i, e))
                      for e in range(layout.num_experts)]
    covered = {name for unit in units for name in unit.names}
    if covered != set(names):
        raise ValueError(f"tensors no export unit reads: {sorted(set(names) - covered)[:5]}")
    return units


def megatron_to_hf(sd: dict[str, Any], layout: Layout) -> dict[str, torch.Tensor]:
    """All Hugging Face tensors (contiguous CPU copies, ready for safetensors) of a megatron state dict."""
    out: dict[str, torch.Tensor] = {}
    for unit in export_units(sd, layout):
        out |= unit.convert(sd)
    return {name: tensor.detach().to("cpu").contiguous().clone() for name, tensor in out.items()}


def _itself(tensor: torch.Tensor) -> torch.Tensor:
    return tensor


@dataclass(slots=True, frozen=True)
class Source:
    """How one megatron tensor is made: the Hugging Face tensors it comes from, combined by ``combine``
    (one name: the tensor itself). A check is a Source whose ``combine`` only validates."""

    names: tuple[str, ...]
    combine: Callable[..., Any] = _itself

    def build(self, read: Callable[[str], torch.Tensor]) -> Any:
        return self.combine(*(read(name) for name in self.names))

    @property
    def copies(self) -> bool:
        """One Hugging Face tensor taken as it is (a reader may cast it while reading)."""
        return self.combine is _itself


def hf_to_megatron(tensors: dict[str, torch.Tensor], layout: Layout) -> dict[str, torch.Tensor]:
    """Inverse of ``megatron_to_hf``: Hugging Face tensors back to megatron names and fused layouts."""
    sources, checks = hf_sources(tensors, layout)
    for check in checks:
        check.build(tensors.__getitem__)
    return {name: source.build(tensors.__getitem__) for name, source in sources.items()}


def hf_sources(names: Collection[str], layout: Layout) -> tuple[dict[str, Source], list[Source]]:
    """Where every megatron tensor comes from in a checkpoint holding ``names`` (no tensor is read), and
    the checks on values the mapping relies on. Every Hugging Face tensor must be used: one left over
    is an error naming it (a mapping gap would otherwise leave that weight at its random initialisation)."""
    names = set(names)
    out: dict[str, Source] = {}
    checks: list[Source] = []
    renames = {"model.embed_tokens.weight": "embedding.word_embeddings.weight",
               "model.norm.weight": "decoder.final_layernorm.weight"}
    if not layout.tied:
        renames["lm_head.weight"] = "output_layer.weight"
    elif "lm_head.weight" in names:  # a tied checkpoint that stores the matrix twice
        checks.append(Source(("lm_head.weight", "model.embed_tokens.weight"), same_tied_matrix))
    for hf, ours in renames.items():
        out[ours] = Source((need(names, hf),))
    for i in range(layout.num_layers):
        src, dst = f"model.layers.{i}", f"decoder.layers.{i}"
        pairs = {f"{src}.input_layernorm.weight": f"{dst}.input_layernorm.weight",
                 f"{src}.post_attention_layernorm.weight": f"{dst}.pre_mlp_layernorm.weight"}
        attention = MLA_NAMES if layout.mla else GQA_NAMES
        pairs |= {f"{src}.self_attn.{hf}": f"{dst}.self_attention.{ours}" for ours, hf in attention.items()}
        out |= {ours: Source((hf,)) for hf, ours in pairs.items() if hf in names}
        if not layout.mla:
            _qkv_from_hf(names, f"{src}.self_attn", f"{dst}.self_attention", layout, out, checks)
        _mlp_from_hf(names, i, layout, out)
    used = {name for source in [*out.values(), *checks] for name in source.names}
    left = sorted(names - used)
    require(not left, "init_from_hf", f"{len(left)} checkpoint tensors have no place in the model, e.g. {left[:3]}")
    return out, checks


def need(names: Collection[str], name: str) -> str:
    require(name in names, "init_from_hf", f"the checkpoint lacks {name}")
    return name


def same_tied_matrix(head: torch.Tensor, embedding: torch.Tensor) -> None:
    require(torch.equal(head, embedding), "init_from_hf",
            "tie_word_embeddings is true but lm_head.weight differs from model.embed_tokens.weight")


def zero_bias(src: str) -> Callable[..., None]:
    """The check on q/k/v biases of a model without them: the zeros an export writes for Qwen2-MoE
    loaders; anything else would be lost."""
    def check(*biases: torch.Tensor) -> None:
        require(not any(bool(bias.any()) for bias in biases), "init_from_hf", f"{src} has q/k/v biases the model "
                "has none of", "set model.qkv_bias: true")
    return check


def _qkv_from_hf(names, src: str, dst: str, layout: Layout, out: dict[str, Source], checks: list[Source]) -> None:
    join = partial(_join_qkv, layout=layout)
    out[f"{dst}.linear_qkv.weight"] = Source(tuple(need(names, f"{src}.{n}_proj.weight") for n in "qkv"), join)
    if f"{src}.q_proj.bias" in names:
        biases = tuple(need(names, f"{src}.{n}_proj.bias") for n in "qkv")
        if layout.qkv_bias:
            out[f"{dst}.linear_qkv.bias"] = Source(biases, join)
        else:
            checks.append(Source(biases, zero_bias(src)))


def _join_qkv(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, layout: Layout) -> torch.Tensor:
    return join_qkv(q, k, v, layout)


def _gate_up(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    return torch.cat([gate, up])  # SwiGLU linear_fc1 [2F, H] = [gate; up]


def _to_fp32(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.float()


def _mlp_from_hf(names, i: int, layout: Layout, out: dict[str, Source]) -> None:
    src, dst = f"model.layers.{i}.mlp", f"decoder.layers.{i}.mlp"

    def fused(prefix: str, target: str) -> None:
        out[f"{target}.linear_fc1.weight"] = Source((need(names, f"{prefix}.gate_proj.weight"),
                                                     need(names, f"{prefix}.up_proj.weight")), _gate_up)
        out[f"{target}.linear_fc2.weight"] = Source((need(names, f"{prefix}.down_proj.weight"),))

    if i in layout.dense_layers:
        return fused(src, dst)
    out[f"{dst}.router.weight"] = Source((need(names, f"{src}.gate.weight"),))
    if f"{src}.gate.e_score_correction_bias" in names:
        out[f"{dst}.router.expert_bias"] = Source((f"{src}.gate.e_score_correction_bias",), _to_fp32)
    for e in range(layout.num_experts):
        fused(f"{src}.experts.{e}", f"{dst}.experts.local_experts.{e}")
    if f"{src}.{layout.shared_name}.gate_proj.weight" in names:
        fused(f"{src}.{layout.shared_name}", f"{dst}.shared_experts")
    if f"{src}.shared_expert_gate.weight" in names:
        out[f"{dst}.shared_experts.gate_weight"] = Source((f"{src}.shared_expert_gate.weight",))
