"""The screens in front of secret detection (docs/design/secret-screen.md) change no answer: a
``Lowered`` text answers every gate literal as ``str.__contains__`` does, and a line-screened scan
finds every match the whole-text scan keeps. Checked on real files (the interpreter's standard library,
ASCII and not) with a few planted lines, against ``str`` and ``re`` on the whole text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codemix.filters import gitleaks, lowered, secrets
from codemix.filters.lowered import Lowered, lines_with

STDLIB = Path(re.__file__).parent.parent
FILES = ("ast.py", "argparse.py", "smtplib.py", "urllib/request.py", "ftplib.py", "email/message.py")
PLANTED = ('\ndb_password = "hunter2hunter2"\nurl = "postgres://admin:pa55word@db:5432/x"\n'
           'conn = "Server=x;Password=s3cr3t!;"\nexport API_TOKEN=abcdef123456\nclient.apiKey("Zx9kQ2mP7rT4")\n')


# Non-ASCII lines a lowered-text screen must not be trusted with: ``ſ`` and ``ı`` match ``s`` and ``i`` in a
# case-insensitive regex but stay themselves lowered; ``İ`` lowers to two characters (offsets shift).
FOLDED = ("\nALTER USER x PAſSWORD 'hunter2hunter2'\n", '\nSECRET_TOKEN = "Zx9kQ2mP7rT4" # ı\n', '\n# İ\napi_key = "Zx9kQ2mP7rT4"\n')


def _texts() -> list[str]:
    texts = [(STDLIB / name).read_text(encoding="utf-8") for name in FILES]
    assert any(not t.isascii() for t in texts) and any(t.isascii() for t in texts)
    return [*texts, *(t + PLANTED for t in texts), *(t + PLANTED + folded for t in texts[:2] for folded in FOLDED)]


def test_lowered_answers_every_gate_literal_as_str_does():
    literals = sorted(secrets._gates().all | gitleaks._gates().all | {"", "a", "\n", "://", "İ", "ſ"})
    present = absent = 0
    for text in _texts():
        lower = text.lower()
        lowered = Lowered(lower)
        for literal in literals:
            expected = str.__contains__(lower, literal)
            assert (literal in lowered) == expected, literal
            present, absent = present + expected, absent + (not expected)
        words = [lower[i:i + n] for i in range(0, len(lower) - 12, 997) for n in (3, 7, 12)]
        assert all(w in lowered for w in words)  # substrings of the text, punctuation included
        for gates in (secrets._gates(), gitleaks._gates()):
            assert lowered.mentioned(gates) == {lit for lit in gates.all if str.__contains__(lower, lit)}
    assert present > 100 and absent > 1000
    vocabularies = {Lowered(text.lower()).vocabulary().isascii() for text in _texts()}
    assert vocabularies == {True, False}  # both ways of screening the 3-grams (a bitmap, a set) were taken


@pytest.mark.parametrize(("regex", "literals", "kept", "holds"), [
    (secrets.KEYED_QUOTED, secrets.KEYED_SCREEN,
     lambda m: m.group("sql") is not None or secrets._is_secret_name(
         next(m.group(g) for g in ("name", "call", "arg", "macro") if m.group(g) is not None)), secrets.QUOTES),
    (secrets.INLINE_NAME, secrets.SECRET_NAME_WORDS, lambda m: secrets._is_secret_name(m.group("name")), ("=",)),
    (secrets.URL_USERINFO_PASSWORD, ("://",), lambda m: True, ()),
    (secrets.DB_URL, ("://",), lambda m: True, ()),
    (secrets.CONNECTION_PASSWORD, secrets.CONNECTION_WORDS, lambda m: True, ()),
], ids=["keyed", "inline_name", "url_userinfo", "db_url", "connection"])
def test_a_line_screened_scan_keeps_what_the_whole_text_scan_keeps(regex, literals, kept, holds):
    found = screened_non_ascii = whole_non_ascii = 0
    for text in _texts():
        lower = Lowered(text.lower())
        whole = [m.span() for m in regex.finditer(text) if kept(m)]
        screened = [m.span() for m in secrets._screened(regex, text, lower, literals, holds) if kept(m)]
        assert screened == whole
        trusted = text.isascii() or (len(lower) == len(text) and not any(c in lower for c in "\u017f\u0131"))
        assert (lines_with(text, lower, literals) is None) == (not trusted)
        found += len(whole)
        screened_non_ascii += trusted and not text.isascii()
        whole_non_ascii += not trusted
    assert found >= 6  # the planted lines, at least
    assert screened_non_ascii and whole_non_ascii  # both kinds of non-ASCII text were there


def test_folds_to_ascii_are_every_character_re_takes_for_an_ascii_letter():
    """Every code point above ASCII that ``re`` matches to an ASCII letter ignoring case either lowers to that
    letter alone (the Kelvin sign) or to more than one character (``İ``), or is in ``FOLDS_TO_ASCII``."""
    everything = "".join(chr(c) for c in range(128, 0x110000) if not 0xD800 <= c <= 0xDFFF)
    taken = set(re.findall(r"(?i)[a-z]", everything))
    assert taken  # re does take some for letters
    unlowered = {c for c in taken if not (c.lower().isascii() and len(c.lower()) == 1) and len(c.lower()) == 1}
    assert unlowered == set(lowered.FOLDS_TO_ASCII)
    assert all(len(c.lower()) == 1 or not c.lower().isascii() for c in taken)


def test_secret_word_segments_are_the_unscreened_ones():
    for text in _texts():
        lower = Lowered(text.lower())
        expected, last_end = [], -1
        for match in secrets.SECRET_WORD.finditer(text.lower()):
            if match.start() >= last_end:
                start, last_end = secrets._segment(text, match.start())
                expected.append((start, last_end))
        assert secrets._secret_word_lines(text, lower) == expected and expected


def test_whole_text_screens_pass_wherever_the_scan_finds_something():
    texts = [*_texts(), "$api_token = 'Zx9kQ2mP7rT4'\nkey := \"0123456789abcdef0123456789ABCDEF\"\n"]
    kept = hexes = 0
    for text in texts:
        lower = Lowered(text.lower())
        sigil = [m for m in secrets.SIGIL_ASSIGNMENT.finditer(text) if secrets._is_secret_name(m.group("name"))]
        assert secrets._sigil_possible(text, lower) or not sigil
        assert secrets._holds_hex_run(text, lower) == (secrets.HEX_RUN.search(text) is not None)
        kept, hexes = kept + len(sigil), hexes + (secrets.HEX_RUN.search(text) is not None)
    assert kept and hexes and not all(secrets._sigil_possible(t, Lowered(t.lower())) for t in texts)
