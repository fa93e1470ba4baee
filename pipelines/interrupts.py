"""Ctrl-C (or ``kill``) ends a build within seconds, in every running mode, without orphans.

Design notes: docs/design/pipelines.md, "pipelines/interrupts.py".
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator

import psutil

INTERRUPTED_EXIT = 130  # 128 + SIGINT
TERMINATED_EXIT = 143  # 128 + SIGTERM: what a shell, systemd or a scheduler expects of a process it stopped
STOP_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})
# The name of the thread that waits for STOP_SIGNALS within ``exit_cleanly_on_interrupt``: it holds no lock a
# forked child could need, so a driver running it may still be forked (``sdk_workers``).
WATCHER = "codemix-interrupt"
KILL_WAIT_SECONDS = 3.0


def kill_children(timeout: float = KILL_WAIT_SECONDS) -> list[int]:
    """SIGKILL every descendant of this process and wait until none runs; returns their PIDs.

    The driver keeps running while this happens and may start a worker after a listing, so the
    listing is repeated until it comes back empty. A killed grandchild stays a zombie until
    whoever inherits it reaps it; it runs no more, so it counts as gone."""
    killed: dict[int, psutil.Process] = {}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        running = [child for child in psutil.Process().children(recursive=True) if is_running(child)]
        if not running:
            break
        for child in running:
            with contextlib.suppress(psutil.Error):
                child.kill()
            killed[child.pid] = child
        time.sleep(0.02)
    return sorted(killed)


def is_running(process: psutil.Process) -> bool:
    """True while ``process`` exists and is not a zombie."""
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


Message = str | Callable[[], str]
_ACTIVE: list[tuple[Message, Callable[[], None]]] = []  # (message, before_exit) of each entered block


def exit_status(signum: int) -> int:
    """128 + the signal's number: 130 for SIGINT (Ctrl-C), 143 for SIGTERM (``kill``)."""
    return TERMINATED_EXIT if signum == signal.SIGTERM else INTERRUPTED_EXIT


def worded(message: str, signum: int) -> str:
    """``message`` with its leading "interrupted" saying what stopped the build: a SIGTERM is no Ctrl-C."""
    if signum == signal.SIGTERM and message.startswith("interrupted"):
        return "stopped by SIGTERM" + message[len("interrupted"):]
    return message


@contextlib.contextmanager
def exit_cleanly_on_interrupt(message: Message, *, before_exit: Callable[[], None] = lambda: None) -> Iterator[None]:
    """Within the block, SIGINT/SIGTERM end the process: every ``before_exit()`` (innermost first),
    child processes killed, the innermost ``message`` printed on stderr (a callable is asked at that
    moment, so it can say what the build had finished), exit status 130 (SIGINT) or 143 (SIGTERM).
    Outside the main thread this does nothing (signal masks and handlers are set from the main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _ACTIVE.append((message, before_exit))
    if len(_ACTIVE) > 1:  # the outer block's watcher serves this one too
        try:
            yield
        finally:
            _ACTIVE.pop()
        return
    previous_mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    previous_handlers = {signum: signal.signal(signum, signal.SIG_IGN) for signum in STOP_SIGNALS}
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            received = signal.sigtimedwait(STOP_SIGNALS, 0.1)
            if received is not None:
                _end(received.si_signo)

    watcher = threading.Thread(target=watch, name=WATCHER, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
        for signum, handler in previous_handlers.items():
            signal.signal(signum, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, previous_mask)
        _ACTIVE.clear()


def _end(signum: int = signal.SIGINT) -> None:
    # From here on the workers die by design: the job service relays their dying words (tracebacks of
    # the interrupt) through logging while the jobs are cancelled; none of it is news to the user.
    logging.disable(logging.CRITICAL)
    for _, before_exit in reversed(_ACTIVE):
        with contextlib.suppress(Exception):  # the display may be mid-update; exiting matters more
            before_exit()
    message = _ACTIVE[-1][0] if _ACTIVE else "interrupted"
    if callable(message):  # asked once the jobs are cancelled: it says what the build left
        try:
            message = message()
        except Exception:  # noqa: BLE001 - a message that cannot be made must not keep the process alive
            message = "interrupted"
    # Beam's threads report their killed workers with tracebacks; nobody needs to read them now.
    terminal = os.dup(2)
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
    _hold_beam_spawn_lock()
    kill_children()
    with contextlib.suppress(OSError):
        os.write(terminal, (worded(message, signum) + "\n").encode())
    os._exit(exit_status(signum))


def _hold_beam_spawn_lock() -> None:
    """Beam starts every local worker process under one lock; holding it until the exit means no
    worker can start between the last listing of children and the end of this process."""
    with contextlib.suppress(Exception):
        from apache_beam.runners.portability.fn_api_runner import worker_handlers

        worker_handlers.SUBPROCESS_LOCK.acquire(timeout=1.0)
