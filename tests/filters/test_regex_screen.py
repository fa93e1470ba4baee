"""Secret detection's Hyperscan screen (filters/regex_screen.py) is exact: every regex that matches a text
is among those the screen reports for it, and redaction with the screen equals redaction without it.
Checked on real files (the interpreter's standard library, ASCII and not), the same files with secrets
planted, every positive line of tests/filters/test_secrets.py, and lines with characters that Python's
``re`` folds or classes differently from ASCII (``ſ``, the Kelvin sign, non-ASCII word characters)."""

from __future__ import annotations

import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest

from codemix.filters import gitleaks, regex_screen, secrets
from codemix.filters.lowered import Lowered
from codemix.filters.regex_screen import RegexScreen
from tests.conftest import REPO_ROOT
from tests.filters.planted_secrets import PLANTED_FILES, SecretFactory, plant_in_code
from tests.filters.test_secret_screen import FOLDED, PLANTED
from tests.filters.test_secrets import POSITIVES

STDLIB = Path(re.__file__).parent.parent
FILES = ("email/message.py", *PLANTED_FILES)
CONFIG = secrets.RedactionConfig()
# Lines where Python's view of a character is not its ASCII byte: case folding to ASCII letters, Unicode
# word characters and whitespace, a lone surrogate (no UTF-8 form).
UNICODE_LINES = ("\nPAſSWORD = 'Zx9kQ2mP7rT4ab'\n", "\nAPI_\u212aEY = 'Zx9kQ2mP7rT4ab'\n", "\ntoken = 'Zx9ké2mP7rT4ab'\n",
                 "\nsecret_key\u2003=\u2003\"Zx9kQ2mP7rT4abQ\"\n", "\npassword = 'ab\udcffcdefgh'\n")


def _texts() -> list[str]:
    factory = SecretFactory(seed=4909)
    texts = [(STDLIB / name).read_text(encoding="utf-8") for name in FILES]
    assert any(not t.isascii() for t in texts) and any(t.isascii() for t in texts)
    planted = [plant_in_code(t, factory)[0] for t in texts]
    lines = [line for _, line, _ in POSITIVES]
    joined = "".join(lines)
    return [*texts, *planted, *(t + PLANTED for t in texts[:2]), *lines, joined,
            *(joined + extra for extra in (*FOLDED, *UNICODE_LINES))]


def _screen() -> RegexScreen:
    return secrets._screen(CONFIG.base64_entropy_limit, CONFIG.hex_entropy_limit)


def test_every_regex_that_matches_a_text_is_reported():
    screen = _screen()
    matched = refused = 0
    for text in _texts():
        possible = screen.possible(text)
        for regex in screen.regexes:
            if regex.search(text):
                assert regex in possible, (regex.pattern, text[:80])
                matched += 1
            refused += regex not in possible
    # the check is not empty, and the screen does refuse: most regexes match no file of the standard library
    assert matched >= 500 and refused >= 0.8 * len(screen.regexes) * len(FILES)


def test_redaction_is_the_same_with_and_without_the_screen(monkeypatch):
    texts = _texts()
    screened = [secrets.redact_text(text, CONFIG, language) for text, language in zip(texts, ["python", ""] * len(texts))]
    assert sum(sum(counts.values()) for _, counts in screened) >= 100
    monkeypatch.setattr(RegexScreen, "possible", lambda self, text: None)  # every regex runs, as before the screen
    assert [secrets.redact_text(text, CONFIG, language) for text, language in zip(texts, ["python", ""] * len(texts))] == screened


def test_without_hyperscan_every_regex_runs_and_redaction_is_the_same(monkeypatch):
    """On a machine Hyperscan has no build for (ARM), the package installs without it: the screen is
    built without a database, answers None (not screened) for every text, and redaction is unchanged."""
    texts = _texts()[:12]
    screened = [secrets.redact_text(text, CONFIG, "python") for text in texts]
    monkeypatch.setattr(regex_screen, "hyperscan", None)
    monkeypatch.setattr(regex_screen, "_compiled", lambda patterns: pytest.fail("compiled without Hyperscan"))
    bare = RegexScreen([re.compile(r"AKIA[0-9A-Z]{16}"), re.compile(r"(?i)password\s*=")])
    assert bare.database is None and all(bare.possible(text) is None for text in texts)
    monkeypatch.setattr(secrets, "_screen", lambda base64_limit, hex_limit: bare)
    assert [secrets.redact_text(text, CONFIG, "python") for text in texts] == screened
    assert sum(sum(counts.values()) for _, counts in screened) >= 10


def test_the_package_imports_and_redacts_the_same_where_hyperscan_cannot_be_imported(tmp_path):
    """A fresh interpreter in which ``import hyperscan`` fails (as on ARM, where no wheel exists)."""
    script = (
        "import pickle, sys; sys.modules['hyperscan'] = None\n"
        "from codemix.filters import regex_screen, secrets\n"
        "from tests.filters.test_regex_screen import CONFIG, _texts\n"
        "assert regex_screen.hyperscan is None\n"
        "found = [secrets.redact_text(t, CONFIG, 'python') for t in _texts()[:12]]\n"
        f"open({str(tmp_path / 'out.pickle')!r}, 'wb').write(pickle.dumps(found))\n")
    subprocess.run([sys.executable, "-c", script], check=True, cwd=REPO_ROOT, timeout=300)
    found = pickle.loads((tmp_path / "out.pickle").read_bytes())
    assert found == [secrets.redact_text(text, CONFIG, "python") for text in _texts()[:12]]


def test_a_lowered_text_searched_directly_answers_every_gate_as_str_does():
    literals = sorted(secrets._gates().all | gitleaks._gates().all | {"", "\n", "://", "\u0130", "\u017f"})
    present = 0
    for text in _texts()[:8]:
        lower = Lowered(text.lower())
        lower.search_directly()
        answers = [literal in lower for literal in literals]
        assert answers == [str.__contains__(lower, literal) for literal in literals]
        assert "_vocabulary" not in lower.__dict__  # answered without building it
        present += sum(answers)
    assert present >= 50


def test_every_kept_sigil_assignment_holds_what_its_screen_looks_for():
    # the matches _named_value_findings keeps (a ``$`` or ``:=``, a secret's name) all hold SIGIL_KEPT
    lines = ('apiKey := "Zx9kQ2mP7rT4ab"\n', "$DB_PASSWORD = 'hunter2hunter2';\n", '$API_\u212aEY = "Zx9kQ2mP7rT4"\n',
             'token = "ab:=cdefgh"\n', '$dbPass\n  =  "s3cr3tpass"\n', 'clientSecret := `x`; authToken := "0123456789"\n')
    kept = 0
    for text in [*_texts(), "".join(lines)]:
        for match in secrets.SIGIL_ASSIGNMENT.finditer(text):
            if (match.group().startswith("$") or ":=" in match.group()) and secrets._is_secret_name(match.group("name")):
                assert secrets.SIGIL_KEPT.search(match.group()), match.group()
                kept += 1
    assert kept >= 6


def test_constructs_hyperscan_lacks_are_over_approximated():
    cases = [  # (regex, texts it matches in Python)
        (r"(?<![A-Za-z0-9])AKIA[A-Z0-9]{4}(?![A-Za-z0-9])", ["x AKIAABCD y"]),
        (r"(?P<q>[\"'])(?P<v>[^\"'\n]{2,8})(?P=q)", ["a = 'xyz'", 'b = "\u00e9\u00e9\u00e9"']),
        (r"(?i)password\s*=", ["PAſSWORD =", "Password="]),
        (r"(?i)api_key", ["API_\u212aEY"]),
        (r"\w{3}\d", ["\u00e9\u00e8\u00ea\u0663", "abc1"]),
        (r"\bkey\s+value\b", ["key\u2003value", "key \x1cvalue"]),
        (r"(a)?(?(1)b|c)d", ["abd", "cd"]),
        (r"(?>ab|a)c", ["ac"]),
        (r"x[a-z]++\d", ["xab1"]),
        (r"(?m)^token:\s*\S+$", ["x\ntoken: abc", "token: \udcff"]),
        (r"[^\s\"']{40}", ["\u4e2d" * 40]),
        (r"q{50,60}", ["q" * 55]),
    ]
    screen = RegexScreen([re.compile(pattern) for pattern, _ in cases])
    for (pattern, texts), regex in zip(cases, screen.regexes, strict=True):
        for text in texts:
            assert regex.search(text), (pattern, text)
            assert regex in screen.possible(text), (pattern, text)
        # and the screen refuses where nothing can match (it is not "always report")
        assert regex not in screen.possible("zzz\n" * 3), pattern


def test_a_regex_the_screen_does_not_hold_always_may_match():
    screen = RegexScreen([re.compile("never")])
    possible = screen.possible("plain text")
    assert re.compile("plain") in possible and re.compile("never") not in possible


def test_trimming_keeps_what_decides_a_match():
    # leading and trailing parts that may be empty decide nothing; a bounded repeat at an end keeps its minimum
    superset = regex_screen.superset
    assert superset(re.compile(r"[\w.-]{0,50}?secret\s*")) == superset(re.compile("secret"))
    assert superset(re.compile(r"a{3,9}b(?=c)")) == superset(re.compile(r"a{3}b"))
    assert superset(re.compile(r"x\s*")) == superset(re.compile("x")) and superset(re.compile(r"\s*")) == ""
    assert superset(re.compile(r"(?=(?P<v>ab+c))")) == superset(re.compile(r"(ab+c)"))


def test_the_compiled_database_is_cached_and_loaded(tmp_path, monkeypatch):
    monkeypatch.setenv("CODEMIX_CACHE_DIR", str(tmp_path))
    regexes = [re.compile(r"(?<!\w)sk_live_[0-9a-z]{24}"), re.compile(r"(?i)password\s*=")]
    first = RegexScreen(regexes)
    cached = list(tmp_path.glob("regex-screen-*.hsdb"))
    assert len(cached) == 1
    second = RegexScreen(regexes)  # loaded from the file: the same answers
    for text in ("x = 'sk_live_" + "a1" * 12 + "'", "PASSWORD = 1", "nothing here"):
        assert first.possible(text).reported == second.possible(text).reported
    cached[0].write_bytes(b"not a database")  # a damaged file is compiled again
    assert RegexScreen(regexes).possible("Password=").reported == {1}


def test_any_of_a_group_answers_as_asking_each_regex():
    # secret detection asks it for each plugin's regexes at once; a group with a regex the screen does not hold
    # may always match
    screen = _screen()
    groups = [plugin.denylist for plugin, _, _ in secrets._plugins()]
    groups.append((re.compile("not held by the screen"), *groups[0]))
    answers = set()
    for text in _texts():
        possible = screen.possible(text)
        for group in groups:
            answer = possible.any_of(group)
            assert answer == any(regex in possible for regex in group), (group, text[:80])
            answers.add(answer)
    assert answers == {True, False}
