"""Start continued pretraining from a Hugging Face MoE checkpoint: its config, weights and tokenizer.

Design notes: docs/design/pretrain.md, "pretrain/hf/base_import.py".
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch

from codemix.config import ConfigError, require
from codemix.mixtures.tokenizer import TOKENIZER_CONFIG, load_tokenizer, resolve_tokenizer_path, tokenizer_fingerprint
from codemix.pretrain.architecture import hf_family
from codemix.pretrain.configs import ParallelConfig, Recipe, load_recipe
from codemix.pretrain.data.pretraining import DEFAULT_EOD
from codemix.pretrain.hf.convert import Layout, Source, hf_sources
from codemix.pretrain.hf.shards import SCALE_SUFFIX, HFShards
from codemix.pretrain.lineage import write_run

BASE_STAGE = "base"


def stored_dtypes(dtypes: dict[str, torch.dtype], config: dict[str, Any]) -> dict[str, Any]:
    """The dtypes the hand-off writes back: the most common one and each tensor stored otherwise (an
    FP8 weight counts as the config's ``torch_dtype``, as a dequantised release is distributed)."""
    declared = str(config.get("torch_dtype") or config.get("dtype") or "bfloat16")
    rope = set(rope_buffers(dtypes))

    def dtype(name: str, stored: torch.dtype) -> str:
        return declared if stored == torch.float8_e4m3fn else str(stored).removeprefix("torch.")

    names = {name: dtype(name, stored) for name, stored in dtypes.items()
             if not name.endswith(SCALE_SUFFIX) and name not in rope}
    counts: dict[str, int] = {}
    for value in names.values():
        counts[value] = counts.get(value, 0) + 1
    default = max(counts, key=counts.get)
    return {"default": default, "other": {name: value for name, value in names.items() if value != default}}


def base_tokenizer(hf_dir: str | Path) -> dict[str, Any] | None:
    """The base's tokenizer as run.json records it (None when the directory ships none), with its EOS
    and pad tokens from its tokenizer_config.json (a pad equal to the EOS is replaced: see
    ``mixtures.tokenizer.pick_pad_token``)."""
    try:
        path = resolve_tokenizer_path(str(hf_dir))
        tokenizer = load_tokenizer(path)
    except FileNotFoundError:
        return None
    config_path = Path(hf_dir) / TOKENIZER_CONFIG
    config = json.loads(config_path.read_text()) if config_path.is_file() else {}
    eos, pad = token_content(config.get("eos_token")), token_content(config.get("pad_token"))
    eos = eos or (DEFAULT_EOD if tokenizer.token_to_id(DEFAULT_EOD) is not None else None)
    if eos is None:
        raise ConfigError("init_from_hf", f"{hf_dir} names no eos_token in {TOKENIZER_CONFIG}",
                          f"add \"eos_token\" to {config_path}")
    return describe_tokenizer(tokenizer, path) | {"eod_token": eos, "pad_token": pad if pad != eos else None}


def token_content(token: Any) -> str | None:
    """A tokenizer_config.json token: a string, or an AddedToken dict with its ``content``."""
    return token.get("content") if isinstance(token, dict) else token


def describe_tokenizer(tokenizer, path: str) -> dict[str, Any]:
    """What identifies a tokenizer in run.json and in error messages."""
    return {"path": str(Path(path).resolve()) if "://" not in path else path, "fingerprint": tokenizer_fingerprint(tokenizer),
            "vocab_size": tokenizer.get_vocab_size(with_added_tokens=True)}


def import_base(recipe: Recipe, out_dir: str | Path) -> Path:
    """Write ``recipe.init_from_hf``'s weights into ``out_dir`` as a stage-``base`` run; returns the checkpoint.

    The model is built on the ``meta`` device and each of its tensors is read from the shards (and
    dequantised, fused, cast) only when the checkpoint writer reaches it, so the import holds one tensor
    and one open shard at a time, never the model (bench/RESULTS.md, "Peak RSS of a sharded import")."""
    from codemix.pretrain.checkpoint import save_streamed
    from codemix.pretrain.model.gpt import build_model, position_setup
    from codemix.pretrain.parallel import initialize, shutdown

    hf_dir, out_dir = Path(recipe.init_from_hf), Path(out_dir)
    config = json.loads((hf_dir / "config.json").read_text())
    tokenizer = base_tokenizer(hf_dir)
    layout = Layout.of(recipe, hf_family(config, "init_from_hf"))
    shards = HFShards(hf_dir, config)
    dtypes, mtp = stored_dtypes(shards.dtypes, config), mtp_names(shards.dtypes, config)
    sources, checks = hf_sources(model_tensors(dict.fromkeys(shards.weights()), config), layout)
    position = position_setup(recipe, "short")
    runtime = initialize(ParallelConfig(), seed=0, force_cpu=True)
    try:
        with torch.device("meta"):
            model = build_model(recipe, vocab_size=tokenizer["vocab_size"] if tokenizer else config["vocab_size"],
                                sequence_length=recipe.model.rope.original_context, position=position, cpu=True)
        expected = check_fills_model(model, sources, shards.meta)
        for check in checks:
            check.build(shards.tensor)

        def materialize(name: str) -> torch.Tensor:
            source, dtype = sources[name], expected[name].dtype
            if source.copies:  # cast as read: a bf16 embedding is never held beside its fp32 copy
                return shards.tensor(source.names[0], dtype)
            return source.build(shards.tensor).to(dtype)

        checkpoint = save_streamed(out_dir, model, materialize, {"step": 0, "consumed_samples": 0, "tokens_seen": 0,
                                                                "loss_tokens_seen": 0, "tokens_per_source": {}})
    finally:
        shards.close()
        shutdown(runtime)
    record = {"run_id": out_dir.name, "stage": BASE_STAGE, "recipe": asdict(recipe), "init_from": None,
              "hf_dir": str(hf_dir.resolve()), "hf_config": config, "hf_dtypes": dtypes, "hf_mtp_tensors": mtp,
              "hf_fp8_tensors": sorted(name for name, stored in shards.dtypes.items() if stored == torch.float8_e4m3fn),
              "tokenizer": tokenizer,
              "position": asdict(position), "sequence_length": recipe.model.rope.original_context}
    write_run(out_dir, record)
    return checkpoint


LAYER = re.compile(r"^model\.layers\.(\d+)\.")


def rope_buffers(tensors: dict[str, Any]) -> list[str]:
    return [name for name in tensors if name.endswith("rotary_emb.inv_freq")]


def mtp_names(tensors: dict[str, Any], config: dict[str, Any]) -> list[str]:
    """The tensors of DeepSeek-V3's multi-token-prediction layers (``model.layers.{num_hidden_layers}+``)."""
    return sorted(set(tensors) - set(model_tensors(tensors, config)) - set(rope_buffers(tensors)))


def model_tensors(tensors: dict[str, torch.Tensor], config: dict[str, Any]) -> dict[str, torch.Tensor]:
    """The tensors that are the model: without the multi-token-prediction layers DeepSeek-V3 appends
    after its last layer (not trained here; the hand-off copies them from the base) and stored RoPE
    frequency buffers."""
    layers, rope = config["num_hidden_layers"], set(rope_buffers(tensors))
    return {name: tensor for name, tensor in tensors.items()
            if name not in rope and not ((match := LAYER.match(name)) and int(match.group(1)) >= layers)}


def check_fills_model(model: torch.nn.Module, sources: dict[str, Source], meta) -> dict[str, torch.Tensor]:
    """The model's tensors by name, after refusing any missing, unexpected or reshaped one: each source
    is built on ``meta`` stand-ins (``meta(hf_name)``), so nothing is read and nothing is written yet."""
    expected = {k: v for k, v in model.state_dict().items() if not k.endswith("_extra_state")}
    missing, unexpected = sorted(set(expected) - set(sources)), sorted(set(sources) - set(expected))
    require(not missing and not unexpected, "init_from_hf", f"the checkpoint does not fill the model: missing "
            f"{missing[:3]}, unexpected {unexpected[:3]}")
    for name, source in sources.items():
        shape = tuple(source.build(meta).shape)
        require(shape == tuple(expected[name].shape), "init_from_hf",
                f"{name} has shape {shape}, the model {tuple(expected[name].shape)}")
    return expected


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codemix.pretrain.hf.base_import", description=__doc__.splitlines()[0])
    parser.add_argument("hf_dir", help="a Hugging Face checkpoint directory (config.json, *.safetensors, tokenizer)")
    parser.add_argument("--out", required=True, help="the base run directory to write")
    parser.add_argument("--model", default="continued", help="recipe for everything but the architecture")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a recipe field")
    args = parser.parse_args(argv)
    try:
        recipe = load_recipe(args.model, args.set, init_from_hf=args.hf_dir)
        checkpoint = import_base(recipe, args.out)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"imported {args.hf_dir} ({recipe.model.num_layers} layers, {recipe.model.moe.num_experts} experts) "
          f"-> {checkpoint}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
