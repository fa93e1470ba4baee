"""A directory tree, walked in sorted order so two crawls list records identically: a local one, or
every object under a gs:// or s3:// prefix.

Links are reported, never followed: a symlink (to a file or a directory) is dropped as
``symlink``, so a tree cannot pull in files from outside its root or loop. Version-control
metadata directories (``.git``, ``.hg``, ``.svn``) are not walked; they hold objects, not sources.
A directory that an ``exclude`` glob of the form ``DIR_GLOB/*`` covers whole is not walked either:
the spec said its files are not part of the source, so they are never read and never counted.
"""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import os
import stat
from collections.abc import Callable, Iterator

from apache_beam.io.filesystems import FileSystems

from codemix.pipelines.readers.common import (
    BEAM_SCHEMES,
    Outcome,
    ReadTally,
    base_name,
    content_outcome,
    drop,
    folder_repository_name,
    open_raw,
    path_selected,
    quarantine,
    read_bounded,
    text_name,
)
from codemix.pipelines.readers.encodings import (
    EDITORCONFIG_MAX_BYTES,
    TreeEditorConfigs,
    editorconfig_charset,
    editorconfig_folder,
)
from codemix.pipelines.readers.language import SourceCensus
from codemix.sources import SourceConfig

VCS_DIRS = frozenset({".git", ".hg", ".svn"})


def read_directory(source: SourceConfig, location: str, tally: ReadTally) -> Iterator[Outcome]:
    """Every file under ``location``; paths are relative to it with ``/`` separators."""
    if location.startswith(BEAM_SCHEMES):
        yield from read_stored_directory(source, location, tally)
        return
    if not os.path.isdir(location):
        raise NotADirectoryError(f"{location}: not a directory")
    root = location.rstrip("/") or "/"
    repo = source.names.get(location) or folder_repository_name(root, source.paths)
    census = functools.cache(lambda: SourceCensus.of(walked_names(source, root)))
    errors: list[OSError] = []
    for dirpath, dirnames, filenames in os.walk(root, onerror=errors.append, followlinks=False):
        # os.walk lists a symlink to a directory among dirnames; report it and don't descend.
        links = [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
        dirnames[:] = sorted(d for d in dirnames if d not in VCS_DIRS and d not in links
                             and not directory_excluded(source, _relative(root, dirpath, d)))
        for name in sorted(filenames + links):
            tally.count()
            yield _file_outcome(source, root, repo, _relative(root, dirpath, name), census)
        tally.count(len(errors))  # a directory that could not be listed is one record
        yield from (quarantine(source, text_name(error.filename or root), error) for error in errors)
        errors.clear()


def walked_names(source: SourceConfig, root: str) -> Iterator[str]:
    """The names of the files ``read_directory`` walks under ``root``, listed without reading them (made
    only when a ``.h`` file asks for the tree's census)."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = [d for d in dirnames if d not in VCS_DIRS
                       and not directory_excluded(source, _relative(root, dirpath, d))]
        yield from filenames


def read_stored_directory(source: SourceConfig, location: str, tally: ReadTally) -> Iterator[Outcome]:
    """A "directory" on an object store (gs://, s3://): every object under the prefix, listed by Beam's
    FileSystems (with the pipeline's filesystem options) in sorted order, as the local walk would give
    them. Object stores have no links or special files; the rest (VCS folders and excluded folders
    skipped, size cap, binary and selection checks) is the same as for a local tree."""
    root = location.rstrip("/")
    listed = FileSystems.match([f"{root}/**"])[0].metadata_list
    if not listed:
        raise NotADirectoryError(f"{location}: no objects under this prefix")
    repo = base_name(root)
    configs = TreeEditorConfigs(lambda: stored_editorconfigs(root, listed))
    census = functools.cache(lambda: SourceCensus.of(meta.path for meta in listed))
    for meta in sorted(listed, key=lambda m: m.path):
        path = meta.path[len(root) + 1:]
        folders = path.split("/")[:-1]
        if any(part in VCS_DIRS for part in folders) or any(
                directory_excluded(source, "/".join(folders[:depth])) for depth in range(1, len(folders) + 1)):
            continue
        tally.count()
        yield _stored_file_outcome(source, repo, meta.path, path, meta.size_in_bytes, (configs, census))


def stored_editorconfigs(root: str, listed: list) -> dict[str, bytes]:
    """``{folder: bytes}`` of the ``.editorconfig`` objects of a listing under ``root`` (read only when
    an object that is not UTF-8 asks for its charset); one that cannot be read counts as none."""
    found = {}
    for meta in listed:
        folder = editorconfig_folder(meta.path[len(root) + 1:])
        if folder is not None and meta.size_in_bytes <= EDITORCONFIG_MAX_BYTES:
            with contextlib.suppress(OSError), open_raw(meta.path) as handle:
                found[folder] = handle.read(EDITORCONFIG_MAX_BYTES)
    return found


def _stored_file_outcome(source: SourceConfig, repo: str, location: str, path: str, size: int,
                         tree: tuple[TreeEditorConfigs, Callable[[], SourceCensus]]) -> Outcome:
    """``tree``: the listing's .editorconfig files and its census of C and C++ sources."""
    configs, census = tree
    if not path_selected(source, path):
        return drop(source, location, "path_not_included")
    if size > source.limits.max_file_bytes:
        return drop(source, location, "file_too_large")
    try:
        with open_raw(location) as handle:
            data = read_bounded(handle, source.limits.max_file_bytes)
    except OSError as error:
        return quarantine(source, location, error)
    if data is None:
        return drop(source, location, "file_too_large")
    return content_outcome(source, location, data, repo=repo, path=path, editorconfig=lambda: configs.charset(path),
                           census=census)


def _relative(root: str, dirpath: str, name: str) -> str:
    return os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")


def directory_excluded(source: SourceConfig, path: str) -> bool:
    """True when every file below ``path`` is excluded: an exclude glob ``G/*`` with ``G`` matching it.
    fnmatch's ``*`` also matches ``/``, so ``G/*`` matches ``path/anything/below``."""
    return any(glob.endswith("/*") and fnmatch.fnmatchcase(path, glob[:-2]) for glob in source.exclude)


def _file_outcome(source: SourceConfig, root: str, repo: str, fs_path: str,
                  census: Callable[[], SourceCensus]) -> Outcome:
    """lstat first, so links and special files are judged by what they are, not what they point to.

    ``fs_path`` is the name as os.walk gave it, for opening; records carry its ``text_name``, since a
    file name that is not UTF-8 would otherwise put lone surrogates into ids and locations (and
    end the walk of the whole directory there).
    """
    file = f"{root}/{fs_path}"
    where, path = text_name(file), text_name(fs_path)
    if not path_selected(source, path):
        return drop(source, where, "path_not_included")
    try:
        info = os.lstat(file)
        if stat.S_ISLNK(info.st_mode):
            return drop(source, where, "symlink")
        if not stat.S_ISREG(info.st_mode):
            return drop(source, where, "not_regular_file")
        if info.st_size > source.limits.max_file_bytes:
            return drop(source, where, "file_too_large")
        data = _read_no_follow(file, source.limits.max_file_bytes)
    except OSError as error:
        return quarantine(source, where, error)
    if data is None:  # the file grew past the cap between lstat and read
        return drop(source, where, "file_too_large")
    return content_outcome(source, where, data, repo=repo, path=path, census=census,
                           editorconfig=lambda: editorconfig_charset(root, fs_path.replace(os.sep, "/")))


def _read_no_follow(path: str, limit: int) -> bytes | None:
    """Read at most ``limit`` bytes; O_NOFOLLOW closes the window where the file is swapped for a link."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as handle:
        return read_bounded(handle, limit)
