"""Cluster shapes that stress the near-duplicate graph, end to end through ``run_dedup``.

* a star-like cluster of 1,000 forks of one real file must resolve to a single survivor
  while verifying a number of pairs linear in its size (no clique expansion: its LSH buckets hold
  ~1,000 members, far past the 11 that get all pairs, so only pivots keep it linear);
* a chain of overlapping windows of one file, each similar only to its neighbours, must be
  one component even though it takes several component passes to find it.
"""

from __future__ import annotations

import dataclasses
import itertools
import sysconfig
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from codemix.dedup.config import DedupConfig
from codemix.dedup.minhash import exact_jaccard, shingle_hashes
from codemix.dedup.near import MAX_PAIRS_PER_BUCKET, MIN_PIVOTS
from codemix.dedup.stage import DedupResult
from codemix.document import DOCUMENT_SCHEMA, Document
from codemix.pipelines.dedup.deduplicate import run_dedup
from tests.dedup.corpus import edit_lines
from tests.pipelines.dedup.test_deduplicate import document

RUNNER = ["--runner=FnApiRunner"]
FORKS = 1_000  # a clique would be 499,500 pairs, 50x the linear bound checked below
FORK_SOURCE = "bisect.py"  # small (285 shingles), so 1,000 copies sign quickly
PATCH = "    patched_value_{seed}_0 = compute_0(context, retries=0)"  # what edit_lines writes for one edit
CHAIN_SOURCE, CHAIN_DOCS, CHAIN_WINDOW, CHAIN_STEP = "difflib.py", 48, 40, 2


def stdlib(name: str) -> str:
    return (Path(sysconfig.get_path("stdlib")) / name).read_text(encoding="utf-8")


def shingles(text: str):
    return shingle_hashes(text, 5, False)


def read_outputs(output_dir: Path) -> tuple[list[str], list[dict]]:
    kept = pq.read_table(sorted(output_dir.glob("docs-*.parquet"))).column("id").to_pylist()
    return kept, pq.read_table(sorted(output_dir.glob("duplicates-*.parquet"))).to_pylist()


def write_docs(directory: Path, docs: list[Document]) -> str:
    directory.mkdir(parents=True)
    table = pa.Table.from_pylist([doc.to_row() for doc in docs], schema=DOCUMENT_SCHEMA)
    pq.write_table(table, directory / "in.parquet")
    return str(directory / "in.parquet")


# ---------------------------------------------------------------- 1,000 forks


@pytest.fixture(scope="module")
def forks(tmp_path_factory) -> tuple[list[Document], DedupResult, list[str], list[dict]]:
    text = stdlib(FORK_SOURCE)
    original = document("github", f"upstream/{FORK_SOURCE}", text, stars=100)
    copies = [document("github", f"fork{seed}/{FORK_SOURCE}", edit_lines(text, 1, seed)) for seed in range(1, FORKS)]
    docs = [original, *copies]
    root = tmp_path_factory.mktemp("forks")
    result = run_dedup(write_docs(root / "input", docs), str(root / "dedup"), DedupConfig(), RUNNER)
    return (docs, result, *read_outputs(root / "dedup"))


def test_every_fork_is_a_near_duplicate_of_every_other():
    """Guard: replacing any one line keeps Jaccard >= 0.9 to the original, so (Jaccard distance
    being a metric) any two forks are >= 0.8 apart from each other, the verification threshold."""
    text = stdlib(FORK_SOURCE)
    lines = text.splitlines()
    original = shingles(text)
    worst = min(
        exact_jaccard(original, shingles("\n".join([*lines[:i], PATCH.format(seed=12345), *lines[i + 1 :]]) + "\n"))
        for i, line in enumerate(lines)
        if line.strip()
    )
    assert 0.9 <= worst < 0.99, worst
    assert edit_lines(text, 1, seed=7).count("patched_value_7_0 = compute_0(context, retries=0)") == 1


def test_a_thousand_forks_leave_one_survivor(forks):
    docs, result, kept, duplicates = forks
    assert len(docs) == FORKS and kept == [docs[0].id]
    assert result.near_duplicates == FORKS - 1 and result.exact_duplicates == 0
    assert {row["keeper_id"] for row in duplicates} == {docs[0].id}


def test_a_thousand_forks_verify_a_linear_number_of_pairs(forks):
    """No clique expansion: a clique would be 499,500 pairs. A member meets at most k pivots plus
    the first pivot of each of its buckets, and in practice ~8 documents."""
    _, result, _, _ = forks
    config = DedupConfig()
    per_member = max(MIN_PIVOTS, MAX_PAIRS_PER_BUCKET // 46) + config.bands
    assert FORKS - 1 <= result.verified_pairs <= result.candidate_pairs <= per_member * FORKS
    assert result.candidate_pairs < 10 * FORKS


# ---------------------------------------------------------------- a chain that needs several passes


@pytest.fixture(scope="module")
def chain_docs() -> list[Document]:
    """Overlapping windows of one file, ids increasing along the chain (the slowest order for
    large-star/small-star); the last window has the most stars, so the survivor is not the label."""
    lines = [line for line in stdlib(CHAIN_SOURCE).splitlines() if line.strip()]
    docs = []
    for i in range(CHAIN_DOCS):
        window = lines[i * CHAIN_STEP : i * CHAIN_STEP + CHAIN_WINDOW]
        doc = document("github", f"chain/{i:03d}.py", "\n".join(window) + "\n", stars=i)
        docs.append(dataclasses.replace(doc, id=f"chain-{i:03d}"))
    return docs


def test_chain_is_a_chain(chain_docs):
    """Guard: neighbours are near duplicates, windows four apart are not (so the ends are at least
    CHAIN_DOCS / 3 verified edges apart), and the ends share nothing."""
    sets = [shingles(doc.text) for doc in chain_docs]
    assert all(exact_jaccard(a, b) >= 0.85 for a, b in itertools.pairwise(sets))
    assert all(exact_jaccard(sets[i], sets[j]) < 0.8 for i in range(len(sets)) for j in range(i + 4, len(sets)))
    assert exact_jaccard(sets[0], sets[-1]) == 0.0


def test_chain_converges_over_several_passes_to_one_survivor(chain_docs, tmp_path):
    config = DedupConfig(rounds_per_pass=1)
    result = run_dedup(write_docs(tmp_path / "input", chain_docs), str(tmp_path / "dedup"), config, RUNNER)
    kept, duplicates = read_outputs(tmp_path / "dedup")
    assert result.component_passes > 1, "fixture should need more than one pass"
    assert kept == [chain_docs[-1].id]
    assert {row["keeper_id"] for row in duplicates} == {chain_docs[-1].id}
    assert {row["method"] for row in duplicates} == {"near"} and len(duplicates) == CHAIN_DOCS - 1
