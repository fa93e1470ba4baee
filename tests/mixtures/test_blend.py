"""A stage's blend gives each source its spec weight, split across its shards by tokens."""

from __future__ import annotations

import pytest

from codemix.mixtures.blend import data_path_argument, stage_blend


def shard(source: str, index: int, tokens: int) -> dict:
    return {"source": source, "prefix": f"/o/short/{source}-{index:05d}", "tokens": tokens}


def test_source_weight_is_split_by_shard_tokens():
    blend = stage_blend({"a": 3.0, "b": 1.0}, [shard("a", 0, 100), shard("a", 1, 300), shard("b", 0, 50)])
    weights = dict(zip(blend[1::2], blend[0::2]))
    assert weights["/o/short/a-00000"] == pytest.approx(0.75 * 0.25)
    assert weights["/o/short/a-00001"] == pytest.approx(0.75 * 0.75)
    assert weights["/o/short/b-00000"] == pytest.approx(0.25)
    assert sum(weights.values()) == pytest.approx(1.0)


def test_sources_without_tokens_are_left_out_and_the_rest_renormalised():
    blend = stage_blend({"a": 1.0, "b": 1.0}, [shard("a", 0, 10), shard("b", 0, 0)])
    assert blend == [1.0, "/o/short/a-00000"]


def test_argument_form_is_what_megatron_parses():
    assert data_path_argument([0.5, "/p/a", 0.5, "/p/b"]) == "0.5 /p/a 0.5 /p/b"


def test_a_manifest_names_shards_inside_the_build_relative_to_itself():
    """Local prefixes under the build are written relative to it and read back under wherever the build
    is now; object-store prefixes and prefixes outside the build stay absolute."""
    from codemix.mixtures.blend import relative_prefixes, with_found_prefixes

    manifest = {"stages": {"short": {"data_path": [0.5, "/o/short/a", 0.5, "/elsewhere/short/b"],
                                     "shards": ["/o/short/a", "/elsewhere/short/b"]}}}
    written = relative_prefixes(manifest, "/o")
    assert written["stages"]["short"]["data_path"] == [0.5, "short/a", 0.5, "/elsewhere/short/b"]
    assert with_found_prefixes(written, "/moved")["stages"]["short"]["shards"] == ["/moved/short/a", "/elsewhere/short/b"]
    on_s3 = {"stages": {"short": {"data_path": [1.0, "s3://b/o/short/a"], "shards": ["s3://b/o/short/a"]}}}
    assert relative_prefixes(on_s3, "s3://b/o") == on_s3
    assert with_found_prefixes({"stages": {"short": {"shards": ["short/a"]}}}, "s3://b/o/")["stages"]["short"][
        "shards"] == ["s3://b/o/short/a"]
