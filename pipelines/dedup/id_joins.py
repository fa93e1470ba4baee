"""Beam wiring of id sets: ``IdSetOf``, the combine of ids into one ``dedup.ids.IdSet``, the singleton
side input made of it, and ``KeepListed``/``DropListed``, the semi- and anti-join of keyed rows
with a PCollection of ids by either of the two joins in ``dedup.config.JOINS``:

  * ``side_input``: the ids become one ``IdSet`` side input that filters the rows where they are;
    no row is shuffled, but every worker holds the whole set (16 bytes per id);
  * ``keyed_join``: the rows and the ids meet in one ``GroupByKey`` by id (``dedup.ids.listed_or_not``);
    the rows go through the runner's shuffle, and no worker holds more than one id's rows.
"""

from __future__ import annotations

import apache_beam as beam

from codemix.dedup.config import KEYED_JOIN, SIDE_INPUT
from codemix.dedup.ids import LISTED, ROW, IdSet, id_digest, listed_or_not
from codemix.pipelines.spill import grouping


def keyed_spill(join: str, spill_dir: str | None) -> str | None:
    """Where the other groupings of a keyed join's pipelines that grow with the corpus (copies of a
    text, candidate pairs, component rounds and members, survivors) go through run files:
    ``spill_dir`` with ``keyed_join``, else None, the runner's ``GroupByKey``. FnApiRunner holds that
    in its driver and hands each worker its whole share of the keys as one message; with side inputs
    each worker holds the id sets anyway, so that path keeps the runner's groupings."""
    return spill_dir if join == KEYED_JOIN else None


class IdSetOf(beam.CombineFn):
    """Ids -> one ``IdSet``; each accumulator is a ``bytearray`` of digests, 16 bytes per id."""

    def create_accumulator(self) -> bytearray:
        return bytearray()

    def add_input(self, digests: bytearray, doc_id: str) -> bytearray:
        digests += id_digest(doc_id)
        return digests

    def merge_accumulators(self, accumulators) -> bytearray:
        merged = bytearray()
        for digests in accumulators:
            merged += digests
        return merged

    def compact(self, digests: bytearray) -> bytearray:
        """Drop repeats before the accumulator is shuffled (an id is often in several pairs)."""
        return bytearray(IdSet.from_digests(bytes(digests)).digests.tobytes())

    def extract_output(self, digests: bytearray) -> IdSet:
        return IdSet.from_digests(bytes(digests))


def id_set(pcoll, label: str):
    """A singleton side input: the ``IdSet`` of the ids in ``pcoll`` (empty if it is)."""
    return beam.pvalue.AsSingleton(pcoll | label >> beam.CombineGlobally(IdSetOf()))


def listed_in(keyed_row: tuple[str, object], ids: IdSet, keep_listed: bool) -> bool:
    return (keyed_row[0] in ids) == keep_listed


class _FilterByIds(beam.PTransform):
    """(rows keyed by id, ids) -> the keyed rows whose id is listed (``keep_listed``) or is not."""

    keep_listed: bool

    def __init__(self, join: str, spill_dir: str | None = None):
        super().__init__()
        if join not in (SIDE_INPUT, KEYED_JOIN):  # "auto" is resolved by the caller, who knows the runner
            raise ValueError(f"join must be {SIDE_INPUT!r} or {KEYED_JOIN!r}, not {join!r} (see dedup.config)")
        self.join, self.spill_dir = join, spill_dir

    def expand(self, inputs):
        rows, ids = inputs
        if self.join == SIDE_INPUT:
            return rows | "FilterByIdSet" >> beam.Filter(listed_in, id_set(ids, "IdSet"), self.keep_listed)
        return (
            (
                rows | "TagRows" >> beam.MapTuple(lambda doc_id, row: (doc_id, (ROW, row))),
                ids | "TagIds" >> beam.Map(lambda doc_id: (doc_id, (LISTED, None))),
            )
            | "GroupById" >> grouping(self.spill_dir, "by-id")
            | "Join" >> beam.FlatMap(listed_or_not, self.keep_listed)
        )


class KeepListed(_FilterByIds):
    """Semi-join: (rows keyed by id, ids) -> the keyed rows whose id is among the ids."""

    keep_listed = True


class DropListed(_FilterByIds):
    """Anti-join: (rows keyed by id, ids) -> the keyed rows whose id is not among the ids."""

    keep_listed = False


class DropRowsWithIds(beam.PTransform):
    """(rows with an ``id`` field, ids) -> the rows whose id is not among the ids, unchanged. With
    ``spill_dir``, a keyed join groups through run files there (``pipelines.spill``), so on a runner
    that holds its shuffles in memory (FnApiRunner) no process holds more than a run's buffer."""

    def __init__(self, join: str, spill_dir: str | None = None):
        super().__init__()
        self.join, self.spill_dir = join, spill_dir

    def expand(self, inputs):
        rows, ids = inputs
        keyed = rows | "KeyById" >> beam.Map(lambda row: (row["id"], row))
        return (keyed, ids) | "DropListed" >> DropListed(self.join, self.spill_dir) | "Rows" >> beam.Values()
