"""megatron-core GPT datasets over codemix shards, for tests now and for training later.

``build_gpt_dataset`` turns a Megatron ``--data-path`` list into megatron-core 0.16.1's train
dataset: a ``GPTDataset`` for one prefix, or a ``BlendedDataset`` of them for a weighted blend.
Each sample is a dict of torch tensors; ``tokens`` and ``labels`` are both ``sequence_length`` long
because GPTDataset draws ``sequence_length + 1`` consecutive tokens and shifts by one.

Everything here runs on CPU in a single process without ``torch.distributed``. megatron-core's
index helpers (``helpers_cpp``) ship compiled in the wheel, so nothing is built at run time.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import Iterator, Sequence

import numpy as np
import torch
from megatron.core.datasets.blended_dataset import BlendedDataset
from megatron.core.datasets.blended_megatron_dataset_builder import BlendedMegatronDatasetBuilder
from megatron.core.datasets.gpt_dataset import GPTDataset, GPTDatasetConfig
from megatron.core.datasets.indexed_dataset import IndexedDataset
from megatron.core.datasets.utils import get_blend_from_list
from megatron.core.tokenizers import MegatronTokenizerBase
from tokenizers import Tokenizer

from codemix.mixtures.tokenizer import load_tokenizer, pick_pad_token, token_id

DEFAULT_EOD = "<|endoftext|>"
# megatron-core's own "no pad token" id (megatron_dataset._PAD_TOKEN_ID): padded positions get it, their
# loss is masked and megatron reads them as id 0; codemix's own padding fills with the EOD instead.
NO_PAD_ID = -1


class HFTokenizerForMegatron(MegatronTokenizerBase):
    """A ``tokenizers.Tokenizer`` seen through the interface megatron-core's datasets and training use.

    GPTDatasetConfig reads ``vocab_size`` (to pick the token dtype code), ``eod`` (masks and
    position ids), ``pad`` (padding short samples and masking their loss; it must differ from
    ``eod``/``eos`` or megatron-core stops masking pads), and ``unique_identifiers``, which goes into
    the hash that names the cached index files. ``eos`` is the EOD token, as in GPT-2.
    """

    def __init__(
        self, tokenizer: Tokenizer, path: str = "", eod_token: str = DEFAULT_EOD, pad_token: str | None = None
    ) -> None:
        super().__init__(path, {})
        self._tokenizer = tokenizer
        self.eod_token = eod_token
        self.pad_token = pick_pad_token(tokenizer, eod_token, configured=pad_token)
        self._eod = token_id(tokenizer, eod_token)
        self._pad = token_id(tokenizer, self.pad_token) if self.pad_token else NO_PAD_ID

    @classmethod
    def from_file(cls, path: str, **tokens: str | None) -> HFTokenizerForMegatron:
        """Load a tokenizer from a path or URL (see ``mixtures.tokenizer.load_tokenizer``); ``eod_token``
        (the build's, manifest.json ``tokenizer.eod_token``) and ``pad_token`` (a tokenizer config's; the
        default and the fallback are ``mixtures.tokenizer.pick_pad_token``'s choice) may be given. With no
        token to pad with, ``pad`` is megatron's ``NO_PAD_ID`` and ``pad_fill`` the EOD."""
        return cls(load_tokenizer(path), path=path, **{k: v for k, v in tokens.items() if v is not None})

    @property
    def hf_tokenizer(self) -> Tokenizer:
        return self._tokenizer

    def tokenize(self, text: str) -> list[int]:
        return self._tokenizer.encode(text).ids

    def detokenize(self, ids: Sequence[int] | np.ndarray) -> str:
        """Lossless: special tokens (EOD, ChatML markers) stay in the text."""
        return self._tokenizer.decode([int(i) for i in ids], skip_special_tokens=False)

    def apply_chat_template(self, *args, **kwargs):
        raise NotImplementedError(
            "codemix renders transcripts to ChatML text before tokenizing; tokenize the rendered text instead"
        )

    @property
    def pad_fill(self) -> int:
        """The id codemix's own batches pad with (always a real id; its loss is masked): the pad, else the EOD."""
        return self._pad if self._pad != NO_PAD_ID else self._eod

    @property
    def vocab_size(self) -> int:
        return self._tokenizer.get_vocab_size(with_added_tokens=True)

    @property
    def vocab(self) -> dict[str, int]:
        return self._tokenizer.get_vocab(with_added_tokens=True)

    @property
    def inv_vocab(self) -> dict[int, str]:
        return {i: token for token, i in self.vocab.items()}

    @property
    def eod(self) -> int:
        return self._eod

    @property
    def eos(self) -> int:
        return self._eod

    @property
    def pad(self) -> int:
        return self._pad

    @property
    def unique_identifiers(self) -> OrderedDict:
        return OrderedDict(
            cls=type(self).__name__, tokenizer_path=self.path, vocab_size=self.vocab_size, eod=self._eod, pad=self._pad
        )


def build_gpt_dataset(
    data_path: Sequence[str | float] | str,
    sequence_length: int,
    num_samples: int,
    tokenizer_path: str,
    cache_dir: str,
    seed: int = 1234,
    *,
    create_attention_mask: bool = False,
    eod_token: str = DEFAULT_EOD,
    pad_token: str | None = None,
) -> torch.utils.data.Dataset:
    """The megatron-core train dataset of ``num_samples`` samples over a ``--data-path`` blend.

    ``data_path`` is one prefix, a list of prefixes (weighted by their size), or Megatron's flat
    ``[weight, prefix, weight, prefix, ...]`` list (weights as numbers or strings). Index files are
    cached under ``cache_dir`` and reused by later calls with the same arguments.
    ``create_attention_mask`` stays off by default: the causal mask is built in the attention
    kernel, and a dense one costs sequence_length**2 bytes per sample.
    """
    config = GPTDatasetConfig(
        **train_blend_fields(data_path, sequence_length, tokenizer_path, cache_dir, seed, eod_token, pad_token),
        reset_position_ids=False,
        reset_attention_mask=False,
        eod_mask_loss=False,
        create_attention_mask=create_attention_mask,
    )
    return build_train_split(GPTDataset, num_samples, config)


def train_blend_fields(data_path: Sequence[str | float] | str, sequence_length: int, tokenizer_path: str,
                       cache_dir: str, seed: int, eod_token: str, pad_token: str | None = None) -> dict:
    """The dataset-config fields every codemix dataset shares: a blend of prefixes, memory-mapped, all
    of it train (validation sets are separate prefixes in codemix)."""
    items = [data_path] if isinstance(data_path, str) else list(data_path)
    return {"random_seed": seed, "sequence_length": sequence_length,
            "blend": get_blend_from_list([str(item) for item in items]), "split": "100,0,0",
            "path_to_cache": cache_dir, "tokenizer": HFTokenizerForMegatron.from_file(tokenizer_path, eod_token=eod_token, pad_token=pad_token),
            "mmap_bin_files": True}


def build_train_split(dataset_class, num_samples: int, config) -> torch.utils.data.Dataset:
    """The train split of ``num_samples`` samples, built in this process. Sizes are per split (train,
    valid, test); 0 rather than None because a weighted blend multiplies each size by the weights."""
    return _SingleProcessBuilder(dataset_class, [num_samples, 0, 0], lambda: True, config).build()[0]


def read_documents(path_prefix: str) -> Iterator[np.ndarray]:
    """Every document of a shard, in order, as megatron-core's own ``IndexedDataset`` reads it."""
    dataset = IndexedDataset(path_prefix, multimodal=False, mmap=True)
    bounds = dataset.document_indices
    for begin, end in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        # A Megatron document may span several sequences (preprocess_data --split-sentences);
        # codemix writes exactly one. Copies, so arrays stay valid after the mmap is closed.
        parts = [dataset[i] for i in range(begin, end)]
        yield np.concatenate(parts) if parts else np.empty(0, dtype=dataset.index.dtype)


class _SingleProcessBuilder(BlendedMegatronDatasetBuilder):
    """The megatron-core builder, made to work without ``torch.distributed`` for blends.

    In 0.16.1 ``BlendedDataset._build_indices`` calls ``torch.distributed.get_rank()`` on a cache
    miss without checking ``is_initialized()`` (GPTDataset does check), so a blend with
    ``path_to_cache`` set raises in a plain process. Here, outside distributed runs only, the
    blend's own small index (one int16 + one int64 per sample, built in C++) is not cached;
    the GPTDatasets' document/sample/shuffle indices still are.
    """

    @staticmethod
    def build_generic_dataset(dataset_class, is_built_on_rank, synchronize_ranks, *args):
        if dataset_class is BlendedDataset and not torch.distributed.is_initialized():
            *head, config = args
            config = copy.copy(config)
            config.path_to_cache = None
            args = (*head, config)
        return BlendedMegatronDatasetBuilder.build_generic_dataset(
            dataset_class, is_built_on_rank, synchronize_ranks, *args
        )
