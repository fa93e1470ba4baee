"""The Hugging Face half of the quality score (``quality.Score``): a sequence-classification model run
through Beam's RunInference, batched, on the worker's GPU when it has one. A module of its own because
RunInference imports torch and scipy: only a filter stage that scores with such a model loads them."""

from __future__ import annotations

import apache_beam as beam
from apache_beam.ml.inference.base import KeyedModelHandler, ModelHandler, PredictionResult, RunInference

from codemix.filters.quality import QualityConfig, score_from_logits


class LoadedClassifier:
    """A tokenizer and its model, as one object RunInference can hold a weak reference to."""

    def __init__(self, tokenizer, network):
        self.tokenizer = tokenizer
        self.network = network


def usable_length(max_length: int, model: LoadedClassifier) -> int:
    """``max_length``, or fewer where the tokenizer or the position embeddings allow fewer (a longer
    input would fail in the model's forward)."""
    limits = [max_length, getattr(model.network.config, "max_position_embeddings", max_length)]
    if model.tokenizer.model_max_length < 1_000_000:  # tokenizers without a limit report ~1e30
        limits.append(model.tokenizer.model_max_length)
    return min(limits)


class HuggingFaceScorer(ModelHandler):
    """A sequence-classification model and its tokenizer; a batch of texts -> one score each."""

    def __init__(self, model_dir: str, max_length: int, batch_size: int):
        super().__init__(min_batch_size=1, max_batch_size=batch_size)
        self._model_dir = model_dir
        self._max_length = max_length

    def load_model(self):
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        device = "cuda" if torch.cuda.is_available() else "cpu"
        model = AutoModelForSequenceClassification.from_pretrained(self._model_dir).to(device).eval()
        return LoadedClassifier(AutoTokenizer.from_pretrained(self._model_dir), model)

    def run_inference(self, batch, model, inference_args=None):
        import torch

        tokenizer, network = model.tokenizer, model.network
        encoded = tokenizer(list(batch), truncation=True, max_length=usable_length(self._max_length, model),
                            padding=True, return_tensors="pt").to(network.device)
        with torch.no_grad():
            logits_BC = network(**encoded).logits.float().cpu().numpy()
        return [PredictionResult(text, float(score)) for text, score in zip(batch, score_from_logits(logits_BC))]


class ScoreWithHuggingFace(beam.PTransform):
    """Documents -> (document, score), by the Hugging Face model ``filters.quality.model`` names."""

    def __init__(self, config: QualityConfig):
        super().__init__()
        self._config = config

    def expand(self, docs):
        handler = HuggingFaceScorer(self._config.model, self._config.max_length, self._config.batch_size)
        return (docs | "KeyByDocument" >> beam.Map(lambda doc: (doc, doc.text))
                | "RunInference" >> RunInference(KeyedModelHandler(handler))
                | "Unwrap" >> beam.MapTuple(lambda doc, result: (doc, result.inference)))
