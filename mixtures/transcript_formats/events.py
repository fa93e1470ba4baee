"""Event logs and streamed chunks, read as the runs they record.

* An **event log** keeps one record per event, each naming its kind under one key (``event_type``, ``type``,
  ``kind``, ``event``, a named ``step``) with what happened inside it or under a payload (``data``, ``payload``): a person's
  request, the model's text or step, a tool call, its result, and events of other kinds (state updates,
  scores, timings). An event is read by its payload's shape first (a turn, a step, a logged call) and else by
  its kind's words (``user_prompt``, ``llm_response``, ``tool_call``/``tool_result``); events that are none of
  these are left out and counted. A call's result is paired with it by id, else with the open call before it.
  Events that carry a session, thread or trace id are one run per id, in file order.
* A **stream of chunks** (OpenAI's ``chat.completion.chunk`` deltas, Anthropic's ``content_block_delta``
  events, Open Interpreter's ``start``/``end``-framed message parts) is merged into whole messages before it
  is judged: a message is what the model sent, never one chunk of it.

docs/transcript-formats.md ("Event logs and streamed chunks").
"""

from __future__ import annotations

import collections
import json
import re
from typing import Any

from codemix.mixtures.transcript_formats.canonical import exported_call, message, tool_call
from codemix.mixtures.transcript_formats.parts import kind_words
from codemix.mixtures.transcript_formats.printed import printed_values
from codemix.mixtures.transcript_formats.turns import (
    CALL_ARGUMENT_KEYS,
    CALL_RESULT_KEYS,
    ROLE_ALIASES,
    call_name,
    has_text_or_calls,
    is_call_record,
    key_words,
    listed_call_records,
    speaker_of,
    step_messages,
    step_of,
    turn_messages,
    turn_text,
)

# Where an event names its kind, and where it keeps what happened.
KIND_KEYS = ("event_type", "eventType", "event_kind", "event", "kind", "type", "step")
PAYLOAD_KEYS = ("data", "payload", "body", "details", "detail", "event_data")
# A run's id on each of its events (the events of several runs interleave or follow each other).
RUN_KEYS = ("session_id", "sessionId", "thread_id", "threadId", "trace_id", "traceId", "conversation_id", "run_id",
            "runId", "episode_id", "task_id")
# Words of an event kind: who spoke, a call being made, a call's outcome.
USER_WORDS = frozenset({"user", "human", "prompt", "query", "question", "request", "input", "instruction", "task",
                        "goal"})
MODEL_WORDS = frozenset({"assistant", "agent", "llm", "model", "ai", "bot", "response", "answer", "reply", "thought",
                         "thinking", "reasoning", "plan", "final", "completion"})
SYSTEM_WORDS = frozenset({"system"})
# Text events of a ReAct-style log: what the environment returned, what the model did (written as text).
ENV_WORDS = frozenset({"observation", "obs", "observe", "observed", "feedback", "environment", "env", "stdout",
                       "stderr"})
ACTION_WORDS = frozenset({"action", "command"})
TOOL_WORDS = frozenset({"tool", "function", "action", "command", "api", "search", "retrieval"})
CALL_WORDS = frozenset({"call", "use", "invoke", "invocation", "start", "started", "begin", "execute", "executing",
                        "pre", "before"})
RESULT_WORDS = frozenset({"result", "results", "output", "observation", "response", "end", "ended", "return",
                          "returned", "complete", "completed", "done", "finish", "finished", "error", "stop",
                          "post", "after"})
# Any word an event log's kinds use for what happens in a run: a side, a call, a result, a step, a message. A list
# none of whose "kinds" says any of these (``inclusion``/``exclusion`` criteria, each with its ``reasoning``) is
# records of something else, never a run's events.
EVENT_WORDS = (USER_WORDS | MODEL_WORDS | SYSTEM_WORDS | ENV_WORDS | ACTION_WORDS | TOOL_WORDS | CALL_WORDS | RESULT_WORDS
               | frozenset({"step", "message", "msg", "turn", "event", "chat"}))
TEXT_KEYS = ("content", "text", "message", "value", "answer", "response", "output", "thought", "thinking",
             "reasoning", "final_answer", "prompt", "query", "question", "input")
CALL_ID_KEYS = ("tool_call_id", "toolCallId", "call_id", "callId", "tool_use_id", "toolUseId", "id")
# Where a tool event says how far its call has got (``executing``, ``completed``).
STATE_KEYS = ("status", "state")
# An event's own sub-kind (``message_type``, ``subtype``) saying it only acknowledges or reports progress: no turn
# (an ops room's "Processing your request..." acks between the person's request and the agents' results).
SUBKIND_KEYS = ("message_type", "messageType", "subtype", "sub_type")
ACK_WORDS = frozenset({"ack", "acknowledgement", "acknowledgment", "heartbeat", "typing", "progress"})
# Where an event that holds no text of its own states the run's task.
TASK_KEYS = ("task", "goal", "objective", "instruction", "request", "user_request")
# Who wrote an event's text where no role key says (AutoGen's ``source``).
SOURCE_KEYS = ("source", "from_", "agent", "actor")
# What a step's nested call record was asked (where no argument key says).
QUERY_KEYS = ("query", "search_query", "q", "input", "url", "path", "command", "code")


# --- event logs ---------------------------------------------------------------------------------------


def kind_key(items: list) -> str | None:
    """The key every event names its kind under: one of ``KIND_KEYS`` holding a short string in every entry,
    with two distinct kinds or more (one kind throughout is a list of records, not a log of events)."""
    for key in KIND_KEYS:
        values = [item.get(key) for item in items if isinstance(item, dict)]
        if len(values) == len(items) and all(isinstance(v, str) and v.strip() and len(v) <= 80 and "\n" not in v
                                             and any(c.isalpha() for c in v) for v in values) and len(set(values)) >= 2:
            return key
    return None


def event_view(event: dict, key: str) -> dict:
    """The event with its payload's fields beside its own (the payload's win, the kind stays)."""
    payload = next((event[k] for k in PAYLOAD_KEYS if isinstance(event.get(k), dict)), None)
    if payload is None and not any(k in event for k in TEXT_KEYS if k != key):
        # a payload that is the event's words (``{kind: THOUGHT, data: "Let me start by ..."}``) is its text
        said = next((k for k in PAYLOAD_KEYS if isinstance(event.get(k), str) and event[k].strip()), None)
        return {**event, "text": event[said]} if said else event
    if payload is None:
        return event
    outer = {k: v for k, v in event.items() if not (isinstance(v, dict) and v is payload)}
    if len(payload) == 1 and isinstance(event.get(key), str) and kind_words(event[key]) & (ACTION_WORDS | CALL_WORDS):
        # an action whose payload is one call written as ``{tool_name: its input}`` (``ask_weather: "Get ..."``)
        name, argument = next(iter(payload.items()))
        if re.fullmatch(r"[A-Za-z_][\w.-]{0,63}", str(name)) and name not in TEXT_KEYS and argument not in (None, ""):
            return {**outer, "name": name, "arguments": argument, key: event[key]}
    return {**outer, **payload, key: event[key]}


def event_text(view: dict, key: str) -> str:
    return next((text for k in TEXT_KEYS if k != key and (text := turn_text(view.get(k))).strip()), "")


def call_id_of(view: dict) -> str:
    return next((str(view[k]) for k in CALL_ID_KEYS if isinstance(view.get(k), (str, int)) and str(view[k])), "")


def result_of(view: dict) -> Any:
    """What a call's event says it returned; a failed call's ``error`` when it answers a call by id."""
    found = next((view[k] for k in CALL_RESULT_KEYS if view.get(k) not in (None, "", [], {})), None)
    if found is None and view.get("error") not in (None, "", [], {}) and any(k in view for k in CALL_ID_KEYS[:-1]):
        return view["error"]
    return found


def as_text(value: Any) -> str:
    return value if isinstance(value, str) else turn_text(value) if isinstance(value, list) and all(
        isinstance(v, str) for v in value) else json.dumps(value, ensure_ascii=False)


def detail_call(step: dict, where: str) -> tuple[dict, Any] | None:
    """A call a step records in a nested object of its own (``{action: "Executing web_search", data: {tool:
    web_search, query, sources: [...]}}``): the object names the tool and keeps one list of records (what the
    call found; else one list of strings).
    The call and that list, or None."""
    for value in step.values():
        if not isinstance(value, dict) or not call_name(value) or speaker_of(value):
            continue
        lists = [v for v in value.values() if isinstance(v, list) and v]
        found = [v for v in lists if all(isinstance(i, dict) for i in v)] or [
            v for v in lists if all(isinstance(i, str) for i in v)]
        if len(found) != 1:
            continue
        arguments = next((value[k] for k in CALL_ARGUMENT_KEYS if k in value), None)
        arguments = arguments if arguments is not None else {k: value[k] for k in QUERY_KEYS if k in value}
        return tool_call(call_id_of(value), call_name(value), arguments, where=where), found[0]
    return None


def step_event_messages(view: dict, where: str) -> list[dict[str, Any]] | None:
    step = step_of(view)
    if step is None:
        return None
    messages = step_messages([step])
    detail = detail_call(step, where) if not any(m["tool_calls"] or m["observation"] for m in messages) else None
    if detail is not None:
        call, found = detail
        messages[0]["tool_calls"].append(call)
        messages.append(message("tool", as_text(found), tool_call_id=call["id"], observation=True))
    return messages


def listed_calls(view: dict, where: str) -> list[dict[str, Any]] | None:
    """An event whose content is a list of calls (``[{id, name, arguments}]``: AutoGen's
    ``ToolCallRequestEvent``) as one model turn making them, or a list of their results (``[{call_id,
    content}]``: ``ToolCallExecutionEvent``) as one tool turn each; None otherwise."""
    content = view.get("content")
    if not isinstance(content, list) or not content or not all(isinstance(c, dict) for c in content):
        return None
    if all(call_name(c) and any(k in c for k in CALL_ARGUMENT_KEYS) for c in content):
        arguments = [next(c[k] for k in CALL_ARGUMENT_KEYS if k in c) for c in content]
        return [message("assistant", "", tool_calls=[tool_call(call_id_of(c), call_name(c), a, where=where)
                                                    for c, a in zip(content, arguments)])]
    if all(any(k in c for k in CALL_ID_KEYS[:-1]) and result_of(c) is not None for c in content):
        return [message("tool", as_text(result_of(c)), tool_call_id=call_id_of(c), observation=True) for c in content]
    return None


def call_event_messages(words: frozenset, view: dict, where: str) -> list[dict[str, Any]] | None:
    """A tool event by its kind: a call being made (its name, and its result when the event logs both), or a
    call's result (its output, paired by id); or calls and results listed as its content (``listed_calls``)."""
    if (listed := listed_calls(view, where)) is not None:
        return listed
    if not words & TOOL_WORDS and not call_name(view):
        return None
    result = result_of(view)
    arguments = next((view[k] for k in CALL_ARGUMENT_KEYS if k in view), None)
    if call_name(view) and (words & CALL_WORDS or arguments is not None) and not (words & RESULT_WORDS and arguments is None):
        # arguments logged as words (``ask_weather: "Get the weather..."``) say what the call asked, not what the
        # model emitted: shown, never trained (``canonical.exported_call``); a JSON object is the model's
        call = (exported_call(call_id_of(view), call_name(view), arguments) if isinstance(arguments, str)
                else tool_call(call_id_of(view), call_name(view), arguments, where=where))
        messages = [message("assistant", "", tool_calls=[call])]
        return messages + ([message("tool", as_text(result), tool_call_id=call["id"], observation=True)]
                           if result is not None else [])
    if words & RESULT_WORDS and result is not None:
        return [message("tool", as_text(result), tool_call_id=call_id_of(view) if not call_name(view) or any(
            k in view for k in CALL_ID_KEYS[:-1]) else "", observation=True)]
    return None


def one_event_messages(view: dict, key: str, where: str) -> list[dict[str, Any]] | None:
    """What one event says: a turn (its payload names a role), a step, a tool call or result, a person's or
    the model's text by its kind's words; None for an event of another kind."""
    speaker = speaker_of(view)
    if any(isinstance(view.get(k), str) and kind_words(view[k]) & ACK_WORDS for k in SUBKIND_KEYS):
        return []  # an acknowledgement: read, and no turn
    if speaker and ROLE_ALIASES.get(speaker.lower()) and has_text_or_calls(view):
        return said(turn_messages([view]))  # a model's event of no text, call or reasoning is no turn (read)
    words = kind_words(view[key]) | key_words(view[key])
    if words & TOOL_WORDS or call_name(view):  # a tool event's state says which side it is (``status: executing``)
        words |= frozenset(w for k in STATE_KEYS if isinstance(view.get(k), str) for w in kind_words(view[k]))
    if (calls := call_event_messages(words, view, where)) is not None:
        return calls
    if (steps := step_event_messages(view, where)) is not None:
        return steps
    if words & MODEL_WORDS and listed_call_records(view):  # the model's message listing the calls it makes
        return turn_messages([{**view, "role": "assistant"}])
    text = event_text(view, key)
    if not text.strip() and (task := next((view[k] for k in TASK_KEYS if k != key and isinstance(view.get(k), str)
                                           and view[k].strip()), "")):
        return [message("user", task)]  # an event that only states the task (``{step: discover, task}``)
    if not text.strip():
        return None
    source = next((view[k] for k in SOURCE_KEYS if isinstance(view.get(k), str) and view[k].strip()), "")
    if source:  # who wrote it: a person's alias, else a participant (an agent) of a multi-agent log
        side = ROLE_ALIASES.get(source.strip().lower()) or source_side(source)
        named = side in ("user", "system", "assistant")
        side = side if named else "assistant"
        return [message(side, text, name="" if named else source.strip())]
    for side, side_words in (("user", USER_WORDS), ("system", SYSTEM_WORDS), ("tool", ENV_WORDS),
                             ("assistant", MODEL_WORDS | ACTION_WORDS)):
        if words & side_words and not (side == "user" and words & RESULT_WORDS):  # ``task_complete``: no request
            return [message(side, text, observation=side == "tool")]
    return None


def source_side(source: str) -> str:
    """The side a source's words name where no alias is the whole value (an IDE agent's ``USER_EXPLICIT`` /
    ``MODEL`` / ``SYSTEM`` steps), else ""."""
    words = kind_words(source)
    sides = [side for side, side_words in (("user", {"user", "human"}), ("system", SYSTEM_WORDS),
                                           ("assistant", {"model", "assistant", "llm"})) if words & side_words]
    return sides[0] if len(sides) == 1 else ""


def kind_named_results(read: list, views: list[dict], key: str) -> list:
    """Events whose kind is the name of a call the model made before them (``VIEW_FILE`` after a turn calling
    ``view_file``: an IDE agent's trajectory logs each tool's output as a step of the tool's kind), read as that
    call's result rather than as words of their own."""
    open_calls: list[dict[str, Any]] = []
    out = []
    # the kinds the model's calls are logged under (``PLANNER_RESPONSE``): an event of another kind, of words only,
    # right after a call no result answered yet is that call's result however the log names it (``GENERIC`` after
    # ``list_permissions``)
    calling = {str(view.get(key)) for view, messages in zip(views, read) if any(m["tool_calls"] for m in messages or [])}
    pending: list[dict[str, Any]] = []  # the calls the event before left unanswered at its end
    for view, messages in zip(views, read):
        kind = re.sub(r"[^a-z0-9]", "", str(view.get(key)).lower())
        made = next((c for c in open_calls if same_name(re.sub(r"[^a-z0-9]", "", c["name"].lower()), kind)), None)
        if made is None and pending and str(view.get(key)) not in calling and pending[0] in open_calls:
            made = pending[0]
        pending = list(messages[-1]["tool_calls"]) if messages and messages[-1]["tool_calls"] else []
        if made is not None and messages and len(messages) == 1 and not messages[0]["tool_calls"] and (
                messages[0]["role"] != "tool"):
            open_calls.remove(made)
            messages = [message("tool", messages[0]["content"], tool_call_id=made["id"], name=made["name"],
                                observation=True)]
        for m in messages or []:
            open_calls += m["tool_calls"]
        out.append(messages)
    return out


def same_name(call: str, kind: str) -> bool:
    """A call's name and an event's kind, both lowercased to letters and digits, naming the same tool (one the
    other's start: ``list_dir`` and ``LIST_DIRECTORY``)."""
    return min(len(call), len(kind)) >= 4 and (call.startswith(kind) or kind.startswith(call))


def holds_text(value: Any) -> bool:
    """Whether a value holds a non-empty string anywhere (an event with something to say)."""
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, dict):
        return any(holds_text(v) for v in value.values())
    return isinstance(value, list) and any(holds_text(v) for v in value)


def paired(events: list[tuple[list[dict[str, Any]], bool]]) -> list[dict[str, Any]]:
    """The messages of a run's events in order, each result paired with its call: by id, else with the open
    call before it. A result event that repeats its call (a hook's ``post_tool`` after ``pre_tool``) answers
    the open call of that name instead of making a second one. ``events``: per event its messages and
    whether its kind names an outcome."""
    messages: list[dict[str, Any]] = []
    open_calls: list[dict[str, Any]] = []
    for read, outcome in events:
        if outcome and len(read) == 2 and len(read[0]["tool_calls"]) == 1 and not read[0]["content"]:
            call = read[0]["tool_calls"][0]
            made = next((c for c in reversed(open_calls) if c["name"] == call["name"]
                         and (not call["id"] or c["id"] == call["id"])), None)
            if made is not None:
                read = [dict(read[1], tool_call_id=made["id"])]
        for m in read:
            open_calls += m["tool_calls"]
            if m["role"] != "tool":
                continue
            answered = next((c for c in reversed(open_calls) if c["id"] == m["tool_call_id"]), None) if m[
                "tool_call_id"] else (open_calls[-1] if open_calls else None)
            if answered is not None:
                m["tool_call_id"] = answered["id"]
                open_calls.remove(answered)
        messages += read
    return messages


def event_runs(items: Any) -> list[tuple[Any, list[dict[str, Any]], int]] | None:
    """An event log's runs: per run (one per session/thread/trace id, else the whole log) its id (None for the
    whole log), its messages and the number of events left out. None unless the list is an event log (``kind_key``) of no model-call records
    (spans holding a call's prompt and response are read as calls) in which some run has a model turn and two
    messages or more; the events read are of kinds whose every event with text is read."""
    if not isinstance(items, list) or len(items) < 2 or not all(isinstance(i, dict) for i in items):
        return None
    key = kind_key(items)
    if key is None:
        return None
    views = [event_view(item, key) for item in items]
    if not any((kind_words(view[key]) | key_words(view[key])) & EVENT_WORDS for view in views):
        return None  # kinds that name no side, call, result or step: categories of records, not events
    if any(is_call_record(item) or is_call_record(view) for item, view in zip(items, views)):
        return None  # records of model calls (a tracer's spans): each call is read as one, below
    read = models_kinds([one_event_messages(view, key, f"event {i}") for i, view in enumerate(views)], views, key)
    read = kind_named_results(read, views, key)
    by_kind: dict[str, list] = collections.defaultdict(list)
    for view, messages in zip(views, read):
        by_kind[view[key]].append((messages, holds_text({k: v for k, v in view.items() if k != key})))
    # a kind some of whose events with text are not read is no turn's kind (a status event that once has text)
    mixed = {kind for kind, results in by_kind.items() if any(r is None and said for r, said in results)
             and any(r for r, _ in results)}
    read = [None if view[key] in mixed else messages for view, messages in zip(views, read)]
    groups: dict[Any, list[int]] = collections.defaultdict(list)
    ids = run_ids(views, lambda view: view.get(key))
    current = next((i for i in ids if i is not None), None)  # events before the first id join the first run
    for index, run_id in enumerate(ids):
        current = run_id if run_id is not None else current  # an event with no id (a footer) joins the run before
        groups[current].append(index)
    outcome = [bool((kind_words(view[key]) | key_words(view[key])) & RESULT_WORDS) for view in views]
    runs = []
    for run_id, indices in groups.items():
        messages = paired([(read[i], outcome[i]) for i in indices if read[i]])
        runs.append((run_id, messages, sum(1 for i in indices if read[i] is None)))
    if not any(len(m) >= 2 and any(x["role"] == "assistant" for x in m) for _, m, _ in runs):
        return None
    return [(run_id, m, left) for run_id, m, left in runs if m]


def models_kinds(read: list, views: list[dict], key: str) -> list:
    """In a log where the person's events read as their turns, an event of a kind no word names that says who
    wrote it (``model``) or makes calls is the model's turn: Gemini CLI names its messages ``type: user`` and
    ``type: gemini`` (``{content, toolCalls, thoughts, tokens, model}``); its ``info`` / ``error`` notes,
    naming no model, stay left out."""
    if not any(m and m[0]["role"] == "user" and not m[0]["observation"] for m in read):
        return read
    unread = [m is None or model_step(view) for view, m in zip(views, read)]
    model = {view[key] for view, left in zip(views, unread) if left and not kind_words(view[key]) & TOOL_WORDS and (
        isinstance(view.get("model"), str) or listed_call_records(view))}  # a tool's event names the model it ran for
    return [said(turn_messages([{**view, "role": "assistant"}])) or None if left and view[key] in model else m
            for view, m, left in zip(views, read, unread)]


def said(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages that say something: a model's message of no text, call or reasoning is none (a tool's
    execution notice that names the model it ran for)."""
    return [m for m in messages if m["role"] != "assistant" or m["content"].strip() or m["tool_calls"]
            or m["reasoning"]]


def model_step(view: dict) -> bool:
    """An event read as a step only for its ``thoughts`` (Gemini CLI's reasoning summaries beside its ``toolCalls``):
    no action or observation of a step's own, so its kind may still be the model's turns."""
    return step_of(view) is not None and not any(k in view for k in ("action", "actions", "observation", "observations"))


def run_ids(views: list[dict], opener: Any = None) -> list[Any]:
    """Each event's run id by ``run_key`` (None for an event without it); all None when no field is one (the log
    is one run). ``opener``: what tells how a run opens (the event's kind), for keys no ``RUN_KEYS`` name."""
    key = run_key(views, opener)
    return [scalar(v.get(key)) for v in views] if key else [None] * len(views)


def scalar(value: Any) -> Any:
    return value if isinstance(value, (str, int)) and not isinstance(value, bool) else None


def run_key(records: list[dict], opener: Any = None) -> str | None:
    """The field that says which run each record of a log belongs to, judged from the log's own statistics: a
    ``RUN_KEYS`` field, else one whose name ends in ``id`` (``case_id``), that two thirds of the records carry
    with two values or more, two thirds of them sharing their value with another record (a run groups several
    records: a handle each record holds alone, a message's, a span's or a task's id, names no run). A field no
    ``RUN_KEYS`` name must also follow the conversation: its runs open as the log does (``opener`` of each
    run's first record, as of the log's first: a case's request, not an agent's findings)."""
    named = [k for k in dict.fromkeys(k for r in records[:200] for k in r) if k not in RUN_KEYS and id_named(k)]
    for key in (*RUN_KEYS, *named):
        present = [i for r in records if (i := scalar(r.get(key))) is not None]
        counts = collections.Counter(present)
        if (len(present) * 3 < len(records) * 2 or len(counts) < 2
                or sum(c for c in counts.values() if c > 1) * 3 < len(present) * 2):
            continue
        if key in RUN_KEYS:
            return key
        firsts = {}
        for record in records:
            firsts.setdefault(scalar(record.get(key)), record)
        if opener is not None and all(opener(r) == opener(records[0]) for i, r in firsts.items() if i is not None):
            return key
    return None


def id_named(key: Any) -> bool:
    """A key named as an id (``case_id``, ``caseId``, ``case-id``), not the bare ``id`` of each record."""
    return isinstance(key, str) and key.lower() != "id" and (key.lower().endswith(("_id", "-id")) or key.endswith("Id"))


# --- messages between agents, in envelopes ------------------------------------------------------------------

# Who sent an envelope, to whom, and what it carries.
SENDER_KEYS = ("sender", "from", "from_agent", "sender_agent", "source_agent")
RECIPIENT_KEYS = ("recipient", "to", "receiver", "to_agent", "target_agent", "target")
BODY_KEYS = ("payload", "body", "content", "message", "text", "msg", "data")


def envelope_runs(items: Any) -> list[tuple[Any, list[dict[str, Any]], int]] | None:
    """Messages agents sent each other, each in an envelope naming its sender and recipient and carrying a body
    (``{case_id, sender, recipient, performative, intent, payload: {...}}``: a multi-agent system's message
    trace): per run (``run_key``: the cases interleave) its id, its messages and the envelopes left out (of no
    body). Each message is its sender's, named for it, as role ``user``: the reader's ``named_parties`` makes the
    run's opener the request and every other sender a party replying. Its text is the body's, or the body's JSON
    where it is data. None unless all items but a tenth (or two) are envelopes of one sender key, two senders or more of them
    names rather than role words (turns of roles are read as turns)."""
    if not isinstance(items, list) or len(items) < 3 or not all(isinstance(i, dict) for i in items[:200]):
        return None
    sender = next((k for k in SENDER_KEYS if len(items) - sum(isinstance(i, dict) and short_label(i.get(k)) for i in items)
                   <= max(2, len(items) // 10)), None)  # (a header or a summary line among them is no envelope)
    envelopes = [i for i in items if isinstance(i, dict) and short_label(i.get(sender))] if sender else []
    recipient = next((k for k in RECIPIENT_KEYS if all(short_label(e.get(k)) for e in envelopes)), None)
    body = next((k for k in BODY_KEYS if all(k in e for e in envelopes)), None)
    if not envelopes or recipient is None or body is None:
        return None
    names = {e[sender].strip().lower() for e in envelopes}
    if sum(name not in ROLE_ALIASES for name in names) < 2 or not any(holds_text(e[body]) for e in envelopes):
        return None
    ids = run_ids(envelopes, lambda e: e[sender])
    groups: dict[Any, list[dict]] = collections.defaultdict(list)
    for envelope, run_id in zip(envelopes, ids):
        groups[run_id].append(envelope)
    runs = []
    for run_id, run in groups.items():
        said = [e for e in run if e[body] not in (None, "", [], {})]
        messages = [message("user", e[body] if isinstance(e[body], str) else json.dumps(e[body], ensure_ascii=False),
                            name=e[sender].strip()) for e in said]
        runs.append((run_id, messages, len(run) - len(said)))
    return [(run_id, m, left + (len(items) - len(envelopes) if i == 0 else 0)) for i, (run_id, m, left) in enumerate(runs)]


def short_label(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip()) and len(value) <= 80 and "\n" not in value


# --- streamed chunks ------------------------------------------------------------------------------------


def openai_chunk(entry: Any) -> dict | None:
    """The delta of an OpenAI ``chat.completion.chunk`` (``choices[0].delta``), or None."""
    choices = entry.get("choices") if isinstance(entry, dict) else None
    first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
    return first["delta"] if first is not None and isinstance(first.get("delta"), dict) else None


def merged_openai(chunks: list[dict]) -> dict:
    """One streamed reply: its role, its text and reasoning in order, its calls assembled by index."""
    deltas = [openai_chunk(chunk) or {} for chunk in chunks]
    calls: dict[int, dict] = {}
    for delta in deltas:
        parts = delta.get("tool_calls") if isinstance(delta.get("tool_calls"), list) else []
        for part in (p for p in parts if isinstance(p, dict)):
            index = part.get("index") if isinstance(part.get("index"), int) else len(calls)
            call = calls.setdefault(index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}})
            call["id"] = call["id"] or str(part.get("id") or "")
            function = part.get("function") if isinstance(part.get("function"), dict) else {}
            call["function"]["name"] += function.get("name") if isinstance(function.get("name"), str) else ""
            call["function"]["arguments"] += function.get("arguments") if isinstance(function.get("arguments"), str) else ""
    role = next((d["role"] for d in deltas if isinstance(d.get("role"), str)), "assistant")
    merged = {"role": role, "content": "".join(d.get("content") or "" for d in deltas if isinstance(d.get("content"), str))}
    reasoning = "".join(d.get("reasoning_content") or d.get("reasoning") or "" for d in deltas
                        if isinstance(d.get("reasoning_content") or d.get("reasoning"), str))
    return {**merged, **({"reasoning_content": reasoning} if reasoning else {}),
            **({"tool_calls": [calls[i] for i in sorted(calls)]} if calls else {})}


def anthropic_stream(entries: list[dict]) -> dict:
    """One streamed Anthropic message (``message_start`` ... ``message_stop``) as a message of content
    blocks: each ``content_block_start`` block with its deltas (text, thinking, a call's JSON input) applied."""
    blocks: dict[int, dict] = {}
    for entry in entries:
        index = entry.get("index") if isinstance(entry.get("index"), int) else 0
        if entry.get("type") == "content_block_start" and isinstance(entry.get("content_block"), dict):
            blocks[index] = dict(entry["content_block"], _json="")
        elif entry.get("type") == "content_block_delta" and isinstance(entry.get("delta"), dict):
            block, delta = blocks.setdefault(index, {"type": "text", "text": "", "_json": ""}), entry["delta"]
            for field, key in (("text", "text"), ("thinking", "thinking"), ("partial_json", "_json")):
                if isinstance(delta.get(field), str):
                    block[key] = block.get(key, "") + delta[field]
    content = []
    for index in sorted(blocks):
        block = blocks[index]
        if raw := block.pop("_json"):
            try:
                block["input"] = json.loads(raw)
            except ValueError:
                block["input"] = raw  # a cut stream: the call's input as far as it came
        content.append(block)
    return {"role": "assistant", "content": content}


def chunk_key(entry: Any) -> tuple | None:
    """Which streamed message an entry is a piece of, or None for an entry that is no chunk."""
    if openai_chunk(entry) is not None:
        return ("openai", entry.get("id"))
    if isinstance(entry, dict) and isinstance(entry.get("type"), str) and entry["type"] in ANTHROPIC_STREAM:
        return ("anthropic",)
    if isinstance(entry, dict) and entry.get("delta") is True and speaker_of(entry) and isinstance(entry.get("content"), str):
        return ("delta", speaker_of(entry), entry.get("type"))  # a turn's text streamed record by record
    return None


def merged_deltas(parts: list[dict]) -> dict:
    """A turn streamed as records flagged ``delta: true`` (Gemini CLI's ``stream-json`` replies): one record
    of the parts' text joined, the first part's other fields."""
    merged = {k: v for k, v in parts[0].items() if k != "delta"}
    return {**merged, "content": "".join(part["content"] for part in parts)}


ANTHROPIC_STREAM = frozenset({"message_start", "content_block_start", "content_block_delta", "content_block_stop",
                              "message_delta", "message_stop"})


def merged_chunks(items: Any) -> list | None:
    """``items`` with each run of streamed chunks merged into the message it is (OpenAI deltas of one reply id;
    an Anthropic ``message_start`` ... ``message_stop``; Open Interpreter's parts between a ``start`` and an
    ``end`` flag of one role, type and format; consecutive turn records of one speaker flagged ``delta:
    true``); None when no entry is a chunk."""
    if not isinstance(items, list) or len(items) < 2 or not all(isinstance(i, dict) for i in items[:200]):
        return None
    merged: list = []
    index, changed = 0, False
    while index < len(items):
        entry = items[index]
        key = chunk_key(entry)
        if key is None and isinstance(entry, dict) and entry.get("start") is True and speaker_of(entry):
            framed = framed_parts(items, index)
            if framed is not None:
                merged.append(framed[0])
                index, changed = framed[1], True
                continue
        if key is None:
            merged.append(entry)
            index += 1
            continue
        end = index
        while end < len(items) and chunk_key(items[end]) == key and not (
                key[0] == "anthropic" and end > index and items[end].get("type") == "message_start"):
            end += 1
        run = items[index:end]
        merged.append(merged_openai(run) if key[0] == "openai" else merged_deltas(run) if key[0] == "delta"
                      else anthropic_stream(run))
        index, changed = end, True
    return merged if changed else None


def framed_parts(items: list, start: int) -> tuple[dict, int] | None:
    """An Open Interpreter message streamed between ``{role, type, format, start: true}`` and ``{..., end:
    true}``: the one message (the parts' content joined) and the index after its end; None when no end of the
    same role, type and format follows."""
    head = items[start]
    key = (speaker_of(head), head.get("type"), head.get("format"))
    parts = []
    for index in range(start + 1, len(items)):
        entry = items[index]
        if (speaker_of(entry), entry.get("type"), entry.get("format")) != key:
            return None
        if entry.get("end") is True:
            body = {k: v for k, v in head.items() if k not in ("start", "end", "content")}
            return {**body, "content": "".join(parts)}, index + 1
        parts.append(entry.get("content") if isinstance(entry.get("content"), str) else "")
    return None


# --- event logs printed as objects ----------------------------------------------------------------------


def holds_event_log(value: Any, depth: int = 0) -> bool:
    """Whether a value holds, at most three levels down, a list that reads as an event log (``event_runs``)."""
    if depth > 3:
        return False
    if isinstance(value, list) and event_runs(value) is not None:
        return True
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return any(holds_event_log(child, depth + 1) for child in children if isinstance(child, (dict, list)))


def printed_event_logs(text: str) -> list[Any]:
    """The objects a text printed (``printed.printed_values``: reprs such as AutoGen's ``TaskResult(messages=[
    TextMessage(source='user', ...), ToolCallRequestEvent(...)])``) that hold an event log, in order."""
    return [p.value for p in printed_values(text) if holds_event_log(p.value)] if "(" in text or "{" in text else []
