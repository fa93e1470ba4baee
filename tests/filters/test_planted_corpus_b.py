"""The second planted corpus (``planted_corpus_b``: 573 secrets of 73 shapes in 33 contexts, other
vendors, templates and trace shapes than the first): none survives redaction on any seed, and none
reaches a real ``mix build``'s decoded shards, Parquet files or tokenizer vocabulary."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
import yaml

from codemix.document import Document
from codemix.filters.secrets import RedactionConfig
from codemix.mixtures.tokenizer import load_tokenizer
from codemix.pipelines.crawl import RedactWith
from codemix.pipelines.readers import read_location
from codemix.pipelines.readers.language import detect_language
from codemix.sources import SourceConfig
from tests.filters.planted_corpus import Corpus, leaked, planted_build
from tests.filters.planted_corpus_b import build_corpus_b
from tests.pipelines.test_build_filters import decoded_shards

CORPUS = build_corpus_b()
REDACT = RedactWith(RedactionConfig())


def redacted_views(corpus: Corpus, tmp_path) -> dict[str, str]:
    """Each file redacted as the crawl does, and the transcript read by the transcript reader."""
    out = {}
    for path, text in corpus.files.items():
        *_, doc = REDACT(Document(id=path, text=text, source="repo", kind="file", path=path,
                                  language=detect_language(path, text)))
        out[path] = doc.text
    (tmp_path / "runs.jsonl").write_text(corpus.texts()["runs.jsonl"])
    source = SourceConfig(name="runs", type="transcripts", paths=["runs.jsonl"])
    [trace] = [d for d in read_location(source, str(tmp_path / "runs.jsonl")) if isinstance(d, Document)]
    *_, doc = REDACT(trace)
    out["runs.jsonl"] = doc.text + json.dumps(doc.metadata, ensure_ascii=False)
    return out


def test_the_corpus_is_large_and_varied_enough():
    planted = CORPUS.planted
    assert len(planted) >= 500 and len({p.shape for p in planted}) >= 50 and len({p.context for p in planted}) >= 20
    assert {"notebook_env_magic", "notebook_output", "notebook_markdown", "trace_user_prose", "trace_assistant_prose",
            "trace_tool_call_file", "trace_tool_call_command", "trace_tool_output"} <= {p.context for p in planted}


@pytest.mark.parametrize("seed", [2511, 7, 8080])
def test_every_planted_value_is_redacted_on_any_seed(seed, tmp_path):
    corpus = build_corpus_b(seed)
    views = redacted_views(corpus, tmp_path)
    assert [(p.shape, p.context, p.path) for p in corpus.planted if leaked([p], views[p.path])] == []


@pytest.mark.parametrize("suffix", [".json", ".ipynb", ".yml", ".yaml"])
def test_redacted_structured_files_still_parse_to_the_same_shape(suffix, tmp_path):
    views = redacted_views(CORPUS, tmp_path)
    paths = [p for p in CORPUS.files if p.endswith(suffix)]
    assert paths
    load = json.loads if suffix in (".json", ".ipynb") else yaml.safe_load
    for path in paths:
        assert views[path] != CORPUS.files[path]
        assert _shape(load(views[path])) == _shape(load(CORPUS.files[path])), path


def _shape(value):
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return "" if isinstance(value, str) else value


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    return planted_build(CORPUS, tmp_path_factory.mktemp("planted_b"))


def test_nothing_planted_reaches_shards_parquet_or_vocabulary(build):
    shards = decoded_shards(build)
    assert shards.count("<SECRET_") >= 400  # guard: the planted places are in the shards, as placeholders
    assert [(p.shape, p.context) for p in leaked(CORPUS.planted, shards)] == []
    files = sorted(build.rglob("*.parquet"))
    assert len(files) >= 5
    dumped = "\n".join(json.dumps(pq.read_table(f).to_pylist(), default=str, ensure_ascii=False) for f in files)
    assert [(p.shape, p.context) for p in leaked(CORPUS.planted, dumped)] == []
    assert [(p.shape, p.context) for p in leaked(CORPUS.planted, dumped.replace("\\n", "\n"))] == []
    tokenizer = load_tokenizer(str(build / "tokenizer.json"))
    vocab = {tokenizer.decode([i]).strip() for i in range(tokenizer.get_vocab_size())}
    assert any("SECRET" in token for token in vocab)  # guard: repeated strings become tokens
    tails = [f[-24:] for p in CORPUS.planted for f in p.fragments]  # the random end of every value
    assert sorted({t for t in vocab if len(t) >= 6 for tail in tails if t in tail}) == []
