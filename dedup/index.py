"""The signature index: what a later build needs to dedup against this one without rehashing it.

Design notes: docs/design/dedup.md, "dedup/index.py".
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa

from codemix.dedup.config import DedupConfig
from codemix.dedup.scope import scope_of

# Names how minhash.py turns text into signatures; change it whenever that changes, so older
# indexes are refused instead of silently matching nothing.
HASH_SCHEME = "xxh64 of \\W+ token n-grams; h -> a*h + b mod 2^64"
METADATA_KEY = b"codemix.dedup.minhash"
# A NUL cannot occur in ids from make_doc_id (hex), so new and earlier documents never share a node.
PREVIOUS = "\x00previous:"
FIELD = "dedup.previous_indexes"


def index_parameters(config: DedupConfig) -> dict[str, Any]:
    """The settings two signatures must share to be compared."""
    return {
        "hash": HASH_SCHEME,
        "num_perm": config.num_perm,
        "seed": config.seed,
        "shingle_size": config.shingle_size,
        "lowercase": config.lowercase,
    }


def index_schema(config: DedupConfig) -> pa.Schema:
    """The index's columns; ``kind`` (the document kind) places a signature in its dedup scope when a later
    build reads it (indexes written before it was recorded lack it)."""
    fields = [("doc_id", pa.string()), ("source", pa.string()), ("location", pa.string()), ("signature", pa.binary()),
              ("kind", pa.string())]
    return pa.schema(fields, metadata={METADATA_KEY: json.dumps(index_parameters(config), sort_keys=True).encode()})


def index_row(doc_id: str, source: str, location: str, signature: bytes, kind: str) -> dict[str, Any]:
    return {"doc_id": doc_id, "source": source, "location": location, "signature": signature, "kind": kind}


def previous_node(doc_id: str) -> str:
    """The graph node of a document from an earlier build's index."""
    return PREVIOUS + doc_id


def is_previous(node: str) -> bool:
    return node.startswith(PREVIOUS)


def doc_id_of(node: str) -> str:
    """The document id behind a graph node, new or earlier."""
    return node[len(PREVIOUS) :] if is_previous(node) else node


def previous_signature(row: dict[str, Any], num_perm: int, across_kinds: bool = False) -> tuple[str, bytes, str]:
    """(node, signature bytes, dedup scope) of an index row; a signature of the wrong length fails the pipeline.
    Without ``across_kinds`` the row's ``kind`` places it (``dedup.stage.scope_of``)."""
    signature = row["signature"] or b""
    if len(signature) != 8 * num_perm:
        raise ValueError(f"{FIELD}: signature of {row['doc_id']!r} has {len(signature)} bytes, expected {8 * num_perm}")
    return previous_node(row["doc_id"]), signature, scope_of(row.get("kind") or "", across_kinds)
