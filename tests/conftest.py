"""Shared fixtures. Real agent transcripts live in ../shared/data/transcripts beside the clone."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_TRANSCRIPTS = REPO_ROOT.parent / "shared" / "data" / "transcripts"


@pytest.fixture(scope="session")
def shared_transcripts() -> Path:
    """The real mini-swe-agent and SWE-agent runs; a missing folder is a set-up error, not a skip."""
    if not SHARED_TRANSCRIPTS.is_dir():
        pytest.fail(f"real transcripts not found at {SHARED_TRANSCRIPTS}; clone codemix beside shared/")
    return SHARED_TRANSCRIPTS
