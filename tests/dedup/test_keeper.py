"""Keeper rank: each criterion orders copies as documented, absent values never crash, ties go by id."""

from __future__ import annotations

import pytest

from codemix.dedup.config import KEEPER_CRITERIA
from codemix.dedup.keeper import as_epoch_seconds, is_permissive, rank_key

ORDER = list(KEEPER_CRITERIA)


def doc(doc_id: str, license: str = "", **metadata) -> dict:
    return {"id": doc_id, "license": license, "metadata": metadata}


def best_first(docs: list[dict], order: list[str] = ORDER) -> list[str]:
    return [d["id"] for d in sorted(docs, key=lambda d: rank_key(d, order))]


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        (doc("z", "MIT"), doc("a", "GPL-3.0-only", stars=10_000)),  # permissive outranks stars
        (doc("z", stars=50), doc("a", stars=3)),  # more stars first
        (doc("z", stars=0), doc("a")),  # a present count beats an absent one
        (doc("z", stars=5, forks=9), doc("a", stars=5, forks=1)),  # forks break a stars tie
        (doc("z", updated_at="2024-06-01T00:00:00Z"), doc("a", updated_at="2020-01-01")),  # newer first
        (doc("z", committed_at=1_700_000_000), doc("a", timestamp="2001-09-09T01:46:40+00:00")),  # epoch vs ISO
        (doc("z", timestamp=1_700_000_000_000), doc("a", timestamp=1_600_000_000)),  # milliseconds understood
        (doc("a"), doc("b")),  # everything absent: smaller id wins
    ],
)
def test_rank_prefers_the_better_copy(better, worse):
    assert best_first([worse, better]) == [better["id"], worse["id"]]


def test_order_is_followed_as_given():
    starred, licensed = doc("a", stars=100), doc("b", "Apache-2.0")
    assert best_first([starred, licensed], ["stars", "permissive_license"]) == ["a", "b"]
    assert best_first([starred, licensed], ["permissive_license", "stars"]) == ["b", "a"]


@pytest.mark.parametrize("value", [None, "lots", float("nan"), float("inf"), True, {"n": 1}, [3], ""])
def test_malformed_metadata_ranks_as_absent_without_crashing(value):
    odd = doc("a", stars=value, forks=value, updated_at=value)
    assert best_first([odd, doc("b", stars=1, forks=1, updated_at="2020-01-01")]) == ["b", "a"]
    assert rank_key(odd, ORDER)[1:4] == rank_key(doc("a"), ORDER)[1:4]


def test_missing_metadata_field_entirely_is_fine():
    assert rank_key({"id": "x"}, ORDER)[-1] == "x"


def test_distinct_documents_never_tie():
    """The id is the last component, so even with ``smallest_id`` left out the order is total."""
    same = [doc(i, "MIT", stars=1) for i in ("c", "a", "b")]
    assert best_first(same, ["stars"]) == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("expression", "permissive"),
    [
        ("MIT", True),
        ("apache-2.0", True),
        ("BSD-3-Clause", True),
        ("CC0-1.0", True),
        ("GPL-3.0-only", False),
        ("", False),
        ("MIT OR GPL-2.0-only", True),
        ("(MIT AND GPL-3.0-only)", False),
        ("MIT AND ISC", True),
        ("NOASSERTION", False),
    ],
)
def test_permissive_license_expressions(expression, permissive):
    assert is_permissive(expression) is permissive


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("1970-01-01T00:01:00Z", 60.0),
        ("1970-01-01T00:01:00", 60.0),
        ("1970-01-01T01:01:00+01:00", 60.0),
        (60, 60.0),
        (60_000_000_000_000, 60_000_000_000.0),
        ("yesterday", None),
        ("", None),
    ],
)
def test_epoch_seconds_from_iso_or_number(value, seconds):
    assert as_epoch_seconds(value) == seconds
