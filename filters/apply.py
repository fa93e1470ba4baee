"""One place that decides a document's fate: the first failing check's reason, or keep."""

from __future__ import annotations

from codemix.document import Document
from filters.code import CODE_CHECKS, check_binary
from filters.config import CodeFilterConfig, FiltersConfig


def drop_reason(doc: Document, config: FiltersConfig) -> str | None:
    """The reason ``doc`` is dropped, or ``None`` to keep it.

    Transcripts only get the size cap and the binary check: tool output has long lines and
    symbol-heavy logs by nature, and their shaping belongs to the SFT stage.
    """
    if doc.kind == "transcript":
        if len(doc.text.encode("utf-8")) > config.transcript_max_bytes:
            return "too_large"
        keep, reason = check_binary(doc.text, CodeFilterConfig())
        return None if keep else reason
    if config.allowed_languages and doc.language not in config.allowed_languages:
        return "language_not_allowed"
    thresholds = config.for_language(doc.language)
    for check in CODE_CHECKS:
        keep, reason = check(doc.text, thresholds)
        if not keep:
            return reason
    return None
