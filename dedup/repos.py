"""Repository-level dedup's per-repository logic: summaries, ranks, verified bucket edges, keeper links and

the conservation check. The stage, its pipelines and its outputs are ``pipelines.dedup.repository_dedup``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from codemix.dedup.keeper import RECENCY_FIELDS, as_epoch_seconds, rank_key
from codemix.dedup.minhash import estimated_jaccard
from codemix.kinds import document_kind

NAMESPACE = "codemix.dedup.repos"
# One row per removed repository.
REPO_DUPLICATE_SCHEMA = pa.schema(
    [
        ("source", pa.string()),
        ("repo", pa.string()),
        ("keeper_source", pa.string()),
        ("keeper_repo", pa.string()),
        ("documents", pa.int64()),
    ]
)
# One row per repository (under _work/repos/): what banding and ranking need, no text.
REPO_SUMMARY_SCHEMA = pa.schema(
    [
        ("key", pa.string()),
        ("source", pa.string()),
        ("repo", pa.string()),
        ("files", pa.int64()),
        ("bytes", pa.int64()),
        ("license", pa.string()),
        ("stars", pa.float64()),
        ("forks", pa.float64()),
        ("updated_at", pa.float64()),  # epoch seconds
        ("signature", pa.binary()),  # P little-endian uint64; null when no file has a token
    ]
)
_KEY_SEPARATOR = "\x00"  # the same key as pipelines.filter.repository_key


@dataclass(slots=True, kw_only=True)
class RepoDedupResult:
    """Counts from one run.

    ``repositories_in == repositories_kept + repository_duplicates`` and
    ``documents_in == documents_kept + documents_removed``; ``documents_kept`` includes pass-through.
    """

    repositories_in: int
    repositories_kept: int
    repository_duplicates: int
    documents_kept: int
    component_passes: int
    documents_in: int = 0
    documents_removed: int = 0


# ---------------------------------------------------------------- per-element logic (no Beam needed)


def repo_key(source: str, repo: str) -> str:
    """Node id of a repository in the component graph; sorts by source, then repo."""
    return f"{source}{_KEY_SEPARATOR}{repo}"


def split_repo_key(key: str) -> tuple[str, str]:
    source, _, repo = key.partition(_KEY_SEPARATOR)
    return source, repo


def repository_of(row: dict[str, Any]) -> str | None:
    """The row's repository key, or None for a document that passes through (not a file of a repo)."""
    if "kind" not in row or not document_kind(row["kind"]).repository_file or not row.get("repo"):
        return None
    return repo_key(row.get("source") or "", row["repo"])


def _max(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


def _recency(metadata: dict[str, Any]) -> float | None:
    """Epoch seconds of the first recency field present, as ``keeper`` reads it."""
    for name in RECENCY_FIELDS:
        seconds = as_epoch_seconds(metadata.get(name))
        if seconds is not None:
            return seconds
    return None


@dataclass(slots=True, kw_only=True)
class RepoSummary:
    """What one repository (or any subset of its files) contributes; ``merge`` is associative and commutative."""

    sig_P: np.ndarray | None = None  # element-wise min of the files' signatures; None: no tokens yet
    files: int = 0
    bytes: int = 0
    licenses: Counter = field(default_factory=Counter)  # license -> files carrying it
    stars: float | None = None
    forks: float | None = None
    updated_at: float | None = None

    def merge(self, other: RepoSummary) -> RepoSummary:
        """Fold ``other`` into self (in place, as a CombineFn accumulator may) and return self."""
        if other.sig_P is not None:
            self.sig_P = other.sig_P.copy() if self.sig_P is None else np.minimum(self.sig_P, other.sig_P)
        self.files += other.files
        self.bytes += other.bytes
        self.licenses.update(other.licenses)
        self.stars, self.forks = _max(self.stars, other.stars), _max(self.forks, other.forks)
        self.updated_at = _max(self.updated_at, other.updated_at)
        return self

    def license(self) -> str:
        """The license most files carry (after the filter stage, the repository's); ties -> smallest id."""
        if not self.licenses:
            return ""
        return min(self.licenses.items(), key=lambda item: (-item[1], item[0]))[0]


def summary_row(key: str, summary: RepoSummary) -> dict[str, Any]:
    source, repo = split_repo_key(key)
    sig = None if summary.sig_P is None else np.ascontiguousarray(summary.sig_P, dtype="<u8").tobytes()
    return {
        "key": key,
        "source": source,
        "repo": repo,
        "files": summary.files,
        "bytes": summary.bytes,
        "license": summary.license(),
        "stars": summary.stars,
        "forks": summary.forks,
        "updated_at": summary.updated_at,
        "signature": sig,
    }


def repo_rank(row: dict[str, Any], order: list[str]) -> tuple:
    """``rank_key`` of a summary row: the repository as one record whose id is its key."""
    metadata = {name: row[name] for name in ("stars", "forks", "updated_at") if row.get(name) is not None}
    return rank_key({"id": row["key"], "license": row.get("license") or "", "metadata": metadata}, order)


def verified_bucket_edges(bucket: tuple[bytes, Iterable[tuple[str, bytes]]], threshold: float | None) -> list:
    """Edges (leader, member) inside one LSH bucket, each verified at ``threshold`` (None: not verified).

    Members in key order link to the first leader whose estimated Jaccard reaches the threshold, or
    become leaders; so every edge is verified and n near-identical forks cost about n comparisons.
    """
    _, members = bucket
    leaders: list[tuple[str, np.ndarray]] = []
    edges = []
    for key, sig_bytes in sorted(dict(members).items()):
        sig_P = np.frombuffer(sig_bytes, dtype="<u8")
        leader = next((k for k, s in leaders if threshold is None or estimated_jaccard(s, sig_P) >= threshold), None)
        if leader is None:
            leaders.append((key, sig_P))
        else:
            edges.append((leader, key))
    return edges


def ranked_member(node: tuple[str, dict[str, list]]) -> list[tuple[str, tuple[tuple, str]]]:
    """(component, (rank, repo key)) for a repository that belongs to a component."""
    key, joined = node
    return [(component, (rank, key)) for component in joined["component"] for rank in joined["rank"]]


def keeper_links(component_members: tuple[str, Iterable[tuple[tuple, str]]]) -> list[tuple[str, str]]:
    """(removed repo key, keeper repo key) for every member of a component but its best-ranked one."""
    _, members = component_members
    _, keeper = min(members)
    return [(key, keeper) for _, key in members if key != keeper]


def check_conservation(result: RepoDedupResult) -> None:
    """Raise ``RuntimeError`` unless every document and repository is kept or removed exactly once."""
    if result.documents_kept + result.documents_removed != result.documents_in:
        raise RuntimeError(f"repository dedup lost or invented documents: {result}")
    if result.repositories_kept + result.repository_duplicates != result.repositories_in:
        raise RuntimeError(f"repository dedup lost or invented repositories: {result}")
