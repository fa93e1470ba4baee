"""IdSet: the side input that replaces whole-document shuffles must be an exact set of ids."""

from __future__ import annotations

import pickle

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.test_pipeline import TestPipeline as BeamTestPipeline
from apache_beam.testing.util import assert_that, equal_to
from hypothesis import given
from hypothesis import strategies as st

from dedup.ids import IdSet
from dedup.near import pack_text, text_payload, unpack_text
from pipelines.dedup.ids import IdSetOf, id_set

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


def test_side_input_filters_a_second_read_in_beam():
    docs = [{"id": f"doc-{i}", "text": f"text {i}"} for i in range(50)]
    with BeamTestPipeline(options=PipelineOptions(["--runner=FnApiRunner"])) as pipeline:
        wanted = id_set(pipeline | "Wanted" >> beam.Create(["doc-3", "doc-7", "doc-7", "absent"]), "WantedIds")
        shipped = pipeline | "Docs" >> beam.Create(docs) | beam.FlatMap(text_payload, wanted)
        assert_that(
            shipped | beam.MapTuple(lambda doc_id, payload: (doc_id, unpack_text(payload[1]))),
            equal_to([("doc-3", "text 3"), ("doc-7", "text 7")]),
        )


def test_text_payload_round_trips_any_text_and_is_smaller_for_code():
    code = "def f(x):\n    return x + 'é' + '\ud800'\n" * 40
    assert unpack_text(pack_text(code)) == code
    assert len(pack_text(code)) * 3 < len(code.encode("utf-8", "surrogatepass"))


def test_an_id_repeated_in_the_input_is_a_loud_error_not_a_lost_document():
    import pytest

    from dedup.stage import exact_duplicate_rows

    copy = ((0,), "same-id", "src", "a.py")
    with pytest.raises(ValueError, match="occurs twice"):
        exact_duplicate_rows((b"digest", [copy, copy]))
    assert [row["doc_id"] for row in exact_duplicate_rows((b"d", [copy, ((1,), "other", "src", "b.py")]))] == ["other"]
