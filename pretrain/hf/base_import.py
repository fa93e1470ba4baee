"""Start continued pretraining from a Hugging Face MoE checkpoint: its config, weights and tokenizer.

    python -m codemix.pretrain.hf.base_import HF_DIR --out BASE [--model continued] [--set a.b=value]

``HF_DIR`` is a checkpoint directory as ``save_pretrained`` writes it (``config.json``,
``model.safetensors`` or ``model-*-of-*.safetensors`` with their index, and the tokenizer:
``tokenizer.json``, or Kimi's ``tiktoken.model`` + ``tokenizer_config.json``). ``BASE`` becomes a
run directory of stage ``base``:

    run.json                     the recipe with the model derived from config.json, the source
                                 directory and its tokenizer (path, fingerprint, vocabulary size)
    checkpoints/step_0000000/    the weights as a megatron-core distributed checkpoint

so every stage starts from it with ``--init-from BASE/checkpoints/step_0000000``, on any parallel
layout, and the hand-off's lineage reaches back to the base. ``mix train --init-from-hf HF_DIR``
does this itself, into ``OUT/base``, before it trains.

The import runs in one CPU process and holds the checkpoint in memory twice (the Hugging Face
tensors and the fp32 model): fine for the bases one node trains, not for a 1T-parameter one.
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


def read_hf_tensors(hf_dir: str | Path) -> dict[str, torch.Tensor]:
    """Every tensor of a checkpoint directory: ``model.safetensors``, or the shards its index names."""
    from safetensors.torch import load_file

    root = Path(hf_dir)
    index = root / "model.safetensors.index.json"
    if index.is_file():
        files = sorted(set(json.loads(index.read_text())["weight_map"].values()))
    else:
        files = ["model.safetensors"]
    missing = [name for name in files if not (root / name).is_file()]
    require(not missing, "init_from_hf", f"{root} lacks {', '.join(missing)}", "give a directory save_pretrained wrote")
    tensors: dict[str, torch.Tensor] = {}
    for name in files:
        tensors |= load_file(str(root / name))
    return tensors


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
    state = hf_to_megatron(model_tensors(read_hf_tensors(hf_dir), config), layout)
    position = position_setup(recipe, "short")
    runtime = initialize(ParallelConfig(), seed=0, force_cpu=True)
    try:
        model = build_model(recipe, vocab_size=tokenizer["vocab_size"] if tokenizer else config["vocab_size"],
                            sequence_length=recipe.model.rope.original_context, position=position, cpu=True)
        load_exactly(model, state)
        checkpoint = save_checkpoint(out_dir, model, None, {"step": 0, "consumed_samples": 0, "tokens_seen": 0,
                                                            "loss_tokens_seen": 0, "tokens_per_source": {}}, cuda=False)
    finally:
        shutdown(runtime)
    record = {"run_id": out_dir.name, "stage": BASE_STAGE, "recipe": asdict(recipe), "init_from": None,
              "hf_dir": str(hf_dir.resolve()), "hf_config": config, "tokenizer": tokenizer,
              "position": asdict(position), "sequence_length": recipe.model.rope.original_context}
    write_run(out_dir, record)
    return checkpoint


def model_tensors(tensors: dict[str, torch.Tensor], config: dict[str, Any]) -> dict[str, torch.Tensor]:
    """The tensors that are the model: without the multi-token-prediction layers DeepSeek-V3 appends
    after its last layer (not trained or exported here) and stored RoPE frequency buffers. FP8 block-
    quantised weights (``weight_scale_inv``, DeepSeek-V3's and Kimi's release format) are refused."""
    scaled = [name for name in tensors if name.endswith("weight_scale_inv")]
    if scaled:
        raise ConfigError("init_from_hf", f"the checkpoint holds FP8-quantised weights ({scaled[0]} ...)",
                          "dequantise it to BF16 first (DeepSeek's fp8_cast_bf16.py)")
    layers = config["num_hidden_layers"]
    extra = re.compile(r"^model\.layers\.(\d+)\.")
    return {name: tensor for name, tensor in tensors.items()
            if not name.endswith("rotary_emb.inv_freq")
            and not ((match := extra.match(name)) and int(match.group(1)) >= layers)}


def load_exactly(model: torch.nn.Module, state: dict[str, torch.Tensor]) -> None:
    """Load ``state`` into ``model``, refusing any missing, unexpected or reshaped tensor."""
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
                tensor.copy_(state[name])


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
