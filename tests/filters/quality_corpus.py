"""Real files with a planted quality property, and ratings that follow it.

The documents are the Python standard library's own modules (and CPython's C headers), read where
the interpreter is installed. Half of them get the planted property, "unreadable": Python's
``tokenize`` renames every identifier that is not a keyword or builtin to ``v<N>``, drops comments
and rewrites the layout via ``untokenize``. A rating is 1 for an untouched module and 0 for a
planted one, so what a scorer must learn is a fact the test controls, not another heuristic of ours.
"""

from __future__ import annotations

import builtins
import io
import json
import keyword
import sysconfig
import tokenize
from pathlib import Path

STDLIB = Path(sysconfig.get_path("stdlib"))
C_HEADERS = Path(sysconfig.get_path("include"))
KEEP_NAMES = set(keyword.kwlist) | set(dir(builtins)) | {"self", "cls"}


def python_modules(limit: int, max_chars: int) -> list[tuple[str, str]]:
    """(relative path, text) of stdlib modules that tokenize, in sorted order, cut at a line end."""
    found = []
    for path in sorted(STDLIB.rglob("*.py")):
        relative = path.relative_to(STDLIB).as_posix()
        if relative.startswith(("test/", "idlelib/idle_test", "site-packages/", "lib2to3/tests")):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        text = text[: text.rfind("\n", 0, max_chars) + 1] if len(text) > max_chars else text
        if len(text) > 400 and obfuscated(text) is not None:
            found.append((relative, text))
        if len(found) == limit:
            break
    return found


def obfuscated(code: str) -> str | None:
    """``code`` with identifiers renamed in order of first use and comments dropped; None if it does not tokenize."""
    names: dict[str, str] = {}
    tokens = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.COMMENT:
                continue
            text = token.string
            if token.type == tokenize.NAME and text not in KEEP_NAMES:
                text = names.setdefault(text, f"v{len(names)}")
            tokens.append((token.type, text))
        return tokenize.untokenize(tokens)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None


def planted_sample(directory: Path, limit: int = 240, max_chars: int = 3000) -> tuple[Path, Path, dict[str, int]]:
    """sample.jsonl (id, language, text) and ratings.jsonl (id, score): every other module planted."""
    sample, ratings, truth = directory / "sample.jsonl", directory / "ratings.jsonl", {}
    with sample.open("w") as texts, ratings.open("w") as scores:
        for i, (relative, text) in enumerate(python_modules(limit, max_chars)):
            planted = i % 2 == 1
            doc_id = f"stdlib/{relative}"
            truth[doc_id] = 0 if planted else 1
            texts.write(json.dumps({"id": doc_id, "language": "python",
                                    "text": obfuscated(text) if planted else text}) + "\n")
            scores.write(json.dumps({"id": doc_id, "score": truth[doc_id]}) + "\n")
    return sample, ratings, truth
