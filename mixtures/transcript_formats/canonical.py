"""The canonical message every transcript format becomes, and the helpers the format parsers share.

Design notes: docs/design/mixtures.md, "mixtures/transcript_formats/canonical.py".
"""

from __future__ import annotations

import json
import re
from typing import Any

from codemix.filters.natural_language import TEXT_ACTION

ROLES = frozenset({"system", "user", "assistant", "tool"})
TEXT_BLOCK_TYPES = frozenset({"text", "input_text", "output_text"})
# Real transcripts nest about ten levels (container, messages, message, tool_calls, call, function,
# arguments...). Anything deeper is refused, so every later recursive walk of it (rendering, the
# ledger's json.dumps, Beam's pickling) stays far below Python's recursion limit.
MAX_JSON_DEPTH = 100
# How agents without tool-call structure hand the environment's output back as a user turn: OpenHands
# ("OBSERVATION:", "EXECUTION RESULT of [tool]:"), ReAct and CodeAct ("Observation:"), AgentInstruct's
# OS task ("The output of the OS:"), and a tool result written as text under a bracketed header
# ("[read_file for 'a.py'] Result:", "[execute_command] Result:", "Tool [read_file] was not executed").
OBSERVATION_MARKERS = re.compile(
    r"^\s*(?:OBSERVATION:|Observation:|EXECUTION RESULT of \[|The output of the OS:"
    r"|\[[^\]\n]{1,300}\] Result:|Tool \[[^\]\n]{1,100}\] (?:was not executed|result)"
    r"|(?i:exit ?code|return ?code):[ \t]*-?\d+\b)")  # a command's exit status first: an executor's report


# Letters of scripts written without spaces between words (Han, kana, Thai, Lao, Myanmar, Khmer: the ranges
# ``filters.natural_language`` uses) and the sentence marks written with them; and the letters of Han, kana
# and Hangul, each of which says about as much as a short Latin word.
UNSPACED_LETTER = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
UNSPACED_MARK = re.compile(r"[。！？，、；]")
DENSE_LETTER = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")


def is_spoken(text: str) -> bool:
    """Whether a text reads as prose rather than a name, an id or an encoded block: it holds a space, or (a
    script written without spaces: ``对百雅轩798艺术中心有了解吗？``) eight letters of such a script or a
    sentence mark among them (a short name, ``心理咨询师``, is no prose)."""
    if " " in text.strip():
        return True
    letters = len(UNSPACED_LETTER.findall(text[:2000]))
    return letters >= 8 or (letters >= 2 and UNSPACED_MARK.search(text) is not None)


def text_length(text: str) -> int:
    """A text's length in Latin-letter equivalents: a Han, kana or Hangul letter counts three (a Korean line of
    ten syllables is no shorter than its English translation)."""
    return len(text) + 2 * len(DENSE_LETTER.findall(text))


class TranscriptShapeError(ValueError):
    """The JSON parsed, but is not a transcript of the format being read."""

    def __init__(self, problem: str):
        super().__init__(problem)


def message(role: str, content: str = "", *, reasoning: str = "", tool_calls: list[dict[str, Any]] | None = None,
            tool_call_id: str = "", name: str = "", observation: bool = False) -> dict[str, Any]:
    """One canonical message; every format builds its messages here so they all carry the same keys."""
    return {"role": role, "content": content, "reasoning": reasoning, "tool_calls": tool_calls or [],
            "tool_call_id": tool_call_id, "name": name, "observation": observation}


def tool_call(call_id: Any, name: Any, arguments: Any, *, kind: str = "function", where: str = "") -> dict[str, Any]:
    """A canonical call; ``arguments`` as a string is kept verbatim, anything else serialised once."""
    if not isinstance(name, str) or not name:
        raise TranscriptShapeError(f"{where or 'a message'} has a tool call without a name")
    if not isinstance(arguments, str):
        arguments = json.dumps({} if arguments is None else arguments, ensure_ascii=False, default=as_json)
    return {"id": "" if call_id is None else str(call_id), "name": name, "arguments": arguments, "kind": kind}


def as_json(value: Any) -> Any:
    """A value JSON has no type for, as the nearest it has: a Python literal's set or frozenset as the list of its
    members (in their text's order), bytes as text, anything else (``...``, a complex number) as its text. A
    printed call's arguments (``{'tags': {'a', 'b'}}``) are then kept, never a crash that costs the file."""
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    return repr(value) if value is Ellipsis else str(value)


# A call a text export writes in its own words where the model's arguments were (Windsurf's ``*Viewed [a.md](...) *``,
# SpecStory's ``Tool use: **list_dir** • Listed directory, 0 results``, a todo list rendered as lines): the call
# happened, what the model emitted is not in the file: shown, never trained (``chat.render_turn``;
# docs/agent-transcripts.md, "Calls an export describes").
DESCRIBED = "described"


def exported_call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    """A call as a text export writes it: arguments that are a JSON object (parsed, or as text) are the model's;
    anything else is the export's description of the call (kind ``DESCRIBED``)."""
    value = arguments
    if isinstance(arguments, str):
        try:
            value = json.loads(arguments)
        except (ValueError, RecursionError):
            value = None
    return tool_call(call_id, name, arguments, kind="function" if isinstance(value, dict) else DESCRIBED)


def parsed_arguments(call: dict[str, Any]) -> dict[str, Any] | None:
    """The call's arguments as an object, or None when they are not a JSON object (or the call is free text)."""
    if call.get("kind", "function") != "function":
        return None
    try:
        value = json.loads(call["arguments"])
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) and not nested_deeper_than(value, MAX_JSON_DEPTH) else None


def block_type(block: Any) -> str:
    """A content block's ``type``, or "" when the block is not an object or the type not a string
    (``{"type": []}`` must not raise TypeError in a set lookup and quarantine the whole file)."""
    kind = block.get("type") if isinstance(block, dict) else None
    return kind if isinstance(kind, str) else ""


def content_text(content: Any, where: str) -> str:
    """A string as is; a list of content blocks as its text blocks (typed ``text``, or an untyped ``{text}`` as
    Bedrock's Converse API writes them) joined by newlines (images and other non-text blocks carry nothing a
    text model can train on)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise TranscriptShapeError(f"{where} content is a {type(content).__name__}")
    texts = [block if isinstance(block, str) else block.get("text") for block in content
             if isinstance(block, str) or block_type(block) in TEXT_BLOCK_TYPES
             or (isinstance(block, dict) and "type" not in block and isinstance(block.get("text"), str))]  # ``{text}``: Converse
    return "\n".join(text for text in texts if isinstance(text, str))


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether lists and objects in ``value`` nest more than ``limit`` levels; iterative, so a
    hostile value cannot make the check itself hit the recursion limit."""
    stack = [(value, 1)] if isinstance(value, (list, dict)) else []
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack += [(child, depth + 1) for child in children if isinstance(child, (list, dict))]
    return False


def require_dict(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TranscriptShapeError(f"{where} is a {type(value).__name__}, not an object")
    return value


def require_list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise TranscriptShapeError(f"{where} is a {type(value).__name__}, not a list")
    return value


def string(value: Any) -> str:
    """``value`` when it is a string, else "" (optional text fields are often null)."""
    return value if isinstance(value, str) else ""


def strip_affixes(text: str, prefix: str, suffix: str = "") -> str:
    """``text`` without a known harness ``prefix`` and ``suffix`` (each only where present), trimmed."""
    body = text[len(prefix):] if prefix and text.startswith(prefix) else text
    body = body.rstrip()
    if suffix and body.endswith(suffix):
        body = body[: -len(suffix)]
    return body.strip()


def flag_text_observations(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Flag as observations the user turns the environment wrote: after the model's first turn, a user
    turn that opens with an observation marker (``OBSERVATION_MARKERS``), or answers a model turn that
    called a tool, in its structure or as text (``TEXT_ACTION``), with no tool turn in between. A call an export only
    describes (``DESCRIBED``: a screen's ``• Explored`` action) shows no result: the person's next turn is theirs."""
    previous: dict[str, Any] | None = None
    answered = False
    for canonical in messages:
        if answered and canonical["role"] == "user" and not canonical["observation"]:
            acted = previous is not None and previous["role"] == "assistant" and (
                any(call.get("kind") != DESCRIBED for call in previous["tool_calls"]) or TEXT_ACTION.search(previous["content"]))
            canonical["observation"] = bool(acted or OBSERVATION_MARKERS.match(canonical["content"]))
        answered = answered or (canonical["role"] == "assistant" and not canonical["observation"])
        previous = canonical
    return messages
