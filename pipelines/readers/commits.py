"""The commits of a git repository as documents, read from the object store (never a checkout).

Flow for one location (a local repository or a clone URL, as for the ``git`` reader)::

    rev-parse --verify BRANCH^{commit}          -> the commits to start from
    log -p --format=HEADER [--since --until -n]   -> per commit: sha, parents, tree, author, message, diff
    cat-file --batch (one process)                -> license files of each commit's tree (cached by sha)

One record per commit ``git log`` lists (merges included): a Document (message + diff, layout in
``filters.commits``) or a Dropped with the reason ``filters.commits`` gives, or ``diff_too_large``;
a diff that is not UTF-8 is quarantined. The diff is streamed line by line and stops being held
once it passes ``history.max_diff_bytes``. Unless the source declares a license, each commit
carries the license its own tree's LICENSE and metadata files state (``filters.licenses``).
"""

from __future__ import annotations

import contextlib
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Self

from codemix.filters.commits import CommitInfo, commit_text, diff_drop_reason, metadata_drop_reason, parse_patch
from codemix.filters.licenses import detect_license, is_license_evidence, offers_choice, repository_license
from codemix.filters.vendored import VendoredTree
from codemix.pipelines.readers.common import Outcome, ReadTally, drop, make_document
from codemix.pipelines.readers.git import (
    GIT_TIMEOUT_S,
    GitError,
    GitTimeout,
    Watchdog,
    _git_dir,
    _git_env,
    repo_name,
    repository_name,
    resolve_ref,
    timeout_message,
    vendored_trees_at,
)
from codemix.pipelines.readers.language import detect_language
from codemix.sources import HistoryConfig, SourceConfig

# NUL never occurs in git's diff output (a file holding one is "Binary files ... differ"), so a line
# that starts with it starts a commit; HEADER_FIELDS NULs end the header, whose message spans lines.
HEADER_FORMAT = "%x00%H%x00%P%x00%T%x00%an%x00%ae%x00%aI%x00%B%x00"
HEADER_NULS = 8
# Porcelain `git log` honours user diff settings; these pin what the document's diff looks like
# (the same as `git show --format= COMMIT` with git's defaults).
DIFF_OPTIONS = ("-p", "--no-color", "--no-ext-diff", "--no-textconv", "-M", "-U3", "--src-prefix=a/",
                "--dst-prefix=b/", "--no-relative", "--diff-algorithm=myers", "--indent-heuristic",
                "--no-show-signature", "--no-notes", "--no-mailmap", "--no-abbrev-commit", "-O/dev/null")
# Settings that would change the printed diff and have no command-line override.
CONFIG_OVERRIDES = ("-c", "core.quotePath=true", "-c", "diff.suppressBlankEmpty=false", "-c", "log.showRoot=true")


def commit_location(repo_location: str, sha: str) -> str:
    return f"{repo_location}@{sha}"


@dataclass(slots=True, kw_only=True)
class RawCommit:
    """One commit as read: its description, its diff bytes (None once over the cap) and tree."""

    info: CommitInfo
    tree: str
    date: str
    patch: bytearray | None = field(default_factory=bytearray)


def read_commits(source: SourceConfig, location: str, tally: ReadTally) -> Iterator[Outcome]:
    """One outcome per commit of ``source.history``'s branches in ``location``."""
    history = source.history or HistoryConfig()
    GIT_TIMEOUT_S.set(source.git_timeout_s)
    with _git_dir(location) as git_dir, _TreeReader(git_dir) as trees:
        starts = [resolve_ref(git_dir, ref) for ref in (history.branches or [source.ref])]
        name = repository_name(source, location, git_dir)
        vendored = vendored_trees_at(git_dir, starts[0], name)  # the repository's evidence at its newest commit
        for commit in log_commits(git_dir, starts, history):
            tally.count()
            yield commit_outcome(source, location, commit, trees, name=name, vendored=vendored)


def commit_outcome(source: SourceConfig, location: str, commit: RawCommit, trees: _TreeReader, *,
                   name: str = "", vendored: tuple[VendoredTree, ...] = ()) -> Outcome:
    history = source.history or HistoryConfig()
    where = commit_location(location, commit.info.sha)
    reason = metadata_drop_reason(commit.info, history)
    if reason is None and commit.patch is None:
        reason = "diff_too_large"
    if reason is not None:
        return drop(source, where, reason)
    try:
        patch = commit.patch.decode("utf-8")
    except UnicodeDecodeError:  # a diff can mix encodings (one per file): no one codec decodes it
        return drop(source, where, "not_utf8")
    files = parse_patch(patch)
    if (reason := diff_drop_reason(files, history, vendored)) is not None:
        return drop(source, where, reason)
    license_ = source.license or trees.license(commit.tree)
    described = [{"path": f.path, "old_path": f.old_path, "status": f.status, "binary": f.binary,
                  "language": detect_language(f.path, "\n".join(f.head))} for f in files]
    return make_document(source, where, commit_text(commit.info.message, patch), repo=name or repo_name(location),
                         license=license_, metadata={"commit": commit.info.sha, "parents": list(commit.info.parents),
                                                     "author": commit.info.author, "date": commit.date,
                                                     "files": described})


def log_args(starts: list[str], history: HistoryConfig) -> list[str]:
    """``git log``'s arguments: header format, diff options, date bounds, count, start commits."""
    args = ["log", f"--format={HEADER_FORMAT}", *DIFF_OPTIONS]
    args += [f"--since={history.since}"] if history.since else []
    args += [f"--until={history.until}"] if history.until else []
    args += [f"--max-count={history.max_commits}"] if history.max_commits else []
    return [*args, "--end-of-options", *starts]


def log_commits(git_dir: str, starts: list[str], history: HistoryConfig) -> Iterator[RawCommit]:
    """Every commit ``git log`` lists, newest first, each with its diff (streamed, capped)."""
    command = ["git", *CONFIG_OVERRIDES, "--git-dir", git_dir, *log_args(starts, history)]
    with tempfile.TemporaryFile() as errors, subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=errors, env=_git_env(), start_new_session=True) as process:
        watchdog = Watchdog(process, GIT_TIMEOUT_S.get())  # a stall between two commits ends the read
        try:
            for commit in parse_log(process.stdout, history.max_diff_bytes):
                watchdog.stop()
                yield commit
                watchdog.pet()
        finally:
            watchdog.stop()
        if watchdog.fired:
            raise GitTimeout(timeout_message("log (listing commits)", git_dir, GIT_TIMEOUT_S.get()))
        errors.seek(0)
        stderr = errors.read().decode(errors="replace").strip().splitlines()
        if process.wait() != 0:
            raise GitError(f"git log failed: {stderr[0] if stderr else f'exit status {process.returncode}'}")


def parse_log(stream: IO[bytes], max_diff_bytes: int) -> Iterator[RawCommit]:
    """Commits from ``git log --format=HEADER_FORMAT -p`` output; a diff past ``max_diff_bytes``
    is counted, not held (its ``patch`` is None)."""
    current: RawCommit | None = None
    header: bytearray | None = None
    for line in stream:
        if header is not None or line.startswith(b"\0"):
            header = (header or bytearray()) + line
            if header.count(b"\0") >= HEADER_NULS:
                if current is not None:
                    yield current
                current, header = _parse_header(bytes(header)), None
        elif current is not None and current.patch is not None and (current.patch or line.startswith(b"diff --git ")):
            current.patch += line
            if len(current.patch) > max_diff_bytes:
                current.patch = None
    if header is not None:
        raise GitError("git log output ends inside a commit header")
    if current is not None:
        yield current


def _parse_header(header: bytes) -> RawCommit:
    fields = header.split(b"\0")  # '', sha, parents, tree, name, email, date, message, '\n'
    sha, parents, tree, name, email, date, message = (f.decode("utf-8", "backslashreplace") for f in fields[1:8])
    info = CommitInfo(sha=sha, parents=tuple(parents.split()), author=name, author_email=email, message=message)
    return RawCommit(info=info, tree=tree, date=date)


class _TreeReader:
    """One ``git cat-file --batch`` process: tree and blob objects by sha, and the license a tree's
    LICENSE and metadata files state, cached by object sha (they seldom change between commits)."""

    def __init__(self, git_dir: str):
        self._git_dir = git_dir
        self._process = subprocess.Popen(["git", "--git-dir", git_dir, "cat-file", "--batch"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_git_env(),
                                         start_new_session=True)  # so a watchdog stops a lazy fetch it starts
        self._trees: dict[str, list[tuple[str, str, str]]] = {}
        self._detected: dict[tuple[str, str], tuple[str | None, bool]] = {}
        self._licenses: dict[tuple, str] = {}

    def license(self, tree: str) -> str:
        """The repository license stated by ``tree``'s root and first-level license evidence; "" if none."""
        evidence = tuple(sorted(self._evidence(tree)))
        if evidence not in self._licenses:
            read = [(path, *self._detect(path, sha)) for path, sha in evidence]
            self._licenses[evidence] = repository_license(
                ((path, detected) for path, detected, _ in read), {path for path, _, choice in read if choice})
        return self._licenses[evidence]

    def _evidence(self, tree: str) -> Iterator[tuple[str, str]]:
        for mode, name, sha in self._entries(tree):
            if mode == "40000":
                yield from ((f"{name}/{sub}", s) for m, sub, s in self._entries(sha)
                            if m != "40000" and is_license_evidence(f"{name}/{sub}"))
            elif is_license_evidence(name) and mode in ("100644", "100755"):
                yield name, sha

    def _detect(self, path: str, sha: str) -> tuple[str | None, bool]:
        """What one evidence file states, and whether it makes the licenses beside it alternatives."""
        if (path, sha) not in self._detected:
            kind, data = self.read(sha)
            text = data.decode("utf-8", "replace") if kind == "blob" else ""
            self._detected[(path, sha)] = detect_license(path, text), offers_choice(path, text)
        return self._detected[(path, sha)]

    def _entries(self, tree: str) -> list[tuple[str, str, str]]:
        """(mode, name, sha) of a tree object's entries: ``<mode> <name>\\0<20-byte sha>`` each."""
        if tree not in self._trees:
            kind, data = self.read(tree)
            entries, i = [], 0
            while kind == "tree" and i < len(data):
                space, nul = data.index(b" ", i), data.index(b"\0", i)
                entries.append((data[i:space].decode(), data[space + 1:nul].decode("utf-8", "backslashreplace"),
                                data[nul + 1:nul + 21].hex()))
                i = nul + 21
            self._trees[tree] = entries
        return self._trees[tree]

    def read(self, sha: str) -> tuple[str, bytes]:
        """(type, bytes) of one object, or ``GitTimeout`` when git gives no answer within ``GIT_TIMEOUT_S``
        (a partial clone fetching a missing tree or blob from a remote that never answers)."""
        watchdog = Watchdog(self._process, GIT_TIMEOUT_S.get())
        try:
            return self._read(sha)
        except (GitError, OSError, ValueError) as error:
            if watchdog.fired:
                raise GitTimeout(timeout_message(f"cat-file (reading object {sha[:12]})", self._git_dir,
                                                 GIT_TIMEOUT_S.get())) from error
            raise
        finally:
            watchdog.stop()

    def _read(self, sha: str) -> tuple[str, bytes]:
        """Answer: ``<sha> <type> <size>\\n`` + bytes + ``\\n``."""
        stdin, stdout = self._process.stdin, self._process.stdout
        stdin.write(sha.encode() + b"\n")
        stdin.flush()
        header = stdout.readline().split()
        if len(header) != 3:
            raise GitError(f"git cat-file {sha}: {b' '.join(header).decode(errors='replace') or 'no answer'}")
        size = int(header[2])
        data = stdout.read(size)
        if len(data) != size or stdout.read(1) != b"\n":
            raise GitError(f"git cat-file {sha}: short read ({len(data)} of {size} bytes)")
        return header[1].decode(), data

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        with contextlib.suppress(OSError):
            self._process.stdin.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process.stdout.close()
