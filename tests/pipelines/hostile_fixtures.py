"""Hostile inputs for the crawl readers: hypothesis strategies, byte-level builders and the checks
every outcome must pass.

The builders write archives by hand where the standard library would refuse to lie: a tar header
whose size disagrees with its data, a zip whose central directory understates a member, a gzip
stream that expands to gigabytes from a few megabytes. ``ABS`` in a generated member name stands
for the test's sandbox, so an absolute name that escaped would land where the snapshot sees it.
"""

from __future__ import annotations

import io
import json
import multiprocessing
import pickle
import resource
import stat
import struct
import subprocess
import sys
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Self

import pyarrow as pa
from hypothesis import strategies as st

from codemix.document import DOCUMENT_SCHEMA, DROPPED_SCHEMA, Document, Dropped, Quarantined
from codemix.pipelines.readers import read_location
from codemix.pipelines.readers.common import iter_bounded_lines
from codemix.sources import ReadLimits, SourceConfig

Outcome = Document | Dropped | Quarantined
ABS = "@ABS@"  # replaced by the sandbox's absolute path when an archive is written


# --- checks every outcome must pass ----------------------------------------------------------

def assert_storable(outcome: object) -> None:
    """The outcome is one of the three types and survives what the build does with it next:
    Beam's pickling coder, the Arrow ledgers (Documents, drops) and the JSON quarantine ledger."""
    assert isinstance(outcome, (Document, Dropped, Quarantined)), f"not an outcome: {outcome!r}"
    pickle.dumps(outcome)
    row = outcome.to_row()
    if isinstance(outcome, Quarantined):
        json.dumps(row, ensure_ascii=False).encode("utf-8")
    else:
        pa.Table.from_pylist([row], schema=DOCUMENT_SCHEMA if isinstance(outcome, Document) else DROPPED_SCHEMA)


def location_of(outcome: Outcome) -> str:
    return outcome.metadata["location"] if isinstance(outcome, Document) else outcome.location


def snapshot(root: Path) -> dict[str, int]:
    """Every path under ``root`` with its size, to prove a reader wrote nothing."""
    return {str(p.relative_to(root)): p.lstat().st_size for p in root.rglob("*")}


# --- JSON lines ------------------------------------------------------------------------------

# Strings a hostile record might carry: lone surrogates (as JSON escapes once dumped), NUL,
# control characters, a pytest/unittest summary followed by many blank lines (regex stress).
WEIRD_STRINGS = ["", " ", "\ud800", "\udfff", "a\udcffb", "\x00", "\u2028", "é", "\r", "\\",
                 "Ran 1 test in 0.1s" + "\n" * 3000 + "X", "\n" * 3000 + "1 passed x",
                 "Ran 2 tests in 0.01s\n\nOK", "=== 1 failed, 2 passed in 0.1s ===",
                 "[" * 2000, '{"a":' * 150 + "1" + "}" * 150, "#!" + "1" * 3000 + "x"]
KEYS = ["content", "text", "path", "repo", "repo_name", "language", "license", "detected_licenses",
        "role", "type", "messages", "history", "info", "tool_calls", "function", "name", "arguments",
        "id", "input", "tool_use_id", "system", "tools", "\ud800", "stars"]

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12), st.sampled_from(WEIRD_STRINGS))
junk = st.recursive(
    scalars, lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4),
                                                                      kids, max_size=3),
    max_leaves=8)


def json_text(value: object) -> str:
    """``value`` as JSON: ``ensure_ascii`` turns a lone surrogate into a ``\\ud800`` escape, as in the wild."""
    return json.dumps(value, ensure_ascii=True, allow_nan=True)


# Raw lines no JSON library would write: truncations, huge numbers, deep nesting, bad UTF-8.
RAW_JSON_LINES = [
    b'{"content": "unterminated', b'{"content": "x", "n": ' + b"9" * 5000 + b"}", b'{"content": 1e999999}',
    b'{"content": "x", "n": -' + b"1" * 4301 + b"}", b'{"content": "\\ud800"}', b'{"\\udfff": 1, "content": "x"}',
    b'{"content": "x", "path": "\\udcff"}', b"[1, 2]", b"3", b'"s"', b"null", b"true", b"NaN", b"[" * 100_000,
    b'{"a":' * 5000, b'{"content": "caf\xe9"}', b"\xff\xfe{}", b"{}", b'{"content": "ok"}', b"\x00\x00",
    b'{"content": "a", "content": 7}', b'{"content": "' + b"\\" * 9 + b'"}',
]

dump_records = st.fixed_dictionaries(
    {"content": st.one_of(st.text(max_size=40), st.sampled_from(WEIRD_STRINGS), junk)},
    optional={key: st.one_of(st.text(max_size=10), st.sampled_from(WEIRD_STRINGS), junk)
              for key in ("path", "repo_name", "language", "detected_licenses", "license", "stars", "\ud800")})


def json_line(records: st.SearchStrategy) -> st.SearchStrategy[bytes]:
    """One line's bytes: a record as JSON, a cut-off record, a known-nasty line or random bytes."""
    dumped = records.map(lambda r: json_text(r).encode())
    return st.one_of(
        dumped, dumped.flatmap(lambda b: st.integers(0, len(b)).map(lambda n: b[:n])),
        st.sampled_from(RAW_JSON_LINES), st.binary(max_size=40), st.just(b""), st.just(b"  \t\r"),
    ).map(lambda line: line.replace(b"\n", b" "))


def join_lines(lines: list[bytes], terminator: bytes, final_newline: bool) -> bytes:
    return terminator.join(lines) + (terminator if final_newline and lines else b"")


def expected_line_numbers(lines: list[bytes], terminator: bytes, max_line_bytes: int) -> list[int]:
    """Line numbers that must each give one outcome: non-blank, or too long to know."""
    full = [line + terminator[:-1] for line in lines]  # "\r" of "\r\n" stays part of the line
    return [n for n, line in enumerate(full, 1) if line.strip() or len(line) > max_line_bytes]


# --- transcripts -----------------------------------------------------------------------------

def mostly(good: st.SearchStrategy, bad: st.SearchStrategy = junk) -> st.SearchStrategy:
    """``good`` three times in four: a transcript has many fields, and one bad one anywhere makes
    it unrecognisable, so uniformly bad fields would leave almost nothing reaching a Document."""
    return st.sampled_from([good, good, good, bad]).flatmap(lambda strategy: strategy)


ROLES = mostly(st.sampled_from(["system", "user", "assistant", "tool"]), st.sampled_from(["", "\ud800"]) | junk)
BLOCK_TYPES = mostly(st.sampled_from(["text", "input_text", "tool_use", "tool_result", "image", "thinking"]))
arguments = st.one_of(junk, junk.map(json_text), st.sampled_from(WEIRD_STRINGS), st.text(max_size=10))
ids = mostly(st.sampled_from(["c1", "c2", "\ud800"]))
blocks = st.fixed_dictionaries(
    {"type": BLOCK_TYPES},
    optional={"text": mostly(st.text(max_size=10)), "id": ids, "name": mostly(st.sampled_from(["bash", "submit"])),
              "input": arguments, "tool_use_id": ids,
              "content": mostly(st.text(max_size=10) | st.lists(st.text(max_size=5) | junk, max_size=2))})
contents = mostly(st.one_of(st.text(max_size=20), st.sampled_from(WEIRD_STRINGS), st.none(),
                            st.lists(blocks | st.text(max_size=5), max_size=3)))
tool_calls = mostly(st.one_of(
    st.fixed_dictionaries({"id": ids, "function": st.fixed_dictionaries(
        {"name": mostly(st.sampled_from(["bash", "submit", ""])), "arguments": arguments})}),
    st.fixed_dictionaries({"name": mostly(st.sampled_from(["bash", "submit"])), "arguments": arguments})))
messages = st.fixed_dictionaries(
    {"role": ROLES},
    optional={"content": contents, "tool_calls": mostly(st.lists(tool_calls, max_size=2)), "tool_call_id": ids,
              "tool_call_ids": mostly(st.lists(ids, max_size=2)), "name": mostly(st.text(max_size=5)),
              "is_summary": junk, "isCompactSummary": st.booleans(), "message_type": mostly(st.just("summary"))})
message_lists = mostly(st.lists(mostly(messages), min_size=1, max_size=4))
infos = st.fixed_dictionaries({}, optional={
    "exit_status": mostly(st.sampled_from(["submitted", "Submitted", "\ud800"])), "submission": junk,
    "tests_passed": junk, "resolved": junk, "repo_name": mostly(st.sampled_from(["octo/demo", "\udfff"]))})
transcripts = st.one_of(
    message_lists,
    st.fixed_dictionaries({"messages": message_lists},
                          optional={"system": contents, "tools": mostly(st.lists(junk, max_size=2)), "info": infos,
                                    "environment": junk}),
    st.fixed_dictionaries({"history": message_lists}, optional={"info": infos, "trajectory": junk}),
    junk)


# --- tar -------------------------------------------------------------------------------------

# Name pieces covering tar-slip spellings, separators, NUL, non-UTF-8 bytes (as tarfile decodes
# them: surrogateescape) and names long enough to need PAX or GNU long-name headers.
NAME_PARTS = ["pkg", "src", "a.py", "README.md", "..", ".", "", "x y", "a\\b", "..\\..\\w", "C:", "é",
              "\udcff\udcfe", "n\x00ul", "\t", "dir", "-rf", "~", "$HOME", "a" * 120]
names = st.one_of(
    st.tuples(st.sampled_from(["", "/", "./", f"{ABS}/", "../", "../../"]),
              st.lists(st.sampled_from(NAME_PARTS), min_size=1, max_size=4)).map(lambda t: t[0] + "/".join(t[1])),
    st.integers(1, 400).map(lambda n: "deep/" * n + "f.txt"),
    st.text(max_size=20))

TAR_TYPES = [tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.CONTTYPE, tarfile.DIRTYPE, tarfile.SYMTYPE,
             tarfile.LNKTYPE, tarfile.FIFOTYPE, tarfile.CHRTYPE, tarfile.BLKTYPE, b"Z"]
DATA_TYPES = (tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.CONTTYPE, b"Z")  # a data area follows the header


@dataclass(frozen=True, slots=True)
class TarEntry:
    name: str
    type: bytes
    data: bytes  # written after the header for DATA_TYPES
    declared: int  # the header's size field; differs from len(data) when the header lies
    linkname: str = ""

    @property
    def lies(self) -> bool:
        return self.type in DATA_TYPES and self.declared != len(self.data)


contents_bytes = st.one_of(st.binary(max_size=80), st.integers(0, 3000).map(bytes),
                           st.sampled_from([b"caf\xe9", b"ok\n", b"#!/usr/bin/env python3\nprint(1)\n"]))


@st.composite
def tar_entries(draw: st.DrawFn, *, honest: bool) -> TarEntry:
    # An AREGTYPE ("\0", the V7 regular file) whose ustar name field ends in "/" is a directory to
    # tarfile, which then parses its data as the next header: a corrupt archive, not an honest one.
    kind = draw(st.sampled_from([t for t in TAR_TYPES if not honest or t != tarfile.AREGTYPE]))
    data = draw(contents_bytes) if kind in DATA_TYPES else b""
    declared = len(data) if honest or kind in DATA_TYPES and draw(st.booleans()) else draw(st.integers(0, 5000))
    return TarEntry(draw(names), kind, data, declared, draw(st.sampled_from(["", "../../etc/passwd", f"{ABS}/x"])))


def tar_bytes(entries: list[TarEntry], fmt: int, sandbox: Path) -> tuple[bytes, list[int]]:
    """An uncompressed tar of ``entries`` written block by block, and each entry's first header offset.

    ``TarFile.addfile`` reads exactly ``size`` bytes of data, so it cannot write a lying header.
    """
    out, offsets = bytearray(), []
    for entry in entries:
        info = tarfile.TarInfo(entry.name.replace(ABS, str(sandbox)))
        info.type, info.size, info.mode, info.mtime = entry.type, entry.declared, 0o644, 0
        info.linkname = entry.linkname.replace(ABS, str(sandbox))
        offsets.append(len(out))
        out += info.tobuf(fmt, "utf-8", "surrogateescape")
        if entry.type in DATA_TYPES:
            out += entry.data + bytes(-len(entry.data) % tarfile.BLOCKSIZE)
    out += bytes(2 * tarfile.BLOCKSIZE)
    return bytes(out), offsets


def tar_infos(raw: bytes) -> list[tarfile.TarInfo]:
    """The members of an uncompressed tar as tarfile's own random-access reader lists them."""
    with tarfile.open(fileobj=io.BytesIO(raw)) as archive:
        return archive.getmembers()


# --- zip -------------------------------------------------------------------------------------

ZIP_MODES = [0, stat.S_IFREG | 0o644, stat.S_IFDIR | 0o755, stat.S_IFLNK | 0o777, stat.S_IFIFO | 0o644,
             stat.S_IFCHR | 0o644, stat.S_IFBLK | 0o644, stat.S_IFSOCK | 0o644]
ZIP_METHODS = [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA]


@dataclass(frozen=True, slots=True)
class ZipEntry:
    name: str
    mode: int
    data: bytes
    method: int
    declared: int | None  # patched into the central directory when not None
    encrypted: bool = False


# Weighted toward honest regular members, so most examples reach the content checks rather than
# stopping at the first lie; a 4 GiB claim trips the default whole-archive byte cap.
zip_entries = st.builds(
    ZipEntry, name=names.filter(lambda n: not any(0xD800 <= ord(c) <= 0xDFFF for c in n)),
    mode=st.sampled_from([0, stat.S_IFREG | 0o644] * 3 + ZIP_MODES), data=contents_bytes,
    method=st.sampled_from(ZIP_METHODS),
    declared=st.sampled_from([None] * 6 + [0, 10, 63, 64, 65, 5000, 2**32 - 2]),
    encrypted=st.sampled_from([False] * 5 + [True]))


def write_zip(path: Path, entries: list[ZipEntry], sandbox: Path) -> None:
    """Members as zipfile writes them, then central-directory lies: declared sizes and the
    encryption flag, which is what ``ZipFile`` trusts when it opens a member."""
    with zipfile.ZipFile(path, "w") as archive:
        for entry in entries:
            info = zipfile.ZipInfo(entry.name.replace(ABS, str(sandbox)), date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type, info.external_attr = entry.method, entry.mode << 16
            archive.writestr(info, entry.data)
    data = bytearray(path.read_bytes())
    for entry, start in zip(entries, central_directory_offsets(bytes(data)), strict=True):
        if entry.declared is not None:
            data[start + 24:start + 28] = entry.declared.to_bytes(4, "little")
        if entry.encrypted:
            data[start + 8] |= 0x1
    path.write_bytes(bytes(data))


def central_directory_offsets(data: bytes) -> list[int]:
    """Start of each central directory entry, walked from the end-of-central-directory record
    (searching for the signature could hit compressed data)."""
    end = data.rindex(b"PK\x05\x06")
    count, _, start = struct.unpack("<HII", data[end + 10:end + 20])
    offsets = []
    for _ in range(count):
        assert data[start:start + 4] == b"PK\x01\x02"
        offsets.append(start)
        name_length, extra_length, comment_length = struct.unpack("<HHH", data[start + 28:start + 34])
        start += 46 + name_length + extra_length + comment_length
    return offsets


# --- git -------------------------------------------------------------------------------------

GIT_MODES = ["100644", "100755", "120000", "160000"]
path_components = st.binary(min_size=1, max_size=12).filter(
    lambda b: b"/" not in b and b"\x00" not in b and b not in (b".", b"..") and b.lower() != b".git")


@dataclass(frozen=True, slots=True)
class GitEntry:
    path: bytes
    mode: str
    data: bytes  # the blob; for 160000 the gitlink's commit id is derived from it


git_entries = st.lists(
    st.builds(GitEntry, path=st.tuples(st.sampled_from([b"", b"d0/", b"d1/d2/"]), path_components).map(b"".join),
              mode=st.sampled_from(GIT_MODES), data=contents_bytes),
    max_size=6, unique_by=lambda e: e.path)


def git_quote(path: bytes) -> bytes:
    """fast-import's C-style quoting, octal for every byte outside printable ASCII."""
    out = b"".join(bytes([b]) if 0x20 <= b < 0x7F and b not in b'"\\' else b"\\%03o" % b for b in path)
    return b'"' + out + b'"'


def fast_import(git_dir: Path, branch: str, entries: list[GitEntry]) -> None:
    """One root commit on ``branch`` holding ``entries``: a single git process per example."""
    stream = bytearray()
    for mark, entry in enumerate(entries, 1):
        if entry.mode != "160000":
            stream += b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(entry.data), entry.data)
    stream += f"commit refs/heads/{branch}\ncommitter T <t@example.com> 0 +0000\ndata 1\nx\n".encode()
    for mark, entry in enumerate(entries, 1):
        target = zlib.crc32(entry.data).to_bytes(4, "big").hex().ljust(40, "0").encode() \
            if entry.mode == "160000" else b":%d" % mark
        stream += b"M %s %s %s\n" % (entry.mode.encode(), target, git_quote(entry.path))
    stream += b"\n"
    subprocess.run(["git", "--git-dir", str(git_dir), "fast-import", "--quiet"], input=bytes(stream),
                   check=True, capture_output=True)


# --- streamed bombs --------------------------------------------------------------------------

def write_repeating_gzip(path: Path, head: bytes, unit: bytes, repeats: int, tail: bytes) -> int:
    """One gzip member holding ``head + unit * repeats + tail``, without compressing the repeats.

    ``unit`` is deflated once (level 1) and ended with a full flush, which byte-aligns the output and
    resets the window, so the same compressed bytes decode to ``unit`` wherever they are repeated.
    Only the CRC walks all the data. Returns the decompressed size.
    """
    deflate = zlib.compressobj(1, zlib.DEFLATED, -zlib.MAX_WBITS)  # raw deflate: header and trailer by hand
    crc, size = zlib.crc32(head), len(head)
    with path.open("wb") as out:
        out.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff")  # magic, deflate, no flags, mtime 0, unknown OS
        out.write(deflate.compress(head) + deflate.flush(zlib.Z_FULL_FLUSH))
        block = deflate.compress(unit) + deflate.flush(zlib.Z_FULL_FLUSH)
        for _ in range(repeats):
            out.write(block)
            crc = zlib.crc32(unit, crc)
        out.write(deflate.compress(tail) + deflate.flush())
        crc, size = zlib.crc32(tail, crc), size + len(unit) * repeats + len(tail)
        out.write(struct.pack("<II", crc, size & 0xFFFFFFFF))
    return size


def write_zeros_zip_member(path: Path, name: str, size: int, others: dict[str, bytes]) -> None:
    """A zip whose member ``name`` is ``size`` zeros, deflated at level 1 in 1 MiB chunks.

    Members are named by string so they take the archive's compression (a bare ZipInfo is STORED).
    """
    chunk = bytes(1 << 20)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        with archive.open(name, "w") as member:
            for _ in range(size // len(chunk)):
                member.write(chunk)
        for other, data in others.items():
            archive.writestr(other, data)


class StepBudgetExceeded(RuntimeError):
    """Raised into the traced function once it has run more Python lines than its budget allows."""


class LineSteps:
    """Counts the Python lines ``function`` executes (``sys.settrace`` line events in its frames, a
    generator's resumptions included): its loop turns, the work a wall-clock bound used to stand for.

    Over ``budget`` it raises StepBudgetExceeded inside the function (CPython then drops the tracer),
    so a regression to a turn per line or per byte stops at once instead of running for minutes.
    A reader's ``guarded`` turns that into a Quarantined; the test asserts on ``count`` first.
    """

    def __init__(self, function: Callable, budget: int | None = None):
        self.code, self.budget, self.count = function.__code__, budget, 0

    def __enter__(self) -> Self:
        self._previous = sys.gettrace()
        sys.settrace(self._call)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.settrace(self._previous)

    def _call(self, frame: FrameType, event: str, arg: object) -> Callable | None:
        return self._line if frame.f_code is self.code else None

    def _line(self, frame: FrameType, event: str, arg: object) -> Callable:
        if event == "line":
            self.count += 1
            if self.budget is not None and self.count > self.budget:
                raise StepBudgetExceeded(f"{self.code.co_name} ran over {self.budget} Python lines")
        return self._line


def bytes_read() -> int:
    """Bytes this process has read through read() calls so far (``rchar`` of /proc/self/io, Linux's
    per-task I/O accounting): compressed bytes, for a reader decompressing a file it opened itself."""
    with open("/proc/self/io", "rb") as io_stats:
        return int(next(line for line in io_stats if line.startswith(b"rchar:")).split()[1])


def _measure(kind: str, location: str, warm_up: str, step_budget: int | None) -> dict:
    source = SourceConfig(name="hostile", type=kind, paths=[location], limits=ReadLimits())
    list(read_location(source, warm_up))  # first-use allocations and lazy imports off the books
    before, read_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, bytes_read()
    with LineSteps(iter_bounded_lines, step_budget) as steps:
        outcomes = list(read_location(source, location))
    read = bytes_read() - read_before
    growth = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024  # ru_maxrss is KiB on Linux
    return {"rss_growth": growth, "bytes_read": read, "line_steps": steps.count, "outcomes": [
        (type(o).__name__, location_of(o), getattr(o, "reason", "") or getattr(o, "error", "")) for o in outcomes]}


def measure_read(kind: str, location: Path, warm_up: Path, step_budget: int | None = None) -> dict:
    """``read_location`` of ``location`` in a forked child: its outcomes, peak RSS growth, the bytes
    it read from files (compressed, as stored) and the lines ``iter_bounded_lines`` ran, stopped
    over ``step_budget`` (see LineSteps). Work, not seconds: a loaded machine changes only the latter.

    ru_maxrss is a high-water mark that never goes down, so a fresh process is the only way to see
    one read's peak; a forked one starts with its parent's current RSS as its mark and inherits the
    imports, so it costs milliseconds instead of a new interpreter's seconds.
    """
    with multiprocessing.get_context("fork").Pool(1) as pool:
        return pool.apply(_measure, (kind, str(location), str(warm_up), step_budget))
