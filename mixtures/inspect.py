"""`mix inspect DIR/STAGE`: what a stage holds per source, and decoded samples of it, to see what a
trainer will see.

The table lists each source's shards, documents, tokens and share of the stage, from the shard
files themselves. Samples are the stage's first documents, or with a seed a uniform random draw
over all of its documents (``random.Random(seed)``, so the same seed shows the same documents).
Each sample is labelled with its source and where it came from (its provenance sidecar row,
``mixtures.provenance``), and a second table counts the stage's documents and tokens per license.
SFT samples show their loss mask: spans the model is not trained on (system, user, tool output,
role headers) are wrapped in ``[masked]...[/masked]``. ``where`` answers for one document of a stage.
"""

from __future__ import annotations

import bisect
import itertools
import json
import os
import random

import numpy as np
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from codemix.kinds import document_kind
from codemix.mixtures.blend import with_found_prefixes
from codemix.mixtures.indexed_dataset import document_count, read_documents_at
from codemix.mixtures.provenance import read_provenance, sidecar_path
from codemix.mixtures.sft_shards import loss_mask_prefix
from codemix.mixtures.stages import stage_kind
from codemix.mixtures.tokenizer import load_tokenizer
from codemix.tables import format_table, percent

MASK_OPEN, MASK_CLOSE = "[masked]", "[/masked]"


class NotABuild(ValueError):
    """A directory that is not a finished ``mix build`` output (or a stage of one); says what to give."""


def read_manifest(out_dir: str) -> dict:
    """``OUT/manifest.json``; ``NotABuild`` naming the problem when ``out_dir`` is not a finished build.
    Paths go through Beam's ``FileSystems`` as strings (never pathlib, which turns ``s3://`` into
    ``s3:/``), so a build on an object store reads like a local one."""
    out = out_dir.rstrip("/")
    if not FileSystems.exists(f"{out}/manifest.json"):
        if not _has_files(out):
            raise NotABuild(f"{out} does not exist or is empty; give a mix build --out directory")
        if _has_files(f"{out}/work"):
            raise NotABuild(f"{out} holds a build that has not finished (no manifest.json); "
                            "rerun its mix build command to finish it")
        raise NotABuild(f"{out} is not a mix build output directory (no manifest.json); "
                        "give the directory a mix build --out wrote")
    with FileSystems.open(f"{out}/manifest.json", compression_type=CompressionTypes.UNCOMPRESSED) as handle:
        return with_found_prefixes(json.loads(handle.read()), out)  # a moved build reads its own shards


def _has_files(folder: str) -> bool:
    """A local folder that exists (even empty), or an object-store prefix with objects under it (a
    prefix with none does not exist in any sense a user could mean)."""
    if "://" not in folder:
        return os.path.isdir(folder)
    return bool(FileSystems.match([f"{folder}/**"])[0].metadata_list)


def split_stage_dir(stage_dir: str) -> tuple[str, str]:
    """``DIR/STAGE`` -> (DIR, STAGE), checking that the stage exists in the build."""
    path = stage_dir.rstrip("/")
    if FileSystems.exists(f"{path}/manifest.json"):
        stages = ", ".join(read_manifest(path)["stages"])
        raise NotABuild(f"{path} is a build; give one of its stages as DIR/STAGE ({stages}), e.g. {path}/short")
    parent, _, name = path.rpartition("/")
    manifest = read_manifest(parent)
    if name not in manifest["stages"]:
        raise NotABuild(f"{parent} has no stage {name!r}; its stages are: {', '.join(manifest['stages'])}")
    return parent, name


def source_of(prefix: str) -> str:
    """``.../short/alpha-00000-of-00002`` -> ``alpha``: shards are named SOURCE-SSSSS-of-NNNNN."""
    return prefix.rsplit("/", 1)[-1].rsplit("-", 3)[0]


def stage_counts(out_dir: str, stage: str) -> dict[str, dict[str, int]]:
    """Per source of one stage: its shards, documents (read from the shards' indexes) and tokens."""
    info = read_manifest(out_dir)["stages"][stage]
    documents: dict[str, list[int]] = {}
    for prefix in info["shards"]:
        documents.setdefault(source_of(prefix), []).append(document_count(prefix))
    tokens = info.get("tokens_per_source", {})
    return {source: {"shards": len(counts), "documents": sum(counts), "tokens": tokens.get(source, 0)}
            for source, counts in sorted(documents.items())}


def stage_table(out_dir: str, stage: str) -> str:
    """Shards, documents and tokens per source of one stage, with each source's share and the total."""
    counts = stage_counts(out_dir, stage)
    total_docs = sum(c["documents"] for c in counts.values())
    total_tokens = sum(c["tokens"] for c in counts.values())
    rows = [[source, c["shards"], c["documents"], percent(c["documents"], total_docs), c["tokens"],
             percent(c["tokens"], total_tokens)] for source, c in counts.items()]
    return f"stage {stage} of {out_dir}\n" + format_table(
        ["source", "shards", "documents", "docs %", "tokens", "tokens %"], rows,
        total=["total", sum(c["shards"] for c in counts.values()), total_docs, percent(total_docs, total_docs),
               total_tokens, percent(total_tokens, total_tokens)])


def masked_text(tokens: np.ndarray, mask: np.ndarray, decode) -> str:
    """The sample's text with every run of mask-0 tokens wrapped in the mask markers."""
    parts, position = [], 0
    for trained, run in itertools.groupby(mask.tolist()):
        length = len(list(run))
        text = decode(tokens[position:position + length].tolist())
        parts.append(text if trained else f"{MASK_OPEN}{text}{MASK_CLOSE}")
        position += length
    return "".join(parts)


def chosen_documents(prefixes: list[str], count: int, seed: int | None) -> list[tuple[str, int]]:
    """(shard prefix, document index) pairs: the first ``count`` documents, or ``count`` drawn
    uniformly over every document of the stage with ``seed``, in shard order."""
    total = sum(document_count(prefix) for prefix in prefixes)
    wanted = range(min(count, total)) if seed is None else sorted(random.Random(seed).sample(range(total),
                                                                                              min(count, total)))
    return chosen_at(prefixes, list(wanted))


def stage_samples(out_dir: str, stage: str, count: int, *, seed: int | None = None) -> list[tuple[str, str, dict]]:
    """``count`` documents of the stage, decoded, as (source, text, provenance row or {} without a sidecar)."""
    manifest = read_manifest(out_dir)
    if stage not in manifest["stages"]:
        raise NotABuild(f"no stage {stage!r} in {out_dir}/manifest.json; stages are: {', '.join(manifest['stages'])}")
    tokenizer = load_tokenizer(f"{out_dir.rstrip('/')}/tokenizer.json")

    def decode(ids: list[int]) -> str:
        return tokenizer.decode(ids, skip_special_tokens=False)

    samples = []
    chosen = chosen_documents(manifest["stages"][stage]["shards"], count, seed)
    for prefix, group in itertools.groupby(chosen, key=lambda pair: pair[0]):
        indices = [i for _, i in group]
        masks = read_documents_at(loss_mask_prefix(prefix), indices) if stage_kind(stage).loss_masked else [None] * len(indices)
        rows = provenance_rows(prefix, indices)
        for tokens, mask, row in zip(read_documents_at(prefix, indices), masks, rows):
            text = decode(tokens.tolist()) if mask is None else masked_text(tokens, mask, decode)
            samples.append((source_of(prefix), text, row))
    return samples


def provenance_rows(prefix: str, indices: list[int]) -> list[dict]:
    """The sidecar rows of documents ``indices`` of a shard; ``{}`` each when it has no sidecar
    (a build from before sidecars were written)."""
    if not FileSystems.exists(sidecar_path(prefix)):
        return [{} for _ in indices]
    table = read_provenance(prefix)
    return table.take(indices).to_pylist()


def provenance_label(row: dict) -> str:
    """Where a document came from, in one line: location (or repository and files), license, language."""
    if not row:
        return ""
    parts_of_repository = "parts" in document_kind(row["kind"]).provenance
    where = f"{row['location']} ({len(row['paths'])} files)" if parts_of_repository else row["location"]
    parts = [where, f"license {row['license'] or 'unknown'}"]
    if row["language"]:
        parts.append(f"language {row['language']}")
    if row["transcript_format"]:
        parts.append(f"format {row['transcript_format']}")
    return ", " + ", ".join(parts)


def license_counts(out_dir: str, stage: str) -> dict[str, dict[str, int]] | None:
    """Documents and tokens of the stage per license, from its shards' provenance sidecars (None
    for a build from before sidecars were written)."""
    counts: dict[str, dict[str, int]] = {}
    for prefix in read_manifest(out_dir)["stages"][stage]["shards"]:
        if not FileSystems.exists(sidecar_path(prefix)):
            return None
        table = read_provenance(prefix).select(["license", "token_count"]).to_pydict()
        for license_id, count in zip(table["license"], table["token_count"]):
            entry = counts.setdefault(license_id or "unknown", {"documents": 0, "tokens": 0})
            entry["documents"] += 1
            entry["tokens"] += count
    return dict(sorted(counts.items()))


def license_table(out_dir: str, stage: str) -> str:
    """Documents and tokens of the stage per license, from its shards' provenance sidecars."""
    counts = license_counts(out_dir, stage)
    if counts is None:
        return f"stage {stage} has no provenance sidecars (built before they were written)"
    rows = [[name, c["documents"], c["tokens"]] for name, c in counts.items()]
    return format_table(["license", "documents", "tokens"], rows,
                        total=["total", sum(c["documents"] for c in counts.values()),
                               sum(c["tokens"] for c in counts.values())])


def inspect_json(out_dir: str, stage: str, samples: list[tuple[str, str, dict]]) -> dict:
    """``mix inspect --json`` (schema ``codemix.inspect/1``, docs/json.md)."""
    return {"schema": "codemix.inspect/1", "out": out_dir, "stage": stage,
            "sources": stage_counts(out_dir, stage), "licenses": license_counts(out_dir, stage),
            "samples": [{"source": source, "text": text, "provenance": row} for source, text, row in samples]}


def where(out_dir: str, stage: str, index: int, shard: str | None = None) -> dict:
    """The provenance row of document ``index`` of the stage (counted over its shards in manifest
    order, as ``mix inspect`` does), or of shard ``shard`` (its file name) when given."""
    prefixes = read_manifest(out_dir)["stages"][stage]["shards"]
    if shard is not None:
        matches = [p for p in prefixes if p.rsplit("/", 1)[-1] == shard]
        if not matches:
            names = ", ".join(p.rsplit("/", 1)[-1] for p in prefixes)
            raise NotABuild(f"stage {stage} has no shard {shard!r}; its shards are: {names}")
        prefix, position = matches[0], index
        if not 0 <= index < document_count(prefix):
            raise NotABuild(f"shard {shard} has {document_count(prefix):,} documents; {index} is out of range")
    else:
        total = sum(document_count(p) for p in prefixes)
        if not 0 <= index < total:
            raise NotABuild(f"stage {stage} has {total:,} documents (0..{total - 1}); {index} is out of range")
        [(prefix, position)] = chosen_at(prefixes, [index])
    if not FileSystems.exists(sidecar_path(prefix)):
        raise NotABuild(f"{prefix} has no provenance sidecar; rebuild with mix build --from-stage shards")
    return {"stage": stage, "stage_document": index if shard is None else None, **provenance_rows(prefix, [position])[0]}


def chosen_at(prefixes: list[str], positions: list[int]) -> list[tuple[str, int]]:
    """(shard prefix, document index) of stage-wide document ``positions``."""
    starts = list(itertools.accumulate((document_count(prefix) for prefix in prefixes), initial=0))
    chosen = []
    for position in positions:
        shard = bisect.bisect_right(starts, position) - 1  # starts: stage-wide index of each shard's first document
        chosen.append((prefixes[shard], position - starts[shard]))
    return chosen


def format_where(row: dict) -> str:
    """One ``field: value`` line per non-empty field of a ``where`` answer."""
    lines = []
    for key, value in row.items():
        if value in (None, "", []) or (isinstance(value, dict) and not any(v is not None for v in value.values())):
            continue
        if isinstance(value, dict):
            value = ", ".join(f"{k}={v}" for k, v in value.items() if v is not None)
        elif isinstance(value, list):
            value = ", ".join(map(str, value))
        lines.append(f"{key}: {value}")
    return "\n".join(lines)


def format_samples(stage: str, samples: list[tuple[str, str, dict]], max_chars: int) -> str:
    blocks = []
    for i, (source, text, row) in enumerate(samples):
        shown = text if len(text) <= max_chars else text[:max_chars] + f"\n... ({len(text) - max_chars:,} more characters)"
        blocks.append(f"===== {stage} sample {i} (source {source}{provenance_label(row)}) =====\n{shown}")
    return "\n".join(blocks) if blocks else f"stage {stage} has no documents"
