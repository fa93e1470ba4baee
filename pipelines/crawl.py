"""Crawl: every configured location read into Documents, drops and quarantine records."""

from __future__ import annotations

import apache_beam as beam

from codemix.document import Document
from mixtures.spec import SourceConfig
from pipelines.ledger import DOCS, DROPPED, QUARANTINED, RouteOutcomes
from pipelines.progress import Progress
from pipelines.readers import read_location


def source_locations(sources: list[SourceConfig]) -> list[tuple[SourceConfig, str]]:
    """One element per (source, location); locations are the unit of parallel reading."""
    return [(source, location) for source in sources for location in source.paths]


def read_source_location(element: tuple[SourceConfig, str]):
    source, location = element
    return read_location(source, location)


def document_bytes(doc: Document) -> int:
    return len(doc.text.encode("utf-8"))


class Crawl(beam.PTransform):
    """PBegin -> tagged outputs: documents (main), ``dropped`` and ``quarantined``."""

    def __init__(self, sources: list[SourceConfig]):
        super().__init__()
        self._sources = sources

    def expand(self, pbegin):
        outcomes = (
            pbegin
            | "ListLocations" >> beam.Create(source_locations(self._sources))
            | "SpreadLocations" >> beam.Reshuffle()
            | "ReadLocations" >> beam.ParDo(RouteOutcomes(read_source_location)).with_outputs(
                DROPPED, QUARANTINED, main=DOCS)
        )
        documents = outcomes[DOCS] | "Progress" >> beam.ParDo(Progress("crawl", document_bytes))
        return {DOCS: documents, DROPPED: outcomes[DROPPED], QUARANTINED: outcomes[QUARANTINED]}
