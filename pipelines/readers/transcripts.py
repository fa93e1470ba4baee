"""AI-agent transcripts -> one canonical message list, rendered as ChatML-like text.

Accepted shapes, recognised by structure rather than file name:

  * SWE-agent ``.traj``: an object with ``history`` (chat messages; assistant turns may carry
    OpenAI ``tool_calls``, tool results carry ``tool_call_ids``), ``trajectory`` and ``info``
    (``exit_status``, ``submission``)                                  -> format ``swe-agent``
  * mini-swe-agent: a JSON list of OpenAI-style messages, or an object with ``messages`` and an
    optional ``info``                                                   -> format ``mini-swe-agent``
  * JSONL (``.jsonl``/``.ndjson``, optionally compressed), one transcript per line: an object
    with ``messages`` or a bare list of messages                        -> format ``openai-jsonl``

Every message is normalised to ``{role, content, tool_calls: [{id, name, arguments}],
tool_call_id, name}`` and rendered as::

    <|im_start|>{role}\\n{content}[\\n<tool_call>{"name": ..., "arguments": ...}</tool_call>]*<|im_end|>\\n

Anything else is quarantined as ``unknown transcript shape: ...`` so a new agent format shows up
in the quarantine report instead of as silently empty documents.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from mixtures.spec import SourceConfig
from pipelines.readers.common import (
    Outcome,
    base_name,
    decode_utf8,
    drop,
    iter_bounded_lines,
    line_location,
    make_document,
    open_binary,
    path_selected,
    quarantine,
    read_bounded,
    strip_compression,
)

JSONL_SUFFIXES = (".jsonl", ".ndjson")
TEXT_BLOCK_TYPES = frozenset({"text", "input_text", "output_text"})


class TranscriptShapeError(ValueError):
    """The JSON parsed, but is not a transcript this reader knows."""

    def __init__(self, problem: str):
        super().__init__(f"unknown transcript shape: {problem}")


def read_transcripts(source: SourceConfig, location: str) -> Iterator[Outcome]:
    """One Document per transcript: the whole file, or each line of a JSONL file.

    include/exclude globs match the file name, since a transcript has no in-repo path.
    """
    name = base_name(location)
    if not path_selected(source, name):
        yield drop(source, location, "path_not_included")
    elif strip_compression(name.lower()).endswith(JSONL_SUFFIXES):
        yield from _read_jsonl(source, location, name)
    else:
        yield _read_whole_file(source, location, name)


def _read_whole_file(source: SourceConfig, location: str, name: str) -> Outcome:
    with open_binary(location) as stream:
        data = read_bounded(stream, source.limits.max_file_bytes)
    if data is None:
        return drop(source, location, "file_too_large")
    try:
        parsed = json.loads(decode_utf8(data))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        return quarantine(source, location, error)
    return transcript_outcome(source, location, name, parsed, default_format="mini-swe-agent")


def _read_jsonl(source: SourceConfig, location: str, name: str) -> Iterator[Outcome]:
    limit = source.limits.max_line_bytes
    with open_binary(location) as stream:
        for lineno, line in iter_bounded_lines(stream, limit):
            where = line_location(location, lineno)
            if line is None:
                yield quarantine(source, where, f"LineTooLong: over {limit} bytes (limits.max_line_bytes)")
                continue
            if not line.strip():
                continue
            try:
                parsed = json.loads(decode_utf8(line))
            except (UnicodeDecodeError, json.JSONDecodeError) as error:
                yield quarantine(source, where, error)
                continue
            yield transcript_outcome(source, where, name, parsed, default_format="openai-jsonl")


def transcript_outcome(source: SourceConfig, where: str, name: str, parsed: Any, *, default_format: str) -> Outcome:
    """A parsed transcript -> Document, or Quarantined when its shape is not recognised."""
    try:
        raw_messages, info = split_transcript(parsed)
        messages = [normalize_message(message, i) for i, message in enumerate(raw_messages)]
        text = render_chatml(messages)
        text.encode("utf-8")  # JSON can smuggle lone surrogates ("\ud800"); no shard can store them
    except (TranscriptShapeError, UnicodeEncodeError) as error:
        return quarantine(source, where, error)
    is_swe_agent = isinstance(parsed, dict) and _messages_key(parsed) == "history"
    metadata = {"format": "swe-agent" if is_swe_agent else default_format, "messages": messages,
                **outcome_fields(info)}
    return make_document(source, where, text, repo=transcript_repo(parsed, info), path=name, metadata=metadata)


def split_transcript(parsed: Any) -> tuple[list[Any], dict[str, Any]]:
    """``(messages, info)`` from any accepted shape."""
    if isinstance(parsed, list):
        messages, info = parsed, {}
    elif isinstance(parsed, dict) and _messages_key(parsed):
        messages = parsed[_messages_key(parsed)]
        info = parsed.get("info") if isinstance(parsed.get("info"), dict) else {}
    elif isinstance(parsed, dict):
        raise TranscriptShapeError(f"object with keys {sorted(parsed)[:10]} has no 'history' or 'messages' list")
    else:
        raise TranscriptShapeError(f"a JSON {type(parsed).__name__}, not an object or a list of messages")
    if not messages:
        raise TranscriptShapeError("no messages")
    return messages, info


def _messages_key(parsed: dict[str, Any]) -> str:
    """``history`` (SWE-agent) or ``messages`` (everyone else), whichever holds a list; else ""."""
    return next((key for key in ("history", "messages") if isinstance(parsed.get(key), list)), "")


def normalize_message(message: Any, index: int) -> dict[str, Any]:
    """The canonical message; extra keys (SWE-agent's thought/action/agent) are left behind."""
    if not isinstance(message, dict):
        raise TranscriptShapeError(f"message {index} is a {type(message).__name__}, not an object")
    role = message.get("role")
    if not isinstance(role, str) or not role:
        raise TranscriptShapeError(f"message {index} has no role")
    call_ids = message.get("tool_call_ids")  # SWE-agent names the calls a tool result answers
    tool_call_id = message.get("tool_call_id") or (call_ids[0] if isinstance(call_ids, list) and call_ids else "")
    name = message.get("name")
    return {"role": role, "content": content_text(message.get("content"), index),
            "tool_calls": [normalize_tool_call(call, index) for call in _tool_calls(message, index)],
            "tool_call_id": str(tool_call_id), "name": name if isinstance(name, str) else ""}


def content_text(content: Any, index: int) -> str:
    """A string as is; a list of content blocks as its text blocks joined by newlines (images and
    other non-text blocks carry nothing a text model can train on)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise TranscriptShapeError(f"message {index} content is a {type(content).__name__}")
    texts = [block if isinstance(block, str) else block.get("text") for block in content
             if isinstance(block, str) or (isinstance(block, dict) and block.get("type") in TEXT_BLOCK_TYPES)]
    return "\n".join(text for text in texts if isinstance(text, str))


def _tool_calls(message: dict[str, Any], index: int) -> list[Any]:
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise TranscriptShapeError(f"message {index} tool_calls is a {type(calls).__name__}, not a list")
    return calls


def normalize_tool_call(call: Any, index: int) -> dict[str, Any]:
    """OpenAI ``{id, function: {name, arguments}}`` (or flat ``{id, name, arguments}``) -> ``{id, name, arguments}``.

    OpenAI sends arguments as a JSON *string*; it is parsed when it holds an object, so the rendered
    ``<tool_call>`` shows ``"arguments": {...}`` as Hermes/Qwen chat templates do, not an escaped string.
    """
    if not isinstance(call, dict):
        raise TranscriptShapeError(f"message {index} has a tool call that is a {type(call).__name__}")
    function = call.get("function") if isinstance(call.get("function"), dict) else call
    name, arguments = function.get("name"), function.get("arguments", {})
    if not isinstance(name, str) or not name:
        raise TranscriptShapeError(f"message {index} has a tool call without a function name")
    if isinstance(arguments, str):
        try:
            decoded = json.loads(arguments)
            arguments = decoded if isinstance(decoded, dict) else arguments
        except json.JSONDecodeError:
            pass  # models do emit broken JSON; keep it verbatim, it is what the agent saw
    return {"id": str(call.get("id") or ""), "name": name, "arguments": arguments}


def render_chatml(messages: list[dict[str, Any]]) -> str:
    """The canonical messages as ChatML-like text (the layout in the module docstring)."""
    parts = []
    for message in messages:
        calls = "".join(
            "\n<tool_call>" + json.dumps({"name": c["name"], "arguments": c["arguments"]}, ensure_ascii=False)
            + "</tool_call>" for c in message["tool_calls"])
        parts.append(f"<|im_start|>{message['role']}\n{message['content']}{calls}<|im_end|>\n")
    return "".join(parts)


def outcome_fields(info: dict[str, Any]) -> dict[str, Any]:
    """``exit_status`` and ``submitted`` where the run recorded them; absent rather than guessed."""
    fields: dict[str, Any] = {}
    status = info.get("exit_status")
    if isinstance(status, str) and status:
        fields["exit_status"] = status
    if "submission" in info:
        fields["submitted"] = bool(info["submission"])
    elif "exit_status" in fields:
        # SWE-agent: "submitted", "submitted (exit_cost)"; mini-swe-agent: "Submitted".
        fields["submitted"] = status.lower().startswith("submitted")
    return fields


def transcript_repo(parsed: Any, info: dict[str, Any]) -> str:
    """The repository the agent worked on, from ``info`` or ``environment`` when recorded; else ""."""
    holders = [info, parsed if isinstance(parsed, dict) else {}]
    environment = holders[1].get("environment")
    holders += [environment] if isinstance(environment, dict) else []
    for holder in holders:
        for key in ("repo_name", "repo", "github_url"):
            value = holder.get(key)
            if isinstance(value, dict):  # SWE-agent config: environment.repo = {github_url | path | repo_name}
                value = value.get("repo_name") or value.get("github_url") or value.get("path")
            if isinstance(value, str) and value:
                return value
    return ""
