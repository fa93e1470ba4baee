"""`mix inspect DIR/STAGE`: what a stage holds per source, and decoded samples of it, to see what a
trainer will see.

The table lists each source's shards, documents, tokens and share of the stage, from the shard
files themselves. Samples are the stage's first documents, or with a seed a uniform random draw
over all of its documents (``random.Random(seed)``, so the same seed shows the same documents).
Each sample is labelled with its source. SFT samples show their loss mask: spans the model is not
trained on (system, user, tool output, role headers) are wrapped in ``[masked]...[/masked]``.
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

from codemix.mixtures.indexed_dataset import document_count, read_documents_at
from codemix.mixtures.sft import loss_mask_prefix
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
        return json.loads(handle.read())


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


def stage_table(out_dir: str, stage: str) -> str:
    """Shards, documents and tokens per source of one stage, with each source's share and the total."""
    info = read_manifest(out_dir)["stages"][stage]
    documents: dict[str, list[int]] = {}
    for prefix in info["shards"]:
        documents.setdefault(source_of(prefix), []).append(document_count(prefix))
    tokens = info.get("tokens_per_source", {})
    total_docs, total_tokens = sum(map(sum, documents.values())), sum(tokens.values())
    rows = [[source, len(counts), sum(counts), percent(sum(counts), total_docs), tokens.get(source, 0),
             percent(tokens.get(source, 0), total_tokens)] for source, counts in sorted(documents.items())]
    return f"stage {stage} of {out_dir}\n" + format_table(
        ["source", "shards", "documents", "docs %", "tokens", "tokens %"], rows,
        total=["total", len(info["shards"]), total_docs, percent(total_docs, total_docs), total_tokens,
               percent(total_tokens, total_tokens)])


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
    counts = [document_count(prefix) for prefix in prefixes]
    starts = list(itertools.accumulate(counts, initial=0))  # stage-wide index of each shard's first document
    total = starts[-1]
    wanted = range(min(count, total)) if seed is None else sorted(random.Random(seed).sample(range(total),
                                                                                              min(count, total)))
    chosen = []
    for position in wanted:
        shard = bisect.bisect_right(starts, position) - 1
        chosen.append((prefixes[shard], position - starts[shard]))
    return chosen


def stage_samples(out_dir: str, stage: str, count: int, *, seed: int | None = None) -> list[tuple[str, str]]:
    """``count`` documents of the stage, decoded, as (source, text)."""
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
        for tokens, mask in zip(read_documents_at(prefix, indices), masks):
            text = decode(tokens.tolist()) if mask is None else masked_text(tokens, mask, decode)
            samples.append((source_of(prefix), text))
    return samples


def format_samples(stage: str, samples: list[tuple[str, str]], max_chars: int) -> str:
    blocks = []
    for i, (source, text) in enumerate(samples):
        shown = text if len(text) <= max_chars else text[:max_chars] + f"\n... ({len(text) - max_chars:,} more characters)"
        blocks.append(f"===== {stage} sample {i} (source {source}) =====\n{shown}")
    return "\n".join(blocks) if blocks else f"stage {stage} has no documents"
