"""`mix` refuses a bad spec with the field and the fix, before it reads or writes anything."""

from __future__ import annotations

from pathlib import Path

import yaml

from mix.cli import main as mix
from pipelines.options import runner_name, with_default_runner

SPEC = {
    "name": "t",
    "sources": [{"name": "code", "type": "directory", "paths": ["/nonexistent/never/read"]}],
    "stages": {"short": {"sequence_length": 128, "token_budget": 1000, "weights": {"code": 1.0}}},
}


def write_spec(tmp_path: Path, spec: dict) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def test_bad_spec_fails_before_any_output(tmp_path, capsys):
    spec = dict(SPEC, stages={"short": {"sequence_length": 0, "token_budget": 1000, "weights": {"code": 1.0}}})
    out = tmp_path / "out"
    assert mix(["build", str(write_spec(tmp_path, spec)), "--out", str(out)]) == 2
    assert "stages.short.sequence_length: must be positive" in capsys.readouterr().err
    assert not out.exists()


def test_plan_prints_the_resolved_plan_without_reading_inputs(tmp_path, capsys):
    assert mix(["plan", str(write_spec(tmp_path, SPEC))]) == 0
    printed = capsys.readouterr().out
    assert "/nonexistent/never/read" in printed
    assert "implied Jaccard threshold 0.648" in printed


def test_missing_spec_file_is_a_clear_error(tmp_path, capsys):
    assert mix(["plan", str(tmp_path / "nope.yaml")]) == 2
    assert "cannot read spec" in capsys.readouterr().err


def test_fnapirunner_is_the_default_and_any_runner_passes_through():
    assert runner_name([]) == "FnApiRunner"
    assert with_default_runner(["--direct_num_workers=2"]) == ["--runner=FnApiRunner", "--direct_num_workers=2"]
    dataflow = ["--runner", "DataflowRunner", "--project", "p", "--region", "r"]
    assert with_default_runner(dataflow) == dataflow
    assert runner_name(dataflow) == "DataflowRunner"
