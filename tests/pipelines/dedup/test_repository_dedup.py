"""``run_repo_dedup`` on repositories built from real standard-library packages, their forks and mirrors.

Each "repository" is a stdlib package directory (http/, email/, json/...) read as files of one
repo; forks are copies with lines edited, a file added and a file removed, mirrors are identical
copies under another source. The corpus is deduplicated twice (in-process, then two worker
processes), so determinism is checked across runs and execution modes.
"""

from __future__ import annotations

import itertools
import operator
import sysconfig
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from codemix.dedup.config import DedupConfig
from codemix.dedup.minhash import estimated_jaccard, make_permutations, shingle_hashes, signature
from codemix.dedup.repos import (
    REPO_DUPLICATE_SCHEMA,
    RepoDedupResult,
    check_conservation,
    repo_key,
    repo_rank,
    summary_row,
    verified_bucket_edges,
)
from codemix.document import DOCUMENT_SCHEMA, Document, make_doc_id
from codemix.pipelines.dedup.repository_dedup import CombineRepoSummary, file_summary, run_repo_dedup
from tests.dedup.corpus import edit_lines, true_jaccard

IN_PROCESS = ["--runner=FnApiRunner"]
TWO_PROCESSES = ["--runner=FnApiRunner", "--direct_num_workers=2", "--direct_running_mode=multi_processing"]
STDLIB = Path(sysconfig.get_path("stdlib"))


@dataclass(slots=True)
class Repo:
    source: str
    name: str
    files: dict[str, str]  # path -> text
    license: str = ""
    metadata: dict = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str]:
        return self.source, self.name

    def documents(self) -> list[Document]:
        return [
            Document(
                id=make_doc_id(self.source, f"{self.name}@HEAD:{path}"),
                text=text,
                source=self.source,
                kind="file",
                repo=self.name,
                path=path,
                language="python",
                license=self.license,
                metadata={"location": f"{self.name}@HEAD:{path}", **self.metadata},
            )
            for path, text in sorted(self.files.items())
        ]


def package(name: str) -> dict[str, str]:
    """A stdlib package's .py files by path relative to the package; fails (not skips) if absent."""
    root = STDLIB / name
    files = {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.py"))}
    if len(files) < 2:
        raise AssertionError(f"stdlib package {root} not found or too small")
    return files


def fork_of(files: dict[str, str], edited: list[str], added: dict[str, str], removed: list[str], seed: int) -> dict:
    """A fork: some files drift by a few lines, one is added and one deleted."""
    forked = {path: text for path, text in files.items() if path not in removed}
    for n, path in enumerate(edited):
        forked[path] = edit_lines(files[path], 4, seed=seed + n)
    return {**forked, **added}


@dataclass(slots=True)
class Cluster:
    members: list[Repo]
    keeper: tuple[str, str]


def http_cluster() -> Cluster:
    """Upstream, a fork and a mirror: all permissive or unlicensed; the most-starred upstream survives."""
    files = package("http")
    upstream = Repo("github", "python/http", files, "PSF-2.0", {"stars": 5000, "forks": 900})
    added = {"http/retry.py": (STDLIB / "colorsys.py").read_text(encoding="utf-8")}
    fork_files = fork_of(files, ["client.py", "server.py"], added, ["__init__.py"], seed=11)
    fork = Repo("github", "alice/http", fork_files, "MIT", {"stars": 3, "forks": 0})
    mirror = Repo("gitlab", "mirrors/http", dict(files))
    return Cluster([upstream, fork, mirror], upstream.key)


def email_cluster() -> Cluster:
    """A GPL upstream with many stars and a permissive fork with few: the permissive fork survives."""
    files = package("email")
    upstream = Repo("github", "python/email", files, "GPL-3.0-only", {"stars": 10_000})
    added = {"contrib/quoting.py": (STDLIB / "quopri.py").read_text(encoding="utf-8")}
    fork_files = fork_of(files, ["message.py", "utils.py", "_policybase.py"], added, ["mime/audio.py"], seed=21)
    fork = Repo("github", "zoe/email", fork_files, "Apache-2.0", {"stars": 2, "updated_at": "2025-01-01"})
    return Cluster([upstream, fork], fork.key)


def unrelated_repos() -> list[Repo]:
    """Distinct packages; wsgiref holds two identical files, toolkit vendors two of json's files verbatim."""
    wsgiref = package("wsgiref")
    wsgiref["compat/util.py"] = wsgiref["util.py"]
    json_files = package("json")
    toolkit = {
        **package("dbm"),
        "vendor/decoder.py": json_files["decoder.py"],
        "vendor/scanner.py": json_files["scanner.py"],
    }
    repos = [
        Repo("github", "python/json", json_files, "PSF-2.0", {"stars": 1}),
        Repo("github", "python/wsgiref", wsgiref),
        Repo("github", "carol/toolkit", toolkit, "MIT"),
        Repo("github", "python/concurrent", package("concurrent")),
        Repo("github", "python/xmlrpc", package("xmlrpc")),
        Repo("gitlab", "python/metadata", package("importlib/metadata")),
        Repo("gitlab", "python/sqlite3", package("sqlite3")),
    ]
    # Token-less repositories are never banded, so these two identical ones both survive.
    repos += [Repo("github", f"empty/{n}", {"__init__.py": "", "data.json": "{}"}) for n in ("a", "b")]
    return repos


def passthrough_documents(shared_transcripts: Path, copied_file: str) -> list[Document]:
    """Transcripts (one naming a removed repository) and a repo-less dump record copying a removed fork's file."""
    docs = [
        Document(
            id=make_doc_id("agent", path.name),
            text=path.read_text(encoding="utf-8"),
            source="agent",
            kind="transcript",
            repo="alice/http" if n == 0 else "",
            path=path.name,
        )
        for n, path in enumerate(sorted(shared_transcripts.rglob("*.traj*")))
    ]
    record = Document(
        id=make_doc_id("stack", "dump#row0"), text=copied_file, source="stack", kind="file", path="client.py"
    )
    return [*docs, record]


@dataclass(slots=True)
class Corpus:
    input_pattern: str
    clusters: dict[str, Cluster]
    unrelated: list[Repo]
    passthrough: list[Document]
    documents: list[Document]

    def repo(self, key: tuple[str, str]) -> Repo:
        repos = [r for c in self.clusters.values() for r in c.members] + self.unrelated
        return next(r for r in repos if r.key == key)


def build_corpus(root: Path, shared_transcripts: Path) -> Corpus:
    clusters = {"http": http_cluster(), "email": email_cluster()}
    unrelated = unrelated_repos()
    fork_client = clusters["http"].members[1].files["client.py"]
    passthrough = passthrough_documents(shared_transcripts, fork_client)
    repos = [repo for cluster in clusters.values() for repo in cluster.members] + unrelated
    documents = [doc for repo in repos for doc in repo.documents()] + passthrough
    table = pa.Table.from_pylist([doc.to_row() for doc in documents], schema=DOCUMENT_SCHEMA)
    root.mkdir(parents=True, exist_ok=True)
    # Three shards that cut through repositories, as the filter stage's output does.
    for n, start in enumerate(range(0, table.num_rows, 40)):
        pq.write_table(table.slice(start, 40), root / f"docs-{n:05d}.parquet")
    return Corpus(str(root / "docs-*.parquet"), clusters, unrelated, passthrough, documents)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, shared_transcripts) -> Corpus:
    return build_corpus(tmp_path_factory.mktemp("repos-input"), shared_transcripts)


@dataclass(slots=True)
class Run:
    result: RepoDedupResult
    kept: list[dict]
    duplicates: list[dict]

    def kept_repos(self) -> set[tuple[str, str]]:
        return {(row["source"], row["repo"]) for row in self.kept if row["kind"] == "file" and row["repo"]}


def run_and_read(corpus: Corpus, output_dir: Path, args: list[str]) -> Run:
    result = run_repo_dedup(corpus.input_pattern, str(output_dir), DedupConfig(), args)
    kept = pq.read_table(sorted(output_dir.glob("docs-*.parquet"))).to_pylist()
    duplicates = pq.read_table(sorted(output_dir.glob("duplicates-*.parquet"))).to_pylist()
    return Run(result, kept, duplicates)


@pytest.fixture(scope="module")
def run(corpus, tmp_path_factory) -> Run:
    return run_and_read(corpus, tmp_path_factory.mktemp("repos-out"), IN_PROCESS)


@pytest.fixture(scope="module")
def rerun(corpus, tmp_path_factory) -> Run:
    return run_and_read(corpus, tmp_path_factory.mktemp("repos-rerun"), TWO_PROCESSES)


def repo_shingles(repo: Repo) -> set[int]:
    return set().union(*(shingle_hashes(text, 5, False).tolist() for text in repo.files.values()))


# ---------------------------------------------------------------- the fixture is what the tests claim


def test_fixture_plants_forks_mirrors_and_exact_duplicates(corpus):
    for name, cluster in corpus.clusters.items():
        sets = [repo_shingles(repo) for repo in cluster.members]
        assert all(0.85 < true_jaccard(a, b) for a, b in itertools.combinations(sets, 2)), name
        upstream, fork = cluster.members[0].files, cluster.members[1].files
        assert set(upstream) - set(fork) and set(fork) - set(upstream), f"{name}: fork adds and removes a file"
        assert sum(fork[p] != upstream[p] for p in set(fork) & set(upstream)) >= 2, f"{name}: fork edits files"
    repos = [c.members[0] for c in corpus.clusters.values()] + corpus.unrelated
    sets = [s for s in map(repo_shingles, repos) if s]
    assert len(sets) == len(repos) - 2, "exactly the two empty repositories have no tokens"
    assert all(true_jaccard(a, b) < 0.6 for a, b in itertools.combinations(sets, 2))
    wsgiref, toolkit, json_repo = (
        corpus.repo(("github", n)) for n in ("python/wsgiref", "carol/toolkit", "python/json")
    )
    assert wsgiref.files["util.py"] == wsgiref.files["compat/util.py"]
    assert toolkit.files["vendor/decoder.py"] == json_repo.files["decoder.py"]
    assert len({doc.id for doc in corpus.documents}) == len(corpus.documents)


# ---------------------------------------------------------------- end to end


def test_conservation_every_document_is_kept_or_removed_with_its_repository(run, corpus):
    removed = {(row["source"], row["repo"]): row["documents"] for row in run.duplicates}
    assert len(run.kept) + sum(removed.values()) == len(corpus.documents) == run.result.documents_in
    for key, documents in removed.items():
        assert documents == len(corpus.repo(key).files)
    kept_ids = [row["id"] for row in run.kept]
    removed_ids = {doc.id for key in removed for doc in corpus.repo(key).documents()}
    assert len(set(kept_ids)) == len(kept_ids) and not set(kept_ids) & removed_ids
    assert set(kept_ids) | removed_ids == {doc.id for doc in corpus.documents}


@pytest.mark.parametrize("name", ["http", "email"])
def test_fork_and_mirror_collapse_to_the_top_ranked_repository(run, corpus, name):
    cluster = corpus.clusters[name]
    assert {repo.key for repo in cluster.members} & run.kept_repos() == {cluster.keeper}
    rows = {(row["source"], row["repo"]): row for row in run.duplicates}
    for repo in cluster.members:
        if repo.key != cluster.keeper:
            assert (rows[repo.key]["keeper_source"], rows[repo.key]["keeper_repo"]) == cluster.keeper


def test_kept_repositories_keep_every_file_even_exact_duplicates(run, corpus):
    """Two identical files inside wsgiref, and toolkit's copies of json's files, all survive."""
    kept_ids = {row["id"] for row in run.kept}
    keepers = [corpus.repo(c.keeper) for c in corpus.clusters.values()] + corpus.unrelated
    for repo in keepers:
        assert {doc.id for doc in repo.documents()} <= kept_ids, repo.key


def test_unrelated_repositories_all_survive(run, corpus):
    assert {repo.key for repo in corpus.unrelated} <= run.kept_repos()


def test_passthrough_and_kept_documents_are_written_unchanged(run, corpus):
    originals = {doc.id: doc.to_row() for doc in corpus.documents}
    assert all(row == originals[row["id"]] for row in run.kept)
    kept_ids = {row["id"] for row in run.kept}
    assert {doc.id for doc in corpus.passthrough} <= kept_ids
    assert any(doc.kind == "transcript" for doc in corpus.passthrough)


def test_result_counts_match_the_files(run, corpus):
    repositories = len(corpus.unrelated) + sum(len(c.members) for c in corpus.clusters.values())
    assert run.result == RepoDedupResult(
        repositories_in=repositories,
        repositories_kept=repositories - 3,
        repository_duplicates=3,
        documents_kept=len(run.kept),
        component_passes=run.result.component_passes,
        documents_in=len(corpus.documents),
        documents_removed=sum(row["documents"] for row in run.duplicates),
    )
    assert run.result.component_passes >= 1
    assert len(run.duplicates) == 3


def test_same_survivors_across_runs_and_execution_modes(run, rerun):
    by_id = operator.itemgetter("id")
    assert sorted(rerun.kept, key=by_id) == sorted(run.kept, key=by_id)
    by_repo = operator.itemgetter("source", "repo")
    assert sorted(rerun.duplicates, key=by_repo) == sorted(run.duplicates, key=by_repo)
    assert rerun.result == run.result


def test_empty_input_gives_empty_outputs(tmp_path):
    pq.write_table(pa.Table.from_pylist([], schema=DOCUMENT_SCHEMA), tmp_path / "in.parquet")
    result = run_repo_dedup(str(tmp_path / "in.parquet"), str(tmp_path / "out"), DedupConfig(), IN_PROCESS)
    assert result == RepoDedupResult(
        repositories_in=0, repositories_kept=0, repository_duplicates=0, documents_kept=0, component_passes=0
    )
    assert pq.read_table(sorted((tmp_path / "out").glob("docs-*.parquet"))).num_rows == 0
    duplicates = pq.read_table(sorted((tmp_path / "out").glob("duplicates-*.parquet")))
    assert duplicates.schema.equals(REPO_DUPLICATE_SCHEMA)


def test_missing_input_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="matched no files"):
        run_repo_dedup(str(tmp_path / "nothing-*.parquet"), str(tmp_path / "out"), DedupConfig(), IN_PROCESS)


# ---------------------------------------------------------------- per-element logic


def test_repository_signature_is_the_signature_of_the_union_of_its_files():
    """Element-wise min of per-file signatures == MinHash of the union of the files' shingle sets."""
    files = package("json")
    config, permutations = DedupConfig(), make_permutations(256, 1)
    rows = [{"text": text, "metadata": "{}"} for text in files.values()] + [{"text": "", "metadata": "{}"}]
    combine = CombineRepoSummary()
    parts = [combine.add_input(combine.create_accumulator(), file_summary(row, config, permutations)) for row in rows]
    merged = combine.extract_output(combine.merge_accumulators([parts[0], combine.merge_accumulators(parts[1:])]))
    union = np.unique(np.concatenate([shingle_hashes(text, 5, False) for text in files.values()]))
    np.testing.assert_array_equal(merged.sig_P, signature(union, permutations))
    assert merged.files == len(rows) and merged.bytes == sum(len(t.encode()) for t in files.values())


def test_repository_rank_record_takes_majority_license_and_the_most_stars():
    config, permutations = DedupConfig(), make_permutations(256, 1)
    rows = [
        {"text": "a b", "license": "GPL-3.0-only", "metadata": '{"stars": 4}'},
        {"text": "c d", "license": "MIT", "metadata": '{"stars": "40", "updated_at": "2024-05-01"}'},
        {"text": "e f", "license": "MIT", "metadata": "not json"},
    ]
    summary = CombineRepoSummary().merge_accumulators([file_summary(row, config, permutations) for row in rows])
    row = summary_row(repo_key("github", "a/b"), summary)
    assert (row["source"], row["repo"], row["license"], row["stars"], row["files"]) == ("github", "a/b", "MIT", 40, 3)
    assert row["updated_at"] is not None and row["forks"] is None
    starless = {**row, "key": repo_key("github", "0/first"), "stars": None}
    assert repo_rank(row, DedupConfig().keeper_order) < repo_rank(starless, DedupConfig().keeper_order)


def test_license_ties_break_on_the_smallest_id():
    summary = CombineRepoSummary().create_accumulator()
    summary.licenses.update({"MIT": 2, "Apache-2.0": 2, "GPL-3.0-only": 1})
    assert summary.license() == "Apache-2.0"


def _sig(values: list[int]) -> bytes:
    return np.asarray(values, dtype="<u8").tobytes()


def test_bucket_edges_are_verified_against_leaders():
    a, near_a, far = _sig([1] * 10), _sig([1] * 9 + [7]), _sig([1] * 2 + [9] * 8)
    bucket = (b"band", [("r2", near_a), ("r1", a), ("r3", far), ("r1", a)])
    assert verified_bucket_edges(bucket, 0.8) == [("r1", "r2")]
    assert verified_bucket_edges(bucket, None) == [("r1", "r2"), ("r1", "r3")]
    assert estimated_jaccard(np.frombuffer(a, "<u8"), np.frombuffer(far, "<u8")) < 0.8


def test_conservation_check_raises_on_lost_documents():
    check_conservation(
        RepoDedupResult(
            repositories_in=2,
            repositories_kept=1,
            repository_duplicates=1,
            documents_kept=5,
            component_passes=1,
            documents_in=7,
            documents_removed=2,
        )
    )
    with pytest.raises(RuntimeError, match="lost or invented documents"):
        check_conservation(
            RepoDedupResult(
                repositories_in=2,
                repositories_kept=1,
                repository_duplicates=1,
                documents_kept=5,
                component_passes=1,
                documents_in=8,
                documents_removed=2,
            )
        )


def test_fixture_counts_sanity(corpus):
    """Guards the end-to-end tests against a corpus too small to mean anything."""
    kinds = Counter(doc.kind for doc in corpus.documents)
    assert kinds["file"] > 60 and kinds["transcript"] >= 2
