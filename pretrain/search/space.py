"""Where a mixture search may look: per-source bounds, an epoch cap, and Dirichlet draws inside them.

Design notes: docs/design/pretrain.md, "pretrain/search/space.py".
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from codemix.config import ConfigError, require

# A weight at or below this is "not in the blend": Megatron gets no prefix for it.
ZERO_WEIGHT = 1e-9


@dataclass(slots=True, frozen=True, kw_only=True)
class MixtureSpace:
    """The sources of one stage, their spec weights and the box each weight must stay in."""

    sources: tuple[str, ...]
    spec_weights: tuple[float, ...]  # normalised over ``sources``
    lower: tuple[float, ...]
    upper: tuple[float, ...]  # already includes the epoch cap
    tokens: tuple[int, ...]  # tokens of each source in the build
    token_budget: int  # the spec's budget for the stage: what the epoch cap is relative to
    max_epochs: float

    def validate(self) -> None:
        """The box must hold at least one mixture: sum(lower) <= 1 <= sum(upper)."""
        for name, low, high in zip(self.sources, self.lower, self.upper):
            require(0.0 <= low <= high + 1e-12, f"--bounds {name}", f"lower bound {low:g} is above the upper bound "
                    f"{high:g} (the epoch cap is {self.epoch_cap(name):.4g})",
                    "lower it, or raise --max-epochs")
        require(sum(self.lower) <= 1.0 + 1e-9, "--bounds", f"the lower bounds add up to {sum(self.lower):.4g} > 1",
                "lower some of them")
        require(sum(self.upper) >= 1.0 - 1e-9, "--max-epochs", f"the upper bounds (epoch caps included) add up to "
                f"{sum(self.upper):.4g} < 1: the build has too few tokens for the spec's token budget at "
                f"{self.max_epochs:g} epochs", "raise --max-epochs or --bounds, or lower the stage's token_budget")

    def epoch_cap(self, source: str) -> float:
        i = self.sources.index(source)
        return self.max_epochs * self.tokens[i] / self.token_budget

    def epochs(self, weights: np.ndarray) -> np.ndarray:
        """How many passes over each source the target run makes at ``weights``."""
        return np.asarray(weights) * self.token_budget / np.asarray(self.tokens, dtype=float)

    def as_dict(self, weights: np.ndarray) -> dict[str, float]:
        return {name: float(w) for name, w in zip(self.sources, weights)}

    def vector(self, weights: Mapping[str, float]) -> np.ndarray:
        return np.array([float(weights.get(name, 0.0)) for name in self.sources])


def make_space(spec_weights: Mapping[str, float], tokens: Mapping[str, int], *, token_budget: int,
               bounds: Mapping[str, tuple[float, float]], max_epochs: float) -> MixtureSpace:
    """The feasible box of a stage: ``bounds`` (default ``0..1``) intersected with the epoch cap."""
    unknown = sorted(set(bounds) - set(spec_weights))
    require(not unknown, f"--bounds {unknown[0] if unknown else ''}", "no source of that name in the stage",
            f"sources are: {', '.join(spec_weights)}")
    require(max_epochs > 0, "--max-epochs", "must be positive")
    sources = tuple(spec_weights)
    total = sum(spec_weights.values())
    lower, upper = [], []
    for name in sources:
        low, high = bounds.get(name, (0.0, 1.0))
        require(0.0 <= low <= high <= 1.0, f"--bounds {name}", f"{low:g}:{high:g} is not 0 <= LOW <= HIGH <= 1")
        require(tokens.get(name, 0) > 0, f"stages weights.{name}", "the build has no tokens of this source in the "
                "stage", "rebuild with documents for it, or remove it from the stage's weights")
        lower.append(low)
        upper.append(min(high, max_epochs * tokens[name] / token_budget))
    space = MixtureSpace(sources=sources, spec_weights=tuple(spec_weights[n] / total for n in sources),
                         lower=tuple(lower), upper=tuple(upper), tokens=tuple(int(tokens[n]) for n in sources),
                         token_budget=token_budget, max_epochs=max_epochs)
    space.validate()
    return space


def project(x: np.ndarray, lower: np.ndarray, upper: np.ndarray, *, iterations: int = 200) -> np.ndarray:
    """The point of ``{lower <= w <= upper, sum w = 1}`` nearest to ``x`` (Euclidean).

    By the KKT conditions the projection is ``clip(x - tau, lower, upper)`` for the one ``tau`` at
    which it sums to 1; the sum falls monotonically in ``tau``, so bisection finds it.
    """
    x, lower, upper = (np.asarray(a, dtype=float) for a in (x, lower, upper))
    low_tau, high_tau = float(np.min(x - upper)) - 1.0, float(np.max(x - lower)) + 1.0
    for _ in range(iterations):
        tau = (low_tau + high_tau) / 2
        if np.clip(x - tau, lower, upper).sum() > 1.0:
            low_tau = tau
        else:
            high_tau = tau
    w = np.clip(x - (low_tau + high_tau) / 2, lower, upper)
    return snap_to_bounds(w, lower, upper)


def snap_to_bounds(w: np.ndarray, lower: np.ndarray, upper: np.ndarray, tolerance: float = 1e-7) -> np.ndarray:
    """Weights within ``tolerance`` of a bound are put on it (solvers stop a hair away), then the
    free weights absorb the difference so the sum stays 1."""
    w = np.clip(np.asarray(w, dtype=float), lower, upper)
    on_bound = (np.abs(w - lower) <= tolerance) | (np.abs(w - upper) <= tolerance)
    w = np.where(np.abs(w - lower) <= tolerance, lower, np.where(np.abs(w - upper) <= tolerance, upper, w))
    free = ~on_bound
    gap = 1.0 - w.sum()
    if free.any() and abs(gap) > 0:
        w[free] += gap * w[free] / w[free].sum() if w[free].sum() > 0 else gap / free.sum()
    return w


def draw(space: MixtureSpace, rng: np.random.Generator, concentration: tuple[float, float]) -> np.ndarray:
    """One candidate: ``Dirichlet(c * w_spec)`` with ``log c ~ U(log lo, log hi)``, projected into the box."""
    low, high = concentration
    c = math.exp(rng.uniform(math.log(low), math.log(high)))
    alpha = np.maximum(c * np.asarray(space.spec_weights), 1e-3)
    return project(rng.dirichlet(alpha), np.array(space.lower), np.array(space.upper))


def candidate(space: MixtureSpace, index: int, *, seed: int, concentration: tuple[float, float]) -> np.ndarray:
    """Candidate ``index`` of a search: 0 is the spec's own weights (moved into the box if they are
    outside it), every other one a draw from its own generator, so proxy ``i`` is the same mixture
    however many proxies a search asks for (a rerun with more proxies reuses the first ones)."""
    if index == 0:
        return project(np.array(space.spec_weights), np.array(space.lower), np.array(space.upper))
    return draw(space, np.random.default_rng([seed, index]), concentration)


def parse_bounds(items: list[str]) -> dict[str, tuple[float, float]]:
    """``["noise=0:0.1", "stdlib=0.2:0.8"]`` -> ``{"noise": (0.0, 0.1), ...}``."""
    bounds = {}
    for item in items:
        name, sep, rest = item.partition("=")
        low, colon, high = rest.partition(":")
        try:
            if not (sep and colon and name):
                raise ValueError(item)
            bounds[name] = (float(low), float(high))
        except ValueError as error:
            raise ConfigError("--bounds", f"{item!r} is not SOURCE=LOW:HIGH", "e.g. --bounds stdlib=0.1:0.6") from error
    return bounds
