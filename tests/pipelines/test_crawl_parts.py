"""Reading one location as parts: disjoint, and together exactly what one reader yields."""

from __future__ import annotations

import os
import tarfile

import pytest

from codemix.document import ReadCount
from codemix.pipelines.crawl import location_parts, outcome_location, read_location_part
from codemix.pipelines.readers import read_location
from tests.pipelines.readers_fixtures import FILES, outcome_of, source, tar_member, write_files, write_tar


def described(outcomes) -> list[tuple[str, tuple[str, str]]]:
    return sorted((outcome_location(o), outcome_of(o)) for o in outcomes if not isinstance(o, ReadCount))


def records_counted(outcomes) -> int:
    return sum(o.records for o in outcomes if isinstance(o, ReadCount))


@pytest.fixture
def directory(tmp_path):
    root = tmp_path / "tree"
    write_files(root, {**FILES, **{f"pkg/mod_{i}.py": f"x = {i}\n".encode() for i in range(40)}})
    os.symlink("src/app.py", root / "link.py")
    return source("directory", paths=[str(root)])


@pytest.fixture
def archive(tmp_path):
    members = [tar_member(f"pkg/mod_{i}.py", f"y = {i}\n".encode()) for i in range(40)]
    members += [
        tar_member("../escape.py", b"z = 1\n"),
        tar_member("pkg/link.py", kind=tarfile.SYMTYPE, linkname="mod_0.py"),
    ]
    return source("archive", paths=[str(write_tar(tmp_path / "pkg.tar.gz", members))])


@pytest.mark.parametrize("parts", [2, 3, 7])
@pytest.mark.parametrize("which", ["directory", "archive"])
def test_parts_are_disjoint_and_together_are_the_whole_location(request, which, parts):
    src = request.getfixturevalue(which)
    whole = described(read_location(src, src.paths[0]))
    outcomes = [list(read_location_part((src, src.paths[0], part, parts))) for part in range(parts)]
    per_part = [described(part) for part in outcomes]
    assert sorted(item for part in per_part for item in part) == whole
    # The parts' ReadCounts add up to the records the location holds, once each.
    assert sum(records_counted(part) for part in outcomes) == len(whole)
    assert sum(1 for part in per_part if part) > 1, "the parts should share the work"
    assert {outcome for _, outcome in whole} >= {("document", ""), ("dropped", "symlink")}


def test_a_failing_location_is_quarantined_by_every_part_that_reads_it(tmp_path):
    """Each part's quarantine covers what that part had left to read, so none is lost with another part."""
    src = source("archive", paths=[str(tmp_path / "missing.tar.gz")])
    per_part = [list(read_location_part((src, src.paths[0], part, 3))) for part in range(3)]
    assert [[(type(o).__name__, o.location) for o in part if not isinstance(o, ReadCount)] for part in per_part] == [
        [("Quarantined", f"{src.paths[0]}#part={part}/3")] for part in (1, 2, 3)]
    assert [records_counted(part) for part in per_part] == [1, 1, 1]  # each part's quarantine is one record


def test_enough_parts_that_every_worker_reads():
    one, two = source("directory", paths=["a"]), source("archive", paths=["b", "c", "d"])
    assert [(s.name, loc, part, parts) for s, loc, part, parts in location_parts([one], 4)] == [
        ("test_directory", "a", part, 4) for part in range(4)
    ]
    assert {parts for *_, parts in location_parts([one, two], 2)} == {1}
    assert len(location_parts([one, two], 6)) == 8  # 4 locations, 2 parts each


def test_remote_locations_are_read_whole_and_local_repositories_in_parts():
    remote = source("archive", paths=["https://example.com/a.tar.gz"])
    clones = source("git", paths=["https://github.com/octo/x.git", "git@github.com:octo/y.git"])
    local = source("git", paths=["/repos/x"])
    dump = source("dump", paths=["/data/rows.jsonl"])
    assert [parts for *_, parts in location_parts([remote, clones, local, dump], 8)] == [1, 1, 1, 2, 2, 1]
