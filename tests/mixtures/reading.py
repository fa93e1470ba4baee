"""One transcript file read the way a build's ``transcripts`` source reads it: the reader tests' shared helper."""

from __future__ import annotations

from pathlib import Path

from codemix.document import Document, Quarantined
from codemix.pipelines.readers import read_location
from codemix.sources import ReadLimits, SourceConfig

# Real exports run to tens of MB; the tests read them whole rather than testing the size limit.
LARGE = ReadLimits(max_file_bytes=50_000_000)


def read_outcomes(path: Path, **fields) -> list[Document | Quarantined]:
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"], **fields)
    return list(read_location(source, str(path)))


def read_documents(path: Path) -> list[Document]:
    """Every outcome, asserted to be a document (a quarantine fails the test with its reason)."""
    outcomes = read_outcomes(path)
    assert all(isinstance(o, Document) for o in outcomes), outcomes
    return outcomes


def read_split(path: Path) -> tuple[list[Document], list[Quarantined]]:
    outcomes = read_outcomes(path, limits=LARGE)
    return [o for o in outcomes if isinstance(o, Document)], [o for o in outcomes if isinstance(o, Quarantined)]
