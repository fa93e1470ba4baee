"""What the dedup steps read of a Parquet document row besides its text: metadata, rank, location."""

from __future__ import annotations

import json
from typing import Any

from apache_beam.metrics import Metrics

from codemix.dedup.keeper import rank_key

NAMESPACE = "codemix.dedup"
# The columns ``rank_of_row`` and ``location_of`` read, and the source: all that ranking a document needs, so
# a read for ranks leaves the texts (nearly all of a row's bytes) in the file.
RANK_COLUMNS = ["id", "license", "metadata", "source"]


def parse_metadata(row: dict[str, Any]) -> dict[str, Any]:
    """The row's metadata JSON as a dict; malformed or non-object JSON counts as empty (and is counted)."""
    try:
        metadata = json.loads(row.get("metadata") or "{}")
    except (TypeError, ValueError):
        metadata = None
    if not isinstance(metadata, dict):
        Metrics.counter(NAMESPACE, "malformed_metadata").inc()
        return {}
    return metadata


def rank_of_row(row: dict[str, Any], order: list[str]) -> tuple:
    """``rank_key`` of a Parquet row, whose metadata is still a JSON string."""
    return rank_key({"id": row["id"], "license": row.get("license") or "", "metadata": parse_metadata(row)}, order)


def location_of(row: dict[str, Any]) -> str:
    """Where the reader found the document (``metadata["location"]``), or "" if it did not say."""
    return str(parse_metadata(row).get("location") or "")
