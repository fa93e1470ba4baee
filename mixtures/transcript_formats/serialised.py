"""Messages a library serialised with their class, read as the plain turns they are.

LangChain's ``dumpd`` keeps a message as its constructor call (``{lc: 1, type: "constructor", id: ["langchain_core",
"messages", "HumanMessage"], kwargs: {content, tool_calls}}``); .NET's serialisers name a message's class in
``$type``. The role is in the class's name (``HumanMessage``, ``AIMessageChunk``: ``printed.ROLE_CLASS``, as a
printed repr names it), the fields one level down. ``unserialised`` rewrites every such object as ``{role, ...its
fields}``, so the JSON readers take it as any turn. docs/transcript-formats.md ("JSON inside other containers").
"""

from __future__ import annotations

from typing import Any

from codemix.mixtures.transcript_formats.printed import CLASS_ROLES, ROLE_CLASS

# Where a serialised object keeps its class's name and its fields.
CLASS_KEYS = ("id", "$type", "_type", "__class__", "class")
FIELD_KEYS = ("kwargs", "data", "fields")
MAX_DEPTH = 60


def class_role(node: dict) -> str | None:
    """The role a serialised object's class names (``["langchain_core", "messages", "AIMessage"]`` -> assistant)."""
    for key in CLASS_KEYS:
        name = node.get(key)
        name = name[-1] if isinstance(name, list) and name else name
        if isinstance(name, str) and (match := ROLE_CLASS.search(name)):
            return CLASS_ROLES.get(match.group(1).lower())
    return None


def unserialised(value: Any) -> Any:
    """``value`` with each object that names a message class and keeps its fields under ``kwargs``/``data`` as
    ``{role, **fields}``; the same object when it holds none."""
    changed = False

    def walk(node: Any, depth: int) -> Any:
        nonlocal changed
        if depth > MAX_DEPTH:
            return node
        if isinstance(node, list):
            return [walk(item, depth + 1) for item in node]
        if not isinstance(node, dict):
            return node
        fields = next((node[k] for k in FIELD_KEYS if isinstance(node.get(k), dict)), None)
        if fields is not None and "role" not in fields and (role := class_role(node)) is not None:
            changed = True
            return {"role": role, **{key: walk(child, depth + 1) for key, child in fields.items()}}
        return {key: walk(child, depth + 1) for key, child in node.items()}

    result = walk(value, 0)
    return result if changed else value
