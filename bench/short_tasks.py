"""Short HumanEval tasks leaked with their prompt, edited and renamed, in files and notebook cells.

    python -m bench.short_tasks [--site-files N] [--out report.json]

Every HumanEval task (prompt + canonical solution) is pasted into a real standard-library module
(``bench.decontamination.paste``) and, apart, as a code cell of a real Jupyter notebook
(``bench.notebook_decontamination``), under these variants: verbatim, re-indented, docstring slightly
edited (one prose word in ten replaced, doctest examples untouched), identifiers renamed, edited and
renamed, wrapped as a class method, and docstring removed (a bare solution: the short ones must stay).
The filter stage decides (``DocumentFilter.benchmark_hits``: the code index and the prompted short
tasks together). Reported per variant: removed over all 164 and over the short tasks (under
``min_match_tokens``), and for idioms of the same shape (gcd, ``return x + y``, fib): removed (must be 0).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import sysconfig
import time
from pathlib import Path

from bench.decontamination import VARIANTS, paste, renamed
from bench.notebook_decontamination import DEFAULT as NOTEBOOK
from bench.notebook_decontamination import notebook_with
from codemix.document import Document
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.filters.decontamination import code_tokens, humaneval_items

WORD = re.compile(r"[A-Za-z]{3,}")
IDIOMS = {"gcd": "def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a\n",
          "add": "def add(x, y):\n    return x + y\n",
          "strlen": "def strlen(s):\n    return len(s)\n",
          "fib": "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n"}


def edited_docstrings(code: str, every: int = 10) -> str:
    """Every ``every``-th prose word (3+ letters) of each string statement replaced by ``some``; lines
    of doctest examples (``>>>`` and the output under them) are left as they are."""
    lines = code.splitlines(keepends=True)
    statements = [node for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Expr)
                  and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)]
    count, in_example = 0, False
    for node in statements:
        for i in range(node.lineno - 1, node.end_lineno):
            stripped = lines[i].strip()
            in_example = stripped.startswith(">>>") or (in_example and bool(stripped) and '"""' not in stripped)
            if in_example:
                continue

            def swap(match: re.Match[str]) -> str:
                nonlocal count
                count += 1
                return "some" if count % every == every // 2 else match.group()
            lines[i] = WORD.sub(swap, lines[i])
    return "".join(lines)


LEAK_VARIANTS = {**{k: v for k, v in VARIANTS.items() if k != "docstring_removed_renamed"},
                 "docstring_edited": edited_docstrings,
                 "docstring_edited_renamed": lambda code: renamed(edited_docstrings(code))}


def document(text: str, path: str, language: str) -> Document:
    return Document(id=path, text=text, source="bench", kind="file", path=path, language=language, license="mit")


def all_hits(checker: DocumentFilter, docs: list[Document], batch: int) -> list[tuple]:
    """``checker.benchmark_hits`` of each document; with ``batch``, their views screened ``batch`` documents at
    once (``DocumentFilter.screened_views``), as the filter stage does, where the tree has it."""
    if not batch or not hasattr(checker, "screened_views"):
        return [checker.benchmark_hits(doc) for doc in docs]
    found = []
    for start in range(0, len(docs), batch):
        part = docs[start:start + batch]
        found += [checker.benchmark_hits(doc, views) for doc, views in zip(part, checker.screened_views(part), strict=True)]
    return found


def leak_report(checker: DocumentFilter, minimum: int, batch: int = 0) -> dict:
    tasks = {item_id: text for _, item_id, text, _ in list(humaneval_items())[::2]}
    short = {item_id for item_id, text in tasks.items() if len(code_tokens(text)) < minimum}
    notebook = NOTEBOOK.read_text()
    report = {"tasks": len(tasks), "short_tasks": len(short), "variants": {}}
    cases, docs = [], []
    for variant, transform in LEAK_VARIANTS.items():
        for number, (item_id, text) in enumerate(sorted(tasks.items())):
            leaked = transform(text)
            ast.parse(leaked)  # a transformation bug fails loudly
            cases.append((variant, item_id))
            docs += [document(paste(leaked, number), "lib/util.py", "python"),
                     document(notebook_with(notebook, leaked), "nb/leak.ipynb", "jupyter notebook")]
    idioms = [document(paste(code, 0), "lib/util.py", "python") for code in IDIOMS.values()]
    found = all_hits(checker, docs + idioms, batch)
    for number, (variant, item_id) in enumerate(cases):
        row = report["variants"].setdefault(variant, {"file": 0, "file_short": 0, "notebook": 0, "notebook_short": 0,
                                                       "missed_short": []})
        in_file, in_cell = (any(hit.item_id == item_id for hit in hits) for hits in found[2 * number:2 * number + 2])
        row["file"] += in_file
        row["notebook"] += in_cell
        row["file_short"] += in_file and item_id in short
        row["notebook_short"] += in_cell and item_id in short
        if item_id in short and not (in_file and in_cell):
            row["missed_short"].append(item_id)
    report["idioms_removed"] = {name: bool(hits) for name, hits in zip(IDIOMS, found[len(docs):], strict=True)}
    return report


def site_scan(checker: DocumentFilter, count: int) -> dict:
    """The first ``count`` Python files of the standard library then site-packages: every hit listed."""
    roots = [Path(sysconfig.get_path("stdlib")), Path(sysconfig.get_path("purelib"))]
    files = [p for root in roots for p in sorted(root.rglob("*.py")) if "__pycache__" not in p.parts][:count]
    hits, lines, started = [], 0, time.perf_counter()
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        lines += text.count("\n") + 1
        hits += [{"path": str(path), "item": hit.item_id} for hit in checker.short_tasks.hits(text, "python")]
    return {"files": len(files), "lines": lines, "seconds": round(time.perf_counter() - started, 1), "hits": hits}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site-files", type=int, default=10_000)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--batch", type=int, default=64,
                        help="documents screened together, as the filter stage does; 0: one at a time")
    args = parser.parse_args(argv)
    checker = DocumentFilter(FiltersConfig())
    report = {"leaks": leak_report(checker, checker.config.decontamination.min_match_tokens, args.batch),
              "real_code": site_scan(checker, args.site_files) if args.site_files else None}
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
