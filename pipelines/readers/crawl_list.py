"""A crawl list: a text file naming repositories, directories and archives, one per line.

::

    # comments and blank lines are ignored
    https://github.com/psf/requests.git     -> git (bare clone)
    ../mirrors/flask                        -> relative to the list file's folder
    s3://bucket/sdists/attrs-23.1.0.tar.gz  -> archive (by suffix)

Each entry is read as its own location, so one bad entry is quarantined under its own name and
the rest of the list is still read.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator

from codemix.document import ReadCount
from codemix.pipelines.readers.archive import is_archive, read_archive
from codemix.pipelines.readers.common import (
    Outcome,
    Reader,
    ReadTally,
    decode_utf8,
    guarded,
    iter_bounded_lines,
    line_location,
    open_binary,
    quarantine,
)
from codemix.pipelines.readers.directory import read_directory
from codemix.pipelines.readers.git import is_remote, read_git
from codemix.sources import SourceConfig


def read_crawl_list(source: SourceConfig, location: str, tally: ReadTally) -> Iterator[Outcome | ReadCount]:
    """Every entry of the list at ``location``, each dispatched to the reader its form calls for.
    Each entry is a location of its own, with its own ``ReadCount``; the list's tally counts only
    its lines that could not be read as an entry.

    The list is read in full first: it is small, and a remote list should not be held open
    while a long clone runs.
    """
    listed = ReadTally()  # added once the whole list is read: a list that fails midway is one record
    entries = list(list_entries(source, location, listed))
    tally.count(listed.records)
    for entry in entries:
        if isinstance(entry, str):
            yield from guarded(entry_reader(entry), source, entry)
        else:
            yield entry


def list_entries(source: SourceConfig, location: str, tally: ReadTally) -> Iterator[str | Outcome]:
    """Resolved entries in list order; a line that is not UTF-8 (or too long) is quarantined alone."""
    limit = source.limits.max_line_bytes
    with open_binary(location, source.limits.max_decompressed_bytes) as stream:
        for lineno, line in iter_bounded_lines(stream, limit):
            if line is None:
                tally.count()  # a line that can be no entry is a record of the list itself
                yield quarantine(source, line_location(location, lineno), f"LineTooLong: over {limit} bytes")
                continue
            try:
                entry = decode_utf8(line).strip()
            except UnicodeDecodeError as error:
                tally.count()
                yield quarantine(source, line_location(location, lineno), error)
                continue
            if entry and not entry.startswith("#"):
                yield resolve_entry(location, entry)


def resolve_entry(list_location: str, entry: str) -> str:
    """Relative entries resolve against the list file's folder, whether the list is local or a URL."""
    if is_remote(entry) or entry.startswith("/"):
        return entry
    if "://" in list_location:
        return posixpath.join(posixpath.dirname(list_location), entry)
    return os.path.normpath(os.path.join(os.path.dirname(list_location), entry))


def entry_reader(entry: str) -> Reader:
    """Archive by suffix; a local folder that is neither a worktree nor a bare repo is a directory;
    everything else (clone URLs, repos, and paths that do not exist) goes to git, which quarantines
    what it cannot open with git's own message."""
    if is_archive(entry):
        return read_archive
    if not is_remote(entry) and os.path.isdir(entry) and not is_git_repository(entry):
        return read_directory
    return read_git


def is_git_repository(path: str) -> bool:
    """A worktree (``.git`` dir or file) or a bare repository (HEAD, objects/ and refs/ at the top)."""
    if os.path.exists(os.path.join(path, ".git")):
        return True
    return (os.path.isfile(os.path.join(path, "HEAD")) and os.path.isdir(os.path.join(path, "objects"))
            and os.path.isdir(os.path.join(path, "refs")))
