"""Decontamination in every language (issue 49): MB per CPU second of ``ContaminationIndex.hits`` by
language on a mixed corpus, with the screen and without it, and leaks in each language caught both ways.

    .venv/bin/python -m bench.mixed_corpus /tmp/mixed --megabytes 12
    .venv/bin/python -m bench.decontamination_languages /tmp/mixed [--rounds 3] [--leaks 10]

1. Speed: the default indexes (HumanEval), every file of each language of the corpus through ``hits``
   (``time.process_time``, ``--rounds`` rounds, the order of the checks rotated each round): the code
   index screened and full, the short-task index, and both together as the filter stage runs them;
   min / median / max MB per CPU second. Files each screen passes are counted. "both" asks the code index's
   screen of a batch of documents at once, as the filter stage does (``batched``), where the tree has
   ``ContaminationIndex.may_hit_many``; "both_one_by_one" is the same one document at a time.
2. Leaks: per language, ``--leaks`` files give ~120 normalised tokens each (from a third of the way in)
   as items of a generic benchmark in that language; each is renamed (every identifier) and laid out
   anew, then pasted after the first third of another file of the language. Reported: leaks the full
   path hits, and whether the screened index's hits equal the full path's on every pasted document (the pasted
   documents of a language screened together, as the filter stage does, where the tree can).
Run it with ``PYTHONPATH`` at an older tree to measure that tree's speed (part 1 only uses ``hits``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from codemix.filters.decontamination import ContaminationIndex, DecontaminationConfig, code_tokens
from codemix.filters.short_tasks import short_task_index
from codemix.pipelines.readers.language import detect_language


def read_corpus(root: Path) -> dict[str, list[str]]:
    """language -> texts of every file under ``root`` (a corpus bench.mixed_corpus wrote)."""
    texts: dict[str, list[str]] = defaultdict(list)
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p.name != "corpus.json"):
        language = detect_language(str(path.relative_to(root)), "")
        if language:
            texts[language].append(path.read_text(encoding="utf-8"))
    return dict(texts)


def spread(values: list[float]) -> dict:
    return {"min": round(min(values), 2), "median": round(statistics.median(values), 2), "max": round(max(values), 2)}


def speed(texts: dict[str, list[str]], rounds: int, full: bool, languages: set[str] | None = None) -> dict:
    """MB per CPU second per language of the code index (screened; ``full``: also unscreened), the short-task
    index (``filters.short_tasks``), and both as the filter stage runs them (``DocumentFilter.benchmark_hits``)."""
    config = DecontaminationConfig()
    code, short = ContaminationIndex.from_config(config), short_task_index(config)
    checks = {"screened": each(code.hits), "short_tasks": each(short.hits),
              "both_one_by_one": each(lambda text, language: [*code.hits(text, language), *short.hits(text, language)])}
    if hasattr(code, "may_hit_many"):  # this tree's filter stage screens its documents in batches
        from codemix.pipelines.filter import BATCH_BYTES, BATCH_DOCUMENTS  # imported before any timing

        limits = BATCH_DOCUMENTS, BATCH_BYTES
        checks["both"] = lambda documents, language: batched(code, short, documents, language, *limits)
    else:
        checks["both"] = checks.pop("both_one_by_one")
    if full:
        checks["full"] = each(ContaminationIndex.from_config(DecontaminationConfig(screen=False)).hits)
    report = {}
    for language, documents in sorted(texts.items()):
        if languages and language not in languages:
            continue
        megabytes = sum(len(t.encode("utf-8")) for t in documents) / 1e6
        rates: dict[str, list[float]] = {name: [] for name in checks}
        for number in range(rounds):
            names = list(checks)
            for name in names[number % len(names):] + names[:number % len(names)]:  # the order rotated
                start = time.process_time()
                checks[name](documents, language)
                rates[name].append(megabytes / max(time.process_time() - start, 1e-9))
        passed = sum(code.may_hit(t, language) for t in documents) if hasattr(code, "may_hit") else None
        short_passed = sum(short.may_hit(t) for t in documents) if hasattr(short, "may_hit") else None
        report[language] = {"files": len(documents), "megabytes": round(megabytes, 2), "screen_passed": passed,
                            "short_screen_passed": short_passed,
                            **{f"mb_per_cpu_s_{name}": spread(r) for name, r in rates.items()}}
    return report


def each(check):
    """A check of one text, asked of every document in turn."""
    return lambda documents, language: [check(text, language) for text in documents]


def batched(code, short, documents: list[str], language: str, most: int, most_bytes: int) -> list:
    """Both indexes as the filter stage asks them now (``pipelines.filter.JudgeDocuments``): the code index's
    screen of up to ``most`` documents (or ``most_bytes``) in one call, then each document's hits."""
    found, start, size = [], 0, 0
    for end, text in enumerate(documents, start=1):
        size += len(text.encode("utf-8"))
        if end - start >= most or size >= most_bytes or end == len(documents):
            batch = documents[start:end]
            for text, answer in zip(batch, code.may_hit_many(batch, language), strict=True):
                found.append([*code.hits(text, language, may_hit=answer), *short.hits(text, language)])
            start, size = end, 0
    return found


def renamed(text: str, language: str) -> str:
    tokens, names = code_tokens(text, language), {}
    return "\n".join(f"v{names.setdefault(s, len(names))}" if flag else s
                     for s, flag in zip(tokens.symbols, tokens.identifier, strict=True)) + "\n"


def leak_item(text: str, language: str, tokens: int = 120) -> tuple[str, str] | None:
    """(host: the file's first third, solution: ~``tokens`` tokens from there), or None if too short."""
    lines = text.splitlines(keepends=True)
    start = end = len(lines) // 3
    while end < len(lines) and len(code_tokens("".join(lines[start:end]), language)) < tokens:
        end += 1
    solution = "".join(lines[start:end])
    return ("".join(lines[:start]), solution) if len(code_tokens(solution, language)) >= tokens else None


def leaks(texts: dict[str, list[str]], per_language: int) -> dict:
    report = {}
    for language, documents in sorted(texts.items()):
        if language == "python":
            continue  # Python's leak benchmark is bench.decontamination (HumanEval and MBPP, six variants)
        cases = [case for case in (leak_item(t, language) for t in documents[::7]) if case][:per_language]
        with tempfile.TemporaryDirectory() as tmp:
            benchmark = Path(tmp) / "leaks.jsonl"
            benchmark.write_text("".join(json.dumps({"id": str(i), "prompt": "", "solution": solution,
                                                     "language": language}) + "\n"
                                         for i, (_, solution) in enumerate(cases)))
            screened, full = (ContaminationIndex.from_config(DecontaminationConfig(
                humaneval=False, benchmarks=[str(benchmark)], screen=screen)) for screen in (True, False))
        caught = same = 0
        documents = [cases[(i + 1) % len(cases)][0] + "\n" + renamed(solution, language)
                     for i, (_, solution) in enumerate(cases)]
        # screened together, as the filter stage screens them, where the tree can
        answers = screened.may_hit_many(documents, language) if hasattr(screened, "may_hit_many") else [None] * len(cases)
        for i, (document, answer) in enumerate(zip(documents, answers, strict=True)):
            expected = full.hits(document, language)
            caught += str(i) in {hit.item_id for hit in expected}
            found = screened.hits(document, language) if answer is None else screened.hits(document, language,
                                                                                          may_hit=answer)
            same += found == expected
        report[language] = {"leaks": len(cases), "caught_full": caught, "screened_hits_equal": same}
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-full", action="store_true", help="skip the unscreened index (speed only)")
    parser.add_argument("--leaks", type=int, default=10, help="leaks per language; 0: skip part 2")
    parser.add_argument("--languages", nargs="*", help="only these languages (part 1)")
    args = parser.parse_args()
    texts = read_corpus(args.corpus)
    report = {"speed": speed(texts, args.rounds, not args.no_full, set(args.languages or ()))}
    if args.leaks:
        report["leaks"] = leaks(texts, args.leaks)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
