"""Shape the SFT stage: transcripts into loss-masked samples, written as paired Megatron shards.

Each transcript of the stage's sources becomes one or more samples (``mixtures.sft.sft_samples``:
outcome policy, malformed tool calls removed, split at turn boundaries with a summary turn). Samples
go to ``sft/SOURCE-SSSSS-of-NNNNN.bin/.idx`` with the aligned ``-loss_mask`` dataset and the
provenance sidecar (one row per sample) beside them, and the shard's exports for other trainers
(``mixtures.sft_export``: chat messages, packed sequences);
shard assignment and order follow the same id-hash rule as the other stages, so the output is
byte-identical whatever the worker count. What shaping drops is counted by source, format and reason,
beside how many transcripts of each format it read and how many gave no sample at all.
"""

from __future__ import annotations

import json
from collections import Counter

import apache_beam as beam

from codemix.document import Document, packed_document, unpacked_document
from codemix.kinds import document_kind
from codemix.mixtures.indexed_dataset import dtype_for_vocab
from codemix.mixtures.provenance import document_provenance, provenance_table, write_provenance
from codemix.mixtures.sft import SFTConfig, SFTSample, masked_calls, sft_samples, summary_origins
from codemix.mixtures.sft_export import write_sft_exports
from codemix.mixtures.sft_shards import write_sft_shard
from codemix.mixtures.tokenizer import load_tokenizer
from codemix.pipelines.shards import shard_count, shard_of, shard_prefix
from codemix.pipelines.spill import grouping

SHAPING = "shaping"


def sft_member(doc: Document, sources: list[str]):
    """(source, (UTF-8 bytes, the transcript packed)) for the stage's transcripts: packed because it
    is shuffled (and held for the byte totals), which FnApiRunner does in its driver's memory."""
    if doc.source in sources and document_kind(doc.kind).chat:
        yield doc.source, (len(doc.text.encode()), packed_document(doc))


def assign_sft_shard(entry, source_bytes: dict, shard_size_bytes: int):
    source, (_, packed) = entry
    shards = shard_count(source_bytes[source], shard_size_bytes)
    return (source, shard_of(packed[1].id, shards), shards), packed


def sample_provenance(doc: Document, samples: list[SFTSample]) -> list[dict]:
    """One provenance row per sample of the transcript ``doc``: which sample, and which turns."""
    base = document_provenance(doc)
    return [{**base, "sample": i, "turns_start": sample.turns[0], "turns_end": sample.turns[1],
             "summary": sample.summary} for i, sample in enumerate(samples)]


class WriteSFTShard(beam.DoFn):
    """One shard's transcripts -> SFT samples -> PREFIX and PREFIX-loss_mask; yields shard stats."""

    def __init__(self, stage: str, out_dir: str, tokenizer_path: str, sequence_length: int, config: SFTConfig):
        self._stage = stage
        self._out_dir = out_dir
        self._tokenizer_path = tokenizer_path
        self._sequence_length = sequence_length
        self._config = config

    def setup(self):
        self._tokenizer = load_tokenizer(self._tokenizer_path)
        self._dtype = dtype_for_vocab(self._tokenizer.get_vocab_size(with_added_tokens=True))

    def process(self, element):
        (source, index, shards), packed = element
        samples, rows, dropped, masked, text_bytes = [], [], Counter(), Counter(), 0
        read, without = Counter(), Counter()  # transcripts per format, and those that gave no sample
        for doc in sorted(map(unpacked_document, packed), key=lambda d: d.id):  # id order: independent of bundles
            text_bytes += len(doc.text.encode())
            doc_samples, reasons = sft_samples(doc, self._tokenizer, self._sequence_length, self._config)
            samples += doc_samples
            rows += sample_provenance(doc, doc_samples)
            fmt = doc.metadata.get("format", "")
            read[fmt] += 1
            without[fmt] += not doc_samples
            dropped.update({(fmt, reason): n for reason, n in reasons.items()})
            masked.update({(fmt, reason): n for reason, n in masked_calls(doc.metadata.get("messages") or []).items()})
        for (fmt, reason), n in sorted(dropped.items()):
            yield beam.pvalue.TaggedOutput(SHAPING, json.dumps(
                {"stage": self._stage, "source": source, "format": fmt, "reason": reason, "count": n}, sort_keys=True))
        for (fmt, reason), n in sorted(masked.items()):  # shown as context, never trained (not a drop either)
            yield beam.pvalue.TaggedOutput(SHAPING, json.dumps(
                {"stage": self._stage, "source": source, "format": fmt, "masked": reason, "count": n}, sort_keys=True))
        for fmt, n in sorted(read.items()):  # what the drops are out of (no reason: not a drop)
            yield beam.pvalue.TaggedOutput(SHAPING, json.dumps(
                {"stage": self._stage, "source": source, "format": fmt, "transcripts": n,
                 "without_samples": without[fmt]}, sort_keys=True))
        if samples:  # megatron cannot open an empty .bin
            prefix = shard_prefix(self._out_dir, self._stage, source, index, shards)
            write_provenance(prefix, provenance_table(prefix, rows, [s.tokens.size for s in samples],
                                                      ends_with_eod=False))  # before the .idx commits the shard
            write_sft_exports(prefix, rows, samples, self._config.reasoning, self._sequence_length)
            written, tokens = write_sft_shard(prefix, samples, self._dtype)
            yield {"stage": self._stage, "source": source, "shard": index, "shards": shards, "prefix": prefix,
                   "documents": written, "tokens": tokens, "text_bytes": text_bytes,
                   "summaries": summary_origins(samples)}


class ShapeSFT(beam.PTransform):
    """Documents -> (shard stats dicts, shaping records as JSON lines)."""

    def __init__(self, *, stage: str, sources: list[str], out_dir: str, tokenizer_path: str, sequence_length: int,
                 config: SFTConfig, shard_size_bytes: int, spill_dir: str | None = None):
        super().__init__()
        self._sources = sources
        self._spill_dir = spill_dir  # group shards' transcripts through run files there (pipelines.spill)
        self._write = WriteSFTShard(stage, out_dir, tokenizer_path, sequence_length, config)
        self._shard_size_bytes = shard_size_bytes

    def expand(self, inputs):
        # Two reads of the same documents, as for the filter: shards are assigned once every source's
        # size is known (a side input), and transcripts from the read that sized them would wait for it.
        documents, sizing = (inputs["docs"], inputs["sizes"]) if isinstance(inputs, dict) else (inputs, inputs)
        members = documents | "SelectTranscripts" >> beam.FlatMap(sft_member, self._sources)
        source_bytes = (sizing
                        | "SizeTranscripts" >> beam.FlatMap(sft_member, self._sources)
                        | "MeasureTranscripts" >> beam.MapTuple(lambda source, member: (source, member[0]))
                        | "SumPerSource" >> beam.CombinePerKey(sum))
        written = (
            members
            | "AssignSFTShards" >> beam.Map(assign_sft_shard, beam.pvalue.AsDict(source_bytes),
                                            self._shard_size_bytes)
            | "GroupSFTShards" >> grouping(self._spill_dir, "sft_shards")
            | "WriteSFTShards" >> beam.ParDo(self._write).with_outputs(SHAPING, main="stats")
        )
        return written.stats, written[SHAPING]
