"""BF16 vs FP8 continued pretraining on one CUDA machine: tokens/s, MFU and the loss gap.

Run by hand from the repository root on a GPU machine with Transformer Engine (pytest does not
collect it)::

    .venv/bin/python -m bench.pretrain_gpu --data out/demo                       # h100-1b, 40 steps each
    .venv/bin/python -m bench.pretrain_gpu --data out/demo --model tiny --steps 20 --fp8-recipe mxfp8
    torchrun --nproc-per-node 8 -m bench.pretrain_gpu --data out/demo            # one row for 8 GPUs

Both runs train the same recipe from the same seed on the same batches (``pretrain.run``), once in
BF16 and once with ``precision.fp8: e4m3`` and the chosen ``fp8_recipe`` (tensorwise or blockwise
on Hopper, mxfp8 on Blackwell). Reported per run: median tokens/s over the steps after
``--warmup`` (compilation, allocator and TE autotuning settle first), MFU against the GPU's
datasheet BF16 peak for both (so the FP8 speed-up reads directly), and the mean loss of the last
``--tail`` steps; the loss gap is FP8 minus BF16. One row per invocation is appended to this
script's block of ``bench/RESULTS.md``. Without CUDA (or without TE) it exits with a message.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import tempfile
from pathlib import Path

import torch

BENCH = Path(__file__).resolve().parent
BEGIN, END = "<!-- bench.pretrain_gpu: generated, begin -->", "<!-- bench.pretrain_gpu: generated, end -->"
HEADER = ("| date | device | GPUs | model | stage | seq | steps | fp8 recipe | BF16 tok/s | FP8 tok/s | speed-up "
          "| BF16 MFU | FP8 MFU | BF16 loss | FP8 loss | loss gap |\n|" + "---|" * 16 + "\n")


def refuse_without_gpu() -> str | None:
    """Why this machine cannot run the benchmark, or None."""
    if not torch.cuda.is_available():
        return "bench.pretrain_gpu needs a CUDA GPU (torch.cuda.is_available() is False); run it on an H100/H200/B200"
    from pretrain.parallel import HAVE_TE

    if not HAVE_TE:
        return "bench.pretrain_gpu needs NVIDIA Transformer Engine for the FP8 run: pip install 'transformer_engine[pytorch]'"
    return None


def measure(args: argparse.Namespace, fp8_recipe: str | None, out: Path) -> dict:
    """Train one run and reduce its metrics to (tokens/s, MFU, tail loss)."""
    from pretrain.configs import load_recipe
    from pretrain.run import TrainOptions, run

    overrides = list(args.set) + (["precision.fp8=e4m3", f"precision.fp8_recipe={fp8_recipe}"] if fp8_recipe else [])
    summary = run(TrainOptions(recipe=load_recipe(args.model, overrides), stage=args.stage, data_dir=args.data,
                               out_dir=str(out), steps=args.steps, sequence_length=args.seq_length,
                               peak_tflops=args.peak_tflops))
    timed = summary.rows[args.warmup:]
    return {"tokens_per_s": statistics.median(r["tokens_per_s"] for r in timed),
            "mfu": statistics.median(r["mfu"] for r in timed) if timed[0]["mfu"] is not None else None,
            "loss": statistics.fmean(r["loss"] for r in summary.rows[-args.tail:])}


def bf16_peak(args: argparse.Namespace) -> float | None:
    """The GPU's BF16 peak for both runs' MFU (the FP8 run would otherwise default to twice it)."""
    from pretrain.parallel import PEAK_BF16_TFLOPS

    name = torch.cuda.get_device_name()
    return args.peak_tflops or next((p for key, p in PEAK_BF16_TFLOPS.items() if key in name), None)


def percent(value: float | None) -> str:
    return f"{value:.1%}" if value is not None else "n/a"


def result_row(args: argparse.Namespace, bf16: dict, fp8: dict) -> str:
    cells = [datetime.date.today().isoformat(), torch.cuda.get_device_name(), str(max(1, torch.cuda.device_count())),
             args.model, args.stage, str(args.seq_length or "manifest"), str(args.steps), args.fp8_recipe,
             f"{bf16['tokens_per_s']:,.0f}", f"{fp8['tokens_per_s']:,.0f}", f"{fp8['tokens_per_s'] / bf16['tokens_per_s']:.2f}x",
             percent(bf16["mfu"]), percent(fp8["mfu"]), f"{bf16['loss']:.4f}", f"{fp8['loss']:.4f}", f"{fp8['loss'] - bf16['loss']:+.4f}"]
    return "| " + " | ".join(cells) + " |\n"


def append_result(path: Path, row: str) -> None:
    """Append ``row`` to this script's table in RESULTS.md, leaving every other block as it was."""
    old = path.read_text() if path.is_file() else "# Benchmarks\n\n"
    if BEGIN in old and END in old:
        head, rest = old.split(BEGIN, 1)
        block, tail = rest.split(END, 1)
        path.write_text(f"{head}{BEGIN}{block}{row}{END}{tail}")
    else:
        intro = "\n## Pretraining throughput: BF16 vs FP8 (`bench/pretrain_gpu.py`)\n\n"
        path.write_text(f"{old.rstrip()}\n{intro}{BEGIN}\n{HEADER}{row}{END}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pretrain_gpu", description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="a `mix build` output directory")
    parser.add_argument("--model", default="h100-1b")
    parser.add_argument("--stage", default="short")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=10, help="steps left out of the throughput median")
    parser.add_argument("--tail", type=int, default=10, help="steps averaged for the loss comparison")
    parser.add_argument("--seq-length", type=int)
    parser.add_argument("--fp8-recipe", default="tensorwise", choices=("tensorwise", "blockwise", "mxfp8", "delayed"))
    parser.add_argument("--peak-tflops", type=float, help="BF16 peak per GPU for MFU (default: datasheet)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="recipe override")
    parser.add_argument("--results", type=Path, default=BENCH / "RESULTS.md")
    args = parser.parse_args(argv)
    reason = refuse_without_gpu()
    if reason:
        print(reason, file=sys.stderr)
        return 2
    if args.steps <= args.warmup:
        parser.error("--steps must exceed --warmup")
    args.peak_tflops = bf16_peak(args)
    with tempfile.TemporaryDirectory(prefix="bench-pretrain-") as scratch:
        bf16 = measure(args, None, Path(scratch) / "bf16")
        fp8 = measure(args, args.fp8_recipe, Path(scratch) / "fp8")
    row = result_row(args, bf16, fp8)
    if int(os.environ.get("RANK", "0")) == 0:  # each run tore its process group down; torchrun's RANK remains
        append_result(args.results, row)
    print(HEADER + row, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
