"""Beam wiring of near-duplicate edges: sign and band documents, pair up LSH buckets, verify pairs
with the texts they need. The per-element logic and its shapes are ``dedup.near``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator

import apache_beam as beam
from apache_beam.metrics import Metrics

from codemix.dedup.config import SIDE_INPUT, DedupConfig
from codemix.dedup.index import is_previous
from codemix.dedup.minhash import (
    band_keys,
    make_permutations,
    shingle_hashes,
    signature,
    to_bytes,
)
from codemix.dedup.near import (
    MAX_PAIRS_PER_BUCKET,
    MIN_PIVOTS,
    OFFER,
    PAYLOAD,
    Edge,
    all_pairs,
    bucket_star_edges,
    compared_text,
    judge_held_pairs,
    payload_requests,
    pivot_order,
    pivot_pairs,
    previous_band_keys,
    send_payloads,
    text_payload,
)
from codemix.dedup.scope import kind_name, scope_of, scoped_key
from codemix.pipelines.costs import charge, utf8_length
from codemix.pipelines.dedup.id_joins import KeepListed, keyed_spill
from codemix.pipelines.dedup.rows import NAMESPACE, location_of
from codemix.pipelines.spill import distinct, grouping


def bucket_pairs(bucket: tuple[bytes, Iterable[str]], max_pairs: int) -> Iterator[Edge | beam.pvalue.TaggedOutput]:
    """The pairs of one LSH bucket to verify (see the module docstring).

    A small bucket yields all its pairs. A large one yields the pairs among its k pivots and,
    tagged ``offer``, (member, pivots) for each other member, which ``pivot_pairs`` turns into
    pairs once it has the member's offers from all its buckets.
    """
    _, members = bucket
    nodes = sorted(set(members), key=pivot_order)
    n = len(nodes)
    if n < 2 or is_previous(nodes[0]):
        return
    if n * (n - 1) // 2 <= max_pairs:
        yield from all_pairs(nodes)
        return
    earlier = sum(1 for node in nodes if is_previous(node))
    nodes = nodes[: n - earlier + MIN_PIVOTS]  # the new documents and the first few earlier ones
    pivots = nodes[: min(len(nodes) - 1, max(MIN_PIVOTS, max_pairs // n))]
    yield from all_pairs(pivots)
    for member in nodes[len(pivots) :]:
        yield beam.pvalue.TaggedOutput(OFFER, (member, tuple(pivots)))


@beam.typehints.with_output_types(tuple[list[bytes], str])  # the main output; tagged outputs are not type-checked
class SignDocuments(beam.DoFn):
    """Per document with tokens: ([band key per LSH band, within its dedup scope], id), and tagged ``signature``
    (id, source, location, signature bytes, kind) for the index. One element a document, not one a band:
    the grouping spills a record per key (``grouping``'s ``many_keys``) without Beam handling each."""

    def __init__(self, config: DedupConfig):
        self.config = config
        self.permutations = None
        self.unbanded = Metrics.counter(NAMESPACE, "near_skipped_no_tokens")

    def setup(self):
        # Drawn once per worker, from the seed, so every worker uses the same hash functions.
        self.permutations = make_permutations(self.config.num_perm, self.config.seed)

    def process(self, row):
        # Its CPU by language; its input's bytes when no exact step before it saw every document. Its
        # outputs (one per band) are made in one go and timed once, not once each.
        size = utf8_length(row.get("text") or "") if not self.config.exact else 0
        start = time.thread_time_ns()
        outputs = list(self._sign(row))
        charge(row.get("language"), time.thread_time_ns() - start, size)
        return outputs

    def _sign(self, row):
        config, doc_id = self.config, row["id"]
        hashes_S = shingle_hashes(compared_text(row), config.shingle_size, config.lowercase)
        if hashes_S.size == 0:  # no tokens: nothing to compare, and never a duplicate of anything
            self.unbanded.inc()
            return
        sig_P = signature(hashes_S, self.permutations)
        kind = kind_name(row)
        scope = scope_of(kind, config.across_kinds)
        yield [scoped_key(scope, key) for key in band_keys(sig_P, config.bands, config.rows)], doc_id
        yield beam.pvalue.TaggedOutput(
            "signature", (doc_id, row.get("source") or "", location_of(row), to_bytes(sig_P), kind)
        )


@beam.typehints.with_output_types(Edge)
class JudgeHeldPairs(beam.DoFn):
    """At one holder: its pairs at or above the threshold to the main output, the others to
    ``rejected``; both counted."""

    def __init__(self, config: DedupConfig):
        self.config = config
        self.permutations = None
        self.verified = Metrics.counter(NAMESPACE, "near_pairs_verified")
        self.rejected = Metrics.counter(NAMESPACE, "near_pairs_rejected")

    def setup(self):
        self.permutations = make_permutations(self.config.num_perm, self.config.seed)

    def process(self, holder_values):
        for pair, similarity in judge_held_pairs(holder_values, self.config, self.permutations):
            if similarity >= self.config.jaccard_threshold:
                self.verified.inc()
                yield pair
            else:
                self.rejected.inc()
                yield beam.pvalue.TaggedOutput("rejected", pair)


# ---------------------------------------------------------------- composite transforms


class VerifyPairs(beam.PTransform):
    """(candidate pairs, (node, (PAYLOAD, bytes)) payloads) -> (pairs reaching the threshold, rejected pairs).

    A new document's payload is ``pack_text`` of its text, an earlier one's its signature bytes.
    """

    def __init__(self, config: DedupConfig, spill_dir: str | None = None):
        super().__init__()
        self.config, self.spill_dir = config, spill_dir

    def expand(self, inputs):
        pairs, payloads = inputs  # payloads: one PCollection, or a tuple of them
        payloads = tuple(payloads) if isinstance(payloads, tuple | list) else (payloads,)
        requests = pairs | "RequestPayloads" >> beam.FlatMap(payload_requests)
        judged = (
            (requests, *payloads)
            | "GroupByDocument" >> grouping(self.spill_dir, "by_document")
            | "SendPayloads" >> beam.FlatMap(send_payloads)
            | "GroupByHolder" >> grouping(self.spill_dir, "by_holder")
            | "Judge" >> beam.ParDo(JudgeHeldPairs(self.config)).with_outputs("rejected", main="verified")
        )
        return judged.verified, judged.rejected


class CandidateEdges(beam.PTransform):
    """Documents (id, text, ...), optionally with earlier (node, signature) pairs -> the edges to cluster.

    Input: a PCollection of documents, or a dict with ``docs`` and optionally ``previous`` ((node, signature,
    scope) of earlier documents) and
    ``payload_docs``, a second read of the same documents, whose texts verification ships. With
    ``join`` "side_input" only the documents in candidate pairs are shipped, selected by a side
    input of their ids, so the first read never waits for it and no other document is shuffled;
    with "keyed_join" every payload meets the pairs' requests in ``VerifyPairs``' grouping by
    document, which drops those no pair asks for, and no worker holds a set of ids.
    With ``spill_dir``, the bucket and verification groupings go through run files under it
    (``pipelines.spill``). Output: a dict of PCollections: ``edges`` (verified pairs, or bucket stars when
    ``config.verify`` is off), ``candidates`` (every distinct pair considered), ``rejected``
    (pairs below the threshold) and ``signatures`` ((id, source, location, signature bytes) of
    every new document with tokens).
    """

    def __init__(
        self,
        config: DedupConfig,
        max_pairs_per_bucket: int = MAX_PAIRS_PER_BUCKET,
        spill_dir: str | None = None,
        join: str = SIDE_INPUT,
    ):
        super().__init__()
        self.config, self.max_pairs, self.spill_dir, self.join = config, max_pairs_per_bucket, spill_dir, join

    def expand(self, inputs):
        inputs = inputs if isinstance(inputs, dict) else {"docs": inputs}
        config, max_pairs = self.config, self.max_pairs
        previous = inputs.get("previous")
        signed = inputs["docs"] | "Sign" >> beam.ParDo(SignDocuments(config)).with_outputs("signature", main="bands")
        bands = [signed.bands]
        if previous is not None:
            bands.append(previous | "BandPrevious" >> beam.Map(previous_band_keys, config.bands, config.rows))
        # A bucket of one document pairs nothing (most are): left out of the grouping, never decoded.
        buckets = tuple(bands) | "GroupBuckets" >> grouping(self.spill_dir, "buckets", min_values=2, many_keys=True)
        # A pair comes out of every bucket it shares (up to one per band): with a keyed join the
        # repeats are dropped through run files too, so they never reach the runner's shuffle.
        pairs_spill = keyed_spill(self.join, self.spill_dir)
        if not config.verify:
            stars = buckets | "StarEdges" >> beam.FlatMap(bucket_star_edges) | "Distinct" >> distinct(pairs_spill, "stars")
            rejected = stars.pipeline | "NoneRejected" >> beam.Create([])
            return {"edges": stars, "candidates": stars, "rejected": rejected, "signatures": signed.signature}
        links = buckets | "Pairs" >> beam.FlatMap(bucket_pairs, max_pairs).with_outputs(OFFER, main="pairs")
        offered = (
            links[OFFER]
            | "GroupOffers" >> grouping(pairs_spill, "offers")
            | "PivotPairs" >> beam.FlatMap(pivot_pairs)
        )
        candidates = (links.pairs, offered) | "Distinct" >> distinct(pairs_spill, "pairs")
        payload_docs = inputs.get("payload_docs", inputs["docs"]) | "ById" >> beam.Map(lambda row: (row["id"], row))
        payloads = [] if previous is None else [
            previous | "PreviousPayloads" >> beam.MapTuple(lambda node, sig, _: (node, (PAYLOAD, sig)))]
        if self.join == SIDE_INPUT:
            # Ship only the payloads some pair needs, and pack only their texts. A keyed join would
            # shuffle them all to find those, which VerifyPairs' GroupByDocument does anyway: it drops
            # a payload no pair asks for.
            endpoints = candidates | "Endpoints" >> beam.FlatMap(lambda pair: pair)
            payload_docs = (payload_docs, endpoints) | "NeededDocs" >> KeepListed(SIDE_INPUT)
            payloads = [(payload, endpoints) | f"NeededPayloads{i or ''}" >> KeepListed(SIDE_INPUT)
                        for i, payload in enumerate(payloads)]
        # A tuple, not a Flatten: VerifyPairs' grouping takes each where it is made.
        payloads = (payload_docs | "TextPayloads" >> beam.MapTuple(lambda _, row: text_payload(row)), *payloads)
        verified, rejected = (candidates, payloads) | "Verify" >> VerifyPairs(config, self.spill_dir)
        return {"edges": verified, "candidates": candidates, "rejected": rejected, "signatures": signed.signature}
