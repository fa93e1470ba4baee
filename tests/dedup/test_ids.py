"""IdSet, the side input that replaces whole-document shuffles, and the keyed join that replaces it: exact sets of ids."""

from __future__ import annotations

import pickle

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.test_pipeline import TestPipeline as BeamTestPipeline
from apache_beam.testing.util import assert_that, equal_to
from hypothesis import given
from hypothesis import strategies as st

from codemix.dedup.config import KEYED_JOIN, SIDE_INPUT
from codemix.dedup.ids import LISTED, ROW, IdSet, listed_or_not
from codemix.dedup.near import pack_text, text_payload, unpack_text
from codemix.pipelines.dedup.id_joins import DropListed, IdSetOf, KeepListed

ids = st.lists(st.text(min_size=0, max_size=40), max_size=60)


@given(members=ids, others=ids)
def test_membership_is_exactly_that_of_a_python_set(members, others):
    idset = IdSet.of(members)
    assert len(idset) == len(set(members))
    for doc_id in members + others:
        assert (doc_id in idset) == (doc_id in set(members))


@given(members=ids)
def test_pickles_as_a_side_input_does(members):
    restored = pickle.loads(pickle.dumps(IdSet.of(members)))
    assert len(restored) == len(set(members)) and all(doc_id in restored for doc_id in members)


@given(parts=st.lists(ids, max_size=5), probe=ids)
def test_combine_fn_merges_partial_sets_with_repeats(parts, probe):
    fn = IdSetOf()
    accumulators = []
    for part in parts:
        acc = fn.create_accumulator()
        for doc_id in part:
            acc = fn.add_input(acc, doc_id)
        accumulators.append(fn.compact(acc))
    merged = fn.extract_output(fn.merge_accumulators(accumulators))
    union = {doc_id for part in parts for doc_id in part}
    assert len(merged) == len(union)
    assert all((doc_id in merged) == (doc_id in union) for doc_id in probe + sorted(union))


@pytest.mark.parametrize("join", [SIDE_INPUT, KEYED_JOIN])
@pytest.mark.parametrize("transform", [KeepListed, DropListed])
def test_both_joins_filter_keyed_rows_as_a_python_set_does(join, transform):
    docs = [{"id": f"doc-{i}", "text": f"text {i}"} for i in range(50)] + [{"id": "doc-7", "text": "again"}]
    listed = ["doc-3", "doc-7", "doc-7", "absent"]
    keep = transform is KeepListed
    expected = [text_payload(doc) for doc in docs if (doc["id"] in set(listed)) == keep]
    with BeamTestPipeline(options=PipelineOptions(["--runner=FnApiRunner"])) as pipeline:
        payloads = pipeline | "Docs" >> beam.Create(docs) | "Payloads" >> beam.Map(text_payload)
        ids = pipeline | "Listed" >> beam.Create(listed)
        assert_that((payloads, ids) | transform(join), equal_to(expected))


@given(rows=st.lists(st.tuples(st.sampled_from("abcde"), st.integers()), max_size=20),
       listed=st.lists(st.sampled_from("abcdef"), max_size=10), keep_listed=st.booleans())
def test_a_keyed_join_group_keeps_its_rows_as_set_membership_says(rows, listed, keep_listed):
    groups = {}
    for doc_id, row in rows:
        groups.setdefault(doc_id, []).append((ROW, row))
    for doc_id in listed:
        groups.setdefault(doc_id, []).append((LISTED, None))
    joined = [pair for group in groups.items() for pair in listed_or_not(group, keep_listed)]
    assert sorted(joined) == sorted((doc_id, row) for doc_id, row in rows if (doc_id in set(listed)) == keep_listed)


def test_an_id_the_join_does_not_know_is_refused():
    with pytest.raises(ValueError, match="auto"):
        KeepListed("auto")


def test_text_payload_round_trips_any_text_and_is_smaller_for_code():
    code = "def f(x):\n    return x + 'é' + '\ud800'\n" * 40
    assert unpack_text(pack_text(code)) == code
    assert len(pack_text(code)) * 3 < len(code.encode("utf-8", "surrogatepass"))


def test_an_id_repeated_in_the_input_is_a_loud_error_not_a_lost_document():
    from codemix.dedup.stage import exact_duplicate_rows

    copy = ((0,), "same-id", "src", "a.py")
    with pytest.raises(ValueError, match="occurs twice"):
        exact_duplicate_rows((b"digest", [copy, copy]))
    assert [row["doc_id"] for row in exact_duplicate_rows((b"d", [copy, ((1,), "other", "src", "b.py")]))] == ["other"]
