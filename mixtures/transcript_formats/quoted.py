"""Chats whose person's turns are quoted and whose replies are not (layout ``quoted`` of ``markdown-turns``).

Some exporters write what the person typed as a Markdown block quote and the model's reply as plain text
after it: claude-transcript's ``> [!IMPORTANT]`` alert over each prompt (its ``> [!WARNING]`` over a
harness's note). Read by structure: block quotes outside code fences (``>>`` and doctest's ``>>>`` are never
quotes of a turn) that open with the same alert, recur, and are each answered by unquoted text, the first near
the top (a title and an exporter's metadata may come before it); a quote of another kind is a harness's note
(context too). Bare quotes are not read: documentation repeats them too (Node's ``> Stability: 2 - Stable``).
In a reply, a fenced block right under a line that names an action in bold (``📖 **Read: src/x.ts**``,
``✏️ **Edit: src/x.ts**``) is that action's output: the tool's turn, never the model's trained text.
"""

from __future__ import annotations

import collections
import re
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import flag_text_observations, message

QUOTE = re.compile(r"^>(?!>)[ \t]?(.*)$")
ALERT = re.compile(r"^\[!(\w+)\][ \t]*$")
FENCE = re.compile(r"^[ \t]*(```|~~~)")
# a line naming what the model did, in bold, after an emoji or a bullet (``📖 **Read: src/types.ts**``)
ACTION = re.compile(r"^(?:[^\w\s*`]{1,3}[ \t]+|[-*][ \t]+)?\*\*[A-Z][\w .-]{0,40}(?::[^*\n]*)?\*\*[ \t]*$")
MIN_TURNS = 3  # quoted prompts, each answered
MAX_HEADER_LINES = 20  # an exporter's title and metadata above the first prompt


def segments(text: str) -> list[tuple[str, str, str | None]]:
    """The text as ``(kind, body, label)`` runs: ``quote`` (a block quote outside a fence, its ``>`` marks and
    its alert line taken off; label the alert's kind) or ``text`` (everything else, fences kept whole)."""
    runs: list[tuple[str, list[str], str | None]] = []
    fence = None
    for line in text.splitlines():
        opened = FENCE.match(line)
        quoted = QUOTE.match(line) if fence is None else None
        if opened and fence is None:
            fence = opened.group(1)
        elif opened and opened.group(1) == fence:
            fence = None
        kind = "quote" if quoted else "text"
        if kind == "quote" and runs and runs[-1][0] == "quote":
            runs[-1][1].append(quoted.group(1))
        elif kind == "quote":
            alert = ALERT.match(quoted.group(1).strip())
            runs.append(("quote", [] if alert else [quoted.group(1)], alert.group(1).upper() if alert else None))
        elif runs and runs[-1][0] == "text":
            runs[-1][1].append(line)
        else:
            runs.append(("text", [line], None))
    return [(kind, "\n".join(lines).strip(), label) for kind, lines, label in runs]


def quoted_turns(text: Any) -> list[tuple[str, str, str | None]] | None:
    """The segments of a chat of quoted prompts and unquoted replies, or None when the text is none."""
    if not isinstance(text, str) or "\n>" not in text or ">>>" in text:
        return None  # a page of doctest examples quotes its code with ``>>>``
    runs = [r for r in segments(text) if r[1] or r[0] == "quote"]
    quotes = [i for i, r in enumerate(runs) if r[0] == "quote"]
    if len(quotes) < MIN_TURNS:
        return None
    person = collections.Counter(runs[i][2] for i in quotes).most_common(1)[0][0]
    if person is None:
        return None  # bare quotes recur in documentation too (Node's ``> Stability: 2 - Stable``): an alert marks a turn
    prompts = [i for i in quotes if runs[i][2] == person]
    answered = [i for i in prompts if i + 1 < len(runs) and runs[i + 1][0] == "text"]
    header = runs[0][1].count("\n") + 1 if runs[0][0] == "text" else 0
    if len(answered) < MIN_TURNS or len(answered) * 10 < len(prompts) * 9 or header > MAX_HEADER_LINES:
        return None
    return runs[1:] if runs[0][0] == "text" else runs


def fence_end(lines: list[str], start: int) -> int:
    """The index of the line closing the fence that ``lines[start]`` opens (the last line when none does)."""
    mark = FENCE.match(lines[start]).group(1)
    return next((j for j in range(start + 1, len(lines)) if lines[j].strip().startswith(mark)), len(lines) - 1)


def reply_messages(body: str) -> list[dict[str, Any]]:
    """A reply's text, the output of each action it names taken out: of the fenced blocks right under an
    action's bold line (only blank lines between them), the last is the output and any before it the action's
    input (``💻 **Bash: ...**``: the command's fence, then its output's), kept in the reply."""
    messages, kept, lines, i = [], [], body.splitlines(), 0
    while i < len(lines):
        previous = next((line for line in reversed(kept) if line.strip()), "")
        if not (FENCE.match(lines[i]) and ACTION.match(previous.strip())):
            kept.append(lines[i])
            i += 1
            continue
        fences = [(i, fence_end(lines, i))]
        while (after := next((j for j in range(fences[-1][1] + 1, len(lines)) if lines[j].strip()), None)) is not None \
                and FENCE.match(lines[after]):
            fences.append((after, fence_end(lines, after)))
        kept += lines[i:fences[-1][0]]
        if "\n".join(kept).strip():
            messages.append(message("assistant", "\n".join(kept).strip()))
        messages.append(message("tool", "\n".join(lines[fences[-1][0]:fences[-1][1] + 1]), observation=True))
        kept, i = [], fences[-1][1] + 1
    if "\n".join(kept).strip():
        messages.append(message("assistant", "\n".join(kept).strip()))
    return messages


def detect_quoted_turns(text: Any) -> bool:
    return quoted_turns(text) is not None


def parse_quoted_turns(text: str) -> list[Transcript]:
    runs = quoted_turns(text) or []
    person = collections.Counter(label for kind, _, label in runs if kind == "quote").most_common(1)
    messages: list[dict[str, Any]] = []
    for kind, body, label in runs:
        if kind == "quote" and body:
            messages.append(message("user", body, name="" if person and label == person[0][0] else (label or "")))
        elif kind == "text":
            messages += reply_messages(body)
    extra = {"layout": "quoted", "person_quote": (person[0][0] if person else None) or "plain"}
    return [Transcript(format="markdown-turns", extra=extra, messages=flag_text_observations(messages))]


QUOTED_TURNS = Format(name="markdown-turns", container="text", detect=detect_quoted_turns, parse=parse_quoted_turns)
