"""Candidate pairs and their verification: which pairs of a bucket are checked, and that checking is exact.

The recall property under test: a false positive in a bucket (a document that shares one band by
chance) must not hide a true pair among the bucket's other members, in small buckets (every pair
is checked) and in large ones (stars from several pivots).
"""

from __future__ import annotations

import itertools
from collections import defaultdict

import apache_beam as beam
import numpy as np
import pytest
from apache_beam.metrics.metric import MetricsFilter
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.pvalue import TaggedOutput
from apache_beam.testing.test_pipeline import TestPipeline as BeamTestPipeline
from apache_beam.testing.util import assert_that, equal_to

from codemix.dedup.config import DedupConfig
from codemix.dedup.index import previous_node
from codemix.dedup.minhash import make_permutations, shingle_hashes, signature, to_bytes
from codemix.dedup.near import (
    MAX_PAIRS_PER_BUCKET,
    MIN_PIVOTS,
    OWN,
    PAYLOAD,
    bucket_star_edges,
    holder_and_partner,
    judge_held_pairs,
    pack_text,
    payload_requests,
    pivot_pairs,
    send_payloads,
)
from codemix.pipelines.dedup.candidate_edges import CandidateEdges, VerifyPairs, bucket_pairs
from tests.dedup.corpus import edit_lines, stdlib_texts, true_jaccard
from tests.dedup.test_components import union_find_labels

RUNNER = ["--runner=FnApiRunner"]
CONFIG = DedupConfig()
PERMUTATIONS = make_permutations(CONFIG.num_perm, CONFIG.seed)


def hashes(text: str) -> np.ndarray:
    return shingle_hashes(text, CONFIG.shingle_size, CONFIG.lowercase)


def payloads_for(texts: dict[str, str]) -> dict[str, bytes]:
    """node -> payload, as ``CandidateEdges`` sends a new document's: its packed text."""
    return {node: pack_text(text) for node, text in texts.items()}


def signature_of(text: str) -> bytes:
    """What an earlier build's index stored for a document of this text."""
    return to_bytes(signature(hashes(text), PERMUTATIONS))


def group(items) -> dict:
    grouped: dict = {}
    for key, value in items:
        grouped.setdefault(key, []).append(value)
    return grouped


def route_payloads(pairs, payloads) -> dict[str, list]:
    """The per-element functions alone, grouped as Beam would: requests and payloads by document,
    then what each document sends, by holder."""
    by_node = group([request for pair in pairs for request in payload_requests(pair)])
    for node in by_node:
        by_node[node].append((PAYLOAD, payloads[node]))
    return group([message for item in by_node.items() for message in send_payloads(item)])


def verify_in_memory(pairs, payloads, threshold: float = CONFIG.jaccard_threshold) -> set[tuple[str, str]]:
    """Route payloads to holders, then judge each pair (as (smaller id, larger id), as Beam has them)."""
    pairs = [tuple(sorted(pair)) for pair in pairs]
    routed = route_payloads(pairs, payloads)
    judged = [j for item in routed.items() for j in judge_held_pairs(item, CONFIG, PERMUTATIONS)]
    assert sorted(pair for pair, _ in judged) == sorted(pairs), "every candidate pair is judged exactly once"
    return {pair for pair, similarity in judged if similarity >= threshold}


def connected(edges, a: str, b: str) -> bool:
    labels = union_find_labels(edges)
    return a in labels and b in labels and labels[a] == labels[b]


FORKS = [f"1{i}-fork" for i in range(4)]


@pytest.fixture(scope="module")
def planted() -> dict[str, str]:
    """Forks of one module (true pairs) and, sorting before them, MIN_PIVOTS - 1 unrelated modules."""
    texts = list(stdlib_texts(MIN_PIVOTS).values())
    false_positives = {f"{i:02d}-false-positive": text for i, text in enumerate(texts[1:])}
    return {**false_positives, **{fork: edit_lines(texts[0], 2, seed=i) for i, fork in enumerate(FORKS)}}


def test_fixture_plants_true_pairs_only_among_forks(planted):
    sets = {node: set(hashes(text).tolist()) for node, text in planted.items()}
    similar = [
        pair for pair in itertools.combinations(sorted(sets), 2) if true_jaccard(*(sets[n] for n in pair)) >= 0.8
    ]
    assert similar == list(itertools.combinations(FORKS, 2))


def candidate_pairs(buckets, max_pairs: int = MAX_PAIRS_PER_BUCKET) -> set[tuple[str, str]]:
    """``bucket_pairs`` then ``pivot_pairs`` on the grouped offers, as ``CandidateEdges`` wires them."""
    pairs, offers = set(), defaultdict(list)
    for bucket in buckets:
        for out in bucket_pairs(bucket, max_pairs):
            if isinstance(out, TaggedOutput):
                member, pivots = out.value
                offers[member].append(pivots)
            else:
                pairs.add(out)
    for member_offers in offers.items():
        pairs.update(pivot_pairs(member_offers))
    return pairs


def neighbours(pairs) -> dict[str, set[str]]:
    out = defaultdict(set)
    for u, v in pairs:
        out[u].add(v)
        out[v].add(u)
    return out


def ids(count: int, prefix: str = "") -> list[str]:
    return [f"{prefix}{i:05d}" for i in range(count)]


@pytest.mark.parametrize("size", [2, 3, 10, 11])
def test_small_bucket_checks_every_pair(size):
    members = ids(size)
    assert size * (size - 1) // 2 <= MAX_PAIRS_PER_BUCKET, "fixture should be a small bucket"
    assert sorted(bucket_pairs((b"k", reversed(members)), MAX_PAIRS_PER_BUCKET)) == list(
        itertools.combinations(members, 2)
    )


@pytest.mark.parametrize("size", [46, 100, 1_000, 10_000])
def test_large_bucket_is_stars_from_pivots(size):
    """Never a clique: k pivots, each paired with every member, k(k-1)/2 + k(n-k) pairs in all."""
    members = ids(size)
    pairs = candidate_pairs([(b"k", members)])
    k = max(MIN_PIVOTS, MAX_PAIRS_PER_BUCKET // size)
    assert size * (size - 1) // 2 > MAX_PAIRS_PER_BUCKET, "fixture should be a large bucket"
    assert pairs == {(pivot, member) for i, pivot in enumerate(members[:k]) for member in members[i + 1 :]}
    assert len(pairs) <= max(MAX_PAIRS_PER_BUCKET, MIN_PIVOTS * size)


def test_ten_thousand_member_bucket_is_not_fifty_million_pairs():
    assert len(candidate_pairs([(b"k", ids(10_000))])) < MIN_PIVOTS * 10_000


def test_member_of_many_large_buckets_is_paired_with_few_pivots():
    """Worst case: 32 large buckets of the same 1,000 members, each led by its own 4 pivots. A member
    meets the first pivot of each bucket and the first MIN_PIVOTS overall (35), not all 128."""
    members = ids(1_000, "m")
    buckets = [(bytes([band]), [*ids(MIN_PIVOTS, f"{band:02d}-pivot-"), *members]) for band in range(32)]
    partners = neighbours(candidate_pairs(buckets))
    expected = set(ids(MIN_PIVOTS, "00-pivot-")) | {f"{band:02d}-pivot-00000" for band in range(32)}
    assert all(partners[member] == expected for member in members)
    assert len(expected) == MIN_PIVOTS + 31


def test_buckets_with_disjoint_pivots_stay_connected():
    """Two large buckets share members but not pivots, and one bucket's pivots all sort first: the
    members only in the other bucket are still linked to the shared ones (through its first pivot)."""
    shared, only_second = ids(50, "m-shared-"), ids(50, "n-second-")
    first, second = (b"1", [*ids(MIN_PIVOTS, "a-"), *shared]), (b"2", [*ids(MIN_PIVOTS, "b-"), *shared, *only_second])
    pairs = candidate_pairs([first, second], max_pairs=1)  # k = MIN_PIVOTS: pivots a-* and b-*
    labels = union_find_labels(pairs)
    assert len(set(labels.values())) == 1 and set(shared + only_second) <= set(labels)


def test_pairs_of_two_earlier_documents_are_never_checked():
    earlier = [previous_node(f"p{i}") for i in range(5)]
    assert list(bucket_pairs((b"k", earlier), MAX_PAIRS_PER_BUCKET)) == []
    assert bucket_star_edges((b"k", earlier)) == []
    pairs = candidate_pairs([(b"k", [*earlier, "n1", "n2"])])
    assert len(pairs) == 1 + 2 * len(earlier)  # n1-n2, and each new document with each earlier one
    assert all("n1" in pair or "n2" in pair for pair in pairs)


def test_large_bucket_pairs_a_new_document_with_a_few_earlier_ones_only():
    """A new document in a bucket of 200 earlier ones is their pivot, and meets MIN_PIVOTS of them."""
    earlier = [previous_node(f"{i:05d}") for i in range(200)]
    pairs = candidate_pairs([(b"k", [*earlier, "zz-new"])], max_pairs=100)
    assert sorted(pairs) == [(node, "zz-new") for node in earlier[:MIN_PIVOTS]]


def test_false_positive_centre_would_hide_the_pair_from_a_single_star(planted):
    """Guard for the next tests: with only the star from the smallest id, the forks are not linked."""
    stars = bucket_star_edges((b"k", ["00-false-positive", "10-fork", "11-fork"]))
    assert not connected(verify_in_memory(stars, payloads_for(planted)), "10-fork", "11-fork")


def test_false_positive_in_small_bucket_does_not_hide_a_true_pair(planted):
    bucket = (b"k", ["00-false-positive", "10-fork", "11-fork"])
    verified = verify_in_memory(candidate_pairs([bucket]), payloads_for(planted))
    assert verified == {("10-fork", "11-fork")}


def test_false_positive_pivots_in_large_bucket_do_not_hide_true_pairs(planted):
    """Over the cap, with MIN_PIVOTS - 1 false positives first: the last pivot, a fork, links all forks."""
    pairs = candidate_pairs([(b"k", list(planted))], max_pairs=1)
    assert len(pairs) < len(planted) * (len(planted) - 1) // 2, "fixture should take the large-bucket path"
    assert ("11-fork", "12-fork") not in pairs, "fixture should leave some true pairs unchecked"
    verified = verify_in_memory(pairs, payloads_for(planted))
    assert all(connected(verified, FORKS[0], fork) for fork in FORKS[1:])


def test_verify_pairs_in_beam_keeps_true_and_rejects_false_pairs(planted):
    pairs = sorted(candidate_pairs([(b"k", list(planted))]))
    true_pairs = list(itertools.combinations(FORKS, 2))
    payloads = [(node, (PAYLOAD, payload)) for node, payload in payloads_for(planted).items()]
    pipeline = BeamTestPipeline(options=PipelineOptions(RUNNER))
    verified, rejected = (
        pipeline | "Pairs" >> beam.Create(pairs),
        pipeline | "Payloads" >> beam.Create(payloads),
    ) | VerifyPairs(CONFIG)
    assert_that(verified, equal_to(true_pairs), label="Verified")
    assert_that(rejected | beam.combiners.Count.Globally(), equal_to([len(pairs) - len(true_pairs)]), label="Rejected")
    result = pipeline.run()
    result.wait_until_finish()
    counters = {
        name: sum(c.committed for c in result.metrics().query(MetricsFilter().with_name(name))["counters"])
        for name in ("near_pairs_verified", "near_pairs_rejected")
    }
    assert counters == {"near_pairs_verified": len(true_pairs), "near_pairs_rejected": len(pairs) - len(true_pairs)}


def test_pair_with_earlier_document_uses_the_signature_estimate(planted):
    earlier = previous_node("10-fork")
    payloads = payloads_for(planted)
    del payloads["10-fork"]
    payloads[earlier] = signature_of(planted["10-fork"])  # an index keeps no text
    assert verify_in_memory([("11-fork", earlier)], payloads) == {(earlier, "11-fork")}
    assert verify_in_memory([("00-false-positive", earlier)], payloads) == set()


def test_missing_payload_is_an_error_not_a_silent_drop():
    asked = [request for node, request in payload_requests(("a", "b")) if node == "a"]
    with pytest.raises(RuntimeError, match="no payload for 'a'"):
        list(send_payloads(("a", asked)))
    with pytest.raises(RuntimeError, match="no text of its own"):
        list(judge_held_pairs(("b", [("partner", "a", pack_text("x y z"))]), CONFIG, PERMUTATIONS))


def test_each_pair_ships_one_payload_and_a_cluster_member_holds_its_own_pairs(planted):
    """The shuffle carries one payload per pair plus one per holder (not two per pair), and in a
    large bucket the members, not the pivots, hold the pairs, so no group grows with the cluster."""
    pairs = sorted(candidate_pairs([(b"k", list(planted))], max_pairs=1))
    routed = route_payloads(pairs, payloads_for(planted))
    shipped = sum(len(values) for values in routed.values())
    assert shipped == len(pairs) + len(routed)
    pivots = sorted(planted)[:MIN_PIVOTS]
    for holder, values in routed.items():
        partners = [value for value in values if value[0] != OWN]
        assert holder not in pivots or all(partner[1] in pivots for partner in partners)
    assert max(len(values) for values in routed.values()) <= MIN_PIVOTS + 1


def test_the_new_endpoint_holds_a_pair_with_an_earlier_document():
    earlier = previous_node("00-first")
    assert holder_and_partner(("zz-new", earlier)) == ("zz-new", earlier)
    assert holder_and_partner((earlier, "aa-new")) == ("aa-new", earlier)
    assert holder_and_partner(("a", "b")) == ("b", "a")


def test_candidate_edges_verify_every_fork_pair_and_nothing_else(planted):
    """End to end in Beam, from texts: LSH finds the forks, verification keeps exactly their pairs."""
    docs = [{"id": node, "text": text} for node, text in planted.items()]
    with BeamTestPipeline(options=PipelineOptions(RUNNER)) as pipeline:
        near = pipeline | beam.Create(docs) | CandidateEdges(DedupConfig())
        assert_that(near["edges"], equal_to(list(itertools.combinations(FORKS, 2))), label="Edges")
        assert_that(near["signatures"] | beam.combiners.Count.Globally(), equal_to([len(docs)]), label="Signed")


def test_candidate_edges_without_verification_are_bucket_stars(planted):
    """Without verification each bucket is a star (n - 1 edges); here they connect the forks and nothing else."""
    docs = [{"id": node, "text": text} for node, text in planted.items()]
    with BeamTestPipeline(options=PipelineOptions(RUNNER)) as pipeline:
        edges = pipeline | beam.Create(docs) | CandidateEdges(DedupConfig(verify=False))
        labels = edges["edges"] | beam.combiners.ToList() | beam.Map(union_find_labels)
        assert_that(labels, equal_to([dict.fromkeys(FORKS, FORKS[0])]))
