"""The sft stage trains on the assistant's tokens only: labels under loss-mask 0 cannot move the loss."""

from __future__ import annotations

import torch

from codemix.pretrain.configs import load_recipe
from codemix.pretrain.data.stage import build_stage_dataset, collate, read_stage
from codemix.pretrain.loop import batch_loss
from codemix.pretrain.model.gpt import build_model, position_setup

from .conftest import SFT_LENGTH


def sft_batch(build_dir, tmp_path) -> dict[str, torch.Tensor]:
    data = read_stage(build_dir, "sft")
    dataset = build_stage_dataset(data, sequence_length=SFT_LENGTH, num_samples=2, cache_dir=str(tmp_path), seed=1,
                                  attention_mask=True)
    return collate([dataset[0], dataset[1]])


def test_labels_under_mask_zero_do_not_change_the_loss(build_dir, runtime, tmp_path):
    batch = sft_batch(build_dir, tmp_path)
    masked_out = batch["loss_mask"] == 0
    assert masked_out.any() and (~masked_out).any(), "guard: the packs hold both trained and untrained tokens"
    recipe = load_recipe("tiny")
    model = build_model(recipe, vocab_size=1000, sequence_length=SFT_LENGTH, position=position_setup(recipe, "sft"),
                        cpu=True)
    loss, tokens = batch_loss(model, batch, runtime)
    assert int(tokens) == int(batch["loss_mask"].sum())

    scrambled = dict(batch, labels=torch.where(masked_out, (batch["labels"] + 7) % 1000, batch["labels"]))
    assert torch.equal(batch_loss(model, scrambled, runtime)[0], loss)

    trained = torch.nonzero(~masked_out)[0]  # guard against a loss that ignores labels altogether
    moved = batch["labels"].clone()
    moved[tuple(trained)] = (moved[tuple(trained)] + 7) % 1000
    assert not torch.equal(batch_loss(model, dict(batch, labels=moved), runtime)[0], loss)


def test_sft_run_counts_only_the_assistant_tokens(sft_run):
    state = sft_run.state
    assert state.tokens_seen == 2 * 4 * SFT_LENGTH  # 2 steps of global batch 4
    assert 0 < state.loss_tokens_seen < state.tokens_seen / 2
    assert all(row["loss_tokens"] < row["tokens"] for row in sft_run.rows)
