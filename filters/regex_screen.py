"""Which of many Python regexes can match a text, answered by one Hyperscan pass (issue 49).

Secret detection runs several hundred regexes (its typed patterns, gitleaks' rules, detect-secrets'
plugins, the shape and keyed scans) and most of them match nothing in most files. ``RegexScreen``
compiles all of them once per process into one Hyperscan database and scans a text once; a regex it
does not report cannot match the text, so its scan (and any gate in front of it) is skipped. A regex
it reports runs as before, so findings are unchanged.

Exactness rests on the translation (``superset``): each Python regex becomes a Hyperscan pattern whose
language holds every substring the Python regex can match, wherever in the text:

- look-arounds, ``\\b``, ``\\B``, ``^``, ``$``, ``\\A``, ``\\Z`` are dropped (they only refuse matches);
- a back-reference becomes "any string" (``[\\x00-\\x{10FFFF}]*``); a conditional group, both branches;
  atomic groups and possessive repeats become plain ones (those only refuse matches);
- a single-character item (literal, class, ``.``, ``\\w``...) becomes a class with exactly the ASCII
  characters Python's own ``re`` matches it to (found by compiling that item alone with its flags and
  trying all 128), plus every non-ASCII character unless the item is plainly ASCII (an ASCII literal or
  class without case folding, categories or negation); so case folding (``(?i)`` takes ``ſ`` for ``s``),
  Unicode ``\\w``/``\\d``/``\\s`` and negated classes are all over-approximated for non-ASCII text;
- the database is compiled in UTF-8 mode and scans ``text.encode()``: a Hyperscan character is a code
  point, as a Python ``str`` position is, so repeat counts agree. A text with lone surrogates (no
  UTF-8 form) is not screened: every regex is reported.

Hyperscan reports a match of every pattern that has one (``HS_FLAG_SINGLEMATCH``: the first), and
``HS_FLAG_PREFILTER`` (used where a pattern is too large for exact compilation) only adds matches.
tests/filters/test_regex_screen.py checks on real files that every regex that matches is reported.
Design notes: docs/design/secret-screen.md, section 5.
"""

from __future__ import annotations

import codecs
import contextlib
import hashlib
import json
import os
import re
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from re import _constants as C
from re import _parser

try:  # x86-64 only: elsewhere (ARM) no screen, and every regex runs as it did before the screen
    import hyperscan
except ImportError:
    hyperscan = None

ANY = r"[\x00-\xff]"
NON_ASCII = r"\x80"  # the one byte every non-ASCII character of a text is scanned as
FLAGS = hyperscan.HS_FLAG_ALLOWEMPTY | hyperscan.HS_FLAG_SINGLEMATCH if hyperscan is not None else 0
# Repeat bounds above these are relaxed (``{40,251}`` -> ``{32,}``): the language only grows.
MAX_LOW, MAX_HIGH = 32, 32
SINGLE = (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN)
DROPPED = (C.AT, C.ASSERT, C.ASSERT_NOT)
REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, *((C.POSSESSIVE_REPEAT,) if hasattr(C, "POSSESSIVE_REPEAT") else ()))


def superset(regex: re.Pattern[str]) -> str:
    """A Hyperscan (UTF-8 mode) pattern matching every substring ``regex`` can match, and maybe more."""
    if isinstance(regex.pattern, bytes):
        raise TypeError("str patterns only")
    parsed = _parser.parse(regex.pattern, regex.flags)
    return _trimmed(list(parsed), regex.flags)


def _trimmed(items: list[tuple], flags: int) -> str:
    """``items`` translated, less what cannot decide whether a match exists: a match of ``A X B`` holds
    one of ``X``, and an ``X`` is one of ``A X B`` where ``A`` and ``B`` may be empty. So leading and
    trailing items that can match nothing go, and a leading or trailing ``X{m,n}`` becomes ``X{m}``;
    a whole-pattern group or alternation is trimmed inside (each alternative for itself), and so is a
    whole-pattern look-ahead."""
    if len(items) == 1 and items[0][0] is C.ASSERT and items[0][1][0] == 1:
        # a pattern that is one look-ahead ``(?=X)`` matches (empty) exactly where X matches
        return _trimmed(list(items[0][1][1]), flags)
    items = [item for item in items if item[0] not in DROPPED]
    if len(items) == 1 and items[0][0] is C.SUBPATTERN:
        _group, add, remove, inner = items[0][1]
        return f"(?:{_trimmed(list(inner), (flags | add) & ~remove)})"
    if len(items) == 1 and items[0][0] is C.BRANCH:
        return "(?:" + "|".join(_trimmed(list(branch), flags) for branch in items[0][1][1]) + ")"
    while items and _nullable(*items[0]):
        items.pop(0)
    while items and _nullable(*items[-1]):
        items.pop()
    for at in {0, len(items) - 1} if items else ():
        op, av = items[at]
        if op in REPEATS:
            items[at] = (op, (av[0], av[0], av[2]))
    return _sequence(items, flags)


def _nullable(op, av) -> bool:
    """Whether the item can match the empty string (then it never decides whether a match exists)."""
    if op in DROPPED or op is C.GROUPREF:
        return True
    if op in REPEATS:
        return av[0] == 0 or all(_nullable(*item) for item in av[2])
    if op is C.SUBPATTERN:
        return all(_nullable(*item) for item in av[3])
    if op is C.ATOMIC_GROUP:
        return all(_nullable(*item) for item in av)
    if op is C.BRANCH:
        return any(all(_nullable(*item) for item in branch) for branch in av[1])
    return op is C.GROUPREF_EXISTS  # (said of a conditional group whatever its branches: dropping an end
    # item is always sound, a match of ``X Y`` holds one of ``X``; "nullable" only keeps the screen precise)


def _sequence(items: Iterable[tuple], flags: int) -> str:
    return "".join(_node(op, av, flags) for op, av in items)


def _node(op, av, flags: int) -> str:
    if op in SINGLE:
        return _char_class(op, av, flags)
    if op in DROPPED:
        return ""
    if op in REPEATS:
        low, high, item = av
        body = _sequence(item, flags)
        if not body:
            return ""
        low = min(low, MAX_LOW)  # fewer repetitions required, and
        if high > MAX_HIGH:  # any number more allowed: a superset, far cheaper to compile
            return f"(?:{body}){{{low},}}"
        return f"(?:{body}){{{low},{high}}}"
    if op is C.SUBPATTERN:
        _group, add, remove, item = av
        return f"(?:{_sequence(item, (flags | add) & ~remove)})"
    if op is C.BRANCH:
        return "(?:" + "|".join(_sequence(branch, flags) for branch in av[1]) + ")"
    if op is C.ATOMIC_GROUP:
        return f"(?:{_sequence(av, flags)})"
    if op is C.GROUPREF:
        return f"{ANY}*"
    if op is C.GROUPREF_EXISTS:
        _group, yes, no = av
        return f"(?:{_sequence(yes, flags)}|{_sequence(no or (), flags)})"
    raise ValueError(f"regex_screen: no translation for {op}")


_members_cache: dict[tuple[str, int], frozenset[int]] = {}


def _char_class(op, av, flags: int) -> str:
    """One character item as a class: the ASCII characters ``re`` matches it to, and every non-ASCII
    character unless the item plainly matches ASCII only."""
    key = (repr((op, av)), flags)
    members = _members_cache.get(key)
    if members is None:
        state = _parser.State()
        state.flags = flags
        single = _parser.SubPattern(state, [(op, av)])
        compiled = re._compiler.compile(single, flags)  # re's own matcher decides the ASCII members
        members = _members_cache[key] = frozenset(c for c in range(128) if compiled.fullmatch(chr(c)))
    parts = [f"\\x{c:02x}" for c in sorted(members)]
    if not _ascii_only(op, av, flags):
        parts.append(NON_ASCII)
    if not parts:
        raise ValueError(f"regex_screen: an item that matches nothing: {op} {av}")
    return "[" + "".join(parts) + "]"


def _ascii_only(op, av, flags: int) -> bool:
    if flags & re.IGNORECASE:
        return False
    if op is C.LITERAL:
        return av < 128
    if op is C.IN:
        return all(kind is C.LITERAL and value < 128 or kind is C.RANGE and value[1] < 128 for kind, value in av)
    return False


def required_literal(pattern: re.Pattern) -> str:
    """The longest run of plain characters at the top level of ``pattern``: every match contains it, so a text
    without it has none ("" where there is no such run: an alternation at the top, or case-insensitive matching).
    Read from ``re``'s own parse of the pattern, so it is the engine's reading, not a second one."""
    if pattern.flags & re.IGNORECASE or not isinstance(pattern.pattern, str):
        return ""
    runs, run = [""], []
    for op, value in _parser.parse(pattern.pattern, pattern.flags):
        if op is C.LITERAL:
            run.append(chr(value))
        else:
            runs.append("".join(run))
            run = []
    runs.append("".join(run))
    return max(runs, key=len)


class RegexScreen:
    """The regexes of ``regexes`` that may match a text (``possible``), from one Hyperscan scan."""

    def __init__(self, regexes: Sequence[re.Pattern[str]]) -> None:
        self.regexes = tuple(dict.fromkeys(regexes))  # each once, in order
        self.index = {regex: i for i, regex in enumerate(self.regexes)}
        self.patterns = [superset(regex).encode() for regex in self.regexes]
        self.database = _compiled(self.patterns) if hyperscan is not None else None
        self._local = threading.local()
        self._groups: dict[int, tuple[tuple[re.Pattern[str], ...], dict[int, list[int]], list[int]]] = {}

    def possible(self, text: str) -> Possible | None:
        """The regexes that may match somewhere in ``text`` (``regex in possible``); every one that
        matches is among them, and so is every regex this screen does not hold. None where Hyperscan is
        not installed (no wheel for the machine): not screened, every regex may match."""
        if self.database is None:
            return None
        data = text.encode("ascii", "regex_screen")  # each non-ASCII character (surrogates too) -> one 0x80
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = hyperscan.Scratch(self.database)
        found: list[int] = []
        self.database.scan(data, match_event_handler=_collect, context=found, scratch=scratch)
        return Possible(self, frozenset(found))

    def group(self, regexes: tuple[re.Pattern[str], ...]) -> tuple[dict[int, list[int]], list[int]]:
        """For a fixed tuple of regexes (kept alive by the caller): screen position -> their positions in
        it, and the positions of those the screen does not hold."""
        cached = self._groups.get(id(regexes))
        if cached is None or cached[0] is not regexes:
            by_id: dict[int, list[int]] = {}
            unheld = []
            for position, regex in enumerate(regexes):
                if regex in self.index:
                    by_id.setdefault(self.index[regex], []).append(position)
                else:
                    unheld.append(position)
            cached = self._groups[id(regexes)] = (regexes, by_id, unheld)
        return cached[1], cached[2]


class Possible:
    """``regex in possible``: False only for a regex the screen holds and did not report."""

    __slots__ = ("reported", "screen")

    def __init__(self, screen: RegexScreen, reported: frozenset[int]) -> None:
        self.screen, self.reported = screen, reported

    def __contains__(self, regex: object) -> bool:
        position = self.screen.index.get(regex)
        return position is None or position in self.reported

    def any_of(self, regexes: tuple[re.Pattern[str], ...]) -> bool:
        """Whether any of ``regexes`` (a tuple or list the caller keeps) is in this: one set operation in C,
        not a membership test per regex."""
        by_id, unheld = self.screen.group(regexes)
        return bool(unheld) or not self.reported.isdisjoint(by_id)

    def among(self, regexes: tuple[re.Pattern[str], ...]) -> list[int]:
        """The positions in ``regexes`` (a tuple the caller keeps) of those that may match, in order."""
        by_id, unheld = self.screen.group(regexes)
        return sorted([*unheld, *(position for found in self.reported for position in by_id.get(found, ()))])


def _non_ascii(error: UnicodeError) -> tuple[bytes, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return b"\x80" * (error.end - error.start), error.end


codecs.register_error("regex_screen", _non_ascii)


def _collect(pattern_id: int, _start: int, _end: int, _flags: int, found: list[int]) -> None:
    found.append(pattern_id)


def _compiled(patterns: list[bytes]) -> hyperscan.Database:
    """The database of ``patterns``, from the cache when it was compiled before (~1 CPU s saved per process:
    a build's every worker, a test run); the cached file is named by a hash of everything that makes it."""
    key = hashlib.sha256(json.dumps([hyperscan.__version__, FLAGS, [p.hex() for p in patterns]]).encode()).hexdigest()
    try:
        path = cache_dir() / f"regex-screen-{key[:32]}.hsdb"
    except RuntimeError:  # no home directory (and no cache directory set): compiled each time
        return _compile(patterns)
    with contextlib.suppress(OSError, hyperscan.error):  # absent, unreadable, or made for another CPU: compile
        return hyperscan.loadb(path.read_bytes(), hyperscan.HS_MODE_BLOCK)
    database = _compile(patterns)
    with contextlib.suppress(OSError):  # a read-only home: compiled each time, as without a cache
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        partial.write_bytes(hyperscan.dumpb(database))
        os.replace(partial, path)  # whole or not at all, whoever writes it at the same time
    return database


def cache_dir() -> Path:
    """``$CODEMIX_CACHE_DIR``, else ``$XDG_CACHE_HOME/codemix``, else ``~/.cache/codemix``."""
    if os.environ.get("CODEMIX_CACHE_DIR"):
        return Path(os.environ["CODEMIX_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "codemix"


def _compile(patterns: list[bytes]) -> hyperscan.Database:
    """The database of ``patterns``; if Hyperscan refuses one as too large, all are compiled with
    HS_FLAG_PREFILTER, which may only add matches."""
    ids = list(range(len(patterns)))
    for flags in (FLAGS, FLAGS | hyperscan.HS_FLAG_PREFILTER):
        database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        try:
            database.compile(expressions=patterns, ids=ids, elements=len(patterns), flags=flags)
        except hyperscan.error:
            if flags & hyperscan.HS_FLAG_PREFILTER:
                raise
            continue
        return database
    raise AssertionError("unreachable")
