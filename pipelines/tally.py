"""What the manifest, the health checks and the progress bars count of a stage's Parquet, counted by
Beam steps where the files are, not by the driver reading every file.

After a stage's pipeline has written its attempt, ``tally_stage`` runs one more small pipeline that
reads only the columns each ``Measure`` needs and combines them per key (a source, a (source, reason)
pair), writing ``tally-*.jsonl`` beside the outputs: a few lines per source and reason, whatever the
corpus. The driver then reads that instead of scanning the ``source``/``reason`` columns of every
file, which on a cluster would pull a whole column of the corpus through one machine.
"""

from __future__ import annotations

import collections
import json
from dataclasses import dataclass

import apache_beam as beam

from pipelines import ledger
from pipelines.options import pipeline_options

TALLY_FILES = "tally*.jsonl"


@dataclass(frozen=True, slots=True)
class Measure:
    """One count over a stage's files: rows per value of ``group_by`` (or the sum of ``total`` per
    value), or, with ``distinct``, how many distinct values of ``group_by`` there are in all."""

    name: str
    files: str  # a file name glob inside the attempt folder, e.g. "docs-*.parquet"
    group_by: tuple[str, ...]
    total: str | None = None
    distinct: bool = False

    def columns(self) -> list[str]:
        return [*self.group_by, *([self.total] if self.total else [])]


def _keyed(measure: Measure):
    def key_value(row: dict) -> tuple[tuple, int]:
        key = tuple(row[column] for column in measure.group_by)
        return (measure.name, key), (row[measure.total] if measure.total else 1)
    return key_value


class CountMeasure(beam.PTransform):
    """One measure's files -> ((name, key), count) per key; a distinct measure -> ((name, ()), distinct keys)."""

    def __init__(self, folder: str, measure: Measure):
        super().__init__()
        self.folder, self.measure = folder, measure

    def expand(self, pbegin):
        measure = self.measure
        keyed = (pbegin
                 | "Read" >> beam.io.ReadFromParquet(f"{self.folder}/{measure.files}", columns=measure.columns())
                 | "Key" >> beam.Map(_keyed(measure)))
        if measure.distinct:
            keyed = (keyed | "Keys" >> beam.Keys() | "Distinct" >> beam.Distinct()
                     | "One" >> beam.Map(lambda key: ((key[0], ()), 1)))
        return keyed | "Sum" >> beam.CombinePerKey(sum)


class TallyFiles(beam.PTransform):
    """Every measure of a stage's attempt folder, as JSON lines ``[name, key, count]``."""

    def __init__(self, folder: str, measures: tuple[Measure, ...]):
        super().__init__()
        self.folder, self.measures = folder, measures

    def expand(self, pbegin):
        counted = [pbegin | f"Count_{m.name}" >> CountMeasure(self.folder, m) for m in self.measures]
        return (tuple(counted)
                | "All" >> beam.Flatten()
                | "ToJson" >> beam.MapTuple(lambda name_key, n: json.dumps([name_key[0], list(name_key[1]), n]))
                | "Write" >> ledger.write_text(f"{self.folder}/tally", ".jsonl"))


def tally_stage(folder: str, measures: tuple[Measure, ...], beam_args: list[str]) -> None:
    with beam.Pipeline(options=pipeline_options(beam_args)) as pipeline:
        _ = pipeline | "Tally" >> TallyFiles(folder, measures)


def read_tally(folder: str) -> dict[str, collections.Counter]:
    """``{measure name: Counter(key tuple -> count)}`` from a stage's tally; a measure with no rows is
    an empty Counter (a missing name is read as one)."""
    tally: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for name, key, count in ledger.read_jsonl(f"{folder}/{TALLY_FILES}"):
        tally[name][tuple(key)] += count
    return tally


def by_first(counter: collections.Counter) -> collections.Counter:
    """A (source, ...) keyed count summed per source."""
    out: collections.Counter = collections.Counter()
    for key, n in counter.items():
        out[key[0]] += n
    return out


def total(counter: collections.Counter) -> int:
    return sum(counter.values())


# What each stage's tally holds: what the manifest, health checks and shards' progress read.
DOCS_BY_SOURCE = Measure("docs", "docs-*.parquet", ("source",))
DROPS = Measure("dropped", "dropped-*.parquet", ("source", "reason"))
STAGE_MEASURES: dict[str, tuple[Measure, ...]] = {
    "crawl": (DOCS_BY_SOURCE, DROPS, Measure("redactions", "redactions-*.parquet", ("source", "type"), "count")),
    "filter": (DOCS_BY_SOURCE, DROPS),
    "dedup": (DOCS_BY_SOURCE, Measure("duplicates", "duplicates-*.parquet", ("source",)),
              Measure("repositories", "docs-*.parquet", ("repo",), distinct=True)),
    "repo_dedup": (DOCS_BY_SOURCE, Measure("duplicates", "duplicates-*.parquet", ("source",)),
                   Measure("documents_in_duplicates", "duplicates-*.parquet", (), "documents"),
                   Measure("repositories", "docs-*.parquet", ("repo",), distinct=True)),
}
