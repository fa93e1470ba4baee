"""What one finished ``mix build`` says about its data, read back from the files it wrote.

Design notes: docs/design/dashboards.md, "dashboards/builds.py".
"""

from __future__ import annotations

import collections
import json
import os
import posixpath
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

# Document length bins in UTF-8 bytes: 1 B to 100 MB, ten log-spaced bins per decade.
LENGTH_EDGES = 10.0 ** np.arange(0.0, 8.05, 0.1)
BATCH_ROWS = 2048
UNKNOWN = "(none)"
DOC_STEPS = (("crawled", "crawl"), ("filtered", "filter"), ("deduplicated", "dedup"))


@dataclass(slots=True, kw_only=True)
class DocScan:
    """Documents and bytes per key (a tuple of column values), and byte-length histograms per source."""

    docs: collections.Counter = field(default_factory=collections.Counter)
    bytes: collections.Counter = field(default_factory=collections.Counter)
    lengths: dict[str, np.ndarray] = field(default_factory=dict)

    def per(self, index: int, counter: str = "docs") -> collections.Counter:
        """Sum of ``docs`` or ``bytes`` over keys, grouped by the key's ``index``-th column."""
        totals: collections.Counter = collections.Counter()
        for key, n in getattr(self, counter).items():
            totals[key[index]] += n
        return totals


@dataclass(slots=True, kw_only=True)
class BuildSummary:
    """Everything the data-pipeline sections plot for one build. Steps map to ``{source: value}``."""

    name: str
    path: str
    manifest: dict
    funnel_docs: dict[str, dict[str, int]]
    funnel_bytes: dict[str, dict[str, int]]
    funnel_tokens: dict[str, dict[str, float]]
    dropped: collections.Counter  # (stage, reason, source) -> documents
    redactions: collections.Counter  # (type, source) -> values replaced
    duplicates: collections.Counter  # (method, source) -> documents
    quarantined: collections.Counter  # source -> records
    kept: DocScan  # keys (source, language, license)
    crawled_lengths: dict[str, np.ndarray]
    messages: list[str]
    quality: dict[str, dict[str, dict]] = field(default_factory=dict)  # source -> language -> quality_summary


def _files(pattern: str) -> list[str]:
    from codemix.pipelines import ledger  # Beam's FileSystems: local, gs:// and s3:// alike

    return ledger.matched_files(pattern)


def _open(path: str):
    from apache_beam.io.filesystems import FileSystems

    return FileSystems.open(path)


def _batches(pattern: str, columns: list[str]):
    """Record batches of ``columns`` (those the file has; missing ones come back as empty strings)."""
    for path in _files(pattern):
        with _open(path) as handle:
            parquet = pq.ParquetFile(handle)
            present = [c for c in columns if c in parquet.schema_arrow.names]
            for batch in parquet.iter_batches(batch_size=BATCH_ROWS, columns=present):
                missing = {c: pa.array([""] * batch.num_rows) for c in columns if c not in present}
                yield {c: batch.column(c) if c in present else missing[c] for c in columns}


def _strings(array) -> list[str]:
    return [UNKNOWN if v in (None, "") else v for v in array.to_pylist()]


def scan_documents(pattern: str, keys: tuple[str, ...] = ("source",)) -> DocScan:
    """Documents and UTF-8 bytes per ``keys`` tuple, and length histograms (``LENGTH_EDGES``) per source."""
    scan = DocScan()
    for batch in _batches(pattern, ["source", "text", *[k for k in keys if k != "source"]]):
        lengths = pc.fill_null(pc.binary_length(batch["text"]), 0)
        table = pa.table({**{k: batch[k] for k in keys}, "bytes": lengths})
        for row in table.group_by(list(keys)).aggregate([("bytes", "sum"), ("bytes", "count")]).to_pylist():
            row_key = tuple(row[k] or UNKNOWN for k in keys)
            scan.docs[row_key] += row["bytes_count"]
            scan.bytes[row_key] += row["bytes_sum"] or 0
        nbytes = lengths.to_numpy(zero_copy_only=False)
        sources = np.array(_strings(batch["source"]), dtype=object)
        for source in set(sources.tolist()):
            # clipped into the edges so a document of 0 bytes or over 100 MB is still counted
            counts, _ = np.histogram(np.clip(nbytes[sources == source], 1, LENGTH_EDGES[-1]), bins=LENGTH_EDGES)
            scan.lengths[source] = scan.lengths.get(source, 0) + counts
    return scan


def count_columns(pattern: str, columns: list[str], weight: str | None = None) -> collections.Counter:
    """Rows (or the sum of ``weight``) per tuple of ``columns`` values across Parquet files."""
    counts: collections.Counter = collections.Counter()
    for batch in _batches(pattern, columns + ([weight] if weight else [])):
        weights = batch[weight].to_pylist() if weight else [1] * len(batch[columns[0]])
        for key, n in zip(zip(*[_strings(batch[c]) for c in columns]), weights):
            counts[key] += n or 0
    return counts


def read_jsonl(pattern: str) -> list[dict]:
    rows = []
    for path in _files(pattern):
        with _open(path) as handle:  # lines end at "\n" only: U+2028, U+2029, U+0085 may sit inside JSON strings
            rows += [json.loads(line) for line in handle.read().decode("utf-8").split("\n") if line.strip()]
    return rows


def shard_totals(out: str, manifest: dict) -> dict[str, dict[str, dict[str, float]]]:
    """``{stage: {source: {documents, text_bytes, tokens}}}`` from the shard stats, else the manifest."""
    totals: dict = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.Counter()))
    from codemix.pipelines.manifest import BuildLayout  # Beam's FileSystems, loaded only when a build is read

    rows = read_jsonl(f"{BuildLayout(out).stage_dir('shards')}/stats*.jsonl")
    for row in rows:
        for key in ("documents", "text_bytes", "tokens"):
            totals[row["stage"]][row["source"]][key] += row.get(key, 0)
    if not rows:  # older builds: the manifest has tokens per source but not documents or bytes
        for stage, info in manifest.get("stages", {}).items():
            for source, tokens in info.get("tokens_per_source", {}).items():
                totals[stage][source]["tokens"] += tokens
    return {stage: {source: dict(values) for source, values in by_source.items()} for stage, by_source in totals.items()}


def stage_documents(out: str, manifest: dict) -> dict[str, dict[str, int]]:
    """``{stage: {source: documents in its shards}}`` (``shard_totals``)."""
    return {stage: {source: int(values.get("documents", 0)) for source, values in by_source.items()}
            for stage, by_source in shard_totals(out, manifest).items()}


def tokens_per_byte(shards: dict) -> dict[str, float]:
    """Each source's tokens per UTF-8 byte in its shards: what turns earlier steps' bytes into tokens."""
    tokens: collections.Counter = collections.Counter()
    nbytes: collections.Counter = collections.Counter()
    for by_source in shards.values():
        for source, values in by_source.items():
            tokens[source] += values.get("tokens", 0)
            nbytes[source] += values.get("text_bytes", 0)
    return {s: tokens[s] / nbytes[s] for s in tokens if nbytes[s]}


def build_funnel(scans: dict[str, DocScan], read: dict[str, int], shards: dict) -> tuple[dict, dict, dict]:
    """Documents, bytes and tokens per source at each step: read, crawled, filtered, deduplicated, shards."""
    ratio = tokens_per_byte(shards)
    docs: dict[str, dict] = {"read": read}
    nbytes: dict[str, dict] = {}
    tokens: dict[str, dict] = {}
    for step, scan in scans.items():
        docs[step] = dict(scan.per(0))
        nbytes[step] = dict(scan.per(0, "bytes"))
        tokens[step] = {s: n * ratio[s] for s, n in nbytes[step].items() if s in ratio}
    for stage, by_source in shards.items():
        step = f"shards: {stage}"
        docs[step] = {s: int(v["documents"]) for s, v in by_source.items() if "documents" in v}
        nbytes[step] = {s: int(v["text_bytes"]) for s, v in by_source.items() if "text_bytes" in v}
        tokens[step] = {s: v["tokens"] for s, v in by_source.items()}
    return docs, nbytes, tokens


def staleness(out: str) -> list[str]:
    """A note when a local build's work files are newer than its manifest: a rerun in progress (or
    one that failed), so the ledgers and the manifest may disagree."""
    manifest = os.path.join(out, "manifest.json")
    if "://" in out or not os.path.exists(manifest):
        return []
    written = os.path.getmtime(manifest)
    for directory, _, names in os.walk(os.path.join(out, "work")):
        for name in names:
            try:
                newer = os.path.getmtime(os.path.join(directory, name)) > written
            except OSError:  # a temporary file the running build just removed
                newer = True
            if newer:
                return [(f"{out}: files under work/ are newer than manifest.json; a build may be running or "
                         f"have failed, so these numbers may be partial")]
    return []


def load_build(out: str) -> BuildSummary:
    """Read one build directory. A missing manifest raises ``FileNotFoundError`` naming the path."""
    out = out.rstrip("/")
    if not _files(f"{out}/manifest.json"):
        raise FileNotFoundError(f"{out}/manifest.json not found: is {out} a finished `mix build --out` directory?")
    with _open(f"{out}/manifest.json") as handle:
        manifest = json.loads(handle.read().decode("utf-8"))
    from codemix.pipelines.manifest import BuildLayout  # Beam's FileSystems, loaded only when a build is read
    from codemix.pipelines.quality_report import quality_summary

    layout = BuildLayout(out)  # each stage's committed attempt: what the build counted
    work = layout.work
    scans = {step: scan_documents(layout.docs(stage)) for step, stage in DOC_STEPS[:2]}
    kept = scan_documents(layout.docs("dedup"), ("source", "language", "license"))
    scans["deduplicated"] = kept
    dropped = count_columns(layout.dropped("crawl"), ["stage", "reason", "source"]) + count_columns(
        layout.dropped("filter"), ["stage", "reason", "source"])
    quarantined = collections.Counter(row.get("source", UNKNOWN) for row in read_jsonl(f"{out}/quarantine/*.jsonl"))
    crawl_dropped = collections.Counter()
    for (stage, _, source), n in dropped.items():
        crawl_dropped[source] += n if stage == "crawl" else 0
    crawled = scans["crawled"].per(0)
    read = {s: crawled[s] + crawl_dropped[s] + quarantined[s] for s in set(crawled) | set(crawl_dropped)
            | set(quarantined)}
    funnel_docs, funnel_bytes, funnel_tokens = build_funnel(scans, read, shard_totals(out, manifest))
    messages = ([] if crawled else [f"{out}: no crawled documents found under {work}/crawl"]) + staleness(out)
    return BuildSummary(
        name=manifest.get("spec_name") or posixpath.basename(out), path=out, manifest=manifest,
        funnel_docs=funnel_docs, funnel_bytes=funnel_bytes, funnel_tokens=funnel_tokens, dropped=dropped,
        redactions=count_columns(f"{layout.stage_dir('crawl')}/redactions*.parquet", ["type", "source"], "count"),
        duplicates=count_columns(f"{layout.stage_dir('dedup')}/duplicates*.parquet", ["method", "source"]),
        quarantined=quarantined, kept=kept, crawled_lengths=scans["crawled"].lengths, messages=messages,
        quality=quality_summary(f"{layout.stage_dir('filter')}/quality*.parquet"),
    )
