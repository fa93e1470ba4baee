"""``run_dedup`` end to end on planted exact and near duplicates of real code and transcripts.

The corpus is built in a temporary directory and deduplicated twice, once in-process and once
with two worker processes, so determinism is checked across runs and across execution modes.
"""

from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from codemix.dedup.config import DedupConfig
from codemix.dedup.minhash import shingle_hashes
from codemix.dedup.stage import DedupResult
from codemix.document import DOCUMENT_SCHEMA, Document, make_doc_id
from codemix.pipelines.dedup import deduplicate
from codemix.pipelines.dedup.deduplicate import run_dedup
from tests.dedup.corpus import edit_lines, stdlib_texts, true_jaccard

IN_PROCESS = ["--runner=FnApiRunner"]
TWO_PROCESSES = ["--runner=FnApiRunner", "--direct_num_workers=2", "--direct_running_mode=multi_processing"]


@dataclass(slots=True)
class Cluster:
    members: list[Document]
    keeper: str  # the id the rank must pick
    exact_copies: set[str]  # members removed as exact copies (the rest, bar the keeper, are near)


def document(source: str, location: str, text: str, kind: str = "file", license: str = "", **metadata) -> Document:
    return Document(
        id=make_doc_id(source, location),
        text=text,
        source=source,
        kind=kind,
        path=location,
        license=license,
        metadata={"location": location, **metadata},
    )


def exact_cluster(text: str) -> Cluster:
    """Three identical copies; the only permissive one must survive despite fewer stars."""
    copies = [
        document("github", "a/vendored.py", text, license="GPL-3.0-only", stars=1000),
        document("github", "b/vendored.py", text, license="MIT", stars=2),
        document("gitlab", "c/vendored.py", text),
    ]
    return Cluster(copies, copies[1].id, {copies[0].id, copies[2].id})


def near_cluster(text: str) -> Cluster:
    """A file, two drifted forks, and exact copies of the original and of a fork: the most-starred fork survives.

    The copy of the original tests the chain: its exact keeper is itself a near duplicate, so its
    row must name the final survivor.
    """
    original = document("github", "up/stream.py", text, stars=10)
    fork = document("github", "fork/stream.py", edit_lines(text, 3, seed=1), stars=500)
    drift = document("github", "drift/stream.py", edit_lines(text, 4, seed=2), stars=20)
    fork_copy = document("gitlab", "mirror/stream.py", fork.text, stars=1)
    original_copy = document("gitlab", "old/stream.py", text)
    members = [original, fork, drift, fork_copy, original_copy]
    return Cluster(members, fork.id, {fork_copy.id, original_copy.id})


def transcript_cluster(text: str) -> Cluster:
    """A real agent transcript and a lightly edited rerun: the more recent one survives."""
    first = document("swe-agent", "run-1.traj", text, kind="transcript", updated_at="2024-01-01T00:00:00Z")
    rerun = document(
        "swe-agent", "run-2.traj", edit_lines(text, 2, seed=3), kind="transcript", updated_at="2025-03-01T12:00:00Z"
    )
    return Cluster([first, rerun], rerun.id, set())


def empty_cluster() -> Cluster:
    blanks = [document("github", "x/__init__.py", ""), document("github", "y/__init__.py", "")]
    return Cluster(blanks, min(blank.id for blank in blanks), {max(blank.id for blank in blanks)})


@dataclass(slots=True)
class Corpus:
    input_pattern: str
    documents: list[Document]
    clusters: dict[str, Cluster]
    unrelated: list[Document]


def shingles(text: str) -> set[int]:
    return set(shingle_hashes(text, 5, False).tolist())


def build_corpus(root: Path, shared_transcripts: Path) -> Corpus:
    texts = list(stdlib_texts(12).values())
    transcripts = sorted(shared_transcripts.rglob("*.traj*"))
    clusters = {
        "exact": exact_cluster(texts[0]),
        "near": near_cluster(texts[1]),
        "transcript": transcript_cluster(transcripts[-1].read_text(encoding="utf-8")),
        "empty": empty_cluster(),
    }
    unrelated = [document("github", f"lib/{i}.py", text) for i, text in enumerate(texts[2:])]
    unrelated += [
        document("agent", path.name, path.read_text(encoding="utf-8"), kind="transcript") for path in transcripts[:-1]
    ]
    # Texts without tokens are not evidence of similarity, so these must both survive.
    unrelated += [document("github", "p/braces.json", "{}"), document("github", "p/parens.txt", "()")]
    documents = [doc for cluster in clusters.values() for doc in cluster.members] + unrelated
    root.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist([doc.to_row() for doc in documents], schema=DOCUMENT_SCHEMA)
    pq.write_table(table.slice(0, 12), root / "docs-00000.parquet")
    pq.write_table(table.slice(12), root / "docs-00001.parquet")
    return Corpus(str(root / "docs-*.parquet"), documents, clusters, unrelated)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, shared_transcripts) -> Corpus:
    return build_corpus(tmp_path_factory.mktemp("input"), shared_transcripts)


@dataclass(slots=True)
class Run:
    result: DedupResult
    kept: list[dict]
    duplicates: list[dict]


def run_and_read(corpus: Corpus, output_dir: Path, args: list[str]) -> Run:
    result = run_dedup(corpus.input_pattern, str(output_dir), DedupConfig(), args)
    kept = pq.read_table(sorted(output_dir.glob("docs-*.parquet"))).to_pylist()
    duplicates = pq.read_table(sorted(output_dir.glob("duplicates-*.parquet"))).to_pylist()
    return Run(result, kept, duplicates)


@pytest.fixture(scope="module")
def run(corpus, tmp_path_factory) -> Run:
    return run_and_read(corpus, tmp_path_factory.mktemp("dedup"), IN_PROCESS)


@pytest.fixture(scope="module")
def stale_output_dir(tmp_path_factory) -> Path:
    """An output directory holding a shard from an imaginary earlier run with more shards."""
    output_dir = tmp_path_factory.mktemp("rerun")
    pq.write_table(pa.Table.from_pylist([], schema=DOCUMENT_SCHEMA), output_dir / "docs-00007-of-00009.parquet")
    return output_dir


@pytest.fixture(scope="module")
def rerun(corpus, stale_output_dir) -> Run:
    return run_and_read(corpus, stale_output_dir, TWO_PROCESSES)


def kept_ids(run: Run) -> set[str]:
    return {row["id"] for row in run.kept}


def test_fixture_really_plants_duplicates(corpus):
    for name in ("near", "transcript"):
        texts = [shingles(doc.text) for doc in corpus.clusters[name].members]
        assert all(true_jaccard(a, b) > 0.9 for a, b in itertools.combinations(texts, 2)), name
    assert len({doc.text for doc in corpus.clusters["exact"].members}) == 1
    unrelated = [shingles(doc.text) for doc in corpus.unrelated]
    assert sum(1 for s in unrelated if not s) == 2, "the two token-less texts"
    unrelated = [s for s in unrelated if s]
    # The two mini-swe-agent runs share a system prompt (Jaccard ≈ 0.36), far below the 0.8 threshold.
    assert all(true_jaccard(a, b) < 0.5 for a, b in itertools.combinations(unrelated, 2))
    assert len({doc.id for doc in corpus.documents}) == len(corpus.documents)


def test_every_document_is_kept_or_a_duplicate_exactly_once(corpus, run):
    kept, removed = [row["id"] for row in run.kept], [row["doc_id"] for row in run.duplicates]
    assert len(kept) + len(removed) == len(corpus.documents) == run.result.documents_in
    assert set(kept) | set(removed) == {doc.id for doc in corpus.documents}
    assert not set(kept) & set(removed)


def test_result_counts_match_the_files(run, corpus):
    methods = [row["method"] for row in run.duplicates]
    expected_exact = sum(len(cluster.exact_copies) for cluster in corpus.clusters.values())
    assert run.result.kept == len(run.kept)
    assert run.result.exact_duplicates == methods.count("exact") == expected_exact
    assert run.result.near_duplicates == methods.count("near") == 3  # near: original, drift; transcript: first
    assert run.result.previous_duplicates == methods.count("previous") == 0
    assert run.result.component_passes >= 1


def test_result_counts_verified_pairs(run):
    """The three near-cluster exact keepers pairwise, and the transcript pair; nothing unrelated gets close."""
    assert run.result.verified_pairs == 4
    assert run.result.candidate_pairs == run.result.verified_pairs + run.result.rejected_pairs


@pytest.mark.parametrize("name", ["exact", "near", "transcript", "empty"])
def test_one_survivor_per_cluster_chosen_by_rank(run, corpus, name):
    cluster = corpus.clusters[name]
    assert {doc.id for doc in cluster.members} & kept_ids(run) == {cluster.keeper}


@pytest.mark.parametrize("name", ["exact", "near", "transcript", "empty"])
def test_duplicates_name_the_survivor_and_method(run, corpus, name):
    cluster = corpus.clusters[name]
    rows = {row["doc_id"]: row for row in run.duplicates}
    for doc in cluster.members:
        if doc.id != cluster.keeper:
            row = rows[doc.id]
            assert row["keeper_id"] == cluster.keeper
            assert row["method"] == ("exact" if doc.id in cluster.exact_copies else "near")
            assert (row["source"], row["location"]) == (doc.source, doc.metadata["location"])


def test_unrelated_documents_all_survive(run, corpus):
    assert {doc.id for doc in corpus.unrelated} <= kept_ids(run)


def test_kept_documents_are_written_unchanged(run, corpus):
    originals = {doc.id: doc.to_row() for doc in corpus.documents}
    assert all(row == originals[row["id"]] for row in run.kept)


def test_same_survivors_across_runs_and_execution_modes(run, rerun):
    assert kept_ids(rerun) == kept_ids(run)
    by_id = operator.itemgetter("doc_id")
    assert sorted(rerun.duplicates, key=by_id) == sorted(run.duplicates, key=by_id)
    assert rerun.result == run.result


@pytest.fixture(scope="module")
def pipeline_final(corpus, tmp_path_factory) -> tuple[Run, Path]:
    """The same run with its first component pass in the edges pipeline and its last step as the Beam pipeline
    (``run_final``), as on a remote runner."""
    output_dir = tmp_path_factory.mktemp("pipeline-final")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(deduplicate, "final_runs_locally", lambda *_: False)
        patch.setattr(deduplicate, "first_pass_fused", lambda *_: True)
        return run_and_read(corpus, output_dir, IN_PROCESS), output_dir


def test_a_local_run_resolves_its_first_component_pass_in_the_driver(corpus, run, tmp_path, monkeypatch):
    """With a local runner and local files the edges pipeline has no component pass steps (``first_pass_fused``);
    the pass runs in this process from the edges file, and the run is the same."""
    assert run.result.verified_pairs > 0, "guard: edges to resolve"
    monkeypatch.setattr(deduplicate.ComponentPass, "expand",
                        lambda *_: pytest.fail("a local run fused its first component pass"))
    again = run_and_read(corpus, tmp_path / "again", IN_PROCESS)
    assert again.result == run.result and again.result.component_passes >= 1
    assert kept_ids(again) == kept_ids(run)


def test_the_last_step_in_the_driver_writes_what_its_pipeline_writes(corpus, run, pipeline_final, tmp_path):
    """``run_final_locally`` (what ``run`` took: a local runner and local files) against ``run_final``:
    the same kept rows, duplicate rows, counts and index rows, the index's parameters included."""
    assert deduplicate.final_runs_locally(str(tmp_path), IN_PROCESS, run.result.verified_pairs, 0)
    beam, beam_dir = pipeline_final
    by_id, by_doc = operator.itemgetter("id"), operator.itemgetter("doc_id")
    assert sorted(run.kept, key=by_id) == sorted(beam.kept, key=by_id)
    assert sorted(run.duplicates, key=by_doc) == sorted(beam.duplicates, key=by_doc)
    assert run.result == beam.result
    local_dir = tmp_path / "local-final"
    run_dedup(corpus.input_pattern, str(local_dir), DedupConfig(), IN_PROCESS)
    index = {name: pq.read_table(sorted((directory / "index").glob("signatures-*.parquet")))
             for name, directory in (("local", local_dir), ("beam", beam_dir))}
    assert index["local"].schema.equals(index["beam"].schema, check_metadata=True)
    assert sorted(index["local"].to_pylist(), key=by_doc) == sorted(index["beam"].to_pylist(), key=by_doc)
    assert 0 < index["local"].num_rows < run.result.kept  # the keepers with tokens


def test_rerun_removes_shards_of_an_earlier_run(rerun, stale_output_dir):
    assert not (stale_output_dir / "docs-00007-of-00009.parquet").exists()


def test_missing_input_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="matched no files"):
        run_dedup(str(tmp_path / "nothing-*.parquet"), str(tmp_path / "out"), DedupConfig(), IN_PROCESS)


def test_refuses_to_overwrite_its_own_input(tmp_path):
    pq.write_table(pa.Table.from_pylist([], schema=DOCUMENT_SCHEMA), tmp_path / "docs-00000-of-00001.parquet")
    with pytest.raises(ValueError, match="overwrite its own input"):
        run_dedup(str(tmp_path / "docs-*.parquet"), str(tmp_path), DedupConfig(), IN_PROCESS)


@pytest.mark.parametrize(
    ("exact", "near", "expected_method"),
    [(True, False, "exact"), (False, True, "near")],
)
def test_either_step_alone_removes_identical_copies(tmp_path, exact, near, expected_method):
    """With one step switched off the other still removes identical copies, and conservation holds."""
    texts = list(stdlib_texts(3).values())
    cluster = exact_cluster(texts[0])
    others = [document("github", f"lib/{i}.py", text) for i, text in enumerate(texts[1:])]
    rows = [doc.to_row() for doc in cluster.members + others]
    pq.write_table(pa.Table.from_pylist(rows, schema=DOCUMENT_SCHEMA), tmp_path / "in.parquet")
    config = DedupConfig(exact=exact, near=near)
    result = run_dedup(str(tmp_path / "in.parquet"), str(tmp_path / "out"), config, IN_PROCESS)
    kept = pq.read_table(sorted((tmp_path / "out").glob("docs-*.parquet"))).column("id").to_pylist()
    duplicates = pq.read_table(sorted((tmp_path / "out").glob("duplicates-*.parquet"))).to_pylist()
    assert sorted(kept) == sorted([cluster.keeper] + [doc.id for doc in others])
    assert {row["method"] for row in duplicates} == {expected_method} and len(duplicates) == 2
    assert result.documents_in == len(rows) == result.kept + result.exact_duplicates + result.near_duplicates


def test_empty_input_gives_empty_outputs(tmp_path):
    pq.write_table(pa.Table.from_pylist([], schema=DOCUMENT_SCHEMA), tmp_path / "in.parquet")
    result = run_dedup(str(tmp_path / "in.parquet"), str(tmp_path / "out"), DedupConfig(), IN_PROCESS)
    assert result == DedupResult(
        documents_in=0,
        kept=0,
        exact_duplicates=0,
        near_duplicates=0,
        previous_duplicates=0,
        component_passes=0,
        candidate_pairs=0,
        verified_pairs=0,
        rejected_pairs=0,
    )
    assert pq.read_table(sorted((tmp_path / "out").glob("docs-*.parquet"))).num_rows == 0
    assert pq.read_table(sorted((tmp_path / "out").glob("duplicates-*.parquet"))).schema.names == [
        "doc_id",
        "source",
        "location",
        "keeper_id",
        "method",
    ]
