"""CPU per stage and language, measured where each document's own work is done.

A stage's per-document steps (the crawl's reading and redaction, the filter's judgement and its evidence
scans, dedup's digests and MinHash signatures, the shards' tokenization) time the thread CPU of the work
they do for each document (``time.thread_time_ns`` around it, never what Beam does between) and add it to
Beam counters named by the document's language, with the bytes of the documents the stage takes in. The
driver reads the counters of every pipeline a stage runs (``collecting``) and the manifest keeps them
beside the stage's CPU, so ``mix stats`` can show CPU seconds per MB by stage and language and, as the
rest of the stage's CPU, what no document's work accounts for (Beam, pickling, shuffles, writes, start-up).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from apache_beam.metrics import Metrics
from apache_beam.metrics.metric import MetricsFilter

from codemix.document import Document

NAMESPACE = "codemix.costs"
CPU, BYTES = "cpu_ns", "bytes"
UNKNOWN = "(none)"  # the language of a document no reader named one for
STAGE_ORDER = ("crawl", "filter", "tokenizer", "dedup", "repo_dedup", "shards")  # how a build runs them
LOG = logging.getLogger(__name__)

_COUNTERS: dict[tuple[str, str], Any] = {}  # one counter object per (measure, language), per process
_COLLECTING: list[dict[str, dict[str, int]]] = []  # the stages being measured (innermost last)


def _counter(measure: str, language: str):
    counter = _COUNTERS.get((measure, language))
    if counter is None:
        counter = _COUNTERS[(measure, language)] = Metrics.counter(NAMESPACE, f"{measure}:{language}")
    return counter


def charge(language: str | None, cpu_ns: int, text_bytes: int = 0) -> None:
    """Add one document's CPU (and, from the step that counts the stage's input, its bytes)."""
    language = language or UNKNOWN
    if cpu_ns > 0:
        _counter(CPU, language).inc(cpu_ns)
    if text_bytes:
        _counter(BYTES, language).inc(text_bytes)


def utf8_length(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def language_of(element: Any) -> str:
    """A Document's language, or a Parquet row's (a dict, as dedup reads them)."""
    return element.get("language") or "" if isinstance(element, dict) else element.language


def text_of(element: Any) -> str:
    return element.get("text") or "" if isinstance(element, dict) else element.text


def timed(outcomes: Iterable, language: str, text_bytes: int = 0) -> Iterator:
    """``outcomes`` (what one document's work yields), its thread CPU charged to ``language``: only the
    time spent producing each outcome, not what the consumer does with it between two."""
    iterator, spent = iter(outcomes), 0
    try:
        while True:
            start = time.thread_time_ns()
            try:
                outcome = next(iterator)
            except StopIteration:
                spent += time.thread_time_ns() - start
                return
            spent += time.thread_time_ns() - start
            yield outcome
    finally:
        charge(language, spent, text_bytes)


class PerDocument:
    """``fn(document, *args)`` (yielding outcomes, or returning one value with ``returns``) with its
    thread CPU charged to the document's language; with ``counts_input``, its bytes too (one step per
    stage counts them: the step that sees every document the stage takes in). ``args`` are bound here:
    Beam hands a callable object only the element."""

    def __init__(self, fn: Callable, *args, counts_input: bool = False, returns: bool = False):
        self.fn, self.args, self.counts_input, self.returns = fn, args, counts_input, returns

    def __call__(self, document):
        size = utf8_length(text_of(document)) if self.counts_input else 0
        if not self.returns:
            return timed(self.fn(document, *self.args), language_of(document), size)
        start = time.thread_time_ns()
        try:
            return self.fn(document, *self.args)
        finally:
            charge(language_of(document), time.thread_time_ns() - start, size)


class PerOutputDocument:
    """``fn(element)`` yielding outcomes for many documents (a reader over a location): the CPU spent
    producing each Document is charged to its language, with its bytes; CPU spent on other outcomes
    (drops, quarantine records, read counts) stays with the stage's unattributed rest."""

    def __init__(self, fn: Callable):
        self.fn = fn

    def __call__(self, element):
        iterator = iter(self.fn(element))
        while True:
            start = time.thread_time_ns()
            try:
                outcome = next(iterator)
            except StopIteration:
                return
            spent = time.thread_time_ns() - start
            if isinstance(outcome, Document):
                charge(outcome.language, spent, utf8_length(outcome.text))
            yield outcome


# ---------------------------------------------------------------- the driver's side


@contextlib.contextmanager
def collecting() -> Iterator[dict[str, dict[str, int]]]:
    """Within the block, the counters of every finished ``jobs.Pipeline`` are added to the dict it
    yields: ``{language: {"cpu_ns": n, "bytes": n}}``."""
    found: dict[str, dict[str, int]] = {}
    _COLLECTING.append(found)
    try:
        yield found
    finally:
        _COLLECTING.remove(found)


def record(result) -> None:
    """Add a finished pipeline's cost counters to the stage being measured (if any). A runner that
    cannot report its metrics leaves the stage without per-language costs, said in the log."""
    if not _COLLECTING:
        return
    try:
        counters = result.metrics().query(MetricsFilter().with_namespace(NAMESPACE))["counters"]
    except Exception as error:  # noqa: BLE001 - metrics are a report; a runner without them is no failure
        LOG.warning("no per-language costs: the runner reported no metrics (%s)", error)
        return
    found = _COLLECTING[-1]
    for metric in counters:
        measure, _, language = metric.key.metric.name.partition(":")
        value = metric.committed if metric.committed is not None else metric.attempted
        entry = found.setdefault(language, {CPU: 0, BYTES: 0})
        entry[measure] = entry.get(measure, 0) + int(value or 0)


def as_seconds(found: dict[str, dict[str, int]]) -> dict[str, dict[str, float | int]]:
    """What the manifest keeps: ``{language: {"bytes": n, "cpu_seconds": s}}``."""
    return {language: {"bytes": entry.get(BYTES, 0), "cpu_seconds": round(entry.get(CPU, 0) / 1e9, 3)}
            for language, entry in sorted(found.items())}
