"""Progress for long jobs: each worker logs records/s and MB/s per stage every few seconds."""

from __future__ import annotations

import logging
import time

import apache_beam as beam

LOG = logging.getLogger("codemix.progress")
LOG_EVERY_SECONDS = 10.0


class Progress(beam.DoFn):
    """Passes elements through unchanged, logging the rate this worker sees them at.

    ``size_of`` maps an element to bytes. Rates are per worker; the driver prints stage totals.
    """

    def __init__(self, stage: str, size_of=None):
        self._stage = stage
        self._size_of = size_of

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
            LOG.info("[%s] %s records (%.0f/s), %.1f MB (%.2f MB/s)", self._stage, f"{self._records:,}",
                     self._records / elapsed, self._bytes / 1e6, self._bytes / 1e6 / elapsed)
        yield element
