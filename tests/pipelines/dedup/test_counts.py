"""A dedup pipeline's ``{name: count}`` file: ``CountInMetrics`` (FnApiRunner's counters) writes what
``WriteCounts`` (sums and a text sink in the pipeline) writes, byte for byte, a name never counted as 0."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions

from codemix.pipelines import jobs
from codemix.pipelines.dedup.edge_files import CountInMetrics, WriteCounts, counts_in_metrics, write_metric_counts

TWO_PROCESSES = ["--runner=FnApiRunner", "--direct_num_workers=2", "--direct_running_mode=multi_processing"]


def _counted(pipeline) -> dict:
    lines = [line for path in sorted(Path(sysconfig.get_path("stdlib")).glob("json/*.py"))
             for line in path.read_text().splitlines()]
    texts = pipeline | "Lines" >> beam.Create(lines) | beam.Reshuffle()
    return {"lines": texts, "blank": texts | "Blank" >> beam.Filter(lambda line: not line.strip()),
            "none": texts | "None" >> beam.Filter(lambda line: False)}


def test_counters_write_the_counts_file_the_pipeline_steps_write(tmp_path):
    sink, counters = tmp_path / "sink.json", tmp_path / "counters.json"
    with jobs.Pipeline(options=PipelineOptions(TWO_PROCESSES)) as pipeline:
        _counted(pipeline) | WriteCounts(str(sink))
    with jobs.Pipeline(options=PipelineOptions(TWO_PROCESSES)) as pipeline:
        counted = _counted(pipeline)
        counted | CountInMetrics()
    write_metric_counts(pipeline.result, counted, str(counters))
    assert counters.read_bytes() == sink.read_bytes()
    assert b'"none": 0' in sink.read_bytes() and b'"lines": 0' not in sink.read_bytes()  # guard


def test_counters_are_used_on_fnapi_only():
    assert counts_in_metrics(TWO_PROCESSES) and counts_in_metrics([])  # FnApiRunner is the default
    assert not counts_in_metrics(["--runner=PortableRunner", "--job_endpoint=localhost:8099"])
    assert not counts_in_metrics(["--runner=DataflowRunner"])
