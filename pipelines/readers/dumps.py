"""Pre-extracted code dumps: JSONL (plain or .gz/.zst/.bz2/.xz) and Parquet, one file per record.

Columns follow The Stack v2 where they exist, so a Stack shard needs no configuration:

    content | text (or source.text_field)  -> Document.text
    repo_name | repo                      -> repo
    path                                  -> path (include/exclude globs apply to it)
    language                              -> language, lowercased; detected from path/text if absent
    detected_licenses[0] | license        -> license; source.license if absent
    any other scalar (stars, forks, dates...) -> metadata

Records are located as ``file#L{n}`` (JSONL, 1-based like an editor) or ``file#row{n}`` (Parquet,
0-based like a dataframe). A record that cannot be parsed, or has no text, is quarantined alone; a
JSONL line in a legacy encoding is transcoded when ``readers.encodings`` is confident of it.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator
from typing import Any

import pyarrow.parquet as pq

from codemix.document import Dropped
from codemix.pipelines.readers.common import (
    ErrorBudget,
    Outcome,
    ReadTally,
    base_name,
    decoded_text,
    drop,
    is_binary,
    iter_bounded_lines,
    line_location,
    make_document,
    open_binary,
    open_raw,
    parse_json_line,
    path_selected,
    quarantine,
    row_location,
    storable,
    strip_compression,
)
from codemix.pipelines.readers.language import detect_language
from codemix.sources import SourceConfig

TEXT_FIELDS = ("content", "text")
REPO_FIELDS = ("repo_name", "repo")
LICENSE_FIELDS = ("detected_licenses", "license")
MAPPED_FIELDS = frozenset({*TEXT_FIELDS, *REPO_FIELDS, *LICENSE_FIELDS, "path", "language"})
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
PARQUET_SUFFIXES = (".parquet", ".pq")
PARQUET_BATCH_ROWS = 256  # code files run to megabytes; pyarrow's default 65,536 rows would not fit


def read_dump(source: SourceConfig, location: str, tally: ReadTally) -> Iterator[Outcome]:
    """Every record of one dump file, chosen by suffix (after any compression suffix)."""
    name = strip_compression(base_name(location).lower())
    if name.endswith(PARQUET_SUFFIXES):
        return read_parquet(source, location, tally)
    if name.endswith(JSONL_SUFFIXES):
        return read_jsonl(source, location, tally)
    raise ValueError(f"unknown dump format {name!r}: expected one of "
                     f"{', '.join(JSONL_SUFFIXES + PARQUET_SUFFIXES)} (optionally compressed)")


def read_jsonl(source: SourceConfig, location: str, tally: ReadTally) -> Iterator[Outcome]:
    """One record per non-blank line; an over-long line is skipped unread up to its newline."""
    limit, budget = source.limits.max_line_bytes, ErrorBudget(source, location)
    with open_binary(location, source.limits.max_decompressed_bytes) as stream:
        for lineno, line in iter_bounded_lines(stream, limit, skip_blank=True):
            tally.count()
            where = line_location(location, lineno)
            if line is None:
                outcome = quarantine(source, where, f"LineTooLong: over {limit} bytes (limits.max_line_bytes)")
            else:
                outcome = _json_line_outcome(source, where, line)
            yield outcome
            if budget.spend(outcome):
                yield budget.exhausted(tally, f"line {lineno}")
                return


def read_parquet(source: SourceConfig, location: str, tally: ReadTally) -> Iterator[Outcome]:
    """Rows in record batches; a file without the text column is one Quarantined for the file."""
    with open_raw(location) as raw:
        parquet = pq.ParquetFile(raw)
        field = text_field(source, parquet.schema_arrow.names)
        if field is None:
            tally.count()  # the file, unread, is one record
            yield quarantine(source, location, f"KeyError: no text column: looked for {_wanted_text(source)} "
                                               f"in {parquet.schema_arrow.names}")
            return
        row, budget = 0, ErrorBudget(source, location)
        for batch in parquet.iter_batches(batch_size=PARQUET_BATCH_ROWS):
            for record in batch.to_pylist():
                tally.count()
                outcome = record_outcome(source, row_location(location, row), record, field)
                yield outcome
                if budget.spend(outcome):
                    yield budget.exhausted(tally, f"row {row}")
                    return
                row += 1


def _json_line_outcome(source: SourceConfig, where: str, line: bytes) -> Outcome:
    parsed = parse_json_line(line)
    if isinstance(parsed, Exception):
        return quarantine(source, where, parsed)
    record, encoding = parsed
    if not isinstance(record, dict):
        return quarantine(source, where, f"TypeError: expected a JSON object, got {type(record).__name__}")
    field = text_field(source, record)
    if field is None:
        return quarantine(source, where, f"KeyError: no text field: looked for {_wanted_text(source)}")
    return record_outcome(source, where, record, field, encoding=encoding)


def text_field(source: SourceConfig, names: Iterable[str]) -> str | None:
    """``source.text_field`` if configured and present, else the first of content/text present."""
    present = set(names)
    return next((f for f in _wanted_text(source) if f in present), None)


def _wanted_text(source: SourceConfig) -> tuple[str, ...]:
    return (source.text_field,) if source.text_field else TEXT_FIELDS


def record_outcome(source: SourceConfig, where: str, record: dict[str, Any], field: str, *,
                   encoding: dict[str, str] | None = None) -> Outcome:
    """One dump record -> Document, after the same size/binary/path checks files get; ``encoding``:
    the legacy encoding its JSON line was transcoded from (``parse_json_line``)."""
    text = record.get(field)
    path = _first_string(record, ("path",))
    if isinstance(text, (str, bytes)) and not path_selected(source, path):
        return drop(source, where, "path_not_included")
    extra: dict[str, str] = dict(encoding or {})
    if isinstance(text, bytes):  # a Parquet binary column
        decoded = decoded_text(source, where, text)
        if isinstance(decoded, Dropped):
            return decoded
        text, extra = decoded
    if not isinstance(text, str):
        return quarantine(source, where, f"TypeError: text field {field!r} is {type(text).__name__}, not a string")
    try:
        encoded = text.encode("utf-8")  # JSON may carry lone surrogates ("\\ud800"), which no shard can hold
    except UnicodeEncodeError as error:
        return quarantine(source, where, error)
    if len(encoded) > source.limits.max_file_bytes:
        return drop(source, where, "file_too_large")
    if is_binary(encoded):
        return drop(source, where, "binary")
    language = _first_string(record, ("language",)).lower() or detect_language(path, text)
    # storable: the text was checked above, but path, repo, license and metadata come from JSON too.
    return storable(source, make_document(source, where, text, repo=_first_string(record, REPO_FIELDS), path=path,
                                          language=language, license=_license(record) or source.license,
                                          metadata={**_scalar_metadata(record, field), **extra}))


def _first_string(record: dict[str, Any], fields: tuple[str, ...]) -> str:
    return next((record[f] for f in fields if isinstance(record.get(f), str) and record[f]), "")


def _license(record: dict[str, Any]) -> str:
    """First SPDX id from ``detected_licenses`` (a list in The Stack v2) or ``license``."""
    for field in LICENSE_FIELDS:
        value = record.get(field)
        values = value if isinstance(value, list) else [value]
        found = next((v for v in values if isinstance(v, str) and v), "")
        if found:
            return found
    return ""


def _scalar_metadata(record: dict[str, Any], text_column: str) -> dict[str, Any]:
    """Unmapped scalar columns; dates become ISO strings so metadata stays JSON."""
    metadata: dict[str, Any] = {}
    for key, value in record.items():
        if key in MAPPED_FIELDS or key == text_column or value is None:
            continue
        if isinstance(value, (datetime.date, datetime.time)):
            value = value.isoformat()
        if isinstance(value, (str, int, float, bool)):
            metadata[key] = value
    return metadata
