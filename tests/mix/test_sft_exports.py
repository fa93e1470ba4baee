"""The SFT stage's exports for other trainers, read back by those trainers' own libraries.

Chat rows (``sft/chat/*.jsonl``, ``*.parquet``) are loaded by ``datasets`` and rendered by
``transformers`` (``AutoTokenizer`` over ``sft/chat/``, its ``apply_chat_template``) and by TRL's
``SFTTrainer`` dataset preparation: the ids must be the shard's as megatron-core's ``IndexedDataset``
reads them, and the trained tokens its loss mask. Packed sequences (``sft/packed/``) follow
Megatron-Bridge's packed-Parquet schema and NeMo's ``.npy`` (``np.load(allow_pickle=True)``, what
``GPTSFTPackedDataset._load_dataset`` calls); Megatron-Bridge does not install here (its wheel build
fails), so they are checked against its documented layout: ``REQUIRED_COLUMNS`` and
``GPTSFTPackedDataset.collate_fn``/``_build_loss_mask``, which train token ``j + 1`` of a sequence
where ``loss_mask[j]`` is set (NVIDIA-NeMo/Megatron-Bridge, src/megatron/bridge/data/datasets/sft.py).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from datasets import load_dataset
from megatron.core.datasets.indexed_dataset import IndexedDataset
from transformers import AutoTokenizer

from codemix.mixtures.inspect import read_manifest
from codemix.mixtures.sft_shards import loss_mask_prefix


def shards(build: Path) -> list[tuple[str, list[np.ndarray], list[np.ndarray]]]:
    """Each SFT shard: (name, ids per sample, loss mask per sample), as megatron-core reads them."""
    found = []
    for prefix in read_manifest(str(build))["stages"]["sft"]["shards"]:
        tokens, masks = IndexedDataset(prefix), IndexedDataset(loss_mask_prefix(prefix))
        found.append((prefix.rsplit("/", 1)[1], [np.array(tokens[i]) for i in range(len(tokens))],
                      [np.array(masks[i]) for i in range(len(masks))]))
    assert found, "guard: the build wrote SFT shards"
    return found


@pytest.fixture(scope="module")
def hf_tokenizer(build):
    return AutoTokenizer.from_pretrained(str(build / "sft" / "chat"))


@pytest.mark.parametrize("layout", ["json", "parquet"])
def test_chat_rows_render_to_the_shard_ids_and_mask(build, hf_tokenizer, layout):
    """datasets loads each shard's rows; the exported template renders row i to sample i's ids, and
    its generation marks (return_assistant_tokens_mask) give the sample's loss mask."""
    checked, tool_calls = 0, 0
    for name, ids, masks in shards(build):
        suffix = "jsonl" if layout == "json" else "parquet"
        rows = load_dataset(layout, data_files=str(build / "sft" / "chat" / f"{name}.{suffix}"), split="train")
        assert len(rows) == len(ids)
        for row, sample_ids, sample_mask in zip(rows, ids, masks):
            out = hf_tokenizer.apply_chat_template(row["messages"], tokenize=True, return_dict=True,
                                                   return_assistant_tokens_mask=True)
            assert out["input_ids"] == sample_ids.tolist(), (name, row["sample"])
            assert out["assistant_masks"] == sample_mask.tolist(), (name, row["sample"])
            tool_calls += sum(len(m.get("tool_calls") or []) for m in row["messages"])
            checked += 1
    assert checked >= 3 and tool_calls > 0, "guard: several samples with tool calls were rendered"


def test_trl_prepares_the_chat_rows_to_the_shard_ids_and_labels(build, hf_tokenizer, tmp_path):
    """TRL's own SFT dataset preparation (conversational rows, assistant_only_loss) gives each sample's
    ids, and labels that are -100 exactly where the shard's loss mask is 0."""
    from trl import SFTConfig, SFTTrainer
    from trl.data_utils import is_conversational

    data = load_dataset("parquet", data_files=str(build / "sft" / "chat" / "*.parquet"), split="train")
    assert is_conversational(data[0])
    args = SFTConfig(output_dir=str(tmp_path), assistant_only_loss=True, max_length=None, shuffle_dataset=False,
                     use_cpu=True, bf16=False,
                     report_to=[])
    trainer = SimpleNamespace(_tokenizer=hf_tokenizer, completion_only_loss=False, chat_template=None)
    prepared = SFTTrainer._prepare_dataset(trainer, data, hf_tokenizer, args, False, None, "train")
    expected = {(name, i): (ids[i], masks[i]) for name, ids, masks in shards(build) for i in range(len(ids))}
    assert len(prepared) == len(expected)
    for row, source in zip(prepared, data):
        ids, mask = expected[source["shard"], source["document"]]
        assert row["input_ids"] == ids.tolist()
        assert [label != -100 for label in row["labels"]] == mask.astype(bool).tolist()


def test_chat_rows_are_openai_shaped(build):
    """verl's multi-turn SFT reads a parquet ``messages`` column of role/content dicts (tool calls in
    OpenAI's shape): checked against that documented layout with pyarrow."""
    table = pq.ParquetDataset([str(path) for path in sorted((build / "sft" / "chat").glob("*.parquet"))]).read()
    message = table.schema.field("messages").type.value_type
    assert {"role", "content", "tool_calls", "tool_call_id", "reasoning_content"} <= set(message.names)
    roles = {m["role"] for messages in table.column("messages").to_pylist() for m in messages}
    assert roles >= {"system", "user", "assistant"} and roles <= {"system", "user", "assistant", "tool"}
    calls = [c for messages in table.column("messages").to_pylist() for m in messages for c in m["tool_calls"] or []]
    assert calls and all(c["type"] == "function" and c["function"]["name"] for c in calls)


def test_packed_sequences_hold_the_shard_samples_in_the_readers_layout(build):
    """Megatron-Bridge's packed Parquet and NeMo's .npy: each pack's sequences (split at seq_start_id)
    are whole samples of the shard in order, and the loss mask trains the tokens the shard's mask does."""
    shared = 0
    for name, ids, masks in shards(build):
        packed = build / "sft" / "packed"
        table = pq.read_table(packed / f"{name}.idx.parquet")
        assert {"input_ids", "seq_start_id", "loss_mask"} == set(table.column_names)  # REQUIRED_COLUMNS
        documented = {"input_ids": pa.int32(), "seq_start_id": pa.int32(), "loss_mask": pa.int8()}  # its docstring
        assert all(table.schema.field(column).type.value_type == kind for column, kind in documented.items())
        rows = table.to_pylist()
        legacy = np.load(packed / f"{name}.npy", allow_pickle=True)
        assert [dict(item) for item in legacy] == rows
        metadata = json.loads((packed / f"{name}.metadata.json").read_text())
        assert metadata[0]["max_samples_per_bin"] == max(len(r["seq_start_id"]) for r in rows)
        sample = 0
        shared += sum(len(row["seq_start_id"]) > 1 for row in rows)
        for row in rows:
            bounds = [*row["seq_start_id"], len(row["input_ids"])]
            assert bounds[-1] <= metadata[0]["pack_size"]
            for start, end in itertools.pairwise(bounds):
                assert row["input_ids"][start:end] == ids[sample].tolist()
                # collate_fn: labels = input_ids[start + 1:end], their mask = loss_mask[start:end - 1]
                assert row["loss_mask"][start:end - 1] == masks[sample][1:].tolist()
                sample += 1
        assert sample == len(ids)
    assert shared, "guard: some pack holds several samples"
