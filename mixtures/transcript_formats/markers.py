"""Text logs whose turns open with a repeated line marker (``marker-turns``) and printed message objects
(``printed-messages``).

``marker-turns``: a program that prints its agent's run marks each part with a label at the start of a
line, often behind an emoji (``User prompt:``, ``🧠 Planning:``, ``🔨 Tool Called:``, ``👀 Observation:``,
``🤖 Agent:``; AutoGen's ``user_proxy (to assistant):``). A label is a marker when it recurs at line starts
and the labels alternate; its words give its role (a person: ``user``, ``human``, ``prompt``; the model:
``agent``, ``assistant``, ``ai``, ``bot``...; a part of the model's turn: ``thought``, ``planning``,
``action``, ``call``...; a tool's output: ``observation``, ``result``, ``tool output``), never the emoji,
and a label with no such word is text of the turn it sits in. The text is a conversation when markers of
a person and of the model are both there. The model's consecutive parts are one turn; what comes before
the first marker is left out; rules (``____``, ``----``) between runs make each run its own transcript.

``printed-messages``: message objects a program printed, in any notation: LangChain's reprs
(``HumanMessage(content='...')``, ``AIMessage(..., tool_calls=[...])``, ``ToolMessage(...)``), dict reprs
(``{'role': 'user', 'content': '...'}``), a JavaScript inspection (``BaseMessage { role: 'user', text:
'...' + '...' }``). Each printed object is found by its role (a class named ``<Role>Message`` or a role
field holding a role alias) and read with ``ast.literal_eval`` or a string-literal scanner (nothing
runs); objects printed together (within one bracketed list) are one history, and a history that a later
one begins with is the same run printed again.
"""

from __future__ import annotations

import ast
import collections
import itertools
import re
from typing import Any

from codemix.mixtures.transcript_formats.banners import is_code
from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import (
    UNSPACED_LETTER,
    exported_call,
    flag_text_observations,
    is_spoken,
    message,
    text_length,
    tool_call,
)
from codemix.mixtures.transcript_formats.chains import plain_chain_runs
from codemix.mixtures.transcript_formats.text_turns import CODE_LINE, FENCE, NOT_SPEAKERS
from codemix.mixtures.transcript_formats.turns import ROLE_ALIASES, key_words

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# A label at a line's start: an optional list number, quote or emphasis and symbols (emoji, an opening
# bracket), at most four words, an optional parenthesis (``(to assistant)``, a model's name), a closing
# bracket or emphasis, a colon.
MARKER = re.compile(r"^[ \t]*(?:\d{1,3}[.)][ \t]+)?(?:[>*_]+[ \t]*)?([^\w\s]{0,6})[ \t]*(?:\*\*|__)?"
                    r"([A-Za-z][\w'-]*(?:[ \t][A-Za-z][\w'-]*){0,3})[ \t]*(?:\*\*|__)?[ \t]*(\([^)\n]{0,60}\))?[ \t]*"
                    r"[\]>|#*_]{0,3}:[*_]*(?:[ \t]+|$)", re.MULTILINE)  # (``👤 **You**:``, ``**User** (10:32):``)
# A speaker's label in brackets opening a line, with no colon after it (CAMEL's ``[AI User] Instruction: ...``),
# its words in any script (``[AI 用户]``).
BRACKETED_KEY = "\x00"  # how a bracketed speaker's label is told from a marker's in ``labelled_lines``
BRACKETED = re.compile(r"^[ \t]*\[([^\W\d_][\w'-]*(?:[ \t][^\W\d_][\w'-]*){0,3})\][ \t]+(?=\S)", re.MULTILINE)
RULE = re.compile(r"^[ \t]*([_\-=*~])\1{9,}[ \t]*$", re.MULTILINE)
PERSON_WORDS = frozenset({"user", "human", "prompt", "customer", "client", "person", "me", "you", "proxy", "userproxy"})
MODEL_WORDS = frozenset({"agent", "assistant", "ai", "bot", "chatbot", "model", "llm", "gpt", "copilot", "claude",
                         "gemini"})
PART_WORDS = frozenset({"thought", "thoughts", "thinking", "planning", "plan", "reasoning", "action", "actions",
                        "call", "called", "calling", "invoking", "invoke", "command", "commands", "code", "input"})
TOOL_WORDS = frozenset({"observation", "observations", "result", "results", "tool", "tools", "output", "execution",
                        "environment", "env"})
OUTPUT_WORDS = frozenset({"observation", "observations", "result", "results", "output", "outputs"})
MIN_MARKED = 4


# Words that make an output a writer's example, not what running gave (``**Expected Output:**`` in a model's plan).
EXAMPLE_WORDS = frozenset({"expected", "example", "sample", "desired", "intended", "hypothetical"})


def marker_role(words: set[str]) -> str | None:
    """A label's role by its words: ``user``, ``assistant`` (the model's own text), ``part`` (of the model's
    turn), ``tool``, or None (no marker: an output a writer expects or shows as an example is its own words)."""
    if words & (OUTPUT_WORDS | TOOL_WORDS) and words & EXAMPLE_WORDS:
        return None
    if words & OUTPUT_WORDS and not words & MODEL_WORDS:
        return "tool"  # ``Code output``, ``Action result``: what running the model's part gave, never trained
    if words & PART_WORDS:
        return "part"  # ``Tool Called``, ``Tool Input``, ``Action``: the model wrote them
    if words & PERSON_WORDS and not words & MODEL_WORDS:
        return "user"
    if words & TOOL_WORDS and not words & MODEL_WORDS:
        return "tool"
    return "assistant" if words & MODEL_WORDS else None


def head_role(label: str) -> str | None:
    """The side a label names when it holds words of both (``AI User``, ``User Agent``): its last such word,
    the head of an English compound (an AI that plays the user is the user)."""
    sides = [("user" if w in PERSON_WORDS else "assistant") for w in re.split(r"[^a-z]+", re.sub(
        r"(?<=[a-z0-9])([A-Z])", r"_\1", label).lower()) if w in PERSON_WORDS or w in MODEL_WORDS]
    return sides[-1] if sides else None


def labelled_lines(text: str) -> list[tuple[int, int, str, str]]:
    """``(start, end, label, role)`` of every marker line outside code fences."""
    fences = [(f.start(), f.end()) for f in FENCE.finditer(text)]
    found = []
    for match in BRACKETED.finditer(text):
        words = key_words(match.group(1))
        if not any(a <= match.start() < b for a, b in fences) and words & (PERSON_WORDS | MODEL_WORDS) and not words & (
                PART_WORDS | TOOL_WORDS):
            found.append((match.start(), match.end(), BRACKETED_KEY + match.group(1).lower(), head_role(match.group(1))))
    speakers_at = {start for start, _, _, _ in found}
    for match in MARKER.finditer(text):
        if match.start() in speakers_at:
            continue  # ``[AI User] Instruction:``: the bracketed speaker, not the field after it
        if any(a <= match.start() < b for a, b in fences) or CODE_LINE.match(text, match.start()):
            continue  # ``def handle(self, client):`` is code, not a label
        words, aside = key_words(match.group(2)), match.group(3) or ""
        if re.match(r"\(\s*to\s", aside) and key_words(aside) & (PERSON_WORDS | MODEL_WORDS) and not words & (
                PERSON_WORDS | MODEL_WORDS | PART_WORDS | TOOL_WORDS):
            words = words | {"agent"}  # ``planner (to user_proxy):``: a named agent speaking to a role
        elif re.fullmatch(r"\(\s*[A-Za-z][A-Za-z ]*\)", aside) and not aside.lstrip("( ").startswith("to "):
            words = words | key_words(aside)  # ``John (Customer Care Agent):``: the name's own role (words only)
        role = marker_role(words) or ("reply" if words == {"response"} else None)  # (a reply to a prompt: below)
        if role in ("user", "assistant") and words & PERSON_WORDS and words & MODEL_WORDS:
            role = head_role(match.group(2))
        if role is not None:
            found.append((match.start(), match.end(), (match.group(1) + " " + match.group(2)).strip().lower(), role))
    return sorted(found)


# A message header that names its writer and whom it is addressed to, alone on its line (AutoGen's
# ``code_writer_agent (to code_executor_agent):``): the names are the speakers, whatever words they hold.
# Rewritten as Markdown, the header may be set in bold (``**User proxy (to Clothing assistant):**``).
ADDRESSED = re.compile(r"^[ \t]*(?:\*\*|__)?([^\s()*_][^()\n:*]{0,60}?)[ \t]+\(to[ \t]+([^()\n:*]{1,60}?)\)[ \t]*:"
                       r"[ \t]*(?:\*\*|__)?[ \t]*$", re.MULTILINE)
# A message that names a call by its id in parentheses on its first line (AutoGen's ``Suggested tool call (call_dgyr):
# get_state`` / ``Response from calling tool (call_dgyr)``, with or without its ``*****`` frame).
CALL_ID = re.compile(r"\A[^\n(]{0,80}\(([A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_-]{3,})\)[ \t*]*(?::[ \t]*([\w.-]+))?[ \t*]*$",
                     re.MULTILINE)
ARGUMENTS = re.compile(r"^[ \t]*Arguments:[ \t]*\n?(.*?)(?:\n[ \t]*\*{5,}[ \t]*)?\Z", re.MULTILINE | re.DOTALL)


def addressed_turns(text: str) -> list[dict[str, Any]] | None:
    """The turns of a log of addressed messages (``A (to B):`` headers), or None. Two headers or more by two
    writers or more, each addressee a writer or addressed by several (a group chat's manager). Every other
    label in a message (``Code output:``) is its text. Sides: a name whose words say one (``user_proxy``,
    ``assistant``), when the names say both; else the writer who opens is the person (who sets the task) and
    every other writer the model's side (each message keeps its writer as its ``name``). A message ends at
    the next header or at a rule drawn after it."""
    fences = [(f.start(), f.end()) for f in FENCE.finditer(text)]
    heads = [m for m in ADDRESSED.finditer(text) if not any(a <= m.start() < b for a, b in fences)]
    writers = list(dict.fromkeys(m.group(1).strip() for m in heads))
    if len(heads) < 2 or len(writers) < 2:
        return None
    addressed_by: dict[str, set[str]] = {}
    for head in heads:
        addressed_by.setdefault(head.group(2).strip(), set()).add(head.group(1).strip())
    if any(name not in writers and len(by) < 2 for name, by in addressed_by.items()):
        return None  # an addressee who never writes and whom one writer alone addresses: no exchange
    worded = {name: marker_role(key_words(name)) for name in writers}
    if {"user", "assistant"} <= set(worded.values()):
        sides = {name: "user" if role == "user" else "assistant" for name, role in worded.items()}
    else:
        sides = {name: "user" if name == writers[0] else "assistant" for name in writers}
    turns = []
    for index, head in enumerate(heads):
        stop = heads[index + 1].start() if index + 1 < len(heads) else len(text)
        rule = RULE.search(text, head.end(), stop)
        body = closing_rule(text[head.end():rule.start() if rule is not None else stop]).strip()
        if body:
            turns.append({"speaker": sides[head.group(1).strip()], "content": body, "name": head.group(1).strip()})
    turns = answered_calls(turns)
    return turns if {"user", "assistant"} <= {t["speaker"] for t in turns} else None


BREAK = re.compile(r"^[ \t]*(?:-{3,}|\*{3,}|_{3,})[ \t]*$", re.MULTILINE)  # a Markdown page's thematic break


def closing_rule(body: str) -> str:
    """A message up to the Markdown rule that closes it, when what follows the rule is at most one short line (the
    program's own print, ``EXECUTING FUNCTION get_state...``); a rule inside the message leaves it whole."""
    rules = list(BREAK.finditer(body))
    if not rules:
        return body
    after = [line for line in body[rules[-1].end():].splitlines() if line.strip()]
    return body[:rules[-1].start()] if len(after) <= 1 and sum(map(len, after)) <= 80 else body


def answered_calls(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages that name one call by its id: the first, of the model's side, names the call (``name`` after the
    id, ``Arguments:`` below it); a later one of the other side naming the same id is that call's result, the
    tool's turn, whoever relayed it. An id no later message answers is no call (a writer's own reference)."""
    named = {}
    for index, turn in enumerate(turns):
        match = CALL_ID.match(turn["content"])
        if match is None:
            continue
        key = match.group(1)
        if key not in named and turn["speaker"] == "assistant" and match.group(2):
            named[key] = index
        elif key in named and turn["speaker"] != "assistant":
            call = turns[named.pop(key)]
            head, arguments = CALL_ID.match(call["content"]), ARGUMENTS.search(call["content"])
            call["calls"] = [*call.get("calls", []), tool_call(key, head.group(2),
                                                               arguments.group(1).strip() if arguments else "")]
            # the call's notation is the call, not words of the model
            call["content"] = call["content"][head.end():arguments.start() if arguments else None].strip()
            turn["speaker"] = "tool"
    return turns


def bracketed_sides(speakers: list[tuple[int, int, str, str]]) -> list[tuple[int, int, str, str]]:
    """Bracketed speakers whose words say one side only (``[AI 用户]`` and ``[AI 助手]``: the role words are
    in a script whose words no list here holds, both labels name an AI): two labels taking turns are two
    sides, the one that opens the person (who sets the task), the other the model."""
    labels = list(dict.fromkeys(m[2] for m in speakers))
    if len(labels) != 2 or len({m[3] for m in speakers}) != 1:
        return speakers
    if any(a[2] == b[2] for a, b in itertools.pairwise(speakers)):
        return speakers  # they do not take turns
    return [(start, end, label, "user" if label == labels[0] else "assistant") for start, end, label, _ in speakers]


def marker_turns(text: str) -> list[list[dict[str, Any]]] | None:
    """The runs of a marker log (see the module docstring) as lists of ``speaker``/``content`` turns, or None."""
    text = ANSI.sub("", text)
    if is_code(text):
        return None  # a source file's docstrings label arguments (``user (str):``, ``model:``), no speakers
    if (addressed := addressed_turns(text)) is not None:
        return [addressed]
    if (positioned := positioned_runs(text)) is not None:
        return positioned
    marks = labelled_lines(text)
    dialogue = labelled_dialogue(text)
    agents = [n for n in dialogue[1] if role_said(n) != "user"] if dialogue is not None else []
    if (dialogue is not None and len(agents) >= 2
            and sum(m[3] == "user" for m in marks) * 4 <= len(dialogue[0])):
        return None  # two names that are no person take turns (``**Claude:**`` / ``**Codex:**``), a person's
        # label at most a stray line inside them: agents talking, read by ``labelled-dialogue``
    # ``Response:`` is the model's only after a person's ``Prompt:`` (an API guide's responses answer no one)
    prompted = any(m[3] == "user" and "prompt" in m[2] for m in marks)
    marks = [(*m[:3], "assistant") if m[3] == "reply" else m for m in marks if m[3] != "reply" or prompted]
    speakers = bracketed_sides([m for m in marks if m[2].startswith(BRACKETED_KEY)])
    bracketed = len({m[2] for m in speakers}) >= 2 and {"user", "assistant"} <= {m[3] for m in speakers}
    if bracketed:
        marks = speakers  # bracketed speakers cut the turns; ``Input:`` inside a message is its text
    marks = marks if bracketed else decorated_alike(text, marks)
    counts: dict[str, int] = {}
    for _, _, label, _ in marks:
        counts[label] = counts.get(label, 0) + 1
    marks = marks if bracketed else [m for m in marks if counts[m[2]] >= 2]
    if len(marks) < (2 if bracketed else MIN_MARKED) or len({m[2] for m in marks}) < 2:
        return None  # bracketed speakers of both sides: one exchange is a run
    changes = sum(a[2] != b[2] for a, b in itertools.pairwise(marks))
    if changes * 2 < len(marks) - 1 or not {"user", "assistant"} <= {m[3] for m in marks} | (
            {"assistant"} if any(m[3] == "part" for m in marks) else set()):
        return None
    runs = marked_runs(text, marks, split=True)
    if sum(len(run) for run in runs) < sum(len(run) for run in marked_runs(text, marks, split=False)) / 2:
        runs = marked_runs(text, marks, split=False)  # a rule after every turn separates turns, not runs
    spoken = [t for run in runs for t in run]
    if not runs or sum(is_spoken(t["content"]) for t in spoken) * 2 < len(spoken):
        return None
    return runs


def decoration(text: str, start: int) -> str:
    """What a marker line writes before its label's first letter (``* ``, ``**``, ``🤖 ``), spaces aside."""
    head = re.match(r"[^\w]*", text[start:start + 40]).group()
    return re.sub(r"\s", "", head)


def decorated_alike(text: str, marks: list[tuple[int, int, str, str]]) -> list[tuple[int, int, str, str]]:
    """The marks written as the file writes its markers: where four in five of them share one decoration (a list
    bullet, an emoji, bold), a label line without it is text of the turn it sits in (a tool's output printing
    ``Total Power Output: 85.0 TW`` under the run's ``* Tool Output:`` bullets)."""
    shapes = collections.Counter(decoration(text, start) for start, *_ in marks)
    shape, held = shapes.most_common(1)[0] if shapes else ("", 0)
    if not shape or len(marks) < MIN_MARKED or held * 5 < 4 * len(marks):
        return marks
    return [m for m in marks if decoration(text, m[0]) == shape]


# A model's calls written as text after a call label (``* Tool Call: read_ship_logs(), scan(system=Reactor)``): names
# and their parenthesised arguments, comma-separated, nothing else on the line.
WRITTEN_CALL = re.compile(r"\s*(?P<name>[A-Za-z_][\w.]*)\((?P<args>[^()\n]*)\)\s*(?:,|$)")
CALL_WORDS = frozenset({"call", "called", "calling", "calls", "invoking", "invoke", "action", "actions"})


def written_calls(body: str) -> list[dict[str, Any]] | None:
    """The calls a call marker's body writes (``name(args), name(args)``, one line), each a call as the log
    describes it (its arguments are no JSON object: ``exported_call``'s ``described``); None when the body is
    anything more."""
    if "\n" in body.strip() or not body.strip():
        return None
    calls, at = [], 0
    text = body.strip()
    while at < len(text):
        found = WRITTEN_CALL.match(text, at)
        if found is None:
            return None
        calls.append(exported_call(None, found.group("name"), found.group("args")))
        at = found.end()
    return calls


# A step a program prints in brackets at a line's start (``  [tool call] lookup_order({'order_id': 'A1001'})``,
# ``  [tool result] {...}``): a call or a result by its words.
BRACKETED_STEP = re.compile(r"^[ \t]*\[(?P<words>[A-Za-z][A-Za-z' _-]{0,30})\][ \t]+(?P<text>\S.*)$", re.MULTILINE)
FENCE_END = re.compile(r"^[ \t]*```", re.MULTILINE)
# A label a program prints before a line's text, in capitals or any case, words of no side (``QUESTION:``,
# ``FINAL ANSWER:``).
POSITION_LABEL = re.compile(r"^[ \t]*(?P<label>[A-Za-z][A-Za-z' -]{0,30}?)[ \t]*:[ \t]*(?P<text>\S.*)?$", re.MULTILINE)


def positioned_runs(text: str) -> list[list[dict[str, Any]]] | None:
    """Runs a hand-written agent printed (FIT of the fourteenth holdout's course lab: ``QUESTION: ...``, then
    ``[tool call] name(args)`` / ``[tool result] ...`` lines, then ``FINAL ANSWER: ...``), or None. The request's and
    the answer's labels name no side; their place says it, learnt from the file: one label opens every run, before
    any call, and one closes it, after the last result, the two taking turns, and the bracketed steps between them
    say the model called something and a tool answered (a call and a result at least). Each run its own
    transcript: the request the person's, each call the model's (described, as the log writes it), each result
    the tool's, the answer the model's."""
    steps = [(m.start(), m.end(), "call" if key_words(m.group("words")) & CALL_WORDS else "tool", m.group("text"))
             for m in BRACKETED_STEP.finditer(text)
             if key_words(m.group("words")) & (CALL_WORDS | OUTPUT_WORDS)]
    if not {"call", "tool"} <= {kind for *_, kind, _ in steps}:
        return None
    labels = [(m.start(), m.end(), m.group("label").strip().lower(), m.group("text") or "")
              for m in POSITION_LABEL.finditer(text) if marker_role(key_words(m.group("label"))) is None
              and not any(a <= m.start() < b for a, b, *_ in steps)]
    events = sorted([(start, end, "step", kind, said) for start, end, kind, said in steps] +
                    [(start, end, "label", label, said) for start, end, label, said in labels])
    first_step = next(i for i, e in enumerate(events) if e[2] == "step")
    last_step = max(i for i, e in enumerate(events) if e[2] == "step")
    opener = next((e[3] for e in reversed(events[:first_step]) if e[2] == "label"), None)
    closer = next((e[3] for e in events[last_step + 1:] if e[2] == "label"), None)
    if opener is None or closer is None or opener == closer:
        return None
    order = [e for e in events if e[2] == "step" or e[3] in (opener, closer)]
    runs, run, expect = [], [], opener
    for start, end, kind, name, said in order:
        if kind == "label" and name != expect:
            return None  # the two labels take turns, request first
        if kind == "label":
            expect = closer if name == opener else opener
        if kind == "step" and expect != closer:
            return None  # a call or a result outside a request's run
        if kind == "label" and name == opener:
            run = [{"speaker": "user", "content": said.strip(), "calls": []}]
        elif kind == "step" and name == "call":
            calls = written_calls(said) or [exported_call(None, "call", said.strip())]
            if run[-1]["speaker"] == "assistant" and not run[-1]["content"]:
                run[-1]["calls"] += calls
            else:
                run.append({"speaker": "assistant", "content": "", "calls": calls})
        elif kind == "step":
            run.append({"speaker": "tool", "content": said.strip(), "calls": []})
        else:
            stop = next((e[0] for e in events if e[0] >= end), len(text))
            fence = FENCE_END.search(text, end, stop)  # (a run a page shows in a fence ends with it)
            answer = text[end - len(said):fence.start() if fence else stop] if said else ""
            run.append({"speaker": "assistant", "content": RULE.split(answer)[0].strip(), "calls": []})
            runs.append(run)
    if expect != opener or not all(t["content"] or t["calls"] for r in runs for t in r):
        return None
    return runs


def without_banner(run: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``run`` less the turns of labels that are a banner: every turn of the label says no words (a value, a list of
    names) and a person's turn follows within two turns."""
    def banner(label: Any) -> bool:
        at = [i for i, t in enumerate(run) if t.get("label") == label]
        return all(not is_spoken(run[i]["content"]) and any(t["speaker"] == "user" for t in run[i + 1:i + 3])
                   for i in at)
    labels = {t.get("label") for t in run if t["speaker"] != "user"} - {None}
    dropped = {label for label in labels if banner(label)}
    return [t for t in run if t.get("label") not in dropped] if dropped else run


def marked_runs(text: str, marks: list[tuple[int, int, str, str]], split: bool) -> list[list[dict[str, Any]]]:
    """The sections after the markers as turns (the model's consecutive parts one turn), cut into runs at
    rules when ``split``; only runs holding a person's and the model's turn."""
    runs, turns = [], []
    for index, (_, end, label, role) in enumerate(marks):
        stop = marks[index + 1][0] if index + 1 < len(marks) else len(text)
        rule = RULE.search(text, end, stop)
        body = text[end:rule.start() if rule is not None else stop].strip()
        speaker = "assistant" if role == "part" else role
        calls = written_calls(body) if role == "part" and set(label.split()) & CALL_WORDS else None
        body = "" if calls else body  # (the calls the model wrote, not its words)
        if turns and speaker == "assistant" == turns[-1]["speaker"]:
            turns[-1]["content"] = (turns[-1]["content"] + "\n" + body).strip()
            turns[-1]["calls"] = [*turns[-1].get("calls", []), *(calls or [])]
        elif body or speaker == "assistant":
            turns.append({"speaker": speaker, "content": body, "calls": calls or [], "label": label})
        if split and rule is not None and turns:
            runs.append(turns)
            turns = []
    runs.append(turns)
    runs = [[t for t in run if t["content"] or t.get("calls")] for run in runs]
    # markers a program prints as its banner before each person's turn (``Model: gemini-2.5-flash-lite``, ``Tools:
    # geocode_location, ...``): no words, each time right before the person speaks; framing
    runs = [without_banner(run) for run in runs]
    return [run for run in runs if {"user", "assistant"} <= {t["speaker"] for t in run}]


def marker_log(text: str) -> bool:
    """A log whose markers name the model's calls and the tools' results, each twice or more (``-> tool call:`` /
    ``-> result:``; FIT, fifteenth holdout): read as speakers' turns, its names would bury the calls in them."""
    kinds = collections.Counter(role for *_, role in labelled_lines(text))
    return kinds["part"] >= 2 and kinds["tool"] >= 2


def detect_marker_turns(text: Any) -> bool:
    return isinstance(text, str) and marker_turns(text) is not None


def parse_marker_turns(text: str) -> list[Transcript]:
    return [Transcript(format="marker-turns", extra={"layout": "markers", "run": index}, messages=flag_text_observations(
        [message(t["speaker"], t["content"], observation=t["speaker"] == "tool", name=t.get("name", ""),
                 tool_calls=t.get("calls") or None) for t in run]))
        for index, run in enumerate(marker_turns(text) or [])]


MARKER_TURNS = Format(name="marker-turns", container="text", detect=detect_marker_turns, parse=parse_marker_turns)


# --- two labels taking turns, in any script ------------------------------------------------------

# A line opened by a short label in any script (a letter first, at most three words) and a colon, ASCII
# (then a space or the line's end) or full-width (``来访者：``, nothing needed after it).
# A Markdown export may set the label in bold (``**Claude:**``, ``**Codex**:``); a heading is a page's section.
# Or the label alone on its line in brackets (``【**浦部**】`` / ``【**AI**】`` over each turn, ``[User]``), the whole
# perhaps in bold with an aside and a colon (``**【使用者 (User)】：**``, round 16 FIT).
# (or an account's handle, longer, joined by ``-`` or ``_``: VS Code's Copy All labels the person's turns with it,
# ``adam-mcquistan_moo:``)
_NAME = r"(?:[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)+(?=[ \t]*:)|[^\W\d_][\w'-]{0,15}(?:[ \t][\w'-]{1,15}){0,2})"
# (a log may stamp each line with its time before the label: ``[2026-01-16 00:18:46] 你: 你好啊``, round 19 FIT)
LABEL = re.compile(rf"^[ \t]*(?:\[\d[\d:./ T-]{{3,30}}\][ \t]*)?(?:\*\*|__)?(?P<name>{_NAME})[ \t]*"
                   r"(?:\*\*|__)?(?::(?:\*\*|__)?(?=[ \t]|$)|：(?:\*\*|__)?)"
                   rf"|^[ \t]*(?:\*\*|__)?[【\[［〔](?:\*\*|__)?(?P<bracketed>{_NAME}(?:[ \t]*[(（][^)）\n]{{1,20}}[)）])?)"
                   r"(?:\*\*|__)?[】\]］〕][ \t]*[:：]?[ \t]*(?:\*\*|__)?[ \t]*$", re.MULTILINE)
# A label heading its line as a Markdown heading, the turn's words after it (VS Code's Copilot chat exported as Markdown:
# ``# morberg: <request>`` over ``**GitHub Copilot:** <reply>``): only where it opens the text as the person's
# (``copied_chat``); elsewhere a heading with a colon is a page's section (``## Step 1: Install``).
HEADED_LABEL = re.compile(rf"^#{{1,6}}[ \t]+(?P<name>{_NAME})[ \t]*:(?=[ \t])", re.MULTILINE)
MIN_LABELLED = 6  # three exchanges
QUESTION = re.compile(r"[?？]")


def label_of(match: re.Match) -> str:
    return match.group("name") or match.groupdict().get("bracketed")


def role_said(name: str) -> str | None:
    """The side a dialogue label's own words name (a role alias, a marker word), else None."""
    return ROLE_ALIASES.get(name.lower()) or marker_role(key_words(name))


def labelled_dialogue(text: str) -> tuple[list[dict[str, Any]], dict[str, str]] | None:
    """The turns of a text of two labelled speakers taking turns, and each label's role; None when the text
    is no such dialogue (see ``docs/transcript-formats.md``, ``labelled-dialogue``). One pass of one regex."""
    if is_code(text):
        return None
    fences = [(f.start(), f.end()) for f in FENCE.finditer(text)]
    # (a line of eight letters or more of a script written without spaces before a colon is a sentence that
    # introduces what follows, ``首先让我检查当前项目的状态：``, not a speaker's name)
    labels = [m for m in LABEL.finditer(text) if not any(a <= m.start() < b for a, b in fences)
              and len(UNSPACED_LETTER.findall(label_of(m))) < 8]
    headed = [m for m in HEADED_LABEL.finditer(text) if m.group("name") and not any(a <= m.start() < b for a, b in fences)]
    return counted_dialogue(text, labels) or copied_chat(text, labels) or (
        copied_chat(text, sorted(labels + headed, key=lambda m: m.start())) if headed else None)


def copied_chat(text: str, labels: list[re.Match]) -> tuple[list[dict[str, Any]], dict[str, str]] | None:
    """A chat copied whole from an IDE's panel (VS Code's "Copy All": ``digitarald: <request>`` on the first line,
    ``GitHub Copilot: <reply>``): the label the text opens with is the person's, a label naming a model (its words)
    the reply's, and only those two open turns, each after a blank line, taking turns; other labels (``Completed
    with input:``, ``Ran terminal command:``) are the turn's text. One exchange is enough: the text is the chat."""
    if not labels or text[:labels[0].start()].strip() or label_of(labels[0]).lower() in NOT_SPEAKERS:
        return None
    person = label_of(labels[0])
    model = next((label_of(m) for m in labels[1:] if key_words(label_of(m)) & MODEL_WORDS
                  and text[:m.start()].endswith("\n\n")), None)
    if model is None or key_words(person) & MODEL_WORDS:
        return None
    opens = [m for m in labels if label_of(m) in (person, model) and (m.start() == 0 or text[:m.start()].endswith("\n\n"))]
    turns = [{"speaker": label_of(m), "content": text[m.end():(opens[i + 1].start() if i + 1 < len(opens) else len(text))].strip()}
             for i, m in enumerate(opens)]
    # (a reply that was only edits is exported empty, ``**GitHub Copilot:**`` and nothing: no message; requests
    # written as headings are, nine in ten, that heading's line alone before the reply, as an exporter writes them: a
    # CLI log's ``## Intent: ...`` with the agent's glyph lines under each is no copied chat)
    headed = [t["content"] for m, t in zip(opens, turns) if m.re is HEADED_LABEL]
    if any(a["speaker"] == b["speaker"] for a, b in itertools.pairwise(turns)) or \
            sum(bool(t["content"]) for t in turns) * 10 < 9 * len(turns) or \
            sum("\n" in content for content in headed) * 10 > len(headed):
        return None
    return [t for t in turns if t["content"]], {person: "user", model: "assistant"}


def counted_dialogue(text: str, labels: list[re.Match]) -> tuple[list[dict[str, Any]], dict[str, str]] | None:
    """Two labelled speakers holding the text's labels, three exchanges or more (``labelled_dialogue``)."""
    counts: dict[str, int] = {}
    for match in labels:
        counts[label_of(match)] = counts.get(label_of(match), 0) + 1
    names = speaker_names(counts)
    speaking: dict[str, int] = {}
    for label, count in counts.items():
        speaking[names[label]] = speaking.get(names[label], 0) + count
    # a person stepping into two agents' talk (``**User:**`` now and then between ``**Claude:**`` and ``**Codex:**``)
    persons = [n for n in speaking if role_said(n) == "user"]
    agents = sorted((n for n in speaking if n not in persons), key=speaking.get, reverse=True)[:2]
    persons = persons if (len(persons) == 1 and len(agents) == 2 and speaking[agents[1]] >= MIN_LABELLED // 2
                          and speaking[persons[0]] * 4 <= speaking[agents[1]]) else []
    ranked = [*agents, *persons] if persons else sorted(speaking, key=speaking.get, reverse=True)[:2]
    held = sum(speaking[n] for n in ranked)
    # a label set in bold written once (``**Pass by Value:**`` in an answer) is the turn's text, not a speaker's: it
    # does not count (a field's label written once in plain text does: ``added:`` / ``napiVersion:`` pairs are fields);
    # nor does one written once in a script written without spaces (``描述：``, ``[检查项目结构]``): a sentence's lead-in or
    # a note inside a turn, as Chinese and Japanese end a clause before a list with a colon (issue 45 round 19)
    counted = sum(1 for match in labels if counts[label_of(match)] >= 2 or not (
        match.group(0).lstrip().startswith(("**", "__")) or UNSPACED_LETTER.search(label_of(match))))
    if len(ranked) < 2 or speaking[ranked[1]] < MIN_LABELLED // 2 or held * 10 < 9 * counted:
        return None  # two speakers (and a person's asides) hold nine in ten labels; a form's field labels are none
    if any(name.lower() in NOT_SPEAKERS for name in ranked):
        return None  # ``Note:``, ``Example:``, ``Question:``: labels of a document's fields
    opens = [m for m in labels if names[label_of(m)] in ranked]
    if (opens[-1].start() - opens[0].start()) * 4 < len(text.strip()):
        return None  # the labels sit in one corner of the page (an answer's list of ``**Function**:`` fields): no chat
    turns = [{"speaker": names[label_of(m)], "label": label_of(m),
              "content": text[m.end():(opens[i + 1].start() if i + 1 < len(opens) else len(text))].strip()}
             for i, m in enumerate(opens)]
    repeated = sum(a["label"] == b["label"] for a, b in itertools.pairwise(turns))
    covered = sum(len(t["content"]) for t in turns)
    lengths = sorted(text_length(t["content"]) for t in turns)
    if (len(turns) < MIN_LABELLED or repeated * 10 > len(turns) - 1 or covered * 2 < len(text.strip())
            or lengths[len(lengths) // 2] < 8 or not (any(QUESTION.search(t["content"]) for t in turns)
                                                      or acting_speaker(turns))):
        return None  # strict alternation, the turns hold the text, utterances (not values), someone asks or acts
    merged: list[dict[str, Any]] = []
    for turn in turns:  # an aside's label goes on the speaker's turn (``**Codex:** ...`` then ``**Codex asks Claude:**``)
        if merged and merged[-1]["speaker"] == turn["speaker"] and merged[-1]["label"] != turn["label"]:
            merged[-1]["content"] = "\n\n".join(filter(None, [merged[-1]["content"], turn["content"]]))
        else:
            merged.append(dict(turn))
    turns = [{"speaker": t["speaker"], "content": without_page_tail(t["content"])} for t in merged]
    if sum(quoted_whole(t["content"]) for t in turns) * 10 >= 9 * len(turns):
        # the writer quotes every turn (``> `` before each line): its quoting, not the speaker's quote
        turns = [{**t, "content": re.sub(r"^[ \t]*> ?", "", t["content"], flags=re.MULTILINE)} for t in turns]
    if persons:  # two agents and a person: the person and the agent that does not act are the context
        actor = acting_speaker([t for t in turns if t["speaker"] != persons[0]]) or next(
            (t["speaker"] for t in turns if t["speaker"] not in (persons[0], turns[0]["speaker"])), None)
        return [t for t in turns if t["content"]], {n: "assistant" if n == actor else "user" for n in ranked}
    roles = {name: role_said(name) for name in ranked}
    said = {r for r in roles.values() if r in ("user", "assistant")}
    if "user" not in said and (actor := acting_speaker(turns)) is not None:
        return [t for t in turns if t["content"]], {n: "assistant" if n == actor else "user" for n in ranked}
    if len(said) == 1:  # one label's words say its side: the other is the other side
        roles = {n: r if r in ("user", "assistant") else ({"user", "assistant"} - said).pop() for n, r in roles.items()}
    elif len(said) != 2:  # the words say nothing: the one who opens sets the task, the other answers
        roles = {turns[0]["speaker"]: "user", next(n for n in ranked if n != turns[0]["speaker"]): "assistant"}
    return [t for t in turns if t["content"]], roles


PAGE_TAIL = re.compile(r"\n[ \t]*(?:-{3,}|\*{3,}|_{3,})[ \t]*\n(?:[ \t]*(?:#{1,6}[ \t]+[^\n]*)?\n?)*\Z")


def without_page_tail(content: str) -> str:
    """A turn less the page's own lines after it: a rule, then only headings (a write-up's next step's title,
    ``---`` / ``### 💬 步驟三：...``, before the next label)."""
    return PAGE_TAIL.sub("", content).strip()


def quoted_whole(content: str) -> bool:
    lines = [line for line in content.split("\n") if line.strip()]
    return bool(lines) and all(line.lstrip().startswith(">") for line in lines)


def speaker_names(counts: dict[str, int]) -> dict[str, str]:
    """Each label's speaker: a label of several words whose first word is itself a recurring label names that
    speaker with an aside (``**Codex asks Claude:**`` is Codex's turn); any other label is its own."""
    return {label: first if len(label.split()) > 1 and counts.get(first := label.split()[0], 0) >= 2 else label
            for label in counts}


ACTING = re.compile(r"^[ \t]*(?:```|\$ \S)", re.MULTILINE)  # a fenced block or a shell command the turn runs


def acting_speaker(turns: list[dict[str, Any]]) -> str | None:
    """In a dialogue no person speaks in (two agents: a planner and a coder, Claude and Codex), the speaker who
    acts: whose turns write code or commands (a fence, a ``$`` line) in at least a quarter of them and at least
    twice as often as the other's. That agent is the one trained; the other's turns are its context. None when
    neither acts more (the one who opens then sets the task, as in any dialogue of names)."""
    share: dict[str, list[int]] = {}
    for turn in turns:
        counts = share.setdefault(turn["speaker"], [0, 0])
        counts[0] += ACTING.search(turn["content"]) is not None
        counts[1] += 1
    rates = sorted(((acted / said, name) for name, (acted, said) in share.items()), reverse=True)
    if len(rates) < 2 or rates[0][0] < 0.25 or rates[1][0] * 2 > rates[0][0]:
        return None
    return rates[0][1]


def detect_labelled_dialogue(text: Any) -> bool:
    return isinstance(text, str) and labelled_dialogue(text) is not None


def parse_labelled_dialogue(text: str) -> list[Transcript]:
    turns, roles = labelled_dialogue(text) or ([], {})
    messages = [message(roles[t["speaker"]], t["content"], name=t["speaker"]) for t in turns]
    extra: dict[str, Any] = {"layout": "labels", "speakers": roles}
    if messages and not any(role_said(name) == "user" for name in roles):
        # no person speaks (two agents): the opening message states the task (context, never trained)
        messages[0] = {**messages[0], "role": "user"}
        extra["task_from"] = "opening"
    return [Transcript(format="labelled-dialogue", extra=extra, messages=messages)]


LABELLED_DIALOGUE = Format(name="labelled-dialogue", container="text", detect=detect_labelled_dialogue,
                           parse=parse_labelled_dialogue)


# --- printed message objects ---------------------------------------------------------------------

# Where a printed message opens: a class named for its role (``HumanMessage(``, ``AIMessage(``), an object
# whose role field comes first (``{'role': 'user'``, ``BaseMessage { role: 'user'``).
OPENING = re.compile(r"\b([A-Z][A-Za-z]*?)Message(?:Chunk)?\(|(?:\b[A-Z]\w*[ \t]*)?\{\s*(?:['\"](?:role|type|content)['\"]"
                     r"|role|type|content)\s*:")
CLASS_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool", "function": "tool",
               "user": "user", "assistant": "assistant", "chat": ""}
TEXT_FIELDS = ("content", "text", "message", "value")
# JavaScript/Python string literals, and the ``+`` joining them.
LITERAL = re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\\n]|\\.)*`""")
BRACKET_OR_QUOTE = re.compile(r"""[(){}\[\]'"]""")
MAX_OBJECT = 2_000_000


def bracket_pairs(text: str) -> dict[int, int]:
    """Where each bracket of ``text`` closes (``{open index: index after its closer}``), in one pass that skips
    quoted literals on one line; an object longer than ``MAX_OBJECT`` is left unpaired."""
    pairs: dict[int, int] = {}
    stack: list[tuple[int, str]] = []
    closing = {")": "(", "}": "{", "]": "["}
    index = 0
    for match in BRACKET_OR_QUOTE.finditer(text):
        if match.start() < index:
            continue
        char = match.group()
        if char in "'\"":
            literal = LITERAL.match(text, match.start())
            index = literal.end() if literal else match.end()
            continue
        index = match.end()
        if char in "({[":
            stack.append((match.start(), char))
            continue
        while stack and stack[-1][1] != closing[char]:
            stack.pop()  # an opener never closed (a bracket in prose)
        if stack:
            start, _ = stack.pop()
            if match.end() - start <= MAX_OBJECT:
                pairs[start] = match.end()
    return pairs


def literal_text(source: str) -> str | None:
    """The text of string literals joined by ``+`` (a JavaScript inspection), or of one Python literal."""
    try:
        value = ast.literal_eval(source.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        parts = LITERAL.findall(source)
        if not parts or LITERAL.sub("", source).replace("+", "").strip(" \t\n,"):
            return None
        value = "".join(ast.literal_eval(p if p[0] != "`" else repr(p[1:-1])) for p in parts)
    return value if isinstance(value, str) else None


def object_fields(source: str) -> dict[str, Any]:
    """The fields of one printed object: keyword arguments of a call repr, items of a dict repr, or
    ``key: value`` pairs of a JavaScript inspection (strings, and the tool calls as Python literals)."""
    try:
        node = ast.parse(source.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        node = None
    if isinstance(node, ast.Call):
        return {k.arg: value for k in node.keywords if k.arg and (value := safe_literal(k.value)) is not None}
    if isinstance(node, ast.Dict):  # a dict repr, or a JavaScript object whose keys read as names
        keys = [k.value if isinstance(k, ast.Constant) else k.id if isinstance(k, ast.Name) else None for k in node.keys]
        return {k: value for k, v in zip(keys, node.values) if isinstance(k, str) and (value := safe_literal(v)) is not None}
    fields = {}
    for match in re.finditer(r"(?:^|[{,\n])\s*(\w+):\s*", source):
        rest = source[match.end():]
        stop = re.search(r",\s*\n\s*\w+:\s|\n\s*\}\s*$", rest)
        if (text := literal_text(rest[:stop.start()] if stop else rest.rstrip("} \n"))) is not None:
            fields.setdefault(match.group(1), text)
    return fields


def safe_literal(node: ast.AST) -> Any:
    """A literal's value; strings joined by ``+`` (a JavaScript inspection of a long text) as one string."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = safe_literal(node.left), safe_literal(node.right)
        return left + right if isinstance(left, str) and isinstance(right, str) else None
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def block_content(blocks: list) -> tuple[str, list[dict[str, Any]], str]:
    """A message's content blocks as its text, its tool calls and the tool results it carries: ``{text}``,
    ``{toolUse: {name, input}}``, ``{toolResult: {content}}`` (Bedrock Converse), ``{type: text|tool_use|
    tool_result}`` (Anthropic); a result's text is returned apart (a user-role turn of results is a tool's)."""
    texts, calls, results = [], [], []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        use = block.get("toolUse") if isinstance(block.get("toolUse"), dict) else block if block.get("type") == "tool_use" else None
        result = block.get("toolResult") if isinstance(block.get("toolResult"), dict) else (
            block if block.get("type") == "tool_result" else None)
        if use is not None and isinstance(use.get("name"), str):
            calls.append({"id": use.get("toolUseId", use.get("id")), "name": use["name"], "args": use.get("input", {})})
        elif result is not None:
            inner = result.get("content")
            results.append(inner if isinstance(inner, str) else block_content(inner)[0] if isinstance(inner, list) else "")
        elif isinstance(block.get("text"), str):
            texts.append(block["text"])
    text = "\n".join(t for t in texts if t.strip())
    results_text = "\n".join(r for r in results if r.strip())
    return (text or results_text), calls, results_text


def printed_objects(text: str) -> list[tuple[int, int, dict[str, Any]]]:
    """``(start, end, turn)`` of every printed message object with a role and text (or tool calls)."""
    found: list[tuple[int, int, dict[str, Any]]] = []
    position = 0
    pairs = bracket_pairs(text) if OPENING.search(text) else {}
    for match in OPENING.finditer(text):
        if match.start() < position:
            continue
        bracket = match.end() - 1 if match.group(1) is not None else text.index("{", match.start())
        end = pairs.get(bracket)
        if end is None:
            continue
        named = match.group(1)
        source = text[bracket + 1:end - 1] if named is not None else text[bracket:end]
        fields = object_fields(f"f({source})" if named is not None else source)
        role = (CLASS_ROLES.get(named.lower()) if named is not None else None) or next(
            (ROLE_ALIASES[value.lower()] for key in ("role", "type") if isinstance(value := fields.get(key), str)
             and value.lower() in ROLE_ALIASES), None)
        body = next((fields[k] for k in TEXT_FIELDS if isinstance(fields.get(k), str)), None)
        calls = fields.get("tool_calls") if isinstance(fields.get("tool_calls"), list) else []
        if body is None and isinstance(fields.get("content"), list):  # content blocks (Converse, Anthropic)
            body, block_calls, results = block_content(fields["content"])
            calls = calls or block_calls
            role = "tool" if results.strip() and body == results and not calls else role
        if role is None or (not body and not calls):
            continue
        found.append((match.start(), end, {"speaker": role, "content": body or "", "tool_calls": calls}))
        position = end
    return found


def printed_histories(text: str) -> list[list[dict[str, Any]]]:
    """The histories a log printed: objects printed one after another with only brackets, commas and blanks
    between them are one; a history another one begins with (the same run printed again, longer) is left
    out."""
    histories: list[list[dict[str, Any]]] = []
    previous_end = None
    for start, end, turn in printed_objects(text):
        if previous_end is not None and not text[previous_end:start].strip(" \t\r\n,[]()"):
            histories[-1].append(turn)
        else:
            histories.append([turn])
        previous_end = end
    trie: dict = {}
    ends = [said_trie_end(trie, h) for h in histories]
    return [h for h, end in zip(histories, ends) if not end]  # a node with children: a longer history goes on


def said_trie_end(trie: dict, history: list[dict[str, Any]]) -> dict:
    """The node ``history``'s turns (speaker and text) end at in ``trie``, inserted on the way: once every
    history is in, a history whose node has children is the beginning of a longer one (linear in the turns,
    where comparing every pair of histories was quadratic)."""
    node = trie
    for turn in history:
        node = node.setdefault((turn["speaker"], turn["content"]), {})
    return node


def printed_runs(text: str) -> list[list[dict[str, Any]]] | None:
    """The runs a text printed as message objects: histories of two turns or more, a person's and the
    model's among them, mostly prose; None when there is none."""
    if is_code(text):
        return None  # message lists in a source file's examples were never printed by a run
    histories = [[t for t in h if t["content"].strip() or t["tool_calls"]]  # an empty system prompt is no turn
                 for h in printed_histories(ANSI.sub("", text))]
    runs = [h for h in histories if len(h) >= 2 and {"user", "assistant"} <= {t["speaker"] for t in h}]
    spoken = [t for run in runs for t in run]
    if not runs or sum(is_spoken(t["content"]) or bool(t["tool_calls"]) for t in spoken) * 2 < len(spoken):
        return None
    return runs


def canonical_calls(calls: list) -> list[dict[str, Any]]:
    """LangChain's ``tool_calls`` (``{name, args, id}``) or OpenAI's (``{function: {name, arguments}}``)."""
    out = []
    for call in calls:
        if not isinstance(call, dict):
            continue
        function = call.get("function") if isinstance(call.get("function"), dict) else call
        name = function.get("name")
        if isinstance(name, str) and name:
            out.append(tool_call(call.get("id"), name, function.get("args", function.get("arguments", {}))))
    return out


def detect_printed_messages(text: Any) -> bool:
    return isinstance(text, str) and printed_runs(text) is not None


def parse_printed_messages(text: str) -> list[Transcript]:
    return [Transcript(format="printed-messages", extra={"layout": "printed", "run": index}, messages=flag_text_observations(
        [message(t["speaker"], t["content"], tool_calls=canonical_calls(t["tool_calls"]) if t["speaker"] == "assistant"
                 else [], observation=t["speaker"] == "tool") for t in run]))
        for index, run in enumerate(printed_runs(text) or [])]


PRINTED_MESSAGES = Format(name="printed-messages", container="text", detect=detect_printed_messages,
                          parse=parse_printed_messages)


# --- an agent executor's verbose log ------------------------------------------------------------

# LangChain's ``AgentExecutor(verbose=True)`` prints each chain between ``> Entering new X chain...`` and
# ``> Finished chain.``, the model's steps in one colour and each tool's output in the tool's own colour.
CHAIN_EDGE = re.compile(r"^[ \t]*(?:\x1b\[[0-9;]*m)*> (?:Entering new \w+ chain\.\.\.|Finished chain\.)(?:\x1b\[[0-9;]*m)*",
                        re.MULTILINE)
COLOURED = re.compile(r"((?:\x1b\[[0-9;]*m)+)([^\x1b]*)")
INVOKING = re.compile(r"^Invoking: `([^`\n]+)` with `(.*?)`[ \t]*$", re.MULTILINE | re.DOTALL)
MODEL_STEP = re.compile(r"^(?:Invoking: `|Thought:|Action:|Final Answer:)", re.MULTILINE)


def chain_runs(text: str) -> list[list[dict[str, Any]]]:
    """The runs of every chain an executor logged in colour: the model's segments (the colour of its first
    step) as model turns, a call they name (``Invoking: `tool` with `{args}```) as its call, every other
    colour a tool's output. A log with no colour at all is read by its labels (``chains.plain_chain_runs``)."""
    if "\x1b[" not in text:
        return plain_chain_runs(text)
    runs = []
    for chain in chain_bodies(text):
        segments = [(codes.replace("\x1b[0m", ""), body) for codes, body in COLOURED.findall(chain)
                    if body.strip() and codes.replace("\x1b[0m", "")]  # uncoloured text: other prints
        model = next((codes for codes, body in segments if MODEL_STEP.search(body.strip())), None)
        if model is None:
            continue
        turns: list[dict[str, Any]] = []
        for codes, body in segments:
            if codes != model:
                turns.append({"speaker": "tool", "content": body.strip(), "tool_calls": []})
                continue
            calls = [tool_call(None, name, printed_arguments(arguments)) for name, arguments in INVOKING.findall(body)]
            turns.append({"speaker": "assistant", "content": INVOKING.sub("", body).strip(), "tool_calls": calls})
        if any(t["speaker"] == "tool" for t in turns):
            runs.append(turns)
    return runs


def chain_bodies(text: str) -> list[str]:
    """The text of each outermost chain (from ``Entering new`` to its ``Finished chain.``), in one pass."""
    bodies, depth, start = [], 0, 0
    for edge in CHAIN_EDGE.finditer(text):
        if "Entering" in edge.group():
            depth, start = depth + 1, edge.end() if depth == 0 else start
        elif depth:
            depth -= 1
            if depth == 0:
                bodies.append(text[start:edge.start()])
    return bodies


def printed_arguments(arguments: str) -> Any:
    """A call's arguments as printed (a Python dict repr): their value, else the text."""
    try:
        value = ast.literal_eval(arguments.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return arguments
    return value if isinstance(value, dict) else arguments


def detect_chain_log(text: Any) -> bool:
    return isinstance(text, str) and "> Entering new" in text and bool(chain_runs(text))


def parse_chain_log(text: str) -> list[Transcript]:
    return [Transcript(format="chain-log", extra={"layout": "chain", "run": index}, messages=[
        message(t["speaker"], t["content"], tool_calls=t["tool_calls"], observation=t["speaker"] == "tool") for t in run])
        for index, run in enumerate(chain_runs(text))]


CHAIN_LOG = Format(name="chain-log", container="text", detect=detect_chain_log, parse=parse_chain_log)
