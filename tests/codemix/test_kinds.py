"""Document kinds: each kind is one registered object, readers stamp documents with a registered kind and
the metadata it declares, and no layer decides by comparing a kind's name."""

from __future__ import annotations

import ast
import dataclasses
import shutil
import typing
from pathlib import Path

import pytest

from codemix import kinds
from codemix.document import Document
from codemix.kinds import FILE, KINDS, DocumentKind, document_kind, register, source_kind
from codemix.pipelines.readers import READERS, read_location
from codemix.sources import NotebookConfig, SourceConfig, SourceType
from tests.conftest import REPO_ROOT
from tests.layout import package_dirs

SOURCE_TYPES = typing.get_args(SourceType)


def literal_comparisons(source: str) -> list[tuple[int, str]]:
    """(line, code) of each comparison (==, !=, in) of a kind (``doc.kind``, ``row["kind"]``, a ``kind``
    variable: any operand whose code says kind) with a document kind's name as a string literal. Other
    vocabularies that share a word with a kind (a tool named ``patch``, a language named ``diff``) pass."""
    def names(node: ast.expr) -> set[str]:
        values = node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [node]
        return {v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)} & set(KINDS)

    def decides(node: ast.Compare) -> bool:
        sides = [node.left, *node.comparators]
        return any(names(side) for side in sides) and any("kind" in ast.unparse(side) for side in sides)

    return [(node.lineno, ast.unparse(node)) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Compare) and decides(node)]


def test_no_layer_decides_by_a_document_kind_literal() -> None:
    """A kind's name compared outside codemix/kinds.py is a kind decided in the wrong place: ask the kind."""
    assert literal_comparisons('if doc.kind in ("transcript", "issue"):\n    pass'), "guard: the old special case"
    assert literal_comparisons('x = row.get("kind") != "commit"'), "guard: a row's kind"
    assert not literal_comparisons('x = language == "file"'), "guard: another vocabulary's word"
    offenders = []
    for folder in package_dirs().values():
        for path in (REPO_ROOT / folder).rglob("*.py"):
            if path == REPO_ROOT / "codemix" / "kinds.py":
                continue
            offenders += [f"{path.relative_to(REPO_ROOT)}:{line}: {code}"
                          for line, code in literal_comparisons(path.read_text())]
    assert offenders == []


def test_every_source_type_yields_a_registered_kind_and_every_claim_is_a_source_type() -> None:
    assert set(READERS) == set(SOURCE_TYPES), "guard: the source types are the readers'"
    claimed = [t for kind in KINDS.values() for t in kind.source_types]
    assert sorted(claimed) == sorted(set(claimed)) and set(claimed) <= set(SOURCE_TYPES)
    for source_type in SOURCE_TYPES:
        assert source_kind(source_type).name in KINDS
        assert SourceConfig(name="s", type=source_type, paths=["x"]).kind == source_kind(source_type).name


def test_a_kind_answers_from_known_vocabularies_and_a_bad_one_is_refused_by_field() -> None:
    for kind in KINDS.values():
        kind.validate()
    with pytest.raises(ValueError, match=r"'odd': redaction 'xml' is not one of"):
        register(DocumentKind(name="odd", summary="", redaction="xml"))
    with pytest.raises(ValueError, match="registered twice"):
        register(dataclasses.replace(FILE, source_types=()))
    with pytest.raises(ValueError, match="source type 'commits' already yields 'commit'"):
        register(DocumentKind(name="history", summary="", source_types=("commits",)))
    assert "odd" not in KINDS and "history" not in KINDS
    with pytest.raises(ValueError, match=r"unknown document kind 'wiki': use one of file, "):
        document_kind("wiki")


def kinds_read(tmp_path: Path, itsdangerous_history: Path) -> dict[str, list[Document]]:
    """Documents of every kind a reader yields, read from real files: a directory holding a Python file
    and a notebook, the example transcripts, recorded GitHub threads and 36 itsdangerous commits."""
    folder = tmp_path / "tree"
    folder.mkdir()
    shutil.copy(REPO_ROOT / "codemix" / "kinds.py", folder / "kinds.py")
    shutil.copy(REPO_ROOT / "tests" / "fixtures" / "notebooks" / "nbformat-test4.ipynb", folder / "test4.ipynb")
    runs = SourceConfig(name="runs", type="transcripts", paths=["x"])
    sources = [(SourceConfig(name="tree", type="directory", paths=[str(folder)], notebooks=NotebookConfig()),
                str(folder)),
               *((runs, str(path)) for path in sorted((REPO_ROOT / "examples" / "transcripts").iterdir())),
               (SourceConfig(name="gh", type="issues", paths=["x"]), str(REPO_ROOT / "tests" / "fixtures" / "github")),
               (SourceConfig(name="history", type="commits", paths=["x"]), str(itsdangerous_history))]
    found: dict[str, list[Document]] = {}
    for source, location in sources:
        source.validate("sources[0]")
        for outcome in read_location(source, location):
            if isinstance(outcome, Document):
                found.setdefault(outcome.kind, []).append(outcome)
    return found


def test_readers_yield_registered_kinds_with_the_metadata_each_declares(tmp_path: Path,
                                                                        itsdangerous_history: Path) -> None:
    found = kinds_read(tmp_path, itsdangerous_history)
    assert set(found) == set(KINDS) - {kinds.REPO.name}, "guard: every kind a reader yields was read"
    for name, docs in found.items():
        declared = set(document_kind(name).metadata) | {"location"}
        used = set().union(*(doc.metadata for doc in docs))
        assert used <= declared, f"{name}: undeclared metadata {sorted(used - declared)}"
