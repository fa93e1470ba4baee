"""Hostile input never crashes a crawl, and every record read is kept, dropped or quarantined.

Two halves. Fuzzing (hypothesis, derandomized): JSONL dumps and transcripts, whole transcript
files, tar and zip archives and git trees built from random bytes, names and headers; each example
checks that ``read_location`` returns, that each outcome is one of the three types and survives
pickling and the ledgers' encodings, that each record gives exactly one outcome, and that nothing
was written outside the files the example made. Explicit cases: tar-slip and links, zip and gzip
bombs, a 2 GiB line, invalid UTF-8 and 100,000-deep JSON, each with the outcome it must give; and
one regression test per bug the fuzzing found.
"""

from __future__ import annotations

import io
import itertools
import json
import os
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from codemix.document import Document, Dropped, Quarantined
from codemix.mixtures.transcripts import MAX_JSON_DEPTH, parse_test_summary, rows_of
from codemix.pipelines.readers import common as common_module
from codemix.pipelines.readers import read_location
from codemix.pipelines.readers.common import iter_bounded_lines, text_name
from codemix.pipelines.readers.language import shebang_language
from codemix.sources import ReadLimits
from tests.pipelines.hostile_fixtures import (
    GitEntry,
    LineSteps,
    TarEntry,
    ZipEntry,
    assert_storable,
    central_directory_offsets,
    dump_records,
    fast_import,
    git_entries,
    json_line,
    json_text,
    location_of,
    measure_read,
    snapshot,
    tar_bytes,
    tar_entries,
    tar_infos,
    transcripts,
    write_repeating_gzip,
    write_zeros_zip_member,
    write_zip,
    zip_entries,
)
from tests.pipelines.readers_fixtures import compress, git, source, tar_member, write_tar

# bench/fuzz.py raises this to try many more inputs with the same tests (make test keeps it at 1).
FUZZ_SCALE = int(os.environ.get("CODEMIX_FUZZ_SCALE", "1"))
FUZZ = settings(deadline=None, derandomize=True, database=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
_serial = itertools.count()


# --- the sandbox: inputs, working directory and temp directory under one snapshot ----------------

@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Inputs go in ``inputs/``; the readers run with their working directory two levels down
    (so ``../../x`` lands inside) and ``tempfile`` pointed at ``tmp/``. Absolute member names are
    generated under this root, so an extraction anywhere would show in ``snapshot(root)``."""
    root = tmp_path_factory.mktemp("hostile")
    for folder in ("inputs", "tmp", "cwd/a/b"):
        (root / folder).mkdir(parents=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root / "cwd/a/b")
        patch.setattr(tempfile, "tempdir", str(root / "tmp"))
        patch.setenv("TMPDIR", str(root / "tmp"))
        yield root


def new_input(sandbox: Path, suffix: str, data: bytes = b"") -> Path:
    path = sandbox / "inputs" / f"in{next(_serial)}{suffix}"
    path.write_bytes(data)
    return path


def read_checked(sandbox: Path, kind: str, path: Path, **overrides: object) -> list[Document | Dropped | Quarantined]:
    """``read_location`` with the checks every example shares: it returns (a raise fails the test),
    every outcome is storable, and the sandbox is byte-for-byte what it was."""
    before = snapshot(sandbox)
    outcomes = list(read_location(source(kind, **overrides), str(path)))
    for outcome in outcomes:
        assert_storable(outcome)
        if currently_in_test_context():  # --hypothesis-show-statistics lists which outcomes the fuzzing reached
            event(type(outcome).__name__, getattr(outcome, "reason", "") or outcome_error_type(outcome))
    assert snapshot(sandbox) == before, "a reader wrote to disk"
    return outcomes


def outcome_error_type(outcome: object) -> str:
    return outcome.error.split(":", 1)[0] if isinstance(outcome, Quarantined) else ""


def line_numbers(data: bytes, max_line_bytes: int) -> list[int]:
    """The lines that must each give one outcome: non-blank, or too long to look at."""
    lines = data.split(b"\n")
    lines = lines[:-1] if lines[-1] == b"" else lines
    return [n for n, line in enumerate(lines, 1) if line.strip() or len(line) > max_line_bytes]


# --- fuzzing: line-based inputs ---------------------------------------------------------------

LINE_SUFFIXES = [".jsonl", ".jsonl.gz", ".ndjson.zst"]


@settings(FUZZ, max_examples=150 * FUZZ_SCALE)
@given(lines=st.lists(json_line(dump_records), max_size=10), newline=st.sampled_from([b"\n", b"\r\n"]),
       final_newline=st.booleans(), suffix=st.sampled_from(LINE_SUFFIXES), max_line=st.sampled_from([64, 100_000]))
def test_fuzzed_dump_lines_each_give_one_outcome(sandbox: Path, lines: list[bytes], newline: bytes,
                                                 final_newline: bool, suffix: str, max_line: int) -> None:
    data = newline.join(lines) + (newline if final_newline else b"")
    path = new_input(sandbox, suffix, compress(data, suffix))
    outcomes = read_checked(sandbox, "dump", path, limits=ReadLimits(max_file_bytes=300, max_line_bytes=max_line))
    numbers = line_numbers(data, max_line)
    # A file without one line is one record: quarantined as empty.
    assert [location_of(o) for o in outcomes] == [f"{path}#L{n}" for n in numbers] if numbers else [str(path)]


@settings(FUZZ, max_examples=120 * FUZZ_SCALE)
@given(lines=st.lists(json_line(transcripts), max_size=6), final_newline=st.booleans(),
       suffix=st.sampled_from([".jsonl", ".jsonl.gz"]), max_line=st.sampled_from([200, 1_000_000]))
def test_fuzzed_transcript_lines_each_give_one_outcome(sandbox: Path, lines: list[bytes], final_newline: bool,
                                                       suffix: str, max_line: int) -> None:
    data = b"\n".join(lines) + (b"\n" if final_newline else b"")
    path = new_input(sandbox, suffix, compress(data, suffix))
    outcomes = read_checked(sandbox, "transcripts", path,
                            limits=ReadLimits(max_file_bytes=1_000_000, max_line_bytes=max_line))
    numbers = line_numbers(data, max_line)
    # A file without one line is one record: quarantined as empty. A line holding several records (a JSON
    # array of runs) gives one outcome per record, each located in that line (``#L3#transcript2``).
    by_line = [location_of(o).split("#transcript")[0] for o in outcomes]
    assert list(dict.fromkeys(by_line)) == ([f"{path}#L{n}" for n in numbers] if numbers else [str(path)])
    assert by_line == sorted(by_line, key=by_line.index)  # a line's outcomes come together, in line order


@settings(FUZZ, max_examples=120 * FUZZ_SCALE)
@given(data=st.one_of(transcripts.map(lambda t: json_text(t).encode()), json_line(transcripts)),
       suffix=st.sampled_from([".json", ".traj", ".json.gz"]))
def test_fuzzed_transcript_file_gives_one_outcome(sandbox: Path, data: bytes, suffix: str) -> None:
    path = new_input(sandbox, suffix, compress(data, suffix))
    outcomes = read_checked(sandbox, "transcripts", path, limits=ReadLimits(max_file_bytes=20_000))
    rows = array_rows(data) if len(data) <= 20_000 else None  # a JSON array of rows is read row by row
    # A file (or row) holding several runs gives one outcome per run, located in it (``#transcript2``).
    by_record = [location_of(o).split("#transcript")[0] for o in outcomes]
    assert list(dict.fromkeys(by_record)) == ([f"{path}#row{n}" for n in range(1, len(rows) + 1)] if rows
                                              else [str(path)])
    assert by_record == sorted(by_record, key=by_record.index)
    assert isinstance(outcomes[0], Document | Quarantined) or outcomes[0].reason == "file_too_large"


def array_rows(data: bytes) -> list | None:
    try:
        return rows_of(common_module.parse_json(data))
    except (ValueError, RecursionError):
        return None


@settings(FUZZ, max_examples=300 * FUZZ_SCALE)
@given(data=st.lists(st.sampled_from([b"\n", b" ", b"\r", b"\t", b"\x0b", b"x", b"{}", b"\n\n\n"]), max_size=40)
       .map(b"".join), limit=st.integers(1, 12), chunk=st.integers(1, 9))
def test_skipping_blank_lines_drops_exactly_the_blank_lines(data: bytes, limit: int, chunk: int) -> None:
    """``skip_blank`` (the fast path past runs of blank lines) = the plain reader minus the lines
    ``bytes.strip`` empties, across chunkings; over-long lines, blank or not, are still reported."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(common_module, "READ_CHUNK_BYTES", chunk)
        plain = list(iter_bounded_lines(io.BytesIO(data), limit))
        skipping = list(iter_bounded_lines(io.BytesIO(data), limit, skip_blank=True))
    assert skipping == [(n, line) for n, line in plain if line is None or line.strip()]


# --- fuzzing: archives ------------------------------------------------------------------------

TAR_FORMATS = st.sampled_from([tarfile.PAX_FORMAT, tarfile.GNU_FORMAT])
TAR_SUFFIXES = st.sampled_from([".tar", ".tar.gz", ".tar.zst"])
caps = st.sampled_from([ReadLimits(max_file_bytes=64), ReadLimits(max_file_bytes=64, max_archive_members=3),
                        ReadLimits(max_file_bytes=64, max_archive_bytes=200)])


def _is_file(info: tarfile.TarInfo) -> bool:
    return info.isreg()  # what the reader calls "file": regular, contiguous, sparse


def tar_expectation(raw: bytes, limits: ReadLimits, stop_at: int | None) -> tuple[list[tarfile.TarInfo], bool]:
    """The members of the intact tar ``raw`` that must each give one outcome, and whether the read
    must end with the archive's Quarantined: at member ``stop_at`` (a corrupted header) or at the
    first member past a whole-archive cap. Directories count toward the caps but give no outcome."""
    infos = tar_infos(raw)
    expected, count, total = [], 0, 0
    for index, info in enumerate(infos):
        count, total = count + 1, total + (info.size if _is_file(info) else 0)
        if index == stop_at or count > limits.max_archive_members or total > limits.max_archive_bytes:
            return expected, True
        expected += [] if info.isdir() else [(count, info)]
    return expected, False


def member_locations(path: Path, expected: list[tuple[int, tarfile.TarInfo | zipfile.ZipInfo]]) -> list[str]:
    """Each member's location; a repeated name's (``duplicate_member_name``) carries its ordinal."""
    seen, locations = set(), []
    for ordinal, info in expected:
        name = text_name(info.name if isinstance(info, tarfile.TarInfo) else info.filename)
        locations.append(f"{path}!{name}" + (f"#{ordinal}" if name in seen else ""))
        seen.add(name)
    return locations


def split_archive_outcomes(outcomes: list, path: Path) -> tuple[list, list]:
    """(member outcomes, archive-level outcomes); the latter at most one Quarantined, read last."""
    members = [o for o in outcomes if location_of(o) != str(path)]
    whole = [o for o in outcomes if location_of(o) == str(path)]
    assert all(location_of(o).startswith(f"{path}!") for o in members)
    assert len(whole) <= 1 and (not whole or (outcomes[-1] is whole[0] and isinstance(whole[0], Quarantined)))
    return members, whole


def assert_never_kept_unsafe(pairs: list[tuple[tarfile.TarInfo | zipfile.ZipInfo, object]]) -> None:
    """Links, devices and names that climb or are absolute are never kept as Documents; a repeated
    name is dropped as ``duplicate_member_name`` before its other checks."""
    seen = set()
    for info, outcome in pairs:
        if isinstance(outcome, Dropped) and outcome.reason == "duplicate_member_name":
            assert (info.name if isinstance(info, tarfile.TarInfo) else info.filename) in seen
            continue
        seen.add(info.name if isinstance(info, tarfile.TarInfo) else info.filename)
        name = (info.name if isinstance(info, tarfile.TarInfo) else info.filename).replace("\\", "/")
        climbs = name.startswith("/") or ".." in name.split("/")
        if climbs:
            assert isinstance(outcome, Dropped) and outcome.reason == "unsafe_path", (name, outcome)
        if isinstance(info, tarfile.TarInfo) and not _is_file(info):
            assert not isinstance(outcome, Document), (name, outcome)


@st.composite
def tar_corruptions(draw: st.DrawFn, members: int, suffix: str) -> tuple[str, int, int]:
    """("none" | "flip" | "truncate", where, xor). "flip" XORs one byte of member ``where // 512``'s first
    header block (any change breaks its checksum); "truncate" keeps ``where`` millionths of the
    compressed file (gzip and zstd both: zstd through the frame-aware reader)."""
    kinds = ["none"] + (["flip"] if members else []) + (["truncate"] if suffix != ".tar" else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "flip":
        return kind, draw(st.integers(0, members - 1)) * 512 + draw(st.integers(0, 511)), draw(st.integers(1, 255))
    return kind, draw(st.integers(0, 10**6 - 1)) if kind == "truncate" else 0, 0


@settings(FUZZ, max_examples=120 * FUZZ_SCALE)
@given(entries=st.lists(tar_entries(honest=True), max_size=8), fmt=TAR_FORMATS, suffix=TAR_SUFFIXES, limits=caps,
       data=st.data())
def test_fuzzed_tar_every_member_gives_one_outcome(sandbox: Path, entries: list[TarEntry], fmt: int, suffix: str,
                                                   limits: ReadLimits, data: st.DataObject) -> None:
    raw, offsets = tar_bytes(entries, fmt, sandbox)
    kind, where, xor = data.draw(tar_corruptions(len(entries), suffix))
    flipped = None
    if kind == "flip":
        member, within = divmod(where, 512)
        flipped, corrupt = member, bytearray(raw)
        corrupt[offsets[member] + within] ^= xor
        raw_read = bytes(corrupt)
    else:
        raw_read = raw
    stored = compress(raw_read, suffix)
    if kind == "truncate":
        stored = stored[: len(stored) * where // 10**6]
    path = new_input(sandbox, suffix, stored)

    outcomes = read_checked(sandbox, "archive", path, limits=limits)
    members, whole = split_archive_outcomes(outcomes, path)
    expected, must_stop = tar_expectation(raw, limits, flipped)
    assert len(tar_infos(raw)) == len(entries), "guard: tar written intact"
    names = member_locations(path, expected)
    if kind == "truncate":  # a prefix, and a quarantine for the archive if anything is missing
        assert [location_of(o) for o in members] == names[: len(members)]
        assert len(members) == len(names) or whole
    else:
        assert [location_of(o) for o in members] == names
        assert bool(whole) == must_stop
    assert_never_kept_unsafe(list(zip([info for _, info in expected], members, strict=False)))


@settings(FUZZ, max_examples=80 * FUZZ_SCALE)
@given(entries=st.lists(tar_entries(honest=False), max_size=8), fmt=TAR_FORMATS, suffix=TAR_SUFFIXES)
def test_fuzzed_tar_with_lying_sizes_is_accounted(sandbox: Path, entries: list[TarEntry], fmt: int,
                                                  suffix: str) -> None:
    """A header whose size disagrees with its data shifts every header after it: members before the
    first liar (and the liar itself, whose header is sound) still give their outcomes in order."""
    raw, _ = tar_bytes(entries, fmt, sandbox)
    path = new_input(sandbox, suffix, compress(raw, suffix))
    members, _ = split_archive_outcomes(read_checked(sandbox, "archive", path, limits=ReadLimits(max_file_bytes=64)),
                                        path)
    first_liar = next((i for i, e in enumerate(entries) if e.lies), len(entries))
    prefix, _ = tar_bytes(entries[:first_liar], fmt, sandbox)
    honest = [(ordinal, info) for ordinal, info in enumerate(tar_infos(prefix), 1) if not info.isdir()]
    assert [location_of(o) for o in members[: len(honest)]] == member_locations(path, honest)


@settings(FUZZ, max_examples=120 * FUZZ_SCALE)
@given(entries=st.lists(zip_entries, max_size=8, unique_by=lambda e: e.name.split("\x00")[0]), limits=caps)
def test_fuzzed_zip_every_member_gives_one_outcome(sandbox: Path, entries: list[ZipEntry], limits: ReadLimits) -> None:
    """Zip members are independent: lying sizes, encryption flags and odd methods cost one member
    each, never the archive, unless a whole-archive cap trips."""
    path = new_input(sandbox, ".zip")
    write_zip(path, entries, sandbox)
    with zipfile.ZipFile(path) as archive:
        infos = archive.infolist()
    assert len(infos) == len(entries), "guard: every entry reached the central directory"
    outcomes = read_checked(sandbox, "archive", path, limits=limits)
    members, whole = split_archive_outcomes(outcomes, path)
    expected, total, stopped = [], 0, False
    for count, info in enumerate(infos, 1):
        is_dir = info.filename.endswith("/")  # not is_dir(): it raises on an empty name
        total += info.file_size if not is_dir and (info.external_attr >> 16) & 0o170000 in (0, 0o100000) else 0
        if count > limits.max_archive_members or total > limits.max_archive_bytes:
            stopped = True
            break
        expected += [] if is_dir else [info]
    assert [location_of(o) for o in members] == [f"{path}!{info.filename}" for info in expected]
    assert bool(whole) == stopped
    assert_never_kept_unsafe(list(zip(expected, members, strict=True)))


# --- fuzzing: git -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def bare_repo(sandbox: Path) -> Path:
    """One bare repository; each example adds a root commit on its own branch (one fast-import)."""
    path = sandbox / "inputs" / "fuzz.git"
    git(sandbox / "inputs", "init", "-q", "--bare", str(path))
    return path


def expected_blob_outcome(entry: GitEntry, max_bytes: int) -> tuple[str, str]:
    if entry.mode == "120000":
        return "dropped", "symlink"
    if entry.mode == "160000":
        return "dropped", "submodule"
    if len(entry.data) > max_bytes:
        return "dropped", "file_too_large"
    if b"\x00" in entry.data[:8192]:
        return "dropped", "binary"
    try:
        entry.data.decode("utf-8")
    except UnicodeDecodeError as error:
        # Not UTF-8 and over 1/32 C0 controls (or DEL) that text never uses: compressed data, binary.
        controls = sum(b < 0x20 and b not in b"\t\n\x0b\x0c\r\x1b" or b == 0x7F for b in entry.data[:8192])
        if controls >= max(1, len(entry.data[:8192]) / 32):
            return "dropped", "binary"
        return LEGACY, f"UnicodeDecodeError: {error}"
    return "document", entry.data.decode("utf-8")


LEGACY = "legacy"  # not UTF-8 and not binary: transcoded from a codec Python has, or dropped as not_utf8


def matches_expected(got: tuple[str, str], outcome, entry: GitEntry, max_bytes: int) -> bool:
    """The outcome is the expected one; text in no UTF-8 is either dropped as ``not_utf8`` or a document
    whose text is exactly the bytes decoded by the codec its metadata names (never quarantined)."""
    expected = expected_blob_outcome(entry, max_bytes)
    if expected[0] != LEGACY:
        return got == expected
    if isinstance(outcome, Document):
        return outcome.text == entry.data.decode(outcome.metadata["original_encoding"])
    return got == ("dropped", "not_utf8")


@settings(FUZZ, max_examples=30 * FUZZ_SCALE)
@given(entries=git_entries)
def test_fuzzed_git_tree_every_blob_gives_its_outcome(sandbox: Path, bare_repo: Path, entries: list[GitEntry]) -> None:
    """Random bytes at random (non-UTF-8, control-character) paths, as links, submodules and blobs."""
    branch = f"ex{next(_serial)}"
    fast_import(bare_repo, branch, entries)
    commit = git(bare_repo, "rev-parse", branch)
    outcomes = read_checked(sandbox, "git", bare_repo, ref=branch, limits=ReadLimits(max_file_bytes=64))
    got, by_path = {}, {}
    for outcome in outcomes:
        path = location_of(outcome).removeprefix(f"{bare_repo}@{commit}:")
        by_path[path] = outcome
        got[path] = (("document", outcome.text) if isinstance(outcome, Document) else
                     ("dropped", outcome.reason) if isinstance(outcome, Dropped) else ("quarantined", outcome.error))
    assert len(got) == len(outcomes)
    named = {e.path.decode("utf-8", "backslashreplace"): e for e in entries}
    assert set(got) == set(named)
    assert all(matches_expected(got[path], by_path[path], entry, 64) for path, entry in named.items()), got


# --- explicit hostile cases: archives ---------------------------------------------------------

def test_tar_slip_and_links_are_refused_and_nothing_is_extracted(sandbox: Path) -> None:
    """``..``, absolute names (under the sandbox, so an extraction would show) and links, including a
    symlink to outside followed by a file "through" it: all refused by header, nothing written."""
    outside = sandbox / "outside"
    members = [
        tar_member("pkg/ok.py", b"print(1)\n"),
        tar_member("../../../escaped.txt", b"owned\n"),
        tar_member("pkg/../../escaped2.txt", b"owned\n"),
        tar_member(f"{outside}/absolute.txt", b"owned\n"),
        tar_member("..\\..\\windows.txt", b"owned\n"),
        tar_member("pkg/out", kind=tarfile.SYMTYPE, linkname=str(outside)),
        tar_member("pkg/out/through-link.txt", b"owned\n"),
        tar_member("pkg/hard", kind=tarfile.LNKTYPE, linkname="/etc/passwd"),
    ]
    path = write_tar(sandbox / "inputs" / "slip.tar.gz", members)
    outcomes = read_checked(sandbox, "archive", path)
    table = {location_of(o).removeprefix(f"{path}!"): getattr(o, "reason", type(o).__name__) for o in outcomes}
    assert table == {
        "pkg/ok.py": "Document", "../../../escaped.txt": "unsafe_path", "pkg/../../escaped2.txt": "unsafe_path",
        f"{outside}/absolute.txt": "unsafe_path", "..\\..\\windows.txt": "unsafe_path", "pkg/out": "symlink",
        "pkg/out/through-link.txt": "Document", "pkg/hard": "hardlink",
    }
    assert not outside.exists() and not (sandbox / "escaped.txt").exists()


@pytest.fixture(scope="module")
def warm_up(sandbox: Path) -> dict[str, Path]:
    """Small inputs each measuring child reads first, so imports and first-use buffers are not
    counted as the bomb's memory."""
    (folder := sandbox / "inputs" / "warm").mkdir()
    jsonl_gz = folder / "warm.jsonl.gz"
    jsonl_gz.write_bytes(compress(b'{"content": "x"}\n', ".gz"))
    archive = folder / "warm.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as out:
        out.writestr("pkg/a.txt", b"a\n")
    return {"dump": jsonl_gz, "transcripts": jsonl_gz, "archive": archive}


@pytest.fixture(scope="module")
def zip_bombs(sandbox: Path) -> dict[str, Path]:
    """1 GiB of zeros deflated to ~1 MiB, as an honest member and as one whose central directory
    claims exactly ``max_file_bytes`` (so it passes the header check and is opened)."""
    honest = sandbox / "inputs" / "bomb.zip"
    write_zeros_zip_member(honest, "pkg/zeros.bin", 1 << 30, {"pkg/after.txt": b"still read\n"})
    liar = sandbox / "inputs" / "liar.zip"
    data = bytearray(honest.read_bytes())
    start = central_directory_offsets(bytes(data))[0]  # pkg/zeros.bin
    data[start + 24:start + 28] = ReadLimits().max_file_bytes.to_bytes(4, "little")
    liar.write_bytes(bytes(data))
    return {"honest": honest, "liar": liar}


def test_zip_bomb_with_honest_size_is_dropped_unopened(zip_bombs: dict[str, Path], warm_up: dict[str, Path]) -> None:
    path = zip_bombs["honest"]
    with zipfile.ZipFile(path) as archive:
        assert path.stat().st_size < 5_000_000 and archive.getinfo("pkg/zeros.bin").file_size == 1 << 30
    result = measure_read("archive", path, warm_up["archive"])
    assert [o[1:] for o in result["outcomes"]] == [(f"{path}!pkg/zeros.bin", "file_too_large"),
                                                  (f"{path}!pkg/after.txt", "")]
    # Unopened: the headers and the small member are read, not the bomb's compressed bytes (zipfile
    # reads up to a member's whole compressed size at its first read; here ~500 of 4.7 MB).
    with zipfile.ZipFile(path) as archive:
        assert result["bytes_read"] < archive.getinfo("pkg/zeros.bin").compress_size // 100


def test_zip_bomb_that_understates_its_size_is_read_only_to_the_cap(zip_bombs: dict[str, Path],
                                                                    warm_up: dict[str, Path]) -> None:
    """The member claims 10 MB and is opened; zipfile stops at the claimed size, the CRC of those
    bytes is wrong, and the member is quarantined having expanded 10 MB, not 1 GiB: zipfile checks
    the CRC only where the claimed size ends, and the peak memory is a fraction of 1 GiB."""
    path = zip_bombs["liar"]
    result = measure_read("archive", path, warm_up["archive"])
    kinds = [(kind, location, error.split(":")[0]) for kind, location, error in result["outcomes"]]
    assert kinds == [("Quarantined", f"{path}!pkg/zeros.bin", "BadZipFile"), ("Document", f"{path}!pkg/after.txt", "")]
    assert result["outcomes"][0][2] == "BadZipFile: Bad CRC-32 for file 'pkg/zeros.bin'"
    assert result["rss_growth"] < 100_000_000


# --- explicit hostile cases: gzip bombs and a 2 GiB line ----------------------------------------

BOMB_BYTES = 2 << 30  # 2 GiB of zeros: no newline in it, so it is one over-long line
RECORD = b'{"content": "%s", "messages": [{"role": "user", "content": "hi"}]}'  # a dump record and a transcript


@pytest.fixture(scope="module")
def gzip_bomb(sandbox: Path) -> Path:
    path = sandbox / "inputs" / "bomb.jsonl.gz"
    size = write_repeating_gzip(path, RECORD % b"before" + b"\n", bytes(1 << 20), BOMB_BYTES >> 20,
                                b"\n" + RECORD % b"after" + b"\n")
    assert size > BOMB_BYTES and path.stat().st_size < 20_000_000
    return path


def test_gzip_bomb_fixture_is_valid_gzip(tmp_path: Path) -> None:
    """Guards the bomb builder: a small repeat count decompresses (CRC and size checked) to the input."""
    path = tmp_path / "small.gz"
    write_repeating_gzip(path, b"head", b"unit-", 1000, b"tail")
    assert __import__("gzip").decompress(path.read_bytes()) == b"head" + b"unit-" * 1000 + b"tail"


# What reading past an over-long line may cost: the 64 MB line buffer and the pieces in flight.
# Alone it measures ~65 MB; in a forked child of the full suite's process up to ~210 MB, as the
# child inherits the parent's allocator state (freed heap it cannot return, raised mmap threshold).
# Either way it is bounded by the line cap, against the 2-3 GiB a whole read of the line would take.
LINE_MEMORY_BOUND = 4 * ReadLimits().max_line_bytes

# What splitting a stream into lines may cost in Python: a few dozen lines of ``iter_bounded_lines``
# per 64 KiB read (it runs 10-18: a read, a find, a slice, a blank-run match), never a loop turn per
# line or per byte. The work a wall-clock bound stood for, counted, so a loaded machine cannot fail it.
STEPS_PER_64_KIB = 32


def line_step_budget(decompressed_bytes: int, lines: int = 0) -> int:
    return STEPS_PER_64_KIB * (decompressed_bytes // (1 << 16) + 1 + lines)


@pytest.mark.parametrize("kind", ["dump", "transcripts"])
def test_gzip_bomb_line_is_skipped_in_bounded_memory_and_the_file_read_on(gzip_bomb: Path, kind: str,
                                                                          warm_up: dict[str, Path]) -> None:
    budget = line_step_budget(BOMB_BYTES, lines=3)
    result = measure_read(kind, gzip_bomb, warm_up[kind], step_budget=budget)
    assert result["line_steps"] <= budget, "the over-long line was skipped by more than a few steps per read"
    kinds = [(k, location.removeprefix(str(gzip_bomb)), error.split(":")[0]) for k, location, error in result["outcomes"]]
    assert kinds == [("Document", "#L1", ""), ("Quarantined", "#L2", "LineTooLong"), ("Document", "#L3", "")]
    assert result["rss_growth"] < LINE_MEMORY_BOUND  # a 64 MB line cap, not 3 GiB


@pytest.mark.parametrize("unit", [b"\n", b" \r\n"])
def test_gzip_bomb_of_blank_lines_is_passed_a_run_at_a_time(sandbox: Path, unit: bytes) -> None:
    """512 MiB of blank lines from ~2.5 MB: skipped a run at a time, not a Python loop turn per line
    (which took over three minutes for 128 MiB of newlines), and the record after them is numbered."""
    path = sandbox / "inputs" / f"blank{len(unit)}.jsonl.gz"
    size = write_repeating_gzip(path, b"", unit * ((1 << 20) // len(unit)), 512, b'{"content": "x"}\n')
    assert size // len(unit) > 100 * line_step_budget(size), "guard: a turn per line would be far over budget"
    with LineSteps(iter_bounded_lines, line_step_budget(size, lines=1)) as steps:
        outcomes = read_checked(sandbox, "dump", path, limits=ReadLimits())
    assert steps.count <= steps.budget, "blank lines were passed a loop turn at a time"
    assert [location_of(o) for o in outcomes] == [f"{path}#L{(size - 17) // len(unit) + 1}"]


def test_gzip_bomb_whole_transcript_file_is_dropped_after_the_cap(sandbox: Path, warm_up: dict[str, Path]) -> None:
    """A whole-file transcript stops decompressing at ``max_file_bytes + 1``: no multi-GB read at all.

    The 1 GiB compresses evenly, so the 10 MB read is ~1% of the file's compressed bytes (gzip reads
    ahead 128 KiB of them: ~50 KB in all); decompressing it all would read every byte of the file."""
    path = sandbox / "inputs" / "bomb.json.gz"
    write_repeating_gzip(path, b"[", bytes(1 << 20), 1024, b"]")  # 1 GiB
    result = measure_read("transcripts", path, warm_up["transcripts"])
    assert [o[1:] for o in result["outcomes"]] == [(str(path), "file_too_large")]
    assert result["bytes_read"] < path.stat().st_size // 10


def test_two_gib_line_is_quarantined_with_memory_bounded(sandbox: Path, warm_up: dict[str, Path]) -> None:
    path = sandbox / "inputs" / "long-line.jsonl.gz"
    size = write_repeating_gzip(path, b'{"content": "', b"a" * (1 << 20), 2048, b'"}\n{"content": "next"}\n')
    assert size > 2 << 30 and path.stat().st_size < 20_000_000
    result = measure_read("dump", path, warm_up["dump"])
    assert [(k, loc.removeprefix(str(path)), err.split(":")[0]) for k, loc, err in result["outcomes"]] == [
        ("Quarantined", "#L1", "LineTooLong"), ("Document", "#L2", "")]
    assert result["rss_growth"] < LINE_MEMORY_BOUND


@pytest.mark.parametrize("cut", [0.5, 0.999])
def test_truncated_zstd_is_quarantined_after_the_records_read(sandbox: Path, cut: float) -> None:
    """python-zstandard's stream_reader ends a cut frame silently; the frame-aware reader raises,
    so a truncated download is quarantined, not read as a shorter valid file."""
    data = b"".join(json.dumps({"content": f"record {i}"}).encode() + b"\n" for i in range(5000))
    stored = compress(data, ".zst")
    path = new_input(sandbox, ".jsonl.zst", stored[: int(len(stored) * cut)])
    outcomes = read_checked(sandbox, "dump", path, limits=ReadLimits())
    assert isinstance(outcomes[-1], Quarantined) and outcomes[-1].location == str(path)
    assert "EOFError" in outcomes[-1].error and "truncated" in outcomes[-1].error
    assert all(isinstance(o, Document) for o in outcomes[:-1]) and len(outcomes) < 5001


def test_zstd_of_several_frames_reads_whole(sandbox: Path) -> None:
    """Concatenated frames (zstd -c a b, or pzstd output) are one stream; a whole file raises nothing."""
    frames = [compress(b"".join(json.dumps({"content": f"{f}-{i}"}).encode() + b"\n" for i in range(700)), ".zst")
              for f in range(3)]
    path = new_input(sandbox, ".jsonl.zst", b"".join(frames))
    outcomes = read_checked(sandbox, "dump", path, limits=ReadLimits())
    assert [o.text for o in outcomes] == [f"{f}-{i}" for f in range(3) for i in range(700)]


@pytest.mark.parametrize("suffix", [".jsonl.gz", ".jsonl.zst"])
def test_a_dump_past_the_decompressed_cap_is_quarantined_with_the_field(sandbox: Path, suffix: str) -> None:
    data = b"".join(json.dumps({"content": "x" * 100}).encode() + b"\n" for _ in range(1000))
    path = new_input(sandbox, suffix, compress(data, suffix[len(".jsonl"):]))
    line_bytes = len(data) // 1000
    outcomes = read_checked(sandbox, "dump", path, limits=ReadLimits(max_decompressed_bytes=line_bytes * 10))
    assert all(isinstance(o, Document) for o in outcomes[:-1]) and len(outcomes) <= 11
    assert isinstance(outcomes[-1], Quarantined) and "limits.max_decompressed_bytes" in outcomes[-1].error


@pytest.mark.parametrize("suffix", [".tar.gz", ".zip"])
def test_duplicate_member_names_keep_the_first_and_drop_the_rest(sandbox: Path, suffix: str) -> None:
    members = [("pkg/a.py", b"first = 1\n"), ("pkg/b.py", b"b = 2\n"), ("pkg/a.py", b"second = 2\n")]
    path = new_input(sandbox, suffix)
    if suffix == ".zip":
        with zipfile.ZipFile(path, "w") as archive:
            for name, data in members[:2]:
                archive.writestr(name, data)
            with pytest.warns(UserWarning, match="Duplicate name"):
                archive.writestr(*members[2])
    else:
        write_tar(path, [tar_member(name, data) for name, data in members])
    outcomes = read_checked(sandbox, "archive", path, limits=ReadLimits())
    assert [type(o).__name__ for o in outcomes] == ["Document", "Document", "Dropped"]
    assert outcomes[0].text == "first = 1\n" and outcomes[2].reason == "duplicate_member_name"
    assert len({o.doc_id if isinstance(o, Dropped) else o.id for o in outcomes}) == 3, "every record has its own id"


# --- explicit hostile cases: invalid UTF-8 and deep nesting -------------------------------------

INVALID_UTF8 = b"ok\ncaf\xe9 au lait\n"  # 0xe9 (Latin-1 e-acute) at byte offset 6


def test_invalid_utf8_in_a_git_blob_is_dropped_as_not_utf8(sandbox: Path, bare_repo: Path) -> None:
    """Too short to detect an encoding, and none declared: a drop reason, not quarantine."""
    fast_import(bare_repo, "utf8", [GitEntry(b"latin1.txt", "100644", INVALID_UTF8)])
    [outcome] = read_checked(sandbox, "git", bare_repo, ref="utf8", limits=ReadLimits())
    assert isinstance(outcome, Dropped) and outcome.location.endswith(":latin1.txt") and outcome.reason == "not_utf8"


def test_invalid_utf8_in_an_archive_member_is_dropped_as_not_utf8(sandbox: Path) -> None:
    path = write_tar(new_input(sandbox, ".tar.gz"), [tar_member("pkg/latin1.txt", INVALID_UTF8),
                                                    tar_member("pkg/ok.txt", b"ok\n")])
    outcomes = read_checked(sandbox, "archive", path, limits=ReadLimits())
    assert [type(o) for o in outcomes] == [Dropped, Document]
    assert outcomes[0].location == f"{path}!pkg/latin1.txt" and outcomes[0].reason == "not_utf8"


def test_a_declared_legacy_encoding_in_an_archive_member_is_transcoded(sandbox: Path) -> None:
    data = b"# -*- coding: latin-1 -*-\nname = 'caf\xe9 au lait'\n"
    path = write_tar(new_input(sandbox, ".tar.gz"), [tar_member("pkg/latin1.py", data)])
    [outcome] = read_checked(sandbox, "archive", path, limits=ReadLimits())
    assert isinstance(outcome, Document) and "café au lait" in outcome.text
    assert outcome.metadata["original_encoding"] == "iso8859-1"


@pytest.mark.parametrize("kind", ["dump", "transcripts"])
def test_invalid_utf8_in_a_jsonl_line_is_quarantined_with_its_offset(sandbox: Path, kind: str) -> None:
    good = b'[{"role": "user", "content": "hi"}]' if kind == "transcripts" else b'{"content": "hi"}'
    path = new_input(sandbox, ".jsonl", good + b'\n{"content": "caf\xe9"}\n' + good + b"\n")
    outcomes = read_checked(sandbox, kind, path, limits=ReadLimits())
    assert [type(o) for o in outcomes] == [Document, Quarantined, Document]
    assert outcomes[1].location == f"{path}#L2" and "byte 0xe9 in position 16" in outcomes[1].error


DEEP = b"[" * 100_000


@pytest.mark.parametrize(("kind", "good"), [("dump", b'{"content": "x"}'),
                                            ("transcripts", b'[{"role": "user", "content": "x"}]')])
def test_deeply_nested_jsonl_line_is_quarantined_and_the_next_lines_read(sandbox: Path, kind: str,
                                                                         good: bytes) -> None:
    path = new_input(sandbox, ".jsonl", b"\n".join([good, DEEP, DEEP + b"]" * 100_000, good]))
    outcomes = read_checked(sandbox, kind, path, limits=ReadLimits())
    assert [(type(o), location_of(o)) for o in outcomes] == [
        (Document, f"{path}#L1"), (Quarantined, f"{path}#L2"), (Quarantined, f"{path}#L3"), (Document, f"{path}#L4")]
    assert all(o.error.startswith("RecursionError") for o in outcomes[1:3])


def test_deeply_nested_transcript_file_is_quarantined(sandbox: Path) -> None:
    path = new_input(sandbox, ".json", DEEP)
    [outcome] = read_checked(sandbox, "transcripts", path, limits=ReadLimits())
    assert isinstance(outcome, Quarantined) and outcome.location == str(path)
    assert outcome.error.startswith("RecursionError")


def test_transcript_nested_past_the_depth_cap_is_quarantined(sandbox: Path) -> None:
    """Parseable (Python allows ~1,000 levels) but deeper than MAX_JSON_DEPTH: refused up front, so
    nothing later (rendering, the ledger's json.dumps, Beam's pickling) recurses that deep."""
    deep_input = json.loads("[" * (MAX_JSON_DEPTH + 5) + "]" * (MAX_JSON_DEPTH + 5))
    call = {"id": "c1", "name": "bash", "input": {"nested": deep_input}}
    transcript = [{"role": "assistant", "content": [{"type": "tool_use", **call}]}]
    path = new_input(sandbox, ".json", json.dumps(transcript).encode())
    [outcome] = read_checked(sandbox, "transcripts", path, limits=ReadLimits())
    assert isinstance(outcome, Quarantined) and f"nested deeper than {MAX_JSON_DEPTH}" in outcome.error


def test_deep_tool_arguments_string_is_kept_verbatim(sandbox: Path) -> None:
    """OpenAI arguments are a JSON string; one too deep (or too odd) to decode stays the string."""
    strings = ["[" * 100_000, '{"a": ' * 500 + "1" + "}" * 500, '{"n": ' + "9" * 5000 + "}"]
    calls = [{"id": f"c{i}", "function": {"name": "bash", "arguments": a}} for i, a in enumerate(strings)]
    messages = [{"role": "user", "content": "go"}, {"role": "assistant", "content": "", "tool_calls": calls}]
    path = new_input(sandbox, ".json", json.dumps(messages).encode())
    [outcome] = read_checked(sandbox, "transcripts", path, limits=ReadLimits())
    assert isinstance(outcome, Document)
    assert [c["arguments"] for c in outcome.metadata["messages"][1]["tool_calls"]] == strings


# --- regressions: one per bug the fuzzing found -------------------------------------------------

def test_huge_integer_line_is_quarantined_alone(sandbox: Path) -> None:
    """json.loads raises a plain ValueError past 4,300 digits; it used to quarantine the whole file."""
    path = new_input(sandbox, ".jsonl", b'{"content": "a", "n": ' + b"9" * 5000 + b'}\n{"content": "b"}\n')
    outcomes = read_checked(sandbox, "dump", path, limits=ReadLimits())
    assert [(type(o), location_of(o)) for o in outcomes] == [(Quarantined, f"{path}#L1"), (Document, f"{path}#L2")]
    assert outcomes[0].error.startswith("ValueError: Exceeds the limit")


@pytest.mark.parametrize(("kind", "line"), [
    ("dump", b'{"content": "x", "path": "\\ud800.py"}'),
    ("dump", b'{"content": "x", "repo_name": "\\udfff"}'),
    ("dump", b'{"content": "x", "note": "a\\ud800"}'),
    ("dump", b'{"content": "x", "\\ud800": 1}'),
    ("transcripts", b'[{"role": "user", "content": "x"}, {"role": "tool", "content": "x", "tool_call_id": "\\ud800"}]'),
    ("transcripts", b'{"messages": [{"role": "user", "content": "x"}], "info": {"exit_status": "\\ud800"}}'),
])
def test_lone_surrogate_outside_the_text_is_quarantined(sandbox: Path, kind: str, line: bytes) -> None:
    """The text was checked, but other fields come from JSON too; such a Document used to fail the
    Arrow write of the whole job. (read_checked asserts every outcome is storable.)"""
    path = new_input(sandbox, ".jsonl", line + b"\n")
    [outcome] = read_checked(sandbox, kind, path, limits=ReadLimits())
    assert isinstance(outcome, Quarantined) and outcome.error.startswith("UnicodeEncodeError")


def test_unhashable_block_type_does_not_end_the_file(sandbox: Path) -> None:
    """``{"type": []}`` made a set lookup raise TypeError, quarantining every line of the file."""
    lines = [b'[{"role": "user", "content": [{"type": []}, {"type": "text", "text": "hi"}]}]',
             b'[{"role": "user", "content": [{"type": {"a": 1}}, {"type": "text", "text": "ho"}]}]',
             b'[{"role": "user", "content": "next"}]']
    path = new_input(sandbox, ".jsonl", b"\n".join(lines))
    outcomes = read_checked(sandbox, "transcripts", path, limits=ReadLimits())
    assert [type(o) for o in outcomes] == [Document, Document, Document] and outcomes[0].text.count("hi") == 1


def test_non_utf8_tar_member_name_is_escaped_not_fatal(sandbox: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT, encoding="utf-8") as archive:
        for name in ("pkg/a.txt", "pkg/caf\udce9.txt", "pkg/c.txt"):  # b"caf\xe9.txt" on disk
            info = tarfile.TarInfo(name)
            info.size = 2
            archive.addfile(info, io.BytesIO(b"hi"))
    path = new_input(sandbox, ".tar", buffer.getvalue())
    outcomes = read_checked(sandbox, "archive", path, limits=ReadLimits())
    assert [location_of(o) for o in outcomes] == [f"{path}!pkg/a.txt", f"{path}!pkg/caf\\xe9.txt", f"{path}!pkg/c.txt"]
    assert all(isinstance(o, Document) for o in outcomes) and outcomes[1].path == "pkg/caf\\xe9.txt"


def test_non_utf8_file_name_in_a_directory_is_escaped_not_fatal(sandbox: Path) -> None:
    root = sandbox / "inputs" / f"tree{next(_serial)}"
    root.mkdir()
    for name in (b"a.txt", b"caf\xe9.txt", b"z.txt"):
        (Path(bytes(root).decode()) / Path(name.decode("utf-8", "surrogateescape"))).write_bytes(b"hi\n")
    outcomes = read_checked(sandbox, "directory", root, limits=ReadLimits())
    assert [location_of(o) for o in outcomes] == [f"{root}/a.txt", f"{root}/caf\\xe9.txt", f"{root}/z.txt"]
    assert all(isinstance(o, Document) for o in outcomes)


def test_zip_member_with_an_empty_name_is_read_alone(sandbox: Path) -> None:
    """``ZipInfo.is_dir()`` indexes ``filename[-1]``: an empty name raised IndexError and ended the
    read of every member; now it is a member like any other."""
    path = new_input(sandbox, ".zip")
    write_zip(path, [ZipEntry("", 0, b"x\n", zipfile.ZIP_DEFLATED, None),
                     ZipEntry("pkg/a.txt", 0, b"a\n", zipfile.ZIP_DEFLATED, None)], sandbox)
    outcomes = read_checked(sandbox, "archive", path, limits=ReadLimits())
    assert [(type(o), location_of(o)) for o in outcomes] == [(Document, f"{path}!"), (Document, f"{path}!pkg/a.txt")]


def test_corrupt_tar_header_mid_stream_quarantines_the_archive(sandbox: Path) -> None:
    """tarfile treats a bad checksum past the first member as the end of the archive; the members
    after it used to vanish without a record."""
    raw = bytearray(tarfile_bytes := _three_member_tar())
    raw[1024 + 100] ^= 0xFF  # the second member's mode field
    path = new_input(sandbox, ".tar", bytes(raw))
    outcomes = read_checked(sandbox, "archive", path, limits=ReadLimits())
    assert [(type(o), location_of(o)) for o in outcomes] == [(Document, f"{path}!a.txt"), (Quarantined, str(path))]
    assert "corrupt tar header at offset 1024" in outcomes[1].error
    assert len(tar_infos(tarfile_bytes)) == 3, "guard: intact before the flip"


def _three_member_tar() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        for name in ("a.txt", "b.txt", "c.txt"):
            info = tarfile.TarInfo(name)
            info.size = 2
            archive.addfile(info, io.BytesIO(b"hi"))
    return buffer.getvalue()


# The regex engine counts no steps, so these two size the input to make the work itself the check:
# linear, it is milliseconds; super-linear, hours (the patterns they replaced, put back for a check,
# were stopped by this guard). CPython's regex engine checks signals as it
# backtracks, so pytest-timeout's SIGALRM ends such a match and fails the test.
REGEX_HANG_GUARD_S = 60


@pytest.mark.timeout(REGEX_HANG_GUARD_S)
@pytest.mark.parametrize("output", [
    "Ran 1 test in 0.1s" + "\n" * 100_000 + "X",  # was cubic: 1,000 blank lines took 17 s
    "\n" * 200_000 + "1 passed",  # was quadratic: 32,000 blank lines took 36 s
])
def test_test_summary_regexes_are_linear_on_blank_lines(output: str) -> None:
    assert parse_test_summary(output) is None
    assert parse_test_summary("Ran 3 tests in 0.1s\n\n\n  OK") == (True, "Ran 3 tests: OK"), "guard: still parses"


@pytest.mark.timeout(REGEX_HANG_GUARD_S)
def test_shebang_with_a_huge_digit_run_is_linear() -> None:
    """``re.sub(r"[\\d.]+$")`` rescanned the run from each digit: 40,000 digits took 15 s, so these
    2,000,000 would take hours (see REGEX_HANG_GUARD_S)."""
    assert shebang_language("#!" + "1" * 2_000_000 + "x\n") == ""
    assert shebang_language("#!/usr/bin/env python3.11\n") == "python"
