"""Hand a trained run to RL: Hugging Face weights, the distributed checkpoint, data lineage, eval figures.

Design notes: docs/design/pretrain.md, "pretrain/hf/handoff.py".
"""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import torch

from codemix.config import ConfigError
from codemix.mixtures.chat import ChatTemplate, chat_template_jinja
from codemix.pretrain.checkpoint import checkpoint_path, checkpoint_step, latest_checkpoint
from codemix.pretrain.cli_args import handoff_parser
from codemix.pretrain.configs import ParallelConfig, Recipe, recipe_from_dict
from codemix.pretrain.hf.base_import import BASE_STAGE
from codemix.pretrain.hf.convert import Layout, export_family, hf_config, max_positions
from codemix.pretrain.hf.export import Encoding
from codemix.pretrain.lineage import read_run, run_chain
from codemix.pretrain.model.gpt import PositionSetup
from codemix.pretrain.model.params import count_parameters

# --- the tokenizer and its chat template ----------------------------------------------------------


def trained_chat_template(manifests: list[dict[str, Any]]) -> tuple[ChatTemplate, str]:
    """The chat template the SFT stage rendered with, and where it came from: a build manifest that
    records ``stages.sft.chat_template``, else ``mixtures.chat``'s default ChatML (what a spec without
    ``stages.sft.sft.template`` builds with)."""
    known = {f.name for f in fields(ChatTemplate)}
    for manifest in reversed(manifests):
        recorded = next((entry["chat_template"] for entry in manifest.get("stages", {}).values()
                         if entry.get("chat_template")), None)
        if recorded:
            return ChatTemplate(**{k: v for k, v in recorded.items() if k in known}), "manifest"
    return ChatTemplate(), "codemix.mixtures.chat default"


def tokenizer_config(tokenizer, template: ChatTemplate, max_length: int) -> dict[str, Any]:
    """tokenizer_config.json for ``PreTrainedTokenizerFast`` over the build's tokenizer.json: the added
    tokens as they are, EOS = the build's EOD, the pad the training used, no BOS/EOS added on encode."""
    added = tokenizer.hf_tokenizer.get_added_tokens_decoder()
    return {
        "tokenizer_class": "PreTrainedTokenizerFast", "bos_token": None, "eos_token": tokenizer.eod_token,
        "pad_token": tokenizer.pad_token or tokenizer.eod_token, "unk_token": None, "add_bos_token": False, "add_eos_token": False,
        "clean_up_tokenization_spaces": False, "model_max_length": max_length,
        "added_tokens_decoder": {str(i): {"content": t.content, "lstrip": t.lstrip, "rstrip": t.rstrip,
                                          "normalized": t.normalized, "single_word": t.single_word, "special": t.special}
                                 for i, t in sorted(added.items())},
        "chat_template": chat_template_jinja(template),
    }


# --- weights ---------------------------------------------------------------------------------------


def base_record(run_dir: Path) -> dict[str, Any] | None:
    """run.json of the imported base the run descends from (None: trained from scratch)."""
    first = read_run(run_chain(run_dir)[0])
    return first if first["stage"] == BASE_STAGE else None


def export_dtypes(base: dict[str, Any] | None, dtype: str | None) -> dict[str, Any]:
    """Which dtype each exported tensor gets: ``dtype`` for all when asked, else the base's as it
    stored them (run.json's ``hf_dtypes``), else fp32 (a run trained from scratch)."""
    if dtype is not None:
        return {"default": dtype, "other": {}}
    if base is not None and base.get("hf_dtypes"):
        return base["hf_dtypes"]
    return {"default": "float32", "other": {}}


def export_encoding(base: dict[str, Any] | None, dtype: str | None) -> Encoding:
    """How the bundle stores each tensor: ``dtype`` for all when asked; else the base's dtypes, its FP8
    weights block-FP8 again with their ``weight_scale_inv`` (the release format the RL stack loaded)."""
    from codemix.pretrain.hf.shards import fp8_block

    dtypes = export_dtypes(base, dtype)
    fp8 = base_fp8_names(base) if dtype is None and base is not None else []
    return Encoding(dtypes, frozenset(fp8), fp8_block(base["hf_config"])) if fp8 else Encoding(dtypes)


def base_fp8_names(base: dict[str, Any]) -> list[str]:
    """The base's block-FP8 weights: as its import recorded them, else read from its shard headers."""
    from codemix.pretrain.hf.shards import HFShards

    if "hf_fp8_tensors" in base:
        return base["hf_fp8_tensors"]
    hf_dir = Path(base["hf_dir"])
    if not base["hf_config"].get("quantization_config"):
        return []
    if not hf_dir.is_dir():
        raise ConfigError("init_from_hf", f"the FP8 base {hf_dir} is gone; which weights it stored as FP8 is unknown",
                          "restore the base directory, or pass --dtype bfloat16")
    shards = HFShards(hf_dir, base["hf_config"])
    try:
        return sorted(name for name, stored in shards.dtypes.items() if stored == torch.float8_e4m3fn)
    finally:
        shards.close()


def mtp_sources(base: dict[str, Any] | None) -> tuple[list[str], Any]:
    """The base's multi-token-prediction tensor names and a reader giving each (dequantised when FP8),
    one at a time (no names, no reader: it had none)."""
    from codemix.pretrain.hf.shards import SCALE_SUFFIX, HFShards

    names = [name for name in (base or {}).get("hf_mtp_tensors") or [] if not name.endswith(SCALE_SUFFIX)]
    if not names:
        return [], None
    hf_dir = Path(base["hf_dir"])
    if not hf_dir.is_dir():
        raise ConfigError("init_from_hf", f"the base {hf_dir} is gone; its {len(names)} multi-token-prediction "
                          "tensors cannot be copied into the hand-off", "restore the base directory")
    return sorted(names), HFShards(hf_dir, base["hf_config"])


def export_weights(run_dir: Path, checkpoint: Path, hf_dir: Path, template: ChatTemplate,
                   dtype: str | None = None, max_shard_bytes: int | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Write the Hugging Face directory of ``checkpoint``: the model is built on the ``meta`` device,
    its tensors read, converted and cast a few at a time straight into safetensors shards
    (``pretrain.hf.export``), so memory is bounded by a shard's worth of tensors, not the model."""
    from megatron.core import dist_checkpointing

    from codemix.pretrain.evaluate import run_tokenizer
    from codemix.pretrain.hf.export import checkpoint_tensors, model_units, planned_outputs, unit_batches, write_sharded
    from codemix.pretrain.model.gpt import build_model
    from codemix.pretrain.parallel import initialize, shutdown

    run = read_run(run_dir)
    recipe = export_recipe(run)
    family = export_family(recipe)
    layout = Layout.of(recipe, family)
    base = base_record(run_dir)
    encoding = export_encoding(base, dtype)
    max_bytes = max_shard_bytes or base_shard_bytes(base)
    mtp_names, mtp_reader = mtp_sources(base)
    hf_dir.mkdir(parents=True, exist_ok=True)
    runtime = initialize(recipe.parallel, seed=0, force_cpu=True)
    try:
        tokenizer = run_tokenizer(run)
        position = PositionSetup(**run["position"])
        with torch.device("meta"):
            model = build_model(recipe, vocab_size=tokenizer.vocab_size, sequence_length=run["sequence_length"],
                                position=position, cpu=True)
        sharded, units = model_units(model, layout)
        batches = unit_batches(units, sharded, budget=max(max_bytes // 2, 1))
        planned = planned_outputs(sharded, [unit for batch in batches for unit in batch], encoding)
        planned += [p for name in mtp_names for p in encoding.planned(name, mtp_reader.shapes[name])]

        def tensors():
            for name, tensor in checkpoint_tensors(checkpoint, sharded, batches):
                yield from encoding.encode(name, tensor)
                del tensor  # not held while the next batch is read
            for name in mtp_names:
                yield from encoding.encode(name, mtp_reader.tensor(name))

        write_sharded(hf_dir, planned, tensors(), max_bytes, {"format": "pt", "codemix_run": run["run_id"]})
        state = dict(dist_checkpointing.load_common_state_dict(str(checkpoint)).get("train_state", {}))
    finally:
        if mtp_reader is not None:
            mtp_reader.close()
        shutdown(runtime)
    ids = {"bos": tokenizer.eod, "eos": tokenizer.eod, "pad": tokenizer.pad_fill}
    length = max(max_positions(recipe, position), run["sequence_length"] if not position.scaled else 0)
    config = hf_config(recipe, family, vocab_size=model.vocab_size, position=position,
                       dtype=encoding.dtype("model.embed_tokens.weight"),
                       special_ids=ids)
    config["max_position_embeddings"] = length
    if encoding.fp8:
        config["quantization_config"] = base["hf_config"]["quantization_config"]
    if mtp_names:  # bases imported before MTP was recorded have none
        config["num_nextn_predict_layers"] = base["hf_config"]["num_nextn_predict_layers"]
    write_json(hf_dir / "config.json", config)
    write_json(hf_dir / "generation_config.json", {"bos_token_id": ids["bos"], "eos_token_id": ids["eos"],
                                                   "pad_token_id": ids["pad"]})
    tokenizer.hf_tokenizer.save(str(hf_dir / "tokenizer.json"))  # a base's tiktoken file becomes tokenizer.json
    write_json(hf_dir / "tokenizer_config.json", tokenizer_config(tokenizer, template, length))
    return state, config


PROBE_SEED, PROBE_SHAPE = 0, (2, 64)
ERROR_CHECKS = ("auto", "always", "never")


def probe_tokens(vocab_size: int, seed: int = PROBE_SEED, shape: tuple[int, int] = PROBE_SHAPE) -> torch.Tensor:
    """The fixed batch the export error is measured on (recorded in handoff.json, so anyone can redo it)."""
    return torch.randint(0, vocab_size, shape, generator=torch.Generator().manual_seed(seed))


def measure_export_error(run_dir: Path, checkpoint: Path, encoding: Encoding, vocab_size: int) -> dict[str, Any]:
    """The bundle's logit error against the trained model: the fp32 checkpoint's logits on
    ``probe_tokens`` vs the same model with every weight as the bundle stores it (cast, or FP8
    quantised and dequantised, in Hugging Face layout), both computed by megatron-core in fp32."""
    from codemix.pretrain.checkpoint import load_checkpoint
    from codemix.pretrain.hf.convert import hf_to_megatron, megatron_to_hf
    from codemix.pretrain.loop import causal_mask
    from codemix.pretrain.model.gpt import build_model
    from codemix.pretrain.parallel import initialize, shutdown

    run = read_run(run_dir)
    recipe = export_recipe(run)
    layout = Layout.of(recipe, export_family(recipe))
    tokens_BS = probe_tokens(vocab_size)
    runtime = initialize(recipe.parallel, seed=0, force_cpu=True)
    try:
        model = build_model(recipe, vocab_size=vocab_size, sequence_length=run["sequence_length"],
                            position=PositionSetup(**run["position"]), cpu=True)
        load_checkpoint(checkpoint, model)
        model.eval()
        positions_BS, mask = torch.arange(tokens_BS.shape[1]).expand_as(tokens_BS), causal_mask(tokens_BS.shape[1])
        with torch.no_grad():
            trained_BSV = model(tokens_BS, positions_BS, mask).float()
            weights = {k: v for k, v in model.state_dict().items() if not k.endswith("_extra_state")}
            stored = {name: encoding.stored(name, tensor) for name, tensor in megatron_to_hf(weights, layout).items()}
            model.load_state_dict(hf_to_megatron(stored, layout), strict=False)
            bundle_BSV = model(tokens_BS, positions_BS, mask).float()
    finally:
        shutdown(runtime)
    return {"max_abs_logit_error": float((bundle_BSV - trained_BSV).abs().max()),
            "argmax_agreement": float((bundle_BSV.argmax(-1) == trained_BSV.argmax(-1)).float().mean()),
            "probe": {"seed": PROBE_SEED, "shape": list(PROBE_SHAPE), "vocab_size": vocab_size},
            "reference": "the trained checkpoint in fp32 (megatron-core forward)"}


def should_measure(check: str, parameters: int) -> tuple[bool, str]:
    """Whether the export error is measured: ``always``, ``never``, or ``auto`` when two fp32 copies of
    the model take at most a quarter of the memory available now."""
    if check != "auto":
        return check == "always", f"--error-check {check}"
    import psutil

    needed, available = 2 * 4 * parameters, psutil.virtual_memory().available
    if needed <= available // 4:
        return True, "auto"
    return False, (f"auto: two fp32 copies of the model ({needed / 2**30:.1f} GiB) exceed a quarter of the "
                   f"available memory ({available / 2**30:.1f} GiB); measure on a larger machine with --error-check always")


def base_shard_bytes(base: dict[str, Any] | None) -> int:
    """The shard size a bundle is written in by default: the base's largest shard when it was sharded
    (an RL stack that loaded the base loads the bundle the same way), else transformers' 5GB."""
    from codemix.pretrain.hf.export import DEFAULT_MAX_SHARD_BYTES
    from codemix.pretrain.hf.shards import shard_files

    hf_dir = Path((base or {}).get("hf_dir") or "")
    if base is None or not hf_dir.is_dir():
        return DEFAULT_MAX_SHARD_BYTES
    files = shard_files(hf_dir)
    return max((hf_dir / f).stat().st_size for f in files) if len(files) > 1 else DEFAULT_MAX_SHARD_BYTES


def export_recipe(run: dict[str, Any]) -> Recipe:
    """The run's recipe on one CPU process (a distributed checkpoint loads into any layout)."""
    recipe = recipe_from_dict(run["recipe"])
    recipe.parallel = ParallelConfig()
    return recipe


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False))


# --- lineage and the bundle -----------------------------------------------------------------------


def stage_lineage(run_dir: Path, manifests_dir: Path) -> dict[str, Any]:
    """What one run trained on: the build, its blend, and the tokens it consumed per source (an
    imported base: its Hugging Face directory, config and tokenizer)."""
    from megatron.core import dist_checkpointing

    run = read_run(run_dir)
    if run["stage"] == BASE_STAGE:
        return {"run_id": run["run_id"], "stage": BASE_STAGE, "run_dir": str(run_dir), "init_from": None,
                "hf_dir": run["hf_dir"], "hf_config": run["hf_config"], "tokenizer": run["tokenizer"]}
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


def final_eval(run_dir: Path, step: int | None) -> list[dict[str, Any]]:
    """The run's eval.jsonl rows of checkpoint ``step`` (empty when it was never evaluated)."""
    path = run_dir / "eval.jsonl"
    if not path.is_file():
        return []
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [row for row in rows if row.get("step") == step]


def handoff(run_dir: str | Path, out: str | Path, *, step: int | None = None,
            eval_sets: dict[str, list[str]] | None = None, dtype: str | None = None,
            max_shard_bytes: int | None = None, error_check: str = "auto") -> dict[str, Any]:
    """Write the bundle for ``run_dir``'s checkpoint ``step`` (default: latest) with weights in
    ``dtype`` (default: the base's dtypes, see ``export_dtypes``) in safetensors shards of at most
    ``max_shard_bytes`` (default: the base's shard size, see ``base_shard_bytes``); returns handoff.json."""
    run_dir, out = Path(run_dir).resolve(), Path(out)
    checkpoint = checkpoint_path(run_dir, step) if step is not None else latest_checkpoint(run_dir)
    if checkpoint is None or not checkpoint.is_dir():
        raise ConfigError("RUN_DIR", f"{run_dir} has no checkpoint{'' if step is None else f' at step {step}'}")
    export_family(export_recipe(read_run(run_dir)))  # refuse before any work
    if eval_sets:
        from codemix.pretrain.evaluate import evaluate_run

        evaluate_run(run_dir, eval_sets, step=checkpoint_step(checkpoint))
    (out / "manifests").mkdir(parents=True, exist_ok=True)
    lineage = {"stages": [stage_lineage(run, out / "manifests") for run in run_chain(run_dir)]}
    lineage["spec_hashes"] = sorted({s["spec_hash"] for s in lineage["stages"] if s["stage"] != BASE_STAGE})
    write_json(out / "lineage.json", lineage)
    manifests = [json.loads((out / s["manifest"]).read_text()) for s in lineage["stages"] if s.get("manifest")]
    template, template_source = trained_chat_template(manifests)
    state, config = export_weights(run_dir, checkpoint, out / "hf", template, dtype, max_shard_bytes)
    error = export_error(run_dir, checkpoint, dtype, config, error_check)
    shutil.copytree(checkpoint, out / "checkpoint", dirs_exist_ok=True)
    evals = final_eval(run_dir, state.get("step"))
    write_json(out / "eval.json", evals)
    return write_summary(run_dir, out, checkpoint, state, config, evals, chat_template_source=template_source,
                         export_error=error)


def export_error(run_dir: Path, checkpoint: Path, dtype: str | None, config: dict[str, Any], check: str) -> dict[str, Any]:
    """handoff.json's ``export_error``: measured (``measure_export_error``) or why not, and the stored format."""
    encoding = export_encoding(base_record(run_dir), dtype)
    stored = {"dtype": config["torch_dtype"], "fp8_weights": len(encoding.fp8)}
    counts = count_parameters(export_recipe(read_run(run_dir)).model, config["vocab_size"])
    measure, why = should_measure(check, counts.total)
    if not measure:
        return stored | {"measured": False, "why": why}
    return stored | {"measured": True} | measure_export_error(run_dir, checkpoint, encoding, config["vocab_size"])


def write_summary(run_dir: Path, out: Path, checkpoint: Path, state: dict[str, Any], config: dict[str, Any],
                  evals: list[dict[str, Any]], *, chat_template_source: str,
                  export_error: dict[str, Any] | None = None) -> dict[str, Any]:
    """handoff.json: what the bundle is, in one small file an RL launcher reads first."""
    run = read_run(run_dir)
    recipe = recipe_from_dict(run["recipe"])
    counts = count_parameters(recipe.model, config["vocab_size"])
    summary = {
        "run_id": run["run_id"], "stage": run["stage"], "step": state.get("step"), "tokens_seen": state.get("tokens_seen"),
        "source_checkpoint": str(checkpoint), "hf_dir": "hf", "hf_weights": weight_files(out / "hf"), "checkpoint": "checkpoint",
        "architecture": config["architectures"][0], "moe_enable_routing_replay": recipe.model.moe.enable_routing_replay,
        "chat_template_source": chat_template_source, "dtype": config["torch_dtype"],
        "mtp_layers": config.get("num_nextn_predict_layers", 0),
        "parameters": {"total": counts.total, "active": counts.active},
        "eval": {row["eval_set"]: {"bits_per_byte": row["bits_per_byte"], "loss_nats": row["loss_nats"]} for row in evals},
        "recipe": asdict(recipe), "export_error": export_error or {"measured": False, "why": "not asked"},
    }
    (out / "handoff.json").write_text(json.dumps(summary, indent=2, default=str))
    return summary


def weight_files(hf_dir: Path) -> list[str]:
    """The bundle's safetensors files, relative to the bundle (one, or the shards its index names)."""
    return sorted(f"hf/{path.name}" for path in hf_dir.glob("model*.safetensors"))


def main(argv: list[str] | None = None) -> int:
    parser = handoff_parser()
    args = parser.parse_args(argv)
    try:
        from codemix.pretrain.evaluate import parse_eval_sets

        sets = parse_eval_sets(args.eval_set, ["*.py"]) if args.eval_set else None
        from codemix.pretrain.hf.export import parse_size

        shard_bytes = parse_size(args.max_shard_size) if args.max_shard_size else None
        summary = handoff(args.run_dir, args.out, step=args.step, eval_sets=sets, dtype=args.dtype,
                          max_shard_bytes=shard_bytes, error_check=args.error_check)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(json.dumps({k: summary[k] for k in ("run_id", "step", "architecture", "moe_enable_routing_replay", "eval",
                                               "hf_weights", "export_error")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
