"""The decontamination screen (issue 31): exactness on the leak benchmark, pass rate and cost on real
Python, and the filter stage's CPU seconds per GB, filter by filter.

    python -m bench.decontamination_screen [--files N] [--rounds R] [--mbpp FILE]

1. Leaks: every HumanEval task (prompt + solution) and MBPP task of ``--mbpp`` under bench.decontamination's
   six variants, pasted into a stdlib module: hits with the screen must equal hits without it.
2. Real code: every k-th ``.py`` of site-packages (sorted, N files): the screen's pass rate (documents
   and bytes; its first level's too), how often each lexer was unsure, hits with and without it (must be equal), and
   ``ContaminationIndex.hits`` MB per CPU second with and without it, in rotated rounds.
3. The filter stage on the same files: ``time.process_time`` around each check ``DocumentFilter``
   runs (license, paths, each code check, prose, the code index with and without the screen, the
   short-task index), as CPU seconds per GB of text.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sysconfig
import time
from pathlib import Path

from bench.decontamination import MBPP_SAMPLE, VARIANTS, paste
from codemix.document import Document
from codemix.filters.apply import DocumentFilter
from codemix.filters.code import CODE_CHECKS
from codemix.filters.code_runs import run_projection
from codemix.filters.code_screen import light_projection
from codemix.filters.config import FiltersConfig
from codemix.filters.decontamination import ContaminationIndex, DecontaminationConfig, humaneval_items, read_benchmark
from codemix.filters.natural_language import natural_language_drop_reason


def leak_equivalence(screened: ContaminationIndex, full: ContaminationIndex, mbpp: str) -> dict:
    tasks = [(item_id, text) for _, item_id, text, _ in list(humaneval_items())[::2]]
    tasks += [(item_id, text) for _, item_id, text, _ in read_benchmark(mbpp, "mbpp")]
    rows = {variant: {"documents": 0, "removed_full": 0, "removed_screened": 0, "different": 0} for variant in VARIANTS}
    for number, (item_id, code) in enumerate(tasks):
        for variant, transform in VARIANTS.items():
            document = paste(transform(code), number)
            expected, got = full.hits(document), screened.hits(document)
            row = rows[variant]
            row["documents"] += 1
            row["removed_full"] += item_id in {hit.item_id for hit in expected}
            row["removed_screened"] += item_id in {hit.item_id for hit in got}
            row["different"] += got != expected
    return rows


def corpus(files: int) -> list[tuple[str, str]]:
    root = Path(sysconfig.get_path("purelib"))
    paths = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
    step = max(1, len(paths) // files)
    return [(str(p.relative_to(root)), p.read_text(encoding="utf-8", errors="replace")) for p in paths[::step][:files]]


def real_code(screened: ContaminationIndex, full: ContaminationIndex, texts: list[tuple[str, str]], rounds: int) -> dict:
    megabytes = sum(len(t.encode()) for _, t in texts) / 1e6
    passed = [screened._screen.may_hit(t) for _, t in texts]
    first = [screened._screen._first.may_hit(t) for _, t in texts]
    unsure = sum(light_projection(t) is None for _, t in texts)
    runs_unsure = sum(run_projection(t) is None for _, t in texts)
    different = sum(screened.hits(t) != full.hits(t) for _, t in texts)
    rates: dict[str, list[float]] = {"full": [], "screened": []}
    for round_number in range(rounds):
        order = [("full", full), ("screened", screened)][:: 1 if round_number % 2 == 0 else -1]
        for name, index in order:
            start = time.process_time()
            for _, text in texts:
                index.hits(text)
            rates[name].append(megabytes / (time.process_time() - start))
    return {"files": len(texts), "megabytes": round(megabytes, 2), "passed_documents": sum(passed),
            "first_level_passed_documents": sum(first), "first_level_unsure_documents": runs_unsure,
            "first_level_passed_bytes_fraction": round(sum(len(t) for (_, t), p in zip(texts, first) if p)
                                                       / sum(len(t) for _, t in texts), 4),
            "passed_bytes_fraction": round(sum(len(t) for (_, t), p in zip(texts, passed) if p)
                                           / sum(len(t) for _, t in texts), 4),
            "unsure_documents": unsure, "hits_different": different,
            "mb_per_cpu_s": {name: {"min": round(min(r), 3), "median": round(statistics.median(r), 3),
                                    "max": round(max(r), 3)} for name, r in rates.items()}}


def filter_profile(texts: list[tuple[str, str]], screened: ContaminationIndex, full: ContaminationIndex) -> dict:
    """CPU seconds per GB of each check DocumentFilter runs on a kept Python file."""
    checker = DocumentFilter(FiltersConfig())
    thresholds = checker.thresholds("python")
    seconds: dict[str, float] = {}

    def timed(name, call, *args):
        start = time.process_time()
        call(*args)
        seconds[name] = seconds.get(name, 0.0) + time.process_time() - start

    for path, text in texts:
        doc = Document(id=path, text=text, source="site", kind="file", path=path, language="python", license="mit")
        timed("license", checker.license_drop_reason, doc)
        timed("paths", checker.path_drop_reason, doc)
        for check in CODE_CHECKS:
            timed(check.__name__, check, doc, thresholds)
        timed("natural_language", natural_language_drop_reason, doc, checker.prose)
        timed("decontamination (full path)", full.hits, text, "python")
        timed("decontamination (screened)", screened.hits, text, "python")
        timed("short_tasks", checker.short_tasks.hits, text, "python")
    gigabytes = sum(len(t.encode()) for _, t in texts) / 1e9
    return {name: round(value / gigabytes, 1) for name, value in seconds.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--mbpp", default=str(MBPP_SAMPLE))
    args = parser.parse_args()
    screened = ContaminationIndex.from_config(DecontaminationConfig())
    full = ContaminationIndex.from_config(DecontaminationConfig(screen=False))
    texts = corpus(args.files)
    report = {"leaks": leak_equivalence(screened, full, args.mbpp),
              "real_code": real_code(screened, full, texts, args.rounds),
              "filter_cpu_s_per_gb": filter_profile(texts, screened, full)}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
