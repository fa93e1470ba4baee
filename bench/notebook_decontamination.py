"""HumanEval tasks leaked into Jupyter notebooks: how many the filter stage removes when a notebook is
read as raw JSON (before issue 25) and as its cells (now), and whether idioms in a cell are kept.

    python -m bench.notebook_decontamination [NOTEBOOK]

Each task (prompt + canonical solution) is pasted as one code cell into a real notebook written by
Jupyter (default: tests/fixtures/notebook_files/wasabi-test-notebook.ipynb), below a markdown cell.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from codemix.document import Document
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.filters.decontamination import humaneval_items

DEFAULT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "notebook_files" / "wasabi-test-notebook.ipynb"
IDIOMS = {"gcd": "def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a\n",
          "fib": "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n"}


def notebook_with(base: str, code: str) -> str:
    notebook = json.loads(base)
    notebook["cells"] += [
        {"cell_type": "markdown", "id": "m1", "metadata": {}, "source": ["Trying the exercise:\n"]},
        {"cell_type": "code", "execution_count": None, "id": "c1", "metadata": {}, "outputs": [],
         "source": code.splitlines(keepends=True)}]
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    base = Path((argv or sys.argv[1:] or [str(DEFAULT)])[0]).read_text()
    checker = DocumentFilter(FiltersConfig())
    tasks = {item_id: text for _, item_id, text, _ in list(humaneval_items())[::2]}
    counts = {"tasks": len(tasks), "removed_as_raw_json": 0, "removed_as_cells": 0}
    started = time.perf_counter()
    for item_id, text in tasks.items():
        raw = notebook_with(base, text)
        doc = Document(id=item_id, text=raw, source="bench", kind="file", path="nb/leak.ipynb",
                       language="jupyter notebook", license="mit")
        counts["removed_as_raw_json"] += bool(checker.contamination.hits(raw, "jupyter notebook"))
        counts["removed_as_cells"] += bool(checker.benchmark_hits(doc))
    counts["idioms_removed_as_cells"] = sum(bool(checker.benchmark_hits(Document(
        id=name, text=notebook_with(base, code), source="bench", kind="file", path="nb/idiom.ipynb",
        language="jupyter notebook"))) for name, code in IDIOMS.items())
    counts["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(counts, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
