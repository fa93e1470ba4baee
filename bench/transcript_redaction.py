"""Redaction of agent transcripts as the crawl does it (``pipelines.crawl.RedactWith``): how often it
fires on real traces, and whether code carried in a trace is still the same program afterwards.

    python -m bench.transcript_redaction [--traces DIR ...] [--limit N] [--max-lines N] [--max-seconds S]
                                         [--git GIT_DIR ...] [--chunks FILE] [--chunk-files N]
                                         [--out report.json] [ROOT ...]

Two measurements:

  * ``traces``: real agent transcripts (every file under ``--traces`` the transcript readers read):
    ``<SECRET_...>`` placeholders per 10,000 lines of the rendered text, with masked samples.
  * ``code``: every ``.py`` file under each ROOT (default: the standard library, then site-packages)
    and every code file at HEAD of each ROOT that is a bare git repository (``git ls-tree``/``cat-file``,
    no checkout), in the order given, then those of each ``--git``; each distinct file carried the three
    ways an agent carries code: written by a tool call (``str_replace_editor create``, the file as a
    JSON-escaped argument), shown in a tool's output, and quoted in a fenced block of the assistant's prose. Each copy is read back from the redacted
    messages and compared with the original: tokens outside strings and comments must be equal
    (Python: the standard ``tokenize`` module; other languages: their Pygments lexer). A copy that is
    byte-identical to the original has the same tokens and is not tokenized again.

``--chunks FILE`` makes the code measurement resumable: a JSON line per ``--chunk-files`` files is
appended (counts, changed files, placeholder samples), and a rerun skips the files those lines cover.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path

from pygments.lexers import get_lexer_by_name
from pygments.token import Comment, String
from pygments.util import ClassNotFound

from bench.redaction import code_tokens, default_roots, python_tokens, text_files
from codemix.document import Document
from codemix.filters.secrets import CODE_LANGUAGES, RedactionConfig
from codemix.mixtures.chat import render_messages
from codemix.mixtures.transcript_formats.canonical import message, tool_call
from codemix.pipelines.crawl import RedactWith
from codemix.pipelines.readers import read_location
from codemix.pipelines.readers.language import detect_language
from codemix.sources import SourceConfig

PLACEHOLDER = re.compile(r"<(SECRET_[A-Z0-9_]+|EMAIL|IP_ADDRESS)>")
FENCE = re.compile(r"```[^\n]*\n(.*)\n```", re.DOTALL)
PARTS = ("tool_call", "tool_output", "fenced")
MAX_BYTES = 1_000_000


def carried(path: str, code: str, fence: str = "python") -> list[dict]:
    """One trace carrying ``code`` three ways: tool-call argument, tool output, fenced prose."""
    arguments = json.dumps({"command": "create", "path": path, "file_text": code})
    return [message("user", f"Please add {path}."),
            message("assistant", "I will create the file.", tool_calls=[tool_call("c1", "str_replace_editor", arguments)]),
            message("tool", f"File created successfully at: {path}", tool_call_id="c1", observation=True),
            message("assistant", "", tool_calls=[tool_call("c2", "bash", json.dumps({"command": f"cat {path}"}))]),
            message("tool", code, tool_call_id="c2", observation=True),
            message("assistant", f"Here is {path}:\n\n```{fence}\n{code}\n```\n")]


def read_back(messages: list[dict]) -> dict[str, str]:
    """The three copies of the code, from redacted messages."""
    fenced = FENCE.search(messages[5]["content"])
    return {"tool_call": json.loads(messages[1]["tool_calls"][0]["arguments"])["file_text"],
            "tool_output": messages[4]["content"], "fenced": fenced.group(1) if fenced else ""}


def redact(doc: Document, redactor: RedactWith) -> Document:
    *_, redacted = redactor(doc)
    return redacted


# --- code to carry: files on disk, and blobs of bare git repositories ------------------------------


def disk_code(roots: Iterable[Path]) -> Iterator[tuple[str, str, str]]:
    """``(path, text, "python")`` for every distinct ``.py`` file under ``roots`` (``bench.redaction``'s order)."""
    for path, text in text_files(roots):
        if path.suffix == ".py":
            yield str(path), text, "python"


def git_code(git_dir: Path) -> Iterator[tuple[str, str, str]]:
    """``(repo/path, text, language)`` for every code file at HEAD of a bare repository, streamed from
    ``git cat-file --batch`` (UTF-8, no NUL, at most ``MAX_BYTES``), in ``ls-tree`` order."""
    listing = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-l", "-z", "HEAD"],
                             check=True, capture_output=True).stdout.decode("utf-8", "replace")
    entries = []
    for entry in filter(None, listing.split("\0")):
        meta, path = entry.split("\t", 1)
        _, kind, sha, size = meta.split()
        if kind == "blob" and size.isdigit() and int(size) <= MAX_BYTES and detect_language(path, "") in CODE_LANGUAGES:
            entries.append((sha, path))
    name = git_dir.name if git_dir.name != "repo" else git_dir.parent.name
    with subprocess.Popen(["git", "--git-dir", str(git_dir), "cat-file", "--batch"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE) as batch:
        for sha, path in entries:
            batch.stdin.write(f"{sha}\n".encode())
            batch.stdin.flush()
            size = int(batch.stdout.readline().split()[2])
            data = batch.stdout.read(size + 1)[:-1]
            try:
                text = data.decode("utf-8") if b"\0" not in data else None
            except UnicodeDecodeError:
                continue
            language = detect_language(path, text or "")
            if text is not None and language in CODE_LANGUAGES:
                yield f"{name}/{path}", text, language
        batch.stdin.close()


def is_bare_repository(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir()


def distinct(items: Iterable[tuple[str, str, str]]) -> Iterator[tuple[str, str, str]]:
    """Each distinct text once (the same file in two sources is carried once)."""
    seen: set[bytes] = set()
    for item in items:
        digest = hashlib.blake2b(item[1].encode("utf-8", "surrogatepass"), digest_size=16).digest()
        if digest not in seen:
            seen.add(digest)
            yield item


# --- one carried file ----------------------------------------------------------------------------


@cache
def lexer_for(language: str):
    """A Pygments lexer for a non-Python language, or None (such files are not carried)."""
    try:
        return get_lexer_by_name(language.replace(" ", ""), stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def lexed_code(text: str, language: str) -> list[tuple[object, str]]:
    return [(t, v) for t, v in lexer_for(language).get_tokens(text) if t not in String and t not in Comment]


def new_chunk() -> dict:
    return {"items": 0, "files": 0, "lines": 0, "redact_cpu": 0.0, "cpu": 0.0, "wall": 0.0, "first": "", "last": "",
            "languages": Counter(), "placeholders": {part: Counter() for part in ("rendered", *PARTS)},
            "rewritten": Counter(), "changed": {part: [] for part in PARTS}, "samples": []}


def measure_item(name: str, code: str, language: str, redactor: RedactWith, chunk: dict) -> None:
    """Carry one file, redact the trace, and compare each copy read back with the original."""
    chunk["items"] += 1
    chunk["first"] = chunk["first"] or name
    chunk["last"] = name
    if "```" in code:
        return
    before = python_tokens(code) if language == "python" else None
    if (language == "python" and before is None) or (language != "python" and lexer_for(language) is None):
        return
    messages = carried(name, code, language.replace(" ", ""))
    doc = Document(id=name, text=render_messages(messages), source="bench", kind="transcript",
                   metadata={"messages": messages})
    started = time.process_time()
    redacted = redact(doc, redactor)
    chunk["redact_cpu"] += time.process_time() - started
    lines = code.count("\n") + 1
    chunk["files"] += 1
    chunk["lines"] += lines
    chunk["languages"][language] += lines
    chunk["placeholders"]["rendered"].update(m.group(1) for m in PLACEHOLDER.finditer(redacted.text))
    for part, text in read_back(redacted.metadata["messages"]).items():
        for match in PLACEHOLDER.finditer(text):
            chunk["placeholders"][part][match.group(1)] += 1
            if match.group(1).startswith("SECRET_"):
                line_start = text.rfind("\n", 0, match.start()) + 1
                line_end = text.find("\n", match.end())
                chunk["samples"].append({"path": name, "part": part, "line": text[:match.start()].count("\n") + 1,
                                         "context": text[line_start:line_end if line_end >= 0 else len(text)][:240]})
        if text == code:
            continue  # byte-identical: the same tokens
        chunk["rewritten"][part] += 1
        if language == "python":
            after = python_tokens(text)
            same = after is not None and code_tokens(after) == code_tokens(before)
        else:
            same = lexed_code(text, language) == lexed_code(code, language)
        if not same:
            chunk["changed"][part].append(name)


def measure_chunks(items: Iterator[tuple[str, str, str]], redactor: RedactWith, chunks: list[dict],
                   chunk_files: int, max_lines: int = 0, max_seconds: float = 0, path: Path | None = None) -> None:
    """Carry ``items`` in chunks of ``chunk_files``, each appended to ``chunks`` (and as a JSON line to
    ``path``); the items earlier chunks consumed are skipped first (a resumed run)."""
    for _ in range(sum(c["items"] for c in chunks)):
        next(items, None)
    lines, started = sum(c["lines"] for c in chunks), time.monotonic()
    while not (max_lines and lines >= max_lines) and not (max_seconds and time.monotonic() - started >= max_seconds):
        chunk, wall, cpu = new_chunk(), time.monotonic(), time.process_time()
        for name, code, language in itertools.islice(items, chunk_files):
            measure_item(name, code, language, redactor, chunk)
        if not chunk["items"]:
            return
        chunk["wall"], chunk["cpu"] = time.monotonic() - wall, time.process_time() - cpu
        chunk["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        chunks.append(chunk)
        lines += chunk["lines"]
        if path is not None:
            with path.open("a") as out:
                out.write(json.dumps(chunk, default=str) + "\n")
        print(f"{len(chunks)} chunks, {lines} lines, {chunk['lines'] / max(chunk['cpu'], 1e-9):.0f} lines/cpu s: "
              f"{chunk['last']}", file=sys.stderr, flush=True)


def load_chunks(path: Path | None) -> list[dict]:
    if path is None or not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def code_summary(chunks: list[dict]) -> dict:
    """Totals over all chunks: SECRET_* placeholders per 10k lines of carried code, per copy."""
    lines = sum(c["lines"] for c in chunks)
    placeholders = {part: sum((Counter(c["placeholders"][part]) for c in chunks), Counter()) for part in ("rendered", *PARTS)}
    return {
        "files": sum(c["files"] for c in chunks), "lines": lines, "items": sum(c["items"] for c in chunks),
        "languages": dict(sum((Counter(c["languages"]) for c in chunks), Counter()).most_common()),
        "placeholders": {part: dict(counts) for part, counts in placeholders.items()},
        "secret_placeholders_per_10k_lines": {part: per_10k(counts, lines) for part, counts in placeholders.items()},
        "rewritten": dict(sum((Counter(c["rewritten"]) for c in chunks), Counter())),
        "changed": {part: sum(len(c["changed"][part]) for c in chunks) for part in PARTS},
        "redact_cpu_seconds": round(sum(c["redact_cpu"] for c in chunks), 1),
        "cpu_seconds": round(sum(c["cpu"] for c in chunks), 1), "wall_seconds": round(sum(c["wall"] for c in chunks), 1),
        "samples": sum(len(c["samples"]) for c in chunks),
    }


# --- real traces ---------------------------------------------------------------------------------


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
    parser.add_argument("--git", nargs="*", type=Path, default=[], help="bare repositories: code files at HEAD")
    parser.add_argument("--limit", type=int, default=2000, help="code files to read (0: all)")
    parser.add_argument("--max-lines", type=int, default=0, help="stop once this many code lines were carried (0: all)")
    parser.add_argument("--max-seconds", type=float, default=0, help="stop carrying code after this much wall time")
    parser.add_argument("--chunks", type=Path, help="JSON lines, one per chunk: appended to, and resumed from")
    parser.add_argument("--chunk-files", type=int, default=500)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    redactor = RedactWith(RedactionConfig())
    traces = {"transcripts": 0, "lines": 0, "placeholders": Counter(), "samples": []}
    measure_traces(args.traces, redactor, traces)
    roots = args.roots or ([] if args.git else default_roots())
    sources = itertools.chain(*(git_code(r) if is_bare_repository(r) else disk_code([r]) for r in roots),
                              *(git_code(g) for g in args.git))
    items = distinct(sources)
    items = itertools.islice(items, args.limit) if args.limit else items
    chunks = load_chunks(args.chunks)
    measure_chunks(items, redactor, chunks, args.chunk_files, args.max_lines, args.max_seconds, args.chunks)
    summary = {"traces": {**traces, "secret_placeholders_per_10k_lines": per_10k(traces["placeholders"], traces["lines"]),
                          "samples": len(traces["samples"])},
               "code": code_summary(chunks)}
    print(json.dumps(summary, indent=2, default=str))
    if args.out:
        samples = [s for c in chunks for s in c["samples"]]
        changed = {part: [p for c in chunks for p in c["changed"][part]] for part in PARTS}
        args.out.write_text(json.dumps({"traces": traces, "code": {**summary["code"], "samples": samples,
                                                                  "changed": changed}}, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
