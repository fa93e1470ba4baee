"""Agent transcript files -> one Document per transcript (Beam-side reading; parsing is pure, in
``mixtures.transcripts``, and rendering is the one chat template, ``mixtures.chat``).

A ``.jsonl``/``.ndjson`` file (optionally compressed) holds one transcript per line; any other file
is one transcript. Shapes that parse but are not a known transcript are quarantined with the
reason, so a new agent format shows up in the quarantine report instead of as empty documents.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from codemix.sources import SourceConfig
from mixtures.chat import render_messages
from mixtures.transcripts import (
    MAX_JSON_DEPTH,
    TranscriptShapeError,
    declared_tools,
    nested_deeper_than,
    normalize_messages,
    split_transcript,
    system_messages,
    transcript_facts,
    transcript_format,
    transcript_repo,
)
from pipelines.readers.common import (
    JSON_ERRORS,
    Outcome,
    base_name,
    drop,
    iter_bounded_lines,
    line_location,
    make_document,
    open_binary,
    parse_json,
    path_selected,
    quarantine,
    read_bounded,
    storable,
    strip_compression,
)

JSONL_SUFFIXES = (".jsonl", ".ndjson")


def read_transcripts(source: SourceConfig, location: str) -> Iterator[Outcome]:
    """One Document per transcript: the whole file, or each line of a JSONL file.

    include/exclude globs match the file name, since a transcript has no in-repo path.
    """
    name = base_name(location)
    if not path_selected(source, name):
        yield drop(source, location, "path_not_included")
    elif strip_compression(name.lower()).endswith(JSONL_SUFFIXES):
        yield from _read_jsonl(source, location, name)
    else:
        yield _read_whole_file(source, location, name)


def _read_whole_file(source: SourceConfig, location: str, name: str) -> Outcome:
    with open_binary(location, source.limits.max_decompressed_bytes) as stream:
        data = read_bounded(stream, source.limits.max_file_bytes)
    if data is None:
        return drop(source, location, "file_too_large")
    try:
        parsed = parse_json(data)
    except JSON_ERRORS as error:
        return quarantine(source, location, error)
    return transcript_outcome(source, location, name, parsed, default_format="mini-swe-agent")


def _read_jsonl(source: SourceConfig, location: str, name: str) -> Iterator[Outcome]:
    limit = source.limits.max_line_bytes
    with open_binary(location, source.limits.max_decompressed_bytes) as stream:
        for lineno, line in iter_bounded_lines(stream, limit, skip_blank=True):
            where = line_location(location, lineno)
            if line is None:
                yield quarantine(source, where, f"LineTooLong: over {limit} bytes (limits.max_line_bytes)")
                continue
            try:
                parsed = parse_json(line)
            except JSON_ERRORS as error:
                yield quarantine(source, where, error)
                continue
            yield transcript_outcome(source, where, name, parsed, default_format="openai-jsonl")


def transcript_outcome(source: SourceConfig, where: str, name: str, parsed: Any, *, default_format: str) -> Outcome:
    """A parsed transcript -> Document, or Quarantined when its shape is not recognised."""
    try:
        if nested_deeper_than(parsed, MAX_JSON_DEPTH):
            raise TranscriptShapeError(f"nested deeper than {MAX_JSON_DEPTH} levels")
        raw_messages, info = split_transcript(parsed)
        messages, summary_turns = normalize_messages(system_messages(parsed) + raw_messages)
        text = render_messages(messages)
    except TranscriptShapeError as error:
        return quarantine(source, where, error)
    tools = declared_tools(parsed)
    metadata = {"format": transcript_format(parsed, raw_messages, default_format), "messages": messages,
                **transcript_facts(messages, info),
                **({"summary_turns": summary_turns} if summary_turns else {}), **({"tools": tools} if tools else {})}
    # storable: JSON can smuggle lone surrogates ("\ud800") into the text and into fields the text
    # leaves out (tool call ids, exit_status, repo); no shard or ledger can store them.
    return storable(source, make_document(source, where, text, repo=transcript_repo(parsed, info), path=name,
                                          metadata=metadata))
