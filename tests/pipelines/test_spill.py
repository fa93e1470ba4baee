"""GroupByKeyOnDisk groups exactly as GroupByKey does, and ``distinct`` and ``flatten`` do what
Distinct and Flatten do, through run files, whatever the run size."""

from __future__ import annotations

import apache_beam as beam
import pytest
import zstandard
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.test_pipeline import TestPipeline as BeamTestPipeline
from apache_beam.testing.util import assert_that, equal_to
from hypothesis import given, settings
from hypothesis import strategies as st

from codemix.pipelines import spill
from codemix.pipelines.spill import (
    GroupByKeyOnDisk,
    distinct,
    encode_key,
    flatten,
    grouping,
    merged_groups,
    read_run,
    write_run,
)

keys = st.one_of(
    st.text(max_size=6),
    st.binary(max_size=6),
    st.tuples(st.text(max_size=4), st.integers(min_value=-3, max_value=3)),
)
records = st.lists(st.tuples(keys, st.integers()), max_size=80)


@pytest.fixture(scope="module")
def monkeypatch_module():
    """A monkeypatch for hypothesis tests, whose examples share one function-scoped fixture."""
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def expected_groups(items) -> list[tuple]:
    grouped: dict = {}
    for key, value in items:
        grouped.setdefault(key, []).append(value)
    return sorted(((key, sorted(values)) for key, values in grouped.items()), key=lambda kv: encode_key(kv[0]))


@settings(max_examples=60, deadline=None)
@given(items=records, cut=st.integers(min_value=1, max_value=10))
def test_merging_runs_regroups_every_record(tmp_path_factory, items, cut):
    """Records split into runs at arbitrary points merge back into exactly the groups, keys in order."""
    import pickle

    directory = tmp_path_factory.mktemp("runs")
    paths = []
    for start in range(0, len(items), cut):
        path = str(directory / f"run-{start}.run")
        write_run(path, [(encode_key(k), pickle.dumps(v)) for k, v in items[start : start + cut]])
        paths.append(path)
    merged = [(key, sorted(values)) for key, values in merged_groups(paths)]
    assert merged == expected_groups(items)


@settings(max_examples=40, deadline=None)
@given(items=records, read_bytes=st.integers(min_value=1, max_value=64), min_values=st.integers(min_value=1, max_value=3))
def test_records_cut_across_reads_and_small_groups_left_out(tmp_path_factory, monkeypatch_module, items, read_bytes,
                                                             min_values):
    """A run read a few bytes at a time (records and their headers cut across reads) gives every record;
    with ``min_values``, exactly the groups of at least that many values come out."""
    import pickle

    monkeypatch_module.setattr(spill, "READ_BYTES", read_bytes)
    path = str(tmp_path_factory.mktemp("runs") / "run")
    write_run(path, [(encode_key(k), pickle.dumps(v)) for k, v in items])
    merged = [(key, sorted(values)) for key, values in merged_groups([path], min_values=min_values)]
    assert merged == [(key, values) for key, values in expected_groups(items) if len(values) >= min_values]


@pytest.mark.parametrize("on_disk", [True, False], ids=["run_files", "runner_shuffle"])
def test_grouping_leaves_out_keys_with_fewer_values(tmp_path, on_disk):
    items = [(f"k{i % 40}", i) for i in range(50)]  # k0..k9 twice, k10..k39 once
    expected = [(key, values) for key, values in expected_groups(items) if len(values) >= 2]
    assert len(expected) == 10, "fixture: some keys with two values, others with one"
    with BeamTestPipeline(options=PipelineOptions(["--runner=FnApiRunner"])) as pipeline:
        grouped = (
            pipeline
            | beam.Create(items)
            | grouping(str(tmp_path / "shuffle") if on_disk else None, "pairs", min_values=2)
            | beam.MapTuple(lambda key, values: (key, sorted(values)))
        )
        assert_that(grouped, equal_to(expected))


def test_str_bytes_and_tuple_keys_never_collide(tmp_path):
    import pickle

    path = str(tmp_path / "run")
    keyed = [("a", 1), (b"a", 2), (("a",), 3), (("a", 1), 4)]
    write_run(path, [(encode_key(key), pickle.dumps(value)) for key, value in keyed])
    assert sorted(merged_groups([path]), key=repr) == sorted([(key, [value]) for key, value in keyed], key=repr)
    with pytest.raises(TypeError, match="flat tuples"):
        encode_key((("nested",),))


def test_a_truncated_run_is_an_error_not_fewer_records(tmp_path):
    import pickle

    path = tmp_path / "run"
    write_run(str(path), [(encode_key(f"k{i}"), pickle.dumps("v" * 100)) for i in range(200)])
    data = path.read_bytes()
    for cut in (len(data) // 2, len(data) - 1):
        path.write_bytes(data[:cut])
        with pytest.raises((OSError, zstandard.ZstdError), match="cut short|truncated|trailer|frame"):
            list(read_run(str(path)))


@pytest.mark.parametrize("run_bytes", [1, 200, 1 << 20])
def test_in_beam_equals_group_by_key(tmp_path, run_bytes):
    items = [(f"doc-{i % 37}", (i, "x" * (i % 5))) for i in range(500)] + [(b"\x00band", (-1, ""))]
    with BeamTestPipeline(options=PipelineOptions(["--runner=FnApiRunner"])) as pipeline:
        grouped = (
            pipeline
            | beam.Create(items)
            | GroupByKeyOnDisk(str(tmp_path / "shuffle"), partitions=4, run_bytes=run_bytes)
            | beam.MapTuple(lambda key, values: (key, sorted(values)))
        )
        assert_that(grouped, equal_to(expected_groups(items)))
    assert list((tmp_path / "shuffle").glob("*.tmp-*")) == []


def test_more_runs_than_the_fan_in_merge_in_rounds(tmp_path):
    """With fan-in 3, 10 runs are merged in rounds, never more than 3 open, into the same groups."""
    import pickle

    items = [(f"k{i % 7}", i) for i in range(50)]
    paths = []
    for start in range(0, 50, 5):
        path = str(tmp_path / f"run-{start}")
        write_run(path, [(encode_key(k), pickle.dumps(v)) for k, v in items[start : start + 5]])
        paths.append(path)
    merged = [(key, sorted(values)) for key, values in merged_groups(paths, fan_in=3)]
    assert merged == expected_groups(items)
    assert len(list(tmp_path.glob("*.merged-*.run"))) == 4 + 2  # 10 -> 4 -> 2 runs


def test_distinct_through_run_files_drops_exactly_the_repeats(tmp_path):
    """Pairs repeated within and across two PCollections, as a pair found in several LSH buckets is."""
    within = [(f"a{i % 7}", f"b{i % 5}") for i in range(60)]  # 35 distinct pairs, most repeated
    across = [("a1", "b1"), ("z", "z"), ("z", "z")]
    expected = sorted(set(within) | set(across))
    assert len(expected) < len(within) + len(across) - 1, "fixture should repeat pairs within and across"
    with BeamTestPipeline(options=PipelineOptions(["--runner=FnApiRunner"])) as pipeline:
        inputs = (pipeline | "Within" >> beam.Create(within), pipeline | "Across" >> beam.Create(across))
        on_disk = inputs | "OnDisk" >> distinct(str(tmp_path / "shuffle"), "pairs")
        in_memory = inputs | "InMemory" >> distinct(None, "pairs")
        assert_that(on_disk, equal_to(expected), label="OnDiskIsDistinct")  # tuples back, not lists
        assert_that(in_memory, equal_to(expected), label="InMemoryIsDistinct")
    assert list((tmp_path / "shuffle" / "pairs").glob("p*.run")), "the on-disk distinct wrote no run"


def test_flatten_through_run_files_keeps_every_element_once(tmp_path):
    """Rows from two PCollections, two of them equal: a flatten keeps both, unlike a distinct."""
    exact = [{"doc_id": f"d{i}", "method": "exact"} for i in range(30)]
    near = [{"doc_id": f"n{i % 20}", "method": "near"} for i in range(25)]  # n0..n4 twice
    expected = exact + near
    with BeamTestPipeline(options=PipelineOptions(["--runner=FnApiRunner"])) as pipeline:
        inputs = (pipeline | "Exact" >> beam.Create(exact), pipeline | "Near" >> beam.Create(near))
        on_disk = inputs | "OnDisk" >> flatten(str(tmp_path / "shuffle"), "rows", lambda row: row["doc_id"])
        in_memory = inputs | "InMemory" >> flatten(None, "rows", lambda row: row["doc_id"])
        assert_that(on_disk, equal_to(expected), label="OnDiskIsFlatten")
        assert_that(in_memory, equal_to(expected), label="InMemoryIsFlatten")
    assert list((tmp_path / "shuffle" / "rows").glob("p*.run")), "the on-disk flatten wrote no run"


@pytest.mark.parametrize("on_disk", [True, False], ids=["run_files", "runner_shuffle"])
def test_an_element_of_many_keys_groups_as_one_value_per_key(tmp_path, on_disk):
    """(keys, value) elements from two PCollections, as a document's band keys and an earlier index's
    are: grouped exactly as the (key, value) per key would be, small groups left out."""
    documents = [([f"band{b}-{i % 9}" for b in range(4)], f"doc{i}") for i in range(30)]
    earlier = [([f"band{b}-{i}" for b in range(4)], f"old{i}") for i in range(12)]  # band*-9..11 alone
    exploded = [(key, value) for keys, value in documents + earlier for key in keys]
    expected = [(key, values) for key, values in expected_groups(exploded) if len(values) >= 2]
    assert len(expected) < len(expected_groups(exploded)), "fixture: some keys hold one value only"
    with BeamTestPipeline(options=PipelineOptions(["--runner=FnApiRunner"])) as pipeline:
        inputs = (pipeline | "Documents" >> beam.Create(documents), pipeline | "Earlier" >> beam.Create(earlier))
        grouped = (
            inputs
            | grouping(str(tmp_path / "shuffle") if on_disk else None, "buckets", min_values=2, many_keys=True)
            | beam.MapTuple(lambda key, values: (key, sorted(values)))
        )
        assert_that(grouped, equal_to(expected))
