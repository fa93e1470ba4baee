"""HumanEval tasks too short for the code index are removed when they arrive with their prompt, and
idioms of the same shape (Euclid's gcd, ``return x + y``) are still kept."""

from __future__ import annotations

import re
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from codemix.document import Document
from codemix.filters.apply import DocumentFilter
from codemix.filters.code_lexer import lexed_stream
from codemix.filters.code_runs import run_projection
from codemix.filters.config import FiltersConfig
from codemix.filters.decontamination import (
    ContaminationIndex,
    DecontaminationConfig,
    code_ngram_hashes,
    code_tokens,
    humaneval_items,
)
from codemix.filters.short_tasks import (
    PromptedTaskIndex,
    prompt_prose,
    prompted_items,
    prose_grams,
    screen_grams,
    screen_word_hash,
    short_task_index,
    token_stream,
)

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


def _utf8_texts(paths) -> list[str]:
    texts = []
    for path in paths:
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:  # the stdlib's tests of other encodings
            continue
    return texts


def _exact_candidates(short, text: str) -> list:
    """What ``hits`` weighed before the screen: the tasks whose prose ``prose_grams`` finds."""
    return short._candidates(np.isin(short._keys, short._found_keys(prose_grams(text))))


def test_screen_grams_are_the_3grams_of_the_ascii_words_by_a_regex():
    """``screen_grams`` (numpy over bytes) against the words a regex finds in the lowercased text with every
    non-ASCII character a separator, each hashed by ``screen_word_hash``."""
    stdlib = Path(sysconfig.get_path("stdlib"))
    texts = _utf8_texts(sorted(stdlib.glob("*.py"))[:60])
    texts += [t for t in _utf8_texts(sorted(stdlib.glob("**/*.py"))) if not t.isascii()][:20]
    texts += ["", "a b", "Kelvin \u212a x İstanbul naïve 3D x_y", "ÉCOLE_42 ſtraße"]
    assert sum(not t.isascii() for t in texts) >= 20, "guard: non-ASCII texts are compared"
    for text in texts:
        lowered = "".join(c if c.isascii() else " " for c in text.lower())
        words = re.findall(r"[a-z0-9]+", lowered)
        expected = np.array([screen_word_hash(w) for w in words], dtype=np.uint64)
        if len(expected) >= 3:
            expected = (expected[:-2] * np.uint64(0x100000001B3) + expected[1:-1]) * np.uint64(0x100000001B3) + expected[2:]
        else:
            expected = expected[:0]
        assert np.array_equal(screen_grams(text), expected), text[:80]


def test_the_screen_passes_every_text_whose_prose_finds_a_task(indexes):
    """The screen (``may_hit``) is exact: every text with a candidate by ``prose_grams`` passes, on real files
    with HumanEval prompts pasted in, edited, and with their words made non-ASCII; and it refuses most files."""
    _, short = indexes
    stdlib = Path(sysconfig.get_path("stdlib"))
    hosts = _utf8_texts(sorted(stdlib.glob("**/*.py"))[::7])
    texts = list(hosts)
    for number, (item_id, task) in enumerate(sorted(TASKS.items())):
        host = hosts[number % len(hosts)]
        texts += [host + "\n\n" + task, host.replace("\n", "\n" + task, 1), f"# ſ İ naïve\n{host}\n{task}"]
    passed = [short.may_hit(t) for t in texts]
    candidates = [bool(_exact_candidates(short, t)) for t in texts]
    assert [t[:60] for t, p, c in zip(texts, passed, candidates, strict=True) if c and not p] == []
    assert sum(candidates) >= 100 and sum(not t.isascii() and c for t, c in zip(texts, candidates, strict=True)) >= 50
    assert sum(passed[:len(hosts)]) <= len(hosts) // 10, "guard: the screen refuses ordinary files"


def test_a_task_whose_prose_is_not_ascii_is_screened_in_as_found():
    """A task whose prose words are accented (never ASCII words) is still a candidate in a text holding them."""
    task = TASKS["HumanEval/13"]
    before, prompt, after = task.split('"""')
    accented = " ".join(w + "é" if i % 2 else w for i, w in enumerate(prompt.split(" ")))
    short = PromptedTaskIndex(prompted_items([("bench", "accented", f'{before}"""{accented}"""{after}', "python")], 40))
    assert len(short) == 1 and short._foreign.mean() > 0.5, "guard: most 3-grams hold an accented word"
    text = HOST + f'\n\n{before}"""{accented}"""{after}'
    assert _exact_candidates(short, text) and short.may_hit(text)
    assert [h.item_id for h in short.hits(text)] == ["accented"]
    assert not short.may_hit(HOST + "\n\n" + task)  # the unaccented prompt is another text


LEXED = ("javascript", "typescript", "go", "rust", "c", "cpp", "java")


def test_lexed_stream_is_the_exact_tokens_hashed():
    """``lexed_stream`` (numpy over bytes) equals ``token_stream`` of the exact check's ``lexed_tokens``, token for
    token, on real files read in several languages (their strings, comments, raw strings, names after a ".")."""
    stdlib = Path(sysconfig.get_path("stdlib"))
    texts = _utf8_texts(sorted(stdlib.glob("**/*.py"))[::160])
    texts += ['let a = x./* c */y + "s\\"t" // c\nr#"raw"# b"by" R"d(x)d" `t${1}` \'c\' naïve.z\n']
    compared = 0
    for text in texts:
        for language in LEXED:
            stream = lexed_stream(text, language)
            if stream is None:
                continue
            expected = token_stream(code_tokens(text, language))
            assert np.array_equal(stream[0], expected[0]) and np.array_equal(stream[1], expected[1]), (language, text[:60])
            compared += 1
    assert compared >= 7 * (len(texts) - 3), "guard: nearly every text was read"


def test_the_code_screen_keeps_every_hit_in_other_languages(indexes):
    """In a document of another language, the code screen (``_code_screened``) leaves the hits the exact check
    finds; it drops the tasks whose code is absent (the prompt alone)."""
    _, short = indexes
    hits = dropped = 0
    host = HOST[:3000]  # a real file's opening: the tasks are what is compared
    for language in ("javascript", "typescript", "go", "rust", "cpp"):
        for item_id, task in sorted(TASKS.items()):
            prompt_only = f'{host}\n\n"""{prompt_prose(task)}"""\n'
            for text in (host + "\n\n" + task, prompt_only):
                candidates = _exact_candidates(short, text)
                tokens = code_tokens(text, language)
                exact = sorted((h for t in candidates if (h := short._hit(t, text, tokens, code_ngram_hashes(tokens, t.n)))),
                               key=lambda hit: (-hit.overlap, hit.benchmark, hit.item_id))
                assert short.hits(text, language) == exact, (language, item_id)
                hits += len(exact)
                dropped += len(candidates) - len(short._code_screened(candidates, text, language))
    assert hits >= 15 and dropped >= 100, (hits, dropped)


def test_the_python_code_screen_keeps_every_hit(indexes):
    """In a Python document, the code screen (``_python_screened``: each candidate's ``ScreenIndex`` over the
    document's ``run_projection``) keeps every task the exact check hits: each short task pasted into a real file
    whole and in every leak variant of bench.short_tasks (renamed, docstring edited, class method...), and the
    stdlib files whose prose finds a task. It drops the tasks whose code is absent (the prompt alone)."""
    from bench.short_tasks import LEAK_VARIANTS

    code, short = indexes
    stdlib = Path(sysconfig.get_path("stdlib"))
    texts = [t for t in _utf8_texts(sorted(stdlib.glob("**/*.py"))[::3]) if short.may_hit(t)]
    for item_id in short_task_ids(code):
        task = TASKS[item_id]
        texts += [HOST + "\n\n" + variant(task) for variant in LEAK_VARIANTS.values()]
        texts.append(f'{HOST}\n\n"""{prompt_prose(task)}"""\n')
    hits = dropped = projected = 0
    for text in texts:
        numbers = short._candidate_numbers(np.isin(short._keys, short._found_keys(prose_grams(text))))
        tokens = code_tokens(text)
        exact = [i for i in numbers if short._hit(short.tasks[i], text, tokens, code_ngram_hashes(tokens, short.tasks[i].n))]
        kept = short._python_screened(numbers, text)
        assert set(exact) <= set(kept), text[-300:]
        hits, dropped = hits + len(exact), dropped + len(numbers) - len(kept)
        projected += bool(numbers) and run_projection(text) is not None  # the screen was asked, not passed unsure
    assert hits >= 300 and dropped >= 100 and projected >= 350, (hits, dropped, projected)


def test_the_screen_places_give_the_candidates_of_the_whole_text(indexes):
    """``hits`` reads an ASCII text's 3-grams only at the places the screen flags (``_screened``'s spans): the
    candidates are those of ``prose_grams`` over the whole text, on real files with HumanEval prompts pasted in
    whole, edited and renamed (bench.short_tasks' variants), and with their words made non-ASCII (no spans)."""
    from bench.short_tasks import LEAK_VARIANTS

    _, short = indexes
    stdlib = Path(sysconfig.get_path("stdlib"))
    hosts = _utf8_texts(sorted(stdlib.glob("**/*.py"))[::11])
    texts = list(hosts)
    for number, (item_id, task) in enumerate(sorted(TASKS.items())):
        host = hosts[number % len(hosts)]
        variant = list(LEAK_VARIANTS.values())[number % len(LEAK_VARIANTS)]
        texts += [host + "\n\n" + variant(task), f"# ſ İ naïve\n{host}\n{task}"]
    compared = 0
    for text in texts:
        passes, spans = short._screened(text)
        if passes:
            found = short._found_keys(short._text_grams(text, spans))
            assert set(found.tolist()) == set(short._found_keys(prose_grams(text)).tolist()), text[:80]
            exact = {id(task) for task in _exact_candidates(short, text)}
            assert short._candidate_numbers(np.isin(short._keys, found)) == [
                i for i, task in enumerate(short.tasks) if id(task) in exact], text[:80]
            compared += spans is not None and bool(exact)
    assert compared >= 60, "guard: ASCII texts with candidates were compared"
