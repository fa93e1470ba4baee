"""Shared fixtures. Real agent transcripts live in ../shared/data/transcripts beside the clone."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def _shared_root() -> Path:
    """``shared/`` beside the clone, else beside the local repository it was cloned from (a fresh clone in a
    temporary folder: ``git clone . $(mktemp -d)``)."""
    beside = REPO_ROOT.parent / "shared"
    if beside.is_dir():
        return beside
    found = subprocess.run(["git", "-C", str(REPO_ROOT), "config", "--get", "remote.origin.url"],
                           capture_output=True, text=True, check=False).stdout.strip()
    origin = Path(found.removeprefix("file://")) if found and "://" not in found.removeprefix("file://") else None
    return origin.resolve().parent / "shared" if origin is not None and origin.is_dir() else beside


SHARED_TRANSCRIPTS = _shared_root() / "data" / "transcripts"


@pytest.fixture(scope="session")
def shared_transcripts() -> Path:
    """The real mini-swe-agent and SWE-agent runs; a missing folder is a set-up error, not a skip."""
    if not SHARED_TRANSCRIPTS.is_dir():
        pytest.fail(f"real transcripts not found at {SHARED_TRANSCRIPTS}; clone codemix beside shared/ (or from a clone that is)")
    return SHARED_TRANSCRIPTS


def committed(out: Path, stage: str) -> Path:
    """The folder of a finished build's STAGE that its ``work/STAGE/_COMPLETE.json`` commits (the marker's
    ``attempt``): what the build's later stages read, and all a finished build keeps of the stage."""
    import json

    stage_dir = Path(out) / "work" / stage
    return stage_dir / json.loads((stage_dir / "_COMPLETE.json").read_text())["attempt"]


COMMIT_HISTORY = REPO_ROOT / "tests" / "fixtures" / "commits" / "itsdangerous-2024-2025.fi.gz"


@pytest.fixture(scope="session")
def itsdangerous_history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bare repository holding 36 real itsdangerous commits (tests/fixtures/commits/README.md),
    loaded with ``git fast-import``: the same commit ids on every load."""
    import gzip
    import subprocess

    repo = tmp_path_factory.mktemp("history") / "itsdangerous.git"
    subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True)
    subprocess.run(["git", "--git-dir", str(repo), "fast-import", "--quiet"], check=True,
                   input=gzip.decompress(COMMIT_HISTORY.read_bytes()))
    subprocess.run(["git", "--git-dir", str(repo), "symbolic-ref", "HEAD", "refs/heads/main"], check=True)
    return repo
