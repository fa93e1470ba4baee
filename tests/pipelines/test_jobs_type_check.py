"""On FnApiRunner a build's pipelines skip Beam's construction-time type inference (``jobs.runs_locally``); a
remote runner's keep it, and the local pipeline's results are the same."""

from __future__ import annotations

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions, TypeOptions
from apache_beam.testing.util import assert_that, equal_to
from apache_beam.typehints import Any

from codemix.pipelines import jobs


def _keyed(pipeline):
    return (pipeline | beam.Create(["a", "bb", "a"]) | beam.Map(lambda word: (word, len(word)))
            | beam.GroupByKey() | beam.MapTuple(lambda word, sizes: f"{word}:{sum(sizes)}"))


def test_local_pipeline_infers_no_types_and_gives_the_same_results():
    options = PipelineOptions(["--runner=FnApiRunner"])
    with jobs.Pipeline(options=options) as pipeline:
        words = _keyed(pipeline)
        assert_that(words, equal_to(["a:2", "bb:2"]))
    assert options.view_as(TypeOptions).pipeline_type_check is False
    assert words.element_type in (None, Any)  # Beam's own pipeline infers str: the next test


def test_beams_pipeline_infers_types():
    pipeline = beam.Pipeline(options=PipelineOptions(["--runner=FnApiRunner"]))
    assert _keyed(pipeline).element_type is str


@pytest.mark.parametrize("runner", ["PortableRunner", "DataflowRunner", "FlinkRunner", "SparkRunner"])
def test_remote_runners_are_not_local(runner):
    assert not jobs.runs_locally(PipelineOptions([f"--runner={runner}"]))


def test_a_remote_runners_pipeline_keeps_type_inference():
    options = PipelineOptions(["--runner=PortableRunner"])
    assert _keyed(jobs.Pipeline(options=options)).element_type is str  # built, never run
    assert options.view_as(TypeOptions).pipeline_type_check is True


@pytest.mark.parametrize("runner", ["FnApiRunner", "fnapi", "fnapirunner"])
def test_fnapi_by_any_name_is_local(runner):
    assert jobs.runs_locally(PipelineOptions([f"--runner={runner}"]))


def test_fnapi_instance_is_local():
    from apache_beam.runners.portability.fn_api_runner import FnApiRunner

    assert jobs.runs_locally(PipelineOptions([]), FnApiRunner())
