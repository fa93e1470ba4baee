"""Near-duplicate edges: sign and band every document, pair up each LSH bucket, verify the pairs.

Shapes: P = ``num_perm``, S = distinct shingles of one document, n = members of one LSH bucket,
k = pivots of one bucket. Nodes are document ids; documents of earlier builds' indexes join the
buckets as ``index.previous_node`` ids, with a signature but no shingles.

Which pairs of a bucket are verified (``bucket_pairs``, ``pivot_pairs``):

  * Small buckets, n(n - 1)/2 <= ``max_pairs_per_bucket`` (n <= 11 by default): every pair.
    Verifying only the star from one centre would let a false-positive centre hide every true
    pair among the others.
  * Large buckets: stars from k = max(MIN_PIVOTS, max_pairs_per_bucket // n) pivots, the bucket's
    first members (new documents first, then by id). The pivots are paired with each other; every
    other member is offered the pivots and, once its offers from all its large buckets are
    grouped (``pivot_pairs``), is paired with the first pivot of each of them and with the first
    k pivots of all of them. A member so has at most k + ``bands`` pivot pairs, and in practice
    about k + 2, as the same few smallest ids lead most of a cluster's buckets: a cluster of 10,000
    forks gives ~7 pairs per member, not 50 million in all for a clique, nor the ~24 per member
    of a full star from every pivot of every bucket (a cluster's 32 buckets never hold quite the
    same members, so their pivots differ). The first pivot of a bucket reaches all its members,
    so the bucket stays connected through it; ids are content hashes, so pivots are a random
    sample, and should that one be a false positive the member's other k pivots, of which it
    needs one true, still link it (~f^k for a fraction f of false positives). A large bucket
    keeps only its first MIN_PIVOTS earlier documents: a new one needs one earlier match, not
    thousands.

  We chose pivots over a sorted chain (each member linked to the next), which one false positive
  cuts in two, and whose pairs, like per-bucket pivots, differ from bucket to bucket.

Verification (``VerifyPairs``) ships every payload once per pair, in one direction, and only for
documents in candidate pairs: once the pairs are known, their endpoints select the payloads of a
second read of the documents, by a side input (``ids.IdSet``, 16 bytes per id) or by a keyed join
on id (``dedup.config.JOINS``). A new document's
payload is its text, zstd-compressed (``pack_text``), a fifth of its shingle set at 8 bytes per
shingle; the holder recomputes the shingles. Each pair has a holder: its new endpoint when the other
is an earlier build's document, else its larger id, which in a large bucket is the member rather
than the pivot, so a holder holds at most ~k + 2 pairs of a cluster however big the cluster grows.
The partner (the other endpoint) sends its payload to the holder; the holder, which keeps its own,
judges all its pairs in one group. A group so holds one document's text plus its partners'
(bounded by its pair count). A pair with an earlier document compares signatures (that index's
stored signature against the holder's, computed from its text; ``estimated_jaccard``, standard
error 0.025 at 0.8 for 256 permutations), since earlier texts were not stored; new pairs get the
exact Jaccard of their shingle sets.

The Beam wiring is ``pipelines.dedup.candidate_edges``.
"""

from __future__ import annotations

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
    return row["id"], (PAYLOAD, pack_text(row.get("text") or ""))


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


def previous_band_keys(node_signature: tuple[str, bytes], bands: int, rows: int) -> Iterator[tuple[bytes, str]]:
    node, sig_bytes = node_signature
    for key in band_keys(from_bytes(sig_bytes), bands, rows):
        yield key, node
