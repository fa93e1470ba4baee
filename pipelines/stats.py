"""`mix stats DIR`: what a finished build dropped, per reason and source, what it redacted, and the
recorded outcomes of the agent transcripts it read, per source and format.

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


OUTCOME_FACTS = ("submitted", "tests_passed", "resolved")


def transcript_outcomes(pattern: str) -> dict[str, dict[str, dict]]:
    """``{source: {format: {"transcripts": n, "exit_status": {value: n}, fact: {"true"|"false"|"unknown": n}}}}``
    for every transcript the crawl kept, one row group at a time (a transcript's metadata holds its messages)."""
    outcomes: dict[str, dict[str, dict]] = {}
    for path in ledger.matched_files(pattern):
        with FileSystems.open(path) as handle:
            for batch in pq.ParquetFile(handle).iter_batches(batch_size=64, columns=["source", "kind", "metadata"]):
                for source, kind, metadata in zip(*(batch.column(i).to_pylist() for i in range(3))):
                    if kind == "transcript":
                        count_outcome(outcomes.setdefault(source, {}), json.loads(metadata or "{}"))
    return outcomes


def count_outcome(per_format: dict[str, dict], metadata: dict) -> None:
    entry = per_format.setdefault(metadata.get("format") or "unknown", {
        "transcripts": 0, "exit_status": collections.Counter(), **{f: collections.Counter() for f in OUTCOME_FACTS}})
    entry["transcripts"] += 1
    entry["exit_status"][metadata.get("exit_status") or "unknown"] += 1
    for fact in OUTCOME_FACTS:
        value = metadata.get(fact)
        entry[fact]["unknown" if value is None else str(bool(value)).lower()] += 1


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
    outcomes = transcript_outcomes(layout.docs("crawl"))
    sources = sorted({s for s, _ in dropped} | {s for s, _ in redactions} | set(quarantined) | set(kept)
                     | set(duplicates) | set(outcomes))
    return {source: {
        "kept": kept.get(source, 0),
        "duplicates": duplicates.get(source, 0),
        "quarantined": quarantined.get(source, 0),
        "dropped": {r: n for (s, r), n in sorted(dropped.items()) if s == source},
        "redactions": {t: n for (s, t), n in sorted(redactions.items()) if s == source},
        "contamination_hits": {b: n for (s, b), n in sorted(contamination.items()) if s == source},
        **({"transcript_outcomes": {fmt: {k: (dict(sorted(v.items())) if isinstance(v, collections.Counter) else v)
                                          for k, v in entry.items()}
                                    for fmt, entry in sorted(outcomes[source].items())}}
           if source in outcomes else {}),
    } for source in sources}


def format_stats(stats: dict) -> str:
    lines = []
    for source, info in stats.items():
        lines.append(f"{source}: kept {info['kept']:,}, duplicates {info['duplicates']:,}, "
                     f"quarantined {info['quarantined']:,}")
        for title, key in (("dropped", "dropped"), ("redacted", "redactions"), ("benchmark hits", "contamination_hits")):
            for name, n in info[key].items():
                lines.append(f"  {title:<15} {name:<28} {n:>10,}")
        for fmt, entry in info.get("transcript_outcomes", {}).items():
            facts = "  ".join(f"{fact} " + "/".join(f"{v}:{n}" for v, n in entry[fact].items())
                              for fact in ("exit_status", *OUTCOME_FACTS))
            lines.append(f"  {'outcomes':<15} {fmt:<28} {entry['transcripts']:>10,}  {facts}")
    return "\n".join(lines) or "no records found: is this a mix build output directory?"


def stats_json(stats: dict) -> str:
    return json.dumps(stats, indent=2, sort_keys=True)
