"""GPU paths: megatron-core's schedule, DDP and distributed optimizer, BF16 and FP8. Skipped without CUDA."""

from __future__ import annotations

import pytest
import torch

from bench.pretrain_gpu import main as bench_main
from pretrain.configs import load_recipe
from pretrain.parallel import HAVE_TE
from pretrain.run import TrainOptions, run

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def test_gpu_benchmark_explains_why_it_cannot_run_here(capsys, tmp_path):
    if torch.cuda.is_available() and HAVE_TE:
        pytest.skip("this machine can run the benchmark")
    assert bench_main(["--data", str(tmp_path), "--results", str(tmp_path / "RESULTS.md")]) == 2
    assert "bench.pretrain_gpu needs" in capsys.readouterr().err
    assert not (tmp_path / "RESULTS.md").exists()


@needs_cuda
@pytest.mark.parametrize("fp8", [None, pytest.param("tensorwise", marks=pytest.mark.skipif(not HAVE_TE, reason="needs TE"))])
def test_tiny_trains_on_gpu_through_megatrons_schedule(build_dir, tmp_path, fp8):
    overrides = ["precision.fp8=e4m3", f"precision.fp8_recipe={fp8}"] if fp8 else []
    summary = run(TrainOptions(recipe=load_recipe("tiny", overrides), stage="short", data_dir=str(build_dir),
                               out_dir=str(tmp_path / "gpu"), steps=10))
    losses = [row["loss"] for row in summary.rows]
    assert all(torch.isfinite(torch.tensor(losses))) and losses[-1] < losses[0]
    assert summary.rows[-1]["mfu"] is None or summary.rows[-1]["mfu"] > 0
