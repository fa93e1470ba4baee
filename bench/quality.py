"""Learned quality: training fastText vs scikit-learn, and scoring speed in MB per CPU second,
standalone and inside a real ``mix build``, beside datatrove's FastTextClassifierFilter.

Run from the repository root, as a module::

    .venv/bin/python -m bench.quality                       # 8 MB of stdlib Python, bench/RESULTS.md (~10 min)
    .venv/bin/python -m bench.quality --megabytes 1 --results /tmp/RESULTS.md

Ratings: the planted property of tests/filters/quality_corpus.py (stdlib modules, half made
unreadable by ``tokenize``: identifiers renamed, comments dropped), so a held-out AUC is meaningful.
Scoring texts: the stdlib's ``*.py`` files in sorted order (at most 1 MB each) until ``--megabytes``.
CPU seconds are ``resource.getrusage`` user + system of this process (all its threads) and its reaped
children (fastText trains in a spawned process), so a shared
machine's load lengthens wall time but not these. Each measurement is repeated ``--repeats`` times;
the median is reported with the range.

Standalone: codemix's ``TextScorer`` (fastText, batches of 256; scikit-learn), datatrove's
``FastTextClassifierFilter`` (document mode, newlines to spaces, one ``predict`` per document) on
the same model and texts (scores compared), and a tiny Hugging Face classifier (2-layer BERT, hidden
32, a word-level tokenizer, ``max_length`` 512, batches of 32) through codemix's RunInference handler.
In a build: ``mix build`` of the same files (one directory source, ``short`` stage, one in-process
worker), ``--from-stage filter`` with ``filters.quality`` off and with each model at a threshold
that keeps everything; the CPU seconds a model adds, per MB scored.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import shutil
import statistics
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

from tests.filters.quality_corpus import STDLIB, planted_sample
from tests.pipelines.test_quality import tiny_classifier

BEGIN, END = "<!-- bench.quality: generated, begin -->", "<!-- bench.quality: generated, end -->"


def cpu_seconds() -> float:
    """User + system seconds of this process and its reaped children (fastText trains in one)."""
    return sum(u.ru_utime + u.ru_stime for u in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)))


def measured(fn, repeats: int) -> tuple[float, float, float, object]:
    """(median, min, max) CPU seconds of ``fn()`` over ``repeats`` runs, and its last result."""
    seconds, result = [], None
    for _ in range(repeats):
        start = cpu_seconds()
        result = fn()
        seconds.append(cpu_seconds() - start)
    return statistics.median(seconds), min(seconds), max(seconds), result


def corpus(megabytes: float) -> list[tuple[str, str]]:
    files, total = [], 0
    for path in sorted(STDLIB.rglob("*.py")):
        if "site-packages" in path.parts or path.stat().st_size > 1 << 20:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        files.append((path.relative_to(STDLIB).as_posix(), text))
        total += len(text.encode())
        if total >= megabytes * 1e6:
            break
    return files


def training_rows(scratch: Path, repeats: int) -> tuple[list[str], Path]:
    from codemix.filters.quality_train import TrainConfig, train_quality_model

    sample, ratings, truth = planted_sample(scratch, limit=600)
    rows = [f"planted sample: {len(truth)} stdlib modules (first 3,000 characters), half planted, 25% held out", "",
            "| backend | train CPU s (median, range) | held-out AUC | Spearman | MAE | model bytes |",
            "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for backend, suffix in (("fasttext", ".bin"), ("sklearn", ".joblib")):
        model = scratch / f"quality{suffix}"
        config = TrainConfig(backend=backend, held_out=0.25)
        def train(model=model, config=config):
            return train_quality_model(str(ratings), str(sample), str(model), config)

        median, low, high, facts = measured(train, repeats)
        m = facts["metrics"]["overall"]
        rows.append(f"| {backend} | {median:.2f} ({low:.2f}-{high:.2f}) | {m['auc']:.3f} | {m['spearman']:.3f} | "
                    f"{m['mae']:.3f} | {model.stat().st_size:,} |")
    return rows, scratch


def standalone_rows(texts: list[str], models: dict[str, str], repeats: int) -> list[str]:
    import datatrove.io
    from datatrove.data import Document as DatatroveDocument
    from datatrove.pipeline.filters import FastTextClassifierFilter

    from codemix.filters.quality import TextScorer, expected_rating
    from codemix.pipelines.quality_inference import HuggingFaceScorer

    megabytes = sum(len(t.encode()) for t in texts) / 1e6
    # datatrove copies a model into its asset cache before loading it: the scratch folder, not ~/.cache.
    datatrove.io.cached_assets_path = lambda **_: str(Path(models["fasttext"]).parent)
    fasttext = TextScorer(models["fasttext"])
    reference = FastTextClassifierFilter(models["fasttext"], keep_labels=("1", 0.0), newline_replacement=" ",
                                         filter_mode="DOCUMENT")

    def datatrove_scores():
        scores = []
        for text in texts:
            doc = DatatroveDocument(text=text, id="x")
            reference.filter(doc)
            labels = [k for k in doc.metadata if k.startswith("__label__")]
            scores.append(expected_rating(labels, [doc.metadata[k] for k in labels]))
        return scores

    def batched(score):
        return lambda: [s for i in range(0, len(texts), 256) for s in score(texts[i:i + 256])]

    handler = HuggingFaceScorer(models["huggingface"], max_length=512, batch_size=32)
    loaded = handler.load_model()

    def huggingface_scores():
        return [r.inference for i in range(0, len(texts), 32) for r in handler.run_inference(texts[i:i + 32], loaded)]

    sklearn = TextScorer(models["sklearn"])
    runs = {"codemix fastText (TextScorer)": batched(fasttext.scores),
            "datatrove FastTextClassifierFilter, same model": datatrove_scores,
            "codemix scikit-learn (hashed 1-2 grams, ridge)": batched(sklearn.scores),
            "codemix tiny HF classifier (RunInference handler)": huggingface_scores}
    # Models loaded before anything is timed (datatrove's filter loads its own on first use).
    fasttext.scores(texts[:1]), sklearn.scores(texts[:1]), reference.filter(DatatroveDocument(text=texts[0], id="w"))
    rows = [f"standalone: {len(texts):,} stdlib files, {megabytes:.2f} MB, one process, models loaded first", "",
            "| scorer | CPU s (median, range) | MB per CPU s |", "| --- | ---: | ---: |"]
    results = {}
    for name, fn in runs.items():
        median, low, high, results[name] = measured(fn, repeats)
        rows.append(f"| {name} | {median:.2f} ({low:.2f}-{high:.2f}) | {megabytes / median:.2f} |")
    ours, theirs = results["codemix fastText (TextScorer)"], results["datatrove FastTextClassifierFilter, same model"]
    gap = max(abs(a - b) for a, b in zip(ours, theirs))
    rows += ["", f"largest |codemix - datatrove| fastText score over the {len(texts):,} files: {gap:.2e}"]
    return rows


def build_rows(files: list[tuple[str, str]], models: dict[str, str], scratch: Path, repeats: int) -> list[str]:
    from codemix.mix.cli import main as mix

    root = scratch / "files"
    for relative, text in files:
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    megabytes = sum(len(t.encode()) for _, t in files) / 1e6
    spec = {"name": "quality-bench", "sources": [{"name": "stdlib", "type": "directory", "paths": [str(root)],
                                                  "license": "PSF-2.0"}],
            "stages": {"short": {"sequence_length": 1024, "token_budget": 10**9, "weights": {"stdlib": 1}}},
            "tokenizer": {"vocab_size": 2000, "train_sample_documents": 200}}
    out = scratch / "out"
    args = ["--no-progress", "--direct_num_workers", "1"]

    def build(quality: dict | None, from_stage: str = "filter") -> float:
        name = "off" if quality is None else Path(quality["model"]).name
        path = scratch / f"spec-{name}.yaml"
        path.write_text(json.dumps({**spec, "filters": {"quality": quality} if quality else {}}))
        start = cpu_seconds()
        if mix(["build", str(path), "--out", str(out), "--from-stage", from_stage, *args]) != 0:
            raise SystemExit(f"mix build failed with {path}")
        return cpu_seconds() - start

    build(None, "crawl")  # the crawl and a first filter, reused below
    scored = json.loads((out / "manifest.json").read_text())["counts"]["kept"]
    rows = [(f"in a build: `mix build --from-stage filter` (filter, dedup, shards) of {megabytes:.2f} MB, "
             "one in-process worker; threshold -1e9 keeps every document"), "",
            "| filters.quality | build CPU s (median, range) | added CPU s | MB scored per added CPU s |",
            "| --- | ---: | ---: | ---: |"]
    baseline, low_off, high_off, _ = measured(lambda: build(None), repeats)
    rows.append(f"| off | {baseline:.2f} ({low_off:.2f}-{high_off:.2f}) | - | - |")
    for kind in ("fasttext", "sklearn", "huggingface"):
        quality = {"model": models[kind], "threshold": -1e9}
        median, low, high, _ = measured(lambda quality=quality: build(quality), repeats)
        added = median - baseline
        # Below the spread of the baseline's own runs, the added cost is not measured: say so.
        rate = f"{megabytes / added:.2f}" if added > high_off - low_off else f"within noise (±{high_off - low_off:.2f} s)"
        rows.append(f"| {kind} | {median:.2f} ({low:.2f}-{high:.2f}) | {added:.2f} | {rate} |")
    rows += ["", (f"documents kept by the first filter and scored: {scored:,}. An added cost below the spread of "
                  "the build without a model is not resolved at this size; the standalone rates above bound it.")]
    return rows


def write_block(path: Path, body: str) -> None:
    old = path.read_text() if path.exists() else "# Benchmarks\n"
    block = f"{BEGIN}\n{body}{END}"
    if BEGIN in old and END in old:
        head, rest = old.split(BEGIN, 1)
        path.write_text(head + block + rest.split(END, 1)[1])
    else:
        path.write_text(old.rstrip() + "\n\n" + block + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.quality", description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=8.0)
    parser.add_argument("--build-megabytes", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--results", type=Path, default=Path("bench/RESULTS.md"))
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="bench-quality-"))
    try:
        train, _ = training_rows(scratch, args.repeats)
        files = corpus(args.megabytes)
        models = {"fasttext": str(scratch / "quality.bin"), "sklearn": str(scratch / "quality.joblib"),
                  "huggingface": str(tiny_classifier(scratch / "hf", [t for _, t in files[:200]], 2, positions=512))}
        standalone = standalone_rows([t for _, t in files], models, args.repeats)
        in_build = build_rows(corpus(args.build_megabytes), models, scratch, args.repeats)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    body = "\n".join([
        "## Learned quality: training and scoring speed (issue 29)", "",
        f"- machine: {platform.processor() or platform.machine()}, shared 2-core VM, Python {platform.python_version()}",
        (f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; datatrove {version('datatrove')}, "
         f"scikit-learn {version('scikit-learn')}, transformers {version('transformers')}, "
         f"fasttext-numpy2-wheel {version('fasttext-numpy2-wheel')}"),
        (f"- command: `.venv/bin/python -m bench.quality --megabytes {args.megabytes:g} --build-megabytes "
         f"{args.build_megabytes:g} --repeats {args.repeats}`"), "",
        *train, "", *standalone, "", *in_build, ""])
    write_block(args.results, body + "\n")
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
