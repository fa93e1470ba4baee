"""Crawl readers: one location of a source -> Documents, Dropped and Quarantined records.

``read_location`` is the only entry point the Crawl transform needs. It never raises on bad
input, and every record it touches ends as exactly one outcome, which is what lets
``counts.read == kept + dropped + duplicates + quarantined`` hold for the build.

Drop reasons (stage ``crawl``): ``path_not_included``, ``symlink``, ``submodule``, ``hardlink``,
``unsafe_path``, ``duplicate_member_name``, ``not_regular_file``, ``file_too_large``, ``binary``.
"""

from __future__ import annotations

from collections.abc import Iterator

from codemix.sources import SourceConfig
from pipelines.readers.archive import read_archive
from pipelines.readers.common import Outcome, Reader, guarded, quarantine
from pipelines.readers.crawl_list import read_crawl_list
from pipelines.readers.directory import read_directory
from pipelines.readers.dumps import read_dump
from pipelines.readers.git import read_git
from pipelines.readers.language import detect_language
from pipelines.readers.transcripts import read_transcripts

READERS: dict[str, Reader] = {
    "git": read_git,
    "directory": read_directory,
    "archive": read_archive,
    "dump": read_dump,
    "transcripts": read_transcripts,
    "crawl_list": read_crawl_list,
}

DROP_REASONS = ("path_not_included", "symlink", "submodule", "hardlink", "unsafe_path",
                "duplicate_member_name", "not_regular_file", "file_too_large", "binary")

__all__ = ["DROP_REASONS", "READERS", "detect_language", "read_location"]


def read_location(source: SourceConfig, location: str) -> Iterator[Outcome]:
    """Every outcome of one location of ``source``, by ``source.type``; never raises on bad input."""
    reader = READERS.get(source.type)
    if reader is None:
        yield quarantine(source, location, f"ValueError: unknown source type {source.type!r}")
        return
    yield from guarded(reader, source, location)
