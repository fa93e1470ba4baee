"""Conversations recognised by their shape (``shape``): a turn list or a step list anywhere in a JSON value.

The named formats are adapters for what their semantics need (compactions, reasoning, outcomes); a run
in a layout none of them knows is still a list of turns under some key. This reader finds it:

* a **turn list**: a list of objects that each name a speaker (``role``/``from``/``speaker``/``sender``/
  ``author``/``type``) and carry text (``content``/``value``/``text``/``message``/``parts``/``blocks``/
  ``data.content``) or calls; speakers are role aliases (``ROLE_ALIASES``) or, in a multi-agent log,
  names: the first to speak set the task (user), every other name is the model;
* a **step list**: ReAct-style steps (``{thought, action, observation}``, ``{query, actions,
  observations}``), as a list, an object indexed ``"0"``, ``"1"``..., or columns of one object
  (``{thoughts: [...], actions: [...], observations: [...]}``); a step's model part or result may sit one
  or two objects down (``{llm_response: {content, tool_calls}, tool_results: [...]}``). Each step is a
  model turn (its thought and action) and an observation;
* **call records**: what one model call was sent and returned (``{prompt|input|messages,
  response|completion|output}``), alone or as a list under a record (a run's calls): the first call's
  prompt and every later call's new part are user turns, each response a model turn;
* a **tool-call log**: a list of ``{name, arguments[, result]}`` events with no model text, read as the
  model's calls and their results (also kept as two parallel lists, or mixed with the model call that
  made them);
* the same conversations kept otherwise: in rounds, as text pairs or utterances, as a message tree, as
  calls logged inside a model turn, as a prompt-keyed response cache, or written as text in a string
  (ReAct steps, a chat template, ``Name:`` turns); docs/transcript-formats.md lists every layout.

Lists are found at any key path (``$.6238.traj``, ``$.state.history``, ``$.answer.train_messages[3]``).
The record of a list is the object that holds it; of several lists in one record (a prompt and the
run, or the growing prompts of each step) the longest is the run, and a turn list whose model turns are
its own (an agent's history beside another's) is one more. Every transcript keeps its record's id
(``record_id``: the record's own id field, else its key in the object holding it) and path.
Tool calls are read from ``tool_calls``/``function_call``, from content blocks (``tool_use``,
``tool_call``, ``function_call``) or left as the text the model wrote; results from ``tool`` turns,
``tool_result`` blocks, or user turns that are tool output by their shape (``flag_text_observations``).
"""

from __future__ import annotations

import collections
import itertools
import json
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from codemix.mixtures.transcript_formats.attempts import attempt_columns, attempt_messages
from codemix.mixtures.transcript_formats.base import Format, Transcript, declared_tools, recorded_facts
from codemix.mixtures.transcript_formats.canonical import (
    TranscriptShapeError,
    flag_text_observations,
    is_spoken,
    message,
)
from codemix.mixtures.transcript_formats.events import envelope_runs, event_runs, merged_chunks
from codemix.mixtures.transcript_formats.parts import kinded_part_turns, role_keyed_turns
from codemix.mixtures.transcript_formats.piped import is_piped_run, piped_messages
from codemix.mixtures.transcript_formats.react import react_messages
from codemix.mixtures.transcript_formats.scored import scored_candidates
from codemix.mixtures.transcript_formats.task_outputs import product_lists, task_output_lists
from codemix.mixtures.transcript_formats.text_turns import speaker_messages, template_messages
from codemix.mixtures.transcript_formats.traces import trace_holder
from codemix.mixtures.transcript_formats.turns import (
    CALL_EVENT,
    DECLARATION_KEYS,
    FINAL_KEYS,
    ID_KEYS,
    PROMPT_KEYS,
    RESPONSE_KEYS,
    ROLE_ALIASES,
    ROUND_KEYS,
    SYSTEM_KEYS,
    TASK_KEYS,
    call_messages,
    call_name,
    call_prompt,
    column_steps,
    content_of,
    first_present,
    has_text_or_calls,
    held_items,
    indexed_items,
    inferred_turns,
    is_call_list,
    is_call_record,
    is_call_run,
    is_step_list,
    is_tool_event,
    is_tool_event_list,
    is_turn_list,
    kinded_turn,
    lifted_turns,
    listed_call_records,
    logged_prompt,
    lone_block,
    parallel_events,
    requested_turn,
    response_messages,
    said,
    speaker_of,
    speaker_roles,
    step_messages,
    step_of,
    tool_event_messages,
    turn_messages,
    turn_text,
    unwrap_turn,
    wrapped_turns,
)

# A walk that stops: a value is visited at most this many objects and lists deep, and this many nodes.
MAX_NODES = 200_000


class Found(NamedTuple):
    """One list that reads as a conversation: where it sits, the record holding it, and the record's key."""

    path: str
    items: list
    kind: str  # "turns", "steps", "calls", "events", "mixed", "text" or "messages" (an event log's, read)
    record: dict | None
    record_key: str
    ancestors: tuple  # the objects above the record, nearest first
    left_out: int = 0  # entries of the list that are no turns (a log's metadata events), counted, not read
    branch_unread: int = 0  # a message tree's turns on branches other than the one read, counted, not read


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
        node = merged_chunks(node) or node  # a streamed message is judged whole, never chunk by chunk
        if is_call_record(node) and not holds_run(node):  # one call: the object is its own record
            found.append(Found(path, [node], "calls", node, key, tuple(d for d, _ in chain)))
            continue
        if (events := parallel_events(node)) is not None:  # the object holding both lists is the record
            found.append(Found(path, events, "events", node, key, tuple(d for d, _ in chain)))
            continue
        if (turns := round_turns(node, key)) is not None:
            record, record_key = chain[0] if chain else (None, "")
            found.append(Found(path, turns, "turns", record, record_key, tuple(d for d, _ in chain[1:])))
            continue
        if (nested := nested_branch(node)) is not None:
            record, record_key = chain[0] if chain else (None, "")  # replies nested in their turn: one branch
            found.append(Found(path, nested[0], "turns", record, record_key, tuple(d for d, _ in chain[1:]),
                               branch_unread=nested[1]))
            continue
        kind = list_kind(node, key, under_record=bool(chain))
        if kind == "turns" and (branch := linked_branch(node, chain[0][0] if chain else None)) is not None:
            record, record_key = chain[0] if chain else (None, "")  # turns naming their parent, forked: one branch
            found.append(Found(path, branch[0], "turns", record, record_key, tuple(d for d, _ in chain[1:]),
                               branch_unread=branch[1]))
            continue
        if (parted := kinded_part_turns(node)) is not None:
            node, kind = parted, "turns"  # messages of parts that name their kind (pydantic-ai, AI SDK)
        if (keyed := role_keyed_turns(node)) is not None:
            node, kind = keyed, "turns"  # turns keyed by their speaker among turns that name a role
        if kind is None and (held := held_turns(node)) is not None:
            node, kind = held, "turns"  # rounds that each hold their turns under keys (ADK's invocations)
        if kind == "steps" and logs_calls_within(node):
            kind = "container"  # test cases whose traces log the model's calls: the calls are the runs
        if kind is None and (branch := tree_branch(node, chain[0][0] if chain else None)) is not None:
            record, record_key = chain[0] if chain else (None, "")  # a message tree: the branch shown, the rest counted
            found.append(Found(path, branch[0], "turns", record, record_key, tuple(d for d, _ in chain[1:]),
                               branch_unread=branch[1]))
            continue
        if kind is None and (indexed := indexed_items(node)) is not None and is_turn_list(indexed):
            node, kind = indexed, "turns"  # turns indexed "0", "1"...
        if kind is None and (steps := indexed_items(node) or column_steps(node)) is not None and is_step_list(steps):
            node, kind = steps, "steps"
        if kind is None and (inferred := inferred_turns(node)) is not None and is_turn_list(inferred):
            node, kind = inferred, "turns"  # speaker and text under keys no vocabulary names
        if kind is None and (prefixed := prefixed_turns(node)) is not None:
            node, kind = prefixed, "turns"  # ["User: ...", "Assistant: ..."]
        if kind is None and (lifted := lifted_turns(node)) is not None:
            node, kind = lifted, "turns"  # steps each holding its turn beside the step's calls and results
        if kind is None and (items := held_items(node)) is not None:
            node, kind = items, "turns"  # run items each holding one protocol item (a call, its output)
        if kind is None and (wrapped := wrapped_turns(node)) is not None:  # turns inside envelopes
            record, record_key = chain[0] if chain else (None, "")
            found.append(Found(path, wrapped[0], "turns", record, record_key, tuple(d for d, _ in chain[1:]),
                               wrapped[1]))
            continue
        if kind is None and (turns := mostly_turns(node)) is not None:  # turns among a log's other events
            record, record_key = chain[0] if chain else (None, "")
            found.append(Found(path, turns, "turns", record, record_key, tuple(d for d, _ in chain[1:]),
                               len(node) - len(turns)))
            continue
        if kind is None and (runs := event_runs(node)) is not None:  # events naming their kind (``events``)
            record, record_key = chain[0] if chain else (None, "")
            found += [Found(path if len(runs) == 1 else f"{path}[run {i}]", messages, "messages", record,
                            str(run_id) if run_id is not None and record is None else record_key,
                            tuple(d for d, _ in chain[1:]), left_out) for i, (run_id, messages, left_out) in enumerate(runs)]
            continue
        if kind is None and (runs := envelope_runs(node)) is not None:  # agents' messages in envelopes
            record, record_key = chain[0] if chain else (None, "")
            found += [Found(path if len(runs) == 1 else f"{path}[run {i}]", messages, "messages", record,
                            str(run_id) if run_id is not None and record is None else record_key,
                            tuple(d for d, _ in chain[1:]), left_out) for i, (run_id, messages, left_out) in enumerate(runs)]
            continue
        if kind is None and chain and is_action_list(node, key, chain[0][0]):
            kind = "actions"  # what the agent did, with no observations kept, beside its task
        if kind == "pairs":  # pairs (or utterances) as the turns or the tool-call events they are
            node = pair_turns(node, key) or prefixed_turns(node) or string_turns(node, key, chain[0][0] if chain else None)
            kind = "events" if is_tool_event(node[0]) else "turns"
        if kind == "exchanges" and not chain:  # a file that is a list of exchanges: a dataset, one per row
            found += [Found(f"{path}[{i}]", [item], kind, item, str(i), ()) for i, item in enumerate(node)]
            continue
        if kind == "calls" and scripted_rounds(node, chain[0][0] if chain else None):
            found.append(Found(path, node, kind, None, key, tuple(d for d, _ in chain)))  # each model's run its own
            continue
        if kind == "calls" and not is_call_run(node) and key.lower() not in CONVERSATION_KEYS:
            # a dataset of calls: each call is its own record (under ``history``, one chat's rounds: one run)
            found += [Found(f"{path}[{i}]", [call], "calls", call, str(i), tuple(d for d, _ in chain))
                      for i, call in enumerate(node)]
            continue
        if kind == "steps" and (runs := restarted_steps(node)) is not None:  # a log of several runs' steps
            record, record_key = chain[0] if chain else (None, "")
            found += [Found(f"{path}[run {i}]", run, kind, record, record_key, tuple(d for d, _ in chain[1:]))
                      for i, run in enumerate(runs)]
            continue
        if kind not in (None, "container"):
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
    return (longest_per_record(runs_over_logs(found)) or cached_calls(value) or attempt_runs(value)
            or task_output_runs(value) or product_runs(value) or text_runs(value))


def task_output_runs(value: Any) -> list[Found]:
    """Where no list reads as a conversation: what a crew's agents returned, task by task (``task_outputs``),
    each record its own run."""
    return [Found(path, messages, "messages", record, key, ()) for path, messages, record, key in task_output_lists(value)]


def product_runs(value: Any) -> list[Found]:
    """Where no list reads as a conversation: a request and what its named agents wrote (``task_outputs``,
    ``agent_products``), each record its own run."""
    return [Found(path, messages, "messages", record, key, ()) for path, messages, record, key in product_lists(value)]


def restarted_steps(items: list) -> list[list] | None:
    """A step list whose steps number themselves (``step``: 1, 2, ... 1, 2, 3): each run where the number starts
    again (what follows a step, a result record, stays with it); None when it never restarts."""
    starts, last = [], None
    for index, item in enumerate(items):
        number = item.get("step") if isinstance(item, dict) else None
        if not isinstance(number, int) or isinstance(number, bool):
            continue
        if last is not None and number <= last:
            starts.append(index)
        last = number
    if not starts:
        return None
    bounds = [0, *starts, len(items)]
    return [items[a:b] for a, b in itertools.pairwise(bounds)]


def held_turns(items: Any) -> list[dict[str, Any]] | None:
    """A list of rounds, each an object that holds its turns under keys of its own (ADK's invocations:
    ``{user_content: {role: user, parts}, final_response: {role: model, parts}, intermediate_data: {tool_uses,
    intermediate_responses}}``), as one turn list: per round the person's turns, then the calls and the
    intermediate replies logged in it, then the model's turns. None unless every round holds a person's and a
    model's turn."""
    if not isinstance(items, list) or not items or not all(isinstance(i, dict) for i in items[:200]):
        return None
    turns: list[dict[str, Any]] = []
    for item in items:
        held = [v for v in item.values() if isinstance(v, dict) and speaker_of(v) and has_text_or_calls(v)]
        sides = [ROLE_ALIASES.get(speaker_of(t).lower()) for t in held]
        if "user" not in sides or "assistant" not in sides:
            return None
        between = [v for v in item.values() if isinstance(v, dict) and v not in held]
        turns += [t for t, side in zip(held, sides) if side != "assistant"]
        turns += [turn for logged in between for turn in logged_round_turns(logged)]
        turns += [t for t, side in zip(held, sides) if side == "assistant"]
    return turns


def logged_round_turns(logged: dict) -> list[dict[str, Any]]:
    """What a round logged between the person's turn and the model's: its calls (``{name, args}`` entries, as
    one model turn) and intermediate replies (``[author, parts]`` pairs or turns, as the model's)."""
    turns: list[dict[str, Any]] = []
    for value in logged.values():
        if isinstance(value, list) and value and all(isinstance(v, dict) and call_name(v) for v in value):
            turns.append({"role": "assistant", "content": "", "tool_calls": [
                {"id": str(v.get("id") or ""), "function": {"name": call_name(v), "arguments": v.get("args", v.get(
                    "arguments", {}))}} for v in value]})
        elif isinstance(value, list):
            for reply in value:
                if isinstance(reply, list) and len(reply) == 2 and isinstance(reply[0], str):
                    turns.append({"role": "assistant", "name": reply[0], "content": turn_text(reply[1])})
                elif isinstance(reply, dict) and speaker_of(reply):
                    turns.append(reply)
    return turns


def attempt_runs(value: Any) -> list[Found]:
    """Where no list reads as a conversation: records that keep a task and per-attempt fields
    (``attempts``), the value itself or each row of a list of records."""
    rows = [(value, "$", "")] if isinstance(value, dict) else [
        (row, f"$[{i}]", str(i)) for i, row in enumerate(value)] if isinstance(value, list) else []
    return [Found(path, [row], "attempts", row, key, ()) for row, path, key in rows
            if attempt_columns(row) is not None and task_text([row])]


def text_run(text: str) -> list[dict[str, Any]]:
    """The run a string writes as text: ReAct steps, a chat template's turns (``<|im_start|>user``...),
    else speaker-prefixed turns (``Human: ...``)."""
    return react_messages(text) or template_messages(text) or (speaker_messages(text) if ":" in text else [])


def text_runs(value: Any) -> list[Found]:
    """Where no list reads as a conversation: runs written as ReAct text in a string of a record (the
    prompt an agent kept its scratchpad in), one per record."""
    found: list[Found] = []
    stack: list[tuple[Any, str, str, tuple]] = [(value, "$", "", ())]
    nodes = 0
    while stack and nodes < MAX_NODES:
        node, path, key, chain = stack.pop()
        nodes += 1
        children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        texts = [(k, v) for k, v in children if isinstance(v, str) and text_run(v)]
        if isinstance(node, dict) and texts:
            child_key, text = max(texts, key=lambda pair: len(pair[1]))
            found.append(Found(f"{path}.{child_key}", [text], "text", node, key, tuple(d for d, _ in chain)))
            continue
        inner = ((node, key), *chain) if isinstance(node, dict) else chain
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for child_key, child in reversed(list(items)):
            if isinstance(child, (dict, list)):
                step = f"{path}.{child_key}" if isinstance(node, dict) else f"{path}[{child_key}]"
                stack.append((child, step, str(child_key), inner))
    return found


def json_messages(text: str) -> list | None:
    """A prompt kept as the JSON text of its message list (``'[{"role": "user", ...}]'``), as that list."""
    if not text.lstrip().startswith("[{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, list) and value and all(speaker_of(v) for v in value) else None


def cached_calls(value: Any) -> list[Found]:
    """A response cache keyed by prompt (``{prompt text: response}``, most keys text of several lines):
    each entry one call, its own transcript."""
    if not isinstance(value, dict) or len(value) < 2 or not all(isinstance(v, (str, dict)) for v in value.values()):
        return []
    if sum("\n" in str(key) for key in value) * 2 <= len(value):
        return []
    calls = [{"prompt": json_messages(str(key)) or str(key), "response": response if isinstance(response, str)
              else json.dumps(response, ensure_ascii=False)} for key, response in value.items()]
    return [Found(f"$[{index}]", [call], "calls", call, str(index), ()) for index, call in enumerate(calls)]


def round_turns(node: Any, key: str) -> list | None:
    """A conversation kept in rounds (``{rounds: [{user_query, post_list: [turns]}, ...]}``: each round an
    object holding the turns of one user request) as the one turn list of all rounds, in order."""
    if str(key).lower() not in ROUND_KEYS or not isinstance(node, list) or not node:
        return None
    turns = []
    for part in node:
        lists = [value for value in part.values() if isinstance(value, list) and value and all(
            speaker_of(item) and has_text_or_calls(item) for item in value)] if isinstance(part, dict) else []
        if len(lists) != 1:
            return None
        turns += lists[0]
    return turns if is_turn_list(turns) else None


def logs_calls_within(items: list, limit: int = 10_000) -> bool:
    """Whether objects below the list's items are model calls logged whole (``turns.logged_prompt``): an eval
    export's test cases (``input``, ``actualOutput``) over traces whose LLM spans hold the messages sent."""
    stack: list[Any] = [v for item in items if isinstance(item, dict) for v in item.values() if isinstance(v, (dict, list))]
    while stack and limit > 0:
        node, limit = stack.pop(), limit - 1
        if isinstance(node, dict) and logged_prompt(node) and is_call_record(node):
            return True
        stack += [v for v in (node.values() if isinstance(node, dict) else node) if isinstance(v, (dict, list))]
    return False


def holds_run(node: dict) -> bool:
    """Whether a call record also keeps the run between its prompt and its response (LangChain's
    ``{input, intermediate_steps, output}``): a value of it is a list of steps, tool calls or pairs."""
    return any(isinstance(value, list) and list_kind(value, str(key), under_record=True) in ("steps", "events", "pairs")
               for key, value in node.items())


def runs_over_logs(found: list[Found]) -> list[Found]:
    """A tool-call log is the weakest evidence of a run: one inside a record that holds a conversation,
    or below such a record (a run's task spec listing its expected calls), is part of that run; beside a
    dataset of calls (an eval log's scorer settings) it is none."""
    runs = {id(item.record) for item in found if item.kind != "events"}
    if any(item.kind == "calls" and item.items == [item.record] for item in found):  # a dataset of calls
        return [item for item in found if item.kind != "events"]
    return [item for item in found if item.kind != "events" or not (
        id(item.record) in runs or any(id(holder) in runs for holder in item.ancestors))]


def list_kind(node: Any, key: str, *, under_record: bool) -> str | None:
    """What a list is: turns, a run's call records (only under a record: a file that is a list of call
    records is a dataset, one call per row), steps, tool-call events, or None."""
    if is_turn_list(node):
        return "turns"
    if under_record and is_call_list(node):
        return "calls"
    if is_step_list(node):
        return "steps"
    if is_tool_event_list(node, key):
        return "events"
    if pair_turns(node, key) is not None or string_turns(node, key) is not None:
        return "pairs"
    if is_exchange_list(node):
        return "exchanges"
    return "mixed" if is_mixed_log(node, key) else None


# A message tree's links, by the names exporters give them (ChatGPT ``parent``/``children``, Open WebUI and
# LibreChat ``parentId``/``childrenIds``/``parentMessageId``, agents' ``parent_id``); and the pointer to the branch
# shown (``current_node``, ``currentId``). Compared lower-cased without ``_``.
PARENT_KEYS = ("parent", "parentid", "parentmessageid", "parentuuid")
CHILDREN_KEYS = ("children", "childrenids", "childids")
NODE_ID_KEYS = ("id", "messageid", "uuid")
CURRENT_KEYS = ("currentnode", "currentid", "currentmessageid", "currentleafid", "activeleafid", "leafid")


def linked_key(item: dict, names: tuple[str, ...]) -> str | None:
    """The key of ``item`` that is one of ``names`` (lower-cased, ``_`` and ``-`` dropped)."""
    return next((k for k in item if isinstance(k, str) and k.lower().replace("_", "").replace("-", "") in names), None)


def current_pointer(record: dict | None, nodes: Any) -> Any:
    """The id a record (or the tree itself) names as the branch shown, when it names a node of ``nodes``."""
    for holder in (record, nodes if isinstance(nodes, dict) else None):
        if isinstance(holder, dict) and (key := linked_key(holder, CURRENT_KEYS)) and holder[key] in nodes:
            return holder[key]
    return None


def tree_branch(node: Any, record: dict | None) -> tuple[list, int] | None:
    """A conversation kept as a tree of message nodes keyed by id (``{id: {message, parent, children}}``,
    as ChatGPT's export keeps ``mapping``; ``{id: {role, content, parentId, childrenIds}}`` as Open WebUI's
    ``history.messages``): the branch to the record's current node (``current_node``, ``currentId``: the one
    shown), else to the last child at every fork (the latest regeneration), as its turn list (nodes without a turn
    left out), with the number of turns the tree keeps on its other branches (read by no transcript: counted,
    ``branch_unread``; docs/transcript-formats.md, "Message trees")."""
    if not isinstance(node, dict) or len(node) < 2 or not all(isinstance(n, dict) for n in node.values()):
        return None
    children = [linked_key(n, CHILDREN_KEYS) for n in node.values()]
    if None in children or len(set(children)) != 1 or not all(isinstance(n[children[0]], list) for n in node.values()):
        return None
    kids = children[0]
    parents = {k: n.get(key) for k, n in node.items() if (key := linked_key(n, PARENT_KEYS))}
    if len(node) - len(parents) + sum(1 for p in parents.values() if p not in node) > 1:
        return None  # one root may name no parent, every other node does
    current = current_pointer(record, node)
    if current is None:
        current = next((k for k in node if parents.get(k) not in node), None)
        seen = set()
        while current in node and node[current][kids] and current not in seen:
            seen.add(current)
            current = node[current][kids][-1]
    branch, seen = [], set()
    while current in node and current not in seen:
        seen.add(current)
        branch.append(node[current])
        current = parents.get(current)
    turns = [node_message(n) for n in reversed(branch) if node_turn(n)]
    if not is_turn_list(turns):
        return None
    return turns, sum(1 for key, n in node.items() if key not in seen and node_turn(n))


def linked_branch(items: list, record: dict | None) -> tuple[list, int] | None:
    """A turn list whose turns each name their parent (``parentMessageId``, ``parent_id``) and which forks (a
    turn two others answer: the person asked again, the model regenerated): the branch that ends at the record's
    current turn (``currentId``), else at the list's last turn (the latest written), walked back to its root, with
    the number of turns on the other branches (``branch_unread``). None for a list that does not fork (its order
    is the conversation's) or whose links do not hold (a parent outside the list, a cycle)."""
    if len(items) < 3 or not all(isinstance(item, dict) for item in items):
        return None
    id_key, parent_key = linked_key(items[0], NODE_ID_KEYS), linked_key(items[-1], PARENT_KEYS)
    if id_key is None or parent_key is None:
        return None
    ids = [item.get(id_key) for item in items]
    if not all(isinstance(i, (str, int)) and not isinstance(i, bool) for i in ids) or len(set(ids)) != len(ids):
        return None
    by_id = dict(zip(ids, items))
    parents = [item.get(parent_key) for item in items]
    if sum(1 for p in parents if p not in by_id) > 1:
        return None  # one root; every other turn answers one in the list
    if max(collections.Counter(p for p in parents if p in by_id).values(), default=0) < 2:
        return None
    current = current_pointer(record, by_id)
    at, branch, seen = by_id[current if current is not None else ids[-1]], [], set()
    while at is not None and id(at) not in seen:
        seen.add(id(at))
        branch.append(at)
        at = by_id.get(at.get(parent_key))
    branch.reverse()
    if not is_turn_list(branch):
        return None
    return branch, sum(1 for item in items if id(item) not in seen and has_text_or_calls(item))


def nested_branch(items: Any) -> tuple[list, int] | None:
    """A message tree kept nested, each turn holding the turns that answer it in a list (LibreChat's recursive
    export: ``{sender, text, children: [...]}``): the branch through the last answer at every fork (the latest
    regeneration or edit), as its turn list, with the number of turns on the other branches (``branch_unread``).
    None unless some turn holds answers (a list of turns with empty ``children`` is read as a list)."""
    if not isinstance(items, list) or not items or not all(isinstance(i, dict) and speaker_of(i) for i in items):
        return None
    kids = linked_key(items[0], CHILDREN_KEYS)
    if kids is None or not all(isinstance(i.get(kids), list) for i in items):
        return None
    if not any(isinstance(child, dict) and speaker_of(child) for i in items for child in i[kids]):
        return None
    branch, at = [], items[-1]
    while isinstance(at, dict):
        branch.append({k: v for k, v in at.items() if k != kids})
        answers = [c for c in at.get(kids) or [] if isinstance(c, dict)]
        at = answers[-1] if answers else None
    if not is_turn_list(branch):
        return None
    stack, total = list(items), 0
    while stack:
        turn = stack.pop()
        total += bool(has_text_or_calls(turn))
        stack += [c for c in turn.get(kids) or [] if isinstance(c, dict)]
    return branch, total - sum(bool(has_text_or_calls(turn)) for turn in branch)


def node_message(tree_node: dict) -> dict:
    """A tree node's message: under ``message`` (ChatGPT's mapping), else the node itself (Open WebUI)."""
    return tree_node["message"] if isinstance(tree_node.get("message"), dict) else tree_node


def node_turn(tree_node: dict) -> bool:
    """Whether a message tree's node holds a turn (a root or a deleted message holds none)."""
    turn = node_message(tree_node)
    return bool(speaker_of(turn)) and bool(has_text_or_calls(turn))


def is_exchange(item: Any) -> bool:
    """One exchange kept as fields named by role (``{user: text, assistant: text[, tool_calls: [...]]}``)."""
    if not isinstance(item, dict) or speaker_of(item) is not None:
        return False
    roles = {ROLE_ALIASES.get(str(k).lower()) for k, v in item.items() if isinstance(v, str) and v.strip()}
    return {"user", "assistant"} <= roles


def is_exchange_list(items: Any) -> bool:
    return isinstance(items, list) and bool(items) and all(is_exchange(item) for item in items[:200])


def exchange_messages(items: list) -> list[dict[str, Any]]:
    """Each exchange's user (and system) text, then the tool calls it logs and their results, then the
    model's text: the calls were made before the reply that reports them."""
    messages: list[dict[str, Any]] = []
    for item in items:
        fields = [(ROLE_ALIASES.get(str(k).lower()), v) for k, v in item.items() if isinstance(v, str) and v.strip()]
        messages += [message(role, text) for role, text in fields if role in ("system", "user")]
        for value in item.values():
            if isinstance(value, list) and value and all(is_tool_event(event) for event in value):
                messages += tool_event_messages(value)
        messages += [message(role, text, observation=role == "tool") for role, text in fields
                     if role in ("assistant", "tool")]
    return messages


PREFIXED_TURN = re.compile(r"\s*[*_]*([A-Za-z][A-Za-z_ -]{0,30}?)[*_]*\s*:[ \t]*(.*)", re.DOTALL)


def prefixed_turns(items: Any) -> list | None:
    """Turns kept as strings that open with their speaker (``["User: hi", "Assistant: hello", ...]``):
    every string opens with a label and a colon, every label is a role alias, at least two roles. The
    turns, or None."""
    if not isinstance(items, list) or len(items) < 2 or not all(isinstance(item, str) for item in items[:200]):
        return None
    matches = [PREFIXED_TURN.match(item) for item in items]
    if not all(matches):
        return None
    labels = [m.group(1).strip() for m in matches]
    roles = {ROLE_ALIASES.get(label.lower()) for label in labels}
    if None in roles or len(roles) < 2:
        return None
    return [{"role": label, "content": m.group(2)} for label, m in zip(labels, matches)]


def mostly_turns(items: Any) -> list | None:
    """The turns of a log that interleaves them with entries of another kind (metadata, usage, state
    events): at least two thirds of the entries are turns, none of the others carries text under a content
    key (nothing said is left out). The turns, or None."""
    if not isinstance(items, list) or len(items) < 3 or not all(isinstance(i, dict) for i in items[:200]):
        return None
    turns = [item for item in items if speaker_of(item) is not None and has_text_or_calls(item)]
    if len(turns) < 2 or len(turns) * 3 < len(items) * 2:
        return None
    others = [item for item in items if not (speaker_of(item) is not None and has_text_or_calls(item))]
    if any(turn_text(content_of(item)).strip() for item in others):
        return None
    return turns if is_turn_list(turns) else None


def is_action_list(items: Any, key: str, holder: dict) -> bool:
    """A run kept as the agent's actions alone (``{problem, action_history: ["search[...]", "click[...]"]}``,
    ``{task, steps: [{thought, action}]}``): action strings under a key that names actions, or steps with
    no observation under a key that names a run, in a record that keeps the task they answer; at least two
    (a lone command is no run)."""
    if not isinstance(items, list) or len(items) < 2 or not task_text([holder]):
        return False
    name = str(key).lower()
    if all(isinstance(item, str) and item.strip() for item in items):
        return "action" in name
    return ((name in CONVERSATION_KEYS or "action" in name or "step" in name)
            and all(step_of(item) is not None for item in items[:200]))


def action_messages(items: list) -> list[dict[str, Any]]:
    """Each action string a model turn; steps as steps (``step_messages``)."""
    if all(isinstance(item, str) for item in items):
        return [message("assistant", item) for item in items]
    return step_messages(items)


def string_turns(items: Any, key: str, holder: dict | None = None) -> list | None:
    """A dialogue kept as its utterances alone (``{"dialog": ["hi", "hello", ...]}``, under a conversation
    key). When the record beside it keeps who spoke each one (a list of as many short labels, ``speaking_order:
    [1, 0, 2, ...]``) they are the speakers (a multi-party log stays multi-party); else the speakers take
    turns: the first a user turn, the next the model's, and so on."""
    if (not isinstance(items, list) or len(items) < 2 or str(key).lower() not in SPOKEN_KEYS
            or not all(isinstance(item, str) for item in items)):
        return None
    labels = speaker_column(holder, key, len(items))
    if labels is not None:
        return [{"speaker": label, "content": text} for label, text in zip(labels, items)]
    return [{"role": ("user", "assistant")[i % 2], "content": text} for i, text in enumerate(items)]


def speaker_column(holder: dict | None, key: str, length: int) -> list[str] | None:
    """The speakers of ``length`` utterances kept in a list of their own beside them: as many short labels
    (small numbers, or one-line names that repeat), at least two distinct ones. Of several such lists the
    one whose key says it orders speakers (``speaking_order``, ``speakers``, ``senders``) wins; else only
    a single one is taken. A number is named after the speaker it counts (``[1]`` -> ``speaker 1``)."""
    if not isinstance(holder, dict):
        return None
    columns = [(str(other), values) for other, values in holder.items()
               if other != key and isinstance(values, list) and len(values) == length and is_label_column(values)]
    named = [c for c in columns if any(word in c[0].lower() for word in SPEAKER_COLUMN_WORDS)]
    chosen = named[0] if named else columns[0] if len(columns) == 1 else None
    return None if chosen is None else [f"speaker {v}" if isinstance(v, int) else v.strip() for v in chosen[1]]


SPEAKER_COLUMN_WORDS = ("speak", "sender", "author", "order", "from", "who")


def is_label_column(values: list) -> bool:
    if len({str(v) for v in values}) < 2:
        return False
    if all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 64 for v in values):
        return True
    return (all(isinstance(v, str) and v.strip() and len(v) <= 40 and "\n" not in v for v in values)
            and len(set(values)) < len(values))


def pair_turns(items: Any, key: str) -> list | None:
    """A history kept as pairs: ``[[user text, reply], ...]`` under a conversation key (a chat UI's
    history), or ``[[{tool, tool_input, log}, observation], ...]`` (an agent's intermediate steps: each a
    call and what it returned). The pairs as turns, or as tool-call events with their results."""
    if not isinstance(items, list) or not items or not all(isinstance(p, list) and len(p) == 2 for p in items):
        return None
    if all(is_tool_event(call) for call, _ in items):
        return [{**call, "result": result} for call, result in items]
    texts = all(isinstance(x, str) or x is None for pair in items for x in pair)
    labelled = texts and len(items) >= 2 and all(isinstance(label, str) and label.strip().lower() in ROLE_ALIASES
                                                 for label, _ in items)
    if labelled and {ROLE_ALIASES[label.strip().lower()] for label, _ in items} & {"assistant", "tool"}:
        return [{"role": label.strip(), "content": text or ""} for label, text in items]  # [["user", "hi"], ...]
    if texts and str(key).lower() in CONVERSATION_KEYS | {"chat_history", "history_pairs"}:
        return [{"role": role, "content": text} for pair in items for role, text in zip(("user", "assistant"), pair)
                if text is not None]
    return None


def scripted_rounds(calls: list, parent: Any) -> bool:
    """Whether a list of calls is one multi-turn run that several runs follow alike: beside it (under one
    object, each keyed by its model: ``{"ChatGPT": [{input, output}...], "MOSS": [...]}``) another list of calls
    sends the same requests in the same order, two or more. A dataset of separate calls is kept once; a
    script of rounds is what each model was taken through, one conversation each."""
    if not isinstance(parent, dict) or len(calls) < 2:
        return False
    sent = requests(calls)
    return sent is not None and sum(isinstance(v, list) and v is not calls and len(v) == len(calls) and requests(v) == sent
                                    for v in list(parent.values())[:200]) >= 1


def requests(calls: list) -> list[str] | None:
    """The text each call record of a list was sent, or None when an item is no call record."""
    if not all(is_call_record(c) for c in calls):
        return None
    try:
        return [said(call_prompt(c, "call")).strip() for c in calls]
    except TranscriptShapeError:
        return None


def is_mixed_log(items: Any, key: str) -> bool:
    """A log of tool-call events and the model calls that made them (``{user_task, response}`` among the
    ``browser_tool_call`` events): every entry one or the other, both kinds present."""
    if not isinstance(items, list) or len(items) < 2 or str(key).lower() in DECLARATION_KEYS:
        return False
    kinds = {"event" if is_tool_event(item) else "call" if is_call_record(item) else None for item in items[:200]}
    return kinds == {"event", "call"}


def mixed_log_messages(items: list) -> list[dict[str, Any]]:
    """A mixed log in order; a single model call among the events drove them all: its prompt opens the
    run and its response closes it."""
    calls = [item for item in items if not is_tool_event(item)]
    if len(calls) == 1:
        (call,) = calls
        opening_turns = call_prompt(call, "call")
        closing_turns = response_messages(first_present(call, RESPONSE_KEYS), "call")
        return opening_turns + tool_event_messages([i for i in items if i is not call]) + closing_turns
    messages: list[dict[str, Any]] = []
    for item in items:
        messages += tool_event_messages([item]) if is_tool_event(item) else call_messages([item])
    return messages


def longest_per_record(found: list[Found]) -> list[Found]:
    """Per record, its longest list (the run: a prompt beside it, or the growing prompts of each step,
    repeat its turns), and every other turn list whose model turns are its own (each agent's history in
    a multi-agent record), in the order found."""
    groups: dict[int | str, list[Found]] = {}
    for item in found:  # lists held by no object (a file that is a list of conversations) are their own
        groups.setdefault(id(item.record) if item.record is not None else item.path, []).append(item)
    kept = []
    for group in groups.values():
        longest = max(group, key=lambda item: len(item.items))
        kept += [item for item in group if item is longest or own_turns(item, longest)]
    return kept


def turn_signature(turn: dict) -> str:
    """What a turn says and calls, to compare turns across lists."""
    return json.dumps([turn_text(content_of(turn)).strip(), turn.get("tool_calls"), turn.get("function_call")],
                      sort_keys=True, default=str)


def own_turns(item: Found, longest: Found) -> bool:
    """Whether a turn list beside the longest one holds model turns of its own (most not in the longest)."""
    if item.kind != "turns" or longest.kind != "turns":
        return False
    said = {turn_signature(turn) for turn in longest.items if isinstance(turn, dict)}
    model = [turn_signature(turn) for turn in item.items if isinstance(turn, dict)
             and ROLE_ALIASES.get((speaker_of(turn) or "").lower()) == "assistant"]
    return bool(model) and sum(text in said for text in model) * 2 < len(model)


# --- the format -----------------------------------------------------------------------------------


def record_field(holders: list[dict], keys: tuple[str, ...]) -> str:
    """The first text a holder keeps under one of ``keys``, written snake_case or camelCase
    (``task_description`` / ``taskDescription``)."""
    return next((value for holder in holders for key in keys for spelling in (key, camel_case(key))
                 if isinstance(value := holder.get(spelling), str) and value.strip()), "")


def system_text(holders: list[dict]) -> str:
    """The system prompt a record keeps beside its turns: text under a system key, or a content value there
    (Gemini's ``systemInstruction: {parts: [{text}]}``, a list of text blocks)."""
    if found := record_field(holders, SYSTEM_KEYS):
        return found
    values = (holder.get(spelling) for holder in holders for key in SYSTEM_KEYS for spelling in (key, camel_case(key)))
    return next((text for value in values if isinstance(value, (dict, list)) and (text := turn_text(value)).strip()), "")


def task_text(holders: list[dict], *, nested: bool = False) -> str:
    """The task a record keeps beside its run: under a task key (``TASK_KEYS``), else under a key that names
    one among other words (``webshop_instruction``, ``user_intent``, ``original_question``) and holds
    prose (several words, not an id or a label); with ``nested``, else the same found in the objects the record
    nests (``metadata.task.goal``, ``config: {objective}``: nearest first, lists not entered), for a run that
    has no task of its own."""
    for level in nested_levels(holders, 3 if nested else 0):
        if found := record_field(level, TASK_KEYS) or worded_task(level):
            return found
    return ""


def worded_task(holders: list[dict]) -> str:
    for holder in holders:
        for key, value in holder.items():
            words = set(re.split(r"[^a-z]+", camel_to_snake(str(key))))
            if (words & TASK_WORDS and not words & {"id", "ids", "type", "name", "index", "idx"}
                    and isinstance(value, str) and len(value.split()) >= 3):
                return value
    return ""


def nested_levels(holders: list[dict], depth: int = 3) -> Iterator[list[dict]]:
    """``holders``, then the objects their fields hold, level by level (``depth`` levels below)."""
    level = holders
    for _ in range(depth + 1):
        if not level:
            return
        yield level
        level = [child for holder in level for child in holder.values() if isinstance(child, dict)][:200]


TASK_WORDS = frozenset({"task", "question", "instruction", "query", "problem", "goal", "intent", "objective",
                        "request", "prompt"})


def camel_to_snake(key: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key).lower()


def camel_case(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word.capitalize() for word in rest)


def record_id(found: Found) -> str:
    """The run's own id: an id field of its record, else of the objects above it (nearest first), else
    the record's key where it sits in an object keyed by ids (``{"6238": {...}}``)."""
    for holder in [h for h in (found.record, *found.ancestors) if isinstance(h, dict)]:
        for key in (spelling for name in ID_KEYS for spelling in (name, camel_case(name))):
            value = holder.get(key)
            if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
                return str(value)
    return found.record_key if any(ch.isdigit() for ch in found.record_key) else ""


def opening(messages: list[dict[str, Any]], holders: list[dict]) -> list[dict[str, Any]]:
    """The system prompt and task a record keeps beside its turns, when the turns lack them."""
    head: list[dict[str, Any]] = []
    if not any(m["role"] == "system" and not calls_as_text(m["content"]) for m in messages) and (
            system := system_text(holders)):
        head.append(message("system", system))
    first_model = next((i for i, m in enumerate(messages) if m["role"] == "assistant"), len(messages))
    has_user = any(m["role"] == "user" and not m["observation"] and m["content"].strip() for m in messages[:first_model])
    if not has_user and (task := task_text(holders, nested=True) or (acts(messages) and short_task(holders))):
        head.append(message("user", task))
    return head


# Words of a key that holds something other than a request though it names an input (``input_tokens``).
NOT_TASK_WORDS = frozenset({"id", "ids", "type", "name", "index", "idx", "tokens", "mode", "format", "schema",
                            "file", "path", "url", "size", "length", "count", "guardrail", "guardrails"})


def acts(messages: list[dict[str, Any]]) -> bool:
    """Whether the model made a call in the run and a result came back: replies that are work, not talk."""
    return any(m["tool_calls"] for m in messages if m["role"] == "assistant") and any(
        m["observation"] or m["role"] == "tool" for m in messages)


def short_task(holders: list[dict]) -> str:
    """A request of fewer words than ``worded_task`` asks for (``originalInput: "run once"``, an agent SDK's saved
    run state) under a key naming a request or an input, on the record itself; taken only for a run whose model
    calls tools and gets their results (``acts``), where the words set the work the run does."""
    for holder in holders[:1]:
        for key, value in holder.items():
            words = set(re.split(r"[^a-z]+", camel_to_snake(str(key))))
            if (words & (TASK_WORDS | {"input"}) and not words & NOT_TASK_WORDS and isinstance(value, str)
                    and value.strip() and "\n" not in value.strip() and any(c.isalpha() for c in value)):
                return value.strip()
    return ""


def calls_as_text(text: str) -> bool:
    """Whether a turn's text is only calls written as JSON (``parts.role_keyed_turns``: a harness's calls under
    ``role: system``): such a turn is no system prompt, so the record's own ``system`` text still opens the run."""
    if not text.lstrip().startswith("[{"):
        return False
    try:
        calls = json.loads(text)
    except ValueError:
        return False
    return isinstance(calls, list) and bool(calls) and all(isinstance(c, dict) and call_name(c) for c in calls)


def closing(messages: list[dict[str, Any]], holders: list[dict]) -> list[dict[str, Any]]:
    """The final answer a record keeps beside its steps (``final_output``), as the closing model turn,
    unless the last model turn already says it."""
    final = record_field(holders, FINAL_KEYS).strip()
    if not final and holders and is_call_record(holders[0]):  # the response of a call that kept its run
        final = "\n".join(m["content"] for m in response_messages(first_present(holders[0], RESPONSE_KEYS), "")).strip()
    last = next((m["content"] for m in reversed(messages) if m["role"] == "assistant"), "")
    return [message("assistant", final)] if final and final not in last else []


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
    read = {"turns": lambda items: turn_messages(items, speakers), "steps": step_messages, "calls": run_calls,
            "events": tool_event_messages, "mixed": mixed_log_messages, "actions": action_messages,
            "attempts": lambda items: attempt_messages(items[0]), "messages": list, "exchanges": exchange_messages, "text": lambda items: text_run(items[0])}[found.kind]
    messages = read(found.items)
    first = found.items[0] if found.kind == "calls" and found.items and isinstance(found.items[0], dict) else None
    head = opening(messages, holders + [first] if first is not None else holders)  # a chat's first round's ``system``
    lead = next((i for i, m in enumerate(messages) if m["role"] != "system" or calls_as_text(m["content"])),
                len(messages))
    messages = flag_text_observations(messages[:lead] + head + messages[lead:] + closing(messages, holders))
    if found.kind == "calls" and (instruction := call_instruction(holders, messages)):
        messages.insert(0, message("system", instruction))  # Alpaca's ``instruction`` beside ``input``
    extra = {"path": found.path, "layout": found.kind}
    if found.left_out:
        extra["entries_left_out"] = found.left_out
    if found.branch_unread:
        extra["branch_unread"] = found.branch_unread
    if rid := record_id(found):
        extra["record_id"] = rid
    tools = next((declared_tools(h.get("tools")) for h in holders if isinstance(h.get("tools"), list)), [])
    return Transcript(format="shape", messages=messages, facts=outcome(holders), tools=tools, extra=extra)


def run_calls(calls: list) -> list[dict[str, Any]]:
    """A list of call records as one run: a graph's nodes, each passed what the one before returned
    (``piped``), or calls each sent the conversation so far (``call_messages``)."""
    return piped_messages(calls) if is_piped_run(calls) else call_messages(calls)


def call_instruction(holders: list[dict], messages: list[dict[str, Any]]) -> str:
    """The instruction a call record, or the record above it, keeps beside what the call was sent
    (``{instruction, input, output}``; ``{instruction, instances: [{input, output}]}``): prose under a task
    key that is no prompt key, which no turn says, in a run that opens with its user turn and has no system
    turn. It is the context the call answered in (its system turn), never silently dropped."""
    if not messages or messages[0]["role"] != "user" or any(m["role"] == "system" for m in messages):
        return ""
    for holder in holders:
        for key in (k for k in TASK_KEYS if k not in PROMPT_KEYS):
            text = holder.get(key)
            if isinstance(text, str) and is_spoken(text) and not any(text.strip() in m["content"] for m in messages):
                return text.strip()
    return ""


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
    return with_rows_left_out(value, one_per_trace(found, [transcript_of(item, speakers) for item in found]))


def one_per_trace(found: list[Found], transcripts: list[Transcript]) -> list[Transcript]:
    """Per trace export (``traces``: spans of one run, each holding a view of it), only the view holding the
    most messages (the later of equals: the last call saw the whole run); lists outside a trace as they are."""
    best: dict[int, int] = {}
    holders = [trace_holder(item.record, item.ancestors) for item in found]
    for index, holder in enumerate(holders):
        if holder is not None and (holder not in best or len(transcripts[index].messages) >= len(
                transcripts[best[holder]].messages)):
            best[holder] = index
    return [t for i, t in enumerate(transcripts) if holders[i] is None or best[holders[i]] == i]


def parse_scored(value: Any, speakers: dict[str, str] | None = None) -> list[Transcript]:
    """The transcripts of ``value`` by score (``scored``): the best candidate sequence (one per record of a
    dataset), read as any turn list, with its record's task and id (``transcript.layout: scored``)."""
    transcripts = []
    for candidate in scored_candidates(value):
        record = candidate.record
        if record is None and candidate.path == "$" and isinstance(value, list):  # a log's header record
            record = next((v for v in value[:3] if isinstance(v, dict) and task_text([v]).strip()), None)
        found = Found(candidate.path, candidate.turns, "turns", record, "", candidate.ancestors, candidate.left_out)
        transcript = transcript_of(found, speakers or record_task_speakers(found))
        transcript.extra["layout"] = "scored"
        instructed(transcript.messages, [h for h in (record, *candidate.ancestors) if isinstance(h, dict)])
        transcripts.append(transcript)
    return transcripts


def instructed(messages: list[dict[str, Any]], holders: list[dict]) -> None:
    """A run whose own user turn opens it, kept beside an instruction of its record (``meta_instruction``)
    that no turn says: that instruction is what the model was told, its system turn (in place)."""
    if not messages or messages[0]["role"] != "user" or any(m["role"] == "system" for m in messages):
        return
    instruction = task_text(holders).strip()
    if instruction and len(instruction.split()) >= 5 and not any(instruction in m["content"] for m in messages):
        messages.insert(0, message("system", instruction))


def record_task_speakers(found: Found) -> dict[str, str] | None:
    """Where a record keeps the task beside turns of named speakers none of whom is a user (a debate's
    question beside its agents' turns), every name is a model: the task opens the run, not the first agent."""
    holders = [h for h in (found.record, *found.ancestors) if isinstance(h, dict)]
    names = {speaker_of(turn) or "" for turn in found.items}
    if any(ROLE_ALIASES.get(name.lower()) == "user" for name in names) or not task_text(holders).strip():
        return None
    return {name: "assistant" for name in names if name.lower() not in ROLE_ALIASES}


def with_rows_left_out(value: Any, transcripts: list[Transcript]) -> list[Transcript]:
    """For a file that is a list of records (a dataset), each record holding no conversation as an empty
    transcript at its place (``layout: none``), so the reader accounts for it (``no_conversation``)
    instead of leaving it silently out."""
    if not isinstance(value, list) or len(value) < 2:
        return transcripts
    covered = {row_index(t) for t in transcripts}
    if -1 in covered:
        return transcripts
    missing = [answered_task(value[i], f"$[{i}]") for i in range(len(value)) if i not in covered]
    return sorted(transcripts + missing, key=row_index)


def answered_task(row: Any, path: str) -> Transcript:
    """A row of a dataset with no conversation: its task and final answer when it keeps both (a run that
    called no tool), else its run by score (``parse_scored``), else an empty transcript (``layout: none``)
    the reader quarantines."""
    holders = [row] if isinstance(row, dict) else []
    task, final = record_field(holders, TASK_KEYS), record_field(holders, FINAL_KEYS)
    if task.strip() and final.strip():
        messages = [message("user", task), message("assistant", final)]
        return Transcript(format="shape", messages=messages, facts=outcome(holders),
                          extra={"path": path, "layout": "answer"})
    try:
        scored = parse_scored(row)
    except TranscriptShapeError:
        scored = []
    if len(scored) == 1:  # the row's own run, by score
        scored[0].extra["path"] = path + scored[0].extra["path"].removeprefix("$")
        return scored[0]
    return Transcript(format="shape", messages=[], extra={"path": path, "layout": "none"})


def row_index(transcript: Transcript) -> int:
    """The row of a list of records a transcript was found in (``$[3].traj`` -> 3), -1 if none."""
    head = transcript.extra.get("path", "").removeprefix("$[").split("]", 1)[0]
    return int(head) if head.isdigit() else -1


SHAPE = Format(name="shape", container="json", detect=detect_shape, parse=parse_shape)


# Keys that hold a run's turns in the layouts seen so far; an empty one is an empty conversation, not
# an unknown layout.
CONVERSATION_KEYS = frozenset({"messages", "conversations", "conversation", "history", "trajectory", "traj", "turns",
                               "chat", "dialog", "dialogue", "steps", "events", "transcript", "loglines", "items"})


# Of those, the keys whose bare strings are utterances; bare strings under ``steps``, ``events`` or ``items``
# are a plan's steps or a log's lines, no one's words (an agent's ``plan_created`` event listing its steps).
SPOKEN_KEYS = frozenset({"conversations", "conversation", "history", "turns", "chat", "dialog", "dialogue",
                         "transcript", "messages", "utterances"})


def empty_conversation(value: Any) -> str | None:
    """The path of an empty turn list (``{"messages": []}``) when ``value`` holds one and no non-empty
    one under a conversation key, or of a call record's empty response (``{"input": ..., "output": ""}``);
    None otherwise."""
    if isinstance(value, dict) and first_present(value, PROMPT_KEYS) is not None:
        empty_reply = next((k for k in RESPONSE_KEYS if k in value and value[k] in (None, "", [], {})), None)
        if empty_reply is not None and first_present(value, RESPONSE_KEYS) is None:
            return f"$.{empty_reply}"
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


# --- a JSONL file whose lines are the turns of one conversation -----------------------------------


def detect_turn_line(entry: Any) -> bool:
    """A JSONL line that is one turn (a speaker and text or calls, or an envelope around one), not a row
    holding a conversation."""
    return (isinstance(entry, dict) and unwrap_turn(entry) is not None
            and not any(isinstance(entry.get(key), list) and is_turn_list(entry[key]) for key in entry))


def turn_lines_after_header(entries: list) -> bool:
    """The first lines of a JSONL file of turns that opens with lines of another kind (a session header, a
    metadata record): of the first lines, at least two are turns, the others carry no text."""
    turns = [entry for entry in entries if detect_turn_line(entry)]
    return len(turns) >= 2 and all(detect_turn_line(entry) or is_tool_event(entry) or is_silent(entry)
                                   for entry in entries)


def other_kind(entry: Any, kinds: set) -> bool:
    """Whether a line names a kind (``type``) that none of the file's turn lines has (pi's ``custom_message``
    context notes among its ``message`` lines), where the turn lines name theirs."""
    return (isinstance(entry, dict) and isinstance(entry.get("type"), str) and None not in kinds and bool(kinds)
            and entry["type"] not in kinds)


def is_silent(entry: Any) -> bool:
    """A line that carries no text under a content key (a header, a usage or state record)."""
    return isinstance(entry, dict) and not turn_text(content_of(entry)).strip() and unwrap_turn(entry) is None


# A file of turns is read when at most one line in twenty is of no shape the reader knows (a corrupted record, a
# kind no other line has): those lines are counted (``entries_unread``) and the first named, not read; more, and
# the file is no file of turns. One odd line never costs the session's other turns.
MAX_UNREAD_SHARE = 0.05


def parse_turn_lines(entries: list) -> list[Transcript]:
    """The turns of one conversation, a line each (``{"role": "User", "text": ...}`` per line, or an
    envelope around one); a line that is a logged tool call (``{name, arguments, result}``) between them is
    the model's call and its result; a line with no text (a header, a usage record) is left out and counted
    (``entries_left_out``). A message streamed in parts over several lines is one (``events.merged_chunks``);
    a file that several sessions were appended to is one transcript per session (``appended_sessions``)."""
    if len(sessions := appended_sessions(entries)) > 1 or len(sessions := marked_runs(entries)) > 1:
        return [t for part in sessions for t in parse_turn_lines(part) if t.messages]
    entries = superseded([status_result(requested_turn(entry)) for entry in merged_chunks(entries) or entries])
    kinds = {entry.get("type") for entry in entries if detect_turn_line(entry) and isinstance(entry, dict)}
    entries = [models_line(entry, kinds) for entry in entries]
    turns = [unwrap_turn(entry) for entry in entries if detect_turn_line(entry)]
    roles = speaker_roles(turns)
    messages: list[dict[str, Any]] = []
    left_out, unread, after_lone_part = 0, [], False
    for index, entry in enumerate(entries, 1):
        if detect_turn_line(entry):
            line = turn_messages([unwrap_turn(entry)], roles)
            turn = unwrap_turn(entry)
            if (isinstance(turn, dict) and (kinded_turn(turn) or {}).get(CALL_EVENT) and len(line) == 1 and messages
                    and messages[-1]["role"] == "assistant" and not messages[-1]["observation"]):
                messages[-1]["tool_calls"] = [*messages[-1]["tool_calls"], *line[0]["tool_calls"]]  # its turn's call
                continue
            if lone_block(turn) and after_lone_part and len(line) == 1 and joins_turn(messages[-1], line[0]):
                join_part(messages[-1], line[0])  # the model's turn written a part per line: one message
                continue
            after_lone_part = lone_block(turn) and len(line) == 1
            messages += line
            continue
        after_lone_part = False
        if is_tool_event(entry):
            messages += tool_event_messages([entry])
        elif is_silent(entry) or other_kind(entry, kinds):
            left_out += 1  # a header, a usage record, or an entry of a kind no turn is (a harness's context notes)
        else:
            keys = sorted(map(str, entry))[:10] if isinstance(entry, dict) else type(entry).__name__
            unread.append(f"line {index} is no turn and no tool call ({keys}) in a file of turns")
    if len(unread) > MAX_UNREAD_SHARE * len(entries):  # a file of some other kind, not a few odd lines
        raise TranscriptShapeError(unread[0])
    if sum(1 for e in entries if other_kind(e, kinds) and not is_silent(e) and holds_words(e)) > len(turns):
        # most lines that say something are of kinds no turn is: an event log with a few turn-shaped events
        raise TranscriptShapeError(f"{len(turns)} turn lines among more lines of other kinds that say something")
    messages = flag_text_observations(messages)
    extra: dict[str, Any] = {"layout": "turns", **({"entries_left_out": left_out} if left_out else {}),
                             **({"entries_unread": len(unread), "first_unread": unread[0]} if unread else {})}
    return [Transcript(format="turn-lines", messages=messages, facts=outcome(entries), extra=extra)]


def holds_words(entry: Any) -> bool:
    """Whether a record holds prose anywhere (a string of several words), not only ids, names and numbers."""
    if isinstance(entry, str):
        return len(entry.split()) >= 3
    if isinstance(entry, dict):
        return any(holds_words(v) for v in entry.values())
    return isinstance(entry, list) and any(holds_words(v) for v in entry[:50])


def joins_turn(previous: dict[str, Any], part: dict[str, Any]) -> bool:
    """Whether a part written on a line of its own continues the model's turn before it (the model's, no tool's)."""
    return previous["role"] == part["role"] == "assistant" and not previous["observation"] and not part["observation"]


def join_part(turn: dict[str, Any], part: dict[str, Any]) -> None:
    """``part`` (thinking, words or a call, read from its own line) added to the model's ``turn``."""
    turn["content"] = "\n\n".join(t for t in (turn["content"], part["content"]) if t)
    turn["reasoning"] = "\n\n".join(t for t in (turn["reasoning"], part["reasoning"]) if t)
    turn["tool_calls"] = [*turn["tool_calls"], *part["tool_calls"]]


# Where a line that opens a session names it (Gemini CLI's ``stream-json`` ``init`` record).
SESSION_KEYS = ("session_id", "sessionId", "thread_id", "threadId", "conversation_id", "conversationId")


def session_of(entry: Any) -> str:
    """The session a line of no text opens (its ``SESSION_KEYS`` value), or ""."""
    if not isinstance(entry, dict) or not is_silent(entry):
        return ""
    return next((str(entry[k]) for k in SESSION_KEYS if isinstance(entry.get(k), (str, int)) and str(entry[k])), "")


def appended_sessions(entries: list) -> list[list]:
    """The sessions of a JSONL file of turns that a harness appended run after run, each opened by a line of no
    text naming its session (Gemini CLI's ``stream-json`` ``init``): the lines from each opening to the next,
    the person's lines written just before an opening (the task the harness logged) going with the session they
    open. One list (the whole file) unless two sessions or more open in it."""
    openers = [index for index, entry in enumerate(entries) if session_of(entry)]
    if len({session_of(entries[index]) for index in openers}) < 2:
        return [entries]
    starts = [0]
    for index in openers[1:]:
        while index > starts[-1] and person_line(entries[index - 1]):
            index -= 1
        starts.append(index)
    return [entries[a:b] for a, b in zip(starts, [*starts[1:], len(entries)])]


# Ids that name a run (not a message): a log of turns keeping several runs marks each turn with its run's id.
RUN_ID_KEYS = ("task_id", "session_id", "conversation_id", "trajectory_id", "run_id", "episode_id", "dialog_id",
               "thread_id", "chat_id")


def marked_runs(entries: list) -> list[list]:
    """The runs of a file of turn lines that several conversations were written to one after another, every turn
    line marked with its run's id (``conversation_id``: a marketplace's chats, c1, c2, c3): one block per id, in
    order (each id one block, two at least; lines of no turn go with the block they sit in). One list (the whole
    file) otherwise."""
    turns = [entry for entry in entries if detect_turn_line(entry)]
    for key in RUN_ID_KEYS:
        ids = [entry.get(key) if isinstance(entry, dict) else None for entry in turns]
        if not all(isinstance(i, (str, int)) and not isinstance(i, bool) for i in ids):
            continue
        blocks = [next(group)[key] for _, group in itertools.groupby(turns, key=lambda entry: entry[key])]
        if not 2 <= len(blocks) == len(set(blocks)) or len(blocks) * 2 > len(turns):
            return [entries]
        runs, current = [], None
        for entry in entries:
            marked = entry.get(key) if isinstance(entry, dict) and detect_turn_line(entry) else current
            if marked != current or not runs:
                runs.append([])
                current = marked
            runs[-1].append(entry)
        return runs
    return [entries]


def person_line(entry: Any) -> bool:
    return detect_turn_line(entry) and ROLE_ALIASES.get((speaker_of(unwrap_turn(entry)) or "").lower()) == "user"


def status_result(entry: Any) -> Any:
    """A tool's result line that keeps no output, only its call's id and a ``status`` (``{type: tool_result,
    tool_id, status: success}``: the call printed nothing): that status is its result, not a line left out."""
    if (not isinstance(entry, dict) or ROLE_ALIASES.get((speaker_of(entry) or "").lower()) != "tool"
            or has_text_or_calls(entry) or not isinstance(entry.get("status"), str) or not entry["status"].strip()
            or len(entry["status"]) > 40 or not any(entry.get(k) for k in ("tool_id", "tool_call_id", "call_id", "toolCallId"))):
        return entry
    return {**entry, "output": entry["status"]}


def models_line(entry: Any, kinds: set) -> Any:
    """A line of a kind no turn line has (``other_kind``) that names the model that wrote it (``model``) or makes
    calls is the model's turn (Gemini CLI's JSONL session: ``type: user`` lines are turns, ``type: gemini`` lines
    the model's; its ``info`` notes, naming no model, stay left out)."""
    if not other_kind(entry, kinds) or detect_turn_line(entry) or not (
            isinstance(entry.get("model"), str) or listed_call_records(entry)):
        return entry
    return {**entry, "role": "assistant"}


def superseded(entries: list) -> list:
    """The lines of an append-only log with each record re-written under the same ``id`` and ``type`` kept once,
    as its last copy, where that copy holds all the earlier one did (Gemini CLI appends a message again once
    its calls finished: an empty reply, then the same reply with its ``toolCalls``); block records that share
    an id but each hold other content (a streamed message's parts) all stay."""
    last = {}
    for index, entry in enumerate(entries):
        if isinstance(entry, dict) and isinstance(entry.get("id"), str) and entry["id"]:
            last[(entry["id"], str(entry.get("type")))] = index
    kept = []
    for index, entry in enumerate(entries):
        later = last.get((entry.get("id"), str(entry.get("type")))) if isinstance(entry, dict) and isinstance(
            entry.get("id"), str) else None
        if later is not None and later != index and holds_all(entries[later], entry):
            continue
        kept.append(entry)
    return kept


def holds_all(later: dict, earlier: dict) -> bool:
    """Whether ``later`` says everything ``earlier`` does: its text, or more, and every call."""
    said, says = turn_text(content_of(earlier)), turn_text(content_of(later))
    return (not said.strip() or said == says) and len(listed_call_records(later)) >= len(listed_call_records(earlier))


TURN_LINES = Format(name="turn-lines", container="session", detect=detect_turn_line, parse=parse_turn_lines)
