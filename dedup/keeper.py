"""Which copy of a duplicate cluster survives: a deterministic rank, smaller is better.

``rank_key`` turns a document's fields into a tuple that sorts best-first under the criteria in
``DedupConfig.keeper_order``. Every criterion contributes a fixed-shape ``(absent, value)`` pair so
tuples from different documents always compare; present values beat absent ones, and a missing
or malformed value never raises. The id is always the final component, so two distinct documents
never tie and every run picks the same keeper.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from codemix.filters.licenses import is_permissive  # the one permissive list; the license filter's default policy

RECENCY_FIELDS = ("updated_at", "committed_at", "timestamp")
# Absent values sort after present ones: (0, value) < (1, 0.0).
_ABSENT = (1, 0.0)


def as_number(value: Any) -> float | None:
    """A finite float from an int, float or numeric string; None for anything else (bools included)."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def as_epoch_seconds(value: Any) -> float | None:
    """Seconds since 1970 from an ISO-8601 string or an epoch number; None if it is neither.

    Numbers above 1e11 are read as milliseconds (1e11 seconds is the year 5138). Naive ISO times
    are taken as UTC so the rank does not depend on the machine's time zone.
    """
    number = as_number(value) if not isinstance(value, str) else None
    if number is not None:
        return number / 1000.0 if abs(number) > 1e11 else number
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _metadata(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = doc.get("metadata")
    return metadata if isinstance(metadata, Mapping) else {}


def _permissive(doc: Mapping[str, Any]) -> tuple[int, float]:
    return (0, 0.0) if is_permissive(str(doc.get("license") or "")) else _ABSENT


def _more_is_better(name: str) -> Callable[[Mapping[str, Any]], tuple[int, float]]:
    def criterion(doc: Mapping[str, Any]) -> tuple[int, float]:
        number = as_number(_metadata(doc).get(name))
        return _ABSENT if number is None else (0, -number)

    return criterion


def _recency(doc: Mapping[str, Any]) -> tuple[int, float]:
    metadata = _metadata(doc)
    for name in RECENCY_FIELDS:
        seconds = as_epoch_seconds(metadata.get(name))
        if seconds is not None:
            return (0, -seconds)
    return _ABSENT


def _smallest_id(doc: Mapping[str, Any]) -> tuple[str]:
    return (str(doc.get("id", "")),)


CRITERIA: dict[str, Callable[[Mapping[str, Any]], tuple]] = {
    "permissive_license": _permissive,
    "stars": _more_is_better("stars"),
    "forks": _more_is_better("forks"),
    "recency": _recency,
    "smallest_id": _smallest_id,
}


def rank_key(doc_fields: Mapping[str, Any], order: Sequence[str]) -> tuple:
    """Sort key for a keeper, smaller = better, from ``id``, ``license`` and ``metadata`` (a dict).

    ``order`` lists criterion names from ``CRITERIA`` (validated by ``DedupConfig``), most
    important first. The id is appended last, so the key is total and deterministic.
    """
    parts = tuple(CRITERIA[name](doc_fields) for name in order)
    return (*parts, str(doc_fields.get("id", "")))
