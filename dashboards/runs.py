"""What training and RL evaluation wrote: held-out eval rows, RL results and TensorBoard scalars.

* Eval JSON lines, one per (checkpoint, held-out set), as pretraining writes them:
  ``{run_id, step, tokens_seen, eval_set, loss_nats, bits_per_byte}``. ``loss_nats`` is the mean
  cross-entropy per token, so a checkpoint's perplexity is ``exp(loss_nats)``; ``bits_per_byte``
  is the tokenizer-independent form (nanochat's ``evaluate_bpb``).
* RL results, JSON lines or CSV with a header: ``{run_id, step, benchmark, metric, value}``.
* TensorBoard event files as Megatron writes them (scalar tags ``lm loss``, ``lm loss validation``,
  ``lm loss validation ppl`` ...), read with tensorboard's ``EventAccumulator``.

A file still being appended to may end in half a line; unreadable lines (and rows whose loss or
value is not a finite number, e.g. an eval over zero tokens) are skipped and counted in
``Loaded.skipped`` (per file) so the page can say so, never silently.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from dataclasses import dataclass, field

# Megatron's validation loss tag; the dashboard offers it as an eval set when no eval JSONL has one.
MEGATRON_VALIDATION_TAG = "lm loss validation"
TENSORBOARD_EVAL_SET = "tensorboard: lm loss validation"
EVENT_FILE_MARK = "tfevents"


@dataclass(slots=True, frozen=True, kw_only=True)
class EvalRow:
    run_id: str
    step: int
    eval_set: str
    loss_nats: float
    bits_per_byte: float | None = None
    tokens_seen: int | None = None

    @property
    def perplexity(self) -> float:
        return math.exp(self.loss_nats)


@dataclass(slots=True, frozen=True, kw_only=True)
class RLRow:
    run_id: str
    step: int
    benchmark: str
    metric: str
    value: float


@dataclass(slots=True, frozen=True, kw_only=True)
class Scalar:
    run_id: str
    tag: str
    step: int
    value: float


@dataclass(slots=True, kw_only=True)
class Loaded:
    """Rows read from some files, and how many lines of each file could not be read."""

    rows: list = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)

    def messages(self, what: str) -> list[str]:
        return [f"{path}: no such file yet, read as no {what} rows" for path in self.missing] + [
            f"{path}: skipped {n} unreadable {what} line(s)" for path, n in self.skipped.items()]


def _optional_float(value) -> float | None:
    number = None if value in (None, "") else float(value)
    return number if number is not None and math.isfinite(number) else None


def _finite(value) -> float:
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"not a finite number: {value!r}")
    return number


def _optional_int(value) -> int | None:
    return None if value in (None, "") else int(float(value))


def eval_row(record: dict) -> EvalRow:
    return EvalRow(run_id=str(record["run_id"]), step=int(record["step"]), eval_set=str(record["eval_set"]),
                   loss_nats=_finite(record["loss_nats"]), bits_per_byte=_optional_float(record.get("bits_per_byte")),
                   tokens_seen=_optional_int(record.get("tokens_seen")))


def rl_row(record: dict) -> RLRow:
    return RLRow(run_id=str(record["run_id"]), step=int(float(record["step"])), benchmark=str(record["benchmark"]),
                 metric=str(record["metric"]), value=_finite(record["value"]))


def _records(path: str) -> tuple[list[dict | None], str]:
    """Raw records of a JSONL or CSV file; ``None`` for a line that is not a JSON object."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    if path.endswith(".csv"):
        return list(csv.DictReader(io.StringIO(text))), "csv"
    records: list[dict | None] = []
    for line in text.split("\n"):  # not splitlines: U+2028, U+2029, U+0085 may sit inside JSON strings
        if line.strip():
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                value = None
            records.append(value if isinstance(value, dict) else None)
    return records, "jsonl"


def read_rows(paths: list[str], parse) -> Loaded:
    """Rows parsed by ``parse`` from each file; a missing file reads as empty (training may not have
    written it yet) and is reported, a bad line is skipped and counted."""
    loaded = Loaded()
    for path in paths:
        if not os.path.exists(path):
            loaded.missing.append(path)
            continue
        records, _ = _records(path)
        for record in records:
            try:
                loaded.rows.append(parse(record))
            except (KeyError, TypeError, ValueError):
                loaded.skipped[path] = loaded.skipped.get(path, 0) + 1
    return loaded


def read_eval_rows(paths: list[str]) -> Loaded:
    return read_rows(paths, eval_row)


def read_rl_rows(paths: list[str]) -> Loaded:
    return read_rows(paths, rl_row)


def event_dirs(root: str) -> list[str]:
    """``root`` and every directory under it holding TensorBoard event files."""
    found = []
    for directory, _, files in os.walk(root):
        if any(EVENT_FILE_MARK in name for name in files):
            found.append(directory)
    return sorted(found)


def run_name(root: str, directory: str) -> str:
    """A run's id: the folder holding its event files, relative to ``root`` (``root``'s own name if
    the event files are right in it), so ``--tensorboard tb/`` with ``tb/run-a/``, ``tb/run-b/`` names
    the runs ``run-a`` and ``run-b``, as the eval and RL rows do."""
    relative = os.path.relpath(directory, root)
    return os.path.basename(os.path.normpath(root)) if relative == "." else relative


def read_tensorboard(root: str, run_id: str | None = None) -> list[Scalar]:
    """Every scalar in the event files under ``root``, all steps (no reservoir sampling)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    scalars = []
    for directory in event_dirs(root):
        accumulator = EventAccumulator(directory, size_guidance={"scalars": 0})
        accumulator.Reload()
        run = run_id if run_id and directory == root else run_name(root, directory)
        for tag in accumulator.Tags()["scalars"]:
            scalars += [Scalar(run_id=run, tag=tag, step=e.step, value=e.value) for e in accumulator.Scalars(tag)]
    return scalars


def parse_tensorboard_arg(arg: str) -> tuple[str | None, str]:
    """``RUN_ID=DIR`` names the run; a bare ``DIR`` is named after the folder."""
    name, sep, path = arg.partition("=")
    return (name, path) if sep and not os.path.exists(arg) else (None, arg)


def tensorboard_eval_rows(scalars: list[Scalar]) -> list[EvalRow]:
    """Megatron's validation loss as eval rows (no bits per byte: the event files do not say the bytes)."""
    return [EvalRow(run_id=s.run_id, step=s.step, eval_set=TENSORBOARD_EVAL_SET, loss_nats=s.value)
            for s in scalars if s.tag == MEGATRON_VALIDATION_TAG and math.isfinite(s.value)]


def default_eval_set(rows: list[EvalRow]) -> str | None:
    """The held-out set the fit uses unless named: one with "code" in its name, else the first."""
    names = sorted({row.eval_set for row in rows})
    code = [n for n in names if "code" in n.lower() and n != TENSORBOARD_EVAL_SET]
    others = [n for n in names if n != TENSORBOARD_EVAL_SET]
    return (code or others or names or [None])[0]


def input_files(paths: list[str], tensorboard_dirs: list[str]) -> list[str]:
    """The files whose change means new data: the given files, and every event file under the dirs."""
    files = list(paths)
    for arg in tensorboard_dirs:
        root = parse_tensorboard_arg(arg)[1]
        for directory, _, names in os.walk(root):
            files += [os.path.join(directory, n) for n in names if EVENT_FILE_MARK in n]
    return sorted(files)
