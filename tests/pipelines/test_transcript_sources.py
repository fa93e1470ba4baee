"""A `transcripts` source keeps each file's problems its own: a file in no layout, an empty file or a damaged
run is quarantined with its reason and counted, the build goes on, and the good files build exactly as they
would without the bad ones beside them."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from apache_beam.pvalue import TaggedOutput

from codemix.document import DROPPED_SCHEMA, Document, Dropped, packed_document
from codemix.mix.cli import main as mix
from codemix.mixtures.blend import stage_manifest
from codemix.mixtures.sft import SFTConfig
from codemix.mixtures.spec import parse_spec
from codemix.mixtures.tokenizer import train_bpe
from codemix.pipelines.health import stage_health
from codemix.pipelines.readers import read_location
from codemix.pipelines.shape_sft import WriteSFTShard
from codemix.pipelines.stats import prose_check_counts
from codemix.sources import ReadLimits, SourceConfig

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
GOOD = ["claude-code-transcripts/sample_session.jsonl", "claude-code-transcripts/sample_session.json",
        "sharegpt/glaive_toolcall_en_demo.first5.json"]
GOOD_TRANSCRIPTS = 1 + 1 + 5  # one session, one export, five rows


def spec(root: Path, name: str, paths: list[Path]) -> Path:
    path = root / f"{name}.yaml"
    path.write_text(yaml.safe_dump({
        "name": name, "sources": [{"name": "runs", "type": "transcripts", "paths": [str(p) for p in paths],
                                   "license": "Apache-2.0", "no_request": "refuse"}],
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


def test_mix_stats_shows_sft_shaping_per_source_and_format(builds, capsys) -> None:
    """What shaping left out is in `mix stats` (table and --json), as the manifest recorded it."""
    manifest = json.loads((builds[0] / "manifest.json").read_text())
    recorded = manifest["stages"]["sft"]["left_out_by_source"]["runs"]
    assert sum(f["transcripts"] for f in recorded.values()) == GOOD_TRANSCRIPTS, "guard: every transcript shaped"
    assert mix(["stats", str(builds[0]), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"]["sft_left_out"] == {"sft": recorded}
    assert mix(["stats", str(builds[0])]) == 0
    table = capsys.readouterr().out.split("SFT shaping:", 1)[1].split("\n\n")[0]
    for fmt, counts in recorded.items():
        row = next(line for line in table.splitlines() if f" {fmt} " in line)
        assert f" {counts['transcripts']} " in row and f" {counts['without_samples']} " in row
        assert all(f"{reason}: {n}" in row for reason, n in counts["reasons"].items())


def test_prose_checks_are_counted_per_check(tmp_path: Path) -> None:
    """Each prose drop counts once per check it failed (its first is the dropped table's reason)."""
    rows = [Dropped(stage="filter", source="runs", location=f"r{i}", reason=reasons[0], reasons=reasons).to_row()
            for i, reasons in enumerate([("gopher_quality:a", "gopher_repetition:b"), ("gopher_repetition:b",)])]
    rows.append(Dropped(stage="filter", source="runs", location="r9", reason="too_large").to_row())
    pq.write_table(pa.Table.from_pylist(rows, schema=DROPPED_SCHEMA), tmp_path / "dropped-0.parquet")
    counts = prose_check_counts(str(tmp_path / "dropped*.parquet"))
    assert counts == {"runs": {"gopher_quality:a": 1, "gopher_repetition:b": 2}}
