"""Filter: documents that fail a quality check become Dropped records with the check's reason."""

from __future__ import annotations

import apache_beam as beam

from codemix.document import Document, Dropped
from filters.apply import drop_reason
from filters.config import FiltersConfig
from pipelines.ledger import DOCS, DROPPED, QUARANTINED, RouteOutcomes


def filter_outcomes(doc: Document, config: FiltersConfig):
    reason = drop_reason(doc, config)
    if reason is None:
        yield doc
    else:
        yield Dropped(stage="filter", source=doc.source, location=doc.metadata.get("location", ""),
                      reason=reason, doc_id=doc.id)


class _FilterWith:
    """Binds the config so RouteOutcomes gets a one-argument, picklable function."""

    def __init__(self, config: FiltersConfig):
        self.config = config

    def __call__(self, doc: Document):
        return filter_outcomes(doc, self.config)


class Filter(beam.PTransform):
    """Documents -> kept documents (main) and ``dropped``."""

    def __init__(self, config: FiltersConfig):
        super().__init__()
        self._config = config

    def expand(self, documents):
        outcomes = documents | "ApplyFilters" >> beam.ParDo(RouteOutcomes(_FilterWith(self._config))).with_outputs(
            DROPPED, QUARANTINED, main=DOCS)
        return {DOCS: outcomes[DOCS], DROPPED: outcomes[DROPPED]}
