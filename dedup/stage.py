"""The dedup stage: exact, then MinHash-LSH near-duplicate removal, as a sequence of Beam pipelines.

``run_dedup`` reads Documents (Parquet in ``DOCUMENT_SCHEMA``) and writes, under ``output_dir``:

  * ``docs-*.parquet``: the kept Documents, unchanged, in ``DOCUMENT_SCHEMA``;
  * ``duplicates-*.parquet``: one row per removed Document (``DUPLICATE_SCHEMA``), naming its keeper;
  * ``_work/``: intermediates (exact keepers, candidate edges, component passes, counts).

Every input document lands in exactly one of the first two. The pipelines, in order:

  1. exact: key by sha256 of the text; the best-ranked copy of each text is kept (``keeper.rank_key``);
  2. near edges: MinHash signatures of the exact keepers, LSH band keys grouped with ``GroupByKey``;
     each bucket links its smallest id to the others (a star, not a clique: n - 1 edges);
  3. components: large-star/small-star passes until the edges are stars (``components``);
  4. final: per component, the best-ranked member keeps; labels are joined back to the documents.

No step gathers the corpus in one place; the largest per-key state is one text-hash group, one
LSH bucket's ids or one component's rank keys.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import apache_beam as beam
import pyarrow as pa
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics
from apache_beam.options.pipeline_options import PipelineOptions

from codemix.document import DOCUMENT_SCHEMA
from dedup.components import component_labels, resolve_components
from dedup.config import DedupConfig
from dedup.files import (
    PARQUET,
    ReadEdges,
    WriteCount,
    WriteEdges,
    delete_matching,
    parquet_pattern,
    read_count,
    require_input,
)
from dedup.keeper import rank_key
from dedup.minhash import band_keys, make_permutations, shingle_hashes, signature

logger = logging.getLogger(__name__)

DUPLICATE_SCHEMA = pa.schema(
    [
        ("doc_id", pa.string()),
        ("source", pa.string()),
        ("location", pa.string()),
        ("keeper_id", pa.string()),
        ("method", pa.string()),
    ]
)
NAMESPACE = "codemix.dedup"


@dataclass(slots=True, kw_only=True)
class DedupResult:
    """Counts from one run; ``documents_in == kept + exact_duplicates + near_duplicates``."""

    documents_in: int
    kept: int
    exact_duplicates: int
    near_duplicates: int
    component_passes: int


# ---------------------------------------------------------------- per-element logic (no Beam needed)


def parse_metadata(row: dict[str, Any]) -> dict[str, Any]:
    """The row's metadata JSON as a dict; malformed or non-object JSON counts as empty (and is counted)."""
    try:
        metadata = json.loads(row.get("metadata") or "{}")
    except (TypeError, ValueError):
        metadata = None
    if not isinstance(metadata, dict):
        Metrics.counter(NAMESPACE, "malformed_metadata").inc()
        return {}
    return metadata


def rank_of_row(row: dict[str, Any], order: list[str]) -> tuple:
    """``rank_key`` of a Parquet row, whose metadata is still a JSON string."""
    return rank_key({"id": row["id"], "license": row.get("license") or "", "metadata": parse_metadata(row)}, order)


def text_digest(row: dict[str, Any]) -> bytes:
    return hashlib.sha256((row.get("text") or "").encode("utf-8")).digest()


def location_of(row: dict[str, Any]) -> str:
    """Where the reader found the document (``metadata["location"]``), or "" if it did not say."""
    return str(parse_metadata(row).get("location") or "")


def copy_summary(row: dict[str, Any], order: list[str]) -> tuple[tuple, str, str, str]:
    """What the exact step needs of a copy besides its text: (rank, id, source, location)."""
    return rank_of_row(row, order), row["id"], row.get("source") or "", location_of(row)


def duplicate_row(doc_id: str, source: str, location: str, keeper_id: str, method: str) -> dict[str, str]:
    return {"doc_id": doc_id, "source": source, "location": location, "keeper_id": keeper_id, "method": method}


def exact_duplicate_rows(text_copies: tuple[bytes, Any]) -> list[dict[str, str]]:
    """Rows for every copy of one text except the best-ranked one, which they point to."""
    _, copies = text_copies
    copies = list(copies)
    best = min(range(len(copies)), key=lambda i: copies[i][0])
    keeper_id = copies[best][1]
    return [
        duplicate_row(doc_id, source, location, keeper_id, "exact")
        for i, (_, doc_id, source, location) in enumerate(copies)
        if i != best
    ]


class KeepBestRanked(beam.CombineFn):
    """Of (rank, row) pairs, the row with the smallest rank; O(1) state, so Beam can combine before shuffling."""

    def create_accumulator(self):
        return None

    def add_input(self, best, ranked_row):
        return ranked_row if best is None or ranked_row[0] < best[0] else best

    def merge_accumulators(self, accumulators):
        best = None
        for candidate in accumulators:
            if candidate is not None:
                best = self.add_input(best, candidate)
        return best

    def extract_output(self, best):
        return best[1]


class SignAndBand(beam.DoFn):
    """(band key, id) for each LSH band of a document's MinHash signature; texts with no tokens are skipped."""

    def __init__(self, config: DedupConfig):
        self.config = config
        self.permutations = None
        self.unbanded = Metrics.counter(NAMESPACE, "near_skipped_no_tokens")

    def setup(self):
        # Drawn once per worker, from the seed, so every worker uses the same hash functions.
        self.permutations = make_permutations(self.config.num_perm, self.config.seed)

    def process(self, row):
        config = self.config
        hashes = shingle_hashes(row.get("text") or "", config.shingle_size, config.lowercase)
        if hashes.size == 0:
            self.unbanded.inc()
            return
        for key in band_keys(signature(hashes, self.permutations), config.bands, config.rows):
            yield key, row["id"]


def bucket_star_edges(bucket: tuple[bytes, Any]) -> list[tuple[str, str]]:
    """Edges from the bucket's smallest id to each other id: connects the bucket with n - 1 edges."""
    _, ids = bucket
    members = sorted(set(ids))
    return [(members[0], other) for other in members[1:]]


def ranked_member(node: tuple[str, dict[str, list]]) -> list[tuple[str, tuple[tuple, str]]]:
    """(component, (rank, id)) for a document that belongs to a near-duplicate component."""
    doc_id, joined = node
    return [(component, (rank, doc_id)) for component in joined["component"] for rank in joined["rank"]]


def near_keeper_links(component_members: tuple[str, Any]) -> list[tuple[str, str]]:
    """(id, keeper id) for every member of a component except its best-ranked one."""
    _, members = component_members
    _, keeper_id = min(members)
    return [(doc_id, keeper_id) for rank, doc_id in members if doc_id != keeper_id]


def point_to_survivor(joined: tuple[str, dict[str, list]]) -> list[dict[str, str]]:
    """Exact-duplicate rows whose keeper was itself removed as a near duplicate now name the survivor."""
    _, groups = joined
    survivors = groups["near_keeper"]
    return [{**row, "keeper_id": survivors[0]} if survivors else row for row in groups["row"]]


def route_document(joined: tuple[str, dict[str, list]]) -> Iterator[dict | beam.pvalue.TaggedOutput]:
    """A kept document goes to the main output; one with a near keeper becomes a ``near`` duplicate row."""
    _, groups = joined
    keepers = groups["keeper"]
    for row in groups["doc"]:
        if keepers:
            near = duplicate_row(row["id"], row.get("source") or "", location_of(row), keepers[0], "near")
            yield beam.pvalue.TaggedOutput("near", near)
        else:
            yield row


# ---------------------------------------------------------------- composite transforms


class ExactDedup(beam.PTransform):
    """Documents -> (kept best-ranked copy per text, duplicate rows for the other copies)."""

    def __init__(self, order: list[str]):
        super().__init__()
        self.order = order

    def expand(self, docs):
        order = self.order
        keyed = docs | "KeyByTextHash" >> beam.Map(lambda row: (text_digest(row), row))
        keepers = (
            keyed
            | "Rank" >> beam.MapTuple(lambda digest, row: (digest, (rank_of_row(row, order), row)))
            | "KeepBestCopy" >> beam.CombinePerKey(KeepBestRanked())
            | "DropKey" >> beam.Values()
        )
        duplicates = (
            keyed
            | "Summarise" >> beam.MapTuple(lambda digest, row: (digest, copy_summary(row, order)))
            | "GroupCopies" >> beam.GroupByKey()
            | "LabelCopies" >> beam.FlatMap(exact_duplicate_rows)
        )
        return keepers, duplicates


class CandidateEdges(beam.PTransform):
    """Documents -> distinct (u, v) id pairs that share at least one LSH band."""

    def __init__(self, config: DedupConfig):
        super().__init__()
        self.config = config

    def expand(self, docs):
        return (
            docs
            | "SignAndBand" >> beam.ParDo(SignAndBand(self.config))
            | "GroupBuckets" >> beam.GroupByKey()
            | "StarEdges" >> beam.FlatMap(bucket_star_edges)
            | "Distinct" >> beam.Distinct()
        )


class NearKeeperLabels(beam.PTransform):
    """(docs, converged star edges) -> (id, keeper id) for every near duplicate that is not its component's keeper."""

    def __init__(self, order: list[str]):
        super().__init__()
        self.order = order

    def expand(self, inputs):
        docs, star_edges = inputs
        order = self.order
        labels = star_edges | "Labels" >> beam.FlatMap(component_labels) | "DistinctLabels" >> beam.Distinct()
        ranks = docs | "Rank" >> beam.Map(lambda row: (row["id"], rank_of_row(row, order)))
        return (
            {"component": labels, "rank": ranks}
            | "JoinRanks" >> beam.CoGroupByKey()
            | "ByComponent" >> beam.FlatMap(ranked_member)
            | "GroupComponents" >> beam.GroupByKey()
            | "PickKeepers" >> beam.FlatMap(near_keeper_links)
        )


class ExactDuplicateRows(beam.PTransform):
    """Pipeline 1's exact-duplicate rows, re-pointed at the final survivor when their keeper was near-deduped."""

    def __init__(self, paths: _Paths, enabled: bool, near_labels):
        super().__init__()
        self.paths, self.enabled, self.near_labels = paths, enabled, near_labels

    def expand(self, pbegin):
        if not self.enabled:
            return pbegin | "None" >> beam.Create([])
        rows = pbegin | "Read" >> beam.io.ReadFromParquet(parquet_pattern(self.paths.work("exact", "duplicates")))
        return (
            {
                "row": rows | "KeyByKeeper" >> beam.Map(lambda row: (row["keeper_id"], row)),
                "near_keeper": self.near_labels,
            }
            | "JoinNearKeepers" >> beam.CoGroupByKey()
            | "PointToSurvivor" >> beam.FlatMap(point_to_survivor)
        )


# ---------------------------------------------------------------- the pipelines and the driver


@dataclass(slots=True, frozen=True)
class _Paths:
    """Where one run reads and writes; everything intermediate lives under ``work``."""

    output_dir: str

    def out(self, name: str) -> str:
        return FileSystems.join(self.output_dir, name)

    def work(self, *names: str) -> str:
        return FileSystems.join(self.output_dir, "_work", *names)

    def count(self, name: str) -> str:
        return self.work("counts", f"{name}.txt")


def _options(pipeline_args: list[str]) -> PipelineOptions:
    return PipelineOptions(list(pipeline_args))


def run_exact(input_pattern: str, paths: _Paths, config: DedupConfig, pipeline_args: list[str]) -> None:
    """Pipeline 1: write exact keepers and exact duplicate rows under ``_work/exact``."""
    with beam.Pipeline(options=_options(pipeline_args)) as pipeline:
        docs = pipeline | "ReadDocs" >> beam.io.ReadFromParquet(input_pattern)
        keepers, duplicates = docs | "ExactDedup" >> ExactDedup(config.keeper_order)
        keepers | "WriteKeepers" >> beam.io.WriteToParquet(
            paths.work("exact", "keepers"), DOCUMENT_SCHEMA, file_name_suffix=PARQUET
        )
        duplicates | "WriteDuplicates" >> beam.io.WriteToParquet(
            paths.work("exact", "duplicates"), DUPLICATE_SCHEMA, file_name_suffix=PARQUET
        )
        docs | "CountDocs" >> WriteCount(paths.count("documents_in"))
        duplicates | "CountDuplicates" >> WriteCount(paths.count("exact_duplicates"))


def run_candidate_edges(docs_pattern: str, paths: _Paths, config: DedupConfig, pipeline_args: list[str]) -> int:
    """Pipeline 2: write LSH candidate edges under ``_work/near``; returns how many."""
    with beam.Pipeline(options=_options(pipeline_args)) as pipeline:
        docs = pipeline | "ReadDocs" >> beam.io.ReadFromParquet(docs_pattern, columns=["id", "text"])
        edges = docs | "CandidateEdges" >> CandidateEdges(config)
        edges | "WriteEdges" >> WriteEdges(paths.work("near", "candidates"))
        edges | "CountEdges" >> WriteCount(paths.count("candidate_edges"))
    return read_count(paths.count("candidate_edges"))


def run_final(
    docs_pattern: str, star_edges: str | None, paths: _Paths, config: DedupConfig, pipeline_args: list[str]
) -> None:
    """Pipeline 4: pick a keeper per component, join labels to documents, write docs and duplicates."""
    with beam.Pipeline(options=_options(pipeline_args)) as pipeline:
        docs = pipeline | "ReadDocs" >> beam.io.ReadFromParquet(docs_pattern)
        if star_edges:
            stars = pipeline | "ReadStars" >> ReadEdges(star_edges)
            near = (docs, stars) | "NearKeepers" >> NearKeeperLabels(config.keeper_order)
        else:
            near = pipeline | "NoNearKeepers" >> beam.Create([])
        routed = (
            {"doc": docs | "KeyById" >> beam.Map(lambda row: (row["id"], row)), "keeper": near}
            | "JoinKeepers" >> beam.CoGroupByKey()
            | "Route" >> beam.FlatMap(route_document).with_outputs("near", main="kept")
        )
        exact = pipeline | "ExactDuplicates" >> ExactDuplicateRows(paths, config.exact, near)
        routed.kept | "WriteDocs" >> beam.io.WriteToParquet(
            paths.out("docs"), DOCUMENT_SCHEMA, file_name_suffix=PARQUET
        )
        (
            (exact, routed.near)
            | "AllDuplicates" >> beam.Flatten()
            | "WriteDuplicates"
            >> beam.io.WriteToParquet(paths.out("duplicates"), DUPLICATE_SCHEMA, file_name_suffix=PARQUET)
        )
        docs | "CountDocs" >> WriteCount(paths.count("final_input"))
        routed.kept | "CountKept" >> WriteCount(paths.count("kept"))
        routed.near | "CountNear" >> WriteCount(paths.count("near_duplicates"))


def clear_previous_outputs(input_pattern: str, paths: _Paths) -> None:
    """Delete this stage's outputs from an earlier run, refusing if that would delete the input."""
    require_input(input_pattern)
    ours = [parquet_pattern(paths.out("docs")), parquet_pattern(paths.out("duplicates")), paths.work("**")]
    inputs = {meta.path for meta in FileSystems.match([input_pattern])[0].metadata_list}
    clashing = inputs & {meta.path for result in FileSystems.match(ours) for meta in result.metadata_list}
    if clashing:
        raise ValueError(
            f"dedup output_dir {paths.output_dir} would overwrite its own input ({min(clashing)}); "
            "write to a different directory"
        )
    delete_matching(ours)


def run_dedup(input_pattern: str, output_dir: str, config: DedupConfig, pipeline_args: list[str]) -> DedupResult:
    """Deduplicate the Documents matching ``input_pattern`` into ``output_dir`` (see the module docstring).

    ``pipeline_args`` go to ``PipelineOptions`` unchanged (runner, workers, cloud options).
    Raises ``FileNotFoundError`` if the pattern matches nothing and ``RuntimeError`` if the
    components do not converge within ``config.max_passes``.
    """
    config.validate("dedup")
    paths = _Paths(output_dir)
    clear_previous_outputs(input_pattern, paths)
    logger.info(
        "dedup: exact=%s near=%s; %d permutations = %d bands x %d rows, implied Jaccard threshold %.3f",
        config.exact,
        config.near,
        config.num_perm,
        config.bands,
        config.rows,
        config.threshold,
    )
    docs_pattern = input_pattern
    if config.exact:
        run_exact(input_pattern, paths, config, pipeline_args)
        docs_pattern = parquet_pattern(paths.work("exact", "keepers"))
    star_edges, passes = None, 0
    if config.near and run_candidate_edges(docs_pattern, paths, config, pipeline_args) > 0:
        star_edges, passes = resolve_components(
            parquet_pattern(paths.work("near", "candidates")), paths.work("components"), config, pipeline_args
        )
    run_final(docs_pattern, star_edges, paths, config, pipeline_args)
    return _result(paths, config, passes)


def _result(paths: _Paths, config: DedupConfig, passes: int) -> DedupResult:
    """Assemble the counts the pipelines wrote, and check that no document went missing."""
    exact = read_count(paths.count("exact_duplicates")) if config.exact else 0
    result = DedupResult(
        documents_in=read_count(paths.count("documents_in" if config.exact else "final_input")),
        kept=read_count(paths.count("kept")),
        exact_duplicates=exact,
        near_duplicates=read_count(paths.count("near_duplicates")),
        component_passes=passes,
    )
    if result.kept + result.exact_duplicates + result.near_duplicates != result.documents_in:
        raise RuntimeError(f"dedup lost or invented documents: {result}")
    logger.info("dedup: %s", result)
    return result
