"""Document kinds: what a document is (a file, a commit, a transcript...), so every stage asks the kind
what applies to it instead of comparing its name.

``Document.kind`` holds a kind's name (rows and ledgers stay plain strings); ``document_kind(name)``
gives the object back. A new kind is one ``DocumentKind`` and one ``register``: docs/design/document-kinds.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from codemix.columns import (
    COMMIT_COLUMNS,
    ISSUE_COLUMNS,
    NOTEBOOK_COLUMNS,
    SCORED_COLUMNS,
    TRANSCRIPT_COLUMNS,
    MetadataColumn,
)

# How the filter stage judges a kind's content (filters.apply.DocumentFilter.drop_reason).
CODE = "code"                        # path rules and the language allow-list, then the code heuristics
NOTEBOOK_CODE = "notebook_code"      # its code cells as code, no comment cap (markdown cells may read as comments)
SIZE_AND_BINARY = "size_and_binary"  # prose and logs: tool output has long lines and symbols by nature
AT_READ = "at_read"                  # judged by its reader (a commit at crawl): code heuristics do not fit a diff

# What a kind's text is made of, as redaction, decontamination, the prose checks and dedup read it
# (filters.secrets.redact_document, filters.apply.contamination_views, filters.natural_language,
# dedup.stage.text_digest, dedup.near.compared_text).
TEXT = "text"          # the text as it stands, in the document's language
SOURCE = "source"      # a source file; an .ipynb file's JSON read as its cells
CELLS = "cells"        # StarCoder2's cells layout: code cells in the kernel's language, the rest prose
DIFF = "diff"          # a patch: each changed file's added lines as code of its language; a copy is the same patch
THREAD = "thread"      # an issue or pull-request thread: its fenced code blocks, a pull request's added lines
MESSAGES = "messages"  # an agent transcript: its messages (``metadata["messages"]``), part by part

VIEWS = (TEXT, SOURCE, CELLS, DIFF, THREAD, MESSAGES)
CONTENT_CHECKS = (CODE, NOTEBOOK_CODE, SIZE_AND_BINARY, AT_READ)
# How a SWE-bench-style instance shows in a kind (filters.benchmarks.POLICIES): as the task of a trace,
# as the fix in a commit, as the thread of its issue, as a repository file holding the fix; "" none.
BENCHMARK_POLICIES = ("", "trace", "commit", "issue", "file")


@dataclass(frozen=True, slots=True, kw_only=True)
class DocumentKind:
    """One kind of document and what applies to it; each field names the code that asks it."""

    name: str
    summary: str
    content_checks: str = CODE  # one of CONTENT_CHECKS
    redaction: str = TEXT       # one of VIEWS: what secrets redaction reads
    decontamination: str = TEXT  # one of VIEWS: the views benchmark overlap is looked for in
    prose: str = TEXT           # TEXT (a prose file, by its language) or MESSAGES: what the prose checks judge
    dedup: str = TEXT           # TEXT, DIFF (exact copies share a patch) or MESSAGES (near: what the agent wrote)
    # The documents it is deduplicated against (dedup.stage.scope_of): kinds naming one scope are compared,
    # exact and near, and never with another scope's (a commit never removes the file it added, nor a file
    # a commit), unless ``dedup.across_kinds`` asks for one scope; "" is the kind's own name.
    dedup_scope: str = ""
    # A file of its repository (when it has one): license files and amalgamations are looked for among
    # them, repository-level dedup and the long stage group them, a drop may be held for imports.
    repository_file: bool = False
    licensed_by_text: bool = True  # its path may be a license file and its text carry an SPDX header
    quality_scored: bool = False   # the code-quality model scores it (filters.quality)
    # Rendered with the chat template: the SFT stage makes samples of it, and its chat markers stay
    # single ids when tokenized (other text encodes special tokens as plain text).
    chat: bool = False
    benchmark_instances: str = ""  # one of BENCHMARK_POLICIES
    source_types: tuple[str, ...] = ()  # the source types whose reader yields it (codemix.sources)
    metadata: tuple[str, ...] = ()      # the ``metadata`` keys its reader writes for later stages
    provenance: tuple[str, ...] = ()    # the provenance sidecar columns it fills beyond the common ones
    # Its metadata as typed columns of the published documents (codemix.columns; docs/published-documents.md).
    columns: tuple[MetadataColumn, ...] = ()

    @property
    def scope(self) -> str:
        """Its dedup scope's name (``dedup_scope``, else its own name)."""
        return self.dedup_scope or self.name

    def published_columns(self) -> tuple[MetadataColumn, ...]:
        """Its metadata columns, and the quality scorer's when the quality model scores it."""
        return (*self.columns, *(SCORED_COLUMNS if self.quality_scored else ()))

    def validate(self) -> None:
        for field, allowed in (("content_checks", CONTENT_CHECKS), ("redaction", VIEWS), ("decontamination", VIEWS),
                               ("prose", (TEXT, MESSAGES)), ("dedup", (TEXT, DIFF, MESSAGES)),
                               ("benchmark_instances", BENCHMARK_POLICIES)):
            if getattr(self, field) not in allowed:
                raise ValueError(f"document kind {self.name!r}: {field} {getattr(self, field)!r} is not one of "
                                 f"{', '.join(allowed)}")


KINDS: dict[str, DocumentKind] = {}


def register(kind: DocumentKind) -> DocumentKind:
    """Make ``kind`` known by its name; a name or a source type claimed twice is refused."""
    kind.validate()
    if kind.name in KINDS:
        raise ValueError(f"document kind {kind.name!r} is registered twice")
    claimed = {t: other.name for other in KINDS.values() for t in other.source_types}
    for source_type in kind.source_types:
        if source_type in claimed:
            raise ValueError(f"source type {source_type!r} already yields {claimed[source_type]!r}")
    KINDS[kind.name] = kind
    return kind


FILE = register(DocumentKind(
    name="file", summary="a source file as read (a repository's, an archive's, a dump's row)",
    redaction=SOURCE, decontamination=SOURCE, repository_file=True, quality_scored=True, benchmark_instances="file",
    source_types=("git", "directory", "archive", "dump", "crawl_list"), metadata=("commit", "archive", "member"),
    provenance=("paths",)))
REPO = register(DocumentKind(
    name="repo", summary="a repository's files in dependency order, made by the long stage (not read)",
    quality_scored=True, provenance=("paths", "part", "parts")))
TRANSCRIPT = register(DocumentKind(
    name="transcript", summary="an agent transcript rendered from its messages",
    content_checks=SIZE_AND_BINARY, redaction=MESSAGES, decontamination=MESSAGES, prose=MESSAGES, dedup=MESSAGES,
    licensed_by_text=False,
    chat=True, benchmark_instances="trace", source_types=("transcripts",),
    metadata=("format", "messages", "exit_status", "submitted", "resolved", "tests_passed", "outcome_evidence",
              "compactions", "tools", "transcript", "observations_cut"),
    provenance=("transcript_id", "transcript_format", "outcome"), columns=TRANSCRIPT_COLUMNS))
COMMIT = register(DocumentKind(
    name="commit", summary="a commit: its message and patch",
    content_checks=AT_READ, redaction=DIFF, decontamination=DIFF, dedup=DIFF, benchmark_instances="commit",
    source_types=("commits",),
    metadata=("commit", "parents", "author", "date", "files"), columns=COMMIT_COLUMNS))
NOTEBOOK = register(DocumentKind(
    name="notebook", summary="a Jupyter notebook of a file source (unless it sets `notebooks: false`), as script or cells",
    content_checks=NOTEBOOK_CODE, redaction=CELLS, decontamination=CELLS, benchmark_instances="file",
    dedup_scope="file",  # a notebook in script layout and the same code saved as a file are copies
    metadata=("notebook", "commit"), columns=NOTEBOOK_COLUMNS))
ISSUE = register(DocumentKind(
    name="issue", summary="an issue or pull-request thread",
    content_checks=SIZE_AND_BINARY, decontamination=THREAD, benchmark_instances="issue", source_types=("issues",),
    metadata=("thread",), columns=ISSUE_COLUMNS))

DOCUMENT_KINDS = tuple(KINDS)


def document_kind(name: str) -> DocumentKind:
    """The kind named ``name`` (a ``Document.kind``, a row's ``kind``)."""
    try:
        return KINDS[name]
    except KeyError:
        raise ValueError(f"unknown document kind {name!r}: use one of {', '.join(KINDS)}") from None


def metadata_columns() -> tuple[MetadataColumn, ...]:
    """Every registered kind's published metadata columns, once each, in registration order (the published
    documents' schema); a column two kinds declare with different types is refused."""
    columns: dict[str, MetadataColumn] = {}
    for kind in KINDS.values():
        for column in kind.published_columns():
            known = columns.setdefault(column.field.name, column)
            if known.field.type != column.field.type:
                raise ValueError(f"document kind {kind.name!r}: column {column.field.name!r} is {column.field.type}, "
                                 f"another kind's is {known.field.type}")
    return tuple(columns.values())


def source_kind(source_type: str) -> DocumentKind:
    """The kind a source type's reader yields; a type no kind claims yields files."""
    return next((kind for kind in KINDS.values() if source_type in kind.source_types), FILE)
