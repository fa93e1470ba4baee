"""Hand a trained run to RL: Hugging Face weights, the distributed checkpoint, data lineage, eval figures.

    python -m pretrain.handoff RUN_DIR --out BUNDLE [--step N] [--eval-set heldout=PATH]

BUNDLE/
    hf/model.safetensors   weights under Qwen3-MoE tensor names (see ``megatron_to_hf``)
    hf/config.json         a ``Qwen3MoeForCausalLM`` config (+ ``shared_expert_intermediate_size``)
    hf/tokenizer.json      the tokenizer the shards were written with
    checkpoint/            the megatron-core distributed checkpoint, copied (resumable, any layout)
    lineage.json           every stage that led here: build spec hash, data blend, sources,
                           tokens per source and stage, starting checkpoint; manifests/ holds the builds'
    eval.json              the final checkpoint's eval rows (bits per byte per eval set)
    handoff.json           run id, step, files, ``moe_enable_routing_replay``, parameter counts

Tensor names, layer ``i``, expert ``e`` (megatron-core local-spec name -> Hugging Face name):

    embedding.word_embeddings.weight                  model.embed_tokens.weight
    decoder.layers.i.input_layernorm.weight           model.layers.i.input_layernorm.weight
    decoder.layers.i.self_attention.linear_qkv.weight model.layers.i.self_attn.{q,k,v}_proj.weight (split)
    decoder.layers.i.self_attention.linear_proj.weight model.layers.i.self_attn.o_proj.weight
    decoder.layers.i.self_attention.{q,k}_layernorm   model.layers.i.self_attn.{q,k}_norm.weight
    decoder.layers.i.pre_mlp_layernorm.weight         model.layers.i.post_attention_layernorm.weight
    decoder.layers.i.mlp.router.weight                model.layers.i.mlp.gate.weight
    ...mlp.experts.local_experts.e.linear_fc1.weight  model.layers.i.mlp.experts.e.{gate,up}_proj.weight (split)
    ...mlp.experts.local_experts.e.linear_fc2.weight  model.layers.i.mlp.experts.e.down_proj.weight
    ...mlp.shared_experts.linear_fc1/fc2, gate_weight model.layers.i.mlp.shared_expert.{gate,up,down}_proj.weight,
                                                      model.layers.i.mlp.shared_expert_gate.weight
    decoder.layers.i.mlp.linear_fc1/fc2 (dense layer) model.layers.i.mlp.{gate,up,down}_proj.weight
    decoder.final_layernorm.weight                    model.norm.weight
    output_layer.weight                               lm_head.weight

Fused layouts: ``linear_qkv`` is grouped by KV head: for each of the ``g`` query groups, its
``h/g`` query heads, then its key head, then its value head (each ``d`` rows). ``linear_fc1`` of a
SwiGLU MLP is ``[gate; up]`` (megatron computes ``silu(x W_gate) * (x W_up)`` from its two halves).

Compatibility: Qwen3-MoE itself has no shared expert; the shared expert and its sigmoid gate use
Qwen2-MoE's names and semantics (``shared_expert``, ``shared_expert_gate``). A model without a
shared expert is a plain Qwen3-MoE checkpoint. MLA recipes and sigmoid routing have no Qwen3-MoE
equivalent and are refused.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from codemix.config import ConfigError, require
from pretrain.checkpoint import latest_checkpoint, load_checkpoint
from pretrain.cli_args import handoff_parser
from pretrain.configs import ParallelConfig, Recipe, recipe_from_dict
from pretrain.model import PositionSetup
from pretrain.params import count_parameters

HF_WEIGHTS = "model.safetensors"


@dataclass(slots=True, frozen=True, kw_only=True)
class Layout:
    """The shapes the fused tensors split by."""

    num_layers: int
    num_heads: int
    num_query_groups: int
    head_dim: int
    num_experts: int
    dense_layers: frozenset[int]

    @classmethod
    def of(cls, recipe: Recipe) -> Layout:
        model = recipe.model
        require(model.mla is None, "model.mla", "multi-latent attention has no Qwen3-MoE export")
        require(model.moe.score_function == "softmax", "model.moe.score_function",
                "Qwen3-MoE routes with softmax top-k; a sigmoid router has no equivalent")
        return cls(num_layers=model.num_layers, num_heads=model.num_attention_heads,
                   num_query_groups=model.query_groups, head_dim=model.kv_channels,
                   num_experts=model.moe.num_experts, dense_layers=frozenset(range(model.moe.first_dense_layers)))


# --- weights: megatron <-> Hugging Face -------------------------------------------------------------


def split_qkv(qkv: torch.Tensor, layout: Layout) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """megatron's grouped ``[g x (h/g + 2) x d, H]`` -> q ``[h·d, H]``, k ``[g·d, H]``, v ``[g·d, H]``."""
    per_group = layout.num_heads // layout.num_query_groups
    grouped = qkv.reshape(layout.num_query_groups, per_group + 2, layout.head_dim, -1)
    q, k, v = grouped[:, :per_group], grouped[:, per_group], grouped[:, per_group + 1]
    hidden = qkv.shape[-1]
    return q.reshape(-1, hidden), k.reshape(-1, hidden), v.reshape(-1, hidden)


def join_qkv(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layout: Layout) -> torch.Tensor:
    """Inverse of ``split_qkv``."""
    per_group, d, hidden = layout.num_heads // layout.num_query_groups, layout.head_dim, q.shape[-1]
    grouped = torch.cat([q.reshape(layout.num_query_groups, per_group, d, hidden),
                         k.reshape(layout.num_query_groups, 1, d, hidden),
                         v.reshape(layout.num_query_groups, 1, d, hidden)], dim=1)
    return grouped.reshape(-1, hidden)


def split_gate_up(fc1: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """SwiGLU ``linear_fc1`` ``[2F, H]`` -> (gate ``[F, H]``, up ``[F, H]``)."""
    gate, up = fc1.chunk(2, dim=0)
    return gate, up


def _mlp_to_hf(fc1: torch.Tensor, fc2: torch.Tensor, prefix: str) -> dict[str, torch.Tensor]:
    gate, up = split_gate_up(fc1)
    return {f"{prefix}.gate_proj.weight": gate, f"{prefix}.up_proj.weight": up, f"{prefix}.down_proj.weight": fc2}


def layer_to_hf(sd: dict[str, torch.Tensor], i: int, layout: Layout) -> dict[str, torch.Tensor]:
    """The Hugging Face tensors of decoder layer ``i`` from megatron's state dict ``sd``."""
    src, dst = f"decoder.layers.{i}", f"model.layers.{i}"
    q, k, v = split_qkv(sd[f"{src}.self_attention.linear_qkv.weight"], layout)
    out = {f"{dst}.input_layernorm.weight": sd[f"{src}.input_layernorm.weight"],
           f"{dst}.self_attn.q_proj.weight": q, f"{dst}.self_attn.k_proj.weight": k, f"{dst}.self_attn.v_proj.weight": v,
           f"{dst}.self_attn.o_proj.weight": sd[f"{src}.self_attention.linear_proj.weight"],
           f"{dst}.post_attention_layernorm.weight": sd[f"{src}.pre_mlp_layernorm.weight"]}
    for norm in ("q", "k"):
        if f"{src}.self_attention.{norm}_layernorm.weight" in sd:
            out[f"{dst}.self_attn.{norm}_norm.weight"] = sd[f"{src}.self_attention.{norm}_layernorm.weight"]
    mlp = f"{src}.mlp"
    if i in layout.dense_layers:
        return out | _mlp_to_hf(sd[f"{mlp}.linear_fc1.weight"], sd[f"{mlp}.linear_fc2.weight"], f"{dst}.mlp")
    out[f"{dst}.mlp.gate.weight"] = sd[f"{mlp}.router.weight"]
    for e in range(layout.num_experts):
        expert = f"{mlp}.experts.local_experts.{e}"
        out |= _mlp_to_hf(sd[f"{expert}.linear_fc1.weight"], sd[f"{expert}.linear_fc2.weight"], f"{dst}.mlp.experts.{e}")
    if f"{mlp}.shared_experts.linear_fc1.weight" in sd:
        out |= _mlp_to_hf(sd[f"{mlp}.shared_experts.linear_fc1.weight"], sd[f"{mlp}.shared_experts.linear_fc2.weight"],
                          f"{dst}.mlp.shared_expert")
    if f"{mlp}.shared_experts.gate_weight" in sd:
        out[f"{dst}.mlp.shared_expert_gate.weight"] = sd[f"{mlp}.shared_experts.gate_weight"]
    return out


def megatron_to_hf(sd: dict[str, Any], layout: Layout) -> dict[str, torch.Tensor]:
    """All Hugging Face tensors (contiguous copies, ready for safetensors) of a megatron state dict."""
    out = {"model.embed_tokens.weight": sd["embedding.word_embeddings.weight"],
           "model.norm.weight": sd["decoder.final_layernorm.weight"], "lm_head.weight": sd["output_layer.weight"]}
    for i in range(layout.num_layers):
        out |= layer_to_hf(sd, i, layout)
    return {name: tensor.detach().to("cpu").contiguous().clone() for name, tensor in out.items()}


HF_RENAMES = [  # (Hugging Face pattern, megatron replacement) for the tensors that are not fused
    (r"^model\.embed_tokens\.weight$", "embedding.word_embeddings.weight"),
    (r"^model\.norm\.weight$", "decoder.final_layernorm.weight"),
    (r"^lm_head\.weight$", "output_layer.weight"),
    (r"^model\.layers\.(\d+)\.input_layernorm\.weight$", r"decoder.layers.\1.input_layernorm.weight"),
    (r"^model\.layers\.(\d+)\.post_attention_layernorm\.weight$", r"decoder.layers.\1.pre_mlp_layernorm.weight"),
    (r"^model\.layers\.(\d+)\.self_attn\.o_proj\.weight$", r"decoder.layers.\1.self_attention.linear_proj.weight"),
    (r"^model\.layers\.(\d+)\.self_attn\.([qk])_norm\.weight$", r"decoder.layers.\1.self_attention.\2_layernorm.weight"),
    (r"^model\.layers\.(\d+)\.mlp\.gate\.weight$", r"decoder.layers.\1.mlp.router.weight"),
    (r"^model\.layers\.(\d+)\.mlp\.shared_expert_gate\.weight$", r"decoder.layers.\1.mlp.shared_experts.gate_weight"),
    (r"^model\.layers\.(\d+)\.mlp\.experts\.(\d+)\.down_proj\.weight$",
     r"decoder.layers.\1.mlp.experts.local_experts.\2.linear_fc2.weight"),
    (r"^model\.layers\.(\d+)\.mlp\.shared_expert\.down_proj\.weight$", r"decoder.layers.\1.mlp.shared_experts.linear_fc2.weight"),
    (r"^model\.layers\.(\d+)\.mlp\.down_proj\.weight$", r"decoder.layers.\1.mlp.linear_fc2.weight"),
]
GATE_UP = re.compile(r"^model\.layers\.(\d+)\.mlp\.(experts\.(\d+)\.|shared_expert\.|)gate_proj\.weight$")


def hf_to_megatron(tensors: dict[str, torch.Tensor], layout: Layout) -> dict[str, torch.Tensor]:
    """Inverse of ``megatron_to_hf``: Hugging Face tensors back to megatron names and fused layouts."""
    out = {}
    for name, tensor in tensors.items():
        for pattern, replacement in HF_RENAMES:
            if re.match(pattern, name):
                out[re.sub(pattern, replacement, name)] = tensor
        if match := GATE_UP.match(name):
            i, expert, e = match.groups()
            mlp = {"": "linear_fc1", "shared_expert.": "shared_experts.linear_fc1"}.get(expert, f"experts.local_experts.{e}.linear_fc1")
            out[f"decoder.layers.{i}.mlp.{mlp}.weight"] = torch.cat([tensor, tensors[name.replace("gate_proj", "up_proj")]])
    for i in range(layout.num_layers):
        attn = f"model.layers.{i}.self_attn"
        out[f"decoder.layers.{i}.self_attention.linear_qkv.weight"] = join_qkv(
            tensors[f"{attn}.q_proj.weight"], tensors[f"{attn}.k_proj.weight"], tensors[f"{attn}.v_proj.weight"], layout)
    return out


# --- config ---------------------------------------------------------------------------------------


def hf_config(recipe: Recipe, *, vocab_size: int, sequence_length: int, position: PositionSetup, tokenizer,
              dtype: torch.dtype) -> dict[str, Any]:
    """A Qwen3-MoE ``config.json`` describing exactly the trained network (RoPE scaling included)."""
    model, moe = recipe.model, recipe.model.moe
    config = {
        "architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "vocab_size": vocab_size,
        "hidden_size": model.hidden_size, "intermediate_size": model.ffn_hidden_size, "num_hidden_layers": model.num_layers,
        "num_attention_heads": model.num_attention_heads, "num_key_value_heads": model.query_groups,
        "head_dim": model.kv_channels, "hidden_act": "silu", "max_position_embeddings": sequence_length,
        "initializer_range": model.init_std, "rms_norm_eps": model.norm_epsilon, "use_cache": True,
        "tie_word_embeddings": False, "rope_theta": model.rope.base, "rope_scaling": rope_scaling(recipe, position),
        "attention_bias": False, "attention_dropout": 0.0, "use_sliding_window": False,
        "decoder_sparse_step": 1, "mlp_only_layers": list(range(moe.first_dense_layers)),
        "moe_intermediate_size": moe.ffn_hidden_size, "num_experts": moe.num_experts, "num_experts_per_tok": moe.router_topk,
        "norm_topk_prob": True,  # megatron: softmax over the top-k logits = full softmax renormalised over the top k
        "output_router_logits": False, "router_aux_loss_coef": moe.aux_loss_coeff,
        "shared_expert_intermediate_size": moe.shared_expert_intermediate_size,
        "bos_token_id": tokenizer.eod, "eos_token_id": tokenizer.eod, "pad_token_id": tokenizer.pad,
        "torch_dtype": str(dtype).removeprefix("torch."),
    }
    if moe.shared_expert_intermediate_size:
        config["shared_expert_gate"] = moe.shared_expert_gate  # Qwen2-MoE semantics: sigmoid(x W_g) * shared(x)
    return config


def rope_scaling(recipe: Recipe, position: PositionSetup) -> dict[str, Any] | None:
    """Hugging Face ``rope_scaling`` equal to what the run trained with (None: plain RoPE)."""
    from megatron.core.models.common.embeddings.yarn_rotary_pos_embedding import _yarn_get_concentration_factor

    rope = recipe.model.rope
    if not position.scaled:
        return None
    if position.linear:
        return {"rope_type": "linear", "factor": position.factor}
    return {"rope_type": "yarn", "factor": position.factor, "original_max_position_embeddings": rope.original_context,
            "beta_fast": rope.yarn_beta_fast, "beta_slow": rope.yarn_beta_slow,
            # megatron scales cos/sin by 0.1·ln(factor) + 1 (mscale 1, mscale_all_dim 0); state it, don't rely on defaults
            "attention_factor": _yarn_get_concentration_factor(position.factor, 1.0, 0.0)}


# --- lineage and the bundle -----------------------------------------------------------------------


def run_chain(run_dir: Path) -> list[Path]:
    """This run and every run it was initialised from, earliest first (``run.json``'s ``init_from``)."""
    chain, current = [], run_dir
    while current is not None:
        chain.append(current)
        start = json.loads((current / "run.json").read_text()).get("init_from")
        current = Path(start).resolve().parent.parent if start else None  # RUN/checkpoints/step_N -> RUN
    return chain[::-1]


def stage_lineage(run_dir: Path, manifests_dir: Path) -> dict[str, Any]:
    """What one run trained on: the build, its blend, and the tokens it consumed per source."""
    from megatron.core import dist_checkpointing

    run = json.loads((run_dir / "run.json").read_text())
    checkpoint = latest_checkpoint(run_dir)
    state = dict(dist_checkpointing.load_common_state_dict(str(checkpoint)).get("train_state", {})) if checkpoint else {}
    build = Path(run["data"]["build_dir"])
    manifest_copy = manifests_dir / f"{run['run_id']}-{run['stage']}-manifest.json"
    if (build / "manifest.json").is_file():
        shutil.copyfile(build / "manifest.json", manifest_copy)
    manifest = json.loads(manifest_copy.read_text()) if manifest_copy.is_file() else {}
    return {
        "run_id": run["run_id"], "stage": run["stage"], "run_dir": str(run_dir), "init_from": run.get("init_from"),
        "build_dir": str(build), "spec_name": run["data"].get("spec_name"), "spec_hash": run["data"]["spec_hash"],
        "manifest": str(manifest_copy.relative_to(manifests_dir.parent)) if manifest_copy.is_file() else None,
        "data_path": run["data"]["data_path"], "sequence_length": run["sequence_length"],
        "steps": state.get("step"), "tokens_seen": state.get("tokens_seen"), "loss_tokens_seen": state.get("loss_tokens_seen"),
        "tokens_per_source": state.get("tokens_per_source", {}),
        "build_tokens_per_source": manifest.get("stages", {}).get(run["stage"], {}).get("tokens_per_source", {}),
    }


def export_weights(run_dir: Path, checkpoint: Path, hf_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Load ``checkpoint`` into a CPU model of the run's recipe and write safetensors + config.json."""
    from safetensors.torch import save_file

    from pretrain.data import HFTokenizerForMegatron
    from pretrain.model import build_model
    from pretrain.parallel import initialize, shutdown

    run = json.loads((run_dir / "run.json").read_text())
    recipe = recipe_from_dict(run["recipe"])
    recipe.parallel = ParallelConfig()  # any training layout loads into one CPU process
    layout = Layout.of(recipe)
    runtime = initialize(recipe.parallel, seed=0, force_cpu=True)
    try:
        tokenizer = HFTokenizerForMegatron.from_file(str(Path(run["data"]["build_dir"]) / "tokenizer.json"))
        position = PositionSetup(**run["position"])
        model = build_model(recipe, vocab_size=tokenizer.vocab_size, sequence_length=run["sequence_length"],
                            position=position, cpu=True)
        state = load_checkpoint(checkpoint, model)
        tensors = megatron_to_hf(model.state_dict(), layout)
        hf_dir.mkdir(parents=True, exist_ok=True)
        save_file(tensors, str(hf_dir / HF_WEIGHTS), metadata={"format": "pt", "codemix_run": run["run_id"]})
        config = hf_config(recipe, vocab_size=model.vocab_size, sequence_length=run["sequence_length"], position=position,
                           tokenizer=tokenizer, dtype=next(iter(tensors.values())).dtype)
        (hf_dir / "config.json").write_text(json.dumps(config, indent=2))
        shutil.copyfile(Path(run["data"]["build_dir"]) / "tokenizer.json", hf_dir / "tokenizer.json")
        return state, config
    finally:
        shutdown(runtime)


def final_eval(run_dir: Path, step: int | None) -> list[dict[str, Any]]:
    """The run's eval.jsonl rows of checkpoint ``step`` (empty when it was never evaluated)."""
    path = run_dir / "eval.jsonl"
    if not path.is_file():
        return []
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [row for row in rows if row.get("step") == step]


def handoff(run_dir: str | Path, out: str | Path, *, step: int | None = None,
            eval_sets: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """Write the bundle for ``run_dir``'s checkpoint ``step`` (default: latest); returns handoff.json."""
    run_dir, out = Path(run_dir).resolve(), Path(out)
    checkpoint = (run_dir / "checkpoints" / f"step_{step:07d}") if step is not None else latest_checkpoint(run_dir)
    if checkpoint is None or not checkpoint.is_dir():
        raise ConfigError("RUN_DIR", f"{run_dir} has no checkpoint{'' if step is None else f' at step {step}'}")
    if eval_sets:
        from pretrain.evaluate import evaluate_run

        evaluate_run(run_dir, eval_sets, step=int(checkpoint.name.split("_")[1]))
    (out / "manifests").mkdir(parents=True, exist_ok=True)
    state, config = export_weights(run_dir, checkpoint, out / "hf")
    shutil.copytree(checkpoint, out / "checkpoint", dirs_exist_ok=True)
    lineage = {"stages": [stage_lineage(run, out / "manifests") for run in run_chain(run_dir)]}
    lineage["spec_hashes"] = sorted({s["spec_hash"] for s in lineage["stages"]})
    (out / "lineage.json").write_text(json.dumps(lineage, indent=2))
    evals = final_eval(run_dir, state.get("step"))
    (out / "eval.json").write_text(json.dumps(evals, indent=2))
    return write_summary(run_dir, out, checkpoint, state, config, evals)


def write_summary(run_dir: Path, out: Path, checkpoint: Path, state: dict[str, Any], config: dict[str, Any],
                  evals: list[dict[str, Any]]) -> dict[str, Any]:
    """handoff.json: what the bundle is, in one small file an RL launcher reads first."""
    run = json.loads((run_dir / "run.json").read_text())
    recipe = recipe_from_dict(run["recipe"])
    counts = count_parameters(recipe.model, config["vocab_size"])
    summary = {
        "run_id": run["run_id"], "stage": run["stage"], "step": state.get("step"), "tokens_seen": state.get("tokens_seen"),
        "source_checkpoint": str(checkpoint), "hf_dir": "hf", "hf_weights": f"hf/{HF_WEIGHTS}", "checkpoint": "checkpoint",
        "architecture": config["architectures"][0], "moe_enable_routing_replay": recipe.model.moe.enable_routing_replay,
        "parameters": {"total": counts.total, "active": counts.active},
        "eval": {row["eval_set"]: {"bits_per_byte": row["bits_per_byte"], "loss_nats": row["loss_nats"]} for row in evals},
        "recipe": asdict(recipe),
    }
    (out / "handoff.json").write_text(json.dumps(summary, indent=2, default=str))
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = handoff_parser()
    args = parser.parse_args(argv)
    try:
        from pretrain.evaluate import parse_eval_sets

        sets = parse_eval_sets(args.eval_set, ["*.py"]) if args.eval_set else None
        summary = handoff(args.run_dir, args.out, step=args.step, eval_sets=sets)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(json.dumps({k: summary[k] for k in ("run_id", "step", "architecture", "moe_enable_routing_replay", "eval")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
