"""Exported GitHub issues and pull requests: one document per thread (``filters.issues``).

A location is one export file or a local folder of them (``*.json``, ``*.jsonl``, compressed or
not, read in name order). A file holds JSON values one after another: one array or object, the
pages ``gh api --paginate`` writes back to back, or JSON Lines (GH Archive). Records are recognised
by shape; a pull request's files (``gh api repos/O/R/pulls/N/files``) are recognised by the file
name (``pulls-N-files.json``, ``issues-N-comments.json``), since they do not name their thread.

Records counted: one per thread, one per object that belongs to no thread (dropped
``not_an_issue_record``), one per unreadable file (quarantined) and, in a JSON Lines file, one per
line that cannot be read (quarantined as ``file#L{n}``; the other lines are read).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from typing import Any

from codemix.filters.issues import Thread, add_record, event_records, record_kind, thread_drop_reason, thread_text
from codemix.pipelines.readers.common import (
    JSON_ERRORS,
    READ_CHUNK_BYTES,
    DecompressedTooLarge,
    Outcome,
    ReadTally,
    decode_utf8,
    drop,
    line_location,
    make_document,
    open_binary,
    parse_json_line,
    quarantine,
    row_location,
    strip_compression,
)
from codemix.sources import IssuesConfig, SourceConfig

EXPORT_SUFFIXES = (".json", ".jsonl", ".ndjson")
_NUMBERED = re.compile(r"(?:issues|pulls?)-(\d+)")  # gh api repos/O/R/issues/N/comments > issues-N-comments.json


def read_issues(source: SourceConfig, location: str, tally: ReadTally) -> Iterator[Outcome]:
    """Every thread in the export at ``location``, then nothing else: threads are complete only
    once every file is read."""
    threads: dict[tuple[str, int], Thread] = {}
    files = export_files(location)
    if not files:  # a folder with no export in it is a location to look at, not zero threads
        tally.count()
        yield quarantine(source, location, FileNotFoundError(
            f"no export file ({', '.join(EXPORT_SUFFIXES)}, optionally compressed) under this folder"))
    for path in files:
        try:
            values, bad_lines = json_values(path, source.limits.max_decompressed_bytes)
        except (*JSON_ERRORS, DecompressedTooLarge, OSError) as error:
            tally.count()
            yield quarantine(source, path, error)
            continue
        for lineno, error in bad_lines:  # one JSON Lines record each, quarantined alone
            tally.count()
            yield quarantine(source, line_location(path, lineno), error)
        yield from _file_records(source, path, values, threads, tally)
    for key in sorted(threads):
        tally.count()
        yield thread_outcome(source, location, threads[key])


def _file_records(source: SourceConfig, path: str, values: list[Any], threads: dict[tuple[str, int], Thread],
                  tally: ReadTally) -> Iterator[Outcome]:
    match = _NUMBERED.search(os.path.basename(path))
    objects = [obj for value in values for obj in (value if isinstance(value, list) else [value])]
    for index, obj in enumerate(objects):
        kind = record_kind(obj)
        inner = event_records(obj) if kind == "event" else [obj]
        placed = [add_record(threads, o, record_kind(o), int(match.group(1)) if match else None) for o in inner
                  if record_kind(o) != "other"]
        if not placed or not all(placed):
            tally.count()
            yield drop(source, row_location(path, index), "not_an_issue_record")


def thread_outcome(source: SourceConfig, location: str, thread: Thread) -> Outcome:
    config = source.issues or IssuesConfig()
    where = f"{location}#{thread.repo}/{'pull' if thread.pull else 'issues'}/{thread.number}"
    reason = thread_drop_reason(thread, config)
    if reason is not None:
        return drop(source, where, reason)
    text, described = thread_text(thread, config)
    return make_document(source, where, text, repo=thread.repo, metadata={"thread": described})


def export_files(location: str) -> list[str]:
    """The export files of a folder (recursively, in name order), or the location itself."""
    if not os.path.isdir(location):
        return [location]
    found = [os.path.join(root, name) for root, _, names in os.walk(location) for name in names
             if strip_compression(name).lower().endswith(EXPORT_SUFFIXES)]
    return sorted(found)


def json_values(path: str, max_bytes: int) -> tuple[list[Any], list[tuple[int, Exception]]]:
    """Every JSON value in the file, one after another (whitespace between them), and ``[]``. A file
    that fails so but opens with a line that is one JSON value is JSON Lines: then every line is
    parsed alone (``parse_json_line``), and the lines that fail come back as ``(line number, error)``."""
    with open_binary(path, max_bytes) as stream:
        data = b"".join(iter(lambda: stream.read(READ_CHUNK_BYTES), b""))
    if len(data) > max_bytes:
        raise DecompressedTooLarge(f"{path} is over {max_bytes} bytes (limits.max_decompressed_bytes)")
    try:
        return concatenated_values(data), []
    except JSON_ERRORS:
        if not isinstance(parse_json_line(data.lstrip().split(b"\n", 1)[0]), tuple):
            raise  # not JSON Lines: the file as a whole is what cannot be read
    return json_lines(data)


def concatenated_values(data: bytes) -> list[Any]:
    text, decoder, values, position = decode_utf8(data), json.JSONDecoder(), [], 0
    while (position := _skip_space(text, position)) < len(text):
        value, position = decoder.raw_decode(text, position)
        values.append(value)
    return values


def json_lines(data: bytes) -> tuple[list[Any], list[tuple[int, Exception]]]:
    """The values of the non-blank lines of ``data``, and ``(line number, error)`` of those that fail."""
    values, bad = [], []
    for lineno, line in enumerate(data.split(b"\n"), start=1):
        if line.strip():
            parsed = parse_json_line(line)
            if isinstance(parsed, Exception):
                bad.append((lineno, parsed))
            else:
                values.append(parsed[0])
    return values, bad


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position
