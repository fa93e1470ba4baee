"""The one chat template: canonical messages -> ChatML-like text, as (text, trainable) segments.

Transcript readers render a transcript's pretraining text with ``render_messages`` and the SFT
stage renders samples with ``render_turn``; both go through the same segments, so the document a
build keeps and the concatenated SFT segments of that transcript are the same string. Default layout::

    <|im_start|>{role}\n{content}[\n<tool_call>{"name": ..., "arguments": ...}</tool_call>]*<|im_end|>\n
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from codemix.config import join, require


@dataclass(slots=True, kw_only=True)
class ChatTemplate:
    """How a canonical message becomes text. The defaults are ChatML with Hermes/Qwen tool calls."""

    role_header: str = "<|im_start|>{role}\n"  # "{role}" is replaced by the message role
    turn_end: str = "<|im_end|>"  # trained on assistant turns: the model must learn to stop
    turn_separator: str = "\n"  # after turn_end; never trained
    tool_call: str = "\n<tool_call>{json}</tool_call>"  # "{json}": {"name": ..., "arguments": ...}

    def validate(self, path: str) -> None:
        require("{role}" in self.role_header, join(path, "role_header"), "has no {role} field")
        require(bool(self.turn_end), join(path, "turn_end"), "must not be empty", "the model needs a stop marker")
        require(self.tool_call.count("{json}") == 1, join(path, "tool_call"), "needs exactly one {json} field")


class Segment(NamedTuple):
    """A piece of rendered text and whether its tokens are trained. ``markup`` marks template text,
    whose special tokens are single ids; message content never is (see the module docstring)."""

    text: str
    trainable: bool
    markup: bool = False


def render_turn(message: dict[str, Any], template: ChatTemplate) -> list[Segment]:
    """One message as segments; only an assistant turn's body and ``turn_end`` are trainable."""
    assistant = message["role"] == "assistant"
    segments = [Segment(template.role_header.replace("{role}", message["role"]), False, True)]
    if message["content"]:
        segments.append(Segment(message["content"], assistant))
    call_open, call_close = template.tool_call.split("{json}")
    for call in message["tool_calls"]:
        body = json.dumps({"name": call["name"], "arguments": call["arguments"]}, ensure_ascii=False)
        segments += [Segment(call_open, assistant, True), Segment(body, assistant), Segment(call_close, assistant, True)]
    return segments + [Segment(template.turn_end, assistant, True), Segment(template.turn_separator, False, True)]


def render_messages(messages: Sequence[dict[str, Any]], template: ChatTemplate | None = None) -> str:
    """The canonical messages as text: every turn's segments joined (``ChatTemplate()`` by default)."""
    template = template or ChatTemplate()
    return "".join(segment.text for message in messages for segment in render_turn(message, template))
