"""Per-stage Megatron blends (``--data-path`` weight/prefix pairs) from the shards written.

A source's weight in the spec is the share of the stage's training tokens it should supply.
Megatron samples each prefix in proportion to its weight, so a source with several shards has its
weight split across them by their token counts, which keeps the source's share as specified.
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter

from codemix.mixtures.spec import MixtureSpec
from codemix.mixtures.stages import stage_kind


def stage_blend(weights: dict[str, float], shards: list[dict]) -> list:
    """``[w1, prefix1, w2, prefix2, ...]`` with weights summing to 1 over non-empty shards."""
    tokens_per_source: dict[str, int] = {}
    for shard in shards:
        tokens_per_source[shard["source"]] = tokens_per_source.get(shard["source"], 0) + shard["tokens"]
    present = {s: w for s, w in weights.items() if tokens_per_source.get(s, 0) > 0}
    total_weight = sum(present.values())
    blend: list = []
    for shard in sorted(shards, key=lambda s: s["prefix"]):
        source = shard["source"]
        if source not in present or shard["tokens"] == 0:
            continue
        share = present[source] / total_weight * shard["tokens"] / tokens_per_source[source]
        blend += [round(share, 12), shard["prefix"]]
    return blend


def stage_manifest(spec: MixtureSpec, shard_stats: list[dict], shaping: list[dict] = ()) -> dict:
    """``stages.<name>``: documents, tokens, data_path, how many epochs each source implies, and what
    shaping left out (e.g. long-stage files larger than the context), by reason."""
    stages = {}
    for stage, config in spec.stages.items():
        shards = [s for s in shard_stats if s["stage"] == stage]
        tokens = {source: sum(s["tokens"] for s in shards if s["source"] == source) for source in config.weights}
        weights = config.normalised_weights()
        stages[stage] = {
            "documents": sum(s["documents"] for s in shards),
            "tokens": sum(s["tokens"] for s in shards),
            "sequence_length": config.sequence_length,
            "token_budget": config.token_budget,
            "weights": weights,
            "tokens_per_source": tokens,
            # How many passes over each source the budget implies at its weight; >1 means repetition.
            "epochs_per_source": {s: (round(weights[s] * config.token_budget / n, 4) if n else None)
                                  for s, n in tokens.items()},
            "missing_sources": sorted(s for s, n in tokens.items() if n == 0),
            "data_path": stage_blend(config.weights, shards),
            "shards": sorted(s["prefix"] for s in shards),
            "left_out": dict(sorted(left_out(shaping, stage).items())),
        }
        if (order := import_order(shaping, stage)) is not None:  # forward_outside_cycles should be 0
            stages[stage]["import_order"] = order
        if any("transcripts" in r for r in shaping if r["stage"] == stage):
            stages[stage]["left_out_by_source"] = left_out_by_source(shaping, stage)
        if any("summaries" in s for s in shards):  # sft: what opens each continuation sample
            stages[stage]["summaries"] = {origin: sum(s.get("summaries", {}).get(origin, 0) for s in shards)
                                          for origin in ("real", "templated")}
        if stage_kind(stage).has_chat_template:  # what the hand-off's tokenizer_config.json must reproduce for RL
            stages[stage]["chat_template"] = dataclasses.asdict(config.sft.template)
            stages[stage]["reasoning"] = config.sft.reasoning
    return stages


def left_out(shaping: list[dict], stage: str) -> Counter:
    """What shaping a stage dropped, by reason (records carry a ``count`` or stand for one)."""
    counts: Counter = Counter()
    for record in shaping:
        if record["stage"] == stage and "reason" in record:
            counts[record["reason"]] += record.get("count", 1)
    return counts


def import_order(shaping: list[dict], stage: str) -> dict[str, int] | None:
    """Totals of the stage's per-repository import-order reports (``mixtures.repository``), if any."""
    reports = [record["import_order"] for record in shaping if record["stage"] == stage and "import_order" in record]
    if not reports:
        return None
    return {"repositories": len(reports)} | {key: sum(report[key] for report in reports) for key in sorted(reports[0])}


def left_out_by_source(shaping: list[dict], stage: str) -> dict[str, dict]:
    """Per source and format: transcripts read, those that gave no sample, the reasons (with counts) for what
    shaping left out (whole transcripts, turns, samples) and, where there was any, what it kept as context only
    (``masked``: calls an export described, by reason)."""
    table: dict[str, dict] = {}
    for record in shaping:
        if record["stage"] != stage or "format" not in record:
            continue
        row = table.setdefault(record["source"], {}).setdefault(
            record["format"], {"transcripts": 0, "without_samples": 0, "reasons": {}})
        if "masked" in record:
            masked = row.setdefault("masked", {})
            masked[record["masked"]] = masked.get(record["masked"], 0) + record["count"]
        elif "reason" in record:
            row["reasons"][record["reason"]] = row["reasons"].get(record["reason"], 0) + record.get("count", 1)
        else:
            row["transcripts"] += record["transcripts"]
            row["without_samples"] += record["without_samples"]
    return {source: dict(sorted(formats.items())) for source, formats in sorted(table.items())}


def data_path_argument(data_path: list) -> str:
    """The blend as Megatron's command line wants it: ``--data-path 0.7 /p/a 0.3 /p/b``."""
    return " ".join(str(item) for item in data_path)


def relative_prefixes(manifest: dict, build_dir: str) -> dict:
    """The manifest as ``manifest.json`` holds it: every shard prefix under ``build_dir`` written
    relative to it (``short/NAME``), so a moved or copied build still names its own shards; a build
    on an object store keeps absolute prefixes (``s3://...``), as does a prefix outside the build."""
    if "://" in build_dir:
        return manifest
    root = os.path.abspath(build_dir)

    def relative(prefix):
        if not isinstance(prefix, str) or "://" in prefix or not os.path.isabs(prefix):
            return prefix
        inside = os.path.commonpath([root, os.path.abspath(prefix)]) == root
        return os.path.relpath(prefix, root) if inside else prefix

    return _map_prefixes(manifest, relative)


def found_prefix(prefix: str, build_dir: str) -> str:
    """Shard ``prefix`` as the build in ``build_dir`` holds it. A relative prefix (what ``mix build``
    writes) is relative to the manifest's directory. An absolute one (an older manifest) becomes
    ``BUILD_DIR/STAGE/NAME`` when that shard is there, so a build moved or copied elsewhere reads its
    own shards; otherwise it stays as recorded (an object store, or a blend view of another build)."""
    if "://" in prefix:
        return prefix
    if not prefix.startswith("/"):
        return f"{build_dir.rstrip('/')}/{prefix}" if "://" in build_dir else os.path.join(build_dir, prefix)
    if "://" in build_dir:
        return prefix
    stage_dir, name = os.path.split(prefix)
    here = os.path.join(build_dir, os.path.basename(stage_dir), name)
    return here if os.path.isfile(f"{here}.idx") else prefix


def with_found_prefixes(manifest: dict, build_dir: str) -> dict:
    """The manifest with every stage's ``data_path`` and ``shards`` prefixes as ``found_prefix`` finds them."""
    build_dir = os.path.abspath(build_dir) if "://" not in build_dir else build_dir.rstrip("/")
    return _map_prefixes(manifest, lambda prefix: found_prefix(prefix, build_dir) if isinstance(prefix, str) else prefix)


def _map_prefixes(manifest: dict, change) -> dict:
    """``manifest`` with ``change`` applied to each stage's ``data_path`` prefixes and ``shards``."""
    stages = {stage: {**info, "data_path": [change(item) for item in info.get("data_path", [])],
                      "shards": [change(prefix) for prefix in info.get("shards", [])]}
              for stage, info in manifest.get("stages", {}).items()}
    return {**manifest, "stages": stages}
