"""`mix build --json` and `mix inspect --json` print the documented schemas (docs/json.md) on stdout
alone; a source no stage weights is never crawled; `--from-stage` on a finished build says its
stages were reused from the finished build. One small real build, run as a user runs `mix`."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from codemix.mix.cli import main as mix_main
from codemix.mixtures.blend import with_found_prefixes
from tests.conftest import committed

REPO_ROOT = Path(__file__).resolve().parents[2]
STDLIB = Path(sysconfig.get_path("stdlib"))
CODE = ("textwrap.py", "shlex.py", "fnmatch.py", "colorsys.py")


def mix(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codemix.mix", *args], capture_output=True, text=True,
                          cwd=REPO_ROOT, timeout=600, check=False)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("json")
    for folder, names in (("code", CODE), ("spare", ("heapq.py", "bisect.py"))):
        (root / folder).mkdir()
        for name in names:
            (root / folder / name).write_bytes((STDLIB / name).read_bytes())
    spec = {"name": "json", "sources": [
        {"name": "code", "type": "directory", "paths": [str(root / "code")], "license": "PSF-2.0"},
        {"name": "spare", "type": "directory", "paths": [str(root / "spare")], "license": "PSF-2.0"}],
        "stages": {"short": {"sequence_length": 256, "token_budget": 4000, "weights": {"code": 1.0}}},
        "tokenizer": {"vocab_size": 400, "train_sample_documents": 20}}
    (root / "spec.yaml").write_text(yaml.safe_dump(spec))
    out = root / "out"
    result = mix("build", str(root / "spec.yaml"), "--out", str(out), "--json", "--no-progress")
    assert result.returncode == 0, result.stderr
    return {"root": root, "out": out, "result": result}


def test_build_json_is_the_summary_alone_on_stdout(built):
    summary = json.loads(built["result"].stdout)  # nothing but the JSON document on stdout
    manifest = json.loads((built["out"] / "manifest.json").read_text())
    assert summary["schema"] == "codemix.build/1" and summary["out"] == str(built["out"])
    assert summary["counts"] == manifest["counts"] and summary["counts"]["read"] == len(CODE)
    short = summary["stages"]["short"]
    assert short["documents"] == manifest["stages"]["short"]["documents"] > 0
    # absolute, as the printed --data-path (manifest.json holds them relative to the build)
    assert short["data_path"] == with_found_prefixes(manifest, str(built["out"]))["stages"]["short"]["data_path"]
    assert all(Path(prefix).is_absolute() for prefix in short["data_path"][1::2])
    assert short["data_path_argument"].split() == [str(x) for x in short["data_path"]]
    assert summary["health"]["ok"] == manifest["health"]["ok"]
    assert "mixture 'json'" in built["result"].stderr  # the plan and stage lines went to stderr


def test_a_source_no_stage_weights_is_reported_and_not_crawled(built):
    assert "not crawled: source(s) spare are weighted by no stage" in built["result"].stderr
    crawled = pq.read_table(committed(built["out"], "crawl") / "docs-00000-of-00001.parquet", columns=["source"])
    assert set(crawled.column("source").to_pylist()) == {"code"}


def test_inspect_json_counts_what_the_shards_hold(built, capsys):
    # In this process: a loaded 2-core machine once saw `mix inspect` abort at interpreter exit
    # ("terminate called without an active exception", after its whole output), which is not this test's subject.
    assert mix_main(["inspect", str(built["out"] / "short"), "--json", "-n", "2"]) == 0
    inspected = json.loads(capsys.readouterr().out)
    manifest = json.loads((built["out"] / "manifest.json").read_text())
    assert inspected["schema"] == "codemix.inspect/1" and inspected["stage"] == "short"
    assert sum(s["documents"] for s in inspected["sources"].values()) == manifest["stages"]["short"]["documents"]
    assert inspected["licenses"]["PSF-2.0"]["documents"] == manifest["stages"]["short"]["documents"]
    assert len(inspected["samples"]) == 2
    assert all(s["source"] == "code" and s["text"] and s["provenance"]["path"] in CODE for s in inspected["samples"])


def test_from_stage_on_a_finished_build_names_the_finished_build(built):
    result = mix("build", str(built["root"] / "spec.yaml"), "--out", str(built["out"]), "--from-stage", "shards",
                 "--no-progress")
    assert result.returncode == 0, result.stderr
    assert "[crawl] reused from the finished build" in result.stdout
    assert "interrupted" not in result.stdout + result.stderr
