"""Redaction of agent transcripts as the crawl does it (``pipelines.crawl.RedactWith``): how often it
fires on real traces, and whether code carried in a trace is still the same program afterwards.

    python -m bench.transcript_redaction [--traces DIR ...] [--limit N] [--max-lines N] [--max-seconds S]
                                         [--out report.json] [ROOT ...]

Two measurements:

  * ``traces``: real agent transcripts (every file under ``--traces`` the transcript readers read):
    ``<SECRET_...>`` placeholders per 10,000 lines of the rendered text, with masked samples.
  * ``code``: every ``.py`` file under ROOT (default: the standard library, then site-packages),
    carried the three ways an agent carries code: written by a tool call (``str_replace_editor
    create``, the file as a JSON-escaped argument), shown in a tool's output, and quoted in a
    fenced block of the assistant's prose. Each copy is read back from the redacted messages and
    compared with the standard ``tokenize`` module: tokens outside strings and comments must be equal.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from bench.redaction import bounded, code_tokens, default_roots, python_tokens, text_files
from codemix.document import Document
from codemix.filters.secrets import RedactionConfig
from codemix.mixtures.chat import render_messages
from codemix.mixtures.transcript_formats.canonical import message, tool_call
from codemix.pipelines.crawl import RedactWith
from codemix.pipelines.readers import read_location
from codemix.sources import SourceConfig

PLACEHOLDER = re.compile(r"<(SECRET_[A-Z0-9_]+|EMAIL|IP_ADDRESS)>")
FENCE = re.compile(r"```python\n(.*)\n```", re.DOTALL)


def carried(path: str, code: str) -> list[dict]:
    """One trace carrying ``code`` three ways: tool-call argument, tool output, fenced prose."""
    arguments = json.dumps({"command": "create", "path": path, "file_text": code})
    return [message("user", f"Please add {path}."),
            message("assistant", "I will create the file.", tool_calls=[tool_call("c1", "str_replace_editor", arguments)]),
            message("tool", f"File created successfully at: {path}", tool_call_id="c1", observation=True),
            message("assistant", "", tool_calls=[tool_call("c2", "bash", json.dumps({"command": f"cat {path}"}))]),
            message("tool", code, tool_call_id="c2", observation=True),
            message("assistant", f"Here is {path}:\n\n```python\n{code}\n```\n")]


def read_back(messages: list[dict]) -> dict[str, str]:
    """The three copies of the code, from redacted messages."""
    fenced = FENCE.search(messages[5]["content"])
    return {"tool_call": json.loads(messages[1]["tool_calls"][0]["arguments"])["file_text"],
            "tool_output": messages[4]["content"], "fenced": fenced.group(1) if fenced else ""}


def redact(doc: Document, redactor: RedactWith) -> Document:
    *_, redacted = redactor(doc)
    return redacted


def measure_code(files: Iterable[tuple[Path, str]], redactor: RedactWith, report: dict) -> None:
    for path, code in files:
        before = python_tokens(code) if path.suffix == ".py" else None
        if before is None or "```" in code:
            continue
        messages = carried(str(path), code)
        doc = Document(id=str(path), text=render_messages(messages), source="bench", kind="transcript",
                       metadata={"messages": messages})
        started = time.perf_counter()
        redacted = redact(doc, redactor)
        report["seconds"] += time.perf_counter() - started
        report["files"] += 1
        report["lines"] += code.count("\n") + 1
        report["placeholders"].update(m.group(1) for m in PLACEHOLDER.finditer(redacted.text))
        for part, text in read_back(redacted.metadata["messages"]).items():
            after = python_tokens(text)
            if after is None or code_tokens(after) != code_tokens(before):
                report["changed"][part].append(str(path))


def measure_traces(roots: Iterable[Path], redactor: RedactWith, report: dict) -> None:
    source = SourceConfig(name="traces", type="transcripts", paths=["unused"])
    for path in sorted(p for root in roots for p in root.rglob("*") if p.is_file()):
        try:
            docs = [d for d in read_location(source, str(path)) if isinstance(d, Document)]
        except (ValueError, OSError):
            continue
        for doc in docs:
            redacted = redact(doc, redactor)
            report["transcripts"] += 1
            report["lines"] += doc.text.count("\n") + 1
            for match in PLACEHOLDER.finditer(redacted.text):
                report["placeholders"][match.group(1)] += 1
                line_start = redacted.text.rfind("\n", 0, match.start()) + 1
                report["samples"].append(f"{path.name}: {redacted.text[line_start:match.end() + 60].strip()[:200]}")


def per_10k(counts: Counter, lines: int) -> float:
    secret = sum(n for kind, n in counts.items() if kind.startswith("SECRET_"))
    return round(secret / max(lines, 1) * 10_000, 3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="*", type=Path)
    parser.add_argument("--traces", nargs="*", type=Path, default=[])
    parser.add_argument("--limit", type=int, default=2000, help="code files to carry (0: all)")
    parser.add_argument("--max-lines", type=int, default=0, help="stop once this many code lines were read (0: all)")
    parser.add_argument("--max-seconds", type=float, default=0, help="stop carrying code after this much wall time")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    redactor = RedactWith(RedactionConfig())
    traces = {"transcripts": 0, "lines": 0, "placeholders": Counter(), "samples": []}
    measure_traces(args.traces, redactor, traces)
    code = {"files": 0, "lines": 0, "seconds": 0.0, "placeholders": Counter(),
            "changed": {"tool_call": [], "tool_output": [], "fenced": []}}
    files = (f for f in text_files(args.roots or default_roots()) if f[0].suffix == ".py")
    measure_code(bounded(files, args.limit, args.max_lines, args.max_seconds), redactor, code)
    summary = {
        "traces": {**traces, "secret_placeholders_per_10k_lines": per_10k(traces["placeholders"], traces["lines"]),
                   "samples": len(traces["samples"])},
        "code": {**code, "secret_placeholders_per_10k_lines": per_10k(code["placeholders"], code["lines"]),
                 "changed": {part: len(paths) for part, paths in code["changed"].items()}},
    }
    print(json.dumps(summary, indent=2, default=str))
    if args.out:
        args.out.write_text(json.dumps({"traces": traces, "code": code}, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
