"""Jupyter notebooks whose agent run exists only in what their cells printed.

A notebook that ran an agent keeps the run in its code cells' outputs: an executor's verbose log, printed
message lists, marked turns. Each code cell's printed text (streams, and the plain text of results) is
read as a text transcript would be (``parse_text``); a run that holds no task of its own takes the one the
cell's source gave the agent: the longest prose string literal of the cell (``graph.invoke({"question":
"Who ..."})``), never one it prints. A notebook none of whose outputs holds a conversation (a data-science
tutorial) is no transcript.
"""

from __future__ import annotations

import ast
import re
from typing import Any

MAX_SOURCE = 200_000
# A notebook is read cell by cell; one with more printing cells than this is refused whole (bounded work).
MAX_PRINTING_CELLS = 5_000


def is_notebook(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("cells"), list) and "nbformat" in value


def joined(text: Any) -> str:
    """A notebook's multi-line string: a string, or the list of its lines."""
    if isinstance(text, list):
        return "".join(t for t in text if isinstance(t, str))
    return text if isinstance(text, str) else ""


def cell_output(cell: dict) -> str:
    """What a code cell printed: its streams and the plain text of its results, in order."""
    parts = []
    for output in cell.get("outputs") or []:
        if not isinstance(output, dict):
            continue
        if output.get("output_type") == "stream":
            parts.append(joined(output.get("text")))
        elif isinstance(output.get("data"), dict):
            parts.append(joined(output["data"].get("text/plain")))
    return "".join(parts)


def cell_task(cell: dict) -> str:
    """The longest prose string literal a cell's source passes to a call other than ``print`` (three words
    or more); '' when there is none or the source is no Python."""
    source = joined(cell.get("source"))
    if len(source) > MAX_SOURCE:
        return ""
    try:
        tree = ast.parse("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("!", "%"))))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return ""
    printed = {id(node) for call in ast.walk(tree) if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "print"
               for node in ast.walk(call)}
    formatted = {id(node) for joined_str in ast.walk(tree) if isinstance(joined_str, ast.JoinedStr)
                 for node in ast.walk(joined_str)}
    texts = [node.value for call in ast.walk(tree) if isinstance(call, ast.Call) for node in ast.walk(call)
             if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in printed | formatted
             and len(node.value.split()) >= 3]
    return max(texts, key=len, default="")


# A file a cell names (``--feature ./demo.feature``, ``open("task.md")``): a path ending in an extension.
FILE_NAME = re.compile(r"(?<![\w/.-])(?:\.{0,2}/)?((?:[\w-]+/)*[\w-]+\.[A-Za-z]\w{0,7})(?![\w/])")
# A cell that only shows a file (``!cat spec.feature``, ``%cat spec.md``, ``!type spec.txt``).
SHOW_FILE = re.compile(r"^\s*[!%]\s*(?:cat|type|more|less|head)\s+(?:-\S+\s+)*['\"]?(?:\.{0,2}/)?([^\s'\"]+)['\"]?\s*$")


def shown_file_task(cells: list, index: int) -> str:
    """The task a run's cell hands its agent as a file the notebook showed before (``!cat demo.feature``, then
    ``!agent --feature ./demo.feature``): that earlier cell's printed text, when the run's cell names the file;
    '' when it names none the notebook showed."""
    source = joined(cells[index].get("source")) if index < len(cells) and isinstance(cells[index], dict) else ""
    named = {name.rsplit("/", 1)[-1] for name in FILE_NAME.findall(source)}
    for cell in reversed(cells[:index]):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        shown = SHOW_FILE.match(joined(cell.get("source")))
        if shown and shown.group(1).rsplit("/", 1)[-1] in named and len((text := cell_output(cell)).split()) >= 3:
            return text.strip()
    return ""


def code_cells(value: dict) -> list[tuple[int, str, dict]]:
    """``(index, printed text, cell)`` of every code cell that printed something; a ValueError when more
    than ``MAX_PRINTING_CELLS`` did."""
    cells = [(index, text, cell) for index, cell in enumerate(value["cells"])
             if isinstance(cell, dict) and cell.get("cell_type") == "code" and (text := cell_output(cell)).strip()]
    if len(cells) > MAX_PRINTING_CELLS:
        raise ValueError(f"a notebook of {len(cells)} printing cells (more than {MAX_PRINTING_CELLS})")
    return cells
