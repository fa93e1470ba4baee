"""FP8 recipes emulated on CPU: the tiny MoE trained in BF16 and under each recipe, same data, same seed.

    .venv/bin/python -m bench.pretrain_fp8_cpu                      # 300 steps each, ~20 min on 1 thread
    .venv/bin/python -m bench.pretrain_fp8_cpu --steps 30 --no-write  # a quick look

Builds a small code mixture from the standard library (``mix build``, once, in ``--work``), then
trains recipe ``tiny`` on its ``short`` stage with ``precision.emulate: true`` (``pretrain.model.fp8``):
the BF16 baseline rounds the transformer layers' GEMM operands to BF16, each FP8 recipe
quantise-dequantises them as Transformer Engine does, everything else runs in fp32. Plain fp32
(no emulation) is trained too, for scale. Each run is repeated for every ``--seeds`` value (the seed
sets both the initial weights and the data order): on a model this small any perturbation of the
arithmetic, BF16 vs fp32 included, moves the whole trajectory, and the spread over seeds is the yardstick
a recipe's gap has to be read against. Reported: the loss curve (mean over seeds of each 25-step
window) and the final loss, mean of the last ``--tail`` steps, per seed and its gap to BF16 on the
same seed; then each recipe's paired gap (same seed: same initial weights and data order) as a mean
with its 95% t-interval over seeds, and whether that interval resolves a 1% claim. The results
replace this script's block of ``bench/RESULTS.md``; ``--report curves.json`` rewrites it from a
saved run. Runs go seed by seed, so an interrupted run leaves whole pairs in curves.json.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import torch
import yaml

BENCH = Path(__file__).resolve().parent
BEGIN, END = "<!-- bench.pretrain_fp8_cpu: generated, begin -->", "<!-- bench.pretrain_fp8_cpu: generated, end -->"
RUNS = {"fp32": [], "bf16": ["precision.emulate=true"]} | {
    recipe: ["precision.emulate=true", "precision.fp8=e4m3", f"precision.fp8_recipe={recipe}"]
    for recipe in ("delayed", "tensorwise", "blockwise", "mxfp8")}
STDLIB = Path(sysconfig.get_path("stdlib"))
# Real, varied Python: ~0.9 MB of source, enough that 300 steps x 16 x 64 tokens never repeat a batch.
PACKAGES = ["json", "email", "asyncio", "importlib", "logging", "concurrent", "http", "xml", "unittest", "urllib"]


def build_data(work: Path) -> Path:
    """A `mix build` of a few stdlib packages (short stage: 64-token sequences), reused when present."""
    out = work / "build"
    if (out / "manifest.json").is_file():
        return out
    code = work / "code"
    for package in PACKAGES:
        shutil.copytree(STDLIB / package, code / package, dirs_exist_ok=True, ignore=shutil.ignore_patterns("test*"))
    spec = {"name": "fp8-cpu-bench",
            "sources": [{"name": "code", "type": "directory", "paths": [str(code)], "include": ["*.py"],
                         "license": "PSF-2.0"}],
            "stages": {"short": {"sequence_length": 64, "token_budget": 400_000, "weights": {"code": 1.0}}},
            "tokenizer": {"vocab_size": 1000}}
    (work / "spec.yaml").write_text(yaml.safe_dump(spec))
    subprocess.run([sys.executable, "-m", "codemix.mix", "build", str(work / "spec.yaml"), "--out", str(out)], check=True)
    return out


def train(name: str, overrides: list[str], data: Path, work: Path, steps: int, seed: int) -> list[float]:
    """Per-step losses of one run (a fresh run directory each time)."""
    from codemix.pretrain.configs import load_recipe
    from codemix.pretrain.run import TrainOptions, run

    out = work / "runs" / f"{name}-{seed}"
    shutil.rmtree(out, ignore_errors=True)
    # The recipe's own sequence length is longer than this bench's 64-token build: take the build's.
    recipe = load_recipe("tiny", [*overrides, "train.short.sequence_length=null", f"train.short.seed={seed}"])
    summary = run(TrainOptions(recipe=recipe, stage="short", data_dir=str(data), out_dir=str(out), steps=steps,
                               log_interval=100))
    return [row["loss"] for row in summary.rows]


def window_means(losses: list[float], window: int) -> list[float]:
    return [statistics.fmean(losses[i:i + window]) for i in range(0, len(losses), window)]


CLAIM = 0.01  # "within 1% of BF16"


def paired_interval(gaps: list[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high): the t-interval of the mean of per-seed paired gaps (n - 1 degrees of freedom)."""
    from scipy.stats import t

    mean = statistics.fmean(gaps)
    if len(gaps) < 2:
        return mean, float("-inf"), float("inf")
    half = t.ppf(0.5 + confidence / 2, len(gaps) - 1) * statistics.stdev(gaps) / len(gaps) ** 0.5
    return mean, mean - half, mean + half


def verdict(low: float, high: float) -> str:
    """What a 95% interval of the gap supports about "within 1%"."""
    if -CLAIM < low and high < CLAIM:
        return "within 1% (resolved)"
    if high < -CLAIM or low > CLAIM:
        return "outside 1% (resolved)"
    return "not resolved: the interval is wider than the 1% claim" if high - low > 2 * CLAIM else "not resolved"


def seeds_needed(gaps: list[float], confidence: float = 0.95, most: int = 10_000) -> int | None:
    """The fewest seeds whose 95% t-interval (the one ``paired_interval`` reports, n - 1 degrees of
    freedom) has half-width at most 1% at this spread; None if n < 2 or more than ``most`` are needed.
    A normal approximation (1.96) undercounts at small n, where t is 4.30 (n=3) or 12.7 (n=2)."""
    from scipy.stats import t

    if len(gaps) < 2:
        return None
    spread = statistics.stdev(gaps)
    for n in range(2, most + 1):
        if t.ppf(0.5 + confidence / 2, n - 1) * spread / n ** 0.5 <= CLAIM:
            return n
    return None


def paired_table(final: dict[str, dict[int, float]], seeds: list[int]) -> list[str]:
    lines = ["", ("Paired gap to BF16 (same seed: same initial weights and data order), mean and 95% t-interval "
             f"over {len(seeds)} seeds:"), "",
             "| run | mean gap | 95% interval | sd over seeds | reads as | seeds for a ±1% interval |",
             "|---|---|---|---|---|---|"]
    for name, per_seed in final.items():
        if name == "bf16":
            continue
        gaps = [(per_seed[s] - final["bf16"][s]) / final["bf16"][s] for s in seeds]
        mean, low, high = paired_interval(gaps)
        spread = statistics.stdev(gaps) if len(gaps) > 1 else float("nan")
        lines.append(f"| {name} | {mean:+.2%} | {low:+.2%} .. {high:+.2%} | {spread:.2%} | {verdict(low, high)} "
                     f"| {seeds_needed(gaps)} |")
    return lines


def report(curves: dict[str, dict[int, list[float]]], seconds: dict[str, float], tail: int, window: int) -> str:
    """Markdown: machine, the curve table (mean over seeds), final loss and gap to BF16 per seed."""
    seeds = list(curves["bf16"])
    steps = len(curves["bf16"][seeds[0]])
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    lines = [(f"{datetime.date.today().isoformat()}, {cpu}, torch {torch.__version__}, 1 thread, recipe `tiny`, "
              f"stage `short` (16 x 64 tokens per step), {steps} steps, seeds {', '.join(map(str, seeds))} "
              "(weights and data order)."), "",
             f"Loss (nats/token), mean over seeds of each {window}-step window:", "",
             "| steps | " + " | ".join(curves) + " |", "|---|" + "---|" * len(curves)]
    for i, start in enumerate(range(0, steps, window)):
        cells = [f"{statistics.fmean(window_means(c, window)[i] for c in runs.values()):.4f}" for runs in curves.values()]
        lines.append(f"| {start + 1}-{min(start + window, steps)} | " + " | ".join(cells) + " |")
    final = {name: {seed: statistics.fmean(c[-tail:]) for seed, c in runs.items()} for name, runs in curves.items()}
    lines += ["", f"Final loss (mean of the last {tail} steps) per seed, and its gap to BF16 on the same seed:", "",
              "| run | " + " | ".join(f"seed {s}" for s in seeds) + " | mean gap | gap range | seconds/run |",
              "|---|" + "---|" * (len(seeds) + 3)]
    for name, per_seed in final.items():
        gaps = [(per_seed[s] - final["bf16"][s]) / final["bf16"][s] for s in seeds]
        cells = [f"{per_seed[s]:.4f} ({gap:+.2%})" for s, gap in zip(seeds, gaps)]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {statistics.fmean(gaps):+.2%} | "
                     f"{min(gaps):+.2%} .. {max(gaps):+.2%} | {seconds[name] / len(seeds):.0f} |")
    return "\n".join(lines + paired_table(final, seeds)) + "\n"


def write_block(path: Path, body: str) -> None:
    """Replace this script's block of RESULTS.md (appending it the first time), leaving the rest."""
    old = path.read_text()
    block = f"{BEGIN}\n{body}{END}"
    if BEGIN in old and END in old:
        head, rest = old.split(BEGIN, 1)
        path.write_text(head + block + rest.split(END, 1)[1])
    else:
        path.write_text(old.rstrip() + "\n\n## FP8 recipes emulated on CPU (`bench/pretrain_fp8_cpu.py`)\n\n" + block + "\n")


def clipping_report(data: Path, work: Path, steps: int, seed: int) -> str:
    """Why delayed scaling's loss differs: per GEMM operand role, the share of elements each recipe
    saturates at the FP8 maximum (delayed: ``|x| * scale > fp8_max`` with the scale of the previous
    use) and flushes to zero (non-zero in BF16, zero after the cast), on an operand's first use (delayed
    scaling's scale is then TE's initial 1) and on every later use."""
    from codemix.pretrain.model import fp8

    counts: dict[tuple[str, str, str], list[float]] = {}
    original = fp8.quantise_operand

    def counting(precision, role, x_RC, delayed=None):
        first = precision.recipe == "delayed" and not delayed.history
        scale = delayed.scale.clone() if precision.recipe == "delayed" else None
        rowwise, columnwise = original(precision, role, x_RC, delayed)
        x = fp8.bf16_round(x_RC)
        saturated = (x.abs() * scale > fp8.fp8_max(precision.dtype(role))).sum() if scale is not None else 0
        flushed = ((x != 0) & (rowwise == 0)).sum()
        row = counts.setdefault((precision.recipe, role, "first use" if first else "later uses"), [0, 0, 0])
        row[0], row[1], row[2] = row[0] + int(saturated), row[1] + int(flushed), row[2] + x.numel()
        return rowwise, columnwise

    fp8.quantise_operand = counting
    try:
        for name in ("delayed", "tensorwise"):
            train(name, RUNS[name], data, work, steps, seed)
    finally:
        fp8.quantise_operand = original
    lines = [f"Operand elements clipped and flushed over {steps} steps (seed {seed}), by recipe, role and use:", "",
             "| recipe | role | use | saturated at fp8 max | flushed to zero | elements |", "|---|---|---|---|---|---|"]
    for (recipe, role, use), (saturated, flushed, total) in sorted(counts.items()):
        lines.append(f"| {recipe} | {role} | {use} | {saturated / total:.4%} | {flushed / total:.4%} | {total:,} |")
    return "\n".join(lines) + "\n"


def train_all(args) -> tuple[dict[str, dict[int, list[float]]], dict[str, float]]:
    """Every run of every seed, seed by seed; curves.json holds the finished seeds after each one."""
    torch.set_num_threads(1)
    args.work.mkdir(parents=True, exist_ok=True)
    data = build_data(args.work)
    names = ["bf16", *[r for r in args.runs if r != "bf16"]]
    curves, seconds = {name: {} for name in names}, dict.fromkeys(names, 0.0)
    for seed in args.seeds:
        for name in names:
            started = time.perf_counter()
            curves[name][seed] = train(name, RUNS[name], data, args.work, args.steps, seed)
            seconds[name] += time.perf_counter() - started
        (args.work / "curves.json").write_text(json.dumps({"curves": curves, "seconds": seconds}))
    return curves, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pretrain_fp8_cpu", description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--tail", type=int, default=25, help="final steps averaged for the gap")
    parser.add_argument("--window", type=int, default=25, help="steps per row of the curve table")
    parser.add_argument("--work", type=Path, default=Path("out/bench-fp8-cpu"))
    parser.add_argument("--runs", nargs="*", default=list(RUNS), choices=list(RUNS))
    parser.add_argument("--seeds", nargs="*", type=int, default=[1234, 1235, 1236])
    parser.add_argument("--results", type=Path, default=BENCH / "RESULTS.md")
    parser.add_argument("--no-write", action="store_true", help="print, do not touch RESULTS.md")
    parser.add_argument("--report", type=Path, help="write the report from this curves.json instead of training")
    parser.add_argument("--clipping", action="store_true", help="print clipping_report for --steps, first --seeds")
    args = parser.parse_args(argv)
    if args.clipping:
        torch.set_num_threads(1)
        print(clipping_report(build_data(args.work), args.work / "clipping", args.steps, args.seeds[0]))
        return 0
    if args.report:
        saved = json.loads(args.report.read_text())
        curves = {name: {int(seed): c for seed, c in runs.items()} for name, runs in saved["curves"].items()}
        seconds = saved["seconds"]
    else:
        curves, seconds = train_all(args)
    body = report(curves, seconds, args.tail, args.window)
    print(body)
    if not args.no_write:
        write_block(args.results, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
