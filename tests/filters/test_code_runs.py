"""Issue 31: the screen's first level reads the full path's projected stream from bytes with numpy.

``run_projection`` must equal the full path's projection (``tokenize``'s stream, numbers split into
runs) on real modules and tricky lexing, or be unsure (None); every document the full path hits must
pass it, so the two-level screen gives the full path's hits.
"""

from __future__ import annotations

import io
import sysconfig
import tokenize
from pathlib import Path

import numpy as np
import pytest

from codemix.filters.code_runs import run_hash, run_projection, token_run_projection
from codemix.filters.decontamination import ContaminationIndex, DecontaminationConfig, _python_tokens, code_tokens
from tests.filters.test_code_screen import FAILING, TRICKY

STDLIB = Path(sysconfig.get_path("stdlib"))
MODULES = sorted(STDLIB.glob("*.py"))[3::6]  # ~35 real modules, other than test_code_screen's


def same_stream(text: str) -> bool:
    runs = run_projection(text)
    hashes, identifier, _ = token_run_projection(code_tokens(text))
    return runs is not None and np.array_equal(runs[0], hashes) and np.array_equal(runs[1], identifier)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_the_run_projection_is_the_full_paths_on_real_modules(path):
    text = path.read_text(encoding="utf-8")
    if not text.isascii():
        pytest.skip("non-ASCII code goes to the second level")
    assert same_stream(text)


RUNS_TRICKY = {
    **TRICKY,
    "relative_imports": "from ...pkg import a\nfrom .. import b\nfrom .c import d\nx = (...)\n",
    "numbers": "x = 1.5e-3 + 0x1F + 1_000 + 2j + .5 + 1e5 + 0.05 + 3.\ny = x.real\n",
    "attribute_after_newline_in_brackets": "v = (obj.\n     attr)\nw = obj\\\n    .attr\n",
    "receiver_before_continuation": "def f(self, a):\n    return g(self \\\n    , a)\n",
    "string_prefix_glued_to_a_name": "x = bar'z' + rb'q' + f'{a}'\n",
}


@pytest.mark.parametrize("name", sorted(RUNS_TRICKY))
def test_the_run_projection_agrees_on_tricky_lexing(name):
    text = RUNS_TRICKY[name]
    if not text.isascii():
        assert run_projection(text) is None
        return
    assert _python_tokens(text) is not None, "guard: tokenize reads it"
    assert same_stream(text)


UNSURE = {
    "number_glued_to_a_keyword": "x = 1if y else 2\n",
    "number_glued_to_a_name": "x = 0x1fg + 1\n",
    "leading_zero": "x = 0123\n",
    "attribute_of_a_float_literal": "x = 1.real\n",
    "name_after_a_float_dot": "x = 1.e5 + y\n",
    "non_ascii_name": "π = 3\n",
}


@pytest.mark.parametrize("name", sorted(UNSURE))
def test_the_run_lexer_is_unsure_where_a_word_run_may_not_be_a_token(name):
    text = UNSURE[name]
    assert _python_tokens(text) is not None, "guard: tokenize reads it, so only the lexer is unsure"
    assert run_projection(text) is None


@pytest.mark.parametrize("name", sorted(FAILING))
def test_the_run_lexer_is_unsure_wherever_tokenize_fails(name):
    text = FAILING[name]
    with pytest.raises((tokenize.TokenError, SyntaxError)):
        list(tokenize.generate_tokens(io.StringIO(text).readline))
    assert run_projection(text) is None


def test_run_hash_is_the_projections_hash():
    hashes, _ = run_projection("x = foo_bar + 12\n")
    assert hashes.tolist() == [run_hash(w) for w in (b"x", b"=", b"foo_bar", b"+", b"12")]


@pytest.fixture(scope="module")
def screened():
    return ContaminationIndex.from_config(DecontaminationConfig())


def test_every_leak_the_full_path_removes_passes_the_first_level(screened):
    from bench.decontamination import VARIANTS, paste
    from codemix.filters.decontamination import humaneval_items

    full = ContaminationIndex.from_config(DecontaminationConfig(screen=False))
    tasks = [(item_id, text) for _, item_id, text, _ in list(humaneval_items())[::2]][3::6]
    hit = 0
    for number, (item_id, code) in enumerate(tasks):
        for transform in VARIANTS.values():
            document = paste(transform(code), number)
            if full.hits(document):
                hit += 1
                assert screened._screen._first.may_hit(document), (item_id, transform)
    assert hit >= 3 * len(tasks), "guard: the full path removes most variants"


def test_the_first_level_clears_plain_modules(screened):
    cleared = [p.name for p in MODULES if not screened._screen._first.may_hit(p.read_text(encoding="utf-8"))]
    assert len(cleared) >= 0.8 * len(MODULES), cleared
