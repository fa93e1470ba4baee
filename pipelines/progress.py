"""Progress of a build: what workers report, and the display the driver draws from it.

Workers (in-process, in local worker processes or threads) report counts per step with ``report``;
a report goes to a small JSON file per process under the folder named by ``CODEMIX_PROGRESS_DIR``,
rewritten at most every ``FLUSH_SECONDS``. The driver (``BuildDisplay``) gives each stage a fresh
folder, sums the files a few times a second and draws, with ``rich``, "stage k of n" and a bar per
stage: documents, bytes, rate and an ETA from the stage's expected input (known from Parquet
footers, or from the input fingerprints for the crawl). Steps that run in the driver (sampling and
training the tokenizer) advance their bar directly; dedup's passes show as the stage's status line
(its ``pipelines.dedup`` log messages). A runner whose workers run elsewhere (Dataflow) writes no
reports there; its stages still show their state and time.

Without a terminal (CI, a log file) nothing is drawn: the driver prints one line per stage event.
Each worker also logs records/s, MB/s and an ETA every ``LOG_EVERY_SECONDS`` at INFO (``mix -v``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator

import apache_beam as beam

LOG = logging.getLogger("codemix.progress")
LOG_EVERY_SECONDS = 10.0
FLUSH_SECONDS = 0.5
POLL_SECONDS = 0.25
ENV = "CODEMIX_PROGRESS_DIR"
STATUS_CHARS = 44
COUNTS_CHARS = 60
# How the display names the steps a stage reports besides the one its bar counts.
STEP_LABELS = {"crawl": "kept", "filter": "filtered", "shards": "queued", "merged": "shards merged", "read": "read"}


# --- worker side -----------------------------------------------------------------------------------

class _Reporter:
    """This process's counts per step, flushed to ``$CODEMIX_PROGRESS_DIR/<pid>-<id>.json``.

    The folder is read from the environment on every call: the driver sets a new one per stage, and
    an in-process runner shares the driver's environment (local worker processes inherit it).
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._folder: str | None = None
        self._counts: dict[str, list[int]] = {}
        self._last_flush = 0.0
        self._name = f"{os.getpid()}-{uuid.uuid4().hex[:8]}.json"

    def add(self, step: str, records: int, nbytes: int) -> None:
        folder = os.environ.get(ENV)
        if not folder:
            return
        with self._lock:
            if folder != self._folder:  # a new stage: start counting afresh
                self._folder, self._counts = folder, {}
            counts = self._counts.setdefault(step, [0, 0])
            counts[0] += records
            counts[1] += nbytes
            if time.monotonic() - self._last_flush >= FLUSH_SECONDS:
                self._flush_locked()

    def flush(self) -> None:
        with self._lock:
            self._flush_locked()

    def _flush_locked(self) -> None:
        if not self._folder or not os.path.isdir(self._folder):
            return
        self._last_flush = time.monotonic()
        path = os.path.join(self._folder, self._name)
        with contextlib.suppress(OSError):  # progress must never fail a bundle
            with open(path + ".tmp", "w") as handle:
                json.dump(self._counts, handle)
            os.replace(path + ".tmp", path)


_REPORTER = _Reporter()


def report(step: str, records: int = 1, nbytes: int = 0) -> None:
    """Count ``records`` (and ``nbytes``) done in ``step``; a no-op unless the driver asked for reports."""
    _REPORTER.add(step, records, nbytes)


def flush() -> None:
    _REPORTER.flush()


def read_reports(folder: str) -> dict[str, tuple[int, int]]:
    """Sum of every process's counts in ``folder``: step -> (records, bytes)."""
    totals: dict[str, list[int]] = {}
    with contextlib.suppress(OSError):
        for name in os.listdir(folder):
            if not name.endswith(".json"):
                continue
            try:
                with open(os.path.join(folder, name)) as handle:
                    counts = json.load(handle)
            except (OSError, ValueError):
                continue  # being replaced right now; the next poll reads it
            for step, (records, nbytes) in counts.items():
                total = totals.setdefault(step, [0, 0])
                total[0] += records
                total[1] += nbytes
    return {step: (records, nbytes) for step, (records, nbytes) in totals.items()}


class Progress(beam.DoFn):
    """Passes elements through unchanged, reporting them to the driver's display and logging the
    rate this worker sees them at.

    ``size_of`` maps an element to bytes. With ``expected`` (the stage's input count, known from
    Parquet footers) and ``workers``, the log line also has an ETA, assuming work is spread evenly.
    """

    def __init__(self, stage: str, size_of=None, *, expected: int | None = None, workers: int = 1):
        self._stage = stage
        self._size_of = size_of
        self._share = expected / max(workers, 1) if expected else None

    def setup(self):
        self._start = time.monotonic()
        self._last_log = self._start
        self._records = 0
        self._bytes = 0

    def process(self, element):
        size = self._size_of(element) if self._size_of is not None else 0
        self._records += 1
        self._bytes += size
        report(self._stage, 1, size)
        now = time.monotonic()
        if now - self._last_log >= LOG_EVERY_SECONDS:
            self._last_log = now
            elapsed = max(now - self._start, 1e-9)
            rate = self._records / elapsed
            eta = f", ETA {eta_text((self._share - self._records) / rate)}" if self._share else ""
            LOG.info("[%s] %s records (%.0f/s), %.1f MB (%.2f MB/s)%s", self._stage, f"{self._records:,}",
                     rate, self._bytes / 1e6, self._bytes / 1e6 / elapsed, eta)
        yield element

    def finish_bundle(self):
        flush()


def eta_text(seconds: float) -> str:
    seconds = max(seconds, 0)
    return f"{seconds / 3600:.1f}h" if seconds >= 3600 else f"{seconds / 60:.0f}m{seconds % 60:02.0f}s"


# --- driver side -----------------------------------------------------------------------------------

class _StatusFromLogs(logging.Handler):
    """Shows a stage's own INFO messages (dedup's passes) as its status line, not as log lines."""

    def __init__(self, display: BuildDisplay):
        super().__init__(logging.INFO)
        self._display = display

    def emit(self, record: logging.LogRecord) -> None:
        self._display.status(record.getMessage().split("; ")[0])


@contextlib.contextmanager
def _routed_to_status(logger: logging.Logger, handler: logging.Handler) -> Iterator[None]:
    """``logger``'s INFO messages go to ``handler`` only, for the duration."""
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate


class BuildDisplay:
    """Stage k of n, a bar per stage, and driver-side steps; plain lines when not on a terminal.

    ``stage(name, expected=..., step=...)`` wraps one stage: the bar counts the worker reports of
    ``step`` (default: the stage's name) against ``expected``. ``echo`` prints a line above the bars.
    """

    def __init__(self, stages: list[str], *, live: bool, echo: Callable[[str], None] = print):
        self._stages, self._live, self._plain_echo = stages, live, echo
        self._progress = None
        self._task = None
        self._reused = ""  # the status of a reused stage
        self._stop = threading.Event()
        self._poller: threading.Thread | None = None
        if live:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                Progress,
                SpinnerColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(
                SpinnerColumn(), TextColumn("{task.description:<22}"), BarColumn(bar_width=30),
                TextColumn("{task.fields[counts]}"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                TextColumn("[dim]{task.fields[status]}"), console=Console(stderr=True), transient=False,
                refresh_per_second=4)
            self._progress.start()

    def echo(self, line: str) -> None:
        if self._progress is not None:
            self._progress.console.print(line, markup=False, highlight=False)
        else:
            self._plain_echo(line)

    def mark_reused(self, status: str = "reused from the interrupted run") -> None:
        """The current stage was reused from an earlier run: its bar says ``status`` instead of "done"."""
        self._reused = status

    def status(self, text: str) -> None:
        """A short line beside the current stage's bar (cut, so the bars keep their width)."""
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, status=text if len(text) <= STATUS_CHARS else text[:STATUS_CHARS - 1] + "…")

    @contextlib.contextmanager
    def stage(self, name: str, *, expected: int | None = None, step: str | None = None, unit: str = "docs",
              status_logger: str | None = None) -> Iterator[None]:
        """Draw stage ``name`` while the body runs; workers' reports of ``step`` advance its bar, and the
        INFO messages of ``status_logger`` (e.g. dedup's passes) become its status line."""
        k = self._stages.index(name) + 1 if name in self._stages else len(self._stages)
        folder = tempfile.mkdtemp(prefix=f"codemix-progress-{name}-")
        previous = os.environ.get(ENV)
        os.environ[ENV] = folder
        restore_logger = contextlib.nullcontext()
        if self._progress is not None:
            self._task = self._progress.add_task(f"[{k}/{len(self._stages)}] {name}", total=expected,
                                                 counts="", status="")
            if status_logger:
                restore_logger = _routed_to_status(logging.getLogger(status_logger), _StatusFromLogs(self))
            self._start_polling(folder, step or name, unit)
        try:
            with restore_logger:
                yield
        finally:
            self._stop_polling()
            if previous is None:
                os.environ.pop(ENV, None)
            else:
                os.environ[ENV] = previous
            if self._progress is not None and self._task is not None:
                self._show(read_reports(folder), step or name, unit)
                task = next(t for t in self._progress.tasks if t.id == self._task)
                done = max(task.completed, 1)
                self._progress.update(self._task, total=done, completed=done,
                                      status=self._reused or "done")
                self._progress.stop_task(self._task)
                self._task = None
            self._reused = ""
            shutil.rmtree(folder, ignore_errors=True)

    def _start_polling(self, folder: str, step: str, unit: str) -> None:
        self._stop.clear()

        def poll() -> None:
            while not self._stop.wait(POLL_SECONDS):
                self._show(read_reports(folder), step, unit)

        self._poller = threading.Thread(target=poll, name="codemix-progress", daemon=True)
        self._poller.start()

    def _stop_polling(self) -> None:
        self._stop.set()
        if self._poller is not None:
            self._poller.join()
            self._poller = None

    def _show(self, reports: dict[str, tuple[int, int]], step: str, unit: str) -> None:
        if self._task is None or not reports:
            return  # nothing reported (yet, or ever: driver-side work and remote workers)
        records, nbytes = reports.get(step, (0, 0))
        extra = [f"{n:,} {STEP_LABELS.get(s, s)}" for s, (n, _) in sorted(reports.items()) if s != step]
        counts = f"{records:,} {unit}, {nbytes / 1e6:,.1f} MB" + (f" ({', '.join(extra)})" if extra else "")
        counts = counts if len(counts) <= COUNTS_CHARS else counts[:COUNTS_CHARS - 1] + "…"
        self._progress.update(self._task, completed=records, counts=counts)

    def counted(self, items: Iterable, *, label: str, total: int | None) -> Iterator:
        """``items`` passed through, advancing the current stage's bar (driver-side work)."""
        if self._task is not None:
            self._progress.update(self._task, total=total, completed=0, status=label)
        for n, item in enumerate(items, 1):
            if self._task is not None and (n % 64 == 0 or n == total):
                self._progress.update(self._task, completed=n, counts=f"{n:,} docs")
            yield item

    def close(self) -> None:
        self._stop_polling()
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
