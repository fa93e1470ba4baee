"""aider chat histories (``aider``): ``.aider.chat.history.md``.

``Aider-AI/aider`` ``aider/io.py`` appends to this file: ``# aider chat started at <time>`` opens a
session; ``user_input`` writes each input line as ``#### line`` (lines end in two spaces, a Markdown
line break); ``tool_output``, ``tool_error`` and confirmations write ``> text``; ``ai_output`` writes
the model's reply as plain Markdown between blank lines. One session is one transcript.
"""

from __future__ import annotations

import re
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import TranscriptShapeError, message

SESSION_START = re.compile(r"^# aider chat started at (.*)$", re.MULTILINE)
USER_LINE = "####"
TOOL_LINE = ">"
FENCE = re.compile(r"^\s*(```|~~~)")


def detect_aider(text: Any) -> bool:
    return isinstance(text, str) and text.lstrip().startswith("# aider chat started at")


def parse_aider(text: str) -> list[Transcript]:
    starts = list(SESSION_START.finditer(text))
    if not starts:
        raise TranscriptShapeError("no '# aider chat started at' line")
    transcripts = []
    for match, end in zip(starts, [*(m.start() for m in starts[1:]), len(text)]):
        messages = session_messages(text[match.end():end])
        if messages:
            transcripts.append(Transcript(format="aider", messages=messages, extra={"started_at": match.group(1)}))
    if not transcripts:
        raise TranscriptShapeError("aider sessions with nothing in them")
    return transcripts


def session_messages(body: str) -> list[dict[str, Any]]:
    """Blocks of consecutive ``####`` lines (user), ``>`` lines (tool output) and other text (the reply).
    Inside a fenced block of a reply every line is the reply's (an edit may quote ``> `` lines)."""
    blocks: list[tuple[str, list[str]]] = []
    fenced = False
    for line in body.split("\n"):
        kind = "assistant" if fenced else line_kind(line)
        if kind == "blank":
            if blocks and blocks[-1][0] == "assistant":
                blocks[-1][1].append("")
            else:
                blocks.append(("blank", []))
            continue
        if kind == "assistant" and FENCE.match(line):
            fenced = not fenced
        text = line if kind == "assistant" else unprefixed(line, USER_LINE if kind == "user" else TOOL_LINE)
        if blocks and blocks[-1][0] == kind:
            blocks[-1][1].append(text)
        else:
            blocks.append((kind, [text]))
    return [block_message(kind, lines) for kind, lines in blocks if kind != "blank" and "".join(lines).strip()]


def line_kind(line: str) -> str:
    if not line.strip():
        return "blank"
    if line == USER_LINE or line.startswith(USER_LINE + " "):
        return "user"
    if line == TOOL_LINE or line.startswith(TOOL_LINE + " "):
        return "tool"
    return "assistant"


def unprefixed(line: str, prefix: str) -> str:
    """The line as typed: without the prefix and the two-space Markdown line break aider appends."""
    text = line[len(prefix) + 1:] if line.startswith(prefix + " ") else ""
    return text.removesuffix("  ")


def block_message(kind: str, lines: list[str]) -> dict[str, Any]:
    text = "\n".join(lines).strip("\n")
    if kind == "user":
        text = "" if text == "<blank>" else text
        # A slash command (/add, /run...) is an instruction to aider, never sent to the model as a turn.
        return message("user", text, observation=text.startswith("/"))
    if kind == "tool":
        return message("tool", text, observation=True)
    return message("assistant", text)


AIDER = Format(name="aider", container="text", detect=detect_aider, parse=parse_aider)
