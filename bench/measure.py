"""Child processes measured from outside: wall time, and each process of the tree polled for RSS
and CPU seconds (Beam's SDK workers and datatrove's forkserver pool are not all reaped by the child,
so the child's rusage would miss them)."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

POLL_SECONDS = 0.1


def process_label(process: psutil.Process, root: psutil.Process) -> str:
    """A short name for a process of the tree: the driver, a Beam SDK worker, or its command."""
    if process.pid == root.pid:
        return "driver"
    command = " ".join(process.cmdline())
    if "sdk_worker" in command or "worker_pool_main" in command:
        return "Beam SDK worker"
    if "forkserver" in command:  # datatrove's pool workers are forked from multiprocess's forkserver
        return "multiprocess forkserver or pool worker"
    return command[:60]


@dataclass(slots=True)
class TreeSamples:
    """What polling a process tree has seen so far, per pid."""

    peaks: dict[int, int] = field(default_factory=dict)  # peak RSS, bytes
    cpu: dict[int, float] = field(default_factory=dict)  # user + system seconds at the last poll
    labels: dict[int, str] = field(default_factory=dict)
    tree_peak: int = 0


def sample(process: psutil.Process, root: psutil.Process, seen: TreeSamples) -> int:
    """Record one process's RSS and CPU time; returns its RSS (0 if it is gone)."""
    try:
        with process.oneshot():
            rss, times = process.memory_info().rss, process.cpu_times()
        if process.pid not in seen.labels:
            seen.labels[process.pid] = process_label(process, root)
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return 0
    seen.peaks[process.pid] = max(seen.peaks.get(process.pid, 0), rss)
    seen.cpu[process.pid] = times.user + times.system
    return rss


def poll_tree(root: psutil.Process, seen: TreeSamples, stop: threading.Event) -> None:
    """Sample every process of the tree each ``POLL_SECONDS`` until ``stop``."""
    while not stop.is_set():
        try:
            processes = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return
        seen.tree_peak = max(seen.tree_peak, sum(sample(process, root, seen) for process in processes))
        stop.wait(POLL_SECONDS)


@dataclass(slots=True, kw_only=True)
class PolledRun:
    """A child run's exit code, wall seconds, load average before and after, pid and tree samples."""

    code: int
    wall: float
    load: tuple[float, float]
    pid: int
    seen: TreeSamples


def run_polled(argv: list[str], log: Path, env: dict[str, str] | None = None) -> PolledRun:
    """Run ``argv`` (with ``env`` added to the environment) with output to ``log``, polling its process
    tree for RSS and CPU until it ends."""
    seen, stop = TreeSamples(), threading.Event()
    load_before, start = os.getloadavg()[0], time.perf_counter()
    with log.open("w") as out:
        child = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
        poller = threading.Thread(target=poll_tree, args=(psutil.Process(child.pid), seen, stop))
        poller.start()
        code = child.wait()
    wall = time.perf_counter() - start
    stop.set()
    poller.join()
    return PolledRun(code=code, wall=wall, load=(load_before, os.getloadavg()[0]), pid=child.pid, seen=seen)
