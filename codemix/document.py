"""The one record that flows through every stage, and the outcomes a reader or filter emits.

Every record a reader touches ends as exactly one of:
  * a ``Document`` (which a later stage may still drop or mark duplicate),
  * a ``Dropped`` with a stable snake_case ``reason``,
  * a ``Quarantined`` carrying where it came from and the error.
That is what lets ``counts.read == kept + dropped + duplicates + quarantined`` hold.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import zstandard

from codemix.kinds import DOCUMENT_KINDS  # noqa: F401  (the names a ``Document.kind`` takes)


@dataclass(slots=True, kw_only=True)
class Document:
    """One unit of training text. Code fields are first-class; anything else goes in ``metadata``."""

    id: str
    text: str
    source: str
    kind: str  # a registered document kind's name (codemix.kinds)
    repo: str = ""
    path: str = ""
    language: str = ""
    license: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_row(self) -> dict[str, Any]:
        # The fields as they are (``dataclasses.asdict`` would deep-copy the metadata only to serialise it: 4x
        # the CPU). Key order is kept as read: sorting would reorder a tool call's arguments and make a
        # transcript re-rendered from its messages differ from its text.
        row = {name: getattr(self, name) for name in _DOCUMENT_FIELDS}
        row["metadata"] = json.dumps(self.metadata, ensure_ascii=False)
        return row

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Document:
        values = dict(row)
        values["metadata"] = json.loads(values.get("metadata") or "{}")
        return cls(**values)


_DOCUMENT_FIELDS = tuple(field.name for field in dataclasses.fields(Document))

DOCUMENT_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("text", pa.large_string()),
        ("source", pa.string()),
        ("kind", pa.string()),
        ("repo", pa.string()),
        ("path", pa.string()),
        ("language", pa.string()),
        ("license", pa.string()),
        ("metadata", pa.large_string()),  # JSON object
    ]
)


@dataclass(slots=True, frozen=True, kw_only=True)
class Dropped:
    """A record removed on purpose; ``reason`` is a stable snake_case name."""

    stage: str
    source: str
    location: str
    reason: str
    doc_id: str = ""
    reasons: tuple[str, ...] = ()  # a prose drop: every check it fails, ``reason`` first (else empty)
    detail: str = ""  # the evidence behind ``reason`` where one is named (``own LICENSE + package.json at x/``)

    def to_row(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "reasons": list(self.reasons)}


@dataclass(slots=True, frozen=True, kw_only=True)
class Quarantined:
    """A record that could not be read or understood, kept with its location and the error."""

    stage: str
    source: str
    location: str
    error: str

    def to_row(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(slots=True, frozen=True, kw_only=True)
class ReadCount:
    """How many records a reader met at one location, counted where it enumerates them (a file of a
    walk, an archive member, a tree entry, a line, a row) and not from the outcomes it yields. The
    manifest checks these counts against the outcomes the ledgers hold, so a reader that loses a
    record without a trace fails the check instead of shrinking ``counts.read`` with it."""

    stage: str
    source: str
    location: str
    records: int

    def to_row(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


DROPPED_SCHEMA = pa.schema(
    [("stage", pa.string()), ("source", pa.string()), ("location", pa.string()),
     ("reason", pa.string()), ("doc_id", pa.string()), ("reasons", pa.list_(pa.string())), ("detail", pa.string())]
)
QUARANTINED_SCHEMA = pa.schema(
    [("stage", pa.string()), ("source", pa.string()), ("location", pa.string()), ("error", pa.string())]
)

Outcome = Document | Dropped | Quarantined


def make_doc_id(source: str, location: str) -> str:
    """Stable id from where a record came from, so reruns give the same ids (and the same keepers)."""
    return hashlib.blake2b(f"{source}\x00{location}".encode(), digest_size=16).hexdigest()


# Part k of a document split in parts (a long repository): ``<whole's id>#part<k>``, k zero-padded, so the
# shard writer can keep a whole's parts together and in order (``pipelines.shards.position_of``).
PART_ID = re.compile(r"(.+)#part(\d{5})")


def part_id(whole_id: str, part: int) -> str:
    """The id of part ``part`` (0-based) of the document ``whole_id``."""
    return f"{whole_id}#part{part:05d}"


def split_part_id(doc_id: str) -> tuple[str, int] | None:
    """(whole's id, part) of a part's id; None for any other id."""
    match = PART_ID.fullmatch(doc_id)
    return (match.group(1), int(match.group(2))) if match else None


def describe_error(error: BaseException) -> str:
    """One line naming the exception type and its message, for quarantine records."""
    message = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {message}"[:2000]


@dataclass(slots=True, frozen=True, kw_only=True)
class Redaction:
    """How many values of one type were replaced by a placeholder in one document."""

    doc_id: str
    source: str
    type: str
    count: int

    def to_row(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(slots=True, frozen=True, kw_only=True)
class ContaminationHit:
    """A benchmark item whose n-grams a dropped document overlapped."""

    doc_id: str
    source: str
    location: str
    benchmark: str
    item_id: str
    overlap: float
    # The match: how many of the item's normalised tokens the document holds, and where (1-based lines).
    matched_tokens: int = 0
    start_line: int = 0
    end_line: int = 0
    # What matched: n-gram overlap of an item (``ngram_overlap``), or a benchmark instance's policy
    # (``benchmark_trace``, ``benchmark_commit``... filters/benchmarks.py) and its evidence.
    policy: str = "ngram_overlap"
    evidence: str = ""

    def to_row(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


REDACTION_SCHEMA = pa.schema(
    [("doc_id", pa.string()), ("source", pa.string()), ("type", pa.string()), ("count", pa.int64())]
)
CONTAMINATION_SCHEMA = pa.schema(
    [("doc_id", pa.string()), ("source", pa.string()), ("location", pa.string()), ("benchmark", pa.string()),
     ("item_id", pa.string()), ("overlap", pa.float64()), ("matched_tokens", pa.int64()), ("start_line", pa.int64()),
     ("end_line", pa.int64()), ("policy", pa.string()), ("evidence", pa.string())]
)


# A shuffle of whole Documents (the crawl's spread over workers, the long stage's grouping by
# repository, the SFT stage's by shard) carries the text zstd-compressed: FnApiRunner holds every
# shuffle in the driver process, and code compresses ~3x at level 1.
PACK_LEVEL = 1


def packed_document(doc: Document) -> tuple[bytes, Document]:
    """(the text, zstd-compressed; the document without it): what to shuffle."""
    return zstandard.compress(doc.text.encode("utf-8"), PACK_LEVEL), dataclasses.replace(doc, text="")


def unpacked_document(packed: tuple[bytes, Document]) -> Document:
    """The document ``packed_document`` was given, text restored exactly."""
    text, doc = packed
    return dataclasses.replace(doc, text=zstandard.decompress(text).decode("utf-8"))
