"""A build killed with SIGKILL at any point finishes when rerun with the same command, reusing the
stages that had finished, and writes shards byte-identical to an uninterrupted build; Ctrl-C ends a
multi-process build within seconds with no worker left; a rerun after the inputs or the code
changed reruns instead of reusing what they invalidated."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import psutil
import pytest
import yaml

from codemix.mix.cli import main as mix
from codemix.mixtures.inspect import read_manifest
from codemix.mixtures.tokenizer import load_tokenizer
from codemix.pipelines import interrupts
from codemix.pretrain.data.pretraining import read_documents

STDLIB = Path(sysconfig.get_path("stdlib"))
REPO_ROOT = Path(__file__).resolve().parents[2]


CODE = ("textwrap.py", "shlex.py", "fnmatch.py", "colorsys.py", "queue.py", "heapq.py")


def write_spec(root: Path) -> Path:
    """Six real stdlib modules in a directory source, built into a short and a long stage (the long one
    adds the repository stage, repo_dedup)."""
    (root / "code").mkdir(parents=True)
    for name in CODE:
        (root / "code" / name).write_bytes((STDLIB / name).read_bytes())
    spec = {
        "name": "resume",
        "sources": [{"name": "code", "type": "directory", "paths": [str(root / "code")], "license": "PSF-2.0"}],
        "stages": {"short": {"sequence_length": 256, "token_budget": 10_000, "weights": {"code": 1}},
                   "long": {"sequence_length": 32768, "token_budget": 10_000, "weights": {"code": 1}}},
        "tokenizer": {"vocab_size": 600, "train_sample_documents": 50},
    }
    path = root / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.fixture(scope="module")
def spec_path(tmp_path_factory) -> Path:
    """The one spec every test here builds (each a copy of the reference or a build of its own)."""
    return write_spec(tmp_path_factory.mktemp("resume"))


def shard_bytes(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.glob("*/*")) if p.suffix in (".bin", ".idx")}


@pytest.fixture(scope="module")
def reference(spec_path, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reference") / "out"
    assert mix(["build", str(spec_path), "--out", str(out)]) == 0
    return out


def kill_when(spec_path: Path, out: Path, ready) -> str:
    """Start `mix build` in its own process group and SIGKILL the whole group once ``ready(out)``;
    returns what the build printed until then (unbuffered, so nothing is lost with the process)."""
    log = out.parent / f"killed-{len(list(out.parent.glob('killed-*')))}.log"
    with log.open("wb") as handle:
        process = subprocess.Popen([sys.executable, "-m", "codemix.mix", "build", str(spec_path), "--out", str(out)],
                                   stdout=handle, stderr=subprocess.DEVNULL, start_new_session=True,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + 300
    while not ready(out):
        assert process.poll() is None, "the build finished before the kill point"
        assert time.monotonic() < deadline, "kill point never reached"
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    return log.read_text()


def running(out: Path, stage: str) -> bool:
    """A stage has started an attempt (``work/STAGE/attempt-*``) and not committed it yet."""
    folder = out / "work" / stage
    return any(folder.glob("attempt-*")) and not (folder / "_COMPLETE.json").exists()


def reused(printed: str) -> set[str]:
    """The stages a build said it reused (``[STAGE] reused from ...``)."""
    return {line[1:].split("]", 1)[0] for line in printed.splitlines() if "] reused from " in line}


# (kill point, the stages finished before it that the next run must reuse), in build order.
KILL_POINTS = [
    # Between stages: the filter stage has published its outputs and marker.
    (lambda out: (out / "work" / "filter" / "_COMPLETE.json").exists(), {"crawl", "filter"}),
    # In the middle of file-level dedup's Beam pipelines.
    (lambda out: running(out, "dedup"), {"crawl", "filter", "tokenizer"}),
    # While shards are being written.
    (lambda out: running(out, "shards"), {"crawl", "filter", "tokenizer", "dedup", "repo_dedup"}),
]


def test_killed_build_resumes_to_identical_shards(spec_path, reference, tmp_path):
    """Killed after the filter stage, its rerun killed during dedup, that rerun's rerun killed while
    shards are written: each rerun reuses every stage finished before its kill, and the last one
    writes the uninterrupted build's shards, leaving only each stage's committed attempt."""
    out = tmp_path / "out"
    printed = kill_when(spec_path, out, KILL_POINTS[0][0])
    for (ready, _), (_, finished_stages) in zip(KILL_POINTS[1:], KILL_POINTS):
        assert not (out / "manifest.json").exists()
        printed = kill_when(spec_path, out, ready)
        assert finished_stages <= reused(printed), printed
    assert not (out / "manifest.json").exists()
    assert mix(["build", str(spec_path), "--out", str(out)]) == 0
    manifest = read_manifest(str(out))
    assert KILL_POINTS[-1][1] <= set(manifest["reused_stages"])
    assert shard_bytes(out) == shard_bytes(reference) and shard_bytes(out)
    assert manifest["counts"] == read_manifest(str(reference))["counts"]
    # Only each stage's committed attempt is left: the killed attempts' files were removed after the commit.
    for stage in out.glob("work/*"):
        marker = json.loads((stage / "_COMPLETE.json").read_text())
        assert sorted(p.name for p in stage.iterdir()) == sorted(["_COMPLETE.json", marker["attempt"]])
        listed = sorted(f["path"] for f in marker["files"])
        on_disk = sorted(str(p.relative_to(stage / marker["attempt"])) for p in (stage / marker["attempt"]).rglob("*")
                         if p.is_file())
        assert listed == on_disk and listed


def finished_files(out: Path) -> dict[str, tuple[int, bytes]]:
    """What a trainer reads of a finished build: manifest, tokenizer and shards, with their inodes."""
    paths = [out / "manifest.json", out / "tokenizer.json", *sorted(out.glob("*/*.bin")), *sorted(out.glob("*/*.idx"))]
    return {str(p.relative_to(out)): (p.stat().st_ino, p.read_bytes()) for p in paths}


def test_an_unchanged_rerun_of_a_finished_build_is_up_to_date(spec_path, reference, tmp_path, capsys):
    out = tmp_path / "out"
    shutil.copytree(reference, out)
    before = finished_files(out)
    assert mix(["build", str(spec_path), "--out", str(out)]) == 0
    assert "up to date: every stage is as the finished build made it" in capsys.readouterr().out
    assert finished_files(out) == before  # not one file rewritten


def test_an_interrupted_changed_rerun_leaves_the_finished_build_readable(spec_path, reference, tmp_path):
    """A rerun whose spec changed is stopped with SIGINT while it writes new shards: the finished
    build's manifest, tokenizer and every shard it names are as they were; the rerun then completes."""
    out = tmp_path / "out"
    shutil.copytree(reference, out)
    before = finished_files(out)
    changed = yaml.safe_load(spec_path.read_text())
    changed["stages"]["short"]["token_budget"] = 12_000  # the shards stage reruns, nothing before it
    changed_spec = tmp_path / "changed.yaml"
    changed_spec.write_text(yaml.safe_dump(changed))
    process = start_build(changed_spec, out)
    deadline = time.monotonic() + 300
    while not running(out, "shards"):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the shards stage never started"
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr.decode()
    assert finished_files(out) == before
    manifest = read_manifest(str(out))
    assert all(Path(f"{prefix}.bin").name in {p.name for p in out.glob("short/*.bin")}
               for prefix in manifest["stages"]["short"]["shards"])
    assert mix(["build", str(changed_spec), "--out", str(out)]) == 0
    rebuilt = read_manifest(str(out))
    assert rebuilt["stages"]["short"]["token_budget"] == 12_000
    assert {"crawl", "filter", "tokenizer", "dedup"} <= set(rebuilt["reused_stages"])
    assert shard_bytes(out) == shard_bytes(reference)  # a budget changes the blend, not the shards


# --- Ctrl-C ------------------------------------------------------------------------------------

def start_build(spec_path: Path, out: Path, *extra: str) -> subprocess.Popen:
    """`mix build` in its own process group (a terminal's Ctrl-C signals the whole group)."""
    return subprocess.Popen([sys.executable, "-m", "codemix.mix", "build", str(spec_path), "--out", str(out), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def worker_processes(pid: int) -> list[psutil.Process]:
    """The build's SDK workers: Beam's own worker processes, or those forked by the build's fork server
    (``pipelines.sdk_workers``: a child of the driver, spawned as ``-m ... serve`` or the driver forked),
    whose command line is the server's."""
    def is_worker(process: psutil.Process) -> bool:
        command = process.cmdline()
        if "-m apache_beam.runners.worker.sdk_worker_main" in " ".join(command):
            return True
        server = psutil.Process(process.ppid())
        return process.ppid() != pid and server.ppid() == pid and command == server.cmdline()

    found = []
    for process in psutil.Process(pid).children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if is_worker(process):
                found.append(process)
    return found


def interrupt_during_filter(spec_path: Path, out: Path, send, *extra: str
                            ) -> tuple[int, float, list[psutil.Process], bytes, bytes]:
    """Start a two-process build, wait until the filter stage's workers run, ``send(process)`` SIGINT;
    returns the exit status, seconds from the signal to the exit, every descendant then, stdout and stderr."""
    process = start_build(spec_path, out, *MULTI_PROCESS, *extra)
    deadline = time.monotonic() + 300
    while not (running(out, "filter") and len(worker_processes(process.pid)) >= 2):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the filter stage never started its workers"
        time.sleep(0.05)
    descendants = psutil.Process(process.pid).children(recursive=True)
    sent = time.monotonic()
    send(process)
    stdout, stderr = process.communicate(timeout=30)
    return process.returncode, time.monotonic() - sent, descendants, stdout, stderr


MULTI_PROCESS = ("--direct_num_workers", "2", "--direct_running_mode", "multi_processing")
SECRET = "codemix-secret-do-not-print"
SECRET_ARGS = (f"--s3_secret_access_key={SECRET}", "--s3_access_key_id", SECRET)


def still_running(processes: list[psutil.Process]) -> list[int]:
    """PIDs of ``processes`` that still run (a zombie waiting to be reaped runs no more)."""
    return [p.pid for p in processes if interrupts.is_running(p)]


def test_ctrl_c_ends_a_multi_process_build_cleanly_and_the_rerun_resumes(spec_path, reference, tmp_path):
    """Ctrl-C (SIGINT to the whole group) ends the build within seconds with no worker left, and the
    rerun resumes to the uninterrupted build's shards. An S3 secret given as a Beam option never
    shows: not in the resume hint, not in either run's logs (-v), not in any file the build wrote."""
    out = tmp_path / "out"
    status, seconds, descendants, stdout, stderr = interrupt_during_filter(
        spec_path, out, lambda process: os.killpg(process.pid, signal.SIGINT), "-v", *SECRET_ARGS)
    assert len(descendants) >= 2  # guard: there were worker processes to leave behind
    assert (status, still_running(descendants)) == (130, [])
    assert seconds < 5
    hint = stderr.decode().strip().splitlines()[-1]
    assert hint.startswith("interrupted: finished stages are kept")
    assert "resume with: mix build" in stderr.decode() and "Traceback" not in stderr.decode()
    assert "'--s3_secret_access_key=<redacted>' --s3_access_key_id '<redacted>'" in hint
    assert "(redacted values: give them again)" in hint
    finished = subprocess.run([sys.executable, "-m", "codemix.mix", "build", str(spec_path), "--out", str(out),
                               "-v", *SECRET_ARGS], capture_output=True, check=False)
    assert finished.returncode == 0, finished.stderr.decode()[-3000:]
    manifest = read_manifest(str(out))
    assert "crawl" in manifest["reused_stages"]
    assert shard_bytes(out) == shard_bytes(reference) and shard_bytes(out)
    outputs = [stdout, stderr, finished.stdout, finished.stderr]
    outputs += [p.read_bytes() for p in out.rglob("*") if p.is_file()]
    assert len(outputs) > 10 and not [o for o in outputs if SECRET.encode() in o]


def test_sigint_to_the_driver_alone_ends_a_multi_process_build(spec_path, tmp_path):
    """What hung before: SIGINT to the main process only (kill -INT PID), workers untouched."""
    status, seconds, descendants, _, stderr = interrupt_during_filter(
        spec_path, tmp_path / "out", lambda process: process.send_signal(signal.SIGINT))
    assert (status, still_running(descendants)) == (130, [])
    assert seconds < 5 and "Traceback" not in stderr.decode()


# --- inputs and code that changed since the interrupted run ----------------------------------------

def test_an_input_changed_between_kill_and_rerun_changes_the_output(reference, tmp_path, capsys):
    """The reference's inputs, copied, killed after the filter stage, one file edited: the rerun reads it."""
    spec = write_spec(tmp_path / "changing")
    out = tmp_path / "out"
    kill_when(spec, out, KILL_POINTS[0][0])
    edited = spec.parent / "code" / "colorsys.py"
    edited.write_text(edited.read_text() + "\n\ndef added_after_the_kill():\n    return 'a new function'\n")
    assert mix(["build", str(spec), "--out", str(out)]) == 0
    manifest = read_manifest(str(out))
    assert manifest["reused_stages"] == []  # the crawl read the old file, so nothing after it holds
    assert shard_bytes(out).keys() == shard_bytes(reference).keys()
    assert shard_bytes(out) != shard_bytes(reference)
    tokenizer = load_tokenizer(str(out / "tokenizer.json"))
    texts = [tokenizer.decode(d.tolist()) for p in manifest["stages"]["short"]["shards"] for d in read_documents(p)]
    assert any("added_after_the_kill" in text for text in texts)
    assert "[crawl] rerun: the inputs of source code changed since the interrupted run" in capsys.readouterr().out


def copy_of_the_code(root: Path) -> Path:
    """The packages `mix build` runs, copied, so that one of their sources can change."""
    for package in ("mix", "codemix", "filters", "dedup", "mixtures", "pipelines", "pretrain", "dashboards"):
        shutil.copytree(REPO_ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_a_code_change_reruns_the_stages_an_unchanged_build_reuses(spec_path, reference, tmp_path):
    """A build whose last stage finished but whose manifest was not written yet (killed right there)
    is reused whole by the same code, and rerun whole by changed code."""
    out = tmp_path / "out"
    shutil.copytree(reference, out)
    (out / "manifest.json").unlink()
    assert mix(["build", str(spec_path), "--out", str(out)]) == 0
    assert set(read_manifest(str(out))["reused_stages"]) >= {
        "crawl", "filter", "tokenizer", "dedup", "shards"}
    (out / "manifest.json").unlink()
    code = copy_of_the_code(tmp_path / "code")
    with (code / "pipelines" / "shards.py").open("a") as handle:
        handle.write("\n# a change to the code: nothing a finished stage wrote may be trusted now\n")
    result = subprocess.run([sys.executable, "-m", "codemix.mix", "build", str(spec_path), "--out", str(out)],
                            env={**os.environ, "PYTHONPATH": str(code)}, cwd=code, capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0, result.stderr
    assert "[crawl] rerun: the code (codemix sources) changed since the interrupted run" in result.stdout
    assert read_manifest(str(out))["reused_stages"] == []
    assert shard_bytes(out) == shard_bytes(reference)  # a comment changes no byte of output
