"""The git reader: one commit's tree read from the object store, links reported, never followed."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from codemix.document import Document, Quarantined
from codemix.pipelines.readers import git as git_reader
from codemix.pipelines.readers import read_location
from tests.pipelines.readers_fixtures import (
    CONTENT_OUTCOMES,
    FILES,
    git,
    location_of,
    make_git_repo,
    outcome_table,
    source,
)

EXPECTED = {
    **CONTENT_OUTCOMES,
    "docs/guide.md": ("document", ""),
    "link.md": ("dropped", "symlink"),
    "vendor/sub": ("dropped", "submodule"),
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_git_repo(tmp_path_factory.mktemp("git") / "demo")


@pytest.fixture(scope="module")
def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD")


def test_every_tree_entry_has_its_outcome(repo: Path, head: str) -> None:
    outcomes = read_location(source("git"), str(repo))
    assert outcome_table(outcomes, f"{repo}@{head}:") == EXPECTED


def test_fixture_tree_holds_a_symlink_and_a_gitlink(repo: Path) -> None:
    """Guards the test above: git really recorded modes 120000 and 160000."""
    modes = {entry.path: entry.mode for entry in git_reader.list_tree(git_reader.local_git_dir(str(repo)), "HEAD")}
    assert (modes["link.md"], modes["vendor/sub"]) == ("120000", "160000")


def test_text_round_trips_byte_exact(repo: Path) -> None:
    docs = [o for o in read_location(source("git"), str(repo)) if isinstance(o, Document)]
    assert len(docs) == 4
    for doc in docs:
        expected = FILES.get(doc.path, b"guide\n")
        assert doc.text.encode("utf-8") == expected, doc.path


def test_ids_are_stable_across_reads(repo: Path) -> None:
    def doc_ids() -> list[str]:
        return [o.id for o in read_location(source("git"), str(repo)) if isinstance(o, Document)]

    first = doc_ids()
    assert len(set(first)) == 4 and doc_ids() == first


def test_document_fields(repo: Path, head: str) -> None:
    docs = {o.path: o for o in read_location(source("git"), str(repo)) if isinstance(o, Document)}
    tool = docs["bin/tool"]
    assert (tool.repo, tool.language, tool.license, tool.kind) == ("demo", "shell", "Apache-2.0", "file")
    assert tool.metadata == {"commit": head, "location": f"{repo}@{head}:bin/tool"}


def test_clone_url_reads_the_same_tree_and_removes_the_clone(repo: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    url = f"file://{repo}"
    cloned = {location_of(o).rsplit(":", 1)[-1]: o for o in read_location(source("git"), url)}
    local = {location_of(o).rsplit(":", 1)[-1]: o for o in read_location(source("git"), str(repo))}
    assert {p: type(o) for p, o in cloned.items()} == {p: type(o) for p, o in local.items()}
    assert [o.text for o in cloned.values() if isinstance(o, Document)] == \
           [o.text for o in local.values() if isinstance(o, Document)]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("option", "globs", "dropped"), [
    ("exclude", ["docs/*"], {"docs/guide.md"}),
    ("include", ["*.py", "*.md"], {"bin/tool", "data.bin", "latin1.txt", "big.txt", "vendor/sub"}),
])
def test_globs_drop_paths_without_reading_them(repo: Path, head: str, option: str, globs: list[str],
                                               dropped: set[str], monkeypatch: pytest.MonkeyPatch) -> None:
    read_shas = _record_blob_reads(monkeypatch)
    table = outcome_table(read_location(source("git", **{option: globs}), str(repo)), f"{repo}@{head}:")
    assert {p for p, o in table.items() if o == ("dropped", "path_not_included")} == dropped
    assert not read_shas & _blob_shas(repo, dropped)


def test_too_large_blob_is_never_read(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    read_shas = _record_blob_reads(monkeypatch)
    list(read_location(source("git"), str(repo)))
    assert read_shas and not read_shas & _blob_shas(repo, {"big.txt"})


def test_ref_selects_an_older_tree(repo: Path) -> None:
    """HEAD~1 predates the submodule commit, so vendor/sub must be absent."""
    paths = {location_of(o).rsplit(":", 1)[-1] for o in read_location(source("git", ref="HEAD~1"), str(repo))}
    assert paths == set(EXPECTED) - {"vendor/sub"}


@pytest.mark.parametrize("case", ["bad_ref", "plain_dir", "subdir_of_repo", "missing", "bad_url"])
def test_unreadable_location_is_one_quarantine(repo: Path, tmp_path: Path, case: str) -> None:
    """A folder inside another repo must not silently read the enclosing repository."""
    (tmp_path / "plain").mkdir()
    location, ref = {
        "bad_ref": (str(repo), "no-such-branch"),
        "plain_dir": (str(tmp_path / "plain"), "HEAD"),
        "subdir_of_repo": (str(repo / "src"), "HEAD"),
        "missing": (str(tmp_path / "missing"), "HEAD"),
        "bad_url": (f"file://{tmp_path}/missing.git", "HEAD"),
    }[case]
    outcomes = list(read_location(source("git", ref=ref), location))
    assert len(outcomes) == 1 and isinstance(outcomes[0], Quarantined)
    assert (outcomes[0].location, outcomes[0].stage) == (location, "crawl")
    assert outcomes[0].error.startswith("GitError: ")


@pytest.mark.parametrize(("location", "name"), [
    ("https://github.com/psf/requests.git", "psf/requests"),
    ("https://github.com/alice/requests", "alice/requests"),  # a fork stays its own repository
    ("git@github.com:psf/requests.git", "psf/requests"),
    ("/srv/mirrors/flask/", "flask"),
    ("/srv/bare/attrs.git", "attrs"),
])
def test_repo_name(location: str, name: str) -> None:
    assert git_reader.repo_name(location) == name


def _record_blob_reads(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    read: set[str] = set()
    original = git_reader._BlobReader.read

    def recording_read(self: git_reader._BlobReader, sha: str) -> bytes:
        read.add(sha)
        return original(self, sha)

    monkeypatch.setattr(git_reader._BlobReader, "read", recording_read)
    return read


def _blob_shas(repo: Path, paths: set[str]) -> set[str]:
    entries = git_reader.list_tree(git_reader.local_git_dir(str(repo)), "HEAD")
    shas = {entry.sha for entry in entries if entry.path in paths and entry.type == "blob"}
    assert shas or paths <= {"vendor/sub"}, "guard: the dropped paths have blobs to (not) read"
    return shas
