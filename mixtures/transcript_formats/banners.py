"""Text logs whose turns open with a banner line (``banner-turns``): ``----- Prompt -----``,
``<><><> SUPERVISOR <><><>``, ``==== Coder ====``, alone on a line or after a log record's timestamp and level;
also a log whose records open with who wrote them (``[time INFO] Programmer: ...``, as ChatDev logs).

A banner is a short label (four words at most) between two runs of the same punctuation. The text is a
conversation when there are four banners or more, at least two labels each open two or more sections and
such repeating labels open 80% of them (speakers speak again; a document's headings do not), the
sections hold text, most of it prose, and in a file whose lines are more than 1% code (outside fences)
a user and a model are among the labels' roles;
what comes before the first banner is left out. A label's words give its role (``prompt``/``input``/
``request`` a user turn, ``response``/``output``/``completion`` a model turn, ``system``, ``tool``/
``observation``/``result`` an observation); any other label is a speaker's name, mapped as a multi-agent
log's names are (``turns.speaker_roles``: the first to speak set the task, every other name is the model).
"""

from __future__ import annotations

import ast
import itertools
import re
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import flag_text_observations, is_spoken, text_length
from codemix.mixtures.transcript_formats.text_turns import (
    AFTER_LEVEL,
    CODE_LINE,
    FENCE,
    LEVEL,
    LOG_START,
    NOT_SPEAKERS,
    PROMPT_WORDS,
    RESPONSE_WORDS,
)
from codemix.mixtures.transcript_formats.turns import ROLE_ALIASES, turn_messages

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# Rule marks a banner is drawn with (quotes, brackets and dots make docstrings and code, not banners).
# (after a [time]; a colon may close it: ``------###------###------HCA_0------###------###------:``)
BANNER = re.compile(r"^\s*(?:\[[^\]\n]{1,40}\]\s*)?([-=*#~<>+]{3,})\s*([^\n]{1,60}?)\s*([-=*#~<>+]{3,})\s*:?\s*$")
MIN_BANNERS = 4
MAX_LABEL_WORDS = 4
# The labels that open two sections or more must open this share of all sections (a speaker speaks again;
# a document's headings, one per section, do not).
MIN_REPEATED_SHARE = 0.8
WORD_ROLES = {**dict.fromkeys((*PROMPT_WORDS, "user", "human", "question", "task"), "user"),
              **dict.fromkeys((*RESPONSE_WORDS, "assistant", "ai", "model", "llm"), "assistant"),
              "system": "system", **dict.fromkeys(("tool", "observation", "observations", "result", "results",
                                                    "function", "execution"), "tool")}


def bare(line: str) -> str:
    """A line without its log record's timestamp, level and logger (``2025-03-26 18:21:42 - logger - x.py -
    INFO - ``), when it opens with them."""
    if not LOG_START.match(line):
        return line
    level = LEVEL.search(line[:200])
    body = line[level.end():] if level else line
    return body[AFTER_LEVEL.match(body).end():]


def banner_label(line: str) -> str | None:
    """The label of a banner line, or None: letters between runs of the same punctuation marks."""
    match = BANNER.match(line)
    if not match or not set(match.group(1)) <= set(match.group(3)) | set("<>"):
        return None
    label = re.sub(r"[^A-Za-z0-9 _-]+", " ", match.group(2))  # emoji and marks around the name
    label = re.sub(r"\s+", " ", re.sub(r"\s\d+\s*$", "", label)).strip(" _-")  # a counter ("Step 12"), not an id
    words = label.split()
    if not re.search(r"[A-Za-z]{2,}", label) or len(words) > MAX_LABEL_WORDS or any(w.isdigit() for w in words):
        return None  # numbers inside a label make it a case or a call (``add_edge(1, 2)``), not a name
    return label


# A log record that opens with who wrote it (``[2023-08-22 14:46:22 INFO] Chief Executive Officer: ...``).
LOGGED_SPEAKER = re.compile(r"^([A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*){0,3}):[ \t]+(\S.*)$")


def sections(text: str, logged: bool = False) -> list[tuple[str, str]]:
    """``(label, text)`` per banner, or with ``logged`` per log record naming its writer, the text up to the
    next one."""
    found: list[tuple[str, list[str]]] = []
    turn_style = None if logged else speaker_style(text)
    for raw in ANSI.sub("", text).splitlines():
        line = bare(raw)
        label = None if logged else banner_label(line)
        if label is not None and turn_style is not None and banner_style(line) != turn_style:
            label = None  # a section inside a turn (``--- STATUS ---`` under ``=== USER ===``): its text
        writer = LOGGED_SPEAKER.match(line) if logged and line is not raw else None
        if label is not None:
            found.append((label, []))
        elif writer is not None and writer.group(1).lower() not in NOT_SPEAKERS:
            found.append((writer.group(1), [writer.group(2)]))
        elif found:
            found[-1][1].append(line)
    return [(label, "\n".join(lines).strip()) for label, lines in found]


# A log's numbered entry: its number, the stage in brackets, then who speaks and what the log adds (a model, a time):
# ``#3 [评委点评（第一回合）] 评委 debate-openai-stream 23:09:03`` (an AI debate hall's transcript, issue 45 round 19); a
# task list's box (``1. [x] Install``) is no stage.
ENTRY = re.compile(r"^[ \t]*#?(?P<number>\d{1,4})[.)]?[ \t]+\[(?![ xX]?\])[^\]\n]{1,40}\][ \t]*(?P<speaker>[^\s\[\]]{1,20})(?:[ \t][^\n]*)?$",
                   re.MULTILINE)


def numbered_entries(text: str) -> list[tuple[str, str]]:
    """``(speaker, text)`` per numbered entry (``ENTRY``) where the entries count up one by one from the first (nine
    in ten steps), four or more: a log of who said what in turn. ``[]`` for any other text."""
    found = list(ENTRY.finditer(text))
    numbers = [int(m.group("number")) for m in found]
    if len(found) < MIN_BANNERS or sum(b == a + 1 for a, b in itertools.pairwise(numbers)) * 10 < 9 * (len(found) - 1):
        return []
    return [(m.group("speaker"), text[m.end():(found[i + 1].start() if i + 1 < len(found) else len(text))].strip())
            for i, m in enumerate(found)]


def banner_style(line: str) -> str:
    """The marks a banner line is drawn with (``=`` for ``=== USER ===``, ``-`` for ``--- STATUS ---``)."""
    match = BANNER.match(line)
    return "".join(sorted(set(match.group(1)))) if match else ""


def speaker_style(text: str) -> str | None:
    """Where banners are drawn two ways or more, the way whose labels most often name a role (``=== USER ===``,
    ``=== GEMINI ===`` around ``--- STATUS ---``): its banners open the turns, the others' are sections inside
    them. None when banners are drawn one way, or no way names roles more than another."""
    labels: dict[str, set[str]] = {}
    for raw in ANSI.sub("", text).splitlines()[:200_000]:
        line = bare(raw)
        if (label := banner_label(line)) is not None:
            labels.setdefault(banner_style(line), set()).add(label.lower())
    share = {style: sum(any(w in WORD_ROLES for w in label.split()) for label in found) / len(found)
             for style, found in labels.items()}
    ranked = sorted(share, key=share.get, reverse=True)
    if len(ranked) < 2 or share[ranked[0]] <= share[ranked[1]]:
        return None
    return ranked[0]  # the way whose labels most name a role (``USER``; ``PREVIOUS OUTPUT`` is one section of many)


def banner_turns(text: Any) -> list[dict[str, Any]] | None:
    """The turns of a banner log (see the module docstring), as ``speaker``/``content`` objects, or None."""
    if not isinstance(text, str):
        return None
    turns = (speaker_sections(sections(text)) or speaker_sections(sections(text, logged=True))
             or speaker_sections(numbered_entries(text)))
    if turns and is_code(text) and not {"user", "assistant"} <= {t["speaker"] for t in turns}:
        return None  # a source file's banner comments and test cases name no speakers
    return turns


# Agent logs keep code in fences or in banners' sections of prompts; a source file's lines are code.
MAX_CODE_SHARE = 0.01


# A Python traceback as a runtime prints it: the header, then indented frames quoting their source lines,
# up to the exception line. The quoted lines are a program's output, not code someone wrote in the text.
TRACEBACK = re.compile(r"^Traceback \(most recent call last\):[ \t]*\n(?:(?:[ \t]+\S.*|[ \t]*)\n)*", re.MULTILINE)


def is_code(text: str) -> bool:
    """More than 1% of the lines outside code fences and printed tracebacks are code (``text_turns.CODE_LINE``),
    or the text is a Python module (``is_python_module``: a file of docstrings is code too)."""
    bare_text = TRACEBACK.sub("", FENCE.sub("", text))
    return len(CODE_LINE.findall(bare_text)) > MAX_CODE_SHARE * max(1, bare_text.count("\n")) or is_python_module(text)


# A module-level statement only source code opens a line with (a log or a page of prose never parses as Python).
MODULE_STATEMENT = re.compile(r"^(?:import [\w.]+|from [\w.]+ import |def \w+\(|class \w+[(:])", re.MULTILINE)
MAX_MODULE_CHARS = 5_000_000


def is_python_module(text: str) -> bool:
    """The text is a Python source file: it parses as a module that imports, defines a function or a class.
    Its docstrings may hold labelled lines (``User:``, ``Input:``, a chatbot's example dialogue in a fence), so
    a file that is mostly docstrings (``torch/_torch_docs.py``) passes the code-share test and is no run."""
    if len(text) > MAX_MODULE_CHARS or not MODULE_STATEMENT.search(text):
        return False
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return any(isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
               for node in tree.body)


def speaker_sections(found: list[tuple[str, str]]) -> list[dict[str, Any]] | None:
    """The sections as turns when their labels are speakers (see the module docstring), else None."""
    counts: dict[str, int] = {}
    for label, _ in found:  # (a speaker named with its ids speaks again under new ids: ``HCA_0``, ``HCA_1``)
        kind = re.sub(r"\d+(?:\.\d+)?", "#", label.lower())
        counts[kind] = counts.get(kind, 0) + 1
    repeated = [n for n in counts.values() if n >= 2]
    if (len(found) < MIN_BANNERS or len(repeated) < 2 or sum(repeated) < MIN_REPEATED_SHARE * len(found)) and not (
            len(found) >= 2 and role_banners(found)):
        return None
    turns = [{"speaker": role_of(label), "content": body} for label, body in found if body]
    if len(turns) < 2 or sum(text_length(t["content"]) for t in turns) < 20 * len(turns):
        return None
    if sum(is_spoken(t["content"]) for t in turns) * 2 < len(turns):  # encoded blocks (a PEM file) are no speech
        return None
    return turns


def role_banners(found: list[tuple[str, str]]) -> bool:
    """Every banner names a role alias (``Human Message``, ``Ai Message``, ``Tool Message``, as LangChain's
    ``pretty_print`` draws them), a person's and the model's among them: a short exchange is a conversation
    too, whatever its length."""
    roles = [{ROLE_ALIASES[w] for w in label.lower().split() if w in ROLE_ALIASES} for label, _ in found]
    return all(len(r) == 1 for r in roles) and {"user", "assistant"} <= set().union(*roles)


def role_of(label: str) -> str:
    """A label's role by its words, else the label (a speaker's name)."""
    roles = {WORD_ROLES[w] for w in label.lower().split() if w in WORD_ROLES}
    return roles.pop() if len(roles) == 1 else label


def detect_banner_turns(text: Any) -> bool:
    return banner_turns(text) is not None


def parse_banner_turns(text: str) -> list[Transcript]:
    turns = banner_turns(text) or []
    return [Transcript(format="banner-turns", messages=flag_text_observations(turn_messages(turns)),
                       extra={"layout": "banners"})]


BANNER_TURNS = Format(name="banner-turns", container="text", detect=detect_banner_turns, parse=parse_banner_turns)
