"""Runs on disk and how they descend from one another: the one owner of ``RUN/run.json``.

A run directory holds ``run.json`` (what the run is) and ``checkpoints/step_N/``; a checkpoint names its
run by where it lies, and a run names the checkpoint it started from (``init_from``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from codemix.pretrain.checkpoint import run_dir_of

RUN_RECORD = "run.json"


def has_run(run_dir: str | Path) -> bool:
    return (Path(run_dir) / RUN_RECORD).is_file()


def read_run(run_dir: str | Path) -> dict[str, Any]:
    return json.loads((Path(run_dir) / RUN_RECORD).read_text())


def write_run(run_dir: str | Path, record: dict[str, Any]) -> Path:
    path = Path(run_dir) / RUN_RECORD
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2, default=str))
    return path


def run_of_checkpoint(checkpoint: str | Path | None) -> dict[str, Any] | None:
    """The record of the run ``checkpoint`` belongs to; None for no checkpoint or one outside a run."""
    if not checkpoint or not has_run(run_dir_of(checkpoint)):
        return None
    return read_run(run_dir_of(checkpoint))


def run_chain(run_dir: str | Path) -> list[Path]:
    """This run and every run it was initialised from, earliest first."""
    chain: list[Path] = []
    current: Path | None = Path(run_dir)
    while current is not None:
        chain.append(current)
        start = read_run(current).get("init_from")
        current = run_dir_of(start) if start else None
    return chain[::-1]
