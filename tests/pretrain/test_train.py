"""Training tiny on `mix build` shards: the loss falls, every step is logged, resume is bit-exact."""

from __future__ import annotations

import json
import math
from pathlib import Path

import torch

from codemix.pretrain.checkpoint import checkpoint_path
from codemix.pretrain.configs import load_recipe
from codemix.pretrain.model.gpt import padded_vocab_size
from codemix.pretrain.model.params import count_parameters

from .conftest import SAVE_INTERVAL, SHORT_STEPS, train


def test_thirty_steps_of_tiny_lower_the_loss_clearly(short_run):
    losses = [row["loss"] for row in short_run.rows]
    assert len(losses) == SHORT_STEPS
    # A fresh model predicts ~uniformly over the padded vocabulary: the run starts from scratch.
    assert abs(losses[0] - math.log(padded_vocab_size(1000))) < 0.15
    assert sum(losses[-5:]) / 5 < losses[0] - 0.8, losses


def test_every_step_logs_loss_throughput_mfu_and_router_load(short_run):
    rows = [json.loads(line) for line in (Path(short_run.out_dir) / "metrics.jsonl").read_text().splitlines()]
    assert [row["step"] for row in rows] == list(range(1, SHORT_STEPS + 1))
    active = count_parameters(load_recipe("tiny").model, padded_vocab_size(1000)).active_matmul
    for row in rows:
        assert row["tokens"] == 16 * 64 and row["tokens_per_s"] > 0
        # MFU = 6 N_active T / t / peak, with the --peak-tflops 0.05 the fixture passed.
        expected = 6 * active * row["tokens_per_s"] / 0.05e12
        assert math.isclose(row["mfu"], expected, rel_tol=1e-9)
        assert len(row["load_balancing_loss"]) == 2 and all(x >= 0.99 for x in row["load_balancing_loss"])
        assert len(row["expert_load"]) == 2 and all(len(layer) == 4 for layer in row["expert_load"])
        assert all(math.isclose(sum(layer), 1.0) for layer in row["expert_load"])
        assert all(1.0 <= x <= 2.0 for x in row["expert_imbalance"])  # top-2 of 4: 2.0 is total collapse


def test_tokens_are_counted_per_source_of_the_blend(short_run):
    state = short_run.state
    assert state.tokens_seen == SHORT_STEPS * 16 * 64  # global batch 16 of 64 tokens
    assert set(state.tokens_per_source) == {"code", "more", "runs"}
    assert sum(state.tokens_per_source.values()) == state.tokens_seen
    assert state.tokens_per_source["code"] > 2 * state.tokens_per_source["runs"]  # weights 1.0 vs 0.2


def test_resume_from_a_checkpoint_reproduces_the_following_steps_exactly(short_run, build_dir, tmp_path):
    """Weights, Adam moments, step, data position and RNG all come back: losses match to the bit."""
    resume_step = SHORT_STEPS - SAVE_INTERVAL
    resumed = train(build_dir, tmp_path / "resumed", "short", SHORT_STEPS,
                    resume_from=str(checkpoint_path(short_run.out_dir, resume_step)))
    assert [row["step"] for row in resumed.rows] == list(range(resume_step + 1, SHORT_STEPS + 1))
    assert [row["loss"] for row in resumed.rows] == [row["loss"] for row in short_run.rows[resume_step:]]
    assert resumed.state == short_run.state
    assert_same_checkpoint_tensors(short_run.checkpoint, resumed.checkpoint)


def assert_same_checkpoint_tensors(a: str, b: str) -> None:
    from megatron.core import dist_checkpointing

    from codemix.pretrain.configs import ParallelConfig
    from codemix.pretrain.parallel import initialize, shutdown

    runtime = initialize(ParallelConfig(), seed=0)
    try:
        first, second = dist_checkpointing.load_plain_tensors(a), dist_checkpointing.load_plain_tensors(b)
    finally:
        shutdown(runtime)
    tensors = [k for k, v in first.items() if isinstance(v, torch.Tensor) and k != "rng_state"]
    assert any(k.startswith("optimizer.state.exp_avg.") for k in tensors), "guard: optimizer moments are saved"
    for key in tensors:
        assert torch.equal(first[key], second[key]), key


def test_long_stage_starts_from_short_weights_with_yarn(long_run, short_run):
    record = json.loads((Path(long_run.out_dir) / "run.json").read_text())
    assert record["position"] == {"kind": "yarn", "factor": 2048 / 256, "linear": False}
    assert record["sequence_length"] == 1024 and record["init_from"] == short_run.checkpoint
    # Continued, not from scratch: the long stage starts near where short ended, far below ln(V).
    assert long_run.rows[0]["loss"] < short_run.rows[0]["loss"] - 0.5
