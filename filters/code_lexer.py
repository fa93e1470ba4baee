"""The code token stream of every language but Python, shared by decontamination's exact check and its screen.

One definition, read two ways: ``lexed_tokens`` gives the exact check its ``CodeTokens`` (a Python loop over
regex matches), and ``lexed_projection`` gives the screen the same stream without its strings as hashes, from
the document's bytes with numpy alone (no Python object per token). A token is a comment (dropped), a string
(whole), a word run or one other non-space character; a word is an identifier unless it is one of the
language's keywords (its tree-sitter grammar's anonymous word tokens), starts with a digit or follows a ".".
Design notes and why the screen never hides a hit: docs/design/filters.md, "filters/code_lexer.py".
"""

from __future__ import annotations

import functools
import keyword
import re
from dataclasses import dataclass

import numpy as np

from codemix.filters.code_runs import _CHARACTER_HASHES, _run_hashes, run_hash
from codemix.filters.code_tokens import CodeTokens

# Comments and strings, as regex fragments. Each starts with a character no
# word run holds ('/', '#', '-', '@', a quote, a backtick) or where no word character precedes it, so scanning for them alone (the
# screen's ``sub``) and scanning for every token (the exact check's ``finditer``) find the same ones.
# Bodies unrolled (plain runs between escapes or stars): the same matches as the plain forms, fewer steps.
SLASH_LINE, SLASH_BLOCK, HASH_LINE, DASH_LINE = r"//[^\n]*", r"/\*[^*]*\*+(?:[^/*][^*]*\*+)*/", r"#[^\n]*", r"--[^\n]*"
DOUBLE = r'"[^"\\\n]*(?:\\[\s\S][^"\\\n]*)*"'
DOUBLE_MULTILINE = r'"[^"\\]*(?:\\[\s\S][^"\\]*)*"'  # Rust's strings may span lines
TRIPLE = r'"""[\s\S]*?"""'
SINGLE = r"'[^'\\\n]*(?:\\[\s\S][^'\\\n]*)*'"
CHARACTER = r"'(?:[^'\\\n]|\\[^\n]{1,10}?)'"  # 'a', '\n', '\u{1F600}'; a Rust lifetime 'a stays a "'" and a word
TEMPLATE = r"`[^`\\]*(?:\\[\s\S][^`\\]*)*`"
# Raw strings start with a letter: only where no word character precedes it, so that a word run never ends
# inside one (``xr"a"`` is the word ``xr`` and the string ``"a"`` in both readings). The check follows the
# first character (``(?<!W.)``: the character before it is no word character), so the engine still skips
# to that character.
_AFTER_NO_WORD = "(?<![A-Za-z0-9_\x80-\U0010ffff].)"
RUST_RAW = rf'(?:b{_AFTER_NO_WORD}r|r{_AFTER_NO_WORD})(?P<hashes>#*)"[\s\S]*?"(?P=hashes)'
RUST_BYTES = rf"b{_AFTER_NO_WORD}(?:{DOUBLE_MULTILINE}|{CHARACTER})"
CPP_RAW = (rf'(?:(?:u{_AFTER_NO_WORD}8|[uUL]{_AFTER_NO_WORD})R|R{_AFTER_NO_WORD})'
           r'"(?P<delimiter>[^()\\ \n]{0,16})\([\s\S]*?\)(?P=delimiter)"')
VERBATIM = r'@"(?:[^"]|"")*"'  # C#
RAW_BACKTICK = r"`[^`]*`"
# Whitespace and word characters, the same in ``str`` and in UTF-8 bytes (a non-ASCII character is a word
# character: all its bytes are >= 0x80).
_SPACE = " \t\n\r\f\v"
_WORD = "A-Za-z0-9_\x80-\U0010ffff"


@dataclass(frozen=True, slots=True)
class Syntax:
    """How a family of languages writes comments and strings (regex fragments, tried in order).

    ``rare``: (trigger, fragment) pairs tried first, each only in a text where its trigger occurs. A
    fragment that starts with a lookbehind gives the regex engine no first character to skip to, so it
    would be tried at every position of every document; no match of it can exist where its trigger does
    not, so leaving it out there changes nothing."""

    comments: tuple[str, ...]
    strings: tuple[str, ...]
    rare: tuple[tuple[str, str], ...] = ()


@functools.cache
def _patterns(syntax: Syntax, present: tuple[bool, ...] = ()) -> tuple[re.Pattern, re.Pattern]:
    """(comments and strings alone, every token) of ``syntax``, with the ``rare`` fragments ``present``."""
    strings = (*(fragment for (_, fragment), on in zip(syntax.rare, present, strict=False) if on), *syntax.strings)
    return (re.compile("|".join((*syntax.comments, *strings))),
            re.compile(f"(?P<comment>{'|'.join(syntax.comments)})|(?P<string>{'|'.join(strings)})"
                       f"|(?P<word>[{_WORD}]+)|(?P<other>[^{_SPACE}])"))


@functools.cache
def _triggers(syntax: Syntax) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(trigger) for trigger, _ in syntax.rare)


def _text_patterns(text: str, language: str) -> tuple[re.Pattern, re.Pattern]:
    """The patterns that read ``text``: the same for the exact check and the screen."""
    syntax = syntax_of(language)
    return _patterns(syntax, tuple(trigger.search(text) is not None for trigger in _triggers(syntax)))


C_LIKE = Syntax((SLASH_LINE, SLASH_BLOCK), (DOUBLE, CHARACTER))
CPP = Syntax((SLASH_LINE, SLASH_BLOCK), (DOUBLE, CHARACTER), rare=(('R"', CPP_RAW),))
RUST = Syntax((SLASH_LINE, SLASH_BLOCK), (DOUBLE_MULTILINE, CHARACTER),
              rare=((r'r#*"', RUST_RAW), (r"b[\"']", RUST_BYTES)))
C_SHARP = Syntax((SLASH_LINE, SLASH_BLOCK), (VERBATIM, DOUBLE, CHARACTER))
C_LIKE_TRIPLE = Syntax((SLASH_LINE, SLASH_BLOCK), (TRIPLE, DOUBLE, CHARACTER))
GO = Syntax((SLASH_LINE, SLASH_BLOCK), (DOUBLE, CHARACTER, RAW_BACKTICK))
JS_LIKE = Syntax((SLASH_LINE, SLASH_BLOCK), (DOUBLE, SINGLE, TEMPLATE))
PHP = Syntax((SLASH_LINE, SLASH_BLOCK, HASH_LINE), (DOUBLE, SINGLE, TEMPLATE))
HASH_LIKE = Syntax((HASH_LINE,), (TRIPLE, DOUBLE, SINGLE, TEMPLATE))
DASH_LIKE = Syntax((DASH_LINE,), (DOUBLE, CHARACTER))
GENERIC = Syntax((SLASH_LINE, SLASH_BLOCK, HASH_LINE), (DOUBLE, SINGLE))  # any other language, "" included

SYNTAXES = {
    **dict.fromkeys(("c", "objective-c", "java", "groovy", "zig", "solidity", "verilog", "systemverilog",
                     "protocol buffer", "hcl"), C_LIKE),
    **dict.fromkeys(("cpp", "cuda", "objective-c++"), CPP),
    "rust": RUST,
    "c#": C_SHARP,
    **dict.fromkeys(("kotlin", "scala", "swift"), C_LIKE_TRIPLE),
    "go": GO,
    **dict.fromkeys(("javascript", "typescript", "tsx", "dart", "vue", "svelte", "coffeescript"), JS_LIKE),
    "php": PHP,
    **dict.fromkeys(("ruby", "shell", "perl", "r", "julia", "elixir", "cython", "makefile", "cmake", "dockerfile",
                     "yaml", "toml", "nim", "powershell", "fish", "awk", "tcl", "starlark", "nix"), HASH_LIKE),
    **dict.fromkeys(("lua", "haskell", "sql", "elm", "ada", "vhdl"), DASH_LIKE),
}
# Languages (the pipeline's names) whose grammar tree-sitter-language-pack ships, by its names.
TREE_SITTER_NAMES = {
    "javascript": "javascript", "typescript": "typescript", "tsx": "tsx", "java": "java", "c": "c", "cpp": "cpp",
    "cuda": "cpp", "c#": "csharp", "go": "go", "rust": "rust", "ruby": "ruby", "php": "php", "kotlin": "kotlin",
    "scala": "scala", "swift": "swift", "lua": "lua", "r": "r", "julia": "julia", "shell": "bash", "dart": "dart",
    "haskell": "haskell", "elixir": "elixir", "objective-c": "objc", "perl": "perl",
}
# Words that stay literal in languages without a grammar: Python's and the usual C-family ones.
COMMON_KEYWORDS = frozenset(keyword.kwlist) | frozenset(
    ["if", "else", "for", "while", "do", "return", "function", "var", "let", "const", "class", "new", "this", "switch",
     "case", "break", "continue", "int", "void", "static", "public", "private", "protected", "struct", "func", "fn",
     "end", "then", "elif", "local"])


def syntax_of(language: str) -> Syntax:
    return SYNTAXES.get(language, GENERIC)


@functools.cache
def keywords(language: str) -> frozenset[str]:
    """The words a language reserves: its tree-sitter grammar's anonymous tokens that are words (``func``,
    ``return``, ``struct``), so a renamed copy keeps them; else ``COMMON_KEYWORDS``."""
    name = TREE_SITTER_NAMES.get(language)
    if name is None:
        return COMMON_KEYWORDS
    import tree_sitter_language_pack

    try:
        grammar = tree_sitter_language_pack.get_language(name)
    except (LookupError, ValueError, RuntimeError):
        return COMMON_KEYWORDS
    kinds = (grammar.node_kind_for_id(i) for i in range(grammar.node_kind_count)
             if not grammar.node_kind_is_named(i) and grammar.node_kind_is_visible(i))
    return frozenset(kind for kind in kinds if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", kind))


@functools.cache
def _keyword_hashes(language: str) -> np.ndarray:
    return np.unique(np.array([run_hash(word.encode()) for word in keywords(language)], dtype=np.uint64))


def lexed_tokens(text: str, language: str) -> CodeTokens:
    """The exact check's stream: comments dropped, strings whole, words and other characters one token each."""
    words = keywords(language)
    out, previous = CodeTokens(), ""
    for match in _text_patterns(text, language)[1].finditer(text):
        kind, token = match.lastgroup, match.group()
        if kind == "comment":
            previous = "\x00"  # as the screen reads it: a comment, like a string, is no "." before a name
            continue
        identifier = kind == "word" and not "0" <= token[0] <= "9" and token not in words and previous != "."
        out.add(token, match.start(), match.end(), identifier)
        previous = token
    return out


# Byte classes of the screen's reading.
_BLANK, _WORD_BYTE, _OTHER, _STRING = range(4)
_CLASSES = np.full(256, _OTHER, dtype=np.uint8)
_CLASSES[list(_SPACE.encode())] = _BLANK
_CLASSES[list(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")] = _WORD_BYTE
_CLASSES[0x80:] = _WORD_BYTE
_CLASSES[0] = _STRING  # what a string becomes before the bytes are read
_DOT = ord(".")


def lexed_projection(text: str, language: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(hashes, is-identifier flags) of ``lexed_tokens(text, language)`` without its strings, a word run or
    character hashed by ``code_runs.run_hash``; None for text holding a NUL (it marks strings
    here) or a lone surrogate."""
    if "\x00" in text:
        return None
    rest = " " + _text_patterns(text, language)[0].sub("\x00", text) + " " * 9  # room to read 8 bytes past a run
    try:
        data = np.frombuffer(rest.encode("utf-8"), dtype=np.uint8)
    except UnicodeEncodeError:  # a lone surrogate: the exact check reads it
        return None
    classes = _CLASSES[data]
    word = classes == _WORD_BYTE
    starting = word.copy()
    starting[1:] &= ~word[:-1]
    at = ((classes != _BLANK) & (~word | starting)).nonzero()[0]  # each token's first byte
    is_run = word[at]
    ending = word.copy()
    ending[:-1] &= ~word[1:]
    ends = ending.nonzero()[0] + 1
    hashes = _CHARACTER_HASHES[data[at]]
    run_at = is_run.nonzero()[0]
    hashes[run_at] = _run_hashes(data, at[run_at], ends)
    keys = _keyword_hashes(language)
    identifier = is_run & (data[at] - ord("0") > 9)  # a digit byte minus '0' is 0..9 (uint8 wraps the rest)
    if len(keys):
        identifier[run_at] &= keys[np.minimum(keys.searchsorted(hashes[run_at]), len(keys) - 1)] != hashes[run_at]
    identifier[1:] &= ~((classes[at[:-1]] == _OTHER) & (data[at[:-1]] == _DOT))
    kept = classes[at] != _STRING
    return hashes[kept], identifier[kept]


@functools.cache
def _marked_pattern(syntax: Syntax, present: tuple[bool, ...]) -> re.Pattern:
    """``_patterns(syntax, present)[0]`` (the same alternatives in the same order) with its comments named."""
    strings = (*(fragment for (_, fragment), on in zip(syntax.rare, present, strict=False) if on), *syntax.strings)
    return re.compile(f"(?P<comment>{'|'.join(syntax.comments)})|{'|'.join(strings)}")


def _mark(match: re.Match) -> str:
    return "\x01" if match.lastgroup == "comment" else "\x00"


STRING_HASH = int(_CHARACTER_HASHES[0])  # every string of ``lexed_stream``


def lexed_stream(text: str, language: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(hashes, is-identifier flags) of every token of ``lexed_tokens(text, language)``, in order, from the bytes
    with numpy: a word run or character hashed by ``code_runs.run_hash``, every string ``STRING_HASH``. None for
    text holding a NUL or a \\x01 (they mark strings and comments here) or a lone surrogate."""
    if "\x00" in text or "\x01" in text:
        return None
    syntax = syntax_of(language)
    present = tuple(trigger.search(text) is not None for trigger in _triggers(syntax))
    rest = " " + _marked_pattern(syntax, present).sub(_mark, text) + " " * 9  # room to read 8 bytes past a run
    try:
        data = np.frombuffer(rest.encode("utf-8"), dtype=np.uint8)
    except UnicodeEncodeError:
        return None
    classes = _CLASSES[data]
    word = classes == _WORD_BYTE
    starting = word.copy()
    starting[1:] &= ~word[:-1]
    at = ((classes != _BLANK) & (~word | starting)).nonzero()[0]  # each token's first byte, comments' marks too
    is_run = word[at]
    ending = word.copy()
    ending[:-1] &= ~word[1:]
    hashes = _CHARACTER_HASHES[data[at]]
    run_at = is_run.nonzero()[0]
    hashes[run_at] = _run_hashes(data, at[run_at], ending.nonzero()[0] + 1)
    keys = _keyword_hashes(language)
    identifier = is_run & (data[at] - ord("0") > 9)
    if len(keys):
        identifier[run_at] &= keys[np.minimum(keys.searchsorted(hashes[run_at]), len(keys) - 1)] != hashes[run_at]
    identifier[1:] &= data[at[:-1]] != _DOT  # after a "." token (a comment's mark is no ".")
    kept = data[at] != 1
    return hashes[kept], identifier[kept]


def lexed_item_projection(tokens: CodeTokens) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hashes, is-identifier flags, index in ``tokens``) of any code item's stream (Python's included) as
    ``lexed_projection`` reads a document: identifiers, word runs and single characters hashed by ``run_hash``;
    any other token (a string, a number such as ``1.5``) dropped. The rule looks at one token at a time, so a
    window equal in two streams projects to equal runs of tokens."""
    hashes, identifier, positions = [], [], []
    for index, (symbol, is_identifier) in enumerate(zip(tokens.symbols, tokens.identifier, strict=True)):
        data = symbol.encode("utf-8", "surrogatepass")  # a lone surrogate (in a string): the document side is unsure
        if is_identifier or len(symbol) == 1 or (_CLASSES[np.frombuffer(data, np.uint8)] == _WORD_BYTE).all():
            hashes.append(run_hash(data))
            identifier.append(is_identifier)
            positions.append(index)
    return np.array(hashes, dtype=np.uint64), np.array(identifier, dtype=bool), np.array(positions, dtype=np.int64)
