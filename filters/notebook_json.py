"""A Jupyter notebook kept as a JSON file (a source without ``notebooks:``), read as its cells.

Each cell's source is decoded from the JSON and comes with ``offsets``: where each of its characters
starts in the raw file (and where its last string ends), so a span found in the decoded source maps
back to the file; ``breaks`` are the decoded positions where the next JSON string of a source list
begins (a span across them must be cut there, or the JSON would lose its quotes and commas). Code
cells are in the kernel's language, markdown and raw cells are prose, stream and text outputs are
tool output. Decontamination and redaction read ``.ipynb`` files this way (notebook *documents*,
already text in StarCoder2's layouts, are ``filters.notebooks``').
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from codemix.filters.notebooks import file_language, kernel_language

NOTEBOOK = "jupyter notebook"
JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.DOTALL)
ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class Cell(NamedTuple):
    kind: str  # "code", "markdown", "raw" or "output"
    language: str  # the kernel's for code cells; "" (prose) otherwise
    text: str
    offsets: tuple[int, ...]  # raw offset of each character, then the end of the last string
    breaks: tuple[int, ...]  # decoded positions where another JSON string starts


def is_notebook(path: str, language: str) -> bool:
    return language == NOTEBOOK or path.lower().endswith(".ipynb")


def notebook_cells(raw: str) -> list[Cell] | None:
    """The cells (and text outputs) of a notebook's raw JSON, in order; None if it is not a notebook."""
    try:
        notebook = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        return None
    language = file_language(kernel_language(notebook))
    kinds = [c.get("cell_type", "") if isinstance(c, dict) else "" for c in notebook["cells"]]
    pieces: dict[tuple[Any, ...], list[tuple[int, int]]] = {}
    for path, start, end in json_strings(raw):
        in_cell = len(path) >= 3 and path[0] == "cells" and isinstance(path[1], int) and path[1] < len(kinds)
        if in_cell and (path[2] == "source" or (path[2] == "outputs" and len(path) >= 5 and path[4] == "text")):
            owner = path[:3] if path[2] == "source" else path[:4]
            pieces.setdefault(owner, []).append((start, end))
    cells = []
    for owner, strings in pieces.items():
        kind = kinds[owner[1]] if owner[2] == "source" else "output"
        cells.append(_cell(raw, kind, language if kind == "code" else "", strings))
    return cells


def _cell(raw: str, kind: str, language: str, strings: list[tuple[int, int]]) -> Cell:
    text: list[str] = []
    offsets: list[int] = []
    breaks: list[int] = []
    for start, end in strings:
        if text:
            breaks.append(len(offsets))
        chars, where = decode_string(raw, start, end)
        text.append(chars)
        offsets += where[:-1]
    offsets.append(strings[-1][1] - 1)
    return Cell(kind, language, "".join(text), tuple(offsets), tuple(breaks))


def decode_string(raw: str, start: int, end: int) -> tuple[str, list[int]]:
    """The JSON string ``raw[start:end]`` (quotes included), decoded, with each character's raw offset
    and, last, the closing quote's."""
    chars: list[str] = []
    offsets: list[int] = []
    i = start + 1
    while i < end - 1:
        offsets.append(i)
        if raw[i] != "\\":
            chars.append(raw[i])
            i += 1
        elif raw[i + 1] == "u":
            chars.append(chr(int(raw[i + 2:i + 6], 16)))  # a surrogate stays a half: only offsets matter here
            i += 6
        else:
            chars.append(ESCAPES.get(raw[i + 1], raw[i + 1]))
            i += 2
    offsets.append(end - 1)
    return "".join(chars), offsets


def json_strings(raw: str) -> Iterator[tuple[tuple[Any, ...], int, int]]:
    """``(path, start, end)`` of every string *value* in valid JSON text: the keys and indices leading to it."""
    stack: list[list[Any]] = []  # per open container: [kind, key or index]
    expecting_key = False
    for token in JSON_TOKEN.finditer(raw):
        t = token.group()
        if t in "{[":
            stack.append([t, None if t == "{" else 0])
            expecting_key = t == "{"
        elif t in "}]":
            stack.pop()
            expecting_key = False
        elif t == ":":
            expecting_key = False
        elif t == ",":
            if stack and stack[-1][0] == "[":
                stack[-1][1] += 1
            expecting_key = bool(stack) and stack[-1][0] == "{"
        elif t.startswith('"') and expecting_key:
            stack[-1][1] = json.loads(t)
        elif t.startswith('"'):
            yield tuple(level[1] for level in stack), token.start(), token.end()
