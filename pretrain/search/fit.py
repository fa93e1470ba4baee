"""Weights -> held-out bits per byte: the RegMix-style regression and its constrained optimum.

Design notes: docs/design/pretrain.md, "pretrain/search/fit.py".
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize, stats

from codemix.pretrain.search.space import MixtureSpace, snap_to_bounds

KINDS = ("linear", "quadratic")
ALPHAS = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0)
LOO_LIMIT = 60
FOLDS = 10
# A model is a candidate only with at least this many proxies per coefficient: below it a quadratic
# interpolates its proxies and its optimum, usually off at a corner none of them tried, is noise.
PROXIES_PER_COEFFICIENT = 2


def features(w_NK: np.ndarray, kind: str) -> np.ndarray:
    """The model's columns: the weights, and for ``quadratic`` every pairwise product."""
    w_NK = np.atleast_2d(w_NK)
    if kind == "linear":
        return w_NK
    pairs = [w_NK[:, i] * w_NK[:, j] for i, j in itertools.combinations(range(w_NK.shape[1]), 2)]
    return np.column_stack([w_NK, *pairs]) if pairs else w_NK


@dataclass(slots=True, kw_only=True)
class Ridge:
    """A fitted ridge model on standardised features: ``y = intercept + ((x - mean) / scale) · beta``."""

    kind: str
    alpha: float
    mean_F: np.ndarray
    scale_F: np.ndarray
    beta_F: np.ndarray
    intercept: float

    def predict(self, w_NK: np.ndarray) -> np.ndarray:
        x_NF = features(w_NK, self.kind)
        return self.intercept + ((x_NF - self.mean_F) / self.scale_F) @ self.beta_F

    def gradient(self, w_K: np.ndarray) -> np.ndarray:
        """d prediction / d w at one mixture (for the optimizer)."""
        k = len(w_K)
        coef_F = self.beta_F / self.scale_F
        grad = coef_F[:k].copy()
        if self.kind == "quadratic":
            for c, (i, j) in enumerate(itertools.combinations(range(k), 2)):
                grad[i] += coef_F[k + c] * w_K[j]
                grad[j] += coef_F[k + c] * w_K[i]
        return grad


def fit_ridge(w_NK: np.ndarray, y_N: np.ndarray, kind: str, alpha: float) -> Ridge:
    """Closed-form ridge: ``(XᵀX + alpha·I) beta = Xᵀ(y - ȳ)`` on centred, unit-variance columns."""
    x_NF = features(w_NK, kind)
    mean_F = x_NF.mean(axis=0)
    scale_F = x_NF.std(axis=0)
    scale_F = np.where(scale_F > 1e-12, scale_F, 1.0)  # a constant column (one draw only) carries nothing
    z_NF = (x_NF - mean_F) / scale_F
    beta_F = np.linalg.solve(z_NF.T @ z_NF + alpha * np.eye(z_NF.shape[1]), z_NF.T @ (y_N - y_N.mean()))
    return Ridge(kind=kind, alpha=alpha, mean_F=mean_F, scale_F=scale_F, beta_F=beta_F, intercept=float(y_N.mean()))


def folds(n: int) -> list[np.ndarray]:
    """Held-out index sets: one per proxy up to ``LOO_LIMIT``, else ``FOLDS`` interleaved folds."""
    if n <= LOO_LIMIT:
        return [np.array([i]) for i in range(n)]
    return [np.arange(f, n, FOLDS) for f in range(FOLDS)]


def cv_predictions(w_NK: np.ndarray, y_N: np.ndarray, kind: str, alpha: float) -> np.ndarray:
    """Each proxy predicted by the model fitted on the others."""
    predicted = np.empty_like(y_N)
    for held in folds(len(y_N)):
        keep = np.setdiff1d(np.arange(len(y_N)), held)
        predicted[held] = fit_ridge(w_NK[keep], y_N[keep], kind, alpha).predict(w_NK[held])
    return predicted


def rmse(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(np.mean((np.asarray(a) - np.asarray(b)) ** 2)))


def coefficients(kind: str, sources: int) -> int:
    return features(np.zeros((1, sources)), kind).shape[1]


def allowed(kinds: tuple[str, ...], proxies: int, sources: int) -> tuple[str, ...]:
    """The kinds with enough proxies per coefficient; the linear model always stays."""
    return tuple(k for k in kinds if k == "linear" or proxies >= PROXIES_PER_COEFFICIENT * coefficients(k, sources))


def select(w_NK: np.ndarray, y_N: np.ndarray, kinds: tuple[str, ...]) -> tuple[str, float, list[dict[str, Any]]]:
    """The (kind, alpha) of least cross-validated RMSE on ``log bpb``; ties go to the simpler model."""
    kinds = allowed(kinds, len(y_N), w_NK.shape[1]) or kinds
    table = [{"kind": kind, "alpha": alpha, "cv_rmse_log": rmse(cv_predictions(w_NK, y_N, kind, alpha), y_N)}
             for kind in kinds for alpha in ALPHAS]
    best = min(table, key=lambda row: (round(row["cv_rmse_log"], 12), KINDS.index(row["kind"]), -row["alpha"]))
    return best["kind"], best["alpha"], table


def nested_predictions(w_NK: np.ndarray, y_N: np.ndarray, kinds: tuple[str, ...]) -> np.ndarray:
    """Each proxy predicted by a model whose kind and alpha were *also* chosen without it."""
    predicted = np.empty_like(y_N)
    for held in folds(len(y_N)):
        keep = np.setdiff1d(np.arange(len(y_N)), held)
        kind, alpha, _ = select(w_NK[keep], y_N[keep], kinds)
        predicted[held] = fit_ridge(w_NK[keep], y_N[keep], kind, alpha).predict(w_NK[held])
    return predicted


@dataclass(slots=True, kw_only=True)
class FitReport:
    """The chosen model, how well it predicts proxies it never saw, and the candidates it beat."""

    model: Ridge
    candidates: list[dict[str, Any]]
    heldout_log_N: np.ndarray  # nested cross-validated predictions of log bpb
    y_log_N: np.ndarray
    in_sample_log_N: np.ndarray
    notes: list[str] = field(default_factory=list)

    @property
    def heldout_spearman(self) -> float | None:
        """Rank correlation between held-out predictions and measured bits per byte (scipy's Spearman)."""
        if len(self.y_log_N) < 3 or np.ptp(self.y_log_N) == 0 or np.ptp(self.heldout_log_N) == 0:
            return None
        return float(stats.spearmanr(self.heldout_log_N, self.y_log_N).statistic)

    def to_json(self) -> dict[str, Any]:
        bpb, heldout_bpb = np.exp(self.y_log_N), np.exp(self.heldout_log_N)
        return {
            "target": "log(bits_per_byte)", "model": self.model.kind, "alpha": self.model.alpha,
            "selection": f"least leave-one-out RMSE over {len(KINDS) * len(ALPHAS)} (model, alpha) pairs"
                         if len(self.y_log_N) <= LOO_LIMIT else f"least {FOLDS}-fold RMSE",
            "heldout": {"rmse_log": rmse(self.heldout_log_N, self.y_log_N), "rmse_bpb": rmse(heldout_bpb, bpb),
                        "spearman": self.heldout_spearman,
                        "how": "nested cross-validation: each proxy predicted by a model chosen and fitted without it",
                        "predicted_bpb": heldout_bpb.tolist()},
            "in_sample_r2": r_squared(self.y_log_N, self.in_sample_log_N),
            "candidates": self.candidates, "notes": self.notes,
        }


def r_squared(y: np.ndarray, predicted: np.ndarray) -> float | None:
    total = float(np.sum((y - y.mean()) ** 2))
    return None if total == 0 else 1.0 - float(np.sum((y - predicted) ** 2)) / total


def fit(w_NK: np.ndarray, bpb_N: np.ndarray, kind: str = "auto") -> FitReport:
    """Fit ``log bpb`` on the weights; ``kind`` is ``auto`` (chosen by cross-validation) or one model."""
    kinds = KINDS if kind == "auto" else (kind,)
    y_N = np.log(np.asarray(bpb_N, dtype=float))
    chosen, alpha, table = select(w_NK, y_N, kinds)
    model = fit_ridge(w_NK, y_N, chosen, alpha)
    notes = [f"{k}: not tried, {coefficients(k, w_NK.shape[1])} coefficients need at least "
             f"{PROXIES_PER_COEFFICIENT * coefficients(k, w_NK.shape[1])} proxies"
             for k in kinds if k not in allowed(kinds, len(y_N), w_NK.shape[1])]
    return FitReport(model=model, candidates=table, heldout_log_N=nested_predictions(w_NK, y_N, kinds), y_log_N=y_N,
                     in_sample_log_N=model.predict(w_NK), notes=notes)


@dataclass(slots=True, kw_only=True)
class Optimum:
    weights_K: np.ndarray
    predicted_log: float
    method: str


def minimise(model: Ridge, space: MixtureSpace, starts_MK: np.ndarray) -> Optimum:
    """The mixture in the box with the lowest predicted ``log bpb``.

    Linear: a linear programme (HiGHS), whose answer is a vertex of the box. Quadratic: SLSQP from
    every proxy's mixture and the spec's, keeping the best (the fitted surface need not be convex).
    """
    lower, upper = np.array(space.lower), np.array(space.upper)
    bounds = list(zip(lower, upper))
    if model.kind == "linear":
        result = optimize.linprog(model.gradient(np.zeros(len(lower))), A_eq=np.ones((1, len(lower))), b_eq=[1.0],
                                  bounds=bounds, method="highs")
        w = snap_to_bounds(result.x, lower, upper)
        return Optimum(weights_K=w, predicted_log=float(model.predict(w[None])[0]), method="linear programme (HiGHS)")
    best = None
    constraint = {"type": "eq", "fun": lambda w: w.sum() - 1.0, "jac": lambda w: np.ones_like(w)}
    for start in starts_MK:
        result = optimize.minimize(lambda w: float(model.predict(w[None])[0]), start, jac=model.gradient,
                                   method="SLSQP", bounds=bounds, constraints=[constraint],
                                   options={"maxiter": 500, "ftol": 1e-12})
        w = snap_to_bounds(result.x, lower, upper)
        value = float(model.predict(w[None])[0])
        if best is None or value < best.predicted_log:
            best = Optimum(weights_K=w, predicted_log=value, method=f"SLSQP from {len(starts_MK)} starting mixtures")
    return best
