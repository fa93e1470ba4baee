"""The build manifest: counts recomputed from the files every stage wrote, per-stage blends, lineage.

Counts are data (see ``pipelines.ledger``): recounting them from the stage outputs means a rerun
from a later stage, or a resumed build, reports exactly what is on disk.
"""

from __future__ import annotations

import collections
import json
from dataclasses import dataclass

import codemix
from mixtures.blend import stage_manifest
from mixtures.spec import MixtureSpec
from pipelines import ledger
from pipelines.resume import write_atomically


@dataclass(frozen=True, slots=True)
class BuildLayout:
    """Every path a build writes, relative to its output directory."""

    out: str

    @property
    def work(self) -> str:
        return f"{self.out}/work"

    def stage_dir(self, stage: str) -> str:
        return f"{self.work}/{stage}"

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


def ledger_counts(layout: BuildLayout) -> tuple[dict, dict]:
    """Totals and per-source funnel from the files every stage wrote."""
    quarantined = ledger.read_jsonl(f"{layout.quarantine}/*.jsonl")
    dropped = ledger.count_values(layout.dropped("crawl"), "reason") + ledger.count_values(
        layout.dropped("filter"), "reason")
    crawled = ledger.count_rows(layout.docs("crawl"))
    crawl_dropped = sum(ledger.count_values(layout.dropped("crawl"), "reason").values())
    duplicates = ledger.count_rows(f"{layout.stage_dir('dedup')}/duplicates*.parquet")
    redactions = ledger.sum_values(f"{layout.stage_dir('crawl')}/redactions*.parquet", "type", "count")
    counts = {
        "read": crawled + crawl_dropped + len(quarantined),
        "kept": ledger.count_rows(layout.docs("dedup")),
        "dropped": dict(sorted(dropped.items())),
        "duplicates": duplicates,
        "quarantined": len(quarantined),
        "redactions": dict(sorted(redactions.items())),
    }
    per_source = {
        "crawled": count_by_source(layout.docs("crawl")),
        "dropped": count_by_source(layout.dropped("crawl")) + count_by_source(layout.dropped("filter")),
        "duplicates": count_by_source(f"{layout.stage_dir('dedup')}/duplicates*.parquet"),
        "quarantined": count_by_source("", quarantined),
        "kept": count_by_source(layout.docs("dedup")),
    }
    sources = sorted(set().union(*per_source.values()))
    funnel = {s: {k: per_source[k].get(s, 0) for k in per_source} for s in sources}
    return counts, funnel


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
