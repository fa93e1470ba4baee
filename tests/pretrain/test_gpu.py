"""The GPU benchmark (bench/pretrain_gpu.py) and GPU training paths.

On CPU the benchmark's ``--dry-run`` takes the code it times on a GPU (warm start from a checkpoint,
prefetch, ``bench_step``, device-side statistics, the host-sync audit), so its "no host sync of ours in the
timed step" property is checked here on every machine; the CUDA tests run it for real where a GPU is.
"""

from __future__ import annotations

import argparse
import math

import pytest
import torch

from bench.pretrain_gpu import HostSyncs, build_parser, resolve, run_all
from bench.pretrain_gpu import main as bench_main
from codemix.pretrain.configs import load_recipe
from codemix.pretrain.gpus import identify_gpu
from codemix.pretrain.parallel import HAVE_TE
from codemix.pretrain.run import TrainOptions, run

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def dry_run_args(build_dir, tmp_path, *extra: str) -> argparse.Namespace:
    return resolve(build_parser().parse_args(["--data", str(build_dir), "--dry-run", "--work", str(tmp_path / "work"),
                                              "--recipes", "tensorwise", "mxfp8", *extra]))


def test_gpu_benchmark_explains_why_it_cannot_run_here(capsys, tmp_path):
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    assert bench_main(["--data", str(tmp_path), "--results", str(tmp_path / "RESULTS.md")]) == 2
    err = capsys.readouterr().err
    assert "needs a CUDA GPU" in err and "--dry-run" in err
    assert not (tmp_path / "RESULTS.md").exists()


def test_dry_run_times_bf16_and_each_recipe_with_no_host_sync_of_ours(build_dir, tmp_path, one_thread):
    """The timed step reads nothing back to the host; megatron-core's own syncs (dropless MoE token
    counts, which size its expert GEMMs) are counted apart, and are all in megatron's or torch's files."""
    results = run_all(dry_run_args(build_dir, tmp_path), tmp_path / "work")
    assert list(results) == ["bf16", "tensorwise", "mxfp8"]
    for precision, result in results.items():
        assert isinstance(result, dict), (precision, result)
        assert result["syncs_ours"] == 0, result["sync_sites"]
        assert result["syncs_framework"] > 0
        # megatron-core's MoE layers, and the CPU stand-in optimizer's host-side step counters (torch's AdamW).
        assert all(s.startswith(("framework:megatron/", "framework:torch/optim/")) for s in result["sync_sites"])
        assert math.isfinite(result["loss"]) and result["tokens_per_s"] > 0
    # Warm start: every precision resumed the same checkpoint on the same batches, so their first losses (taken
    # before any update) differ by rounding alone: ~1e-5 relative here, where a random start is ~12% off. The
    # mean over the timed steps is not compared: training at the peak LR compounds the rounding (it once
    # reached 1.1% with a collapsed router).
    for precision in ("tensorwise", "mxfp8"):
        gap = abs(results[precision]["first_loss"] - results["bf16"]["first_loss"])
        assert gap < 0.005 * results["bf16"]["first_loss"], (precision, results)
    assert (tmp_path / "work" / "base" / "checkpoints" / "latest").is_file()
    assert not (tmp_path / "work" / "bf16" / "checkpoints").exists(), "no checkpoint is written by timed runs"


def test_the_audit_catches_a_host_copy_in_our_code(build_dir, tmp_path, one_thread, monkeypatch):
    """Guard: the expert-load hook as it was (a host copy per router call) is counted as ours."""
    from codemix.pretrain import metrics

    def host_copy_hook(self, layer):
        def record(module, inputs, outputs) -> None:
            self.peek()[layer] += outputs[1].sum(dim=0).to("cpu", torch.int64)

        return record

    monkeypatch.setattr(metrics.ExpertLoadMonitor, "_hook", host_copy_hook)
    monkeypatch.setattr(metrics.ExpertLoadMonitor, "peek", lambda self: self.__dict__.setdefault(
        "_host_counts", torch.zeros(len(self.routers), self.num_experts, dtype=torch.int64)))
    result = run_all(dry_run_args(build_dir, tmp_path, "--recipes"), tmp_path / "work")["bf16"]
    microbatches = 2  # tiny's short stage: global batch 16 / micro batch 8
    assert result["syncs_ours"] == 2 * microbatches  # 2 MoE layers, one copy per router call
    assert any(site.startswith("codemix:tests/pretrain/test_gpu.py:record") for site in result["sync_sites"])


def test_host_sync_counter_attributes_each_kind_of_sync():
    x = torch.arange(3.0)
    with HostSyncs() as syncs:
        float(x[0]), x.tolist(), x.to("cpu"), x.item() if x.numel() == 1 else x.sum().item(), bool(x[1])
        x.to(torch.float64)  # a dtype change is not a host copy
    assert syncs.count(ours=True) == 5 and syncs.count(ours=False) == 0


@pytest.mark.parametrize(("name", "sms", "sku", "bf16"), [
    ("NVIDIA H100 80GB HBM3", 132, "H100 SXM", 989.5), ("NVIDIA H100 PCIe", 114, "H100 PCIe", 756.5),
    ("NVIDIA H100 NVL", 132, "H100 NVL", 835.5), ("NVIDIA H200", 132, "H200 SXM", 989.5),
    ("NVIDIA H200 NVL", 132, "H200 NVL", 835.5), ("NVIDIA B200", 148, "B200", 2250.0),
    ("NVIDIA A100-SXM4-80GB", 108, "A100", 312.0),
])
def test_mfu_peak_is_the_gpus_own_sku(name, sms, sku, bf16):
    spec = identify_gpu(name, sms)
    assert spec.sku == sku and spec.bf16_tflops == bf16
    assert spec.peak_tflops(fp8=True) == (pytest.approx(2 * bf16, rel=1e-3) if sku != "A100" else bf16)


def test_an_unknown_gpu_gets_no_peak_rather_than_a_guess():
    assert identify_gpu("NVIDIA RTX 4090", 128) is None
    assert identify_gpu("NVIDIA H100 something new", 144) is None


@needs_cuda
def test_gpu_benchmark_runs_tiny_with_no_host_sync_of_ours(build_dir, tmp_path):
    args = resolve(build_parser().parse_args(["--data", str(build_dir), "--model", "tiny", "--base-steps", "4",
                                              "--warmup", "1", "--steps", "3", "--work", str(tmp_path / "w")]))
    results = run_all(args, tmp_path / "w")
    assert results["bf16"]["syncs_ours"] == 0 and results["bf16"]["tokens_per_s"] > 0
    for recipe in ("tensorwise", "delayed", "blockwise", "mxfp8"):
        assert isinstance(results[recipe], (dict, str))  # measured, or refused with the reason


@needs_cuda
@pytest.mark.parametrize("fp8", [None, pytest.param("tensorwise", marks=pytest.mark.skipif(not HAVE_TE, reason="needs TE"))])
def test_tiny_trains_on_gpu_through_megatrons_schedule(build_dir, tmp_path, fp8):
    overrides = ["precision.fp8=e4m3", f"precision.fp8_recipe={fp8}"] if fp8 else []
    summary = run(TrainOptions(recipe=load_recipe("tiny", overrides), stage="short", data_dir=str(build_dir),
                               out_dir=str(tmp_path / "gpu"), steps=10))
    losses = [row["loss"] for row in summary.rows]
    assert all(torch.isfinite(torch.tensor(losses))) and losses[-1] < losses[0]
    assert summary.rows[-1]["mfu"] is None or summary.rows[-1]["mfu"] > 0
