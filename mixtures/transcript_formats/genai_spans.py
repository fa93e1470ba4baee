"""A run exported as OpenTelemetry spans under the GenAI semantic conventions: each span's ``attributes`` keep
what a model call was sent and returned as message lists (``gen_ai.input.messages`` /
``gen_ai.output.messages``, JSON text or a list; each message ``{role, parts: [{type: text, content}]}``) and a
tool's call by its name, id and arguments (``gen_ai.tool.name``, ``gen_ai.tool.call.id``,
``gen_ai.tool.call.arguments``). The spans of one conversation (``gen_ai.conversation.id``, else the trace id),
in the order they started, are one run: each message once (a call that re-sends the conversation adds only what
is new), each call once, joined to the model's turn before it. docs/transcript-formats.md ("Trace exports").
"""

from __future__ import annotations

import json
from typing import Any

from codemix.mixtures.transcript_formats.turns import CALL_EVENT, turn_text

INPUT, OUTPUT = "gen_ai.input.messages", "gen_ai.output.messages"
TOOL, CALL_ID, ARGUMENTS = "gen_ai.tool.name", "gen_ai.tool.call.id", "gen_ai.tool.call.arguments"
START_KEYS = ("start_time_unix_nano", "startTimeUnixNano", "start_time", "startTime", "timestamp")


def attributes(span: Any) -> dict:
    value = span.get("attributes") if isinstance(span, dict) else None
    return value if isinstance(value, dict) else {}


def messages_of(value: Any) -> list[dict]:
    """A message list kept as JSON text or as a list."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return []
    return [m for m in value if isinstance(m, dict)] if isinstance(value, list) else []


def is_genai_span_list(value: Any) -> bool:
    """Spans (objects with ``attributes``) of which at least one keeps a model call's messages."""
    return (isinstance(value, list) and len(value) >= 2 and all(isinstance(v, dict) for v in value[:500])
            and any(INPUT in attributes(v) or OUTPUT in attributes(v) for v in value))


def started(span: dict) -> float:
    for key in START_KEYS:
        try:
            return float(span[key])
        except (KeyError, TypeError, ValueError):
            continue
    return 0.0


def call_arguments(value: Any) -> Any:
    """A call's arguments: a JSON object as written; a bare value (a hook logs ``read_file``'s path alone) kept
    whole under ``arguments``, so the call stays well formed and nothing of it is lost."""
    if value in (None, ""):
        return {}
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return {"arguments": value}
        return value if isinstance(parsed, dict) else {"arguments": value}
    return value if isinstance(value, dict) else {"arguments": value}


def span_turns(spans: list[dict]) -> list[dict[str, Any]]:
    """One conversation's spans as turns in the order they started (see the module docstring)."""
    turns: list[dict[str, Any]] = []
    said: set[tuple[str, str]] = set()
    called: set[str] = set()
    for span in sorted(spans, key=started):
        attrs = attributes(span)
        for message in messages_of(attrs.get(INPUT)) + messages_of(attrs.get(OUTPUT)):
            role, text = str(message.get("role") or ""), turn_text(message.get("parts") or message.get("content"))
            if role and text.strip() and (role, text) not in said:
                said.add((role, text))
                turns.append({"role": role, "content": text})
        name, call_id = attrs.get(TOOL), str(attrs.get(CALL_ID) or "")
        if isinstance(name, str) and name and (not call_id or call_id not in called):
            called.add(call_id)
            turns.append({"role": "assistant", "tool_calls": [{"id": call_id, "name": name,
                                                               "arguments": call_arguments(attrs.get(ARGUMENTS))}],
                          CALL_EVENT: True})
    return turns


def genai_conversations(value: Any) -> list[list[dict[str, Any]]]:
    """The turns of each conversation a list of GenAI spans holds; [] when the value is no such list."""
    if not is_genai_span_list(value):
        return []
    groups: dict[str, list[dict]] = {}
    for span in value:
        attrs = attributes(span)
        key = str(attrs.get("gen_ai.conversation.id") or span.get("trace_id") or span.get("traceId") or "")
        groups.setdefault(key, []).append(span)
    return [turns for spans in groups.values() if (turns := span_turns(spans))]
