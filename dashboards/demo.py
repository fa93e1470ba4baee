"""`make dash-demo`: the dashboard of the demo build, with synthetic training and RL results.

Reads ``out/demo`` (run ``make demo`` first) and invents, with a fixed seed, what training and RL
would write for two continued-pretraining runs: eval JSON lines on three held-out sets, RL results
for three benchmarks (one evaluated at only two checkpoints, to show the "fewer than 3 points"
message) and a Megatron-style TensorBoard event file. Writes ``out/dash/dashboard.html``, its
``.fits.json`` and a Chromium screenshot ``out/dash/dashboard.png``.

    python -m codemix.dashboards.demo [--build out/demo] [--out out/dash] [--target-ppl 2.8]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

import numpy as np

from codemix.dashboards.browser import BrowserError, screenshot
from codemix.dashboards.render import DashboardInputs, write_dashboard

RUNS = {"cpt-short": 1.0, "cpt-long": 0.93}  # run -> how fast its loss falls, relative
STEPS = (500, 1000, 2000, 3000, 4000, 6000, 8000)
TOKENS_PER_STEP = 4096 * 256
# eval set -> (loss floor in nats per token, tokens per byte): code compresses better than prose.
EVAL_SETS = {"code-heldout": (0.55, 0.30), "stdlib-heldout": (0.45, 0.28), "web-text": (1.9, 0.25)}
# run -> steps evaluated, per benchmark; mbpp only twice, too few checkpoints for a fit.
BENCHMARK_STEPS = {"humaneval": dict.fromkeys(RUNS, STEPS), "swe-bench-lite": dict.fromkeys(RUNS, STEPS),
                   "mbpp": {"cpt-short": (4000, 8000)}}


def loss_at(eval_set: str, run: str, step: int) -> float:
    """A Chinchilla-like loss curve: floor + A / tokens^alpha, a little slower for the second run."""
    floor, _ = EVAL_SETS[eval_set]
    return floor + 9.0 * (RUNS[run] * step * TOKENS_PER_STEP) ** -0.12


def eval_rows() -> list[dict]:
    rows = []
    for run in RUNS:
        for step in STEPS:
            for eval_set, (_, tokens_per_byte) in EVAL_SETS.items():
                loss = loss_at(eval_set, run, step)
                rows.append({"run_id": run, "step": step, "tokens_seen": step * TOKENS_PER_STEP,
                             "eval_set": eval_set, "loss_nats": round(loss, 6),
                             "bits_per_byte": round(loss / math.log(2) * tokens_per_byte, 6)})
    return rows


def rl_rows(rng: np.random.Generator) -> list[dict]:
    """RL metrics as a sigmoid of the code loss (OLMo-ladder shape) plus noise."""
    shapes = {"humaneval": ("pass@1", 0.55, 0.05), "swe-bench-lite": ("resolved", 0.25, 0.0),
              "mbpp": ("pass@1", 0.6, 0.1)}
    rows = []
    for benchmark, (metric, reach, floor) in shapes.items():
        for run, steps in BENCHMARK_STEPS[benchmark].items():
            for step in steps:
                loss = loss_at("code-heldout", run, step)
                value = floor + reach / (1 + math.exp(12 * (loss - 1.35))) + rng.normal(0, 0.01)
                rows.append({"run_id": run, "step": step, "benchmark": benchmark, "metric": metric,
                             "value": round(min(max(value, 0.0), 1.0), 4)})
    return rows


def write_tensorboard(directory: str, run: str) -> str:
    """Megatron's scalar tags (``lm loss``, ``lm loss validation``, ``lm loss validation ppl``) via torch's writer."""
    from torch.utils.tensorboard import SummaryWriter

    path = os.path.join(directory, run)
    if os.path.isdir(path):
        for name in os.listdir(path):
            os.remove(os.path.join(path, name))
    writer = SummaryWriter(log_dir=path)
    for step in range(100, STEPS[-1] + 1, 100):
        writer.add_scalar("lm loss", loss_at("stdlib-heldout", run, step) + 0.05, step)
    for step in STEPS:
        loss = loss_at("stdlib-heldout", run, step) + 0.08
        writer.add_scalar("lm loss validation", loss, step)
        writer.add_scalar("lm loss validation ppl", math.exp(loss), step)
    writer.close()
    return path


def write_jsonl(path: str, rows: list[dict]) -> str:
    with open(path, "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row, sort_keys=True) + "\n" for row in rows)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codemix.dashboards.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="out/demo", help="a finished mix build output directory")
    parser.add_argument("--out", default="out/dash")
    parser.add_argument("--target-ppl", type=float, default=2.8)
    args = parser.parse_args(argv)
    if not os.path.exists(os.path.join(args.build, "manifest.json")):
        print(f"{args.build}/manifest.json not found: run `make demo` first", file=sys.stderr)
        return 2
    inputs = os.path.join(args.out, "inputs")
    os.makedirs(inputs, exist_ok=True)
    eval_file = write_jsonl(os.path.join(inputs, "eval.jsonl"), eval_rows())
    rl_file = write_jsonl(os.path.join(inputs, "rl.jsonl"), rl_rows(np.random.default_rng(0)))
    tensorboard = os.path.join(inputs, "tensorboard")
    for run in RUNS:
        write_tensorboard(tensorboard, run)
    html_path = os.path.join(args.out, "dashboard.html")
    result = write_dashboard(DashboardInputs(builds=[args.build], eval_jsonl=[eval_file], rl_results=[rl_file],
                                             tensorboard_dirs=[tensorboard], out_html=html_path,
                                             target_ppl=args.target_ppl,
                                             title="codemix dashboard: demo build, synthetic training and RL"))
    print(f"wrote {result.html_path} ({result.figures} figures) and {result.fits_path}")
    for message in result.messages:
        print(f"  note: {message}")
    try:
        png = screenshot(html_path, os.path.join(args.out, "dashboard.png"), height=9000)
    except BrowserError as error:
        print(f"no screenshot: {error}", file=sys.stderr)
        return 1
    trim_background(png)
    print(f"screenshot {png}")
    return 0


def trim_background(png: str, margin: int = 24) -> None:
    """Cut the empty page background below the last card, so the PNG is as long as the page."""
    from PIL import Image, ImageChops

    with Image.open(png) as image:
        rgb = image.convert("RGB")
    background = Image.new("RGB", rgb.size, rgb.getpixel((rgb.width - 1, rgb.height - 1)))
    box = ImageChops.difference(rgb, background).getbbox()
    if box:
        rgb.crop((0, 0, rgb.width, min(rgb.height, box[3] + margin))).save(png)


if __name__ == "__main__":
    sys.exit(main())
