"""The one chat template: canonical messages -> ChatML-like text, as (text, trainable) segments.

Design notes: docs/design/mixtures.md, "mixtures/chat.py".
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from codemix.config import join, require
from codemix.mixtures.transcript_formats.canonical import DESCRIBED

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
    reasoning as ``reasoning`` says). A call an export described in its own words (``DESCRIBED``) is shown, never
    trained, and so is the end of a turn that holds nothing else: the model did not write those words."""
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
        emitted = trained and call.get("kind") != DESCRIBED
        segments += [Segment(call_open, emitted, True), Segment(tool_call_json(call), emitted),
                     Segment(call_close, emitted, True)]
    ended = trained and not described_only(message)
    return segments + [Segment(template.turn_end, ended, True), Segment(template.turn_separator, False, True)]


def described_only(message: dict[str, Any]) -> bool:
    """A turn that is nothing but calls an export described (Windsurf's action lines): nothing in it to train."""
    calls = message["tool_calls"]
    return bool(calls) and not message["content"] and all(call.get("kind") == DESCRIBED for call in calls)


def render_messages(messages: Sequence[dict[str, Any]], template: ChatTemplate | None = None) -> str:
    """The canonical messages as text: every turn's segments joined (``ChatTemplate()`` by default,
    reasoning shown)."""
    template = template or ChatTemplate()
    return "".join(segment.text for message in messages for segment in render_turn(message, template))


def chat_template_jinja(template: ChatTemplate, *, trained_reasoning: bool | None = None) -> str:
    """The Jinja chat template that renders messages as ``render_turn`` rendered them for training: role
    header, reasoning (``reasoning_content`` or ``reasoning``) in the template's think block, content,
    each tool call as ``{"name": ..., "arguments": ...}`` in the tool-call wrapper, turn end and
    separator; with ``add_generation_prompt`` the assistant's header. Tool calls may be canonical
    (``name``/``arguments``) or OpenAI-shaped (``function: {...}``); arguments given as text go in
    verbatim when they look like a JSON object, as a JSON string otherwise (``tojson``: transformers'
    ``json.dumps``); a call whose ``kind`` is not ``function`` (free text) always as a JSON string.

    ``trained_reasoning`` not None adds transformers' ``{% generation %}`` marks around what SFT trains
    (a model turn's body and turn end, its think block too when True): ``return_assistant_tokens_mask``
    (TRL's ``assistant_only_loss``) then gives the loss mask. A model turn is an assistant message
    without ``weight: 0`` (OpenAI's fine-tuning field) or ``observation``; its calls of kind ``described`` (and the
    end of a turn of nothing else) are left unmarked, as ``render_turn`` leaves them untrained."""
    def literal(text: str) -> str:  # a Jinja string literal (JSON escapes are a subset of Jinja's)
        return json.dumps(text, ensure_ascii=False)

    header = " + message['role'] + ".join(literal(part) for part in template.role_header.split("{role}"))
    think_open, think_close = template.reasoning.split("{reasoning}")
    call_open, call_close = template.tool_call.split("{json}")
    think = ("{%- set reasoning = message.get('reasoning_content') or message.get('reasoning') -%}"
             "{%- if reasoning -%}{{- " + literal(think_open) + " + reasoning + " + literal(think_close)
             + " -}}{%- endif -%}")
    content = "{%- if message['content'] is string -%}{{- message['content'] -}}{%- endif -%}"
    call = ("{%- set fn = call['function'] if call['function'] is defined else call -%}"
            "{%- set args = fn['arguments'] -%}"
            "{%- if args is string and (call.get('kind') or 'function') == 'function' and args.strip().startswith('{')"
            " and args.strip().endswith('}') -%}{%- set body = args -%}"
            "{%- else -%}{%- set body = args | tojson -%}{%- endif -%}")
    shown = "{{- " + literal(call_open) + " + '{\"name\": ' + (fn['name'] | tojson) + ', \"arguments\": ' + body + '}' + " \
        + literal(call_close) + " -}}"
    end = "{{- " + literal(template.turn_end) + " -}}"

    def marked(text: str) -> str:
        return "{%- generation -%}" + text + "{%- endgeneration -%}"

    described = "(call.get('kind') or 'function') == " + literal(DESCRIBED)
    # a turn of nothing but calls an export described (``described_only``): its end is not trained either
    described_only = ("(message.get('tool_calls') and not message['content'] and (message['tool_calls'] | selectattr("
                      "'kind', 'equalto', " + literal(DESCRIBED) + ") | list | length) == (message['tool_calls'] | length))")
    calls = "{%- for call in message.get('tool_calls') or [] -%}" + call + shown + "{%- endfor -%}"
    body = content + calls + end
    if trained_reasoning is None:
        turn = think + body
    else:
        trained = (marked(content) + "{%- for call in message.get('tool_calls') or [] -%}" + call
                   + "{%- if " + described + " -%}" + shown + "{%- else -%}" + marked(shown) + "{%- endif -%}{%- endfor -%}"
                   + "{%- if " + described_only + " -%}" + end + "{%- else -%}" + marked(end) + "{%- endif -%}")
        turn = ("{%- if message['role'] == 'assistant' and message.get('weight') != 0 and not message.get('observation')"
                " -%}" + (marked(think) if trained_reasoning else think) + trained + "{%- else -%}" + think + body
                + "{%- endif -%}")
    return (
        "{%- for message in messages -%}"
        "{{- " + header + " -}}" + turn + "{{- " + literal(template.turn_separator) + " -}}"
        "{%- endfor -%}"
        "{%- if add_generation_prompt -%}{{- " + literal(template.role_header.replace("{role}", "assistant"))
        + " -}}{%- endif -%}"
    )
