"""Chats exported as text with headed turns (``markdown-turns``).

Chat exporters write one heading per turn: a Markdown heading (``## User``, ``### Assistant:``), a bold
line (``**User**``, ``**Assistant:**``) or an italic bold one (``_**User**_``, ``_**Assistant**_``, the
SpecStory export of Cursor chats, where ``_****_`` continues the model's turn), optionally followed by a
parenthesised model name or time. Speakers are the role aliases of ``shape.ROLE_ALIASES``. The text up to
the next heading is the turn; ``---`` rules around it are the exporter's. A collapsed ``<details>``
block inside a model turn is a tool's output (an observation). A log with no such heading may open its
turns with banners instead (``===== USER =====``, ``<assistant>`` ... ``</assistant>``, ``USER:`` alone on
a line).
"""

from __future__ import annotations

import collections
import itertools
import json
import re
from typing import Any

from codemix.mixtures.transcript_formats.aider import THINKING_TAG
from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import (
    exported_call,
    flag_text_observations,
    message,
    tool_call,
)
from codemix.mixtures.transcript_formats.markers import (
    MODEL_WORDS,
    OUTPUT_WORDS,
    PART_WORDS,
    PERSON_WORDS,
    TOOL_WORDS,
    acting_speaker,
)
from codemix.mixtures.transcript_formats.text_turns import NOT_SPEAKERS
from codemix.mixtures.transcript_formats.tool_blocks import written_blocks
from codemix.mixtures.transcript_formats.turns import ROLE_ALIASES, key_words, turn_messages

_SPEAKER = r"([A-Za-z][A-Za-z _-]{0,30}?)"
_SUFFIX = r"(?:\s*\([^)\n]{0,80}\))?\s*:?"
_GLYPH = r"(?:[^\w\s#*_`>|\[(-]{1,4}[ \t]*)?"  # an emoji or a symbol before the speaker (``## 👤 User``, ``**🤖 Assistant**``)
# an emoji after the speaker (Gemini CLI's ``/export``: ``## USER 🧑‍💻``, ``## MODEL ✨``)
_TRAIL = r"(?:[ \t]+[^\w\s#*_`>|\[(:-]{1,8})?"
# a numbered label before the speaker (CodeRhapsody's ``## Message 21 - User``, ``## Turn 3: Assistant``)
# or a number alone (an exporter's ``### 1. user (2026-02-16T02:12:50Z)``)
_NUMBERED = r"(?:[A-Za-z]+[ \t]+\d+[ \t]*[-\u2013\u2014:|][ \t]*|\d{1,5}[.)][ \t]+)?"
# a time stamp before the speaker (a transcript an agent appends to: ``## 2025-09-06T11:44:07+02:00 — user``)
_STAMP = (r"(?:\[?(?:\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?)?|\d\d?:\d\d(?::\d\d)?)(?:Z|[+-]\d\d:?\d\d)?\]?"
          r"[ \t]*(?:[-\u2013\u2014|:][ \t]*)?)?")
# an account's handle as a heading's speaker (GitHub Copilot's chat export: ``## @octocat`` over the person's turn)
_HANDLE = r"(@[A-Za-z0-9][\w.-]{0,38})"
# a heading's label set in bold too (Google Search AI Mode's ``### **USER**`` / ``### **ASSISTANT**``), or in italics
# (Continue's session transcript: ``#### _User_`` / ``#### _Assistant_``)
_BOLD = r"(?:\*\*|_(?!_))?"
# a turn's number after the speaker (a Claude chat exporter's ``## User Message 3`` / ``## Assistant Response 3``), or
# the time it was said, bracketed and perhaps in italics (``## 👤 Human *[23:45:04]*``, round 19 FIT)
_COUNT = r"(?:[ \t]+#?\d{1,5}|[ \t]+[*_]?\[\d\d?:\d\d(?::\d\d)?\][*_]?)?"
# a model's id as a heading's speaker (``## 🤖 claude-opus-4-1-20250805``): a name and its version, digits in it
_MODEL_ID = r"([A-Za-z][A-Za-z]*(?:[-.][A-Za-z]+)*(?:[-.][A-Za-z]*\d[\w]*)+(?:[-.][\w]+)*)"
HEADING = re.compile(
    rf"^(?:#{{1,6}}[ \t]+(?:{_HANDLE}|{_GLYPH}{_BOLD}{_STAMP}{_NUMBERED}(?:{_SPEAKER}|{_MODEL_ID}){_COUNT}){_SUFFIX}{_BOLD}{_TRAIL}|\*\*{_GLYPH}{_SPEAKER}{_SUFFIX}\*\*:?|_\*\*{_SPEAKER}?{_SUFFIX}\*\*_)[ \t]*$",
    re.MULTILINE)
# A line that is only a speaker between rules or in a tag, as logs write a turn's opening
# (``===== USER =====``, ``----- assistant -----``, ``<assistant>``), or a capitalised speaker and a colon
# alone on a line (``User:``, or behind an ``@`` as Flemma's chat buffers write ``@You:``; a YAML file's lower-case
# ``user:`` and ``model:`` sections are no turns).
BANNER = re.compile(
    rf"^[ \t]*(?:(?:={{2,}}|-{{2,}}|\*{{3,}})[ \t]*{_SPEAKER}{_SUFFIX}[ \t]*(?:={{2,}}|-{{2,}}|\*{{3,}})?"
    rf"|<{_SPEAKER}>|@?([A-Z][A-Za-z _-]{{0,30}}?)[ \t]*:)[ \t]*$", re.MULTILINE)
CLOSING_TAG = re.compile(rf"^[ \t]*</(?:{'|'.join(map(re.escape, ROLE_ALIASES))})>[ \t]*$", re.MULTILINE | re.IGNORECASE)
# A folded block, alone or inside one element that only wraps it (SpecStory's ``<tool-use data-tool-name="x">``,
# ``<think>``): the wrapper is markup, the block what it holds.
DETAILS = re.compile(r"<(?P<wrap>[\w-]+)\b[^>\n]*>\s*(?P<wrapped><details>.*?</details>)\s*</(?P=wrap)>"
                     r"|(?P<alone><details>.*?</details>)", re.DOTALL)
SUMMARY = re.compile(r"<summary>(.*?)</summary>", re.DOTALL)
THINKING_WORDS = frozenset({"reasoning", "thinking", "thought", "thoughts"})  # a folded block of the model's thinking
QUOTED_LINES = re.compile(r"^[ \t]*>[^\n]*\n?", re.MULTILINE)  # an exporter's time or note quoted above the body
RULE_LINE = re.compile(r"[ \t]*-{3,}[ \t]*")


def without_rules(body: str) -> str:
    """``body`` less the ``---`` rules (and blank lines) an exporter writes around a turn, line by line: a regex
    anchored at the text's end rescans long runs of blank lines from every start (minutes on a 800 KB export)."""
    lines = body.split("\n")
    start, stop = 0, len(lines)
    while start < stop and (not lines[start].strip() or RULE_LINE.fullmatch(lines[start])):
        start += 1
    while stop > start and (not lines[stop - 1].strip() or RULE_LINE.fullmatch(lines[stop - 1])):
        stop -= 1
    return "\n".join(lines[start:stop])


def headings(text: str) -> list[tuple]:
    """``(start, end, role)`` of every turn heading whose speaker is a role alias (or ``_****_``: the
    model's turn going on); where the text has no Markdown heading of a turn, its banners (``BANNER``); where
    neither gives a person's and the model's turn, headings of named agents (``named_headings``)."""
    found = outside_fences(text, marked(text, HEADING)) or marked(text, BANNER)
    if {"user", "assistant"} <= {role for *_, role in found}:
        return with_call_headings(text, found)
    return (other_side(text, found) or line_side(text, found) or named_headings(text) or learnt_headings(text)
            or part_headings(text) or found)


ANY_HEADING = re.compile(r"^#{1,6}[ \t]+(?P<words>\S[^\n]*?)[ \t]*$", re.MULTILINE)


def part_headings(text: str) -> list[tuple[int, int, str]]:
    """An agent's step log under headings that name each step's part (round 16: manus-learn's ``### Step 3 -
    Thought`` / ``### Step 3 - Tool Call`` / ``### Step 3 - Tool Result``): a heading whose words name the model's
    thinking or a call is the model's turn (a call written under it is its call), one whose words name what running
    gave is the tool's. Each kind recurs, a result follows a call; a heading the log repeats with only its numbers
    changing and no part's words (``## [2026-01-25 20:39:11] Execution Update``) is the log's furniture, no one's
    words. ``[]`` for any other page. The run holds no request: it is judged as any run no request reaches."""
    marks, furniture = [], collections.Counter()
    for match in ANY_HEADING.finditer(text):
        words = key_words(re.sub(r"\d+", " ", match.group("words")))
        role = ("tool" if words & OUTPUT_WORDS else "assistant" if words & (THINKING_WORDS | {"call", "action"})
                else None)
        marks.append((match.start(), match.end(), role, re.sub(r"\d+", "#", match.group("words"))))
        furniture[marks[-1][3]] += role is None
    parts = collections.Counter(m[3] for m in marks if m[2] is not None)
    kinds = {m[2] for m in marks if m[2] is not None and parts[m[3]] >= 2}
    if kinds != {"assistant", "tool"} or sum(m[2] is not None for m in marks) < 4:
        return []
    if any(m[2] is None and furniture[m[3]] < 3 for m in marks if marks[0][0] < m[0]):
        return []  # another heading among the steps: a page's sections, not a log's
    return [(start, end, role or "furniture") for start, end, role, _ in marks]


# A heading that is a tool's name in code after a status glyph (GitHub Copilot CLI's ``/share``: ``### ✅ `bash```,
# ``### ❌ `web_fetch```): a call the model made, what it was given and what it gave below it.
CALL_HEADING = re.compile(r"^#{1,6}[ \t]+[^\w\s#*_`>|\[(-]{1,4}[ \t]*`(?P<name>[\w.:/-]{1,64})`[ \t]*$", re.MULTILINE)


def with_call_headings(text: str, found: list[tuple]) -> list[tuple]:
    """``found`` with the call headings between its turns (``CALL_HEADING``) as marks of their own (role ``call``):
    before, a call's block was read as part of the turn above it (the person's, when the model called at once)."""
    calls = [(m.start(), m.end(), "call", m.group("name")) for m in CALL_HEADING.finditer(text)]
    calls = outside_fences(text, calls) if calls else []
    return sorted(found + [c for c in calls if c[0] > found[0][0]]) if calls else found


def other_side(text: str, found: list[tuple]) -> list[tuple] | None:
    """Where the headings name one side only (``## Copilot``), the heading of one other name that recurs and takes
    turns with it (``## @octocat``, an account's handle) is the other side's: the headings, merged, four or more,
    alternate nine times in ten. None when no such name is there."""
    known = [f for f in found if f[2] in ("user", "assistant")]
    sides = {role for *_, role in known}
    if len(sides) != 1 or not all(heading_role(speaker_of_heading(text[start:end])) == role and
                                  speaker_of_heading(text[start:end]).lower() in ROLE_ALIASES for start, end, role in known):
        return None  # the known side's headings are its role word alone (``## Copilot``), not a section's title
    forms = {heading_form(text[start:end]) for start, end, _ in known}
    # a heading written another way than the turns' labels is a section inside a turn (``## API Endpoints`` in a reply
    # under Cursor's ``**Cursor**``)
    found = [f for f in found if heading_form(text[f[0]:f[1]]) in forms]
    spans = {(start, end) for start, end, _ in found}
    others = collections.Counter()
    marks = []
    for match in HEADING.finditer(text):
        speaker = next((g for g in match.groups() if g), "").strip()
        # the other side's label is written as the known side's is (``## @octocat`` by ``## Copilot``, Cursor's
        # ``**Cursor**`` by ``**User**``, each alone on its line): a bold phrase a reply opens with is no speaker
        if (match.start(), match.end()) not in spans and speaker and heading_form(match.group(0)) in forms:
            others[speaker] += 1
            marks.append((match.start(), match.end(), speaker))
    if not others:
        return None
    name, count = others.most_common(1)[0]
    if len(name.split()) > 3 or key_words(name) & (MODEL_WORDS | OUTPUT_WORDS | PART_WORDS | TOOL_WORDS):
        return None  # a name (a handle, a person's), not a section's title or another part of the run
    merged = sorted(found + [(start, end, ({"user", "assistant"} - sides).pop()) for start, end, who in marks
                             if who == name])
    merged = outside_fences(text, merged)
    if count < 2 or len(merged) < 4 or count * 2 < len(found) or \
            sum(a[2] != b[2] for a, b in itertools.pairwise(merged)) * 10 < (len(merged) - 1) * 9:
        return None
    return merged


# A line that holds no one's words: an image, an HTML tag, glyphs (the other side's label is decoration, never a label
# of words, which the other readers take: ``**Messages sent to model:**``).
UNWORDED = re.compile(r"(?:!\[[^\]\n]*\]\([^)\n]*\)|<[A-Za-z][^>\n]*>|[^\w\s#*_`>|\[(-]{1,8})(?:[ \t]*(?:!\[[^\]\n]*\]\([^)\n]*\)|<[A-Za-z][^>\n]*>))*")
# A line's shape: its numbers and hex ids one mark (a screenshot's URL of the same avatar differs only in its ids).
IDS = re.compile(r"[0-9a-f]*\d[0-9a-f]*", re.IGNORECASE)


def line_side(text: str, found: list[tuple]) -> list[tuple] | None:
    """Where the headings name one side only (a README's ``### 🔴 ChatGPT`` over each reply) and the other side has
    no heading, a line of one shape that recurs once before each of them (the person's avatar screenshot,
    ``![image](...)``, over each prompt) is the other side's label: the line, no one's words, opens the turn that
    runs to the next heading. Three turns or more of each side, nine changes of side in ten."""
    known = [f for f in found if f[2] in ("user", "assistant")]
    if len(known) < 3 or len({role for *_, role in known}) != 1 or len(known) != len(found):
        return None
    fences = [span for span, _ in fence_spans(text)] if "```" in text else []
    taken = {(start, end) for start, end, _ in known}
    shapes: dict[str, list[tuple[int, int]]] = collections.defaultdict(list)
    for line in re.finditer(r"^[ \t]*(\S[^\n]{0,200}?)[ \t]*$", text, re.MULTILINE):
        if (line.start(), line.end()) not in taken and not any(a <= line.start() < b for a, b in fences) \
                and not FENCE_LINE.match(line.group(0)) and UNWORDED.fullmatch(line.group(1)):
            shapes[IDS.sub("#", line.group(1))].append((line.start(), line.end()))
    if not shapes:
        return None
    shape, spans = max(shapes.items(), key=lambda item: len(item[1]))
    if len(spans) < 3 or len(spans) * 10 < 7 * len(known) or len(shape.split()) > 8:
        return None
    other = ({"user", "assistant"} - {known[0][2]}).pop()
    merged = sorted(known + [(start, end, other) for start, end in spans])
    if sum(a[2] != b[2] for a, b in itertools.pairwise(merged)) * 10 < (len(merged) - 1) * 9:
        return None
    return merged


def heading_form(line: str) -> str:
    """How a turn's label is set: its heading's marks (``##``), or bold (``**``), or bold italics (``_**``)."""
    return line.lstrip()[:3] if line.lstrip().startswith("_**") else line.lstrip().split(" ", 1)[0] \
        if line.lstrip().startswith("#") else "**"


def outside_fences(text: str, found: list[tuple]) -> list[tuple]:
    """The headings outside fences that show Markdown (``` ```markdown ```, a page's ``<pre>`` as ``` ````pre ```): an
    example export a reply shows (``## 👤 User`` in a README it writes) opens no turn. Only such fences: exporters
    wrap tool output in bare fences that nest and break (cctrace), so a bare fence's end is no evidence. When every
    heading sits in such fences (a chat a page shows), all of them."""
    fences = [span for span, info in fence_spans(text) if info in SHOWN_MARKDOWN] if "```" in text else []
    inside = [f for f in found if any(a <= f[0] < b for a, b in fences)]
    return found if not inside or len(inside) == len(found) else [f for f in found if f not in inside]


FENCE_LINE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$", re.MULTILINE)


SHOWN_MARKDOWN = frozenset({"markdown", "md", "pre"})  # fences that show a document (``pre``: a page's ``<pre>``)


def fence_spans(text: str) -> list[tuple[tuple[int, int], str]]:
    """``((start, end), info)`` of each fenced block: from an opening line to the next line of the same fence and
    nothing else (a fence left open runs to the end); ``info`` the opening's first word, lower-cased."""
    spans, opened = [], None
    for line in FENCE_LINE.finditer(text):
        if opened is None:
            opened = line
        elif line.group(1).startswith(opened.group(1)) and not line.group(2).strip():
            spans.append(((opened.start(), line.end()), (opened.group(2).split() or [""])[0].lower()))
            opened = None
    return spans + ([((opened.start(), len(text)), (opened.group(2).split() or [""])[0].lower())] if opened else [])


def named_headings(text: str) -> list[tuple[int, int, str, str]]:
    """Headings of agents named, not by role (``## Idealist (anthropic: claude-3-5-sonnet)``, ``## Cost Cutter
    (openai: gpt-4o-mini)``), between a harness's headings (``## System Prompt``: the referee's prompt to the
    next speaker) or alone. Each name and harness heading recurs and the speaker changes at most headings.
    With a harness (a person's or a system's heading), every agent is the model and the harness's headings
    are the context each answers (user turns). Without one, the names must say they are agents (a model word,
    a parenthesised model) and the one that acts is the model (``markers.acting_speaker``), else the one who
    answers the opener; the opening turn states the task. A page's recurring headings (``Example``,
    ``Output``: fields, ``NOT_SPEAKERS``) are none."""
    found = [(m.start(), m.end(), next((g for g in m.groups() if g), "").strip(), m.group(0)) for m in HEADING.finditer(text)]
    found = [f for f in found if f[2] and f[3].startswith("#")]  # a heading line (a bold line is a report's label)
    counts = collections.Counter(f[2].lower() for f in found)
    found = [f for f in found if counts[f[2].lower()] >= 2]
    names = {f[2] for f in found if heading_role(f[2]) is None}
    if len(found) < 4 or not names or any(n.lower() in NOT_SPEAKERS or key_words(n) & OUTPUT_WORDS for n in names):
        return []
    if sum(a[2] != b[2] for a, b in itertools.pairwise(found)) * 10 < (len(found) - 1) * 7:
        return []
    harness = {f[2] for f in found if heading_role(f[2]) in ("user", "system")}
    if harness:
        return [(start, end, "assistant" if speaker in names else "user", speaker) for start, end, speaker, _ in found]
    if not any(key_words(heading) & MODEL_WORDS for *_, n, heading in found if n in names):
        return []  # no harness and no heading says it is a model's (its name or its aside): a page's sections
    bodies = [{"speaker": f[2], "content": text[f[1]:(found[i + 1][0] if i + 1 < len(found) else len(text))]}
              for i, f in enumerate(found)]
    actor = acting_speaker(bodies) or next((f[2] for f in found if f[2] != found[0][2]), None)
    roles = [(start, end, "assistant" if speaker == actor else "user", speaker) for start, end, speaker, _ in found]
    return [(*roles[0][:2], "user", roles[0][3]), *roles[1:]]  # the opening turn states the task (context)


# A heading or a bold line that is a label alone, in a script of its own (``## ユーザー``, ``### 用户 #3``, ``**Пользователь**``),
# an emoji or a symbol before it, a turn's number, a parenthesised aside, a bracketed time (``### Пользователь [17:49:08]``)
# or a colon after it: what an export in another language writes over each turn. A label of words outside ASCII, up to
# three, no digit; beside it, the other side's label may be a side's word in ASCII (``### Claude [17:49:29]``).
LABEL_LINE = re.compile(r"^(?P<form>#{1,6}[ \t]+|\*\*)(?:[^\w\s#*_`>|\[(-]{1,4}[ \t]*)?"
                        r"(?P<label>[^\W\d_](?:[^\W\d_]|[ \t](?=[^\W\d_])){0,24})(?:[ \t]*[#\uff03]?\d{1,4})?"
                        r"(?P<aside>[ \t]*[(\uff08][^)\uff09\n]{0,80}[)\uff09]|[ \t]*\[[\d:./ T-]{4,30}\])?"
                        r"[ \t]*[:\uff1a]?[ \t]*(?:\*\*)?[ \t]*$", re.MULTILINE)
QUESTION_MARKS = re.compile(r"[?\uff1f]")
TIME = re.compile(r"\d\d?:\d\d")


def learnt_headings(text: str) -> list[tuple[int, int, str, str]]:
    """Turn labels learnt from the file's structure, in any script (issue 45, round 15): the two labels written alike
    (same heading level, or bold lines) that recur most and take turns (the rarer one's turns nine in ten met by
    the other's, the model may write several messages running) are a person's and a
    model's, whatever language names them; other headings of that form, each rarer than either label, are sections
    inside a turn (a reply's ``### 已完成的内容``). The label whose words name a side takes it (a role alias, a model's
    name: ``## ChatGPT``); else the label that opens is the person's (who brings the task) and the other the model's,
    as ``labelled-dialogue`` reads two names. Labels of ASCII letters are left to the role words above (``## Problem``
    / ``## Solution`` are a page's sections); headings inside fences are a reply's; someone asks something
    (``?``/``？``), and each turn says something. Each message keeps its label."""
    fences = [span for span, _ in fence_spans(text)] if "```" in text else []
    matches = [m for m in LABEL_LINE.finditer(text) if not any(a <= m.start() < b for a, b in fences)]
    found = [(m.start(), m.end(), m.group("form").strip(), m.group("label").strip()) for m in matches]
    timed = {m.start() for m in matches if TIME.search(m.group("aside") or "")}
    if not any(not f[3].isascii() for f in found):
        return ascii_headings(text, found)
    # (a few labels outside ASCII among a page's sections do not make its speakers' labels another script's: a long
    # talk under ASCII names whose replies have such section titles is read as ASCII labels are)
    return script_headings(text, found, timed) or ascii_headings(text, found)


def script_headings(text: str, found: list[tuple[int, int, str, str]], timed: set[int]) -> list[tuple[int, int, str, str]]:
    """``learnt_headings`` for labels outside ASCII."""
    found = [f for f in found if not f[3].isascii() or side_word(f[3])]
    counts = collections.Counter((f[2], f[3]) for f in found)
    ranked = counts.most_common(3)
    if len(ranked) < 2 or ranked[1][1] < 2 or ranked[0][0][0] != ranked[1][0][0] or \
            (len(ranked) == 3 and ranked[2][1] * 2 > ranked[1][1]):
        return []
    labels = {ranked[0][0][1], ranked[1][0][1]}
    found = [f for f in found if f[2] == ranked[0][0][0] and f[3] in labels]
    if len(found) < 4 or any(label.lower() in NOT_SPEAKERS for label in labels):
        return []
    # they take turns: the rarer label's turns are nine in ten met by the other's on both sides (a model writes several
    # messages to one request: ``### 助手`` three times running)
    rarer = min(collections.Counter(f[3] for f in found).values())
    if sum(a[3] != b[3] for a, b in itertools.pairwise(found)) * 10 < (2 * rarer - 1) * 9:
        return []
    bodies = [text[f[1]:(found[i + 1][0] if i + 1 < len(found) else len(text))].strip() for i, f in enumerate(found)]
    if not all(bodies) or not (any(QUESTION_MARKS.search(b) for b in bodies) or all(f[0] in timed for f in found)):
        return []  # someone asks, or each turn is logged with its time (a page's sections are neither)
    named = {label: heading_role(label) or ("assistant" if key_words(label) & MODEL_WORDS else None) for label in labels}
    known = {label: role for label, role in named.items() if role in ("user", "assistant")}
    opener, other = found[0][3], next(f[3] for f in found if f[3] != found[0][3])
    if len(known) == 1:  # one label names its side (``### 🤖 ChatGPT``): the other label is the other side's
        label, role = known.popitem()
        roles = {label: role, (other if label == opener else opener): "user" if role == "assistant" else "assistant"}
    elif len(set(known.values())) == 2:
        roles = known
    else:
        roles = {opener: "user", other: "assistant"}
    return [(start, end, roles[label], label) for start, end, _, label in found]


def side_word(label: str) -> bool:
    """Whether a label's words name a side (a role alias, a model's name: ``Claude``)."""
    return heading_role(label) in ("user", "assistant") or bool(key_words(label) & MODEL_WORDS)


def ascii_headings(text: str, found: list[tuple[int, int, str, str]]) -> list[tuple[int, int, str, str]]:
    """Turn labels in letters of ASCII learnt from the file (round 16: ``## Usuario`` / ``## Asistente``, ``### Benutzer``
    / ``### Assistent``): held to more than ``learnt_headings`` holds labels of another script to, since a page's
    sections are written so too (``## Problem`` / ``## Solution``): the two labels are the only headings of their
    form, recur three times or more and strictly take turns, none names a field (``NOT_SPEAKERS``), no heading of a
    higher level cuts the exchanges apart (a page's items), and half the opener's turns or more ask (``?``): the
    person asks, a page states its problems."""
    forms = collections.Counter(f[2] for f in found)
    if not forms:
        return []
    form = forms.most_common(1)[0][0]
    mine = [f for f in found if f[2] == form]
    # (a long talk whose replies carry sections of their own, ``## Tyler`` / ``## Atem`` 108 and 168 times among 204
    # titles said once or twice, round 19 FIT: the two names recur ten times or more each, every other heading of their
    # form five times rarer than either; the replies' side may write several running, the other never)
    named = collections.Counter(f[3] for f in mine).most_common()
    sectioned = len(named) >= 2 and named[1][1] >= 10 and all(count * 5 <= named[1][1] for _, count in named[2:])
    if sectioned:
        pair = {named[0][0], named[1][0]}
        mine = [f for f in mine if f[3] in pair]
        rarer = named[1][0]
        if sum(a[3] == b[3] == rarer for a, b in itertools.pairwise(mine)) * 10 > named[1][1]:
            return []
    labels = list(dict.fromkeys(f[3] for f in mine))
    if len(labels) != 2 or len(mine) < 6 or any(l.lower() in NOT_SPEAKERS or heading_role(l) for l in labels):
        return []
    if (not sectioned and any(a[3] == b[3] for a, b in itertools.pairwise(mine))) or mine[0][3] != labels[0]:
        return []
    level = len(form) if form.startswith("#") else 7
    higher = [m.start() for m in re.finditer(r"^(#{1,6})[ \t]+\S", text, re.MULTILINE) if len(m.group(1)) < level]
    inside = sum(mine[0][0] < at < mine[-1][0] for at in higher)
    if inside and not (sectioned and inside * 5 <= named[1][1]):  # (a reply's own title, ``# ...``, now and then)
        return []
    bodies = [text[f[1]:(mine[i + 1][0] if i + 1 < len(mine) else len(text))].strip() for i, f in enumerate(mine)]
    asked = [b for f, b in zip(mine, bodies) if f[3] == labels[0]]
    # a long talk (ten exchanges or more under the two names and no other heading but a title above them: two models
    # talking, ``## Jake`` / ``## Paul``) may stop asking after its opening: its opening asks, and each side asks
    # again now and then (a page's ``## Problem`` / ``## Solution`` sections: the solutions ask nothing)
    asks = collections.Counter(f[3] for f, b in zip(mine, bodies) if QUESTION_MARKS.search(b))
    talk = len(mine) >= 20 and (sectioned or not any(m.start() > mine[0][0] for m in re.finditer(
        r"^#{1,6}[ \t]+\S", text, re.MULTILINE) if m.start() not in {f[0] for f in mine})) and \
        bool(QUESTION_MARKS.search(bodies[0] + bodies[1])) and min(asks[label] for label in labels) >= 3
    if not all(bodies) or (sum(bool(QUESTION_MARKS.search(b)) for b in asked) * 2 < len(asked) and not talk):
        return []
    roles = {labels[0]: "user", labels[1]: "assistant"}
    return [(start, end, roles[label], label) for start, end, _, label in mine]


def named_thought(line: str) -> bool:
    """A model's heading whose words name its thinking (``### 💭 Agent Thought``)."""
    return bool(key_words(speaker_of_heading(line.strip())) & THINKING_WORDS)


def speaker_of_heading(line: str) -> str:
    match = HEADING.match(line.strip("\n"))
    return next((g for g in match.groups() if g), "").strip() if match else ""


def heading_role(speaker: str) -> str | None:
    """The role a heading's speaker names: a role alias, its first word one (``System Prompt``), else None."""
    words = speaker.lower().split()
    return ROLE_ALIASES.get(speaker.lower()) or (ROLE_ALIASES.get(words[0]) if words else None)


# Headings an exporter writes for a person's message and the reply to it (``## Prompt:`` / ``## Response:``, a
# Claude chat exporter's; ``# You`` over what the reader of the page typed): read only as a pair.
PAIRED = {"prompt": "user", "you": "user", "response": "assistant"}
REPLY_WORDS = frozenset({"response", "reply", "answer"})


# Words a label adds to its role to say what the turn is (``## 👤 User Question`` / ``## 🤖 Assistant Answer``).
TURN_WORDS = frozenset({"question", "answer", "input", "response", "reply", "message", "prompt", "request", "query",
                        "said", "says", "wrote", "asked", "turn"})


def marked(text: str, pattern: re.Pattern) -> list[tuple[int, int, str]]:
    found, paired, replies = [], [], []
    matches = list(pattern.finditer(text))
    said = collections.Counter(next((g for g in m.groups() if g), "").strip().lower() for m in matches)
    for match in matches:
        speaker = next((g for g in match.groups() if g), "")
        role = ROLE_ALIASES.get(speaker.strip().lower()) if speaker else "continued"
        if role is None and speaker.strip().split()[0].lower() in ROLE_ALIASES:  # "Agent (model)", "User said"
            role = ROLE_ALIASES[speaker.strip().split()[0].lower()]
            if role in ("user", "assistant") and said[speaker.strip().lower()] < 2 and \
                    not set(speaker.lower().split()[1:]) <= TURN_WORDS:
                role = None  # a title written once (``## User Testing Required``) is a section's, not a turn's label
        if role is None and re.search(r"\d", speaker) and key_words(speaker) & MODEL_WORDS and \
                said[speaker.strip().lower()] >= 2:
            role = "assistant"  # a model's id over its turns (``claude-opus-4-1-20250805``), not a title written once
        if role is not None:
            found.append((match.start(), match.end(), role))
        elif speaker.strip().lower() in PAIRED:
            paired.append((match.start(), match.end(), PAIRED[speaker.strip().lower()]))
        elif len(words := speaker.lower().split()) == 2 and words[0] in PAIRED and match.group(0).startswith("#"):
            # a heading that qualifies the pair's word once (a prompt history record's ``## Response snapshot``)
            paired.append((match.start(), match.end(), PAIRED[words[0]]))
        elif len(words) == 2 and words[1] in REPLY_WORDS and match.group(0).startswith("#"):
            replies.append((match.start(), match.end(), "assistant"))  # ``### Planner Response``: an agent's reply
    # ``Prompt`` / ``Response`` (``You`` / ``ChatGPT``) count where they take turns with the other side: an API
    # guide's lone ``Response`` heading is no turn
    roles = {r for *_, r in found + paired}
    # (only where they give a side the role words do not: under ``## Assistant Response 1`` an exporter's
    # ``**Request:**`` / ``**Response:**`` of a call are the call's, not a turn)
    if paired and {"user", "assistant"} <= roles and {r for *_, r in paired} - {r for *_, r in found}:
        merged = sorted(found + paired)
        if sum(a[2] != b[2] for a, b in itertools.pairwise(merged)) * 10 >= (len(merged) - 1) * 9:
            return merged
    # An agent's replies under ``<Name> Response`` (Windsurf's ``### Planner Response``, several to a request) count
    # where the person's headings are found by role and nine in ten of them are answered by such a reply.
    users = [f for f in found if f[2] == "user"]
    if len(replies) >= 2 and users and {r for *_, r in found} <= {"user"}:
        merged = sorted(found + replies)
        answered = sum(a[2] == "user" and b[2] == "assistant" for a, b in itertools.pairwise(merged))
        if answered * 10 >= len(users) * 9:
            return merged
    return found


def detect_markdown_turns(text: Any) -> bool:
    if not isinstance(text, str):
        return False
    marks = headings(text)
    roles = {heading[2] for heading in marks}
    return ("user" in roles and "assistant" in roles or request_steps(text) is not None or model_run(text, marks)
            or bool(part_headings(text)))


# A heading's aside that a log writes, not a title: a time (``(14:32:16)``) or a model's name in parentheses.
LOGGED_ASIDE = re.compile(r"\((?:\d\d?:\d\d(?::\d\d)?|[^()\n]*\d[^()\n]*)\)[ \t]*:?[ \t]*$")


def model_run(text: str, marks: list[tuple]) -> bool:
    """A run no request reaches, written under the model's headings only (issue 45, round 15: a visual logger's export,
    ``### 💭 Agent Thought (14:32:16)`` / ``### 🤖 Model Response (14:32:18)``): three headings or more, every one a
    model's label that recurs, each with the time or the model a log writes after it (a page's ``## Assistant``
    sections are titles). Read as any run no request reaches (docs/agent-transcripts.md, "Runs no request reaches")."""
    if len(marks) < 3 or {m[2] for m in marks} != {"assistant"}:
        return False
    lines = [text[start:end].strip() for start, end, *_ in marks]
    return all(LOGGED_ASIDE.search(line) for line in lines) and \
        min(collections.Counter(speaker_of_heading(line).lower() for line in lines).values()) >= 2


# A recap of a session written step by step, each step under a heading of its own holding the person's request
# under a label that says so (``### 2. Center Holes Between Ribs`` then ``**User request:** Make sure ...``): the
# request is the person's turn, the rest of the step the model's account of what it did.
REQUEST_LABEL = re.compile(r"^[ \t]*\*\*(?P<label>[A-Za-z][A-Za-z ]{0,30}?)[ \t]*:?\*\*:?[ \t]*(?P<rest>\S.*)?$", re.MULTILINE)
REQUEST_WORDS = frozenset({"request", "prompt", "asked", "ask", "question", "message", "input", "instruction", "task"})
STEP_HEADING = re.compile(r"^(#{1,6})[ \t]+\S.*$", re.MULTILINE)


def request_steps(text: str) -> list[dict[str, Any]] | None:
    """The turns of a step-by-step recap (``REQUEST_LABEL``), or None: two steps or more, each request label under a
    heading of its own at one level, the label the person's words and a request's (``User request``)."""
    labels = [m for m in REQUEST_LABEL.finditer(text) if (words := set(m.group("label").lower().split()))
              and words & PERSON_WORDS and words & REQUEST_WORDS and words <= PERSON_WORDS | REQUEST_WORDS]
    heads = list(STEP_HEADING.finditer(text))
    steps = [max((h for h in heads if h.start() < m.start()), key=lambda h: h.start(), default=None) for m in labels]
    if len(labels) < 2 or None in steps or len({s.start() for s in steps}) != len(steps) or \
            len({len(s.group(1)) for s in steps}) != 1:
        return None
    level = len(steps[0].group(1))
    messages = []
    for index, label in enumerate(labels):
        stop = steps[index + 1].start() if index + 1 < len(labels) else next(
            (h.start() for h in heads if h.start() > label.start() and len(h.group(1)) <= level), len(text))
        # the request: the label's line and the lines going on with it (or, a label alone, the paragraph below)
        start = label.end() if label.group("rest") else len(text) - len(text[label.end():stop].lstrip())
        end = text.find("\n\n", start)
        end = stop if end == -1 or end > stop else end
        request = ((label.group("rest") or "") + text[start:end] if label.group("rest") else text[start:end]).strip()
        messages += [message("user", request), message("assistant", without_rules(text[end:stop]).strip())]
    return messages if all(m["content"] for m in messages) else None


# SpecStory cuts a model turn into parts with ``---`` lines; a part that opens with what a tool did (a fenced
# command or diff, a fetched rule under ``### Rule: name``, an action on a path ``Read file: x``) is that
# tool's trace, not the model's words.
PART_RULE = re.compile(r"^---[ \t]*$", re.MULTILINE)
TOOL_PART = re.compile(r"\A(?:```|#{1,6}[ \t]+[A-Z]\w*:[ \t]+\S|[A-Z][a-z]+(?: [a-z]+)?:[ \t]+[\w./~-]+/[\w./-]*[ \t]*\Z)")


# An exporter's time line over each turn (cctrace's ``**[2025-07-02 21:56:17]**``): the exporter's, no one's words.
# An exporter's small print alone on a line, a time in it (Copilot CLI's ``<sub>⏱️ 1m 27s</sub>``): no one's words.
# (Google Search AI Mode's ``*1 hour ago*`` under each request, in italics: the same)
SMALL_PRINT = re.compile(r"^[ \t]*(?:<sub>[^<\n]*\d[^<\n]*</sub>|[*_]\d+ (?:second|minute|hour|day|week|month|year)s? ago[*_])"
                         r"[ \t]*$\n?", re.MULTILINE)
STAMP_LINE = re.compile(r"^[ \t]*\*\*\[\d{4}-\d\d-\d\d[ T][\d:.]+Z?\]\*\*[ \t]*$\n?", re.MULTILINE)
# A bold label a section opens with (``📊 **Tool Result:**``), after an emoji or a symbol.
OPENING_LABEL = re.compile(r"\A[^\w\s*]{0,3}[ \t]*\*\*([^*\n]{1,40}?):?\*\*:?[ \t]*\n")
# An exporter's note in italics standing for a turn it could not keep (``_No text content captured for this
# message._``): no one's words.
PLACEHOLDER = re.compile(r"\A(?:_[^_\n]+_|\*[^*\n]+\*)\Z")
NEGATION = re.compile(r"(?<![a-z])(?:no|not|none|empty|nothing)(?![a-z])", re.IGNORECASE)  # (``_No``: ``_`` is a word char)


# An action the exporter records in one italic line, a past-tense verb first (Windsurf's ``*Viewed [a.md](file:///...) *``,
# ``*Updated todo list*``, ``*User accepted the command `ls`*``): the model's call, its result not exported.
ACTION_LINE = re.compile(r"^[ \t]*\*(?!\*)(?P<name>(?:[A-Z][a-z]+ ){0,2}[A-Za-z]+ed\b(?: [a-z]+){0,2}?)"
                         r"(?:[ \t]+(?P<what>[^*\n]*?))?[ \t]*\*[ \t]*$\n?", re.MULTILINE)


def action_calls(body: str) -> tuple[str, list[dict[str, Any]]]:
    """``body`` less its action lines (``ACTION_LINE``), and those actions as the model's calls."""
    calls = [exported_call(None, m.group("name"), (m.group("what") or "").strip()) for m in ACTION_LINE.finditer(body)]
    return (ACTION_LINE.sub("", body).strip(), calls) if calls else (body, [])


def section_messages(role: str, body: str) -> list[dict[str, Any]]:
    body = without_rules(SMALL_PRINT.sub("", STAMP_LINE.sub("", CLOSING_TAG.sub("", body)))).strip()
    if PLACEHOLDER.match(body) and NEGATION.search(body):
        return []
    if role in ("user", "assistant") and (acted := action_calls(body))[1]:
        # (a person's section may end with the model's first actions: the exporter writes them under the request)
        text, calls = acted
        head = section_messages(role, text) if text else []
        return [*head, message("assistant", tool_calls=calls)]
    label = OPENING_LABEL.match(body + "\n")
    if role == "user" and label and key_words(label.group(1)) & (OUTPUT_WORDS | {"response"}):
        # a person's section that opens with a tool's result label (``📊 **Tool Result:**``) is the tool's turn
        return [message("tool", body[label.end():].strip() if label.end() <= len(body) else "", observation=True)]
    if role == "user" and (results := result_blocks(body)):
        return [message("tool", result, observation=True) for result in results]
    if role != "assistant":
        return [message(role, body, observation=role == "tool")] if body else []
    if (sections := tool_sections(body)) is not None:  # calls under their tools' names, arguments and result fenced
        return sections
    if (blocks := written_blocks(body)) is not None:  # calls written as labelled blocks, results under them
        return [m for part in blocks for m in (part_messages(part["content"]) if part["role"] == "assistant"
                                               and not part["tool_calls"] else [part])]
    parts = [part.strip() for part in PART_RULE.split(body)]
    if len(parts) > 1 and any(TOOL_PART.match(part) for part in parts):
        return [m for part in parts if part for m in (
            [message("tool", part, observation=True)] if TOOL_PART.match(part) else part_messages(part))]
    return part_messages(body)


# A sub-heading that is a tool's name as code spells it (``### get_user_groups``, ``### whoami``) over its arguments in
# one fence and what it returned in the next (a Claude chat exporter's MCP calls, issue 45 round 19).
TOOL_SECTION = re.compile(r"^#{2,6}[ \t]+(?P<name>[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)*)[ \t]*\n\s*```[\w-]*[ \t]*\n"
                          r"(?P<args>.*?)\n?[ \t]*```[ \t]*\n\s*```[\w-]*[ \t]*\n(?P<result>.*?)\n[ \t]*```[ \t]*(?:\n|\Z)",
                          re.MULTILINE | re.DOTALL)


def tool_sections(body: str) -> list[dict[str, Any]] | None:
    """A model turn's calls written under their tools' names (``TOOL_SECTION``): each the model's call (its arguments
    as written) and the tool's result. None when there is none."""
    found = list(TOOL_SECTION.finditer(body))
    if not found:
        return None
    messages: list[dict[str, Any]] = []
    last = 0
    for match in found:
        if match.start() < last:
            continue
        if prose := body[last:match.start()].strip():
            messages += part_messages(prose)
        result = match.group("result").strip()
        messages += [message("assistant", tool_calls=[exported_call(None, match.group("name"), match.group("args").strip())]),
                     message("tool", result, observation=True)]
        last = match.end()
    if rest := body[last:].strip():
        messages += part_messages(rest)
    return messages


# A bold label opening a line, what follows it on the line its own (``**Tool Result:** `toolu_01A`)``).
LINE_LABEL = re.compile(r"^[ \t]*\*\*([^*\n]{1,40}?):?\*\*:?", re.MULTILINE)


def result_blocks(body: str) -> list[str]:
    """The results a person's section holds when it is only tool results (an Amp or Flemma export returns the
    results of the model's calls in the person's turn, each under ``**Tool Result:** `<call id>```): each block from
    one such label to the next, the label cut. ``[]`` when the section opens with no result label."""
    labels = list(LINE_LABEL.finditer(body))
    if not labels or body[:labels[0].start()].strip() or not key_words(labels[0].group(1)) & OUTPUT_WORDS:
        return []
    opening = [m for m in labels if m.group(1) == labels[0].group(1)]
    return [body[m.end():(opening[i + 1].start() if i + 1 < len(opening) else len(body))].strip()
            for i, m in enumerate(opening)]


# A label alone on a line that opens a model turn's reasoning, in italics or bold (opencode's ``_Thinking:_``).
THINKING_LABEL = re.compile(r"\A\s*(?:_|\*{1,2})(?:thinking|thoughts?|reasoning)(?:\.\.\.|\u2026)?:?(?:_|\*{1,2}):?[ \t]*"
                            r"(?P<gap>\n[ \t\n]*|\Z)", re.IGNORECASE)


def part_messages(body: str) -> list[dict[str, Any]]:
    """A model turn's text: its prose, a folded ``<details>`` block a tool's output, the model's call
    (``folded_call``), a call and its result (``used_tool``) or, when its summary names thinking, the reply's
    reasoning."""
    messages, last, reasoning = [], 0, ""
    if (thought := THINKING_TAG.match(body.lstrip())) is not None:  # a reply opening with ``<thinking>``: its reasoning
        reasoning, body = thought.group("thought").strip(), body.lstrip()[thought.end():]
    elif (label := THINKING_LABEL.match(body)) is not None:
        # opencode's ``/export`` writes a reasoning part as ``_Thinking:_``, a blank line, its text and a blank line, and
        # the reply's text after it with nothing between: where the reasoning is empty (the label, then three line
        # ends or more) what follows is the reply; else no mark says where the reasoning ends, and all of it is
        # reasoning (masked by default, ``sft.reasoning``), never the model's reply to train
        rest = body[label.end():]
        reasoning, body = ("", rest) if label.group("gap").count("\n") >= 3 else (rest.strip(), "")
    blocks = list(DETAILS.finditer(body))
    for index, found in enumerate(blocks):
        if prose := without_rules(body[last:found.start()]).strip():
            messages.append(message("assistant", prose, reasoning=reasoning))
            reasoning = ""
        block = found.group("wrapped") or found.group("alone")
        summary = SUMMARY.search(block)
        answered = index + 1 < len(blocks) and not body[found.end():blocks[index + 1].start()].strip() and \
            is_result(SUMMARY.search(blocks[index + 1].group(0)))
        if summary and key_words(summary.group(1)) & THINKING_WORDS:  # ``🧠 Reasoning (5s)``: the model's thinking
            reasoning = "\n\n".join(filter(None, [reasoning, folded(block)]))
        elif used := used_tool(block, summary):
            messages += used
        elif call := folded_call(block, summary, answered):
            messages.append(message("assistant", tool_calls=[call]))
        else:
            messages.append(message("tool", block, observation=True))
        last = found.end()
    if (prose := without_rules(body[last:]).strip()) or reasoning:
        messages.append(message("assistant", prose, reasoning=reasoning))
    return messages


# A folded block whose summary says a tool was used and names it, then what it did (SpecStory's ``Tool use:
# **read_file** • Read file: a.ts``): the model's call and the tool's result in one block.
USED_TOOL = re.compile(r"\A\s*(?:Tool (?:use|call)|Used tool|MCP tool call)\s*:?\s*(?:\*\*|`)?(?P<name>[A-Za-z_][\w.:-]{0,80})"
                       r"(?:\*\*|`)?\s*(?:[•·:|-]\s*(?P<what>.*?))?\s*\Z", re.DOTALL | re.IGNORECASE)


def used_tool(block: str, summary: re.Match | None) -> list[dict[str, Any]] | None:
    """The call (named by the summary, what the summary says of it as its arguments) and the result (the body)
    of a block that reports a tool's use (``USED_TOOL``); None for any other block."""
    used = USED_TOOL.match(re.sub(r"<[^>]+>", "", summary.group(1))) if summary else None
    if used is None:
        return None
    what = (used.group("what") or "").strip()
    return [message("assistant", tool_calls=[exported_call(None, used.group("name"), what)]),
            message("tool", folded(block) or what, observation=True)]


# A tool's name opening a folded block's summary (ccexport's ``<summary>Read</summary>``, ``Bash: Install the
# dependencies``, ``Edit lib/x.rb``), what follows it the call's description.
TOOL_NAME = re.compile(r"(?P<name>[A-Za-z_][\w.-]{0,80})(?::?[ \t]+\S.*)?", re.DOTALL)


def folded(block: str) -> str:
    """A folded block's body, less its summary."""
    return SUMMARY.sub("", block)[len("<details>"):-len("</details>")].strip()


def is_result(summary: re.Match | None) -> bool:
    return summary is not None and bool(key_words(summary.group(1)) & (OUTPUT_WORDS | {"response"}))


def folded_call(block: str, summary: re.Match | None, answered: bool) -> dict[str, Any] | None:
    """The model's call a folded block holds: its summary opens with a tool's name (no result's word), and
    either the next block is that call's result (ccexport: ``<summary>Bash: Install the dependencies</summary>``
    over the command's fence, then ``<summary>Tool Result</summary>``) or its body is one fence of a JSON object
    (the arguments). The arguments: that object, else the body as written. None when the block is no call."""
    name = TOOL_NAME.fullmatch(summary.group(1).strip()) if summary else None
    if name is None or is_result(summary) or (not answered and " " in summary.group(1).strip()):
        return None
    fence = ONE_FENCE.match(folded(block))
    try:
        arguments = json.loads(fence.group(1)) if fence else None
    except ValueError:
        arguments = None
    if isinstance(arguments, dict):
        return tool_call(None, name.group("name"), arguments)
    return exported_call(None, name.group("name"), folded(block)) if answered else None


def block_messages(role: str, body: str) -> list[dict[str, Any]] | None:
    """A section whose body is the turn's content blocks written as JSON (an export of API messages: ``[{"type":
    "tool_use", ...}]`` under ``### Assistant``, after a quoted time line), read as that turn's blocks by the
    JSON turn reader: calls, results and text as the API meant them. None when the body is no such JSON."""
    body = QUOTED_LINES.sub("", without_rules(body)).strip()
    if not body.startswith(("[", "{")):
        return None
    try:
        blocks = json.loads(body)
    except ValueError:
        return None
    blocks = [blocks] if isinstance(blocks, dict) else blocks
    if not (isinstance(blocks, list) and blocks and all(isinstance(b, dict) and isinstance(b.get("type"), str) for b in blocks)):
        return None
    return turn_messages([{"role": role, "content": blocks}])


FENCED = re.compile(r"^[ \t]*```[^\n]*\n.*?^(?=[ \t]*```)", re.MULTILINE | re.DOTALL)
ONE_FENCE = re.compile(r"\A\s*```[\w-]*[ \t]*\n(.*?)\n[ \t]*```\s*\Z", re.DOTALL)
ARGUMENT_KEYS = ("args", "arguments", "input", "parameters")
RESULT_KEYS = frozenset({"response", "output", "result", "content", "error"})


def written_call(body: str) -> dict[str, Any] | None:
    """The model's call a section under a tool's label holds (Gemini CLI's ``**Tool Command**:`` over a fenced
    ``{"name": ..., "args": {...}}``): one JSON object naming a tool and its arguments and carrying no result
    (a ``**Tool Response**:`` object carries ``response``/``output``: the tool's turn). None when it is none."""
    body = without_rules(body).strip()
    fence = ONE_FENCE.match(body)
    try:
        value = json.loads(fence.group(1) if fence else body)
    except ValueError:
        return None
    if not (isinstance(value, dict) and isinstance(value.get("name"), str) and value["name"]) or RESULT_KEYS & set(value):
        return None
    arguments = next((value[k] for k in ARGUMENT_KEYS if k in value), None)
    return None if arguments is None else tool_call(value.get("id"), value["name"], arguments)


# A call written as its fields, each under a bold label (a Claude Code extractor's ``### 🔧 Tool Call`` section:
# ``**Tool:** `Bash```, ``**ID:** `toolu_01...```, then ``**Command:**`` and its fence): the tool's name, the call's id,
# and the rest what it was given, as the export writes it (round 19 FIT).
FIELD_CALL = re.compile(r"\A\s*\*\*(?:Tool|Tool name|Function|Name):\*\*[ \t]*`?(?P<name>[\w.:-]{1,80})`?[ \t]*\n"
                        r"(?:\*\*(?:ID|Id|Call ID|Tool use ID):\*\*[ \t]*`?(?P<id>[\w.:-]{1,120})`?[ \t]*\n)?(?P<rest>.*)\Z", re.DOTALL)


def field_call(body: str) -> dict[str, Any] | None:
    """The model's call a section writes as fields (``FIELD_CALL``), else None."""
    match = FIELD_CALL.match(without_rules(body).strip() + "\n")
    if match is None:
        return None
    return exported_call(match.group("id"), match.group("name"), match.group("rest").strip())


ARGUMENTS_BLOCK = re.compile(r"<details>\s*<summary>\s*Arguments\s*</summary>\s*```(?:json)?[ \t]*\n(?P<json>.*?)\n[ \t]*```\s*"
                             r"</details>", re.DOTALL | re.IGNORECASE)
FOLDED_OUTPUT = re.compile(r"<details>\s*<summary>[^<\n]*</summary>\s*(?P<body>.*?)\s*</details>", re.DOTALL)


def call_section(name: str, body: str) -> list[dict[str, Any]]:
    """A call heading's block (``CALL_HEADING``): the call (its ``Arguments`` JSON the model's, else the block's words
    before the output, the export's description of it: ``described``) and what it gave (a folded block, else the
    rest) the tool's turn."""
    body = without_rules(SMALL_PRINT.sub("", body)).strip()
    given = ARGUMENTS_BLOCK.search(body)
    rest = (body[:given.start()] + body[given.end():]).strip() if given else body
    output = FOLDED_OUTPUT.search(rest)
    fence = FENCED.search(rest) if output is None else None
    split = output.start() if output else fence.start() if fence else len(rest)
    described, result = rest[:split].strip(), (output.group("body") if output else rest[split:]).strip()
    call = exported_call(None, name, given.group("json").strip() if given else described)
    return [message("assistant", tool_calls=[call]), *([message("tool", result, observation=True)] if result else [])]


def parse_markdown_turns(text: str) -> list[Transcript]:
    marks = headings(text)
    if not {"user", "assistant"} <= {mark[2] for mark in marks} and (steps := request_steps(text)) is not None:
        return [Transcript(format="markdown-turns", extra={"layout": "request-steps"}, messages=steps)]
    # a chat a page shows in one fence (every heading inside it) ends with the fence, not with the page
    fences = [(m.start(), m.end()) for m in FENCED.finditer(text)] if "```" in text else []
    shown_in = next((b for a, b in fences if marks and all(a <= mark[0] < b for mark in marks)), len(text))
    messages: list[dict[str, Any]] = []
    role = "assistant"
    bodies = [text[end:marks[index + 1][0] if index + 1 < len(marks) else shown_in] for index, (_, end, *_) in enumerate(marks)]
    quoting, fencing = exporter_quoting(bodies), exporter_fencing(bodies)
    trailer = exporter_trailer([body for body, mark in zip(bodies, marks) if mark[2] == "assistant"])
    for index, (_, end, heading_role, *named) in enumerate(marks):
        stop = marks[index + 1][0] if index + 1 < len(marks) else shown_in
        body = text[end:stop]
        if quoting and quoted_whole(body):  # the exporter quotes every turn's lines (``> ``), not the speaker
            body = re.sub(r"^[ \t]*> ?", "", body, flags=re.MULTILINE)
        if fencing and (fenced := fenced_whole(body)) is not None:  # the exporter fences every turn, not the speaker
            body = fenced
        if trailer and heading_role == "assistant":  # the log's own lines after each reply (its metadata, options)
            body = without_trailer(body, trailer)
        if heading_role == "call":
            messages += call_section(named[0], body)
            role = "assistant"
            continue
        role = role if heading_role == "continued" else heading_role
        if role == "tool" and messages and messages[-1]["role"] == "tool" and messages[-1]["content"].strip() and \
                messages[-1]["content"].strip() in body:
            continue  # a tool's heading that shows the result just read again (an exporter's ``### API Call``): a repeat
        blocks = block_messages(role, body) if heading_role != "continued" else None
        call = (written_call(body) or field_call(body)) if role in ("tool", "assistant") else None
        section = ([{**m, "blocks": True} for m in blocks] if blocks is not None else
                   [message("assistant", tool_calls=[call])] if call else section_messages(role, body))
        if role == "assistant" and named_thought(text[marks[index][0]:end]) and len(section) == 1 and \
                not section[0]["tool_calls"]:  # ``### 💭 Agent Thought``: the reasoning of the model's next words
            section = [{**section[0], "content": "", "reasoning": section[0]["content"], "thought": True}]
        if heading_role != "continued" and section and section[0]["role"] == "assistant" and section[0]["content"].strip():
            section[0] = {**section[0], "opens": True}  # the model's words under a heading of their own: a message
        elif call and index and marks[index - 1][2] == "assistant" and not text[marks[index - 1][1]:marks[index][0]].strip():
            # a call alone under the model's heading (``## 🤖 <model>`` then ``### 🔧 Tool Call``): that message's all
            section[0] = {**section[0], "opens": True}
        messages += [{**m, "name": named[0]} for m in section] if named else section  # an agent's heading names it
    merged: list[dict[str, Any]] = []
    thought = None  # a thought under a heading of its own: the reasoning of the model's words after it
    for canonical in messages:  # a continued model turn is one turn with the text before it
        opens = canonical.pop("opens", False)
        if canonical.pop("thought", False):
            if thought is not None:
                merged.append(thought)
            thought = canonical
            continue
        if thought is not None and canonical["role"] == "assistant":
            canonical = {**canonical, "reasoning": "\n\n".join(filter(None, [thought["reasoning"], canonical["reasoning"]]))}
            thought, opens = None, True
        elif thought is not None:
            merged.append(thought)
            thought = None
        if canonical.pop("blocks", False) or (merged and merged[-1].pop("blocks", False)) or opens:
            merged.append(canonical)  # each heading of an export of API messages, of a model's words, its own message
        elif merged and canonical["role"] == "assistant" == merged[-1]["role"] and canonical["tool_calls"]:
            merged[-1]["tool_calls"] = [*merged[-1]["tool_calls"], *canonical["tool_calls"]]  # a call the turn wrote
        elif merged and canonical["role"] == "assistant" == merged[-1]["role"]:
            merged[-1]["content"] += "\n\n" + canonical["content"]
        else:
            merged.append(canonical)
    merged += [thought] if thought is not None else []
    return [Transcript(format="markdown-turns", messages=flag_text_observations(merged))]


def quoted_whole(body: str) -> bool:
    lines = [line for line in body.split("\n") if line.strip() and not RULE_LINE.fullmatch(line)]
    return bool(lines) and all(line.lstrip().startswith(">") for line in lines)


def exporter_quoting(bodies: list[str]) -> bool:
    """Whether the exporter sets every turn's body in a quote (Continue's session transcript: each line of each
    turn behind ``> ``): learnt from the file, nine in ten of its turns quoted whole, four or more. A speaker
    quoting something quotes a part of a turn, never all turns."""
    said = [body for body in bodies if body.strip()]
    return len(said) >= 4 and sum(map(quoted_whole, said)) * 10 >= 9 * len(said)


# A body that is one fence and nothing else, the fence bare or saying plain text (LM Studio's export: every
# turn, the person's greeting too, between ```` ``` ```` lines).
WHOLE_FENCE = re.compile(r"\A\s*(`{3,}|~{3,})[ \t]*(?:text|plaintext|markdown|md)?[ \t]*\n(.*?)\n[ \t]*\1[ \t]*\s*\Z",
                         re.DOTALL | re.IGNORECASE)


def fenced_whole(body: str) -> str | None:
    """The text of a body that is one bare fence, else None."""
    match = WHOLE_FENCE.match(body)
    return match.group(2) if match and match.group(1) not in match.group(2) else None


def shaped_lines(body: str) -> list[str]:
    """A body's lines that say something, each as its shape (numbers one mark: a duration, a time, a model's version)."""
    return [re.sub(r"\d+", "#", line.strip()) for line in body.split("\n") if line.strip() and not RULE_LINE.fullmatch(line)]


def exporter_trailer(bodies: list[str]) -> list[str]:
    """The lines of one shape every reply ends with (three replies or more, three lines or more: an ``llm logs`` page's
    metadata ``<details>`` and ``**Options:**`` block after each response): the log's own, no one's words. ``[]`` when
    the replies end otherwise (a sign-off line the model repeats is one line, and stays)."""
    shaped = [shaped_lines(body) for body in bodies if body.strip()]
    if len(shaped) < 3:
        return []
    common = 0
    while all(len(lines) > common + 1 for lines in shaped) and len({lines[-1 - common] for lines in shaped}) == 1:
        common += 1
    return shaped[0][len(shaped[0]) - common:] if common >= 3 else []


def without_trailer(body: str, trailer: list[str]) -> str:
    """``body`` less its last lines that say something, as many as the trailer holds, when they have its shape."""
    lines = body.rstrip().split("\n")
    kept, matched = len(lines), 0
    while kept and matched < len(trailer):
        kept -= 1
        line = lines[kept]
        if not line.strip() or RULE_LINE.fullmatch(line):
            continue
        if re.sub(r"\d+", "#", line.strip()) != trailer[-1 - matched]:
            return body
        matched += 1
    return "\n".join(lines[:kept])


def exporter_fencing(bodies: list[str]) -> bool:
    """Whether the exporter sets every turn's body in a fence: nine in ten of its turns (four or more) one bare
    fence each, the replies' prose too. A person who pastes code fences some turns, and a reply fences its code
    among its words."""
    said = [body for body in bodies if body.strip()]
    return len(said) >= 4 and sum(fenced_whole(body) is not None for body in said) * 10 >= 9 * len(said)


MARKDOWN_TURNS = Format(name="markdown-turns", container="text", detect=detect_markdown_turns,
                        parse=parse_markdown_turns)
