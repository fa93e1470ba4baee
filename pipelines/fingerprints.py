"""What a stage's output depends on besides its config: the inputs it reads and the code that ran.

Design notes: docs/design/pipelines.md, "pipelines/fingerprints.py".
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import subprocess
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from codemix.sources import SourceConfig

# The packages whose code shapes a build's output (the CLI and consumers do not).
BUILD_PACKAGES = ("codemix", "codemix.filters", "codemix.dedup", "codemix.mixtures", "codemix.pipelines")
VCS_DIRS = frozenset({".git", ".hg", ".svn"})


def _digest(items) -> str:
    return hashlib.sha256(json.dumps(items, sort_keys=True, default=str).encode()).hexdigest()


@functools.cache
def code_fingerprint(packages: tuple[str, ...] = BUILD_PACKAGES) -> str:
    """sha256 over the relative path and bytes of every ``.py`` file of ``packages``, as imported."""
    import importlib

    digest = hashlib.sha256()
    for name in packages:
        root = Path(importlib.import_module(name).__file__).parent
        digest.update(tree_digest(root).encode())
    return digest.hexdigest()


def tree_digest(root: Path) -> str:
    """sha256 of the ``.py`` sources under ``root``: relative paths and contents, in sorted order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def local_fingerprint(path: str, skip_dir: Callable[[str], bool] = lambda relative: False) -> dict:
    """Path, size and mtime of a file, or of every file under a directory (but the directories
    ``skip_dir(relative path)`` says are never read); names the error otherwise. ``files`` is how many
    files the walk met: the records a directory reader will count."""
    try:
        info = os.stat(path)
    except OSError as error:
        return {"path": path, "error": f"{type(error).__name__}: {error.strerror}"}
    if not os.path.isdir(path):
        return {"path": path, "size": info.st_size, "mtime_ns": info.st_mtime_ns}
    return {"path": path, **listing_digest(_walk(path, skip_dir))}


def _walk(path: str, skip_dir: Callable[[str], bool]) -> Iterator[tuple]:
    """(relative path, size, mtime) of every file under ``path``, or (relative path, error), as walked."""
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = sorted(d for d in dirnames if d not in VCS_DIRS
                             and not skip_dir(os.path.relpath(os.path.join(dirpath, d), path).replace(os.sep, "/")))
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            try:
                stat = os.lstat(full)
            except OSError as error:
                yield os.path.relpath(full, path), type(error).__name__
                continue
            yield os.path.relpath(full, path), stat.st_size, stat.st_mtime_ns


def listing_digest(entries: Iterable[tuple]) -> dict:
    """``{"files": n, "tree": digest}`` of a listing, hashed one entry at a time: the sum of each
    entry's sha256 modulo 2^256 (a multiset hash), so neither the listing nor its order is held in
    memory, and a store that lists in another order gives the same digest."""
    acc, files = 0, 0
    for entry in entries:
        acc = (acc + int.from_bytes(hashlib.sha256(json.dumps(entry, default=str).encode()).digest(), "big")) % _MOD
        files += 1
    return {"files": files, "tree": f"{acc:064x}"}


_MOD = 1 << 256


def git_fingerprint(location: str, ref: str) -> dict:
    """The commit ``ref`` resolves to in ``location`` (local repository or clone URL)."""
    from codemix.pipelines.readers.git import is_remote

    if is_remote(location):
        command = ["git", "ls-remote", "--", location, ref]
    else:
        command = ["git", "-C", location, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"]
    try:
        result = subprocess.run(command, capture_output=True, timeout=60, check=False,
                                env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
    except (OSError, subprocess.TimeoutExpired) as error:
        return {"location": location, "ref": ref, "error": type(error).__name__}
    resolved = result.stdout.decode(errors="replace").split()
    if result.returncode != 0 or not resolved:
        # ls-remote finds branches and tags only; a commit id given as the ref names itself.
        return {"location": location, "ref": ref, "unresolved": result.returncode}
    return {"location": location, "ref": ref, "commit": resolved[0]}


def remote_fingerprint(location: str) -> dict:
    """The version the object store reports for ``location``; the error when it cannot be asked."""
    try:
        if location.startswith(("http://", "https://")):
            return {"location": location, **_http_version(location)}
        if location.startswith("gs://"):
            return {"location": location, **_gcs_version(location)}
        from apache_beam.io.filesystems import FileSystems

        metadata = FileSystems.match([location])[0].metadata_list
        return {"location": location, "objects": sorted((m.path, m.size_in_bytes, m.last_updated_in_seconds)
                                                         for m in metadata)}
    except Exception as error:  # noqa: BLE001 - an unreachable input is fingerprinted by its error
        return {"location": location, "error": f"{type(error).__name__}: {error}"[:300]}


def _http_version(url: str) -> dict:
    import urllib.request

    request = urllib.request.Request(url, method="HEAD")
    with urllib.request.urlopen(request, timeout=30) as response:
        headers = response.headers
    if headers.get("ETag"):
        return {"etag": headers["ETag"]}
    return {"last_modified": headers.get("Last-Modified"), "length": headers.get("Content-Length")}


def _gcs_version(location: str) -> dict:
    from google.cloud import storage  # the GCS client Beam's gcp extra installs

    from codemix.pipelines.gcp import CONNECT_SECONDS, READ_SECONDS

    bucket, _, name = location[len("gs://"):].partition("/")
    # bounded: the client's default is 60 s per try, retried for 120 s
    blob = storage.Client().bucket(bucket).get_blob(name, timeout=(CONNECT_SECONDS, READ_SECONDS), retry=None)
    return {"generation": blob.generation if blob is not None else None}


def remote_directory_fingerprint(location: str) -> dict:
    """Every object under a directory source's prefix (gs://, s3://), listed by Beam's FileSystems with
    the build's filesystem options: path, size and time, so an added, removed or rewritten file
    changes it; ``files`` is what the crawl will count."""

    try:
        digest = listing_digest((m.path, m.size_in_bytes, m.last_updated_in_seconds) for m in _listed(location))
    except Exception as error:  # noqa: BLE001 - an unreachable input is fingerprinted by its error
        return {"location": location, "error": f"{type(error).__name__}: {error}"[:300]}
    return {"location": location, "objects": digest["tree"], "files": digest["files"]}


def _listed(location: str) -> Iterator:
    """Every object under ``location``'s prefix as the store lists it, page by page (an object store's
    ``_list`` is a generator over its listing pages; a filesystem with folders goes through ``match``)."""
    from apache_beam.io.filesystems import FileSystems

    prefix = f"{location.rstrip('/')}/"
    filesystem = FileSystems.get_filesystem(prefix)
    if filesystem.has_dirs():
        return iter(FileSystems.match([f"{prefix}**"])[0].metadata_list)
    return filesystem._list(prefix)  # Beam's one streaming listing; match() collects it whole


def location_fingerprint(source: SourceConfig, location: str) -> dict:
    """One location of ``source``, by the kind of thing it is."""
    from codemix.pipelines.readers.common import ReadTally
    from codemix.pipelines.readers.crawl_list import entry_reader, list_entries
    from codemix.pipelines.readers.git import is_remote, read_git

    if source.type == "git":
        return git_fingerprint(location, source.ref)
    if source.type == "crawl_list":
        listed = local_fingerprint(location) if "://" not in location else remote_fingerprint(location)
        try:
            entries = [e for e in list_entries(source, location, ReadTally()) if isinstance(e, str)]
        except Exception as error:  # noqa: BLE001 - the crawl quarantines it; the key names it
            return {**listed, "entries_error": type(error).__name__}
        kinds = [(entry, "git" if entry_reader(entry) is read_git else "file") for entry in entries]
        return {**listed, "entries": [git_fingerprint(e, source.ref) if kind == "git" else
                                      (remote_fingerprint(e) if is_remote(e) else local_fingerprint(e))
                                      for e, kind in kinds]}
    if "://" in location:
        return remote_directory_fingerprint(location) if source.type == "directory" else remote_fingerprint(location)
    if source.type == "directory":
        from codemix.pipelines.readers.directory import directory_excluded

        return local_fingerprint(location, lambda relative: directory_excluded(source, relative))
    return local_fingerprint(location)


def source_fingerprints(sources: list[SourceConfig]) -> dict[str, list[dict]]:
    """Every configured location's fingerprint, per source name."""
    return {source.name: [location_fingerprint(source, location) for location in source.paths]
            for source in sources}


def paths_fingerprint(paths: list[str]) -> list[dict]:
    """Files a stage reads besides its input documents (benchmarks, earlier dedup indexes, a tokenizer)."""
    return [remote_fingerprint(p) if "://" in p else local_fingerprint(p) for p in paths]


def expected_records(fingerprints: dict[str, list[dict]]) -> int | None:
    """Records the crawl will meet, when every location is a local directory (a file is a record);
    None when some location's count is not known before reading it."""
    counts = [f.get("files") for prints in fingerprints.values() for f in prints]
    return sum(counts) if counts and all(isinstance(c, int) for c in counts) else None


def input_facts(spec) -> dict:
    """What the stages read besides the spec (a ``MixtureSpec``), fingerprinted: every source location,
    the benchmark files, earlier dedup indexes, and the code itself; the build keys its stages by them."""
    import codemix

    return {"code": code_fingerprint(), "version": codemix.__version__,
            "sources": source_fingerprints(spec.sources),
            "benchmarks": paths_fingerprint(spec.filters.decontamination.benchmarks
                                            + spec.filters.benchmark_instances.instances),
            "quality_model": paths_fingerprint([m for m in [spec.filters.quality.model] if m]),
            "previous_indexes": paths_fingerprint(spec.dedup.previous_indexes)}
