"""Shape the long-context stage: whole repositories as documents, in dependency order.

Repository files are grouped by (source, repo), with the filter's held files (drops a kept file's
import puts back) and the repository's submodule paths, and handed to ``mixtures.repository``, which
orders them by imports, splits them at file boundaries to the stage's sequence length and renders each
chunk with path headers (and, as configured, a metadata header or fill-in-the-middle). Documents
without a repository (transcripts, repo-less dump records) pass through as they are. A file too
large for the context is reported, never truncated silently.
"""

from __future__ import annotations

import json
from dataclasses import asdict

import apache_beam as beam

from codemix.document import Document, make_doc_id, packed_document, part_id, unpacked_document
from codemix.kinds import document_kind
from codemix.mixtures.provenance import chunk_provenance, document_provenance
from codemix.mixtures.repository import RepositoryDocumentConfig, repository_documents
from codemix.mixtures.tokenizer import load_tokenizer
from codemix.pipelines.readers.common import split_tree_location
from codemix.pipelines.spill import grouping

SHAPING = "shaping"


def repository_member(doc: Document, stage: str, sources: list[str]):
    """((source, repo), packed doc) for repository files of the stage's sources, packed because they
    are grouped by repository (a shuffle); other documents untouched."""
    if doc.source in sources:
        if document_kind(doc.kind).repository_file and doc.repo:
            yield beam.pvalue.TaggedOutput("files", ((doc.source, doc.repo), packed_document(doc)))
        else:
            yield (stage, doc.source), (doc.id, doc.text, doc.kind, document_provenance(doc))


def held_member(doc: Document, sources: list[str]):
    """((source, repo), packed doc) for a held repository file (its metadata names ``filter_reason``)."""
    if doc.source in sources and document_kind(doc.kind).repository_file and doc.repo:
        yield (doc.source, doc.repo), packed_document(doc)


def repository_submodules(docs: list[Document], submodules: dict[str, list[str]]) -> tuple[str, ...]:
    """The submodule paths of the repository ``docs`` were read from (by the tree location of a file of
    its own: a followed submodule's files name the submodule's repository)."""
    for doc in docs:
        where = split_tree_location(str(doc.metadata.get("location", "")))
        if where is not None and where[2] == doc.path:
            return tuple(submodules.get(where[0], ()))
    return ()


class RepositoryChunks(beam.DoFn):
    """One repository's files -> the stage's entries, one per chunk; dropped files, and held files put
    back because kept files import them, as shaping records."""

    def __init__(self, stage: str, tokenizer_path: str, sequence_length: int, config: RepositoryDocumentConfig,
                 submodules: dict[str, list[str]] | None = None):
        self._stage = stage
        self._tokenizer_path = tokenizer_path
        self._sequence_length = sequence_length
        self._config = config
        self._submodules = submodules or {}

    def setup(self):
        self._tokenizer = load_tokenizer(self._tokenizer_path)
        self._tokenizer.encode_special_tokens = True  # chunks are code: marker look-alikes stay text

    def token_count(self, text: str) -> int:
        return len(self._tokenizer.encode(text).ids)

    def process(self, element):
        (source, repo), packed = element
        everything = list(map(unpacked_document, packed))
        docs = [doc for doc in everything if "filter_reason" not in doc.metadata]
        if not docs:  # only held files: the repository was dropped whole (a fork, a mirror)
            return
        held = {doc.path: doc for doc in everything if "filter_reason" in doc.metadata}
        shaped = repository_documents(
            repo, sorted((doc.path, doc.language, doc.text) for doc in docs), self.token_count,
            self._sequence_length - 1,  # one token of room for the EOD the shard writer appends
            self._config, held=sorted((d.path, d.language, d.text) for d in held.values()),
            submodules=repository_submodules(docs, self._submodules))
        docs += [held[path] for path in shaped.kept_for_imports]
        parts = len(shaped.chunks)
        for chunk in shaped.chunks:
            # A repository in several parts: ids that keep its parts together and in order in the shards.
            chunk_id = (make_doc_id(source, f"{repo}#chunk{chunk.index}") if parts == 1
                        else part_id(make_doc_id(source, repo), chunk.index))
            provenance = chunk_provenance(docs, chunk_id, chunk.paths, part=chunk.index, parts=len(shaped.chunks))
            yield (self._stage, source), (chunk_id, chunk.text, "repo", provenance)
        yield from self.records(source, repo, shaped, held)

    def records(self, source: str, repo: str, shaped, held: dict[str, Document]):
        """Shaping records: files left out, held files put back (no ``reason``: nothing is lost), the order."""
        for dropped in shaped.dropped:
            record = {"stage": self._stage, "source": source, "repo": repo, "path": dropped.path, "reason": dropped.reason,
                      "tokens": dropped.tokens}
            yield beam.pvalue.TaggedOutput(SHAPING, json.dumps(record, sort_keys=True))
        for path in shaped.kept_for_imports:
            record = {"stage": self._stage, "source": source, "repo": repo, "path": path,
                      "kept_for_imports": held[path].metadata["filter_reason"]}
            yield beam.pvalue.TaggedOutput(SHAPING, json.dumps(record, sort_keys=True))
        if shaped.order is not None and shaped.order.files > 1:
            report = {"stage": self._stage, "source": source, "repo": repo, "import_order": asdict(shaped.order)}
            yield beam.pvalue.TaggedOutput(SHAPING, json.dumps(report, sort_keys=True))


class ShapeLongContext(beam.PTransform):
    """Documents, or ``{"docs": ..., "held": ...}`` with the filter's held files -> (long-stage entries,
    shaping records as JSON lines). ``submodules``: ``{repository location: paths}`` from the crawl."""

    def __init__(self, *, stage: str, sources: list[str], tokenizer_path: str, sequence_length: int,
                 config: RepositoryDocumentConfig, spill_dir: str | None = None,
                 submodules: dict[str, list[str]] | None = None):
        super().__init__()
        self._stage = stage
        self._sources = sources
        self._spill_dir = spill_dir  # group repositories through run files there (pipelines.spill)
        self._tokenizer_path = tokenizer_path
        self._sequence_length = sequence_length
        self._config = config
        self._submodules = submodules or {}

    def expand(self, inputs):
        documents, held = (inputs["docs"], inputs.get("held")) if isinstance(inputs, dict) else (inputs, None)
        split = documents | "SplitRepositoryFiles" >> beam.FlatMap(repository_member, self._stage, self._sources).with_outputs(
            "files", main="single")
        files = split.files
        if held is not None:
            held_files = held | "HeldRepositoryFiles" >> beam.FlatMap(held_member, self._sources)
            files = (files, held_files) | "WithHeldFiles" >> beam.Flatten()
        shaped = (
            files
            | "GroupByRepository" >> grouping(self._spill_dir, "repositories")
            | "ChunkRepositories" >> beam.ParDo(RepositoryChunks(
                self._stage, self._tokenizer_path, self._sequence_length, self._config, self._submodules,
            )).with_outputs(SHAPING, main="chunks")
        )
        entries = (split.single, shaped.chunks) | "AllLongEntries" >> beam.Flatten()
        return entries, shaped[SHAPING]
