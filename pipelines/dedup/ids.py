"""``IdSetOf``: Beam's combine of ids into one ``dedup.ids.IdSet``, and the singleton side input made of it.
"""

from __future__ import annotations

import apache_beam as beam

from dedup.ids import IdSet, id_digest


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
