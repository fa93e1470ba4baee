"""Packed SFT samples as a megatron-core ``MegatronDataset``: whole samples, a loss mask, no cross-talk.

Design notes: docs/design/pretrain.md, "pretrain/data/sft.py".
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from megatron.core.datasets.blended_megatron_dataset_config import BlendedMegatronDatasetConfig
from megatron.core.datasets.indexed_dataset import IndexedDataset
from megatron.core.datasets.megatron_dataset import MegatronDataset
from megatron.core.datasets.utils import Split

from codemix.mixtures.sft_shards import loss_mask_prefix
from codemix.pretrain.data.pretraining import DEFAULT_EOD, build_train_split, train_blend_fields

logger = logging.getLogger(__name__)


@dataclass
class SFTDatasetConfig(BlendedMegatronDatasetConfig):
    """megatron-core's dataset config plus the one switch the packed reader has; a tokenizer is
    required (its ``pad`` id fills the padding)."""

    create_attention_mask: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.tokenizer is None:
            raise ValueError("SFTDatasetConfig.tokenizer is required: its pad id fills the padding of packs")


class SFTShard:
    """A tokens ``IndexedDataset`` and its loss-mask twin, checked to describe the same samples."""

    def __init__(self, path_prefix: str, mmap: bool = True) -> None:
        self.path_prefix = path_prefix
        self.tokens = IndexedDataset(path_prefix, multimodal=False, mmap=mmap)
        self.loss_mask = IndexedDataset(loss_mask_prefix(path_prefix), multimodal=False, mmap=mmap)
        if not np.array_equal(self.tokens.sequence_lengths, self.loss_mask.sequence_lengths):
            raise ValueError(f"{path_prefix}: tokens and {loss_mask_prefix(path_prefix)} have different "
                             "sample lengths; rewrite both with mixtures.sft_shards.write_sft_shard")
        if self.loss_mask.index.dtype != np.uint8:
            raise ValueError(f"{loss_mask_prefix(path_prefix)} holds {self.loss_mask.index.dtype}, not a uint8 mask")

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def sequence_lengths(self) -> np.ndarray:
        return self.tokens.sequence_lengths

    def sample(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        """``(token ids, loss mask)`` of one sample."""
        return self.tokens[index], self.loss_mask[index]


class SFTPackedDataset(MegatronDataset):
    """Packs of whole SFT samples (see the module docstring for the layout of one item).

    ``indices`` are the samples of this split (megatron-core's builder passes a contiguous range);
    ``num_samples`` is the number of packs wanted (None: one epoch). The pack index is cached under
    ``config.path_to_cache`` when set, keyed by megatron-core's ``unique_description_hash``.
    """

    def __init__(
        self,
        dataset: SFTShard,
        dataset_path: str | None,
        indices: np.ndarray,
        num_samples: int | None,
        index_split: Split,
        config: SFTDatasetConfig,
    ) -> None:
        super().__init__(dataset, dataset_path, indices, num_samples, index_split, config)
        lengths = dataset.sequence_lengths[indices]
        self.skipped_too_long = int((lengths > config.sequence_length).sum())
        if self.skipped_too_long:
            logger.warning("%s: %d samples longer than sequence_length %d are left out", dataset_path,
                           self.skipped_too_long, config.sequence_length)
        self.pack_offsets, self.pack_members = self._load_or_build_packs()
        packed_tokens = dataset.sequence_lengths[self.pack_members].sum(dtype=np.int64)
        self.fill_ratio = float(packed_tokens) / max(1, len(self) * config.sequence_length)

    @staticmethod
    def numel_low_level_dataset(low_level_dataset: SFTShard) -> int:
        return len(low_level_dataset)

    @staticmethod
    def build_low_level_dataset(dataset_path: str, config: SFTDatasetConfig) -> SFTShard:
        return SFTShard(dataset_path, mmap=config.mmap_bin_files)

    def __len__(self) -> int:
        return len(self.pack_offsets) - 1

    def __getitem__(self, idx: int | None) -> dict[str, torch.Tensor]:
        """One pack; ``idx=None`` is megatron's batch-padding item: pack 0 with no loss."""
        pack = 0 if idx is None else idx
        begin, end = self.pack_offsets[pack], self.pack_offsets[pack + 1]
        parts = [self.dataset.sample(int(m)) for m in self.pack_members[begin:end]]
        pad = self.config.tokenizer.pad_fill  # megatron's pad id may be -1 (no pad token): fill with a real id, loss 0
        item = pack_samples(parts, self.config.sequence_length, pad, self.config.create_attention_mask)
        if idx is None:
            item["loss_mask"].zero_()
        return item

    def _load_or_build_packs(self) -> tuple[np.ndarray, np.ndarray]:
        """``(offsets [P + 1], members)``: pack p is samples ``members[offsets[p]:offsets[p + 1]]``."""
        cache = self.config.path_to_cache
        path = os.path.join(cache, f"{self.unique_description_hash}-{type(self).__name__}-packs.npz") if cache else ""
        if path and os.path.isfile(path):
            with np.load(path) as stored:
                return stored["offsets"], stored["members"]
        offsets, members = build_pack_index(self.dataset.sequence_lengths, np.asarray(self.indices),
                                            self.config.sequence_length, self.num_samples, self.config.random_seed)
        if path:
            os.makedirs(cache, exist_ok=True)
            temporary = f"{path}.tmp-{os.getpid()}.npz"  # np.savez appends .npz to other names
            np.savez(temporary, offsets=offsets, members=members)
            os.replace(temporary, path)  # atomic: a concurrent reader sees no file or a whole one
        return offsets, members


def build_pack_index(
    sequence_lengths: np.ndarray, sample_ids: np.ndarray, capacity: int, num_packs: int | None, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Shuffled next-fit packing of ``sample_ids`` into packs of at most ``capacity`` tokens, epoch
    after epoch until there are ``num_packs`` (None: one epoch). Empty and over-long samples are
    left out. Returns ``(offsets int64 [P + 1], members int64)``; every pack holds whole samples.
    """
    lengths = sequence_lengths[sample_ids]
    usable = sample_ids[(lengths > 0) & (lengths <= capacity)].astype(np.int64)
    if usable.size == 0:
        raise ValueError(f"no sample fits sequence_length {capacity}: rebuild the SFT shards for this length")
    members, offsets, packed, packs, epoch = [], [np.zeros(1, dtype=np.int64)], 0, 0, 0
    while epoch == 0 or (num_packs is not None and packs < num_packs):
        order = np.random.default_rng([seed, epoch]).permutation(usable)
        starts = next_fit_starts(sequence_lengths[order], capacity)
        offsets.append(starts[1:] + packed)
        members.append(order)
        packed, packs, epoch = packed + len(order), packs + len(starts) - 1, epoch + 1
    return np.concatenate(offsets), np.concatenate(members)


def next_fit_starts(lengths: np.ndarray, capacity: int) -> np.ndarray:
    """Boundaries ``[0, ..., len(lengths)]`` of next-fit packs over ``lengths`` taken in order."""
    starts, used = [0], 0
    for i, length in enumerate(lengths.tolist()):
        if used + length > capacity:
            starts.append(i)
            used = 0
        used += length
    starts.append(len(lengths))
    return np.asarray(starts, dtype=np.int64)


def pack_samples(
    parts: Sequence[tuple[np.ndarray, np.ndarray]], sequence_length: int, pad_id: int, create_attention_mask: bool
) -> dict[str, torch.Tensor]:
    """Lay whole samples ``(ids, mask)`` end to end in one sequence (layout: module docstring)."""
    tokens_S = np.full(sequence_length, pad_id, dtype=np.int64)
    labels_S = np.full(sequence_length, pad_id, dtype=np.int64)
    loss_mask_S = np.zeros(sequence_length, dtype=np.float32)
    position_ids_S = np.zeros(sequence_length, dtype=np.int64)
    segment_S = np.full(sequence_length, len(parts), dtype=np.int64)  # padding: one more segment
    at = 0
    for k, (ids, mask) in enumerate(parts):
        n = len(ids)
        tokens_S[at:at + n] = ids
        labels_S[at:at + n - 1] = ids[1:]  # the last token's successor is another sample's: no label
        loss_mask_S[at:at + n - 1] = mask[1:]  # a position is trained when its *label* is
        position_ids_S[at:at + n] = np.arange(n)
        segment_S[at:at + n] = k
        at += n
    if at > sequence_length:
        raise ValueError(f"pack of {at} tokens exceeds sequence_length {sequence_length}")
    position_ids_S[at:] = np.arange(sequence_length - at)
    item = {"tokens": torch.from_numpy(tokens_S), "labels": torch.from_numpy(labels_S),
            "loss_mask": torch.from_numpy(loss_mask_S), "position_ids": torch.from_numpy(position_ids_S)}
    if create_attention_mask:
        segment = torch.from_numpy(segment_S)
        future_SS = torch.ones(sequence_length, sequence_length, dtype=torch.bool).triu(diagonal=1)
        item["attention_mask"] = (future_SS | (segment[:, None] != segment[None, :])).unsqueeze(0)
    return item


def build_sft_dataset(
    data_path: Sequence[str | float] | str,
    sequence_length: int,
    num_samples: int,
    tokenizer_path: str,
    cache_dir: str,
    seed: int = 1234,
    *,
    create_attention_mask: bool = True,
    eod_token: str = DEFAULT_EOD,
    pad_token: str | None = None,
) -> torch.utils.data.Dataset:
    """The packed SFT train dataset of ``num_samples`` packs over a ``--data-path`` blend.

    ``data_path`` is one SFT shard prefix, a list of them (weighted by their size), or Megatron's
    flat ``[weight, prefix, ...]`` list; each prefix needs its ``PREFIX-loss_mask`` twin. Built with
    megatron-core's ``BlendedMegatronDatasetBuilder``, so a blend is a ``BlendedDataset`` of
    ``SFTPackedDataset``s exactly as for GPT data (see ``pretrain.data.pretraining`` for the single-process fix).
    All samples go to train: validation sets are separate prefixes in codemix.
    """
    config = SFTDatasetConfig(**train_blend_fields(data_path, sequence_length, tokenizer_path, cache_dir, seed, eod_token,
                                                     pad_token),
                              create_attention_mask=create_attention_mask)
    return build_train_split(SFTPackedDataset, num_samples, config)
