"""A document's lowercased text whose ``literal in lowered`` gates are answered from its vocabulary.

Secret detection puts several hundred literal gates (``"akia" in lower``) in front of its regexes; each
is a scan of the whole text. ``Lowered`` answers them exactly, and mostly without that scan: a literal
can occur only if each of its word pieces (maximal ``\\w+`` runs) is a substring of one of the text's
word runs, i.e. of the text's *vocabulary* (its distinct ``\\w+`` runs joined by newlines, ~5x smaller
than code). A literal with a piece missing there is absent; an all-word literal found there is present;
any other is then tested on the full text, so the answer is always ``str.__contains__``'s.
Proof and measurements: docs/design/secret-screen.md.
"""

from __future__ import annotations

import re

WORD = re.compile(r"\w+")


class Lowered(str):
    """``text.lower()`` (pass the lowered string); ``in`` is exact, only faster for absent literals."""

    _vocabulary: str  # built on the first gate (no __slots__: str subtypes cannot have them)
    _lines: dict[tuple[str, ...], list[tuple[int, int]]]  # lines_with's blocks per literal set
    _longest: int

    def vocabulary(self) -> str:
        """The distinct word runs of the text, one per line."""
        try:
            return self._vocabulary
        except AttributeError:
            self._vocabulary = "\n".join(set(WORD.findall(self)))
            return self._vocabulary

    def longest_run(self) -> int:
        """The length of the longest word run (of this lowered text: an ASCII text's are its own)."""
        try:
            return self._longest
        except AttributeError:
            self._longest = max(map(len, self.vocabulary().split("\n")))
            return self._longest

    def mentioned(self, gates: Gates) -> frozenset[str]:
        """The literals of ``gates`` that occur in this text, answered together (cached per ``gates``)."""
        cache = self.__dict__.setdefault("_mentioned", {})
        found = cache.get(id(gates))
        if found is None:
            vocabulary = self.vocabulary()
            found = cache[id(gates)] = frozenset([*(w for w in gates.words if w in vocabulary),
                                                  *(o for o in gates.others if o in self)])
        return found

    def __contains__(self, literal: object) -> bool:
        if not isinstance(literal, str):
            return str.__contains__(self, literal)  # raises TypeError as str does
        pieces = _pieces(literal)
        if pieces:
            vocabulary = self.vocabulary()
            for piece in pieces:
                if piece not in vocabulary:
                    return False
            if pieces[0] == literal:  # all word characters: it lies inside one word run, so it is present
                return True
        return str.__contains__(self, literal)


class Gates:
    """A fixed set of literal gates, split once into all-word literals (answered by the vocabulary
    alone) and the others (``Lowered.__contains__``). Keep one instance per set: results are cached by it."""

    def __init__(self, literals: tuple[str, ...] | frozenset[str]) -> None:
        self.all = frozenset(literals)
        self.words = tuple(sorted(w for w in self.all if _pieces(w) == (w,)))
        self.others = tuple(sorted(self.all.difference(self.words)))


_PIECES: dict[str, tuple[str, ...]] = {}


def _pieces(literal: str) -> tuple[str, ...]:
    """The word runs of ``literal`` (cached: the gates are a fixed set of literals)."""
    pieces = _PIECES.get(literal)
    if pieces is None:
        pieces = tuple(WORD.findall(literal))
        if len(_PIECES) < 10_000:  # bounded, in case a caller passes arbitrary strings
            _PIECES[literal] = pieces
    return pieces


def lines_with(text: str, lower: str, literals: tuple[str, ...]) -> list[tuple[int, int]] | None:
    """Blocks ``(start, end)`` of whole lines of ``text`` holding one of ``literals`` in ``lower``
    (neighbouring lines joined, ``end`` at a newline or the end), or None where a screen on the
    lowered text would not be exact: non-ASCII text, whose lowering can change lengths or make a
    case-insensitive regex match what no ASCII literal does (``ſ`` matches ``s``). Cached per ``lower``."""
    if not isinstance(lower, Lowered) or not text.isascii():
        return None
    try:
        cache = lower._lines
    except AttributeError:
        cache = lower._lines = {}
    blocks = cache.get(literals)
    if blocks is None:
        blocks = cache[literals] = _line_blocks(text, lower, literals)
    return blocks


def _line_blocks(text: str, lower: str, literals: tuple[str, ...]) -> list[tuple[int, int]]:
    lines: set[tuple[int, int]] = set()
    for literal in literals:
        if literal not in lower:  # the vocabulary answers most of these
            continue
        position = str.find(lower, literal)
        while position >= 0:
            start = text.rfind("\n", 0, position) + 1
            end = text.find("\n", position)
            end = len(text) if end < 0 else end
            lines.add((start, end))
            position = str.find(lower, literal, end + 1)
    blocks: list[tuple[int, int]] = []
    for start, end in sorted(lines):
        if blocks and start <= blocks[-1][1] + 1:
            blocks[-1] = (blocks[-1][0], max(blocks[-1][1], end))
        else:
            blocks.append((start, end))
    return blocks
