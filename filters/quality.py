"""Learned code quality: load a scorer, score text, and decide keep or drop against a cut.

A scorer maps a document's text to one float, higher is better. Three kinds load from ``model``:
a fastText ``.bin``/``.ftz`` (``mix quality train``; score = the expected rating under the model's
label probabilities, labels being ratings), a scikit-learn ``.joblib`` (hashed n-grams and a linear
regressor, also from ``mix quality train``) and a Hugging Face sequence-classification directory
(``score_from_logits``). The cut is a fixed ``threshold`` or, for ``keep_fraction``, the score
quantile the pipeline computes per stratum. Design notes: docs/quality.md.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

import numpy as np

from codemix.config import join, require
from codemix.kinds import KINDS

# Transcripts are judged by their outcome policy, not a code-quality model.
QUALITY_KINDS = tuple(kind.name for kind in KINDS.values() if kind.quality_scored)
BELOW_THRESHOLD = "quality_below_threshold"
BELOW_KEEP_FRACTION = "quality_below_keep_fraction"
ModelKind = Literal["fasttext", "sklearn", "huggingface"]


@dataclass(slots=True, kw_only=True)
class QualityConfig:
    """``filters.quality``: which scorer, and either a ``threshold`` or a ``keep_fraction``.

    ``per_language`` computes the ``keep_fraction`` cut per language rather than over the corpus
    (Stack-Edu keeps per language, so one language's lower scores do not empty it).
    """

    model: str = ""  # empty: off. A fastText .bin/.ftz, a .joblib, or a Hugging Face model directory
    threshold: float | None = None  # keep score >= threshold
    keep_fraction: float | None = None  # keep the top fraction by score (per language with per_language)
    per_language: bool = False
    batch_size: int = 32  # documents per RunInference batch (Hugging Face models)
    max_length: int = 512  # tokens a Hugging Face model reads per document (truncated)

    @property
    def enabled(self) -> bool:
        return bool(self.model)

    def validate(self, path: str) -> None:
        if not self.model:
            return
        require((self.threshold is None) != (self.keep_fraction is None), join(path, "threshold"),
                "give exactly one of threshold and keep_fraction", "e.g. keep_fraction: 0.8 keeps the top 80%")
        if self.keep_fraction is not None:
            require(0 < self.keep_fraction <= 1, join(path, "keep_fraction"), "must be in (0, 1]")
        require(self.batch_size > 0, join(path, "batch_size"), "must be positive")
        require(self.max_length > 0, join(path, "max_length"), "must be positive")
        if "://" not in self.model:
            require(os.path.exists(self.model), join(path, "model"), f"{self.model} does not exist",
                    "train one with `mix quality train` or give a Hugging Face model directory")
            model_kind(self.model, join(path, "model"))


def model_kind(model: str, path: str = "model") -> ModelKind:
    """What ``model`` is, from its name (a directory holding ``config.json`` is a Hugging Face model)."""
    if os.path.isdir(model):
        require(os.path.exists(os.path.join(model, "config.json")), path,
                f"{model} is a directory without config.json", "give a Hugging Face model directory")
        return "huggingface"
    if model.endswith((".bin", ".ftz")):
        return "fasttext"
    require(model.endswith(".joblib"), path, f"unknown model file {model}",
            "use a fastText .bin/.ftz or a .joblib from `mix quality train`, or a Hugging Face directory")
    return "sklearn"


def fasttext_line(text: str) -> str:
    """The one line fastText reads: as datatrove's FastTextClassifierFilter does (newlines to spaces)."""
    return text.strip().replace("\n", " ")


def expected_rating(labels: list[str] | tuple[str, ...], probabilities) -> float:
    """Sum of p(label) * rating over fastText's ``__label__<rating>`` labels."""
    return float(sum(float(p) * float(label.removeprefix("__label__")) for label, p in zip(labels, probabilities)))


def score_from_logits(logits_BC: np.ndarray) -> np.ndarray:
    """One score per row: a regression head's value (C=1), p(label 1) (C=2), or the expected class
    index under the softmax (C>2, as for Stack-Edu-style 0..5 ratings)."""
    logits_BC = np.asarray(logits_BC, dtype=np.float64)
    if logits_BC.shape[1] == 1:
        return logits_BC[:, 0]
    shifted = np.exp(logits_BC - logits_BC.max(axis=1, keepdims=True))
    probabilities_BC = shifted / shifted.sum(axis=1, keepdims=True)
    if logits_BC.shape[1] == 2:
        return probabilities_BC[:, 1]
    return probabilities_BC @ np.arange(logits_BC.shape[1], dtype=np.float64)


def quality_drop_reason(score: float, cut: float, config: QualityConfig) -> str | None:
    """Keep at or above the cut; the reason names which kind of cut dropped it."""
    if score >= cut:
        return None
    return BELOW_THRESHOLD if config.threshold is not None else BELOW_KEEP_FRACTION


def stratum(language: str, config: QualityConfig) -> str:
    """The group a ``keep_fraction`` cut is computed over: the language, or the whole corpus ("*")."""
    return (language or "unknown") if config.per_language else "*"


class TextScorer:
    """A fastText or scikit-learn scorer, loaded once per worker; ``scores`` takes a batch of texts."""

    def __init__(self, model: str):
        self.kind = model_kind(model)
        if self.kind == "fasttext":
            from fasttext.FastText import _FastText  # what datatrove loads; no deprecation print

            self._fasttext = _FastText(model)
        elif self.kind == "sklearn":
            import joblib

            self._pipeline = joblib.load(model)
        else:
            raise ValueError(f"{model} is a Hugging Face model: score it with RunInference (pipelines.quality)")

    def scores(self, texts: list[str]) -> list[float]:
        if self.kind == "sklearn":
            return [float(s) for s in self._pipeline.predict(texts)]
        lines = [fasttext_line(text) for text in texts]
        labels_N, probabilities_N = self._fasttext.predict(lines, k=-1)
        return [expected_rating(labels, p) for labels, p in zip(labels_N, probabilities_N)]
