"""Filter steps rewritten for speed (issue 49, fourth session) answer exactly as the forms they replace:
The Stack v2's encoded-data regexes, linguist's vendor.yml as one alternation, the short-task index's
``isin`` over the document's distinct 3-grams, amalgamations found line by line. Checked on real files (the interpreter's standard library,
and this repository's own paths) with a few planted cases, against the replaced form run on the same input."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np

from codemix.filters import amalgamation, code, short_tasks, vendored
from codemix.filters.decontamination import DecontaminationConfig, humaneval_items

STDLIB = Path(re.__file__).parent.parent
FILES = ("ast.py", "argparse.py", "base64.py", "uuid.py", "json/decoder.py", "encodings/cp1252.py",
         "test/test_codecs.py", "test/test_base64.py", "email/_header_value_parser.py", "unicodedata.py")
# The Stack v2's hex-list and \uXXXX patterns as it wrote them (the base64 one is unchanged).
STACK_V2_HEX = re.compile(r"(?:\b(?:0x|\\x)?[0-9a-fA-F]{2}(?:,|\b\s*)){8,}")
STACK_V2_UNICODE = re.compile(r"(?:\\u[0-9a-fA-F]{4}){8,}")
PLANTED = ("static const unsigned char blob[] = {0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00,\n 0x01};\n"
           's = "\\xde\\xad\\xbe\\xef\\x00\\x01\\x02\\x03\\x04\\x05"\nt = "\\u0041\\u0042\\u0043\\u0044\\u0045\\u0046'
           '\\u0047\\u0048\\u0049"\nhex = "de ad be ef 00 01 02 03 04 05 06"\nshort = "\\u0041\\u0042"\n')


def _texts() -> list[str]:
    texts = [(STDLIB / name).read_text(encoding="utf-8") for name in FILES if (STDLIB / name).exists()]
    assert len(texts) >= 8
    return [*texts, *(text + PLANTED for text in texts[:3]), PLANTED]


def test_encoded_data_patterns_match_the_stack_v2_forms():
    hex_pattern, unicode_pattern = code.ENCODED_DATA[1], code.ENCODED_DATA[2]
    found = {"hex": 0, "unicode": 0}
    for text in _texts():
        expected_hex = [m.span() for m in STACK_V2_HEX.finditer(text)]
        expected_unicode = [m.span() for m in STACK_V2_UNICODE.finditer(text)]
        assert [m.span() for m in hex_pattern.finditer(text)] == expected_hex
        assert [m.span() for m in unicode_pattern.finditer(text)] == expected_unicode
        found["hex"] += len(expected_hex)
        found["unicode"] += len(expected_unicode)
    assert found["hex"] >= 5 and found["unicode"] >= 4, found  # guard: the texts hold both kinds


# Non-ASCII around and inside encoded runs: ``\s`` holds the no-break and ideographic spaces (a hex list
# through them), a lone surrogate, a run at the very end and one followed by a word character.
PLANTED_NON_ASCII = ("café = [0x1f,\u00a00x8b,\u00a00x08,\u00a00x00,\u00a00xde,\u00a00xad,\u00a00xbe,\u00a00xef]\n"
                     "x = 'de\u3000ad\u3000be\u3000ef\u300000\u3000ff\u3000aa\u3000bb\u3000cc'\n\ud800"
                     "y = '12 34 56 78 9a bc de f0g' ñ " + "QUJD" * 20 + "é" + "ab" * 40)


def _stack_v2_spans(text: str) -> list[tuple[int, int]]:
    """The Stack v2's three encoded-data regexes run over ``text`` by ``re``, spans merged as
    ``encoded_spans`` merges them."""
    patterns = (re.compile(r"[a-zA-Z0-9+/\n=]{64,}"), STACK_V2_HEX, STACK_V2_UNICODE)
    merged: list[tuple[int, int]] = []
    for start, end in sorted(m.span() for pattern in patterns for m in pattern.finditer(text)):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def test_encoded_spans_are_those_of_the_stack_v2_regexes():
    """``encoded_spans`` reads runs through byte tables; its spans are the regexes' own, ASCII or not."""
    texts = [*_texts(), PLANTED_NON_ASCII, PLANTED_NON_ASCII + PLANTED, "0x12, " * 8, "QUJD" * 16, ""]
    seen = {"spans": 0, "non-ASCII texts with spans": 0}
    for text in texts:
        expected = _stack_v2_spans(text)
        assert code.encoded_spans(text) == expected, text[:80]
        seen["spans"] += len(expected)
        seen["non-ASCII texts with spans"] += bool(expected) and not text.isascii()
    # guard: hex lists through non-ASCII spaces, runs at the end, and real files' runs were all there
    assert seen["spans"] >= 30 and seen["non-ASCII texts with spans"] >= 3, seen
    assert any(not PLANTED_NON_ASCII[start:end].isascii() for start, end in _stack_v2_spans(PLANTED_NON_ASCII))


def _paths() -> list[str]:
    stdlib = [str(path.relative_to(STDLIB)) for path in STDLIB.rglob("*.py")][:4000]
    repository = Path(__file__).resolve().parents[2]
    tracked = subprocess.run(["git", "ls-files"], cwd=repository, capture_output=True, text=True, check=False).stdout.split()
    planted = ["node_modules/left-pad/index.js", "src/third_party/zlib/inflate.c", "static/js/jquery-3.7.1.min.js",
               "vendor/github.com/pkg/errors/errors.go", "deps/hiredis/.github/workflows/ci.yml", ".github/workflows/ci.yml",
               "lib/vendor/x.py", "Godeps/_workspace/src/a.go", "app/assets/bootstrap.min.css", "docs/conf.py",
               "src/cache/lru.py"]
    return [*stdlib, *tracked, *planted]


def test_vendored_paths_are_those_the_linguist_alternation_matches():
    alternation = vendored.linguist_vendored()
    matched = unmatched = 0
    for path in _paths():
        expected = alternation.search(path) is not None
        assert vendored._vendored_match(path) == expected, path
        matched, unmatched = matched + expected, unmatched + (not expected)
        if expected:  # the own-code exception reads a prefix of the path the same way
            assert vendored._own_code(path) == (vendored.OWN_CODE.search(path) is not None and alternation.search(
                path[:vendored.OWN_CODE.search(path).start() + 1]) is None), path
    assert matched >= 10 and unmatched >= 1000, (matched, unmatched)


def test_short_task_lookup_finds_the_3grams_isin_finds():
    index = short_tasks.short_task_index(DecontaminationConfig())
    assert len(index) >= 20
    prompts = [text for _, _, text, _ in list(humaneval_items())[:40:2]]
    found = 0
    for text in [*_texts(), *prompts, "\n".join(prompts), ""]:
        grams = short_tasks.prose_grams(text)
        expected = np.isin(index._keys, np.unique(grams))
        assert np.array_equal(np.isin(index._keys, index._found_keys(grams)), expected)
        found += int(expected.sum())
    assert found >= 100  # guard: the HumanEval prompts' own 3-grams were found


def _amalgamated_by_definition(files: dict[str, frozenset[int]]) -> set[str]:
    """The module's definition line by line: each line held by at most COMMON_LINE_FILES files ties the
    file to the others holding it (the form the fast one replaced)."""
    holders: dict[int, list[str]] = {}
    for path, lines in files.items():
        for line in lines:
            holders.setdefault(line, []).append(path)
    found = set()
    for path, lines in files.items():
        shared: dict[str, int] = {}
        for line in lines:
            if len(holders[line]) <= amalgamation.COMMON_LINE_FILES:
                for other in holders[line]:
                    if other != path:
                        shared[other] = shared.get(other, 0) + 1
        parts = {files[other] for other, n in shared.items()
                 if amalgamation.MIN_PART_LINES <= len(files[other]) <= len(lines) * amalgamation.PART_SHARE_MAX
                 and n >= amalgamation.PART_COVERED * len(files[other])}
        covered = len(lines & frozenset().union(*parts)) if parts else 0
        if len(parts) >= amalgamation.MIN_PARTS and covered >= amalgamation.AMALGAM_COVERED * len(lines):
            found.add(path)
    return found


def test_amalgamations_are_those_of_the_definition():
    found = 0
    for package in ("email", "json", "asyncio", "concurrent/futures", "importlib", "xml/dom", "unittest"):
        texts = {str(p.relative_to(STDLIB)): p.read_text(encoding="utf-8") for p in sorted((STDLIB / package).rglob("*.py"))}
        names = sorted(texts)
        texts[f"{package}/single.py"] = "\n".join(texts[name] for name in names[:4])  # a planted amalgamation
        texts[f"{package}/copy_a.py"] = texts[f"{package}/copy_b.py"] = texts[names[0]]  # copies are no parts
        files = {path: amalgamation.line_hashes(text) for path, text in texts.items()}
        expected = _amalgamated_by_definition(files)
        assert amalgamation.amalgamated(files) == expected, package
        found += len(expected)
    assert found >= 3  # guard: planted ones are found (those whose parts are small enough)


# ---------------------------------------------------------------- license reading's screens (issue 49, tenth session)

NOTICES = Path(__file__).parent / "data" / "notices"


def _license_texts() -> list[tuple[str, str]]:
    """(path, text) of every notice fixture (public repositories' files, data/notices/README.md) and of the standard
    library files above: license texts, notices, choices and plain code."""
    import json

    texts = [(path, text) for fixture in sorted(NOTICES.glob("*.json"))
             for path, text in json.loads(fixture.read_text(encoding="utf-8")).items() if isinstance(text, str)]
    texts += [(name, (STDLIB / name).read_text(encoding="utf-8")) for name in FILES if (STDLIB / name).exists()]
    assert len(texts) >= 60
    return texts


def test_every_anchor_match_holds_its_signatures_literal():
    """``required_literal``, read from ``re``'s parse, is in every text the anchor matches (checked by ``re.search``
    on the words of real heads and on each anchor's own match in a text built to hold it)."""
    from codemix.filters import licenses

    signatures = licenses._SIGNATURES
    assert sum(bool(s.literal) for s in signatures) >= len(signatures) - 3  # guard: the screen applies to nearly all
    matched = set()
    for _, text in _license_texts():
        words = licenses._words(text[:licenses._NOTICE_CHARS])
        for signature in signatures:
            if signature.anchor.search(words):
                matched.add(signature.spdx)
                assert signature.literal in words, (signature.spdx, signature.literal)
    assert len(matched) >= 10, matched  # guard: the fixtures hold many license texts
    # alternations, optional parts and case-insensitive patterns: the literal is one every match needs, or none
    assert licenses.required_literal(re.compile("ab(?:c|d)efg")) == "efg"
    assert licenses.required_literal(re.compile("gnu (?:lesser )?general")) == "general"
    assert licenses.required_literal(re.compile("xy|zw")) == ""
    assert licenses.required_literal(re.compile("license", re.IGNORECASE)) == ""


def test_license_readings_are_those_without_the_screens(monkeypatch):
    """``own_license`` and ``notice_license`` answer on every real text as they do with no literal screen and no
    "at your option" screen (the anchors searched for everywhere, every head flattened)."""
    import dataclasses

    from codemix.filters import licenses, reuse

    texts = _license_texts()
    planted = "/*\n * Licensed under the MIT license or the Apache License, Version 2.0, at your opt\u0131on.\n */\n"
    texts.append(("planted.c", planted))  # a dotless i: re's case folding matches it, str.lower() does not

    def readings():
        licenses._words.cache_clear()
        return [(reuse.own_license.__wrapped__(text, path), licenses.notice_license(text),
                 licenses.option_choice(text[:licenses._NOTICE_CHARS])) for path, text in texts]

    screened = readings()
    monkeypatch.setattr(licenses, "_SIGNATURES", tuple(dataclasses.replace(s, literal="") for s in licenses._SIGNATURES))
    monkeypatch.setattr(licenses, "_may_offer", lambda head: True)
    assert screened == readings()
    assert sum(own is not None for own, _, _ in screened) >= 25  # guard: many texts state a license
    assert screened[-1][2] == "Apache-2.0 OR MIT"  # guard: the planted choice is read through the screen
