"""Shape the long-context stage: whole repositories as documents, in dependency order.

Repository files are grouped by (source, repo) and handed to ``mixtures.repository``, which orders
them by imports, splits them at file boundaries to the stage's sequence length and renders each
chunk with path headers (and, as configured, a metadata header or fill-in-the-middle). Documents
without a repository (transcripts, repo-less dump records) pass through as they are. A file too
large for the context is reported, never truncated silently.
"""

from __future__ import annotations

import json
from dataclasses import asdict

import apache_beam as beam

from codemix.document import Document, make_doc_id, packed_document, unpacked_document
from codemix.mixtures.provenance import chunk_provenance, document_provenance
from codemix.mixtures.repository import RepositoryDocumentConfig, repository_documents
from codemix.mixtures.tokenizer import load_tokenizer
from codemix.pipelines.spill import grouping

SHAPING = "shaping"


def repository_member(doc: Document, stage: str, sources: list[str]):
    """((source, repo), packed doc) for repository files of the stage's sources, packed because they
    are grouped by repository (a shuffle); other documents untouched."""
    if doc.source in sources:
        if doc.kind == "file" and doc.repo:
            yield beam.pvalue.TaggedOutput("files", ((doc.source, doc.repo), packed_document(doc)))
        else:
            yield (stage, doc.source), (doc.id, doc.text, doc.kind, document_provenance(doc))


class RepositoryChunks(beam.DoFn):
    """One repository's files -> the stage's entries, one per chunk; dropped files as shaping records."""

    def __init__(self, stage: str, tokenizer_path: str, sequence_length: int, config: RepositoryDocumentConfig):
        self._stage = stage
        self._tokenizer_path = tokenizer_path
        self._sequence_length = sequence_length
        self._config = config

    def setup(self):
        self._tokenizer = load_tokenizer(self._tokenizer_path)
        self._tokenizer.encode_special_tokens = True  # chunks are code: marker look-alikes stay text

    def token_count(self, text: str) -> int:
        return len(self._tokenizer.encode(text).ids)

    def process(self, element):
        (source, repo), packed = element
        docs = list(map(unpacked_document, packed))
        files = sorted((doc.path, doc.language, doc.text) for doc in docs)
        # One token of room for the EOD the shard writer appends.
        shaped = repository_documents(repo, files, self.token_count, self._sequence_length - 1, self._config)
        for chunk in shaped.chunks:
            chunk_id = make_doc_id(source, f"{repo}#chunk{chunk.index}")
            provenance = chunk_provenance(docs, chunk_id, chunk.paths, part=chunk.index, parts=len(shaped.chunks))
            yield (self._stage, source), (chunk_id, chunk.text, "repo", provenance)
        for dropped in shaped.dropped:
            record = {"stage": self._stage, "source": source, "repo": repo, "path": dropped.path, "reason": dropped.reason,
                      "tokens": dropped.tokens}
            yield beam.pvalue.TaggedOutput(SHAPING, json.dumps(record, sort_keys=True))
        if shaped.order is not None and shaped.order.files > 1:
            report = {"stage": self._stage, "source": source, "repo": repo, "import_order": asdict(shaped.order)}
            yield beam.pvalue.TaggedOutput(SHAPING, json.dumps(report, sort_keys=True))


class ShapeLongContext(beam.PTransform):
    """Documents -> (long-stage entries, shaping records as JSON lines)."""

    def __init__(self, *, stage: str, sources: list[str], tokenizer_path: str, sequence_length: int,
                 config: RepositoryDocumentConfig, spill_dir: str | None = None):
        super().__init__()
        self._stage = stage
        self._sources = sources
        self._spill_dir = spill_dir  # group repositories through run files there (pipelines.spill)
        self._tokenizer_path = tokenizer_path
        self._sequence_length = sequence_length
        self._config = config

    def expand(self, documents):
        split = documents | "SplitRepositoryFiles" >> beam.FlatMap(repository_member, self._stage, self._sources).with_outputs(
            "files", main="single")
        shaped = (
            split.files
            | "GroupByRepository" >> grouping(self._spill_dir, "repositories")
            | "ChunkRepositories" >> beam.ParDo(RepositoryChunks(self._stage, self._tokenizer_path, self._sequence_length,
                                                                 self._config)).with_outputs(SHAPING, main="chunks")
        )
        entries = (split.single, shaped.chunks) | "AllLongEntries" >> beam.Flatten()
        return entries, shaped[SHAPING]
