"""Tokenize and write shards: kept documents into per-stage Megatron indexed datasets.

Each (stage, source) gets ``ceil(text bytes / shard_size_bytes)`` shards; a document goes to the
shard picked by its id's hash, and a shard's documents are written in id order. Neither depends on
worker count or bundle boundaries, so the same inputs give byte-identical shards on any runner.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os

import apache_beam as beam
import numpy as np

from codemix.document import Document
from mixtures.indexed_dataset import IndexedDatasetWriter, dtype_for_vocab
from mixtures.tokenizer import load_tokenizer, token_id
from pipelines.progress import Progress

# One encode_batch_fast call: enough documents to keep every Rayon thread busy, few enough characters
# that the batch's Encoding objects (measured: about 100 bytes per token, 1M tokens) stay near 100 MB.
ENCODE_BATCH_DOCUMENTS = 256
ENCODE_BATCH_CHARACTERS = 4_000_000
# Read by `tokenizers` at every batch call: anything but false/0/off spreads the batch over its Rayon pool.
TOKENIZERS_PARALLELISM = "TOKENIZERS_PARALLELISM"


def stage_entries(doc: Document, stage_sources: dict[str, list[str]]):
    """((stage, source), (id, text, kind)) for every stage whose mixture uses this document's source."""
    for stage, sources in stage_sources.items():
        if doc.source in sources:
            yield (stage, doc.source), (doc.id, doc.text, doc.kind)


def utf8_length(text: str) -> int:
    """UTF-8 bytes of ``text``; ``isascii`` is a flag lookup in CPython, so most code is never encoded."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


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


def encode_batches(entries, max_documents: int = ENCODE_BATCH_DOCUMENTS,
                   max_characters: int = ENCODE_BATCH_CHARACTERS):
    """Consecutive runs of ``(id, text, kind)`` entries to encode together: at most ``max_documents``
    and, past the first document, at most ``max_characters`` characters, never mixing transcripts with
    code (they encode special tokens differently, see ``TokenizeAndWriteShard._encode``)."""
    batch, size = [], 0
    for entry in entries:
        text, kind = entry[1], entry[2]
        if batch and (len(batch) == max_documents or size + len(text) > max_characters
                      or (kind == "transcript") != (batch[0][2] == "transcript")):
            yield batch
            batch, size = [], 0
        batch.append(entry)
        size += len(text)
    if batch:
        yield batch


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))  # what this process may run on (containers, taskset)
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def encode_in_parallel(shards: int) -> bool:
    """Whether a shard of a (stage, source) with ``shards`` shards should use the tokenizer's Rayon pool.

    Beam runs about one worker process per core (``--direct_num_workers``, Dataflow's process per
    vCPU) and a shard is one worker's work. With at least as many shards as cores the workers keep
    every core busy on their own, and a Rayon pool of all cores in each of them would put cores²
    threads on the machine: encode on one thread. With fewer (a source under ``shard_size_bytes``
    is a single shard) the other cores would sit idle: let Rayon spread each batch over them.
    """
    return shards < available_cores()


@contextlib.contextmanager
def tokenizer_parallelism(parallel: bool):
    """``TOKENIZERS_PARALLELISM=false`` for the block unless ``parallel``, then as before; a value the
    user set wins. Only speed depends on it: the ids are the same either way."""
    if parallel or TOKENIZERS_PARALLELISM in os.environ:
        yield
        return
    os.environ[TOKENIZERS_PARALLELISM] = "false"
    try:
        yield
    finally:
        os.environ.pop(TOKENIZERS_PARALLELISM, None)


class TokenizeAndWriteShard(beam.DoFn):
    """One grouped shard -> PREFIX.bin/.idx, documents in id order, EOD after each; yields stats.

    Tokenizing is nearly all the work: ``encode_batch_fast`` (the ids of ``encode_batch`` without the
    character offsets no one reads here, about 30% less CPU) spreads each batch over the tokenizer's
    Rayon threads, and a batch's ids go to the writer as one array, one ``write`` per batch.

    Every Beam worker process has its own Rayon pool, so whether to use it is decided per shard
    (``encode_in_parallel``): on 2 cores, 8 shards, 2 workers, encoding on one thread per worker
    took 52 s where Rayon pools of 2 threads in both took 68 s (bench/RESULTS.md, "Tokenize and write").
    """

    def __init__(self, out_dir: str, tokenizer_path: str, eod_token: str):
        self._out_dir = out_dir
        self._tokenizer_path = tokenizer_path
        self._eod_token = eod_token

    def setup(self):
        self._tokenizer = load_tokenizer(self._tokenizer_path)
        self._eod = token_id(self._tokenizer, self._eod_token)
        self._dtype = dtype_for_vocab(self._tokenizer.get_vocab_size(with_added_tokens=True))
        self._eod_array = np.array([self._eod], dtype=self._dtype)

    def process(self, element):
        (stage, source, index, shards), entries = element
        entries = sorted(entries)  # by id: independent of bundle order
        prefix = shard_prefix(self._out_dir, stage, source, index, shards)
        text_bytes = 0
        with tokenizer_parallelism(encode_in_parallel(shards)), IndexedDatasetWriter(prefix, self._dtype) as writer:
            for batch in encode_batches(entries):
                writer.add_documents(*self._encode(batch))
                text_bytes += sum(utf8_length(text) for _, text, _ in batch)
            documents, tokens = writer.finalize()
        yield {"stage": stage, "source": source, "shard": index, "shards": shards, "prefix": prefix,
               "documents": documents, "tokens": tokens, "text_bytes": text_bytes}

    def _encode(self, batch) -> tuple[np.ndarray, list[int]]:
        """(every document's ids followed by EOD, back to back; each document's length with its EOD).

        Code that merely mentions ``<|endoftext|>`` (tokenizer code does) must not become a fake
        document boundary, so file text encodes special tokens as plain text. Transcripts are
        rendered with ChatML markers that must stay single ids."""
        self._tokenizer.encode_special_tokens = batch[0][2] != "transcript"
        pieces, lengths = [], []
        for encoding in self._tokenizer.encode_batch_fast([text for _, text, _ in batch]):
            ids = np.array(encoding.ids, dtype=self._dtype)  # fits: the dtype comes from the vocabulary size
            pieces += (ids, self._eod_array)
            lengths.append(ids.size + 1)
        return np.concatenate(pieces), lengths


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
                        | "MeasureText" >> beam.Map(lambda e: (e[0], utf8_length(e[1][1])))
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
