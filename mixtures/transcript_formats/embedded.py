"""Data a Markdown page holds: its tables as lists of row objects, its fenced code blocks that are JSON.

A page that reports model conversations often keeps them as data inside its prose: a table per dialogue
(``| 轮数 | 用户 | MindChat |``, a row per round) or a JSON document in a code fence. Each such value is then
read like a JSON file (by its shape), so no Markdown-specific speaker rule is needed here.
"""

from __future__ import annotations

import json
import re
from typing import Any

# A fenced block: ``` or ~~~ (three or more), an optional info string, the body, the same fence closing it.
FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})[^\n`]*\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.DOTALL | re.MULTILINE)
# A table's delimiter row: cells of dashes with optional alignment colons (``| :---: | --- |``).
DELIMITER_CELL = re.compile(r"^\s*:?-{3,}:?\s*$")
# An unescaped cell separator.
PIPE = re.compile(r"(?<!\\)\|")
MAX_REPAIRS = 20
MAX_VALUES = 200  # tables and fenced documents read per page (bounded work on a hostile page)
MAX_ROWS = 5_000  # rows of one table: a larger one is a data dump, not a dialogue shown on a page


def cells(line: str) -> list[str]:
    """A table row's cells, without the outer pipes; ``\\|`` inside a cell is a literal pipe."""
    line = line.strip()
    line = line.removeprefix("|")
    line = line[:-1] if line.endswith("|") and not line.endswith("\\|") else line
    return [cell.strip().replace("\\|", "|") for cell in PIPE.split(line)]


def markdown_tables(text: str) -> list[list[dict[str, str]]]:
    """Every GitHub-style table of a page (a header row, a delimiter row, then rows) as row objects keyed by
    the header's cells; tables of fewer than two columns or two rows, of more than ``MAX_ROWS`` rows, or
    whose rows hold another number of cells than the header are left out; at most ``MAX_VALUES`` tables.
    One pass over the lines."""
    tables: list[list[dict[str, str]]] = []
    lines = text.splitlines()
    i = 0
    while i + 1 < len(lines):
        head, rule = lines[i], lines[i + 1]
        if "|" in head and "|" in rule and all(DELIMITER_CELL.match(c) for c in cells(rule)):
            header = cells(head)
            rows = []
            i += 2
            ragged = False
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                row = cells(lines[i])
                ragged = ragged or len(row) != len(header)
                if not ragged and len(rows) <= MAX_ROWS:
                    rows.append(dict(zip(header, row)))
                i += 1
            if len(header) >= 2 and len(set(header)) == len(header) and 2 <= len(rows) <= MAX_ROWS and not ragged:
                tables.append(rows)  # a table whose rows disagree with its header on the cells is no record list
                if len(tables) >= MAX_VALUES:
                    break
            continue
        i += 1
    return tables


def loads_lenient(body: str) -> Any:
    """A JSON document as a person wrote it by hand: exactly, or with its two usual slips mended where the
    decoder stops: a comma forgotten between two members (``] "next":``) put back, a comma left before a
    closing bracket (``},\n]``) taken out; None when it still does not parse."""
    for _ in range(MAX_REPAIRS + 1):
        try:
            return json.loads(body)
        except json.JSONDecodeError as error:
            before = body[:error.pos].rstrip()
            if error.msg.startswith("Expecting ',' delimiter"):
                body = body[:error.pos] + "," + body[error.pos:]
            elif before.endswith(",") and body[error.pos:error.pos + 1] in "]}" and body[error.pos:error.pos + 1]:
                body = before[:-1] + body[len(before):]
            else:
                return None
    return None


def fenced_json(text: str) -> list[Any]:
    """The JSON objects and arrays a page keeps in fenced code blocks, in page order."""
    found = []
    for match in FENCE.finditer(text):
        body = match.group("body").strip()
        if body[:1] in "{[" and (value := loads_lenient(body)) is not None and isinstance(value, (dict, list)):
            found.append(value)
            if len(found) >= MAX_VALUES:
                break
    return found


def page_values(text: str) -> list[Any]:
    """The data values of a Markdown page: its fenced JSON documents, then its tables."""
    if "|" not in text and "```" not in text and "~~~" not in text:
        return []
    return [*fenced_json(text), *markdown_tables(text)]


__all__ = ["fenced_json", "loads_lenient", "markdown_tables", "page_values"]
