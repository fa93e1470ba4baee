"""A build whose --out fills up ends in one paragraph: where the write failed, the space free there and
about how much the stage needs, its unfinished attempt removed, the line that resumes; exit 74. The
finished build in --out is untouched, and once space is freed the same command finishes. --out is a
small tmpfs (mounted here as root); where mounts are not allowed, the build runs under a file-size
limit (RLIMIT_FSIZE), whose refused writes (EFBIG) take the same path."""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from codemix.mix.cli import WRITE_FAILED
from codemix.mix.cli import main as mix

REPO_ROOT = Path(__file__).resolve().parents[2]
TMPFS_BYTES = 4 << 20


@contextlib.contextmanager
def small_disk(path: Path):
    """``path`` on a tmpfs of TMPFS_BYTES; None when this machine allows no mount (not root, a container)."""
    path.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS_BYTES}", "tmpfs", str(path)],
                             capture_output=True, check=False)
    if mounted.returncode != 0:
        yield None
        return
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=True)


def write_spec(root: Path) -> Path:
    (root / "code").mkdir()
    for name in ("textwrap.py", "colorsys.py", "shlex.py"):
        shutil.copy(Path(os.__file__).parent / name, root / "code" / name)
    spec = {"name": "t", "sources": [{"name": "code", "type": "directory", "paths": [str(root / "code")],
                                      "license": "PSF-2.0"}],
            "stages": {"short": {"sequence_length": 128, "token_budget": 1000, "weights": {"code": 1}}},
            "tokenizer": {"vocab_size": 300, "train_sample_documents": 20}}
    (root / "spec.yaml").write_text(yaml.safe_dump(spec))
    return root / "spec.yaml"


def finished_files(out: Path) -> dict[str, bytes]:
    paths = [out / "manifest.json", out / "tokenizer.json", *sorted(out.glob("short/*"))]
    return {str(p.relative_to(out)): p.read_bytes() for p in paths if p.is_file()}


def attempts(out: Path) -> set[str]:
    return {str(p.relative_to(out)) for p in (out / "work").glob("*/attempt-*")}


def mix_build(*args: str, limit: int | None = None) -> subprocess.CompletedProcess:
    def limited() -> None:
        if limit is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a refused write, not a killed process
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([sys.executable, "-m", "codemix.mix", "build", *args], capture_output=True, text=True,
                          cwd=REPO_ROOT, timeout=600, check=False, preexec_fn=limited)


def test_a_full_disk_ends_in_one_paragraph_and_leaves_the_finished_build_untouched(tmp_path):
    spec = write_spec(tmp_path)
    reference = tmp_path / "reference"
    assert mix(["build", str(spec), "--out", str(reference)]) == 0
    with small_disk(tmp_path / "disk") as disk:
        out = (disk or tmp_path) / "out"
        shutil.copytree(reference, out)
        before, attempts_before = finished_files(out), attempts(out)
        limit = None
        if disk is not None:  # leave 16 KiB: the lock file fits, the crawl's Parquet does not
            stats = os.statvfs(disk)
            (disk / "filler").write_bytes(b"\0" * (stats.f_bavail * stats.f_frsize - (16 << 10)))
        else:
            limit = 16 << 10
        failed = mix_build(str(spec), "--out", str(out), "--fresh", limit=limit)
        after, attempts_after = finished_files(out), attempts(out)
        if disk is not None:
            (disk / "filler").unlink()
        resumed = mix_build(str(spec), "--out", str(out), "--fresh")
    assert failed.returncode == WRITE_FAILED == 74, failed.stderr[-3000:]
    assert "Traceback" not in failed.stderr
    paragraph, stopped = failed.stderr.strip().splitlines()[-2:]
    words = "No space left on device (errno ENOSPC)" if disk is not None else "File too large (errno EFBIG)"
    assert paragraph.startswith("mix build: stage crawl could not write ") and words in paragraph, paragraph
    assert "It needs about " in paragraph and " free to finish (it had written " in paragraph
    if disk is not None:
        assert " free of 4.0 MiB there once the attempt is gone" in paragraph
    [removed] = [a for a in paragraph.split("Its unfinished attempt ")[1:]]
    assert removed.split(" was removed")[0].startswith(f"{out}/work/crawl/attempt-")
    assert stopped.startswith(f"  the build stopped: the finished build in {out} is untouched; ")
    assert stopped.endswith(f": mix build {spec} --out {out} --fresh")
    assert attempts_after == attempts_before  # the failed attempt removed, no other touched
    assert after == before and before  # the finished build as it was
    assert resumed.returncode == 0, resumed.stderr[-3000:]


@pytest.mark.parametrize("text", ["[Errno 28] No space left on device: '/data/out/work/crawl/x.parquet'"])
def test_a_refused_write_is_found_in_the_text_beam_relays(text):
    from codemix.pipelines.stopped import write_error

    relayed = RuntimeError(f"Pipeline failed: Traceback (most recent call last):\n  ...\nOSError: {text}\n"
                           " [while running 'WriteDocuments']")
    found = write_error(relayed)
    assert (found.number, found.words, found.filename) == (28, "No space left on device",
                                                           "/data/out/work/crawl/x.parquet")
    assert write_error(RuntimeError("[Errno 2] No such file or directory: 'x'")) is None  # a missing file is no refused write
