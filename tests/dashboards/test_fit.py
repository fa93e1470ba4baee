"""The perplexity-versus-RL fits: each form recovers known parameters, the bootstrap is seeded and
covers the truth, and too few checkpoints give a message instead of a fit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from codemix.dashboards.fit import FORMS_BY_NAME, MIN_POINTS, Point, fit_all, fit_form, fit_metric, join_checkpoints
from codemix.dashboards.runs import EvalRow, RLRow

PPL = np.geomspace(1.5, 6.0, 24)
# True parameters per form; the sigmoid is given with k < 0 to check it comes back as the k > 0 twin.
TRUTH = {
    "log_linear": ([0.9, -0.35], [0.9, -0.35]),
    "power_law": ([0.8, -0.7], [0.8, -0.7]),
    "sigmoid": ([0.6, -8.0, 1.0, 0.1], [-0.6, 8.0, 1.0, 0.7]),
}


def synthetic(form: str, noise: float, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    given, _ = TRUTH[form]
    y = FORMS_BY_NAME[form].predict(np.array(given), PPL)
    return PPL, y + np.random.default_rng(seed).normal(0.0, noise, PPL.size)


@pytest.mark.parametrize("form", sorted(TRUTH))
def test_fit_recovers_parameters_exactly_without_noise(form):
    fitted = fit_form(FORMS_BY_NAME[form], *synthetic(form, 0.0), None, n_boot=0)
    assert fitted.message is None
    np.testing.assert_allclose(list(fitted.params.values()), TRUTH[form][1], rtol=1e-5, atol=1e-6)
    assert fitted.r2 == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("form", sorted(TRUTH))
def test_fit_recovers_parameters_within_tolerance_with_noise(form):
    fitted = fit_form(FORMS_BY_NAME[form], *synthetic(form, 0.005), None, n_boot=0)
    np.testing.assert_allclose(list(fitted.params.values()), TRUTH[form][1], rtol=0.05, atol=0.02)
    assert fitted.r2 > 0.99


@pytest.mark.parametrize("form", sorted(TRUTH))
def test_bootstrap_band_covers_the_true_curve_at_the_target(form):
    target = 2.0
    fitted = fit_form(FORMS_BY_NAME[form], *synthetic(form, 0.005), target, n_boot=300)
    truth = float(FORMS_BY_NAME[form].predict(np.array(TRUTH[form][0]), np.array([target]))[0])
    prediction = fitted.prediction
    assert fitted.bootstrap_fits > 250
    assert prediction["low"] <= truth <= prediction["high"]
    assert prediction["high"] - prediction["low"] < 0.05
    assert not prediction["extrapolated"]


def test_log_linear_prediction_is_a_plus_b_log_target():
    fitted = fit_form(FORMS_BY_NAME["log_linear"], *synthetic("log_linear", 0.01), 9.0, n_boot=50)
    a, b = fitted.params["a"], fitted.params["b"]
    assert fitted.prediction["value"] == pytest.approx(a + b * math.log(9.0))
    assert fitted.prediction["extrapolated"]  # 9 lies beyond the observed 1.5 .. 6


def test_bootstrap_is_seeded():
    data = synthetic("log_linear", 0.02)
    runs = [fit_form(FORMS_BY_NAME["log_linear"], *data, 2.0, seed=seed, n_boot=100) for seed in (7, 7, 8)]
    assert runs[0].band_low == runs[1].band_low and runs[0].prediction == runs[1].prediction
    assert runs[0].band_low != runs[2].band_low


def points(n: int) -> list[Point]:
    return [Point(run_id="r", step=i, loss_nats=1.0 + 0.1 * i, value=0.5 - 0.05 * i) for i in range(n)]


@pytest.mark.parametrize("n", [0, 1, MIN_POINTS - 1])
def test_fewer_than_three_points_give_a_message_and_no_fit(n):
    fitted = fit_metric("humaneval", "pass@1", points(n), 2.0, eval_set="code")
    assert fitted.forms == []
    assert fitted.message == (f"humaneval / pass@1: only {n} checkpoint(s) have both an RL result and a code "
                              f"perplexity; a fit needs at least 3.")


def test_three_points_fit_two_parameter_forms_but_not_the_sigmoid():
    fitted = fit_metric("humaneval", "pass@1", points(3), 2.0)
    by_form = {f.form: f for f in fitted.forms}
    assert fitted.message is None
    assert by_form["log_linear"].params and by_form["power_law"].params
    assert by_form["sigmoid"].params == {} and "at least 5 checkpoints" in by_form["sigmoid"].message


def test_checkpoints_of_one_perplexity_give_a_message_not_an_error():
    same = [Point(run_id="r", step=i, loss_nats=1.0, value=0.1 * i) for i in range(5)]
    fitted = fit_metric("b", "m", same, None)
    assert all(f.message and "did not converge" in f.message for f in fitted.forms)


def test_join_matches_run_and_step_on_the_chosen_eval_set():
    evals = [EvalRow(run_id="a", step=1, eval_set="code", loss_nats=1.0),
             EvalRow(run_id="a", step=1, eval_set="prose", loss_nats=3.0),
             EvalRow(run_id="b", step=1, eval_set="code", loss_nats=2.0)]
    rl = [RLRow(run_id="a", step=1, benchmark="he", metric="p", value=0.4),
          RLRow(run_id="b", step=1, benchmark="he", metric="p", value=0.2),
          RLRow(run_id="a", step=2, benchmark="he", metric="p", value=0.5)]
    joined, unmatched = join_checkpoints(rl, evals, "code")
    assert unmatched == 1
    assert [(p.run_id, p.loss_nats, p.value) for p in joined[("he", "p")]] == [("a", 1.0, 0.4), ("b", 2.0, 0.2)]


def test_fit_all_reports_a_metric_with_no_joined_checkpoint():
    rl = [RLRow(run_id="a", step=5, benchmark="swe", metric="resolved", value=0.1)]
    fits, unmatched = fit_all(rl, [EvalRow(run_id="a", step=1, eval_set="code", loss_nats=1.0)], "code", None)
    assert unmatched == 1
    assert [(f.benchmark, f.metric, len(f.points)) for f in fits] == [("swe", "resolved", 0)]
    assert "only 0 checkpoint(s)" in fits[0].message
