"""Incremental dedup: a run writes a signature index, and a later run drops what duplicates it.

The earlier build's input and output documents are deleted before the later run, so the later run
can only have used the index (no rehashing of the earlier corpus).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from codemix.config import ConfigError
from codemix.dedup.config import DedupConfig
from codemix.dedup.index import METADATA_KEY, index_parameters
from codemix.dedup.minhash import from_bytes, make_permutations, shingle_hashes, signature
from codemix.dedup.stage import DedupResult
from codemix.document import DOCUMENT_SCHEMA, Document
from codemix.pipelines.dedup.deduplicate import run_dedup
from tests.dedup.corpus import edit_lines, stdlib_texts, true_jaccard
from tests.pipelines.dedup.test_deduplicate import document

RUNNER = ["--runner=FnApiRunner"]


@dataclass(slots=True)
class Build:
    output_dir: Path
    result: DedupResult
    kept: list[dict]
    duplicates: dict[str, dict]  # doc_id -> row
    index: pa.Table

    @property
    def index_glob(self) -> str:
        return str(self.output_dir / "index" / "*.parquet")


def write_docs(directory: Path, docs: list[Document]) -> str:
    directory.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist([d.to_row() for d in docs], schema=DOCUMENT_SCHEMA), directory / "in.parquet")
    return str(directory / "in.parquet")


def build(input_pattern: str, output_dir: Path, config: DedupConfig) -> Build:
    result = run_dedup(input_pattern, str(output_dir), config, RUNNER)
    kept = pq.read_table(sorted(output_dir.glob("docs-*.parquet"))).to_pylist()
    duplicates = pq.read_table(sorted(output_dir.glob("duplicates-*.parquet"))).to_pylist()
    index = pq.read_table(sorted((output_dir / "index").glob("*.parquet")))
    return Build(output_dir, result, kept, {row["doc_id"]: row for row in duplicates}, index)


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return list(stdlib_texts(4).values())


@pytest.fixture(scope="module")
def earlier_docs(texts) -> dict[str, Document]:
    return {
        "a": document("github", "up/a.py", texts[0]),
        "b": document("github", "up/b.py", texts[1], stars=50),
        "b_fork": document("github", "fork/b.py", edit_lines(texts[1], 2, seed=1)),  # removed in the earlier build
        "c": document("github", "up/c.py", texts[2]),
    }


@pytest.fixture(scope="module")
def new_docs(texts, earlier_docs) -> dict[str, Document]:
    fork = edit_lines(texts[1], 3, seed=2)
    return {
        # Re-crawled at the same location, so the same id as its earlier self, and lightly edited.
        "a_recrawl": document("github", "up/a.py", edit_lines(texts[0], 2, seed=3)),
        # Outranks everything by stars, but an earlier document always keeps.
        "b_fork2": document("github", "fork2/b.py", fork, stars=10_000),
        "b_fork2_copy": document("gitlab", "mirror/b.py", fork),
        "c_copy": document("gitlab", "vendored/c.py", texts[2]),
        "c_rewrite": document("github", "rewrite/c.py", edit_lines(texts[2], 120, seed=4)),
        "d": document("github", "new/d.py", texts[3], stars=5),
        "d_fork": document("github", "fork/d.py", edit_lines(texts[3], 2, seed=5)),
    }


@pytest.fixture(scope="module")
def earlier(tmp_path_factory, earlier_docs) -> Build:
    root = tmp_path_factory.mktemp("earlier")
    done = build(write_docs(root / "input", list(earlier_docs.values())), root / "dedup", DedupConfig())
    shutil.rmtree(root / "input")
    for path in (root / "dedup").glob("docs-*.parquet"):
        path.unlink()
    return done


@pytest.fixture(scope="module")
def later(tmp_path_factory, earlier, new_docs) -> Build:
    root = tmp_path_factory.mktemp("later")
    config = DedupConfig(previous_indexes=[earlier.index_glob])
    return build(write_docs(root / "input", list(new_docs.values())), root / "dedup", config)


def shingles(text: str) -> set[int]:
    return set(shingle_hashes(text, 5, False).tolist())


def test_fixture_similarities(texts, earlier_docs, new_docs):
    def jaccard(x: Document, y: Document) -> float:
        return true_jaccard(shingles(x.text), shingles(y.text))

    assert earlier_docs["a"].id == new_docs["a_recrawl"].id
    for old, new in (("a", "a_recrawl"), ("b", "b_fork2"), ("c", "c_copy")):
        assert jaccard(earlier_docs[old], new_docs[new]) > 0.9
    assert jaccard(earlier_docs["c"], new_docs["c_rewrite"]) < 0.5
    assert jaccard(new_docs["d"], new_docs["d_fork"]) > 0.9
    assert max(jaccard(new_docs["d"], old) for old in earlier_docs.values()) < 0.3


def test_index_holds_the_kept_documents_signatures(earlier, earlier_docs):
    kept = {earlier_docs[name].id for name in ("a", "b", "c")}
    assert earlier.result.near_duplicates == 1, "fixture should remove b_fork in the earlier build"
    assert sorted(earlier.index.column("doc_id").to_pylist()) == sorted(kept)
    assert earlier.index.schema.names == ["doc_id", "source", "location", "signature", "kind"]
    permutations = make_permutations(256, 1)
    for row in earlier.index.to_pylist():
        doc = next(d for d in earlier_docs.values() if d.id == row["doc_id"])
        assert (row["source"], row["location"]) == (doc.source, doc.metadata["location"])
        assert np.array_equal(from_bytes(row["signature"]), signature(shingle_hashes(doc.text, 5, False), permutations))


def test_index_records_the_minhash_parameters(earlier):
    stored = json.loads(earlier.index.schema.metadata[METADATA_KEY])
    assert stored == index_parameters(DedupConfig()) and stored["num_perm"] == 256


@pytest.mark.parametrize(("name", "earlier_name"), [("a_recrawl", "a"), ("b_fork2", "b"), ("c_copy", "c")])
def test_new_duplicates_of_earlier_documents_are_dropped_as_previous(later, earlier_docs, new_docs, name, earlier_name):
    row = later.duplicates[new_docs[name].id]
    assert (row["method"], row["keeper_id"]) == ("previous", earlier_docs[earlier_name].id)


def test_exact_copy_of_a_previous_duplicate_names_the_earlier_document(later, earlier_docs, new_docs):
    row = later.duplicates[new_docs["b_fork2_copy"].id]
    assert (row["method"], row["keeper_id"]) == ("exact", earlier_docs["b"].id)


def test_new_near_duplicates_among_themselves_still_use_the_rank(later, new_docs):
    row = later.duplicates[new_docs["d_fork"].id]
    assert (row["method"], row["keeper_id"]) == ("near", new_docs["d"].id)


def test_only_new_unrelated_documents_are_kept_and_earlier_ones_never_output(later, new_docs, earlier_docs):
    assert sorted(row["id"] for row in later.kept) == sorted(new_docs[name].id for name in ("c_rewrite", "d"))
    assert later.result == DedupResult(
        documents_in=len(new_docs),
        kept=2,
        exact_duplicates=1,
        near_duplicates=1,
        previous_duplicates=3,
        component_passes=later.result.component_passes,
        candidate_pairs=later.result.candidate_pairs,
        verified_pairs=later.result.verified_pairs,
        rejected_pairs=later.result.rejected_pairs,
    )
    assert later.result.verified_pairs >= 3  # d-d_fork, and a, b, c with their new duplicates


def test_new_index_holds_only_this_runs_kept_documents(later, new_docs):
    assert sorted(later.index.column("doc_id").to_pylist()) == sorted(new_docs[n].id for n in ("c_rewrite", "d"))


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"seed": 2}, "'seed': 2"),
        ({"num_perm": 128, "bands": 16, "rows": 8}, "'num_perm': 128"),
        ({"shingle_size": 4}, "'shingle_size': 4"),
    ],
)
def test_index_built_with_other_parameters_is_refused(earlier, tmp_path, change, field):
    config = DedupConfig(previous_indexes=[earlier.index_glob], **change)
    docs = write_docs(tmp_path / "input", [document("github", "x.py", "print('x')")])
    with pytest.raises(ConfigError, match=r"dedup\.previous_indexes\[0\].*cannot be compared") as error:
        run_dedup(docs, str(tmp_path / "out"), config, RUNNER)
    assert field in str(error.value)
    assert not (tmp_path / "out").exists(), "refused before any pipeline ran"


def test_glob_matching_nothing_is_an_error(tmp_path):
    config = DedupConfig(previous_indexes=[str(tmp_path / "index" / "*.parquet")])
    docs = write_docs(tmp_path / "input", [document("github", "x.py", "print('x')")])
    with pytest.raises(FileNotFoundError, match=r"dedup\.previous_indexes\[0\]: .* matched no files"):
        run_dedup(docs, str(tmp_path / "out"), config, RUNNER)


def test_a_file_that_is_not_an_index_is_refused(tmp_path):
    docs = write_docs(tmp_path / "input", [document("github", "x.py", "print('x')")])
    config = DedupConfig(previous_indexes=[docs])
    with pytest.raises(ConfigError, match="not a codemix signature index"):
        run_dedup(docs, str(tmp_path / "out"), config, RUNNER)


def test_refuses_to_overwrite_the_index_it_reads(earlier, tmp_path):
    shutil.copytree(earlier.output_dir / "index", tmp_path / "out" / "index")
    config = DedupConfig(previous_indexes=[str(tmp_path / "out" / "index" / "*.parquet")])
    docs = write_docs(tmp_path / "input", [document("github", "x.py", "print('x')")])
    with pytest.raises(ValueError, match="would overwrite an index it reads"):
        run_dedup(docs, str(tmp_path / "out"), config, RUNNER)
    assert list((tmp_path / "out" / "index").glob("*.parquet")), "nothing deleted"


def test_previous_indexes_need_near_dedup(earlier, tmp_path):
    config = DedupConfig(near=False, previous_indexes=[earlier.index_glob])
    docs = write_docs(tmp_path / "input", [document("github", "x.py", "print('x')")])
    with pytest.raises(ConfigError, match=r"dedup\.previous_indexes.*dedup\.near: true"):
        run_dedup(docs, str(tmp_path / "out"), config, RUNNER)
