"""Runs printed as labelled sections (``console-log``'s ``sections`` layout): a log or Markdown page where each
part of an agent's cycle opens with a label, as a heading (``### Step 3 - Tool Call``, ``## Tool Output:``),
a bold line or a ``LABEL:`` at a line's start (``NEXT ACTION:``, ``Input:``, ``SYSTEM:``).

Sides come from what a label says a section is (``markers.marker_role`` on its words, an index such as
``Step 3`` ignored): the model's parts (thought, plan, action, tool call, its answer) are the model's turn,
what running them gave (result, output, observation, what the system reports) is the tool's, and a
person's words (``Input:``, ``Human feedback:``, a task, a first-person request ``I want X to:``) are the
person's. A label with no such word is text of the section it sits in. A cycle is the model's parts between
the others; it must recur, answered (a tool's output or a person's words between two cycles). Framing is
counted, never a turn: trees and panels of status lines, rules and banners, headings whose section is empty,
labels carrying only a figure (``COMMANDS LEFT: 9``), and the prompt lines a program prints after every turn
(the same indented trailing lines in two turns or more).
"""

from __future__ import annotations

import collections
import itertools
import re
from typing import Any

from codemix.mixtures.transcript_formats.banners import is_code
from codemix.mixtures.transcript_formats.canonical import is_spoken
from codemix.mixtures.transcript_formats.markers import (
    MODEL_WORDS,
    OUTPUT_WORDS,
    PART_WORDS,
    PERSON_WORDS,
    TOOL_WORDS,
    marker_role,
)
from codemix.mixtures.transcript_formats.tool_blocks import detect_tool_blocks
from codemix.mixtures.transcript_formats.turns import key_words
from codemix.mixtures.transcript_formats.yaml_data import nested_yaml

# A label opening a line: Markdown heading marks or bold, symbols (an emoji), a bracketed stamp, the label's
# words (an index such as ``Step 3 -`` among them), then a colon and the rest, or (a heading, a bold line)
# nothing more.
LABEL = re.compile(
    r"^(?P<marks>#{1,6}[ \t]+|\*\*|__)?[ \t]*(?:\[[^\]\n]{1,40}\][ \t]*)?[^\w\s\[#*]{0,4}[ \t]*"
    r"(?P<label>[A-Za-z][\w'-]*(?:[ \t]+(?:[-–—:|][ \t]+)?[\w'-]+){0,5}?)[ \t]*(?:\*\*|__)?"
    r"(?:(?P<colon>:)(?:\*\*|__)?(?:[ \t]*(?P<rest>.*))?|(?:\*\*|__)?[ \t]*)$")
NAME = re.compile(r"[A-Z][\w'-]*(?:[ \t]+[A-Z&][\w'-]*){0,4}")  # a capitalised name (``Expert Research Analyst``)
HTML_BLOCK = re.compile(r"^[ \t]*<(?:div|table|tr|td|section|article)\b", re.MULTILINE | re.IGNORECASE)
LABEL_COLON = re.compile(r"^[ \t]*[A-Za-z][\w'-]*(?:[ \t]+[\w'-]+){0,5}[ \t]*:")
# Status trees and panels (``└── 📋 Task:``) and banners between rules (``-=-=-=-= COMMAND AUTHORISED -=-=-=``).
FRAME_LINE = re.compile(r"^[ \t]*(?:[│├└┌┐┘┤┬┴┼╭╮╯╰─━═]|[-=~*_]{2}[-=~*_ ]{2,}[^-=~*_ \t].*[-=~*_]{4}[ \t]*$)")
RULE = re.compile(r"^[ \t]*([-=_*~])\1{2,}[ \t]*$")
# A branch of a status tree a console redraws (CrewAI's ``└── 📋 Task: ...`` under ``🚀 Crew: crew``).
TREE_BRANCH = re.compile(r"^[ \t]*[├└]──")
FIGURE = re.compile(r"^[\d.,:%/ \t-]+$")
STEP_WORDS = frozenset({"step", "turn", "round", "iteration", "cycle", "loop"})
FIRST_PERSON = frozenset({"i", "my", "we", "our"})
# What a section says it is beyond ``markers``' lists: the model's reply (``Final Answer``) and the system's
# report inside a run (``SYSTEM: Command x returned``) the environment's.
REPLY_WORDS = frozenset({"answer", "reply"})  # (an API page's ``Response`` and ``Request`` are no turns)
# What a person asks for (``## Task:``, AutoGPT's ``Goals:``, ``Question:``): the person's side.
TASK_WORDS = frozenset({"task", "goal", "goals", "objective", "question", "instruction", "instructions"})
ACTION_WORDS = frozenset({"using", "use", "uses", "args", "arguments"})
ENV_WORDS = frozenset({"system", "returned", "stdout", "stderr"})
ROLE_WORDS = (PERSON_WORDS | MODEL_WORDS | PART_WORDS | TOOL_WORDS | OUTPUT_WORDS | TASK_WORDS | ACTION_WORDS
              | REPLY_WORDS | ENV_WORDS | {"feedback"})
AGENT_WORDS = PART_WORDS | MODEL_WORDS | ACTION_WORDS
MIN_CYCLES = 2
MAX_LINES = 200_000


def section_role(label: str, opening: bool) -> str | None:
    """``user``, ``part`` (the model's), ``tool`` or None (no section label) for a label's words. ``opening``:
    before the model's first part (a first-person request there is the person's)."""
    words = key_words(label) - STEP_WORDS
    if not words:
        return None
    if opening and label.split()[0].lower() in FIRST_PERSON:
        return "user"  # ``I want Auto-GPT to:``: the person's own request
    if len(words & ROLE_WORDS) * 2 < len(words):
        return None  # a label is mostly what it names (``Tool Output``); a heading of a page's prose is not
    if words == {"input"} or (words & (PERSON_WORDS | TASK_WORDS) and not words & (MODEL_WORDS | TOOL_WORDS)):
        return "user"  # ``Input:`` alone is what someone typed (``Tool Input`` the model's); ``Task:``, ``Goals:``
    role = marker_role(words)
    if role == "tool" and words & ACTION_WORDS and not words & OUTPUT_WORDS:
        return "part"
    if role == "tool" or (role is None and words & ENV_WORDS):
        return "tool"
    if role in ("part", "assistant") or (words & REPLY_WORDS and not words & TOOL_WORDS) or (
            words & ACTION_WORDS and not words & OUTPUT_WORDS):  # ``Using tool:``: the model names its call
        return "part"
    return None


def labelled(lines: list[str]) -> list[tuple[int, str, str, str]]:
    """``(line index, label, role, rest)`` of the section labels, outside code fences. Before the first label of
    a model's part that recurs (its cycle), only a person's labels count (a program's one-off prompts there are
    preamble), a first-person request among them."""
    found = label_lines(lines, opening=False)
    styles = collections.Counter(f[4] for f in found if f[2] == "part")
    if styles:  # the log's own way of labelling (headings, bold, plain): a label written another way is text
        style = styles.most_common(1)[0][0]
        found = [f for f in found if f[4] == style]
    recurring = collections.Counter(label_kind(label) for _, label, role, *_ in found if role == "part")
    # the cycle is an agent's: a recurring part that thinks, acts or calls (``Answer:`` alone after
    # ``Question:`` is a page of questions and answers)
    start = next((i for i, label, role, *_ in found if role == "part" and recurring[label_kind(label)] >= MIN_CYCLES
                  and label_kind(label) & AGENT_WORDS), None)
    if start is None:
        return []
    opening = [(i, label, "request", rest) for i, label, role, rest, _ in label_lines(lines[:start], opening=True)
               if role == "user"]
    return [f[:4] for f in opening + [f for f in found if f[0] >= start]]


def label_kind(label: str) -> frozenset[str]:
    """What a label names, without its index (``Step 3 - Thought`` and ``Step 4 - Thought`` are one kind)."""
    return frozenset(key_words(label) - STEP_WORDS)


def label_lines(lines: list[str], opening: bool) -> list[tuple[int, str, str, str]]:
    found, fenced = [], False
    for index, line in enumerate(lines):
        if line.count("```") % 2:  # a fence opens or closes on this line (``**Args**: ```json``)
            fenced = not fenced
            continue
        if fenced or FRAME_LINE.match(line) or (match := LABEL.match(line)) is None:
            continue
        if not match.group("marks") and not (match.group("colon") and match.group("label")[0].isupper()):
            continue  # a plain line without a colon is text; a lower-case key (``model:``, ``pkg:amd64``) is data
        rest = (match.group("rest") or "").strip()
        role = section_role(match.group("label"), opening)
        inner = LABEL.match(rest) if role == "tool" and rest else None
        if inner and inner.group("colon") and section_role(inner.group("label"), False) == "user":
            role, rest = "user", (inner.group("rest") or "").strip()  # ``SYSTEM: Human feedback: y``: a person's words
        if role is not None:
            found.append((index, match.group("label"), "framing" if rest and FIGURE.match(rest) else role, rest,
                          (match.group("marks") or "").strip("# \t") or (match.group("marks") or "")[:1]))
    return found


def section_turns(text: str) -> tuple[list[dict[str, Any]], dict[str, int]] | None:
    """The turns of a log of labelled sections (see the module docstring) and its framing counts, or None."""
    if is_code(text):
        return None  # a source file's comments (``# Step 1: call the tool``) are no headings
    if nested_yaml(text):
        return None  # YAML data's keys (``Sub-task:``, ``Thought:``) are fields, no headings
    if len(HTML_BLOCK.findall(text)) >= MIN_CYCLES * 2:
        return None  # a page laid out in HTML blocks keeps its turns in them; labels are inside the messages
    if detect_tool_blocks(text):
        return None  # calls written as blocks (``🔧 Tool: x`` over ``Args: {...}``, a result label): their labels are no cycle
    lines = text.split("\n")[:MAX_LINES]
    labels = labelled(lines)
    if not labels:
        return None
    framing: collections.Counter[str] = collections.Counter(
        before_first_label=sum(1 for line in lines[:labels[0][0]] if line.strip()))
    sections = []
    actor = ""  # the agent named by the last ``# Agent: name`` label
    tree_lines: set[str] = set()  # the status lines seen under a tree's nodes
    for number, (index, label, role, rest) in enumerate(labels):
        stop = labels[number + 1][0] if number + 1 < len(labels) else len(lines)
        if role == "framing":
            framing["figure"] += 1 + sum(1 for line in lines[index + 1:stop] if line.strip())
            continue
        body = [rest] if rest else []
        if role == "request":  # a person's request before the cycles: its line and the lines that go on with it
            more = list(itertools.takewhile(lambda line: line.strip() and not LABEL_COLON.match(line), lines[index + 1:stop]))
            framing["preamble"] += sum(1 for line in lines[index + 1 + len(more):stop] if line.strip())
            if body or more:
                sections.append({"role": "user", "label": label, "lines": body + more})
            continue
        tree = False  # inside a status tree: its branches and the lines indented under them
        for at in range(index + 1, stop):
            line = lines[at]
            if FRAME_LINE.match(line) or RULE.match(line):
                framing["frame_line"] += 1
                tree = True
            elif (line[:1].isspace() and line.strip() and (tree or line.strip() in tree_lines)) or (
                    line.strip() and at + 1 < stop and TREE_BRANCH.match(lines[at + 1])):
                # a node's status lines under it (and, redrawn, wherever they stand), or the root over the first branch
                framing["frame_line"] += 1
                tree_lines.add(line.strip())
            else:
                tree = False
                body.append(line.rstrip())
        if role == "part" and rest and not any(line.strip() for line in body[1:]) and NAME.fullmatch(rest):
            framing["actor_name"] += 1  # ``# Agent: Expert Research Analyst``: who acts next, not what it says
            actor = rest
            continue
        if any(line.strip() for line in body):  # the model's part keeps its label (``PLAN:``, ``Tool Call:``)
            # (a label that only names the writer, ``Assistant:``, is no part of what it wrote)
            body = [f"{label}: {body[0]}".rstrip(), *body[1:]] if role == "part" and label_kind(label) - MODEL_WORDS else body
            sections.append({"role": role, "label": label, "lines": body, "actor": actor})
        else:
            framing["empty_section"] += 1  # a heading over nothing (``## [time] Execution Update``)
    # Agents that each get a task of their own (a crew's manager delegating to its members, their sections
    # interleaved as they ran) hold a run each: the turns are grouped by the actor named before them.
    tasked = {s.get("actor") for s in sections if s["role"] == "user" and s.get("actor")}
    if len(tasked) >= 2 and all(s.get("actor") in tasked for s in sections):
        runs = [[s for s in sections if s["actor"] == name] for name in dict.fromkeys(s["actor"] for s in sections)]
        turns = [{**t, "run": index} for index, run in enumerate(runs) for t in joined_turns(run, framing)]
    else:
        turns = joined_turns(sections, framing)
    model = [i for i, t in enumerate(turns) if t["speaker"] == "assistant"]
    if len(model) < MIN_CYCLES or model[-1] - model[0] < len(model):
        return None  # the model's cycles must be answered: a tool's output or a person's words between two of them
    if sum(is_spoken(turns[i]["content"]) for i in model) * 2 < len(model):
        return None  # the model's side writes words, not package versions
    return turns, dict(+framing)


def joined_turns(sections: list[dict[str, Any]], framing: collections.Counter) -> list[dict[str, Any]]:
    """Sections as turns: the model's consecutive parts one turn; a turn repeating the one before it on its
    side (a person's input echoed back by the system) once, other consecutive turns of a side one; indented
    trailing lines printed after two turns or more alike (a program's prompt) framing; a person's section
    after the run of a kind seen once (a page's text after it) framing."""
    turns: list[dict[str, Any]] = []
    for section in sections:
        speaker = "assistant" if section["role"] == "part" else section["role"]
        if turns and speaker == "assistant" == turns[-1]["speaker"]:
            turns[-1]["lines"] += section["lines"]
            continue
        turns.append({"speaker": speaker, "lines": list(section["lines"]), "name": section["label"]})
    trailing = collections.Counter(line.strip() for t in turns if t["speaker"] != "tool"
                                   for line in set(trailing_lines(t["lines"])))
    out: list[dict[str, Any]] = []
    for turn in turns:
        lines = turn["lines"]
        if turn["speaker"] != "tool":  # (a tool's output is all the tool's, however it is indented)
            tail = trailing_lines(lines)
            prompt = [line for line in tail if trailing[line.strip()] >= 2]
            framing["program_prompt"] += len(prompt)
            lines = lines[:len(lines) - len(tail)] + [line for line in tail if trailing[line.strip()] < 2]
        content = "\n".join(lines).strip()
        if not content:
            framing["empty_section"] += 1
            continue
        if out and out[-1]["speaker"] == turn["speaker"] and out[-1]["content"] == content:
            framing["echoed"] += 1
            continue
        if out and out[-1]["speaker"] == turn["speaker"]:  # the person's consecutive words, a tool's output cut by its own headings: one turn
            out[-1]["content"] += "\n" + content
            continue
        out.append({"speaker": turn["speaker"], "content": content, "name": turn["name"]})
    kinds = collections.Counter(label_kind(t["name"]) for t in out if t["speaker"] == "user")
    while out and out[-1]["speaker"] == "user" and kinds[label_kind(out[-1]["name"])] < 2:
        framing["after_run"] += 1 + out.pop()["content"].count("\n")  # a page's text after the run (``## Example Query``)
    return out


def trailing_lines(lines: list[str]) -> list[str]:
    """A turn's last lines that are indented, up to a blank or unindented line (a program's prompt
    printed under the model's action, as consoles indent their own messages)."""
    tail: list[str] = []
    for line in reversed(lines):
        if not line.strip() or not line[:1].isspace():
            break
        tail.insert(0, line)
    return tail
