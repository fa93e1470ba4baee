"""Compact sets of document ids, for semi-joins by side input instead of whole-document shuffles,
and the per-group logic of the keyed join that replaces them where the runner's shuffle spills.

Design notes: docs/design/dedup.md, "dedup/ids.py".
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

DIGEST_BYTES = 16
_DTYPE = f"S{DIGEST_BYTES}"


def id_digest(doc_id: str) -> bytes:
    return hashlib.blake2b(doc_id.encode("utf-8", "surrogatepass"), digest_size=DIGEST_BYTES).digest()


class IdSet:
    """An immutable set of ids (``in``, ``len``), stored as their sorted 16-byte digests."""

    __slots__ = ("digests",)

    def __init__(self, digests: np.ndarray):
        self.digests = digests

    @classmethod
    def from_digests(cls, concatenated: bytes) -> IdSet:
        """From digests laid end to end (as ``IdSetOf`` accumulates them); repeats count once."""
        return cls(np.unique(np.frombuffer(concatenated, dtype=_DTYPE)))

    @classmethod
    def of(cls, ids: Iterable[str]) -> IdSet:
        return cls.from_digests(b"".join(map(id_digest, ids)))

    def __contains__(self, doc_id: str) -> bool:
        digest = np.frombuffer(id_digest(doc_id), dtype=_DTYPE)
        index = int(np.searchsorted(self.digests, digest)[0])
        return index < len(self.digests) and self.digests[index] == digest[0]

    def __len__(self) -> int:
        return len(self.digests)

    def __getstate__(self):
        return (self.digests.tobytes(),)  # a tuple: an empty state would skip __setstate__ under protocols 0-1

    def __setstate__(self, state: tuple[bytes]):
        self.digests = np.frombuffer(state[0], dtype=_DTYPE)


# Tags of a keyed join's values: a row of the id, or a mark that the id is listed.
ROW, LISTED = 0, 1


def listed_or_not(group: tuple[str, Iterable[tuple[int, Any]]], keep_listed: bool) -> Iterator[tuple[str, Any]]:
    """One id's group of a keyed join -> its ``(id, row)`` pairs if the id is listed (``keep_listed``)
    or if it is not (``keep_listed`` false); nothing otherwise.

    An id may be listed many times (an endpoint of many candidate pairs), so the marks are never
    kept: the group's memory is the id's rows.
    """
    doc_id, values = group
    rows, listed = [], False
    for tag, value in values:
        if tag == LISTED:
            listed = True
        else:
            rows.append(value)
    if listed == keep_listed:
        yield from ((doc_id, row) for row in rows)
