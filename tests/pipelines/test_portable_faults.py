"""Faults a cluster build meets, on Beam's portable runner with an external worker pool and an S3
store on 127.0.0.1 (portable_services.py): the S3 endpoint stopped mid-stage, the worker pool killed
as a job starts its SDK worker and mid-stage, Ctrl-C mid-stage. Each build must end within 60 s of
the fault, naming the service, with its job no longer running, no object written into the build
after it ended and no secret or traceback (the job service's relayed one included) in its output;
the rerun after the last fault gives shards byte-identical to a clean in-process build.

The four faults hit one build and its reruns, one after the other, on one cluster (a cluster and a
full cluster build cost minutes): each rerun resumes from what the faulted run committed, and the
last rerun finishes what all of them left.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
from apache_beam.portability.api import beam_job_api_pb2, beam_job_api_pb2_grpc

from tests.pipelines.portable_services import (
    BUCKET,
    REPO_ROOT,
    S3_SECRET,
    PortableCluster,
    Server,
    group_members,
    listing,
    local_files,
    make_corpus,
    no_process_left,
    objects,
    shard_files,
    start_cluster,
    start_store,
    start_worker_pool,
)

FAULT_LIMIT_S = 60
STALL_TIMEOUT_S = 3  # a real wait: the probe is a TCP connect, which a live service answers under any load


def mix_process(args: list[str], cwd: Path) -> subprocess.Popen:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("AWS_")},
           "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.Popen([sys.executable, "-m", "codemix.mix", *args], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def job_states(cluster: PortableCluster) -> list[str]:
    """The state of every job the job service knows, oldest first, asked over its own API."""
    with grpc.insecure_channel(f"127.0.0.1:{cluster.job_port}") as channel:
        jobs = beam_job_api_pb2_grpc.JobServiceStub(channel).GetJobs(beam_job_api_pb2.GetJobsRequest(), timeout=10)
    return [beam_job_api_pb2.JobState.Enum.Name(info.state) for info in jobs.job_info]


def wait_for_filter_job(cluster: PortableCluster, process: subprocess.Popen, jobs_before: int) -> None:
    """Until the crawl is committed and the filter's job (a job this run submitted) runs."""
    deadline = time.monotonic() + 300
    while True:
        states = job_states(cluster)
        if "work/crawl/_COMPLETE.json" in listing(cluster, "build/") and states[jobs_before:][-1:] == ["RUNNING"]:
            return
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the filter stage never started"
        time.sleep(0.2)


def start_build(spec: Path, cwd: Path, beam_args: list[str], cluster: PortableCluster
                ) -> tuple[subprocess.Popen, int]:
    """`mix build` into s3://BUCKET/build, run until its filter job runs; returns it and how many
    jobs the job service knew before it started (the ones after are this run's)."""
    jobs_before = len(job_states(cluster))
    process = mix_process(["build", str(spec), "--out", f"s3://{BUCKET}/build", "--no-progress",
                           "--stall-timeout", str(STALL_TIMEOUT_S), *beam_args], cwd)
    wait_for_filter_job(cluster, process, jobs_before)
    return process, jobs_before


def start_build_until_filter_job_runs(spec: Path, cwd: Path, beam_args: list[str], cluster: PortableCluster
                                      ) -> subprocess.Popen:
    """`mix build` (its crawl not yet committed), run until its filter job, the second it submits,
    turns RUNNING: polled every 10 ms, so that a fault then comes before the job service has started
    the job's SDK worker (under load it may come after: the build must then end the same way)."""
    jobs_before = len(job_states(cluster))
    process = mix_process(["build", str(spec), "--out", f"s3://{BUCKET}/build", "--no-progress",
                           "--stall-timeout", str(STALL_TIMEOUT_S), *beam_args], cwd)
    deadline = time.monotonic() + 300
    while job_states(cluster)[jobs_before:][1:2] != ["RUNNING"]:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the filter stage never started"
        time.sleep(0.01)
    return process


def wait_for_worker(pool: Server, cluster: PortableCluster) -> None:
    """Until the pool runs an SDK worker started since the crawl was committed: the filter job's. A pool
    killed before that fails the job as it starts its worker, not mid-stage (Beam's job service then
    logs the failed StartWorker with a traceback)."""
    committed = int(listing(cluster, "build/")["work/crawl/_COMPLETE.json"])  # S3 times: whole seconds
    deadline = time.monotonic() + 120
    while not [p for p in group_members(pool) if p.pid != pool.process.pid and p.create_time() >= committed]:
        assert time.monotonic() < deadline, "the filter job's SDK worker never started"
        time.sleep(0.1)


def ended_after_fault(process: subprocess.Popen, fault) -> tuple[float, str]:
    """Applies ``fault()``; returns seconds until the build exited (status 1), and its output."""
    faulted = time.monotonic()
    fault()
    stdout, stderr = process.communicate(timeout=FAULT_LIMIT_S + 30)
    seconds = time.monotonic() - faulted
    assert process.returncode == 1, stderr[-3000:]
    assert "Traceback" not in stderr and S3_SECRET not in stdout + stderr, stderr[-3000:]
    return seconds, stderr


def test_stopped_store_killed_pool_and_ctrl_c_each_end_the_build_and_the_last_rerun_matches(
        tmp_path, portable_reference):
    reference = shard_files(local_files(portable_reference))
    with no_process_left() as ledger:
        cluster = start_cluster(ledger, tmp_path / "cluster")
        cluster.s3_client().create_bucket(Bucket=BUCKET)
        spec = make_corpus(tmp_path / "corpus", cluster)
        beam_args = cluster.beam_args()

        # 1. The S3 endpoint stops while the filter stage runs: the build names it.
        process, _ = start_build(spec, tmp_path, beam_args, cluster)
        moto = next(s for s in ledger.servers if s.name == "moto S3 server")
        seconds, stderr = ended_after_fault(process, lambda: os.killpg(moto.process.pid, signal.SIGKILL))
        assert seconds < FAULT_LIMIT_S
        assert f"the S3 endpoint at {cluster.s3_endpoint} (--s3_endpoint_url)" in stderr
        assert "resume with: mix build" in stderr
        assert "RUNNING" not in job_states(cluster)
        # The store lost everything with its process: a new one on the same port, the corpus uploaded again.
        start_store(ledger, tmp_path / "cluster" / "logs", cluster.s3_port, "moto S3 server 2")
        cluster.s3_client().create_bucket(Bucket=BUCKET)
        make_corpus(tmp_path / "corpus2", cluster)

        # 2. The worker pool is killed as the rerun's filter job starts, before its SDK worker: the job
        # service fails the job with a traceback, which stays off the terminal; the build names the pool.
        process = start_build_until_filter_job_runs(spec, tmp_path, beam_args, cluster)
        pool = next(s for s in ledger.servers if s.name == "Beam worker pool")
        seconds, stderr = ended_after_fault(process, lambda: os.killpg(pool.process.pid, signal.SIGKILL))
        assert seconds < FAULT_LIMIT_S and "StartWorker" not in stderr
        assert f"stage filter: the Beam worker pool at 127.0.0.1:{cluster.worker_pool_port} (--environment_config) " \
               f"has not answered for {STALL_TIMEOUT_S} s" in stderr
        assert "resume with: mix build" in stderr
        assert "RUNNING" not in job_states(cluster)
        port = start_worker_pool(ledger, "Beam worker pool 2", tmp_path / "cluster" / "boot", cluster.worker_cwd,
                                 cluster.worker_tmp, cluster.logs)
        beam_args = [a.replace(f":{cluster.worker_pool_port}", f":{port}") for a in beam_args]
        cluster = dataclasses.replace(cluster, worker_pool_port=port)

        # 3. The worker pool is killed while the next rerun's filter stage runs: the build names the pool.
        process, _ = start_build(spec, tmp_path, beam_args, cluster)
        pool = next(s for s in ledger.servers if s.name == "Beam worker pool 2")
        wait_for_worker(pool, cluster)
        seconds, stderr = ended_after_fault(process, lambda: os.killpg(pool.process.pid, signal.SIGKILL))
        assert seconds < FAULT_LIMIT_S
        assert f"stage filter: the Beam worker pool at 127.0.0.1:{cluster.worker_pool_port} (--environment_config) " \
               f"has not answered for {STALL_TIMEOUT_S} s" in stderr
        assert "resume with: mix build" in stderr
        assert "RUNNING" not in job_states(cluster)
        written = listing(cluster, "build/")
        time.sleep(5)
        assert listing(cluster, "build/") == written, "objects written after the build ended"
        # A new pool on another port; the next rerun resumes from the committed crawl.
        port = start_worker_pool(ledger, "Beam worker pool 3", tmp_path / "cluster" / "boot", cluster.worker_cwd,
                                 cluster.worker_tmp, cluster.logs)
        beam_args = [a.replace(f":{cluster.worker_pool_port}", f":{port}") for a in beam_args]

        # 4. Ctrl-C while the filter stage runs. Beam's own job service marks a cancelled job CANCELLED
        # but lets its workers run on (its cancel is a TODO), as a slow cluster would: whatever they
        # write lands in the interrupted attempt's folder, which nothing reads.
        process, jobs_before = start_build(spec, tmp_path, beam_args, cluster)
        sent = time.monotonic()
        os.killpg(process.pid, signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
        assert process.returncode == 130 and time.monotonic() - sent < 15, stderr[-3000:]
        assert "Traceback" not in stderr and S3_SECRET not in stdout + stderr
        assert "RUNNING" not in job_states(cluster) and "CANCELLED" in job_states(cluster)[jobs_before:]

        # The rerun finishes, with the shards of a clean in-process build.
        process = mix_process(["build", str(spec), "--out", f"s3://{BUCKET}/build", "--no-progress", *beam_args],
                              tmp_path)
        _, stderr = process.communicate(timeout=600)
        assert process.returncode == 0, stderr[-3000:]
        assert reference and shard_files(objects(cluster, "build/")) == reference
