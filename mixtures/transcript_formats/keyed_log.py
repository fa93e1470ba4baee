"""Traffic logs whose entries open with a heading of ``key=value`` pairs (``markdown-turns``' ``keyed`` layout): a
patched client writes each prompt block it sends and each chunk it streams back (Kilo Code's ``### source=prompt
type=text timestamp=39533.49`` / ``### source=response type=text ...``), each over one fenced block.

The side is the value that names it (``prompt``, ``request``, ``input`` the person's; ``response``, ``completion``,
``output`` the model's); an entry whose ``type`` counts (``usage``, ``tokens``, ``metrics``) is framing. A side's
consecutive entries are one turn: the prompt's blocks one request, the streamed chunks joined as written (a chunk
may end mid-word). A later request re-sends the history: its blocks already sent are left out, what is new (a
tool's result) is the person's next turn.
"""

from __future__ import annotations

import re
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import flag_text_observations, message

KEYED_HEADING = re.compile(r"^#{1,6}[ \t]+((?:[a-z_]+=[^\s=]+[ \t]*){2,})$", re.MULTILINE)
PAIR = re.compile(r"([a-z_]+)=([^\s=]+)")
SIDES = {"prompt": "user", "request": "user", "input": "user", "user": "user",
         "response": "assistant", "completion": "assistant", "output": "assistant", "assistant": "assistant"}
COUNTED = frozenset({"usage", "tokens", "metrics", "stats"})
ONE_FENCE = re.compile(r"\A\s*(`{3,})[^\n]*\n(.*?)\n?[ \t]*\1[ \t]*\s*\Z", re.DOTALL)
MIN_ENTRIES = 4
SPACE = re.compile(r"\s+")


def keyed_entries(text: str) -> list[tuple[str, str]] | None:
    """``(side, body)`` of each entry (framing left out), or None when the text is no such log: its headings are
    key=value pairs, four or more, both sides among them."""
    marks = list(KEYED_HEADING.finditer(text))
    if len(marks) < MIN_ENTRIES:
        return None
    entries = []
    for index, mark in enumerate(marks):
        pairs = dict(PAIR.findall(mark.group(1)))
        side = next((SIDES[v] for v in pairs.values() if v in SIDES), None)
        stop = marks[index + 1].start() if index + 1 < len(marks) else len(text)
        if side is None or COUNTED & set(pairs.values()):
            continue
        body = text[mark.end():stop]
        fence = ONE_FENCE.match(body)
        inner = fence.group(2) if fence else body.strip()
        entries.append((side, inner.removeprefix("\n")))  # (the writer's blank first line)
    return entries if {side for side, _ in entries} == {"user", "assistant"} else None


def detect_keyed_log(text: Any) -> bool:
    return isinstance(text, str) and keyed_entries(text) is not None


def parse_keyed_log(text: str) -> list[Transcript]:
    turns: list[list[Any]] = []
    for side, body in keyed_entries(text) or []:
        if turns and turns[-1][0] == side:
            turns[-1][1].append(body)
        else:
            turns.append([side, [body]])
    sent: set[str] = set()  # what was sent or replied already, spacing aside (the history re-sent, chunked anew)
    messages = []
    for side, bodies in turns:
        if side == "user":
            new = [b.strip() for b in bodies if b.strip() and SPACE.sub("", b) not in sent]
            sent.update(SPACE.sub("", b) for b in bodies)
            if new:
                messages.append(message("user", "\n\n".join(new)))
        elif content := "".join(bodies).strip():
            sent.add(SPACE.sub("", content))
            messages.append(message("assistant", content))
    return [Transcript(format="markdown-turns", extra={"layout": "keyed"}, messages=flag_text_observations(messages))]


KEYED_LOG = Format(name="markdown-turns", container="text", detect=detect_keyed_log, parse=parse_keyed_log)
