"""The search's arithmetic, checked against scipy's solvers and exact computation on planted laws:
draws stay feasible, projection is the nearest feasible point, ridge is ridge, the fit ranks unseen
mixtures, and the optimum is the best mixture in the box."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import linalg, optimize

from codemix.config import ConfigError
from codemix.pretrain.search.fit import features, fit, fit_ridge, minimise
from codemix.pretrain.search.space import candidate, make_space, parse_bounds, project

TOKENS = {"a": 1_000_000, "b": 400_000, "c": 50_000, "d": 2_000_000}
SPEC = {"a": 0.4, "b": 0.3, "c": 0.2, "d": 0.1}


def space(bounds=None, max_epochs=4.0, budget=1_000_000):
    return make_space(SPEC, TOKENS, token_budget=budget, bounds=bounds or {"d": (0.05, 0.5)}, max_epochs=max_epochs)


def test_the_epoch_cap_bounds_a_small_source():
    box = space()
    assert box.upper[box.sources.index("c")] == pytest.approx(4 * 50_000 / 1_000_000)  # 0.2: 4 epochs of c
    assert box.upper[box.sources.index("a")] == 1.0 and box.lower[box.sources.index("d")] == 0.05


@pytest.mark.parametrize("seed", range(5))
def test_projection_is_the_nearest_feasible_point(seed):
    """Against scipy's SLSQP on min |w - x|² over the same box and simplex."""
    box = space()
    lower, upper = np.array(box.lower), np.array(box.upper)
    x = np.random.default_rng(seed).normal(0.25, 0.4, 4)
    ours = project(x, lower, upper)
    simplex = [{"type": "eq", "fun": lambda w: w.sum() - 1}]
    reference = optimize.minimize(lambda w: np.sum((w - x) ** 2), np.full(4, 0.25), jac=lambda w: 2 * (w - x),
                                  bounds=list(zip(lower, upper)), constraints=simplex, method="SLSQP",
                                  options={"ftol": 1e-14, "maxiter": 500}).x
    assert np.allclose(ours, reference, atol=1e-6)
    assert np.all(ours >= lower) and np.all(ours <= upper) and ours.sum() == pytest.approx(1.0)


def test_candidates_are_feasible_and_do_not_depend_on_how_many_are_drawn():
    box = space()
    draws = np.array([candidate(box, i, seed=3, concentration=(1.0, 30.0)) for i in range(200)])
    assert np.all(draws >= np.array(box.lower) - 1e-12) and np.all(draws <= np.array(box.upper) + 1e-12)
    assert np.allclose(draws.sum(axis=1), 1.0)
    assert np.allclose(draws[0], project(np.array(box.spec_weights), np.array(box.lower), np.array(box.upper)))
    assert np.array_equal(candidate(box, 57, seed=3, concentration=(1.0, 30.0)), draws[57])
    assert np.ptp(draws[:, 0]) > 0.4, "the draws spread around the spec, not just next to it"


def test_ridge_matches_an_augmented_least_squares_solve():
    """(XᵀX + αI)β = Xᵀy on standardised columns == lstsq on [Z; √α I] β = [y - ȳ; 0]."""
    rng = np.random.default_rng(0)
    w = rng.dirichlet(np.ones(4), 30)
    y = rng.normal(size=30)
    for kind in ("linear", "quadratic"):
        model = fit_ridge(w, y, kind, 0.3)
        z = (features(w, kind) - model.mean_F) / model.scale_F
        stacked = np.vstack([z, np.sqrt(0.3) * np.eye(z.shape[1])])
        target = np.concatenate([y - y.mean(), np.zeros(z.shape[1])])
        assert np.allclose(model.beta_F, linalg.lstsq(stacked, target)[0], atol=1e-10)


def planted(w: np.ndarray, kind: str) -> np.ndarray:
    """log bpb of a planted law, plus measurement noise of 0.2%."""
    noise = np.random.default_rng(1).normal(0, 0.002, len(w))
    log_bpb = 0.9 + 0.3 * w[:, 0] - 0.2 * w[:, 1] + 0.6 * w[:, 2]
    if kind == "quadratic":
        log_bpb = log_bpb - 1.5 * w[:, 0] * w[:, 1]
    return np.exp(log_bpb + noise)


@pytest.mark.parametrize("kind", ["linear", "quadratic"])
def test_the_fit_finds_the_planted_law_and_ranks_proxies_it_never_saw(kind):
    box = space()
    w = np.array([candidate(box, i, seed=0, concentration=(1.0, 30.0)) for i in range(40)])
    report = fit(w, planted(w, kind))
    assert report.model.kind == kind
    assert report.heldout_spearman > 0.9
    assert report.to_json()["heldout"]["rmse_log"] < 0.01


def test_the_optimum_is_the_best_mixture_in_the_box():
    """Against every feasible mixture of 50,000 uniform draws, and the proxies, under the same fitted model."""
    box = space()
    w = np.array([candidate(box, i, seed=0, concentration=(1.0, 30.0)) for i in range(40)])
    for kind in ("linear", "quadratic"):
        report = fit(w, planted(w, "quadratic"), kind)
        best = minimise(report.model, box, w)
        lower, upper = np.array(box.lower), np.array(box.upper)
        uniform = np.random.default_rng(2).dirichlet(np.ones(4), 50_000)
        sample = np.vstack([uniform[np.all((uniform >= lower) & (uniform <= upper), axis=1)], w])
        assert len(sample) > 5_000, "guard: thousands of feasible mixtures to compare with"
        assert best.predicted_log <= report.model.predict(sample).min() + 1e-9
        assert np.all(best.weights_K >= np.array(box.lower) - 1e-12) and best.weights_K.sum() == pytest.approx(1.0)


def test_a_harmful_source_goes_to_its_lower_bound():
    box = space()
    w = np.array([candidate(box, i, seed=0, concentration=(1.0, 30.0)) for i in range(12)])
    report = fit(w, planted(w, "linear"))
    best = minimise(report.model, box, w)
    assert best.weights_K[box.sources.index("c")] == box.lower[box.sources.index("c")] == 0.0


@pytest.mark.parametrize(("bounds", "max_epochs", "field"), [
    ({"d": (0.6, 0.5)}, 4.0, "--bounds d"),
    ({"a": (0.6, 1.0), "d": (0.5, 1.0)}, 4.0, "--bounds"),  # lower bounds above 1 in all
    ({"c": (0.3, 1.0)}, 4.0, "--bounds c"),  # above c's epoch cap of 0.2
    ({"zz": (0.0, 1.0)}, 4.0, "--bounds zz"),
    ({}, 0.2, "--max-epochs"),  # caps 0.2 + 0.08 + 0.01 + 0.4 < 1
])
def test_an_empty_box_names_the_option_to_change(bounds, max_epochs, field):
    with pytest.raises(ConfigError) as error:
        make_space(SPEC, TOKENS, token_budget=1_000_000, bounds=bounds, max_epochs=max_epochs)
    assert error.value.field_path == field


def test_bounds_parse_and_a_malformed_one_says_the_form():
    assert parse_bounds(["a=0:0.5", "noise=0.02:1"]) == {"a": (0.0, 0.5), "noise": (0.02, 1.0)}
    with pytest.raises(ConfigError, match="is not SOURCE=LOW:HIGH"):
        parse_bounds(["a=0.5"])


def test_a_fit_that_cannot_rank_proxies_is_flagged_and_a_good_one_is_not():
    from codemix.pretrain.search.orchestrate import warnings

    box = space()
    w = np.array([candidate(box, i, seed=0, concentration=(1.0, 30.0)) for i in range(12)])
    assert "all scored the same" in warnings(fit(w, np.full(12, 2.5)))[0]
    assert warnings(fit(w, planted(w, "linear"))) == []
