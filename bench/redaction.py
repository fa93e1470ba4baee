"""Redaction on real clean code: how often it fires, whether it ever cuts into an identifier, and
whether redacted Python is still the same program.

    python -m bench.redaction [--out report.json] [--limit N] [--max-lines N] [--max-seconds S] [ROOT ...]

Default roots: the standard library on disk (tests included) and this interpreter's site-packages.
Every readable UTF-8 text file up to 1 MB (the filter stage's ``max_bytes``) is redacted as the
crawl would (``redact_document``, language from the path); a file whose bytes were already read
(the same module in two Pythons) is counted once. Reported:

  * ``secret_placeholders_per_10k_lines``: ``<SECRET_...>`` placeholders per 10,000 lines (EMAIL
    and IP_ADDRESS are counted apart: author addresses are real PII);
  * ``in_identifier``: spans that overlap a NAME token of the standard ``tokenize`` module (Python),
    or that have identifier characters on both sides (other files): both must be 0;
  * ``tokenize``: every Python file that tokenizes before redaction must tokenize after it to the
    same (type, string) tokens outside STRING and COMMENT tokens;
  * ``samples``: each SECRET_* redaction with its line, the value masked, to judge by hand.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import sysconfig
import time
import tokenize
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from codemix.document import Document
from codemix.filters.secrets import RedactionConfig, redact_document, redaction_spans
from codemix.pipelines.readers.language import detect_language

MAX_BYTES = 1_000_000
WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
OPAQUE = (tokenize.STRING, tokenize.COMMENT)


def default_roots() -> list[Path]:
    return [Path(sysconfig.get_path("stdlib")), Path(sysconfig.get_path("purelib"))]


def text_files(roots: Iterable[Path]) -> Iterator[tuple[Path, str]]:
    """Every readable UTF-8 text file under ``roots`` (no NUL byte, at most ``MAX_BYTES``), sorted,
    each distinct content once; the standard library's own site-packages is left to the second root."""
    seen: set[bytes] = set()
    for root in roots:
        for path in sorted(root.rglob("*")):
            parts = path.relative_to(root).parts
            if "__pycache__" in parts or parts[:1] == ("site-packages",) or not path.is_file():
                continue
            try:
                data = path.read_bytes()
                text = data.decode("utf-8") if len(data) <= MAX_BYTES and b"\0" not in data else None
            except (OSError, UnicodeDecodeError):
                continue
            digest = hashlib.blake2b(data, digest_size=16).digest()
            if text is not None and digest not in seen:
                seen.add(digest)
                yield path, text


def python_tokens(text: str) -> list[tokenize.TokenInfo] | None:
    """The standard tokenizer's tokens, or None when it rejects the text (Python 2 files, fixtures)."""
    try:
        return list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError, ValueError):
        return None


def code_tokens(tokens: list[tokenize.TokenInfo]) -> list[tuple[int, str]]:
    """(type, string) of every token that is not a string literal or a comment: the program's shape."""
    return [(t.type, t.string) for t in tokens if t.type not in OPAQUE]


def name_spans(text: str, tokens: list[tokenize.TokenInfo]) -> list[tuple[int, int]]:
    """Character offsets of every NAME token (identifiers, keywords, soft keywords)."""
    starts = [0]
    for line in io.StringIO(text):
        starts.append(starts[-1] + len(line))
    return [(starts[t.start[0] - 1] + t.start[1], starts[t.end[0] - 1] + t.end[1])
            for t in tokens if t.type == tokenize.NAME]


def in_identifier(text: str, span: tuple[int, int], names: list[tuple[int, int]] | None) -> bool:
    """Does a redacted span cut into code? Python: it overlaps a NAME token; else identifier
    characters touch it on both sides (``assert_<SECRET>_ok``)."""
    start, end = span
    if names is not None:
        return any(s < end and start < e for s, e in names)
    return 0 < start and end < len(text) and text[start - 1] in WORD and text[end] in WORD


def masked_context(text: str, start: int, end: int, kind: str) -> str:
    """The line around a span with the span itself masked (the value never leaves the report)."""
    line_start, line_end = text.rfind("\n", 0, start) + 1, text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    return (text[max(line_start, start - 80):start] + f"<{kind}>" + text[end:min(line_end, end + 80)]).strip()


def measure_file(path: Path, text: str, config: RedactionConfig, report: dict) -> None:
    language = detect_language(str(path), text)
    doc = Document(id=str(path), text=text, source="bench", kind="file", path=str(path), language=language)
    started = time.perf_counter()
    redacted, counts = redact_document(doc, config)
    report["seconds"] += time.perf_counter() - started
    report["files"] += 1
    report["lines"] += text.count("\n") + 1
    report["counts"].update(counts)
    if not counts:
        return
    spans = redaction_spans(text, config, language or "")
    is_python = path.suffix == ".py"
    before = python_tokens(text) if is_python else None
    names = name_spans(text, before) if before is not None else None
    for start, end, kind in spans:
        if in_identifier(text, (start, end), names):
            report["in_identifier"].append({"path": str(path), "context": masked_context(text, start, end, kind)})
        if kind.startswith("SECRET_"):
            report["samples"].append({"path": str(path), "kind": kind, "context": masked_context(text, start, end, kind)})
    if before is not None:
        report["tokenize"]["redacted_python_files"] += 1
        after = python_tokens(redacted.text)
        if after is None or code_tokens(after) != code_tokens(before):
            report["tokenize"]["changed"].append(str(path))


def bounded(files: Iterable[tuple[Path, str]], max_files: int = 0, max_lines: int = 0,
            max_seconds: float = 0) -> Iterator[tuple[Path, str]]:
    """``files`` until any bound (0: none) is reached, with a progress line on stderr every 2,000 files."""
    started, lines = time.perf_counter(), 0
    for i, (path, text) in enumerate(files):
        elapsed = time.perf_counter() - started
        if (max_files and i >= max_files) or (max_lines and lines >= max_lines) or (max_seconds and elapsed >= max_seconds):
            return
        if i % 2000 == 0:
            print(f"{i} files, {lines} lines, {elapsed:.0f} s: {path}", file=sys.stderr, flush=True)
        lines += text.count("\n") + 1
        yield path, text


def measure(files: Iterable[tuple[Path, str]], config: RedactionConfig | None = None) -> dict:
    """The report for ``files`` (see the module docstring)."""
    config = config or RedactionConfig()
    report = {"files": 0, "lines": 0, "seconds": 0.0, "counts": Counter(), "in_identifier": [], "samples": [],
              "tokenize": {"redacted_python_files": 0, "changed": []}}
    for path, text in files:
        measure_file(path, text, config, report)
    secret = sum(n for kind, n in report["counts"].items() if kind.startswith("SECRET_"))
    report["secret_placeholders"] = secret
    report["secret_placeholders_per_10k_lines"] = round(secret / max(report["lines"], 1) * 10_000, 4)
    report["lines_per_second"] = round(report["lines"] / max(report["seconds"], 1e-9))
    report["counts"] = dict(report["counts"].most_common())
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="*", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--limit", type=int, default=0, help="stop after this many files (0: all)")
    parser.add_argument("--max-lines", type=int, default=0, help="stop once this many lines were read (0: all)")
    parser.add_argument("--max-seconds", type=float, default=0, help="stop after this much wall time (0: none)")
    args = parser.parse_args(argv)
    files = bounded(text_files(args.roots or default_roots()), args.limit, args.max_lines, args.max_seconds)
    started = time.perf_counter()
    report = measure(files)
    report["wall_seconds"] = round(time.perf_counter() - started, 1)
    summary = {k: v for k, v in report.items() if k not in ("samples",)}
    summary["tokenize"] = {"redacted_python_files": report["tokenize"]["redacted_python_files"],
                           "changed": len(report["tokenize"]["changed"])}
    summary["in_identifier"] = len(report["in_identifier"])
    print(json.dumps(summary, indent=2))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
