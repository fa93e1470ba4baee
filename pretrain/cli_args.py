"""The command lines of ``mix train``, ``mix eval``, ``mix handoff`` and ``mix search``, without importing torch.

``mix CMD --help`` and a mistyped argument are answered from these parsers in well under a second;
torch and megatron-core (seconds to import) load only once the arguments are known to be good.
"""

from __future__ import annotations

import argparse

from codemix.mixtures.stages import stage_kind
from codemix.pretrain.configs import STAGES

SEARCHABLE_STAGES = tuple(name for name in STAGES if stage_kind(name).searchable)


def train_parser(prog: str = "python -m codemix.pretrain.train") -> argparse.ArgumentParser:
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


def evaluate_parser(prog: str = "python -m codemix.pretrain.evaluate") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="Code perplexity as bits per byte on held-out "
                                                            "repositories, per checkpoint of a run.")
    parser.add_argument("run_dir")
    parser.add_argument("--eval-set", action="append", required=True, metavar="NAME=PATH")
    parser.add_argument("--include", action="append", default=None, help="file globs for directory eval sets (default *.py)")
    parser.add_argument("--step", type=int, help="evaluate this checkpoint only (default: every checkpoint)")
    parser.add_argument("--seq-length", type=int, help="window length (default: the run's sequence length)")
    parser.add_argument("--out", help="JSONL to append to (default RUN_DIR/eval.jsonl)")
    return parser


def handoff_parser(prog: str = "python -m codemix.pretrain.hf.handoff") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="Export a run for RL: HF safetensors and lineage.")
    parser.add_argument("run_dir")
    parser.add_argument("--out", required=True, help="bundle directory")
    parser.add_argument("--step", type=int, help="checkpoint step (default: the latest)")
    parser.add_argument("--eval-set", action="append", default=[], metavar="NAME=PATH",
                        help="evaluate the checkpoint on these sets first (see pretrain.evaluate)")
    parser.add_argument("--dtype", choices=("float32", "bfloat16", "float16"),
                        help="dtype of every exported weight (default: the imported base's dtypes, else float32)")
    parser.add_argument("--max-shard-size", metavar="SIZE",
                        help="largest safetensors shard, e.g. 5GB or 500MB (default: the base's shard size, else 5GB)")
    parser.add_argument("--error-check", choices=("auto", "always", "never"), default="auto",
                        help="measure the bundle's logit error against the trained fp32 model (auto: when two "
                             "fp32 copies of the model fit in a quarter of the available memory)")
    return parser


def search_parser(prog: str = "mix search") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="Choose a stage's mixture from small proxy runs over a build's existing shards.")
    parser.add_argument("spec", help="the mixture spec the build was made from (its stage weights are the centre)")
    parser.add_argument("--build", required=True, help="a `mix build --out` directory (its shards, as they are)")
    parser.add_argument("--proxies", type=int, required=True, help="proxy runs (proxy 0 is the spec's mixture)")
    parser.add_argument("--steps", type=int, required=True, help="optimizer steps of every proxy")
    parser.add_argument("--eval-set", action="append", required=True, metavar="NAME=PATH",
                        help="held-out code (directory, JSONL or Parquet glob); the first is the objective")
    parser.add_argument("--out", help="search directory, resumable: finished proxies are reused "
                        "(default: search/SPEC-STAGE, SPEC the spec file's name)")
    parser.add_argument("--stage", default="short", choices=SEARCHABLE_STAGES)
    parser.add_argument("--model", default="tiny", help="proxy recipe under pretrain/configs or a YAML path")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="recipe override (repeatable)")
    parser.add_argument("--seq-length", type=int, help="proxy sequence length (default: recipe's, else build's)")
    parser.add_argument("--bounds", action="append", default=[], metavar="SOURCE=LOW:HIGH",
                        help="keep a source's weight in [LOW, HIGH] (default 0:1)")
    parser.add_argument("--max-epochs", type=float, default=4.0,
                        help="at most this many passes over any source at the spec's token budget (default 4)")
    parser.add_argument("--concentration", default="1:30", metavar="LOW:HIGH",
                        help="Dirichlet concentration range around the spec's weights (log-uniform)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the mixture draws (training uses the recipe's)")
    parser.add_argument("--parallel", type=int, default=0, help="proxies at once (default: one per CPU core)")
    parser.add_argument("--fit", default="auto", choices=("auto", "linear", "quadratic"))
    parser.add_argument("--include", action="append", default=None, help="file globs for directory eval sets (*.py)")
    parser.add_argument("--keep-checkpoints", action="store_true", help="keep every proxy's checkpoint")
    parser.add_argument("--no-seed-check", dest="seed_check", action="store_false",
                        help="skip the extra proxy of the spec's mixture at the next seed (the noise floor)")
    parser.add_argument("--rl", nargs="+", action="extend", default=[], metavar="FILE",
                        help="RL results for the dashboard section's RL predictions (as `mix dash --rl`)")
    parser.add_argument("--rl-eval", nargs="+", action="extend", default=[], metavar="FILE",
                        help="the eval rows those RL results join on (as `mix dash --eval`)")
    return parser
