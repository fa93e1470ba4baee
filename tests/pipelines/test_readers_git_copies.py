"""The git reader on copies as crawls find them: partial, shallow, with LFS pointers and submodules.

Every repository here is made by ``git`` itself: a partial clone with ``--filter=blob:limit`` from a
source that allows filters, an LFS pointer committed the way ``git lfs`` stores one (with its
``.gitattributes`` line), a submodule added with ``git submodule add``, a ``--depth 1`` clone. Each
copy must give the per-file outcome git's own state implies and every other file byte-identical to
the full repository's.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from pathlib import Path
from types import SimpleNamespace

import pytest

from codemix.document import Document, Quarantined, ReadCount
from codemix.pipelines.readers import git as git_reader
from codemix.pipelines.readers import read_counted, read_location
from codemix.pipelines.readers.common import split_tree_location
from codemix.sources import SourceConfig
from tests.pipelines.readers_fixtures import git, outcome_of

LARGE = b"value = 1\n" * 300  # 3,000 bytes: over the partial clone's 1 KiB blob limit
PAYLOAD = b"\x00weights\x00" * 50


def lfs_pointer(data: bytes) -> bytes:
    """The pointer ``git lfs`` commits for ``data`` (git-lfs docs/spec.md: version, oid, size)."""
    return (b"version https://git-lfs.github.com/spec/v1\n"
            + f"oid sha256:{hashlib.sha256(data).hexdigest()}\nsize {len(data)}\n".encode())


def commit_files(root: Path, files: dict[str, bytes], message: str) -> None:
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def source(**overrides: object) -> SourceConfig:
    return SourceConfig(**{"name": "copies", "type": "git", "paths": ["unused"], **overrides})


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two commits; the second adds an LFS-tracked file and a submodule."""
    base = tmp_path_factory.mktemp("copies")
    lib = base / "lib"
    lib.mkdir()
    git(lib, "init", "-q")
    commit_files(lib, {"lib.c": b"int lib(void) { return 0; }\n"}, "lib")
    root = base / "origin"
    root.mkdir()
    git(root, "init", "-q")
    commit_files(root, {"src/app.py": b"def main():\n    return 1\n", "data/large.txt": LARGE}, "first")
    commit_files(root, {".gitattributes": b"*.bin filter=lfs diff=lfs merge=lfs -text\n",
                        "model.bin": lfs_pointer(PAYLOAD), "README.md": b"# origin\n"}, "lfs")
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    git(root, "commit", "-q", "-m", "submodule")
    git(root, "config", "uploadpack.allowFilter", "true")
    return root


def outcomes(location: Path, **overrides: object) -> dict[str, tuple[str, str]]:
    return {o.location.rsplit(":", 1)[-1] if not isinstance(o, Document) else o.path: outcome_of(o)
            for o in read_location(source(**overrides), str(location))}


def texts(location: Path, **overrides: object) -> dict[str, str]:
    return {o.path: o.text for o in read_location(source(**overrides), str(location)) if isinstance(o, Document)}


FULL = {
    "src/app.py": ("document", ""), "data/large.txt": ("document", ""), "README.md": ("document", ""),
    ".gitattributes": ("document", ""), ".gitmodules": ("document", ""),
    "model.bin": ("dropped", "lfs_pointer"), "vendor/lib": ("dropped", "submodule"),
}


def test_full_repository(origin: Path) -> None:
    assert outcomes(origin) == FULL


def test_submodule_was_added_by_git_as_a_gitlink(origin: Path) -> None:
    """Guards the table above: ``git submodule add`` recorded mode 160000 and a .gitmodules entry."""
    entries = {e.path: e.mode for e in git_reader.iter_tree(git_reader.local_git_dir(str(origin)), "HEAD")}
    assert entries["vendor/lib"] == git_reader.GITLINK_MODE
    assert b'path = vendor/lib' in (origin / ".gitmodules").read_bytes()


def trap_promisor(clone: Path, marker: Path) -> None:
    """Point the clone's promisor remote at an upload-pack that leaves ``marker`` when git calls it."""
    script = clone.parent / f"{clone.name}-upload-pack.sh"
    script.write_text(f'#!/bin/sh\ntouch "{marker}"\nexec git-upload-pack "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    git(clone, "config", "remote.origin.uploadpack", str(script))


@pytest.fixture()
def partial(origin: Path, tmp_path: Path) -> tuple[Path, Path]:
    clone = tmp_path / "partial.git"
    git(tmp_path, "clone", "-q", "--bare", "--filter=blob:limit=1k", f"file://{origin}", str(clone))
    marker = tmp_path / "promisor-contacted"
    trap_promisor(clone, marker)
    return clone, marker


def test_partial_clone_drops_the_missing_blob_and_never_asks_the_promisor(origin: Path, partial) -> None:
    clone, marker = partial
    missing = git(clone, "rev-list", "--objects", "--missing=print", "HEAD")
    assert "?" + git(origin, "rev-parse", "HEAD:data/large.txt") in missing.split()  # guard: git left it out
    assert outcomes(clone) == {**FULL, "data/large.txt": ("dropped", "blob_missing")}
    assert texts(clone) == {p: t for p, t in texts(origin).items() if p != "data/large.txt"}
    assert not marker.exists()


def test_counts_add_up_with_missing_blobs(partial) -> None:
    clone, _ = partial
    records = list(read_counted(source(), str(clone)))
    assert records[-1] == ReadCount(stage="crawl", source="copies", location=str(clone), records=len(FULL))
    assert len(records) - 1 == len(FULL)


def test_fetching_missing_blobs_is_an_explicit_option(origin: Path, partial) -> None:
    clone, marker = partial
    assert outcomes(clone, fetch_missing_blobs=True) == FULL
    assert texts(clone, fetch_missing_blobs=True) == texts(origin)
    assert marker.exists()


def test_unreachable_promisor_still_reads_what_is_there(origin: Path, partial) -> None:
    """A worker without the network: the promisor's URL leads nowhere, the build goes on."""
    clone, _ = partial
    git(clone, "config", "remote.origin.url", f"file://{clone.parent}/gone.git")
    assert outcomes(clone)["data/large.txt"] == ("dropped", "blob_missing")


def test_shallow_clone_reads_its_commit_and_names_what_it_holds(origin: Path, tmp_path: Path) -> None:
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", str(clone))
    assert (clone / ".git" / "shallow").exists()
    assert texts(clone) == texts(origin) and outcomes(clone) == FULL
    [failure] = read_location(source(ref="HEAD~1"), str(clone))
    assert isinstance(failure, Quarantined)
    branch = git(clone, "branch", "--show-current")
    assert "'HEAD~1'" in failure.error and f"branches: {branch}" in failure.error and "shallow" in failure.error


def test_tree_listing_is_streamed(origin: Path) -> None:
    """The tree comes from a running ls-tree, one entry at a time, not a list held whole."""
    entries = git_reader.iter_tree(git_reader.local_git_dir(str(origin)), "HEAD")
    assert not isinstance(entries, list) and next(entries).path == ".gitattributes"
    entries.close()


def test_lfs_pointer_recognised_only_as_the_spec_writes_it() -> None:
    from codemix.pipelines.readers.common import is_lfs_pointer

    pointer = lfs_pointer(PAYLOAD)
    assert is_lfs_pointer(pointer)
    assert not is_lfs_pointer(pointer.replace(b"oid sha256:", b"id sha256:"))
    assert not is_lfs_pointer(b"# docs\n" + pointer)  # quoting a pointer is not being one
    assert not is_lfs_pointer(pointer + b"x" * 1024)


def test_no_view_is_left_behind(origin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    list(read_location(source(), str(origin)))
    assert os.listdir(tmp_path) == []


def test_mix_stats_counts_per_repository(origin: Path, partial, tmp_path: Path) -> None:
    """What each copy lacked, from its crawl drop rows as the crawl writes them (Parquet)."""
    import dataclasses

    import pyarrow as pa
    import pyarrow.parquet as pq

    from codemix.document import Dropped
    from codemix.pipelines.git_copies import repository_drops, repository_outcomes
    from codemix.pipelines.stats import format_stats

    clone, _ = partial
    rows = [dataclasses.asdict(o) for location in (origin, clone) for o in read_location(source(), str(location))
            if isinstance(o, Dropped)]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "dropped-00000.parquet")
    found = repository_outcomes(repository_drops(str(tmp_path / "dropped*.parquet")))
    assert found == {"copies": {
        str(origin): {"blob_missing": 0, "lfs_pointer": 1, "submodules": ["vendor/lib"]},
        str(clone): {"blob_missing": 1, "lfs_pointer": 1, "submodules": ["vendor/lib"]},
    }}
    stats = {"copies": {"read": 14, "kept": 9, "duplicates": 0, "quarantined": 0, "dropped": {}, "redactions": {},
                        "contamination_hits": {}, "redaction_samples": {}, "contaminated_documents": [],
                        "repositories": found["copies"]}}
    printed = format_stats(stats)
    assert "git repositories" in printed
    assert any(line.split()[:5] == ["copies", str(clone), "1", "1", "1"] for line in printed.splitlines())


def test_build_refuses_a_ref_the_clone_lacks_before_any_work(origin: Path, tmp_path: Path) -> None:
    from codemix.config import ConfigError
    from codemix.pipelines.preflight import check_git_refs

    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", str(clone))
    spec = SimpleNamespace(sources=[source(paths=[str(origin), str(clone)], ref="HEAD~1")])
    with pytest.raises(ConfigError) as raised:
        check_git_refs(spec)
    message = str(raised.value)
    assert message.startswith("sources[0].ref: ") and f"{clone} has no commit 'HEAD~1'" in message
    assert "a shallow clone" in message and str(origin) + " " not in message  # the full repository has HEAD~1
    check_git_refs(SimpleNamespace(sources=[source(paths=[str(origin), str(clone)])]))  # HEAD: both hold it


def test_repositories_with_the_same_last_folder_stay_two(origin: Path, tmp_path: Path) -> None:
    """Two mirrors both named ``repo`` in one source: two repositories, never one merged, each named by its
    mirror folder's ``owner+name`` (issue 46: never ``repo``)."""
    mirrors = [tmp_path / owner / "repo" for owner in ("nlohmann+json", "gin-gonic+gin")]
    for mirror in mirrors:
        git(tmp_path, "clone", "-q", "--bare", str(origin), str(mirror))
        git(mirror, "remote", "remove", "origin")  # a copied mirror: no remote to name it by
    both = source(paths=[str(m) for m in mirrors])
    names = {o.repo for m in mirrors for o in read_location(both, str(m)) if isinstance(o, Document)}
    assert names == {"nlohmann/json", "gin-gonic/gin"}
    alone = {o.repo for o in read_location(source(paths=[str(mirrors[0])]), str(mirrors[0]))
             if isinstance(o, Document)}
    assert alone == {"nlohmann/json"}
    same = [tmp_path / where / "gin-gonic+gin" / "repo" for where in ("a", "b")]  # one name twice: paths tell
    for mirror in same:
        git(tmp_path, "clone", "-q", "--bare", str(origin), str(mirror))
        git(mirror, "remote", "remove", "origin")
    twice = source(paths=[str(m) for m in same])
    assert {o.repo for m in same for o in read_location(twice, str(m)) if isinstance(o, Document)} == {
        "a/gin-gonic+gin/repo", "b/gin-gonic+gin/repo"}


def test_a_clone_is_named_by_its_remote(tmp_path: Path, origin: Path) -> None:
    clone = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    git(clone, "remote", "set-url", "origin", "https://github.com/octo/widgets.git")
    assert {o.repo for o in read_location(source(), str(clone)) if isinstance(o, Document)} == {"octo/widgets"}


def test_a_repository_is_read_in_parts_each_reading_only_its_blobs(origin: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Parts of one local repository (``pipelines.crawl``): disjoint, together the whole read, counts
    adding up, and each blob read by one part only (three parts used to read every blob three times)."""
    from codemix.pipelines.crawl import _part_outcomes, location_parts

    read: list[str] = []
    original = git_reader._BlobReader.read
    monkeypatch.setattr(git_reader._BlobReader, "read", lambda self, sha: read.append(sha) or original(self, sha))
    whole = list(read_counted(source(), str(origin)))
    whole_reads, read[:] = sorted(read), []
    parts = [list(_part_outcomes(source(), str(origin), part, 3)) for part in range(3)]

    def where(o) -> str:
        return o.metadata["location"] if isinstance(o, Document) else o.location

    outcomes = [o for part in parts for o in part if not isinstance(o, ReadCount)]
    assert sorted(map(where, outcomes)) == sorted(map(where, whole[:-1]))
    assert sum(o.records for part in parts for o in part if isinstance(o, ReadCount)) == whole[-1].records
    assert sorted(read) == whole_reads and len(whole_reads) == 6  # five documents and the LFS pointer
    assert len(location_parts([source(paths=[str(origin)])], workers=3)) == 3
    assert len(location_parts([source(paths=["https://github.com/octo/x.git"])], workers=3)) == 1  # a clone: once


def test_a_named_submodule_is_read_as_files_under_its_path(origin: Path, tmp_path: Path) -> None:
    """Followed only when the source names it: from the worktree's modules/, and from the .gitmodules
    URL for a bare clone that has no modules/; its text is the submodule's blob at the recorded commit."""
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", f"file://{origin}", str(bare))
    recorded = git(origin, "rev-parse", "HEAD:vendor/lib")
    expected = {**{p: o for p, o in FULL.items() if p != "vendor/lib"}, "vendor/lib/lib.c": ("document", "")}
    for location in (origin, bare):
        found = list(read_counted(source(submodules=["vendor/lib"]), str(location)))
        *outcomes_read, count = found
        assert {o.path if isinstance(o, Document) else o.location.rsplit(":", 1)[-1]: outcome_of(o)
                for o in outcomes_read} == expected
        assert count.records == len(outcomes_read) == len(expected)  # counts add up
        docs = {o.path: o for o in outcomes_read if isinstance(o, Document)}
        lib = docs["vendor/lib/lib.c"]
        assert lib.text == git(origin.parent / "lib", "show", f"{recorded}:lib.c") + "\n"
        assert lib.repo == docs["src/app.py"].repo
        assert split_tree_location(lib.metadata["location"])[1:] == (recorded, "lib.c")
    assert outcomes(origin) == FULL  # not named: listed as a submodule, never read


def test_a_named_submodule_that_is_not_here_is_one_quarantine(tmp_path: Path) -> None:
    lib, root = tmp_path / "lib", tmp_path / "root"
    for repo in (lib, root):
        repo.mkdir()
        git(repo, "init", "-q")
    commit_files(lib, {"lib.c": b"int lib(void) { return 0; }\n"}, "lib")
    commit_files(root, {"app.py": b"def main():\n    return 1\n"}, "app")
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "ext/lib")
    git(root, "commit", "-q", "-m", "submodule")
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", f"file://{root}", str(bare))
    shutil.rmtree(lib)  # the .gitmodules URL now names nothing, and a bare clone has no modules/
    assert outcomes(bare, submodules=["ext/lib"]) == {
        "app.py": ("document", ""), ".gitmodules": ("document", ""), "ext/lib": ("quarantined", "GitError")}
