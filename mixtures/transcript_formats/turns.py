"""What a turn, a step, a model call and a logged tool call look like in a JSON value, and how each becomes
canonical messages (``canonical.message``): the vocabulary ``shape`` finds conversations with.

Speakers are role aliases (``ROLE_ALIASES``) or names; text sits under ``CONTENT_KEYS`` (or in content
blocks, also blocks named by their key, Gemini's ``functionCall``); calls in ``tool_calls``, blocks, logged
``{name, arguments, result}`` events, or inside a turn under a key of its own. docs/transcript-formats.md
(``shape``) lists every layout.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from typing import Any

from codemix.mixtures.transcript_formats.canonical import (
    TranscriptShapeError,
    block_type,
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
                     "tool_response", "function_response", "obs", "feedback", "execution", "computer", "api",
                     "tool_output", "function_output", "tool_message", "tool_results"), "tool"),
}
# The same roles written with a space, a hyphen or nothing for the underscore (``function call``, ``tool-result``).
ROLE_ALIASES.update({name.replace("_", sep): role for name, role in list(ROLE_ALIASES.items()) if "_" in name
                     for sep in (" ", "-", "")})  # and joined, as a camelCase role reads lowered (``toolResult``)
ROLE_KEYS = ("role", "from", "speaker", "sender", "send_from", "speaker_name", "agent_name", "author", "type")
CONTENT_KEYS = ("content", "value", "text", "message", "msg", "parts", "blocks", "utterance", "data")
CALL_BLOCK_TYPES = frozenset({"tool_use", "tool_call", "function_call", "server_tool_use", "tool_request"})
RESULT_BLOCK_TYPES = frozenset({"tool_result", "function_call_output", "tool_response", "function_response"})
# Blocks named by their one key instead of a ``type`` (Gemini's ``{"functionCall": {name, args}}`` parts).
KEYED_CALL_BLOCKS = ("functionCall", "function_call", "toolCall", "tool_call", "toolUse", "tool_use")
KEYED_RESULT_BLOCKS = ("functionResponse", "function_response", "toolResult", "tool_result", "toolResponse")
# Step layouts: what the model wrote in a step, and what the environment returned.
STEP_MODEL_KEYS = ("thought", "thoughts", "reasoning", "sub_goal", "subgoal", "action", "actions", "tool_calls",
                   "command", "response", "code",
                   "answer", "llm_response", "model_response")
STEP_ENV_KEYS = ("observation", "observations", "result", "results", "output", "feedback", "env_response",
                 "tool_results", "tool_outputs")
STEP_KEYS = frozenset(STEP_MODEL_KEYS + STEP_ENV_KEYS)
# What a user said before a step (a run's first step keeps the task so).
STEP_USER_KEYS = ("user_message", "user_input", "user_query")
THOUGHT_KEYS = ("thought", "thoughts", "reasoning", "plan", "criticism", "sub_goal", "subgoal")
# Keys of a step indexed by numbered names: the name (possibly empty), then its number.
NUMBERED_KEY = re.compile(r"^\s*([A-Za-z][A-Za-z _-]*?)?[\s_-]*(\d+)\s*$")
# Keys under which one conversation is kept in rounds, each round an object holding its own turn list.
ROUND_KEYS = frozenset({"rounds", "turns", "exchanges", "interactions", "iterations"})
# A record's final answer, written by the model after its steps (a closing model turn).
FINAL_KEYS = ("final_output", "final_answer", "final_response")
# Columns of a step table (``{thoughts: [...], actions: [...], observations: [...]}``): each to its step key.
STEP_COLUMNS = {"thoughts": "thought", "actions": "action", "responses": "response", "observations": "observation",
                "results": "result", "outputs": "output"}
# A call record: what one model call was sent, and what it returned.
PROMPT_KEYS = ("messages", "input_messages", "prompt_messages", "prompt", "prompts", "input", "inputs", "request",
               "llm_input", "model_input", "user_task", "user_message", "user_input")
RESPONSE_KEYS = ("response", "completion", "output", "outputs", "generation", "generated_text", "output_messages",
                 "output_text", "llm_output", "llm_response", "model_output", "model_response", "raw_response")
# A tool-call event: the tool's name, its arguments, what it returned.
CALL_NAME_KEYS = ("name", "function", "tool", "tool_name", "function_name", "func_name", "api_name")
CALL_ARGUMENT_KEYS = ("arguments", "args", "kwargs", "parameters", "params", "tool_input")
CALL_RESULT_KEYS = ("result", "output", "response", "observation", "return", "return_value", "content",
                    "tool_output", "tool_result", "tool_response", "function_output", "function_response")
# Keys under which a record declares tools (name + JSON-schema parameters), never a log of calls.
DECLARATION_KEYS = frozenset({"tools", "functions", "available_tools", "tool_specs", "tool_list"})
# A record's task and system prompt, for a step list (or a turn list with no task turn of its own).
TASK_KEYS = ("task", "instruction", "question", "query", "problem_statement", "problem", "goal", "input",
             "user_input", "task_description", "issue", "prompt")
SYSTEM_KEYS = ("system_prompt", "system", "instructions", "system_instruction", "system_message")
# A record's own id, in the order one is taken (provenance's ``transcript_id`` reads ``record_id``).
ID_KEYS = ("id", "instance_id", "session_id", "trajectory_id", "task_id", "conversation_id", "run_id", "uuid",
           "sample_id", "question_id", "idx", "index")


# --- recognising a turn -------------------------------------------------------------------------


def speaker_of(item: Any) -> str | None:
    """The speaker a turn names (a role alias or a name), or None when ``item`` names none."""
    if not isinstance(item, dict):
        return None
    for key in ROLE_KEYS:
        value = item.get(key)
        if isinstance(value, dict):  # {"author": {"role": "user"}}; {"from": {"kind": "agent", "id": ...}}
            kind = value.get("kind") if isinstance(value.get("kind"), str) and value["kind"].lower() in ROLE_ALIASES else None
            value = value.get("role") or kind or value.get("name")
        if isinstance(value, str) and value.strip() and (key != "type" or value.lower() in ROLE_ALIASES):
            return value.strip()
    for key, value in item.items():  # a role under a key of its own naming one (CAMEL's ``role_at_backend``)
        if (key.startswith("role_") or key.endswith("_role")) and isinstance(value, str) and value.lower() in ROLE_ALIASES:
            return value.strip()
    if any(key in item for key in CONTENT_KEYS):  # a role kept in a child record beside the content (opencode's
        for key, value in item.items():           # ``{info: {role}, parts}``)
            if key not in CONTENT_KEYS and isinstance(value, dict) and isinstance(value.get("role"), str) and (
                    value["role"].lower() in ROLE_ALIASES):
                return value["role"].strip()
    return None


def has_text_or_calls(item: dict) -> bool:
    """A turn's text or calls; a tool's turn may instead log the call it answers and its result
    (``{role: "API", api_name, param_dict, result}``)."""
    if any(key in item for key in CONTENT_KEYS) or bool(item.get("tool_calls")) or "function_call" in item:
        return True
    return is_tool_role(item) and (bool(call_name(item)) or any(key in item for key in CALL_RESULT_KEYS)
                                   or bool(listed_results(item)))


def listed_results(item: dict) -> list:
    """The results a tool's turn lists (``{type: tool_results, results: [{result}, ...]}``: several calls answered
    in one record), each a record holding its result; [] otherwise."""
    results = item.get("results")
    if not isinstance(results, list) or not results or not all(
            isinstance(r, dict) and any(k in r for k in CALL_RESULT_KEYS) for r in results):
        return []
    return results


def is_tool_role(item: dict) -> bool:
    return ROLE_ALIASES.get((speaker_of(item) or "").lower()) == "tool"


def is_turn_list(items: Any) -> bool:
    """A list of ≥2 turns that all name a speaker and carry text or calls, with at least one speaker a
    model or ≥2 distinct names (a multi-agent log)."""
    if not isinstance(items, list) or len(items) < 2:
        return False
    sample = with_spoken_strings(items[:200])
    speakers = [speaker_of(item) for item in sample]
    if any(s is None for s in speakers) or not all(has_text_or_calls(item) for item in sample):
        return False
    if any(logged_prompt(item) for item in sample):
        return False  # a trace's LLM spans (``type: llm`` beside a message list) are calls, not turns
    roles = {ROLE_ALIASES.get(s.lower()) for s in speakers}
    return "assistant" in roles or len(set(speakers)) >= 2


def is_flat_step(item: Any) -> bool:
    """An object holding something the model wrote in a step (an empty ``tool_calls: []`` beside a nested
    step is no step of its own)."""
    return (isinstance(item, dict) and any(item.get(k) not in (None, [], {}) for k in STEP_MODEL_KEYS)
            and speaker_of(item) is None)


# Words of a step's keys that say what the key holds, where no exact step key is there (``next_action``,
# ``agentThought``; ``env_observation``, ``execution_result``): the model's part, the environment's.
STEP_MODEL_WORDS = frozenset({"action", "actions", "thought", "thoughts", "command"})  # -> thought, action
STEP_ENV_WORDS = frozenset({"observation", "observations", "obs", "feedback", "result", "results", "output",
                            "outputs", "environment", "env"})
# Words that make a key no environment output (the model's own output, a reference, a setting).
NOT_ENV_WORDS = frozenset({"model", "llm", "agent", "assistant", "gpt", "expected", "gold", "reference", "format",
                           "type", "path", "file", "dir", "id"})


def key_words(key: Any) -> set[str]:
    return set(re.split(r"[^a-z]+", re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", str(key)).lower())) - {""}


def worded_step(item: dict) -> dict:
    """``item`` with ``thought``/``action``/``observation`` added from a key whose words say so (``thinking``),
    when it has no exact step key of that kind (a copy; the item itself when nothing is added)."""
    added = {snake: item[key] for key in item if isinstance(key, str) and key != (snake := "_".join(sorted(
        key_words(key), key=lambda w: key.lower().find(w)))) and snake in STEP_KEYS and snake not in item}
    item = {**item, **added} if added else item  # camelCase step keys (the AI SDK's ``toolCalls``/``toolResults``)
    added = {}
    thinking = [k for k in item if key_words(k) & {"thinking"} and isinstance(item[k], str) and item[k].strip()]
    if len(thinking) == 1 and not any(k in item for k in THOUGHT_KEYS) and any(k in item for k in STEP_MODEL_KEYS):
        added["thought"] = item[thinking[0]]  # ``thinking`` beside an ``action``: the step's thought
    if not any(k in item for k in STEP_MODEL_KEYS):
        for alias, words in (("thought", {"thought", "thoughts"}), ("action", {"action", "actions", "command"})):
            model = [k for k in item if key_words(k) & words and item[k] not in (None, "", [], {})]
            added.update({alias: item[model[0]]} if len(model) == 1 else {})
    if not any(k in item for k in STEP_ENV_KEYS):
        env = [k for k in item if key_words(k) & STEP_ENV_WORDS and not key_words(k) & (NOT_ENV_WORDS | STEP_MODEL_WORDS)
               and isinstance(item[k], (str, list, dict))]
        added.update({"observation": item[env[0]]} if len(env) == 1 else {})
    return {**item, **added} if added else item


def step_of(item: Any) -> dict | None:
    """The step ``item`` is: itself, or, for a wrapper (``{"step": {thought, action}, "observation": ...}``),
    the one object one or two levels down that is a step, with the wrapper's other keys beside it. Keys
    whose words name a step's parts (``next_action``, ``env_observation``) stand for them (``worded_step``)."""
    if not isinstance(item, dict) or speaker_of(item) is not None:
        return None
    if is_flat_step(worded := worded_step(item)):
        return worded
    # a child holding a step table's columns is a run of its own, not this item's step
    level = [(key, value) for key, value in item.items() if isinstance(value, dict) and column_steps(value) is None]
    for _ in range(2):
        steps = [(key, value) for key, value in level if is_flat_step(value)]
        if len(steps) == 1:
            key, step = steps[0]
            return worded_step({**{k: v for k, v in item.items() if k != key}, **step})
        level = [(key, inner) for _, value in level for key, inner in value.items() if isinstance(inner, dict)]
    return None


def is_step(item: Any) -> bool:
    return step_of(item) is not None


def is_task_record(item: Any) -> bool:
    """A run's opening record that holds its task and nothing a step holds (smolagents' ``TaskStep``: ``{task,
    task_images}``)."""
    return (isinstance(item, dict) and isinstance(item.get("task"), str) and bool(item["task"].strip())
            and not any(k in item for k in (*STEP_MODEL_KEYS, *STEP_ENV_KEYS)))


def is_result_record(item: Any) -> bool:
    """A record of what a step's call returned, logged apart from the step (``{timestamp, tool_result: {tool,
    output}}``): no step of its own, one key whose words name an output (``worded_step``'s observation)."""
    if not isinstance(item, dict) or step_of(item) is not None:
        return False
    worded = worded_step(item)
    return "observation" in worded and "observation" not in item and isinstance(worded["observation"], dict)


def is_step_list(items: Any) -> bool:
    """A list of ReAct-style steps: every item has something the model wrote, and some an observation; the
    first may be the record of the task the steps answer (``is_task_record``), and what a step's call returned
    may follow it as a record of its own (``is_result_record``)."""
    if not isinstance(items, list) or not items:
        return False
    body = items[1:] if len(items) > 1 and is_task_record(items[0]) else items
    steps = [step_of(item) for item in body[:200]]
    results = [step is None and is_result_record(item) for item, step in zip(body[:200], steps)]
    return (all(step or result for step, result in zip(steps, results)) and any(steps)
            and (any(results) or any(any(k in step for k in STEP_ENV_KEYS) or step_event(step) for step in steps if step)))


def step_event(step: dict) -> dict | None:
    """A tool call a step logs under a key of its own with what it returned (``using_tools: {tool_name,
    tool_input, tool_output}``): the step's action and its observation in one object."""
    return next((value for key, value in step.items() if key not in STEP_MODEL_KEYS and is_tool_event(value)
                 and any(value.get(k) is not None for k in CALL_RESULT_KEYS)), None)


def column_steps(value: Any) -> list | None:
    """A step table kept as columns of one object (``{thoughts: [...], actions: [...], observations:
    [...]}``) as its list of steps, or None. Columns may differ by one (a last action with no result)."""
    if not isinstance(value, dict):
        return None
    columns = {STEP_COLUMNS[k]: v for k, v in value.items() if k in STEP_COLUMNS and isinstance(v, list)}
    if not {"thought", "action", "response"} & set(columns) or not {"observation", "result", "output"} & set(columns):
        return None
    rows = max(len(column) for column in columns.values())
    if rows == 0 or any(len(column) < rows - 1 for column in columns.values()):
        return None
    steps = [{k: column[i] for k, column in columns.items() if i < len(column)} for i in range(rows)]
    return steps if is_step_list(steps) else None


# --- turns under keys no list names --------------------------------------------------------------

# Words a key that names who spoke holds (``speaker_id``, ``participant``, ``agent``); a column of other
# short labels (a level, a status) names a speaker only when its values are role aliases.
SPEAKER_KEY_WORDS = ("speak", "sender", "from", "author", "agent", "who", "participant", "persona", "character",
                     "player", "role", "actor")


def unwrap_turn(item: Any) -> dict | None:
    """The turn an envelope holds: an object naming no speaker of its own (or only an event kind) whose one
    child object is a turn (``{timestamp, payload: {role, content}}``; LangChain's serialised ``{lc, type:
    "constructor", kwargs: {type: "human", content}}``). The turn itself for a turn; None otherwise."""
    if not isinstance(item, dict):
        return None
    if speaker_of(item) is not None and has_text_or_calls(item):
        return item
    if any(isinstance(v, str) and (len(v) > 80 or "\n" in v) for v in item.values()) or is_call_record(item):
        return None  # an object with text of its own (a prompt beside its response) is no envelope
    inner = [value for value in item.values() if isinstance(value, dict)]
    turns = [value for value in inner if speaker_of(value) is not None and has_text_or_calls(value)]
    return turns[0] if len(turns) == 1 and len(inner) <= 2 else None


def wrapped_turns(items: Any) -> tuple[list, int] | None:
    """A log of envelopes around turns (see ``unwrap_turn``): at least two thirds of the entries hold a turn,
    the others no text under a content key. The turns and the number of entries left out, or None."""
    if not isinstance(items, list) or len(items) < 2 or not all(isinstance(i, dict) for i in items[:200]):
        return None
    opened = [unwrap_turn(item) for item in items]
    turns = [turn for turn in opened if turn is not None]
    if len(turns) < 2 or len(turns) * 3 < len(items) * 2 or all(turn is item for turn, item in zip(opened, items)):
        return None
    if any(turn is None and turn_text(content_of(item)).strip() for turn, item in zip(opened, items)):
        return None
    return (turns, len(items) - len(turns)) if is_turn_list(turns) else None


def lifted_turns(items: Any) -> list | None:
    """Steps that each hold their turn in one child object, the step's calls, results and metrics beside it
    (``{step_id, message: {role, content}, tool_calls, observation, metrics}``): each step as its turn, the
    step's own fields kept with it (the turn's win). None unless every step holds exactly one turn and the
    turns make a turn list."""
    if not isinstance(items, list) or len(items) < 2 or not all(isinstance(i, dict) for i in items[:200]):
        return None
    lifted = []
    for item in items:
        if speaker_of(item) is not None:
            return None
        held = [(k, v) for k, v in item.items() if isinstance(v, dict) and speaker_of(v) is not None
                and has_text_or_calls(v)]
        if len(held) != 1:
            return None
        key, turn = held[0]
        lifted.append({**{k: v for k, v in item.items() if k != key}, **turn})
    return lifted if is_turn_list(lifted) else None


def inferred_turns(items: Any) -> list | None:
    """A turn list whose speaker and text sit under keys no vocabulary names, found by their shape: one key
    of short one-line labels with few distinct values (each repeating), one key of longer text, in every
    item. The labels must be role aliases (``{"who": "assistant", "utterance_text": ...}``), or speaker
    names under a key that says so (``{"participant": "Alice", "said": ...}``). Returns the items as turns
    (``speaker``/``content``), or None."""
    if not isinstance(items, list) or len(items) < 2 or not all(isinstance(i, dict) for i in items[:200]):
        return None
    sample = items[:200]
    shared = [k for k in sample[0] if all(k in item for item in sample)]
    label, text = speaker_key(sample, shared), text_key(sample, shared)
    if label is None or text is None or label == text or not all(
            isinstance(item, dict) and label in item and text in item for item in items):
        return None  # keys the first 200 share, missing further on: no turn list
    rest = (*ROLE_KEYS, *CONTENT_KEYS)
    return [{**{k: v for k, v in item.items() if k not in rest and k not in (label, text)},
             "speaker": str(item[label]).strip(), "content": item[text]} for item in items]


def speaker_key(sample: list[dict], keys: list) -> str | None:
    """The key of ``sample`` whose values are speaker labels (see ``inferred_turns``)."""
    for key in keys:
        values = [item[key] for item in sample]
        if not all(isinstance(v, str) and v.strip() and len(v) <= 40 and "\n" not in v for v in values):
            continue
        names = {v.strip().lower() for v in values}
        if len(sample) >= 4 and len(names) * 2 > len(sample):
            continue
        roles = {ROLE_ALIASES.get(name) for name in names}
        if None not in roles and roles & {"assistant", "tool"} and len(roles) >= 2:
            return key
        if (None in roles and len(names) >= 2 and len(sample) >= 4 and alternating(values)
                and any(word in str(key).lower() for word in SPEAKER_KEY_WORDS)):
            return key
    return None


def alternating(labels: list[str]) -> bool:
    """Whether the speaker changes at most turns (a dialogue), not in long runs of one label (a table)."""
    changes = sum(a != b for a, b in itertools.pairwise(labels))
    return changes * 2 >= len(labels) - 1


IDENTIFIER = re.compile(r"[\w.:/+-]*")


def text_key(sample: list[dict], keys: list) -> str | None:
    """The key of ``sample`` holding the longest text on average (at least 20 characters): text in most
    items, else nothing (``null``: a turn that only calls a tool)."""
    best, best_mean = None, 19.0
    for key in keys:
        values = [item[key] for item in sample]
        texts = [v for v in values if isinstance(v, str)]
        if len(texts) * 2 <= len(values) or any(v is not None and not isinstance(v, str) for v in values):
            continue
        if all(IDENTIFIER.fullmatch(v.strip()) for v in texts):
            continue  # ids, hashes, timestamps: no one's words however long
        mean = sum(len(v) for v in texts) / len(texts) + (20 if key in CONTENT_KEYS else 0)
        if mean > best_mean:
            best, best_mean = key, mean
    return best


# --- call records and tool-call logs ------------------------------------------------------------


def first_present(item: dict, keys: tuple[str, ...]) -> Any:
    """The first of ``keys`` that ``item`` holds a non-empty value under, or None."""
    return next((item[k] for k in keys if item.get(k) not in (None, "", [], {})), None)


def response_of(item: dict) -> Any:
    """What a call record says the model returned: under a response key (``RESPONSE_KEYS``), else an API's own
    response object under any key that names a response (``raw_api_response: {object: chat.completion, choices}``,
    ``geminiResponse: {candidates}``)."""
    found = first_present(item, RESPONSE_KEYS)
    if isinstance(found, dict) and isinstance(prompt := first_present(item, PROMPT_KEYS), dict) and (
            written_turns(prompt) is not None and isinstance(said := first_present(found, RESPONSE_KEYS), str)):
        return said  # a call sent whole as its rendered messages: its result object's text (promptfoo's ``output``)
    if found is not None:
        return found
    if (said := model_said(item)) is not None:
        return said
    if (written := sole_product(item)) is not None:
        return written
    return next((v for k, v in item.items() if isinstance(v, dict) and ("choices" in v or "candidates" in v)
                 and "response" in set(re.split(r"[^a-z]+", re.sub(r"(?<=[a-z])([A-Z])", r"_\1", str(k)).lower()))), None)


# What a model's reply is called beside the side that said it (``assistant_answer``, ``bot_reply``, ``aiResponse``).
REPLY_WORDS = frozenset(("answer", "response", "reply", "message", "text", "output", "content"))


# A record's product is prose of at least this many words (a report, an essay): a field that long beside a request is
# what the run wrote, where no key names a response.
PRODUCT_WORDS = 50


def sole_product(item: dict) -> str | None:
    """What a run wrote for a request, where no key names a response (a research agent's ``{input: "NLP", report:
    "# A Comprehensive Deep-Dive ...", id, timestamp, mode}``): in a flat record (fields of text and numbers only),
    the one field at least ``PRODUCT_WORDS`` words long and three times the request's length, beside a request under
    a prompt key; None when no field or several are."""
    prompt = next((item[k] for k in PROMPT_KEYS if isinstance(item.get(k), str) and item[k].strip()), None)
    if prompt is None or any(isinstance(v, (dict, list)) for v in item.values()):
        return None  # a record that keeps more than fields of text (attempts, feedback lists) says more than this
    long = [v for k, v in item.items() if k not in PROMPT_KEYS and isinstance(v, str)
            and len(v.split()) >= max(PRODUCT_WORDS, 3 * len(prompt.split()))]
    return long[0] if len(long) == 1 else None


def ordered_words(key: Any) -> list[str]:
    """A key's words in order: ``assistantAnswer`` and ``assistant_answer`` are ``["assistant", "answer"]``."""
    return [w for w in re.split(r"[^a-z]+", re.sub(r"(?<=[a-z])([A-Z])", r"_\1", str(key)).lower()) if w]


def model_said(item: dict) -> str | None:
    """A call record's reply kept under a key of two words, the model's side and a reply (``assistant_answer``:
    a chatbot's log of exchanges), when exactly one such key holds text."""
    said = [v for k, v in item.items() if isinstance(v, str) and v.strip() and len(words := ordered_words(k)) == 2
            and ROLE_ALIASES.get(words[0]) == "assistant" and words[1] in REPLY_WORDS]
    return said[0] if len(said) == 1 else None


def prompt_messages(value: Any, where: str) -> list[dict[str, Any]]:
    """What a call was sent, as canonical messages: a message list as its turns (also each in an envelope,
    OpenInference's ``{message: {role, content}}``), text (or an object's text, else the object as JSON) as
    one user turn."""
    if isinstance(value, str) and (written := json_turns(value)) is not None:
        value = written  # a message list written as JSON text (a tracer's ``input``)
    if isinstance(value, dict) and not speaker_of(value) and isinstance(inner := first_present(value, PROMPT_KEYS), list):
        value = inner  # a run's inputs holding its message list (LangSmith's ``inputs: {messages: [...]}``)
    if isinstance(value, dict) and not speaker_of(value) and (written := written_turns(value)) is not None:
        value = written  # a prompt object keeping the messages it rendered as JSON text (promptfoo's ``raw``)
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
        value = value[0]  # one batch of messages (``messages: [[...]]``)
    value = item_turns(enveloped_turns(value))
    if isinstance(value, list) and value and all(isinstance(v, dict) and speaker_of(v) for v in value):
        return turn_messages(value)
    if isinstance(value, dict) and speaker_of(value):
        return turn_messages([value])
    if isinstance(value, dict) and set(value) <= {"args", "kwargs"} and isinstance(value.get("args"), list) and all(
            isinstance(v, str) for v in value["args"]) and value["args"] and not value.get("kwargs"):
        value = value["args"]  # a traced function's captured arguments (``{args: [prompt], kwargs: {}}``)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = "\n".join(value)
    text = turn_text(value) if not isinstance(value, dict) else turn_text(value) or json.dumps(value, ensure_ascii=False)
    return [message("user", text)] if text.strip() else []


# Responses API items a call was sent beside its messages: the model's earlier calls and their outputs.
ITEM_CALLS = frozenset({"function_call", "custom_tool_call"})
# ``function_call_result``: the OpenAI Agents SDK for JavaScript's name for a call's output (``callId``, camelCase).
ITEM_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output", "function_call_result"})


def type_of(value: Any) -> str:
    """An object's ``type`` when it is a string (a kind of another value shape names no kind), else ""."""
    kind = value.get("type") if isinstance(value, dict) else None
    return kind if isinstance(kind, str) else ""


def item_turns(value: Any) -> Any:
    """A list mixing turns with Responses API call items (``{type: function_call, name, arguments, call_id}``,
    ``{type: function_call_output, call_id, output}``) as turns: a call the model's, an output the tool's;
    else ``value``."""
    if not isinstance(value, list) or not value or not any(
            isinstance(v, dict) and type_of(v) in ITEM_CALLS | ITEM_OUTPUTS for v in value):
        return value
    turns = []
    for item in value:
        kind = type_of(item)
        if kind in ITEM_CALLS:
            turns.append({"role": "assistant", "content": "", "tool_calls": [
                {"id": item.get("call_id") or item.get("callId") or item.get("id"),
                 "function": {"name": item.get("name"), "arguments": item.get("arguments", item.get("input"))}}]})
        elif kind in ITEM_OUTPUTS:
            turns.append({"role": "tool", "content": item.get("output"),
                          "tool_call_id": str(item.get("call_id") or item.get("callId") or "")})
        elif isinstance(item, dict) and speaker_of(item):
            turns.append(item)
        else:
            return value
    return turns


def held_items(items: Any) -> list | None:
    """Run items that each hold their message or protocol item in one child object, the run's bookkeeping beside
    it (the OpenAI Agents SDK's ``generatedItems``: ``{type: tool_call_item, rawItem: {type: function_call, ...},
    agent: {name}}``): the held items as turns (``item_turns``). None unless every item holds exactly one, with
    no text of its own, and one at least is a call or a call's output."""
    if not isinstance(items, list) or not items or not all(isinstance(i, dict) for i in items[:200]):
        return None
    held = []
    for item in items:
        if speaker_of(item) is not None or any(isinstance(v, str) and (len(v) > 80 or "\n" in v)
                                               for k, v in item.items() if k != "output"):
            return None
        inner = [v for v in item.values() if isinstance(v, dict)
                 and (type_of(v) in ITEM_CALLS | ITEM_OUTPUTS or speaker_of(v) is not None)]
        if len(inner) != 1:
            return None
        held.append(inner[0])
    if not any(type_of(h) in ITEM_CALLS | ITEM_OUTPUTS for h in held):
        return None
    turns = item_turns(held)
    return turns if turns is not held and is_turn_list(turns) else None


def written_turns(value: dict) -> list | None:
    """The message list one text field of an object writes as JSON (``{raw: '[{"role": "system", ...}]', label}``),
    when exactly one does; else None."""
    written = [turns for v in value.values() if isinstance(v, str) and (turns := json_turns(v)) is not None]
    return written[0] if len(written) == 1 else None


def json_turns(text: str) -> list | None:
    """The message list a string writes as JSON (``'[{"role": "system", ...}, ...]'``; once more when the JSON
    is itself a string of it), else None."""
    for _ in range(2):
        if not text.lstrip().startswith(("[", '"[')) or len(text) > 20_000_000:
            return None
        try:
            value = json.loads(text)
        except ValueError:
            return None
        if isinstance(value, list):
            return value if value and all(isinstance(v, dict) and speaker_of(v) for v in value) else None
        if not isinstance(value, str):
            return None
        text = value
    return None


def json_message(text: str) -> dict | None:
    """The message a string writes as a JSON object naming its speaker (``'{"role": "assistant", ...}'``)."""
    if not text.lstrip().startswith("{") or len(text) > 2_000_000:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) and speaker_of(value) and has_text_or_calls(value) else None


def enveloped_turns(value: Any) -> Any:
    """A list whose every item is a turn in an envelope (``unwrap_turn``) as the turns; else ``value``."""
    if not (isinstance(value, list) and value and all(isinstance(v, dict) for v in value)) or all(
            speaker_of(v) for v in value):
        return value
    turns = [unwrap_turn(v) for v in value]
    return turns if all(t is not None for t in turns) else value


def response_messages(value: Any, where: str) -> list[dict[str, Any]]:
    """What a call returned, as model turns: text, a message, an API completion's first choice
    (``{choices: [{message | text}]}``), a list of messages, or the first of several sampled texts."""
    value = enveloped_turns(value)
    if isinstance(value, str) and (written := json_message(value)) is not None:
        value = written  # a message written as JSON text (Langfuse's ``output``)
    if isinstance(value, str):
        return [message("assistant", value)] if value.strip() else []
    if isinstance(value, list):
        if value and all(isinstance(v, dict) for v in value):
            return [m for v in value for m in response_messages(v, where)]
        return next((response_messages(v, where) for v in value if isinstance(v, str) and v.strip()), [])
    if not isinstance(value, dict):
        return []
    if isinstance(value.get("output"), list) and value["output"] and all(
            isinstance(v, dict) and (speaker_of(v) or type_of(v) in ITEM_CALLS) for v in value["output"]):
        return [m for v in item_turns(value["output"]) for m in response_messages(v, where)]  # a Responses object
    if type_of(value) in ITEM_CALLS:
        return response_messages(item_turns([value])[0], where)
    generations = value.get("generations")  # LangChain's LLMResult: ``generations: [[{text, message}]]``
    if isinstance(generations, list) and generations and isinstance(generations[0], list):
        generations = generations[0]
    if isinstance(generations, list) and generations and isinstance(generations[0], dict):
        first = generations[0]
        return response_messages(first.get("message") if isinstance(first.get("message"), dict) else first.get("text"),
                                 where)
    choices = value.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        choice = choices[0]
        return response_messages(choice.get("message") if isinstance(choice.get("message"), dict)
                                 else choice.get("text"), where)
    if speaker_of(value) and ROLE_ALIASES.get(speaker_of(value).lower()) not in (None, "assistant"):
        return []
    text, calls = turn_text(content_of(value)), turn_calls(value, where)
    reasoning = string(value.get("reasoning_content")) or string(value.get("reasoning"))
    return [message("assistant", text, reasoning=reasoning, tool_calls=calls)] if text.strip() or calls else []


def logged_prompt(item: Any) -> bool:
    """A model call logged whole (a trace's LLM span): what it was sent is a message list, every element
    naming its speaker, and the object holds no text of its own. Its name (``rerank_chunks``) or kind
    (``type: llm``) then says what the call was, not who spoke: no tool's input is a message list."""
    prompt = first_present(item, PROMPT_KEYS) if isinstance(item, dict) else None
    return (isinstance(prompt, list) and all(isinstance(v, dict) and speaker_of(v) for v in prompt)
            and not any(item.get(k) not in (None, "", [], {}) for k in CONTENT_KEYS))


# A traced span's kind that says it is a model call (Langfuse's ``type: GENERATION``, LangSmith's ``run_type: llm``).
SPAN_KIND_KEYS = ("type", "run_type", "span_kind", "spanKind", "observation_type", "observationType")
MODEL_CALL_KINDS = frozenset({"generation", "llm"})


def model_call_kind(item: dict) -> bool:
    """Whether a record's kind names it a model call: its ``name`` then names the call, not a tool or speaker."""
    return any(isinstance(item.get(k), str) and item[k].lower() in MODEL_CALL_KINDS for k in SPAN_KIND_KEYS)


def is_call_record(item: Any) -> bool:
    """An object holding what one model call was sent and what it returned."""
    if not isinstance(item, dict) or ((speaker_of(item) is not None or call_name(item)) and not logged_prompt(item)
                                      and not model_call_kind(item)):
        return False
    prompt, response = first_present(item, PROMPT_KEYS), response_of(item)
    if (prompt is None and not empty_request(item)) or response is None:
        return False
    if all(is_count(v) for v in (prompt, response) if v is not None):
        return False  # token counts (``usageDetails: {input: "337", output: "57"}``) are no call's words
    try:
        return (prompt is None or bool(prompt_messages(prompt, "call"))) and bool(response_messages(response, "call"))
    except TranscriptShapeError:
        return False


def is_count(value: Any) -> bool:
    """A number, or a string that is only one (``"337"``)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return True
    return isinstance(value, str) and re.fullmatch(r"\s*-?\d[\d_,.]*\s*", value) is not None


def empty_request(item: dict) -> bool:
    """A call record published with its request left empty (Alpaca's ``input: ""``, an instruction that needs
    no input): the instruction beside it, or above it, is the request (``shape.opening`` reads it as the task)."""
    return any(item.get(k) == "" for k in PROMPT_KEYS) and any(
        isinstance(item.get(k), str) and item[k].strip() for k in RESPONSE_KEYS)


def call_prompt(call: dict, where: str) -> list[dict[str, Any]]:
    """What a call record was sent, as messages; none for an empty request (``empty_request``)."""
    value = first_present(call, PROMPT_KEYS)
    return [] if value is None else prompt_messages(value, where)


def is_call_list(items: Any) -> bool:
    """Call records; a logged call that returned nothing (an errored span) among them is one too."""
    sample = items[:200] if isinstance(items, list) else []
    return any(is_call_record(item) for item in sample) and all(
        is_call_record(item) or (logged_prompt(item) and first_present(item, RESPONSE_KEYS) is None) for item in sample)


def said(messages: list[dict[str, Any]]) -> str:
    return "\n".join(m["content"] + "".join(c["name"] + c["arguments"] for c in m["tool_calls"]) for m in messages)


def is_call_run(calls: list) -> bool:
    """Whether a list of call records is one run (a call was sent what the call before it returned: the
    model saw its own output) rather than a dataset of separate calls (one transcript each)."""
    try:
        sent = [said(call_prompt(c, "call")) for c in calls]
        returned = [said(response_messages(first_present(c, RESPONSE_KEYS), "call")).strip() for c in calls]
    except TranscriptShapeError:
        return True
    return any(reply and reply[:200] in sent[i + 1] for i, reply in enumerate(returned[:-1]))  # the next prompt


def same_turn(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a["role"] == b["role"] and a["content"].strip() == b["content"].strip()


def new_part(prompt: list[dict[str, Any]], so_far: list[dict[str, Any]], previous: str) -> list[dict[str, Any]]:
    """What a later call's prompt adds to the run so far: past the turns it repeats; for a prompt that
    restates the run as one text, past the previous prompt and response it starts with; else its
    last new user content (the turns after its last model turn)."""
    shared = 0
    while shared < min(len(prompt), len(so_far)) and same_turn(prompt[shared], so_far[shared]):
        shared += 1
    if shared:
        return prompt[shared:]
    if len(prompt) == 1 and previous and prompt[0]["content"].startswith(previous):
        rest = prompt[0]["content"][len(previous):]
        last = next((m["content"] for m in reversed(so_far) if m["role"] == "assistant"), "")
        rest = rest.lstrip()[len(last.strip()):] if last.strip() and rest.lstrip().startswith(last.strip()) else rest
        return [message("user", rest.strip())] if rest.strip() else []
    last_model = max((i for i, m in enumerate(prompt) if m["role"] == "assistant"), default=-1)
    tail = [m for m in prompt[last_model + 1:] if m["role"] != "system"]
    return tail or [m for m in prompt if m["role"] == "user"][-1:]


def call_messages(calls: list) -> list[dict[str, Any]]:
    """A run's call records as one conversation: the first prompt whole, each later prompt's new part
    (``new_part``), each response as a model turn (unless the prompt already ends with it)."""
    messages: list[dict[str, Any]] = []
    previous = ""
    for index, call in enumerate(calls):
        where = f"call {index}"
        prompt = call_prompt(call, where)
        messages += prompt if not messages else new_part(prompt, messages, previous)
        previous = prompt[0]["content"] if len(prompt) == 1 else ""
        for reply in response_messages(response_of(call), where):
            if not (messages and same_turn(messages[-1], reply) and not reply["tool_calls"]):
                messages.append(reply)
    return messages


def call_name(item: dict) -> str:
    """A tool-call event's tool name (``{"function": {"name"}}`` too), or ""."""
    value = next((item[k] for k in CALL_NAME_KEYS if k in item), None)
    value = value.get("name") if isinstance(value, dict) else value
    return value if isinstance(value, str) and value.strip() and "\n" not in value else ""


def is_schema(value: Any) -> bool:
    return isinstance(value, dict) and ("properties" in value or value.get("type") == "object")


def is_tool_event(item: Any) -> bool:
    """One logged tool call: a name and arguments (not a tool's declared JSON schema), no speaker."""
    if not isinstance(item, dict) or speaker_of(item) is not None or not call_name(item):
        return False
    holder = item["function"] if isinstance(item.get("function"), dict) else item
    arguments = next((holder[k] for k in CALL_ARGUMENT_KEYS if k in holder), None)
    return any(k in holder for k in CALL_ARGUMENT_KEYS) and not is_schema(arguments) and "description" not in holder


def is_tool_event_list(items: Any, key: str) -> bool:
    return (isinstance(items, list) and bool(items) and key.lower() not in DECLARATION_KEYS
            and all(is_tool_event(item) for item in items[:200]))


def tool_event_messages(events: list) -> list[dict[str, Any]]:
    """A log of tool calls with no model text: each call a model turn (with any thought it recorded),
    each result a tool turn."""
    messages = []
    for index, event in enumerate(events):
        where = f"event {index}"
        holder = event["function"] if isinstance(event.get("function"), dict) else event
        arguments = next(holder[k] for k in CALL_ARGUMENT_KEYS if k in holder)
        call_id = str(event.get("id") or event.get("call_id") or event.get("tool_call_id") or "")
        thought = "\n".join(turn_text(event[k]) for k in ("thought", "reasoning", "log") if event.get(k))
        messages.append(message("assistant", thought, tool_calls=[tool_call(call_id, call_name(event), arguments,
                                                                             where=where)]))
        result = next((event[k] for k in CALL_RESULT_KEYS if k in event and event[k] is not None), None)
        if result is not None:
            text = turn_text(result) if isinstance(result, (str, list)) else json.dumps(result, ensure_ascii=False)
            messages.append(message("tool", text, tool_call_id=call_id, observation=True))
    return messages


def call_groups(value: Any) -> list[list] | None:
    """A list of logged calls grouped per entry (an entry: one call, a list of calls, or empty for none),
    or None when some entry is anything else or no entry holds a call."""
    if not isinstance(value, list) or not value:
        return None
    groups = [[] if entry in (None, "", [], {}) else entry if isinstance(entry, list) else [entry] for entry in value]
    calls = [call for group in groups for call in group]
    return groups if calls and all(is_tool_event(call) for call in calls) else None


def parallel_events(node: Any) -> list | None:
    """Calls and their results kept in two lists of one object, entry by entry (``{api_result_ls: [[call]],
    call_result_ls: ["0.94"]}``): the calls as tool-call events, each entry's result on its last call."""
    if not isinstance(node, dict):
        return None
    for key, value in node.items():
        groups = call_groups(value) if str(key).lower() not in DECLARATION_KEYS else None
        if groups is None:
            continue
        for other, results in node.items():
            if other != key and isinstance(results, list) and len(results) == len(groups) and any(
                    word in str(other).lower() for word in ("result", "observation", "output", "response")):
                events = []
                for group, result in zip(groups, results):
                    events += [*group[:-1], {**group[-1], "result": result}] if group else []
                return events
    return None


def indexed_items(value: Any) -> list | None:
    """An object indexed ``"0"``, ``"1"``... or by numbered names (``"step_1"``, ``"Action Step 1"``: one
    name, then the number) as its list of values in index order."""
    if not isinstance(value, dict) or not value:
        return None
    keyed, names = [], set()
    for key, item in value.items():
        numbered = NUMBERED_KEY.match(str(key))
        if numbered is None:
            return None
        names.add((numbered.group(1) or "").lower())
        keyed.append((int(numbered.group(2)), item))
    return [item for _, item in sorted(keyed, key=lambda pair: pair[0])] if len(names) == 1 else None


# --- turns -> canonical messages ----------------------------------------------------------------


def turn_text(value: Any) -> str:
    """Text of a content value: a string, text blocks or strings in a list, or an object's text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [turn_text(part) for part in value if isinstance(part, str) or (
            block_kind(part) not in CALL_BLOCK_TYPES | RESULT_BLOCK_TYPES and not is_thought_part(part))]
        return "\n".join(part for part in parts if part)
    if isinstance(value, dict):
        for key in ("text", "content", "value", "parts", "message"):
            if key in value:
                return turn_text(value[key])
        return ""
    return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else ""


def block_kind(block: Any) -> str:
    """A content block's kind: its ``type``, else, for a block named by its one key (``functionCall``),
    ``function_call`` or ``function_response``."""
    if kind := block_type(block):  # camelCase and hyphenated kinds as their snake_case names (pi's ``toolCall``,
        # the Vercel AI SDK's ``tool-call`` / ``tool-result``)
        return (re.sub(r"(?<=[a-z])([A-Z])", r"_\1", kind).lower() if not kind.islower() else kind).replace("-", "_")
    if isinstance(block, dict) and any(isinstance(block.get(k), dict) for k in KEYED_CALL_BLOCKS):
        return "function_call"
    if isinstance(block, dict) and any(isinstance(block.get(k), dict) for k in KEYED_RESULT_BLOCKS):
        return "function_response"
    return ""


def keyed_body(block: dict, keys: tuple[str, ...]) -> dict:
    """The object a block named by its key holds (``{"functionCall": {...}}`` -> ``{...}``), else the block."""
    return next((block[k] for k in keys if isinstance(block.get(k), dict)), block)


def is_thought_part(part: Any) -> bool:
    """A text part the model marked as its thinking (Gemini's ``{"text", "thought": true}``), or whose kind says so
    (opencode's ``{type: reasoning, text}``)."""
    return isinstance(part, dict) and isinstance(part.get("text"), str) and (
        part.get("thought") is True or block_type(part) in ("reasoning", "thinking"))


# Where a turn keeps the model's readable reasoning beside its text (``reasoningText``: GitHub Copilot CLI's events).
REASONING_KEYS = ("reasoning_content", "reasoning", "thinking", "reasoning_text", "reasoningText")


def reasoning_of(item: dict) -> str:
    """The model's reasoning a turn keeps under a reasoning key, else in its parts or thought summaries."""
    return next((text for k in REASONING_KEYS if (text := string(item.get(k)))), "") or thought_parts(item)


def thought_parts(item: dict) -> str:
    """The turn's thinking kept in its parts, or as summaries beside them (Gemini CLI's ``thoughts: [{subject,
    description}]``)."""
    content = content_of(item)
    if isinstance(content, list) and (parts := [p["text"] for p in content if is_thought_part(p)]):
        return "\n".join(parts)
    summaries = item.get("thoughts") if isinstance(item.get("thoughts"), list) else []
    return "\n\n".join(": ".join(s[k] for k in ("subject", "description") if isinstance(s.get(k), str) and s[k].strip())
                       for s in summaries if isinstance(s, dict) and isinstance(s.get("description"), str))


# Kinds of content block a turn may hold alone, as one object where a list of blocks is usual.
LONE_BLOCK_KINDS = CALL_BLOCK_TYPES | RESULT_BLOCK_TYPES | {"text", "thinking", "reasoning"}


def content_of(item: dict) -> Any:
    for key in CONTENT_KEYS:
        if key in item:
            value = item[key]
            if key == "data" and isinstance(value, dict):  # LangChain: {"type": "human", "data": {"content"}}
                return value.get("content", value.get("text"))
            if isinstance(value, dict) and block_type(value) and block_kind(value) in LONE_BLOCK_KINDS:
                return [value]  # one block where a list is usual (a transcript written a part per line)
            return value
    return None


def lone_block(item: Any) -> bool:
    """Whether a turn holds one content block as an object, not a list (a transcript written a part per line:
    the model's thinking, words and each call on lines of their own)."""
    value = next((item[k] for k in CONTENT_KEYS if k in item), None) if isinstance(item, dict) else None
    return isinstance(value, dict) and bool(block_type(value)) and block_kind(value) in LONE_BLOCK_KINDS


# A call record's fields that are not its arguments.
CALL_OWN_FIELDS = frozenset({"name", "tool_name", "tool", "toolName", "id", "call_id", "toolCallId", "tool_id", "type",
                             "status"})


def turn_calls(item: dict, where: str) -> list[dict[str, Any]]:
    """Calls in ``tool_calls``/``function_call`` and in ``tool_use``/``tool_call`` content blocks."""
    raw = listed_call_records(item)
    extra = item.get("additional_kwargs")  # LangChain's serialised AIMessage keeps the API's calls there too
    if not raw and isinstance(extra, dict) and isinstance(extra.get("tool_calls"), list):
        raw = extra["tool_calls"]
    raw = [keyed_body(call, KEYED_CALL_BLOCKS) if isinstance(call, dict) and len(call) == 1 else call
           for call in raw]  # ``{tool_call: {id, function}}``: OpenInference's entries, each under its kind
    raw = [*raw, *([item["function_call"]] if isinstance(item.get("function_call"), dict) else [])]
    content = content_of(item)
    raw += [held_call(b) for b in content if block_kind(b) in CALL_BLOCK_TYPES] if isinstance(content, list) else []
    calls = []
    for call in raw:
        if not isinstance(call, dict):
            continue
        function = call["function"] if isinstance(call.get("function"), dict) else call
        function = settled(function)
        name = function.get("name") or function.get("tool_name") or function.get("tool") or function.get("toolName")
        arguments = next((function[k] for k in ("arguments", "input", "args", "parameters", "params")
                          if k in function), None)
        if arguments is None and call is function:  # arguments kept as the call's own fields (``{tool: Read, file}``)
            arguments = {k: v for k, v in call.items() if k not in CALL_OWN_FIELDS} or None
        if isinstance(name, str) and name:
            calls.append(tool_call(call.get("id") or call.get("call_id") or call.get("toolCallId") or call.get("tool_id"),
                                   name, arguments, where=where))
    return calls or own_call(item, where)


def held_call(block: dict) -> dict:
    """The call a block holds under its kind's key (``{"functionCall": {...}}``), keeping the block's own id
    (Goose's ``{type: toolRequest, id, toolCall: {...}}``), else the block."""
    body = keyed_body(block, KEYED_CALL_BLOCKS)
    return {**body, "id": block["id"]} if body is not block and "id" not in body and block.get("id") else body


def held_result(block: dict) -> dict:
    """The result a block holds under its kind's key (``{"functionResponse": {...}}``), keeping the block's id."""
    body = keyed_body(block, KEYED_RESULT_BLOCKS)
    return {**body, "id": block["id"]} if body is not block and "id" not in body and block.get("id") else body


def settled(value: Any) -> Any:
    """What a ``{status, value}`` result envelope holds (a Rust ``Result`` serialised: Goose's ``toolCall`` and
    ``toolResult``), else ``value``; the id the envelope's holder gave it is kept."""
    if isinstance(value, dict) and set(value) - {"id"} == {"status", "value"} and value["value"] is not None:
        inner = value["value"]
        return {**inner, **({"id": value["id"]} if "id" in value and "id" not in inner else {})} if isinstance(
            inner, dict) else {"content": inner, **({"id": value["id"]} if "id" in value else {})}
    return value


# A model's turn that keeps its one call in fields of its own (CAMEL's ``FunctionCallingMessage``: ``func_name``,
# ``args``, ``tool_call_id``); a bare ``name`` is the speaker's, never a call's.
OWN_CALL_NAME_KEYS = ("func_name", "function_name", "tool_name")
CALL_ID_KEYS = ("tool_call_id", "call_id", "id")


def own_call(item: dict, where: str) -> list[dict[str, Any]]:
    name = next((item[k] for k in OWN_CALL_NAME_KEYS if isinstance(item.get(k), str) and item[k].strip()), None)
    if name is None or not any(key in item for key in CALL_ARGUMENT_KEYS):
        return []
    arguments = literal_arguments(next(item[k] for k in CALL_ARGUMENT_KEYS if k in item))
    return [tool_call(next((item[k] for k in CALL_ID_KEYS if item.get(k)), ""), name, arguments, where=where)]


def literal_arguments(value: Any) -> Any:
    """Arguments written as a Python literal (``"{'viewport_limit': None}"``: a Python agent's ``str(dict)``) as
    the object they stand for, so the call is well formed; JSON text, or text that is neither, as it is."""
    if not isinstance(value, str) or len(value) > 100_000:
        return value
    try:
        json.loads(value)
        return value
    except ValueError:
        pass
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return value
    return parsed if isinstance(parsed, dict) else value


def answered_call(item: dict) -> dict[str, Any] | None:
    """A tool's turn with no content of its own that answers a call by its id and keeps the result beside it."""
    call_id = next((item[k] for k in ("tool_call_id", "call_id") if isinstance(item.get(k), str) and item[k]), None)
    result = next((item[k] for k in CALL_RESULT_KEYS if k != "content" and item.get(k) is not None), None)
    if call_id is None or result is None:
        return None
    text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    return message("tool", text, tool_call_id=call_id, name=string(item.get("func_name")), observation=True)


def stated_call(block: Any) -> dict | None:
    """A part that keeps one call with its state (opencode's ``{type: tool, tool, callID, state: {status, input,
    output}}``) as a call record ``{id, name, input, result}``; None for any other part."""
    state = block.get("state") if isinstance(block, dict) else None
    if block_kind(block) != "tool" or not isinstance(state, dict) or not isinstance(block.get("tool"), str):
        return None
    result = next((state[k] for k in ("output", "error") if state.get(k) not in (None, "")), None)
    return {"id": str(block.get("callID") or block.get("callId") or block.get("call_id") or block.get("id") or ""), "name": block["tool"],
            "input": state.get("input", {}), "result": result}


def is_listed_call(item: Any) -> bool:
    """A call record in a turn's list of calls: a name and arguments (a ``type`` beside them, such as
    ``function``, is its kind, not a speaker), no declared schema or description."""
    if not isinstance(item, dict) or not call_name(item) or "description" in item:
        return False
    arguments = next((item[k] for k in CALL_ARGUMENT_KEYS if k in item), None)
    return any(k in item for k in CALL_ARGUMENT_KEYS) and not is_schema(arguments)


def listed_call_records(item: dict) -> list:
    """A turn's call records: under ``tool_calls``, or ``toolCalls`` (Gemini CLI's sessions, camelCase), else under
    any key whose list holds only logged calls, each a name and its arguments (``is_tool_event``: GitHub Copilot
    CLI's ``toolRequests: [{toolCallId, name, arguments}]``; a declared tool's schema and description are none)."""
    records = list(next((item[k] for k in ("tool_calls", "toolCalls") if isinstance(item.get(k), list)), [])) or next(
        (list(v) for k, v in item.items() if isinstance(v, list) and v and str(k).lower() not in DECLARATION_KEYS
         and k not in CONTENT_KEYS and all(is_listed_call(c) for c in v[:200])), [])  # content blocks: turn_calls
    content = content_of(item)
    return records + ([call for b in content if (call := stated_call(b))] if isinstance(content, list) else [])


def results_inside_calls(item: dict, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool turns for the results a turn's call records keep inside themselves (Gemini CLI's ``toolCalls: [{id,
    name, args, result: [{functionResponse: {response: {output}}}], status}]``), each answering its call."""
    ids = {call["id"] for call in calls}
    out = []
    for record in listed_call_records(item):
        if not isinstance(record, dict) or record.get("result") in (None, "", []):
            continue
        call_id = str(record.get("id") or record.get("call_id") or "")
        if call_id in ids and (text := inner_result_text(record["result"])).strip():
            out.append(message("tool", text, tool_call_id=call_id, observation=True))
    return out


def inner_result_text(value: Any) -> str:
    """A result kept as text, as parts (``{text}``, ``{functionResponse: {response: {output | error}}}``) or as
    data: its text, else its JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for part in value if (t := inner_result_text(part)))
    if isinstance(value, dict):
        if isinstance(value.get("text"), str):
            return value["text"]
        response = keyed_body(value, KEYED_RESULT_BLOCKS).get("response")
        if isinstance(response, dict):
            inner = next((response[k] for k in ("output", "error", "content", "result") if response.get(k) is not None), None)
            return inner_result_text(inner) if inner is not None else json.dumps(response, ensure_ascii=False)
        if isinstance(response, str):
            return response
    return "" if value is None else json.dumps(value, ensure_ascii=False)


def result_blocks(item: dict) -> list[dict[str, Any]]:
    content = content_of(item)
    blocks = [settled(held_result(b)) for b in content
              if block_kind(b) in RESULT_BLOCK_TYPES] if isinstance(content, list) else []
    return [message("tool", result_text(b), tool_call_id=str(b.get("tool_use_id") or b.get("call_id") or b.get(
        "toolCallId") or b.get("tool_id") or b.get("id") or ""), observation=True) for b in blocks]


def result_text(block: dict) -> str:
    """What a result block returned: its ``content``/``output`` text, else its ``response``/``result``
    (text, or an object's ``output``, else the object as JSON)."""
    for key in ("content", "output", "response", "result"):
        value = block.get(key)
        if isinstance(value, dict) and isinstance(value.get("output"), str):
            value = value["output"]
        elif isinstance(value, dict) and value.get("type") in ("text", "error-text") and isinstance(value.get("value"), str):
            value = value["value"]  # the AI SDK's typed output (``{type: text, value}``)
        if isinstance(value, (str, list)) and (text := turn_text(value)):
            return text
        if isinstance(value, dict):
            return json.dumps(value, ensure_ascii=False)
    return ""


def speaker_roles(items: list, configured: dict[str, str] | None = None) -> dict[str, str]:
    """Each speaker's canonical role: as ``configured`` (a source's ``speakers``), else its alias, else by
    what it does (a name whose turns call tools, or that a tool's turn answers, is the model) and by position (the first other name to
    speak set the task, every other name is the model)."""
    roles: dict[str, str] = {}
    configured = configured or {}
    callers = {speaker_of(item) for item in items if isinstance(item, dict) and (item.get("tool_calls") or item.get(
        "function_call"))}
    callers |= {speaker_of(item) for item, after in itertools.pairwise(items)  # a tool answers what called it
                if isinstance(item, dict) and isinstance(after, dict) and is_tool_role(after) and not is_tool_role(item)}
    first_name = None
    # the model named by its role (``agent``) and no person by theirs, beside parties named by who they are
    # (``buyer``, ``seller``): the names are the people the model talks with, not more models
    aliased = {ROLE_ALIASES.get((speaker_of(item) or "").lower()) for item in items if isinstance(item, dict)}
    model_named = not configured and "assistant" in aliased and "user" not in aliased
    for item in items:
        speaker = speaker_of(item) or ""
        if speaker in roles:
            continue
        alias = configured.get(speaker) or ROLE_ALIASES.get(speaker.lower())
        if alias is None and speaker in callers:
            alias = "assistant"
        if alias is None:
            first_name = first_name or speaker
            alias = "user" if (speaker == first_name and "user" not in roles.values()) or model_named else "assistant"
        roles[speaker] = alias
    if "user" in roles.values() and "assistant" not in roles.values() and sum(
            roles.get(speaker_of(item) or "") == "system" for item in items if isinstance(item, dict)) >= 2:
        # a dialogue corpus's ``SYSTEM`` speaks turn after turn: the dialogue system, the model's side
        roles = {name: "assistant" if role == "system" else role for name, role in roles.items()}
    return roles


def inner_turn(item: dict) -> dict:
    """A turn whose content is itself a turn (an event ``{author: agent, content: {role: "model", parts:
    [...]}}``) as that inner turn, its role alias deciding, the outer speaker kept as its name."""
    inner = content_of(item)
    if not isinstance(inner, dict) or (speaker_of(inner) or "").lower() not in ROLE_ALIASES or not any(
            key in inner for key in CONTENT_KEYS):
        return item
    outer = speaker_of(item) or ""
    if outer.lower() not in ROLE_ALIASES:
        return {**inner, "name": outer}
    # both name a role: the record's is the backend's (CAMEL keeps a tool's result, ``role_at_backend:
    # function``, in a message whose ``role_type`` is the agent's ``assistant``)
    return {**inner, "role": outer} if ROLE_ALIASES[outer.lower()] != ROLE_ALIASES[speaker_of(inner).lower()] else inner


CALL_EVENT = "_call_event"  # a turn made of one logged call event, joined to the model's turn before it


def requested_turn(item: Any) -> Any:
    """A person's event that names its kind but keeps its words in the event's raw record (``{role: user, kind:
    define_outcome, raw: {description: ...}}``), with those words as its content; else the item."""
    if not (isinstance(item, dict) and isinstance(item.get("kind"), str) and content_of(item) in (None, "")
            and ROLE_ALIASES.get(str(speaker_of(item)).lower()) == "user"):
        return item
    stated = next((v[k] for v in item.values() if isinstance(v, dict) for k in ("description", *TASK_KEYS)
                   if isinstance(v.get(k), str) and len(v[k].split()) >= 3), None)
    return {**item, "content": stated} if stated else item


def kinded_turn(item: dict) -> dict | None:
    """A turn whose ``kind`` beside its speaker names what it is (a managed agent's event log: ``{role: agent,
    kind: tool_use, tool, content}``): a call is the model's call (``content`` its arguments), a result the
    tool's turn, a kind that carries no text (``thinking`` logged without it) no turn (None); else the item."""
    kind = item.get("kind")
    role = ROLE_ALIASES.get(str(speaker_of(item)).lower())
    if role == "user":
        return requested_turn(item)
    if not isinstance(kind, str) or role != "assistant":
        return item
    words = key_words(kind)
    if "tool" in words and words & {"use", "call", "request"}:
        name = string(item.get("tool")) or string(item.get("name"))
        return {"role": "assistant", "tool_calls": [{"id": string(item.get("id")) or string(item.get("tool_use_id")),
                                                     "name": name, "arguments": content_of(item)}],
                CALL_EVENT: True} if name else item
    if "tool" in words and words & {"result", "output", "response"}:
        return {"role": "tool", "content": content_of(item), "tool_call_id": string(item.get("tool_use_id"))}
    return None if content_of(item) in (None, "") and not item.get("tool_calls") else item


def with_spoken_strings(items: list) -> list:
    """A list of turns with each bare string that follows the model's turn as the person's message: Gemini's API
    takes a string for the user's content, and Gemini CLI's error report keeps the request that failed so, after
    the history it was sent with."""
    return [{"role": "user", "content": item} if isinstance(item, str) and item.strip() and index and isinstance(
        items[index - 1], dict) and ROLE_ALIASES.get((speaker_of(items[index - 1]) or "").lower()) == "assistant"
        else item for index, item in enumerate(items)]


def turn_messages(items: list, speakers: dict[str, str] | None = None) -> list[dict[str, Any]]:
    items = with_spoken_strings(items)
    items = [inner_turn(item) if isinstance(item, dict) else item for item in items]
    items = [turn for item in items if (turn := kinded_turn(item) if isinstance(item, dict) else item) is not None]
    roles = speaker_roles(items, speakers)
    messages = []
    for index, item in enumerate(items):
        where = f"turn {index}"
        if not isinstance(item, dict):
            raise TranscriptShapeError(f"{where} is a {type(item).__name__}, not an object")
        speaker = speaker_of(item) or ""
        role = roles.get(speaker, "assistant")
        if role == "tool" and content_of(item) is None and (results := listed_results(item)):
            for result in results:  # several results in one record: a tool turn each
                messages += tool_turn_messages(result, where)
            continue
        if role == "tool" and content_of(item) is None:  # a tool's turn logging the call it answers
            messages += tool_turn_messages(item, where)
            continue
        if role == "tool" and content_of(item) == "" and (answered := answered_call(item)) is not None:
            messages.append(answered)  # the result beside an empty content, answering a call by its id (CAMEL)
            continue
        if role == "tool" and (calls := listed_calls(content_of(item), where)):
            messages.append(message("assistant", "", tool_calls=calls))  # the model's calls shown under the tool
            continue
        if role == "tool" and is_declaration(content_of(item)):
            continue  # a tool's declaration (name, description, parameters) listed among the turns: no result
        if role == "tool" and (results := result_blocks(item)):
            messages += results  # a tool's turn made of typed result blocks (the AI SDK's ``tool-result`` parts)
            continue
        text = turn_text(content_of(item))
        if role == "tool" and not text.strip() and isinstance(content_of(item), (dict, list)) and content_of(item):
            text = json.dumps(content_of(item), ensure_ascii=False)  # a result that is data, not text
        if role == "user" and (results := result_blocks(item)):
            messages += results + ([message("user", text)] if text.strip() else [])
            continue
        calls = turn_calls(item, where) if role == "assistant" else []
        if role == "assistant" and not calls and (logged := nested_calls(item)):
            if all(result is None for _, result in logged):  # a step's calls, its results kept apart (ATIF)
                messages += step_call_messages(item, logged, text, speaker, where)
                continue
            messages += logged_call_messages(logged, where)  # the calls came before the text that reports them
        if speaker.lower().replace(" ", "_").replace("-", "_") in ("function_call", "tool_call") and not calls:
            content = content_of(item)  # the call as JSON text, or as the object itself
            calls = text_call(text if not isinstance(content, dict) else json.dumps(content), where)
            text = "" if calls else text
        name = speaker if ROLE_ALIASES.get(speaker.lower()) is None else string(item.get("name"))
        reasoning = reasoning_of(item)
        if role != "tool" and speaker and name == speaker and not text.strip() and not calls and not reasoning:
            continue  # a named participant's record that says nothing (a game's empty narration) is no turn;
            # a tool's empty output is one
        if item.get(CALL_EVENT) and messages and messages[-1]["role"] == "assistant" and not messages[-1]["observation"]:
            messages[-1]["tool_calls"] = [*messages[-1]["tool_calls"], *calls]  # the call its model turn made
            continue
        messages.append(message(role, text, reasoning=reasoning, tool_calls=calls,
            tool_call_id=str(item.get("tool_call_id") or "") if role == "tool" else "", name=name,
            observation=role == "tool"))  # a model's turn answers no call: an id beside its own call names that call
        if calls and role == "assistant" and not (index + 1 < len(items) and isinstance(items[index + 1], dict)
                                                   and is_tool_role(items[index + 1])):
            messages += results_inside_calls(item, calls)  # each call's result kept inside its record
        if calls and item.get("observation") is not None and not (
                index + 1 < len(items) and isinstance(items[index + 1], dict) and is_tool_role(items[index + 1])):
            messages += kept_results(item, calls)  # the step's results beside its calls, no tool turn after it
    return messages


def listed_calls(content: Any, where: str) -> list[dict[str, Any]]:
    """A content value that is only calls (``[{id, type: function, function: {name, arguments}}]``), as calls."""
    items = content if isinstance(content, list) else []
    if not items or not all(isinstance(i, dict) and isinstance(i.get("function"), dict) and "arguments" in i["function"]
                            for i in items):
        return []
    return turn_calls({"tool_calls": items}, where)


def is_declaration(content: Any) -> bool:
    """A tool's declaration (``{type: function, function: {name, description, parameters}}``), no result."""
    inner = content.get("function") if isinstance(content, dict) else None
    return isinstance(inner, dict) and isinstance(inner.get("name"), str) and is_schema(inner.get("parameters"))


def tool_turn_messages(item: dict, where: str) -> list[dict[str, Any]]:
    """A tool's turn with no text of its own: the call it logs (name and arguments) as the model's call,
    then its result as the tool's turn."""
    result = next((item[k] for k in CALL_RESULT_KEYS if item.get(k) is not None), None)
    text = result if isinstance(result, str) else "" if result is None else json.dumps(result, ensure_ascii=False)
    name = call_name(item)
    if not name:
        return [message("tool", text, observation=True)]
    logged = {k: v for k, v in item.items() if k not in (*ROLE_KEYS, *CALL_NAME_KEYS, *CALL_RESULT_KEYS, *ID_KEYS)}
    arguments = next((item[k] for k in CALL_ARGUMENT_KEYS if k in item), logged)  # else what else it logged
    call_id = str(item.get("id") or item.get("call_id") or "")
    return [message("assistant", "", tool_calls=[tool_call(call_id, name, arguments, where=where)]),
            message("tool", text, tool_call_id=call_id, observation=True)]


def call_entry(entry: Any) -> tuple[dict, Any] | None:
    """A logged call and what it returned: a tool-call event (``{name, arguments, result}``), or one
    wrapping its call (``{request: {api_name, parameters}, response, exception}``); None otherwise."""
    if is_tool_event(entry):
        return entry, next((entry[k] for k in CALL_RESULT_KEYS if entry.get(k) is not None), None)
    if not isinstance(entry, dict) or speaker_of(entry) is not None:
        return None
    inner = [value for value in entry.values() if is_tool_event(value)]
    if len(inner) != 1:
        return None
    result = next((entry[k] for k in (*CALL_RESULT_KEYS, "error", "exception") if entry.get(k) is not None), None)
    return inner[0], result


def nested_calls(item: dict) -> list[tuple[dict, Any]]:
    """The calls a model turn logs under a key of its own (ToolTalk's ``apis``), with their results."""
    for key, value in item.items():
        if key in CONTENT_KEYS or key in ROLE_KEYS or not isinstance(value, list) or not value:
            continue
        entries = [call_entry(entry) for entry in value]
        if all(entries):
            return entries
    return []


def logged_call_messages(entries: list[tuple[dict, Any]], where: str) -> list[dict[str, Any]]:
    """A model turn making the logged calls, then one tool turn per result."""
    calls, results = [], []
    for index, (event, result) in enumerate(entries):
        holder = event["function"] if isinstance(event.get("function"), dict) else event
        arguments = next((holder[k] for k in CALL_ARGUMENT_KEYS if k in holder), None)
        call_id = str(event.get("id") or event.get("call_id") or f"call_{index}")
        calls.append(tool_call(call_id, call_name(event), arguments, where=where))
        text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
        results.append(message("tool", text, tool_call_id=call_id, observation=True))
    return [message("assistant", "", tool_calls=calls), *results]


def step_call_messages(item: dict, logged: list[tuple[dict, Any]], text: str, speaker: str,
                       where: str) -> list[dict[str, Any]]:
    """A step whose calls carry no results, the results kept apart under the step's ``observation``
    (``{results: [{source_call_id, content}]}``, ATIF): one model turn (its text and its calls), then one
    tool turn per result it kept."""
    calls = [tool_call(str(e.get("tool_call_id") or e.get("id") or e.get("call_id") or f"call_{i}"), call_name(e),
                       next(((e["function"] if isinstance(e.get("function"), dict) else e)[k] for k in CALL_ARGUMENT_KEYS
                             if k in (e["function"] if isinstance(e.get("function"), dict) else e)), None), where=where)
             for i, (e, _) in enumerate(logged)]
    name = speaker if ROLE_ALIASES.get(speaker.lower()) is None else string(item.get("name"))
    out = [message("assistant", text, reasoning=string(item.get("reasoning_content")) or string(item.get("reasoning")),
                   tool_calls=calls, name=name)]
    return out + kept_results(item, calls)


def kept_results(item: dict, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The results a step keeps apart from its calls, under its ``observation`` (``{results: [{source_call_id,
    content}]}``, ATIF), as tool turns answering the calls in order."""
    kept = next((item[k] for k in ("observation", "observations", "results", "result") if item.get(k) is not None), None)
    results = kept.get("results") if isinstance(kept, dict) and isinstance(kept.get("results"), list) else (
        kept if isinstance(kept, list) else [kept] if kept is not None else [])
    out = []
    for index, result in enumerate(results):
        call_id = str(result.get("source_call_id") or result.get("tool_call_id") or "") if isinstance(result, dict) else ""
        body = turn_text(content_of(result)) if isinstance(result, dict) else turn_text(result)
        if body.strip():
            out.append(message("tool", body, tool_call_id=call_id or (calls[index]["id"] if index < len(calls) else ""),
                               observation=True))
    return out


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
        if index == 0 and len(steps) > 1 and is_task_record(step):
            messages.append(message("user", step["task"]))  # the task the steps answer
            continue
        if step_of(step) is None and is_result_record(step):
            messages.append(observation_message(worded_step(step)["observation"]))  # a call's result, logged apart
            continue
        step = step_of(step) or step
        model = next((step[k] for k in ("response", "llm_response", "model_response") if isinstance(step.get(k), dict)
                      and speaker_of(step[k]) is None and is_flat_step(worded_step(step[k]))), None)
        if model is not None:  # the model's part of a step kept as an object (``response: {reasoning, tool_call}``)
            step = {**{k: v for k, v in step.items() if step.get(k) is not model}, **worded_step(model)}
        if isinstance(said_by_user := first_present(step, STEP_USER_KEYS), str) and said_by_user.strip():
            messages.append(message("user", said_by_user))  # what the user said before this step
        thought = "\n".join(turn_text(step.get(k)) for k in THOUGHT_KEYS if step.get(k)) or stated_state(step)
        calls, action_text = step_actions(step, where)
        replied = first_present(step, ("response", "llm_response", "model_response", "model_output", "answer",
                                       "final_answer", "text"))
        reply = turn_text(content_of(replied) if isinstance(replied, dict) else replied)
        if not calls and isinstance(replied, dict):
            calls = turn_calls(replied, where)
        text = "\n".join(part for part in (thought, action_text, reply if reply not in thought else "") if part)
        if not calls and not any(step.get(k) not in (None, "", []) for k in STEP_ENV_KEYS) and (
                event := step_event(step)) is not None:
            messages += [{**m, "content": text} if m["role"] == "assistant" else m for m in tool_event_messages([event])]
            continue
        messages.append(message("assistant", text, tool_calls=calls))
        for key in STEP_ENV_KEYS:
            if key in step and step[key] not in (None, "", []):
                observed = step[key]
                # a list of results, one per call the step made (browser-use's ``result``), answers each call
                per_call = isinstance(observed, list) and not key.endswith("s") and 1 < len(observed) == len(calls)
                each = per_call or (isinstance(observed, list) and key.endswith("s"))
                for part in observed if each else [observed]:
                    messages.append(observation_message([part] if per_call and isinstance(part, dict) else part))
                break
    return messages


def stated_state(step: dict) -> str:
    """The model's words a step keeps in an object of text fields beside its action (browser-use's
    ``current_state: {evaluation_previous_goal, memory, next_goal}``), one ``field: text`` line each; "" when no
    child object holds only text (a browser's state of tabs and urls, metrics, results hold more)."""
    for value in step.values():
        if (isinstance(value, dict) and len(value) >= 2 and all(isinstance(v, str) for v in value.values())
                and any(len(v.split()) >= 3 for v in value.values())):
            return "\n".join(f"{key.replace('_', ' ').capitalize()}: {text}" for key, text in value.items() if text.strip())
    return ""


def observation_message(part: Any) -> dict[str, Any]:
    """One result the environment returned: its text, a result object's output (``{call_id, result}``),
    else the object as JSON."""
    if isinstance(part, list) and part and all(isinstance(p, dict) for p in part) and not turn_text(part).strip():
        texts = [result_record_text(p) for p in part]  # a step's results as records (``[{extracted_content, error}]``)
        return message("tool", "\n".join(t for t in texts if t), observation=True)
    call_id = str(part.get("call_id") or part.get("tool_call_id") or "") if isinstance(part, dict) else ""
    if isinstance(part, dict) and "text" not in part and "content" not in part:
        inner = next((part[k] for k in CALL_RESULT_KEYS if k in part and part[k] is not None), None)
        output = turn_text(inner) if isinstance(inner, str) else json.dumps(part, ensure_ascii=False)
    else:
        output = turn_text(part)
    return message("tool", output, tool_call_id=call_id, observation=True)


def result_record_text(record: dict) -> str:
    """A result record's text: under a result key, else under a key naming content or output
    (``extracted_content``), else its error; else the record as JSON."""
    for key in (*CALL_RESULT_KEYS, *(k for k in record if {"content", "output"} & set(key_words(k))), "error"):
        if isinstance(record.get(key), str) and record[key].strip():
            return record[key]
    return json.dumps(record, ensure_ascii=False)


def step_actions(step: dict, where: str) -> tuple[list[dict[str, Any]], str]:
    """A step's calls (structured actions) and the action text it wrote (``search[...]``, a command)."""
    actions = first_present(step, ("actions", "action", "tool_calls", "tool_call", "code", "command"))
    calls, texts = [], []
    for action in actions if isinstance(actions, list) else [actions]:
        if isinstance(action, str):
            texts.append(action)
        elif isinstance(action, dict):
            function = action["function"] if isinstance(action.get("function"), dict) else action
            name = (function.get("name") or function.get("tool") or function.get("tool_name") or function.get("toolName")
                    or function.get("type"))
            arguments = next((function[k] for k in ("arguments", "args", "input", "parameters", "tool_input")
                              if k in function), {k: v for k, v in function.items() if k not in ("name", "tool", "type")})
            if isinstance(name, str) and name:
                calls.append(tool_call(action.get("id", action.get("toolCallId")), name, arguments, where=where))
            elif len(action) == 1 and isinstance(next(iter(action.values())), dict) and isinstance(next(iter(action)), str):
                (name, arguments), = action.items()  # a call keyed by its name (``{"click_element": {"index": 3}}``)
                calls.append(tool_call("", name, arguments, where=where))
            else:
                texts.append(json.dumps(action, ensure_ascii=False))
    return calls, "\n".join(texts)
