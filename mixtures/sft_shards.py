"""SFT shards: samples written as a Megatron token shard and its loss-mask twin."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from codemix.mixtures.indexed_dataset import IndexedDatasetWriter
from codemix.mixtures.sft import SFTSample

LOSS_MASK_SUFFIX = "-loss_mask"


def loss_mask_prefix(prefix: str) -> str:
    """Where the loss mask of the tokens shard ``prefix`` lives: ``PREFIX-loss_mask.bin/.idx``."""
    return prefix + LOSS_MASK_SUFFIX


def write_sft_shard(prefix: str, samples: Iterable[SFTSample], dtype: type[np.integer] | np.dtype) -> tuple[int, int]:
    """Write ``PREFIX.bin/.idx`` (token ids in ``dtype``, see ``dtype_for_vocab``) and
    ``PREFIX-loss_mask.bin/.idx`` (uint8), one sequence per sample in both; returns (samples, tokens).

    The mask is finalized first, so a tokens ``.idx`` (the commit marker a reader opens) never
    exists without its mask. No EOD is appended: samples are separated by the index, and the packed
    reader resets positions and attention at every sample start.
    """
    with IndexedDatasetWriter(loss_mask_prefix(prefix), np.uint8) as masks, IndexedDatasetWriter(prefix, dtype) as tokens:
        for sample in samples:
            if sample.tokens.shape != sample.loss_mask.shape:
                raise ValueError(f"sample tokens {sample.tokens.shape} and loss mask {sample.loss_mask.shape} differ")
            tokens.add_document(sample.tokens)
            masks.add_document(sample.loss_mask)
        masks.finalize()
        return tokens.finalize()
