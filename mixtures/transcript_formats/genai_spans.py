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

from codemix.mixtures.transcript_formats.flattened import typed_value
from codemix.mixtures.transcript_formats.turns import CALL_EVENT, turn_text

INPUT, OUTPUT = "gen_ai.input.messages", "gen_ai.output.messages"
START_KEYS = ("start_time_unix_nano", "startTimeUnixNano", "start_time", "startTime", "timestamp")
# What a key of each part ends with, whatever the tracer's prefix (``gen_ai.``, ``llm.``, ``tool.``...).
REQUEST_ENDS = ("input.messages", "request.messages", "prompt.messages")
RESPONSE_ENDS = ("output.messages", "response.messages", "response.content", "response.text")
# The system prompt the GenAI conventions keep apart from the messages (``gen_ai.system_instructions``: parts).
SYSTEM_ENDS = ("system_instructions",)
# A tool span's parts, by what their keys end with (``gen_ai.tool.name``, RAAF's ``tool.name`` and
# ``function.*``, the Vercel AI SDK's ``ai.toolCall.*``).
TOOL_NAME_ENDS = ("tool.name", "toolCall.name", "function.name")
CALL_ID_ENDS = ("tool.call.id", "toolCall.id", "tool_call.id")
ARGUMENT_ENDS = ("tool.call.arguments", "tool.arguments", "tool.input", "toolCall.args", "function.arguments",
                 "function.input")
RESULT_ENDS = ("tool.call.result", "tool.result", "tool.output", "toolCall.result", "function.output")
TRACE_KEYS = ("trace_id", "traceId", "traceID")
# Where a span keeps its attributes: OpenTelemetry's ``attributes``, Jaeger's and Zipkin's ``tags``.
ATTRIBUTE_KEYS = ("attributes", "tags")
# How deep a trace export may nest its span lists (Jaeger's ``{data: [{traceID, spans: [...]}]}``).
MAX_SPAN_DEPTH = 4


def span_of(value: Any) -> dict:
    """The span a record holds: the record itself, or the span an event logged (``{event, span: {...}}``)."""
    if isinstance(value, dict) and isinstance(value.get("span"), dict) and "attributes" not in value:
        return value["span"]
    return value if isinstance(value, dict) else {}


def attributes(span: Any) -> dict:
    """A span's attributes: an object, or a list of typed pairs as Jaeger writes its ``tags`` (``[{key, type,
    value}]``) and OTLP its ``attributes`` (``[{key, value: {stringValue}}]``)."""
    record = span_of(span)
    value = next((record[key] for key in ATTRIBUTE_KEYS if isinstance(record.get(key), (dict, list))), None)
    if isinstance(value, list):
        value = typed_pairs(value)
    return value if isinstance(value, dict) else {}


def typed_pairs(items: list) -> dict | None:
    """A list of ``{key, value}`` pairs (a ``type`` beside them allowed) as one object, values typed by OTLP's
    ``AnyValue`` read plain; None when any item is no such pair."""
    if not items or not all(isinstance(i, dict) and isinstance(i.get("key"), str) and "value" in i
                            and set(i) <= {"key", "value", "type", "vType", "vStr"} for i in items):
        return None
    return {i["key"]: typed_value(i["value"]) for i in items}


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
    """The messages a model call was sent and returned (a reply kept as bare text is the model's message); where
    no key names them, found by what the values hold (``bodies``)."""
    reply = part(attrs, RESPONSE_ENDS)
    if isinstance(reply, str) and not messages_of(reply):
        replies = [{"role": "assistant", "content": reply}] if reply.strip() else []
    else:
        replies = messages_of(reply)
    system = turn_text(decoded(part(attrs, SYSTEM_ENDS)))
    head = [{"role": "system", "content": system}] if system.strip() else []
    return head + messages_of(part(attrs, REQUEST_ENDS)) + replies or bodies(attrs)


def decoded(value: Any) -> Any:
    """An attribute's value, or the object or list its JSON text writes."""
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def bodies(attrs: dict) -> list[dict]:
    """A call a tracer kept as the request's and the response's bodies under keys of its own (promptflow's
    ``inputs: {messages, model, tools}`` and ``output: {choices: [{message}]}`` or ``llm.generated_message``, as
    JSON text): the request's messages, then the reply. [] unless an attribute holds a request body's
    ``messages`` and another the reply (a completion's first choice, or a message of the model's)."""
    values = [decoded(value) for value in attrs.values()]
    request = next((messages_of(v["messages"]) for v in values if isinstance(v, dict)
                    and messages_of(v.get("messages"))), [])
    replies = [reply for v in values if isinstance(v, dict) and (reply := model_reply(v)) is not None]
    return request + replies[:1] if request and replies else []


def model_reply(value: dict) -> dict | None:
    """The model's message a body holds: a completion's first choice's message, or the body itself when it is one
    (``{role: assistant, content}``)."""
    choices = value.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict) and isinstance(choices[0].get("message"), dict):
        value = choices[0]["message"]
    return value if value.get("role") == "assistant" and "content" in value else None


def is_genai_span_list(value: Any) -> bool:
    """Spans (objects with ``attributes``, or events holding one) of which at least one keeps a model call's
    messages."""
    return (isinstance(value, list) and len(value) >= 2 and all(isinstance(v, dict) for v in value[:500])
            and all(any(k in span_of(v) for k in ATTRIBUTE_KEYS) for v in value[:500])
            and any(sent(attributes(v)) for v in value))


def span_lists(value: Any, depth: int = 0) -> list[list]:
    """The lists of spans a trace export holds: the value itself, or lists a few objects down (Jaeger's
    ``{data: [{traceID, spans: [...]}]}``)."""
    if is_genai_span_list(value):
        return [value]
    if depth >= MAX_SPAN_DEPTH or not isinstance(value, (dict, list)):
        return []
    children = value.values() if isinstance(value, dict) else value[:1000]
    return [found for child in children if isinstance(child, (dict, list)) for found in span_lists(child, depth + 1)]


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


def message_turn(message: dict) -> dict[str, Any] | None:
    """One sent message as a turn: its text, and the calls and call results its parts hold (the GenAI
    conventions' ``{type: tool_call, id, name, arguments}`` and ``{type: tool_call_response, id, response}``)."""
    role, parts = str(message.get("role") or ""), message.get("parts")
    parts = parts if isinstance(parts, list) else []
    text = turn_text(parts or message.get("content"))
    calls = [{"id": str(p.get("id") or ""), "name": p["name"], "arguments": call_arguments(p.get("arguments"))}
             for p in parts if isinstance(p, dict) and p.get("type") == "tool_call" and isinstance(p.get("name"), str)]
    answers = [p for p in parts if isinstance(p, dict) and p.get("type") == "tool_call_response"]
    if answers and not text.strip():
        answer = answers[0].get("response", answers[0].get("result"))
        text = answer if isinstance(answer, str) else turn_text(answer) or json.dumps(answer, ensure_ascii=False)
        return {"role": "tool", "content": text, "tool_call_id": str(answers[0].get("id") or "")} if role else None
    if not role or not (text.strip() or calls or message.get("tool_calls")):
        return None
    turn = {"role": role, "content": text, **({"tool_calls": calls} if calls else {})}
    return {**message, **turn} if message.get("tool_calls") and not calls else turn


def turn_key(turn: dict[str, Any]) -> str:
    """What makes a turn the same one sent again: its side and text, or, for a turn of calls only, their names."""
    text = turn.get("content")
    said = text if isinstance(text, str) and text.strip() else [
        c.get("name") if isinstance(c, dict) else c for c in turn.get("tool_calls") or []]
    return json.dumps([turn.get("role"), said], ensure_ascii=False, default=str)


def span_turns(spans: list[dict]) -> list[dict[str, Any]]:
    """One conversation's spans as turns in the order they started (see the module docstring). Where the model's
    messages carry their calls, a tool's span repeats one of them: the messages are the run."""
    turns: list[dict[str, Any]] = []
    said: set[str] = set()
    called: set[str] = set()
    ordered = sorted(spans, key=lambda s: (isinstance(started(s), str), started(s)))
    in_messages = any(t and t.get("tool_calls") for span in ordered for m in sent(attributes(span))
                      for t in [message_turn(m)])
    for span in ordered:
        attrs = attributes(span)
        for message in sent(attrs):
            turn = message_turn(message)
            key = turn_key(turn) if turn else ""
            if turn and key not in said:
                said.add(key)
                turns.append(turn)
        if in_messages:
            continue
        name, call_id = ending(attrs, TOOL_NAME_ENDS), str(ending(attrs, CALL_ID_ENDS) or span_of(span).get("span_id") or "")
        if isinstance(name, str) and name and (not call_id or call_id not in called):
            called.add(call_id)
            turns.append({"role": "assistant", "tool_calls": [{"id": call_id, "name": name,
                                                               "arguments": call_arguments(ending(attrs, ARGUMENT_ENDS))}],
                          CALL_EVENT: True})
        result = ending(attrs, RESULT_ENDS)
        key = turn_key({"role": "tool", "content": result}) if isinstance(result, str) else ""
        if isinstance(result, str) and result.strip() and key not in said:
            said.add(key)
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
    return bool(attributes(value)) and bool(conversation_key(value))


def genai_conversations(value: Any) -> list[list[dict[str, Any]]]:
    """The turns of each conversation a list of spans holds (or the lists a trace export nests); [] when the
    value is no such list."""
    spans = [span for found in span_lists(value) for span in merged_spans(found)]
    groups: dict[str, list[dict]] = {}
    for span in spans:
        groups.setdefault(conversation_key(span), []).append(span)
    return [turns for group in groups.values() for agent in agents(group) if (turns := span_turns(agent))]


def opening(span: dict) -> str:
    """The request a model call's conversation opened with: its first message of a person's, as text."""
    first = next((m for m in sent(attributes(span)) if str(m.get("role")) in ("user", "human")), None)
    return turn_text(first.get("parts") or first.get("content")) if first else ""


def resends(spans: list[dict]) -> bool:
    """Whether the model calls re-send their conversation: a call's input holds a turn of the model's (a hook that
    logs each turn alone, the person's prompts one by one, sends no history)."""
    return any(str(m.get("role")) in ("assistant", "model") for span in spans
               for m in messages_of(part(attributes(span), REQUEST_ENDS)))


def agents(spans: list[dict]) -> list[list[dict]]:
    """A trace's spans split by the conversation each model call continues: calls that open with different
    requests are different agents' (a supervisor handing a task to a detector: each re-sends its own
    conversation); a span of no call (a tool's) goes with the calls whose messages name its call id, else with
    the first. One conversation: the spans as they are."""
    openings = {text: [] for span in spans if (text := opening(span))}
    if len(openings) < 2 or not resends(spans):
        return [spans]
    loose = []
    for span in spans:
        (openings[opening(span)] if opening(span) else loose).append(span)
    groups = list(openings.values())
    for span in loose:
        call_id = str(ending(attributes(span), CALL_ID_ENDS) or "")
        home = next((g for g in groups if call_id and any(call_id in json.dumps(sent(attributes(s))) for s in g)), groups[0])
        home.append(span)
    return groups
