"""Runs a CLI agent printed event by event, each event opening with its kind as a bare label (``console-log``'s
``event-labels`` layout): ``codex exec``'s console output, where a line holding only ``user``, ``thinking``,
``codex`` or ``exec`` (after a bracketed time stamp in older versions: ``[2025-09-16T10:21:00] codex``) opens what
follows it, and ``tokens used`` ends the run.

    user                                   [2025-12-12T11:44:36] User instructions:
    Read the spec and plan the work.       Read /tmp/plan.txt and provide a plan.
    thinking                               [2025-12-12T11:44:40] thinking
    **Planning the first read**            **Preparing to read files with shell**
    codex                                  [2025-12-12T11:44:40] exec bash -lc 'cat /tmp/plan.txt' in /repo
    I'll read the spec first.              [2025-12-12T11:44:41] bash -lc 'cat /tmp/plan.txt' succeeded in 413ms:
    exec                                   You are an engineering strategist...
    /bin/zsh -lc 'cat SPEC.md' in /repo succeeded in 52ms:
    # Spec ...

Sides by what each label says: ``user`` (``User instructions:``) the person's request; ``thinking`` the model's
reasoning, ``codex`` its words, ``exec`` a command it ran, all one model turn until a command's output (the lines
after ``succeeded in ...:`` / ``exited N in ...:``), which is the tool's result. The command is printed as the CLI
renders it, not as the model emitted it (a JSON object of arguments): a described call (``canonical.DESCRIBED``,
shown and never trained). What comes before the first label (the version banner, settings, log records) and
after ``tokens used`` (the count, the final answer printed again) is framing, counted. A log holding several runs
(a loop's ledger) gives one transcript per run.
"""

from __future__ import annotations

import collections
import re
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import exported_call, flag_text_observations, message

_STAMP = r"(?:\[\d{4}-\d\d-\d\dT[\d:.]+Z?\][ \t]+)?"
LABEL = re.compile(rf"^{_STAMP}(?P<kind>user|User instructions|thinking|codex|exec|tokens used):?(?:[ \t]+(?P<rest>\S.*))?$")
# How the CLI reports a command it ran, at the end of the command's lines: then its output.
RAN = re.compile(r"[ \t](?:succeeded|exited -?\d+|failed) in [\d.]+m?s:[ \t]*$")
MIN_LABELS = 3


def event_runs(text: str) -> list[list[tuple[str, str, list[str]]]] | None:
    """Each run's events as ``(kind, rest of the label's line, the lines after it)``, or None when the text is no
    such console: a ``codex`` label and ``exec`` or ``thinking`` ones, three labels or more."""
    runs: list[list[tuple[str, str, list[str]]]] = [[]]
    for line in text.split("\n"):
        label = LABEL.match(line)
        if label is None:
            if runs[-1]:
                runs[-1][-1][2].append(line)
            continue
        kind = "user" if label.group("kind") == "User instructions" else label.group("kind")
        if kind == "tokens used":  # (``tokens used: 4321`` in older versions)
            runs.append([])  # the count and the final answer printed again follow: framing
            continue
        runs[-1].append((kind, label.group("rest") or "", []))
    runs = [run for run in runs if run]
    kinds = collections.Counter(kind for run in runs for kind, _, _ in run)
    if sum(kinds.values()) < MIN_LABELS or not kinds["codex"] or not (kinds["exec"] or kinds["thinking"]):
        return None
    return runs


def run_messages(run: list[tuple[str, str, list[str]]]) -> list[dict[str, Any]]:
    """One run's events as canonical messages (see the module docstring)."""
    messages: list[dict[str, Any]] = []
    turn: dict[str, Any] | None = None
    for kind, rest, lines in run:
        if kind == "user":
            messages.append(message("user", "\n".join([rest, *lines]).strip()))
            turn = None
            continue
        if turn is None:
            turn = message("assistant")
            messages.append(turn)
        if kind == "thinking":
            turn["reasoning"] = "\n\n".join(filter(None, [turn["reasoning"], "\n".join(lines).strip()]))
        elif kind == "codex":
            turn["content"] = "\n\n".join(filter(None, [turn["content"], "\n".join(lines).strip()]))
        else:  # exec: the command (on the label's line, or the lines up to the report of how it ran), then its output
            ran = next((i for i, line in enumerate(lines) if RAN.search(line)), None)
            if ran is None:  # no report of how it ran: the command alone
                command, output = [rest] if rest else lines[:1], []
            else:  # (an older CLI prints the command on the label's line and again before the report)
                command, output = [rest] if rest else [*lines[:ran], RAN.split(lines[ran])[0]], lines[ran + 1:]
            turn["tool_calls"].append(exported_call(None, "exec", "\n".join(command).strip()))
            if ran is not None:
                messages.append(message("tool", "\n".join(output).strip(), observation=True))
                turn = None
    return [m for m in messages if m["content"] or m["reasoning"] or m["tool_calls"] or m["role"] == "tool"]


def detect_event_labels(text: Any) -> bool:
    return isinstance(text, str) and event_runs(text) is not None


def parse_event_labels(text: str) -> list[Transcript]:
    return [Transcript(format="console-log", extra={"layout": "event-labels"},
                       messages=flag_text_observations(run_messages(run))) for run in event_runs(text) or []]


# (a layout of ``console-log``: an agent CLI's events under their kinds' bare labels)
EVENT_LABELS = Format(name="console-log", container="text", detect=detect_event_labels, parse=parse_event_labels)
