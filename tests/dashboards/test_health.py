"""The dashboard shows the health summary a build wrote into its manifest, and says when there is none."""

from __future__ import annotations

import html

from codemix.dashboards.health import health_card
from codemix.mixtures.blend import stage_manifest
from codemix.mixtures.spec import parse_spec
from codemix.pipelines.health import build_health
from tests.dashboards.fixtures import manifest, shard_stats

SPEC = {
    "name": "tiny",
    "sources": [{"name": "alpha", "type": "directory", "paths": ["/a"]},
                {"name": "beta", "type": "directory", "paths": ["/b"]}],
    "stages": {"short": {"sequence_length": 4096, "token_budget": 400_000, "weights": {"alpha": 1, "beta": 1}},
               "long": {"sequence_length": 4096, "token_budget": 2000, "weights": {"alpha": 1}}},
}


def manifest_with_health() -> dict:
    spec = parse_spec(SPEC)
    info = manifest()
    stats = [{**row, "prefix": f"/out/{row['stage']}/{row['source']}-00000-of-00001"} for row in shard_stats()]
    info["stages"] = stage_manifest(spec, stats)
    info["sources"]["alpha"]["read"], info["sources"]["beta"]["read"] = 6, 5
    info["health"] = build_health(spec, info, {})
    return info


def test_the_card_shows_every_warning_stage_and_source():
    info = manifest_with_health()
    assert info["health"]["warnings"], "guard: the short stage's budget is far beyond its tokens"
    card = health_card(info)
    for warning in info["health"]["warnings"]:
        assert html.escape(warning) in card
    for stage, summary in info["health"]["stages"].items():
        assert f"stage {stage}: {summary['tokens']:,} of {summary['token_budget']:,} budget tokens" in card
    assert card.count("<tr><td>alpha</td>") == 3 and card.count("<tr><td>beta</td>") == 2  # 2 stages + sources
    assert "weights sum to 2" in card  # a note: the spec's 1 and 1 were renormalised


def test_a_manifest_without_health_says_so():
    assert "has no health summary" in health_card(manifest())
