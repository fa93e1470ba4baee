"""`mix stats DIR`: what a finished build dropped, per reason and source, and what it redacted.

Everything is recounted from the files the stages wrote, so the numbers can be trusted even for a
build whose manifest was lost or that was rerun from a later stage.
"""

from __future__ import annotations

import collections
import json

import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

from pipelines import ledger
from pipelines.manifest import BuildLayout


def pair_counts(pattern: str, first: str, second: str, weight: str | None = None) -> collections.Counter:
    """Rows (or the sum of ``weight``) per (first, second) value pair across Parquet files."""
    counts: collections.Counter = collections.Counter()
    for path in ledger.matched_files(pattern):
        with FileSystems.open(path) as handle:
            table = pq.read_table(handle, columns=[first, second] + ([weight] if weight else []))
        weights = table.column(weight).to_pylist() if weight else [1] * table.num_rows
        for a, b, n in zip(table.column(first).to_pylist(), table.column(second).to_pylist(), weights):
            counts[(a, b)] += n
    return counts


def build_stats(out_dir: str) -> dict:
    """Drops per source and reason, redactions per source and type, duplicates and quarantine per source."""
    layout = BuildLayout(out_dir.rstrip("/"))
    dropped = pair_counts(layout.dropped("crawl"), "source", "reason") + pair_counts(
        layout.dropped("filter"), "source", "reason")
    redactions = pair_counts(f"{layout.stage_dir('crawl')}/redactions*.parquet", "source", "type", "count")
    contamination = pair_counts(f"{layout.stage_dir('filter')}/contamination*.parquet", "source", "benchmark")
    quarantined = collections.Counter(row["source"] for row in ledger.read_jsonl(f"{layout.quarantine}/*.jsonl"))
    duplicates = ledger.count_values(f"{layout.stage_dir('dedup')}/duplicates*.parquet", "source")
    kept = ledger.count_values(layout.docs("dedup"), "source")
    sources = sorted({s for s, _ in dropped} | {s for s, _ in redactions} | set(quarantined) | set(kept)
                     | set(duplicates))
    return {source: {
        "kept": kept.get(source, 0),
        "duplicates": duplicates.get(source, 0),
        "quarantined": quarantined.get(source, 0),
        "dropped": {r: n for (s, r), n in sorted(dropped.items()) if s == source},
        "redactions": {t: n for (s, t), n in sorted(redactions.items()) if s == source},
        "contamination_hits": {b: n for (s, b), n in sorted(contamination.items()) if s == source},
    } for source in sources}


def format_stats(stats: dict) -> str:
    lines = []
    for source, info in stats.items():
        lines.append(f"{source}: kept {info['kept']:,}, duplicates {info['duplicates']:,}, "
                     f"quarantined {info['quarantined']:,}")
        for title, key in (("dropped", "dropped"), ("redacted", "redactions"), ("benchmark hits", "contamination_hits")):
            for name, n in info[key].items():
                lines.append(f"  {title:<15} {name:<28} {n:>10,}")
    return "\n".join(lines) or "no records found: is this a mix build output directory?"


def stats_json(stats: dict) -> str:
    return json.dumps(stats, indent=2, sort_keys=True)
