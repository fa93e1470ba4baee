"""The build manifest: counts recomputed from the files every stage wrote, per-stage blends, lineage.

Counts are data (see ``pipelines.ledger``): recounting them from the stage outputs means a rerun
from a later stage, or a resumed build, reports exactly what is on disk.
"""

from __future__ import annotations

import collections
import json
from dataclasses import dataclass

import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

import codemix
from mixtures.blend import stage_manifest
from mixtures.spec import MixtureSpec
from pipelines import ledger
from pipelines.resume import committed_dir, write_atomically


@dataclass(frozen=True, slots=True)
class BuildLayout:
    """Every path a build writes, relative to its output directory."""

    out: str

    @property
    def work(self) -> str:
        return f"{self.out}/work"

    def stage_dir(self, stage: str) -> str:
        """The committed attempt of ``stage`` (``pipelines.resume``): the only files of it anything
        reads. Before the stage has committed, a folder that holds nothing, so a reader finds no file."""
        folder = f"{self.work}/{stage}"
        return committed_dir(folder) or f"{folder}/uncommitted"

    def docs(self, stage: str) -> str:
        return f"{self.stage_dir(stage)}/docs*.parquet"

    def dropped(self, stage: str) -> str:
        return f"{self.stage_dir(stage)}/dropped*.parquet"

    @property
    def quarantine(self) -> str:
        return f"{self.out}/quarantine"

    @property
    def tokenizer(self) -> str:
        return f"{self.out}/tokenizer.json"

    @property
    def manifest(self) -> str:
        return f"{self.out}/manifest.json"


def count_by_source(pattern: str, rows: list[dict] | None = None) -> collections.Counter:
    if rows is not None:
        return collections.Counter(row["source"] for row in rows)
    return ledger.count_values(pattern, "source")


def read_counts(layout: BuildLayout) -> collections.Counter:
    """Records the readers counted per source (their ``ReadCount`` records), independent of outcomes."""
    counts: collections.Counter = collections.Counter()
    for row in ledger.read_jsonl(f"{layout.stage_dir('crawl')}/reads*.jsonl"):
        counts[row["source"]] += row["records"]
    return counts


def crawl_outcome_counts(layout: BuildLayout) -> collections.Counter:
    """Outcomes of the crawl per source, as the ledgers hold them: documents + drops + quarantine."""
    quarantined = ledger.read_jsonl(f"{layout.quarantine}/*.jsonl")
    return (count_by_source(layout.docs("crawl")) + count_by_source(layout.dropped("crawl"))
            + count_by_source("", quarantined))


def unaccounted_records(layout: BuildLayout) -> dict[str, tuple[int, int]]:
    """Sources whose readers counted a different number of records than the ledgers hold outcomes
    for: ``{source: (counted, outcomes)}``. Empty when every record read is accounted for."""
    counted, outcomes = read_counts(layout), crawl_outcome_counts(layout)
    return {s: (counted.get(s, 0), outcomes.get(s, 0)) for s in sorted(set(counted) | set(outcomes))
            if counted.get(s, 0) != outcomes.get(s, 0)}


def ledger_counts(layout: BuildLayout) -> tuple[dict, dict]:
    """Totals and per-source funnel from the files every stage wrote. ``read`` is what the readers
    counted (``read_counts``); the build has checked it against the outcomes after the crawl."""
    quarantined = ledger.read_jsonl(f"{layout.quarantine}/*.jsonl")
    dropped = ledger.count_values(layout.dropped("crawl"), "reason") + ledger.count_values(
        layout.dropped("filter"), "reason")
    duplicates = ledger.count_rows(f"{layout.stage_dir('dedup')}/duplicates*.parquet")
    redactions = ledger.sum_values(f"{layout.stage_dir('crawl')}/redactions*.parquet", "type", "count")
    read = read_counts(layout)
    counts = {
        "read": sum(read.values()),
        "kept": ledger.count_rows(layout.docs("dedup")),
        "dropped": dict(sorted(dropped.items())),
        "duplicates": duplicates,
        "quarantined": len(quarantined),
        "redactions": dict(sorted(redactions.items())),
    }
    per_source = {
        "read": read,
        "crawled": count_by_source(layout.docs("crawl")),
        "dropped": count_by_source(layout.dropped("crawl")) + count_by_source(layout.dropped("filter")),
        "duplicates": count_by_source(f"{layout.stage_dir('dedup')}/duplicates*.parquet"),
        "quarantined": count_by_source("", quarantined),
        "kept": count_by_source(layout.docs("dedup")),
    }
    sources = sorted(set().union(*per_source.values()))
    funnel = {s: {k: per_source[k].get(s, 0) for k in per_source} for s in sources}
    by_reason = drops_by_source_and_reason(layout)
    for source, row in funnel.items():
        row["dropped_by_reason"] = {r: n for (s, r), n in sorted(by_reason.items()) if s == source}
    return counts, funnel


def drops_by_source_and_reason(layout: BuildLayout) -> collections.Counter:
    """(source, reason) -> drops of the crawl and the filter, reading only those two columns."""
    counts: collections.Counter = collections.Counter()
    for path in ledger.matched_files(layout.dropped("crawl")) + ledger.matched_files(layout.dropped("filter")):
        with FileSystems.open(path) as handle:
            table = pq.read_table(handle, columns=["source", "reason"])
        counts.update(zip(table.column("source").to_pylist(), table.column("reason").to_pylist()))
    return counts


def repository_counts(layout: BuildLayout) -> dict:
    """Repository-level dedup for the long stage: whole repositories kept, and forks removed."""
    removed = ledger.read_rows(f"{layout.stage_dir('repo_dedup')}/duplicates*.parquet")
    return {"documents_kept": ledger.count_rows(layout.docs("repo_dedup")), "duplicates": len(removed),
            "documents_in_duplicates": sum(row["documents"] for row in removed)}


def build_manifest(spec: MixtureSpec, layout: BuildLayout, *, runner: str, tokenizer: dict, shard_stats: list[dict],
                   repository_level: bool, timings: dict, reused: list[str]) -> dict:
    counts, funnel = ledger_counts(layout)
    return {
        "codemix_version": codemix.__version__,
        "spec_name": spec.name,
        "spec_hash": spec.spec_hash(),
        "runner": runner,
        "inputs": [{"source": s.name, "type": s.type, "paths": s.paths, "ref": s.ref if s.type == "git" else None}
                   for s in spec.sources],
        "tokenizer": tokenizer,
        "counts": counts,
        "sources": funnel,
        "repositories": repository_counts(layout) if repository_level else None,
        # Which benchmark item each contaminated (and dropped) document overlapped.
        "contamination": sorted(ledger.read_rows(f"{layout.stage_dir('filter')}/contamination*.parquet"),
                                key=lambda row: (row["benchmark"], row["item_id"], row["doc_id"])),
        "stages": stage_manifest(spec, shard_stats, ledger.read_jsonl(f"{layout.stage_dir('shards')}/shaping*.jsonl")),
        "timings_seconds": timings,
        "reused_stages": reused,
    }


def write_json(path: str, data: dict) -> None:
    write_atomically(path, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode())
