"""JSON string values of tool calls decoded with each character's place in the raw JSON (``decode_json_string``),
and a file shown twice in one trace redacted (and counted) in both places."""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

import pytest

from bench.transcript_redaction import carried, read_back
from codemix.filters.secrets import RedactionConfig, redact_messages
from codemix.filters.transcript_parts import decode_json_string
from codemix.pipelines.crawl import path_language

STDLIB = Path(sysconfig.get_path("stdlib"))
# Real files with escapes of every kind once JSON-encoded: quotes, backslashes, tabs, non-ASCII text.
REAL = ["json/decoder.py", "textwrap.py", "encodings/cp1252.py"]


def _offsets_point_at_their_characters(raw: str, text: str, offsets: tuple[int, ...]) -> bool:
    return all(raw[at] == char or raw[at] == "\\" for at, char in zip(offsets, text))


@pytest.mark.parametrize("name", REAL)
@pytest.mark.parametrize("ascii_only", [True, False])
def test_decoded_values_are_what_json_reads_with_offsets_into_the_raw_text(name: str, ascii_only: bool) -> None:
    code = (STDLIB / name).read_text(encoding="utf-8")
    raw = json.dumps({"path": name, "file_text": code}, ensure_ascii=ascii_only)
    start = raw.index('"file_text": ') + len('"file_text": ')
    decoded = decode_json_string(raw, start, len(raw) - 1)
    assert decoded is not None
    text, offsets = decoded
    assert text == code and len(offsets) == len(text) + 1 and offsets[-1] == len(raw) - 2
    assert list(offsets) == sorted(set(offsets)) and _offsets_point_at_their_characters(raw, text, offsets)


@pytest.mark.parametrize("literal", [r'"bad \x escape"', '"ends in a lone \\"', r'"short \u12"'])
def test_invalid_escapes_are_not_decoded(literal: str) -> None:
    assert decode_json_string(literal, 0, len(literal)) is None


def test_a_file_written_and_shown_is_redacted_and_counted_in_both_copies() -> None:
    code = (STDLIB / "textwrap.py").read_text(encoding="utf-8")
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    planted = code.replace("__all__ = ", f'GITHUB_TOKEN = "{token}"\n__all__ = ', 1)
    messages, counts = redact_messages(carried("textwrap.py", planted), RedactionConfig(), path_language)
    copies = read_back(messages)
    assert all(token not in copy and "<SECRET_" in copy for copy in copies.values())
    assert sum(n for kind, n in counts.items() if kind.startswith("SECRET_")) == 3  # tool call, output, fence
