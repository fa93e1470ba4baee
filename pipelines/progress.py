"""Progress of a build: what workers report, and the display the driver draws from it.

Workers (in-process, in local worker processes or threads) report counts per step with ``report``;
a report goes to a small JSON file per process under the folder named by ``CODEMIX_PROGRESS_DIR``,
rewritten at most every ``FLUSH_SECONDS``. The driver (``BuildDisplay``) gives each stage a fresh
folder, sums the files a few times a second and draws, with ``rich``, "stage k of n" and a bar per
stage: documents, bytes, rate and an ETA from the stage's expected input (known from Parquet
footers, or from the input fingerprints for the crawl); the ETA is the rate of the last
``ETA_WINDOW_SECONDS`` (``RateWindow``), and the columns are sized to the terminal (``Layout``: below
``WIDE_COLUMNS``, counts in k/M with the other steps and the status on lines under the bar, so no
number is cut at 80 columns). Steps that run in the driver (sampling and
training the tokenizer) advance their bar directly; dedup's passes show as the stage's status line
(its ``pipelines.dedup`` log messages). A runner whose workers run elsewhere (Dataflow) writes no
reports there; its stages still show their state and time.

Without a terminal (CI, a log file) nothing is drawn: the driver prints one line per stage event.
Each worker also logs records/s, MB/s and an ETA every ``LOG_EVERY_SECONDS`` at INFO (``mix -v``).
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import json
import logging
import os
import re
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
# Below this many columns the display is narrow: shorter bars, counts in k/M, status on a second line.
WIDE_COLUMNS = 140
ETA_WINDOW_SECONDS = 20.0  # the ETA is the rate over the last this-many seconds, not since the start
ETA_MIN_SPAN_SECONDS = 0.5  # and none until the window holds this long a stretch (two polls: a rate)
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


def doc_text_bytes(doc) -> int:
    """A ``Document``'s text length, defined here rather than in the build driver so that a worker
    unpickling a ``Progress`` imports this small module, not the driver and everything it imports."""
    return len(doc.text)


def row_text_bytes(row: dict) -> int:
    """A Parquet document row's text length (what a ``Progress`` over rows counts as bytes)."""
    return len(row.get("text") or "")


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


def eta_text(seconds: float | None) -> str:
    """``75`` -> ``1m15s``, ``7200`` -> ``2.0h``; ``None`` (no honest estimate yet) -> ``--``."""
    if seconds is None:
        return "--"
    if seconds >= 3600:
        return f"{seconds / 3600:.1f}h"
    minutes, rest = divmod(round(max(seconds, 0)), 60)
    return f"{minutes}m{rest:02d}s"




# --- driver side -----------------------------------------------------------------------------------

class RateWindow:
    """The rate of the last ``window`` seconds, for an ETA that follows what a stage does now: the
    first seconds (workers starting, a burst of small bundles) drop out of it, and a stall shows as a
    growing ETA. ``add(t, done)`` takes a sample (``t`` from any clock); no estimate until the
    samples span ``min_span`` seconds."""

    def __init__(self, window: float = ETA_WINDOW_SECONDS, min_span: float = ETA_MIN_SPAN_SECONDS):
        self.window, self.min_span = window, min_span
        self._samples: collections.deque[tuple[float, int]] = collections.deque()

    def add(self, t: float, done: int) -> None:
        self._samples.append((t, done))
        # Keep one sample at or before the window's start, so the rate spans the whole window.
        while len(self._samples) > 2 and self._samples[1][0] <= t - self.window:
            self._samples.popleft()

    def rate(self) -> float | None:
        """Units per second over the window, or None while it spans less than ``min_span``."""
        if len(self._samples) < 2:
            return None
        (t0, done0), (t1, done1) = self._samples[0], self._samples[-1]
        return (done1 - done0) / (t1 - t0) if t1 - t0 >= self.min_span else None

    def eta(self, total: int | None) -> float | None:
        """Seconds until ``total`` at the window's rate; None when unknown (no total, too early, stalled)."""
        rate = self.rate()
        if total is None or not rate or rate <= 0:
            return None
        return max(total - self._samples[-1][1], 0) / rate


def compact(n: float) -> str:
    """A count in at most five characters: ``999``, ``12.3k``, ``4.56M``."""
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= limit:
            value = n / limit
            return f"{value:.2f}{suffix}" if value < 10 else f"{value:.1f}{suffix}" if value < 100 else \
                f"{value:.0f}{suffix}"
    return f"{n:.0f}"


def counts_text(records: int, nbytes: int, unit: str, extra: list[tuple[str, int]], width: int, *,
                narrow: bool) -> str:
    """What a bar's counts column says, within ``width`` characters without cutting a number: the
    bar's count (narrow: in k/M) and MB, then as many of the other steps' counts as fit."""
    if narrow:
        first = f"{compact(records)} {unit}" + (f" {compact(nbytes / 1e6)}MB" if nbytes else "")
    else:
        first = f"{records:,} {unit}" + (f", {nbytes / 1e6:,.1f} MB" if nbytes else "")
    return joined([first, *steps_text(extra, narrow=narrow)], width)


def steps_text(extra: list[tuple[str, int]], *, narrow: bool) -> list[str]:
    """The other steps' counts: ``1,234 kept`` (narrow: ``1.23k kept``)."""
    return [f"{compact(n) if narrow else f'{n:,}'} {label}" for label, n in extra]


def joined(parts: list[str], width: int) -> str:
    """``parts`` joined by ", ", as many whole ones as fit in ``width`` (the first always)."""
    text = parts[0] if parts else ""
    for part in parts[1:]:
        if len(text) + len(part) + 2 > width:
            break
        text += f", {part}"
    return text


# Long words of the stages' status messages, shortened when a line is too narrow for them.
ABBREVIATIONS = {"documents": "docs", "document": "doc", "duplicates": "dups", "duplicate": "dup",
                 "repositories": "repos", "repository": "repo", "permutations": "perms", "candidate": "cand.",
                 "candidates": "cand.", "components": "comp.", "verified": "verif.", "threshold": "thr.",
                 "previous": "prev.", "rejected": "rej.", "passes": "passes"}
_REPR = re.compile(r"\b[A-Z]\w*\((.*)\)")  # a dataclass's repr: its fields are what a reader wants
_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,?\d{3})+(?![\w.])")  # a whole count of four digits or more


def abbreviate(text: str, width: int) -> str:
    """``text`` in ``width`` characters, shortened before it is cut: a dataclass repr to its fields
    (``documents_in=12345`` -> ``docs in 12.3k``), counts in k/M, long words abbreviated; only then
    cut at a word (``fit``)."""
    if len(text) <= width:
        return text
    text = _REPR.sub(r"\1", text)
    text = re.sub(r"(\w+)=", lambda m: m.group(1).replace("_", " ") + " ", text)
    text = _NUMBER.sub(lambda m: compact(int(m.group().replace(",", ""))), text)
    text = re.sub(r"[A-Za-z]+", lambda m: ABBREVIATIONS.get(m.group().lower(), m.group()), text)
    return fit(text, width)


def fit(text: str, width: int) -> str:
    """``text`` in ``width`` characters, cut at a word with "…" (status words, never counts)."""
    if len(text) <= width:
        return text
    cut = text[:width - 1].rsplit(" ", 1)[0] if " " in text[:width - 1] else text[:width - 1]
    return cut + "…"


@dataclasses.dataclass(frozen=True, slots=True)
class Layout:
    """Column widths for a terminal ``columns`` wide: the sum stays within it, so rich cuts nothing."""

    columns: int
    narrow: bool
    name: int
    bar: int
    counts: int
    status: int  # narrow: the other steps' counts and the status go on lines under the counts

    @classmethod
    def for_width(cls, columns: int) -> Layout:
        if columns < WIDE_COLUMNS:
            # spinner 1 + name 16 + bar + counts + "ETA 12m05s" 10, 4 gaps (no elapsed column: the
            # "[stage] done in Ns" line says it)
            bar = max(8, min(20, columns - 1 - 16 - 10 - 4 - 37))
            counts = max(12, columns - 1 - 16 - bar - 10 - 4 - 1)
            return cls(columns, True, 16, bar, counts, counts)
        counts = 44
        status = columns - 1 - 18 - 30 - counts - 7 - 10 - 6 - 1
        return cls(columns, False, 18, 30, counts, status)


class _Counts:
    """The counts column; narrow, with the other steps' counts and the status on lines under it."""

    def __init__(self, layout: Layout):
        self.layout = layout

    def __call__(self, task) -> str:
        counts = task.fields["counts"]
        if not self.layout.narrow:
            return counts
        # The other steps' counts, then the status ("done" needs no line: the bar is full).
        status = "" if task.fields["status"] == "done" else abbreviate(task.fields["status"], self.layout.counts)
        steps = joined(task.fields["steps"], self.layout.counts)
        return "\n".join(line for line in (counts, steps, status) if line)


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


def progress_bars(console, layout: Layout):
    """The rich ``Progress`` that draws a line per stage (narrow: up to three) within ``layout``."""
    from rich.progress import BarColumn, Progress, ProgressColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
    from rich.table import Column
    from rich.text import Text

    counts = _Counts(layout)

    class CountsColumn(ProgressColumn):
        def render(self, task) -> Text:
            return Text(counts(task))

    def fixed(width: int) -> Column:
        return Column(width=width, no_wrap=True, overflow="ellipsis")

    columns = [SpinnerColumn(table_column=fixed(1)),
               TextColumn("{task.description}", table_column=fixed(layout.name)),
               BarColumn(bar_width=layout.bar, table_column=fixed(layout.bar)),
               CountsColumn(table_column=Column(width=layout.counts, no_wrap=False)),
               *([] if layout.narrow else [TimeElapsedColumn(table_column=fixed(7))]),
               TextColumn("{task.fields[eta]}", table_column=fixed(10))]
    if not layout.narrow and layout.status > 0:
        columns.append(TextColumn("[dim]{task.fields[status]}", table_column=fixed(layout.status)))
    return Progress(*columns, console=console, transient=False, refresh_per_second=4)


class BuildDisplay:
    """Stage k of n, a bar per stage, and driver-side steps; plain lines when not on a terminal.

    ``stage(name, expected=..., step=...)`` wraps one stage: the bar counts the worker reports of
    ``step`` (default: the stage's name) against ``expected``. ``echo`` prints a line above the bars.
    ``console`` (a rich Console) is where bars go: stderr's width decides the layout (``Layout``).
    """

    def __init__(self, stages: list[str], *, live: bool, echo: Callable[[str], None] = print, console=None,
                 clock: Callable[[], float] = time.monotonic):
        self._stages, self._live, self._plain_echo, self._clock = stages, live, echo, clock
        self._progress = None
        self._task = None
        self._rate = RateWindow()
        self._reused = ""  # the status of a reused stage
        self._stop = threading.Event()
        self._poller: threading.Thread | None = None
        if live:
            from rich.console import Console

            console = console or Console(stderr=True)
            self.layout = Layout.for_width(console.width)
            self._progress = progress_bars(console, self.layout)
            self._progress.start()

    @property
    def bars(self):
        """The rich ``Progress`` drawing the bars (None off a terminal): ``bars.get_renderable()`` is the screen."""
        return self._progress

    def echo(self, line: str) -> None:
        if self._progress is not None:
            self._progress.console.print(line, markup=False, highlight=False)
        else:
            self._plain_echo(line)

    def mark_reused(self, status: str = "reused (inputs unchanged)") -> None:
        """The current stage was reused (its inputs unchanged): its bar says ``status`` instead of "done"."""
        self._reused = status

    def status(self, text: str) -> None:
        """A short line beside (narrow: under) the current stage's bar, abbreviated to fit (``abbreviate``)."""
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, status=abbreviate(text, max(self.layout.status, 1)))

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
            self._rate = RateWindow()
            self._task = self._progress.add_task(f"[{k}/{len(self._stages)}] {name}", total=expected,
                                                 counts="", steps=[], status="", eta="")
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
                self._progress.update(self._task, total=done, completed=done, eta="",
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
        extra = [(STEP_LABELS.get(s, s), n) for s, (n, _) in sorted(reports.items()) if s != step]
        if self.layout.narrow:  # the other steps go on the second line (``_Counts``)
            counts = counts_text(records, nbytes, unit, [], self.layout.counts, narrow=True)
            self._advance(records, counts=counts, steps=steps_text(extra, narrow=True))
        else:
            self._advance(records, counts=counts_text(records, nbytes, unit, extra, self.layout.counts, narrow=False))

    def _advance(self, completed: int, **fields) -> None:
        """Move the bar to ``completed``, with an ETA from the rate of the last few seconds."""
        self._rate.add(self._clock(), completed)
        task = next(t for t in self._progress.tasks if t.id == self._task)
        eta = self._rate.eta(int(task.total)) if task.total is not None else None
        self._progress.update(self._task, completed=completed, eta=f"ETA {eta_text(eta)}" if task.total else "",
                              **fields)

    def counted(self, items: Iterable, *, label: str, total: int | None) -> Iterator:
        """``items`` passed through, advancing the current stage's bar (driver-side work)."""
        if self._task is not None:
            self._rate = RateWindow()
            self._progress.update(self._task, total=total, completed=0, status=label)
        for n, item in enumerate(items, 1):
            if self._task is not None and (n % 64 == 0 or n == total):
                self._advance(n, counts=counts_text(n, 0, "docs", [], self.layout.counts, narrow=self.layout.narrow))
            yield item

    def close(self) -> None:
        self._stop_polling()
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
