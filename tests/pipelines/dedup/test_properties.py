"""Properties of ``run_dedup`` on generated corpora of real code, checked with hypothesis.

Each corpus holds chunks of standard-library modules (one module per base text, so different bases
are unrelated), copies of them with a few lines replaced (near duplicates), verbatim copies (exact
duplicates) and token-less texts, with random stars and licenses. The properties:

  * the result equals a reference model computed in memory (exact groups by text; then, among
    their keepers, components of the pairs that share an LSH band and whose exact Jaccard reaches
    the threshold; every group keeps its best ``rank_key``). Buckets here are small, so the
    pipeline verifies every pair of a bucket and must match the model exactly;
  * every group of identical texts leaves exactly one member that is not an "exact" row, its
    top-ranked one; every kept document is the top-ranked member of the documents naming it;
  * the result does not depend on the order of rows or how they are split into files;
  * running dedup on its own output removes nothing.

Beam runs take seconds (three per example), so examples are few (two, of 7 to 31 documents), derandomized,
and without a deadline; each asserts that it holds the planted exact group and near duplicate.
"""

from __future__ import annotations

import itertools
import random
import sysconfig
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemix.dedup.config import DedupConfig
from codemix.dedup.keeper import rank_key
from codemix.dedup.minhash import band_keys, exact_jaccard, make_permutations, shingle_hashes, signature
from codemix.document import DOCUMENT_SCHEMA, Document
from codemix.pipelines.dedup.deduplicate import run_dedup
from tests.dedup.corpus import STDLIB_MODULES
from tests.dedup.test_components import union_find_labels
from tests.pipelines.dedup.test_deduplicate import document

RUNNER = ["--runner=FnApiRunner"]
CONFIG = DedupConfig()
CHUNK_LINES = 40
EDITABLE_LINES = range(0, CHUNK_LINES, 5)
BASES = 4
PROPERTY_SETTINGS = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def base_chunks() -> list[list[str]]:
    """CHUNK_LINES non-blank lines from each of BASES stdlib modules, past their headers."""
    root = Path(sysconfig.get_path("stdlib"))
    chunks = []
    for name in STDLIB_MODULES[:BASES]:
        lines = [line for line in (root / name).read_text(encoding="utf-8").splitlines() if line.strip()]
        chunks.append(lines[30 : 30 + CHUNK_LINES])
    if len(chunks) < BASES or any(len(chunk) < CHUNK_LINES for chunk in chunks):
        raise AssertionError("need longer stdlib modules for the property corpus")
    return chunks


CHUNKS = base_chunks()


def variant_text(base: int, edits: tuple[tuple[int, int], ...]) -> str:
    """The base chunk with each (line, replacement) edit applied; no edits gives the chunk itself."""
    lines = list(CHUNKS[base])
    for line, replacement in edits:
        lines[line] = f"    patched_{replacement} = recompute(state, attempt={replacement})"
    return "\n".join(lines) + "\n"


texts = st.one_of(
    st.builds(
        variant_text,
        st.integers(0, BASES - 1),
        st.lists(st.tuples(st.sampled_from(EDITABLE_LINES), st.integers(0, 2)), max_size=2).map(tuple),
    ),
    st.sampled_from(["", "()"]),  # no tokens: never a near duplicate, but identical ones are exact duplicates
)


@st.composite
def corpora(draw) -> list[Document]:
    """A corpus that always contains an exact pair and a one-line edit of the same base, plus random documents."""
    base = draw(st.integers(0, BASES - 1))
    edit = draw(st.sampled_from(EDITABLE_LINES))
    planted = [variant_text(base, ()), variant_text(base, ()), variant_text(base, ((edit, 0),))]
    # At least 4 others, so that even Hypothesis's first (simplest) example holds more than the planted three.
    others = draw(st.lists(texts, min_size=4, max_size=24))
    copies = draw(st.lists(st.integers(0, 19), max_size=4))  # verbatim copies of earlier texts
    all_texts = planted + others
    all_texts += [all_texts[i % len(all_texts)] for i in copies]
    stars = draw(st.lists(st.none() | st.integers(0, 3), min_size=len(all_texts), max_size=len(all_texts)))
    licenses = draw(
        st.lists(st.sampled_from(["", "MIT", "GPL-3.0-only"]), min_size=len(all_texts), max_size=len(all_texts))
    )
    return [
        document("github", f"repo{i}/file.py", text, license=license, **({} if star is None else {"stars": star}))
        for i, (text, star, license) in enumerate(zip(all_texts, stars, licenses, strict=True))
    ]


# ---------------------------------------------------------------- running and reading


@dataclass(slots=True, frozen=True)
class Outcome:
    kept: frozenset[str]
    duplicates: dict[str, tuple[str, str]]  # doc_id -> (keeper_id, method)


def write_split(directory: Path, rows: list[dict], cuts: list[int]) -> str:
    """Rows into Parquet files split at ``cuts``; returns the glob."""
    directory.mkdir(parents=True)
    bounds = [0, *sorted(set(cuts)), len(rows)]
    for n, (start, end) in enumerate(itertools.pairwise(bounds)):
        pq.write_table(pa.Table.from_pylist(rows[start:end], schema=DOCUMENT_SCHEMA), directory / f"in-{n:03d}.parquet")
    return str(directory / "in-*.parquet")


def dedup(input_pattern: str, output_dir: Path) -> Outcome:
    result = run_dedup(input_pattern, str(output_dir), CONFIG, RUNNER)
    kept = pq.read_table(sorted(output_dir.glob("docs-*.parquet"))).column("id").to_pylist()
    rows = pq.read_table(sorted(output_dir.glob("duplicates-*.parquet"))).to_pylist()
    assert result.kept == len(kept) and len(kept) + len(rows) == result.documents_in
    return Outcome(frozenset(kept), {row["doc_id"]: (row["keeper_id"], row["method"]) for row in rows})


def run_in(tmp: Path, docs: list[Document], order_seed: int | None = None, cuts: tuple[int, ...] = ()) -> Outcome:
    rows = [doc.to_row() for doc in docs]
    if order_seed is not None:
        random.Random(order_seed).shuffle(rows)
    return dedup(write_split(tmp / "input", rows, list(cuts)), tmp / "output")


# ---------------------------------------------------------------- the reference model


def rank(doc: Document) -> tuple:
    return rank_key({"id": doc.id, "license": doc.license, "metadata": doc.metadata}, CONFIG.keeper_order)


def reference(docs: list[Document]) -> Outcome:
    """Exact groups, then verified LSH components among their keepers, each keeping its best rank."""
    by_text = defaultdict(list)
    for doc in docs:
        by_text[doc.text].append(doc)
    exact_keeper = {doc.id: min(group, key=rank) for group in by_text.values() for doc in group}
    keepers = sorted({keeper.id: keeper for keeper in exact_keeper.values()}.values(), key=lambda doc: doc.id)
    permutations = make_permutations(CONFIG.num_perm, CONFIG.seed)
    shingles = {doc.id: shingle_hashes(doc.text, CONFIG.shingle_size, CONFIG.lowercase) for doc in keepers}
    bands = {
        doc_id: set(band_keys(signature(hashes, permutations), CONFIG.bands, CONFIG.rows))
        for doc_id, hashes in shingles.items()
        if hashes.size
    }
    edges = [
        (a, b)
        for a, b in itertools.combinations(sorted(bands), 2)
        if bands[a] & bands[b] and exact_jaccard(shingles[a], shingles[b]) >= CONFIG.jaccard_threshold
    ]
    labels = union_find_labels(edges)
    components = defaultdict(list)
    for doc in keepers:
        components[labels.get(doc.id, doc.id)].append(doc)
    survivor = {doc.id: min(members, key=rank).id for members in components.values() for doc in members}
    duplicates = {}
    for doc in docs:
        final = survivor[exact_keeper[doc.id].id]
        if exact_keeper[doc.id].id != doc.id:
            duplicates[doc.id] = (final, "exact")
        elif final != doc.id:
            duplicates[doc.id] = (final, "near")
    return Outcome(frozenset(survivor.values()), duplicates)


# ---------------------------------------------------------------- the properties


def assert_exact_groups_keep_their_best_member(docs: list[Document], outcome: Outcome) -> None:
    """Of each group of identical texts, only the top-ranked member is not an "exact" row; at most one is kept."""
    by_text = defaultdict(list)
    for doc in docs:
        by_text[doc.text].append(doc)
    for group in by_text.values():
        not_exact = [doc for doc in group if outcome.duplicates.get(doc.id, ("", "kept"))[1] != "exact"]
        assert [doc.id for doc in not_exact] == [min(group, key=rank).id]
        assert len([doc for doc in group if doc.id in outcome.kept]) <= 1


def assert_survivors_are_top_ranked(docs: list[Document], outcome: Outcome) -> None:
    """Every duplicate names a kept document that outranks it (so a kept one tops everything naming it)."""
    by_id = {doc.id: doc for doc in docs}
    for doc_id, (keeper_id, _) in outcome.duplicates.items():
        assert keeper_id in outcome.kept, "every duplicate names a kept document"
        assert rank(by_id[keeper_id]) < rank(by_id[doc_id])


@settings(PROPERTY_SETTINGS, max_examples=2)
@given(docs=corpora(), order_seed=st.integers(0, 2**32 - 1), cuts=st.lists(st.integers(1, 30), max_size=3))
def test_dedup_properties(tmp_path_factory, docs, order_seed, cuts):
    """Every property in the module docstring, on one corpus: three runs (given order, shuffled and
    re-split, and on the first run's output) share the corpus, since each Beam run costs seconds."""
    tmp = tmp_path_factory.mktemp("run")
    first = run_in(tmp / "given", docs)
    assert len({doc.text for doc in docs}) < len(docs), "the corpus plants an exact group"
    assert any(method == "near" for _, method in first.duplicates.values()), "the corpus plants a near duplicate"
    assert first == reference(docs), "matches the reference model"
    assert_exact_groups_keep_their_best_member(docs, first)
    assert_survivors_are_top_ranked(docs, first)
    shuffled = run_in(tmp / "shuffled", docs, order_seed, tuple(cut for cut in cuts if cut < len(docs)))
    assert shuffled == first, "independent of input order and file split"
    again = dedup(str(tmp / "given" / "output" / "docs-*.parquet"), tmp / "again")
    assert again == Outcome(first.kept, {}), "idempotent: dedup of the kept documents removes nothing"


def test_reference_model_sees_what_the_corpus_plants():
    """Guard: the model itself finds the planted exact pair and one-line edit (so matching it means something)."""
    docs = [document("github", f"r{i}/f.py", text) for i, text in enumerate([variant_text(0, ())] * 2)]
    docs.append(document("github", "r2/f.py", variant_text(0, ((5, 0),))))
    docs.append(document("github", "r3/f.py", variant_text(1, ())))
    model = reference(docs)
    assert sorted(method for _, method in model.duplicates.values()) == ["exact", "near"]
    assert docs[3].id in model.kept
