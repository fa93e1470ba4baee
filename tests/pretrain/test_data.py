"""megatron-core GPT datasets over codemix shards, built on CPU without torch.distributed."""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

import numpy as np
import pytest
import torch
from megatron.core.datasets.blended_dataset import BlendedDataset
from megatron.core.datasets.gpt_dataset import GPTDataset

from codemix.mixtures.indexed_dataset import dtype_for_vocab, write_indexed_dataset
from codemix.mixtures.tokenizer import save_tokenizer, train_bpe
from codemix.pretrain.data.pretraining import HFTokenizerForMegatron, build_gpt_dataset, read_documents

STDLIB = Path(sysconfig.get_path("stdlib"))
SEQUENCE_LENGTH = 128
NUM_SAMPLES = 64


def stdlib_texts(pattern: str) -> list[str]:
    return [path.read_text(encoding="utf-8") for path in sorted(STDLIB.glob(pattern))]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> dict:
    """Two real-code sources tokenized into shards, as the pipeline's WriteShards step would."""
    root = tmp_path_factory.mktemp("shards")
    sources = {"src": stdlib_texts("email/*.py"), "t": stdlib_texts("json/*.py") + stdlib_texts("shlex.py")}
    tokenizer = train_bpe(sources["src"] + sources["t"], vocab_size=1_000)
    save_tokenizer(tokenizer, str(root / "tokenizer.json"))
    eod = tokenizer.token_to_id("<|endoftext|>")
    prefixes, documents = {}, {}
    for name, texts in sources.items():
        documents[name] = [tokenizer.encode(text).ids + [eod] for text in texts]
        prefixes[name] = str(root / "short" / f"{name}-00000")
        write_indexed_dataset(prefixes[name], documents[name], dtype_for_vocab(tokenizer.get_vocab_size()))
    return {
        "root": root,
        "texts": sources,
        "prefixes": prefixes,
        "documents": documents,
        "eod": eod,
        "tokenizer_path": str(root / "tokenizer.json"),
    }


@pytest.fixture(scope="module")
def blend(corpus) -> BlendedDataset:
    assert not torch.distributed.is_initialized()
    data_path = [0.7, corpus["prefixes"]["src"], "0.3", corpus["prefixes"]["t"]]
    return build_gpt_dataset(
        data_path, SEQUENCE_LENGTH, NUM_SAMPLES, corpus["tokenizer_path"], str(corpus["root"] / "cache")
    )


def sample_ids(sample: dict) -> np.ndarray:
    """The sequence_length + 1 consecutive ids a sample was cut from (tokens plus the last label)."""
    return torch.cat([sample["tokens"], sample["labels"][-1:]]).numpy()


def test_compiled_megatron_helpers_import():
    from megatron.core.datasets import helpers_cpp

    assert callable(helpers_cpp.build_sample_idx_int32) and callable(helpers_cpp.build_blending_indices)


def test_read_documents_returns_what_was_written(corpus):
    for name, documents in corpus["documents"].items():
        read = list(read_documents(corpus["prefixes"][name]))
        assert [r.tolist() for r in read] == documents


def test_blend_has_the_requested_samples_of_sequence_length_plus_one_tokens(blend):
    assert isinstance(blend, BlendedDataset) and len(blend) >= NUM_SAMPLES
    for i in range(len(blend)):
        sample = blend[i]
        assert sample["tokens"].dtype == torch.int64 and sample["tokens"].shape == (SEQUENCE_LENGTH,)
        assert torch.equal(sample["tokens"][1:], sample["labels"][:-1])
        assert sample_ids(sample).shape == (SEQUENCE_LENGTH + 1,)


def test_blend_draws_from_sources_in_the_given_weights(blend):
    counts = np.bincount([int(blend[i]["dataset_id"]) for i in range(len(blend))], minlength=2)
    assert abs(counts[0] / counts.sum() - 0.7) < 0.05, counts


def test_decoded_samples_are_text_from_their_source(blend, corpus):
    """Split on EOD, every piece decodes to a substring of one input file of the sample's source."""
    tokenizer = HFTokenizerForMegatron.from_file(corpus["tokenizer_path"])
    sources = [corpus["texts"]["src"], corpus["texts"]["t"]]
    crossed_boundary = False
    for i in range(len(blend)):
        sample = blend[i]
        ids = sample_ids(sample)
        crossed_boundary |= bool((ids == corpus["eod"]).any())
        for piece in np.split(ids, np.flatnonzero(ids == corpus["eod"])):
            # A cut may fall inside a multi-byte character; its bytes decode to U+FFFD at the edges.
            text = tokenizer.detokenize(piece[piece != corpus["eod"]]).strip("\ufffd")
            assert any(text in source for source in sources[int(sample["dataset_id"])]), text[:80]
    assert crossed_boundary, "no sample spans two documents, so EOD handling went untested"


def test_single_prefix_builds_a_cached_reproducible_gpt_dataset(corpus, tmp_path):
    arguments = (corpus["prefixes"]["t"], SEQUENCE_LENGTH, 16, corpus["tokenizer_path"], str(tmp_path))
    first = build_gpt_dataset(*arguments)
    cached = sorted(path.name.split("-", 1)[1] for path in tmp_path.iterdir())
    assert cached == [
        "GPTDataset-train-description.txt",
        "GPTDataset-train-document_index.npy",
        "GPTDataset-train-sample_index.npy",
        "GPTDataset-train-shuffle_index.npy",
    ]
    second = build_gpt_dataset(*arguments)
    assert isinstance(second, GPTDataset) and len(second) >= 16
    for i in range(16):
        assert torch.equal(first[i]["tokens"], second[i]["tokens"])


def test_adapter_exposes_what_megatron_needs(corpus):
    tokenizer = HFTokenizerForMegatron.from_file(corpus["tokenizer_path"])
    text = "<|im_start|>user\nfix the bug<|im_end|>\n<|endoftext|>"
    assert tokenizer.vocab_size == 1_000 and tokenizer.eod == corpus["eod"] == tokenizer.eos
    assert tokenizer.pad not in (tokenizer.eod, tokenizer.eos)
    assert tokenizer.detokenize(tokenizer.tokenize(text)) == text
    assert json.loads(json.dumps(tokenizer.unique_identifiers))["tokenizer_path"] == corpus["tokenizer_path"]
