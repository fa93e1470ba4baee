"""Bits per byte on held-out code: every token scored once, in the training loss's units."""

from __future__ import annotations

import json
import math
from pathlib import Path

import torch
import torch.nn.functional as F

from codemix.pretrain.configs import load_recipe
from codemix.pretrain.data.pretraining import HFTokenizerForMegatron
from codemix.pretrain.evaluate import document_windows, evaluate_run, evaluate_texts, read_eval_texts
from codemix.pretrain.loop import causal_mask, masked_loss
from codemix.pretrain.model.gpt import build_model, position_setup


def test_windows_predict_every_token_exactly_once():
    ids = list(range(10, 33))  # 23 ids
    windows = list(document_windows(ids, eod=0, sequence_length=8))
    assert [t for _, targets in windows for t in targets] == ids
    assert windows[0][0][0] == 0 and all(len(inputs) <= 8 for inputs, _ in windows)
    assert all(inputs[1:] == targets[:-1] for inputs, targets in windows)


def test_eval_rows_per_checkpoint_hold_bits_per_byte(short_run, heldout_dir):
    texts = read_eval_texts(str(heldout_dir))
    assert len(texts) == 2
    rows = evaluate_run(short_run.out_dir, {"heldout": texts})
    assert [row["step"] for row in rows] == [10, 20, 30]
    written = [json.loads(line) for line in (Path(short_run.out_dir) / "eval.jsonl").read_text().splitlines()]
    assert written == rows
    tokenizer = HFTokenizerForMegatron.from_file(str(Path(json.loads(
        (Path(short_run.out_dir) / "run.json").read_text())["data"]["build_dir"]) / "tokenizer.json"))
    for row in rows:
        assert set(row) >= {"run_id", "step", "tokens_seen", "eval_set", "loss_nats", "bits_per_byte"}
        assert row["tokens_seen"] == row["step"] * 16 * 64 and row["run_id"] == "short"
        assert row["tokens"] == sum(len(tokenizer.tokenize(t)) for t in texts)
        assert row["bytes"] == sum(len(t.encode("utf-8")) for t in texts)
        assert math.isclose(row["bits_per_byte"], row["loss_nats"] * row["tokens"] / (math.log(2) * row["bytes"]),
                            rel_tol=1e-12)
    assert rows[-1]["bits_per_byte"] < rows[0]["bits_per_byte"]  # training on code helps on unseen code


def test_eval_loss_is_the_training_loss_of_the_same_tokens(build_dir, runtime):
    """One held-out document, one window: the eval NLL equals the training loss function's on the same
    (inputs, labels), and an independent cross-entropy over the model's logits."""
    recipe = load_recipe("tiny")
    tokenizer = HFTokenizerForMegatron.from_file(str(build_dir / "tokenizer.json"))
    text = "def mean(values):\n    return sum(values) / len(values)\n"
    ids = tokenizer.tokenize(text)
    length = len(ids) + 3  # one window, with padding after it
    model = build_model(recipe, vocab_size=tokenizer.vocab_size, sequence_length=length,
                        position=position_setup(recipe, "short"), cpu=True)
    model.eval()
    result = evaluate_texts(model, tokenizer, [text], sequence_length=length, runtime=runtime)
    assert result.tokens == len(ids) and result.bytes == len(text.encode())

    inputs_1S = torch.tensor([[tokenizer.eod, *ids[:-1]]])
    labels_1S = torch.tensor([ids])
    positions_1S = torch.arange(len(ids)).unsqueeze(0)
    with torch.no_grad():
        losses_1S = model(inputs_1S, positions_1S, causal_mask(len(ids)), labels=labels_1S)
        training_sum, training_tokens, _ = masked_loss(torch.ones(1, len(ids)), losses_1S)
        logits_1SV = model(inputs_1S, positions_1S, causal_mask(len(ids))).float()
    independent = F.cross_entropy(logits_1SV[0], labels_1S[0], reduction="sum")
    assert int(training_tokens) == result.tokens
    assert math.isclose(result.loss_nats, float(training_sum) / int(training_tokens), rel_tol=1e-5)
    assert math.isclose(result.loss_nats_sum, float(independent), rel_tol=1e-5)
    assert math.isclose(result.bits_per_byte, result.loss_nats * result.tokens / (math.log(2) * result.bytes))
