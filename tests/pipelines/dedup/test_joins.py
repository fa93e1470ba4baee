"""The two ways ids reach the documents (``dedup.join``): side inputs and keyed joins write the same rows.

One corpus holds every case a join decides: exact copies (the exact step's removed ids), near
duplicates (the graph's nodes, the final step's removed ids), candidate pairs (the payloads
verification needs) and documents of an earlier build's index (previous payloads, "previous"
rows, and a re-crawled document under the id of its earlier self). Each join's output is checked
against the planted clusters, and the joins against each other, row for row.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.portability import common_urns
from apache_beam.portability.api import beam_runner_api_pb2

from codemix.config import ConfigError
from codemix.dedup.config import AUTO, KEYED_JOIN, SIDE_INPUT, DedupConfig, resolve_join
from codemix.dedup.stage import DedupResult
from codemix.document import DOCUMENT_SCHEMA, Document
from codemix.pipelines.dedup.candidate_edges import CandidateEdges
from codemix.pipelines.dedup.component_passes import StarRounds
from codemix.pipelines.dedup.deduplicate import ExactDedup, NearDuplicateRows, run_dedup
from codemix.pipelines.dedup.id_joins import DropRowsWithIds
from codemix.pipelines.options import runner_name
from tests.dedup.corpus import edit_lines, stdlib_texts, true_jaccard
from tests.pipelines.dedup.test_deduplicate import (
    IN_PROCESS,
    TWO_PROCESSES,
    Cluster,
    document,
    empty_cluster,
    exact_cluster,
    near_cluster,
    shingles,
    transcript_cluster,
)


@dataclass(slots=True)
class Corpus:
    input_pattern: str
    index_glob: str  # the earlier build's index
    documents: list[Document]
    clusters: dict[str, Cluster]  # within the new documents
    previous: dict[str, str]  # new document id -> the earlier document it duplicates
    unrelated: list[Document]


@dataclass(slots=True)
class Output:
    result: DedupResult
    kept: list[dict]
    duplicates: list[dict]
    index: pa.Table


def write_docs(path: Path, docs: list[Document]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist([doc.to_row() for doc in docs], schema=DOCUMENT_SCHEMA), path)


def dedup(input_pattern: str, output_dir: Path, config: DedupConfig, args: list[str]) -> Output:
    result = run_dedup(input_pattern, str(output_dir), config, args)

    def read(pattern: str) -> pa.Table:
        return pq.read_table(sorted(output_dir.glob(pattern)))

    return Output(result, read("docs-*.parquet").to_pylist(), read("duplicates-*.parquet").to_pylist(),
                  read("index/*.parquet"))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, shared_transcripts) -> Corpus:
    root = tmp_path_factory.mktemp("joins")
    texts = list(stdlib_texts(12).values())
    earlier = [document("github", "up/a.py", texts[0]), document("github", "up/b.py", texts[1], stars=50)]
    write_docs(root / "earlier" / "in.parquet", earlier)
    dedup(str(root / "earlier" / "in.parquet"), root / "earlier" / "out", DedupConfig(join=SIDE_INPUT), IN_PROCESS)

    recrawl = document("github", "up/a.py", edit_lines(texts[0], 2, seed=3))  # the same id as its earlier self
    fork = document("github", "fork2/b.py", edit_lines(texts[1], 3, seed=2), stars=10_000)
    fork_copy = document("gitlab", "mirror/b.py", fork.text)
    transcripts = sorted(shared_transcripts.rglob("*.traj*"))
    clusters = {
        "exact": exact_cluster(texts[2]),
        "near": near_cluster(texts[3]),
        "transcript": transcript_cluster(transcripts[-1].read_text(encoding="utf-8")),
        "empty": empty_cluster(),
    }
    unrelated = [document("github", f"lib/{i}.py", text) for i, text in enumerate(texts[4:])]
    documents = [recrawl, fork, fork_copy, *(doc for c in clusters.values() for doc in c.members), *unrelated]
    for i, part in enumerate((documents[::2], documents[1::2])):  # two input files
        write_docs(root / "new" / f"docs-{i}.parquet", part)
    return Corpus(
        input_pattern=str(root / "new" / "docs-*.parquet"),
        index_glob=str(root / "earlier" / "out" / "index" / "*.parquet"),
        documents=documents,
        clusters=clusters,
        previous={recrawl.id: earlier[0].id, fork.id: earlier[1].id, fork_copy.id: earlier[1].id},
        unrelated=unrelated,
    )


@pytest.fixture(scope="module")
def side_input(corpus, tmp_path_factory) -> Output:
    output_dir = tmp_path_factory.mktemp("side_input")
    return dedup(corpus.input_pattern, output_dir, DedupConfig(join=SIDE_INPUT, previous_indexes=[corpus.index_glob]), IN_PROCESS)


# In one process with the groupings on disk; and in two worker processes with every grouping,
# the joins included, through the runner's shuffle, as on a runner whose shuffle spills.
KEYED_RUNS = {
    "in_process": ({}, IN_PROCESS),
    "two_processes_runner_shuffle": ({"shuffle_on_disk": False}, TWO_PROCESSES),
}


@pytest.fixture(scope="module", params=list(KEYED_RUNS))
def keyed_join(corpus, tmp_path_factory, request) -> Output:
    overrides, args = KEYED_RUNS[request.param]
    output_dir = tmp_path_factory.mktemp(f"keyed_join_{request.param}")
    keyed = DedupConfig(join=KEYED_JOIN, previous_indexes=[corpus.index_glob], **overrides)
    return dedup(corpus.input_pattern, output_dir, keyed, args)


def as_set(rows: list[dict]) -> set[tuple]:
    as_tuples = [tuple(sorted(row.items())) for row in rows]
    assert len(set(as_tuples)) == len(as_tuples), "a row written twice"
    return set(as_tuples)


def test_fixture_holds_exact_near_and_previous_duplicates(corpus, side_input):
    assert len({doc.text for doc in corpus.clusters["exact"].members}) == 1
    for name in ("near", "transcript"):
        texts = [shingles(doc.text) for doc in corpus.clusters[name].members]
        assert all(true_jaccard(a, b) > 0.9 for a, b in itertools.combinations(texts, 2)), name
    unrelated = [s for s in (shingles(doc.text) for doc in corpus.unrelated) if s]
    assert all(true_jaccard(a, b) < 0.5 for a, b in itertools.combinations(unrelated, 2))
    result = side_input.result
    # exact: 2 + 2 (near cluster) + 1 (empty) + the fork's copy; near: 2 + 1 (transcript); previous: 2.
    assert (result.exact_duplicates, result.near_duplicates, result.previous_duplicates) == (6, 3, 2)
    assert result.verified_pairs > 0


def check_planted_keepers(corpus: Corpus, output: Output) -> None:
    kept = {row["id"] for row in output.kept}
    for name, cluster in corpus.clusters.items():
        assert {doc.id for doc in cluster.members} & kept == {cluster.keeper}, name
    assert {doc.id for doc in corpus.unrelated} <= kept
    removed = {row["doc_id"]: row for row in output.duplicates}
    for doc_id, earlier_id in corpus.previous.items():
        assert removed[doc_id]["keeper_id"] == earlier_id and doc_id not in kept
    assert len(kept) + len(removed) == len(corpus.documents)


def test_side_input_keeps_exactly_the_planted_keepers(corpus, side_input):
    check_planted_keepers(corpus, side_input)


def test_keyed_join_keeps_exactly_the_planted_keepers(corpus, keyed_join):
    check_planted_keepers(corpus, keyed_join)


def test_keyed_join_writes_the_same_documents_duplicates_and_index(side_input, keyed_join):
    assert as_set(keyed_join.kept) == as_set(side_input.kept)
    assert as_set(keyed_join.duplicates) == as_set(side_input.duplicates)
    assert as_set(keyed_join.index.to_pylist()) == as_set(side_input.index.to_pylist())
    assert keyed_join.index.schema == side_input.index.schema  # the MinHash parameters in its metadata too
    assert keyed_join.result == side_input.result


def test_kept_documents_are_the_input_rows_unchanged(corpus, keyed_join):
    originals = {doc.id: doc.to_row() for doc in corpus.documents}
    assert all(row == originals[row["id"]] for row in keyed_join.kept)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], SIDE_INPUT),  # codemix's default runner, FnApiRunner
        (["--runner=FnApiRunner", "--direct_num_workers=4"], SIDE_INPUT),
        (["--runner", "DirectRunner"], SIDE_INPUT),
        (["--runner=direct"], SIDE_INPUT),
        (["--runner=BundleBasedDirectRunner"], SIDE_INPUT),
        (["--runner=PrismRunner"], SIDE_INPUT),
        (["--runner=DataflowRunner", "--project=p", "--region=r"], KEYED_JOIN),
        (["--runner", "dataflow"], KEYED_JOIN),
        (["--runner=PortableRunner", "--job_endpoint=localhost:8099"], KEYED_JOIN),
        (["--runner=FlinkRunner"], KEYED_JOIN),
        (["--runner=SparkRunner"], KEYED_JOIN),
        (["--runner=apache_beam.runners.dataflow.dataflow_runner.DataflowRunner"], KEYED_JOIN),
    ],
)
def test_auto_keeps_side_inputs_only_where_the_shuffle_is_in_memory(args, expected):
    assert resolve_join(AUTO, runner_name(args)) == expected


@pytest.mark.parametrize("choice", [SIDE_INPUT, KEYED_JOIN])
def test_an_explicit_join_is_kept_on_any_runner(choice):
    assert {resolve_join(choice, runner) for runner in ("FnApiRunner", "DataflowRunner")} == {choice}


def test_an_unknown_join_is_a_config_error_naming_the_field():
    with pytest.raises(ConfigError, match=r"dedup\.join.*keyed_join"):
        DedupConfig(join="cogroup").validate("dedup")


def steps_with_side_inputs(join: str) -> list[str]:
    """The steps with side inputs among those that join ids to documents, built (not run) with ``join``."""
    with_previous = DedupConfig(previous_indexes=["unused"])
    pipeline = beam.Pipeline(options=PipelineOptions(IN_PROCESS))
    docs = pipeline | "Docs" >> beam.Create([{"id": "a", "text": "x"}])
    _, duplicates = (docs, docs) | ExactDedup(with_previous.keeper_order, join)
    previous = pipeline | "Previous" >> beam.Create([("previous:b", b"", "file")])
    edges = {"docs": docs, "previous": previous} | CandidateEdges(with_previous, join=join)
    (docs, edges["edges"]) | NearDuplicateRows(with_previous.keeper_order, join)
    (docs, duplicates | beam.Map(lambda row: row["doc_id"])) | DropRowsWithIds(join)
    return [
        t.unique_name
        for t in pipeline.to_runner_api().components.transforms.values()
        if t.spec.urn == common_urns.primitives.PAR_DO.urn
        and beam_runner_api_pb2.ParDoPayload.FromString(t.spec.payload).side_inputs
    ]


def test_keyed_join_steps_have_no_side_input():
    filters = [name for name in steps_with_side_inputs(SIDE_INPUT) if name.endswith("/FilterByIdSet")]
    assert len(filters) == 5, "removed (exact), needed texts, needed earlier payloads, graph nodes, removed (final)"
    assert steps_with_side_inputs(KEYED_JOIN) == []


def runner_groupings(join: str, spill_dir: str | None) -> list[str]:
    """The runner ``GroupByKey``s of dedup's steps, built (not run) with ``join`` and ``spill_dir``."""
    config = DedupConfig(previous_indexes=["unused"])
    pipeline = beam.Pipeline(options=PipelineOptions(IN_PROCESS))
    docs = pipeline | "Docs" >> beam.Create([{"id": "a", "text": "x"}])
    _, duplicates = (docs, docs) | ExactDedup(config.keeper_order, join, spill_dir)
    previous = pipeline | "Previous" >> beam.Create([("previous:b", b"", "file")])
    edges = {"docs": docs, "previous": previous} | CandidateEdges(config, spill_dir=spill_dir, join=join)
    stars = edges["edges"] | StarRounds(2, spill_dir if join == KEYED_JOIN else None)
    (docs, stars) | NearDuplicateRows(config.keeper_order, join, spill_dir)
    (docs, duplicates | beam.Map(lambda row: row["doc_id"])) | DropRowsWithIds(join, spill_dir)
    return [
        t.unique_name
        for t in pipeline.to_runner_api().components.transforms.values()
        if t.spec.urn == common_urns.primitives.GROUP_BY_KEY.urn
    ]


def test_keyed_join_on_disk_shuffles_only_run_names():
    """With a keyed join and shuffle_on_disk, every grouping that grows with the corpus goes through
    run files: the runner's shuffle (FnApiRunner: the driver's memory) carries only run names."""
    side = runner_groupings(SIDE_INPUT, "/unused/shuffle")
    assert any("GroupCopies" in name for name in side) and any("GroupComponents" in name for name in side)
    keyed = runner_groupings(KEYED_JOIN, "/unused/shuffle")
    assert keyed and all(name.endswith("/GroupRunsByPartition") for name in keyed), keyed
