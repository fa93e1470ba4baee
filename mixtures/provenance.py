"""Provenance sidecars: where each document of a shard came from, one Parquet row per document.

Design notes: docs/design/mixtures.md, "mixtures/provenance.py".
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from codemix.columns import TRANSCRIPT_ID_KEYS
from codemix.document import Document
from codemix.kinds import REPO, document_kind, metadata_columns

SUFFIX = ".provenance.parquet"
# The ids a transcript format records for its run, in the order one is taken as ``transcript_id``.
NATIVE_TRANSCRIPT_IDS = TRANSCRIPT_ID_KEYS
OUTCOME = pa.struct([("exit_status", pa.string()), ("submitted", pa.bool_()), ("resolved", pa.bool_()),
                     ("tests_passed", pa.bool_())])
PROVENANCE_SCHEMA = pa.schema([
    ("shard", pa.string()),            # the shard's file name without .bin/.idx
    ("document", pa.int64()),          # index in the shard (IndexedDataset[document])
    ("token_start", pa.int64()),       # offset in the .bin, in tokens
    ("token_count", pa.int64()),       # the document's ids, EOD included
    ("ends_with_eod", pa.bool_()),
    ("doc_id", pa.string()),
    ("source", pa.string()),
    ("kind", pa.string()),             # a document kind's name (codemix.kinds)
    ("location", pa.string()),
    ("repo", pa.string()),
    ("path", pa.string()),
    ("paths", pa.list_(pa.string())),  # every file in the document, in order
    ("commit", pa.string()),
    ("archive", pa.string()),
    ("member", pa.string()),
    ("license", pa.string()),
    ("language", pa.string()),
    ("transcript_id", pa.string()),
    ("transcript_format", pa.string()),
    ("outcome", OUTCOME),
    ("sample", pa.int32()),            # SFT: which sample of the transcript, from 0
    ("turns_start", pa.int32()),       # SFT: the transcript's messages [start, end) the sample trains on
    ("turns_end", pa.int32()),
    ("summary", pa.string()),          # SFT: how a continuation opens: "real", "templated" or ""
    ("part", pa.int32()),              # long stage: which document of its repository, from 0, in file order
    ("parts", pa.int32()),             # long stage: how many documents the repository became
])
# A stage's documents as published (``OUT/STAGE/docs/*.parquet``): the sidecar's columns, each document
# kind's metadata as typed columns (each kind's ``columns``; docs/published-documents.md), and the text.
DOCUMENTS_SCHEMA = pa.schema([*PROVENANCE_SCHEMA, *(column.field for column in metadata_columns()),
                              pa.field("text", pa.large_string())])
_DEFAULTS: dict[str, Any] = {field.name: None for field in DOCUMENTS_SCHEMA if field.name != "text"}


def sidecar_path(prefix: str) -> str:
    return f"{prefix}{SUFFIX}"


def document_provenance(doc: Document) -> dict[str, Any]:
    """What a shard row says of ``doc``, before its place in the shard is known."""
    meta, kind = doc.metadata, document_kind(doc.kind)
    row = {"doc_id": doc.id, "source": doc.source, "kind": doc.kind, "location": str(meta.get("location", "")),
           "repo": doc.repo, "path": doc.path, "paths": [doc.path] if doc.path and "paths" in kind.provenance else [],
           "commit": str(meta.get("commit", "")), "archive": str(meta.get("archive", "")),
           "member": str(meta.get("member", "")), "license": doc.license, "language": doc.language}
    if "outcome" in kind.provenance:
        row.update(transcript_provenance(meta))
    return {**row, **{column.field.name: column.value(meta) for column in kind.published_columns()}}


def transcript_provenance(meta: dict[str, Any]) -> dict[str, Any]:
    """The format, the run's own id (first of ``NATIVE_TRANSCRIPT_IDS`` it records) and outcome facts."""
    native = meta.get("transcript") if isinstance(meta.get("transcript"), dict) else {}
    run_id = next((str(native[key]) for key in NATIVE_TRANSCRIPT_IDS if native.get(key)), "")
    status = meta.get("exit_status")
    outcome = {"exit_status": None if status is None else str(status),
               **{fact: _flag(meta.get(fact)) for fact in ("submitted", "resolved", "tests_passed")}}
    return {"transcript_id": run_id, "transcript_format": str(meta.get("format", "")), "outcome": outcome}


def _flag(value: Any) -> bool | None:
    return None if value is None else bool(value)


def chunk_provenance(docs: Sequence[Document], chunk_id: str, paths: Sequence[str], *, part: int = 0,
                     parts: int = 1) -> dict[str, Any]:
    """A long-stage document: ``paths`` of one repository's files ``docs`` (any order), as one row.
    Licenses and languages are every distinct one among the chunk's files (licenses joined with
    `` AND ``, as an SPDX expression: all of them apply to the chunk)."""
    by_path = {doc.path: doc for doc in docs}
    files = [by_path[path] for path in paths]
    first = files[0]
    return {"doc_id": chunk_id, "source": first.source, "kind": REPO.name, "location": _repo_location(first),
            "repo": first.repo, "path": "", "paths": list(paths), "commit": str(first.metadata.get("commit", "")),
            "archive": str(first.metadata.get("archive", "")), "member": "",
            "license": " AND ".join(_distinct(doc.license for doc in files)),
            "language": ",".join(_distinct(doc.language for doc in files)), "part": part, "parts": parts}


def _repo_location(doc: Document) -> str:
    """Where the repository was read: the location without the file's part (``repo@commit``, ``archive``)."""
    location = str(doc.metadata.get("location", ""))
    if doc.metadata.get("archive"):
        return str(doc.metadata["archive"])
    if doc.metadata.get("commit") and location.endswith(f":{doc.path}"):
        return location[: -len(doc.path) - 1]
    return location


def _distinct(values: Iterable[str]) -> list[str]:
    return sorted({value for value in values if value})


def provenance_table(prefix: str, rows: Sequence[dict[str, Any]], lengths: Sequence[int], *, ends_with_eod: bool,
                     first: tuple[int, int] = (0, 0), texts: Sequence[str] | None = None) -> pa.Table:
    """The sidecar of shard ``prefix``: ``rows[i]`` (from ``document_provenance``) placed as document
    ``i`` of ``lengths[i]`` tokens; from document ``first[0]`` at token ``first[1]`` for a later part
    of the shard. With ``texts``, the documents' rows as published (``DOCUMENTS_SCHEMA``)."""
    if len(rows) != len(lengths) or (texts is not None and len(texts) != len(rows)):
        raise ValueError(f"{len(rows)} provenance rows for {len(lengths)} documents of {prefix}")
    shard, (index, start), placed = prefix.rstrip("/").rsplit("/", 1)[-1], first, []
    for offset, (row, length) in enumerate(zip(rows, lengths)):
        placed.append({**_DEFAULTS, **row, "shard": shard, "document": index + offset, "token_start": start,
                       "token_count": int(length), "ends_with_eod": ends_with_eod})
        start += int(length)
    if texts is None:  # the sidecar: the metadata columns are the published documents' only
        return pa.Table.from_pylist([{name: row[name] for name in PROVENANCE_SCHEMA.names} for row in placed],
                                    schema=PROVENANCE_SCHEMA)
    for row, text in zip(placed, texts):
        row["text"] = text
    return pa.Table.from_pylist(placed, schema=DOCUMENTS_SCHEMA)


def write_provenance(prefix: str, table: pa.Table) -> str:
    """Write ``PREFIX.provenance.parquet`` under a temporary name, then rename it: never torn."""
    final = sidecar_path(prefix)
    temporary = f"{final}.tmp-{uuid.uuid4().hex[:12]}"
    with FileSystems.create(temporary, compression_type=CompressionTypes.UNCOMPRESSED) as out:
        pq.write_table(table, out)
    if FileSystems.exists(final):
        FileSystems.delete([final])
    FileSystems.rename([temporary], [final])
    return final


class ParquetStream:
    """A Parquet file written table by table under a temporary name, renamed on ``commit()``."""

    def __init__(self, path: str, schema: pa.Schema):
        self.path, self._temporary = path, f"{path}.tmp-{uuid.uuid4().hex[:12]}"
        self._handle = FileSystems.create(self._temporary, compression_type=CompressionTypes.UNCOMPRESSED)
        self._writer = pq.ParquetWriter(self._handle, schema)

    def write(self, table: pa.Table) -> None:
        self._writer.write_table(table)

    def commit(self) -> None:
        self._writer.close()
        self._handle.close()
        if FileSystems.exists(self.path):
            FileSystems.delete([self.path])
        FileSystems.rename([self._temporary], [self.path])

    def abort(self) -> None:
        self._writer.close()
        self._handle.close()
        FileSystems.delete([self._temporary])


def read_provenance(prefix: str) -> pa.Table:
    """The sidecar of shard ``prefix``, local or on an object store."""
    with FileSystems.open(sidecar_path(prefix), compression_type=CompressionTypes.UNCOMPRESSED) as handle:
        return pq.read_table(pa.BufferReader(handle.read()))
