"""Paired ablations (pretrain.search.ablate) on the real test build: a smoke run of the CPU path.

Two decisions over one build, 2 seeds x 2 steps: a *replicate* (the control against itself, which a
paired design must score as exactly no difference) and a mixture change (code only vs the build's blend).
The table's structure, the pairing (same initial weights per seed in every arm, different across
seeds), and the t-interval against scipy's own are checked; nothing is timed.
"""

from __future__ import annotations

import math
import statistics

import pytest

from codemix.pretrain.search.ablate import Arm, Decision, decide, run_arm, t_interval, table
from codemix.pretrain.search.orchestrate import SearchConfig

SEEDS = [0, 1]


@pytest.fixture(scope="module")
def ablation(build_dir, heldout_dir, tmp_path_factory) -> list[dict]:
    out = tmp_path_factory.mktemp("ablate")
    base = SearchConfig(spec="", build_dir="", out_dir=str(out), proxies=0, steps=2,
                        eval_sets={"heldout": str(heldout_dir)}, sequence_length=64, parallel=1)
    control = Arm("blend", str(build_dir))
    decisions = [Decision("replicate", control, Arm("blend_again", str(build_dir))),
                 Decision("mixture", control, Arm("code_only", str(build_dir), weights={"code": 1.0, "more": 0.0,
                                                                                     "runs": 0.0}))]
    arms = {arm.name: arm for d in decisions for arm in (d.control, d.treatment)}  # the control runs once
    runs = {name: run_arm(base, arm, SEEDS, out) for name, arm in arms.items()}
    return [decide(d, runs[d.control.name], runs[d.treatment.name], "heldout") for d in decisions]


def test_paired_seeds_start_alike_in_every_arm_and_apart_across_seeds(ablation):
    assert all(row["paired_initial_weights"] for row in ablation)
    replicate = ablation[0]
    losses = replicate["first_train_loss"]
    assert losses["control"] == losses["treatment"]  # identical first-step losses: same weights, same data order
    assert losses["control"][0] != losses["control"][1], "guard: the seed changes the run"


def test_a_replicate_is_exactly_no_difference_and_a_real_change_is_measured(ablation):
    replicate, mixture = ablation
    assert replicate["differences"] == [0.0, 0.0] and replicate["low"] == replicate["high"] == 0.0
    assert mixture["control_bpb"] == replicate["control_bpb"]  # the control ran once, reused by both decisions
    assert any(diff != 0.0 for diff in mixture["differences"])
    assert mixture["low"] <= mixture["mean"] <= mixture["high"]


def test_the_table_has_one_row_per_decision_with_interval_and_verdict(ablation):
    lines = table(ablation)
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    assert header[:3] == ["decision", "control", "treatment"] and "95% t-interval" in header
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]
    assert [row[0] for row in rows] == ["replicate", "mixture"]
    assert all(len(row) == len(header) for row in rows)
    assert rows[0][-1] == "not resolved: the interval holds 0" and rows[0][-2] == "yes"


def test_the_interval_is_students_t():
    from scipy import stats

    values = [0.012, -0.004, 0.021, 0.007]
    _, low, high = t_interval(values)
    reference = stats.t.interval(0.95, len(values) - 1, loc=statistics.fmean(values), scale=stats.sem(values))
    assert math.isclose(low, reference[0], rel_tol=1e-12) and math.isclose(high, reference[1], rel_tol=1e-12)
