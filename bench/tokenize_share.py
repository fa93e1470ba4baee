"""Tokenize-and-write against raw ``encode_batch_fast``, and the whole build against tokenizing alone (issue 49).

    PYTHONSAFEPATH=1 PYTHONPATH=. .venv/bin/python -m bench.tokenize_share OUT [--runs 3] [--build-cpu S]

``OUT`` is a finished ``mix build`` (e.g. a ``bench.build`` codemix side's ``out``). The shards stage's CPU
(the manifest's ``local_cpu_seconds``: reading the kept documents, routing, encoding, sorting and writing
runs, merging them into Megatron shards, its pipeline's fixed cost) is set against the CPU of
``encode_batch_fast`` over the same texts (the dedup stage's kept documents, the shards stage's input)
already in memory, in batches of 1,000, in this process: with the default Rayon pool and with
``TOKENIZERS_PARALLELISM=false`` (one thread, as each of a multi-worker build's workers encodes), ``--runs``
times each, alternating. CPU is ``time.process_time`` (every thread of the process). ``--build-cpu`` (the
whole build's process-tree CPU, from ``bench.build``) adds the ratio of the whole build to tokenizing alone.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import pyarrow.parquet as pq

BATCH = 1000


def kept_texts(out: Path) -> list[str]:
    """The dedup stage's kept documents' texts: what the shards stage read."""
    from codemix.pipelines.manifest import BuildLayout

    texts = []
    for path in sorted(Path(BuildLayout(str(out)).stage_dir("dedup")).glob("docs*.parquet")):
        texts += pq.read_table(path, columns=["text"]).column("text").to_pylist()
    return texts


def encode_cpu(tokenizer_path: str, texts: list[str], parallel: bool) -> tuple[float, int]:
    """CPU seconds of encoding ``texts`` in batches, and the tokens (a fresh tokenizer each time)."""
    from tokenizers import Tokenizer

    if parallel:
        os.environ.pop("TOKENIZERS_PARALLELISM", None)
    else:
        os.environ["TOKENIZERS_PARALLELISM"] = "false"
    tokenizer = Tokenizer.from_file(tokenizer_path)
    tokenizer.encode_special_tokens = True  # file text: special tokens as plain text, as the shards stage does
    start, tokens = time.process_time(), 0
    for at in range(0, len(texts), BATCH):
        tokens += sum(len(encoding.ids) for encoding in tokenizer.encode_batch_fast(texts[at:at + BATCH]))
    return time.process_time() - start, tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--build-cpu", type=float, help="the whole build's process-tree CPU seconds")
    args = parser.parse_args()
    manifest = json.loads((args.out / "manifest.json").read_text())
    shards_cpu = manifest["local_cpu_seconds"]["shards"]
    texts = kept_texts(args.out)
    tokenizer = str(args.out / "tokenizer.json")  # the build's copy of the one it used
    runs: dict[str, list[float]] = {"default Rayon pool": [], "one thread": []}
    tokens = 0
    for _ in range(args.runs):
        for name, parallel in (("default Rayon pool", True), ("one thread", False)):
            cpu, tokens = encode_cpu(tokenizer, texts, parallel)
            runs[name].append(cpu)
    report = {"documents": len(texts), "megabytes": round(sum(len(t.encode()) for t in texts) / 1e6, 2),
              "tokens_without_eod": tokens, "shards_stage_cpu": shards_cpu, "build_stage_cpu": manifest["local_cpu_seconds"],
              "encode_cpu": {name: [round(v, 2) for v in values] for name, values in runs.items()}}
    for name, values in runs.items():
        report[f"shards / raw ({name}), min / median / max"] = [
            round(shards_cpu / v, 3) for v in (max(values), statistics.median(values), min(values))]
        if args.build_cpu:
            report[f"build / raw ({name}), median"] = round(args.build_cpu / statistics.median(values), 2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
