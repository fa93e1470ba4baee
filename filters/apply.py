"""One place that decides a document's fate: the first failing check's reason, or keep."""

from __future__ import annotations

import fnmatch
import posixpath

from codemix.document import Document
from filters.code import CODE_CHECKS
from filters.config import CodeFilterConfig, FiltersConfig


def path_matches(path: str, globs: list[str]) -> bool:
    """fnmatch on the in-repo path; a glob without ``/`` matches the file name alone."""
    name = posixpath.basename(path)
    return any(fnmatch.fnmatchcase(name if "/" not in glob else path, glob) for glob in globs)


class DocumentFilter:
    """The filter stage's per-document decision, built once per worker from the spec.

    Per-language thresholds are resolved once and cached: resolving validates a merged config,
    which is too slow to repeat for every document.
    """

    def __init__(self, config: FiltersConfig):
        self.config = config
        self._thresholds: dict[str, CodeFilterConfig] = {}

    def thresholds(self, language: str) -> CodeFilterConfig:
        if language not in self._thresholds:
            self._thresholds[language] = self.config.for_language(language)
        return self._thresholds[language]

    def drop_reason(self, doc: Document) -> str | None:
        """The reason ``doc`` is dropped, or ``None`` to keep it."""
        if doc.kind == "transcript":
            return self.transcript_drop_reason(doc)
        return self.path_drop_reason(doc) or self.code_drop_reason(doc)

    def transcript_drop_reason(self, doc: Document) -> str | None:
        """Size and binary only: tool output has long lines and symbol-heavy logs by nature."""
        if len(doc.text.encode("utf-8")) > self.config.transcript_max_bytes:
            return "too_large"
        return "binary" if "\x00" in doc.text else None

    def path_drop_reason(self, doc: Document) -> str | None:
        if path_matches(doc.path, self.config.vendored_paths):
            return "vendored_path"
        if path_matches(doc.path, self.config.generated_paths):
            return "generated_path"
        if self.config.allowed_languages and doc.language not in self.config.allowed_languages:
            return "language_not_allowed"
        return None

    def code_drop_reason(self, doc: Document) -> str | None:
        thresholds = self.thresholds(doc.language)
        for check in CODE_CHECKS:
            keep, reason = check(doc, thresholds)
            if not keep:
                return reason
        return None


def drop_reason(doc: Document, config: FiltersConfig) -> str | None:
    """One-off decision for ``doc`` (tests, notebooks); the pipeline reuses one ``DocumentFilter``."""
    return DocumentFilter(config).drop_reason(doc)
