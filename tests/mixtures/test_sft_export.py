"""Chat rows rendered by transformers reproduce the SFT sample's ids and loss mask in every reasoning
mode, with the turns the build test's transcripts may lack: reasoning, an assistant turn that is an
observation, a free-text tool call, arguments recorded as an object and calls an export described."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import numpy as np
import pytest
from transformers import PreTrainedTokenizerFast

from codemix.document import Document
from codemix.mixtures.sft import SFTConfig, sft_samples
from codemix.mixtures.sft_export import exported_message, packed_rows, tokenizer_files
from codemix.mixtures.tokenizer import train_bpe

STDLIB = Path(sysconfig.get_path("stdlib"))


def message(role: str, content: str = "", **fields) -> dict:
    return {"role": role, "content": content, "reasoning": "", "tool_calls": [], "tool_call_id": "", "name": "",
            "observation": False, **fields}


MESSAGES = [
    message("system", "You are a coding agent."),
    message("user", "Fix the failing test in json/decoder.py and say what was wrong."),
    message("assistant", "I will look at the decoder first.", reasoning="The error mentions scanstring; read it.",
            tool_calls=[{"id": "c1", "name": "bash", "arguments": '{"command":  "grep -n scanstring json/decoder.py"}'}]),
    message("tool", "71:def py_scanstring(s, end, strict=True,", tool_call_id="c1", name="bash"),
    message("assistant", "[harness] the command finished with exit status 0", observation=True),
    message("assistant", "", tool_calls=[{"id": "c2", "name": "apply_patch", "kind": "custom",
                                          "arguments": "*** Begin Patch\n-    end = 0\n+    end = 1\n*** End Patch"},
                                         {"id": "c3", "name": "bash", "arguments": {"command": "pytest -q"}}]),
    message("tool", "1 passed", tool_call_id="c3", name="bash"),
    # calls an export described in its own words (Windsurf's action lines): shown, never trained
    message("assistant", "Let me read the test too.", tool_calls=[
        {"id": "", "name": "Viewed", "kind": "described", "arguments": "[test_decoder.py](file:///repo/test_decoder.py)"}]),
    message("assistant", "", tool_calls=[{"id": "", "name": "Ran", "kind": "described", "arguments": "pytest -q"}]),
    message("assistant", "The end index started at 0; it starts at 1 now and the test passes."),
]


@pytest.fixture(scope="module")
def tokenizer():
    texts = [path.read_text(encoding="utf-8") for path in sorted(STDLIB.glob("json/*.py"))]
    return train_bpe(texts + [m["content"] + m["reasoning"] for m in MESSAGES], vocab_size=600)


@pytest.mark.parametrize("reasoning", ["masked", "trained", "dropped"])
def test_transformers_renders_the_sample_and_its_mask(tokenizer, tmp_path, reasoning):
    config = SFTConfig(outcome_policy="any", reasoning=reasoning, min_tokens=1)
    doc = Document(id="t", text="", source="s", kind="transcript", metadata={"messages": MESSAGES})
    (sample,), _ = sft_samples(doc, tokenizer, 1 << 16, config)
    files = tokenizer_files(config.template, reasoning, "<|endoftext|>", "<|pad|>", 1 << 16)
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    hf = PreTrainedTokenizerFast.from_pretrained(str(tmp_path))
    rows = [exported_message(m, reasoning) for m in sample.messages]
    assert [m.get("weight") for m in rows].count(0) == 1 and {c.get("kind") for m in rows for c in m.get(
        "tool_calls", [])} >= {"custom", "described"}, "guard: an observation turn, free-text and described calls exported"
    assert ("reasoning_content" in rows[2]) == (reasoning != "dropped")
    out = hf.apply_chat_template(rows, tokenize=True, return_dict=True, return_assistant_tokens_mask=True)
    assert out["input_ids"] == sample.tokens.tolist()
    assert out["assistant_masks"] == sample.loss_mask.tolist()
    trained = tokenizer.decode([t for t, m in zip(sample.tokens.tolist(), sample.loss_mask.tolist()) if m])
    shown = tokenizer.decode(sample.tokens.tolist())
    assert "Let me read the test too." in trained and "Viewed" in shown and "Viewed" not in trained
    assert '"Ran"' in shown and '"Ran"' not in trained


def test_packs_hold_consecutive_samples_within_the_pack_size():
    class Sample:
        def __init__(self, n):
            self.tokens, self.loss_mask = np.arange(n, dtype=np.int32), np.ones(n, dtype=np.uint8)

    rows = packed_rows([Sample(5), Sample(4), Sample(2), Sample(6)], pack_size=8)
    assert [row["seq_start_id"] for row in rows] == [[0], [0, 4], [0]]  # 5 | 4 2 | 6
    assert all(len(row["input_ids"]) <= 8 and len(row["loss_mask"]) == len(row["input_ids"]) for row in rows)
    with pytest.raises(ValueError, match="more than the pack size"):
        packed_rows([Sample(9)], pack_size=8)
