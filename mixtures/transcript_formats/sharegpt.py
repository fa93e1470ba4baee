"""``conversations`` rows (``sharegpt``): the layout agent-SFT datasets publish.

Two spellings of one layout, a row ``{id?, system?, tools?, conversations: [turn, ...]}``:

  * ShareGPT, ``{from, value}`` turns: ``human``/``user``, ``gpt``/``assistant``, ``system``,
    ``function_call`` (the model's call, ``value`` a JSON ``{name, arguments}``) and
    ``observation``/``tool``/``function`` (its result), as LLaMA-Factory's ``glaive_toolcall`` data
    and AgentInstruct (``loss`` beside each turn) write them;
  * ``{role, content}`` turns under ``conversations`` (CodeActInstruct, Orca AgentInstruct).

Environment output that such rows return as a ``human``/``user`` turn is flagged by its markers and
position (``flag_text_observations``).
"""

from __future__ import annotations

import json
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript, declared_tools
from codemix.mixtures.transcript_formats.canonical import (
    TranscriptShapeError,
    content_text,
    flag_text_observations,
    message,
    string,
    tool_call,
)
from codemix.mixtures.transcript_formats.openai import CHAT_ROLES, container_facts

SPEAKERS = {"human": "user", "user": "user", "gpt": "assistant", "assistant": "assistant", "chatgpt": "assistant",
            "model": "assistant", "system": "system", "function_call": "assistant", "observation": "tool",
            "tool": "tool", "function": "tool", "ipython": "tool"}


def is_turn(turn: Any) -> bool:
    return isinstance(turn, dict) and (
        (isinstance(turn.get("from"), str) and "value" in turn) or (isinstance(turn.get("role"), str) and "content" in turn))


def detect_conversations(value: Any) -> bool:
    turns = value.get("conversations") if isinstance(value, dict) else None
    return isinstance(turns, list) and bool(turns) and all(is_turn(t) for t in turns[:50])


def conversation_turn(turn: Any, index: int) -> dict[str, Any]:
    """One ``{from, value}`` or ``{role, content}`` turn -> a canonical message."""
    where = f"turn {index}"
    if not is_turn(turn):
        raise TranscriptShapeError(f"{where} is not a {{from, value}} or {{role, content}} turn")
    speaker = turn["from"] if "from" in turn else turn["role"]
    role = SPEAKERS.get(speaker) or CHAT_ROLES.get(speaker)
    if role is None:
        raise TranscriptShapeError(f"{where} is from {speaker!r}, not one of {sorted(SPEAKERS)}")
    text = content_text(turn.get("value", turn.get("content")), where)
    if speaker == "function_call":
        return message("assistant", tool_calls=[function_call(text, where)])
    return message(role, text, observation=role == "tool")


def function_call(text: str, where: str) -> dict[str, Any]:
    """A ``function_call`` turn's value, ``{"name": ..., "arguments": {...}}``, as a canonical call."""
    try:
        value = json.loads(text)
    except ValueError as error:
        raise TranscriptShapeError(f"{where} is a function_call whose value is not JSON ({error})") from None
    if not isinstance(value, dict):
        raise TranscriptShapeError(f"{where} is a function_call whose value is not an object")
    return tool_call(value.get("id"), value.get("name"), value.get("arguments"), where=where)


def row_tools(value: dict[str, Any]) -> list[str]:
    """Declared tools: a list, or (LLaMA-Factory) a JSON string holding one."""
    tools = value.get("tools")
    if isinstance(tools, str):
        try:
            tools = json.loads(tools)
        except ValueError:
            return []
    return declared_tools(tools)


def parse_conversations(value: dict[str, Any]) -> list[Transcript]:
    turns = value["conversations"]
    system = string(value.get("system"))
    messages = ([message("system", system)] if system else []) + [conversation_turn(t, i) for i, t in enumerate(turns)]
    extra = {"id": value["id"]} if isinstance(value.get("id"), str) else {}
    return [Transcript(format="sharegpt", messages=flag_text_observations(messages), facts=container_facts(value),
                       tools=row_tools(value), extra=extra)]


SHAREGPT = Format(name="sharegpt", container="json", detect=detect_conversations, parse=parse_conversations)
