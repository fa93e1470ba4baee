"""False redaction on real code of many languages (issue 47): how often a placeholder lands, and whether
the code around it is still the same code.

    .venv/bin/python -m bench.redaction_languages ROOT [ROOT ...] [--max-seconds S] [--out report.json]

Every readable UTF-8 file up to 1 MB under the roots whose language (``detect_language``) is one of
``LANGUAGES`` is redacted as the crawl does (``redact_document``, the file's language). Per language:
files, lines, ``SECRET_*`` placeholders per 10k lines (EMAIL and IP_ADDRESS apart: addresses are PII),
and changed code tokens: the leaves of the syntax tree outside string and comment nodes, from
tree-sitter's own grammars (Python: the standard ``tokenize``), compared before and after redaction;
a placeholder inside a string literal changes no code token, one that cuts into code does. Every
``SECRET_*`` redaction is listed with its line, the value masked, to judge by hand.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
import tokenize
from collections import Counter, defaultdict
from pathlib import Path

import tree_sitter_language_pack

from bench.redaction import masked_context, text_files
from codemix.document import Document
from codemix.filters.secrets import RedactionConfig, redact_document, redaction_spans
from codemix.pipelines.readers.language import detect_language

# The pipeline's language name -> tree-sitter-language-pack's grammar.
LANGUAGES = {"python": "", "ruby": "ruby", "rust": "rust", "c": "c", "cpp": "cpp", "go": "go",
             "javascript": "javascript", "typescript": "typescript", "php": "php", "java": "java"}
OPAQUE = ("string", "comment", "heredoc", "template", "char_literal", "raw_string", "interpreted_string")


def code_tokens(text: str, language: str) -> list[str] | None:
    """The code's tokens outside strings and comments, by the language's own tokenizer or grammar."""
    if language == "python":
        try:
            return [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline)
                    if t.type not in (tokenize.STRING, tokenize.COMMENT, getattr(tokenize, "FSTRING_MIDDLE", -1))]
        except (tokenize.TokenError, SyntaxError, ValueError):
            return None
    data = text.encode("utf-8")
    tokens, stack = [], [tree_sitter_language_pack.get_parser(LANGUAGES[language]).parse(data).root_node]
    while stack:
        node = stack.pop()
        if any(part in node.type for part in OPAQUE):
            continue
        if node.child_count == 0:
            tokens.append(data[node.start_byte:node.end_byte].decode("utf-8", "replace"))
        else:
            stack.extend(reversed(node.children))
    return tokens


def measure(roots: list[Path], max_seconds: float, config: RedactionConfig) -> dict:
    per = defaultdict(lambda: {"files": 0, "lines": 0, "secret": 0, "pii": 0, "redacted_files": 0,
                               "changed_code_tokens": 0, "changed_files": []})
    samples, started, counts = [], time.perf_counter(), Counter()
    for path, text in text_files(roots):
        if max_seconds and time.perf_counter() - started > max_seconds:
            break
        language = detect_language(str(path), text)
        if language not in LANGUAGES:
            continue
        row = per[language]
        row["files"] += 1
        row["lines"] += text.count("\n") + 1
        doc = Document(id=str(path), text=text, source="bench", kind="file", path=str(path), language=language)
        redacted, found = redact_document(doc, config)
        if not found:
            continue
        counts.update(found)
        row["redacted_files"] += 1
        row["secret"] += sum(n for kind, n in found.items() if kind.startswith("SECRET_"))
        row["pii"] += sum(n for kind, n in found.items() if not kind.startswith("SECRET_"))
        before, after = code_tokens(text, language), code_tokens(redacted.text, language)
        if before is not None and after != before:
            changed = sum((Counter(before) - Counter(after or [])).values()) + sum((Counter(after or []) - Counter(before)).values())
            row["changed_code_tokens"] += changed
            row["changed_files"].append(str(path))
        for start, end, kind in redaction_spans(text, config, language):
            if kind.startswith("SECRET_"):
                samples.append({"path": str(path), "kind": kind, "context": masked_context(text, start, end, kind)})
    for row in per.values():
        row["secret_per_10k_lines"] = round(row["secret"] / max(row["lines"], 1) * 10_000, 4)
    total_lines = sum(r["lines"] for r in per.values())
    return {"seconds": round(time.perf_counter() - started, 1), "lines": total_lines,
            "files": sum(r["files"] for r in per.values()), "languages": dict(sorted(per.items())),
            "counts": dict(counts.most_common()), "samples": samples}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--max-seconds", type=float, default=0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    report = measure(args.roots, args.max_seconds, RedactionConfig())
    print(json.dumps({k: v for k, v in report.items() if k != "samples"}, indent=1))
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
