"""The decontamination screen's first level: the projected Python stream read from bytes with numpy alone.

``run_projection`` gives what ``code_screen.light_projection`` gives (the full path's normalised stream
without strings), with two changes that need no per-token Python work: a token is hashed by a polynomial
over its 8-byte words (``run_hash``), and a number is split into its word runs and other characters (``1.5e-3``:
``1``, ``.``, ``5e``, ``-``, ``3``). ``token_run_projection`` makes the same stream from the full path's
tokens, for the benchmark side. It is None wherever ``light_projection`` is, and also for non-ASCII code,
a number glued to a word, and a name after a ``.`` that may belong to a number or an ellipsis.
Design notes and the proof: docs/design/filters.md, "filters/code_screen.py", point 4.
"""

from __future__ import annotations

import itertools
import keyword
import re
from collections.abc import Sequence

import numpy as np

from codemix.filters.code_screen import (
    _NUMBER_PATTERN,
    _STRINGS_AND_COMMENTS,
    _UNSURE_CHARACTERS,
    Projections,
    _drop_comment,
    _ranges,
    columns_consistent,
    full_projection,
    string_prefixes,
)
from codemix.filters.code_tokens import RECEIVERS, CodeTokens

# The k of the run screen's k-grams: one k keeps its cost low; windows under 8 runs are always possible.
RUN_GRAMS = (8,)
_MIX = np.uint64(0x9E3779B97F4A7C15)
# A number followed by a word character: ``tokenize`` splits ``1if``, ``x.5y`` or ``0123`` where a word run
# does not. Matched (atomically, as tokenize takes its first match) only where a run could hide one.
_GLUED_NUMBER = re.compile(rf"(?>{_NUMBER_PATTERN})(?=\w)")
_LETTER = np.zeros(256, dtype=bool)
_LETTER[list(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")] = True

# Byte classes.
_SPACE, _WORD, _NEWLINE, _STRING, _DOT, _OPEN, _CLOSE, _OTHER = range(8)
_CLASSES = np.full(256, _OTHER, dtype=np.uint8)
for _byte in b" \t":
    _CLASSES[_byte] = _SPACE
for _byte in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_":
    _CLASSES[_byte] = _WORD
_CLASSES[ord("\n")], _CLASSES[0], _CLASSES[ord(".")] = _NEWLINE, _STRING, _DOT
for _byte in b"([{":
    _CLASSES[_byte] = _OPEN
for _byte in b")]}":
    _CLASSES[_byte] = _CLOSE
_DIGIT = np.zeros(256, dtype=bool)
_DIGIT[list(b"0123456789")] = True
# A one-character token's hash: its byte times an odd constant (a word run's is mixed: equal odds 2**-64).
_CHARACTER_HASHES = (np.arange(256, dtype=np.uint64) + np.uint64(1 << 40)) * _MIX


_WORD_BASE = 0x9FB21C651E98DF25  # odd
_MASKS = np.array([(1 << (8 * r)) - 1 for r in range(8)], dtype=np.uint64)  # the low r bytes


def _mix(values: np.ndarray) -> np.ndarray:
    """A 64-bit finaliser (xor-shift-multiply), so nearby polynomials land far apart."""
    values = (values ^ (values >> np.uint64(33))) * np.uint64(0xFF51AFD7ED558CCD)
    return values ^ (values >> np.uint64(33))


def run_hash(word: bytes) -> int:
    """The hash ``run_projection`` gives a word run or a one-character token: the run's 8-byte
    little-endian words (the last zero-padded) and its length, as a polynomial mod 2**64, then mixed."""
    if len(word) == 1 and _CLASSES[word[0]] != _WORD:
        return int(_CHARACTER_HASHES[word[0]])
    value = 0
    for at in range(0, len(word), 8):
        value = (value * _WORD_BASE + int.from_bytes(word[at:at + 8], "little")) % (1 << 64)
    value = (value * _WORD_BASE + len(word)) % (1 << 64)
    return int(_mix(np.array([value], dtype=np.uint64))[0])


class _Members:
    """A small set of run hashes, tested by one table lookup per element (``np.isin`` sorts)."""

    __slots__ = ("_shift", "_table")

    def __init__(self, names):
        keys = {run_hash(n.encode()) for n in names}
        for bits in range(8, 20):
            slots = {(k * 0xFF51AFD7ED558CCD % (1 << 64)) >> (64 - bits) for k in keys}
            if len(slots) == len(keys):
                break
        self._shift, self._table = np.uint64(64 - bits), np.zeros(1 << bits, dtype=np.uint64)
        for k in keys:
            self._table[(k * 0xFF51AFD7ED558CCD % (1 << 64)) >> (64 - bits)] = k

    def member(self, hashes: np.ndarray) -> np.ndarray:
        return self._table[(hashes * np.uint64(0xFF51AFD7ED558CCD)) >> self._shift] == hashes


def _hashes(names) -> _Members:
    return _Members(names)


_KEYWORDS = _hashes(keyword.kwlist)
_RECEIVER_RUNS = _hashes(RECEIVERS)
_PREFIX_RUNS = _hashes(string_prefixes())
_COMMA, _CLOSE_PAREN, _DOT_BYTE = ord(","), ord(")"), ord(".")
def _run_hashes(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """``run_hash`` of each word run data[starts[i]:ends[i]], 8 bytes at a time (``data`` ends in 8 spaces)."""
    lengths = ends - starts
    words = np.ndarray((len(data) - 7,), dtype="<u8", buffer=data, strides=(1,))  # words[p]: bytes p..p+7
    values = np.zeros(len(starts), dtype=np.uint64)
    runs, offset, base = np.arange(len(starts)), 0, np.uint64(_WORD_BASE)
    while len(runs):
        word = words[starts[runs] + offset]
        remaining = lengths[runs] - offset
        short = remaining < 8
        word[short] &= _MASKS[remaining[short]]
        values[runs] = values[runs] * base + word
        runs, offset = runs[remaining > 8], offset + 8
    return _mix(values * base + lengths.astype(np.uint64))


# The last text projected and its projection: the code index and the short-task index read the same document one
# after the other (``DocumentFilter.benchmark_hits``). Held as one tuple, so a thread sees a matching pair; the text
# is held too, so no other string can take its identity.
_LAST: tuple[object, tuple[np.ndarray, np.ndarray] | None] = (object(), None)


def run_projection(text: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(run hashes, is-identifier flags) of the full path's normalised Python stream without its strings,
    numbers split into runs; None where ``light_projection`` is None or this reading could differ. The arrays
    are shared with the next caller asking for the same text: read them, do not change them."""
    global _LAST
    last = _LAST
    if last[0] is text:
        return last[1]
    projected = run_projections([text])[0]
    _LAST = (text, projected)
    return projected


def run_projections(texts: Sequence[str]) -> Projections:
    """``run_projection`` of every text, read as one buffer: each text's bytes are its own segment (a newline
    first, a newline and 8 spaces last, as one text alone is read), and every state a reading carries (the
    bracket depth, the statement columns, the symbol before a name, the "unsure" exits) starts anew in each
    segment, so no symbol or window spans two texts. One pass of numpy over many small files instead of one
    per file (a file's fixed cost is most of a small one's: docs/design/filters.md, "filters/code_screen.py", point 5)."""
    rests = [_rest(text) for text in texts]
    sure = np.array([rest is not None for rest in rests], dtype=bool)
    pieces = ["\n" + rest + "\n" + " " * 8 for rest in rests if rest is not None]
    if not pieces:
        return Projections.of_segments(sure, np.empty(0, np.uint64), np.empty(0, bool), np.zeros(0, np.int64))
    lengths = np.array([len(piece) for piece in pieces], dtype=np.int64)
    starts = lengths.cumsum() - lengths
    buffer = "".join(pieces)
    data = np.frombuffer(buffer.encode("ascii"), dtype=np.uint8)
    classes = _CLASSES[data]
    continuation = ((data[:-1] == 92) & (data[1:] == 10)).nonzero()[0]  # a backslash-newline is no token
    classes[continuation], classes[continuation + 1] = _SPACE, _SPACE
    depth = ((classes == _OPEN).astype(np.int32) - (classes == _CLOSE)).cumsum()
    depth -= np.repeat(depth[starts], lengths)  # each segment's own depth: its first byte is a newline
    bad = (np.minimum.reduceat(depth, starts) < 0) | (depth[starts + lengths - 1] != 0)
    bad |= ~_indentation_consistent(data, classes, depth, starts)
    hashes, identifier, segment = _symbols(buffer, data, classes, depth, starts, bad)
    return Projections.of_segments(sure, hashes, identifier, np.bincount(segment, minlength=len(pieces)), bad)


def _rest(text: str) -> str | None:
    """The text with comments dropped and each string left as its marker (a NUL), or None where a reading of
    it could differ from ``tokenize``'s (see ``light_projection``; also non-ASCII)."""
    if any(c in text for c in _UNSURE_CHARACTERS):
        return None
    rest = _STRINGS_AND_COMMENTS.sub(_drop_comment, text)
    if "'" in rest or '"' in rest or rest.endswith(("\\\n", "\\")) or not rest.isascii():
        return None  # a stray quote, or a continuation at the very end
    return rest


def _glued_numbers(rest: str, data: np.ndarray, starting: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The starts of the runs (among ``starting``, ``ends``) where ``tokenize`` may end a number inside a word
    run: checked at every run that starts with a digit and holds a letter or underscore or starts with 0
    (``0x1f``, ``1e``, ``1_000``, ``05``), from the run and, after a ".", from the "." (``.05``, ``x.5y``)."""
    inside = _ranges(starting, ends)
    letters = np.bincount(np.repeat(np.arange(len(starting)), ends - starting), weights=_LETTER[data[inside]],
                          minlength=len(starting))
    suspect = (letters > 0) | ((data[starting] == 48) & (ends - starting > 1))
    glued = []
    for start in starting[suspect].tolist():
        # after a ".", the number starts there (``1.05``, ``x.05``), unless the dot may end an ellipsis
        froms = (start,) if rest[start - 1] != "." else (start - 1, start) if rest[start - 2] == "." else (start - 1,)
        if any(_GLUED_NUMBER.match(rest, at) for at in froms):
            glued.append(start)
    return np.array(glued, dtype=np.int64)


def _indentation_consistent(data: np.ndarray, classes: np.ndarray, depth: np.ndarray, starts: np.ndarray
                            ) -> np.ndarray:
    """``code_screen``'s indentation rule on bytes, per segment (``starts``): a statement starts after a newline
    outside brackets whose next token is not a newline; its column is the newline's own run of spaces and tabs.
    A segment's last newline is followed by spaces and the next segment's first newline, or the end: no statement."""
    n = len(data)
    newlines = (classes == _NEWLINE).nonzero()[0]
    newlines = newlines[depth[newlines] == 0]
    blank = np.concatenate([((data != 32) & (data != 9)).nonzero()[0], [n]])
    ends = blank[blank.searchsorted(newlines + 1)]  # each line's first byte after its spaces and tabs
    following = ends.copy()
    for i in (classes[np.minimum(ends, n - 1)] == _SPACE).nonzero()[0].tolist():  # a continuation first: rare
        while following[i] < n and classes[following[i]] == _SPACE:
            following[i] += 1
    statement = following < n
    statement[statement] = classes[following[statement]] != _NEWLINE
    newlines, ends = newlines[statement], ends[statement]
    columns = (ends - newlines - 1).tolist()
    tabbed = np.empty(0, dtype=np.int64)
    if (data == 9).any():
        tabs = np.concatenate([[0], np.cumsum(data == 9)])
        tabbed = (tabs[ends] > tabs[newlines + 1]).nonzero()[0]
    for i in tabbed.tolist():
        columns[i] = len(data[newlines[i] + 1:ends[i]].tobytes().expandtabs(8))
    bounds = [*newlines.searchsorted(starts).tolist(), len(columns)]
    return np.array([columns_consistent(columns[a:b]) for a, b in itertools.pairwise(bounds)], dtype=bool)


def _symbols(rest: str, data: np.ndarray, classes: np.ndarray, depth: np.ndarray, starts: np.ndarray,
             bad: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Word runs and single characters in order, strings (with their prefixes) and receivers dropped,
    identifiers flagged as ``code_screen.light_projection`` flags them: (hashes, flags, segment of each), the
    symbols of segments found unsure left out (``bad`` is updated)."""
    word = classes == _WORD
    starting = word.copy()
    starting[1:] &= ~word[:-1]
    at = ((classes != _SPACE) & (~word | starting)).nonzero()[0]  # one symbol per run or character
    kind, byte = classes[at], data[at]
    runs = kind == _WORD
    run_at = runs.nonzero()[0]
    ending = word.copy()
    ending[:-1] &= ~word[1:]
    ends = ending.nonzero()[0] + 1
    hashes = _CHARACTER_HASHES[byte]
    run_hashes = hashes[run_at] = _run_hashes(data, at[run_at], ends)
    after = run_at + 1
    glued_string = (kind[after] == _STRING) & (at[after] == ends)
    dropped = np.zeros(len(at), dtype=bool)
    dropped[run_at[glued_string][_PREFIX_RUNS.member(run_hashes[glued_string])]] = True  # a string's prefix
    receivers = run_at[_RECEIVER_RUNS.member(run_hashes)]
    if len(receivers):
        _drop_receivers(data, at, kind, hashes, receivers, dropped)
    newline = kind == _NEWLINE
    counted_mask = ~dropped
    counted_mask[newline] &= depth[at[newline]] == 0
    counted = counted_mask.nonzero()[0]  # a segment's first newline is counted: no symbol sees the one before
    previous = np.full(len(at), -1, dtype=np.int64)
    previous[counted[1:]] = counted[:-1]
    digit_start = np.zeros(len(at), dtype=bool)
    digit_start[run_at] = digit_runs = _DIGIT[byte[run_at]]
    if digit_runs.any():
        bad[starts.searchsorted(_glued_numbers(rest, data, at[run_at[digit_runs]], ends[digit_runs]), "right") - 1] = True
    names = np.zeros(len(at), dtype=bool)
    names[run_at] = ~_KEYWORDS.member(run_hashes)
    names &= ~digit_start & ~dropped
    name_at = names.nonzero()[0]
    before = previous[name_at]
    after_dot = np.zeros(len(at), dtype=bool)
    after_dot[name_at[(before >= 0) & (kind[before] == _DOT)]] = True
    if after_dot.any():
        after_dot, unsure = _after_dot_token(data, at, after_dot, previous, digit_start)
        bad[starts.searchsorted(unsure, "right") - 1] = True
    segment = starts.searchsorted(at, "right") - 1
    projected = ~dropped & ~newline & (kind != _STRING) & ~bad[segment]
    return hashes[projected], (names & ~after_dot)[projected], segment[projected]


def _drop_receivers(data: np.ndarray, at: np.ndarray, kind: np.ndarray, hashes: np.ndarray, receivers: np.ndarray,
                    dropped: np.ndarray) -> None:
    """``self``/``cls`` before ",", ")" or a "." token are dropped, with the "," or "." after them."""
    following = receivers + 1
    where = at[following]
    dot = (kind[following] == _DOT) & ~_DIGIT[data[where + 1]] & ~((data[where + 1] == _DOT_BYTE) & (
        data[where + 2] == _DOT_BYTE))  # not ".5" (a number) nor "..." (an ellipsis)
    comma_or_dot = (hashes[following] == _CHARACTER_HASHES[_COMMA]) | dot
    receiver = comma_or_dot | (hashes[following] == _CHARACTER_HASHES[_CLOSE_PAREN])
    dropped[receivers[receiver]] = True
    dropped[following[comma_or_dot]] = True


def _after_dot_token(data: np.ndarray, at: np.ndarray, after_dot: np.ndarray, previous: np.ndarray,
                     digit_start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which names after a "." follow a "." token: a run of r dots reads as r // 3 ellipses, then single
    dots; and the byte positions of the dots that follow a word starting with a digit (``1.real``: the dot may
    be the number's), where the reading is unsure."""
    dots = previous[after_dot]  # symbol index of each name's "."
    before = data[at[dots] - 1]
    unsure = [at[dots][digit_start[dots - 1] & (_CLASSES[before] == _WORD)]]
    result = after_dot.copy()
    for number in (before == _DOT_BYTE).nonzero()[0].tolist():  # a run of dots: rare, walked back
        start = int(at[dots[number]])
        while data[start - 1] == _DOT_BYTE:
            start -= 1
        if _word_starts_with_digit(data, start - 1):
            unsure.append(np.array([start], dtype=np.int64))
            continue
        result[after_dot.nonzero()[0][number]] = (int(at[dots[number]]) - start + 1) % 3 != 0
    return result, np.concatenate(unsure).astype(np.int64)


def _word_starts_with_digit(data: np.ndarray, end: int) -> bool:
    """Whether the word run ending at byte ``end`` (inclusive) starts with a digit; False if none ends there."""
    if _CLASSES[data[end]] != _WORD:
        return False
    while end > 0 and _CLASSES[data[end - 1]] == _WORD:
        end -= 1
    return bool(_DIGIT[data[end]])


def token_run_projection(tokens: CodeTokens) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(run hashes, is-identifier flags, index in ``tokens``) of the full path's stream without strings,
    each non-identifier token split into word runs and single characters as ``run_projection`` splits it."""
    _, flags, kept = full_projection(tokens)
    hashes, identifier, positions = [], [], []
    for index, is_identifier in zip(kept.tolist(), flags.tolist(), strict=True):
        symbol = tokens.symbols[index].encode()
        pieces = [symbol] if is_identifier else _PIECES.findall(symbol)
        hashes.extend(run_hash(piece) for piece in pieces)
        identifier.extend([is_identifier] * len(pieces))
        positions.extend([index] * len(pieces))
    return (np.array(hashes, dtype=np.uint64), np.array(identifier, dtype=bool), np.array(positions, dtype=np.int64))


_PIECES = re.compile(rb"[A-Za-z0-9_]+|[^A-Za-z0-9_]")
