"""Cline's task UI log (``ui_messages.json``): the messages the VS Code panel showed, each ``{ts, type: say | ask,
say | ask: <kind>, text, partial}``; the field the ``type`` names holds the message's kind (Cline's ``ClineSay`` and
``ClineAsk``, src/shared/ExtensionMessage.ts).

The person's words are the task (the first ``text``, before any request to the model) and each
``user_feedback``. Each ``api_req_started`` is one request to the model: what the panel shows after it (its
``reasoning``, ``text``, ``tool`` uses, ``completion_result``, a ``followup`` question) is that response, one model
turn; the next request opens with the result of the model's call (``[read_file for 'x'] Result:``), the tool's
turn (the environment details Cline appends are left out); checkpoints, retries, progress lists and resume prompts are the harness's and
are left out, counted. docs/transcript-formats.md (``cline-ui``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import TranscriptShapeError, message, tool_call

PERSON_KINDS = frozenset({"task", "user_feedback", "user_feedback_diff"})
MODEL_TEXT_KINDS = frozenset({"text", "completion_result", "followup", "plan_mode_respond"})
REQUEST_KINDS = frozenset({"api_req_started"})


def kind_of(entry: Any) -> str | None:
    """An entry's kind: the value under the field its ``type`` (``say`` or ``ask``) names."""
    if not isinstance(entry, dict) or entry.get("type") not in ("say", "ask"):
        return None
    kind = entry.get(entry["type"])
    return kind if isinstance(kind, str) else None


def detect_cline_ui(value: Any) -> bool:
    """A list of ``say``/``ask`` entries with timestamps, most naming their kind, at least one request to the model."""
    if not isinstance(value, list) or len(value) < 2:
        return False
    sample = value[:500]
    kinds = [kind_of(e) for e in sample]
    return (sum(k is not None for k in kinds) * 10 >= len(sample) * 9 and all(isinstance(e, dict) and "ts" in e
            for e in sample) and any(k in REQUEST_KINDS for k in kinds))


def entry_text(entry: dict) -> str:
    text = entry.get("text")
    if not isinstance(text, str):
        return ""
    if entry.get(entry["type"]) == "followup" and text.lstrip().startswith("{"):
        try:
            asked = json.loads(text)
        except ValueError:
            return text
        return asked.get("question", text) if isinstance(asked, dict) else text
    return text


def tool_use(entry: dict, where: str) -> dict[str, Any] | None:
    """A ``say: tool`` entry's call: its JSON's ``tool`` names it, the rest are its arguments."""
    try:
        used = json.loads(entry.get("text") or "")
    except ValueError:
        return None
    if not isinstance(used, dict) or not isinstance(used.get("tool"), str):
        return None
    return tool_call("", used["tool"], {k: v for k, v in used.items() if k != "tool"}, where=where)


RESULT_HEAD = re.compile(r"\A\[[^\]\n]{1,300}\] Result:\n?")
ENVIRONMENT = "\n<environment_details>"


def request_result(text: str) -> str:
    """The tool result a request sent the model (``[read_file for 'x'] Result:\n...``), without the
    environment details Cline appends; "" when the request opens with anything else."""
    try:
        request = json.loads(text).get("request")
    except (ValueError, AttributeError):
        return ""
    head = RESULT_HEAD.match(request) if isinstance(request, str) else None
    if head is None:
        return ""
    body = request[head.end():]
    return body[:body.find(ENVIRONMENT)].rstrip() if ENVIRONMENT in body else body.rstrip()


class Turns:
    """Folds the entries into turns: a model turn collects what one request's response showed."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.open: dict[str, Any] | None = None
        self.left_out = 0

    def close(self) -> None:
        if self.open is not None and (self.open["content"].strip() or self.open["tool_calls"]):
            self.messages.append(self.open)
        self.open = None

    def model(self) -> dict[str, Any]:
        if self.open is None:
            self.open = message("assistant")
        return self.open

    def add(self, entry: dict, index: int) -> None:
        kind, text = kind_of(entry), entry_text(entry)
        if kind in REQUEST_KINDS:
            answered = self.open is not None and bool(self.open["tool_calls"])
            self.close()
            if answered and (result := request_result(text)):
                self.messages.append(message("tool", result, observation=True))  # the result the request carried
            self.open = message("assistant")
        elif kind == "text" and not self.messages and self.open is None:
            if text.strip():
                self.messages.append(message("user", text))  # the task, typed before any request
        elif kind in PERSON_KINDS:
            self.close()
            if text.strip():
                self.messages.append(message("user", text))
        elif kind == "reasoning" and text.strip():
            turn = self.model()
            turn["reasoning"] = "\n".join(part for part in (turn["reasoning"], text) if part)
        elif kind in MODEL_TEXT_KINDS and text.strip():
            turn = self.model()
            turn["content"] = "\n\n".join(part for part in (turn["content"], text) if part)
        elif kind == "tool" and (call := tool_use(entry, f"entry {index}")) is not None:
            self.model()["tool_calls"].append(call)
        elif not (kind in MODEL_TEXT_KINDS | {"reasoning", "text"} and not text.strip()):
            self.left_out += 1  # the harness's: checkpoints, retries, progress, resume prompts, requests' bodies


def parse_cline_ui(value: Any) -> list[Transcript]:
    if not isinstance(value, list):
        raise TranscriptShapeError("a Cline UI log is a list of entries")
    turns = Turns()
    for index, entry in enumerate(value):
        if isinstance(entry, dict):
            turns.add(entry, index)
    turns.close()
    if not turns.messages:
        raise TranscriptShapeError("empty_conversation: the Cline UI log shows no turn")
    return [Transcript(format="cline-ui", messages=turns.messages, extra={"entries_left_out": turns.left_out})]


CLINE_UI = Format(name="cline-ui", container="json", detect=detect_cline_ui, parse=parse_cline_ui)
