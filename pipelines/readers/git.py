"""Git repositories read straight from the object store: one commit's tree, never a checkout.

Reading objects instead of a working tree means no smudge filters or hooks run, symlinks and
submodules are seen as what they are (tree modes 120000 and 160000) rather than followed, and a
URL costs one bare clone into a temporary directory that is removed afterwards.

Flow for one location::

    rev-parse --verify REF^{commit}       -> commit (a bad ref quarantines the location)
    ls-tree -r -z -l --full-tree COMMIT   -> (mode, type, sha, size, path) per entry
    cat-file --batch  (one process)       -> blob bytes, only for entries that pass every check
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Self

from codemix.pipelines.readers.common import (
    Outcome,
    ReadTally,
    base_name,
    content_outcome,
    drop,
    path_selected,
    quarantine,
    tree_location,
)
from codemix.sources import SourceConfig

SYMLINK_MODE = "120000"
GITLINK_MODE = "160000"  # a submodule: the tree records a commit of another repository

# user@host:path is git's scp-like URL syntax; anything with :// is a URL too.
_SCP_URL = re.compile(r"^[\w.-]+@[\w.-]+:")


class GitError(RuntimeError):
    """A git command failed; the message carries the command and git's first stderr line."""


@dataclass(slots=True, frozen=True)
class TreeEntry:
    mode: str
    type: str
    sha: str
    size: int | None  # None for gitlinks, which have no blob
    path: str


def is_remote(location: str) -> bool:
    return "://" in location or bool(_SCP_URL.match(location))


def repo_name(location: str) -> str:
    """``owner/name`` for a clone URL (``https://host/psf/requests.git``, ``git@host:psf/requests``),
    so a fork and its upstream stay two repositories; the directory name for a local path."""
    if not is_remote(location):
        return base_name(location).removesuffix(".git")
    if "://" in location:
        path = location.split("://", 1)[1].split("/", 1)[-1]  # drop the host
    else:
        path = location.split(":", 1)[-1]  # scp-like git@host:owner/name
    parts = [p for p in path.split("/") if p]
    return "/".join(parts[-2:]).removesuffix(".git")


def read_git(source: SourceConfig, location: str, tally: ReadTally) -> Iterator[Outcome]:
    """Every entry of ``source.ref``'s tree in ``location`` (a local repo or a clone URL)."""
    with _git_dir(location) as git_dir:
        commit = resolve_ref(git_dir, source.ref)
        entries = list_tree(git_dir, commit)
        with _BlobReader(git_dir) as blobs:
            for entry in entries:
                tally.count()
                yield _entry_outcome(source, location, commit, entry, blobs)


def resolve_ref(git_dir: str, ref: str) -> str:
    """The commit ``ref`` names; a ref that names none is an error that says which ref it was."""
    try:
        return _git(git_dir, "rev-parse", "--verify", "--end-of-options", f"{ref}^{{commit}}").decode().strip()
    except GitError as error:
        raise GitError(f"ref {ref!r} names no commit in this repository ({error}); "
                       f"fix: set the source's ref to an existing branch, tag or commit") from error


def _entry_outcome(source: SourceConfig, location: str, commit: str, entry: TreeEntry,
                   blobs: _BlobReader) -> Outcome:
    """Checks that need only the tree listing come first, so a dropped blob is never read."""
    where = tree_location(location, commit, entry.path)
    if not path_selected(source, entry.path):
        return drop(source, where, "path_not_included")
    if entry.mode == SYMLINK_MODE:
        return drop(source, where, "symlink")
    if entry.mode == GITLINK_MODE:
        return drop(source, where, "submodule")
    if entry.type != "blob" or entry.size is None:
        return drop(source, where, "not_regular_file")
    if entry.size > source.limits.max_file_bytes:
        return drop(source, where, "file_too_large")
    try:
        data = blobs.read(entry.sha)
    except (GitError, OSError) as error:
        return quarantine(source, where, error)
    return content_outcome(source, where, data, repo=repo_name(location), path=entry.path,
                           metadata={"commit": commit})


def list_tree(git_dir: str, commit: str) -> list[TreeEntry]:
    """The recursive tree of ``commit``; -z keeps unusual paths verbatim, -l adds blob sizes."""
    listing = _git(git_dir, "ls-tree", "-r", "-z", "-l", "--full-tree", commit)
    entries = []
    for record in filter(None, listing.split(b"\0")):
        meta, path = record.split(b"\t", 1)
        mode, kind, sha, size = meta.decode().split()
        # backslashreplace: a non-UTF-8 path still gives a stable, encodable location string.
        entries.append(TreeEntry(mode, kind, sha, None if size == "-" else int(size),
                                 path.decode("utf-8", "backslashreplace")))
    return entries


class _BlobReader:
    """One ``git cat-file --batch`` process serving blobs by sha, one request at a time."""

    def __init__(self, git_dir: str):
        self._process = subprocess.Popen(
            ["git", "--git-dir", git_dir, "cat-file", "--batch"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_git_env())

    def read(self, sha: str) -> bytes:
        """Answer format: ``<sha> blob <size>\\n`` + size bytes + ``\\n`` (or ``<sha> missing``)."""
        stdin, stdout = self._stdio()
        stdin.write(sha.encode() + b"\n")
        stdin.flush()
        header = stdout.readline().split()
        if len(header) != 3 or header[1] != b"blob":
            raise GitError(f"git cat-file {sha}: {b' '.join(header).decode(errors='replace') or 'no answer'}")
        size = int(header[2])
        data = stdout.read(size)
        if len(data) != size or stdout.read(1) != b"\n":
            raise GitError(f"git cat-file {sha}: short read ({len(data)} of {size} bytes)")
        return data

    def _stdio(self) -> tuple[IO[bytes], IO[bytes]]:
        if self._process.stdin is None or self._process.stdout is None:
            raise GitError("git cat-file pipes are closed")
        return self._process.stdin, self._process.stdout

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        with contextlib.suppress(OSError):
            self._process.stdin.close()  # EOF on stdin is how --batch is told to exit
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process.stdout.close()


@contextlib.contextmanager
def _git_dir(location: str) -> Iterator[str]:
    """The git directory to read: a bare clone in a temp dir for URLs, else the local repo's."""
    if not is_remote(location):
        yield _local_git_dir(location)
        return
    with tempfile.TemporaryDirectory(prefix="codemix-clone-") as tmp:
        target = os.path.join(tmp, "repo.git")
        _run(["git", "clone", "--bare", "--quiet", "--", location, target])
        yield target


def _local_git_dir(path: str) -> str:
    """``path``'s own git dir (worktree or bare); never an enclosing repository's.

    GIT_CEILING_DIRECTORIES stops discovery at ``path``'s parent, so a plain folder inside some
    other checkout is reported as "not a git repository" instead of silently reading the outer one.
    """
    if not os.path.isdir(path):
        raise GitError(f"{path}: no such directory")
    ceiling = os.path.dirname(os.path.abspath(path))
    output = _run(["git", "-C", path, "rev-parse", "--absolute-git-dir"],
                  extra_env={"GIT_CEILING_DIRECTORIES": ceiling})
    return output.decode().strip()


def _git(git_dir: str, *args: str) -> bytes:
    return _run(["git", "--git-dir", git_dir, *args])


def _run(command: list[str], extra_env: dict[str, str] | None = None) -> bytes:
    result = subprocess.run(command, capture_output=True, env=_git_env(extra_env), check=False)
    if result.returncode != 0:
        stderr = result.stderr.decode(errors="replace").strip().splitlines()
        detail = stderr[0] if stderr else f"exit status {result.returncode}"
        raise GitError(f"git {_subcommand(command)} failed: {detail}")
    return result.stdout


def _subcommand(command: list[str]) -> str:
    """``rev-parse`` from ``git --git-dir D rev-parse ...``: the verb, past the global options."""
    args = command[1:]
    while args and args[0] in ("-C", "--git-dir"):
        args = args[2:]
    return args[0] if args else "?"


def _git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The caller's environment minus variables that would point git at another repository,
    and with prompts off so a private URL fails instead of waiting for a password."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY")}
    env.update({"GIT_TERMINAL_PROMPT": "0", **(extra or {})})
    return env
