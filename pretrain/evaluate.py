"""Code perplexity as bits per byte on held-out repositories, per checkpoint of a run.

Design notes: docs/design/pretrain.md, "pretrain/evaluate.py".
"""

from __future__ import annotations

import fnmatch
import glob
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from codemix.config import ConfigError
from codemix.pretrain.checkpoint import checkpoint_step, checkpoints_dir, load_checkpoint, run_checkpoints
from codemix.pretrain.cli_args import evaluate_parser
from codemix.pretrain.configs import ParallelConfig, recipe_from_dict
from codemix.pretrain.lineage import read_run
from codemix.pretrain.loop import append_jsonl, batch_loss
from codemix.pretrain.metrics import bits_per_byte
from codemix.pretrain.model.gpt import PositionSetup, build_model
from codemix.pretrain.parallel import Runtime, initialize, shutdown


@dataclass(slots=True, frozen=True, kw_only=True)
class EvalResult:
    """Summed NLL over every predicted token of an eval set, and the set's size in tokens and bytes."""

    loss_nats_sum: float
    tokens: int
    bytes: int

    @property
    def loss_nats(self) -> float:
        return self.loss_nats_sum / self.tokens if self.tokens else float("nan")

    @property
    def bits_per_byte(self) -> float:
        return bits_per_byte(self.loss_nats_sum, self.bytes)


def read_eval_texts(path: str, include: Sequence[str] = ("*.py",)) -> list[str]:
    """The documents of an eval set: a directory of files, a JSONL file, or Parquet files (glob)."""
    if Path(path).is_dir():
        files = sorted(p for p in Path(path).rglob("*") if p.is_file() and any(fnmatch.fnmatch(p.name, g) for g in include))
        return [p.read_text(encoding="utf-8", errors="replace") for p in files]
    if path.endswith((".jsonl", ".json")):
        rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
        return [row.get("text", row.get("content", "")) for row in rows]
    files = sorted(glob.glob(path))
    if not files:
        raise ConfigError("--eval-set", f"{path} matches no directory, JSONL or Parquet file")
    import pyarrow.parquet as pq

    texts = []
    for file in files:
        table = pq.read_table(file)
        column = "text" if "text" in table.column_names else "content"
        texts.extend(table.column(column).to_pylist())
    return texts


def document_windows(ids: Sequence[int], eod: int, sequence_length: int) -> Iterator[tuple[list[int], list[int]]]:
    """(inputs, targets) windows of at most S tokens covering ``ids``; each id is a target exactly once."""
    extended = [eod, *ids]
    for start in range(0, len(extended) - 1, sequence_length):
        chunk = extended[start:start + sequence_length + 1]
        yield chunk[:-1], chunk[1:]


def window_batch(windows: Sequence[tuple[list[int], list[int]]], sequence_length: int, pad: int) -> dict[str, torch.Tensor]:
    """Windows right-padded to S, loss only on real targets, in the training batch layout."""
    size = len(windows)
    tokens_BS = torch.full((size, sequence_length), pad, dtype=torch.int64)
    labels_BS = torch.full((size, sequence_length), pad, dtype=torch.int64)
    loss_mask_BS = torch.zeros(size, sequence_length)
    for row, (inputs, targets) in enumerate(windows):
        tokens_BS[row, :len(inputs)] = torch.tensor(inputs)
        labels_BS[row, :len(targets)] = torch.tensor(targets)
        loss_mask_BS[row, :len(targets)] = 1.0
    position_ids_BS = torch.arange(sequence_length).expand(size, sequence_length).contiguous()
    return {"tokens": tokens_BS, "labels": labels_BS, "loss_mask": loss_mask_BS, "position_ids": position_ids_BS}


@torch.no_grad()
def evaluate_texts(model, tokenizer, texts: Sequence[str], *, sequence_length: int, runtime: Runtime,
                   batch_size: int = 8) -> EvalResult:
    """Summed NLL of every token of ``texts`` under ``model``, through the training loss (``batch_loss``)."""
    was_training = model.training
    model.eval()
    windows = [w for text in texts for w in document_windows(tokenizer.tokenize(text), tokenizer.eod, sequence_length)]
    loss_sum, tokens = 0.0, 0
    for start in range(0, len(windows), batch_size):
        batch = window_batch(windows[start:start + batch_size], sequence_length, tokenizer.pad_fill)
        batch_sum, batch_tokens = batch_loss(model, batch, runtime)
        loss_sum, tokens = loss_sum + float(batch_sum), tokens + int(batch_tokens)
    model.train(was_training)
    return EvalResult(loss_nats_sum=loss_sum, tokens=tokens, bytes=sum(len(t.encode("utf-8")) for t in texts))


def checkpoints_to_evaluate(run_dir: str | Path, step: int | None) -> list[Path]:
    """The run's checkpoints to evaluate: one step, or all of them in step order."""
    paths = [p for p in run_checkpoints(run_dir) if step is None or checkpoint_step(p) == step]
    if not paths:
        raise ConfigError("--step", f"no checkpoint{f' at step {step}' if step is not None else ''} in "
                                    f"{checkpoints_dir(run_dir)}")
    return paths


def evaluate_run(run_dir: str | Path, eval_sets: dict[str, list[str]], *, step: int | None = None,
                 sequence_length: int | None = None, out: str | Path | None = None) -> list[dict[str, Any]]:
    """Evaluate checkpoints of a run on every eval set; append and return the eval.jsonl rows."""
    run = read_run(run_dir)
    recipe = recipe_from_dict(run["recipe"])
    recipe.parallel = ParallelConfig()  # a distributed checkpoint loads into any layout: score on one device
    length = sequence_length or run["sequence_length"]
    runtime = initialize(recipe.parallel, seed=0)
    try:
        tokenizer = run_tokenizer(run)
        model = build_model(recipe, vocab_size=tokenizer.vocab_size, sequence_length=length,
                            position=PositionSetup(**run["position"]), cpu=not runtime.cuda)
        rows = []
        for path in checkpoints_to_evaluate(run_dir, step):
            state = load_checkpoint(path, model)
            for name, texts in eval_sets.items():
                result = evaluate_texts(model, tokenizer, texts, sequence_length=length, runtime=runtime)
                rows.append(eval_row(run["run_id"], state, name, result))
                if runtime.rank == 0:
                    append_jsonl(out or Path(run_dir) / "eval.jsonl", rows[-1])
        return rows
    finally:
        shutdown(runtime)


def run_tokenizer(run: dict[str, Any]):
    """The tokenizer a run trained with (its build's; an imported base's own), with its EOD and pad tokens."""
    from codemix.pretrain.data.pretraining import HFTokenizerForMegatron

    recorded = run.get("tokenizer") or {}
    path = recorded.get("path") or str(Path(run["data"]["build_dir"]) / "tokenizer.json")
    return HFTokenizerForMegatron.from_file(path, eod_token=recorded.get("eod_token"), pad_token=recorded.get("pad_token"))


def eval_row(run_id: str, state: dict[str, Any], eval_set: str, result: EvalResult) -> dict[str, Any]:
    return {"run_id": run_id, "step": state.get("step"), "tokens_seen": state.get("tokens_seen"), "eval_set": eval_set,
            "loss_nats": result.loss_nats, "bits_per_byte": result.bits_per_byte, "tokens": result.tokens,
            "bytes": result.bytes}


def parse_eval_sets(items: Sequence[str], include: Sequence[str]) -> dict[str, list[str]]:
    """``NAME=PATH`` pairs -> {name: documents}."""
    sets = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep:
            raise ConfigError("--eval-set", f"{item!r} is not NAME=PATH", "e.g. --eval-set heldout=data/heldout-repos")
        sets[name] = read_eval_texts(path, include)
        if not sets[name]:
            raise ConfigError("--eval-set", f"{path} holds no documents")
    return sets


def main(argv: list[str] | None = None) -> int:
    parser = evaluate_parser()
    args = parser.parse_args(argv)
    try:
        sets = parse_eval_sets(args.eval_set, args.include or ["*.py"])
        rows = evaluate_run(args.run_dir, sets, step=args.step, sequence_length=args.seq_length, out=args.out)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for row in rows:
        print(f"{row['run_id']} step {row['step']:>6} {row['eval_set']}: {row['loss_nats']:.4f} nats/token, "
              f"{row['bits_per_byte']:.4f} bits/byte ({row['tokens']:,} tokens, {row['bytes']:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
