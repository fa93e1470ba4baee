"""Moatless Tools trajectories (``moatless``): ``{name, initial_message, transitions, info}``.

A run is a state machine (``SearchCode``, ``IdentifyCode``, ``PlanToCode``, ``EditCode``...); each
transition's ``actions`` are the model's structured requests and what the state returned. Both
published versions are read: ``{action, output}`` (the SWE-bench submissions of June 2024) and
``{request, response: {trigger, output}}`` (later ones, with ``workspace`` and ``transition_rules``).
Field names: ``aorwall/moatless-tools`` ``tests/trajectories/`` (see docs/transcript-formats.md).
"""

from __future__ import annotations

import json
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript, recorded_facts
from codemix.mixtures.transcript_formats.canonical import TranscriptShapeError, message, string, tool_call

# The model's reasoning beside its request (the rest of the request is the call's arguments).
THOUGHT_KEYS = ("thoughts", "scratch_pad")


def detect_moatless(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("initial_message"), str)
            and isinstance(value.get("transitions"), list))


def action_messages(state: str, action: Any, where: str) -> list[dict[str, Any]]:
    """One action -> the model's turn (its thoughts, and the request as a call named after the state)
    and the state's output as the tool's observation."""
    if not isinstance(action, dict):
        raise TranscriptShapeError(f"{where} is a {type(action).__name__}, not an object")
    request = action.get("action", action.get("request"))
    response = action.get("response") if isinstance(action.get("response"), dict) else {}
    output = action["output"] if "output" in action else response.get("output")
    if not isinstance(request, dict):
        raise TranscriptShapeError(f"{where} has no action or request object")
    thoughts = next((string(request[k]) for k in THOUGHT_KEYS if string(request.get(k))), "")
    arguments = {k: v for k, v in request.items() if k not in THOUGHT_KEYS}
    turns = [message("assistant", thoughts, tool_calls=[tool_call(None, state, arguments, where=where)])]
    if output is not None:
        text = output if isinstance(output, str) else string(output.get("message")) if isinstance(output, dict) \
            and string(output.get("message")) else json.dumps(output, ensure_ascii=False)
        turns.append(message("tool", text, name=state, observation=True))
    return turns


def parse_moatless(value: dict[str, Any]) -> list[Transcript]:
    messages = [message("user", value["initial_message"])]
    for index, transition in enumerate(value["transitions"]):
        if not isinstance(transition, dict):
            raise TranscriptShapeError(f"transition {index} is a {type(transition).__name__}, not an object")
        state = string(transition.get("name")) or "action"
        for number, action in enumerate(transition.get("actions") or []):
            messages += action_messages(state, action, f"transition {index} action {number}")
    info = value.get("info") if isinstance(value.get("info"), dict) else {}
    extra = {"instance_id": info["instance_id"]} if isinstance(info.get("instance_id"), str) else {}
    return [Transcript(format="moatless", messages=messages, facts=recorded_facts([info, value]), extra=extra)]


MOATLESS = Format(name="moatless", container="json", detect=detect_moatless, parse=parse_moatless)
