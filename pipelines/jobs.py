"""Every Beam job a build submits is tracked: cancelled on Ctrl-C and on failure, and watched.

A portable runner (Flink, Spark, Beam's job service) or Dataflow runs a job outside this process:
left alone, a job whose driver was interrupted or failed runs on and writes into the build long
after, and a job whose workers are gone leaves the driver waiting forever. So every stage builds
its pipelines with ``Pipeline`` (a ``beam.Pipeline``): while its job runs, the services the options
name (job service, external worker pool, S3 endpoint) are probed every second, and one that has not
answered for ``stall_seconds`` ends the wait with ``ServiceLost`` naming it; on any exception
(that one, a failed job, Ctrl-C) the job is cancelled with ``PipelineResult.cancel()`` and the
driver waits, briefly, until the runner reports it stopped. ``cancel_running()`` does the same
for the interrupt handler (``pipelines.interrupts``), from its own thread.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

import apache_beam as beam
from apache_beam.runners.runner import PipelineState

from codemix.pipelines import sdk_workers

STALL_SECONDS = 60.0  # the default of ``mix build --stall-timeout``
CANCEL_WAIT_SECONDS = 10.0
PROBE_SECONDS = 1.0
TERMINAL = frozenset({PipelineState.DONE, PipelineState.FAILED, PipelineState.CANCELLED, PipelineState.STOPPED,
                      PipelineState.UPDATED, PipelineState.DRAINED})


@dataclass(frozen=True, slots=True)
class Service:
    """Something a running job needs that the driver can reach: a name for messages, and an address."""

    name: str
    host: str
    port: int

    def answers(self, timeout: float = PROBE_SECONDS) -> bool:
        with contextlib.suppress(OSError), socket.create_connection((self.host, self.port), timeout=timeout):
            return True
        return False


class ServiceLost(RuntimeError):
    """A service a job needs stopped answering; its job was cancelled."""


def _address(value: str) -> tuple[str, int] | None:
    parts = urlsplit(value if "://" in value else f"//{value}")
    try:
        return (parts.hostname, parts.port) if parts.hostname and parts.port else None
    except ValueError:
        return None


def _option(beam_args: list[str], name: str) -> str | None:
    for i, arg in enumerate(beam_args):
        if arg.startswith(f"--{name}="):
            return arg.split("=", 1)[1]
        if arg == f"--{name}" and i + 1 < len(beam_args):
            return beam_args[i + 1]
    return None


# (option, what it names): the services whose address a build's options give.
SERVICE_OPTIONS = (("job_endpoint", "the Beam job service"), ("environment_config", "the Beam worker pool"),
                   ("s3_endpoint_url", "the S3 endpoint"))


def services(beam_args: list[str]) -> tuple[Service, ...]:
    """The services ``beam_args`` name by address (an EXTERNAL environment's config is a worker pool)."""
    found = []
    for option, what in SERVICE_OPTIONS:
        value = _option(beam_args, option)
        if option == "environment_config" and (_option(beam_args, "environment_type") or "").upper() != "EXTERNAL":
            continue
        address = _address(value) if value else None
        if address:
            found.append(Service(f"{what} at {value} (--{option})", *address))
    return tuple(found)


@dataclass(slots=True)
class _Watch:
    services: tuple[Service, ...] = ()
    stall_seconds: float = STALL_SECONDS


_WATCH = _Watch()
_RUNNING: list = []  # PipelineResults of jobs submitted and not finished
_LOCK = threading.Lock()


@contextlib.contextmanager
def watching(beam_args: list[str], stall_seconds: float = STALL_SECONDS) -> Iterator[None]:
    """Within the block, every ``Pipeline``'s job is watched for the services ``beam_args`` name."""
    previous = _WATCH.services, _WATCH.stall_seconds
    _WATCH.services, _WATCH.stall_seconds = services(beam_args), stall_seconds
    try:
        yield
    finally:
        _WATCH.services, _WATCH.stall_seconds = previous


def cancel(result, wait: float = CANCEL_WAIT_SECONDS) -> None:
    """Cancel a submitted job and wait (at most ``wait`` seconds) until its runner says it stopped."""
    with contextlib.suppress(Exception):
        result.cancel()
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            if result.state in TERMINAL:
                return
        except Exception:  # noqa: BLE001 - the runner is gone or refuses: nothing more to wait for
            return
        time.sleep(0.2)


def cancel_running() -> None:
    """Cancel every job still running (the interrupt handler calls this before the process exits)."""
    with _LOCK:
        running = list(_RUNNING)
    for result in running:
        cancel(result)


def _lost(watch: _Watch, silent_since: dict[Service, float]) -> str | None:
    """Probes every watched service once; the message for one silent for ``stall_seconds``, else None."""
    now = time.monotonic()
    for service in watch.services:
        if service.answers():
            silent_since.pop(service, None)
        elif now - silent_since.setdefault(service, now) >= watch.stall_seconds:
            return (f"{service.name} has not answered for {watch.stall_seconds:.0f} s, so the job can make no "
                    "progress; it was cancelled")
    return None


def _lost_after_failure(watch: _Watch, silent_since: dict[Service, float]) -> str | None:
    """After a job failed: while a watched service is silent, keep probing until it answers (None) or
    has been silent ``stall_seconds`` (its message). A job whose worker pool dies as the job starts
    its worker fails at once, before the watchdog's wait is over; the failure is then the pool's."""
    while True:
        message = _lost(watch, silent_since)
        if message or not silent_since:
            return message
        time.sleep(PROBE_SECONDS)


def wait_watched(result, watch: _Watch) -> None:
    """``result.wait_until_finish()``, ended with ``ServiceLost`` when a watched service stays silent
    (also when the job failed while one was silent)."""
    if not watch.services:
        result.wait_until_finish()
        return
    outcome: list[BaseException | None] = []

    def wait() -> None:
        try:
            result.wait_until_finish()
            outcome.append(None)
        except BaseException as error:  # noqa: BLE001 - handed to the driver's thread, which raises it
            outcome.append(error)

    waiter = threading.Thread(target=wait, name="codemix-job-wait", daemon=True)
    waiter.start()
    silent_since: dict[Service, float] = {}
    while waiter.is_alive():
        waiter.join(PROBE_SECONDS)
        message = _lost(watch, silent_since) if waiter.is_alive() else None
        if message:
            raise ServiceLost(message)
    if outcome and outcome[0] is not None:
        message = _lost_after_failure(watch, silent_since)
        if message:
            raise ServiceLost(message) from outcome[0]
        raise outcome[0]


class Pipeline(beam.Pipeline):
    """``beam.Pipeline`` whose job is tracked while it runs: watched (``watching``) and cancelled
    when the wait for it ends in any exception. Inside ``sdk_workers.forked_workers()``, FnApiRunner's
    local worker processes are forked from one pre-imported server (``pipelines.sdk_workers``)."""

    def __init__(self, runner=None, options=None, argv=None, display_data=None):
        if runner is None and options is not None:
            runner = sdk_workers.runner_for(options)
        super().__init__(runner=runner, options=options, argv=argv, display_data=display_data)

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        try:
            if not exc_type:
                self.result = self.run()
                with _LOCK:
                    _RUNNING.append(self.result)
                try:
                    wait_watched(self.result, _WATCH)
                except BaseException:
                    cancel(self.result)
                    raise
                finally:
                    with _LOCK:
                        _RUNNING.remove(self.result)
        finally:
            self._extra_context.__exit__(exc_type, exc_val, exc_tb)
