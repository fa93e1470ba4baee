"""The build manifest: counts recomputed from the files every stage wrote, per-stage blends, lineage.

Counts are data (see ``pipelines.ledger``): recounting them from the stage outputs means a rerun
from a later stage, or a resumed build, reports exactly what is on disk.
"""

from __future__ import annotations

import collections
import dataclasses
import json
from dataclasses import dataclass

import codemix
from codemix.mixtures.blend import stage_manifest
from codemix.mixtures.spec import MixtureSpec
from codemix.pipelines import ledger
from codemix.pipelines.git_copies import repository_drops, repository_outcomes
from codemix.pipelines.readers import repository_names
from codemix.pipelines.resume import committed_dir, write_atomically
from codemix.pipelines.tally import by_first, read_tally, total

MANIFEST_SCHEMA = "codemix.manifest/1"  # what tells a codemix build's manifest.json from another tool's


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

    def held(self, stage: str) -> str:
        """The filter's drops the long stage may put back (``pipelines.filter``)."""
        return f"{self.stage_dir(stage)}/held*.parquet"

    def tally(self, stage: str) -> dict[str, collections.Counter]:
        """The stage's counts per source and reason (``pipelines.tally``), as its Beam step wrote them."""
        return read_tally(self.stage_dir(stage))

    @property
    def quarantine(self) -> str:
        return f"{self.out}/quarantine"

    @property
    def tokenizer(self) -> str:
        return f"{self.out}/tokenizer.json"

    @property
    def manifest(self) -> str:
        return f"{self.out}/manifest.json"


def quarantine_counts(layout: BuildLayout) -> collections.Counter:
    """Quarantine records per source, streamed (a crawl of broken inputs can quarantine millions)."""
    return collections.Counter(row["source"] for row in ledger.iter_jsonl(f"{layout.quarantine}/*.jsonl"))


def read_counts(layout: BuildLayout) -> collections.Counter:
    """Records the readers counted per source (their ``ReadCount`` records), independent of outcomes."""
    counts: collections.Counter = collections.Counter()
    for row in ledger.read_jsonl(f"{layout.stage_dir('crawl')}/reads*.jsonl"):
        counts[row["source"]] += row["records"]
    return counts


def crawl_outcome_counts(layout: BuildLayout) -> collections.Counter:
    """Outcomes of the crawl per source, as the ledgers hold them: documents + drops + quarantine."""
    crawl = layout.tally("crawl")
    return by_first(crawl["docs"]) + by_first(crawl["dropped"]) + quarantine_counts(layout)


def unaccounted_records(layout: BuildLayout) -> dict[str, tuple[int, int]]:
    """Sources whose readers counted a different number of records than the ledgers hold outcomes
    for: ``{source: (counted, outcomes)}``. Empty when every record read is accounted for."""
    counted, outcomes = read_counts(layout), crawl_outcome_counts(layout)
    return {s: (counted.get(s, 0), outcomes.get(s, 0)) for s in sorted(set(counted) | set(outcomes))
            if counted.get(s, 0) != outcomes.get(s, 0)}


def ledger_counts(layout: BuildLayout) -> tuple[dict, dict]:
    """Totals and per-source funnel from the files every stage wrote. ``read`` is what the readers
    counted (``read_counts``); the build has checked it against the outcomes after the crawl."""
    quarantined = quarantine_counts(layout)
    crawl, filtered, dedup = layout.tally("crawl"), layout.tally("filter"), layout.tally("dedup")
    drops = crawl["dropped"] + filtered["dropped"]
    read = read_counts(layout)
    counts = {
        "read": sum(read.values()),
        "kept": total(dedup["docs"]),
        "dropped": dict(sorted(by_second(drops).items())),
        "duplicates": total(dedup["duplicates"]),
        "quarantined": total(quarantined),
        "redactions": dict(sorted(by_second(crawl["redactions"]).items())),
    }
    per_source = {
        "read": read,
        "crawled": by_first(crawl["docs"]),
        "dropped": by_first(drops),
        "duplicates": by_first(dedup["duplicates"]),
        "quarantined": quarantined,
        "kept": by_first(dedup["docs"]),
    }
    sources = sorted(set().union(*per_source.values()))
    funnel = {s: {k: per_source[k].get(s, 0) for k in per_source} for s in sources}
    by_reason = drops_by_source_and_reason(layout)
    for source, row in funnel.items():
        row["dropped_by_reason"] = {r: n for (s, r), n in sorted(by_reason.items()) if s == source}
    return counts, funnel


def drops_by_source_and_reason(layout: BuildLayout) -> collections.Counter:
    """(source, reason) -> drops of the crawl and the filter."""
    return layout.tally("crawl")["dropped"] + layout.tally("filter")["dropped"]


def by_second(counter: collections.Counter) -> collections.Counter:
    """A (source, reason) keyed count summed per reason."""
    out: collections.Counter = collections.Counter()
    for key, n in counter.items():
        out[key[1]] += n
    return out


def repository_counts(layout: BuildLayout) -> dict:
    """Repository-level dedup for the long stage: whole repositories kept, and forks removed."""
    repos = layout.tally("repo_dedup")
    return {"documents_kept": total(repos["docs"]), "duplicates": total(repos["duplicates"]),
            "documents_in_duplicates": total(repos["documents_in_duplicates"])}


def build_manifest(spec: MixtureSpec, layout: BuildLayout, *, runner: str, tokenizer: dict, shard_stats: list[dict],
                   repository_level: bool, timings: dict, reused: list[str], cpu_seconds: dict | None = None,
                   stage_costs: dict | None = None) -> dict:
    counts, funnel = ledger_counts(layout)
    return {
        "schema": MANIFEST_SCHEMA,  # how `mix build` tells its own build from another tool's manifest.json
        "codemix_version": codemix.__version__,
        "spec_name": spec.name,
        "spec_hash": spec.spec_hash(),
        "spec": dataclasses.asdict(spec),  # every block, resolved: what `mix diff` compares
        "runner": runner,
        "inputs": [{"source": s.name, "type": s.type, "paths": s.paths, "ref": s.ref if s.type == "git" else None,
                    **({"repositories": names} if (names := repository_names(s)) else {})}
                   for s in spec.sources],
        "tokenizer": tokenizer,
        "counts": counts,
        "sources": funnel,
        "repositories": repository_counts(layout) if repository_level else None,
        # Per git repository: blobs its copy lacked, LFS pointers and submodule paths (pipelines.git_copies).
        "git_repositories": repository_outcomes(repository_drops(layout.dropped("crawl"))),
        # Which benchmark item each contaminated (and dropped) document overlapped.
        "contamination": sorted(ledger.read_rows(f"{layout.stage_dir('filter')}/contamination*.parquet"),
                                key=lambda row: (row["benchmark"], row["item_id"], row["doc_id"])),
        "stages": stage_manifest(spec, shard_stats, ledger.read_jsonl(f"{layout.stage_dir('shards')}/shaping*.jsonl")),
        "timings_seconds": timings,
        "local_cpu_seconds": cpu_seconds or {},
        # Per stage run: {language: {"bytes", "cpu_seconds"}} of its documents' own work (pipelines.costs).
        "stage_costs": stage_costs or {},
        "reused_stages": reused,
    }


def write_json(path: str, data: dict) -> None:
    write_atomically(path, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode())
