"""A debug log of the requests a chat client sent (layout ``request-messages`` of ``logged-calls``).

GitHub Copilot Chat's debug log (``LOGS.md``) prints each request as labelled sections, each label alone on its
line: a ``Metadata`` block (model, times, the tools' JSON), then ``Request Messages`` with each message under its
role word (``System``, ``User``, ``Assistant``), then ``Response`` with the reply under ``Assistant``; the reply
writes each call as ``🛠️ name (call_id) {arguments}``, and a ``Tool Call - id`` entry's ``Response`` is that
call's output. Read by structure: a ``Request Messages`` label followed by role words alone on their lines, a
person's and the model's among them; another label alone on its line (``Response``, ``Metadata``, ``Request``)
ends a turn and opens none. Each request re-sends the conversation so far, so the longest request is the run.
"""

from __future__ import annotations

import json
import re
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import message, tool_call

ROLE_LINE = {"System": "system", "User": "user", "Assistant": "assistant", "Tool": "tool"}
MESSAGES_LABEL = "Request Messages"
SECTION_LABELS = frozenset({MESSAGES_LABEL, "Request", "Response", "Metadata"})
TOOL_ENTRY = re.compile(r"^Tool Call - (\S+)$")
ENTRY = re.compile(r"^[\w-]+/[\w-]+ - [0-9a-f]{6,}$", re.MULTILINE)  # ``panel/editAgent - e2fb0a76``
# a call the reply writes: an emoji, the tool's name, its call id in parentheses, then its arguments' JSON object
ANNOTATION = re.compile(r"^\[[a-z_]+: \{[^\n]*\}\]$")
WRITTEN_CALL = re.compile(r"^[^\w\s]{1,3}\s*([\w.-]+) \(([\w-]+)\) (?=\{)", re.MULTILINE)


def entries(text: str) -> list[str]:
    """The log's request entries (each from its ``area/kind - id`` line), or the whole text when none is marked."""
    starts = [m.start() for m in ENTRY.finditer(text)]
    return [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)])] if starts else [text]


def entry_messages(entry: str) -> list[dict[str, Any]]:
    """One entry's messages: the sections under role words after ``Request Messages``, tool outputs after a
    ``Tool Call - id`` entry's ``Response``."""
    lines = entry.splitlines()
    if MESSAGES_LABEL not in lines:
        return []
    messages: list[dict[str, Any]] = []
    role, body, call_id, in_call = None, [], "", False
    for line in [*lines[lines.index(MESSAGES_LABEL) + 1:], MESSAGES_LABEL]:
        label = line.strip()
        if ANNOTATION.match(label):
            continue  # the log's note on the request (``[copilot_cache_control: { type: 'ephemeral' }]``), no one's words
        tool_entry = TOOL_ENTRY.match(label)
        if label in ROLE_LINE or label in SECTION_LABELS or tool_entry:
            if role is not None and "\n".join(body).strip():
                messages.append(turn(role, "\n".join(body).strip(), call_id))
            role, body = None, []
            if tool_entry:
                in_call, call_id = True, tool_entry.group(1)
            elif label in ROLE_LINE:
                role, in_call = ROLE_LINE[label], False
            elif label == "Response" and in_call:
                role = "tool"  # the call's output
            continue
        body.append(line)
    return messages


def turn(role: str, content: str, call_id: str) -> dict[str, Any]:
    if role == "tool":
        return message("tool", content, tool_call_id=call_id.split("__")[0], observation=True)
    if role != "assistant":
        return message(role, content)
    decoder, calls, kept, last = json.JSONDecoder(), [], [], 0
    for written in WRITTEN_CALL.finditer(content):
        try:
            arguments, end = decoder.raw_decode(content, written.end())
        except ValueError:
            continue
        if isinstance(arguments, dict):
            calls.append(tool_call(written.group(2), written.group(1), arguments))
            kept.append(content[last:written.start()])
            last = end
    return message("assistant", ("".join(kept) + content[last:]).strip() if calls else content, tool_calls=calls)


def request_log(text: Any) -> list[dict[str, Any]] | None:
    if not isinstance(text, str) or f"\n{MESSAGES_LABEL}\n" not in text:
        return None
    runs = [entry_messages(entry) for entry in entries(text)]
    longest = max(runs, key=len, default=[])
    roles = {m["role"] for m in longest}
    return longest if {"user", "assistant"} <= roles else None


def detect_request_log(text: Any) -> bool:
    return request_log(text) is not None


def parse_request_log(text: str) -> list[Transcript]:
    return [Transcript(format="logged-calls", extra={"layout": "request-messages"}, messages=request_log(text) or [])]


REQUEST_LOG = Format(name="logged-calls", container="text", detect=detect_request_log, parse=parse_request_log)
