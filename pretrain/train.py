"""Continued pretraining of a megatron-core MoE on a ``mix build`` output, one stage per run.

    python -m pretrain.train --model tiny --stage short --data out/demo --steps 30 --out runs/tiny-short
    python -m pretrain.train --model tiny --stage long --data out/demo --steps 10 --out runs/tiny-long \\
        --init-from runs/tiny-short/checkpoints/step_0000030
    python -m pretrain.train --model continued --init-from-hf BASE_DIR --stage short --data out/base-build ...
    torchrun --nproc-per-node 8 -m pretrain.train --model h100-1b --stage short ...   # GPUs

``main(argv)`` is the entry point ``mix train`` wraps. Everything else lives in ``pretrain.run``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

import torch

from codemix.config import ConfigError
from pretrain.configs import STAGES, load_recipe
from pretrain.run import TrainOptions, run


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pretrain.train", description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="recipe name under pretrain/configs (tiny, h100-1b, ...) or a YAML path")
    parser.add_argument("--stage", required=True, choices=STAGES)
    parser.add_argument("--data", required=True, help="a `mix build --out` directory (manifest.json, tokenizer.json)")
    parser.add_argument("--steps", type=int, required=True, help="optimizer steps of the run (a resumed run counts from 0)")
    parser.add_argument("--out", required=True, help="run directory: run.json, metrics.jsonl, checkpoints/")
    parser.add_argument("--run-id", help="name in logs and eval rows (default: the --out directory's name)")
    parser.add_argument("--save-interval", type=int, default=0, help="also checkpoint every N steps")
    parser.add_argument("--log-interval", type=int, default=1)
    parser.add_argument("--seq-length", type=int, help="train at this length instead of the recipe's or the manifest's")
    parser.add_argument("--init-from", help="start from this checkpoint's weights (fresh optimizer, step 0); a recipe "
                        "without a model section takes the checkpoint's architecture")
    parser.add_argument("--init-from-hf", metavar="DIR", help="start from a Hugging Face checkpoint directory: the "
                        "architecture from its config.json, the weights imported into OUT/base")
    parser.add_argument("--tokenizer", help="the model's tokenizer, checked against the build's (default: the base's "
                        "or the starting run's)")
    parser.add_argument("--resume-from", help="continue this checkpoint exactly (default: OUT/checkpoints/latest)")
    parser.add_argument("--peak-tflops", type=float, help="peak TFLOP/s per device for MFU (default: GPU datasheet)")
    parser.add_argument("--threads", type=int, help="torch CPU threads")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a recipe field, e.g. --set train.short.lr=1e-3 (repeatable)")
    return parser


def starting_model(checkpoint: str | None) -> dict | None:
    """The architecture (ModelConfig dict) of the run ``checkpoint`` belongs to, from its run.json."""
    record = Path(checkpoint).resolve().parent.parent / "run.json" if checkpoint else None
    if record is None or not record.is_file():
        return None
    return json.loads(record.read_text())["recipe"]["model"]


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv``, train, print where the final checkpoint is; 2 on a configuration error."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("megatron").setLevel(logging.WARNING)  # its dataset builder logs every index file at INFO
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        recipe = load_recipe(args.model, args.set, init_from_hf=args.init_from_hf,
                             parent_model=starting_model(args.resume_from or args.init_from))
        options = TrainOptions(
            recipe=recipe, stage=args.stage, data_dir=args.data, out_dir=args.out, tokenizer=args.tokenizer,
            steps=args.steps, run_id=args.run_id, save_interval=args.save_interval, log_interval=args.log_interval,
            sequence_length=args.seq_length, init_from=args.init_from, resume_from=args.resume_from,
            peak_tflops=args.peak_tflops)
        summary = run(options)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"run {summary.run_id}: step {summary.state.step}, {summary.state.tokens_seen:,} tokens, "
          f"checkpoint {summary.checkpoint}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
