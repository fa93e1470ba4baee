"""How an RL metric follows a checkpoint's code perplexity: join, fit, bootstrap, predict (numpy only).

Design notes: docs/design/dashboards.md, "dashboards/fit.py".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from codemix.dashboards.runs import EvalRow, RLRow

MIN_POINTS = 3
BAND_POINTS = 60
CONFIDENCE = 0.95


@dataclass(slots=True, frozen=True, kw_only=True)
class Point:
    """One checkpoint with both an RL result and a held-out loss."""

    run_id: str
    step: int
    loss_nats: float
    value: float
    bits_per_byte: float | None = None

    @property
    def perplexity(self) -> float:
        return math.exp(self.loss_nats)


@dataclass(slots=True, frozen=True, kw_only=True)
class Form:
    """A curve ``metric = f(ppl; params)``: how to evaluate it and how to fit B problems at once.

    ``refit`` returns NaN rows where a problem could not be fitted; ``init`` warm-starts every row
    (the bootstrap starts from the full-data fit), ``None`` means search from scratch (one row).
    """

    name: str
    formula: str
    params: tuple[str, ...]
    min_points: int
    predict: Callable[[np.ndarray, np.ndarray], np.ndarray]  # (params_P or params_BP, ppl_M) -> (M) or (B, M)
    refit: Callable[[np.ndarray, np.ndarray, np.ndarray | None], np.ndarray]  # (ppl_BN, y_BN, init_P) -> params_BP


@dataclass(slots=True, kw_only=True)
class FormFit:
    """One form fitted to one metric; ``message`` says why not when it could not be fitted."""

    form: str
    formula: str
    params: dict[str, float] = field(default_factory=dict)
    r2: float | None = None
    band_ppl: list[float] = field(default_factory=list)
    band_low: list[float] = field(default_factory=list)
    band_high: list[float] = field(default_factory=list)
    bootstrap_fits: int = 0
    prediction: dict | None = None  # {ppl, value, low, high, extrapolated}
    message: str | None = None

    def to_json(self) -> dict:
        return {"formula": self.formula, "params": self.params, "r2": self.r2, "prediction": self.prediction,
                "bootstrap_fits": self.bootstrap_fits, "message": self.message,
                "band": {"ppl": self.band_ppl, "low": self.band_low, "high": self.band_high}}


@dataclass(slots=True, kw_only=True)
class MetricFit:
    """Every form fitted to one (benchmark, metric); ``message`` is set when there were too few points."""

    benchmark: str
    metric: str
    points: list[Point]
    forms: list[FormFit] = field(default_factory=list)
    message: str | None = None

    def to_json(self) -> dict:
        return {"benchmark": self.benchmark, "metric": self.metric, "n_points": len(self.points),
                "message": self.message, "forms": {f.form: f.to_json() for f in self.forms},
                "points": [{"run_id": p.run_id, "step": p.step, "ppl": p.perplexity, "loss_nats": p.loss_nats,
                            "bits_per_byte": p.bits_per_byte, "value": p.value} for p in self.points]}


# ---- joining ----------------------------------------------------------------------------------------

def join_checkpoints(rl_rows: list[RLRow], eval_rows: list[EvalRow], eval_set: str
                     ) -> tuple[dict[tuple[str, str], list[Point]], int]:
    """Points per (benchmark, metric), joined on (run_id, step); and how many RL rows had no eval row.

    A checkpoint evaluated twice on one set (a rerun) keeps the last row read.
    """
    losses = {(r.run_id, r.step): r for r in eval_rows if r.eval_set == eval_set}
    joined: dict[tuple[str, str], list[Point]] = {}
    unmatched = 0
    for row in rl_rows:
        match = losses.get((row.run_id, row.step))
        if match is None:
            unmatched += 1
            continue
        joined.setdefault((row.benchmark, row.metric), []).append(Point(
            run_id=row.run_id, step=row.step, loss_nats=match.loss_nats, value=row.value,
            bits_per_byte=match.bits_per_byte))
    return {key: sorted(points, key=lambda p: (p.run_id, p.step)) for key, points in sorted(joined.items())}, unmatched


# ---- the forms --------------------------------------------------------------------------------------
# Shapes: B fits solved together (bootstrap resamples or starting points), N checkpoints, P parameters.

def levenberg_marquardt(residuals: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]], theta_BP: np.ndarray, *,
                        iterations: int = 100, tolerance: float = 1e-10) -> tuple[np.ndarray, np.ndarray]:
    """Minimise ``sum(r²)`` for B problems at once; ``residuals(theta_BP) -> (r_BN, J_BNP)``.

    Marquardt's scaling: the damping multiplies diag(JᵀJ), so parameters of different size step
    alike. Returns the parameters and the final cost per problem (inf where never finite).
    """
    theta = np.array(theta_BP, dtype=float)
    r, jac = residuals(theta)
    cost = np.sum(r**2, axis=-1)
    cost = np.where(np.isfinite(cost), cost, np.inf)
    damping = np.full(len(theta), 1e-3)
    active = np.isfinite(cost)
    for _ in range(iterations):
        if not active.any():
            break
        hessian = np.einsum("bnp,bnq->bpq", jac, jac)
        gradient = np.einsum("bnp,bn->bp", jac, r)
        diagonal = np.maximum(np.einsum("bpp->bp", hessian), 1e-12)
        system = hessian + damping[:, None, None] * (diagonal[:, :, None] * np.eye(theta.shape[1]))
        active &= np.all(np.isfinite(system), axis=(1, 2)) & np.all(np.isfinite(gradient), axis=1)
        system[~active], gradient[~active] = np.eye(theta.shape[1]), 0.0  # finished: a harmless system
        try:
            step = np.linalg.solve(system, -gradient[..., None])[..., 0]
        except np.linalg.LinAlgError:  # an exactly singular system: least squares, problem by problem
            step = np.stack([np.linalg.lstsq(m, -g, rcond=None)[0] for m, g in zip(system, gradient)])
        candidate = theta + step
        r_new, jac_new = residuals(candidate)
        new_cost = np.sum(r_new**2, axis=-1)
        better = active & np.isfinite(new_cost) & (new_cost < cost)
        converged = better & (cost - new_cost <= tolerance * np.maximum(cost, 1e-300))
        theta[better], r[better], jac[better], cost[better] = (
            candidate[better], r_new[better], jac_new[better], new_cost[better])
        damping = np.where(better, damping / 3, damping * 4)
        active &= ~converged & (damping < 1e12)
    return theta, cost


def _columns(params: np.ndarray) -> list[np.ndarray]:
    """Each parameter as a column that broadcasts against checkpoints: (P,) -> (1,)s, (B, P) -> (B, 1)s."""
    params = np.asarray(params, dtype=float)
    return [params[..., i, None] for i in range(params.shape[-1])]


def _log_linear_predict(params: np.ndarray, ppl: np.ndarray) -> np.ndarray:
    a, b = _columns(params)
    return a + b * np.log(ppl)


def _log_linear_refit(ppl_BN: np.ndarray, y_BN: np.ndarray, init: np.ndarray | None = None) -> np.ndarray:
    """Closed-form least squares per row; NaN where a row's perplexities are all equal."""
    x = np.log(ppl_BN)
    dx, dy = x - x.mean(-1, keepdims=True), y_BN - y_BN.mean(-1, keepdims=True)
    sxx = np.sum(dx**2, axis=-1)
    with np.errstate(all="ignore"):
        b = np.where(sxx > 0, np.sum(dx * dy, axis=-1) / sxx, np.nan)
    return np.stack([y_BN.mean(-1) - b * x.mean(-1), b], axis=-1)


def _power_law_predict(params: np.ndarray, ppl: np.ndarray) -> np.ndarray:
    a, b = _columns(params)
    return a * np.power(ppl, b)


def _power_law_residuals(ppl_BN: np.ndarray, y_BN: np.ndarray):
    def residuals(theta_BP):
        a, b = _columns(theta_BP)
        powered = np.power(ppl_BN, b)
        return a * powered - y_BN, np.stack([powered, a * powered * np.log(ppl_BN)], axis=-1)

    return residuals


def _power_law_start(ppl: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The log-log line through the positive metrics, if two of them differ in perplexity."""
    positive = y > 0
    if positive.sum() >= 2 and np.ptp(np.log(ppl[positive])) > 0:
        slope, intercept = np.polyfit(np.log(ppl[positive]), np.log(y[positive]), 1)
        return np.array([math.exp(intercept), slope])
    return np.array([float(np.mean(y)) or 1.0, 0.0])


def _power_law_refit(ppl_BN: np.ndarray, y_BN: np.ndarray, init: np.ndarray | None = None) -> np.ndarray:
    start = np.asarray(init, dtype=float) if init is not None else _power_law_start(ppl_BN[0], y_BN[0])
    starts = np.repeat(start[None], len(y_BN), 0)
    with np.errstate(all="ignore"):
        theta, cost = levenberg_marquardt(_power_law_residuals(ppl_BN, y_BN), starts)
    theta[~np.isfinite(cost)] = np.nan
    return theta


def _logistic(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # 1 / (1 + exp(-z)) without overflow


def _sigmoid_predict(params: np.ndarray, ppl: np.ndarray) -> np.ndarray:
    a, k, l0, b = _columns(params)
    return a * _logistic(k * (np.log(ppl) - l0)) + b


def _sigmoid_residuals(ppl_BN: np.ndarray, y_BN: np.ndarray):
    loss = np.log(ppl_BN)

    def residuals(theta_BP):
        a, k, l0, b = _columns(theta_BP)
        s = _logistic(k * (loss - l0))
        slope = a * s * (1 - s)
        jac = np.stack([s, slope * (loss - l0), -slope * k, np.ones_like(s)], axis=-1)
        return a * s + b - y_BN, jac

    return residuals


def _sigmoid_starts(ppl: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Starting points over where the step sits (L0), how sharp it is (k) and how far it reaches (a)."""
    loss = np.log(ppl)
    span_y, span_l = float(np.ptp(y)) or 1.0, float(np.ptp(loss)) or 1.0
    falling = bool(np.ptp(y) == 0 or np.corrcoef(loss, y)[0, 1] < 0)
    starts = []
    for l0 in np.quantile(loss, [0.1, 0.5, 0.9]):
        for k in (2.0 / span_l, 6.0 / span_l, 20.0 / span_l):
            for reach in (1.0, 2.0):
                extra = (reach - 1) * span_y / 2
                a, b = (-reach * span_y, float(y.max()) + extra) if falling else (reach * span_y, float(y.min()) - extra)
                starts.append([a, k, l0, b])
    return np.array(starts)


def _canonical_sigmoid(theta_BP: np.ndarray) -> np.ndarray:
    """``(a, k, L0, b)`` and ``(-a, -k, L0, a + b)`` draw the same curve; report the one with ``k > 0``."""
    a, k, l0, b = (theta_BP[..., i] for i in range(4))
    flip = k < 0
    return np.stack([np.where(flip, -a, a), np.where(flip, -k, k), l0, np.where(flip, a + b, b)], axis=-1)


def _sigmoid_refit(ppl_BN: np.ndarray, y_BN: np.ndarray, init: np.ndarray | None = None) -> np.ndarray:
    """Warm-started at ``init`` per row; without it, the best of ``_sigmoid_starts`` (one problem)."""
    if init is None:
        starts = _sigmoid_starts(ppl_BN[0], y_BN[0])
        ppl_BN, y_BN = np.repeat(ppl_BN[:1], len(starts), 0), np.repeat(y_BN[:1], len(starts), 0)
    else:
        starts = np.repeat(np.asarray(init, dtype=float)[None], len(y_BN), 0)
    with np.errstate(all="ignore"):
        theta, cost = levenberg_marquardt(_sigmoid_residuals(ppl_BN, y_BN), starts)
    theta[~np.isfinite(cost)] = np.nan
    if init is None:
        theta = theta[np.argmin(cost)][None] if np.isfinite(cost).any() else theta[:1]
    return _canonical_sigmoid(theta)


FORMS: tuple[Form, ...] = (
    Form(name="log_linear", formula="metric = a + b·log(ppl)", params=("a", "b"), min_points=MIN_POINTS,
         predict=_log_linear_predict, refit=_log_linear_refit),
    Form(name="power_law", formula="metric = a · ppl^b", params=("a", "b"), min_points=MIN_POINTS,
         predict=_power_law_predict, refit=_power_law_refit),
    # Four parameters: at least five checkpoints, so one is left over to test the curve.
    Form(name="sigmoid", formula="metric = a / (1 + exp(-k·(L - L0))) + b,  L = log(ppl)",
         params=("a", "k", "L0", "b"), min_points=5, predict=_sigmoid_predict, refit=_sigmoid_refit),
)
FORMS_BY_NAME = {form.name: form for form in FORMS}


def fit_params(form: Form, ppl: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """The least-squares parameters of ``form`` on one set of checkpoints; None if it did not converge."""
    if np.ptp(np.log(ppl)) == 0:
        return None
    params = form.refit(ppl[None], y[None], None)[0]
    return params if np.all(np.isfinite(params)) else None


# ---- fitting, bootstrap, prediction -----------------------------------------------------------------

def r_squared(y: np.ndarray, predicted: np.ndarray) -> float | None:
    total = float(np.sum((y - y.mean()) ** 2))
    return None if total == 0 else 1.0 - float(np.sum((y - predicted) ** 2)) / total


def bootstrap(form: Form, ppl: np.ndarray, y: np.ndarray, params: np.ndarray, at: np.ndarray,
              rng: np.random.Generator, n_boot: int) -> np.ndarray:
    """Refitted curves at ``at`` (rows), one per resample that could be fitted, warm-started at ``params``."""
    if n_boot == 0:
        return np.empty((0, at.size))
    picks_BN = rng.integers(0, len(y), (n_boot, len(y)))
    picks_BN = picks_BN[np.ptp(np.log(ppl)[picks_BN], axis=1) > 0]  # a line needs two distinct perplexities
    theta_BP = form.refit(ppl[picks_BN], y[picks_BN], params)
    with np.errstate(all="ignore"):
        curves = form.predict(theta_BP, at)
    return curves[np.all(np.isfinite(curves), axis=1)]


def fit_form(form: Form, ppl: np.ndarray, y: np.ndarray, target_ppl: float | None, *, seed: int = 0,
             n_boot: int = 1000) -> FormFit:
    """Fit one form, its bootstrap band over the observed perplexities and its value at ``target_ppl``."""
    result = FormFit(form=form.name, formula=form.formula)
    if len(y) < form.min_points:
        result.message = f"{form.name}: needs at least {form.min_points} checkpoints, has {len(y)}"
        return result
    params = fit_params(form, ppl, y)
    if params is None:
        result.message = f"{form.name}: the fit did not converge (do the checkpoints differ in perplexity?)"
        return result
    result.params = {name: float(v) for name, v in zip(form.params, params)}
    result.r2 = r_squared(y, form.predict(params, ppl))
    span = [float(ppl.min()), float(ppl.max())] + ([target_ppl] if target_ppl is not None else [])
    grid = np.geomspace(min(span), max(span), BAND_POINTS)
    at = np.append(grid, target_ppl if target_ppl is not None else grid[-1])
    curves = bootstrap(form, ppl, y, params, at, np.random.default_rng(seed), n_boot)
    result.bootstrap_fits = len(curves)
    tail = (1 - CONFIDENCE) / 2 * 100
    low = high = None
    if len(curves) >= 10:  # fewer resamples than that give no meaningful percentiles
        low, high = np.percentile(curves, [tail, 100 - tail], axis=0)
        result.band_ppl, result.band_low, result.band_high = grid.tolist(), low[:-1].tolist(), high[:-1].tolist()
    if target_ppl is not None:
        result.prediction = {
            "ppl": float(target_ppl), "value": float(form.predict(params, np.array([target_ppl]))[0]),
            "low": None if low is None else float(low[-1]), "high": None if high is None else float(high[-1]),
            "extrapolated": not (ppl.min() <= target_ppl <= ppl.max())}
    return result


def fit_metric(benchmark: str, metric: str, points: list[Point], target_ppl: float | None, *, seed: int = 0,
               n_boot: int = 1000, eval_set: str = "the held-out set") -> MetricFit:
    """Every form in ``FORMS`` for one metric, or a message when fewer than ``MIN_POINTS`` checkpoints joined."""
    result = MetricFit(benchmark=benchmark, metric=metric, points=points)
    if len(points) < MIN_POINTS:
        result.message = (f"{benchmark} / {metric}: only {len(points)} checkpoint(s) have both an RL result and "
                          f"a {eval_set} perplexity; a fit needs at least {MIN_POINTS}.")
        return result
    ppl = np.array([p.perplexity for p in points])
    y = np.array([p.value for p in points])
    result.forms = [fit_form(form, ppl, y, target_ppl, seed=seed, n_boot=n_boot) for form in FORMS]
    return result


def fit_all(rl_rows: list[RLRow], eval_rows: list[EvalRow], eval_set: str, target_ppl: float | None, *,
            seed: int = 0, n_boot: int = 1000) -> tuple[list[MetricFit], int]:
    """A ``MetricFit`` per (benchmark, metric) in the RL rows, and the count of RL rows left unjoined."""
    joined, unmatched = join_checkpoints(rl_rows, eval_rows, eval_set)
    fits = [fit_metric(b, m, points, target_ppl, seed=seed, n_boot=n_boot, eval_set=eval_set)
            for (b, m), points in joined.items()]
    for benchmark, metric in sorted({(r.benchmark, r.metric) for r in rl_rows} - set(joined)):
        fits.append(fit_metric(benchmark, metric, [], target_ppl, eval_set=eval_set))
    return fits, unmatched


def fits_json(fits: list[MetricFit], *, eval_set: str | None, target_ppl: float | None, unmatched: int,
              seed: int, n_boot: int) -> dict:
    """The fitted parameters, R², bands and predictions, as written beside the HTML."""
    return {"eval_set": eval_set, "x": "ppl = exp(loss_nats) on eval_set", "target_ppl": target_ppl,
            "confidence": CONFIDENCE, "bootstrap": {"seed": seed, "resamples": n_boot},
            "rl_rows_without_eval_row": unmatched, "fits": [fit.to_json() for fit in fits]}
