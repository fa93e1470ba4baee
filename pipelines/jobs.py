"""Every Beam job a build submits is tracked: cancelled on Ctrl-C and on failure, and watched.

A portable runner (Flink, Spark, Beam's job service) or Dataflow runs a job outside this process:
left alone, a job whose driver was interrupted or failed runs on and writes into the build long
after, and a job whose workers are gone leaves the driver waiting forever. So every stage builds
its pipelines with ``Pipeline`` (a ``beam.Pipeline``): while its job runs, the services the options
name (job service, external worker pool, S3 endpoint) are probed every second, and one that has not
answered for ``stall_seconds`` ends the wait with ``ServiceLost`` naming it; on any exception
(that one, a failed job, Ctrl-C) the job is cancelled with ``PipelineResult.cancel()`` and the
driver waits, at most ``cancel_wait_seconds()``, until the runner reports it stopped. A runner that
does not confirm is recorded (``unconfirmed_cancels``): the build then says which attempt may still
receive writes, and never marks it complete. ``cancel_running()`` does the same for the interrupt
handler (``pipelines.interrupts``), from its own thread.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

import apache_beam as beam
from apache_beam.options.pipeline_options import StandardOptions, TypeOptions
from apache_beam.runners.runner import PipelineState

from codemix.pipelines import costs, sdk_workers

LOG = logging.getLogger("codemix.jobs")
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
    attempt: str = ""  # the attempt folder the stage now running writes into (``writing_into``)


@dataclass(frozen=True, slots=True)
class Unconfirmed:
    """A cancelled job whose runner did not report a terminal state in time."""

    job: str
    state: str
    attempt: str
    waited: float

    def sentence(self) -> str:
        where = f"attempt {self.attempt} may still receive writes" if self.attempt else "it may still write"
        return (f"the runner did not confirm that job {self.job} stopped ({self.state} after {self.waited:.0f} s): "
                f"{where}; it is not marked complete, and no later run reads it")


_WATCH = _Watch()
_RUNNING: list[tuple[object, str]] = []  # (PipelineResult, attempt) of jobs submitted and not finished
_UNCONFIRMED: list[Unconfirmed] = []
_LOCK = threading.Lock()


@contextlib.contextmanager
def writing_into(attempt: str) -> Iterator[None]:
    """Jobs submitted within the block write into ``attempt`` (named when a cancel is not confirmed)."""
    previous, _WATCH.attempt = _WATCH.attempt, attempt
    try:
        yield
    finally:
        _WATCH.attempt = previous


def unconfirmed_cancels() -> list[Unconfirmed]:
    with _LOCK:
        return list(_UNCONFIRMED)


def cancel_wait_seconds() -> float:
    """How long a cancel waits for the runner's confirmation: ``CANCEL_WAIT_SECONDS``, or less when the
    stall timeout is shorter (a build told to give up on a silent service within it does so on a cancel too)."""
    return min(CANCEL_WAIT_SECONDS, _WATCH.stall_seconds)


def probe_seconds(stall_seconds: float) -> float:
    """How often (and how long) a watched service is probed: a tenth of the stall timeout, at most a second."""
    return min(PROBE_SECONDS, stall_seconds / 10)


# Beam's PortableRunner threads that read a job's message and state streams: when the job service
# goes away, their broken stream ends them with a traceback that says nothing the watchdog does not.
BEAM_STREAM_THREADS = ("wait_until_finish_read", "wait_until_finish_state_observer")


def _quiet_stream_threads(previous_hook):
    def hook(args) -> None:
        if args.thread is not None and args.thread.name in BEAM_STREAM_THREADS:
            LOG.debug("Beam's %s thread ended: %s", args.thread.name, args.exc_value)
            return
        previous_hook(args)
    return hook


@contextlib.contextmanager
def watching(beam_args: list[str], stall_seconds: float = STALL_SECONDS) -> Iterator[None]:
    """Within the block, every ``Pipeline``'s job is watched for the services ``beam_args`` name."""
    previous = _WATCH.services, _WATCH.stall_seconds
    _WATCH.services, _WATCH.stall_seconds = services(beam_args), stall_seconds
    previous_hook = threading.excepthook
    threading.excepthook = _quiet_stream_threads(previous_hook)
    try:
        yield
    finally:
        _WATCH.services, _WATCH.stall_seconds = previous
        threading.excepthook = previous_hook


def job_name(result) -> str:
    """The runner's id of a submitted job (portable runners, Dataflow), else what it is."""
    found = getattr(result, "job_id", None) or getattr(result, "_job_id", None)
    with contextlib.suppress(Exception):
        found = found() if callable(found) else found
    return str(found) if found else type(result).__name__


def cancel(result, attempt: str = "", wait: float | None = None) -> bool:
    """Cancel a submitted job and wait (at most ``wait`` seconds, default ``cancel_wait_seconds()``)
    until its runner reports a terminal state; True when it did. When it does not (or cannot be
    asked), the job is recorded with the ``attempt`` it writes into (``unconfirmed_cancels``)."""
    wait = cancel_wait_seconds() if wait is None else wait
    with contextlib.suppress(Exception):
        result.cancel()
    start = time.monotonic()
    state = "no answer"
    while True:
        try:
            current = result.state
        except Exception as error:  # noqa: BLE001 - the runner is gone or refuses: it cannot confirm
            state = f"its runner did not answer: {type(error).__name__}"
            break
        if current in TERMINAL:
            return True
        state = str(current)
        if time.monotonic() - start >= wait:
            break
        time.sleep(min(0.2, wait / 10))
    with _LOCK:
        _UNCONFIRMED.append(Unconfirmed(job_name(result), state, attempt, time.monotonic() - start))
    return False


def cancel_running() -> None:
    """Cancel every job still running (the interrupt handler calls this before the process exits)."""
    with _LOCK:
        running = list(_RUNNING)
    for result, attempt in running:
        cancel(result, attempt)


def _lost(watch: _Watch, answered: dict[Service, float]) -> str | None:
    """Probes every watched service once; the message for one that has not answered since the stall
    timeout, less one probe period: the build ends within the timeout of the fault, not after it."""
    period = probe_seconds(watch.stall_seconds)
    for service in watch.services:
        if service.answers(timeout=period):
            answered[service] = time.monotonic()
        elif time.monotonic() + 2 * period - answered.setdefault(service, time.monotonic()) >= watch.stall_seconds:
            return (f"{service.name} has not answered for {watch.stall_seconds:g} s (--stall-timeout), so the "
                    "job can make no progress; it was cancelled")
    return None


def _lost_after_failure(watch: _Watch, answered: dict[Service, float]) -> str | None:
    """After a job failed: while a watched service is silent, keep probing until every one answers
    (None) or one has been silent the stall timeout (its message). A job whose worker pool dies as the
    job starts its worker fails at once, before the watchdog's wait is over; the failure is then the pool's."""
    # An answer counts from one probe period after the failure on: a killed job service breaks the
    # job's stream a moment before its listening socket closes, and a probe in between still connects.
    settled = time.monotonic() + probe_seconds(watch.stall_seconds)
    while True:
        message = _lost(watch, answered)
        if message or all(answered.get(s, 0.0) >= settled for s in watch.services):
            return message
        time.sleep(probe_seconds(watch.stall_seconds))


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
    answered = dict.fromkeys(watch.services, time.monotonic())
    period = probe_seconds(watch.stall_seconds)
    while waiter.is_alive():
        waiter.join(period)
        message = _lost(watch, answered) if waiter.is_alive() else None
        if message:
            raise ServiceLost(message)
    if outcome and outcome[0] is not None:
        message = _lost_after_failure(watch, answered)
        if message:
            raise ServiceLost(message) from outcome[0]
        raise outcome[0]


def runs_locally(options, runner=None) -> bool:
    """Whether the pipeline runs on FnApiRunner (in this process or its local workers): there a build's
    pipelines skip Beam's construction-time type inference (``--no_pipeline_type_check``). Beam infers each
    step's output type from its function's bytecode (``trivial_inference``) to check it against the next step
    and to pick the PCollection's coder: a share of the driver's CPU in every pipeline of a build
    (bench/RESULTS.md, issue 49, round 19). On FnApiRunner the coder only carries elements between this
    process and its workers (Beam's generic coder does the same), so no output changes; a remote runner keeps
    the inferred types, whose coders its shuffles use."""
    if runner is not None and not isinstance(runner, str):
        from apache_beam.runners.portability.fn_api_runner import FnApiRunner

        return isinstance(runner, FnApiRunner)
    name = runner or options.view_as(StandardOptions).runner
    return isinstance(name, str) and name.lower().removesuffix("runner") == "fnapi"


class Pipeline(beam.Pipeline):
    """``beam.Pipeline`` whose job is tracked while it runs: watched (``watching``) and cancelled
    when the wait for it ends in any exception. Inside ``sdk_workers.forked_workers()``, FnApiRunner's
    local worker processes are forked from one pre-imported server (``pipelines.sdk_workers``)."""

    def __init__(self, runner=None, options=None, argv=None, display_data=None):
        if options is not None and runs_locally(options, runner):
            options.view_as(TypeOptions).pipeline_type_check = False
        if runner is None and options is not None:
            runner = sdk_workers.runner_for(options)
        super().__init__(runner=runner, options=options, argv=argv, display_data=display_data)

    def run(self, *args, **kwargs):
        sdk_workers.pipeline_started()  # no server is forked from this process from now on
        return super().run(*args, **kwargs)

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        try:
            if not exc_type:
                self.result = self.run()
                running = (self.result, _WATCH.attempt)
                with _LOCK:
                    _RUNNING.append(running)
                try:
                    wait_watched(self.result, _WATCH)
                except BaseException:
                    cancel(*running)
                    raise
                finally:
                    with _LOCK:
                        _RUNNING.remove(running)
                costs.record(self.result)  # the per-language CPU its documents' steps counted
        finally:
            self._extra_context.__exit__(exc_type, exc_val, exc_tb)
