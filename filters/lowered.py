"""A document's lowercased text whose ``literal in lowered`` gates are answered from its vocabulary.

Secret detection puts several hundred literal gates (``"akia" in lower``) in front of its regexes; each
is a scan of the whole text. ``Lowered`` answers them exactly, and mostly without that scan: a literal
can occur only if each of its word pieces (maximal ``\\w+`` runs) is a substring of one of the text's
word runs (its start or end where punctuation borders the piece), i.e. of the text's *vocabulary* (its
distinct ``\\w+`` runs between newlines, ~5x smaller than code). A literal with a piece missing there is absent; an all-word literal found there is present;
any other is then tested on the full text, so the answer is always ``str.__contains__``'s.
Proof and measurements: docs/design/secret-screen.md.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import numpy as np

WORD = re.compile(r"\w+")
# The same runs in an ASCII text (there ``\w`` is ``[A-Za-z0-9_]`` either way), found ~25% faster.
ASCII_WORD = re.compile(r"\w+", re.ASCII)


class Lowered(str):
    """``text.lower()`` (pass the lowered string); ``in`` is exact, only faster for absent literals."""

    _vocabulary: str  # built on the first gate (no __slots__: str subtypes cannot have them)
    _lines: dict[Any, list[tuple[int, int]]]  # lines_with's blocks per literal set, and lines per literal
    _longest: int

    def search_directly(self) -> None:
        """From now on ``in`` searches the lowered text itself (``str.__contains__``) until something else
        builds the vocabulary: cheaper where only a few literals are asked (a text that secret detection's
        Hyperscan screen has already narrowed, filters/regex_screen.py). The answers are the same."""
        self._direct = True

    def vocabulary(self) -> str:
        """The distinct word runs of the text, each between newlines (``"\\nrun\\nrun\\n"``)."""
        try:
            return self._vocabulary
        except AttributeError:
            words = (ASCII_WORD if self.isascii() else WORD).findall(self)
            self._vocabulary = "\n" + "\n".join(set(words)) + "\n"
            return self._vocabulary

    def longest_run(self) -> int:
        """The length of the longest word run (of this lowered text: an ASCII text's are its own)."""
        try:
            return self._longest
        except AttributeError:
            self._longest = max(map(len, self.vocabulary().split("\n")))  # "" at both ends: 0 at least
            return self._longest

    def long_runs(self, length: int) -> str:
        """The vocabulary's runs of at least ``length`` characters, one per line (ASCII texts: their own)."""
        return "\n".join(run for run in self.vocabulary().split("\n") if len(run) >= length)

    def mentioned(self, gates: Gates) -> frozenset[str]:
        """The literals of ``gates`` that occur in this text, answered together (cached per ``gates``)."""
        cache = self.__dict__.setdefault("_mentioned", {})
        found = cache.get(id(gates))
        if found is None:
            vocabulary = self.vocabulary()
            present = []
            for literal, needles, _ in self._gram_screened(gates, vocabulary):
                for needle in needles:
                    if needle not in vocabulary:
                        break
                else:
                    if needles == (literal,) or str.__contains__(self, literal):
                        present.append(literal)
            found = cache[id(gates)] = frozenset(present)
        return found

    def _gram_screened(self, gates: Gates, vocabulary: str) -> list[tuple[str, tuple[str, ...], tuple]]:
        """The entries of ``gates`` whose needles' 3-grams are all among the vocabulary's (a needle can
        be in the vocabulary only then). An ASCII vocabulary's 3-grams are marked in a bitmap, one bit per
        3-grams of 7-bit characters, and every entry's are looked up there at once."""
        if not vocabulary.isascii():
            grams = set(zip(vocabulary, vocabulary[1:], vocabulary[2:]))
            return [entry for entry in gates.entries if grams.issuperset(entry[2])]
        chars = np.frombuffer(vocabulary.encode("ascii"), dtype=np.uint8).astype(np.int32)
        codes = (chars[:-2] << 14) | (chars[1:-1] << 7) | chars[2:]
        seen = _bitmap()
        seen[codes] = True
        found = seen[gates.codes]
        seen[codes] = False  # cleared for the next text
        complete = np.logical_and.reduceat(found, gates.starts) if len(found) else found
        ranks = [*gates.unscreened, *gates.screened[complete].tolist()]
        return [gates.entries[rank] for rank in sorted(ranks)]

    def __contains__(self, literal: object) -> bool:
        if not isinstance(literal, str):
            return str.__contains__(self, literal)  # raises TypeError as str does
        pieces = _pieces(literal)
        if pieces and ("_vocabulary" in self.__dict__ or "_direct" not in self.__dict__):
            # A piece that punctuation follows (precedes) in the literal ends (starts) a word run wherever
            # the literal occurs: the vocabulary holds it with the newline after (before) it (``sg.``
            # needs a run ending in ``sg``, ``-us`` one starting with ``us``).
            vocabulary = self.vocabulary()
            for piece in pieces:
                if piece not in vocabulary:
                    return False
            if pieces[0] == literal:  # all word characters: it lies inside one word run, so it is present
                return True
        return str.__contains__(self, literal)


class Gates:
    """A fixed set of literal gates, each with its pieces and their 3-grams computed once: a needle is
    in the vocabulary only if its 3-grams are among the vocabulary's, an all-word literal is present when
    its piece is there, and any other is then looked for in the text. Keep one instance per set:
    ``Lowered.mentioned`` caches its answer by it."""

    def __init__(self, literals: tuple[str, ...] | frozenset[str]) -> None:
        self.all = frozenset(literals)
        # each literal, its pieces (with their bordering newlines) and their first and last 3-grams
        self.entries = tuple((literal, _pieces(literal),
                              tuple({tuple(n[i:i + 3]) for n in _pieces(literal) if len(n) >= 3 for i in (0, len(n) - 3)}))
                             for literal in sorted(self.all))
        # The 3-grams of the entries whose 3-grams are all ASCII, as codes ``a << 14 | b << 7 | c``, each
        # entry's from ``starts`` on (``Lowered._gram_screened``); the others are always tried.
        screened = [rank for rank, (_, _, checks) in enumerate(self.entries)
                    if checks and all(c.isascii() for gram in checks for c in gram)]
        self.unscreened = [rank for rank in range(len(self.entries)) if rank not in set(screened)]
        self.screened = np.array(screened, dtype=np.int64)
        codes = [[ord(a) << 14 | ord(b) << 7 | ord(c) for a, b, c in self.entries[rank][2]] for rank in screened]
        self.codes = np.array([code for entry in codes for code in entry], dtype=np.int32)
        self.starts = np.cumsum([0, *map(len, codes)])[:-1]


_PIECES: dict[str, tuple[str, ...]] = {}
_BITMAPS = threading.local()  # one per thread: a text's 3-grams are set, read, then cleared


def _bitmap() -> np.ndarray:
    """A cleared bit (bool) per 3-gram of 7-bit characters, this thread's."""
    bitmap = getattr(_BITMAPS, "bitmap", None)
    if bitmap is None:
        bitmap = _BITMAPS.bitmap = np.zeros(1 << 21, dtype=bool)
    return bitmap


def _pieces(literal: str) -> tuple[str, ...]:
    """The word runs of ``literal``, each with a newline where punctuation borders it in ``literal``
    (cached: the gates are a fixed set of literals). An all-word literal is its only piece."""
    pieces = _PIECES.get(literal)
    if pieces is None:
        pieces = tuple("\n" * (m.start() > 0) + m.group() + "\n" * (m.end() < len(literal))
                       for m in WORD.finditer(literal))
        if len(_PIECES) < 10_000:  # bounded, in case a caller passes arbitrary strings
            _PIECES[literal] = pieces
    return pieces


def lines_with(text: str, lower: str, literals: tuple[str, ...]) -> list[tuple[int, int]] | None:
    """Blocks ``(start, end)`` of whole lines of ``text`` holding one of ``literals`` in ``lower``
    (neighbouring lines joined, ``end`` at a newline or the end), or None where a screen on the
    lowered text would not be exact: where lowering changed the length (``İ`` becomes two characters,
    so offsets differ), or where a case-insensitive regex can match an ASCII letter that the lowered
    text does not hold (``ſ`` matches ``s``, ``ı`` matches ``i``; ``K``, the Kelvin sign, lowers to
    ``k``). These are every character above ASCII that ``re``'s IGNORECASE matches to an ASCII letter
    (found by trying them all: tests/filters/test_secret_screen.py). Cached per ``lower``."""
    if not isinstance(lower, Lowered) or not (text.isascii() or _aligned_ascii_letters(text, lower)):
        return None
    try:
        cache = lower._lines
    except AttributeError:
        cache = lower._lines = {}
    blocks = cache.get(literals)
    if blocks is None:
        lines: set[tuple[int, int]] = set()
        for literal in literals:  # each literal's lines found once per text, whichever sets hold it
            found = cache.get(literal)
            if found is None:
                found = cache[literal] = _lines_of(text, lower, literal)
            lines.update(found)
        blocks = cache[literals] = _joined(lines)
    return blocks


# Characters above ASCII that a case-insensitive ``re`` pattern matches to an ASCII letter, and whose
# lowercase is not that letter (the Kelvin sign lowers to ``k``; ``İ`` lowers to two characters).
FOLDS_TO_ASCII = ("\u017f", "\u0131")  # ſ (s), ı (i)


def _aligned_ascii_letters(text: str, lower: str) -> bool:
    """``lower`` is ``text`` lowered character for character (same length), and every character that a
    case-insensitive regex could take for an ASCII letter is that letter in ``lower``."""
    return len(lower) == len(text) and not any(c in lower for c in FOLDS_TO_ASCII)


def _lines_of(text: str, lower: str, literal: str) -> list[tuple[int, int]]:
    lines: list[tuple[int, int]] = []
    if literal not in lower:  # the vocabulary answers most of these
        return lines
    position = str.find(lower, literal)
    while position >= 0:
        start = text.rfind("\n", 0, position) + 1
        end = text.find("\n", position)
        end = len(text) if end < 0 else end
        lines.append((start, end))
        position = str.find(lower, literal, end + 1)
    return lines


def _joined(lines: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """Lines sorted, neighbours joined into one block (one regex call instead of one per line)."""
    blocks: list[tuple[int, int]] = []
    for start, end in sorted(lines):
        if blocks and start <= blocks[-1][1] + 1:
            blocks[-1] = (blocks[-1][0], max(blocks[-1][1], end))
        else:
            blocks.append((start, end))
    return blocks
