"""The local tally (a local runner's stages are counted in the driver) writes the lines the Beam pipeline
writes, for every measure of every stage; a local crawl and filter then run no tally steps."""

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
    # the crawl's and the filter's other outputs: a drop reason and a redaction type per file, from its name
    dropped = [{"source": p.parent.name, "reason": "long_lines" if "_" in p.stem else "too_short"} for p in paths]
    redactions = [{"source": p.parent.name, "type": "email" if i % 3 else "ip_address", "count": 1 + i % 4}
                  for i, p in enumerate(paths)]
    for name, part in (("dropped", dropped), ("redactions", redactions)):
        for shard, chunk in enumerate((part[::2], part[1::2])):
            pq.write_table(pa.Table.from_pylist(chunk), folder / f"{name}-{shard:05d}-of-00002.parquet")


def _lines(folder: Path) -> collections.Counter:
    return collections.Counter(line.rstrip("\n") for path in glob.glob(f"{folder}/tally*.jsonl") for line in open(path))


@pytest.mark.parametrize("stage", ["crawl", "filter", "dedup", "repo_dedup"])
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
    if stage.endswith("dedup"):
        assert any('"repositories", [], ' in line for line in expected)
    else:  # a (source, reason) key and a summed redaction count
        assert any(line.startswith('["dropped", [') and '", "' in line for line in expected)
        assert stage == "filter" or sum(int(line.rsplit(",", 1)[1].rstrip("]")) for line in expected
                                        if line.startswith('["redactions"')) > 300


def test_a_local_crawl_is_counted_from_its_files_without_tally_steps(tmp_path, monkeypatch):
    from codemix.mixtures.spec import parse_spec
    from codemix.pipelines import build

    files = sorted(Path(sysconfig.get_path("stdlib")).glob("json/*.py"))
    assert len(files) >= 4, "guard: the standard library's json package"
    spec = parse_spec({"name": "t", "sources": [{"name": "json", "type": "directory", "paths": [str(files[0].parent)],
                                                 "include": ["*.py"], "license": "PSF-2.0"}],
                       "stages": {"short": {"sequence_length": 512, "token_budget": 10_000, "weights": {"json": 1}}}})
    monkeypatch.setattr(TallyRecords, "expand", lambda *_: pytest.fail("a local crawl ran its tally as pipeline steps"))
    out = tmp_path / "crawl"
    build.run_crawl(spec, str(out), ["--runner=FnApiRunner"])
    monkeypatch.undo()
    tally = _lines(out)
    assert tally == collections.Counter(tally_locally(str(out), STAGE_MEASURES["crawl"]))
    assert f'["docs", ["json"], {len(files)}]' in tally
