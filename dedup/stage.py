"""The dedup stage's records and per-element logic: duplicate and signature rows, text digests, survivors.

The stage itself, its pipelines and its outputs are ``pipelines.dedup.deduplicate``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from codemix.dedup.index import doc_id_of, is_previous
from codemix.dedup.scope import kind_name, scope_of, scoped_key
from codemix.filters.commits import patch_digest
from codemix.kinds import DIFF, document_kind

DUPLICATE_SCHEMA = pa.schema(
    [
        ("doc_id", pa.string()),
        ("source", pa.string()),
        ("location", pa.string()),
        ("keeper_id", pa.string()),
        ("method", pa.string()),
    ]
)
# Exact keepers' signatures, from ``run_edges`` to the index written by ``run_final``.
SIGNATURE_SCHEMA = pa.schema(
    [("id", pa.string()), ("source", pa.string()), ("location", pa.string()), ("signature", pa.binary()),
     ("kind", pa.string())]
)


def signature_row(signed: tuple[str, str, str, bytes, str]) -> dict[str, Any]:
    doc_id, source, location, sig, kind = signed
    return {"id": doc_id, "source": source, "location": location, "signature": sig, "kind": kind}


@dataclass(slots=True, kw_only=True)
class DedupResult:
    """Counts from one run; ``documents_in == kept + exact_duplicates + near_duplicates + previous_duplicates``.

    ``candidate_pairs`` are the distinct LSH pairs considered (bucket stars when ``verify`` is off);
    with ``verify`` on, ``verified_pairs`` reached ``jaccard_threshold`` and became edges and
    ``rejected_pairs`` did not (both 0 when it is off).
    """

    documents_in: int
    kept: int
    exact_duplicates: int
    near_duplicates: int
    previous_duplicates: int
    component_passes: int
    candidate_pairs: int
    verified_pairs: int
    rejected_pairs: int


# ---------------------------------------------------------------- per-element logic (no Beam needed)


def text_digest(row: dict[str, Any], across_kinds: bool = False) -> bytes:
    """What makes two documents exact copies: the sha256 of the text, or for a commit of its patch
    (``filters.commits.patch_digest``), so a cherry-pick or a fork's mirror is a copy whatever its message;
    within the row's dedup scope (``scope_of``)."""
    kind = kind_name(row)
    if document_kind(kind).dedup == DIFF:
        digest = patch_digest(row.get("text") or "")
    else:
        digest = hashlib.sha256((row.get("text") or "").encode("utf-8")).digest()
    return scoped_key(scope_of(kind, across_kinds), digest)


def duplicate_row(doc_id: str, source: str, location: str, keeper_id: str, method: str) -> dict[str, str]:
    return {"doc_id": doc_id, "source": source, "location": location, "keeper_id": keeper_id, "method": method}


def exact_duplicate_rows(text_copies: tuple[bytes, Any]) -> list[dict[str, str]]:
    """Rows for every copy of one text except the best-ranked one, which they point to."""
    _, copies = text_copies
    copies = list(copies)
    best = min(range(len(copies)), key=lambda i: copies[i][0])
    keeper_id = copies[best][1]
    repeated = sorted({copy[1] for i, copy in enumerate(copies) if i != best and copy[1] == keeper_id})
    if repeated:  # the kept copies are chosen by id, so one id must name one document
        raise ValueError(f"dedup: document id {repeated[0]} occurs twice in the input (one location read twice?); "
                         "ids must be unique")
    return [
        duplicate_row(doc_id, source, location, keeper_id, "exact")
        for i, (_, doc_id, source, location) in enumerate(copies)
        if i != best
    ]


# A member of a component: (tier, rank, node). Tier 0, an earlier build's document, outranks every
# new one: earlier documents are already in the corpus, so a new document joining them is redundant.
# Among earlier documents the smallest id keeps (their ranks were not stored).
PREVIOUS_TIER, NEW_TIER = 0, 1


def ranked_member(node: tuple[str, dict[str, list]]) -> list[tuple[str, tuple]]:
    """(component, (tier, rank, node, source, location)) for a node of the near-duplicate graph;
    earlier documents have no rank row (nor a source or location in this build)."""
    node_id, joined = node
    if is_previous(node_id):
        return [(component, (PREVIOUS_TIER, (), node_id, "", "")) for component in joined["component"]]
    return [
        (component, (NEW_TIER, rank, node_id, source, location))
        for component in joined["component"]
        for rank, source, location in joined["rank"]
    ]


def near_duplicate_rows(component_members: tuple[str, Any]) -> list[dict[str, str]]:
    """A duplicate row for every new member of a component except its keeper.

    The method is "previous" when the keeper is an earlier build's document, else "near".
    """
    _, members = component_members
    tier, _, keeper, _, _ = min(members)
    method = "previous" if tier == PREVIOUS_TIER else "near"
    return [
        duplicate_row(node, source, location, doc_id_of(keeper), method)
        for member_tier, _, node, source, location in members
        if member_tier == NEW_TIER and node != keeper
    ]


def point_to_survivor(joined: tuple[str, dict[str, list]]) -> list[dict[str, str]]:
    """Exact-duplicate rows whose keeper was itself removed as a near duplicate now name the survivor."""
    _, groups = joined
    survivors = groups["near_keeper"]
    return [{**row, "keeper_id": survivors[0]} if survivors else row for row in groups["row"]]
