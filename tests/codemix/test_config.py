"""Config errors name the field and the fix, before any work starts."""

from __future__ import annotations

import pytest

from codemix.config import ConfigError
from codemix.mixtures.spec import parse_spec


def minimal_spec(**overrides) -> dict:
    spec = {
        "name": "t",
        "sources": [{"name": "code", "type": "directory", "paths": ["/tmp"]}],
        "stages": {"short": {"sequence_length": 128, "token_budget": 1000, "weights": {"code": 1.0}}},
    }
    spec.update(overrides)
    return spec


def test_minimal_spec_loads_with_defaults():
    spec = parse_spec(minimal_spec())
    assert spec.sources[0].kind == "file"
    assert spec.dedup.bands * spec.dedup.rows == spec.dedup.num_perm
    assert spec.filters.code.max_line_length == 1000


@pytest.mark.parametrize(
    ("mutate", "field", "hint"),
    [
        (lambda s: s["stages"]["short"].update(sequence_length="long"), "stages.short.sequence_length", "whole number"),
        (lambda s: s["stages"]["short"]["weights"].update(nope=1.0), "stages.short.weights.nope", "sources are: code"),
        (lambda s: s["stages"].update(medium=s["stages"]["short"]), "stages.medium", "short, long, sft"),
        (lambda s: s["sources"][0].update(type="svn"), "sources[0].type", "one of: git"),
        (lambda s: s["sources"][0].update(pahts=["x"]), "sources[0].pahts", "did you mean 'paths'"),
        (lambda s: s["sources"][0].update(paths=["/a", "/a"]), "sources[0].paths[1]", "listed twice"),
        (lambda s: s.update(dedup={"num_perm": 100, "bands": 16, "rows": 16}), "dedup.bands", "product is num_perm"),
        (lambda s: s.update(filters={"code": {"min_alphanumeric_fraction": 2}}), "filters.code.min_alphanumeric_fraction",
         "between 0 and 1"),
        (lambda s: s.update(tokenizer={"path": "/no/such/tokenizer.json"}), "tokenizer.path", "remove 'path'"),
        (lambda s: s["sources"].append(dict(s["sources"][0])), "sources[1].name", "duplicate source name"),
    ],
)
def test_bad_field_is_named_with_a_fix(mutate, field, hint):
    spec = minimal_spec()
    mutate(spec)
    with pytest.raises(ConfigError) as raised:
        parse_spec(spec)
    assert str(raised.value).startswith(f"{field}:")
    assert hint in str(raised.value)


def test_unset_environment_variable_names_the_path(monkeypatch):
    monkeypatch.delenv("CODEMIX_TEST_UNSET", raising=False)
    spec = minimal_spec()
    spec["sources"][0]["paths"] = ["${CODEMIX_TEST_UNSET}/lib"]
    with pytest.raises(ConfigError, match=r"^sources\[0\]\.paths\[0\]: environment variable"):
        parse_spec(spec)


def test_environment_variable_expands(monkeypatch):
    monkeypatch.setenv("CODEMIX_TEST_ROOT", "/data")
    spec = minimal_spec()
    spec["sources"][0]["paths"] = ["${CODEMIX_TEST_ROOT}/lib"]
    assert parse_spec(spec).sources[0].paths == ["/data/lib"]


def test_per_language_override_is_validated():
    spec = minimal_spec(filters={"languages": {"json": {"max_line_lenght": 5}}})
    with pytest.raises(ConfigError, match=r"^filters\.languages\.json\.max_line_lenght: unknown field"):
        parse_spec(spec)
