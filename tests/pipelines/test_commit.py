"""A stage is committed only once the driver sees what it must have written, and then only its own
attempt is kept: the listed marker names the attempt and its files, older attempts are removed."""

from __future__ import annotations

import json

import pytest

from codemix.pipelines.resume import MARKER, MissingOutputs, StageRunner, committed_dir


def runner(work) -> StageRunner:
    return StageRunner(str(work), echo=lambda _: None, runner="FnApiRunner", reuse=True)


def write_docs(names):
    def stage(attempt_dir: str) -> dict:
        for name in names:
            with open(f"{attempt_dir}/{name}", "w") as handle:
                handle.write(name)
        return {"wrote": len(names)}
    return stage


def test_a_stage_whose_outputs_the_driver_cannot_see_is_not_committed(tmp_path):
    with pytest.raises(MissingOutputs, match=r"holds no docs-\*\.parquet .* give --out as gs://\.\.\. or s3://"):
        runner(tmp_path).run("crawl", "k1", write_docs(["dropped-00000-of-00001.parquet"]),
                             outputs=("docs-*.parquet", "dropped-*.parquet"))
    assert not (tmp_path / "crawl" / MARKER).exists() and committed_dir(str(tmp_path / "crawl")) is None


def test_the_marker_lists_the_attempt_and_only_it_is_kept(tmp_path):
    first = ["docs-00000-of-00002.parquet", "docs-00001-of-00002.parquet"]
    assert runner(tmp_path).run("crawl", "k1", write_docs(first), outputs=("docs-*.parquet",)) == {"wrote": 2}
    first_dir = committed_dir(str(tmp_path / "crawl"))
    second = ["docs-00000-of-00001.parquet"]
    assert runner(tmp_path).run("crawl", "k2", write_docs(second), outputs=("docs-*.parquet",)) == {"wrote": 1}
    stage = tmp_path / "crawl"
    marker = json.loads((stage / MARKER).read_text())
    assert committed_dir(str(stage)) == f"{stage}/{marker['attempt']}" != first_dir
    assert [f["path"] for f in marker["files"]] == second and marker["files"][0]["bytes"] == len(second[0])
    assert sorted(p.name for p in stage.iterdir()) == sorted([MARKER, marker["attempt"]])  # the first attempt is gone
    assert sorted(p.name for p in (stage / marker["attempt"]).iterdir()) == second


def test_a_committed_stage_with_the_same_key_is_reused_unread(tmp_path):
    runner(tmp_path).run("crawl", "k1", write_docs(["docs-00000-of-00001.parquet"]))

    def must_not_run(_):
        raise AssertionError("a committed stage with the same key ran again")

    again = runner(tmp_path)
    assert again.run("crawl", "k1", must_not_run) == {"wrote": 1} and again.reused == ["crawl"]
