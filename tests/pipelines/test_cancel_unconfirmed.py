"""A cancelled job whose runner never confirms it stopped: the build waits a bounded time, then says
so, naming the attempt that may still receive writes, and never marks that attempt complete; the
finished build in --out is untouched. The runner is Beam's PortableRunner talking gRPC to a job
service that acknowledges a cancel and keeps the job RUNNING (unconfirming_job_service.py: a fake,
as it stands for a faulty peer). The same service, killed, is a lost service: the watchdog ends the
build within the --stall-timeout of the fault."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from codemix.mix.cli import main as mix
from tests.pipelines.portable_services import free_port, no_process_left

REPO_ROOT = Path(__file__).resolve().parents[2]
STALL_S = 3


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> tuple[Path, Path]:
    """A finished build (the default runner) and its spec: what the interrupted reruns must not change."""
    root = tmp_path_factory.mktemp("finished")
    (root / "code").mkdir()
    for name in ("textwrap.py", "colorsys.py"):
        shutil.copy(Path(os.__file__).parent / name, root / "code" / name)
    spec = {"name": "t", "sources": [{"name": "code", "type": "directory", "paths": [str(root / "code")],
                                      "license": "PSF-2.0"}],
            "stages": {"short": {"sequence_length": 128, "token_budget": 1000, "weights": {"code": 1}}},
            "tokenizer": {"vocab_size": 300, "train_sample_documents": 20}}
    (root / "spec.yaml").write_text(yaml.safe_dump(spec))
    assert mix(["build", str(root / "spec.yaml"), "--out", str(root / "out")]) == 0
    return root / "spec.yaml", root / "out"


def finished_files(out: Path) -> dict[str, bytes]:
    paths = [out / "manifest.json", out / "tokenizer.json", *sorted(out.glob("short/*"))]
    return {str(p.relative_to(out)): p.read_bytes() for p in paths if p.is_file()}


def rerun_on_the_service(spec: Path, out: Path, port: int) -> subprocess.Popen:
    """`mix build --fresh` on the portable runner, its job sent to the service on ``port``."""
    return subprocess.Popen([sys.executable, "-m", "codemix.mix", "build", str(spec), "--out", str(out), "--fresh",
                             "--runner=PortableRunner", f"--job_endpoint=127.0.0.1:{port}",
                             "--environment_type=LOOPBACK", "--stall-timeout", str(STALL_S)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT,
                            start_new_session=True)


def wait_for_the_job(service, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while "run job-1" not in service.log.read_text():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the job was never submitted"
        time.sleep(0.1)


def start_service(ledger, tmp_path: Path):
    port = free_port()
    return ledger.start("unconfirming job service", [sys.executable, "-m", "tests.pipelines.unconfirming_job_service",
                                                     str(port)], port, tmp_path / "service.log", cwd=REPO_ROOT)


def test_sigterm_waits_for_the_cancel_then_names_the_attempt_that_may_still_be_written(finished, tmp_path):
    spec, reference = finished
    out = tmp_path / "out"
    shutil.copytree(reference, out)
    before = finished_files(out)
    with no_process_left() as ledger:
        service = start_service(ledger, tmp_path)
        process = rerun_on_the_service(spec, out, service.port)
        wait_for_the_job(service, process)
        sent = time.monotonic()
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
        seconds = time.monotonic() - sent
        cancels = service.log.read_text().count("cancel job-1: acknowledged")
    assert process.returncode == 143, stderr
    attempt = max((out / "work" / "crawl").glob("attempt-*"))  # the rerun's (names sort by start time)
    line = stderr.strip().splitlines()[-1]
    assert line == (f"stopped by SIGTERM: the finished build in {out} is untouched; the runner did not confirm that "
                    f"job job-1 stopped (RUNNING after {STALL_S} s): attempt {attempt} may still receive writes; it "
                    f"is not marked complete, and no later run reads it; rerun: mix build {spec} --out {out} --fresh "
                    f"--runner=PortableRunner --job_endpoint=127.0.0.1:{service.port} --environment_type=LOOPBACK "
                    f"--stall-timeout {STALL_S}")
    # It waited for the confirmation, boundedly: at least the stall timeout, and it ended on its own well before the
    # 60 s communicate() limit (the margin absorbs Beam's teardown on a loaded machine; an unbounded wait never ends).
    assert cancels >= 1 and STALL_S <= seconds < STALL_S + 40, seconds
    assert not (out / "work" / "crawl" / "_COMPLETE.json").exists()
    assert finished_files(out) == before and before


def test_a_killed_job_service_ends_the_build_within_the_stall_timeout(finished, tmp_path):
    spec, reference = finished
    out = tmp_path / "out"
    shutil.copytree(reference, out)
    before = finished_files(out)
    with no_process_left() as ledger:
        service = start_service(ledger, tmp_path)
        process = rerun_on_the_service(spec, out, service.port)
        wait_for_the_job(service, process)
        os.killpg(service.process.pid, signal.SIGKILL)
        killed = time.monotonic()
        while process.poll() is None and time.monotonic() - killed < 60:
            time.sleep(0.05)
        ended = time.monotonic() - killed
        _, stderr = process.communicate(timeout=60)
    assert process.returncode == 1, stderr
    assert f"the Beam job service at 127.0.0.1:{service.port} (--job_endpoint) has not answered for {STALL_S} s " \
           "(--stall-timeout)" in stderr and "Traceback" not in stderr
    assert "the runner did not confirm that job job-1 stopped" in stderr
    assert f"rerun: mix build {spec}" in stderr
    assert ended < STALL_S + 3, ended  # within the timeout of the fault (and the process's own exit)
    assert not (out / "work" / "crawl" / "_COMPLETE.json").exists()
    assert finished_files(out) == before
