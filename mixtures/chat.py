"""The one chat template: canonical messages -> ChatML-like text, as (text, trainable) segments.

Design notes: docs/design/mixtures.md, "mixtures/chat.py".
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from codemix.config import join, require

ReasoningMode = Literal["masked", "trained", "dropped"]


@dataclass(slots=True, kw_only=True)
class ChatTemplate:
    """How a canonical message becomes text. The defaults are ChatML with Hermes/Qwen tool calls and
    Qwen3/DeepSeek-R1 ``<think>`` blocks."""

    role_header: str = "<|im_start|>{role}\n"  # "{role}" is replaced by the message role
    turn_end: str = "<|im_end|>"  # trained on assistant turns: the model must learn to stop
    turn_separator: str = "\n"  # after turn_end; never trained
    tool_call: str = "\n<tool_call>{json}</tool_call>"  # "{json}": {"name": ..., "arguments": ...}
    reasoning: str = "<think>\n{reasoning}\n</think>\n"  # before the content of a turn that has reasoning

    def validate(self, path: str) -> None:
        require("{role}" in self.role_header, join(path, "role_header"), "has no {role} field")
        require(bool(self.turn_end), join(path, "turn_end"), "must not be empty", "the model needs a stop marker")
        require(self.tool_call.count("{json}") == 1, join(path, "tool_call"), "needs exactly one {json} field")
        require(self.reasoning.count("{reasoning}") == 1, join(path, "reasoning"),
                "needs exactly one {reasoning} field")


class Segment(NamedTuple):
    """A piece of rendered text and whether its tokens are trained. ``markup`` marks template text,
    whose special tokens are single ids; message content never is (see the module docstring)."""

    text: str
    trainable: bool
    markup: bool = False


def is_model_turn(message: dict[str, Any]) -> bool:
    """A turn the model wrote in this run: what SFT trains on."""
    return message["role"] == "assistant" and not message.get("observation", False)


def tool_call_json(call: dict[str, Any]) -> str:
    """``{"name": ..., "arguments": ...}`` with the arguments exactly as emitted when they are a JSON
    object (key order, spacing and escapes kept), else as a JSON string."""
    arguments = call["arguments"]
    # Not text: metadata written before arguments were kept as text. Not an object: free text or malformed.
    verbatim = isinstance(arguments, str) and call.get("kind", "function") == "function" and is_json_object(arguments)
    if not verbatim:
        arguments = json.dumps(arguments, ensure_ascii=False)
    return '{"name": ' + json.dumps(call["name"], ensure_ascii=False) + ', "arguments": ' + arguments + "}"


def is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False


def render_turn(message: dict[str, Any], template: ChatTemplate, reasoning: ReasoningMode = "masked") -> list[Segment]:
    """One message as segments; only a model turn's body and ``turn_end`` are trainable (its
    reasoning as ``reasoning`` says)."""
    trained = is_model_turn(message)
    segments = [Segment(template.role_header.replace("{role}", message["role"]), False, True)]
    if message.get("reasoning") and reasoning != "dropped":
        think_open, think_close = template.reasoning.split("{reasoning}")
        think = trained and reasoning == "trained"
        segments += [Segment(think_open, think, True), Segment(message["reasoning"], think),
                     Segment(think_close, think, True)]
    if message["content"]:
        segments.append(Segment(message["content"], trained))
    call_open, call_close = template.tool_call.split("{json}")
    for call in message["tool_calls"]:
        segments += [Segment(call_open, trained, True), Segment(tool_call_json(call), trained),
                     Segment(call_close, trained, True)]
    return segments + [Segment(template.turn_end, trained, True), Segment(template.turn_separator, False, True)]


def render_messages(messages: Sequence[dict[str, Any]], template: ChatTemplate | None = None) -> str:
    """The canonical messages as text: every turn's segments joined (``ChatTemplate()`` by default,
    reasoning shown)."""
    template = template or ChatTemplate()
    return "".join(segment.text for message in messages for segment in render_turn(message, template))
