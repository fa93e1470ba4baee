"""The local tally (a local runner's dedup stages are counted in the driver) writes the lines the Beam
pipeline writes, for every measure of every stage that is tallied after it ran."""

from __future__ import annotations

import collections
import glob
import sysconfig
from pathlib import Path

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from codemix.pipelines.tally import STAGE_MEASURES, ReadOutputs, TallyRecords, tally_locally, tally_stage


def _write_outputs(folder: Path) -> None:
    """docs and duplicates files with the columns the measures read, from the standard library's files:
    source = its top folder, repo = its package, documents = its line count (some None repos, one empty file)."""
    stdlib = Path(sysconfig.get_path("stdlib"))
    paths = sorted(stdlib.glob("*/*.py"))[:300]
    rows = [{"source": p.parent.name, "repo": p.parent.name if i % 7 else None,
             "documents": len(p.read_bytes().splitlines())} for i, p in enumerate(paths)]
    for name, part in (("docs", rows[:200]), ("duplicates", rows[200:])):
        for shard, chunk in enumerate((part[::2], part[1::2], [])):
            table = pa.Table.from_pylist(chunk, schema=pa.schema(
                [("source", pa.string()), ("repo", pa.string()), ("documents", pa.int64())]))
            pq.write_table(table, folder / f"{name}-{shard:05d}-of-00003.parquet")


def _lines(folder: Path) -> collections.Counter:
    return collections.Counter(line.rstrip("\n") for path in glob.glob(f"{folder}/tally*.jsonl") for line in open(path))


@pytest.mark.parametrize("stage", ["dedup", "repo_dedup"])
def test_the_local_tally_equals_the_pipeline_tally(tmp_path, stage):
    local, beam_side = tmp_path / "local", tmp_path / "beam"
    for folder in (local, beam_side):
        folder.mkdir()
        _write_outputs(folder)
    measures = STAGE_MEASURES[stage]
    with beam.Pipeline(runner="FnApiRunner") as pipeline:
        _ = pipeline | ReadOutputs(str(beam_side), measures) | TallyRecords(str(beam_side), measures)
    tally_stage(str(local), measures, ["--runner=FnApiRunner"])
    expected = _lines(beam_side)
    assert _lines(local) == expected and collections.Counter(tally_locally(str(beam_side), measures)) == expected
    names = {line.split('"')[1] for line in expected}
    assert names == {m.name for m in measures}, "guard: every measure counted something"
    assert any('"repositories", [], ' in line for line in expected)
