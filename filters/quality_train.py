"""Train a fast quality scorer on ratings: ``{"id", "score"}`` JSONL joined to the rated sample's text.

A held-out split (by a hash of the id, so it is the same on every run) gives the metrics: Spearman
between predicted and rated scores, AUC of separating ratings at or above ``positive_at`` from the
rest, mean absolute error, overall and per language. The model is written with ``MODEL.json`` beside
it: backend, parameters, the ratings' and sample's sha256, metrics and the code version.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import tempfile
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np
from scipy import stats

from codemix.config import ConfigError
from codemix.filters.quality import TextScorer, fasttext_line

Backend = Literal["fasttext", "sklearn"]
BACKEND_SUFFIXES = {"fasttext": (".bin", ".ftz"), "sklearn": (".joblib",)}


@dataclass(slots=True, frozen=True, kw_only=True)
class RatedText:
    id: str
    text: str
    language: str
    score: float


@dataclass(slots=True, kw_only=True)
class TrainConfig:
    """How to train; fastText's parameters follow its supervised tutorial, sized for code files."""

    backend: Backend = "fasttext"
    held_out: float = 0.1  # fraction of ids held out for the metrics
    seed: int = 0
    positive_at: float | None = None  # AUC's positive class: rating >= this (default: mid-range)
    per_language: bool = False
    epoch: int = 25
    lr: float = 0.1  # 0.5 diverged (NaN) on ratings that carry no signal
    word_ngrams: int = 2
    dim: int = 32
    bucket: int = 200_000
    threads: int = 1  # fastText is only deterministic on one thread


def read_jsonl(path: str, field: str) -> list[dict]:
    """Every line as an object; a line that is not one, or lacks ``id``/``field``, names its line number."""
    rows = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                raise ConfigError(f"{path}:{number}", f"not JSON ({error.msg})", 'write one {"id", ...} per line')
            if not isinstance(row, dict) or "id" not in row or field not in row:
                raise ConfigError(f"{path}:{number}", f"needs 'id' and '{field}'", f'write {{"id": ..., "{field}": ...}}')
            rows.append(row)
    return rows


def join_ratings(ratings: list[dict], sample: list[dict], ratings_path: str = "ratings") -> list[RatedText]:
    """Ratings joined to the sample's text by id; a rating whose id the sample lacks is an error."""
    texts = {str(row["id"]): row for row in sample}
    joined = []
    for row in ratings:
        record = texts.get(str(row["id"]))
        if record is None:
            raise ConfigError(ratings_path, f"id {row['id']!r} is not in the sample", "rate the sample you train with")
        if not isinstance(row["score"], (int, float)) or isinstance(row["score"], bool):
            raise ConfigError(ratings_path, f"id {row['id']!r}: score {row['score']!r} is not a number")
        joined.append(RatedText(id=str(row["id"]), text=record["text"], language=record.get("language", ""),
                                score=float(row["score"])))
    return joined


def is_held_out(doc_id: str, fraction: float, seed: int) -> bool:
    digest = hashlib.sha256(f"{seed}\x00{doc_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < fraction


def split(rated: list[RatedText], config: TrainConfig) -> tuple[list[RatedText], list[RatedText]]:
    test = [r for r in rated if is_held_out(r.id, config.held_out, config.seed)]
    train = [r for r in rated if not is_held_out(r.id, config.held_out, config.seed)]
    return train, test


def metrics(predicted: list[float], rated: list[float], positive_at: float) -> dict:
    """Spearman, AUC (ratings >= ``positive_at`` vs the rest, from the Mann-Whitney U) and MAE."""
    predicted_N, rated_N = np.asarray(predicted, float), np.asarray(rated, float)
    result = {"n": len(rated_N), "mae": float(np.abs(predicted_N - rated_N).mean()) if len(rated_N) else None}
    distinct = len(set(rated_N.tolist())) > 1
    result["spearman"] = float(stats.spearmanr(predicted_N, rated_N).statistic) if distinct else None
    positive = rated_N >= positive_at
    if positive.any() and (~positive).any():
        u = stats.mannwhitneyu(predicted_N[positive], predicted_N[~positive]).statistic
        result["auc"] = float(u / (positive.sum() * (~positive).sum()))
    else:
        result["auc"] = None
    return result


def train_fasttext(train: list[RatedText], config: TrainConfig, out: str) -> None:
    """Supervised fastText, one label per rounded rating (``__label__3``), one line per document.

    Trained in a fresh spawned process: in a process that has run BLAS (numpy, scikit-learn) the
    fastText wheel's training intermittently stops with "Encountered NaN" and drifts between
    identical runs; alone in its process it is repeatable (docs/quality.md)."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8", delete=False) as handle:
        for r in train:
            handle.write(f"__label__{round(r.score)} {fasttext_line(r.text)}\n")
    params = {"epoch": config.epoch, "lr": config.lr, "dim": config.dim, "wordNgrams": config.word_ngrams,
              "bucket": config.bucket, "thread": config.threads, "seed": config.seed, "verbose": 0}
    try:
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            pool.apply(fasttext_supervised, (handle.name, params, out))
    finally:
        os.unlink(handle.name)


def fasttext_supervised(input_path: str, params: dict, out: str) -> None:
    import fasttext

    fasttext.train_supervised(input=input_path, **params).save_model(out)


# Code tokens: identifiers and numbers, or one punctuation character each (no lowercasing: case is signal).
SKLEARN_TOKENS = r"\w+|[^\w\s]"


def train_sklearn(train: list[RatedText], config: TrainConfig, out: str) -> None:
    """Hashed word 1-2 grams (no vocabulary to store) and a ridge regression on the ratings."""
    import joblib
    from sklearn.feature_extraction.text import HashingVectorizer
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline

    vectorizer = HashingVectorizer(token_pattern=SKLEARN_TOKENS, lowercase=False, ngram_range=(1, config.word_ngrams),
                                   n_features=2**20, alternate_sign=False)
    pipeline = make_pipeline(vectorizer, Ridge(alpha=1.0, random_state=config.seed))
    pipeline.fit([r.text for r in train], [r.score for r in train])
    joblib.dump(pipeline, out)


def evaluate(scorer: TextScorer, test: list[RatedText], config: TrainConfig, positive_at: float) -> dict:
    predicted = scorer.scores([r.text for r in test])
    result = {"overall": metrics(predicted, [r.score for r in test], positive_at)}
    if config.per_language:
        for language in sorted({r.language for r in test}):
            pairs = [(p, r.score) for p, r in zip(predicted, test) if r.language == language]
            result[language or "unknown"] = metrics([p for p, _ in pairs], [s for _, s in pairs], positive_at)
    return result


def file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def code_version() -> str:
    """codemix's version and a hash of this trainer's and the scorer's sources."""
    from importlib import import_module

    import codemix

    digest = hashlib.sha256()
    for name in ("codemix.filters.quality", "codemix.filters.quality_train"):
        with open(import_module(name).__file__, "rb") as handle:
            digest.update(handle.read())
    return f"{codemix.__version__}+{digest.hexdigest()[:12]}"


def train_quality_model(ratings_path: str, sample_path: str | None, out: str, config: TrainConfig) -> dict:
    """Train, evaluate on the held-out ids, and write ``out`` and ``out + '.json'``; returns the facts.
    Without ``sample_path`` every rating must carry its own ``text`` (and may carry ``language``)."""
    if not out.endswith(BACKEND_SUFFIXES[config.backend]):
        raise ConfigError("--out", f"a {config.backend} model is written as {' or '.join(BACKEND_SUFFIXES[config.backend])}")
    ratings = read_jsonl(ratings_path, "score")
    sample = read_jsonl(sample_path, "text") if sample_path else read_jsonl(ratings_path, "text")
    rated = join_ratings(ratings, sample, ratings_path)
    train, test = split(rated, config)
    if not train or not test:
        raise ConfigError("--held-out", f"{len(train)} training and {len(test)} held-out ratings", "rate more documents")
    {"fasttext": train_fasttext, "sklearn": train_sklearn}[config.backend](train, config, out)
    scores = [r.score for r in rated]
    positive_at = config.positive_at if config.positive_at is not None else (min(scores) + max(scores)) / 2
    facts = {"backend": config.backend, "params": asdict(config), "positive_at": positive_at,
             "ratings_sha256": file_sha256(ratings_path), "sample_sha256": file_sha256(sample_path or ratings_path),
             "train": len(train), "held_out": len(test),
             "metrics": evaluate(TextScorer(out), test, config, positive_at), "code_version": code_version()}
    with open(out + ".json", "w", encoding="utf-8") as handle:
        json.dump(facts, handle, indent=2, sort_keys=True)
    return facts
