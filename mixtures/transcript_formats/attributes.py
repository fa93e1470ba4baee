"""A model's turns printed attribute by attribute (``printed-attributes``): a script that prints each response
message's fields on lines of their own, ``reasoning_content="..."``, ``content=''``,
``tool_calls=[ChatCompletionMessageToolCall(id='call_00_Tc...', function=Function(arguments='{}', name='get_date'),
...)]``, each message's lines together (under a ``Turn 1.1`` line), and what a tool gave on a line that names it
(``tool_result(get_date): 2025-12-01``).

Each group of two attribute lines or more (``content`` or ``tool_calls`` among them) is one message, the model's unless
a ``role=`` line says otherwise; the values are read as Python literals (a printed call's repr as its fields; nothing
runs). Reasoning stays reasoning. A result line is the tool's turn. Such a dump keeps no request (the person's
question sat in the script): the run is judged as any run no request reaches.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import message, tool_call
from codemix.mixtures.transcript_formats.turns import ROLE_ALIASES

FIELDS = ("content", "reasoning_content", "reasoning", "tool_calls", "role", "refusal", "function_call")
ATTRIBUTE = re.compile(rf"^(?P<key>{'|'.join(FIELDS)})=(?P<value>.*)$", re.MULTILINE)
RESULT = re.compile(r"^(?:tool_result|tool_output|observation|result)\((?P<name>[\w.:-]{1,64})\):[ \t]?(?P<text>.*)$",
                    re.MULTILINE)
MIN_MESSAGES = 2


def value_of(node: ast.AST) -> Any:
    """A printed literal's value; a call's repr (``Function(arguments='{}', name='x')``) as its keyword fields."""
    if isinstance(node, ast.Call):
        return {k.arg: value_of(k.value) for k in node.keywords if k.arg}
    if isinstance(node, (ast.List, ast.Tuple)):
        return [value_of(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        return {value_of(k): value_of(v) for k, v in zip(node.keys, node.values) if k is not None}
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def printed_value(source: str) -> Any:
    try:
        return value_of(ast.parse(source.strip(), mode="eval").body)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def calls_of(value: Any) -> list[dict[str, Any]]:
    calls = []
    for call in value if isinstance(value, list) else []:
        function = call.get("function") if isinstance(call, dict) and isinstance(call.get("function"), dict) else call
        if isinstance(function, dict) and isinstance(function.get("name"), str) and function["name"]:
            calls.append(tool_call(call.get("id"), function["name"], function.get("arguments", "")))
    return calls


def attribute_turns(text: str) -> list[tuple[int, dict[str, Any]]]:
    """``(position, message)`` of every group of attribute lines and every result line."""
    found, group, last_end = [], {}, None
    start = 0
    for match in ATTRIBUTE.finditer(text):
        if last_end is not None and text[last_end:match.start()].strip("\n") or match.group("key") in group:
            found.append((start, group))
            group = {}
        if not group:
            start = match.start()
        group[match.group("key")] = printed_value(match.group("value"))
        last_end = match.end() + 1
    if group:
        found.append((start, group))
    turns = []
    for position, fields in found:
        if len(fields) < 2 or not {"content", "tool_calls"} & set(fields):
            continue
        role = ROLE_ALIASES.get(str(fields.get("role") or "assistant").lower(), "assistant")
        content, reasoning = fields.get("content"), fields.get("reasoning_content", fields.get("reasoning"))
        turns.append((position, message(role, content if isinstance(content, str) else "",
                                        reasoning=reasoning if isinstance(reasoning, str) else "",
                                        tool_calls=calls_of(fields.get("tool_calls")))))
    turns += [(m.start(), message("tool", m.group("text").strip(), name=m.group("name"), observation=True))
              for m in RESULT.finditer(text)]
    return sorted(turns, key=lambda turn: turn[0])


def attribute_messages(text: Any) -> list[dict[str, Any]] | None:
    """The messages of a dump, or None: two model messages or more, a call among them answered by a result."""
    if not isinstance(text, str) or "=" not in text:
        return None
    messages = [m for _, m in attribute_turns(text)]
    model = [m for m in messages if m["role"] == "assistant"]
    if len(model) < MIN_MESSAGES or not any(m["tool_calls"] for m in model) or not any(m["observation"] for m in messages):
        return None
    return messages


def parse_printed_attributes(text: str) -> list[Transcript]:
    return [Transcript(format="printed-attributes", extra={"layout": "attributes"}, messages=attribute_messages(text) or [])]


PRINTED_ATTRIBUTES = Format(name="printed-attributes", container="text",
                            detect=lambda text: attribute_messages(text) is not None, parse=parse_printed_attributes)
