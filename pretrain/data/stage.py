"""One data path for every stage: a ``mix build`` output directory -> megatron-core datasets -> batches.

Design notes: docs/design/pretrain.md, "pretrain/data/stage.py".
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from codemix.config import ConfigError, require
from codemix.mixtures.blend import with_found_prefixes
from codemix.mixtures.stages import stage_kind
from codemix.pretrain.data.pretraining import DEFAULT_EOD, HFTokenizerForMegatron, build_gpt_dataset

SHARD_NAME = re.compile(r"^(?P<source>.+)-\d{5}-of-\d{5}$")


@dataclass(slots=True, frozen=True, kw_only=True)
class StageData:
    """What a stage trains on, as ``mix build`` wrote it."""

    build_dir: str
    stage: str
    data_path: list[Any]  # Megatron's flat [weight, prefix, weight, prefix, ...]
    sequence_length: int  # the build's; a stage config may train shorter
    tokenizer_path: str
    spec_hash: str
    manifest: dict[str, Any]
    pad_token: str | None = None  # a base tokenizer config's pad (None: chosen from the vocabulary, else the EOD)

    @property
    def prefixes(self) -> list[str]:
        return [str(item) for item in self.data_path[1::2]]

    @property
    def sources(self) -> list[str]:
        """The source of each blend entry, in ``dataset_id`` order (from the shard file names)."""
        return [source_of_prefix(prefix) for prefix in self.prefixes]

    @property
    def eod_token(self) -> str:
        """The token the build put after every document (manifest.json ``tokenizer.eod_token``)."""
        return self.manifest.get("tokenizer", {}).get("eod_token") or DEFAULT_EOD

    def tokenizer(self) -> HFTokenizerForMegatron:
        return HFTokenizerForMegatron.from_file(self.tokenizer_path, eod_token=self.eod_token, pad_token=self.pad_token)


def source_of_prefix(prefix: str) -> str:
    """``.../short/stdlib-00000-of-00001`` -> ``stdlib`` (mixtures' shard naming)."""
    name = os.path.basename(prefix)
    match = SHARD_NAME.match(name)
    return match.group("source") if match else name


def read_stage(build_dir: str | Path, stage: str) -> StageData:
    """The stage's blend, sequence length and tokenizer from a build directory, checked up front."""
    root = Path(build_dir)
    manifest_path, tokenizer_path = root / "manifest.json", root / "tokenizer.json"
    require(manifest_path.is_file(), "--data", f"{manifest_path} does not exist", "pass a `mix build ... --out DIR` directory")
    require(tokenizer_path.is_file(), "--data", f"{tokenizer_path} does not exist", "rebuild with a current `mix build`")
    manifest = with_found_prefixes(json.loads(manifest_path.read_text()), str(root))  # a moved build reads its own
    stages = manifest.get("stages", {})
    require(stage in stages, "--stage", f"the build has no stage {stage!r}", f"built stages: {', '.join(sorted(stages))}")
    entry = stages[stage]
    data_path = list(entry.get("data_path") or [])
    require(len(data_path) >= 2, "--stage", f"stage {stage!r} of {root} has no shards (missing sources: "
            f"{', '.join(entry.get('missing_sources', [])) or 'none'})", "give the stage's sources documents and rebuild")
    data = StageData(build_dir=str(root), stage=stage, data_path=data_path, sequence_length=int(entry["sequence_length"]),
                     tokenizer_path=str(tokenizer_path), spec_hash=manifest.get("spec_hash", ""), manifest=manifest)
    if stage_kind(stage).loss_masked:
        check_loss_masks(data.prefixes)
    return data


def check_loss_masks(prefixes: Sequence[str]) -> None:
    """SFT trains on the assistant's tokens only; without a loss-mask twin it would train on everything."""
    from codemix.mixtures.sft_shards import loss_mask_prefix

    for prefix in prefixes:
        mask = loss_mask_prefix(prefix)
        if not (os.path.isfile(mask + ".idx") and os.path.isfile(mask + ".bin")):
            raise ConfigError("--stage", f"SFT shard {prefix} has no loss mask ({mask}.bin/.idx)",
                              "rebuild with a `mix build` that writes SFT shards with mixtures.sft_shards.write_sft_shard")


def build_stage_dataset(data: StageData, *, sequence_length: int, num_samples: int, cache_dir: str, seed: int,
                        attention_mask: bool) -> torch.utils.data.Dataset:
    """The stage's megatron-core train dataset of at least ``num_samples`` samples.

    ``attention_mask`` asks the SFT packer for its dense block-diagonal mask ([1, S, S] per sample,
    needed by megatron's non-TE attention on CPU); GPU runs rebuild sample boundaries from position ids.
    """
    if stage_kind(data.stage).loss_masked:
        from codemix.pretrain.data.sft import build_sft_dataset

        return build_sft_dataset(data.data_path, sequence_length, num_samples, data.tokenizer_path, cache_dir, seed,
                                 create_attention_mask=attention_mask, eod_token=data.eod_token,
                                 pad_token=data.pad_token)
    return build_gpt_dataset(data.data_path, sequence_length, num_samples, data.tokenizer_path, cache_dir, seed,
                             eod_token=data.eod_token, pad_token=data.pad_token)


@dataclass(slots=True, frozen=True, kw_only=True)
class BatchPlan:
    """How one global batch splits: ``global_batch_size = micro_batch_size x num_microbatches x DP``."""

    micro_batch_size: int
    global_batch_size: int
    data_parallel_size: int = 1
    data_parallel_rank: int = 0

    @property
    def num_microbatches(self) -> int:
        return self.global_batch_size // (self.micro_batch_size * self.data_parallel_size)

    def validate(self) -> None:
        require(self.global_batch_size % (self.micro_batch_size * self.data_parallel_size) == 0,
                "train.global_batch_size", f"must be a multiple of micro_batch_size x data-parallel size "
                f"({self.micro_batch_size} x {self.data_parallel_size})")


def microbatches(dataset, consumed_samples: int, plan: BatchPlan) -> list[dict[str, torch.Tensor]]:
    """This rank's microbatches of the global batch that starts at sample ``consumed_samples``."""
    rank_start = consumed_samples + plan.data_parallel_rank * plan.micro_batch_size * plan.num_microbatches
    batches = []
    for m in range(plan.num_microbatches):
        start = rank_start + m * plan.micro_batch_size
        batches.append(collate([dataset[(start + i) % len(dataset)] for i in range(plan.micro_batch_size)]))
    return batches


def collate(samples: Sequence[dict[str, Any]]) -> dict[str, torch.Tensor]:
    """Stack per-sample tensors into ``[B, ...]``; a missing ``dataset_id`` (one prefix, no blend) is 0."""
    batch = {key: torch.stack([torch.as_tensor(s[key]) for s in samples]) for key in samples[0] if key != "dataset_id"}
    batch["dataset_id_B"] = torch.tensor([int(s.get("dataset_id", 0)) for s in samples], dtype=torch.int64)
    return batch
