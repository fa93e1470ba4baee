"""The dedup stage: exact, then MinHash-LSH near-duplicate removal, as a sequence of Beam pipelines.

Design notes: docs/design/pipelines.md, "pipelines/dedup/deduplicate.py".
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions

from codemix.dedup.components import component_labels
from codemix.dedup.config import SIDE_INPUT, DedupConfig, resolve_join
from codemix.dedup.files import PARQUET, parquet_pattern
from codemix.dedup.index import index_row, index_schema
from codemix.dedup.stage import (
    DUPLICATE_SCHEMA,
    SIGNATURE_SCHEMA,
    DedupResult,
    exact_duplicate_rows,
    near_duplicate_rows,
    point_to_survivor,
    ranked_member,
    signature_row,
    text_digest,
)
from codemix.document import DOCUMENT_SCHEMA
from codemix.pipelines import jobs
from codemix.pipelines.costs import PerDocument
from codemix.pipelines.dedup.candidate_edges import CandidateEdges
from codemix.pipelines.dedup.component_passes import ComponentPass, pass_dir, resolve_components
from codemix.pipelines.dedup.edge_files import (
    CountInMetrics,
    ReadEdges,
    WriteCounts,
    WriteEdges,
    counts_in_metrics,
    delete_matching,
    matching_paths,
    read_counts,
    require_input,
    write_metric_counts,
)
from codemix.pipelines.dedup.id_joins import DropRowsWithIds, KeepListed, keyed_spill
from codemix.pipelines.dedup.local_final import final_runs_locally, run_final_locally
from codemix.pipelines.dedup.previous_signatures import ReadPreviousSignatures, check_previous_indexes
from codemix.pipelines.dedup.rows import RANK_COLUMNS, location_of, rank_of_row
from codemix.pipelines.ledger import WriteRows, write_parquet
from codemix.pipelines.options import is_local_path, runner_name, shares_local_disk
from codemix.pipelines.progress import Progress, row_text_bytes
from codemix.pipelines.spill import CoGroup, distinct, flatten, grouping

logger = logging.getLogger(__name__)


def copy_summary(row: dict[str, Any], order: list[str]) -> tuple[tuple, str, str, str]:
    """What the exact step needs of a copy besides its text: (rank, id, source, location)."""
    return rank_of_row(row, order), row["id"], row.get("source") or "", location_of(row)


def rank_summary(row: dict[str, Any], order: list[str]) -> tuple[tuple, str, str]:
    """What picking a component's keeper needs of a member: (rank, source, location)."""
    return rank_of_row(row, order), row.get("source") or "", location_of(row)


# ---------------------------------------------------------------- composite transforms


class ExactDedup(beam.PTransform):
    """(docs, a second read of the same docs) -> (kept best-ranked copy per text, duplicate rows for the other copies).

    Copies are found within a dedup scope (``dedup.scope``): one per document kind's scope, or one for all
    with ``across_kinds``.

    Only a digest and a summary of each copy are grouped; the kept copies are the second read less
    the duplicates' ids, so the first read never waits. With ``join`` "side_input" no text crosses
    a shuffle; with "keyed_join" the second read does, keyed by id, and no worker holds the ids.
    """

    def __init__(self, order: list[str], join: str, spill_dir: str | None = None, across_kinds: bool = False):
        super().__init__()
        self.order, self.join, self.spill_dir, self.across_kinds = order, join, spill_dir, across_kinds

    def expand(self, inputs):
        docs, reread = inputs
        order, across_kinds = self.order, self.across_kinds
        duplicates = (
            docs
            | "Summarise" >> beam.Map(PerDocument(lambda row: (text_digest(row, across_kinds), copy_summary(row, order)),
                                                  counts_input=True, returns=True))
            | "GroupCopies" >> grouping(keyed_spill(self.join, self.spill_dir), "copies")
            | "LabelCopies" >> beam.FlatMap(exact_duplicate_rows)
        )
        removed = duplicates | "DuplicateIds" >> beam.Map(lambda row: row["doc_id"])
        spill = FileSystems.join(self.spill_dir, "keep-best-copies") if self.spill_dir else None
        return (reread, removed) | "KeepBestCopies" >> DropRowsWithIds(self.join, spill), duplicates


class NearDuplicateRows(beam.PTransform):
    """(docs, converged star edges) -> a duplicate row for every new document that is not its
    component's keeper (see ``near_duplicate_rows``). Only the graph's nodes meet their components:
    picked by a side input of their ids, or by ``JoinRanks`` itself with a keyed join."""

    def __init__(self, order: list[str], join: str, spill_dir: str | None = None):
        super().__init__()
        self.order, self.join, self.spill_dir = order, join, spill_dir

    def expand(self, inputs):
        docs, star_edges = inputs
        order, spill = self.order, keyed_spill(self.join, self.spill_dir)
        labels = star_edges | "Labels" >> beam.FlatMap(component_labels) | "DistinctLabels" >> distinct(spill, "labels")
        ranks = docs | "Rank" >> beam.Map(lambda row: (row["id"], rank_summary(row, order)))
        if self.join == SIDE_INPUT:
            # Rank only the graph's nodes. A keyed join would shuffle every rank to find those, which
            # JoinRanks does anyway: a document without a component label has no member there.
            ranks = (ranks, labels | "Nodes" >> beam.Keys()) | "OnlyNodes" >> KeepListed(SIDE_INPUT)
        return (
            {"component": labels, "rank": ranks}
            | "JoinRanks" >> CoGroup(spill, "join-ranks")
            | "ByComponent" >> beam.FlatMap(ranked_member)
            | "GroupComponents" >> grouping(spill, "components")
            | "PickKeepers" >> beam.FlatMap(near_duplicate_rows)
        )


class ExactDuplicateRows(beam.PTransform):
    """Pipeline 1's exact-duplicate rows, re-pointed at the final survivor when their keeper was
    near-deduped; with ``spill_dir``, joined to the survivors through run files there."""

    def __init__(self, paths: _Paths, enabled: bool, near_labels, spill_dir: str | None = None):
        super().__init__()
        self.paths, self.enabled, self.near_labels, self.spill_dir = paths, enabled, near_labels, spill_dir

    def expand(self, pbegin):
        if not self.enabled:
            return pbegin | "None" >> beam.Create([])
        rows = pbegin | "Read" >> beam.io.ReadFromParquet(parquet_pattern(self.paths.work("exact", "duplicates")))
        return (
            {
                "row": rows | "KeyByKeeper" >> beam.Map(lambda row: (row["keeper_id"], row)),
                "near_keeper": self.near_labels,
            }
            | "JoinNearKeepers" >> CoGroup(self.spill_dir, "near-keepers")
            | "PointToSurvivor" >> beam.FlatMap(point_to_survivor)
        )


class NearEdges(beam.PTransform):
    """{"docs": exact keepers, "payload_docs": another read} -> ``CandidateEdges``' outputs; writes
    edges, signatures and, with ``first_pass``, component pass 1."""

    def __init__(self, paths: _Paths, config: DedupConfig, join: str, first_pass: bool = True):
        super().__init__()
        self.paths, self.config, self.join, self.first_pass = paths, config, join, first_pass

    def expand(self, inputs):
        paths, config = self.paths, self.config
        inputs = dict(inputs)
        if config.previous_indexes:
            inputs["previous"] = inputs["docs"].pipeline | "ReadPrevious" >> ReadPreviousSignatures(
                config.previous_indexes, config.num_perm, config.across_kinds
            )
        spill_dir = paths.shuffle if config.shuffle_on_disk else None
        near = inputs | "CandidateEdges" >> CandidateEdges(config, config.max_pairs_per_bucket, spill_dir, self.join)
        near["edges"] | "WriteEdges" >> WriteEdges(paths.work("near", "edges"))
        near["signatures"] | "WriteSignatures" >> WriteRows(paths.signatures, SIGNATURE_SCHEMA, signature_row)
        _ = near["signatures"] | "CountSigned" >> beam.ParDo(Progress("signed"))
        if self.first_pass:
            first_pass = ComponentPass(paths.first_pass, config.rounds_per_pass, keyed_spill(self.join, spill_dir))
            near["edges"] | "FirstComponentPass" >> first_pass
        return near


# ---------------------------------------------------------------- the pipelines and the driver


@dataclass(slots=True, frozen=True)
class _Paths:
    """Where one run reads and writes; everything intermediate lives under ``work``."""

    output_dir: str

    def out(self, *names: str) -> str:
        return FileSystems.join(self.output_dir, *names)

    def work(self, *names: str) -> str:
        return FileSystems.join(self.output_dir, "_work", *names)

    def counts(self, pipeline: str) -> str:
        """The JSON object of counts one pipeline wrote (``files.WriteCounts``)."""
        return self.work("counts", f"{pipeline}.json")

    @property
    def index(self) -> str:
        """Prefix of the signature index shards: ``output_dir/index/signatures-*.parquet``."""
        return self.out("index", "signatures")

    @property
    def signatures(self) -> str:
        return self.work("near", "signatures")

    @property
    def shuffle(self) -> str:
        """Run files of the groupings ``pipelines.spill`` does on disk; deleted after the edges pipeline."""
        return self.work("shuffle")

    @property
    def components(self) -> str:
        return self.work("components")

    @property
    def first_pass(self) -> str:
        return pass_dir(self.components, 1)


def _options(pipeline_args: list[str]) -> PipelineOptions:
    return PipelineOptions(list(pipeline_args))


def first_pass_fused(paths: _Paths, pipeline_args: list[str]) -> bool:
    """Whether component pass 1 runs in the edges pipeline: not with a local runner and a local folder, where
    ``resolve_components`` runs it in this process from the edges file (``component_pass_locally``, up to
    ``LOCAL_EDGES`` edges): in the pipeline its star rounds, edge and violation sinks were ~22 fused stages, a
    bundle processor and a bundle per worker apiece (bench/RESULTS.md, issue 49, round 18), for a few
    thousand edges."""
    return not (is_local_path(paths.first_pass) and shares_local_disk(pipeline_args))


def run_edges(input_pattern: str, paths: _Paths, config: DedupConfig, join: str, pipeline_args: list[str]) -> int:
    """Pipeline 1: exact dedup, near-duplicate edges and the first component pass (``first_pass_fused``);
    returns how many edges.

    Writes the exact duplicate rows under ``_work/exact``, the verified edges and the exact keepers'
    signatures under ``_work/near``, and (fused) component pass 1 under ``_work/components``. The keepers
    themselves are not written: the final pipeline reads the input less both kinds of duplicates.
    """
    with jobs.Pipeline(options=_options(pipeline_args)) as pipeline:
        # Each consumer that waits on the ids (a side input, or a join) reads the input afresh (see ``ids``).
        def read(label: str):
            return pipeline | label >> beam.io.ReadFromParquet(input_pattern)

        docs = read("ReadDocs") | "CountRead" >> beam.ParDo(Progress("read", row_text_bytes))
        counted = {"documents_in": docs}
        keepers = docs
        if config.exact:
            keepers, duplicates = (docs, read("ReadAgain")) | "ExactDedup" >> ExactDedup(
                config.keeper_order, join, paths.shuffle if config.shuffle_on_disk else None, config.across_kinds)
            duplicates | "WriteDuplicates" >> write_parquet(
                paths.work("exact", "duplicates"), DUPLICATE_SCHEMA, file_name_suffix=PARQUET
            )
            counted["exact_duplicates"] = duplicates
        if config.near:
            near = {"docs": keepers, "payload_docs": read("ReadForPayloads")} | "NearEdges" >> NearEdges(
                paths, config, join, first_pass_fused(paths, pipeline_args))
            counted.update((name, near[name]) for name in ("edges", "candidates", "rejected"))
        in_metrics = counts_in_metrics(pipeline_args)
        counted | "Count" >> (CountInMetrics() if in_metrics else WriteCounts(paths.counts("edges")))
    if in_metrics:
        write_metric_counts(pipeline.result, counted, paths.counts("edges"))
    return read_counts(paths.counts("edges")).get("edges", 0)


def run_final(
    docs_pattern: str, star_edges: str | None, paths: _Paths, config: DedupConfig, join: str, pipeline_args: list[str]
) -> None:
    """The last pipeline: pick a keeper per component, join labels to documents, write docs (the input less
    the exact and near duplicates), duplicates and index."""
    spill = paths.shuffle if config.shuffle_on_disk else None
    keyed = keyed_spill(join, spill)
    with jobs.Pipeline(options=_options(pipeline_args)) as pipeline:
        if star_edges:
            ranked = pipeline | "ReadRanked" >> beam.io.ReadFromParquet(docs_pattern, columns=RANK_COLUMNS)
            stars = pipeline | "ReadStars" >> ReadEdges(star_edges)
            near = (ranked, stars) | "NearDuplicates" >> NearDuplicateRows(config.keeper_order, join, spill)
        else:
            near = pipeline | "NoNearDuplicates" >> beam.Create([])
        removed = near | "RemovedIds" >> beam.Map(lambda row: row["doc_id"])
        if config.exact:
            copies = (pipeline | "ReadExactIds" >> beam.io.ReadFromParquet(
                parquet_pattern(paths.work("exact", "duplicates")), columns=["doc_id"])
                | "ExactIds" >> beam.Map(lambda row: row["doc_id"]))
            removed_all = (removed, copies) | "AllRemovedIds" >> flatten(keyed, "removed", lambda doc_id: doc_id)
        else:
            removed_all = removed
        docs = pipeline | "ReadDocs" >> beam.io.ReadFromParquet(docs_pattern)
        kept = (docs, removed_all) | "DropDuplicates" >> DropRowsWithIds(join, spill and FileSystems.join(spill, "docs"))
        kept | "WriteDocs" >> write_parquet(paths.out("docs"), DOCUMENT_SCHEMA, file_name_suffix=PARQUET)
        _ = kept | "CountKept" >> beam.ParDo(Progress("kept"))
        near_only, previous = near | "ByMethod" >> beam.Partition(lambda row, _: int(row["method"] == "previous"), 2)
        survivors = near | "Survivors" >> beam.Map(lambda row: (row["doc_id"], row["keeper_id"]))
        exact = pipeline | "ExactDuplicates" >> ExactDuplicateRows(paths, config.exact, survivors, keyed)
        (
            (exact, near)
            | "AllDuplicates" >> flatten(keyed, "duplicates", lambda row: row["doc_id"])
            | "WriteDuplicates"
            >> write_parquet(paths.out("duplicates"), DUPLICATE_SCHEMA, file_name_suffix=PARQUET)
        )
        if config.near:
            signatures = pipeline | "ReadSignatures" >> beam.io.ReadFromParquet(parquet_pattern(paths.signatures))
            (
                (signatures, removed)
                | "KeptSignatures" >> DropRowsWithIds(join, spill and FileSystems.join(spill, "signatures"))
                | "IndexRows"
                >> beam.Map(lambda row: index_row(row["id"], row["source"], row["location"], row["signature"], row["kind"]))
                | "WriteIndex" >> write_parquet(paths.index, index_schema(config), file_name_suffix=PARQUET)
            )
        counted = {"documents_in": docs, "kept": kept, "near": near_only, "previous": previous}
        counted | "Count" >> WriteCounts(paths.counts("final"))


def clear_previous_outputs(input_pattern: str, paths: _Paths, config: DedupConfig) -> None:
    """Delete this stage's outputs from an earlier run, refusing if that would delete the input or an index it reads."""
    require_input(input_pattern)
    ours = set(
        matching_paths(
            [
                parquet_pattern(paths.out("docs")),
                parquet_pattern(paths.out("duplicates")),
                parquet_pattern(paths.index),
                paths.work("**"),
            ]
        )
    )
    for what, patterns in (("its own input", [input_pattern]), ("an index it reads", config.previous_indexes)):
        clashing = ours & set(matching_paths(patterns))
        if clashing:
            raise ValueError(
                f"dedup output_dir {paths.output_dir} would overwrite {what} ({min(clashing)}); "
                "write to a different directory"
            )
    delete_matching(sorted(ours))


def run_dedup(input_pattern: str, output_dir: str, config: DedupConfig, pipeline_args: list[str]) -> DedupResult:
    """Deduplicate the Documents matching ``input_pattern`` into ``output_dir`` (see the module docstring).

    ``pipeline_args`` go to ``PipelineOptions`` unchanged (runner, workers, cloud options).
    Raises ``FileNotFoundError`` if the input or a ``previous_indexes`` glob matches nothing,
    ``ConfigError`` for an earlier index built with other MinHash parameters, and ``RuntimeError``
    if the components do not converge within ``config.max_passes``.
    """
    config.validate("dedup")
    check_previous_indexes(config)
    join = resolve_join(config.join, runner_name(pipeline_args))
    paths = _Paths(output_dir)
    clear_previous_outputs(input_pattern, paths, config)
    logger.info(
        "dedup: exact=%s near=%s; %d permutations = %d bands x %d rows (LSH midpoint %.3f), verify=%s, "
        "Jaccard threshold %.3f, %d earlier indexes, ids by %s",
        config.exact,
        config.near,
        config.num_perm,
        config.bands,
        config.rows,
        config.lsh_threshold,
        config.verify,
        config.threshold,
        len(config.previous_indexes),
        join,
    )
    star_edges, passes = None, 0
    edges = run_edges(input_pattern, paths, config, join, pipeline_args)
    delete_matching([FileSystems.join(paths.shuffle, "**")])  # the run files are spent
    if edges > 0:
        star_edges, passes = resolve_components(
            parquet_pattern(paths.work("near", "edges")), paths.components, config, pipeline_args,
            passes_done=1 if first_pass_fused(paths, pipeline_args) else 0,
            spill_dir=keyed_spill(join, paths.shuffle if config.shuffle_on_disk else None),
        )
    exact_duplicates = read_counts(paths.counts("edges")).get("exact_duplicates", 0)
    if final_runs_locally(output_dir, pipeline_args, edges, exact_duplicates):
        run_final_locally(input_pattern, star_edges, paths, config)
    else:
        run_final(input_pattern, star_edges, paths, config, join, pipeline_args)
    delete_matching([FileSystems.join(paths.shuffle, "**")])  # the final pipeline's keyed joins spill too
    return _result(paths, config, passes)


def _result(paths: _Paths, config: DedupConfig, passes: int) -> DedupResult:
    """Assemble the counts the pipelines wrote, and check that no document went missing."""
    final, edges = read_counts(paths.counts("final")), read_counts(paths.counts("edges"))
    result = DedupResult(
        documents_in=edges["documents_in"],
        kept=final["kept"],
        exact_duplicates=edges.get("exact_duplicates", 0),
        near_duplicates=final["near"],
        previous_duplicates=final["previous"],
        component_passes=passes,
        candidate_pairs=edges.get("candidates", 0),
        verified_pairs=edges.get("edges", 0) if config.verify else 0,
        rejected_pairs=edges.get("rejected", 0),
    )
    if result.documents_in != final["documents_in"]:
        raise RuntimeError(f"dedup: the final pipeline read {final['documents_in']} documents, expected {result}")
    removed = result.exact_duplicates + result.near_duplicates + result.previous_duplicates
    if result.kept + removed != result.documents_in:
        raise RuntimeError(f"dedup lost or invented documents: {result}")
    logger.info("%s; %s", progress_summary(result), result)
    return result


def progress_summary(result: DedupResult) -> str:
    """The first clause of dedup's last message, which the progress display shows as the stage's status:
    short enough for an 80-column terminal's narrow status line (``pipelines.progress``)."""
    return f"dedup: kept {result.kept:,} of {result.documents_in:,}"
