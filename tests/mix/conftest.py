"""One small real build shared by the tests of what a build hands to others (provenance, exports).

Stdlib modules from a directory, a git repository and an sdist-like tar.gz, and the example agent
transcripts, into all three stages.
"""

from __future__ import annotations

import shutil
import subprocess
import sysconfig
import tarfile
from pathlib import Path

import pytest
import yaml

from codemix.mix.cli import main as mix
from tests.conftest import REPO_ROOT

STDLIB = Path(sysconfig.get_path("stdlib"))
GIT = ["git", "-c", "user.name=codemix", "-c", "user.email=codemix@example.com", "-c", "init.defaultBranch=main"]
# Modules with no e-mail address or IP in them, so redaction leaves their text as it is on disk.
DIRECTORY_FILES = ["colorsys.py", "bisect.py", "keyword.py"]
GIT_FILES = ["fnmatch.py", "glob.py", "sched.py"]
ARCHIVE_FILES = ["reprlib.py", "queue.py"]
TRANSCRIPTS = ["mini-swe-agent-calc.traj.json", "swe-agent-calc.traj", "openhands-trajectory.json",
               "agent-runs.jsonl"]

@pytest.fixture(scope="package")
def inputs(tmp_path_factory) -> Path:
    """The inputs on disk and ``spec.yaml`` naming them."""
    root = tmp_path_factory.mktemp("inputs")
    (root / "tree").mkdir()
    for name in DIRECTORY_FILES:
        shutil.copy(STDLIB / name, root / "tree" / name)
    repo = root / "zeta"
    repo.mkdir()
    subprocess.run([*GIT, "init", "-q", str(repo)], check=True)
    for name in GIT_FILES:
        shutil.copy(STDLIB / name, repo / name)
    subprocess.run([*GIT, "-C", str(repo), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(repo), "commit", "-qm", "fixture"], check=True)
    with tarfile.open(root / "eta-1.0.tar.gz", "w:gz") as tar:
        for name in ARCHIVE_FILES:
            tar.add(STDLIB / name, arcname=f"eta-1.0/eta/{name}")
    spec = {
        "name": "provenance",
        "sources": [
            {"name": "tree", "type": "directory", "paths": [str(root / "tree")], "license": "PSF-2.0"},
            {"name": "zeta", "type": "git", "paths": [str(repo)], "license": "MIT"},
            {"name": "eta", "type": "archive", "paths": [str(root / "eta-1.0.tar.gz")], "license": "Apache-2.0"},
            {"name": "runs", "type": "transcripts", "license": "Apache-2.0",
             "paths": [str(REPO_ROOT / "examples" / "transcripts" / name) for name in TRANSCRIPTS]},
        ],
        "stages": {
            "short": {"sequence_length": 256, "token_budget": 100_000,
                      "weights": {"tree": 1, "zeta": 1, "eta": 1, "runs": 0.5}},
            "long": {"sequence_length": 32768, "token_budget": 100_000, "weights": {"zeta": 1, "eta": 1}},
            "sft": {"sequence_length": 8192, "token_budget": 10_000, "weights": {"runs": 1},
                    "sft": {"outcome_policy": "any"}},
        },
        "tokenizer": {"vocab_size": 800, "train_sample_documents": 100},
        "shard_size_bytes": 40_000,
    }
    (root / "spec.yaml").write_text(yaml.safe_dump(spec))
    return root


@pytest.fixture(scope="package")
def build(inputs, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("build") / "out"
    assert mix(["build", str(inputs / "spec.yaml"), "--out", str(out)]) == 0
    return out




@pytest.fixture(scope="package")
def reweighted(build, inputs, tmp_path_factory) -> Path:
    """The build copied and its shards rebuilt from a spec whose short stage drops eta and doubles tree:
    the earlier stages are reused, so only that stage's documents, tokens and weights differ."""
    root = tmp_path_factory.mktemp("reweighted")
    spec = yaml.safe_load((inputs / "spec.yaml").read_text())
    spec["stages"]["short"]["weights"] = {"tree": 2, "zeta": 1, "runs": 0.5}
    (root / "spec.yaml").write_text(yaml.safe_dump(spec))
    shutil.copytree(build, root / "new")
    assert mix(["build", str(root / "spec.yaml"), "--out", str(root / "new"), "--from-stage", "shards"]) == 0
    return root / "new"
