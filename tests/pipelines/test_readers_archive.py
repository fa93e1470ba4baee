"""The archive reader: members streamed and judged by header, caps enforced, nothing extracted."""

from __future__ import annotations

import random
import tarfile
import tempfile
import zipfile
from pathlib import Path

import pytest

from codemix.document import Document, Quarantined
from codemix.pipelines.readers import read_location
from codemix.pipelines.readers.archive import archive_repo, is_unsafe_name
from codemix.sources import ReadLimits
from tests.pipelines.readers_fixtures import (
    FILES,
    MAX_FILE_BYTES,
    REGULAR,
    SYMLINK,
    TAR_MEMBERS,
    TAR_OUTCOMES,
    location_of,
    outcome_table,
    patch_zip_declared_size,
    snapshot,
    source,
    tar_member,
    write_tar,
    write_zip,
)

TAR_SUFFIXES = [".tar.gz", ".tgz", ".tar.zst", ".tar.zstd", ".tar"]
BOMB_BYTES = 20_000_000  # 20 MB of zeros deflates to ~20 KB


@pytest.fixture(scope="module")
def archives(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("archives")
    return {suffix: write_tar(folder / f"pkg-1.0{suffix}", TAR_MEMBERS) for suffix in TAR_SUFFIXES}


@pytest.fixture(scope="module")
def zip_archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A regular file, a 20 MB bomb that says so, a bomb that claims 100 bytes, a symlink, ``..``."""
    path = write_zip(tmp_path_factory.mktemp("zip") / "pkg-1.0.zip", {
        "pkg-1.0/": (b"", 0),
        "pkg-1.0/README.md": (FILES["README.md"], REGULAR),
        "pkg-1.0/bomb.txt": (bytes(BOMB_BYTES), REGULAR),
        "pkg-1.0/liar.txt": (bytes(BOMB_BYTES), 0),
        "pkg-1.0/link": (b"README.md", SYMLINK),
        "../evil.txt": (b"owned\n", REGULAR),
    })
    patch_zip_declared_size(path, "pkg-1.0/liar.txt", 100)
    return path


@pytest.mark.parametrize("suffix", TAR_SUFFIXES)
def test_every_tar_member_has_its_outcome(archives: dict[str, Path], suffix: str) -> None:
    path = archives[suffix]
    assert outcome_table(read_location(source("archive"), str(path)), f"{path}!") == TAR_OUTCOMES


def test_fixture_tar_keeps_hostile_names(archives: dict[str, Path]) -> None:
    """Guards the test above: tarfile wrote ``..`` and absolute names verbatim."""
    with tarfile.open(archives[".tar"]) as archive:
        assert {"../evil", "/etc/x", "pkg-1.0/hard"} <= set(archive.getnames())


@pytest.mark.parametrize("suffix", TAR_SUFFIXES)
def test_tar_text_round_trips_byte_exact(archives: dict[str, Path], suffix: str) -> None:
    docs = [o for o in read_location(source("archive"), str(archives[suffix])) if isinstance(o, Document)]
    assert len(docs) == 3
    assert all(doc.text.encode("utf-8") == FILES[doc.path] for doc in docs)


def test_repo_is_archive_name_and_path_is_stripped(archives: dict[str, Path]) -> None:
    docs = [o for o in read_location(source("archive"), str(archives[".tgz"])) if isinstance(o, Document)]
    assert {(d.repo, d.path) for d in docs} == {("pkg-1.0", p) for p in ("README.md", "src/app.py", "bin/tool")}


def test_ids_are_stable_across_reads(archives: dict[str, Path]) -> None:
    def ids() -> list[str]:
        return [o.id for o in read_location(source("archive"), str(archives[".tar.gz"])) if isinstance(o, Document)]

    assert len(set(ids())) == 3 and ids() == ids()


def test_reading_writes_nothing_to_disk(archives: dict[str, Path], tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Relative names (``../evil``) would land next to the working directory if anything extracted."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder = archives[".tar.gz"].parent
    before, before_tmp = snapshot(folder), snapshot(tmp_path)
    for path in archives.values():
        assert list(read_location(source("archive"), str(path)))
    assert (snapshot(folder), snapshot(tmp_path)) == (before, before_tmp)


def test_every_zip_member_has_its_outcome(zip_archive: Path) -> None:
    assert outcome_table(read_location(source("archive"), str(zip_archive)), f"{zip_archive}!") == {
        "pkg-1.0/README.md": ("document", ""),
        "pkg-1.0/bomb.txt": ("dropped", "file_too_large"),
        "pkg-1.0/liar.txt": ("quarantined", "BadZipFile"),
        "pkg-1.0/link": ("dropped", "symlink"),
        "../evil.txt": ("dropped", "unsafe_path"),
    }


def test_fixture_zip_bombs_are_small_on_disk_and_one_lies(zip_archive: Path) -> None:
    with zipfile.ZipFile(zip_archive) as archive:
        bomb, liar = archive.getinfo("pkg-1.0/bomb.txt"), archive.getinfo("pkg-1.0/liar.txt")
    assert bomb.compress_size < 100_000 and bomb.file_size == BOMB_BYTES
    assert liar.compress_size > liar.file_size == 100


def test_zip_member_over_declared_cap_is_never_opened(zip_archive: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []
    original = zipfile.ZipFile.open

    def recording_open(self: zipfile.ZipFile, name: zipfile.ZipInfo, *args: object, **kwargs: object):
        opened.append(name.filename)
        return original(self, name, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", recording_open)
    list(read_location(source("archive"), str(zip_archive)))
    assert "pkg-1.0/README.md" in opened and "pkg-1.0/bomb.txt" not in opened


def test_lying_zip_header_reads_at_most_the_cap(zip_archive: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever zipfile does with a size it was lied to about, the reader asks for max + 1 bytes."""
    sizes: list[int] = []
    original = zipfile.ZipExtFile.read

    def recording_read(self: zipfile.ZipExtFile, n: int = -1) -> bytes:
        sizes.append(n)
        return original(self, n)

    monkeypatch.setattr(zipfile.ZipExtFile, "read", recording_read)
    list(read_location(source("archive"), str(zip_archive)))
    assert sizes and all(0 < n <= MAX_FILE_BYTES + 1 for n in sizes)


@pytest.mark.parametrize(("cap", "limits"), [
    ("max_archive_members", ReadLimits(max_file_bytes=MAX_FILE_BYTES, max_archive_members=3)),
    ("max_archive_bytes", ReadLimits(max_file_bytes=MAX_FILE_BYTES, max_archive_bytes=40)),
])
def test_whole_archive_cap_stops_with_one_quarantine(archives: dict[str, Path], cap: str, limits: ReadLimits) -> None:
    """Members 1-4 are the dir, README (20 B), app.py (25 B), bin/tool: the count cap trips on the
    fourth member, the byte cap on the third, and what was yielded before stays."""
    path = archives[".tar.gz"]
    outcomes = list(read_location(source("archive", limits=limits), str(path)))
    *kept, last = outcomes
    assert isinstance(last, Quarantined) and last.location == str(path) and cap in last.error
    assert [location_of(o) for o in kept] == [f"{path}!pkg-1.0/README.md"] + (
        [f"{path}!pkg-1.0/src/app.py"] if cap == "max_archive_members" else [])


def test_corrupt_tar_stream_keeps_earlier_members(tmp_path: Path) -> None:
    noise = random.Random(0).randbytes(200_000)  # incompressible, so truncation lands inside it
    members = [tar_member("pkg/a.txt", b"a\n"), tar_member("pkg/b.txt", b"b\n"), tar_member("pkg/noise.txt", noise)]
    path = write_tar(tmp_path / "pkg.tar.gz", members)
    path.write_bytes(path.read_bytes()[:100_000])
    outcomes = list(read_location(source("archive", limits=ReadLimits()), str(path)))
    assert [type(o) for o in outcomes] == [Document, Document, Quarantined]
    assert outcomes[-1].location == str(path)


@pytest.mark.parametrize("content", [b"not an archive at all", b""])
@pytest.mark.parametrize("suffix", [".tar.gz", ".tar.zst", ".zip"])
def test_garbage_archive_is_one_quarantine(tmp_path: Path, suffix: str, content: bytes) -> None:
    path = tmp_path / f"junk{suffix}"
    path.write_bytes(content)
    outcomes = list(read_location(source("archive"), str(path)))
    assert len(outcomes) == 1 and isinstance(outcomes[0], Quarantined) and outcomes[0].location == str(path)


@pytest.mark.parametrize(("name", "unsafe"), [
    ("../evil", True), ("a/../../b", True), ("/etc/passwd", True), ("C:\\Windows\\x", True),
    ("..\\evil", True), ("pkg/..data/file", False), ("pkg/src/a.py", False), ("./pkg/a.py", False),
])
def test_unsafe_names(name: str, unsafe: bool) -> None:
    assert is_unsafe_name(name) is unsafe


@pytest.mark.parametrize(("location", "repo"), [
    ("s3://bucket/sdists/requests-2.31.0.tar.gz", "requests-2.31.0"),
    ("/data/attrs-23.1.0.TGZ", "attrs-23.1.0"), ("x/y.tar.zstd", "y"), ("z.zip", "z"),
])
def test_archive_repo(location: str, repo: str) -> None:
    assert archive_repo(location) == repo
