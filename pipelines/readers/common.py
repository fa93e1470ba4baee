"""Helpers every reader shares: opening locations, outcome records, content checks, location strings.

Design notes: docs/design/pipelines.md, "pipelines/readers/common.py".
"""

from __future__ import annotations

import bz2
import contextlib
import fnmatch
import gzip
import hashlib
import io
import json
import lzma
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

import smart_open
import zstandard
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from codemix.document import Document, Dropped, Quarantined, ReadCount, describe_error, make_doc_id
from codemix.filters.notebooks import (
    COMMENT_PREFIXES,
    NotebookError,
    file_language,
    kernel_language,
    notebook_text,
    read_cells,
)
from codemix.kinds import NOTEBOOK
from codemix.pipelines.readers.encodings import decode_legacy
from codemix.pipelines.readers.language import SourceCensus, detect_language
from codemix.sources import NotebookConfig, SourceConfig

STAGE = "crawl"
BINARY_SNIFF_BYTES = 8192  # same window git uses to call a blob binary (buffer_is_binary)
READ_CHUNK_BYTES = 1 << 16

Outcome = Document | Dropped | Quarantined


@dataclass(slots=True)
class ReadTally:
    """Records a reader met at one location. Readers call ``count()`` where they enumerate a record
    (a walked file, a member, a tree entry, a non-blank line, a row; a whole-file record or the
    unread rest of a file counts as one), never where they yield its outcome."""

    records: int = 0
    # A location read in parts (``pipelines.crawl``): this reader's part and the number of parts. A
    # reader that can skip a record cheaply (git: before reading its blob) leaves the records of other
    # parts to them and counts those in ``elsewhere``; any other reader yields everything.
    part: tuple[int, int] = (0, 1)
    elsewhere: int = 0

    def count(self, n: int = 1) -> None:
        self.records += n

    def mine(self, location: str) -> bool:
        """Whether the record at ``location`` is this part's (always, when the location is read whole)."""
        return self.part[1] == 1 or location_part(location, self.part[1]) == self.part[0]


def location_part(location: str, parts: int) -> int:
    """The part (of ``parts``) a record belongs to, by a hash of its location string."""
    digest = hashlib.blake2b(location.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % parts


# reader(source, location, tally) -> outcomes; nested readers (crawl lists) may also yield ReadCounts.
Reader = Callable[[SourceConfig, str, ReadTally], Iterator[Outcome | ReadCount]]


# --- location strings -------------------------------------------------------------------------

def tree_location(repo_location: str, commit: str, path: str) -> str:
    return f"{repo_location}@{commit}:{path}"


# The first ``@<sha>:`` ends the repository: neither a path nor a URL (git@host:...) holds one before it.
_TREE_LOCATION = re.compile(r"(?P<repo>.*?)@(?P<commit>[0-9a-f]{40}(?:[0-9a-f]{24})?):(?P<path>.*)", re.DOTALL)


def split_tree_location(location: str) -> tuple[str, str, str] | None:
    """``(repository location, commit, path)`` of a ``tree_location``; None for any other location."""
    match = _TREE_LOCATION.fullmatch(location)
    return (match["repo"], match["commit"], match["path"]) if match else None


def member_location(archive: str, member: str) -> str:
    return f"{archive}!{member}"


def line_location(file: str, lineno: int) -> str:
    return f"{file}#L{lineno}"


def row_location(file: str, row: int) -> str:
    return f"{file}#row{row}"


def base_name(location: str) -> str:
    """Last path component of a local path or URL, ignoring a trailing slash."""
    return location.rstrip("/").rsplit("/", 1)[-1]


def distinct_name(location: str, locations: Iterable[str]) -> str:
    """The shortest trailing part of local path ``location`` that none of the other ``locations`` ends
    with (its last folder when that is unique), so two repositories of one source never share a name:
    ``a/repo`` and ``b/repo``, not ``repo`` twice."""
    parts = _path_parts(location)
    others = [_path_parts(other) for other in locations if _path_parts(other) != parts]
    for n in range(1, len(parts) + 1):
        if not any(other[-n:] == parts[-n:] for other in others):
            return "/".join(parts[-n:])
    return "/".join(parts)


# Folder names that say where a checkout sits, not which repository it is (``/srv/x/repo``, ``~/src``).
GENERIC_FOLDERS = frozenset({"repo", "repos", "repository", "repositories", "src", "source", "sources", "checkout",
                             "checkouts", "clone", "clones", "git", "workspace", "tmp", "temp", "mirror", "mirrors"})


def folder_repository_name(location: str, locations: Iterable[str]) -> str:
    """A local repository's name from its folders: the last folder that is not a generic one
    (``GENERIC_FOLDERS``, and ``.git``), a bare mirror's ``owner+name`` or ``owner+name.git`` read as
    ``owner/name``; when that name is another location's too, the path as far back as tells them apart."""
    def name_of(where: str) -> str:
        parts = [p.removesuffix(".git") for p in _path_parts(where) if p != ".git"]
        meaningful = [p for p in parts if p and p.lower() not in GENERIC_FOLDERS]
        if not meaningful:
            return "/".join(parts[-1:])
        owner, plus, name = meaningful[-1].partition("+")
        return f"{owner}/{name}" if plus and owner and name and "+" not in name else meaningful[-1]

    name, locations = name_of(location), list(locations)
    clashes = [other for other in locations if _path_parts(other) != _path_parts(location) and name_of(other) == name]
    return name if not clashes else distinct_name(location, locations).removesuffix(".git")


def _path_parts(location: str) -> list[str]:
    return [part for part in os.path.abspath(location).split(os.sep) if part]


# --- outcome records --------------------------------------------------------------------------

def make_document(source: SourceConfig, location: str, text: str, **fields: Any) -> Document:
    """A Document whose id and ``metadata["location"]`` both come from ``location``."""
    metadata = {**fields.pop("metadata", {}), "location": location}
    fields.setdefault("license", source.license)
    fields.setdefault("kind", source.kind)
    return Document(id=make_doc_id(source.name, location), text=text, source=source.name,
                    metadata=metadata, **fields)


def drop(source: SourceConfig, location: str, reason: str) -> Dropped:
    """A crawl drop; ``doc_id`` is the id the record would have had, so drops join with reruns."""
    return Dropped(stage=STAGE, source=source.name, location=location, reason=reason,
                   doc_id=make_doc_id(source.name, location))


def quarantine(source: SourceConfig, location: str, error: BaseException | str) -> Quarantined:
    message = error if isinstance(error, str) else describe_error(error)
    return Quarantined(stage=STAGE, source=source.name, location=location, error=message)


def storable(source: SourceConfig, document: Document) -> Outcome:
    """``document``, or a Quarantined when one of its strings cannot be encoded as UTF-8.

    JSON can carry lone surrogates (``"\\ud800"``) in any field, not only the text: a ``path``, a
    metadata key, a tool call id. Arrow and the JSON ledgers encode every string, so such a record
    would fail the write step of the whole job instead of being quarantined here.
    """
    try:
        for value in (document.text, document.repo, document.path, document.language, document.license):
            value.encode("utf-8")
        json.dumps(document.metadata, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as error:
        return quarantine(source, document.metadata["location"], error)
    return document


def guarded(reader: Reader, source: SourceConfig, location: str,
            part: tuple[int, int] = (0, 1)) -> Iterator[Outcome | ReadCount]:
    """Run ``reader`` so it never raises: a failure becomes one Quarantined for ``location``. Ends
    with the location's ``ReadCount``.

    Outcomes yielded before the failure stay; the rest of the location is covered by the
    quarantine record, so the location still accounts for everything it was asked to read. That
    rest counts as one record, unless the failure struck a record the reader had counted and not
    yet given an outcome: then the quarantine stands for that record.
    """
    tally, accounted = ReadTally(part=part), 0  # accounted: outcomes of this tally's records so far
    try:
        for outcome in reader(source, location, tally):
            # A nested location's outcomes are covered by its own ReadCount, not by this tally.
            accounted += -outcome.records if isinstance(outcome, ReadCount) else 1
            yield outcome
    except Exception as error:  # noqa: BLE001 - any failure on bad input is data, not a crash
        if tally.records <= accounted + tally.elsewhere:
            tally.count()
        yield quarantine(source, location, error)
    yield ReadCount(stage=STAGE, source=source.name, location=location, records=tally.records)


class ErrorBudget:
    """Counts a file's quarantined records; once over ``limits.max_malformed_records`` the reader stops
    and ``exhausted()`` gives the one record that quarantines the rest of the file, with the count."""

    def __init__(self, source: SourceConfig, location: str):
        self._source, self._location = source, location
        self._limit = source.limits.max_malformed_records
        self.malformed = 0

    def spend(self, outcome: Outcome) -> bool:
        """True when ``outcome`` is quarantined and puts the file over its budget."""
        self.malformed += isinstance(outcome, Quarantined)
        return self.malformed > self._limit

    def exhausted(self, tally: ReadTally, where: str) -> Quarantined:
        tally.count()  # the unread rest of the file is one record
        return quarantine(self._source, self._location,
                          f"TooManyMalformedRecords: {self.malformed} malformed records by {where}, over "
                          f"limits.max_malformed_records ({self._limit}); the rest of the file is not read")


# --- content checks ---------------------------------------------------------------------------

def path_selected(source: SourceConfig, path: str) -> bool:
    """True when ``path`` matches an include glob (or there are none) and no exclude glob."""
    if source.include and not any(fnmatch.fnmatchcase(path, glob) for glob in source.include):
        return False
    return not any(fnmatch.fnmatchcase(path, glob) for glob in source.exclude)


# Formats whose files open with a text header yet are binary: a PDF (and Illustrator's .ai, a PDF
# inside) opens with "%PDF-" and pages of XMP metadata before its compressed streams.
BINARY_MAGIC = (b"%PDF-",)


def is_binary(data: bytes) -> bool:
    return b"\x00" in data[:BINARY_SNIFF_BYTES] or data.startswith(BINARY_MAGIC)


# C0 controls that text does not use (not tab, newlines, vertical tab, form feed or ESC) and DEL.
_CONTROL_BYTES = bytes([*range(0x09), *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])
CONTROL_SHARE = 1 / 32  # compressed data runs at ~12% of them (28 of 256 values); text in any encoding at 0


def has_control_bytes(data: bytes) -> bool:
    """Whether bytes that failed UTF-8 are binary rather than text in another encoding: compressed or
    encrypted data without a NUL in its first 8 KiB (a Brotli stream has no magic number)."""
    head = data[:BINARY_SNIFF_BYTES]
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    return controls >= max(1, len(head) * CONTROL_SHARE)


def decoded_text(source: SourceConfig, location: str, data: bytes,
                 editorconfig: Callable[[], str | None] | None = None) -> tuple[str, dict[str, str]] | Dropped:
    """``(text, metadata)``: UTF-8, or a declared or confidently detected legacy encoding transcoded
    (``readers.encodings``; the metadata names the original encoding and the evidence). Bytes that
    fail all of them are dropped: ``binary`` when they look like compressed data, else ``not_utf8``."""
    try:
        return decode_utf8(data), {}
    except UnicodeDecodeError:
        pass
    if has_control_bytes(data):
        return drop(source, location, "binary")
    legacy = decode_legacy(data, editorconfig() if editorconfig is not None else None)
    return drop(source, location, "not_utf8") if legacy is None else (legacy.text, legacy.metadata())


def decode_utf8(data: bytes) -> str:
    """Strict UTF-8; the UnicodeDecodeError names the byte offset, which ends up in quarantine."""
    return data.decode("utf-8")


# What parsing one untrusted JSON record can raise: UnicodeDecodeError and JSONDecodeError (both
# ValueErrors), a plain ValueError for an integer of over 4,300 digits (Python's int/str conversion
# limit), and RecursionError for nesting deeper than the interpreter's recursion limit. Catching
# only the first two let the others quarantine the whole file, losing every line after them.
JSON_ERRORS = (ValueError, RecursionError)


def parse_json(data: bytes) -> Any:
    """Strict UTF-8, then JSON; raises one of ``JSON_ERRORS`` on bad input."""
    return json.loads(decode_utf8(data))


def parse_json_line(line: bytes) -> tuple[Any, dict[str, str]] | Exception:
    """``(value, encoding metadata)`` of one JSON line, or the error to quarantine it with. JSON is
    UTF-8 (RFC 8259), but a line written in a legacy encoding that ``readers.encodings`` detects with
    confidence is transcoded and kept, its metadata naming the encoding; what it does not explain
    stays a ``UnicodeDecodeError``, for this line alone."""
    try:
        return parse_json(line), {}
    except UnicodeDecodeError as error:
        decoded = decode_legacy(line)
        if decoded is None:
            return error
        try:
            return json.loads(decoded.text), decoded.metadata()
        except JSON_ERRORS:
            return error
    except JSON_ERRORS as error:
        return error


def text_name(name: str) -> str:
    """A file or member name with undecodable bytes as ``\\xNN``, so it can go into a location string.

    tarfile and os decode names with ``surrogateescape``; a lone surrogate in a location makes
    ``make_doc_id`` (and every ledger) fail to encode it. The git reader gets the same spelling
    from ``backslashreplace``.
    """
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def read_bounded(stream: IO[bytes], limit: int) -> bytes | None:
    """Read everything up to ``limit`` bytes; None (after reading at most limit + 1) when larger.

    The one extra byte is how a lying size header is caught without trusting it.
    """
    data = stream.read(limit + 1)
    return None if len(data) > limit else data


# Git LFS pointer files (git-lfs docs/spec.md): a ``version`` line naming the spec first, then
# ``oid sha256:`` and ``size`` lines, the whole under 1024 bytes. The file's content is elsewhere.
_LFS_VERSIONS = (b"version https://git-lfs.github.com/spec/v1\n", b"version https://hawser.github.com/spec/v1\n")
LFS_POINTER_MAX_BYTES = 1024


def is_lfs_pointer(data: bytes) -> bool:
    return (len(data) < LFS_POINTER_MAX_BYTES and data.startswith(_LFS_VERSIONS)
            and b"\noid sha256:" in data and b"\nsize " in data)


def content_outcome(source: SourceConfig, location: str, data: bytes, *, repo: str, path: str,
                    metadata: dict[str, Any] | None = None,
                    editorconfig: Callable[[], str | None] | None = None,
                    census: Callable[[], SourceCensus] | None = None) -> Outcome:
    """LFS pointer and binary checks, decoding (``decoded_text``), language detection: the common tail
    of the file readers. ``editorconfig()`` gives the charset an .editorconfig names for the file, if any
    (asked only for bytes that are not UTF-8); ``census()`` the C and C++ sources of the file's
    repository (asked only for a ``.h``, whose language they decide)."""
    if is_lfs_pointer(data):
        return drop(source, location, "lfs_pointer")
    if is_binary(data):
        return drop(source, location, "binary")
    decoded = decoded_text(source, location, data, editorconfig)
    if isinstance(decoded, Dropped):
        return decoded
    text, metadata = decoded[0], {**(metadata or {}), **decoded[1]}
    if source.reads_notebooks and path.lower().endswith(".ipynb"):
        return notebook_outcome(source, location, text, repo=repo, path=path, metadata=metadata or {})
    return make_document(source, location, text, repo=repo, path=path,
                         language=detect_language(path, text, census), metadata=metadata or {})


def iter_bounded_lines(stream: IO[bytes], max_bytes: int, *,
                       skip_blank: bool = False) -> Iterator[tuple[int, bytes | None]]:
    """Yield ``(lineno, line)`` (1-based, newline stripped); ``line`` is None when over ``max_bytes``.

    An over-long line is skipped up to its newline without ever being held, so one bad record
    costs at most ``max_bytes`` of memory. With ``skip_blank``, lines of ASCII whitespace only
    (what ``bytes.strip`` removes) within the cap are not yielded, and a run of them shorter than
    the cap is passed in one regex match: yielding each one made a gzip bomb of newlines cost a
    Python loop turn per line (128 MiB of them, from a 0.6 MB file, took over three minutes).
    """

    def wanted(line: bytes | None) -> bool:
        return line is None or not skip_blank or bool(line.strip())

    buffer, lineno, overflow = bytearray(), 1, False
    while chunk := stream.read(READ_CHUNK_BYTES):
        start = 0
        while True:
            if skip_blank and not buffer and not overflow and (run := _BLANK_LINES.match(chunk, start)) \
                    and run.end() - start <= max_bytes:  # so none of its lines can be over the cap
                lineno, start = lineno + chunk.count(b"\n", start, run.end()), run.end()
            if (newline := chunk.find(b"\n", start)) == -1:
                break
            piece = chunk[start:newline]
            overflow = overflow or len(buffer) + len(piece) > max_bytes
            line = None if overflow else bytes(buffer + piece)
            if wanted(line):
                yield lineno, line
            buffer.clear()
            lineno, overflow, start = lineno + 1, False, newline + 1
        rest = chunk[start:]
        overflow = overflow or len(buffer) + len(rest) > max_bytes
        if overflow:
            buffer.clear()
        else:
            buffer += rest  # in place: a line spanning many chunks is copied once, not per chunk
    if overflow or buffer:
        line = None if overflow else bytes(buffer)
        if wanted(line):
            yield lineno, line


# Whole lines of bytes.strip()'s whitespace at a line start, up to the last newline of the run; one
# character-class match runs at C speed (~700 MB/s of newlines, against ~50 MB/s line by line).
_BLANK_LINES = re.compile(rb"[ \t\r\n\x0b\x0c]*\n")


# --- opening locations ------------------------------------------------------------------------

class ZstdFrameReader(io.RawIOBase):
    """Decompresses a stream of zstd frames and raises EOFError when the input ends inside one.

    python-zstandard's ``stream_reader`` ends a cut frame as if it were whole, so a truncated
    .zst download would read as a shorter, valid file; gzip, bz2 and xz all raise instead. The
    input is fed in ZSTD_INPUT_BYTES pieces so one call's output stays bounded (a block holds at
    most 128 KiB and takes at least a few bytes, so a 1 KiB piece yields at most ~40 MB).
    """

    def __init__(self, raw: IO[bytes]):
        super().__init__()
        self._raw, self._frame, self._pending = raw, None, memoryview(b"")
        self._in_frame = False  # some of the current frame was fed and its end not yet seen

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self._pending:
            if not self._fill():
                return 0
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def _fill(self) -> bool:
        """Decompress the next input piece into ``_pending``; False at a clean end of input."""
        piece = self._raw.read(ZSTD_INPUT_BYTES)
        if not piece:
            if self._in_frame:
                raise EOFError("zstd input ends inside a frame: the file is truncated")
            return False
        output = []
        while piece:
            if self._frame is None:
                self._frame = zstandard.ZstdDecompressor().decompressobj()
            output.append(self._frame.decompress(piece))
            self._in_frame = True
            piece = b""
            if self._frame.eof:  # a frame ended inside this piece: the rest starts the next one
                piece, self._frame, self._in_frame = self._frame.unused_data, None, False
        self._pending = memoryview(b"".join(output))
        return True


ZSTD_INPUT_BYTES = 1024


class DecompressedTooLarge(ValueError):
    """A compressed file decompressed past ``limits.max_decompressed_bytes``."""


class BoundedReader(io.RawIOBase):
    """Reads at most ``max_bytes`` from ``stream``, then raises DecompressedTooLarge: a compression
    bomb costs bounded time, not only bounded memory."""

    def __init__(self, stream: IO[bytes], max_bytes: int):
        super().__init__()
        self._stream, self._left, self._max = stream, max_bytes, max_bytes

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._left == 0:  # at the cap: one more byte means the file is over it
            if self._stream.read(1):
                raise DecompressedTooLarge(
                    f"decompresses to more than {self._max} bytes (limits.max_decompressed_bytes)")
            return 0
        view = memoryview(buffer)[: min(len(buffer), self._left)]
        read = self._stream.readinto(view)  # straight into the caller's buffer: no copy of a big read
        self._left -= read
        return read


# smart_open 9 infers .zst through `backports.zstd`, which is not installed, so compression is
# always handled here by suffix; that also keeps .tgz and .tar.gz on one code path. Each opener's
# result is entered by open_binary's ExitStack, hence the SIM115 waiver.
_DECOMPRESSORS: dict[str, Callable[[IO[bytes]], IO[bytes]]] = {
    ".gz": lambda raw: gzip.GzipFile(fileobj=raw, mode="rb"),
    ".tgz": lambda raw: gzip.GzipFile(fileobj=raw, mode="rb"),
    ".zst": lambda raw: io.BufferedReader(ZstdFrameReader(raw), READ_CHUNK_BYTES),
    ".zstd": lambda raw: io.BufferedReader(ZstdFrameReader(raw), READ_CHUNK_BYTES),
    ".bz2": lambda raw: bz2.BZ2File(raw, mode="rb"),
    ".xz": lambda raw: lzma.LZMAFile(raw, mode="rb"),  # noqa: SIM115
}


def compression_suffix(location: str) -> str:
    """The compression suffix of ``location`` ('' when none), matched case-insensitively."""
    name = location.lower()
    return next((suffix for suffix in _DECOMPRESSORS if name.endswith(suffix)), "")


def strip_compression(name: str) -> str:
    suffix = compression_suffix(name)
    return name[: len(name) - len(suffix)] if suffix and suffix != ".tgz" else name


# Object stores are read through Beam's FileSystems, so the pipeline's own options (an S3 endpoint
# and keys, a GCP project) reach the readers on every worker; https:// and local paths via smart-open.
BEAM_SCHEMES = ("s3://", "gs://", "hdfs://", "azfs://")


def open_raw(location: str) -> IO[bytes]:
    """The location's bytes as stored (s3://, gs://, https:// or a local path), not decompressed;
    seekable either way (zip members are read by offset)."""
    if location.startswith(BEAM_SCHEMES):
        return FileSystems.open(location, compression_type=CompressionTypes.UNCOMPRESSED)
    return smart_open.open(location, "rb", compression="disable")


@contextlib.contextmanager
def open_binary(location: str, max_decompressed_bytes: int | None = None) -> Iterator[IO[bytes]]:
    """The location's bytes, decompressed as a stream when its suffix names a compression; reading
    more than ``max_decompressed_bytes`` of a compressed location raises DecompressedTooLarge."""
    with contextlib.ExitStack() as stack:
        stream = stack.enter_context(open_raw(location))
        suffix = compression_suffix(location)
        if suffix:
            stream = stack.enter_context(_DECOMPRESSORS[suffix](stream))
            if max_decompressed_bytes is not None:
                stream = stack.enter_context(
                    io.BufferedReader(BoundedReader(stream, max_decompressed_bytes), READ_CHUNK_BYTES))
        yield stream


# A file source's .ipynb files as notebook documents, when the source sets ``notebooks``: one record
# each (kind ``notebook``, or dropped as empty_notebook/unsupported_kernel, or quarantined when not nbformat 3/4).
def notebook_outcome(source: SourceConfig, location: str, text: str, *, repo: str, path: str,
                     metadata: dict[str, Any]) -> Outcome:
    """The notebook at ``location`` (its decoded ``text``) as a document, or why not."""
    config = source.notebooks if isinstance(source.notebooks, NotebookConfig) else NotebookConfig()
    try:
        notebook = json.loads(text)
        cells = read_cells(notebook, config.max_output_chars if config.layout == "cells" else 0)
        kernel = kernel_language(notebook)
    except (*JSON_ERRORS, NotebookError, TypeError, AttributeError) as error:  # a field of an unexpected type
        return quarantine(source, location, error)
    if config.layout == "script" and kernel not in COMMENT_PREFIXES:
        return drop(source, location, "unsupported_kernel")
    if not any(cell.source.strip() for cell in cells):
        return drop(source, location, "empty_notebook")
    described = {"layout": config.layout, "kernel": kernel, "cells": len(cells),
                 "code_cells": sum(cell.kind == "code" for cell in cells),
                 "outputs_kept": sum(len(cell.outputs) for cell in cells),
                 "outputs_dropped": sum(cell.dropped_outputs for cell in cells)}
    return make_document(source, location, notebook_text(cells, kernel, config), repo=repo, path=path,
                         kind=NOTEBOOK.name, language=file_language(kernel), metadata={**metadata, "notebook": described})
