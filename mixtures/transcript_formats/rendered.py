"""Conversations a page keeps rendered in a chat template (``template-turns``): the prompt string a model was
sent, with the template's own tokens (``<|im_start|>user``, ``<|start_header_id|>``, ``<start_of_turn>``, and
OpenAI harmony's ``<|start|>assistant<|channel|>commentary to=functions.get_weather<|message|>...<|call|>``).

Each rendering (a fenced block of a Markdown page, else the whole text) is read by the template whose tokens it
holds; roles from the header (role aliases; a namespaced author, ``functions.get_weather``, is a tool's output);
a harmony message addressed to a tool (``to=functions.X``) is the model's call of X with the body as its
arguments. Renderings of one page that open with the same turns are one conversation printed as it grew: the
longest is kept. A rendering is a conversation when it holds a person's turn and the model's, and the model wrote
something (a call, or prose past a template's example: 100 letters); a page is read when renderings are most of
its fenced blocks and half its text (a page about a template, its examples among other code and prose, is not).
"""

from __future__ import annotations

import re
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import message, text_length, tool_call
from codemix.mixtures.transcript_formats.text_turns import FENCE, TEMPLATES
from codemix.mixtures.transcript_formats.turns import ROLE_ALIASES

# OpenAI harmony: ``<|start|>HEADER[<|channel|>CHANNEL][<|constrain|>TYPE]<|message|>BODY`` closed by ``<|end|>``,
# ``<|call|>`` or ``<|return|>`` (or the next message).
HARMONY = re.compile(r"<\|start\|>([^<\n]{1,200}?)(?:<\|channel\|>([^<\n]{0,200}?))?(?:<\|constrain\|>[^<\n]{0,80})?"
                     r"<\|message\|>(.*?)(?:<\|end\|>|<\|call\|>|<\|return\|>|(?=<\|start\|>)|\Z)", re.DOTALL)
RECIPIENT = re.compile(r"\bto=([\w.\-]+)")
MIN_MODEL_LETTERS = 100
MAX_RENDERINGS = 500


def harmony_messages(text: str) -> list[dict[str, Any]]:
    """A harmony rendering as messages: the author's role, a call when the model addresses a tool."""
    messages = []
    for header, channel, body in HARMONY.findall(text):
        author = header.split()[0] if header.split() else ""
        role = ROLE_ALIASES.get(author.lower()) or ("tool" if "." in author else None)
        if role is None:
            return []  # a header that names no author: no harmony rendering
        recipient = next((m.group(1) for m in (RECIPIENT.search(header), RECIPIENT.search(channel or "")) if m), "")
        if role == "assistant" and recipient and recipient not in ("assistant", "user", "all"):
            name = recipient.split(".", 1)[1] if recipient.startswith("functions.") else recipient
            messages.append(message("assistant", "", tool_calls=[tool_call(None, name, body.strip())]))
        elif role == "tool":
            messages.append(message("tool", body.strip(), observation=True, name=author))
        else:
            messages.append(message(role, body.strip()))
    return messages


def rendering_messages(text: str) -> list[dict[str, Any]]:
    """One rendering's messages, by the first template whose tokens it holds."""
    if "<|start|>" in text and "<|message|>" in text:
        return harmony_messages(text)
    for template in TEMPLATES:
        turns = [(role.lower(), body.strip()) for role, body in template.findall(text)]
        if len(turns) >= 2 and all(role in ROLE_ALIASES for role, _ in turns):
            return [message(ROLE_ALIASES[role], body, observation=ROLE_ALIASES[role] == "tool") for role, body in turns]
    return []


def is_conversation(messages: list[dict[str, Any]]) -> bool:
    model = [m for m in messages if m["role"] == "assistant"]
    return any(m["role"] == "user" for m in messages) and bool(model) and (
        any(m["tool_calls"] for m in model) or sum(text_length(m["content"]) for m in model) >= MIN_MODEL_LETTERS)


def rendered_runs(text: str) -> list[list[dict[str, Any]]]:
    """The conversations a text keeps rendered, one per group of renderings that open alike (the longest)."""
    if not any(token in text for token in ("<|im_start|>", "<|start_header_id|>", "<start_of_turn>", "<|message|>")):
        return []
    blocks = [m.group() for m in FENCE.finditer(text)][:MAX_RENDERINGS] or [text]
    read = [(block, rendering_messages(block)) for block in blocks]
    rendered = [block for block, messages in read if messages]
    if len(rendered) * 2 < len(blocks) or sum(map(len, rendered)) * 2 < len(text):
        return []  # a page about a template (its examples among other code and prose), not a page of renderings
    runs: list[list[dict[str, Any]]] = []
    for _, messages in read:
        if not is_conversation(messages):
            continue
        opening = [(m["role"], m["content"]) for m in messages if m["role"] in ("system", "user")][:2]
        same = next((i for i, run in enumerate(runs)
                     if [(m["role"], m["content"]) for m in run if m["role"] in ("system", "user")][:2] == opening), None)
        if same is None:
            runs.append(messages)
        elif len(messages) > len(runs[same]):
            runs[same] = messages  # the same conversation rendered again, longer
    return runs


def detect_template_turns(text: Any) -> bool:
    return isinstance(text, str) and bool(rendered_runs(text))


def parse_template_turns(text: str) -> list[Transcript]:
    return [Transcript(format="template-turns", extra={"layout": "rendered", "run": index}, messages=run)
            for index, run in enumerate(rendered_runs(text))]


TEMPLATE_TURNS = Format(name="template-turns", container="text", detect=detect_template_turns, parse=parse_template_turns)
