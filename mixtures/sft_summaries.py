"""Continuation summaries: what an agent did so far, extracted from its transcript, to open a later SFT sample."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from tokenizers import Tokenizer

from codemix.mixtures.chat import is_model_turn
from codemix.mixtures.sft_tokens import encode_each
from codemix.mixtures.transcript_formats.canonical import parsed_arguments
from codemix.mixtures.transcripts import last_test_summary

PATCH_FILES = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.MULTILINE)  # Codex apply_patch input

SHELL_TOOLS = frozenset({"bash", "shell", "execute_bash", "run_command", "terminal", "exec", "run_shell_command"})
EDIT_TOOL_NAME = re.compile(r"edit|write|create|replace|insert|patch", re.IGNORECASE)
EDITOR_WRITE_COMMANDS = frozenset({"create", "str_replace", "insert", "write", "edit", "append"})
PATH_ARGUMENTS = ("path", "file_path", "filename", "file", "target_file")
FENCED_COMMAND = re.compile(r"```(?:mswea_bash_command|bash|sh|shell)[ \t]*\n(.*?)```", re.DOTALL)
# A shell command's first line, where edits show: `sed -i ... FILE`, `> FILE`, `>> FILE`, `tee FILE`.
SED_IN_PLACE = re.compile(r"\bsed\s+(?:-\w*i\w*|--in-place)\b.*\s([\w./-]+)\s*$")
REDIRECT_TARGET = re.compile(r"(?<![0-9&>])>>?\s*([\w./-]+)")
COMMAND_SEPARATOR = re.compile(r"&&|\|\||;|\|(?!&)")
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
TEE_TARGET = re.compile(r"\btee\s+(?:-a\s+)?([\w./-]+)")
TASK_CHARS = 240  # the task line of a summary: its gist; the full task is in the sample already
COMMAND_CHARS = 160
MIN_SUMMARY_TOKENS = 32  # below this a summary is a fragment; better to end the trajectory
SUMMARY_COMMANDS = 40  # most recent first; older ones are what a token budget cuts anyway


def extractive_summary(messages: Sequence[dict[str, Any]], *, since: int = 0) -> str:
    """What the agent did, from the transcript alone: the task (first user message, trimmed; only
    when ``since`` is 0), files touched, the last test result seen in tool output, and the
    commands run, most recent first. ``since`` limits the activity to ``messages[since:]``."""
    files, commands = [], []
    open_file = ""  # SWE-agent's edit acts on the file last opened
    for message in messages[since:]:
        for command, touched, now_open in _actions(message, open_file):
            commands.append(command)
            files += [path for path in touched if path not in files]
            open_file = now_open
    lines = [f"Task: {_task(messages)}"] if since == 0 and _task(messages) else []
    lines += [f"Files touched: {', '.join(files)}"] if files else []
    last_test = last_test_summary(list(messages[since:]))
    lines += [f"Last test run: {last_test[1]} ({'passed' if last_test[0] else 'failed'})"] if last_test else []
    recent = [_one_line(c, COMMAND_CHARS) for c in reversed(commands)][:SUMMARY_COMMANDS]
    lines += ["Commands run, most recent first:", *(f"- {c}" for c in recent)] if recent else []
    return "\n".join(lines)


def _task(messages: Sequence[dict[str, Any]]) -> str:
    first_user = next((m["content"] for m in messages if m["role"] == "user" and not m.get("observation")
                       and m["content"].strip()), "")
    return _one_line(first_user, TASK_CHARS)


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3].rstrip() + "..."


def _actions(message: dict[str, Any], open_file: str) -> list[tuple[str, list[str], str]]:
    """``(command, files edited, open file after it)`` for each action of a model turn."""
    if not is_model_turn(message):
        return []
    if not message["tool_calls"]:  # mini-swe-agent: one fenced bash block in the text
        return [(cmd, _shell_edits(cmd), open_file) for cmd in FENCED_COMMAND.findall(message["content"])]
    actions = []
    for call in message["tool_calls"]:
        action = _tool_action(call, open_file)
        open_file = action[2]
        actions.append(action)
    return actions


def _tool_action(call: dict[str, Any], open_file: str) -> tuple[str, list[str], str]:
    name, args = call["name"], arguments_object(call) or {}
    if call.get("kind", "function") != "function":  # free text: a Codex apply_patch names its files
        return name, PATCH_FILES.findall(str(call["arguments"])), open_file
    path = next((args[key] for key in PATH_ARGUMENTS if isinstance(args.get(key), str)), "")
    command = shell_command(args.get("command") if args.get("command") is not None else args.get("cmd"))
    if isinstance(command, str) and (name in SHELL_TOOLS or not path):
        return command, _shell_edits(command), open_file
    editor_write = args.get("command") in EDITOR_WRITE_COMMANDS
    edited = (path or open_file) if (EDIT_TOOL_NAME.search(name) or editor_write) else ""
    shown = " ".join(str(v) for v in args.values() if isinstance(v, str | int | float))
    return f"{name} {shown}".strip(), [edited] if edited else [], path if name == "open" and path else open_file


def shell_command(value: Any) -> str | None:
    """A command as a string; Codex's shell tool sends argv (``["bash", "-lc", "pytest -q"]``)."""
    if isinstance(value, list) and value and all(isinstance(part, str) for part in value):
        return value[-1] if len(value) == 3 and value[1] in ("-c", "-lc") else " ".join(value)
    return value if isinstance(value, str) else None


def _shell_edits(command: str) -> list[str]:
    """Files a shell command writes, judged on its first line (a heredoc body is data) with quoted
    strings blanked (``->`` in a sed script or ``python -c`` is no redirect), per ``&&``/``;``/``|`` part."""
    first = QUOTED.sub("''", command.strip().split("\n", 1)[0])
    found = []
    for part in COMMAND_SEPARATOR.split(first):
        found += SED_IN_PLACE.findall(part) + REDIRECT_TARGET.findall(part) + TEE_TARGET.findall(part)
    return [path for path in dict.fromkeys(found) if path != "/dev/null" and ("." in path or "/" in path)]


def continuation_summary(messages: Sequence[dict[str, Any]], split: int,
                         compaction: Compaction | None) -> tuple[str, str]:
    """``(summary, origin)`` for a sample that resumes at ``messages[split]``.

    A real compaction before ``split`` that left the model's own summary wins (origin ``real``),
    followed by the extractive summary of the turns between it and ``split``; otherwise the
    extractive summary of everything before ``split`` (origin ``templated``). Only compactions
    before ``split`` are used: a later summary describes turns the sample has not reached, and
    training on it would teach the model to state outcomes it has not seen.
    """
    if compaction is None or not compaction.summary or compaction.resume > split:
        return extractive_summary(messages[:split]), "templated"
    since = extractive_summary(messages[:split], since=compaction.resume)
    return "\n".join(part for part in (compaction.summary, since) if part), "real"


def fit_to_tokens(text: str, tokenizer: Tokenizer, max_tokens: int) -> str:
    """``text`` cut to at most ``max_tokens`` (content encoding): whole lines from the end first
    (an extractive summary puts its least useful lines last), then characters of the last line."""
    lines = text.split("\n")
    per_line = [len(ids) + 1 for ids in encode_each(tokenizer, lines, [False] * len(lines))]  # +1: the "\n"
    # Counts of separately encoded lines add up to about the whole's (a newline is its own
    # pre-token), so this picks the line count in one pass; the exact check below settles it.
    keep = max(1, int(np.searchsorted(np.cumsum(per_line), max_tokens + 1, side="left")))
    lines = lines[:keep]
    while len(lines) > 1 and _count(tokenizer, "\n".join(lines)) > max_tokens:
        lines.pop()
    if len(lines) > 1 and lines[-1].endswith(":") and len(lines) < len(text.split("\n")):
        lines.pop()  # a list heading whose items were all cut
    fitted = "\n".join(lines)
    while fitted and (count := _count(tokenizer, fitted)) > max_tokens:
        fitted = fitted[: min(len(fitted) - 1, len(fitted) * max_tokens // count)]
    return fitted


def _count(tokenizer: Tokenizer, text: str) -> int:
    return len(encode_each(tokenizer, [text], [False])[0])


class Compaction(NamedTuple):
    """A real compaction in the cleaned messages: the turns from ``resume`` on were written after it,
    with ``summary`` (the model's own, "" when the file kept none) as their context."""
    at: int  # where the pre-compaction turns end
    resume: int  # where the post-compaction turns start (past the injected summary turn, if any)
    summary: str


def arguments_object(call: dict[str, Any]) -> dict[str, Any] | None:
    """A call's arguments as an object (None when they are not one, or the call is free text)."""
    return call["arguments"] if isinstance(call["arguments"], dict) else parsed_arguments(call)
