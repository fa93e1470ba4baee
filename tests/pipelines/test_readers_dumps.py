"""The dump reader: JSONL (plain and compressed) and Parquet records with The Stack v2's columns."""

from __future__ import annotations

import datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from codemix.document import Document, Quarantined
from codemix.pipelines.readers import read_location
from codemix.sources import ReadLimits
from tests.pipelines.readers_fixtures import compress, jsonl, outcome_table, source

MAX_LINE_BYTES = 300
MAX_FILE_BYTES = 200
LIMITS = ReadLimits(max_file_bytes=MAX_FILE_BYTES, max_line_bytes=MAX_LINE_BYTES)
STACK_RECORD = {"content": "def f():\r\n    return 'é'\n", "repo_name": "octo/demo", "path": "src/f.py",
                "language": "Python", "detected_licenses": ["MIT", "Apache-2.0"], "license_type": "permissive",
                "star_events_count": 12, "visit_date": "2023-01-01T00:00:00", "gha_topics": ["a"]}
JSONL_LINES = [
    STACK_RECORD,                                             # L1 document
    {"text": "hello\n", "license": "BSD-3-Clause"},           # L2 document, no path
    b"",                                                      # L3 blank: not a record
    b'{"content": "unterminated',                             # L4 malformed
    [1, 2],                                                   # L5 not an object
    {"body": "no text field"},                                # L6
    {"content": "x" * MAX_LINE_BYTES},                        # L7 longer than max_line_bytes
    b'{"content": "caf\xe9"}',                                # L8 invalid UTF-8
    {"content": "console.log(1)\n", "path": "web/app.js"},    # L9 document, language detected
    {"content": None},                                        # L10 null text
    {"content": "a\u0000b", "path": "x.txt"},                 # L11 NUL in text
    {"content": "y" * (MAX_FILE_BYTES + 1), "path": "y.txt"}, # L12 over max_file_bytes
    b'{"content": "\\ud800"}',                                # L13 lone surrogate
    {"content": "z\n", "path": "docs/z.md"},                  # L14 (last line, no trailing newline)
]
JSONL_OUTCOMES = {
    "#L1": ("document", ""), "#L2": ("document", ""), "#L4": ("quarantined", "JSONDecodeError"),
    "#L5": ("quarantined", "TypeError"), "#L6": ("quarantined", "KeyError"),
    "#L7": ("quarantined", "LineTooLong"), "#L8": ("quarantined", "UnicodeDecodeError"),
    "#L9": ("document", ""), "#L10": ("quarantined", "TypeError"), "#L11": ("dropped", "binary"),
    "#L12": ("dropped", "file_too_large"), "#L13": ("quarantined", "UnicodeEncodeError"),
    "#L14": ("document", ""),
}
JSONL_SUFFIXES = [".jsonl", ".jsonl.gz", ".jsonl.zst", ".json.gz", ".ndjson.zstd"]


@pytest.fixture(scope="module")
def dumps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("dumps")
    data = jsonl(*JSONL_LINES).removesuffix(b"\n")
    paths = {suffix: folder / f"stack{suffix}" for suffix in JSONL_SUFFIXES}
    for suffix, path in paths.items():
        path.write_bytes(compress(data, suffix))
    return paths


def _docs(path: Path, **overrides: object) -> dict[str, Document]:
    outcomes = read_location(source("dump", limits=LIMITS, **overrides), str(path))
    return {o.metadata["location"].rsplit("#", 1)[1]: o for o in outcomes if isinstance(o, Document)}


@pytest.mark.parametrize("suffix", JSONL_SUFFIXES)
def test_every_jsonl_line_has_its_outcome(dumps: dict[str, Path], suffix: str) -> None:
    """Same table for every compression: smart_open alone would fail on .zst (no backports.zstd)."""
    path = dumps[suffix]
    assert outcome_table(read_location(source("dump", limits=LIMITS), str(path)), str(path)) == JSONL_OUTCOMES


def test_stack_columns_map_to_fields(dumps: dict[str, Path]) -> None:
    doc = _docs(dumps[".jsonl.gz"])["L1"]
    assert (doc.text, doc.repo, doc.path, doc.language, doc.license) == (
        STACK_RECORD["content"], "octo/demo", "src/f.py", "python", "MIT")


def test_unmapped_scalars_go_to_metadata(dumps: dict[str, Path]) -> None:
    doc = _docs(dumps[".jsonl"])["L1"]
    assert doc.metadata == {"license_type": "permissive", "star_events_count": 12,
                            "visit_date": "2023-01-01T00:00:00", "location": f"{dumps['.jsonl']}#L1"}


@pytest.mark.parametrize(("line", "language", "license"), [("L2", "", "BSD-3-Clause"), ("L9", "javascript", "Apache-2.0")])
def test_missing_columns_fall_back(dumps: dict[str, Path], line: str, language: str, license: str) -> None:
    """No language column -> detected from path; no license column -> the source's license."""
    doc = _docs(dumps[".jsonl.zst"])[line]
    assert (doc.language, doc.license) == (language, license)


def test_ids_are_stable_across_reads(dumps: dict[str, Path]) -> None:
    first = {k: d.id for k, d in _docs(dumps[".jsonl.zst"]).items()}
    assert len(set(first.values())) == 4 and {k: d.id for k, d in _docs(dumps[".jsonl.zst"]).items()} == first


def test_text_field_override(tmp_path: Path) -> None:
    path = tmp_path / "custom.jsonl"
    path.write_bytes(jsonl({"body": "x = 1\n", "content": "ignored"}))
    assert _docs(path, text_field="body")["L1"].text == "x = 1\n"


def test_include_glob_applies_to_dump_paths(dumps: dict[str, Path]) -> None:
    """Path checks come first, so records without a matching path are dropped whatever else they hold."""
    path = dumps[".jsonl"]
    table = outcome_table(read_location(source("dump", limits=LIMITS, include=["src/*"]), str(path)), str(path))
    assert {line for line, outcome in table.items() if outcome == ("dropped", "path_not_included")} == {
        "#L2", "#L9", "#L11", "#L12", "#L13", "#L14"}
    assert table["#L1"] == ("document", "")


@pytest.fixture(scope="module")
def parquet_dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    table = pa.table({
        "content": ["print(1)\n", None, "fn main() {}\n"],
        "repo_name": ["octo/a", "octo/b", "octo/c"],
        "path": ["a.py", "b.py", "src/main.rs"],
        "language": ["Python", "Python", None],
        "detected_licenses": [["MIT"], [], []],
        "stars": [3, 4, 5],
        "created": [datetime.datetime(2023, 5, 1, 12, 0)] * 3,
    })
    path = tmp_path_factory.mktemp("parquet") / "stack.parquet"
    pq.write_table(table, path, row_group_size=2)  # two row groups, so rows span batches
    return path


def test_every_parquet_row_has_its_outcome(parquet_dump: Path) -> None:
    table = outcome_table(read_location(source("dump", limits=LIMITS), str(parquet_dump)), str(parquet_dump))
    assert table == {"#row0": ("document", ""), "#row1": ("quarantined", "TypeError"), "#row2": ("document", "")}


def test_parquet_fields(parquet_dump: Path) -> None:
    docs = _docs(parquet_dump)
    assert [(d.text, d.repo, d.language, d.license, d.metadata["stars"], d.metadata["created"])
            for d in docs.values()] == [
        ("print(1)\n", "octo/a", "python", "MIT", 3, "2023-05-01T12:00:00"),
        ("fn main() {}\n", "octo/c", "rust", "Apache-2.0", 5, "2023-05-01T12:00:00"),
    ]


@pytest.mark.parametrize("name", ["no_text.parquet", "not_parquet.parquet", "table.csv", "missing.jsonl"])
def test_unreadable_dump_is_one_quarantine(tmp_path: Path, name: str) -> None:
    pq.write_table(pa.table({"body": ["x"]}), tmp_path / "no_text.parquet")
    (tmp_path / "not_parquet.parquet").write_bytes(b"PAR1 but not really")
    (tmp_path / "table.csv").write_text("content\nx\n")
    outcomes = list(read_location(source("dump"), str(tmp_path / name)))
    assert len(outcomes) == 1 and isinstance(outcomes[0], Quarantined)
    assert outcomes[0].location == str(tmp_path / name)


def test_a_jsonl_line_in_a_legacy_encoding_is_transcoded_and_a_broken_one_quarantined_alone(tmp_path: Path) -> None:
    """A line written in Shift-JIS among UTF-8 ones (CPython's Shift-JIS test text, long enough to detect)
    is read as CPython's own UTF-8 twin of that text, its encoding in metadata; a short line nothing
    explains stays quarantined as file#L{n}; every line has one outcome."""
    import json

    from codemix.document import ReadCount
    from codemix.pipelines.readers import read_counted
    from tests.pipelines.test_readers_encodings import FIXTURES

    twin = (FIXTURES / "shift_jis-utf8.txt").read_text(encoding="utf-8")
    line = json.dumps({"content": twin, "path": "docs/shift_jis.txt"}, ensure_ascii=False).encode("shift_jis")
    lines = [jsonl(STACK_RECORD).rstrip(b"\n"), line, b'{"content": "caf\xe9"}',
             jsonl({"content": "ok\n", "path": "b.md"}).rstrip(b"\n")]
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    found = list(read_counted(source("dump", limits=ReadLimits(max_file_bytes=1 << 20)), str(path)))
    docs = {o.metadata["location"].rsplit("#", 1)[1]: o for o in found if isinstance(o, Document)}
    assert sorted(docs) == ["L1", "L2", "L4"], found
    assert docs["L2"].text == twin and docs["L2"].metadata["encoding_evidence"].startswith("detected by")
    assert [(o.location.rsplit("#", 1)[1], o.error.split(":")[0]) for o in found if isinstance(o, Quarantined)] == [
        ("L3", "UnicodeDecodeError")]
    assert [o.records for o in found if isinstance(o, ReadCount)] == [4]
