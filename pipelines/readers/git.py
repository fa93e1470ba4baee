"""Git repositories read straight from the object store: one commit's tree, never a checkout.

Design notes: docs/design/pipelines.md, "pipelines/readers/git.py".
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import re
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Self

from codemix.filters.benchmarks import Instance, instance_time, repository_instances
from codemix.filters.licenses import detect_license, is_license_file
from codemix.filters.vendored import (
    VendoredTree,
    file_fact,
    may_say_vendored,
    placement_fact,
    vendored_trees,
    vendoring_facts,
)
from codemix.pipelines.readers.common import (
    Outcome,
    ReadTally,
    base_name,
    content_outcome,
    drop,
    folder_repository_name,
    path_selected,
    quarantine,
    tree_location,
)
from codemix.pipelines.readers.encodings import EDITORCONFIG_MAX_BYTES, TreeEditorConfigs, editorconfig_folder
from codemix.pipelines.readers.language import SourceCensus
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
    size: int | None  # None for gitlinks, which have no blob, and for missing blobs
    path: str
    missing: bool = False  # ls-tree -l printed BAD: the object is not in this copy


class GitTimeout(GitError):
    """A git call gave no answer within the source's ``git_timeout_s``; the message is one paragraph
    naming the call, the repository, the likely fault and the fix."""


# Every git call's limit, in seconds without an answer (a listing or a blob read: without the next
# record). Set per read from ``SourceConfig.git_timeout_s``; a context variable, so each worker thread
# reading a location has its own.
GIT_TIMEOUT_S: contextvars.ContextVar[float] = contextvars.ContextVar("git_timeout_s", default=300.0)


def timeout_message(what: str, git_dir: str, seconds: float) -> str:
    """One paragraph: which call hung, in which repository, why that happens and what to do."""
    remote = ""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        remote = subprocess.run(["git", "--git-dir", git_dir, "config", "--get", "remote.origin.url"], timeout=10,
                                capture_output=True, env=_git_env(), check=False).stdout.decode().strip()
    fault = (f"its remote {remote} did not answer (a partial clone fetching a missing object from its promisor "
             f"remote, or a clone over the network)" if remote else "git stalled on this copy (a slow or hung disk, "
             "or an object fetched from elsewhere)")
    return (f"git {what} in {git_dir} gave no answer within {seconds:g} s: {fault}; the repository is left unread. "
            f"Fix: make the remote reachable, raise the source's git_timeout_s, or set fetch_missing_blobs: false "
            f"so missing blobs are dropped as blob_missing instead of fetched.")


def kill_group(process: subprocess.Popen) -> None:
    """Kill ``process`` and what it started (git's lazy fetch and remote helpers inherit its stdout, so a
    killed git alone would leave the pipe open): git calls run in their own session for this."""
    with contextlib.suppress(OSError):
        os.killpg(process.pid, signal.SIGKILL)


class Watchdog:
    """Kills ``process`` when ``pet()`` is not called for ``seconds``; ``fired`` says it did."""

    def __init__(self, process: subprocess.Popen, seconds: float):
        self._process, self._seconds, self.fired = process, seconds, False
        self._timer: threading.Timer | None = None
        self.pet()

    def _fire(self) -> None:
        self.fired = True
        kill_group(self._process)

    def pet(self) -> None:
        self.stop()
        self._timer = threading.Timer(self._seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()


class BlobMissing(GitError):
    """cat-file answered ``<sha> missing``: the copy lacks the blob."""


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
    GIT_TIMEOUT_S.set(source.git_timeout_s)
    with _git_dir(location) as git_dir:
        commit = resolve_ref(git_dir, source.ref, offline=not source.fetch_missing_blobs)
        name = repository_name(source, location, git_dir)
        if source.snapshot == "before_benchmark":
            commit = before_benchmark(git_dir, commit, repository_instances(tuple(source.snapshot_instances), name))
        with _objects(git_dir, view=not source.fetch_missing_blobs) as objects, _BlobReader(objects) as blobs:
            configs = TreeEditorConfigs(lambda: tree_editorconfigs(objects, commit, blobs))
            census = tree_census(objects, commit)
            for entry in iter_tree(objects, commit):
                mine = tally.mine(tree_location(location, commit, entry.path))
                if entry.mode == GITLINK_MODE and entry.path in source.submodules:
                    yield from _submodule(source, location, git_dir, commit, entry, name, tally, mine=mine)
                    continue
                tally.count()
                if not mine:
                    tally.elsewhere += 1  # another part of the location reads its blob
                    continue
                yield _entry_outcome(source, location, commit, entry, blobs, name, configs=configs, census=census)



def tree_editorconfigs(git_dir: str, commit: str, blobs: _BlobReader) -> dict[str, bytes]:
    """``{folder: bytes}`` of every ``.editorconfig`` blob in ``commit``'s tree (a second listing,
    made only when a file that is not UTF-8 asks for its charset)."""
    found = {}
    for entry in iter_tree(git_dir, commit):
        folder = editorconfig_folder(entry.path)
        if folder is not None and entry.type == "blob" and not entry.missing \
                and (entry.size or 0) <= EDITORCONFIG_MAX_BYTES:
            with contextlib.suppress(GitError, OSError):
                found[folder] = blobs.read(entry.sha)
    return found


def _submodule(source: SourceConfig, location: str, git_dir: str, commit: str, gitlink: TreeEntry, name: str,
               tally: ReadTally, *, mine: bool) -> Iterator[Outcome]:
    """A submodule the source names, read as files of the repository under its path: each entry of
    the recorded commit's tree counts as a record (every part counts them; the part the gitlink falls
    to reads them). Its documents' locations name the submodule's own repository and commit."""
    try:
        sub_location = submodule_location(git_dir, location, commit, gitlink.path)
        sub_dir = local_git_dir(sub_location)
        resolve_ref(sub_dir, gitlink.sha)
    except GitError as error:  # the submodule alone is unreadable: one record, quarantined with why
        tally.count()
        if mine:
            yield quarantine(source, tree_location(location, commit, gitlink.path), error)
        else:
            tally.elsewhere += 1
        return
    with _objects(sub_dir, view=not source.fetch_missing_blobs) as objects, _BlobReader(objects) as blobs:
        configs = TreeEditorConfigs(lambda: tree_editorconfigs(objects, gitlink.sha, blobs))
        census = tree_census(objects, gitlink.sha)
        for entry in iter_tree(objects, gitlink.sha):
            tally.count()
            if not mine:
                tally.elsewhere += 1
                continue
            yield _entry_outcome(source, sub_location, gitlink.sha, entry, blobs, name, prefix=f"{gitlink.path}/",
                                 configs=configs, census=census)


def submodule_location(git_dir: str, location: str, commit: str, path: str) -> str:
    """Where the submodule at ``path`` is on this machine: the clone's ``modules/NAME`` (an initialised
    submodule), else its ``.gitmodules`` URL when that is a local path (relative to ``location``)."""
    name, url = _gitmodules_entry(git_dir, commit, path)
    modules = os.path.join(git_dir, "modules", name)
    if os.path.isdir(modules):
        return modules
    if url and not is_remote(url):
        return os.path.normpath(os.path.join(location, url))
    raise GitError(f"submodule {path!r} is not in this clone (no modules/{name}) and its URL {url!r} is not a "
                   f"local path; fix: clone with --recurse-submodules, or name its repository as a source path")


def _gitmodules_entry(git_dir: str, commit: str, path: str) -> tuple[str, str]:
    """(name, url) of the ``.gitmodules`` section whose ``path`` is ``path``, at ``commit``."""
    try:
        listing = _git(git_dir, "config", "--blob", f"{commit}:.gitmodules", "--get-regexp",
                       r"^submodule\..*\.(path|url)$").decode()
    except GitError as error:
        raise GitError(f"submodule {path!r}: no readable .gitmodules at {commit[:12]} ({error})") from error
    values: dict[tuple[str, str], str] = {}
    for line in listing.splitlines():
        key, _, value = line.partition(" ")
        section, _, field_name = key.removeprefix("submodule.").rpartition(".")
        values[section, field_name] = value
    for (section, field_name), value in values.items():
        if field_name == "path" and value == path:
            return section, values.get((section, "url"), "")
    raise GitError(f"submodule {path!r} has no section in .gitmodules at {commit[:12]}")


def resolve_ref(git_dir: str, ref: str, *, offline: bool = True) -> str:
    """The commit ``ref`` names; a ref that names none is an error that says which ref it was and
    what the repository holds. ``offline`` forbids every transport, so a partial clone that lacks
    the commit fails here instead of fetching it."""
    try:
        return _git(git_dir, *(OFFLINE if offline else ()), "rev-parse", "--verify", "--end-of-options",
                    f"{ref}^{{commit}}").decode().strip()
    except GitError as error:
        raise GitError(f"ref {ref!r} names no commit in this repository ({error}); it holds "
                       f"{describe_refs(git_dir)}; fix: set the source's ref to an existing branch, tag or "
                       f"commit (or fetch the ref into the clone)") from error


def before_benchmark(git_dir: str, commit: str, instances: list[Instance]) -> str:
    """The last commit of ``commit``'s history before the first of ``instances`` was opened, or,
    without dates, their earliest base commit: its tree holds no fix of any of them. ``commit``
    itself when the repository has no instance."""
    dates = sorted(instance_time(i) for i in instances if i.created_at)
    if dates:
        found = _git(git_dir, "rev-list", "-1", f"--before={dates[0]}", commit, "--").decode().strip()
        if not found:
            raise GitError(f"no commit before {dates[0]}, when the first benchmark instance was opened")
        return found
    bases = [i.base_commit for i in instances if i.base_commit]
    if not bases:
        return commit
    stamps = []
    for base in bases:
        try:
            stamps.append((int(_git(git_dir, "log", "-1", "--format=%ct", f"{base}^{{commit}}", "--").decode()), base))
        except (GitError, ValueError):
            continue  # a base the copy does not hold: another fork's
    if not stamps:
        raise GitError(f"none of the benchmark instances' {len(bases)} base commits is in this repository; "
                       "fix: fetch the full history, or give created_at in the instance rows")
    return min(stamps)[1]


def tree_size(location: str, ref: str) -> int:
    """How many entries ``ref``'s tree holds in the local repository ``location``, listed offline and
    streamed; 0 when it cannot be listed (reading the repository then reports why)."""
    try:
        git_dir = local_git_dir(location)
        commit = resolve_ref(git_dir, ref)
        with _objects(git_dir, view=True) as objects:
            return sum(1 for _ in _ls_tree(objects, commit, "--name-only"))
    except GitError:
        return 0


def ref_problem(location: str, ref: str) -> str | None:
    """Why ``ref`` cannot be read in the local repository ``location`` (None when it can, and for
    URLs and folders that are not repositories, whose failures the crawl reports per location)."""
    if is_remote(location):
        return None
    try:
        git_dir = local_git_dir(location)
    except GitError:
        return None
    try:
        resolve_ref(git_dir, ref)
    except GitError:
        return f"{location} has no commit {ref!r}; it holds {describe_refs(git_dir)}"
    return None


def describe_refs(git_dir: str, limit: int = 8) -> str:
    """``branches main, dev; 3 tags; shallow`` - what a clone can be read at, for error messages."""
    try:
        names = _git(git_dir, "for-each-ref", "--format=%(refname)", "refs/heads", "refs/tags").decode().split()
    except GitError:
        return "no readable refs"
    branches = [n.removeprefix("refs/heads/") for n in names if n.startswith("refs/heads/")]
    tags = len(names) - len(branches)
    shown = ", ".join(branches[:limit]) + (f" and {len(branches) - limit} more" if len(branches) > limit else "")
    shallow = "; a shallow clone" if os.path.exists(os.path.join(git_dir, "shallow")) else ""
    return f"branches: {shown or 'none'}; {tags} tags{shallow}"


def repository_name(source: SourceConfig, location: str, git_dir: str) -> str:
    """A repository's identity, never just a folder's name: the name the spec gives its path; else
    ``owner/name`` of a clone URL or of a local repository's ``origin`` URL; else its folder's name,
    generic folders (``repo``, ``src``...) skipped and a mirror's ``owner+name`` read as ``owner/name``
    (``common.folder_repository_name``)."""
    if location in source.names:
        return source.names[location]
    if is_remote(location):
        return repo_name(location)
    try:
        origin = _git(git_dir, "config", "--get", "remote.origin.url").decode().strip()
    except GitError:  # no origin remote
        origin = ""
    if is_remote(origin):
        return repo_name(origin)
    def worktree(path: str) -> str:  # /srv/proj/.git names the repository proj
        return path.rstrip("/").removesuffix("/.git")

    return folder_repository_name(worktree(location), map(worktree, source.paths))


def vendored_trees_at(git_dir: str, commit: str, repo: str) -> tuple[VendoredTree, ...]:
    """The vendored trees ``commit``'s tree shows (``filters.vendored``), from the few files that can say
    so (declarations, license texts, READMEs, manifests); read for sources that never judge files
    (commits), which the filter stage otherwise does from the documents themselves."""
    facts = []
    with _objects(git_dir, view=True) as objects, _BlobReader(objects) as blobs:
        for entry in iter_tree(objects, commit):
            if entry.type == "blob" and (placed := placement_fact(entry.path)) is not None:
                facts.append(placed)  # where it sits among a vendor-named folder's subfolders: its path says
            if entry.type == "blob":
                facts.append(file_fact(entry.path))  # the folders a notice's sections may name
            if entry.type != "blob" or entry.missing or not may_say_vendored(entry.path) \
                    or (entry.size or 0) > 1_000_000:
                continue
            with contextlib.suppress(BlobMissing):
                text = blobs.read(entry.sha).decode("utf-8", "replace")
                license_file = is_license_file(entry.path)
                facts += vendoring_facts(entry.path, text, license_file=license_file,
                                         detected=detect_license(entry.path, text) if license_file else None)
    return vendored_trees(facts, repo)


def _entry_outcome(source: SourceConfig, location: str, commit: str, entry: TreeEntry,
                   blobs: _BlobReader, name: str, prefix: str = "", configs: TreeEditorConfigs | None = None,
                   census: Callable[[], SourceCensus] | None = None) -> Outcome:
    """Checks that need only the tree listing come first, so a dropped blob is never read. ``prefix``:
    where a followed submodule's entries sit in the repository; ``configs``: the tree's .editorconfig
    files (a submodule's own, read from its root); ``census``: the C and C++ sources of that tree."""
    where = tree_location(location, commit, entry.path)
    if not path_selected(source, prefix + entry.path):
        return drop(source, where, "path_not_included")
    if entry.mode == SYMLINK_MODE:
        return drop(source, where, "symlink")
    if entry.mode == GITLINK_MODE:
        return drop(source, where, "submodule")
    if entry.type != "blob":
        return drop(source, where, "not_regular_file")
    if entry.missing:
        return drop(source, where, "blob_missing")
    if entry.size is None:
        return drop(source, where, "not_regular_file")
    if entry.size > source.limits.max_file_bytes:
        return drop(source, where, "file_too_large")
    try:
        data = blobs.read(entry.sha)
    except BlobMissing:
        return drop(source, where, "blob_missing")
    except GitTimeout:
        raise  # the whole repository stops: every later read would wait as long
    except (GitError, OSError) as error:
        return quarantine(source, where, error)
    return content_outcome(source, where, data, repo=name, path=prefix + entry.path, metadata={"commit": commit},
                           editorconfig=None if configs is None else lambda: configs.charset(entry.path), census=census)


def iter_tree(git_dir: str, commit: str) -> Iterator[TreeEntry]:
    """The recursive tree of ``commit``, streamed (memory does not grow with the tree); -z keeps
    unusual paths verbatim, -l adds blob sizes (``BAD`` for a blob the copy lacks)."""
    yield from map(parse_tree_entry, _ls_tree(git_dir, commit, "-l"))


def tree_paths(git_dir: str, commit: str) -> Iterator[str]:
    """The paths of ``commit``'s recursive tree, streamed; no object beyond the trees is looked at."""
    for path in _ls_tree(git_dir, commit, "--name-only"):
        yield path.decode("utf-8", "backslashreplace")


def tree_census(git_dir: str, commit: str) -> Callable[[], SourceCensus]:
    """The C and C++ sources of ``commit``'s tree, listed once, on the first call."""
    return functools.cache(lambda: SourceCensus.of(tree_paths(git_dir, commit)))


def _ls_tree(git_dir: str, commit: str, *flags: str) -> Iterator[bytes]:
    command = ["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", *flags, "--full-tree", commit]
    with tempfile.TemporaryFile() as stderr:  # a file, not a pipe: a chatty git never blocks on it
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, env=_git_env(),
                              start_new_session=True) as process:
            watchdog = Watchdog(process, GIT_TIMEOUT_S.get())
            try:
                for record in _split_records(process.stdout, b"\0"):
                    watchdog.stop()  # the consumer's time is not git's
                    yield record
                    watchdog.pet()
            finally:
                watchdog.stop()
        if watchdog.fired:
            raise GitTimeout(timeout_message("ls-tree (listing the tree)", git_dir, GIT_TIMEOUT_S.get()))
        if process.returncode != 0:
            stderr.seek(0)
            raise GitError(f"git ls-tree failed: {_first_line(stderr.read(), process.returncode)}")


def list_tree(git_dir: str, commit: str) -> list[TreeEntry]:
    return list(iter_tree(git_dir, commit))


def parse_tree_entry(record: bytes) -> TreeEntry:
    """One ``ls-tree -l`` record: ``<mode> <type> <sha> <size>\\t<path>``."""
    meta, path = record.split(b"\t", 1)
    mode, kind, sha, size = meta.decode().split()
    # backslashreplace: a non-UTF-8 path still gives a stable, encodable location string.
    return TreeEntry(mode, kind, sha, int(size) if size.isdigit() else None,
                     path.decode("utf-8", "backslashreplace"), missing=size == "BAD")


def _split_records(stream: IO[bytes] | None, separator: bytes) -> Iterator[bytes]:
    rest = b""
    while stream is not None and (chunk := stream.read(1 << 16)):
        *records, rest = (rest + chunk).split(separator)
        yield from filter(None, records)
    if rest:
        yield rest


class _BlobReader:
    """One ``git cat-file --batch`` process serving blobs by sha, one request at a time."""

    def __init__(self, git_dir: str):
        self._git_dir = git_dir
        self._process = subprocess.Popen(
            ["git", "--git-dir", git_dir, "cat-file", "--batch"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_git_env(),
            start_new_session=True)

    def read(self, sha: str) -> bytes:
        """One blob, or ``GitTimeout`` when git gives no answer within ``GIT_TIMEOUT_S``."""
        watchdog = Watchdog(self._process, GIT_TIMEOUT_S.get())
        try:
            return self._read(sha)
        except (GitError, OSError, ValueError) as error:
            if watchdog.fired:
                raise GitTimeout(timeout_message(f"cat-file (reading blob {sha[:12]})", self._git_dir,
                                                 GIT_TIMEOUT_S.get())) from error
            raise
        finally:
            watchdog.stop()

    def _read(self, sha: str) -> bytes:
        """Answer format: ``<sha> blob <size>\\n`` + size bytes + ``\\n`` (or ``<sha> missing``)."""
        stdin, stdout = self._stdio()
        stdin.write(sha.encode() + b"\n")
        stdin.flush()
        header = stdout.readline().split()
        if header[1:] == [b"missing"]:
            raise BlobMissing(f"git cat-file {sha}: missing")
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
            kill_group(self._process)
            self._process.wait()
        self._process.stdout.close()


@contextlib.contextmanager
def _git_dir(location: str) -> Iterator[str]:
    """The git directory to read: a bare clone in a temp dir for URLs, else the local repo's."""
    if not is_remote(location):
        yield local_git_dir(location)
        return
    with tempfile.TemporaryDirectory(prefix="codemix-clone-") as tmp:
        target = os.path.join(tmp, "repo.git")
        _run(["git", "clone", "--bare", "--quiet", "--", location, target])
        yield target


@contextlib.contextmanager
def _objects(git_dir: str, *, view: bool) -> Iterator[str]:
    """The git dir to read trees and blobs from: ``git_dir`` itself, or (``view``) a temporary one
    that reaches ``git_dir``'s objects through ``objects/info/alternates`` and nothing else."""
    if not view:
        yield git_dir
        return
    objects = os.path.abspath(_git(git_dir, "rev-parse", "--git-path", "objects").decode().strip())
    with tempfile.TemporaryDirectory(prefix="codemix-objects-") as tmp:
        os.makedirs(os.path.join(tmp, "objects", "info"))
        os.makedirs(os.path.join(tmp, "refs"))
        with open(os.path.join(tmp, "HEAD"), "w") as head:
            head.write("ref: refs/heads/main\n")
        with open(os.path.join(tmp, "objects", "info", "alternates"), "w") as alternates:
            alternates.write(objects + "\n")
        yield tmp


def local_git_dir(path: str) -> str:
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


# Global options that refuse every transport, so a partial clone's lazy fetch fails at once
# without contacting its promisor remote.
OFFLINE = ("-c", "protocol.allow=never",
           *(arg for name in ("file", "git", "http", "https", "ssh", "ext") for arg in ("-c", f"protocol.{name}.allow=never")))


def _run(command: list[str], extra_env: dict[str, str] | None = None) -> bytes:
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_git_env(extra_env),
                          start_new_session=True) as process:
        try:
            stdout, stderr = process.communicate(timeout=GIT_TIMEOUT_S.get())
        except subprocess.TimeoutExpired as error:
            kill_group(process)
            process.communicate()
            where = command[command.index("--git-dir") + 1] if "--git-dir" in command else command[-1]
            raise GitTimeout(timeout_message(_subcommand(command), where, GIT_TIMEOUT_S.get())) from error
    result = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    if result.returncode != 0:
        raise GitError(f"git {_subcommand(command)} failed: {_first_line(result.stderr, result.returncode)}")
    return result.stdout


def _first_line(stderr: bytes, returncode: int) -> str:
    lines = stderr.decode(errors="replace").strip().splitlines()
    return lines[0] if lines else f"exit status {returncode}"


def _subcommand(command: list[str]) -> str:
    """``rev-parse`` from ``git --git-dir D rev-parse ...``: the verb, past the global options."""
    args = command[1:]
    while args and args[0] in ("-C", "--git-dir", "-c"):
        args = args[2:]
    return args[0] if args else "?"


def _git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The caller's environment minus variables that would point git at another repository,
    and with prompts off so a private URL fails instead of waiting for a password."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY")}
    env.update({"GIT_TERMINAL_PROMPT": "0", **(extra or {})})
    return env
