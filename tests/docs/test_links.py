"""Every path the README, docs/ and module docstrings name resolves, and the newcomer's page stays short.

A link is checked the way a reader follows it: a relative Markdown link names a file (or folder) that
exists, and its ``#anchor`` a heading of that file (GitHub's slug rule). A module docstring's
``Design notes: docs/design/X.md, "path"`` names a ``## path...`` section of X.md.
"""

from __future__ import annotations

import ast
import re
import typing
from pathlib import Path

import pytest

from codemix.pipelines.readers import READERS
from codemix.sources import SourceType

REPO = Path(__file__).resolve().parents[2]
PACKAGE_FOLDERS = ("codemix", "mix", "filters", "dedup", "mixtures", "pipelines", "pretrain", "dashboards")
MARKDOWN = [REPO / "README.md", REPO / "pretrain" / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
# Paths other projects' docs hold, cited in comments as the source of a format (not this repository's docs).
FOREIGN_DOCS = {"docs/usage/trajectories.md": "SWE-agent", "docs/usage/output_files.md": "mini-swe-agent",
                "docs/doc.md": "gin", "docs/spec.md": "git-lfs", "docs/logo.svg": "a REUSE example",
                "docs/logo.svg.license": "a REUSE example"}
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
DOC_PATH = re.compile(r"\bdocs/[A-Za-z0-9_./-]*[A-Za-z0-9_]")
DESIGN_NOTE = re.compile(r"Design notes:\s*(docs/design/[\w.-]+\.md),\s*\"([^\"]+)\"")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but ``-``/``_`` removed, spaces to ``-``."""
    text = re.sub(r"[`*_]{1,2}(?=\S)|(?<=\S)[`*_]{1,2}", "", heading.strip()).lower()
    return re.sub(r"\s", "-", re.sub(r"[^\w\- ]", "", text))


def headings(path: Path) -> list[str]:
    lines, fenced = [], False
    for line in path.read_text().splitlines():
        fenced = fenced != line.startswith("```")
        if not fenced and line.startswith("#"):
            lines.append(line.lstrip("#").strip())
    return lines


def broken_links(path: Path) -> list[str]:
    broken = []
    for target in LINK.findall(re.sub(r"```.*?```", "", path.read_text(), flags=re.DOTALL)):
        if re.match(r"[a-z]+:", target):
            continue  # a URL, not a path in this repository
        file, _, anchor = target.partition("#")
        resolved = (path.parent / file).resolve() if file else path
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.is_file() and anchor not in {slug(h) for h in headings(resolved)}:
            broken.append(f"{target}: no heading with that anchor in {resolved.name}")
    return broken


def module_sources() -> list[Path]:
    return sorted(p for folder in PACKAGE_FOLDERS for p in (REPO / folder).rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: str(p.relative_to(REPO)))
def test_markdown_links_resolve(path):
    assert broken_links(path) == []


def test_the_link_check_finds_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# A heading\n")
    page.write_text("[ok](other.md#a-heading) [gone](missing.md) [bad anchor](other.md#nope) [web](https://x.org/y)\n")
    assert broken_links(page) == ["missing.md: no such file", "other.md#nope: no heading with that anchor in other.md"]


def test_every_docs_path_a_module_names_exists():
    missing = []
    for source in module_sources():
        for name in DOC_PATH.findall(source.read_text()):
            if name not in FOREIGN_DOCS and not (REPO / name).exists():
                missing.append(f"{source.relative_to(REPO)}: {name}")
    assert missing == []


def test_every_design_note_a_docstring_points_to_exists():
    checked, missing = 0, []
    for source in module_sources():
        docstring = ast.get_docstring(ast.parse(source.read_text())) or ""
        for document, section in DESIGN_NOTE.findall(docstring):
            checked += 1
            sections = headings(REPO / document) if (REPO / document).exists() else []
            if not any(h == section or h.startswith((section + " ", section + ":")) for h in sections):
                missing.append(f"{source.relative_to(REPO)} -> {document} \"{section}\"")
    assert checked >= 30, "the docstrings' pointer format changed; update DESIGN_NOTE"
    assert missing == []


def test_the_readme_is_a_page_a_newcomer_reads():
    readme = (REPO / "README.md").read_text()
    assert len(readme.encode()) <= 15 * 1024
    for needed in ("make demo", "make test", "mix build", "docs/README.md", "docs/layout.md"):
        assert needed in readme


def test_the_readmes_first_spec_is_the_example_file_and_validates(monkeypatch):
    from codemix.mixtures.spec import load_spec

    block = re.search(r"## A first spec\n\n```yaml\n(.*?)```", (REPO / "README.md").read_text(), re.DOTALL).group(1)
    example = REPO / "examples" / "first.yaml"
    assert block == example.read_text()
    monkeypatch.setenv("STDLIB", str(REPO))
    spec = load_spec(example)
    assert {source.name for source in spec.sources} == {"stdlib", "agent_runs"}


def test_each_source_type_has_its_reader_and_each_reader_its_type():
    assert set(typing.get_args(SourceType)) == set(READERS)


@pytest.mark.parametrize("page", ["README.md", "docs/mixture-spec.md"])
def test_the_source_types_the_docs_list_are_the_real_ones(page):
    listed = re.search(r"type: \w+ +# ([a-z_]+(?: \| [a-z_]+)+)", (REPO / page).read_text()).group(1).split(" | ")
    assert sorted(listed) == sorted(typing.get_args(SourceType))
