"""Paired ablations: one data decision changed, everything else paired, decided by an interval.

An *arm* is a build (and a blend of its stage) that proxies train on; a *decision* is two arms, the
control and the treatment, that differ in one data decision. Each arm trains one proxy per seed with
the recipe seed set to that seed, so a control and its treatment start from the same weights and draw
their samples in the same order (``initial_weights`` in each result shows it); the effect of the
decision at one seed is the treatment's held-out bits per byte minus the control's, and the decision's
effect is the mean of those paired differences with a 95% t-interval (n - 1 degrees of freedom).

Design notes: docs/search.md, "Paired ablations".
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from codemix.config import require
from codemix.pretrain.data.stage import read_stage
from codemix.pretrain.search.orchestrate import SearchConfig, blend, eval_digest, proxy_task, run_proxies, stage_shards


@dataclass(slots=True, frozen=True)
class Arm:
    """What one side of a decision trains on: a build's stage, at the build's own weights unless given."""

    name: str
    build_dir: str
    stage: str = "short"
    weights: dict[str, float] | None = None


@dataclass(slots=True, frozen=True)
class Decision:
    name: str
    control: Arm
    treatment: Arm
    question: str = ""


def t_interval(values: list[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high) of ``values``' mean: Student's t with n - 1 degrees of freedom (n >= 2)."""
    from scipy.stats import t

    require(len(values) >= 2, "--seeds", f"{len(values)} seed(s) give no interval", "pass at least 2 (3 or more)")
    mean = statistics.fmean(values)
    half = t.ppf(0.5 + confidence / 2, len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def verdict(low: float, high: float) -> str:
    if low > 0:
        return "treatment worse (resolved)"
    if high < 0:
        return "treatment better (resolved)"
    return "not resolved: the interval holds 0"


def arm_tasks(base: SearchConfig, arm: Arm, seeds: list[int]) -> tuple[SearchConfig, list[dict[str, Any]]]:
    """The arm's proxy per seed (recipe seed = the seed), named ``ARM-sSEED``."""
    config = replace(base, build_dir=str(Path(arm.build_dir).resolve()), stage=arm.stage)
    shards = stage_shards(config.build_dir, arm.stage)
    weights = arm.weights or read_stage(config.build_dir, arm.stage).manifest["stages"][arm.stage]["weights"]
    build_hash = read_stage(config.build_dir, arm.stage).spec_hash
    digests = eval_digest(config.eval_sets, config.include)
    tasks = []
    for seed in seeds:
        seeded = replace(config, overrides=[*config.overrides, f"train.{arm.stage}.seed={seed}"])
        tasks.append(proxy_task(seeded, len(tasks), weights, blend(weights, shards), build_hash, digests,
                                name=f"{arm.name}-s{seed}"))
    return config, tasks


def run_arm(base: SearchConfig, arm: Arm, seeds: list[int], out_dir: Path) -> dict[int, dict[str, Any]]:
    """The arm's result per seed (finished proxies reused, as a search reuses them)."""
    config, tasks = arm_tasks(base, arm, seeds)
    results = run_proxies(tasks, out_dir, config.build_dir, config.workers)
    return dict(zip(seeds, results, strict=True))


def decide(decision: Decision, control: dict[int, dict[str, Any]], treatment: dict[int, dict[str, Any]],
           objective: str) -> dict[str, Any]:
    """The decision's paired differences (treatment - control bits per byte) and their interval."""
    seeds = sorted(control)
    bpb = {side: {s: runs[s]["eval"][objective]["bits_per_byte"] for s in seeds}
           for side, runs in (("control", control), ("treatment", treatment))}
    diffs = [bpb["treatment"][s] - bpb["control"][s] for s in seeds]
    mean, low, high = t_interval(diffs)
    return {"decision": decision.name, "question": decision.question, "control": decision.control.name,
            "treatment": decision.treatment.name, "seeds": seeds, "control_bpb": bpb["control"],
            "treatment_bpb": bpb["treatment"], "differences": diffs, "mean": mean, "low": low, "high": high,
            "seed_sd": statistics.stdev(bpb["control"].values()), "verdict": verdict(low, high),
            "paired_initial_weights": all(control[s]["initial_weights"] == treatment[s]["initial_weights"]
                                          for s in seeds),
            "first_train_loss": {side: {s: runs[s]["first_train_loss"] for s in seeds}
                                 for side, runs in (("control", control), ("treatment", treatment))}}


def table(rows: list[dict[str, Any]]) -> list[str]:
    """The decisions as a Markdown table: paired difference, interval, its width against seed noise."""
    lines = [("| decision | control | treatment | seeds | control bits/byte (mean) | paired difference, mean | "
             "95% t-interval | interval width / seed sd | same initial weights | reads as |"),
             "|---|---|---|---:|---:|---:|---|---:|---|---|"]
    for row in rows:
        width = row["high"] - row["low"]
        ratio = width / row["seed_sd"] if row["seed_sd"] > 0 else math.inf
        lines.append(f"| {row['decision']} | {row['control']} | {row['treatment']} | {len(row['seeds'])} | "
                     f"{statistics.fmean(row['control_bpb'].values()):.4f} | {row['mean']:+.4f} | "
                     f"{row['low']:+.4f} .. {row['high']:+.4f} | {ratio:.1f} | "
                     f"{'yes' if row['paired_initial_weights'] else 'NO'} | {row['verdict']} |")
    return lines
