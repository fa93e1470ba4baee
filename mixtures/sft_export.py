"""The SFT stage for other trainers: chat messages (TRL, verl) and packed sequences (NeMo, Megatron-Bridge).

Per SFT shard ``sft/SOURCE-SSSSS-of-NNNNN``, row i = sample i of the shard:

- ``sft/chat/NAME.jsonl`` and ``NAME.parquet``: ``messages`` in OpenAI's chat shape (``role``,
  ``content``, ``tool_calls`` with ``function.name``/``arguments``, ``tool_call_id``, ``reasoning_content``,
  ``weight: 0`` on an assistant turn not trained), with ``doc_id``, ``sample`` and ``shard``.
  ``sft/chat/`` also holds the tokenizer and ``chat_template.jinja``: rendering a row's messages with it
  and tokenizing gives the shard's ids (docs/design/mixtures.md, "SFT exports").
- ``sft/packed/NAME.idx.parquet`` (Megatron-Bridge's ``GPTSFTPackedParquetDataset``) and ``NAME.npy``
  (NeMo's ``GPTSFTPackedDataset``): samples in shard order packed into packs of at most the stage's
  sequence length (a new pack when the next does not fit), each pack ``input_ids``, ``loss_mask`` and ``seq_start_id``. The loss mask
  is stored as those readers take it: ``loss_mask[j]`` trains the prediction of token ``j + 1``
  (a sample's token mask shifted left by one, 0 at its last token; Megatron-Bridge's ``fill_packing_strategy``).
  ``NAME.metadata.json`` is the packing metadata list their ``pad_cu_seqlens`` reads.
"""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from codemix.mixtures.chat import ChatTemplate, ReasoningMode, chat_template_jinja, is_json_object, is_model_turn

CHAT_DIR, PACKED_DIR = "chat", "packed"
CALL = pa.struct([("id", pa.string()), ("type", pa.string()),
                  ("function", pa.struct([("name", pa.string()), ("arguments", pa.string())])),
                  ("kind", pa.string())])
MESSAGE = pa.struct([("role", pa.string()), ("content", pa.string()), ("reasoning_content", pa.string()),
                     ("tool_calls", pa.list_(CALL)), ("tool_call_id", pa.string()), ("name", pa.string()),
                     ("weight", pa.int8())])
CHAT_SCHEMA = pa.schema([("messages", pa.list_(MESSAGE)), ("doc_id", pa.string()), ("sample", pa.int64()),
                         ("shard", pa.string()), ("document", pa.int64())])
PACKED_SCHEMA = pa.schema([("input_ids", pa.list_(pa.int32())), ("loss_mask", pa.list_(pa.int8())),
                           ("seq_start_id", pa.list_(pa.int32()))])


def exported_call(call: dict[str, Any]) -> dict[str, Any]:
    """A canonical tool call in OpenAI's shape; ``arguments`` is the exact text training rendered
    (``chat.tool_call_json``), and ``kind`` is kept only for a free-text call."""
    arguments, kind = call["arguments"], call.get("kind", "function")
    if kind == "function" and not (isinstance(arguments, str) and is_json_object(arguments)):
        arguments = json.dumps(arguments, ensure_ascii=False)  # an object given as data: its JSON text
    exported = {"id": call.get("id") or "", "type": "function", "function": {"name": call["name"], "arguments": arguments}}
    return exported if kind == "function" else {**exported, "kind": kind}


def exported_message(message: dict[str, Any], reasoning: ReasoningMode) -> dict[str, Any]:
    """A canonical message in OpenAI's chat shape, with only the fields it uses."""
    exported = {"role": message["role"], "content": message["content"] or ""}
    if message.get("reasoning") and reasoning != "dropped":
        exported["reasoning_content"] = message["reasoning"]
    if message.get("tool_calls"):
        exported["tool_calls"] = [exported_call(call) for call in message["tool_calls"]]
    if message["role"] == "tool":
        exported |= {"tool_call_id": message.get("tool_call_id") or "", "name": message.get("name") or ""}
    if message["role"] == "assistant" and not is_model_turn(message):
        exported["weight"] = 0  # OpenAI fine-tuning's field: an assistant turn not trained (an observation)
    return exported


def chat_rows(shard: str, rows: Sequence[dict], samples: Sequence, reasoning: ReasoningMode) -> list[dict]:
    """One chat row per sample of a shard, beside its provenance row."""
    return [{"messages": [exported_message(m, reasoning) for m in sample.messages], "doc_id": row["doc_id"],
             "sample": row["sample"], "shard": shard, "document": index}
            for index, (row, sample) in enumerate(zip(rows, samples))]


def pack_in_order(lengths: Sequence[int], pack_size: int) -> list[list[int]]:
    """Sample indices per pack: samples in shard order, a new pack whenever the next does not fit, so
    a pack's sequences are consecutive documents of the shard (traceable by counting)."""
    packs: list[list[int]] = []
    room = 0
    for index, length in enumerate(lengths):
        if length > pack_size:
            raise ValueError(f"sample {index} has {length} tokens, more than the pack size {pack_size}")
        if not packs or length > room:
            packs.append([])
            room = pack_size
        packs[-1].append(index)
        room -= length
    return packs


def packed_rows(samples: Sequence, pack_size: int) -> list[dict[str, list[int]]]:
    """``{input_ids, loss_mask, seq_start_id}`` per pack; ``loss_mask`` in label alignment (module docstring)."""
    rows = []
    for pack in pack_in_order([len(s.tokens) for s in samples], pack_size):
        ids, mask, starts = [], [], []
        for index in pack:
            tokens, trained = samples[index].tokens, samples[index].loss_mask
            starts.append(len(ids))
            ids += tokens.tolist()
            mask += trained[1:].tolist() + [0]
        rows.append({"input_ids": ids, "loss_mask": mask, "seq_start_id": starts})
    return rows


def packing_metadata(rows: Sequence[dict], lengths: Sequence[int], pack_size: int) -> list[dict]:
    """Megatron-Bridge's packing metadata (one entry; its reader takes the maximum over entries)."""
    packed = [len(row["input_ids"]) for row in rows]
    return [{"dataset_max_seqlen": max(lengths), "max_samples_per_bin": max(len(r["seq_start_id"]) for r in rows),
             "min_packed_seqlen": min(packed), "packing_factor": round(len(lengths) / len(rows), 2),
             "packing_efficiency": round(sum(packed) / len(packed) / pack_size * 100, 2), "pack_size": pack_size}]


def export_paths(prefix: str) -> dict[str, str]:
    """Where the exports of SFT shard ``STAGE_DIR/NAME`` go."""
    stage_dir, name = prefix.rsplit("/", 1)
    chat, packed = f"{stage_dir}/{CHAT_DIR}/{name}", f"{stage_dir}/{PACKED_DIR}/{name}"
    return {"jsonl": f"{chat}.jsonl", "parquet": f"{chat}.parquet", "packed_parquet": f"{packed}.idx.parquet",
            "npy": f"{packed}.npy", "metadata": f"{packed}.metadata.json"}


def write_sft_exports(prefix: str, rows: Sequence[dict], samples: Sequence, reasoning: ReasoningMode,
                      pack_size: int) -> None:
    """Write every export of one SFT shard (see the module docstring); each file written whole, then renamed."""
    paths, shard = export_paths(prefix), prefix.rsplit("/", 1)[1]
    chats = chat_rows(shard, rows, samples, reasoning)
    _write(paths["jsonl"], "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in chats).encode())
    _write(paths["parquet"], _parquet(pa.Table.from_pylist(chats, schema=CHAT_SCHEMA)))
    packs = packed_rows(samples, pack_size)
    _write(paths["packed_parquet"], _parquet(pa.Table.from_pylist(packs, schema=PACKED_SCHEMA)))
    buffer = io.BytesIO()
    np.save(buffer, np.array(packs, dtype=object), allow_pickle=True)  # NeMo's .npy: an object array of dicts
    _write(paths["npy"], buffer.getvalue())
    metadata = packing_metadata(packs, [len(s.tokens) for s in samples], pack_size)
    _write(paths["metadata"], json.dumps(metadata).encode())


def _parquet(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


def _write(path: str, data: bytes) -> None:
    temporary = f"{path}.tmp-{uuid.uuid4().hex[:12]}"
    with FileSystems.create(temporary, compression_type=CompressionTypes.UNCOMPRESSED) as out:
        out.write(data)
    if FileSystems.exists(path):
        FileSystems.delete([path])
    FileSystems.rename([temporary], [path])


def tokenizer_files(template: ChatTemplate, reasoning: ReasoningMode, eod_token: str, pad_token: str,
                    sequence_length: int) -> dict[str, bytes]:
    """``chat_template.jinja`` and ``tokenizer_config.json`` for ``sft/chat/`` (beside a copy of the
    build's ``tokenizer.json``): ``AutoTokenizer.from_pretrained`` of the folder renders the rows as
    the shards hold them, and ``return_assistant_tokens_mask`` gives their loss mask."""
    jinja = chat_template_jinja(template, trained_reasoning=reasoning == "trained")
    config = {"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": None, "eos_token": eod_token,
              "pad_token": pad_token, "unk_token": None, "add_bos_token": False, "add_eos_token": False,
              "clean_up_tokenization_spaces": False, "model_max_length": sequence_length, "chat_template": jinja}
    return {"chat_template.jinja": jinja.encode(), "tokenizer_config.json": (json.dumps(config, indent=2) + "\n").encode()}
