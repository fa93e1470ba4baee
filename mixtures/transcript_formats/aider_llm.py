"""aider's log of what it sent the model (``aider-llm-history``): ``--llm-history-file``, e.g. ``.aider.llm.history``.

``Aider-AI/aider`` ``aider/io.py`` ``log_llm_history`` writes ``TO LLM <time>`` and then the request as
``aider/utils.py`` ``format_messages`` shows it: each message opens with a ``-------`` line, every line
of its content prefixed with the role in capitals (``SYSTEM``, ``USER``, ``ASSISTANT``); after the call,
``LLM RESPONSE <time>`` and the reply's lines prefixed ``ASSISTANT``. One request and its reply is one
transcript: the messages sent are what the model saw, the reply the one turn it wrote then. Everything
sent before the request's last user message (the repo map, file contents, aider's canned
acknowledgements, the conversation so far, each reply of which was trained in its own request) is
context, an observation.
"""

from __future__ import annotations

import re
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import TranscriptShapeError, message

RECORD = re.compile(r"^(TO LLM|LLM RESPONSE) (\S+)$", re.MULTILINE)
SEPARATOR = "-------"
ROLES = {"SYSTEM": "system", "USER": "user", "ASSISTANT": "assistant"}


def detect_llm_history(text: Any) -> bool:
    return isinstance(text, str) and RECORD.match(text) is not None and text.startswith("TO LLM ")


def parse_llm_history(text: str) -> list[Transcript]:
    """A transcript per ``TO LLM`` record, with the ``LLM RESPONSE`` after it (none: nothing came back)."""
    records = list(RECORD.finditer(text))
    bodies = [text[r.end():(records[k + 1].start() if k + 1 < len(records) else len(text))]
              for k, r in enumerate(records)]
    transcripts: list[Transcript] = []
    for k, record in enumerate(records):
        kind, stamp = record.groups()
        if kind == "LLM RESPONSE":
            if k == 0 or records[k - 1].group(1) != "TO LLM":
                raise TranscriptShapeError(f"'LLM RESPONSE {stamp}' without the request before it")
            continue
        messages = request_messages(bodies[k], stamp)
        if k + 1 < len(records) and records[k + 1].group(1) == "LLM RESPONSE":
            messages += reply_message(bodies[k + 1], records[k + 1].group(2))
        transcripts.append(Transcript(format="aider-llm-history", messages=messages,
                                      extra={"sent_at": stamp, "request": len(transcripts) + 1}))
    if not transcripts:
        raise TranscriptShapeError("no 'TO LLM' record")
    return transcripts


def reply_message(body: str, stamp: str) -> list[dict[str, Any]]:
    role, content = role_content(body.strip("\n").split("\n"), stamp)
    if content.strip() and role != "assistant":
        raise TranscriptShapeError(f"reply of {stamp} is written as {role}, not ASSISTANT")
    return [message("assistant", content)] if content.strip() else []


def request_messages(block: str, sent_at: str) -> list[dict[str, Any]]:
    """The messages of one request; all but the system prompt and the last user message are context (an
    empty message, whose role is not written, an empty context turn)."""
    chunks = block.strip("\n").split(f"\n{SEPARATOR}\n") if block.strip("\n") else []
    if not chunks or not chunks[0].startswith(SEPARATOR):
        raise TranscriptShapeError(f"request of {sent_at}: no '{SEPARATOR}' before its first message")
    chunks[0] = chunks[0][len(SEPARATOR):].lstrip("\n")
    sent = [role_content(chunk.split("\n"), sent_at) for chunk in chunks]
    last_user = max((i for i, (role, _) in enumerate(sent) if role == "user"), default=-1)
    return [message(role or "user", content, observation=role != "system" and i != last_user)
            for i, (role, content) in enumerate(sent)]


def role_content(lines: list[str], sent_at: str) -> tuple[str, str]:
    """``(role, content)`` of one message's lines (``format_content``: ``f"{ROLE} {line}"``). An empty
    content is written as an empty line, without its role: ``("", "")``."""
    if lines == [""]:
        return "", ""
    name = lines[0].split(" ", 1)[0]
    if name not in ROLES or not all(line == name or line.startswith(name + " ") for line in lines):
        raise TranscriptShapeError(f"request of {sent_at}: a message whose lines do not all start with one of "
                                   f"{sorted(ROLES)}: {lines[0][:60]!r}")
    return ROLES[name], "\n".join(line[len(name) + 1:] for line in lines)


AIDER_LLM_HISTORY = Format(name="aider-llm-history", container="text", detect=detect_llm_history,
                           parse=parse_llm_history)
