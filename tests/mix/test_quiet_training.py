"""`mix train` is as quiet as the rest of `mix`: megatron-core's and torch's warnings (a deprecated
config default, a blend of one dataset) stay off stderr unless `-v` asks for them. Run as a user
runs it, on a tiny real build."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
STDLIB = Path(sysconfig.get_path("stdlib"))
CODE = ("textwrap.py", "shlex.py", "fnmatch.py", "colorsys.py", "heapq.py", "bisect.py", "queue.py")


def mix(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codemix.mix", *args], capture_output=True, text=True,
                          cwd=REPO_ROOT, timeout=600, check=False)


def test_train_prints_library_warnings_only_with_verbose(tmp_path):
    (tmp_path / "code").mkdir()
    for name in CODE:
        (tmp_path / "code" / name).write_bytes((STDLIB / name).read_bytes())
    spec = {"name": "quiet", "sources": [{"name": "code", "type": "directory", "paths": [str(tmp_path / "code")],
                                          "license": "PSF-2.0"}],
            "stages": {"short": {"sequence_length": 128, "token_budget": 1000, "weights": {"code": 1.0}}},
            "tokenizer": {"vocab_size": 300, "train_sample_documents": 20}}
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    build = mix("build", str(tmp_path / "spec.yaml"), "--out", str(tmp_path / "build"), "--no-progress")
    assert build.returncode == 0, build.stderr
    train = ("train", "--model", "tiny", "--stage", "short", "--data", str(tmp_path / "build"), "--steps", "1",
             "--threads", "1")
    verbose = mix(*train, "--out", str(tmp_path / "loud"), "-v")
    assert verbose.returncode == 0, verbose.stderr
    assert "WARNING megatron" in verbose.stderr  # guard: the libraries do warn on this run
    quiet = mix(*train, "--out", str(tmp_path / "quiet"))
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr == "" and "step      1" in quiet.stdout
