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
from codemix.pretrain.configs import ParallelConfig, Recipe, load_recipe
from codemix.pretrain.data.pretraining import DEFAULT_EOD
from codemix.pretrain.hf.convert import Layout, hf_family, hf_to_megatron
from codemix.pretrain.lineage import write_run

BASE_STAGE = "base"


def read_hf_tensors(hf_dir: str | Path, names: set[str] | None = None) -> dict[str, torch.Tensor]:
    """Every tensor of a checkpoint directory (or only ``names``): ``model.safetensors``, or the
    shards its index names."""
    from safetensors import safe_open

    root = Path(hf_dir)
    index = root / "model.safetensors.index.json"
    if index.is_file():
        files = sorted(set(json.loads(index.read_text())["weight_map"].values()))
    else:
        files = ["model.safetensors"]
    missing = [name for name in files if not (root / name).is_file()]
    require(not missing, "init_from_hf", f"{root} lacks {', '.join(missing)}", "give a directory save_pretrained wrote")
    tensors: dict[str, torch.Tensor] = {}
    for file in files:
        with safe_open(str(root / file), framework="pt") as shard:
            for name in shard.keys():  # noqa: SIM118 (safe_open is not iterable)
                if names is None or name in names:
                    tensors[name] = shard.get_tensor(name)
    require(names is None or set(names) <= set(tensors), "init_from_hf",
            f"{root} lacks {sorted(set(names or ()) - set(tensors))[:3]}")
    return tensors


def dequantize_block_fp8(weight: torch.Tensor, scale_inv: torch.Tensor, block: tuple[int, int], name: str) -> torch.Tensor:
    """A block-FP8 weight ``[R, C]`` times its per-block scale ``[ceil(R/b0), ceil(C/b1)]``, in fp32."""
    rows, cols = weight.shape
    grid = (-(-rows // block[0]), -(-cols // block[1]))
    require(tuple(scale_inv.shape) == grid, "init_from_hf", f"{name}_scale_inv has shape {tuple(scale_inv.shape)}, "
            f"not {grid} for a {rows}x{cols} weight in {block[0]}x{block[1]} blocks")
    scale_RC = scale_inv.float().repeat_interleave(block[0], 0)[:rows].repeat_interleave(block[1], 1)[:, :cols]
    return weight.float() * scale_RC


def fp8_block(config: dict[str, Any]) -> tuple[int, int]:
    """The weight block of a checkpoint's ``quantization_config`` (DeepSeek-V3's: fp8, e4m3, 128x128)."""
    quant = config.get("quantization_config") or {}
    require(quant.get("quant_method") == "fp8" and quant.get("fmt", "e4m3") == "e4m3", "init_from_hf: quantization_config",
            f"weights quantised as {quant.get('quant_method')!r} ({quant.get('fmt', quant.get('format'))}) are not "
            "imported", "only block-scaled fp8 e4m3 (DeepSeek-V3, Kimi K2) is; dequantise the checkpoint first")
    block = quant.get("weight_block_size") or [128, 128]
    return int(block[0]), int(block[1])


def dequantize_checkpoint(tensors: dict[str, torch.Tensor], config: dict[str, Any]) -> dict[str, torch.Tensor]:
    """``tensors`` with every ``X.weight`` + ``X.weight_scale_inv`` pair replaced by the fp32 weight;
    an FP8 tensor without its scale is an error (it would load as unscaled codes)."""
    if config.get("quantization_config"):
        fp8_block(config)  # any other quantisation is refused before its tensors are misread
    scaled = sorted(name for name in tensors if name.endswith(".weight_scale_inv"))
    if not scaled:
        unscaled = [name for name, tensor in tensors.items() if tensor.dtype == torch.float8_e4m3fn]
        require(not unscaled, "init_from_hf", f"{unscaled[:1]} is FP8 with no weight_scale_inv")
        return tensors
    block, out = fp8_block(config), dict(tensors)
    for scale_name in scaled:
        name = scale_name.removesuffix("_scale_inv")
        require(name in tensors and tensors[name].dtype == torch.float8_e4m3fn, "init_from_hf",
                f"{scale_name} scales no float8_e4m3fn {name}")
        out[name] = dequantize_block_fp8(out[name], out.pop(scale_name), block, name)
    unscaled = [name for name, tensor in out.items() if tensor.dtype == torch.float8_e4m3fn]
    require(not unscaled, "init_from_hf", f"{unscaled[:1]} is FP8 with no weight_scale_inv")
    return out


def stored_dtypes(tensors: dict[str, torch.Tensor], config: dict[str, Any]) -> dict[str, Any]:
    """The dtypes the hand-off writes back: the most common one and each tensor stored otherwise (an
    FP8 weight counts as the config's ``torch_dtype``, as a dequantised release is distributed)."""
    declared = str(config.get("torch_dtype") or config.get("dtype") or "bfloat16")
    rope = set(rope_buffers(tensors))

    def dtype(name: str, tensor: torch.Tensor) -> str:
        if tensor.dtype == torch.float8_e4m3fn or name.endswith("_scale_inv"):
            return declared
        return str(tensor.dtype).removeprefix("torch.")

    names = {name: dtype(name, tensor) for name, tensor in tensors.items()
             if not name.endswith("_scale_inv") and name not in rope}
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
    """Write ``recipe.init_from_hf``'s weights into ``out_dir`` as a stage-``base`` run; returns the checkpoint."""
    from codemix.pretrain.checkpoint import save_checkpoint
    from codemix.pretrain.model.gpt import build_model, position_setup
    from codemix.pretrain.parallel import initialize, shutdown

    hf_dir, out_dir = Path(recipe.init_from_hf), Path(out_dir)
    config = json.loads((hf_dir / "config.json").read_text())
    tokenizer = base_tokenizer(hf_dir)
    layout = Layout.of(recipe, hf_family(config, "init_from_hf"))
    tensors = read_hf_tensors(hf_dir)
    dtypes, mtp = stored_dtypes(tensors, config), mtp_names(tensors, config)
    state = hf_to_megatron(model_tensors(dequantize_checkpoint(tensors, config), config), layout)
    del tensors  # from here only ``state`` holds the checkpoint, and load_exactly empties it
    position = position_setup(recipe, "short")
    runtime = initialize(ParallelConfig(), seed=0, force_cpu=True)
    try:
        model = build_model(recipe, vocab_size=tokenizer["vocab_size"] if tokenizer else config["vocab_size"],
                            sequence_length=recipe.model.rope.original_context, position=position, cpu=True)
        load_exactly(model, state)  # frees each checkpoint tensor once copied, before the save
        checkpoint = save_checkpoint(out_dir, model, None, {"step": 0, "consumed_samples": 0, "tokens_seen": 0,
                                                            "loss_tokens_seen": 0, "tokens_per_source": {}}, cuda=False)
    finally:
        shutdown(runtime)
    record = {"run_id": out_dir.name, "stage": BASE_STAGE, "recipe": asdict(recipe), "init_from": None,
              "hf_dir": str(hf_dir.resolve()), "hf_config": config, "hf_dtypes": dtypes, "hf_mtp_tensors": mtp,
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


def load_exactly(model: torch.nn.Module, state: dict[str, torch.Tensor]) -> None:
    """Load ``state`` into ``model``, refusing any missing, unexpected or reshaped tensor; ``state`` is
    emptied as it is copied, so each checkpoint tensor is freed as soon as the model holds it."""
    expected = {k: v for k, v in model.state_dict().items() if not k.endswith("_extra_state")}
    missing, unexpected = sorted(set(expected) - set(state)), sorted(set(state) - set(expected))
    require(not missing and not unexpected, "init_from_hf", f"the checkpoint does not fill the model: missing "
            f"{missing[:3]}, unexpected {unexpected[:3]}")
    for name, tensor in state.items():
        require(tuple(tensor.shape) == tuple(expected[name].shape), "init_from_hf",
                f"{name} has shape {tuple(tensor.shape)}, the model {tuple(expected[name].shape)}")
    with torch.no_grad():
        for name, tensor in model.state_dict().items():
            if name in state:
                tensor.copy_(state.pop(name))


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
