"""Calls and results an export writes as labelled blocks (``markdown-turns``' ``tool-blocks`` layout): a line naming the tool, then its
arguments and, where the export kept it, what it gave.

    🔧 Tool: Bash                       **Tool: read**                🔧 **Tool Use: WebFetch** (ID: toolu_01)
    Input: {                            **Input:**                    ```json
      "command": "ls"                   ```json                       {"url": "https://..."}
    }                                   {"filePath": "a.cs"}          ```
                                        ```
                                        **Output:**
                                        ```
                                        1: using System;
                                        ```

The tool line says it names a tool (``Tool``, ``Tool Use``, ``Tool Call``, ``Function Call`` and a colon, an emoji,
bold or a heading's marks around them: kimaki's ``#### 🛠️ Tool: edit``) and holds the tool's name, an id after it in brackets. Its arguments follow at once: under an
argument label (``Input:``, ``Arguments:``, ``Args:``, ``Parameters:``), as JSON on the label's line and the lines
below, a fence, or the rest of the line; or a fence right under the tool line. A result label (``Output:``,
``Result:``, ``Response:``) after them holds what the tool gave: a fence, or the lines up to a blank one. A tool
line with no arguments under it is text (a page that says "Tool: Bash" in passing). Everything between blocks is
the model's text. The calls are the model's, the results the tool's (observations, never trained or judged as
prose).

An export that is one model turn of such blocks and no turn headings (Automaker's ``agent-output.md``: the
agent's calls, then the specification it wrote) is read as that turn; its request lives elsewhere (a sibling
record: ``pipelines/readers/transcripts.py``), so on its own it is refused ``no_task``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import exported_call, message

_BOLD = r"(?:\*\*|__)?"
TOOL_LINE = re.compile(
    rf"^[ \t]*(?:#{{1,6}}[ \t]+)?(?:[^\w\s*_`#>|\[(]{{1,4}}[ \t]*)?{_BOLD}(?:[Tt]ool(?:[ \t]+(?:[Uu]se|[Cc]all))?|[Ff]unction[ \t]+[Cc]all)"
    rf"{_BOLD}[ \t]*:{_BOLD}[ \t]*`?(?P<name>[A-Za-z_][\w.:/-]{{0,80}})`?{_BOLD}"
    rf"(?:[ \t]*\((?:ID:[ \t]*)?(?P<id>[^)\n]{{1,120}})\))?[ \t]*$", re.MULTILINE)
# A call an export titles in words and reports by its status (Zed's agent thread: ``**Tool Call: List the `src`
# directory's contents**`` over ``Status: Completed``, the tool's output below it): described in the export's words.
STATUS_LINE = re.compile(
    rf"^[ \t]*(?:#{{1,6}}[ \t]+)?{_BOLD}(?:[Tt]ool(?:[ \t]+(?:[Uu]se|[Cc]all))?|[Ff]unction[ \t]+[Cc]all)[ \t]*:[ \t]*"
    rf"(?P<title>[^\n]{{1,300}}?){_BOLD}[ \t]*\n[ \t]*Status:[ \t]*(?P<status>[A-Za-z]+)[ \t]*$", re.MULTILINE)
ARGUMENT_LABEL = re.compile(rf"[ \t]*{_BOLD}(?:Input|Arguments|Args|Parameters|Params){_BOLD}[ \t]*:{_BOLD}[ \t]*")
# (after a mark of how it went and before the call's id: ``✓ Result (call_dZSe...): ...``, ``✗ Result (...)``)
RESULT_LABEL = re.compile(rf"[ \t]*(?:[^\w\s*_`#>|\[(]{{1,4}}[ \t]*)?{_BOLD}(?:Output|Result|Response|Tool Result|Tool Output){_BOLD}"
                          rf"(?:[ \t]*\([^)\n]{{1,120}}\))?[ \t]*:{_BOLD}[ \t]*")
FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})[^\n]*\n(.*?)^[ \t]*\1[ \t]*$\n?", re.MULTILINE | re.DOTALL)
BLANK_LINES = re.compile(r"(?:[ \t]*\n)*")
PARAGRAPH = re.compile(r"(.+?)(?:\n[ \t]*\n|\Z)", re.DOTALL)
MIN_BLOCKS_ALONE = 2  # a file that is nothing but blocks: one is a page's example, two a run


def written_blocks(text: str) -> list[dict[str, Any]] | None:
    """The model's text, its calls and the tools' results of a text holding tool blocks, in order, as canonical
    messages (the calls and results each a message; callers join a turn's parts); None when it holds none."""
    out: list[dict[str, Any]] = []
    at = 0
    statuses = list(STATUS_LINE.finditer(text))
    lines = sorted([*TOOL_LINE.finditer(text), *statuses], key=lambda m: m.start())
    for line in lines:
        if line.start() < at:
            continue  # inside the block before it (a result that quotes a tool line)
        if line.re is STATUS_LINE:
            # the output runs to the next call the export reports so (a listing's blank lines are the output's)
            stop = next((m.start() for m in statuses if m.start() > line.end()), len(text))
            title = line.group("title").strip().strip("*").strip()
            call = exported_call(None, title.split()[0].strip("`"), title)
            block = call, text[line.end():stop].strip() or line.group("status"), stop
        else:
            block = _block(text, line)
        if block is None:
            continue
        call, result, end = block
        if prose := text[at:line.start()].strip():
            out.append(message("assistant", prose))
        out.append(message("assistant", tool_calls=[call]))
        if result is not None:
            out.append(message("tool", result, observation=True))
        at = end
    if not out:
        return None
    if prose := text[at:].strip():
        out.append(message("assistant", prose))
    return out


def _block(text: str, line: re.Match) -> tuple[dict[str, Any], str | None, int] | None:
    """``(call, result or None, end)`` of the block a tool line opens, or None when no arguments follow it."""
    at = BLANK_LINES.match(text, line.end() + 1).end() if line.end() < len(text) else len(text)
    label = ARGUMENT_LABEL.match(text, at)
    arguments = _value(text, label.end() if label else at, inline=label is not None)
    if arguments is None:
        return None
    value, at = arguments
    call = exported_call(line.group("id"), line.group("name"), value)
    following = BLANK_LINES.match(text, at).end()
    result_label = RESULT_LABEL.match(text, following)
    if result_label is None:
        return call, None, at
    result = _value(text, result_label.end(), inline=True, parse_json=False)
    if result is None:
        return call, "", result_label.end()
    return call, result[0], result[1]


def _value(text: str, at: int, *, inline: bool, parse_json: bool = True) -> tuple[Any, int] | None:
    """What a label holds from ``at``: a fence (JSON inside read as such), JSON written on from the label's line, or
    (after a label) the rest of its line and the lines below it up to a blank line. ``(value, end)`` or None."""
    rest_of_line = text[at:text.find("\n", at) if "\n" in text[at:] else len(text)].strip()
    start = BLANK_LINES.match(text, at).end() if not rest_of_line else at
    fence = FENCE.match(text, start)
    if fence:
        body = fence.group(2).rstrip("\n")
        return (_json_or_text(body) if parse_json else body), fence.end()
    if parse_json and text[start:start + 1] in "{[" and text[start:start + 1]:
        try:
            value, end = json.JSONDecoder().raw_decode(text, start)
        except ValueError:
            value = None
        if isinstance(value, (dict, list)):
            return value, end
    if not inline or not rest_of_line:
        return None
    paragraph = PARAGRAPH.match(text, at)
    return paragraph.group(1).strip(), paragraph.end(1)


def _json_or_text(body: str) -> Any:
    try:
        value = json.loads(body)
    except ValueError:
        return body
    return value if isinstance(value, (dict, list)) else body


def detect_tool_blocks(text: Any) -> bool:
    """A text of no turn headings whose blocks are the most of it: ``MIN_BLOCKS_ALONE`` calls or more, and its
    prose only around them (the turn's words before, between and after)."""
    if not isinstance(text, str) or len(TOOL_LINE.findall(text)) < MIN_BLOCKS_ALONE:
        return False
    messages = written_blocks(text)
    return bool(messages) and sum(1 for m in messages if m["tool_calls"]) >= MIN_BLOCKS_ALONE


# A line typed at a CLI's prompt: its name and a prompt sign (``cody> chat can you ...``) or the sign alone.
PROMPT_LINE = re.compile(r"\A[ \t]*(?:[A-Za-z][\w.-]{0,30})?[>❯›][ \t]+(?P<typed>\S[^\n]*)")


def parse_tool_blocks(text: str) -> list[Transcript]:
    """The one model turn (its calls joined) and the tools' results the text holds; a terminal's copy that opens with
    a line typed at the CLI's prompt has that line as the person's request."""
    parts = written_blocks(text) or []
    if parts and not parts[0]["tool_calls"] and (typed := PROMPT_LINE.match(parts[0]["content"])):
        rest = parts[0]["content"][typed.end():].strip()
        parts[:1] = [message("user", typed.group("typed").strip()), *([message("assistant", rest)] if rest else [])]
    merged: list[dict[str, Any]] = []
    for part in parts:
        if merged and part["role"] == "assistant" == merged[-1]["role"]:
            merged[-1]["tool_calls"] += part["tool_calls"]
            merged[-1]["content"] = "\n\n".join(filter(None, [merged[-1]["content"], part["content"]]))
        else:
            merged.append(part)
    return [Transcript(format="markdown-turns", extra={"layout": "tool-blocks"}, messages=merged)]


# (a layout of ``markdown-turns``: an export's Markdown whose one turn is the model's, its calls written as blocks)
TOOL_BLOCKS = Format(name="markdown-turns", container="text", detect=detect_tool_blocks, parse=parse_tool_blocks)
