"""Issue 49: decontamination screens every language, not only Python.

Every other language is read by one lexer (``code_lexer``) whose stream the exact check tokenizes and
whose projection the screen reads from bytes. The projection must equal the exact stream's, token for
token, on real files and tricky lexing; the lexer must find the words tree-sitter's grammar finds outside
comments and strings; and a renamed leak pasted into a real file must be hit with the screen as without it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import tree_sitter_language_pack

from codemix.filters.code_lexer import (
    COMMON_KEYWORDS,
    TREE_SITTER_NAMES,
    keywords,
    lexed_item_projection,
    lexed_projection,
    lexed_tokens,
)
from codemix.filters.decontamination import ContaminationIndex, DecontaminationConfig
from codemix.pipelines.readers.language import detect_language

DATA = Path(__file__).parent / "data"
REAL = [p for p in sorted((DATA / "languages").glob("*")) + sorted((DATA / "comments").glob("*"))
        if p.suffix != ".md" and p.stat().st_size > 300]  # static_app.js holds one comment
LANGUAGE = {path: detect_language(path.name, "") for path in REAL}


def same_stream(text: str, language: str) -> bool:
    light = lexed_projection(text, language)
    hashes, identifier, _ = lexed_item_projection(lexed_tokens(text, language))
    return light is not None and np.array_equal(light[0], hashes) and np.array_equal(light[1], identifier)


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_the_screens_projection_is_the_exact_streams_on_real_files(path):
    text = path.read_text(encoding="utf-8")
    assert len(lexed_tokens(text, LANGUAGE[path])) > 0  # guard: a real file with code in it
    assert same_stream(text, LANGUAGE[path])


TRICKY = {
    "comment_between_dot_and_name": ("go", "x := a./* c */b + a.\n// c\nb\n"),
    "string_between_dot_and_name": ("javascript", 'a."s"b; a.`t`c; a.\'u\'d\n'),
    "escapes_and_unclosed_quotes": ("c", 'char *s = "a\\"b\\\\"; char c = \'\\\'\'; int x = "open;\nint y = 1;\n'),
    "rust_raw_strings_and_lifetimes": ("rust", 'fn f<\'a>(x: &\'a str) -> &\'a str { let r = r#"a "q" b"#; xr"z"; \'c\' }\n'),
    "cpp_raw_string": ("cpp", 'auto s = R"x(a ) " b)x"; auto t = u8R"(y)"; int z = aR"(q)";\n'),
    "go_raw_and_runes": ("go", "s := `a\\` + 'x' + '\\n' + `b\nc`\n"),
    "js_template_and_regex": ("typescript", "const t = `a ${b} \\` c`; const r = /\"x/; let q = 'it\\'s';\n"),
    "cpp_digit_separators": ("cpp", "int n = 1'000'000 + x'a' + 'b';\n"),
    "rust_bytes": ("rust", "let b = b\"x\\\"y\" + b'z' + ab\"q\";\n"),
    "csharp_verbatim": ("c#", 'var p = @"C:\\dir\\""x"""; var q = "y";\n'),
    "non_ascii_names_and_numbers": ("java", "int café = 1.5e-3 + 0x1F + 10L; café.naïve(é);\n"),
    "hash_comments": ("ruby", "x = 1 # note\ny = \"a#b\" + '#'\n"),
    "dash_comments": ("lua", "local x = 1 -- note\nlocal y = \"--\" .. 'z'\n"),
    "unknown_language": ("", "a = b // c\n# d\n/* e */ f('g')\n"),
    "control_characters": ("c", "int\x0bx\x0c=\x1b1;\r\n"),
}


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_the_screens_projection_agrees_on_tricky_lexing(name):
    language, text = TRICKY[name]
    assert same_stream(text, language)


def test_a_nul_or_a_lone_surrogate_is_unsure():
    assert lexed_projection("int a = 1;\x00", "c") is None
    assert lexed_projection("int a\udc80 = 1;", "c") is None
    assert same_stream("int a = '\udc80';", "c")  # inside a string it is never encoded
    assert len(lexed_tokens("int a = 1;\x00", "c")) == 6  # the exact check still reads it


def grammar_words(text: str, language: str) -> Counter:
    """Words among tree-sitter's leaves outside comments and string-like named nodes."""
    tree = tree_sitter_language_pack.get_parser(TREE_SITTER_NAMES[language]).parse(text.encode())
    words, stack = Counter(), [tree.root_node]
    while stack:
        node = stack.pop()
        if "comment" in node.type or node.is_named and ("string" in node.type or node.type.endswith("char_literal")
                                                         or node.type == "rune_literal"):
            continue
        if node.child_count == 0:
            words.update(re.findall(r"\w+", node.text.decode()))  # 1.5 and #include as the lexer splits them
        stack.extend(node.children)
    return words


# Where the grammar and the lexer read differently: ``#include <stdio.h>`` (a string to the grammar) and
# JavaScript regex literals (``/"x"/``: code to the grammar, a string to the lexer). Everything else must agree.
# Each is replaced by a neutral token (a string, null) before both read the file.
INCLUDE = (r"(#\s*include\s*)<[\w./+-]+>", r'\1"h"')
READ_APART = {"c": INCLUDE, "cpp": INCLUDE, "javascript": (r"/(?:\\.|[^/\n])+/g?", "null")}
_STRING = re.compile(r"\w*#*['\"`@]")  # a string token of the lexer (raw and byte strings too)


@pytest.mark.parametrize("path", [p for p in REAL if LANGUAGE[p] in TREE_SITTER_NAMES], ids=lambda p: p.name)
def test_the_lexer_finds_the_grammars_words_outside_comments_and_strings(path):
    language, text = LANGUAGE[path], path.read_text(encoding="utf-8")
    if language in READ_APART:
        text = re.sub(*READ_APART[language], text)
    ours = Counter(w for s in lexed_tokens(text, language).symbols if not _STRING.match(s) for w in re.findall(r"\w+", s))
    theirs = grammar_words(text, language)
    assert theirs  # guard: the grammar read words
    assert not theirs - ours, "words of the grammar's code that the lexer read as a comment or a string"
    assert not ours - theirs, "words the lexer read as code that the grammar reads as a comment or a string"


def test_keywords_come_from_the_grammar():
    assert {"func", "range", "defer"} <= keywords("go") and "range" not in keywords("java")
    assert {"fn", "impl", "match"} <= keywords("rust")
    assert keywords("cobol") == COMMON_KEYWORDS  # no grammar shipped


def renamed(text: str, language: str) -> str:
    """``text`` with every identifier renamed and its layout changed (one token per line, comments gone)."""
    tokens, names = lexed_tokens(text, language), {}
    out = [f"v{names.setdefault(s, len(names))}" if flag else s for s, flag in zip(tokens.symbols, tokens.identifier)]
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("path", [p for p in REAL if len(p.read_bytes()) > 5000], ids=lambda p: p.name)
def test_a_renamed_leak_is_hit_with_the_screen_as_without_it(path, tmp_path):
    """~100 tokens of a real file are a benchmark item in its language; renamed and laid out anew, they are
    pasted after the file's first third (real code without them), and hit with the screen as without it."""
    language, lines = LANGUAGE[path], path.read_text(encoding="utf-8").splitlines(keepends=True)
    start = end = len(lines) // 3
    while len(lexed_tokens("".join(lines[start:end]), language)) < 100 and end < len(lines):
        end += 1
    host, solution = "".join(lines[:start]), "".join(lines[start:end])
    assert len(lexed_tokens(solution, language)) >= 100  # guard: long enough to be indexed
    benchmark = tmp_path / "multi.jsonl"
    benchmark.write_text(json.dumps({"id": path.name, "prompt": "", "solution": solution, "language": language}))
    screened, full = (ContaminationIndex.from_config(DecontaminationConfig(
        humaneval=False, benchmarks=[str(benchmark)], screen=screen)) for screen in (True, False))
    assert full.hits(host, language) == []  # guard: the host alone holds no copy
    document = host + "\n" + renamed(solution, language)
    assert renamed(solution, language) != solution  # guard: the copy changed
    assert [h.item_id for h in full.hits(document, language)] == [path.name]
    assert screened.hits(document, language) == full.hits(document, language)


def test_humaneval_screens_out_every_real_file_of_another_language():
    index = ContaminationIndex.from_config(DecontaminationConfig())
    others = [p for p in REAL if LANGUAGE[p] != "python"]
    assert len({LANGUAGE[p] for p in others}) >= 6
    assert not [p.name for p in others if index.may_hit(p.read_text(encoding="utf-8"), LANGUAGE[p])]
