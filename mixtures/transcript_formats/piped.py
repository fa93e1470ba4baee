"""A run logged node by node, each record a node's input and output, where a node's input is what the node
before it returned: a graph's or a chain's steps (LangGraph's ``{node_name, input, output, tool_calls}``
trajectory), not a list of separate model calls.

What a node was passed on is no new message: the model's calls given to the tool node, the tool's result
given back to the model, the model's answer given to a formatter. Only a node's input that no node before
it returned (the person's next request) is a turn. A node's output is its turn: the model's text and the
calls logged beside it, or a tool's result when the output is a tool's message. Fields a program wrote with
``str()``/``repr()`` (``[ToolMessage(content=...)]``, ``content='...' name='...'``, content blocks) are read
back with ``printed.parse_printed`` first. docs/transcript-formats.md ("Node steps").
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from codemix.mixtures.transcript_formats.canonical import TranscriptShapeError, message
from codemix.mixtures.transcript_formats.printed import Parser, PrintedSyntaxError, message_records, parse_printed
from codemix.mixtures.transcript_formats.turns import (
    PROMPT_KEYS,
    RESPONSE_KEYS,
    call_prompt,
    first_present,
    is_tool_event,
    new_part,
    response_messages,
    turn_calls,
    turn_text,
)

# A repr's opening: a list, a dict, a ``Name(`` call, or pydantic's ``str()`` of a model (``field=value ...``).
PRINTED_OPENING = re.compile(r"\s*(?:[\[{]|[A-Z]\w*\(|[a-z_]\w*=)")
FIELD = re.compile(r"([A-Za-z_]\w*)=(?!=)")
# An output that names its answer rather than its content (a formatter node's ``{answer, confidence}``).
ANSWER_KEYS = ("answer", "final_answer", "final_output", "result")
PASSED_CHARS = 200  # the head of an input compared with what the node before returned


def printed_fields(text: str) -> dict[str, Any] | None:
    """pydantic's ``str()`` of a model, ``content='hi' name='x' tool_call_id='1'``, as its fields; else None."""
    parser, fields = Parser(text), {}
    while parser.peek():
        field = FIELD.match(text, parser.at)
        if field is None:
            return None
        parser.at = field.end()
        try:
            fields[field.group(1)] = parser.value()
        except PrintedSyntaxError:
            return None
    return fields or None


def printed(value: Any) -> Any:
    """A field a program printed, as the value it spells when that holds messages, content blocks or calls;
    otherwise the field as it is."""
    if not isinstance(value, str) or PRINTED_OPENING.match(value) is None:
        return value
    try:
        parsed = parse_printed(value)
    except PrintedSyntaxError:
        parsed = printed_fields(value)
    if parsed == [] or (isinstance(parsed, list) and parsed and all(is_tool_event(v) for v in parsed)):
        return parsed  # an empty output, or the calls a tool node was given
    if isinstance(parsed, dict) and "content" in parsed and not message_records(parsed):
        return {**parsed, "role": "tool" if parsed.get("tool_call_id") else "user"}  # pydantic's str() names no role
    if isinstance(parsed, dict) and any(isinstance(parsed.get(k), str) for k in ANSWER_KEYS):
        return parsed
    return parsed if parsed is not None and message_records(parsed) else value


def raw(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def passed_on(call: dict, before: dict) -> bool:
    """Whether a node's input is what the node before it returned: its output, or the calls logged beside it
    (the head of the input's text found there, or every call id it names)."""
    given = first_present(call, PROMPT_KEYS)
    if given is None:
        return False
    returned = raw(first_present(before, RESPONSE_KEYS) or "") + raw(before.get("tool_calls") or "")
    value = printed(given)
    if isinstance(value, list) and value and all(is_tool_event(v) for v in value):
        ids = [str(v.get("id") or "") for v in value]
        return all(ids) and all(i in returned for i in ids)
    text = turn_text(value.get("content")) if isinstance(value, dict) else turn_text(value) or raw(given)
    return bool(text.strip()) and text.strip()[:PASSED_CHARS] in returned


def is_piped_run(calls: list) -> bool:
    """Whether a list of call records is a run of nodes: some node's input is what the node before returned."""
    return len(calls) > 1 and all(isinstance(c, dict) for c in calls) and any(
        passed_on(call, before) for before, call in itertools.pairwise(calls))


def node_output(call: dict, given_calls: set[str], where: str) -> list[dict[str, Any]]:
    """A node's turn: a tool's message as its result; else the model's text with the calls logged beside it
    (calls a node was given are the model's, already read)."""
    value = printed(first_present(call, RESPONSE_KEYS))
    records = message_records(value) if value is not None else []
    if records and all(r["role"] == "tool" for r in records):
        return [message("tool", turn_text(r.get("content")), tool_call_id=str(r.get("tool_call_id") or ""),
                        name=str(r.get("name") or ""), observation=True) for r in records]
    if isinstance(value, dict) and not records and (answer := next(
            (value[k] for k in ANSWER_KEYS if isinstance(value.get(k), str) and value[k].strip()), None)):
        value = answer
    replies = response_messages(value, where) if value not in (None, []) else []
    calls = [c for c in turn_calls(call, where) if c["id"] not in given_calls or not c["id"]]
    if calls and not any(r["tool_calls"] for r in replies):
        if replies:
            replies[-1] = {**replies[-1], "tool_calls": calls}
        else:
            replies = [message("assistant", "", tool_calls=calls)]
    return replies


def piped_messages(calls: list) -> list[dict[str, Any]]:
    """The run's turns: the first node's input, each later input no node before returned (``new_part`` of
    it), and each node's output (``node_output``)."""
    messages: list[dict[str, Any]] = []
    seen_calls: set[str] = set()
    for index, call in enumerate(calls):
        where = f"node {index}"
        if index == 0 or not passed_on(call, calls[index - 1]):
            try:
                prompt = call_prompt({**call, **{k: printed(call[k]) for k in PROMPT_KEYS if k in call}}, where)
            except TranscriptShapeError:
                prompt = call_prompt(call, where)
            messages += prompt if not messages else new_part(prompt, messages, "")
        for reply in node_output(call, seen_calls, where):
            messages.append(reply)
            seen_calls |= {c["id"] for c in reply["tool_calls"] if c["id"]}
    return messages
