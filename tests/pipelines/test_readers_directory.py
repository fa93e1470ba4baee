"""The directory reader: a sorted walk that reports links and special files instead of following them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codemix.document import Document, Quarantined
from codemix.pipelines.readers import read_location
from tests.pipelines.readers_fixtures import CONTENT_OUTCOMES, FILES, location_of, outcome_table, source, write_files

EXPECTED = {
    **CONTENT_OUTCOMES,
    "link.md": ("dropped", "symlink"),
    "outside": ("dropped", "symlink"),
    "pipe": ("dropped", "not_regular_file"),
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """FILES, a file symlink, a symlink to a directory outside the root, a FIFO and a .git folder."""
    base = tmp_path_factory.mktemp("directory")
    write_files(base / "secret", {"key.txt": b"do not read\n"})
    root = base / "project"
    write_files(root, {**FILES, ".git/config": b"[core]\n"})
    os.symlink("README.md", root / "link.md")
    os.symlink(base / "secret", root / "outside")
    os.mkfifo(root / "pipe")
    return root


def test_every_entry_has_its_outcome(tree: Path) -> None:
    assert outcome_table(read_location(source("directory"), str(tree)), f"{tree}/") == EXPECTED


def test_directory_symlink_is_not_followed(tree: Path) -> None:
    assert (tree / "outside" / "key.txt").is_file(), "guard: the link leads somewhere readable"
    texts = [o.text for o in read_location(source("directory"), str(tree)) if isinstance(o, Document)]
    assert texts and not any("do not read" in text for text in texts)


def test_text_round_trips_byte_exact(tree: Path) -> None:
    docs = [o for o in read_location(source("directory"), str(tree)) if isinstance(o, Document)]
    assert len(docs) == 3
    assert all(doc.text.encode("utf-8") == FILES[doc.path] for doc in docs)


def test_walk_order_and_ids_are_deterministic(tree: Path) -> None:
    def read() -> list[tuple[str, str]]:
        return [(location_of(o), getattr(o, "id", "")) for o in read_location(source("directory"), str(tree))]

    first = read()
    assert len(first) == len(EXPECTED) and read() == first


def test_document_fields(tree: Path) -> None:
    docs = {o.path: o for o in read_location(source("directory"), str(tree)) if isinstance(o, Document)}
    app = docs["src/app.py"]
    assert (app.repo, app.language, app.kind, app.metadata) == (
        "project", "python", "file", {"location": f"{tree}/src/app.py"})


def test_exclude_glob_on_files_drops_with_reason(tree: Path) -> None:
    table = outcome_table(read_location(source("directory", exclude=["*.py"]), str(tree)), f"{tree}/")
    assert table["src/app.py"] == ("dropped", "path_not_included")


def test_wholly_excluded_directory_is_not_walked(tree: Path) -> None:
    assert "src/app.py" in EXPECTED, "guard: the fixture has files under src/"
    table = outcome_table(read_location(source("directory", exclude=["sr?/*"]), str(tree)), f"{tree}/")
    assert not any(path.startswith("src/") for path in table)
    assert {p: o for p, o in EXPECTED.items() if not p.startswith("src/")} == table


@pytest.mark.parametrize("target", ["missing", "a_file"])
def test_not_a_directory_is_one_quarantine(tmp_path: Path, target: str) -> None:
    (tmp_path / "a_file").write_text("x")
    outcomes = list(read_location(source("directory"), str(tmp_path / target)))
    assert len(outcomes) == 1 and isinstance(outcomes[0], Quarantined)
    assert outcomes[0].error.startswith("NotADirectoryError")
