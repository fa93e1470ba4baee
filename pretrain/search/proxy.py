"""One proxy of a mixture search: train on one blend, score held-out code.

    python -m codemix.pretrain.search.proxy PROXY_DIR [--threads N]     # by hand; a search calls ``work``

``PROXY_DIR/proxy.json`` (written by ``pretrain.search.orchestrate``) says what to train: recipe, overrides,
stage, steps, sequence length, the eval sets. ``PROXY_DIR/data/`` is the blend view: the build's
manifest with the stage's ``data_path`` replaced by this proxy's blend over the build's own shard
files, and its tokenizer. Training is ``pretrain.run.run`` and scoring ``pretrain.evaluate``, the
same code as ``mix train`` and ``mix eval``; the proxy adds nothing to either.

Writes ``PROXY_DIR/result.json`` last (atomically): a proxy with a result is finished. Its
checkpoints are deleted afterwards unless ``keep_checkpoints`` is set (the result is what the
search needs; a tiny proxy's Adam state is tens of MB, times the number of proxies).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import torch

from codemix.pretrain.checkpoint import checkpoints_dir
from codemix.pretrain.configs import load_recipe
from codemix.pretrain.evaluate import evaluate_run, parse_eval_sets
from codemix.pretrain.run import TrainOptions, run

EVAL_FIELDS = ("bits_per_byte", "loss_nats", "tokens", "bytes")


def run_proxy(proxy_dir: Path) -> dict[str, Any]:
    """Train and evaluate the proxy described in ``proxy_dir/proxy.json``; return its result record."""
    task = json.loads((proxy_dir / "proxy.json").read_text())
    started = time.monotonic()
    options = TrainOptions(recipe=load_recipe(task["model"], task["overrides"]), stage=task["stage"],
                           data_dir=str(proxy_dir / "data"), out_dir=str(proxy_dir / "run"), steps=task["steps"],
                           run_id=task["run_id"], sequence_length=task["sequence_length"],
                           log_interval=max(1, task["steps"] // 10))
    summary = run(options)
    trained = time.monotonic() - started
    sets = parse_eval_sets([f"{name}={path}" for name, path in task["eval_sets"].items()], task["include"])
    rows = evaluate_run(proxy_dir / "run", sets, step=summary.state.step)
    if not task["keep_checkpoints"]:
        shutil.rmtree(checkpoints_dir(proxy_dir / "run"), ignore_errors=True)
    return {
        "proxy": task["index"], "key": task["key"], "weights": task["weights"], "steps": summary.state.step,
        "seed": options.recipe.stage(task["stage"]).seed, "tokens_seen": summary.state.tokens_seen,
        "tokens_per_source": summary.state.tokens_per_source,
        "final_train_loss": summary.rows[-1]["loss"] if summary.rows else None,
        "first_train_loss": summary.rows[0]["loss"] if summary.rows else None,
        "initial_weights": summary.initial_weights,
        "eval": {row["eval_set"]: {k: row[k] for k in EVAL_FIELDS} for row in rows},
        "train_seconds": round(trained, 2), "seconds": round(time.monotonic() - started, 2),
    }


def start_worker(threads: int) -> None:
    """Initialise a search's worker process: its torch threads and logging, once for all its proxies."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("megatron").setLevel(logging.WARNING)
    torch.set_num_threads(threads)


def work(proxy_dir: str) -> dict[str, Any]:
    """Run one proxy in a worker process, its output (ours, megatron's, torch's) into ``log.txt``.

    Workers are reused for several proxies, which saves importing torch and megatron-core each time;
    every run sets up and tears down its own process group and is seeded from scratch (``pretrain.run``),
    so a proxy trains the same whichever worker runs it and whatever ran there before.
    """
    path = Path(proxy_dir)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(path / "log.txt", "w") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            result = run_proxy(path)
            write_json_atomically(path / "result.json", result)
            return result
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def write_json_atomically(path: Path, record: dict[str, Any]) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    os.replace(temporary, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codemix.pretrain.search.proxy", description=__doc__.splitlines()[0])
    parser.add_argument("proxy_dir")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads of this proxy")
    args = parser.parse_args(argv)
    start_worker(args.threads)
    proxy_dir = Path(args.proxy_dir)
    result = run_proxy(proxy_dir)
    write_json_atomically(proxy_dir / "result.json", result)
    print(json.dumps({k: result[k] for k in ("proxy", "eval", "seconds")}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
