"""Amalgamated files: one file that concatenates other files of the same repository.

Single-header builds (nlohmann/json's ``single_include/``, SQLite's ``sqlite3.c``) repeat a
repository's sources in one file. File-level dedup cannot see them (each source is a small part of
a large file), so a repository would be trained on twice. A file is amalgamated when at least
``MIN_PARTS`` distinct smaller files of its repository (at most ``PART_SHARE_MAX`` of its size) each
have ``PART_COVERED`` of their significant lines inside it, and those parts make up ``AMALGAM_COVERED``
of its own lines.
"""

from __future__ import annotations

import array
import collections
import itertools
import sys
from collections.abc import Iterable, Mapping

from xxhash import xxh3_64_intdigest

# Languages whose files get concatenated into single-file builds; translation catalogs (.po), templates
# and data share lines without being built from one another, so only code takes part.
LANGUAGES = frozenset({"c", "cpp", "cuda", "objective-c", "javascript", "typescript", "python", "rust", "go",
                       "java", "c#"})
MIN_LINE_CHARS = 8  # shorter lines ("}", "#endif", "return x;") are shared by chance
MIN_PART_LINES = 5
MIN_PARTS = 2
PART_COVERED = 0.8
AMALGAM_COVERED = 0.5
PART_SHARE_MAX = 0.75
COMMON_LINE_FILES = 50  # a line in this many files (a license header) says nothing about concatenation


def line_hashes(text: str) -> frozenset[int]:
    """The file's distinct significant lines (stripped, at least MIN_LINE_CHARS), as 64-bit hashes (XXH3:
    only equality between lines counts, and it is ~3x cheaper than blake2b here; bench/RESULTS.md, issue 49,
    ninth session)."""
    return frozenset(xxh3_64_intdigest(line.encode("utf-8", "surrogatepass"))
                     for line in (raw.strip() for raw in text.splitlines()) if len(line) >= MIN_LINE_CHARS)


def packed_line_hashes(text: str) -> bytes:
    """``line_hashes`` as sorted little-endian uint64s: what a repository's grouping carries (a runner
    holding the grouping, FnApiRunner in its driver, keeps 8 bytes per line, not a set of int objects)."""
    return _little_endian(array.array("Q", sorted(line_hashes(text)))).tobytes()


def unpack_line_hashes(packed: bytes) -> frozenset[int]:
    values = array.array("Q")
    values.frombytes(packed)
    return frozenset(_little_endian(values))


def _little_endian(values: array.array) -> array.array:
    if values.itemsize != 8:
        raise RuntimeError(f"array 'Q' is {values.itemsize} bytes on this platform, not 8")
    if sys.byteorder != "little":
        values.byteswap()
    return values


def amalgamated(files: Mapping[str, frozenset[int]] | Iterable[tuple[str, frozenset[int]]]) -> set[str]:
    """Paths (of ``{path: line_hashes}``) that concatenate other files of the same repository."""
    files = dict(files)
    # Only a line held by 2 to COMMON_LINE_FILES files can tie a file to another: most lines are one
    # file's own, so they are counted in one pass (C) and never looked at again.
    holder_counts = collections.Counter(itertools.chain.from_iterable(files.values()))
    shared_lines = {line for line, count in holder_counts.items() if 1 < count <= COMMON_LINE_FILES}
    holders: dict[int, list[str]] = collections.defaultdict(list)
    for path, lines in files.items():
        for line in lines & shared_lines:
            holders[line].append(path)
    found = set()
    for path, lines in files.items():
        shared: collections.Counter = collections.Counter()  # lines shared with each file (and itself)
        for line in lines & shared_lines:
            shared.update(holders[line])
        # A part is a smaller file (at most half of this one: a copy or a sibling of like size is not a
        # part), counted once however many identical copies of it the repository holds.
        parts = {files[other] for other, n in shared.items()
                 if other != path and MIN_PART_LINES <= len(files[other]) <= len(lines) * PART_SHARE_MAX
                 and n >= PART_COVERED * len(files[other])}
        covered = len(lines & frozenset().union(*parts)) if parts else 0
        if len(parts) >= MIN_PARTS and covered >= AMALGAM_COVERED * len(lines):
            found.add(path)
    return found
