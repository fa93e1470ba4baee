"""A run exported as tracing spans (OpenTelemetry and the tracers built like it): each span's ``attributes``
keep what a model call was sent and returned, and what a tool was called with and gave back. The GenAI semantic
conventions name them ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (JSON text or a list; each message
``{role, parts: [{type: text, content}]}``) and ``gen_ai.tool.name`` / ``gen_ai.tool.call.id`` /
``gen_ai.tool.call.arguments`` / ``gen_ai.tool.call.result``; other tracers use their own prefix for the same
parts (RAAF's ``llm.request.messages`` / ``llm.response.content``, ``tool.name`` / ``tool.arguments`` /
``tool.result``, ``function.input`` / ``function.output``; the Vercel AI SDK's ``ai.prompt.messages`` /
``ai.response.text`` / ``ai.toolCall.*``), so the parts are found by what the key ends with and
what the value holds (a list of ``{role, content}`` messages). A span may come wrapped in the event that logged it
(``{event: start | end, span: {...}}``). The spans of one conversation (``gen_ai.conversation.id``, else the
trace), in the order they started, are one run: each message once (a call that re-sends the conversation adds
only what is new), each call once, joined to the model's turn before it, each result once.
docs/transcript-formats.md ("Trace exports").
"""

from __future__ import annotations

import json
from typing import Any

from codemix.mixtures.transcript_formats.turns import CALL_EVENT, turn_text

INPUT, OUTPUT = "gen_ai.input.messages", "gen_ai.output.messages"
START_KEYS = ("start_time_unix_nano", "startTimeUnixNano", "start_time", "startTime", "timestamp")
# What a key of each part ends with, whatever the tracer's prefix (``gen_ai.``, ``llm.``, ``tool.``...).
REQUEST_ENDS = ("input.messages", "request.messages", "prompt.messages")
RESPONSE_ENDS = ("output.messages", "response.messages", "response.content", "response.text")
# A tool span's parts, by what their keys end with (``gen_ai.tool.name``, RAAF's ``tool.name`` and
# ``function.*``, the Vercel AI SDK's ``ai.toolCall.*``).
TOOL_NAME_ENDS = ("tool.name", "toolCall.name", "function.name")
CALL_ID_ENDS = ("tool.call.id", "toolCall.id", "tool_call.id")
ARGUMENT_ENDS = ("tool.call.arguments", "tool.arguments", "tool.input", "toolCall.args", "function.arguments",
                 "function.input")
RESULT_ENDS = ("tool.call.result", "tool.result", "tool.output", "toolCall.result", "function.output")
TRACE_KEYS = ("trace_id", "traceId")


def span_of(value: Any) -> dict:
    """The span a record holds: the record itself, or the span an event logged (``{event, span: {...}}``)."""
    if isinstance(value, dict) and isinstance(value.get("span"), dict) and "attributes" not in value:
        return value["span"]
    return value if isinstance(value, dict) else {}


def attributes(span: Any) -> dict:
    value = span_of(span).get("attributes")
    return value if isinstance(value, dict) else {}


def messages_of(value: Any) -> list[dict]:
    """A message list kept as JSON text or as a list: its objects that name a role."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return []
    return [m for m in value if isinstance(m, dict) and "role" in m] if isinstance(value, list) else []


def ends_with(key: str, ends: tuple[str, ...]) -> bool:
    """Whether ``key`` is one of ``ends`` under at most one prefix of the tracer's own (``gen_ai.tool.name``,
    ``ai.toolCall.name``), not a part of something else it logs (``coding_agent.edit.tool.name``)."""
    return any(key == end or (key.endswith("." + end) and "." not in key[: -len(end) - 1]) for end in ends)


def part(attrs: dict, ends: tuple[str, ...]) -> Any:
    """The first attribute whose key ends with one of ``ends``."""
    return next((value for key, value in attrs.items() if ends_with(key, ends)), None)


def first(attrs: dict, keys: tuple[str, ...]) -> Any:
    return next((attrs[key] for key in keys if attrs.get(key) not in (None, "")), None)


def ending(attrs: dict, ends: tuple[str, ...]) -> Any:
    """The first attribute with a value whose key ends with one of ``ends``."""
    return next((value for key, value in attrs.items() if ends_with(key, ends) and value not in (None, "")), None)


def sent(attrs: dict) -> list[dict]:
    """The messages a model call was sent and returned (a reply kept as bare text is the model's message)."""
    reply = part(attrs, RESPONSE_ENDS)
    if isinstance(reply, str) and not messages_of(reply):
        replies = [{"role": "assistant", "content": reply}] if reply.strip() else []
    else:
        replies = messages_of(reply)
    return messages_of(part(attrs, REQUEST_ENDS)) + replies


def is_genai_span_list(value: Any) -> bool:
    """Spans (objects with ``attributes``, or events holding one) of which at least one keeps a model call's
    messages."""
    return (isinstance(value, list) and len(value) >= 2 and all(isinstance(v, dict) for v in value[:500])
            and all("attributes" in span_of(v) for v in value[:500]) and any(sent(attributes(v)) for v in value))


def started(span: dict) -> float | str:
    """When ``span`` started: a number, else its ISO time (which sorts as text), else 0."""
    record = span_of(span)
    for key in START_KEYS:
        value = record.get(key)
        try:
            return float(value)
        except (TypeError, ValueError):
            if isinstance(value, str) and value:
                return value
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
    for span in sorted(spans, key=lambda s: (isinstance(started(s), str), started(s))):
        attrs = attributes(span)
        for message in sent(attrs):
            role, text = str(message.get("role") or ""), turn_text(message.get("parts") or message.get("content"))
            if role and text.strip() and (role, text) not in said:
                said.add((role, text))
                turns.append({"role": role, "content": text})
        name, call_id = ending(attrs, TOOL_NAME_ENDS), str(ending(attrs, CALL_ID_ENDS) or span_of(span).get("span_id") or "")
        if isinstance(name, str) and name and (not call_id or call_id not in called):
            called.add(call_id)
            turns.append({"role": "assistant", "tool_calls": [{"id": call_id, "name": name,
                                                               "arguments": call_arguments(ending(attrs, ARGUMENT_ENDS))}],
                          CALL_EVENT: True})
        result = ending(attrs, RESULT_ENDS)
        if isinstance(result, str) and result.strip() and ("tool", result) not in said:
            said.add(("tool", result))
            turns.append({"role": "tool", "content": result, "tool_call_id": call_id})
    return turns


def conversation_key(span: dict) -> str:
    attrs, record = attributes(span), span_of(span)
    context = record.get("context") if isinstance(record.get("context"), dict) else {}
    return str(attrs.get("gen_ai.conversation.id") or first(record, TRACE_KEYS) or first(context, TRACE_KEYS) or "")


def merged_spans(value: list) -> list[dict]:
    """One span per span id: the events that logged one span (its start, then its end with more attributes)
    as that span, the later event's attributes over the earlier's, started when the first began."""
    spans: dict[str, dict] = {}
    for index, record in enumerate(value):
        span = span_of(record)
        key = str(span.get("span_id") or span.get("spanId") or f"#{index}")
        if key in spans:
            spans[key] = {**spans[key], "attributes": {**attributes(spans[key]), **attributes(span)}}
        else:
            spans[key] = {**span, "attributes": attributes(span)}
    return list(spans.values())


def is_span(value: Any) -> bool:
    """Whether ``value`` is a span of a trace (or an event logging one): it keeps ``attributes`` and names its
    trace or conversation."""
    return isinstance(span_of(value).get("attributes"), dict) and bool(conversation_key(value))


def genai_conversations(value: Any) -> list[list[dict[str, Any]]]:
    """The turns of each conversation a list of spans holds; [] when the value is no such list."""
    if not is_genai_span_list(value):
        return []
    groups: dict[str, list[dict]] = {}
    for span in merged_spans(value):
        groups.setdefault(conversation_key(span), []).append(span)
    return [turns for spans in groups.values() if (turns := span_turns(spans))]
