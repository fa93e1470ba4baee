"""Issue 31: the decontamination screen clears only documents the full path cannot hit.

The light lexer's projection must equal the full path's (the standard ``tokenize``) on real modules,
or say it is unsure where ``tokenize`` fails; the screened index must give exactly the full path's
hits on renamed, re-indented, docstring-less and method-wrapped leaks, and keep the idiom controls.
"""

from __future__ import annotations

import io
import sysconfig
import tokenize
from pathlib import Path

import numpy as np
import pytest

from codemix.filters.code_runs import run_projection
from codemix.filters.code_screen import (
    _MULTIPLIER,
    _SCREEN_SALT,
    _distance_codes,
    full_projection,
    light_projection,
    projected_gram_hashes,
)
from codemix.filters.decontamination import ContaminationIndex, DecontaminationConfig, _python_tokens, code_tokens

STDLIB = Path(sysconfig.get_path("stdlib"))
MODULES = sorted(STDLIB.glob("*.py"))[::6]  # ~35 real modules: strings of every kind, f-strings, continuations


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_the_light_projection_is_the_full_paths_on_real_modules(path):
    text = path.read_text(encoding="utf-8")
    light = light_projection(text)
    assert light is not None, "guard: a plain module is one the lexer is sure of"
    hashes, identifier, _ = full_projection(code_tokens(text))
    assert np.array_equal(light[0], hashes) and np.array_equal(light[1], identifier)


TRICKY = {
    "prefixes": "x = rb'a\\'b' + f\"{y}\" + Rb'''q\n''' + bar'z'\n",
    "continuations": "total = a + \\\n    b\ns = 'a\\\nb'\n",
    "ellipsis_and_attributes": "from ...pkg import name\nv = obj . attr . other(...)\n",
    "receivers": "def f(self, a):\n    return self.g(a) + cls.h + self\n",
    "tabs": "if x:\n\tif y:\n\t\tz = 1\n\tw = 2\n",
    "brackets_over_lines": "call(a,\n  # a comment\n     b.\n  c)\n",
    "unicode": "café = 1  # é\nπ = café * 2\n",
}


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_the_light_projection_agrees_on_tricky_lexing(name):
    text = TRICKY[name]
    assert _python_tokens(text) is not None, "guard: tokenize reads it"
    hashes, identifier, _ = full_projection(code_tokens(text))
    light = light_projection(text)
    assert light is not None and np.array_equal(light[0], hashes) and np.array_equal(light[1], identifier)


FAILING = {
    "unclosed_bracket": "x = f(1,\n",
    "stray_closer": "x = 1)\ny = 2\n",
    "unterminated_triple": "x = '''abc\n",
    "bad_dedent": "if x:\n        a = 1\n    b = 2\n",
    "continuation_at_end": "x = 1 + \\\n",
}


@pytest.mark.parametrize("name", sorted(FAILING))
def test_the_lexer_is_unsure_wherever_tokenize_fails(name):
    text = FAILING[name]
    with pytest.raises((tokenize.TokenError, SyntaxError)):  # the reference: the full path falls back here
        list(tokenize.generate_tokens(io.StringIO(text).readline))
    assert light_projection(text) is None


def test_a_number_glued_to_a_prefixed_string_is_unsure():
    assert light_projection("x = 1r'a'\n") is None
    assert light_projection("x = 1 if y else r'a'\n") is not None


@pytest.fixture(scope="module")
def indexes():
    return (ContaminationIndex.from_config(DecontaminationConfig()),
            ContaminationIndex.from_config(DecontaminationConfig(screen=False)))


def test_screened_hits_equal_the_full_paths_on_every_leak_variant(indexes):
    from bench.decontamination import VARIANTS, paste
    from codemix.filters.decontamination import humaneval_items

    screened, full = indexes
    tasks = [(item_id, text) for _, item_id, text, _ in list(humaneval_items())[::2]][::6]
    found = 0
    for number, (item_id, code) in enumerate(tasks):
        for transform in VARIANTS.values():
            document = paste(transform(code), number)
            expected = full.hits(document)
            assert screened.hits(document) == expected, (item_id, transform)
            found += item_id in {hit.item_id for hit in expected}
    assert found >= 3 * len(tasks), "guard: the full path removes most variants (short tasks are not indexed)"


def test_idiom_controls_are_kept_and_plain_code_is_cleared(indexes):
    from tests.filters.test_decontamination import IDIOMS

    screened, _ = indexes
    host = (STDLIB / "textwrap.py").read_text(encoding="utf-8")
    for idiom in IDIOMS.values():
        assert screened.hits(host + "\n\n" + idiom) == []
    assert not screened._screen.may_hit(host), "textwrap.py goes without tokenize"


def _grams_by_definition(hashes: np.ndarray, identifier: np.ndarray, k: int) -> tuple[list[int], int]:
    """Each window's hash from the definition, one window and token at a time: an identifier is coded by the
    distance back to the nearest earlier identifier with its hash inside the window (0: none), any other
    token is its hash; the window is the polynomial of its k codes. Also: how many windows recall twice."""
    codes, multiplier, mask = [int(c) for c in _distance_codes(k)], int(_MULTIPLIER), (1 << 64) - 1
    values, named = hashes.tolist(), identifier.tolist()
    out, twice = [], 0
    for start in range(len(values) - k + 1):
        acc, recalled = 0, 0
        for j in range(k):
            i = start + j
            value = values[i]
            if named[i]:
                back = next((d for d in range(1, j + 1) if named[i - d] and values[i - d] == values[i]), 0)
                value, recalled = codes[back], recalled + (back > 0)
            acc = (acc * multiplier + value) & mask
        out.append(acc ^ int(_SCREEN_SALT))
        twice += recalled >= 2
    return out, twice


def test_projected_gram_hashes_follow_their_definition():
    """The k-gram hashes both screens index and look up equal the definition computed window by window, on
    the run projection (code_runs) and the light one (code_screen) of real modules, for both screen k's."""
    checked = 0
    for path in [*MODULES[:3], STDLIB / "textwrap.py"]:
        text = path.read_text(encoding="utf-8")
        for projection in (run_projection(text), light_projection(text)):
            assert projection is not None, f"guard: {path.name} is projected"
            for k in (4, 8):
                expected, twice = _grams_by_definition(*projection, k)
                assert projected_gram_hashes(*projection, k).tolist() == expected, (path.name, k)
                checked += twice
    assert checked > 0, "guard: some window recalls two identifiers"
