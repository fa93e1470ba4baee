"""Notebook files (raw JSON) are read as their cells: a HumanEval task in a code cell is removed as it is from a `.py`
file, an idiom in one is kept, and secrets in cells are redacted as code (or prose) with the JSON
still a notebook. The notebook is a real one written by Jupyter; the `json` module is the reference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.redaction import code_tokens, python_tokens
from codemix.document import Document
from codemix.filters import notebooks
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.filters.decontamination import humaneval_items
from codemix.filters.notebook_json import notebook_cells
from codemix.filters.secrets import RedactionConfig, redact_document

NOTEBOOK = Path(__file__).resolve().parents[1] / "fixtures" / "notebook_files" / "wasabi-test-notebook.ipynb"
TASKS = {item_id: text for _, item_id, text, _ in list(humaneval_items())[::2]}  # prompt + solution
GCD = "def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a\n"


def with_cells(*cells: tuple[str, str]) -> str:
    """The real notebook with ``(cell_type, source)`` cells appended, in Jupyter's layout."""
    notebook = json.loads(NOTEBOOK.read_text())
    for i, (kind, source) in enumerate(cells):
        cell = {"cell_type": kind, "id": f"added{i}", "metadata": {}, "source": source.splitlines(keepends=True)}
        if kind == "code":
            cell |= {"execution_count": None, "outputs": []}
        notebook["cells"].append(cell)
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def notebook_doc(text: str) -> Document:
    return Document(id="nb", text=text, source="repo", kind="file", path="analysis/explore.ipynb",
                    language="jupyter notebook", license="mit")


def test_cells_decode_to_what_json_reads_and_map_back_to_the_file():
    raw = with_cells(("markdown", "# Notes \u00e9\n\n\"quoted\"\ttab\n"), ("code", 'x = "a\\\\b"\nprint(x)\n'))
    cells = notebook_cells(raw)
    sources = ["".join(c["source"]) for c in json.loads(raw)["cells"]]
    assert [c.text for c in cells] == sources
    for cell in cells:
        assert len(cell.offsets) == len(cell.text) + 1
        assert all(raw[o] == ch or raw[o] == "\\" for o, ch in zip(cell.offsets, cell.text))
    assert [c.language for c in cells] == ["python", "", "python"]  # the kernelspec's language


@pytest.mark.parametrize("item_id", ["HumanEval/0", "HumanEval/12", "HumanEval/129"])
def test_a_humaneval_task_in_a_code_cell_is_removed(item_id):
    checker = DocumentFilter(FiltersConfig())
    raw = with_cells(("markdown", "Scratch work."), ("code", TASKS[item_id]))
    assert not checker.contamination.hits(raw, "jupyter notebook"), "guard: read as raw JSON it was missed"
    assert checker.judge(notebook_doc(with_cells(("markdown", "Scratch work."), ("code", "import math\n")))).reason is None
    verdict = checker.judge(notebook_doc(raw))
    assert verdict.reason == "contaminated" and item_id in {h.item_id for h in verdict.hits}


def test_an_idiom_in_a_code_cell_is_kept():
    verdict = DocumentFilter(FiltersConfig()).judge(notebook_doc(with_cells(("code", GCD))))
    assert verdict.reason is None


def test_secrets_in_cells_are_redacted_as_code_and_the_notebook_still_parses():
    secret, token = "Vq7" + "#pLm2Xz9Tk4", "ghp_" + "4Fj9sK2mQ7xL1pZ8vR3tY6wB0nC5hD2eG9aJ"
    code = f'client = Client(a, authkey=self._authkey)\nx = g(credentials=credentials,\n      )\nDB_PASSWORD = "{secret}"\n'
    raw = with_cells(("code", code), ("markdown", f"Set `GITHUB_TOKEN={token}` before running.\n"))
    assert f'DB_PASSWORD = \\"{secret}\\"' in raw, "guard: the quotes are JSON-escaped in the file"
    redacted, counts = redact_document(notebook_doc(raw), RedactionConfig())
    assert secret not in redacted.text and token not in redacted.text
    assert counts == {"SECRET_PASSWORD": 1, "SECRET_GITHUB_TOKEN": 1}
    cells = json.loads(redacted.text)["cells"]
    after = "".join(cells[1]["source"])
    assert code_tokens(python_tokens(after)) == code_tokens(python_tokens(code))
    assert after == code.replace(secret, "<SECRET_PASSWORD>")
    assert "".join(cells[2]["source"]) == "Set `GITHUB_TOKEN=<SECRET_GITHUB_TOKEN>` before running.\n"


def test_a_notebook_document_in_the_cells_layout_is_redacted_cell_by_cell():
    """Issue 28's ``cells`` layout: code cells as code (``credentials=credentials`` kept), markdown and
    outputs as prose, the markers untouched."""
    secret, token = "Vq7" + "#pLm2Xz9Tk4", "ghp_" + "4Fj9sK2mQ7xL1pZ8vR3tY6wB0nC5hD2eG9aJ"
    code = f'client = Client(a, authkey=self._authkey)\nx = g(credentials=credentials,\n      )\nDB_PASSWORD = "{secret}"\n'
    raw = with_cells(("markdown", "Set `GITHUB_TOKEN` first.\n"), ("code", code))
    cells = notebooks.read_cells(json.loads(raw), 1000)
    cells[-1].outputs.append(f"token {token}")
    text = notebooks.cells_text(cells)
    doc = Document(id="nb", text=text, source="repo", kind="notebook", path="a.ipynb", language="python")
    redacted, counts = redact_document(doc, RedactionConfig())
    assert counts == {"SECRET_PASSWORD": 1, "SECRET_GITHUB_TOKEN": 1}
    assert redacted.text == text.replace(secret, "<SECRET_PASSWORD>").replace(token, "<SECRET_GITHUB_TOKEN>")
