"""Crawl readers: one location of a source -> Documents, Dropped and Quarantined records.

``read_location`` is the only entry point the Crawl transform needs. It never raises on bad
input, and every record it touches ends as exactly one outcome, which is what lets
``counts.read == kept + dropped + duplicates + quarantined`` hold for the build.

Drop reasons (stage ``crawl``): ``path_not_included``, ``symlink``, ``submodule``, ``hardlink``,
``unsafe_path``, ``duplicate_member_name``, ``not_regular_file``, ``file_too_large``, ``blob_missing`` (git: the
copy lacks the blob), ``lfs_pointer`` (a Git LFS pointer, not the file), ``binary``, ``not_utf8`` (text
in no encoding it declares or that is confidently detected; a legacy encoding that is, is transcoded:
``readers.encodings``); commits add ``filters.commits``' reasons.
"""

from __future__ import annotations

from collections.abc import Iterator

from codemix.document import ReadCount
from codemix.pipelines.readers.archive import read_archive
from codemix.pipelines.readers.commits import read_commits
from codemix.pipelines.readers.common import Outcome, Reader, ReadTally, folder_repository_name, guarded, quarantine
from codemix.pipelines.readers.crawl_list import read_crawl_list
from codemix.pipelines.readers.directory import read_directory
from codemix.pipelines.readers.dumps import read_dump
from codemix.pipelines.readers.git import GitError, is_remote, local_git_dir, read_git, repository_name
from codemix.pipelines.readers.issues import read_issues
from codemix.pipelines.readers.language import detect_language
from codemix.pipelines.readers.transcripts import read_transcripts
from codemix.sources import SourceConfig

READERS: dict[str, Reader] = {
    "git": read_git,
    "directory": read_directory,
    "archive": read_archive,
    "dump": read_dump,
    "transcripts": read_transcripts,
    "crawl_list": read_crawl_list,
    "commits": read_commits,
    "issues": read_issues,
}

DROP_REASONS = ("path_not_included", "symlink", "submodule", "hardlink", "unsafe_path",
                "duplicate_member_name", "not_regular_file", "file_too_large", "blob_missing", "lfs_pointer", "binary",
                "not_utf8")

__all__ = ["DROP_REASONS", "READERS", "detect_language", "read_counted", "read_location", "repository_names"]


def read_counted(source: SourceConfig, location: str,
                 part: tuple[int, int] = (0, 1)) -> Iterator[Outcome | ReadCount]:
    """Every outcome of one location of ``source``, by ``source.type``, and the ``ReadCount`` of each
    location read (one, or one per entry of a crawl list and one for the list); never raises on bad input.
    ``part`` lets a reader that can skip records cheaply (git) leave other parts' records unread."""
    reader = READERS.get(source.type, _unknown_type)
    yield from guarded(reader, source, location, part)


def repository_names(source: SourceConfig) -> dict[str, str]:
    """``{path: repository name}`` for a git or directory source, as its readers name them (the spec's
    ``name:``, a remote URL's owner/name, a non-generic folder name); the manifest lists them."""
    if source.type == "directory":
        return {path: source.names.get(path) or folder_repository_name(path.rstrip("/") or "/", source.paths)
                for path in source.paths}
    if source.type != "git":
        return {}
    names = {}
    for path in source.paths:
        try:
            names[path] = repository_name(source, path, path if is_remote(path) else local_git_dir(path))
        except GitError:  # an unreadable location is reported by its read; name it by its folders here
            names[path] = source.names.get(path) or folder_repository_name(path, source.paths)
    return names


def read_location(source: SourceConfig, location: str) -> Iterator[Outcome]:
    """``read_counted`` without the counts: the outcomes only."""
    return (outcome for outcome in read_counted(source, location) if not isinstance(outcome, ReadCount))


def _unknown_type(source: SourceConfig, location: str, tally: ReadTally) -> Iterator[Outcome]:
    tally.count()  # the location, unread, is one record
    yield quarantine(source, location, f"ValueError: unknown source type {source.type!r}")
