"""A run an agent framework printed to its console (``console-log``): one mechanism by structure.

1. **Framing found from the file itself** (``console_views``): colours; the line prefix most records share
   (a timestamp, a level, a logger: the longest token shape with two numbers or more that most lines open
   with), cut where the records are the log, or the records left out where a minority of them interrupt
   other prints; panels and titled rules (``╭─ Title ─╮``, ``│ ... │``, ``━━━ Step 1 ━━━``) turned into a
   ``Title:`` line and their body. A view without record prefixes is read by the other text formats
   first, a view without panels only by the readers here; a page's fenced blocks are read one by one first.
2. **Actor headers** (``actor_blocks``): a header is a line opening with a short head and a colon whose
   shape (names as a slot, numbers as ``#``, asides as ``()``) holds a frame word (``acts``, ``-->``,
   ``get task``, ``Reply from``) or a tag (``[TALK]``); a shape is a header's when it recurs, two shapes
   or more alternate and a name speaks in two of them. Sides by structure: the shape that opens the log is
   the person's (who brings the task), the others answer; a block repeating an earlier block's text is a
   delivered copy, and a shape whose blocks mostly repeat another's is a delivery (the repeated shapes speak:
   the model's side). A block that continues by quoting (``   > text``) holds only its quoted lines.
3. **Stepped runs** (``stepped_turns``): a task panel, then titled steps; each step the model's part up to a
   label of what running it gave (``Execution logs:``, ``Out:``), the tool's output from there.
4. **Logged steps** (``logged_steps``): log records that open the model's steps (``... - INFO - Thoughts:``),
   each step one model turn.
5. **Labelled sections** (``sections.section_turns``): headed or labelled parts of a recurring cycle
   (``### Step 3 - Tool Call``, ``NEXT ACTION:``, ``## Tool Output:``), sides by what each label names.
6. **Glyph-drawn captures** (``glyphs.glyph_turns``): a terminal agent's screen (``> prompt``, ``⏺ text``,
   ``⏺ Read(x)``, ``  ⎿  result``), sides by the prompt sign and the nesting of results.
7. **A chat REPL** (``glyphs.repl_turns``): ``>>> question`` lines the person typed, the answer printed below each.

Every line is accounted for: in a message, or counted in ``extra.framing`` under a named reason.
"""

from __future__ import annotations

import collections
import itertools
import re
import textwrap
from typing import Any

from codemix.mixtures.transcript_formats.banners import is_code, is_python_module
from codemix.mixtures.transcript_formats.base import Transcript
from codemix.mixtures.transcript_formats.canonical import flag_text_observations, is_spoken, message
from codemix.mixtures.transcript_formats.glyphs import glyph_turns, prompted_turns, repl_turns, ruled_headers
from codemix.mixtures.transcript_formats.markers import labelled_dialogue, marker_role
from codemix.mixtures.transcript_formats.numbered_steps import numbered_steps
from codemix.mixtures.transcript_formats.sections import section_turns
from codemix.mixtures.transcript_formats.turns import key_words

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
TOKEN = re.compile(r"\d+|[^\W\d_]+|[ \t]+|.")
PREFIX_SPAN = 64  # characters of a line a record prefix may take
PREFIX_SAMPLE = 2_000  # the lines the shared prefix is found from
# Log levels: a prefix may end with one and a colon (``... INFO: message``); any other word and a colon is a label.
LEVELS = frozenset({"debug", "info", "warning", "warn", "error", "critical", "fatal", "trace", "notice"})
MAX_LINES = 200_000


def token_shape(token: str) -> str:
    return "9" if token[0].isdigit() else "a" if token[0].isalpha() else " " if token[0] in " \t" else token


def prefix_keys(line: str) -> list[tuple[str, int, str]]:
    """``(shape, length, last word)`` of each candidate record prefix of a line: its tokens' shapes up to each
    point where a space ends and a word begins, within ``PREFIX_SPAN`` characters and before any label (a word
    and a colon that is no log level)."""
    keys, shape, last_word, position, previous = [], [], "", 0, ""
    for match in TOKEN.finditer(line, 0, PREFIX_SPAN):
        token = match.group()
        if token == ":" and previous[:1].isalpha() and previous.lower() not in LEVELS:
            break  # ``Alice:``: a speaker's label, never part of a record's prefix
        previous = token
        if shape and shape[-1] == " " and token[0] not in " \t":
            keys.append(("".join(shape), position, last_word))
        shape.append(token_shape(token))
        last_word = token if token[0].isalpha() else last_word if token in ": \t" else ""
        position = match.end()
    return keys


def record_prefix(lines: list[str]) -> str | None:
    """The shape of the record prefix most lines share (two numbers or more: a timestamp), or None."""
    counts: collections.Counter[str] = collections.Counter()
    ends: dict[str, str] = {}
    for line in lines[:PREFIX_SAMPLE]:
        for shape, _, last in prefix_keys(line):
            if shape.count("9") >= 2 and "9" in shape[:3]:  # a record opens with its time or number
                counts[shape] += 1
                ends.setdefault(shape, last)
    # a key ending in a word and a colon that is no log level ends in a speaker's label (``Alice: ``)
    counts = collections.Counter({shape: n for shape, n in counts.items()
                                  if not (shape.rstrip().endswith("a:") and ends[shape].lower() not in LEVELS)})
    if not counts:
        return None
    core, core_count = max(counts.items(), key=lambda item: (item[1], len(item[0])))
    if core_count < 3:
        return None
    longer = [s for s, n in counts.items() if s.startswith(core) and n >= 0.9 * core_count and not (
        s.rstrip().endswith("a:") and ends[s].lower() not in LEVELS)]  # ``Programmer: ``: a speaker, not the record's
    return max(longer, key=len) if longer else None  # the shared part ends in a label: no record prefix


def shape_pattern(shape: str) -> re.Pattern:
    """The regular expression of the lines whose prefix has ``shape`` (``prefix_keys``'s token shapes)."""
    classes = {"9": r"\d+", "a": r"[^\W\d_]+", " ": r"[ \t]+"}
    return re.compile("".join(classes.get(char) or re.escape(char) for char in shape) + r"(?=\S)")


def strip_records(text: str) -> list[tuple[str, dict[str, int]]]:
    """The views of a log without its record prefixes: each record's prefix cut (where the records are most
    of its lines), else first the records left out (a framework's log lines between a run's prints), then
    their prefixes cut. ``[]`` when no prefix is shared."""
    lines = text.split("\n")[:MAX_LINES]
    nonblank = [line for line in lines if line.strip()]
    shape = record_prefix(nonblank)
    if shape is None:
        return []
    cut, left_out, records = [], [], 0
    pattern = shape_pattern(shape)
    for line in lines:
        end = found.end() if (found := pattern.match(line)) is not None else None
        if end is None:
            cut.append(line)
            left_out.append(line)
        else:
            records += 1
            cut.append(line[end:])
    stripped = ("\n".join(cut), {"record_prefix": records})
    if records * 2 >= len(nonblank):
        return [stripped]
    return [("\n".join(left_out), {"log_record": records}), stripped]


# Panels a terminal library draws (rich, as smolagents and CrewAI print) and titled rules.
PANEL_TOP = re.compile(r"^[ \t]*[╭┌┏╔][─━═┄\- ]*(.*?)[─━═┄\- ]*[╮┐┓╗][ \t]*$")
PANEL_SIDE = re.compile(r"^[ \t]*[│┃║][ \t]?(.*?)[ \t]*[│┃║]?[ \t]*$")
PANEL_BOTTOM = re.compile(r"^[ \t]*[╰└┗╚][─━═┄\- ]*.*?[─━═┄\- ]*[╯┘┛╝][ \t]*$")
TITLED_RULE = re.compile(r"^[ \t]*[─━═]{3,}[ \t]*(\S.{0,80}?)[ \t]*[─━═]{3,}[ \t]*$")
BARE_RULE = re.compile(r"^[ \t]*[─━═]{10,}[ \t]*$")
BLOCK_QUOTED = re.compile(r"^([ \t]*)> ?(.*)$")  # under a header, a quote may start the line
MAX_PANEL_LINE = 1_000
TITLE_MARKS = re.compile(r"^[^\w\[(]+|[^\w\])]+$")


def unframe(text: str) -> tuple[str, dict[str, int]]:
    """The text with panels and titled rules turned into plain lines: a panel's or rule's title a ``Title:``
    line, its body lines without their bars; borders and bare rules counted as framing."""
    out, framing, changed = [], collections.Counter(), False
    opened, margin = None, ""  # where the open panel's body starts in ``out``, and the panel's own indent
    for line in text.split("\n")[:MAX_LINES]:
        if len(line) > MAX_PANEL_LINE:  # a terminal's panel is a screen wide; a longer line is no border
            out.append(line)
            continue
        if (top := PANEL_TOP.match(line)) or (rule := TITLED_RULE.match(line)):
            title = TITLE_MARKS.sub("", (top or rule).group(1)).strip()
            if title:
                out.append(title + ":")
            framing["panel_border" if top else "rule"] += 0 if title else 1
            if top:
                changed, opened, margin = True, len(out), line[:len(line) - len(line.lstrip())]
            changed = True
            continue
        if PANEL_BOTTOM.match(line) or BARE_RULE.match(line):
            framing["panel_border" if PANEL_BOTTOM.match(line) else "rule"] += 1
            if opened is not None and PANEL_BOTTOM.match(line) and len(out) > opened:
                # the panel's own padding is no indent of what it shows (Gemini CLI's ``│  > prompt  │``), the panel's
                # place is (a tool's panel drawn under the model's words, `` ╭─`` one column in, holds its output)
                out[opened:] = [margin + body if body.strip() else body
                                for body in textwrap.dedent("\n".join(out[opened:])).split("\n")]
            opened = None if PANEL_BOTTOM.match(line) else opened
            changed = True
            continue
        side = PANEL_SIDE.match(line)
        out.append(side.group(1) if side else line)
        changed = changed or side is not None
    # a text with no frame is its own view: cut at MAX_LINES it would read as a second view, every
    # format reading the text again (twice the time for a text just past the cap)
    return ("\n".join(out), dict(+framing)) if changed else (text, {})


def console_views(text: str) -> list[tuple[str, dict[str, int]]]:
    """The readings of a console text to try, each with its framing counts: without record prefixes, then
    also without panels and rules."""
    text = ANSI.sub("", text.replace("\r\n", "\n"))
    views = [(view, framing) for view, framing in strip_records(text)] or [(text, {})]
    out = []
    for view, framing in views:
        bare, more = unframe(view)
        if view != text:
            out.append((view, framing))
        if bare != view:
            out.append((bare, {**framing, **more}))
    return out


# --- actor headers --------------------------------------------------------------------------------

# (a rule printed without its newline may run into the header: ``======Worker node 3 ... get task 0.1: ...``)
HEAD = re.compile(r"^(?:([=\-_*~])\1{3,}[ \t]*)?(?P<head>[^\W_][^:：\n]{0,299}?)[ \t]*(?::|：)[ \t]*(?P<tag>\[[A-Z][A-Z_ ]{1,30}\])?[ \t]*(?P<rest>.*)$")
ASIDE = re.compile(r"\([^()\n]*\)|（[^（）\n]*）")
ARROW = re.compile(r"[ \t]*(?:-+>|=+>|→)[ \t]*")
HEAD_CHARS = re.compile(r"[\w .'’()→-]*")
MIN_HEADERS = 4
MAX_FRAME_WORDS = 3
WORD = re.compile(r"[(\"'“‘]?[^\W\d_]+(?:['’-][^\W\d_]+)?[)\"'”’.,;:!?]*")
RULE_LINE = re.compile(r"^[ \t]*([_\-=*~#>])\1{5,}")


def head_shape(head: str) -> tuple[str, list[str]] | None:
    """A head's shape (names ``N``, numbers ``#``, asides ``()``, frame words kept) and its names; None when it
    is no header's head (a path, code, a sentence)."""
    plain, previous = head, None
    while plain != previous:  # asides nest: ``(Researcher Rachel (Helper), a researcher ...)``
        plain, previous = ASIDE.sub(" \x01 ", plain), plain
    if len(re.findall(r"['\"]", plain)) >= 2 and not re.search(r"\w'\w", plain):
        return None  # a quoted value (``Found tool class 'Object_Detector_Tool'``) is a printed value, no name
    plain = ARROW.sub(" → ", plain.replace("\x01", "()")).strip()
    if not HEAD_CHARS.fullmatch(plain) or len(plain.split()) > 10:
        return None
    shape, names, name = [], [], []
    for token in plain.split():
        numbered = any(ch.isdigit() for ch in token)  # a number or an id (``1ee352ae-ad84``, ``task_001.0``)
        if numbered or token in ("()", "→") or (token[0].islower() and token.isascii()):
            if name:
                names.append(" ".join(name))
                name = []
            shape.append("#" if numbered else token)
        elif re.fullmatch(r"[^\W\d_][\w'’.-]*", token):
            if not name:
                shape.append("N")
            name.append(token)
        else:
            return None
    if name:
        names.append(" ".join(name))
    return " ".join(shape), names


def actor_headers(lines: list[str]) -> list[tuple[int, str, str, list[str], re.Match]] | None:
    """``(line index, shape, head, names, match)`` of the actor headers (see the module docstring), or None."""
    found = []
    for index, line in enumerate(lines):
        match = HEAD.match(line)
        if match is None or (described := head_shape(match.group("head"))) is None:
            continue
        shape, names = described
        frame = [t for t in shape.split() if t not in ("N", "#", "()")]
        # a header names an actor and says little else (``acts``, ``get task``, ``Reply from``): a sentence
        # opening a line (``The following packages will be installed:``) is no header
        framed = "N" in shape.split() and (frame or match.group("tag")) and len(frame) <= MAX_FRAME_WORDS
        if framed:
            found.append((index, shape + (" [tag]" if match.group("tag") else ""), match.group("head"), names, match))
    counts = collections.Counter(f[1] for f in found)
    # a shape whose heads are all one phrase (``Adding these amounts together:`` twice) holds no actor slot
    heads: dict[str, set[str]] = collections.defaultdict(set)
    for f in found:
        heads[f[1]].add(f[2])
    counts = collections.Counter({shape: n for shape, n in counts.items() if len(heads[shape]) >= 2 or "[tag]" in shape})
    # shapes that recur, and the header that opens the log (a person's one task: ``USER --> Jordan:``)
    recurring = [f for f in found if counts[f[1]] >= 2]
    named = {name for f in recurring for name in f[3]}
    opener = [f for f in found if recurring and f[0] < recurring[0][0] and set(f[3]) & named][-1:]
    found = opener + recurring
    shapes = {f[1] for f in found}
    if len(found) < MIN_HEADERS or len(shapes) < 2:
        return None
    changes = sum(a[2] != b[2] for a, b in itertools.pairwise(found))  # who speaks, or how, changes
    if changes * 3 < len(found) - 1:
        return None
    spoken_in: dict[str, set[str]] = collections.defaultdict(set)
    for _, shape, _, names, _ in found:
        for name in names:
            spoken_in[name].add(shape)
    if not any(len(s) >= 2 for s in spoken_in.values()):
        return None  # no name speaks in two shapes: no actors, a program's messages
    return found


def actor_blocks(text: str) -> tuple[list[dict[str, Any]], dict[str, int]] | None:
    """The turns of a log of actor headers, and its framing counts; None when it is no such log."""
    if is_code(text):
        return None
    lines = text.split("\n")[:MAX_LINES]
    headers = actor_headers(lines)
    if headers is None:
        return None
    framing = collections.Counter(before_first_header=sum(1 for line in lines[:headers[0][0]] if line.strip()))
    quoting = sum(index + 1 < len(lines) and BLOCK_QUOTED.match(lines[index + 1]) is not None
                  for index, *_ in headers) * 2 >= len(headers)
    blocks = []
    for number, (index, shape, head, _, match) in enumerate(headers):
        stop = headers[number + 1][0] if number + 1 < len(headers) else len(lines)
        body, rest = block_body(lines, index + 1, stop, match.group("rest"), quoting)
        framing["between_blocks"] += sum(1 for line in rest if line.strip() and not RULE_LINE.match(line))
        framing["rule"] += sum(1 for line in rest if RULE_LINE.match(line))
        if not body.strip():
            framing["empty_block"] += 1
            continue
        blocks.append((shape, head.strip(), body, " ".join(body.split())))
    sides = block_sides(blocks)
    turns: list[dict[str, Any]] = []
    seen: set[str] = set()
    for (shape, name, body, key), side in zip(blocks, sides):
        if key in seen:  # the same words delivered again to a listener (``A --> B: [CONVERSATION]``)
            framing["delivered_copy"] += 1 + body.count("\n")
            continue
        seen.add(key)
        if turns and side == "assistant" == turns[-1]["speaker"] and turns[-1]["name"] == name:
            turns[-1]["content"] += "\n" + body  # one actor's consecutive acts (think, talk, done): one turn
            continue
        turns.append({"speaker": side, "content": body, "name": name})
    if not {"user", "assistant"} <= {t["speaker"] for t in turns}:
        return None
    model = [t for t in turns if t["speaker"] == "assistant"]
    if sum(is_spoken(t["content"]) for t in turns) * 2 < len(turns) or sum(is_prose(t["content"]) for t in model) * 2 < len(model):
        return None  # the model's side writes prose, not a printed dict or a package list
    return turns, dict(+framing)


def is_prose(text: str) -> bool:
    """Prose rather than a printed value: not a bracketed literal, and at least half its words are words of
    letters (``fonts-droid-fallback``, ``'tool_name':`` are not)."""
    text = text.strip()
    if not text or text[0] in "{[(":
        return False
    if not is_spoken(text) or " " not in text:
        return is_spoken(text)  # a script written without spaces (``is_spoken`` counts its letters)
    tokens = text.split()
    return sum(WORD.fullmatch(t) is not None for t in tokens) * 2 >= len(tokens)


def block_sides(blocks: list[tuple[str, str, str, str]]) -> list[str]:
    """Each block's side. Where one shape's blocks mostly repeat another's words (a delivery shape, each
    message handed to its listener), the shapes whose words are repeated speak (the model's side) and a
    delivery's own words come from outside (the person's side); otherwise the shape that opens the log is
    the person's (who brings the task) and the shapes that answer are the model's."""
    by_text: dict[str, set[str]] = collections.defaultdict(set)
    for shape, _, _, key in blocks:
        by_text[key].add(shape)
    shapes = list(dict.fromkeys(shape for shape, _, _, _ in blocks))
    copied = {shape: sum(len(by_text[key]) > 1 for s, _, _, key in blocks if s == shape) for shape in shapes}
    total = collections.Counter(shape for shape, _, _, _ in blocks)
    delivery = {shape for shape in shapes if copied[shape] * 2 >= total[shape] > 0}
    speakers = {s for key, found in by_text.items() if len(found) > 1 for s in found} - delivery
    if delivery and speakers:
        return ["user" if shape in delivery else "assistant" for shape, _, _, _ in blocks]
    return ["user" if shape == blocks[0][0] else "assistant" for shape, _, _, _ in blocks] if blocks else []


def block_body(lines: list[str], start: int, stop: int, first: str, quoting: bool) -> tuple[str, list[str]]:
    """A block's text (the header's rest and the lines after it up to ``stop``; only the quoted lines where the
    log's blocks continue by quoting, ``   > ...``) and the lines left out of it."""
    following = lines[start:stop]
    if quoting:
        quoted = list(itertools.takewhile(lambda line: BLOCK_QUOTED.match(line) is not None, following))
        body = [first] + [BLOCK_QUOTED.match(line).group(2) for line in quoted]
        return "\n".join(body).strip(), following[len(quoted):]
    kept = [line for line in following if not RULE_LINE.match(line)]
    return "\n".join([first, *kept]).strip(), [line for line in following if RULE_LINE.match(line)]


# --- stepped runs: a task panel, then titled steps --------------------------------------------------

OUTPUT_LABEL = re.compile(r"^[ \t]*([A-Za-z][\w -]{0,40}?)[ \t]*:")
STEP_FOOTER = re.compile(r"^[ \t]*\[[^\]\n]*\d[^\]\n]*\][ \t]*$")  # ``[Step 0: Duration 0.27 seconds| ...]``
OUTPUT_ABBREVIATIONS = frozenset({"out", "logs", "stdout", "stderr"})


def stepped_turns(text: str) -> tuple[list[dict[str, Any]], dict[str, int]] | None:
    """A run a terminal library drew as a task panel and titled steps (``╭── New run ──╮ │ task │ ╰──╯``, then
    ``━━━ Step 0 ━━━``): the first panel, before any step, is the task (who opens); each step is the model's
    part (its panels' bodies, the code it wrote, and its text) up to a label of what running it gave
    (``Execution logs:``, ``Observations:``, ``Out:``), from which on the step is the tool's output. A step's
    footer of figures (``[Step 0: Duration ...]``) is framing."""
    lines = ANSI.sub("", text).split("\n")[:MAX_LINES]
    framing: collections.Counter[str] = collections.Counter()
    turns: list[dict[str, Any]] = []
    step, in_panel, seen_step = None, False, False
    for line in lines:
        if len(line) <= MAX_PANEL_LINE and (top := PANEL_TOP.match(line)):
            in_panel = True
            framing["panel_border"] += 1
            if not seen_step and not turns:
                turns.append({"speaker": "user", "content": "", "name": TITLE_MARKS.sub("", top.group(1)).strip()})
            continue
        if in_panel and (PANEL_BOTTOM.match(line) or not PANEL_SIDE.match(line)):
            in_panel = False
            framing["panel_border"] += 1
            continue
        if len(line) <= MAX_PANEL_LINE and (rule := TITLED_RULE.match(line)):
            seen_step, step = True, "assistant"
            turns.append({"speaker": "assistant", "content": "", "name": TITLE_MARKS.sub("", rule.group(1)).strip()})
            framing["rule"] += 1
            continue
        body = PANEL_SIDE.match(line).group(1) if in_panel else line
        if not turns or not body.strip():
            framing["before_first_header" if not turns else "blank"] += 0 if not turns and not body.strip() else 1
            continue
        if STEP_FOOTER.match(body):
            framing["step_footer"] += 1
            continue
        label = OUTPUT_LABEL.match(body) if step == "assistant" and not in_panel else None
        if label and (marker_role(words := key_words(label.group(1))) == "tool" or words & OUTPUT_ABBREVIATIONS):
            step = "tool"
            turns.append({"speaker": "tool", "content": "", "name": label.group(1)})
        turns[-1]["content"] += body.rstrip() + "\n"
    turns = [{**t, "content": t["content"].strip()} for t in turns if t["content"].strip()]
    if not seen_step or not turns or turns[0]["speaker"] != "user" or not is_prose(turns[0]["content"]):
        return None
    if not any(t["speaker"] == "assistant" for t in turns) or not any(t["speaker"] == "tool" for t in turns):
        return None
    return turns, dict(+framing)


STEP_LABEL = re.compile(r"^[ \t]*([A-Za-z][\w -]{0,30}?)[ \t]*:[ \t]*(.*)$")


def record_lines(text: str) -> set[int]:
    """The indexes of the lines that open with the record prefix the text shares (``record_prefix``)."""
    lines = ANSI.sub("", text.replace("\r\n", "\n")).split("\n")[:MAX_LINES]
    shape = record_prefix([line for line in lines if line.strip()])
    pattern = shape_pattern(shape) if shape is not None else None
    return {i for i, line in enumerate(lines) if pattern is not None and pattern.match(line)}


def logged_steps(text: str, records: set[int] | frozenset = frozenset()) -> tuple[list[dict[str, Any]], dict[str, int]] | None:
    """A framework's log of its model's steps, each opened by a log record whose message is a label of the
    model's part (LaVague's ``... - INFO - Thoughts:``, then ``Next engine:``, ``Instruction:``): each step
    one model turn, a label of what running it gave (``Observation:``) a tool's turn. The task is not in
    the log (a notebook gives its cell's); the records' prefixes are cut already (``record_prefix``)."""
    lines = text.split("\n")[:MAX_LINES]
    labels = [(i, m.group(1), marker_role(key_words(m.group(1)))) for i, line in enumerate(lines)
              if (m := STEP_LABEL.match(line)) is not None]
    opener = next((label for _, label, role in labels if role in ("part", "assistant")), None)
    starts = [i for i, label, _ in labels if label == opener]
    if opener is None or len(starts) < 2 or not set(starts) <= records:
        return None  # each step opens with a log record (a docstring's ``call:`` lines are none)
    if any(role == "user" and i in records for i, _, role in labels):
        return None  # a person's records among them (``[10:32] User:``): a dialogue, read by the speaker readers
    turns: list[dict[str, Any]] = []
    framing = collections.Counter(before_first_header=sum(1 for line in lines[:starts[0]] if line.strip()))
    tool_at = {i for i, _, role in labels if role == "tool" and i > starts[0]}
    for index, line in enumerate(lines[starts[0]:], starts[0]):
        if index in starts or index in tool_at:
            turns.append({"speaker": "tool" if index in tool_at else "assistant", "content": "", "name": opener})
        turns[-1]["content"] += line + "\n"
    turns = [{**t, "content": t["content"].strip()} for t in turns if t["content"].strip()]
    model = [t for t in turns if t["speaker"] == "assistant"]
    if len(model) < 2 or sum(is_prose(t["content"]) for t in model) * 2 < len(model):
        return None
    return turns, dict(+framing)


def printed_once(transcripts: list[Transcript]) -> list[Transcript]:
    """The runs of a page without those printed again longer (a prompt re-rendered at each turn): a run every
    message of which is in a later run is left out."""
    said = [{(m["role"], " ".join(m["content"].split()), tuple(c["name"] for c in m["tool_calls"])) for m in t.messages}
            for t in transcripts]
    return [t for i, t in enumerate(transcripts) if not any(said[i] <= later for later in said[i + 1:])]


def fenced_blocks(text: str) -> list[str]:
    """The contents of a Markdown page's fenced blocks (console output pasted into a page), each read alone."""
    return [block for block in re.findall(r"^[ \t]*```[^\n`]*\n(.*?)^[ \t]*```", text, re.MULTILINE | re.DOTALL)
            if block.count("\n") >= 4]


# --- the format -----------------------------------------------------------------------------------

# --- replies drawn in panels ------------------------------------------------------------------------

# What a person types at a chat CLI's prompt, a label before it (`` You : how many pods?``, ``> ``).
PROMPT_LABEL = re.compile(r"^[ \t]*(?:(?P<name>[^\W\d_][\w'-]{0,15})[ \t]*[:：]|[>❯›»])[ \t]*")


def panel_turns(text: str) -> tuple[list[dict[str, Any]], dict[str, int]] | None:
    """A chat CLI that draws each reply in a panel titled with the agent's name (Rich's ``╭── K8sGPT ──╮``): the
    panels of the title that recurs are the agent's turns, and the paragraph typed before each (its prompt label cut)
    the person's. Other panels (a banner's) and the lines before a person's paragraph are framing. None when no
    title recurs, or the person does not speak before nine in ten of its panels."""
    lines = text.split("\n")[:MAX_LINES]
    panels, index = [], 0
    while index < len(lines):
        top = PANEL_TOP.match(lines[index]) if len(lines[index]) <= MAX_PANEL_LINE else None
        stop = next((j for j in range(index + 1, len(lines)) if PANEL_BOTTOM.match(lines[j])), None) if top else None
        if top is None or stop is None:
            index += 1
            continue
        body = [side.group(1) if (side := PANEL_SIDE.match(line)) else line for line in lines[index + 1:stop]]
        panels.append((index, stop, TITLE_MARKS.sub("", top.group(1)).strip(), textwrap.dedent("\n".join(body)).strip()))
        index = stop + 1
    titles = collections.Counter(title for _, _, title, _ in panels if title)
    if not titles or titles.most_common(1)[0][1] < 2:
        return None
    agent = titles.most_common(1)[0][0]
    framing: collections.Counter[str] = collections.Counter()
    turns, previous = [], 0
    for start, stop, title, body in panels:
        if title != agent:
            framing["other_panel"] += stop - start + 1
            continue
        typed = "\n".join(lines[previous:start]).strip()
        paragraph = re.split(r"\n[ \t]*\n", typed)[-1].strip() if typed else ""
        framing["before_prompt"] += typed.count("\n") + bool(typed) - paragraph.count("\n") - bool(paragraph)
        label = PROMPT_LABEL.match(paragraph)
        if label and label.end() < len(paragraph):
            turns.append({"speaker": "user", "content": paragraph[label.end():].strip(), "name": label.group("name") or ""})
        elif paragraph:
            turns.append({"speaker": "user", "content": paragraph, "name": ""})
        if body:
            turns.append({"speaker": "assistant", "content": body, "name": agent})
        previous = stop + 1
    answered = sum(a["speaker"] == "user" and b["speaker"] == "assistant" for a, b in itertools.pairwise(turns))
    typed = [t for t in turns if t["speaker"] == "user"]
    if answered * 10 < titles[agent] * 9 or sum(is_spoken(t["content"]) for t in typed) * 2 < len(typed):
        return None  # (a person writes words: ``exit`` once is a command among them)
    return turns, dict(+framing)


def repl_transcripts(text: str) -> list[Transcript]:
    """A chat REPL's session read as one (``glyphs.repl_turns``) in the first of the console's views that holds it
    (a rule titled with a tool is its title line there), never by the other text formats."""
    turns, framing = next(((blocks[0], {**found, **blocks[1]}) for view, found in [*console_views(text), (ANSI.sub("", text), {})]
                           if (blocks := repl_turns(view)) is not None), ([], {}))
    transcript = Transcript(format="console-log", extra={"layout": "repl"}, messages=flag_text_observations([
        message(t["speaker"], t["content"], name=t["name"], reasoning=t.get("reasoning", ""),
                tool_calls=t.get("calls") or None) for t in turns]))
    transcript.extra["console"] = {"framing": framing, "read_as": "console-log"}
    return [transcript] if turns else []


def console_transcripts(text: str, others: Any = None, fenced: bool = True) -> list[Transcript] | None:
    """The runs a console text holds: each view (``console_views``) read by the other text formats
    (``others``: a function of a text giving transcripts or None), else by its actor headers."""
    if not isinstance(text, str) or not text.strip():
        return None
    if fenced and is_python_module(text):
        return None  # a source file's fences are its docstrings' examples, never a run it printed
    if fenced and (found := [t for block in fenced_blocks(text) for t in console_transcripts(block, others, False) or []]):
        return printed_once(found)  # console output pasted into a page's fences: each block read alone
    for view, framing in [*console_views(text), (ANSI.sub("", text), {})]:
        # a view without record prefixes is read by every text format; a view without panels only by the
        # readers here (the other formats, given a page's panels as plain lines, misread prints as turns)
        unpanelled = any(key in framing for key in ("panel_border", "rule"))
        # steps each log record opens (a label of the model's part) are read before any other reading of them
        # (not where the records are two speakers' labelled lines taking turns: ``[time] 你: ...`` / ``[time] AI: ...``)
        stepped = logged_steps(view, record_lines(text)) if "record_prefix" in framing and \
            labelled_dialogue(view) is None else None
        transcripts = others(view) if others is not None and view != text and not unpanelled and not stepped else None
        for layout, reader in (("logged-steps", None), ("numbered-steps", numbered_steps), ("actors", actor_blocks), ("steps", stepped_turns),
                               ("sections", section_turns), ("glyphs", glyph_turns), ("panels", panel_turns),
                               ("repl", repl_turns), ("prompted", prompted_turns), ("ruled", ruled_headers)):
            if not transcripts and (blocks := stepped if reader is None else reader(view)) is not None:
                turns, found = blocks
                runs = dict.fromkeys(t.get("run", 0) for t in turns)  # (several agents' runs, each its own)
                transcripts = [Transcript(format="console-log", extra={"layout": layout}, messages=flag_text_observations([
                    message(t["speaker"], t["content"], name=t["name"], observation=t["speaker"] == "tool",
                            reasoning=t.get("reasoning", ""),
                            tool_calls=t.get("calls") or None)
                    for t in turns if t.get("run", 0) == run])) for run in runs]
                framing = {**framing, **found}
        if transcripts:
            for transcript in transcripts:
                transcript.extra["console"] = {"framing": framing, "read_as": transcript.format}
                transcript.format = "console-log"
            return transcripts
    return None
