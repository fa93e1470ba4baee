"""The crawl list: entries resolved against the list's folder and each sent to the right reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemix.document import Document, Quarantined
from codemix.pipelines.readers import read_location
from codemix.pipelines.readers.archive import read_archive
from codemix.pipelines.readers.crawl_list import entry_reader, resolve_entry
from codemix.pipelines.readers.directory import read_directory
from codemix.pipelines.readers.git import read_git
from tests.pipelines.readers_fixtures import (
    TAR_MEMBERS,
    git,
    location_of,
    make_git_repo,
    source,
    write_files,
    write_tar,
)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A worktree, a bare clone, a plain folder and a tarball side by side."""
    root = tmp_path_factory.mktemp("crawl_list")
    make_git_repo(root / "repos" / "demo")
    git(root, "clone", "--bare", "-q", str(root / "repos" / "demo"), str(root / "repos" / "demo-bare.git"))
    write_files(root / "plain", {"notes.md": b"# notes\n"})
    write_tar(root / "pkg-1.0.tar.gz", TAR_MEMBERS)
    return root


@pytest.fixture(scope="module")
def crawl_list(workspace: Path) -> Path:
    path = workspace / "lists" / "repos.txt"
    path.parent.mkdir()
    path.write_text(
        "# mirrors for the demo mixture\n"
        "\n"
        f"  {workspace}/repos/demo  \n"
        "../repos/demo-bare.git\n"
        "../plain\n"
        "../pkg-1.0.tar.gz\n"
        "../repos/missing\n")
    return path


def test_each_entry_is_read_by_its_reader(workspace: Path, crawl_list: Path) -> None:
    """Documents from all four locations, and the missing entry quarantined under its own name."""
    outcomes = list(read_location(source("crawl_list"), str(crawl_list)))
    doc_roots = {location_of(o).split("@")[0].split("!")[0] for o in outcomes if isinstance(o, Document)}
    doc_roots = {root.removesuffix("/notes.md") for root in doc_roots}
    assert doc_roots == {f"{workspace}/repos/demo", f"{workspace}/repos/demo-bare.git", f"{workspace}/plain",
                         f"{workspace}/pkg-1.0.tar.gz"}
    quarantined = [o.location for o in outcomes if isinstance(o, Quarantined) and o.location.endswith("missing")]
    assert quarantined == [f"{workspace}/repos/missing"]


def test_worktree_and_bare_clone_give_the_same_documents(workspace: Path, crawl_list: Path) -> None:
    docs = [o for o in read_location(source("crawl_list"), str(crawl_list)) if isinstance(o, Document)]
    worktree = sorted((d.path, d.text) for d in docs if d.repo == "demo" and "bare" not in d.metadata["location"])
    bare = sorted((d.path, d.text) for d in docs if "demo-bare.git@" in d.metadata["location"])
    assert worktree and worktree == bare


@pytest.mark.parametrize(("entry", "reader"), [
    ("repos/demo", read_git),
    ("repos/demo-bare.git", read_git),
    ("plain", read_directory),
    ("pkg-1.0.tar.gz", read_archive),
    ("repos/missing", read_git),
])
def test_entry_reader(workspace: Path, entry: str, reader: object) -> None:
    assert entry_reader(str(workspace / entry)) is reader


@pytest.mark.parametrize(("entry", "reader"), [
    ("https://github.com/psf/requests.git", read_git),
    ("git@github.com:psf/requests.git", read_git),
    ("s3://bucket/attrs-23.1.0.zip", read_archive),
])
def test_remote_entry_reader(entry: str, reader: object) -> None:
    assert entry_reader(entry) is reader


@pytest.mark.parametrize(("list_location", "entry", "resolved"), [
    ("/data/lists/a.txt", "../repos/x", "/data/repos/x"),
    ("/data/lists/a.txt", "/abs/y", "/abs/y"),
    ("s3://bucket/lists/a.txt", "sdists/z.tar.gz", "s3://bucket/lists/sdists/z.tar.gz"),
    ("/data/lists/a.txt", "https://host/r.git", "https://host/r.git"),
])
def test_resolve_entry(list_location: str, entry: str, resolved: str) -> None:
    assert resolve_entry(list_location, entry) == resolved


def test_unreadable_list_is_one_quarantine(tmp_path: Path) -> None:
    location = str(tmp_path / "no-such-list.txt")
    outcomes = list(read_location(source("crawl_list"), location))
    assert len(outcomes) == 1 and isinstance(outcomes[0], Quarantined) and outcomes[0].location == location
