"""`mix inspect DIR/STAGE`: a few decoded samples of a built stage, to see what a trainer will see.

SFT samples show their loss mask: spans the model is not trained on (system, user, tool output,
role headers) are wrapped in ``[masked]...[/masked]``; everything else is trained on.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np

from mixtures.indexed_dataset import read_indexed_documents
from mixtures.sft import loss_mask_prefix
from mixtures.tokenizer import load_tokenizer

MASK_OPEN, MASK_CLOSE = "[masked]", "[/masked]"


def masked_text(tokens: np.ndarray, mask: np.ndarray, decode) -> str:
    """The sample's text with every run of mask-0 tokens wrapped in the mask markers."""
    parts, position = [], 0
    for trained, run in itertools.groupby(mask.tolist()):
        length = len(list(run))
        text = decode(tokens[position:position + length].tolist())
        parts.append(text if trained else f"{MASK_OPEN}{text}{MASK_CLOSE}")
        position += length
    return "".join(parts)


def stage_samples(out_dir: str, stage: str, count: int) -> list[str]:
    """The first ``count`` documents of the stage's first shards, decoded."""
    out = Path(out_dir)
    manifest = json.loads((out / "manifest.json").read_text())
    if stage not in manifest["stages"]:
        raise ValueError(f"no stage {stage!r} in {out}/manifest.json; stages are: {', '.join(manifest['stages'])}")
    tokenizer = load_tokenizer(str(out / "tokenizer.json"))

    def decode(ids: list[int]) -> str:
        return tokenizer.decode(ids, skip_special_tokens=False)

    samples = []
    for prefix in manifest["stages"][stage]["shards"]:
        masks = read_indexed_documents(loss_mask_prefix(prefix)) if stage == "sft" else itertools.repeat(None)
        for tokens, mask in zip(read_indexed_documents(prefix), masks):
            samples.append(decode(tokens.tolist()) if mask is None else masked_text(tokens, mask, decode))
            if len(samples) == count:
                return samples
    return samples


def format_samples(stage: str, samples: list[str], max_chars: int) -> str:
    blocks = []
    for i, text in enumerate(samples):
        shown = text if len(text) <= max_chars else text[:max_chars] + f"\n... ({len(text) - max_chars:,} more characters)"
        blocks.append(f"===== {stage} sample {i} =====\n{shown}")
    return "\n".join(blocks) if blocks else f"stage {stage} has no documents"
