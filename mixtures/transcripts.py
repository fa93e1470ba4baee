"""AI-agent transcripts -> one canonical message list (pure parsing; the reader is ``pipelines.readers.transcripts``).

Accepted shapes, recognised by structure rather than file name:

  * SWE-agent ``.traj``: an object with ``history`` (chat messages; assistant turns may carry
    OpenAI ``tool_calls``, tool results carry ``tool_call_ids``), ``trajectory`` and ``info``
    (``exit_status``, ``submission``)                                  -> format ``swe-agent``
  * mini-swe-agent: a JSON list of OpenAI-style messages, or an object with ``messages`` and an
    optional ``info``                                                   -> format ``mini-swe-agent``
  * JSONL (``.jsonl``/``.ndjson``, optionally compressed), one transcript per line: an object
    with ``messages`` or a bare list of messages                        -> format ``openai-jsonl``
  * Anthropic Messages API, in any of the containers above: ``content`` as blocks of type
    ``text``, ``tool_use`` ``{id, name, input}`` and ``tool_result`` ``{tool_use_id, content}``,
    and the system prompt in a top-level ``system`` field            -> format ``anthropic``.
    A user message holding ``tool_result`` blocks becomes one canonical ``tool`` message per
    result (named after the ``tool_use`` it answers), then a ``user`` message for any text left.
    ``thinking`` and image blocks carry nothing this schema keeps and are left out.

Every message is normalised to ``{role, content, tool_calls: [{id, name, arguments}],
tool_call_id, name}`` and rendered by the one chat template, ``mixtures.chat.render_messages``.

Outcome facts go to ``metadata`` only where the run shows them (absent rather than guessed):

  * ``exit_status`` and ``submitted`` from ``info``; failing that, ``submitted`` is True when the
    last assistant turn issued the agent's submit action (a ``submit`` tool call, or
    mini-swe-agent's ``echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT``);
  * ``tests_passed`` from ``info`` (``tests_passed``, or SWE-bench's ``resolved``); failing that,
    from the last pytest/unittest summary found in the tool output (``parse_test_summary``);
  * ``outcome_evidence``: where each inferred fact came from (``info``, ``submit_action``,
    ``test_output``), so a policy can tell a recorded outcome from an inferred one;
  * ``summary_turns``: indices of canonical messages the agent flagged as a summary of the work so
    far (``is_summary``/``isCompactSummary``/``message_type: summary``); none of the shared real
    runs has one;
  * ``tools``: the tool names the transcript declares (top-level OpenAI or Anthropic ``tools``).

Anything else is quarantined as ``unknown transcript shape: ...`` so a new agent format shows up
in the quarantine report instead of as silently empty documents.
"""

from __future__ import annotations

import json
import re
from typing import Any

TEXT_BLOCK_TYPES = frozenset({"text", "input_text", "output_text"})
ANTHROPIC_TOOL_BLOCKS = frozenset({"tool_use", "tool_result"})
# mini-swe-agent's end-of-run command (v1: COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT, v0: MINI_SWE_AGENT_FINAL_OUTPUT).
SUBMIT_MARKERS = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")
SUBMIT_TOOLS = frozenset({"submit"})
# Real transcripts nest about ten levels (container, messages, message, tool_calls, call, function,
# arguments...). Anything deeper is refused, so every later recursive walk of it (rendering, the
# ledger's json.dumps, Beam's pickling) stays far below Python's recursion limit of 1,000 at
# whatever stack depth the runner calls it.
MAX_JSON_DEPTH = 100


class TranscriptShapeError(ValueError):
    """The JSON parsed, but is not a transcript this reader knows."""

    def __init__(self, problem: str):
        super().__init__(f"unknown transcript shape: {problem}")


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether lists and objects in ``value`` nest more than ``limit`` levels; iterative, so a
    hostile value cannot make the check itself hit the recursion limit."""
    stack = [(value, 1)] if isinstance(value, (list, dict)) else []
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack += [(child, depth + 1) for child in children if isinstance(child, (list, dict))]
    return False


def transcript_format(parsed: Any, raw_messages: list[Any], default_format: str) -> str:
    """``anthropic`` when the messages use its tool blocks or system field, else by container."""
    if is_anthropic(parsed, raw_messages):
        return "anthropic"
    is_swe_agent = isinstance(parsed, dict) and _messages_key(parsed) == "history"
    return "swe-agent" if is_swe_agent else default_format


def is_anthropic(parsed: Any, raw_messages: list[Any]) -> bool:
    if isinstance(parsed, dict) and "system" in parsed and _messages_key(parsed) == "messages":
        return True
    return any(_block_types(message) & ANTHROPIC_TOOL_BLOCKS for message in raw_messages)


def _block_types(message: Any) -> set[str]:
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return set()
    return {block_type(block) for block in content}


def block_type(block: Any) -> str:
    """A content block's ``type``, or "" when the block is not an object or the type not a string.

    Every set lookup on block types goes through here: ``{"type": []}`` would otherwise raise
    TypeError (unhashable) and quarantine the whole file instead of being ignored like any
    other unknown block.
    """
    kind = block.get("type") if isinstance(block, dict) else None
    return kind if isinstance(kind, str) else ""


def split_transcript(parsed: Any) -> tuple[list[Any], dict[str, Any]]:
    """``(messages, info)`` from any accepted shape."""
    if isinstance(parsed, list):
        messages, info = parsed, {}
    elif isinstance(parsed, dict) and _messages_key(parsed):
        messages = parsed[_messages_key(parsed)]
        info = parsed.get("info") if isinstance(parsed.get("info"), dict) else {}
    elif isinstance(parsed, dict):
        raise TranscriptShapeError(f"object with keys {sorted(parsed)[:10]} has no 'history' or 'messages' list")
    else:
        raise TranscriptShapeError(f"a JSON {type(parsed).__name__}, not an object or a list of messages")
    if not messages:
        raise TranscriptShapeError("no messages")
    return messages, info


def _messages_key(parsed: dict[str, Any]) -> str:
    """``history`` (SWE-agent) or ``messages`` (everyone else), whichever holds a list; else ""."""
    return next((key for key in ("history", "messages") if isinstance(parsed.get(key), list)), "")


def system_messages(parsed: Any) -> list[dict[str, Any]]:
    """Anthropic keeps the system prompt beside the messages; it becomes the first message."""
    if not (isinstance(parsed, dict) and _messages_key(parsed) == "messages" and parsed.get("system")):
        return []
    return [{"role": "system", "content": parsed["system"]}]


def declared_tools(parsed: Any) -> list[str]:
    """Names in a top-level ``tools`` list: OpenAI ``{function: {name}}`` or Anthropic ``{name}``."""
    tools = parsed.get("tools") if isinstance(parsed, dict) else None
    names = []
    for tool in tools if isinstance(tools, list) else []:
        spec = tool.get("function") if isinstance(tool, dict) and isinstance(tool.get("function"), dict) else tool
        if isinstance(spec, dict) and isinstance(spec.get("name"), str) and spec["name"]:
            names.append(spec["name"])
    return sorted(set(names))


def normalize_messages(raw_messages: list[Any]) -> tuple[list[dict[str, Any]], list[int]]:
    """Canonical messages, and the indices of those the agent flagged as a summary.

    One raw message gives one canonical message, except an Anthropic user message with
    ``tool_result`` blocks, which gives one ``tool`` message per result (then its text, if any).
    """
    messages: list[dict[str, Any]] = []
    summary_turns: list[int] = []
    call_names: dict[str, str] = {}  # tool_use id -> tool name, to name Anthropic tool results
    for index, raw in enumerate(raw_messages):
        if _block_types(raw) & ANTHROPIC_TOOL_BLOCKS:
            produced = anthropic_messages(raw, index, call_names)
        else:
            produced = [normalize_message(raw, index)]
        if is_flagged_summary(raw):
            summary_turns += range(len(messages), len(messages) + len(produced))
        messages += produced
        call_names |= {call["id"]: call["name"] for m in produced for call in m["tool_calls"]}
    return messages, summary_turns


def is_flagged_summary(raw: Any) -> bool:
    """Agents that compact their context mark the summary message: Claude Code ``isCompactSummary``,
    SWE-agent-style ``message_type: summary``, or a plain ``is_summary``."""
    if not isinstance(raw, dict):
        return False
    return raw.get("is_summary") is True or raw.get("isCompactSummary") is True or raw.get("message_type") == "summary"


def anthropic_messages(message: dict[str, Any], index: int, call_names: dict[str, str]) -> list[dict[str, Any]]:
    """One Anthropic message with tool blocks -> canonical messages (see the module docstring)."""
    role = message.get("role")
    if role not in ("user", "assistant"):
        raise TranscriptShapeError(f"message {index} has tool blocks but role {role!r}")
    blocks = message["content"]
    text = content_text([b for b in blocks if block_type(b) not in ANTHROPIC_TOOL_BLOCKS], index)
    if role == "assistant":
        calls = [_anthropic_call(b, index) for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
        return [_canonical("assistant", text, tool_calls=calls)]
    results = [_anthropic_result(b, index, call_names) for b in blocks
               if isinstance(b, dict) and b.get("type") == "tool_result"]
    return results + ([_canonical("user", text)] if text else [])


def _anthropic_call(block: dict[str, Any], index: int) -> dict[str, Any]:
    """``tool_use {id, name, input}`` -> the OpenAI-shaped call ``normalize_tool_call`` reads."""
    return normalize_tool_call({"id": block.get("id"), "name": block.get("name"),
                                "arguments": block.get("input", {})}, index)


def _anthropic_result(block: dict[str, Any], index: int, call_names: dict[str, str]) -> dict[str, Any]:
    call_id = str(block.get("tool_use_id") or "")
    return _canonical("tool", content_text(block.get("content"), index), tool_call_id=call_id,
                      name=call_names.get(call_id, ""))


def _canonical(role: str, content: str, *, tool_calls: list[dict[str, Any]] | None = None,
               tool_call_id: str = "", name: str = "") -> dict[str, Any]:
    return {"role": role, "content": content, "tool_calls": tool_calls or [], "tool_call_id": tool_call_id,
            "name": name}


def normalize_message(message: Any, index: int) -> dict[str, Any]:
    """The canonical message; extra keys (SWE-agent's thought/action/agent) are left behind."""
    if not isinstance(message, dict):
        raise TranscriptShapeError(f"message {index} is a {type(message).__name__}, not an object")
    role = message.get("role")
    if not isinstance(role, str) or not role:
        raise TranscriptShapeError(f"message {index} has no role")
    call_ids = message.get("tool_call_ids")  # SWE-agent names the calls a tool result answers
    tool_call_id = message.get("tool_call_id") or (call_ids[0] if isinstance(call_ids, list) and call_ids else "")
    name = message.get("name")
    return {"role": role, "content": content_text(message.get("content"), index),
            "tool_calls": [normalize_tool_call(call, index) for call in _tool_calls(message, index)],
            "tool_call_id": str(tool_call_id), "name": name if isinstance(name, str) else ""}


def content_text(content: Any, index: int) -> str:
    """A string as is; a list of content blocks as its text blocks joined by newlines (images and
    other non-text blocks carry nothing a text model can train on)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise TranscriptShapeError(f"message {index} content is a {type(content).__name__}")
    texts = [block if isinstance(block, str) else block.get("text") for block in content
             if isinstance(block, str) or block_type(block) in TEXT_BLOCK_TYPES]
    return "\n".join(text for text in texts if isinstance(text, str))


def _tool_calls(message: dict[str, Any], index: int) -> list[Any]:
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise TranscriptShapeError(f"message {index} tool_calls is a {type(calls).__name__}, not a list")
    return calls


def normalize_tool_call(call: Any, index: int) -> dict[str, Any]:
    """OpenAI ``{id, function: {name, arguments}}`` (or flat ``{id, name, arguments}``) -> ``{id, name, arguments}``.

    OpenAI sends arguments as a JSON *string*; it is parsed when it holds an object, so the rendered
    ``<tool_call>`` shows ``"arguments": {...}`` as Hermes/Qwen chat templates do, not an escaped string.
    """
    if not isinstance(call, dict):
        raise TranscriptShapeError(f"message {index} has a tool call that is a {type(call).__name__}")
    function = call.get("function") if isinstance(call.get("function"), dict) else call
    name, arguments = function.get("name"), function.get("arguments", {})
    if not isinstance(name, str) or not name:
        raise TranscriptShapeError(f"message {index} has a tool call without a function name")
    if isinstance(arguments, str):
        try:
            decoded = json.loads(arguments)
            # Too deep to keep as an object (MAX_JSON_DEPTH): the string is kept, as for broken JSON.
            if isinstance(decoded, dict) and not nested_deeper_than(decoded, MAX_JSON_DEPTH):
                arguments = decoded
        except (ValueError, RecursionError):  # what json.loads raises on bad or too-deep input
            pass  # models do emit broken JSON; keep it verbatim, it is what the agent saw
    return {"id": str(call.get("id") or ""), "name": name, "arguments": arguments}


def outcome_fields(info: dict[str, Any]) -> dict[str, Any]:
    """``exit_status``, ``submitted`` and ``tests_passed`` where ``info`` recorded them; absent rather than guessed."""
    fields: dict[str, Any] = {}
    status = info.get("exit_status")
    if isinstance(status, str) and status:
        fields["exit_status"] = status
    if "submission" in info:
        fields["submitted"] = bool(info["submission"])
    elif "exit_status" in fields:
        # SWE-agent: "submitted", "submitted (exit_cost)"; mini-swe-agent: "Submitted".
        fields["submitted"] = status.lower().startswith("submitted")
    # SWE-bench's harness reports a resolved instance as "resolved": its FAIL_TO_PASS tests now pass.
    passed = next((info[key] for key in ("tests_passed", "resolved") if isinstance(info.get(key), bool)), None)
    if passed is not None:
        fields["tests_passed"] = passed
    return fields


def transcript_facts(messages: list[dict[str, Any]], info: dict[str, Any]) -> dict[str, Any]:
    """``outcome_fields(info)``, completed from what the messages show where ``info`` is silent."""
    fields, evidence = outcome_fields(info), {}
    if "submitted" not in fields and ended_with_submit(messages):
        fields["submitted"], evidence["submitted"] = True, "submit_action"
    if "tests_passed" not in fields:
        last_run = last_test_summary(messages)
        if last_run is not None:
            fields["tests_passed"], evidence["tests_passed"] = last_run[0], "test_output"
    evidence |= {key: "info" for key in ("exit_status", "submitted", "tests_passed")
                 if key in fields and key not in evidence}
    return fields | ({"outcome_evidence": evidence} if evidence else {})


def ended_with_submit(messages: list[dict[str, Any]]) -> bool:
    """Whether the last assistant turn issued the submit action (not merely mentioned it earlier)."""
    last = next((m for m in reversed(messages) if m["role"] == "assistant"), None)
    if last is None:
        return False
    called = any(call["name"] in SUBMIT_TOOLS for call in last["tool_calls"])
    return called or any(marker in last["content"] for marker in SUBMIT_MARKERS)


# pytest's closing line, with or without the ==== frame: "1 failed, 3 passed, 2 warnings in 0.12s".
# Both use [^\S\n]* (not \s*) where a run of blank lines could be split many ways, which made a
# non-match super-linear: 32,000 blank lines took 36 s here, and "Ran 1 test in 0.1s" followed by
# 1,000 blank lines 17 s in the unittest pattern (cubic), so one odd tool output could stall a crawl.
_PYTEST_SUMMARY = re.compile(
    r"^=*[^\S\n]*((?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|rerun)(?:, )?)+)"
    r" in [\d.]+s\b", re.MULTILINE)
# unittest: "Ran 5 tests in 0.010s" then a blank line and "OK" / "OK (skipped=1)" / "FAILED (failures=2)".
_UNITTEST_SUMMARY = re.compile(r"^Ran (\d+) tests? in [\d.]+s[^\S\n]*\n\s*((?:OK|FAILED)\b.*)$", re.MULTILINE)


def parse_test_summary(output: str) -> tuple[bool, str] | None:
    """``(passed, summary line)`` of the last pytest or unittest summary in ``output``, else None.

    Passed means at least one test passed and none failed or errored.
    """
    found = [(m.start(), "passed" in m.group(1) and not re.search(r"\b(failed|errors?)\b", m.group(1)),
              m.group(1).strip()) for m in _PYTEST_SUMMARY.finditer(output)]
    found += [(m.start(), m.group(2).startswith("OK") and m.group(1) != "0",
               f"Ran {m.group(1)} tests: {m.group(2).strip()}") for m in _UNITTEST_SUMMARY.finditer(output)]
    return max(found)[1:] if found else None


def last_test_summary(messages: list[dict[str, Any]]) -> tuple[bool, str] | None:
    """The result of the last test run in the environment's output: tool turns, and the user turns
    after the first assistant turn (mini-swe-agent returns command output as user turns). Turns
    before the agent acted are the task, which may quote a failing run."""
    first_action = next((i for i, m in enumerate(messages) if m["role"] == "assistant"), len(messages))
    for message in reversed(messages[first_action:]):
        if message["role"] in ("tool", "user"):
            result = parse_test_summary(message["content"])
            if result is not None:
                return result
    return None


def transcript_repo(parsed: Any, info: dict[str, Any]) -> str:
    """The repository the agent worked on, from ``info`` or ``environment`` when recorded; else ""."""
    holders = [info, parsed if isinstance(parsed, dict) else {}]
    environment = holders[1].get("environment")
    holders += [environment] if isinstance(environment, dict) else []
    for holder in holders:
        for key in ("repo_name", "repo", "github_url"):
            value = holder.get(key)
            if isinstance(value, dict):  # SWE-agent config: environment.repo = {github_url | path | repo_name}
                value = value.get("repo_name") or value.get("github_url") or value.get("path")
            if isinstance(value, str) and value:
                return value
    return ""
