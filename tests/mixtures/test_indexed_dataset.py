"""The shard writer against megatron-core 0.16.1's own reader and builder (the format's reference)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from megatron.core.datasets.indexed_dataset import IndexedDataset, IndexedDatasetBuilder

from codemix.mixtures.indexed_dataset import (
    IndexedDatasetWriter,
    dtype_for_vocab,
    read_indexed_documents,
    write_indexed_dataset,
)

# (vocab size, dtype the writer must use): a small code vocab and a Qwen-sized one past uint16.
VOCABS = [(1_000, np.uint16), (151_936, np.int32)]


def make_documents(vocab_size: int, seed: int = 0) -> list[np.ndarray]:
    """Random documents of 0..300 ids, including an empty one and the extreme ids 0 and vocab-1."""
    rng = np.random.default_rng(seed)
    documents = [rng.integers(0, vocab_size, size=rng.integers(1, 300)) for _ in range(40)]
    documents[7] = np.array([], dtype=np.int64)
    documents[11] = np.array([0, vocab_size - 1, 0])
    return documents


def shard_files(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir())


@pytest.mark.parametrize(
    ("vocab_size", "expected"), [(1_000, np.uint16), (65_499, np.uint16), (65_500, np.int32), (151_936, np.int32)]
)
def test_dtype_for_vocab_follows_megatrons_65500_rule(vocab_size, expected):
    assert dtype_for_vocab(vocab_size) is expected


@pytest.mark.parametrize(("vocab_size", "dtype"), VOCABS)
def test_megatron_reads_back_every_document(tmp_path, vocab_size, dtype):
    """Tokens, lengths, pointers, document indices and dtype all read back through IndexedDataset."""
    documents = make_documents(vocab_size)
    assert dtype_for_vocab(vocab_size) is dtype
    prefix = str(tmp_path / "nested" / "dirs" / "src-00000")
    assert write_indexed_dataset(prefix, documents, dtype) == (40, sum(len(d) for d in documents))

    dataset = IndexedDataset(prefix, multimodal=False, mmap=True)
    assert dataset.index.dtype is dtype
    assert len(dataset) == len(documents)
    np.testing.assert_array_equal(dataset.sequence_lengths, [len(d) for d in documents])
    np.testing.assert_array_equal(dataset.document_indices, np.arange(len(documents) + 1))
    for i, document in enumerate(documents):
        np.testing.assert_array_equal(dataset[i], document)
    assert dataset.sequence_lengths[7] == 0 and dataset[11].max() == vocab_size - 1


@pytest.mark.parametrize(("vocab_size", "dtype"), VOCABS)
def test_our_reader_agrees_with_megatrons_on_a_shard_megatron_built(tmp_path, vocab_size, dtype):
    """A shard written by megatron-core's own builder, multi-sequence documents included, reads the same."""
    documents = make_documents(vocab_size, seed=2)
    builder = IndexedDatasetBuilder(str(tmp_path / "theirs.bin"), dtype=dtype)
    for document in documents:  # two sequences per document where it has at least two tokens
        cut = len(document) // 2
        builder.add_document(document, [cut, len(document) - cut] if cut else [len(document)])
    builder.finalize(str(tmp_path / "theirs.idx"))
    dataset = IndexedDataset(str(tmp_path / "theirs"), multimodal=False, mmap=True)
    assert len(dataset) > len(documents), "guard: some documents span two sequences"
    ours = list(read_indexed_documents(str(tmp_path / "theirs")))
    assert len(ours) == len(documents)
    for read, document in zip(ours, documents):
        assert read.dtype == dtype
        np.testing.assert_array_equal(read, document)


@pytest.mark.parametrize(("vocab_size", "dtype"), VOCABS)
def test_files_are_byte_identical_to_megatrons_builder(tmp_path, vocab_size, dtype):
    documents = make_documents(vocab_size, seed=1)
    write_indexed_dataset(str(tmp_path / "ours"), documents, dtype)
    builder = IndexedDatasetBuilder(str(tmp_path / "theirs.bin"), dtype=dtype)
    for document in documents:
        builder.add_document(document, [len(document)])
    builder.finalize(str(tmp_path / "theirs.idx"))
    for suffix in (".bin", ".idx"):
        assert (tmp_path / f"ours{suffix}").read_bytes() == (tmp_path / f"theirs{suffix}").read_bytes()


@pytest.mark.parametrize(("token", "dtype"), [(65_536, np.uint16), (-1, np.uint16), (-1, np.int32), (2**31, np.int32)])
def test_token_outside_the_dtype_is_rejected_by_name(tmp_path, token, dtype):
    with pytest.raises(ValueError, match=f"token id {token} "):
        write_indexed_dataset(str(tmp_path / "bad"), [[1, 2], [3, token, 4]], dtype)
    assert shard_files(tmp_path) == [], "an aborted write must leave neither final nor temporary files"


def test_non_integer_tokens_are_rejected(tmp_path):
    with IndexedDatasetWriter(str(tmp_path / "x"), np.uint16) as writer, pytest.raises(ValueError, match="integer"):
        writer.add_document(np.array([1.5, 2.0]))


def test_unfinalized_writer_leaves_no_file_under_the_final_name(tmp_path):
    """A worker killed before finalize() (simulated by never calling it) leaves only temp files."""
    writer = IndexedDatasetWriter(str(tmp_path / "shard"), np.uint16)
    for document in make_documents(1_000):
        writer.add_document(document)
    names = shard_files(tmp_path)
    assert names and all(".tmp-" in name for name in names), names
    assert not IndexedDataset.exists(str(tmp_path / "shard"))


def test_rewriting_a_shard_replaces_it_and_a_failed_rewrite_keeps_the_old_one(tmp_path):
    prefix = str(tmp_path / "shard")
    write_indexed_dataset(prefix, [[1, 2, 3]], np.uint16)
    write_indexed_dataset(prefix, [[4], [5, 6]], np.uint16)
    with pytest.raises(ValueError):
        write_indexed_dataset(prefix, [[7], [70_000]], np.uint16)
    assert shard_files(tmp_path) == ["shard.bin", "shard.idx"]
    dataset = IndexedDataset(prefix)
    assert [dataset[i].tolist() for i in range(len(dataset))] == [[4], [5, 6]]


def test_writer_cannot_be_used_after_finalize(tmp_path):
    writer = IndexedDatasetWriter(str(tmp_path / "shard"), np.int32)
    writer.add_document([1])
    assert writer.finalize() == (1, 1)
    with pytest.raises(ValueError, match="already finalized"):
        writer.add_document([2])


def test_a_failure_while_committing_leaves_no_files(tmp_path, monkeypatch):
    def failing_commit(*args):
        raise OSError("object store unavailable")

    monkeypatch.setattr("codemix.mixtures.indexed_dataset._commit", failing_commit)
    with pytest.raises(OSError, match="unavailable"):
        write_indexed_dataset(str(tmp_path / "shard"), make_documents(1_000), np.uint16)
    assert shard_files(tmp_path) == []
