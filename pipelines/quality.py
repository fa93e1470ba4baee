"""ScoreQuality: the filter stage's learned-quality step (``filters.quality``).

Every code document the other checks kept gets a score; the cut is the ``threshold`` or, for
``keep_fraction``, the score quantile per stratum (``filters.quality.stratum``) from Beam's
``ApproximateQuantiles`` combiner. Below the cut a document becomes a ``Dropped`` record; every
scored document, kept or not, is a row of the ``quality`` table (score and cut), so a new cut can be
chosen from it without rescoring. Hugging Face models run through RunInference, batched, on the
worker's GPU when it has one (``quality_inference``).
"""

from __future__ import annotations

import dataclasses

import apache_beam as beam
import pyarrow as pa
from apache_beam.transforms.stats import ApproximateQuantilesCombineFn

from codemix.document import Document, Dropped
from codemix.filters.quality import (
    QUALITY_KINDS,
    QualityConfig,
    TextScorer,
    model_kind,
    quality_drop_reason,
    stratum,
)
from codemix.pipelines.ledger import DOCS, DROPPED

QUALITY = "quality"
QUALITY_SCHEMA = pa.schema([("doc_id", pa.string()), ("source", pa.string()), ("language", pa.string()),
                            ("path", pa.string()), ("score", pa.float64()), ("cut", pa.float64()),
                            ("kept", pa.bool_())])
QUANTILES = 1001  # cut points every 0.1% of a stratum; epsilon 0.1% of its documents
TEXT_BATCH = 256  # documents per fastText/scikit-learn call


class ScoreTexts(beam.DoFn):
    """(document, score) for each document of a batch, the scorer loaded once per worker."""

    def __init__(self, model: str):
        self._model = model

    def setup(self):
        self._scorer = TextScorer(self._model)

    def process(self, docs: list[Document]):
        yield from zip(docs, self._scorer.scores([doc.text for doc in docs]))


class Score(beam.PTransform):
    """Documents -> (document, score), by the model ``filters.quality.model`` names."""

    def __init__(self, config: QualityConfig):
        super().__init__()
        self._config = config

    def expand(self, docs):
        if model_kind(self._config.model) != "huggingface":
            return (docs | "Batch" >> beam.BatchElements(min_batch_size=1, max_batch_size=TEXT_BATCH)
                    | "ScoreTexts" >> beam.ParDo(ScoreTexts(self._config.model)))
        # Imported here: Beam's RunInference pulls in torch and scipy, seconds for every process (each
        # worker included) that would otherwise import them for a filter stage that scores nothing.
        from codemix.pipelines.quality_inference import ScoreWithHuggingFace

        return docs | "ScoreWithHuggingFace" >> ScoreWithHuggingFace(self._config)


def quantile_cut(quantiles: list[float], keep_fraction: float) -> float:
    """The score at rank ``1 - keep_fraction`` of a stratum from its ``QUANTILES`` cut points."""
    return quantiles[round((1 - keep_fraction) * (len(quantiles) - 1))]


class Cuts(beam.PTransform):
    """(document, score) -> (stratum, cut): the ``keep_fraction`` quantile of each stratum's scores."""

    def __init__(self, config: QualityConfig):
        super().__init__()
        self._config = config

    def expand(self, scored):
        config = self._config
        combine = ApproximateQuantilesCombineFn.create(num_quantiles=QUANTILES, epsilon=1 / (QUANTILES - 1))
        return (scored | "KeyByStratum" >> beam.MapTuple(lambda doc, score: (stratum(doc.language, config), score))
                | "Quantiles" >> beam.CombinePerKey(combine)
                | "Cut" >> beam.MapTuple(lambda key, quantiles: (key, quantile_cut(quantiles, config.keep_fraction))))


def quality_outcomes(scored: tuple[Document, float], cuts: dict[str, float], config: QualityConfig):
    """The document with ``metadata.quality_score`` (and the ``quality_scorer`` that gave it) or a
    Dropped record, and its ``quality`` row."""
    doc, score = scored
    cut = config.threshold if config.threshold is not None else cuts[stratum(doc.language, config)]
    reason = quality_drop_reason(score, cut, config)
    yield beam.pvalue.TaggedOutput(QUALITY, {"doc_id": doc.id, "source": doc.source, "language": doc.language,
                                             "path": doc.path, "score": score, "cut": cut, "kept": reason is None})
    if reason is None:
        yield dataclasses.replace(doc, metadata={**doc.metadata, "quality_score": score, "quality_scorer": config.model})
    else:
        yield beam.pvalue.TaggedOutput(DROPPED, Dropped(stage="filter", source=doc.source, reason=reason,
                                                        location=doc.metadata.get("location", ""), doc_id=doc.id))


class ScoreQuality(beam.PTransform):
    """Documents -> kept documents (main), ``dropped`` and ``quality`` (every scored document's row).
    Transcripts pass unscored."""

    def __init__(self, config: QualityConfig):
        super().__init__()
        self._config = config

    def expand(self, docs):
        transcripts, code = docs | "SplitKinds" >> beam.Partition(lambda doc, _: int(doc.kind in QUALITY_KINDS), 2)
        scored = code | "Score" >> Score(self._config)
        cuts = scored | "Cuts" >> Cuts(self._config) if self._config.keep_fraction is not None else \
            scored.pipeline | "NoCuts" >> beam.Create([])
        outcomes = scored | "Decide" >> beam.FlatMap(
            quality_outcomes, beam.pvalue.AsDict(cuts), self._config).with_outputs(DROPPED, QUALITY, main=DOCS)
        kept = (transcripts, outcomes[DOCS]) | "Merge" >> beam.Flatten()
        return {DOCS: kept, DROPPED: outcomes[DROPPED], QUALITY: outcomes[QUALITY]}
