"""A local directory tree, walked in sorted order so two crawls list records identically.

Links are reported, never followed: a symlink (to a file or a directory) is dropped as
``symlink``, so a tree cannot pull in files from outside its root or loop. Version-control
metadata directories (``.git``, ``.hg``, ``.svn``) are not walked; they hold objects, not sources.
A directory that an ``exclude`` glob of the form ``DIR_GLOB/*`` covers whole is not walked either:
the spec said its files are not part of the source, so they are never read and never counted.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Iterator

from codemix.sources import SourceConfig
from pipelines.readers.common import (
    Outcome,
    base_name,
    content_outcome,
    drop,
    path_selected,
    quarantine,
    read_bounded,
    text_name,
)

VCS_DIRS = frozenset({".git", ".hg", ".svn"})


def read_directory(source: SourceConfig, location: str) -> Iterator[Outcome]:
    """Every file under ``location``; paths are relative to it with ``/`` separators."""
    if not os.path.isdir(location):
        raise NotADirectoryError(f"{location}: not a directory")
    root = location.rstrip("/") or "/"
    repo = base_name(os.path.abspath(root))
    errors: list[OSError] = []
    for dirpath, dirnames, filenames in os.walk(root, onerror=errors.append, followlinks=False):
        # os.walk lists a symlink to a directory among dirnames; report it and don't descend.
        links = [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
        dirnames[:] = sorted(d for d in dirnames if d not in VCS_DIRS and d not in links
                             and not directory_excluded(source, _relative(root, dirpath, d)))
        for name in sorted(filenames + links):
            path = _relative(root, dirpath, name)
            yield _file_outcome(source, root, repo, path)
        yield from (quarantine(source, text_name(error.filename or root), error) for error in errors)
        errors.clear()


def _relative(root: str, dirpath: str, name: str) -> str:
    return os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")


def directory_excluded(source: SourceConfig, path: str) -> bool:
    """True when every file below ``path`` is excluded: an exclude glob ``G/*`` with ``G`` matching it.
    fnmatch's ``*`` also matches ``/``, so ``G/*`` matches ``path/anything/below``."""
    return any(glob.endswith("/*") and fnmatch.fnmatchcase(path, glob[:-2]) for glob in source.exclude)


def _file_outcome(source: SourceConfig, root: str, repo: str, fs_path: str) -> Outcome:
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
    return content_outcome(source, where, data, repo=repo, path=path)


def _read_no_follow(path: str, limit: int) -> bytes | None:
    """Read at most ``limit`` bytes; O_NOFOLLOW closes the window where the file is swapped for a link."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as handle:
        return read_bounded(handle, limit)
