"""Conversations written as plain text: turns opened by a speaker's name (``speaker-turns``), ReAct runs
(``react-text``), and (in a string of a JSON record) a conversation rendered in a chat template.

``speaker-turns``: each turn starts a line with its speaker and a colon (``Human: ...``, ``Assistant:
...``, ``Planner: ...``), as plain-text chat exports and multi-agent logs write them. A speaker is a role
alias (``turns.ROLE_ALIASES``) or a name in title case that opens at least two turns outside code fences;
labels of a field, a docstring section or an exception (``Note:``, ``Args:``, ``ValueError:``, ReAct's
``Thought:``...) never are. The text is a conversation only when at least two speakers take at least four
turns, at least one speaker is a role alias (labels alone, ``Tokens:``/``Analysis:`` in a console log or
``To Russia:`` in a game log, are no evidence of speakers), most turns change speaker, the turns hold most
of the text, and, where more than 5% of its lines outside fences are code, a user and a model are among
the speakers' role aliases. What comes before the
first turn is context (a system turn). Names that are no alias take their role as ``shape`` maps a
multi-agent log's speakers (the first to speak set the task).

``react-text``: a text file holding a ReAct run (``react.react_messages``).
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import flag_text_observations, message, text_length
from codemix.mixtures.transcript_formats.chains import plain_chain_runs
from codemix.mixtures.transcript_formats.numbered_steps import numbered_steps
from codemix.mixtures.transcript_formats.react import STEP, react_messages
from codemix.mixtures.transcript_formats.turns import ROLE_ALIASES, call_messages, is_call_run, turn_messages

SPEAKER = re.compile(r"^[ \t]*([A-Za-z][A-Za-z0-9_'.-]*(?: [A-Za-z0-9_'.-]+){0,3})[ \t]*:(?:[ \t]+|$)", re.MULTILINE)
# Line labels that name a field of a document, a log or a ReAct step, never who speaks.
NOT_SPEAKERS = frozenset({
    "note", "notes", "example", "examples", "question", "answer", "input", "output", "step", "source", "title",
    "date", "time", "error", "warning", "info", "debug", "traceback", "file", "line", "http", "https", "result",
    "results", "summary", "reason", "task", "goal", "instruction", "instructions", "context", "description", "name",
    "type", "status", "price", "rating", "url", "id", "score", "reward", "label", "response", "request",
    # docstring sections (Google, NumPy and reST styles)
    "args", "arguments", "argument", "returns", "return", "raises", "yields", "parameters", "params",
    "attributes", "methods", "usage", "aliases", "constructors", "operators", "properties", "todo",
    "warnings", "see also", "keyword arguments", "other parameters",
    # metadata fields (licence files, package readmes, option lists)
    "license", "licence", "copyright", "files", "homepage", "availability", "options", "version", "author",
    "authors", "maintainer", "website", "email", "image", "attribution", "contact", "platform", "keywords",
    "fields", "values", "enums", "messages", "default", "defaults"})
# Lines that are code, not speech (a source file or a code dump is no conversation).
CODE_LINE = re.compile(r"^[ \t]*(?:def |class |import |from [\w.]+ import |return\b|raise |elif |else:|try:|except\b|"
                       r"for .+:$|while .+:$|if .+:$|with .+:$|@\w|#include|public |private |function |const |let |var )",
                       re.MULTILINE)
MIN_TURNS = 4
FENCE = re.compile(r"^[ \t]*```.*?^[ \t]*```", re.MULTILINE | re.DOTALL)


def is_speaker_label(match: re.Match) -> bool:
    """A line label that may name a speaker: a role alias, or a capitalised name (``else:`` in code is
    none) that labels no field and no ReAct step."""
    name = match.group(1)
    if name.lower() in ROLE_ALIASES:
        return True
    words = name.split()
    return (all(w[0].isupper() or w[0].isdigit() for w in words) and not {"_", "."} & set(name)
            and name.lower() not in NOT_SPEAKERS
            and not name.endswith(("Error", "Exception", "Warning")) and not STEP.match(match.group(0)))


def speaker_turns(text: str) -> tuple[str, list[dict[str, str]]] | None:
    """The text before the first turn and the turns ``[{speaker, text}]``, or None when ``text`` is no
    conversation of speakers (see the module docstring)."""
    fences = [(f.start(), f.end()) for f in FENCE.finditer(text)]
    labels = [m for m in SPEAKER.finditer(text) if is_speaker_label(m) and not any(a <= m.start() < b for a, b in fences)]
    counts: dict[str, int] = {}
    for match in labels:
        counts[match.group(1)] = counts.get(match.group(1), 0) + 1
    speakers = {name for name, n in counts.items() if n >= 2 or name.lower() in ROLE_ALIASES}
    opens = [m for m in labels if m.group(1) in speakers]
    if len(speakers) < 2 or len(opens) < MIN_TURNS:
        return None
    lines = text.count("\n") + 1
    roles = {ROLE_ALIASES.get(name.lower()) for name in speakers}
    if not roles - {None}:
        return None  # labels alone ("Tokens:", "Analysis:", "To Russia:") are no evidence of speakers
    if len(CODE_LINE.findall(FENCE.sub("", text))) * 20 > lines and not {"user", "assistant"} <= roles:
        return None  # code with labelled docstrings: only a user and a model speaking make it a conversation
    turns = [{"speaker": m.group(1), "text": text[m.end():(opens[i + 1].start() if i + 1 < len(opens) else len(text))].strip()}
             for i, m in enumerate(opens)]
    repeated = sum(a["speaker"] == b["speaker"] for a, b in itertools.pairwise(turns))
    covered = sum(len(t["text"]) for t in turns)
    lengths = sorted(text_length(t["text"]) for t in turns)
    if repeated * 10 > 3 * (len(turns) - 1) or covered * 2 < len(text.strip()) or lengths[len(lengths) // 2] < 15:
        return None
    return text[:opens[0].start()].strip(), turns


# Chat templates a conversation may be rendered in as one string: (turn opener, role group, turn closer).
TEMPLATES = (
    re.compile(r"<\|im_start\|>[ \t]*(\w+)[ \t]*\n(.*?)(?:<\|im_end\|>|(?=<\|im_start\|>)|\Z)", re.DOTALL),  # ChatML
    re.compile(r"<\|start_header_id\|>(\w+)<\|end_header_id\|>\s*(.*?)(?:<\|eot_id\|>|(?=<\|start_header_id\|>)|\Z)",
               re.DOTALL),  # Llama 3
    re.compile(r"<start_of_turn>(\w+)\n(.*?)(?:<end_of_turn>|(?=<start_of_turn>)|\Z)", re.DOTALL),  # Gemma
)
INST = re.compile(r"\[INST\](.*?)\[/INST\](.*?)(?=\[INST\]|\Z)", re.DOTALL)  # Llama 2, Mistral


def template_messages(text: str) -> list[dict[str, Any]]:
    """A conversation rendered in a chat template (ChatML, Llama 2/3, Gemma, Mistral) as its messages:
    roles from the template's headers (``shape`` aliases), the template's own tokens dropped."""
    for template in TEMPLATES:
        turns = [(role.lower(), body.strip()) for role, body in template.findall(text)]
        if len(turns) >= 2 and all(role in ROLE_ALIASES for role, _ in turns):
            return [message(ROLE_ALIASES[role], body, observation=ROLE_ALIASES[role] == "tool") for role, body in turns]
    pairs = INST.findall(text)
    if not pairs:
        return []
    system = re.search(r"<<SYS>>(.*?)<</SYS>>", pairs[0][0], re.DOTALL)
    strip = re.compile(r"</?s>|<<SYS>>.*?<</SYS>>", re.DOTALL)
    messages = [message("system", system.group(1).strip())] if system and system.group(1).strip() else []
    return messages + [m for ask, reply in pairs for m in (message("user", strip.sub("", ask).strip()),
                                                            message("assistant", strip.sub("", reply).strip()))
                       if m["content"]]


def detect_speaker_turns(text: Any) -> bool:
    return isinstance(text, str) and speaker_turns(text) is not None


def speaker_messages(text: str) -> list[dict[str, Any]]:
    found = speaker_turns(text)
    if found is None:
        return []
    head, turns = found
    return ([message("system", head)] if head else []) + turn_messages(turns)


def parse_speaker_turns(text: str) -> list[Transcript]:
    return [Transcript(format="speaker-turns", messages=flag_text_observations(speaker_messages(text)),
                       extra={"layout": "turns"})]


def detect_react_text(text: Any) -> bool:
    # an executor's log printed between chain edges is its own notation (``chains``: the request it echoed, the
    # chains it nested), read by ``chain-log``
    return react_messages(text) is not None and not ("> Entering new" in text and plain_chain_runs(text)) and \
        numbered_steps(text) is None  # a framework's numbered step log: its own headers cut the steps (``console-log``)


def parse_react_text(text: str) -> list[Transcript]:
    return [Transcript(format="react-text", messages=flag_text_observations(react_messages(text) or []),
                       extra={"layout": "react"})]


SPEAKER_TURNS = Format(name="speaker-turns", container="text", detect=detect_speaker_turns, parse=parse_speaker_turns)
REACT_TEXT = Format(name="react-text", container="text", detect=detect_react_text, parse=parse_react_text)


# --- logged-calls: a program's log of the prompts it sent and the responses it got -------------------

# A log record opens a line with a timestamp or a level (``2023-10-10 01:48:25,502 - INFO - ...``,
# loguru's ``2024-01-01 12:00:00.123 | INFO | mod:fn:12 - ...``, ``INFO:root:...``).
LOG_START = re.compile(r"^(?:\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}[,.]\d+|"
                       r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\b)", re.MULTILINE)
LEVEL = re.compile(r"\b(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\b")
AFTER_LEVEL = re.compile(r"^[\s\]|:-]*(?:[\w.<>]+:[\w.<>]+:\d+\s*-\s*)?(?:(?:root|__main__|[\w.]+):(?=\S))?")
LOG_LABEL = re.compile(r"^\W{0,3}(?:\[[^\]\n]{1,40}\][ \t]*)?([A-Za-z][A-Za-z _-]{0,40}?)\s*:[ \t]*")  # (``[NODE] Input:``)
# A prompt's record that logs its response too, after a pipe (``Input: tell me a joke | Output: Sure, ...``).
INLINE_RESPONSE = re.compile(r"[ \t]\|[ \t]*(?:response|responses|output|outputs|completion|reply|answer)[ \t]*:[ \t]*",
                             re.IGNORECASE)
PROMPT_WORDS = frozenset({"prompt", "prompts", "input", "request", "messages", "query"})
RESPONSE_WORDS = frozenset({"response", "responses", "output", "outputs", "completion", "completions", "reply",
                            "answer", "generation"})


def log_messages(text: str) -> list[str]:
    """Each log record's message (its text after the timestamp, level and logger), continuation lines
    included."""
    starts = [m.start() for m in LOG_START.finditer(text)]
    messages = []
    for index, start in enumerate(starts):
        record = text[start:starts[index + 1] if index + 1 < len(starts) else len(text)]
        header = record[:160]
        level = LEVEL.search(header)
        # without a level the record opens with its time (``2025-07-09 23:25:20,418 - Input: ...``)
        body = record[level.end():] if level else re.sub(r"^[,.]\d+", "", record[LOG_START.match(record).end():])
        messages.append(body[AFTER_LEVEL.match(body).end():].rstrip("\n"))
    return messages


def logged_calls(text: Any) -> list[dict[str, Any]]:
    """The calls a log records: a record labelled as a prompt (``PROMPT:``, ``VALUE PROMPT:``; or the
    prompt's messages, ``system:`` then ``user:``) and the next labelled record, when it is labelled as a
    response with the same qualifier (``RESPONSE:``, ``VALUE OUTPUTS:``; a test runner's ``input:`` then
    ``expected vs code output:`` is no call)."""
    if not isinstance(text, str) or not LOG_START.search(text):
        return []
    calls, pending, asked = [], None, ""
    for record in log_messages(text):
        label = LOG_LABEL.match(record)
        word = label.group(1).strip().lower().split()[-1] if label and label.group(1).strip() else ""
        qualifier = " ".join(label.group(1).strip().lower().split()[:-1]) if word else ""
        body = record[label.end():].strip() if label else ""
        if word in ("system", "user") and not qualifier:  # a prompt logged message by message, by role
            turns = pending if isinstance(pending, list) and word == "user" else []
            pending, asked = [*turns, {"role": word, "content": body}], ""
        elif word in PROMPT_WORDS and (inline := INLINE_RESPONSE.search(body)):
            calls.append({"prompt": body[:inline.start()].strip(), "response": body[inline.end():].strip()})
            pending = None
        elif word in PROMPT_WORDS:
            pending, asked = body, qualifier
        elif word in (*RESPONSE_WORDS, "assistant") and pending and qualifier == asked:  # VALUE PROMPT ->
            calls.append({"prompt": pending, "response": body})  # VALUE OUTPUTS, not input -> test output
            pending = None
        elif label:  # another labelled record between them: what was logged as input was answered by none
            pending = None
    return [call for call in calls if call["prompt"] and call["response"]]


def detect_logged_calls(text: Any) -> bool:
    return bool(logged_calls(text))


def parse_logged_calls(text: str) -> list[Transcript]:
    """One run when each call was sent what the one before it returned, else one transcript per call."""
    calls = logged_calls(text)
    groups = [calls] if is_call_run(calls) else [[call] for call in calls]
    return [Transcript(format="logged-calls", messages=flag_text_observations(call_messages(group)),
                       extra={"layout": "calls", "path": f"call {index}"}) for index, group in enumerate(groups)]


LOGGED_CALLS = Format(name="logged-calls", container="text", detect=detect_logged_calls, parse=parse_logged_calls)
