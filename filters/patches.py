"""Unified diffs as git prints them: each ``diff --git`` block's paths, status and added lines."""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(slots=True, kw_only=True)
class FileDiff:
    """One ``diff --git`` block: the file it changes, whether git called it binary, and its new side."""

    path: str
    old_path: str
    status: str = "modified"  # added | deleted | modified | renamed | copied
    binary: bool = False
    added: list[str] = field(default_factory=list)  # '+' lines of its hunks, the '+' removed
    head: list[str] = field(default_factory=list)  # first lines of the new file, when a hunk starts at line 1


_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_ESCAPES = {"a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


def parse_patch(text: str, head_lines: int = 0) -> list[FileDiff]:
    """The ``diff --git`` blocks of ``text`` (anything before the first is the message), each with
    its path, status, binary flag and new-side lines (and its first ``head_lines`` when a hunk starts the file)."""
    files: list[FileDiff] = []
    in_hunk, new_line = False, 0
    for line in text.split("\n"):
        if line.startswith("diff --git "):
            files.append(_block_start(line))
            in_hunk = False
        elif not files:
            continue
        elif in_hunk and line[:1] in ("+", " ", "-", "\\"):
            new_line = _hunk_line(files[-1], line, new_line, head_lines)
        elif match := _HUNK.match(line):
            in_hunk, new_line = True, int(match.group(1))
        else:
            _header_line(files[-1], line)
    return files


@dataclass(slots=True)
class HunkSides:
    """The lines a file's hunks show of its old and of its new version, each as (offset of the line's
    content in the diff text, the content without its ``-``/``+``/`` `` marker); context lines are in both."""

    path: str
    old: list[tuple[int, str]] = field(default_factory=list)
    new: list[tuple[int, str]] = field(default_factory=list)


def hunk_sides(text: str) -> list[HunkSides]:
    """Each ``diff --git`` block's hunks as its two sides, so each side can be read as the file it was."""
    sides: list[HunkSides] = []
    in_hunk, position = False, 0
    for line in text.split("\n"):
        start, position = position, position + len(line) + 1
        if line.startswith("diff --git "):
            sides.append(HunkSides(path=_block_start(line).path))
            in_hunk = False
        elif not sides:
            continue
        elif in_hunk and line[:1] in ("+", " ", "-"):
            if line[:1] != "+":
                sides[-1].old.append((start + 1, line[1:]))
            if line[:1] != "-":
                sides[-1].new.append((start + 1, line[1:]))
        elif _HUNK.match(line):
            in_hunk = True
        elif line.startswith("+++ ") and line != "+++ /dev/null":
            sides[-1].path = unquote(line[4:]).removeprefix("b/")
        elif in_hunk and line[:1] != "\\":
            in_hunk = False
    return sides


def _hunk_line(diff: FileDiff, line: str, new_line: int, head_lines: int) -> int:
    """Record one hunk line; returns the new side's next line number."""
    if line[:1] == "+":
        diff.added.append(line[1:])
    if line[:1] in ("+", " "):
        if new_line <= head_lines and len(diff.head) == new_line - 1:
            diff.head.append(line[1:])
        return new_line + 1
    return new_line


def _block_start(line: str) -> FileDiff:
    rest = line[len("diff --git "):]
    n = (len(rest) - 5) // 2  # "a/P b/P": the same path twice when the block is no rename
    path = rest[2:2 + n] if rest == f"a/{rest[2:2 + n]} b/{rest[2:2 + n]}" else rest
    return FileDiff(path=path, old_path=path)


def _header_line(diff: FileDiff, line: str) -> None:
    for prefix, status in (("new file mode", "added"), ("deleted file mode", "deleted")):
        if line.startswith(prefix):
            diff.status = status
    if line.startswith(("rename to ", "copy to ")):
        diff.path = unquote(line.split(" ", 2)[2])
        diff.status = "renamed" if line.startswith("rename") else "copied"
    elif line.startswith(("rename from ", "copy from ")):
        diff.old_path = unquote(line.split(" ", 2)[2])
    elif line.startswith("+++ ") and line != "+++ /dev/null":
        diff.path = unquote(line[4:]).removeprefix("b/")
    elif line.startswith("--- ") and line != "--- /dev/null":
        diff.old_path = unquote(line[4:]).removeprefix("a/")
    elif line.startswith(("Binary files ", "GIT binary patch")):
        diff.binary = True


def unquote(name: str) -> str:
    """A path as git prints it: verbatim, or in double quotes with C escapes (``\\303\\251`` for é)."""
    if not (len(name) >= 2 and name[0] == name[-1] == '"'):
        return name
    out, i, body = bytearray(), 0, name[1:-1]
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            if body[i + 1] in "01234567":
                out.append(int(body[i + 1:i + 4], 8))
                i += 4
                continue
            out += _ESCAPES.get(body[i + 1], body[i + 1]).encode()
            i += 2
        else:
            out += body[i].encode()
            i += 1
    return out.decode("utf-8", "backslashreplace")
