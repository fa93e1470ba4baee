"""Jupyter notebooks as text: cells read from nbformat 3 or 4 JSON and written in StarCoder2's two
layouts (Lozhkov et al., 2024, sec. 2.6). Pure functions; docs/notebooks.md says what each keeps.

* ``script``: the code cells in the kernel's language, markdown cells as line comments of that
  language, cells separated by a blank line; outputs are never kept (as jupytext writes a script).
* ``cells``: ``<jupyter_start>``, then per cell ``<jupyter_text>`` markdown or ``<jupyter_code>``
  code, each code cell followed by ``<jupyter_output>`` and its text outputs (images and other
  binary data removed, each output cut at ``max_output_chars``) or ``<empty_output>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from codemix.sources import NotebookConfig

START, TEXT, CODE, OUTPUT, EMPTY = "<jupyter_start>", "<jupyter_text>", "<jupyter_code>", "<jupyter_output>", "<empty_output>"
# Line comments per kernel language (kernelspec.language or language_info.name, lower case).
COMMENT_PREFIXES = {
    **dict.fromkeys(("python", "r", "julia", "ruby", "bash", "sh", "shell", "perl", "powershell", "nim", "crystal",
                     "coconut", "sage"), "#"),
    **dict.fromkeys(("javascript", "typescript", "java", "scala", "kotlin", "c", "c++", "cpp", "c#", "csharp", "f#",
                     "fsharp", "go", "rust", "swift", "dart", "groovy"), "//"),
    **dict.fromkeys(("haskell", "lua", "sql", "ada", "elm"), "--"),
    **dict.fromkeys(("matlab", "octave", "erlang", "prolog", "tex"), "%"),
    **dict.fromkeys(("clojure", "scheme", "racket", "common-lisp", "lisp"), ";;"),
}
# Names a kernel gives its language -> the name language detection uses for files.
LANGUAGE_ALIASES = {"python3": "python", "python2": "python", "ipython": "python", "c++": "cpp", "c#": "csharp",
                    "f#": "fsharp", "sh": "shell", "bash": "shell"}
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class NotebookError(ValueError):
    """The JSON is not a notebook nbformat 3 or 4 describes."""


@dataclass(slots=True, kw_only=True)
class Cell:
    kind: str  # "code" or "markdown" (raw cells count as markdown: prose, not run)
    source: str
    outputs: list[str] = field(default_factory=list)  # text of each kept output
    dropped_outputs: int = 0  # images and other non-text outputs removed


def kernel_language(notebook: dict[str, Any]) -> str:
    """The kernel's language, lower case ("python" when the notebook does not say)."""
    metadata = notebook.get("metadata") if isinstance(notebook.get("metadata"), dict) else {}
    kernelspec, info = (value if isinstance(value, dict) else {} for value in (metadata.get("kernelspec"),
                                                                              metadata.get("language_info")))
    for value in (kernelspec.get("language"), info.get("name"), metadata.get("language")):
        if isinstance(value, str) and value.strip():
            return value.strip().lower()
    return "python"


def file_language(kernel: str) -> str:
    """The language name files of that kernel's language get (``python3`` -> ``python``)."""
    return LANGUAGE_ALIASES.get(kernel, kernel)


def read_cells(notebook: Any, max_output_chars: int) -> list[Cell]:
    """Every cell of an nbformat 4 (``cells``) or 3 (``worksheets[].cells``) notebook."""
    if not isinstance(notebook, dict) or notebook.get("nbformat") not in (3, 4):
        raise NotebookError("not a Jupyter notebook: no nbformat 3 or 4")
    raw = notebook.get("cells") if notebook["nbformat"] == 4 else [
        cell for sheet in notebook.get("worksheets") or [] if isinstance(sheet, dict) for cell in sheet.get("cells") or []]
    if not isinstance(raw, list) or not all(isinstance(cell, dict) for cell in raw):
        raise NotebookError("not a Jupyter notebook: its cells are not a list of objects")
    return [_cell(cell, max_output_chars) for cell in raw]


def _cell(cell: dict[str, Any], max_output_chars: int) -> Cell:
    kind = cell.get("cell_type")
    source = _joined(cell.get("source", cell.get("input", "")))
    if kind == "heading":  # nbformat 3: a markdown heading of ``level``
        source = "#" * int(cell.get("level") or 1) + " " + source
    if kind != "code":
        return Cell(kind="markdown", source=source)
    outputs = [o for o in (cell.get("outputs") or []) if isinstance(o, dict)]
    texts = [output_text(o, max_output_chars) for o in outputs] if max_output_chars > 0 else []
    return Cell(kind="code", source=source, outputs=[t for t in texts if t],
                dropped_outputs=len(outputs) - sum(1 for t in texts if t))


def output_text(output: dict[str, Any], max_chars: int) -> str | None:
    """An output's text (stream, ``text/plain`` result, error name and message), cut at ``max_chars``;
    None for images and other data without text."""
    kind = output.get("output_type")
    if kind == "stream":
        text = _joined(output.get("text", ""))
    elif kind in ("error", "pyerr"):
        text = _ANSI.sub("", f"{output.get('ename', '')}: {output.get('evalue', '')}")
    else:  # execute_result, display_data (v4: under "data"); pyout (v3: keys at the top)
        data = output.get("data") if isinstance(output.get("data"), dict) else output
        text = _joined(data.get("text/plain", data.get("text", "")))
    text = text.rstrip("\n")
    return (text[:max_chars] + f"\n... [{len(text) - max_chars} more characters]" if len(text) > max_chars
            else text) or None


def _joined(value: Any) -> str:
    if isinstance(value, list):
        return "".join(part for part in value if isinstance(part, str))
    return value if isinstance(value, str) else ""


def script_text(cells: list[Cell], kernel: str) -> str:
    """The script layout: code as is, markdown as ``prefix`` comments, blank line between cells.
    In a Python kernel IPython's magics and shell escapes are commented out, as jupytext does: a
    line magic (``%time``, ``!pip``) alone, a cell magic (``%%javascript``) with its whole cell."""
    prefix = COMMENT_PREFIXES[kernel]
    parts = [_commented(cell.source, prefix) if cell.kind == "markdown" or _is_cell_magic(cell, kernel)
             else _code(cell.source, prefix, kernel) for cell in cells if cell.source.strip()]
    return "\n\n".join(parts) + "\n" if parts else ""


def _commented(text: str, prefix: str) -> str:
    return "\n".join(f"{prefix} {line}".rstrip() for line in text.rstrip("\n").split("\n"))


def _is_cell_magic(cell: Cell, kernel: str) -> bool:
    return file_language(kernel) == "python" and cell.source.lstrip().startswith("%%")


def _code(source: str, prefix: str, kernel: str) -> str:
    lines = source.rstrip("\n").split("\n")
    if file_language(kernel) == "python":
        lines = [f"{prefix} {line}" if line.startswith(("%", "!")) else line for line in lines]
    return "\n".join(lines)


def cells_text(cells: list[Cell]) -> str:
    """The structured layout with StarCoder2's cell markers."""
    parts = [START]
    for cell in cells:
        if cell.kind == "markdown":
            parts += [TEXT, cell.source]
        else:
            parts += [CODE, cell.source, OUTPUT if cell.outputs else EMPTY, "\n".join(cell.outputs)]
    return "".join(parts)


def notebook_text(cells: list[Cell], kernel: str, config: NotebookConfig) -> str:
    return script_text(cells, kernel) if config.layout == "script" else cells_text(cells)


def notebook_code(text: str) -> str:
    """The code cells of a ``cells``-layout text, one after another: what decontamination reads as code."""
    pieces = re.split(f"({re.escape(TEXT)}|{re.escape(CODE)}|{re.escape(OUTPUT)}|{re.escape(EMPTY)})", text)
    return "\n".join(body for marker, body in zip(pieces[1::2], pieces[2::2]) if marker == CODE)
