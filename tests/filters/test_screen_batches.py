"""Issue 49: the code screen asked of many documents at once answers for each what it answers for it alone.

``code_runs.run_projections`` reads many Python texts as one buffer and ``ScreenIndex.may_hit_all`` finds all
their k-grams at once; ``DocumentFilter.screened_views`` hands the screen a batch of documents. Nothing may reach
from one document into the next: no bracket depth, statement column, symbol before a name or k-gram window.
The documents are real files (the standard library; ``data/languages`` and ``data/comments``, each listed with
its repository and commit in their README), and pairs cut from real files whose ends make a match when joined.
"""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from codemix.document import Document
from codemix.filters.apply import DocumentFilter
from codemix.filters.code_runs import RUN_GRAMS, run_projection, run_projections, token_run_projection
from codemix.filters.code_screen import ScreenIndex
from codemix.filters.config import FiltersConfig
from codemix.filters.decontamination import (
    ContaminationIndex,
    DecontaminationConfig,
    code_ngram_hashes,
    code_tokens,
    humaneval_items,
)
from codemix.pipelines.readers.language import detect_language

STDLIB = Path(sysconfig.get_path("stdlib"))
MODULES = sorted(STDLIB.rglob("*.py"))[::97]  # ~140 real modules, tests and odd encodings among them
DATA = Path(__file__).parent / "data"
OTHER_LANGUAGES = [p for p in sorted((DATA / "languages").glob("*")) + sorted((DATA / "comments").glob("*"))
                   if p.suffix != ".md"]
TASKS = [text for _, _, text, _ in list(humaneval_items())[::2]]  # prompt + canonical solution


@pytest.fixture(scope="module")
def index() -> ContaminationIndex:
    return ContaminationIndex.from_config(DecontaminationConfig())


@pytest.fixture(scope="module")
def runs() -> ScreenIndex:
    """The first-level screen alone, over HumanEval's tasks, as ``ContaminationIndex`` builds it (the second level,
    asked of each text the first passes, would hide what the first passed)."""
    config = DecontaminationConfig()
    items = [(tokens, code_ngram_hashes(tokens, config.ngram)) for tokens in map(code_tokens, TASKS)
             if len(tokens) >= config.min_match_tokens]
    return ScreenIndex(items, ngram=config.ngram, min_overlap=config.min_overlap,
                       min_match_tokens=config.min_match_tokens, grams=RUN_GRAMS,
                       projections=(token_run_projection, run_projection))


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def joined_pairs(screen: ScreenIndex | None = None) -> list[tuple[str, str]]:
    """(end of one file, start of the next) whose join holds a whole HumanEval task: a real module then the
    task's first lines, and the task's other lines then another module. Cut between lines (with ``screen``: after
    the most lines the first part alone is still cleared with, so the windows across the cut would tip it), and
    cut inside an open bracket (each half alone is unbalanced), and with the second half's first statement
    dedented to a column the first half never opened (alone it is consistent; read on from the first it is not)."""
    pairs = []
    hosts = [read(path) for path in MODULES[1::15]]
    for number, task in enumerate(TASKS[::8]):
        lines = task.splitlines(keepends=True)
        head, tail = hosts[number % len(hosts)], hosts[(number + 1) % len(hosts)]
        middle = len(lines) // 2
        if screen is not None:
            middle = max((i for i in range(len(lines)) if not screen.may_hit(head + "\n" + "".join(lines[:i]))),
                         default=middle)
        pairs.append((head + "\n" + "".join(lines[:middle]), "".join(lines[middle:]) + "\n" + tail))
        cut = task.find("(", task.find("return"))
        if cut > 0:
            pairs.append((head + "\n" + task[:cut + 1], task[cut + 1:] + "\n" + tail))
        pairs.append((head + "\nif x:\n    if y:\n        pass\n", "  z = 1\n" + tail))
    return pairs


def test_projections_of_a_batch_are_each_texts_own():
    texts = [read(path) for path in MODULES]
    alone = [run_projection(text) for text in texts]
    assert sum(p is None for p in alone) >= 2 and sum(p is not None for p in alone) >= 100, "guard: both kinds"
    for size in (7, 64, len(texts)):
        for start in range(0, len(texts), size):
            batch = run_projections(texts[start:start + size])
            assert all(same(batch[i], alone[start + i]) for i in range(len(batch)))


def test_no_reading_reaches_across_the_cut_of_a_joined_pair():
    pairs = joined_pairs()
    unsure = 0
    for first, second in pairs:
        batch = run_projections([first, second])
        assert same(batch[0], run_projection(first)) and same(batch[1], run_projection(second))
        unsure += run_projection(first) is None and run_projection(second) is None
    assert unsure >= 5, "guard: pairs cut inside a bracket, unsure alone, were read"
    dedented = [second for first, second in pairs if second.startswith("  z = 1\n")]
    assert all(run_projection(second) is not None and run_projection(first + second) is None
               for first, second in pairs if second in dedented), "guard: the dedent is only wrong when joined"


def test_the_first_screen_of_a_batch_answers_each_text_alone(runs):
    pairs = joined_pairs(runs)
    texts = [read(path) for path in MODULES] + [text for pair in pairs for text in pair]
    alone = [runs.may_hit(text) for text in texts]
    halves = list(zip(alone[-2 * len(pairs)::2], alone[-2 * len(pairs) + 1::2], strict=True))
    crossing = sum(runs.may_hit(first + second) and not a and not b for (first, second), (a, b) in zip(pairs, halves))
    assert crossing >= 5, "guard: pairs whose join the screen passes, though neither half alone"
    assert 0 < sum(alone) < len(alone) / 2, "guard: the screen clears most texts, not all"
    for size in (2, 64, len(texts)):
        answers = [bool(answer) for start in range(0, len(texts), size)
                   for answer in runs.may_hit_all(run_projections(texts[start:start + size]))]
        assert answers == alone


def test_the_code_index_screens_a_batch_as_each_text_alone(index):
    texts = [read(path) for path in MODULES] + [text for pair in joined_pairs() for text in pair]
    texts.append(read(MODULES[5]) + "\n" + TASKS[0] + "\n")
    alone = [index.may_hit(text) for text in texts]
    assert any(alone) and not all(alone), "guard: the screen passes some texts and clears others"
    assert index.may_hit_many(texts) == alone


def test_the_filter_judges_a_batch_of_every_language_as_each_alone():
    """``screened_views`` then ``with_benchmark_hits`` over documents of seven languages (a HumanEval task pasted
    into one, a joined pair among them) gives each document the verdict ``judge`` gives it alone."""
    texts = [(read(path), path.name) for path in OTHER_LANGUAGES + MODULES[::4]]
    texts.append((read(MODULES[5]) + "\n" + TASKS[0] + "\n", "pasted.py"))
    texts.extend((text, f"half{i}.py") for i, text in enumerate(joined_pairs()[0]))
    docs = [Document(id=str(i), text=text, source="test", kind="file", path=name, language=detect_language(name, ""),
                     license="MIT") for i, (text, name) in enumerate(texts)]
    assert len({doc.language for doc in docs}) >= 7, "guard: every language the screen reads"
    judge = DocumentFilter(FiltersConfig())
    alone = [judge.judge(doc) for doc in docs]
    assert any(verdict.reason == "contaminated" for verdict in alone), "guard: a document is hit"
    first = [judge.judge_but_benchmarks(doc) for doc in docs]
    asking = [i for i, verdict in enumerate(first) if judge.wants_benchmark_hits(verdict)]
    views = judge.screened_views([first[i].document for i in asking])
    batched = list(first)
    for i, mine in zip(asking, views, strict=True):
        batched[i] = judge.with_benchmark_hits(first[i], mine)
    assert [(v.reason, v.hits, v.document) for v in batched] == [(v.reason, v.hits, v.document) for v in alone]


def test_the_lexed_screen_of_a_batch_answers_each_text_alone(tmp_path):
    """Every other language: items of ~120 tokens from real files of the language (a generic benchmark), each cut
    between the lines after which the first part alone is still cleared; the halves, glued to real files, are
    screened in one batch with the other files of the language."""
    by_language: dict[str, list[str]] = {}
    for path in OTHER_LANGUAGES:
        by_language.setdefault(detect_language(path.name, ""), []).append(read(path))
    records, cases = [], []
    for language, texts in by_language.items():
        for number, text in enumerate(texts):
            lines = text.splitlines(keepends=True)
            start = len(lines) // 3
            end = next((e for e in range(start, len(lines)) if len(code_tokens("".join(lines[start:e]), language)) >= 120),
                       None)
            if end is not None:
                records.append({"id": f"{language}{number}", "prompt": "", "solution": "".join(lines[start:end]),
                                "language": language})
                cases.append((language, lines[start:end], texts[(number + 1) % len(texts)]))
    benchmark = tmp_path / "items.jsonl"
    benchmark.write_text("".join(json.dumps(record) + "\n" for record in records))
    index = ContaminationIndex.from_config(DecontaminationConfig(humaneval=False, benchmarks=[str(benchmark)]))
    crossing = 0
    for language, texts in by_language.items():
        batch = list(texts)
        for case_language, lines, host in cases:
            if case_language != language:
                continue
            cut = max((i for i in range(len(lines)) if not index.may_hit(host + "\n" + "".join(lines[:i]), language)),
                      default=len(lines) // 2)
            first, second = host + "\n" + "".join(lines[:cut]), "".join(lines[cut:]) + "\n" + host
            crossing += index.may_hit(first + second, language) and not index.may_hit(second, language)
            batch += [first, second]
        assert index.may_hit_many(batch, language) == [index.may_hit(text, language) for text in batch]
    assert len(by_language) >= 6 and crossing >= 3, "guard: joins the screen passes, not their halves"
