"""OpenAI Chat Completions messages (``openai-chat``) and the Responses API item list (``openai-responses``).

The Responses items are also what Codex CLI rollouts carry (``codex``), so their conversion lives here
as ``ResponseItems``. Field names: OpenAI API reference; ``openai/codex`` ``codex-rs/protocol/src/models.rs``.
"""

from __future__ import annotations

from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript, declared_tools, recorded_facts
from codemix.mixtures.transcript_formats.canonical import (
    TranscriptShapeError,
    block_type,
    content_text,
    flag_text_observations,
    message,
    require_list,
    string,
    tool_call,
)
from codemix.mixtures.transcript_formats.turns import (
    CALL_ARGUMENT_KEYS,
    CALL_BLOCK_TYPES,
    CONTENT_KEYS,
    RESULT_BLOCK_TYPES,
    block_kind,
    call_name,
    is_tool_event,
)

CHAT_ROLES = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant", "tool": "tool",
              "function": "tool"}  # "function": the legacy result role of `function_call`
RESPONSE_ITEM_TYPES = frozenset({"message", "function_call", "function_call_output", "reasoning", "custom_tool_call",
                                 "custom_tool_call_output", "local_shell_call", "web_search_call", "compaction",
                                 "compaction_summary", "ghost_snapshot", "item_reference"})
# Items that only the Responses API has (a chat message list never holds them).
RESPONSE_ONLY_TYPES = RESPONSE_ITEM_TYPES - {"message"}
# Content blocks keyed by what they hold rather than typed (Bedrock Converse): calls and their results.
KEYED_BLOCKS = frozenset({"toolUse", "toolResult", "functionCall", "functionResponse"})


# --- Chat Completions -----------------------------------------------------------------------------


def chat_messages_of(value: Any) -> list[Any] | None:
    """The message list of a chat container: a bare list, or ``messages`` / ``trajectory`` of a row."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return next((value[k] for k in ("messages", "trajectory") if isinstance(value.get(k), list)), None)
    return None


def is_chat_list(messages: Any) -> bool:
    return (isinstance(messages, list) and bool(messages)
            and all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in messages[:50]))


def detect_chat(value: Any) -> bool:
    return is_chat_list(chat_messages_of(value))


def chat_message(raw: Any, index: int) -> dict[str, Any]:
    """One OpenAI chat message -> canonical (``tool`` results are observations)."""
    where = f"message {index}"
    if not isinstance(raw, dict):
        raise TranscriptShapeError(f"{where} is a {type(raw).__name__}, not an object")
    role = CHAT_ROLES.get(raw.get("role")) if isinstance(raw.get("role"), str) else None
    if role is None:
        raise TranscriptShapeError(f"{where} has role {raw.get('role')!r}, not one of {sorted(CHAT_ROLES)}")
    if isinstance(raw.get("content"), list) and any(isinstance(b, dict) and (b.keys() & KEYED_BLOCKS or block_kind(
            b) in CALL_BLOCK_TYPES | RESULT_BLOCK_TYPES) for b in raw["content"]):
        raise TranscriptShapeError(f"{where} holds call or result blocks (``toolUse``: Bedrock Converse; ``tool-call``: "
                                   "the Vercel AI SDK), not chat content")  # read by shape, which knows them
    call_ids = raw.get("tool_call_ids")  # SWE-agent names the calls a tool result answers in a list
    call_id = raw.get("tool_call_id") or (call_ids[0] if isinstance(call_ids, list) and call_ids else "")
    reasoning = string(raw.get("reasoning_content")) or string(raw.get("reasoning"))
    if raw.get("content") is None and not raw.get("tool_calls") and (logged := logged_call(raw)) is not None:
        # a turn whose only payload is a call (``{role: "user", tool: {tool, args}}``, as Swarm logs them) is
        # the model's call, whatever role the log gave it
        return message("assistant", "", tool_calls=[tool_call("", call_name(logged), next(
            (logged[k] for k in CALL_ARGUMENT_KEYS if k in logged), {}), where=where)])
    if "content" not in raw and not raw.get("tool_calls") and (
            kept := next((k for k in CONTENT_KEYS if isinstance(raw.get(k), (str, list)) and raw[k]), None)):
        # ``{role, text}`` (a chat exported by an editor): no Chat Completions message; read as ``content`` would
        # be empty, which loses every word. ``shape`` knows the other content keys.
        raise TranscriptShapeError(f"{where} keeps its text under {kept!r}, not content")
    return message(role, content_text(raw.get("content"), where), reasoning=reasoning,
                   tool_calls=chat_tool_calls(raw, where), tool_call_id=str(call_id or ""), name=string(raw.get("name")),
                   observation=role == "tool")


def logged_call(raw: dict[str, Any]) -> dict[str, Any] | None:
    """The call object a message holds under a key of its own (``tool``, ``call``...), if any."""
    return next((v for k, v in raw.items() if k not in ("role", "content", "function_call") and is_tool_event(v)),
                None)


def chat_tool_calls(raw: dict[str, Any], where: str) -> list[dict[str, Any]]:
    """``tool_calls`` (``{id, function: {name, arguments}}``, or flat ``{id, name, arguments}``) and the
    legacy single ``function_call``; arguments kept as the exact string the model sent."""
    calls = raw.get("tool_calls") or []
    if not isinstance(calls, list):
        raise TranscriptShapeError(f"{where} tool_calls is a {type(calls).__name__}, not a list")
    if isinstance(raw.get("function_call"), dict):
        calls = [*calls, {"id": "", "function": raw["function_call"]}]
    result = []
    for call in calls:
        if not isinstance(call, dict):
            raise TranscriptShapeError(f"{where} has a tool call that is a {type(call).__name__}")
        function = call["function"] if isinstance(call.get("function"), dict) else call
        result.append(tool_call(call.get("id"), function.get("name"), function.get("arguments"), where=where))
    return result


def parse_chat(value: Any) -> list[Transcript]:
    raw = chat_messages_of(value)
    if not raw:
        raise TranscriptShapeError("no messages")
    messages = flag_text_observations([chat_message(m, i) for i, m in enumerate(raw)])
    return [Transcript(format="openai-chat", messages=messages, facts=container_facts(value),
                       tools=declared_tools(value.get("tools")) if isinstance(value, dict) else [])]


def container_facts(value: Any) -> dict[str, Any]:
    """Recorded outcome facts of a row or file: its ``info`` first, then its top level."""
    if not isinstance(value, dict):
        return {}
    return recorded_facts([value.get("info"), value])


OPENAI_CHAT = Format(name="openai-chat", container="json", detect=detect_chat, parse=parse_chat)


# --- Responses API items --------------------------------------------------------------------------


class ResponseItems:
    """Folds Responses API items into canonical messages.

    An assistant ``message`` opens a turn; ``function_call``/``custom_tool_call``/``local_shell_call``
    items join the open assistant turn (the model sent them in the same response) or open one;
    ``reasoning`` items wait for the next assistant turn; outputs become ``tool`` observations.
    """

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.pending_reasoning: list[str] = []
        self.open_turn: dict[str, Any] | None = None  # the assistant turn calls may still join

    def add(self, item: Any, where: str) -> None:
        if not isinstance(item, dict):
            raise TranscriptShapeError(f"{where} is a {type(item).__name__}, not an object")
        kind = item.get("type", "message" if "role" in item else None)  # "easy input" messages have no type
        handler = getattr(self, f"_{kind}", None) if kind in RESPONSE_ITEM_TYPES else None
        if handler is None:
            raise TranscriptShapeError(f"{where} has type {kind!r}, not a Responses API item")
        handler(item, where)

    def finish(self) -> list[dict[str, Any]]:
        if self.pending_reasoning:  # thinking with no answer after it (the run stopped there)
            self._assistant_turn("")
        return self.messages

    def append(self, canonical: dict[str, Any]) -> None:
        self.messages.append(canonical)
        self.open_turn = canonical if canonical["role"] == "assistant" else None

    def _assistant_turn(self, content: str) -> dict[str, Any]:
        turn = message("assistant", content, reasoning="\n\n".join(self.pending_reasoning))
        self.pending_reasoning = []
        self.append(turn)
        return turn

    def _call_turn(self) -> dict[str, Any]:
        return self.open_turn if self.open_turn is not None and not self.pending_reasoning else self._assistant_turn("")

    def _message(self, item: dict[str, Any], where: str) -> None:
        role = CHAT_ROLES.get(item.get("role")) if isinstance(item.get("role"), str) else None
        if role is None or role == "tool":
            raise TranscriptShapeError(f"{where} is a message with role {item.get('role')!r}")
        text = content_text(item.get("content"), where)
        if role == "assistant":
            self._assistant_turn(text)
        else:
            self.append(message(role, text))

    def _reasoning(self, item: dict[str, Any], where: str) -> None:
        """Readable reasoning: the ``content`` text when present, else the ``summary``; an item with only
        ``encrypted_content`` carries no text and adds nothing."""
        parts = [p.get("text") for p in item.get("content") or [] if isinstance(p, dict)]
        if not any(isinstance(p, str) and p for p in parts):
            parts = [p.get("text") for p in item.get("summary") or [] if isinstance(p, dict)]
        text = "\n\n".join(p for p in parts if isinstance(p, str) and p)
        if text:
            self.open_turn = None  # reasoning starts the model's next response
            self.pending_reasoning.append(text)

    def _function_call(self, item: dict[str, Any], where: str) -> None:
        call = tool_call(item.get("call_id") or item.get("id"), item.get("name"), item.get("arguments"), where=where)
        self._call_turn()["tool_calls"].append(call)

    def _custom_tool_call(self, item: dict[str, Any], where: str) -> None:
        call = tool_call(item.get("call_id") or item.get("id"), item.get("name"), string(item.get("input")),
                         kind="custom", where=where)
        self._call_turn()["tool_calls"].append(call)

    def _local_shell_call(self, item: dict[str, Any], where: str) -> None:
        call = tool_call(item.get("call_id") or item.get("id"), "local_shell", item.get("action"), where=where)
        self._call_turn()["tool_calls"].append(call)

    def _web_search_call(self, item: dict[str, Any], where: str) -> None:
        call = tool_call(item.get("id"), "web_search", item.get("action"), where=where)
        self._call_turn()["tool_calls"].append(call)

    def _function_call_output(self, item: dict[str, Any], where: str) -> None:
        call_id = str(item.get("call_id") or "")
        self.append(message("tool", output_text(item.get("output"), where), tool_call_id=call_id,
                            name=self._call_name(call_id), observation=True))

    _custom_tool_call_output = _function_call_output

    def _call_name(self, call_id: str) -> str:
        return next((c["name"] for m in reversed(self.messages) for c in m["tool_calls"] if c["id"] == call_id), "")

    def _ignored(self, item: dict[str, Any], where: str) -> None:
        """Harness state with no text: an encrypted compaction, a git snapshot, an item reference."""

    _compaction = _compaction_summary = _ghost_snapshot = _item_reference = _ignored


def output_text(output: Any, where: str) -> str:
    """A call output: a string, a list of ``input_text`` items, or ``{content, success}`` (older Codex)."""
    if isinstance(output, dict):
        output = output.get("content")
    return content_text(output, f"{where} output")


def responses_items_of(value: Any) -> list[Any] | None:
    """A bare item list, or a request/response pair: ``input`` then ``output``."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict) and (isinstance(value.get("input"), list) or isinstance(value.get("output"), list)):
        return [*(value.get("input") if isinstance(value.get("input"), list) else []),
                *(value.get("output") if isinstance(value.get("output"), list) else [])]
    return None


def detect_responses(value: Any) -> bool:
    items = responses_items_of(value)
    return bool(items) and any(block_type(item) in RESPONSE_ONLY_TYPES for item in items[:200])


def parse_responses(value: Any) -> list[Transcript]:
    items = responses_items_of(value)
    if not items:
        raise TranscriptShapeError("no `input` or `output` items")
    folded = ResponseItems()
    instructions = string(value.get("instructions")) if isinstance(value, dict) else ""
    if instructions:
        folded.append(message("system", instructions))
    for index, item in enumerate(require_list(items, "items")):
        folded.add(item, f"item {index}")
    return [Transcript(format="openai-responses", messages=folded.finish(), facts=container_facts(value),
                       tools=declared_tools(value.get("tools")) if isinstance(value, dict) else [])]


OPENAI_RESPONSES = Format(name="openai-responses", container="json", detect=detect_responses, parse=parse_responses)

