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
from codemix.filters.code_lexer import _CLASSES, _WORD_BYTE, STRING_HASH, lexed_stream
from codemix.filters.code_runs import run_hash, run_projection, token_run_projection
from codemix.filters.code_screen import ScreenIndex
from codemix.filters.code_tokens import CodeTokens
from codemix.filters.decontamination import (
    PYTHON,
    BenchmarkHit,
    BenchmarkText,
    DecontaminationConfig,
    code_ngram_hashes,
    code_tokens,
    densest_window,
    fold_windows,
    humaneval_items,
    ngram_hashes,
    read_benchmark,
    token_hashes,
)

WORD = re.compile(r"[^\W_]+")  # letters and digits; ``greatest_common_divisor`` is three words
ASCII_WORD = re.compile(r"[^\W_]+", re.ASCII)  # the same words in an ASCII text, found ~30% faster
PROSE_NGRAM = 3
CODE_NGRAM = 5  # short solutions are 4-39 tokens: a 10-gram would not fit most of them
# k of the projected k-grams that screen a Python document's candidates (``ScreenIndex``): each of a task's
# n-gram windows is checked by the largest k that fits in it, a window holding none is always possible.
PYTHON_SCREEN_GRAMS = (3, 5)
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
    screen: np.ndarray  # the prose 3-grams again, as ``screen_grams`` hashes them (same order)
    foreign: np.ndarray  # per prose 3-gram: holds a non-ASCII word
    code_screen: np.ndarray  # per ``code`` n-gram: its hash as ``stream_ngrams`` reads a lexed document
    # The code's stream as ``code_runs.run_projection`` reads a Python document (``token_run_projection``:
    # hashes, identifier flags, token positions) and its n-grams in order: what the Python screen indexes.
    code_runs: tuple[np.ndarray, np.ndarray, np.ndarray]
    code_windows: np.ndarray


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


# --- the screen: a text's prose 3-grams from its bytes, no Python object per word -----------------------
# ``prose_grams`` costs a ``findall`` and a dict lookup per word of every file; here the words that are
# ASCII (runs of ``[a-z0-9]`` in the lowercased text, every other character a separator) are hashed in a
# few numpy passes over the bytes. An ASCII word ``prose_grams`` finds is a maximal run of word characters,
# so it is a word here too, and three consecutive ones are consecutive here. A word's hash is a function of
# its bytes alone, so a 3-gram of ASCII words that ``prose_grams`` finds is found here; a task 3-gram with a
# non-ASCII word counts as found in a non-ASCII text (and can never be in an ASCII one). A text with no
# candidate task by these counts has none by ``prose_grams``'s (only more may pass, on a hash collision).

# byte -> its lowercase if a word byte ([A-Za-z0-9]), else 0
_WORD_BYTES = bytes(c + 32 if 65 <= c <= 90 else c if 97 <= c <= 122 or 48 <= c <= 57 else 0 for c in range(256))
_BASE = 0x9E3779B97F4A7C15  # odd: invertible mod 2**64, so a word's sum is moved back to its first byte
# (_BASE**i, _BASE**-i) for i < their length, grown on demand; replaced as one tuple, so a thread never sees
# one table grown and the other not
_POWERS = (np.ones(1, np.uint64), np.ones(1, np.uint64))
# Longer texts go straight to ``prose_grams``: the two tables stay under 2 * 8 * 2 MiB per process.
SCREEN_MAX_BYTES = 1 << 21
_MASK64 = (1 << 64) - 1
_GRAM_MULTIPLIER = np.uint64(0x100000001B3)
# A text's 3-gram is looked up only when its bucket (top bits of hash * this odd number) holds some task's
_BUCKET_MULTIPLIER, _BUCKET_BITS = np.uint64(0xBF58476D1CE4E5B9), 20


def _powers(n: int) -> tuple[np.ndarray, np.ndarray]:
    global _POWERS
    powers, inverse = _POWERS
    if len(powers) < n:
        size = max(n, min(2 * len(powers), SCREEN_MAX_BYTES))
        powers, inverse = (np.cumprod(np.concatenate([np.ones(1, np.uint64), np.full(size - 1, base, np.uint64)]))
                           for base in (_BASE, pow(_BASE, -1, 1 << 64)))  # uint64 arithmetic wraps mod 2**64
        _POWERS = (powers, inverse)
    return powers[:n], inverse[:n]


def screen_word_hash(word: str) -> int:
    """``sum(byte_k * _BASE**k) mod 2**64`` over the (lowercase) word's UTF-8 bytes: what ``screen_grams``
    computes for each ASCII word of a text."""
    return sum(byte * pow(_BASE, k, 1 << 64) for k, byte in enumerate(word.encode())) & _MASK64


def _screen_3grams(words: np.ndarray) -> np.ndarray:
    if len(words) < PROSE_NGRAM:
        return np.empty(0, dtype=np.uint64)
    return (words[:-2] * _GRAM_MULTIPLIER + words[1:-1]) * _GRAM_MULTIPLIER + words[2:]


def screen_grams(text: str) -> np.ndarray:
    """The 3-grams of the ASCII words of ``text`` lowercased (every other character a separator), each
    hashed from its words' ``screen_word_hash``, in order."""
    return _screen_grams_and_words(text)[0]


def _screen_grams_and_words(text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``screen_grams`` and the words' start and end offsets (3-gram g spans words g .. g + 2)."""
    ascii_bytes = text.encode("ascii") if text.isascii() else text.lower().encode("ascii", "replace")
    data = np.frombuffer(ascii_bytes.translate(_WORD_BYTES), dtype=np.uint8)
    powers, inverse = _powers(len(data))
    sums = np.zeros(len(data) + 1, dtype=np.uint64)
    np.cumsum(data * powers, out=sums[1:])  # sums[i]: the word bytes before i, each times _BASE**position
    in_word = np.zeros(len(data) + 2, dtype=bool)
    in_word[1:-1] = data != 0
    edges = (in_word[1:] != in_word[:-1]).nonzero()[0]  # a word's start, then its end, alternating
    starts, ends = edges[0::2], edges[1::2]
    return _screen_3grams((sums[ends] - sums[starts]) * inverse[starts]), starts, ends


def task_screen_grams(prose: str) -> tuple[np.ndarray, np.ndarray]:
    """A task's prose 3-grams as ``screen_grams`` hashes them (its words as ``prose_grams`` finds them), and
    whether each holds a non-ASCII word (which ``screen_grams`` never finds)."""
    lower = prose.lower()
    words = (ASCII_WORD if lower.isascii() else WORD).findall(lower)
    foreign = np.array([not word.isascii() for word in words], dtype=bool)
    hashes = _screen_3grams(np.array([screen_word_hash(word) for word in words], dtype=np.uint64))
    return hashes, foreign[:len(hashes)] | foreign[1:len(hashes) + 1] | foreign[2:len(hashes) + 2]


# --- the code screen of a lexed document (every language but Python) -----------------------------------------
# ``_hit`` needs ``min_code_coverage`` of a task's code n-grams in one window, so at least that share of them
# anywhere in the document. Read from ``code_lexer.lexed_stream`` (numpy over the bytes, no token objects), a
# token is its ``run_hash`` (every string one hash) or, when an identifier, the distance back to the same name
# as ``code_ngram_hashes`` numbers it. Equal tokens have equal hashes here, so an n-gram the exact reading finds
# is found here; a task whose share falls short here falls short there, and the document is not tokenized.


def token_stream(tokens: CodeTokens) -> tuple[np.ndarray, np.ndarray]:
    """(hashes, is-identifier flags) of the exact tokens as ``lexed_stream`` hashes a document's: a word run or
    character by ``run_hash``, anything else (a string; a token no lexer gives, such as ``1.5``) ``STRING_HASH``."""
    hashes = [run_hash(data) if len(symbol) == 1 or (_CLASSES[np.frombuffer(data, np.uint8)] == _WORD_BYTE).all()
              else STRING_HASH for symbol in tokens.symbols if (data := symbol.encode("utf-8", "surrogatepass"))]
    return np.array(hashes, dtype=np.uint64), np.array(tokens.identifier, dtype=bool)


def stream_ngrams(hashes: np.ndarray, identifier: np.ndarray, n: int) -> np.ndarray:
    """``code_ngram_hashes`` over a stream of hashes: identifiers numbered by the distance back to the same hash."""
    windows = len(hashes) - n + 1
    if windows <= 0:
        return np.empty(0, dtype=np.uint64)
    names = np.flatnonzero(identifier)
    order = names[np.argsort(hashes[names], kind="stable")]  # each name's uses in order, name after name
    back = np.full(len(hashes), n, dtype=np.int64)
    again = hashes[order[1:]] == hashes[order[:-1]]
    back[order[1:][again]] = np.minimum(order[1:][again] - order[:-1][again], n)
    return fold_windows(hashes, identifier, back, n)


def _bucket(grams: np.ndarray) -> np.ndarray:
    return (grams * _BUCKET_MULTIPLIER) >> np.uint64(64 - _BUCKET_BITS)


def covered_words(found: np.ndarray, n: int = PROSE_NGRAM) -> float:
    """The share of a prompt's words inside at least one found 3-gram (``found``: one bool per gram)."""
    words = np.zeros(len(found) + n - 1, dtype=bool)
    for offset in range(n):
        words[offset:offset + len(found)] |= found
    return float(words.mean()) if len(words) else 0.0


def prompted_task(benchmark: str, item_id: str, text: str, min_match_tokens: int) -> PromptedTask | None:
    """The item when the code index leaves it out (under ``min_match_tokens``) and its prompt has prose."""
    tokens = code_tokens(text, PYTHON)
    told = prompt_prose(text)
    prose = prose_grams(told)
    if len(tokens) >= min_match_tokens or len(tokens) == 0 or len(prose) < MIN_PROSE_GRAMS:
        return None
    n = min(CODE_NGRAM, len(tokens))
    windows = code_ngram_hashes(tokens, n)
    code, first = np.unique(windows, return_index=True)
    return PromptedTask(benchmark, item_id, prose, code, n, len(tokens), *task_screen_grams(told),
                        stream_ngrams(*token_stream(tokens), n)[first], token_run_projection(tokens), windows)


class PromptedTaskIndex:
    """Short items matched by prose and code together (see the module docstring)."""

    __slots__ = ("_buckets", "_distinct_keys", "_foreign", "_foreign_candidates", "_keys", "_owners", "_python_screens",
                 "_screen_keys", "_sorted_screen_keys", "_starts", "min_code_coverage", "min_prose_overlap", "tasks")

    def __init__(self, tasks: Iterable[PromptedTask], *, min_prose_overlap: float = 0.5,
                 min_code_coverage: float = 0.8):
        self.tasks = list(tasks)
        self.min_prose_overlap, self.min_code_coverage = min_prose_overlap, min_code_coverage
        # Every task's prose 3-grams in one array: one ``isin`` per document, whatever the task count.
        self._keys = np.concatenate([np.empty(0, np.uint64), *(t.prose for t in self.tasks)])
        self._owners = np.repeat(np.arange(len(self.tasks)), [len(t.prose) for t in self.tasks])
        self._starts = np.concatenate([[0], np.cumsum([len(t.prose) for t in self.tasks])]).astype(int)
        self._distinct_keys = np.unique(self._keys)  # sorted: a document's 3-grams are looked up in it
        # The same 3-grams as the screen hashes them (position for position), and their buckets.
        self._screen_keys = np.concatenate([np.empty(0, np.uint64), *(t.screen for t in self.tasks)])
        self._foreign = np.concatenate([np.empty(0, bool), *(t.foreign for t in self.tasks)])
        self._buckets = np.zeros(1 << _BUCKET_BITS, dtype=bool)
        self._buckets[_bucket(self._screen_keys)] = True
        self._sorted_screen_keys = np.unique(self._screen_keys)
        self._foreign_candidates = bool(self._candidates(self._foreign))  # a non-ASCII text without any 3-gram
        # Per task, a ``ScreenIndex`` of its code alone as a Python document's run projection reads it: a window
        # the exact reading finds has all its projected k-grams there, so a task with fewer than
        # ``min_code_coverage`` of its distinct n-grams' worth of possible windows cannot be hit.
        self._python_screens = [ScreenIndex([(t.code_runs, t.code_windows)], ngram=t.n, min_overlap=min_code_coverage,
                                            min_match_tokens=0, grams=PYTHON_SCREEN_GRAMS,
                                            projections=(_projected, run_projection)) for t in self.tasks]

    def __len__(self) -> int:
        return len(self.tasks)

    def hits(self, text: str, language: str = PYTHON) -> list[BenchmarkHit]:
        """Items whose prose (``min_prose_overlap`` of its words covered by found 3-grams) and code (``min_code_coverage``
        of its n-grams) are both in ``text``; the code is only tokenized when some prose is found. An ASCII
        text is first screened (``screen_grams``): one no task's prose can match is done with."""
        if not self.tasks:
            return []
        passes, spans = self._screened(text)
        if not passes:
            return []
        numbers = self._candidate_numbers(np.isin(self._keys, self._found_keys(self._text_grams(text, spans))))
        if numbers and (not language or language == PYTHON):
            numbers = self._python_screened(numbers, text)
        candidates = [self.tasks[i] for i in numbers]
        if candidates and language and language != PYTHON:
            candidates = self._code_screened(candidates, text, language)
        if not candidates:
            return []
        tokens = code_tokens(text, language or PYTHON)
        grams = {n: code_ngram_hashes(tokens, n) for n in {t.n for t in candidates}}
        hits = [hit for task in candidates if (hit := self._hit(task, text, tokens, grams[task.n])) is not None]
        return sorted(hits, key=lambda hit: (-hit.overlap, hit.benchmark, hit.item_id))

    def may_hit(self, text: str) -> bool:
        """False when ``text`` holds no task's prose as ``hits`` requires it (by ``screen_grams``)."""
        return self._screened(text)[0]

    def _screened(self, text: str) -> tuple[bool, np.ndarray | None]:
        """``may_hit``, and in an ASCII text the (start, end) offsets of every 3-gram that is some task's by
        ``screen_grams`` (else None): the only places where ``prose_grams`` can find a task's 3-gram."""
        if len(text) > SCREEN_MAX_BYTES:
            return True, None
        grams, starts, ends = _screen_grams_and_words(text)
        places = self._buckets[_bucket(grams)].nonzero()[0]
        if places.size:  # the few in a task's bucket, looked up
            at = np.minimum(self._sorted_screen_keys.searchsorted(grams[places]), self._sorted_screen_keys.size - 1)
            places = places[self._sorted_screen_keys[at] == grams[places]]
        spans = np.stack([starts[places], ends[places + 2]]) if text.isascii() else None
        if not places.size:
            return not text.isascii() and self._foreign_candidates, spans
        found = np.isin(self._screen_keys, grams[places])
        return bool(self._candidates(found if text.isascii() else found | self._foreign)), spans

    @staticmethod
    def _text_grams(text: str, spans: np.ndarray | None) -> np.ndarray:
        """``prose_grams(text)`` as far as tasks' 3-grams go: in an ASCII text, the 3-grams at the screen's
        ``spans`` (a task 3-gram's words hash to a task's screen key, so every place ``prose_grams`` finds one
        is among them; a span runs from its first word's start to its third word's end, so its own 3-grams are
        the text's); otherwise all of ``prose_grams``."""
        if spans is None:
            return prose_grams(text)
        return np.concatenate([np.empty(0, np.uint64), *(prose_grams(text[start:end]) for start, end in spans.T.tolist())])

    def _code_screened(self, candidates: list[PromptedTask], text: str, language: str) -> list[PromptedTask]:
        """The candidates whose code n-grams the lexed document may hold (``min_code_coverage`` of them by
        ``stream_ngrams``); all of them when ``lexed_stream`` cannot read it."""
        stream = lexed_stream(text, language)
        if stream is None:
            return candidates
        found = {n: stream_ngrams(*stream, n) for n in {task.n for task in candidates}}
        return [task for task in candidates if np.isin(task.code_screen, found[task.n]).mean() >= self.min_code_coverage]

    def _python_screened(self, numbers: list[int], text: str) -> list[int]:
        """The candidate tasks (by number) whose code the Python document may hold, by each one's ``ScreenIndex``
        over the document's ``run_projection``; all of them when that projection is unsure (None)."""
        projected = run_projection(text)
        if projected is None:
            return numbers
        return [i for i in numbers if self._python_screens[i].may_hit_projected(projected)]

    def _candidates(self, in_text: np.ndarray) -> list[PromptedTask]:
        """The tasks with ``MIN_PROSE_GRAMS`` of their 3-grams found (``in_text``: one bool per key) and
        ``min_prose_overlap`` of their words covered."""
        return [self.tasks[i] for i in self._candidate_numbers(in_text)]

    def _candidate_numbers(self, in_text: np.ndarray) -> list[int]:
        """``_candidates`` by their numbers in ``tasks``."""
        found = np.bincount(self._owners, weights=in_text, minlength=len(self.tasks))
        return [i for i in np.flatnonzero(found >= MIN_PROSE_GRAMS).tolist()
                if covered_words(in_text[self._starts[i]:self._starts[i + 1]]) >= self.min_prose_overlap]

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


def _projected(runs: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A task's code already projected (``PromptedTask.code_runs``), as ``ScreenIndex`` asks an item's projection."""
    return runs


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
