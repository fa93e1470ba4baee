"""856 planted secrets of 68 shapes in 31 contexts, in realistic files and an agent transcript: none
survives a real `mix build` (decoded shards, every Parquet file of the build, the trained tokenizer's
vocabulary), and redaction leaves the files valid (JSON and YAML parse; Python tokenizes to the same
tokens outside strings and comments, checked with the standard `tokenize` module)."""

from __future__ import annotations

import json
import re
from collections import Counter

import pyarrow.parquet as pq
import pytest
import yaml

from bench.redaction import code_tokens, python_tokens
from codemix.document import Document
from codemix.filters.secrets import RedactionConfig, redact_document
from codemix.mix.cli import main as mix
from codemix.mixtures.tokenizer import load_tokenizer
from codemix.pipelines.readers.language import detect_language
from tests.filters.planted_corpus import build_corpus, leaked, planted_build, secret_bodies
from tests.pipelines.test_build_filters import decoded_shards

CORPUS = build_corpus()
PLANTED = CORPUS.planted


def test_the_corpus_holds_every_planted_value_in_enough_shapes_and_contexts():
    """Guard: the fixture is what the other tests are about, value by value."""
    assert len(PLANTED) >= 500
    assert len({p.shape for p in PLANTED}) >= 50 and len({p.context for p in PLANTED}) >= 20
    texts = CORPUS.texts()
    transcript = json.dumps(CORPUS.transcript)
    for planted in PLANTED:
        where = texts[planted.path] if planted.path != "runs.jsonl" else transcript
        assert planted.fragments and all(f in where or json.dumps(f)[1:-1] in where for f in planted.fragments), planted
    assert {"notebook", "yaml_block", "kubernetes_base64", "json_escaped", "agent_tool_output", "xml", "comment",
            "dotenv", "shell", "url", "agent_tool_call_file", "agent_prose", "notebook_markdown", "go_source",
            "php_source", "nginx_conf", "docker_config_json"} <= {p.context for p in PLANTED}


def redacted_files() -> dict[str, str]:
    out = {}
    for path, text in CORPUS.files.items():
        doc = Document(id=path, text=text, source="repo", kind="file", path=path, language=detect_language(path, text))
        out[path] = redact_document(doc, RedactionConfig())[0].text
    return out


REDACTED = redacted_files()


def test_every_planted_file_secret_is_redacted():
    file_planted = [p for p in PLANTED if p.path != "runs.jsonl"]
    assert [(p.shape, p.context) for p in file_planted if leaked([p], REDACTED[p.path])] == []


@pytest.mark.parametrize("suffix", [".json", ".ipynb", ".yaml", ".yml"])
def test_redacted_json_and_yaml_still_parse_to_the_same_structure(suffix):
    paths = [p for p in CORPUS.files if p.endswith(suffix)]
    assert paths
    for path in paths:
        load = json.loads if suffix in (".json", ".ipynb") else lambda t: list(yaml.safe_load_all(t))
        before, after = load(CORPUS.files[path]), load(REDACTED[path])
        assert after != before and _shape(after) == _shape(before), path


def _shape(value):
    """The structure with every string leaf blanked: what redaction must not change."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return "" if isinstance(value, str) else value


def test_redacted_python_tokenizes_to_the_same_code():
    paths = [p for p in CORPUS.files if p.endswith(".py")]
    assert len(paths) >= 4
    for path in paths:
        before = python_tokens(CORPUS.files[path])
        after = python_tokens(REDACTED[path])
        assert before is not None and after is not None and REDACTED[path] != CORPUS.files[path]
        assert code_tokens(after) == code_tokens(before), path


# --- the real build ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def build(tmp_path_factory):
    return planted_build(CORPUS, tmp_path_factory.mktemp("planted"))


def test_no_planted_secret_reaches_the_shards(build):
    shards = decoded_shards(build)
    # Guard: the places the secrets were are in the shards, as placeholders.
    assert len(re.findall(r"<(?:SECRET_[A-Z_]+)>", shards)) >= 300
    assert [(p.shape, p.context) for p in leaked(PLANTED, shards)] == []


def test_no_planted_secret_is_in_any_parquet_file_of_the_build(build):
    files = sorted(build.rglob("*.parquet"))
    assert len(files) >= 5 and any("crawl" in str(f) for f in files)
    dumped = "\n".join(json.dumps(pq.read_table(f).to_pylist(), default=str, ensure_ascii=False) for f in files)
    assert [(p.shape, p.context) for p in leaked(PLANTED, dumped.replace("\\n", "\n"))] == []
    assert [(p.shape, p.context) for p in leaked(PLANTED, dumped)] == []


def test_no_piece_of_a_planted_secret_is_a_token_of_the_trained_tokenizer(build):
    tokenizer = load_tokenizer(str(build / "tokenizer.json"))
    vocab = {tokenizer.decode([i]).strip() for i in range(tokenizer.get_vocab_size())}
    long_tokens = {token for token in vocab if len(token) >= 6}
    # Guard: strings the corpus repeats do become tokens, so a leaked secret body would have.
    assert any("SECRET" in token for token in vocab)
    bodies = secret_bodies(PLANTED)
    assert sorted({t for t in long_tokens for body in bodies if t in body}) == []


def test_mix_stats_shows_redactions_with_masked_contexts(build, capsys):
    assert mix(["stats", str(build), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    samples = stats["repo"]["redaction_samples"]
    assert set(samples) == set(stats["repo"]["redactions"])
    assert all(1 <= len(contexts) <= 3 and all(f"<{kind}>" in c for c in contexts) for kind, contexts in samples.items())
    assert leaked(PLANTED, json.dumps(stats)) == []
    assert mix(["stats", str(build)]) == 0
    assert "e.g. " in capsys.readouterr().out


def test_redactions_are_counted(build):
    counts = Counter(json.loads((build / "manifest.json").read_text())["counts"]["redactions"])
    assert sum(counts.values()) >= len(PLANTED)

