"""Tokenize and write shards: kept documents into per-stage Megatron indexed datasets.

Design notes: docs/design/pipelines.md, "pipelines/shards.py".
"""

from __future__ import annotations

import contextlib
import hashlib
import heapq
import itertools
import json
import math
import os
import time
import uuid
from collections import defaultdict
from typing import NamedTuple

import apache_beam as beam
import numpy as np
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.transforms.window import GlobalWindows

from codemix.document import Document, split_part_id
from codemix.kinds import document_kind
from codemix.mixtures.indexed_dataset import IndexedDatasetWriter, dtype_for_vocab
from codemix.mixtures.provenance import (
    DOCUMENTS_SCHEMA,
    ParquetStream,
    document_provenance,
    provenance_table,
    write_provenance,
)
from codemix.mixtures.tokenizer import load_tokenizer, token_id
from codemix.pipelines.costs import charge
from codemix.pipelines.progress import Progress, report

# One encode_batch_fast call: enough documents to keep every Rayon thread busy, few enough characters
# that the batch's Encoding objects (measured: about 100 bytes per token, 1M tokens) stay near 100 MB.
ENCODE_BATCH_DOCUMENTS = 256
ENCODE_BATCH_CHARACTERS = 4_000_000
# Text one worker buffers before it tokenizes and writes a sorted run (with its Encoding objects and
# ids, about 3x this in memory at the peak).
RUN_TEXT_BYTES = 32_000_000
# Tokens a merge buffers across all its runs' reads (each run reads at least MIN_READ_TOKENS at a
# time), and tokens it gathers before each write to the shard.
MERGE_BUFFER_TOKENS = 1 << 24
MIN_READ_TOKENS = 1 << 12
MERGE_WRITE_TOKENS = 1 << 18
POSITIONS = 1 << 64
# Read by `tokenizers` at every batch call: anything but false/0/off spreads the batch over its Rayon pool.
TOKENIZERS_PARALLELISM = "TOKENIZERS_PARALLELISM"


def stage_entries(doc: Document, stage_sources: dict[str, list[str]]):
    """((stage, source), (id, text, kind, provenance)) for every stage whose mixture uses this
    document's source; the provenance (``mixtures.provenance``) goes to the shard's sidecar."""
    for stage, sources in stage_sources.items():
        if doc.source in sources:
            yield (stage, doc.source), (doc.id, doc.text, doc.kind, document_provenance(doc))


def utf8_length(text: str) -> int:
    """UTF-8 bytes of ``text``; ``isascii`` is a flag lookup in CPython, so most code is never encoded."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def shard_count(text_bytes: int, shard_size_bytes: int) -> int:
    return max(1, math.ceil(text_bytes / shard_size_bytes))


# Low bits of a part's position that hold its part number: 2^20 parts of one whole at most stay in order.
PART_BITS = 20


def position_of(doc_id: str) -> int:
    """Where a document sorts within its (stage, source): a 64-bit hash of its id; a part of a whole
    (``codemix.document.part_id``) sorts at its whole's hash plus its part number, so a repository's
    long-document parts lie next to each other, in order (across a shard boundary, in consecutive shards)."""
    part = split_part_id(doc_id)
    if part is None:
        return int.from_bytes(hashlib.blake2b(doc_id.encode(), digest_size=8).digest(), "big")
    whole, index = part
    base = int.from_bytes(hashlib.blake2b(whole.encode(), digest_size=8).digest(), "big")
    return (base >> PART_BITS << PART_BITS) | min(index, (1 << PART_BITS) - 1)


def shard_of(doc_id: str, shards: int) -> int:
    """The SFT stage's shard of a transcript (it groups whole transcripts by shard)."""
    return position_of(doc_id) % shards


def shard_of_position(position: int, shards: int) -> int:
    """Shard k of n holds positions [k * 2^64 / n, (k + 1) * 2^64 / n): a contiguous range of every run."""
    return position * shards >> 64


def position_range(index: int, shards: int) -> tuple[int, int]:
    """The positions of shard ``index`` of ``shards``: [low, high)."""
    low = -(-index * POSITIONS // shards)  # the smallest p with p * shards >> 64 == index
    high = -(-(index + 1) * POSITIONS // shards)
    return low, high


def shard_prefix(out_dir: str, stage: str, source: str, index: int, shards: int) -> str:
    return f"{out_dir}/{stage}/{source}-{index:05d}-of-{shards:05d}"


def encode_batches(entries, max_documents: int = ENCODE_BATCH_DOCUMENTS,
                   max_characters: int = ENCODE_BATCH_CHARACTERS):
    """Consecutive runs of ``(id, text, kind, provenance)`` entries to encode together: at most ``max_documents``
    and, past the first document, at most ``max_characters`` characters, never mixing transcripts with
    code (they encode special tokens differently, see ``_Tokenizing._encode``)."""
    batch, size = [], 0
    for entry in entries:
        text, kind = entry[1], entry[2]
        if batch and (len(batch) == max_documents or size + len(text) > max_characters
                      or document_kind(kind).chat != document_kind(batch[0][2]).chat):
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


def encode_in_parallel(workers: int) -> bool:
    """Whether each worker should spread its batches over the tokenizer's Rayon pool.

    Every worker tokenizes its own reads, so with at least as many Beam workers as cores the
    workers keep every core busy on their own, and a Rayon pool of all cores in each of them would
    put cores² threads on the machine: encode on one thread. With fewer (the in-process default
    has one worker) the other cores would sit idle: let Rayon spread each batch over them.
    """
    return workers < available_cores()


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


class _Tokenizing:
    """What tokenizing needs of the tokenizer: ids of a batch with EOD after each document."""

    def _load(self, tokenizer_path: str, eod_token: str, dtype: type[np.integer]) -> None:
        """The tokenizer, whose vocabulary must give ``dtype``: the merge reads the runs in that dtype."""
        self._tokenizer = load_tokenizer(tokenizer_path)
        self._eod = token_id(self._tokenizer, eod_token)
        self._dtype = dtype_for_vocab(self._tokenizer.get_vocab_size(with_added_tokens=True))
        if self._dtype is not dtype:
            raise RuntimeError(f"tokenizer {tokenizer_path} has ids of {np.dtype(self._dtype).name}, but the shards "
                               f"stage was set up for {np.dtype(dtype).name} (another vocabulary size)")
        self._eod_array = np.array([self._eod], dtype=self._dtype)

    def _encode(self, batch) -> tuple[np.ndarray, list[int]]:
        """(every document's ids followed by EOD, back to back; each document's length with its EOD).

        Code that merely mentions ``<|endoftext|>`` (tokenizer code does) must not become a fake
        document boundary, so file text encodes special tokens as plain text. Transcripts are
        rendered with ChatML markers that must stay single ids."""
        self._tokenizer.encode_special_tokens = not document_kind(batch[0][2]).chat
        pieces, lengths = [], []
        for encoding in self._tokenizer.encode_batch_fast([entry[1] for entry in batch]):
            ids = np.array(encoding.ids, dtype=self._dtype)  # fits: the dtype comes from the vocabulary size
            pieces += (ids, self._eod_array)
            lengths.append(ids.size + 1)
        return np.concatenate(pieces), lengths


# A run's index (PREFIX.index): one record per document in (position, id) order, then one record of
# totals, so a shard finds its slice by binary search and reads only that slice's records.
INDEX_RECORD = np.dtype([("position", "<u8"), ("token", "<u8"), ("text", "<u8"), ("meta", "<u8")])


def write_run(prefix: str, ids: list[str], text_bytes: list[int], tokens: np.ndarray, lengths: list[int],
              provenance: list[dict] | None = None, texts: list[str] | None = None) -> None:
    """A run sorted by (position, id): ``PREFIX.tokens`` (the documents' ids back to back), with
    ``texts`` ``PREFIX.text`` (their UTF-8 text back to back), ``PREFIX.meta`` (one JSON line per
    document: id, token count, text bytes, provenance), ``PREFIX.index`` (``INDEX_RECORD``: each
    document's position and its offsets into the other three) and ``PREFIX.json`` (the document
    count), written last, so a run with a .json is whole."""
    with FileSystems.create(f"{prefix}.tokens", compression_type=CompressionTypes.UNCOMPRESSED) as out:
        out.write(tokens.tobytes())
    if texts is not None:
        with FileSystems.create(f"{prefix}.text", compression_type=CompressionTypes.UNCOMPRESSED) as out:
            out.write("".join(texts).encode("utf-8"))
    rows = provenance if provenance is not None else [{}] * len(ids)
    lines = [(json.dumps([doc_id, length, size, row]) + "\n").encode()
             for doc_id, length, size, row in zip(ids, lengths, text_bytes, rows, strict=True)]
    with FileSystems.create(f"{prefix}.meta", compression_type=CompressionTypes.UNCOMPRESSED) as out:
        out.write(b"".join(lines))
    index = np.zeros(len(ids) + 1, dtype=INDEX_RECORD)
    index["position"][:-1] = [position_of(doc_id) for doc_id in ids]
    for field, sizes in (("token", lengths), ("text", text_bytes), ("meta", [len(line) for line in lines])):
        index[field][1:] = np.cumsum(sizes, dtype=np.uint64)
    with FileSystems.create(f"{prefix}.index", compression_type=CompressionTypes.UNCOMPRESSED) as out:
        out.write(index.tobytes())
    with FileSystems.create(f"{prefix}.json", compression_type=CompressionTypes.UNCOMPRESSED) as out:
        out.write(json.dumps({"documents": len(ids)}).encode())


def read_at(path: str, offset: int = 0, size: int | None = None) -> bytes:
    """``size`` bytes of ``path`` from ``offset``, or the rest of it (every read of a run goes through here)."""
    with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as stream:
        stream.seek(offset)
        return stream.read() if size is None else stream.read(size)


def index_records(prefix: str, first: int, count: int) -> np.ndarray:
    data = read_at(f"{prefix}.index", first * INDEX_RECORD.itemsize, count * INDEX_RECORD.itemsize)
    if len(data) != count * INDEX_RECORD.itemsize:
        raise RuntimeError(f"run {prefix}.index is shorter than its .json says")
    return np.frombuffer(data, dtype=INDEX_RECORD)


def first_at_or_after(prefix: str, documents: int, position: int) -> int:
    """The first document of the run whose position is >= ``position``: a binary search that reads
    one 8-byte position per probe (about log2 of the run's documents)."""
    low, high = 0, documents
    while low < high:
        middle = (low + high) // 2
        if int(np.frombuffer(read_at(f"{prefix}.index", middle * INDEX_RECORD.itemsize, 8), "<u8")[0]) < position:
            low = middle + 1
        else:
            high = middle
    return low


class RunSlice(NamedTuple):
    """Documents [first, last) of one run, with where they start in its .tokens and .text and where
    their rows lie in its .meta: all a merge needs to read them without the run's index."""

    prefix: str
    first: int
    last: int
    token: int
    text: int
    meta: tuple[int, int]


def slice_of(prefix: str, records: np.ndarray, first: int, last: int) -> RunSlice:
    """The slice [first, last) from the run's index records (``records[i]`` is document i's)."""
    return RunSlice(prefix, first, last, int(records["token"][first]), int(records["text"][first]),
                    (int(records["meta"][first]), int(records["meta"][last])))


def run_bounds(prefix: str, shard: tuple[int, int]) -> RunSlice:
    """The run's slice of shard ``(index, shards)``, by binary search of its index."""
    documents = json.loads(read_at(f"{prefix}.json"))["documents"]
    low, high = position_range(*shard)
    first = first_at_or_after(prefix, documents, low) if low > 0 else 0
    last = first_at_or_after(prefix, documents, high) if high < POSITIONS else documents
    records = index_records(prefix, first, last - first + 1)
    return slice_of(prefix, records, 0, last - first)._replace(first=first, last=last)


def slices_of_run(run: tuple[tuple[str, str], tuple[str, int]], source_bytes: dict, shard_size_bytes: int):
    """((stage, source), (run prefix, text bytes)) -> ((stage, source, index, shards), RunSlice) for
    every shard the run has documents in, once the source's total text bytes are known. Reads the
    run's whole index once, so a merge reads only its slices' rows and tokens: nothing a shard reads
    grows with the corpus."""
    (stage, source), (prefix, _) = run
    shards = shard_count(source_bytes[(stage, source)], shard_size_bytes)
    records = np.frombuffer(read_at(f"{prefix}.index"), dtype=INDEX_RECORD)
    owners = [int(position) * shards >> 64 for position in records["position"][:-1]]  # shard_of_position
    first = 0
    for index, group in itertools.groupby(owners):
        last = first + sum(1 for _ in group)
        yield (stage, source, index, shards), slice_of(prefix, records, first, last)
        first = last


def read_run(prefix: str, dtype: np.dtype, shard: tuple[int, int] = (0, 1), read_tokens: int = MIN_READ_TOKENS):
    """The run's documents of shard ``(index, shards)``, in order (``read_slice``)."""
    yield from read_slice(run_bounds(prefix, shard), dtype, read_tokens)


def read_slice(part: RunSlice, dtype: np.dtype, read_tokens: int = MIN_READ_TOKENS):
    """A run's slice, in order, as ((position, id), token ids, text bytes, provenance, text or None if
    the run kept none): its meta rows, then its tokens front to back ``read_tokens`` at a time (or one
    document, if longer), reopening the files for each read so a merge of many runs holds no file open."""
    if part.first >= part.last:
        return
    prefix = part.prefix
    rows = [json.loads(line) for line in read_at(f"{prefix}.meta", part.meta[0], part.meta[1] - part.meta[0]).splitlines()]
    if len(rows) != part.last - part.first:
        raise RuntimeError(f"run {prefix}.meta does not hold the rows its index says")
    offset, text_offset = part.token, part.text
    itemsize, start = np.dtype(dtype).itemsize, 0
    while start < len(rows):
        end, size = start, 0
        while end < len(rows) and (end == start or size + rows[end][1] <= read_tokens):
            size += rows[end][1]
            end += 1
        piece = np.frombuffer(read_at(f"{prefix}.tokens", offset * itemsize, size * itemsize), dtype=dtype)
        if piece.size != size:
            raise RuntimeError(f"run {prefix}.tokens is shorter than its index says")
        texts = read_texts(prefix, text_offset, [row[2] for row in rows[start:end]])
        at = 0
        for i in range(start, end):
            doc_id, length, text_bytes, provenance = rows[i]
            yield (position_of(doc_id), doc_id), piece[at:at + length], text_bytes, provenance, texts[i - start]
            at += length
        offset, text_offset = offset + size, text_offset + sum(row[2] for row in rows[start:end])
        start = end


def read_texts(prefix: str, offset: int, sizes: list[int]) -> list[str | None]:
    """The texts of consecutive documents of a run from byte ``offset`` of ``PREFIX.text`` (None each
    when the run kept no text)."""
    if not FileSystems.exists(f"{prefix}.text"):
        return [None] * len(sizes)
    with FileSystems.open(f"{prefix}.text", compression_type=CompressionTypes.UNCOMPRESSED) as stream:
        stream.seek(offset)
        data = stream.read(sum(sizes))
    texts, at = [], 0
    for size in sizes:
        texts.append(data[at:at + size].decode("utf-8"))
        at += size
    return texts


class TokenizeToRuns(_Tokenizing, beam.DoFn):
    """((stage, source), (id, text, kind)) -> ((stage, source), (run prefix, text bytes)) for every
    sorted run it writes.

    Buffers up to ``run_text_bytes`` of text, then, source by source, sorts by (position, id),
    tokenizes in batches (``encode_batch_fast``: the ids of ``encode_batch`` without the offsets,
    about 30% less CPU) and writes one run; the rest of a bundle is flushed at its end.
    """

    def __init__(self, runs_dir: str, tokenizer_path: str, eod_token: str, dtype: type[np.integer], *,
                 parallel: bool, run_text_bytes: int = RUN_TEXT_BYTES, keep_text: bool = False):
        self._runs_dir, self._tokenizer_path, self._eod_token = runs_dir, tokenizer_path, eod_token
        self._parallel, self._run_text_bytes, self._keep_text = parallel, run_text_bytes, keep_text
        self._expected_dtype = dtype

    def setup(self):
        self._load(self._tokenizer_path, self._eod_token, self._expected_dtype)

    def start_bundle(self):
        self._buffer, self._buffered = defaultdict(list), 0

    def process(self, element):
        key, entry = element
        self._buffer[key].append(entry)
        self._buffered += len(entry[1])
        if self._buffered >= self._run_text_bytes:
            yield from self._flush()

    def finish_bundle(self):
        for output in self._flush():
            yield GlobalWindows.windowed_value(output)

    def _flush(self):
        buffer, self._buffer, self._buffered = self._buffer, defaultdict(list), 0
        with tokenizer_parallelism(self._parallel):
            for key in sorted(buffer):
                entries = sorted(buffer.pop(key), key=lambda entry: (position_of(entry[0]), entry[0]))
                pieces, lengths = [], []
                for batch in encode_batches(entries):
                    tokens, batch_lengths = self._encode_charged(batch)
                    report("tokenized", len(batch), sum(len(entry[1]) for entry in batch))
                    pieces.append(tokens)
                    lengths += batch_lengths
                stage, source = key
                prefix = f"{self._runs_dir}/{stage}/{source}/{uuid.uuid4().hex}"
                text_bytes = [utf8_length(entry[1]) for entry in entries]
                write_run(prefix, [entry[0] for entry in entries], text_bytes, np.concatenate(pieces), lengths,
                          [entry[3] for entry in entries], [entry[1] for entry in entries] if self._keep_text else None)
                yield key, (prefix, sum(text_bytes))


    def _encode_charged(self, batch) -> tuple[np.ndarray, list[int]]:
        """``_encode``, its CPU charged by language (``pipelines.costs``): a batch of one language is timed
        whole; one of several is encoded language by language, each timed, and put back in order (the ids
        are the same: each document is encoded on its own). Rayon's threads do the work when ``parallel``:
        then the process's CPU during the call is the batch's."""
        clock = time.process_time_ns if self._parallel else time.thread_time_ns
        languages = [entry[3].get("language") or "" for entry in batch]
        groups: dict[str, list[int]] = {}
        for index, language in enumerate(languages):
            groups.setdefault(language, []).append(index)
        if len(groups) == 1:
            start = clock()
            encoded = self._encode(batch)
            charge(languages[0], clock() - start, sum(utf8_length(entry[1]) for entry in batch))
            return encoded
        pieces: list[np.ndarray | None] = [None] * len(batch)
        for language, indexes in groups.items():
            start = clock()
            tokens, lengths = self._encode([batch[i] for i in indexes])
            charge(language, clock() - start, sum(utf8_length(batch[i][1]) for i in indexes))
            for i, piece in zip(indexes, np.split(tokens, np.cumsum(lengths)[:-1])):
                pieces[i] = piece
        return np.concatenate(pieces), [piece.size for piece in pieces]


def docs_path(out_dir: str, stage: str, source: str, index: int, shards: int) -> str:
    """Where shard ``index`` of ``shards``' documents are published: row i is the shard's document i."""
    return f"{out_dir}/{stage}/docs/{source}-{index:05d}-of-{shards:05d}.parquet"


class ShardSink:
    """What one merge writes: the shard's .bin/.idx, its provenance sidecar and, given ``docs``, its
    documents with their text as Parquet; buffers ``MERGE_WRITE_TOKENS`` between writes. The .idx
    that commits the shard is written last."""

    def __init__(self, prefix: str, dtype: np.dtype, docs: str | None):
        self._prefix, self._writer = prefix, IndexedDatasetWriter(prefix, dtype)
        self._docs = ParquetStream(docs, DOCUMENTS_SCHEMA) if docs else None
        self.rows, self.lengths, self.text_bytes = [], [], 0
        self._pieces, self._texts, self._pending, self._written, self._written_tokens = [], [], 0, 0, 0

    def add(self, tokens: np.ndarray, text_bytes: int, provenance: dict, text: str | None) -> None:
        self._pieces.append(tokens)
        self.rows.append(provenance)
        self.lengths.append(tokens.size)
        self._texts.append(text)
        self.text_bytes += text_bytes
        self._pending += tokens.size
        if self._pending >= MERGE_WRITE_TOKENS:
            self._flush()

    def _flush(self) -> None:
        if not self._pieces:
            return
        lengths = self.lengths[self._written:]
        self._writer.add_documents(np.concatenate(self._pieces), lengths)
        if self._docs:
            self._docs.write(provenance_table(self._prefix, self.rows[self._written:], lengths, ends_with_eod=True,
                                              first=(self._written, self._written_tokens), texts=self._texts))
        self._written, self._written_tokens = len(self.lengths), self._written_tokens + sum(lengths)
        self._pieces, self._texts, self._pending = [], [], 0

    def finish(self) -> tuple[int, int]:
        """Flush, write the sidecar and the documents, then commit the shard: (documents, tokens)."""
        self._flush()
        write_provenance(self._prefix, provenance_table(self._prefix, self.rows, self.lengths, ends_with_eod=True))
        if self._docs:
            self._docs.commit()
        return self._writer.finalize()

    def abort(self) -> None:
        self._writer.abort()
        if self._docs:
            self._docs.abort()


class MergeRunsIntoShard(beam.DoFn):
    """(shard key, [RunSlice]) -> PREFIX.bin/.idx with the shard's slice of every run
    merged in (position, id) order, its provenance sidecar (``mixtures.provenance``) and, with
    ``docs``, its documents as Parquet (``docs_path``); yields the shard's stats. A range no document
    hashed into writes nothing (a few large documents can leave one empty). It only copies ids, so it
    needs their ``dtype``, not the tokenizer (whose load costs each worker ~0.05 CPU s)."""

    def __init__(self, out_dir: str, dtype: type[np.integer], docs: bool = False):
        self._out_dir, self._dtype, self._docs = out_dir, dtype, docs

    def process(self, element):
        (stage, source, index, shards), slices = element
        slices = sorted(slices)
        read_tokens = max(MIN_READ_TOKENS, MERGE_BUFFER_TOKENS // max(1, len(slices)))
        merged = heapq.merge(*(read_slice(part, self._dtype, read_tokens) for part in slices),
                             key=lambda document: document[0])
        first = next(merged, None)
        if first is None:  # no document hashed into this range: megatron cannot open an empty .bin
            return
        prefix = shard_prefix(self._out_dir, stage, source, index, shards)
        sink = ShardSink(prefix, self._dtype, docs_path(self._out_dir, stage, source, index, shards)
                         if self._docs else None)
        try:
            for _, tokens, text_bytes, provenance, text in itertools.chain([first], merged):
                sink.add(tokens, text_bytes, provenance, text)
            documents, tokens = sink.finish()
        except BaseException:
            sink.abort()
            raise
        report("merged", 1)
        yield {"stage": stage, "source": source, "shard": index, "shards": shards, "prefix": prefix,
               "documents": documents, "tokens": tokens, "text_bytes": sink.text_bytes}


class WriteShards(beam.PTransform):
    """Stage entries (from ``stage_entries``) -> shard files, returning one stats dict per shard written.
    With ``docs``, each shard's documents are published too (``docs_path``), text and provenance.
    ``vocab_size`` (with added tokens; a build has it from its tokenizer stage) picks the ids' dtype;
    without it the tokenizer is loaded here to read it."""

    def __init__(self, *, out_dir: str, runs_dir: str, tokenizer_path: str, eod_token: str, shard_size_bytes: int,
                 workers: int = 1, run_text_bytes: int = RUN_TEXT_BYTES, docs: bool = False,
                 vocab_size: int | None = None):
        super().__init__()
        self._out_dir, self._runs_dir = out_dir, runs_dir
        self._tokenizer_path = tokenizer_path
        self._eod_token = eod_token
        if vocab_size is None:
            vocab_size = load_tokenizer(tokenizer_path).get_vocab_size(with_added_tokens=True)
        self._dtype = dtype_for_vocab(vocab_size)
        self._shard_size_bytes = shard_size_bytes
        self._parallel, self._run_text_bytes, self._docs = encode_in_parallel(workers), run_text_bytes, docs

    def expand(self, entries):
        runs = (
            entries
            | "Progress" >> beam.ParDo(Progress("shards", lambda kv: len(kv[1][1])))
            | "TokenizeToRuns" >> beam.ParDo(TokenizeToRuns(self._runs_dir, self._tokenizer_path, self._eod_token,
                                                            self._dtype, parallel=self._parallel, keep_text=self._docs,
                                                            run_text_bytes=self._run_text_bytes))
        )
        source_bytes = runs | "SourceBytes" >> beam.Map(lambda run: (run[0], run[1][1])) | beam.CombinePerKey(sum)
        return (
            runs
            | "SliceRuns" >> beam.FlatMap(slices_of_run, beam.pvalue.AsDict(source_bytes), self._shard_size_bytes)
            | "GroupSlicesByShard" >> beam.GroupByKey()  # one worker per shard; it gets only the runs it needs
            | "MergeRuns" >> beam.ParDo(MergeRunsIntoShard(self._out_dir, self._dtype, self._docs))
        )


def stats_to_json(stats: dict) -> str:
    return json.dumps(stats, sort_keys=True)
