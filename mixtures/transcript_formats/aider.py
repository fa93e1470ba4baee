"""aider chat histories (``aider``): ``.aider.chat.history.md``.

``Aider-AI/aider`` ``aider/io.py`` appends to this file: ``# aider chat started at <time>`` opens a
session; ``user_input`` writes each input line as ``#### line`` (lines end in two spaces, a Markdown
line break); ``tool_output``, ``tool_error`` and confirmations write ``> text``; ``ai_output`` writes
the model's reply as plain Markdown between blank lines. One session is one transcript, or several
where ``/clear`` or ``/reset`` emptied the chat history.

What the model was sent is the messages: the person's ``####`` lines but commands to aider itself (``/add``,
``/run``, ``!ls``: ``Commands.is_command``, never sent; ``/ask x`` and ``/code x`` echo ``#### x``), the
replies, and a command's output where the file shows aider added it to the chat (its ``Added 17 lines of
output to the chat.`` or a ``... to the chat? ... y`` answer after the output, or the model's reply right
after it, as ``/test`` sends a failing run by itself). Every other ``>`` line is aider telling the person
something (token counts, applied edits, commits, rate-limit errors, its questions): counted on the
transcript (``aider_notices``, ``aider_commands``), never a message.
"""

from __future__ import annotations

import re
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import TranscriptShapeError, message
from codemix.mixtures.transcript_formats.outcomes import parse_test_summary

SESSION_START = re.compile(r"^# aider chat started at (.*)$", re.MULTILINE)
USER_LINE = "####"
TOOL_LINE = ">"
# ``` and ~~~, and the tag fences aider also asks models for (``all_fences``, aider/coders/base_coder.py).
FENCE = re.compile(r"^\s*(```|~~~|</?(source|code|pre|codeblock|sourcecode)>)")
LINT_REPORT = "# Fix any errors below, if possible."
CLEARS = frozenset({"/clear", "/reset"})
# aider's commands whose output it can add to the chat (``cmd_run``, ``cmd_test``, ``cmd_lint``; ``!`` is /run).
OUTPUT_COMMANDS = re.compile(r"^(?:/(?:run|test|lint)\b|!)")
# aider's word that it added the output (``Added 17 lines of output to the chat.``) or the person's yes to it.
ADDED = re.compile(r"^Added \d+ lines? of output to the chat\.?\s*$|^Add .*output to the chat\?.*:\s*y(?:es)?\s*$",
                   re.MULTILINE | re.IGNORECASE)
# aider's questions and answers about adding the output, taken out of an output kept.
ASKED = re.compile(r"^(?:Add(?:ed)? .*output to the chat\b.*|Run shell command\?.*|Running .*)$\n?", re.MULTILINE)


def detect_aider(text: Any) -> bool:
    """A session start anywhere: real histories are appended to for months and often begin mid-session
    (a cut or edited file: aider's own tests/fixtures/chat-history.md opens with an editor mode line)."""
    return isinstance(text, str) and SESSION_START.search(text) is not None


def parse_aider(text: str) -> list[Transcript]:
    starts = list(SESSION_START.finditer(text))
    if not starts:
        raise TranscriptShapeError("no '# aider chat started at' line")
    transcripts = []
    # The text before the first start is the end of a session whose start is not in the file.
    for body, started in [(text[:starts[0].start()], None)] + [
            (text[m.end():end], m.group(1)) for m, end in zip(starts, [*(m.start() for m in starts[1:]), len(text)])]:
        extra = {"started_at": started} if started is not None else {"started_at": "", "no_start_line": True}
        for part, blocks in enumerate(conversations(session_messages(body))):
            messages, counts, facts = sent_messages(blocks)
            if messages:
                transcripts.append(Transcript(format="aider", messages=messages, facts=facts, extra=extra | counts | (
                    {"after_clear": part} if part else {})))
    if not transcripts:
        raise TranscriptShapeError("aider sessions with nothing sent to the model in them")
    return transcripts


def sent_messages(blocks: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, int], dict[str, Any]]:
    """The messages the model was sent, the counts of aider's own lines left out, and the outcome of the last
    test run the session shows after a reply (aider printed it; a run the model never saw is still the run's)."""
    messages, counts, outputs = [], {"aider_notices": 0, "aider_commands": 0}, []
    for index, block in enumerate(blocks):
        if block["role"] == "user" and block["observation"] and block["content"].startswith(("/", "!")):
            counts["aider_commands"] += 1
            continue
        if block["role"] != "tool":
            messages.append(block)
            continue
        before, after = blocks[index - 1] if index else None, blocks[index + 1] if index + 1 < len(blocks) else None
        output = before is not None and before["role"] == "user" and bool(OUTPUT_COMMANDS.match(before["content"]))
        if output and any(m["role"] == "assistant" for m in messages):
            outputs.append(block["content"])
        added = ADDED.search(block["content"]) or (after is not None and after["role"] == "tool" and ADDED.search(
            after["content"])) or (after is not None and after["role"] == "assistant")
        kept = ASKED.sub("", block["content"]).strip() if output and added else ""
        if kept:
            messages.append(message("tool", kept, observation=True))
        else:
            counts["aider_notices"] += 1
    tested = next((r for r in map(parse_test_summary, reversed(outputs)) if r is not None), None)
    return messages, {k: v for k, v in counts.items() if v}, {"tests_passed": tested[0]} if tested else {}


def conversations(messages: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """A session split after each ``/clear`` or ``/reset``: aider empties the chat history there, so the
    model never sees the turns before it with the turns after (the command ends the earlier part)."""
    parts: list[list[dict[str, Any]]] = [[]]
    for canonical in messages:
        parts[-1].append(canonical)
        if canonical["role"] == "user" and canonical["content"].strip() in CLEARS:
            parts.append([])
    return [part for part in parts if part]


def session_messages(body: str) -> list[dict[str, Any]]:
    """Blocks of consecutive lines of one kind (see ``line_kinds``); blank lines end a block but the reply's."""
    lines = body.split("\n")
    blocks: list[tuple[str, list[str]]] = []
    for line, kind in zip(lines, line_kinds(lines)):
        if kind == "blank":
            if blocks and blocks[-1][0] == "assistant":
                blocks[-1][1].append("")
            else:
                blocks.append(("blank", []))
            continue
        text = line if kind == "assistant" else line.removesuffix("  ") if kind == "more" else unprefixed(
            line, USER_LINE if kind == "user" else TOOL_LINE)
        kind = "tool" if kind == "more" else kind
        if blocks and blocks[-1][0] == kind:
            blocks[-1][1].append(text)
        else:
            blocks.append((kind, [text]))
    return [block_message(kind, lines) for kind, lines in one_input_per_run(blocks)
            if kind != "blank" and "".join(lines).strip()]


def one_input_per_run(blocks: list[tuple[str, list[str]]]) -> list[tuple[str, list[str]]]:
    """Input blocks with only blank lines between them are one input (aider 0.50 wrote each line of a pasted prompt as
    ``#### <line>`` between blank lines): the model was sent one message. A command to aider stays its own."""
    out: list[tuple[str, list[str]]] = []
    for kind, lines in blocks:
        last = next((i for i in range(len(out) - 1, -1, -1) if out[i][0] != "blank"), None)
        if kind == "user" and last is not None and out[last][0] == "user" and not command(out[last][1]) \
                and not command(lines):
            out[last] = ("user", [*out[last][1], *lines])
            del out[last + 1:]
        else:
            out.append((kind, lines))
    return out


def command(lines: list[str]) -> bool:
    return bool(lines) and lines[0].lstrip().startswith(("/", "!"))


def line_kinds(lines: list[str]) -> list[str]:
    """``user`` (``####``), ``tool`` (``>``), ``more`` (an output's next line), ``assistant`` (other text)
    or ``blank``, with what real files need: inside a reply's fence every line is the reply's (an edit
    quotes ``>>>>>>> REPLACE``); aider prefixes only the first line of a multi-line output
    (``append_chat_history``: ``"> " + text``, then ``"  "`` at its end), so the output runs on to a
    line ending in two spaces before a blank or prefixed line (a repo map, a test run); a reply follows
    a blank line (``ai_output`` writes ``"\\n" + content``), so text before the body's first blank line
    is the file's own (an editor's mode line); a reply cut off (``^C``) inside a fence leaves it open
    (see ``cuts_reply``)."""
    kinds: list[str] = []
    fenced = running = False
    # an output runs on unprefixed to its two-space break only in files whose inputs end in that break; aider 0.50
    # ended none (``#### pojdme na krok 4``) and prefixed every line of an output (``> }``): there a line is its kind
    inputs = [line for line in lines if line_kind(line) == "user"]
    broken = sum(line.endswith("  ") for line in inputs) * 2 >= len(inputs)
    lead = True  # a session's body starts with a blank line; text before any is the file's own
    for index, line in enumerate(lines):
        lead = lead and bool(line.strip())
        if running and not line.strip() and index + 1 < len(lines) and line_kind(lines[index + 1]) == "user":
            running = False  # the person's next input: no output holds a ``####`` line (versions that end no line in
            # two spaces, aider 0.50's, leave an output's end unmarked)
        if running:
            kind, running = "more", not closes_output(lines, index)
        elif fenced and not cuts_reply(lines, index):
            kind = "assistant"
        else:
            fenced = False
            kind = line_kind(line)
            running = kind == "tool" and broken and not closes_output(lines, index)
            kind = "more" if kind == "assistant" and lead else kind
        if kind == "assistant" and FENCE.match(line):
            fenced = not fenced
        kinds.append(kind)
    return kinds


def cuts_reply(lines: list[str], index: int) -> bool:
    """An input or output line of aider's (prefixed, ending in its two-space line break) after a blank
    line: what follows a reply that was cut off inside a fence."""
    line = lines[index]
    return index > 0 and not lines[index - 1] and line.endswith("  ") and line_kind(line) in ("user", "tool")


def closes_output(lines: list[str], index: int) -> bool:
    after = lines[index + 1] if index + 1 < len(lines) else ""
    return lines[index].endswith("  ") and line_kind(after) in ("blank", "user", "tool")


def line_kind(line: str) -> str:
    if not line.strip():
        return "blank"
    if line == USER_LINE or line.startswith(USER_LINE + " "):
        return "user"
    if line == TOOL_LINE or line.startswith(TOOL_LINE + " "):
        return "tool"
    return "assistant"


def unprefixed(line: str, prefix: str) -> str:
    """The line as typed: without the prefix and the two-space Markdown line break aider appends."""
    text = line[len(prefix) + 1:] if line.startswith(prefix + " ") else ""
    return text.removesuffix("  ")


def block_message(kind: str, lines: list[str]) -> dict[str, Any]:
    text = "\n".join(lines).strip("\n")
    if kind == "user":
        text = "" if text == "<blank>" else text
        # A slash command (/add, /run...) is an instruction to aider, never sent to the model as a turn;
        # the linter's report (aider/linter.py) is sent as the user's, but aider wrote it.
        return message("user", text, observation=text.startswith(("/", "!", LINT_REPORT)))
    if kind == "tool":
        return message("tool", text, observation=True)
    thought = THINKING_TAG.search(text)
    if thought:  # the model's thinking, in a tag aider names (``<thinking-content-7bbeb8e1...>``): reasoning, not reply
        return message("assistant", (text[:thought.start()] + text[thought.end():]).strip(),
                       reasoning=thought.group("thought").strip())
    return message("assistant", text)


# A tag whose name says thinking (``<thinking>``, ``<think>``, aider's ``<thinking-content-<hash>>``) around the
# model's thinking, with its closing tag.
THINKING_TAG = re.compile(r"<(?P<tag>think(?:ing)?(?:-[\w-]+)?)>(?P<thought>.*?)</(?P=tag)>", re.DOTALL)


AIDER = Format(name="aider", container="text", detect=detect_aider, parse=parse_aider)
