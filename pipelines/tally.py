"""What the manifest, the health checks and the progress bars count of a stage's Parquet, counted by
Beam steps where the files are, not by the driver reading every file.

Each ``Measure`` combines one of a stage's outputs per key (a source, a (source, reason) pair) and
``tally-*.jsonl`` beside the outputs holds the results: a few lines per source and reason, whatever
the corpus. On a cluster, the crawl and the filter count the records they write in their own pipeline
(``TallyRecords``) and dedup, which runs several pipelines, is counted after them by one more small
pipeline that reads only the needed columns of what it wrote (``tally_stage``); with a local runner and a
local folder, every stage is counted by the driver reading the same columns after its pipelines (the
same counts, no pipeline steps: ``tallies_locally``). The driver then
reads the tally instead of scanning the ``source``/``reason`` columns of every file, which on a
cluster would pull a whole column of the corpus through one machine.
"""

from __future__ import annotations

import collections
import json
import os
from dataclasses import dataclass

import apache_beam as beam

from codemix.pipelines import jobs, ledger
from codemix.pipelines.options import is_local_path, pipeline_options, shares_local_disk

TALLY_FILES = "tally*.jsonl"


# The Parquet files of each output a measure may count, inside a stage's attempt folder.
OUTPUT_FILES = {"docs": "docs-*.parquet", "dropped": "dropped-*.parquet", "redactions": "redactions-*.parquet",
                "duplicates": "duplicates-*.parquet"}


@dataclass(frozen=True, slots=True)
class Measure:
    """One count over a stage's output ``output`` (records, or rows of its files): records per value
    of ``group_by`` (or the sum of ``total`` per value), or, with ``distinct``, how many distinct
    values of ``group_by`` there are in all."""

    name: str
    output: str  # a key of OUTPUT_FILES
    group_by: tuple[str, ...]
    total: str | None = None
    distinct: bool = False

    def columns(self) -> list[str]:
        return [*self.group_by, *([self.total] if self.total else [])]


def _field(record, name: str):
    """A field of a Parquet row (dict) or of a ledger record (Document, Dropped, Redaction)."""
    return record[name] if isinstance(record, dict) else getattr(record, name)


def _keyed(measure: Measure):
    def key_value(record) -> tuple[tuple, int]:
        key = tuple(_field(record, column) for column in measure.group_by)
        return (measure.name, key), (_field(record, measure.total) if measure.total else 1)
    return key_value


class CountMeasure(beam.PTransform):
    """One measure's records -> ((name, key), count) per key; a distinct measure -> ((name, ()), distinct keys)."""

    def __init__(self, measure: Measure):
        super().__init__()
        self.measure = measure

    def expand(self, records):
        keyed = records | "Key" >> beam.Map(_keyed(self.measure))
        if self.measure.distinct:
            name = self.measure.name
            keyed = (keyed | "Keys" >> beam.Keys() | "Distinct" >> beam.Distinct()
                     | "One" >> beam.Map(lambda _: ((name, ()), 1)))
        return keyed | "Sum" >> beam.CombinePerKey(sum)


class TallyRecords(beam.PTransform):
    """{output name: its records} -> ``FOLDER/tally-*.jsonl``, a JSON line ``[name, key, count]`` per
    key of every measure."""

    def __init__(self, folder: str, measures: tuple[Measure, ...]):
        super().__init__()
        self.folder, self.measures = folder, measures

    def expand(self, outputs):
        counted = [outputs[m.output] | f"Count_{m.name}" >> CountMeasure(m) for m in self.measures]
        return (tuple(counted)
                | "All" >> beam.Flatten()
                | "ToJson" >> beam.MapTuple(lambda name_key, n: json.dumps([name_key[0], list(name_key[1]), n]))
                | "Write" >> ledger.write_text(f"{self.folder}/tally", ".jsonl"))


class ReadOutputs(beam.PTransform):
    """The columns the measures need of each output's files in ``folder``, as rows, by output name."""

    def __init__(self, folder: str, measures: tuple[Measure, ...]):
        super().__init__()
        self.folder, self.measures = folder, measures

    def expand(self, pbegin):
        columns: dict[str, set[str]] = {}
        for measure in self.measures:
            columns.setdefault(measure.output, set()).update(measure.columns())
        return {output: pbegin | f"Read_{output}" >> beam.io.ReadFromParquet(
                    f"{self.folder}/{OUTPUT_FILES[output]}", columns=sorted(needed))
                for output, needed in columns.items()}


def tallies_locally(folder: str, beam_args: list[str]) -> bool:
    """Whether a stage's measures are counted in this process from the files it wrote (``tally_stage``): the
    runner is local and ``folder`` on this disk. The crawl and the filter then leave ``TallyRecords`` out of
    their pipeline: its sums and its file sink were ~10 more fused stages each, a bundle processor and a
    bundle per worker apiece (bench/RESULTS.md, issue 49, round 18), to count a few columns read here."""
    return is_local_path(folder) and shares_local_disk(beam_args)


def tally_stage(folder: str, measures: tuple[Measure, ...], beam_args: list[str]) -> None:
    """The measures over the files a stage wrote in ``folder``, by one pipeline after it; in this process
    when the runner is local and ``folder`` on this disk (a pipeline would start workers to read the same
    few columns here: ~1-4 CPU s that decide nothing)."""
    if tallies_locally(folder, beam_args):
        write_tally(folder, tally_locally(folder, measures))
        return
    with jobs.Pipeline(options=pipeline_options(beam_args)) as pipeline:
        _ = pipeline | "Read" >> ReadOutputs(folder, measures) | "Tally" >> TallyRecords(folder, measures)


def tally_locally(folder: str, measures: tuple[Measure, ...]) -> list[str]:
    """``TallyRecords``' lines for the measures, counted from the needed columns of the files in ``folder``
    (read as ``ReadOutputs`` reads them): a measure with no rows gives no line, as ``CombinePerKey`` does."""
    import glob

    import pyarrow.parquet as pq

    lines = []
    for measure in measures:
        paths = sorted(glob.glob(f"{folder}/{OUTPUT_FILES[measure.output]}"))
        if not paths:
            raise FileNotFoundError(f"no {measure.output} files in {folder} to tally")
        counts: collections.Counter = collections.Counter()
        for path in paths:
            for row in pq.read_table(path, columns=sorted(measure.columns())).to_pylist():
                (_, key), value = _keyed(measure)(row)
                counts[key] += value
        if measure.distinct:
            counts = collections.Counter({(): len(counts)}) if counts else collections.Counter()
        lines.extend(json.dumps([measure.name, list(key), n]) for key, n in counts.items())
    return lines


def write_tally(folder: str, lines: list[str]) -> None:
    """``lines`` as ``FOLDER/tally-00000-of-00001.jsonl``; no file when there are none (``ledger.write_text``)."""
    if lines:  # whole or not at all: an interrupted write leaves no partial tally for a rerun to trust
        path = f"{folder}/tally-00000-of-00001.jsonl"
        with open(f"{path}.partial", "w", encoding="utf-8") as handle:
            handle.write("".join(f"{line}\n" for line in lines))
        os.replace(f"{path}.partial", path)


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
DOCS_BY_SOURCE = Measure("docs", "docs", ("source",))
DROPS = Measure("dropped", "dropped", ("source", "reason"))
STAGE_MEASURES: dict[str, tuple[Measure, ...]] = {
    "crawl": (DOCS_BY_SOURCE, DROPS, Measure("redactions", "redactions", ("source", "type"), "count")),
    "filter": (DOCS_BY_SOURCE, DROPS),
    "dedup": (DOCS_BY_SOURCE, Measure("duplicates", "duplicates", ("source",)),
              Measure("repositories", "docs", ("repo",), distinct=True)),
    "repo_dedup": (DOCS_BY_SOURCE, Measure("duplicates", "duplicates", ("source",)),
                   Measure("documents_in_duplicates", "duplicates", (), "documents"),
                   Measure("repositories", "docs", ("repo",), distinct=True)),
}
