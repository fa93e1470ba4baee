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
import sys
from collections.abc import Collection, Iterable, Mapping

import numpy as np
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


def line_hash_array(packed: bytes) -> np.ndarray:
    """``packed_line_hashes`` as a read-only uint64 array over the same bytes (no int objects made)."""
    return np.frombuffer(packed, dtype="<u8")


def _little_endian(values: array.array) -> array.array:
    if values.itemsize != 8:
        raise RuntimeError(f"array 'Q' is {values.itemsize} bytes on this platform, not 8")
    if sys.byteorder != "little":
        values.byteswap()
    return values


def amalgamated(files: Mapping[str, Collection[int] | np.ndarray]
                | Iterable[tuple[str, Collection[int] | np.ndarray]]) -> set[str]:
    """Paths (of ``{path: distinct line hashes}``, a set or a uint64 array) that concatenate other files of
    the same repository.

    Counted in numpy, not per line in Python (bench/RESULTS.md, issue 49, round 17): only a line held by 2 to
    COMMON_LINE_FILES files can tie a file to another (most lines are one file's own); for each such line, every
    ordered pair of its holders counts one shared line, so (file, other) -> lines they share."""
    paths, arrays = [], []
    for path, lines in dict(files).items():
        paths.append(path)
        arrays.append(lines if isinstance(lines, np.ndarray) else np.fromiter(lines, np.uint64, len(lines)))
    sizes = np.array([values.size for values in arrays], dtype=np.int64)
    shared = _shared_line_counts(arrays, sizes)
    if shared is None:
        return set()
    path_of, other_of, n = shared
    # A part is a smaller file (at most PART_SHARE_MAX of this one: a copy or a sibling of like size is not a
    # part) with PART_COVERED of its lines in this one (float64 products, as Python's int * float).
    part_size = sizes[other_of]
    is_part = ((path_of != other_of) & (part_size >= MIN_PART_LINES)
               & (part_size <= sizes[path_of] * PART_SHARE_MAX) & (n >= PART_COVERED * part_size))
    path_of, other_of = path_of[is_part], other_of[is_part]
    # Identical copies of a part count once: parts are told apart by their lines, not their paths.
    same_lines: dict[bytes, int] = {}
    line_set = [same_lines.setdefault(np.sort(values).tobytes(), len(same_lines)) for values in arrays]
    found = set()
    for path in np.unique(path_of):
        others = other_of[path_of == path]
        parts = list({line_set[other]: other for other in others.tolist()}.values())
        if len(parts) < MIN_PARTS:
            continue
        covered = np.isin(arrays[path], np.concatenate([arrays[other] for other in parts])).sum()
        if covered >= AMALGAM_COVERED * sizes[path]:
            found.add(paths[path])
    return found


PAIR_CHUNK = 1 << 22  # holder pairs counted at a time: bounds the memory of a repository of many shared lines


def _shared_line_counts(arrays: list[np.ndarray], sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(path index, other index, lines they share) for every ordered pair of files (a file with itself too)
    sharing a line held by at most COMMON_LINE_FILES files; None when no line is held by two."""
    if sizes.sum() == 0:
        return None
    lines = np.concatenate(arrays)
    holder = np.repeat(np.arange(len(arrays), dtype=np.int64), sizes)
    order = np.argsort(lines, kind="stable")
    lines, holder = lines[order], holder[order]
    starts = np.flatnonzero(np.concatenate(([True], lines[1:] != lines[:-1])))
    counts = np.diff(np.append(starts, lines.size))
    keep = (counts > 1) & (counts <= COMMON_LINE_FILES)
    starts, counts = starts[keep], counts[keep]
    if not starts.size:
        return None
    files = len(arrays)
    keys, weights = [], []
    pairs_per_group = counts * counts
    bounds = np.searchsorted(np.cumsum(pairs_per_group), np.arange(PAIR_CHUNK, pairs_per_group.sum(), PAIR_CHUNK))
    for group_starts, group_counts in zip(np.split(starts, bounds), np.split(counts, bounds), strict=True):
        # every member of a group, repeated once per member of its group: (member, each member) pairs
        member = np.repeat(group_starts, group_counts) + _ranges(group_counts)
        first = np.repeat(member, np.repeat(group_counts, group_counts))
        second = np.repeat(group_starts, group_counts * group_counts) + _ranges(np.repeat(group_counts, group_counts))
        unique, count = np.unique(holder[first] * files + holder[second], return_counts=True)
        keys.append(unique)
        weights.append(count)
    unique, inverse = np.unique(np.concatenate(keys), return_inverse=True)
    n = np.bincount(inverse, weights=np.concatenate(weights)).astype(np.int64)
    return unique // files, unique % files, n


def _ranges(lengths: np.ndarray) -> np.ndarray:
    """0..length-1 for each length, back to back."""
    ends = np.cumsum(lengths)
    return np.arange(ends[-1] if ends.size else 0) - np.repeat(ends - lengths, lengths)
