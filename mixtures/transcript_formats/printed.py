"""Python objects a program printed, read back as the JSON values the transcript readers handle.

A notebook or a script that ran a model prints what the SDK returned: ``ChatCompletionMessage(content=...,
role='assistant', tool_calls=[...])``, ``[TextBlock(text=...), ToolUseBlock(id=..., input={...})]``, a
whole response dict (``{'ResponseMetadata': ..., 'output': {'message': {...}}}``), ``pprint``'s wrapped
dicts, a JSON dump. ``parse_printed`` reads one such repr with a small recursive-descent parser of the repr
grammar (``Name(field=value, ...)``, dicts, lists, tuples, sets, strings with their prefixes and adjacent
parts, numbers, ``True``/``None``/``true``/``null``, ``<Enum.X: 'x'>`` and other ``<...>`` reprs): nothing
is evaluated or imported. A call becomes a dict of its keyword fields (positional ones under ``args``); a
class named ``<Role>Message`` that prints no role gets the role its name says.

``printed_values`` finds every printed object in a text (a line that opens with one, after an optional
``Label:`` or ``Label ->``), and ``message_records`` the message records inside a value by their shape (a
role alias beside content or calls, at any depth; a list of content blocks). How a cell's records become
one run is ``printed_runs``.
"""

from __future__ import annotations

import ast
import bisect
import contextlib
import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from codemix.mixtures.transcript_formats.banners import is_code
from codemix.mixtures.transcript_formats.base import Transcript
from codemix.mixtures.transcript_formats.canonical import TranscriptShapeError, is_spoken
from codemix.mixtures.transcript_formats.markers import (
    ANSI,
    MODEL_WORDS,
    OUTPUT_WORDS,
    PART_WORDS,
    PERSON_WORDS,
    bracket_pairs,
    printed_runs,
)
from codemix.mixtures.transcript_formats.parts import kinded_part_turns
from codemix.mixtures.transcript_formats.text_turns import FENCE
from codemix.mixtures.transcript_formats.turns import ROLE_ALIASES, key_words

MAX_DEPTH = 60
MAX_VALUE_CHARS = 2_000_000
CONSTANTS = {"True": True, "False": False, "None": None, "true": True, "false": False, "null": None,
             "nan": float("nan"), "inf": float("inf"), "NaN": float("nan"), "Infinity": float("inf")}
NAME = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*")
NUMBER = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][-+]?\d+)?j?)")
STRING = re.compile(r"""(?:[rRbBuU]{1,2})?(?:'''(?:[^\\]|\\.)*?'''|\"\"\"(?:[^\\]|\\.)*?\"\"\"|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")""",
                    re.DOTALL)
SPACE = re.compile(r"\s*")
# A class named for the role of the message it holds: LangChain's ``HumanMessage``/``AIMessage``/``ToolMessage``.
ROLE_CLASS = re.compile(r"(?:^|\.)([A-Z][A-Za-z]*?)Message(?:Chunk)?$")
CLASS_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool", "function": "tool",
               "user": "user", "assistant": "assistant"}


# A message made of parts, and a part, named for their kind by their class (pydantic-ai's ``ModelRequest``,
# ``UserPromptPart``, ``ToolCallPart``: the repr leaves out ``kind`` and ``part_kind``).
SIDE_CLASS = re.compile(r"(Request|Response)$")
PART_CLASS = re.compile(r"(?:^|\.)([A-Z]\w*?)Part$")


def kinded_by_class(name: str, fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` with the kind its class names where the repr printed none: ``kind`` for a message of
    ``parts`` (``ModelRequest`` -> ``request``), ``part_kind`` for a part (``ToolReturnPart`` -> ``tool-return``)."""
    if isinstance(fields.get("parts"), list) and "kind" not in fields and (side := SIDE_CLASS.search(name)):
        return {**fields, "kind": side.group(1).lower()}
    if "part_kind" not in fields and (part := PART_CLASS.search(name)):
        return {**fields, "part_kind": "-".join(w.lower() for w in re.findall(r"[A-Z][a-z0-9]*", part.group(1)))}
    return fields


class PrintedSyntaxError(ValueError):
    """The text is no repr of the grammar ``parse_printed`` reads."""


@dataclass(slots=True)
class Parser:
    text: str
    at: int = 0

    def fail(self, what: str) -> PrintedSyntaxError:
        return PrintedSyntaxError(f"{what} at character {self.at}")

    def skip(self) -> None:
        self.at = SPACE.match(self.text, self.at).end()

    def peek(self) -> str:
        self.skip()
        return self.text[self.at:self.at + 1]

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise self.fail(f"expected {char!r}")
        self.at += 1

    def value(self, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise self.fail(f"nested deeper than {MAX_DEPTH}")
        char = self.peek()
        if char == "[":
            return self.sequence("]", depth)
        if char == "(":
            items, comma = self.items(")", depth)
            return items[0] if len(items) == 1 and not comma else items  # ``('a' 'b')``: pprint's wrapped string
        if char == "{":
            return self.mapping(depth)
        if char == "<":
            return self.angle(depth)
        if STRING.match(self.text, self.at) is not None:
            return self.strings()
        if (number := NUMBER.match(self.text, self.at)) is not None and number.group():
            self.at = number.end()
            return number_value(number.group())
        if (name := NAME.match(self.text, self.at)) is not None:
            self.at = name.end()
            if self.peek() == "(":
                return self.call(name.group(), depth)
            return CONSTANTS.get(name.group(), name.group())
        if self.text.startswith("...", self.at):
            self.at += 3
            return "..."
        raise self.fail("no value")

    def strings(self) -> str:
        """One string literal, or several written next to each other (``'abc' 'def'``: one string)."""
        parts = []
        while (match := STRING.match(self.text, self.at)) is not None:
            literal = match.group()
            try:
                value = ast.literal_eval(literal)  # one literal token: nothing runs
            except (ValueError, SyntaxError, MemoryError):
                raise self.fail("an unreadable string") from None
            parts.append(value.decode("utf-8", "replace") if isinstance(value, bytes) else value)
            self.at = match.end()
            self.skip()
        return "".join(parts)

    def items(self, close: str, depth: int) -> tuple[list[Any], bool]:
        """Values up to ``close``; whether a comma separated (or followed) them."""
        self.at += 1
        items, comma = [], False
        while self.peek() != close:
            if not self.peek():
                raise self.fail(f"unclosed, expected {close!r}")
            items.append(self.value(depth + 1))
            if self.peek() == ",":
                self.at += 1
                comma = True
            elif self.peek() != close:
                raise self.fail(f"expected ',' or {close!r}")
        self.at += 1
        return items, comma

    def sequence(self, close: str, depth: int) -> list[Any]:
        return self.items(close, depth)[0]

    def mapping(self, depth: int) -> dict[str, Any] | list[Any]:
        """A dict (keys of any literal, or bare names as a JavaScript inspection prints them), or a set."""
        self.at += 1
        out: dict[str, Any] = {}
        members: list[Any] = []
        while self.peek() != "}":
            if not self.peek():
                raise self.fail("unclosed, expected '}'")
            key = self.value(depth + 1)
            if self.peek() == ":":
                self.at += 1
                out[key if isinstance(key, str) else str(key)] = self.value(depth + 1)
            else:
                members.append(key)
            if self.peek() == ",":
                self.at += 1
            elif self.peek() != "}":
                raise self.fail("expected ',' or '}'")
        self.at += 1
        if members and out:
            raise self.fail("a dict and a set at once")
        return members if members else out

    def call(self, name: str, depth: int) -> dict[str, Any]:
        """``Name(field=value, ...)``: the fields as a dict, positional ones under ``args``."""
        self.at += 1
        fields: dict[str, Any] = {}
        positional = []
        while self.peek() != ")":
            if not self.peek():
                raise self.fail("unclosed, expected ')'")
            keyword = re.compile(r"([A-Za-z_]\w*)\s*=(?!=)").match(self.text, self.at)
            if keyword is not None:
                self.at = keyword.end()
                fields[keyword.group(1)] = self.value(depth + 1)
            else:
                positional.append(self.value(depth + 1))
            if self.peek() == ",":
                self.at += 1
            elif self.peek() != ")":
                raise self.fail("expected ',' or ')'")
        self.at += 1
        if positional:
            fields.setdefault("args", positional)
        role = ROLE_CLASS.search(name)
        if role and "role" not in fields and (side := CLASS_ROLES.get(role.group(1).lower())):
            fields["role"] = side
        return kinded_by_class(name, fields)

    def angle(self, depth: int) -> Any:
        """``<Enum.NAME: value>`` is its value; any other ``<...>`` repr (``<Figure size 640x480>``) its text."""
        start = self.at
        enum = re.compile(r"<[A-Za-z_][\w.]*:\s*").match(self.text, self.at)
        if enum is not None:
            self.at = enum.end()
            with_value = self.value(depth + 1)
            if self.peek() == ">":
                self.at += 1
                return with_value
            self.at = start
        level = 0
        for index in range(start, min(len(self.text), start + 10_000)):
            level += {"<": 1, ">": -1}.get(self.text[index], 0)
            if level == 0:
                self.at = index + 1
                return self.text[start:index + 1]
            if self.text[index] == "\n":
                break
        raise self.fail("an unclosed '<'")


def number_value(token: str) -> Any:
    token = token.replace("_", "")
    try:
        return int(token, 0) if not any(c in token for c in ".eEj") or token.lower().startswith(("0x", "-0x")) else (
            complex(token) if token.endswith("j") else float(token))
    except ValueError:
        return token


def parse_printed(text: str) -> Any:
    """The value one printed repr (or JSON document) spells; a ``PrintedSyntaxError`` when ``text`` is no
    such repr, or holds anything after it."""
    if len(text) > MAX_VALUE_CHARS:
        raise PrintedSyntaxError(f"a printed value of {len(text):,} characters (more than {MAX_VALUE_CHARS:,})")
    parser = Parser(text)
    try:
        value = parser.value()
    except RecursionError:
        raise PrintedSyntaxError("nested too deeply") from None
    if parser.peek():
        raise parser.fail("text after the value")
    return value


# --- printed objects in a text -------------------------------------------------------------------

# A line that opens with a printed object, after an optional label (``Content: [...]``, ``Output:`` alone on
# its line before a dict, ``Final answer ->``): the label, then the opener (a bracket, or ``Name(``).
LINE_VALUE = re.compile(r"^[ \t]*(?:([^\s\[\]{}()<>'\"=:][^\[\]{}()<>'\"=\n:]{0,58}?)[ \t]*(?::|->|=>)[ \t]*)?"
                        r"(?:([\[{(])|([A-Z][\w.]{0,80})\()", re.MULTILINE)
LABEL_ALONE = re.compile(r"^[ \t]*([^\s\[\]{}()<>'\"=:][^\[\]{}()<>'\"=\n:]{0,58}?)[ \t]*(?::|->|=>)[ \t]*$", re.MULTILINE)


@dataclass(slots=True, frozen=True)
class Printed:
    """One printed object: where it sits in the text, the label printed before it ('' when none), its value."""

    start: int
    end: int
    label: str
    value: Any


def printed_values(text: str) -> list[Printed]:
    """Every object a text printed at a line's start (after an optional label, or a label alone on the line
    before it), that is a dict, a list or an object repr and runs to the end of its line; in order."""
    if not LINE_VALUE.search(text):
        return []
    pairs = bracket_pairs(text)  # one linear pass over the brackets
    found: list[Printed] = []
    position = 0
    for match in LINE_VALUE.finditer(text):
        if match.start() < position:
            continue
        opener = match.start(2) if match.group(2) else match.end() - 1
        end = pairs.get(opener)
        if end is None or text[end:text.find("\n", end) if "\n" in text[end:] else len(text)].strip():
            continue
        start = match.start(2) if match.group(2) else match.start(3)
        try:
            value = parse_printed(text[start:end])
        except PrintedSyntaxError:
            continue
        if not isinstance(value, (dict, list)) or not value:
            continue
        label = match.group(1) or ""
        previous = text.rfind("\n", 0, max(match.start() - 1, 0)) + 1
        if not label and match.start() > 0 and (before := LABEL_ALONE.match(text[previous:match.start() - 1])):
            label = before.group(1)  # ``Output:`` on the line before the object
        found.append(Printed(start, end, label.strip(), value))
        position = end
    return found


# --- message records inside a printed value ----------------------------------------------------

CALL_BLOCKS = frozenset({"tool_use", "server_tool_use", "function_call", "tool_call"})
RESULT_BLOCKS = frozenset({"tool_result", "function_call_output"})
TEXT_BLOCKS = frozenset({"text", "output_text", "input_text"})
RECORD_KEYS = ("role", "content", "tool_calls", "function_call", "tool_call_id", "name")


def record_role(value: dict) -> str | None:
    """The side a printed object's ``role`` names (a role alias; an enum's last part: ``MessageRole.USER``)."""
    role = value.get("role")
    if not isinstance(role, str):
        return None
    return ROLE_ALIASES.get(role.rsplit(".", 1)[-1].lower())


def is_block(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    kind = item.get("type") if isinstance(item.get("type"), str) else None  # (a printed ``type`` may be an object)
    return kind in CALL_BLOCKS | RESULT_BLOCKS | TEXT_BLOCKS or any(k in item for k in ("toolUse", "toolResult")) or (
        set(item) == {"text"} and isinstance(item["text"], str))


def blocks_side(blocks: list[dict]) -> str:
    """Who wrote a list of content blocks: the model when one is a call (only a model calls), the tool when
    every block is a result, else the model (a response's text blocks)."""
    if any(b.get("type") in CALL_BLOCKS or "toolUse" in b for b in blocks):
        return "assistant"
    if all(b.get("type") in RESULT_BLOCKS or "toolResult" in b for b in blocks):
        return "user"  # tool results travel in a user message (Anthropic, Converse); the readers make them the tool's
    return "assistant"


def has_body(value: dict) -> bool:
    content = value.get("content")
    return bool(value.get("tool_calls") or value.get("function_call")) or (
        isinstance(content, str) and bool(content.strip())) or (isinstance(content, list) and any(map(is_block, content)))


def message_records(value: Any, depth: int = 0) -> list[dict[str, Any]]:
    """The message records a printed value holds, in order: an object with a role alias and content (text or
    blocks) or calls, wherever it sits (a response's ``output.message``, ``choices[0].message``, a history);
    a bare list of content blocks (``[TextBlock(...), ToolUseBlock(...)]``) as one message."""
    if depth > MAX_DEPTH:
        return []
    if isinstance(value, dict):
        role = record_role(value)
        if role is not None:
            if not has_body(value):
                return []  # an empty reply (``'content': []``) is no turn
            record = {k: value[k] for k in RECORD_KEYS if value.get(k) is not None}
            return [{**record, "role": role if role != "tool" or value.get("role") != "function" else "tool"}]
        if is_block(value) and blocks_side([value]) == "assistant" and value.get("type") not in TEXT_BLOCKS:
            return [{"role": "assistant", "content": [value]}]  # one call block printed alone (``ToolUseBlock(...)``)
        return [r for v in value.values() for r in message_records(v, depth + 1)]
    if isinstance(value, list):
        if value and all(map(is_block, value)):
            return [{"role": blocks_side(value), "content": value}]
        if (turns := kinded_part_turns(value)) is not None:  # messages of kinded parts (pydantic-ai)
            return turns
        return [r for v in value for r in message_records(v, depth + 1)]
    return []


# --- one run from what a text printed --------------------------------------------------------------

# A label alone or before text: ``User Message: ...``, ``Tool Result: ...``, ``Final answer ->``.
TEXT_LABEL = re.compile(r"^([A-Za-z][\w' -]{0,40}?)[ \t]*(?::|->|=>)[ \t]*(.*)$", re.MULTILINE)  # unindented: a field
# of an object printed over several lines (``  model: 'Intel...',``) is indented
ANSWER_WORDS = frozenset({"answer", "response", "reply", "completion"})
OBJECT_OPENING = re.compile(r"[A-Za-z_][\w.]*\(|[\[{]")


def label_side(label: str) -> str | None:
    """The turn a label before printed text opens: a person's (``User Message``), a tool's output (``Tool
    Result``), the model's answer (``Final answer``); None for the rest (``Stop Reason``, ``Tool Input``:
    the call, which the model's printed message holds)."""
    words = key_words(label)
    if words & OUTPUT_WORDS and not words & MODEL_WORDS:
        return "tool"
    if words & PART_WORDS:
        return None
    if words & PERSON_WORDS and not words & MODEL_WORDS:
        return "user"
    return "assistant" if words & (MODEL_WORDS | ANSWER_WORDS) else None


def labelled_turns(text: str, taken: list[tuple[int, int]]) -> list[tuple[int, dict[str, Any]]]:
    """``(position, record)`` of every labelled turn outside the printed objects ``taken``: the label's text is
    the rest of its line, or (a label alone) the lines after it up to a blank line or the next label."""
    found = []
    starts = [a for a, _ in taken]
    fences = [(f.start(), f.end()) for f in FENCE.finditer(text)]
    for match in TEXT_LABEL.finditer(text):
        if any(a <= match.start() < b for a, b in fences):
            continue  # an example in a Markdown code block
        inside = bisect.bisect_right(starts, match.start()) - 1  # the printed object that starts last before it
        if (inside >= 0 and match.start() < taken[inside][1]) or (side := label_side(match.group(1))) is None:
            continue
        body = match.group(2).strip()
        if side != "tool" and OBJECT_OPENING.match(body):
            continue  # ``response:  namespace(choices=[...])``: an object dumped whole, not the turn's text
        if not body:
            body = lines_after(text, match.end() + 1)
        if body and not set(body) <= set("=-_*~ "):
            found.append((match.start(), {"role": side, "content": body}))
    return found


MAX_LABELLED_LINES = 200


def lines_after(text: str, start: int) -> str:
    """The lines from ``start`` up to a blank line, a label or a printed object (at most ``MAX_LABELLED_LINES``:
    the work per label stays bounded however long the text)."""
    lines = []
    while start < len(text) and len(lines) < MAX_LABELLED_LINES:
        end = text.find("\n", start)
        line = text[start:end if end >= 0 else len(text)]
        if not line.strip() or TEXT_LABEL.match(line) or LINE_VALUE.match(line):
            break
        lines.append(line)
        start = end + 1 if end >= 0 else len(text)
    return "\n".join(lines).strip()


def record_key(record: dict[str, Any]) -> tuple:
    """What makes two printed records the same message printed twice: role, text, calls."""
    content = record.get("content")
    return (record["role"], repr(content) if not isinstance(content, str) else content.strip(),
            repr(record.get("tool_calls")))


def awaits_output(run: list[dict[str, Any]], at: int) -> bool:
    """Whether, before place ``at`` of a run, the model's last message made calls that fewer tool outputs than
    calls have answered."""
    last = next((i for i in range(at - 1, -1, -1) if run[i]["role"] == "assistant"), None)
    if last is None:
        return False
    model = run[last]
    calls = len(model.get("tool_calls") or []) + sum(
        isinstance(b, dict) and (b.get("type") in CALL_BLOCKS or "toolUse" in b) for b in model.get("content") or []
        if isinstance(model.get("content"), list))
    return sum(r["role"] == "tool" for r in run[last + 1:at]) < calls


def printed_events(text: str, labels_alone: bool = False) -> list[list[dict[str, Any]]]:
    """What a text printed, in order, as lists of records: each printed object's message records (a history
    when more than one), each labelled turn as a list of one; a labelled object holding no message (``Tool
    Result: [Result(...)]``) is its label's turn with the object's text. Labelled lines alone (no printed
    message) are no events unless ``labels_alone`` (a notebook cell whose code gives the request)."""
    events: list[tuple[int, list[dict[str, Any]]]] = []
    taken = []
    for printed in printed_values(text):
        records = message_records(printed.value)
        if records:
            events.append((printed.start, records))
            taken.append((printed.start, printed.end))
    if not events and not labels_alone:
        return []  # labelled lines with no printed message beside them are another format's (or a page's prose)
    for position, record in labelled_turns(text, taken):
        events.append((position, [record]))
    return [records for _, records in sorted(events, key=lambda e: e[0])]


def merged_runs(events: list[list[dict[str, Any]]]) -> list[list[dict[str, Any]]]:
    """The runs several partial prints of a conversation make: a history (two records or more) is placed in its
    own order, each record found again (the same message printed twice) moving the cursor to it, each new one
    inserted after the cursor; single records continue from the cursor, a model's new message after the
    records that answer the calls before it. A history sharing no message with a run that has its own person
    turn starts a new run."""
    runs: list[list[dict[str, Any]]] = []
    run: list[dict[str, Any]] = []
    where: dict[tuple, int] = {}  # each record's place in the run (no record is in it twice)
    cursor = -1
    for records in events:
        if len(records) > 1:
            if run and not any(record_key(r) in where for r in records) and any(r["role"] == "user" for r in run) \
                    and records[0]["role"] in ("user", "system"):
                runs.append(run)
                run, where = [], {}
            cursor = -1
        for record in records:
            key = record_key(record)
            if key in where:
                cursor = where[key]
                continue
            at = cursor + 1
            if len(records) == 1 and record["role"] == "assistant":
                while at < len(run) and run[at]["role"] != "assistant":
                    at += 1  # a tool's result or the person's turn already placed comes first
            if record["role"] == "tool" and len(records) == 1 and not awaits_output(run, at):
                continue  # a tool's output answers a call: with none waiting, it is printed text (or printed again)
            run.insert(at, record)
            if at == len(run) - 1:
                where[key] = at
            else:  # placed inside the run: the places after it moved
                where = {record_key(r): i for i, r in enumerate(run)}
            cursor = at
    return [r for r in (*runs, run) if r]


def text_runs(text: str, labels_alone: bool = False) -> list[list[dict[str, Any]]]:
    """The runs a text printed as objects (``printed_events`` merged by ``merged_runs``); ``[]`` for a source
    file (its message literals are examples, never printed by a run)."""
    if is_code(text) or json_lines(text):
        return []
    return merged_runs(printed_events(ANSI.sub("", text), labels_alone))


def json_lines(text: str) -> bool:
    """Whether a text is JSON Lines (each of its first lines one JSON value): data the JSONL reader reads line by
    line, not a program's printed output."""
    lines = list(itertools.islice((t for t in text.splitlines() if t.strip()), 20))
    try:
        return bool(lines) and all(isinstance(json.loads(line), (dict, list)) for line in lines)
    except ValueError:
        return False


def spoken_run(run: list[dict[str, Any]]) -> bool:
    """A person's turn and the model's, the model's mostly prose or calls (not a table of ids)."""
    model = [r for r in run if r["role"] == "assistant"]
    if not model or not any(r["role"] == "user" and (isinstance(r.get("content"), list) or is_spoken(str(r.get("content") or "")))
                            for r in run):
        return False
    return sum(bool(r.get("tool_calls")) or isinstance(r.get("content"), list) or is_spoken(str(r.get("content") or ""))
               for r in model) * 2 >= len(model)


def record_transcripts(runs: list[list[dict[str, Any]]], read: Callable[[Any], list[Transcript]]) -> list[Transcript]:
    """Each run's records read by ``read``, the JSON readers (the package's ``parse_json_value``, handed in so
    that this module does not import its package), as if the run had been saved as JSON."""
    found = []
    for index, run in enumerate(runs):
        try:
            transcripts = read(run)
        except TranscriptShapeError:
            continue
        for transcript in transcripts:
            transcript.extra.update({"layout": "printed-objects", "run": index, "printed_format": transcript.format})
            transcript.format = "printed-objects"
            found.append(transcript)
    return found


def detect_printed_objects(text: Any) -> bool:
    if not isinstance(text, str) or not LINE_VALUE.search(text):
        return False
    runs = [r for r in text_runs(text) if spoken_run(r)]
    if not runs:
        return False
    earlier = printed_runs(text) or []  # ``printed-messages`` reads this text as well: the fuller reading wins
    return sum(map(len, runs)) >= sum(map(len, earlier))


def parse_printed_objects(text: str, read: Callable[[Any], list[Transcript]]) -> list[Transcript]:
    """The ``printed-objects`` format's reading; its ``Format`` is made where ``read`` lives (the package)."""
    return record_transcripts([r for r in text_runs(text) if spoken_run(r)], read)


# --- a notebook's lone replies -----------------------------------------------------------------------


def lone_replies(text: str) -> list[list[dict[str, Any]]]:
    """Runs a text printed that hold no person's turn: one reply of the model (one ``ChatCompletionMessage``, a
    labelled final answer), or the model's calls and the tools' results (a loop printing each step); not a batch
    of separate generations. Their request is in the code that printed them."""
    runs = []
    for run in text_runs(text, labels_alone=True):  # a notebook's ``Final answer ->``: the code gives its request
        if any(r["role"] in ("user", "system") for r in run) or not any(r["role"] == "assistant" for r in run):
            continue
        model = [r for r in run if r["role"] == "assistant"]
        called = any(r.get("tool_calls") or isinstance(r.get("content"), list) for r in model)
        if (len(run) == 1 and (called or is_spoken(str(model[0].get("content") or "")))) or (
                called and any(r["role"] == "tool" for r in run)):
            runs.append(run)
    return runs


def attribute_reply(source: str, text: str) -> list[list[dict[str, Any]]]:
    """A cell whose last statement shows the text of a model's reply (``response.choices[0].message.content``,
    ``print(message.content[0].text)``): what it printed (a string's repr read back) is that reply, one run of one
    model message, when it is prose."""
    tree = code_tree(source)
    last = tree.body[-1] if tree is not None and getattr(tree, "body", None) else None
    if not isinstance(last, ast.Expr):
        return []
    shown = last.value
    if isinstance(shown, ast.Call) and getattr(shown.func, "id", "") == "print" and len(shown.args) == 1:
        shown = shown.args[0]
    named = shown.attr if isinstance(shown, ast.Attribute) else getattr(getattr(shown, "slice", None), "value", None) \
        if isinstance(shown, ast.Subscript) else None  # ``.content`` or ``["content"]``
    chain = ast.unparse(shown) if named in ("content", "text") else ""
    if not re.search(r"\b(?:choices|message)\b|\bcontent\[\d+\]\.text$", chain.replace("'", "").replace('"', "")):
        return []
    reply = text.strip()
    with contextlib.suppress(ValueError, SyntaxError, MemoryError, RecursionError):
        value = ast.literal_eval(reply) if reply[:1] in "'\"" else None
        reply = value if isinstance(value, str) else reply
    return [[{"role": "assistant", "content": reply.strip()}]] if is_spoken(reply) else []


def code_tree(source: str) -> ast.AST | None:
    """A cell's source as a syntax tree (shell and magic lines left out), None when it is no Python."""
    try:
        return ast.parse("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("!", "%"))))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def assigned_prompts(tree: ast.AST) -> list[tuple[str, list[dict[str, Any]] | None]]:
    """``(name, records)`` of every assignment to a name in a cell, in source order: the records of a message
    list written as literals (``messages = [{"role": "user", "content": "..."}]``, ``[SystemMessage(...),
    HumanMessage(content="...")]``; a message whose text is a variable left out), ``[]`` for an empty list (a
    new conversation), the message list a call assigned to the name was sent (``sent_messages``), None for
    anything else (the name no longer holds a known request). An assignment inside
    a function is held by the function's name too (a cell that calls it sends that request)."""
    found = []
    within = {id(n): f.name for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
              for n in ast.walk(f) if n is not f}
    for node in sorted((n for n in ast.walk(tree) if isinstance(n, ast.Assign)), key=lambda n: (n.lineno, n.col_offset)):
        names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        names += [within[id(node)]] if id(node) in within and names else []  # a function that builds its request
        records = None
        if isinstance(node.value, ast.List):
            records = [r for element in node.value.elts for r in literal_message(element)]
            records = records if records or not node.value.elts else None
        elif isinstance(node.value, (ast.Call, ast.Await)):
            records = sent_messages(node.value) or None  # ``response = completion(messages=[...])``: what was sent
        found += [(name, records) for name in names]
    return found


def sent_messages(call: ast.AST) -> list[dict[str, Any]]:
    """The message list a call is sent as literals (``completion(model=..., messages=[{"role": "user", ...}])``):
    the records of its longest literal list of messages, ``[]`` when it sends none."""
    lists = [[r for element in node.elts for r in literal_message(element)] for node in ast.walk(call)
             if isinstance(node, ast.List) and node.elts and isinstance(node.elts[0], (ast.Dict, ast.Call))]
    return max(lists, key=len, default=[])


def names_read(tree: ast.AST) -> set[str]:
    """The names a cell's code reads (``get_completion(messages, ...)`` reads ``messages``)."""
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def literal_message(node: ast.AST) -> list[dict[str, Any]]:
    """One element of a message list in code, as a record when it is written as literals."""
    if isinstance(node, ast.Dict):
        try:
            value = ast.literal_eval(node)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return []
        return message_records(value)
    if isinstance(node, ast.Call):
        name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) else ""
        fields = {}
        for keyword in node.keywords:
            with contextlib.suppress(ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                fields[keyword.arg] = ast.literal_eval(keyword.value)
        if node.args and "content" not in fields:
            with contextlib.suppress(ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                fields["content"] = ast.literal_eval(node.args[0])
        role = ROLE_CLASS.search(name)
        if role and "role" not in fields and (side := CLASS_ROLES.get(role.group(1).lower())):
            fields["role"] = side
        return message_records(fields)
    return []
