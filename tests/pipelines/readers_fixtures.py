"""Builders for the crawl-reader fixtures: real git repos, archives and dumps made in tmp_path.

Each builder writes a small input containing one case per outcome the reader can produce, and the
tests compare the full ``{record: (outcome, reason)}`` table, so a case that silently disappears
fails as loudly as one that changes.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import stat
import subprocess
import tarfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

import zstandard

from codemix.document import Document, Dropped, Quarantined
from codemix.sources import ReadLimits, SourceConfig

MAX_FILE_BYTES = 1000
LIMITS = ReadLimits(max_file_bytes=MAX_FILE_BYTES)

# One file per content outcome. README's CRLF, BOM-free UTF-8 "é" and trailing space must survive.
FILES: dict[str, bytes] = {
    "README.md": b"# demo\r\ncaf\xc3\xa9 line \n",
    "src/app.py": b"def main():\n    return 1\n",
    "bin/tool": b"#!/usr/bin/env bash\necho hi\n",
    "data.bin": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    "latin1.txt": b"caf\xe9\n",
    "big.txt": b"x" * (MAX_FILE_BYTES + 1),
}
CONTENT_OUTCOMES: dict[str, tuple[str, str]] = {
    "README.md": ("document", ""),
    "src/app.py": ("document", ""),
    "bin/tool": ("document", ""),
    "data.bin": ("dropped", "binary"),
    "latin1.txt": ("dropped", "not_utf8"),  # too short to detect, no declaration
    "big.txt": ("dropped", "file_too_large"),
}


def source(type_: str, **overrides: object) -> SourceConfig:
    values: dict = {"name": f"test_{type_}", "type": type_, "paths": ["unused"], "limits": LIMITS,
                    "license": "Apache-2.0"}
    return SourceConfig(**{**values, **overrides})


def outcome_of(outcome: Document | Dropped | Quarantined) -> tuple[str, str]:
    """("document", ""), ("dropped", reason) or ("quarantined", error type)."""
    if isinstance(outcome, Document):
        return "document", ""
    if isinstance(outcome, Dropped):
        return "dropped", outcome.reason
    return "quarantined", outcome.error.split(":", 1)[0]


def location_of(outcome: Document | Dropped | Quarantined) -> str:
    return outcome.metadata["location"] if isinstance(outcome, Document) else outcome.location


def outcome_table(outcomes: Iterable[Document | Dropped | Quarantined], prefix: str) -> dict[str, tuple[str, str]]:
    """``{location minus prefix: outcome}``; fails on two outcomes for one location."""
    outcomes = list(outcomes)
    table = {location_of(o).removeprefix(prefix): outcome_of(o) for o in outcomes}
    assert len(table) == len(outcomes), "two outcomes share a location"
    return table


def write_files(root: Path, files: dict[str, bytes]) -> None:
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)


def snapshot(root: Path) -> list[str]:
    """Every path under ``root``, to prove a reader wrote nothing."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


# --- git --------------------------------------------------------------------------------------

def git(cwd: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com",
               "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-C", str(cwd), *args]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()


def make_git_repo(root: Path) -> Path:
    """FILES plus ``docs/guide.md``, a symlink ``link.md`` and a submodule entry ``vendor/sub``.

    The submodule is a bare gitlink (no .gitmodules needed): what a tree records for one.
    """
    root.mkdir(parents=True)
    git(root, "init", "-q")
    write_files(root, {**FILES, "docs/guide.md": b"guide\n"})
    os.symlink("README.md", root / "link.md")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "files")
    first = git(root, "rev-parse", "HEAD")
    git(root, "update-index", "--add", "--cacheinfo", f"160000,{first},vendor/sub")
    git(root, "commit", "-q", "-m", "submodule")
    return root


# --- archives ---------------------------------------------------------------------------------

def tar_member(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE, linkname: str = "") -> tuple:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.size = kind, linkname, len(data) if kind == tarfile.REGTYPE else 0
    return info, data


TAR_MEMBERS = [
    tar_member("pkg-1.0/", kind=tarfile.DIRTYPE),
    *(tar_member(f"pkg-1.0/{path}", data) for path, data in FILES.items()),
    tar_member("../evil", b"owned\n"),
    tar_member("/etc/x", b"owned\n"),
    tar_member("pkg-1.0/link", kind=tarfile.SYMTYPE, linkname="README.md"),
    tar_member("pkg-1.0/hard", kind=tarfile.LNKTYPE, linkname="pkg-1.0/README.md"),
    tar_member("pkg-1.0/fifo", kind=tarfile.FIFOTYPE),
]
TAR_OUTCOMES = {
    **{f"pkg-1.0/{path}": outcome for path, outcome in CONTENT_OUTCOMES.items()},
    "../evil": ("dropped", "unsafe_path"),
    "/etc/x": ("dropped", "unsafe_path"),
    "pkg-1.0/link": ("dropped", "symlink"),
    "pkg-1.0/hard": ("dropped", "hardlink"),
    "pkg-1.0/fifo": ("dropped", "not_regular_file"),
}


def tar_bytes(members: list[tuple]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue()


def compress(data: bytes, suffix: str) -> bytes:
    """``data`` as a file named ``*{suffix}`` would hold it."""
    if suffix.endswith((".gz", ".tgz")):
        return gzip.compress(data, mtime=0)
    if suffix.endswith((".zst", ".zstd")):
        return zstandard.ZstdCompressor().compress(data)
    return data


def write_tar(path: Path, members: list[tuple]) -> Path:
    path.write_bytes(compress(tar_bytes(members), path.name))
    return path


def write_zip(path: Path, members: dict[str, tuple[bytes, int]]) -> Path:
    """``members``: name -> (data, unix mode); mode 0 leaves the attributes unset (a Windows zip)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, (data, mode) in members.items():
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type, info.external_attr = zipfile.ZIP_DEFLATED, mode << 16
            archive.writestr(info, data)
    return path


def patch_zip_declared_size(path: Path, name: str, size: int) -> None:
    """Rewrite ``name``'s uncompressed size in the central directory (the size zipfile trusts)."""
    data = bytearray(path.read_bytes())
    start = data.find(b"PK\x01\x02")  # central directory file header signature
    while start != -1:
        name_length = int.from_bytes(data[start + 28:start + 30], "little")
        if data[start + 46:start + 46 + name_length] == name.encode():
            data[start + 24:start + 28] = size.to_bytes(4, "little")
            path.write_bytes(bytes(data))
            return
        start = data.find(b"PK\x01\x02", start + 4)
    raise AssertionError(f"{name} not in the central directory of {path}")


REGULAR = stat.S_IFREG | 0o644
SYMLINK = stat.S_IFLNK | 0o777


# --- dumps ------------------------------------------------------------------------------------

def jsonl(*records: object) -> bytes:
    """One line per record: bytes go in verbatim, anything else as JSON."""
    return b"".join((r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n" for r in records)
