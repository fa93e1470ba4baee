"""Filter: documents that fail a quality check become Dropped records with the check's reason."""

from __future__ import annotations

import apache_beam as beam

from codemix.document import Document, Dropped
from filters.apply import DocumentFilter
from filters.config import FiltersConfig
from pipelines.ledger import DOCS, DROPPED, QUARANTINED, RouteOutcomes


def filter_outcomes(doc: Document, document_filter: DocumentFilter):
    reason = document_filter.drop_reason(doc)
    if reason is None:
        yield doc
    else:
        yield Dropped(stage="filter", source=doc.source, location=doc.metadata.get("location", ""),
                      reason=reason, doc_id=doc.id)


class _FilterWith:
    """Binds the config so RouteOutcomes gets a one-argument, picklable function; the
    ``DocumentFilter`` (with its caches) is built lazily, once per worker."""

    def __init__(self, config: FiltersConfig):
        self.config = config
        self._filter: DocumentFilter | None = None

    def __call__(self, doc: Document):
        if self._filter is None:
            self._filter = DocumentFilter(self.config)
        return filter_outcomes(doc, self._filter)


class Filter(beam.PTransform):
    """Documents -> kept documents (main) and ``dropped``."""

    def __init__(self, config: FiltersConfig):
        super().__init__()
        self._config = config

    def expand(self, documents):
        outcomes = documents | "ApplyFilters" >> beam.ParDo(RouteOutcomes(_FilterWith(self._config))).with_outputs(
            DROPPED, QUARANTINED, main=DOCS)
        return {DOCS: outcomes[DOCS], DROPPED: outcomes[DROPPED]}
