"""HumanEval tasks too short for the code index are removed when they arrive with their prompt, and
idioms of the same shape (Euclid's gcd, ``return x + y``) are still kept."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from codemix.document import Document
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.filters.decontamination import ContaminationIndex, DecontaminationConfig, humaneval_items
from codemix.filters.short_tasks import short_task_index

HOST = (Path(sysconfig.get_path("stdlib")) / "textwrap.py").read_text(encoding="utf-8")
TASKS = {item_id: text for _, item_id, text, _ in list(humaneval_items())[::2]}  # prompt + solution
SOLUTIONS = {item_id: text for _, item_id, text, _ in list(humaneval_items())[1::2]}
IDIOMS = ["def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a\n",
          "def add(x, y):\n    return x + y\n",
          "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n"]


@pytest.fixture(scope="module")
def indexes() -> tuple[ContaminationIndex, ContaminationIndex]:
    return ContaminationIndex.from_config(DecontaminationConfig()), short_task_index(DecontaminationConfig())


def test_every_short_task_pasted_with_its_prompt_is_hit(indexes):
    code, short = indexes
    missed_by_code = [i for i, text in TASKS.items() if not code.hits(HOST + "\n\n" + text)]
    assert len(missed_by_code) >= 50, "guard: about a third of HumanEval is too short for the code index"
    assert [i for i in missed_by_code if not short.hits(HOST + "\n\n" + TASKS[i])] == []


@pytest.mark.parametrize("idiom", IDIOMS)
def test_idioms_and_bare_short_solutions_are_kept(indexes, idiom):
    _, short = indexes
    assert short.hits(HOST + "\n\n" + idiom) == []
    assert short.hits(HOST + "\n\n" + SOLUTIONS["HumanEval/13"]) == []  # the solution without its task text


def test_the_filter_stage_removes_a_short_task_with_its_prompt():
    text = HOST + "\n\n" + TASKS["HumanEval/13"]
    doc = Document(id="d", text=text, source="repo", kind="file", path="lib/util.py", language="python", license="mit")
    verdict = DocumentFilter(FiltersConfig()).judge(doc)
    assert verdict.reason == "contaminated" and {h.item_id for h in verdict.hits} == {"HumanEval/13"}


def short_task_ids(code: ContaminationIndex) -> list[str]:
    return [i for i, text in TASKS.items() if not code.hits(HOST + "\n\n" + text)]


@pytest.mark.parametrize("variant", ["renamed", "docstring_edited", "docstring_edited_renamed", "class_method"])
def test_short_tasks_are_hit_renamed_or_with_a_slightly_edited_prompt(indexes, variant):
    """Renaming changes no normalised code token; one prose word in ten replaced leaves most 3-grams
    (the transformations are bench.short_tasks', made with ``ast``/``tokenize``)."""
    from bench.short_tasks import LEAK_VARIANTS

    code, short = indexes
    ids = short_task_ids(code)
    leaked = {i: LEAK_VARIANTS[variant](TASKS[i]) for i in ids}
    # HumanEval/23, /49 and /53 have under five prose words: the edit (every tenth word, from the fifth) leaves them.
    assert sum(leaked[i] != TASKS[i] for i in ids) >= len(ids) - 3, "guard: the variant changed the tasks"
    missed = [i for i in ids if not any(h.item_id == i for h in short.hits(HOST + "\n\n" + leaked[i]))]
    # HumanEval/42's prompt is 7 words: one edit leaves 2 of 5 3-grams, which still cover 4 of the 7 words.
    assert missed == []


def test_a_short_task_in_a_notebook_cell_is_removed_and_an_idiom_cell_kept():
    from bench.notebook_decontamination import DEFAULT, notebook_with

    checker = DocumentFilter(FiltersConfig())
    base = DEFAULT.read_text()

    def verdict(code: str):
        doc = Document(id="n", text=notebook_with(base, code), source="repo", kind="file", path="nb/x.ipynb",
                       language="jupyter notebook", license="mit")
        return checker.judge(doc)

    assert {h.item_id for h in verdict(TASKS["HumanEval/23"]).hits} == {"HumanEval/23"}
    assert verdict(IDIOMS[0]).reason is None and verdict(SOLUTIONS["HumanEval/23"]).hits == ()


def test_the_prompt_beside_other_code_is_kept(indexes):
    """Both kinds of evidence are needed: the task's text quoted above unrelated code removes nothing."""
    _, short = indexes
    prompt = TASKS["HumanEval/13"].split('"""')[1]
    assert short.hits(HOST + f'\n\n"""{prompt}"""\n\ndef unrelated(x):\n    return [y * 2 for y in x if y]\n') == []
