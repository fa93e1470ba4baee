"""Near-duplicate edges: sign and band every document, pair up each LSH bucket, verify the pairs.

Design notes: docs/design/dedup.md, "dedup/near.py".
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import zstandard

from codemix.dedup.config import DedupConfig
from codemix.dedup.index import is_previous
from codemix.dedup.minhash import (
    band_keys,
    estimated_jaccard,
    exact_jaccard,
    from_bytes,
    shingle_hashes,
    signature,
)
from codemix.dedup.scope import scoped_key
from codemix.kinds import MESSAGES, document_kind

# Pairs verified per bucket before switching from all pairs to k pivots (n <= 11 gets all pairs): a
# document so holds at most ~10 pairs per bucket, and the verification shuffle grows with documents,
# not with the square of cluster sizes.
MAX_PAIRS_PER_BUCKET = 64
# Least pivots of a large bucket: a member loses its links only if its first 4 pivots are all false positives.
MIN_PIVOTS = 4
# How a pair is judged (``payload_kind``): exact Jaccard of shingle sets, or the signature estimate.
SHINGLES, SIGNATURE = "shingles", "signature"
TEXT_LEVEL = 1  # zstd level of a text payload: ~3x on code, far faster than the shingling it saves shipping
# Tags of verification's messages: a partner is asked to SEND_TO a holder, a holder to HOLD its own
# payload; what arrives at the holder is its OWN payload or a PARTNER's.
SEND_TO, HOLD, OWN, PARTNER = "send_to", "hold", "own", "partner"
PAYLOAD = "payload"  # tag of (node, (PAYLOAD, bytes)): what a document sends, before it is routed
OFFER = "offer"  # tag of (member, pivots) from a large bucket

Edge = tuple[str, str]


# ---------------------------------------------------------------- per-element logic (no Beam needed)


def pivot_order(node: str) -> tuple[bool, str]:
    """New documents before earlier ones (whose pairs among themselves are never needed), then by id."""
    return is_previous(node), node


def ordered(u: str, v: str) -> Edge:
    return (u, v) if u < v else (v, u)


def all_pairs(nodes: list[str]) -> Iterator[Edge]:
    """Every pair of ``nodes`` (sorted by ``pivot_order``) except those of two earlier documents,
    which were deduplicated when they were built; each as (smaller id, larger id), so ``Distinct``
    merges the same pair found in other buckets."""
    for i, u in enumerate(nodes):
        if is_previous(u):  # and so is every later node
            return
        for v in nodes[i + 1 :]:
            yield ordered(u, v)


def pivot_pairs(member_offers: tuple[str, Iterable[tuple[str, ...]]]) -> list[Edge]:
    """At one member of large buckets: pairs with the first pivot of each bucket that offered, and
    with the first k of all offered pivots, k being the most any one bucket offered."""
    member, offers = member_offers
    offers = list(offers)
    k = max(len(pivots) for pivots in offers)
    offered = sorted({pivot for pivots in offers for pivot in pivots}, key=pivot_order)
    chosen = set(offered[:k]) | {pivots[0] for pivots in offers}
    chosen.discard(member)
    return [ordered(pivot, member) for pivot in chosen if not (is_previous(pivot) and is_previous(member))]


def bucket_star_edges(bucket: tuple[bytes, Iterable[str]]) -> list[Edge]:
    """Without verification, a star connects the bucket with n - 1 edges, centred on its first member."""
    _, members = bucket
    nodes = sorted(set(members), key=pivot_order)
    if len(nodes) < 2 or is_previous(nodes[0]):
        return []
    return [ordered(nodes[0], other) for other in nodes[1:]]


def payload_kind(pair: Edge) -> str:
    """How a pair is judged: exact Jaccard of shingles for two new documents; the signature estimate
    when one is from an earlier index (which kept no text)."""
    return SIGNATURE if is_previous(pair[0]) or is_previous(pair[1]) else SHINGLES


def pack_text(text: str) -> bytes:
    """A new document's payload: its text, zstd-compressed (~a third of the text, ~a fifth of its
    shingle set at 8 bytes per shingle, which the holder recomputes)."""
    return zstandard.compress(text.encode("utf-8", "surrogatepass"), TEXT_LEVEL)


def unpack_text(payload: bytes) -> str:
    return zstandard.decompress(payload).decode("utf-8", "surrogatepass")


def text_payload(row: dict[str, Any]) -> tuple[str, tuple[str, bytes]]:
    """(id, (PAYLOAD, packed text)): what a new document sends to the holders of its pairs."""
    return row["id"], (PAYLOAD, pack_text(compared_text(row)))


def compared_text(row: dict[str, Any]) -> str:
    """What near-duplicate detection compares of a document: its text; for a transcript, what the agent
    wrote: its turns (not observations), with its reasoning and calls. Not the system prompt, and not
    the task either: two runs of different tasks under one harness share its prompt, its
    demonstrations and often a long instruction block in the first user turn (14,000 characters in
    every AgentBench task: whole-transcript Jaccard 0.875, on what the agent wrote 0.031), and would
    pass for copies of each other (docs/design/dedup.md). A transcript whose agent wrote nothing
    compares nothing (it is never a near-duplicate; exact copies are still found by their hash)."""
    text = row.get("text") or ""
    if "kind" not in row or document_kind(row["kind"]).dedup != MESSAGES:
        return text
    metadata = row.get("metadata")
    messages = (json.loads(metadata) if isinstance(metadata, str) else metadata or {}).get("messages")
    if not messages:
        return text
    parts = []
    for message in messages:
        if message.get("role") != "assistant" or message.get("observation", False):
            continue
        parts += [message.get("content") or "", message.get("reasoning") or ""]
        parts += [f"{call.get('name', '')} {call.get('arguments', '')}" for call in message.get("tool_calls") or []]
    return "\n".join(part for part in parts if part)


def holder_and_partner(pair: Edge) -> Edge:
    """(holder, partner): the holder judges the pair with its own payload and the partner's.

    The new endpoint holds a pair with an earlier document (which has no text and judges
    nothing); otherwise the larger id holds, which is the member, not the pivot, of a pivot pair.
    """
    u, v = pair
    if is_previous(v):
        return u, v
    if is_previous(u):
        return v, u
    return (v, u) if u < v else (u, v)


def payload_requests(pair: Edge) -> Iterator[tuple[str, tuple]]:
    """Ask the partner to send its payload to the holder, and the holder to keep its own."""
    holder, partner = holder_and_partner(pair)
    yield partner, (SEND_TO, holder)
    yield holder, (HOLD,)


def send_payloads(node_values: tuple[str, Iterable[tuple]]) -> Iterator[tuple[str, tuple]]:
    """At one document: its payload to each holder that asked for it, and to itself if it holds
    pairs. Holds one payload and the ids of its holders."""
    node, values = node_values
    payload, holders, holds = None, [], False
    for value in values:
        if value[0] == SEND_TO:
            holders.append(value[1])
        elif value[0] == HOLD:
            holds = True
        else:  # the same earlier document in two indexes: keep one, the same one on every run
            payload = value[1] if payload is None else min(payload, value[1])
    if payload is None and (holds or holders):
        raise RuntimeError(f"dedup verify: no payload for {node!r}, which is in candidate pairs")
    if holds:
        yield node, (OWN, payload)
    for holder in holders:
        yield holder, (PARTNER, node, payload)


def judge_held_pairs(
    holder_values: tuple[str, Iterable[tuple]], config: DedupConfig, permutations: tuple[np.ndarray, np.ndarray]
) -> Iterator[tuple[Edge, float]]:
    """At one holder (always a new document): (pair, similarity) for every partner that sent its
    payload. Its own shingles are computed once, its signature only if an earlier document asks."""
    holder, values = holder_values
    own, partners = None, []
    for value in values:
        if value[0] == OWN:
            own = value[1]
        else:
            partners.append((value[1], value[2]))
    if own is None:
        raise RuntimeError(f"dedup verify: holder {holder!r} received no text of its own")
    own_shingles = shingle_hashes(unpack_text(own), config.shingle_size, config.lowercase)
    own_signature = None
    for partner, payload in partners:
        pair = ordered(holder, partner)
        if is_previous(partner):
            if own_signature is None:
                own_signature = signature(own_shingles, permutations)
            yield pair, estimated_jaccard(own_signature, from_bytes(payload))
        else:
            partner_shingles = shingle_hashes(unpack_text(payload), config.shingle_size, config.lowercase)
            yield pair, exact_jaccard(own_shingles, partner_shingles)


def previous_band_keys(node_signature: tuple[str, bytes, str], bands: int, rows: int) -> tuple[list[bytes], str]:
    """([band key per band], node) of an earlier document, within its dedup scope."""
    node, sig_bytes, scope = node_signature
    return [scoped_key(scope, key) for key in band_keys(from_bytes(sig_bytes), bands, rows)], node
