"""The command lines of ``mix train``, ``mix eval`` and ``mix handoff``, without importing torch.

``mix CMD --help`` and a mistyped argument are answered from these parsers in well under a second;
torch and megatron-core (seconds to import) load only once the arguments are known to be good.
"""

from __future__ import annotations

import argparse

from pretrain.configs import STAGES


def train_parser(prog: str = "python -m pretrain.train") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="Continued pretraining of a megatron-core MoE on a "
                                                            "``mix build`` output, one stage per run.")
    parser.add_argument("--model", required=True, help="recipe name under pretrain/configs (tiny, h100-1b, ...) or a YAML path")
    parser.add_argument("--stage", required=True, choices=STAGES)
    parser.add_argument("--data", required=True, help="a `mix build --out` directory (manifest.json, tokenizer.json)")
    parser.add_argument("--steps", type=int, required=True, help="optimizer steps of the run (a resumed run counts from 0)")
    parser.add_argument("--out", required=True, help="run directory: run.json, metrics.jsonl, checkpoints/")
    parser.add_argument("--run-id", help="name in logs and eval rows (default: the --out directory's name)")
    parser.add_argument("--save-interval", type=int, default=0, help="also checkpoint every N steps")
    parser.add_argument("--log-interval", type=int, default=1)
    parser.add_argument("--seq-length", type=int, help="train at this length instead of the recipe's or the manifest's")
    parser.add_argument("--init-from", help="start from this checkpoint's weights (fresh optimizer, step 0)")
    parser.add_argument("--resume-from", help="continue this checkpoint exactly (default: OUT/checkpoints/latest)")
    parser.add_argument("--peak-tflops", type=float, help="peak TFLOP/s per device for MFU (default: GPU datasheet)")
    parser.add_argument("--threads", type=int, help="torch CPU threads")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a recipe field, e.g. --set train.short.lr=1e-3 (repeatable)")
    return parser


def evaluate_parser(prog: str = "python -m pretrain.evaluate") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="Code perplexity as bits per byte on held-out "
                                                            "repositories, per checkpoint of a run.")
    parser.add_argument("run_dir")
    parser.add_argument("--eval-set", action="append", required=True, metavar="NAME=PATH")
    parser.add_argument("--include", action="append", default=None, help="file globs for directory eval sets (default *.py)")
    parser.add_argument("--step", type=int, help="evaluate this checkpoint only (default: every checkpoint)")
    parser.add_argument("--seq-length", type=int, help="window length (default: the run's sequence length)")
    parser.add_argument("--out", help="JSONL to append to (default RUN_DIR/eval.jsonl)")
    return parser


def handoff_parser(prog: str = "python -m pretrain.handoff") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="Export a run for RL: HF safetensors and lineage.")
    parser.add_argument("run_dir")
    parser.add_argument("--out", required=True, help="bundle directory")
    parser.add_argument("--step", type=int, help="checkpoint step (default: the latest)")
    parser.add_argument("--eval-set", action="append", default=[], metavar="NAME=PATH",
                        help="evaluate the checkpoint on these sets first (see pretrain.evaluate)")
    return parser
