"""JSON records a log writes behind each line's prefix, read as the records they are.

A program that logs the messages it sends and receives often writes each as JSON after its logger's prefix
(``2026-03-31 16:31:22,101 INFO agent: {"role": "user", ...}``, ``[PID:9968] - [RESPONSE] ... | Payload: {...}``).
Read as text, the prefix looks like a speaker and the JSON like prose; read as records, the messages are there
as any JSONL session holds them. ``prefixed_records`` takes the object that ends each line (the prefix, a short
run of timestamp, level and logger words, left out) when most of the log's lines end with one; the other lines
(a banner, a plain note) are counted, not read. docs/transcript-formats.md ("JSON inside other containers").
"""

from __future__ import annotations

import json
from typing import NamedTuple

# A prefix longer than this is prose that quotes JSON, not a logger's stamp.
MAX_PREFIX = 200
MAX_LINES = 200_000


class LoggedRecords(NamedTuple):
    """The records a log's lines end with, in order, and how many non-blank lines held none."""

    records: list[dict]
    other_lines: int


def line_record(line: str) -> dict | None:
    """The JSON object a line ends with, behind a prefix of at most ``MAX_PREFIX`` characters (or none); None
    otherwise."""
    decoder, start = json.JSONDecoder(), line.find("{")
    while 0 <= start <= MAX_PREFIX:
        try:
            value, end = decoder.raw_decode(line, start)
        except ValueError:
            start = line.find("{", start + 1)
            continue
        return value if isinstance(value, dict) and value and not line[end:].strip() else None
    return None


def prefixed_records(text: str) -> LoggedRecords | None:
    """The records of a log whose lines end with JSON objects behind a prefix (see the module docstring): None
    unless at least two lines do and they are at least half of its non-blank lines."""
    lines = [line for line in text.splitlines()[:MAX_LINES] if line.strip()]
    records = [record for line in lines if (record := line_record(line)) is not None]
    if len(records) < 2 or 2 * len(records) < len(lines):
        return None
    return LoggedRecords(records, len(lines) - len(records))

