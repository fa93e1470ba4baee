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
    named_parties,
    observation_as_task,
    opening_step_as_context,
    outcome_facts,
    parse_json_value,
    parse_session,
    parse_text,
    rows_of,
    session_format,
    statement_as_task,
    system_as_task,
    with_speakers,
)
from codemix.mixtures.transcript_formats.canonical import MAX_JSON_DEPTH, flag_text_observations, nested_deeper_than
from codemix.mixtures.transcript_formats.openai import chat_message as normalize_message
from codemix.mixtures.transcript_formats.outcomes import last_test_summary, parse_test_summary

SESSION_FORMAT_NAMES = frozenset(f.name for f in SESSION_FORMATS)
TEXT_FORMAT_NAMES = frozenset(f.name for f in TEXT_FORMATS)

__all__ = [
    "FORMAT_NAMES",
    "MAX_JSON_DEPTH",
    "READ_CUT",
    "SESSION_FORMAT_NAMES",
    "TEXT_FORMAT_NAMES",
    "TranscriptRecord",
    "TranscriptShapeError",
    "cut_observations",
    "has_task",
    "last_test_summary",
    "named_parties",
    "nested_deeper_than",
    "normalize_message",
    "observation_as_task",
    "opening_step_as_context",
    "parse_json_value",
    "parse_session",
    "parse_test_summary",
    "parse_text",
    "rows_of",
    "session_format",
    "statement_as_task",
    "system_as_task",
    "transcript_record",
    "with_speakers",
]


class TranscriptRecord(NamedTuple):
    """What a Document of one transcript holds: rendered ``text``, ``metadata`` and the ``repo``."""

    text: str
    metadata: dict[str, Any]
    repo: str


# What stands in for the middle of an observation cut at read time (the SFT stage's own cut says the same).
READ_CUT = "\n[... {n:,} characters of output cut when read ...]\n"


def cut_observations(messages: list[dict[str, Any]], max_chars: int, max_total: int | None = None) -> dict[str, int]:
    """Each observation longer than ``max_chars`` cut to its head and tail around ``READ_CUT`` (in
    place), then, while the observations together exceed ``max_total``, each cut further by its share of
    the excess (by size); returns ``{"observations": n, "chars": removed}`` (empty when nothing was cut).
    One huge tool output (a 50 MB file dump), or many long ones, would otherwise drop the whole run for
    size, and every model turn with it; what the model wrote is never cut."""
    cut: set[int] = set()
    removed = 0
    for index, canonical in enumerate(messages):
        if canonical["observation"] and len(canonical["content"]) > max_chars:
            removed += _cut_to(canonical, max_chars)
            cut.add(index)
    observed = [i for i, m in enumerate(messages) if m["observation"]]
    total = sum(len(messages[i]["content"]) for i in observed)
    if max_total is not None and total > max_total:
        excess = total - max_total
        for i in observed:
            size = len(messages[i]["content"])
            keep = size - -(-excess * size // total) - len(READ_CUT)  # its share of the excess, and the note's length
            if keep < size and (taken := _cut_to(messages[i], max(keep, 0))):
                removed += taken
                cut.add(i)
    return {"observations": len(cut), "chars": removed} if cut else {}


def _cut_to(canonical: dict[str, Any], keep: int) -> int:
    """``canonical``'s content cut to ``keep`` characters, head and tail around ``READ_CUT`` (in place); the
    characters removed."""
    content = canonical["content"]
    if len(content) <= keep:
        return 0
    head = keep // 2
    canonical["content"] = content[:head] + READ_CUT.format(n=len(content) - keep) + content[len(content) - (keep - head):]
    return len(content) - keep


def transcript_record(transcript: Transcript, max_observation_chars: int | None = None,
                      max_observations_total_chars: int | None = None) -> TranscriptRecord:
    """The document parts of one parsed transcript (see the module docstring for the metadata keys).

    Tool output a format hands back as a user turn is flagged an observation whatever the format
    (``flag_text_observations``), so the prose filters never judge it; unless the format states its roles
    (``Transcript.stated_roles``)."""
    if not transcript.stated_roles:
        flag_text_observations(transcript.messages)
    metadata: dict[str, Any] = {"format": transcript.format, "messages": transcript.messages,
                                **outcome_facts(transcript.facts, transcript.messages)}
    if max_observation_chars is not None and (cut := cut_observations(transcript.messages, max_observation_chars,
                                                                      max_observations_total_chars)):
        metadata["observations_cut"] = cut
    if transcript.compactions:
        metadata["compactions"] = transcript.compactions
    if transcript.tools:
        metadata["tools"] = transcript.tools
    if transcript.extra:
        metadata["transcript"] = transcript.extra
    return TranscriptRecord(render_messages(transcript.messages), metadata, transcript.repo)
