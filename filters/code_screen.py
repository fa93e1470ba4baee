"""A cheap screen in front of decontamination's ``tokenize`` path: which Python documents cannot hold a hit.

Both sides are *projected*: the normalised stream without its string tokens (docstrings are strings). The full
path's projection of a document (``full_projection``) is recomputed here from regexes and numpy
(``light_projection``), exactly, or the document is declared unsure (None) and goes the full way.
Every n-gram the full path can match lies in a window whose projected k-grams all occur in both,
so an item whose projected k-grams are too few in a document cannot be hit there (``ScreenIndex``).
Design notes and the proof: docs/design/filters.md, "filters/code_screen.py".
"""

from __future__ import annotations

import functools
import keyword
import math
import re
import tokenize
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import xxhash

from codemix.filters.code_tokens import RECEIVERS, CodeTokens, covered

_SCREEN_SALT = np.uint64(0xD6E8FEB86659FD93)
_MULTIPLIER = np.uint64(0x100000001B3)

# Strings exactly as ``tokenize`` delimits them (3.11: triple and single quotes, backslash escapes
# including a backslash-newline), and comments; every branch starts with a literal character, so the
# regex engine skips to the next '#', quote or double quote. A string's prefix stays in the text and
# is taken with its marker below.
_STRINGS_AND_COMMENTS = re.compile(  # bodies unrolled (plain runs between escapes): the same matches, fewer steps
    "#[^\\n]*"
    "|'''[^'\\\\]*(?:(?:\\\\[\\s\\S]|'(?!''))[^'\\\\]*)*'''"
    '|"""[^"\\\\]*(?:(?:\\\\[\\s\\S]|"(?!""))[^"\\\\]*)*"""'
    "|'[^\\n'\\\\]*(?:\\\\[\\s\\S][^\\n'\\\\]*)*'"
    '|"[^\\n"\\\\]*(?:\\\\[\\s\\S][^\\n"\\\\]*)*"')


def string_prefixes() -> list[str]:
    """Every string prefix ``tokenize`` knows (``rb``, ``Rb``, ``f``...), longest first."""
    return sorted((p for p in tokenize._all_string_prefixes() if p), key=len, reverse=True)


_PREFIXES = "|".join(string_prefixes())
_NUMBER_PATTERN = re.sub(r"\((?!\?)", "(?:", tokenize.Number)  # its groups, uncaptured: findall gives strings
# What is left, token by token, most frequent first: names not glued to a marker, a newline with the
# next line's indentation, one-character operators, a string's marker with its prefix (a prefix only
# starts a token where no word character precedes it: a name swallows its letters), a bare marker,
# tokenize's numbers, "...", a backslash continuation, any other word (before a marker, or starting
# with a Unicode digit), and every other character alone (the full path splits operators into
# characters; ``tokenize``'s error tokens are single characters too).
_REST = re.compile(rf"[^\W\d]\w*+(?!\x00)|\n[ \t]*|[^\w\s.\\\x00]|(?<!\w)(?:{_PREFIXES})\x00|\x00"
                   rf"|(?=[0-9.]){_NUMBER_PATTERN}|\.\.\.|\\\n|\w+|[^\w \t\n]")
_NUMBER = re.compile(_NUMBER_PATTERN)
_STRING_SYMBOL = re.compile(r"[A-Za-z]{0,2}['\"]")
# A number glued to a prefixed string (``1r'x'``): tokenize reads ``1`` then ``r'x'``, _REST ``1``, ``r``.
_GLUED = re.compile(r"[0-9][A-Za-z]{1,2}\x00")
_UNSURE_CHARACTERS = ("\r", "\f", "\x00")

# Token classes of the light lexer, in a token's code's low 4 bits (the rest: its hash).
NEWLINE, CONTINUATION, STRING, NUMBER, NAME, KEYWORD, OPEN, CLOSE, OPERATOR, ELLIPSIS = range(10)
_CLASS_BITS = np.uint64(15)


def symbol_hash(symbol: str) -> int:
    """A symbol's 64-bit hash with its low 4 bits clear: the same for the full path's symbols and ours."""
    return xxhash.xxh3_64_intdigest(symbol.encode()) & ~15


class _CodeCache(dict):
    """token text -> symbol_hash | class, filled on first use (most tokens repeat)."""

    def __missing__(self, token: str) -> int:
        if len(self) >= 1 << 18:
            self.clear()
        value = self[token] = symbol_hash(token) | _token_class(token)
        return value


def _token_class(token: str) -> int:
    first = token[0]
    if first == "\n":
        return NEWLINE
    if token == "\\\n":
        return CONTINUATION
    if token[-1] == "\x00":
        return STRING
    if token == "...":  # one token to ``tokenize`` (never a "." before a name), three "." to the full path
        return ELLIPSIS
    if _NUMBER.fullmatch(token):
        return NUMBER
    if first.isalnum() or first == "_" or len(token) > 1:
        return KEYWORD if keyword.iskeyword(token) else NAME
    return OPEN if first in "([{" else CLOSE if first in ")]}" else OPERATOR


_CODES = _CodeCache()
_DOT, _COMMA, _CLOSE_PAREN = (np.uint64(symbol_hash(s)) for s in (".", ",", ")"))
_RECEIVER_HASHES = np.array([symbol_hash(s) for s in RECEIVERS], dtype=np.uint64)


def _drop_comment(match: re.Match) -> str:
    return "" if match.group()[0] == "#" else "\x00"


def light_projection(text: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(symbol hashes, is-identifier flags) of the full path's normalised Python stream without its
    strings, or None when this lexer cannot be sure it agrees with ``tokenize`` (a stray
    quote, unbalanced brackets, an inconsistent dedent, CR or form feed, a number glued to a string)."""
    if any(c in text for c in _UNSURE_CHARACTERS):
        return None
    rest = _STRINGS_AND_COMMENTS.sub(_drop_comment, text)
    if "'" in rest or '"' in rest or rest.endswith("\\\n") or _GLUED.search(rest):
        return None
    tokens = _REST.findall("\n" + rest)
    codes = np.fromiter(map(_CODES.__getitem__, tokens), dtype=np.uint64, count=len(tokens))
    classes = (codes & _CLASS_BITS).astype(np.int8)
    keep = classes != CONTINUATION
    if not keep.all():
        tokens, codes, classes = [t for t, k in zip(tokens, keep.tolist()) if k], codes[keep], classes[keep]
    depth = np.cumsum((classes == OPEN).astype(np.int64) - (classes == CLOSE))
    if len(depth) and (depth.min() < 0 or depth[-1] != 0):
        return None
    newline = classes == NEWLINE
    if not _indentation_consistent(tokens, newline, depth == 0):
        return None
    hashes = codes & ~_CLASS_BITS
    counted = ~(newline & (depth > 0))  # a newline inside brackets (tokenize's NL) never becomes `previous`
    after = np.append(hashes[1:], np.uint64(0))
    receiver = (classes == NAME) & np.isin(hashes, _RECEIVER_HASHES) & (
        (after == _COMMA) | (after == _DOT) | (after == _CLOSE_PAREN))
    dropped = receiver | np.append(False, receiver[:-1] & ((hashes[1:] == _COMMA) | (hashes[1:] == _DOT)))
    order = (counted & ~dropped).nonzero()[0]
    previous_is_dot = np.zeros(len(tokens), dtype=bool)
    previous_is_dot[order[1:]] = hashes[order[:-1]] == _DOT
    identifier = (classes == NAME) & ~previous_is_dot
    projected = ~dropped & (classes != NEWLINE) & (classes != STRING)
    hashes, identifier, ellipsis = hashes[projected], identifier[projected], classes[projected] == ELLIPSIS
    if ellipsis.any():
        hashes[ellipsis] = _DOT
        repeats = np.where(ellipsis, 3, 1)
        hashes, identifier = np.repeat(hashes, repeats), np.repeat(identifier, repeats)
    return hashes, identifier


def _indentation_consistent(tokens: list[str], newline: np.ndarray, outside: np.ndarray) -> bool:
    """False where ``tokenize`` would raise IndentationError: a statement dedented to a column that
    no enclosing block opened (tabs to multiples of 8, as ``tokenize`` counts columns). A statement
    starts after a newline outside brackets that a non-blank line follows."""
    starts = (newline[:-1] & outside[:-1] & ~newline[1:]).nonzero()[0]
    return columns_consistent([len(tokens[i].expandtabs(8)) - 1 for i in starts.tolist()])


def columns_consistent(columns: list[int]) -> bool:
    """False when a statement column dedents to a column no enclosing block opened."""
    stack = [0]
    for column in columns:
        if column > stack[-1]:
            stack.append(column)
        elif column < stack[-1]:
            while column < stack[-1]:
                stack.pop()
            if column != stack[-1]:
                return False
    return True


def full_projection(tokens: CodeTokens) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(token hashes, is-identifier flags, index in ``tokens``) of a normalised stream without its
    string tokens, as the full path made it."""
    kept = [i for i, (symbol, is_identifier) in enumerate(zip(tokens.symbols, tokens.identifier, strict=True))
            if is_identifier or not _STRING_SYMBOL.match(symbol)]
    hashes = np.array([symbol_hash(tokens.symbols[i]) for i in kept], dtype=np.uint64)
    flags = np.array([tokens.identifier[i] for i in kept], dtype=bool)
    return hashes, flags, np.array(kept, dtype=np.int64)


@dataclass(frozen=True, slots=True)
class Projections:
    """The projections of several texts in one pair of arrays: text i's symbols are
    ``hashes[bounds[i]:bounds[i + 1]]`` (with their ``identifier`` flags), and ``sure[i]`` is False where its
    projection is None (unsure; its span is empty)."""

    hashes: np.ndarray  # uint64 (symbols,)
    identifier: np.ndarray  # bool (symbols,)
    bounds: np.ndarray  # int64 (texts + 1,)
    sure: np.ndarray  # bool (texts,)

    @classmethod
    def of_segments(cls, readable: np.ndarray, hashes: np.ndarray, identifier: np.ndarray, counts: np.ndarray,
                    unsure: np.ndarray | None = None) -> Projections:
        """From the symbols of the segments read: one per ``readable`` text, ``counts`` symbols each, those of
        an ``unsure`` segment left out already."""
        sure = readable.copy()
        if unsure is not None:
            sure[readable] = ~unsure
        lengths = np.zeros(len(readable), dtype=np.int64)
        lengths[readable] = counts
        return cls(hashes, identifier, np.concatenate([[0], lengths.cumsum()]).astype(np.int64), sure)

    @classmethod
    def of_each(cls, projections: Sequence[tuple[np.ndarray, np.ndarray] | None]) -> Projections:
        """From each text's own projection (None: unsure)."""
        kept = [p for p in projections if p is not None]
        return cls.of_segments(np.array([p is not None for p in projections], dtype=bool),
                               np.concatenate([np.empty(0, np.uint64), *(p[0] for p in kept)]),
                               np.concatenate([np.empty(0, bool), *(p[1] for p in kept)]),
                               np.array([len(p[0]) for p in kept], dtype=np.int64))

    def __len__(self) -> int:
        return len(self.sure)

    def __getitem__(self, i: int) -> tuple[np.ndarray, np.ndarray] | None:
        if not self.sure[i]:
            return None
        return self.hashes[self.bounds[i]:self.bounds[i + 1]], self.identifier[self.bounds[i]:self.bounds[i + 1]]


@functools.lru_cache(maxsize=16)
def _distance_codes(k: int) -> np.ndarray:
    return np.array([xxhash.xxh3_64_intdigest(f"\x00screen{d}".encode()) for d in range(k)], dtype=np.uint64)


def projected_gram_hashes(hashes: np.ndarray, identifier: np.ndarray, k: int) -> np.ndarray:
    """Hash of every window of ``k`` projected tokens, identifiers coded by the distance back to their
    previous occurrence inside the window (so a renamed copy gives the same hashes). Shape
    ``(len(hashes) - k + 1,)``."""
    windows = len(hashes) - k + 1
    if windows <= 0:
        return np.empty(0, dtype=np.uint64)
    codes = _distance_codes(k)
    literal = np.where(identifier, codes[0], hashes)  # an identifier first seen in the window: code 0
    acc = literal[:windows].copy()
    for j in range(1, k):  # the polynomial of every window with no identifier recalled
        acc *= _MULTIPLIER
        acc += literal[j:j + windows]
    # An identifier whose previous use (the same hash, also an identifier) is ``back`` < k tokens earlier reads
    # as codes[back] in each window holding both: at offset j >= back of window i - j. Those terms are added.
    named = identifier.nonzero()[0]
    if len(named) < 2:
        return acc ^ _SCREEN_SALT
    names = hashes[named]
    order = np.argsort(names, kind="stable")  # each name's uses, in text order
    named, names = named[order], names[order]
    gap = named[1:] - named[:-1]
    recalls = (gap < k) & (names[1:] == names[:-1])
    if recalls.any():
        at, back = named[1:][recalls], gap[recalls]
        spans = k - back  # offsets back .. k - 1
        offset = np.arange(int(spans.sum())) - np.repeat(spans.cumsum() - spans, spans) + np.repeat(back, spans)
        window = np.repeat(at, spans) - offset
        inside = (window >= 0) & (window < windows)
        terms = (codes[np.repeat(back, spans)] - codes[0]) * _powers(k)[k - 1 - offset]
        np.add.at(acc, window[inside], terms[inside])
    return acc ^ _SCREEN_SALT


@functools.lru_cache(maxsize=16)
def _powers(k: int) -> np.ndarray:
    """_MULTIPLIER ** i mod 2**64 for i < k."""
    return np.array([pow(int(_MULTIPLIER), i, 1 << 64) for i in range(k)], dtype=np.uint64)


def window_slices(positions: np.ndarray, spans: int, windows: int, ngram: int) -> tuple[np.ndarray, np.ndarray]:
    """For each of an item's ``windows`` n-gram windows, the projected k-grams wholly inside it, as
    [first, last] (first > last: none). ``positions``: each projected token's index in the normalised
    stream; k-gram p covers projected tokens p..p+k-1."""
    k = len(positions) - spans + 1
    starts, ends = positions[:spans], positions[k - 1:]  # both increasing in p
    window = np.arange(windows)
    first = np.searchsorted(starts, window, side="left")  # k-grams starting at or after the window
    last = np.searchsorted(ends, window + ngram - 1, side="right") - 1  # and ending inside it
    return first, last


SCREEN_GRAMS = (4, 8)


def _ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """``np.arange(s, e)`` for each pair, concatenated."""
    lengths = np.maximum(ends - starts, 0)
    total = int(lengths.sum())
    if not total:
        return np.empty(0, dtype=np.int64)
    return np.repeat(starts - lengths.cumsum() + lengths, lengths) + np.arange(total)


_SLOT_MULTIPLIER = np.uint64(0xFF51AFD7ED558CCD)


def _distinct(values: np.ndarray) -> np.ndarray:
    """``np.unique`` of a 1-D array (sorted, each value once) without its Python-level overhead: a document's
    screen asks it a few times, and most documents are small."""
    values = np.sort(values)
    return values[np.concatenate([[True], values[1:] != values[:-1]])] if len(values) > 1 else values


def _small(values: np.ndarray) -> np.ndarray:
    """``values`` in the narrowest of int8, int16 and int32 that holds them."""
    low, high = (int(values.min()), int(values.max())) if len(values) else (0, 0)
    dtype = next(t for t in (np.int8, np.int16, np.int32) if np.iinfo(t).min <= low and high <= np.iinfo(t).max)
    return values.astype(dtype)


class _Grams:
    """The k-grams of every indexed window for one k: distinct ``keys`` behind a hash table, each
    k-gram occurrence's key, and both directions between occurrences and the windows they check."""

    __slots__ = ("_by_key", "_inverse", "_key_starts", "_occurrence_starts", "_shared", "_shift", "_slots",
                 "_windows", "first", "keys", "last")

    def __init__(self, hashes: np.ndarray, first: np.ndarray, last: np.ndarray):
        keys, inverse = np.unique(hashes, return_inverse=True)
        self.__setstate__((keys, _small(inverse), first.astype(np.int32), _small(last - first)))

    def __getstate__(self) -> tuple:
        # Pickled small: key numbers and each window's last k-gram (as a span from its first) in the
        # narrowest integer type that holds them; the rest is derived.
        return self.keys, _small(self._inverse), self.first, _small(self.last - self.first)

    def __setstate__(self, state: tuple) -> None:
        self.keys, inverse, self.first, span = state
        self._inverse, self.last = inverse.astype(np.int32), self.first + span.astype(np.int32)
        first, last = self.first.astype(np.int64), self.last.astype(np.int64)
        self._by_key = np.argsort(self._inverse, kind="stable").astype(np.int32)
        self._key_starts = np.searchsorted(self._inverse[self._by_key], np.arange(len(self.keys) + 1))
        checked = (first <= last).nonzero()[0]
        occurrences = _ranges(first[checked], last[checked] + 1)
        order = np.argsort(occurrences, kind="stable")
        self._windows = np.repeat(checked, (last - first + 1)[checked])[order].astype(np.int32)
        self._occurrence_starts = np.searchsorted(occurrences[order], np.arange(len(self._inverse) + 1))
        bits = max(10, (4 * len(self.keys)).bit_length())
        self._shift = np.uint64(64 - bits)
        slot = self._slot(self.keys)
        self._slots = np.full(1 << bits, -1, dtype=np.int32)
        self._slots[slot] = np.arange(len(self.keys), dtype=np.int32)
        self._shared = np.bincount(slot, minlength=1 << bits) > 1  # looked up by binary search

    def _slot(self, hashes: np.ndarray) -> np.ndarray:
        return (hashes * _SLOT_MULTIPLIER) >> self._shift

    def _found_keys(self, found: np.ndarray) -> np.ndarray:
        """Indices of the keys among the hashes ``found``."""
        slot = self._slot(found)
        index = self._slots[slot]
        hit = index >= 0
        keys = index[hit][self.keys[index[hit]] == found[hit]]
        shared = self._shared[slot]
        if shared.any() and len(self.keys):
            at = np.minimum(np.searchsorted(self.keys, found[shared]), len(self.keys) - 1)
            keys = np.concatenate([keys, at[self.keys[at] == found[shared]]])
        return _distinct(keys)

    def possible_windows_of(self, found: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``possible_windows`` of several documents at once: ``found`` holds all their hashes, ``group[i]`` the
        document of ``found[i]``. (documents, windows): each pair a window possible in that document."""
        slot = self._slot(found)
        index = self._slots[slot]
        hit = (index >= 0).nonzero()[0]
        hit = hit[self.keys[index[hit]] == found[hit]]
        groups, keys = [group[hit]], [index[hit].astype(np.int64)]
        shared = self._shared[slot].nonzero()[0]
        if len(shared) and len(self.keys):
            at = np.minimum(np.searchsorted(self.keys, found[shared]), len(self.keys) - 1)
            equal = self.keys[at] == found[shared]
            groups.append(group[shared[equal]])
            keys.append(at[equal].astype(np.int64))
        n_keys, n_occurrences, n_windows = len(self.keys), len(self._inverse), len(self.first)
        pairs = _distinct(np.concatenate(groups).astype(np.int64) * n_keys + np.concatenate(keys))  # (document, key)
        pair_group, keys = pairs // max(n_keys, 1), pairs % max(n_keys, 1)
        lows, highs = self._key_starts[keys], self._key_starts[keys + 1]
        # (document, occurrence of a key it holds), sorted: each document's present occurrences in order
        present = np.sort(np.repeat(pair_group, highs - lows) * n_occurrences + self._by_key[_ranges(lows, highs)])
        present_group, occurrences = present // max(n_occurrences, 1), present % max(n_occurrences, 1)
        lows, highs = self._occurrence_starts[occurrences], self._occurrence_starts[occurrences + 1]
        touched = _distinct(np.repeat(present_group, highs - lows) * n_windows + self._windows[_ranges(lows, highs)])
        touched_group, windows = touched // max(n_windows, 1), touched % max(n_windows, 1)
        base = touched_group * n_occurrences
        first, last = self.first[windows].astype(np.int64), self.last[windows].astype(np.int64)
        inside = present.searchsorted(base + last, side="right") - present.searchsorted(base + first, side="left")
        possible = inside == last - first + 1
        return touched_group[possible], windows[possible]

    def possible_windows(self, found: np.ndarray) -> np.ndarray:
        """The windows whose k-grams all occur among the hashes ``found`` (windows checked by this k)."""
        keys = self._found_keys(found)
        if not len(keys):
            return self._windows[:0]
        present = np.sort(self._by_key[_ranges(self._key_starts[keys], self._key_starts[keys + 1])])
        if not len(present):
            return present
        touched = _distinct(self._windows[_ranges(self._occurrence_starts[present], self._occurrence_starts[present + 1])])
        first, last = self.first[touched], self.last[touched]
        inside = present.searchsorted(last, side="right") - present.searchsorted(first, side="left")
        return touched[inside == last - first + 1]


class ScreenIndex:
    """Every indexed code item text's projected k-grams (k in ``grams``) and, per n-gram window, the
    k-grams of the largest k wholly inside it. A window the full path finds in a document has all
    those k-grams there too, so an item text can only be hit where at least ``min_overlap`` of its
    distinct n-grams' worth of windows, covering ``min_match_tokens`` tokens, have all theirs
    present (``may_hit``). A window holding no k-gram is always possible."""

    __slots__ = ("_first", "_free", "_free_counts", "_length", "_needed", "_owner", "_parts", "_project", "_start",
                 "_texts", "grams", "min_match_tokens", "ngram", "unbounded")

    def __init__(self, items: list[tuple[CodeTokens, np.ndarray]], *, ngram: int, min_overlap: float,
                 min_match_tokens: int, grams: tuple[int, ...] = SCREEN_GRAMS,
                 projections: tuple[Callable, Callable] = (full_projection, light_projection),
                 first: ScreenIndex | None = None, same_items: ScreenIndex | None = None):
        """``items``: (normalised tokens, n-grams) of each code text the full index holds. ``projections``:
        how an item's tokens and a document's text are projected (the same stream, or the document's None).
        ``first``: a cheaper screen asked before this one; a document it clears is cleared. ``same_items``: a
        screen of the same items, whose window arrays this one shares."""
        self.grams, self.ngram, self.min_match_tokens, self._first = grams, ngram, min_match_tokens, first
        project_item, self._project = projections
        parts = {k: ([], [], [], 0) for k in grams}  # k -> (hashes, firsts, lasts, offset)
        chosen_all, owners, starts, needed, lengths = [], [], [], [], []
        for number, (tokens, full_grams) in enumerate(items):
            projected_hashes, identifier, positions = project_item(tokens)
            windows = len(full_grams)
            chosen = np.full(windows, -1, dtype=np.int64)  # which k each window is checked by
            per_k = {}
            for k in grams:
                projected = projected_gram_hashes(projected_hashes, identifier, k)
                first, last = window_slices(positions, len(projected), windows, ngram)
                per_k[k] = (projected, first, last)
                chosen[first <= last] = k
            for k in grams:
                hashes, firsts, lasts, offset = parts[k]
                projected, first, last = per_k[k]
                mine = chosen == k
                hashes.append(projected)
                firsts.append(np.where(mine, first + offset, 1))
                lasts.append(np.where(mine, last + offset, 0))  # first > last: not checked by this k
                parts[k] = (hashes, firsts, lasts, offset + len(projected))
            chosen_all.append(chosen)
            owners.append(np.full(windows, number, dtype=np.int32))
            starts.append(np.arange(windows, dtype=np.int64))
            needed.append(max(1, math.ceil(min_overlap * len(np.unique(full_grams)) - 1e-9)))
            lengths.append(windows + ngram - 1)
        self._texts = len(items)
        self._parts = {}
        for k, (hashes, firsts, lasts, _) in parts.items():
            self._parts[k] = _Grams(np.concatenate([np.empty(0, np.uint64), *hashes]),
                                    np.concatenate([np.empty(0, np.int64), *firsts]),
                                    np.concatenate([np.empty(0, np.int64), *lasts]))
        self._free = np.concatenate([np.empty(0, np.int64), *chosen_all]) < 0  # windows no k-gram fits in
        self._owner = np.concatenate([np.empty(0, np.int32), *owners])
        self._start = np.concatenate([np.empty(0, np.int64), *starts]).astype(np.int32)
        self._needed, self._length = np.array(needed, dtype=np.int64), np.array(lengths, dtype=np.int64)
        for other in (self._first, same_items):  # the same windows: share the arrays (pickled once)
            for name in ("_owner", "_start", "_needed", "_length"):
                if other is not None and np.array_equal(getattr(other, name), getattr(self, name)):
                    setattr(self, name, getattr(other, name))
        self._free_counts = np.bincount(self._owner[self._free], minlength=self._texts)
        self.unbounded = int((self._free_counts >= self._needed).sum())  # texts every document passes for

    def may_hit(self, text: str) -> bool:
        """False only when the full path can hit no indexed code text in ``text`` read as Python."""
        if self._first is not None and not self._first.may_hit(text):
            return False
        return self.unbounded > 0 or self.may_hit_projected(self._project(text))

    def may_hit_many(self, texts: Sequence[str], project_many: Callable[[Sequence[str]], Projections]) -> np.ndarray:
        """``may_hit`` of each text (bool array), the cheapest screen asked of all of them at once: ``project_many``
        gives their projections together. A text it passes is screened here alone (few are)."""
        if self._first is None:
            return np.ones(len(texts), dtype=bool) if self.unbounded else self.may_hit_all(project_many(texts))
        passed = self._first.may_hit_many(texts, project_many)
        for i in passed.nonzero()[0].tolist():
            passed[i] = self.unbounded > 0 or self.may_hit_projected(self._project(texts[i]))
        return passed

    def may_hit_all(self, batch: Projections) -> np.ndarray:
        """``may_hit_projected`` of every text of ``batch`` (bool array): the k-grams of all texts found at once,
        no window across two texts."""
        texts = len(batch)
        if self.unbounded:
            return np.ones(texts, dtype=bool)
        lengths = np.diff(batch.bounds)
        text_of = np.repeat(np.arange(texts), lengths)
        groups, windows = [], []
        for k, part in self._parts.items():
            grams = projected_gram_hashes(batch.hashes, batch.identifier, k)
            start = np.arange(len(grams))
            whole = start + k <= batch.bounds[1:][text_of[:len(grams)]]  # the window ends in its first text
            group, window = part.possible_windows_of(grams[whole], text_of[:len(grams)][whole])
            groups.append(group)
            windows.append(window)
        group, windows = np.concatenate([np.empty(0, np.int64), *groups]), np.concatenate([np.empty(0, np.int64), *windows])
        counts = np.bincount(group * self._texts + self._owner[windows], minlength=texts * self._texts)
        counts = counts.reshape(texts, self._texts) + self._free_counts
        result = ~batch.sure
        for text, number in zip(*(counts >= self._needed).nonzero(), strict=True):
            if result[text]:
                continue
            mine = (self._free & (self._owner == number)).nonzero()[0]
            inside = windows[(group == text) & (self._owner[windows] == number)]
            starts = self._start[np.concatenate([mine, inside])]
            result[text] = covered(starts, self.ngram, int(self._length[number])) >= self.min_match_tokens
        return result

    def may_hit_projected(self, light: tuple[np.ndarray, np.ndarray] | None) -> bool:
        """``may_hit`` on a document already projected (None: unsure, it passes)."""
        if self.unbounded or light is None:
            return True
        possible = [part.possible_windows(projected_gram_hashes(*light, k)) for k, part in self._parts.items()]
        windows = np.concatenate([np.empty(0, dtype=np.int64), *possible])  # each window is checked by one k
        if not len(windows):
            return False  # free windows alone reach no text's minimum (unbounded is 0)
        counts = self._free_counts + np.bincount(self._owner[windows], minlength=self._texts)
        for number in (counts >= self._needed).nonzero()[0].tolist():
            mine = (self._free & (self._owner == number)).nonzero()[0]
            starts = self._start[np.concatenate([mine, windows[self._owner[windows] == number]])]
            if covered(starts, self.ngram, int(self._length[number])) >= self.min_match_tokens:
                return True
        return False
