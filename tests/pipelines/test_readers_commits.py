"""The commits reader on a real history (36 itsdangerous commits): one outcome per commit git lists,
each document's text what ``git show`` prints, each drop reason checked against git's own answer."""

from __future__ import annotations

import collections
import fnmatch
import subprocess
from pathlib import Path

import pytest

from codemix.document import Document, Dropped, Quarantined, ReadCount
from codemix.pipelines.readers import read_counted, read_location
from codemix.pipelines.readers.commits import parse_log
from codemix.sources import HistoryConfig, SourceConfig


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(repo), *args], capture_output=True, check=True).stdout.decode()


def commits_source(**history: object) -> SourceConfig:
    source = SourceConfig(name="history", type="commits", paths=["unused"], history=HistoryConfig(**history))
    source.validate("sources[0]")
    return source


def sha_of(outcome) -> str:
    location = outcome.metadata["location"] if isinstance(outcome, Document) else outcome.location
    return location.rsplit("@", 1)[1]


@pytest.fixture(scope="module")
def outcomes(itsdangerous_history: Path) -> list:
    return list(read_counted(commits_source(), str(itsdangerous_history)))


def by_reason(outcomes: list) -> dict[str, set[str]]:
    reasons = collections.defaultdict(set)
    for outcome in outcomes:
        if isinstance(outcome, Document):
            reasons["document"].add(sha_of(outcome))
        elif isinstance(outcome, Dropped):
            reasons[outcome.reason].add(sha_of(outcome))
        elif isinstance(outcome, Quarantined):
            reasons["quarantined"].add(outcome.location)
    return dict(reasons)


def test_every_commit_git_lists_has_one_outcome(itsdangerous_history: Path, outcomes: list) -> None:
    listed = git(itsdangerous_history, "rev-list", "main").split()
    records = [o for o in outcomes if not isinstance(o, ReadCount)]
    assert len(listed) == 36 and sorted(map(sha_of, records)) == sorted(listed)
    assert [o.records for o in outcomes if isinstance(o, ReadCount)] == [36]


def test_the_history_yields_every_reason_it_holds(outcomes: list) -> None:
    counts = {reason: len(shas) for reason, shas in by_reason(outcomes).items()}
    assert counts == {"merge_commit": 16, "bot_author": 5, "bot_message": 1, "binary_only": 1, "document": 13}


def test_merges_are_what_git_calls_merges(itsdangerous_history: Path, outcomes: list) -> None:
    assert by_reason(outcomes)["merge_commit"] == set(git(itsdangerous_history, "rev-list", "--merges", "main").split())


def test_bot_authors_are_what_git_finds_by_author(itsdangerous_history: Path, outcomes: list) -> None:
    bots = set(git(itsdangerous_history, "log", "--no-merges", "--format=%H", r"--author=\[bot\]", "main").split())
    assert len(bots) == 5 and by_reason(outcomes)["bot_author"] == bots


def test_a_human_squash_of_a_bot_pull_request_is_a_bot_message(itsdangerous_history: Path, outcomes: list) -> None:
    bumps = git(itsdangerous_history, "log", "--no-merges", "--format=%H %an", "-E", "--grep=^Bump ", "main").splitlines()
    human = {line.split()[0] for line in bumps if "[bot]" not in line}
    assert len(human) == 1 and by_reason(outcomes)["bot_message"] == human


def test_binary_only_commit_changes_only_files_git_calls_binary(itsdangerous_history: Path, outcomes: list) -> None:
    (sha,) = by_reason(outcomes)["binary_only"]
    numstat = git(itsdangerous_history, "show", "--format=", "--numstat", sha).splitlines()
    assert len(numstat) == 2 and all(line.startswith("-\t-\t") and line.endswith(".png") for line in numstat)


def test_document_text_is_the_message_and_what_git_show_prints(itsdangerous_history: Path, outcomes: list) -> None:
    docs = [o for o in outcomes if isinstance(o, Document)]
    assert len(docs) == 13
    for doc in docs:
        sha = doc.metadata["commit"]
        message = git(itsdangerous_history, "log", "-1", "--format=%B", sha).rstrip()
        diff = git(itsdangerous_history, "show", "--format=", "--no-color", sha)
        assert diff.startswith("diff --git ") and doc.text == f"{message}\n\n{diff}", sha


def test_document_fields_and_license_at_the_commit(itsdangerous_history: Path, outcomes: list) -> None:
    docs = [o for o in outcomes if isinstance(o, Document)]
    assert {(d.kind, d.repo, d.license, d.source) for d in docs} == {("commit", "itsdangerous", "BSD-3-Clause",
                                                                      "history")}
    doc = next(d for d in docs if d.text.startswith("remove slsa provenance"))
    assert doc.metadata["files"] == [{"path": ".github/workflows/publish.yaml", "old_path": ".github/workflows/publish.yaml",
                                      "status": "modified", "binary": False, "language": "yaml"}]
    assert doc.metadata["author"] == "David Lord" and doc.metadata["parents"] == [
        git(Path(doc.metadata["location"].rsplit("@", 1)[0]), "rev-parse", f"{doc.metadata['commit']}^").strip()]


def test_a_declared_license_wins(itsdangerous_history: Path) -> None:
    source = commits_source()
    source.license = "MIT"
    assert {o.license for o in read_location(source, str(itsdangerous_history)) if isinstance(o, Document)} == {"MIT"}


def test_no_license_file_at_the_commit_gives_no_license(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"app.py": b"print('hi')\n"}, "add the app")
    (doc,) = [o for o in read_location(commits_source(), str(repo)) if isinstance(o, Document)]
    assert doc.license == ""


def test_generated_paths_drop_commits_that_change_only_them(itsdangerous_history: Path, outcomes: list) -> None:
    """Of the commits kept by default, exactly those whose changed paths (git's --name-only) all match."""
    globs = ["requirements/*.txt", "*.yaml", "*.yml"]
    reasons = by_reason(list(read_location(commits_source(generated_paths=globs), str(itsdangerous_history))))
    expected = set()
    for sha in by_reason(outcomes)["document"]:
        paths = git(itsdangerous_history, "show", "--format=", "--name-only", sha).split()
        if all(any(fnmatch.fnmatchcase(p, g) or fnmatch.fnmatchcase(p.rsplit("/", 1)[-1], g) for g in globs)
               for p in paths):
            expected.add(sha)
    assert len(expected) >= 3 and reasons["generated_only"] == expected
    assert reasons["document"] == by_reason(outcomes)["document"] - expected


def test_diffs_over_the_cap_are_dropped(itsdangerous_history: Path) -> None:
    cap = 2000
    outcomes = list(read_location(commits_source(max_diff_bytes=cap), str(itsdangerous_history)))
    kept = by_reason(list(read_location(commits_source(), str(itsdangerous_history))))["document"]
    sizes = {sha: len(git(itsdangerous_history, "show", "--format=", "--no-color", sha).encode()) for sha in kept}
    assert by_reason(outcomes)["diff_too_large"] == {sha for sha, size in sizes.items() if size > cap}
    assert 0 < len(by_reason(outcomes)["diff_too_large"]) < len(kept)


def test_max_commits_and_dates_select_what_git_log_selects(itsdangerous_history: Path) -> None:
    outcomes = list(read_location(commits_source(max_commits=5, since="2024-09-01"), str(itsdangerous_history)))
    expected = git(itsdangerous_history, "rev-list", "--max-count=5", "--since=2024-09-01", "main").split()
    assert [sha_of(o) for o in outcomes] == expected


def test_branches_name_the_start_commits(itsdangerous_history: Path) -> None:
    start = git(itsdangerous_history, "rev-parse", "main~3").strip()
    outcomes = list(read_location(commits_source(branches=[start]), str(itsdangerous_history)))
    assert sorted(map(sha_of, outcomes)) == sorted(git(itsdangerous_history, "rev-list", start).split())


def test_a_clone_url_reads_the_same_commits(itsdangerous_history: Path) -> None:
    local = [sha_of(o) for o in read_location(commits_source(), str(itsdangerous_history))]
    cloned = [sha_of(o) for o in read_location(commits_source(), f"file://{itsdangerous_history}")]
    assert cloned == local


def test_a_bad_branch_quarantines_the_location(itsdangerous_history: Path) -> None:
    outcomes = list(read_counted(commits_source(branches=["no-such-branch"]), str(itsdangerous_history)))
    assert isinstance(outcomes[0], Quarantined) and "no-such-branch" in outcomes[0].error
    assert outcomes[1].records == 1


def make_repo(tmp_path: Path, files: dict[str, bytes], message: str) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    env = ["-c", "user.name=Planted", "-c", "user.email=planted@example.org"]
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    for name, data in files.items():
        (work / name).write_bytes(data)
    subprocess.run(["git", "-C", str(work), "add", "."], check=True)
    subprocess.run(["git", "-C", str(work), *env, "commit", "-q", "-m", message], check=True)
    return work


def test_a_diff_that_is_not_utf8_is_dropped_alone(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"latin1.txt": "café\n".encode("latin-1")}, "add a latin-1 file")
    (outcome, count) = list(read_counted(commits_source(), str(repo)))
    assert isinstance(outcome, Dropped) and outcome.reason == "not_utf8"
    assert count.records == 1


def test_parse_log_holds_no_diff_past_the_cap() -> None:
    header = b"\0" + b"\0".join([b"a" * 40, b"", b"t" * 40, b"me", b"me@x", b"2024-01-01", b"msg\n"]) + b"\0\n"
    stream = [header, b"\n", b"diff --git a/x b/x\n", b"+" + b"y" * 100 + b"\n"]
    (commit,) = parse_log(iter(stream), max_diff_bytes=50)
    assert commit.patch is None and commit.info.message == "msg\n"
