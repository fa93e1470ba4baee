"""What a commit must never carry: the virtual environment (a worktree link to a shared one, tracked
once, replaced main's environment when merged), build outputs, caches."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NEVER_TRACKED = (".venv", "out", "build", ".cache", "__pycache__", ".pytest_cache", ".ruff_cache")


def tracked() -> list[str]:
    result = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=False)
    if result.returncode != 0:
        pytest.skip("not a git checkout (an installed copy has no history to check)")
    return [path for path in result.stdout.decode().split("\0") if path]


def test_no_environment_output_or_cache_is_tracked():
    paths = tracked()
    assert "pyproject.toml" in paths, "guard: the listing is this repository's"
    offending = [path for path in paths if any(part in NEVER_TRACKED for part in Path(path).parts[:1])
                 or "__pycache__" in Path(path).parts]
    assert offending == []
