"""`mix build`: crawl -> filter -> tokenizer -> dedup -> shards -> manifest.

Each stage is its own Beam pipeline that reads the previous stage's Parquet under ``OUT/work/``
and writes its own, so any stage can be inspected with pyarrow or rerun alone (``--from-stage``).
Counts come from the files each stage wrote (see ``pipelines.ledger``), never from log lines.
"""

from __future__ import annotations

import collections
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import apache_beam as beam
import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

import codemix
from dedup.repos import run_repo_dedup
from dedup.stage import run_dedup
from mixtures.blend import stage_manifest
from mixtures.spec import MixtureSpec
from mixtures.tokenizer import load_tokenizer, save_tokenizer, token_id, train_bpe
from pipelines import ledger
from pipelines.crawl import Crawl
from pipelines.filter import Filter
from pipelines.long_context import ShapeLongContext
from pipelines.options import pipeline_options, runner_name, with_default_runner
from pipelines.sft import ShapeSFT
from pipelines.shards import WriteShards, stage_entries, stats_to_json

LOG = logging.getLogger("codemix.build")
STAGES = ("crawl", "filter", "dedup", "shards")


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


def run_crawl(spec: MixtureSpec, layout: BuildLayout, beam_args: list[str]) -> None:
    ledger.remove_tree(layout.stage_dir("crawl"))
    with beam.Pipeline(options=pipeline_options(beam_args)) as pipeline:
        outcomes = pipeline | "Crawl" >> Crawl(spec.sources, spec.filters.redaction)
        _ = outcomes[ledger.DOCS] | "WriteDocuments" >> ledger.WriteDocuments(f"{layout.stage_dir('crawl')}/docs")
        _ = outcomes[ledger.DROPPED] | "WriteDropped" >> ledger.WriteDropped(f"{layout.stage_dir('crawl')}/dropped")
        _ = outcomes[ledger.QUARANTINED] | "WriteQuarantined" >> ledger.WriteQuarantined(
            f"{layout.quarantine}/crawl")
        _ = outcomes[ledger.REDACTIONS] | "WriteRedactions" >> ledger.WriteRedactions(
            f"{layout.stage_dir('crawl')}/redactions")


def run_filter(spec: MixtureSpec, layout: BuildLayout, beam_args: list[str]) -> None:
    ledger.remove_tree(layout.stage_dir("filter"))
    with beam.Pipeline(options=pipeline_options(beam_args)) as pipeline:
        documents = pipeline | "ReadCrawled" >> ledger.read_documents(layout.docs("crawl"))
        outcomes = documents | "Filter" >> Filter(spec.filters)
        _ = outcomes[ledger.DOCS] | "WriteDocuments" >> ledger.WriteDocuments(f"{layout.stage_dir('filter')}/docs")
        _ = outcomes[ledger.DROPPED] | "WriteDropped" >> ledger.WriteDropped(f"{layout.stage_dir('filter')}/dropped")
        _ = outcomes[ledger.CONTAMINATION] | "WriteContamination" >> ledger.WriteContamination(
            f"{layout.stage_dir('filter')}/contamination")


def uses_repository_dedup(spec: MixtureSpec) -> bool:
    return spec.dedup.repository_level and "long" in spec.stages


def run_shards(spec: MixtureSpec, layout: BuildLayout, beam_args: list[str]) -> list[dict]:
    """Every stage reads the file-level dedup output, except ``long``: it reads whole kept repositories
    (repository-level dedup, so file-level dedup never removes files from them) and turns each into
    dependency-ordered documents of the stage's sequence length."""
    for stage in spec.stages:
        ledger.remove_tree(f"{layout.out}/{stage}")
    ledger.remove_tree(layout.stage_dir("shards"))
    stage_sources = {stage: sorted(config.weights) for stage, config in spec.stages.items()}
    long_sources = stage_sources.pop("long", None)
    sft_sources = stage_sources.pop("sft", None)
    with beam.Pipeline(options=pipeline_options(beam_args)) as pipeline:
        deduplicated = pipeline | "ReadDeduplicated" >> ledger.read_documents(layout.docs("dedup"))
        entries = [deduplicated | "RouteToStages" >> beam.FlatMap(stage_entries, stage_sources)]
        if long_sources:
            long_input = layout.docs("repo_dedup") if uses_repository_dedup(spec) else layout.docs("dedup")
            long_entries, shaping = (
                pipeline
                | "ReadLongInput" >> ledger.read_documents(long_input)
                | "ShapeLongContext" >> ShapeLongContext(
                    sources=long_sources, tokenizer_path=layout.tokenizer,
                    sequence_length=spec.stages["long"].sequence_length, config=spec.stages["long"].repository))
            entries.append(long_entries)
            _ = shaping | "WriteLongShaping" >> beam.io.WriteToText(f"{layout.stage_dir('shards')}/shaping-long",
                                                                    file_name_suffix=".jsonl")
        sft_stats = None
        if sft_sources:
            sft_stats, sft_shaping = (
                deduplicated
                | "ShapeSFT" >> ShapeSFT(sources=sft_sources, out_dir=layout.out, tokenizer_path=layout.tokenizer,
                                         sequence_length=spec.stages["sft"].sequence_length,
                                         config=spec.stages["sft"].sft, shard_size_bytes=spec.shard_size_bytes))
            _ = sft_shaping | "WriteSFTShaping" >> beam.io.WriteToText(f"{layout.stage_dir('shards')}/shaping-sft",
                                                                       file_name_suffix=".jsonl")
        stats = (
            tuple(entries)
            | "AllEntries" >> beam.Flatten()
            | "WriteShards" >> WriteShards(out_dir=layout.out, tokenizer_path=layout.tokenizer,
                                           eod_token=spec.tokenizer.eod_token, shard_size_bytes=spec.shard_size_bytes))
        all_stats = (stats, sft_stats) if sft_stats is not None else (stats,)
        _ = (
            all_stats
            | "AllStats" >> beam.Flatten()
            | "StatsToJson" >> beam.Map(stats_to_json)
            | "WriteStats" >> beam.io.WriteToText(f"{layout.stage_dir('shards')}/stats", file_name_suffix=".jsonl")
        )
    return ledger.read_jsonl(f"{layout.stage_dir('shards')}/stats*.jsonl")


def sample_texts(pattern: str, n: int) -> list[str]:
    """The texts of the ``n`` documents with the smallest ids. Ids are hashes, so this is a
    uniform, deterministic sample, found without holding more than ids and the sample."""
    ids = []
    for path in ledger.matched_files(pattern):
        with FileSystems.open(path) as handle:
            ids += pq.read_table(handle, columns=["id"]).column("id").to_pylist()
    chosen = set(sorted(ids)[:n])
    picked = []
    for path in ledger.matched_files(pattern):
        with FileSystems.open(path) as handle:
            table = pq.read_table(handle, columns=["id", "text"])
        picked += [(i, t) for i, t in zip(table.column("id").to_pylist(), table.column("text").to_pylist())
                   if i in chosen]
    return [text for _, text in sorted(picked)]


def prepare_tokenizer(spec: MixtureSpec, layout: BuildLayout) -> dict:
    """Copy the spec's tokenizer into OUT, or train a byte-level BPE on filtered documents."""
    config = spec.tokenizer
    if config.path:
        tokenizer = load_tokenizer(config.path)
        origin = config.path
    else:
        texts = sample_texts(layout.docs("filter"), config.train_sample_documents)
        if not texts:
            raise RuntimeError("no documents survived filtering, so there is nothing to train a tokenizer on; "
                               "check the quarantine and drop counts, or give tokenizer.path")
        tokenizer = train_bpe(texts, config.vocab_size)
        origin = f"trained on {len(texts):,} filtered documents"
    save_tokenizer(tokenizer, layout.tokenizer)
    return {"path": layout.tokenizer, "origin": origin,
            "vocab_size": tokenizer.get_vocab_size(with_added_tokens=True),
            "eod_token": config.eod_token, "eod_id": token_id(tokenizer, config.eod_token)}


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


def write_json(path: str, data: dict) -> None:
    with FileSystems.create(path) as handle:
        handle.write((json.dumps(data, indent=2, sort_keys=True) + "\n").encode())


def run_build(spec: MixtureSpec, out_dir: str, beam_args: list[str], *, from_stage: str = "crawl",
              echo: Callable[[str], None] = print) -> dict:
    """Run the stages from ``from_stage`` on and write ``OUT/manifest.json``; returns the manifest."""
    layout = BuildLayout(out_dir.rstrip("/"))
    beam_args = with_default_runner(beam_args)  # every stage, dedup's passes too, on the same runner
    first = STAGES.index(from_stage)
    timings: dict[str, float] = {}

    def timed(name: str, fn: Callable[[], object]):
        start = time.monotonic()
        echo(f"[{name}] running on {runner_name(beam_args)} ...")
        result = fn()
        timings[name] = round(time.monotonic() - start, 3)
        echo(f"[{name}] done in {timings[name]:.1f}s")
        return result

    if first <= 0:
        ledger.remove_tree(layout.quarantine)
        timed("crawl", lambda: run_crawl(spec, layout, beam_args))
    if first <= 1:
        timed("filter", lambda: run_filter(spec, layout, beam_args))
    tokenizer = timed("tokenizer", lambda: prepare_tokenizer(spec, layout)) if first <= 1 else (
        tokenizer_info(spec, layout))
    if first <= 2:
        dedup = timed("dedup", lambda: run_dedup(layout.docs("filter"), layout.stage_dir("dedup"), spec.dedup,
                                                 beam_args))
        echo(f"[dedup] {dedup.exact_duplicates:,} exact and {dedup.near_duplicates:,} near duplicates "
             f"(Jaccard threshold ~{spec.dedup.threshold:.2f}), {dedup.component_passes} component passes")
        if uses_repository_dedup(spec):
            repos = timed("repo_dedup", lambda: run_repo_dedup(layout.docs("filter"), layout.stage_dir("repo_dedup"),
                                                                spec.dedup, beam_args))
            echo(f"[repo_dedup] {repos.repositories_kept:,} of {repos.repositories_in:,} repositories kept whole "
                 f"for the long stage ({repos.repository_duplicates:,} forks or mirrors removed)")
    shard_stats = timed("shards", lambda: run_shards(spec, layout, beam_args))
    counts, funnel = ledger_counts(layout)
    manifest = {
        "codemix_version": codemix.__version__,
        "spec_name": spec.name,
        "spec_hash": spec.spec_hash(),
        "runner": runner_name(beam_args),
        "inputs": [{"source": s.name, "type": s.type, "paths": s.paths, "ref": s.ref if s.type == "git" else None}
                   for s in spec.sources],
        "tokenizer": tokenizer,
        "counts": counts,
        "sources": funnel,
        "repositories": repository_counts(layout) if uses_repository_dedup(spec) else None,
        # Which benchmark item each contaminated (and dropped) document overlapped.
        "contamination": sorted(ledger.read_rows(f"{layout.stage_dir('filter')}/contamination*.parquet"),
                                key=lambda row: (row["benchmark"], row["item_id"], row["doc_id"])),
        "stages": stage_manifest(spec, shard_stats, ledger.read_jsonl(f"{layout.stage_dir('shards')}/shaping*.jsonl")),
        "timings_seconds": timings,
    }
    write_json(layout.manifest, manifest)
    return manifest


def tokenizer_info(spec: MixtureSpec, layout: BuildLayout) -> dict:
    """What a previous run's tokenizer in OUT is, for reruns that start after the filter stage."""
    tokenizer = load_tokenizer(layout.tokenizer)
    return {"path": layout.tokenizer, "origin": "from the earlier run in this output directory",
            "vocab_size": tokenizer.get_vocab_size(with_added_tokens=True),
            "eod_token": spec.tokenizer.eod_token, "eod_id": token_id(tokenizer, spec.tokenizer.eod_token)}
