"""Conversations recognised by their shape (``shape``): a turn list or a step list anywhere in a JSON value.

The named formats are adapters for what their semantics need (compactions, reasoning, outcomes); a run
in a layout none of them knows is still a list of turns under some key. This reader finds it:

* a **turn list**: a list of objects that each name a speaker (``role``/``from``/``speaker``/``sender``/
  ``author``/``type``) and carry text (``content``/``value``/``text``/``message``/``parts``/``blocks``/
  ``data.content``) or calls; speakers are role aliases (``ROLE_ALIASES``) or, in a multi-agent log,
  names: the first to speak set the task (user), every other name is the model;
* a **step list**: ReAct-style steps (``{thought, action, observation}``, ``{query, actions,
  observations}``), as a list or an object indexed ``"0"``, ``"1"``... Each step is a model turn (its
  thought and action) and an observation.

Lists are found at any key path (``$.6238.traj``, ``$.state.history``, ``$.answer.train_messages[3]``).
The record of a list is the object that holds it; of several lists in one record (a prompt and the
run, or the growing prompts of each step) the longest is the run. Every record is one transcript, with
its id (``record_id``: the record's own id field, else its key in the object holding it) and path.
Tool calls are read from ``tool_calls``/``function_call``, from content blocks (``tool_use``,
``tool_call``, ``function_call``) or left as the text the model wrote; results from ``tool`` turns,
``tool_result`` blocks, or user turns that are tool output by their shape (``flag_text_observations``).
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from codemix.mixtures.transcript_formats.base import Format, Transcript, declared_tools, recorded_facts
from codemix.mixtures.transcript_formats.canonical import (
    TranscriptShapeError,
    block_type,
    flag_text_observations,
    message,
    string,
    tool_call,
)

ROLE_ALIASES = {
    **dict.fromkeys(("user", "human", "person", "customer", "client", "prompter", "instruction"), "user"),
    **dict.fromkeys(("assistant", "gpt", "model", "bot", "ai", "agent", "chatgpt", "chatbot", "llm", "copilot",
                     "function_call", "tool_call"), "assistant"),
    **dict.fromkeys(("system", "developer", "system_prompt"), "system"),
    **dict.fromkeys(("tool", "function", "observation", "env", "environment", "ipython", "tool_result",
                     "tool_response", "function_response", "obs", "feedback", "execution", "computer"), "tool"),
}
ROLE_KEYS = ("role", "from", "speaker", "sender", "author", "type")
CONTENT_KEYS = ("content", "value", "text", "message", "parts", "blocks", "utterance", "data")
CALL_BLOCK_TYPES = frozenset({"tool_use", "tool_call", "function_call", "server_tool_use"})
RESULT_BLOCK_TYPES = frozenset({"tool_result", "function_call_output", "tool_response", "function_response"})
# Step layouts: what the model wrote in a step, and what the environment returned.
STEP_MODEL_KEYS = ("thought", "thoughts", "reasoning", "action", "actions", "tool_calls", "response", "code",
                   "answer")
STEP_ENV_KEYS = ("observation", "observations", "result", "results", "output", "feedback", "env_response")
# A record's task and system prompt, for a step list (or a turn list with no task turn of its own).
TASK_KEYS = ("task", "instruction", "question", "query", "problem_statement", "problem", "goal", "input",
             "user_input", "task_description", "issue", "prompt")
SYSTEM_KEYS = ("system_prompt", "system", "instructions")
# A record's own id, in the order one is taken (provenance's ``transcript_id`` reads ``record_id``).
ID_KEYS = ("id", "instance_id", "session_id", "trajectory_id", "task_id", "conversation_id", "run_id", "uuid",
           "sample_id", "question_id", "idx", "index")
# A walk that stops: a value is visited at most this many objects and lists deep, and this many nodes.
MAX_NODES = 200_000


class Found(NamedTuple):
    """One list that reads as a conversation: where it sits, the record holding it, and the record's key."""

    path: str
    items: list
    kind: str  # "turns" or "steps"
    record: dict | None
    record_key: str
    ancestors: tuple  # the objects above the record, nearest first


# --- recognising a turn -------------------------------------------------------------------------


def speaker_of(item: Any) -> str | None:
    """The speaker a turn names (a role alias or a name), or None when ``item`` names none."""
    if not isinstance(item, dict):
        return None
    for key in ROLE_KEYS:
        value = item.get(key)
        if isinstance(value, dict):  # {"author": {"role": "user"}}
            value = value.get("role") or value.get("name")
        if isinstance(value, str) and value.strip() and (key != "type" or value.lower() in ROLE_ALIASES):
            return value.strip()
    return None


def has_text_or_calls(item: dict) -> bool:
    return any(key in item for key in CONTENT_KEYS) or bool(item.get("tool_calls")) or "function_call" in item


def is_turn_list(items: Any) -> bool:
    """A list of ≥2 turns that all name a speaker and carry text or calls, with at least one speaker a
    model or ≥2 distinct names (a multi-agent log)."""
    if not isinstance(items, list) or len(items) < 2:
        return False
    sample = items[:200]
    speakers = [speaker_of(item) for item in sample]
    if any(s is None for s in speakers) or not all(has_text_or_calls(item) for item in sample):
        return False
    roles = {ROLE_ALIASES.get(s.lower()) for s in speakers}
    return "assistant" in roles or len(set(speakers)) >= 2


def is_step(item: Any) -> bool:
    return isinstance(item, dict) and any(k in item for k in STEP_MODEL_KEYS) and speaker_of(item) is None


def is_step_list(items: Any) -> bool:
    """A list of ReAct-style steps: every item has something the model wrote, and some an observation."""
    if not isinstance(items, list) or not items:
        return False
    sample = items[:200]
    return all(is_step(item) for item in sample) and any(any(k in item for k in STEP_ENV_KEYS) for item in sample)


def indexed_items(value: Any) -> list | None:
    """An object indexed ``"0"``, ``"1"``... (or ``"step_1"``...) as its list of values in index order."""
    if not isinstance(value, dict) or not value:
        return None
    keyed = []
    for key, item in value.items():
        digits = str(key).rsplit("_", 1)[-1]
        if not digits.isdigit():
            return None
        keyed.append((int(digits), item))
    return [item for _, item in sorted(keyed, key=lambda pair: pair[0])]


# --- finding the lists --------------------------------------------------------------------------


def find_conversations(value: Any) -> list[Found]:
    """Every turn or step list in ``value`` not inside another (a turn's own content blocks are not
    conversations), at most one per record: the longest."""
    found: list[Found] = []
    # (node, its path, its key in its parent, the objects enclosing it with their keys, nearest first)
    stack: list[tuple[Any, str, str, tuple]] = [(value, "$", "", ())]
    nodes = 0
    while stack and nodes < MAX_NODES:
        node, path, key, chain = stack.pop()
        nodes += 1
        kind = "turns" if is_turn_list(node) else "steps" if is_step_list(node) else None
        if kind is None and (indexed := indexed_items(node)) is not None and is_step_list(indexed):
            node, kind = indexed, "steps"
        if kind is not None:
            record, record_key = chain[0] if chain else (None, "")
            found.append(Found(path, node, kind, record, record_key, tuple(d for d, _ in chain[1:])))
            continue
        if isinstance(node, dict):
            inner = ((node, key), *chain)
            for child_key, child in reversed(list(node.items())):
                if isinstance(child, (dict, list)):
                    stack.append((child, f"{path}.{child_key}", str(child_key), inner))
        elif isinstance(node, list):
            for index in reversed(range(len(node))):
                if isinstance(node[index], (dict, list)):
                    stack.append((node[index], f"{path}[{index}]", str(index), chain))
    return longest_per_record(found)


def longest_per_record(found: list[Found]) -> list[Found]:
    best: dict[int, Found] = {}
    order: list[int] = []
    for item in found:
        slot = id(item.record)
        if slot not in best:
            order.append(slot)
            best[slot] = item
        elif len(item.items) > len(best[slot].items):
            best[slot] = item
    return [best[slot] for slot in order]


# --- turns -> canonical messages ----------------------------------------------------------------


def turn_text(value: Any) -> str:
    """Text of a content value: a string, text blocks or strings in a list, or an object's text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [turn_text(part) for part in value
                 if isinstance(part, str) or block_type(part) not in CALL_BLOCK_TYPES | RESULT_BLOCK_TYPES]
        return "\n".join(part for part in parts if part)
    if isinstance(value, dict):
        for key in ("text", "content", "value", "parts", "message"):
            if key in value:
                return turn_text(value[key])
        return ""
    return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else ""


def content_of(item: dict) -> Any:
    for key in CONTENT_KEYS:
        if key in item:
            value = item[key]
            if key == "data" and isinstance(value, dict):  # LangChain: {"type": "human", "data": {"content"}}
                return value.get("content", value.get("text"))
            return value
    return None


def turn_calls(item: dict, where: str) -> list[dict[str, Any]]:
    """Calls in ``tool_calls``/``function_call`` and in ``tool_use``/``tool_call`` content blocks."""
    raw = item.get("tool_calls") if isinstance(item.get("tool_calls"), list) else []
    raw = [*raw, *([item["function_call"]] if isinstance(item.get("function_call"), dict) else [])]
    content = content_of(item)
    raw += [b for b in content if block_type(b) in CALL_BLOCK_TYPES] if isinstance(content, list) else []
    calls = []
    for call in raw:
        if not isinstance(call, dict):
            continue
        function = call["function"] if isinstance(call.get("function"), dict) else call
        name = function.get("name") or function.get("tool_name") or function.get("tool")
        arguments = next((function[k] for k in ("arguments", "input", "args", "parameters") if k in function), None)
        if isinstance(name, str) and name:
            calls.append(tool_call(call.get("id") or call.get("call_id"), name, arguments, where=where))
    return calls


def result_blocks(item: dict) -> list[dict[str, Any]]:
    content = content_of(item)
    blocks = [b for b in content if block_type(b) in RESULT_BLOCK_TYPES] if isinstance(content, list) else []
    return [message("tool", turn_text(b.get("content", b.get("output"))),
                    tool_call_id=str(b.get("tool_use_id") or b.get("call_id") or ""), observation=True) for b in blocks]


def speaker_roles(items: list, configured: dict[str, str] | None = None) -> dict[str, str]:
    """Each speaker's canonical role: as ``configured`` (a source's ``speakers``), else its alias, else by
    position (the first name to speak set the task, every other name is the model)."""
    roles: dict[str, str] = {}
    configured = configured or {}
    first_name = None
    for item in items:
        speaker = speaker_of(item) or ""
        if speaker in roles:
            continue
        alias = configured.get(speaker) or ROLE_ALIASES.get(speaker.lower())
        if alias is None:
            first_name = first_name or speaker
            alias = "user" if speaker == first_name and "user" not in roles.values() else "assistant"
        roles[speaker] = alias
    return roles


def turn_messages(items: list, speakers: dict[str, str] | None = None) -> list[dict[str, Any]]:
    roles = speaker_roles(items, speakers)
    messages = []
    for index, item in enumerate(items):
        where = f"turn {index}"
        if not isinstance(item, dict):
            raise TranscriptShapeError(f"{where} is a {type(item).__name__}, not an object")
        speaker = speaker_of(item) or ""
        role = roles.get(speaker, "assistant")
        text = turn_text(content_of(item))
        if role == "user" and (results := result_blocks(item)):
            messages += results + ([message("user", text)] if text.strip() else [])
            continue
        calls = turn_calls(item, where) if role == "assistant" else []
        if speaker.lower() in ("function_call", "tool_call") and not calls:
            calls = text_call(text, where)
            text = "" if calls else text
        name = speaker if ROLE_ALIASES.get(speaker.lower()) is None else string(item.get("name"))
        messages.append(message(role, text, reasoning=string(item.get("reasoning_content")) or string(
            item.get("reasoning")) or string(item.get("thinking")), tool_calls=calls,
            tool_call_id=str(item.get("tool_call_id") or ""), name=name, observation=role == "tool"))
    return messages


def text_call(text: str, where: str) -> list[dict[str, Any]]:
    """A call written as a JSON ``{name, arguments}`` turn (ShareGPT's ``function_call``)."""
    try:
        value = json.loads(text)
    except ValueError:
        return []
    if isinstance(value, dict) and isinstance(value.get("name"), str) and value["name"]:
        return [tool_call(value.get("id"), value["name"], value.get("arguments"), where=where)]
    return []


# --- steps -> canonical messages ----------------------------------------------------------------


def step_messages(steps: list) -> list[dict[str, Any]]:
    messages = []
    for index, step in enumerate(steps):
        where = f"step {index}"
        if not isinstance(step, dict):
            raise TranscriptShapeError(f"{where} is a {type(step).__name__}, not an object")
        thought = "\n".join(turn_text(step.get(k)) for k in ("thought", "thoughts", "reasoning") if step.get(k))
        calls, action_text = step_actions(step, where)
        reply = turn_text(step.get("response")) or turn_text(step.get("answer"))
        text = "\n".join(part for part in (thought, action_text, reply if reply not in thought else "") if part)
        messages.append(message("assistant", text, tool_calls=calls))
        for key in STEP_ENV_KEYS:
            if key in step and step[key] not in (None, "", []):
                observed = step[key]
                for part in observed if isinstance(observed, list) and key.endswith("s") else [observed]:
                    output = turn_text(part) if not isinstance(part, dict) or "text" in part or "content" in part \
                        else json.dumps(part, ensure_ascii=False)
                    messages.append(message("tool", output, observation=True))
                break
    return messages


def step_actions(step: dict, where: str) -> tuple[list[dict[str, Any]], str]:
    """A step's calls (structured actions) and the action text it wrote (``search[...]``, a command)."""
    actions = step.get("actions", step.get("action", step.get("tool_calls", step.get("code"))))
    calls, texts = [], []
    for action in actions if isinstance(actions, list) else [actions]:
        if isinstance(action, str):
            texts.append(action)
        elif isinstance(action, dict):
            function = action["function"] if isinstance(action.get("function"), dict) else action
            name = function.get("name") or function.get("tool") or function.get("tool_name") or function.get("type")
            arguments = next((function[k] for k in ("arguments", "args", "input", "parameters", "tool_input")
                              if k in function), {k: v for k, v in function.items() if k not in ("name", "tool", "type")})
            if isinstance(name, str) and name:
                calls.append(tool_call(action.get("id"), name, arguments, where=where))
            else:
                texts.append(json.dumps(action, ensure_ascii=False))
    return calls, "\n".join(texts)


# --- the format -----------------------------------------------------------------------------------


def record_field(holders: list[dict], keys: tuple[str, ...]) -> str:
    return next((value for holder in holders for key in keys if isinstance(value := holder.get(key), str)
                 and value.strip()), "")


def record_id(found: Found) -> str:
    """The run's own id: an id field of its record, else of the objects above it (nearest first), else
    the record's key where it sits in an object keyed by ids (``{"6238": {...}}``)."""
    for holder in [h for h in (found.record, *found.ancestors) if isinstance(h, dict)]:
        for key in ID_KEYS:
            value = holder.get(key)
            if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
                return str(value)
    return found.record_key if any(ch.isdigit() for ch in found.record_key) else ""


def opening(messages: list[dict[str, Any]], holders: list[dict]) -> list[dict[str, Any]]:
    """The system prompt and task a record keeps beside its turns, when the turns lack them."""
    head: list[dict[str, Any]] = []
    if not any(m["role"] == "system" for m in messages) and (system := record_field(holders, SYSTEM_KEYS)):
        head.append(message("system", system))
    first_model = next((i for i, m in enumerate(messages) if m["role"] == "assistant"), len(messages))
    has_user = any(m["role"] == "user" and not m["observation"] and m["content"].strip() for m in messages[:first_model])
    if not has_user and (task := record_field(holders, TASK_KEYS)):
        head.append(message("user", task))
    return head


def outcome(holders: list[dict]) -> dict[str, Any]:
    """Recorded outcome facts (``recorded_facts``), and a run's own success flag as ``tests_passed``."""
    facts = recorded_facts([h.get("info") for h in holders] + holders)
    if "tests_passed" not in facts and "resolved" not in facts:
        flag = next((h[k] for h in holders for k in ("success", "is_success", "is_solved", "solved", "passed",
                                                      "correct") if isinstance(h.get(k), bool)), None)
        flag = reward_verdict(holders) if flag is None else flag
        if flag is not None:
            facts["tests_passed"] = flag
    return facts


def reward_verdict(holders: list[dict]) -> bool | None:
    """A run's ``reward`` when it is a pass/fail (0 or 1, as a number or the string a JSON dump of a
    float wrote, "1.0"); a graded reward (0.4) says nothing of whether the run succeeded."""
    for holder in holders:
        value = holder.get("reward")
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                continue
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value in (0, 1):
            return bool(value)
        if isinstance(value, bool):
            return value
    return None


def transcript_of(found: Found, speakers: dict[str, str] | None = None) -> Transcript:
    holders = [h for h in (found.record, *found.ancestors) if isinstance(h, dict)]
    messages = turn_messages(found.items, speakers) if found.kind == "turns" else step_messages(found.items)
    messages = flag_text_observations(opening(messages, holders) + messages)
    extra = {"path": found.path, "layout": found.kind}
    if rid := record_id(found):
        extra["record_id"] = rid
    tools = next((declared_tools(h.get("tools")) for h in holders if isinstance(h.get("tools"), list)), [])
    return Transcript(format="shape", messages=messages, facts=outcome(holders), tools=tools, extra=extra)


def detect_shape(value: Any) -> bool:
    return bool(find_conversations(value))


def parse_shape(value: Any, *, aliases_only: bool = False, speakers: dict[str, str] | None = None) -> list[Transcript]:
    """The transcripts of ``value`` by shape. ``aliases_only``: refuse a turn list whose speakers are not
    all role aliases (where a named format's adapter refused the value, positions are no evidence);
    ``speakers``: the roles a source gives speaker names (``SourceConfig.speakers``)."""
    found = find_conversations(value)
    if not found:
        raise TranscriptShapeError("no list of turns or steps at any key path")
    if aliases_only and any(item.kind == "turns" and any(
            (speaker_of(turn) or "").lower() not in ROLE_ALIASES for turn in item.items) for item in found):
        raise TranscriptShapeError("a speaker that is no role alias")
    return [transcript_of(item, speakers) for item in found]


SHAPE = Format(name="shape", container="json", detect=detect_shape, parse=parse_shape)


# Keys that hold a run's turns in the layouts seen so far; an empty one is an empty conversation, not
# an unknown layout.
CONVERSATION_KEYS = frozenset({"messages", "conversations", "conversation", "history", "trajectory", "traj", "turns",
                               "chat", "dialog", "dialogue", "steps", "events", "transcript", "loglines", "items"})


def empty_conversation(value: Any) -> str | None:
    """The path of an empty turn list (``{"messages": []}``) when ``value`` holds one and no non-empty
    one under a conversation key; None otherwise."""
    empty, stack, nodes = None, [(value, "$")], 0
    while stack and nodes < MAX_NODES:
        node, path = stack.pop()
        nodes += 1
        if isinstance(node, dict):
            for key, child in node.items():
                if str(key).lower() in CONVERSATION_KEYS and isinstance(child, list):
                    if child:
                        return None
                    empty = empty or f"{path}.{key}"
                elif isinstance(child, (dict, list)):
                    stack.append((child, f"{path}.{key}"))
        elif isinstance(node, list):
            stack += [(child, f"{path}[{i}]") for i, child in enumerate(node) if isinstance(child, (dict, list))]
    return empty
