"""Where every record ends up, written as files so counts are data, not log lines.

Each stage writes its survivors as Document Parquet, its drops as Parquet (one row per dropped
record, with the reason) and its quarantine as JSON lines under ``OUT/quarantine/``. The manifest
is computed from these files after the stage, so a rerun of one stage recounts only that stage.
"""

from __future__ import annotations

import collections
import json

import apache_beam as beam
import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

from codemix.document import DOCUMENT_SCHEMA, DROPPED_SCHEMA, Document, Dropped, Quarantined

DOCS = "docs"
DROPPED = "dropped"
QUARANTINED = "quarantined"


class RouteOutcomes(beam.DoFn):
    """Runs a per-element function yielding Document | Dropped | Quarantined and splits them into
    the main output (documents) and the ``dropped``/``quarantined`` tagged outputs."""

    def __init__(self, fn):
        self._fn = fn

    def process(self, element):
        for outcome in self._fn(element):
            if isinstance(outcome, Document):
                yield outcome
            elif isinstance(outcome, Dropped):
                yield beam.pvalue.TaggedOutput(DROPPED, outcome)
            elif isinstance(outcome, Quarantined):
                yield beam.pvalue.TaggedOutput(QUARANTINED, outcome)
            else:  # a programming error, not bad input: fail the bundle loudly
                raise TypeError(f"unexpected outcome type {type(outcome).__name__}")


class WriteRows(beam.PTransform):
    """Records as Parquet files ``PREFIX-SSSSS-of-NNNNN.parquet``, each turned into a row by ``to_row``."""

    def __init__(self, prefix: str, schema, to_row):
        super().__init__()
        self._prefix = prefix
        self._schema = schema
        self._to_row = to_row

    def expand(self, records):
        return (
            records
            | "ToRows" >> beam.Map(self._to_row)
            | "WriteParquet" >> beam.io.WriteToParquet(self._prefix, self._schema, file_name_suffix=".parquet")
        )


def WriteDocuments(prefix: str) -> WriteRows:
    return WriteRows(prefix, DOCUMENT_SCHEMA, Document.to_row)


def WriteDropped(prefix: str) -> WriteRows:
    return WriteRows(prefix, DROPPED_SCHEMA, Dropped.to_row)


class WriteQuarantined(beam.PTransform):
    """Quarantine as JSON lines, one object per record: stage, source, location, error."""

    def __init__(self, prefix: str):
        super().__init__()
        self._prefix = prefix

    def expand(self, quarantined):
        return (
            quarantined
            | "ToJson" >> beam.Map(lambda q: json.dumps(q.to_row(), sort_keys=True, ensure_ascii=False))
            | "WriteJsonl" >> beam.io.WriteToText(self._prefix, file_name_suffix=".jsonl")
        )


def read_documents(pattern: str) -> beam.PTransform:
    return beam.io.ReadFromParquet(pattern) | beam.Map(Document.from_row)


def matched_files(pattern: str) -> list[str]:
    result = FileSystems.match([pattern])[0]
    return sorted(m.path for m in result.metadata_list)


def count_rows(pattern: str) -> int:
    """Row count of Parquet files from their footers, without reading data."""
    total = 0
    for path in matched_files(pattern):
        with FileSystems.open(path) as handle:
            total += pq.ParquetFile(handle).metadata.num_rows
    return total


def count_values(pattern: str, column: str) -> collections.Counter:
    """How many rows hold each value of ``column`` across Parquet files (e.g. drop reasons)."""
    counts: collections.Counter = collections.Counter()
    for path in matched_files(pattern):
        with FileSystems.open(path) as handle:
            table = pq.read_table(handle, columns=[column])
        counts.update(table.column(column).to_pylist())
    return counts


def read_jsonl(pattern: str) -> list[dict]:
    rows = []
    for path in matched_files(pattern):
        with FileSystems.open(path) as handle:
            rows += [json.loads(line) for line in handle.read().decode("utf-8").splitlines() if line.strip()]
    return rows


def remove_tree(path: str) -> None:
    """Remove a stage's previous outputs so a rerun never mixes old and new files."""
    if FileSystems.exists(path):
        FileSystems.delete([path])
