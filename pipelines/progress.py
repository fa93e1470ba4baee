"""Progress for long jobs: each worker logs records/s and MB/s per stage every few seconds."""

from __future__ import annotations

import logging
import time

import apache_beam as beam

LOG = logging.getLogger("codemix.progress")
LOG_EVERY_SECONDS = 10.0


class Progress(beam.DoFn):
    """Passes elements through unchanged, logging the rate this worker sees them at.

    ``size_of`` maps an element to bytes. With ``expected`` (the stage's input count, known from
    Parquet footers) and ``workers``, it also logs an ETA, assuming work is spread evenly.
    Rates are per worker; the driver prints stage totals and times.
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
        self._records += 1
        if self._size_of is not None:
            self._bytes += self._size_of(element)
        now = time.monotonic()
        if now - self._last_log >= LOG_EVERY_SECONDS:
            self._last_log = now
            elapsed = max(now - self._start, 1e-9)
            rate = self._records / elapsed
            eta = f", ETA {eta_text((self._share - self._records) / rate)}" if self._share else ""
            LOG.info("[%s] %s records (%.0f/s), %.1f MB (%.2f MB/s)%s", self._stage, f"{self._records:,}",
                     rate, self._bytes / 1e6, self._bytes / 1e6 / elapsed, eta)
        yield element


def eta_text(seconds: float) -> str:
    seconds = max(seconds, 0)
    return f"{seconds / 3600:.1f}h" if seconds >= 3600 else f"{seconds / 60:.0f}m{seconds % 60:02.0f}s"


def worker_count(beam_args: list[str]) -> int:
    """How many local workers ``--direct_num_workers`` asks for (1 when unset)."""
    for i, arg in enumerate(beam_args):
        if arg.startswith("--direct_num_workers="):
            return int(arg.split("=", 1)[1])
        if arg == "--direct_num_workers" and i + 1 < len(beam_args):
            return int(beam_args[i + 1])
    return 1
