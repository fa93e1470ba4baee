"""An exporter's stamp lines: a bracketed ``[Key: value]`` line the exporter writes into (nearly) every turn of a
text export, the turn's time or its source (Obsidian Copilot's ``[Timestamp: 2025/12/30 03:49:46]`` closing each
``**user**:`` and ``**ai**:`` turn). No one said them, and in the model's turns they would be trained.

Learnt from the file: a key whose stamp lines sit in nine turns in ten (four turns or more) is the exporter's, and
its lines are taken out of every turn. A key in fewer turns (a prompt's ``[Context: Notes: plan.md]``, the note the
person attached) stays: it may be what a turn says. So are a logger's marker lines (round 18): a whole-line HTML
comment, which a Markdown page never shows (``<!--Start Prompt-->`` / ``<!--End Prompt-->`` around each prompt), or a
line that is only a date and time (``(2026-02-05 01:12:25)``), of one shape (digits aside) in nine in ten of one side's
turns: taken out of that side's turns.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codemix.mixtures.transcript_formats.base import Transcript

STAMP = re.compile(r"^[ \t]*\[(?P<key>[A-Z][A-Za-z]{1,20}(?: [A-Za-z]{1,20})?):[ \t]*[^\]\n]{1,200}\][ \t]*$",
                   re.MULTILINE)
MIN_TURNS = 4
MARKER_LINE = re.compile(r"^[ \t]*(?:<!--[^\n]{0,200}?-->|[\[(]?\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?Z?[\])]?)[ \t]*$",
                         re.MULTILINE)


def exporter_keys(contents: list[str]) -> set[str]:
    """The stamp keys that sit in nine in ten of the turns that say something."""
    said = [c for c in contents if c.strip()]
    if len(said) < MIN_TURNS:
        return set()
    keys = [{m.group("key") for m in STAMP.finditer(c)} for c in said]
    return {key for key in set().union(*keys) if sum(key in k for k in keys) * 10 >= 9 * len(said)}


def without_stamps(transcripts: list[Transcript]) -> list[Transcript]:
    """The transcripts with the exporter's stamp and marker lines taken out of every turn."""
    for transcript in transcripts:
        keys = exporter_keys([m.get("content") or "" for m in transcript.messages])
        if keys:
            for message in transcript.messages:
                if isinstance(message.get("content"), str):
                    message["content"] = unstamped(message["content"], keys)
        for role in {m.get("role") for m in transcript.messages}:
            mine = [m for m in transcript.messages if m.get("role") == role and isinstance(m.get("content"), str)]
            if shapes := marker_shapes([m["content"] for m in mine]):
                for message in mine:
                    message["content"] = unmarked(message["content"], shapes)
    return transcripts


def shape(line: str) -> str:
    return re.sub(r"\d", "#", line.strip())


def marker_shapes(contents: list[str]) -> set[str]:
    """The marker lines' shapes (``MARKER_LINE``, digits aside) that sit in nine in ten of one side's turns."""
    said = [c for c in contents if c.strip()]
    if len(said) < MIN_TURNS:
        return set()
    shapes = [{shape(m.group(0)) for m in MARKER_LINE.finditer(c)} for c in said]
    return {s for s in set().union(*shapes) if sum(s in k for k in shapes) * 10 >= 9 * len(said)}


def unmarked(content: str, shapes: set[str]) -> str:
    kept = MARKER_LINE.sub(lambda m: "\x00" if shape(m.group(0)) in shapes else m.group(0), content)
    return re.sub(r"\n?\x00", "", kept).strip()


def unstamped(content: str, keys: set[str]) -> str:
    kept = STAMP.sub(lambda m: "\x00" if m.group("key") in keys else m.group(0), content)
    return re.sub(r"\n?\x00", "", kept).strip()
