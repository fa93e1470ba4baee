"""Decontamination throughput: MB of real Python per CPU second through ``ContaminationIndex.hits``.

    python -m bench.decontamination_speed [--files N] [--rounds R]

The corpus is every N-th ``.py`` file of the standard library (sorted paths, recursive), read once;
each round times ``hits`` over all of it with ``time.process_time``. Compare two trees by running
this with ``PYTHONPATH`` set to each, alternating (see bench/RESULTS.md for the rotation used).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sysconfig
import time
from pathlib import Path

from codemix.filters.decontamination import ContaminationIndex, DecontaminationConfig
from codemix.filters.short_tasks import short_task_index


def corpus(files: int) -> list[str]:
    """``files`` stdlib modules spread evenly over the sorted paths (test data included)."""
    paths = sorted(Path(sysconfig.get_path("stdlib")).rglob("*.py"))
    step = max(1, len(paths) // files)
    return [path.read_text(encoding="utf-8", errors="replace") for path in paths[::step][:files]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    texts = corpus(args.files)
    megabytes = sum(len(text.encode()) for text in texts) / 1e6
    config = DecontaminationConfig()
    indexes = {"code": ContaminationIndex.from_config(config), "short_tasks": short_task_index(config)}
    rates: dict[str, list[float]] = {name: [] for name in indexes}
    for _ in range(args.rounds):
        for name, index in indexes.items():
            start = time.process_time()
            for text in texts:
                index.hits(text)
            rates[name].append(megabytes / (time.process_time() - start))
    print(json.dumps({"files": len(texts), "megabytes": round(megabytes, 2), **{
        name: {"min": round(min(r), 3), "median": round(statistics.median(r), 3), "max": round(max(r), 3)}
        for name, r in rates.items()}}))


if __name__ == "__main__":
    main()
