"""The filter stage's learned-quality step: a Hugging Face classifier's scores through Beam's
RunInference equal ``transformers``' own ``pipeline("text-classification")``; a ``mix build`` with
``keep_fraction: 0.8`` and ``per_language`` keeps 80% of each language; ``mix stats`` and
``mix quality sample`` read what it wrote."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import apache_beam as beam
import pyarrow.parquet as pq
import pytest

from codemix.document import Document
from codemix.filters.quality import QualityConfig
from codemix.filters.quality_train import TrainConfig, train_quality_model
from codemix.mix.cli import main as mix
from codemix.pipelines.quality import QUALITY, ScoreQuality
from tests.conftest import committed
from tests.filters.quality_corpus import C_HEADERS, STDLIB, planted_sample, python_modules


def tiny_classifier(directory: Path, texts: list[str], num_labels: int, positions: int = 128) -> Path:
    """A 2-layer BERT with a word-level tokenizer fitted on ``texts``, built offline, random weights."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.train_from_iterator(texts, trainers.WordLevelTrainer(vocab_size=500, special_tokens=["[PAD]", "[UNK]"]))
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="[UNK]", pad_token="[PAD]")
    torch.manual_seed(num_labels)
    config = BertConfig(vocab_size=fast.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=positions, num_labels=num_labels,
                        initializer_range=0.5)  # wide weights: scores far apart
    BertForSequenceClassification(config).eval().save_pretrained(directory)
    fast.save_pretrained(directory)
    return directory


def documents(limit: int = 24) -> list[Document]:
    return [Document(id=path, text=text, source="stdlib", kind="file", path=path, language="python")
            for path, text in python_modules(limit, 2000)]


def run_scores(docs: list[Document], config: QualityConfig, out: Path) -> dict[str, dict]:
    """ScoreQuality over ``docs`` in a Beam pipeline; the ``quality`` rows by document id."""
    with beam.Pipeline() as pipeline:
        outcomes = pipeline | beam.Create(docs) | ScoreQuality(config)
        _ = outcomes[QUALITY] | beam.Map(json.dumps) | beam.io.WriteToText(str(out / "rows"))
    rows = [json.loads(line) for path in out.glob("rows*") for line in path.read_text().splitlines()]
    return {row["doc_id"]: row for row in rows}


@pytest.mark.parametrize("num_labels", [1, 2])
def test_runinference_scores_equal_transformers_pipeline(tmp_path, num_labels):
    from transformers import pipeline

    docs = documents()
    model = tiny_classifier(tmp_path / "model", [d.text for d in docs], num_labels)
    # max_length 512 > the model's 128 positions: truncated at 128, as transformers' pipeline is told to.
    config = QualityConfig(model=str(model), threshold=0.0, batch_size=5, max_length=512)
    rows = run_scores(docs, config, tmp_path)
    assert len(rows) == len(docs)
    reference = pipeline("text-classification", model=str(model), device="cpu")
    # C=1: a regression head's raw value; C=2: p(LABEL_1), as score_from_logits defines them.
    kwargs = {"function_to_apply": "none"} if num_labels == 1 else {"top_k": None}
    expected = reference([d.text for d in docs], truncation=True, max_length=128, **kwargs)
    for doc, out in zip(docs, expected):
        labels = {item["label"]: item["score"] for item in (out if isinstance(out, list) else [out])}
        want = labels["LABEL_0"] if num_labels == 1 else labels["LABEL_1"]
        assert rows[doc.id]["score"] == pytest.approx(want, abs=1e-5)
    assert len({round(r["score"], 4) for r in rows.values()}) > 5  # a model that scores texts apart


@pytest.fixture(scope="module")
def quality_build(tmp_path_factory):
    """Stdlib modules and CPython's C headers as two directory sources, filtered by a fastText
    scorer trained on the planted ratings, keeping the top 80% of each language."""
    root = tmp_path_factory.mktemp("quality_build")
    sample, ratings, _ = planted_sample(root)
    model = root / "quality.bin"
    train_quality_model(str(ratings), str(sample), str(model), TrainConfig(held_out=0.25))
    python, headers = root / "py", root / "h"
    for relative, _ in python_modules(150, 10**6):
        (python / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(STDLIB / relative, python / relative)
    shutil.copytree(C_HEADERS, headers)
    spec = {
        "name": "quality",
        "sources": [{"name": "stdlib", "type": "directory", "paths": [str(python)], "license": "PSF-2.0"},
                    {"name": "headers", "type": "directory", "paths": [str(headers)], "license": "PSF-2.0"}],
        "stages": {"short": {"sequence_length": 64, "token_budget": 10_000, "weights": {"stdlib": 1, "headers": 1}}},
        "tokenizer": {"vocab_size": 500, "train_sample_documents": 50},
        "filters": {"quality": {"model": str(model), "keep_fraction": 0.8, "per_language": True},
                    "natural_language": {"enabled": False}, "decontamination": {"enabled": False}},
    }
    (root / "spec.yaml").write_text(json.dumps(spec))
    out = root / "out"
    assert mix(["build", str(root / "spec.yaml"), "--out", str(out), "--no-progress"]) == 0
    return out


def test_keep_fraction_keeps_80_percent_of_each_language(quality_build):
    rows = [row for path in committed(quality_build, "filter").glob("quality*.parquet")
            for row in pq.read_table(path).to_pylist()]
    dropped = [row for path in committed(quality_build, "filter").glob("dropped*.parquet")
               for row in pq.read_table(path).to_pylist() if row["reason"].startswith("quality_")]
    by_language: dict[str, list[bool]] = {}
    for row in rows:
        by_language.setdefault(row["language"], []).append(row["kept"])
    # Mostly C headers, a few C++ by linguist's heuristics; the two large strata hold the claim.
    assert len(by_language["python"]) >= 100 and len(by_language["c"]) >= 100
    for language, kept in by_language.items():  # 80% +- 1%, or +- one document in a small stratum
        assert abs(sum(kept) - 0.8 * len(kept)) <= max(0.01 * len(kept), 1), language
    assert {row["reason"] for row in dropped} == {"quality_below_keep_fraction"}
    assert sorted(row["doc_id"] for row in dropped) == sorted(row["doc_id"] for row in rows if not row["kept"])
    manifest = json.loads((quality_build / "manifest.json").read_text())
    assert manifest["counts"]["dropped"]["quality_below_keep_fraction"] == len(dropped)


@pytest.mark.parametrize("counts, n", [({("a", "py"): 90, ("a", "c"): 9, ("b", "py"): 1}, 10),
                                       ({("a", "py"): 5, ("b", "c"): 5}, 3), ({("a", "py"): 4}, 10),
                                       ({("a", "py"): 50, ("a", "c"): 30, ("b", "go"): 20}, 7)])
def test_allocation_is_proportional_covers_every_stratum_and_sums_to_n(counts, n):
    from codemix.pipelines.quality_sample import allocate

    quota = allocate(counts, n)
    total = sum(counts.values())
    assert sum(quota.values()) == min(n, total)
    assert all(0 <= quota[k] <= counts[k] for k in counts)
    if n >= len(counts):
        assert all(quota[k] >= 1 for k in counts)
    for key in counts:  # within one document of the proportional share (the floor of one aside)
        assert quota[key] <= max(1, counts[key] * min(n, total) / total + 1)


def test_mix_quality_sample_is_stratified_and_seeded(quality_build, tmp_path, capsys):
    docs = {row["id"]: row for path in committed(quality_build, "filter").glob("docs*.parquet")
            for row in pq.read_table(path).to_pylist()}
    args = ["quality", "sample", str(quality_build), "--n", "40", "--seed", "3", "--out"]
    assert mix([*args, str(tmp_path / "a.jsonl")]) == 0 and mix([*args, str(tmp_path / "b.jsonl")]) == 0
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()
    rows = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text().splitlines()]
    assert len(rows) == 40 and len({r["id"] for r in rows}) == 40
    assert all(docs[r["id"]]["text"] == r["text"] for r in rows)
    strata = {(d["source"], d["language"]) for d in docs.values()}
    assert len(strata) >= 2
    for source, language in strata:  # proportional within two documents, and at least one each
        share = sum((d["source"], d["language"]) == (source, language) for d in docs.values()) / len(docs)
        drawn = sum((r["source"], r["language"]) == (source, language) for r in rows)
        assert drawn >= 1 and abs(drawn - 40 * share) < 2, (source, language)
    assert f"sampled 40 documents from {len(strata)} strata" in capsys.readouterr().out


def test_mix_quality_train_prints_and_saves_held_out_metrics(quality_build, tmp_path, capsys):
    root = quality_build.parent
    assert mix(["quality", "train", str(root / "ratings.jsonl"), "--sample", str(root / "sample.jsonl"),
                "--out", str(tmp_path / "m.joblib"), "--backend", "sklearn", "--held-out", "0.25",
                "--per-language"]) == 0
    facts = json.loads((tmp_path / "m.joblib.json").read_text())
    assert set(facts["metrics"]) == {"overall", "python"} and facts["metrics"]["overall"]["auc"] >= 0.95
    assert "overall" in capsys.readouterr().out
    assert mix(["quality", "train", str(root / "ratings.jsonl"), "--sample", str(root / "sample.jsonl"),
                "--out", str(tmp_path / "m.bin"), "--backend", "sklearn"]) == 2  # the suffix names the backend


def test_mix_stats_shows_scores_kept_share_and_examples_per_language(quality_build, capsys):
    assert mix(["stats", str(quality_build)]) == 0
    text = capsys.readouterr().out
    assert "learned quality" in text and "examples by score" in text
    assert mix(["stats", str(quality_build), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    entries = {(source, language): entry for source, info in stats.items() if not source.startswith("_")
               for language, entry in info.get("quality", {}).items()}
    assert {("stdlib", "python"), ("headers", "c")} <= set(entries)
    for entry in entries.values():
        assert abs(entry["kept"] - 0.8 * entry["scored"]) <= max(0.01 * entry["scored"], 1)
        assert entry["p10"] <= entry["p50"] <= entry["p90"]
        assert [ex["percentile"] for ex in entry["examples"]] == [10, 50, 90]
    for key in (("stdlib", "python"), ("headers", "c")):  # p10 is below the 20% cut, p90 above it
        assert not entries[key]["examples"][0]["kept"] and entries[key]["examples"][2]["kept"]


def test_dashboard_plots_scores_and_examples_per_language(quality_build, tmp_path):
    from codemix.dashboards.builds import load_build
    from codemix.dashboards.render import DashboardInputs, write_dashboard

    build = load_build(str(quality_build))
    assert set(build.quality) == {"stdlib", "headers"}
    for languages in build.quality.values():
        for entry in languages.values():
            assert sum(entry["histogram"]["counts"]) == entry["scored"]
    page = write_dashboard(DashboardInputs(out_html=str(tmp_path / "dash.html"), builds=[str(quality_build)]))
    text = Path(page.html_path).read_text()
    assert "Learned quality: scores per source and language" in text
    # One trace per language, labelled with its kept share (plotly writes "/" as "\\/" in its JSON).
    assert len(re.findall(r"\(kept (79|80|81)%\)", text)) >= 2  # python and c (a few headers are C++)
    assert "<td>stdlib</td><td>python</td>" in text and "<td>headers</td><td>c</td>" in text


def test_mix_plan_names_the_quality_model_and_cut(quality_build, capsys):
    assert mix(["plan", str(quality_build.parent / "spec.yaml")]) == 0
    assert "keep top 80.0% per language" in capsys.readouterr().out
