"""Agent transcript files -> one Document per transcript (Beam-side reading; parsing is pure, in
``mixtures.transcripts``, and rendering is the one chat template, ``mixtures.chat``).

Design notes: docs/design/pipelines.md, "pipelines/readers/transcripts.py".
"""

from __future__ import annotations

import ast
import codecs
import contextlib
import csv
import functools
import io
import itertools
import json
import os
import re
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple

import yaml

from codemix.document import Quarantined, describe_error
from codemix.mixtures.transcript_formats.canonical import message
from codemix.mixtures.transcript_formats.casts import cast_screen
from codemix.mixtures.transcript_formats.embedded import markdown_tables
from codemix.mixtures.transcript_formats.events import holds_text
from codemix.mixtures.transcript_formats.genai_spans import is_span
from codemix.mixtures.transcript_formats.harness import FIRST_PASS_ROWS, HarnessTexts
from codemix.mixtures.transcript_formats.log_records import prefixed_records
from codemix.mixtures.transcript_formats.modules import module_value, script_values, string_values
from codemix.mixtures.transcript_formats.rewrites import latest_versions
from codemix.mixtures.transcript_formats.shape import find_conversations
from codemix.mixtures.transcript_formats.siblings import (
    MAX_PAIRED_BYTES,
    MAX_RECORD_BYTES,
    MAX_RECORDS,
    PAIRED_SUFFIXES,
    RECORD_SUFFIXES,
    id_keys,
    paired_call,
    shared_id,
    stated_request,
)
from codemix.mixtures.transcript_formats.yaml_data import YAML_START, nested_yaml
from codemix.mixtures.transcripts import (
    SESSION_FORMAT_NAMES,
    TEXT_FORMAT_NAMES,
    TranscriptShapeError,
    has_task,
    named_parties,
    observation_as_task,
    opening_step_as_context,
    parse_json_value,
    parse_session,
    parse_text,
    rows_of,
    session_format,
    statement_as_task,
    system_as_task,
    transcript_record,
    with_speakers,
)
from codemix.pipelines.readers.common import (
    JSON_ERRORS,
    ErrorBudget,
    Outcome,
    ReadTally,
    base_name,
    decode_utf8,
    drop,
    iter_bounded_lines,
    line_location,
    make_document,
    open_binary,
    parse_json,
    path_selected,
    quarantine,
    read_bounded,
    row_location,
    storable,
    strip_compression,
)
from codemix.sources import SourceConfig

JSONL_SUFFIXES = (".jsonl", ".ndjson")
EMPTY = "TranscriptShapeError: empty: the file holds no transcript (no bytes, or only whitespace)"


# Byte-order marks of the Unicode encodings an editor may save JSON in (UTF-32 before UTF-16: the
# UTF-32-LE mark begins with the UTF-16-LE one). RFC 8259 asks for UTF-8; the text is the same.
BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"), (codecs.BOM_UTF8, "utf-8-sig"))


def bom_encoding(head: bytes) -> str | None:
    """The encoding a byte-order mark at the start of ``head`` names, or None."""
    return next((encoding for bom, encoding in BOMS if head.startswith(bom)), None)


def as_utf8(data: bytes) -> bytes:
    """``data`` re-encoded as UTF-8 without its byte-order mark when it opens with one; else as is.
    A file that does not decode in the encoding its mark names is left as is (its error is quarantined)."""
    encoding = bom_encoding(data[:4])
    if encoding is None:
        return data
    try:
        return data.decode(encoding).encode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return data


class JsonRows(NamedTuple):
    """A whole file that is a JSON array of row objects, to be read one row at a time."""

    rows: list


class GluedRecords(list):
    """The records of one JSONL line that holds several written back to back (``{...}{...}``: an append cut short
    before its newline, the next record written on the same line): in a session, each is an entry of its own."""


def read_transcripts(source: SourceConfig, location: str, tally: ReadTally) -> Iterator[Outcome]:
    """One Document per transcript (see the module docstring for how files are read).

    include/exclude globs match the file name, since a transcript has no in-repo path.
    """
    name = base_name(location)
    jsonl = strip_compression(name.lower()).endswith(JSONL_SUFFIXES)
    if not path_selected(source, name):
        tally.count()
        yield drop(source, location, "path_not_included")
    elif source.format in SESSION_FORMAT_NAMES or (jsonl and source.format not in TEXT_FORMAT_NAMES):
        yield from _read_jsonl(source, location, name, tally)
    else:
        yield from _read_whole_file(source, location, name, tally)


def _read_whole_file(source: SourceConfig, location: str, name: str, tally: ReadTally) -> Iterator[Outcome]:
    with open_binary(location, source.limits.max_decompressed_bytes) as stream:
        data = read_bounded(stream, source.limits.max_file_bytes)
    if data is None:
        tally.count()
        yield drop(source, location, "file_too_large")
        return
    data = as_utf8(data)
    try:
        transcripts = EMPTY if not data.strip() else _whole_file_transcripts(data, source.format, source.speakers,
                                                                                      source.turns)
    except (TranscriptShapeError, *JSON_ERRORS) as error:
        transcripts = describe_error(error)
    if isinstance(transcripts, str) and transcripts.startswith("JSONDecodeError: Extra data") and _json_lines(data):
        yield from _read_jsonl(source, location, name, tally)  # JSON lines under another suffix (a `.json` session)
    elif isinstance(transcripts, str):
        tally.count()
        yield quarantine(source, location, transcripts)
    elif isinstance(transcripts, JsonRows):
        yield from _array_rows(source, location, name, transcripts.rows, tally)
    else:
        yield from _documents(source, location, name, transcripts, tally)


def _array_rows(source: SourceConfig, location: str, name: str, rows: list, tally: ReadTally) -> Iterator[Outcome]:
    """Each row of a JSON array of rows, as a JSONL line would be read (``location#rowN``)."""
    budget, harness = ErrorBudget(source, location), HarnessTexts()
    harness.first_pass(_rows_runs(source, rows[:FIRST_PASS_ROWS]))
    for index, row in enumerate(rows, 1):
        for outcome in _row_documents(source, row_location(location, index), name, row, tally, harness):
            yield outcome
            if budget.spend(outcome):
                yield budget.exhausted(tally, f"row {index}")
                return


def _whole_file_transcripts(data: bytes, forced: str | None,
                            speakers: dict[str, str] | None = None, turns: Any = None) -> list | JsonRows | str:
    """The transcripts of one whole file: a JSON value (or its rows), else a text format. A file that is
    neither gives its JSON error (a str) with the text formats tried, so the error type stays the parser's."""
    if forced in TEXT_FORMAT_NAMES:
        transcripts = parse_text(decode_utf8(data), forced)
        if transcripts is None:
            raise TranscriptShapeError(f"not an {forced} file (format: {forced})")
        return transcripts
    try:
        parsed = parse_json(data)
    except JSON_ERRORS as error:
        text = _utf8_or_none(data) if forced is None else None
        if text is not None and (screen := cast_screen(text)) is not None:  # a terminal recording: its screen
            return parse_text(screen) or "TranscriptShapeError: an asciicast whose screen shows no conversation"
        parsed = _json_with_comments(text) if text is not None else None
        if parsed is None and text is not None and forced is None:
            # a JSON value a JavaScript module assigns (``export const data = {...}``), or its literals' values
            parsed = assigned_json(text) or module_value(text)
        if parsed is None and text is not None and not _json_lines(data):  # JSON lines are read line by line
            parsed = concatenated_json(text)
        if parsed is None and forced is None and _json_lines(data, 3):
            return describe_error(error)  # JSON lines under a `.json` suffix: read as JSONL, never as text
        if parsed is None and text is not None and forced is None and nested_yaml(text):
            # a YAML document of nested mappings (a prompt's few-shot examples, a config) is data: its keys
            # (``Request:``, ``Response:``, ``Thought:``) are fields, never speakers' labels
            tried = "yaml (a document of nested mappings: its keys are fields, not speakers)"
            return _yaml_transcripts(text, speakers) or f"{describe_error(error)} (nor a transcript; tried {tried})"
        if parsed is None and text is not None and forced is None and (logged := _logged_transcripts(text, speakers)):
            return logged  # JSON records behind each line's logger prefix
        if parsed is None:
            transcripts = parse_text(text, late=False) if text is not None else None
            if not transcripts and text is not None and forced is None:
                transcripts = (_yaml_transcripts(text, speakers) or _toml_transcripts(text, speakers)
                               or _literal_transcripts(text, speakers)
                               or _table_transcripts(text, speakers) or _markdown_table_transcripts(text, speakers)
                               or _script_transcripts(text, speakers) or _string_transcripts(text, speakers)
                               or parse_text(text, late=True))
            tried = ", ".join(sorted(TEXT_FORMAT_NAMES))
            return transcripts or f"{describe_error(error)} (nor a text transcript; tried {tried})"
    rows = rows_of(parsed)
    return JsonRows(rows) if rows is not None else parse_json_value(parsed, forced, speakers, turns)


def _logged_transcripts(text: str, speakers: dict[str, str] | None) -> list | None:
    """The transcripts of a log whose lines end with JSON records behind a prefix (``log_records``), read as the
    list of those records; the lines that hold none are counted on each (``lines_left_out``). None when the text
    is no such log or its records hold no conversation with a request."""
    logged = prefixed_records(text)
    if logged is None:
        return None
    transcripts = _value_transcripts(logged.records, speakers)
    if not transcripts or not any(has_task(t.messages) for t in transcripts):
        return None  # records of no conversation a person asked for (a stream's chunks, a proxy's calls): as before
    for transcript in transcripts:
        transcript.extra["lines_left_out"] = logged.other_lines
    return transcripts


def _script_transcripts(text: str, speakers: dict[str, str] | None) -> list | None:
    """The transcripts a web page keeps as data in its script elements (``modules.script_values``: a JSON data
    island, a script assigning a literal), each value read as a JSON file; None when none holds one."""
    if "<script" not in text[:1_000_000].lower():
        return None
    transcripts = [t for value in script_values(text) for t in _value_transcripts(value, speakers) or []]
    return transcripts if any(t.messages for t in transcripts) else None


def _string_transcripts(text: str, speakers: dict[str, str] | None) -> list | None:
    """The transcripts a Python module keeps as JSON in its string literals (``modules.string_values``), each read
    as a JSON file; None when none holds a conversation with a request."""
    transcripts = [t for value in string_values(text) for t in _value_transcripts(value, speakers) or []]
    return transcripts if any(has_task(t.messages) for t in transcripts) else None


def _yaml_transcripts(text: str, speakers: dict[str, str] | None) -> list | None:
    """The transcripts of a YAML file (``yaml.safe_load``; dates and other tags as their text), read as the
    JSON value it is; None when the text is no YAML mapping or list, or holds no transcript."""
    if not YAML_START.match(text):
        return None
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        # aliases refused: a few hundred bytes of nested ones expand to gigabytes once read as JSON (billion laughs)
        if "&" in text and any(isinstance(event, yaml.AliasEvent) for event in yaml.parse(text, Loader=loader)):
            return None
        value = yaml.load(text, Loader=loader)
    except (yaml.YAMLError, ValueError, RecursionError):
        return None
    return _value_transcripts(value, speakers)


# A TOML document's first statement: a table header (``[session]``, ``[[messages]]``) or a bare key set to a value.
TOML_START = re.compile(r"\A(?:\s*#[^\n]*\n)*\s*(?:\[\[?[\w.\" -]+\]\]?|[\w-]+\s*=\s*\S)")


def _toml_transcripts(text: str, speakers: dict[str, str] | None) -> list | None:
    """The transcripts of a TOML file (``[[messages]]`` tables of ``role`` and ``content``, as a CLI keeps its
    conversation beside its settings), read as the JSON value it is (dates as their text); None when the text is
    no TOML or holds no transcript."""
    if not TOML_START.match(text):
        return None
    try:
        value = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
    return _value_transcripts(value, speakers)


def _value_transcripts(value: Any, speakers: dict[str, str] | None) -> list | None:
    """The transcripts of a value read from another notation, as the JSON value it is; None when it is no
    object or list, or holds no transcript."""
    if not isinstance(value, (dict, list)):
        return None
    try:
        return parse_json_value(json.loads(json.dumps(value, default=str)), None, speakers)
    except (TranscriptShapeError, ValueError, RecursionError):
        return None


def _literal_transcripts(text: str, speakers: dict[str, str] | None) -> list | None:
    """The transcripts of a Python literal (``[{'role': 'user', 'content': ...}]``: a program that printed
    its message list with ``repr``), read with ``ast.literal_eval`` (literals only, nothing runs)."""
    if not text.lstrip().startswith(("[", "{")):
        return None
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return _spoken(_value_transcripts(value, speakers))


def _table_transcripts(text: str, speakers: dict[str, str] | None) -> list | None:
    """The transcripts of a CSV or TSV table with a header row (``speaker,text``), its rows read as a JSON
    list of objects; None when the text is no such table (a header of at least two short names, every row
    as wide) or holds no transcript of prose (``_spoken``)."""
    head = text.lstrip("\ufeff").split("\n", 1)[0]
    delimiter = "\t" if "\t" in head else "," if "," in head else None
    if delimiter is None or not all(re.fullmatch(r"[\w .-]{1,40}", c.strip().strip('"')) for c in head.split(delimiter)):
        return None
    try:
        rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff")), delimiter=delimiter))
    except csv.Error:
        return None
    if len(rows) < 2 or any(None in row or None in row.values() for row in rows):
        return None
    return _spoken(_value_transcripts(rows, speakers))


def _markdown_tables(text: str) -> list[list[dict[str, str]]]:
    """Each Markdown table of the text (``embedded.markdown_tables``) whose header is of short names, as a
    list of row objects by the header's names."""
    return [table for table in markdown_tables(text) if all(re.fullmatch(r"[\w .-]{1,40}", c) for c in table[0])]


def _markdown_table_transcripts(text: str, speakers: dict[str, str] | None) -> list | None:
    """The transcripts of a Markdown file's tables of utterances (``| Speaker | Utterance |``, one table per
    conversation), each table's rows read as a JSON list of objects, as a CSV table's are; None when no
    table holds a transcript of prose."""
    transcripts = [t for table in _markdown_tables(text) for t in _value_transcripts(table, speakers) or []]
    return _spoken(transcripts) if transcripts else None


def _spoken(transcripts: list | None) -> list | None:
    """``transcripts`` when most of their messages are prose (a space in the text, or a call), else None: a
    table of numbers or codes (test vectors with ``input``/``output`` columns) is no conversation."""
    messages = [m for t in transcripts or [] for m in t.messages]
    spoken = sum(" " in m["content"].strip() or bool(m["tool_calls"]) for m in messages)
    return transcripts if messages and spoken * 2 >= len(messages) else None


def _json_with_comments(text: str) -> Any:
    """The value of JSON written with ``//`` and ``/* */`` comments (JSONC, as editors and hand-kept
    fixtures write it), or None when the text is no such JSON. Comments are cut outside strings only."""
    if "//" not in text and "/*" not in text:
        return None
    out, index, quoted = [], 0, False
    while index < len(text):
        char = text[index]
        if quoted:
            out.append(char)
            if char == "\\":
                out.append(text[index + 1:index + 2])
                index += 1
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
            out.append(char)
        elif text.startswith("//", index):
            index = text.find("\n", index)
            index = len(text) if index < 0 else index
            continue
        elif text.startswith("/*", index):
            index = text.find("*/", index + 2)
            index = len(text) if index < 0 else index + 2
            continue
        else:
            out.append(char)
        index += 1
    try:
        return parse_json("".join(out).encode("utf-8"))
    except JSON_ERRORS:
        return None


# A source file's statement that assigns a value: ``export const name =``, ``const name: Type =``, ``var``/``let``,
# ``module.exports =``, ``export default``, ``window.name =``.
ASSIGNMENT = re.compile(r"^\s*(?:(?:export\s+)?(?:const|let|var)\s+[\w$]+\s*(?::[^=\n]+)?=|module\.exports\s*=|"
                        r"export\s+default\b|(?:window|globalThis)\.[\w$]+\s*=)\s*", re.MULTILINE)


def assigned_json(text: str) -> Any:
    """The JSON value (an object or a list) a JavaScript or TypeScript module assigns in its one statement of
    data, the rest of the module nothing but semicolons and whitespace; None otherwise (a program's code, an
    object literal that is no JSON)."""
    match = ASSIGNMENT.search(text[:4096])
    if match is None or text[match.end():match.end() + 1] not in ("{", "["):
        return None
    try:
        value, end = json.JSONDecoder().raw_decode(text, match.end())
    except JSON_ERRORS:
        return None
    return value if not text[end:].strip(" \t\r\n;") else None


def _json_lines(data: bytes, lines: int = 1) -> bool:
    """Whether ``data`` opens with ``lines`` lines (or all it has, when fewer) that are each one JSON object or
    list (the rest is read as JSONL, line by line)."""
    head = [line for line in data.lstrip().split(b"\n", 3 * lines)[:3 * lines] if line.strip()][:lines]
    try:
        return bool(head) and all(isinstance(parse_json(line), (dict, list)) for line in head)
    except JSON_ERRORS:
        return False


def _utf8_or_none(data: bytes) -> str | None:
    try:
        return decode_utf8(data)
    except UnicodeDecodeError:
        return None


def _read_jsonl(source: SourceConfig, location: str, name: str, tally: ReadTally) -> Iterator[Outcome]:
    """Rows: a transcript per line. A session (decided by its first record, or by the first few when they are
    turns after a header): the lines are its entries."""
    limit, budget = source.limits.max_line_bytes, ErrorBudget(source, location)
    session, entries, size, harness, primed = None, [], 0, HarnessTexts(), False
    with _utf8_lines(source, location) as stream:
        if stream is None:
            tally.count()
            yield drop(source, location, "file_too_large")
            return
        lines = _parsed_lines(source, location, iter_bounded_lines(stream, limit, skip_blank=True), limit)
        ahead = list(itertools.islice(lines, LOOKAHEAD))  # the first lines decide how the file is read
        first = [parsed for _, _, parsed, _ in ahead if not isinstance(parsed, Quarantined)]
        if (held := wrapper_key(first)) is not None and source.format is None and source.turns is None:
            ahead, lines = [_unwrapped(row, held) for row in ahead], (_unwrapped(row, held) for row in lines)
            first = [parsed for _, _, parsed, _ in ahead if not isinstance(parsed, Quarantined)]
        if source.format is None and source.turns is None and (requests := batch_requests(location, first)):
            ahead, lines = [_paired(row, *requests) for row in ahead], (_paired(row, *requests) for row in lines)
            first = [parsed for _, _, parsed, _ in ahead if not isinstance(parsed, Quarantined)]
        following, rows = first[1:], itertools.chain(ahead, lines)
        if _lines_only_together(source, first):
            buffered = _buffered_lines(rows, source.limits.max_file_bytes)
            if buffered is None:
                tally.count()
                yield drop(source, location, "file_too_large")
                return
            transcripts = _lines_transcripts(buffered, source.speakers)
            if transcripts is not None:
                for _, _, parsed, _ in buffered:
                    if isinstance(parsed, Quarantined):
                        tally.count()
                        yield parsed
                yield from _documents(source, location, name, transcripts, tally)
                return
            rows = iter(buffered)  # no transcript together either: every line is read as a row after all
        for lineno, where, parsed, line in rows:
            if isinstance(parsed, Quarantined):
                tally.count()
                yield parsed
                if budget.spend(parsed):
                    yield budget.exhausted(tally, f"line {lineno}")
                    return
                continue
            if session is None:  # the first record (and the few after it) decide how the file is read
                # a source's turn mapping reads every line as a record of its own
                session = source.turns is None and session_format(parsed, source.format, following) or False
                if not session and source.format in SESSION_FORMAT_NAMES:
                    tally.count()
                    yield quarantine(source, location, TranscriptShapeError(
                        f"the first record is not a {source.format} session entry (format: {source.format})"))
                    return
            if session:
                entries.extend(parsed) if isinstance(parsed, GluedRecords) else entries.append(parsed)
                size += len(line)
                if size > source.limits.max_file_bytes:  # a session is one transcript: bounded like a file
                    tally.count()
                    yield drop(source, location, "file_too_large")
                    return
                continue
            if not primed:  # a file of rows: its first rows learnt before any is flagged
                primed = True
                harness.first_pass(_rows_runs(source, _first_rows(source, location, limit)))
            for outcome in _row_documents(source, where, name, parsed, tally, harness):
                yield outcome
                if budget.spend(outcome):
                    yield budget.exhausted(tally, f"line {lineno}")
                    return
    if session:
        yield from _session_documents(source, location, name, session, entries, tally)
    elif session is None and tally.records == 0:  # not one record in the file
        tally.count()
        yield quarantine(source, location, EMPTY)


# Lines read before the reader decides whether a JSONL file is one session or a dataset of rows.
LOOKAHEAD = 6


def wrapper_key(first: list) -> str | None:
    """The key under which each of a JSONL file's first records keeps the whole record it wraps, or None: every
    record holds one object under the same key, that object names its kind (``type``, ``event``...) and has more
    fields than the wrapper's own, and the wrapper's own fields are scalars of which some are empty (a lossy
    summary, ``{role: "", content: "", raw: {type: session.start, data}}``: a tool's export of another tool's
    events)."""
    if len(first) < 2 or not all(isinstance(r, dict) for r in first):
        return None
    keys = {tuple(k for k, v in r.items() if isinstance(v, dict)) for r in first}
    if len(keys) != 1 or len(key := next(iter(keys))) != 1:
        return None
    key = key[0]
    own = [{k: v for k, v in r.items() if k != key} for r in first]
    if not all(isinstance(v, (str, int, float, bool)) or v is None for o in own for v in o.values()):
        return None
    inner = [r[key] for r in first]
    named = all(any(isinstance(i.get(k), str) and i[k] for k in ("type", "event", "event_type", "kind")) for i in inner)
    richer = all(len(i) > len(o) for i, o in zip(inner, own))
    lossy = any(v in ("", None) for o in own for v in o.values())
    return key if named and richer and lossy else None


def _unwrapped(row: tuple, key: str) -> tuple:
    """A parsed line with the record it wraps in its place (a line that wraps none stays as it is)."""
    lineno, where, parsed, line = row
    return (lineno, where, parsed[key], line) if isinstance(parsed, dict) and isinstance(parsed.get(key), dict) else row


def batch_requests(location: str, first: list) -> tuple[str, dict[str, dict], bool] | None:
    """(the id key, each partner record by its id, whether this file holds the results) when a JSONL file is half
    of a batch: its first records are results that hold no request, or requests that hold no reply, and another
    JSONL file of its folder holds the other half under the same ids (``siblings.shared_id``: OpenAI's
    ``batch_output.jsonl`` beside ``batch_input.jsonl``); else None. Local files only, at most ``MAX_RECORDS``
    JSONL files beside it, each of at most ``MAX_PAIRED_BYTES``."""
    keys = id_keys(first)
    if "#" in location or "://" in location or not keys:
        return None
    results = not any(_reads(value) for value in first)
    if not results and not all(_asks_only(value) for value in first):
        return None  # (a file whose records are whole runs is no half of a call: its folder is never scanned)
    run = Path(location)
    try:
        others = sorted(p for p in run.parent.iterdir() if p.suffix in PAIRED_SUFFIXES and p != run and p.is_file())
    except OSError:
        return None
    if len(others) > MAX_RECORDS:
        return None  # a folder of many line files is a data set, not one run's
    key, partners = None, {}
    for other in others:
        head = _first_record(other)
        if not set(keys) & set(head) or (not results and _reads(head)):
            continue  # a file whose first record names none of the ids (or, for requests, is no result) is not read
        records = _line_records(other)
        found = shared_id(first, records)
        if found is not None and key in (None, found):
            key = found
            partners.update((r[key], r) for r in records if isinstance(r, dict) and isinstance(r.get(key), str))
    return (key, partners, results) if key is not None else None


def _asks_only(value: Any) -> bool:
    """Whether a record reads as a request no reply answers (a batch's request: system and user messages)."""
    try:
        messages = [m for t in parse_json_value(value) for m in t.messages]
    except TranscriptShapeError:
        return False
    return any(m["role"] == "user" for m in messages) and not any(m["role"] == "assistant" for m in messages)


def _reads(value: Any) -> bool:
    """Whether a record reads alone as a transcript (a batch's result, a reply without its request, does not)."""
    try:
        return bool(parse_json_value(value))
    except TranscriptShapeError:
        return False


def _first_record(path: Path) -> dict:
    """The first line of a JSONL file as an object, or {} (none, unreadable, not an object)."""
    try:
        with path.open("rb") as stream:
            line = stream.readline(MAX_RECORD_BYTES)
        value = json.loads(line)
    except (OSError, ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _line_records(path: Path) -> list:
    """A small JSONL file's records (its lines that parse), or [] (too large, unreadable)."""
    try:
        if path.stat().st_size > MAX_PAIRED_BYTES:
            return []
        lines = path.read_bytes().decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    records = []
    for line in filter(str.strip, lines):
        with contextlib.suppress(ValueError, RecursionError):
            records.append(json.loads(line))
    return records


def _paired(row: tuple, key: str, partners: dict[str, dict], results: bool) -> tuple:
    """A parsed line of a batch's results (or requests) as the call it is half of (``siblings.paired_call``); a
    line whose other half was not found stays as it is."""
    lineno, where, parsed, line = row
    if isinstance(parsed, dict) and isinstance(parsed.get(key), str) and (other := partners.get(parsed[key])):
        return lineno, where, paired_call(other, parsed, key) if results else paired_call(parsed, other, key), line
    return row


def _lines_only_together(source: SourceConfig, first: list) -> bool:
    """Whether a JSONL file's first records are spans of traces (each naming its trace), or are each no
    transcript alone and no session opens with them (a game's or a harness's event log: one event per line),
    so its lines are read as one sequence."""
    if source.format is not None or source.turns is not None or len(first) < 2 or session_format(first[0], None, first[1:]):
        return False
    if all(is_span(value) for value in first):
        return True  # spans of a trace, one per line (or the events logging them): a trace is one run
    # an event carries text; lines of none ("{}" repeated) are malformed records, read one by one under the budget
    if not all(isinstance(value, dict) for value in first) or 2 * sum(map(holds_text, first)) <= len(first):
        return False  # (a marker of no text among an event log's first lines, as its history-loaded step, is one)
    for value in first:
        try:
            alone = parse_json_value(value)
        except TranscriptShapeError:
            continue
        if any(len(t.messages) > 1 for t in alone):  # a conversation of its own: a row (one call is an event)
            return False
    return True


def _buffered_lines(rows: Iterator[tuple], max_bytes: int) -> list[tuple] | None:
    """Every parsed line of a file read as one sequence (``_lines_only_together``), or None past ``max_bytes``."""
    buffered, size = [], 0
    for row in rows:
        buffered.append(row)
        size += len(row[3] or b"")
        if size > max_bytes:
            return None
    return buffered


def _lines_transcripts(rows: list[tuple], speakers: dict[str, str] | None) -> list | None:
    """The transcripts of a JSONL file's lines read as one JSON array, or None when it holds none."""
    values = [parsed for _, _, parsed, _ in rows if not isinstance(parsed, Quarantined)]
    values = latest_versions(values) or values  # a log that writes a record again as it grows: its last version
    try:
        return parse_json_value(values, None, speakers)
    except TranscriptShapeError:
        return None


def _parsed_lines(source: SourceConfig, location: str, lines: Iterator, limit: int) -> Iterator[tuple]:
    """``(lineno, location, value or Quarantined, line)`` per non-blank line."""
    for lineno, line in lines:
        where = line_location(location, lineno)
        yield lineno, where, _parsed_line(source, where, line, limit), line


@contextlib.contextmanager
def _utf8_lines(source: SourceConfig, location: str) -> Iterator[IO[bytes] | None]:
    """The location's bytes for line reading: as they are, or, for a file in UTF-16/32 with a
    byte-order mark (whose newlines are not b"\\n"), transcoded whole to UTF-8 (None when over
    ``max_file_bytes``)."""
    with open_binary(location, source.limits.max_decompressed_bytes) as stream:
        wide = bom_encoding(stream.read(4)) not in (None, "utf-8-sig")
    if not wide:
        with open_binary(location, source.limits.max_decompressed_bytes) as stream:
            yield stream
        return
    with open_binary(location, source.limits.max_decompressed_bytes) as stream:
        data = read_bounded(stream, source.limits.max_file_bytes)
    yield None if data is None else io.BytesIO(as_utf8(data))


def _parsed_line(source: SourceConfig, where: str, line: bytes | None, limit: int) -> Any:
    """The line's JSON value, or its Quarantined."""
    if line is None:
        return quarantine(source, where, f"LineTooLong: over {limit} bytes (limits.max_line_bytes)")
    line = line.removeprefix(codecs.BOM_UTF8)  # a UTF-8 byte-order mark opening the file is no JSON
    try:
        return parse_json(line)
    except JSON_ERRORS as error:
        text = _utf8_or_none(line) if str(error).startswith("Extra data") else None
        values = concatenated_json(text) if text is not None else None
        return GluedRecords(values) if values is not None else quarantine(source, where, error)


def concatenated_json(text: str) -> list | None:
    """JSON values written back to back with no separator (``[...][...]``, ``{...}{...}``: a program that
    appended a dump per run), as one list: arrays' items in order, objects as items. None unless the
    whole text is at least two arrays or objects."""
    decoder, values, at = json.JSONDecoder(), [], 0
    while at < len(text):
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            break
        try:
            value, at = decoder.raw_decode(text, at)
        except JSON_ERRORS:
            return None
        if not isinstance(value, (list, dict)):
            return None
        values.append(value)
    if len(values) < 2:
        return None
    return [item for value in values for item in (value if isinstance(value, list) else [value])]


def _first_rows(source: SourceConfig, location: str, limit: int) -> list:
    """The parsed values of a JSONL file's first ``FIRST_PASS_ROWS`` lines (read again from the start)."""
    with _utf8_lines(source, location) as stream:
        if stream is None:
            return []
        lines = _parsed_lines(source, location, iter_bounded_lines(stream, limit, skip_blank=True), limit)
        return [parsed for _, _, parsed, _ in itertools.islice(lines, FIRST_PASS_ROWS)]


def _rows_runs(source: SourceConfig, rows: list) -> list[list[list[dict[str, Any]]]]:
    """Per row that reads as transcripts (as ``_row_documents`` reads it), its runs' messages, named as
    ``_documents`` names them: what a first pass learns a file's harness notices from."""
    out = []
    for parsed in rows:
        if isinstance(parsed, Quarantined):
            continue
        try:
            transcripts = parse_json_value(parsed, source.format, source.speakers, source.turns)
        except Exception:  # noqa: BLE001, S112 - the second pass gives the row its outcome (a quarantine, its error)
            continue
        out.append([with_speakers(t.messages, source.speakers) if source.speakers else named_parties(t.messages)
                    for t in transcripts])
    return out


def _row_documents(source: SourceConfig, where: str, name: str, parsed: Any, tally: ReadTally,
                   harness: HarnessTexts | None = None) -> Iterator[Outcome]:
    """One row's documents; ``harness``: what the file's rows read so far repeat (its harness's fixed turns)."""
    try:
        transcripts = parse_json_value(parsed, source.format, source.speakers, source.turns)
    except TranscriptShapeError as error:
        tally.count()
        yield quarantine(source, where, error)
        return
    yield from _documents(source, where, name, transcripts, tally, harness)


def _session_documents(source: SourceConfig, location: str, name: str, fmt: Any, entries: list,
                       tally: ReadTally) -> Iterator[Outcome]:
    try:
        transcripts = parse_session(fmt, entries)
    except TranscriptShapeError as error:
        # the lines read as one sequence of records, as a JSON array of them is (an event log whose first records
        # looked like a session's); the session's own error stands when that reads nothing either
        transcripts = _lines_transcripts([(0, "", e, b"") for e in entries], source.speakers) if (
            source.format is None and all(isinstance(e, dict) for e in entries)) else None
        if not transcripts:
            tally.count()
            yield quarantine(source, location, error)
            return
    yield from _documents(source, location, name, transcripts, tally)


def sibling_record(path: Path) -> Any:
    """A small JSON or YAML file's value, or None (too large, unreadable, not JSON/YAML)."""
    try:
        if path.stat().st_size > MAX_RECORD_BYTES:
            return None
        text = path.read_bytes().decode("utf-8")
        return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError, RecursionError):
        return None


def sibling_request(location: str) -> tuple[str, str] | None:
    """(the request, the record's file) when exactly one JSON/YAML record in a run file's folder states the
    request its run lacks and is no run itself (a folder of runs is no task record); else None. Local files
    only: a run inside an archive, a row or a remote store has no folder to look in; nor has a file among more
    than ``MAX_RECORDS`` records."""
    if "#" in location or "://" in location:
        return None
    run = Path(location)
    try:
        records = folder_records(str(run.parent))
    except OSError:
        return None
    if records is None:
        return None
    siblings = [(text, path) for path, text in records if path != str(run)]
    if len(siblings) > MAX_RECORDS:
        return None  # a folder of many records is a data set, not a run's folder
    stated = [(text, path) for text, path in siblings if text]
    return stated[0] if len(stated) == 1 else None


# How long after its last change a folder or file is trusted to stay as cached: a change within one tick of the
# file system's clock (coarse timestamps: ext4's ~4 ms, FAT's 2 s) may leave its modification time as it was, so
# what changed that recently is read again, never cached (git's "racily clean" rule).
RACY_NS = 2_000_000_000


def folder_records(folder: str) -> tuple[tuple[str, str], ...] | None:
    """Each JSON/YAML record file in ``folder`` with the request it states ("" when none, or when it is a run
    itself), or None for a folder of more records than one run's folder holds (a data set: none is parsed).
    The listing is cached per worker by the folder's modification time (a file added, removed or renamed moves
    it), each record by its file's size and modification time (a file rewritten in place moves them), neither
    while it is within ``RACY_NS`` of a change: a folder of many task-less runs is listed and its records parsed
    once, not once per run (which was quadratic in the folder's size), and never read stale."""
    listing = _folder_listing(folder, settled_mtime(os.stat(folder)))
    if listing is None:
        return None
    name = Path(folder).name
    records = []
    for path in listing:
        try:
            stat = os.stat(path)
        except OSError:
            continue  # removed since the listing
        records.append((path, _record_request(path, stat.st_size, settled_mtime(stat), name)))
    return tuple(records)


def settled_mtime(stat: os.stat_result) -> int | None:
    """The modification time to key a cache by, or None (read again, never cached) within ``RACY_NS`` of it."""
    return stat.st_mtime_ns if time.time_ns() - stat.st_mtime_ns >= RACY_NS else None


def _folder_listing(folder: str, mtime_ns: int | None) -> tuple[str, ...] | None:
    return _listing(folder) if mtime_ns is None else _cached_listing(folder, mtime_ns)


@functools.lru_cache(maxsize=256)
def _cached_listing(folder: str, mtime_ns: int) -> tuple[str, ...] | None:
    return _listing(folder)


def _listing(folder: str) -> tuple[str, ...] | None:
    """The folder's JSON/YAML record files, or None for more than one run's folder holds."""
    with os.scandir(folder) as entries:
        paths = sorted(str(Path(entry.path)) for entry in entries
                       if Path(entry.name).suffix in RECORD_SUFFIXES and entry.is_file())
    return None if len(paths) > MAX_RECORDS + 1 else tuple(paths)  # more than MAX_RECORDS beside any run in it


def _record_request(path: str, size: int, mtime_ns: int | None, folder_name: str) -> str:
    return _request(path, folder_name) if mtime_ns is None else _cached_request(path, size, mtime_ns, folder_name)


@functools.lru_cache(maxsize=4096)
def _cached_request(path: str, size: int, mtime_ns: int, folder_name: str) -> str:
    return _request(path, folder_name)


def _request(path: str, folder_name: str) -> str:
    """The request a record file states, "" when none or when it is a run itself."""
    value = sibling_record(Path(path))
    return text if (text := stated_request(value, folder_name)) and not find_conversations(value) else ""


def _documents(source: SourceConfig, location: str, name: str, transcripts: list,
               tally: ReadTally, harness: HarnessTexts | None = None) -> Iterator[Outcome]:
    """One Document per transcript; several from one record are told apart by ``#transcriptN``. The turns a
    harness wrote in the person's place are flagged first (``harness``: the file's rows read so far; else these
    transcripts, one file's runs)."""
    for transcript in transcripts:
        transcript.messages = (with_speakers(transcript.messages, source.speakers) if source.speakers  # (text formats
                               else named_parties(transcript.messages))  # name them too)
    harness = harness if harness is not None else HarnessTexts()
    harness.learn_row([t.messages for t in transcripts])
    for index, transcript in enumerate(transcripts, 1):
        tally.count()  # a transcript is the record this reader counts
        where = location if len(transcripts) == 1 else f"{location}#transcript{index}"
        if not transcript.messages:
            yield quarantine(source, where, TranscriptShapeError(
                f"no_conversation: {transcript.extra.get('path', '$')} holds no turns, steps or calls"))
            continue
        harness.flag(transcript.messages)
        if not has_task(transcript.messages) and system_as_task(transcript.messages):
            transcript.extra["task_from"] = "system"
        elif not has_task(transcript.messages) and observation_as_task(transcript.messages):
            transcript.extra["task_from"] = "observation"
        elif not has_task(transcript.messages) and statement_as_task(transcript.messages):
            transcript.extra["task_from"] = "statement"
        elif not has_task(transcript.messages) and len(transcripts) == 1 and (found := sibling_request(location)):
            transcript.messages.insert(0, message("user", found[0]))  # the person's words, from their record
            transcript.extra.update(task_from="sibling", task_file=found[1])
        elif (not has_task(transcript.messages) and source.no_request == "opening_step"
              and opening_step_as_context(transcript.messages)):
            transcript.extra.update(task_from="opening_step", task="absent")
        if not has_task(transcript.messages) and transcript.extra.get("task") != "absent":
            yield quarantine(source, where, TranscriptShapeError(
                f"no_task: no user turn sets a task before the model's first turn ({transcript.format})"))
            continue
        record = transcript_record(transcript, source.limits.max_observation_chars,
                                   source.limits.max_observations_total_chars)
        # storable: JSON can smuggle lone surrogates ("\ud800") into the text and into fields the text
        # leaves out (tool call ids, exit_status, repo); no shard or ledger can store them.
        yield storable(source, make_document(source, where, record.text, repo=record.repo, path=name,
                                             metadata=record.metadata))
