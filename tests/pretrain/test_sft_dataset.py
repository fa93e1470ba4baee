"""Packed SFT reader: whole samples per pack, block-diagonal causal attention, labels and loss mask aligned."""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

import numpy as np
import pytest
import torch
from megatron.core.datasets.blended_dataset import BlendedDataset
from megatron.core.datasets.gpt_dataset import _get_ltor_masks_and_position_ids

from codemix.mixtures.indexed_dataset import write_indexed_dataset
from codemix.mixtures.sft import SFTSample
from codemix.mixtures.sft_shards import loss_mask_prefix, write_sft_shard
from codemix.mixtures.tokenizer import save_tokenizer, train_bpe
from codemix.pretrain.data.sft import SFTPackedDataset, SFTShard, build_pack_index, build_sft_dataset

SEQUENCE_LENGTH = 96
NUM_PACKS = 24
PAD, EOD = 1, 0  # <|pad|> and <|endoftext|> in mixtures.tokenizer.SPECIAL_TOKENS order


def random_samples(rng: np.random.Generator, count: int, vocab: int, max_length: int = SEQUENCE_LENGTH) -> list:
    """Samples of 2..max_length tokens (ids clear of the special tokens) with random 0/1 masks."""
    samples = []
    for i in range(count):
        n = int(rng.integers(2, max_length + 1))
        samples.append(SFTSample(tokens=rng.integers(4, vocab, n).astype(np.int32),
                                 loss_mask=rng.integers(0, 2, n).astype(np.uint8), turns=(0, 1),
                                 is_continuation=False))
    return samples


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("sft")
    json_sources = sorted(Path(sysconfig.get_path("stdlib")).glob("json/*.py"))
    tokenizer = train_bpe([p.read_text(encoding="utf-8") for p in json_sources], vocab_size=600)
    save_tokenizer(tokenizer, str(root / "tokenizer.json"))
    rng = np.random.default_rng(0)
    shards = {}
    for name, count in (("a", 40), ("b", 25)):
        prefix = str(root / "sft" / f"{name}-00000-of-00001")
        shards[name] = (prefix, random_samples(rng, count, vocab=600))
        write_sft_shard(prefix, shards[name][1], np.uint16)
    return {"root": root, "tokenizer_path": str(root / "tokenizer.json"), "shards": shards}


@pytest.fixture(scope="module")
def single(corpus) -> SFTPackedDataset:
    prefix, _ = corpus["shards"]["a"]
    return build_sft_dataset(prefix, SEQUENCE_LENGTH, NUM_PACKS, corpus["tokenizer_path"], str(corpus["root"] / "cache"))


def segments(item: dict) -> list[tuple[int, int]]:
    """``[start, end)`` of each block, read back from where position_ids restart at 0."""
    starts = torch.nonzero(item["position_ids"] == 0).flatten().tolist()
    return list(zip(starts, [*starts[1:], SEQUENCE_LENGTH]))


def pack_contents(dataset: SFTPackedDataset, index: int) -> list[tuple[np.ndarray, np.ndarray]]:
    begin, end = dataset.pack_offsets[index], dataset.pack_offsets[index + 1]
    return [dataset.dataset.sample(int(m)) for m in dataset.pack_members[begin:end]]


def test_builds_the_requested_packs_of_sequence_length(single) -> None:
    assert isinstance(single, SFTPackedDataset) and len(single) >= NUM_PACKS
    item = single[0]
    assert {k: (tuple(v.shape), v.dtype) for k, v in item.items()} == {
        "tokens": ((SEQUENCE_LENGTH,), torch.int64), "labels": ((SEQUENCE_LENGTH,), torch.int64),
        "loss_mask": ((SEQUENCE_LENGTH,), torch.float32), "position_ids": ((SEQUENCE_LENGTH,), torch.int64),
        "attention_mask": ((1, SEQUENCE_LENGTH, SEQUENCE_LENGTH), torch.bool)}


def test_every_pack_holds_whole_written_samples(single, corpus) -> None:
    written = {tuple(s.tokens.tolist()) for s in corpus["shards"]["a"][1]}
    for index in range(len(single)):
        item, parts = single[index], pack_contents(single, index)
        blocks = segments(item)
        assert len(blocks) in (len(parts), len(parts) + 1)  # + the padding block
        for (start, end), (ids, _) in zip(blocks, parts):
            assert end - start == len(ids) and tuple(item["tokens"][start:end].tolist()) in written


def test_first_epoch_packs_every_sample_exactly_once(single, corpus) -> None:
    count = len(corpus["shards"]["a"][1])
    assert sorted(single.pack_members[:count].tolist()) == list(range(count))
    first_epoch_packs = int(np.searchsorted(single.pack_offsets, count))
    assert single.pack_offsets[first_epoch_packs] == count


def test_no_position_attends_across_a_sample_boundary(single) -> None:
    for index in range(len(single)):
        item = single[index]
        block = torch.zeros(SEQUENCE_LENGTH, dtype=torch.int64)
        for k, (start, end) in enumerate(segments(item)):
            block[start:end] = k
            assert torch.equal(item["position_ids"][start:end], torch.arange(end - start))
        may_attend = (block[:, None] == block[None, :]) & torch.ones(SEQUENCE_LENGTH, SEQUENCE_LENGTH).tril().bool()
        assert torch.equal(item["attention_mask"][0], ~may_attend)  # megatron: True = masked


def test_attention_mask_and_positions_match_megatrons_eod_reset(single) -> None:
    """Same as megatron-core's own reset_attention_mask/reset_position_ids with an EOD ending each sample."""
    for index in range(len(single)):
        item = single[index]
        marked = item["tokens"].clone()
        ends = [end - 1 for _, end in segments(item)[:-1]]
        assert not (marked == EOD).any(), "guard: the fixture's ids avoid EOD"
        marked[ends] = EOD
        attention, _, positions = _get_ltor_masks_and_position_ids(marked, EOD, True, True, False, True)
        assert torch.equal(attention, item["attention_mask"]) and torch.equal(positions, item["position_ids"])


def test_labels_are_next_tokens_and_loss_mask_is_the_labels_mask(single) -> None:
    trained = 0
    for index in range(len(single)):
        item, parts = single[index], pack_contents(single, index)
        for (start, end), (ids, mask) in zip(segments(item), parts):
            assert torch.equal(item["labels"][start:end - 1], item["tokens"][start + 1:end])
            assert np.array_equal(item["loss_mask"][start:end - 1].numpy(), mask[1:].astype(np.float32))
            assert item["loss_mask"][end - 1] == 0  # its next token is another sample's
            trained += int(mask[1:].sum())
    assert trained > 0, "guard: some tokens are trained"


def test_padding_has_no_loss(single) -> None:
    padded = 0
    for index in range(len(single)):
        item, parts = single[index], pack_contents(single, index)
        used = sum(len(ids) for ids, _ in parts)
        assert not item["loss_mask"][used:].any() and (item["tokens"][used:] == PAD).all()
        padded += SEQUENCE_LENGTH - used
    assert padded > 0 and 0.5 < single.fill_ratio < 1.0, "guard: the fixture really pads"


def test_batch_padding_item_has_no_loss(single) -> None:
    assert not single[None]["loss_mask"].any()


def test_pack_index_is_cached_and_reused(single, corpus) -> None:
    cached = [name for name in os.listdir(corpus["root"] / "cache") if name.endswith("-SFTPackedDataset-packs.npz")]
    assert len(cached) == 1
    again = build_sft_dataset(corpus["shards"]["a"][0], SEQUENCE_LENGTH, NUM_PACKS, corpus["tokenizer_path"],
                              str(corpus["root"] / "cache"))
    assert np.array_equal(again.pack_members, single.pack_members)


def test_blend_of_two_sft_shards(corpus) -> None:
    data_path = [0.6, corpus["shards"]["a"][0], 0.4, corpus["shards"]["b"][0]]
    blend = build_sft_dataset(data_path, SEQUENCE_LENGTH, NUM_PACKS, corpus["tokenizer_path"],
                              str(corpus["root"] / "cache-blend"))
    assert isinstance(blend, BlendedDataset) and len(blend) >= NUM_PACKS  # megatron rounds each share up
    for index in range(len(blend)):
        item = blend[index]
        assert item["tokens"].shape == (SEQUENCE_LENGTH,) and item["position_ids"][0] == 0


def test_samples_longer_than_the_sequence_are_left_out(corpus, tmp_path) -> None:
    rng = np.random.default_rng(1)
    too_long = SFTSample(tokens=np.full(SEQUENCE_LENGTH + 1, 7, np.int32), loss_mask=np.ones(SEQUENCE_LENGTH + 1, np.uint8),
                         turns=(0, 1), is_continuation=False)
    samples = [*random_samples(rng, 10, vocab=600, max_length=40), too_long]
    prefix = str(tmp_path / "long")
    write_sft_shard(prefix, samples, np.uint16)
    dataset = build_sft_dataset(prefix, SEQUENCE_LENGTH, 4, corpus["tokenizer_path"], str(tmp_path / "cache"))
    assert dataset.skipped_too_long == 1 and 10 not in dataset.pack_members.tolist()


def test_build_pack_index_fails_when_nothing_fits() -> None:
    with pytest.raises(ValueError, match="no sample fits sequence_length 8"):
        build_pack_index(np.array([9, 20], dtype=np.int32), np.arange(2), 8, 4, seed=0)


def test_mismatched_mask_shard_is_refused(tmp_path) -> None:
    prefix = str(tmp_path / "bad")
    write_indexed_dataset(prefix, [[5, 6, 7]], np.uint16)
    write_indexed_dataset(loss_mask_prefix(prefix), [[0, 1]], np.uint8)
    with pytest.raises(ValueError, match="different sample lengths"):
        SFTShard(prefix)


def test_write_sft_shard_refuses_unaligned_samples(tmp_path) -> None:
    sample = SFTSample(tokens=np.arange(4, dtype=np.int32), loss_mask=np.ones(3, np.uint8), turns=(0, 1),
                       is_continuation=False)
    with pytest.raises(ValueError, match="differ"):
        write_sft_shard(str(tmp_path / "x"), [sample], np.uint16)
    assert not list(tmp_path.iterdir()), "an aborted shard leaves no files"
