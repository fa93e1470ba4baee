"""FnApiRunner's local SDK workers forked from one process that has already imported Beam's worker.

``--direct_running_mode=multi_processing`` starts every SDK worker as a fresh ``python -m
apache_beam.runners.worker.sdk_worker_main``, whose imports cost ~1.8 CPU s before any work, and each
pipeline starts its own (a build runs ~7 pipelines of 2 workers). Within ``forked_workers()``, a
pipeline on that runner instead starts each worker through a small client (``sdk_worker_client``,
standard library only) that asks a fork server to
fork a worker with the client's environment, working directory and standard streams; the worker then
runs ``sdk_worker_main`` as the fresh process would. The server lives for the outermost ``with`` block
(a whole build: ``shared=True`` blocks inside it use its server) and imports, besides Beam's worker,
the modules its opener names (a build: the ``codemix`` modules its driver loaded to construct the
pipelines, which are those the workers unpickle), so no worker of any stage imports them again.
``cpu_seconds()`` counts the server and the workers it reaped, so a stage's CPU is still its own.

Design notes: docs/design/pipelines.md, "pipelines/sdk_workers.py".
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import importlib
import json
import logging
import os
import selectors
import shlex
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Iterable, Iterator

from codemix.pipelines import sdk_worker_client
from codemix.pipelines.interrupts import WATCHER
from codemix.pipelines.sdk_worker_client import LENGTH, STATUS, receive_exactly

# What the server imports once for every worker it forks: Beam's worker and the readers and writers
# every stage's pipeline uses. A worker imports anything else its DoFns need, as a fresh one would.
PRELOAD = ("apache_beam.runners.worker.sdk_worker_main", "apache_beam.io.parquetio", "pyarrow.parquet",
           "zstandard")
BEAM_WORKER_MODULE = "apache_beam.runners.worker.sdk_worker_main"
PROFILE_ENV = "CODEMIX_PROFILE_DIR"  # a directory: each forked worker writes its cProfile statistics there
_READY = b"ready\n"
SERVER_START_SECONDS = 120.0  # the server's imports, on a loaded machine
HANDSHAKE_SECONDS = 10.0  # a client's request, sent as soon as it connects

_LOGGER = logging.getLogger(__name__)
_lock = threading.Lock()
_scope: list[_Scope] = []  # the open forked_workers() blocks that own a server, innermost last
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
REAP_WAIT_SECONDS = 2.0  # how long cpu_seconds() waits for the server to reap workers that are ending


class ForkServerFailed(RuntimeError):
    """The fork server did not start; the message says why."""


class _Scope:
    """One ``forked_workers()`` block that owns a server: what the server preloads, and the server."""

    __slots__ = ("preload", "server")

    def __init__(self, preload: tuple[str, ...]):
        self.preload = preload
        self.server: _ForkServer | None = None


@contextlib.contextmanager
def forked_workers(preload: Iterable[str] = (), *, shared: bool = False, start: bool = False) -> Iterator[None]:
    """Within the block, FnApiRunner pipelines in ``multi_processing`` mode fork their SDK workers from
    one server (started when the first such pipeline runs); the server and its workers end with it.

    The server imports ``PRELOAD`` and ``preload`` (module names) before it forks any worker. A
    ``shared`` block inside another block uses that block's server (a build's stages share one);
    otherwise, and outside any block, it has a server of its own. With ``start``, the block's server is
    forked from this process at once when it is safe to (``_ForkServer.fork``): it has every module this
    process imported, so it imports only what of ``preload`` this process has not; else it starts as usual."""
    with _lock:
        owns = not (shared and _scope)
        if owns:
            _scope.append(_Scope(tuple(dict.fromkeys((*PRELOAD, *preload)))))
            if start:
                _scope[-1].server = _ForkServer.fork(_scope[-1].preload)
    try:
        yield
    finally:
        if owns:
            with _lock:
                server = _scope.pop().server
            if server is not None:
                server.stop()


def loaded_modules(package: str) -> list[str]:
    """The modules of ``package`` this process has imported, in name order: for a build, those its
    driver needed to construct the pipelines, which its workers unpickle."""
    return sorted(name for name in list(sys.modules) if name == package or name.startswith(f"{package}."))


def cpu_seconds() -> float:
    """CPU seconds (user + system) of the servers now running and of the workers they have reaped; the
    driver's own ``RUSAGE_CHILDREN`` counts them only once a server ends. Workers that are ending are
    waited for (at most ``REAP_WAIT_SECONDS``), so a pipeline that returned has all its workers counted.
    Linux's ``/proc``; elsewhere 0."""
    with _lock:
        servers = [scope.server for scope in _scope if scope.server is not None and scope.server.running()]
    return sum(server.cpu_seconds() for server in servers)


def forks_workers(options) -> bool:
    """Whether pipelines with ``options`` fork their workers inside ``forked_workers()``: FnApiRunner in
    its ``multi_processing`` mode."""
    from apache_beam.options.pipeline_options import DirectOptions, StandardOptions

    runner = options.view_as(StandardOptions).runner
    return (isinstance(runner, str) and runner.lower().removesuffix("runner") == "fnapi"
            and options.view_as(DirectOptions).direct_running_mode == "multi_processing")


def runner_for(options) -> object | None:
    """The runner a ``beam.Pipeline`` with ``options`` should use inside ``forked_workers()``: FnApiRunner
    with forked workers when the options ask for FnApiRunner's ``multi_processing`` mode; else None
    (Beam picks the runner from the options, as always)."""
    if not _scope or not forks_workers(options):
        return None
    with _lock:
        scope = _scope[-1]
        server = scope.server
        if server is None or not server.running():  # first use in the block, or the server was killed
            if server is not None:
                server.stop()
            try:
                server = scope.server = _ForkServer.start(scope.preload)
            except ForkServerFailed as failed:
                scope.server = None
                _LOGGER.warning("%s; this pipeline starts Beam's own SDK worker processes instead", failed)
                return None
    return _forked_runner(server.client_command)


def _forked_runner(client_command: str):
    from apache_beam.portability import python_urns
    from apache_beam.runners.portability.fn_api_runner import FnApiRunner
    from apache_beam.runners.portability.fn_api_runner.fn_runner import ParallelBundleManager

    class ForkedWorkersRunner(FnApiRunner):
        """FnApiRunner whose subprocess workers start through ``client_command``, and whose stages send a
        worker a bundle only when it has input for it (``BusyPartsBundleManager``)."""

        def run_via_runner_api(self, pipeline_proto, options):
            for environment in pipeline_proto.components.environments.values():
                # the payload of a subprocess environment is its command line, as bytes
                if (environment.urn == python_urns.SUBPROCESS_SDK
                        and environment.payload.decode().split()[-1:] == [BEAM_WORKER_MODULE]):
                    environment.payload = client_command.encode()
            return super().run_via_runner_api(pipeline_proto, options)

        def _get_bundle_manager(self, bundle_context_manager):
            manager = super()._get_bundle_manager(bundle_context_manager)
            if type(manager) is not ParallelBundleManager:
                return manager
            return _busy_parts_manager()(bundle_context_manager, self._progress_frequency,
                                         cache_token_generator=manager._cache_token_generator)

    return ForkedWorkersRunner()


def busy_parts(parts: list[dict[str, list[bytes]]], timers: bool) -> list[int]:
    """The indices of a stage's input parts (one per worker, as FnApiRunner partitions them) that hold any
    element, and part 0 when there are fired timers (FnApiRunner sends them to the first part only); part 0
    alone when none does, so a stage still runs once. An empty part is no chunk or only empty chunks."""
    busy = [index for index, part in enumerate(parts)
            if (index == 0 and timers) or any(chunk for chunks in part.values() for chunk in chunks)]
    return busy or [0]


def _busy_parts_manager():
    """FnApiRunner's ``ParallelBundleManager`` without its empty bundles. It splits a stage's input into one
    part per worker and sends every part as a bundle, even an empty one: a stage fed by one element (each
    file sink's initialize, pre-finalize and finalize steps, a combine's result) cost the other worker a bundle
    processor (its DoFns unpickled) and a bundle's round trips for nothing, 109 of a 2 MB build's 280 bundles
    (bench/RESULTS.md, issue 49, round 18). No codemix or Beam DoFn a build runs emits from an empty bundle
    (``finish_bundle`` flushes what ``process`` buffered), so the outputs are the same."""
    from apache_beam.portability.api import beam_fn_api_pb2
    from apache_beam.runners.portability.fn_api_runner.fn_runner import BundleManager, ParallelBundleManager
    from apache_beam.utils import thread_pool_executor

    class BusyPartsBundleManager(ParallelBundleManager):
        def process_bundle(self, inputs, expected_outputs, fired_timers, expected_output_timers, dry_run=False):
            parts: list[dict[str, list[bytes]]] = [{} for _ in range(self._num_workers)]
            for name, buffer in inputs.items():
                for index, part in enumerate(buffer.partition(self._num_workers)):
                    parts[index][name] = part
            busy = busy_parts(parts, bool(fired_timers))

            def execute(index: int):
                manager = BundleManager(self.bundle_context_manager, self._progress_frequency,
                                        cache_token_generator=self._cache_token_generator)
                return manager.process_bundle(parts[index], expected_outputs, fired_timers if index == 0 else {},
                                              expected_output_timers, dry_run)

            if len(busy) == 1:
                return execute(busy[0])
            merged, splits = None, []
            with thread_pool_executor.shared_unbounded_instance() as executor:
                for result, split in executor.map(execute, busy):  # in part order, as Beam merges them
                    splits += split
                    merged = result if merged is None else beam_fn_api_pb2.InstructionResponse(
                        process_bundle=beam_fn_api_pb2.ProcessBundleResponse(
                            monitoring_infos=_consolidated(result, merged)),
                        error=result.error or merged.error)
            return merged, splits

    return BusyPartsBundleManager


def _consolidated(result, merged):
    import itertools

    from apache_beam.metrics import monitoring_infos

    return monitoring_infos.consolidate(itertools.chain(result.process_bundle.monitoring_infos,
                                                        merged.process_bundle.monitoring_infos))


def _started(read_end: int, process: subprocess.Popen | _Child) -> bool:
    """Whether the server wrote its ready line within SERVER_START_SECONDS; if not, it is killed and reaped."""
    with os.fdopen(read_end, "rb") as ready:
        selector = selectors.DefaultSelector()
        selector.register(ready, selectors.EVENT_READ)
        answer = ready.readline() if selector.select(SERVER_START_SECONDS) else b""
    if answer == _READY:
        return True
    process.kill()
    process.wait()
    return False


class _ForkServer:
    """The server process, seen from the driver."""

    def __init__(self, process: subprocess.Popen, directory: str, path: str):
        self.process, self.directory, self.path = process, directory, path
        # -I -S: the client needs neither site-packages nor codemix, only the standard library
        self.client_command = shlex.join([sys.executable, "-I", "-S", sdk_worker_client.__file__, path])

    @classmethod
    def start(cls, preload: tuple[str, ...] = PRELOAD) -> _ForkServer:
        directory = tempfile.mkdtemp(prefix="codemix-workers-")
        path = os.path.join(directory, "fork.sock")
        read_end, write_end = os.pipe()
        process = subprocess.Popen([sys.executable, "-m", __name__, "serve", path, str(write_end), *preload],
                                   stdin=subprocess.DEVNULL, pass_fds=(write_end,))
        os.close(write_end)
        if not _started(read_end, process):
            raise ForkServerFailed(f"the SDK worker fork server did not start (exit status {process.returncode}, "
                                   "its error above)")
        return cls(process, directory, path)

    @classmethod
    def fork(cls, preload: tuple[str, ...]) -> _ForkServer | None:
        """The server forked from this process, which has imported Beam and a build's modules already (a
        spawned server imports them again: ~1-2 CPU s a build); None where that is not safe: no ``/proc``
        to check, or gRPC has started its threads here (a pipeline ran in this process), whose locks a
        forked child could inherit held. Its workers are forked from it as from a spawned server."""
        if not _threads_fork_safe():
            return None
        directory = tempfile.mkdtemp(prefix="codemix-workers-")
        path = os.path.join(directory, "fork.sock")
        read_end, write_end = os.pipe()
        with contextlib.suppress(Exception):  # what is buffered is the driver's to write, once
            sys.stdout.flush()
            sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # never returns into the driver's frames
            code = 1
            try:
                os.close(read_end)
                logging.root.handlers.clear()  # the driver's console is no worker's: as a fresh process
                logging.root.setLevel(logging.WARNING)
                serve(path, write_end, list(preload))
                code = 0
            except BaseException:  # noqa: BLE001 - reported, then the exit status
                with contextlib.suppress(Exception):
                    traceback.print_exc()
            finally:
                os._exit(code)
        os.close(write_end)
        process = _Child(pid)
        if not _started(read_end, process):
            _LOGGER.warning("the SDK worker fork server forked from the driver did not start (exit status %s); "
                            "one is started as a process of its own", process.returncode)
            return None
        return cls(process, directory, path)

    def running(self) -> bool:
        return self.process.poll() is None

    def cpu_seconds(self) -> float:
        """Its own CPU and that of the workers it reaped (``/proc/PID/stat``: utime, stime, cutime, cstime),
        once the workers that are ending have been reaped."""
        children = f"/proc/{self.process.pid}/task/{self.process.pid}/children"
        deadline = time.monotonic() + REAP_WAIT_SECONDS
        with contextlib.suppress(OSError):
            while time.monotonic() < deadline and _read(children).strip():
                time.sleep(0.01)
        try:
            fields = _read(f"/proc/{self.process.pid}/stat").rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return 0.0
        return sum(int(value) for value in fields[11:15]) / _TICKS  # fields 14-17 of stat(5)

    def stop(self) -> None:
        """Ends the server, which kills any worker still running, and reaps it."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        with contextlib.suppress(OSError):
            os.rmdir(self.directory)


class _Child:
    """A forked child, with what ``_ForkServer`` asks of a ``subprocess.Popen``."""

    def __init__(self, pid: int):
        self.pid, self.returncode = pid, None

    def poll(self) -> int | None:
        if self.returncode is None:
            with contextlib.suppress(ChildProcessError):
                pid, status = os.waitpid(self.pid, os.WNOHANG)
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(f"pid {self.pid}", timeout)
            time.sleep(0.01)
        return self.returncode

    def terminate(self) -> None:
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        self._signal(signal.SIGKILL)

    def _signal(self, signum: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signum)


# Threads of a process that a forked child may do without: the process's own (Python's, which the child
# recreates as it needs) and jemalloc's (pyarrow), which the spawned server has too when it forks workers.
FORK_SAFE_THREADS = ("jemalloc_bg_thd",)


_pipeline_ran = False


def pipeline_started() -> None:
    """Called as a pipeline starts in this process (``jobs.Pipeline``): from then on, no server is forked from it."""
    global _pipeline_ran
    _pipeline_ran = True


def _threads_fork_safe() -> bool:
    """Whether this process may be forked into a server: no pipeline has run in it (``pipeline_started``; a test
    process whose earlier pipelines had ended, their gRPC threads gone, hung its forked server's workers), it runs no
    Python thread but the main one and the interrupt watcher (``interrupts.WATCHER``: ``mix build`` runs in its
    block, and it only waits for signals), and every other thread is one a forked child may lose
    (``FORK_SAFE_THREADS``, or native ones named as the process is); False without ``/proc`` or once gRPC
    (``grpc_*``, ``event_engine``) runs."""
    main = threading.main_thread()
    if _pipeline_ran or any(thread is not main and thread.name != WATCHER for thread in threading.enumerate()):
        return False
    try:
        own = _read("/proc/self/comm").strip()
        names = {_read(f"/proc/self/task/{task}/comm").strip() for task in os.listdir("/proc/self/task")}
    except OSError:
        return False
    return names <= {own, *FORK_SAFE_THREADS}


def _read(path: str) -> str:
    with open(path) as handle:
        return handle.read()


# ------------------------------------------------------------------ the server process

def _die_with_parent() -> None:
    """SIGTERM this process when the driver that started it dies (Linux), so a killed driver leaves no server."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def serve(path: str, ready_fd: int, preload: list[str]) -> None:
    _die_with_parent()
    parent = os.getppid()
    # The driver blocks SIGINT/SIGTERM in its threads while a build runs (pipelines.interrupts) and a
    # child inherits that mask: unblocked here, or the driver's terminate() would not reach the server.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGCHLD})
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C: the driver decides; the workers get their own
    for module in preload:
        importlib.import_module(module)
    # What the imports made lives as long as every worker: out of the collector's reach (a full collection
    # in a worker would otherwise walk every inherited object, ~0.1 CPU s each time, and copy their pages).
    gc.collect()
    gc.freeze()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes the loop through the wakeup fd
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    os.write(ready_fd, _READY)
    os.close(ready_fd)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(wake_read, selectors.EVENT_READ)
    workers: dict[int, socket.socket] = {}  # worker pid -> its client's connection
    while not stopping and os.getppid() == parent:
        for key, _ in selector.select(timeout=1.0):
            if key.fileobj is listener:
                connection, _ = listener.accept()
                pid = _fork_worker(connection, listener, selector, wake_read, wake_write, workers)
                if pid is None:
                    connection.close()
                    continue
                workers[pid] = connection
                selector.register(connection, selectors.EVENT_READ, pid)
            elif key.fileobj == wake_read:
                os.read(wake_read, 4096)
            else:  # a client's connection readable: it closed, so its worker must go too
                selector.unregister(key.fileobj)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(key.data, signal.SIGKILL)
        _reap(workers, selector)
    for pid in workers:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    while workers:
        pid, _ = os.waitpid(-1, 0)
        workers.pop(pid, None)


def _reap(workers: dict[int, socket.socket], selector) -> None:
    """Tells each exited worker's client its exit status (negative: the signal that ended it)."""
    while workers:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        connection = workers.pop(pid, None)
        if connection is None:
            continue
        with contextlib.suppress(KeyError):  # already unregistered when its client went first
            selector.unregister(connection)
        with contextlib.suppress(OSError):
            connection.sendall(STATUS.pack(os.waitstatus_to_exitcode(status)))
        connection.close()


def _fork_worker(connection: socket.socket, *inherited) -> int | None:
    """Forks a worker for the client on ``connection``: its request, then its standard streams."""
    connection.settimeout(HANDSHAKE_SECONDS)  # a client that connects and sends nothing must not stall the server
    fds: list[int] = []
    try:
        header, fds, _, _ = socket.recv_fds(connection, LENGTH.size, 3)
        (length,) = LENGTH.unpack(header)
        request = json.loads(receive_exactly(connection, length))
        if len(fds) != 3:
            raise ValueError("a request comes with three standard streams")
    except (OSError, ValueError, struct.error):
        for fd in fds:
            os.close(fd)
        return None
    connection.settimeout(None)
    pid = os.fork()
    if pid == 0:
        _run_worker(request, fds, connection, inherited)
    for fd in fds:
        os.close(fd)
    return pid


def _run_worker(request: dict, fds: list[int], connection: socket.socket, inherited) -> None:
    """In the forked child: become the worker the client would have started, then exit."""
    code = 1
    try:
        # First the client's signal mask (a build's driver blocks SIGINT/SIGTERM, and Beam's workers inherit
        # that), and only then the default handlers: a Ctrl-C in between stays with the server's SIG_IGN.
        signal.pthread_sigmask(signal.SIG_SETMASK, request["blocked"])
        signal.set_wakeup_fd(-1)
        for signum in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        listener, selector, wake_read, wake_write, workers = inherited
        selector.close()
        listener.close()
        connection.close()
        for other in workers.values():  # other workers' clients must see the server's end alone
            other.close()
        os.close(wake_read)
        os.close(wake_write)
        with contextlib.suppress(Exception):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # ends with the server
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        sys.argv = [BEAM_WORKER_MODULE]
        _profiled(importlib.import_module(BEAM_WORKER_MODULE).main, sys.argv)
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    except KeyboardInterrupt:  # Ctrl-C reached a worker whose client does not block it: the build reports it
        code = 128 + signal.SIGINT
    except BaseException:  # noqa: BLE001 - reported as the worker's own failure, then the exit status
        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _profiled(main, argv: list[str]) -> None:
    """Run the worker's ``main``; with ``CODEMIX_PROFILE_DIR`` set, under cProfile, its statistics written
    there as ``worker-PID.prof`` when the worker ends. Beam runs bundles on its own thread pool, so each
    work item of that pool is profiled too (one profile per thread, merged into the file). The clock is each
    thread's CPU time: on a shared machine a wall clock charges a function for the time it waited for a core
    (bench/RESULTS.md, issue 49, round 17)."""
    directory = os.environ.get(PROFILE_ENV)
    if not directory:
        main(argv)
        return
    import cProfile
    import pstats

    from apache_beam.utils import thread_pool_executor

    profiles, local, run = [], threading.local(), thread_pool_executor._WorkItem.run

    def profiled_run(item) -> None:
        if not hasattr(local, "profile"):
            local.profile = cProfile.Profile(time.thread_time)
            profiles.append(local.profile)
        local.profile.enable()
        try:
            run(item)
        finally:
            local.profile.disable()

    thread_pool_executor._WorkItem.run = profiled_run
    main_profile = cProfile.Profile(time.thread_time)
    try:
        main_profile.runcall(main, argv)
    finally:
        stats = pstats.Stats(main_profile)
        for profile in profiles.copy():  # the pool's threads may still be adding theirs
            with contextlib.suppress(TypeError):  # a profile that recorded nothing
                stats.add(profile)
        stats.dump_stats(os.path.join(directory, f"worker-{os.getpid()}.prof"))


# ------------------------------------------------------------------ the command line

def main(argv: list[str]) -> int:
    if argv[:1] == ["serve"]:
        serve(argv[1], int(argv[2]), argv[3:])
        return 0
    if argv[:1] == ["connect"]:
        return sdk_worker_client.main(argv[1:])
    print(f"usage: python -m {__name__} serve PATH READY_FD [MODULE ...] | connect PATH", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
