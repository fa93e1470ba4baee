"""bench.scaleout's measuring parts (issue 31): the mirror corpus, the fit's quality, the driver's peak RSS."""

from __future__ import annotations

import json
import subprocess
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from bench import mirror_corpus
from bench.scaleout import fit_quality, peak_rss, pool_corpus, reset_peak_rss

STDLIB = Path(sysconfig.get_path("stdlib"))
FILES = ("textwrap.py", "shlex.py", "colorsys.py", "bisect.py")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def test_blob_id_is_gits_own():
    for name in FILES:
        expected = subprocess.run(["git", "hash-object", str(STDLIB / name)], check=True, capture_output=True,
                                  text=True).stdout.strip()
        assert mirror_corpus.blob_id((STDLIB / name).read_bytes()) == expected


@pytest.fixture
def mirrors(tmp_path) -> Path:
    """One bare mirror with two tags: stdlib files, a copy of one under another path, a binary file."""
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    for name in FILES[:2]:
        (work / name).write_bytes((STDLIB / name).read_bytes())
    git(work, "add", ".")
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    git(work, "tag", "v1")
    (work / "copy_of_textwrap.py").write_bytes((STDLIB / "textwrap.py").read_bytes())
    (work / "blob.bin").write_bytes(b"\0\1\2" * 100)
    (work / FILES[2]).write_bytes((STDLIB / FILES[2]).read_bytes())
    git(work, "add", ".")
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "two")
    git(work, "tag", "v2")
    mirrors = tmp_path / "mirrors"
    mirrors.mkdir()
    subprocess.run(["git", "clone", "-q", "--mirror", str(work), str(mirrors / "owner+name" / "repo")], check=True)
    return mirrors


def test_mirror_corpus_keeps_each_text_once_in_nested_parts(mirrors, tmp_path):
    candidates, refs = mirror_corpus.mirror_candidates(mirrors)
    assert refs == ["owner+name@HEAD", "owner+name@v1", "owner+name@v2"]
    texts = {mirror_corpus.blob_id((STDLIB / name).read_bytes()) for name in FILES[:3]}
    assert texts <= set(candidates) and len(candidates) == 4  # three texts (one under two paths) and the binary
    first = (STDLIB / FILES[0]).stat().st_size / 1e6
    whole = sum((STDLIB / name).stat().st_size for name in FILES[:3]) / 1e6
    parts = mirror_corpus.write_parts(tmp_path / "pool", [first / 2, whole], candidates)
    # the binary is skipped, the rest is written once in blob-id order
    assert sum(p["files"] for p in parts) == 3
    written = sorted((tmp_path / "pool").rglob("*.py"))
    assert {mirror_corpus.blob_id(path.read_bytes()) for path in written} == texts
    assert sum(path.stat().st_size for path in written) == sum(p["bytes"] for p in parts)
    (tmp_path / "pool" / "parts.json").write_text(json.dumps({"parts": parts, "refs": refs}))
    small, small_info = pool_corpus(tmp_path / "pool", first / 2)
    large, large_info = pool_corpus(tmp_path / "pool", whole)
    assert large[: len(small)] == small and small_info["bytes"] < large_info["bytes"]


def test_mirror_corpus_stops_when_the_pool_runs_out(mirrors, tmp_path):
    candidates, _ = mirror_corpus.mirror_candidates(mirrors)
    with pytest.raises(SystemExit, match="the pool ran out"):
        mirror_corpus.write_parts(tmp_path / "pool", [50.0], candidates)


def test_fit_quality_matches_numpy():
    points = [(0.256, 410.0), (0.512, 700.0), (1.024, 1500.0), (2.048, 2850.0)]
    x, y = np.array(points).T
    slope, fixed = np.polyfit(x, y, 1)
    expected_residuals = y - (fixed + slope * x)
    r2, residuals = fit_quality(points)
    assert residuals == pytest.approx(expected_residuals.tolist())
    assert r2 == pytest.approx(1 - (expected_residuals ** 2).sum() / ((y - y.mean()) ** 2).sum())


def test_peak_rss_resets():
    reset_peak_rss()
    before = peak_rss()
    block = bytearray(64 << 20)
    block[::4096] = b"\1" * len(block[::4096])  # touch every page
    assert peak_rss() >= before + (60 << 20)
    del block
    reset_peak_rss()
    assert peak_rss() < before + (32 << 20)
