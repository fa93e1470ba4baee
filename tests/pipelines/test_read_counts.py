"""Readers count the records they meet, independently of the outcomes they yield, and the counts are
pinned to what each fixture is known to hold; a reader that loses a record fails the build; a file of
malformed records is quarantined once, with the count, after ``limits.max_malformed_records``."""

from __future__ import annotations

import gzip
import json
import os
import zipfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from codemix.document import Document, Quarantined, ReadCount
from codemix.mix.cli import main as mix
from codemix.pipelines import readers
from codemix.pipelines.readers import read_counted
from codemix.sources import ReadLimits
from tests.pipelines.readers_fixtures import (
    FILES,
    REGULAR,
    TAR_MEMBERS,
    jsonl,
    make_git_repo,
    source,
    write_files,
    write_tar,
    write_zip,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
AGENT_RUNS = REPO_ROOT / "examples" / "transcripts" / "agent-runs.jsonl"


def counted(source_type: str, location: Path | str, **overrides) -> tuple[int, list]:
    """(records the ReadCounts report, the outcomes) of reading one location."""
    everything = list(read_counted(source(source_type, **overrides), str(location)))
    outcomes = [o for o in everything if not isinstance(o, ReadCount)]
    return sum(o.records for o in everything if isinstance(o, ReadCount)), outcomes


def make_tree(root: Path) -> Path:
    write_files(root, FILES)
    os.symlink("src/app.py", root / "link.py")
    return root


def make_dump(path: Path) -> Path:
    path.write_bytes(jsonl({"content": "a = 1\n", "path": "a.py"}, b'{"content": "cut', {"text": "b = 2\n"})
                     + b"\n   \n" + jsonl({"no_text": 1}))
    return path


def make_parquet(path: Path) -> Path:
    pq.write_table(pa.table({"content": [f"x = {i}\n" for i in range(5)], "path": [f"m{i}.py" for i in range(5)]}),
                   path)
    return path


def make_crawl_list(root: Path) -> Path:
    tree, tar = make_tree(root / "tree"), write_tar(root / "pkg-1.0.tar.gz", TAR_MEMBERS)
    listing = root / "list.txt"
    listing.write_text(f"# a comment\n\n{tree}\n{tar}\n{root / 'gone.tar.gz'}\n")
    return listing


# Each fixture and the number of records it holds, counted by hand from what the builder writes:
# FILES is six files; the tree adds a symlink; the tar adds five hostile members to FILES (its
# directory entry is structure, not a record); the git repo adds docs/guide.md, a symlink and a
# submodule to FILES; the dump has four non-blank lines; the crawl list names the tree, the tar and
# a missing archive (one record: the location itself).
CASES = {
    "directory": ("directory", make_tree, "tree", 7),
    "tar": ("archive", lambda p: write_tar(p, TAR_MEMBERS), "pkg-1.0.tar.gz", 11),
    "zip": ("archive", lambda p: write_zip(p, {"z/": (b"", 0o40755), "z/a.py": (b"a\n", REGULAR),
                                               "z/b.py": (b"b\n", REGULAR)}), "z.zip", 2),
    "git": ("git", make_git_repo, "repo", 9),
    "jsonl": ("dump", make_dump, "dump.jsonl", 4),
    "parquet": ("dump", make_parquet, "rows.parquet", 5),
    "crawl_list": ("crawl_list", lambda p: make_crawl_list(p.parent), "list.txt", 7 + 11 + 1),
}


@pytest.mark.parametrize("case", CASES)
def test_read_count_is_the_fixtures_record_count_and_matches_the_outcomes(tmp_path, case):
    source_type, build, name, known = CASES[case]
    location = build(tmp_path / name)
    records, outcomes = counted(source_type, location)
    assert records == known
    assert len(outcomes) == known


def test_real_transcripts_count_one_record_per_line(tmp_path):
    lines = [line for line in AGENT_RUNS.read_text().splitlines() if line.strip()]
    records, outcomes = counted("transcripts", AGENT_RUNS)
    assert records == len(lines) == len(outcomes) == 4
    assert sum(isinstance(o, Document) for o in outcomes) == 4  # guard: the real file reads clean


def test_a_missing_location_is_one_record(tmp_path):
    records, outcomes = counted("directory", tmp_path / "nowhere")
    assert (records, [type(o) for o in outcomes]) == (1, [Quarantined])


def test_a_failure_mid_record_is_not_counted_twice(tmp_path):
    """A tar cut inside a member's data: the member was counted, and the archive's quarantine stands
    for it, so the count equals the outcomes rather than exceeding them by one."""
    whole = write_tar(tmp_path / "whole.tar", TAR_MEMBERS).read_bytes()
    cut = tmp_path / "cut.tar"
    cut.write_bytes(whole[: whole.index(b"def main()") + 4])  # inside src/app.py's data
    records, outcomes = counted("archive", cut)
    assert isinstance(outcomes[-1], Quarantined) and outcomes[-1].location == str(cut)
    assert records == len(outcomes)


# --- a reader that loses a record is caught by the build -------------------------------------

def skipping_reader(source, location, tally):
    """The dump reader, except that it drops its second outcome without a trace."""
    for i, outcome in enumerate(readers.read_dump(source, location, tally)):
        if i != 1:
            yield outcome


def test_a_reader_that_silently_skips_a_record_fails_the_build(tmp_path, monkeypatch, capsys):
    dump = tmp_path / "dump.jsonl"
    dump.write_bytes(jsonl(*({"content": f"def f{i}():\n    return {i}\n", "path": f"f{i}.py"} for i in range(3))))
    spec = {"name": "skip", "sources": [{"name": "dump", "type": "dump", "paths": [str(dump)], "license": "MIT"}],
            "stages": {"short": {"sequence_length": 64, "token_budget": 1000, "weights": {"dump": 1}}}}
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    monkeypatch.setitem(readers.READERS, "dump", skipping_reader)
    out = tmp_path / "out"
    assert mix(["build", str(tmp_path / "spec.yaml"), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "the crawl lost records" in err and "readers counted 3 records, the ledgers hold 2 outcomes" in err
    assert not (out / "short").exists()


# --- per-file error budget ---------------------------------------------------------------------

@pytest.mark.timeout(10)  # a hang guard, not a speed claim: 0.01 s when the budget stops the reading, 30 s+ when not
@pytest.mark.parametrize("source_type", ["dump", "transcripts"])
def test_a_file_of_malformed_records_is_quarantined_once_with_a_count(tmp_path, source_type):
    bomb = tmp_path / "bomb.jsonl.gz"
    bomb.write_bytes(gzip.compress(b"{}\n" * 1_000_000, mtime=0))
    assert bomb.stat().st_size < 5_000  # guard: the 2.9 KB of "{}" lines
    limit = ReadLimits().max_malformed_records
    records, outcomes = counted(source_type, bomb, limits=ReadLimits())
    assert len(outcomes) == limit + 2 == records  # limit + 1 lines, then one record for the rest
    assert all(isinstance(o, Quarantined) for o in outcomes)
    last = outcomes[-1]
    assert last.location == str(bomb)
    assert last.error.startswith(f"TooManyMalformedRecords: {limit + 1} malformed records by line {limit + 1}")
    assert "limits.max_malformed_records" in last.error


def test_the_error_budget_is_per_file_and_configurable(tmp_path):
    good_then_bad = tmp_path / "mixed.jsonl"
    good_then_bad.write_bytes(jsonl(*[{"content": "x\n"}] * 5, *[{}] * 3))
    records, outcomes = counted("dump", good_then_bad, limits=ReadLimits(max_malformed_records=3))
    assert records == len(outcomes) == 8  # three malformed records are within a budget of three
    records, outcomes = counted("dump", good_then_bad, limits=ReadLimits(max_malformed_records=2))
    assert records == len(outcomes) == 5 + 3 + 1
    assert "3 malformed records by line 8" in outcomes[-1].error


def test_zip_fixture_holds_what_the_count_says(tmp_path):
    path = CASES["zip"][1](tmp_path / "z.zip")
    with zipfile.ZipFile(path) as archive:
        assert len([i for i in archive.infolist() if not i.is_dir()]) == 2


def test_dump_fixture_holds_four_records(tmp_path):
    lines = [line for line in make_dump(tmp_path / "d.jsonl").read_bytes().splitlines() if line.strip()]
    assert len(lines) == 4
    assert json.loads(lines[0])["content"] == "a = 1\n"


@pytest.mark.parametrize("example", sorted(p.name for p in (REPO_ROOT / "examples" / "transcripts").iterdir()))
def test_every_example_transcript_file_counts_one_record_per_outcome(example):
    """Transcript files hold one transcript, several (a session and its sub-agents), or one per line;
    the reader counts transcripts it parsed, and lines or files that gave none."""
    records, outcomes = counted("transcripts", REPO_ROOT / "examples" / "transcripts" / example, limits=ReadLimits())
    assert records == len(outcomes) >= 1
    assert any(isinstance(o, Document) for o in outcomes)  # guard: the example reads as a transcript
