"""Source archives (.tar.gz, .tgz, .tar.zst, .tar.zstd, .tar, .zip), streamed member by member.

Design notes: docs/design/pipelines.md, "pipelines/readers/archive.py".
"""

from __future__ import annotations

import contextlib
import functools
import re
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Literal

from codemix.pipelines.readers.common import (
    Outcome,
    ReadTally,
    base_name,
    content_outcome,
    drop,
    member_location,
    open_binary,
    open_raw,
    path_selected,
    quarantine,
    read_bounded,
    text_name,
)
from codemix.pipelines.readers.encodings import EDITORCONFIG_MAX_BYTES, TreeEditorConfigs, editorconfig_folder
from codemix.pipelines.readers.language import SourceCensus
from codemix.sources import ARCHIVE_SUFFIXES, ReadLimits, SourceConfig

MemberKind = Literal["regular", "dir", "symlink", "hardlink", "other"]
_DRIVE = re.compile(r"^[A-Za-z]:")
_NOT_A_FILE = {"symlink": "symlink", "hardlink": "hardlink", "other": "not_regular_file"}


class ArchiveLimitExceeded(RuntimeError):
    """An archive crossed a whole-archive cap from ``ReadLimits``."""


@dataclass(slots=True, frozen=True)
class Member:
    """What the header says about one member, and how to open it (called at most once)."""

    name: str
    kind: MemberKind
    size: int
    open: Callable[[], IO[bytes]]


def is_archive(location: str) -> bool:
    return location.lower().endswith(ARCHIVE_SUFFIXES)


def archive_repo(location: str) -> str:
    """``requests-2.31.0.tar.gz`` -> ``requests-2.31.0``: the archive's name without its suffix."""
    name = base_name(location)
    suffix = next((s for s in ARCHIVE_SUFFIXES if name.lower().endswith(s)), "")
    return name[: len(name) - len(suffix)]


def is_unsafe_name(name: str) -> bool:
    """Absolute (``/x``, ``\\x``, ``C:x``) or containing a ``..`` part, with either separator."""
    normal = name.replace("\\", "/")
    return normal.startswith("/") or bool(_DRIVE.match(normal)) or ".." in normal.split("/")


def read_archive(source: SourceConfig, location: str, tally: ReadTally) -> Iterator[Outcome]:
    """Every member of the archive at ``location``, in archive order."""
    repo, budget = archive_repo(location), _Budget(source.limits)
    is_zip = location.lower().endswith(".zip")
    seen_names: set[str] = set()  # at most limits.max_archive_members names
    configs = TreeEditorConfigs(lambda: archive_editorconfigs(location, repo, source.limits))
    census = functools.cache(lambda: SourceCensus.of(member_names(location, source.limits)))
    for member in _zip_members(location) if is_zip else _tar_members(location):
        over = budget.charge(member)
        if over:
            tally.count()  # the unread rest of the archive is one record
            yield quarantine(source, location, ArchiveLimitExceeded(over))
            return
        if member.kind == "dir":  # directories are structure, not records
            continue
        tally.count()
        if member.name in seen_names:
            yield drop(source, f"{member_location(location, member.name)}#{budget.members}", "duplicate_member_name")
            continue
        seen_names.add(member.name)
        if is_zip:
            yield _isolated_outcome(source, location, repo, member, configs, census)
        else:  # a tar read error means the stream itself is broken: let it end the archive
            yield _member_outcome(source, location, repo, member, configs, census)


def archive_editorconfigs(location: str, repo: str, limits: ReadLimits) -> dict[str, bytes]:
    """``{folder: bytes}`` of the archive's ``.editorconfig`` members, by a second pass over its headers
    (a tar stream cannot look ahead), made only when a member that is not UTF-8 asks for its charset;
    a pass that breaks keeps what it found (the main pass quarantines the archive)."""
    found: dict[str, bytes] = {}
    members = _zip_members(location) if location.lower().endswith(".zip") else _tar_members(location)
    with contextlib.suppress(Exception), contextlib.closing(members):
        for count, member in enumerate(members, start=1):
            if count > limits.max_archive_members:
                break
            folder = editorconfig_folder(_strip_repo(member.name, repo))
            if folder is not None and member.kind == "regular" and member.size <= EDITORCONFIG_MAX_BYTES \
                    and not is_unsafe_name(member.name):
                with member.open() as stream:
                    found[folder] = stream.read(EDITORCONFIG_MAX_BYTES)
    return found


def member_names(location: str, limits: ReadLimits) -> Iterator[str]:
    """The archive's member names, by a pass over its headers alone (made only when a ``.h`` member asks
    for the archive's census), as far as the main pass reads them: to ``limits``' caps or a break."""
    budget = _Budget(limits)
    members = _zip_members(location) if location.lower().endswith(".zip") else _tar_members(location)
    with contextlib.suppress(Exception), contextlib.closing(members):
        for member in members:
            if budget.charge(member):
                break
            yield member.name


def _isolated_outcome(source: SourceConfig, archive: str, repo: str, member: Member,
                      configs: TreeEditorConfigs, census: Callable[[], SourceCensus]) -> Outcome:
    """Zip members are independent (own offset, own CRC), so one bad member is quarantined alone."""
    try:
        return _member_outcome(source, archive, repo, member, configs, census)
    except Exception as error:  # noqa: BLE001 - BadZipFile, zlib.error, unsupported method, encrypted...
        return quarantine(source, member_location(archive, member.name), error)


def _member_outcome(source: SourceConfig, archive: str, repo: str, member: Member,
                    configs: TreeEditorConfigs | None = None, census: Callable[[], SourceCensus] | None = None) -> Outcome:
    """Header checks first, so a dropped member is never decompressed into memory. ``census()``: the
    archive's C and C++ sources, for a ``.h`` member's language."""
    where = member_location(archive, member.name)
    if is_unsafe_name(member.name):
        return drop(source, where, "unsafe_path")
    path = _strip_repo(member.name, repo)
    if not path_selected(source, path):
        return drop(source, where, "path_not_included")
    if member.kind != "regular":
        return drop(source, where, _NOT_A_FILE[member.kind])
    if member.size > source.limits.max_file_bytes:
        return drop(source, where, "file_too_large")
    with member.open() as stream:
        data = read_bounded(stream, source.limits.max_file_bytes)
    if data is None:  # the header understated the size
        return drop(source, where, "file_too_large")
    return content_outcome(source, where, data, repo=repo, path=path,
                           metadata={"archive": archive, "member": member.name},
                           editorconfig=None if configs is None else lambda: configs.charset(path), census=census)


def _strip_repo(name: str, repo: str) -> str:
    """``requests-2.31.0/src/x.py`` -> ``src/x.py``: sdists and GitHub tarballs nest one folder."""
    path = name.removeprefix("./")
    return path.removeprefix(f"{repo}/")


@dataclass(slots=True)
class _Budget:
    """Running totals for the whole-archive caps; every header counts, even for skipped members,
    because a tar stream has to decompress past them anyway."""

    limits: ReadLimits
    members: int = 0
    bytes: int = 0

    def charge(self, member: Member) -> str:
        """Count ``member``; the broken cap as a message, or "" while within both."""
        self.members += 1
        self.bytes += member.size if member.kind == "regular" else 0
        if self.members > self.limits.max_archive_members:
            return f"more than {self.limits.max_archive_members} members (limits.max_archive_members)"
        if self.bytes > self.limits.max_archive_bytes:
            return f"more than {self.limits.max_archive_bytes} uncompressed bytes (limits.max_archive_bytes)"
        return ""


def _tar_members(location: str) -> Iterator[Member]:
    """Tar headers in stream order. ``open`` is only valid until the next header is read,
    which holds because the caller finishes each member before asking for the next.

    Names go through ``text_name``: tarfile decodes non-UTF-8 bytes to lone surrogates, which no
    location string can hold (one such name used to end the read of every member after it).
    """
    with open_binary(location) as stream, tarfile.open(fileobj=stream, mode="r|", tarinfo=_CheckedTarInfo) as tar:
        for info in tar:
            yield Member(text_name(info.name), _tar_kind(info), info.size, lambda info=info: tar.extractfile(info))


class _CheckedTarInfo(tarfile.TarInfo):
    """A TarInfo whose reading raises on a corrupt or cut header anywhere in the stream.

    ``TarFile.next`` takes a bad checksum or a truncated header past the first member for the
    end of the archive and stops without a word, so every member after it went unaccounted;
    raised as ReadError it ends the read with the archive's Quarantined, like any broken stream.
    A zero block (the real end marker) and a clean end of data still end the archive quietly.
    """

    @classmethod
    def fromtarfile(cls, tar: tarfile.TarFile) -> tarfile.TarInfo:
        offset = tar.fileobj.tell()
        try:
            return super().fromtarfile(tar)
        except (tarfile.InvalidHeaderError, tarfile.TruncatedHeaderError) as error:
            raise tarfile.ReadError(f"corrupt tar header at offset {offset}: {error}") from error


def _tar_kind(info: tarfile.TarInfo) -> MemberKind:
    if info.isdir():
        return "dir"
    if info.issym():
        return "symlink"
    if info.islnk():
        return "hardlink"
    return "regular" if info.isreg() else "other"


def _zip_members(location: str) -> Iterator[Member]:
    """Zip entries from the central directory; the location is opened raw since zip compresses
    per member (smart_open's handles are seekable, local or remote)."""
    with open_raw(location) as raw, zipfile.ZipFile(raw) as archive:
        for info in archive.infolist():
            yield Member(info.filename, _zip_kind(info), info.file_size,
                         lambda info=info: archive.open(info))


def _zip_kind(info: zipfile.ZipInfo) -> MemberKind:
    """Unix mode bits live in the top half of ``external_attr``; 0 means "made elsewhere, a file".

    ``endswith``, not ``ZipInfo.is_dir()``: that indexes ``filename[-1]`` and raises IndexError on
    an empty name, which ended the read of every member of the archive.
    """
    if info.filename.endswith("/"):
        return "dir"
    mode = info.external_attr >> 16
    file_type = mode & 0o170000
    if file_type == 0o120000:
        return "symlink"
    return "regular" if file_type in (0, 0o100000) else "other"
