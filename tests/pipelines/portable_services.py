"""Loopback servers for running builds the way a cluster runs them: Beam's portable job service, an
external SDK worker pool, and an S3-compatible object store (moto's server), each a process of its
own, reached on 127.0.0.1 (moto and the job service bind loopback only; Beam's worker pool binds
[::], which its command line cannot change), started and stopped by PID.

The pool starts each SDK worker through sdk_worker_boot.py, the SDK container's boot step, so the
workers get the pipeline's options as on a cluster. The worker pool runs in another working directory and with another temporary directory than the
driver, so a build that leans on a driver-local relative path or temp file fails here as it would
on a cluster; only absolute input paths are shared (the workers are on the same disk). Every
process in the pool's group (it forks one SDK worker per environment it is asked for) is killed
with it, and `no_process_left` checks at teardown that none of them survived.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import socket
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import yaml

from tests.pipelines.test_build import MIT_LICENSE, edited

REPO_ROOT = Path(__file__).resolve().parents[2]
STDLIB = Path(sysconfig.get_path("stdlib"))
BUCKET = "codemix"
# moto accepts any credentials; these only have to reach it, through Beam's S3 options or the environment.
S3_KEY_ID, S3_SECRET, S3_REGION = "codemix-test", "codemix-test-secret", "us-east-1"
START_TIMEOUT_S = 60.0
BOOT = Path(__file__).with_name("sdk_worker_boot.py")


@dataclass
class Server:
    """One server process, its own process group (start_new_session), and where it logs."""

    name: str
    process: subprocess.Popen
    port: int
    log: Path

    def log_tail(self, lines: int = 30) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


def free_port() -> int:
    """A loopback port nobody listens on now (the OS picks it; a race with another process is possible
    but harmless: the server then fails to bind and `wait_until_listening` reports its log)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(name: str, command: list[str], port: int, log: Path, *, cwd: Path | None = None,
          env: dict[str, str] | None = None) -> Server:
    """Starts `command` in a new session (so its children can be killed with it), output to `log`."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as handle:  # the child keeps its own copy of the descriptor
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=handle, stderr=subprocess.STDOUT,
                                   cwd=cwd, env=env, start_new_session=True)
    return Server(name, process, port, log)


def wait_until_listening(server: Server, timeout_s: float = START_TIMEOUT_S) -> None:
    """Returns once 127.0.0.1:port accepts a connection; fails naming the server, its exit status and
    its log's tail if it exits first or the timeout passes."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"{server.name} exited with status {server.process.returncode} before listening on "
                               f"127.0.0.1:{server.port}; its log ({server.log}) ends:\n{server.log_tail()}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", server.port), timeout=1):
            return
        time.sleep(0.1)
    raise RuntimeError(f"{server.name} did not listen on 127.0.0.1:{server.port} within {timeout_s:.0f} s; "
                       f"its log ({server.log}) ends:\n{server.log_tail()}")


def group_members(server: Server) -> list[psutil.Process]:
    """The server and every process still in its process group (the SDK workers it forked)."""
    members = []
    for process in psutil.process_iter():
        with contextlib.suppress(psutil.Error, ProcessLookupError):
            if os.getpgid(process.pid) == server.process.pid:
                members.append(process)
    return members


def stop(server: Server, grace_s: float = 10.0) -> list[psutil.Process]:
    """SIGTERM to the server's whole group, then SIGKILL to whatever is left after `grace_s`.
    Returns the processes it signalled, for `still_running` to check."""
    members = group_members(server)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(server.process.pid, signal.SIGTERM)
    try:
        server.process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        pass
    _, alive = psutil.wait_procs(members, timeout=grace_s)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(server.process.pid, signal.SIGKILL)
    for process in alive:
        with contextlib.suppress(psutil.Error):
            process.kill()
    server.process.wait(timeout=grace_s)
    psutil.wait_procs(alive, timeout=grace_s)
    return members


def still_running(processes: list[psutil.Process]) -> list[psutil.Process]:
    """Those of `processes` that still run. A zombie counts as gone: it has exited and holds nothing
    but its exit status, and a forked worker orphaned to an init that does not reap stays one."""
    running = []
    for process in processes:
        with contextlib.suppress(psutil.NoSuchProcess):
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                running.append(process)
    return running


@dataclass
class ProcessLedger:
    """Every server started through it, and every process it signalled when stopping them."""

    servers: list[Server] = field(default_factory=list)
    signalled: list[psutil.Process] = field(default_factory=list)

    def start(self, name: str, command: list[str], port: int, log: Path, **kwargs) -> Server:
        server = start(name, command, port, log, **kwargs)
        self.servers.append(server)
        wait_until_listening(server)
        return server

    def stop_all(self) -> None:
        for server in reversed(self.servers):
            self.signalled += stop(server)


@contextlib.contextmanager
def no_process_left() -> Iterator[ProcessLedger]:
    """Yields a ledger to start servers through; on exit stops them all (also after a failure) and
    fails if any process they started is still running."""
    ledger = ProcessLedger()
    try:
        yield ledger
    finally:
        ledger.stop_all()
    left = still_running(ledger.signalled)
    assert not left, f"processes outlived their server: {[(p.pid, p.cmdline()) for p in left]}"
    assert ledger.signalled or not ledger.servers, "guard: stopping found the servers' processes"


def worker_environment(worker_tmp: Path, python: str = sys.executable, checkout: bool = True) -> dict[str, str]:
    """The SDK workers' environment: another TMPDIR, PYTHON's bin first on PATH (as in an image where it
    is the only Python), this checkout importable from any working directory unless ``checkout`` is
    false (workers of an installed codemix), and no AWS_* variable: the workers must reach S3 through
    the pipeline's options alone."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("AWS_", "PYTEST_"))}
    env["PATH"] = f"{Path(python).parent}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"
    if checkout:
        env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), *filter(None, [env.get("PYTHONPATH")])])
    else:
        env.pop("PYTHONPATH", None)
    env["TMPDIR"] = str(worker_tmp)
    return env


@dataclass(frozen=True)
class ObjectStore:
    """A running S3-compatible store (moto's server) on 127.0.0.1, and how to reach it."""

    s3_port: int

    @property
    def s3_endpoint(self) -> str:
        return f"http://127.0.0.1:{self.s3_port}"

    def s3_args(self) -> list[str]:
        return [f"--s3_endpoint_url={self.s3_endpoint}", f"--s3_access_key_id={S3_KEY_ID}",
                f"--s3_secret_access_key={S3_SECRET}", f"--s3_region_name={S3_REGION}"]

    def s3_env(self) -> dict[str, str]:
        """boto3's environment variables for this store (for a driver-side client or `mix` subprocess)."""
        return {"AWS_ACCESS_KEY_ID": S3_KEY_ID, "AWS_SECRET_ACCESS_KEY": S3_SECRET, "AWS_DEFAULT_REGION": S3_REGION,
                "AWS_ENDPOINT_URL_S3": self.s3_endpoint}

    def s3_client(self):
        """A boto3 S3 client on this store, independent of Beam's filesystem."""
        import boto3

        return boto3.client("s3", endpoint_url=self.s3_endpoint, aws_access_key_id=S3_KEY_ID,
                            aws_secret_access_key=S3_SECRET, region_name=S3_REGION)


@dataclass(frozen=True, kw_only=True)
class PortableCluster(ObjectStore):
    """A running job service, worker pool and object store, and how to reach them."""

    job_port: int
    worker_pool_port: int
    worker_cwd: Path
    worker_tmp: Path
    logs: Path

    def beam_args(self) -> list[str]:
        """Pipeline options for a build on this cluster, S3 credentials included (the workers get
        them only through these options, never through their environment). Python's job service
        runs each job on one SDK worker: it reads neither --sdk_worker_parallelism (only the Flink
        and Spark job servers do) nor --direct_num_workers."""
        return [
            "--runner=PortableRunner", f"--job_endpoint=127.0.0.1:{self.job_port}",
            "--environment_type=EXTERNAL", f"--environment_config=127.0.0.1:{self.worker_pool_port}",
            *self.s3_args(),
        ]


def container_boot(path: Path, python: str = sys.executable) -> Path:
    """An executable that runs sdk_worker_boot.py with PYTHON: the pool execs `--container_executable`
    as is, with the container contract's flags."""
    path.write_text(f"#!/bin/sh\nexec {shlex.quote(python)} {shlex.quote(str(BOOT))} \"$@\"\n")
    path.chmod(0o755)
    return path


def start_store(ledger: ProcessLedger, logs: Path, port: int | None = None, name: str = "moto S3 server") -> ObjectStore:
    """Starts moto's S3 server (on ``port``, or a free one) and returns once it listens."""
    port = port or free_port()
    ledger.start(name, [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)], port,
                 logs / f"{name.replace(' ', '_')}.log")
    return ObjectStore(port)


def start_cluster(ledger: ProcessLedger, root: Path, python: str | None = None) -> PortableCluster:
    """Starts moto, the job service and the worker pool under `root` (logs, staging, the workers' own
    cwd and TMPDIR) and returns once all three listen. With ``python`` (an installed codemix's
    interpreter), the job service and the workers run it, without this checkout on their path."""
    logs, worker_cwd, worker_tmp, staging = (root / name for name in ("logs", "worker-cwd", "worker-tmp", "staging"))
    for folder in (logs, worker_cwd, worker_tmp, staging):
        folder.mkdir(parents=True, exist_ok=True)
    installed = python is not None
    python = python or sys.executable
    boot = container_boot(root / "boot", python)
    store = start_store(ledger, logs)
    job_port = free_port()
    ledger.start("Beam job service", [python, "-m", "apache_beam.runners.portability.local_job_service_main",
                                      "--port", str(job_port), "--staging_dir", str(staging)],
                 job_port, logs / "job_service.log", cwd=root,
                 env=worker_environment(root, python, checkout=False) if installed else None)
    pool_port = start_worker_pool(ledger, "Beam worker pool", boot, worker_cwd, worker_tmp, logs, python,
                                  checkout=not installed)
    return PortableCluster(s3_port=store.s3_port, job_port=job_port, worker_pool_port=pool_port,
                           worker_cwd=worker_cwd, worker_tmp=worker_tmp, logs=logs)


def start_worker_pool(ledger: ProcessLedger, name: str, boot: Path, worker_cwd: Path, worker_tmp: Path,
                      logs: Path, python: str = sys.executable, checkout: bool = True) -> int:
    """Starts Beam's external worker pool on a free port (its SDK workers booted by ``boot``); returns the port."""
    port = free_port()
    ledger.start(name, [python, "-m", "apache_beam.runners.worker.worker_pool_main", "--service_port",
                        str(port), "--container_executable", str(boot)],
                 port, logs / f"{name.replace(' ', '_')}.log", cwd=worker_cwd,
                 env=worker_environment(worker_tmp, python, checkout))
    return port


# --- the corpus every portable build builds, and reading back what a build wrote ---------------------

def objects(store: ObjectStore, prefix: str) -> dict[str, bytes]:
    """Every object under s3://BUCKET/prefix, by key relative to the prefix, read with boto3."""
    client = store.s3_client()
    keys = [item["Key"] for page in client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix)
            for item in page.get("Contents", [])]
    return {key[len(prefix):]: client.get_object(Bucket=BUCKET, Key=key)["Body"].read() for key in keys}


def make_corpus(root: Path, store: ObjectStore) -> Path:
    """A source directory of real code with a planted exact duplicate, a near duplicate and an empty
    file, uploaded to S3 (workers that share no disk with the driver read their inputs from the store
    too), and a spec building its short stage from there."""
    files = {"LICENSE": MIT_LICENSE.encode(), "lib/__init__.py": b"",                               # empty file
             "vendored/shlex.py": (STDLIB / "shlex.py").read_bytes(),                               # exact duplicate
             "vendored/wrap.py": edited((STDLIB / "textwrap.py").read_text()).encode()}            # near duplicate
    for name in ("textwrap.py", "shlex.py", "fnmatch.py", "colorsys.py", "queue.py", "heapq.py"):
        files[f"lib/{name}"] = (STDLIB / name).read_bytes()
    client = store.s3_client()
    for name, data in files.items():
        client.put_object(Bucket=BUCKET, Key=f"corpus/src/{name}", Body=data)
    spec = {
        "name": "portable",
        "sources": [{"name": "code", "type": "directory", "paths": [f"s3://{BUCKET}/corpus/src"], "license": "MIT"}],
        "stages": {"short": {"sequence_length": 256, "token_budget": 20_000, "weights": {"code": 1}}},
        "tokenizer": {"vocab_size": 600, "train_sample_documents": 50},
    }
    root.mkdir(parents=True)
    path = root / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def run_mix(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """`mix` as a user runs it, in its own working directory. No AWS_* variable: the driver, like the
    workers, reaches S3 through Beam's filesystem options alone."""
    env = {**{key: value for key, value in os.environ.items() if not key.startswith("AWS_")},
           "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    result = subprocess.run([sys.executable, "-m", "codemix.mix", *args], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=480, check=False)
    assert result.returncode == 0, f"mix {' '.join(args[:3])} exited {result.returncode}:\n{result.stderr[-4000:]}"
    return result


def shard_files(files: dict[str, bytes]) -> dict[str, bytes]:
    """The Megatron shards and the tokenizer, by path relative to the build's root."""
    def is_output(name: str) -> bool:
        return name == "tokenizer.json" or (name.endswith((".bin", ".idx")) and not name.startswith("work/"))

    return {name: data for name, data in files.items() if is_output(name)}


def local_files(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in root.rglob("*") if path.is_file()}


def listing(store: ObjectStore, prefix: str) -> dict[str, float]:
    """Key (relative to the prefix) -> last-modified time in seconds, for every object under the prefix."""
    client = store.s3_client()
    return {item["Key"][len(prefix):]: item["LastModified"].timestamp()
            for page in client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix)
            for item in page.get("Contents", [])}
