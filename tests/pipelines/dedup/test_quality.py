"""``run_dedup`` finds the pairs brute force finds: precision and recall on real code, offline.

The corpus is ~1,200 Python files from this virtualenv's site-packages, chosen by fixed path so it
is the same on every machine with the same pins: packages next to the copies another package vendors
(``pip/_vendor/requests`` beside ``requests``, ``setuptools/_vendor/packaging`` beside ``packaging``),
forks (``httpx``/``httpx2``, ``httpcore``/``httpcore2``), unrelated packages as background, and edited
copies of some files whose similarity falls on both sides of the threshold. Ground truth is exact
Jaccard of the pipeline's own shingles over every pair sharing a shingle (``dedup.evaluate``, which
also defines the pairs).

Precision is asserted on the pairs the run linked directly (its verified edges) and on cluster pairs
up to chaining, not on raw cluster pairs: clusters are connected components, so a chain of true
pairs puts its two ends together however far apart they are. Here rich's eleven Unicode width
tables (9.0 … 17.0, each within 0.8 of the next release, 0.56 from first to last) are one such
chain, and raw cluster-pair precision is about 0.85 because of it; ``bench/RESULTS.md`` reports it.
"""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from codemix.dedup.config import DedupConfig
from codemix.dedup.evaluate import QualityReport, evaluate
from codemix.document import DOCUMENT_SCHEMA, Document, make_doc_id
from codemix.pipelines.dedup.deduplicate import run_dedup
from tests.dedup.corpus import edit_lines

IN_PROCESS = ["--runner=FnApiRunner"]
PRECISION, RECALL = 0.98, 0.95

# (standalone, vendored or forked copy): both sides of each family are read whole.
FAMILIES = (
    ("requests", "pip/_vendor/requests"),
    ("idna", "pip/_vendor/idna"),
    ("urllib3", "pip/_vendor/urllib3"),
    ("packaging", "pip/_vendor/packaging"),
    ("packaging", "setuptools/_vendor/packaging"),
    ("pyparsing", "pip/_vendor/pyparsing"),
    ("certifi", "pip/_vendor/certifi"),
    ("rich", "pip/_vendor/rich"),
    ("pygments", "pip/_vendor/pygments"),
    ("six.py", "pip/_vendor/six.py"),
    ("typing_extensions.py", "pip/_vendor/typing_extensions.py"),
    ("httpx", "httpx2"),
    ("httpcore", "httpcore2"),
)
# Unrelated code: pairs that must not be linked, and LSH collisions for verification to reject.
BACKGROUND = ("click", "jinja2", "yaml", "pluggy", "markupsafe", "tqdm")
# Every EDIT_EVERY-th family file with at least EDIT_MIN_LINES lines gets an edited copy; the share
# of lines replaced cycles through EDIT_SHARES, which spans Jaccard ≈ 0.6-0.95 with 5-token shingles.
EDIT_EVERY, EDIT_MIN_LINES, EDIT_SHARES = 7, 40, (0.01, 0.03, 0.05, 0.08, 0.12)


def python_files(root: Path, name: str) -> list[Path]:
    path = root / name
    return [path] if path.is_file() else sorted(path.rglob("*.py"))


def corpus_files(root: Path) -> tuple[list[Path], list[Path]]:
    """(family files, background files); fails (not skips) when the environment lacks a package."""
    missing = [name for family in FAMILIES for name in family if not (root / name).exists()]
    missing += [name for name in BACKGROUND if not (root / name).exists()]
    if missing:
        pytest.fail(f"site-packages at {root} lacks {missing}; install the project with `make test`")
    family = sorted({path for names in FAMILIES for name in names for path in python_files(root, name)})
    background = [path for name in BACKGROUND for path in python_files(root, name)]
    return family, background


def site_document(location: str, text: str) -> Document:
    return Document(
        id=make_doc_id("site-packages", location),
        text=text,
        source="site-packages",
        kind="file",
        path=location,
        language="python",
        metadata={"location": location},
    )


def edited_copies(root: Path, family: list[Path]) -> list[Document]:
    """Forks made here: a few lines of a real file replaced, a different share for each copy."""
    sources = [path for path in family if len(path.read_text(encoding="utf-8").splitlines()) >= EDIT_MIN_LINES]
    copies = []
    for n, path in enumerate(sources[::EDIT_EVERY]):
        text = path.read_text(encoding="utf-8")
        lines = sum(1 for line in text.splitlines() if line.strip())
        edits = max(1, round(lines * EDIT_SHARES[n % len(EDIT_SHARES)]))
        copies.append(site_document(f"edited/{path.relative_to(root)}", edit_lines(text, edits, seed=n)))
    return copies


def build_documents(root: Path) -> list[Document]:
    family, background = corpus_files(root)
    documents = [
        site_document(str(path.relative_to(root)), path.read_text(encoding="utf-8")) for path in family + background
    ]
    return documents + edited_copies(root, family)


def write_documents(documents: list[Document], directory: Path, shards: int = 4) -> str:
    table = pa.Table.from_pylist([doc.to_row() for doc in documents], schema=DOCUMENT_SCHEMA)
    step = -(-len(documents) // shards)
    for shard in range(shards):
        pq.write_table(table.slice(shard * step, step), directory / f"docs-{shard:05d}.parquet")
    return str(directory / "docs-*.parquet")


@pytest.fixture(scope="module")
def quality(tmp_path_factory) -> QualityReport:
    documents = build_documents(Path(sysconfig.get_paths()["purelib"]))
    pattern = write_documents(documents, tmp_path_factory.mktemp("input"))
    output_dir = tmp_path_factory.mktemp("dedup")
    config = DedupConfig()
    run_dedup(pattern, str(output_dir), config, IN_PROCESS)
    return evaluate([doc.id for doc in documents], [doc.text for doc in documents], str(output_dir), config)


def test_corpus_holds_true_and_confusable_pairs(quality):
    """Guards against a vacuous pass: enough real near duplicates, and pairs just under the threshold."""
    assert quality.documents >= 1000
    assert quality.near_pairs.actual >= 100, quality
    assert quality.confusable_pairs >= 50, quality


@pytest.mark.parametrize("pairs", ["all_pairs", "near_pairs"])
def test_recall(quality, pairs):
    """Pairs at or above the threshold end in one cluster."""
    score = getattr(quality, pairs)
    assert score.recall >= RECALL, f"{pairs}: {score} recall {score.recall:.4f}"


def test_linked_pairs_are_true_pairs(quality):
    """Every edge the run clustered is a pair at or above the threshold, and few true pairs lack one."""
    edges = quality.edges
    assert edges.precision >= PRECISION, f"{edges} precision {edges.precision:.4f}"
    assert edges.recall >= RECALL, f"{edges} recall {edges.recall:.4f}"


def test_clusters_join_only_chains_of_true_pairs(quality):
    """Cluster pairs are pairs connected through true pairs: what clustering adds is chaining, not errors."""
    score = quality.transitive
    assert score.precision >= PRECISION, f"{score} precision {score.precision:.4f}"
