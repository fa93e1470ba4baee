"""A build killed with SIGKILL at any point finishes when rerun with the same command, reusing the
stages that had finished, and writes shards byte-identical to an uninterrupted build."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest
import yaml

from mix.cli import main as mix
from tests.pipelines.test_build import MIT_LICENSE, make_git_repo

STDLIB = Path(sysconfig.get_path("stdlib"))


@pytest.fixture(scope="module")
def spec_path(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("resume")
    files = {f"lib/{name}": (STDLIB / name).read_bytes() for name in ("textwrap.py", "shlex.py", "fnmatch.py",
                                                                    "colorsys.py", "queue.py", "heapq.py")}
    repo = make_git_repo(root / "repo", {"LICENSE": MIT_LICENSE.encode(), **files})
    spec = {
        "name": "resume",
        "sources": [{"name": "code", "type": "git", "paths": [str(repo)]}],
        "stages": {"short": {"sequence_length": 256, "token_budget": 10_000, "weights": {"code": 1}},
                   "long": {"sequence_length": 32768, "token_budget": 10_000, "weights": {"code": 1}}},
        "tokenizer": {"vocab_size": 600, "train_sample_documents": 50},
    }
    path = root / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def shard_bytes(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.glob("*/*")) if p.suffix in (".bin", ".idx")}


@pytest.fixture(scope="module")
def reference(spec_path, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reference") / "out"
    assert mix(["build", str(spec_path), "--out", str(out)]) == 0
    return out


def kill_when(spec_path: Path, out: Path, ready) -> None:
    """Start `mix build` in its own process group and SIGKILL the whole group once ``ready(out)``."""
    process = subprocess.Popen([sys.executable, "-m", "mix", "build", str(spec_path), "--out", str(out)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 300
    while not ready(out):
        assert process.poll() is None, "the build finished before the kill point"
        assert time.monotonic() < deadline, "kill point never reached"
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()


KILL_POINTS = {
    # Between stages: the filter stage has published its outputs and marker.
    "after_filter": (lambda out: (out / "work" / "filter" / "_COMPLETE.json").exists(), {"crawl", "filter"}),
    # In the middle of file-level dedup's Beam pipelines.
    "during_dedup": (lambda out: (out / "work" / "dedup.partial").exists(), {"crawl", "filter", "tokenizer"}),
    # While shards are being written.
    "during_shards": (lambda out: (out / "work" / "shards.partial").exists(),
                      {"crawl", "filter", "tokenizer", "dedup", "repo_dedup"}),
}


@pytest.mark.parametrize("point", KILL_POINTS)
def test_killed_build_resumes_to_identical_shards(spec_path, reference, tmp_path, point):
    ready, finished_stages = KILL_POINTS[point]
    out = tmp_path / "out"
    kill_when(spec_path, out, ready)
    assert not (out / "manifest.json").exists()
    assert mix(["build", str(spec_path), "--out", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert finished_stages <= set(manifest["reused_stages"])
    assert shard_bytes(out) == shard_bytes(reference) and shard_bytes(out)
    assert manifest["counts"] == json.loads((reference / "manifest.json").read_text())["counts"]
    assert not list(out.glob("work/*.partial"))


def test_rerunning_a_finished_build_rebuilds_it(spec_path, reference, tmp_path):
    out = tmp_path / "out"
    assert mix(["build", str(spec_path), "--out", str(out)]) == 0
    assert mix(["build", str(spec_path), "--out", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["reused_stages"] == []
    assert shard_bytes(out) == shard_bytes(reference)
