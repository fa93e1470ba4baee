"""Chats exported as text with headed turns (``markdown-turns``).

Chat exporters write one heading per turn: a Markdown heading (``## User``, ``### Assistant:``), a bold
line (``**User**``, ``**Assistant:**``) or an italic bold one (``_**User**_``, ``_**Assistant**_``, the
SpecStory export of Cursor chats, where ``_****_`` continues the model's turn), optionally followed by a
parenthesised model name or time. Speakers are the role aliases of ``shape.ROLE_ALIASES``. The text up to
the next heading is the turn; ``---`` rules around it are the exporter's. A collapsed ``<details>``
block inside a model turn is a tool's output (an observation). A log with no such heading may open its
turns with banners instead (``===== USER =====``, ``<assistant>`` ... ``</assistant>``, ``USER:`` alone on
a line).
"""

from __future__ import annotations

import json
import re
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import flag_text_observations, message
from codemix.mixtures.transcript_formats.turns import ROLE_ALIASES, turn_messages

_SPEAKER = r"([A-Za-z][A-Za-z _-]{0,30}?)"
_SUFFIX = r"(?:\s*\([^)\n]{0,80}\))?\s*:?"
HEADING = re.compile(
    rf"^(?:#{{1,6}}[ \t]+{_SPEAKER}{_SUFFIX}|\*\*{_SPEAKER}{_SUFFIX}\*\*:?|_\*\*{_SPEAKER}?{_SUFFIX}\*\*_)[ \t]*$",
    re.MULTILINE)
# A line that is only a speaker between rules or in a tag, as logs write a turn's opening
# (``===== USER =====``, ``----- assistant -----``, ``<assistant>``), or a capitalised speaker and a colon
# alone on a line (``User:``; a YAML file's lower-case ``user:`` and ``model:`` sections are no turns).
BANNER = re.compile(
    rf"^[ \t]*(?:(?:={{2,}}|-{{2,}}|\*{{3,}})[ \t]*{_SPEAKER}{_SUFFIX}[ \t]*(?:={{2,}}|-{{2,}}|\*{{3,}})?"
    rf"|<{_SPEAKER}>|([A-Z][A-Za-z _-]{{0,30}}?)[ \t]*:)[ \t]*$", re.MULTILINE)
CLOSING_TAG = re.compile(rf"^[ \t]*</(?:{'|'.join(map(re.escape, ROLE_ALIASES))})>[ \t]*$", re.MULTILINE | re.IGNORECASE)
DETAILS = re.compile(r"<details>.*?</details>", re.DOTALL)
QUOTED_LINES = re.compile(r"^[ \t]*>[^\n]*\n?", re.MULTILINE)  # an exporter's time or note quoted above the body
RULE = re.compile(r"^\s*(?:---+\s*)+|(?:\s*---+)+\s*$")


def headings(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, role)`` of every turn heading whose speaker is a role alias (or ``_****_``: the
    model's turn going on); where the text has no Markdown heading of a turn, its banners (``BANNER``)."""
    return marked(text, HEADING) or marked(text, BANNER)


def marked(text: str, pattern: re.Pattern) -> list[tuple[int, int, str]]:
    found = []
    for match in pattern.finditer(text):
        speaker = next((g for g in match.groups() if g), "")
        role = ROLE_ALIASES.get(speaker.strip().lower()) if speaker else "continued"
        if role is None and speaker.strip().split()[0].lower() in ROLE_ALIASES:  # "Agent (model)", "User said"
            role = ROLE_ALIASES[speaker.strip().split()[0].lower()]
        if role is not None:
            found.append((match.start(), match.end(), role))
    return found


def detect_markdown_turns(text: Any) -> bool:
    if not isinstance(text, str):
        return False
    roles = {role for _, _, role in headings(text)}
    return "user" in roles and "assistant" in roles


def section_messages(role: str, body: str) -> list[dict[str, Any]]:
    body = RULE.sub("", CLOSING_TAG.sub("", body)).strip()
    if role != "assistant":
        return [message(role, body, observation=role == "tool")] if body else []
    messages, last = [], 0
    for block in DETAILS.finditer(body):
        if prose := RULE.sub("", body[last:block.start()]).strip():
            messages.append(message("assistant", prose))
        messages.append(message("tool", block.group(0), observation=True))
        last = block.end()
    if prose := RULE.sub("", body[last:]).strip():
        messages.append(message("assistant", prose))
    return messages


def block_messages(role: str, body: str) -> list[dict[str, Any]] | None:
    """A section whose body is the turn's content blocks written as JSON (an export of API messages: ``[{"type":
    "tool_use", ...}]`` under ``### Assistant``, after a quoted time line), read as that turn's blocks by the
    JSON turn reader: calls, results and text as the API meant them. None when the body is no such JSON."""
    body = QUOTED_LINES.sub("", RULE.sub("", body)).strip()
    if not body.startswith(("[", "{")):
        return None
    try:
        blocks = json.loads(body)
    except ValueError:
        return None
    blocks = [blocks] if isinstance(blocks, dict) else blocks
    if not (isinstance(blocks, list) and blocks and all(isinstance(b, dict) and isinstance(b.get("type"), str) for b in blocks)):
        return None
    return turn_messages([{"role": role, "content": blocks}])


def parse_markdown_turns(text: str) -> list[Transcript]:
    marks = headings(text)
    messages: list[dict[str, Any]] = []
    role = "assistant"
    for index, (_, end, heading_role) in enumerate(marks):
        role = role if heading_role == "continued" else heading_role
        stop = marks[index + 1][0] if index + 1 < len(marks) else len(text)
        blocks = block_messages(role, text[end:stop]) if heading_role != "continued" else None
        messages += [{**m, "blocks": True} for m in blocks] if blocks is not None else section_messages(role, text[end:stop])
    merged: list[dict[str, Any]] = []
    for canonical in messages:  # a continued model turn is one turn with the text before it
        if canonical.pop("blocks", False) or (merged and merged[-1].pop("blocks", False)):
            merged.append(canonical)  # each heading of an export of API messages is its own message
        elif merged and canonical["role"] == "assistant" == merged[-1]["role"]:
            merged[-1]["content"] += "\n\n" + canonical["content"]
        else:
            merged.append(canonical)
    return [Transcript(format="markdown-turns", messages=flag_text_observations(merged))]


MARKDOWN_TURNS = Format(name="markdown-turns", container="text", detect=detect_markdown_turns,
                        parse=parse_markdown_turns)
