"""Small Beam I/O pieces shared by the dedup pipelines: edge files, count files, clean-up.

Everything goes through ``FileSystems`` and Beam IO, so paths may be local or ``gs://``. Counts
are computed inside the pipelines and written as one-line text files, so the driver learns them
by reading a few bytes rather than the data (and without relying on a runner's metrics API), except
on FnApiRunner, whose committed counters sum every bundle's exactly (``counts_in_metrics``).
"""

from __future__ import annotations

import json

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics
from apache_beam.metrics.metric import MetricsFilter

from codemix.dedup.files import EDGE_SCHEMA, edge_to_row, row_to_edge
from codemix.pipelines.ledger import WriteRows
from codemix.pipelines.options import runs_fnapi

COUNTS_NAMESPACE = "codemix.dedup.counts"


class ReadEdges(beam.PTransform):
    """Read (u, v) id pairs from edge Parquet shards."""

    def __init__(self, pattern: str):
        super().__init__()
        self.pattern = pattern

    def expand(self, pbegin):
        return pbegin | "ReadParquet" >> beam.io.ReadFromParquet(self.pattern) | "ToTuples" >> beam.Map(row_to_edge)


def WriteEdges(prefix: str) -> WriteRows:
    """Write (u, v) id pairs as Parquet shards under ``prefix``; an empty input still writes a shard."""
    return WriteRows(prefix, EDGE_SCHEMA, edge_to_row)


class WriteSum(beam.PTransform):
    """Write the sum of a PCollection of ints (0 if empty) as one line to ``path``."""

    def __init__(self, path: str):
        super().__init__()
        self.path = path

    def expand(self, pcoll):
        return (
            pcoll
            | "Sum" >> beam.CombineGlobally(sum)
            | "Format" >> beam.Map(str)
            | "Write" >> beam.io.WriteToText(self.path, shard_name_template="")
        )


class WriteCount(beam.PTransform):
    """Write the number of elements of a PCollection (0 if empty) as one line to ``path``."""

    def __init__(self, path: str):
        super().__init__()
        self.path = path

    def expand(self, pcoll):
        return pcoll | "One" >> beam.Map(lambda _: 1) | "WriteSum" >> WriteSum(self.path)


class WriteCounts(beam.PTransform):
    """Write how many elements each of several named PCollections has, as one JSON object, to ``path``.

    Apply to a dict {name: PCollection}; every name appears, with 0 for an empty PCollection. One
    file per pipeline rather than one per count: each text sink costs the runner several stages.
    Each PCollection is summed before the flatten, so its combine runs where it is made and only a
    partial sum per bundle is shuffled: FnApiRunner would hold a flatten of every element's 1.
    """

    def __init__(self, path: str):
        super().__init__()
        self.path = path

    def expand(self, named):
        names = sorted(named)
        ones = [
            named[name] | f"One[{name}]" >> beam.Map(lambda _, name=name: (name, 1)) | f"Sum[{name}]" >> beam.CombinePerKey(sum)
            for name in names
        ]
        zeros = beam.pvalue.PBegin(named[names[0]].pipeline) | "Zeros" >> beam.Create([(name, 0) for name in names])
        return (
            (*ones, zeros)
            | "All" >> beam.Flatten()
            | "SumPerName" >> beam.CombinePerKey(sum)
            | "ToDict" >> beam.combiners.ToDict()
            | "Format" >> beam.Map(lambda counts: json.dumps(counts, sort_keys=True))
            | "Write" >> beam.io.WriteToText(self.path, shard_name_template="")
        )


def counts_in_metrics(pipeline_args: list[str]) -> bool:
    """Whether a pipeline's ``{name: count}`` is taken from its counters (``CountInMetrics``) rather than
    written by ``WriteCounts``: on FnApiRunner, whose committed counters are exact. ``WriteCounts``' sums,
    flatten, dict and text sink were ~15 fused stages, a bundle processor and a bundle per worker apiece
    (bench/RESULTS.md, issue 49, round 18); a counter is a step fused into each counted PCollection's own."""
    return runs_fnapi(pipeline_args)


class _Count(beam.DoFn):
    def __init__(self, name: str):
        self._counter = Metrics.counter(COUNTS_NAMESPACE, name)

    def process(self, element):
        self._counter.inc()


class CountInMetrics(beam.PTransform):
    """Count each of several named PCollections in a counter of ``COUNTS_NAMESPACE``; after the pipeline,
    ``write_metric_counts`` writes what ``WriteCounts`` would have."""

    def expand(self, named):
        for name in sorted(named):
            _ = named[name] | f"Count[{name}]" >> beam.ParDo(_Count(name))
        return beam.pvalue.PDone(next(iter(named.values())).pipeline) if named else None


def write_metric_counts(result, names, path: str) -> None:
    """``WriteCounts``' file (one JSON object, every name, 0 for one never counted) from a finished
    pipeline's ``CountInMetrics`` counters."""
    counts = dict.fromkeys(sorted(names), 0)
    for metric in result.metrics().query(MetricsFilter().with_namespace(COUNTS_NAMESPACE))["counters"]:
        value = metric.committed if metric.committed is not None else metric.attempted
        counts[metric.key.metric.name] += int(value or 0)
    with FileSystems.create(path) as handle:
        handle.write(f"{json.dumps(counts, sort_keys=True)}\n".encode())


def read_counts(path: str) -> dict[str, int]:
    """Read the counts written by ``WriteCounts``."""
    with FileSystems.open(path) as handle:
        return json.loads(handle.read().decode())


def read_count(path: str) -> int:
    """Read a count written by ``WriteCount`` or ``WriteSum``."""
    with FileSystems.open(path) as handle:
        return int(handle.read().decode().strip())


def matching_paths(patterns: list[str]) -> list[str]:
    """Every file matching any of the globs (none for an empty list)."""
    if not patterns:
        return []
    return [meta.path for result in FileSystems.match(list(patterns)) for meta in result.metadata_list]


def delete_matching(patterns: list[str]) -> int:
    """Delete every file matching the globs (so shards from an earlier run cannot mix in); returns how many."""
    paths = matching_paths(patterns)
    if paths:
        FileSystems.delete(paths)
    return len(paths)


def require_input(pattern: str) -> None:
    """Fail with the pattern in the message when it matches no file, before any pipeline starts."""
    if not FileSystems.match([pattern])[0].metadata_list:
        raise FileNotFoundError(f"dedup input pattern matched no files: {pattern}")
