"""The Beam SDK container's boot step, for the test worker pool: what `/opt/apache/beam/boot` does in
the `apache/beam_python3.11_sdk` image that a cluster's worker pool runs, less the artifact staging.

Why it is needed: Beam's worker pool started by hand (`worker_pool_main` without
`--container_executable`) runs each SDK worker as a bare `SdkHarness`, which never learns the
pipeline's options, so `FileSystems` on the worker has no S3 endpoint or credentials and Beam's own
sinks fail with "Must provide one of client or options". A real deployment's pool runs this boot
step for each worker instead: it fetches the job's provision info (the pipeline options, the
endpoints) from the runner and starts `sdk_worker_main` with them in its environment, which also sets
up the worker's `FileSystems`. Artifacts are not retrieved: the workers import this checkout (the
pool puts it on PYTHONPATH), as a cluster's image would have codemix installed.

Usage (the pool's container contract): sdk_worker_boot.py --id=ID --provision_endpoint=HOST:PORT
    [--control_endpoint=...] [--logging_endpoint=...] [--artifact_endpoint=...]
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import tempfile

import grpc
from apache_beam.portability.api import beam_provision_api_pb2, beam_provision_api_pb2_grpc
from google.protobuf import json_format, text_format


def provision_info(endpoint: str, worker_id: str) -> beam_provision_api_pb2.ProvisionInfo:
    """The runner's answer for this worker (the runner tells workers apart by the `worker_id` header)."""
    with grpc.insecure_channel(endpoint) as channel:
        stub = beam_provision_api_pb2_grpc.ProvisionServiceStub(channel)
        request = beam_provision_api_pb2.GetProvisionInfoRequest()
        return stub.GetProvisionInfo(request, metadata=[("worker_id", worker_id)], timeout=60).info


def harness_environment(info: beam_provision_api_pb2.ProvisionInfo, args: argparse.Namespace) -> dict[str, str]:
    """The variables `sdk_worker_main` reads, as the container's boot sets them."""
    env = {
        "WORKER_ID": args.id,
        "PIPELINE_OPTIONS": json_format.MessageToJson(info.pipeline_options),
        "CONTROL_API_SERVICE_DESCRIPTOR": text_format.MessageToString(info.control_endpoint)
        if info.HasField("control_endpoint") else f'url: "{args.control_endpoint}"',
        "LOGGING_API_SERVICE_DESCRIPTOR": text_format.MessageToString(info.logging_endpoint)
        if info.HasField("logging_endpoint") else f'url: "{args.logging_endpoint}"',
        "RUNNER_CAPABILITIES": " ".join(info.runner_capabilities),
        "SEMI_PERSISTENT_DIRECTORY": tempfile.mkdtemp(prefix=f"beam-worker-{args.id}-"),
    }
    if info.HasField("status_endpoint"):
        env["STATUS_API_SERVICE_DESCRIPTOR"] = text_format.MessageToString(info.status_endpoint)
    return env


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--id", required=True)
    parser.add_argument("--provision_endpoint", required=True)
    for endpoint in ("--control_endpoint", "--logging_endpoint", "--artifact_endpoint"):
        parser.add_argument(endpoint, default="")
    args = parser.parse_args(argv)
    os.environ.update(harness_environment(provision_info(args.provision_endpoint, args.id), args))
    # The harness runs in this process: the pool signals and waits for this PID. Run in place rather
    # than exec'd, it reuses the interpreter and the Beam modules already imported (a start-up per job).
    sys.argv = [sys.executable]
    runpy.run_module("apache_beam.runners.worker.sdk_worker_main", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
