"""Continued pretraining of a megatron-core MoE on a ``mix build`` output, one stage per run.

    python -m codemix.pretrain.train --model tiny --stage short --data out/demo --steps 30 --out runs/tiny-short
    python -m codemix.pretrain.train --model tiny --stage long --data out/demo --steps 10 --out runs/tiny-long \\
        --init-from runs/tiny-short/checkpoints/step_0000030
    python -m codemix.pretrain.train --model continued --init-from-hf BASE_DIR --stage short --data out/base-build ...
    torchrun --nproc-per-node 8 -m codemix.pretrain.train --model h100-1b --stage short ...   # GPUs

``main(argv)`` is the entry point ``mix train`` wraps. Everything else lives in ``pretrain.run``.
"""

from __future__ import annotations

import argparse
import logging
import sys

from codemix.config import ConfigError
from codemix.pretrain.cli_args import train_parser
from codemix.pretrain.lineage import run_of_checkpoint


def build_parser() -> argparse.ArgumentParser:
    return train_parser()


def starting_model(checkpoint: str | None) -> dict | None:
    """The architecture (ModelConfig dict) of the run ``checkpoint`` belongs to, from its run.json."""
    record = run_of_checkpoint(checkpoint)
    return record["recipe"]["model"] if record is not None else None


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv``, train, print where the final checkpoint is; 2 on a configuration error."""
    args = build_parser().parse_args(argv)
    import torch  # after parsing: --help and argument errors answer without loading torch

    from codemix.pretrain.configs import load_recipe
    from codemix.pretrain.run import TrainOptions, run

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    megatron = logging.getLogger("megatron")
    if megatron.level == logging.NOTSET:  # unless `mix` chose (quiet by default, -v for its warnings)
        megatron.setLevel(logging.WARNING)  # its dataset builder logs every index file at INFO
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
