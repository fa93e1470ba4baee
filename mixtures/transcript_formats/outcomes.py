"""Outcome facts read from the messages, for every format alike: the submit action and the last test run.

Recorded facts (a file's ``info.exit_status``, ``submission``, ``resolved``...) come first; these fill in
only what a file did not record, and ``outcome_evidence`` says where each fact came from.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

# The agents' "I am done" actions, by what they mean: SWE-agent `submit`, OpenHands `finish`, Cline
# `attempt_completion`, Terminal-style `task_complete`, LangChain/smolagents `final_answer`. A call, an
# XML-style tool tag (`<attempt_completion>`) or a ReAct action line (`Action: finish[...]`) with one of
# these names, in the agent's last turn, is a submission. ``sft.submit_actions`` replaces the list.
SUBMIT_TOOLS = frozenset({"submit", "finish", "attempt_completion", "task_complete", "complete_task", "final_answer",
                          "submit_answer", "finish_task", "mark_task_complete", "done"})
# mini-swe-agent's end-of-run command (v1+: COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT, v0: MINI_SWE_AGENT_FINAL_OUTPUT).
SUBMIT_MARKERS = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")
# SWE-agent without function calling: the command is the last fenced block of the reply.
SUBMIT_COMMAND = re.compile(r"```[\w-]*\n\s*submit\s*\n```\s*$")
# A tool named in text: an XML-style tag opening a line, or a ReAct action line `Action[ N]: name[...]`.
_TEXT_ACTION_NAME = re.compile(r"^\s*<([A-Za-z_][\w-]*)>|^\s*Action(?: \d+)?:\s*([A-Za-z_][\w-]*)\s*[\[(]",
                               re.MULTILINE)


# pytest's closing line, with or without the ==== frame: "1 failed, 3 passed, 2 warnings in 0.12s".
# Both use [^\S\n]* (not \s*) where a run of blank lines could be split many ways, which made a
# non-match super-linear: 32,000 blank lines took 36 s, and "Ran 1 test in 0.1s" followed by
# 1,000 blank lines 17 s in the unittest pattern (cubic), so one odd tool output could stall a crawl.
_PYTEST_SUMMARY = re.compile(
    r"^=*[^\S\n]*((?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|rerun)(?:, )?)+)"
    r" in [\d.]+s\b", re.MULTILINE)
# unittest: "Ran 5 tests in 0.010s" then a blank line and "OK" / "OK (skipped=1)" / "FAILED (failures=2)".
_UNITTEST_SUMMARY = re.compile(r"^Ran (\d+) tests? in [\d.]+s[^\S\n]*\n\s*((?:OK|FAILED)\b.*)$", re.MULTILINE)


def outcome_facts(recorded: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
    """``recorded`` completed from the messages: ``submitted`` from a submit action in the agent's last
    turn, ``tests_passed`` from ``resolved`` or else the last test run in the environment's output."""
    facts = dict(recorded)
    evidence = {key: "recorded" for key in facts}
    if "submitted" not in facts and ended_with_submit(messages):
        facts["submitted"], evidence["submitted"] = True, "submit_action"
    if "tests_passed" not in facts and "resolved" in facts:
        facts["tests_passed"], evidence["tests_passed"] = facts["resolved"], "resolved"
    if "tests_passed" not in facts and (last_run := last_test_summary(messages)) is not None:
        facts["tests_passed"], evidence["tests_passed"] = last_run[0], "test_output"
    return facts | ({"outcome_evidence": evidence} if evidence else {})


def model_turns(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The turns the model wrote in this run (not observations such as a demonstration's replies)."""
    return [m for m in messages if m["role"] == "assistant" and not m.get("observation")]


def ended_with_submit(messages: list[dict[str, Any]], names: frozenset[str] | None = None) -> bool:
    """Whether the agent's last turn issued the submit action (not merely mentioned it earlier):
    a call, tool tag or action line named in ``names`` (default ``SUBMIT_TOOLS``), compared without
    case, or a submit marker."""
    turns = model_turns(messages)
    if not turns:
        return False
    names = SUBMIT_TOOLS if names is None else frozenset(n.lower() for n in names)
    last = turns[-1]
    called = any(call["name"].lower() in names for call in last["tool_calls"])
    written = any((m.group(1) or m.group(2)).lower() in names for m in _TEXT_ACTION_NAME.finditer(last["content"]))
    return called or written or any(marker in last["content"] for marker in SUBMIT_MARKERS) or bool(
        SUBMIT_COMMAND.search(last["content"]))


def parse_test_summary(output: str) -> tuple[bool, str] | None:
    """``(passed, summary line)`` of the last pytest or unittest summary in ``output``, else None.

    Passed means at least one test passed and none failed or errored.
    """
    found = [(m.start(), "passed" in m.group(1) and not re.search(r"\b(failed|errors?)\b", m.group(1)),
              m.group(1).strip()) for m in _PYTEST_SUMMARY.finditer(output)]
    found += [(m.start(), m.group(2).startswith("OK") and m.group(1) != "0",
               f"Ran {m.group(1)} tests: {m.group(2).strip()}") for m in _UNITTEST_SUMMARY.finditer(output)]
    return max(found)[1:] if found else None


def exec_output(content: str) -> str:
    """Command output as the tool printed it: Codex returns its shell output as a JSON object
    ``{"output": ..., "metadata": {"exit_code": ...}}``, whose escaped newlines hide the summary line."""
    if content.startswith('{"output"'):
        with contextlib.suppress(ValueError, RecursionError):
            decoded = json.loads(content)
            if isinstance(decoded, dict) and isinstance(decoded.get("output"), str):
                return decoded["output"]
    return content


def last_test_summary(messages: list[dict[str, Any]]) -> tuple[bool, str] | None:
    """The result of the last test run in what the environment returned after the agent first acted
    (before that, a task may quote a failing run)."""
    first = next((i for i, m in enumerate(messages) if m["role"] == "assistant" and not m.get("observation")),
                 len(messages))
    for message in reversed(messages[first:]):
        if message.get("observation", message["role"] == "tool"):  # flag absent: written before readers set it
            result = parse_test_summary(exec_output(message["content"]))
            if result is not None:
                return result
    return None
