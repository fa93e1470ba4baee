"""False drops of decontamination on real files of many languages (issue 47): every file the filter
stage would drop as contaminated, with the item, the matched tokens and lines, to judge by hand.

    .venv/bin/python -m bench.decontamination_false_drops ROOT [ROOT ...] [--max-files N] [--out report.json]

Every readable UTF-8 file up to 1 MB under the roots whose language is a programming language the
decontamination reads as code is judged by the filter stage's ``DocumentFilter.benchmark_hits``
(HumanEval from the installed package, plus the checked-in MBPP sample). None of these repositories
vendors a benchmark, so every hit is a false drop unless the lines show a benchmark's own code.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

from bench.redaction import text_files
from codemix.document import Document
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.filters.decontamination import DecontaminationConfig
from codemix.pipelines.crawl import path_language
from codemix.pipelines.readers.language import detect_language

MBPP_SAMPLE = Path(__file__).resolve().parents[1] / "tests" / "filters" / "data" / "mbpp_1-54.jsonl"
LANGUAGES = frozenset({"python", "ruby", "rust", "c", "cpp", "go", "javascript", "typescript", "php", "java"})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--max-files", type=int, default=0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    judge = DocumentFilter(FiltersConfig(decontamination=DecontaminationConfig(benchmarks=[str(MBPP_SAMPLE)])),
                           language_of=path_language)
    files, lines, hits, started = Counter(), Counter(), [], time.perf_counter()
    for path, text in text_files(args.roots):
        language = detect_language(str(path), text)
        if language not in LANGUAGES:
            continue
        if args.max_files and sum(files.values()) >= args.max_files:
            break
        files[language] += 1
        lines[language] += text.count("\n") + 1
        doc = Document(id=str(path), text=text, source="bench", kind="file", path=str(path), language=language)
        for hit in judge.benchmark_hits(doc):
            snippet = "\n".join(text.split("\n")[hit.start_line - 1:hit.end_line][:12])
            hits.append({"path": str(path), "language": language, "benchmark": hit.benchmark, "item": hit.item_id,
                         "matched_tokens": hit.matched_tokens, "lines": [hit.start_line, hit.end_line],
                         "snippet": snippet})
    report = {"seconds": round(time.perf_counter() - started, 1), "files": dict(files), "lines": dict(lines),
              "total_files": sum(files.values()), "dropped": len({h["path"] for h in hits}), "hits": hits}
    print(json.dumps({k: v for k, v in report.items() if k != "hits"}, indent=1))
    for hit in hits:
        print(f"{hit['path']}: {hit['item']} ({hit['matched_tokens']} tokens, lines {hit['lines']})")
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
