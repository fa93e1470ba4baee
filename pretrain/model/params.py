"""Parameter counts of a recipe's model from its config alone, without building a single tensor.

Design notes: docs/design/pretrain.md, "pretrain/model/params.py".
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict, dataclass

from codemix.config import ConfigError
from codemix.pretrain.configs import MLAConfig, ModelConfig, load_recipe


@dataclass(slots=True, frozen=True, kw_only=True)
class ParamCounts:
    """Parameter counts in weights (not bytes). ``active`` is per token."""

    total: int
    active: int
    embedding: int  # the input embedding (a lookup: no FLOPs)
    output: int  # the output projection (lm_head)
    attention_per_layer: int
    routed_experts_per_layer: int
    dense_mlp_per_layer: int
    tied: bool = False  # the output projection is the embedding matrix (counted once in total/active)

    @property
    def active_matmul(self) -> int:
        """Active weights that do matmuls: everything active but the embedding lookup (for 6·N·T FLOPs);
        a tied embedding still does the output matmul."""
        return self.active - self.embedding + (self.output if self.tied else 0)


def gqa_attention(model: ModelConfig) -> int:
    """Grouped-query attention weights of one layer, its q/k RMSNorms included."""
    h, d = model.hidden_size, model.kv_channels
    q, kv = model.num_attention_heads * d, model.query_groups * d
    norms = 2 * d if model.qk_layernorm else 0
    biases = q + 2 * kv if model.qkv_bias else 0
    return h * q + 2 * h * kv + q * h + norms + biases


def mla_attention(model: ModelConfig, mla: MLAConfig) -> int:
    """Multi-latent attention weights of one layer (projections and the latent RMSNorms)."""
    h, heads = model.hidden_size, model.num_attention_heads
    q_head = mla.qk_head_dim + mla.qk_pos_emb_head_dim
    if mla.q_lora_rank is None:
        query = h * heads * q_head
    else:
        query = h * mla.q_lora_rank + mla.q_lora_rank * heads * q_head + (mla.q_lora_rank if model.qk_layernorm else 0)
    key_value = h * (mla.kv_lora_rank + mla.qk_pos_emb_head_dim) + mla.kv_lora_rank * heads * (mla.qk_head_dim + mla.v_head_dim)
    key_value += mla.kv_lora_rank if model.qk_layernorm else 0
    return query + key_value + heads * mla.v_head_dim * h


def count_parameters(model: ModelConfig, vocab_size: int | None = None) -> ParamCounts:
    """Total and active parameters of ``model`` (with ``vocab_size`` in place of the planned one)."""
    h, moe = model.hidden_size, model.moe
    vocab = vocab_size or model.vocab_size
    attention = mla_attention(model, model.mla) if model.mla else gqa_attention(model)
    norms = 2 * h  # input_layernorm + pre_mlp_layernorm
    expert = 3 * h * moe.ffn_hidden_size
    always_on_moe = moe.num_experts * h + 3 * h * moe.shared_expert_intermediate_size + (h if moe.shared_expert_gate else 0)
    dense_mlp = 3 * h * model.ffn_hidden_size
    dense_layers, moe_layers = moe.first_dense_layers, model.num_layers - moe.first_dense_layers
    shared = model.num_layers * (attention + norms) + dense_layers * dense_mlp + moe_layers * always_on_moe
    embedding, output = vocab * h, vocab * h
    model_level = embedding + (0 if model.tie_embeddings else output) + h  # + final norm
    return ParamCounts(
        total=model_level + shared + moe_layers * moe.num_experts * expert,
        active=model_level + shared + moe_layers * moe.router_topk * expert,
        embedding=embedding,
        output=output,
        attention_per_layer=attention,
        routed_experts_per_layer=moe.num_experts * expert,
        dense_mlp_per_layer=dense_mlp,
        tied=model.tie_embeddings,
    )


def describe(name: str, model: ModelConfig, counts: ParamCounts) -> str:
    """A short human-readable report of one model's parameter counts."""
    attention = "MLA" if model.mla else f"GQA {model.num_attention_heads}/{model.query_groups}"
    lines = [
        f"{name}: {model.num_layers} layers, hidden {model.hidden_size}, {attention}, "
        f"{model.moe.num_experts} experts top-{model.moe.router_topk}"
        + (f" + shared {model.moe.shared_expert_intermediate_size}" if model.moe.shared_expert_intermediate_size else "")
        + (f", {model.moe.first_dense_layers} dense first layer(s)" if model.moe.first_dense_layers else "")
        + f", vocab {model.vocab_size}, context {model.max_context}",
        f"  total parameters   {counts.total:>18,}  ({counts.total / 1e9:,.2f} B)",
        f"  active per token   {counts.active:>18,}  ({counts.active / 1e9:,.2f} B)",
        f"  embedding + output {counts.embedding + counts.output:>18,}",
        f"  attention / layer  {counts.attention_per_layer:>18,}",
        f"  experts / MoE layer{counts.routed_experts_per_layer:>18,}",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codemix.pretrain.model.params", description=__doc__.splitlines()[0])
    parser.add_argument("model", help="a recipe name under pretrain/configs (tiny, h100-1b, kimi-k2.5-shape) or a YAML path")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a recipe field")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = parser.parse_args(argv)
    try:
        recipe = load_recipe(args.model, args.set)
        from codemix.pretrain.model.gpt import transformer_config

        transformer_config(recipe, validate_only=True)  # megatron-core's own checks, still no tensors
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    counts = count_parameters(recipe.model)
    if args.json:
        import json

        print(json.dumps({"model": recipe.name, **asdict(counts)}))
    else:
        print(describe(recipe.name, recipe.model, counts))
        print("  validated: megatron-core accepted the TransformerConfig (no tensor allocated)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
