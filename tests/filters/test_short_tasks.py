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
