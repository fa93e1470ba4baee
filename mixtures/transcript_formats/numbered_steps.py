"""An agent framework's log of numbered steps (round 17 FIT, the sixteenth holdout's ReflecTool log): a header line
that recurs with only its step number changing (``Agent Task_Agent takes 3-step Action:``) opens each step of the
model, its call written below it as fields (``name: DrugBank`` / ``params: {'drug_name': ...}``), and an
``Observation:`` line gives what the call returned.

A step's call is its name and its parameters; a step named ``Finish`` (or ``Final Answer``) is the model's answer,
its words, and the observation after it, which echoes the answer, is no one's turn. A run is a sequence of steps
whose numbers climb; the numbers starting again open another run. Its request is the task field the log printed
last before the run's first step (``Inputs: hello, can you explain me about the fever?``, inside the task package
it hands each agent); everything else the framework prints (the task packages with their tool lists, the status
blocks) is framing.
"""

from __future__ import annotations

import ast
import collections
import json
import re
from typing import Any

from codemix.mixtures.transcript_formats.canonical import tool_call

HEADER = re.compile(r"^(?P<head>[^\n]{0,80}?)(?P<number>\d+)(?P<tail>[^\n\d]{0,40}):[ \t]*$", re.MULTILINE)
STEP_WORDS = frozenset({"step", "action", "iteration", "turn"})
OBSERVATION = re.compile(r"^Observation:[ \t]?", re.MULTILINE)
FIELD = re.compile(r"^[ \t]*(?P<key>name|params|parameters|arguments|args|input)[ \t]*:[ \t]*(?P<value>.*)$", re.MULTILINE)
TASK_FIELD = re.compile(r"^[ \t]*(?:Inputs?|Question|Query|Task|Request)[ \t]*:[ \t]*(?P<text>\S[^\n]*)$", re.MULTILINE)
FINAL_NAMES = frozenset({"finish", "final answer", "final_answer", "finalanswer"})
BANNER = re.compile(r"^[ \t]*={3,}")
MIN_STEPS = 3


def step_headers(text: str) -> list[re.Match]:
    """The headers of the most frequent shape that names a step (three or more)."""
    shapes: dict[tuple[str, str], list[re.Match]] = collections.defaultdict(list)
    for match in HEADER.finditer(text):
        words = set(re.findall(r"[a-z]+", (match.group("head") + match.group("tail")).lower()))
        if words & STEP_WORDS:
            shapes[match.group("head"), match.group("tail")].append(match)
    found = max(shapes.values(), key=len, default=[])
    return found if len(found) >= MIN_STEPS else []


def step_call(body: str) -> tuple[str, Any]:
    """A step's call name and its parameters as written (``name:`` / ``params:`` fields); parameters the program
    printed as a Python dict (``{'query': 'fever'}``) are that object (``printed_object``)."""
    fields = {m.group("key"): m.group("value").strip() for m in FIELD.finditer(body)}
    name = fields.get("name", "")
    arguments = next((fields[k] for k in ("params", "parameters", "arguments", "args", "input") if k in fields), "")
    return name, printed_object(arguments)


def printed_object(text: str) -> Any:
    """The dict a program printed with ``repr`` (read with ``ast.literal_eval``: literals only, nothing runs), or
    the text as it is. The log printed the object the model's call carried; as text, SFT would drop the call as
    malformed (the sixteenth holdout's ReflecTool log: 24 calls and their 24 results)."""
    if not text.startswith("{"):
        return text
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text
    return value if isinstance(value, dict) else text


def final_words(arguments: Any) -> str:
    """The answer a finishing step's parameters hold (``{'response': 'D. Nitrofurantoin'}``), else the text."""
    if isinstance(arguments, dict):
        texts = [v for v in arguments.values() if isinstance(v, str)]
        return texts[0] if len(arguments) == 1 and texts else json.dumps(arguments, ensure_ascii=False)
    match = re.fullmatch(r"\{\s*['\"]\w+['\"]\s*:\s*(['\"])(?P<text>.*)\1\s*\}", arguments, re.DOTALL)
    return match.group("text") if match else arguments


def numbered_steps(text: str) -> tuple[list[dict[str, Any]], dict[str, int]] | None:
    """The runs of a numbered step log as turns (each with its ``run``), or None."""
    if not isinstance(text, str) or "Observation:" not in text:
        return None
    headers = step_headers(text)
    if not headers:
        return None
    turns: list[dict[str, Any]] = []
    framing: collections.Counter[str] = collections.Counter()
    run, previous, finished = -1, None, False
    for index, header in enumerate(headers):
        stop = headers[index + 1].start() if index + 1 < len(headers) else len(text)
        span = text[header.end():stop]
        number = int(header.group("number"))
        if previous is None or number <= previous:
            run += 1
            tasks = list(TASK_FIELD.finditer(text, 0, header.start()))
            if tasks:
                turns.append({"speaker": "user", "content": tasks[-1].group("text").strip(), "name": "", "run": run})
        previous = number
        observed = OBSERVATION.search(span)
        body = span[:observed.start()] if observed else span
        name, arguments = step_call(body)
        finished = name.lower() in FINAL_NAMES
        if finished:
            turns.append({"speaker": "assistant", "content": final_words(arguments), "name": "", "run": run})
        elif name:
            turns.append({"speaker": "assistant", "content": "", "name": "", "run": run,
                          "calls": [tool_call(None, name, arguments)]})
        else:
            return None  # a step that names no call: not this layout
        if observed and not finished:
            output = span[observed.end():]
            banner = BANNER.search(output)
            turns.append({"speaker": "tool", "content": output[:banner.start() if banner else None].strip(), "name": name,
                          "run": run})
        elif observed:
            framing["echoed_answer"] += 1
    if not any(t["speaker"] == "tool" for t in turns):
        return None
    return turns, dict(+framing)
