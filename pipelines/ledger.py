"""Where every record ends up, written as files so counts are data, not log lines.

Each stage writes its survivors as Document Parquet, its drops as Parquet (one row per dropped
record, with the reason) and its quarantine as JSON lines under ``OUT/quarantine/``. The manifest
is computed from these files after the stage, so a rerun of one stage recounts only that stage.
"""

from __future__ import annotations

import collections
import json
import os
import shutil
from collections.abc import Iterator

import apache_beam as beam
import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

from codemix.document import (
    CONTAMINATION_SCHEMA,
    DOCUMENT_SCHEMA,
    DROPPED_SCHEMA,
    REDACTION_SCHEMA,
    ContaminationHit,
    Document,
    Dropped,
    Quarantined,
    ReadCount,
    Redaction,
)
from codemix.pipelines.s3_clients import share_s3_clients

# Beam's S3 filesystem would build a boto3 client per call (pipelines/s3_clients.py). Done where
# every stage's steps are defined, so the driver and the workers that run them share clients; not in
# the package's __init__, which `mix build` imports before Beam may start (pipelines.interrupts).
share_s3_clients()

DOCS = "docs"
DROPPED = "dropped"
QUARANTINED = "quarantined"
REDACTIONS = "redactions"
CONTAMINATION = "contamination"
HELD = "held"  # filter drops the long stage may put back (pipelines.filter)
READS = "reads"
# Which tagged output each kind of record goes to; documents go to the main output.
OUTPUT_TAGS = {Dropped: DROPPED, Quarantined: QUARANTINED, Redaction: REDACTIONS, ContaminationHit: CONTAMINATION,
               ReadCount: READS}


class RouteOutcomes(beam.DoFn):
    """Runs a per-element function yielding Documents and ledger records, and splits them into the
    main output (documents) and one tagged output per record type (``OUTPUT_TAGS``)."""

    def __init__(self, fn):
        self._fn = fn

    def process(self, element):
        yield from tagged(self._fn(element))


def tagged(outcomes):
    """Documents (and records already tagged) as they are, every other record wrapped for its tagged output."""
    for outcome in outcomes:
        if isinstance(outcome, Document | beam.pvalue.TaggedOutput):  # a TaggedOutput is routed already
            yield outcome
        elif type(outcome) in OUTPUT_TAGS:
            yield beam.pvalue.TaggedOutput(OUTPUT_TAGS[type(outcome)], outcome)
        else:  # a programming error, not bad input: fail the bundle loudly
            raise TypeError(f"unexpected outcome type {type(outcome).__name__}")


# A Parquet row group is what a reader of the file holds at once (as Arrow, then as Python rows).
# Beam closes one after ``record_batch_size`` rows once ``row_group_buffer_size`` bytes are buffered;
# its defaults (1,000 rows, 64 MiB) make row groups of 1,000 source files, tens of MB. 8 MiB and 100
# rows keep every stage that reads an intermediate small, whatever the corpus, and compress as well.
ROW_GROUP_BYTES = 8 << 20
ROW_BATCH = 100


def write_parquet(prefix: str, schema, file_name_suffix: str = ".parquet") -> beam.io.WriteToParquet:
    """``WriteToParquet`` with small row groups (``ROW_GROUP_BYTES``, ``ROW_BATCH``): every Parquet
    file a build writes goes through it."""
    return beam.io.WriteToParquet(prefix, schema, file_name_suffix=file_name_suffix,
                                  row_group_buffer_size=ROW_GROUP_BYTES, record_batch_size=ROW_BATCH)


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
            | "WriteParquet" >> write_parquet(self._prefix, self._schema)
        )


def WriteDocuments(prefix: str) -> WriteRows:
    return WriteRows(prefix, DOCUMENT_SCHEMA, Document.to_row)


def WriteDropped(prefix: str) -> WriteRows:
    return WriteRows(prefix, DROPPED_SCHEMA, Dropped.to_row)


def WriteRedactions(prefix: str) -> WriteRows:
    return WriteRows(prefix, REDACTION_SCHEMA, Redaction.to_row)


def WriteContamination(prefix: str) -> WriteRows:
    return WriteRows(prefix, CONTAMINATION_SCHEMA, ContaminationHit.to_row)


class WriteJsonLines(beam.PTransform):
    """Records as JSON lines, one object (``to_row()``) per record."""

    def __init__(self, prefix: str):
        super().__init__()
        self._prefix = prefix

    def expand(self, records):
        return (
            records
            | "ToJson" >> beam.Map(lambda q: json.dumps(q.to_row(), sort_keys=True, ensure_ascii=False))
            | "WriteJsonl" >> write_text(self._prefix, ".jsonl")
        )


def write_text(prefix: str, file_name_suffix: str) -> beam.io.WriteToText:
    """``WriteToText`` that writes no file at all when there are no lines: an empty shard would be an
    empty object, which S3 (and Beam's multipart uploader) cannot create. Readers of these files
    (``read_jsonl``) take no file as no records."""
    return beam.io.WriteToText(prefix, file_name_suffix=file_name_suffix, skip_if_empty=True)


def WriteQuarantined(prefix: str) -> WriteJsonLines:
    """Quarantine as JSON lines: stage, source, location, error."""
    return WriteJsonLines(prefix)


def WriteReadCounts(prefix: str) -> WriteJsonLines:
    """Each location's ``ReadCount`` as JSON lines: stage, source, location, records."""
    return WriteJsonLines(prefix)


# The byte ranges a file is read in: about a row group each (ROW_GROUP_BYTES), so the ranges of a few files spread
# evenly over the workers.
READ_RANGE_BYTES = 8 << 20


def read_documents(pattern: str) -> beam.PTransform:
    """The documents of the Parquet files ``pattern`` matches, their byte ranges spread over the workers. One
    ``ReadFromParquet`` gives FnApiRunner's workers its splits as one bundle: a single worker read every file, and
    the steps fused after the read (judging, tokenizing) ran on it alone while the other waited (bench/RESULTS.md,
    issue 49, round 15). The files are listed when the pipeline is built (the stage before has committed them)."""
    files = matched_files(pattern)
    if not files:  # ReadFromParquet's own error: no file matches
        return beam.io.ReadFromParquet(pattern) | beam.Map(Document.from_row)
    return (beam.Create(files) | beam.io.ReadAllFromParquet(desired_bundle_size=READ_RANGE_BYTES)
            | beam.Map(Document.from_row))


def matched_files(pattern: str) -> list[str]:
    result = FileSystems.match([pattern])[0]
    return sorted(m.path for m in result.metadata_list)


def file_sizes(paths: list[str]) -> list[int]:
    """Each file's size in bytes, from one listing per folder rather than a request per file."""
    folders = sorted({path.rsplit("/", 1)[0] for path in paths})
    sizes = {meta.path: meta.size_in_bytes for folder in folders
             for meta in FileSystems.match([f"{folder}/*"])[0].metadata_list}
    return [sizes[path] for path in paths]


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


def sum_values(pattern: str, key_column: str, value_column: str) -> collections.Counter:
    """Sum of ``value_column`` per value of ``key_column`` across Parquet files (e.g. redactions per type)."""
    totals: collections.Counter = collections.Counter()
    for path in matched_files(pattern):
        with FileSystems.open(path) as handle:
            table = pq.read_table(handle, columns=[key_column, value_column])
        for key, value in zip(table.column(key_column).to_pylist(), table.column(value_column).to_pylist()):
            totals[key] += value
    return totals


def read_rows(pattern: str) -> list[dict]:
    rows = []
    for path in matched_files(pattern):
        with FileSystems.open(path) as handle:
            rows += pq.read_table(handle).to_pylist()
    return rows


def read_jsonl(pattern: str) -> list[dict]:
    """Every JSON line of the matching files, as a list (``iter_jsonl`` streams them)."""
    return list(iter_jsonl(pattern))


JSONL_CHUNK_BYTES = 1 << 20


def iter_jsonl(pattern: str, chunk_bytes: int = JSONL_CHUNK_BYTES) -> Iterator[dict]:
    """Every JSON line of the matching files, one at a time, reading ``chunk_bytes`` at a time (memory
    is one chunk and one line, whatever the file's size). Lines end at "\n" only: ``str.splitlines``
    would also cut at U+2028, U+2029 and U+0085, which JSON written with ``ensure_ascii=False`` leaves
    inside strings."""
    for path in matched_files(pattern):
        with FileSystems.open(path) as handle:
            rest = b""
            while chunk := handle.read(chunk_bytes):
                *lines, rest = (rest + chunk).split(b"\n")
                yield from (json.loads(line) for line in lines if line.strip())
            if rest.strip():
                yield json.loads(rest)


def list_tree(path: str) -> list[str]:
    """Every file under ``path``, listed: on object stores a folder is only a prefix of object names,
    which exists for no ``exists()``; a file named ``path`` itself is included."""
    root = path.rstrip("/")
    files = matched_files(f"{root}/**")
    if files or ("://" not in root and not os.path.isfile(root)):  # an empty local folder holds no file
        return files
    return [root] if FileSystems.exists(root) else []


def remove_tree(path: str) -> None:
    """Remove every file under ``path`` (and, on a local disk, the emptied folders), so a rerun never
    mixes old and new files, on any filesystem."""
    files = list_tree(path)
    if files:
        FileSystems.delete(files)
    if "://" not in path and os.path.isdir(path):
        shutil.rmtree(path)


def link_or_copy(sources: list[str], targets: list[str]) -> None:
    """Each file of ``sources`` at its ``targets`` path: a hard link on a local disk (no second copy of
    the bytes), else the filesystem's copy (server-side on object stores)."""
    if not sources:
        return
    if "://" in targets[0]:
        FileSystems.copy(sources, targets)
        return
    for source, target in zip(sources, targets):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        try:
            os.link(source, target)
        except OSError:  # another filesystem, or links refused: copy the bytes
            shutil.copyfile(source, target)
