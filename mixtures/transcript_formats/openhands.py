"""OpenHands event streams (``openhands-events``) and published OpenHands training rows (``openhands-messages``).

Events are what ``openhands/events/serialization/event.py`` ``event_to_dict`` writes: ``id``,
``timestamp``, ``source``, ``message``, ``cause``, ``action`` + ``args`` or ``observation`` +
``content`` + ``extras``, and ``tool_call_metadata`` with the model's own response. Older output rows
hold events flattened (the 2024 resolver: an action's arguments beside ``action``, no ``source``, ``id``
or ``args``) or in ``[action, observation]`` pairs (``compatibility_for_eval_history_pairs``). Rows are
OpenAI chat messages with SWE-bench run fields (SWE-Gym ``resolved``; nebius ``resolved`` 0/1, ``exit_status``).
"""

from __future__ import annotations

from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript, compaction, declared_tools, recorded_facts
from codemix.mixtures.transcript_formats.canonical import TranscriptShapeError, message, string, tool_call
from codemix.mixtures.transcript_formats.openai import chat_message, chat_messages_of, container_facts, is_chat_list

# Actions that are not the model's turn: the harness's own bookkeeping.
HARNESS_ACTIONS = frozenset({"recall", "change_agent_state", "null", "system", "message", "condensation"})
SILENT_OBSERVATIONS = frozenset({"agent_state_changed", "null"})
OPENHANDS_TOOLS = frozenset({"execute_bash", "str_replace_editor", "execute_ipython_cell", "finish", "think",
                             "browser", "edit_file", "fetch"})
# The fields of an event that are not the arguments of its action (``event_to_dict`` keeps them outside ``args``).
EVENT_FIELDS = frozenset({"id", "timestamp", "source", "message", "cause", "action", "observation", "args",
                          "tool_call_metadata", "llm_metrics", "timeout"})
# How OpenHands' non-function-calling prompts return tool output as a user turn.
OBSERVATION_PREFIXES = ("OBSERVATION:", "EXECUTION RESULT of [")


# --- event streams --------------------------------------------------------------------------------


def is_event(value: Any) -> bool:
    return isinstance(value, dict) and ("action" in value or "observation" in value) and (
        "source" in value or "id" in value)


def is_legacy_event(value: Any) -> bool:
    """An event of an older output row: ``action`` or ``observation`` (one of them, a name) without the
    ``source``/``id`` of later events; SWE-agent steps, which hold both, are not events."""
    return isinstance(value, dict) and ("action" in value) != ("observation" in value) and isinstance(
        value.get("action", value.get("observation")), str)


def is_pair(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(isinstance(e, dict) for e in value)


def events_of(value: Any) -> list[Any] | None:
    """A saved trajectory (a list of events) or an evaluation output row (``history``: events, or
    ``[action, observation]`` pairs, flattened in order)."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict) and isinstance(value.get("history"), list):
        history = value["history"]
        return [e for pair in history for e in pair] if history and all(map(is_pair, history)) else history
    return None


def detect_events(value: Any) -> bool:
    """Events with ``source``/``id`` anywhere; older flattened events only in a row's ``history``."""
    events = events_of(value)
    return bool(events) and (is_event(events[0]) or isinstance(value, dict) and is_legacy_event(events[0]))


class EventStream:
    """Folds events into canonical messages (see the module docstring for the event fields)."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.compactions: list[dict[str, Any]] = []
        self.agent_state = ""
        self.reply_id: Any = None  # the model response the open assistant turn came from

    def add(self, event: Any, where: str) -> None:
        if not (is_event(event) or is_legacy_event(event)):
            raise TranscriptShapeError(f"{where} is not an OpenHands event (no action or observation)")
        if "action" in event:
            self.action(event, action_args(event), where)
        else:
            self.observation(event)

    def action(self, event: dict[str, Any], args: dict[str, Any], where: str) -> None:
        kind = event["action"]
        if kind == "system":
            self.push(message("system", string(args.get("content")) or string(event.get("message"))))
        elif kind == "message":
            role = "assistant" if message_from_agent(event) else "user"
            self.push(message(role, string(args.get("content")) or string(event.get("message"))))
        elif kind == "condensation":
            self.condensation(args)
        elif kind not in HARNESS_ACTIONS:
            self.tool_action(event, args, where)

    def tool_action(self, event: dict[str, Any], args: dict[str, Any], where: str) -> None:
        """The model's call as it sent it (``tool_call_metadata.model_response``); an event without
        that metadata (agents without function calling) gives its action name and ``args``."""
        meta = event.get("tool_call_metadata") if isinstance(event.get("tool_call_metadata"), dict) else {}
        reply = meta.get("model_response") if isinstance(meta.get("model_response"), dict) else {}
        sent = model_message(reply)
        call = next((c for c in sent.get("tool_calls") or [] if isinstance(c, dict)
                     and c.get("id") == meta.get("tool_call_id")), None)
        if call is not None and isinstance(call.get("function"), dict):
            made = tool_call(call.get("id"), call["function"].get("name"), call["function"].get("arguments"),
                             where=where)
        else:
            made = tool_call(meta.get("tool_call_id") or event.get("id"), string(meta.get("function_name"))
                             or event["action"], {k: v for k, v in args.items() if k != "thought"}, where=where)
        reply_id = reply.get("id")
        if reply_id is not None and reply_id == self.reply_id and self.messages[-1]["role"] == "assistant":
            self.messages[-1]["tool_calls"].append(made)  # several calls from one response
            return
        content = string(sent.get("content")) if sent else string(args.get("thought"))
        self.push(message("assistant", content, tool_calls=[made]))
        self.reply_id = reply_id

    def observation(self, event: dict[str, Any]) -> None:
        kind = event["observation"]
        extras = event.get("extras") if isinstance(event.get("extras"), dict) else {}
        if kind == "agent_state_changed":
            self.agent_state = string(extras.get("agent_state")) or self.agent_state
        if kind in SILENT_OBSERVATIONS:
            return
        meta = event.get("tool_call_metadata") if isinstance(event.get("tool_call_metadata"), dict) else {}
        self.push(message("tool", string(event.get("content")), tool_call_id=string(meta.get("tool_call_id")),
                          name=string(meta.get("function_name")) or kind, observation=True))

    def condensation(self, args: dict[str, Any]) -> None:
        """The condenser's summary replaces the forgotten events in what the model sees next."""
        summary = string(args.get("summary"))
        at = len(self.messages)
        if summary:
            self.push(message("user", summary, observation=True))
        self.compactions.append(compaction(at, "openhands", text=summary, summary=summary.strip()))

    def push(self, canonical: dict[str, Any]) -> None:
        self.messages.append(canonical)
        self.reply_id = None


def action_args(event: dict[str, Any]) -> dict[str, Any]:
    """``args``, or in a flattened event every field that is not the event's own."""
    if isinstance(event.get("args"), dict):
        return event["args"]
    return {} if "source" in event else {k: v for k, v in event.items() if k not in EVENT_FIELDS}


def message_from_agent(event: dict[str, Any]) -> bool:
    """``source: agent``; a flattened message has no source: only the agent waits for a reply to its
    message (``wait_for_response``), the task and a user's messages do not."""
    if "source" in event:
        return event["source"] == "agent"
    return action_args(event).get("wait_for_response") is True


def model_message(reply: dict[str, Any]) -> dict[str, Any]:
    choices = reply.get("choices")
    first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    return first.get("message") if isinstance(first.get("message"), dict) else {}


def parse_events(value: Any) -> list[Transcript]:
    events = events_of(value)
    if not events:
        raise TranscriptShapeError("no events")
    stream = EventStream()
    for index, event in enumerate(events):
        stream.add(event, f"event {index}")
    facts = {"exit_status": stream.agent_state} if stream.agent_state else {}
    if isinstance(value, dict):  # an evaluation row: the harness's report, where it was written back
        test_result = value.get("test_result") if isinstance(value.get("test_result"), dict) else {}
        facts |= {k: v for k, v in recorded_facts([value.get("report"), test_result.get("report"), value]).items()
                  if k in ("resolved", "tests_passed")}
    extra = {"instance_id": value["instance_id"]} if isinstance(value, dict) and isinstance(
        value.get("instance_id"), str) else {}
    return [Transcript(format="openhands-events", messages=stream.messages, facts=facts,
                       compactions=stream.compactions, extra=extra)]


OPENHANDS_EVENTS = Format(name="openhands-events", container="json", detect=detect_events, parse=parse_events)
OPENHANDS_EVENT_LINES = Format(name="openhands-events", container="session", detect=is_event, parse=parse_events)


# --- training rows --------------------------------------------------------------------------------


def detect_rows(value: Any) -> bool:
    """An OpenAI message list in a SWE-bench run row whose calls or outputs are OpenHands'."""
    messages = chat_messages_of(value)
    if not (isinstance(value, dict) and is_chat_list(messages)
            and any(key in value for key in ("resolved", "instance_id", "run_id", "trajectory_id"))):
        return False
    calls = {c.get("function", {}).get("name") for m in messages for c in (m.get("tool_calls") or [])
             if isinstance(c, dict) and isinstance(c.get("function"), dict)}
    outputs = any(string(m.get("content")).startswith(OBSERVATION_PREFIXES) for m in messages)
    return bool(calls & OPENHANDS_TOOLS) or outputs


def parse_rows(value: Any) -> list[Transcript]:
    raw = chat_messages_of(value) or []
    messages, answered = [], False
    for index, item in enumerate(raw):
        canonical = chat_message(item, index)
        if answered and canonical["role"] == "user" and canonical["content"].startswith(OBSERVATION_PREFIXES):
            canonical["observation"] = True
        answered = answered or canonical["role"] == "assistant"
        messages.append(canonical)
    if not messages:
        raise TranscriptShapeError("no messages")
    extra = {k: value[k] for k in ("instance_id", "run_id", "trajectory_id") if isinstance(value.get(k), str)}
    return [Transcript(format="openhands-messages", messages=messages, facts=container_facts(value),
                       tools=declared_tools(value.get("tools")), repo=string(value.get("repo")), extra=extra)]


OPENHANDS_MESSAGES = Format(name="openhands-messages", container="json", detect=detect_rows, parse=parse_rows)

