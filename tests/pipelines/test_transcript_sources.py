"""A `transcripts` source keeps each file's problems its own: a file in no layout, an empty file or a damaged
run is quarantined with its reason and counted, the build goes on, and the good files build exactly as they
would without the bad ones beside them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from apache_beam.pvalue import TaggedOutput

from codemix.document import Document, packed_document
from codemix.mix.cli import main as mix
from codemix.mixtures.blend import stage_manifest
from codemix.mixtures.sft import SFTConfig
from codemix.mixtures.spec import parse_spec
from codemix.mixtures.tokenizer import train_bpe
from codemix.pipelines.health import stage_health
from codemix.pipelines.readers import read_location
from codemix.pipelines.shape_sft import WriteSFTShard
from codemix.sources import ReadLimits, SourceConfig

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
GOOD = ["claude-code-transcripts/sample_session.jsonl", "claude-code-transcripts/sample_session.json",
        "sharegpt/glaive_toolcall_en_demo.first5.json"]
GOOD_TRANSCRIPTS = 1 + 1 + 5  # one session, one export, five rows


def spec(root: Path, name: str, paths: list[Path]) -> Path:
    path = root / f"{name}.yaml"
    path.write_text(yaml.safe_dump({
        "name": name, "sources": [{"name": "runs", "type": "transcripts", "paths": [str(p) for p in paths],
                                   "license": "Apache-2.0"}],
        "stages": {"sft": {"sequence_length": 1024, "token_budget": 20_000, "weights": {"runs": 1},
                           "sft": {"outcome_policy": "any"}}},
        "tokenizer": {"vocab_size": 400, "train_sample_documents": 50}}))
    return path


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory) -> dict[str, Path]:
    """Each kind of per-file problem, with the reason its quarantine record must give."""
    root = tmp_path_factory.mktemp("bad")
    run = json.loads((FIXTURES / "swe-agent/6e44b9__sweagenttestrepo-1c2844.traj").read_text())
    assert run["history"] and run["trajectory"], "guard: the real run has both"
    files = {"is no transcript layout": ("unknown.json", json.dumps({"episode": 7, "log": "no messages"})),
             "empty:": ("empty.traj", ""), "empty: ": ("empty.jsonl", "\n\n"),
             "no_task:": ("lost-history.traj", json.dumps({k: v for k, v in run.items() if k != "history"}))}
    paths = {}
    for reason, (name, text) in files.items():
        (root / name).write_text(text)
        paths[reason.strip()] = paths.get(reason.strip(), []) + [root / name]
    return paths


@pytest.fixture(scope="module")
def builds(tmp_path_factory, bad_files) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("builds")
    good = [FIXTURES / name for name in GOOD]
    bad = [p for paths in bad_files.values() for p in paths]
    assert mix(["build", str(spec(root, "mixed", [*good, *bad])), "--out", str(root / "mixed")]) == 0
    assert mix(["build", str(spec(root, "clean", good)), "--out", str(root / "clean")]) == 0
    return root / "mixed", root / "clean"


def test_each_bad_file_is_quarantined_with_its_reason(builds, bad_files) -> None:
    rows = [json.loads(line) for f in sorted((builds[0] / "quarantine").glob("*.jsonl"))
            for line in f.read_text().splitlines()]
    found = {row["location"]: row["error"] for row in rows}
    expected = {str(p): reason for reason, paths in bad_files.items() for p in paths}
    assert set(found) == set(expected)
    assert all(reason in found[location] for location, reason in expected.items()), found


def test_counts_add_up(builds, bad_files) -> None:
    info = json.loads((builds[0] / "manifest.json").read_text())["health"]["sources"]["runs"]
    bad = sum(len(paths) for paths in bad_files.values())
    assert info["read"] == GOOD_TRANSCRIPTS + bad
    assert info["quarantined"] == bad
    assert info["kept"] + info["dropped"] + info["duplicates"] + info["quarantined"] == info["read"]


def test_good_files_build_as_they_would_alone(builds) -> None:
    mixed, clean = (sorted(p.relative_to(out) for p in (out / "sft").rglob("*.bin")) for out in builds)
    assert mixed and mixed == clean
    assert all((builds[0] / p).read_bytes() == (builds[1] / p).read_bytes() for p in mixed)


def test_a_policy_that_leaves_out_most_of_a_source_is_shown_per_format_and_warned(tmp_path: Path) -> None:
    """The real files record no SWE-bench verdict, so `resolved` leaves every transcript out
    (outcome_unknown): the manifest counts it per source and format, and the health summary warns."""
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"], limits=ReadLimits())
    docs = [d for name in GOOD for d in read_location(source, str(FIXTURES / name)) if isinstance(d, Document)]
    assert len(docs) == GOOD_TRANSCRIPTS and not any("resolved" in d.metadata for d in docs), "guard"
    tokenizer = tmp_path / "tokenizer.json"
    train_bpe([d.text for d in docs], vocab_size=400).save(str(tokenizer))
    write = WriteSFTShard("sft", str(tmp_path), str(tokenizer), 1024, SFTConfig(outcome_policy="resolved"))
    write.setup()
    outputs = list(write.process((("runs", 0, 1), [packed_document(d) for d in docs])))
    shaping = [json.loads(o.value) for o in outputs if isinstance(o, TaggedOutput)]
    spec = parse_spec({"name": "t", "sources": [{"name": "runs", "type": "transcripts", "paths": ["x"]}],
                       "stages": {"sft": {"sequence_length": 1024, "token_budget": 10_000, "weights": {"runs": 1},
                                          "sft": {"outcome_policy": "resolved"}}}})
    info = stage_manifest(spec, [], shaping)["sft"]
    assert info["left_out_by_source"] == {"runs": {
        "claude-code": {"transcripts": 2, "without_samples": 2, "reasons": {"outcome_unknown": 2}},
        "sharegpt": {"transcripts": 5, "without_samples": 5, "reasons": {"outcome_unknown": 5}}}}
    _, warnings, _ = stage_health(spec, "sft", {**info, "epochs_per_source": {}}, set())
    assert any("source runs: 7 of 7 transcripts gave no sample" in w and "sharegpt 5 of 5 (outcome_unknown: 5)" in w
               and "health.warn_drop_rate" in w for w in warnings), warnings
