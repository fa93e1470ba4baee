"""Repository-level dedup for the long-context stage: forks and mirrors are removed as whole repositories.

Design notes: docs/design/pipelines.md, "pipelines/dedup/repository_dedup.py".
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import apache_beam as beam
import numpy as np
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics
from apache_beam.options.pipeline_options import PipelineOptions

from codemix.dedup.components import component_labels
from codemix.dedup.config import DedupConfig
from codemix.dedup.files import PARQUET, parquet_pattern
from codemix.dedup.keeper import as_number
from codemix.dedup.minhash import band_keys, make_permutations, shingle_hashes, signature
from codemix.dedup.repos import (
    NAMESPACE,
    REPO_DUPLICATE_SCHEMA,
    REPO_SUMMARY_SCHEMA,
    RepoDedupResult,
    RepoSummary,
    _recency,
    check_conservation,
    keeper_links,
    ranked_member,
    repo_rank,
    repository_of,
    split_repo_key,
    summary_row,
    verified_bucket_edges,
)
from codemix.document import DOCUMENT_SCHEMA
from codemix.pipelines import jobs
from codemix.pipelines.dedup.component_passes import resolve_components
from codemix.pipelines.dedup.edge_files import (
    ReadEdges,
    WriteCount,
    WriteEdges,
    WriteSum,
    delete_matching,
    read_count,
    require_input,
)
from codemix.pipelines.dedup.rows import parse_metadata  # counts malformed metadata under codemix.dedup
from codemix.pipelines.ledger import write_parquet
from codemix.pipelines.progress import Progress, row_text_bytes

logger = logging.getLogger(__name__)


def file_summary(row: dict[str, Any], config: DedupConfig, permutations: tuple[np.ndarray, np.ndarray]) -> RepoSummary:
    """One file's contribution: its signature (None without tokens), size and ranking metadata."""
    text = row.get("text") or ""
    hashes = shingle_hashes(text, config.shingle_size, config.lowercase)
    metadata = parse_metadata(row)
    license_id = row.get("license") or ""
    return RepoSummary(
        sig_P=signature(hashes, permutations) if hashes.size else None,
        files=1,
        bytes=len(text.encode("utf-8", "surrogatepass")),
        licenses=Counter({license_id: 1} if license_id else {}),
        stars=as_number(metadata.get("stars")),
        forks=as_number(metadata.get("forks")),
        updated_at=_recency(metadata),
    )


def summary_bands(row: dict[str, Any], bands: int, rows: int) -> Iterator[tuple[bytes, tuple[str, bytes]]]:
    """(band key, (repo key, signature bytes)) per band; a repository without tokens is not banded."""
    if row.get("signature") is None:
        Metrics.counter(NAMESPACE, "repositories_without_tokens").inc()
        return
    sig_P = np.frombuffer(row["signature"], dtype="<u8")
    for key in band_keys(sig_P, bands, rows):
        yield key, (row["key"], row["signature"])


def route_repository(joined: tuple[str, dict[str, Iterable]]) -> Iterator[Any]:
    """A kept repository's documents go to the main output; a removed one becomes one ``duplicates`` row."""
    key, groups = joined
    keepers = list(groups["keeper"])
    if not keepers:
        yield beam.pvalue.TaggedOutput("kept_repository", key)
        yield from groups["doc"]
        return
    documents = sum(1 for _ in groups["doc"])
    if documents:  # a keeper label without documents cannot happen; never invent a row for it
        (source, repo), (keeper_source, keeper_repo) = split_repo_key(key), split_repo_key(keepers[0])
        yield beam.pvalue.TaggedOutput(
            "duplicates",
            {
                "source": source,
                "repo": repo,
                "keeper_source": keeper_source,
                "keeper_repo": keeper_repo,
                "documents": documents,
            },
        )


def split_by_repository(row: dict[str, Any]) -> Iterator[Any]:
    """Repository files keyed by repository (main output); everything else to ``passthrough``."""
    key = repository_of(row)
    if key is None:
        yield beam.pvalue.TaggedOutput("passthrough", row)
    else:
        yield key, row


# ---------------------------------------------------------------- composite transforms


class CombineRepoSummary(beam.CombineFn):
    """Per repository: element-wise min of file signatures, counts and ranking maxima; O(P) state."""

    def create_accumulator(self):
        return RepoSummary()

    def add_input(self, accumulator, summary):
        return accumulator.merge(summary)

    def merge_accumulators(self, accumulators):
        merged = RepoSummary()
        for accumulator in accumulators:
            merged.merge(accumulator)
        return merged

    def extract_output(self, accumulator):
        return accumulator


class SignFiles(beam.DoFn):
    """(repo key, one file's ``RepoSummary``) for each repository file; other documents are skipped."""

    def __init__(self, config: DedupConfig):
        self.config = config
        self.permutations = None

    def setup(self):
        # Drawn once per worker from the seed, so every worker signs with the same hash functions.
        self.permutations = make_permutations(self.config.num_perm, self.config.seed)

    def process(self, row):
        key = repository_of(row)
        if key is not None:
            yield key, file_summary(row, self.config, self.permutations)


class SummariseRepositories(beam.PTransform):
    """Document rows -> one summary row per repository (``REPO_SUMMARY_SCHEMA``)."""

    def __init__(self, config: DedupConfig):
        super().__init__()
        self.config = config

    def expand(self, docs):
        return (
            docs
            | "SignFiles" >> beam.ParDo(SignFiles(self.config))
            | "CombinePerRepository" >> beam.CombinePerKey(CombineRepoSummary())
            | "ToRows" >> beam.MapTuple(summary_row)
        )


class RepositoryEdges(beam.PTransform):
    """Summary rows -> distinct verified (u, v) repo-key pairs sharing at least one LSH band."""

    def __init__(self, config: DedupConfig):
        super().__init__()
        self.config = config

    def expand(self, summaries):
        config = self.config
        threshold = config.jaccard_threshold if config.verify else None
        return (
            summaries
            | "Band" >> beam.FlatMap(summary_bands, config.bands, config.rows)
            | "GroupBuckets" >> beam.GroupByKey()
            | "VerifiedEdges" >> beam.FlatMap(verified_bucket_edges, threshold)
            | "Distinct" >> beam.Distinct()
        )


class RepositoryKeepers(beam.PTransform):
    """(summary rows, converged star edges) -> (removed repo key, keeper repo key)."""

    def __init__(self, order: list[str]):
        super().__init__()
        self.order = order

    def expand(self, inputs):
        summaries, star_edges = inputs
        order = self.order
        labels = star_edges | "Labels" >> beam.FlatMap(component_labels) | "DistinctLabels" >> beam.Distinct()
        ranks = summaries | "Rank" >> beam.Map(lambda row: (row["key"], repo_rank(row, order)))
        return (
            {"component": labels, "rank": ranks}
            | "JoinRanks" >> beam.CoGroupByKey()
            | "ByComponent" >> beam.FlatMap(ranked_member)
            | "GroupComponents" >> beam.GroupByKey()
            | "PickKeepers" >> beam.FlatMap(keeper_links)
        )


# ---------------------------------------------------------------- the pipelines and the driver


@dataclass(slots=True, frozen=True)
class _Paths:
    output_dir: str

    def out(self, name: str) -> str:
        return FileSystems.join(self.output_dir, name)

    def work(self, *names: str) -> str:
        return FileSystems.join(self.output_dir, "_work", *names)

    def count(self, name: str) -> str:
        return self.work("counts", f"{name}.txt")


def _options(pipeline_args: list[str]) -> PipelineOptions:
    return PipelineOptions(list(pipeline_args))


def run_summaries(input_pattern: str, paths: _Paths, config: DedupConfig, pipeline_args: list[str]) -> int:
    """Pipeline 1: repository summaries and verified candidate edges under ``_work/``; returns the edge count."""
    columns = ["id", "text", "source", "kind", "repo", "license", "metadata"]
    with jobs.Pipeline(options=_options(pipeline_args)) as pipeline:
        docs = (pipeline | "ReadDocs" >> beam.io.ReadFromParquet(input_pattern, columns=columns)
                | "CountRead" >> beam.ParDo(Progress("read", row_text_bytes)))
        summaries = docs | "Summarise" >> SummariseRepositories(config)
        summaries | "WriteSummaries" >> write_parquet(
            paths.work("repos", "summaries"), REPO_SUMMARY_SCHEMA, file_name_suffix=PARQUET
        )
        edges = summaries | "CandidateEdges" >> RepositoryEdges(config)
        edges | "WriteEdges" >> WriteEdges(paths.work("repos", "candidates"))
        summaries | "CountRepositories" >> WriteCount(paths.count("repositories_in"))
        edges | "CountEdges" >> WriteCount(paths.count("candidate_edges"))
    return read_count(paths.count("candidate_edges"))


def run_final(
    input_pattern: str, star_edges: str | None, paths: _Paths, config: DedupConfig, pipeline_args: list[str]
) -> None:
    """Pipeline 3: keeper per component, then every document routed by its repository's fate."""
    with jobs.Pipeline(options=_options(pipeline_args)) as pipeline:
        docs = pipeline | "ReadDocs" >> beam.io.ReadFromParquet(input_pattern)
        if star_edges:
            summaries = pipeline | "ReadSummaries" >> beam.io.ReadFromParquet(
                parquet_pattern(paths.work("repos", "summaries")),
                columns=["key", "license", "stars", "forks", "updated_at"],
            )
            stars = pipeline | "ReadStars" >> ReadEdges(star_edges)
            removed = (summaries, stars) | "Keepers" >> RepositoryKeepers(config.keeper_order)
        else:
            removed = pipeline | "NoKeepers" >> beam.Create([])
        split = docs | "SplitByRepository" >> beam.FlatMap(split_by_repository).with_outputs(
            "passthrough", main="files"
        )
        routed = (
            {"doc": split.files, "keeper": removed}
            | "JoinKeepers" >> beam.CoGroupByKey()
            | "Route" >> beam.FlatMap(route_repository).with_outputs("duplicates", "kept_repository", main="kept")
        )
        kept = (routed.kept, split.passthrough) | "AllKept" >> beam.Flatten()
        kept | "WriteDocs" >> write_parquet(paths.out("docs"), DOCUMENT_SCHEMA, file_name_suffix=PARQUET)
        routed.duplicates | "WriteDuplicates" >> write_parquet(
            paths.out("duplicates"), REPO_DUPLICATE_SCHEMA, file_name_suffix=PARQUET
        )
        docs | "CountDocs" >> WriteCount(paths.count("documents_in"))
        kept | "CountKept" >> WriteCount(paths.count("documents_kept"))
        routed.kept_repository | "CountKeptRepositories" >> WriteCount(paths.count("repositories_kept"))
        routed.duplicates | "CountDuplicates" >> WriteCount(paths.count("repository_duplicates"))
        (
            routed.duplicates
            | "RemovedDocuments" >> beam.Map(lambda row: row["documents"])
            | "SumRemoved" >> WriteSum(paths.count("documents_removed"))
        )


def clear_previous_outputs(input_pattern: str, paths: _Paths) -> None:
    """Delete this stage's outputs from an earlier run, refusing if that would delete the input."""
    require_input(input_pattern)
    ours = [parquet_pattern(paths.out("docs")), parquet_pattern(paths.out("duplicates")), paths.work("**")]
    inputs = {meta.path for meta in FileSystems.match([input_pattern])[0].metadata_list}
    clashing = inputs & {meta.path for result in FileSystems.match(ours) for meta in result.metadata_list}
    if clashing:
        raise ValueError(
            f"repository dedup output_dir {paths.output_dir} would overwrite its own input ({min(clashing)}); "
            "write to a different directory"
        )
    delete_matching(ours)


def run_repo_dedup(
    input_pattern: str, output_dir: str, config: DedupConfig, pipeline_args: list[str]
) -> RepoDedupResult:
    """Remove forks and mirrors as whole repositories; see the module docstring for outputs and rules.

    Whether to run it at all is the caller's choice (``config.repository_level``); ``exact`` and
    ``near`` do not apply, since identical repositories are near duplicates of Jaccard 1. Raises
    ``FileNotFoundError`` if the pattern matches nothing, ``RuntimeError`` if the components do not
    converge within ``config.max_passes`` or if documents went missing.
    """
    config.validate("dedup")
    paths = _Paths(output_dir)
    clear_previous_outputs(input_pattern, paths)
    threshold = f"estimated Jaccard >= {config.jaccard_threshold}" if config.verify else "unverified LSH"
    logger.info("repository dedup: %d bands x %d rows, %s", config.bands, config.rows, threshold)
    star_edges, passes = None, 0
    if run_summaries(input_pattern, paths, config, pipeline_args) > 0:
        star_edges, passes = resolve_components(
            parquet_pattern(paths.work("repos", "candidates")), paths.work("components"), config, pipeline_args
        )
    run_final(input_pattern, star_edges, paths, config, pipeline_args)
    result = RepoDedupResult(
        repositories_in=read_count(paths.count("repositories_in")),
        repositories_kept=read_count(paths.count("repositories_kept")),
        repository_duplicates=read_count(paths.count("repository_duplicates")),
        documents_kept=read_count(paths.count("documents_kept")),
        component_passes=passes,
        documents_in=read_count(paths.count("documents_in")),
        documents_removed=read_count(paths.count("documents_removed")),
    )
    check_conservation(result)
    logger.info("repository dedup: %s", result)
    return result
