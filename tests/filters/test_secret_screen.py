"""The screens in front of secret detection (docs/design/secret-screen.md) change no answer: a
``Lowered`` text answers every gate literal as ``str.__contains__`` does, and a line-screened scan
finds every match the whole-text scan keeps. Checked on real files (the interpreter's standard library,
ASCII and not) with a few planted lines, against ``str`` and ``re`` on the whole text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codemix.filters import gitleaks, secrets
from codemix.filters.lowered import Lowered, lines_with

STDLIB = Path(re.__file__).parent.parent
FILES = ("ast.py", "argparse.py", "smtplib.py", "urllib/request.py", "ftplib.py", "email/message.py")
PLANTED = ('\ndb_password = "hunter2hunter2"\nurl = "postgres://admin:pa55word@db:5432/x"\n'
           'conn = "Server=x;Password=s3cr3t!;"\nexport API_TOKEN=abcdef123456\nclient.apiKey("Zx9kQ2mP7rT4")\n')


def _texts() -> list[str]:
    texts = [(STDLIB / name).read_text(encoding="utf-8") for name in FILES]
    assert any(not t.isascii() for t in texts) and any(t.isascii() for t in texts)
    return [*texts, *(t + PLANTED for t in texts)]


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


@pytest.mark.parametrize(("regex", "literals", "kept"), [
    (secrets.KEYED_QUOTED, secrets.KEYED_SCREEN,
     lambda m: m.group("sql") is not None or secrets._is_secret_name(
         next(m.group(g) for g in ("name", "call", "arg", "macro") if m.group(g) is not None))),
    (secrets.INLINE_NAME, secrets.SECRET_NAME_WORDS, lambda m: secrets._is_secret_name(m.group("name"))),
    (secrets.URL_USERINFO_PASSWORD, ("://",), lambda m: True),
    (secrets.DB_URL, ("://",), lambda m: True),
    (secrets.CONNECTION_PASSWORD, secrets.CONNECTION_WORDS, lambda m: True),
], ids=["keyed", "inline_name", "url_userinfo", "db_url", "connection"])
def test_a_line_screened_scan_keeps_what_the_whole_text_scan_keeps(regex, literals, kept):
    found = 0
    for text in _texts():
        lower = Lowered(text.lower())
        whole = [m.span() for m in regex.finditer(text) if kept(m)]
        screened = [m.span() for m in secrets._screened(regex, text, lower, literals) if kept(m)]
        assert screened == whole
        assert (lines_with(text, lower, literals) is None) == (not text.isascii())
        found += len(whole)
    assert found >= 6  # the planted lines, at least


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
