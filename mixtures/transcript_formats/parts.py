"""Messages made of parts that each name their own kind, read as ordinary turns: pydantic-ai's
``{kind: request|response, parts: [{part_kind: system-prompt|user-prompt|tool-call|tool-return|text|thinking}]}``,
the AI SDK's and agent UIs' ``{role, parts: [{type: text|reasoning|tool-use|tool-result|tool-invocation}]}``.

The side a message is on (a request sent to the model, or the model's response) and each part's kind
words decide what the part is: a system prompt, the person's words, a call, a tool's result, the model's
reasoning or its text. docs/transcript-formats.md (``shape``, "Parts that name their kind").
"""

from __future__ import annotations

import json
import re
from typing import Any

from codemix.mixtures.transcript_formats.turns import ROLE_ALIASES, turn_text

PART_KIND_KEYS = ("part_kind", "partKind", "type", "kind")
SIDE_KEYS = ("kind", "role", "type")
# A message's side named by what it is in a model call rather than by who wrote it.
CALL_SIDES = {"request": "user", "response": "assistant"}
CALL_WORDS = frozenset({"call", "use", "invocation"})
RESULT_WORDS = frozenset({"return", "result", "response", "output"})
THINKING_WORDS = frozenset({"thinking", "reasoning", "thought"})
NAME_KEYS = ("tool_name", "toolName", "name")
ARGUMENT_KEYS = ("args", "arguments", "input", "parameters")
CALL_ID_KEYS = ("tool_call_id", "toolCallId", "toolUseId", "toolId", "call_id", "id")
RESULT_KEYS = ("content", "result", "output", "text")
# A request's own system prompt, kept beside its parts (pydantic-ai's ``instructions``).
SYSTEM_KEYS = ("instructions", "system_prompt", "systemPrompt")


def kind_words(value: Any) -> frozenset[str]:
    return frozenset(re.split(r"[^a-z]+", value.lower())) - {""} if isinstance(value, str) else frozenset()


def part_kind(part: Any) -> frozenset[str]:
    if not isinstance(part, dict):
        return frozenset()
    return next((words for key in PART_KIND_KEYS if (words := kind_words(part.get(key)))), frozenset())


def side_of(item: Any) -> str | None:
    """``user``, ``assistant`` or ``system``: the message's side, named by a role alias or by request/response."""
    if not isinstance(item, dict):
        return None
    for key in SIDE_KEYS:
        value = item.get(key)
        if isinstance(value, str) and (side := CALL_SIDES.get(value.lower()) or ROLE_ALIASES.get(value.lower())):
            return side
    return None


def is_kinded_part_list(items: Any) -> bool:
    """At least two messages, each on a side and holding a ``parts`` list of objects, whose parts name kinds
    the turn vocabulary does not read by itself: pydantic-ai's ``part_kind``, a request/response side, or
    hyphenated tool kinds (``tool-use``, ``tool-result``)."""
    if not isinstance(items, list) or len(items) < 2:
        return False
    sample = items[:200]
    if not all(side_of(item) and isinstance(item.get("parts"), list) for item in sample):
        return False
    parts = [part for item in sample for part in item["parts"]]
    if not parts or not all(isinstance(part, dict) for part in parts):
        return False
    return (any("part_kind" in part or "partKind" in part for part in parts)
            or any(str(item.get("kind", "")).lower() in CALL_SIDES for item in sample)
            or any("tool" in words and len(words) > 1 for words in map(part_kind, parts)))


def part_text(part: dict) -> str:
    value = next((part[key] for key in RESULT_KEYS if part.get(key) not in (None, "")), "")
    if isinstance(value, (dict, list)):
        return turn_text(value) or json.dumps(value, ensure_ascii=False)
    return value if isinstance(value, str) else str(value)


def first_of(part: dict, keys: tuple[str, ...]) -> Any:
    return next((part[key] for key in keys if part.get(key) not in (None, "")), None)


def part_call(part: dict) -> dict[str, Any] | None:
    """The call a part makes, as a ``tool_calls`` entry (its arguments kept as they were written)."""
    body = part.get("toolInvocation") if isinstance(part.get("toolInvocation"), dict) else part
    name = first_of(body, NAME_KEYS)
    if not isinstance(name, str) or not name:
        return None
    arguments = first_of(body, ARGUMENT_KEYS)
    arguments = arguments if isinstance(arguments, str) else json.dumps(arguments if arguments is not None else {})
    return {"id": str(first_of(body, CALL_ID_KEYS) or ""), "type": "function",
            "function": {"name": name, "arguments": arguments}}


def part_result(part: dict) -> dict[str, Any]:
    body = part.get("toolInvocation") if isinstance(part.get("toolInvocation"), dict) else part
    return {"role": "tool", "content": part_text(body), "tool_call_id": str(first_of(body, CALL_ID_KEYS) or ""),
            "name": str(first_of(body, NAME_KEYS) or "")}


def message_turns(item: dict) -> list[dict[str, Any]]:
    """One message's parts as turns: a model's response is one turn (its text, reasoning and calls; a result
    it carries after them); a request is its system, user and tool turns in order."""
    side = side_of(item)
    model: dict[str, Any] = {"role": "assistant", "content": "", "tool_calls": [], "reasoning": ""}
    turns: list[dict[str, Any]] = []
    for part in item["parts"]:
        words = part_kind(part)
        if words & THINKING_WORDS:
            model["reasoning"] = "\n".join(filter(None, [model["reasoning"], part_text(part)]))
        elif words & CALL_WORDS and not words & RESULT_WORDS and (call := part_call(part)):
            model["tool_calls"].append(call)
            state = part.get("toolInvocation", {}).get("state") if isinstance(part.get("toolInvocation"), dict) else None
            if state == "result":  # the AI SDK keeps the result on the call's own part
                turns.append(part_result(part))
        elif words & RESULT_WORDS or ("retry" in words and first_of(part, NAME_KEYS)):
            turns.append(part_result(part))
        elif "system" in words:
            turns.append({"role": "system", "content": part_text(part)})
        elif side == "assistant" and not words & {"user", "prompt"}:
            model["content"] = "\n".join(filter(None, [model["content"], part_text(part)]))
        else:
            turns.append({"role": "user" if side != "system" else "system", "content": part_text(part)})
    if model["content"] or model["tool_calls"] or model["reasoning"]:
        head = [t for t in turns if t["role"] != "tool"]
        return [*head, model, *[t for t in turns if t["role"] == "tool"]]
    return turns


def kinded_part_turns(items: Any) -> list[dict[str, Any]] | None:
    """The turns of a list of kinded-part messages (``is_kinded_part_list``), else None."""
    if not is_kinded_part_list(items):
        return None
    turns: list[dict[str, Any]] = []
    said: set[str] = set()
    for item in items:
        system = next((item[k] for k in SYSTEM_KEYS if isinstance(item.get(k), str) and item[k].strip()), "")
        if system and system not in said:  # pydantic-ai repeats a run's ``instructions`` on every request
            said.add(system)
            turns.append({"role": "system", "content": system})
        turns += message_turns(item)
    return turns if len(turns) >= 2 else None


# The speakers a turn may be keyed by (``{user: text}``): the canonical roles' own names, never an alias that is
# also a record's field name elsewhere (``instruction``, ``input``).
KEYED_SPEAKERS = frozenset({"user", "assistant", "system", "tool", "human", "model"})


def role_keyed_turns(items: Any) -> list[dict[str, Any]] | None:
    """A message list that writes some turns as ``{user: text}`` / ``{assistant: text}`` (the speaker as the key,
    beside metadata) among turns that name their ``role``, as ordinary turns; a tool turn keeping its results as
    ``tool_results: [{tool_call_id, content}]`` is one tool turn per result, and calls a turn that is not the
    model's made (the harness attaching files under ``role: system``) are that turn's text, written as JSON
    (context, never trained). None unless at least one turn is keyed by its speaker and every item is a turn."""
    if not isinstance(items, list) or len(items) < 2 or not all(isinstance(i, dict) for i in items[:500]):
        return None
    if not any(isinstance(item.get("role"), str) for item in items[:500]):
        return None  # a list of keyed exchanges alone (``{user, sys}`` pairs) is read as exchanges are
    turns: list[dict[str, Any]] = []
    keyed = 0
    for item in items:
        texts = [k for k, v in item.items() if isinstance(v, str)]
        if len(texts) == 1 and str(texts[0]).lower() in KEYED_SPEAKERS:
            keyed += 1
            turns.append({"role": texts[0], "content": item[texts[0]]})
        elif isinstance(item.get("tool_results"), list) and all(isinstance(r, dict) for r in item["tool_results"]):
            turns += [{"role": "tool", "content": part_text(r), "tool_call_id": str(first_of(r, CALL_ID_KEYS) or "")}
                      for r in item["tool_results"]]
        elif side_of(item) and side_of(item) != "assistant" and isinstance(item.get("tool_calls"), list) and not any(
                isinstance(item.get(k), str) and item[k].strip() for k in ("content", "text")):
            turns.append({"role": item["role"], "content": json.dumps(item["tool_calls"], ensure_ascii=False)})
        elif side_of(item) and any(k in item for k in ("content", "text", "tool_calls", "parts")):
            turns.append(item)
        else:
            return None
    return turns if keyed else None
