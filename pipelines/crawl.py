"""Crawl: every configured location read into Documents, drops and quarantine records.

Secrets and PII are redacted here, before the crawl's Parquet is written, so no stage of a build
ever writes a credential to disk; each redaction is recorded by type.
"""

from __future__ import annotations

import apache_beam as beam

from codemix.document import Document, Redaction, packed_document, unpacked_document
from filters.secrets import RedactionConfig, redact_document
from mixtures.spec import SourceConfig
from pipelines.ledger import DOCS, DROPPED, QUARANTINED, REDACTIONS, RouteOutcomes
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


class RedactWith:
    """Document -> the redacted document and one ``Redaction`` record per placeholder type."""

    def __init__(self, config: RedactionConfig):
        self.config = config

    def __call__(self, doc: Document):
        if not self.config.enabled:
            yield doc
            return
        redacted, counts = redact_document(doc, self.config)
        for kind, count in sorted(counts.items()):
            yield Redaction(doc_id=doc.id, source=doc.source, type=kind, count=count)
        yield redacted


class Crawl(beam.PTransform):
    """PBegin -> documents (main, redacted), ``dropped``, ``quarantined`` and ``redactions``."""

    def __init__(self, sources: list[SourceConfig], redaction: RedactionConfig):
        super().__init__()
        self._sources = sources
        self._redaction = redaction

    def expand(self, pbegin):
        outcomes = (
            pbegin
            | "ListLocations" >> beam.Create(source_locations(self._sources))
            | "SpreadLocations" >> beam.Reshuffle()
            | "ReadLocations" >> beam.ParDo(RouteOutcomes(read_source_location)).with_outputs(
                DROPPED, QUARANTINED, main=DOCS)
        )
        redacted = (
            outcomes[DOCS]
            | "Pack" >> beam.Map(packed_document)  # the text compressed while it is shuffled
            | "SpreadDocuments" >> beam.Reshuffle()  # one big repository must not pin redaction to one worker
            | "Unpack" >> beam.Map(unpacked_document)
            | "Redact" >> beam.ParDo(RouteOutcomes(RedactWith(self._redaction))).with_outputs(REDACTIONS, main=DOCS)
        )
        documents = redacted[DOCS] | "Progress" >> beam.ParDo(Progress("crawl", document_bytes))
        return {DOCS: documents, DROPPED: outcomes[DROPPED], QUARANTINED: outcomes[QUARANTINED],
                REDACTIONS: redacted[REDACTIONS]}
