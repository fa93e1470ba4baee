"""gitleaks' published rule set (``data/gitleaks.toml``, vendored unchanged) as a secret detector.

Each rule's regex (Go RE2 syntax, translated where Python's ``re`` differs), its ``keywords`` as the
literal gate, its ``entropy`` floor, ``secretGroup`` and allowlists (stopwords, secret/match/line
regexes), as gitleaks applies them. Rules are skipped when they are scoped to paths (``path``),
span lines (private keys: ``secrets._private_key_findings`` owns those), or are the catch-all
``generic-api-key``, which detect-secrets' keyword scanner covers with our code-aware filters.
"""

from __future__ import annotations

import functools
import math
import re
import tomllib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple, Protocol

from codemix.filters.lowered import Gates, Lowered

RULES_FILE = Path(__file__).with_name("data") / "gitleaks.toml"
SKIPPED_RULES = frozenset({"generic-api-key", "private-key", "pkcs12-file"})
MAX_LINE = 4000  # longer lines are cut into windows around the keyword, like the keyword scanner's
MAX_BLOCK = 20_000  # neighbouring keyword lines are scanned together up to this size


class Rule(NamedTuple):
    id: str
    kind: str  # placeholder name: SECRET_ + the rule id
    regex: re.Pattern[str]
    keywords: tuple[str, ...]
    entropy: float
    group: int
    allow_secret: tuple[re.Pattern[str], ...]
    allow_match: tuple[re.Pattern[str], ...]
    allow_line: tuple[re.Pattern[str], ...]
    stopwords: tuple[str, ...]


POSIX_CLASSES = {"[:alnum:]": "a-zA-Z0-9", "[:alpha:]": "a-zA-Z", "[:digit:]": "0-9", "[:lower:]": "a-z",
                 "[:upper:]": "A-Z", "[:xdigit:]": "0-9A-Fa-f", "[:space:]": r"\s", "[:word:]": r"\w"}
INLINE_FLAG = re.compile(r"(?<!\\)\(\?([a-z]+)\)")
# A rule ending in "(?:[^class]|\z)" with no group reports the delimiter after the token as part of it;
# redaction would mask that quote or backtick too, so the boundary is checked without being consumed.
TRAILING_BOUNDARY = re.compile(r"\(\?:(\[\^(?:\\.|[^\]])+\])\|\\Z\)$")


def go_to_python(regex: str) -> str:
    """RE2 -> ``re``: ``\\z`` is ``\\Z``, POSIX classes spelled out, and a ``(?i)`` past the start
    (which RE2 applies to the rest of its group, every later alternative included) made scoped groups."""
    regex = regex.replace(r"\z", r"\Z")
    regex = TRAILING_BOUNDARY.sub(r"(?=\1|\\Z)", regex)
    for posix, spelled in POSIX_CLASSES.items():
        regex = regex.replace(posix, spelled)
    while (flag := INLINE_FLAG.search(regex, 1)) is not None:
        end = _group_end(regex, flag.end())
        rest = regex[end:]
        if rest.startswith("|"):  # the flag holds in the group's later alternatives too
            rest = "|" + flag.group() + rest[1:]
        regex = regex[:flag.start()] + f"(?{flag.group(1)}:" + regex[flag.end():end] + ")" + rest
    return regex


def _group_end(regex: str, position: int) -> int:
    """Where the group holding ``position`` closes (or the end), skipping escapes and classes."""
    depth, in_class, i = 0, False, position
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            i += 2 if regex[i + 1:i + 2] == "]" or regex[i + 1:i + 3] == "^]" else 1
            continue
        elif c == "(":
            depth += 1
        elif c in ")|" and depth == 0:
            return i
        elif c == ")":
            depth -= 1
        i += 1
    return len(regex)


def kind_of(rule_id: str) -> str:
    return "SECRET_" + re.sub(r"[^A-Z0-9]+", "_", rule_id.upper()).strip("_")


def _compiled(patterns: list[str]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(go_to_python(p)) for p in patterns)


def _rule(raw: dict) -> Rule:
    allow = {"secret": [], "match": [], "line": []}
    stopwords: list[str] = []
    for entry in raw.get("allowlists", []):
        allow[entry.get("regexTarget", "secret")] += entry.get("regexes", [])
        stopwords += entry.get("stopwords", [])
    return Rule(raw["id"], kind_of(raw["id"]), re.compile(go_to_python(raw["regex"])),
                tuple(k.lower() for k in raw.get("keywords", [])), float(raw.get("entropy", 0.0)),
                int(raw.get("secretGroup", 0)), _compiled(allow["secret"]), _compiled(allow["match"]),
                _compiled(allow["line"]), tuple(s.lower() for s in stopwords))


@functools.cache
def rules() -> tuple[tuple[Rule, ...], tuple[re.Pattern[str], ...], tuple[str, ...]]:
    """``(rules, global allowlist regexes, global stopwords)`` from the vendored file."""
    config = tomllib.loads(RULES_FILE.read_text(encoding="utf-8"))
    kept = tuple(_rule(r) for r in config["rules"]
                 if "regex" in r and "path" not in r and r["id"] not in SKIPPED_RULES and r.get("keywords"))
    allow = config.get("allowlist", {})
    return kept, _compiled(allow.get("regexes", [])), tuple(s.lower() for s in allow.get("stopwords", []))


class Hit(NamedTuple):
    start: int
    end: int
    kind: str
    value: str


class Screened(Protocol):
    """What ``regex_screen.RegexScreen.possible`` returns: the rules' regexes that may match a text."""

    def among(self, regexes: tuple[re.Pattern[str], ...]) -> list[int]: ...


def find(text: str, lower: str, possible: Screened | None = None) -> Iterator[Hit]:
    """Every rule's secrets in ``text`` (``lower`` is ``text.lower()``), on the lines its keywords name.
    ``possible``, if given, holds every rule regex that can match ``text`` (``regex_screen``); the others
    are skipped."""
    all_rules, allow, stopwords = rules()
    if len(lower) != len(text):  # lower() changed a length ("İ"): offsets must be the text's
        lower = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    if possible is not None:
        # a rule whose regex cannot match yields nothing; one that can runs on its keywords' lines (none
        # where no keyword is present), exactly as below
        chosen = list(map(all_rules.__getitem__, possible.among(rule_regexes())))
    else:
        # each distinct keyword looked for once, not per rule; a Lowered text answers them all from its vocabulary
        present = lower.mentioned(_gates()) if isinstance(lower, Lowered) else {k for k in _keywords() if k in lower}
        by_keyword = _rules_by_keyword()
        # only the rules a present keyword names, in the rules' order (most texts name none of ~200)
        chosen = list(map(all_rules.__getitem__, sorted({i for k in present for i in by_keyword[k]})))
    for rule in chosen:
        for start, end in _keyword_lines(text, lower, rule.keywords):
            line = text[start:end]
            for match in rule.regex.finditer(line):
                value, offset = _secret(match, rule.group)
                if value and _kept(rule, value, match.group(), line, allow, stopwords):
                    yield Hit(start + offset, start + offset + len(value), rule.kind, value)


@functools.cache
def rule_regexes() -> tuple[re.Pattern[str], ...]:
    """Each rule's regex, in the rules' order (one tuple: ``regex_screen`` indexes it once)."""
    return tuple(rule.regex for rule in rules()[0])


@functools.cache
def _gates() -> Gates:
    return Gates(_keywords())


@functools.cache
def _rules_by_keyword() -> dict[str, tuple[int, ...]]:
    """Each keyword -> the positions of the rules that name it."""
    by_keyword: dict[str, list[int]] = {}
    for i, rule in enumerate(rules()[0]):
        for keyword in rule.keywords:
            by_keyword.setdefault(keyword, []).append(i)
    return {keyword: tuple(positions) for keyword, positions in by_keyword.items()}


@functools.cache
def _keywords() -> frozenset[str]:
    return frozenset(k for rule in rules()[0] for k in rule.keywords)


def _secret(match: re.Match[str], group: int) -> tuple[str, int]:
    """gitleaks' secret: ``secretGroup``, else the first group that matched, else the whole match."""
    if group:
        return match.group(group) or "", match.start(group)
    for i in range(1, (match.re.groups or 0) + 1):
        if match.group(i):
            return match.group(i), match.start(i)
    return match.group(), match.start()


def _kept(rule: Rule, value: str, matched: str, line: str, allow: tuple[re.Pattern[str], ...],
          stopwords: tuple[str, ...]) -> bool:
    if rule.entropy and shannon(value) < rule.entropy:
        return False
    lowered = value.lower()
    return not (any(r.search(value) for r in (*allow, *rule.allow_secret))
                or any(r.search(matched) for r in rule.allow_match) or any(r.search(line) for r in rule.allow_line)
                or any(s in lowered for s in (*stopwords, *rule.stopwords)))


def _keyword_lines(text: str, lower: str, keywords: tuple[str, ...]) -> Iterator[tuple[int, int]]:
    """The lines (or windows of long lines) holding one of ``keywords``, in order, neighbours joined."""
    spans: set[tuple[int, int]] = set()
    for keyword in keywords:
        position = lower.find(keyword)
        while position >= 0:
            start = text.rfind("\n", 0, position) + 1
            end = text.find("\n", position)
            end = len(text) if end < 0 else end
            if end - start > MAX_LINE:
                start, end = max(start, position - MAX_LINE // 2), min(end, position + MAX_LINE // 2)
            spans.add((start, end))
            position = lower.find(keyword, end if end > position else position + 1)
    block: tuple[int, int] | None = None
    for start, end in sorted(spans):  # neighbouring lines run as one block: one regex call, not one per line
        if block and start <= block[1] + 1 and end - block[0] <= MAX_BLOCK:
            block = (block[0], max(block[1], end))
            continue
        if block:
            yield block
        block = (start, end)
    if block:
        yield block


def shannon(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


@functools.cache
def rule_kinds() -> frozenset[str]:
    """Every rule's placeholder name; a function, so that importing this module compiles no rule."""
    return frozenset(rule.kind for rule in rules()[0])
