"""The typed columns each document kind's metadata fills in the published documents (``OUT/STAGE/docs/``).

A reader keeps what it learns of a document in ``Document.metadata`` (JSON in the build's own tables);
the published Parquet gives each such fact its own column with an Arrow type, so ``datasets``, duckdb
or Spark read ``parents``, ``notebook.kernel`` or ``quality_score`` without parsing JSON. A column is
null in the rows of a kind that does not fill it. docs/published-documents.md is the schema table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pyarrow as pa

Metadata = dict[str, Any]


@dataclass(frozen=True, slots=True)
class MetadataColumn:
    """One published column: its Arrow field, and its value read from a document's metadata (JSON
    types only: the value travels through the build's runs as JSON before it is written)."""

    field: pa.Field
    value: Callable[[Metadata], Any]


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _epoch_seconds(iso: Any) -> int | None:
    """git's strict ISO 8601 author date (``%aI``, with the author's offset) as seconds since the epoch."""
    return int(datetime.fromisoformat(iso).timestamp()) if isinstance(iso, str) and iso else None


def _struct_of(key: str, fields: dict[str, Callable[[Any], Any]]) -> Callable[[Metadata], Metadata | None]:
    """The metadata object under ``key`` as a struct of ``fields`` (each converted), or null without one."""
    def value(meta: Metadata) -> Metadata | None:
        found = meta.get(key)
        return {name: convert(found.get(name)) for name, convert in fields.items()} if isinstance(found, dict) else None
    return value


def _same(value: Any) -> Any:
    return value


CHANGED_FILE = pa.struct([("path", pa.string()), ("old_path", pa.string()), ("status", pa.string()),
                          ("binary", pa.bool_()), ("language", pa.string())])
NOTEBOOK = pa.struct([("layout", pa.string()), ("kernel", pa.string()), ("cells", pa.int32()),
                      ("code_cells", pa.int32()), ("outputs_kept", pa.int32()), ("outputs_dropped", pa.int32())])
THREAD = pa.struct([("number", pa.int64()), ("pull", pa.bool_()), ("comments", pa.int32()),
                    ("comments_removed", pa.int32()), ("truncated", pa.int32()), ("participants", pa.int32())])
# The ids transcript formats record for their run, in the order one is taken as ``transcript_id``.
# ``record_id`` is what the reader took from the record itself when its format names no id
# (``transcript_formats.with_record_ids``, ``shape.record_id``); ``id`` is ShareGPT's row id.
TRANSCRIPT_ID_KEYS = ("session_id", "trajectory_id", "instance_id", "run_id", "record_id", "id")
TRANSCRIPT_IDS = pa.struct([(key, pa.string()) for key in TRANSCRIPT_ID_KEYS])


def _changed_files(meta: Metadata) -> list[Metadata] | None:
    files = meta.get("files")
    return None if not isinstance(files, list) else [{name: entry.get(name) for name in CHANGED_FILE.names}
                                                     for entry in files if isinstance(entry, dict)]


def _transcript_ids(meta: Metadata) -> Metadata | None:
    native = meta.get("transcript")
    if not isinstance(native, dict):
        return None
    return {key: None if native.get(key) in (None, "") else str(native[key]) for key in TRANSCRIPT_ID_KEYS}


def _counts(names: tuple[str, ...]) -> dict[str, Callable[[Any], Any]]:
    return {name: _int for name in names}


# The columns each document kind declares (``codemix.kinds``: ``DocumentKind.columns``). A commit's sha is
# the common ``commit`` column; a transcript's format, first id and outcome are the common transcript
# columns (mixtures.provenance).
COMMIT_COLUMNS = (
    MetadataColumn(pa.field("parents", pa.list_(pa.string())),
                   lambda meta: [str(p) for p in meta["parents"]] if isinstance(meta.get("parents"), list) else None),
    MetadataColumn(pa.field("author_date", pa.timestamp("s", tz="UTC")), lambda meta: _epoch_seconds(meta.get("date"))),
    MetadataColumn(pa.field("files", pa.list_(CHANGED_FILE)), _changed_files),
)
NOTEBOOK_COLUMNS = (
    MetadataColumn(pa.field("notebook", NOTEBOOK),
                   _struct_of("notebook", {"layout": _same, "kernel": _same,
                                           **_counts(("cells", "code_cells", "outputs_kept", "outputs_dropped"))})),
)
ISSUE_COLUMNS = (
    MetadataColumn(pa.field("thread", THREAD), _struct_of("thread", {"number": _int, "pull": _same,
                                                                     **_counts(THREAD.names[2:])})),
)
TRANSCRIPT_COLUMNS = (MetadataColumn(pa.field("transcript_ids", TRANSCRIPT_IDS), _transcript_ids),)
# Kinds the quality model scores: what the filter stage's learned-quality step (``filters.quality``) adds
# to a document it kept.
SCORED_COLUMNS = (
    MetadataColumn(pa.field("quality_scorer", pa.string()), lambda meta: meta.get("quality_scorer")),
    MetadataColumn(pa.field("quality_score", pa.float64()),
                   lambda meta: None if meta.get("quality_score") is None else float(meta["quality_score"])),
)
