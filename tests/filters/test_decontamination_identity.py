"""No file dropped for an idiom (issue 47): a match shorter than ``min_match_tokens`` of an item's own code
removes a document only when the item's identifying part is found with it (its signature or a name its
prompt defines; for a short task, its prompt's prose beside the code). Real sympy files that share
HumanEval/13's Euclid loop and HumanEval/35's running maximum are kept; the items themselves are not."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

from codemix.document import Document
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.filters.decontamination import ContaminationIndex, DecontaminationConfig, humaneval_items

TASKS = {item_id: text for _, item_id, text, _ in list(humaneval_items())[::2]}  # prompt + solution
SYMPY = Path(find_spec("sympy").origin).parent  # installed with torch; the files the issue names


def judged(text: str, path: str = "m.py", config: FiltersConfig | None = None) -> set[str]:
    doc = Document(id=path, text=text, source="t", kind="file", path=path, language="python")
    return {hit.item_id for hit in DocumentFilter(config or FiltersConfig()).benchmark_hits(doc)}


def test_sympy_files_that_share_an_idiom_with_a_task_are_kept():
    gaussian = (SYMPY / "polys" / "domains" / "gaussiandomains.py").read_text()
    perm_groups = (SYMPY / "combinatorics" / "perm_groups.py").read_text()
    assert "while b:\n            a, b = b, a % b" in gaussian  # guard: Euclid's loop, as in HumanEval/13
    assert len(perm_groups.splitlines()) > 5000
    for min_match_tokens in (40, 20):
        config = FiltersConfig(decontamination=DecontaminationConfig(min_match_tokens=min_match_tokens))
        assert judged(gaussian, "gaussiandomains.py", config) == set()
        assert judged(perm_groups, "perm_groups.py", config) == set()


def test_a_short_match_needs_the_items_signature():
    """With ``min_match_tokens`` 20 the 29-token HumanEval/13 is indexed; its own code (the loop) has 14.
    The same loop under another signature is an idiom; under the task's signature (names renamed) it is
    the task."""
    index = ContaminationIndex.from_config(DecontaminationConfig(min_match_tokens=20, screen=False))
    loop = "    while b:\n        a, b = b, a % b\n    return a\n"
    assert {h.item_id for h in index.hits(TASKS["HumanEval/13"])} >= {"HumanEval/13"}  # guard: indexed
    assert "HumanEval/13" not in {h.item_id for h in index.hits(f"def gcd(a, b, *rest):\n{loop}")}
    assert "HumanEval/13" in {h.item_id for h in index.hits(f"def euclid(x: int, y: int) -> int:\n{loop}")}


def test_a_short_task_needs_its_prompt_beside_its_code():
    """HumanEval/34 (``sorted(list(set(l)))``, 19 tokens) is matched with its prose; the prose in one
    place of a large file and the idiom 3,000 characters away is two unrelated things."""
    prose = '    """Return sorted unique elements in a list"""\n'
    code = "def distinct(values: list):\n    return sorted(list(set(values)))\n"
    filler = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n" for i in range(120))
    assert len(filler) > 3000
    together = f"def unique(l: list):\n{prose}    return sorted(list(set(l)))\n"
    assert "HumanEval/34" in judged(together)
    assert "HumanEval/34" not in judged(f"def describe():\n{prose}    pass\n\n{filler}{code}")
