"""A ReAct run written as text (``Thought: ... Action: ... Observation: ...``), as agents that keep their
scratchpad in one prompt string publish it (Yao et al. 2023, "ReAct"; LangChain's ``Action Input:``).

The text before the run is the task (instructions, few-shot examples, the question): one user turn,
context. The run is what follows the last occurrence of the label that opens a task (``Question:``,
``Instruction:``...: the label on the line before the text's first step), so few-shot examples, which
repeat that label, stay in the task. Each ``Thought``/``Action`` (with ``Action Input`` and ``Final
Answer``) is a model turn; each ``Observation`` is the environment's, a tool turn.
"""

from __future__ import annotations

import re
from typing import Any

from codemix.mixtures.transcript_formats.canonical import message

ENV_LABELS = ("observation", "obs")
STEP = re.compile(r"^[ \t]*(Thought|Action Input|Action|Act|Think|Observation|Obs|Final Answer|Reflection)"
                  r"(?:[ \t]*\d+)?[ \t]*:", re.MULTILINE | re.IGNORECASE)
LABEL = re.compile(r"^[ \t]*([A-Z][A-Za-z]{1,20}(?: [A-Za-z]{1,20}){0,2})[ \t]*:", re.MULTILINE)


def run_start(text: str, steps: list[re.Match]) -> int:
    """Where the live run starts: the first step after the last line that opens with the label the
    text's first step is preceded by (few-shot examples repeat it); the first step when there is none."""
    head = text[:steps[0].start()]
    labels = [m for m in LABEL.finditer(head) if not STEP.match(m.group(0))]
    if not labels:
        return steps[0].start()
    task_label = re.compile(rf"^[ \t]*{re.escape(labels[-1].group(1))}[ \t]*:", re.MULTILINE)
    last = list(task_label.finditer(text, 0, steps[-1].start()))[-1]
    return next((s.start() for s in steps if s.start() > last.start()), steps[0].start())


def react_messages(text: Any) -> list[dict[str, Any]] | None:
    """The run ``text`` writes as ReAct steps, as canonical messages (the task, then model and tool
    turns); None when the text holds no run (no ``Action`` answered by an ``Observation``)."""
    if not isinstance(text, str) or "bservation" not in text:
        return None
    steps = list(STEP.finditer(text))
    if not steps:
        return None
    start = run_start(text, steps)
    run = [s for s in steps if s.start() >= start]
    kinds = [s.group(1).lower() for s in run]
    if not any(k in ENV_LABELS for k in kinds) or not any(k.startswith("act") for k in kinds):
        return None
    messages = [message("user", text[:start].strip())] if text[:start].strip() else []
    for index, step in enumerate(run):
        end = run[index + 1].start() if index + 1 < len(run) else len(text)
        part = text[step.start():end].strip()
        role = "tool" if kinds[index] in ENV_LABELS else "assistant"
        if messages and messages[-1]["role"] == role == "assistant":
            messages[-1]["content"] += "\n" + part
        else:
            messages.append(message(role, part, observation=role == "tool"))
    return messages
