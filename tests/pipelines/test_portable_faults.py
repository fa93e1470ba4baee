"""Faults a cluster build meets, on Beam's portable runner with an external worker pool and an S3
store on 127.0.0.1 (portable_services.py): the worker pool killed mid-stage, the S3 endpoint
stopped mid-stage. Each build must end within 60 s of the fault, naming the service, with its job
no longer running, no object written into the build after it ended, no secret in its output, and a
rerun that gives shards byte-identical to a clean in-process build."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from apache_beam.portability.api import beam_job_api_pb2, beam_job_api_pb2_grpc

from tests.pipelines.portable_services import (
    S3_SECRET,
    PortableCluster,
    ProcessLedger,
    Server,
    free_port,
    no_process_left,
    start_cluster,
    worker_environment,
)
from tests.pipelines.test_portable import BUCKET, REPO_ROOT, listing, local_files, make_corpus, objects, shard_files

FAULT_LIMIT_S = 60
STALL_TIMEOUT_S = 10


@pytest.fixture
def cluster(tmp_path) -> Iterator[tuple[PortableCluster, ProcessLedger]]:
    """A cluster of its own for each test: each test breaks one of its services."""
    with no_process_left() as ledger:
        running = start_cluster(ledger, tmp_path / "cluster")
        running.s3_client().create_bucket(Bucket=BUCKET)
        yield running, ledger


def server(ledger: ProcessLedger, name: str) -> Server:
    return next(s for s in ledger.servers if s.name == name)


def mix_process(args: list[str], cwd: Path) -> subprocess.Popen:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("AWS_")},
           "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.Popen([sys.executable, "-m", "codemix.mix", *args], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def job_states(cluster: PortableCluster) -> list[str]:
    """The state of every job the job service knows, asked over its own API."""
    with grpc.insecure_channel(f"127.0.0.1:{cluster.job_port}") as channel:
        jobs = beam_job_api_pb2_grpc.JobServiceStub(channel).GetJobs(beam_job_api_pb2.GetJobsRequest(), timeout=10)
    return [beam_job_api_pb2.JobState.Enum.Name(info.state) for info in jobs.job_info]


def wait_for_filter_job(cluster: PortableCluster, process: subprocess.Popen) -> None:
    """Until the crawl is committed and the filter's job runs."""
    deadline = time.monotonic() + 300
    while not ("work/crawl/_COMPLETE.json" in listing(cluster, "build/") and job_states(cluster)[-1:] == ["RUNNING"]):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the filter stage never started"
        time.sleep(0.2)


def build_args(spec: Path, cluster: PortableCluster) -> list[str]:
    return ["build", str(spec), "--out", f"s3://{BUCKET}/build", "--no-progress",
            "--stall-timeout", str(STALL_TIMEOUT_S), *cluster.beam_args()]


def ended_after_fault(process: subprocess.Popen, fault) -> tuple[float, str]:
    """Applies ``fault()``; returns seconds until the build exited (status 1), and its output."""
    faulted = time.monotonic()
    fault()
    stdout, stderr = process.communicate(timeout=FAULT_LIMIT_S + 30)
    seconds = time.monotonic() - faulted
    assert process.returncode == 1, stderr[-3000:]
    assert "Traceback" not in stderr and S3_SECRET not in stdout + stderr, stderr[-3000:]
    return seconds, stderr


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, bytes]:
    """The clean build's shards: the same spec, in-process, into a local folder (its own store)."""
    with no_process_left() as ledger:
        root = tmp_path_factory.mktemp("reference")
        running = start_cluster(ledger, root / "cluster")
        running.s3_client().create_bucket(Bucket=BUCKET)
        spec = make_corpus(root / "corpus", running)
        process = mix_process(["build", str(spec), "--out", str(root / "out"), "--no-progress", *running.s3_args()],
                              root)
        _, stderr = process.communicate(timeout=600)
        assert process.returncode == 0, stderr[-3000:]
    return shard_files(local_files(root / "out"))


def rerun_matches(spec: Path, cluster: PortableCluster, cwd: Path, reference: dict[str, bytes],
                  beam_args: list[str]) -> None:
    process = mix_process(["build", str(spec), "--out", f"s3://{BUCKET}/build", "--no-progress", *beam_args], cwd)
    _, stderr = process.communicate(timeout=600)
    assert process.returncode == 0, stderr[-3000:]
    assert reference and shard_files(objects(cluster, "build/")) == reference


def test_a_killed_worker_pool_cancels_the_job_and_names_the_pool(cluster, tmp_path, reference):
    running, ledger = cluster
    spec = make_corpus(tmp_path / "corpus", running)
    process = mix_process(build_args(spec, running), tmp_path)
    wait_for_filter_job(running, process)
    pool = server(ledger, "Beam worker pool")
    seconds, stderr = ended_after_fault(process, lambda: os.killpg(pool.process.pid, signal.SIGKILL))
    assert seconds < FAULT_LIMIT_S
    assert f"stage filter: the Beam worker pool at 127.0.0.1:{running.worker_pool_port} (--environment_config) " \
           f"has not answered for {STALL_TIMEOUT_S} s" in stderr
    assert "resume with: mix build" in stderr
    assert "RUNNING" not in job_states(running)
    written = listing(running, "build/")
    time.sleep(5)
    assert listing(running, "build/") == written, "objects written after the build ended"
    port = free_port()  # a new pool; the rerun resumes from the committed crawl
    ledger.start("Beam worker pool 2", [sys.executable, "-m", "apache_beam.runners.worker.worker_pool_main",
                                        "--service_port", str(port), "--container_executable",
                                        str(tmp_path / "cluster" / "boot")],
                 port, tmp_path / "cluster" / "logs" / "worker_pool_2.log", cwd=running.worker_cwd,
                 env=worker_environment(running.worker_tmp))
    args = [a.replace(f":{running.worker_pool_port}", f":{port}") for a in running.beam_args()]
    rerun_matches(spec, running, tmp_path, reference, args)


def test_a_stopped_s3_endpoint_names_it(cluster, tmp_path, reference):
    running, ledger = cluster
    spec = make_corpus(tmp_path / "corpus", running)
    process = mix_process(build_args(spec, running), tmp_path)
    wait_for_filter_job(running, process)
    moto = server(ledger, "moto S3 server")
    seconds, stderr = ended_after_fault(process, lambda: os.killpg(moto.process.pid, signal.SIGKILL))
    assert seconds < FAULT_LIMIT_S
    assert f"the S3 endpoint at {running.s3_endpoint} (--s3_endpoint_url)" in stderr
    assert "resume with: mix build" in stderr
    assert "RUNNING" not in job_states(running)
    # The store lost everything with its process: a new one on the same port, the corpus uploaded again.
    ledger.start("moto S3 server 2", [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p",
                                      str(running.s3_port)], running.s3_port, tmp_path / "moto2.log")
    running.s3_client().create_bucket(Bucket=BUCKET)
    make_corpus(tmp_path / "corpus2", running)
    rerun_matches(spec, running, tmp_path, reference, running.beam_args())


def test_ctrl_c_cancels_the_job_and_its_late_writes_stay_in_the_abandoned_attempt(cluster, tmp_path, reference):
    """Beam's own job service marks a cancelled job CANCELLED but lets its workers run on (its
    cancel is a TODO), as a slow cluster would: whatever they write lands in the interrupted
    attempt's folder, which nothing reads, and the rerun still matches the clean build."""
    running, _ = cluster
    spec = make_corpus(tmp_path / "corpus", running)
    process = mix_process(build_args(spec, running), tmp_path)
    wait_for_filter_job(running, process)
    sent = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130 and time.monotonic() - sent < 15, stderr[-3000:]
    assert "Traceback" not in stderr and S3_SECRET not in stdout + stderr
    assert "RUNNING" not in job_states(running) and "CANCELLED" in job_states(running)
    rerun_matches(spec, running, tmp_path, reference, running.beam_args())
