"""Turns read through a source's own mapping (``SourceConfig.turns``): the escape hatch for a layout no
recognition reads. The mapping names where the turn lists sit and each turn's speaker and text keys; the
turns then read as ``shape`` reads any turn list (speakers by the source's ``speakers``, else by alias,
else by position; calls and results as their keys say)."""

from __future__ import annotations

from typing import Any

from codemix.mixtures.transcript_formats.base import Transcript
from codemix.mixtures.transcript_formats.canonical import TranscriptShapeError, flag_text_observations, message
from codemix.mixtures.transcript_formats.turns import CONTENT_KEYS, ROLE_KEYS, turn_messages


def select(value: Any, tokens: list[str | int], path: str = "$", above: tuple = ()) -> list[tuple[str, Any, tuple]]:
    """Every ``(path, node, the objects above it, nearest first)`` the tokens reach from ``value``."""
    if not tokens:
        return [(path, value, above)]
    head, rest = tokens[0], tokens[1:]
    if head == "*":
        children = (list(value.items()) if isinstance(value, dict) else list(enumerate(value))
                    if isinstance(value, list) else [])
    elif isinstance(head, int):
        children = [(head, value[head])] if isinstance(value, list) and -len(value) <= head < len(value) else []
    else:
        children = [(head, value[head])] if isinstance(value, dict) and head in value else []
    found = []
    for key, child in children:
        step = f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}"
        found += select(child, rest, step, (value, *above) if isinstance(value, dict) else above)
    return found


def mapped_transcripts(value: Any, tokens: list[str | int], role: str, content: str, task: str = "",
                       speakers: dict[str, str] | None = None) -> list[Transcript]:
    """One transcript per list the mapping's path reaches, its task from ``task`` in the nearest object
    above it that has one; an item that names no speaker under ``role`` is refused with its place (the
    mapping does not fit the file)."""
    lists = [(path, node, holder) for path, node, holder in select(value, tokens) if isinstance(node, list)]
    if not lists:
        raise TranscriptShapeError("turns.path reaches no list in this value")
    transcripts = []
    for path, items, above in lists:
        turns = []
        for index, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get(role), str) or not item[role].strip():
                raise TranscriptShapeError(f"{path}[{index}] has no speaker under turns.role ({role!r})")
            kept = {k: v for k, v in item.items() if k not in (*ROLE_KEYS, *CONTENT_KEYS, role, content)}
            turns.append({**kept, "speaker": item[role].strip(), "content": item.get(content)})
        messages = turn_messages(turns, speakers)
        opening = next((holder[task] for holder in above if task and isinstance(holder.get(task), str)), None)
        first_model = next((i for i, m in enumerate(messages) if m["role"] == "assistant"), len(messages))
        if isinstance(opening, str) and opening.strip() and not any(m["role"] == "user" for m in messages[:first_model]):
            messages = [message("user", opening), *messages]
        transcripts.append(Transcript(format="shape", messages=flag_text_observations(messages),
                                      extra={"path": path, "layout": "mapped"}))
    return transcripts
