"""Crawl: every configured location read into Documents, drops and quarantine records.

Secrets and PII are redacted here, before the crawl's Parquet is written, so no stage of a build
ever writes a credential to disk; each redaction is recorded by type.

A local directory, archive or git repository is read as several parts when there are fewer locations
than workers (one big directory, archive or repository, say), and a local git repository also when its
tree has more than ``files_per_part`` entries, however many locations there are: every part runs the
whole reader but keeps only the outcomes whose location hashes to it (``outcome_part``), so the parts
are disjoint and together are exactly the reader's outcomes; the git reader lists the tree in every part
but reads only its own part's blobs. Reading is cheap next to redaction (0.14 s against 2.0 s of CPU for 16 MB of Python), so
re-reading costs little, and documents are redacted where they were read: no document is shuffled,
and a runner that holds shuffles in memory (FnApiRunner, in its driver) holds none of the corpus.
"""

from __future__ import annotations

import dataclasses

import apache_beam as beam

from codemix.document import Document, Quarantined, ReadCount, Redaction
from codemix.filters.secrets import RedactionConfig, redact_document
from codemix.mixtures.chat import render_messages
from codemix.pipelines.costs import PerDocument, PerOutputDocument
from codemix.pipelines.ledger import DOCS, DROPPED, QUARANTINED, READS, REDACTIONS, RouteOutcomes
from codemix.pipelines.progress import Progress, report
from codemix.pipelines.readers import read_counted
from codemix.pipelines.readers.common import Outcome, location_part
from codemix.pipelines.readers.git import is_remote, tree_size
from codemix.pipelines.readers.language import detect_language
from codemix.sources import SourceConfig

LocationPlan = tuple[SourceConfig, str, int]  # (source, location, parts for the workers' sake)
LocationPart = tuple[SourceConfig, str, int, int]  # (source, location, part, parts)


def source_locations(sources: list[SourceConfig]) -> list[tuple[SourceConfig, str]]:
    """One element per (source, location) configured."""
    return [(source, location) for source in sources for location in source.paths]


# Source types whose local locations read the same way every time, and cheaply, so that every
# part may run the reader: a remote location (a clone, a download) is read once.
SPLITTABLE_TYPES = ("directory", "archive", "git")


def splittable(source: SourceConfig, location: str) -> bool:
    return source.type in SPLITTABLE_TYPES and "://" not in location and not is_remote(location)


def location_plans(sources: list[SourceConfig], workers: int) -> list[LocationPlan]:
    """Every location, with enough parts (local directories, archives and repositories) that ``workers``
    all read; every other location whole."""
    locations = source_locations(sources)
    parts = max(1, -(-workers // max(1, len(locations))))
    return [(source, location, parts if splittable(source, location) else 1) for source, location in locations]


def location_parts(sources: list[SourceConfig], workers: int) -> list[LocationPart]:
    """The units of parallel reading before any repository is sized (``planned_parts`` sizes them)."""
    return [(source, location, part, parts) for source, location, parts in location_plans(sources, workers)
            for part in range(parts)]


def planned_parts(plan: LocationPlan) -> list[LocationPart]:
    """The parts of one planned location: at least the plan's, and one per ``files_per_part`` entries of a
    local git repository's tree (listed here, on a worker, so repositories are sized in parallel)."""
    source, location, parts = plan
    if source.type == "git" and splittable(source, location):
        parts = max(parts, -(-tree_size(location, source.ref) // source.files_per_part))
    return [(source, location, part, parts) for part in range(parts)]


def outcome_location(outcome: Outcome) -> str:
    return outcome.metadata.get("location", "") if isinstance(outcome, Document) else outcome.location


def outcome_part(outcome: Outcome, parts: int) -> int:
    return location_part(outcome_location(outcome), parts)


def read_location_part(element: LocationPart):
    """The outcomes of one part of a location: those ``outcome_part`` assigns to it, each reported
    to the build's progress display as a record read.

    A failure of the whole location is every part's: each part that meets it keeps its own
    quarantine record (``LOCATION#part=I/N``), which covers what that part had left to read.
    The first part reports the reader's ``ReadCount``; every other part counts one record per
    failure of the whole location it repeated, so the counts still add up over the parts.
    """
    for outcome in _part_outcomes(*element):
        if not isinstance(outcome, ReadCount):
            report("read", 1, len(outcome.text) if isinstance(outcome, Document) else 0)
        yield outcome


def _part_outcomes(source: SourceConfig, location: str, part: int, parts: int):
    if parts == 1:
        yield from read_counted(source, location)
        return
    repeated = 0
    for outcome in read_counted(source, location, (part, parts)):
        if isinstance(outcome, ReadCount):
            yield outcome if part == 0 else dataclasses.replace(outcome, records=repeated)
        elif isinstance(outcome, Quarantined) and outcome.location == location:
            repeated += 1
            yield dataclasses.replace(outcome, location=f"{location}#part={part + 1}/{parts}")
        elif outcome_part(outcome, parts) == part:
            yield outcome


def document_bytes(doc: Document) -> int:
    return len(doc.text.encode("utf-8"))


def path_language(path: str) -> str:
    """A file's language from its name alone (a path a tool call names; no text to read a shebang from)."""
    return detect_language(path, "")


class RedactWith:
    """Document -> the redacted document and one ``Redaction`` record per placeholder type."""

    def __init__(self, config: RedactionConfig):
        self.config = config

    def __call__(self, doc: Document):
        if not self.config.enabled:
            yield doc
            return
        # Transcripts part by part: code in a trace is redacted as code (render_messages rebuilds the text).
        redacted, counts = redact_document(doc, self.config, render=render_messages, language_of=path_language)
        for kind, count in sorted(counts.items()):
            yield Redaction(doc_id=doc.id, source=doc.source, type=kind, count=count)
        yield redacted


class Crawl(beam.PTransform):
    """PBegin -> documents (main, redacted), ``dropped``, ``quarantined``, ``redactions`` and ``reads``
    (one ``ReadCount`` per location read)."""

    def __init__(self, sources: list[SourceConfig], redaction: RedactionConfig, workers: int = 1):
        super().__init__()
        self._sources = sources
        self._redaction = redaction
        self._workers = workers

    def expand(self, pbegin):
        outcomes = (
            pbegin
            | "ListLocations" >> beam.Create(location_plans(self._sources, self._workers))
            | "SpreadLocations" >> beam.Reshuffle()
            | "SplitLocations" >> beam.FlatMap(planned_parts)
            | "SpreadLocationParts" >> beam.Reshuffle()
            | "ReadLocationParts" >> beam.ParDo(RouteOutcomes(PerOutputDocument(read_location_part))).with_outputs(
                DROPPED, QUARANTINED, READS, main=DOCS)
        )
        redacted = outcomes[DOCS] | "Redact" >> beam.ParDo(RouteOutcomes(PerDocument(RedactWith(self._redaction)))
                                                           ).with_outputs(REDACTIONS, main=DOCS)
        documents = redacted[DOCS] | "Progress" >> beam.ParDo(Progress("crawl", document_bytes))
        return {DOCS: documents, DROPPED: outcomes[DROPPED], QUARANTINED: outcomes[QUARANTINED],
                REDACTIONS: redacted[REDACTIONS], READS: outcomes[READS]}
