"""Tokenize and write shards: kept documents into per-stage Megatron indexed datasets.

Each (stage, source) gets ``ceil(text bytes / shard_size_bytes)`` shards; a document goes to the
shard picked by its id's hash, and a shard's documents are written in id order. Neither depends on
worker count or bundle boundaries, so the same inputs give byte-identical shards on any runner.
"""

from __future__ import annotations

import hashlib
import json
import math

import apache_beam as beam
import numpy as np

from codemix.document import Document
from mixtures.indexed_dataset import IndexedDatasetWriter, dtype_for_vocab
from mixtures.tokenizer import load_tokenizer, token_id
from pipelines.progress import Progress

ENCODE_BATCH_DOCUMENTS = 256


def stage_entries(doc: Document, stage_sources: dict[str, list[str]]):
    """((stage, source), (id, text, kind)) for every stage whose mixture uses this document's source."""
    for stage, sources in stage_sources.items():
        if doc.source in sources:
            yield (stage, doc.source), (doc.id, doc.text, doc.kind)


def shard_count(text_bytes: int, shard_size_bytes: int) -> int:
    return max(1, math.ceil(text_bytes / shard_size_bytes))


def shard_of(doc_id: str, shards: int) -> int:
    return int.from_bytes(hashlib.blake2b(doc_id.encode(), digest_size=8).digest(), "big") % shards


def assign_shard(entry, source_bytes: dict, shard_size_bytes: int):
    (stage, source), (doc_id, text, kind) = entry
    shards = shard_count(source_bytes[(stage, source)], shard_size_bytes)
    return (stage, source, shard_of(doc_id, shards), shards), (doc_id, text, kind)


def shard_prefix(out_dir: str, stage: str, source: str, index: int, shards: int) -> str:
    return f"{out_dir}/{stage}/{source}-{index:05d}-of-{shards:05d}"


class TokenizeAndWriteShard(beam.DoFn):
    """One grouped shard -> PREFIX.bin/.idx, documents in id order, EOD after each; yields stats."""

    def __init__(self, out_dir: str, tokenizer_path: str, eod_token: str):
        self._out_dir = out_dir
        self._tokenizer_path = tokenizer_path
        self._eod_token = eod_token

    def setup(self):
        self._tokenizer = load_tokenizer(self._tokenizer_path)
        self._eod = token_id(self._tokenizer, self._eod_token)
        self._dtype = dtype_for_vocab(self._tokenizer.get_vocab_size(with_added_tokens=True))

    def process(self, element):
        (stage, source, index, shards), entries = element
        entries = sorted(entries)  # by id: independent of bundle order
        prefix = shard_prefix(self._out_dir, stage, source, index, shards)
        with IndexedDatasetWriter(prefix, self._dtype) as writer:
            for start in range(0, len(entries), ENCODE_BATCH_DOCUMENTS):
                batch = entries[start:start + ENCODE_BATCH_DOCUMENTS]
                for encoding in self._encode(batch):
                    writer.add_document(np.append(np.asarray(encoding.ids, dtype=np.int64), self._eod))
            documents, tokens = writer.finalize()
        text_bytes = sum(len(text.encode("utf-8")) for _, text, _ in entries)
        yield {"stage": stage, "source": source, "shard": index, "shards": shards, "prefix": prefix,
               "documents": documents, "tokens": tokens, "text_bytes": text_bytes}


    def _encode(self, batch):
        """Code that merely mentions ``<|endoftext|>`` (tokenizer code does) must not become a fake
        document boundary, so file text encodes special tokens as plain text. Transcripts are
        rendered with ChatML markers that must stay single ids."""
        self._tokenizer.encode_special_tokens = batch[0][2] != "transcript"
        return self._tokenizer.encode_batch([text for _, text, _ in batch])


class WriteShards(beam.PTransform):
    """Stage entries (from ``stage_entries``) -> shard files, returning one stats dict per shard written."""

    def __init__(self, *, out_dir: str, tokenizer_path: str, eod_token: str, shard_size_bytes: int):
        super().__init__()
        self._out_dir = out_dir
        self._tokenizer_path = tokenizer_path
        self._eod_token = eod_token
        self._shard_size_bytes = shard_size_bytes

    def expand(self, entries):
        source_bytes = (entries
                        | "MeasureText" >> beam.Map(lambda e: (e[0], len(e[1][1].encode("utf-8"))))
                        | "SumPerStageSource" >> beam.CombinePerKey(sum))
        return (
            entries
            | "AssignShards" >> beam.Map(assign_shard, beam.pvalue.AsDict(source_bytes), self._shard_size_bytes)
            | "Progress" >> beam.ParDo(Progress("shards", lambda kv: len(kv[1][1])))
            | "GroupShards" >> beam.GroupByKey()
            | "TokenizeAndWrite" >> beam.ParDo(TokenizeAndWriteShard(self._out_dir, self._tokenizer_path,
                                                                     self._eod_token))
        )


def stats_to_json(stats: dict) -> str:
    return json.dumps(stats, sort_keys=True)
