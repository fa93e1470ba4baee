"""`mix quality sample`: a stratified sample of a build's documents, as JSONL for rating.

Strata are (source, language). ``allocate`` gives each stratum a share of ``n`` proportional to its
size, at least one document each while ``n`` allows (largest remainders); which documents is drawn
with ``random.Random(seed)`` from each stratum's positions, then read in one streaming pass.
"""

from __future__ import annotations

import collections
import json
import random

import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

from codemix.document import Document
from codemix.pipelines import ledger
from codemix.pipelines.manifest import BuildLayout
from codemix.pipelines.stats import require_build

Stratum = tuple[str, str]  # (source, language)


def allocate(counts: dict[Stratum, int], n: int) -> dict[Stratum, int]:
    """Documents to draw per stratum: proportional, at least one per stratum when ``n`` reaches the
    number of strata, never more than a stratum holds, summing to ``min(n, total)``."""
    total = sum(counts.values())
    n = min(n, total)
    keys = sorted(k for k, c in counts.items() if c > 0)
    floor = 1 if n >= len(keys) else 0
    quota = {k: min(counts[k], max(floor, int(n * counts[k] / total))) for k in keys}
    remainders = sorted(keys, key=lambda k: (-(n * counts[k] / total - int(n * counts[k] / total)), k))
    while sum(quota.values()) < n:
        for key in remainders:
            if sum(quota.values()) < n and quota[key] < counts[key]:
                quota[key] += 1
    while sum(quota.values()) > n:  # the floor of one overshot: take back from the largest quotas
        quota[max(keys, key=lambda k: (quota[k], k))] -= 1
    return quota


def stratum_counts(pattern: str) -> collections.Counter:
    counts: collections.Counter = collections.Counter()
    for path in ledger.matched_files(pattern):
        with FileSystems.open(path) as handle:
            table = pq.read_table(handle, columns=["source", "language"])
        counts.update(zip(table.column("source").to_pylist(), table.column("language").to_pylist()))
    return counts


def sample_rows(pattern: str, n: int, seed: int) -> list[dict]:
    """``{"id", "source", "language", "repo", "path", "text"}`` for the drawn documents, in file order."""
    counts = stratum_counts(pattern)
    rng = random.Random(seed)
    chosen = {key: set(rng.sample(range(counts[key]), quota)) for key, quota in sorted(allocate(counts, n).items())}
    seen: collections.Counter = collections.Counter()
    rows = []
    for path in ledger.matched_files(pattern):
        with FileSystems.open(path) as handle:
            parquet = pq.ParquetFile(handle)
            for group in range(parquet.num_row_groups):
                for row in parquet.read_row_group(group).to_pylist():
                    key = (row["source"], row["language"])
                    if seen[key] in chosen.get(key, ()):
                        doc = Document.from_row(row)
                        rows.append({"id": doc.id, "source": doc.source, "language": doc.language, "repo": doc.repo,
                                     "path": doc.path, "text": doc.text})
                    seen[key] += 1
    return rows


def write_sample(out_dir: str, destination: str, n: int, seed: int, stage: str = "filter") -> collections.Counter:
    """Write the sample of ``stage``'s documents to ``destination`` (JSONL); returns documents per stratum."""
    layout = BuildLayout(out_dir.rstrip("/"))
    require_build(layout)
    rows = sample_rows(layout.docs(stage), n, seed)
    with open(destination, "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    return collections.Counter((row["source"], row["language"]) for row in rows)
