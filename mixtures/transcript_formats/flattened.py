"""Conversations a tracer flattened into attributes, put back into the nested value they stand for.

OpenTelemetry spans keep a call's messages as one attribute per field, the list index written into the
key (``gen_ai.prompt.0.role``, ``gen_ai.completion.0.content``; OpenInference's
``llm.input_messages.1.message.content``), and OTLP JSON writes attributes as ``[{key, value:
{stringValue}}]``. ``unflattened`` turns both back into objects and lists (``{gen_ai: {prompt: [{role,
content}], completion: [...]}}``), which the JSON readers then read as any call record.
docs/transcript-formats.md ("Flattened attributes").
"""

from __future__ import annotations

from typing import Any

# OTLP JSON's typed attribute values (proto3 JSON, camelCase or snake_case).
TYPED_VALUES = ("stringValue", "string_value", "intValue", "int_value", "doubleValue", "double_value",
                "boolValue", "bool_value", "arrayValue", "array_value", "kvlistValue", "kvlist_value")
MAX_DEPTH = 60


def typed_value(value: Any) -> Any:
    """The plain value of an OTLP ``AnyValue`` (``{"stringValue": "x"}`` -> ``"x"``; arrays and key-value
    lists as lists and objects)."""
    if not isinstance(value, dict) or len(value) != 1:
        return value
    (kind, inner), = value.items()
    if kind in ("arrayValue", "array_value") and isinstance(inner, dict):
        return [typed_value(v) for v in inner.get("values", [])]
    if kind in ("kvlistValue", "kvlist_value") and isinstance(inner, dict) and (pairs := attribute_pairs(inner.get("values"))):
        return pairs
    return inner if kind in TYPED_VALUES else value


def attribute_pairs(items: Any) -> dict[str, Any] | None:
    """A list of OTLP attributes (``[{key, value: {stringValue}}]``) as one object, else None."""
    if not isinstance(items, list) or not items or not all(
            isinstance(i, dict) and isinstance(i.get("key"), str) and set(i) <= {"key", "value"} for i in items):
        return None
    if not any(isinstance(i.get("value"), dict) and set(i["value"]) & set(TYPED_VALUES) for i in items):
        return None
    return {i["key"]: typed_value(i.get("value")) for i in items}


def is_indexed_flat(node: dict) -> bool:
    """Whether an object keeps lists flattened into dotted keys: two keys or more with a number for a part."""
    return sum(1 for key in node if isinstance(key, str) and "." in key
               and any(part.isdigit() for part in key.split("."))) >= 2


def nested(node: dict) -> dict:
    """``node``'s dotted keys as nested objects, numbered parts as list positions (in index order). A key that
    would both hold a value and a branch keeps its value under its dotted name."""
    tree: dict = {}
    for key, value in node.items():
        parts = key.split(".") if isinstance(key, str) else [key]
        at = tree
        for part in parts[:-1]:
            child = at.setdefault(part, {})
            if not isinstance(child, dict):
                at = None
                break
            at = child
        if at is None or (parts[-1] in at and isinstance(at[parts[-1]], dict)):
            tree[key] = value
        else:
            at[parts[-1]] = value
    return as_lists(tree)


def as_lists(node: Any) -> Any:
    """Objects keyed only by numbers become lists, in numeric order."""
    if not isinstance(node, dict):
        return node
    node = {key: as_lists(value) for key, value in node.items()}
    if node and all(isinstance(key, str) and key.isdigit() for key in node):
        return [node[key] for key in sorted(node, key=int)]
    return node


def unflattened(value: Any) -> Any:
    """``value`` with OTLP attribute lists as objects and indexed dotted keys as nested values; the same
    object when it holds neither."""
    changed = False

    def walk(node: Any, depth: int) -> Any:
        nonlocal changed
        if depth > MAX_DEPTH:
            return node
        if isinstance(node, list):
            if (pairs := attribute_pairs(node)) is not None:
                changed = True
                return walk(pairs, depth + 1)
            return [walk(item, depth + 1) for item in node]
        if isinstance(node, dict):
            if is_indexed_flat(node):
                changed = True
                node = nested(node)
            return {key: walk(child, depth + 1) for key, child in node.items()}
        return node

    result = walk(value, 0)
    return result if changed else value
