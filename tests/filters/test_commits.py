"""Reading git's unified diff back, checked against git's own ``--numstat``/``--name-status`` of the
same commits, and the commit-level drop reasons on real and GitHub-default messages."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from codemix.filters.commits import (
    CommitInfo,
    FileDiff,
    commit_text,
    diff_drop_reason,
    metadata_drop_reason,
    parse_patch,
    patch_digest,
)
from codemix.sources import HistoryConfig

STATUS = {"A": "added", "D": "deleted", "M": "modified", "R": "renamed", "C": "copied"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(repo), *args], capture_output=True, check=True).stdout.decode()


def numstat(repo: Path, sha: str) -> list[tuple[str, int | None, str]]:
    """(path, lines added or None for binary, status letter) per changed file, from git itself."""
    stats = [line.split("\t") for line in git(repo, "show", "-M", "--format=", "--numstat", sha).splitlines()]
    statuses = [line.split("\t") for line in git(repo, "show", "-M", "--format=", "--name-status", sha).splitlines()]
    return [(status[-1], None if added == "-" else int(added), status[0][0])
            for (added, _, _), status in zip(stats, statuses, strict=True)]


def test_parsed_files_match_git_numstat_on_every_real_commit(itsdangerous_history: Path) -> None:
    shas = git(itsdangerous_history, "rev-list", "--no-merges", "main").split()
    assert len(shas) == 20
    for sha in shas:
        files = parse_patch(git(itsdangerous_history, "show", "-M", "--format=", "--no-color", sha))
        parsed = [(f.path, None if f.binary else len(f.added), f.status) for f in files]
        assert parsed == [(path, added, STATUS[s]) for path, added, s in numstat(itsdangerous_history, sha)], sha


def test_quoted_paths_and_renames_read_as_git_names_them(tmp_path: Path) -> None:
    work = tmp_path / "work"
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    user = ["-c", "user.name=a", "-c", "user.email=a@example.org"]
    (work / "café.py").write_text("".join(f"line = {i}\n" for i in range(20)))
    subprocess.run(["git", "-C", str(work), "add", "."], check=True)
    subprocess.run(["git", "-C", str(work), *user, "commit", "-qm", "add"], check=True)
    subprocess.run(["git", "-C", str(work), "mv", "café.py", "tab\there.py"], check=True)
    subprocess.run(["git", "-C", str(work), *user, "commit", "-qm", "rename"], check=True)
    repo = work / ".git"
    (diff,) = parse_patch(git(repo, "show", "-M", "--format=", "HEAD"))
    names = git(repo, "show", "-M", "--format=", "--name-status", "-z", "HEAD").split("\0")
    assert (diff.old_path, diff.path, diff.status) == (names[1], names[2], "renamed") == ("café.py", "tab\there.py",
                                                                                           "renamed")


def commit(message: str, author: str = "Jane Doe", email: str = "jane@example.org", parents: int = 1) -> CommitInfo:
    return CommitInfo(sha="a" * 40, parents=tuple("b" * 40 for _ in range(parents)), author=author,
                      author_email=email, message=message)


@pytest.mark.parametrize(("info", "reason"), [
    (commit("Merge branch 'stable'", parents=2), "merge_commit"),
    (commit("Bump the github-actions group with 3 updates", author="dependabot[bot]"), "bot_author"),
    (commit("[pre-commit.ci] pre-commit autoupdate", author="pre-commit-ci[bot]"), "bot_author"),
    (commit("update deps", author="renovate", email="bot@renovateapp.com"), "bot_author"),
    (commit("sync", email="49699333+dependabot[bot]@users.noreply.github.com"), "bot_author"),
    (commit("Bump the python-requirements group in /requirements with 4 updates (#391)"), "bot_message"),
    (commit("Bump requests from 2.31.0 to 2.32.0"), "bot_message"),
    (commit("Merge pull request #12 from jane/fix"), "bot_message"),
    (commit("Update README.md"), "uninformative_message"),
    (commit("Add files via upload"), "uninformative_message"),
    (commit("wip"), "uninformative_message"),
    (commit("fix."), "uninformative_message"),
    (commit("..."), "uninformative_message"),
    (commit(""), "uninformative_message"),
    (commit("remove slsa provenance\n\nPyPI and trusted publishing has built-in attestation support now."), None),
    (commit("Fix typo"), None),
    (commit("Update docs for the timed serializer"), None),
])
def test_metadata_drop_reasons(info: CommitInfo, reason: str | None) -> None:
    assert metadata_drop_reason(info, HistoryConfig()) == reason


@pytest.mark.parametrize(("files", "reason"), [
    ([], "empty_diff"),
    ([FileDiff(path="logo.png", old_path="logo.png", binary=True)], "binary_only"),
    ([FileDiff(path="package-lock.json", old_path="package-lock.json", added=["{"])], "generated_only"),
    ([FileDiff(path="web/node_modules/x/index.js", old_path="", added=["x"])], "generated_only"),
    ([FileDiff(path="requirements/dev.txt", old_path="", added=["#"],
               head=["#", "# This file is autogenerated by pip-compile with Python 3.13"])], "generated_only"),
    ([FileDiff(path="uv.lock", old_path="uv.lock", added=["x"]), FileDiff(path="a.py", old_path="a.py", added=["x"])],
     None),
    ([FileDiff(path="logo.png", old_path="", binary=True), FileDiff(path="a.py", old_path="", added=["x"])], None),
])
def test_diff_drop_reasons(files: list[FileDiff], reason: str | None) -> None:
    assert diff_drop_reason(files, HistoryConfig()) == reason


def git_patch_id(repo: Path, sha: str) -> str:
    shown = subprocess.run(["git", "--git-dir", str(repo), "show", "--format=commit %H", sha],
                           capture_output=True, check=True)
    return subprocess.run(["git", "patch-id", "--stable"], input=shown.stdout, capture_output=True,
                          check=True).stdout.decode().split(" ")[0]  # "" for a commit that changes nothing


def test_patch_digest_groups_commits_as_git_patch_id_does(itsdangerous_history: Path, tmp_path: Path) -> None:
    """Over every real commit and a cherry-pick of one onto an older commit: same digest iff same git patch-id."""
    work = tmp_path / "work"
    subprocess.run(["git", "clone", "-q", str(itsdangerous_history), str(work)], check=True)
    repo = work / ".git"
    picked = git(repo, "log", "--format=%H", "--grep=^remove slsa provenance$", "main").split()[0]
    subprocess.run(["git", "-C", str(work), "checkout", "-q", "-b", "old", "main~4"], check=True)
    subprocess.run(["git", "-C", str(work), "-c", "user.name=a", "-c", "user.email=a@example.org", "cherry-pick", "-x",
                    picked], check=True, capture_output=True)
    shas = [*git(repo, "rev-list", "--no-merges", "main").split(), git(repo, "rev-parse", "old").strip()]
    texts = {sha: commit_text(git(repo, "log", "-1", "--format=%B", sha), git(repo, "show", "--format=", sha))
             for sha in shas}
    ours = {sha: patch_digest(text) for sha, text in texts.items()}
    theirs = {sha: git_patch_id(repo, sha) for sha in shas}
    shas = [sha for sha in shas if theirs[sha]]
    assert len(shas) == 20
    assert texts[picked] != texts[shas[-1]] and ours[picked] == ours[shas[-1]]  # guard: -x changed the message
    pairs = [(a, b) for a in shas for b in shas if a < b]
    assert [(a, b) for a, b in pairs if (ours[a] == ours[b]) != (theirs[a] == theirs[b])] == []
