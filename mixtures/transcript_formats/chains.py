"""An agent executor's verbose log printed without colour: LangChain's ``> Entering new AgentExecutor chain...``
runs copied from a terminal into a README, a text file or a notebook's plain output.

With no colours to tell the model's words from a tool's, the run is read by its ReAct labels: an
``Observation:`` line opens a tool's output, and the model's step runs from a ``Thought:`` (or the chain's
first words, which the executor prints without a label) to the next observation. A step names its call as
a JSON blob (``{"action": ..., "action_input": ...}``, fenced or bare), as ``Action:`` / ``Action Input:``
lines or as ``Invoking: `tool` with `{args}```; ``Final Answer`` is the answer, not a call. A chain nested in
another (a tool that runs its own agent) is read in place, between the call and its observation; what the
program prints between nested chains (progress bars, a plan) and a chain with no step (an ``LLMChain``'s
formatted prompt) are no one's turn. The request is the prompt line echoed just before the run (``> ...``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from codemix.mixtures.transcript_formats.canonical import tool_call
from codemix.mixtures.transcript_formats.notebooks import cell_task

EDGE = re.compile(r"^[ \t]*> (Entering new \w+ chain\.\.\.|Finished chain\.)[ \t]*$", re.MULTILINE)
OBSERVATION = re.compile(r"^[ \t]*Observation:[ \t]*", re.MULTILINE)
# Where a step of the model starts: a label, or a fence (or brace) whose object names an action.
FENCE_OPEN = r"(?:'''|```)(?:json)?[ \t]*\n[ \t]*\{[ \t]*\n?[ \t]*\"action\""
STEP = re.compile(rf"^[ \t]*(?:Thought:|Action:|Final Answer:|Invoking: `|{FENCE_OPEN}|\{{[ \t]*\n[ \t]*\"action\")",
                  re.MULTILINE)
BLOB = re.compile(r"(?:(?:'''|```)(?:json)?[ \t]*\n)?[ \t]*(\{[ \t]*\n?[ \t]*\"action\".*?\n?[ \t]*\})[ \t]*"
                  r"(?:\n[ \t]*(?:'''|```))?", re.DOTALL)
ACTION_LINES = re.compile(r"^[ \t]*Action:[ \t]*(.+?)[ \t]*\n[ \t]*Action Input:[ \t]*(.*)", re.MULTILINE | re.DOTALL)
INVOKING = re.compile(r"^Invoking: `([^`\n]+)` with `(.*?)`[ \t]*$", re.MULTILINE | re.DOTALL)
PROMPT = re.compile(r"^(?:>>>|>)[ \t]+(\S.*)$", re.MULTILINE)  # a REPL's echo: a CLI's ``>``, Python's ``>>>``
FINAL = "final answer"


def chain_tree(text: str) -> list[dict[str, Any]]:
    """The chains the log prints, outermost first: each with its body's span and its nested chains."""
    roots: list[dict[str, Any]] = []
    stack: list[dict[str, Any]] = []
    for edge in EDGE.finditer(text):
        if edge.group(1).startswith("Entering"):
            chain = {"start": edge.start(), "body": edge.end(), "children": []}
            (stack[-1]["children"] if stack else roots).append(chain)
            stack.append(chain)
        elif stack:
            chain = stack.pop()
            chain["end"], chain["stop"] = edge.start(), edge.end()
    return [root for root in roots if "end" in root]


def own_pieces(chain: dict[str, Any]) -> list[tuple[int, int]]:
    """The spans of a chain's body that are its own (its nested chains cut out)."""
    pieces, at = [], chain["body"]
    for child in chain["children"]:
        pieces.append((at, child["start"]))
        at = child.get("stop", child["start"])
    pieces.append((at, chain["end"]))
    return pieces


def steps(text: str, chain: dict[str, Any]) -> list[tuple[int, str, str]]:
    """(position, speaker, text) of every step of a chain and of the chains nested in it, in order."""
    found: list[tuple[int, str, str]] = []
    for index, (start, end) in enumerate(own_pieces(chain)):
        piece = text[start:end]
        marks = sorted([(m.start(), "tool", m.end()) for m in OBSERVATION.finditer(piece)]
                       + [(m.start(), "assistant", m.start()) for m in STEP.finditer(piece)])
        if index == 0 and marks and piece[:marks[0][0]].strip():  # the executor prints the first step unlabelled
            marks.insert(0, (len(piece) - len(piece.lstrip()), "assistant", len(piece) - len(piece.lstrip())))
        kept = [m for i, m in enumerate(marks) if i == 0 or m[1] != marks[i - 1][1]]
        for i, (at, speaker, body) in enumerate(kept):
            stop = kept[i + 1][0] if i + 1 < len(kept) else len(piece)
            found.append((start + at, speaker, piece[body:stop].strip()))
    for child in chain["children"]:
        if "end" in child:
            found.extend(steps(text, child))
    return sorted(found)


def model_turn(body: str) -> dict[str, Any]:
    """A step of the model: its words and the call it names (a ``Final Answer`` is words)."""
    calls, words = [], body
    for blob in BLOB.finditer(body):
        try:
            value = json.loads(blob.group(1))
        except ValueError:
            continue
        if not isinstance(value, dict) or not isinstance(value.get("action"), str):
            continue
        words = words.replace(blob.group(0), "\x00", 1)
        answer = value.get("action_input")
        if value["action"].strip().lower() == FINAL:
            words = words.replace("\x00", answer if isinstance(answer, str) else json.dumps(answer), 1)
        else:
            calls.append(tool_call(None, value["action"].strip(), answer))
    if not calls and (lines := ACTION_LINES.search(words)) and lines.group(1).strip().lower() != FINAL:
        calls.append(tool_call(None, lines.group(1), lines.group(2).strip()))
        words = words[:lines.start()]
    for name, arguments in INVOKING.findall(words):
        calls.append(tool_call(None, name, arguments))
    words = INVOKING.sub("", words).replace("\x00", "")
    words = re.sub(r"^[ \t]*Thought:[ \t]*", "", words.strip())
    return {"speaker": "assistant", "content": words.strip(), "tool_calls": calls}


def request_before(text: str, chain: dict[str, Any], since: int) -> str:
    """The prompt line echoed between the previous run and this one (``> question``), if any."""
    prompts = [m.group(1).strip() for m in PROMPT.finditer(text, since, chain["start"]) if not EDGE.match(m.group(0))]
    if not prompts:
        return ""
    # Python's echo is the call that started the run: its question is the prose literal it passes
    return (prompts[-1].endswith(")") and cell_task({"source": prompts[-1]})) or prompts[-1]


def plain_chain_runs(text: str) -> list[list[dict[str, Any]]]:
    """The runs of every outermost chain a log printed without colour, each as turns (its request, the
    model's steps, the tools' outputs); a chain whose tools never answered is no run."""
    runs, since = [], 0
    for chain in chain_tree(text):
        turns = []
        for _, speaker, body in steps(text, chain):
            if speaker == "tool":
                turns.append({"speaker": "tool", "content": body, "tool_calls": []})
            elif (turn := model_turn(body))["content"] or turn["tool_calls"]:
                turns.append(turn)
        request = request_before(text, chain, since)
        since = chain["stop"]
        if any(t["speaker"] == "tool" for t in turns) and any(t["tool_calls"] for t in turns):
            runs.append(([{"speaker": "user", "content": request, "tool_calls": []}] if request else []) + turns)
    return runs
