"""Benchmark tasks too short to be matched as code, matched with their prompt instead.

A code item under ``min_match_tokens`` normalised tokens (54 of HumanEval's 164: HumanEval/13's gcd,
HumanEval/53's ``return x + y``) is left out of the code index, so an idiom can never remove a file.
A leaked short task nearly always arrives with its task text, though. Here each such item is matched
on two kinds of evidence that must both be found: its docstring's prose (the share of its words
inside a word 3-gram found in the document, doctest examples left out, so one edited word in a
seven-word prompt still leaves four of them covered) and its code (the normalised code
n-grams of ``filters.decontamination``, identifiers numbered by first use, so renaming changes
nothing). A bare idiom lacks the prose and is kept; a task's prose beside other code is kept too.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from codemix.config import join
from codemix.filters.code_tokens import CodeTokens
from codemix.filters.decontamination import (
    PYTHON,
    BenchmarkHit,
    BenchmarkText,
    DecontaminationConfig,
    code_ngram_hashes,
    code_tokens,
    densest_window,
    humaneval_items,
    ngram_hashes,
    read_benchmark,
    token_hashes,
)

WORD = re.compile(r"[^\W_]+")  # letters and digits; ``greatest_common_divisor`` is three words
ASCII_WORD = re.compile(r"[^\W_]+", re.ASCII)  # the same words in an ASCII text, found ~30% faster
PROSE_NGRAM = 3
CODE_NGRAM = 5  # short solutions are 4-39 tokens: a 10-gram would not fit most of them
# HumanEval/23's "Return length of given string" (5 words, 3 3-grams) is the shortest prompt; at least
# this many of an item's 3-grams must be found, whatever ``min_prose_overlap`` allows.
MIN_PROSE_GRAMS = 2
# Characters before a short task's code (and a quarter of it after) in which its prose must be found: a
# docstring sits just above or inside the code it tells (HumanEval's longest short prompt is ~900).
PROSE_REACH = 2000


@dataclass(frozen=True, slots=True)
class PromptedTask:
    """One short item: its prose 3-grams in order (one per word position), its code n-grams (distinct)
    and the code's n."""

    benchmark: str
    item_id: str
    prose: np.ndarray
    code: np.ndarray
    n: int
    code_length: int


def prompt_prose(code: str) -> str:
    """The docstrings of ``code`` (Python) without doctest examples: the task as it is told."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return ""
    # Every string statement, not only the first of a body: HumanEval/115 imports before its docstring.
    docstrings = [node.value.value for node in ast.walk(tree)
                  if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)]
    return "\n".join(_without_examples(text) for text in docstrings if text)


def _without_examples(docstring: str) -> str:
    """Lines of a docstring outside doctest examples (``>>>`` lines and the output under them)."""
    kept, in_example = [], False
    for line in docstring.splitlines():
        stripped = line.strip()
        in_example = stripped.startswith((">>>", "...")) or (in_example and bool(stripped))
        if not in_example:
            kept.append(line)
    return "\n".join(kept)


def prose_grams(text: str) -> np.ndarray:
    """Hashes of the lowercased word 3-grams of ``text``, in order (the i-th starts at word i)."""
    lower = text.lower()
    return ngram_hashes(token_hashes((ASCII_WORD if lower.isascii() else WORD).findall(lower)), PROSE_NGRAM)


def covered_words(found: np.ndarray, n: int = PROSE_NGRAM) -> float:
    """The share of a prompt's words inside at least one found 3-gram (``found``: one bool per gram)."""
    words = np.zeros(len(found) + n - 1, dtype=bool)
    for offset in range(n):
        words[offset:offset + len(found)] |= found
    return float(words.mean()) if len(words) else 0.0


def prompted_task(benchmark: str, item_id: str, text: str, min_match_tokens: int) -> PromptedTask | None:
    """The item when the code index leaves it out (under ``min_match_tokens``) and its prompt has prose."""
    tokens = code_tokens(text, PYTHON)
    prose = prose_grams(prompt_prose(text))
    if len(tokens) >= min_match_tokens or len(tokens) == 0 or len(prose) < MIN_PROSE_GRAMS:
        return None
    n = min(CODE_NGRAM, len(tokens))
    return PromptedTask(benchmark, item_id, prose, np.unique(code_ngram_hashes(tokens, n)), n, len(tokens))


class PromptedTaskIndex:
    """Short items matched by prose and code together (see the module docstring)."""

    __slots__ = ("_distinct_keys", "_keys", "_owners", "_starts", "min_code_coverage", "min_prose_overlap", "tasks")

    def __init__(self, tasks: Iterable[PromptedTask], *, min_prose_overlap: float = 0.5,
                 min_code_coverage: float = 0.8):
        self.tasks = list(tasks)
        self.min_prose_overlap, self.min_code_coverage = min_prose_overlap, min_code_coverage
        # Every task's prose 3-grams in one array: one ``isin`` per document, whatever the task count.
        self._keys = np.concatenate([np.empty(0, np.uint64), *(t.prose for t in self.tasks)])
        self._owners = np.repeat(np.arange(len(self.tasks)), [len(t.prose) for t in self.tasks])
        self._starts = np.concatenate([[0], np.cumsum([len(t.prose) for t in self.tasks])]).astype(int)
        self._distinct_keys = np.unique(self._keys)  # sorted: a document's 3-grams are looked up in it

    def __len__(self) -> int:
        return len(self.tasks)

    def hits(self, text: str, language: str = PYTHON) -> list[BenchmarkHit]:
        """Items whose prose (``min_prose_overlap`` of its words covered by found 3-grams) and code (``min_code_coverage``
        of its n-grams) are both in ``text``; the code is only tokenized when some prose is found."""
        if not self.tasks:
            return []
        in_text = np.isin(self._keys, self._found_keys(prose_grams(text)))
        found = np.bincount(self._owners, weights=in_text, minlength=len(self.tasks))
        candidates = [self.tasks[i] for i in np.flatnonzero(found >= MIN_PROSE_GRAMS).tolist()
                      if covered_words(in_text[self._starts[i]:self._starts[i + 1]]) >= self.min_prose_overlap]
        if not candidates:
            return []
        tokens = code_tokens(text, language or PYTHON)
        grams = {n: code_ngram_hashes(tokens, n) for n in {t.n for t in candidates}}
        hits = [hit for task in candidates if (hit := self._hit(task, text, tokens, grams[task.n])) is not None]
        return sorted(hits, key=lambda hit: (-hit.overlap, hit.benchmark, hit.item_id))

    def _found_keys(self, grams: np.ndarray) -> np.ndarray:
        """The document's 3-grams that are some task's (repeats kept): a binary search of each in the tasks'
        few thousand distinct 3-grams, instead of sorting the document's many."""
        if grams.size == 0 or self._distinct_keys.size == 0:
            return grams[:0]
        at = np.searchsorted(self._distinct_keys, grams)
        at[at == self._distinct_keys.size] = 0
        return grams[self._distinct_keys[at] == grams]

    def _hit(self, task: PromptedTask, text: str, tokens: CodeTokens, grams: np.ndarray) -> BenchmarkHit | None:
        """The task's code found in one place (its n-grams inside a window twice its length, not scattered
        over a large file) with its prose told there too (``PROSE_REACH`` around the code): a short
        match counts only when the item's identifying part, its prompt, is found with it."""
        where = np.flatnonzero(np.isin(grams, task.code))
        if len(where) == 0:
            return None
        first, last = densest_window(where, 2 * task.code_length)
        coverage = float(np.isin(task.code, grams[first:last + 1]).mean())
        if coverage < self.min_code_coverage:
            return None
        start, end = tokens.starts[first], tokens.ends[min(last + task.n - 1, len(tokens) - 1)]
        around = text[max(0, start - PROSE_REACH):end + PROSE_REACH // 4]
        if covered_words(np.isin(task.prose, prose_grams(around))) < self.min_prose_overlap:
            return None
        return BenchmarkHit(task.benchmark, task.item_id, coverage, task.code_length,
                            text.count("\n", 0, start) + 1, text.count("\n", 0, end) + 1)


def prompted_items(items: Iterable[BenchmarkText], min_match_tokens: int) -> Iterator[PromptedTask]:
    """The short Python items of ``items`` that carry their prompt (a solution alone has no prose)."""
    for benchmark, item_id, text, *language in items:
        if language and language[0] == PYTHON:
            task = prompted_task(benchmark, item_id, text, min_match_tokens)
            if task is not None:
                yield task


def short_task_index(config: DecontaminationConfig, path: str = "decontamination") -> PromptedTaskIndex:
    """``prompted_items`` over HumanEval (if asked) and every benchmark file."""
    items: list[BenchmarkText] = list(humaneval_items()) if config.humaneval else []
    for i, location in enumerate(config.benchmarks):
        items.extend(read_benchmark(location, join(join(path, "benchmarks"), i)))
    return PromptedTaskIndex(prompted_items(items, config.min_match_tokens))
