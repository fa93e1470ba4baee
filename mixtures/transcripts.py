"""AI-agent transcripts -> a document's text and metadata (pure; the reader is ``pipelines.readers.transcripts``).

Design notes: docs/design/mixtures.md, "mixtures/transcripts.py".
"""

from __future__ import annotations

from typing import Any, NamedTuple

from codemix.mixtures.chat import render_messages
from codemix.mixtures.transcript_formats import (
    FORMAT_NAMES,
    SESSION_FORMATS,
    TEXT_FORMATS,
    Transcript,
    TranscriptShapeError,
    has_task,
    outcome_facts,
    parse_json_value,
    parse_session,
    parse_text,
    rows_of,
    session_format,
)
from codemix.mixtures.transcript_formats.canonical import MAX_JSON_DEPTH, nested_deeper_than
from codemix.mixtures.transcript_formats.openai import chat_message as normalize_message
from codemix.mixtures.transcript_formats.outcomes import last_test_summary, parse_test_summary

SESSION_FORMAT_NAMES = frozenset(f.name for f in SESSION_FORMATS)
TEXT_FORMAT_NAMES = frozenset(f.name for f in TEXT_FORMATS)

__all__ = ["FORMAT_NAMES", "MAX_JSON_DEPTH", "SESSION_FORMAT_NAMES", "TEXT_FORMAT_NAMES", "TranscriptRecord",
           "TranscriptShapeError", "has_task", "last_test_summary", "nested_deeper_than", "normalize_message",
           "parse_json_value", "parse_session", "parse_test_summary", "parse_text", "rows_of", "session_format",
           "transcript_record"]


class TranscriptRecord(NamedTuple):
    """What a Document of one transcript holds: rendered ``text``, ``metadata`` and the ``repo``."""

    text: str
    metadata: dict[str, Any]
    repo: str


def transcript_record(transcript: Transcript) -> TranscriptRecord:
    """The document parts of one parsed transcript (see the module docstring for the metadata keys)."""
    metadata: dict[str, Any] = {"format": transcript.format, "messages": transcript.messages,
                                **outcome_facts(transcript.facts, transcript.messages)}
    if transcript.compactions:
        metadata["compactions"] = transcript.compactions
    if transcript.tools:
        metadata["tools"] = transcript.tools
    if transcript.extra:
        metadata["transcript"] = transcript.extra
    return TranscriptRecord(render_messages(transcript.messages), metadata, transcript.repo)
