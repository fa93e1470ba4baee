"""Comment fraction on real files: a real tokenizer, documentation comments counted as code.

The reference is Pygments' lexers (comment tokens, ``String.Doc`` for Rust's doc comments; its
``Comment.Preproc`` is C's ``#include`` and Rust's ``#[attr]``, code), a tokenizer we did not write.
"""

from __future__ import annotations

from pathlib import Path

import pygments.lexers
import pytest
from pygments.token import Comment, String

from codemix.document import Document
from codemix.filters.code import _marker_comment_fraction, _tokenized_comments, check_comment_fraction, comment_fraction
from codemix.filters.config import CodeFilterConfig

DATA = Path(__file__).parent / "data" / "comments"
FILES = {"regression.rs": "rust", "searcher_lib.rs": "rust", "tree_test.go": "go", "JsonSerializer.java": "java"}


def visible(text: str) -> int:
    return sum(not c.isspace() for c in text)


def pygments_comment_chars(text: str, language: str) -> int:
    tokens = pygments.lexers.get_lexer_by_name(language).get_tokens(text)
    return sum(visible(value) for kind, value in tokens
               if (kind in Comment or kind in String.Doc) and kind not in Comment.Preproc)


@pytest.mark.parametrize(("name", "language"), sorted(FILES.items()))
def test_comments_are_what_pygments_calls_comments(name: str, language: str) -> None:
    text = (DATA / name).read_text()
    ours = sum(visible(comment) for comment in _tokenized_comments(text, language))
    assert ours == pygments_comment_chars(text, language) > 0


@pytest.mark.parametrize(("name", "old_over", "fraction"), [
    ("regression.rs", 0.8, (0.20, 0.26)),  # "/**\n!vendor" test data was read as a block comment (issue 35: 0.87)
    ("tree_test.go", 0.6, (0.04, 0.08)),  # "/src/*filepath" routes (issue 35: 0.62 against 0.06)
    ("JsonSerializer.java", 0.8, (0.0, 0.3)),  # a public interface whose Javadoc is most of it
    ("searcher_lib.rs", 0.6, (0.0, 0.3)),  # a crate root that is mostly //! documentation
])
def test_real_files_keep(name: str, old_over: float, fraction: tuple[float, float]) -> None:
    text, language = (DATA / name).read_text(), FILES[name]
    total = len(text) - sum(c.isspace() for c in text)
    assert _marker_comment_fraction(text, language, total) > old_over  # guard: the line-marker count was wrong here
    assert fraction[0] <= comment_fraction(text, language) <= fraction[1]
    doc = Document(id="x", text=text, source="s", kind="file", repo="r", path=name, language=language)
    assert check_comment_fraction(doc, CodeFilterConfig())[0] is True


@pytest.mark.parametrize(("text", "language"), [
    ("// a note\n// another\n/* and more */\n", "go"),
    ("# just a comment\n# and another one\n", "python"),
    ("/* license */\n/* only */\n", "java"),
])
def test_files_of_plain_comments_only_are_still_dropped(text: str, language: str) -> None:
    doc = Document(id="x", text=text, source="s", kind="file", repo="r", path="f", language=language)
    assert check_comment_fraction(doc, CodeFilterConfig()) == (False, "comment_fraction_high")


def test_python_docstrings_are_code_and_hash_in_strings_is_not_a_comment() -> None:
    text = 'def f():\n    """Docstring: what f does."""\n    return "# not a comment"  # a comment\n'
    assert _tokenized_comments(text, "python") == ["# a comment"]


def test_go_package_documentation_is_documentation() -> None:
    """gin's doc.go: one comment right above ``package gin`` (go/doc's package comment), all of it prose."""
    text = (DATA / "gin_doc.go").read_text()
    total = len(text) - sum(c.isspace() for c in text)
    assert pygments_comment_chars(text, "go") / total > 0.9  # guard: by Pygments it is nearly all comment
    import_comment = '// import "github.com/gin-gonic/gin"'  # after the clause: a plain comment
    assert comment_fraction(text, "go") == pytest.approx(visible(import_comment) / total)
    assert check_comment_fraction(Document(id="x", text=text, source="s", kind="file", repo="r", path="doc.go",
                                           language="go"), CodeFilterConfig())[0] is True


@pytest.mark.parametrize(("name", "language", "kept"), [
    ("command_notwin.go", "go", True),  # a licence header (a blank line above the build tags: no doc comment) + code
    ("Bar.cpp", "cpp", True),  # nlohmann's banner, an #include and a declaration
    ("static_app.js", "javascript", False),  # a comment and nothing else
])
def test_only_files_with_no_code_besides_comments_are_dropped(name: str, language: str, kept: bool) -> None:
    text = (DATA / name).read_text()
    assert comment_fraction(text, language) > 0.8, "guard: over the limit by comment share alone"
    doc = Document(id="x", text=text, source="s", kind="file", repo="r", path=name, language=language)
    assert check_comment_fraction(doc, CodeFilterConfig()) == ((True, "") if kept else (False, "comment_fraction_high"))


def test_lua_annotations_are_documentation() -> None:
    """LuaSnip's ``loaders/types.lua`` (the seventeenth holdout, spent; FIT, round 19) is all LuaLS annotations,
    ``---@class``/``---@field`` lines that declare types: documentation, counted as code as Javadoc is. The same lines
    with two dashes are plain comments, and the file goes."""
    text = (DATA.parent / "annotations" / "luasnip_loader_types.lua").read_text()
    assert text.count("--- @") >= 5  # guard: the annotations are there
    doc = Document(id="x", text=text, source="s", kind="file", repo="r", path="types.lua", language="lua")
    assert comment_fraction(text, "lua") < 0.1
    assert check_comment_fraction(doc, CodeFilterConfig())[0] is True
    plain = text.replace("---", "--")
    assert comment_fraction(plain, "lua") > 0.9
    assert check_comment_fraction(Document(id="x", text=plain, source="s", kind="file", repo="r", path="types.lua",
                                           language="lua"), CodeFilterConfig()) == (False, "comment_fraction_high")
